#!/bin/bash
# A RoCE host's DCB set with iproute2's dcb (dcb-pfc(8), dcb-app(8), dcb-ets(8)), as a systemd unit runs it at boot.
sleep 5
for IF in ens6f0 ens6f1; do
  dcb app add dev $IF dscp-prio 26:3 48:6 2>/dev/null
  dcb pfc set dev $IF prio-pfc all:off 3:on
  dcb ets set dev $IF prio-tc all:0 3:3 6:6 tc-tsa all:ets 6:strict tc-bw all:0 0:50 3:50
done
dcb pfc set dev ens6f1 prio-pfc 4:on
echo 1 > /sys/class/net/ens6f0/ecn/roce_np/enable/3
echo 1 > /sys/class/net/ens6f0/ecn/roce_rp/enable/3
echo 48 > /sys/class/net/ens6f0/ecn/roce_np/cnp_dscp
sysctl -w net.ipv4.tcp_ecn=1
logger "RoCE QoS configured"
