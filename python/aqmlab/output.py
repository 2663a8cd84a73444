"""Where results may be written, and how: the one output policy of the CLI and the API.

**Ownership.** Every directory aqmlab writes holds a marker, ``.aqmlab``: JSON naming the
*kind* of result (``run``, ``compare``, ``sweep``, ``crosscheck``, ``reproduce``, or ``files``
for loose files such as a plot written into a directory) and a manifest of every file aqmlab
wrote there with its SHA-256. A destination may be replaced (or written into) without
``force=True`` (``--force``) only when it does not exist, is an empty directory, or holds a
valid marker of the same kind and nothing but the files its manifest lists, unchanged. So:

- a directory that merely looks like a result (``runs.parquet``, ``summary.json``) but has no
  valid marker is refused, naming the reason;
- files the user added to a result directory (``analysis.md``), or aqmlab files the user edited,
  make a re-run refuse with one line naming them, instead of deleting them;
- a run never replaces a sweep, nor a sweep a run: the kinds differ;
- a single file (``plot --out``, ``crosscheck --record``) replaces an existing file only if the
  marker of its directory lists it with the same content.

``force`` replaces anything but a device, pipe or socket, or the working directory and its
parents. :func:`check_destination` also proves the destination writable (a probe file in the
nearest existing directory) and its name within the file system's limits *before* anything is
simulated; it reads an existing directory's ownership under the destination's lock (below), so
a directory another process is replacing is refused as being written, never as foreign.

**Writing.** :func:`atomic_dir` writes a whole directory into a temporary sibling and renames it
into place at the end, holding a per-destination lock for the whole write: a second writer of
the same destination (another notebook, another process) gets one line naming it instead of a
half-replaced directory or an ``OSError``. The temporary is removed on any exit that runs Python
code (errors, ``KeyboardInterrupt``, ``SIGTERM`` once :func:`terminate_gracefully` is
installed). A destination holds either the previous complete result or the new complete one.

**Abandoned temporaries.** Temporary and old directories are named by a token of their writer
(host, boot id, process id and a random part) and each holds a lock file that its writer keeps
locked (``flock``) while it lives. :func:`clean_stale` removes one only when it is provably
abandoned: written on this host since this boot, and its lock can be taken (the kernel releases
a lock when its holder dies, whatever PID namespace it ran in). A process id that is "not alive
here" proves nothing (another container, another host on a shared file system) and is never
used.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from aqmlab.scenario import scenario_error

#: The marker file aqmlab writes into every directory it produces.
MARKER = ".aqmlab"
#: Kinds of result directories.
KINDS = ("run", "compare", "sweep", "crosscheck", "reproduce", "files")
_LOCK_FILE = ".aqmlab-lock"
_TMP = re.compile(
    r"^\.aqmlab\.(?P<what>tmp|old)-(?P<host>[A-Za-z0-9-]+)\.(?P<boot>[0-9a-f-]+)"
    r"\.(?P<pid>\d+)\.(?P<rand>[0-9a-f]+)$"
)
#: Names of files and directories: bytes per path component (NAME_MAX on Linux and macOS).
NAME_MAX = 255
#: Listed at most in a refusal (then "+N more").
_SHOW = 3


# ---- the writer's token: host + boot + pid + random --------------------------------------


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:48] or "host"


def _boot_id() -> str:
    try:
        with Path("/proc/sys/kernel/random/boot_id").open(encoding="ascii") as f:
            return re.sub(r"[^0-9a-f-]", "", f.read().strip().lower()) or "0"
    except OSError:  # not Linux: no boot id, so never provably abandoned
        return "0"


def token() -> str:
    """``host.bootid.pid.random``: unique to one writer, and tells where and when it ran."""
    return f"{_host()}.{_boot_id()}.{os.getpid()}.{secrets.token_hex(4)}"


class _Held:
    """A directory (temporary or old) created with its lock file locked by this process."""

    def __init__(self, parent: Path, what: str) -> None:
        # Made and locked under a name clean_stale never looks at, then renamed to its
        # temporary name: under that name its lock is always held. Created there directly, a
        # sweep's other worker cleaning the same parent could take the lock between the lock
        # file's creation and its flock, judge the directory abandoned and delete it under
        # its writer (seen as a FileNotFoundError in a reproduction).
        while True:
            staging = parent / f".aqmlab.new-{token()}"
            try:
                staging.mkdir()  # the umask's permissions, as any result directory
                break
            except FileExistsError:  # pragma: no cover - 32 random bits collided
                continue
        self._fd: int | None = os.open(staging / _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        while True:
            self.path = parent / f".aqmlab.{what}-{token()}"
            try:
                staging.rename(self.path)  # the lock stays with the file
                break
            except OSError:  # pragma: no cover - 32 random bits collided
                if not (self.path.exists() or self.path.is_symlink()):
                    raise

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def unlock_file(self) -> None:
        """Removes the lock file (before the directory becomes a result); the lock is held
        until :meth:`release`."""
        with contextlib.suppress(FileNotFoundError):
            (self.path / _LOCK_FILE).unlink()


def _abandoned(d: Path, m: re.Match[str]) -> bool:
    if m["host"] != _host() or m["boot"] != _boot_id() or m["boot"] == "0":
        return False  # another host or an earlier boot: nothing can be proved from here
    try:
        fd = os.open(d / _LOCK_FILE, os.O_RDWR)
    except OSError:
        return False  # no lock file: being committed (or not ours to judge)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False  # its writer is alive, in whatever PID namespace
    # Ours now: the writer is gone. Remove while holding its lock.
    try:
        shutil.rmtree(d, ignore_errors=True)
    finally:
        os.close(fd)
    return True


def clean_stale(parent: Path) -> None:
    """Removes temporary and old directories in ``parent`` that are provably abandoned (see
    the module's docstring); anything else is left alone."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for d in entries:
        m = _TMP.match(d.name)
        if m and d.is_dir() and not d.is_symlink():
            _abandoned(d, m)


# ---- the destination lock ----------------------------------------------------------------


def _lock_path(dest: Path) -> Path:
    digest = hashlib.sha256(dest.name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return dest.parent / f".aqmlab.lock-{digest}"


@contextlib.contextmanager
def dest_lock(dest: Path, what: str = "--out") -> Iterator[None]:
    """Holds the lock of destination ``dest`` (a hidden file beside it, removed afterwards) for
    the block; if another process holds it, raises :class:`aqmlab.ScenarioError` naming the
    destination and the holder."""
    path = _lock_path(dest)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise scenario_error(
                what, f"{str(dest)!r}: {e.strerror or e} (lock file)", "a writable location"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_small(fd)
            os.close(fd)
            raise scenario_error(
                what,
                f"{str(dest)!r} is being written by another aqmlab process ({holder or 'unknown'})",
                "wait until it finishes, or write somewhere else",
            ) from None
        # The holder before us removes the file before unlocking: if the file we locked is no
        # longer the one at `path`, lock the new one instead.
        try:
            same = path.stat().st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        with contextlib.suppress(OSError):
            # Truncating an empty file is not free: ext4 then flushes the file's data when it is
            # closed (~2 ms of wall time per lock, for every run of a sweep).
            if os.fstat(fd).st_size:
                os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # while still locked, so that no one else holds a lock on it
        os.close(fd)


def _read_small(fd: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    return ""


# ---- markers and manifests ---------------------------------------------------------------


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _bookkeeping(rel: str) -> bool:
    """aqmlab's own marker and lock files, which no manifest lists."""
    name = rel.rsplit("/", 1)[-1]
    return rel == MARKER or name == _LOCK_FILE or name.startswith(".aqmlab.lock-")


def manifest(directory: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every regular file under ``directory`` but its marker
    (nested markers are files like any other)."""
    out: dict[str, str] = {}
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            p = Path(root, name)
            rel = p.relative_to(directory).as_posix()
            if _bookkeeping(rel) or not p.is_file() or p.is_symlink():
                continue
            out[rel] = _sha256(p)
    return out


def read_marker(directory: Path) -> dict[str, Any] | None:
    """The marker of ``directory`` if it is a valid one (JSON, a known kind, a manifest of
    hashes), else None."""
    try:
        st = os.lstat(directory / MARKER)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 64 << 20:
            return None
        doc = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("aqmlab") != "results" or doc.get("kind") not in KINDS:
        return None
    files = doc.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        return None
    return doc


def mark(directory: Path, kind: str, files: Mapping[str, str] | None = None) -> None:
    """Writes the marker of ``directory``: its kind and the manifest (default: every file in
    it now)."""
    doc = {
        "aqmlab": "results",
        "kind": kind,
        "writer": token(),
        "files": dict(sorted((files if files is not None else manifest(directory)).items())),
    }
    write_text_atomic(directory / MARKER, json.dumps(doc, indent=1) + "\n")


def foreign_files(directory: Path, marker: Mapping[str, Any]) -> list[str]:
    """Files under ``directory`` that its marker's manifest does not list with their current
    content: what the user added or edited."""
    listed: Mapping[str, str] = marker["files"]
    out: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            p = Path(root, name)
            rel = p.relative_to(directory).as_posix()
            if _bookkeeping(rel):
                continue
            if p.is_symlink() or not p.is_file() or listed.get(rel) != _sha256(p):
                out.append(rel)
    return out


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOW])
    return shown + (f" (+{len(names) - _SHOW} more)" if len(names) > _SHOW else "")


@contextlib.contextmanager
def _owner_lock(p: Path, what: str) -> Iterator[None]:
    """The destination's lock while its ownership is read. A writer replaces a result under
    that lock by renaming the old directory aside and the new one in: read unlocked, the
    directory can vanish between two looks (its listing read, its marker gone), and a result
    looks like a directory aqmlab did not write. Without a writable parent no aqmlab process
    can replace ``p``, so it is read without the lock."""
    if not os.access(p.parent, os.W_OK):
        yield
        return
    with dest_lock(p, what):
        yield


def _check_owner(p: Path, kind: str, what: str, *, whole: bool) -> None:
    """Refuses (without force) a non-empty directory that is not wholly a ``kind`` result of
    aqmlab's. ``whole``: it will be replaced, so every file must be one aqmlab wrote."""
    if not any(p.iterdir()):
        return
    m = read_marker(p)
    if m is None:
        raise scenario_error(
            what,
            f"{str(p)!r} is a non-empty directory aqmlab did not write (no valid .aqmlab marker)",
            "a new or empty directory, or an earlier aqmlab result; --force (force=True) "
            "replaces it",
        )
    if m["kind"] != kind:
        raise scenario_error(
            what,
            f"{str(p)!r} holds a {m['kind']} result, which a {kind} never replaces",
            "another directory; --force (force=True) replaces it",
        )
    if whole:
        foreign = foreign_files(p, m)
        if foreign:
            raise scenario_error(
                what,
                f"{str(p)!r} holds files aqmlab did not write or that were changed: "
                f"{_listing(foreign)}",
                "move them elsewhere, another directory, or --force (force=True) to replace all",
            )


# ---- destinations ------------------------------------------------------------------------


def _stat(p: Path) -> os.stat_result | None:
    """One ``stat`` (following links), so that the kind of a path is read once: a directory
    renamed away between two checks never looks like a device."""
    try:
        return p.stat()
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise
        return None


def check_destination(
    dest: str | Path, *, force: bool = False, what: str = "--out", kind: str = "run"
) -> Path:
    """Refuses a destination that is not a ``kind`` result of aqmlab's (see the module's
    docstring; unless ``force``), too long a name, or one not writable; returns the path to
    write (a symbolic link is followed: its target is written, the link is kept).

    Never allowed, even with ``force``: a device, pipe or socket (``/dev/null``), and the
    current directory or one of its parents (replacing it would delete the user's work).
    Raises :class:`aqmlab.ScenarioError` naming ``what`` (the option or argument).
    """
    if not isinstance(dest, (str, os.PathLike)) or isinstance(dest, bytes) or dest == "":
        raise scenario_error(what, repr(dest)[:60], "a directory path (str or pathlib.Path)")
    p = Path(dest)
    _check_name_lengths(p, what)
    try:
        if p.is_symlink():
            p = p.resolve(strict=False)
        st = _stat(p)
    except (OSError, RuntimeError):  # a loop of symbolic links
        raise scenario_error(
            what, f"{str(dest)!r} is a loop of symbolic links", "a directory path"
        ) from None
    if st is not None and not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        raise scenario_error(
            what, f"{str(p)!r} is a device, pipe or socket", "a directory path (never replaced)"
        )
    if st is not None and stat.S_ISDIR(st.st_mode):
        here = Path.cwd().resolve()
        if p.resolve() in (here, *here.parents):
            raise scenario_error(
                what,
                f"{str(dest)!r} is the current directory or one of its parents",
                "a directory below it, e.g. results/NAME (never replaced, even with --force)",
            )
        if not force:
            with _owner_lock(p, what):
                _check_owner(p, kind, what, whole=kind != "sweep")
    elif st is not None and not force:
        raise scenario_error(
            what,
            f"{str(p)!r} is an existing file",
            "a directory aqmlab may write; --force (force=True) replaces the file",
        )
    _check_writable(p, what)
    return p


def _check_name_lengths(p: Path, what: str) -> None:
    for part in p.parts:
        n = len(part.encode("utf-8", "surrogateescape"))
        if n > NAME_MAX:
            raise scenario_error(
                what,
                f"a path component of {n} bytes ({part[:40]!r}...)",
                f"names of at most {NAME_MAX} bytes (the file system's limit)",
            )
    if len(str(p).encode("utf-8", "surrogateescape")) > 4000:
        raise scenario_error(what, f"a path of {len(str(p))} characters", "at most 4000")


def _check_writable(p: Path, what: str) -> None:
    probe_dir = p if p.is_dir() else p.parent
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise scenario_error(what, f"{str(p)!r}: {str(probe_dir)!r} is a file", "a directory path")
    try:
        fd, name = tempfile.mkstemp(prefix=".aqmlab-probe-", dir=probe_dir)
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise scenario_error(
            what, f"{str(p)!r}: {reason} in {str(probe_dir)!r}", "a writable location"
        ) from None
    os.close(fd)
    Path(name).unlink()


@contextlib.contextmanager
def atomic_dir(
    dest: str | Path,
    *,
    kind: str = "run",
    force: bool = False,
    what: str = "--out",
    clean: bool = True,
    files: Mapping[str, str] | None = None,
) -> Iterator[Path]:
    """Yields a temporary directory; on normal exit it replaces ``dest`` (marker and manifest
    written), on any exception (including ``KeyboardInterrupt``/``SystemExit``) it is removed.

    The destination's lock is held throughout, and its ownership re-checked under the lock
    (another writer may have changed it since :func:`check_destination`). ``clean``: first
    remove the abandoned temporaries beside ``dest`` (:func:`clean_stale`; a sweep does this
    once for its ``runs/`` when it starts, not once per run, since listing a directory of
    thousands of runs for every run made a sweep's bookkeeping grow with the square of its
    runs). ``files``: the manifest, when the caller records each file's SHA-256 as it writes
    it (read when the block ends; it must then list every file written), instead of reading
    every file back to hash it."""
    out = Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    with dest_lock(out, what):
        st = _stat(out)
        if st is not None and stat.S_ISDIR(st.st_mode) and not force:
            _check_owner(out, kind, what, whole=True)
        if clean:
            clean_stale(out.parent)
        tmp = _Held(out.parent, "tmp")
        try:
            yield tmp.path
            tmp.unlock_file()
            mark(tmp.path, kind, files)
            replace_dir(tmp.path, out)
        except BaseException:
            shutil.rmtree(tmp.path, ignore_errors=True)
            raise
        finally:
            tmp.release()


def replace_dir(new: Path, dest: Path) -> None:
    """Renames ``new`` to ``dest``; an existing ``dest`` (file or directory) is moved aside
    first (into a held old directory), then deleted."""
    if not (dest.exists() or dest.is_symlink()):
        new.rename(dest)
        return
    old = _Held(dest.parent, "old")
    try:
        dest.rename(old.path / "previous")
        new.rename(dest)
        shutil.rmtree(old.path, ignore_errors=True)
    finally:
        old.release()


def check_file(path: str | Path, *, force: bool = False, what: str = "--out") -> Path:
    """Refuses (unless ``force``) to replace an existing file that aqmlab did not write there:
    only a file the marker of its directory lists with its current content may be replaced.
    Also refuses what is not a file (a directory, a device) and names too long."""
    p = Path(path)
    _check_name_lengths(p, what)
    try:
        st = _stat(p)
    except OSError:
        raise scenario_error(
            what, f"{str(p)!r} is a loop of symbolic links", "a file path"
        ) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise scenario_error(what, f"{str(p)!r} is not a regular file", "a file path")
    if st is not None and not force:
        m = read_marker(p.parent)
        if m is None or m["files"].get(p.name) != _sha256(p):
            raise scenario_error(
                what,
                f"{str(p)!r} is an existing file aqmlab did not write",
                "a new file name, or --force (force=True) to replace it",
            )
    _check_writable(p, what)
    return p


def record_file(path: Path) -> None:
    """Adds ``path`` (just written) to the manifest of its directory's marker, creating a
    ``files`` marker if the directory has none, so that aqmlab may replace it later."""
    d = path.parent
    with dest_lock(d / MARKER, "marker"):
        m = read_marker(d)
        files = dict(m["files"]) if m else {}
        files[path.name] = _sha256(path)
        mark(d, m["kind"] if m else "files", files)


def write_text_atomic(path: Path, text: str) -> None:
    """Writes a file through a temporary sibling and a rename."""
    tmp = path.with_name(f".aqmlab.tmpf-{token()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def terminate_gracefully() -> None:
    """Makes SIGTERM (and SIGHUP) raise ``KeyboardInterrupt`` in the main thread, so that
    ``finally`` blocks remove temporary directories before the process exits."""
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            with contextlib.suppress(ValueError, OSError):  # not the main thread
                signal.signal(sig, _raise_interrupt)


__all__ = [
    "KINDS",
    "MARKER",
    "atomic_dir",
    "check_destination",
    "check_file",
    "clean_stale",
    "dest_lock",
    "foreign_files",
    "manifest",
    "mark",
    "read_marker",
    "record_file",
    "replace_dir",
    "terminate_gracefully",
    "token",
    "write_text_atomic",
]
