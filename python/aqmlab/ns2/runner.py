"""Running ns-2.35 (`ns`, Debian package `ns2`) on a generated script; reading its output."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

#: How to get ns-2 where it is missing.
INSTALL_HINT = (
    "ns-2 not found: install the Debian package ns2 (apt-get install -y ns2), or set AQMLAB_NS"
)


class NsMissing(RuntimeError):
    """`ns` is not installed."""


class NsFailed(RuntimeError):
    """`ns` ran but did not finish the script."""


@dataclass
class NsRun:
    """What one ns-2 run printed: the bottleneck counters over the measurement window (``M``
    lines) and per flow delivered bytes, retransmitted packets and timeouts (``F`` lines)."""

    metrics: dict[str, float]
    flows: dict[int, tuple[int, int, int]]
    cpu_s: float = 0.0
    traces: dict[int, str] = field(default_factory=dict)


def ns_binary() -> str:
    """Path of `ns` (``$AQMLAB_NS`` wins); raises :class:`NsMissing` naming the package."""
    explicit = os.environ.get("AQMLAB_NS")
    # An explicit path is used alone (a missing file is "not installed"); else look on PATH.
    found = shutil.which("ns") if not explicit else explicit if Path(explicit).is_file() else None
    if not found:
        raise NsMissing(INSTALL_HINT)
    return found


def available() -> bool:
    try:
        ns_binary()
    except NsMissing:
        return False
    return True


def parse(stdout: str) -> tuple[dict[str, float], dict[int, tuple[int, int, int]]]:
    metrics: dict[str, float] = {}
    flows: dict[int, tuple[int, int, int]] = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "M":
            metrics[parts[1]] = float(parts[2])
        elif len(parts) == 5 and parts[0] == "F":
            flows[int(parts[1])] = (int(float(parts[2])), int(parts[3]), int(parts[4]))
    return metrics, flows


#: The `ns` processes running now (one per crosscheck thread), for :func:`terminate_running`.
_running: set[subprocess.Popen[bytes]] = set()
_running_lock = threading.Lock()


def terminate_running() -> None:
    """Terminates every `ns` this process started and still waits for (an interrupted
    crosscheck: a SIGTERM to aqmlab alone does not reach them)."""
    with _running_lock:
        for proc in _running:
            with contextlib.suppress(OSError):
                proc.terminate()


def run(script: str, *, workdir: str | Path | None = None, keep: Path | None = None) -> NsRun:
    """Runs `ns` on ``script`` (in ``workdir``, where traces land); raises :class:`NsFailed`
    with ns-2's last words if it did not reach the end of the run."""
    binary = ns_binary()
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-") as tmp:
        cwd = Path(workdir) if workdir is not None else Path(tmp)
        path = cwd / "run.tcl"
        path.write_text(script, encoding="utf-8")
        if keep is not None:
            keep.write_text(script, encoding="utf-8")
        out_path, err_path = cwd / "ns.stdout", cwd / "ns.stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            proc = subprocess.Popen([binary, str(path)], cwd=cwd, stdout=out, stderr=err)
            with _running_lock:
                _running.add(proc)
            try:
                # This child's own CPU time (wait4's rusage): os.times() would also count any
                # other seed's `ns` that a parallel crosscheck thread reaped in the meantime.
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                with _running_lock:
                    _running.discard(proc)
            proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        stdout = out_path.read_text(encoding="utf-8", errors="replace")
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
        metrics, flows = parse(stdout)
        if proc.returncode != 0 or "window_s" not in metrics:
            tail = " | ".join((stderr or stdout).strip().splitlines()[-5:])
            raise NsFailed(f"ns exited with {proc.returncode}: {tail}")
        return NsRun(metrics=metrics, flows=flows, cpu_s=cpu)
