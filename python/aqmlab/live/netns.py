"""Network namespaces, devices and addresses of one live run, through ``ip``.

Every name starts with :data:`PREFIX` (namespaces ``aqlab-<token>-a``/``-b``) or
:data:`DEV_PREFIX` (devices ``aql<token>a``/``b``), so leftovers can be told from anything else
on the machine. Addresses exist only inside the run's namespaces: senders in ``a`` own
:data:`ADDR_A`; receivers in ``b`` own :data:`ADDR_B` and :data:`ADDR_B_ECN`. Nothing is
configured in the host's own namespace.

Per-flow ECN: the sender namespace keeps ``net.ipv4.tcp_ecn = 0`` and has a host route to
:data:`ADDR_B_ECN` with ``features ecn``, so exactly the flows that connect to that address
negotiate ECN (the kernel asks for ECN on a SYN when the route has the feature, whatever the
sysctl says). One pair of namespaces thus serves a scenario mixing ECN and non-ECN groups.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence

PREFIX = "aqlab-"
DEV_PREFIX = "aql"
ADDR_A = "10.250.0.1"
ADDR_B = "10.250.0.2"
ADDR_B_ECN = "10.250.0.3"
SUBNET_BITS = 24


class NetnsError(RuntimeError):
    """An ``ip`` command failed; the message names it and what it printed."""


def ip(*args: str, check: bool = True, timeout: float = 10.0) -> subprocess.CompletedProcess[str]:
    """Runs ``ip ARGS`` (no shell); raises :class:`NetnsError` on failure when ``check``."""
    done = subprocess.run(
        ["ip", *args], capture_output=True, text=True, check=False, timeout=timeout
    )
    if check and done.returncode != 0:
        msg = " ".join((done.stderr or done.stdout).split())
        raise NetnsError(f"ip {' '.join(args)}: {msg}")
    return done


def names(token: str) -> tuple[str, str]:
    """The run's namespaces: (senders, receivers)."""
    return f"{PREFIX}{token}-a", f"{PREFIX}{token}-b"


def device_names(token: str) -> tuple[str, str]:
    """The run's two device names (at most 15 characters: tokens are short)."""
    return f"{DEV_PREFIX}{token}a", f"{DEV_PREFIX}{token}b"


def list_namespaces() -> list[str]:
    out = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def list_devices(netns: str | None = None) -> list[str]:
    """Interface names in the host's namespace, or in ``netns``."""
    args = ["-o", "link", "show"] if netns is None else ["-n", netns, "-o", "link", "show"]
    out = ip(*args, check=False).stdout
    devs = []
    for line in out.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            devs.append(parts[1].strip().split("@")[0])
    return devs


def pids(netns: str) -> list[int]:
    out = ip("netns", "pids", netns, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def create(netns: str) -> None:
    if not netns.startswith(PREFIX):
        raise ValueError(f"namespace {netns!r} lacks the prefix {PREFIX!r}")
    ip("netns", "add", netns)
    ip("-n", netns, "link", "set", "lo", "up")


def sysctl(netns: str, key: str, value: str) -> None:
    """``sysctl -w`` inside ``netns`` only (writes that namespace's /proc/sys)."""
    path = "/proc/sys/" + key.replace(".", "/")
    done = subprocess.run(
        ["ip", "netns", "exec", netns, "sh", "-c", 'echo "$1" > "$2"', "sh", value, path],
        capture_output=True,
        text=True,
        check=False,
        timeout=10,
    )
    if done.returncode != 0:
        raise NetnsError(f"sysctl {key}={value} in {netns}: {done.stderr.strip()}")


def attach(dev: str, netns: str, addrs: Sequence[str], mtu: int) -> None:
    """Moves ``dev`` into ``netns``, gives it ``addrs`` (a /24 each) and ``mtu``, brings it up."""
    ip("link", "set", dev, "netns", netns)
    ip("-n", netns, "link", "set", dev, "mtu", str(mtu))
    for a in addrs:
        ip("-n", netns, "addr", "add", f"{a}/{SUBNET_BITS}", "dev", dev)
    ip("-n", netns, "link", "set", dev, "up")


def route_with_ecn(netns: str, dst: str, dev: str) -> None:
    """A host route to ``dst`` whose connections negotiate ECN (``features ecn``)."""
    ip("-n", netns, "route", "add", f"{dst}/32", "dev", dev, "features", "ecn")


def kill_processes(netns: str) -> int:
    """SIGKILLs every process inside ``netns``; returns how many there were."""
    found = pids(netns)
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(found)


def delete(netns: str) -> None:
    """Kills the processes inside ``netns`` and deletes it (its devices go with it)."""
    if not netns.startswith(PREFIX):
        raise ValueError(f"namespace {netns!r} lacks the prefix {PREFIX!r}")
    kill_processes(netns)
    ip("netns", "delete", netns, check=False)


__all__ = [
    "ADDR_A",
    "ADDR_B",
    "ADDR_B_ECN",
    "DEV_PREFIX",
    "PREFIX",
    "NetnsError",
    "attach",
    "create",
    "delete",
    "device_names",
    "ip",
    "kill_processes",
    "list_devices",
    "list_namespaces",
    "names",
    "pids",
    "route_with_ecn",
    "sysctl",
]
