"""Render golden files: every platform template x every shipped policy of its kind, for one fixed port
set, in tests/fixtures/render/<platform>/<policy>.<ext>.

Regenerate after an intended template change with `make golden` (python -m tests.render_golden) and
review the diff.
"""

from __future__ import annotations

from pathlib import Path

from losslessd.policy import load_policy
from losslessd.render import parse_port_spec, platforms, profile, render

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "render"
POLICIES = ("roce-dscp26", "sonic-azure", "pfc-only")  # the shipped Ethernet policies
# Per platform: file extension of its golden files (and of the file a round trip lints).
EXTENSIONS = {"sonic": "json", "arista_eos": "cfg"}
# Platforms whose shipped policies are not the Ethernet ones.
POLICIES_FOR: dict[str, tuple[str, ...]] = {"opensm": ("infiniband",)}
# Unverified infos a platform may leave after a round trip because the device computes them at run
# time (EOS sizes PFC headroom itself, so BUF003 and ECN004 cannot be checked offline).
RUNTIME_INFOS: dict[str, set[str]] = {"arista_eos": {"BUF003", "ECN004"}}
# A 100G and a 400G port on short and long cables, and a 25G port with a standard MTU; port names
# in each platform's own spelling.
PORT_FACTS = ("100G:5m:9100", "400G:300m:9100", "25G:3m:1500")
PORT_NAMES: dict[str, tuple[str, str, str]] = {}
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
