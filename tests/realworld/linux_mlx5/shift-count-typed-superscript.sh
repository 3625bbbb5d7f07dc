#!/bin/bash
# Host RoCE QoS helper: trust DSCP and pause priority 3 on each port given after the trust mode (written after the
# MLNX_OFED manual's "Quality of Service" chapter). The count after `shift` was typed with AltGr+2, which gives the
# superscript two: bash refuses it ("shift: ²: numeric argument required", status 1) and `set -e` stops the script.
set -e

apply_qos() {
    local trust=$1
    shift ²
    for port in "$@"; do
        mlnx_qos -i "$port" --trust "$trust"
        mlnx_qos -i "$port" --pfc 0,0,0,1,0,0,0,0
    done
}

apply_qos dscp ens1f0np0 ens1f1np1
