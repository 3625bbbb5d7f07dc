"""No input makes a parser slow beyond linear (bench/parse_growth.py prints the figures): what a shared line says is
found in a set, not by a scan of every issue said before; a policy-map's classes are resolved once, not once per
port; a Junos group wildcard is tried on at most MAX_EXPANDED_PORTS names in all."""

from __future__ import annotations

import contextlib
import json
import sys
import tracemalloc
from typing import Any

import pytest

from losslessd.errors import InputError
from losslessd.limits import MAX_EXPANDED_PORTS
from losslessd.model import ParseIssue, Source
from losslessd.parse import clitext, parse_group
from losslessd.parse.eos import build as eos_build
from losslessd.parse.nxos import build as nxos_build
from tests.workmeter import steps as _steps


def _issue(message: str, line: int | None = 1) -> ParseIssue:
    return ParseIssue(code="SYS002", message=message, source=Source(file="sw.cfg", line=line))


def test_issues_said_once_in_order_whoever_appended_them():
    items = [_issue("a")]
    issues = clitext.Issues(items)
    issues.add_once(_issue("a"))  # said already (appended before the index existed)
    issues.add_once(_issue("b"))
    items.append(_issue("c", 2))  # appended to the list by someone else
    issues.add_once(_issue("c", 2))
    issues.add_once(_issue("b", 3))  # the same words at another line: another issue
    issues.add_once(ParseIssue(code="SYS002", message="b"))  # pointing nowhere: never the same as another
    issues.add_once(_issue("b"))
    assert [(i.message, i.source.line if i.source else None) for i in items] == [
        ("a", 1), ("b", 1), ("c", 2), ("b", 3), ("b", None)]


def test_a_shared_issue_list_is_indexed_once_not_scanned_per_port():
    """Each issue is looked at once by the index, whatever the number of add_once calls (a scan per call was ports x
    issues on a config full of broken shared lines)."""
    items = _Counting(_issue(f"m{i}", i) for i in range(200))
    issues = clitext.Issues(items)
    for _ in range(200):
        issues.add_once(_issue("shared", 1000))
    assert len(items) == 201 and items.read <= 201


class _Counting(list):
    """A list that counts the items its slices hand out."""

    read = 0

    def __getitem__(self, key):
        got = super().__getitem__(key)
        if isinstance(key, slice):
            self.read += len(got)
        return got


EOS = ["hostname sw\n", "class-map type qos match-any ACLCLASS\n   match ip access-group A\n!\n",
       "class-map type qos match-any RDMA\n   match dscp 26\n!\n",
       "policy-map type qos P\n   class ACLCLASS\n      set traffic-class 5\n",
       "   class RDMA\n      set traffic-class 3\n!\n"]


def test_eos_policy_map_resolved_once_for_all_its_ports(tmp_path, monkeypatch):
    calls = []
    real = eos_build._classes
    monkeypatch.setattr(eos_build, "_classes", lambda cfg, policy: calls.append(policy) or real(cfg, policy))
    ports = "".join(f"interface Ethernet{i}\n   no switchport\n   service-policy type qos input P\n!\n"
                    for i in range(1, 101))
    (tmp_path / "sw.cfg").write_text("".join(EOS) + ports)
    device = parse_group("sw", [tmp_path / "sw.cfg"], "arista_eos")
    assert calls == ["P"]
    assert [i.source.line for i in device.issues if "ACLCLASS" in i.message] == [2 + 3 + 3 + 1]  # said once
    assert all(p.dscp_to_tc[26] == 3 for p in device.ports.values())
    assert len({id(p.dscp_to_tc) for p in device.ports.values()}) == 100  # each port its own map


def test_nxos_qos_policy_resolved_once_for_all_its_ports(tmp_path, monkeypatch):
    calls = []
    real = nxos_build._classes
    monkeypatch.setattr(nxos_build, "_classes", lambda cfg, policy: calls.append(1) or real(cfg, policy))
    text = ("hostname sw\nclass-map type qos match-any RDMA\n  match dscp 26\n"
            "policy-map type qos P\n  class RDMA\n    set qos-group 3\n"
            "interface Ethernet1/1-54\n  service-policy type qos input P\n")
    (tmp_path / "sw.cfg").write_text(text)
    device = parse_group("sw", [tmp_path / "sw.cfg"], "cisco_nxos")
    assert calls == [1] and len(device.ports) == 54
    assert all(p.dscp_to_tc[26] == 3 for p in device.ports.values())
    assert len({id(p.dscp_to_tc) for p in device.ports.values()}) == 54


def test_junos_group_wildcards_are_bounded(tmp_path):
    """Each wildcard is tried on every interface name: a file of many wildcard groups and many interfaces (billions of
    tries within the size limit) is refused at the limit, at the line that crossed it."""
    ports = 4096
    groups = MAX_EXPANDED_PORTS // ports + 2
    text = "".join(f"set interfaces et-0/0/{i} mtu 9216\n" for i in range(ports)) + "".join(
        f"set groups G{j} interfaces <xe-{j}*> mtu 9216\nset apply-groups G{j}\n" for j in range(groups))
    (tmp_path / "sw.cfg").write_text(text)
    with pytest.raises(InputError, match="ranges or wildcards name more than") as exc:
        parse_group("sw", [tmp_path / "sw.cfg"], "juniper_junos")
    assert exc.value.line is not None and exc.value.line > ports


def test_the_mlx5_sniffers_line_start_pattern_stays_on_its_line():
    """`^\\s*` before `mlnx_qos` ran on over the blank lines below each line start, so a text of blank lines cost
    their count squared to sniff (80,000 of them 112 s, asked of every file no earlier sniffer takes): the blanks it
    takes are its own line's."""
    from losslessd.parse import mlx5

    assert mlx5._MLNX_QOS_COMMAND.match("\n\n  mlnx_qos -i eth0") is None
    found = mlx5._MLNX_QOS_COMMAND.search("\n\n \tsudo mlnx_qos -i eth0")
    assert found is not None and found.start() == 2


class _Scans(str):
    """An input text that counts the passes made over it whole (count, split, find...): a reader that makes one per
    line is quadratic in the file (NX-OS interface abbreviations counted the file's lines for each interface line of a
    file without a final line end: 20,000 interfaces took 45 s)."""

    calls = 0.0

    def _counted(name: str):  # type: ignore[misc]
        def scan(self, *args, **kwargs):
            found = getattr(str, name)(self, *args, **kwargs)
            if name == "find" and len(args) == 2 and not kwargs:
                # from a position: it reads up to its hit (or the end), a part of one pass (clitext.numbered_lines
                # slices the lines so: its finds add up to one pass, however many lines)
                type(self).calls += ((found if found >= 0 else len(self)) - args[1]) / max(len(self), 1)
            else:
                type(self).calls += 1
            return found
        return scan

    for _name in ("count", "split", "rsplit", "splitlines", "find", "rfind", "index", "rindex", "partition",
                  "rpartition", "replace", "strip", "lower", "upper", "encode", "expandtabs"):
        locals()[_name] = _counted(_name)
    del _name


# One block per port, in each CLI platform's own syntax (the vendors' configuration guides, as the fixtures are).
_BLOCKS = {
    "cisco_nxos": ("hostname sw\n", "interface Ethernet1/{i}\n  description p{i}\n  mtu 9216\n"
                                    "  priority-flow-control mode on\n  prio mode on\n"),
    "arista_eos": ("hostname sw\n", "interface Ethernet{i}\n   mtu 9214\n   priority-flow-control on\n"
                                    "   priority-flow-control priority 3 no-drop\n!\n"),
    "dell_os10": ("hostname sw\n", "interface ethernet1/1/{i}\n priority-flow-control mode on\n"
                                   " trust-map dscp default\n!\n"),
    "dell_os9": ("hostname sw\n", "interface fortyGigE 1/{i}\n mtu 9216\n dcb-map M\n!\n"),
    "nvidia_onyx": ("hostname sw\n", "interface ethernet 1/{i} mtu 9216 force\n"
                                     "interface ethernet 1/{i} dcb priority-flow-control mode on force\n"),
    "juniper_junos": ("set system host-name sw\n", "set interfaces et-0/0/{i} mtu 9216\n"),
    "nvidia_cumulus": ("nv set system hostname sw\n", "nv set interface swp{i} link mtu 9216\n"),
}


@pytest.mark.parametrize("platform", sorted(_BLOCKS))
@pytest.mark.parametrize("final_line_end", [True, False])
def test_no_reader_passes_over_the_whole_file_per_line(platform, final_line_end):
    """The passes a reader makes over the whole text do not grow with its lines, with or without a final line end
    (a cut capture): 60 and 240 ports' blocks cost the same number."""
    from losslessd.parse import parser_for
    from losslessd.parse.base import Input

    counts = []
    for ports in (60, 240):
        head, block = _BLOCKS[platform]
        text = head + "".join(block.format(i=i) for i in range(1, ports + 1))
        _Scans.calls = 0.0
        device = parser_for(platform).parse([Input("sw.cfg", _Scans(text if final_line_end else text.rstrip("\n")))],
                                            "sw")
        assert len(device.ports) >= ports, device.issues[:3]
        counts.append(_Scans.calls)
    assert abs(counts[0] - counts[1]) < 0.5, counts


def _junos_route_json(routes: int) -> str:
    rts = [{"rt-destination": [{"data": f"10.0.{i // 256}.{i % 256}/32"}],
            "rt-entry": [{"active-tag": [{"data": "*"}],
                          "nh": [{"to": [{"data": "10.1.0.1"}], "via": [{"data": "et-0/0/1.0"}],
                                  "selected-next-hop": [{"data": [None]}]}]}]} for i in range(routes)]
    return json.dumps({"route-information": [{"route-table": [{"table-name": [{"data": "inet.0"}], "rt": rts}]}]})


def _frr_route_json(routes: int) -> str:
    return json.dumps({f"10.0.{i // 256}.{i % 256}/32": [{"prefix": f"10.0.{i // 256}.{i % 256}/32", "protocol": "bgp",
                                                          "selected": True, "installed": True,
                                                          "nexthops": [{"ip": "10.1.0.1", "interfaceName": "swp1",
                                                                        "active": True, "fib": True}]}]
                       for i in range(routes)})


@pytest.mark.parametrize("table", [_junos_route_json, _frr_route_json])
def test_a_route_table_json_whose_keys_are_escaped_is_searched_for_lines_once(table):
    """A destination written in \\u escapes is not found as json.dumps spells it: the line search stops there, it is
    not a pass over the rest of the file for each route after it (Junos: 20,000 routes 80 s)."""
    from losslessd.parse.base import Input
    from losslessd.parse.routes import parse_routes

    counts = []
    for routes in (50, 200):
        _Scans.calls = 0.0
        found, _ = parse_routes(Input("routes.json", _Scans(table(routes).replace('"10.0.', '"\\u0031\\u0030.0.'))))
        assert len(found) == routes
        counts.append(_Scans.calls)
    assert counts[0] == counts[1], counts


def test_line_at_find_goes_on_after_its_last_hit_and_stops_after_a_miss():
    """LineAt.find, the route readers' key search: each key after the one before (a prefix twice in one table gets
    the line of each), none once a key is not found (the keys after it are not searched for)."""
    from losslessd.parse.base import LineAt

    text = '{\n"a": 1,\n"b": 2,\n"a": 3,\n"c": 4\n}\n'
    line_at = LineAt(text, first=10)
    assert [line_at.find('"a"'), line_at.find('"a"'), line_at.find('"z"'), line_at.find('"c"')] == [11, 13, None, None]
    start = LineAt(text, search_from=text.index('"b"'))  # (FRR: the default VRF's keys, after its own)
    assert [start.find('"a"'), start.find('"c"')] == [4, 5]


def test_cli_lines_are_numbered_on_line_feeds_only_without_a_copy_of_the_text():
    """A CLI config's lines end at "\\n" (a CRLF file's "\\r" stays in its line and is stripped with the blanks); a
    lone "\\r", a vertical tab or U+2028 ends no line (str.splitlines would split there, and every later line number
    would be off by one). The lines are sliced one at a time: io.StringIO held a copy of 4 bytes a character first
    (125 MiB for a 31 MiB config)."""
    text = "interface Ethernet1\r\n   qos trust cos\r\n\r\n!\rcomment\x0bstill\u2028line 4\nhostname leaf\u2028x\nend"
    assert list(clitext.numbered_lines(text)) == [
        (1, "interface Ethernet1\r"), (2, "   qos trust cos\r"), (3, "\r"), (4, "!\rcomment\x0bstill\u2028line 4"),
        (5, "hostname leaf\u2028x"), (6, "end")]
    assert [(n.line, n.text, [(c.line, c.text) for c in n.children]) for n in clitext.tree(text)] == [
        (1, "interface Ethernet1", [(2, "qos trust cos")]), (5, "hostname leaf\u2028x", []), (6, "end", [])]
    assert list(clitext.numbered_lines("a\n\n")) == [(1, "a"), (2, "")]  # the text's end is no line of its own
    big = "interface Ethernet1/1\n  priority-flow-control mode on\n" * 100_000  # 5 MiB, 20 MiB as UCS-4
    tracemalloc.start()
    try:
        assert sum(1 for _ in clitext.numbered_lines(big)) == 200_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


@pytest.mark.parametrize("line,ends", [
    ("cat <<EOF", [("EOF", False)]),
    ("echo 'a <<X' <<-Y \"b <<Z\" <<'W'", [("Y", True), ("W", False)]),  # quoted `<<` open none
    ("x=$(( 1 << 2 )) ; cat <<E", [("E", False)]),  # a shift in arithmetic opens none
    ("echo \"$(( 1 <<2 ))'\" <<E", [("E", False)]),  # spans overlapping: a quote inside arithmetic inside a quote
    ("echo 'q' <<E " * 3, [("E", False)] * 3),
    ("TOS=106   # ToS = (DSCP 26 << 2) | ECT(0)", []),  # a comment's `<<` opens none (audit round 10)
    ("# x << 2", []), ("a=1;# <<E", []), ("cat <<E # then <<F", [("E", False)]),
    ("echo a#b <<E", [("E", False)]), ("echo ${#P[@]} $# <<E", [("E", False)]),  # `#` inside a word: no comment
    ("echo '# q' \"# q\" <<E", [("E", False)]),  # a quoted `#` starts none
    # a backslash quotes the next character outside quotes too: `\'` opens no quote, `\ ` is no blank (review 31)
    ("echo Can\\'t   # it's (26 << 2)", []), ("echo \\' # ' <<E", []), ("echo a\\ #b <<E", [("E", False)]),
    ("echo a\\\\ #b <<E", []), ("x=$'it\\'s' # <<E", []), ("echo \\# <<E", [("E", False)]),
])
def test_here_documents_a_line_opens_are_those_outside_quotes_and_arithmetic(line, ends):
    """bash(1) Here Documents, QUOTING, ARITHMETIC EVALUATION, COMMENTS (a word beginning with `#` and the rest of
    the line are ignored). The spans are merged and each `<<` looked up by bisection (a test of every `<<` against
    every span was quadratic: a line of 8,000 `'q' <<E` pairs took 5 s)."""
    from losslessd.parse.base import heredoc_ends

    assert heredoc_ends(line) == ends


# Host-script shapes each of whose lines closes a compound command (`)`, `}`) the reader looks back to the opening of.
_HOST_SCRIPT_LINES = {
    "subshells": "( mlnx_qos -i eth1 --trust pcp )\n",
    "negated-subshells": "! ( mlnx_qos -i eth1 --trust pcp )\n",
    "wrapped": "sudo -E timeout 10 env X=1 nice -n 5 stdbuf -oL mlnx_qos -i eth1 --trust pcp; ( : )\n",
    "braces": "for p in {1..1}; do mlnx_qos -i eth$p --trust pcp; done; ( : )\n",
    "substituted-on-one-line": "x=$(true); y=$(mlnx_qos -i eth1 --trust pcp); ( : )\n",
}


@pytest.mark.parametrize("shape", sorted(_HOST_SCRIPT_LINES))
def test_a_host_scripts_closing_words_find_their_openings_without_a_scan(shape):
    """The steps the set -e reader takes (its Python frames entered or resumed) grow with the lines, not their square:
    at each `)` a search of every compound command for the one it closes was quadratic (20,000 subshells: 18 s)."""
    from losslessd.parse import braces
    from losslessd.parse.mlx5 import script, wrappers
    from tests.bashcalls import read_calls

    steps = []
    for lines in (400, 1600):
        count, calls = _steps((script.__file__, braces.__file__, wrappers.__file__), read_calls,
                              "#!/bin/bash\nset -e\n" + _HOST_SCRIPT_LINES[shape] * lines)
        assert len(calls) == lines
        steps.append(count)
    assert steps[1] < 5 * steps[0], steps


def test_a_one_line_function_s_substitutions_are_placed_in_one_pass():
    """The steps the host script reader takes for one line `f() { x0=$(...); x1=$(...); ...; }; y=$(f)` grow with
    its substitutions, not their square, and each runs once, where its own command is. Before session 32's mend
    (each substitution placed by a search of the line's commands) 200 of them took 9.7 times the steps of 50 and
    no call was read (2,000: more than 300 s). A regression guard of that mend: it passes on session 33's code as on
    session 32's."""
    import os

    from losslessd.parse.mlx5 import script

    folder = os.path.dirname(script.__file__)
    files = {os.path.join(folder, name) for name in os.listdir(folder)}
    steps = []
    for n in (100, 400):
        text = "#!/bin/bash\nset -e\nf() { " + " ".join(f"x{k}=$(mlnx_qos -i eth{k} --trust pcp);" for k in range(n))
        count, commands = _steps(files, lambda text: list(script.commands(text)), text + " }; y=$(f)\n")
        calls = [w[2] for _, w, _ in commands if w and w[0] == "mlnx_qos"]
        steps.append(count)
    assert steps[1] < 5 * steps[0], steps
    assert calls == [f"eth{k}" for k in range(400)]


def test_nvue_unsets_visit_only_the_paths_under_them():
    """The steps the NVUE command reader takes (its Python frames entered or resumed, a port name expanded among them)
    grow with the lines, not their square: each `nv unset` walked every earlier path and expanded its port list again
    (100 lines of `swp1-1024` and 100 unsets of other ports: 74 s to lint)."""
    from losslessd.parse.nvue import reader

    steps = []
    for lines in (100, 400):
        text = "".join("nv set interface swp1-64 link mtu 9216\n" for _ in range(lines))
        text += "".join(f"nv unset interface swp{101 + n % 50}-{164 + n % 50} description\n" for n in range(lines))
        count, (paths, *_) = _steps((reader.__file__,), reader.command_paths, text, "s")
        assert len(paths) == lines
        steps.append(count)
    assert steps[1] < 5 * steps[0], steps


def test_a_brace_flood_stops_after_a_bounded_number_of_words():
    """The steps the host script reader takes on one line of N `{1..1000}` words stay the same past the file's
    budget of brace-expanded words (MAX_SCRIPT_BRACE_WORDS), which refuses it: before, every word was expanded (a line
    of 8,000: 8 million words, 16 s, 642 MB)."""
    from losslessd.parse import braces
    from losslessd.parse.mlx5 import script

    def flood(words: int) -> None:
        with contextlib.suppress(InputError):  # (refused once past the budget)
            list(script.commands("#!/bin/bash\necho " + "{1..1000} " * words + "\n", "flood.sh"))

    steps = [_steps((script.__file__, braces.__file__), flood, words)[0] for words in (200, 1600)]
    assert steps[1] < 2 * steps[0], steps


class _CountingTuple(tuple):
    """A tuple that counts the items its iterators hand out."""

    read = 0

    def __iter__(self):
        for item in super().__iter__():
            type(self).read += 1
            yield item


@pytest.mark.parametrize("later", [{"scheduler": "S0", "weight": 1}, {"scheduler": "S0"}])
def test_a_sonic_port_run_is_checked_against_the_last_run_only_as_far_as_it_goes(later, monkeypatch):
    """A later port's QUEUE rows are checked against the last repeatable run (_Builder._runs) key by key, stopping at
    the first that differs: a long first run followed by many one-row ports was a copy of the whole run per port
    (10.7 MB: 55 s against 3 s row by row)."""
    from losslessd.parse import sonic
    from losslessd.parse.base import Input

    def names(count: int) -> list[str]:  # distinct QUEUE index texts (leading zeros) of indexes below 64
        return [("0" * zeros) + str(i) for zeros in range(4) for i in range(64)][:count]

    run = 200
    queue: dict[str, dict] = {f"Ethernet0|{n}": {"scheduler": "S0"} for n in names(run)}
    blank = " " if "weight" not in later else ""  # (a run of a name with a blank, or with a number, is no template)
    for n in names(run):  # one row a port, alternating; each is another port's run, checked against Ethernet0's
        queue[f"Ethernet4{blank}|{n}"] = dict(later)
        queue[f"Ethernet8{blank}|{n}"] = dict(later)
    doc = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf"}},
           "PORT": {p: {"speed": "100000", "mtu": "9100"} for p in ("Ethernet0", "Ethernet4", "Ethernet8")},
           "SCHEDULER": {"S0": {"type": "DWRR", "weight": "10"}}, "QUEUE": queue}
    real = sonic._Builder._run_read

    def counted(self: sonic._Builder, *args: Any) -> tuple | None:
        got = real(self, *args)
        return got if got is None else (_CountingTuple(got[0]), *got[1:])

    monkeypatch.setattr(sonic._Builder, "_run_read", counted)
    monkeypatch.setattr(_CountingTuple, "read", 0)
    device = sonic.parse([Input("config_db.json", json.dumps(doc, indent=1))], "leaf")
    assert len(device.ports["Ethernet0"].queues) == 64
    assert 0 < _CountingTuple.read <= 2 * len(queue), _CountingTuple.read  # was run x ports (40,200 here)


class _ScannedStr(str):
    """A str that adds up the characters its count() calls scan."""

    scanned = 0

    def count(self, sub, start=None, end=None):
        low = 0 if start is None else start
        high = len(self) if end is None else min(end, len(self))
        type(self).scanned += max(0, high - low)
        return super().count(sub, start, end)


def test_the_prompts_between_json_documents_are_numbered_without_a_count_from_the_top():
    """The characters counted to number the prompt lines between a file's JSON documents (cli_json_documents) grow
    with the file, not its square: each prompt's line was counted from the top (8,000 documents: 2.3 s)."""
    from losslessd.parse.base import cli_json_documents

    scanned = []
    for documents in (200, 800):
        _ScannedStr.scanned = 0
        text = _ScannedStr("".join(f"leaf1#show ip route vrf all | json\n{{\"d\": {n}}}\n" for n in range(documents)))
        found = cli_json_documents(text, "routes.txt")
        assert found is not None and [lines for lines, _ in found] == [1 + 2 * n for n in range(documents)]
        scanned.append(_ScannedStr.scanned)
    assert scanned[1] < 5 * scanned[0], scanned


def test_an_nvue_config_with_no_unset_looks_up_no_tombstone():
    """The builder looks for the `nv unset` line that restored a default (build._restored) only where there is one:
    with none and RoCE on it still asked the tombstones for every port (up to 55 lookups a port; 512 ports: the parse
    took 1.7 times as long)."""
    from losslessd.parse import nvue
    from losslessd.parse.base import Input
    from losslessd.parse.nvue import reader

    text = "nv set qos roce mode lossless\n" + "".join(
        f"nv set interface swp{n} link mtu 9216\nnv set interface swp{n} qos pfc profile default-global\n"
        for n in range(1, 33))
    calls = [0]

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code is reader.Tombstones.near.__code__:
            calls[0] += 1

    sys.settrace(tracer)
    try:
        device = nvue.parse([Input("leaf.cfg", text)], "leaf")
    finally:
        sys.settrace(None)
    assert len(device.ports) == 32
    assert calls[0] == 0, calls


def test_a_sonic_table_s_rest_is_tried_at_once_only_on_its_first_run(monkeypatch):
    """_Builder._rest_repeats passes over the rest of a table (in C): tried once per table, on its first run, never
    again after each later run read row by row, which would be runs x rows (here 200 ports whose runs all differ)."""
    from losslessd.parse import sonic
    from losslessd.parse.base import Input

    ports = [f"Ethernet{4 * i}" for i in range(200)]
    queue = {f"{p}|{q}": {"scheduler": f"S{(n + q) % 2}"} for n, p in enumerate(ports) for q in range(8)}
    doc = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf"}},
           "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},  # (a saved config names its release: 202211)
           "PORT": {p: {"speed": "100000", "mtu": "9100"} for p in ports},
           "SCHEDULER": {"S0": {"type": "DWRR", "weight": "10"}, "S1": {"type": "DWRR", "weight": "20"}},
           "QUEUE": queue}
    tried: list[int] = []
    real = sonic._Builder._rest_repeats

    def counted(self: sonic._Builder, keys: list[str], *args: Any) -> bool:
        tried.append(len(keys))
        return real(self, keys, *args)

    monkeypatch.setattr(sonic._Builder, "_rest_repeats", counted)
    device = sonic.parse([Input("config_db.json", json.dumps(doc, indent=1))], "leaf")
    assert device.ports["Ethernet4"].queues[0].scheduler.name == "S1" and not device.issues
    assert tried == [len(queue)]


def test_sonic_ports_with_their_own_lanes_read_the_fields_they_share_once(monkeypatch):
    """Each port of a real switch has its own PORT lanes (`0,1,2,3`, `4,5,6,7`: the example leaf's, sonic-buildimage
    port_config.ini's); speed, mtu and admin_status are read once for the ports that write them alike, not once per
    port because the lanes differ (a memo keyed on them too found nothing on a real switch: 7 % of a 64-port
    switch's parse in instructions)."""
    from losslessd.parse import sonic
    from losslessd.parse.base import Input

    ports = [f"Ethernet{4 * i}" for i in range(64)]
    doc = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf"}},
           "PORT": {p: {"lanes": ",".join(str(4 * i + j) for j in range(4)), "speed": "100000", "mtu": "9100",
                        "admin_status": "up"} for i, p in enumerate(ports)}}
    read: list[str] = []
    real = sonic._Builder.value

    def counted(self: sonic._Builder, entry: Any, field: str, *args: Any) -> Any:
        read.append(field)
        return real(self, entry, field, *args)

    lanes = sonic._lane_count  # (each port's own lanes counted where they read: Session 39, part b)

    def lanes_counted(text: str) -> int:
        read.append("lanes")
        return lanes(text)

    monkeypatch.setattr(sonic._Builder, "value", counted)
    monkeypatch.setattr(sonic, "_lane_count", lanes_counted)
    device = sonic.parse([Input("config_db.json", json.dumps(doc, indent=1))], "leaf")
    assert [(p.lanes, p.speed_gbps, p.mtu_bytes, p.admin_up) for p in device.ports.values()] == [
        (4, 100.0, 9100, True)] * 64 and not device.issues
    assert read.count("lanes") == 64 and read.count("speed") == read.count("mtu") == 1


def test_cli_json_tries_each_line_before_a_document_once_and_makes_no_lines_of_text_that_is_no_json():
    """cli_json (a host's LLDP output, a route table) steps past the CLI's lines before a document one line at a time,
    each tried once; text that is no JSON past them has its lines made for nothing (Session 38, part a)."""
    from losslessd.parse import base

    files = {base.__file__}
    for lines in (1_000, 4_000):
        prompts = "root@gpu01:~# lldpcli show neighbors\n" * lines
        steps, found = _steps(files, base.cli_json, prompts + "lldp.eth0.via=LLDP\n")
        assert found is None and steps == lines + 2  # (cli_json, then _cli_line per line up to the first that is none)
        steps, found = _steps(files, base.cli_json, "leaf1#show lldp neighbors | json\n" * lines + '{"lldp": {}}\n')
        assert found is not None and found.endswith('{"lldp": {}}\n') and steps <= 2 * lines + 4


_RESCANS = '''
def linear(text):
    found, at = [], text.find("x")
    while at >= 0:
        found.append(at)
        at = text.find("x", at + 1)
    return found


def find_from_the_start(text):
    found, at = [], -1
    for _ in range(text.count("x")):
        at = text.find("x", at + 1)
        if text.find("x" * 2) < 0:  # (the same whole text searched again per item)
            found.append(at)
    return found


def a_growing_text_searched(lines):
    seen, text = 0, ""
    for line in lines:
        text += line
        seen += "xx" in text
    return seen


def a_text_cut_a_character_at_a_time(text):
    n = 0
    while text:
        text = text[1:]
        n += 1
    return n


def a_list_searched_per_item(words):
    kept = []
    for word in words:
        if word not in kept:
            kept.append(word)
    return kept
'''


def test_the_work_meter_counts_what_a_string_method_or_in_scans_again_per_item(tmp_path):
    """Session 45 (round 26): `work` counted frames and the characters module-level patterns passed, not a str
    method's or `in`'s scan, so a reader searching the whole text again per item (`text.find(x)` from 0, `x in text`
    on a text that grows, `text = text[1:]`, `w not in list`) counted as linear. Each such reader written here counts
    its square now (16x at 4x the items), a reader that goes on from its last hit 4x; the functions run their own
    code again after the count."""
    import importlib.util

    from tests.workmeter import work

    (tmp_path / "rescans.py").write_text(_RESCANS)
    spec = importlib.util.spec_from_file_location("rescans", tmp_path / "rescans.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = module.find_from_the_start.__code__

    def growth(run, make) -> float:
        small, large = (work([module], run, make(n))[0] for n in (300, 1200))
        return large / small

    assert growth(module.linear, lambda n: "abcdefghx" * n) < 4.5
    for run, make in [(module.find_from_the_start, lambda n: "abcdefghx" * n),
                      (module.a_growing_text_searched, lambda n: ["abcdefghx"] * n),
                      (module.a_text_cut_a_character_at_a_time, lambda n: "abcdefghx" * n),
                      (module.a_list_searched_per_item, lambda n: [f"w{i}" for i in range(n)])]:
        assert growth(run, make) > 10, run.__name__
    assert module.find_from_the_start.__code__ is code and module.find_from_the_start("axbx") == [1, 3]


# A shape per platform that makes an issue of every block, a reader's line numbers and messages per item (the
# vendors' syntax, as _BLOCKS; each value refused or unknown): what a reader does per issue, on top of per port.
_ISSUES = {
    "arista_eos": ("hostname sw\n", "interface Ethernet{i}\n   priority-flow-control priority 99 no-drop\n"
                                    "   bogus command {i}\n!\n"),
    "cisco_nxos": ("hostname sw\n", "interface Ethernet1/{i}\n  service-policy type qos input MISSING{i}\n"
                                    "  priority-flow-control mode bogus\n"),
    "juniper_junos": ("set system host-name sw\n",
                      "set class-of-service interfaces et-0/0/{i} congestion-notification-profile C{i}\n"),
    "nvidia_cumulus": ("nv set system hostname sw\n", "nv set qos pfc P{i} switch-priority 3\n"
                                                      "nv set interface swp{i} qos pfc profile P{i}\n"),
    "opensm": ("sm_priority 1\n", "bogus_option_{i} 1\n"),
}


@pytest.mark.parametrize("platform, shape", [*((p, "ports") for p in sorted(_BLOCKS)),
                                             *((p, "issues") for p in sorted(_ISSUES))])
def test_no_reader_scans_its_text_again_per_port_or_issue(platform, shape):
    """Session 45 (round 26): each reader's work, counted with what its own code scans or copies (tests.workmeter),
    grows as its input: 4x the ports' blocks, or the blocks that each make an issue, under 6x the work."""
    import importlib

    from losslessd.parse import base, braces, parser_for
    from losslessd.parse.base import Input
    from tests.workmeter import package_modules, work

    parser = parser_for(platform)
    modules = [*package_modules(importlib.import_module(parser.parse.__module__)), base, clitext, braces]
    head, block = (_BLOCKS if shape == "ports" else _ISSUES)[platform]
    counts = []
    for n in (150, 600):
        count, device = work(modules, parser.parse, [Input("sw.cfg", head + "".join(
            block.format(i=i) for i in range(1, n + 1)))], "sw")
        assert len(device.ports) + len(device.issues) >= n, device.issues[:3]
        counts.append(count)
    assert counts[1] < 6 * counts[0], counts
