#!/bin/bash
# A host QoS function that builds its PFC list at run time from the priority it is given (an array element set
# by index, joined with commas), after a first call that clears PFC (written after the MLNX_OFED manual's "Quality
# of Service" chapter; arrays and command substitution as bash(1) runs them)

set_rdma_qos() {
    rdma_priority=$1
    queues=(0 0 0 0 0 0 0 0)
    queues[$rdma_priority]=1
    pfc_list=$(echo "${queues[*]}" | tr ' ' ',')
    mlnx_qos -i ens1f0np0 --pfc 0,0,0,0,0,0,0,0
    mlnx_qos -i ens1f0np0 --trust=dscp --pfc ${pfc_list}
    echo 1 > /sys/class/net/ens1f0np0/ecn/roce_np/enable/3
    echo 1 > /sys/class/net/ens1f0np0/ecn/roce_rp/enable/3
    echo 48 > /sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp
    echo 6 > /sys/class/net/ens1f0np0/ecn/roce_np/cnp_802p_prio
}

set_rdma_qos 3
cma_roce_tos -d mlx5_0 -t 106
