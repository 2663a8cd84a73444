"""The Python API: ``run``, ``validate``, ``algorithms``, ``schema``.

>>> import aqmlab
>>> res = aqmlab.run("scenarios/demo/red.toml", set={"duration": "20s", "warmup": "5s"}, seed=2)
>>> res.summary["utilisation"]                       # doctest: +SKIP
>>> res.flows.to_pandas()                            # doctest: +SKIP
>>> res.write("results/red")                         # doctest: +SKIP
"""

from __future__ import annotations

import json
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
    raw = _core.run(text)
    return Results.from_core(raw, name=name)


def algorithms() -> list[dict[str, Any]]:
    """Every algorithm a scenario may name as ``bottleneck.qdisc.kind``:
    ``[{"kind", "name", "source", "params": [{"key", "default", "help"}]}]``."""
    return cast(list[dict[str, Any]], _core.algorithms())


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 7) of a scenario file, generated from the Rust schema's doc
    comments: what ``schema/aqmlab-scenario.schema.json`` holds and editors load for completion."""
    parsed: dict[str, Any] = json.loads(_core.schema_json())
    return parsed
