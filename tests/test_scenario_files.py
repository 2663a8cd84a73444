"""Every scenario file shipped in scenarios/ validates, and runs (shortened)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import aqmlab
from aqmlab import scenario as sc
from conftest import ROOT, kinds

# os.walk with followlinks: scenarios/papers is a link to the package's copy (aqmlab/data/papers),
# which pathlib's rglob does not enter before Python 3.13.
FILES = sorted(
    Path(d, f)
    for d, _, files in os.walk(ROOT / "scenarios", followlinks=True)
    for f in files
    if f.endswith(".toml")
)


def _assert_built(path: Path) -> None:
    missing = sc.qdisc_kinds(sc.load(path)) - kinds()
    assert not missing, f"algorithms {sorted(missing)} of {path.name} are not in this build"


def test_there_are_scenarios():
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_scenario_validates(path: Path):
    _assert_built(path)
    resolved = aqmlab.validate(path)
    assert aqmlab.validate(resolved) == resolved


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_scenario_runs_shortened(path: Path):
    _assert_built(path)
    res = aqmlab.run(path, set=["duration=3s", "warmup=1s"])
    assert 0.0 < res.summary["utilisation"] <= 1.0
    expected_flows = sum(g.get("count", 1) for g in sc.load(path)["flows"])
    assert res.flows.num_rows == expected_flows
