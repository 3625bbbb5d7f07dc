#!/usr/bin/env bash
# Storage client NIC setup: RoCE on DSCP 26 / priority 3, the ToS RDMA-CM gives new connections.
set -euo pipefail
NICS=(ens2f0np0 ens2f1np1)
TOS=106   # ToS = (DSCP 26 << 2) | ECT(0) = 106
for NIC in "${NICS[@]}"; do
    mlnx_qos -i "$NIC" --trust dscp
    mlnx_qos -i "$NIC" --dscp2prio set,26,3
    mlnx_qos -i "$NIC" --pfc 0,0,0,1,0,0,0,0 || echo "PFC on $NIC failed" >&2
done
cma_roce_tos -d mlx5_0 -t "$TOS"   # see << above
