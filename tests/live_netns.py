"""A minimal test bed for the live bottleneck: two namespaces joined by ``LiveBottleneck``.

For the bottleneck's own tests and measurements only (the orchestrator of ``aqmlab live`` is
the user-facing one). Everything it makes is named ``aqlab-t<pid>-a/b`` (namespaces) and
``aqlt<pid>a/b`` (devices, which vanish with the bottleneck's fds), and is removed on exit from
the ``with`` block, whatever happened inside it. Addresses exist only inside the namespaces.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aqmlab import _core

ADDR_A = "10.77.0.1"
ADDR_B = "10.77.0.2"


def missing() -> str | None:
    """Why live tests cannot run here (one line), or None."""
    if not sys.platform.startswith("linux"):
        return "live bottleneck: Linux only"
    if os.geteuid() != 0:
        return "live bottleneck: needs root (network namespaces and TUN devices)"
    if not Path("/dev/net/tun").exists():
        return "live bottleneck: no /dev/net/tun"
    if shutil.which("ip") is None:
        return "live bottleneck: no `ip` command (iproute2)"
    return None


def sh(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


@dataclass
class Bed:
    ns_a: str
    ns_b: str
    bottleneck: Any
    config: dict[str, Any]

    def exec_a(self, code: str, *args: str) -> subprocess.Popen[str]:
        return _spawn(self.ns_a, code, args)

    def exec_b(self, code: str, *args: str) -> subprocess.Popen[str]:
        return _spawn(self.ns_b, code, args)

    def run(self, seconds: float) -> threading.Thread:
        """Starts the packet loop in a thread for ``seconds``."""
        t = threading.Thread(target=self.bottleneck.run, args=(seconds,), daemon=True)
        t.start()
        return t


def _spawn(ns: str, code: str, args: tuple[str, ...]) -> subprocess.Popen[str]:
    return _spawn_cmd(ns, [sys.executable, "-c", code, *args])


def _spawn_cmd(ns: str, cmd: list[str]) -> subprocess.Popen[str]:
    full = ["ip", "netns", "exec", ns, *cmd]
    return subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextmanager
def bed(config: dict[str, Any], ecn: bool = False, tag: str = "") -> Iterator[Bed]:
    """Namespaces a and b, the bottleneck between them (``config`` without device names),
    addresses 10.77.0.1 (a) and 10.77.0.2 (b). ``ecn``: net.ipv4.tcp_ecn=1 in both."""
    token = f"t{os.getpid()}{tag}"
    ns_a, ns_b = f"aqlab-{token}-a", f"aqlab-{token}-b"
    cfg = {"dev_a": f"aql{token}a"[:15], "dev_b": f"aql{token}b"[:15], **config}
    made: list[str] = []
    b = None
    try:
        for ns in (ns_a, ns_b):
            sh("ip", "netns", "add", ns)
            made.append(ns)
        b = _core.LiveBottleneck(json.dumps(cfg))
        dev_a, dev_b = b.devices()
        for ns, dev, me, peer in ((ns_a, dev_a, ADDR_A, ADDR_B), (ns_b, dev_b, ADDR_B, ADDR_A)):
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv4.tcp_ecn={int(ecn)}")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{me}/32", "peer", f"{peer}/32", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
        yield Bed(ns_a, ns_b, b, cfg)
    finally:
        if b is not None:
            b.stop()
            b.close()
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


#: A TCP sink in namespace b: accepts one connection on port argv[1], reads until EOF or
#: argv[2] seconds, prints {"bytes", "seconds"} measured from the first byte.
SINK = """
import json, socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.77.0.2", int(sys.argv[1]))); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(float(sys.argv[2]) + 5)
n = 0; t0 = None; t1 = None; stop = None
while True:
    try:
        d = c.recv(1 << 20)
    except socket.timeout:
        break
    if not d:
        break
    now = time.monotonic()
    if t0 is None:
        t0 = now; stop = now + float(sys.argv[2])
    n += len(d); t1 = now
    if now >= stop:
        break
print(json.dumps({"bytes": n, "seconds": (t1 - t0) if t0 else 0.0}))
"""

#: A bulk TCP sender in namespace a: from port argv[2] to port argv[1] for argv[3] seconds,
#: congestion control argv[4].
SENDER = """
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[4].encode())
s.bind(("10.77.0.1", int(sys.argv[2]))); s.connect(("10.77.0.2", int(sys.argv[1])))
s.settimeout(2)
buf = b"x" * 65536; end = time.monotonic() + float(sys.argv[3])
try:
    while time.monotonic() < end:
        s.send(buf)
except OSError:
    pass
s.close()
"""

#: A UDP echo in namespace b on port argv[1], for argv[2] seconds.
ECHO = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("10.77.0.2", int(sys.argv[1])))
s.settimeout(0.2); end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        d, a = s.recvfrom(2048)
    except socket.timeout:
        continue
    s.sendto(d, a)
"""

#: Round trips of UDP probes from namespace a: argv[1] probes to port argv[2] from port
#: argv[3], argv[4] s apart; prints the RTTs in ms as JSON.
PROBE = """
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("10.77.0.1", int(sys.argv[3])))
s.settimeout(2); out = []
for i in range(int(sys.argv[1])):
    t = time.monotonic(); s.sendto(b"p" * 56, ("10.77.0.2", int(sys.argv[2])))
    try:
        s.recvfrom(2048); out.append((time.monotonic() - t) * 1e3)
    except socket.timeout:
        pass
    time.sleep(float(sys.argv[4]))
print(json.dumps(out))
"""

#: ICMP echo from namespace a to b (the kernel in b answers): argv[1] probes argv[2] s apart.
#: Each RTT runs from just before the send to the kernel's receive timestamp of the reply
#: (SO_TIMESTAMPNS), so the prober's own scheduling delay is not in it. Prints RTTs in ms.
PING = """
import json, os, socket, struct, sys, time
TS = getattr(socket, "SO_TIMESTAMPNS", 35)
n, gap = int(sys.argv[1]), float(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setsockopt(socket.SOL_SOCKET, TS, 1); s.settimeout(1)
ident = os.getpid() & 0xFFFF
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xFFFF); t += t >> 16
    return ~t & 0xFFFF
out = []
for seq in range(n):
    body = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"q" * 56
    pkt = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    t0 = time.time_ns()
    s.sendto(pkt, ("10.77.0.2", 0))
    while True:
        try:
            data, anc, _, _ = s.recvmsg(2048, 1024)
        except socket.timeout:
            break
        ihl = (data[0] & 15) * 4
        typ, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl : ihl + 8])
        if typ == 0 and rid == ident and rseq == seq:
            for _, kind, val in anc:
                if kind == TS:
                    sec, ns = struct.unpack("qq", val[:16])
                    out.append((sec * 10**9 + ns - t0) / 1e6)
            break
    time.sleep(gap)
print(json.dumps(out))
"""
