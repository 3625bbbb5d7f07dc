"""SONiC CONFIG_DB (config_db.json, qos.json + buffers.json, `show runningconfiguration all`) -> Device.

A losslessd capture (docs/capture-format.md) holding `show runningconfiguration all` is read too;
findings then point at lines of the capture.

Table and field meanings follow sonic-buildimage src/sonic-yang-models/doc/Configuration.md and the
daemons that consume them (sonic-swss orchagent/qosorch.cpp, bufferorch.cpp, cfgmgr/buffermgr.cpp).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import repeat
from operator import attrgetter, eq
from pathlib import PurePath
from typing import TypeVar

from ... import capture, skutables
from ...errors import InputError
from ...lazyre import lazy
from ...limits import MAX_EXPANDED_PORTS, MAX_PORTS
from ...model import (
    BufferPool,
    BufferProfile,
    Device,
    DeviceKind,
    Ecn,
    Neighbor,
    ParseIssue,
    Port,
    Scheduler,
    SchedulerType,
    Source,
    Trust,
    Watchdog,
    shared_port,
    watchdog_of,
)
from ...sorting import natural_key
from ...units import MAX_CABLE_M, UnknownUnit, cable_m, decimal, is_digits, is_small_int, speed_gbps, to_ms, whole
from ..base import Input, check_port_count
from . import buffermgrd, converter
from .configdb import (
    NAMESPACE,
    ConfigDB,
    Entry,
    entry_maker,
    is_sku_template,
    listed,
    mentions_table,
    split_namespaces,
)

PLATFORM = "sonic"
T = TypeVar("T")
# sonic-utilities show/main.py: prints the running CONFIG_DB as JSON; what `pull` runs on SONiC.
RUNNING_CONFIG = "show runningconfiguration all"

# Sanity bound for queue, PG, TC and DSCP numbers (DSCP is 6 bits; ASICs have far fewer queues/PGs).
_MAX_INDEX = 63
# The largest key and value of each map table (sonic-buildimage yang-models: sonic-dscp-tc-map.yang DSCP 0-63 to
# tc_type, which sonic-types.yang.j2 makes 0-15; sonic-tc-priority-group-map.yang PG "[0-7]"; sonic-tc-queue-map.yang
# qindex "[0-9]"; sonic-pfc-priority-queue-map.yang priority and qindex "[0-7]"; sonic-tc-dscp-map.yang DSCP 0-63;
# sonic-pfc-priority-priority-group-map.yang pfc_priority and pg "[0-7]?"; sonic-dot1p-tc-map.yang dot1p "[0-7]?" to
# tc_type).
# BUFFER_PG and BUFFER_QUEUE keys: sonic-buffer-pg.yang pg_num "[0-7]((-)[0-7])?", sonic-buffer-queue.yang qindex
# "(1[0-5]|[0-9])((-)(1[0-5]|[0-9]))?" (QUEUE keys depend on the platform: the CPU port has 48; kept 0-63).
_MAX_PG, _MAX_BUFFER_QUEUE = 7, 15
# A key or value shown in a message up to here: `Ethernet0,...,Ethernet19999|0-7` is one key of 240 KB, and each
# message that quoted it whole made a report of a megabyte.
_SHOWN = 80
# A map entry's unreadable keys said one by one up to here, then counted: 100,000 of them made 100,000 findings (16 MB).
_MAP_ISSUES = 8
_MAP_BOUNDS = {"DSCP_TO_TC_MAP": (63, 15), "DOT1P_TO_TC_MAP": (7, 15), "TC_TO_PRIORITY_GROUP_MAP": (15, 7),
               "TC_TO_QUEUE_MAP": (15, 9), "MAP_PFC_PRIORITY_TO_QUEUE": (7, 7), "TC_TO_DSCP_MAP": (15, 63),
               "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": (7, 7)}
_SCHEDULER_TYPES = {"STRICT": SchedulerType.strict, "DWRR": SchedulerType.dwrr, "WRR": SchedulerType.wrr}
# WRED_PROFILE.ecn modes that mark green packets (qosorch.cpp ecn_map -> SAI_ECN_MARK_MODE_*).
_ECN_MARKS_GREEN = {"ecn_green", "ecn_green_yellow", "ecn_green_red", "ecn_all"}
_ECN_MODES = {m: m for m in sorted(_ECN_MARKS_GREEN | {"ecn_none", "ecn_yellow", "ecn_red", "ecn_yellow_red"})}
# The fields orchagent takes in these tables (sonic-swss orchagent/qosorch.h field names; qosorch.cpp
# WredMapHandler::convertFieldValuesToAttributes "Unknown wred profile field", QosOrch::handleSchedulerTable "Unknown
# field"), each with how it is read: std::stoi (int) or std::stoull (unsigned long long), or one of a few words
# (ecn_map.at, scheduler_meter_map.at, WredMapHandler::convertBool, the scheduler types). An entry with another field,
# or a value its reader throws on or does not take, is never created: refused (task_invalid_entry), or left pending
# after Consumer::drain catches the exception; a QUEUE entry naming it is retried and never applied
# (handleQueueTable: task_need_retry), neither its scheduler nor its WRED profile.
_ORCH_FIELDS: dict[str, dict[str, tuple]] = {
    "WRED_PROFILE": {**{f"{c}_{w}": (-2**31, 2**31 - 1) for c in ("green", "yellow", "red")
                        for w in ("min_threshold", "max_threshold", "drop_probability")},
                     **{f"wred_{c}_enable": ("true", "false") for c in ("green", "yellow", "red")},
                     "ecn": tuple(_ECN_MODES)},
    "SCHEDULER": {"type": tuple(_SCHEDULER_TYPES), "weight": (-2**31, 2**31 - 1), "meter_type": ("packets", "bytes"),
                  **{f: (-(2**64 - 1), 2**64 - 1) for f in ("cir", "cbs", "pir", "pbs")}},
}
# Fields orchagent takes on some releases and refuses on others (an unknown field was refused by every release,
# sonic-swss 5c3dfebb qosorch.cpp "Unknown field" and "Unknown wred profile field"): a queue naming such an entry gets
# settings the switch's release decides, read as unknown, not as unset, unless the config's own db_migrator version
# (VERSIONS|DATABASE, below) is one of the releases that take it. Each: (the releases, in words; the first version
# that takes it, the first that may not, either None).
_ORCH_SOME_RELEASES: dict[str, dict[str, tuple[str, tuple[int, ...] | None, tuple[int, ...] | None]]] = {
    "SCHEDULER": {
        # handleSchedulerTable ignored `priority` (scheduler_priority_field_name, "SAI model does not provide such
        # ability") up to the 202205 branch; sonic-swss a01470f8 (pull request 2622, January 2023; 202211 on) removed
        # it. sonic-utilities 48ee7722 (November 2022, before it) made db_migrator's version 4_0_0.
        "priority": ("which orchagent ignores up to SONiC 202205 and refuses from 202211 on", (0,), (4, 0, 0)),
        # sonic-swss cadc5bd8 (pull request 991, July 2019) added cir/cbs/pir/pbs: the 201811 branch's
        # handleSchedulerTable refuses them ("Unknown field"), 201911 takes them; db_migrator's version_1_0_2
        # (sonic-utilities be337d4f, November 2019) came after it.
        **{f: ("which orchagent refuses up to SONiC 201811 and takes from 201911 on", (1, 0, 2), None)
           for f in ("cir", "cbs", "pir", "pbs")},
        # sonic-swss 9b018449 (pull request 1296, July 2020) added meter_type: 201911 refuses it, 202012 takes it;
        # db_migrator's version_2_0_0 (sonic-utilities 394b2021, December 2020) came after it.
        "meter_type": ("which orchagent refuses up to SONiC 201911 and takes from 202012 on", (2, 0, 0), None)},
    # sonic-swss pull request 4719 (open; head 7a65c646) adds `{color}_ect_*` to WredMapHandler, named
    # `ecn_{color}_*` before its 3e1bfe26 (and still in sonic-buildimage pull request 28164's YANG model).
    "WRED_PROFILE": {name: ("which no SONiC release takes yet (sonic-swss pull request 4719 adds it)", None, None)
                     for c in ("green", "yellow", "red") for w in ("min_threshold", "max_threshold", "mark_probability")
                     for name in (f"{c}_ect_{w}", f"ecn_{c}_{w}")},
}
# sonic-utilities scripts/db_migrator.py writes its version to VERSIONS|DATABASE VERSION (`version_1_0_1` on the
# 201811 branch, `version_1_0_6` on 201911, `version_2_0_2` on 202012, `version_3_0_7` on 202205, `version_4_0_3` on
# 202211, then `version_202305_01` on): numbers compared in turn.
# PORT pfc_asym (sonic-swss portsorch.cpp pfc_asym_map, setPortPfcAsym): "on" sets SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_
# MODE to SEPARATE, PFC TX to pfc_enable's priorities and PFC RX to 0xff (every priority obeys a received pause); "off"
# is the combined mode, PFC on pfc_enable's priorities both ways.
_PFC_ASYM = {"on": True, "off": False}
# References written `[TABLE|name]`: sonic-swss a3fdaf41c/da49332b8 (pull request 1754 and its follow-up, September
# 2021; the 202111 branch on) made orch.cpp parseReference refuse them ("Must not be surrounded by [ ]"); up to the
# 202106 branch it required them. sonic-utilities db_migrator's version_2_0_2 -> 2_0_3 step on the 202111 branch
# (migrate_qos_fieldval_reference_format) rewrites them, so a CONFIG_DB of version_2_0_3 on holds names alone.
_BRACKETED_REFS: tuple[tuple[int, ...], tuple[int, ...]] = ((0,), (2, 0, 3))
# From sonic-swss 2cab51d11 (pull request 1338, December 2020; the 202012 branch from its start) to a3fdaf41c (pull
# request 1754, 202111), buffermgrd copies the buffer tables from CONFIG_DB to APPL_DB, rewriting each reference of a
# `pool`, `profile` or `profile_list` field (cfgmgr/buffermgr.cpp and buffermgrdyn.cpp transformReference: each
# ','-separated item split on '|', `_TABLE` put after the first piece, the pieces joined by ':'), so
# `[BUFFER_PROFILE|a]` reaches bufferorch as `[BUFFER_PROFILE_TABLE:a]` and `[BUFFER_PROFILE:a]` as
# `[BUFFER_PROFILE:a]_TABLE`, which orch.cpp parseReference refuses ("Must be surrounded by [ ]"; an item holding both
# separators splits into three). Up to 201911 orchagent reads CONFIG_DB's buffer tables itself and takes either
# separator. db_migrator versions 2_0_0 to 2_0_2 are 202012's and 202106's.
_BUFFERMGRD_REWRITES: tuple[tuple[int, ...], tuple[int, ...]] = ((2, 0, 0), (2, 0, 3))
_REWRITTEN_TABLES = frozenset({"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE",
                               "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"})
# The priorities a port's PFC watchdog watches (pfcwdorch.cpp getLosslessTcsForPort, "No lossless TC" on a mask of 0):
# up to the 202111 branch the port's PFC bits (getPortPfc: pfc_enable; pfcwd_sw_enable is no field orchagent reads);
# since sonic-swss 5329c3927 (pull request 2171, April 2022, in the 202205 branch from its start) the mask
# handlePortQosMapTable saves from the entry's pfcwd_sw_enable on every entry, 0 where it writes none (port.h
# m_pfcwd_sw_bitmask = 0), as on the 202012 branch since eef993fe9 (pull request 2302, June 2022). db_migrator versions
# (sonic-utilities scripts/db_migrator.py CURRENT_VERSION): the 202205 branch goes from 2_0_2 to 3_0_0; 202111 writes
# 2_0_3 and 2_0_4; 202012 (13672175) and 202106 (a7489b08) both write 2_0_2, and 202012 builds before eef993fe9 read
# pfc_enable, so 2_0_0 to 2_0_2 do not say which.
_WD_MASK_SINCE: tuple[int, ...] = (3, 0, 0)
_WD_EITHER: tuple[tuple[int, ...], tuple[int, ...]] = ((2, 0, 0), (2, 0, 3))
_WD_READS = ("SONiC 202205 on (and 202012's last builds) watch the priorities the port's PORT_QOS_MAP pfcwd_sw_enable "
             "lists, none where it lists none, and 202111 and before its pfc_enable priorities")
# The reference fields of a PORT_QOS_MAP entry orchagent resolves, any one unresolved retrying the whole entry (its maps
# and pfc_enable never applied): sonic-swss qosorch.cpp qos_to_attr_map / handlePortQosMapTable (202111 and e6b0c5b5d,
# which adds tc_to_dot1p_map and tc_to_dscp_map).
_PORT_QOS_REFS = ("dscp_to_tc_map", "mpls_tc_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map", "tc_to_dot1p_map",
                  "tc_to_dscp_map", "tc_to_pg_map", "pfc_to_pg_map", "pfc_to_queue_map", "scheduler", "dscp_to_fc_map",
                  "exp_to_fc_map")


def _bracketed_ref(raw: str) -> tuple[str, str] | None:
    """'[TABLE|name]' or '[TABLE:name]' -> (TABLE, name), split as orch.cpp parseReference splits it up to 202106: on
    ':' into exactly two tokens, else on '|' into exactly two; None where neither does (a malformed reference)."""
    inner = raw[1:-1]
    for sep in (":", "|"):
        parts = inner.split(sep)
        if len(parts) == 2:
            return parts[0], parts[1]
    return None


# How the note on names alone read without a release begins: said once per switch (_merge_namespaces).
_NO_RELEASE = "this input names no SONiC release losslessd reads (VERSIONS|DATABASE VERSION)"
_SAY_RELEASE = (" (a config saved on the switch names its release: VERSIONS|DATABASE VERSION, which db_migrator "
                "writes, settles it)")
# ([0-9], not \d: \d takes other scripts' digits, which int() reads: an Arabic-Indic 2 settled the release)
_DB_VERSION = lazy(r"version_([0-9]{1,6}(?:_[0-9]{1,6}){1,3})")


def _db_version_of(value: object) -> str | None:
    """A VERSIONS|DATABASE VERSION value as the db_migrator version losslessd reads, else None."""
    m = _DB_VERSION.fullmatch(str(value)) if value is not None else None
    return m.group(0) if m else None


def _version_takes(version_text: str | None, since: tuple[int, ...] | None,
                   before: tuple[int, ...] | None) -> bool | None:
    """Whether db_migrator version ``version_text`` is one of the releases from ``since`` up to ``before``: None where
    no version is read or ``since`` is None (no release takes it yet)."""
    if since is None or version_text is None:
        return None
    version = tuple(int(n) for n in version_text.removeprefix("version_").split("_"))
    return since <= version and (before is None or version < before)


def takes_bracketed_refs(config: dict) -> bool | None:
    """Whether a CONFIG_DB (as JSON: {TABLE: {key: fields}}) names a release whose orchagent takes references only as
    `[TABLE|name]` (VERSIONS|DATABASE VERSION below version_2_0_3: 202106 and before, _BRACKETED_REFS); False where
    it names a later one, None where it names none losslessd reads."""
    versions = config.get("VERSIONS")
    database = versions.get("DATABASE") if isinstance(versions, dict) else None
    version = database.get("VERSION") if isinstance(database, dict) else None
    return _version_takes(_db_version_of(version), *_BRACKETED_REFS)


def _sto_reads(text: str, low: int, high: int) -> bool:
    """Whether std::stoi (``low``, ``high``: int's range) or std::stoull (the negated ULLONG_MAX up: it wraps a
    negative) reads a number from ``text`` without throwing (invalid_argument: no digits; out_of_range: past it)."""
    m = _STOI.match(text)  # (stoull reads a sign and decimal digits as stoi does)
    digits = m.group(2).lstrip("0") or "0" if m else ""
    return m is not None and len(digits) <= 20 and low <= int(m.group(1) + digits) <= high


_ABSENT = object()
# A queue's scheduler or ECN that two keys set differently (see _overlaps): not known, as when its table is absent.
_UNKNOWN_SCHEDULER, _UNKNOWN_ECN = Scheduler(), Ecn()
# A CONFIG_DB part (no PORT or DEVICE_METADATA table: a file for `config load` / `sonic-cfggen --write-to-db`) is
# merged into the switch's CONFIG_DB: sonic-swss-common configdb mod_config keeps the entries and fields the data
# leaves out. A table it lacks is the switch's, not empty.
_PART_ECN = Ecn(unapplied="the input is a CONFIG_DB part without a QUEUE table, and loading a part keeps the switch's "
                "own QUEUE entries (sonic-swss-common configdb mod_config); lint the whole CONFIG_DB")
# A part's refused PFC_WD entry: loading it merges its fields into the switch's own PFC_WD|<port> (sonic-swss-common
# configdb.cpp mod_config: HSET, "Extra entries/fields in the db which are not in the data are kept"), and orchagent
# refusing an entry returns before startWdOnPort / stopWdOnPort (pfcwdorch.cpp createEntry): the watchdog the switch
# runs, if any, runs on.
_PART_WD = ("the port keeps whatever watchdog the switch runs: the input is a CONFIG_DB part, whose fields "
            "loading merges into the switch's own PFC_WD entry (sonic-swss-common configdb mod_config), and a "
            "refused entry stops none")
# The priorities a part's watchdog watches where the part writes no pfcwd_sw_enable for the port: qosorch.cpp
# handlePortQosMapTable sets the port's watchdog mask from the entry's pfcwd_sw_enable, and loading a part merges its
# fields into the switch's own PORT_QOS_MAP entry (configdb mod_config), whose pfcwd_sw_enable stays.
_PART_WD_PRIORITIES = ("the input is a CONFIG_DB part that writes no pfcwd_sw_enable for the port (or none orchagent "
                       "applies), and loading a part keeps the switch's own (sonic-swss-common configdb mod_config), "
                       "which sets the priorities the watchdog watches; lint the whole CONFIG_DB, or write "
                       "pfcwd_sw_enable")
# Why a whole CONFIG_DB's watched priorities are unknown where its release does not settle them (_WD_MASK_SINCE).
_WD_NO_RELEASE = ("the input names no SONiC release losslessd reads (VERSIONS|DATABASE VERSION, which db_migrator "
                  f"writes in a config saved on the switch), and {_WD_READS}")
_WD_EITHER_RELEASE = (f"its db_migrator version (2_0_0 to 2_0_2) is SONiC 202012's or 202106's, and {_WD_READS}; "
                      "write pfcwd_sw_enable as pfc_enable, so both read the same")
# sonic-swss orchagent/pfcwdorch.cpp getLosslessTcsForPort: PFC-enabled priority i is lossless traffic class i.
_TC_PRIORITY = {tc: tc for tc in range(8)}
_OPEN_BRACE = lazy(r"\s*\{")
# A key of at least three '|' (a VOQ system port's QUEUE|<host>|<asic>|<port>|<q>), in keys joined by newlines.
_THREE_BARS = lazy(r"\|[^|\n]*\|[^|\n]*\|")
# /etc/sonic on a multi-ASIC device: config_db<N>.json is namespace asic<N> (sonic-py-common multi_asic).
_NAMESPACE_FILE = lazy(r"config_db(\d{1,3})\.json")

# PFC watchdog (sonic-utilities pfcwd/main.py): `pfcwd start_default` multiplies the defaults
# (DEFAULT_DETECTION_TIME = DEFAULT_RESTORATION_TIME = DEFAULT_POLL_INTERVAL = 200 ms) by
# multiply = max(1, (port_num - 1) // DEFAULT_PORT_NUM + 1), DEFAULT_PORT_NUM = 32, port_num = the PORT
# table's size, and caps the poll interval at MAX_POLL_INTERVAL_TIME = 1000 ms; its action is 'drop'.
WD_DEFAULT_MS, WD_PORTS_PER_STEP, WD_MAX_POLL_MS = 200, 32, 1000
# No PFC_WD|GLOBAL POLL_INTERVAL: orchagent polls the watchdog counters every PFC_WD_POLL_MSECS = 100 ms
# (sonic-swss orchagent/orchdaemon.cpp) until `pfcwd interval` or start_default writes one.
WD_POLL_WITHOUT_GLOBAL_MS = 100
# PFC_WD action words (sonic-swss orchagent/pfcwdorch.cpp deserializeAction; drop when absent): `alert`
# forwards the stormed queue's packets and only raises an alarm.
_WD_ACTIONS = {"drop": "drop", "forward": "forward", "alert": "notify-only"}
_WD_DEFAULT_ACTION = "drop"
# pfcwdorch.h timer limits in ms (PFC_WD_DETECTION_TIME_MIN/MAX, PFC_WD_RESTORATION_TIME_MIN/MAX; getTimerRange is
# not overridden at sonic-swss e6b0c5b5d2ab): createEntry refuses a PFC_WD entry whose timer lies outside them.
_WD_TIMER_RANGES_MS = {"detection_time": (100, 5000), "restoration_time": (100, 60000)}
# PORT role of smart-switch DPU-facing ports: qos_config.j2 binds them to tc_to_pg_map AZURE_DPC (every TC to
# lossy PG 0 but 7) and writes no pfc_enable (sonic-buildimage files/build_templates/qos_config.j2, PORT_DPC).
_DPC_ROLE = "Dpc"


def sniff(inp: Input) -> bool:
    """A SONiC capture, a JSON object that uses a CONFIG_DB table name as a key, or a SKU template (refused by its
    parse as what it is: configdb._template)."""
    if capture.is_capture(inp.text):
        return capture.sniff_platform(inp.text) == PLATFORM
    return _OPEN_BRACE.match(inp.text) is not None and (mentions_table(inp.text) or is_sku_template(inp.text))


# The other SONiC redis databases, as `redis-dump` or sonic-utilities' mock tables write them, told by their keys
# (sonic-swss doc/swss-schema.md: APPL_DB keys "PORT_TABLE:ifname"; syncd's COUNTERS_DB "COUNTERS:oid:0x..." with
# COUNTERS_PORT_NAME_MAP, and ASIC_DB "ASIC_STATE:SAI_OBJECT_TYPE_..."): the first key of its kind names the database.
_OTHER_DBS = (
    ("COUNTERS_DB", "counters, which the daemon polls itself",
     lazy(r'"(?:COUNTERS:oid:[^"]*|COUNTERS_(?:PORT|QUEUE|PG)_NAME_MAP)"\s*:\s*\{')),
    ("ASIC_DB", "the SAI objects syncd created", lazy(r'"ASIC_STATE:SAI_OBJECT_TYPE_[^"]*"\s*:\s*\{')),
    ("APPL_DB", "what orchagent was told", lazy(r'"[A-Z][A-Z0-9_]*_TABLE:[^"]*"\s*:\s*\{')),
)


# A multi-ASIC dump whose namespaces hold no table (`{"localhost": {}, "asic0": {}}`: sonic-utilities
# tests/config_save_output/all_config_db.json, what `config save` writes of a multi-ASIC switch with empty namespaces).
_EMPTY_NAMESPACE = rf'"(?:{NAMESPACE})"\s*:\s*\{{\s*\}}'
_EMPTY_NAMESPACES = lazy(rf"\A\s*\{{\s*{_EMPTY_NAMESPACE}(?:\s*,\s*{_EMPTY_NAMESPACE})*\s*\}}\s*\Z")


def other_database(inp: Input) -> None:
    """A JSON dump of another SONiC database than CONFIG_DB (no table of it this parser reads), or a multi-ASIC dump of
    empty namespaces: raise InputError saying which, rather than "cannot tell which platform"."""
    if not _OPEN_BRACE.match(inp.text) or mentions_table(inp.text):
        return
    if _EMPTY_NAMESPACES.match(inp.text):
        raise InputError("a SONiC multi-ASIC CONFIG_DB dump whose namespaces (localhost, asicN) hold no table: nothing "
                         "to read (a `config save` or `show runningconfiguration all` taken before the configuration "
                         "was loaded?)", file=inp.path, line=1)
    for db, holds, pattern in _OTHER_DBS:
        if (m := pattern.search(inp.text)) is not None:
            raise InputError(f"a SONiC {db} dump ({holds}), not its CONFIG_DB: lint reads the switch's configuration "
                             f"(config_db.json, `{RUNNING_CONFIG}`)",
                             file=inp.path, line=inp.text.count("\n", 0, m.start()) + 1)


def parse(inputs: list[Input], name: str) -> Device:
    converted = [_from_capture(inp) for inp in inputs]
    name = next((device for _, device in converted if device), name)  # a capture's header names the device
    plain = [inp for inp, _ in converted]
    namespace_of = {inp.path: f"asic{m.group(1)}" for inp in plain
                    if (m := _NAMESPACE_FILE.fullmatch(PurePath(inp.path).name))}
    parts = split_namespaces(plain, namespace_of)
    if list(parts) == [None]:
        return _Builder(ConfigDB(plain, parts[None]), name, inputs[0].path).device
    dbs = {ns: ConfigDB(list({inp.path: inp for inp, *_ in loaded}.values()), loaded, namespace=ns)
           for ns, loaded in sorted(parts.items(), key=lambda kv: _natural(kv[0] or ""))}
    if all(db.empty for db in dbs.values()):
        raise InputError("no SONiC CONFIG_DB table losslessd reads in any namespace (e.g. PORT, PORT_QOS_MAP)",
                         file=inputs[0].path, line=1)
    asic_ports = {ns: _asic_port_names(db) for ns, db in dbs.items() if ns}  # (read before a build releases fields)
    release, issues = _switch_release(dbs)
    forms: dict = {}  # (the references' forms of every namespace: the release notes are the switch's, said once)
    builders = [(ns, _Builder(db, name, inputs[0].path, (release, forms))) for ns, db in dbs.items() if not db.empty]
    device = _merge_namespaces([(ns, b.device) for ns, b in builders], name, asic_ports)
    device.issues += issues + builders[0][1].release_notes()
    return device


def _switch_release(dbs: dict[str | None, ConfigDB]) -> tuple[str | None, list[ParseIssue]]:
    """The db_migrator version of a multi-ASIC switch: one SONiC image runs every namespace's orchagent, so the
    namespaces that name one (VERSIONS|DATABASE, which db_migrator writes into each namespace's CONFIG_DB) name the
    switch's release, which those naming none share. Namespaces naming different ones: none is read, said once."""
    named = {ns: version for ns, db in dbs.items()
             if (e := db.table("VERSIONS").get("DATABASE")) is not None
             and (version := _db_version_of(e.fields.get("VERSION"))) is not None}
    if len(set(named.values())) <= 1:
        return next(iter(named.values()), None), []
    e = next(db.table("VERSIONS")["DATABASE"] for db in dbs.values() if "DATABASE" in db.table("VERSIONS"))
    return None, [ParseIssue(code="SYS002", source=e.source("VERSION"), message=(
        "the namespaces of this multi-ASIC switch name different SONiC releases (VERSIONS|DATABASE VERSION: "
        + ", ".join(f"{ns or 'localhost'} {v}" for ns, v in named.items()) + "), though one SONiC image runs them "
        "all: which release the switch runs is not read; lint the files one saved configuration (`config save`) "
        "wrote"))]


def _asic_port_names(db: ConfigDB) -> dict[str, str]:
    """PORT `asic_port_name` -> port name, in one ASIC namespace: how a sibling ASIC's DEVICE_NEIGHBOR names the
    far end of a backplane port (sonic-config-engine minigraph.py: `{"name": "ASIC2", "port": "Eth0-ASIC2"}`)."""
    out = {}
    for port, e in db.table("PORT").items():
        asic_name = e.fields.get("asic_port_name") if isinstance(e.fields, dict) else None
        if isinstance(asic_name, str) and asic_name:
            out[asic_name] = port
    return out


def config_db(inputs: list[Input]) -> dict[str | None, dict[str, dict[str, dict]]]:
    """The device's CONFIG_DB as the switch holds it (`sonic-cfggen -d --print-data`: nested tables, the files merged
    field by field as `sonic-cfggen -j a -j b` merges them), of the tables this parser reads, per namespace: what the
    paths of a `config apply-patch` JSON patch point into. One namespace None on a single-ASIC device; `asicN` (and
    `localhost`) on a multi-ASIC one, whose patch paths name the namespace first."""
    out: dict[str | None, dict[str, dict[str, dict]]] = {}
    for ns, db in _databases(inputs).items():
        tables = out.setdefault(ns, {})
        for table in db.tables:
            tables.setdefault(table, {}).update((key, dict(fields)) for key, fields in db.fields(table).items())
    return out


def _databases(inputs: list[Input]) -> dict[str | None, ConfigDB]:
    """The device's files read as CONFIG_DBs, one per namespace (None: a single-ASIC device)."""
    plain = [_from_capture(inp)[0] for inp in inputs]
    namespace_of = {inp.path: f"asic{m.group(1)}" for inp in plain
                    if (m := _NAMESPACE_FILE.fullmatch(PurePath(inp.path).name))}
    return {ns: ConfigDB(list({inp.path: inp for inp, *_ in loaded}.values()), loaded, namespace=ns)
            for ns, loaded in split_namespaces(plain, namespace_of).items()}


def _merge_namespaces(parts: list[tuple[str | None, Device]], name: str,
                      asic_ports: dict[str, dict[str, str]] | None = None) -> Device:
    """One Device of a multi-ASIC switch: every namespace's ports (front-panel and backplane), its buffer
    pools and profiles. Same-named pools or profiles that differ between ASICs are kept apart as
    ``<name>@<namespace>``, and that namespace's PGs and profiles point at the renamed one. A backplane port's
    DEVICE_NEIGHBOR naming a sibling ASIC (``ASIC<N>`` and that ASIC's `asic_port_name`) is a hop inside this
    device: it becomes a neighbour on the device's own port, so the link rules check both ends of the hop."""
    device = Device(name=next((d.name for _, d in parts if d.name != name), name), kind=DeviceKind.switch,
                    platform=PLATFORM, hwsku=next((d.hwsku for _, d in parts if d.hwsku), None),
                    hwsku_source=next((d.hwsku_source for _, d in parts if d.hwsku), None),
                    source=parts[0][1].source)
    # `pfcwd big_red_switch` writes every namespace's PFC_WD|GLOBAL: one that enables it drops that ASIC's
    # lossless queues
    said = [d for _, d in parts if d.big_red_switch is not None]
    if said:
        brs = next((d for d in said if d.big_red_switch), said[0])
        device.big_red_switch, device.big_red_switch_source = brs.big_red_switch, brs.big_red_switch_source
    for ns, part in parts:
        renamed = {}
        for table, own in (("buffer_pools", part.buffer_pools), ("buffer_profiles", part.buffer_profiles)):
            into = getattr(device, table)
            for key, obj in own.items():
                old = into.get(key)
                if old is not None and old.model_dump(exclude={"source"}) != obj.model_dump(exclude={"source"}):
                    renamed[(table, key)] = f"{key}@{ns}"
                    obj.name = key = f"{key}@{ns}"
                if key not in into:
                    into[key] = obj
        for profile in part.buffer_profiles.values():
            profile.pool = renamed.get(("buffer_pools", profile.pool), profile.pool)
        for port_name, port in part.ports.items():
            for pg in port.priority_groups.values():
                pg.profile = renamed.get(("buffer_profiles", pg.profile), pg.profile)
            if port_name in device.ports:
                part.issues.append(ParseIssue(code="SYS002", source=port.source, message=(
                    f"port {port_name} of namespace {ns} is also in an earlier namespace; this one is skipped")))
                continue
            device.ports[port_name] = port
        device.neighbors.extend(_internal_hop(nb, asic_ports or {}, device.name) for nb in part.neighbors)
        device.issues.extend(part.issues)
    device.ports = {n: device.ports[n] for n in sorted(device.ports, key=_natural)}
    return device


def _internal_hop(nb: Neighbor, asic_ports: dict[str, dict[str, str]], device: str) -> Neighbor:
    """The neighbour as one device sees it: a sibling ASIC ``ASIC<N>`` (sonic-config-engine writes the minigraph's
    ASIC device name, whose namespace is ``asic<N>``: sonic-py-common multi_asic) and its `asic_port_name` become
    this device's own port; any other neighbour is kept as written."""
    far = asic_ports.get(nb.remote_device.lower(), {}).get(nb.remote_port or "")
    if far is None:
        return nb
    return Neighbor(port=nb.port, remote_device=device, remote_port=far, origin=nb.origin, source=nb.source)


def _from_capture(inp: Input) -> tuple[Input, str | None]:
    """A capture's `show runningconfiguration all` section (the whole CONFIG_DB as JSON), after blank
    lines so that JSON pointers find their lines in the capture file itself; and the capture's device."""
    if not capture.is_capture(inp.text):
        return inp, None
    header, sections = capture.for_platform(inp.text, inp.path, PLATFORM)
    found = [s for s in sections if " ".join(s.command.split()) == RUNNING_CONFIG]
    if not found:
        raise InputError(f"this SONiC capture has no `{RUNNING_CONFIG}` section", file=inp.path, line=1)
    section = found[-1]  # a command given twice: the last output counts
    return Input(inp.path, capture.section_text(section)), header["device"]


# Value converters: raise ValueError for text that is not what the field holds. Numbers are ASCII digits (int() and
# float() would also take '+5', ' 5', '1_000', '1e3', 'nan', 'inf' and other scripts' digits) within the field's type:
# a value no switch could hold is reported, never read as a plausible number. (Each text is converted once: the
# builder memoizes per text.)
# SAI saibuffer.h: buffer pool and profile sizes, xon/xoff and static thresholds are sai_uint64_t; sonic-buildimage
# sonic-wred-profile.yang: WRED thresholds are uint64.
_U64 = 2**64 - 1
# sonic-buildimage sonic-pfcwd.yang: detection_time, restoration_time and POLL_INTERVAL are uint32 ms (its narrower
# ranges are not enforced here: fleets run POLL_INTERVAL 10000 and the WDG rules judge the timers).
_U32 = 2**32 - 1


# orchagent reads these fields with std::stoi/stol/stoul (sonic-swss orchagent/bufferorch.cpp: BUFFER_POOL size and
# xoff, BUFFER_PROFILE size, xon, xon_offset, xoff, static_th, dynamic_th; orchagent/qosorch.cpp: WRED_PROFILE
# thresholds and drop probabilities, every number of a map table), which skip leading white space as strtol does
# (C++ [string.conversions]) and stop at the first character after the number: " 166912" and "166912 " are 166912.
_STRTOL_FIELDS = {
    "BUFFER_POOL": frozenset({"size", "xoff"}),
    "BUFFER_PROFILE": frozenset({"size", "xon", "xon_offset", "xoff", "static_th", "dynamic_th"}),
    "WRED_PROFILE": frozenset(f"{colour}_{what}" for colour in ("green", "yellow", "red")
                              for what in ("min_threshold", "max_threshold", "drop_probability")),
}
_C_SPACE = " \t\n\v\f\r"  # isspace() in the C locale


def _count(text: str) -> int:
    """Non-negative integer of 64 bits: bytes, thresholds, rates."""
    return whole(text, 0, _U64)


def _mtu(text: str) -> int:
    return whole(text, 68, 9216)  # sonic-buildimage sonic-port.yang PORT mtu: "type uint16 { range 68..9216; }"


def _weight(text: str) -> int:
    return whole(text, 0, 255)  # SAI saischeduler.h SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT: sai_uint8_t


def _dynamic_th(text: str) -> int:
    """alpha = 2^dynamic_th; sonic-buildimage sonic-buffer-profile.yang: dynamic_th is "int32 { range -8..7 }"."""
    negative = text.startswith("-")
    value = whole(text[1:] if negative else text, 0, 8)
    value = -value if negative else value
    if value > 7:
        raise ValueError(text)
    return value


def _ratio(text: str) -> int:
    # sonic-buildimage sonic-default-lossless-buffer-parameter.yang: over_subscribe_ratio is a uint16
    return whole(text, 0, 65535)


def _ms(text: str) -> float:
    ms = to_ms(text)  # PFC_WD times are milliseconds (sonic-utilities `pfcwd start --detection-time` in ms)
    if not ms <= _U32:
        raise ValueError(text)
    return ms


def _percent(text: str) -> float:
    return decimal(text, 0, 100)  # sonic-wred-profile.yang green_drop_probability: uint64 range 0..100 (percent)


# The numbers map tables write, as they write them ('0'..'63'): a map's 64 entries are read on every switch.
_MAP_NUMBERS = {str(n): n for n in range(_MAX_INDEX + 1)}


def _clip(text: str) -> str:
    """``text`` as a message shows it: whole up to _SHOWN characters, else its start and its length."""
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text):,} characters)"


def _scalar_text(value: object) -> str | None:
    """A field's value as text: a string as written, a JSON number as its digits (as the switch would hold it:
    CONFIG_DB values are strings); None for a list, an object, a boolean or null."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _at(entry: Entry) -> str:
    """`TABLE|key` of an entry in a message (the key cut as _clip cuts it)."""
    return f"{entry.table}|{_clip(entry.key)}"


def _quoted(text: str) -> str:
    """``text`` quoted (repr) as a message shows it, cut as _clip cuts it."""
    return repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text):,} characters)"


def _map_number(text: str, top: int) -> int:
    """A map table's key or value, 0-``top`` (whole(); the usual texts looked up)."""
    n = _MAP_NUMBERS.get(text)
    if n is None or n > top:
        return whole(text, 0, top)  # (raises ValueError for n > top, saying so)
    return n


_LANES = "a comma list of lane numbers"


def _lane_count(text: str) -> int:
    """PORT lanes "0,1,2,3" -> 4 (sonic-swss buffermgrdyn.cpp counts the commas the same way)."""
    # Digits and single commas, the usual text, are counted in C passes (each port has lanes of its own, so no memo
    # spares the reading); anything else is read item by item.
    if is_digits(text.replace(",", "")) and ",," not in text and text[0] != "," and text[-1] != ",":
        return text.count(",") + 1
    lanes = [part.strip() for part in text.split(",")]
    if not all(is_digits(part) for part in lanes):
        raise ValueError(text)
    return len(lanes)


def _speed(text: str) -> float:
    if not is_digits(text):  # PORT.speed is Mb/s as digits
        raise ValueError(text)
    return speed_gbps(text)


# std::stoul as orch.cpp parseIndexRange applies it to a key's index part or each end of its range: C blanks
# skipped, a '+', digits; whatever follows is ignored.
_STOUL = lazy(r"[ \t\n\v\f\r]*(\+?)([0-9]+)")
# std::stoi as orchagent applies it to each item of pfc_enable / pfcwd_sw_enable (sonic-swss orchagent/qosorch.cpp
# processPortQosMapTask), and std::stoi / std::stoull to WRED_PROFILE and SCHEDULER numbers (_sto_reads): C blanks
# skipped, a sign, decimal digits; whatever follows is ignored ([string.conversions]).
_STOI = lazy(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)")


def _c_int(m: re.Match) -> int:
    """The number a _STOI / _STOUL match reads (sign, digits); ValueError past 9 digits after the leading zeros
    (beyond every index and priority; std::stoi throws out_of_range past 2^31)."""
    digits = m.group(2).lstrip("0") or "0"
    if len(digits) > 9:
        raise ValueError(m.group(0))
    return -int(digits) if m.group(1) == "-" else int(digits)


@lru_cache(maxsize=512)  # the same few strings ('3-4', '0-2') repeat on every port
def index_range(text: str, top: int = _MAX_INDEX) -> tuple[tuple[int, ...], bool]:
    """The queues or PGs a QUEUE / BUFFER_QUEUE / BUFFER_PG key's index part covers as orchagent reads it (orch.cpp
    parseIndexRange: 'N', or 'N-M' with N < M, the ends split by swss tokenize on '-', each std::stoul'd, which
    stops at the first character that is no digit: '3,4' is 3 alone, '0-2,5' is 0-2), and whether every character
    was read. ValueError where orchagent refuses the key ('3-3', '4-3', '3-', '1-2-3') or an index exceeds
    ``top``."""
    ends = (text[:-1] if text.endswith("-") else text).split("-") if "-" in text else [text]
    if len(ends) != (2 if "-" in text else 1):
        raise ValueError(text)
    read, whole_read = [], True
    for end in ends:
        m = _STOUL.match(end)
        if not m:
            raise ValueError(text)
        read.append(_c_int(m))
        whole_read = whole_read and not end[m.end():].strip(_C_SPACE)
    low, high = read[0], read[-1]
    if (len(read) == 2 and low >= high) or high > top:
        raise ValueError(text)
    return tuple(range(low, high + 1)), whole_read


def _indexes(text: str, top: int = _MAX_INDEX) -> tuple[int, ...]:
    """'3', '3-4' -> the indexes a key covers; ValueError for a key orchagent refuses or reads only in part."""
    indexes, whole_read = index_range(text, top)
    if not whole_read:
        raise ValueError(text)
    return indexes


def _priority_items(text: str) -> list[tuple[str, int, str]]:
    """Each item of a pfc_enable / pfcwd_sw_enable list, the priority orchagent reads from it and what it leaves
    unread (qosorch.cpp processPortQosMapTask): swss tokenize on ',' (std::getline: no item after a final ','),
    std::stoi of each item, which stops at the first character that is no digit, so '3-4' and '3 4' are priority 3.
    ValueError for an item stoi throws on (empty, blanks, no digit) and for a priority outside 0-7."""
    out = []
    for item in (text[:-1] if text.endswith(",") else text).split(","):
        m = _STOI.match(item)
        if not m or not 0 <= (prio := _c_int(m)) <= 7:
            raise ValueError(item)
        out.append((item, prio, item[m.end():].strip(_C_SPACE)))
    return out


def _priority_list(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """pfc_enable / pfcwd_sw_enable as orchagent reads them (_priority_items), parsed once: the priorities ("" turns
    PFC off: sonic-port-qos-map.yang, "Empty string is allowed"), and "'3-4' counts as 3" for each item that holds
    more than the priority orchagent reads (a SYS002 names them)."""
    if not text:
        return (), ()
    items = _priority_items(text)
    return (tuple(sorted({prio for _, prio, _ in items})),
            tuple(f"{_quoted(item)} counts as {prio}" for item, prio, rest in items if rest))


# (kind, field) of a clash (see _Builder._shared_part) -> (table, the setting, what it is set on).
_CLASH_WORDS = {("queue", 0): ("QUEUE", "scheduler", "queue"), ("queue", 1): ("QUEUE", "wred_profile", "queue"),
                ("buffer", 2): ("BUFFER_QUEUE", "buffer profile", "queue"), ("pg", 0): ("BUFFER_PG", "profile", "PG")}


def _clash_name(value: object) -> str:
    """How a clashing value is named: a scheduler's or WRED profile's name, a PG's (profile, computed at run time)."""
    if isinstance(value, tuple):
        value = "NULL" if value[1] and value[0] is None else value[0]
    name = getattr(value, "name", None) or getattr(value, "profile", None) or value
    return "none" if name is None else str(name)


@lru_cache(maxsize=4096)  # each port's name starts ~15 keys (QUEUE, BUFFER_PG, ...) on every switch
def _port_names(text: str) -> tuple[str, ...]:
    """'Ethernet0' or 'Ethernet0,Ethernet4' (bufferorch/qosorch split the port part on ',' with swss-common's tokenize,
    which trims nothing: 'Ethernet0 ' names no port Ethernet0, as a PORT key 'Ethernet0 ' is another port)."""
    return tuple(p for p in text.split(",") if p)


@lru_cache(maxsize=65536)  # every switch of a fleet has the same 'Ethernet0|3' keys
def _plain_key(key: str, top: int = _MAX_INDEX) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """'Ethernet0|3-4' -> (ports, indexes 0-``top``), the usual key; None for anything else (see _Builder.split_key)."""
    ports, bar, index = key.rpartition("|")
    if not bar or "|" in ports:
        return None
    names = _port_names(ports)
    if not names:
        return None
    try:
        return names, _indexes(index, top)
    except ValueError:
        return None


@lru_cache(maxsize=65536)
def _pairs(key: str, top: int = _MAX_INDEX) -> tuple[tuple[str, int], ...] | None:
    """'Ethernet0,Ethernet4|3-4' -> ((port, index), ...), ports first (the order of _plain_key's loops); None for a
    key that is not the usual one."""
    split = _plain_key(key, top)
    return None if split is None else _split_pairs(split)


def _split_pairs(split: tuple[tuple[str, ...], tuple[int, ...]]) -> tuple[tuple[str, int], ...]:
    return tuple((name, index) for name in split[0] for index in split[1])


def _one_port(text: str) -> bool:
    """Whether ``text``, the part of a key before its last '|', names one port as it is (_port_names gives it alone)."""
    return bool(text) and "," not in text and "|" not in text and text.strip() == text


# A deferred table whose first port's run of rows is shorter is read row by row (_Builder._runs) unless the rest of it
# repeats that run (_Builder._rest_repeats): the QUEUE table's runs are a port's 8 queues, BUFFER_PG's and
# BUFFER_QUEUE's one or two rows.
_RUN_MIN = 4


# The same port names on every switch of a fleet (losslessd.sorting bounds the key of any name).
_natural = lru_cache(maxsize=8192)(natural_key)


_KEY, _FIELDS = attrgetter("key"), attrgetter("fields")


def _qos_written(recipe: tuple) -> dict:
    """The port fields a PORT_QOS_MAP entry's recipe (_Builder._qos_recipe) writes: its maps, less the trust 'none' it
    is read as when it names no map (another key's map stays bound then: _qos_contradict)."""
    fixed, _, trust_field, _, _ = recipe
    return {k: v for k, v in fixed.items() if k != "trust"} if trust_field == "" else fixed


def _qos_contradict(first: tuple, later: tuple) -> bool:
    """Whether two PORT_QOS_MAP entries binding one port set it differently in a way their order decides.
    qosorch.cpp handlePortQosMapTable sets each map a key names and unbinds only maps that same key named before, so a
    map one key names and the other leaves out is no contradiction; it writes pfc_enable and pfcwd_sw_enable on every
    key (0 where left out), so those differ whenever the keys' values do."""
    written_a, written_b = _qos_written(first), _qos_written(later)
    return (first[1] != later[1] or first[3] != later[3]
            or any(written_a[k] != written_b[k] for k in written_a.keys() & written_b.keys())
            or bool(first[4] and later[4] and first[4] != later[4]))


def _text_only(written: object) -> bool:
    """Whether ``written`` (a field's value, or a tuple of values or of (field, value) pairs) is strings and nulls."""
    if type(written) is tuple:
        return all(map(_text_only, written))
    return written is None or type(written) is str


def _repeats(keys: list[str], rows: list[dict], at: int, port: str, template: tuple) -> bool:
    """Whether the rows from ``at`` are ``port``'s repeat of ``template`` (_Builder._runs): its keys first, pair by
    pair, stopping at the first that differs (another port's row differs in its key, so a check costs at most this
    port's own run and one row, never a copy of the template's), then its fields, likewise."""
    suffixes, fields, _, m = template
    span = range(at, at + m)
    return all(map(eq, map(keys.__getitem__, span), map(port.__add__, suffixes))) and all(
        map(eq, map(rows.__getitem__, span), fields))


class _Builder:
    """Walks the merged tables once, collecting each port's fields as plain values; the Device is
    built at the end in one validated pass (assigning model fields one by one costs more)."""

    def __init__(self, db: ConfigDB, name: str, file: str,
                 switch: tuple[str | None, dict] | None = None):
        """``switch``: a namespace of a multi-ASIC switch, with the switch's release (_switch_release) and the forms
        of its references, shared by its namespaces, whose notes parse says once (release_notes)."""
        self.db = db
        self._file = file
        self.ports: dict[str, dict] = {}  # port name -> Port fields
        self.pools: dict[str, BufferPool] = {}
        self.profiles: dict[str, BufferProfile] = {}
        self._refs: dict[tuple[str, str], str] = {}  # (table, field value) -> entry name it resolved to
        self._maps: dict[tuple, dict] = {}
        self._schedulers: dict[str, Scheduler] = {}
        self._wred: dict[str, Ecn] = {}
        # (SCHEDULER or WRED_PROFILE, name) -> whether orchagent refuses it (see _refused)
        self._refusals: dict[tuple[str, str], tuple[bool, str, Source] | None] = {}
        self._global_dscp: tuple[str, Source] | None = None  # PORT_QOS_MAP|global dscp_to_tc_map
        self._own_dscp: set[str] = set()  # ports that name their own dscp_to_tc_map
        self._wd_priorities: dict[str, tuple[int, ...] | None] = {}  # PORT_QOS_MAP pfcwd_sw_enable
        # The ports whose watched priorities are unknown, and why: in a CONFIG_DB part, those whose entry the part
        # writes without pfcwd_sw_enable, or in a form the release refuses (the switch's own mask stays:
        # _PART_WD_PRIORITIES); those whose config's release does not say which field sets them (_watched)
        self._wd_kept: dict[str, str] = {}
        # With the PORT or PORT_QOS_MAP table in view, a port without pfc_enable has PFC off; a
        # buffers-only input cannot say.
        self._pfc_known = "PORT" in db.tables or "PORT_QOS_MAP" in db.tables
        # A whole CONFIG_DB (config_db.json, running config) has PORT or DEVICE_METADATA; rendered qos.json /
        # buffers.json parts have neither and may name tables of the other part.
        self._whole = "PORT" in db.tables or "DEVICE_METADATA" in db.tables
        self._port_rows = db.table("PORT") if "PORT" in db.tables else None  # the ports orchagent finds (known_pairs)
        self._folded: dict[str, str] | None = None  # PORT keys by their folded spelling (_not_in_port)
        self._absent: dict[str, list] = {}  # table the input lacks -> [references to it, first source]
        self._tc_to_pg_names: dict[str, str] = {}  # port -> the TC_TO_PRIORITY_GROUP_MAP it binds
        self._converted: dict[tuple, object] = {}  # (converter, text) -> value
        self._absent_refs = 0  # references into tables the input lacks, counted (see ref)
        # the first reference in a form a release refuses: `[TABLE|name]` by whether the config's release takes it
        # (True never kept), "plain" a name alone on a release that requires the brackets (see ref)
        self._bracketed: dict[bool | str | None, tuple[Source, str]] = switch[1] if switch is not None else {}
        e = db.table("VERSIONS").get("DATABASE")
        self._version = switch[0] if switch is not None else \
            _db_version_of(e.fields.get("VERSION") if e is not None else None)
        # whether the config's release takes references only as `[TABLE|name]` (None: it names none; see _form_refused)
        self._takes_brackets = self._release_takes(*_BRACKETED_REFS)
        # whether its buffermgrd rewrites the buffer tables' `[TABLE:name]` into a form bufferorch refuses (None: it
        # names no release; see _colon_refused)
        self._rewrites_colon = self._release_takes(*_BUFFERMGRD_REWRITES)
        self._uncreated: set[str] = set()  # BUFFER_PROFILEs whose pool reference the release refuses (see _buffers)
        self._big_red_switch: bool | None = None  # PFC_WD|GLOBAL BIG_RED_SWITCH (see _watchdogs)
        # What the QUEUE, BUFFER_QUEUE and BUFFER_PG entries set on a queue or PG, each setting once: (kind, index,
        # what it sets); a port keeps the numbers of those it met, in order, and their entries (see _shared).
        self._events: list[tuple] = []
        self._shared: dict[tuple[int, ...], tuple] = {}  # a port's events -> its queues and PGs (see _shared)
        self._runtime: dict[int, int] = {}  # PG index -> the event of buffermgrd's run-time PG
        self._lookup_events: dict[tuple[int, str], int] = {}  # (PG index, profile) -> event of buffermgrd's binding
        self._cable_text: dict[str, str] = {}  # port -> its CABLE_LENGTH value as written (buffermgrd's lookup key)
        # why buffermgrd's binding is unknown, or (a header-only lookup file) why it binds none -> [ports, the first's
        # pfc_source, whether unknown]
        self._unbound: dict[str, list] = {}
        self._overlapped: list = []  # [ports whose file keys overlap buffermgrd's, (file key, its key), source]
        self._cited: list[Entry] = []  # entries of deferred tables made while reading (see _cite)
        self._big_red_switch_source: Source | None = None
        self._channels: dict[str, list[str]] = {}  # PORTCHANNEL_MEMBER: PortChannel -> its member ports
        self._named = 0  # (port, queue or PG) pairs the QUEUE, BUFFER_QUEUE and BUFFER_PG keys named (see _too_many)
        meta = db.table("DEVICE_METADATA").get("localhost")
        hostname = self.text(meta, "hostname") if meta else None
        hwsku = self.text(meta, "hwsku") if meta else None
        self._voq_local = self._voq_prefix(hostname, self.text(meta, "asic_name") if meta else None)
        device_facts = self._headroom_facts(meta)
        self._hwsku, self._device_facts = hwsku, device_facts
        self._buffers()
        self._port_table()
        self._vlans()
        self._port_qos()
        self._queues()
        self._priority_groups()
        self._buffer_queues()
        self._profile_lists()
        self._cable_lengths()
        self._watchdogs()
        self._part_queues()
        self._finish()
        self._overlaps()
        self._lossy_by_design()
        self._absent_tables()
        if switch is None:
            db.issues.extend(self.release_notes())
        check_port_count(len(self.ports), file)  # before the model is built: that is what costs memory
        self.device = Device(name=hostname or name, kind=DeviceKind.switch, platform=PLATFORM, hwsku=hwsku,
                             hwsku_source=meta.source("hwsku") if meta is not None and "hwsku" in meta.fields else None,
                             **device_facts, big_red_switch=self._big_red_switch,
                             big_red_switch_source=self._big_red_switch_source,
                             ports={n: self._port_model(self.ports[n]) for n in sorted(self.ports, key=_natural)},
                             buffer_pools=self.pools, buffer_profiles=self.profiles, neighbors=self._neighbors(),
                             issues=list(db.issues), source=Source(file=file))
        db.release()
        for e in self._cited:
            e.fields = None  # type: ignore[assignment]

    # ---- reading fields -------------------------------------------------------------------------
    def text(self, entry: Entry, field: str) -> str | None:
        value = entry.fields.get(field, _ABSENT)
        if type(value) is str:
            return value
        if value is _ABSENT:
            return None
        text = _scalar_text(value)
        if text is not None:
            return text
        self.db.issue(f"{_at(entry)} {field} is a JSON {type(value).__name__}, not a string; ignored",
                      entry.source(field))
        return None

    def value(self, entry: Entry, field: str, convert, expected: str):
        raw = self.text(entry, field)
        if raw is None:
            return None
        if field in _STRTOL_FIELDS.get(entry.table, ()):
            raw = raw.strip(_C_SPACE) or raw  # (the blanks orchagent skips; all blanks stays an error)
        done = self._converted.get((convert, raw), _ABSENT)  # converters are pure: each text is converted once
        if done is not _ABSENT:
            return done
        try:
            done = self._converted[(convert, raw)] = convert(raw)
            return done
        except UnknownUnit as exc:
            self.db.issue(f"{_at(entry)} {field}: {exc}", entry.source(field), code="SYS003")
        except (ValueError, OverflowError):
            self.db.issue(f"{_at(entry)} {field} {_quoted(raw)} is not {expected}; ignored", entry.source(field))
        return None

    def choice(self, entry: Entry, field: str, allowed: dict):
        raw = self.text(entry, field)
        if raw is None:
            return None
        if raw in allowed:
            return allowed[raw]
        self.db.issue(f"{_at(entry)} {field} {_quoted(raw)} is not one of {', '.join(allowed)}; ignored",
                      entry.source(field))
        return None

    def ref(self, entry: Entry, field: str, table: str, raw: str | None = None) -> str | None:
        """Name of the ``table`` entry this field points at: 'AZURE' or '[DSCP_TO_TC_MAP|AZURE]' (``raw``: one item of
        the field's list, else the field's text).

        Every port names the same few maps and profiles: a value that resolved once resolves again."""
        if raw is None:
            raw = self.text(entry, field)
        if raw is None:
            return None
        name = self._refs.get((table, raw))
        if name is not None:
            return name
        name = raw
        bracketed = raw.startswith("[") and raw.endswith("]")
        if bracketed:
            ref_table, name = _bracketed_ref(raw) or ("", "")
            if ref_table != table:
                self.db.issue(f"{_at(entry)} {field} {_quoted(raw)} is not a reference to {table}; ignored",
                              entry.source(field))
                return None
            if self._takes_brackets is None:  # (said once per input: release_notes)
                self._bracketed.setdefault(None, (entry.source(field), f"{_at(entry)} {field} {_quoted(raw)}"))
                if self._colon_refused(raw, entry.table, field, None):
                    self._bracketed.setdefault("colon?", (entry.source(field), f"{_at(entry)} {field} {_quoted(raw)}"))
        if self._form_refused(raw, entry.table, field):
            self._note_form(entry, field, raw)
            return None
        if table not in self.db.tables and not self._whole:  # qos.json without its map tables: unknown, not wrong
            note = self._absent.setdefault(table, [0, entry.source(field), f"{_at(entry)} {field} -> {name}"])
            note[0] += 1
            self._absent_refs += 1
            return None
        if name not in self.db.table(table):
            self.db.issue(f"{_at(entry)} {field} names {table}|{name}, which the config does not "
                          "define; ignored", entry.source(field))
            return None
        if table == "BUFFER_PROFILE" and name in self._uncreated:  # (said once: release_notes)
            return None
        if self._takes_brackets is None and not bracketed:  # a name alone, no release named: as 202111 on reads it
            self._bracketed.setdefault("alone", (entry.source(field), f"{_at(entry)} {field} {_quoted(raw)}"))
        self._refs[(table, raw)] = name
        return name

    def _form_refused(self, raw: str, table: str = "", field: str = "") -> bool:
        """Whether the release the config names (VERSIONS|DATABASE VERSION) refuses the form a reference is written in
        (sonic-swss orch.cpp parseReference): up to 202106 anything but `[...]` ("Must be surrounded by [ ]", "" too
        short), from 202111 on any value starting with '[' or ending with ']' ("Must not be surrounded by [ ]"); on
        202012 and 202106 a buffer reference holding ':' (_colon_refused; ``table`` and ``field`` hold it). A config
        naming no release refuses nothing here."""
        takes = self._takes_brackets
        if takes is None:
            return False
        if takes:
            return len(raw) < 2 or raw[0] != "[" or raw[-1] != "]" or self._colon_refused(raw, table, field)
        return raw.startswith("[") or raw.endswith("]")

    def _colon_refused(self, raw: str, table: str, field: str, rewrites: bool | None = True) -> bool:
        """Whether ``raw``, field ``field`` of a ``table`` entry, is a buffer reference holding ':' that buffermgrd
        rewrites into a form bufferorch refuses (_BUFFERMGRD_REWRITES), on a release whose buffermgrd does
        (``rewrites``: _rewrites_colon, or None to ask whether a config naming no release holds one)."""
        return (self._rewrites_colon is rewrites and table in _REWRITTEN_TABLES
                and field in ("pool", "profile", "profile_list") and ":" in raw)

    def _refused_ref(self, e: Entry, fields: tuple[str, ...]) -> str | None:
        """The first of an entry's reference ``fields`` written in a form the config's release refuses (_form_refused):
        orchagent then retries the whole entry (qosorch.cpp / bufferorch.cpp: not_resolved -> task_need_retry) and never
        applies any field of it."""
        for field in fields:
            value = e.fields.get(field)
            if type(value) is str and self._form_refused(value, e.table, field):
                return field
        return None

    def _note_form(self, e: Entry, field: str, raw: str | None = None) -> None:
        """Keep the first reference in each form the config's release refuses, said once (release_notes); ``raw``:
        the refused item of a list."""
        raw = str(e.fields[field]) if raw is None else raw
        form = "colon" if self._colon_refused(raw, e.table, field) and raw[:1] == "[" and raw[-1:] == "]" else \
            "plain" if self._takes_brackets else False
        self._bracketed.setdefault(form, (e.source(field), f"{_at(e)} {field} {_quoted(str(e.fields[field]))}"))

    def bound_name(self, entry: Entry, field: str) -> str | None:
        """The entry name a reference field names ('AZURE' or '[TABLE|AZURE]'), whether or not it resolves."""
        raw = self.text(entry, field)
        if raw and raw.startswith("[") and raw.endswith("]"):
            raw = (_bracketed_ref(raw) or ("", ""))[1]
        return raw or None

    def absent(self, entry: Entry, field: str, table: str) -> str | None:
        """The name ``field`` gives when ``table`` is missing from a partial input (see ref); else None."""
        return self.bound_name(entry, field) if table in self._absent and field in entry.fields else None

    def split_key(self, entry: Entry, top: int = _MAX_INDEX) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
        """'Ethernet0|3-4' or 'Ethernet0,Ethernet4|3' -> (ports, indexes). A VOQ chassis key
        '<host>|<asic>|Ethernet0|3' names a system port: this device's port when <host>|<asic> is this
        line card's ASIC, else a port of another ASIC (no port of this device: ports come back empty)."""
        split = _plain_key(entry.key, top)
        if split is not None:
            return split
        ports, bar, index = entry.key.rpartition("|")
        host, asic = None, None
        if ports.count("|") == 2:
            host, asic, ports = ports.split("|")
        names = _port_names(ports)
        try:
            if not bar or not names or "|" in ports:
                raise ValueError(entry.key)
            indexes, whole_read = index_range(index, top)
        except ValueError:
            self.db.issue(f"{entry.table} key {_quoted(entry.key)} is not [<host>|<asic>|]<port>[,<port>...]|<n>[-<m>] "
                          f"with numbers 0-{top}; entry skipped",
                          entry.source())
            return None
        if not whole_read:
            span = str(indexes[0]) if len(indexes) == 1 else f"{indexes[0]}-{indexes[-1]}"
            self.db.issue(f"{entry.table} key {_quoted(entry.key)} covers {span} alone: orchagent reads the part "
                          f"after the last '|' as <n> or <n>-<m>, each number up to its first character that is no "
                          f"digit (orch.cpp parseIndexRange, std::stoul), so {_quoted(index)} is {span}; write one "
                          "key per range", entry.source())
        if host is not None and (host.lower(), asic.lower()) != self._voq_local:
            return (), indexes  # another line card's (or ASIC's) system port; see _voq_prefix
        return names, indexes

    def split_pairs(self, entry: Entry, top: int = _MAX_INDEX) -> tuple[tuple[str, int], ...] | None:
        """split_key as (port, index) pairs (_pairs)."""
        split = self.split_key(entry, top)
        return None if split is None else _split_pairs(split)

    def known_pairs(self, table: str, pairs: tuple[tuple[str, int], ...], key: str, fields: dict, e: Entry | None,
                    make: Callable[[str], Entry] | None) -> tuple[tuple[str, int], ...]:
        """The (port, index) pairs orchagent sets for a QUEUE, BUFFER_QUEUE or BUFFER_PG key listing ports, when the
        PORT table lacks one of them (`Ethernet0,Ethernet4,Ethernet8|3`, Ethernet8 gone in a breakout): each orch looks
        the ports up in the key's order and returns task_invalid_entry (never retried) at the first it cannot find.
        bufferorch.cpp processPriorityGroup / processQueue queue the key's ports for one SAI bulk call made only after
        that loop (since sonic-swss #3452, February 2025), so none is set; qosorch.cpp handleQueueTable, and bufferorch
        before #3452, set each port as they go, so the ports listed before it are. Without a PORT table (a rendered
        part) every port is taken as listed. ``e`` is the key's entry, None in a deferred table (``make`` makes it)."""
        ports = self._port_rows
        if ports is None or all(port in ports for port, _ in pairs):
            return pairs
        names = list(dict.fromkeys(port for port, _ in pairs))
        missing = next(port for port in names if port not in ports)
        before = names[:names.index(missing)]
        after = [n for n in names[len(before):] if n != missing]
        if table == "QUEUE":  # (qosorch.cpp handleQueueTable: port by port)
            taken = tuple(pair for pair in pairs if pair[0] in before)
            told = (f"qosorch.cpp sets the key port by port, so {listed(before) if before else 'no port'} takes its "
                    f"scheduler and WRED profile and {listed(after) or 'no other port'} none")
        else:
            taken = ()
            told = (f"bufferorch.cpp sets the key's profile in one bulk call once every port is found, since #3452 of "
                    f"February 2025, so {listed(before + after) or 'no other port'} take nothing from it; releases "
                    f"before that set {listed(before) if before else 'no port'}")
        self.db.issue(f"{table} key {_quoted(key)}: {self._not_in_port(missing)}, and orchagent refuses the key at "
                      f"that port (sonic-swss {told}); remove {missing} from the key or write one key per port",
                      (e if e is not None else self._cite(make, key, fields)).source())  # type: ignore[arg-type]
        return taken

    def _voq_prefix(self, hostname: str | None, asic_name: str | None) -> tuple[str, str] | None:
        """(host, asic), lower case, of this device's own system ports in VOQ chassis keys.

        qos_config.j2 (sonic-buildimage) writes QUEUE|<host>|<asic>|<port>|<q> for every system port of
        the chassis, and gives schedulers only to this line card's ports, those of
        DEVICE_METADATA hostname|asic_name. Without those two fields, the one prefix whose QUEUE entries
        name a scheduler is this device's; when that cannot be told, no system-port key is read as local."""
        prefixes: dict[tuple[str, str], bool] = {}
        for table in ("QUEUE", "BUFFER_QUEUE", "BUFFER_PG"):
            rows = self.db.fields(table)
            joined = "\n".join(rows)  # (searched in C: a switch has thousands of these keys)
            if joined.count("\n") == len(rows) - 1 and not _THREE_BARS.search(joined):
                continue  # no key of three '|' (and none of a newline)
            for key, fields in rows.items():
                if key.count("|") != 3:
                    continue
                parts = key.split("|")
                if len(parts) == 4:
                    pre = (parts[0].lower(), parts[1].lower())
                    prefixes[pre] = prefixes.get(pre, False) or (table == "QUEUE" and "scheduler" in fields)
        if not prefixes:
            return None
        if hostname and asic_name:
            return hostname.lower(), asic_name.lower()
        scheduled = [pre for pre, has in prefixes.items() if has]
        if len(scheduled) == 1:
            return scheduled[0]
        if len(prefixes) == 1:
            return next(iter(prefixes))
        table = "QUEUE" if "QUEUE" in self.db.tables else next(t for t in ("BUFFER_QUEUE", "BUFFER_PG") if t in self.db.tables)
        self.db.issue(f"{table} keys name system ports of {len(prefixes)} line cards/ASICs of a VOQ chassis "
                      f"({', '.join('|'.join(p) for p in sorted(prefixes)[:4])}{', ...' if len(prefixes) > 4 else ''}) and "
                      "the input does not say which is this device (no DEVICE_METADATA hostname and asic_name, and "
                      "not exactly one of them has schedulers): their per-queue settings are not read",
                      self.db.table_source[table], code="SYS004")
        return None

    def release_notes(self) -> list[ParseIssue]:
        """References in a form the config's release refuses, or some release does (_form_refused): `[TABLE|name]`
        (SKU templates before sonic-buildimage moved to names, e.g. DellEMC-Z9432f-O32 and Celestica Midstone-200i
        qos.json.j2) where VERSIONS names 202111 or later, a name alone where it names 202106 or before: the entry
        holding one read as never applied; `[TABLE|name]` where no release is named: read as the releases up to 202106
        read them. Said once per form (a multi-ASIC switch: once for its namespaces, whose forms it shares)."""
        notes: list[ParseIssue] = []

        def say(message: str, source: Source | None, code: str = "SYS002") -> None:
            notes.append(ParseIssue(code=code, message=message, source=source))

        retried = ("qosorch.cpp / bufferorch.cpp retry it: PORT_QOS_MAP sets neither its maps nor pfc_enable, QUEUE "
                   "neither scheduler nor WRED profile, BUFFER_PG no profile, a BUFFER_PROFILE is not created, and a "
                   "BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST entry sets no profile of its list")
        never = f"an entry holding one is never applied ({retried})"
        version = _quoted(self._db_version() or "")
        both = "alone" in self._bracketed and None in self._bracketed
        for form, (source, example) in self._bracketed.items():
            if both and form in ("alone", None):  # (no release takes both forms: said in one note)
                if form is None:
                    alone = self._bracketed["alone"][1]
                    say(f"{_NO_RELEASE}, and its references are written both in the old `[TABLE|name]` "
                                  f"form (e.g. {example}) and as names alone (e.g. {alone}): orchagent takes the "
                                  "first up to SONiC 202106 and the second from 202111 on (sonic-swss orch.cpp "
                                  "parseReference, pull request 1754), so on any release the entries holding the form "
                                  f"it refuses are never applied ({retried}); each is read here as the releases "
                                  f"that take it read it{_SAY_RELEASE}; write one form, the one the switch's release "
                                  "takes", source, "SYS004")
                continue
            if form == "alone":
                # (what the switch runs depends on its release, which the input leaves out: a note, not an error)
                say(f"{_NO_RELEASE}, and its references are written as names alone (e.g. {example}), the "
                              "form orchagent takes from SONiC 202111 on; a switch on 202106 or before takes only "
                              "`[TABLE|name]` (sonic-swss orch.cpp parseReference: \"Must be surrounded by [ ]\") and "
                              f"never applies an entry holding one ({retried}); they are read as 202111 and later read "
                              f"them{_SAY_RELEASE}", source, "SYS004")
                continue
            if form == "colon":
                say(f"buffer references are written `[TABLE:name]` (e.g. {example}), and this config's "
                    f"VERSIONS|DATABASE VERSION {version} names SONiC 202012 or 202106, whose buffermgrd copies "
                    "the buffer tables to APPL_DB rewriting a reference's `|` alone (sonic-swss cfgmgr/buffermgr.cpp "
                    "transformReference): `[BUFFER_PROFILE:a]` reaches bufferorch as `[BUFFER_PROFILE:a]_TABLE`, "
                    "which its parseReference refuses (\"Must be surrounded by [ ]\"): "
                    f"{never}; those entries are read as not applied; write `[TABLE|name]`", source)
                continue
            if form == "colon?":
                say(f"buffer references are written `[TABLE:name]` (e.g. {example}): SONiC 201911 and before "
                    "take them, but 202012's and 202106's buffermgrd rewrites a reference's `|` alone as it copies "
                    "the buffer tables to APPL_DB (sonic-swss cfgmgr/buffermgr.cpp transformReference), so "
                    "`[BUFFER_PROFILE:a]` reaches bufferorch as `[BUFFER_PROFILE:a]_TABLE`, which it refuses, and "
                    f"{never}; they are read here as 201911 reads them{_SAY_RELEASE}; write `[TABLE|name]`",
                    source, "SYS004")
                continue
            if form == "plain":
                say(f"references are written as names alone (e.g. {example}), and this config's "
                              f"VERSIONS|DATABASE VERSION {version} names a SONiC release up to 202106, whose "
                              "orchagent takes only the `[TABLE|name]` form (sonic-swss orch.cpp parseReference: "
                              f"\"Must be surrounded by [ ]\"): {never}; those entries are read as not applied; write "
                              "`[TABLE|name]` on that release", source)
                continue
            head = (f"references are written in the old `[TABLE|name]` form (e.g. {example}): orchagent takes "
                    "that form up to SONiC 202106 and refuses it from 202111 on (sonic-swss orch.cpp parseReference: "
                    f"\"Must not be surrounded by [ ]\", pull request 1754), and {never}")
            if form is False:
                say(f"{head}; this config's VERSIONS|DATABASE VERSION {version} names such a release: those "
                              "entries are read as not applied; write the entry's name alone", source)
            else:
                # (a release that takes them exists: the config, which names none, is no error of its own: SYS004,
                # as for a SCHEDULER field some releases take, _refused)
                say(f"{head}; they are read here as the releases up to 202106 read them{_SAY_RELEASE}; "
                              "on a later release write the entry's name alone (db_migrator rewrites them only when "
                              "it upgrades a CONFIG_DB of 202106 or before, not a template render)", source, "SYS004")
        return notes

    def _absent_tables(self) -> None:
        for table, (count, source, example) in sorted(self._absent.items()):
            self.db.issue(f"{count} setting(s) name entries of table {table} (e.g. {example}), which this input does "
                          f"not include (a partial dump?); what they set is unknown", source, code="SYS004")

    def _lossy_by_design(self) -> None:
        """Ports the config makes lossy on purpose: never RoCE-facing (Context.selection leaves them out).

        SONiC smart switches give DPU-facing ports PORT role `Dpc`, a TC_TO_PRIORITY_GROUP_MAP of their own
        (AZURE_DPC) and no pfc_enable (qos_config.j2). Without the role, a port that writes no pfc_enable
        and binds a tc_to_pg_map that no PFC-enabled port of the switch uses is read the same way. Service
        ports (qos_config.j2 PORT_SERVICE, e.g. the two SFP ports of an Arista 7060X6) get the maps but
        neither pfc_enable nor the pfc_to_queue_map every PFC-enabled port binds."""
        tc_to_pg_names = self._tc_to_pg_names
        pfc_ports = [p for p in self.ports.values() if p.get("pfc_enabled")]
        lossless_maps = {tc_to_pg_names.get(p["name"]) for p in pfc_ports}
        lossless_maps.discard(None)
        service_shape = bool(pfc_ports) and all([p.get("_pfcq_written") for p in pfc_ports])
        # One pass: each port's three reading notes taken out (no Port field) as it is judged (a second pass popping
        # them was half of this step: docs/lint-at-scale.md, "Session 44, part h").
        for name, port in self.ports.items():
            role, pfc_written = port.pop("_role", None), port.pop("_pfc_written", None)
            pfcq_written = port.pop("_pfcq_written", _ABSENT)
            if pfc_written or port.get("pfc_enabled"):
                continue
            if role == _DPC_ROLE:
                port["lossy_by_design"] = (f"PORT role {_DPC_ROLE} (smart-switch DPU-facing port) and no pfc_enable: "
                                           "lossy by design")
            elif lossless_maps and (own := tc_to_pg_names.get(name)) and own not in lossless_maps:
                port["lossy_by_design"] = (f"binds tc_to_pg_map {own} (the PFC-enabled ports bind "
                                           f"{', '.join(sorted(lossless_maps))}) and writes no pfc_enable: lossy by design")
            elif service_shape and port.get("qos_configured") and pfcq_written is not _ABSENT and not pfcq_written:
                port["lossy_by_design"] = ("writes neither pfc_enable nor the pfc_to_queue_map every PFC-enabled port "
                                           "binds (a SONiC service port): lossy by design")

    def port(self, name: str, entry: Entry, field: str | None = None) -> dict:
        """The fields of port ``name``, started from the first entry that mentions it."""
        port = self.ports.get(name)
        if port is None:
            if len(self.ports) >= MAX_PORTS:  # (keys of many ports each: 20 PORT_QOS_MAP keys named 2 million in 18 MB,
                check_port_count(len(self.ports) + 1, self._file)  # 1.5 GB and 13 s before the count at the end)
            port = self.ports[name] = {"name": name, "source": entry.source(field), "_events": [], "_entries": [],
                                       "pfc_enabled": [] if self._pfc_known else None}
        return port

    def _too_many(self, entry: Entry) -> None:
        """InputError at ``entry``: the keys read so far name more queues and PGs of ports than MAX_EXPANDED_PORTS. Each
        named pair costs memory before the port count is known: 150 keys `Ethernet0,...,Ethernet15999|0-7` in a file
        under the 32 MiB limit named 19 million and took 2 GB and 11 s; a switch of MAX_PORTS ports with 8 queues,
        8 buffer queues and 8 PGs names 393,216."""
        source = entry.source()
        _pairs.cache_clear()  # (the keys' pairs are cached for the next switch: not these, in a worker that lints on)
        raise InputError(f"its QUEUE, BUFFER_QUEUE and BUFFER_PG keys name more than {MAX_EXPANDED_PORTS:,} queues and "
                         "PGs of ports in all (`Ethernet0,Ethernet4|0-7` names 16; a generated file?); not read",
                         file=source.file, line=source.line)

    def _event(self, kind: str, index: int, what: object = None, more: object = None, make: object = None) -> int:
        """The number of a new event (see _shared): ("queue", index, scheduler, ecn), ("buffer", index, egress
        profile), ("pg", index, profile, computed at run time), ("runtime", index) for a PG buffermgrd makes from facts
        the input lacks, ("lookup", index, profile) for its binding to a lookup profile (see _bind);
        ``make``: the maker of the entries of a deferred table (a port keeps their keys: see _rows)."""
        self._events.append((kind, index, what, more, make))
        return len(self._events) - 1

    def _rows(self, table: str) -> tuple:
        """(rows, make): the table's rows as (key, fields, entry or None) and, for a table whose entries are not made
        (configdb.DEFERRED), the maker of its entries as sources: a row's entry is made only when a queue or PG
        cites it (SharedPort), or when the row is read or reported here (_cite)."""
        deferred = self.db.deferred(table)
        if deferred is None:
            rows = self.db.table(table).values()
            return zip(map(_KEY, rows), map(_FIELDS, rows), rows, strict=True), None
        doc, raw = deferred
        make = entry_maker(doc, table)
        return self._runs(raw, make), make

    def _runs(self, raw: dict[str, dict], make: Callable[[str], Entry]) -> Iterator[tuple[str, dict, None]]:
        """A deferred table's rows as (key, fields, None), but for the rows a run read before tells: a switch writes
        each port's queues alike (`Ethernet4|0` .. `Ethernet4|7` with the fields of `Ethernet0|0` .. `Ethernet0|7`),
        so a run of one port's rows that repeats the last run read row by row (the same keys but for the port's name,
        fields equal to its fields) gives its port that run's events and the run's own keys here, without a row read:
        what reading them one by one gives (see _run_read for when a run may be repeated so). A table whose first run
        is shorter than _RUN_MIN rows (a port's PGs or buffer queues) is read row by row: checking a run of one or two
        rows costs more than reading them. Before either, the rest of the table is tried as the first run repeated
        throughout (_rest_repeats), which takes it at once."""
        keys, rows = list(raw), list(raw.values())
        ports = self.ports
        template: tuple | None = None  # (key suffixes, rows, events, how many) of the last run that may be repeated
        run: list | None = None  # [port, first row, issues, absent references, its events, their count] read now
        i, end = 0, len(keys)
        while i < end:
            key = keys[i]
            port = key.rpartition("|")[0]
            if run is not None and port == run[0]:
                yield key, rows[i], None
                i += 1
                continue
            if run is not None:
                first = run[1] == 0
                template = self._run_read(run, keys, rows, i) or template
                if first and template is not None and self._rest_repeats(keys, rows, i, template, make):
                    return
                if first and i < _RUN_MIN:
                    yield from zip(keys[i:], rows[i:], repeat(None))
                    return
            if template is not None:
                suffixes, fields, events, m = template
                if (i + m <= end and self._named + m <= MAX_EXPANDED_PORTS and _repeats(keys, rows, i, port, template)
                        and _one_port(port)):
                    held = ports.get(port) or self.port(port, self._cite(make, key, rows[i]))
                    held["_events"] += events
                    held["_entries"] += keys[i:i + m]
                    self._named += m
                    i += m
                    run = None
                    continue
            known = ports.get(port)
            events = None if known is None else known["_events"]
            run = [port, i, len(self.db.issues), self._absent_refs, events, 0 if events is None else len(events)]
            yield key, rows[i], None
            i += 1

    def _rest_repeats(self, keys: list[str], rows: list[dict], at: int, template: tuple,
                      make: Callable[[str], Entry]) -> bool:
        """Whether the rows from ``at`` to the table's end are each a port's repeat of the first run, ``template``
        (_run_read), one port after another, as a switch configured alike writes them (`Ethernet4|0` .. `Ethernet4|7`,
        `Ethernet8|0` ..): then each port is given the run's events and its own keys here, as _runs would give them run
        by run, and True. Tried once per table, on its first run, with passes in C over the rest of the table (the rows
        compared as one list, the keys of each index as one joined text): linear, where a check per port costs more
        than a run of one or two rows (BUFFER_PG, BUFFER_QUEUE) is worth."""
        suffixes, fields, events, m = template
        count, left = divmod(len(keys) - at, m)
        if left or not count or self._named + m * count > MAX_EXPANDED_PORTS or rows[at:] != fields * count:
            return False
        heads = keys[at::m]  # each port's first key
        cut = len(suffixes[0])
        names = [head[:-cut] for head in heads]
        joined = "\n".join(names)
        # Each name one port as it is (_one_port) and without a blank or newline, nor any suffix with a newline: joined
        # texts of as many keys are then equal only key for key. The names split back out of their text exactly only
        # then (an empty name or a blank or newline in one splits otherwise): passes in C, where a regular expression
        # for the blanks at a name's ends tried each character (28 us a table of 64 ports; a bench switch's parse 4.7 %
        # more instructions). A name with a blank inside is read run by run in _runs instead: the same device.
        if "\n" in "".join(suffixes) or "," in joined or "|" in joined or joined.split() != names:
            return False
        if not all("\n".join(keys[at + j::m]) == (suffix + "\n").join(names) + suffix
                   for j, suffix in enumerate(suffixes)):
            return False
        ports = self.ports
        for n, port in enumerate(names):
            start = at + n * m
            held = ports.get(port) or self.port(port, self._cite(make, heads[n], rows[start]))
            held["_events"] += events
            held["_entries"] += keys[start:start + m]
        self._named += m * count
        return True

    def _run_read(self, run: list, keys: list[str], rows: list[dict], end: int) -> tuple | None:
        """(key suffixes, rows, events, how many) of a run of rows (``run`` as _runs keeps it, ``end`` its end) read one
        by one, when a run of another port's rows equal to it but for the name reads the same: each row a key
        `<port>|<index>` of one port and index (one event each), every field text, nothing said and no table the input
        lacks named while they were read (so every setting read is one _read_alike kept: the same fields give the same
        events); None otherwise."""
        port, start, said, absent, events, before = run
        if (events is None or len(events) - before != end - start or (len(self.db.issues), self._absent_refs) != (
                said, absent) or not _one_port(port)):
            return None
        fields = rows[start:end]
        if not all(type(value) is str for row in fields for value in row.values()):
            return None
        return tuple(key[len(port):] for key in keys[start:end]), fields, events[before:], end - start

    def _cite(self, make: Callable[[str], Entry], key: str, fields: dict) -> Entry:
        """The entry of a deferred table's row, with its fields (released with the others once the device is built)."""
        e = make(key)
        e.fields = fields
        self._cited.append(e)
        return e

    def _shared_part(self, events: list[int]) -> tuple:
        """(SharedPort._shared, the PG indexes, the clashes) of a port that met ``events`` (numbers from _event, in
        table order):
        worked out once per sequence, which the ports of a switch configured alike share. The same steps as one
        Queue and PG object per port took: a QUEUE entry makes the queue (its entry the queue's source) or sets the
        scheduler and ECN it names on the one made before; a BUFFER_QUEUE entry sets the egress profile (its entry the
        buffer_source), making the queue if no QUEUE entry did; a BUFFER_PG entry makes the PG, and so does
        buffermgrd's run-time PG (see _finish). Two keys that set one queue's or PG's setting differently are a clash
        (_overlaps): that setting is left unknown, the PG left out."""
        key = tuple(events)
        known = self._shared.get(key)
        if known is None:
            queues: dict[int, list] = {}  # index -> [scheduler, ecn, buffer profile, source at, buffer source at]
            pgs: dict[int, tuple] = {}  # index -> (profile, computed at run time, source at)
            # Two keys that set one queue's or PG's setting differently (see _overlaps): (kind, index, field) -> the
            # place of the entry that set it; the clashes as (earlier place, later place, kind, index, field, the two
            # values); what clashed stays unknown, whatever a third key sets.
            setter: dict[tuple, int] = {}
            clashes: list[tuple] = []
            unknown: set[tuple] = set()
            table = self._events

            def clash(at: int, kind: str, index: int, field: int, old: object, new: object) -> bool:
                """Whether ``new``, set at ``at``, is unknown: it or the value before is (else it is recorded)."""
                where = (kind, index, field)
                if where in unknown:
                    return True
                before = setter.get(where)
                setter[where] = at
                # (by name too: a partial dump without SCHEDULER/WRED_PROFILE makes a placeholder per entry, each with
                # its own source, for keys naming the same profile)
                if before is None or old == new or _clash_name(old) == _clash_name(new):
                    return False
                unknown.add(where)
                clashes.append((before, at, kind, index, field, old, new))
                return True

            for at, number in enumerate(key):
                kind, index, what, more, _ = table[number]
                if kind == "queue":
                    queue = queues.get(index)
                    if queue is None:
                        queues[index] = [what, more, None, at, -1]
                        if what is not None:
                            setter[(kind, index, 0)] = at
                        if more is not None:
                            setter[(kind, index, 1)] = at
                        continue
                    if what is not None:
                        queue[0] = _UNKNOWN_SCHEDULER if clash(at, kind, index, 0, queue[0], what) else what
                    if more is not None:
                        queue[1] = _UNKNOWN_ECN if clash(at, kind, index, 1, queue[1], more) else more
                elif kind == "buffer":
                    queue = queues.get(index)
                    if queue is None:
                        queues[index] = [None, None, what, -1, at]
                        setter[(kind, index, 2)] = at
                    else:
                        # (None: the profile is unknown, as for a queue whose BUFFER_QUEUE entry is not in the input)
                        queue[2] = None if clash(at, kind, index, 2, queue[2], what) else what
                        queue[4] = at
                elif kind == "pg":
                    old = pgs.get(index)
                    if clash(at, kind, index, 0, old and old[:2], (what, more)):
                        pgs.pop(index, None)  # unknown: no PG read (buffermgrd's run-time PG not assumed either)
                    else:
                        pgs[index] = (what, more, at)
                elif kind == "lookup":  # buffermgrd's binding, over the file's (see _bind)
                    pgs[index] = (what, False, at)
                else:  # "runtime"
                    pgs[index] = (None, True, at)
            shared = ((tuple((i, q[0], q[1], q[2]) for i, q in queues.items()),
                       tuple((i, pg[0], pg[1]) for i, pg in pgs.items())),
                      (tuple((q[3], q[4]) for q in queues.values()), tuple(pg[2] for pg in pgs.values())),
                      {i: (pg[0], pg[1]) for i, pg in pgs.items()},
                      tuple(table[number][4] for number in key) if any(table[n][4] for n in key) else None)
            clashed_pgs = {index for kind, index, _ in unknown if kind == "pg"}
            known = self._shared[key] = (shared, frozenset(pgs) | clashed_pgs, tuple(clashes))
        return known

    def _overlaps(self) -> None:
        """Two QUEUE, BUFFER_QUEUE or BUFFER_PG keys of a port that set one queue's or PG's setting differently
        (`Ethernet0|3-4` and `Ethernet0|3`): SYS002 naming both keys' lines, once per pair of keys, the setting read
        as unknown (_shared_part). The switch applies each key to every index of its range, the one applied last
        winning (sonic-swss bufferorch.cpp processPriorityGroup / processQueue, qosorch.cpp handleQueueTable: no
        overlap check), in the order orchagent takes the keys (orch.h SyncMap: a multimap by key name within one
        batch, arrival order across batches), which the file's order does not fix."""
        said: set[tuple] = set()
        for port in self.ports.values():
            events = port["_events"]
            if not events:
                continue
            known = port.get("_shared") or self._shared_part(events)
            port["_shared"] = known  # (its events are final: the port model reuses it)
            for before, at, kind, index, field, old, new in known[2]:
                first, later = self._entry_at(port, before), self._entry_at(port, at)
                pair = (first.key, later.key, kind, field)
                if pair in said:
                    continue
                said.add(pair)
                table, what, unit = _CLASH_WORDS[(kind, field)]
                where = first.source()
                self.db.issue(
                    f"{table}|{first.key}{f' (line {where.line})' if where.line else ''} and {table}|{later.key} both "
                    f"set the {what} of {unit} {index} ({_clash_name(old)} and {_clash_name(new)}): SONiC applies the "
                    "keys in an order the file does not fix, so which one the switch runs is unknown; read as unknown "
                    "(give each index one key)", later.source())

    def _entry_at(self, port: dict, at: int) -> Entry:
        """The entry at place ``at`` of the port's entries (made now if its table is deferred: see _rows)."""
        entry = port["_entries"][at]
        make = self._events[port["_events"][at]][4]
        return make(entry) if make else entry

    def _port_model(self, fields: dict) -> Port:
        """The Port of ``fields``: a SharedPort where entries made queues or PGs (see _shared_part), whose watchdog too
        is made when first read."""
        events, entries, known = fields.pop("_events"), fields.pop("_entries"), fields.pop("_shared", None)
        wd = fields.pop("_wd", None)
        if not events:
            if wd is not None:
                fields["watchdog"] = watchdog_of(*wd)
            return Port(**fields)
        return shared_port(fields, (known or self._shared_part(events))[0], entries, wd)

    def _read_alike(self, memo: dict, written: tuple | str | None, read: Callable[..., T], *args: object) -> T:
        """``read(*args)`` of an entry (the caller found ``written``, the fields it depends on, not in ``memo``): kept
        for the next entries written alike when reading it said nothing (no issue, no reference into a table the
        input lacks) and what was written is text (1, 1.0 and true are equal keys that read differently)."""
        said = len(self.db.issues), self._absent_refs
        out = read(*args)
        if said == (len(self.db.issues), self._absent_refs) and _text_only(written):
            memo[written] = out
        return out

    def qos_map(self, table: str, name: str) -> dict[int, int]:
        """A {number: number} map table entry, parsed once per device."""
        out = self._maps.get((table, name))
        if out is None:
            entry = self.db.table(table)[name]
            out = self._maps[(table, name)] = {}
            top_key, top_value = _MAP_BOUNDS.get(table, (_MAX_INDEX, _MAX_INDEX))
            bad = 0
            number = _MAP_NUMBERS.get
            for key, value in entry.fields.items():
                # (the usual entry, two numbers written plainly within bounds: what the reading below makes of it,
                # without its three calls; a switch's maps have about a hundred entries)
                if (type(value) is str and (k := number(key)) is not None and k <= top_key
                        and (v := number(value)) is not None and v <= top_value):
                    out[k] = v
                    continue
                value = self.text(entry, key)
                if value is None:
                    continue
                try:
                    k = _map_number(key.strip(_C_SPACE) or key, top_key)  # (blanks: _STRTOL_FIELDS)
                    v = _map_number(value.strip(_C_SPACE) or value, top_value)
                except ValueError:
                    bad += 1
                    if bad <= _MAP_ISSUES:
                        self.db.issue(f"{table}|{name} maps {_quoted(key)} to {_quoted(value)}: not two numbers "
                                      f"0-{top_key} and 0-{top_value}; ignored", entry.source(key))
                    continue
                out[k] = v
            if bad > _MAP_ISSUES:
                self.db.issue(f"{table}|{name} has {bad - _MAP_ISSUES:,} more entries that are not two numbers "
                              f"0-{top_key} and 0-{top_value} (a map has at most {top_key + 1}); ignored",
                              entry.source())
        return out

    def queue_lists(self, table: str, name: str) -> dict[int, list[int]]:
        """A priority -> queue map as the model keeps it (a pause can stop several queues), built once per device."""
        key = ("lists", table, name)
        out = self._maps.get(key)
        if out is None:
            out = self._maps[key] = {p: [q] for p, q in self.qos_map(table, name).items()}
        return out

    # ---- tables ---------------------------------------------------------------------------------
    def _buffers(self) -> None:
        for name, e in self.db.table("BUFFER_POOL").items():
            self.pools[name] = BufferPool(
                name=name, direction=self.choice(e, "type", {"ingress": "ingress", "egress": "egress", "both": "both"}),
                mode=self.choice(e, "mode", {"static": "static", "dynamic": "dynamic"}),
                size_bytes=self.value(e, "size", _count, "a size in bytes"),
                shared_headroom_bytes=self.value(e, "xoff", _count, "a size in bytes"), source=e.source())
        for name, e in self.db.table("BUFFER_PROFILE").items():
            if self._refused_ref(e, ("pool",)) is not None:
                # bufferorch.cpp processBufferProfile retries it (the pool unresolved): never created, so a PG or
                # queue naming it holds no profile (see ref)
                self._note_form(e, "pool")
                self._uncreated.add(name)
                continue
            size = {f: self.value(e, f, _count, "a size in bytes")
                    for f in ("size", "xon", "xoff", "xon_offset", "static_th")}
            self.profiles[name] = BufferProfile(
                name=name, pool=self.ref(e, "pool", "BUFFER_POOL"), size_bytes=size["size"], xon_bytes=size["xon"],
                xoff_bytes=size["xoff"], xon_offset_bytes=size["xon_offset"], static_threshold_bytes=size["static_th"],
                dynamic_threshold=self.value(e, "dynamic_th", _dynamic_th, "a whole number -8..7 (alpha = 2^it)"),
                headroom_computed_at_runtime=self.text(e, "headroom_type") == "dynamic",
                # bufferorch.cpp processBufferProfile: packet_discard_action drop or trim (SAI
                # PACKET_ADMISSION_FAIL_ACTION DROP / DROP_AND_TRIM); another value fails the profile
                discard_action=self.choice(e, "packet_discard_action", {"drop": "drop", "trim": "trim"}),
                source=e.source())

    def _headroom_facts(self, meta: Entry | None) -> dict:
        """DEVICE_METADATA platform and buffer_model, LOSSLESS_TRAFFIC_PATTERN and DEFAULT_LOSSLESS_BUFFER_PARAMETER
        (one entry each, usually AZURE): what sonic-swss buffer_headroom_mellanox.lua sizes headroom from."""
        facts: dict = {}
        if meta is not None:
            facts["hardware"] = self.text(meta, "platform")
            facts["buffer_model"] = self.choice(meta, "buffer_model", {"traditional": "traditional",
                                                                       "dynamic": "dynamic"})
        for e in self.db.table("LOSSLESS_TRAFFIC_PATTERN").values():
            facts["lossless_mtu_bytes"] = self.value(e, "mtu", _count, "an MTU in bytes")
            facts["small_packet_pct"] = self.value(e, "small_packet_percentage", _percent, "a percentage 0-100")
        for e in self.db.table("DEFAULT_LOSSLESS_BUFFER_PARAMETER").values():
            facts["over_subscribe_ratio"] = self.value(e, "over_subscribe_ratio", _ratio, "a whole number 0-65535")
        return {k: v for k, v in facts.items() if v is not None}

    def _port_table(self) -> None:
        # The fields ports share, as written -> what they set. Not the lanes: each port of a real switch has its own
        # (`0,1,2,3`, `4,5,6,7`), so a key holding them found nothing and every port read every field again.
        read: dict[tuple, dict] = {}
        ports, known = self.ports, self._pfc_known
        for name, e in self.db.table("PORT").items():
            fields = e.fields
            # (counted here where the text reads: value()'s memo never finds a port's own lanes, and its call, key and
            # entry cost more than the count; anything else is value()'s to read and say, as before)
            lanes = fields.get("lanes")
            try:
                lanes = _lane_count(lanes) if type(lanes) is str else self.value(e, "lanes", _lane_count, _LANES)
            except ValueError:
                lanes = self.value(e, "lanes", _lane_count, _LANES)
            written = (fields.get("speed"), fields.get("mtu"), fields.get("admin_status"), fields.get("role"))
            try:
                facts = read[written]
            except (KeyError, TypeError):  # not seen yet, or values that are not strings
                facts = self._read_alike(read, written, lambda e: {
                    "speed_gbps": self.value(e, "speed", _speed, "a speed in Mb/s"),
                    # PORT.mtu is the IP MTU: orchagent/portsorch.cpp setPortMtu adds 14 + 4 + 4 for the frame.
                    "mtu_bytes": self.value(e, "mtu", _mtu, "an MTU of 68-9216 bytes"),
                    "admin_up": self.choice(e, "admin_status", {"up": True, "down": False}),
                    "_role": self.text(e, "role")}, e)
            if "pfc_asym" in fields and self.choice(e, "pfc_asym", _PFC_ASYM):
                self.port(name, e).update(pfc_honoured=list(range(8)), pfc_honoured_source=e.source("pfc_asym"))
            # (text() written out for the usual string or absent field: two calls a port)
            description, alias = fields.get("description", _ABSENT), fields.get("alias", _ABSENT)
            description = description if type(description) is str else None if description is _ABSENT \
                else self.text(e, "description")
            alias = alias if type(alias) is str else None if alias is _ABSENT else self.text(e, "alias")
            # A new port in one display of the keys port() starts it with and update() adds, in their order (a call
            # and a keyword dict less a port; tests/test_sonic_port_rows.py builds every input both ways).
            if name not in ports and len(ports) < MAX_PORTS:
                ports[name] = {"name": name, "source": e, "_events": [], "_entries": [],
                               "pfc_enabled": [] if known else None,
                               **facts, "lanes": lanes, "description": description, "alias": alias}
            else:
                self.port(name, e).update(facts, lanes=lanes, description=description, alias=alias)
        self._alike_names(self.db.table("PORT"))

    def _alike_names(self, table: dict) -> None:
        """SYS002 for PORT keys that differ only in case or surrounding spaces (`Ethernet0`, `ethernet0`, `Ethernet0 `):
        CONFIG_DB keys are exact strings (Redis), so they are two ports, and a setting keyed by one misses the other."""
        folded: dict[str, str] = {}
        for name in table:
            first = folded.setdefault(name.strip().casefold(), name)
            if first != name:
                where = table[first].source()
                self.db.issue(f"PORT keys {_quoted(first)}{f' (line {where.line})' if where.line else ''} and "
                              f"{_quoted(name)} differ only in case or spaces: SONiC reads them as two ports, and a "
                              "setting keyed by one name misses the other; remove or rename the copy",
                              table[name].source())

    def _vlans(self) -> None:
        """VLAN_MEMBER|Vlan<N>|<port or PortChannel>: L2 membership; a PORT-table port in no VLAN is routed ([]).
        A port-channel's VLANs are its PORTCHANNEL_MEMBER ports' (Configuration.md, VLAN_MEMBER and PORTCHANNEL_MEMBER)."""
        if "PORT" in self.db.tables:
            for name in self.db.table("PORT"):
                self.ports[name]["vlans"] = []
        members = self._channels
        member_of: dict[str, str] = {}  # member -> its first channel
        twice: set[str] = set()
        table = self.db.table("PORTCHANNEL_MEMBER")
        for key in table:
            channel, _, member = key.partition("|")
            first = member_of.setdefault(member, channel)
            if first != channel:  # (teamd puts a port in one LAG: teammgrd.cpp addLagMember enslaves it to one team)
                self.db.issue(f"PORTCHANNEL_MEMBER puts {member} in {first} and in {channel}: a port is a member of "
                              f"one port channel, and which one the switch made it is unknown; read as a member of "
                              f"neither (remove one key)", table[key].source())
                twice.add(member)
                continue
            members.setdefault(channel, []).append(member)
        for channel in members if twice else ():
            members[channel] = [m for m in members[channel] if m not in twice]
        for key, e in self.db.table("VLAN_MEMBER").items():
            vlan, _, member = key.partition("|")
            vid = vlan[4:] if vlan.startswith("Vlan") else ""
            if not (is_small_int(vid, 4) and 1 <= int(vid) <= 4094 and member):
                self.db.issue(f"VLAN_MEMBER key {key!r} is not Vlan<1-4094>|<port>; entry skipped", e.source())
                continue
            for name in members.get(member, [member]):
                self.port(name, e).setdefault("vlans", []).append(int(vid))
        for port in self.ports.values():
            if port.get("vlans"):
                port["vlans"] = sorted(set(port["vlans"]))

    def _neighbors(self) -> list[Neighbor]:
        """DEVICE_NEIGHBOR: the device and port the config says is cabled to each of this switch's ports.

        Two key shapes are written: `DEVICE_NEIGHBOR|<port>` with the neighbour in `name` (sonic-cfggen's), and
        `DEVICE_NEIGHBOR|<neighbour>` with this switch's port in `local_port` (sonic-buildimage
        src/sonic-yang-models/doc/Configuration.md, "L2 Neighbors": "neighbor name acting as object key and remote
        port / local port information in attributes")."""
        out = []
        for key, e in self.db.table("DEVICE_NEIGHBOR").items():
            port, name = key, self.text(e, "name")
            if not name and (local := self.text(e, "local_port")):
                port, name = local, key
            if not name:
                self.db.issue(f"DEVICE_NEIGHBOR|{key} has neither a name nor a local_port; entry skipped", e.source())
                continue
            out.append(Neighbor(port=port, remote_device=name, remote_port=self.text(e, "port") or None,
                                origin="config", source=e.source()))
        return out

    def _profile_lists(self) -> None:
        """BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST|<port> profile_list: BUFFER_PROFILE references joined by ','
        (buffermgrd passes the field on to APPL_DB; sonic-swss orch.cpp resolveFieldRefArray splits it with swss
        tokenize and reads each item with parseReference). One item in a form the config's release refuses, or naming
        no profile orchagent creates, makes bufferorch.cpp processIngress/EgressBufferProfileList retry the entry
        (not_resolved -> task_need_retry): none of its profiles is set. The model keeps no profile list; what is read
        here is whether the entry is applied, said where it is not (ref, release_notes)."""
        for table in ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
            for e in self.db.table(table).values():
                raw = self.text(e, "profile_list")
                if raw is None:
                    continue
                # (swss tokenize, std::getline: no item after a final ','; a value without ',' is one item)
                for item in (raw[:-1] if raw.endswith(",") else raw).split(","):
                    if self._form_refused(item, e.table, "profile_list"):
                        self._note_form(e, "profile_list", item)
                        break
                    if not item:
                        # 202111 on: parseReference takes "" as a valid reference to no object, and resolveFieldRefArray
                        # then looks the name "" up with std::map operator[], adding an entry whose SAI object ID is
                        # value-initialized, 0 (SAI_NULL_OBJECT_ID): the port's profile list goes to the SAI with a
                        # null profile in it (orchagent/orch.cpp, bufferorch.cpp processIngressBufferProfileList)
                        self.db.issue(f"{_at(e)} profile_list {_quoted(raw)} holds an empty item, which orchagent "
                                      "(SONiC 202111 on) passes to the switch's SAI as a null profile in the port's "
                                      "buffer profile list (SAI_NULL_OBJECT_ID); whether the SAI refuses the whole "
                                      "list or sets the others could not be verified; remove the empty item",
                                      e.source("profile_list"))
                        break
                    if self.ref(e, "profile_list", "BUFFER_PROFILE", item) is None:
                        break  # (said by ref, or by release_notes / _absent_tables)

    def _port_qos(self) -> None:
        """PORT_QOS_MAP: maps, trust, PFC, and the priorities pfcwd_sw_enable gives the watchdog."""
        table = self.db.table("PORT_QOS_MAP")
        # PORT_QOS_MAP|global binds a switch-wide DSCP_TO_TC_MAP (qosorch handleGlobalQosMap ->
        # SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP) for ports that do not bind their own.
        glob = table.get("global")
        global_dscp = self.ref(glob, "dscp_to_tc_map", "DSCP_TO_TC_MAP") if glob else None
        has_maps = bool(self.db.table("DSCP_TO_TC_MAP") or self.db.table("DOT1P_TO_TC_MAP"))
        recipes: dict[tuple, tuple] = {}  # an entry's fields as written -> what they set (see _qos_recipe)
        ports, wd_priorities, tc_to_pg_names, own_dscp = self.ports, self._wd_priorities, self._tc_to_pg_names, \
            self._own_dscp
        last_fields: dict | None = None  # (as in _queues: the entry before's fields, when found in recipes)
        bound_by: dict[str, tuple[Entry, tuple]] = {}  # port -> the first entry binding it, and what that sets
        clashed: dict[str, tuple] = {}  # port -> (the first recipe, a later one that differs, its entry)
        omits: list[Entry] = []  # a part's entries without pfc_enable (see _part_omits)
        for key, e in table.items():
            fields = e.fields
            if key == "global" or not fields:
                continue
            if fields != last_fields:  # (an entry written as the one before: one comparison in C, no tuple hashed)
                written = tuple(fields.items())
                try:
                    recipe = recipes[written]
                    last_fields = fields
                except (KeyError, TypeError):  # not seen yet, or values that are not strings
                    last_fields = None
                    recipe = self._read_alike(recipes, written, self._qos_recipe, e, glob, has_maps)
            names = _port_names(key)
            if not names:
                continue
            fixed, pfc, trust_field, wd, bound = recipe
            pfc_written, pfcq_written = "pfc_enable" in fields, "pfc_to_queue_map" in fields
            if not pfc_written and not self._whole:
                omits.append(e)
            own = "dscp_to_tc_map" in fields
            pfc_enabled = None if pfc is None else list(pfc)
            pfc_source = e.source("pfc_enable") if pfc_written else e
            trust_source = None if trust_field is None else e.source(trust_field) if trust_field else e
            for name in names:
                again = bound_by.setdefault(name, (e, recipe))[0] is not e  # (bound before: the calls only then)
                if again and _qos_contradict(bound_by[name][1], recipe):
                    self._bound_again(bound_by, clashed, name, e, recipe)
                port = ports.get(name) or self.port(name, e)
                port.update(_qos_written(recipe) if again else fixed)
                port["map_source"], port["pfc_enabled"], port["pfc_source"] = e, pfc_enabled, pfc_source
                port["pfc_off_written"] = pfc_written and pfc_enabled == []  # `pfc_enable: ""`: off in so many words
                if trust_field is not None and not (again and trust_field == ""):
                    port["trust_source"] = trust_source
                port["_pfc_written"], port["_pfcq_written"] = pfc_written, pfcq_written
                if isinstance(wd, str):  # (why the priorities it watches are unknown: _watched)
                    wd_priorities[name], self._wd_kept[name] = None, wd
                else:
                    wd_priorities[name] = wd
                    self._wd_kept.pop(name, None)
                if bound:
                    tc_to_pg_names[name] = bound
                if own:
                    own_dscp.add(name)  # a map we could not read leaves classification unknown
        for name, (first, later, _) in clashed.items():
            self._unknown_where_differing(ports[name], first, later)
        if omits:
            self._part_omits(omits)
        if global_dscp:
            self._global_dscp = (global_dscp, glob.source("dscp_to_tc_map"))

    def _watched(self, e: Entry, written: tuple[int, ...] | None,
                 pfc: tuple[int, ...] | None) -> tuple[int, ...] | str | None:
        """The priorities the PFC watchdog watches on the ports of PORT_QOS_MAP entry ``e`` (``written``: its
        pfcwd_sw_enable as read, ``pfc``: its pfc_enable) by the config's release (_WD_MASK_SINCE): the listed ones;
        None for every PFC-enabled one (pfc_enable's, on the releases that read it); or why they are unknown."""
        if "pfcwd_sw_enable" not in e.fields:
            if not self._whole:
                return _PART_WD_PRIORITIES  # (a part: the switch's own stays)
            written = ()  # (the mask saved for an entry without it: 0)
        elif written is None:
            return None  # (a value not read: said where it is read)
        version = self._db_version()
        if _version_takes(version, _WD_MASK_SINCE, None):
            return written
        if version is not None and not _version_takes(version, *_WD_EITHER):
            return None
        if pfc is not None and set(written) == set(pfc):
            return written  # (both readings agree)
        return _WD_NO_RELEASE if version is None else _WD_EITHER_RELEASE

    def _part_omits(self, omits: list[Entry]) -> None:
        """A CONFIG_DB part's PORT_QOS_MAP entries without pfc_enable: `config load` (sonic-cfggen --write-to-db,
        configdb mod_config) HSETs the fields an entry writes into the switch's own entry, so its pfc_enable (and a map
        binding the entry leaves out) stays; `config qos reload` clears PORT_QOS_MAP before loading its render
        (sonic-utilities config/main.py _clear_qos), so there the port has PFC off. Which of the two loads the part the
        file does not say: PFC on those ports is read as unknown, said once."""
        keys = [e.key for e in omits]
        self.db.issue(f"PORT_QOS_MAP {listed([_quoted(k) for k in keys[:3]])}{' and others' if len(keys) > 3 else ''} "
                      "write no pfc_enable, and the input is a CONFIG_DB part (no PORT or DEVICE_METADATA table): "
                      "`config load` merges an entry's fields into the switch's own (sonic-swss-common configdb "
                      "mod_config), keeping its pfc_enable, while `config qos reload` clears PORT_QOS_MAP first "
                      "(PFC off); PFC on those ports is read as unknown; lint the whole CONFIG_DB, or write pfc_enable "
                      "(\"\" for off)", omits[0].source(), code="SYS004")

    def _bound_again(self, bound_by: dict, clashed: dict, name: str, e: Entry, settings: object) -> None:
        """Entry ``e`` of PORT_QOS_MAP sets ``settings`` on port ``name``, which ``bound_by`` (port -> the
        first entry binding it, and what that sets) holds as bound by another entry: the callers set it first, so a port
        bound once costs a setdefault, not this call (1 % of a bench switch's parse). A second entry that sets
        it differently (`Ethernet0` beside `Ethernet0,Ethernet4`, or a key with a space the parser reads as the same
        port) is a SYS002 naming both, kept in ``clashed`` as (first settings, later settings, later entry).
        qosorch.cpp handlePortQosMapTable applies each key to each port it lists with no check that a port is bound
        once, in the order orchagent takes the keys (orch.h SyncMap, as for _overlaps), which the file's order does not
        fix. (A PFC_WD key is one port: _listed_watchdog.)"""
        first_entry, first = bound_by[name]
        if first == settings or name in clashed:
            return
        clashed[name] = (first, settings, e)
        where = first_entry.source()
        self.db.issue(
            f"PORT_QOS_MAP keys {_quoted(first_entry.key)}{f' (line {where.line})' if where.line else ''} and "
            f"{_quoted(e.key)} both bind port {name}, to different settings: SONiC applies the keys "
            "in an order the file does not fix, so which one the switch runs is unknown; the settings they differ "
            "in are read as unknown (bind each port in one key)", e.source())

    def _unknown_where_differing(self, port: dict, first: tuple, later: tuple) -> None:
        """Forget what two PORT_QOS_MAP entries of one port set differently (_bound_again): the model's None is
        unknown, so no rule reads either entry's value as the switch's; the watchdog guards what both entries give
        it."""
        (_, pfc_a, _, wd_a, bound_a), (_, pfc_b, _, wd_b, bound_b) = first, later
        fixed_a, fixed_b = _qos_written(first), _qos_written(later)
        for field in fixed_a.keys() & fixed_b.keys():  # (a map one key leaves out the other's binds: _qos_contradict)
            if fixed_a[field] != fixed_b[field]:
                port[field] = None
        if port.get("trust") is None and fixed_a.get("trust") != fixed_b.get("trust"):
            port["trust_unknown"] = "two PORT_QOS_MAP keys bind the port to different trusts (see the SYS002)"
        if pfc_a != pfc_b:
            port["pfc_enabled"], port["pfc_off_written"] = None, False
        if isinstance(wd_a, str) or isinstance(wd_b, str):  # (one entry's watched priorities unknown: _watched)
            self._wd_kept[port["name"]] = wd_a if isinstance(wd_a, str) else wd_b
        elif wd_a != wd_b:  # (None guards every lossless priority: only what both guard is surely guarded)
            both = wd_b if wd_a is None else wd_a if wd_b is None else tuple(p for p in wd_a if p in wd_b)
            self._wd_priorities[port["name"]] = both
        if bound_a and bound_b and bound_a != bound_b:
            self._tc_to_pg_names.pop(port["name"], None)

    def _qos_recipe(self, e: Entry, glob: Entry | None, has_maps: bool) -> tuple:
        """What one PORT_QOS_MAP entry sets, without where: (fields, PFC priorities, the field whose source is the
        trust's ("" the entry's, None: no trust set), pfcwd_sw_enable priorities (or why unknown: _watched), the
        tc_to_pg_map it names)."""
        prios = "a list of priorities 0-7"
        if (refused := self._refused_ref(e, _PORT_QOS_REFS)) is not None:
            # never applied: neither maps, pfc_enable nor the watchdog mask (a whole CONFIG_DB's port has PFC off and
            # its watchdog watches nothing on any release: the mask 202205 on reads stays 0, port.h, and the PFC bits
            # 202111 and before read are never set; a part's keeps the switch's, unknown)
            self._note_form(e, refused)
            if self._whole:
                return {"qos_configured": True}, (), None, (), None
            return {"qos_configured": True}, None, None, _PART_WD_PRIORITIES, None
        dscp = self.ref(e, "dscp_to_tc_map", "DSCP_TO_TC_MAP")
        dot1p = self.ref(e, "dot1p_to_tc_map", "DOT1P_TO_TC_MAP")
        tc_to_pg = self.ref(e, "tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP")
        tc_to_queue = self.ref(e, "tc_to_queue_map", "TC_TO_QUEUE_MAP")
        pfc_to_queue = self.ref(e, "pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE")
        # Without pfc_enable a whole CONFIG_DB's port has PFC off; a part's entry merges into the switch's own
        # (configdb mod_config HSETs the fields written), whose pfc_enable stays: unknown (_part_omits).
        pfc_read = self.value(e, "pfc_enable", _priority_list, prios) if "pfc_enable" in e.fields \
            else ((), ()) if self._whole else None
        wd_read = self.value(e, "pfcwd_sw_enable", _priority_list, prios)
        pfc, wd = (None if got is None else got[0] for got in (pfc_read, wd_read))
        wd = self._watched(e, wd, pfc)
        for field, got in (("pfc_enable", pfc_read), ("pfcwd_sw_enable", wd_read)):
            read, cut = got or ((), ())
            if cut:
                self.db.issue(
                    f"{_at(e)} {field} {_quoted(self.text(e, field) or '')} is read by orchagent as priorit"
                    f"{'y' if len(read) == 1 else 'ies'} {','.join(map(str, read))}: it reads each ','-separated item "
                    f"up to its first character that is no digit (std::stoi), so {'; '.join(cut)}; list each priority, "
                    "separated by ',' (e.g. '3,4'), as sonic-port-qos-map.yang requires", e.source(field))
        fields: dict = {"qos_configured": True}
        trust_field = None
        if "dscp_to_tc_map" in e.fields:
            if dscp:
                fields.update(dscp_to_tc=self.qos_map("DSCP_TO_TC_MAP", dscp), trust=Trust.dscp)
                trust_field = "dscp_to_tc_map"
        elif glob and "dscp_to_tc_map" in glob.fields:
            pass  # the switch-wide map applies (see _finish)
        elif dot1p:  # (qosorch.cpp Dot1pToTcMapHandler: PCP -> TC)
            fields.update(pcp_to_tc=self.qos_map("DOT1P_TO_TC_MAP", dot1p), trust=Trust.pcp)
            trust_field = "dot1p_to_tc_map"
        elif "dot1p_to_tc_map" not in e.fields and has_maps and self._whole:  # (a part's: the switch's binding stays)
            # The input defines classification maps but binds none here: the port classifies
            # nothing. Without any map tables the dump is partial and trust stays unknown.
            fields["trust"], trust_field = Trust.none, ""
        if tc_to_pg:
            fields["tc_to_pg"] = self.qos_map("TC_TO_PRIORITY_GROUP_MAP", tc_to_pg)
        if tc_to_queue:
            fields["tc_to_queue"] = self.qos_map("TC_TO_QUEUE_MAP", tc_to_queue)
        if pfc_to_queue:
            fields["pfc_priority_to_queue"] = self.queue_lists("MAP_PFC_PRIORITY_TO_QUEUE", pfc_to_queue)
        # Which PG's XOFF pauses which priority (qosorch.cpp PfcPrioToPgHandler ->
        # SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP); qos_config.j2 binds it on Mellanox and Barefoot only.
        if pfc_to_pg := self.ref(e, "pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"):
            fields["pfc_priority_to_pg"] = self.qos_map("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", pfc_to_pg)
            fields["pfc_priority_to_pg_source"] = self.db.table("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP")[pfc_to_pg]
        # Without a bound TC_TO_QUEUE_MAP or MAP_PFC_PRIORITY_TO_QUEUE the SAI default applies (saiport.h:
        # no map), which the running switch, not the config, decides: both stay unknown.
        # Egress DSCP remark by TC (qosorch.cpp tc_to_dscp_map -> SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP).
        if tc_to_dscp := self.ref(e, "tc_to_dscp_map", "TC_TO_DSCP_MAP"):
            fields["tc_to_dscp_rewrite"] = self.qos_map("TC_TO_DSCP_MAP", tc_to_dscp)
        return fields, pfc, trust_field, wd, self.bound_name(e, "tc_to_pg_map")

    def _queues(self) -> None:
        """QUEUE|<ports>|<range>: scheduler and WRED/ECN profile; a queue without wred_profile keeps ecn None.

        Queues naming the same SCHEDULER or WRED_PROFILE share one (read-only) Scheduler or Ecn object.
        """
        # (scheduler, wred_profile) as written -> their objects, and the event (_event) of each queue index it sets
        settings: dict[tuple, tuple] = {}
        # The fields of the entry before, when what it wrote was found in settings (only text is kept there: what
        # equals it reads as it does, and a dict of them equals only one of the same texts); the port of the entry
        # before (a switch writes a port's queues one after another, most of them alike).
        last_fields: dict | None = None
        name: str | None = None
        events: list[int] = []
        entries: list[Entry | str] = []
        rows, make = self._rows("QUEUE")
        for key, fields, e in rows:
            pairs = _pairs(key)
            if pairs is None:
                pairs = self.split_pairs(e if e is not None else self._cite(make, key, fields))
                if pairs is None:
                    continue
            if "," in key:  # (a list of ports: see known_pairs)
                pairs = self.known_pairs("QUEUE", pairs, key, fields, e, make)
            self._named += len(pairs)
            if self._named > MAX_EXPANDED_PORTS:
                self._too_many(e if e is not None else self._cite(make, key, fields))
            if fields != last_fields:  # (one comparison in C where the entry is written as the one before)
                written = (fields.get("scheduler"), fields.get("wred_profile"))
                try:
                    scheduler, ecn, numbers = settings[written]
                    last_fields = fields
                except (KeyError, TypeError):  # not seen yet, or not strings
                    last_fields = None
                    scheduler, ecn, numbers = self._read_alike(
                        settings, written, lambda e: (*self._queue_settings(e), {}),
                        e if e is not None else self._cite(make, key, fields))
            for port, index in pairs:
                if port is not name:
                    held = self.ports.get(port) or self.port(port, self._cite(make, key, fields) if e is None else e)
                    name, events, entries = port, held["_events"], held["_entries"]
                number = numbers.get(index)
                if number is None:
                    number = numbers[index] = self._event("queue", index, scheduler, ecn, make)
                events.append(number)
                entries.append(key if make else e)

    def _queue_settings(self, e: Entry) -> tuple[Scheduler | None, Ecn | None]:
        """A QUEUE entry's scheduler and ECN. When it names a profile orchagent refuses (_ORCH_FIELDS) neither is set
        (a scheduler saying why, for SCH001); when one orchagent takes on some releases only (_ORCH_SOME_RELEASES),
        both are unknown."""
        refs = (("scheduler", "SCHEDULER"), ("wred_profile", "WRED_PROFILE"))
        if (form := self._refused_ref(e, ("scheduler", "wred_profile"))) is not None:
            # (orch.cpp parseReference refuses the form: handleQueueTable retries the whole entry, neither applied)
            self._note_form(e, form)
            why = (f"{_at(e)} {form} is written in a form this config's SONiC release refuses, so orchagent never "
                   "applies the QUEUE entry (see the SYS002 on the references' form)")
            return Scheduler(name=self.bound_name(e, "scheduler"), unapplied=why, source=e.source(form)), None
        names, verdicts = [], []
        for field, table in refs:
            name = self.bound_name(e, field) if type(e.fields.get(field)) is str else None
            names.append(name)
            if name and table in self.db.tables and name in self.db.table(table):
                verdict = self._refused(table, name)
                if verdict is not None:
                    verdicts.append(verdict)
        if not verdicts:
            return self._scheduler(e), self._ecn(e)
        for other in refs:
            self.ref(e, *other)  # (a name the config does not define is still said)
        refused, why, source = max(verdicts, key=lambda v: v[0])  # (one every release refuses first)
        scheduler = Scheduler(name=names[0], unapplied=why, source=source)
        if refused or not names[1]:  # (an entry naming no WRED profile marks nothing, applied or not)
            return scheduler, None
        return scheduler, Ecn(profile=names[1], unapplied=why, source=source)

    def _refused(self, table: str, name: str) -> tuple[bool, str, Source] | None:
        """Whether orchagent never creates this SCHEDULER or WRED_PROFILE entry: (True, why, where) when no release
        does (_ORCH_FIELDS: a field none takes, a value its reader throws on), (False, why, where) when some releases
        refuse it (_ORCH_SOME_RELEASES), None when every one takes it. Said once, at the field."""
        if (table, name) in self._refusals:
            return self._refusals[(table, name)]
        e = self.db.table(table)[name]
        hard: tuple[str, str] | None = None
        soft: tuple[str, str] | None = None
        taken = None  # (the first db_migrator version that takes the soft field)
        for f, value in e.fields.items():
            takes = _ORCH_FIELDS[table].get(f)
            text = value if type(value) is str else _scalar_text(value)
            releases = _ORCH_SOME_RELEASES[table].get(f)
            if takes is None and releases is None:
                hard = (f, "a field orchagent does not take")
            elif takes is not None and text is not None and isinstance(takes[0], str) and text not in takes:
                hard = (f, f"not one of {', '.join(map(str, takes))}")
            elif takes is not None and text is not None and isinstance(takes[0], int) and not _sto_reads(text, *takes):
                hard = (f, "no number orchagent reads (std::stoi / std::stoull throws on it)")
            elif releases is not None and soft is None and (release := self._release_takes(*releases[1:])) is not True:
                if release is False:  # the config's own release refuses it: as a field no release takes
                    hard = (f, f"a field {releases[0]}, and this config's VERSIONS|DATABASE VERSION "
                               f"{_quoted(self._db_version() or '')} names a release that refuses it")
                else:
                    soft, taken = (f, releases[0]), releases[1]
            if hard is not None:
                break
        verdict = None
        said_at = hard or soft
        if said_at is not None:
            f, what = said_at
            source = e.source(f)
            said = f"{_at(e)} {f} {_quoted(str(e.fields[f]))}"
            at = f"line {source.line}" if source.line else _clip(str(source.pointer))
            if hard:
                self.db.issue(f"{said} is {what}: orchagent refuses the whole {table} entry and never creates it "
                              f"(sonic-swss qosorch.cpp), nor applies the QUEUE entries naming it, neither their "
                              f"scheduler nor their WRED profile; remove the field or write it as orchagent takes it",
                              source)
                why = f"orchagent refuses {_at(e)}, so the QUEUE entry is never applied (SYS002 at {at})"
            else:
                # A release that takes it exists: the config, which names none, is no error of its own (SYS004, info:
                # the input leaves the release out); a field no release takes yet stays a warning.
                code = "SYS002" if taken is None else "SYS004"
                self.db.issue(f"{said} is a field {what}; where orchagent refuses it, it never creates the {table} "
                              f"entry nor applies the QUEUE entries naming it (sonic-swss qosorch.cpp), so their "
                              f"scheduler and WRED profile are read as unknown; remove the field if the switch's "
                              f"SONiC release refuses it{'' if taken is None else _SAY_RELEASE}", source, code)
                why = (f"{_at(e)} has {f}, {what}, so whether the QUEUE entry is applied depends on the switch's "
                       f"release ({code} at {at})")
            verdict = (hard is not None, why, source)
        self._refusals[(table, name)] = verdict
        return verdict

    def _db_version(self) -> str | None:
        """The config's db_migrator version (VERSIONS|DATABASE VERSION) where it is one losslessd reads; a multi-ASIC
        switch's where its namespaces name one (_switch_release)."""
        return self._version

    def _release_takes(self, since: tuple[int, ...] | None, before: tuple[int, ...] | None) -> bool | None:
        """Whether the config's db_migrator version is one of the releases that take a field: None where the config
        names no release (a template render, a file not saved on the switch) or no release takes the field yet."""
        return _version_takes(self._db_version(), since, before)

    def _scheduler(self, e: Entry) -> Scheduler | None:
        name = self.ref(e, "scheduler", "SCHEDULER")
        if name is None:
            unknown = self.absent(e, "scheduler", "SCHEDULER")
            return Scheduler(name=unknown, source=e.source("scheduler")) if unknown else None
        sched = self._schedulers.get(name)
        if sched is None:
            s = self.db.table("SCHEDULER")[name]
            sched = self._schedulers[name] = Scheduler(
                name=name, type=self.choice(s, "type", _SCHEDULER_TYPES),
                weight=self.value(s, "weight", _weight, "a whole-number weight 0-255"), source=s.source(),
                # SCHEDULER pir (peak information rate, bytes/s; qosorch.cpp SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE)
                shaped=bool(self.value(s, "pir", _count, "a rate in bytes per second")))
        return sched

    def _ecn(self, e: Entry) -> Ecn | None:
        name = self.ref(e, "wred_profile", "WRED_PROFILE")
        if name is None:  # a profile the partial input leaves out: marking unknown, not off
            unknown = self.absent(e, "wred_profile", "WRED_PROFILE")
            return Ecn(profile=unknown, source=e.source("wred_profile")) if unknown else None
        ecn = self._wred.get(name)
        if ecn is None:
            w = self.db.table("WRED_PROFILE")[name]
            mode = self.choice(w, "ecn", _ECN_MODES)
            # No `ecn` field: SAI_WRED_ATTR_ECN_MARK_MODE defaults to NONE (SAI saiwred.h metadata). A mode that marks
            # green without `wred_green_enable` "true" (sonic-buildimage issue 4545's question) marks by the SAI header
            # (GREEN_MIN/MAX_THRESHOLD valid where GREEN_ENABLE is true or ECN_MARK_MODE marks green, @validonly, SAI
            # 55b0a474), but the issue's switch marked nothing and NVIDIA Spectrum's SAI refuses a profile with no
            # colour enabled (docs/render.md): which depends on the switch's SAI, so the marking is unknown, named why.
            enabled = None if mode is None and "ecn" in w.fields else mode in _ECN_MARKS_GREEN
            unsure = enabled and self.text(w, "wred_green_enable") != "true"
            # qosorch.cpp WredMapHandler::addQosItem: green WRED enabled with no green_drop_probability is created
            # with SAI_WRED_ATTR_GREEN_DROP_PROBABILITY 100
            pmax = 100.0 if "green_drop_probability" not in w.fields and self.text(w, "wred_green_enable") == "true" \
                else self.value(w, "green_drop_probability", _percent, "a percentage 0-100")
            # WRED drops green packets where `wred_green_enable` is "true" (SAI_WRED_ATTR_GREEN_ENABLE, default false):
            # those it does not mark, every one where the mode marks no green (saiwred.h; uncoloured traffic is green).
            green = self.text(w, "wred_green_enable")
            drops = ("none" if green in (None, "false") else None if green != "true" or enabled is None
                     else "non-ect" if enabled else "all")
            ecn = self._wred[name] = Ecn(
                profile=name, ecn_enabled=None if unsure else enabled, wred_drops=drops,
                unapplied=f"WRED_PROFILE|{name} marks green with `wred_green_enable` not \"true\": the SAI header "
                "marks so, NVIDIA Spectrum's SAI refuses the profile and other switches have marked nothing "
                "(sonic-buildimage issue 4545); write wred_green_enable \"true\"" if unsure else None,
                min_threshold_bytes=self.value(w, "green_min_threshold", _count, "a threshold in bytes"),
                max_threshold_bytes=self.value(w, "green_max_threshold", _count, "a threshold in bytes"),
                mark_probability_pct=pmax, source=w.source())
        return ecn

    def _pg_profile(self, e: Entry) -> tuple[str | None, bool]:
        """(profile name, computed at run time) for a BUFFER_PG entry."""
        if self.text(e, "profile") == "NULL":  # dynamic buffer model: headroom computed by buffermgrd
            return None, True
        name = self.ref(e, "profile", "BUFFER_PROFILE")
        profile = self.profiles.get(name) if name else None
        if profile is not None and profile.discard_action == "trim":
            # bufferorch.cpp processPriorityGroup: a profile isTrimmingEligible (buffer/buffercontainer.h) fails the
            # PG entry (task_failed, the entry dropped), so the PG keeps no profile of the config
            self.db.issue(f"{_at(e)} profile names {name}, a packet-trimming profile (packet_discard_action trim), "
                          "which orchagent refuses on a PG (sonic-swss bufferorch.cpp processPriorityGroup: \"buffer "
                          "profile is trimming eligible\"), so the entry is dropped and the PG is read as unbound; "
                          "bind the PG to a profile without packet_discard_action trim (trimming serves queues only)",
                          e.source("profile"))
            return None, False
        return name, bool(profile and profile.headroom_computed_at_runtime)

    def _priority_groups(self) -> None:
        profiles: dict = {}  # profile as written -> (name, computed at run time, {PG index: its event})
        last_written: object = _ABSENT  # (as in _queues)
        name: str | None = None
        events: list[int] = []
        entries: list[Entry | str] = []
        rows, make = self._rows("BUFFER_PG")
        for key, fields, e in rows:
            pairs = _pairs(key, _MAX_PG)
            if pairs is None:
                pairs = self.split_pairs(e if e is not None else self._cite(make, key, fields), _MAX_PG)
                if pairs is None:
                    continue
            if "," in key:  # (a list of ports: see known_pairs)
                pairs = self.known_pairs("BUFFER_PG", pairs, key, fields, e, make)
            self._named += len(pairs)
            if self._named > MAX_EXPANDED_PORTS:
                self._too_many(e if e is not None else self._cite(make, key, fields))
            written = fields.get("profile")
            try:
                if written != last_written:
                    profile, runtime, numbers = profiles[written]
                    last_written = written
            except (KeyError, TypeError):
                last_written = _ABSENT
                profile, runtime, numbers = self._read_alike(
                    profiles, written, lambda e: (*self._pg_profile(e), {}),
                    e if e is not None else self._cite(make, key, fields))
            for port, index in pairs:
                if port is not name:
                    held = self.ports.get(port) or self.port(port, self._cite(make, key, fields) if e is None else e)
                    name, events, entries = port, held["_events"], held["_entries"]
                number = numbers.get(index)
                if number is None:
                    number = numbers[index] = self._event("pg", index, profile, runtime, make)
                events.append(number)
                entries.append(key if make else e)

    def _buffer_queues(self) -> None:
        """BUFFER_QUEUE|<ports>|<range>: each queue's egress buffer profile (sonic-swss bufferorch.cpp processQueue
        sets SAI_QUEUE_ATTR_BUFFER_PROFILE_ID on every queue of the range). A queue no QUEUE entry wrote is made
        here without a source of its own (its scheduler and ECN stay unknown)."""
        names: dict = {}  # profile as written -> (the BUFFER_PROFILE name, {queue index: its event})
        last_written: object = _ABSENT
        name: str | None = None
        events: list[int] = []
        entries: list[Entry | str] = []
        rows, make = self._rows("BUFFER_QUEUE")
        for key, fields, e in rows:
            pairs = _pairs(key, _MAX_BUFFER_QUEUE)
            if pairs is None:
                pairs = self.split_pairs(e if e is not None else self._cite(make, key, fields), _MAX_BUFFER_QUEUE)
                if pairs is None:
                    continue
            if "," in key:  # (a list of ports: see known_pairs)
                pairs = self.known_pairs("BUFFER_QUEUE", pairs, key, fields, e, make)
            self._named += len(pairs)
            if self._named > MAX_EXPANDED_PORTS:
                self._too_many(e if e is not None else self._cite(make, key, fields))
            written = fields.get("profile")
            try:
                if written != last_written:
                    profile, numbers = names[written]
                    last_written = written
            except (KeyError, TypeError):
                last_written = _ABSENT
                profile, numbers = self._read_alike(names, written, lambda e: (self._queue_profile(e), {}),
                                                    e if e is not None else self._cite(make, key, fields))
            for port, index in pairs:
                if port is not name:
                    held = self.ports.get(port) or self.port(port, self._cite(make, key, fields) if e is None else e)
                    name, events, entries = port, held["_events"], held["_entries"]
                number = numbers.get(index)
                if number is None:
                    number = numbers[index] = self._event("buffer", index, profile, None, make)
                events.append(number)
                entries.append(key if make else e)

    def _queue_profile(self, e: Entry) -> str | None:
        """The BUFFER_PROFILE a BUFFER_QUEUE entry names, also one of a table the partial input leaves out."""
        if self.text(e, "profile") == "NULL":
            return None
        return self.ref(e, "profile", "BUFFER_PROFILE") or self.absent(e, "profile", "BUFFER_PROFILE")

    def _cable_lengths(self) -> None:
        ports = self.ports
        last: str | None = None  # the text read before, when it read as a length (most ports write one)
        length = None
        for e in self.db.table("CABLE_LENGTH").values():
            for name, written in e.fields.items():
                if written != last or type(written) is not str:  # (the same text reads the same: no value() call)
                    length = self.value(e, name, cable_m, f"a cable length such as '5m', at most {MAX_CABLE_M:,} m")
                    last = written if length is not None and type(written) is str else None
                if length is not None:
                    self._cable_text[name] = written
                    (ports.get(name) or self.port(name, e, name))["cable_length_m"] = length

    def _watchdogs(self) -> None:
        """PFC_WD|<port>: watchdog on; a port missing from a present PFC_WD table: off (unknown in a part); no table:
        unknown, but off when the device's DEVICE_METADATA says `default_pfcwd_status: disable`: sonic-utilities
        pfcwd/main.py start_default (what `config load_minigraph` runs) then writes no PFC_WD entry, so no watchdog
        runs."""
        if "PFC_WD" not in self.db.tables:
            meta = self.db.table("DEVICE_METADATA").get("localhost")
            if meta is not None and (self.text(meta, "default_pfcwd_status") or "").lower() == "disable":
                off = Watchdog(enabled=False, source=meta.source("default_pfcwd_status"))
                for port in self.ports.values():
                    port["watchdog"] = off
            return
        table = self.db.table("PFC_WD")
        glob = table.get("GLOBAL")
        poll = self.value(glob, "POLL_INTERVAL", _ms, "a time in ms") if glob else None
        if glob and "BIG_RED_SWITCH" in glob.fields:
            # pfcwdsworch.cpp setBigRedSwitchMode: "enable" or "disable"; any other word is logged and ignored
            self._big_red_switch = self.choice(glob, "BIG_RED_SWITCH", {"enable": True, "disable": False})
            self._big_red_switch_source = glob.source("BIG_RED_SWITCH")
        default_rule = self._start_default(poll)
        if poll is None:
            poll = float(WD_POLL_WITHOUT_GLOBAL_MS)
        read: dict[tuple, tuple] = {}  # the fields as written -> what they set
        ports, wd_priorities = self.ports, self._wd_priorities
        last_fields: dict | None = None  # (as in _port_qos)
        for key, e in table.items():
            if key == "GLOBAL":
                continue
            if "," in key or not key:
                self._listed_watchdog(key, e, table)
                continue
            fields = e.fields
            if fields != last_fields:
                written = (fields.get("detection_time"), fields.get("restoration_time"), fields.get("action"))
                try:
                    detection, restoration, word, action, rule, refused = read[written]
                    last_fields = fields
                except (KeyError, TypeError):  # not seen yet, or values that are not strings
                    last_fields = None
                    detection, restoration, word, action, rule, refused = self._read_alike(
                        read, written, self._watchdog_settings, key, e, default_rule)
            port = ports.get(key) or self.port(key, e)
            if refused is not None:
                # A refused entry stops no watchdog (createEntry returns before startWdOnPort), and a part's fields
                # merge into the switch's own PFC_WD|<port> (configdb mod_config): in a part, the switch's decides.
                if self._whole:
                    port["watchdog"] = Watchdog(enabled=False, source=e.source(refused or None))
                continue
            # The watchdog's settings (its fields but the source, in order: what lint/groups.py keys of it) and its
            # source: a SharedPort makes it when it is first read (see _port_model).
            # (a part keeps the switch's own pfcwd_sw_enable where it writes none for the port: _PART_WD_PRIORITIES)
            unknown = self._wd_kept.get(key) or (
                _PART_WD_PRIORITIES if not self._whole and key not in wd_priorities else None)
            port["_wd"] = ((True, wd_priorities.get(key), detection, restoration, poll, action, word,
                            rule[1] if rule else None, None, unknown), e)
        if not self._whole:  # (a part keeps the switch's PFC_WD keys of the ports it leaves out: _PART_ECN)
            return
        source = self.db.table_source["PFC_WD"]
        for port in self.ports.values():
            if "watchdog" not in port and "_wd" not in port:
                port["watchdog"] = Watchdog(enabled=False, source=source)

    def _part_queues(self) -> None:
        """In a CONFIG_DB part without a QUEUE table (_PART_ECN), the queues the port's TC->queue map names mark ECN or
        not as the switch's QUEUE entries say: unknown here, where a whole CONFIG_DB without a QUEUE entry for a queue
        gives it no WRED profile (a queue no entry names marks nothing, rules.common.marks_ecn)."""
        if self._whole or "QUEUE" in self.db.tables:
            return
        events: dict[int, int] = {}
        for port in self.ports.values():
            tc_to_queue = port.get("tc_to_queue")
            for queue in sorted(set(tc_to_queue.values())) if tc_to_queue else ():
                number = events.get(queue)
                if number is None:
                    number = events[queue] = self._event("queue", queue, None, _PART_ECN)
                port["_events"].append(number)
                port["_entries"].append(port.get("map_source") or port["source"])

    def _listed_watchdog(self, key: str, e: Entry, table: dict[str, Entry]) -> None:
        """PFC_WD|Ethernet0,Ethernet4: a PFC_WD key is one port, not a list as a PORT_QOS_MAP key is: pfcwdorch.cpp
        createEntry looks the whole key up as a port name (gPortsOrch->getPort(key)) and refuses the entry, so no
        watchdog starts on any port it lists. Each listed port without a key of its own reads as off at this entry,
        where the fix is (a port's own key decides for it, whichever comes first); in a CONFIG_DB part, unknown: the
        switch keeps its own PFC_WD keys of those ports (_PART_ECN)."""
        names = _port_names(key)
        self.db.issue(f"PFC_WD key {_quoted(key)} lists ports, but orchagent reads a PFC_WD key as one port name "
                      "(sonic-swss pfcwdorch.cpp createEntry) and refuses this entry: it starts no watchdog on "
                      f"{listed(list(names)) or 'any port'}; write one key per port (PFC_WD|<port>, as `pfcwd "
                      "start` does)", e.source())
        if not self._whole:
            return
        for name in names:
            if name not in table:
                port = self.ports.get(name) or self.port(name, e)
                port["watchdog"] = Watchdog(enabled=False, source=e.source())

    def _watchdog_settings(self, key: str, e: Entry, default_rule: tuple[tuple, str] | None) -> tuple:
        """(detection ms, restoration ms, action word, action, `pfcwd start_default` rule or None, the field that
        makes orchagent refuse the entry, "" the entry as a whole, or None) of PFC_WD|key. pfcwdorch.cpp createEntry
        refuses an entry (task_invalid_entry: no watchdog on the port) whose timer converter.to_uint refuses or finds
        outside _WD_TIMER_RANGES_MS, without a detection_time, or whose action it does not know."""
        word = self.text(e, "action") or _WD_DEFAULT_ACTION
        action = _WD_ACTIONS.get(word)
        why, field, timers = None, None, {}
        for name, (low, high) in _WD_TIMER_RANGES_MS.items():
            raw = self.text(e, name)
            try:
                timers[name] = None if raw is None else float(converter.to_uint(raw, low, high))
            except ValueError:
                why, field = (f"{name} {_quoted(raw or '')} is not a whole number of ms from {low} to {high} (write "
                              "it in ms, as `pfcwd start` does)"), name
                break
        else:
            if timers["detection_time"] is None:
                why, field = "it has no detection_time", None
            elif action is None:
                why, field = f"action {word!r} is not one of {', '.join(_WD_ACTIONS)}", "action"
        if why:
            self.db.issue(f"PFC_WD|{key}: {why}, so orchagent refuses the entry (pfcwdorch.cpp createEntry) and "
                          + ("no PFC watchdog runs on the port" if self._whole else _PART_WD), e.source(field))
            return None, None, word, action, None, field or ""  # (the field, "" the entry: cited per entry)
        detection, restoration = timers["detection_time"], timers["restoration_time"]
        rule = default_rule if default_rule and (detection, restoration, action) == default_rule[0] else None
        return detection, restoration, word, action, rule, None

    def _start_default(self, poll: float | None) -> tuple[tuple, str] | None:
        """((detection, restoration, action), rule text) that `pfcwd start_default` writes for this PORT
        table's size, when the GLOBAL poll interval is the one it writes too (or absent); else None."""
        ports = len(self.db.table("PORT"))
        if not ports:
            return None
        multiply = max(1, (ports - 1) // WD_PORTS_PER_STEP + 1)
        timer = float(WD_DEFAULT_MS * multiply)
        want_poll = float(min(WD_DEFAULT_MS * multiply, WD_MAX_POLL_MS))
        if poll is not None and poll != want_poll:
            return None
        return (timer, timer, "drop"), (
            f"SONiC `pfcwd start_default` default for {ports} ports: {WD_DEFAULT_MS} ms x ceil({ports}/"
            f"{WD_PORTS_PER_STEP}) = {timer:g} ms, polling {want_poll:g} ms")

    def _unknown_ports(self) -> None:
        """A QoS, buffer or watchdog entry naming a port the PORT table does not have (`ethernet0` for Ethernet0, a
        port left from an earlier breakout): orchagent has no such port to apply it to, and the port meant reads as
        unconfigured. Said once per name, and the name is no port of the device: the rules judged it as one (a
        watchdog 'off' on a port that does not exist)."""
        if "PORT" not in self.db.tables:
            return
        unknown = self.ports.keys() - self.db.table("PORT").keys()  # (one set difference in C: usually none)
        if not unknown:
            return
        for name in sorted(unknown, key=_natural):
            self.db.issue(f"{self._not_in_port(name)}: no port takes the settings written for it",
                          self.ports.pop(name)["source"])

    def _not_in_port(self, name: str) -> str:
        """'<name> is not in the PORT table (it has <the port meant>)': the PORT key alike but for case or blanks.
        Orchagent looks a key's port up as written, spaces included: swss-common tokenize splits on ',' and trims
        nothing, and qosorch/bufferorch pass each part to PortsOrch::getPort."""
        if self._folded is None:
            self._folded = {k.strip().lower(): k for k in self._port_rows or ()}
        meant = self._folded.get(name.strip().lower())
        shown = _quoted(name) if any(c.isspace() for c in name) else name
        return f"{shown} is not in the PORT table{f' (it has {meant})' if meant else ''}"

    def _finish(self) -> None:
        """Facts that need every port: the switch-wide DSCP map, and the lossless PGs buffermgrd binds at run time.

        cfgmgr/buffermgr.cpp doSpeedUpdateTask: for a port with pfc_enable and a cable length (not "0m") the
        traditional buffer manager binds every pfc_enable PG to a profile chosen from speed and cable length, over
        what the file wrote there (see buffermgrd.py and _bind); in the dynamic model (or where the input does
        not say which model or PORT speed) the PGs the file leaves out are made at run time (_runtime_pgs).
        """
        self._unknown_ports()
        # PORTCHANNEL_MEMBER|<PortChannel>|<port> (Configuration.md, PORTCHANNEL_MEMBER): the member's aggregate, over
        # whose members a route through it goes; a member the input holds no other entry of is not made a port.
        for channel, names in self._channels.items():
            for name in names:
                if name in self.ports:
                    self.ports[name]["bundle"] = channel
        binder = self._binder()
        for port in self.ports.values():
            port["tc_to_priority"] = _TC_PRIORITY
            if self._global_dscp and port["name"] not in self._own_dscp:
                port.update(dscp_to_tc=self.qos_map("DSCP_TO_TC_MAP", self._global_dscp[0]), trust=Trust.dscp,
                            trust_source=self._global_dscp[1])
            if port.get("cable_length_m"):  # (buffermgrd reads pfc_enable its own way, whatever orchagent makes of it)
                if binder is not None:
                    self._bind(port, binder(port))
                elif port["pfc_enabled"]:
                    self._runtime_pgs(port, port["pfc_enabled"])
        self._say_unbound()

    def _runtime_pgs(self, port: dict, pgs_made: list[int] | tuple[int, ...], over: bool = False) -> None:
        """Mark the port's PGs ``pgs_made`` as made by the switch at run time (headroom unknown offline): those the file
        leaves out, or every one of them (``over``: a binding over the file's whose profile is unknown)."""
        known = self._shared_part(port["_events"])
        pgs = known[1]
        for p in pgs_made:
            if over or p not in pgs:
                pgs = pgs | {p}
                number = self._runtime.get(p)
                if number is None:
                    number = self._runtime[p] = self._event("runtime", p)
                port["_events"].append(number)
                port["_entries"].append(port["pfc_source"])
        if pgs is known[1] and not over:  # (no PG added: what the port shares is known)
            port["_shared"] = known

    def _binder(self) -> Callable[[dict], buffermgrd.Binding] | None:
        """buffermgrd's decision per port (memoised by what it depends on) on a traditional-model switch whose PORT
        table is in the input; None in the dynamic model (DEVICE_METADATA buffer_model, read by buffermgr.cpp
        doBufferMetaTask), or without a PORT table (a rendered qos.json / buffers.json: no speeds)."""
        facts = self._device_facts
        if "PORT" not in self.db.tables or facts.get("buffer_model") == "dynamic":
            return None
        hardware = facts.get("hardware")
        table = skutables.lookup(self._hwsku, hardware)
        vendor = table.asic if table is not None else (
            "mellanox" if skutables.asic_table_of_platform(hardware) else None)
        rows, qos_rows = self.db.table("PORT"), self.db.table("PORT_QOS_MAP")
        cables = self._cable_text
        memo: dict[tuple, buffermgrd.Binding] = {}

        def decide(port: dict) -> buffermgrd.Binding:
            entry, qos = rows.get(port["name"]), qos_rows.get(port["name"])
            fields = entry.fields if entry is not None else {}
            # (read as text() reads them: a JSON number 400000 is the speed "400000")
            args = (_scalar_text(fields.get("speed")), cables.get(port["name"]),
                    _scalar_text(fields.get("admin_status")),
                    _scalar_text(qos.fields.get("pfc_enable")) if qos is not None else None)
            found = memo.get(args)
            if found is None:
                try:
                    pfc = buffermgrd.pfc_pgs(args[3])
                except ValueError as undefined:  # (the PGs of the other items, which it may or may not bind)
                    item, pfc = undefined.args
                    found = memo[args] = buffermgrd.Binding(
                        "unknown", f"what it does with the pfc_enable item {_quoted(item)} is undefined "
                        "(sonic-swss cfgmgr/buffermgr.cpp: std::stoul past unsigned long ends buffermgrd, an id of 32 "
                        "or more shifts 1 past an int)", profile=f"pg_lossless_{args[0]}_{args[1]}_profile",
                        keys=buffermgrd.pg_ranges(pfc))
                    return found
                found = memo[args] = buffermgrd.binding(
                    speed=args[0], cable=args[1], admin_status=args[2], pfc=pfc, table=table,
                    sku_known=bool(self._hwsku), vendor=vendor)
            return found

        return decide

    def _bind(self, port: dict, bound: buffermgrd.Binding) -> None:
        """Apply buffermgrd's binding to the port's PGs (buffermgr.cpp doSpeedUpdateTask)."""
        kind = bound.kind
        if kind == "none":  # the file's PGs run as written; buffermgrd makes none
            if bound.said:
                said = self._unbound.setdefault(bound.why, [0, port["pfc_source"], False])
                said[0] += 1
            return
        if kind == "down":  # bound when the port comes up (the file's PGs stay until then)
            self._runtime_pgs(port, [i for _, members in bound.keys for i in members])
            return
        name = bound.profile or ""
        # The file's own keys of these PGs: buffermgrd writes `<port>|<range>` (overwriting a file key of that name)
        # unless it names the profile already; another key of the file naming a PG of the range with another profile
        # stays beside it, and which of the two the switch applies last is not fixed (see _overlaps): that PG is
        # unknown.
        expected = {i: rng for rng, members in bound.keys for i in members}
        events, entries, table = port["_events"], port["_entries"], self._events
        clashing: set[int] = set()
        named: set[int] = set()  # PGs a key of the file binds to the profile already (buffermgrd leaves them)
        first = None
        for number, entry in zip(events, entries, strict=True):
            kind_, index, what = table[number][:3]
            if kind_ != "pg" or index not in expected:
                continue
            if what == name:
                named.add(index)
                continue
            key = entry if isinstance(entry, str) else entry.key
            ports, _, span = key.rpartition("|")
            if span != expected[index] or ports.rpartition("|")[2] != port["name"]:
                clashing.add(index)
                first = first or (key, f"{port['name']}|{expected[index]}")
        bound_now = [i for i in sorted(expected) if i not in named]
        if not bound_now:  # (the file binds buffermgrd's own profile: nothing changes, whatever its lookup holds)
            return
        if kind == "unknown":
            self._runtime_pgs(port, bound_now, over=True)
            said = self._unbound.setdefault(bound.why, [0, port["pfc_source"], True])
            said[0] += 1
            return
        if name in self._uncreated:  # (buffermgrd reuses the config's profile, which orchagent never creates)
            return
        if name not in self.profiles and not self._make_profile(bound):
            return
        for index in bound_now:
            if index in clashing:
                continue
            number = self._lookup_events.get((index, name))
            if number is None:
                number = self._lookup_events[(index, name)] = self._event("lookup", index, name)
            events.append(number)
            entries.append(port["pfc_source"])
        if clashing:
            self._runtime_pgs(port, sorted(clashing), over=True)
            if not self._overlapped:
                self._overlapped = [0, first, port["pfc_source"]]
            self._overlapped[0] += 1

    def _make_profile(self, bound: buffermgrd.Binding) -> bool:
        """buffermgr.cpp doSpeedUpdateTask: the profile made from the lookup row (pool ingress_lossless_pool, the
        threshold field after the pool's mode); False without the pool's mode: getPgPoolMode() returns "" and
        doSpeedUpdateTask returns task_need_retry before it writes BUFFER_PG, so the file's PGs run as written."""
        row, name = bound.row, bound.profile or ""
        assert row is not None  # (a rebind carries its row: buffermgrd.binding)
        pool = self.pools.get(buffermgrd.LOSSLESS_POOL)
        mode = pool.mode if pool is not None else None
        if mode is None:
            return False
        self.profiles[name] = BufferProfile(
            name=name, pool=buffermgrd.LOSSLESS_POOL, size_bytes=row.size_bytes, xon_bytes=row.xon_bytes,
            xoff_bytes=row.xoff_bytes, xon_offset_bytes=row.xon_offset_bytes,
            dynamic_threshold=row.threshold if mode == "dynamic" else None,
            static_threshold_bytes=row.threshold if mode == "static" else None,
            source=Source(file=self._file, command=f"made by SONiC's buffer manager (sonic-swss cfgmgr/buffermgr.cpp) "
                          f"from the pg_profile_lookup.ini row `{row.speed_mbps} {row.cable}` of {bound.source}"))
        return True

    def _say_unbound(self) -> None:
        """Once per device: the ports whose lossless PGs buffermgrd binds to a profile the input does not show."""
        for why, (count, source, runtime) in self._unbound.items():
            if not runtime:  # (buffermgrd binds nothing: the PGs run as the config binds them)
                self.db.issue(f"{why}: the lossless PGs of {count} PFC port(s) run on the profile the config binds "
                              "them, or on none", source, code="SYS004")
                continue
            self.db.issue(f"SONiC's traditional buffer manager binds the lossless PGs of {count} PFC port(s) at run "
                          f"time to a profile from the SKU's pg_profile_lookup.ini row for their speed and cable "
                          f"length (sonic-swss cfgmgr/buffermgr.cpp), over the config's BUFFER_PG profile; {why}: "
                          "the headroom those PGs run with is unknown and the config's own profile there was not "
                          "judged", source, code="SYS004")
        overlapped = self._overlapped
        if overlapped:
            count, (key, ours), source = overlapped
            self.db.issue(f"SONiC's traditional buffer manager writes BUFFER_PG|{ours} (its lookup profile) beside the "
                          f"config's BUFFER_PG|{key}, which names another profile for a PG of it ({count} port(s) "
                          "alike): the switch applies the two keys in an order the file does not fix, so those PGs' "
                          "profile is unknown (sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask, bufferorch.cpp)",
                          source, code="SYS004")
