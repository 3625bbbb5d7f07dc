"""SYS: inputs that could not be read or fully understood. Reported, never a crash or a silent pass.

SYS900 (a rule that crashed) is the engine's own: losslessd/lint/internal.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

from ..lint.engine import Context
from ..lint.finding import Finding, Severity
from ..lint.registry import Rule, Scope, register
from ..model import Device


class _IssueRule(Rule):
    scope: ClassVar[Scope] = "device"  # SYS001 reports on the fabric
    # a device's issues include those of the LLDP and routing files the topology names
    needs_fabric: ClassVar[bool | Literal["topology"]] = "topology"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for issue in ctx.fabric.issues:
            if issue.code == self.code:
                yield self.finding(issue.message, source=issue.source, key=(issue.source.describe() if issue.source else ""))

    def check_device(self, ctx: Context, device: Device) -> Iterator[Finding]:
        # (run on every device of a fleet, in the parent of a parallel lint: most have no issue to go through)
        return self._issues(ctx, device) if device.issues else iter(())

    def _issues(self, ctx: Context, device: Device) -> Iterator[Finding]:
        for n, issue in enumerate(device.issues):
            if issue.code == self.code:
                yield self.finding(issue.message, device=device, source=issue.source or device.source,
                                   key=f"{issue.source.describe() if issue.source else ''}#{n}")


@register
class InputUnreadable(_IssueRule):
    """An input file gave no device: unreadable, malformed, or of an unknown format.

    ## What it checks
    Every file or folder given to `lint` is read and parsed into a device.

    ## Why it matters
    A device that is silently skipped is a device whose lossless settings nobody checked.

    ## Failing example
    A `config_db.json` with a missing comma:
    `SYS001 invalid JSON: Expecting ',' delimiter (column 5) [config_db.json:12]`.

    ## Passing example
    Every file parses; no SYS001 finding.

    ## Fix
    Repair or re-collect the file the message names (file and line are given), or pass
    `--format` when the platform cannot be told from the content.
    """

    code = "SYS001"
    name = "input-unreadable"
    scope = "fabric"
    severity = Severity.error

    def check(self, ctx: Context) -> Iterator[Finding]:
        yield from _IssueRule.check(self, ctx)
        for device in ctx.fabric.devices.values():
            if device.issues:  # (most of a fleet's devices have none: no generator made for each)
                yield from self._issues(ctx, device)


@register
class PartialParse(_IssueRule):
    """Part of a device file was not understood and was skipped.

    ## What it checks
    Lines, tables or values a parser recognised as QoS-relevant but could not read (a truncated
    block, a malformed map entry, a number that is not a number), and lines that contradict each
    other where the vendor does not say which one applies (a Junos classifier listing one code
    point under two forwarding classes: the later is read, the finding names both; a capture whose header names one
    device and whose configuration's hostname another: the hostname is read, the finding names both; where that
    device is another of the same lint, one finding names both files).

    ## Why it matters
    The rest of the device is still checked, but conclusions about the skipped part are missing.

    ## Failing example
    `pfc_enable: "3,x"` in PORT_QOS_MAP: the priority list cannot be read.

    ## Passing example
    `pfc_enable: "3,4"`.

    ## Fix
    Correct the value at the file and line (or JSON path) given.
    """

    code = "SYS002"
    name = "partial-parse"
    severity = Severity.warning


@register
class UnknownUnit(_IssueRule):
    """A value is written in a unit losslessd does not know or cannot convert here.

    ## What it checks
    Thresholds and timers whose unit is unknown (`5 furlongs`), or that cannot be converted to bytes
    without a fact the input lacks (EOS `segments` without a cell size, `milliseconds` without the
    port speed).

    ## Why it matters
    An unconverted threshold cannot be compared with PFC xoff points or policy ranges.

    ## Failing example
    `random-detect ecn minimum-threshold 320 segments ...` on a platform whose segment size is unknown.

    ## Passing example
    `random-detect ecn minimum-threshold 320 kbytes maximum-threshold 1 mbytes`.

    ## Fix
    Write the threshold in bytes/kbytes/mbytes, or configure the port speed so time units convert.
    """

    code = "SYS003"
    name = "unknown-unit"
    severity = Severity.warning


@register
class InputIncomplete(_IssueRule):
    """The input names settings it does not contain, so what they set is unknown.

    ## What it checks
    References into tables a partial input leaves out (a SONiC `qos.json` whose ports name
    `TC_TO_PRIORITY_GROUP_MAP|AZURE` while the map tables come in another file), and VOQ chassis
    keys (`<host>|<asic>|EthernetN|q`) when the input does not say which line card is this device,
    and a bare `mlnx_qos` output that cannot hold the NIC's MTU, DCQCN switches or RoCE TOS, and a Junos
    `show route` whose routes list equal-cost next hops besides the selected one (which of them the forwarding
    table holds is in `show route forwarding-table`, not there); on a SONiC switch in the traditional buffer
    model, the lossless PGs its buffer manager binds to a profile from the SKU's pg_profile_lookup.ini when
    losslessd does not ship that SKU's table (or a key of the file beside the one it writes), once per switch; a
    SONiC SCHEDULER field orchagent takes from some release on (`cir`, `pir`, `meter_type`) in a config that names
    no release (no `VERSIONS|DATABASE`: a template render), the releases named; a backup of a device's own file
    in its folder (`config_db.json.bak`, `opensm.conf.orig`: the file's name and a suffix), which is not read
    (lint the copy on its own to check it). An info finding: nothing is
    wrong with what was read, but facts depending on it are unknown (the rules that need them say "not in the
    input" rather than guess).

    ## Why it matters
    A missing table is not a wrong setting: reporting it as one (or guessing its content) would make
    correct configs look broken. Saying it keeps the gap visible.

    ## Failing example
    `qos.json` alone, whose `PORT_QOS_MAP|Ethernet0` names `dscp_to_tc_map: AZURE` with no
    DSCP_TO_TC_MAP table: `1 setting(s) name entries of table DSCP_TO_TC_MAP ..., which this input
    does not include`.

    ## Passing example
    `qos.json` and `buffers.json` of one device linted together (a folder), or a whole config_db.json.

    ## Fix
    Lint the device's whole CONFIG_DB (`show runningconfiguration all`, or the folder with every
    file of the device); for a VOQ line card include DEVICE_METADATA (hostname, asic_name).
    """

    code = "SYS004"
    name = "input-incomplete"
    severity = Severity.info
    # a capture's header naming another device is said once for the fleet where that device is of the same lint
    # (fabric._claimed_twice reads every device's): checked where every device is known, never by a worker alone
    needs_fabric = True


class _CollectionRule(Rule):
    """A problem `losslessd pull` met on one device, read back from a snapshot's manifest.json
    (losslessd.collect.manifest_issues puts them in Fabric.issues, naming the device in the source)."""

    scope = "fabric"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for issue in ctx.fabric.issues:
            if issue.code == self.code:
                source = issue.source
                yield self.finding(issue.message, device=source.device if source else None, source=source,
                                   key=(source.command or "") if source else "")


@register
class DeviceUnreachable(_CollectionRule):
    """A device of the inventory could not be reached over SSH (or SNMP), so nothing of it was checked.

    ## What it checks
    `losslessd pull` records every inventory device in the snapshot's manifest; a device whose TCP
    connection was refused, timed out before the SSH handshake, or whose session broke off (after
    the retries with backoff) is reported here.

    ## Why it matters
    A switch missing from the snapshot is a switch whose PFC, ECN and buffers nobody looked at; a
    clean lint of the rest must not read as a clean fabric.

    ## Failing example
    `SYS010 cannot connect to 10.0.0.12:22: Connection refused (after 3 attempts)`.

    ## Passing example
    Every inventory device has `"status": "ok"` in manifest.json.

    ## Fix
    Check the device's address and port in the inventory, that sshd runs, and the path (ACLs,
    management VRF); then pull again.
    """

    code = "SYS010"
    name = "device-unreachable"
    severity = Severity.error


@register
class AuthFailed(_CollectionRule):
    """The device refused the login, so its configuration was not collected.

    ## What it checks
    SSH password (or SNMPv3 user/key) authentication failures during `losslessd pull`. They are
    not retried: a wrong password stays wrong, and retries can lock the account.

    ## Why it matters
    The device was not checked.

    ## Failing example
    `SYS011 10.0.0.12:22 refused the login of user 'admin' (wrong password, user or key; the password
    came from environment variable FABRIC_PASSWORD)`.

    ## Passing example
    The login succeeds and the device's capture is in the snapshot.

    ## Fix
    Set the environment variable or file the inventory's `password_env` / `password_file` names
    to the device's password, or fix `username`.
    """

    code = "SYS011"
    name = "auth-failed"
    severity = Severity.error


@register
class HostKeyRejected(_CollectionRule):
    """The device's SSH host key is not the one known_hosts lists, so losslessd did not log in.

    ## What it checks
    Host keys are verified against `--known-hosts` (default `~/.ssh/known_hosts`) with paramiko's
    RejectPolicy: an unknown key or a key that differs from the recorded one stops the connection
    before the password is sent.

    ## Why it matters
    A changed key means a replaced device or someone in the middle; sending the fleet password to
    it would give it away.

    ## Failing example
    `SYS012 the host key of 10.0.0.12:22 is not in /home/ops/.ssh/known_hosts; add it after checking
    its fingerprint (ssh-keyscan -p 22 10.0.0.12)`.

    ## Passing example
    known_hosts has a `10.0.0.12 ssh-ed25519 AAAA...` line matching the device's key.

    ## Fix
    Check the key's fingerprint out of band, then add it (`ssh-keyscan -p PORT HOST >> known_hosts`)
    or replace the stale entry (`ssh-keygen -R HOST`). `--insecure-no-host-key-check` is for labs only.
    """

    code = "SYS012"
    name = "host-key-rejected"
    severity = Severity.error


@register
class CollectionTimeout(_CollectionRule):
    """The device did not finish answering in time (or the pull was interrupted), or its capture was not saved.

    ## What it checks
    Each attempt at a device (connect, log in, run every command) must finish within `pull
    --timeout` seconds; the session is then cut. A device still pending when a pull is
    interrupted is reported here too, and so is a device whose answers were collected but whose
    capture could not be written into the snapshot (a full disk, a folder that cannot be
    written): `collected but not saved: ...`. The message names the command that was running (or
    that the device was still logging in); the outputs the device gave before it stopped are kept
    in the snapshot's `partial/` folder, which lint does not read (a capture missing commands would
    read as a config missing their settings).

    ## Why it matters
    The device was not checked. A device that answers this slowly may also be overloaded.

    ## Failing example
    `SYS013 10.0.0.12:22 did not finish within 60 s (--timeout) while `show lldp neighbors` ran`.

    ## Passing example
    The device's capture is in the snapshot.

    ## Fix
    Raise `--timeout` for large configurations, or look at the device's CPU and management path;
    then pull again. For a capture not saved, free space on the snapshot's disk (or make its
    folder writable), then pull again.
    """

    code = "SYS013"
    name = "collection-timeout"
    severity = Severity.error


@register
class CommandFailed(_CollectionRule):
    """A command `pull` ran was refused by the device or answered with garbled output.

    ## What it checks
    Each collected output is checked for the platform's error answers (`% Invalid input`,
    `command not found`, `No such file or directory`) and, for commands that print JSON, that it
    parses. The output is kept in the capture as it came, and this finding points at its line.
    A session that stops at a pager prompt (`--More--`) although paging was turned off at login,
    shows a prompt other than the session's (its hostname changed), or is closed by the device
    mid-command is reported here too, naming the command, within seconds instead of at the end of
    `--timeout`.

    ## Why it matters
    Whatever the command would have shown is unknown: the rules that need it report less than they
    should (and SYS002 may say which values are missing).

    ## Failing example
    `SYS014 `show runningconfiguration all` failed: output is not JSON (Expecting value: line 1
    column 1 (char 0)): 'Error: Unable to connect to the CONFIG_DB: redis is not running'; its
    output is kept in the capture`.

    ## Passing example
    Every command answers with its normal output.

    ## Fix
    Give the inventory user the rights the command needs (privileged mode, sudo for `mlnx_qos`),
    install the missing tool, or report the platform's output format if it is new. For a pager,
    turn paging off for the inventory user on the device (terminal length 0 / screen-length 0).
    """

    code = "SYS014"
    name = "command-failed"
    severity = Severity.error


@register
class SnmpV2cInsecure(_CollectionRule):
    """Counters were polled with SNMPv2c, whose community string travels in clear text.

    ## What it checks
    Inventory devices whose `data.snmp.version` is `2c`.

    ## Why it matters
    Anyone on the path reads the community and can poll (or, with a read-write community,
    reconfigure) the device; v2c requests are not authenticated or encrypted.

    ## Failing example
    `data: {snmp: {version: 2c, community_env: SNMP_COMMUNITY}}`.

    ## Passing example
    `data: {snmp: {version: 3, user: losslessd, auth_key_env: SNMP_AUTH, priv_key_env: SNMP_PRIV}}`
    (authPriv with SHA and AES).

    ## Fix
    Configure an SNMPv3 authPriv user on the device and in the inventory.
    """

    code = "SYS015"
    name = "snmp-v2c-insecure"
    severity = Severity.warning
