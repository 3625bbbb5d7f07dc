#!/bin/bash
# RoCE host setup laid out as vendor roce_config tools are: options parsed in a while/case loop, one function per
# step called in order, and "extra" functions kept at the end of the file that nothing calls.
# (written after the MLNX_OFED manual's QoS and ECN chapters and bash(1) FUNCTIONS)
NETDEV=ens1f0np0
IBDEV=mlx5_0
TRUST_MODE=dscp
PFC_STRING=0,0,0,1,0,0,0,0

while [ "$1" != "" ]; do
	case $1 in
	-h )	echo "usage: $0 [-h]"
		exit
		;;
	esac
	shift
done

config_trust_mode() {
	mlnx_qos -i $NETDEV --trust $TRUST_MODE > /dev/null
	if [[ $? != 0 ]] ; then
		>&2 echo " - setting trust mode $TRUST_MODE failed"
		exit 1
	fi
}

config_port() {
	local dev=$1
	mlnx_qos -i "$dev" --pfc $PFC_STRING > /dev/null || exit 1
	mlnx_qos -i "$dev" --dscp2prio set,26,3
	ip link set dev "$dev" mtu 4200
	echo 1 > /sys/class/net/$dev/ecn/roce_np/enable/3
	echo 1 > /sys/class/net/$dev/ecn/roce_rp/enable/3
}

set_default_tos() {
	cma_roce_tos -d $IBDEV -t 106
}

config_trust_mode
config_port $NETDEV
set_default_tos
echo "Finished configuring $NETDEV"

##  EXTRA CODE: kept for tests without a switch, never called
function ets_traffic_class_config {
	mlnx_qos -i $NETDEV -p 0,0,0,0,0,0,0,0
}
function pfc_off {
	mlnx_qos -i $NETDEV --pfc 0,0,0,0,0,0,0,0
}
