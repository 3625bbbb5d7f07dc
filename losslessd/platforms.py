"""Platform registry: our platform ids, what kind of device each is, and which parser reads it.

Collection (netmiko/napalm device types, commands) is added here per platform as it lands.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import DeviceKind


@dataclass(frozen=True)
class Platform:
    id: str
    kind: DeviceKind
    parser: str  # module under losslessd.parse
    description: str


PLATFORMS: dict[str, Platform] = {
    p.id: p
    for p in (
        Platform("sonic", DeviceKind.switch, "sonic", "SONiC CONFIG_DB JSON (config_db.json, or qos.json + buffers.json)"),
        Platform("arista_eos", DeviceKind.switch, "eos", "Arista EOS running-config"),
        Platform("linux_mlx5", DeviceKind.host, "mlx5", "Linux host with NVIDIA ConnectX NIC (losslessd capture of mlnx_qos and sysfs)"),
        Platform("opensm", DeviceKind.subnet_manager, "opensm",
                 "InfiniBand subnet manager: opensm.conf, with qos-policy.conf, partitions.conf and ibdiagnet output"),
    )
}

# Short names accepted by --format.
FORMAT_ALIASES = {"eos": "arista_eos", "mlx5": "linux_mlx5", "nic": "linux_mlx5", "config_db": "sonic"}


def resolve_format(name: str) -> Platform | None:
    return PLATFORMS.get(FORMAT_ALIASES.get(name, name))
