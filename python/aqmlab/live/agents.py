"""Starting the load generator's agents inside the namespaces, and collecting their reports.

Each agent is ``ip netns exec NS python -m aqmlab.live.agent ROLE CONFIG`` (``ip netns exec``
execs the command in place, so the agent is the direct child), started with
``PR_SET_PDEATHSIG = SIGKILL``: if this process dies, even by SIGKILL, the kernel kills the
agents. The next run's sweep also kills anything left in a dead run's namespaces.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import select
import signal
import subprocess
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class AgentError(RuntimeError):
    """An agent failed to start or report; the message carries what it printed."""


def start(netns: str, role: str, config: dict[str, Any]) -> subprocess.Popen[str]:
    cmd = ["ip", "netns", "exec", netns, sys.executable, "-m", "aqmlab.live.agent", role]
    return subprocess.Popen(
        [*cmd, json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_parent,
    )


def wait_ready(proc: subprocess.Popen[str], timeout: float) -> None:
    """Waits for the agent's ``ready`` line."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.1)
        if ready:
            line = proc.stdout.readline()
            if line.strip() == "ready":
                return
            break
        if proc.poll() is not None:
            break
    raise AgentError(f"agent did not start: {_stderr(proc)}")


def go(proc: subprocess.Popen[str], t0: float) -> None:
    assert proc.stdin is not None
    proc.stdin.write(f"{t0!r}\n")
    proc.stdin.flush()


def collect(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    """The agent's JSON report (waits at most ``timeout`` seconds)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AgentError(f"agent did not finish in {timeout:.0f} s: {err.strip()[-300:]}") from None
    lines = [ln for ln in out.splitlines() if ln.strip()]
    if proc.returncode != 0 or not lines:
        raise AgentError(f"agent failed (status {proc.returncode}): {err.strip()[-300:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError, OSError):
        proc.communicate(timeout=5)


def _stderr(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.kill()
    try:
        _, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        return "no answer"
    return " ".join((err or "").split())[-300:] or f"status {proc.returncode}"


__all__ = ["AgentError", "collect", "go", "start", "stop", "wait_ready"]
