#!/bin/bash
# Install-time RoCE QoS for one storage port: sets the port now, then leaves a rollback script and a systemd unit
# behind, both written with here-documents (written after the MLNX_OFED manual's "Quality of Service" and
# "Explicit Congestion Notification" chapters; here-documents, associative arrays and loop builtins as bash(1)
# runs them)

: <<'USAGE'
Usage: roce-install.sh
Undo with /usr/local/sbin/roce-off.sh, which runs:
    mlnx_qos -i ens1f0np0 --pfc 0,0,0,0,0,0,0,0
USAGE

IFACE=ens1f0np0
declare -A PRIO_OF=(
    [roce]=3
    [cnp]=6
)

for port in ens1f0np0 ens1f1np1; do
    [ -d /sys/class/net/"$port"/ecn ] || continue
    mlnx_qos -i "$port" --trust=dscp
    mlnx_qos -i "$port" --pfc 0,0,0,1,0,0,0,0
    mlnx_qos -i "$port" --prio_tc=0,1,2,3,4,5,6,7
    mlnx_qos -i "$port" -s ets,ets,ets,ets,ets,ets,strict,ets --tcbw=20,0,0,80,0,0,0,0
    echo 1 > /sys/class/net/"$port"/ecn/roce_np/enable/3
    echo 1 > /sys/class/net/"$port"/ecn/roce_rp/enable/3
    echo 48 > /sys/class/net/"$port"/ecn/roce_np/cnp_dscp
    echo 6 > /sys/class/net/"$port"/ecn/roce_np/cnp_802p_prio
    ip link set dev "$port" mtu 4200
done

sudo bash <<'ROOT'
cma_roce_tos -d mlx5_0 -t 106
echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class
ROOT

cat > /usr/local/sbin/roce-off.sh <<'OFF'
#!/bin/bash
mlnx_qos -i ens1f0np0 --pfc 0,0,0,0,0,0,0,0
mlnx_qos -i ens1f0np0 --trust=pcp
OFF
chmod 755 /usr/local/sbin/roce-off.sh

cat <<-UNIT > /etc/systemd/system/roce-qos.service
	[Unit]
	Description=RoCE QoS on $IFACE
	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/roce-install.sh
	UNIT

echo "$(mlnx_qos -i "$IFACE")" | grep -A 2 "PFC configuration"
