"""The live bottleneck binding: configuration errors, and (root + TUN) real kernel TCP through
RED with ECN whose trace replays to the same decisions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import live_netns as ln
from aqmlab import _core

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="live bottleneck: Linux only"
)


def test_a_bad_configuration_names_its_key() -> None:
    base = {"dev_a": "aqlxa", "dev_b": "aqlxb", "rate_bps": 10_000_000, "buffer": 100}
    cases = [
        ({**base, "qdisc": {"kind": "red", "max_p": 3}}, "qdisc.max_p"),
        ({**base, "qdisc": {"kind": "bogus"}}, "qdisc.kind"),
        ({**base, "qdisc": {"kind": "red"}, "rate_bps": 0}, "rate_bps"),
        ({**base, "qdisc": {"kind": "red"}, "flows": [{"id": 0, "proto": "x"}]}, "flows.0.a_port"),
        ({**base, "qdisc": {"kind": "red"}, "dev_a": "a" * 16}, "dev_a"),
    ]
    for cfg, path in cases:
        with pytest.raises(_core.ScenarioError) as e:
            _core.LiveBottleneck(json.dumps(cfg))
        assert e.value.path == path, (cfg, e.value)


@pytest.mark.skipif(ln.missing() is not None, reason=ln.missing() or "")
def test_real_tcp_through_red_replays_to_the_same_decisions(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    cfg = {
        "rate_bps": 10_000_000,
        "buffer": 60,
        "qdisc": {"kind": "red", "min_th": 5, "max_th": 15, "w_q": 0.02},
        "ecn": True,
        "seed": 9,
        "mean_pkt_bytes": 1500,
        "flows": [
            {
                "id": 0,
                "proto": "tcp",
                "a_port": 40000,
                "b_port": 5001,
                "delay_ab_ns": 5_000_000,
                "delay_ba_ns": 5_000_000,
            }
        ],
        "trace_path": str(trace),
    }
    with ln.bed(cfg, ecn=True) as bed:
        devices = bed.bottleneck.devices()
        loop = bed.run(30.0)
        sink = bed.exec_b(ln.SINK, "5001", "2")
        time.sleep(0.3)
        sender = bed.exec_a(ln.SENDER, "5001", "40000", "2.5", "reno")
        out, err = sink.communicate(timeout=30)
        sender.wait(timeout=30)
        t0 = time.monotonic()
        bed.bottleneck.stop()
        loop.join(timeout=5)
        assert not loop.is_alive() and time.monotonic() - t0 < 0.5, "stop() ends run() at once"
        r = bed.bottleneck.result()
        ns_b = bed.ns_b
    got = json.loads(out)
    assert got["bytes"] > 1_000_000, err
    assert r["link"]["marks"].get("early", 0) > 0, r["link"]
    assert r["flows"]["arrivals"][0] > 500
    assert r["trace_path"] == str(trace)
    parity = _core.live_trace_parity(json.dumps({**bed.config}), str(trace))
    assert parity["mismatches"] == 0, parity["first_mismatch"]
    assert parity["signals"] > 0
    assert parity["events"] >= r["link"]["arrivals"] + r["link"]["departures"]
    # Nothing left behind: the namespaces are gone, and the devices went with the fds.
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert ns_b not in listed
    links = subprocess.run(["ip", "link", "show"], capture_output=True, text=True).stdout
    assert all(d not in links for d in devices)


@pytest.mark.skipif(ln.missing() is not None, reason=ln.missing() or "")
def test_devices_vanish_when_the_bottleneck_is_killed() -> None:
    """SIGKILL leaves no device: they are non-persistent TUNs, gone with the process's fds."""
    token = f"k{os.getpid() % 100000}"
    cfg = {
        "dev_a": f"aql{token}a",
        "dev_b": f"aql{token}b",
        "rate_bps": 1_000_000,
        "buffer": 10,
        "qdisc": {"kind": "droptail"},
    }
    code = (
        "import json, sys; from aqmlab import _core; "
        "b = _core.LiveBottleneck(sys.argv[1]); print('up', flush=True); b.run(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(cfg)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
        links = subprocess.run(["ip", "link", "show"], capture_output=True, text=True).stdout
        assert cfg["dev_a"] in links and cfg["dev_b"] in links
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        links = subprocess.run(["ip", "link", "show"], capture_output=True, text=True).stdout
        if cfg["dev_a"] not in links and cfg["dev_b"] not in links:
            break
        time.sleep(0.05)
    assert cfg["dev_a"] not in links and cfg["dev_b"] not in links


@pytest.mark.skipif(ln.missing() is not None, reason=ln.missing() or "")
def test_ctrl_c_stops_a_run_in_the_main_thread() -> None:
    """run() releases the GIL, yet Ctrl-C (SIGINT) still stops it and raises KeyboardInterrupt."""
    token = f"i{os.getpid() % 100000}"
    cfg = {
        "dev_a": f"aql{token}a",
        "dev_b": f"aql{token}b",
        "rate_bps": 1_000_000,
        "buffer": 10,
        "qdisc": {"kind": "droptail"},
    }
    code = (
        "import json, sys, time; from aqmlab import _core\n"
        "b = _core.LiveBottleneck(sys.argv[1]); print('up', flush=True)\n"
        "t = time.monotonic()\n"
        "try:\n    b.run(60)\nexcept KeyboardInterrupt:\n"
        "    print('interrupted', round(time.monotonic() - t, 2), flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(cfg)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out = proc.stdout.readline().split()
        assert out[0] == "interrupted", out
        assert time.monotonic() - t0 < 2.0
    finally:
        proc.kill()
        proc.wait(timeout=10)
