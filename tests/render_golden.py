"""Render golden files: every platform template x every shipped Ethernet policy, for one fixed port set,
in tests/fixtures/render/<platform>/<policy>.<ext>.

Regenerate after an intended template change with `make golden` (python -m tests.render_golden) and
review the diff.
"""

from __future__ import annotations

from pathlib import Path

from losslessd.policy import load_policy
from losslessd.render import PLATFORMS, parse_port_spec, profile, render

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "render"
POLICIES = ("roce-dscp26", "sonic-azure", "pfc-only")
EXTENSIONS = {"sonic": "json", "arista_eos": "cfg"}
# A 100G and a 400G port on short and long cables, and a 25G port with a standard MTU.
PORTS = ("Ethernet0:100G:5m:9100", "Ethernet4:400G:300m:9100", "Ethernet8:25G:3m:1500")
POOL_BYTES = 47218432  # ingress_lossless_pool of the example fabric's leaf1 (examples/fabric/leaf1)
CLI_ARGS = [arg for spec in PORTS for arg in ("--ports", spec)] + ["--pool-size", str(POOL_BYTES)]


def cases() -> list[tuple[str, str]]:
    return [(platform, policy) for platform in PLATFORMS for policy in POLICIES]


def golden_path(platform: str, policy: str) -> Path:
    return GOLDEN / platform / f"{policy}.{EXTENSIONS[platform]}"


def rendered(platform: str, policy: str) -> str:
    ports = [parse_port_spec(spec) for spec in PORTS]
    return render(platform, profile(load_policy(policy), ports, pool_bytes=POOL_BYTES))


def main() -> None:
    for platform, policy in cases():
        path = golden_path(platform, policy)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered(platform, policy))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
