"""What the host reader works out once per command text, and the prompt and LLDP readers reshaped for a fleet's hosts
(Session 38, part a), against the way they read before: both ways on every host input the repository has (examples,
fixtures, the real-world captures, the bench's generated hosts, hostile lines), and the shared corpus's host captures
when it holds any. A host read with every cache cold must be the host read after every other input (ports, settings,
sources, issues, findings)."""

from __future__ import annotations

import contextlib
import random
import sys
from pathlib import Path

import pytest

from losslessd import capture
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.parse import base as parse_base
from losslessd.parse import lldp, mlx5, parse_group
from losslessd.parse.mlx5 import mlnx_qos
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path("/work/shared/corpus")


def _bench_hosts() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import lint_scale
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return {f"bench-{n}-{bad}.capture": lint_scale.host_capture(n, bad) for n in (0, 7, 700) for bad in (False, True)}


def _host_files() -> dict[str, str]:
    """Every host input of the repository, by name: what the mlx5 reader is given in examples, fixtures and the
    real-world set (captures, bare outputs, scripts)."""
    paths = [*sorted((ROOT / "examples" / "fabric").glob("gpu*.capture")),
             *sorted((FIXTURES / "raw" / "linux_mlx5").iterdir()),
             *sorted((FIXTURES / "topology").rglob("*.capture")),
             *sorted((ROOT / "tests" / "realworld" / "linux_mlx5").iterdir())]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace") for p in paths
            if p.is_file() and p.suffix not in (".yaml", ".md")} | \
        _bench_hosts()


HOSTS = _host_files()


def _corpus_hosts() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.stat().st_size < 4 << 20
                  and capture.sniff_platform(p.read_text(encoding="utf-8", errors="replace")) == "linux_mlx5")


def _clear() -> None:
    for cached in (mlx5._section_ops, mlx5._program, mlx5._command_name, mlnx_qos._scan):
        cached.cache_clear()


def _read(path: Path) -> tuple:
    """What a host's file gives: its model as data (ports, settings, sources, issues) and its lint findings."""
    try:
        device = parse_group(path.stem, [path])
    except InputError as exc:
        return ("unread", str(exc))
    findings = lint([path], jobs=1).findings
    return device.model_dump(mode="json"), [f.model_dump(mode="json") for f in findings]


def _cold_and_warm(paths: list[Path]) -> None:
    cold = {}
    for path in paths:
        _clear()
        cold[path] = _read(path)
    for order in (paths, paths[::-1]):  # (each read after the others, both ways round)
        _clear()
        for path in order:
            assert _read(path) == cold[path], path


def test_a_host_read_cold_is_the_host_read_after_every_other(tmp_path):
    paths = []
    for name, text in HOSTS.items():
        path = tmp_path / name.replace("/", "_")
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    assert len(paths) >= 20
    _cold_and_warm(paths)


def test_the_corpus_host_captures_read_cold_and_warm_alike():
    found = _corpus_hosts()
    if not found:
        pytest.skip(f"no linux_mlx5 capture under {CORPUS} (the shared corpus holds switches only, or is absent)")
    _cold_and_warm(found)


# -- the readers as they were before, each to be read both ways ------------------------------------------------------
def _old_cli_line(line: str) -> bool:
    return any(form.fullmatch(line) is not None
               for form in (parse_base.JUNOS_CLI_LINE, parse_base._PROMPT_TYPED, parse_base._SHELL_PROMPT))


def _old_cli_json(text: str) -> str | None:
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    first = 0
    while first < len(lines) and (not lines[first].strip() or _old_cli_line(lines[first])):
        first += 1
    if first == len(lines) or not lines[first].lstrip().startswith("{"):
        return None
    last = len(lines) - 1
    while last > first and (not lines[last].strip() or _old_cli_line(lines[last])):
        last -= 1
    if first == 0 and last == len(lines) - 1:
        return text

    def blank(line: str) -> str:
        body = line.rstrip("\r\n")
        return " " * len(body) + line[len(body):]

    return "".join([*map(blank, lines[:first]), *lines[first:last + 1], *map(blank, lines[last + 1:])])


class _OldReader(lldp._Reader):
    def keyvalue(self) -> None:
        entries: list[dict] = []
        last: dict[str, dict] = {}
        for n, line in enumerate(self.lines, start=self.first):
            found = lldp._keyvalue(line.strip())
            if found is None:
                continue
            iface, key, value = found
            value = value.strip()
            entry = last.get(iface)
            if entry is None or key in entry:
                entry = last[iface] = {"iface": iface, "line": n}
                entries.append(entry)
            entry[key] = value
        for e in entries:
            subtype = next((k.split(".")[1] for k in e if k.startswith("port.") and k != "port.descr"), None)
            chassis = next((v for k, v in e.items() if k.startswith("chassis.") and k != "chassis.name"), None)
            self.add(e["iface"], e.get("chassis.name") or chassis,
                     lldp._remote_port(subtype, e.get(f"port.{subtype}"), e.get("port.descr")), e["line"])


def _texts() -> list[str]:
    """Every section output and command of the host inputs, every fixture and real-world file (route tables, LLDP
    outputs, CLI sessions), and lines made of the prompts' own characters."""
    texts = []
    for text in HOSTS.values():
        texts.append(text)
        if capture.is_capture(text):
            with contextlib.suppress(InputError):  # (a malformed capture is a text like any other here)
                sections = capture.read(text).sections
                texts += [s.output for s in sections] + [s.command for s in sections]
    for folder in (FIXTURES, ROOT / "tests" / "realworld"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.stat().st_size < 1 << 20 and path.suffix not in (".gz", ".db", ".png"):
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    rng = random.Random(38)
    alphabet = list("@#>{}$[]:~. \t\r\n\u2028x0") + ["lldp.", "{master:0}", "root@gpu01:~# ", "leaf1#", "{\n", "}\n"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    # lldpcli keyvalue lines with blanks around their parts, keys again, keys of no neighbour
    def keyvalue() -> str:
        return (f"{rng.choice(['', ' ', '  '])}lldp.{rng.choice(['eth0', 'eth1.2', 'a.b'])}."
                f"{rng.choice(['chassis.name', 'chassis.mac', 'port.ifname', 'port.mac', 'port.descr', 'via', 'rid'])}"
                f"={rng.choice(['', ' ', chr(9)])}{rng.choice(['leaf1', 'Ethernet4', '0c:42:a1:00:00:01', ''])}"
                f"{rng.choice(['', ' ', ' x'])}")

    texts += ["\n".join(keyvalue() for _ in range(rng.randint(1, 12))) for _ in range(1000)]
    return texts


TEXTS = _texts()


def test_cli_json_and_its_prompt_lines_read_as_before():
    assert len(TEXTS) > 3000
    for text in TEXTS:
        assert parse_base.cli_json(text) == _old_cli_json(text), text[:200]
        for line in text.split("\n")[:200]:
            assert parse_base._cli_line(line) == _old_cli_line(line), line
            assert parse_base._cli_line(line + "\n") == _old_cli_line(line + "\n"), line


def test_lldp_keyvalue_reads_as_before():
    read = 0
    for text in TEXTS:
        if not lldp._is_keyvalue(text):
            continue
        new, old = lldp._Reader(text, "f", 3), _OldReader(text, "f", 3)
        new.keyvalue()
        old.keyvalue()
        assert (new.neighbors, list(new.issues)) == (old.neighbors, list(old.issues))
        read += 1
    assert read >= 10


def _old_is_keyvalue(text: str) -> bool:
    return any(lldp._keyvalue(line.strip()) for line in text.split("\n", 50)[:50])


def test_lldp_keyvalue_is_told_as_before():
    """_is_keyvalue looks at the first line on its own first (Session 39, part c): both ways on every text, and on
    texts whose first keyvalue line is the first, the 50th, the 51st or after blanks."""
    line = "lldp.eth0.chassis.name=leaf1"
    texts = TEXTS + [line, f" {line} ", f"\n{line}", "\n" * 49 + line, "\n" * 50 + line, "x\n" * 49 + line,
                     "lldp.eth0.age=1\n" + line, "lldp.", "", "\n"]
    told = 0
    for text in texts:
        assert lldp._is_keyvalue(text) == _old_is_keyvalue(text), text[:200]
        told += lldp._is_keyvalue(text)
    assert told >= 1000


def test_a_commands_program_is_worked_out_once_and_as_before():
    commands = [t for t in TEXTS if "\n" not in t] + ["sudo -u root mlnx_qos -i eth0", "'unclosed", "", "env",
                                                      "sudo timeout 10 lldpcli show neighbors -f keyvalue"]
    for command in commands:
        assert mlx5._program(command) == mlx5._program.__wrapped__(command), command
    mlx5._program.cache_clear()
    first = mlx5._program("sudo mlnx_qos -i eth0")
    assert mlx5._program("sudo mlnx_qos -i eth0") is first  # (once per command text)


def _old_cut(tail: str, n: int, file: str | None) -> list[capture.Section]:
    pieces = (tail[:-1] if tail.endswith("\n") else tail).split(capture._NEXT_COMMAND)
    if tail.startswith(capture._COMMAND) and tail.count(capture._NEXT_MARKER) == len(pieces) - 1:
        pieces[0] = pieces[0][len(capture._COMMAND):]
        sections = []
        line = n
        for piece in pieces:
            command, newline, output = piece.partition("\n")
            value = command.strip()
            if not value:
                break
            sections.append(capture.Section(value, output + "\n" if newline else "", line + 1))
            line += output.count("\n") + (2 if newline else 1)
        else:
            return sections
    return capture._marked_sections(tail, 0, n, file)


def test_a_captures_sections_are_cut_as_before():
    """capture._cut (every capture's sections: hosts' and switches'), both ways on every text with a command line:
    empty outputs, a last output without its line end, escaped and malformed marker lines, empty commands."""
    rng = random.Random(3838)
    # (with `#` that starts no marker line, and a command marker in the middle of a line: the one-character count of
    # Session 39 part c must leave those to the marker count)
    pieces = ["#% command: cat /x\n", "#% command:\n", "#% command:  \n", "#%|x\n", "#% bad\n", "out\n", "\n", "a",
              "#% command: mlnx_qos -i eth0", "\r\n", "# note\n", "x#y\n", "x #% command: y\n", "#"]
    tails = [t[t.index("#% command:"):] for t in TEXTS if "#% command:" in t]
    tails += ["#% command: a\n" + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(3000)]
    assert len(tails) > 3000
    for round_ in range(2):  # (the second round with every piece kept from the first: capture._PIECES)
        if round_ == 0:
            capture._PIECES.clear()
        for tail in tails:
            try:
                old = ("sections", _old_cut(tail, 7, "f"))
            except InputError as exc:
                old = ("error", str(exc))
            try:
                new = ("sections", capture._cut(tail, 7, "f"))
            except InputError as exc:
                new = ("error", str(exc))
            assert new == old, tail


def test_a_fleets_same_output_is_one_string_and_each_hosts_lines_its_own():
    """capture._cut keeps each piece's command, output and line count by the piece's text (Session 45, part c): two
    captures printing the same mlnx_qos output hold one output string (its hash worked out once, the section caches
    compare it by identity), each at its own file line; a piece another host prints otherwise is its own; the pieces
    kept stay under their bound."""
    qos = "Priority trust state: dscp\nPFC configuration:\n\tpriority 0 1 2 3 4 5 6 7\n\tenabled 0 0 0 1 0 0 0 0\n"
    one = f"#% command: mlnx_qos -i eth0\n{qos}#% command: cat /sys/class/net/eth0/mtu\n9000\n"
    two = f"#% command: cat /sys/class/net/eth0/mtu\n1500\n#% command: mlnx_qos -i eth0\n{qos}"
    capture._PIECES.clear()
    a, b = capture._cut(one, 5, "a"), capture._cut(two, 9, "b")
    assert a == _old_cut(one, 5, "a") and b == _old_cut(two, 9, "b")
    assert a[0].output == b[1].output and a[0].output is b[1].output  # (fails where each cut makes its own)
    assert (a[0].line, b[1].line) == (6, 12) and (a[1].output, b[0].output) == ("9000\n", "1500\n")
    big = "#% command: cat /x\n" + "y\n" * (capture._PIECES_KEPT // 2)  # (a piece too large to keep)
    assert capture._cut(big, 1, "c")[0].output.count("\n") == capture._PIECES_KEPT // 2
    assert sum(map(len, capture._PIECES)) <= capture._PIECES_KEPT and not any(len(k) > 100_000 for k in capture._PIECES)



def test_the_pieces_kept_stay_under_their_bound_however_many_hosts_differ():
    """A fleet of hosts whose every output differs (a hostile one: each piece just under the size kept) must not grow
    capture._PIECES past _PIECES_KEPT characters (Session 45, review r3: the test above kept one piece; a memo that
    never cleared passed it). Each host's sections stay its own, at its own lines."""
    capture._PIECES.clear()
    capture._pieces_held = 0
    size = capture._PIECES_KEPT >> 4  # (the largest piece kept)
    hosts = 3 * (capture._PIECES_KEPT // size)  # (three times what the bound holds)
    for n in range(hosts):
        body = f"{n}\n" * ((size - 40) // (len(str(n)) + 1))
        text = f"#% command: cat /sys/class/net/eth{n}/mtu\n{body}#% command: mlnx_qos -i eth{n}\nx\n"
        sections = capture._cut(text, 3, f"h{n}")
        assert [s.command for s in sections] == [f"cat /sys/class/net/eth{n}/mtu", f"mlnx_qos -i eth{n}"]
        assert sections[0].output == body and sections[1].line == 3 + 2 + body.count("\n")
        held = sum(map(len, capture._PIECES))
        assert held <= capture._PIECES_KEPT and held == capture._pieces_held, n


def _old_capture_steps(sections: list[capture.Section]) -> list[tuple]:
    names = [mlx5._command_name(s.command) for s in sections]
    last = {name: i for i, name in enumerate(names)}
    steps: list[tuple] = []
    for i, sec in enumerate(sections):
        if last[names[i]] != i:
            steps.append(("issue", "SYS002", f"`{sec.command}` appears more than once; the last output is used",
                          sec.line - 1))
        else:
            steps.extend(mlx5._section_ops(sec))
    return steps


def test_a_captures_steps_are_as_before_with_and_without_a_command_given_twice():
    captures = [capture.read(text).sections for text in HOSTS.values() if capture.is_capture(text)
                and "#%|" not in text]
    assert len(captures) >= 15
    for sections in captures + [sections + sections[:2] for sections in captures] + [[*sections[1:], sections[0]]
                                                                                     for sections in captures]:
        assert mlx5._capture_steps(sections) == _old_capture_steps(sections)
