#!/bin/bash
# GPU node RoCE setup for a DOCA host: PFC per priority with mlnx_qos -F (x keeps a priority's bit), checked with -P.
set -e
NIC=ens3f0np0
mlnx_qos -i $NIC --trust dscp
mlnx_qos -i $NIC --pfc 0,0,0,0,0,0,0,0
mlnx_qos -i $NIC -F x,x,x,1,x,x,x,x
mlnx_qos -i $NIC --specific_pfc=x,x,x,x,x,x,0,x
mlnx_qos -i $NIC -P 3
mlnx_qos -i $NIC --cable_len=5 --pfc 0,0,0,0,0,0,0,0 -F x,x,x,1,x,x,x,x
mlnx_qos -i $NIC -F x,x,x,1,x,x,x,x --trust pcp
cma_roce_tos -d mlx5_0 -t 106
