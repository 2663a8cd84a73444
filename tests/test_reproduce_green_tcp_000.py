"""Paper 000 (TCP-model GREEN): the quick reproduction runs, writes its report, and the paper's
claims that hold in our runs hold in its DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import aqmlab
from aqmlab import reproduce
from aqmlab.papers import REPRODUCTIONS
from aqmlab.papers import green_tcp_000 as g


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> reproduce.Outcome:
    out = tmp_path_factory.mktemp("green_tcp_000")
    return reproduce.reproduce("green_tcp_000", quick=True, out_dir=out, progress=False)


@pytest.fixture(scope="module")
def m_all(outcome: reproduce.Outcome):
    return g.metrics(outcome.runs)


@pytest.fixture(scope="module")
def m(m_all):
    """The paper's Reno senders."""
    return g.by_tcp(m_all, g.PAPER_TCP)


@pytest.fixture(scope="module")
def ms(m_all):
    """Experiment 1 again with SACK senders."""
    return g.by_tcp(m_all, g.SACK_TCP)


def test_registered_and_points_are_the_papers_grid():
    assert REPRODUCTIONS["green_tcp_000"].paper_file == "000_18b337451fd23142.txt"
    full = g.points(quick=False)
    # Reno: experiment 1, 7 N x 5 algorithms x 5 seeds, GREEN without alpha (no claim reads
    # it in experiment 1) at 3 N x 5 seeds; 2 and 3, 3 N x 7 x 5 seeds. SACK (a sensitivity
    # section): experiment 1, 3 N x 5, one seed.
    assert len(full) == 7 * 5 * 5 + 3 * 5 + 2 * 3 * 7 * 5 + 3 * 5
    no_alpha_1 = {
        p.labels["n"]
        for p in full
        if p.labels["experiment"] == 1 and p.labels["algorithm"] == "green_embedded_no_alpha"
    }
    assert no_alpha_1 == set(g.N_23)
    tcps = {(p.labels["tcp"], p.scenario["flows"][0]["tcp"]["variant"]) for p in full}
    assert tcps == {("reno", "reno"), ("sack", "sack")}
    assert {p.labels["experiment"] for p in full if p.labels["tcp"] == "sack"} == {1}
    assert len({tuple(sorted(p.labels.items())) for p in full}) == len(full)
    e3 = next(p for p in full if p.labels["experiment"] == 3 and p.labels["n"] == 250)
    assert e3.scenario["flows"][0]["count"] == e3.scenario["flows"][1]["count"] == 250
    assert e3.scenario["flows"][1]["access_rate"] == "56kbps"
    assert e3.scenario["duration"] == "180s"
    e1 = next(p for p in full if p.labels["algorithm"] == "green_idmaps")
    assert e1.scenario["bottleneck"]["qdisc"]["rtt_source"] == "idmaps"
    assert e1.scenario["bottleneck"]["buffer"] == 600
    # Every kind of point is a valid scenario.
    seen = set()
    for p in full:
        key = (p.labels["experiment"], p.labels["algorithm"])
        if key not in seen:
            seen.add(key)
            aqmlab.validate(p.scenario)


def test_rtts_span_72_to_470_ms():
    doc = reproduce.load_base("green_tcp_000", "exp1")
    lo, hi = doc["flows"][0]["access_delay"]["linear"]
    bottleneck, sink = 30, 0
    assert 2 * (int(lo.rstrip("ms")) + bottleneck + sink) == 72
    assert 2 * (int(hi.rstrip("ms")) + bottleneck + sink) == 470


def test_report_written(outcome: reproduce.Outcome):
    out = Path(outcome.out_dir)
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    for name in ("exp1_vs_n", "exp2_vs_n", "exp3_vs_n", "fig2b_sent_vs_rtt", "exp1_alpha"):
        assert (out / "figures" / f"{name}.png").is_file(), name
    doc = json.loads((out / "claims.json").read_text())
    assert len(doc) == len(g.CLAIMS) and all(c["verdict"] != "not measured" for c in doc)
    # SACK runs are a section of their own, never claims.
    assert not any("SACK" in c["quote"] for c in doc)
    assert "Sensitivity: experiment 1 with SACK senders" in (out / "report.md").read_text()


def test_green_loss_below_two_percent(m):
    e1 = m[(m["experiment"] == 1) & (m["algorithm"] == "green_embedded")]
    assert set(e1["n"]) == set(g.QUICK_N)
    assert (e1["loss_pct"] < 2.0).all(), e1[["n", "loss_pct"]]


def test_without_alpha_utilisation_falls(m):
    for e in (2, 3):
        w = m[(m["experiment"] == e) & (m["algorithm"] == "green_embedded")]
        wo = m[(m["experiment"] == e) & (m["algorithm"] == "green_embedded_no_alpha")]
        assert wo["utilisation"].mean() < w["utilisation"].mean() - 0.05, e


def test_alpha_drifts_up_at_small_n_and_less_with_sack(m, ms):
    def alpha(d, n):
        sel = d[(d["experiment"] == 1) & (d["algorithm"] == "green_embedded") & (d["n"] == n)]
        return float(sel["alpha_mean"].mean())

    assert alpha(m, 100) > 3 * alpha(m, 400) > 0
    assert 0 < alpha(ms, 100) < alpha(m, 100)


def test_overflow_share_needed_balances_the_two_steps():
    for u in (0.6, 0.9, 0.97):
        f = g.overflow_share_needed(u)
        assert 0 < f < 1
        # f windows of x0.95 and (1 - f) of x(1 + U)/(2U) leave alpha where it was.
        assert abs(f * np.log(0.95) + (1 - f) * np.log((1 + u) / (2 * u))) < 1e-12
    assert g.overflow_share_needed(0.9) > g.overflow_share_needed(0.97)


def test_timed_experiment1_is_35_runs_of_180_s_per_sender():
    for tcp in (g.PAPER_TCP, g.SACK_TCP):
        pts = g.experiment1_points(tcp)
        assert len(pts) == 35
        assert {p.labels["tcp"] for p in pts} == {tcp}
        assert {p.scenario["duration"] for p in pts} == {"180s"}
        assert {p.labels["n"] for p in pts} == set(g.FULL_N)


def test_peak_reading_and_queue_cases_on_a_hand_made_table():
    """e2-degrades reads the Jain index at the largest N against the highest at a smaller N;
    e1-others-keep-queue-low sets GREEN against the larger of FRED's and SFB's queue."""
    import pandas as pd

    rows = []
    for seed in (1, 2):
        for n, jain in ((100, 0.7), (250, 0.98 + seed / 100), (400, 0.95)):
            rows.append(
                {"experiment": 2, "algorithm": "green_embedded", "n": n, "seed": seed, "jain": jain}
            )
        for a, q in (
            ("green_embedded", 200.0),
            ("green_idmaps", 210.0),
            ("fred", 90.0),
            ("sfb", 100.0),
            ("droptail", 300.0),
        ):
            rows.append(
                {"experiment": 1, "algorithm": a, "n": 400, "seed": seed, "queue_mean": q + seed}
            )
    d = g.Data(pd.DataFrame(rows))
    assert g._peak_before(d, 2) == [pytest.approx(0.99), pytest.approx(1.0)]
    assert g._fall_from_peak(d, 2) == [pytest.approx(0.04), pytest.approx(0.05)]
    cases = {c.label: c for c in g._queue_low(d)}
    assert list(cases["exp. 1, N=400, GREEN-Embedded"].rhs) == [101.0, 102.0]
    assert list(cases["FRED vs DropTail, N=400"].rhs) == [301.0, 302.0]
