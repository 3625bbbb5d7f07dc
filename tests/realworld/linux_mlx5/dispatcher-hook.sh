#!/bin/bash
# networkd-dispatcher routable.d hook: re-applies RoCE QoS each time the storage port comes up
# (written after the MLNX_OFED manual's QoS and ECN chapters; sysfs written through tee, as a non-root shell must)
NIC=ens1f0np0
RDMA_DEV=mlx5_0
ROCE_PRIO=3

case "$IFACE" in
    ens1f0np0)
        logger -t roce-qos "applying RoCE QoS to $NIC"
        mlnx_qos -i $NIC --trust dscp --pfc 0,0,0,1,0,0,0,0
        mlnx_qos -i ${NIC} --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0
        mlnx_qos -i $NIC --prio_tc 0,0,0,3,0,0,6,0
        ip link set dev $NIC mtu 4200
        ethtool -A $NIC autoneg off rx off tx off
        echo 1 | sudo tee /sys/class/net/$NIC/ecn/roce_np/enable/$ROCE_PRIO > /dev/null
        echo 1 | tee -a /sys/class/net/$NIC/ecn/roce_rp/enable/$ROCE_PRIO
        sudo sh -c "echo 48 > /sys/class/net/$NIC/ecn/roce_np/cnp_dscp"
        sudo sh -c "echo 6 > /sys/class/net/$NIC/ecn/roce_np/cnp_802p_prio"
        echo 106 > /sys/class/infiniband/$RDMA_DEV/tc/1/traffic_class
        cma_roce_tos -d $RDMA_DEV -t 106
        sysctl -w net.ipv4.tcp_ecn=1
        ;;
    *)
        exit 0
        ;;
esac
