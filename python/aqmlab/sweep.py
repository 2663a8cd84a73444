"""Sweeps: many runs of one scenario over a grid of overrides, in parallel, cached and resumable.

A sweep file (``aqmlab sweep SWEEP.toml``)::

    base = "../scenarios/demo/red.toml"      # relative to this file, or an inline [base] table
    mode = "product"                         # "product" (cartesian, default) or "zip"
    seeds = [1, 2, 3]                        # repetitions with explicit seeds (default: the base's)

    [set]                                    # overrides applied to every point
    duration = "60s"

    [axes]                                   # dotted key -> list of values
    "bottleneck.qdisc.max_p" = [0.02, 0.05, 0.1]
    "flows.0.count" = [8, 32]
    # a whole table is a value too; its "kind" becomes the label:
    # "bottleneck.qdisc" = [{ kind = "red" }, { kind = "droptail" }]

    [labels]                                 # optional short column names for the axes
    "bottleneck.qdisc.max_p" = "max_p"
    "flows.0.count" = "n"

Every point is a :class:`Point` (labels + the full scenario). :func:`run_points` validates each
(in Rust), hashes its *resolved* TOML (every default written out), and runs only the points with
no finished directory ``out_dir/runs/<sha256>/``: re-running a sweep, or resuming one that was
killed, runs only what is missing. A run's files are written into a temporary directory and
renamed into place when complete, so a killed or failed run never leaves a directory that looks
finished. A point whose scenario is rejected is reported (``error`` column) and gets no directory.

A cached run is served only if its ``summary.json`` parses and passes the invariants
(:mod:`aqmlab.invariants`) and every table file is present; otherwise (a truncated summary, a
deleted ``flows.parquet``, a hand-edited ``utilisation = 7.0``) the point is run again. A fresh
run that breaks an invariant is that point's error, naming the run.

Runs go to a local process pool (all cores; the workers die with the parent process, however it
ends) or, with ``scheduler="tcp://host:port"`` or ``client=`` a ``dask.distributed.Client``, to
a Dask cluster (``pip install 'aqmlab[dask]'``; ``out_dir`` is made absolute on the client and
must be on a file system the workers share, as each worker writes its run's directory itself).
An unreachable scheduler is an error within seconds.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import multiprocessing
import os
import queue
import re
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from aqmlab import output
from aqmlab import scenario as _scenario
from aqmlab.invariants import InvariantError, check_summary
from aqmlab.scenario import measured_qdisc, scenario_error

if TYPE_CHECKING:
    # pandas costs ~0.7 s of CPU to import: not in the process-pool workers, which import this
    # module for run_one and never build a DataFrame.
    import pandas as pd

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Tables a run directory holds as Parquet (see :mod:`aqmlab.results`).
TABLES = ("flows", "queue", "groups", "links", "transfers")
#: Summary keys not flattened into the runs table (per-flow lists, echoes of the scenario).
_SKIP_SUMMARY = {"flows", "scenario"}
K = TypeVar("K")


@dataclass(frozen=True)
class Point:
    """One run of a sweep: ``labels`` identify it in tables and plots (``{"algorithm": "red",
    "max_p": 0.05, "seed": 1}``); ``scenario`` is the full scenario document, overrides applied."""

    labels: dict[str, Any]
    scenario: dict[str, Any] = field(repr=False)


# ---------------------------------------------------------------------------------------------
# Grids


def label_value(value: Any) -> Any:
    """How an axis value appears in a label column: tables by their ``kind`` (``red (gentle)``
    for gentle RED), lists as text, scalars as they are."""
    if isinstance(value, Mapping):
        kind = str(value.get("kind", "table"))
        return f"{kind} (gentle)" if value.get("gentle") is True else kind
    if isinstance(value, (list, tuple)):
        return json.dumps(value)
    return value


def default_label(key: str) -> str:
    """``bottleneck.qdisc.max_p`` -> ``max_p``; ``flows.0.count`` -> ``count``; a whole
    ``bottleneck.qdisc`` table -> ``algorithm``."""
    if key in ("bottleneck.qdisc", "bottleneck.qdisc.kind"):
        return "algorithm"
    parts = [p for p in key.split(".") if not p.isdigit()]
    return parts[-1] if parts else key


def algorithm_label(doc: Mapping[str, Any]) -> str:
    """``red``, ``red (gentle)``, ``droptail``... from a scenario document."""
    q = measured_qdisc(doc)
    return str(label_value(q)) if isinstance(q, Mapping) else "?"


#: Most points one sweep may have: a typo in a grid (100 values on 5 axes) must fail at once,
#: not after building 10^10 scenarios in memory.
MAX_POINTS = 100_000


def grid(
    base: _scenario.ScenarioLike,
    axes: Mapping[str, Sequence[Any]],
    *,
    mode: str = "product",
    seeds: Sequence[int] | None = None,
    fixed: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    extra_labels: Mapping[str, Any] | None = None,
) -> list[Point]:
    """The points of a grid over dotted keys.

    ``mode="product"`` takes every combination of the axes' values, ``"zip"`` takes the i-th
    value of every axis together (all axes must be equally long). ``fixed`` overrides apply to
    every point first; ``seeds`` repeats every combination once per seed (default: the base's
    seed). Labels: one column per axis (named by ``labels[key]`` or :func:`default_label`),
    ``algorithm`` (from the point's qdisc) unless an axis already names it, ``seed``, and
    ``extra_labels`` (constant columns such as ``{"figure": "1b"}``).
    """
    if not isinstance(base, Mapping):
        base, _ = _scenario.resolve(base)  # a path or TOML text (raises ScenarioError)
    for what, table in (("axes", axes), ("set", fixed), ("labels", labels)):
        if table is not None and not isinstance(table, Mapping):
            raise scenario_error(what, repr(table)[:60], "a table of dotted key -> value")
    if seeds is not None and (
        not isinstance(seeds, (list, tuple))
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in seeds)
    ):
        raise scenario_error("seeds", repr(seeds)[:60], "a list of non-negative integers")
    names = {k: (labels or {}).get(k) or default_label(k) for k in axes}
    if len(set(names.values())) != len(names):
        raise scenario_error("labels", json.dumps(names), "a distinct label per axis")
    for key, values in axes.items():
        if not isinstance(values, (list, tuple)) or not values:
            raise scenario_error(f"axes.{key}", repr(values), "a non-empty list of values")
    keys = list(axes)
    n_seeds = len(seeds) if seeds else 1
    size = (
        math.prod(len(axes[k]) for k in keys)
        if mode == "product"
        else len(next(iter(axes.values()), [None]))
    )
    if size * n_seeds > MAX_POINTS:  # checked before a single point is built
        shape = " x ".join(str(len(axes[k])) for k in keys) or "1"
        raise scenario_error(
            "axes",
            f"{shape} values x {n_seeds} seeds = {size * n_seeds:,} points",
            f"at most {MAX_POINTS:,} points per sweep (split it into several sweeps)",
        )
    if mode == "product":
        combos = list(itertools.product(*(axes[k] for k in keys)))
    elif mode == "zip":
        lengths = {k: len(axes[k]) for k in keys}
        if len(set(lengths.values())) > 1:
            raise scenario_error("axes", json.dumps(lengths), "equally long lists in zip mode")
        combos = list(zip(*(axes[k] for k in keys), strict=True)) if keys else [()]
    else:
        raise scenario_error("mode", repr(mode), '"product" or "zip"')
    base_doc = _scenario.apply_overrides(_scenario._deep_copy(base), dict(fixed or {}))
    seed_list = list(seeds) if seeds else [int(base_doc.get("seed", 1))]
    points: list[Point] = []
    for combo in combos:
        for seed in seed_list:
            doc = _scenario._deep_copy(base_doc)
            lab: dict[str, Any] = dict(extra_labels or {})
            for key, value in zip(keys, combo, strict=True):
                _scenario.set_path(doc, key, _scenario._deep_copy(value))
                lab[names[key]] = label_value(value)
            doc["seed"] = int(seed)
            lab.setdefault("algorithm", algorithm_label(doc))
            lab["seed"] = int(seed)
            points.append(Point(labels=lab, scenario=doc))
    return points


def load_sweep(path: str | Path) -> list[Point]:
    """The points of a sweep file (format in the module docstring)."""
    p = Path(path)
    spec = _scenario.load(p)
    known = {"base", "mode", "seeds", "repetitions", "set", "axes", "labels", "name"}
    for key in spec:
        if key not in known:
            raise scenario_error(key, repr(spec[key]), f"a sweep key ({', '.join(sorted(known))})")
    base = spec.get("base")
    if isinstance(base, str):
        base_doc = _scenario.load((p.parent / base) if not Path(base).is_absolute() else base)
    elif isinstance(base, Mapping):
        base_doc = dict(base)
    else:
        raise scenario_error("base", repr(base), "a scenario path or an inline [base] table")
    seeds = spec.get("seeds")
    if seeds is None and "repetitions" in spec:
        reps = spec["repetitions"]
        if not isinstance(reps, int) or isinstance(reps, bool) or not 1 <= reps <= MAX_POINTS:
            raise scenario_error(
                "repetitions", repr(reps), f"an integer in 1..{MAX_POINTS:,} (seeds 1..n)"
            )
        seeds = list(range(1, reps + 1))
    if seeds is not None and (
        not isinstance(seeds, list)
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
    ):
        raise scenario_error("seeds", repr(seeds)[:60], "a list of non-negative integers")
    return grid(
        base_doc,
        spec.get("axes", {}),
        mode=str(spec.get("mode", "product")),
        seeds=seeds,
        fixed=spec.get("set"),
        labels=spec.get("labels"),
    )


# ---------------------------------------------------------------------------------------------
# Running


def resolve_point(point: Point) -> str:
    """The point's scenario validated and resolved by the core (raises ``ScenarioError``)."""
    from aqmlab import _core

    return _core.validate(_scenario.dumps(point.scenario))


def point_hash(resolved_toml: str) -> str:
    """The cache key of a run: sha256 of the core's model identity for this scenario and the
    resolved scenario TOML. The identity (``_core.scenario_model_id``) changes whenever this
    scenario's results may differ from one build to the next (the algorithms it runs, the engine,
    TCP), so a sweep resumed after an upgrade re-runs its points instead of mixing two models'
    results, while a build that only adds or changes another algorithm keeps them."""
    from aqmlab import _core

    model = _core.scenario_model_id(resolved_toml)
    return sha256(f"{model}\n{resolved_toml}".encode()).hexdigest()


#: A run directory's name in a sweep: the point's hash (sha256 hex).
_HASH_NAME = re.compile(r"[0-9a-f]{64}")


def cached_summary(run_dir: Path) -> dict[str, Any] | None:
    """The summary of a finished, sound run directory, or None: the directory must exist under
    its final name (temporary ones start with a dot) with its scenario, every table file, and a
    ``summary.json`` that parses and passes :func:`aqmlab.invariants.check_summary`; its
    marker's manifest must list exactly its files with their current SHA-256 (a truncated
    table, an edited summary, a file copied in are caught); and a directory named by a point
    hash must hold the scenario of that hash (another point's files copied in are caught)."""
    if run_dir.name.startswith(".") or not (run_dir / "scenario.toml").is_file():
        return None
    if not all((run_dir / f"{t}.parquet").is_file() for t in TABLES):
        return None
    try:
        marker = output.read_marker(run_dir)
        if marker is None or marker["kind"] != "run" or output.foreign_files(run_dir, marker):
            return None
        if not all(f"{t}.parquet" in marker["files"] for t in TABLES):
            return None
        if _HASH_NAME.fullmatch(run_dir.name):
            scenario_text = (run_dir / "scenario.toml").read_text(encoding="utf-8")
            if point_hash(scenario_text) != run_dir.name:
                return None
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        check_summary(summary, run_dir.name)
    except (OSError, UnicodeDecodeError, ValueError):  # JSONDecodeError, InvariantError
        return None
    return summary if isinstance(summary, dict) else None


def is_complete(run_dir: Path) -> bool:
    """True when ``run_dir`` holds a finished, sound run (see :func:`cached_summary`)."""
    return cached_summary(run_dir) is not None


def run_one(resolved_toml: str, run_dir: str) -> str:
    """Runs one resolved scenario and writes its directory atomically; returns the summary JSON.

    A damaged directory under that name is replaced. Top-level so that process pools and Dask
    workers can pickle it.
    """
    return _run_one(resolved_toml, run_dir)[0]


def _run_one(resolved_toml: str, run_dir: str) -> tuple[str, dict[str, Any]]:
    """:func:`run_one`, returning the summary parsed as well as its JSON."""
    from aqmlab import api
    from aqmlab.results import Results

    out = Path(run_dir)
    if not out.is_absolute():
        raise ValueError(f"run_one needs an absolute run directory, got {run_dir!r}")
    cached = cached_summary(out)
    if cached is not None:  # another worker (or an earlier sweep) got there first
        return (out / "summary.json").read_text(encoding="utf-8"), cached
    cpu0, wall0 = time.process_time(), time.perf_counter()
    # Interruptible: a signal to this worker stops the simulation's CPU work at once.
    raw = api.run_core(resolved_toml)
    res = Results.from_core(raw, name=out.name)  # raises InvariantError naming the run
    # The sweep checked its destination before any run and cleaned its runs/ when it
    # started: neither is repeated for each run.
    res.write_checked(out, plots=False, force=True, clean=False)
    _log_run_time(out, time.process_time() - cpu0, time.perf_counter() - wall0)
    return res.summary_json, res.summary


class RunTime(NamedTuple):
    """What the worker measured of one run it was given: its CPU seconds (the worker process's,
    writing the run's directory included) and its start and end (seconds since the epoch, the
    worker's clock)."""

    cpu_s: float
    start: float
    end: float
    #: The scalars (:func:`flatten`) of the summary the worker wrote, after checking its
    #: invariants: the runs table takes them instead of reading, hashing and checking the
    #: directory again (~4 ms of CPU a run), or parsing the summary's JSON a second time
    #: (~4 ms for a run of 1,000 flows, whose per-flow rows the table leaves out anyway).
    scalars: dict[str, Any] | None = None


def run_timed(resolved_toml: str, run_dir: str) -> RunTime:
    """:func:`run_one`, timed in the process that runs it: what the pools submit. Top-level so
    that process pools and Dask workers can pickle it."""
    cpu0, start = time.process_time(), time.time()
    _, summary = _run_one(resolved_toml, run_dir)
    return RunTime(time.process_time() - cpu0, start, time.time(), flatten(summary))


#: Environment variable naming a file to which every run a sweep executes (not one taken from
#: the cache) appends one JSON line: ``run_dir``, ``cpu_s`` (the worker's CPU for the run,
#: writing its directory included) and ``wall_s``. Where a reproduction's CPU goes, per
#: figure: ``bench/reproduce_cost.py``. The file lies outside the run directories, which stay
#: byte-identical between runs.
RUN_TIMES_ENV = "AQMLAB_RUN_TIMES"


def _log_run_time(run_dir: Path, cpu_s: float, wall_s: float) -> None:
    path = os.environ.get(RUN_TIMES_ENV)
    if not path:
        return
    line = json.dumps(
        {"run_dir": str(run_dir), "cpu_s": round(cpu_s, 4), "wall_s": round(wall_s, 4)}
    )
    try:
        # One short write in append mode: lines of concurrent workers do not interleave.
        with Path(path).open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError as e:  # the run itself is complete; only its timing is not recorded
        print(f"aqmlab: {RUN_TIMES_ENV}={path}: cannot append ({e.strerror})", file=sys.stderr)


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalars of a summary, nested keys joined with dots (``delay_ms.p99``,
    ``groups.ftp.goodput_mbps``); lists (per-flow rows) are left out."""
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if not prefix and key in _SKIP_SUMMARY:
            continue
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, prefix=f"{name}."))
        elif isinstance(value, (list, tuple)):
            continue
        else:
            out[name] = value
    return out


def _clean_stale(runs: Path) -> None:
    """Removes temporary directories a killed sweep left behind (never a finished run, nor
    one a live process is writing)."""
    output.clean_stale(runs)


class Progress:
    """Rich progress bars, one per sweep (a reproduction's papers share one pool), or nothing.

    ``bars``: ``(name, points, points already finished)`` per sweep."""

    def __init__(self, enabled: bool, bars: Sequence[tuple[str, int, int]]) -> None:
        self._bar: Any = None
        self._tasks: list[Any] = []
        if enabled and any(total for _, total, _ in bars):
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[note]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                transient=False,
            )
            for name, total, done in bars:
                self._tasks.append(self._bar.add_task(name, total=total, completed=done, note=""))
            self._bar.start()

    def advance(self, bar: int = 0, note: str = "") -> None:
        if self._bar is not None:
            self._bar.update(self._tasks[bar], advance=1, note=note)

    def note(self, bar: int, note: str) -> None:
        """Replaces the note beside a bar (what happens to that sweep now)."""
        if self._bar is not None:
            self._bar.update(self._tasks[bar], note=note)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def _die_with_parent(parent: int) -> None:
    """Process-pool initializer: the worker exits when the sweep's process does, even if that
    one was SIGKILLed (no chance to shut the pool down). Linux: ``PR_SET_PDEATHSIG``; everywhere:
    a daemon thread that notices the parent is gone (the core releases the GIL while it runs)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, 9, 0, 0, 0)  # SIGKILL
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="aqmlab-parent-watch", daemon=True).start()


#: ``close(abort)``: ends the pool; ``abort`` (an interrupt) stops running simulations at once.
_Close = Callable[[bool], None]


def _submit_local(workers: int) -> tuple[Callable[[str, str], Future[RunTime]], _Close]:
    if workers <= 1:

        def submit_inline(text: str, run_dir: str) -> Future[RunTime]:
            fut: Future[RunTime] = Future()
            try:
                fut.set_result(run_timed(text, run_dir))
            except Exception as e:
                fut.set_exception(e)
            return fut

        return submit_inline, lambda abort: None
    # "spawn": the parent may hold threads (rich's refresher), which fork does not mix with.
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )

    def submit(text: str, run_dir: str) -> Future[RunTime]:
        # The pool starts its workers inside submit. They are started with SIGINT blocked (the
        # mask survives exec), so a Ctrl-C at the terminal, which reaches the whole process
        # group, is handled once, by this process, which terminates them; a worker still
        # importing would otherwise print a KeyboardInterrupt traceback of its own. Blocked,
        # not ignored: a Ctrl-C in this moment is delivered here when it is unblocked.
        if threading.current_thread() is not threading.main_thread():
            return pool.submit(run_timed, text, run_dir)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return pool.submit(run_timed, text, run_dir)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def close(abort: bool) -> None:
        if abort:
            # The workers' simulations would run to their end (minutes): stop the processes.
            # A point being written is left as a temporary directory that the next sweep
            # removes once provably abandoned; finished points stay.
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    proc.terminate()
        pool.shutdown(wait=not abort, cancel_futures=True)

    return submit, close


#: Seconds the whole connection to a Dask scheduler may take: resolving the host, connecting,
#: the first bytes of the handshake and starting the client. Past it, the sweep stops with one
#: line. A scheduler sends its handshake as soon as it accepts, so most wrong addresses (a
#: closed port, an HTTP or SSH server, a port that accepts and says nothing) are told apart
#: within ``DASK_HANDSHAKE_WAIT`` of the connection.
DASK_CONNECT_DEADLINE = 8.0
DASK_HANDSHAKE_WAIT = 3.0


class _NotAScheduler(Exception):
    """The address answered, but not as a Dask scheduler does."""


def _probe_tcp(address: str) -> None:
    """Connects to a ``tcp://host:port`` scheduler address and reads the first bytes the other
    end sends: a Dask comm's handshake opens with its frame count, a small little-endian
    64-bit integer; an HTTP or SSH server sends text, or nothing until it is spoken to."""
    rest = address.split("://", 1)[1] if "://" in address else address
    host, _, port = rest.rpartition(":")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=5.0) as sock:
        sock.settimeout(DASK_HANDSHAKE_WAIT)
        try:
            first = sock.recv(64)
        except TimeoutError:
            raise _NotAScheduler(
                f"the port accepted the connection but sent nothing in {DASK_HANDSHAKE_WAIT:.0f}"
                " s (a dashboard or other server, not the scheduler's port?)"
            ) from None
    if len(first) < 8 or int.from_bytes(first[:8], "little") > 1024:
        text = first[:40].decode("ascii", "replace")
        shown = "".join(c if c.isprintable() else "." for c in text) or "nothing"
        raise _NotAScheduler(f"it answered {shown!r}")


async def _probe_comm(address: str) -> None:
    """Other schemes (``tls://``, ``ws://``, ...): one connection through Dask's own comm layer,
    with its security settings from the Dask configuration."""
    from distributed.comm import connect
    from distributed.security import Security

    args = Security().get_connection_args("client")
    comm = await connect(address, timeout=DASK_CONNECT_DEADLINE, **args)
    comm.abort()


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _connect_dask(address: str, deadline: float = DASK_CONNECT_DEADLINE) -> Any:
    """A ``distributed.Client`` for ``address``, or one line naming why not, within ``deadline``
    seconds whatever is there (nothing, a silent port, a non-Dask server, a TLS scheduler
    without TLS settings, a name that does not resolve).

    The probe and the client's start run in a helper thread, so a hang in either (a DNS lookup,
    a handshake that never comes) cannot outlive the deadline; a client that comes up after the
    caller gave up is closed by that thread."""
    import asyncio

    box: dict[str, Any] = {}
    gave_up = threading.Event()

    def connect() -> None:
        try:
            if address.startswith("tcp://") or "://" not in address:
                _probe_tcp(address)
            else:
                asyncio.run(asyncio.wait_for(_probe_comm(address), deadline))
            # Imported only once the address answered as a scheduler: importing distributed
            # takes seconds on a busy machine, which a wrong address should not wait for.
            from distributed import Client

            client = Client(address, timeout=deadline)
        except BaseException as e:  # reported by the caller, in its thread
            box["err"] = e
            return
        if gave_up.is_set():
            client.close()
        else:
            box["client"] = client

    started = time.monotonic()
    worker = threading.Thread(target=connect, name="aqmlab-dask-connect", daemon=True)
    worker.start()
    worker.join(deadline)
    if "client" in box:
        return box["client"]
    e = box.get("err")
    if worker.is_alive() or e is None:
        gave_up.set()
        reason = f"no answer within {time.monotonic() - started:.0f} s"
    elif isinstance(e, _NotAScheduler):
        reason = f"not a Dask scheduler: {e}"
    elif isinstance(e, (asyncio.TimeoutError, TimeoutError)):
        reason = f"no answer within {deadline:.0f} s"
    elif isinstance(e, socket.gaierror):
        reason = f"unknown host ({e.strerror or e})"
    elif isinstance(e, OSError):
        reason = e.strerror or _one_line(e)
    else:
        reason = f"{type(e).__name__}: {_one_line(e)}"
    allowed = "a running Dask scheduler (dask scheduler), e.g. tcp://host:8786"
    if address.startswith("tls://"):
        allowed += "; tls:// needs distributed's TLS settings (dask config distributed.comm.tls)"
    raise scenario_error("--scheduler", f"{address}: {reason}", allowed)


def _check_address(address: str) -> None:
    """A ``tcp://`` scheduler address (or one without a scheme) names a host and a port."""
    if "://" in address and not address.startswith("tcp://"):
        return  # tls://, ws://, inproc:// ...: Dask's comm layer reads them
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise scenario_error("--scheduler", address, "a Dask scheduler address tcp://host:port")


def _submit_dask(
    scheduler: Any,
) -> tuple[Callable[[str, str], Any], _Close]:
    """Submits to a Dask cluster: ``scheduler`` is an address or a ``distributed.Client``
    (then left open for its owner)."""
    import importlib.util

    if importlib.util.find_spec("distributed") is None:  # the optional extra
        raise scenario_error(
            "--scheduler", str(scheduler), "dask.distributed installed: pip install 'aqmlab[dask]'"
        )
    if not isinstance(scheduler, str):  # a Client (distributed is imported by its owner)
        client, close = scheduler, (lambda abort: None)
    else:
        address = scheduler
        _check_address(address)
        client = _connect_dask(address)
        close = lambda abort: client.close()  # noqa: E731

    def submit(text: str, run_dir: str) -> Any:
        return client.submit(run_timed, text, run_dir, pure=False)

    return submit, close


def run_points(
    points: list[Point],
    out_dir: Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    on_error: str = "record",
    client: Any = None,
    force: bool = False,
) -> pd.DataFrame:
    """Runs every point not already finished under ``out_dir/runs/`` and returns one row per
    point: its labels, the summary's scalars flattened with dots, ``run_dir``, ``cached`` (the
    run was found finished) and ``error`` (``None``, or why the point did not run).

    Also writes ``out_dir/runs.parquet`` (every point exactly once, in order). ``workers``:
    local processes (default: every core; 1 runs in this process). ``scheduler``: a Dask
    scheduler address instead, or ``client``: a ``dask.distributed.Client``. ``on_error="raise"``
    raises the first failure after the other points have finished, with every failure listed
    in the message. ``out_dir`` must be new, empty or an earlier aqmlab result unless ``force``
    (:mod:`aqmlab.output`); it is checked, and made absolute, before anything runs.
    """
    check_points(points)
    check_workers(workers)
    out_dir = check_out(out_dir, force)
    # One sweep at a time writes a directory: a second one gets one line, not a race.
    with output.dest_lock(out_dir):
        plan = SweepPlan(points, out_dir)
        bar = Progress(progress, [("sweep", len(points), plan.finished)])
        try:
            with open_pool(
                len(plan.todo),
                workers,
                client if client is not None else scheduler,
                before=plan.open,
            ) as submit:
                tasks = [(plan.texts[h], str(plan.runs / h), h) for h in plan.todo]

                def finished(h: str, exc: BaseException | None, rt: RunTime | None) -> None:
                    for _ in range(plan.record(h, exc, rt)):
                        bar.advance(note="failed" if exc is not None else "")

                execute(tasks, submit, finished)
        finally:
            bar.close()
        return plan.table(on_error)


def check_points(points: Any) -> None:
    """``points`` is a list of :class:`Point` (else a ``ScenarioError`` naming it)."""
    if not isinstance(points, (list, tuple)) or not all(isinstance(p, Point) for p in points):
        raise scenario_error(
            "points", repr(points)[:60], "a list of sweep.Point (from sweep.grid or load_sweep)"
        )


def check_workers(workers: Any) -> None:
    """``workers`` is None or a positive number of local processes."""
    if workers is not None and (
        not isinstance(workers, int) or isinstance(workers, bool) or workers < 1
    ):
        raise scenario_error("workers", repr(workers), "an integer >= 1 (local processes)")


def check_out(out_dir: str | Path, force: bool) -> Path:
    """A sweep's destination, checked (:func:`aqmlab.output.check_destination`), absolute, and
    its parent made."""
    out = output.check_destination(out_dir, force=force, kind="sweep").resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


class SweepPlan:
    """One sweep's points resolved, hashed and looked up in the cache under ``out_dir/runs/``,
    then what became of each: the runs to do (:attr:`todo`, one per distinct hash), their
    outcomes (:meth:`record`) and the runs table (:meth:`table`).

    Reads only, but for removing a damaged run directory that must be run again; a scenario
    the core rejects is that point's error, and a sweep whose every point is rejected raises
    before anything is written."""

    def __init__(self, points: Sequence[Point], out_dir: Path) -> None:
        self.points = list(points)
        self.out_dir = out_dir
        self.runs = out_dir / "runs"
        n = len(self.points)
        self.errors: list[str | None] = [None] * n
        self.run_dirs: list[Path | None] = [None] * n
        self.cached = [False] * n
        #: hash -> indices of the points that share it, for every run still to do.
        self.pending: dict[str, list[int]] = {}
        #: hash -> resolved scenario text, for every run still to do.
        self.texts: dict[str, str] = {}
        #: What the workers measured of each run this sweep executed.
        self.times: list[RunTime] = []
        #: hash -> the summary's scalars its worker returned, for each run this sweep executed.
        self.fresh: dict[str, dict[str, Any]] = {}
        first_error: ValueError | None = None
        for i, point in enumerate(self.points):  # validated before anything is written or run
            try:
                text = resolve_point(point)
            except ValueError as e:
                self.errors[i] = f"invalid scenario: {' '.join(str(e).split())}"
                first_error = first_error or e
                continue
            h = point_hash(text)
            self.run_dirs[i] = self.runs / h
            if is_complete(self.runs / h):
                self.cached[i] = True
                continue
            if (self.runs / h).exists():  # damaged: a truncated summary, a deleted table, ...
                shutil.rmtree(self.runs / h, ignore_errors=True)
            self.pending.setdefault(h, []).append(i)
            self.texts[h] = text
        if n and first_error is not None and all(e is not None for e in self.errors):
            raise scenario_error(
                getattr(first_error, "path", "") or "sweep",
                f"every one of the {n} points is invalid, e.g. point 0 {self.points[0].labels}: "
                f"{' '.join(str(first_error).split())}",
                "a grid whose keys and values the scenario schema accepts",
            )
        self._waiting = {h: len(ix) for h, ix in self.pending.items()}

    @property
    def todo(self) -> list[str]:
        """The hashes of the runs to do, in the order of their first point."""
        return list(self.pending)

    @property
    def finished(self) -> int:
        """Points that need no run now: from the cache, rejected, or recorded."""
        return len(self.points) - sum(self._waiting.values())

    @property
    def done(self) -> bool:
        """Every run of this sweep has been recorded."""
        return not any(self._waiting.values())

    def open(self) -> None:
        """Makes the directory a sweep result (its marker) with its ``runs/``, and removes the
        temporaries a killed sweep left there."""
        if self.out_dir.exists() and not self.out_dir.is_dir():  # force: a file stood there
            self.out_dir.unlink()
        self.runs.mkdir(parents=True, exist_ok=True)
        marker = output.read_marker(self.out_dir)
        if marker is None or marker["kind"] != "sweep":  # new, or replaced with force
            output.mark(self.out_dir, "sweep", files={})
        _clean_stale(self.runs)

    def record(self, h: str, exc: BaseException | None, rt: RunTime | None) -> int:
        """The outcome of run ``h``: ``exc`` if it failed, else what its worker measured.
        Returns how many points it finished."""
        ix = self.pending[h]
        for i in ix:
            if isinstance(exc, InvariantError):
                self.errors[i] = f"invalid results: {exc}"
            elif exc is not None:
                self.errors[i] = f"run failed: {type(exc).__name__}: {exc}"
        if exc is not None and not is_complete(self.runs / h):
            shutil.rmtree(self.runs / h, ignore_errors=True)
        if rt is not None:
            self.times.append(rt._replace(scalars=None))
            if exc is None and rt.scalars is not None:
                self.fresh[h] = rt.scalars
        self._waiting[h] = 0
        return len(ix)

    def table(self, on_error: str = "record") -> pd.DataFrame:
        """The runs table, also written to ``runs.parquet``: one row per point, in order. Every
        failure is listed on stderr; ``on_error="raise"`` then raises them."""
        rows = []
        for i, point in enumerate(self.points):
            row: dict[str, Any] = dict(point.labels)
            d = self.run_dirs[i]
            scalars = None
            if self.errors[i] is None and d is not None:
                scalars = self.fresh.get(d.name)
                if scalars is None:
                    summary = cached_summary(d)
                    scalars = flatten(summary) if summary is not None else None
            if scalars is not None and d is not None:
                for k, v in scalars.items():
                    row.setdefault(k, v)
                row["run_dir"] = str(d)
            else:
                row["run_dir"] = None
                if self.errors[i] is None:
                    self.errors[i] = "run did not finish"
            row["cached"] = self.cached[i]
            row["error"] = self.errors[i]
            rows.append(row)
        import pandas as pd

        df = pd.DataFrame(rows)
        label_cols: dict[str, None] = {}
        for point in self.points:
            label_cols.update(dict.fromkeys(point.labels))
        df.attrs["labels"] = list(label_cols)
        write_runs_table(df, self.out_dir / "runs.parquet")
        bad = [(i, e) for i, e in enumerate(self.errors) if e is not None]
        if bad:
            n = len(self.points)
            msg = "\n".join(f"  point {i} {self.points[i].labels}: {e}" for i, e in bad)
            print(f"{len(bad)} of {n} points failed:\n{msg}", file=sys.stderr)
            if on_error == "raise":
                raise RuntimeError(f"{len(bad)} of {n} points failed:\n{msg}")
        return df


#: Submits one run: ``submit(resolved_toml, run_dir)`` -> a future of its :class:`RunTime`.
Submit = Callable[[str, str], Any]


@contextlib.contextmanager
def open_pool(
    n_runs: int,
    workers: int | None,
    dask: Any = None,
    *,
    before: Callable[[], None] = lambda: None,
) -> Iterator[Submit]:
    """The workers of a sweep (or of several): local processes, ``workers`` of them (default:
    every core, at most ``n_runs``; 1 runs in this process), or the Dask cluster ``dask`` (an
    address or a ``distributed.Client``). A cluster is reached before ``before()`` writes
    anything, so a wrong address leaves no empty output directory. On an exception (Ctrl-C)
    the local workers' simulations are stopped at once; otherwise the pool is shut down once
    its runs are done."""
    submit_close = _submit_dask(dask) if n_runs and dask is not None else None
    try:
        before()
    except BaseException:
        if submit_close is not None:
            submit_close[1](True)
        raise
    if not n_runs:
        yield _no_runs
        return
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    submit, close = submit_close or _submit_local(max(1, min(n_workers, n_runs)))
    aborted = True
    try:
        yield submit
        aborted = False
    finally:
        close(aborted)


def _no_runs(text: str, run_dir: str) -> Any:
    raise AssertionError(f"no run was to be submitted, got {run_dir}")


def execute(
    tasks: Iterable[tuple[str, str, K]],
    submit: Submit,
    finished: Callable[[K, BaseException | None, RunTime | None], None],
) -> None:
    """Submits every task ``(resolved_toml, run_dir, key)`` in order and calls
    ``finished(key, exception or None, RunTime or None)`` in this thread as each run ends, in
    the order they end; returns when every one has. The pool feeds its workers from its own
    thread, so ``finished`` may take its time (write a report) while the runs go on."""
    ended: queue.SimpleQueue[Any] = queue.SimpleQueue()
    keys: dict[int, K] = {}  # by id(): a future is alive until its end is handled
    alive: list[Any] = []

    def handle(block: bool) -> None:
        while keys:
            try:
                fut = ended.get(timeout=0.5) if block else ended.get_nowait()
            except queue.Empty:
                if block:
                    continue
                return
            key = keys.pop(id(fut))
            exc = fut.exception()
            finished(key, exc, fut.result() if exc is None else None)
            block = False  # then only what has already ended

    for text, run_dir, key in tasks:
        fut = submit(text, run_dir)
        keys[id(fut)] = key
        alive.append(fut)
        # Runs in the thread that completes the future (this one for an inline run).
        fut.add_done_callback(ended.put)
        if fut.done():  # ran in this process: its end is handled before the next run starts
            handle(block=False)
    while keys:
        handle(block=True)


def write_runs_table(df: pd.DataFrame, path: Path) -> None:
    """Writes the runs table atomically (a partial file never replaces a good one)."""
    tmp = path.with_name(f".aqmlab.tmpf-{output.token()}")
    out = df.copy()
    for col in out.columns:  # mixed-type label columns (0.1 and "auto") would not convert
        if out[col].dtype == object:
            kinds = {type(v) for v in out[col] if v is not None and not _is_nan(v)}
            if len(kinds) > 1:
                out[col] = out[col].map(lambda v: v if v is None else str(v))
    try:
        out.to_parquet(tmp, index=False)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    output.record_file(path)


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def load_table(run_dir: str | Path, name: str) -> pd.DataFrame:
    """One table of a finished run: ``flows``, ``queue``, ``groups``, ``links`` or
    ``transfers`` (empty if the run's build did not write it)."""
    if name not in TABLES:
        raise KeyError(f"no table {name!r}; tables are {', '.join(TABLES)}")
    import pandas as pd

    path = Path(run_dir) / f"{name}.parquet"
    if not path.exists():
        return pd.DataFrame()
    return pd.read_parquet(path)


def load_summary(run_dir: str | Path) -> dict[str, Any]:
    """The parsed ``summary.json`` of a finished run."""
    parsed: dict[str, Any] = json.loads(Path(run_dir, "summary.json").read_text(encoding="utf-8"))
    return parsed


def load_scenario(run_dir: str | Path) -> dict[str, Any]:
    """The resolved scenario a finished run used."""
    return tomllib.loads(Path(run_dir, "scenario.toml").read_text(encoding="utf-8"))


def summarise(df: pd.DataFrame) -> str:
    """One line: how many points ran, came from the cache, failed."""
    failed = int(df["error"].notna().sum()) if "error" in df else 0
    cached = int(df["cached"].sum()) if "cached" in df else 0
    return f"{len(df)} points: {len(df) - cached - failed} run, {cached} cached, {failed} failed"


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``(fn(), wall seconds)``."""
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0


def points_from(items: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> list[Point]:
    """Points from ``(labels, scenario)`` pairs (the scenario is deep-copied)."""
    return [Point(labels=dict(lab), scenario=_scenario._deep_copy(doc)) for lab, doc in items]


__all__ = [
    "TABLES",
    "Point",
    "algorithm_label",
    "cached_summary",
    "flatten",
    "grid",
    "is_complete",
    "load_scenario",
    "load_summary",
    "load_sweep",
    "load_table",
    "point_hash",
    "points_from",
    "resolve_point",
    "run_one",
    "run_points",
    "summarise",
]
