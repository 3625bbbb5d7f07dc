"""A host script's direct writes to the files cma_roce_tos and MLNX_OFED's receive-buffer tuning write: read into the
host model as the kernel reads them (before: named, not read). Vectors: the MLNX_OFED "HowTo Tune Receive Buffers"
page's own writes (`echo 30000,20000,40000,30000,30000,40000,20000,30000 > /sys/class/net/eth1/qos/buffer_size`,
`echo 0,1,2,3,4,1,6,5 > .../qos/prio2buffer`); the formats of Linux drivers/infiniband/core/cma_configfs.c
default_roce_tos_store (kstrtou8, base 0: lib/kstrtox.c) and MLNX_OFED en_sysfs.c mlx5e_store_prio2buffer /
mlx5e_store_buffer_size (strsep at `,`, sscanf %u each, 8 values, a buffer 0-7)."""

from __future__ import annotations

import pytest

from losslessd.parse import mlx5
from losslessd.parse.base import Input

TOS = "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
SIZES = "/sys/class/net/eth1/qos/buffer_size"
MAP = "/sys/class/net/eth1/qos/prio2buffer"


def parse_lines(*lines: str):
    return mlx5.parse([Input("q.sh", "\n".join(["#!/bin/bash", *lines]) + "\n")], "h")


def test_the_guides_writes_set_the_receive_buffers_and_their_map():
    host = parse_lines(f"echo 30000,20000,40000,30000,30000,40000,20000,30000 > {SIZES}",
                       f"echo 0,1,2,3,4,1,6,5 > {MAP}", "mlnx_qos -i eth1 --trust dscp --pfc 0,0,0,1,0,0,0,0")
    port = host.ports["eth1"]
    assert {i: pg.size_bytes for i, pg in port.priority_groups.items()} == dict(enumerate(
        [30000, 20000, 40000, 30000, 30000, 40000, 20000, 30000]))
    assert port.priority_to_pg == dict(enumerate([0, 1, 2, 3, 4, 1, 6, 5]))
    assert all(pg.source.line == 2 for pg in port.priority_groups.values())
    assert host.issues == []


def test_the_roce_tos_written_to_configfs_is_the_hosts():
    """As `cma_roce_tos -d mlx5_0 -t 106` (which writes the file): the ToS of the device; `mkdir` of its directory,
    which configfs wants first, sets nothing and is not reported. A device the script looks up by its interface is
    that interface's, as cma_roce_tos's -d."""
    host = parse_lines("mkdir -p /sys/kernel/config/rdma_cm/mlx5_0", f"echo 106 > {TOS}",
                       "mlnx_qos -i eth1 --trust dscp")
    assert (host.roce_tos, host.roce_tos_source.line) == (106, 3) and host.issues == []
    looked_up = "/sys/kernel/config/rdma_cm/$(ls /sys/class/net/eth1/device/infiniband)/ports/1/default_roce_tos"
    host = parse_lines("mlnx_qos -i eth1 --trust dscp", f"echo 106 | sudo tee \"{looked_up}\"")
    assert host.roce_tos == 106 and host.issues == []


def test_a_tos_function_as_setup_scripts_write_it():
    """A function making the device's directory, writing its ToS, then reading it back; and `rmdir` of the directory
    after (the ToS stays with the device: cma.c keeps it in the cma_device, not in the configfs group)."""
    host = parse_lines("set_tos() {", "  local dev=$1 tos=$2", "  mkdir -p /sys/kernel/config/rdma_cm/${dev}/ports/1",
                       "  echo $tos > /sys/kernel/config/rdma_cm/${dev}/ports/1/default_roce_tos",
                       "  cat /sys/kernel/config/rdma_cm/${dev}/ports/1/default_roce_tos", "}",
                       "mlnx_qos -i eth1 --trust dscp", "set_tos mlx5_0 106",
                       "sudo rmdir /sys/kernel/config/rdma_cm/mlx5_0 2>/dev/null")
    assert (host.roce_tos, host.roce_tos_source.line) == (106, 5) and host.issues == []


@pytest.mark.parametrize("written,tos", [("0x6a", 106), ("0152", 106), ("+106", 106), ("0", 0), ("255", 255)])
def test_the_tos_is_read_as_kstrtou8_reads_it(written, tos):
    """kstrtou8(buf, 0): `0x` is hex, a leading 0 octal (`0152` is 106), a `+` is taken."""
    assert parse_lines(f"echo {written} > {TOS}", "mlnx_qos -i eth1 --trust dscp").roce_tos == tos


@pytest.mark.parametrize("lines,said", [
    ([f"echo 256 > {TOS}"], "`256` does not fit the ToS byte (0-255): ERANGE"),
    ([f"echo 08 > {TOS}"], "`08` is no number kstrtou8 reads (decimal, 0x hex or 0 octal): EINVAL"),
    ([f"echo -1 > {TOS}"], "EINVAL"),
    ([f"echo 0,1,2,3,4,1,6 > {MAP}"], "gives 7 of the 8 values the driver wants: EINVAL"),
    ([f"echo 0,8,2,3,4,1,6,5 > {MAP}"], "8 names no receive buffer (0-7): EINVAL"),
    ([f"echo 1,2,3,4,5,6,7 > {SIZES}"], "gives 7 of the 8 values"),
])
def test_a_value_the_kernel_refuses_sets_nothing_and_is_named(lines, said):
    """The earlier value stands (the kernel keeps the file's value when it refuses a write), and a SYS002 at the line
    says why as the kernel does."""
    host = parse_lines(f"echo 106 > {TOS}", "mlnx_qos -i eth1 --prio2buffer 0,0,0,1,0,0,0,0 --buffer_size "
                       "0,262016,0,0,0,0,0,0", *lines)
    port = host.ports["eth1"]
    assert host.roce_tos == 106 and port.priority_to_pg == {**dict.fromkeys(range(8), 0), 3: 1}
    assert port.priority_groups[1].size_bytes == 262016
    (issue,) = host.issues
    assert (issue.code, issue.source.line) == ("SYS002", 4) and said in issue.message, issue.message


@pytest.mark.parametrize("lines,option", [
    ([f"echo 99999999999,0,0,0,0,0,0,0 > {SIZES}"], "--buffer_size"),
    ([f"echo 0,0,0,4294967297,0,0,0,0 > {MAP}"], "--prio2buffer"),
])
def test_a_value_past_32_bits_makes_the_setting_unknown(lines, option):
    """en_sysfs.c reads each value with sscanf "%u", which keeps the low 32 bits of a longer number and refuses
    nothing: the file changes, to a value no script means, so the setting is unknown after it (before: the earlier
    value was kept as if the write was refused), and a SYS002 says so."""
    host = parse_lines(f"echo 106 > {TOS}", "mlnx_qos -i eth1 --prio2buffer 0,0,0,1,0,0,0,0 --buffer_size "
                       "0,262016,0,0,0,0,0,0", *lines)
    port = host.ports["eth1"]
    if option == "--buffer_size":
        assert port.priority_groups == {} and port.priority_to_pg == {**dict.fromkeys(range(8), 0), 3: 1}
    else:
        assert port.priority_to_pg is None and port.priority_groups[1].size_bytes == 262016
    (issue,) = host.issues
    assert (issue.code, issue.source.line) == ("SYS002", 4) and "past the 32 bits sscanf's %u keeps" in \
        issue.message and "unknown" in issue.message, issue.message


@pytest.mark.parametrize("written,values", [
    ("0,,1,0,0,0,0,0,0", [0, 1, 0, 0, 0, 0, 0, 0]),  # (an empty part has no digits: passed over)
    ("3x,1,0,0,0,0,0,0,9", [3, 1, 0, 0, 0, 0, 0, 0]),  # (what follows the digits, and a ninth part, are not read)
    ("0,1,2,3,4,1,6,5,", [0, 1, 2, 3, 4, 1, 6, 5]),
])
def test_the_lists_are_read_as_the_driver_reads_them(written, values):
    assert parse_lines(f"echo {written} > {MAP}").ports["eth1"].priority_to_pg == dict(enumerate(values))


def test_a_write_known_only_at_run_time_makes_the_setting_unknown():
    host = parse_lines(f"echo 106 > {TOS}", "mlnx_qos -i eth1 --prio2buffer 0,0,0,1,0,0,0,0 --buffer_size "
                       "0,262016,0,0,0,0,0,0", f"echo $TOS > {TOS}", f"echo $MAP > {MAP}",
                       "echo $SIZES > /sys/class/net/$IF/qos/buffer_size")
    port = host.ports["eth1"]
    assert (host.roce_tos, port.priority_to_pg, port.priority_groups) == (None, None, {})
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 4), ("SYS002", 5), ("SYS002", 6)]
    assert "interface `$IF` is known only at run time" in host.issues[2].message


def test_under_set_e_a_refused_write_ends_the_script():
    """echo exits 1 when the kernel refuses its write (bash(1) echo: a write error), so set -e ends the script there."""
    host = parse_lines("set -e", f"echo 0,8,2,3,4,1,6,5 > {MAP}", "mlnx_qos -i eth1 --trust dscp")
    assert host.ports["eth1"].trust is None
    assert [(i.code, i.source.line) for i in host.issues] == [("SYS002", 3), ("SYS004", 3)]
    assert "`set -e` is in force and this command fails: the kernel refuses the write" in host.issues[1].message
    host = parse_lines("set -e", f"echo 0,1,2,3,4,1,6,5 > {MAP}", "mlnx_qos -i eth1 --trust dscp")
    assert host.ports["eth1"].trust is not None and host.issues == []


def test_a_refused_tos_for_a_device_known_only_at_run_time_sets_nothing():
    """A ToS the kernel refuses is refused whichever device `$DEV` names: each device's ToS stands (before, the write
    read as one of a value known only at run time, and made mlx5_0's unknown), and the SYS002 says why; cma_roce_tos
    and the file's write are read by one path (a value the tool takes to a device known only then: unknown)."""
    host = parse_lines(f"echo 106 > {TOS}", "DEV=$1", f"echo 300 > {TOS.replace('mlx5_0', '$DEV')}",
                       "mlnx_qos -i eth1 --trust dscp")
    (issue,) = host.issues
    assert host.roce_tos == 106 and issue.source.line == 4 and "ERANGE" in issue.message, issue.message
    host = parse_lines(f"echo 106 > {TOS}", "DEV=$1", "cma_roce_tos -d $DEV -t 96", "mlnx_qos -i eth1 --trust dscp")
    (issue,) = host.issues
    assert host.roce_tos is None and "known only at run time" in issue.message, issue.message
