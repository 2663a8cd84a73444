"""Several sweeps through one pool of workers, each finished as soon as its own runs are.

What ``aqmlab reproduce all`` runs: one :class:`Job` per paper, a sweep (its points and its
output directory, as for :func:`aqmlab.sweep.run_points`) and a step that runs in this process
once every point of that sweep has finished (the paper's report: claims, figures, pages).
:func:`run_jobs` sends every job's runs to one pool, so the workers start once and stay busy
from the first run to the last:

- jobs are submitted one after the other, so that each finishes as early as it can and its step
  runs here while the workers go on with the next jobs' runs. The job with the largest expected
  cost goes first, so that its runs never make the tail; then the others from the smallest to
  the largest, so that the last job, the second largest, runs long enough to cover the steps of
  those before it and only its own step is left after the last run (all jobs largest first
  would end on the smallest, whose few runs cover nothing: see docs/performance.md);
- within a job, runs go in decreasing expected cost, so that its last runs are short ones and
  the workers pass to the next job together rather than one waiting on a long run.

A run's expected cost is its simulated time times its bottleneck's rate, the bits the
bottleneck can carry: the simulator's work grows with the packets it moves. Over the six
paper reproductions at full length the CPU per unit of this estimate is within a factor of
two of one value from paper to paper, while the estimates span two orders of magnitude; it
decides only the order.

Everything else is :func:`~aqmlab.sweep.run_points`': every destination is checked before
anything runs, each job's directory is locked from before its points are looked up until its
step has run (another process writing it gets one line), runs are cached by hash under
``OUT/runs/`` (an interrupted command resumes with what had not finished), and a job with a
failed point writes its ``runs.parquet`` with the errors, skips its step and makes
:func:`run_jobs` raise once the other jobs are done.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from aqmlab import output
from aqmlab.scenario import scenario_error
from aqmlab.sweep import (
    Point,
    Progress,
    RunTime,
    SweepPlan,
    check_out,
    check_points,
    check_workers,
    execute,
    open_pool,
)

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")


@dataclass(frozen=True)
class JobTimes:
    """What a job's points cost: CPU of its runs in the workers, and when they ran (seconds
    since the epoch, the workers' clocks), and this process's CPU to look its points up."""

    points: int
    cached: int  # points found finished in the cache
    runs: int  # runs executed (points that share a scenario share a run)
    run_cpu_s: float
    first_start: float | None  # None when nothing ran
    last_end: float | None
    plan_cpu_s: float

    @property
    def runs_wall_s(self) -> float:
        """Wall seconds from the start of the job's first run to the end of its last."""
        if self.first_start is None or self.last_end is None:
            return 0.0
        return self.last_end - self.first_start


@dataclass(frozen=True)
class Job(Generic[T]):
    """A sweep and what to do with its runs table: ``finish(runs, times)`` runs in this process
    once every point has finished (with no failure), and its value is the job's result.
    ``step`` names it in the progress display."""

    name: str
    points: list[Point]
    out_dir: Path
    finish: Callable[[pd.DataFrame, JobTimes], T]
    step: str = "finishing"


_DURATION = re.compile(r"([0-9.eE+-]+)(ns|us|ms|s)")
_RATE = re.compile(r"([0-9.eE+-]+)([kMG]?)bps")
_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}


def expected_cost(resolved_toml: str) -> float:
    """A run's expected cost, in bits its bottleneck can carry in its simulated time, from the
    resolved scenario (the core writes both with units: ``duration = "180000ms"`` before the
    first table, ``rate = "155Mbps"`` in ``[bottleneck]``). Read from the lines rather than
    parsed: thousands of points, and only the order matters; without them a run costs 1."""
    text = "\n" + resolved_toml
    d = _DURATION.fullmatch(_string(text.split("\n[", 1)[0], "duration"))
    at = text.find("\n[bottleneck]\n")
    bottleneck = text[at + 14 :].split("\n[", 1)[0] if at >= 0 else ""
    r = _RATE.fullmatch(_string(bottleneck, "rate"))
    if d is None or r is None:
        return 1.0
    try:
        return max(float(d[1]) * _SCALE[d[2]] * float(r[1]) * _SCALE[r[2]], 1.0)
    except ValueError:  # "1.2.3ms"
        return 1.0


def _string(table: str, key: str) -> str:
    """The string value of ``key = "..."`` among a TOML table's lines, or ""."""
    m = re.search(rf'^{key} = "([^"]*)"$', table, re.MULTILINE)
    return m[1] if m else ""


def submission_order(plans: Sequence[SweepPlan]) -> list[tuple[int, str]]:
    """``(job, run hash)`` in the order to submit them: the job of the largest total expected
    cost first, then the others by increasing total; each job's runs by decreasing expected
    cost (ties: the order of the job's points)."""
    costs = [{h: expected_cost(p.texts[h]) for h in p.todo} for p in plans]
    ascending = sorted(range(len(plans)), key=lambda k: sum(costs[k].values()))
    jobs = ascending[-1:] + ascending[:-1]
    out: list[tuple[int, str]] = []
    for k in jobs:
        out += [(k, h) for h in sorted(plans[k].todo, key=lambda h: -costs[k][h])]
    return out


def run_jobs(
    jobs: Sequence[Job[T]],
    *,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
    force: bool = False,
) -> list[T]:
    """Runs every job's points through one pool and returns each job's ``finish`` value, in
    the jobs' order. ``workers``/``dask``: as :func:`aqmlab.sweep.open_pool` (local processes,
    or a Dask scheduler address or client); ``force``: as :func:`aqmlab.sweep.run_points`.

    Raises after every job has finished or failed when one failed (the failed points are
    listed on stderr and in its ``runs.parquet``): that job's exception if it is the only one,
    else a ``RuntimeError`` naming each."""
    check_workers(workers)
    for job in jobs:
        check_points(job.points)
    outs = [check_out(job.out_dir, force) for job in jobs]  # all of them before anything runs
    if len(set(outs)) != len(outs):
        raise scenario_error("--out", ", ".join(map(str, outs)), "one directory per sweep")
    results: list[Any] = [None] * len(jobs)
    failures: list[tuple[int, Exception]] = []
    with contextlib.ExitStack() as all_locks:
        locks = [_lock(all_locks, out) for out in outs]
        plans, plan_cpu = [], []
        for job, out in zip(jobs, outs, strict=True):
            cpu0 = time.process_time()
            plans.append(SweepPlan(job.points, out))
            plan_cpu.append(time.process_time() - cpu0)
        bar = Progress(
            progress,
            [(j.name, len(p.points), p.finished) for j, p in zip(jobs, plans, strict=True)],
        )

        def complete(k: int) -> None:
            """Job ``k``'s runs are all done: its table, then its step, here and now."""
            bar.note(k, f"{jobs[k].step}...")
            try:
                runs = plans[k].table(on_error="raise")
                results[k] = jobs[k].finish(runs, _times(plans[k], plan_cpu[k]))
                bar.note(k, "done")
            except Exception as e:  # the other jobs go on; raised at the end
                failures.append((k, e))
                bar.note(k, "failed")
            finally:
                locks[k].close()

        def finished(key: tuple[int, str], exc: BaseException | None, rt: RunTime | None) -> None:
            k, h = key
            for _ in range(plans[k].record(h, exc, rt)):
                bar.advance(k, note="failed" if exc is not None else "")
            if plans[k].done:
                complete(k)

        def tasks() -> Iterator[tuple[str, str, tuple[int, str]]]:
            for k, h in submission_order(plans):
                yield plans[k].texts[h], str(plans[k].runs / h), (k, h)
            # Every run is submitted: jobs with none to do (all cached) finish now, while the
            # workers run the others'.
            for k, plan in enumerate(plans):
                if not plan.todo:
                    complete(k)

        def open_all() -> None:
            for plan in plans:
                plan.open()

        n_runs = sum(len(p.todo) for p in plans)
        try:
            with open_pool(n_runs, workers, dask, before=open_all) as submit:
                execute(tasks(), submit, finished)
        finally:
            bar.close()
    if len(failures) == 1:
        raise failures[0][1]
    if failures:
        lines = [f"{jobs[k].name}: {e}" for k, e in sorted(failures, key=lambda x: x[0])]
        raise RuntimeError(f"{len(failures)} of {len(jobs)} failed:\n" + "\n".join(lines))
    return results


def _lock(stack: contextlib.ExitStack, out: Path) -> contextlib.ExitStack:
    """Takes ``out``'s lock in a stack of its own (closed when its job is done), which
    ``stack`` closes if the command ends first."""
    own = contextlib.ExitStack()
    stack.enter_context(own)
    own.enter_context(output.dest_lock(out))
    return own


def _times(plan: SweepPlan, plan_cpu_s: float) -> JobTimes:
    t = plan.times
    return JobTimes(
        points=len(plan.points),
        cached=sum(plan.cached),
        runs=len(t),
        run_cpu_s=sum(x.cpu_s for x in t),
        first_start=min((x.start for x in t), default=None),
        last_end=max((x.end for x in t), default=None),
        plan_cpu_s=plan_cpu_s,
    )


__all__ = ["Job", "JobTimes", "expected_cost", "run_jobs", "submission_order"]
