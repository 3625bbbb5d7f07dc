"""Simulated gNMI targets: a grpcio server per switch on 127.0.0.1, over the gNMI protobufs
pygnmi ships, streaming the same moving counters and storms as the SNMP agents (one ``Traffic`` per
device, the variation module's formulas) on the paths its platform serves (losslessd.monitor.gnmi):
SONiC's COUNTERS_DB virtual paths as one JSON object per path, OpenConfig (with Arista's PFC
augments) leaf by leaf.

TLS with a CA made when the servers start (``ca_file``), username/password metadata checked on
every call. Faults: down (the listener closes), restart (closes and listens again on the same
port), garbage (the Traffic's garbage flag: counters become strings), stall (the stream goes quiet
before its next round), flood (rounds sent FLOOD_SPEEDUP times faster than asked).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from ..collect import gnmi as _client  # noqa: F401  (first: it quiets gRPC's core logging before grpc loads)
import grpc  # noqa: I001
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from ..monitor.gnmi import PATHS, SONIC_COUNTERS, parse_path
from .counters import (
    AVG_PACKET_BYTES,
    NORMAL_PAUSE_PER_S,
    QUEUE_PPS,
    STORM_PAUSE_PER_S,
    CounterDevice,
    carried,
    stopped_by,
    _Counters,
    _ecn_spec,
)
from .snmpsim_variation.lossless import GARBAGE, watchdog

HOST = "127.0.0.1"
_CALL_TIMEOUT_S = 30.0
MIN_INTERVAL_S = 0.05  # the shortest sample interval served (gNMI's 0 means "the target's lowest")
DEFAULT_INTERVAL_S = 10.0
STREAMS_PER_DEVICE = 8  # streams one device serves at once (a client reconnecting while its old stream ends)
FLOOD_SPEEDUP = 50  # the flood fault sends rounds this many times faster than asked
_US_PER_S = 1_000_000
Fault = Literal["stall", "flood", "echo"] | None


class GnmiDevice(CounterDevice, Protocol):
    """What a gNMI target needs of a simulated device (losslessd.sim.SimDevice has it)."""

    username: str
    password: str


@dataclass
class TlsFiles:
    """The test CA (its certificate is all a client needs) and the servers' key and certificate."""

    ca_file: Path
    key_pem: bytes
    cert_pem: bytes


def make_tls(ca_file: Path) -> TlsFiles:
    """A throwaway CA and a server certificate for 127.0.0.1 and localhost signed by it; writes
    the CA certificate to ``ca_file``."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "losslessd simulator test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address(HOST))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(ca_key, hashes.SHA256()))
    ca_file.parent.mkdir(parents=True, exist_ok=True)
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return TlsFiles(ca_file, key_pem, cert.public_bytes(serialization.Encoding.PEM))


# -- what a device serves ---------------------------------------------------------------------------

def _u(v: object) -> gnmi_pb2.TypedValue:
    return gnmi_pb2.TypedValue(uint_val=v) if isinstance(v, int) else gnmi_pb2.TypedValue(string_val=str(v))


def _oc_path(text: str) -> gnmi_pb2.Path:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=dict(k)) for n, k in parse_path(text)])


class _Values:
    """The counters of one device at one instant, with the garbage fault applied."""

    def __init__(self, device: GnmiDevice, now: float):
        self.device, self.now = device, now
        self.c = _Counters(device, now)
        self.garbage = self.c.state["garbage"]

    def __call__(self, name: str, rate: float, **spec) -> int | str:
        return GARBAGE if self.garbage else self.c(name, rate, **spec)

    def port(self, port: str) -> dict:
        key = str(self.device.if_indexes[port])
        return {"in_octets": self(f"{port}/in_octets", QUEUE_PPS * 8 * AVG_PACKET_BYTES),
                "out_octets": self(f"{port}/out_octets", QUEUE_PPS * 8 * AVG_PACKET_BYTES, stop=key),
                "in_ucast": self(f"{port}/in_ucast", QUEUE_PPS * 8), "in_mcast": self(f"{port}/in_mcast", 1.0),
                "out_ucast": self(f"{port}/out_ucast", QUEUE_PPS * 8, stop=key),
                "out_mcast": self(f"{port}/out_mcast", 1.0),
                "in_discards": self(f"{port}/in_discards", 0.5), "out_discards": self(f"{port}/out_discards", 0.5)}

    def priority(self, port: str, p: int) -> dict:
        """Pause frames each way and the time paused: during a storm a second of pause per second."""
        key = f"{self.device.if_indexes[port]}.{p}"
        pause = NORMAL_PAUSE_PER_S if p in self.device.lossless.get(port, []) else 0.0
        return {"rx": self(f"{port}/pfc{p}/rx", pause, up=key), "tx": self(f"{port}/pfc{p}/tx", pause),
                "paused_us": self(f"{port}/pfc{p}/paused_us", pause * 10, up=key, k=_US_PER_S / STORM_PAUSE_PER_S)}

    def queue(self, port: str, q: int) -> dict:
        """The queue stops sending while the priority whose pause stops it (by the port's maps: stopped_by) is paused;
        a queue carrying a lossless priority (carried) marks ECN with that priority's congestion, as the SSH
        wredcounters do."""
        idx, prio = self.device.if_indexes[port], carried(self.device, port).get(q)
        key = f"{idx}.{prio}"
        sent = self(f"{port}/q{q}/packets", QUEUE_PPS, stop=f"{idx}.{stopped_by(self.device, port).get(q)}")
        lossless = prio in self.device.lossless.get(port, [])
        return {"packets": sent, "bytes": sent if self.garbage else sent * AVG_PACKET_BYTES,
                "dropped": self(f"{port}/q{q}/dropped", 0.0),
                "ecn": self(f"{port}/q{q}/ecn", 20.0, **_ecn_spec(key)) if lossless else self(f"{port}/q{q}/ecn", 0.0)}

    def watchdog(self, port: str, q: int) -> tuple:
        detect_s, restore_s = self.device.watchdog[port]
        return watchdog(self.c.state, f"{self.device.if_indexes[port]}.{q}", self.now, detect_s, restore_s)


def sonic_notifications(device: GnmiDevice, kinds: list[str], now: float) -> list[gnmi_pb2.Notification]:
    """One notification per subscribed COUNTERS_DB virtual path, its value one JSON object."""
    v = _Values(device, now)
    out = []
    for kind in kinds:
        data: dict = {}
        if kind == "Ports":
            for port in device.ports:
                c = v.port(port)
                fields = {"SAI_PORT_STAT_IF_IN_OCTETS": c["in_octets"], "SAI_PORT_STAT_IF_OUT_OCTETS": c["out_octets"],
                          "SAI_PORT_STAT_IF_IN_UCAST_PKTS": c["in_ucast"],
                          "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS": c["in_mcast"],
                          "SAI_PORT_STAT_IF_OUT_UCAST_PKTS": c["out_ucast"],
                          "SAI_PORT_STAT_IF_OUT_NON_UCAST_PKTS": c["out_mcast"],
                          "SAI_PORT_STAT_IF_IN_DISCARDS": c["in_discards"],
                          "SAI_PORT_STAT_IF_OUT_DISCARDS": c["out_discards"]}
                for p in range(8):
                    pc = v.priority(port, p)
                    fields[f"SAI_PORT_STAT_PFC_{p}_RX_PKTS"] = pc["rx"]
                    fields[f"SAI_PORT_STAT_PFC_{p}_TX_PKTS"] = pc["tx"]
                    fields[f"SAI_PORT_STAT_PFC_{p}_ON2OFF_RX_PKTS"] = pc["rx"]
                    if p in device.lossless.get(port, []) and port in device.watchdog:
                        fields[f"SAI_PORT_STAT_PFC_{p}_RX_PAUSE_DURATION_US"] = pc["paused_us"]
                data[port] = {k: str(x) for k, x in fields.items()}  # COUNTERS_DB holds strings
        elif kind == "Queues":
            for port in device.ports:
                for q in range(8):
                    c = v.queue(port, q)
                    data[f"{port}:{q}"] = {"SAI_QUEUE_STAT_PACKETS": str(c["packets"]),
                                           "SAI_QUEUE_STAT_BYTES": str(c["bytes"]),
                                           "SAI_QUEUE_STAT_DROPPED_PACKETS": str(c["dropped"]),
                                           "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": str(c["ecn"])}
        else:  # Pfcwd: the watched (lossless) queues of ports whose watchdog is on
            for port in device.watchdog:
                for q in device.lossless.get(port, []):
                    detected, restored, stormed, _ = v.watchdog(port, q)
                    data[f"{port}:{q}"] = {"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": GARBAGE if v.garbage else str(detected),
                                           "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": str(restored),
                                           "PFC_WD_STATUS": "stormed" if stormed else "operational"}
        elems = ["COUNTERS", "Ethernet*"] + ([] if kind == "Ports" else [kind])
        out.append(gnmi_pb2.Notification(
            timestamp=time.time_ns(), prefix=gnmi_pb2.Path(target=SONIC_COUNTERS),
            update=[gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=e) for e in elems]),
                                    val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(data).encode()))]))
    return out


def openconfig_notifications(device: GnmiDevice, kinds: list[str], now: float) -> list[gnmi_pb2.Notification]:
    """Leaf updates under one prefix per interface, queue, priority and watched queue."""
    v = _Values(device, now)
    ts = time.time_ns()
    out = []

    def note(prefix: str, leaves: dict) -> None:
        out.append(gnmi_pb2.Notification(timestamp=ts, prefix=_oc_path(prefix), update=[
            gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=leaf)]), val=_u(x))
            for leaf, x in leaves.items()]))

    for port in device.ports:
        if "interfaces" in kinds:
            c = v.port(port)
            note(f"/interfaces/interface[name={port}]/state/counters", {
                "in-octets": c["in_octets"], "out-octets": c["out_octets"],
                "in-pkts": c["in_ucast"] if v.garbage else c["in_ucast"] + c["in_mcast"],
                "out-pkts": c["out_ucast"] if v.garbage else c["out_ucast"] + c["out_mcast"],
                "in-discards": c["in_discards"], "out-discards": c["out_discards"]})
        for q in range(8):
            if "queues" in kinds:
                c = v.queue(port, q)
                note(f"/qos/interfaces/interface[interface-id={port}]/output/queues/queue[name={q}]/state",
                     {"name": str(q), "transmit-pkts": c["packets"], "transmit-octets": c["bytes"],
                      "dropped-pkts": c["dropped"], "ecn-marked-pkts": c["ecn"]})
            if "pfc" in kinds:
                c = v.priority(port, q)
                note(f"/interfaces/interface[name={port}]/ethernet/pfc/priorities/priority[index={q}]/state",
                     {"index": q, "in-frames": c["rx"], "out-frames": c["tx"],
                      "pfc-on-total-rx-time": c["paused_us"] if v.garbage else c["paused_us"] * 1000})
        if "watchdog" in kinds and port in device.watchdog:
            for q in device.lossless.get(port, []):
                detected, restored, _, _ = v.watchdog(port, q)
                note(f"/interfaces/interface[name={port}]/ethernet/pfc/watchdog/tx-queues/tx-queue"
                     f"[index={q}][queue-type=UNICAST]/state",
                     {"stuck-count": GARBAGE if v.garbage else detected, "recovery-count": restored})
    return out


# What each subscription path is called in the builders above.
_KINDS = {"COUNTERS/Ethernet*": "Ports", "COUNTERS/Ethernet*/Queues": "Queues", "COUNTERS/Ethernet*/Pfcwd": "Pfcwd",
          "/interfaces/interface[name=*]/state/counters": "interfaces",
          "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state": "queues",
          "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=*]/state": "pfc",
          "/interfaces/interface[name=*]/ethernet/pfc/watchdog/tx-queues/tx-queue[index=*][queue-type=*]/state":
              "watchdog"}


def _path_key(path: gnmi_pb2.Path) -> tuple:
    return tuple((e.name, tuple(sorted(e.key.items()))) for e in path.elem)


class _Target(gnmi_pb2_grpc.gNMIServicer):
    def __init__(self, device: GnmiDevice, servers: GnmiServers):
        self.device, self.servers = device, servers
        served = PATHS[device.platform]
        self.kinds = {parse_path(p.text): _KINDS[p.text] for p in served}
        self.target = served[0].target

    def _accept(self, request_iterator, context):
        """(SubscriptionList, kinds of its paths), or (code, details) of why the call is refused."""
        request = next(request_iterator, None)
        meta = dict(context.invocation_metadata())
        if self.servers.faults.get(self.device.name) == "echo":  # refuses, quoting the login it was sent
            return None, (grpc.StatusCode.UNAUTHENTICATED,
                          f"user {meta.get('username')!r} with password {meta.get('password')!r} not accepted")
        if meta.get("username") != self.device.username or meta.get("password") != self.device.password:
            return None, (grpc.StatusCode.UNAUTHENTICATED, "username or password not accepted")
        if request is None or request.WhichOneof("request") != "subscribe" or \
                request.subscribe.mode != gnmi_pb2.SubscriptionList.STREAM:
            return None, (grpc.StatusCode.UNIMPLEMENTED, "only STREAM subscriptions are served")
        sub = request.subscribe
        if sub.prefix.target != self.target:
            return None, (grpc.StatusCode.NOT_FOUND, f"unknown target {sub.prefix.target!r}")
        kinds = []
        for s in sub.subscription:
            kind = self.kinds.get(_path_key(s.path))
            if kind is None:
                return None, (grpc.StatusCode.NOT_FOUND, f"path {_path_key(s.path)} is not served")
            kinds.append(kind)
        return (sub, kinds), None

    def Subscribe(self, request_iterator, context):
        accepted, refused = self._accept(request_iterator, context)
        if refused is not None:
            context.set_code(refused[0])
            context.set_details(refused[1])
            return
        sub, kinds = accepted
        with self.servers.lock:
            self.servers.subscriptions[self.device.name] += 1
        interval = max(MIN_INTERVAL_S, (min(s.sample_interval for s in sub.subscription) / 1e9) or DEFAULT_INTERVAL_S)
        build = sonic_notifications if self.device.platform == "sonic" else openconfig_notifications
        first = True
        due = time.monotonic()
        while context.is_active():
            fault = self.servers.faults.get(self.device.name)
            if fault == "stall":  # quiet until the client gives up
                self.servers.stopping.wait(interval)
                continue
            for n in build(self.device, kinds, time.time()):
                yield gnmi_pb2.SubscribeResponse(update=n)
            if first:
                yield gnmi_pb2.SubscribeResponse(sync_response=True)
                first = False
            due = max(due + (interval / FLOOD_SPEEDUP if fault == "flood" else interval), time.monotonic())
            if self.servers.stopping.wait(due - time.monotonic()):  # a round every interval, however long one takes
                return


class GnmiServers:
    """The devices' gNMI servers: grpcio's threaded server, one per device with its own port.

    Threaded, not grpc.aio: the tests run the asyncio client in the same process, and grpc.aio on
    two event loops in one process can stall."""

    def __init__(self, tls: TlsFiles):
        self.tls = tls
        self.faults: dict[str, Fault] = {}
        self.subscriptions: Counter[str] = Counter()  # accepted Subscribe calls per device (tests read it)
        self.lock = threading.Lock()
        self.stopping = threading.Event()  # wakes streams that wait, at shutdown
        self._servers: dict[str, grpc.Server] = {}
        self._ports: dict[str, int] = {}

    def listen(self, device: GnmiDevice, port: int = 0) -> int:
        """Serve ``device`` on ``port`` (0: a free one); returns the port."""
        server = grpc.server(ThreadPoolExecutor(max_workers=STREAMS_PER_DEVICE, thread_name_prefix="sim-gnmi"),
                             options=[("grpc.so_reuseport", 0)])
        gnmi_pb2_grpc.add_gNMIServicer_to_server(_Target(device, self), server)
        creds = grpc.ssl_server_credentials([(self.tls.key_pem, self.tls.cert_pem)])
        bound = server.add_secure_port(f"{HOST}:{port}", creds)
        if not bound:
            raise OSError(f"gNMI server for {device.name} could not bind {HOST}:{port}")
        server.start()
        self._servers[device.name] = server
        self._ports[device.name] = bound
        return bound

    def close(self, name: str) -> None:
        """Stop serving ``name``: open streams end, new connections are refused."""
        server = self._servers.pop(name, None)
        if server is not None:
            server.stop(grace=None).wait(_CALL_TIMEOUT_S)

    def restart(self, device: GnmiDevice) -> None:
        """Stop and serve again on the same port (a telemetry process that restarted)."""
        self.close(device.name)
        self.listen(device, self._ports[device.name])

    def set_fault(self, name: str, fault: Fault) -> None:
        """``stall``: the streams of ``name`` go quiet (before their next round; a new one sends
        nothing); ``flood``: they send rounds FLOOD_SPEEDUP times too fast; None: normal again from
        the next round."""
        self.faults[name] = fault

    def shutdown(self) -> None:
        self.stopping.set()
        for name in list(self._servers):
            self.close(name)
