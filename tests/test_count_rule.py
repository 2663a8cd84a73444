"""RED's early-drop count after a forced drop, in the papers that ran ns-2 (001, 002, 003):
ns-2's rule (``forced_resets_count = true``) in every queue of theirs that reads the key, ns-3's
rule as the other reading of a set-up choice whose runs differ from a default run by that key
alone; the rule reaches the core from a paper's scenario; the other reading is never recorded
as an ns-2 baseline.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

import aqmlab
from aqmlab.papers import REPRODUCTIONS, count_rule, green_rate_001, nlred_003, ns2_record
from aqmlab.reproduce import load_base

PAPERS = ("chablis_002", "green_rate_001", "nlred_003", "sfred_003")
#: The kinds whose core reads the key (red.rs's shared parameters).
READS_KEY = ("red", "nlred", "self_config_red", "ared")


def _kept(labels: dict[str, Any]) -> bool:
    return count_rule.KEPT in json.dumps(labels) or labels.get("settings") == "ns3count"


def _without_key(p: Any) -> str:
    sc = json.loads(json.dumps(p.scenario))
    sc["bottleneck"]["qdisc"].pop(count_rule.KEY, None)
    return json.dumps(sc, sort_keys=True)


@pytest.mark.parametrize("pid", PAPERS)
def test_ns2_rule_by_default_and_the_other_reading_differs_by_the_key_alone(pid: str) -> None:
    pts = [
        p
        for p in REPRODUCTIONS[pid].points(False)
        if p.scenario["bottleneck"]["qdisc"]["kind"] in READS_KEY
    ]
    kept = [p for p in pts if _kept(p.labels)]
    default = [p for p in pts if not _kept(p.labels)]
    assert kept and default
    assert all(p.scenario["bottleneck"]["qdisc"].get(count_rule.KEY) is True for p in default)
    assert all(count_rule.KEY not in p.scenario["bottleneck"]["qdisc"] for p in kept)
    # Every run of the other reading has its default twin: the same scenario but for the key.
    twins = {_without_key(p) for p in default}
    assert all(_without_key(p) in twins for p in kept)


@pytest.mark.parametrize("pid", ("sfred_003", "nlred_003"))
def test_scenario_files_take_ns2_rule(pid: str) -> None:
    names = {"sfred_003": ("ftp2", "web", "cbr"), "nlred_003": ("gred", "nlred")}[pid]
    for name in names:
        assert load_base(pid, name)["bottleneck"]["qdisc"][count_rule.KEY] is True


def test_the_rule_reaches_the_core_from_a_paper_scenario() -> None:
    """Two FTP and two CBR flows through SFRED's RED (50 packets, max_th 15) for 20 s: forced
    drops happen, and restarting the count after them changes the early drops."""
    sc = load_base("sfred_003", "cbr")
    sc = dict(sc, duration="20s", warmup="5s")
    ns2 = aqmlab.run(sc)
    ns3 = aqmlab.run(sc, set={f"bottleneck.qdisc.{count_rule.KEY}": False})
    assert ns2.summary["drops"]["forced"] > 0
    assert ns2.summary["drops"]["early"] != ns3.summary["drops"]["early"]


def test_other_reading_is_not_recorded_as_an_ns2_baseline() -> None:
    sel = ns2_record.SELECT
    assert not sel["nlred_003"]({"figure": "13-16" + nlred_003.COUNT_KEPT})
    assert sel["nlred_003"]({"figure": "19-20"})
    assert not sel["sfred_003"]({"experiment": "ftp2", "reading": count_rule.KEPT})
    assert sel["sfred_003"]({"experiment": "ftp2", "reading": "-"})
    assert not sel["green_rate_001"]({"variant": count_rule.KEPT})
    assert not sel["chablis_002"]({"settings": "ns3count", "experiment": 1})


def test_nlred_other_reading_swaps_each_run_for_its_twin_only() -> None:
    k = nlred_003.COUNT_KEPT
    cols = ["figure", "algorithm", "n", "max_p", "seed", "utilisation"]
    runs = pd.DataFrame(
        [
            ("13-16", "NLRED", 20, 0.05, 1, 0.9),
            ("13-16", "NLRED", 20, 0.02, 1, 0.9),
            ("13-16", "GRED", 20, 0.05, 1, 0.9),
            ("19-20", "REM", 20, 0.1, 1, 0.9),
            ("11", "DropTail", 20, float("nan"), 1, 0.9),
            ("13-16" + k, "NLRED", 20, 0.05, 1, 0.5),
        ],
        columns=cols,
    )
    out = nlred_003.count_kept(runs)
    got = sorted(map(str, out[cols].itertuples(index=False, name=None)))
    assert got == sorted(
        map(
            str,
            [
                ("13-16", "NLRED", 20, 0.05, 1, 0.5),
                ("13-16", "NLRED", 20, 0.02, 1, 0.9),
                ("13-16", "GRED", 20, 0.05, 1, 0.9),
                ("19-20", "REM", 20, 0.1, 1, 0.9),
                ("11", "DropTail", 20, float("nan"), 1, 0.9),
            ],
        )
    )


def test_green_rate_other_reading_swaps_red_in_the_trials_it_reran() -> None:
    m = pd.DataFrame(
        [
            (1, "red", "paper", 1.0),
            (3, "red", "paper", 1.0),
            (1, "rem", "paper", 1.0),
            (1, "red", count_rule.KEPT, 2.0),
        ],
        columns=["trial", "algorithm", "variant", "loss_pct"],
    )
    out = green_rate_001.count_kept_runs(m)
    assert set(out["variant"]) == {"paper"}
    got = sorted(zip(out["trial"], out["algorithm"], out["loss_pct"], strict=True))
    assert got == [(1, "red", 2.0), (1, "rem", 1.0), (3, "red", 1.0)]
