#!/usr/bin/env bash
# RoCE QoS for a storage client's two ports, as a unit's ExecStart runs it: long commands continued over lines,
# logging through a function (written after the MLNX_OFED manual's QoS and ECN chapters; bash(1) for the syntax)
set -Eeuo pipefail

ROCE_TOS=106
ROCE_NICS=(ens2f0np0 ens2f1np1)

log()
{
    echo "$(date '+%F %T') $*"
}

function fail {
    log "ERROR: $*"
    exit 1
}

for nic in "${ROCE_NICS[@]}"; do
    [[ -e "/sys/class/net/${nic}" ]] ||
        fail "interface missing: ${nic}"

    log "${nic}: trust dscp, PFC on priority 3"
    mlnx_qos -i "${nic}" \
        --trust dscp \
        --pfc 0,0,0,1,0,0,0,0 \
        >/dev/null

    mlnx_qos -i "${nic}" \
        --tsa ets,ets,ets,ets,ets,ets,strict,ets \
        --tcbw 40,0,0,60,0,0,0,0 \
        >/dev/null

    echo 1 > "/sys/class/net/${nic}/ecn/roce_np/enable/3"
    echo 1 > "/sys/class/net/${nic}/ecn/roce_rp/enable/3"
    echo 48 > "/sys/class/net/${nic}/ecn/roce_np/cnp_dscp"
    echo 6 > "/sys/class/net/${nic}/ecn/roce_np/cnp_802p_prio"
done

for dev in mlx5_0 mlx5_1; do
    log "${dev}: RoCE TOS ${ROCE_TOS}"
    cma_roce_tos \
        -d "${dev}" \
        -t "${ROCE_TOS}" \
        >/dev/null
    echo "${ROCE_TOS}" > "/sys/class/infiniband/${dev}/tc/1/traffic_class"
done

log "RoCE QoS applied"
