#!/bin/bash
# A RoCE host set up through lldpad (lldptool-pfc(8), lldptool-ets(8), lldptool-app(8)): LLDP on, the local DCBX
# configuration given to lldpad, then the DCQCN switches in sysfs.
IF=ens2f0
systemctl start lldpad
lldptool set-lldp -i $IF adminStatus=rxtx
lldptool -T -i $IF -V sysName enableTx=yes
lldptool -T -i $IF -V portDesc enableTx=yes
lldptool -T -i $IF -V PFC enableTx=yes
lldptool -T -i $IF -V PFC willing=no enabled=3
lldptool -T -i $IF -V ETS-CFG willing=no tsa=0:ets,1:ets,2:ets,3:ets,4:ets,5:ets,6:strict,7:ets up2tc=0:0,1:1,2:2,3:3,4:4,5:5,6:6,7:7 tcbw=10,10,10,50,5,5,0,10
lldptool -T -i $IF -V APP app=3,5,26
lldptool -t -i $IF -V PFC
echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/3
echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/3
echo 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp
