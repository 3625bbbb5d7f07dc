"""Render golden files: every platform template x every shipped policy of its kind, for one fixed port
set, in tests/fixtures/render/<platform>/<policy>.<ext>.

Regenerate after an intended template change with `make golden` (python -m tests.render_golden) and
review the diff.
"""

from __future__ import annotations

from pathlib import Path

from losslessd.policy import load_policy
from losslessd.render import opensm, parse_port_spec, platforms, profile, render

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "render"
POLICIES = ("roce-dscp26", "sonic-azure", "pfc-only")  # the shipped Ethernet policies
# Per platform: file extension of its golden files (and of the file a round trip lints).
EXTENSIONS = {"sonic": "json", "arista_eos": "cfg", "nvidia_cumulus": "cfg", "linux_mlx5": "sh", "opensm": "conf",
              "cisco_nxos": "cfg", "juniper_junos": "set"}
# Platforms whose shipped policies are not the Ethernet ones.
POLICIES_FOR: dict[str, tuple[str, ...]] = {"opensm": ("infiniband",)}
# Unverified infos a platform may leave after a round trip because the device computes them at run
# time (EOS sizes PFC headroom itself, so BUF003 and ECN004 cannot be checked offline).
RUNTIME_INFOS: dict[str, set[str]] = {
    "arista_eos": {"BUF003", "ECN004"},
    # NX-OS and Junos (QFX) size no-drop headroom from the shared buffer themselves; neither config has a
    # PG profile to check.
    # Their CNP class is routed untagged and never paused, so it has no 802.1p priority the config could show:
    # MAP002 leaves the policy's CNP priority unverified (the strict queue is still checked).
    "cisco_nxos": {"BUF003", "ECN004", "MAP002"}, "juniper_junos": {"BUF003", "ECN004", "MAP002"},
    # Cumulus sizes PFC headroom from the PFC profile's cable length on Spectrum and derives each switch
    # priority's ingress priority group from its traffic pools (NVUE writes neither), so BUF003, ECN004 and
    # MAP001's TC->PG step cannot be checked offline.
    "nvidia_cumulus": {"BUF003", "ECN004", "MAP001"},
    # The mlx5 driver sizes the lossless receive buffer from --cable_len and the MTU itself (auto buffer
    # mode), so MAP001 cannot see the buffer's settings offline.
    "linux_mlx5": {"MAP001"},
}
# A 100G and a 400G port on short and long cables, and a 25G port with a standard MTU; port names
# in each platform's own spelling.
PORT_FACTS = ("100G:5m:9100", "400G:300m:9100", "25G:3m:1500")
PORT_NAMES: dict[str, tuple[str, ...]] = {
    "nvidia_cumulus": ("swp1", "swp2", "swp3"), "linux_mlx5": ("ens1f0np0", "ens1f1np1", "ens2f0np0"),
    "opensm": (),  # a subnet manager has no Ethernet ports
    "cisco_nxos": ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3"), "juniper_junos": ("et-0/0/0", "et-0/0/1", "et-0/0/2"),
}
DEFAULT_PORT_NAMES = ("Ethernet0", "Ethernet4", "Ethernet8")
POOL_BYTES = 47218432  # ingress_lossless_pool of the example fabric's leaf1 (examples/fabric/leaf1)


def port_specs(platform: str) -> list[str]:
    names = PORT_NAMES.get(platform, DEFAULT_PORT_NAMES)
    return [f"{name}:{facts}" for name, facts in zip(names, PORT_FACTS)]


def cli_args(platform: str) -> list[str]:
    return [arg for spec in port_specs(platform) for arg in ("--ports", spec)] + ["--pool-size", str(POOL_BYTES)]


def ethernet_platforms() -> list[str]:
    return [platform for platform in platforms() if platform not in POLICIES_FOR]


def cases() -> list[tuple[str, str]]:
    return [(platform, policy) for platform in platforms() for policy in POLICIES_FOR.get(platform, POLICIES)]


def golden_path(platform: str, policy: str) -> Path:
    return GOLDEN / platform / f"{policy}.{EXTENSIONS[platform]}"


def rendered(platform: str, policy: str) -> str:
    if platform == "opensm":  # parameters from the policy alone (losslessd.render.opensm), no ports
        return render(platform, opensm.profile(load_policy(policy)))
    ports = [parse_port_spec(spec) for spec in port_specs(platform)]
    return render(platform, profile(load_policy(policy), ports, pool_bytes=POOL_BYTES))


def main() -> None:
    for platform, policy in cases():
        path = golden_path(platform, policy)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered(platform, policy))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
