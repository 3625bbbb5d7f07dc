"""Device simulator: the fabric of a folder of device files, served over SSH and SNMP on 127.0.0.1.

Tests, `make demo` and `losslessd sim` use it to collect from something that talks like a fleet: every
device of the folder gets an SSH CLI on its own free port answering the commands its files recorded
(losslessd.sim.ssh) and, for switches, an SNMP agent with counters that move (losslessd.sim.snmp). The
simulator writes an inventory of what it started, in the shape of Nornir's SimpleInventory, and a
known_hosts file with its host key; the secrets live only in ``Simulator.env``, the inventory names
the environment variables. Faults for tests: a device that is down, a changed password, a changed
host key, a garbled output, an answer with text after it, a PFC storm (with or without ECN marking), a restart that
resets the counters, counters zeroed beneath a running agent (a SONiC syncd restart), a 32-bit counter that wraps,
a slow agent, garbage instead of counters (`losslessd sim storm ...` starts the lasting ones on a running `losslessd
sim` through losslessd.sim.control). Counters are served over SNMP (switches) and by the counter commands over
SSH (losslessd.sim.counters), from one state.

    with Simulator("examples/fabric", tmp_path, snmp=False) as sim:
        sim.inventory_path, sim.known_hosts_path, sim.env, sim.devices["leaf1"].ssh_port
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .. import capture
from ..errors import InputError
from ..fabric import folder_groups
from ..limits import output_folder
from ..model import Device, DeviceKind, Watchdog
from ..monitor import queue_maps_of
from ..parse import backups, parse_group
from ..platforms import PLATFORMS
from ..statelock import owner
from . import counters
from .config import NVUE_COMMANDS, NVUE_JSON, ConfigState, nvue_tree
from .counters import Traffic, stopped_by, storm_key
from .snmp import sonic_if_indexes
from .ssh import HOST, SshServers, generate_host_key, known_hosts_line, normalize

log = logging.getLogger(__name__)

PASSWORD_ENV = "LOSSLESSD_SIM_PASSWORD"
SNMP_AUTH_ENV = "LOSSLESSD_SIM_SNMP_AUTH_KEY"
SNMP_PRIV_ENV = "LOSSLESSD_SIM_SNMP_PRIV_KEY"
SNMP_V3_USER = "losslessd"
# Served by `show version` when a running-config does not name its model and release in its header.
_EOS_DEFAULT_MODEL, _EOS_DEFAULT_VERSION = "vEOS-lab", "4.31.2F"
# `! device: spine1 (DCS-7060DX5-64S, EOS-4.31.2F)`: the header EOS writes atop `show running-config`.
_EOS_DEVICE_LINE = re.compile(r"^! device: \S+ \((?P<model>[^,]+), EOS-(?P<version>[^)]+)\)", re.MULTILINE)
# `ethtool -i IF` as ethtool.c dump_drvinfo prints it (the ten lines; a ConnectX-7 with the in-tree mlx5_core, whose
# version is the kernel's release): what a host's capture did not record is served so, the driver the capture named
# (Port.nic_driver) kept.
_DRVINFO = ("driver: {driver}\nversion: 6.8.0-49-generic\nfirmware-version: {firmware}\nexpansion-rom-version: \n"
            "bus-info: 0000:{bus:02x}:00.{function}\nsupports-statistics: yes\nsupports-test: yes\n"
            "supports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: yes\n")
_MLX5_FIRMWARE = "28.39.1002 (MT_0000000838)"
# EOS `show lldp neighbors` with no neighbour (served when a device's files recorded none).
_EOS_EMPTY_LLDP = """\
Last table change time   : never
Number of table inserts  : 0
Number of table deletes  : 0
Number of table drops    : 0
Number of table age-outs : 0

Port          Neighbor Device ID       Neighbor Port ID    TTL
---------- ------------------------ ---------------------- ---
"""
SONIC_RUNNING_CONFIG = "show runningconfiguration all"
# The simulator's control command over SSH: a workload's counter credits (losslessd.sim.bench).
WORKLOAD_COMMAND = "losslessd-sim-workload"
# The RDMA device in a host's commands: configfs rdma_cm path or `cma_roce_tos -d DEV` (docs/capture-format.md).
_RDMA_DEVICE = re.compile(r"(?:/sys/kernel/config/rdma_cm/|cma_roce_tos\s+-d\s+)([^/\s]+)")


@dataclass
class SimDevice:
    """One simulated device: where it listens, how the inventory logs in, and what it answers."""

    name: str
    platform: str  # our platform id (losslessd.platforms)
    kind: DeviceKind
    username: str
    password_env: str
    netmiko_device_type: str
    files: list[str]
    ports: list[str]  # port names of its config, as its SNMP agent's ifName serves them
    rdma_devices: list[str]  # a host's RDMA devices (mlx5_0), as its recorded commands name them
    outputs: dict[str, str] = field(repr=False)  # normalised command line -> recorded output
    host: str = HOST
    ssh_port: int | None = None
    snmp_port: int | None = None
    snmp_community_env: str | None = None
    snmp_context: str | None = None  # the SNMPv3 context name (snmpsim picks the data file by it)
    gnmi_port: int | None = None
    down: bool = False
    password: str = field(default="", repr=False)  # what the SSH server accepts now
    garbled: dict[str, str] = field(default_factory=dict, repr=False)
    # command -> (text after its own answer, the next time only)
    trailed: dict[str, tuple[str, bool]] = field(default_factory=dict, repr=False)
    flooded: set[str] = field(default_factory=set, repr=False)  # commands answered by output that never ends
    dropped: list[str] = field(default_factory=list, repr=False)  # command parts (Simulator.drop_after)
    held: dict[str, tuple[str, float]] = field(default_factory=dict, repr=False)  # command -> (stop text, pause) (hold)
    renames: dict[str, str] = field(default_factory=dict, repr=False)  # command -> hostname after it (rename_after)
    renamed: str = ""  # the hostname its prompts show now ("": name)
    if_indexes: dict[str, int] = field(default_factory=dict)  # port -> ifIndex, as its SNMP agent numbers them
    speeds: dict[str, int] = field(default_factory=dict)  # port -> Mb/s its config sets, served as ifHighSpeed
    lossless: dict[str, list[int]] = field(default_factory=dict)  # port -> priorities with PFC on
    # port -> PFC priority -> the egress queues its config puts the priority's traffic on (Port.priority_queues); a
    # port or priority missing: queue n carries priority n
    queues: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    # port -> PFC priority -> the egress queues a pause for it stops (Port.paused_queues); missing: queue n for n
    paused: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    watchdog: dict[str, tuple[float, float]] = field(default_factory=dict)  # port -> on-box PFC watchdog
    #   (detection s, restoration s), for ports whose config turns it on
    traffic: Traffic = field(default_factory=Traffic, repr=False)  # counter state, shared with its SNMP agent
    live_counters: bool = True  # answer the counter commands (losslessd.sim.counters.COMMANDS)
    slow_login: bool = False  # a slow device (traffic.slow_s) is slow to accept a login too (set_slow)
    kex_algs: tuple[str, ...] = ()  # the only SSH key exchanges its server offers (legacy_kex); (): asyncssh's own
    # the keyboard-interactive prompts its server asks in turn instead of offering password login (ask_at_login); ()
    # a password login
    login_prompts: tuple[str, ...] = ()
    login_loop: bool = False  # ... asked again and again, whatever the answers (ask_at_login)
    login_answers: list[str] = field(default_factory=list, repr=False)  # what clients answered them, in order
    auth_banner: str = ""  # the SSH authentication banner (RFC 4252 5.4) its server sends (send_auth_banner)
    # lines its port sends before the SSH version string, seconds between their bytes, endless (before_version)
    before_version: tuple[bytes, float, bool] = (b"", 0.0, False)
    config: ConfigState | None = field(default=None, repr=False)  # pushed config (losslessd.sim.config)
    publish: Callable[[], None] | None = field(default=None, repr=False)  # hand a counter change to the SNMP agent

    def __post_init__(self):
        if self.config is None:
            self.config = ConfigState(self.outputs)

    def live_output(self, command: str) -> str | None:
        """The output of a counter command, made now from the counter state (None: not one)."""
        return counters.render(self, command) if self.live_counters else None

    def control(self, command: str) -> str | None:
        """``WORKLOAD_COMMAND credit PORT PRIORITY WHAT=AMOUNT...``: the simulator's benchmark (losslessd.sim.bench)
        adds what its workload made the counters do; ``WORKLOAD_COMMAND storm PORT PRIORITY on|off`` plants a PFC
        storm from a benchmark run. No real device has this command."""
        words = command.split()
        if words[:1] != [WORKLOAD_COMMAND]:
            return None
        try:
            if words[1:2] not in (["credit"], ["storm"]) or len(words) < 5:
                raise ValueError(f"usage: {WORKLOAD_COMMAND} credit PORT PRIORITY WHAT=AMOUNT... | "
                                 f"{WORKLOAD_COMMAND} storm PORT PRIORITY on|off")
            key = storm_key(self.if_indexes, words[2], int(words[3]))
            if words[1] == "storm":
                if words[4:] not in (["on"], ["off"]):
                    raise ValueError(f"a storm is `on` or `off`, not {' '.join(words[4:])!r}")
                self.traffic.storm(key, words[4] == "on")
            for item in words[4:] if words[1] == "credit" else ():
                what, _, amount = item.partition("=")
                self.traffic.credit(key, what, float(amount))
        except ValueError as exc:
            return f"error: {exc}"
        if self.publish is not None:
            self.publish()
        return "credited"

    @property
    def delay_s(self) -> float:
        return self.traffic.slow_s


GNMI_CA_FILE = "gnmi-ca.pem"  # the gNMI servers' CA certificate, beside the inventory that names it
INVENTORY_HEADER = "# Written by the losslessd simulator"  # (how a folder an earlier simulator wrote is known)


def _own_folder(out: Path) -> None:
    """Refuse an --out another user owns or may write (a 0777 /tmp/sim another user made): its owner, or any user
    who may write it, could read the simulator's host key, rename its files or put its own control socket in the
    simulator's place. The folder's own mode and owner are what count (stat(2), after links)."""
    try:
        info = out.stat()
    except OSError as exc:  # (removed since it was made)
        raise InputError(f"cannot check the folder for the simulator's files: {exc.strerror}", file=str(out)) from None
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != os.geteuid():
        raise InputError(f"--out is owned by {owner(info.st_uid)}, mode {mode:04o}, not by {owner(os.geteuid())} who "
                         "runs the simulator: its owner could read the simulator's secrets and replace its control "
                         "socket; give a folder of your own (a new one is made 0700)", file=str(out))
    if mode & 0o022:
        who = "group and others" if mode & 0o022 == 0o022 else "others" if mode & 0o002 else "its group"
        do = "give a folder of your own inside it (a new one is made 0700)" if mode & stat.S_ISVTX else \
            f"`chmod go-w {out}`, or give another folder (a new one is made 0700)"  # (never chmod a shared /tmp)
        raise InputError(f"--out (owned by you, mode {mode:04o}) is writable by {who}: another user could replace the "
                         f"simulator's files and its control socket; {do}", file=str(out))


def _safe_parents(out: Path) -> None:
    """Refuse an --out under a folder another user may rename it in: one writable by group or others without the
    sticky bit (a 0777 /srv/shared, not /tmp), or owned by a user other than root and this one. There a 0700 --out
    is renamed away and a folder of theirs put at its name, which the simulator's next files, a `sim storm` and a
    `pull` of its inventory then use (sticky: only an entry's owner may rename it, unlink(2)/rename(2) EPERM;
    OpenSSH's StrictModes checks a key's folders so). Both the path as given and its links resolved are checked."""
    given = Path(os.path.abspath(out))
    for folder in dict.fromkeys([*given.parents, *Path(os.path.realpath(given.parent)).parents,
                                 Path(os.path.realpath(given.parent))]):
        try:
            info = folder.stat()
        except OSError:  # (not there yet: made 0777 & ~umask by this user, its own parent checked)
            continue
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in (0, os.geteuid()):
            why = f"is owned by {owner(info.st_uid)}"
        elif mode & 0o022 and not mode & stat.S_ISVTX:
            why = f"(mode {mode:04o}) is writable by {'others' if mode & 0o002 else 'its group'} without the sticky bit"
        else:
            continue
        raise InputError(f"--out is inside {folder}, which {why}: another user could rename --out away and put a "
                         "folder of their own at its name, which the simulator and `sim storm` would then use; give an "
                         "--out under folders only you or root can write (or a sticky one, like /tmp)", file=str(out))


class Simulator:
    """Starts the devices of ``fabric_dir`` (all, or ``devices``) and writes the inventory for them."""

    def __init__(self, fabric_dir: str | Path, workdir: str | Path, *, ssh: bool = True, snmp: bool = True,
                 devices: list[str] | None = None, snmp_v3: bool = False, snmp_shared: bool = False,
                 wrap32_after_s: float | None = None, live_counters: bool = True, gnmi: bool = False):
        """``live_counters``: the SSH CLIs answer the counter commands (SONiC `show pfcwd stats`,
        `show queue wredcounters`, a host's `ethtool -S IF` and RDMA hw_counters) from the counter
        state, so `losslessd daemon` gets every counter it polls; off, those stay unknown commands
        unless a capture recorded them. ``snmp_shared``: one snmpsim process serves every switch
        (many-devices mode; set_slow is refused then).
        ``wrap32_after_s``: the Counter32 columns start just below 2^32 and wrap that many seconds
        after start() returns. ``gnmi``: switches of a platform with gNMI paths (losslessd.monitor.gnmi)
        also serve gNMI over TLS (losslessd.sim.gnmi), with a CA made for the run in ``gnmi-ca.pem``."""
        self.fabric_dir = Path(fabric_dir)
        self.workdir = Path(workdir)
        self.ssh, self.snmp, self.snmp_v3 = ssh, snmp, snmp_v3
        self.snmp_shared, self.wrap32_after_s = snmp_shared, wrap32_after_s
        self.gnmi = gnmi
        self.gnmi_ca_path: Path | None = None
        self.gnmi_ca_file = self.workdir / GNMI_CA_FILE
        self.inventory_path = self.workdir / "inventory.yaml"
        self.known_hosts_path = self.workdir / "known_hosts"
        self.host_key_path = self.workdir / "ssh_host_ed25519_key"
        self.env: dict[str, str] = {}
        self.devices: dict[str, SimDevice] = load_devices(self.fabric_dir, devices)
        for device in self.devices.values():
            device.live_counters = live_counters
            device.publish = lambda name=device.name: self._publish(name)
        self._servers: SshServers | None = None
        self._agents = None  # losslessd.sim.snmp.SnmpAgents when snmp
        self._gnmi = None  # losslessd.sim.gnmi.GnmiServers when gnmi
        self._keys: dict[str, object] = {}  # device -> the host key it presents

    # -- life cycle -------------------------------------------------------------------------------
    def _check_workdir(self) -> None:
        """Never write over an input: `--out` the fabric folder (or one inside it) put the simulator's inventory,
        known_hosts and host key among the devices' files, and an `--out` holding the user's inventory.yaml or
        known_hosts replaced them without a word. A folder an earlier simulator wrote is written again."""
        out, fabric = self.workdir.resolve(), self.fabric_dir.resolve()
        if out == fabric or fabric in out.parents:
            raise InputError(f"--out is inside --fabric {self.fabric_dir}: the simulator's inventory, known_hosts and "
                             "host key would lie among the devices' files; give a folder of their own",
                             file=str(self.workdir))
        with contextlib.suppress(OSError):
            if self.inventory_path.is_file():  # (not a FIFO: opening one would wait for a writer)
                with open(self.inventory_path, "rb") as f:
                    if f.read(len(INVENTORY_HEADER)) == INVENTORY_HEADER.encode():
                        return
        if there := [p.name for p in (self.inventory_path, *self._written()) if os.path.lexists(p)]:
            raise InputError(f"--out holds {', '.join(there)}, which the simulator did not write and would replace; "
                             "give a new or empty folder (or one an earlier `losslessd sim` wrote)",
                             file=str(self.workdir))

    def _written(self) -> list[Path]:
        """The files this run writes into --out besides the inventory: the host key, known_hosts and, where gNMI is
        served, its CA (gnmi-ca.pem); the overwrite check reads them all. (The SNMP agents keep their own folder,
        snmp, which a failed start may leave and the next one takes.)"""
        return [self.host_key_path, self.known_hosts_path, *([self.gnmi_ca_file] if self.gnmi else [])]

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> Simulator:
        if self.workdir.exists() and not self.workdir.is_dir():
            raise InputError("exists and is not a folder: the simulator writes its inventory, known_hosts, host key "
                             "and SNMP data into a folder", file=str(self.workdir))
        self._check_workdir()
        _safe_parents(self.workdir)
        output_folder(self.workdir, "simulator's files", "--out", mode=0o700)
        _own_folder(self.workdir)
        password = secrets.token_urlsafe(18)
        self.env[PASSWORD_ENV] = password
        try:
            if self.ssh:
                self._start_ssh(password)
            if self.snmp:
                self._start_snmp()
            if self.gnmi:
                self._start_gnmi(password)
        except BaseException:
            self.stop()
            # (a start that failed, or was interrupted, after the host key left it and known_hosts without the
            # inventory that marks the folder as the simulator's: the next `sim --out` there refused them as the user's)
            for written in self._written():  # (never a gnmi-ca.pem of the user's, which a run without gNMI leaves)
                written.unlink(missing_ok=True)
            raise
        self._write_inventory()
        log.info("simulator started %d devices; inventory %s", len(self.devices), self.inventory_path)
        return self

    def stop(self) -> None:
        if self._servers is not None:
            self._servers.shutdown()
            self._servers = None
        if self._agents is not None:
            self._agents.stop()
            self._agents = None
        if self._gnmi is not None:
            self._gnmi.shutdown()
            self._gnmi = None

    def _start_gnmi(self, password: str) -> None:
        from ..monitor.gnmi import PATHS
        from .gnmi import GnmiServers, make_tls  # grpcio comes with the `gnmi` extra

        tls = make_tls(self.gnmi_ca_file)
        self.gnmi_ca_path = tls.ca_file
        self._gnmi = GnmiServers(tls)
        for device in self.devices.values():
            if device.kind == DeviceKind.switch and device.platform in PATHS:
                device.password = password
                device.gnmi_port = self._gnmi.listen(device)

    def _start_ssh(self, password: str) -> None:
        host_key = generate_host_key()
        fd = os.open(self.host_key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # never readable by others
        with os.fdopen(fd, "wb") as f:
            f.write(host_key.export_private_key())
        self._servers = SshServers()
        for device in self.devices.values():
            device.password = password
            self._keys[device.name] = host_key
            device.ssh_port = self._servers.listen(device, host_key)
        self.known_hosts_path.write_text("".join(known_hosts_line(d.ssh_port, host_key) for d in self.devices.values()),
                                         encoding="utf-8")

    def _start_snmp(self) -> None:
        from .snmp import SnmpAgents  # the SNMP side pulls in pysnmp and snmpsim; only load it when asked

        v3_user = None
        if self.snmp_v3:
            self.env[SNMP_AUTH_ENV] = secrets.token_hex(12)
            self.env[SNMP_PRIV_ENV] = secrets.token_hex(12)
            v3_user = (SNMP_V3_USER, self.env[SNMP_AUTH_ENV], self.env[SNMP_PRIV_ENV])
        # It keeps its files in workdir/snmp.
        self._agents = SnmpAgents(self.workdir, v3_user=v3_user, shared=self.snmp_shared,
                                  wrap32_after_s=self.wrap32_after_s)
        switches = [d for d in self.devices.values() if d.kind == DeviceKind.switch]
        for device in switches:
            name = self._agents.add(device.name, ports=device.ports, priorities=range(8), traffic=device.traffic,
                                    platform=device.platform, carried={p: stopped_by(device, p) for p in device.ports},
                                    speeds=device.speeds)
            if self.snmp_v3:
                device.snmp_context = name
            else:
                device.snmp_community_env = f"LOSSLESSD_SIM_COMMUNITY_{_env_part(device.name)}"
                self.env[device.snmp_community_env] = name
        ports = self._agents.start()
        for device in switches:
            device.snmp_port = ports[device.name]

    # -- what clients read ------------------------------------------------------------------------
    def _write_inventory(self) -> None:
        """Nornir SimpleInventory shape in one file: hosts, groups, defaults. Secrets by variable name only."""
        hosts = {}
        for d in self.devices.values():
            host: dict = {"hostname": d.host}
            if d.ssh_port is not None:
                host["port"] = d.ssh_port
            host.update(platform=d.platform, groups=[d.kind.value],
                        data={"credentials": {"username": d.username, "password_env": d.password_env}})
            if d.kind == DeviceKind.host:  # what pull's host commands are repeated for
                host["data"].update(interfaces=d.ports, rdma_devices=d.rdma_devices)
            if d.snmp_port is not None:
                host["data"]["snmp"] = self._snmp_entry(d)
            if d.gnmi_port is not None:
                host["data"]["gnmi"] = {"port": d.gnmi_port, "ca_file": str(self.gnmi_ca_path)}
            hosts[d.name] = host
        groups = {kind: {} for kind in sorted({d.kind.value for d in self.devices.values()})}
        text = (f"{INVENTORY_HEADER} for the devices it started; secrets are named by the\n"
                "# environment variables that hold them (the simulator prints their throwaway values).\n")
        text += yaml.safe_dump({"hosts": hosts, "groups": groups, "defaults": {}}, sort_keys=False)
        self.inventory_path.write_text(text, encoding="utf-8")

    def _snmp_entry(self, d: SimDevice) -> dict:
        if self.snmp_v3:
            return {"port": d.snmp_port, "version": "3", "user": SNMP_V3_USER, "auth_key_env": SNMP_AUTH_ENV,
                    "priv_key_env": SNMP_PRIV_ENV, "auth_protocol": "sha", "priv_protocol": "aes",
                    "context": d.snmp_context}
        return {"port": d.snmp_port, "version": "2c", "community_env": d.snmp_community_env}

    # -- faults -----------------------------------------------------------------------------------
    def _device(self, name: str) -> SimDevice:
        if name not in self.devices:
            raise KeyError(f"no simulated device {name!r}; known: {', '.join(self.devices)}")
        return self.devices[name]

    def set_down(self, name: str, down: bool = True) -> None:
        """Stop (or resume) answering SSH and SNMP for ``name``: connections are refused, polls time out."""
        device = self._device(name)
        if device.down == down:
            return
        device.down = down
        if self._servers is not None:
            if down:
                self._servers.close(name)
            else:
                self._servers.listen(device, self._keys[name], device.ssh_port)
        if self._agents is not None:
            self._agents.set_down(name, down)
        if self._gnmi is not None and device.gnmi_port is not None:
            if down:
                self._gnmi.close(name)
            else:
                self._gnmi.listen(device, device.gnmi_port)

    def set_password(self, name: str, password: str) -> None:
        """The device now accepts only ``password``: the inventory's secret fails to log in."""
        self._device(name).password = password

    def replace_host_key(self, name: str) -> None:
        """The device presents a new host key that known_hosts does not list (a replaced or spoofed box)."""
        self._keys[name] = generate_host_key()
        self._listen_again(name)

    def legacy_kex(self, name: str, algs: tuple[str, ...] = ("diffie-hellman-group1-sha1",)) -> None:
        """The device's SSH server offers only the key exchanges ``algs`` (an old switch's SHA-1 Diffie-Hellman); ()
        offers asyncssh's own again."""
        self._device(name).kex_algs = tuple(algs)
        self._listen_again(name)

    def ask_at_login(self, name: str, prompts: tuple[str, ...] = ("Verification code: ",), loop: bool = False) -> None:
        """The device's SSH server offers keyboard-interactive login alone (RFC 4256) and asks ``prompts`` one a round
        in turn (`Password: `, then a one-time code as a second factor does: refused, the simulator knows no code),
        or, with ``loop``, asks them again and again whatever the answers (a login that never ends); () offers
        password login again. What clients answer is kept in ``login_answers``."""
        device = self._device(name)
        device.login_prompts, device.login_loop = tuple(prompts), loop

    def send_auth_banner(self, name: str, text: str) -> None:
        """The device's SSH server sends ``text`` as its authentication banner (RFC 4252 5.4) before the login."""
        self._device(name).auth_banner = text

    def before_version(self, name: str, text: bytes, every_s: float = 0.0, endless: bool = False) -> None:
        """The device's port sends ``text`` before its SSH server's version string (RFC 4253 4.2 lets other lines
        come first: a greeting), at once or a byte every ``every_s`` seconds, and with ``endless`` again and again,
        never reaching the version string; b"" sends none."""
        self._device(name).before_version = (bytes(text), float(every_s), bool(endless))
        self._listen_again(name)

    def _listen_again(self, name: str) -> None:
        device = self._device(name)
        if self._servers is not None and not device.down:
            self._servers.close(name)
            self._servers.listen(device, self._keys[name], device.ssh_port)

    def garble(self, name: str, command: str, output: str | None = None, on: bool = True) -> None:
        """Serve ``output`` (default: the first third of the recorded output, cut mid-line, as a dropped
        session leaves it) for ``command``; ``on=False`` restores the recorded answer."""
        device = self._device(name)
        cmd = normalize(command)
        if not on:
            device.garbled.pop(cmd, None)
            return
        if output is None:
            recorded = device.outputs.get(cmd, "")
            output = recorded[: max(1, len(recorded) // 3)].rstrip("\n")
        device.garbled[cmd] = output

    def trail(self, name: str, command: str, text: str | None = None, once: bool = False) -> None:
        """Run ``command`` as the device does and print ``text`` after its answer (an error line beside the success
        line of a config command that did its work, or a session that broke off after it), every time or ``once``;
        None: its answer alone."""
        cmd = normalize(command)
        trailed = self._device(name).trailed
        if text is None:
            trailed.pop(cmd, None)
        else:
            trailed[cmd] = (text, once)

    def drop_after(self, name: str, part: str) -> None:
        """The next command of ``name`` that holds ``part`` (`commit timer`: a session name is napalm's) is done as the
        device does it, then the SSH session drops before its answer (a link or management plane lost mid-push)."""
        self._device(name).dropped.append(normalize(part))

    def hold(self, name: str, command: str, pager: str = "", on: bool = True, pause_s: float = 0.0) -> None:
        """Answer ``command`` with the first half of its output, then stop: at ``pager`` (`--More--`: a device that
        pages although the client sent `terminal length 0`) until a key is pressed, or (``pager`` empty) for ever, as a
        device whose CLI hung mid-answer; ``on=False`` restores the recorded answer. ``pause_s``: a healthy slow
        device instead (a big `show tech`), whose answer goes on by itself after that pause, ``pager`` its own text."""
        cmd = normalize(command)
        held = self._device(name).held
        if on:
            held[cmd] = (pager, pause_s)
        else:
            held.pop(cmd, None)

    def rename_after(self, name: str, command: str, hostname: str) -> None:
        """The next time ``command`` runs, the device's hostname becomes ``hostname`` (changed from another login, or
        by a config push) and every prompt from its answer on shows it, in this session and the next."""
        self._device(name).renames[normalize(command)] = hostname

    def flood(self, name: str, command: str, on: bool = True) -> None:
        """Answer ``command`` with lines that never end (a `show` stuck in a loop, a log followed for ever, or a
        device that means harm) until the client closes the session; ``on=False`` restores the recorded answer."""
        cmd = normalize(command)
        flooded = self._device(name).flooded
        if on:
            flooded.add(cmd)
        else:
            flooded.discard(cmd)

    def storm(self, name: str, port: str, priority: int, on: bool = True, ecn_healthy: bool = False,
              drains: bool = False) -> None:
        """Switch a PFC storm on ``port``/``priority`` on or off: pause frames count up fast (SNMP and
        the counter commands), the queue stops sending, the on-box watchdog counts it after its
        detection time. ECN marks stay flat unless ``ecn_healthy`` (then they climb with the pauses).
        ``drains``: congestion rather than a storm, see ``congest``."""
        device = self._device(name)
        try:
            key = storm_key(device.if_indexes, port, priority)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        device.traffic.storm(key, on, ecn_healthy, drains=drains)
        self._publish(name)

    def congest(self, name: str, port: str, priority: int, on: bool = True, ecn_healthy: bool = False) -> None:
        """Switch congestion on ``port``/``priority`` on or off: the pauses of a storm, but the queue keeps
        sending (no storm, no watchdog action). ECN marks stay flat ("PFC doing ECN's job") unless
        ``ecn_healthy``."""
        self.storm(name, port, priority, on, ecn_healthy, drains=True)

    def stall(self, name: str, port: str, on: bool = True) -> None:
        """A host NIC on ``port`` stops draining what it receives (a hung driver, a stuck PCIe link), or drains again:
        its PFC storm prevention counts a warning once the stall has lasted the warning watermark and an error once it
        reaches the timeout (``ethtool -S``: tx_pause_storm_warning_events / _error_events)."""
        device = self._device(name)
        if port not in device.if_indexes:
            raise ValueError(f"{name}: no port {port!r} (ports: {', '.join(device.if_indexes)})")
        device.traffic.stall(port, on)
        self._publish(name)

    def refuse_commits(self, name: str, reason: str | None = "configuration validation failed") -> None:
        """Refuse every config commit (EOS session commit, SONiC apply-patch) with ``reason``; None accepts again."""
        self._device(name).config.refuse = reason

    def meddle(self, name: str, lines: list[str]) -> None:
        """Every EOS config session of ``name`` gains ``lines`` beside its own (another operator's change, or lines
        the switch rewrote): its diff then holds lines the client did not send; [] stops it."""
        config = self._device(name).config
        assert config is not None  # (SimDevice.__post_init__ makes it)
        config.foreign = list(lines)

    def running_config(self, name: str) -> str:
        """The config the device serves now (pushed changes included)."""
        device = self._device(name)
        return device.outputs[PLATFORMS[device.platform].config_read.line]

    def reset_counters(self, name: str) -> None:
        """The device restarts: sysUpTime and every counter (SNMP and SSH) start again from zero."""
        self._device(name).traffic.reset()
        self._publish(name)

    def syncd_restart(self, name: str) -> None:
        """The device's counters (SNMP and SSH) restart from zero while its agent and sysUpTime go on: a SONiC syncd
        restart or `config reload` (Traffic.syncd_restart)."""
        self._device(name).traffic.syncd_restart()
        self._publish(name)

    def set_speed(self, name: str, port: str, mbps: int) -> None:
        """The port's link came up again at ``mbps`` Mb/s (its SNMP agent's ifHighSpeed; counters go on)."""
        device = self._device(name)
        if self._agents is None:
            raise ValueError("the simulator serves no SNMP (started without it)")
        self._agents.set_speed(name, port, mbps)
        device.speeds[port] = mbps

    def wrap32(self, name: str, after_s: float) -> None:
        """The SNMP Counter32 columns of ``name`` (ifInDiscards, ifOutDiscards) read just below 2^32 and
        cross it ``after_s`` seconds from now. Moving the wrap earlier makes them jump forward, never back,
        so a poller that read them below 2^32 sees no reset; tests set it after their first poll, so
        the wrap falls between two polls however slow the machine is."""
        device = self._device(name)
        device.traffic.set(wrap_at=time.time() + after_s)
        self._publish(name)

    def set_slow(self, name: str, delay_s: float, login: bool = False) -> None:
        """Wait ``delay_s`` before answering SNMP sysUpTime (the first request of every poll) and
        before each SSH command's output (``login``: and before accepting an SSH login, so a client waits
        out its own login timeout); 0 answers at once again."""
        device = self._device(name)
        device.slow_login = login
        if self.snmp_shared and device.name in self._agent_names():
            raise ValueError("set_slow needs an SNMP process per device (snmp_shared=False)")
        device.traffic.set(slow_s=float(delay_s))
        self._publish(name)

    def ssh_connections(self, name: str) -> int:
        """SSH connections to ``name`` open now (a client that cut its session has none left)."""
        return self._servers.connections(name) if self._servers is not None else 0

    def set_garbage(self, name: str, on: bool = True) -> None:
        """Serve answers that are not counters: SNMP counters become strings (sysUpTime and ifName
        stay right), the SSH counter commands print their tables with every number replaced."""
        self._device(name).traffic.set(garbage=on)
        self._publish(name)

    def set_gnmi_fault(self, name: str, fault: str | None) -> None:
        """gNMI streams of ``name`` stall (quiet after a round), flood (rounds back to back), echo (every call
        refused with the login it was sent quoted) or, with None, behave again (losslessd.sim.gnmi.GnmiServers
        .set_fault)."""
        if self._gnmi is None:
            raise ValueError("the simulator serves no gNMI (Simulator(gnmi=True))")
        self._device(name)
        self._gnmi.set_fault(name, fault)

    def gnmi_subscriptions(self, name: str) -> int:
        """gNMI subscriptions of ``name`` accepted so far (a client that re-subscribes adds one)."""
        if self._gnmi is None:
            raise ValueError("the simulator serves no gNMI (Simulator(gnmi=True))")
        self._device(name)
        with self._gnmi.lock:
            return self._gnmi.subscriptions[name]

    def restart_gnmi(self, name: str) -> None:
        """The device's gNMI server stops (its streams end) and listens again on the same port."""
        device = self._device(name)
        if self._gnmi is None or device.gnmi_port is None:
            raise ValueError(f"{name} serves no gNMI")
        self._gnmi.restart(device)

    def _agent_names(self) -> set[str]:
        return set() if self._agents is None else set(self._agents._agents)

    def _publish(self, name: str) -> None:
        if name in self._agent_names():
            self._agents.publish(name)


def _env_part(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


# -- devices from files ---------------------------------------------------------------------------
def load_devices(fabric_dir: Path, only: list[str] | None = None) -> dict[str, SimDevice]:
    """The devices of a fabric folder that the simulator can serve, by their model name.

    A file of a platform without a CLI shell here (OpenSM) or that no parser reads is left out with a
    warning; ``only`` naming a device that is not there raises InputError."""
    devices: dict[str, SimDevice] = {}
    for name, files in folder_groups(fabric_dir):
        try:
            model = parse_group(name, files)
        except InputError as exc:
            log.warning("simulator leaves out %s: %s", name, exc)
            continue
        platform = PLATFORMS[model.platform]
        if platform.shell is None or platform.login is None or platform.netmiko is None:
            continue  # a platform the simulator does not serve (its record says why)
        copies = {path for path, _ in backups(files)}  # (a device's backups are not its files: parse_group reads none)
        files = [f for f in files if str(f) not in copies]
        outputs = _outputs(model, files)
        if outputs is None:
            log.warning("simulator leaves out %s: %s has no recorded command outputs", model.name, files[0])
            continue
        maps = queue_maps_of(model)
        devices[model.name] = SimDevice(
            name=model.name, platform=model.platform, kind=model.kind, username=platform.login,
            password_env=PASSWORD_ENV, netmiko_device_type=platform.netmiko,
            files=[str(f) for f in files], ports=list(model.ports), outputs=outputs,
            speeds={n: round(p.speed_gbps * 1000) for n, p in model.ports.items() if p.speed_gbps},
            rdma_devices=sorted({m.group(1) for cmd in outputs for m in _RDMA_DEVICE.finditer(cmd)}),
            if_indexes=sonic_if_indexes(list(model.ports)),
            lossless={n: sorted(p.pfc_enabled or []) for n, p in model.ports.items()},
            queues=maps.carries, paused=maps.pauses,
            watchdog={n: _watchdog_times(p.watchdog) for n, p in model.ports.items() if _watches(p.watchdog)})
    if only is None:
        return devices
    if missing := [n for n in only if n not in devices]:
        raise InputError(f"no device {', '.join(missing)} the simulator can serve in {fabric_dir} "
                         f"(it has: {', '.join(devices) or 'none'})")
    return {n: d for n, d in devices.items() if n in only}


def _watches(wd: Watchdog | None) -> bool:
    """Whether the simulator runs a port's PFC watchdog: on, or not in the input (SONiC files written before boot hold
    no PFC_WD; `pfcwd start_default` starts it there), not where the config's own lines leave it unknown
    (Watchdog.unknown: EOS with no timeout), whose timers no line gives."""
    return wd is not None and wd.enabled is not False and not wd.unknown


def _watchdog_times(wd) -> tuple[float, float]:
    """(detection, restoration) in seconds of a port's PFC watchdog, SONiC's defaults where unset."""
    detect = wd.detection_time_ms / 1000 if wd.detection_time_ms is not None else counters.DEFAULT_WD_DETECTION_S
    restore = wd.restoration_time_ms / 1000 if wd.restoration_time_ms is not None else counters.DEFAULT_WD_RESTORATION_S
    return detect, restore


def _outputs(model: Device, files: list[Path]) -> dict[str, str] | None:
    """Normalised command line -> output, from a capture's sections or from the config files themselves."""
    texts = [f.read_text(encoding="utf-8") for f in files]
    if capture.is_capture(texts[0]):
        outputs = {normalize(s.command): s.output for s in capture.read(texts[0], str(files[0])).sections}
    elif model.platform == "sonic":
        outputs = {SONIC_RUNNING_CONFIG: _sonic_running_config(files, texts)}
    elif model.platform == "arista_eos":
        outputs = {"show running-config": texts[0]}
    elif model.platform == "nvidia_cumulus" and re.search(r"^nv set ", texts[0], re.MULTILINE):
        # The applied config as `nv set` lines, and the JSON tree `pull` reads (losslessd.sim.config).
        outputs = {NVUE_COMMANDS: texts[0], NVUE_JSON: nvue_tree(texts[0])}
    else:
        return None  # a bare `mlnx_qos` output does not say which command on which interface made it
    if model.platform == "arista_eos":
        _eos_outputs(model, outputs)
    elif model.platform == "linux_mlx5":
        _host_outputs(model, outputs)
    return outputs


def _host_outputs(model: Device, outputs: dict[str, str]) -> None:
    """`ethtool -i IF` of each NIC port (two ports per PCI device, as a dual-port ConnectX): `pull` reads the driver
    there (Port.nic_driver), which says where the NIC's DCQCN is set. Without it the simulated host answered `command
    not found` and the driver path went unexercised."""
    for n, (name, port) in enumerate(sorted(model.ports.items())):
        driver = port.nic_driver or "mlx5_core"
        outputs.setdefault(f"ethtool -i {name}", _DRVINFO.format(
            driver=driver, firmware=_MLX5_FIRMWARE if driver == "mlx5_core" else "", bus=0x41 + n // 2,
            function=n % 2))


def _sonic_running_config(files: list[Path], texts: list[str]) -> str:
    """`show runningconfiguration all` prints the whole CONFIG_DB; a folder's files are its parts."""
    if len(files) == 1:
        return texts[0]
    merged: dict = {}
    for text in texts:  # config_db.json, qos.json, buffers.json: the loader's order
        for table, rows in json.loads(text).items():
            merged.setdefault(table, {}).update(rows)
    return json.dumps(merged, indent=4, sort_keys=True) + "\n"


def _eos_outputs(model: Device, outputs: dict[str, str]) -> None:
    """What napalm's eos driver and an operator read besides the config: version, startup-config, LLDP."""
    running = outputs.get("show running-config", "")
    outputs.setdefault("show startup-config", running)
    outputs.setdefault("show lldp neighbors", _EOS_EMPTY_LLDP)
    m = _EOS_DEVICE_LINE.search(running)
    model_name, version = (m.group("model"), m.group("version")) if m else (_EOS_DEFAULT_MODEL, _EOS_DEFAULT_VERSION)
    outputs.setdefault("show version", f"Arista {model_name}\nHardware version: 11.00\nSerial number: SIM{model.name}\n\n"
                                       f"Software image version: {version}\nArchitecture: x86_64\n")
    # napalm's eos driver (transport ssh) reads the release from `show version | json` when it opens.
    outputs.setdefault("show version | json", json.dumps(
        {"modelName": model_name, "version": version, "serialNumber": f"SIM{model.name}",
         "architecture": "x86_64", "hardwareRevision": "11.00", "hostname": model.name}, indent=2))
