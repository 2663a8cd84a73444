"""Kills live runs with SIGKILL at random moments, each followed by a new run, and counts what
the killed runs left behind once the next run has started (namespaces, devices, processes).

    sudo .venv/bin/python bench/live/kill_check.py [--runs 20] [--seed 1]

Not part of ``make test`` (about 20 s per round). Prints one line per round and the totals.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from aqmlab.live import live, netns

SCENARIO = """
name = "kill check"
duration = "8s"
[bottleneck]
rate = "10Mbps"
delay = "5ms"
buffer = 50
[[flows]]
count = 4
access_delay = "5ms"
tcp = { mss = 1000 }
"""

VICTIM = "import sys\nfrom aqmlab.live import live\nlive(sys.argv[1])\n"


def ours() -> tuple[set[str], set[str]]:
    spaces = {n for n in netns.list_namespaces() if n.startswith(netns.PREFIX)}
    devs = {d for d in netns.list_devices() if d.startswith(netns.DEV_PREFIX)}
    return spaces, devs


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    scenario = Path(f"/tmp/aqmlab-kill-check-{time.time_ns()}.toml")
    scenario.write_text(SCENARIO)
    left = {"namespaces": 0, "devices": 0, "processes": 0}
    try:
        for i in range(args.runs):
            spaces0, devs0 = ours()
            victim = subprocess.Popen([sys.executable, "-c", VICTIM, str(scenario)])
            wait = rng.uniform(0.2, 6.0)  # anywhere from set-up to mid-run
            seen_spaces: set[str] = set()
            seen_devs: set[str] = set()
            seen_pids: set[int] = set()
            t_end = time.monotonic() + wait
            while time.monotonic() < t_end:
                s, d = ours()
                seen_spaces |= s - spaces0
                seen_devs |= d - devs0
                for n in s - spaces0:
                    seen_pids |= set(netns.pids(n))
                time.sleep(0.05)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            # The next run: its start removes the killed run's leftovers.
            live(SCENARIO.replace('duration = "8s"', 'duration = "1s"'))
            spaces, devs = ours()
            n_ns = len(spaces & seen_spaces)
            n_dev = len(devs & seen_devs)
            n_proc = sum(alive(p) for p in seen_pids)
            left["namespaces"] += n_ns
            left["devices"] += n_dev
            left["processes"] += n_proc
            print(
                f"round {i + 1}: killed after {wait:.2f} s; seen {len(seen_spaces)} namespaces, "
                f"{len(seen_pids)} agents; left after the next start: {n_ns} namespaces, "
                f"{n_dev} devices, {n_proc} processes",
                flush=True,
            )
    finally:
        scenario.unlink()
    print(f"total left behind over {args.runs} killed runs: {left}")
    return 0 if not any(left.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
