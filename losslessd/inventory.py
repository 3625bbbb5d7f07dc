"""The devices `losslessd pull` collects, in the YAML shape of Nornir's SimpleInventory.

One file with `hosts:`, `groups:` and `defaults:` mappings, or a folder holding hosts.yaml,
groups.yaml and defaults.yaml (Nornir's host_file, group_file and defaults_file), so a team's
Nornir inventory can be reused. A host's field comes from the host, else from its groups (in the
order listed, each group before the groups it belongs to), else from the defaults; `data` mappings
are merged key by key the same way, at every depth.

Everything is checked before any connection is made, and every problem found is reported at once,
each with its file and line: unknown fields, platforms and groups, duplicate hosts (YAML keys given
twice), and credentials (docs/collection.md).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from .credentials import SECRET_KEYS, CredentialError, Secret, refuse_plaintext, resolve
from .docpos import Document, json_schema, load_yaml, merge, model_errors, must
from .errors import InputError
from .lazyre import lazy
from .platforms import FORMAT_ALIASES, PLATFORMS, Platform, resolve_format
from .records import record

FOLDER_FILES = ("hosts.yaml", "groups.yaml", "defaults.yaml")
# SNMPv3 authPriv protocols the poller offers (pysnmp usmHMACSHAAuthProtocol..., usmAesCfb128Protocol...).
AUTH_PROTOCOLS = ("sha", "sha224", "sha256", "sha384", "sha512")
PRIV_PROTOCOLS = ("aes", "aes192", "aes256")


# -- the shape of one host, group or defaults entry: validated (strict) before anything is merged -----------
class _I(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _snmp_version(value: Any) -> Any:
    """`3`, `v3`, `2c` and `V2c` all say which SNMP version."""
    return str(value).lower().removeprefix("v") if isinstance(value, (str, int)) and not isinstance(value, bool) \
        else value


def _protocol(names: tuple[str, ...]) -> Any:
    """One of ``names``, in any case (SHA256 or sha256)."""
    written = names + tuple(n.upper() for n in names)
    return Annotated[Literal[names], BeforeValidator(_lower, json_schema_input_type=Literal[written])]


def _pullable(name: str) -> str:
    platform = resolve_format(name)
    if platform is None or platform.netmiko is None:
        what = "cannot be pulled over SSH" if platform else "is not a platform losslessd knows"
        raise ValueError(f"platform {name!r} {what} (pull knows: {_collectable()})")
    return name


_PULLABLE = sorted(name for name in (*PLATFORMS, *FORMAT_ALIASES) if resolve_format(name).netmiko)  # type: ignore[union-attr]
Port = Annotated[int, Field(ge=1, le=65535)]
# A host name (RFC 1123 2.1, RFC 952): dot-separated labels of letters, digits and hyphens, 1-63 characters, not
# starting or ending with a hyphen; at most 253 characters in all (RFC 1035 2.3.4, 255 octets on the wire).
# Underscores too: DNS takes any label (RFC 2181 11), resolvers look such names up, and fleets' /etc/hosts and
# DNS zones carry them (leaf_01): refusing one would refuse a device the SSH client reaches.
_HOST_NAME = lazy(r"(?=.{1,253}\.?$)(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?")
# Numbers alone, dot-separated (`127.1`, `0177.0.0.1`, `0x7f.1`, `1.2.3.999`, `3232235777`): no host name (RFC 1123
# 2.1: a name never has the dotted-decimal form) and no address as ipaddress (and ssh's config) spell one, but the
# system resolver reads most of them as IPv4 in inet_aton's old forms (glibc getaddrinfo: `0177.0.0.1` is octal
# 127.0.0.1, `127.1` is 127.0.0.1): `10.0.0.010` meant as .10 was the device at .8.
_NUMBERS_ONLY = lazy(r"(?:\d+|0[xX][0-9a-fA-F]*)(?:\.(?:\d+|0[xX][0-9a-fA-F]*))*\.?")


def is_address(text: str) -> bool:
    """An IP address (a v6 one with its zone) or a host name: what a socket can be pointed at. A blank, a control
    character or a leading ``-`` is none (it passed `--check` and failed at the first connection)."""
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return bool(_HOST_NAME.fullmatch(text)) and not _NUMBERS_ONLY.fullmatch(text)


_IP = ipaddress.IPv4Address | ipaddress.IPv6Address


def _unmapped(address: _IP) -> _IP:
    """The IPv4 address an IPv4-mapped one (`::ffff:127.0.0.1`, RFC 4291 2.5.5.2) stands for; any other as it is."""
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return mapped or address


def is_loopback(host: str) -> bool | None:
    """Whether the IP address ``host`` (a zone allowed) is a loopback one, its IPv4-mapped form too (Python 3.11 calls
    `::ffff:127.0.0.1` not loopback); None for a host name, known only once it is resolved."""
    try:
        return _unmapped(ipaddress.ip_address(host.partition("%")[0])).is_loopback
    except ValueError:
        return None


def device_key(hostname: str, port: int) -> str:
    """A device's address (a Host's, is_address's) as a tune lock names it: lower-case, without a trailing dot (the
    same DNS name, RFC 1034 3.1), an IP address in its one spelling (ipaddress: `0:0::1` is `::1`, an IPv4-mapped
    `::ffff:127.0.0.1` is 127.0.0.1)."""
    host = hostname.lower().rstrip(".")
    with contextlib.suppress(ValueError):
        host = _unmapped(ipaddress.ip_address(host)).compressed
    return f"{host}_{port}"


def device_keys(hostname: str, port: int) -> list[str]:
    """Every lock a tune of the device at ``hostname``:``port`` takes: the name as written and each address it resolves
    to (getaddrinfo, as the SSH connection resolves it), so `localhost`, `127.0.0.1`, `127.1` and an inventory's name
    for a switch beside another's address of it meet on one lock. A name that does not resolve keeps its own lock
    (its tune cannot connect either)."""
    keys = {device_key(hostname, port)}
    for name in {hostname, hostname.rstrip(".")}:  # (/etc/hosts names have no trailing dot; DNS takes either)
        with contextlib.suppress(OSError, UnicodeError, ValueError):
            for *_, sockaddr in socket.getaddrinfo(name, port, type=socket.SOCK_STREAM):
                keys.add(device_key(str(sockaddr[0]).partition("%")[0], port))  # (an IPv6 scope is the host's own)
    return sorted(keys)


# (a numbers-only name's fix: see _NUMBERS_ONLY)
ADDRESS_PHRASE = "a host name or address (an IPv4 address: four decimal numbers 0-255 without leading zeros)"


def _address(value: str) -> str:
    """The address without the blanks around it (YAML keeps them inside quotes; a socket would not resolve them)."""
    value = value.strip()
    if not is_address(value):
        raise ValueError("not an IP address or a host name")
    return value


Address = Annotated[str, AfterValidator(_address), must(ADDRESS_PHRASE)]
# Names that go into the host's commands (collect-host-capture.sh: `mlnx_qos -i IF`, `cat /sys/class/net/IF/mtu`,
# `cat /sys/kernel/config/rdma_cm/DEV/ports/1/default_roce_tos`): shell-safe characters only, never `.` or `..` (a
# path out of /sys/class/net: `..` read /sys/class/mtu) and never a leading `-` (an option to mlnx_qos/ethtool).
# An interface name is at most 15 bytes without '/', ':' or blanks, never . or .. (Linux net/core/dev.c
# dev_valid_name, IFNAMSIZ 16); an RDMA device name at most 63 (IB_DEVICE_NAME_MAX 64, include/rdma/ib_verbs.h).
_IFNAME, _RDMA_NAME = r"^[A-Za-z0-9_.@-]{1,15}$", r"^[A-Za-z0-9_.:@-]{1,63}$"


def _no_path_step(value: str) -> str:
    if value in (".", "..") or value.startswith("-"):
        raise ValueError("a path step or an option")
    return value


Interfaces = Annotated[list[Annotated[str, Field(pattern=_IFNAME), AfterValidator(_no_path_step)]],
                       must("a list of Linux interface names (1-15 letters, digits, _ . @ -; not . or .., "
                            "no leading -)")]
RdmaNames = Annotated[list[Annotated[str, Field(pattern=_RDMA_NAME), AfterValidator(_no_path_step)]],
                      must("a list of RDMA device names (1-63 letters, digits, _ . : @ -; not . or .., "
                           "no leading -)")]
Login = Annotated[str, Field(min_length=1), must("a user name")]
_GNMI_PORT = "the device's gNMI TCP port (1-65535; e.g. EOS 6030, SONiC 50051)"
_FILE = "mode 0600 or 0400: readable by its owner only"


class Credentials(_I):
    """The login; secrets by reference only, never in clear."""

    username: str | None = None
    password_env: str | None = Field(None, description="Environment variable holding the password.")
    password_file: str | None = Field(None, description=f"File whose first line is the password ({_FILE}).")
    secret_env: str | None = Field(None, description="Environment variable holding the enable secret.")
    secret_file: str | None = Field(None, description=f"File holding the enable secret ({_FILE}).")


class Ssh(_I):
    device_type: Annotated[str, must("a netmiko device type name")] | None = Field(
        None, description="A netmiko device type other than the platform's.")


class Snmp(_I):
    version: Annotated[Literal["2c", "3"], BeforeValidator(_snmp_version, json_schema_input_type=Literal[
        "2c", "3", 3, "v2c", "v3"])] = "2c"
    port: Annotated[Port, must("a UDP port 1-65535")] = 161
    hostname: Address | None = Field(None, description="Default: the host's.")
    community_env: str | None = None
    community_file: str | None = None
    user: str | None = Field(None, description="SNMPv3 (authPriv) user.")
    auth_key_env: str | None = None
    auth_key_file: str | None = None
    priv_key_env: str | None = None
    priv_key_file: str | None = None
    auth_protocol: _protocol(AUTH_PROTOCOLS) = "sha"  # type: ignore[valid-type]
    priv_protocol: _protocol(PRIV_PROTOCOLS) = "aes"  # type: ignore[valid-type]
    context: str = Field("", description="The SNMPv3 context name (snmpsim: the data file's name).")


class Gnmi(_I):
    """How the daemon subscribes to the device's counters over gNMI (docs/gnmi.md)."""

    port: Annotated[Port, must(_GNMI_PORT)] | None = Field(None, description="Required.")
    hostname: Address | None = Field(None, description="Default: the host's.")
    username: Login | None = Field(None, description="Default: the SSH login's.")
    password_env: str | None = Field(None, description="Default: the SSH login's password.")
    password_file: str | None = None
    tls: bool = Field(True, description="false: plaintext gRPC (lab only; the password crosses the network in clear).")
    ca_file: str | None = Field(None, description="The CA certificate (PEM), relative to the inventory.")
    server_name: Annotated[str, Field(min_length=1), must("the name the device's certificate carries")] | None = None


class Data(_I):
    """Nornir's free-form data; these keys are losslessd's, any other is left alone."""

    model_config = ConfigDict(extra="allow")

    credentials: Credentials | None = None
    ssh: Ssh | None = None
    snmp: Snmp | None = None
    gnmi: Gnmi | None = None
    interfaces: Interfaces | None = Field(None, description="The RoCE interfaces to collect (required by linux_mlx5).")
    rdma_devices: RdmaNames | None = Field(None, description="Their RDMA devices (for the RoCE ToS).")


class Defaults(_I):
    """Nornir's defaults: what a host and none of its groups sets."""

    hostname: Annotated[str, Field(pattern=r"\S"), AfterValidator(_address),
                        must(ADDRESS_PHRASE)] | None = Field(
        None, description="Default: the host's name.")
    port: Annotated[Port, must("a TCP port 1-65535")] | None = Field(None, description="SSH port; default 22.")
    platform: Annotated[str, AfterValidator(_pullable), Field(json_schema_extra={"enum": _PULLABLE})] | None = Field(
        None, description="A platform `pull` collects, or its alias.")
    username: str | None = None
    data: Data | None = None
    connection_options: dict[str, Any] | None = Field(None, description="Nornir's; accepted and not read.")


class Entry(Defaults):
    """A host or a group."""

    groups: Annotated[list[str], must("a list of group names")] | None = Field(
        None, description="Groups, in lookup order (a group's own groups right after it).")


class InventoryFile(_I):
    """A losslessd (Nornir SimpleInventory) inventory file; a folder holds the three parts as hosts.yaml,
    groups.yaml and defaults.yaml."""

    model_config = ConfigDict(title="losslessd inventory", json_schema_extra={
        "$schema": "https://json-schema.org/draft/2020-12/schema"})

    hosts: dict[str, Entry | None]
    groups: dict[str, Entry | None] | None = None
    defaults: Defaults | None = None


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON schema of an inventory file (docs/inventory.schema.json is this, written by `make schemas`)."""
    return json_schema(InventoryFile)


class InventoryError(InputError):
    """Every problem found in an inventory; ``errors`` holds one InputError (file, line) each."""

    def __init__(self, errors: list[InputError]):
        self.errors = errors
        first = errors[0]
        super().__init__(first.message if len(errors) == 1 else
                         f"{first.message} (and {len(errors) - 1} more inventory problem(s))",
                         file=first.file, line=first.line)


@record(frozen=True)
class SnmpTarget:
    hostname: str
    port: int
    version: str  # "2c" or "3"
    community: Secret | None = None  # v2c
    user: str | None = None  # v3 authPriv
    auth_key: Secret | None = None
    priv_key: Secret | None = None
    auth_protocol: str = "sha"
    priv_protocol: str = "aes"
    context: str = ""  # SNMPv3 contextName (snmpsim: the data file's name)


@record(frozen=True)
class GnmiSpec:
    """How the daemon subscribes to a device's counters over gNMI (docs/gnmi.md)."""

    hostname: str
    port: int
    username: str
    password: Secret
    tls: bool = True  # False: plaintext gRPC (lab only; the password crosses the network in clear)
    ca_file: Path | None = None  # the CA the device's certificate must chain to; None: the system's
    server_name: str | None = None  # the name its certificate carries, when not the hostname


@record(frozen=True)
class Host:
    name: str
    hostname: str
    port: int
    platform: Platform
    username: str
    password: Secret
    secret: Secret | None  # enable secret, when the platform asks for one
    device_type: str  # netmiko device_type
    interfaces: tuple[str, ...]  # linux_mlx5: the RoCE interfaces to collect
    rdma_devices: tuple[str, ...]  # linux_mlx5: their RDMA devices (for cma_roce_tos)
    snmp: SnmpTarget | None
    gnmi: GnmiSpec | None = None


@record(frozen=True)
class Inventory:
    hosts: dict[str, Host]


def load(path: str | Path, env: Mapping[str, str] | None = None) -> Inventory:
    """Read and check an inventory; credentials are resolved from ``env`` (default os.environ).

    Raises InventoryError listing every problem, each with file and line."""
    return _Loader(Path(path), os.environ if env is None else env).run()


class _Loader:
    def __init__(self, path: Path, env: Mapping[str, str]):
        self.path = path
        self.env = env
        self.errors: list[InputError] = []

    def error(self, message: str, doc: Document | None, parts: tuple = ()) -> None:
        self.errors.append(InputError(message, file=doc.file if doc else str(self.path),
                                      line=doc.line_of(list(parts)) if doc else None))

    # -- files ------------------------------------------------------------------------------
    def run(self) -> Inventory:
        sections = self._sections()
        hosts: dict[str, Host] = {}
        if sections is not None:
            self.groups = self._entries(*sections["groups"], "group")
            defaults_doc, defaults_base = sections["defaults"]
            defaults = self._mapping(defaults_doc, defaults_base, "defaults")
            self.defaults = self._level(defaults or {}, defaults_doc, defaults_base, "defaults", Defaults)
            levels = []
            folded: dict[str, tuple[str, _Level]] = {}
            for name, level in self._entries(*sections["hosts"], "host").items():
                problem = file_name_problem(name)
                if problem:  # it names the host's capture, counters and session log files
                    self.error(f"host {name[:80]!r}{'...' if len(name) > 80 else ''}: {problem}", level.doc, level.parts)
                elif name.lower() in folded:
                    self._same_but_case(name, level, *folded[name.lower()])
                else:
                    folded[name.lower()] = (name, level)
                    levels.append((name, level))
            for level in [*self.groups.values(), *(level for _, level in levels)]:
                for i, g in enumerate(level.entry.get("groups") or ()):
                    if g not in self.groups:
                        known = ", ".join(sorted(self.groups)) or "none defined"
                        self.error(f"{level.label}: unknown group {g!r} (groups: {known})", level.doc,
                                   (*level.parts, "groups", i))
            for name, level in levels:
                host = self._host(name, level)
                if host is not None:
                    hosts[name] = host
            if not hosts and not self.errors:
                self.error("the inventory lists no hosts", *sections["hosts"])
        if self.errors:
            unique = {(e.file, e.line, e.message): e for e in self.errors}  # a shared group/defaults error once
            raise InventoryError(sorted(unique.values(), key=lambda e: (e.file or "", e.line or 0)))
        return Inventory(hosts)

    def _same_but_case(self, name: str, level: _Level, first: str, first_level: _Level) -> None:
        """Host names are compared without case (RFC 4343, DNS): `LEAF1` beside `leaf1` names one switch twice, and
        their snapshot files (LEAF1.capture, leaf1.capture) are one file on a file system that ignores case (macOS,
        Windows, SMB shares), the later pulled written over the earlier without a word."""
        where = f" (line {first_level.doc.line_of(list(first_level.parts))})" if first_level.doc else ""
        self.error(f"host {name!r} differs from host {first!r}{where} only in case: host names ignore case, and "
                   f"{name}.capture and {first}.capture would be one file where file names do too; remove one, or "
                   "rename it", level.doc, level.parts)

    def _sections(self) -> dict[str, tuple[Document | None, tuple]] | None:
        """(document, pointer parts) of the hosts, groups and defaults mappings."""
        if os.path.isdir(self.path):
            out = {}
            for key, file in zip(("hosts", "groups", "defaults"), FOLDER_FILES):
                f = self.path / file
                if key == "hosts" and not os.path.lexists(f):
                    self.error(f"an inventory folder needs {file} (and may have {FOLDER_FILES[1]}, "
                               f"{FOLDER_FILES[2]})", None)
                    return None
                out[key] = (self._load(f, {(): key[:-1]}) if os.path.lexists(f) else None, ())
            return None if self.errors else out
        doc = self._load(self.path, {("hosts",): "host", ("groups",): "group"})
        if doc is None:
            return None
        if not isinstance(doc.data, dict) or "hosts" not in doc.data:
            self.error("not an inventory: expected a mapping with `hosts:` (and optional `groups:`, `defaults:`), "
                       "or a folder holding hosts.yaml", doc)
            return None
        for key in doc.data:
            if key not in ("hosts", "groups", "defaults"):
                self.error(f"unknown top-level key `{key}` (expected hosts, groups, defaults)", doc, (key,))
        return {key: (doc if key in doc.data else None, (key,)) for key in ("hosts", "groups", "defaults")}

    def _load(self, path: Path, entries: dict[tuple, str]) -> Document | None:
        """``entries``: pointer parts of the host and group mappings in this file, for duplicate messages."""
        try:
            doc = load_yaml(path)
        except InputError as exc:
            self.errors.append(exc)
            return None
        for line, parts, key, first in doc.duplicates:  # PyYAML keeps the last one silently
            what = (f"{entries[parts]} {key!r}" if parts in entries else
                    f"key {key!r}" + (f" in {'.'.join(parts)}" if parts else ""))
            self.errors.append(InputError(f"duplicate {what}: also defined at line {first} (YAML keeps only the "
                                          "last one; remove or rename one)", file=doc.file, line=line))
        return doc

    def _mapping(self, doc: Document | None, parts: tuple, what: str) -> dict | None:
        if doc is None:
            return None
        value = _at(doc.data, parts)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(f"`{what}` must be a mapping, not a {_kind(value)}", doc, parts)
            return None
        return value

    def _entries(self, doc: Document | None, parts: tuple, what: str) -> dict[str, _Level]:
        out = {}
        for name, entry in (self._mapping(doc, parts, f"{what}s") or {}).items():
            if not isinstance(name, str):  # YAML read `~:` as null, `yes:` as true, `010:` as 8: quoted, it is the name
                self.error(f"{what} {name!r}: a name must be text, not a {_kind(name)} (quote it)", doc, (*parts, name))
                continue
            if entry is not None and not isinstance(entry, dict):
                self.error(f"{what} {name}: must be a mapping of fields, not a {_kind(entry)}", doc, (*parts, name))
                continue
            out[name] = self._level(entry or {}, doc, (*parts, name), f"{what} {name}", Entry)
        return out

    def _level(self, raw: dict, doc: Document | None, parts: tuple, label: str, model: type[Defaults]) -> _Level:
        """One entry checked against ``model`` where it is written. A field (or data section) found wrong is
        reported, left out, and named in the level's ``broken``: nothing is said of its absence later."""
        entry = {**raw, **({"data": dict(raw["data"])} if isinstance(raw.get("data"), dict) else {})}
        broken: set[tuple] = set()
        for at in ((), *(("data", k) for k in ("credentials", "ssh", "snmp", "gnmi"))):  # a secret in clear: refused
            for exc in refuse_plaintext(_at(entry, at) if isinstance(_at(entry, at), dict) else {}):
                self.error(f"{label}: {exc}", doc, (*parts, *at, exc.key))
                broken.add(at or (exc.key,))
        for path in _unread_secrets(entry):
            self.error(f"{label}: plaintext `{path[-1]}:` under `{'.'.join(path[:-1])}` refused: a secret does not "
                       "belong in an inventory, and losslessd never reads one there; give data.credentials."
                       f"{path[-1]}_env (an environment variable name) or {path[-1]}_file (a file with mode 0600)",
                       doc, (*parts, *path))
        for attempt in range(3):  # at most: the entry as written, without its broken parts, empty
            for unit in broken:
                if len(unit) == 1 or (len(unit) == 2 and isinstance(entry.get("data"), dict)):
                    (entry if len(unit) == 1 else entry["data"]).pop(unit[-1], None)
            try:
                value = model.model_validate(entry if attempt < 2 else {}, strict=True)
                break
            except ValidationError as exc:
                if attempt == 0:
                    self.errors.extend(model_errors(exc, model, doc, parts, label=label, noun="field", echo=False,
                                                    pointers=False))
                broken.update(loc[:2] if loc[:1] == ("data",) else loc[:1] for loc in (e["loc"] for e in exc.errors()))
        return _Level(value.model_dump(exclude_unset=True), doc, parts, label, frozenset(broken))

    def _chain(self, host: _Level) -> list[_Level]:
        """The host's entry, its groups depth-first (each once), then the defaults: Nornir's lookup order.
        Walked without recursion, so a chain of thousands of groups is no problem; a group that belongs to
        itself through others is reported (once per group)."""
        out = [host]
        seen: set[str] = set()
        path: list[str] = []  # the groups being visited, outermost first
        stack: list[str | None] = list(reversed(host.entry.get("groups") or ()))
        while stack:
            g = stack.pop()
            if g is None:  # a group's own groups are done
                path.pop()
                continue
            if g in path:
                cycle = " -> ".join(path[path.index(g):] + [g])
                level = self.groups[g]
                self.error(f"group {g}: its groups lead back to it ({cycle}): a group cannot belong to itself",
                           level.doc, (*level.parts, "groups"))
                continue
            if g not in self.groups or g in seen:
                continue
            seen.add(g)
            out.append(self.groups[g])
            path.append(g)
            stack.append(None)
            stack.extend(reversed(self.groups[g].entry.get("groups") or ()))
        return [*out, self.defaults]

    def _host(self, name: str, level: _Level) -> Host | None:
        chain = self._chain(level)
        broken = frozenset().union(*(lvl.broken for lvl in chain))  # reported already: no more about them
        where, doc, parts = f"host {name}", level.doc, level.parts
        before = len(self.errors)

        def field(key: str) -> tuple[Any, _Level]:
            """The value of ``key`` from the first level that sets it, and that level."""
            for lvl in chain if (key,) not in broken else ():
                if lvl.entry.get(key) is not None:
                    return lvl.entry[key], lvl.at(key)
            return None, chain[0]

        def data(key: str) -> _Data:
            return _Data(chain if ("data", key) not in broken else [], key, level)

        hostname = field("hostname")[0] or name  # Nornir's default: the host's name is its address
        port = field("port")[0] or 22
        platform_name = field("platform")[0]
        platform = resolve_format(platform_name) if platform_name else None
        if platform_name is None and ("platform",) not in broken:
            self.error(f"{where}: no `platform` (the host, a group or defaults must set one of: {_collectable()})",
                       doc, parts)

        creds = data("credentials")
        username, at = field("username")
        if "username" in creds.value:
            username, at = creds.value["username"], creds.origin["username"]
        if not username and not broken & {("username",), ("data", "credentials")}:
            self.error(f"{where}: no `username` (set it on the host, a group or defaults, or in data.credentials)",
                       at.doc, at.parts)
        password = secret = None
        for key in ("password", "secret"):
            try:
                value = resolve(creds.value, key, self.env)
            except CredentialError as exc:
                origin = creds.origin[exc.key]
                self.error(f"{origin.label}: {exc}", origin.doc, origin.parts)
                continue
            if key == "password":
                password = value
                if value is None and platform is not None and ("data", "credentials") not in broken:
                    self.error(f"{where}: no password reference: set data.credentials.password_env (an environment "
                               "variable name) or data.credentials.password_file", doc, parts)
            else:
                secret = value

        interfaces, rdma = tuple(data("interfaces").raw or ()), tuple(data("rdma_devices").raw or ())
        if platform is not None and any("{iface}" in c.line for c in platform.commands) and not interfaces \
                and ("data", "interfaces") not in broken:
            self.error(f"{where}: platform {platform.id} needs `data.interfaces`: the RoCE interfaces to collect "
                       "(e.g. [ens1f0np0])", doc, parts)

        snmp = self._snmp(data("snmp"), hostname)
        gnmi = self._gnmi(data("gnmi"), hostname, username, password, platform)
        if len(self.errors) > before or platform is None or password is None or broken:
            return None
        return Host(name=name, hostname=hostname.strip(), port=port, platform=platform, username=username,
                    password=password, secret=secret, device_type=data("ssh").value.get("device_type") or platform.netmiko,
                    interfaces=interfaces, rdma_devices=rdma, snmp=snmp, gnmi=gnmi)

    def _data_error(self, spec: _Data, section: str):
        """err(message, key=None): an error at the level that set data.<section>.<key>, or at the section."""
        def err(message: str, key: str | None = None) -> None:
            at = spec.origin[key] if key else spec.level
            self.error(f"{at.label}: {message}", at.doc, at.parts if key else (*at.parts, "data", section))
        return err

    def _snmp(self, spec: _Data, hostname: str) -> SnmpTarget | None:
        if spec.raw is None:
            return None
        value, err, bad = Snmp.model_validate(spec.value), self._data_error(spec, "snmp"), len(self.errors)
        secrets: dict[str, Secret | None] = dict.fromkeys(("community", "auth_key", "priv_key"))
        for key in ("community",) if value.version == "2c" else ("auth_key", "priv_key"):  # what the version uses
            try:
                secrets[key] = resolve(spec.value, key, self.env)
            except CredentialError as exc:
                err(str(exc), exc.key)
        if len(self.errors) > bad:
            return None
        if value.version == "2c" and secrets["community"] is None:
            err("SNMPv2c needs `data.snmp.community_env` or `community_file`")
        missing = [k for k, v in (("user", value.user), ("auth_key_env or auth_key_file", secrets["auth_key"]),
                                  ("priv_key_env or priv_key_file", secrets["priv_key"])) if not v]
        if value.version == "3" and missing:
            err(f"SNMPv3 (authPriv) needs data.snmp {', '.join(missing)}")
        if len(self.errors) > bad:
            return None
        return SnmpTarget(hostname=value.hostname or hostname, port=value.port, version=value.version,
                          community=secrets["community"], user=value.user, auth_key=secrets["auth_key"],
                          priv_key=secrets["priv_key"], auth_protocol=value.auth_protocol,
                          priv_protocol=value.priv_protocol, context=value.context)

    def _gnmi(self, spec: _Data, hostname: str, username: Any, password: Secret | None,
              platform: Platform | None) -> GnmiSpec | None:
        """data.gnmi: port (required), optional hostname, username and password reference (default:
        the SSH login's), tls (default true), ca_file (relative to the inventory), server_name."""
        if spec.raw is None:
            return None
        value, err, bad = Gnmi.model_validate(spec.value), self._data_error(spec, "gnmi"), len(self.errors)
        from .monitor.gnmi import PATHS  # the platforms with gNMI counter paths

        if platform is not None and platform.id not in PATHS:
            err(f"platform {platform.id} has no gNMI counter paths (gNMI: {', '.join(PATHS)})")
        if value.port is None:
            err(f"`data.gnmi.port` must be {_GNMI_PORT}")
        user = value.username or username
        if not user:
            err("`data.gnmi.username` must be a user name")
        try:
            secret = resolve(spec.value, "password", self.env) or password
        except CredentialError as exc:
            err(str(exc), exc.key)
            secret = None
        ca_file = None
        if value.ca_file is not None:
            ca_file = (self.path.parent if os.path.isfile(self.path) else self.path) / Path(value.ca_file).expanduser()
            if not os.path.isfile(ca_file):
                err(f"`data.gnmi.ca_file` {value.ca_file!r} is not a file (the CA certificate, PEM)", "ca_file")
            elif value.tls is False:
                err("`data.gnmi.ca_file` given with `tls: false`", "ca_file")
        if len(self.errors) > bad or secret is None:
            return None
        return GnmiSpec(hostname=value.hostname or hostname, port=value.port, username=user, password=secret,
                        tls=value.tls, ca_file=ca_file, server_name=value.server_name)


@record(frozen=True)
class _Level:
    """One level of a host's lookup chain: the host, one of its groups, or the defaults; ``entry`` holds what
    it sets that checked out, ``broken`` the fields (and data sections) reported wrong."""

    entry: dict
    doc: Document | None
    parts: tuple
    label: str  # "host leaf1", "group spines", "defaults": errors name where to fix them
    broken: frozenset = frozenset()

    def at(self, *keys: str) -> _Level:
        return _Level(self.entry, self.doc, (*self.parts, *keys), self.label)


class _Data:
    """data.<key> merged over a host's chain (the host wins), remembering which level set each sub-key."""

    def __init__(self, chain: list[_Level], key: str, host: _Level):
        self.raw: Any = None  # the host-most value (not merged)
        self.value: dict = {}
        self.origin: dict[str, _Level] = {}
        self.level = host
        for level in reversed(chain):
            value = (level.entry.get("data") or {}).get(key)
            if value is None:
                continue
            self.raw, self.level = value, level
            if isinstance(value, dict):
                for k in value:  # a level's password_file replaces an outer password_env, and the reverse
                    stem, _, how = k.rpartition("_")
                    if how in ("env", "file") and stem in SECRET_KEYS:
                        self.value.pop(f"{stem}_{'file' if how == 'env' else 'env'}", None)
                self.value = merge(self.value, value)
                for k in value:
                    self.origin[k] = level.at("data", key, k)


# A host's name becomes file names in a snapshot (<name>.capture, counters/<name>.json, session logs):
# one path component of letters, digits and . _ - @ + :, not starting with a dot (the loader skips dot
# files) and short enough for NAME_MAX (255) with the longest suffix added.
_FILE_NAME = lazy(r"[A-Za-z0-9_@+:-][A-Za-z0-9_.@+:-]*")
MAX_HOST_NAME = 200


def file_name_problem(name: str) -> str | None:
    """Why the host name ``name`` cannot name files in a snapshot folder, or None when it can."""
    if not name:
        return "an empty host name cannot name the snapshot's files"
    if len(name) > MAX_HOST_NAME:
        return f"a host name is at most {MAX_HOST_NAME} characters (it names files of the snapshot)"
    if not _FILE_NAME.fullmatch(name):
        return ("a host name names files of the snapshot: use letters, digits and . _ - @ + : only, not "
                "starting with a dot (no /, spaces or control characters)")
    return None


def _collectable() -> str:
    return ", ".join(p.id for p in PLATFORMS.values() if p.netmiko)


def _unread_secrets(entry: dict) -> list[tuple[str, ...]]:
    """Where an entry holds a secret-named key losslessd does not read (SECRET_KEYS directly under `data`, or anywhere
    under Nornir's `connection_options`, e.g. `connection_options: {netmiko: {password: ...}}`): the login never used
    it, and the inventory kept a secret in clear that the checks of data.credentials refuse."""
    out: list[tuple[str, ...]] = []
    data = entry.get("data")
    if isinstance(data, dict):
        out += [("data", k) for k in data if k in SECRET_KEYS]
    stack: list[tuple[tuple[str, ...], Any]] = [(("connection_options",), entry.get("connection_options"))]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(k, str) and k in SECRET_KEYS and v is not None:
                    out.append((*path, k))
                elif isinstance(k, str):
                    stack.append(((*path, k), v))
    return sorted(out)


def _at(data: Any, parts: tuple) -> Any:
    for p in parts:
        data = data.get(p) if isinstance(data, dict) else None
    return data


def _kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
            type(None): "null"}.get(type(value), "value")
