#!/bin/bash
# GPU node RoCE setup: each step's output kept in a log, the PFC state checked at the end.
LOG=/var/log/roce-setup.log
NIC=ens1f0np0
mlnx_qos -i $NIC --trust dscp 2>&1 | tee -a $LOG
mlnx_qos -i $NIC --pfc 0,0,0,1,0,0,0,0 2>&1 | tee -a $LOG
sudo mlnx_qos -i $NIC --dscp2prio set,26,3 | logger -t roce-setup
cma_roce_tos -d mlx5_0 -t 106 | tee -a $LOG
mlnx_qos -i $NIC | grep -i -A2 "PFC configuration"
