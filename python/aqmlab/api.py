"""The Python API: ``run``, ``validate``, ``algorithms``, ``schema``.

>>> import aqmlab
>>> res = aqmlab.run(aqmlab.example("red"), set={"duration": "20s", "warmup": "5s"}, seed=2)
>>> 0 < res.summary["utilisation"] <= 1
True
>>> len(res.flows.to_pandas())
30
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, cast

from aqmlab import _core
from aqmlab import scenario as _scenario
from aqmlab.diagnose import NoTrafficWarning, no_traffic
from aqmlab.results import Results
from aqmlab.scenario import Overrides, ScenarioLike


def prepare(
    scenario: ScenarioLike, *, set: Overrides = None, seed: int | None = None
) -> tuple[str, str]:
    """Loads, overrides and serialises a scenario: returns (TOML text for the core, name)."""
    doc, name = _scenario.resolve(scenario, overrides=set, seed=seed)
    return _scenario.dumps(doc), name


def validate(scenario: ScenarioLike, *, set: Overrides = None, seed: int | None = None) -> str:
    """Validates a scenario (in Rust) and returns it resolved: TOML with every default written.

    Raises :class:`aqmlab.ScenarioError` (a ``ValueError``) naming the bad key in ``.path``.
    """
    text, _ = prepare(scenario, set=set, seed=seed)
    return _core.validate(text)


def run(scenario: ScenarioLike, *, set: Overrides = None, seed: int | None = None) -> Results:
    """Runs one simulation.

    ``scenario`` is a path to a ``.toml`` file, TOML text, or a parsed document (dict).
    ``set`` overrides keys by dotted path with list indices: ``["flows.0.count=64"]`` (values
    read as TOML literals, else as strings) or ``{"bottleneck.qdisc.max_p": 0.05}``.
    ``seed`` replaces the scenario's seed. The GIL is released while the simulation runs, so
    several runs may go side by side in threads. A run that delivered nothing in its window
    (a link too slow for one packet, a qdisc that drops everything, flows that start after
    the run) issues a :class:`aqmlab.diagnose.NoTrafficWarning` saying which.
    """
    text, name = prepare(scenario, set=set, seed=seed)
    raw = run_core(text)
    res = Results.from_core(raw, name=name)
    why = no_traffic(res.summary)
    if why is not None:
        warnings.warn(why, NoTrafficWarning, stacklevel=2)
    return res


def run_core(
    text: str,
    on_progress: Callable[[int], None] | None = None,
    control: _core.RunControl | None = None,
) -> Any:
    """``_core.run(text)`` that stops its CPU work when interrupted.

    From the main thread, the simulation runs in a helper thread and this thread waits in short
    slices, so Ctrl-C and SIGTERM (see :func:`aqmlab.output.terminate_gracefully`) are noticed at
    once; the simulation is then cancelled and joined before the interrupt propagates, so no
    core stays busy. From any other thread it runs there, stopped by ``control.cancel()`` from
    whoever handles the interrupt (``_core.Cancelled`` is then raised). ``on_progress`` gets
    the simulated time reached (ns), about every 0.1 s, from the main thread only. Nothing has
    been written yet, so an interrupted run leaves nothing behind."""
    control = control if control is not None else _core.RunControl()
    if threading.current_thread() is not threading.main_thread():
        with _in_flight_lock:
            _in_flight.add(control)
        try:
            return _core.run(text, control)
        finally:
            with _in_flight_lock:
                _in_flight.discard(control)
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["raw"] = _core.run(text, control)
        except BaseException as e:  # handed to the caller's thread
            box["err"] = e
        finally:
            done.set()

    worker = threading.Thread(target=work, name="aqmlab-run", daemon=True)
    worker.start()
    try:
        # Polled with time.sleep, not Thread.join or Event.wait: a signal landing inside a
        # Condition's wait can leave its lock released twice (CPython: "release unlocked lock",
        # a RuntimeError that hides the KeyboardInterrupt); a sleep is interrupted cleanly, and
        # Event.is_set reads a flag without taking that lock.
        slices = 0
        while not done.is_set():
            time.sleep(0.02)
            slices += 1
            if on_progress is not None and slices % 5 == 0:
                on_progress(control.sim_time_ns)
    except BaseException:
        control.cancel()
        while not done.is_set():  # within a few thousand events
            time.sleep(0.005)
        raise
    if "err" in box:
        raise box["err"]
    return box["raw"]


#: The simulations running in threads other than the main one (``run_core``), so that whoever
#: handles an interrupt in the main thread can stop them: :func:`cancel_in_flight`.
_in_flight: set[_core.RunControl] = set()
_in_flight_lock = threading.Lock()


def cancel_in_flight() -> None:
    """Cancels every simulation running in a thread other than the main one (a crosscheck's or
    a thread pool's runs): each stops within a few thousand events and raises
    ``_core.Cancelled`` in its thread."""
    with _in_flight_lock:
        for control in _in_flight:
            control.cancel()


def run_many(texts: list[str], workers: int) -> list[Any]:
    """``_core.run`` of every text, ``workers`` at a time in threads, in order. An interrupt
    (or any error) cancels the simulations in flight and drops those not started, so the
    caller gets control back at once instead of after the runs."""
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="aqmlab-run")
    controls = [_core.RunControl() for _ in texts]
    futures = [pool.submit(_core.run, t, c) for t, c in zip(texts, controls, strict=True)]
    try:
        pending = set(futures)
        while pending:
            # Short slices: the main thread must get back to the interpreter for signals.
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
            for f in done:
                if f.exception() is not None:
                    raise f.exception()  # type: ignore[misc]
        return [f.result() for f in futures]
    except BaseException:
        for f, c in zip(futures, controls, strict=True):
            f.cancel()
            c.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def algorithms() -> list[dict[str, Any]]:
    """Every algorithm a scenario may name as ``bottleneck.qdisc.kind``:
    ``[{"kind", "name", "source", "params": [{"key", "default", "help"}]}]``."""
    return cast(list[dict[str, Any]], _core.algorithms())


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 7) of a scenario file, generated from the Rust schema's doc
    comments: what ``schema/aqmlab-scenario.schema.json`` holds and editors load for completion."""
    parsed: dict[str, Any] = json.loads(_core.schema_json())
    return parsed
