"""Shared fixtures: a tiny scenario (a few simulated seconds) and a CLI runner."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Small enough to run in a fraction of a second, big enough to drop packets and differ by seed.
TINY = """\
name = "tiny"
seed = 1
duration = "4s"
warmup = "1s"

[bottleneck]
rate = "2Mbps"
delay = "5ms"
buffer = 20
qdisc = { kind = "droptail" }

[[flows]]
kind = "tcp"
count = 4
access_delay = { linear = ["2ms", "20ms"] }
start = { uniform = ["0s", "0.5s"] }
group = "a"
"""

#: DESIGN.md "Results": keys of the summary every consumer may rely on.
STABLE_KEYS = {
    "utilisation",
    "loss_rate",
    "drops",
    "marks",
    "arrivals",
    "departures",
    "jain_index",
    "goodput_mbps",
    "queue_pkts",
    "delay_ms",
    "groups",
    "flows",
}
FLOW_KEYS = {"id", "group", "rtt_ms", "goodput_mbps", "drops", "marks", "retransmits", "timeouts"}


@pytest.fixture
def tiny_path(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str | Path, cwd: Path | None = None) -> CliResult:
    """Runs ``python -m aqmlab ARGS`` in a subprocess (the real exit code and streams)."""
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def kinds() -> set[str]:
    import aqmlab

    return {a["kind"] for a in aqmlab.algorithms()}
