"""Every rendered line is a command form the platform's configuration reference documents.

Per platform (and command family) a list of accepted forms, each with the document it comes from. Many
policies, port sets (speeds, cables on both sides of 100 m, MTUs) and families are rendered, full and
section by section, and every line must match a form of its platform and family; a template change that
writes a form the reference does not list fails here until the form is added with its source.

Form syntax: `{N}` a whole number, `{D}` a decimal, `{LIST}` numbers joined by commas, `{NAME}` a name token,
`{IF}` an interface name, `{BITS}` a 0/1 code point; anything else is literal.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace
from functools import cache

import pytest

from losslessd import render as rnd
from losslessd.errors import InputError
from losslessd.platforms import PLATFORMS
from losslessd.policy import load_policy
from tests import render_golden

_TOKENS = {"{N}": r"\d+", "{D}": r"\d+(?:\.\d+)?", "{LIST}": r"\d+(?:,\d+)*", "{NAME}": r"[A-Za-z0-9_.:-]+",
           "{IF}": r"[A-Za-z0-9_./:-]+", "{BITS}": r"[01]+"}

# (form, source). A form applies to every family of its platform unless the third item names the families.
EOS_AVD = "Arista AVD eos_cli_config_gen templates"
NXOS_9K = "Cisco Nexus 9000 NX-OS QoS Configuration Guide 10.x"
NXOS_3K = "Cisco Nexus 3000 NX-OS QoS Configuration Guide (and the SDN Nexus 3132 RoCE configuration)"
JUNOS_COS = "Junos OS Class of Service User Guide (QFX)"
NVUE = "NVIDIA Cumulus Linux 5.x NVUE command reference, QoS and Interface"
MLNX = "mlnx-tools python/mlnx_qos options"
ACCEPTED: dict[str, list[tuple]] = {
    "arista_eos": [
        (r"! losslessd (render|fix): .*", "EOS: `!` starts a comment line"),
        ("!", "EOS: `!` separates blocks"),
        ("qos map dscp {NAME}( {N})* to traffic-class {N}", f"{EOS_AVD} qos.j2 (qos map dscp ... to traffic-class)"),
        ("qos map cos( {N})+ to traffic-class {N}", f"{EOS_AVD} qos.j2 (qos map cos ... to traffic-class)"),
        ("qos profile {NAME}", f"{EOS_AVD} qos-profiles.j2"),
        ("   qos trust (dscp|cos)", f"{EOS_AVD} qos-profiles.j2 / ethernet-interfaces.j2 (qos trust)"),
        ("   !", "EOS: `!` inside a block"),
        ("   tx-queue {N}", f"{EOS_AVD} ethernet-interface-tx-queues.j2 (Sand: tx_queues)", {"sand"}),
        ("   uc-tx-queue {N}", f"{EOS_AVD} ethernet-interface-uc-tx-queues.j2 (uc_tx_queues)", {"trident-tomahawk"}),
        ("      no priority", f"{EOS_AVD} tx queues: priority 'no priority'"),
        ("      priority strict", f"{EOS_AVD} tx queues: priority 'priority strict'"),
        ("      random-detect ecn minimum-threshold {N} bytes maximum-threshold {N} bytes max-mark-probability {N}"
         " weight {N}", f"{EOS_AVD} tx queues random_detect.ecn.threshold (units bytes, max_probability, weight)"),
        ("   priority-flow-control on", f"{EOS_AVD} qos-profiles.j2 priority_flow_control.enabled"),
        ("   priority-flow-control priority {N} (no-drop|drop)", f"{EOS_AVD} priority_flow_control.priorities"),
        ("   priority-flow-control pause watchdog", f"{EOS_AVD} priority_flow_control.watchdog.enabled"),
        ("interface {IF}", "EOS interface configuration mode"),
        ("   mtu {N}", f"{EOS_AVD} ethernet-interfaces.j2 (mtu)"),
        ("   speed {N}g", "EOS interface speed"),
        ("   no switchport", f"{EOS_AVD} ethernet-interfaces.j2 (no switchport)"),
        ("   service-profile {NAME}", f"{EOS_AVD} ethernet-interfaces.j2 (service-profile)"),
        ("priority-flow-control pause watchdog default (timeout|recovery-time|polling-interval) {D}",
         f"{EOS_AVD} priority-flow-control.j2 (watchdog timeout, recovery_time, polling_interval)"),
        ("priority-flow-control pause watchdog action (drop|no-drop)", f"{EOS_AVD} priority-flow-control.j2"),
        ("no priority-flow-control pause watchdog action", f"{EOS_AVD} priority-flow-control.j2: no action is the "
         "default errdisable"),
    ],
    "cisco_nxos": [
        (r"! losslessd render: .*", "NX-OS: `!` starts a comment line"),
        ("class-map type qos match-any {NAME}", f"{NXOS_9K}, Configuring Classification"),
        ("  match dscp {LIST}", f"{NXOS_9K}, Configuring Classification (match dscp)"),
        ("  match cos {LIST}", f"{NXOS_9K}, Configuring Classification (match cos)"),
        ("policy-map type qos {NAME}", f"{NXOS_9K}, Configuring Classification"),
        ("  class {NAME}", f"{NXOS_9K}, Configuring Classification"),
        ("    set qos-group {N}", f"{NXOS_9K}, Configuring Classification (set qos-group)"),
        ("policy-map type network-qos {NAME}", f"{NXOS_9K}, Configuring Priority Flow Control"),
        ("  class type network-qos c-8q-nq({N}|-default)", f"{NXOS_9K}, PFC: system-defined network-qos classes",
         {"n9k"}),
        ("    pause pfc-cos {N}", f"{NXOS_9K}, PFC: pause pfc-cos", {"n9k"}),
        ("class-map type network-qos {NAME}", f"{NXOS_3K}: user network-qos classes", {"n3k"}),
        ("  match qos-group {N}", f"{NXOS_3K}: match qos-group", {"n3k"}),
        ("  class type network-qos {NAME}", f"{NXOS_3K}: network-qos classes", {"n3k"}),
        ("    pause no-drop", f"{NXOS_3K}: pause no-drop", {"n3k"}),
        ("    mtu 9216", f"{NXOS_3K} and {NXOS_9K}: network-qos class mtu (classes start at 1500; Cisco's AI/ML "
         "blueprint writes 9216 on c-8q-nq3 and c-8q-nq-default)"),
        ("system qos", f"{NXOS_9K}, system qos"),
        ("  service-policy type network-qos {NAME}", f"{NXOS_9K}, system qos service-policy"),
        ("  service-policy type queuing output {NAME}", f"{NXOS_3K}: system qos queuing policy", {"n3k"}),
        ("class-map type queuing {NAME}", f"{NXOS_3K}: user queuing classes", {"n3k"}),
        ("policy-map type queuing {NAME}", f"{NXOS_9K}, Configuring Queuing and Scheduling"),
        ("  class type queuing c-out-8q-q({N}|-default)", f"{NXOS_9K}, queuing: system-defined classes", {"n9k"}),
        ("  class type queuing c-in-q{N}", f"{NXOS_9K}, PFC: pause buffer thresholds in an ingress queuing policy",
         {"n9k"}),
        ("  class type queuing {NAME}", f"{NXOS_3K}: queuing classes", {"n3k"}),
        ("    priority level {N}", f"{NXOS_9K}, queuing: priority level", {"n9k"}),
        ("    priority", f"{NXOS_3K}: queuing priority", {"n3k"}),
        ("    bandwidth remaining percent {N}", f"{NXOS_9K}, queuing: bandwidth remaining percent", {"n9k"}),
        ("    bandwidth percent {N}", f"{NXOS_3K}: queuing bandwidth percent", {"n3k"}),
        ("    no (priority( level {N})?|bandwidth( remaining)? percent {N})", "fix: the no form of the scheduling line "
         "the device's queuing class holds, word for word (Cisco MQC command references, `priority`: the no form "
         "removes a class's priority; the reader reads `no priority`/`no bandwidth` so)"),
        ("    random-detect minimum-threshold {N} bytes maximum-threshold {N} bytes drop-probability {N} weight {N}"
         " ecn", f"{NXOS_9K}, Configuring WRED on Egress Queues (ECN)", {"n9k"}),
        ("    pause buffer-size {N} pause-threshold {N} resume-threshold {N}",
         f"{NXOS_9K}, PFC: pause buffer thresholds (mandatory for cables above 100 m)"),
        ("priority-flow-control watch-dog interval {N}", f"{NXOS_9K}, PFC watchdog interval"),
        ("priority-flow-control watch-dog shutdown-multiplier {N}", f"{NXOS_9K}, PFC watchdog shutdown multiplier"),
        ("priority-flow-control auto-restore multiplier {N}", f"{NXOS_9K}, PFC watchdog auto-restore multiplier "
                                                              "(top-level)"),
        ("interface {IF}", f"{NXOS_9K}, interface configuration"),
        ("  speed {N}", "NX-OS interface speed (Mb/s)"),
        ("  mtu {N}", "NX-OS interface mtu"),
        ("  no switchport", "NX-OS routed interface"),
        ("  priority-flow-control mode (on|off)", f"{NXOS_9K}, PFC: priority-flow-control mode"),
        ("  priority-flow-control watch-dog-interval (on|off)", f"{NXOS_9K}, PFC watchdog per interface"),
        ("  service-policy type qos input {NAME}", f"{NXOS_9K}, service-policy type qos input"),
        ("  service-policy type queuing (input|output) {NAME}", f"{NXOS_9K}, service-policy type queuing"),
        ("  no service-policy type (qos input|queuing input|queuing output|network-qos) {NAME}",
         f"{NXOS_9K}, Attaching and Detaching a QoS Policy Action (the no form detaches)"),
    ],
    "juniper_junos": [
        (r"# losslessd render: .*", "Junos: `#` starts a comment in load set input"),
        (r"# before loading, where the switch has it \(not known without --device\): delete class-of-service .*",
         "Junos: `#` starts a comment in load set input (a delete to run by hand, docs/render.md)"),
        ("set interfaces {IF} mtu {N}", "Junos interfaces mtu (media MTU)"),
        ("set interfaces {IF} speed {N}g", "Junos interfaces speed"),
        ("set class-of-service forwarding-classes class {NAME} queue-num {N}", f"{JUNOS_COS}, forwarding-classes"),
        ("set class-of-service forwarding-classes class {NAME} no-loss", f"{JUNOS_COS}, no-loss forwarding class"),
        ("set class-of-service forwarding-classes class {NAME} pfc-priority {N}", f"{JUNOS_COS}, pfc-priority"),
        ("delete class-of-service classifiers dscp {NAME}", "Junos CLI User Guide, `load set`: `delete` removes "
                                                             "a statement (one not there: a warning)"),
        ("delete class-of-service classifiers ieee-802.1 {NAME}", "Junos CLI User Guide, `load set`: `delete` "
                                                                   "removes a statement"),
        (r"set class-of-service classifiers ieee-802.1 {NAME} forwarding-class {NAME} loss-priority low code-points "
         r"\[( {BITS})+ \]", f"{JUNOS_COS}, IEEE 802.1p classifiers"),
        ("set class-of-service interfaces {IF} unit 0 classifiers ieee-802.1 {NAME}",
         f"{JUNOS_COS}, classifier binding"),
        ("delete class-of-service interfaces {IF} unit 0 classifiers (dscp|dscp-ipv6)",
         "Junos CLI User Guide, `load set`: `delete` removes a statement (a unit's DSCP classifiers, to trust 802.1p)"),
        ("delete class-of-service interfaces {IF} classifiers (dscp|dscp-ipv6|ieee-802.1)",
         "Junos CLI User Guide, `load set`: `delete` removes a statement; Junos CoS guide, \"Classifiers and Rewrite "
         "Rules at the Global, Physical, and Logical Interface Levels\": `classifiers` at [edit class-of-service "
         "interfaces interface-name] (the interface's own classifier, beside the unit's one the snippet binds)"),
        (r"set class-of-service classifiers dscp {NAME} forwarding-class {NAME} loss-priority low code-points "
         r"\[( {BITS})+ \]", f"{JUNOS_COS}, DSCP classifiers"),
        ("set class-of-service interfaces {IF} unit 0 classifiers dscp {NAME}", f"{JUNOS_COS}, classifier binding"),
        ("set class-of-service congestion-notification-profile {NAME} input dscp code-point {BITS} pfc",
         f"{JUNOS_COS}, DSCP-based PFC"),
        ("set class-of-service congestion-notification-profile {NAME} input ieee-802.1 code-point {BITS} pfc",
         f"{JUNOS_COS}, congestion-notification-profile input ieee-802.1 (PFC on an 802.1p code point)"),
        ("set class-of-service congestion-notification-profile {NAME} input cable-length {N}",
         f"{JUNOS_COS}, cable-length (Congestion Notification)"),
        ("set class-of-service congestion-notification-profile {NAME} output ieee-802.1 code-point {BITS} "
         "flow-control-queue {N}", f"{JUNOS_COS}, output congestion notification flow-control-queue"),
        ("set class-of-service congestion-notification-profile {NAME} pfc-watchdog "
         "(poll-interval|detection|recovery) {N}", f"{JUNOS_COS}, pfc-watchdog"),
        ("set class-of-service congestion-notification-profile {NAME} pfc-watchdog watchdog-action (drop|forward)",
         "Junos AI-ML data center guide, PFC Watchdog (drop or forward)"),
        ("set class-of-service interfaces {IF} congestion-notification-profile {NAME}", f"{JUNOS_COS}, CNP binding"),
        (r"set class-of-service drop-profiles {NAME} interpolate fill-level \[ {N} {N} \]",
         f"{JUNOS_COS}, drop-profiles interpolate"),
        (r"set class-of-service drop-profiles {NAME} interpolate drop-probability \[ {N} {N} \]",
         f"{JUNOS_COS}, drop-profiles interpolate"),
        ("set class-of-service schedulers {NAME} priority (low|strict-high)", f"{JUNOS_COS}, schedulers priority"),
        ("set class-of-service schedulers {NAME} buffer-size temporal {N}",
         f"{JUNOS_COS}, buffer-size (Schedulers): temporal on QFX10000 and PTX", {"qfx10000-ptx"}),
        ("set class-of-service schedulers {NAME} explicit-congestion-notification", f"{JUNOS_COS}, ECN"),
        ("set class-of-service schedulers {NAME} drop-profile-map loss-priority low protocol any drop-profile {NAME}",
         f"{JUNOS_COS}, drop-profile-map"),
        ("set class-of-service scheduler-maps {NAME} forwarding-class {NAME} scheduler {NAME}",
         f"{JUNOS_COS}, scheduler-maps"),
        ("set class-of-service interfaces {IF} scheduler-map {NAME}", f"{JUNOS_COS}, scheduler-map binding"),
    ],
    "nvidia_cumulus": [
        (r"# losslessd render: .*", "NVUE command files: `#` comments"),
        ("nv set interface {IF} link speed (1|10|25|40|50|100|200|400|800)G",
         f"{NVUE}: interface link speed (auto|10M|100M|1G|10G|25G|40G|50G|100G|200G|400G|800G), `nv list-commands`"),
        ("nv set interface {IF} link mtu {N}", f"{NVUE}: interface link mtu"),
        ("nv set qos mapping default-global trust (l2|l3)", f"{NVUE}: qos mapping trust"),
        ("nv set qos mapping default-global dscp {LIST} switch-priority {N}", f"{NVUE}: qos mapping dscp"),
        ("nv set qos egress-queue-mapping default-global switch-priority {N} traffic-class {N}",
         f"{NVUE}: egress-queue-mapping"),
        ("nv set qos traffic-pool (default-lossless|default-lossy) memory-percent {N}",
         f"{NVUE}: qos traffic-pool memory-percent (QoS guide, Flow Control Buffers)"),
        ("nv set qos pfc {NAME} switch-priority {LIST}", f"{NVUE}: qos pfc switch-priority"),
        ("nv set qos pfc {NAME} cable-length {N}", f"{NVUE}: qos pfc cable-length"),
        ("nv set interface {IF} qos pfc profile {NAME}", f"{NVUE}: interface qos pfc profile"),
        ("nv set qos egress-scheduler default-global traffic-class {LIST} mode (strict|dwrr)",
         f"{NVUE}: egress-scheduler (QoS guide, Egress Scheduler: strict or DWRR)"),
        ("nv set qos congestion-control {NAME} traffic-class {LIST} ecn enable", f"{NVUE}: congestion-control ecn"),
        ("nv set qos congestion-control {NAME} traffic-class {LIST} (min-threshold|max-threshold|probability) {N}",
         f"{NVUE}: congestion-control thresholds"),
        ("nv set interface {IF} qos congestion-control profile {NAME}", f"{NVUE}: interface congestion-control"),
        ("nv set qos pfc-watchdog (polling-interval|robustness) {N}", f"{NVUE}: qos pfc-watchdog (5.6+)"),
        ("nv set interface {IF} qos pfc-watchdog state (enable|disable)", f"{NVUE}: interface pfc-watchdog"),
    ],
    "linux_mlx5": [
        ("#!/bin/bash", "bash script"),
        ("set -eu", "bash set builtin"),
        ("", "blank line"),
        (r"# .*", "shell comment"),
        ("ip link set dev {IF} mtu {N}", "iproute2 ip-link(8)"),
        ("mlnx_qos -i {IF} --trust (dscp|pcp)", f"{MLNX}: --trust"),
        (r"mlnx_qos -i {IF}( --dscp2prio set,{N},{N})+", f"{MLNX}: --dscp2prio set,DSCP,PRIO (repeatable)"),
        ("mlnx_qos -i {IF} --pfc [01](,[01]){7} --cable_len {N}", f"{MLNX}: --pfc, --cable_len"),
        ("mlnx_qos -i {IF} --buffer_size {N}(,{N}){7}", f"{MLNX}: --buffer_size (8 sizes)"),
        ("mlnx_qos -i {IF} --prio2buffer [0-7](,[0-7]){7}", f"{MLNX}: --prio2buffer"),
        (r'cma_roce_tos -d "\$\(ls /sys/class/net/{IF}/device/infiniband\)" -t {N}', "mlnx-tools sbin/cma_roce_tos"),
        (r'echo {N} > "/sys/class/infiniband/\$\(ls /sys/class/net/{IF}/device/infiniband\)/tc/1/traffic_class"',
         "MLNX_OFED user manual: RoCE traffic class (/sys/class/infiniband/DEV/tc/PORT/traffic_class)"),
        ("ethtool -A {IF} autoneg off rx off tx off", "ethtool(8) -A/--pause"),
        ("echo [01] > /sys/class/net/{IF}/ecn/(roce_np|roce_rp)/enable/[0-7]",
         "MLNX_OFED user manual: Explicit Congestion Notification (ecn/roce_np|roce_rp/enable/N)"),
        ("echo {N} > /sys/class/net/{IF}/ecn/roce_np/(cnp_dscp|cnp_802p_prio)",
         "MLNX_OFED user manual: ECN roce_np cnp_dscp, cnp_802p_prio"),
    ],
}
# SONiC CONFIG_DB: table -> (key form, {field: value form}) (sonic-buildimage src/sonic-yang-models/doc/
# Configuration.md; PFC_PRIORITY_TO_PRIORITY_GROUP_MAP and pfc_to_pg_map as qos_config.j2 writes them on Mellanox).
_NUM = r"\d+"
# A reference is the entry's name alone: orchagent refuses `[TABLE|name]` from SONiC 202111 on (sonic-swss orch.cpp
# parseReference, pull request 1754), never applying the entry.
_REF = r"[A-Za-z0-9_.-]+"  # (.format(TABLE) leaves it as is)
SONIC: dict[str, tuple[str, dict[str, str]]] = {
    "PORT": (r"Ethernet\d+", {"speed": _NUM, "mtu": _NUM}),
    "CABLE_LENGTH": (r"AZURE", {r"Ethernet\d+": r"\d+(\.\d+)?m"}),
    "DSCP_TO_TC_MAP": (r"[A-Z_]+", {_NUM: r"[0-7]"}),
    "DOT1P_TO_TC_MAP": (r"[A-Z_]+", {r"[0-7]": r"[0-7]"}),
    "TC_TO_PRIORITY_GROUP_MAP": (r"[A-Z_]+", {_NUM: r"[0-7]"}),
    "TC_TO_QUEUE_MAP": (r"[A-Z_]+", {_NUM: r"[0-7]"}),
    "MAP_PFC_PRIORITY_TO_QUEUE": (r"[A-Z_]+", {_NUM: r"[0-7]"}),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": (r"[A-Z_]+", {_NUM: r"[0-7]"}),
    "PORT_QOS_MAP": (r"Ethernet\d+", {"dscp_to_tc_map": "LOSSLESS", "dot1p_to_tc_map": "LOSSLESS",
                                      "tc_to_pg_map": "LOSSLESS",
                                      "tc_to_queue_map": "LOSSLESS", "pfc_to_queue_map": "LOSSLESS",
                                      "pfc_to_pg_map": "LOSSLESS", "pfc_enable": r"\d(,\d)*",
                                      "pfcwd_sw_enable": r"\d(,\d)*"}),
    "SCHEDULER": (r"scheduler\.[a-z]+", {"type": "DWRR|STRICT", "weight": _NUM}),
    "WRED_PROFILE": (r"[A-Z_0-9]+", {"wred_(green|yellow|red)_enable": "true", "ecn": "ecn_all",
                                     "(green|yellow|red)_(min|max)_threshold": _NUM,
                                     "(green|yellow|red)_drop_probability": _NUM}),
    "QUEUE": (r"Ethernet\d+\|[0-7]", {"scheduler": _REF.format("SCHEDULER"),
                                      "wred_profile": _REF.format("WRED_PROFILE")}),
    # (egress pools and profiles: the SKU's stock buffers_defaults a patch restates to bind lossless queues outside 3-4;
    # NVIDIA SKUs keep lossy queues on q_lossy_profile, sonic-buildimage ACS-MSN2700/buffers_defaults_objects.j2)
    "BUFFER_POOL": (r"ingress_lossless_pool|egress_lossless_pool|egress_lossy_pool",
                    {"type": "ingress|egress", "mode": "dynamic|static", "size": _NUM, "xoff": _NUM}),
    "BUFFER_PROFILE": (r"pg_lossless_\d+_[\d.]+m(_mtu\d+)?(_8lane)?_profile|egress_lossless_profile|"
                       r"egress_lossy_profile|q_lossy_profile",
                       {"pool": "ingress_lossless_pool|egress_lossless_pool|egress_lossy_pool", "xon": _NUM,
                        "xon_offset": _NUM, "xoff": _NUM, "size": _NUM, "dynamic_th": r"-?\d+", "static_th": _NUM}),
    "BUFFER_QUEUE": (r"Ethernet\d+\|[0-7](-[0-7])?",
                     {"profile": "egress_lossless_profile|egress_lossy_profile|q_lossy_profile"}),
    "BUFFER_PG": (r"Ethernet\d+\|[0-7]", {"profile": r"pg_lossless_\d+_[\d.]+m(_mtu\d+)?(_8lane)?_profile"}),
    "PFC_WD": (r"Ethernet\d+|GLOBAL", {"action": "drop|forward|alert", "detection_time": _NUM,
                                       "restoration_time": _NUM, "POLL_INTERVAL": _NUM}),
}


@cache
def _compiled(platform: str) -> list[tuple[re.Pattern, str, set | None]]:
    out = []
    for entry in ACCEPTED[platform]:
        form, source, families = (*entry, None) if len(entry) == 2 else entry
        pattern = form
        for token, regex in _TOKENS.items():
            pattern = pattern.replace(token, regex)
        out.append((re.compile(pattern + r"\Z"), source, families))
    return out


def unlisted_lines(platform: str, family: str | None, text: str) -> list[str]:
    bad = []
    for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
        if not any(p.match(line) and (fams is None or family in fams) for p, _, fams in _compiled(platform)):
            bad.append(line)
    return bad


def unlisted_sonic(text: str) -> list[str]:
    bad = []
    for table, rows in json.loads(text).items():
        if table not in SONIC:
            bad.append(f"table {table}")
            continue
        key_form, fields = SONIC[table]
        for key, row in rows.items():
            if not re.fullmatch(key_form, key):
                bad.append(f"{table}|{key}")
            for field, value in (row or {}).items():  # (null: `config load` deletes the key)
                if not any(re.fullmatch(f, field) and re.fullmatch(v, str(value)) for f, v in fields.items()):
                    bad.append(f"{table}|{key} {field}={value}")
    return bad


PORT_SETS = [
    ("100G:5m:9100",),
    ("400G:300m:9216", "25G:3m:1500", "800G:2m:9100"),
    ("200G:150m:4200", "100G:40m:9100", "400G:5m:9100"),
]
POLICIES = list(render_golden.POLICIES)


@cache
def _policy(name: str):
    return load_policy(name)


def _renders(platform: str):
    names = render_golden.PORT_NAMES.get(platform, render_golden.DEFAULT_PORT_NAMES) + ("Ethernet12", "Ethernet16")
    for (variant, _), policy, ports in itertools.product(render_golden.variants(platform), POLICIES, PORT_SETS):
        facts = [rnd.parse_port_spec(f"{name}:{spec}") for name, spec in zip(names, ports)]
        # Each platform's largest MTU stands for 9216 where it takes less (EOS 9214, Junos 9202 + 14).
        top = (PLATFORMS[platform].limits.mtu_bytes or (0, 9216))[1]
        facts = [replace(f, mtu_bytes=min(f.mtu_bytes, top)) if f.mtu_bytes else f for f in facts]
        opts = render_golden.options(platform, variant)
        try:
            prof = rnd.profile(_policy(policy), facts, pool_bytes=render_golden.POOL_BYTES, **opts)
            family = rnd.families.resolve(platform, prof.model, prof.family)
            yield variant, family, policy, rnd.render(platform, prof)
            if ports is PORT_SETS[-1]:  # what `fix` renders: one section at a time
                for section in sorted(rnd.SECTIONS):
                    yield variant, family, policy, rnd.render(platform, rnd.restrict(prof, {section}))
        except InputError as exc:
            # The refusals a complete set of facts can meet: ECN that would mark after PFC, ECN on the Nexus 3000,
            # a speed or cable length the SKU's own table lists no row for, a speed the family has no port for.
            assert ("before PFC" in str(exc) or "no verified Nexus 3000 command for ECN" in str(exc)
                    or "Mb/s row" in str(exc) or "only up to" in str(exc)
                    or "is no port speed cisco_nxos n3k takes" in str(exc)), str(exc)


@pytest.mark.parametrize("platform", [p for p in rnd.platforms() if p not in ("opensm",)])
def test_every_rendered_line_is_an_accepted_form(platform):
    checked = 0
    for variant, family, policy, text in _renders(platform):
        bad = unlisted_sonic(text) if platform == "sonic" else unlisted_lines(platform, family, text)
        assert bad == [], f"{platform} {variant} {policy}: not in the accepted forms: {bad[:5]}"
        checked += 1
    assert checked > 20


def test_every_accepted_form_cites_a_source():
    for platform, entries in ACCEPTED.items():
        for entry in entries:
            assert entry[1] and len(entry[1]) > 8, (platform, entry)


@pytest.mark.parametrize(("platform", "family", "line"), [
    ("arista_eos", "sand", "   uc-tx-queue 3"),  # Sand switches have no unicast queue keyword
    ("arista_eos", "trident-tomahawk", "   tx-queue 3"),
    ("cisco_nxos", "n9k", "priority-flow-control watch-dog auto-restore-multiplier 2"),  # not a command: top-level
    ("juniper_junos", "qfx5000", "set class-of-service schedulers s buffer-size temporal 100"),
    ("cisco_nxos", "n3k", "    pause pfc-cos 3"),
    ("linux_mlx5", None, "mlnx_qos -i eth0 --buffer_size 1,2"),
])
def test_forms_a_device_rejects_are_not_accepted(platform, family, line):
    """The checker itself tells the forms apart (a form is accepted only for its family)."""
    assert unlisted_lines(platform, family, line + "\n") == [line]


def test_sonic_checker_rejects_an_unknown_field():
    assert unlisted_sonic('{"BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {"headroom": "1"}}}') == \
        ["BUFFER_PROFILE|pg_lossless_100000_5m_profile headroom=1"]
