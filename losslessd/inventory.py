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

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .credentials import SECRET_KEYS, CredentialError, Secret, refuse_plaintext, resolve
from .docpos import Document, load_yaml
from .errors import InputError
from .platforms import PLATFORMS, Platform, resolve_format

FOLDER_FILES = ("hosts.yaml", "groups.yaml", "defaults.yaml")
# Nornir's Host/Group fields; connection_options is accepted for reuse but pull does not read it.
_FIELDS = {"hostname", "port", "platform", "username", "password", "groups", "data", "connection_options"}
_CREDENTIAL_KEYS = {"username", "password_env", "password_file", "secret_env", "secret_file"}
_SSH_KEYS = {"device_type"}
_SNMP_KEYS = {"version", "port", "hostname", "community_env", "community_file", "user", "auth_key_env",
              "auth_key_file", "priv_key_env", "priv_key_file", "auth_protocol", "priv_protocol", "context"}
_GNMI_KEYS = {"port", "hostname", "username", "password_env", "password_file", "tls", "ca_file", "server_name"}
# SNMPv3 authPriv protocols the poller offers (pysnmp usmHMACSHAAuthProtocol..., usmAesCfb128Protocol...).
AUTH_PROTOCOLS = ("sha", "sha224", "sha256", "sha384", "sha512")
PRIV_PROTOCOLS = ("aes", "aes192", "aes256")
_IFACE = re.compile(r"[A-Za-z0-9_.:@-]{1,64}")  # a Linux interface or RDMA device name (collect-host-capture.sh)


class InventoryError(InputError):
    """Every problem found in an inventory; ``errors`` holds one InputError (file, line) each."""

    def __init__(self, errors: list[InputError]):
        self.errors = errors
        first = errors[0]
        super().__init__(first.message if len(errors) == 1 else
                         f"{first.message} (and {len(errors) - 1} more inventory problem(s))",
                         file=first.file, line=first.line)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class GnmiSpec:
    """How the daemon subscribes to a device's counters over gNMI (docs/gnmi.md)."""

    hostname: str
    port: int
    username: str
    password: Secret
    tls: bool = True  # False: plaintext gRPC (lab only; the password crosses the network in clear)
    ca_file: Path | None = None  # the CA the device's certificate must chain to; None: the system's
    server_name: str | None = None  # the name its certificate carries, when not the hostname


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
            hosts_doc, hosts_base = sections["hosts"]
            groups_doc, groups_base = sections["groups"]
            defaults_doc, defaults_base = sections["defaults"]
            self.groups = self._entries(groups_doc, groups_base, "group")
            self.defaults = self._mapping(defaults_doc, defaults_base, "defaults") or {}
            if defaults_doc is not None:
                self._check_fields(self.defaults, defaults_doc, defaults_base, "defaults", group=False)
            self.defaults_at = (defaults_doc, defaults_base)
            for name, (entry, doc, parts) in self.groups.items():
                self._check_fields(entry, doc, parts, f"group {name}", group=True)
            for name, (entry, doc, parts) in self._entries(hosts_doc, hosts_base, "host").items():
                problem = file_name_problem(name)
                if problem:  # it names the host's capture, counters and session log files
                    self.error(f"host {name[:80]!r}{'...' if len(name) > 80 else ''}: {problem}", doc, parts)
                    continue
                self._check_fields(entry, doc, parts, f"host {name}", group=True)
                host = self._host(name, entry, doc, parts)
                if host is not None:
                    hosts[name] = host
            if not hosts and not self.errors:
                self.error("the inventory lists no hosts", hosts_doc, hosts_base)
        if self.errors:
            unique = {(e.file, e.line, e.message): e for e in self.errors}  # a shared group/defaults error once
            raise InventoryError(sorted(unique.values(), key=lambda e: (e.file or "", e.line or 0)))
        return Inventory(hosts)

    def _sections(self) -> dict[str, tuple[Document | None, tuple]] | None:
        """(document, pointer parts) of the hosts, groups and defaults mappings."""
        if self.path.is_dir():
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

    def _entries(self, doc: Document | None, parts: tuple, what: str) -> dict[str, tuple[dict, Document, tuple]]:
        out = {}
        for name, entry in (self._mapping(doc, parts, f"{what}s") or {}).items():
            if entry is None:
                entry = {}
            if not isinstance(entry, dict):
                self.error(f"{what} {name}: must be a mapping of fields, not a {_kind(entry)}", doc, (*parts, name))
                continue
            out[str(name)] = (entry, doc, (*parts, name))
        return out

    # -- fields -----------------------------------------------------------------------------
    def _check_fields(self, entry: dict, doc: Document, parts: tuple, where: str, group: bool) -> None:
        """Shape checks that do not need inheritance: unknown fields, plaintext secrets, group names."""
        for key in entry:
            if key not in _FIELDS or (key == "groups" and not group):
                self.error(f"{where}: unknown field `{key}` (known: {', '.join(sorted(_FIELDS))})", doc, (*parts, key))
        for problem in refuse_plaintext(entry):
            self.error(f"{where}: {problem}", doc, (*parts, problem.key))
        data = entry.get("data")
        if data is not None and not isinstance(data, dict):
            self.error(f"{where}: `data` must be a mapping", doc, (*parts, "data"))
            return
        for key, allowed in (("credentials", _CREDENTIAL_KEYS), ("ssh", _SSH_KEYS), ("snmp", _SNMP_KEYS),
                             ("gnmi", _GNMI_KEYS)):
            sub = (data or {}).get(key)
            if sub is None:
                continue
            at = (*parts, "data", key)
            if not isinstance(sub, dict):
                self.error(f"{where}: `data.{key}` must be a mapping", doc, at)
                continue
            for problem in refuse_plaintext(sub):
                self.error(f"{where}: {problem}", doc, (*at, problem.key))
            for k in sub:
                if k not in allowed and k not in SECRET_KEYS:
                    self.error(f"{where}: unknown field `data.{key}.{k}` (known: {', '.join(sorted(allowed))})",
                               doc, (*at, k))
        groups = entry.get("groups")
        if groups is not None:
            if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
                self.error(f"{where}: `groups` must be a list of group names", doc, (*parts, "groups"))
                return
            for i, g in enumerate(groups):
                if g not in self.groups:
                    known = ", ".join(sorted(self.groups)) or "none defined"
                    self.error(f"{where}: unknown group {g!r} (groups: {known})", doc, (*parts, "groups", i))

    def _chain(self, name: str, entry: dict, doc: Document, parts: tuple) -> list[_Level]:
        """The host's entry, its groups depth-first (each once), then the defaults: Nornir's lookup order.
        Walked without recursion, so a chain of thousands of groups is no problem; a group that belongs to
        itself through others is reported (once per group)."""
        out = [_Level(entry, doc, parts, f"host {name}")]
        seen: set[str] = set()
        path: list[str] = []  # the groups being visited, outermost first
        stack: list[str | None] = list(reversed(_group_names(entry.get("groups"))))
        while stack:
            g = stack.pop()
            if g is None:  # a group's own groups are done
                path.pop()
                continue
            if g in path:
                cycle = " -> ".join(path[path.index(g):] + [g])
                self._group_cycle(g, cycle)
                continue
            if g not in self.groups or g in seen:
                continue
            seen.add(g)
            out.append(_Level(*self.groups[g], f"group {g}"))
            path.append(g)
            stack.append(None)
            stack.extend(reversed(_group_names(self.groups[g][0].get("groups"))))
        return [*out, _Level(self.defaults, *self.defaults_at, "defaults")]

    def _group_cycle(self, group: str, cycle: str) -> None:
        entry, doc, parts = self.groups[group]
        self.error(f"group {group}: its groups lead back to it ({cycle}): a group cannot belong to itself", doc,
                   (*parts, "groups"))

    def _host(self, name: str, entry: dict, doc: Document, parts: tuple) -> Host | None:
        chain = self._chain(name, entry, doc, parts)
        where = f"host {name}"
        before = len(self.errors)

        def field(key: str) -> tuple[Any, _Level]:
            """The value of ``key`` from the first level that sets it, and that level."""
            for level in chain:
                if level.entry.get(key) is not None:
                    return level.entry[key], level.at(key)
            return None, chain[0]

        hostname, at = field("hostname")
        if hostname is None:
            hostname = name  # Nornir's default: the host's name is its address
        elif not isinstance(hostname, str) or not hostname.strip():
            self.error(f"{at.label}: `hostname` must be a host name or address", at.doc, at.parts)
        port, at = field("port")
        port = 22 if port is None else port
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            self.error(f"{at.label}: `port` must be a TCP port 1-65535", at.doc, at.parts)
        platform_name, at = field("platform")
        platform = resolve_format(platform_name) if isinstance(platform_name, str) else None
        if platform_name is None:
            self.error(f"{where}: no `platform` (the host, a group or defaults must set one of: {_collectable()})",
                       doc, parts)
        elif platform is None or platform.netmiko is None:
            what = "cannot be pulled over SSH" if platform else "is not a platform losslessd knows"
            self.error(f"{at.label}: platform {platform_name!r} {what} (pull knows: {_collectable()})", at.doc, at.parts)
            platform = None

        creds = _Data(chain, "credentials")
        username, at = field("username")
        if "username" in creds.value:
            username, at = creds.value["username"], creds.origin["username"]
        if not isinstance(username, str) or not username:
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
                if value is None and platform is not None:
                    self.error(f"{where}: no password reference: set data.credentials.password_env (an environment "
                               "variable name) or data.credentials.password_file", doc, parts)
            else:
                secret = value

        ssh = _Data(chain, "ssh")
        device_type = ssh.value.get("device_type")
        if device_type is not None and not isinstance(device_type, str):
            at = ssh.origin["device_type"]
            self.error(f"{at.label}: `data.ssh.device_type` must be a netmiko device type name", at.doc, at.parts)

        interfaces = self._names(_Data(chain, "interfaces"), "interfaces")
        rdma = self._names(_Data(chain, "rdma_devices"), "rdma_devices")
        if platform is not None and any("{iface}" in c.line for c in platform.commands) and not interfaces:
            self.error(f"{where}: platform {platform.id} needs `data.interfaces`: the RoCE interfaces to collect "
                       "(e.g. [ens1f0np0])", doc, parts)

        snmp = self._snmp(_Data(chain, "snmp"), hostname if isinstance(hostname, str) else name)
        gnmi = self._gnmi(_Data(chain, "gnmi"), hostname if isinstance(hostname, str) else name, username, password,
                          platform)
        if len(self.errors) > before or platform is None or password is None:
            return None
        return Host(name=name, hostname=hostname.strip(), port=port, platform=platform, username=username,
                    password=password, secret=secret, device_type=device_type or platform.netmiko,
                    interfaces=interfaces, rdma_devices=rdma, snmp=snmp, gnmi=gnmi)

    def _names(self, found: _Data, key: str) -> tuple[str, ...]:
        value = found.raw
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and _IFACE.fullmatch(v) for v in value):
            at = found.level
            self.error(f"{at.label}: `data.{key}` must be a list of names (letters, digits, _ . : @ -)", at.doc,
                       (*at.parts, "data", key))
            return ()
        return tuple(value)

    def _data_error(self, spec: _Data, section: str):
        """err(message, key=None): an error at the level that set data.<section>.<key>, or at the section."""
        def err(message: str, key: str | None = None) -> None:
            at = spec.origin[key] if key else spec.level
            self.error(f"{at.label}: {message}", at.doc, at.parts if key else (*at.parts, "data", section))
        return err

    def _snmp(self, spec: _Data, hostname: str) -> SnmpTarget | None:
        if spec.raw is None:
            return None
        value = spec.value
        bad = len(self.errors)

        err = self._data_error(spec, "snmp")

        if not isinstance(spec.raw, dict):
            err("`data.snmp` must be a mapping")
            return None
        version = str(value.get("version", "2c")).lower().removeprefix("v")
        port = value.get("port", 161)
        if version not in ("2c", "3"):
            err("`data.snmp.version` must be 2c or 3", "version")
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            err("`data.snmp.port` must be a UDP port 1-65535", "port")
        if any(key in value for key in SECRET_KEYS):
            return None  # a plaintext secret: _check_fields has reported it
        secrets: dict[str, Secret | None] = dict.fromkeys(("community", "auth_key", "priv_key"))
        for key in ("community",) if version == "2c" else ("auth_key", "priv_key"):  # what the version uses
            try:
                secrets[key] = resolve(value, key, self.env)
            except CredentialError as exc:
                err(str(exc), exc.key)
        auth = str(value.get("auth_protocol", "sha")).lower()
        priv = str(value.get("priv_protocol", "aes")).lower()
        if len(self.errors) > bad:
            return None
        if version == "2c" and secrets["community"] is None:
            err("SNMPv2c needs `data.snmp.community_env` or `community_file`")
        if version == "3":
            missing = [k for k, v in (("user", value.get("user")), ("auth_key_env or auth_key_file", secrets["auth_key"]),
                                      ("priv_key_env or priv_key_file", secrets["priv_key"])) if not v]
            if missing:
                err(f"SNMPv3 (authPriv) needs data.snmp {', '.join(missing)}")
            if auth not in AUTH_PROTOCOLS:
                err(f"`data.snmp.auth_protocol` must be one of {', '.join(AUTH_PROTOCOLS)}", "auth_protocol")
            if priv not in PRIV_PROTOCOLS:
                err(f"`data.snmp.priv_protocol` must be one of {', '.join(PRIV_PROTOCOLS)}", "priv_protocol")
        if len(self.errors) > bad:
            return None
        return SnmpTarget(hostname=str(value.get("hostname") or hostname), port=port, version=version,
                          community=secrets["community"], user=value.get("user"), auth_key=secrets["auth_key"],
                          priv_key=secrets["priv_key"], auth_protocol=auth, priv_protocol=priv,
                          context=str(value.get("context", "")))


    def _gnmi(self, spec: _Data, hostname: str, username: Any, password: Secret | None,
              platform: Platform | None) -> GnmiSpec | None:
        """data.gnmi: port (required), optional hostname, username and password reference (default:
        the SSH login's), tls (default true), ca_file (relative to the inventory), server_name."""
        if spec.raw is None:
            return None
        bad = len(self.errors)
        value = spec.value

        err = self._data_error(spec, "gnmi")

        if not isinstance(spec.raw, dict):
            err("`data.gnmi` must be a mapping")
            return None
        from .monitor.gnmi import PATHS  # the platforms with gNMI counter paths

        if platform is not None and platform.id not in PATHS:
            err(f"platform {platform.id} has no gNMI counter paths (gNMI: {', '.join(PATHS)})")
        port = value.get("port")
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            err("`data.gnmi.port` must be the device's gNMI TCP port (1-65535; e.g. EOS 6030, SONiC 50051)",
                "port" if "port" in value else None)
        tls = value.get("tls", True)
        if not isinstance(tls, bool):
            err("`data.gnmi.tls` must be true or false", "tls")
        user = value.get("username", username)
        if not isinstance(user, str) or not user:
            err("`data.gnmi.username` must be a user name", "username" if "username" in value else None)
        try:
            secret = resolve(value, "password", self.env) or password
        except CredentialError as exc:
            err(str(exc), exc.key)
            secret = None
        ca_file = None
        if value.get("ca_file") is not None:
            ca = value["ca_file"]
            ca_file = (self.path.parent if self.path.is_file() else self.path) / Path(str(ca)).expanduser()
            if not isinstance(ca, str) or not ca_file.is_file():
                err(f"`data.gnmi.ca_file` {ca!r} is not a file (the CA certificate, PEM)", "ca_file")
            elif tls is False:
                err("`data.gnmi.ca_file` given with `tls: false`", "ca_file")
        name = value.get("server_name")
        if name is not None and (not isinstance(name, str) or not name):
            err("`data.gnmi.server_name` must be the name the device's certificate carries", "server_name")
        if len(self.errors) > bad or secret is None:
            return None
        return GnmiSpec(hostname=str(value.get("hostname") or hostname), port=port, username=user, password=secret,
                        tls=tls, ca_file=ca_file, server_name=name)


@dataclass(frozen=True)
class _Level:
    """One level of a host's lookup chain: the host, one of its groups, or the defaults."""

    entry: dict
    doc: Document | None
    parts: tuple
    label: str  # "host leaf1", "group spines", "defaults": errors name where to fix them

    def at(self, *keys: str) -> _Level:
        return _Level(self.entry, self.doc, (*self.parts, *keys), self.label)


class _Data:
    """data.<key> merged over a host's chain (the host wins), remembering which level set each sub-key."""

    def __init__(self, chain: list[_Level], key: str):
        self.raw: Any = None  # the host-most value (not merged)
        self.value: dict = {}
        self.origin: dict[str, _Level] = {}
        self.level = chain[0]
        for level in reversed(chain):
            value = (level.entry.get("data") or {}).get(key) if isinstance(level.entry.get("data"), dict) else None
            if value is None:
                continue
            self.raw, self.level = value, level
            if isinstance(value, dict):
                for k in value:  # a level's password_file replaces an outer password_env, and the reverse
                    stem, _, how = k.rpartition("_")
                    if how in ("env", "file") and stem in SECRET_KEYS:
                        self.value.pop(f"{stem}_{'file' if how == 'env' else 'env'}", None)
                self.value = _merge(self.value, value)
                for k in value:
                    self.origin[k] = level.at("data", key, k)


def _group_names(groups: Any) -> list[str]:
    """The group names of a `groups:` value; anything else there has been reported by _check_fields."""
    return [g for g in groups if isinstance(g, str)] if isinstance(groups, list) else []


# A host's name becomes file names in a snapshot (<name>.capture, counters/<name>.json, session logs):
# one path component of letters, digits and . _ - @ + :, not starting with a dot (the loader skips dot
# files) and short enough for NAME_MAX (255) with the longest suffix added.
_FILE_NAME = re.compile(r"[A-Za-z0-9_@+:-][A-Za-z0-9_.@+:-]*")
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


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out


def _at(data: Any, parts: tuple) -> Any:
    for p in parts:
        data = data.get(p) if isinstance(data, dict) else None
    return data


def _kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(type(value), "value")
