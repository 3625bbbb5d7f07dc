"""A device's own secrets (SNMP communities, SNMPv3 keys, TACACS+ keys, password hashes) in its running config never
reach what `pull` writes: the captures, the session logs, and the lint reports quoting a capture's lines. A pull of
the simulator, whose configs were given such secrets as EOS and SONiC print them, then a search of every file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from losslessd.collect import MASK
from tests.peers import FABRIC
from tests.workmeter import work

# As EOS prints them (EOS User Manual, "SNMP" and "User Security": `snmp-server community NAME ro`, `snmp-server user
# NAME GROUP v3 auth sha KEY priv aes KEY`, `username NAME secret sha512 HASH`, `tacacs-server key 7 KEY`).
EOS_LINES = ["snmp-server community Eos-C0mm-RO ro", "snmp-server user ops netops v3 auth sha Eos-AuthK3y priv aes "
             "Eos-PrivK3y", "username ops privilege 15 role network-admin secret sha512 $6$Eos-Hash-77",
             "tacacs-server host 192.0.2.9 key 7 Eos-TacK3y-0A",
             # EOS User Manual `snmp-server host HOST [informs|traps] [version 1|2c] COMMUNITY`: no version (v1)
             "snmp-server host 192.0.2.5 Eos-TrapC0mm",
             # free text (EOS `banner motd`, its text up to `EOF`): no grammar says which word is the secret
             "banner motd", "Lab spine. Break-glass password: Eos-Br3akGlass (ask NOC)", "EOF"]
# As SONiC's CONFIG_DB holds them (sonic-buildimage YANG sonic-snmp SNMP_COMMUNITY, sonic-system-tacacs TACPLUS
# passkey, sonic-snmp SNMP_USER SNMP_USER_AUTH_PASSWORD / SNMP_USER_ENCRYPTION_PASSWORD).
SONIC_TABLES = {"SNMP_COMMUNITY": {"Sonic-C0mm-RO": {"TYPE": "RO"}},
                "TACPLUS": {"global": {"auth_type": "pap", "passkey": "Sonic-TacK3y"}},
                # sonic-net/SONiC doc/ntp/ntp-design.md: `NTP_KEY|<id>` `value` is the key (base64)
                "NTP_KEY": {"1": {"type": "md5", "value": "U29uaWMtTnRwSzN5", "trusted": "yes"}},
                "SNMP_USER": {"ops": {"SNMP_USER_TYPE": "Priv", "SNMP_USER_AUTH_PASSWORD": "Sonic-AuthK3y",
                                      "SNMP_USER_ENCRYPTION_PASSWORD": "Sonic-PrivK3y"}}}
SECRETS = ["Eos-C0mm-RO", "Eos-AuthK3y", "Eos-PrivK3y", "Eos-Hash-77", "Eos-TacK3y-0A", "Eos-TrapC0mm", "Sonic-C0mm-RO",
           "Sonic-TacK3y", "Sonic-AuthK3y", "Sonic-PrivK3y", "U29uaWMtTnRwSzN5", "Eos-Br3akGlass"]


def _fabric_with_secrets(folder):
    shutil.copytree(FABRIC, folder)
    spine = folder / "spine1.cfg"
    lines = spine.read_text().split("\n")
    at = lines.index("hostname spine1") + 1
    spine.write_text("\n".join(lines[:at] + EOS_LINES + lines[at:]))
    db_path = folder / "leaf1" / "config_db.json"
    db = json.loads(db_path.read_text())
    db.update(SONIC_TABLES)
    db_path.write_text(json.dumps(db, indent=4))
    return folder


def _run(args, env):
    return subprocess.run([sys.executable, "-m", "losslessd", *args], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=180)


def test_device_secrets_masked_in_captures_session_logs_and_reports(make_sim, tmp_path):
    sim = make_sim(["leaf1", "spine1"], snmp=False, fabric=_fabric_with_secrets(tmp_path / "fabric"))
    out, logs = tmp_path / "snap", tmp_path / "logs"
    pulled = _run(["pull", "-i", str(sim.inventory_path), "-o", str(out), "--known-hosts", str(sim.known_hosts_path),
                   "--session-log", str(logs)], sim.env)
    assert pulled.returncode in (0, 1), pulled.stdout + pulled.stderr
    reports = []
    for fmt in ("text", "json", "sarif"):
        report = tmp_path / f"report.{fmt}"
        linted = _run(["lint", str(out), "-f", fmt, "-o", str(report)], sim.env)
        assert linted.returncode in (0, 1) and report.stat().st_size > 0, linted.stderr
        reports.append(report)
    written = {str(p): p.read_bytes() for p in (*out.rglob("*"), *logs.rglob("*"), *reports) if p.is_file()}
    assert {"spine1.capture", "leaf1.capture", "spine1.1.log", "leaf1.1.log"} <= {p.rsplit("/", 1)[1] for p in written}
    texts = {**written, "pull output": (pulled.stdout + pulled.stderr).encode()}
    assert [(where, s) for where, data in texts.items() for s in SECRETS if s.encode() in data] == []

    spine = (out / "spine1.capture").read_text()
    assert f"snmp-server community {MASK} ro" in spine and f"secret sha512 {MASK}" in spine  # the lines kept, masked
    leaf = json.loads((out / "leaf1.capture").read_text().split("show runningconfiguration all\n", 1)[1])
    assert leaf["TACPLUS"]["global"] == {"auth_type": "pap", "passkey": MASK}
    assert list(leaf["SNMP_COMMUNITY"]) == [f"{MASK}1"]
    manifest = json.loads((out / "manifest.json").read_text())["devices"]
    assert manifest["spine1"]["redacted"] == 7 and manifest["leaf1"]["redacted"] == 5


# Lines as the platforms print them (sources named at EOS_LINES and SONIC_TABLES; NX-OS Security Configuration Guide
# `tacacs-server key 7 "KEY"`, `snmp-server user NAME ROLE auth md5 KEY priv aes-128 KEY localizedkey`; Junos
# `## SECRET-DATA` on every secret of `show configuration`; NVUE `nv set system snmp-server readonly-community NAME
# access any`, `nv set system aaa user NAME hashed-password HASH`), then lines that must stay as they are.
MASKED = [
    ('tacacs-server key 7 "Nx TacK3y"', f"tacacs-server key 7 {MASK}"),
    ("snmp-server user adm network-admin auth md5 0xNxAuth priv aes-128 0xNxPriv localizedkey",
     f"snmp-server user adm network-admin auth md5 {MASK} priv aes-128 {MASK} localizedkey"),
    ('    encrypted-password "$6$JunosHash"; ## SECRET-DATA', f'    encrypted-password "{MASK}"; ## SECRET-DATA'),
    ("nv set system snmp-server readonly-community NvC0mm access any",
     f"nv set system snmp-server readonly-community {MASK} access any"),
    ("nv set system aaa user cumulus hashed-password '$6$NvHash'",
     f"nv set system aaa user cumulus hashed-password {MASK}"),
    ("set snmp community JunC0mm authorization read-only", f"set snmp community {MASK} authorization read-only"),
    ("ntp authentication-key 1 md5 NtpK3y 7", f"ntp authentication-key 1 md5 {MASK} 7"),
    # EOS User Manual `ntp authentication-key KEY_ID md5|sha1 [0|7|8a] KEY`: the type after the algorithm; Junos
    # `authentication-key KEY_NUMBER type md5 value KEY` (NTP), SNMPv3 usm `privacy-key` / `authentication-password`.
    ("ntp authentication-key 1 md5 7 0832494D1B1C", f"ntp authentication-key 1 md5 7 {MASK}"),
    ('set system ntp authentication-key 1 type md5 value "$9$JunNtp"',
     f"set system ntp authentication-key 1 type md5 value {MASK}"),
    ('set snmp v3 usm local-engine user u1 privacy-aes128 privacy-key "$9$JunPriv"',
     f"set snmp v3 usm local-engine user u1 privacy-aes128 privacy-key {MASK}"),
    ("set snmp v3 usm local-engine user u1 authentication-sha authentication-password JunAuthPw",
     f"set snmp v3 usm local-engine user u1 authentication-sha authentication-password {MASK}"),
    # A trap receiver's community (EOS User Manual `snmp-server host HOST version 2c COMMUNITY`, NX-OS SNMP guide
    # `snmp-server host HOST traps version 2c COMMUNITY udp-port N`); a v3 host's `priv USER` names a user.
    ("snmp-server host 192.0.2.7 version 2c EosTrapC0mm", f"snmp-server host 192.0.2.7 version 2c {MASK}"),
    ("snmp-server host 192.0.2.8 traps version 2c NxTrapC0mm udp-port 162",
     f"snmp-server host 192.0.2.8 traps version 2c {MASK} udp-port 162"),
]
# Each vendor's secret-bearing grammar beyond the lines above (session 38). Trap receivers: EOS User Manual
# `snmp-server host HOST [vrf V] [informs|traps] [version 1|2c|3 ...] COMMUNITY [udp-port N]` (the version optional),
# IOS `snmp-server host HOST [traps|informs] [version ...] COMMUNITY [udp-port N] [notification-type]`, NX-OS SNMP guide
# `snmp-server host HOST informs|traps version 1|2c COMMUNITY`, Onyx `snmp-server host HOST traps [port N] version 2c
# COMMUNITY`; Junos `trap-group NAME` (Network Management guide: the name is sent as the traps' community); net-snmp
# snmpd.conf(5) `trap2sink HOST COMMUNITY`, `trapcommunity STRING`. SSH keys: EOS/NX-OS `username NAME sshkey
# [ssh-rsa] KEY`, Junos `authentication { ssh-rsa "KEY"; }`. IOS SNMPv3 `priv aes 128 KEY`.
GRAMMAR = [
    ("snmp-server host 192.0.2.7 EosV1C0mm", f"snmp-server host 192.0.2.7 {MASK}"),
    ("snmp-server host 192.0.2.7 vrf MGMT EosVrfC0mm udp-port 1162", f"snmp-server host 192.0.2.7 vrf MGMT {MASK} "
     "udp-port 1162"),
    ("snmp-server host 192.0.2.7 informs version 2c EosInfC0mm",
     f"snmp-server host 192.0.2.7 informs version 2c {MASK}"),
    ("snmp-server host 192.0.2.7 traps IosTrapC0mm", f"snmp-server host 192.0.2.7 traps {MASK}"),
    ("snmp-server host 192.0.2.7 informs version 2c NxInfC0mm udp-port 1163",
     f"snmp-server host 192.0.2.7 informs version 2c {MASK} udp-port 1163"),
    ("snmp-server host 192.0.2.7 traps port 1162 version 2c OnyxC0mm",
     f"snmp-server host 192.0.2.7 traps port 1162 version 2c {MASK}"),
    ("no snmp-server host 192.0.2.7 traps version 1 OldC0mm", f"no snmp-server host 192.0.2.7 traps version 1 {MASK}"),
    ("set snmp trap-group JunTrapC0mm targets 192.0.2.7", f"set snmp trap-group {MASK} targets 192.0.2.7"),
    ("trap2sink 192.0.2.7 SnmpdC0mm", f"trap2sink 192.0.2.7 {MASK}"),
    ("trapcommunity SnmpdTrapC0mm", f"trapcommunity {MASK}"),
    ("username ops sshkey ssh-rsa AAAAB3NzaC1yc2EAAAAD ops@jump", f"username ops sshkey ssh-rsa {MASK} ops@jump"),
    ("username ops sshkey AAAAC3NzaC1lZDI1NTE5", f"username ops sshkey {MASK}"),
    ('            ssh-ed25519 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 ops@jump";', f"            ssh-ed25519 {MASK};"),
    ("snmp-server user ops netops v3 auth sha IosAuthK3y priv aes 128 IosPrivK3y",
     f"snmp-server user ops netops v3 auth sha {MASK} priv aes 128 {MASK}"),
    # NVUE's trap receiver (Cumulus Linux user guide, Configure SNMP: `nv set system snmp-server trap-destination IP
    # vrf VRF community-password NAME version 2c`)
    ("nv set system snmp-server trap-destination 192.0.2.7 vrf mgmt community-password NvTrapC0mm version 2c",
     f"nv set system snmp-server trap-destination 192.0.2.7 vrf mgmt community-password {MASK} version 2c"),
    # Cumulus SNMPv3 users, NVUE and NCLU alike (Cumulus Linux user guide, Configure SNMP; NetApp's SN2100 SNMPv3 page:
    # `net add snmp-server username USER [auth-md5|auth-sha] AUTH-PASSWORD [encrypt-aes|encrypt-des] PRIV-PASSWORD`)
    ("nv set service snmp-server username ops auth-md5 NvAuthK3y encrypt-aes NvPrivK3y",
     f"nv set service snmp-server username ops auth-md5 {MASK} encrypt-aes {MASK}"),
    ("net add snmp-server username ops auth-sha NcluAuthK3y encrypt-des NcluPrivK3y",
     f"net add snmp-server username ops auth-sha {MASK} encrypt-des {MASK}"),
]
KEPT = ["snmp-server host 192.0.2.9 version 3 auth ops-user", "snmp-server host 192.0.2.9 use-vrf management",
        "snmp-server host 192.0.2.9 source-interface mgmt0", "snmp-server host 192.0.2.9 filter-vrf blue",
        "snmp-server host 192.0.2.9 informs version 3 noauth ops-user", "snmp-server host 192.0.2.9 traps version 3 "
        "auth ops-user udp-port 162", "priority-flow-control priority 3 no-drop",
        "no password strength-check", "    community add TENANT_V4;",
        " random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes", " description key uplink",
        "set class-of-service forwarding-classes class key queue-num 3", "   class secret"]


def test_redact_lines_by_platform_syntax():
    from losslessd.collect.redact import redact

    for line, masked in MASKED + GRAMMAR:
        assert redact(line) == (masked, masked.count(MASK)), line
    for line in KEPT:
        assert redact(line) == (line, 0), line
    cos = "class-of-service {\n    forwarding-classes {\n        class key queue-num 3;\n    }\n}"
    assert redact(cos) == (cos, 0)  # (a forwarding class named like a keyword: its queue is read as before)
    junos = "snmp {\n    community JunC0mm2 {\n        authorization read-only;\n    }\n}\ninterfaces {\n}"
    assert redact(junos)[0] == junos.replace("JunC0mm2", MASK)
    junos = ('snmp {\n    trap-group "Jun TrapC0mm" {\n        version v2;\n        targets {\n'
             '            192.0.2.7;\n        }\n    }\n}')
    assert redact(junos) == (junos.replace('"Jun TrapC0mm"', MASK), 1)
    # CONFIG_DB NTP_KEY `value` (line form, compact, redis dump key), and a `value` of another table kept.
    db = {"NTP_KEY": {"42": {"type": "sha1", "trusted": "no", "value": "dGhlYW5zd2Vy"}},
          "SOME_TABLE": {"x": {"value": "kept"}}}
    for text in (json.dumps(db, indent=4), json.dumps(db)):
        masked = json.loads(redact(text, is_json=True)[0])
        assert masked == {"NTP_KEY": {"42": {"type": "sha1", "trusted": "no", "value": MASK}},
                          "SOME_TABLE": {"x": {"value": "kept"}}}, text
    dump = json.dumps({"NTP_KEY|42": {"type": "hash", "value": {"type": "sha1", "value": "dGhlYW5zd2Vy"}}}, indent=1)
    assert "dGhlYW5zd2Vy" not in redact(dump, is_json=True)[0]
    # CONFIG_DB's trap receivers (sonic-utilities `config snmptrap modify VER IP -c COMMUNITY`; `show snmptrap` reads
    # SNMP_TRAP_CONFIG v1TrapDest|v2TrapDest|v3TrapDest: DestIp, DestPort, vrf, Community): line form, compact, dump.
    traps = {"SNMP_TRAP_CONFIG": {"v2TrapDest": {"DestIp": "192.0.2.7", "DestPort": "162", "vrf": "None",
                                                 "Community": "S0nicTrapC0mm"}}}
    dump = {"SNMP_TRAP_CONFIG|v2TrapDest": {"type": "hash", "value": traps["SNMP_TRAP_CONFIG"]["v2TrapDest"]}}
    for text in (json.dumps(traps, indent=4), json.dumps(traps), json.dumps(dump, indent=1)):
        masked = redact(text, is_json=True)
        assert "C0mm" not in masked[0] and "192.0.2.7" in masked[0] and masked[1] == 1, text
    compact = '{"SNMP_COMMUNITY": {"pub": {"TYPE": "RO"}}, "DEVICE_METADATA": {"localhost": {"hostname": "pub"}}}'
    assert json.loads(redact(compact, is_json=True)[0]) == {"SNMP_COMMUNITY": {f"{MASK}1": {"TYPE": "RO"}},
                                                            "DEVICE_METADATA": {"localhost": {"hostname": "pub"}}}
    # A compact CONFIG_DB's communities are masked where they stand: a QoS map named like one keeps its name, so the
    # port's reference to it still reads (SONiC's stock DSCP_TO_TC_MAP is AZURE).
    compact = json.dumps({"SNMP_COMMUNITY": {"AZURE": {"TYPE": "RO"}}, "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
                          "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"}}})
    assert json.loads(redact(compact, is_json=True)[0]) == {
        "SNMP_COMMUNITY": {f"{MASK}1": {"TYPE": "RO"}}, "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
        "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"}}}
    # NVUE's `nv config show -o json` (what pull reads) holds a community as a key of `readonly-community` /
    # `readwrite-community` (NVUE `nv set system snmp-server readonly-community NAME access any`), compact or not.
    # A trap receiver's community is a key of its `community-password` object (`nv set system snmp-server
    # trap-destination IP vrf VRF community-password NAME version 2c`).
    nvue = [{"set": {"system": {"snmp-server": {
        "readonly-community": {"NvC0mm": {"access": {"any": {}}}},
        "readwrite-community": {"NvRwC0mm": {"access": {"any": {}}}},
        "trap-destination": {"192.0.2.7": {"vrf": {"mgmt": {
            "community-password": {"NvTrC0mm": {"version": "2c"}}}}}}}}}}]
    for text in (json.dumps(nvue), json.dumps(nvue, indent=2)):
        masked = redact(text, is_json=True)
        assert "C0mm" not in masked[0] and masked[1] == 3, text
    # An SNMPv3 user's keys, as the keys of NVUE's objects (each value a key when more follows) or as strings.
    for user in ({"auth-md5": {"NvAuthK3y": {"encrypt-aes": {"NvPrivK3y": {}}}}},
                 {"auth-sha": "NvAuthK3y", "encrypt-des": "NvPrivK3y"}):
        nvue = [{"set": {"service": {"snmp-server": {"username": {"ops": user}}}}}]
        for text in (json.dumps(nvue), json.dumps(nvue, indent=2)):
            masked = redact(text, is_json=True)
            assert "K3y" not in masked[0] and '"ops"' in masked[0] and masked[1] == 2, text
    # A device's output (a hostile one) whose JSON nests deeper than the parser reads: no RecursionError (a pull's
    # internal error), and a line of many secrets masked in one pass.
    assert redact("{" + '"a": {' * 100_000, is_json=True)[1] == 0
    assert redact('"x" ' * 50_000 + "## SECRET-DATA")[1] == 50_000


def test_nvue_yaml_communities_are_masked_under_their_block():
    """NVUE's `nv config show` (YAML) holds a community as a key under `readonly-community:` (and an SNMPv3 user's
    keys under `auth-md5:` ...), on its own line below the block's name: before, that key stayed in clear (the JSON
    form was masked). Masking follows the YAML blocks by indentation: a table's direct keys only, numbered and
    quoted (a bare `*` starts a YAML alias), the document still YAML."""
    import yaml

    from losslessd.collect.redact import redact

    nvue = [{"set": {"system": {"snmp-server": {
        "readonly-community": {"NvC0mm": {"access": {"any": {}}}, "*Odd C0mm": {"access": {"any": {}}}},
        "readwrite-community": {"NvRwC0mm": {"access": {"any": {}}}},
        "trap-destination": {"192.0.2.7": {"vrf": {"mgmt": {"community-password": {"NvTrC0mm": {"version": "2c"}}}}}},
        "listening-address": {"localhost": {}}}},
        "service": {"snmp-server": {"username": {"ops": {
            "auth-md5": {"NvAuthK3y": {"encrypt-aes": {"NvPrivK3y": {}}}}}}}},
        "qos": {"roce": {"mode": "lossless"}}}}]
    text = yaml.safe_dump(nvue, default_flow_style=False)
    masked, found = redact(text.replace("\n", "\r\n"))
    assert found == 6 and "C0mm" not in masked and "K3y" not in masked, masked
    server = yaml.safe_load(masked)[0]["set"]["system"]["snmp-server"]
    names = [*server["readonly-community"], *server["readwrite-community"],
             *server["trap-destination"]["192.0.2.7"]["vrf"]["mgmt"]["community-password"]]
    assert len(set(names)) == 4 and all(name.startswith(MASK) for name in names)
    assert server["listening-address"] == {"localhost": {}}
    assert yaml.safe_load(masked)[0]["set"]["qos"] == nvue[0]["set"]["qos"]
    # (the block closes where a line is not right of it: a sibling after the table keeps its key)
    assert redact("readonly-community:\n  C0mm: {}\nqos:\n  roce: {}\n")[0] == \
        f'readonly-community:\n  "{MASK}1": {{}}\nqos:\n  roce: {{}}\n'


# Free text: descriptions, banners and comments have no grammar naming the secret word, so where they name one
# (`password`, `secret`, `community`, ...) the rest of the line is masked; the text before it stays (a port's RoCE
# selection may match it: roce_ports.description_regex), as do a Junos line's closing quote and `;`.
FREE_TEXT = [
    # A login banner as a session prints it, or a comment, announcing the secret on its next line (outside a `banner`
    # command the announcement was not carried: the secret was kept)
    ("Password for all switches is as follows:\nHunter2\nleaf1# show running-config",
     f"Password {MASK}\n{MASK}\nleaf1# show running-config"),
    ("! Password for all switches is as follows:\n!\n!   Hunter2\ninterface Ethernet1",
     f"! Password {MASK}\n!\n!   {MASK}\ninterface Ethernet1"),
    # (a banner in capitals: its linking verb is read whatever its case, as the line before it was)
    ("LAB PASSWORDS ARE\nHunter2\nleaf1#", f"LAB PASSWORDS {MASK}\n{MASK}\nleaf1#"),
    # (a comment's announcement ends with the comment: the config line after it is config, kept for the lint)
    ("! break-glass password is\ninterface Ethernet1\n   priority-flow-control on",
     f"! break-glass password {MASK}\ninterface Ethernet1\n   priority-flow-control on"),
    ("   description gpu01 rdma; temp password Hunter2", f"   description gpu01 rdma; temp password {MASK}"),
    ('    description "gpu01 uplink, snmp community Publ1c";',
     f'    description "gpu01 uplink, snmp community {MASK}";'),
    ('set interfaces et-0/0/1 description "rdma secret=Hunter2"',
     f'set interfaces et-0/0/1 description "rdma secret={MASK}"'),
    ("nv set interface swp1 description 'passwd Hunter2'", f"nv set interface swp1 description 'passwd {MASK}'"),
    # a secret before the word `description` on its line is masked as on any line (the free text after it too)
    ("snmp-server community Publ1c description lab password Hunter2",
     f"snmp-server community {MASK} description lab password {MASK}"),
    ("username ops secret sha512 $6$Hash description ops", f"username ops secret sha512 {MASK} description ops"),
    ("! break-glass password is Hunter2", f"! break-glass password {MASK}"),
    ("banner motd\nLab: break-glass Password: Hunter2\nEOF\ntacacs-server key 7 TacK3y",
     f"banner motd\nLab: break-glass Password: {MASK}\nEOF\ntacacs-server key 7 {MASK}"),
    ("banner motd ^C\nuse secret Hunter2 to enter\n^C\nhostname leaf1",
     f"banner motd ^C\nuse secret {MASK}\n^C\nhostname leaf1"),
    # (the closing delimiter kept: the banner still ends there for the device and every reader)
    ("banner motd #community Publ1c#\nhostname leaf1", f"banner motd #community {MASK}#\nhostname leaf1"),
    ("banner motd ^C\nuse secret Hunter2^C\nhostname leaf1", f"banner motd ^C\nuse secret {MASK}^C\nhostname leaf1"),
    # a banner line naming a secret and at most one word after it gives the secret on the next line (blank lines
    # passed over): that line is masked whole, its closing delimiter kept
    ("banner login\nBreak-glass password:\n  Hunter2\nEOF\nhostname leaf1",
     f"banner login\nBreak-glass password:\n  {MASK}\nEOF\nhostname leaf1"),
    ("banner motd ^C\nThe lab password is\n\nHunter2^C\nhostname leaf1",
     f"banner motd ^C\nThe lab password {MASK}\n\n{MASK}^C\nhostname leaf1"),
    # (prose that announces nothing: the next line kept)
    ("banner motd ^C\nKeep your password safe and private\nRoCE lab\n^C",
     f"banner motd ^C\nKeep your password {MASK}\nRoCE lab\n^C"),
    # a line of several words after the secret's ending with a linking verb, or `for|of|to|on` NAME `:`, announces it
    # too (before, more than one word after it kept the next line: `Hunter2` in clear)
    ("banner motd ^C\nThe password for the lab is\nHunter2\n^C", f"banner motd ^C\nThe password {MASK}\n{MASK}\n^C"),
    ("banner login\nPasswords are:\nHunter2\nEOF", f"banner login\nPasswords {MASK}\n{MASK}\nEOF"),
    ("banner login\nPassword for rack 4 switches:\nHunter2\nEOF", f"banner login\nPassword {MASK}\n{MASK}\nEOF"),
    # `pwd`, and `pass` as a key given a value, name a password in free text
    ("   description gpu01 mgmt pwd: Hunter2", f"   description gpu01 mgmt pwd: {MASK}"),
    ("! ilo pass=Hunter2", f"! ilo pass={MASK}"),
    # YAML's description (NVUE `nv config show`) is free text too
    ("      description: gpu01 pwd Hunter2", f"      description: gpu01 pwd {MASK}"),
    # a banner whose end never comes (OpenSSH `sshd -T` prints `banner none`; an output cut short): the lines after it
    # are read as any line's, so a CONFIG_DB secret field later in the session log is masked still
    ('banner none\n{\n "TACPLUS": {\n  "global": {\n   "passkey": "TacK3y"\n  }\n }\n}',
     f'banner none\n{{\n "TACPLUS": {{\n  "global": {{\n   "passkey": "{MASK}"\n  }}\n }}\n}}'),
]
FREE_KEPT = ["   description gpu01 rdma uplink", '    description "RoCE to gpu05";', "! password:",
             "   description pass through to gpu05", "banner motd ^C\nPassword:\n^C\nbanner login ^C\nRoCE lab\n^C",
             "banner motd\nAuthorized use only\nEOF\nhostname leaf1",
             # the word joined into a name: no secret named, and the text after it (what a RoCE selection reads) stays
             "   description to-community-gw RoCE", "   description password-reset-srv rdma",
             "! secret_lab.example rack 4",
             # a port's description announces nothing: the line after it is config (it was masked whole, the PFC line
             # gone from the capture the lint reads)
             "interface Ethernet1\n   description mgmt community:\n   priority-flow-control on",
             "nv set interface swp1 description mgmt password:\nnv set interface swp1 link mtu 9216"]


# Banner prose that names a secret but announces none on the next line: that line stays (before, a line naming one
# and at most one word after it, `Never share your password`, `Password: X`, masked the banner's next line).
ORDINARY_BANNERS = ["Never share your password\nAuthorized use only", "Password: Hunter2\nAuthorized use only",
                    "Password policy:\n12 characters at least", "If you lost your password, call the NOC:\nextension 4",
                    "Your password expires in 30 days.\nRoCE lab", "The password is changed monthly\nRoCE lab"]


def test_a_banner_line_announcing_a_secret_masks_the_next_line_and_prose_does_not(corpus):
    """Every banner of tests/fixtures, examples and the corpus, and banner prose naming a secret: no line after one
    that names a secret is masked unless it announced the secret (Redactor._banner_text, _announces)."""
    from pathlib import Path

    from losslessd.collect.redact import redact

    for body in ORDINARY_BANNERS:
        text = f"banner motd ^C\n{body}\n^C\nhostname leaf1"
        assert redact(text)[0].split("\n")[2:] == text.split("\n")[2:], body
    root = Path(__file__).parent.parent
    files = [p for top in (root / "tests" / "fixtures", root / "examples", corpus) for p in top.rglob("*")
             if p.is_file() and p.suffix not in (".gz", ".tgz", ".pdf")]
    banners = 0
    for path in files:
        text = path.read_text(errors="replace")
        if "banner " not in text:
            continue
        masked = redact(text, is_json=text.lstrip().startswith(("{", "[")))[0].split("\n")
        for at, line in enumerate(text.split("\n")):
            if line.lstrip().startswith("banner "):
                banners += 1
                close = next(i for i in range(at + 1, len(masked)) if masked[i].strip() in ("EOF", "^C", "#"))
                assert masked[at:close + 1] == text.split("\n")[at:close + 1], path
    assert banners >= 1  # (the corpus NX-OS switch's legal notice)


def test_free_text_naming_a_secret_is_masked_after_that_word():
    from losslessd.collect.redact import redact

    for text, masked in FREE_TEXT:
        assert redact(text) == (masked, masked.count(MASK)), text
    for text in FREE_KEPT:
        assert redact(text) == (text, 0), text


def test_a_masked_description_keeps_the_text_a_roce_selection_reads(tmp_path):
    """The text before the secret word stays, so a description_regex that selects RoCE ports by it still does."""
    from losslessd.collect.redact import redact
    from losslessd.parse import parse_group

    config = (FABRIC / "spine1.cfg").read_text().replace("description leaf1:Ethernet48\n",
                                                         "description leaf1:Ethernet48 temp password Hunter2\n", 1)
    masked, found = redact(config)
    assert found == 1 and "Hunter2" in config and "Hunter2" not in masked
    (tmp_path / "plain.cfg").write_text(config)
    (tmp_path / "masked.cfg").write_text(masked)
    plain, redacted = (parse_group(name, [tmp_path / name]).ports["Ethernet1/1"].description
                       for name in ("plain.cfg", "masked.cfg"))
    assert plain == "leaf1:Ethernet48 temp password Hunter2" and redacted == f"leaf1:Ethernet48 temp password {MASK}"


# A secret's keyword given its value as a key (NVUE `nv config show` YAML: `hashed-password: '$6$...'`, a key-value
# file's `password=X`, `pwd: X`): before, the word `password:` was no keyword and the secret was kept. A quoted value
# keeps its quotes; a bare one after `:` is written quoted (YAML reads a bare `*...` as an alias).
KEY_FORMS = [
    ("        hashed-password: '$6$NvHash'", f"        hashed-password: '{MASK}'"),
    ("  password: Hunter2", f'  password: "{MASK}"'),
    ("pwd: Hunter2", f'pwd: "{MASK}"'),
    ("pass: Hunter2", f'pass: "{MASK}"'),
    ("BMC_PASSWORD=x password=Hunter2 user=ops", f"BMC_PASSWORD=x password={MASK} user=ops"),
    ("pwd=Hunter2;", f"pwd={MASK};"),
]
KEY_KEPT = ["key: 3", "  priv: on", "pass through", "      switch-priority: 3"]


def test_a_secrets_keyword_given_its_value_as_a_key_is_masked():
    import yaml

    from losslessd.collect.redact import redact

    for line, masked in KEY_FORMS:
        assert redact(line) == (masked, 1), line
    for line in KEY_KEPT:
        assert redact(line) == (line, 0), line
    text = ("system:\n  aaa:\n    user:\n      cumulus:\n        hashed-password: $6$NvHash\n"
            "        role: system-admin\n")
    masked = redact(text)[0]
    assert yaml.safe_load(masked)["system"]["aaa"]["user"]["cumulus"] == {"hashed-password": MASK,
                                                                         "role": "system-admin"}


def test_json_descriptions_are_free_text():
    """A JSON description (CONFIG_DB PORT, NVUE's JSON) naming a secret: masked after that word as a CLI description
    is, the text before it kept for description_regex, the document still JSON (before: JSON descriptions were not
    searched, a documented limit)."""
    from losslessd.collect.redact import redact

    db = {"PORT": {"Ethernet0": {"description": "gpu01 rdma; ilo pwd Hunter2", "mtu": "9100"},
                   "Ethernet4": {"description": 'temp password Hun\\ter2 "x"\n', "mtu": "9100"},
                   "Ethernet8": {"description": "to-community-gw", "mtu": "9100"}}}
    for text in (json.dumps(db, indent=4), json.dumps(db)):
        masked, found = redact(text, is_json=True)
        ports = json.loads(masked)["PORT"]
        assert found == 2 and "Hunter2" not in masked and "Hun" not in masked, text
        assert ports["Ethernet0"]["description"] == f"gpu01 rdma; ilo pwd {MASK}"
        assert ports["Ethernet4"]["description"] == f"temp password {MASK}"
        assert ports["Ethernet8"] == db["PORT"]["Ethernet8"]


def test_a_compact_json_of_many_descriptions_is_masked_in_linear_time():
    """A compact CONFIG_DB (one line, 1.5 MB) of 20,000 port descriptions naming a secret: each string's end was
    found on a copy of the line up to it (quadratic: 8.8 s CPU; 80,000 ran past 300 s); now walked in the string
    (0.18 s). The work is counted (tests.workmeter), not timed: four times the ports, about four times the work."""
    from losslessd.collect import redact

    counts = []
    for n in (5_000, 20_000):
        db = {"PORT": {f"Ethernet{i}": {"description": f"gpu{i} pwd Hunter{i}  ", "mtu": "9100"} for i in range(n)}}
        count, (masked, found) = work([redact], redact.redact, json.dumps(db), True)
        assert found == n and json.loads(masked)["PORT"]["Ethernet7"]["description"] == f"gpu7 pwd {MASK}  "
        counts.append(count)
    assert counts[1] < 6 * counts[0], counts


def _fixture_inputs():
    from pathlib import Path

    raw = Path(__file__).parent / "fixtures" / "raw"
    return sorted(p for folder in raw.iterdir() if folder.is_dir() for p in folder.iterdir())


@pytest.mark.parametrize("path", _fixture_inputs(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_masked_fixture_lints_as_the_original(path, tmp_path):
    """Masking changes no reading: every platform's fixture (files and folders), each file masked as pull masks a
    capture, lints to the same findings (rule, severity, device, port, key, line) as the original."""
    from losslessd import api
    from losslessd.collect.redact import redact

    plain, masked = tmp_path / "plain" / path.name, tmp_path / "masked" / path.name
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for each in files:
        text = each.read_text()
        for top, out in ((plain, text), (masked, redact(text, is_json=text.lstrip().startswith(("{", "[")))[0])):
            (file := top if path.is_file() else top / each.relative_to(path)).parent.mkdir(parents=True, exist_ok=True)
            file.write_text(out)
    policy = "infiniband" if path.parent.name == "opensm" else "roce-dscp26"

    def read(result, where):  # (a key may name the input's path)
        return sorted((f.code, f.severity.value, f.device, f.port, f.key.replace(str(where), "@"),
                       f.source.line if f.source else None) for f in result.findings)

    assert read(api.lint([masked], policy), masked.parent) == read(api.lint([plain], policy), plain.parent)


@pytest.mark.parametrize("platform, name", [("cisco_nxos", "roce-leaf.cfg"), ("dell_os10", "roce-leaf.cfg")])
def test_a_one_line_banner_masked_keeps_its_end(platform, name, tmp_path):
    """`banner motd #... password X#` on one line (NX-OS Fundamentals guide, "Configuring the Banner"): its closing
    `#` stays, so every reader still ends the banner there. Before, the mask took the `#` too, and the masked capture's
    banner swallowed the rest of the config (its ports' QoS unread)."""
    from pathlib import Path

    from losslessd import api
    from losslessd.collect.redact import redact

    text = (Path(__file__).parent / "fixtures" / "raw" / platform / name).read_text()
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("hostname"))
    text = "\n".join(lines[:at + 1] + ["banner motd #Lab leaf, break-glass password Hunter2#"] + lines[at + 1:])
    masked = redact(text)[0]
    assert "Hunter2" not in masked and f"password {MASK}#" in masked
    (tmp_path / "plain").mkdir()
    (tmp_path / "masked").mkdir()
    (tmp_path / "plain" / name).write_text(text)
    (tmp_path / "masked" / name).write_text(masked)
    found = [sorted((f.code, f.port, f.source.line if f.source else None) for f in api.lint([tmp_path / kind / name],
                                                                                          "roce-dscp26").findings)
             for kind in ("plain", "masked")]
    assert found[0] == found[1] and len(found[0]) > 3
