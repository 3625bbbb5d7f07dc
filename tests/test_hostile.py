"""Issue 11: every hostile case of tests/hostile.py through the real CLI entry, in one child process with
an address-space limit. Each case must end with a documented exit code, no traceback, no internal error,
no hang, and a message naming the file (and line) and, where a limit stopped it, that limit."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from losslessd import limits
from tests.hostile import ROOT, cases

# The limit each case must run into, as the code states it: the test asserts on the limit the code
# enforces, never on how long a case took.
NESTING = f"nested deeper than {limits.MAX_NESTING} levels"
NODES = f"beyond {limits.MAX_YAML_NODES:,} nodes"
DIGITS = f"at most {limits.MAX_INT_DIGITS} are read"
SIZE = f"{limits.DEFAULT_MAX_FILE_BYTES // limits.MIB} MiB limit"
PORTS = f"{limits.MAX_PORTS:,}"
YAML_SIZE = f"read up to {limits.DEFAULT_MAX_FILE_BYTES // limits.YAML_SHARE // limits.MIB} MiB"
FIFO, CHAR = "not a regular file (a FIFO)", "not a regular file (a character device)"
SOCKET = "not a regular file (a socket)"
LOOP = "symbolic link loop"
LIMIT_SAYS = {
    **{f"{kind}-deep-{form}": NESTING for kind in ("policy", "topology", "pull", "daemon") for form in ("block", "flow")},
    **{f"{kind}-alias-bomb": NODES for kind in ("policy", "topology", "pull", "daemon")},
    "daemon-inventory-bomb": NODES, "fix-topology-bomb": NODES,
    **{f"{kind}-huge-int": DIGITS for kind in ("policy", "topology", "pull", "daemon")},
    "pull-big-yaml": YAML_SIZE, "lint-big-nvue-yaml": YAML_SIZE,
    "policy-huge-file": SIZE, "pull-huge-file": SIZE, "lint-huge-config-db": SIZE, "render-device-huge": SIZE,
    "lint-too-many-ports": PORTS, "lint-too-many-interfaces": PORTS,
    "lint-nxos-range-flood": f"{limits.MAX_EXPANDED_PORTS:,}", "lint-junos-range-flood": f"{limits.MAX_EXPANDED_PORTS:,}",
    "lint-os10-range-flood": f"{limits.MAX_EXPANDED_PORTS:,}",
    "lint-onyx-range-flood": f"{limits.MAX_EXPANDED_PORTS:,}",
    "lint-os9-range-flood": f"{limits.MAX_EXPANDED_PORTS:,}",
    "lint-onyx-too-many-ports": PORTS, "lint-sonic-ports-named-by-keys": PORTS,
    "lint-junos-statement-flood": f"more than {limits.MAX_KEPT_STATEMENTS:,}",
    "lint-sonic-multiport-key-bomb": f"{limits.MAX_EXPANDED_PORTS:,}",
    **{name: FIFO for name in ("policy-fifo", "topology-fifo", "topology-lldp-fifo", "lint-config-db-fifo",
                               "lint-folder-only-fifo", "lint-fifo-path", "lint-manifest-fifo", "lint-baseline-fifo",
                               "pull-fifo", "pull-hosts-file-fifo", "pull-password-file-fifo", "daemon-fifo",
                               "daemon-inventory-fifo", "render-device-fifo", "fix-fifo-folder", "events-db-fifo",
                               "tune-report-db-fifo", "daemon-history-fifo")},
    **{name: CHAR for name in ("policy-dev-zero", "lint-dev-zero", "lint-baseline-dev-zero", "pull-dev-zero",
                               "pull-password-file-dev-zero", "render-device-dev-zero")},
    **{name: SOCKET for name in ("policy-socket", "lint-socket-in-folder", "render-device-socket", "pull-socket")},
    **{name: LOOP for name in ("policy-symlink-loop", "lint-symlink-loop", "lint-symlink-loop-in-folder",
                               "pull-symlink-loop", "daemon-symlink-loop", "render-device-symlink-loop")},
}
NAMES = [c.name for c in cases()]


@pytest.fixture(scope="module")
def outcomes() -> dict:
    """One child runs every case (python -m tests.hostile --json): one interpreter start for all of them."""
    proc = subprocess.run([sys.executable, "-m", "tests.hostile", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    return {o["name"]: o for o in report["outcomes"]} | {"_peak_rss_mib": report["peak_rss_mib"]}


@pytest.mark.parametrize("name", NAMES)
def test_hostile_case(outcomes, name):
    o = outcomes[name]
    assert not o["traceback"], o["output"]
    assert not o["hung"] and not o["memory_error"], o["output"]
    assert o["exit"] != 3, o["output"]  # an internal error is never the answer to bad input
    assert o["ok"], f"{o['problems']}\n{o['output']}"
    if name in LIMIT_SAYS:
        assert LIMIT_SAYS[name] in o["output"], f"the limit is not named ({LIMIT_SAYS[name]!r}):\n{o['output']}"


def test_every_limit_case_exists():
    assert set(LIMIT_SAYS) <= set(NAMES)


def test_hostile_cases_stay_small(outcomes):
    """Every case is refused (or read) within the limits: the whole run of ~100 cases, alias bombs,
    /dev/zero and 600 MB files included, peaks far below what a single unbounded one took (4-9 GB)."""
    assert outcomes["_peak_rss_mib"] < 600, outcomes["_peak_rss_mib"]
