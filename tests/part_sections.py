"""Which profile section each rendered statement belongs to, read from the statement itself (the vendor's command, not
the template's branch), so a test can check that a fix's part writes only what its sections are about: a SAFE part
(watchdog, ECN, scheduler, buffer, TOS, timers) must not carry a classifier, a PFC code point or a trust change
(render.DISRUPTIVE_SECTIONS), whatever the template's `wants` conditions say.

Per platform a list of (form, sections): the form in tests/test_render_accepted.py's syntax, the sections a statement
of that form is about; sections None for a block header or a comment, which changes nothing alone. A form names
several sections where one statement serves them all (a Junos scheduler-map holds both the scheduler and ECN; the
platform documents which command that is in tests/test_render_accepted.ACCEPTED). A line no form matches is returned
as unclassified: a new template form needs its section here.
"""

from __future__ import annotations

import json
import re
from functools import cache

from losslessd.platforms import PLATFORMS
from losslessd.render import DISRUPTIVE_SECTIONS
from tests.test_render_accepted import _TOKENS

_SCHED_ECN = frozenset({"scheduler", "ecn"})

FORMS: dict[str, list[tuple[str, frozenset[str] | None]]] = {
    "arista_eos": [
        (r"!.*", None),
        (r"\s+!", None),
        ("interface {IF}", None),
        ("qos profile {NAME}", None),
        (r"   (uc-)?tx-queue {N}", None),
        (r"qos map (dscp|cos)( {N})+ to traffic-class {N}", frozenset({"maps"})),
        ("   qos trust (dscp|cos)", frozenset({"trust"})),
        ("      (no priority|priority strict)", frozenset({"scheduler"})),
        ("      random-detect ecn .*", frozenset({"ecn"})),
        ("   priority-flow-control (on|priority {N} (no-drop|drop))", frozenset({"pfc"})),
        ("   priority-flow-control pause watchdog", frozenset({"watchdog"})),
        ("(no )?priority-flow-control pause watchdog .*", frozenset({"watchdog"})),
        ("   (mtu {N}|speed {N}g|no switchport)", frozenset({"ports"})),
        # (a full render's binding of its qos profile, every section's lines)
        ("   service-profile {NAME}", None),
    ],
    "cisco_nxos": [
        (r"!.*", None),
        ("(interface {IF}|system qos)", None),
        ("(class-map|policy-map) type qos( match-any)? {NAME}", frozenset({"maps", "trust"})),
        ("  (match (dscp|cos) {LIST}|class {NAME})", frozenset({"maps", "trust"})),
        ("    set qos-group {N}", frozenset({"maps", "trust"})),
        ("policy-map type network-qos {NAME}", frozenset({"pfc", "maps"})),
        ("class-map type network-qos {NAME}", frozenset({"pfc", "maps"})),
        ("  (class type network-qos {NAME}|match qos-group {N})", frozenset({"pfc", "maps"})),
        ("    (pause pfc-cos {N}|pause no-drop|mtu {N})", frozenset({"pfc", "maps"})),
        ("  (no )?service-policy type network-qos {NAME}", frozenset({"pfc", "maps"})),
        # An egress queuing policy holds the queues' weights and their WRED ECN (Platform.ecn_in_scheduler); an
        # ingress one (c-in-qN) the pause buffers of long cables.
        ("(class-map|policy-map) type queuing {NAME}", None),
        ("  class type queuing c-in-q{N}", frozenset({"buffer"})),
        ("  class type queuing {NAME}", None),
        ("    (no )?(priority( level {N})?|bandwidth( remaining)? percent {N})", _SCHED_ECN),
        ("    random-detect .* ecn", _SCHED_ECN),
        ("    pause buffer-size {N} pause-threshold {N} resume-threshold {N}", frozenset({"buffer"})),
        ("  (no )?service-policy type queuing output {NAME}", _SCHED_ECN),
        ("  (no )?service-policy type queuing input {NAME}", frozenset({"buffer"})),
        ("  (no )?service-policy type qos input {NAME}", frozenset({"maps", "trust"})),
        ("priority-flow-control (watch-dog|auto-restore) .*", frozenset({"watchdog"})),
        ("  priority-flow-control watch-dog-interval (on|off)", frozenset({"watchdog"})),
        ("  priority-flow-control mode (on|off)", frozenset({"pfc"})),
        ("  (speed {N}|mtu {N}|no switchport)", frozenset({"ports"})),
    ],
    "juniper_junos": [
        (r"#.*", None),
        ("set interfaces {IF} (mtu|speed) .*", frozenset({"ports"})),
        # (a class of the snippet's own on its queue: nothing is classified into it but by a classifier)
        ("set class-of-service forwarding-classes class {NAME} queue-num {N}", None),
        ("set class-of-service forwarding-classes class {NAME} (no-loss|pfc-priority {N})",
         frozenset({"pfc", "maps", "trust"})),
        ("(set|delete) class-of-service classifiers .*", frozenset({"maps", "trust"})),
        ("(set|delete) class-of-service interfaces {IF} unit 0 classifiers .*", frozenset({"maps", "trust"})),
        ("set class-of-service congestion-notification-profile {NAME} (input|output) .*", frozenset({"pfc", "trust"})),
        ("set class-of-service interfaces {IF} congestion-notification-profile {NAME}", frozenset({"pfc", "trust"})),
        ("set class-of-service congestion-notification-profile {NAME} pfc-watchdog .*", frozenset({"watchdog"})),
        ("set class-of-service drop-profiles .*", frozenset({"ecn"})),
        ("set class-of-service schedulers {NAME} (buffer-size .*|explicit-congestion-notification|drop-profile-map .*)",
         frozenset({"ecn"})),
        ("set class-of-service schedulers {NAME} .*", _SCHED_ECN),
        ("set class-of-service scheduler-maps .*", _SCHED_ECN),
        ("set class-of-service interfaces {IF} scheduler-map {NAME}", _SCHED_ECN),
    ],
    "nvidia_cumulus": [
        (r"#.*", None),
        ("nv set interface {IF} link (speed|mtu) .*", frozenset({"ports"})),
        ("nv set qos mapping default-global trust .*", frozenset({"trust"})),
        ("nv set qos (mapping default-global dscp|egress-queue-mapping) .*", frozenset({"maps"})),
        ("nv set qos roce mode .*", frozenset({"pfc"})),
        ("nv set qos pfc {NAME} switch-priority {LIST}", frozenset({"pfc"})),
        ("nv set qos traffic-pool .*", frozenset({"buffer"})),
        ("nv set qos pfc {NAME} cable-length {N}", frozenset({"buffer"})),
        # (a profile of the snippet's own bound in place of the port's: its switch-priority list is the port's PFC)
        ("nv set interface {IF} qos pfc profile {NAME}", frozenset({"pfc", "buffer"})),
        ("nv set qos egress-scheduler .*", frozenset({"scheduler"})),
        ("nv set (qos|interface {IF} qos) congestion-control .*", frozenset({"ecn"})),
        ("nv set (qos|interface {IF} qos) pfc-watchdog .*", frozenset({"watchdog"})),
    ],
    "linux_mlx5": [
        (r"(#.*|set -eu|)", None),
        ("ip link set dev {IF} mtu {N}", frozenset({"ports"})),
        ("mlnx_qos -i {IF} --trust .*", frozenset({"trust"})),
        ("dcb app flush dev {IF} dscp-prio", frozenset({"trust"})),
        ("mlnx_qos -i {IF} --dscp2prio .*", frozenset({"maps"})),
        ("dcb app replace dev {IF} dscp-prio .*", frozenset({"maps", "trust"})),
        ("ethtool -A {IF} .*", frozenset({"pfc"})),
        ("dcb pfc set dev {IF} prio-pfc .*", frozenset({"pfc"})),
        # (one DCB call sets PFC and the cable length the driver sizes its buffers by: both sections)
        ("mlnx_qos -i {IF} --pfc .* --cable_len {N}", frozenset({"pfc", "buffer"})),
        ("mlnx_qos -i {IF} --(buffer_size|prio2buffer) .*", frozenset({"buffer"})),
        ("dcb buffer set dev {IF} .*", frozenset({"buffer"})),
        ("(cma_roce_tos .*|echo {N} > .*/(traffic_class|default_roce_tos)\"?)", frozenset({"tos"})),
        ("echo {N} > /sys/class/net/{IF}/ecn/.*", frozenset({"ecn"})),
    ],
}
# SONiC CONFIG_DB: table (or "TABLE field") -> sections.
SONIC: dict[str, frozenset[str]] = {
    "PORT": frozenset({"ports"}), "CABLE_LENGTH": frozenset({"ports", "buffer"}),
    "DSCP_TO_TC_MAP": frozenset({"maps", "trust"}), "DOT1P_TO_TC_MAP": frozenset({"maps", "trust"}),
    "TC_TO_PRIORITY_GROUP_MAP": frozenset({"maps"}), "TC_TO_QUEUE_MAP": frozenset({"maps"}),
    "MAP_PFC_PRIORITY_TO_QUEUE": frozenset({"maps"}), "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": frozenset({"maps"}),
    "PORT_QOS_MAP dscp_to_tc_map": frozenset({"maps", "trust"}),
    "PORT_QOS_MAP dot1p_to_tc_map": frozenset({"maps", "trust"}),
    "PORT_QOS_MAP tc_to_pg_map": frozenset({"maps"}), "PORT_QOS_MAP tc_to_queue_map": frozenset({"maps"}),
    "PORT_QOS_MAP pfc_to_queue_map": frozenset({"maps"}), "PORT_QOS_MAP pfc_to_pg_map": frozenset({"maps"}),
    "PORT_QOS_MAP pfc_enable": frozenset({"pfc"}), "PORT_QOS_MAP pfcwd_sw_enable": frozenset({"watchdog"}),
    "SCHEDULER": frozenset({"scheduler"}), "QUEUE scheduler": frozenset({"scheduler"}),
    "WRED_PROFILE": frozenset({"ecn"}), "QUEUE wred_profile": frozenset({"ecn"}),
    "BUFFER_POOL": frozenset({"buffer"}), "BUFFER_PROFILE": frozenset({"buffer"}),
    "BUFFER_QUEUE": frozenset({"buffer"}), "BUFFER_PG": frozenset({"buffer"}),
    "PFC_WD": frozenset({"watchdog"}),
}


@cache
def _compiled(platform: str) -> list[tuple[re.Pattern, frozenset[str] | None]]:
    out = []
    for form, sections in FORMS[platform]:
        for token, regex in _TOKENS.items():
            form = form.replace(token, regex)
        out.append((re.compile(form + r"\Z"), sections))
    return out


# mlnx_qos states PFC with every cable length: the PFC it restates (the NIC's own) is no PFC change.
_MLNX_PFC = re.compile(r"mlnx_qos -i (\S+) --pfc ([01](?:,[01]){7}) --cable_len \d+\Z")


def statements(platform: str, snippet: str, pfc_now: dict[str, set[int]] | None = None,
               ) -> list[tuple[str, frozenset[str] | None]]:
    """Each statement of ``snippet`` with the sections it is about (None: a header or comment); sections
    frozenset({"?"}) for a statement no form knows. ``pfc_now``: each port's PFC priorities on the device, which
    a statement that restates them does not change."""
    if platform == "sonic":
        return _sonic(snippet)
    out = []
    for line in snippet.splitlines():
        found = next((sections for pattern, sections in _compiled(platform) if pattern.match(line)), frozenset({"?"}))
        restated = _MLNX_PFC.match(line) if platform == "linux_mlx5" else None
        if restated and restated[1] in (pfc_now or {}) and pfc_now[restated[1]] == {
                prio for prio, on in enumerate(restated[2].split(",")) if on == "1"}:
            found = frozenset({"buffer"})
        out.append((line, found))
    return out


def _sonic(snippet: str) -> list[tuple[str, frozenset[str] | None]]:
    """A CONFIG_DB fragment's fields, or an RFC 6902 patch's operations (paths /TABLE/key/field), by table and field."""
    doc = json.loads(snippet)
    fields: list[tuple[str, str, str | None]] = []
    if isinstance(doc, list):  # (a patch: fix/apply.py sonic_snippet)
        for op in doc:
            path = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
            value = op.get("value")
            if len(path) == 2 and isinstance(value, dict):
                fields += [(path[0], path[1], name) for name in value]
            else:
                fields.append((path[0], path[1] if len(path) > 1 else "", path[2] if len(path) > 2 else None))
    else:
        for table, rows in doc.items():
            for key, row in (rows or {}).items():
                fields += [(table, key, name) for name in (row or {None: None})]
    out = []
    for table, key, name in fields:
        sections = SONIC.get(f"{table} {name}", SONIC.get(table, frozenset({"?"})))
        out.append((f"{table}|{key} {name or ''}".rstrip(), sections))
    return out


def outside(platform: str, snippet: str, sections: frozenset[str] | set[str], safe: bool,
            pfc_now: dict[str, set[int]] | None = None) -> list[str]:
    """The statements of ``snippet`` about none of ``sections``, or, in a ``safe`` part, about a disruptive section
    too (each with what it is about). Where a platform's ECN lives in its scheduler (Platform.ecn_in_scheduler: the
    NX-OS queuing policy, the Junos scheduler-map) a scheduler section writes the ECN with it (docs/fix.md)."""
    sections = set(sections)
    if "scheduler" in sections and PLATFORMS[platform].ecn_in_scheduler:
        sections.add("ecn")
    return [f"{line}  [{', '.join(sorted(about))}]" for line, about in statements(platform, snippet, pfc_now)
            if about is not None and (not about & sections or (safe and about & DISRUPTIVE_SECTIONS))]
