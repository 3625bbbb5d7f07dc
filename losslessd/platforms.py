"""Platform registry: our platform ids, what kind of device each is, which parser reads it, and how
`losslessd pull` collects it (netmiko device type, napalm driver, commands).

A platform without a parser (``parser=None``) is collection-only: `pull` saves its captures so a
later losslessd can lint them; `lint` reports them as SYS001 "no parser for platform X yet".
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import DeviceKind

# Command templates: "{iface}" is repeated for each of a host's RoCE interfaces (inventory
# data.interfaces), "{rdma}" for each of its RDMA devices (data.rdma_devices).


@dataclass(frozen=True)
class Command:
    """One command `pull` runs. ``json``: the output must be JSON (else it is garbled: SYS014).
    ``optional``: a refusal (tool not installed, e.g. lldpd) is kept in the capture but is no finding."""

    line: str
    json: bool = False
    optional: bool = False


@dataclass(frozen=True)
class Platform:
    id: str
    kind: DeviceKind
    parser: str | None  # module under losslessd.parse; None: collection only, no parser yet
    description: str
    netmiko: str | None = None  # netmiko device_type; None: `pull` cannot collect it
    napalm: str | None = None  # napalm driver name, for reference (pull uses netmiko: docs/collection.md)
    commands: tuple[Command, ...] = ()
    enable: bool = False  # enter privileged mode (netmiko enable()) before the commands
    # Text that, on an output line, means the device refused or could not run a command (SYS014).
    refusals: tuple[str, ...] = ()


_BASH_REFUSALS = ("command not found", "No such file or directory", "Permission denied")

PLATFORMS: dict[str, Platform] = {
    p.id: p
    for p in (
        Platform("sonic", DeviceKind.switch, "sonic", "SONiC CONFIG_DB JSON (config_db.json, or qos.json + buffers.json)",
                 # Community SONiC logs in to bash (`admin@leaf1:~$`); netmiko's dell_sonic enters the Dell
                 # Enterprise `sonic-cli` instead, so the generic `linux` type fits.
                 netmiko="linux", napalm=None,
                 # sonic-utilities show/main.py: `show runningconfiguration all` prints CONFIG_DB as JSON.
                 commands=(Command("show runningconfiguration all", json=True),), refusals=_BASH_REFUSALS),
        Platform("arista_eos", DeviceKind.switch, "eos", "Arista EOS running-config",
                 netmiko="arista_eos", napalm="eos",
                 commands=(Command("show running-config"), Command("show lldp neighbors", optional=True)),
                 enable=True, refusals=("% Invalid input", "% Incomplete command", "% Ambiguous command",
                                        "% Unrecognized command", "% Authorization denied")),
        Platform("linux_mlx5", DeviceKind.host, "mlx5",
                 "Linux host with NVIDIA ConnectX NIC (losslessd capture of mlnx_qos and sysfs)",
                 netmiko="linux", napalm=None,
                 # The commands of examples/collect-host-capture.sh (docs/capture-format.md), plus
                 # `ethtool -S` for the per-priority pause counters (optional: not read by lint yet).
                 commands=(
                     Command("mlnx_qos -i {iface}"),
                     Command("cat /sys/class/net/{iface}/mtu"),
                     Command("cat /sys/class/net/{iface}/speed"),
                     Command("grep . /sys/class/net/{iface}/ecn/roce_np/enable/*"),
                     Command("grep . /sys/class/net/{iface}/ecn/roce_rp/enable/*"),
                     Command("grep . /sys/class/net/{iface}/ecn/roce_np/cnp_dscp "
                             "/sys/class/net/{iface}/ecn/roce_np/cnp_802p_prio"),
                     Command("ethtool -S {iface}", optional=True),
                     Command("lldpcli show neighbors -f keyvalue", optional=True),
                     Command("cat /sys/kernel/config/rdma_cm/{rdma}/ports/1/default_roce_tos"),
                     # Link-level pause (NIC005), the NIC's max MTU (receive buffer sizes), DCQCN parameters
                     # (NIC007), the device-wide traffic class and NCCL's settings (NIC006, IBS001).
                     Command("ethtool -a {iface}", optional=True),
                     Command("ip -d link show dev {iface}", optional=True),
                     Command("grep -s . /sys/class/net/{iface}/ecn/roce_rp/* /sys/class/net/{iface}/ecn/roce_np/*",
                             optional=True),
                     Command("cat /sys/class/infiniband/{rdma}/tc/1/traffic_class", optional=True),
                     Command("cat /etc/nccl.conf", optional=True),
                 ),
                 refusals=(*_BASH_REFUSALS, "Netlink error", "No such device")),
        Platform("cisco_nxos", DeviceKind.switch, "nxos", "Cisco NX-OS running-config (Nexus 9000 QoS policies)",
                 netmiko="cisco_nxos", napalm="nxos_ssh",
                 # Nexus 9000 NX-OS QoS configuration guide: PFC, no-drop classes and queuing policies live in
                 # the ipqos part of the running-config; `show queuing interface` shows per-queue state.
                 commands=(Command("show running-config ipqos all"), Command("show running-config interface"),
                           Command("show queuing interface", optional=True),
                           Command("show lldp neighbors", optional=True),
                           # The model chooses the command family losslessd renders (Nexus 9000 or 3000).
                           Command("show version", optional=True)),
                 refusals=("% Invalid command", "% Incomplete command", "% Permission denied")),
        Platform("nvidia_cumulus", DeviceKind.switch, "nvue", "NVIDIA Cumulus Linux NVUE (`nv set` commands, or `nv config show` YAML/JSON)",
                 netmiko="cumulus_linux", napalm=None,
                 # Cumulus Linux 5.x NVUE: `nv config show -o json` is the applied configuration; `nv show qos roce`
                 # the RoCE mode, PFC/ECN and buffer settings (docs.nvidia.com, Cumulus Linux 5.x "RDMA over Converged Ethernet - RoCE").
                 commands=(Command("nv config show -o json", json=True), Command("nv show qos roce", optional=True),
                           Command("lldpcli show neighbors -f keyvalue", optional=True)),
                 refusals=_BASH_REFUSALS),
        # Junos CLI: `| display set` prints the configuration as set commands, the form losslessd reads.
        Platform("juniper_junos", DeviceKind.switch, "junos", "Juniper Junos (QFX) `show configuration | display set`",
                 netmiko="juniper_junos", napalm="junos",
                 # `show version` gives the model (QFX5000 or QFX10000/PTX), which chooses the buffer-size syntax.
                 commands=(Command("show configuration | display set"), Command("show version", optional=True)),
                 refusals=("syntax error", "unknown command", "error: ")),
        Platform("opensm", DeviceKind.subnet_manager, "opensm",
                 "InfiniBand subnet manager: opensm.conf, with qos-policy.conf, partitions.conf and ibdiagnet output"),
    )
}

# Short names accepted by --format.
FORMAT_ALIASES = {"eos": "arista_eos", "mlx5": "linux_mlx5", "nic": "linux_mlx5", "config_db": "sonic",
                  "nxos": "cisco_nxos", "cumulus": "nvidia_cumulus", "nvue": "nvidia_cumulus", "junos": "juniper_junos"}


def resolve_format(name: str) -> Platform | None:
    return PLATFORMS.get(FORMAT_ALIASES.get(name, name))


def no_parser_message(platform: Platform) -> str:
    return (f"no parser for platform {platform.id} yet: its captures are collected and kept, but not checked "
            f"(parsers: {', '.join(p.id for p in PLATFORMS.values() if p.parser)})")
