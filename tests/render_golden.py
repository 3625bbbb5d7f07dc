"""Render golden files: every platform template x every shipped policy of its kind x every variant (command
family, or SONiC SKU) of the platform, for one fixed port set, in tests/fixtures/render/<platform>/<policy>.<ext>
(the first variant) and <policy>.<variant>.<ext> (the others).

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
    # MAP002 leaves the policy's CNP priority unverified (the strict queue is still checked). Neither writes a cable
    # length: an explicit NX-OS pause buffer (rendered for cables above 100 m) reads back as a profile whose xoff
    # BUF002 cannot hold against a cable length the config does not show.
    "cisco_nxos": {"BUF002", "BUF003", "ECN004", "MAP002"}, "juniper_junos": {"BUF003", "ECN004", "MAP002"},
    # SONiC: a rendered patch names no hwsku (it must not change the device's), so BUF001 cannot tell what a
    # profile's size means and says so; BUF002 then checks against the lower bound for unknown ASICs.
    "sonic": {"BUF001"},
    # Cumulus sizes the lossless PG's PFC headroom from the PFC profile's cable length on Spectrum (NVUE writes no
    # xoff), so BUF003 and ECN004 cannot be checked offline; the switch priority -> PG map is read (traffic pools).
    "nvidia_cumulus": {"BUF003", "ECN004"},
    # The mlx5 driver sizes the lossless receive buffer from --cable_len and the MTU itself (auto buffer
    # mode), so MAP001 cannot see the buffer's settings offline; the script leaves the NIC's ETS scheduler as it
    # is (SCH001).
    "linux_mlx5": {"MAP001", "SCH001"},
}
# A 100G and a 400G port on short and long cables, and a 25G port with a standard MTU; port names
# in each platform's own spelling.
PORT_FACTS = ("100G:5m:9100", "400G:300m:9100", "25G:3m:1500")
# Variants whose ports run slower: a Nexus 3000-3200 port tops out at 100G (platforms.NEXUS3000_RATES_GBPS).
VARIANT_PORT_FACTS = {("cisco_nxos", "n3k"): ("100G:5m:9100", "40G:300m:9100", "25G:3m:1500")}
PORT_NAMES: dict[str, tuple[str, ...]] = {
    "nvidia_cumulus": ("swp1", "swp2", "swp3"), "linux_mlx5": ("ens1f0np0", "ens1f1np1", "ens2f0np0"),
    "opensm": (),  # a subnet manager has no Ethernet ports
    "cisco_nxos": ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3"), "juniper_junos": ("et-0/0/0", "et-0/0/1", "et-0/0/2"),
}
DEFAULT_PORT_NAMES = ("Ethernet0", "Ethernet4", "Ethernet8")
POOL_BYTES = 47218432  # ingress_lossless_pool of the example fabric's leaf1 (examples/fabric/leaf1)


# Per platform: its variants as (name, CLI arguments that choose it); the first is the default golden. SONiC takes
# a Spectrum-3 SKU (buffer_headroom_mellanox.lua) and a Broadcom Tomahawk 4 SKU (its pg_profile_lookup.ini rows
# for 25G/100G/400G and 5/40/300 m); EOS, NX-OS and Junos their command families.
VARIANTS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "sonic": (("spectrum3", ("--sku", "ACS-MSN4700")), ("broadcom", ("--sku", "DellEMC-Z9664f-O64"))),
    "arista_eos": (("trident-tomahawk", ("--model", "DCS-7060DX5-64S")), ("sand", ("--model", "DCS-7280CR3-32P4"))),
    "cisco_nxos": (("n9k", ("--model", "N9K-C9364C-GX")), ("n3k", ("--model", "N3K-C3232C"))),
    "juniper_junos": (("qfx10000-ptx", ("--model", "qfx10002-36q")), ("qfx5000", ("--model", "qfx5120-48y-8c"))),
}
# Unverified infos a variant may leave besides its platform's: QFX5000 ECN fill levels are percent of a queue buffer
# the configuration does not size in bytes (no temporal buffer there), so ECN002 and ECN004 cannot convert them.
VARIANT_INFOS: dict[tuple[str, str], set[str]] = {("juniper_junos", "qfx5000"): {"ECN002", "ECN004"}}
# Variants the platform's parser does not read back yet (the NX-OS parser reads the Nexus 9000's system-defined
# classes, not the 3000's user classes): no round trip for them.
NO_ROUND_TRIP = {("cisco_nxos", "n3k")}
# Variants that refuse some policies with a clear reason (render.families, losslessd.render._check_facts).
REFUSED = {("cisco_nxos", "n3k", "roce-dscp26"), ("cisco_nxos", "n3k", "sonic-azure")}
# The Broadcom SKU's own ingress lossless pool (render takes it from the SKU's table).
SKU_POOL = {"broadcom"}


def variants(platform: str) -> list[tuple[str | None, tuple[str, ...]]]:
    return list(VARIANTS.get(platform, ((None, ()),)))


def port_specs(platform: str, variant: str | None = None) -> list[str]:
    names = PORT_NAMES.get(platform, DEFAULT_PORT_NAMES)
    return [f"{name}:{facts}" for name, facts in zip(names, VARIANT_PORT_FACTS.get((platform, variant), PORT_FACTS))]


def cli_args(platform: str, variant: str | None = None) -> list[str]:
    chosen = dict(variants(platform)).get(variant if variant is not None else variants(platform)[0][0], ())
    pool = [] if variant in SKU_POOL else ["--pool-size", str(POOL_BYTES)]
    return [arg for spec in port_specs(platform, variant) for arg in ("--ports", spec)] + pool + list(chosen)


def ethernet_platforms() -> list[str]:
    return [platform for platform in platforms() if platform not in POLICIES_FOR]


def options(platform: str, variant: str | None = None) -> dict[str, str]:
    """The variant's choosing arguments as profile() takes them: {"hwsku": ..., "model": ...}."""
    args = dict(zip(*[iter(dict(variants(platform)).get(variant if variant is not None else
                                                         variants(platform)[0][0], ()))] * 2))
    out = {}
    if "--sku" in args:
        out["hwsku"] = args["--sku"]
    if "--model" in args:
        out["model"] = args["--model"]
    return out


def cases() -> list[tuple[str, str, str | None]]:
    return [(platform, policy, variant) for platform in platforms() for policy in POLICIES_FOR.get(platform, POLICIES)
            for variant, _ in variants(platform) if (platform, variant, policy) not in REFUSED]


def golden_path(platform: str, policy: str, variant: str | None = None) -> Path:
    default = variants(platform)[0][0]
    tail = "" if variant in (None, default) else f".{variant}"
    return GOLDEN / platform / f"{policy}{tail}.{EXTENSIONS[platform]}"


def rendered(platform: str, policy: str, variant: str | None = None) -> str:
    if platform == "opensm":  # parameters from the policy alone (losslessd.render.opensm), no ports
        return render(platform, opensm.profile(load_policy(policy)))
    ports = [parse_port_spec(spec) for spec in port_specs(platform, variant)]
    args = dict(zip(*[iter(cli_args(platform, variant))] * 2))
    pool = int(args["--pool-size"]) if "--pool-size" in args else None
    return render(platform, profile(load_policy(policy), ports, args.get("--sku"), pool_bytes=pool,
                                    model=args.get("--model")))


def main() -> None:
    for platform, policy, variant in cases():
        path = golden_path(platform, policy, variant)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered(platform, policy, variant))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
