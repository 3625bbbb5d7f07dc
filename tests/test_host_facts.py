"""Host facts the NIC rules of issue 12 read: link-level pause, max MTU, DCQCN parameters, the RDMA device's traffic
class and NCCL's settings, from a capture and from a setup script; NX-OS/Junos models from `show version`; the README
demo excerpt is what the demo prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from losslessd.parse import junos, mlx5, nxos
from losslessd.parse.base import Input

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = """#% losslessd capture 1
#% device: gpu09
#% platform: linux_mlx5
#% collected: 2026-11-20T08:00:00Z
#% command: ethtool -a eth0
Pause parameters for eth0:
Autonegotiate:	off
RX:		on
TX:		off
#% command: ip -d link show dev eth0
2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP
    link/ether 0c:42:a1:00:00:01 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978 addrgenmode eui64
#% command: grep -s . /sys/class/net/eth0/ecn/roce_rp/* /sys/class/net/eth0/ecn/roce_np/*
/sys/class/net/eth0/ecn/roce_rp/rpg_time_reset:300
/sys/class/net/eth0/ecn/roce_rp/rpg_ai_rate:5
/sys/class/net/eth0/ecn/roce_np/min_time_between_cnps:4
/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48
#% command: cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class
Global tclass=106
#% command: cat /etc/nccl.conf
# site defaults
NCCL_IB_TC=104
NCCL_IB_SL=1
#% command: ethtool -a eth1
Cannot get device pause settings: No such device
"""


def test_capture_facts():
    dev = mlx5.parse([Input("gpu09.txt", CAPTURE)], "x")
    port = dev.ports["eth0"]
    assert (port.link_pause.autoneg, port.link_pause.rx, port.link_pause.tx) == (False, True, False)
    assert port.link_pause.source.line == 6
    assert port.max_mtu_bytes == 9978
    assert port.nic_ecn.rp_params == {"rpg_time_reset": 300, "rpg_ai_rate": 5}
    assert port.nic_ecn.np_params == {"min_time_between_cnps": 4} and port.nic_ecn.cnp_dscp == 48
    assert dev.rdma_traffic_class == 106 and dev.rdma_traffic_class_source.line == 19
    assert dev.nccl_env == {"NCCL_IB_TC": "104", "NCCL_IB_SL": "1"}
    assert dev.ports["eth1"].link_pause is None  # a refused optional read is kept, not a finding
    assert not [i for i in dev.issues if "eth1" in i.message and "pause" in i.message]


def test_empty_traffic_class_and_missing_nccl_conf():
    text = CAPTURE.split("#% command: cat /sys/class/infiniband")[0] + (
        "#% command: cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
        "#% command: cat /etc/nccl.conf\ncat: /etc/nccl.conf: No such file or directory\n")
    dev = mlx5.parse([Input("gpu09.txt", text)], "x")
    assert dev.rdma_traffic_class is None and dev.rdma_traffic_class_source is not None  # read, not set
    assert dev.nccl_env == {}  # read: sets nothing


def test_script_sets_pause_and_traffic_class():
    script = ("#!/bin/bash\nset -eu\nethtool -A eth0 autoneg off rx off tx off\n"
              'echo 106 > "/sys/class/infiniband/$(ls /sys/class/net/eth0/device/infiniband)/tc/1/traffic_class"\n'
              "ethtool -A eth0 rx on\n")
    dev = mlx5.parse([Input("setup.sh", script)], "x")
    assert dev.issues == []
    pause = dev.ports["eth0"].link_pause
    assert (pause.autoneg, pause.rx, pause.tx, pause.source.line) == (False, True, False, 5)
    assert dev.rdma_traffic_class == 106


def test_show_version_gives_the_model():
    nx = ("#% losslessd capture 1\n#% device: sw1\n#% platform: cisco_nxos\n#% collected: 2026-11-20T08:00:00Z\n"
          "#% command: show running-config ipqos all\nhostname sw1\n"
          "#% command: show version\nHardware\n  cisco Nexus9000 C93180YC-EX Chassis\n")
    assert nxos.parse([Input("sw1.txt", nx)], "sw1").hardware == "Nexus9000 C93180YC-EX"
    jn = ("#% losslessd capture 1\n#% device: qfx1\n#% platform: juniper_junos\n#% collected: 2026-11-20T08:00:00Z\n"
          "#% command: show configuration | display set\nset interfaces et-0/0/0 mtu 9216\n"
          "#% command: show version\nHostname: qfx1\nModel: qfx5120-48y-8c\nJunos: 23.4R1\n")
    assert junos.parse([Input("qfx1.txt", jn)], "qfx1").hardware == "qfx5120-48y-8c"


def test_the_model_comes_from_the_one_split_of_a_capture_as_before():
    """NX-OS and Junos read `show version` from the sections parse.base.capture_inputs keeps (each capture split once):
    the model is the one hardware_model, which splits the captures again, finds; where the last `show version` names
    none, an earlier one still does, and a capture without the command gives the next capture's."""
    from losslessd.parse.base import hardware_model

    head = "#% losslessd capture 1\n#% device: {0}\n#% platform: {1}\n#% collected: 2026-11-20T08:00:00Z\n"
    cases = {
        nxos: (nxos.MODEL, "cisco_nxos", "#% command: show running-config ipqos all\nhostname sw1\n",
               "  cisco Nexus9000 C93180YC-EX Chassis\n", "Nexus9000 C93180YC-EX"),
        junos: (junos.MODEL, "juniper_junos", "#% command: show configuration | display set\n"
                "set interfaces et-0/0/0 mtu 9216\n", "Model: qfx5120-48y-8c\n", "qfx5120-48y-8c"),
    }
    for parser, (pattern, platform, config, model_line, model) in cases.items():
        named = head.format("sw1", platform) + config + "#% command: show version\n" + model_line
        later_blank = named + "#% command: show version\nsomething else\n"
        bare = head.format("sw1", platform) + config
        for inputs, want, where in (([Input("a.txt", named)], model, ("a.txt", 8)),
                                    ([Input("a.txt", later_blank)], model, ("a.txt", 8)),
                                    ([Input("a.txt", bare), Input("b.txt", named)], model, ("b.txt", 8)),
                                    ([Input("a.txt", bare)], None, None)):
            read = hardware_model(inputs, platform, pattern)
            assert (read[0] if read else None) == want
            device = parser.parse(inputs, "sw1")
            assert device.hardware == want, (platform, [i.text for i in inputs])
            # (the model's own line: render and fix name it when they refuse the model)
            source = device.hardware_source
            assert ((source.file, source.line) if source else None) == where, (platform, source)
