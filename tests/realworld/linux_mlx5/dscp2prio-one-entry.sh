#!/bin/bash
# A ConnectX-7 port whose setup moves one DSCP (the CNPs' 48) to priority 6 and leaves the rest of the NIC's
# DSCP->priority map as it was (NVIDIA MLNX_OFED user manual: mlnx_qos --dscp2prio set,<dscp>,<prio>)
set -euo pipefail
mlnx_qos -i ens3f0np0 --trust dscp
mlnx_qos -i ens3f0np0 --dscp2prio set,48,6
mlnx_qos -i ens3f0np0 --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i ens3f0np0 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0
mlnx_qos -i ens3f0np0 --prio_tc 0,0,0,3,0,0,6,0
ip link set dev ens3f0np0 mtu 4200
echo 1 > /sys/class/net/ens3f0np0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/ens3f0np0/ecn/roce_rp/enable/3
echo 48 > /sys/class/net/ens3f0np0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/ens3f0np0/ecn/roce_np/cnp_802p_prio
cma_roce_tos -d mlx5_0 -t 106
