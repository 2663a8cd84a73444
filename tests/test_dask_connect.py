"""A sweep pointed at something that is not a Dask scheduler ends within seconds with one line and
writes nothing: an HTTP server (what the dashboard port is), a port that accepts and never
answers, one that answers with an SSH banner, a closed port, and ``tls://`` without TLS
settings. Every listener is on 127.0.0.1 and
made by the test."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import TINY

pytest.importorskip("distributed")

#: A hang detector, not a speed test: the connection itself is bounded by
#: ``sweep.DASK_CONNECT_DEADLINE`` (8 s); the rest is five Python start-ups on a busy machine.
LIMIT_S = 90.0


@pytest.fixture
def http_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """Accepts connections (the kernel completes the handshake) and never reads or writes."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.fixture
def banner_port() -> Iterator[int]:
    """Sends a text banner on every connection, as an SSH server does."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.2p1\r\n")
                time.sleep(0.5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        sock.close()


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_each_wrong_scheduler_ends_in_one_line(
    tmp_path: Path, http_port: int, silent_port: int, banner_port: int
) -> None:
    sweep_file = tmp_path / "s.toml"
    (tmp_path / "base.toml").write_text(TINY)
    sweep_file.write_text('base = "base.toml"\n[axes]\n"bottleneck.buffer" = [10, 20]\n')
    cases = {
        "http": f"tcp://127.0.0.1:{http_port}",
        "silent": f"tcp://127.0.0.1:{silent_port}",
        "closed": f"tcp://127.0.0.1:{_closed_port()}",
        "ssh": f"tcp://127.0.0.1:{banner_port}",
        "tls": f"tls://127.0.0.1:{http_port}",
    }
    expect = {
        "http": "sent nothing",
        "silent": "sent nothing",
        "closed": "refused",
        "ssh": "answered 'SSH-2.0-OpenSSH",
        "tls": "TLS",
    }
    started = time.monotonic()
    procs = {
        name: subprocess.Popen(
            [
                *(sys.executable, "-m", "aqmlab", "sweep", str(sweep_file), "--no-progress"),
                *("--scheduler", address, "--out", str(tmp_path / f"out-{name}")),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, address in cases.items()
    }
    for name, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=max(1.0, LIMIT_S - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"{name}: still running after {LIMIT_S} s")
        lines = err.strip().splitlines()
        assert proc.returncode == 2, (name, proc.returncode, err)
        assert len(lines) == 1, (name, err)
        assert lines[0].startswith(f"error: --scheduler: {cases[name]}: "), (name, err)
        assert expect[name] in lines[0], (name, err)
        assert out == ""
        assert not (tmp_path / f"out-{name}").exists(), name
