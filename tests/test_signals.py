"""Signals acted on at once: Ctrl-C / SIGTERM stop the simulations in flight (compare's threads,
a sweep's worker processes, the API's helper thread), keep what finished and exit 130."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aqmlab import sweep
from conftest import TINY

psutil = pytest.importorskip("psutil")


def _long(tmp_path: Path) -> Path:
    p = tmp_path / "long.toml"
    p.write_text(TINY)
    return p


def _busy(proc: subprocess.Popen[str], seconds: float = 60.0) -> list:
    """Waits until the process (or its children) has used a second of CPU: the simulations
    are running. Returns its descendants."""
    p = psutil.Process(proc.pid)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        kids = p.children(recursive=True)
        cpu = sum(x.cpu_times().user for x in [p, *kids] if x.is_running())
        if cpu > 2.0:
            return kids
        time.sleep(0.2)
    raise AssertionError("the simulations never started")


def _gone(procs: list, seconds: float = 30.0) -> bool:
    _, alive = psutil.wait_procs(procs, timeout=seconds)
    return not alive


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_compare_stops_its_simulations_and_exits_130(tmp_path, sig):
    long = _long(tmp_path)
    out = tmp_path / "cmp"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aqmlab",
            "compare",
            long,
            long,
            "--jobs",
            "2",
            "--out",
            out,
            "--set",
            "duration=100000s",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    _busy(proc)
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == 130
    assert not out.exists()


def test_sweep_stops_its_workers_keeps_finished_points_and_exits_130(tmp_path):
    base = tmp_path / "base.toml"
    base.write_text(TINY)
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(
        f'base = "{base.name}"\n[axes]\nduration = ["2s", "100000s", "100001s"]\n'
    )
    out = tmp_path / "sw"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aqmlab",
            "sweep",
            sweep_file,
            "--out",
            out,
            "--workers",
            "2",
            "--no-progress",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    runs = out / "runs"
    while time.monotonic() < deadline:
        if runs.is_dir() and any(sweep.is_complete(d) for d in runs.iterdir()):
            break
        time.sleep(0.2)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert workers
    _busy(proc)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    assert _gone(workers), "sweep workers still running after the sweep exited"
    done = [d for d in runs.iterdir() if sweep.is_complete(d)]
    assert len(done) == 1  # the 2 s point, kept for the resume


def test_the_api_stops_the_simulation_on_ctrl_c(tmp_path):
    long = _long(tmp_path)
    code = (
        "import aqmlab\n"
        "print('start', flush=True)\n"
        "try:\n"
        f"    aqmlab.run({str(long)!r}, set={{'duration': '100000s'}})\n"
        "except KeyboardInterrupt:\n"
        "    import time; t = time.process_time(); time.sleep(1.0)\n"
        "    print('cpu', time.process_time() - t, flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "start"
    _busy(proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    cpu = float(out.split("cpu")[1])
    assert cpu < 0.5, out  # nothing keeps a core busy after the interrupt
