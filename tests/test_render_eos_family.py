"""EOS: the queue keyword of a --device snippet (render and fix) is the one the running config's own queue blocks use
(Device.config_family, read as it was parsed), before the one its model's family would give. The switch took those
lines, so a snippet in the same words is one it takes; one in the other family's words (`tx-queue` on a switch that
writes `uc-tx-queue`) would not configure the queue the config's ECN and scheduling live on."""

from __future__ import annotations

import pytest

from losslessd import api, fix
from losslessd.parse import eos
from losslessd.parse.base import Input
from tests.clirun import losslessd
from tests.conftest import FIXTURES

# The RoCE leaf (`uc-tx-queue` blocks) with a Sand model in its header, whose family alone would say `tx-queue`.
LEAF = (FIXTURES / "raw" / "arista_eos" / "roce-leaf.cfg").read_text().replace("DCS-7060X6-64PE", "DCS-7280CR3-32P4")
POLICY_5M = FIXTURES.parent / "realworld" / "cisco_nxos" / "policy-roce-5m.yaml"  # roce-dscp26 on 5 m cables


def _queue_words(snippet: str) -> set[str]:
    return {w[0] for w in map(str.split, snippet.splitlines()) if w and w[0].endswith("tx-queue")}


def test_render_device_writes_the_configs_own_queue_keyword(tmp_path):
    path = tmp_path / "leaf.cfg"
    path.write_text(LEAF)
    ran = losslessd("render", "--platform", "arista_eos", "--policy", str(POLICY_5M), "--device", str(path))
    assert ran.returncode == 0, ran.stderr
    assert _queue_words(ran.stdout) == {"uc-tx-queue"}
    # pasted after the config, it is read as the same queues: ECN and PFC on queue 3 of every port, no findings added
    before = {(f.code, f.port) for f in api.lint([path], str(POLICY_5M), fmt="arista_eos").findings}
    (tmp_path / "after").mkdir()
    after_path = tmp_path / "after" / "leaf.cfg"
    after_path.write_text(LEAF + ran.stdout)
    after = {(f.code, f.port) for f in api.lint([after_path], str(POLICY_5M), fmt="arista_eos").findings}
    assert after <= before, after - before
    device = eos.parse([Input("leaf.cfg", LEAF + ran.stdout)], "leaf")
    rendered = {w[1] for w in map(str.split, ran.stdout.splitlines()) if w[:1] == ["interface"]}
    assert rendered and all(device.ports[name].queues[3].ecn.ecn_enabled for name in rendered)


def test_fix_writes_the_configs_own_queue_keyword(tmp_path):
    """The leaf without its ECN lines (ECN001): the ECN fix goes into `uc-tx-queue 3`, as the config writes it."""
    path = tmp_path / "leaf.cfg"
    path.write_text("\n".join(line for line in LEAF.splitlines() if "random-detect ecn" not in line) + "\n")
    (dev,) = fix.plan(api.lint([path], "roce-dscp26", fmt="arista_eos"), unsafe=True).devices
    assert dev.message is None and dev.verified, dev.message
    assert _queue_words("".join(p.snippet for p in dev.parts)) == {"uc-tx-queue"}


def test_a_config_without_queue_blocks_keeps_its_models_family(tmp_path):
    """No queue block to go by: the model's family (Sand: `tx-queue`), as before."""
    path = tmp_path / "leaf.cfg"
    bare = [line for line in LEAF.splitlines() if not line.strip().startswith(("uc-tx-queue", "random-detect",
                                                                                "no priority", "bandwidth",
                                                                                "priority strict", "!!"))]
    path.write_text("\n".join(bare) + "\n")
    ran = losslessd("render", "--platform", "arista_eos", "--policy", str(POLICY_5M), "--device", str(path))
    assert ran.returncode == 0, ran.stderr
    assert _queue_words(ran.stdout) == {"tx-queue"}


@pytest.mark.slow
def test_the_simulated_sand_switch_takes_the_rendered_snippet(make_sim, tmp_path):
    """A Sand switch (7280R: `tx-queue` blocks only; the simulator refuses `uc-tx-queue` there, as EOS refuses a
    command its platform lacks) rendered with a Trident model given by mistake: the snippet follows the running
    config's `tx-queue` blocks, and a configure session on the simulated switch takes every line. Before, --model
    chose `uc-tx-queue`, which the switch refuses."""
    from netmiko import ConnectHandler

    from tests.peers import FABRIC, ssh_params

    fabric = tmp_path / "fabric"
    fabric.mkdir()
    sand = (FABRIC / "spine1.cfg").read_text().replace("(DCS-7060DX5-64S,", "(DCS-7280CR3-32P4,", 1)
    (fabric / "spine1.cfg").write_text(sand.replace("\n   uc-tx-queue ", "\n   tx-queue "))
    sim = make_sim(["spine1"], snmp=False, fabric=fabric)
    running = tmp_path / "spine1.cfg"
    running.write_text(sim.running_config("spine1"))
    ran = losslessd("render", "--platform", "arista_eos", "--policy", str(POLICY_5M), "--device", str(running),
                    "--model", "DCS-7050CX3-32S")
    assert ran.returncode == 0 and _queue_words(ran.stdout) == {"tx-queue"}, ran.stderr
    with ConnectHandler(**ssh_params(sim, "spine1")) as conn:
        conn.enable()
        conn.send_command_timing("configure session render")
        lines = [line.strip() for line in ran.stdout.splitlines() if line.strip() and not line.startswith("!")]
        said = conn.send_config_set(lines, enter_config_mode=False, exit_config_mode=False, cmd_verify=False)
        conn.send_command_timing("abort")
    assert "tx-queue 3" in said and "% Invalid input" not in said, said
