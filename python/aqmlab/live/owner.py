"""Ownership records: which live run made which namespaces and devices, so that the next run
can remove what a killed one left behind.

A run writes ``/run/aqmlab-live/<token>.json`` *before* it creates anything: its pid, the boot
id and the process's start time (``/proc/<pid>/stat`` field 22, so a recycled pid is not taken
for the owner), and the names it will create. It removes the record *after* everything is gone.
:func:`sweep` looks at every record: when its owner is dead (another boot, no such pid, or a
pid with another start time), it kills the processes inside the recorded namespaces, deletes
the namespaces and devices, then the record. Nothing without the ``aqlab-``/``aql`` prefix and
a record with a dead owner is ever touched: a run still going, or somebody else's namespace,
stays.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aqmlab.live import netns

#: Where the records live (tmpfs: cleared on reboot, as the namespaces are).
RECORDS = Path("/run/aqmlab-live")


def boot_id() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if there is no such pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[19])  # field 22 of the whole line


@dataclass
class Record:
    token: str
    pid: int
    boot_id: str
    start_ticks: int
    namespaces: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)

    def owner_alive(self) -> bool:
        if self.boot_id != boot_id():
            return False
        return start_ticks(self.pid) == self.start_ticks


def path_of(token: str, root: Path = RECORDS) -> Path:
    return root / f"{token}.json"


def claim(token: str, namespaces: list[str], devices: list[str], root: Path = RECORDS) -> Record:
    """Writes this process's record for ``token`` (atomically) and returns it."""
    pid = os.getpid()
    ticks = start_ticks(pid)
    assert ticks is not None
    rec = Record(token, pid, boot_id(), ticks, list(namespaces), list(devices))
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = root / f".{token}.json.tmp"
    tmp.write_text(json.dumps(asdict(rec)), encoding="utf-8")
    tmp.replace(path_of(token, root))
    return rec


def release(token: str, root: Path = RECORDS) -> None:
    with contextlib.suppress(FileNotFoundError):
        path_of(token, root).unlink()


def load(path: Path) -> Record | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Record(**raw)
    except (OSError, ValueError, TypeError):
        return None


def remove(rec: Record) -> None:
    """Removes what ``rec`` names: processes inside its namespaces, the namespaces, devices left
    in the host's namespace. Only names with the project's prefixes."""
    ours = [n for n in rec.namespaces if n.startswith(netns.PREFIX)]
    for ns in ours:
        netns.kill_processes(ns)
    present = set(netns.list_namespaces())
    for ns in ours:
        if ns in present:
            netns.delete(ns)
    host_devs = set(netns.list_devices())
    for dev in rec.devices:
        if dev.startswith(netns.DEV_PREFIX) and dev in host_devs:
            netns.ip("link", "delete", dev, check=False)


def sweep(root: Path = RECORDS) -> list[str]:
    """Removes the leftovers of every run whose owner is dead; returns their tokens."""
    if not root.is_dir():
        return []
    cleaned = []
    for path in sorted(root.glob("*.json")):
        rec = load(path)
        if rec is None:
            continue  # half-written by a run killed mid-claim: it created nothing yet
        if rec.owner_alive():
            continue
        remove(rec)
        release(rec.token, root)
        cleaned.append(rec.token)
    for tmp in root.glob(".*.json.tmp"):  # a claim killed before its rename (not one under way)
        with contextlib.suppress(OSError):
            if time.time() - tmp.stat().st_mtime > 60:
                tmp.unlink()
    return cleaned


__all__ = [
    "RECORDS",
    "Record",
    "boot_id",
    "claim",
    "load",
    "release",
    "remove",
    "start_ticks",
    "sweep",
]
