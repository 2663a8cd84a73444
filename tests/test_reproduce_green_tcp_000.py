"""Paper 000 (TCP-model GREEN): the quick reproduction runs, writes its report, and the paper's
claims that hold in our runs hold in its DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
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
    # it in experiment 1) at 3 N x 5 seeds; 2 and 3, 3 N x 7 x 5 seeds. The set-up choices'
    # other readings, 5 seeds each: SACK, 5 algorithms at N = 100; FRED's thresholds, SFB's
    # steps and SFB's bins, one algorithm at N = 100, 200 and 400 of experiment 1 and every N of
    # experiments 2 and 3; the IDMaps draw, N = 400; the dial-up buffer, 2 algorithms at 400;
    # the RTT of unlabelled packets, 2 algorithms at 3 N of experiment 2; the bitmap flow
    # counter, GREEN-Embedded at N = 100 and 400.
    setup = 5 * (5 + 3 * (3 + 3 + 3) + 1 + 2 + 6 + 2)
    # CHOKe and RED (§4's sentence): experiment 1, N = 100 and 400, 5 seeds.
    related = 2 * 2 * 5
    assert len(full) == 7 * 5 * 5 + 3 * 5 + 2 * 3 * 7 * 5 + setup + related
    assert sum(p.labels["setup"] != g.PAPER_SETUP for p in full) == setup == 215
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
    # SACK runs are a set-up choice, never counted claims.
    assert not any("SACK" in c["quote"] for c in doc)
    md = (out / "report.md").read_text()
    assert "Sensitivity: experiment 1 with SACK senders" in md
    # Every set-up choice: a line under the claims table and a section with both verdicts.
    for c in g.SETUP_CHOICES:
        assert f"**Set-up choice '{c.choice.name}':** default '{c.choice.default}'" in md
        section = md.split(f"## Set-up choice run both ways: {c.choice.name}")[1].split("\n## ")[0]
        assert f"| {c.choice.default} (default) | {c.choice.other} |" in section, c.setup
        assert "Why the default: " + c.choice.why[:40] in section


def test_setup_choices_are_declared_and_change_only_their_setting():
    """Each set-up choice names its two readings, why the default, the claims it can decide
    (real claim ids); its other reading's points differ from the paper's only in that setting."""
    ids = {c.id for c in g.CLAIMS}
    assert len({c.setup for c in g.SETUP_CHOICES}) == len(g.SETUP_CHOICES) == 8
    assert len({c.choice.name for c in g.SETUP_CHOICES}) == len(g.SETUP_CHOICES)
    for c in g.SETUP_CHOICES:
        assert c.choice.default and c.choice.other and c.choice.why, c.setup
        assert c.choice.claims and set(c.choice.claims) <= ids, c.setup
        assert set(c.algorithms) <= set(g.ALGORITHMS) and c.at and c.setup != g.PAPER_SETUP
        # Every claim a choice names reads an experiment the choice reruns.
        assert all(int(i[1]) in c.at or i.startswith("e2-3-") for i in c.choice.claims), c.setup
        for e, ns in c.at.items():
            assert ns and set(ns) <= set(g._n_values(e, quick=False)), c.setup
            for a in c.algorithms:
                paper = g.point(e, a, ns[0], quick=False)
                other = g.point(e, a, ns[0], quick=False, tcp=c.tcp, setup=c.setup)
                assert paper.scenario != other.scenario, (c.setup, a)
                aqmlab.validate(other.scenario)
    fred = g.point(1, "fred", 100, quick=False, setup="fred-ns2-thresholds").scenario
    assert (fred["bottleneck"]["qdisc"]["min_th"], fred["bottleneck"]["qdisc"]["max_th"]) == (5, 15)
    dial = g.point(3, "green_embedded", 400, quick=False, setup="dialup-50").scenario
    assert dial["flows"][1]["access_buffer"] == 50 and dial["flows"][0].get("access_buffer") is None
    idm = g.point(1, "green_idmaps", 400, quick=False, setup="idmaps-per-lookup").scenario
    assert idm["bottleneck"]["qdisc"]["idmaps_draw"] == "lookup"
    emb = g.point(2, "green_embedded", 250, quick=False, setup="unlabelled-base-rtt").scenario
    assert emb["bottleneck"]["qdisc"]["unlabelled_rtt"] == "base"
    sfb = g.point(2, "sfb", 250, quick=False, setup="sfb-linux-bins").scenario["bottleneck"]
    assert {k: sfb["qdisc"][k] for k in ("levels", "bins", "bin_size", "max")} == {
        "levels": 8,
        "bins": 16,
        "bin_size": 20,
        "max": 25,
    }
    assert (sfb["qdisc"]["d1"], sfb["qdisc"]["d2"]) == (0.005, 0.001)


def _synthetic_e1(fred_queue: float) -> pd.DataFrame:
    """Experiment 1 at N = 100 and 400, 5 seeds, the paper's set-up and FRED's other thresholds:
    GREEN's queue 200, SFB's 90, FRED's 100 (default) or ``fred_queue`` (other reading)."""
    rows = []
    base = {"jain": 0.8, "utilisation": 0.95, "loss_pct": 1.0, "queue_std": 50.0}
    queue = {"green_embedded": 200, "green_idmaps": 200, "fred": 100, "sfb": 90, "droptail": 300}
    for seed in range(1, 6):
        for n in (100, 400):
            for a in g.MAIN:
                q = queue[a] * n / 400 + seed
                rows.append(
                    {
                        **base,
                        "experiment": 1,
                        "algorithm": a,
                        "n": n,
                        "seed": seed,
                        "queue_mean": q,
                        "tcp": g.PAPER_TCP,
                        "setup": g.PAPER_SETUP,
                    }
                )
            rows.append(
                {
                    **base,
                    "experiment": 1,
                    "algorithm": "fred",
                    "n": n,
                    "seed": seed,
                    "queue_mean": fred_queue * n / 400 + seed,
                    "tcp": g.PAPER_TCP,
                    "setup": "fred-ns2-thresholds",
                }
            )
    return pd.DataFrame(rows)


def test_setup_choice_reports_both_verdicts_on_a_hand_made_table():
    """FRED's thresholds: FRED's queue of 100 (default) against 250 (other reading) moves
    'GREEN keeps the queue as low as FRED/SFB' from fails to holds; both columns are shown."""
    from aqmlab.claims import choice_table, evaluate

    c = g.SETUP_BY_KEY["fred-ns2-thresholds"]
    for fred_queue, moves in ((250.0, True), (100.0, False)):
        default, other = g.setup_readings(_synthetic_e1(fred_queue), c)
        assert sorted(default["n"].unique()) == sorted(other["n"].unique()) == [100, 400]
        assert (other["setup"] == g.PAPER_SETUP).all() and len(other) == len(default)
        claims = [x for x in g.CLAIMS if x.id == "e1-others-keep-queue-low"]
        a, b = evaluate(claims, g.Data(default)), evaluate(claims, g.Data(other))
        t = choice_table(c.choice, a, b)
        assert list(t[f"{c.choice.default} (default)"]) == ["fails"]
        assert list(t[c.choice.other]) == (["holds"] if moves else ["fails"])
        assert list(t["moves"]) == (["yes"] if moves else ["no"])
        # The counted claim names the choice that moves it, and only then.
        counted = evaluate(claims, g.Data(default))
        where = g.judged_at(c, default)
        assert where == "exp. 1, N = 100, 400"
        g._note_moves(counted, c, where, a, b)
        named = "Set-up choice 'FRED's thresholds' (judged at exp. 1, N = 100, 400): fails"
        assert (named in counted[0].why) == moves, counted[0].why
    # Without the other reading's runs there is nothing to judge.
    paper_only = _synthetic_e1(250.0).query("setup == @g.PAPER_SETUP")
    assert all(f.empty for f in g.setup_readings(paper_only, c))


def test_green_loss_below_two_percent(m):
    e1 = m[(m["experiment"] == 1) & (m["algorithm"] == "green_embedded")]
    assert set(e1["n"]) == set(g.QUICK_N)
    assert (e1["loss_pct"] < 2.0).all(), e1[["n", "loss_pct"]]


def test_own_drops_are_the_early_part_of_the_loss(m, outcome: reproduce.Outcome):
    """The measurement choice LOSS_OWN_DROPS reads GREEN's early drops over the arrivals: the
    loss less the overflows, and the report shows both readings of 'e2-loss-about-2'."""
    e2 = m[(m["experiment"] == 2) & m["algorithm"].isin(g.GREEN_VARIANTS)]
    assert not e2.empty
    for _, r in e2.iterrows():
        run = outcome.runs[outcome.runs["run_dir"] == r["run_dir"]].iloc[0]
        arrivals = float(run["arrivals"])
        assert r["early_loss_pct"] == pytest.approx(100 * float(run["drops.early"]) / arrivals)
        assert r["early_loss_pct"] <= r["loss_pct"] + 1e-9
    md = (Path(outcome.out_dir) / "report.md").read_text()
    section = md.split(f"## Set-up choice run both ways: {g.LOSS_OWN_DROPS.name}")[1]
    assert "e2-loss-about-2" in section.split("\n## ")[0]


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
