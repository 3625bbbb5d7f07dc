"""Issue 11, round 2: every device reader (tests/hostile_readers.READERS) given its fixture damaged, through the real
CLI entry: a documented exit, never a traceback, a hang or an internal error; an input error names a file of the
device; a file with nothing readable (or a control character no device writes) never reads as clean. Then every
line of each fixture cut short once, through lint: never an internal error (a rule that met a half-read model)."""

from __future__ import annotations

import json
import shutil

import pytest

from losslessd import api
from losslessd.errors import InputError
from losslessd.printable import LOOKALIKE, mixed_script_words, printable
from tests.clirun import losslessd
from tests.hostile import ROOT, run_case
from tests.hostile_readers import BYTES, NEVER_CLEAN, READERS, SPECIAL, mutation_case, place, problems, truncations

MUTATIONS = [*BYTES, *SPECIAL]


@pytest.mark.parametrize("name", MUTATIONS)
@pytest.mark.parametrize("reader", READERS, ids=[r.label for r in READERS])
def test_a_damaged_device_file_ends_as_documented(reader, name, tmp_path):
    outcome = run_case(mutation_case(reader, name), tmp_path)
    assert not problems(outcome, reader), f"{problems(outcome, reader)}\n{outcome.output[-3000:]}"
    if name in NEVER_CLEAN:
        assert outcome.exit in (1, 2), outcome.output[-3000:]


@pytest.mark.parametrize("reader", READERS, ids=[r.label for r in READERS])
def test_every_line_cut_short_is_read_or_refused(reader, tmp_path):
    text = reader.file.read_text(encoding="utf-8")
    cuts = list(truncations(text))
    assert len(cuts) > 5
    failed = []
    for n, (line, column, cut) in enumerate(cuts):
        path = place(reader, tmp_path / str(n), cut.encode())
        try:
            result = api.lint([path], reader.policy, fmt=reader.fmt, jobs=1)
        except InputError as exc:
            assert exc.file, f"line {line} cut at {column}: {exc}"
            continue
        if result.internal_errors:
            failed.append(f"line {line} cut at {column}: {result.internal_errors[0]}")
    assert not failed, "\n".join(failed[:5])


def test_a_control_character_in_a_port_name_is_named_not_dropped(tmp_path):
    """`interface Ethernet1/5<NUL>` is no Ethernet port: the port vanished from the lint without a word (exit 0)."""
    eos = next(r for r in READERS if r.label == "eos")
    text = eos.file.read_text(encoding="utf-8")
    assert "interface Ethernet1/5\n" in text
    path = tmp_path / "leaf.cfg"
    path.write_bytes(text.replace("interface Ethernet1/5\n", "interface Ethernet1/5\0\n").encode())
    line = text[:text.index("interface Ethernet1/5\n")].count("\n") + 1
    result = api.lint([path], fmt="arista_eos", jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "control character" in f.message]
    assert issue.source.line == line and "'\\x00'" in issue.message


@pytest.mark.parametrize(("file", "fmt", "block", "prompt"), [
    ("examples/fabric/spine1.cfg", "arista_eos", "interface Ethernet2/1\n", "spine1#"),
    ("tests/fixtures/raw/cisco_nxos/roce-leaf.cfg", "cisco_nxos", "interface Ethernet1/1\n",
     "leaf1(config-if)# show run"),
])
def test_a_prompt_inside_a_block_is_named_not_read_as_nothing(file, fmt, block, prompt, tmp_path):
    """A CLI prompt at the margin inside a block (a terminal's text pasted in; a pull that took the prompt for an
    output's end): the block's lines after it were read as the prompt's, which no reader knows, and went unread
    without a word (spine1's PFC priority 4 on Ethernet2/1, an error, vanished: exit 0)."""
    text = (ROOT / file).read_text(encoding="utf-8")
    at = text.index(block) + len(block)
    at = text.index("\n", at) + 1  # after the block's first line
    path = tmp_path / "sw.cfg"
    path.write_text(text[:at] + prompt + "\n" + text[at:], encoding="utf-8")
    line = text[:at].count("\n") + 1
    result = api.lint([path], fmt=fmt, jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "CLI prompt" in f.message]
    assert issue.source.line == line and issue.message.startswith(f"`{prompt}` is a CLI prompt, not configuration: "
                                                                  f"lines {line + 1}-")



def test_a_flood_of_unread_lines_is_listed_up_to_the_limit_and_counted_beyond(tmp_path):
    """An OpenSM QoS policy of 1,500 stray `}` lines beside an opensm.conf: its issues reach the device through the
    options file's list (`issues += found`); the first 1,000 are listed, the other 500 counted by one more issue at
    the first line left out, not counted again (and not dropped) on the way."""
    from losslessd.limits import MAX_ISSUES_PER_FILE

    reader = next(r for r in READERS if r.label == "opensm-qos")
    text = reader.file.read_text(encoding="utf-8")
    path = place(reader, tmp_path / "sm", (text + "}\n" * (MAX_ISSUES_PER_FILE + 500)).encode())
    result = api.lint([path], reader.policy, fmt=reader.fmt, jobs=1)
    issues = [f for f in result.findings if f.code == "SYS002" and f.source.file.endswith("qos-policy.conf")]
    counting = [f for f in issues if "not listed one by one" in f.message]
    assert len(issues) == MAX_ISSUES_PER_FILE + 1 and len(counting) == 1, len(issues)
    first_left_out = text.count("\n") + MAX_ISSUES_PER_FILE + 1
    assert counting[0].message.startswith("500 more SYS002 issues in this file") and \
        counting[0].source.line == first_left_out


def _flooded(extra: int):
    """An IssueList given MAX_ISSUES_PER_FILE + ``extra`` unread lines of one file."""
    from losslessd.limits import MAX_ISSUES_PER_FILE
    from losslessd.model import ParseIssue, Source
    from losslessd.parse.base import IssueList

    return IssueList(ParseIssue(code="SYS002", message=f"cannot read line {n}", source=Source(file="j.conf", line=n))
                     for n in range(1, MAX_ISSUES_PER_FILE + extra + 1))


def test_the_counting_issue_says_the_final_count_however_the_list_is_read():
    """The count is written when the list is read, not at each issue counted: every way of reading it (list's own
    copies and comparisons do not iterate) sees `5 more` for 1,005 bad lines, and a count read early is brought up to
    date when more come."""
    from losslessd.parse.base import IssueList

    def counting(issues) -> str:
        return next(i.message for i in issues if "not listed one by one" in i.message)

    reads = {"list": list, "unpack": lambda x: [*x], "index": lambda x: [x[-1]], "slice": lambda x: x[1000:],
             "add": lambda x: x + [], "copy": lambda x: x.copy(), "sorted": lambda x: sorted(x, key=lambda i: i.code),
             "reversed": lambda x: list(reversed(x)), "extend": lambda x: IssueList(x)}
    for how, read in reads.items():
        got = counting(read(_flooded(5)))
        assert got.startswith("5 more SYS002 issues in this file") and "the first: cannot read line 1001" in got, how
    assert "message='5 more SYS002 issues" in repr(_flooded(5))
    flood = _flooded(5)
    assert flood == [*flood] and (flood != [*flood]) is False
    assert counting(flood).startswith("5 more")
    flood.append(flood[0])
    assert len(flood) == 1001 and counting(flood).startswith("6 more")


def test_a_flood_reaches_the_device_counted_through_the_platforms_that_join_lists(tmp_path):
    """NVUE and EOS join their reader's issues with others (`+` copied a list without reading it): 1,005 unread
    lines are one counting issue saying 5 more, on the device."""
    from losslessd import parse

    nvue = (ROOT / "tests/fixtures/raw/nvidia_cumulus/leaf-roce-good.cfg").read_text()
    (tmp_path / "sw.cfg").write_text(nvue + "garbage\n" * 1005)
    (tmp_path / "nv.cfg").write_text(nvue + "nv set qos roce mode bogus\n" * 1005)  # (was uncapped)
    eos = (ROOT / "tests/fixtures/raw/arista_eos/roce-leaf.cfg").read_text()
    (tmp_path / "eos.txt").write_text(
        "#% losslessd capture 1\n#% device: leaf9\n#% platform: arista_eos\n#% collected: 2026-01-01T00:00:00Z\n"
        "#% command: show running-config\n" + eos + "#% command: show lldp neighbors\n"
        "Port          Neighbor Device ID       Neighbor Port ID    TTL\n" + "Et1 x\n" * 1005)
    for name in ("sw.cfg", "nv.cfg", "eos.txt"):
        device = parse.parse_group(name, [tmp_path / name])
        counting = [i for i in device.issues if "not listed one by one" in i.message]
        assert len(counting) == 1 and counting[0].message.startswith("5 more SYS002"), (name, counting)


def test_an_issue_list_is_pickled_and_copied_as_the_plain_list_it_has_become():
    """Unpickling an IssueList with items raised AttributeError (its items came back before its counts)."""
    import copy
    import pickle

    flood = _flooded(5)
    for back in (pickle.loads(pickle.dumps(flood)), copy.deepcopy(flood), copy.copy(flood)):
        assert type(back) is list and back == list(flood) and len(back) == 1001
        assert back[-1].message.startswith("5 more SYS002 issues in this file")
    one = _flooded(-999)
    assert pickle.loads(pickle.dumps(one)) == list(one) and len(one) == 1


def _indents(text: str) -> list[int]:
    return sorted({len(line) - len(line.lstrip(" ")) for line in text.splitlines() if line.startswith(" ")})


@pytest.mark.parametrize("reader", [r for r in READERS if r.label in ("eos", "nxos", "os10")], ids=lambda r: r.label)
def test_a_block_that_depends_on_a_tabs_width_is_named(reader, tmp_path):
    """Hostile round 16: the first level of a config indented with a tab, the deeper lines with spaces (an editor's
    tab key on some lines): read with tabs of 8 columns, a queue's or class's lines under it came out from under it,
    their settings the block above's or refused, and only the consequences were reported (EOS: BUF003/ECN001 on every
    port), never why. Now a SYS002 names the first line whose block depends on a tab's width; the same file indented
    with tabs alone (one per space) reads as with spaces."""
    text = reader.file.read_text(encoding="utf-8")
    first, deeper = _indents(text)[:2]
    lines = text.split("\n")
    mixed = "\n".join("\t" + line[first:] if line.startswith(" " * first) and line[first] != " " else line
                      for line in lines)
    child = next(n for n, line in enumerate(mixed.split("\n"), 1)
                 if line.startswith(" " * deeper) and mixed.split("\n")[n - 2].startswith("\t"))
    base = api.lint([place(reader, tmp_path / "spaces", text.encode())], reader.policy, fmt=reader.fmt, jobs=1)
    result = api.lint([place(reader, tmp_path / "mixed", mixed.encode())], reader.policy, fmt=reader.fmt, jobs=1)
    named = [f for f in result.findings if f.code == "SYS002" and "a tab's width" in f.message]
    assert [f.source.line for f in named] == [child], named
    assert "re-indent the lines with spaces" in named[0].message
    tabs = "\n".join("\t" * (len(line) - len(line.lstrip(" "))) + line.lstrip(" ") for line in lines)
    same = api.lint([place(reader, tmp_path / "tabs", tabs.encode())], reader.policy, fmt=reader.fmt, jobs=1)
    assert sorted((f.code, f.message) for f in same.findings) == sorted((f.code, f.message) for f in base.findings)


@pytest.mark.parametrize(("reader", "latin", "lookalike"), [
    ("eos", "interface Ethernet1/5\n", "interface \u0395thernet1/5\n"),  # Greek capital epsilon
    ("sonic-json", "PORT|Ethernet0", "PORT|Ethern\u0435t0"),  # Cyrillic small ie
    ("junos-set", "et-0/0/0", "\uff45t-0/0/0"),  # full-width small e
])
def test_a_port_name_with_a_lookalike_letter_of_another_script_is_named_not_dropped(reader, latin, lookalike, tmp_path):
    """`interface Εthernet1/5` (a Greek Ε) shows as Ethernet1/5 and is no port any switch takes: the port vanished from
    the lint, or became a second one, without a word (round 20)."""
    fixture = next(r for r in READERS if r.label == reader)
    text = fixture.file.read_text(encoding="utf-8")
    assert latin in text
    line = text[:text.index(latin)].count("\n") + 1
    path = place(fixture, tmp_path, text.replace(latin, lookalike, 1).encode())
    result = api.lint([path], fixture.policy, fmt=fixture.fmt, jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "mixes Latin letters" in f.message]
    assert issue.source.line == line, issue
    assert ascii(lookalike.split()[-1].split("|")[-1].split("/")[0].split("-")[0]) in issue.message


def test_text_of_other_languages_in_a_description_is_no_lookalike(tmp_path):
    """Accented Latin, Cyrillic and Greek words of their own, Japanese beside ASCII and a `μs` unit are what operators
    write in descriptions: none is named."""
    eos = next(r for r in READERS if r.label == "eos")
    text = eos.file.read_text(encoding="utf-8").replace(
        "interface Ethernet1/5\n", "interface Ethernet1/5\n   description Café Łódź стойка 12 ράφι GPUサーバ 10μs\n", 1)
    result = api.lint([place(eos, tmp_path, text.encode())], fmt="arista_eos", jobs=1)
    assert not [f for f in result.findings if f.code == "SYS002"], result.findings



# Vectors from Unicode TR39 confusables.txt 14.0.0: these map to one ASCII letter ...
_CONFUSABLE = {"\u0395": "E", "\u0440": "p", "\u0391": "A", "\u0435": "e", "\u0455": "s", "\uff45": "e"}
# ... and these to none (Greek capital delta and omega, Cyrillic ve and el, Greek mu).
_NOT_CONFUSABLE = "\u0394\u03a9\u0432\u043b\u03bc"


def test_the_lookalike_letters_are_those_tr39_maps_to_latin_ones():
    assert all(LOOKALIKE.fullmatch(c) for c in _CONFUSABLE) and not any(LOOKALIKE.fullmatch(c) for c in _NOT_CONFUSABLE)


@pytest.mark.parametrize("description", ["ΔT budget 10kΩ", "GPUсервер rack 12", "Δt=5us at 10kΩ"])
def test_a_word_whose_other_script_run_holds_a_letter_like_no_latin_one_is_no_lookalike(description, tmp_path):
    """`10kΩ`, `ΔT` and `GPUсервер` were each a SYS002 "looks like a Latin one" and exit 1 (review of round 20): an
    omega, a delta or a Cyrillic в looks like no Latin letter, so the run is a word of its language (TR39 5.1)."""
    eos = next(r for r in READERS if r.label == "eos")
    text = eos.file.read_text(encoding="utf-8").replace(
        "interface Ethernet1/5\n", f"interface Ethernet1/5\n   description {description}\n", 1)
    result = api.lint([place(eos, tmp_path, text.encode())], fmt="arista_eos", jobs=1)
    assert not [f for f in result.findings if f.code == "SYS002"], result.findings
    assert [m[0] for m in mixed_script_words("Εthernet1 s\u0440ine1 GPUсервер")] == ["Εthernet1", "s\u0440ine1"]

def test_a_name_with_a_lookalike_letter_is_written_escaped_in_the_text_report(tmp_path):
    """A topology cable to `sрine1` (a Cyrillic р) said "no device spine1 is among the linted inputs" beside the linted
    spine1 (round 20): the text report and stderr write the letter escaped; JSON keeps the name as it is."""
    fabric = tmp_path / "fabric"
    shutil.copytree(ROOT / "examples" / "fabric", fabric)
    topology = fabric / "topology.yaml"
    topology.write_text(topology.read_text().replace("<-> spine1:Ethernet2/1", "<-> s\u0440ine1:Ethernet2/1"))
    text = losslessd("lint", str(fabric)).stdout
    assert "no device s\\u0440ine1 is among the linted inputs" in text and "s\u0440ine1" not in text
    found = json.loads(losslessd("lint", "-f", "json", str(fabric)).stdout)["findings"]
    assert any("no device s\u0440ine1 is" in f["message"] for f in found)
    assert printable("Café стойка 10μs GPUサーバ") == "Café стойка 10μs GPUサーバ"
