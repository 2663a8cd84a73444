"""The load generator's two agents, run inside the live run's namespaces:

    ip netns exec aqlab-<t>-a python -m aqmlab.live.agent sender CONFIG_JSON
    ip netns exec aqlab-<t>-b python -m aqmlab.live.agent sink CONFIG_JSON

Why not iperf3: each flow needs its own congestion control (``TCP_CONGESTION``), segment size
(``TCP_MAXSEG``), start time and fixed source port (the bottleneck classifies packets into the
scenario's flows by port), and the receiver must count each flow's bytes in the scenario's
``series_bin`` bins on a clock shared with the bottleneck; iperf3 gives one cc per process,
its own intervals on its own clock, and would be one more Debian package.

Protocol: the sink prints ``ready`` once it listens; both agents then read one line from stdin,
the run's time zero on ``CLOCK_MONOTONIC`` (one clock for every namespace), and schedule
everything from it. Each prints one JSON document on stdout when done. Both exit at
``t0 + duration`` at the latest. The parent sets ``PR_SET_PDEATHSIG`` so they die with it.
"""

from __future__ import annotations

import contextlib
import json
import math
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from aqmlab.live import tcpinfo

CHUNK = 256 * 1024
#: Seconds the sink keeps reading (uncounted) after the run's end while senders wrap up.
DRAIN_S = 2.0


def _sleep_until(t: float) -> None:
    while True:
        left = t - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.5))


def _send_flow(f: dict[str, Any], cfg: dict[str, Any], t0: float, out: dict[str, Any]) -> None:
    """One bulk (or finite) TCP flow: connect at its start, send until its stop."""
    out.update(id=f["id"], cc=f["cc"], bytes_sent=0, error=None)
    _sleep_until(t0 + f["start_s"])
    stop = t0 + f["stop_s"]
    limit = f.get("bytes")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
        if f.get("maxseg"):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, int(f["maxseg"]))
        s.bind((cfg["src_addr"], f["src_port"]))
        s.settimeout(max(0.5, stop - time.monotonic()))
        s.connect((f["dst_addr"], f["dst_port"]))
        out["connected_s"] = time.monotonic() - t0
        s.settimeout(0.1)
        payload = memoryview(bytes(CHUNK))
        sent = 0
        while time.monotonic() < stop and (limit is None or sent < limit):
            n = CHUNK if limit is None else min(CHUNK, limit - sent)
            try:
                sent += s.send(payload[:n])
            except TimeoutError:
                continue
        out["bytes_sent"] = sent
        if limit is not None and sent >= limit:
            s.shutdown(socket.SHUT_WR)  # the sink times the transfer's end by this FIN
            _drain_until_closed(s, stop)
    except OSError as e:
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        with contextlib.suppress(OSError):
            out["tcp_info"] = tcpinfo.read(s)
        # Abortive close: the run is over, nothing may linger in FIN_WAIT.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()


def _drain_until_closed(s: socket.socket, stop: float) -> None:
    while time.monotonic() < stop:
        try:
            if not s.recv(4096):
                return
        except TimeoutError:
            continue


def sender(cfg: dict[str, Any], t0: float) -> dict[str, Any]:
    results: list[dict[str, Any]] = [{} for _ in cfg["flows"]]
    threads = [
        threading.Thread(target=_send_flow, args=(f, cfg, t0, r), daemon=True)
        for f, r in zip(cfg["flows"], results, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, t0 + cfg["duration_s"] + 2.0 - time.monotonic()))
    return {"flows": results, "netstat": _netstat()}


def _receive(conn: socket.socket, cfg: dict[str, Any], t0: float, rec: dict[str, Any]) -> None:
    """Counts one flow's bytes in bins until the run's end, then drains (uncounted) until the
    sender closes, so that no sender sees a reset before it has read its ``TCP_INFO``."""
    bin_s = cfg["bin_s"]
    bins = rec["bins"]
    end = t0 + cfg["duration_s"]
    buf = bytearray(CHUNK)
    conn.settimeout(0.1)
    with conn:
        while time.monotonic() < end + DRAIN_S:
            try:
                n = conn.recv_into(buf)
            except TimeoutError:
                continue
            except OSError:
                return
            now = time.monotonic()
            if n == 0:
                if now < end:
                    rec["eof_s"] = now - t0
                return
            if now >= end:
                continue
            i = int((now - t0) / bin_s)
            if 0 <= i < len(bins):
                bins[i] += n
            rec["bytes"] += n
            if rec["first_s"] is None:
                rec["first_s"] = now - t0


def sink(cfg: dict[str, Any], listener: socket.socket, t0: float) -> dict[str, Any]:
    by_port = {int(p): int(fid) for p, fid in cfg["port_to_flow"].items()}
    nbins = math.ceil(cfg["duration_s"] / cfg["bin_s"] - 1e-9)
    recs: dict[int, dict[str, Any]] = {}
    threads = []
    end = t0 + cfg["duration_s"]
    listener.settimeout(0.1)
    while time.monotonic() < end:
        try:
            conn, peer = listener.accept()
        except TimeoutError:
            continue
        fid = by_port.get(peer[1])
        if fid is None:
            conn.close()
            continue
        rec = {"bins": [0] * nbins, "bytes": 0, "first_s": None, "eof_s": None}
        recs[fid] = rec
        t = threading.Thread(target=_receive, args=(conn, cfg, t0, rec), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(max(0.0, end + DRAIN_S + 0.5 - time.monotonic()))
    return {"flows": {str(k): v for k, v in recs.items()}, "netstat": _netstat()}


def _netstat() -> dict[str, int]:
    """This namespace's /proc/net/netstat and /proc/net/snmp counters (``IpExt.InCEPkts``,
    ``TcpExt.TCPTimeouts``, ...): /proc/net is per network namespace."""
    out: dict[str, int] = {}
    for name in ("/proc/net/netstat", "/proc/net/snmp"):
        try:
            lines = Path(name).read_text(encoding="ascii").splitlines()
        except OSError:
            continue
        for head, vals in zip(lines[::2], lines[1::2], strict=False):
            proto, keys = head.split(":", 1)
            _, values = vals.split(":", 1)
            for k, v in zip(keys.split(), values.split(), strict=False):
                if v.lstrip("-").isdigit():
                    out[f"{proto}.{k}"] = int(v)
    return out


def main(argv: list[str]) -> int:
    role, cfg = argv[0], json.loads(argv[1])
    listener = None
    if role == "sink":
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("0.0.0.0", cfg["port"]))
        listener.listen(1024)
        print("ready", flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return 1  # the parent went away before the start
    t0 = float(line)
    if role == "sink":
        assert listener is not None
        result = sink(cfg, listener, t0)
    else:
        result = sender(cfg, t0)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
