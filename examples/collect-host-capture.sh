#!/bin/sh
# Write a losslessd host capture (docs/capture-format.md) of the RoCE settings of NVIDIA ConnectX
# (mlx5) interfaces, for `losslessd lint` to check offline.
#
# Read-only: it runs `mlnx_qos -i IF` without setting options and reads sysfs/configfs files. On a
# host without mlnx_qos (an Intel ice or Broadcom bnxt_en NIC, no MLNX_OFED) it runs iproute2's
# `dcb pfc|ets|app|buffer show dev IF` instead, which show the same DCB state from the kernel.
# Only when the rdma_cm configfs folder of a device is absent does it ask `cma_roce_tos -d DEV`
# (no -t) for the RoCE ToS; that tool creates and removes the folder but changes no setting.
#
# Usage: collect-host-capture.sh [-n DEVICE-NAME] [-o FILE] INTERFACE...
#   -n  device name in the capture (default: uname -n)
#   -o  output file (default: standard output)
#   SYSFS_ROOT  where sysfs is mounted (default /sys); configfs is read below $SYSFS_ROOT/kernel/config
# Example: sudo ./collect-host-capture.sh -o "$(hostname).txt" ens1f0np0 ens1f1np1
set -u

usage() {
	echo "usage: $0 [-n device-name] [-o output-file] interface..." >&2
	exit 2
}

name=$(uname -n)
out=
while getopts n:o:h opt; do
	case $opt in
	n) name=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
case $name in
'' | *"
"*) echo "$0: bad device name" >&2; exit 2 ;;
esac
for ifc in "$@"; do
	case $ifc in
	'' | *[!A-Za-z0-9_.:@-]*) echo "$0: bad interface name: $ifc" >&2; exit 2 ;;
	esac
done
sysfs=${SYSFS_ROOT:-/sys}
net=$sysfs/class/net
[ -z "$out" ] || exec >"$out"

# One section: the command line, then its output and errors; output lines that start with the
# marker '#%' get the escape prefix '#%|'. A carriage return ends a line to the reader too (a file
# such as /etc/nccl.conf may hold `x<CR>#% command: ...`): each piece after one is escaped alike.
section() {
	printf '#%% command: %s\n' "$1"
	sh -c "$1" 2>&1 | awk '{
		n = split($0, piece, "\r")
		if (n == 0) { print; next }
		for (i = 1; i <= n; i++) {
			if (substr(piece[i], 1, 2) == "#%") piece[i] = "#%|" piece[i]
			printf "%s%s", piece[i], (i < n ? "\r" : "\n")
		}
	}'
}

printf '#%% losslessd capture 1\n#%% device: %s\n#%% platform: linux_mlx5\n#%% collected: %s\n' \
	"$name" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"

devices=
for ifc in "$@"; do
	if command -v mlnx_qos >/dev/null 2>&1 || ! command -v dcb >/dev/null 2>&1; then
		section "mlnx_qos -i $ifc"
	else
		# (app with -N: DSCPs as numbers, not the names of the host's /etc/iproute2/rt_dsfield)
		for obj in pfc ets "-N app" buffer; do section "dcb $obj show dev $ifc"; done
	fi
	section "cat $net/$ifc/mtu"
	section "cat $net/$ifc/speed"
	section "grep . $net/$ifc/ecn/roce_np/enable/*"
	section "grep . $net/$ifc/ecn/roce_rp/enable/*"
	section "grep . $net/$ifc/ecn/roce_np/cnp_dscp $net/$ifc/ecn/roce_np/cnp_802p_prio"
	# 802.3x pause, the NIC's driver (which says where its DCQCN is set: mlx5's sysfs ecn/ files above,
	# or Intel irdma's and Broadcom bnxt_re's own), the NIC's max MTU, and the DCQCN parameters
	# (optional: older tools lack some).
	if command -v ethtool >/dev/null 2>&1; then section "ethtool -a $ifc"; section "ethtool -i $ifc"; fi
	if command -v ip >/dev/null 2>&1; then section "ip -d link show dev $ifc"; fi
	section "grep -s . $net/$ifc/ecn/roce_rp/* $net/$ifc/ecn/roce_np/*"
	for dir in "$net/$ifc/device/infiniband/"*; do
		[ -d "$dir" ] || continue
		case " $devices " in *" ${dir##*/} "*) ;; *) devices="$devices ${dir##*/}" ;; esac
	done
done

# LLDP neighbours (lldpd), when installed: ties each NIC port to its switch port for link checks.
if command -v lldpcli >/dev/null 2>&1; then
	section "lldpcli show neighbors -f keyvalue"
fi

for dev in $devices; do
	tos=$sysfs/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos
	if [ ! -e "$tos" ] && command -v cma_roce_tos >/dev/null 2>&1; then
		section "cma_roce_tos -d $dev"
	else
		section "cat $tos"
	fi
	# The device-wide traffic class (MLNX_OFED), which overrides every application's.
	tc=$sysfs/class/infiniband/$dev/tc/1/traffic_class
	if [ -e "$tc" ]; then section "cat $tc"; fi
done

# NCCL's settings for every job on this host (NCCL_IB_TC, NCCL_IB_SL ...), when there are any.
if [ -e /etc/nccl.conf ]; then section "cat /etc/nccl.conf"; fi
