#!/bin/bash
# A RoCE bandwidth test wrapper: lossless priority 3 is set up for the run and torn down by an EXIT trap, so the port
# is left as the trap leaves it (bash(1) SHELL BUILTIN COMMANDS, trap; mlnx_qos, cma_roce_tos as the NVIDIA MLNX_OFED
# user manual writes them).
IF=ens3f0
DEV=mlx5_0

setup() {
	mlnx_qos -i $IF --trust dscp --pfc 0,0,0,1,0,0,0,0 >/dev/null
	echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/3
	echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/3
	cma_roce_tos -d $DEV -t 106
}

teardown() {
	mlnx_qos -i $IF --pfc 0,0,0,0,0,0,0,0 >/dev/null
	echo "restored $IF"
}

on_signal() {
	mlnx_qos -i $IF --trust pcp >/dev/null
	exit 1
}

trap teardown EXIT
trap on_signal INT TERM
setup
ib_write_bw -d $DEV -x 3 --report_gbits -D 10 "$@"
