"""The scenario JSON Schema (generated from the Rust structs' doc comments): the committed copy
is what ``aqmlab schema`` prints, every shipped scenario satisfies it, and it rejects what the
core rejects, so an editor that loads it agrees with ``aqmlab validate``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import aqmlab
from aqmlab import scenario as sc
from conftest import ROOT, TINY, kinds, run_cli

SCHEMA_FILE = ROOT / "schema" / "aqmlab-scenario.schema.json"
SCENARIOS = sorted([*(ROOT / "scenarios").rglob("*.toml"), *(ROOT / "bench").rglob("*.toml")])


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_cli_prints_the_committed_schema_and_the_api_returns_it():
    r = run_cli("schema")
    assert r.code == 0, r.stderr
    assert r.stdout == SCHEMA_FILE.read_text(encoding="utf-8")
    assert aqmlab.schema() == json.loads(r.stdout)


def test_cli_markdown_has_every_algorithm_and_the_docs_hold_the_same_blocks():
    r = run_cli("schema", "--markdown")
    assert r.code == 0, r.stderr
    for kind in kinds():
        assert f"### `{kind}`:" in r.stdout
    docs = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    for block in r.stdout.split("\n\n<!-- BEGIN")[1:]:
        assert "<!-- BEGIN" + block.rstrip("\n") in docs


def test_there_are_scenarios_to_check():
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_scenario_file_and_its_resolved_form_satisfy_the_schema(
    path: Path, validator: jsonschema.Draft7Validator
):
    doc = sc.load(path)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors
    resolved = sc.loads(aqmlab.validate(path))  # every default written out
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(resolved)]
    assert not errors, errors


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit of a scenario document: the key at dotted ``path`` (list indices allowed)."""

    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[last] = value

    return edit


BAD: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown top-level key": _set("colour", 1),
    "unknown qdisc parameter": _set("bottleneck.qdisc", {"kind": "red", "colour": 1}),
    "another kind's parameter": _set("bottleneck.qdisc", {"kind": "red", "target": "5ms"}),
    "unknown kind": _set("bottleneck.qdisc", {"kind": "magic"}),
    "duration without a unit": _set("bottleneck.qdisc", {"kind": "codel", "target": "5"}),
    "buffer of 0 packets": _set("bottleneck.buffer", 0),
    "spread with two keys": _set(
        "flows.0.start", {"linear": ["0s", "1s"], "uniform": ["0s", "1s"]}
    ),
    "unknown tcp key": _set("flows.0.tcp", {"variant": "cubic"}),
    "count of 0": _set("flows.0.count", 0),
}


def _bad_scenario(case: str) -> dict[str, Any]:
    doc = sc.loads(TINY)
    BAD[case](doc)
    return doc


@pytest.mark.parametrize("case", sorted(BAD))
def test_schema_rejects_what_the_core_rejects(case: str, validator: jsonschema.Draft7Validator):
    doc = _bad_scenario(case)
    with pytest.raises(aqmlab.ScenarioError):
        aqmlab.validate(doc)
    assert list(validator.iter_errors(doc)), f"the schema accepts: {case}"


DURATIONS = ["5ms", "1.5s", "2min", " 5 ms ", "1e3us", ".5s", "5.ms", "10sec", "200ns", "3µs"]
NOT_DURATIONS = ["5", "ms", "-5ms", "5 furlongs", "5mS", "five ms", "5ms5", "1,5s", ""]
RATES = ["10Mbps", "56kbps", "1Gbps", "1000bps", "1.5Mb/s", "2 Kbps"]
NOT_RATES = ["10", "10MBps", "10 mbps", "-1Mbps", "Mbps"]


@pytest.mark.parametrize(
    ("key", "value", "ok"),
    [("delay", v, True) for v in DURATIONS]
    + [("delay", v, False) for v in NOT_DURATIONS]
    + [("rate", v, True) for v in RATES]
    + [("rate", v, False) for v in NOT_RATES],
)
def test_unit_patterns_accept_what_the_parser_accepts(
    key: str, value: str, ok: bool, validator: jsonschema.Draft7Validator
):
    doc = sc.loads(TINY)
    doc["sink"] = {key: value}
    schema_ok = not list(validator.iter_errors(doc))
    try:
        aqmlab.validate(doc)
        core_ok = True
    except aqmlab.ScenarioError:
        core_ok = False
    assert (schema_ok, core_ok) == (ok, ok)
