"""A terminal transcript's text before its first prompt is read or said, never dropped; a line names an mlnx_qos run
only where a command starts (not prose that mentions one)."""
from __future__ import annotations

from pathlib import Path

from losslessd.parse import mlx5
from losslessd.parse.base import Input
from tests.workmeter import mlx5_modules, work

# mlnx-tools mlnx_qos pretty_print output, as captured on a host (tests/fixtures/raw/linux_mlx5/gpu05-bare-prompt.txt)
_OUT = (Path(__file__).parent / "fixtures/raw/linux_mlx5/gpu05-bare-prompt.txt").read_text().split("\n", 1)[1]
_PFC3 = _OUT.replace("enabled     0   0   0   0", "enabled     0   0   0   1")


def _host(text: str):
    return mlx5.parse([Input("cap.txt", text)], "h")


def test_a_command_typed_without_a_prompt_before_the_first_prompt_is_read():
    dev = _host("mlnx_qos -i ens1f0\n" + _PFC3 + "# mlnx_qos -i ens1f1\n" + _OUT)
    assert sorted(dev.ports) == ["ens1f0", "ens1f1"]
    assert dev.ports["ens1f0"].pfc_enabled == [3]
    assert dev.ports["ens1f1"].pfc_enabled == []


def test_a_prompt_before_the_first_that_names_the_port_is_still_read():
    """A `cat` of the port's MTU typed before the `mlnx_qos -i IF` prompt: its output was dropped (only prompts from
    the first naming one on were read), as the same `cat` after it was read."""
    dev = _host("$ cat /sys/class/net/ens1f1/mtu\n9000\n# mlnx_qos -i ens1f1\n" + _OUT)
    assert dev.ports["ens1f1"].mtu_bytes == 9000


def test_an_output_before_the_first_prompt_that_names_no_port_is_said_not_dropped():
    dev = _host(_PFC3 + "# mlnx_qos -i ens1f1\n" + _OUT)
    assert sorted(dev.ports) == ["ens1f1"]
    said = [i for i in dev.issues if i.code == "SYS002" and "before the first prompt" in i.message]
    assert said and said[0].source.line == 1


def test_a_banner_before_the_first_prompt_is_said_as_not_read():
    dev = _host("Last login: Sat Dec  5 03:00:01 2026\n# mlnx_qos -i ens1f1\n" + _OUT)
    assert sorted(dev.ports) == ["ens1f1"]
    assert any(i.code == "SYS004" and "lines 1-1, before the first prompt" in i.message for i in dev.issues)


def test_prose_that_mentions_mlnx_qos_names_no_run():
    dev = _host("note: we ran mlnx_qos -i ens1f9 yesterday\n" + _OUT)
    assert "ens1f9" not in dev.ports


def test_a_command_line_with_sudo_or_a_path_still_names_its_run():
    for line in ("sudo mlnx_qos -i ens1f9", "/usr/bin/mlnx_qos -i ens1f9", "  mlnx_qos --interface ens1f9"):
        assert sorted(_host(line + "\n" + _PFC3).ports) == ["ens1f9"], line


def test_a_line_of_many_mlnx_qos_words_costs_its_length_not_its_square():
    """Each mlnx_qos word looked for its `-i` up to the line's end: a line of 8,000 `do mlnx_qos ` cost 17 s of CPU
    (their count squared); now each looks only up to the command's end or the next mlnx_qos. The work is counted
    (tests.workmeter: the parser's frames and what its patterns scanned), not timed: four times the words, about four
    times the work."""
    for word in ("do mlnx_qos ", ";mlnx_qos "):
        counts = []
        for n in (2_000, 8_000):
            count, dev = work(mlx5_modules(), _host, _OUT + "# " + word * n + "\n" + _OUT)
            assert sorted(dev.ports) == ["eth?1", "eth?2"]
            counts.append(count)
        assert counts[1] < 6 * counts[0], (word, counts)
