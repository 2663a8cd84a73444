"""Ctrl-C latency (docs/robustness.md, Signals): starts a command busy with 100,000-s
simulations, waits until its processes have used CPU, sends SIGINT to its process group as a
terminal's Ctrl-C does, and times its exit; prints each trial and min/median/max.

    python bench/signal_latency.py run,sweep,reproduce,crosscheck [TRIALS]
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
AQ = [sys.executable, "-m", "aqmlab"]
LONG = ["--set", "duration=100000s"]


def commands(work: Path, out: Path) -> dict[str, list[str]]:
    long = work / "long.toml"
    return {
        "run": [*AQ, "run", str(long), *LONG, "--out", str(out)],
        "sweep": [*AQ, "sweep", str(work / "sw.toml"), "--out", str(out), "--workers", "2"],
        "reproduce": [*AQ, "reproduce", "adaptive_red_004", "--out", str(out), "--workers", "2"],
        "crosscheck": [*AQ, "crosscheck", str(long), *LONG, "--out", str(out), "--seeds", "2"],
    }


def busy(proc: subprocess.Popen[str], cpu: float = 1.5, limit: float = 120.0) -> bool:
    """Whether the process tree used ``cpu`` seconds within ``limit`` (and at least 3 s)."""
    root = psutil.Process(proc.pid)
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            used = sum(p.cpu_times().user for p in [root, *root.children(recursive=True)])
        except psutil.Error:
            used = 0.0
        if used > cpu and time.monotonic() - t0 > 3:
            return True
        time.sleep(0.1)
    return False


def trial(name: str, work: Path) -> float | None:
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    cmd = commands(work, out)[name]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    if not busy(proc):
        os.killpg(proc.pid, signal.SIGKILL)
        print(f"{name}: never busy")
        return None
    kids = psutil.Process(proc.pid).children(recursive=True)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        rc: int | None = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rc = None
        os.killpg(proc.pid, signal.SIGKILL)
    seconds = time.monotonic() - t0
    left = [p.pid for p in kids if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    err = (proc.stderr.read() if proc.stderr else "").strip().splitlines()
    print(
        f"{name}: exit {rc} after {seconds:.2f} s; processes left {len(left)}; "
        f"stderr {len(err)} line(s): {err[-1][:100] if err else ''}",
        flush=True,
    )
    return seconds


def main(argv: list[str]) -> int:
    names = argv[0].split(",") if argv else ["run", "sweep", "reproduce", "crosscheck"]
    trials = int(argv[1]) if len(argv) > 1 else 10
    work = Path(tempfile.mkdtemp(prefix="aqmlab-sig-"))
    try:
        (work / "long.toml").write_text((ROOT / "scenarios/demo/red.toml").read_text())
        (work / "sw.toml").write_text(
            'base = "long.toml"\n[axes]\nduration = ["100000s", "100001s", "100002s"]\n'
        )
        for name in names:
            times = sorted(t for t in (trial(name, work) for _ in range(trials)) if t is not None)
            if times:
                print(
                    f"== {name}: n={len(times)} min {times[0]:.2f} median "
                    f"{times[len(times) // 2]:.2f} max {times[-1]:.2f} s; "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
