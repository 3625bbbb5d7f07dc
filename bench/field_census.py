"""Field census: which model fields each platform's reader ever fills, from the project's own inputs.

A reader that never fills a field the vendor has syntax for leaves every rule built on it unable to fire (round 19:
802.3x link pause was never read on EOS and NX-OS, so PFC003 was silent there). This parses every input under
tests/realworld, tests/fixtures (raw, golden, census) and examples (no corpus: the table must not change
with what a machine has), records per platform which of the lossless fields below some input sets to a known
value, and prints the platform x field table that docs/platforms.md carries ("Field census"). A field no input sets
must be explained in NOT_READ (the vendor has no syntax for it, or it is a gap left, with the rules that cannot
fire); tests/test_field_census.py fails when the table in the docs, or NOT_READ, is out of step with the readers.

    python bench/field_census.py [--write] [--corpus]   # --write: update docs/platforms.md; --corpus: add the corpus
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.fabric import load_fabric  # noqa: E402
from losslessd.model import Device, Port  # noqa: E402

INPUTS = ("tests/realworld", "tests/fixtures/raw", "tests/fixtures/golden", "tests/fixtures/census", "examples")
CORPUS = ROOT.parent / "shared" / "corpus"
DOC = ROOT / "docs" / "platforms.md"
BEGIN, END = "<!-- field-census begin -->", "<!-- field-census end -->"

# Column order and short names (the platform ids are in losslessd.platforms).
COLUMNS = {"sonic": "SONiC", "nvidia_cumulus": "NVUE", "arista_eos": "EOS", "cisco_nxos": "NX-OS",
           "juniper_junos": "Junos", "dell_os10": "OS10", "dell_os9": "OS9", "nvidia_onyx": "Onyx",
           "linux_mlx5": "mlx5 host", "opensm": "OpenSM"}


def _ports(test: Callable[[Device, Port], bool]) -> Callable[[Device], bool]:
    return lambda device: any(test(device, port) for port in device.ports.values())


def _headroom(device: Device, port: Port) -> bool:
    """A PG of the port has a known headroom: its profile's xoff (or size), or the NIC's own buffer size."""
    for pg in port.priority_groups.values():
        profile = device.buffer_profiles.get(pg.profile or "")
        sizes = (profile.xoff_bytes, profile.size_bytes) if profile is not None else (None, None)
        if pg.size_bytes is not None or sizes != (None, None):
            return True
    return False


def _queues(test: Callable[..., bool]) -> Callable[[Device, Port], bool]:
    return lambda _device, port: any(test(q) for q in port.queues.values())


# field, in the field's words -> (whether a device sets it, the rule codes that need it)
FIELDS: dict[str, tuple[Callable[[Device], bool], str]] = {
    "trust": (_ports(lambda d, p: p.trust is not None), "MAP002 MAP003 PFC006 PTH001 PTH002"),
    "DSCP/PCP -> TC": (_ports(lambda d, p: bool(p.dscp_to_tc or p.pcp_to_tc or p.dscp_to_priority)),
                       "MAP001 MAP002 SCH001 PTH001 PFC005"),
    "TC -> PFC priority": (_ports(lambda d, p: bool(p.tc_to_priority or p.priority_to_tc or p.dscp_to_priority)),
                           "MAP004 MAP005"),
    "TC -> PG": (_ports(lambda d, p: bool(p.tc_to_pg or p.priority_to_pg)), "MAP005 BUF003"),
    "TC -> queue": (_ports(lambda d, p: bool(p.tc_to_queue)), "MAP004 SCH001 WDG004"),
    "PFC priorities": (_ports(lambda d, p: p.pfc_enabled is not None),
                       "PFC001 PFC002 LNK001 LNK005 WDG003 DLK003 NIC001"),
    "802.3x link pause": (_ports(lambda d, p: p.link_pause is not None), "PFC003 NIC005"),
    "ECN thresholds": (_ports(_queues(lambda q: q.ecn is not None and q.ecn.min_threshold_bytes is not None)),
                       "ECN001 ECN002 ECN003 ECN004"),
    "ECN on/off": (_ports(_queues(lambda q: q.ecn is not None and q.ecn.ecn_enabled is not None)), "ECN001 NIC004"),
    "scheduler": (_ports(_queues(lambda q: q.scheduler is not None and q.scheduler.type is not None)),
                  "SCH001 MAP002"),
    "PG headroom (xoff)": (_ports(_headroom), "BUF001 BUF002 BUF003 ECN004"),
    "PFC watchdog": (_ports(lambda d, p: p.watchdog is not None and p.watchdog.enabled is not None),
                     "WDG001 WDG002 WDG003 WDG004"),
    "MTU": (_ports(lambda d, p: p.mtu_bytes is not None), "LNK002 PTH003 BUF002 ECN002"),
    "speed": (_ports(lambda d, p: p.speed_gbps is not None), "LNK003 BUF002 ECN004"),
    "cable length": (_ports(lambda d, p: p.cable_length_m is not None), "BUF002 BUF003"),
    "admin state": (_ports(lambda d, p: p.admin_up is not None), "PFC005 PFC007"),
    "VLANs": (_ports(lambda d, p: p.vlans is not None), "DLK003"),
    "bundle (LAG)": (_ports(lambda d, p: p.bundle is not None), "DLK003 PFC005 PFC007"),
    "CNP DSCP/priority": (_ports(lambda d, p: p.nic_ecn is not None and p.nic_ecn.cnp_dscp is not None),
                          "NIC003 NIC007 LNK004"),
    "SL -> VL QoS": (lambda d: d.opensm is not None and bool(d.opensm.qos_sets), "IBS001 IBS002"),
}

_SWITCHES = ("sonic", "nvidia_cumulus", "arista_eos", "cisco_nxos", "juniper_junos", "dell_os10", "dell_os9",
             "nvidia_onyx")
_HOST_ONLY = ("CNP DSCP/priority",)
_SM_ONLY = ("SL -> VL QoS",)

# Why a field no input sets is not read: "unknown" (not in the platform's configuration: the rules say they cannot
# tell), "gap" (the vendor has syntax a reader does not read yet: the rules named cannot fire there), "n/a" (the
# platform has no such thing). Each reason names its source, as docs/platforms.md does.
NOT_READ: dict[tuple[str, str], tuple[str, str]] = {
    **{(p, "CNP DSCP/priority"): ("n/a", "a switch forwards CNPs; the NIC writes their DSCP") for p in _SWITCHES},
    **{(p, f): ("n/a", "a subnet manager has no Ethernet ports") for f in FIELDS if f not in _SM_ONLY
       for p in ("opensm",)},
    **{(p, "SL -> VL QoS"): ("n/a", "InfiniBand subnet managers only") for p in (*_SWITCHES, "linux_mlx5")},
    # A host's NIC: the switch-port rules (queues, watchdog, admin state, VLAN flooding, LAG) do not apply to it.
    **{("linux_mlx5", f): ("n/a", "switch-port rules only") for f in
       ("TC -> queue", "ECN thresholds", "ECN on/off", "PFC watchdog", "admin state", "VLANs", "bundle (LAG)")},
    # Link pause: read on the CLI platforms since session 40; what is left is named, not guessed.
    # sonic-swss (e6b0c5b5, 2026-08) sets SAI_PORT_ATTR_GLOBAL_FLOW_CONTROL_MODE nowhere (orchagent, cfgmgr,
    # portsyncd): no CONFIG_DB field reaches it. SAI saiport.h gives its default (SAI_PORT_FLOW_CONTROL_MODE_DISABLE),
    # but what the vendor SAI and its init files (config.bcm, SAI profile) start the port with is not in CONFIG_DB.
    ("sonic", "802.3x link pause"): ("unknown", "no CONFIG_DB field: sonic-swss never sets the SAI port's global "
                                               "flow control, the vendor SAI and its init files decide (PFC003 and "
                                               "NIC005 silent on SONiC)"),
    ("arista_eos", "PG headroom (xoff)"): ("unknown", "EOS sizes headroom itself; no PG buffer command in the EOS "
                                                      "guides read (BUF003 unverified)"),
    ("arista_eos", "cable length"): ("unknown", "no cable-length command in the EOS guides read"),
    ("cisco_nxos", "cable length"): ("unknown", "NX-OS states headroom itself (`pause buffer-size`), no cable length"),
    ("juniper_junos", "ECN thresholds"): ("unknown", "drop-profile fill levels are percent of a queue buffer the "
                                                     "config does not size (kept unconverted; ECN rules say so)"),
    ("juniper_junos", "PG headroom (xoff)"): ("unknown", "QFX has no priority-group configuration: headroom comes "
                                                         "from the shared buffer's lossless-headroom partition"),
    ("dell_os10", "PFC watchdog"): ("unknown", "the OS10 guides searched document no PFC watchdog (WDG001 info)"),
    ("dell_os10", "cable length"): ("unknown", "not in an OS10 config; `pause buffer-size` states the headroom"),
    ("dell_os9", "TC -> queue"): ("unknown", "OS9's dot1p -> queue table differs by model (`show qos "
                                             "dot1p-queue-mapping`, not in a config): MAP004, WDG004 unverified"),
    ("dell_os9", "ECN thresholds"): ("unknown", "with no known queue per class, a WRED/ECN profile cannot be placed"),
    ("dell_os9", "ECN on/off"): ("unknown", "as ECN thresholds"),
    ("dell_os9", "scheduler"): ("unknown", "a dcb-map's ETS bandwidth is per priority group, not per queue"),
    ("dell_os9", "PG headroom (xoff)"): ("unknown", "each PFC priority's lossless buffer is the switch's own"),
    ("dell_os9", "PFC watchdog"): ("unknown", "the OS9 guides searched document no PFC watchdog"),
    ("dell_os9", "cable length"): ("unknown", "no cable-length command in the OS9 guides read"),
    ("nvidia_onyx", "TC -> PG"): ("gap", "`interface ethernet 1/1 ingress-buffer iPort.pg3 bind switch-priority 3` "
                                         "(advanced buffer mode; NVIDIA's DSCP-based lossless RoCE guide, advanced "
                                         "mode, as a lab README quotes it) is a SYS002: what a switch priority no "
                                         "line binds goes to, and whether the lines apply outside advanced mode, are "
                                         "in no source read; MAP001 and BUF003 stop at the PG"),
    ("nvidia_onyx", "PG headroom (xoff)"): ("gap", "`ingress-buffer iPort.pgN map pool P type lossless reserved R "
                                                   "xoff X xon Y` is a SYS002: its units and what `xoff` measures are "
                                                   "not in a source read (BUF001-003 unverified)"),
    ("nvidia_onyx", "PFC watchdog"): ("unknown", "no watchdog command in the Onyx pages read; `pfc-wd` lines are a "
                                                 "SYS002"),
    ("nvidia_onyx", "cable length"): ("unknown", "no cable-length command in the Onyx pages read"),
}


# Cells a session found unread and fixed: shown as "fixed" while an input shows them read.
FIXED: dict[tuple[str, str], str] = {
    ("dell_os9", "speed"): "a port's `speed N` (Mb/s) line (10, 100, 1000, 10000 or the speed the port's type "
                           "names, as the OS9 guides list them; another value is SYS002 and the speed unknown), else "
                           "its type's speed (twentyFiveGigE, fortyGigE, hundredGigE) is read (session 40); "
                           "TenGigabitEthernet without a line may be Base-T and negotiate: unknown. Before, LNK003 "
                           "could not fire on OS9",
    ("nvidia_cumulus", "VLANs"): "bridge ports' VLANs (`interface <id> bridge domain <d> vlan|untagged|access`, "
                                 "the bridge's `vlan` and `untagged`, a bond's for its members) and routed ports (`ip "
                                 "address`, or a BGP neighbor named by the port: unnumbered, no bridge) are read "
                                 "(sessions 40, 41): before, DLK003 could not fire on NVUE",
    ("dell_os9", "MTU"): "the link `mtu` is read (session 40): 9.2(0.2) and later take no `ip mtu`, so before it "
                         "no port of such a config had an MTU (LNK002, PTH003 silent); IP MTU = link MTU - 18 routed, "
                         "- 22 on a lite subinterface, unknown on a switched port",
}


def inputs(corpus: bool) -> list[Path]:
    roots = [ROOT / part for part in INPUTS]
    found = [sub for root in roots for sub in sorted(root.iterdir()) if sub.is_dir()]
    return found + ([CORPUS] if corpus and CORPUS.is_dir() else [])


def census(folders: Iterable[Path]) -> dict[str, set[str]]:
    """Platform -> the FIELDS some device read from ``folders`` sets."""
    read: dict[str, set[str]] = {platform: set() for platform in COLUMNS}
    for folder in folders:
        for device in load_fabric([folder]).devices.values():
            read[device.platform].update(name for name, (test, _) in FIELDS.items() if test(device))
    return read


def cell(read: dict[str, set[str]], platform: str, field: str) -> str:
    if field in read[platform]:
        return "fixed" if (platform, field) in FIXED else "read"
    status = NOT_READ.get((platform, field))
    return status[0] if status else "**unexplained**"


def table(read: dict[str, set[str]]) -> str:
    head = "| field | rules | " + " | ".join(COLUMNS.values()) + " |"
    rule = "|---|---|" + "---|" * len(COLUMNS)
    rows = [f"| {field} | {codes} | " + " | ".join(cell(read, p, field) for p in COLUMNS) + " |"
            for field, (_, codes) in FIELDS.items()]
    notes = [f"- {COLUMNS[p]}, {field} ({status}): {why}" for (p, field), (status, why) in NOT_READ.items()
             if status != "n/a"] + [f"- {COLUMNS[p]}, {field} (fixed): {why}" for (p, field), why in FIXED.items()]
    return "\n".join([head, rule, *rows, "", *notes])


def stale(read: dict[str, set[str]]) -> list[str]:
    """NOT_READ entries for cells some input now sets, and cells no input sets that NOT_READ does not explain."""
    return ([f"{p} {f}: no such census field or platform (FIELDS, COLUMNS)" for (p, f) in (*NOT_READ, *FIXED)
             if p not in COLUMNS or f not in FIELDS]
            + [f"{p} {f}: read now, drop it from NOT_READ" for (p, f) in NOT_READ if f in read.get(p, ())]
            + [f"{p} {f}: fixed, yet no input sets it" for (p, f) in FIXED if p in read and f not in read[p]]
            + [f"{p} {f}: no input sets it; read it, or explain it in NOT_READ" for p in COLUMNS for f in FIELDS
               if f not in read[p] and (p, f) not in NOT_READ])


def in_doc(text: str, generated: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + generated + "\n" + text[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="update the table in docs/platforms.md")
    parser.add_argument("--corpus", action="store_true", help="also read /work/shared/corpus (not for --write)")
    args = parser.parse_args()
    read = census(inputs(args.corpus))
    generated = table(read)
    if args.write and not args.corpus:
        DOC.write_text(in_doc(DOC.read_text(encoding="utf-8"), generated), encoding="utf-8")
    print(generated)
    for line in stale(read):
        print("STALE:", line, file=sys.stderr)
    return 1 if stale(read) else 0


if __name__ == "__main__":
    raise SystemExit(main())
