"""The command line imports what a command needs: `--help`, `rules` and a lint of the example fabric load neither
the daemon, the renderer and fixer, the simulator, the tuner, the collectors nor the libraries they bring (nor
rich: help is plain text, nor logging and pickle: a parallel lint's), `--help` loads no rule, parser, policy or
validator at all, and the rule list (losslessd/data/rules.txt) no rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # each test starts a fresh interpreter: imports are the point

NOT_FOR_THESE = ("losslessd.daemon", "losslessd.fix", "losslessd.render", "losslessd.sim", "losslessd.tune",
                 "losslessd.inventory", "losslessd.collect.pull", "losslessd.collect.ssh", "losslessd.collect.snmp",
                 "losslessd.history", "netmiko", "napalm", "pysnmp", "asyncssh", "jinja2", "jsonschema",
                 "prometheus_client", "multiprocessing", "concurrent.futures", "rich", "logging", "pickle")
# `--help` lists the commands from their sources: it needs no rule, parser, model, policy or validator.
NOT_FOR_HELP = ("losslessd.model", "losslessd.policy", "losslessd.rules", "losslessd.parse", "losslessd.api",
                "pydantic", "yaml")
# `rules` prints the rule index: no rule family, nor the model, parsers and policy they use; nor pydantic, which typer
# (0.29+) imports to build a parameter's validator, here only for a value given (cli.main._ValueFirst).
NOT_FOR_LIST = ("losslessd.rules", "losslessd.lint.registry", "losslessd.model", "losslessd.parse", "losslessd.policy",
                "yaml", "pydantic", "hashlib")  # (nor OpenSSL's hashlib: the index's digest is losslessd.sha's)
# A lint of the example (FRR and EOS routing tables) needs no reader of formats it has no file of: the Junos routing
# table reader is imported when a routing table is told to be Junos's (parse/routes.py, is_junos).
# Nor OpenSM's options reader: the example has no subnet manager (its EOS running-config goes through OpenSM's sniff,
# which reads the option names alone).
NOT_FOR_EXAMPLE = ("losslessd.parse.junos_routes", "losslessd.parse.opensm.options")
# A lint of SONiC switches alone sniffs its files with each platform's detection markers (the platforms' packages) and
# imports no other platform's reader, builder or host parser: those come when a file of their platform is found.
NOT_FOR_SONIC = ("losslessd.parse.eos", "losslessd.parse.clitext", "losslessd.parse.mlx5", "losslessd.parse.opensm.",
                 *(f"losslessd.parse.{p}." for p in ("nvue", "onyx", "nxos", "junos", "dell_os10", "dell_os9")))
SONIC_ONLY = "examples/fabric/leaf1"
# A lint of one switch of another platform: sniffing reaches that platform's package past the ones before it in
# SNIFF_ORDER (their packages, which sniff), and reads the file with its own reader and builder alone: no other
# platform's reader or builder, nor the Junos routing-table reader (NOT_FOR_EXAMPLE).
_READERS = {p: (f"losslessd.parse.{p}.reader", f"losslessd.parse.{p}.build")
            for p in ("eos", "nxos", "junos", "dell_os10", "dell_os9", "onyx", "nvue")}
# (nor the mlx5 script, OpenSM files and NVUE script readers, which no sniff needs; nor OpenSM's options reader: its
# sniff, which every such file goes through, reads the option names alone, opensm/names.py, session 44 part b)
_NOT_SNIFFED = ("losslessd.parse.mlx5.script", "losslessd.parse.mlx5.dcb", "losslessd.parse.opensm.options",
                "losslessd.parse.opensm.qos_policy",
                "losslessd.parse.opensm.partitions", "losslessd.parse.opensm.ibdiagnet", "losslessd.parse.nvue.script")
# (nor the SONiC package: its sniff knows only a file opening with `{`, Platform.sniff_opens)
# (nor the deadlock analysis: a fabric without routing has nothing for it, rules/dlk.py)
ONE_SWITCH = {f"tests/fixtures/raw/{raw}/roce-leaf.cfg":
              (*(m for p, mods in _READERS.items() if p != own for m in mods), *_NOT_SNIFFED, "losslessd.parse.sonic",
               "losslessd.deadlock")
              for raw, own in (("cisco_nxos", "nxos"), ("juniper_junos", "junos"), ("dell_os10", "dell_os10"),
                               ("arista_eos", "eos"))}
# A plain config is sniffed only by the platforms whose signs it holds (Platform.sniff_signs): no other platform's
# package is imported to hear "not mine" (each imported the mlx5, NVUE and Onyx ones, and the others ranked before its
# own, until session 42 part l). (NX-OS's sniff reads OS10's QoS lines: its package is NX-OS's to import; OpenSM's
# sniff, told by option names, has no signs.)
_NOT_SIGNED = {"cisco_nxos": ("mlx5", "nvue", "onyx", "dell_os9", "junos"),
               "juniper_junos": ("mlx5", "nvue", "onyx", "dell_os10", "dell_os9", "nxos"),
               "dell_os10": ("mlx5", "nvue", "onyx", "dell_os9", "nxos", "junos"),
               "arista_eos": ("mlx5", "nvue", "onyx", "dell_os10", "dell_os9", "nxos", "junos")}
for _raw, _packages in _NOT_SIGNED.items():
    ONE_SWITCH[f"tests/fixtures/raw/{_raw}/roce-leaf.cfg"] += tuple(f"losslessd.parse.{p}" for p in _packages)
# A capture is told by the platform its header names (parse.detect): a lint of one captured EOS switch imports no
# other platform's package, not even to sniff (the mlx5, OpenSM, NVUE and Onyx ones, ranked before EOS, were until
# session 42).
ONE_SWITCH["examples/fabric/leaf2.capture"] = (
    *(f"losslessd.parse.{p}" for p in ("sonic", "mlx5", "opensm", "nvue", "onyx", "nxos", "junos", "dell_os10",
                                        "dell_os9")), "losslessd.deadlock")
# `tune --help` and `daemon --help` print their options (the tuner's strategies and score weights among them): no
# tuner, renderer, fixer, collector, policy, inventory or settings model, benchmark reader, nor pydantic and PyYAML
# (typer itself imports pydantic only for a value given: cli.main._ValueFirst).
NOT_FOR_GROUP_HELP = ("losslessd.tune.session", "losslessd.tune.store", "losslessd.tune.report",
                      "losslessd.daemon.settings", "losslessd.daemon.service", "losslessd.policy",
                      "losslessd.inventory", "losslessd.docpos", "losslessd.parse", "losslessd.fix", "losslessd.render",
                      "losslessd.collect", "losslessd.sim", "losslessd.history", "netmiko", "napalm", "pysnmp",
                      "asyncssh", "jinja2", "prometheus_client", "pydantic", "yaml")

# A run imports only the rule families of the rules it selects (lint.registry.rules_of): `--select PFC` the PFC
# family alone, `rules PFC001` too; the selection read from the rule index (lint.registry.catalogue).
FAMILIES = sorted(name[:-3] for name in os.listdir(ROOT / "losslessd" / "rules")
                  if name[0] != "_" and name != "common.py")
SELECT_PFC = ["lint", "examples/fabric", "--policy", "roce-dscp26", "--select", "PFC"]
ONLY_FAMILIES = {"rules PFC001": ("pfc",), " ".join(SELECT_PFC): ("pfc",)}

_RUN = """
import json, sys
from losslessd.cli.main import main
sys.argv = ["losslessd", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


@pytest.mark.parametrize(("args", "code"), [(["--help"], 0), (["rules"], 0), (["rules", "PFC001"], 0),
                                            (["lint", "examples/fabric", "--policy", "roce-dscp26"], 1),
                                            (SELECT_PFC, 1),
                                            (["lint", SONIC_ONLY, "--policy", "roce-dscp26"], 1),
                                            *((["lint", path, "--policy", "roce-dscp26"], 0) for path in ONE_SWITCH),
                                            (["tune", "--help"], 0), (["daemon", "--help"], 0)],
                         ids=["help", "rules", "rules-code", "lint-example", "lint-select", "lint-sonic", "lint-nxos",
                              "lint-junos", "lint-os10", "lint-eos", "lint-eos-capture", "tune-help", "daemon-help"])
def test_a_command_imports_only_what_it_needs(args, code):
    proc = subprocess.run([sys.executable, "-c", _RUN, json.dumps(args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == code, proc.stderr  # a lint of the example has findings: 1 (0 would be nothing checked)
    assert proc.stdout.strip()  # the command did its work (help, a rule list, a report)
    if args[0] in ("tune", "daemon"):
        unwanted = NOT_FOR_GROUP_HELP
    else:
        unwanted = NOT_FOR_THESE + {"--help": NOT_FOR_HELP, "rules": NOT_FOR_LIST}.get(" ".join(args), ())
        own = ONLY_FAMILIES.get(" ".join(args))
        unwanted += tuple(f"losslessd.rules.{f}" for f in FAMILIES if own is not None and f not in own)
    if args[0] == "lint":
        unwanted += NOT_FOR_EXAMPLE + (NOT_FOR_SONIC if SONIC_ONLY in args else ()) + ONE_SWITCH.get(args[1], ())
        if args[1] in ONE_SWITCH:  # (a clean one: exit 0 with its device checked, not a file nobody read)
            assert "1 device checked" in proc.stdout, proc.stdout
    # (a name ending in a dot: the package's modules, not the package, whose sniff every lint needs)
    loaded = [m for m in report["modules"]
              if any(m.startswith(p) if p.endswith(".") else m == p or m.startswith(p + ".") for p in unwanted)]
    assert loaded == []
    for family in ONLY_FAMILIES.get(" ".join(args), ()):  # (the rules it runs are imported: a lint of them, not none)
        assert f"losslessd.rules.{family}" in report["modules"]


def test_fix_still_imports_the_renderer_when_asked():
    """The lazy imports are lazy, not missing: `lint --fix` renders snippets."""
    proc = subprocess.run([sys.executable, "-m", "losslessd", "lint", "examples/fabric", "--fix"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "fixes printed" in proc.stdout and "Nothing was sent to any device." in proc.stdout


@pytest.mark.parametrize("args", [["lint", "examples/fabric", "--policy", "roce-dscp26"],
                                  ["lint", "examples/fabric", "--policy", "roce-dscp26", "-f", "json"]],
                         ids=["text", "json"])
def test_a_cached_lint_imports_no_resource_reader_and_no_writer(args, tmp_path):
    """The shipped policies, SKU tables and report schema are files in the package's own folder: found by path
    (resources.data_dir), not through importlib.resources, whose readers (and zipfile) were 12-20 M instructions of
    a lint; and a lint writes nothing and samples no paths of a fabric of its size (rules/pth.py): no tempfile or
    random (15 M); nor hashlib, whose OpenSSL load was 11 M: fingerprints and the caches' keys take CPython's own
    SHA-256 (losslessd.sha). Run twice: the second reads its policy from the cache (policycache), as a lint does from
    then on."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _RUN, json.dumps(args)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 1 and proc.stdout.strip(), proc.stderr
    assert [m for m in report["modules"] if m in ("random", "tempfile", "hashlib", "_hashlib")
            or m.startswith(("importlib.resources", "importlib.readers", "zipfile"))] == []
