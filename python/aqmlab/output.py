"""Where results may be written, and how: the one output policy of the CLI and the API.

- A destination is *ours* when it does not exist, is an empty directory, or is a directory
  aqmlab wrote (it holds the marker file ``.aqmlab``, or, from before the marker, a run's
  ``summary.json`` and ``scenario.toml``, a sweep's ``runs.parquet`` or a comparison's
  ``comparison.csv``). Anything else (an existing file, a directory holding
  the user's own files) is refused unless ``force=True`` (``--force``): aqmlab never deletes
  what it did not write without being told to.
- :func:`check_destination` also proves the destination writable *before* anything is
  simulated, by creating and removing a file in the nearest existing directory on its path, so a
  read-only ``--out`` fails in well under a second instead of after the run.
- :func:`atomic_dir` writes a whole directory into a temporary sibling and renames it into place
  at the end; the temporary directory is removed on any exit that runs Python code (errors,
  ``KeyboardInterrupt``, and ``SIGTERM`` once :func:`terminate_gracefully` is installed, as the
  CLI does). After a ``SIGKILL`` the next write beside it removes temporaries whose process is
  gone (:func:`clean_stale`). A destination either holds the previous complete result or the
  new complete one, never a half-written one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from aqmlab.scenario import scenario_error

#: The marker file aqmlab writes into every directory it produces.
MARKER = ".aqmlab"
_TMP = re.compile(r"^\..+\.(tmp|old)-(\d+)-")


def is_ours(path: Path) -> bool:
    """True for an aqmlab result directory (the marker, or what older versions wrote)."""
    return path.is_dir() and (
        (path / MARKER).is_file()
        or ((path / "summary.json").is_file() and (path / "scenario.toml").is_file())
        or (path / "runs.parquet").is_file()
        or (path / "comparison.csv").is_file()
    )


def check_destination(dest: str | Path, *, force: bool = False, what: str = "--out") -> Path:
    """Refuses a destination that is not ours (unless ``force``) or not writable; returns the
    path to write (a symbolic link is followed: its target is written, the link is kept).

    Never allowed, even with ``force``: a device, pipe or socket (``/dev/null``), and the
    current directory or one of its parents (replacing it would delete the user's work).
    Raises :class:`aqmlab.ScenarioError` naming ``what`` (the option or argument).
    """
    if not isinstance(dest, (str, os.PathLike)) or isinstance(dest, bytes) or dest == "":
        raise scenario_error(what, repr(dest)[:60], "a directory path (str or pathlib.Path)")
    p = Path(dest)
    if p.is_symlink():
        p = p.resolve()
    if p.exists() and not p.is_dir() and not p.is_file():
        raise scenario_error(
            what, f"{str(p)!r} is a device, pipe or socket", "a directory path (never replaced)"
        )
    if p.exists() and p.is_dir():
        here = Path.cwd().resolve()
        if p.resolve() in (here, *here.parents):
            raise scenario_error(
                what,
                f"{str(dest)!r} is the current directory or one of its parents",
                "a directory below it, e.g. results/NAME (never replaced, even with --force)",
            )
    if p.exists():
        if not p.is_dir():
            if not force:
                raise scenario_error(
                    what,
                    f"{str(p)!r} is an existing file",
                    "a directory aqmlab may write; --force (force=True) replaces the file",
                )
        elif not is_ours(p) and any(p.iterdir()) and not force:
            raise scenario_error(
                what,
                f"{str(p)!r} is a non-empty directory aqmlab did not write",
                "a new or empty directory, or an earlier aqmlab result; "
                "--force (force=True) replaces it",
            )
    _check_writable(p, what)
    return p


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


def mark(directory: Path) -> None:
    """Writes the marker that makes ``directory`` recognisably ours."""
    (directory / MARKER).write_text("aqmlab results\n", encoding="utf-8")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(parent: Path) -> None:
    """Removes temporary siblings (``.NAME.tmp-PID-*``, ``.NAME.old-PID-*``) in ``parent``
    left by processes that no longer exist."""
    if not parent.is_dir():
        return
    for d in parent.iterdir():
        m = _TMP.match(d.name)
        if m and not _pid_alive(int(m.group(2))):
            shutil.rmtree(d, ignore_errors=True)


def temp_dir(dest: Path, kind: str = "tmp") -> Path:
    """A new temporary directory beside ``dest`` (same file system, so renames are atomic),
    with the permissions ``mkdir`` would give (``mkdtemp`` makes it private: 0700)."""
    d = Path(tempfile.mkdtemp(prefix=f".{dest.name}.{kind}-{os.getpid()}-", dir=dest.parent))
    umask = os.umask(0)
    os.umask(umask)
    d.chmod(0o777 & ~umask)
    return d


@contextlib.contextmanager
def atomic_dir(dest: str | Path) -> Iterator[Path]:
    """Yields a temporary directory; on normal exit it replaces ``dest`` (marker written),
    on any exception (including ``KeyboardInterrupt``/``SystemExit``) it is removed."""
    out = Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(out.parent)
    tmp = temp_dir(out)
    try:
        yield tmp
        mark(tmp)
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def replace_dir(new: Path, dest: Path) -> None:
    """Renames ``new`` to ``dest``; an existing ``dest`` (file or directory) is moved aside
    first, then deleted."""
    old: Path | None = None
    if dest.exists() or dest.is_symlink():
        old = temp_dir(dest, "old")
        dest.rename(old / dest.name)
    new.rename(dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_text_atomic(path: Path, text: str) -> None:
    """Writes a file through a temporary sibling and a rename."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-")
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
    "MARKER",
    "atomic_dir",
    "check_destination",
    "clean_stale",
    "is_ours",
    "mark",
    "replace_dir",
    "terminate_gracefully",
    "write_text_atomic",
]
