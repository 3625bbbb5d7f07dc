"""Platform registry, the one home of a platform's facts: what kind of device it is, which parser reads it
and in which order formats are told apart, how `losslessd pull` collects it (netmiko device type, napalm
driver, commands), and which of losslessd's capabilities it has (CAPABILITIES), each named here and
implemented where the capability lives; for a capability it lacks, the record says why (``unsupported``).
tests/test_platforms_meta.py proves every platform has each capability or gives the reason.

A platform without a parser (``parser=None``) is collection-only: `pull` saves its captures so a
later losslessd can lint them; `lint` reports them as SYS001 "no parser for platform X yet".

This module stays free of heavy imports (parsers, Jinja, netmiko): the record names implementations by
string, and the modules that implement them look them up from it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import field
from typing import Literal

from .lazyre import lazy
from .model import DeviceKind
from .records import record

# Command templates: "{iface}" is repeated for each of a host's RoCE interfaces (inventory
# data.interfaces), "{rdma}" for each of its RDMA devices (data.rdma_devices).

_RUNNING_CONFIG = "show running-config "  # a running config printed in parts (Platform.config_reads)


@record(frozen=True)
class Command:
    """One command `pull` runs. ``json``: the output must be JSON (else it is garbled: SYS014).
    ``optional``: a refusal (tool not installed, e.g. lldpd) is kept in the capture but is no finding.
    ``instead``: the commands run when the device refuses this one (another tool showing the same settings); the
    refusal is then kept in the capture but is no finding, theirs are."""

    line: str
    json: bool = False
    optional: bool = False
    instead: tuple[Command, ...] = ()


@record(frozen=True)
class RenderLimits:
    """Values a platform's CLI or schema accepts where a rendered snippet writes them, (min, max) inclusive;
    None: not bounded by losslessd. render refuses a port MTU outside ``mtu_bytes`` and fits the PFC watchdog's
    polling interval into ``wd_poll_ms``, refusing timers or poll counts outside the rest."""

    mtu_bytes: tuple[int, int] | None = None  # the IP MTU (Junos writes it + 14 as its media MTU)
    # The port speeds (Gb/s) its `speed` takes, where the snippet writes one; per command family (render.families)
    # where a family takes fewer, for the renders that know the family.
    speeds_gbps: frozenset[float] | None = None
    family_speeds_gbps: dict[str, frozenset[float]] = field(default_factory=dict, hash=False)
    # The cable lengths (m, whole metres as the snippet writes them) the platform applies where the snippet sizes
    # headroom from one.
    cable_m: tuple[int, int] | None = None
    cable_refused: str = "the platform refuses it"  # what the platform does with a cable length outside cable_m
    wd_poll_ms: tuple[int, int] | None = None
    wd_detection_ms: tuple[int, int] | None = None
    wd_restoration_ms: tuple[int, int] | None = None
    # Detection written as a count of polling intervals (NX-OS shutdown-multiplier, NVUE robustness, Junos detection),
    # within wd_detection_polls where known; restoration likewise where wd_restoration_polls is given.
    wd_counts_polls: bool = False
    wd_detection_polls: tuple[int, int] | None = None
    wd_restoration_polls: tuple[int, int] | None = None
    # The granularity (ms) of timers written as times.
    wd_detection_step_ms: int = 1
    wd_restoration_step_ms: int = 1
    # The restoration time is the polling interval itself (NVUE writes no restoration: a queue is restored at the next
    # poll without a pause), so the poll must lie in the policy's restoration range.
    wd_restoration_is_poll: bool = False
    # The watchdog actions (model.WatchdogAction) the snippet can set -> the word its template writes ("": the
    # platform's only action, which no statement names); None: the snippet sets no action.
    wd_actions: dict[str, str] | None = field(default=None, hash=False)
    # Byte counts the snippet writes: an explicit pause buffer (NX-OS `pause buffer-size`), its pause and resume
    # thresholds, and the ECN marking thresholds written in bytes. render refuses a port whose number lies outside:
    # the switch would reject the line.
    pause_buffer_bytes: tuple[int, int] | None = None
    pause_threshold_bytes: tuple[int, int] | None = None
    ecn_threshold_bytes: tuple[int, int] | None = None
    # The ECN mark probability (%) the snippet writes where the platform bounds it; render refuses a policy outside.
    mark_probability_pct: tuple[int, int] | None = None
    # The snippet writes an ECN minimum and maximum threshold, and whether the platform takes them equal is in no
    # document read: render refuses a port whose two come out equal (the policy's floor at a slow port).
    ecn_equal_unsourced: bool = False
    # The document a bound above comes from, by field name, where a plan names it (tune's dry run: the Kmax or Pmax
    # levels a bound cut from the policy's range).
    sources: dict[str, str] = field(default_factory=dict, hash=False)


@record(frozen=True)
class InPlace:
    """A safe section the platform's template writes into the profile each port is bound to now (its PFC lives in that
    profile too, so a profile of the snippet's own bound in its place would be a PFC change): every other port bound to
    it takes the change, which a fix names (losslessd.fix). Unless a part writing one of ``whole`` comes with it (and,
    with ``whole_needs_pfc``, the policy has lossless priorities): that part binds a profile of its own, written whole,
    and the section goes there."""

    section: str
    point: str  # the attachment point naming the profile (model Port.service_policies key)
    whole: tuple[str, ...]
    whole_needs_pfc: bool = False


@record(frozen=True)
class Platform:
    """Everything losslessd knows about one platform, from detection to the simulator's shell."""

    id: str
    kind: DeviceKind
    parser: str | None  # module under losslessd.parse; None: collection only, no parser yet
    description: str
    netmiko: str | None = None  # netmiko device_type; None: `pull` cannot collect it
    napalm: str | None = None  # napalm driver name, for reference (pull uses netmiko: docs/collection.md)
    commands: tuple[Command, ...] = ()
    enable: bool = False  # enter privileged mode (netmiko enable()) before the commands
    # Text that, on an output line, means the device refused or could not run a command (SYS014): words anywhere in the
    # line, or a pattern of the whole line (a shell's own wording, _SHELL_REFUSALS). Matched by ``refusal`` alone.
    refusals: tuple[str | re.Pattern[str], ...] = ()
    # detect: `lint` asks the parsers' sniff() in this rank, lowest first (cheap, specific formats first).
    sniff: int | None = None
    # What every file its sniff() knows opens with past white space (a capture aside: told by its header first);
    # a file that opens otherwise is not sniffed with the platform's package (importing it is the cost).
    sniff_opens: str | None = None
    # Strings one of which every file its sniff() knows holds (a capture aside: told by its header), or None: a file
    # holding none of them (and opening with none of ``sniff_signs_open``'s characters past white space) is not sniffed
    # with the platform's package. Each is a plain part every one of the sniff's patterns needs
    # (tests/test_detect_signs.py checks each against the sniff on every fixture, example and corpus file and the
    # fuzzers' texts).
    # (A sign opening with a line end is one at a line's start: the text's first line too.)
    sniff_signs: tuple[str, ...] | None = None
    sniff_signs_open: str = ""
    # render (templates/<id>/profile.j2): what each port needs for a section, "speed", "cable" or "sonic" (its SKU's
    # lossless PG profile), refused before the template runs when a port lacks it; ``ecn_in_scheduler``: the
    # scheduler object holds the ECN thresholds (an NX-OS queuing policy, a Junos scheduler-map: one per port), so
    # the scheduler section writes them too.
    port_facts: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    ecn_in_scheduler: bool = False
    fix: str | None = None  # fix: how its config takes a snippet, a shape of losslessd.fix.apply
    # The running config in the form a snippet applies to, where that is not the first command `pull` runs.
    config_command: str | None = None
    tune: bool = False  # tune: `tune` renders and lints candidates of its `ecn` section (needs render and fix)
    push: str | None = None  # push: `tune --apply` pushes with this transactional path of losslessd.tune.apply
    # counters: the SSH commands the daemon polls (a switch's SNMP agent serves the rest; "{iface}" as in
    # `commands`), and the gNMI path set of losslessd.monitor.gnmi it streams.
    counter_commands: tuple[str, ...] = ()
    gnmi: str | None = None
    # sim: the simulator's shell (losslessd.sim.ssh) and the login a CLI of the platform is usually reached with.
    shell: str | None = None
    login: str | None = None
    # Capability (CAPABILITIES) -> why the platform does not have it.
    unsupported: dict[str, str] = field(default_factory=dict, hash=False)
    limits: RenderLimits = RenderLimits()
    # Which egress queue the PFC watchdog watches for a PFC priority P (WDG004): "priority-index", the queue numbered
    # P whatever the port's maps say; "paused-queues", the queues a pause for P stops (the no-drop queues); None:
    # the platform's documentation does not say.
    wd_watches: Literal["priority-index", "paused-queues"] | None = None
    # Whether its CLI takes an interface name in any case (`eth1/1`, `ETHERNET1/1` for Ethernet1/1), so a name another
    # output writes in another case is the same port (topology); False where the name is a case-sensitive key
    # (SONiC's CONFIG_DB PORT keys, Linux netdev names, Junos's lower-case names).
    port_names_ignore_case: bool = False
    # Whether a link aggregate's members run the QoS settings bound on the aggregate, so a snippet binds them there,
    # once, with one set of numbers for every member (NX-OS: Nexus 9000 QoS guide, "Attaching and Detaching a QoS
    # Policy Action"; Junos: CoS guide, "Configuring Schedulers on Aggregated Interfaces", an aeN's CoS applies to all
    # its member links, and the parser reads a member's CoS from its aeN entry). Elsewhere each member keeps its own
    # settings (SONiC keys PORT_QOS_MAP by member port).
    qos_on_aggregate: bool = False
    in_place: InPlace | None = None  # (render.Profile.in_place asks it; templates/<id>/profile.j2 writes it)
    # The profile section whose lines say which queue a received pause for a priority stops (MAP004, MAP001's last
    # link): a map elsewhere (SONiC MAP_PFC_PRIORITY_TO_QUEUE; where the platform fixes it, the maps move the class).
    pause_queue_section: str = "maps"

    def refuses(self, output: str) -> bool:
        """Whether the output's first line is a refusal (`-bash: mlnx_qos: command not found`): the command did not
        run, so another tool may show the same (Command.instead); a traceback naming one further down did run."""
        return self.refusal(next((line for line in output.splitlines() if line.strip()), ""))

    def refusal(self, text: str) -> bool:
        """Whether a line of ``text`` holds one of the platform's ``refusals``: the one matcher every reader of a
        command's output asks (pull's SYS014, a capture's sections, the first line of ``refuses``)."""
        return self._refusal is not None and self._refusal.search(text) is not None

    @functools.cached_property
    def _refusal(self) -> re.Pattern[str] | None:
        # (lazy: compiled at its first search, where the command line's lint has the program kept from an earlier one,
        # losslessd.recache; re.compile here compiled the example lint's two, 3.3 M instructions of its parse)
        return lazy("|".join(re.escape(r) if isinstance(r, str) else r.pattern for r in self.refusals),
                    re.M) if self.refusals else None

    def supports(self, capability: str) -> bool:
        """Whether it has ``capability`` (CAPABILITIES): tests/test_platforms_meta.py holds every record to it."""
        return capability not in self.unsupported

    @property
    def config_read(self) -> Command:
        """The command that prints its running config as a snippet applies to it (tune, the simulator)."""
        return Command(self.config_command) if self.config_command else self.commands[0]

    @property
    def config_reads(self) -> tuple[Command, ...]:
        """The commands whose outputs, joined in order, are its running config (tune, the daemon's proposer): NX-OS
        prints its QoS part (`show running-config ipqos all`) apart from its interfaces' speeds and MTUs."""
        first = self.config_read
        if self.config_command or not first.line.startswith(_RUNNING_CONFIG):
            return (first,)
        return (first,) + tuple(c for c in self.commands[1:] if c.line.startswith(_RUNNING_CONFIG) and not c.optional)


# What each capability asks of a platform record (tests/test_platforms_meta.py checks each).
CAPABILITIES = {
    "detect": "a parser and a sniff rank: `lint` tells its files from the other platforms'",
    "render": "a template, templates/<id>/profile.j2, and the facts its ports need (port_facts)",
    "fix": "a fix shape: how its config takes a snippet (diff, and the lint of the fixed config)",
    "tune": "`tune` renders and lints candidates of its ECN thresholds",
    "push": "a transactional push with rollback for `tune --apply`",
    "counters": "counters the daemon polls: SNMP (switches), gNMI paths or SSH counter commands",
    "sim": "a simulator shell, login and netmiko type",
}
_NO_PUSH = ("losslessd has no transactional push for it yet (no checkpoint and rollback path verified against the "
            "device): `tune` renders and lints its candidates, a person pushes them")
_NOT_SIMULATED = "the simulator has no CLI shell for it yet, so no test collects from it over SSH"
_ONYX_RENDER = ("losslessd reads Onyx but writes none of it yet: a snippet needs every line's syntax cited from the "
                "Onyx manual (the DSCP map and the switch-priority to traffic-class map are not)")


def _read_only(why: str) -> dict[str, str]:
    """What a platform losslessd reads but writes nothing for lacks: every capability that writes (render, fix,
    tune, push: nothing to push without a snippet), for the one reason, and the simulator's shell."""
    return {"render": why, "fix": why, "tune": why, "push": why, "sim": _NOT_SIMULATED}

_IB_TUNE = "an InfiniBand subnet has no ECN thresholds to tune"
_HOST_TUNE = ("the host script switches DCQCN on without thresholds: the NIC has no ECN section to tune "
              "(its ECN marking happens in the switches)")
# IEEE 802.3 Ethernet rates from 1 Gb/s to 800 Gb/s (802.3z ... 802.3df): every switch `speed` losslessd writes
# takes one of these (NX-OS in Mb/s, Junos `Ng`, NVUE `NG`, SONiC PORT speed in Mb/s); 37G or 100.5G is a typo.
ETHERNET_RATES_GBPS = frozenset({1, 2.5, 5, 10, 25, 40, 50, 100, 200, 400, 800})
# 1.6 Tb/s (IEEE 802.3dj), only where the platform's document takes it: sonic-yang-models sonic-port.yang PORT
# speed `range 1..1600000` (Mb/s), as sonic-buildimage device/nexthop/x86_64-nexthop_4220-r0 (breakout 1x1600G) runs.
SONIC_RATES_GBPS = ETHERNET_RATES_GBPS | {1600}
# NVUE `nv set interface <interface-id> link speed (auto|10M|100M|1G|10G|25G|40G|50G|100G|200G|400G|800G)` (Cumulus
# Linux user guide, "NVUE Commands", the `nv list-commands` list; CumulusNetworks/docs): NVUE's word -> Gb/s. No 2.5G
# or 5G: NVUE refuses them, so render writes none of them and the parser reads none.
NVUE_SPEEDS = {"10M": 0.01, "100M": 0.1, "1G": 1, "10G": 10, "25G": 25, "40G": 40, "50G": 50, "100G": 100,
               "200G": 200, "400G": 400, "800G": 800}
# Nexus 3000-3200 (render family n3k) ports run at 1-100 Gb/s (Nexus 3000 Series NX-OS Interfaces Configuration
# Guide, "Interface Speed"; 3100/3200 data sheets: 1/10/25/40/50/100G); 400G comes with the 3400-S and 3600.
NEXUS3000_RATES_GBPS = frozenset({1, 10, 25, 40, 50, 100})
_DELL_RENDER = ("losslessd reads Dell OS10 and OS9 but does not write their commands yet (no snippet whose every "
                "line is checked against Dell's documentation)")
# How a shell says it could not run a command, whichever shell the login runs:
# - bash (execute_cmd.c execute_disk_command, "%s: command not found": `-bash: ethtool: command not found`; a path that
#   is not there or not executable, shell_execve's file_error: `No such file or directory`, `Permission denied`);
# - zsh (Src/exec.c execute, zerr "command not found: %s": `zsh: command not found: ethtool`);
# - dash, Debian's /bin/sh (exec.c shellexec, "%s: %s" with errmsg(e, E_EXEC) "not found", after error.c's
#   "NAME: LINE: " prefix: `sh: 1: ethtool: not found`, as dash 0.5 prints it here) and busybox ash (shell/ash.c
#   shellexec, "%s: %s" with errmsg(e, "not found"), after the shell's name: `sh: ethtool: not found`, `-sh: ...` in a
#   login shell): a whole line, the shell's name (a path, a login shell's `-`) then the line number dash adds.
_SHELL_REFUSALS = ("command not found", "No such file or directory", "Permission denied",
                   lazy(r"^[ \t]*-?(?:[^\s:]*/)?[\w.-]*sh: (?:\d+: )?[^\n:]+: not found[ \t\r]*$", re.M))

PLATFORMS: dict[str, Platform] = {
    p.id: p
    for p in (
        Platform("sonic", DeviceKind.switch, "sonic", "SONiC CONFIG_DB JSON (config_db.json, or qos.json + buffers.json)",
                 # Community SONiC logs in to bash (`admin@leaf1:~$`); netmiko's dell_sonic enters the Dell
                 # Enterprise `sonic-cli` instead, so the generic `linux` type fits.
                 netmiko="linux", napalm=None,
                 # sonic-utilities show/main.py: `show runningconfiguration all` prints CONFIG_DB as JSON.
                 commands=(Command("show runningconfiguration all", json=True),), refusals=_SHELL_REFUSALS,
                 # The ports section writes the CABLE_LENGTH that selects the SKU's lossless PG profile.
                 sniff=10, sniff_opens="{", port_facts={"ports": ("sonic",), "buffer": ("sonic",)}, fix="config_db",
                 tune=True,
                 push="sonic_patch",
                 # sonic-utilities show/main.py: `show pfcwd stats` (watchdog storms and restores) and
                 # `show queue wredcounters` (ECN-marked packets per queue), which SNMP does not serve. -e: the
                 # command hides all-0/0 queues without it (pfcwd/main.py collect_stats), and a queue's first
                 # storm would then be the first reading of its counter, which has no delta.
                 counter_commands=("show pfcwd stats -e", "show queue wredcounters"), gnmi="sonic",
                 shell="bash", login="admin",
                 # sonic-yang-models sonic-port.yang PORT mtu `range 68..9216`; sonic-utilities pfcwd/main.py:
                 # `interval` IntRange(100, MAX_POLL_INTERVAL_TIME 1000), detection-time IntRange(100, 5000),
                 # --restoration-time IntRange(100, 60000).
                 limits=RenderLimits(mtu_bytes=(68, 9216), speeds_gbps=SONIC_RATES_GBPS, wd_poll_ms=(100, 1000),
                                     wd_detection_ms=(100, 5000), wd_restoration_ms=(100, 60000),
                                     # sonic-utilities pfcwd/main.py: --action drop|forward|alert
                                     wd_actions={"drop": "drop", "forward": "forward", "notify-only": "alert"}),
                 # sonic-swss orchagent/pfcwdsworch.cpp registerInWdDb: for each priority i of the port's watchdog
                 # mask (PORT_QOS_MAP pfcwd_sw_enable) it watches queueId = port.m_queue_ids[i];
                 # pfc_detect_<asic>.lua pairs that queue's counters with SAI_PORT_STAT_PFC_<i>_RX_PKTS.
                 wd_watches="priority-index"),
        Platform("arista_eos", DeviceKind.switch, "eos", "Arista EOS running-config",
                 netmiko="arista_eos", napalm="eos",
                 commands=(Command("show running-config"), Command("show lldp neighbors", optional=True)),
                 enable=True, refusals=("% Invalid input", "% Incomplete command", "% Ambiguous command",
                                        "% Unrecognized command", "% Authorization denied"),
                 sniff=50,
                 sniff_signs=("! Command: show running-config", "! device: ", "interface ", "qos profile ", "(config-",
                              "qos map ", "!RANCID-CONTENT-TYPE: arista", "service routing protocols model ",
                              "daemon TerminAttr"),
                 fix="eos_cli", tune=True, push="eos_session", gnmi="openconfig_eos", shell="eos",
                 login="admin",
                 # Arista EOS User Manual, "mtu (Interface)": routed port MTU 68-9214 bytes (AVD eos_designs'
                 # p2p_uplinks_mtu defaults to that largest value, 9214). AVD priority_flow_control.schema.yml
                 # watchdog: timeout and recovery-time in seconds with up to 2 decimals (0.01-60), polling-interval
                 # with up to 3 (0.005-60).
                 limits=RenderLimits(mtu_bytes=(68, 9214), wd_poll_ms=(5, 60000), wd_detection_ms=(10, 60000),
                                     wd_restoration_ms=(10, 60000), wd_detection_step_ms=10,
                                     wd_restoration_step_ms=10,
                                     # AVD eos_cli_config_gen qos_profiles schema: random_detect.ecn.threshold
                                     # max_probability (`max-mark-probability`) min 1, max 100.
                                     mark_probability_pct=(1, 100),
                                     sources={"mark_probability_pct": "AVD qos_profiles schema, random_detect.ecn."
                                              "threshold.max_probability 1-100"},
                                     # AVD priority_flow_control.watchdog.action: "drop" | "no-drop" (no-drop forwards
                                     # the stuck queue's packets); errdisable is the default no action word writes
                                     # (AVD priority-flow-control.j2 docs: action default 'errdisable'), so its
                                     # word is none: the `no` form puts it back.
                                     wd_actions={"drop": "drop", "forward": "no-drop", "errdisable": ""}),
                 # EOS User Manual, "Command-Line Interface": keywords are not case-sensitive, and `interface
                 # ethernet 1`, `Et1` name Ethernet1 (parse/eos/reader.py reads them so).
                 port_names_ignore_case=True),
        Platform("linux_mlx5", DeviceKind.host, "mlx5",
                 "Linux host with NVIDIA ConnectX NIC (losslessd capture of mlnx_qos or iproute2 dcb, and sysfs)",
                 netmiko="linux", napalm=None,
                 # The commands of examples/collect-host-capture.sh (docs/capture-format.md), plus
                 # `ethtool -S` for the per-priority pause counters (optional: not read by lint yet).
                 commands=(
                     # A NIC without mlnx_qos (Intel ice, Broadcom bnxt_en; MLNX_OFED not installed): iproute2
                     # dcb(8) shows the same DCB state from the kernel (dcb-pfc(8), dcb-ets(8), dcb-app(8),
                     # dcb-buffer(8); a driver without the DCB buffer operations refuses the last).
                     Command("mlnx_qos -i {iface}", instead=(
                         Command("dcb pfc show dev {iface}"), Command("dcb ets show dev {iface}"),
                         # (-N: DSCPs as numbers, not the names of the host's /etc/iproute2/rt_dsfield)
                         Command("dcb -N app show dev {iface}", optional=True),
                         Command("dcb buffer show dev {iface}", optional=True))),
                     Command("cat /sys/class/net/{iface}/mtu"),
                     Command("cat /sys/class/net/{iface}/speed"),
                     # MLNX_OFED mlx5's DCQCN files: the upstream kernel's mlx5_core (Linux drivers/infiniband/hw/
                     # mlx5/cong.c: debugfs cc_params) and other drivers have none, which lint judges with the
                     # driver `ethtool -i` names (Port.nic_sysfs_ecn), not pull: optional.
                     Command("grep . /sys/class/net/{iface}/ecn/roce_np/enable/*", optional=True),
                     Command("grep . /sys/class/net/{iface}/ecn/roce_rp/enable/*", optional=True),
                     Command("grep . /sys/class/net/{iface}/ecn/roce_np/cnp_dscp "
                             "/sys/class/net/{iface}/ecn/roce_np/cnp_802p_prio", optional=True),
                     Command("ethtool -S {iface}", optional=True),
                     Command("lldpcli show neighbors -f keyvalue", optional=True),
                     Command("cat /sys/kernel/config/rdma_cm/{rdma}/ports/1/default_roce_tos"),
                     # Link-level pause (NIC005), the NIC's max MTU (receive buffer sizes), DCQCN parameters
                     # (NIC007), the device-wide traffic class and NCCL's settings (NIC006, IBS001).
                     Command("ethtool -a {iface}", optional=True),
                     # The NIC's driver: where its DCQCN is set (mlx5's sysfs ecn/ files, or irdma's, bnxt_re's own)
                     Command("ethtool -i {iface}", optional=True),
                     Command("ip -d link show dev {iface}", optional=True),
                     Command("grep -s . /sys/class/net/{iface}/ecn/roce_rp/* /sys/class/net/{iface}/ecn/roce_np/*",
                             optional=True),
                     Command("cat /sys/class/infiniband/{rdma}/tc/1/traffic_class", optional=True),
                     Command("cat /etc/nccl.conf", optional=True),
                 ),
                 refusals=(*_SHELL_REFUSALS, "Netlink error", "No such device"),
                 # The mlx5 driver sizes the lossless receive buffer from the cable length the script writes
                 # with PFC (mlnx_qos --cable_len): a NIC port needs its cable length and nothing else.
                 sniff=20,
                 # mlnx_qos's output, dcb's show lines at a line's start (parse/mlx5/dcb_show.SHOW_LINE), a `#!` script,
                 # a step list running mlnx_qos or cma_roce_tos, a sysfs dump; dcb's JSON output opens with `{`.
                 sniff_signs=("PFC configuration:", "\nprio-pfc", "\ntc-tsa", "\nprio-tc", "\ndscp-prio",
                              "\nprio-buffer", "\nbuffer-size", "\npfc-cap ", "#!", "mlnx_qos", "cma_roce_tos",
                              "/sys/"),
                 sniff_signs_open="{", port_facts={"pfc": ("cable",), "buffer": ("cable",)}, fix="script",
                 # The NIC's RDMA congestion counters are not in `ethtool -S`: the kernel serves them only in
                 # sysfs under the RDMA device (NVIDIA MLNX_OFED docs, "RDMA Counters":
                 # /sys/class/infiniband/<device>/ports/*/hw_counters; names from Linux commit e1f24a79
                 # "IB/mlx5: Support congestion related counters"). Reached through the netdev's PCI device,
                 # each line names the interface it belongs to.
                 # `ethtool -I -a`: the kernel's standard pause statistics (link-wide PAUSE frames and the pause
                 # storm count any driver may report; Linux ethtool-netlink.rst PAUSE_GET), after `ethtool -S`, whose
                 # mlx5 storm counts win where both give them.
                 counter_commands=("ethtool -S {iface}",
                                   "grep . /sys/class/net/{iface}/device/infiniband/*/ports/*/hw_counters/*",
                                   "ethtool -I -a {iface}"),
                 shell="bash", login="root",
                 unsupported={"tune": _HOST_TUNE, "push": _HOST_TUNE},
                 # Linux mlx5 en_dcbnl.c mlx5e_dcbnl_ieee_setpfc: the cable length (mlnx_qos --cable_len, ieee_pfc
                 # delay) is taken only if non-zero and below MLX5E_MAX_CABLE_LENGTH 1000; else it is ignored
                 # without an error and the buffer stays sized for the cable before.
                 limits=RenderLimits(cable_m=(1, 999), cable_refused="the driver would keep the buffer sized for "
                                     "the cable before, without an error")),
        Platform("cisco_nxos", DeviceKind.switch, "nxos", "Cisco NX-OS running-config (Nexus 9000 QoS policies)",
                 netmiko="cisco_nxos", napalm="nxos_ssh",
                 # Nexus 9000 NX-OS QoS configuration guide: PFC, no-drop classes and queuing policies live in
                 # the ipqos part of the running-config; `show queuing interface` shows per-queue state.
                 commands=(Command("show running-config ipqos all"), Command("show running-config interface"),
                           Command("show queuing interface", optional=True),
                           Command("show lldp neighbors", optional=True),
                           # Interfaces guide, "Configuring Port Channels": the members up in each port-channel, over
                           # which a route through it goes (parse/nxos/channels.py).
                           Command("show port-channel summary", optional=True),
                           # The same guide's `show interface port-channel [channel-number]`, every port-channel
                           # without a number: the members line of each (parse/nxos/channels.py), which a route
                           # follows where the summary was refused.
                           Command("show interface port-channel", optional=True),
                           # The model chooses the command family losslessd renders (Nexus 9000 or 3000).
                           Command("show version", optional=True)),
                 refusals=("% Invalid command", "% Incomplete command", "% Permission denied"),
                 # A cable above 100 m gets a pause buffer; NX-OS restates the speed with the ports.
                 sniff=60,
                 sniff_signs=("!Command: show running-config", "!Time: ", "!RANCID-CONTENT-TYPE: cisco-nx",
                              "boot nxos ", "system qos", "policy-map type ",
                              "priority-flow-control watch-dog-interval ",
                              "service-policy type queuing ", "(config-"),
                 port_facts={"ports": ("speed",), "buffer": ("speed", "cable")}, ecn_in_scheduler=True,
                 fix="nxos_cli", tune=True, gnmi="openconfig", shell="nxos", login="admin", qos_on_aggregate=True,
                 unsupported={"push": _NO_PUSH},
                 # Nexus 9000 interfaces guide: `mtu` 576-9216 on a routed port; QoS guide, PFC watchdog:
                 # `priority-flow-control watch-dog interval` 100-1000 ms, `watch-dog shutdown-multiplier` 1-10,
                 # `auto-restore multiplier` 0-100.
                 limits=RenderLimits(mtu_bytes=(576, 9216), speeds_gbps=ETHERNET_RATES_GBPS, wd_poll_ms=(100, 1000),
                                     family_speeds_gbps={"n3k": NEXUS3000_RATES_GBPS}, wd_counts_polls=True,
                                     wd_detection_polls=(1, 10), wd_restoration_polls=(0, 100),
                                     # Cisco-NX-OS-device.yang (NX-OS 9.3(1), as the YangModels repository
                                     # publishes it): ipqos_BuffSize `range 5000..12582913` whose default 12582913
                                     # is the unset mark, so 12582912 at most, as ipqos_XoffBytes and ipqos_XonBytes
                                     # `range 0..12582912` (pause-threshold, resume-threshold); ipqos_ThreshVal
                                     # `range 0..52428800` beside ipqos_ThreshUnit bytes (random-detect thresholds).
                                     pause_buffer_bytes=(5000, 12582912), pause_threshold_bytes=(0, 12582912),
                                     ecn_threshold_bytes=(0, 52428800),
                                     sources={"ecn_threshold_bytes": "Cisco-NX-OS-device.yang (NX-OS 9.3(1)) "
                                              "ipqos_ThreshVal range 0..52428800"},
                                     # Nexus 9000 QoS guide, PFC watchdog: a stuck no-drop queue is shut and its
                                     # packets dropped; no command chooses another action.
                                     wd_actions={"drop": ""}),
                 # Nexus 9000 QoS guide, "About Priority Flow Control Watchdog": it monitors the PFC-enabled
                 # (no-drop) queues, the ones received pauses stop.
                 wd_watches="paused-queues",
                 # Cisco Nexus 9000 NX-OS Fundamentals Configuration Guide, "Using the CLI": command keywords are not
                 # case-sensitive; `interface ethernet 1/1`, `Eth1/1`, `e1/1` name Ethernet1/1 (parse/nxos/reader.py).
                 port_names_ignore_case=True),
        Platform("nvidia_cumulus", DeviceKind.switch, "nvue", "NVIDIA Cumulus Linux NVUE (`nv set` commands, or `nv config show` YAML/JSON)",
                 netmiko="cumulus_linux", napalm=None,
                 # Cumulus Linux 5.x NVUE: `nv config show -o json` is the applied configuration; `nv show qos roce`
                 # the RoCE mode, PFC/ECN and buffer settings (docs.nvidia.com, Cumulus Linux 5.x "RDMA over Converged Ethernet - RoCE").
                 commands=(Command("nv config show -o json", json=True), Command("nv show qos roce", optional=True),
                           Command("lldpcli show neighbors -f keyvalue", optional=True)),
                 refusals=_SHELL_REFUSALS,
                 # NVUE writes the cable length with PFC (the switch sizes headroom from it) and restates the speed.
                 sniff=40, sniff_signs=("nv set ", "nvue-api-version", "- set:"),
                 port_facts={"ports": ("speed",), "pfc": ("cable",), "buffer": ("cable",)}, fix="set_lines",
                 # NVUE's applied config as `nv set` lines (NVIDIA NVUE command reference: nv config show -o commands).
                 config_command="nv config show -o commands", tune=True, push="nvue", shell="bash", login="cumulus",
                 # NVUE command reference: `interface <id> link mtu` 552-9216; `qos pfc <profile-id> cable-length`
                 # 1-100000 (m: parse.nvue.reader.CABLE_M); `qos pfc-watchdog polling-interval` 100-5000 ms and
                 # `robustness` 1-1000 polling intervals.
                 limits=RenderLimits(mtu_bytes=(552, 9216), speeds_gbps=ETHERNET_RATES_GBPS & set(NVUE_SPEEDS.values()),
                                     wd_poll_ms=(100, 5000),
                                     cable_m=(1, 100000), cable_refused="NVUE refuses the PFC profile's cable-length",
                                     wd_counts_polls=True, wd_detection_polls=(1, 1000),
                                     # NVUE reference, `qos congestion-control ... probability`: "a value between 1
                                     # and 100".
                                     mark_probability_pct=(1, 100),
                                     # NVUE reference, `qos congestion-control <profile> traffic-class <tc>
                                     # min-threshold|max-threshold`: neither bounds the other in words.
                                     ecn_equal_unsourced=True,
                                     sources={"mark_probability_pct": "NVUE command reference, qos congestion-control "
                                              "probability 1-100"},
                                     # NVUE reference, qos pfc-watchdog: polling-interval and robustness only; a
                                     # stormed queue's packets are dropped until a poll sees no pause.
                                     wd_restoration_is_poll=True, wd_actions={"drop": ""}),
                 # The buffer part's cable length goes into the port's `qos pfc profile`, unless a PFC part writes
                 # that profile whole (templates/nvidia_cumulus).
                 in_place=InPlace("buffer", "qos pfc profile", whole=("pfc",))),
        # NVIDIA Onyx (MLNX-OS) on Spectrum switches: `show running-config` prints the configuration one command a
        # line (Onyx User Manual; netmiko's mellanox_mlnxos enters enable mode before it). `show roce` (Onyx 3.8.2000+,
        # RoCE Commands) prints what RoCE mode applies, which the running-config does not.
        Platform("nvidia_onyx", DeviceKind.switch, "onyx", "NVIDIA Onyx (MLNX-OS) `show running-config`",
                 netmiko="mellanox_mlnxos", napalm=None, enable=True,
                 commands=(Command("show running-config"), Command("show roce", optional=True)),
                 refusals=("% Unrecognized command", "% Incomplete command"),
                 sniff=45,
                 sniff_signs=(' database "', "no cli default prefix-modes enable", "int eth ", "int ethernet ",
                              "interface eth ", "interface ethernet ", "(config",
                              "dcb priority-flow-control "), unsupported=_read_only(_ONYX_RENDER)),
        # Junos CLI: `| display set` prints the configuration as set commands, the form losslessd reads.
        Platform("juniper_junos", DeviceKind.switch, "junos", "Juniper Junos (QFX) `show configuration | display set`",
                 netmiko="juniper_junos", napalm="junos",
                 # `show version` gives the model (QFX5000 or QFX10000/PTX), which chooses the buffer-size syntax.
                 commands=(Command("show configuration | display set"), Command("show version", optional=True)),
                 refusals=("syntax error", "unknown command", "error: "),
                 # An unknown cable length renders a PFC profile without `input cable-length`, the switch's
                 # default 100 m, which is what a profile without one (the only way the parser leaves a port's
                 # cable unknown) said before.
                 sniff=70, sniff_signs=("interfaces", "class-of-service", "RANCID-CONTENT-TYPE: juniper"),
                 port_facts={"ports": ("speed",)}, ecn_in_scheduler=True, fix="junos_set", tune=True,
                 gnmi="openconfig", unsupported={"push": _NO_PUSH, "sim": _NOT_SIMULATED},
                 # QFX5000/QFX10000 `interfaces <if> mtu` (media MTU) 256-9216 bytes, so an IP MTU of 242-9202
                 # (JVD AI/ML QFX5240 leaves write `mtu 9216`, the largest); pfc-watchdog `detection` counts
                 # poll-intervals (Junos CoS guide, "PFC Watchdog"; ranges not verified).
                 limits=RenderLimits(mtu_bytes=(256 - 14, 9216 - 14), speeds_gbps=ETHERNET_RATES_GBPS,
                                     wd_counts_polls=True,
                                     # Junos AI-ML data center guide, "PFC Watchdog": `watchdog-action` drop
                                     # (the default) or forward, one action on every port.
                                     wd_actions={"drop": "drop", "forward": "forward"}),
                 # Junos CoS guide, "PFC Watchdog": it works on PFC queues only, the ones `flow-control-queue`
                 # names for a code point (the queues its pauses stop).
                 wd_watches="paused-queues", qos_on_aggregate=True,
                 # Junos "Configuring DSCP-based PFC for Layer 3 Untagged Traffic": the queue a pause for priority P
                 # stops is the PFC profile's `output ieee-802.1 code-point P flow-control-queue Q` (templates: pfc).
                 pause_queue_section="pfc",
                 # The watchdog alone goes into the port's congestion-notification-profile, unless a PFC or trust
                 # part binds one of its own for the lossless priorities (templates/juniper_junos).
                 in_place=InPlace("watchdog", "congestion-notification-profile", whole=("pfc", "trust"),
                                  whole_needs_pfc=True)),
        Platform("dell_os10", DeviceKind.switch, "dell_os10",
                 "Dell SmartFabric OS10 `show running-configuration` (PowerSwitch S5248F-ON, S5232F-ON ...)",
                 # netmiko's dell_os10 type; OS10 User Guide: `show running-configuration` prints the whole
                 # configuration, QoS maps, policies and interfaces included.
                 netmiko="dell_os10", napalm=None, commands=(Command("show running-configuration"),),
                 # OS10 CLI: a command it cannot run prints `% Error: ...`.
                 refusals=("% Error",),
                 sniff=55, sniff_signs=("! Version 10.", "(conf-", "ethernet"),
                 unsupported=_read_only(_DELL_RENDER),
                 # The OS10 guides searched document no PFC watchdog: which queue one would watch is not known.
                 wd_watches=None),
        Platform("dell_os9", DeviceKind.switch, "dell_os9",
                 "Dell Networking OS9 / FTOS `show running-config` (DCB maps: S4810, S4820T, S6000, S4048-ON ...)",
                 # netmiko's dell_force10 type; OS9 prints its configuration with `show running-config`.
                 netmiko="dell_force10", napalm=None, commands=(Command("show running-config"),),
                 # OS9 CLI: a command it cannot run is answered `% Error: ...`.
                 refusals=("% Error",),
                 sniff=57, sniff_signs=("! Version 9.", "(conf)#", "dcb-map "),
                 unsupported=_read_only(_DELL_RENDER)),
        Platform("opensm", DeviceKind.subnet_manager, "opensm",
                 "InfiniBand subnet manager: opensm.conf, with qos-policy.conf, partitions.conf and ibdiagnet output",
                 sniff=30, fix="key_value",
                 unsupported={
                     "tune": _IB_TUNE, "push": _IB_TUNE,
                     "counters": "an inventory cannot hold a subnet manager (no login to collect it with), so the "
                                 "daemon polls none; losslessd polls no InfiniBand counters yet",
                     "sim": "a subnet manager is read from its files: `pull` has no commands to run on it, so there "
                            "is no CLI to simulate",
                 }),
    )
}

# Short names accepted by --format.
FORMAT_ALIASES = {"eos": "arista_eos", "mlx5": "linux_mlx5", "nic": "linux_mlx5", "config_db": "sonic",
                  "nxos": "cisco_nxos", "cumulus": "nvidia_cumulus", "nvue": "nvidia_cumulus", "junos": "juniper_junos",
                  "os10": "dell_os10", "os9": "dell_os9", "ftos": "dell_os9",
                  "onyx": "nvidia_onyx"}


# The platforms `lint` detects, in the order their parsers' sniff() is asked.
SNIFF_ORDER = tuple(p.id for p in sorted(PLATFORMS.values(), key=lambda p: p.sniff or 0)
                    if p.parser and p.sniff is not None)


def resolve_format(name: str) -> Platform | None:
    return PLATFORMS.get(FORMAT_ALIASES.get(name, name))


def no_parser_message(platform: Platform) -> str:
    return (f"no parser for platform {platform.id} yet: its captures are collected and kept, but not checked "
            f"(parsers: {', '.join(p.id for p in PLATFORMS.values() if p.parser)})")
