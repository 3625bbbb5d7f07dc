"""The daemon's settings file, its scheduler, its sd_notify client and its drift comparison: the parts
that need no running daemon."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import textwrap
import threading
from pathlib import Path

import pytest

from losslessd.daemon.drift import Drift, Pulled
from losslessd.daemon.http import HttpFace, NotLoopback
from losslessd.daemon.notify import Notifier
from losslessd.daemon.scheduler import Runner, Schedule
from losslessd.daemon.service import Daemon
from losslessd.daemon.settings import DEFAULT_HTTP_HOST, load_settings, read_settings, schema
from losslessd.daemon.sinks import Sinks
from losslessd.errors import InputError
from losslessd.history import History, StoredFinding
from losslessd.limits import DEFAULT_MAX_FILE_BYTES, ENV_MAX_FILE_MB, MIB, file_limit_mb, max_file_bytes
from losslessd.lint.finding import Finding, Severity
from losslessd.monitor import QueueMaps
from tests.clirun import losslessd

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "systemd" / "losslessd.yaml"
INVENTORY = """\
hosts:
  leaf1:
    hostname: 192.0.2.1
    platform: sonic
    data:
      credentials: {username: admin, password_env: LEAF_PW}
      snmp: {version: 2c, community_env: LEAF_COMMUNITY}
"""
ENV = {"LEAF_PW": "pw", "LEAF_COMMUNITY": "public", "ALERT_TOKEN": "Bearer s3cret"}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    (tmp_path / "known_hosts").write_text("")
    return tmp_path


def write(folder: Path, text: str) -> Path:
    path = folder / "losslessd.yaml"
    path.write_text(textwrap.dedent(text))
    return path


# -- settings ---------------------------------------------------------------------------------------
def test_minimal_settings_take_defaults_and_resolve_paths_next_to_the_file(folder):
    s = load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV)
    assert s.http.host == DEFAULT_HTTP_HOST == "127.0.0.1"  # never all interfaces unless asked
    assert s.poll.snmp_interval_s == 10 and 0 < s.poll.jitter < 0.5
    assert s.history_path == folder.resolve() / "losslessd.db"
    assert s.known_hosts_path == folder.resolve() / "known_hosts"
    assert list(s.hosts.hosts) == ["leaf1"] and s.hosts.hosts["leaf1"].snmp.community.reveal() == "public"
    assert s.lint_policy.name == "roce-dscp26"


def test_webhook_header_comes_from_the_environment_as_a_secret(folder):
    s = load_settings(write(folder, """\
        inventory: inventory.yaml
        known_hosts: known_hosts
        sinks:
          webhook:
            url: https://alerts.example.net/hook
            headers_env: {Authorization: ALERT_TOKEN}
        """), ENV)
    secret = s.webhook_headers["Authorization"]
    assert secret.reveal() == "Bearer s3cret" and "s3cret" not in repr(secret)


def test_max_file_mb_bounds_what_settings_read_and_a_reload_without_it_restores_the_default(folder, monkeypatch):
    monkeypatch.delenv(ENV_MAX_FILE_MB, raising=False)
    with file_limit_mb(None):  # the process's limit as it was, whatever the test sets
        with pytest.raises(InputError) as exc:  # the inventory (~250 bytes) is read under the settings' limit
            load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nmax_file_mb: 0.0001\n"),
                          ENV)
        assert exc.value.file == str(folder / "inventory.yaml"), exc.value
        assert max_file_bytes() == DEFAULT_MAX_FILE_BYTES  # loading alone changes nothing
        load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nmax_file_mb: 64\n"),
                      ENV).apply_limits()
        assert max_file_bytes() == 64 * MIB
        load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV).apply_limits()
        assert max_file_bytes() == DEFAULT_MAX_FILE_BYTES  # the key removed: the default again, not the last 64


@pytest.mark.parametrize("text, line, words", [
    ("inventory: inventory.yaml\npoll:\n  snmp_intervall_s: 5\n", 3, "snmp_intervall_s"),
    ("inventory: inventory.yaml\npoll:\n  snmp_interval_s: 0\n", 3, "must be at least 0.1, not 0"),
    # session 36: a switch refreshes its counters at most every 100 ms; 1e-7 s passed --check and polled each switch
    # back to back
    ("inventory: inventory.yaml\npoll:\n  snmp_interval_s: 1.0e-7\n", 3, "must be at least 0.1, not 1e-07"),
    ("inventory: inventory.yaml\npoll:\n  ssh_counters_interval_s: 0.01\n", 3, "must be at least 0.1, not 0.01"),
    ("inventory: inventory.yaml\npoll:\n  gnmi_sample_interval_s: 0.05\n", 3, "must be at least 0.1, not 0.05"),
    # session 36: YAML 1.1's base 60 (1:30 was 90 s) is the text written: refused, saying why
    ("inventory: inventory.yaml\ndrift:\n  interval_s: 1:30\n", 3, "not '1:30' (YAML 1.1 reads"),
    # session 34: longer than any wait (threading.TIMEOUT_MAX): --check said 0, and every SSH poll's socket raised
    # OverflowError in settimeout
    ("inventory: inventory.yaml\npoll:\n  ssh_timeout_s: 1.0e+10\n", 3, "must be at most 9223372036, not"),
    ("inventory: inventory.yaml\ndrift:\n  interval_s: 1.0e+308\n", 3, "must be at most 9223372036, not"),
    ("inventory: inventory.yaml\nhistory:\n  retention_days: 1.0e+308\n", 3, "retention_days` must be at most"),
    ("inventory: inventory.yaml\nhttp:\n  port: 70000\n", 3, "65535"),
    # session 42 (round 22): passed the field, and stopped the daemon as "--max-file-mb must be ...", no file or line
    ("inventory: inventory.yaml\nmax_file_mb: 1.0e-9\n", 2, "`max_file_mb` must be at least 9.5367431640625e-07"),
    # session 42 (round 22): a retention shorter than one bucket passed --check, and each prune deleted the bucket
    # being filled: no sample and no ended event was kept (test_history.py shows the prune)
    ("inventory: inventory.yaml\nhistory:\n  resolution_s: 3600\n  retention_days: 0.0001\n", 4,
     "retention_days (0.0001: 8.64 s) is shorter than one resolution_s bucket (3600 s)"),
    # a host no socket binds: --check said 0, the daemon then exited at start
    ("inventory: inventory.yaml\nhttp:\n  host: 'not a host!'\n", 3, "`http.host` must be a host name or address"),
    ("inventory: inventory.yaml\nhttp:\n  host: \"\\e]0;x\\a\"\n", 3, "`http.host` must be a host name or address"),
    ("inventory: inventory.yaml\nlog:\n  level: loud\n", 3, "loud"),
    ("inventory: inventory.yaml\npoll:\n  backoff_initial_s: 60\n  backoff_max_s: 5\n", 4, "backoff_max_s (5)"),
    ("inventory: inventory.yaml\nsinks:\n  webhook:\n    url: ftp://x\n", 4, "must be an http:// or https:// URL"),
    # the schema's pattern lets it pass, WebhookSink would not: refused here, token not echoed
    ("inventory: inventory.yaml\nsinks:\n  webhook:\n    url: 'https://?token=t0k3n'\n", 4, "names no host"),
    ("inventory: inventory.yaml\nsinks:\n  webhook:\n    url: http://x\n    headers_env: {A: 'no such'}\n", 5, "no such"),
    ("policy: roce-dscp26\n", 1, "inventory"),
    ("inventory: inventory.yaml\ndetection: {no_such_threshold: 1}\n", 2, "no_such_threshold"),
    # session 42: storms are timed, not counted in polls; the old key says what replaces it
    ("inventory: inventory.yaml\ndetection:\n  pause_rate_per_s: 50\n  storm_detection_polls: 3\n", 4,
     "storm_detection_polls is no longer read: a storm is timed now"),
])
def test_bad_settings_name_file_and_line(folder, text, line, words):
    path = write(folder, text)
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert err.value.file == str(path) and err.value.line == line, str(err.value)
    assert words in str(err.value)


def numeric_settings() -> list[tuple[tuple[str, ...], dict]]:
    """Every number of the settings' JSON schema: (its keys from the top, its schema), nullable ones included."""
    doc = schema()
    found: list[tuple[tuple[str, ...], dict]] = []

    def walk(node: dict, keys: tuple[str, ...]) -> None:
        if "$ref" in node:
            node = doc["$defs"][node["$ref"].rsplit("/", 1)[1]]
        for choice in node.get("anyOf", []):
            walk(choice, keys)
        if node.get("type") in ("integer", "number"):
            found.append((keys, node))
        for key, sub in node.get("properties", {}).items():
            walk(sub, (*keys, key))

    walk(doc, ())
    return found


NUMERIC = numeric_settings()


def test_every_number_of_the_settings_is_bounded_above():
    """Session 34 bounded the durations; counts, ports, sizes, retries, concurrency and thresholds had no maximum, and
    `poll.concurrency: 10**20` or `detection.ecn_polls: 10**30` passed --check."""
    assert len(NUMERIC) >= 25 and ("poll", "concurrency") in dict(NUMERIC)
    unbounded = [".".join(keys) for keys, node in NUMERIC if "maximum" not in node and "exclusiveMaximum" not in node]
    assert unbounded == []


@pytest.mark.parametrize("keys, node", NUMERIC, ids=[".".join(k) for k, _ in NUMERIC])
def test_a_number_past_its_bound_is_refused_at_load_naming_the_file_line_and_key(folder, keys, node):
    import yaml

    top = node.get("maximum", node.get("exclusiveMaximum"))
    value = top + 1 if node["type"] == "integer" else top * 1.5
    doc: dict = {"inventory": "inventory.yaml", "known_hosts": "known_hosts",
                 "sinks": {"webhook": {"url": "https://alerts.example.net/hook"}}}
    place = doc
    for key in keys[:-1]:
        place = place.setdefault(key, {})
    place[keys[-1]] = value
    text = yaml.safe_dump(doc, sort_keys=False)
    path = write(folder, text)
    line = 1 + [n for n, row in enumerate(text.splitlines()) if row == f"{'  ' * (len(keys) - 1)}{keys[-1]}: {value!r}"
                or row == f"{'  ' * (len(keys) - 1)}{keys[-1]}: {yaml.safe_dump(value).split()[0]}"][0]
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert (err.value.file, err.value.line) == (str(path), line), str(err.value)
    assert f"`{'.'.join(keys)}` must be at most" in str(err.value) or f"`{'.'.join(keys)}` must be below" in str(
        err.value), str(err.value)
    if keys == ("poll", "concurrency"):  # and `daemon --check` exits 2 on it, with the same words
        res = losslessd("daemon", "--config", path, "--check", env=ENV)
        assert res.returncode == 2 and "`poll.concurrency` must be at most 1024" in res.stderr, res.stderr


@pytest.mark.parametrize("pause, ratio, refused", [
    (100.0, 7.2e7, False),  # 3 counters (ECN marks, CNPs sent, CNPs handled) x 2.4e9/s over 100 pauses/s
    (100.0, 1e8, True),  # (below the ratio's own cap, MAX_FRAMES_PER_S: it passed --check)
    (1e6, 7300.0, True),
])
def test_an_ecn_marks_per_pause_threshold_no_port_can_meet_is_refused(folder, pause, ratio, refused):
    """`ecn_min_marks_per_pause` is marks per pause frame, a ratio, but was bounded as a rate (2.4e9): a threshold above
    what any port can mark per pause (the evidence's counters over ecn_min_pause_per_s) was taken, and
    ecn_not_marking then opened on every sustained pausing, however well ECN marked."""
    path = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\ndetection:\n"
                         f"  ecn_min_pause_per_s: {pause!r}\n  ecn_min_marks_per_pause: {ratio!r}\n")
    if not refused:
        assert load_settings(path, ENV).detection.ecn_min_marks_per_pause == ratio
        return
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert (err.value.file, err.value.line) == (str(path), 5), str(err.value)
    assert err.value.message.startswith("`detection.ecn_min_marks_per_pause` must be at most ") \
        and "every sustained pausing" in str(err.value), str(err.value)


@pytest.mark.parametrize("url, says", [
    ("https://hooks.example/services/T0/B0/s3cr3tT0KEN x", "without spaces or control characters"),
    # a control character: --check passed it, and each POST's logged reason then quoted the URL's path and query
    ("https://hooks.example/services/T0/B0/s3cr3tT0KEN\x00", "without spaces or control characters"),
    ("https://hooks.example/services/T0/B0/s3cr3tT0KEN\x1b]0;x\x07", "without spaces or control characters"),
    # a port no socket has: --check passed it, and each POST failed on a name lookup
    ("https://hook:s3cr3tT0KEN@hooks.example:99999/services", "port is not a number from 1 to 65535"),
    # a password holding an unencoded #: urllib's error quoted what it took for the port, the password
    ("https://bot:s3cr3tT0KEN#tW@hooks.example/alert", "port is not a number from 1 to 65535"),
    ("https://hook:s3cr3tT0KEN@hooks.example:0/services", "port is not a number from 1 to 65535"),  # (RFC 6335 6)
    # not ASCII (a Latin-1 letter, a C1 control): --check passed it, and every POST failed to encode its request line
    ("https://hooks.example/services/T0/B0/s3cr3tT0KEN\u00e9", "of printable ASCII"),
    ("https://hooks.example/services/T0/B0/s3cr3tT0KEN\u009b31m", "of printable ASCII"),
    ("https://hooks.example/s3cr3tT0KEN\u2028x", "of printable ASCII"),
])
def test_a_webhook_url_that_cannot_be_used_is_refused_without_repeating_its_token(folder, url, says):
    path = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\nsinks:\n  webhook:\n"
                         f"    url: {json.dumps(url)}\n")
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert (err.value.file, err.value.line) == (str(path), 5) and says in str(err.value)
    assert "s3cr3tT0KEN" not in str(err.value)


@pytest.mark.parametrize("host", ["0.0.0.0", "'::'", "192.0.2.1", "'fe80::1%lo'", "'::ffff:0.0.0.0'"])
def test_metrics_off_loopback_needs_allow_remote(folder, host):
    """/-/reload has no authentication: `http.host: 0.0.0.0` (or `::`, a routable address) passed --check and was
    served with a warning in the log alone; now refused at its line unless `http.allow_remote: true` says so."""
    path = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\nhttp:\n  host: {host}\n")
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert err.value.line == 4 and "is not a loopback address" in str(err.value)
    assert "http.allow_remote: true" in str(err.value)
    allowed = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\nhttp:\n  host: {host}\n"
                            "  allow_remote: true\n")
    assert load_settings(allowed, ENV).http.host == host.strip("'")


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.53", "'::1'", "'::ffff:127.0.0.1'", "localhost"])
def test_loopback_metrics_need_no_opt_in(folder, host):
    path = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\nhttp:\n  host: {host}\n")
    assert load_settings(path, ENV).http.allow_remote is False


def routable_address() -> str | None:
    """An address of this machine that is not a loopback one, if it has one."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.254", 9))  # (no packet is sent: it picks the route's source address)
        address = probe.getsockname()[0]
        return None if address.startswith("127.") else address
    return None


def test_a_host_name_resolving_off_loopback_is_refused_when_bound(folder, caplog):
    """A host name is known only once resolved: one resolving to a routable address stops the daemon at start (exit
    2), its metrics never served. The name is stood in for by its address, past the settings' check of literals."""
    address = routable_address()
    if address is None:
        pytest.skip("this machine has no routable address to bind")
    settings = load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nhttp: {port: 0}\n"
                                           "history: {path: h.db}\n"), ENV)
    settings.http = settings.http.model_copy(update={"host": address})
    assert asyncio.run(asyncio.wait_for(Daemon(settings).run(), 120)) == 2  # (before: served until stopped)
    assert any("is not a loopback address" in r.getMessage() and address in r.getMessage() for r in caplog.records)


def test_an_address_off_loopback_is_refused_before_it_listens():
    """The check of the bound address came after listen(): for one turn of the loop a client off the host could
    connect to /-/reload of a daemon about to refuse its address. Now refused between bind and listen."""
    address = routable_address()
    if address is None:
        pytest.skip("this machine has no routable address to bind")

    async def start(**allowed: bool) -> HttpFace:
        return await HttpFace(address, 0, scrape=lambda *_: None, healthy=lambda: True, ready=lambda: True,
                              reload=lambda: None, **allowed).start()

    async def run() -> None:
        with pytest.raises(NotLoopback):
            await start()  # (before: served, the daemon closing it only after)
        face = await start(allow_remote=True)
        try:
            assert (face.address, face.loopback) == (address, False)
        finally:
            await face.close()

    asyncio.run(run())


def test_a_webhook_url_scheme_in_capitals_is_the_same_scheme(folder):
    """RFC 3986 3.1: a scheme is case-insensitive (`HTTPS://` is https); it was refused."""
    for url in ("HTTPS://hooks.example:65535/services/T0", "Http://127.0.0.1:1/"):
        path = write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\nsinks:\n  webhook:\n"
                             f"    url: {json.dumps(url)}\n")
        assert load_settings(path, ENV).sinks.webhook.url == url


def test_problems_in_named_files_point_at_those_files(folder):
    path = write(folder, "inventory: inventory.yaml\nknown_hosts: missing_known_hosts\n")
    with pytest.raises(InputError, match="missing_known_hosts") as err:
        load_settings(path, ENV)
    assert (err.value.file, err.value.line) == (str(path), 2)
    path = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n")
    with pytest.raises(InputError, match="LEAF_PW") as err:  # the inventory's own error, at its own line
        load_settings(path, {"LEAF_COMMUNITY": "public"})
    assert err.value.file.endswith("inventory.yaml") and err.value.line == 6
    path = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nsinks:\n  webhook:\n"
                         "    url: http://127.0.0.1:1/\n    headers_env: {Authorization: UNSET_TOKEN}\n")
    with pytest.raises(InputError, match="UNSET_TOKEN") as err:
        load_settings(path, ENV)
    assert err.value.line == 6


def test_shipped_example_settings_are_valid():
    s = read_settings(EXAMPLE)
    assert s.http.host == "127.0.0.1"
    assert str(s.history_path).startswith("/var/lib/losslessd/")  # systemd StateDirectory of the unit
    assert s.known_hosts_path == EXAMPLE.resolve().parent / "known_hosts"  # /etc/losslessd/ once installed


def test_check_flag_exit_codes(folder):
    env = dict(os.environ, **ENV)
    good = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n")
    res = losslessd("daemon", "--config", good, "--check", env=env)
    assert res.returncode == 0, res.stderr
    assert "valid; 1 devices" in res.stdout
    bad = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\npoll: {jitter: 2}\n")
    res = losslessd("daemon", "--config", bad, "--check", env=env)
    assert res.returncode == 2 and f"{bad}:3" in res.stderr


def test_check_lists_every_inventory_problem_as_an_error_line(folder):
    """The daemon writes each inventory problem in the one error form every command uses, then exits 2."""
    (folder / "inventory.yaml").write_text("hosts:\n  a: {hostname: 192.0.2.1, platform: bogus}\n"
                                           "  b: {hostname: 192.0.2.2, platform: sonic}\n")
    res = losslessd("daemon", "--config", write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"),
                    "--check", env=dict(os.environ, **ENV))
    lines = res.stderr.splitlines()
    assert res.returncode == 2 and len(lines) >= 2, res.stderr
    assert all(line.startswith(f"losslessd: error: {folder / 'inventory.yaml'}:") for line in lines)
    assert "host a: platform 'bogus'" in res.stderr and "host b: no `username`" in res.stderr


def test_check_fails_on_a_history_file_the_daemon_could_not_open(folder):
    """--check said "valid" (exit 0) for a history the daemon then could not open at its start: a folder that does
    not exist, another program's SQLite file, a file that is no database. It checks the file now (writing nothing),
    and an empty file (which the daemon makes a history of) or a history of its own still passes."""
    import sqlite3

    env = dict(os.environ, **ENV)
    config = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nhistory: {path: gone/history.db}\n")
    res = losslessd("daemon", "--config", config, "--check", env=env)
    assert res.returncode == 2 and "history.db: the history file's folder" in res.stderr
    assert "does not exist" in res.stderr and not (folder / "gone").exists()
    config = write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\nhistory: {path: h.db}\n")
    other = sqlite3.connect(folder / "h.db")
    other.execute("CREATE TABLE notes (text)")
    other.commit()
    other.close()
    res = losslessd("daemon", "--config", config, "--check", env=env)
    assert res.returncode == 2 and "not a losslessd history database (another program's SQLite file)" in res.stderr
    (folder / "h.db").write_text("plain text\n")
    res = losslessd("daemon", "--config", config, "--check", env=env)
    assert res.returncode == 2 and "file is not a database" in res.stderr
    (folder / "h.db").write_text("")
    assert losslessd("daemon", "--config", config, "--check", env=env).returncode == 0
    assert (folder / "h.db").read_bytes() == b""  # looked at, not written
    (folder / "h.db").unlink()
    History(folder / "h.db").close()
    assert losslessd("daemon", "--config", config, "--check", env=env).returncode == 0


# -- scheduler --------------------------------------------------------------------------------------
def fixed(value: float):
    return lambda: value


def test_schedule_spreads_first_polls_and_keeps_cadence():
    values = iter([0.0, 0.5, 0.99] + [0.0] * 10)
    s = Schedule(10, jitter=0.0, rand=lambda: next(values))
    s.set_devices(["a", "b", "c"], now=100.0)
    assert s.due(100.0) == ["a"]
    assert s.due(105.0) == ["b"]  # a is running: never polled twice at once
    assert s.next_due() == pytest.approx(109.9)
    # a's poll took 3 s: its next poll keeps the 10 s cadence from its due time, not from its end
    assert s.done("a", True, now=103.0) == pytest.approx(110.0)
    # b fell behind by more than a whole interval: polled again at once, not in a burst of catch-ups
    assert s.done("b", True, now=120.0) == pytest.approx(120.0)


def test_a_device_taken_out_and_put_back_while_its_slow_poll_runs_is_not_polled_twice_at_once():
    """Two reloads inside one slow poll (an SSH poll may take a minute: an inventory edit, then its revert): the second
    made the device a fresh slot, due at once, beside the poll still running, and the two polls fed one device's
    counter tracker and SNMP state side by side; the old poll's end then marked the new one's slot idle. Now the slot
    of a running poll is kept, gone, until the poll ends; put back meanwhile, the device waits for it."""
    s = Schedule(10, jitter=0.0, rand=fixed(0.0))
    s.set_devices(["a"], now=0.0)
    assert s.due(0.0) == ["a"]
    assert s.set_devices([], now=5.0) == ["a"] and s.devices == []
    assert s.set_devices(["a"], now=6.0, at_once=True) == [] and s.devices == ["a"]
    assert s.due(6.0) == [] and s.next_due() is None  # the first poll still runs
    assert s.done("a", True, now=30.0) == pytest.approx(30.0)
    assert s.due(30.0) == ["a"]
    assert s.set_devices([], now=31.0) == ["a"]
    assert s.done("a", True, now=32.0) is None and s.devices == [] and s.due(100.0) == []


def test_schedule_jitter_stays_within_its_fraction():
    for r, first, step in ((0.0, 0.0, 8.0), (1.0, 10.0, 12.0)):  # rand() at its extremes: 10 s -20 % / +20 %
        s = Schedule(10, jitter=0.2, rand=fixed(r))
        s.set_devices(["a"], now=0.0)
        assert s.due(first) == ["a"]
        assert s.done("a", True, now=first) == pytest.approx(first + step)


def test_failing_device_backs_off_then_recovers_by_itself():
    s = Schedule(1, jitter=0.0, backoff_initial_s=2, backoff_max_s=8, rand=fixed(1.0))
    s.set_devices(["a"], now=0.0)
    now, waits = 1.0, []
    for _ in range(5):
        assert s.due(now) == ["a"]
        nxt = s.done("a", False, now)
        waits.append(nxt - now)
        now = nxt
    assert waits == [2, 4, 8, 8, 8] and s.failures("a") == 5  # doubling, capped
    s.due(now)
    assert s.done("a", True, now) == pytest.approx(now + 1) and s.failures("a") == 0


def test_a_refresh_schedule_reads_at_once_retries_within_the_backoff_and_is_put_off_by_drift():
    """The daemon's config reads (Daemon._read_config): the first at once, not spread over the hour; a failed one
    again within backoff_max_s, not an hour later; one a drift run did is not done again for an interval."""
    s = Schedule(3600, jitter=0.0, backoff_initial_s=2, backoff_max_s=8, rand=fixed(1.0), retry_early=True)
    s.set_devices(["a", "b"], now=0.0, at_once=True)
    assert s.due(0.0) == ["a", "b"]
    waits = []
    now = 0.0
    for _ in range(4):
        nxt = s.done("a", False, now)
        waits.append(nxt - now)
        now = nxt
        assert s.due(now) == ["a"]
    assert waits == [2, 4, 8, 8]  # the poll schedule's would be [3600] * 4: max(interval, backoff)
    assert s.done("b", True, 1.0) == pytest.approx(3600.0)
    s.defer("a", now)  # (running: a poll under way ends by itself)
    s.done("a", False, now)
    s.defer("a", now)  # a drift run read it
    assert s.failures("a") == 0 and s.next_due() == pytest.approx(3600.0) and s.due(now + 10) == []
    s.set_devices(["a", "b", "c"], now=50.0, at_once=True)
    assert s.due(50.0) == ["c"]  # one that joined (a reload): at once


def test_schedule_forgets_removed_devices():
    s = Schedule(5, rand=fixed(0.0))
    s.set_devices(["a", "b"], now=0.0)
    s.due(0.0)
    assert s.set_devices(["b", "c"], now=1.0) == ["a"]
    assert s.done("a", True, 2.0) is None and sorted(s.devices) == ["b", "c"]


def test_runner_bounds_concurrency_and_a_slow_device_delays_nobody():
    """Real asyncio: 'slow' holds its slot until the others have each polled five times; a runner that
    waited for it would never get there (the wait below would time out)."""

    async def scenario():
        clock = asyncio.get_running_loop().time
        polls: dict[str, int] = {}
        running, peak = 0, 0
        others_polled = asyncio.Event()
        seen: dict[str, int] = {}

        async def job(device: str) -> bool:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            try:
                if device == "slow":
                    await others_polled.wait()
                else:
                    await asyncio.sleep(0)
            finally:
                running -= 1
            polls[device] = polls.get(device, 0) + 1
            if not others_polled.is_set() and all(polls.get(d, 0) >= 5 for d in "abc"):
                seen.update(polls)
                others_polled.set()
            return True

        schedule = Schedule(0.02, jitter=0.0, rand=fixed(0.0))
        schedule.set_devices(["slow", "a", "b", "c"], clock())
        runner = Runner("test", schedule, job, concurrency=2, clock=clock)
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(stop))
        try:
            await asyncio.wait_for(others_polled.wait(), 60)
        finally:
            stop.set()
            await task
        return seen, peak

    seen, peak = asyncio.run(scenario())
    assert peak <= 2
    assert seen.get("slow", 0) == 0  # still in its first poll ...
    assert min(seen[d] for d in "abc") >= 5  # ... while the others kept their cadence on the second slot


def test_runner_counts_a_crashing_job_as_a_failed_poll():
    async def scenario():
        clock = asyncio.get_running_loop().time

        async def job(device: str) -> bool:
            raise RuntimeError("bug")

        async def two_failures() -> None:  # the runner went on after the first crash and counted both
            while schedule.failures("a") < 2:
                await asyncio.sleep(0.001)

        schedule = Schedule(0.01, jitter=0.0, backoff_initial_s=0.01, backoff_max_s=0.02, rand=fixed(0.0))
        schedule.set_devices(["a"], clock())
        runner = Runner("test", schedule, job, concurrency=1, clock=clock)
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(stop))
        try:
            await asyncio.wait_for(two_failures(), 60)
        finally:
            stop.set()
            await task
        return schedule.failures("a")

    assert asyncio.run(scenario()) >= 2


# -- sd_notify --------------------------------------------------------------------------------------
def test_notify_reaches_an_abstract_socket_and_computes_the_watchdog_half_period():
    name = f"losslessd-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind("\0" + name)
        listener.settimeout(2)
        n = Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": str(os.getpid())})
        assert n.watchdog_interval_s == 1.5
        assert n.ready("polling 3 devices")
        assert listener.recv(4096).decode().split("\n") == ["READY=1", "STATUS=polling 3 devices"]
        assert n.watchdog() and listener.recv(4096) == b"WATCHDOG=1"
        assert n.stopping() and listener.recv(4096).startswith(b"STOPPING=1")


def test_notify_never_waits_for_a_manager_that_does_not_read():
    """A listener that reads nothing fills its datagram queue (net.unix.max_dgram_qlen): the sends after that
    fail (logged once) instead of blocking. They blocked the daemon's event loop, so a daemon whose start took
    longer than ten watchdog pings never became ready while test_sd_notify's listener waited for ready."""
    name = f"losslessd-test-notify-full-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind("\0" + name)
        n = Notifier({"NOTIFY_SOCKET": "@" + name})
        sent: list[bool] = []
        sender = threading.Thread(target=lambda: sent.extend(n.watchdog() for _ in range(1000)), daemon=True)
        sender.start()
        sender.join(60)  # a bound for a send that blocks, not a measure of speed
        assert not sender.is_alive() and len(sent) == 1000
        assert sent[0] and not sent[-1]  # the first went out; once the queue was full, the rest were refused
        assert listener.recv(4096) == b"WATCHDOG=1"


def test_notify_is_silent_outside_systemd_and_for_another_pid():
    assert Notifier({}).ready("x") is False
    other = Notifier({"NOTIFY_SOCKET": "@nobody-listens", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"})
    assert other.watchdog_interval_s is None  # the watchdog is meant for another process
    assert other.send("STATUS=x") is False  # nothing bound there: a logged warning, not an exception


# -- drift ------------------------------------------------------------------------------------------
def finding(code: str, device: str = "leaf1", port: str | None = "Ethernet0", key: str = "", message: str = "m"):
    return Finding(code=code, name="x", severity=Severity.warning, message=message, device=device, port=port, key=key)


def test_drift_first_run_is_the_baseline_then_changes_raise_events():
    d = Drift()
    first = d.compare([finding("PFC001"), finding("ECN002")], ["leaf1", "leaf2"], now=100.0)
    assert first.events == [] and first.counts("leaf1") == {("PFC001", "warning"): 1, ("ECN002", "warning"): 1}
    assert first.findings["leaf2"] == []  # a clean device is recorded as clean
    # a message change is no drift (fingerprints ignore messages); ECN002 cleared, BUF003 is new
    second = d.compare([finding("PFC001", message="other words"), finding("BUF003")], ["leaf1", "leaf2"], now=200.0)
    kinds = sorted((e.kind, e.code) for e in second.events)
    assert kinds == [("finding_cleared", "ECN002"), ("finding_new", "BUF003")]
    new = next(e for e in second.events if e.kind == "finding_new")
    assert new.open and new.basis == "lint" and new.start_unix_s == 200.0
    third = d.compare([finding("PFC001")], ["leaf1", "leaf2"], now=300.0)
    ended = [e for e in third.events if e.kind == "finding_new"]
    assert ended == [new] and new.end_unix_s == 300.0  # the new finding's event ends when it clears
    assert [e.code for e in third.events if e.kind == "finding_cleared"] == ["BUF003"]


def test_drift_continues_from_the_history_after_a_restart():
    before = Drift()
    before.compare([finding("PFC001")], ["leaf1"], now=1.0)
    opened = before.compare([finding("PFC001"), finding("BUF003")], ["leaf1"], now=2.0).events[0]

    def stored(f: Finding) -> StoredFinding:  # as History.findings(latest=True) gives them back
        return StoredFinding(2.0, f.device, f.code, f.severity.value, f.port, f.message, f.fingerprint)

    after = Drift()
    after.restore([stored(finding("PFC001")), stored(finding("BUF003"))], [opened])
    result = after.compare([finding("PFC001")], ["leaf1"], now=3.0)
    fresh = Drift()
    fresh.restore([], [])  # an empty history: the first run is a baseline, not a flood of finding_new
    assert fresh.compare([finding("PFC001")], ["leaf1"], now=3.0).events == []
    assert [e.id for e in result.events if e.kind == "finding_new"] == [opened.id]  # the same event ends
    assert [e.code for e in result.events if e.kind == "finding_cleared"] == ["BUF003"]


def test_drift_keeps_the_findings_of_a_device_it_could_not_read():
    """leaf3 down at the second run: its own findings, leaf2's link finding naming it and the fabric's
    findings stand (no finding_cleared, nothing recorded for them); leaf1, read, drifts as usual."""
    link = finding("LNK003", "leaf2", key="leaf2-leaf3")
    link.devices = ["leaf2", "leaf3"]
    fabric = finding("DLK001", device=None, port=None)
    devices = ["leaf1", "leaf2", "leaf3"]
    d = Drift()
    d.compare([finding("PFC001"), finding("BUF003", "leaf3"), link, fabric], devices, now=1.0)
    down = d.compare([finding("SYS010", "leaf3", None)], devices, now=2.0, missing=["leaf3"])
    assert [(e.kind, e.code) for e in down.events] == [("finding_cleared", "PFC001")]
    assert set(down.findings) == {"leaf1"}  # the others' last runs stay the latest recorded
    back = d.compare([finding("BUF003", "leaf3"), link, fabric], devices, now=3.0)
    assert back.events == [] and back.counts("leaf3") == {("BUF003", "warning"): 1}
    late = Drift()  # leaf3 down at the baseline run: its first read completes the baseline, no flood
    assert late.compare([finding("PFC001")], devices, now=1.0, missing=["leaf3"]).events == []
    assert late.compare([finding("PFC001"), finding("BUF003", "leaf3"), fabric], devices, now=2.0).events == []
    assert [e.code for e in late.compare([finding("PFC001")], devices, now=3.0).events] == ["BUF003", "DLK001"]


def test_what_a_poll_could_not_read_is_logged_when_it_starts_and_again_after_it_was_read(folder, caplog):
    """A counter table a device does not serve is logged once while it stays unread (not every poll), again when
    it goes missing after a poll that read it; the worker keeps only what is unread now (a reason naming a
    changing value cannot grow it poll after poll) and forgets a device that leaves."""
    import asyncio
    import logging

    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import Reading

    async def polls() -> list[str]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV),
                         ["leaf1"])
        source = next(iter(worker.pollers))
        logged = []
        for n, unread in enumerate([("no PFC table",), ("no PFC table",), (), ("no PFC table",),
                                    *[(f"queue table cut at row {i}",) for i in range(5)]]):
            caplog.clear()
            worker._read(Reading("leaf1", float(n), 1e9 + n, None, {}, unread=unread), source, 0.0)
            logged += [r.getMessage() for r in caplog.records if "poll of leaf1: " in r.getMessage()]
            assert len(worker._unread) == (1 if unread else 0)
        worker.configure(worker.settings, [])
        assert worker._unread == {}
        return logged

    caplog.set_level(logging.WARNING, logger="losslessd")
    logged = asyncio.run(polls())
    assert [m.split(": ", 1)[1] for m in logged] == [
        "no PFC table", "no PFC table", *[f"queue table cut at row {i}" for i in range(5)]]



def test_a_settings_reload_that_makes_new_detectors_keeps_the_queue_maps_read(folder):
    """A reload that changes the detection thresholds makes new detectors; the priority -> queue maps came from the
    configs read at start, which a reload does not read again: the new detectors read priority 3's ECN marks on queue
    4 as before (without the maps every queue's marks would be unknown until the next config refresh, an hour)."""
    import asyncio

    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import QueueMaps

    base = "inventory: inventory.yaml\nknown_hosts: known_hosts\n"
    maps = QueueMaps({"Ethernet0": {3: [4]}}, {"Ethernet0": {3: [3]}})

    async def reload() -> tuple[object, object]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, base), ENV), ["leaf1"])
        worker.set_configs({}, {"leaf1": maps})
        before = worker.detectors
        worker.configure(load_settings(write(folder, base + "detection: {ecn_polls: 5}\n"), ENV), ["leaf1"])
        return before, worker.detectors

    before, after = asyncio.run(reload())
    assert after is not before and after.t.ecn_polls == 5
    assert after._queues == {"leaf1": {"Ethernet0": {3: [4]}}} and after._paused == {"leaf1": {"Ethernet0": {3: [3]}}}


def test_counters_held_at_a_clears_floor_are_logged_once_and_exported(folder, caplog):
    """After `sonic-clear queue wredcounters` and a syncd restart beneath its cache, SONiC prints a queue's marks as 0
    until its count passes the cached one (sonic-utilities netstat.py ns_diff: max(0, new - old)); a queue that stopped
    marking never does, and its marks stay unknown. The worker says so once (naming the cache and the remedy) and
    exports losslessd_counters_floored{device}, back to 0 when the counter leaves the floor."""
    import asyncio
    import logging

    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import ECN_MARKED, Key, Reading

    a, b = Key("Ethernet0", ECN_MARKED, 3), Key("Ethernet4", ECN_MARKED, 3)
    printed = [(1_000, 5_000), (1_100, 5_100), (0, 0), (0, 40), (0, 90), (0, 140), (50, 190), (90, 240)]

    async def polls() -> tuple[list[str], list[float]]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV),
                         ["leaf1"])
        source = next(iter(worker.pollers))
        logged, gauge = [], []
        for n, (x, y) in enumerate(printed):
            caplog.clear()
            worker._read(Reading("leaf1", 10.0 * n, 1e9 + 10 * n, None, {a: x, b: y},
                                 cached={a: "2026-12-03T10:00:00", b: "2026-12-03T10:00:00"}), source, 0.0)
            logged += [r.getMessage() for r in caplog.records if "clear" in r.getMessage()]
            [family] = [f for f in worker.metrics.collect(counters=False) if f.name == "losslessd_counters_floored"]
            gauge += [s.value for s in family.samples if s.labels == {"device": "leaf1"}]
        return logged, gauge

    caplog.set_level(logging.WARNING, logger="losslessd")
    logged, gauge = asyncio.run(polls())
    assert gauge == [0, 0, 2, 2, 1, 1, 1, 0]  # each leaves the floor with an interval that starts above 0
    [message] = logged
    assert "2 counters of leaf1" in message and "Ethernet0 ecn_marked 3" in message
    assert "read-only account" in message and "wredstat -d" in message

def test_a_source_a_reload_takes_off_a_device_drops_what_it_kept_of_it(folder, caplog):
    """A reload that stops a source polling a device still in the inventory (here ssh_counters_interval_s: null; a
    host's snmp or gnmi section removed does the same): that source's last failed poll held losslessd_up at 0 for
    good, its last counters stood frozen (a rate of 0: a queue that never marks), and the device's spell of late
    polls stayed open, so no later spell was said; the queues it counted stayed learned, so the storm detector went
    blind where only it counted them without saying so."""
    import logging

    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import ECN_MARKED, TX_PACKETS, Key, Reading

    base = "inventory: inventory.yaml\nknown_hosts: known_hosts\n"

    def leaf1(worker: ShardWorker) -> dict[tuple[str, str], float]:
        return {(s.name, s.labels.get("source", "")): s.value for f in worker.metrics.collect() for s in f.samples
                if s.labels.get("device") == "leaf1"}

    async def reloads() -> tuple[dict, dict, list[str]]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, base), ENV), ["leaf1"])
        assert "leaf1" in worker.targets["ssh"] and "leaf1" in worker.targets["snmp"]
        worker._read(Reading("leaf1", 0.0, 1e9, None, {Key("Ethernet0", ECN_MARKED, 3): 7}), "ssh", 0.0)
        for t, sent in ((10.0, 10), (20.0, 90)):  # the ssh source counts Ethernet4's queues
            worker._read(Reading("leaf1", t, 1e9 + t, None, {Key("Ethernet0", ECN_MARKED, 3): 7,
                                                                Key("Ethernet4", TX_PACKETS, 3): sent}), "ssh", t)
        learned.append(set(worker.detectors._devices["leaf1"].drain_known))
        worker._failed("leaf1", "ssh", 0.0, "timed out")
        worker._read(Reading("leaf1", 0.0, 1e9, None, {}), "snmp", 0.0)
        worker.runners["ssh"].started("leaf1", 1000.0)  # (interval 60 s)
        before = leaf1(worker)
        worker.configure(load_settings(write(folder, base + "poll: {ssh_counters_interval_s: null}\n"), ENV),
                         ["leaf1"])
        after = leaf1(worker)
        learned.append(set(worker.detectors._devices["leaf1"].drain_known))
        worker.configure(load_settings(write(folder, base), ENV), ["leaf1"])
        caplog.clear()
        worker.runners["ssh"].started("leaf1", 1000.0)
        return before, after, [r.getMessage() for r in caplog.records]

    learned: list[set[str]] = []  # the ports whose queue drain the storm detector can see, before and after
    caplog.set_level(logging.INFO, logger="losslessd")
    before, after, logged = asyncio.run(reloads())
    assert learned == [{"Ethernet4"}, set()]  # (kept, the storm detector went blind there without saying so)
    assert before[("losslessd_up", "")] == 0 and before[("losslessd_polls_late_total", "ssh")] == 1
    assert any(name.startswith("losslessd_ecn") for name, _ in before)
    assert after[("losslessd_up", "")] == 1  # snmp's last poll, the one source polling it now
    assert not [k for k in after if k[1] == "ssh" or k[0].startswith("losslessd_ecn")]
    assert [m for m in logged if m.startswith("ssh polls start late: leaf1's")]  # a new spell, said


def test_the_late_poll_warning_names_what_bounds_the_sources_slots(folder, caplog):
    """The late-poll warning told every source to raise poll.concurrency; a gNMI poller's slots are one per device
    it streams (GnmiCounters.concurrency), which that setting does not touch: each source names its own bound."""
    import logging

    from losslessd.daemon.worker import ShardWorker

    async def late() -> list[str]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV),
                         ["leaf1"])
        for source in ("ssh", "gnmi"):
            worker.runners[source].started("leaf1", 100_000.0)
        return [r.getMessage() for r in caplog.records if "polls start late" in r.getMessage()]

    caplog.set_level(logging.INFO, logger="losslessd")
    ssh, gnmi = asyncio.run(late())
    assert ssh.startswith("ssh polls start late") and "(poll.concurrency) are held by slower ones: raise poll." in ssh
    assert gnmi.startswith("gnmi polls start late") and "(one per device streamed)" in gnmi
    assert "poll.concurrency" not in gnmi


def test_a_worker_log_line_the_log_cannot_take_is_dropped_not_raised():
    """The daemon's log on a full disk (/dev/full answers every write with ENOSPC): a worker's forwarded line
    raised out of logs.write_line and ended the task reading that worker's stderr, which then blocked on its full
    pipe. The line is dropped, as logging drops a record it cannot write."""
    from losslessd.daemon import logs

    full = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115 - closed below, where its last flush fails too
    logs.configure("info", stream=full)
    try:
        logs.write_line('{"msg": "a worker line"}')  # (raised OSError: No space left on device)
    finally:
        logs.configure("info")
        with contextlib.suppress(OSError):
            full.close()


@pytest.mark.parametrize("argv, held", [
    (["/usr/bin/losslessd", "daemon", "--config", "d.yaml"], True),
    (["/usr/bin/losslessd", "--debug", "daemon", "--check", "--config", "d.yaml"], True),
    (["/opt/losslessd/losslessd/__main__.py", "daemon"], True),
    (["/usr/bin/losslessd", "lint", "daemon"], False),  # a file named daemon
    (["/usr/bin/losslessd", "--version"], False),
    (["/usr/bin/python3", "daemon"], False),  # another program importing losslessd
])
def test_sighup_is_held_from_the_command_lines_first_import_for_the_daemon_only(monkeypatch, argv, held):
    """A SIGHUP in the first seconds after exec ended the daemon: its handler came after the command line's imports
    (typer, click, rich; ~3 s on a loaded host). The package losslessd.cli, imported before them, holds it."""
    import signal

    from losslessd.daemon import hup

    monkeypatch.setattr(hup, "_asked", False)
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        hup.hold_for_daemon_command(argv)
        assert (signal.getsignal(signal.SIGHUP) is hup._note) == held
        if held:  # a SIGHUP noted while held early is kept by the daemon command's own hold()
            os.kill(os.getpid(), signal.SIGHUP)
            hup.hold()
            assert hup.asked()
    finally:
        signal.signal(signal.SIGHUP, before)


@pytest.mark.slow
def test_the_daemon_command_holds_sighup_before_it_imports_the_command_line(tmp_path):
    import subprocess
    import sys

    probe = ("import signal, sys\nsys.argv = ['/usr/bin/losslessd', 'daemon', '--config', 'd.yaml']\n"
             "import losslessd.cli\nfrom losslessd.daemon import hup\n"
             "print(signal.getsignal(signal.SIGHUP) is hup._note, 'typer' in sys.modules, 'click' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert res.stdout.split() == ["True", "False", "False"], res.stderr


def test_the_config_reads_pull_switches_only(folder):
    """The daemon's start and refresh config reads are for queue maps and proposals, which a host's config gives
    neither of: a linux_mlx5 host (14 commands per interface to pull) is never scheduled, a switch is."""
    (folder / "inventory.yaml").write_text(INVENTORY + """\
  gpu1:
    hostname: 192.0.2.9
    platform: linux_mlx5
    data:
      credentials: {username: admin, password_env: LEAF_PW}
      interfaces: [ens1f0np0]
""")
    s = load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV)
    assert Daemon._switches(s, ["gpu1", "leaf1", "gone"]) == ["leaf1"]


def test_queue_maps_read_again_reach_a_history_opened_since(folder, tmp_path):
    """Whether a device's queue maps changed is the history's one check (History.record_queue_maps): the daemon hands
    it every read. A reload that opens another history file then gets leaf1's maps at the next read, unchanged to the
    daemon, which kept them from it (`history` could not tell which queue carries priority 3 there)."""
    daemon = Daemon(load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV))
    pulled = Pulled([], {}, queues={"leaf1": QueueMaps({"Ethernet0": {3: [4]}}, {"Ethernet0": {3: [3]}})})
    for name in ("first.db", "second.db", "second.db"):
        daemon.history = History(tmp_path / name)
        asyncio.run(daemon._take(pulled))
        daemon.history.close()
    for name, reads in (("first.db", 1), ("second.db", 1)):  # (the second read into second.db: no change, not stored)
        with contextlib.closing(sqlite3.connect(tmp_path / name)) as db:
            assert db.execute("SELECT count(*) FROM queue_map_reads").fetchone() == (reads,), name
            assert db.execute("SELECT port, priority, queues FROM queue_map_rows").fetchall() == [
                ("Ethernet0", 3, "[4]")], name


def test_events_closed_after_the_wall_clock_stepped_back_never_end_before_they_start(folder, monkeypatch):
    """NTP stepping the wall clock back an hour while a device is down: device_down opened at the first failed poll
    (time.time()) and ended at the recovering reading's wall time, an hour before it began; the same for an event
    ended by the device leaving the inventory (worker._forget) or by a settings reload. The worker's labels now come
    from one clock (losslessd.monitor.clock): never earlier than the previous label plus the monotonic time since."""
    import asyncio
    import time

    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import Reading

    real = time.time
    base = "inventory: inventory.yaml\nknown_hosts: known_hosts\n"

    def step_back() -> None:
        monkeypatch.setattr(time, "time", lambda: real() - 3600)

    def down(worker: ShardWorker, source: str) -> float:
        for _ in range(worker.settings.detection.down_after_failures):
            worker._failed("leaf1", source, time.monotonic(), "timeout")
        [event] = [e for e in worker.detectors.open_events() if e.kind == "device_down"]
        return event.start_unix_s

    async def run() -> list[tuple[str, float, float]]:
        worker = ShardWorker(0, send=lambda message: None)
        worker.configure(load_settings(write(folder, base), ENV), ["leaf1"])
        source = worker._primary("leaf1")
        ended = []
        start = down(worker, source)
        step_back()
        worker._read(Reading("leaf1", time.monotonic(), time.time(), None, {}), source, time.monotonic())
        # (an event is emitted when it opens and again when it ends: the same object)
        ended += [("poll answered", start, e.end_unix_s) for e in {id(e): e for e in worker._events}.values()
                  if e.end_unix_s is not None]
        monkeypatch.setattr(time, "time", real)
        worker._events.clear()
        for how in ("removed", "reload"):
            start = down(worker, source)
            step_back()
            if how == "removed":
                worker.configure(worker.settings, [])
                worker.configure(worker.settings, ["leaf1"])
            else:
                worker.configure(load_settings(write(folder, base + "detection: {ecn_polls: 5}\n"), ENV), ["leaf1"])
                worker.configure(load_settings(write(folder, base), ENV), ["leaf1"])
            ended += [(how, start, e.end_unix_s) for e in {id(e): e for e in worker._events}.values()
                      if e.end_unix_s is not None]
            monkeypatch.setattr(time, "time", real)
            worker._events.clear()
        return ended

    ended = asyncio.run(run())
    assert [how for how, _, _ in ended] == ["poll answered", "removed", "reload"], ended
    assert all(end >= start for _, start, end in ended), ended


@pytest.mark.parametrize("kind, says", [("fifo", "is a FIFO, not a file"), ("folder", "is a folder, not a file"),
                                        ("absent", "not found")])
def test_a_known_hosts_that_is_no_file_is_named_for_what_it_is(folder, kind, says):
    """A known_hosts path holding a FIFO or a folder was "not found" (`daemon --check`, `pull`, `tune`): the operator
    looked for a missing file that was there."""
    keys = folder / "keys"
    if kind == "fifo":
        os.mkfifo(keys)
    elif kind == "folder":
        keys.mkdir()
    path = write(folder, f"inventory: inventory.yaml\nknown_hosts: {keys}\n")
    with pytest.raises(InputError) as err:
        load_settings(path, ENV)
    assert f"known_hosts file {keys} {says}:" in str(err.value) and err.value.line == 2
    res = losslessd("pull", "-i", folder / "inventory.yaml", "-o", folder / "snap", "--known-hosts", keys, env=ENV)
    assert res.returncode == 2 and f"{keys}: known_hosts file {says}:" in res.stderr, res.stderr


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two cores this process may run on, to pin it to one")
def test_the_daemon_starts_a_worker_per_core_it_may_run_on_not_per_core_of_the_machine():
    """A daemon in a container or under `taskset -c 0` started one shard worker per core of the MACHINE
    (os.cpu_count()), each competing for the one core it may use; the lint already counted the affinity."""
    from losslessd.daemon.service import worker_count
    from losslessd.daemon.settings import Settings

    settings = Settings(inventory="unused.yaml")
    was = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(was)})
        assert worker_count(settings, None, 64) == 1
        assert worker_count(settings, 3, 64) == 3  # (asked for: as given)
    finally:
        os.sched_setaffinity(0, was)
    assert worker_count(settings, None, 64) == len(was)


def test_the_resume_window_takes_the_slowest_source_that_polls_the_device_not_one_no_device_uses(folder):
    """An interrupted event's window (service.resume_window_s) counts the detectors' polls at the slowest interval of
    the sources polling its device, as its worker reports it with the device's first answer: gNMI's sample interval (10
    s by default) counted where no device streams, and SSH's where its counters were off for the device."""
    import asyncio

    from losslessd.daemon.service import resume_window_s
    from losslessd.daemon.worker import ShardWorker
    from losslessd.monitor import Reading

    def reported(poll: str) -> tuple[object, list]:
        async def first_answer() -> list:
            worker = ShardWorker(0, send=lambda message: None)
            worker.configure(settings, ["leaf1"])
            worker._read(Reading("leaf1", 1.0, 1e9, None, {}), "snmp", 0.0)
            return worker._answered

        settings = load_settings(write(folder, f"inventory: inventory.yaml\nknown_hosts: known_hosts\npoll: {poll}\n"),
                                 ENV)
        return settings, asyncio.run(first_answer())

    settings, answered = reported("{snmp_interval_s: 1, ssh_counters_interval_s: null}")  # SNMP alone; gNMI unused
    assert answered == [("leaf1", 1.0)]
    assert resume_window_s(settings, 1.0) == 20 + 5 * 1.0  # storm_detection_s, then (ecn_polls 3 + 2) intervals
    settings, answered = reported("{snmp_interval_s: 1, ssh_counters_interval_s: 60}")  # its SSH counters too
    assert answered == [("leaf1", 60.0)]
    assert resume_window_s(settings, 60.0) == 320  # docs/daemon.md "Planned restart": 20 s + 5 x the 60 s SSH polls


def test_an_interrupted_event_continued_after_a_restart_keeps_its_start_and_peaks_to_its_end(folder, tmp_path):
    """A clean stop interrupts an open pause_rate (peak 9000/s); the next start's worker opens it again (peak 2000/s)
    and later ends it. Its opening took the interrupted one's id, start and peaks, but its end (the worker's event,
    which knows nothing of the interrupted one) took the id and start alone: the history's row was overwritten with
    the worker's peak (2000, not 9000) and without the note that it continued, and the daemon kept the id for ever."""
    from losslessd.daemon.service import INTERRUPTED_MARK
    from losslessd.monitor import Event

    def place(start: float, peak: float, end: float | None = None) -> Event:
        return Event("pause_rate", "leaf1", "Ethernet8", 3, start, "leaf1 Ethernet8 priority 3: pauses", "warning",
                     {"pause_per_s": peak, "peak_pause_per_s": peak}, end_unix_s=end)

    before = place(100.0, 9000.0, end=200.0)  # as the stop left it
    before.numbers[INTERRUPTED_MARK] = 1
    history = History(tmp_path / "h.db")
    history.record_event(before)
    history.close()
    daemon = Daemon(load_settings(write(folder, "inventory: inventory.yaml\nknown_hosts: known_hosts\n"), ENV))
    told: list[tuple[str, str, float]] = []

    class Told:  # an alert sink that keeps what it is told
        name = "told"

        async def send(self, event: Event, change: str) -> None:
            told.append((change, event.id, event.start_unix_s))

    async def run() -> None:
        daemon.history, daemon.sinks = History(tmp_path / "h.db"), Sinks([Told()])
        daemon._close_stale_events()  # (at a start: reads the interrupted events back)
        for event in (place(230.0, 2000.0), place(230.0, 2000.0, end=260.0)):  # each new from the worker
            daemon._emit(event)
        for task in list(daemon._background):
            await task
        await daemon.sinks.close()
        daemon.history.close()

    asyncio.run(run())
    assert told == [("update", before.id, 100.0), ("end", before.id, 100.0)]
    with contextlib.closing(sqlite3.connect(tmp_path / "h.db")) as db:
        rows = db.execute("SELECT id, start_unix_s, end_unix_s, message, numbers FROM events").fetchall()
    [(row_id, start, end, message, numbers)] = rows
    assert (row_id, start, end) == (before.id, 100.0, 260.0), rows
    assert json.loads(numbers)["peak_pause_per_s"] == 9000.0 and INTERRUPTED_MARK not in json.loads(numbers), rows
    assert message.endswith("(continued across a restart of losslessd: not watched while it was stopped)"), rows
    assert daemon._continued == {} and daemon._open == {}


@pytest.mark.parametrize("timeout, taken", [(0.01, True), (2_147_483_647 / 100, True), (0.009, False),
                                            (21_474_836.48, False), (9.2e9, False)])
def test_an_snmp_timeout_is_one_an_snmp_target_can_hold(folder, timeout, taken):
    """Session 45 (round 26): `poll.snmp_timeout_s` took any duration (up to threading's 9.2e9 s), but an SNMP
    target's timeout is snmpTargetAddrTimeout (RFC 3413), a TimeInterval of 0..2147483647 hundredths of a second
    (RFC 2579), as pysnmp configures it: at 9.2e9 s every poll failed ("WrongValueError") after --check had passed,
    and under a hundredth it was read as 0. The settings take the range pysnmp's target holds, and no more."""
    from pysnmp.entity import config, engine
    from pysnmp.smi.error import SmiError

    path = write(folder, f"""\
        inventory: inventory.yaml
        known_hosts: known_hosts
        poll:
          snmp_timeout_s: {timeout!r}
        """)
    snmp = engine.SnmpEngine()  # (pysnmp's own check: the call its hlapi makes per target, in hundredths)
    config.add_target_parameters(snmp, "p", "public", "noAuthNoPriv", 1)
    try:
        config.add_target_address(snmp, "a", config.SNMP_UDP_DOMAIN, ("127.0.0.1", 161), "p", timeout * 100, 0)
        held = int(timeout * 100) > 0
    except SmiError:
        held = False
    assert held == taken
    if taken:
        assert load_settings(path, ENV).poll.snmp_timeout_s == timeout
    else:
        with pytest.raises(InputError, match="snmp_timeout_s") as err:
            load_settings(path, ENV)
        assert (err.value.file, err.value.line) == (str(path), 4), str(err.value)
