"""Inventory (Nornir SimpleInventory shape) and credentials: inheritance, and every problem reported at
once with file and line before any connection is made."""

from __future__ import annotations

import os
import pickle
import socket
import textwrap

import pytest

from losslessd import inventory
from losslessd.credentials import Secret
from losslessd.inventory import InventoryError
from tests.clirun import losslessd

ENV = {"FABRIC_PW": "pw-1", "SPINE_PW": "pw-2", "SNMP_COMM": "comm-1", "SNMP_AUTH": "auth-1", "SNMP_PRIV": "priv-1"}


def _write(path, text: str):
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def _errors(path, env=ENV) -> list[tuple[int | None, str]]:
    with pytest.raises(InventoryError) as exc:
        inventory.load(path, env=env)
    assert all(e.file == str(path) for e in exc.value.errors)
    return [(e.line, e.message) for e in exc.value.errors]


GOOD = """
defaults:
  username: admin
  data:
    credentials: {password_env: FABRIC_PW}
    site: dc1
groups:
  switches:
    data:
      snmp: {version: 2c, community_env: SNMP_COMM}
  spines:
    groups: [switches]
    platform: eos
    data:
      credentials: {password_env: SPINE_PW}
  gpus:
    platform: linux_mlx5
    username: root
    data:
      interfaces: [ens1f0np0, ens1f1np1]
hosts:
  leaf1:
    hostname: 10.0.0.1
    platform: sonic
    groups: [switches]
    data:
      snmp: {port: 1161}
  spine1:
    hostname: 10.0.0.2
    port: 2222
    groups: [spines]
    data:
      snmp: {version: 3, user: mon, auth_key_env: SNMP_AUTH, priv_key_env: SNMP_PRIV, auth_protocol: SHA256,
             priv_protocol: aes256, context: spine1}
  gpu01:
    groups: [gpus]
    data:
      rdma_devices: [mlx5_0]
"""


def test_inheritance_defaults_groups_host(tmp_path):
    inv = inventory.load(_write(tmp_path / "inv.yaml", GOOD), env=ENV)
    leaf, spine, gpu = inv.hosts["leaf1"], inv.hosts["spine1"], inv.hosts["gpu01"]
    assert (leaf.hostname, leaf.port, leaf.platform.id, leaf.username) == ("10.0.0.1", 22, "sonic", "admin")
    assert leaf.device_type == "linux" and leaf.password.reveal() == "pw-1"
    # data.snmp merged key by key: the group's version and community, the host's port
    assert (leaf.snmp.version, leaf.snmp.port, leaf.snmp.community.reveal()) == ("2c", 1161, "comm-1")
    # a group's own groups come after it; the spines group's password_env wins over the defaults'
    assert (spine.platform.id, spine.port, spine.password.reveal()) == ("arista_eos", 2222, "pw-2")
    assert (spine.snmp.version, spine.snmp.user, spine.snmp.auth_protocol, spine.snmp.priv_protocol) == (
        "3", "mon", "sha256", "aes256")
    assert spine.snmp.community is None and spine.snmp.priv_key.reveal() == "priv-1"
    # Nornir: a host without hostname is reached by its name
    assert (gpu.hostname, gpu.username, gpu.interfaces, gpu.rdma_devices) == (
        "gpu01", "root", ("ens1f0np0", "ens1f1np1"), ("mlx5_0",))
    assert gpu.snmp is None


def test_folder_inventory_hosts_groups_defaults(tmp_path):
    _write(tmp_path / "hosts.yaml", """
        leaf1: {hostname: 10.0.0.1, groups: [sonic]}
        leaf2: {hostname: 10.0.0.3, groups: [sonic], port: 2200}
    """)
    _write(tmp_path / "groups.yaml", "sonic: {platform: sonic}\n")
    _write(tmp_path / "defaults.yaml", """
        username: admin
        data: {credentials: {password_env: FABRIC_PW}}
    """)
    inv = inventory.load(tmp_path, env=ENV)
    assert {n: (h.platform.id, h.port, h.username) for n, h in inv.hosts.items()} == {
        "leaf1": ("sonic", 22, "admin"), "leaf2": ("sonic", 2200, "admin")}


def test_every_problem_reported_at_once_with_its_line(tmp_path):
    path = _write(tmp_path / "inv.yaml", """
        defaults:
          username: admin
          data:
            credentials: {password_env: FABRIC_PW}
        groups:
          switches: {}
        hosts:
          leaf1:
            platform: vyos
          leaf2:
            platform: sonic
            groups: [switches, spinez]
          leaf3:
            platform: sonic
            password: hunter2
          leaf2:
            platform: sonic
          gpu01:
            platform: linux_mlx5
          spine1:
            platform: eos
            data:
              credentials: {password_env: NOT_SET_PW}
              snmp: {version: 2c, community: public}
    """)
    errors = _errors(path)
    by_line = {line: msg for line, msg in errors}
    assert "platform 'vyos' is not a platform losslessd knows" in by_line[9]
    assert "duplicate host 'leaf2': also defined at line 10" in by_line[16]
    assert "plaintext `password:` refused" in by_line[15]
    assert "needs `data.interfaces`" in by_line[18]  # the host's key line
    assert "environment variable NOT_SET_PW (`password_env`) is not set" in by_line[23]
    assert "plaintext `community:` refused" in by_line[24]
    assert len(errors) == 6, errors  # the second leaf2 replaced the first: its unknown group is not seen
    # the same problems, each group name checked when the host is not a duplicate
    path.write_text(path.read_text().replace("  leaf2:\n    platform: sonic\n  gpu01", "  gpu01"))
    assert any("unknown group 'spinez' (groups: switches)" in m and line == 12 for line, m in _errors(path))


def test_hosts_differing_only_in_case_are_refused_naming_both(tmp_path):
    """`LEAF1` beside `leaf1` (round 20): one DNS name twice (RFC 4343), and their captures one file where file names
    ignore case, the later written over the earlier without a word. Other names stay apart (leaf10)."""
    path = _write(tmp_path / "inv.yaml", """
        defaults:
          username: admin
          data:
            credentials: {password_env: FABRIC_PW}
        hosts:
          leaf1: {hostname: 127.0.0.1, platform: sonic}
          leaf10: {hostname: 127.0.0.3, platform: sonic}
          LEAF1: {hostname: 127.0.0.2, platform: sonic}
    """)
    ((line, message),) = _errors(path)
    assert line == 8 and "host 'LEAF1' differs from host 'leaf1' (line 6) only in case" in message
    path.write_text(path.read_text().replace("  LEAF1:", "  leaf2:"))
    assert list(inventory.load(path, env=ENV).hosts) == ["leaf1", "leaf10", "leaf2"]


def test_a_host_named_by_a_word_yaml_reads_as_a_value_is_refused_at_its_own_line(tmp_path):
    """Session 42 (round 22): a host `on:` (YAML reads True) or `null:` was refused at line 1, the `hosts:` line, as
    no line was known for the pointer of the value read; `0x1f:` and `31:` are one key (the number 31): the first
    host was dropped, no duplicate named."""
    path = _write(tmp_path / "inv.yaml", """
        defaults:
          username: admin
          platform: sonic
          data:
            credentials: {password_env: FABRIC_PW}
        hosts:
          leaf1: {hostname: 127.0.0.1}
          on: {hostname: 127.0.0.2}
          null: {hostname: 127.0.0.3}
          0x1f: {hostname: 127.0.0.4}
          31: {hostname: 127.0.0.5}
    """)
    said = _errors(path)
    assert (8, "host True: a name must be text, not a boolean (quote it)") in said, said
    assert (9, "host None: a name must be text, not a null (quote it)") in said, said
    assert any(line == 11 and "duplicate host '31' (read as the same value as '0x1f'): also defined at line 10" in m
               for line, m in said), said


def test_shared_problem_is_reported_once_where_it_is_written(tmp_path):
    path = _write(tmp_path / "inv.yaml", """
        defaults:
          username: admin
          platform: sonic
          data:
            credentials: {password_env: MISSING_PW}
        hosts:
          leaf1: {}
          leaf2: {}
          leaf3: {}
    """)
    assert _errors(path) == [(5, "defaults: environment variable MISSING_PW (`password_env`) is not set")]
    assert _errors(path, env={"MISSING_PW": ""}) == [
        (5, "defaults: environment variable MISSING_PW (`password_env`) is empty")]


def test_password_file_must_exist_and_be_owner_only(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    path = _write(tmp_path / "inv.yaml", f"""
        hosts:
          leaf1:
            platform: sonic
            username: admin
            data:
              credentials: {{password_file: {secret}}}
    """)
    os.chmod(secret, 0o644)
    [(line, msg)] = _errors(path)
    assert line == 6 and "has mode 0644" in msg and f"chmod 600 {secret}" in msg
    os.chmod(secret, 0o600)
    assert inventory.load(path, env={}).hosts["leaf1"].password.reveal() == "s3cret"
    secret.unlink()
    [(line, msg)] = _errors(path)
    assert line == 6 and "No such file or directory" in msg


def test_a_host_password_file_replaces_a_default_password_env(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("from-file")
    secret.chmod(0o600)
    path = _write(tmp_path / "inv.yaml", f"""
        defaults:
          username: admin
          data: {{credentials: {{password_env: FABRIC_PW}}}}
        hosts:
          leaf1:
            platform: sonic
            data: {{credentials: {{password_file: {secret}}}}}
          leaf2:
            platform: sonic
            data: {{credentials: {{password_file: {secret}, password_env: FABRIC_PW}}}}
    """)
    [(line, msg)] = _errors(path)
    assert line == 10 and "either `password_env` or `password_file`, not both" in msg
    path.write_text(path.read_text().replace(", password_env: FABRIC_PW}", "}"))
    assert inventory.load(path, env=ENV).hosts["leaf1"].password.reveal() == "from-file"


def test_snmp_settings_are_checked(tmp_path):
    path = _write(tmp_path / "inv.yaml", """
        defaults: {username: admin, platform: sonic, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          a: {data: {snmp: {version: 3, user: mon, auth_key_env: SNMP_AUTH}}}
          b: {data: {snmp: {version: 1, community_env: SNMP_COMM}}}
          c: {data: {snmp: {version: 3, user: mon, auth_key_env: SNMP_AUTH, priv_key_env: SNMP_PRIV, priv_protocol: des}}}
          d: {data: {snmp: {version: 2c}}}
    """)
    messages = [m for _, m in _errors(path)]
    assert any("host a: SNMPv3 (authPriv) needs data.snmp priv_key_env or priv_key_file" in m for m in messages)
    assert any("host b: `data.snmp.version` must be 2c or 3" in m for m in messages)
    assert any("host c: `data.snmp.priv_protocol` must be one of aes, aes192, aes256" in m for m in messages)
    assert any("host d: SNMPv2c needs `data.snmp.community_env`" in m for m in messages)


def test_snmp_protocols_are_those_the_poller_offers():
    from losslessd.collect import snmp

    assert set(inventory.AUTH_PROTOCOLS) == {p.lower() for p in snmp.AUTH_PROTOCOLS}
    assert set(inventory.PRIV_PROTOCOLS) == {p.lower() for p in snmp.PRIV_PROTOCOLS}


def test_collection_only_and_unpullable_platforms(tmp_path):
    path = _write(tmp_path / "inv.yaml", """
        defaults: {username: admin, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          nx1: {platform: cisco_nxos}
          cl1: {platform: nvidia_cumulus}
          sm1: {platform: opensm}
    """)
    [(line, msg)] = _errors(path)
    assert line == 5 and "platform 'opensm' cannot be pulled over SSH" in msg
    path.write_text(path.read_text().replace("  sm1: {platform: opensm}\n", ""))
    hosts = inventory.load(path, env=ENV).hosts
    assert (hosts["nx1"].device_type, hosts["cl1"].device_type) == ("cisco_nxos", "cumulus_linux")


def test_unknown_fields_and_bad_shapes(tmp_path):
    path = _write(tmp_path / "inv.yaml", """
        hosts:
          leaf1:
            platform: sonic
            username: admin
            hostnmae: 10.0.0.1
            port: 70000
            data:
              credentials: {password_env: FABRIC_PW, pasword_file: /x}
              ssh: {device_type: 5}
        extra: 1
    """)
    by_line = dict(_errors(path))
    assert "unknown field `hostnmae`" in by_line[5] and "`port` must be a TCP port" in by_line[6]
    assert "unknown field `data.credentials.pasword_file`" in by_line[8]
    assert "device_type` must be a netmiko device type name" in by_line[9]
    assert "unknown top-level key `extra`" in by_line[10]


def test_not_an_inventory(tmp_path):
    assert "not an inventory" in _errors(_write(tmp_path / "a.yaml", "- just\n- a list\n"))[0][1]
    assert "invalid YAML" in _errors(_write(tmp_path / "b.yaml", "hosts: {a: [\n"))[0][1]
    assert "lists no hosts" in _errors(_write(tmp_path / "c.yaml", "hosts: {}\n"))[0][1]
    (tmp_path / "d").mkdir()
    with pytest.raises(InventoryError, match="needs hosts.yaml"):
        inventory.load(tmp_path / "d", env={})


def test_secret_never_prints_its_value():
    s = Secret("hunter2", "environment variable X")
    assert "hunter2" not in repr(s) and "hunter2" not in str(s) and "hunter2" not in f"{s}"
    assert "hunter2" not in repr({"password": s})
    with pytest.raises(TypeError):
        pickle.dumps(s)


def test_cli_reports_all_problems_and_contacts_nothing(tmp_path):
    """Exit 2, every problem on stderr with file:line (the inventory's first, then a missing
    known_hosts), and the listening device never sees a connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    path = _write(tmp_path / "inv.yaml", f"""
        defaults: {{username: admin, data: {{credentials: {{password_env: FABRIC_PW}}}}}}
        hosts:
          good: {{hostname: 127.0.0.1, port: {port}, platform: sonic}}
          bad1: {{hostname: 127.0.0.1, port: {port}, platform: vyos}}
          bad2: {{hostname: 127.0.0.1, port: {port}, platform: sonic, groups: [nope]}}
    """)
    known = tmp_path / "known_hosts"
    out = tmp_path / "snap"
    res = losslessd("pull", "-i", path, "-o", out, "--known-hosts", known, env={"FABRIC_PW": "x"})
    assert res.returncode == 2, res.stderr
    errors = res.stderr.splitlines()
    assert errors[0].startswith(f"losslessd: error: {path}:4: host bad1: platform 'vyos'")
    assert errors[1].startswith(f"losslessd: error: {path}:5: host bad2: unknown group 'nope'")
    assert errors[2].startswith(f"losslessd: error: {known}: known_hosts file not found")
    assert errors[3:] == ["losslessd: 3 problem(s) before starting; nothing was contacted"]
    known.write_text("")  # with the file there, the inventory's problems alone
    res = losslessd("pull", "-i", path, "-o", out, "--known-hosts", known, env={"FABRIC_PW": "x"})
    assert res.returncode == 2 and res.stderr.endswith("losslessd: 2 problem(s) before starting; nothing was contacted\n")
    assert not out.exists()
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


def test_a_value_found_wrong_is_reported_once_in_the_files_words(tmp_path):
    """Each entry is validated (pydantic, strict) where it is written; a field or data section found wrong is
    left out of the merge, so its absence is not reported again further down (no "needs data.interfaces"
    after "data.interfaces must be a list of names")."""
    path = _write(tmp_path / "inv.yaml", """
        defaults: {username: admin, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          a: {platform: sonic, port: "22", data: {snmp: {version: 3, auth_protocol: md5}}}
          b: {platform: linux_mlx5, data: {interfaces: [a/b]}}
          c: {platform: sonic, username: [admin], data: {gnmi: {port: 6030, tls: 1}}}
    """)
    assert _errors(path) == [
        (3, "host a: `port` must be a TCP port 1-65535"),
        (3, "host a: `data.snmp.auth_protocol` must be one of sha, sha224, sha256, sha384, sha512"),
        (4, "host b: `data.interfaces` must be a list of Linux interface names (1-15 letters, digits, _ . @ -; "
            "not . or .., no leading -)"),
        (5, "host c: `username` must be a string"),
        (5, "host c: `data.gnmi.tls` must be true or false")]


def test_an_address_no_socket_takes_is_refused_with_its_line(tmp_path):
    """A blank inside, a control character or a leading `-` passed `daemon --check` (exit 0) and failed only at the
    first connection; IP addresses (v6 with a zone) and host names stay accepted."""
    path = _write(tmp_path / "inv.yaml", r"""
        defaults: {username: admin, platform: sonic, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          a: {hostname: 'not a host'}
          b: {hostname: "sw\e]0;owned\a"}
          c: {hostname: -oProxyCommand=x}
          d: {hostname: 192.0.2.1, data: {snmp: {hostname: 'x y', community_env: SNMP_COMM}}}
          e: {hostname: 192.0.2.1, data: {gnmi: {port: 9339, hostname: ''}}}
    """)
    errors = _errors(path)
    assert [line for line, m in errors if "must be a host name or address" in m] == [3, 4, 5, 6, 7], errors
    ok = _write(tmp_path / "ok.yaml", """
        defaults: {username: admin, platform: sonic, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          a: {hostname: 192.0.2.1}
          b: {hostname: 'fe80::1%eth0'}
          c: {hostname: leaf-1.dc1.example.net.}
          d: {hostname: ' 192.0.2.4 '}
          e: {hostname: leaf_01.pod_2}
          f: {hostname: 192.0.2.6, data: {snmp: {hostname: ' 10.0.0.9 ', community_env: SNMP_COMM}}}
    """)
    hosts = inventory.load(ok, env=ENV).hosts
    assert [h.hostname for h in hosts.values()] == [
        "192.0.2.1", "fe80::1%eth0", "leaf-1.dc1.example.net.", "192.0.2.4", "leaf_01.pod_2", "192.0.2.6"]
    assert hosts["f"].snmp.hostname == "10.0.0.9"  # the address the poller connects to: no blanks around it


def test_a_host_or_group_name_yaml_reads_as_no_text_is_refused(tmp_path):
    """`~:` became a host named "None", `010:` one named "8" (YAML 1.1 octal: now the text written, as YAML 1.2 has
    no such octal), `yes:` one named "True"."""
    path = _write(tmp_path / "inv.yaml", """
        defaults: {username: admin, platform: sonic, data: {credentials: {password_env: FABRIC_PW}}}
        groups:
          yes: {port: 22}
        hosts:
          ~: {hostname: 192.0.2.1}
          010: {hostname: 192.0.2.2}
          '012': {hostname: 192.0.2.3}
    """)
    messages = [m for _, m in _errors(path)]
    assert "group True: a name must be text, not a boolean (quote it)" in messages
    assert "host None: a name must be text, not a null (quote it)" in messages
    assert len(messages) == 2, messages  # (host 010 is the host "010")


def test_plaintext_secrets_where_losslessd_does_not_read_them_are_refused(tmp_path):
    """Nornir keeps a login in `connection_options` (`netmiko: {password: ..., extras: {secret: ...}}`) and some
    inventories put one straight under `data`: losslessd reads neither, so the login used data.credentials while the
    inventory kept the secret in clear, accepted without a word. Each is refused at its line, never echoed, and the
    keys that are not secrets (`extras: {ssh_strict: false}`, `data.site`) are still left alone."""
    path = _write(tmp_path / "inv.yaml", """
        hosts:
          leaf1:
            platform: sonic
            connection_options:
              netmiko:
                password: Plain-CO-1
                extras: {ssh_strict: false, secret: Plain-CO-2}
            data:
              password: Plain-Data-3
              site: dc1
              credentials: {username: admin, password_env: FABRIC_PW}
        groups:
          spines:
            connection_options: {napalm: {extras: {optional_args: {community: Plain-CO-4}}}}
        """)
    errors = _errors(path)
    assert [line for line, _ in errors] == [6, 7, 9, 14]
    assert "plaintext `password:` under `connection_options.netmiko` refused" in errors[0][1]
    assert "`secret:` under `connection_options.netmiko.extras`" in errors[1][1] and "secret_env" in errors[1][1]
    assert "plaintext `password:` under `data` refused" in errors[2][1]
    assert "`community:` under `connection_options.napalm.extras.optional_args`" in errors[3][1]
    assert not any("Plain-" in message for _, message in errors)


def test_numbers_alone_that_are_no_ip_address_are_refused_with_their_line(tmp_path):
    """`0177.0.0.1`, `127.1`, `10.0.0.010`, `1.2.3.999`, `0x7f.1` and `3232235777` passed as host names (every label
    letters or digits) though RFC 1123 2.1 says no host name has the dotted-decimal form; the system resolver reads
    most of them as IPv4 in inet_aton's forms (glibc: `10.0.0.010` is octal, 10.0.0.8; `127.1` is 127.0.0.1), so a
    device was reached at another address than the one meant. Names with a letter in the last label stay names."""
    path = _write(tmp_path / "inv.yaml", """
        defaults: {username: admin, platform: sonic, data: {credentials: {password_env: FABRIC_PW}}}
        hosts:
          a: {hostname: 0177.0.0.1}
          b: {hostname: '127.1'}
          c: {hostname: 10.0.0.010}
          d: {hostname: 1.2.3.999}
          e: {hostname: 0x7f.1}
          f: {hostname: '3232235777'}
          g: {hostname: 1e100.net}
          h: {hostname: 10.0.0.1.}
    """)
    errors = _errors(path)
    assert [line for line, m in errors if "four decimal numbers 0-255" in m] == [3, 4, 5, 6, 7, 8, 10], errors
