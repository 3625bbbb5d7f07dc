#!/bin/bash
# A RoCE host set with iproute2's dcb alone, its lines as dcb-dcbx(8), dcb-pfc(8), dcb-ets(8), dcb-apptrust(8) and
# dcb-rewr(8) write them in their EXAMPLE sections (iproute2 6.x), for priority 3 and DSCP 26.
set -u
IF=ens6f0
dcb dcbx set dev $IF host ieee
dcb pfc set dev $IF prio-pfc all:off 3:on
dcb ets set dev $IF prio-tc all:0 3:3 tc-tsa all:ets tc-bw all:0 0:50 3:50
# trust DSCP first, then PCP
dcb apptrust set dev $IF order dscp pcp
dcb app add dev ens6f1 dscp-prio 26:3
dcb rewr add dev $IF prio-dscp 3:26
echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/3
echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/3
# the second port is left to the switch's DCBX
dcb dcbx set dev ens6f1
cma_roce_tos -d mlx5_0 -t 106
