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
from typing import Any, cast

from aqmlab import _core
from aqmlab import scenario as _scenario
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
    several runs may go side by side in threads.
    """
    text, name = prepare(scenario, set=set, seed=seed)
    raw = _run_interruptibly(text)
    return Results.from_core(raw, name=name)


def _run_interruptibly(text: str) -> Any:
    """``_core.run(text)``; from the main thread, in a helper thread so that Ctrl-C and SIGTERM
    (see :func:`aqmlab.output.terminate_gracefully`) interrupt the wait at once instead of after
    the whole simulation (the core holds no Python state a signal handler could reach). Nothing
    has been written yet, so an interrupted run leaves nothing behind."""
    if threading.current_thread() is not threading.main_thread():
        return _core.run(text)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["raw"] = _core.run(text)
        except BaseException as e:  # handed to the caller's thread
            box["err"] = e

    worker = threading.Thread(target=work, name="aqmlab-run", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
    if "err" in box:
        raise box["err"]
    return box["raw"]


def algorithms() -> list[dict[str, Any]]:
    """Every algorithm a scenario may name as ``bottleneck.qdisc.kind``:
    ``[{"kind", "name", "source", "params": [{"key", "default", "help"}]}]``."""
    return cast(list[dict[str, Any]], _core.algorithms())


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 7) of a scenario file, generated from the Rust schema's doc
    comments: what ``schema/aqmlab-scenario.schema.json`` holds and editors load for completion."""
    parsed: dict[str, Any] = json.loads(_core.schema_json())
    return parsed
