"""What a live run needs from the machine, checked before anything is created.

A live run needs root (namespaces, TUN devices, sysctls inside the namespaces), ``/dev/net/tun``
(the bottleneck's two devices), ``ip netns`` (iproute2) and, per flow, a congestion control
the kernel offers. Each missing piece is one line naming it: :class:`PreflightError` from the
API, exit status 2 from ``aqmlab live``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: Where the kernel lists the congestion controls a socket may ask for (per network namespace
#: since Linux 4.15; read inside one of the run's namespaces).
AVAILABLE_CC = "/proc/sys/net/ipv4/tcp_available_congestion_control"


class PreflightError(RuntimeError):
    """The machine lacks something a live run needs; the message is one line saying what."""


@dataclass(frozen=True)
class Machine:
    """What the preflight found: the kernel release and its congestion controls."""

    kernel: str
    congestion_controls: tuple[str, ...]


def check_access(*, tun: str = "/dev/net/tun", euid: int | None = None) -> None:
    """Root, the TUN device node and ``ip netns``; raises :class:`PreflightError` otherwise."""
    uid = os.geteuid() if euid is None else euid
    if uid != 0:
        raise PreflightError(
            "live runs need root (network namespaces and TUN devices); run as root"
        )
    if not Path(tun).exists():
        raise PreflightError(f"{tun} is missing (no TUN support: modprobe tun)")
    if not os.access(tun, os.R_OK | os.W_OK):
        raise PreflightError(f"{tun} is not readable and writable")
    if shutil.which("ip") is None:
        raise PreflightError("the 'ip' command (iproute2) is missing")
    probe = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False, timeout=10
    )
    if probe.returncode != 0:
        msg = " ".join((probe.stderr or probe.stdout).split()) or f"status {probe.returncode}"
        raise PreflightError(f"'ip netns' is not usable: {msg}")
    if shutil.which("unshare") is not None:
        # May this process make a network namespace at all (containers often forbid it)? A
        # namespace that exists only for the probe's `true`: nothing is left to clean up.
        probe = subprocess.run(
            ["unshare", "--net", "true"], capture_output=True, text=True, check=False, timeout=10
        )
        if probe.returncode != 0:
            msg = " ".join(probe.stderr.split()) or f"status {probe.returncode}"
            raise PreflightError(f"network namespaces are not permitted here: {msg}")


def congestion_controls(netns: str | None = None, *, path: str = AVAILABLE_CC) -> tuple[str, ...]:
    """The congestion controls the kernel offers, read inside ``netns`` when given."""
    if netns is None:
        text = Path(path).read_text(encoding="ascii")
    else:
        done = subprocess.run(
            ["ip", "netns", "exec", netns, "cat", path],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
        if done.returncode != 0:
            raise PreflightError(f"cannot read {path} in {netns}: {done.stderr.strip()}")
        text = done.stdout
    return tuple(text.split())


def check_congestion_controls(wanted: Iterable[str], available: Iterable[str]) -> None:
    """Raises :class:`PreflightError` naming the first wanted cc the kernel lacks."""
    have = set(available)
    for cc in wanted:
        if cc not in have:
            offered = " ".join(sorted(have)) or "none"
            raise PreflightError(
                f"the kernel has no congestion control {cc!r} (it offers: {offered}; "
                f"modprobe tcp_{cc} may add it)"
            )


def realtime_allowed(priority: int) -> bool:
    """Whether this process may run a thread ``SCHED_FIFO`` at ``priority`` (probed in a child,
    ``chrt``; containers often refuse it)."""
    if shutil.which("chrt") is None:
        return False
    probe = subprocess.run(
        ["chrt", "-f", str(priority), "true"], capture_output=True, check=False, timeout=10
    )
    return probe.returncode == 0


def kernel_release() -> str:
    return os.uname().release


__all__ = [
    "AVAILABLE_CC",
    "Machine",
    "PreflightError",
    "check_access",
    "check_congestion_controls",
    "congestion_controls",
    "kernel_release",
    "realtime_allowed",
]
