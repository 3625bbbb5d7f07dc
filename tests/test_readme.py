"""The README shows what the commands print: every block that starts with `$ losslessd ...` is run, and
its lines (less the `...` that abridge it) must come out of the command, in order. A rule message,
a line number in an example file or a count that changes makes this fail until the README follows."""

from __future__ import annotations

import re
import shlex

import pytest

from tests.clirun import ROOT, losslessd

README = ROOT / "README.md"
_BLOCK = re.compile(r"^```(?:text)?\n(\$ losslessd .*?)^```", re.M | re.S)


def _examples() -> list[tuple[str, list[str]]]:
    out = []
    for block in _BLOCK.findall(README.read_text(encoding="utf-8")):
        command, *shown = block.rstrip("\n").split("\n")
        out.append((command, shown))
    return out


def test_the_readme_has_the_demo_excerpts():
    commands = [command for command, _ in _examples()]
    assert "$ losslessd lint examples/fabric --policy roce-dscp26" in commands
    assert "$ losslessd lint examples/infiniband --policy infiniband" in commands
    # (bundled inputs, so that these excerpts are run too: they came from files not in the repository)
    assert "$ losslessd lint examples/clos/leaf2.cfg --policy roce-dscp26 --explain-selection" in commands
    assert any(c.startswith("$ losslessd lint examples/clos ") and c.endswith("--select DLK002") for c in commands)


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=lambda value: value if isinstance(value, str) else "")
def test_readme_excerpt_is_what_the_command_prints(command, shown):
    res = losslessd(*shlex.split(command)[2:])
    assert res.returncode in (0, 1), res.stderr
    printed = res.stdout.rstrip("\n").split("\n")
    position = 0
    for line in shown:
        if line.strip() in ("...", ""):  # an abridged stretch, or a blank line between devices
            continue
        try:
            position = printed.index(line, position) + 1
        except ValueError:
            pytest.fail(f"README.md shows a line `{command[2:]}` does not print (or not in this order):\n{line}")
    if shown and re.match(r"\d+ devices? checked", shown[-1]):
        assert printed[-1] == shown[-1]  # the summary is the last line, exactly


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("doc", [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*/README.md"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_link_only_inside_the_repository(doc):
    """A clone is all a user has: every link is a file of the repository or a heading of the page."""
    text = doc.read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
    for target in _LINK.findall(text):
        if target.startswith("#"):
            assert target[1:] in anchors, f"{doc.name}: no heading for the link {target}"
            continue
        assert "://" not in target and not target.startswith("mailto:"), f"{doc.name} links outside: {target}"
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT.resolve()), f"{doc.name} links outside the repository: {target}"
        assert path.exists(), f"{doc.name} links to a missing file: {target}"
        if "#" in target and path.suffix == ".md":  # a heading of another page: renamed, the link leads to its top
            headings = re.findall(r"^#+ (.*)$", path.read_text(encoding="utf-8"), re.M)
            assert target.split("#", 1)[1] in {_slug(h) for h in headings}, f"{doc.name}: no heading for {target}"
    # A bare address in the text sends a reader outside as a link does (docs/metrics.md named three Prometheus
    # pages so): only the daemon's own loopback listener and placeholder hosts (`host`, `*.example`) are shown.
    outside = [url for url, host in _URL.findall(text) if not _OWN_HOST.fullmatch(host)]
    assert not outside, f"{doc.name} names addresses outside the repository (name the source in words): {outside}"


_URL = re.compile(r"(\b[a-z][a-z0-9+.-]*://([^/\s:`)\]>\"']+)[^\s`)\]>\"']*)")
_OWN_HOST = re.compile(r"127\.0\.0\.1|localhost|\[::1\]|host|[\w.-]+\.example")


def test_readme_policy_check_message_is_what_policy_check_prints(tmp_path):
    """The README's site.yaml, with a word where a number belongs, gives the error the README quotes (file:line)."""
    text = README.read_text(encoding="utf-8")
    site = re.search(r"^```yaml\n(# site\.yaml\n.*?)^```", text, re.M | re.S)
    quoted = re.search(r"``(site\.yaml:\d+ \(at [^)]*\): .*?)``", text)
    assert site and quoted, "README.md no longer shows the site.yaml example and its policy check error"
    body = site.group(1)
    assert "detection_time_ms: {min: 100," in body
    (tmp_path / "site.yaml").write_text(body.replace("detection_time_ms: {min: 100,", "detection_time_ms: {min: fast,"),
                                        encoding="utf-8")
    res = losslessd("policy", "check", "site.yaml", cwd=tmp_path)
    assert res.returncode == 2, res.stdout
    assert f"losslessd: error: {quoted.group(1)}" in res.stderr.splitlines()


def _schema_keys(node: dict, defs: dict, prefix: str = "") -> set[str]:
    while "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    if set(node.get("properties", {})) == {"min", "max"}:  # a range: documented as one key
        return set()
    keys = set()
    for option in node.get("anyOf", []):
        keys |= _schema_keys(option, defs, prefix)
    for key, sub in node.get("properties", {}).items():
        keys |= {prefix + key} | _schema_keys(sub, defs, prefix + key + ".")
    return keys


def test_docs_policy_lists_every_policy_key_once():
    """docs/policy.md has one row per key the policy schema accepts, and no row for a key it does not."""
    import json

    schema = json.loads((ROOT / "policies" / "schema.json").read_text(encoding="utf-8"))
    accepted = _schema_keys(schema, schema["$defs"])
    rows = re.findall(r"^\| `([a-z_.]+)` \|", (ROOT / "docs" / "policy.md").read_text(encoding="utf-8"), re.M)
    twice = sorted({key for key in rows if rows.count(key) > 1})
    assert not twice, f"docs/policy.md lists these keys more than once: {twice}"
    assert sorted(accepted - set(rows)) == [], "policy keys docs/policy.md does not list"
    assert sorted(set(rows) - accepted) == [], "docs/policy.md lists keys the policy schema does not accept"


def test_sys001_documented_example_is_what_lint_prints(tmp_path):
    """`losslessd rules SYS001` quotes a finding: a config_db.json missing a comma gives that very line."""
    doc = losslessd("rules", "SYS001").stdout
    quoted = re.search(r"`SYS001 (invalid JSON: .*?) \[config_db\.json:(\d+)\]`", doc)
    assert quoted, doc
    line = int(quoted.group(2))
    tables = ["DEVICE_METADATA", "PORT", "PORT_QOS_MAP", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE",
              "QUEUE", "WRED_PROFILE", "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "SCHEDULER"]
    assert line - 1 <= len(tables)
    body = [f'  "{table}": {{}}' for table in tables[:line - 2]]  # lines 2 .. line-1; the last lacks its comma
    rows = [row + "," for row in body[:-1]] + [body[-1], f'    "{tables[line - 2]}": {{}}', "}"]
    (tmp_path / "config_db.json").write_text("\n".join(["{", *rows]) + "\n", encoding="utf-8")
    res = losslessd("lint", "config_db.json", cwd=tmp_path)
    assert res.returncode == 2
    assert f"  error   SYS001 (device): {quoted.group(1)} [config_db.json:{line}]" in res.stdout.splitlines()


def test_docs_fix_labels_every_fixable_rule_as_the_rule_does():
    """docs/fix.md's "Safe and disruptive" table names every fixable rule once, labelled as `losslessd rules` does."""
    from losslessd.lint.registry import all_rules

    table: dict[str, str] = {}
    for codes, label in re.findall(r"^\| ([A-Z]{3}\d{3}[^|]*?) \| [^|]* \| (safe|disruptive) \|",
                                   (ROOT / "docs" / "fix.md").read_text(encoding="utf-8"), re.M):
        if " on a NIC" in codes:  # a rule's NIC side, labelled as the rule is
            continue
        for part in re.findall(r"([A-Z]{3})(\d{3})(?:-[A-Z]{3}(\d{3}))?", codes):
            for number in range(int(part[1]), int(part[2] or part[1]) + 1):
                code = f"{part[0]}{number:03d}"
                assert code not in table, f"docs/fix.md labels {code} twice"
                table[code] = label
    fixable = {code: ("disruptive" if rule.disruptive else "safe")
               for code, rule in all_rules().items() if rule.fix_sections}
    assert table == fixable


def test_docs_collection_inventory_errors_are_what_pull_prints(tmp_path):
    """docs/collection.md's broken inventory gives the errors the page shows, line for line (exit 2, nothing
    contacted): the file lines, the platforms pull knows and the closing count follow the code."""
    text = (ROOT / "docs" / "collection.md").read_text(encoding="utf-8")
    inventory = re.search(r"^```yaml\n(# inventory\.yaml\n.*?)^```", text, re.M | re.S)
    shown = re.search(r"^gives \(`losslessd pull --inventory inventory\.yaml --out snap/`\):\n\n```\n(.*?)^```", text,
                      re.M | re.S)
    assert inventory and shown, "docs/collection.md no longer shows the broken inventory and what pull prints"
    (tmp_path / "inventory.yaml").write_text(inventory.group(1), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    res = losslessd("pull", "--inventory", "inventory.yaml", "--out", "snap/", cwd=tmp_path,
                    env={"FABRIC_PASSWORD": None, "HOME": str(home)})
    assert res.returncode == 2, res.stdout
    expected = shown.group(1).replace("/root/.ssh/known_hosts", f"{home}/.ssh/known_hosts").splitlines()
    assert res.stderr.splitlines() == expected
    assert not (tmp_path / "snap").exists()


def test_readme_python_api_example_runs(capsys, monkeypatch):
    """The README's Python API block runs as shown (from the repository root) and prints a line per finding of the
    families it selects."""
    block = re.search(r"^## Python API\n\n```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    assert block, "README.md no longer shows the Python API example"
    monkeypatch.chdir(ROOT)
    exec(compile(block.group(1), "README.md (Python API)", "exec"), {})  # noqa: S102 - the README's own example
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.split()[3][:3] in ("ECN", "BUF") for line in lines), lines
    assert any(line.startswith("error leaf1 Ethernet48 BUF002 ") for line in lines)


def test_every_docs_page_is_linked_from_the_readme():
    """The README is the front door: a docs page no README link reaches is a page a new user never finds."""
    linked = {target.split("#", 1)[0] for target in _LINK.findall(README.read_text(encoding="utf-8"))}
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert sorted(pages - linked) == []


_SYNOPSIS = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
_BRACKETED = re.compile(r"\[(--[\w-]+)(?: ([^\]\[]+))?")


def _synopses() -> list[tuple[str, str]]:
    """(first line, text) of each `losslessd ...` command the README's sh blocks show, with its indented lines."""
    out: list[tuple[str, str]] = []
    for block in _SYNOPSIS.findall(README.read_text(encoding="utf-8")):
        for line in block.splitlines():
            if line.startswith("losslessd "):
                out.append((line, line.split("#")[0]))
            elif line.startswith(" ") and out and not line.lstrip().startswith("#"):
                out[-1] = (out[-1][0], out[-1][1] + " " + line.split("#")[0])
    return out


def _command(words: list[str]):
    """The click command the words name (`policy check` is the group's subcommand)."""
    from losslessd.cli.main import COMMANDS, _load

    command = _load(words[0], *COMMANDS[words[0]])
    words = words[1:]
    while words and hasattr(command, "list_commands") and words[0] in command.list_commands(None):
        command, words = command.get_command(None, words[0]), words[1:]
    return command


def test_readme_synopses_name_options_values_and_defaults_the_commands_take():
    """Each option a README synopsis shows (`[--fail-on error|warning|info]`, `[--concurrency 16]`) is one the command
    takes, its choices are the command's and a number shown is the option's default: a renamed option, a new choice
    or a changed default makes this fail until the README follows."""
    from enum import Enum

    synopses = _synopses()
    assert any(first.startswith("losslessd lint PATH") for first, _ in synopses)
    assert any(first.startswith("losslessd pull ") for first, _ in synopses)
    for first, text in synopses:
        command = _command(text.split()[1:])
        params = {opt: param for param in command.params for opt in param.opts}
        for option in re.findall(r"(?<![\w-])(--?[\w-]+)", text):
            assert option in params, f"README shows `{option}` for `{first}`; the command has no such option"
        for option, value in _BRACKETED.findall(text):
            param, value = params[option], value.strip()
            kind = param.type_descriptor.annotation
            if isinstance(kind, type) and issubclass(kind, Enum) and "|" in value:
                assert sorted(value.split("|")) == sorted(member.value for member in kind), (first, option)
            elif re.fullmatch(r"\d+(\.\d+)?", value):
                assert float(value) == float(param.default), f"README shows `{option} {value}`; default {param.default}"


_CONSOLE = re.compile(r"^```console\n(\$ .*?)^```", re.M | re.S)
_ECHO = re.compile(r'^\$ echo "(.*)" > ([\w.-]+)$')


def _doc_sessions() -> list[tuple[str, str]]:
    return [(page.name, block) for page in sorted((ROOT / "docs").glob("*.md"))
            for block in _CONSOLE.findall(page.read_text(encoding="utf-8"))
            if all(_ECHO.match(line) or not line.startswith("$ ") or line.startswith("$ losslessd ")
                   for line in block.splitlines())]


def test_docs_show_sessions_to_run():
    assert {page for page, _ in _doc_sessions()} >= {"platforms.md", "infiniband.md"}


@pytest.mark.parametrize(("page", "block"), _doc_sessions(), ids=lambda value: value if value.endswith(".md") else "")
def test_docs_console_sessions_print_what_they_show(tmp_path, page, block):
    """A docs page's console session of `echo "..." > FILE` and `losslessd ...` lines, run in a new folder, prints
    the lines it shows (less `...`), in order."""
    printed: list[str] = []
    shown: list[str] = []
    for line in block.rstrip("\n").splitlines():
        if echo := _ECHO.match(line):
            (tmp_path / echo.group(2)).write_text(echo.group(1) + "\n", encoding="utf-8")
        elif line.startswith("$ losslessd "):
            res = losslessd(*shlex.split(line)[2:], cwd=tmp_path)
            assert res.returncode in (0, 1, 2) and "Traceback" not in res.stderr, res.stderr
            printed += res.stdout.splitlines()
        elif line.strip() not in ("...", ""):
            shown.append(line)
    assert shown, f"{page}: a session that shows nothing"
    position = 0
    for line in shown:
        assert line in printed[position:], f"{page} shows a line its session does not print (or not in order):\n{line}"
        position = printed.index(line, position) + 1


def _named_commands(text: str) -> list[str]:
    """Every `losslessd COMMAND ...` a page shows: inline code spans, and lines of its code blocks."""
    spans = re.findall(r"`(losslessd [^`]+)`", text)
    spans += [re.sub(r"^\s*(\$ )?", "", line) for line in text.splitlines()
              if re.match(r"\s*(\$ )?losslessd [a-z]", line)]
    return [span.split("#")[0] for span in spans]


@pytest.mark.parametrize("doc", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_name_only_options_the_commands_take(doc):
    """Each `--option` a page shows after `losslessd COMMAND` (in running text as in a block) is one that command
    takes: the synopsis test above reads only the README's sh blocks, and a renamed option must not live on in a
    sentence (172 such options on the pages today)."""
    from losslessd.cli.main import COMMANDS

    for span in _named_commands(doc.read_text(encoding="utf-8")):
        words = span.split()
        if len(words) < 2 or words[1] not in COMMANDS:
            continue
        command = _command(words[1:])
        takes = {opt for param in command.params for opt in [*param.opts, *getattr(param, "secondary_opts", [])]}
        for option in re.findall(r"(?<![\w/-])(--[a-z][\w-]*)", span):
            assert option in takes | {"--help"}, f"{doc.name} shows `{option}` for `{span.strip()}`; no such option"


def test_readme_names_every_bench_script():
    """README "Benchmarks" names every script in bench/ (make bench's and the ones run by hand): a bench no page leads
    to is one nobody runs (bench/noise_census.py was named only in docs/real-configs.md's round notes). child.py is
    the benches' shared helper, not one to run."""
    text = README.read_text(encoding="utf-8")
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")} - {"child.py", "__init__.py"}
    assert sorted(name for name in scripts if name not in text) == []


def test_docs_name_the_history_file_the_shipped_unit_writes():
    """A file under /var/lib/losslessd a page names is the history the shipped settings give the unit
    (systemd/losslessd.yaml `history.path`): docs/history.md named /var/lib/losslessd/losslessd.db, a file that
    installation never has (the daemon's default name is for a run in the working folder)."""
    import yaml

    path = yaml.safe_load((ROOT / "systemd" / "losslessd.yaml").read_text(encoding="utf-8"))["history"]["path"]
    for doc in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for named in re.findall(r"/var/lib/losslessd/[\w.-]+", doc.read_text(encoding="utf-8")):
            assert named == path, f"{doc.name} names {named}; the shipped unit's history is {path}"


def test_docs_name_only_extras_the_package_has():
    """`pip install 'losslessd[X]'` on a page names an extra pyproject.toml declares (pip installs nothing for an
    unknown extra and says only a warning)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (as tests/test_dependencies.py)
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                 ["optional-dependencies"])
    for doc in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for named in re.findall(r"losslessd\[([\w,-]+)\]", doc.read_text(encoding="utf-8")):
            assert set(named.split(",")) <= extras, f"{doc.name} names losslessd[{named}]; extras: {sorted(extras)}"


def test_readme_sku_count_is_the_tables_losslessd_ships():
    """README "Headroom on other SKUs" says for how many SKUs the pg_profile_lookup.ini rows ship: the count is
    skutables.skus()'s (the tables behind folder links took it from 204 to 263 in session 41, the header-only files of
    the 7060X6 SKUs to 275 in session 42)."""
    from losslessd import skutables

    counts = re.findall(r"for the ([\d,]+) SKUs of sonic-buildimage", README.read_text(encoding="utf-8"))
    assert counts and {int(count.replace(",", "")) for count in counts} == {len(skutables.skus())}


def test_readme_benchmark_figures_are_those_docs_lint_at_scale_records():
    """Each ratio the README's Benchmarks bullet quotes (`2.77x`, `3.46x`) is one docs/lint-at-scale.md records: a
    figure measured again is written there first (the README quoted a worker RSS of 150-260 MB, `about 20x` and a
    startup of `4.4x-5.1x` that page gave nowhere)."""
    text = README.read_text(encoding="utf-8")
    bullet = text[text.index("- **Benchmarks**"):]
    bullet = bullet[:bullet.index("\n- **") if "\n- **" in bullet else len(bullet)]
    recorded = (ROOT / "docs" / "lint-at-scale.md").read_text(encoding="utf-8")
    figures = re.findall(r"(?<![\w.])(\d+(?:\.\d+)?(?:x| MB| s))(?![\w])", bullet)
    assert len(figures) >= 10, figures
    assert sorted({figure for figure in figures if figure not in recorded}) == []


def test_readme_names_a_file_with_a_leading_dash_as_lint_says(tmp_path):
    """README "Using it": a file whose name starts with `-` is given as `./-spine1.cfg` or after `--`, and `lint
    -spine1.cfg` says so (exit 2)."""
    assert "given as `./-spine1.cfg` or after `--` (`lint -spine1.cfg` says so, exit 2)" in README.read_text(
        encoding="utf-8")
    (tmp_path / "-spine1.cfg").write_bytes((ROOT / "examples" / "fabric" / "spine1.cfg").read_bytes())
    refused = losslessd("lint", "-spine1.cfg", cwd=tmp_path)
    assert refused.returncode == 2 and "write it ./-spine1.cfg, or after --" in refused.stderr
    for words in (["./-spine1.cfg"], ["--", "-spine1.cfg"]):
        read = losslessd("lint", *words, cwd=tmp_path)
        assert read.returncode == 1 and read.stdout.rstrip().endswith("infos"), (words, read.stderr)
        assert "1 device checked" in read.stdout


def test_docs_name_only_make_targets_the_makefile_has():
    """`make X` in a page (README's first two commands above all) is a target of the Makefile: a renamed target
    leaves a new user's first command failing with "No rule to make target"."""
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    assert {"demo", "test"} <= targets
    for doc in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        blocks = "\n".join(re.findall(r"^```\w*\n(.*?)^```", text, re.M | re.S))
        named = re.findall(r"`make ([a-z][\w-]*)", text) + re.findall(r"^(?:\$ )?make ([a-z][\w-]*)", blocks, re.M)
        assert sorted(set(named) - targets) == [], f"{doc.name} names make targets the Makefile lacks"
