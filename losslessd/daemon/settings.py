"""The daemon's settings file (docs/daemon.md): YAML, validated by the pydantic models below (which also
give its JSON schema), every error naming file:line like a policy's do.

Everything the daemon needs is loaded and checked here, before it is used: the inventory (with its
credentials), the lint policy, the known_hosts file and the webhook's header secrets. A reload calls
``load_settings`` again and swaps only when it returns, so a bad file never replaces good settings.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from ..credentials import Secret
from ..docpos import Document, first_error, json_schema, load_yaml, must
from ..errors import InputError
from ..inventory import Address, Inventory, is_loopback
from ..inventory import load as load_inventory
from ..limits import MAX_FILE_MB, MAX_SECONDS, MIB, absent_or_kind, file_limit_mb, set_max_file_mb
from ..monitor.detect import Thresholds
from ..policy import Policy, load_policy

# Where /metrics listens by default. Loopback only: the endpoint also takes POST /-/reload.
DEFAULT_HTTP_HOST = "127.0.0.1"
REMOTE_REFUSED = ("{} is not a loopback address: /metrics and POST /-/reload (no authentication) would be open to "
                  "every host that reaches it; use 127.0.0.1, or set http.allow_remote: true and firewall the port")
DEFAULT_HTTP_PORT = 9469
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


def _no_nul(value: str) -> str:
    """A path the daemon opens: a NUL (YAML "\\0") is in no file name; os.open raises ValueError on it, so the daemon
    and `events --config` stopped with an internal error (exit 3) where --check had said the settings were valid."""
    if "\0" in value:
        raise ValueError("a path cannot hold a NUL character (\\0)")
    return value


PathText = Annotated[str, AfterValidator(_no_nul)]


DAY_S = 86_400
# Polls in flight at once (per kind and worker): each holds a socket, an SSH poll a thread too. 1,024 is Linux's
# default open-file limit (RLIMIT_NOFILE soft limit, getrlimit(2); INR_OPEN_CUR in include/uapi/linux/fs.h): past it
# a stampede of connections at every interval, and more than a process keeps open by default (our own limit,
# docs/daemon.md).
MAX_CONCURRENCY = 1024
# Retries of a request (SNMP, the webhook's POST): net-snmp's own default is 5 (snmpcmd(1) -r); 10 more attempts than
# the first of a device or a webhook that did not answer is our own limit (docs/daemon.md): past it each poll or alert
# waits (retries + 1) x its timeout, and 10**20 retries passed --check.
MAX_RETRIES = 10
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS)]
# An SNMP request's timeout is a target's snmpTargetAddrTimeout (RFC 3413, SNMP-TARGET-MIB), a TimeInterval: 0 to
# 2147483647 hundredths of a second (RFC 2579, SNMPv2-TC). pysnmp configures each target with it (hlapi's
# lcd.configure: timeout * 100, an Integer32 of that range), so a longer one failed every poll ("WrongValueError")
# and one under a hundredth was read as 0, where --check had passed both.
SnmpTimeout = Annotated[float, Field(ge=0.01, le=2_147_483_647 / 100)]
# A switch refreshes the counters a poll reads at most every 100 ms: SONiC's flex counter POLL_INTERVAL is 100 to
# 4294967295 ms (sonic-buildimage sonic-flex_counter.yang, `poll_interval`). A poll more often reads the same numbers
# again and only loads the switch's CPU (`snmp_interval_s: 1.0e-7` passed --check and polled each switch back to back).
MIN_COUNTER_INTERVAL_S = 0.1
CounterInterval = Annotated[float, Field(ge=MIN_COUNTER_INTERVAL_S, le=MAX_SECONDS)]


class _S(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # `.inf` seconds is no interval


class Poll(_S):
    snmp_interval_s: CounterInterval = Field(10.0, description="Seconds between two SNMP counter polls of a switch.")
    ssh_counters_interval_s: CounterInterval | None = Field(
        60.0, description="Seconds between two polls of the counters only a CLI serves (SONiC watchdog and "
        "WRED counters, host `ethtool -S`); null: never.")
    jitter: float = Field(0.1, ge=0, le=0.5, description="Each interval is stretched or shrunk by up to this "
                          "fraction at random, so devices polled together drift apart.")
    concurrency: int = Field(32, ge=1, le=MAX_CONCURRENCY, description="Polls in flight at once, per kind (SNMP, "
                             "SSH).")
    snmp_speed_every: int = Field(30, ge=1, le=10**6, description=(
        "Walk the ports' speeds (IF-MIB ifHighSpeed) every this many SNMP polls of a switch, besides its first poll "
        "and the poll after a counter discontinuity, an agent restart, a new port or octets faster than the known "
        "speed."))
    snmp_timeout_s: SnmpTimeout = Field(2.0, description="Seconds one SNMP request may take (0.01 to 21474836.47: "
                                        "SNMP-TARGET-MIB's snmpTargetAddrTimeout, hundredths of a second).")
    snmp_retries: int = Field(1, ge=0, le=MAX_RETRIES, description="SNMP retries of a request that timed out.")
    snmp_backend: Literal["auto", "fast", "pysnmp"] = Field(
        "auto", description="SNMP library: fast (gufo-snmp), pysnmp, or auto (fast when it can be imported).")
    ssh_timeout_s: Seconds = Field(60.0, description="Seconds one SSH session (login and commands) may take.")
    gnmi_sample_interval_s: CounterInterval = Field(10.0, description="Sample interval asked of devices streaming "
                                          "their counters over gNMI (inventory data.gnmi; docs/gnmi.md).")
    gnmi_timeout_s: Seconds = Field(10.0, description="Seconds a gNMI connection and its first answer may take; "
                                  "a stream quiet for 3 sample intervals plus this is stalled.")
    backoff_initial_s: Seconds = Field(10.0, description="Wait after a device's first failed poll.")
    backoff_max_s: Seconds = Field(300.0, description="Longest wait between polls of a failing device.")

    @field_validator("backoff_max_s")
    @classmethod
    def _backoff_order(cls, value: float, info: ValidationInfo) -> float:
        if value < info.data.get("backoff_initial_s", 0):
            raise ValueError(f"backoff_max_s ({value:g}) must not be below backoff_initial_s "
                             f"({info.data['backoff_initial_s']:g})")
        return value


class Drift(_S):
    enabled: bool = True
    interval_s: Seconds = Field(3600.0, description="Seconds between two pulls and lints of every config.")


class Http(_S):
    # /-/reload has no authentication: a non-loopback host (0.0.0.0, `::`, a routable address) was served with a
    # warning in the log alone, so one edit of the settings put the daemon's reload on every network it reaches.
    # Before `host` so that host's check sees it.
    allow_remote: bool = Field(False, description=(
        "true: serve on an address that is not a loopback one (0.0.0.0, ::, a routable address or a name resolving "
        "to one); /metrics and POST /-/reload are then open to whoever reaches it (no authentication)."))
    # (an IP address or a host name: a blank or a control character passed --check and failed when serving)
    host: Address = Field(DEFAULT_HTTP_HOST, description="Address /metrics listens on (a loopback one unless "
                                                          "allow_remote).")
    port: int = Field(DEFAULT_HTTP_PORT, ge=0, le=65535, description="0 picks a free port (logged at start).")
    max_connections: int = Field(64, ge=2, le=10000, description=(
        "Connections served at once; past it, the one that has waited longest for a request is dropped."))
    header_timeout_s: float = Field(10.0, gt=0, le=300, description=(
        "Seconds a client has to send a whole request head (and an idle keep-alive connection lives)."))

    @field_validator("host")
    @classmethod
    def _loopback_unless_allowed(cls, value: str, info: ValidationInfo) -> str:
        if is_loopback(value) is False and not info.data.get("allow_remote"):
            raise ValueError(REMOTE_REFUSED.format(value))
        return value


class HistorySettings(_S):
    path: PathText = Field("losslessd.db", min_length=1, description="SQLite file, relative to the settings file.")
    resolution_s: Seconds = Field(60.0, description="Samples are kept as one mean and max per this many seconds.")
    retention_days: float = Field(30.0, gt=0, le=MAX_SECONDS / DAY_S)

    @field_validator("retention_days")
    @classmethod
    def _keeps_a_bucket(cls, value: float, info: ValidationInfo) -> float:
        """A retention shorter than one bucket deletes the bucket being filled (History.prune drops each bucket that
        starts before now - retention): `retention_days: 0.0001` with `resolution_s: 3600` passed --check and the
        daemon kept no sample and no ended event."""
        resolution = info.data.get("resolution_s")
        if resolution is not None and value * DAY_S < resolution:
            raise ValueError(f"retention_days ({value:g}: {value * DAY_S:g} s) is shorter than one resolution_s bucket "
                             f"({resolution:g} s): every bucket would be deleted while it is filled")
        return value


# Some webhook URLs carry their token (a Slack or Teams incoming webhook's path): no message repeats the URL. A
# control character (not whitespace, so \S took it) made urllib's every POST fail with the URL's path and query in
# the logged reason. A URL is ASCII (RFC 3986, 2: other characters are percent-encoded): a non-ASCII or C1 character
# passed --check, and http.client refused every POST's request line (it encodes it as ASCII).
# A scheme is case-insensitive (RFC 3986 3.1: HTTPS:// is https://; urllib lower-cases it).
_WEBHOOK_URL = r"^(?i:https?)://[!-~]+$"
WEBHOOK_URL_MUST = ("an http:// or https:// URL of printable ASCII, without spaces or control characters (others "
                    "percent-encoded; not repeated here: it may carry a token)")


def webhook_url(value: str) -> str:
    """``value`` if a webhook can POST to it, else a ValueError that never names it (some webhook URLs carry a token).
    The one check of the settings (--check, a reload) and of WebhookSink built from the API (a non-ASCII URL passed
    it, and every POST failed)."""
    if not re.fullmatch(_WEBHOOK_URL, value):
        raise ValueError(f"webhook URL must be {WEBHOOK_URL_MUST}")
    try:
        parts = urlsplit(value)
        host, port = parts.hostname, parts.port  # (a port past 65535 passed, and each POST failed on a name lookup)
        if port == 0:  # (port 0 is reserved, no server listens on it: RFC 6335 6; every POST would fail)
            raise ValueError
    except ValueError:  # a broken [IPv6] part, a port that is no number or out of range
        # (a fixed message: urllib's quotes the text it took for a port, a password before an unencoded #)
        raise ValueError("webhook URL is malformed: its port is not a number from 1 to 65535, or its [IPv6] "
                         "host is not closed (a user or password in it must percent-encode #, / and ?)") from None
    if not host:
        raise ValueError("webhook URL names no host")
    return value


class Webhook(_S):
    url: Annotated[str, Field(pattern=_WEBHOOK_URL), must(WEBHOOK_URL_MUST)]
    timeout_s: Seconds = Field(5.0)
    retries: int = Field(3, ge=0, le=MAX_RETRIES)
    headers_env: dict[str, EnvName] = Field(default_factory=dict, description="HTTP header -> environment variable "
                                        "holding its value (e.g. Authorization: ALERT_TOKEN); never the value itself.")

    @field_validator("url")
    @classmethod
    def _has_host(cls, value: str) -> str:
        """What WebhookSink needs: checked here so that --check and a reload refuse it."""
        return webhook_url(value)


class Sinks(_S):
    log: bool = Field(True, description="Log every event change (JSON on stderr).")
    webhook: Webhook | None = None


class Log(_S):
    level: Literal["debug", "info", "warning", "error"] = "info"


class Settings(_S):
    inventory: PathText = Field(description="Inventory file or folder (as for `losslessd pull`), relative to this "
                                "file.")
    policy: PathText = Field("roce-dscp26", description="Policy file (relative to this file) or shipped policy name.")
    known_hosts: PathText = Field("~/.ssh/known_hosts",
                                  description="known_hosts the devices' SSH keys are checked against.")
    insecure_no_host_key_check: bool = Field(False, description="Accept any SSH host key (lab networks only).")
    workers: int | None = Field(None, ge=1, le=256, description=(
        "Worker processes polling the devices (each its own share); null: one per CPU core the daemon may run on."))
    poll: Poll = Field(default_factory=Poll)
    drift: Drift = Field(default_factory=Drift)
    detection: Thresholds = Field(default_factory=Thresholds)
    http: Http = Field(default_factory=Http)
    history: HistorySettings = Field(default_factory=HistorySettings)
    sinks: Sinks = Field(default_factory=Sinks)
    log: Log = Field(default_factory=Log)
    # (at least one byte: 1e-9 passed the field and stopped the daemon as "--max-file-mb must be ...", no line)
    max_file_mb: float | None = Field(None, ge=1 / MIB, le=MAX_FILE_MB, description=(
        "Largest file read (the inventory, the policy, each pulled capture a drift lint reads), in MiB; null: "
        "LOSSLESSD_MAX_FILE_MB or 32. Raise it for larger real configs (README \"Limits\")."))

    # What the file refers to, loaded and checked by load_settings.
    _file: Path = PrivateAttr()
    _hosts: Inventory = PrivateAttr()
    _policy: Policy = PrivateAttr()
    _headers: dict[str, Secret] = PrivateAttr(default_factory=dict)

    def apply_limits(self) -> None:
        """Make ``max_file_mb`` this process's limit (the drift lint reads pulled captures with it); null is
        the environment's or the default, also after a reload that removed the key."""
        set_max_file_mb(self.max_file_mb)

    @property
    def file(self) -> Path:
        return self._file

    @property
    def hosts(self) -> Inventory:
        return self._hosts

    @property
    def lint_policy(self) -> Policy:
        return self._policy

    @property
    def webhook_headers(self) -> dict[str, Secret]:
        return self._headers

    @property
    def known_hosts_path(self) -> Path | None:
        """None when host keys are not checked."""
        return None if self.insecure_no_host_key_check else self._relative(self.known_hosts)

    @property
    def history_path(self) -> Path:
        return self._relative(self.history.path)

    def _relative(self, value: str) -> Path:
        return self._file.parent / Path(value).expanduser()


@lru_cache(maxsize=1)
def schema() -> dict:
    """The settings' JSON schema (also for editors: `losslessd daemon --schema`)."""
    return json_schema(Settings)


def load_settings(path: str | Path, env: Mapping[str, str] | None = None) -> Settings:
    """Read, check and load everything the settings file names; raises InputError (file:line)."""
    env = os.environ if env is None else env
    settings, doc = _read(Path(path))
    with file_limit_mb(settings.max_file_mb):  # the daemon makes it its own with apply_limits()
        settings._hosts = load_inventory(settings._relative(settings.inventory), env)
        if any(h.gnmi is not None for h in settings._hosts.hosts.values()):
            try:  # grpcio and pygnmi's gNMI protobufs come with the `gnmi` extra
                import losslessd.collect.gnmi  # noqa: F401
            except ImportError as exc:
                raise InputError(f"the inventory has data.gnmi devices but {exc.name} is not installed: "
                                 "pip install 'losslessd[gnmi]'", file=doc.file,
                                 line=doc.line_of(["inventory"]) or 1) from None
        policy = settings._relative(settings.policy)
        try:
            settings._policy = load_policy(policy if os.path.lexists(policy) else settings.policy)
        except InputError as exc:
            if exc.file:
                raise
            raise InputError(f"policy: {exc.message}", file=doc.file, line=doc.line_of(["policy"]) or 1) from None
    keys = settings.known_hosts_path
    if keys is not None and not os.path.isfile(keys):
        raise InputError(f"known_hosts file {keys} {absent_or_kind(keys)}: give the file holding the devices' SSH "
                         "host keys (or, on a lab network only, insecure_no_host_key_check: true)", file=doc.file,
                         line=doc.line_of(["known_hosts"]) or 1)
    if keys is not None:
        from ..collect.ssh import check_known_hosts  # (paramiko: only when keys are checked)

        check_known_hosts(keys)
    webhook = settings.sinks.webhook
    for header, var in (webhook.headers_env if webhook else {}).items():
        if not env.get(var):
            raise InputError(f"environment variable {var} (webhook header {header}) is not set or empty",
                             file=doc.file, line=doc.line_of(["sinks", "webhook", "headers_env", header]))
        settings._headers[header] = Secret(env[var], f"environment variable {var}")
    return settings


def read_settings(path: str | Path) -> Settings:
    """The settings file alone, checked against the schema; the files it names are not read."""
    return _read(Path(path))[0]


def _read(path: Path) -> tuple[Settings, Document]:
    doc = load_yaml(path)
    doc.refuse_duplicates()
    if doc.data is None:
        doc.data = {}
    if not isinstance(doc.data, dict):
        raise InputError("daemon settings must be a YAML mapping", file=doc.file, line=1)
    try:
        settings = Settings.model_validate(doc.data, strict=True)
    except ValidationError as exc:
        raise first_error(exc, Settings, doc) from None
    settings._file = Path(os.path.realpath(path))
    return settings, doc

