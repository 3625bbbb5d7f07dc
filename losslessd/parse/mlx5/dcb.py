"""iproute2 `dcb` in a host script: what `dcb pfc|ets|app ...` sets on an mlx5 port, read like mlnx_qos.

dcb(8) talks to the kernel's DCB netlink interface directly (no daemon), so what it sets is known from the script:
`dcb pfc set dev IF prio-pfc 3:on`, `dcb ets set dev IF prio-tc 3:3 tc-tsa all:ets tc-bw 3:50 ...`, `dcb app add dev IF
dscp-prio 26:3`. Its array parameters change only the keys named, left to right, `all:` naming every key (dcb(8),
"ARRAY PARAMETERS"; dcb-pfc(8): `prio-pfc 6:on 7:on` "leaving the rest intact"), so a key the script never names keeps
the NIC's earlier value, which the script does not show: unknown unless an earlier line set it.
`dcb apptrust set` and `dcb rewr` change nothing on mlx5 (the driver offers the kernel neither), and `dcb dcbx set`
with no keyword hands the port's DCBX to the NIC's firmware, whose peer may then set what the script set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...lazyre import lazy
from ...model import PriorityGroup, Queue, Scheduler, SchedulerType, Source, Trust
from ...units import is_small_int
from .dcb_show import TSA as _TSA  # (dcb-ets(8) TSA-MAP values)
from .dcb_show import dscp_number
from .script import PEER_SETS, PEER_TAKES, Skip, forget

# Options before the object (dcb(8) OPTIONS); -n takes the namespace as its value.
_FLAGS = frozenset({"-j", "--json", "-p", "--pretty", "-s", "--statistics", "-i", "--iec", "-N", "--Numeric",
                    "-f", "--force", "-V", "--Version"})


def _array(words: list[str], start: int) -> tuple[list[tuple[str, str]], int]:
    """The KEY:VALUE items of an array parameter from ``start`` up to the next keyword."""
    items = []
    i = start
    while i < len(words) and ":" in words[i]:
        key, _, value = words[i].partition(":")
        items.append((key, value))
        i += 1
    if not items:
        raise Skip(f"`{words[start - 1]}` is given no KEY:VALUE item")
    return items, i


def _merge(base: Mapping[int, object] | None, items: list[tuple[str, str]], keys: int,
           value_of: Callable[[str], object]) -> dict[int, object] | None:
    """Apply KEY:VALUE items (left to right, `all` naming every key) over ``base``; None when a key stays unknown."""
    out: dict[int, object] = dict(base) if base is not None else {}
    named: set[int] = set(range(keys)) if base is not None else set()
    for key, raw in items:
        value = value_of(raw)
        if key == "all":
            targets = range(keys)
        elif is_small_int(key, 2) and int(key) < keys:
            targets = range(int(key), int(key) + 1)
        else:
            raise Skip(f"{key!r} is not a key 0-{keys - 1} or `all`")
        for k in targets:
            out[k] = value
            named.add(k)
    return out if len(named) == keys else None


def _on_off(raw: str) -> bool:
    if raw not in ("on", "off"):
        raise Skip(f"{raw!r} is neither on nor off")
    return raw == "on"


def _prio(raw: str) -> int:
    if not is_small_int(raw, 1) or int(raw) > 7:
        raise Skip(f"{raw!r} is not a priority or traffic class 0-7")
    return int(raw)


def _size(raw: str) -> int:
    if (m := _SIZE.fullmatch(raw)) is None:
        raise Skip(f"{raw!r} is not a buffer size (bytes, or a number then K or M)")
    return int(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]


def _dscp(key: str) -> int:
    if (number := dscp_number(key)) is None:
        raise Skip(f"{key!r} is not a DSCP value 0-63 or name")
    return number


def split_command(words: list[str]) -> tuple[str, str, list[str]]:
    """(object, command, what follows) of the `dcb` command ``words`` (without `dcb`), past its options (dcb(8):
    `-n NETNS` takes a value, the others none); raises Skip for a batch file or an option dcb does not have."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        option = words[i]
        if option in ("-b", "--batch"):
            raise Skip("a batch file's commands are not followed (lint that file on its own)")
        if option not in _FLAGS and option not in ("-n", "--netns"):
            raise Skip(f"{option!r} is not a dcb option")
        i += 2 if option in ("-n", "--netns") else 1
    return (words[i:i + 1] or [""])[0], (words[i + 1:i + 2] or [""])[0], words[i + 2:]


# What each object's `set`/`add`/... changes, named as the mlnx_qos options setting it (dcb-pfc(8), dcb-ets(8),
# dcb-app(8)): what a command on a port known only at run time makes unknown.
SETS = {"pfc": ["--pfc"], "ets": ["--prio_tc", "--tsa"], "app": ["--dscp2prio", "--trust"],
        "buffer": ["--prio2buffer", "--buffer_size"]}
# dcb-buffer(8) SIZE := INTEGER | INTEGERK | INTEGERM, bytes (iproute2 lib/utils.c get_size: K and M, either case,
# are KiB and MiB).
_SIZE = lazy(r"([0-9]{1,10})([kKmM]?)")
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024 * 1024}
# dcb-apptrust(8) SEL; dcb-dcbx(8) keywords.
_SELECTORS = frozenset({"ethtype", "stream-port", "dgram-port", "port", "dscp", "pcp"})
_DCBX = frozenset({"host", "lld-managed", "cee", "ieee", "static"})


def changes(words: list[str]) -> list[str]:
    """The mlnx_qos options naming what the `dcb` command ``words`` (without `dcb`) changes on its port: what it makes
    unknown on each port a name known only at run time may be. Call after apply() has accepted the command."""
    obj, command, rest = split_command(words)
    if command in ("show", "help", ""):
        return []
    if obj == "dcbx":
        return [] if set(rest[2:]) & {"host"} else PEER_SETS
    return SETS.get(obj, [])


def fails(words: list[str]) -> str | None:
    """Why the `dcb` command ``words`` (without `dcb`) fails on an mlx5 port (dcb exits non-zero), or None where it
    does not or is not known to: `dcb apptrust set`, which the kernel refuses (apply reads it so too). (`dcb rewr`
    does not fail: the kernel keeps its entries in its own table.)"""
    try:
        obj, command, rest = split_command(words)
    except Skip:
        return None
    if obj == "apptrust" and command == "set" and rest[:1] == ["dev"] and rest[2:3] == ["order"] and \
            set(rest[3:]) <= _SELECTORS:
        # net/dcb/dcbnl.c dcbnl_ieee_set: no dcbnl_setapptrust -> EOPNOTSUPP; mlx5e_dcbnl_ops (en_dcbnl.c) has none
        return "mlx5 has no application trust order (its dcbnl ops set no dcbnl_setapptrust), so the kernel refuses " \
               "`dcb apptrust set` (EOPNOTSUPP)"
    return None


def apply(port, words: list[str], src: Source) -> tuple[str, str] | None:
    """Set ``port`` as the `dcb` command ``words`` (without `dcb`) would; raises Skip when it is not read or changes
    nothing on an mlx5 port. Returns (code, note) when a setting it changes is left unknown: SYS004 for keys an array
    did not name, SYS002 where the port's peer may set it (DCBX handed to the NIC's firmware)."""
    obj, command, rest = split_command(words)
    if command in ("show", "help", ""):
        return None  # (shows what is set)
    if rest[:1] != ["dev"] or len(rest) < 2:
        raise Skip("no `dev IF`")
    params = rest[2:]
    notes: list[str] = []
    if obj == "apptrust" and command == "set":
        if (refused := fails(words)) is None:
            raise Skip("only `dcb apptrust set dev IF order SEL...` (SEL: ethtype, stream-port, dgram-port, port, "
                       "dscp, pcp) is dcb-apptrust(8)'s")
        raise Skip(f"{refused}: the port's trust stays as it was; on mlx5 a port trusts DSCP from its first DSCP "
                   "entry (`dcb app add dev IF dscp-prio D:P`) or `mlnx_qos --trust dscp`")
    if obj == "rewr":
        # net/dcb/dcbnl.c dcbnl_ieee_set/del: without dcbnl_setrewr the entries go to the kernel's own table only
        raise Skip("mlx5 does not rewrite by this table (its dcbnl ops set no dcbnl_setrewr: the kernel keeps the "
                   "entries in its own table and programs nothing), so the DSCP and PCP the NIC sends stay as they "
                   "were (for RoCE: the ToS, cma_roce_tos or traffic_class)")
    if obj == "dcbx" and command == "set":
        modes = set(params)
        if not modes <= _DCBX:
            raise Skip(f"{sorted(modes - _DCBX)[0]!r} is not a dcb-dcbx(8) keyword")
        # mlx5 en_dcbnl.c mlx5e_dcbnl_setdcbx: lld-managed refused; no keyword: the firmware runs DCBX (willing_admin
        # set by mlx5e_dcbnl_set_dcbx_mode); `host`: the host's settings apply; other keywords without host refused
        if "lld-managed" in modes or (modes and "host" not in modes):
            raise Skip("mlx5 refuses this DCBX mode (it takes `host` or no keyword): the port's DCBX stays as it was")
        if "host" in modes:
            return None  # what the host sets (dcb, mlnx_qos) stands; nothing the model holds changes
        forget(port, PEER_SETS, src)
        return "SYS002", f"with no keyword mlx5 hands the port's DCBX to the NIC's firmware, willing: {PEER_TAKES}"
    if obj == "pfc" and command == "set":
        k = 0
        while k < len(params):
            if params[k] == "prio-pfc":
                items, k = _array(params, k + 1)
                base = {p: p in port.pfc_enabled for p in range(8)} if port.pfc_enabled is not None else None
                merged = _merge(base, items, 8, _on_off)
                port.pfc_enabled = sorted(p for p, on in merged.items() if on) if merged is not None else None
                port.pfc_source = src
                if merged is None:
                    notes.append("prio-pfc names some priorities only: the others keep the NIC's PFC, which the "
                                 "input does not show, so its PFC priorities are unknown")
            elif params[k] in ("macsec-bypass", "delay"):
                k += 2
            else:
                raise Skip(f"{params[k]!r} is not a dcb pfc parameter")
    elif obj == "ets" and command == "set":
        k = 0
        while k < len(params):
            name = params[k]
            if name in ("willing", "cbs"):
                k += 2
                continue
            items, k = _array(params, k + 1)
            if name == "prio-tc":
                merged = _merge(port.priority_to_tc, items, 8, _prio)
                port.priority_to_tc, port.map_source = merged, src
                if merged is None:
                    notes.append("prio-tc names some priorities only: the others keep the NIC's traffic class, "
                                 "which the input does not show")
            elif name in ("tc-tsa", "tc-bw"):
                for key, raw in items:
                    tcs = range(8) if key == "all" else [_prio(key)]
                    for tc in tcs:
                        queue = port.queues.setdefault(tc, Queue(index=tc, source=src))
                        if name == "tc-tsa":
                            if raw not in _TSA:
                                raise Skip(f"TSA {raw!r} is not strict, ets or vendor")
                            queue.scheduler = Scheduler(type=_TSA[raw], weight=(queue.scheduler or Scheduler()).weight
                                                        if raw == "ets" else None, source=src)
                        else:
                            if not is_small_int(raw, 3) or int(raw) > 100:
                                raise Skip(f"{raw!r} is not a bandwidth percent 0-100")
                            queue.scheduler = queue.scheduler or Scheduler(source=src)
                            if queue.scheduler.type in (SchedulerType.ets, None):
                                queue.scheduler.weight = int(raw)
            elif name.startswith("reco-") or name == "pg-bw":
                continue  # the recommendation offered to a peer, and CEE's priority-group shares: not the NIC's own
            else:
                raise Skip(f"{name!r} is not a dcb ets parameter")
    elif obj == "buffer" and command == "set":
        k = 0
        while k < len(params):
            name = params[k]
            items, k = _array(params, k + 1)
            if name == "prio-buffer":
                port.priority_to_pg = _merge(port.priority_to_pg, items, 8, _prio)
                if port.priority_to_pg is None:
                    notes.append("prio-buffer names some priorities only: the others keep the NIC's buffer, which the "
                                 "input does not show")
            elif name == "buffer-size":
                known = {i: pg.size_bytes for i, pg in port.priority_groups.items() if pg.size_bytes is not None}
                sizes = _merge(known if len(known) == 8 else None, items, 8, _size)
                port.priority_groups = {i: PriorityGroup(index=i, size_bytes=int(size), source=src)  # type: ignore
                                        for i, size in sizes.items()} if sizes is not None else {}
                if sizes is None:
                    notes.append("buffer-size names some buffers only: the others keep the NIC's size, which the "
                                 "input does not show")
            else:
                raise Skip(f"{name!r} is not a dcb buffer parameter")
    elif obj == "app" and command == "flush":
        # mlx5e_dcbnl_ieee_delapp puts each DSCP back to its default and, with the last entry gone, the trust back to
        # PCP: which entries remain is the NIC's, so the map and the trust are unknown
        port.dscp_to_priority, port.map_source = None, src
        port.trust, port.trust_source = None, src
        notes.append("dcb app flush removes application entries: which DSCP entries remain (and so the trust, back to "
                     "PCP without any) is the NIC's, not in the input")
    elif obj == "app" and command in ("add", "replace", "del"):
        k = 0
        while k < len(params):
            name = params[k]
            items, k = _array(params, k + 1)
            if name != "dscp-prio":
                # mlx5 keeps DSCP entries only (drivers/net/ethernet/mellanox/mlx5/core/en/dcbnl.c,
                # mlx5e_dcbnl_ieee_setapp: any other selector is -EINVAL)
                raise Skip(f"`{name}` entries are refused by mlx5, which takes DSCP entries (dscp-prio) only")
            entries = [(_dscp(key), _prio(raw)) for key, raw in items]
            if command == "del":
                port.dscp_to_priority, port.map_source = None, src
                port.trust, port.trust_source = None, src
                notes.append("dcb app del removes DSCP entries: which remain (and so the trust, back to PCP without "
                             "any) is the NIC's, not in the input")
                continue
            mapping = dict(port.dscp_to_priority or {})
            if port.dscp_to_priority is None:
                port.dscp_to_priority_partial = True  # (the other DSCPs keep the NIC's map)
            mapping.update(entries)
            port.dscp_to_priority, port.map_source = dict(sorted(mapping.items())), src
            # mlx5e_dcbnl_ieee_setapp: the port's first DSCP entry switches its trust to DSCP
            port.trust, port.trust_source = Trust.dscp, src
    else:
        raise Skip(f"`dcb {obj} {command}` is not read (dcb pfc set, dcb ets set, dcb buffer set, dcb app "
                   "add|replace|del|flush dscp-prio and dcb dcbx set are)")
    return ("SYS004", "; ".join(notes)) if notes else None
