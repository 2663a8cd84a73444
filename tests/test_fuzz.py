"""Property tests over the schema and over ``replay`` for every algorithm (a few seconds; the
long campaign is ``make fuzz``, tests/fuzz/campaign.py)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent / "fuzz"))

import cases

from aqmlab import scenario as sc

BASES = [sc.load(p) for p in cases.scenario_files()]
FAST = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _no_failures(tally: cases.Tally) -> None:
    assert not tally.failures, "\n".join(tally.failures[:5])


@FAST
@given(base=st.sampled_from(range(len(BASES))), seed=st.integers(0, 2**32 - 1))
def test_mutated_scenarios_are_accepted_cleanly_or_rejected_with_a_path(base: int, seed: int):
    tally = cases.Tally()
    resolved = cases.check_validate(cases.mutate(BASES[base], random.Random(seed)), tally, "case")
    _no_failures(tally)
    if resolved is not None and seed % 8 == 0:
        short = cases.runnable(resolved)
        if short is not None:
            cases.check_run(short, tally, "case run")
            _no_failures(tally)


@pytest.mark.parametrize("kind", cases.kinds())
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 400), scripted=st.booleans())
def test_replay_keeps_the_queue_consistent(kind: str, seed: int, n: int, scripted: bool):
    rng = random.Random(seed)
    events, _ = cases.random_events(rng, n)
    uniforms = [rng.random() for _ in range(3 * n)] if scripted else None
    tally = cases.Tally()
    cases.check_replay(kind, events, tally, kind, uniforms=uniforms)
    _no_failures(tally)


@pytest.mark.parametrize("kind", cases.kinds())
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_hostile_replay_arguments_are_scenario_errors(kind: str, seed: int):
    tally = cases.Tally()
    cases.check_hostile_replay(kind, random.Random(seed), tally)
    _no_failures(tally)
