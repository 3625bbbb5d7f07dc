"""Hosts built alike: the mlx5 parser works out each capture section once and applies it per host. Each host must still
get its own objects, its own file in every source, and the findings an earlier input of its own makes it give."""

from __future__ import annotations

import pytest

from losslessd import capture
from losslessd.errors import InputError
from losslessd.model import Trust
from losslessd.parse import mlx5, parse_group
from losslessd.parse.base import Input
from tests.conftest import FIXTURES

GOOD = FIXTURES / "raw" / "linux_mlx5" / "gpu01-good.txt"


def _as(device: str, text: str) -> str:
    """``text`` (a capture) as collected from ``device``: only the header's device line differs."""
    header, body = text.split("\n#% command:", 1)
    lines = [line if not line.startswith("#% device:") else f"#% device: {device}" for line in header.split("\n")]
    return "\n".join(lines) + "\n#% command:" + body


def _sources(device) -> list:
    """Every source of a host's model, with where it hangs."""
    found = [("device", device.source), ("roce_tos", device.roce_tos_source),
             ("traffic_class", device.rdma_traffic_class_source), ("nccl", device.nccl_env_source)]
    for name, port in device.ports.items():
        found += [(name, port.source), (name, port.trust_source), (name, port.pfc_source), (name, port.map_source)]
        found += [(name, q.source) for q in port.queues.values()]
        found += [(name, q.scheduler.source) for q in port.queues.values() if q.scheduler]
        found += [(name, pg.source) for pg in port.priority_groups.values()]
        if port.nic_ecn:
            ecn = port.nic_ecn
            found += [(name, ecn.source), (name, ecn.np_source), (name, ecn.rp_source), (name, ecn.params_source)]
        if port.link_pause:
            found.append((name, port.link_pause.source))
    found += [("neighbor", nb.source) for nb in device.neighbors]
    found += [("issue", issue.source) for issue in device.issues]
    return [(where, source) for where, source in found if source is not None]


def test_hosts_alike_each_have_their_own_objects_and_files(tmp_path):
    text = GOOD.read_text()
    paths = []
    for name in ("gpu01", "gpu02"):
        path = tmp_path / f"{name}.capture"
        path.write_text(_as(name, text))
        paths.append(path)
    one, two = (parse_group(p.stem, [p]) for p in paths)
    assert (one.name, two.name) == ("gpu01", "gpu02")
    assert len(_sources(one)) == len(_sources(two)) > 20
    for device, path in ((one, paths[0]), (two, paths[1])):
        assert {source.file for _, source in _sources(device)} == {str(path)}
    # Lines are the same (same body under a header of the same length).
    assert [s.line for _, s in _sources(one)] == [s.line for _, s in _sources(two)]
    # What a later input, fix or topology may change is not shared between the two hosts.
    a, b = one.ports["ens1f1np1"], two.ports["ens1f1np1"]
    for mutable in ("pfc_enabled", "queues", "priority_groups", "nic_ecn", "link_pause"):
        if getattr(a, mutable) is not None:
            assert getattr(a, mutable) is not getattr(b, mutable), mutable
    assert a.nic_ecn.np_enabled is not b.nic_ecn.np_enabled and a.nic_ecn.rp_params is not b.nic_ecn.rp_params
    a.pfc_enabled.append(5)
    a.queues[3].scheduler.weight = 1
    a.nic_ecn.np_enabled[3] = False
    again = parse_group("gpu02", [paths[1]])
    assert again.ports["ens1f1np1"].pfc_enabled == b.pfc_enabled == [3]
    assert again.ports["ens1f1np1"].queues[3].scheduler.weight == b.queues[3].scheduler.weight == 50
    assert again.ports["ens1f1np1"].nic_ecn.np_enabled[3] is b.nic_ecn.np_enabled[3] is True


def test_an_earlier_inputs_trust_still_decides_the_missing_dscp_map():
    """A capture without trust line or DSCP map says the map is unknown only on a port an earlier input set to
    trust dscp: that part of the worked-out output stays per host."""
    good = GOOD.read_text()
    start = good.index("#% command: mlnx_qos -i ens1f1np1")
    end = good.index("#% command:", start + 1)
    block = good[start:end].split("\n")
    bare = [line for line in block if "trust state" not in line and "prio:" not in line and "dscp2prio" not in line]
    later = _as("gpu01", good[:start] + "\n".join(bare) + good[end:])
    alone = mlx5.parse([Input("later.capture", later)], "x")
    after = mlx5.parse([Input("first.capture", good), Input("later.capture", later)], "x")
    unknown = "trust is dscp but no dscp2prio mapping is printed"
    assert not any(unknown in issue.message for issue in alone.issues)
    assert [issue.source.file for issue in after.issues if unknown in issue.message] == ["later.capture"]
    assert after.ports["ens1f1np1"].trust == Trust.dscp


def test_a_malformed_body_names_each_file_that_holds_it():
    """The same malformed body in several files: each error names the file it was found in."""
    body = "#% command: mlnx_qos -i eth0\nPFC configuration:\n#% bogus\n"
    for name in ("a.capture", "b.capture", "a.capture"):
        text = f"#% losslessd capture 1\n#% device: {name}\n#% platform: linux_mlx5\n" \
               f"#% collected: 2024-05-01T12:00:00Z\n{body}"
        with pytest.raises(InputError) as err:
            capture.read(text, name)
        assert (err.value.file, err.value.line) == (name, 7)


def test_alike_bodies_are_read_the_same_after_a_different_header():
    """The sections of a body depend on the line it starts on: a longer header moves every line."""
    body = "#% command: cat /sys/class/net/eth0/mtu\n9000\n"
    short = "#% losslessd capture 1\n#% device: a\n#% platform: linux_mlx5\n#% collected: 2024-05-01T12:00:00Z\n"
    long = short + "#% note: one more header line\n"
    one, two = capture.read(short + body).sections, capture.read(long + body).sections
    assert [(s.command, s.output) for s in one] == [(s.command, s.output) for s in two]
    assert (one[0].line, two[0].line) == (6, 7)
    assert mlx5.parse([Input("s", short + body)], "a").ports["eth0"].source.line == 5
    assert mlx5.parse([Input("l", long + body)], "a").ports["eth0"].source.line == 6


@pytest.mark.parametrize("path", sorted((FIXTURES / "raw" / "linux_mlx5").iterdir()), ids=lambda p: p.name)
def test_a_body_seen_again_reads_as_the_first_time(path):
    """The first host of a body works its sections out; the hosts after it find them worked out (each section's
    operations are kept): all must make the same model, duplicates, garbled sections and issues included."""
    text = path.read_text()
    dumps = []
    for n in range(3):
        device = mlx5.parse([Input(f"host{n}.capture", text)], f"host{n}")
        dump = device.model_dump_json()
        dumps.append(dump.replace(f"host{n}.capture", "FILE").replace(f'"host{n}"', '"NAME"'))
    assert dumps[0] == dumps[1] == dumps[2]
