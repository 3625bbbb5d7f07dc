#!/bin/bash
# Boot-time RoCE QoS for the two storage ports of a host, quiet so that its unit's journal stays short
# (written after the MLNX_OFED manual's "Quality of Service" and "Explicit Congestion Notification" chapters;
# bash arrays and loops as bash(1) runs them)

ROCE_TOS=106
CNP_DSCP=48
PORTS=(ens1f0np0 ens1f1np1)

for port in "${PORTS[@]}"; do
    mlnx_qos -i "$port" --trust=dscp >/dev/null
    mlnx_qos -i "$port" --cable_len=5
    mlnx_qos -i "$port" --pfc 0,0,0,1,0,0,0,0 >/dev/null 2>&1
    mlnx_qos -i "$port" --prio_tc=0,1,2,3,4,5,6,7 1>/dev/null
    mlnx_qos -i "$port" -s ets,ets,ets,ets,ets,ets,strict,ets --tcbw=20,0,0,80,0,0,0,0 &>/dev/null
    for prio in 3; do
        echo 1 > /sys/class/net/"$port"/ecn/roce_np/enable/$prio
        echo 1 > /sys/class/net/"${port}"/ecn/roce_rp/enable/$prio
    done
    echo "$CNP_DSCP" > /sys/class/net/"$port"/ecn/roce_np/cnp_dscp 2>/dev/null
    echo 6 > /sys/class/net/$port/ecn/roce_np/cnp_802p_prio
    ip link set dev "$port" mtu 4200 2>> /var/log/roce-qos.err
done

for dev in mlx5_0 mlx5_1; do
    cma_roce_tos -d "$dev" -t "$ROCE_TOS" >/dev/null || true
    echo "$ROCE_TOS" > /sys/class/infiniband/"$dev"/tc/1/traffic_class
done
