"""The ns-2 column of the paper reproductions: the recorded files (``aqmlab/papers/ns2``), the
verdicts they give, where ns-2 and aqmlab part, and the points the recorder hands to ns-2."""

from __future__ import annotations

import importlib
import json
import sys

import pytest

import aqmlab
from aqmlab import claims
from aqmlab.claims import NS2_DIR, Case, Claim
from aqmlab.ns2 import tcl
from aqmlab.papers import REPRODUCTIONS, ns2_record
from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RECORDED = sorted(NS2_DIR.glob("*.json"))


def test_every_paper_has_a_recorded_ns2_file():
    assert sorted(p.stem for p in RECORDED) == sorted(REPRODUCTIONS)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_recorded_file_names_real_claims_and_says_how_to_regenerate(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    mod = importlib.import_module(f"aqmlab.papers.{path.stem}")
    ids = {c.id for c in mod.CLAIMS}
    assert set(doc["claims"]) <= ids and set(doc["not_recorded"]) <= ids
    assert doc["command"].endswith(f"ns2_record {path.stem}") and doc["seeds_note"]
    assert doc["points"] == len(doc["runs"]) > 0
    for entry in doc["claims"].values():
        assert entry["verdict"] in claims.VERDICTS
        assert 0 < len(entry["cases"]) <= entry["of"]
    # Judged on ns-2's numbers: every recorded run has them.
    assert all(r["ns2"]["utilisation"] is not None for r in doc["runs"])


def test_recorded_verdicts_reach_the_claims_table():
    path = NS2_DIR / "green_rate_001.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    cid, entry = next(iter(doc["claims"].items()))
    mod = importlib.import_module("aqmlab.papers.green_rate_001")
    c = next(c for c in mod.CLAIMS if c.id == cid)
    stub = Claim(**{**c.__dict__, "measure": lambda d: [Case("x", [1.0, 1.1], [0.0, 0.1])]})
    r = claims.evaluate([stub], None, doc)[0]
    assert r.ns2_verdict == entry["verdict"] and r.ns2.startswith(entry["verdict"])


def _claim(cid: str, measure) -> Claim:
    return Claim(
        id=cid,
        where="Fig. 1",
        quote="A beats B.",
        metric="m",
        lhs_name="A",
        op=">",
        rhs_name="B",
        measure=measure,
    )


def test_agreement_sentences_follow_the_verdicts():
    wins = _claim("a", lambda d: [Case("x", [2.0, 2.1], [1.0, 1.0])])
    loses = _claim("b", lambda d: [Case("x", [0.0, 0.1], [1.0, 1.0])])
    refs = {
        "claims": {
            "a": {"verdict": "fails", "of": 1, "cases": {"x": [0.5, 1.0, 0.1]}},
            "b": {"verdict": "holds", "of": 2, "cases": {"x": [2.0, 1.0, 0.1]}},
        }
    }
    res = claims.evaluate([wins, loses], None, refs)
    text = claims.ns2_agreement(res)
    assert "aqmlab agrees with the paper, ns-2 does not" in text[0]
    assert "ns-2 agrees with the paper" in text[1] and "aqmlab does not (fails)" in text[1]
    assert "1 of 2 cases have both sides in ns-2" in res[1].ns2
    same = claims.evaluate([wins], None, {"claims": {"a": {"verdict": "holds", "cases": {}}}})
    assert claims.ns2_agreement(same) == []


def test_agreement_on_a_subset_of_cases_is_not_called_a_disagreement():
    # aqmlab: case x holds, case y (an algorithm ns-2 lacks) fails; ns-2 ran x only and holds.
    two = _claim(
        "c",
        lambda d: [Case("x", [2.0, 2.1], [1.0, 1.0]), Case("y", [0.0, 0.1], [1.0, 1.0])],
    )
    refs = {"claims": {"c": {"verdict": "holds", "of": 2, "cases": {"x": [2.0, 1.0, 0.1]}}}}
    (text,) = claims.ns2_agreement(claims.evaluate([two], None, refs))
    assert "on the cases ns-2 runs aqmlab gives ns-2's verdict (holds)" in text
    assert "ns-2 agrees with the paper" not in text
    # ... but where aqmlab parts from ns-2 on the very cases ns-2 ran, it says so.
    refs["claims"]["c"]["cases"] = {"y": [2.0, 1.0, 0.1]}
    (text,) = claims.ns2_agreement(claims.evaluate([two], None, refs))
    assert "ns-2 agrees with the paper" in text


def test_recorder_gives_ns2_the_baselines_with_listed_session_durations():
    mod = importlib.import_module("aqmlab.papers.green_rate_001")
    p = mod.point(1, "red", 100, seed=2)
    q = ns2_record.for_ns2(p)
    listed = q.scenario["flows"][0]["duration"]["list"]
    other_seed = ns2_record.for_ns2(mod.point(1, "red", 100, seed=1))
    assert len(listed) == 100 and listed != other_seed.scenario["flows"][0]["duration"]["list"]
    secs = [float(x.removesuffix("ms")) / 1e3 for x in listed]
    assert min(secs) >= 3.0 and max(secs) <= 23.0
    # The paper's own algorithm is not handed to ns-2 and keeps its drawn durations.
    g = ns2_record.for_ns2(mod.point(1, "green_rate", 100, seed=2))
    assert "uniform" in g.scenario["flows"][0]["duration"]


def test_listed_durations_stop_each_flow_in_the_script():
    doc = tomllib.loads(
        aqmlab.validate(
            ROOT / "scenarios/demo/droptail.toml",
            set=[
                "duration=10s",
                "warmup=1s",
                "flows.0.count=2",
                'flows.0.start={ list = ["0s", "1s"] }',
                'flows.0.duration={ list = ["2s", "30s"] }',
            ],
        )
    )
    flows = [tcl.FlowRun(0, 0, 40_000_000, 0.0), tcl.FlowRun(1, 0, 60_000_000, 1.0)]
    text = tcl.translate(doc, flows, seed=1).text
    # The stop ends new data only: what was sent may still be resent (curseq_ = maxseq_ + 1).
    assert "$ns at 2.000000000 {$agent(0) advance [expr {[$agent(0) set maxseq_] + 1}]}" in text
    # Flow 1 would stop after the run ends: no stop line.
    assert "$agent(1) advance" not in text
    doc["flows"][0]["duration"] = {"uniform": ["1s", "2s"]}
    with pytest.raises(tcl.Unsupported):
        tcl.translate(doc, flows, seed=1)


def test_reclaiming_keeps_the_recording_dates():
    src = "ns-2.35 (Debian ns2 2.35+dfsg-5), aqmlab crosscheck, 2026-11-23, aqmlab side 2026-11-26"
    assert ns2_record.reclaimed_source(src, "ns-2.35 (Debian ns2 2.35+dfsg-5)") == src
    assert (
        ns2_record.reclaimed_source("ns-2.35, aqmlab crosscheck, 2026-11-23", "ns-2.35 (x)")
        == "ns-2.35 (x), aqmlab crosscheck, 2026-11-23"
    )


def test_a_measure_ns2_lacks_is_named_in_words() -> None:
    """A claim whose measure needs a quantity or points ns-2's recording lacks says so in words,
    not as a Python exception name in the report's ns-2 column."""
    from aqmlab.papers.ns2_record import _missing_measure

    assert (
        _missing_measure(KeyError("drops.early"))
        == "ns-2's recorded runs do not carry 'drops.early'"
    )
    points = _missing_measure(KeyError("no runs: figure 3, {'n': 8}"))
    assert points.startswith("these points were not recorded in ns-2") and "KeyError" not in points
    assert _missing_measure(ValueError("empty")) == "ValueError: empty"
