"""Paper 001 (rate-based GREEN): the quick reproduction runs, Table 1 is set beside the
published one, and the paper's claims that hold in our runs hold in its DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import aqmlab
from aqmlab import reproduce
from aqmlab.papers import count_rule
from aqmlab.papers import green_rate_001 as g


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> reproduce.Outcome:
    out = tmp_path_factory.mktemp("green_rate_001")
    return reproduce.reproduce("green_rate_001", quick=True, out_dir=out, progress=False)


@pytest.fixture(scope="module")
def m(outcome: reproduce.Outcome):
    return g.metrics(outcome.runs)


def test_paper_settings_are_explicit():
    red = g.qdisc("red", 91)
    assert red["min_th"] == pytest.approx(0.2 * 91) and red["max_th"] == pytest.approx(0.8 * 91)
    assert red["ecn"] is True
    assert g.qdisc("blue", 91) == {
        "kind": "blue",
        "l_max": 0.66,
        "d1": 0.001,
        "d2": 0.0002,
        "freeze_time": "10ms",
        "ecn": True,
        "non_ect": "pass",
    }
    rem = g.qdisc("rem", 91)
    assert (rem["gamma"], rem["phi"], rem["alpha"], rem["target"]) == (0.01, 1.003, 0.1, 55.0)
    assert rem["update_time"] == "10ms"
    green = g.qdisc("green_rate", 91)
    assert (green["delta_t"], green["delta_p"], green["target"], green["k"]) == (
        "10ms",
        0.001,
        0.97,
        "100ms",
    )
    for p in g.points(quick=False)[::5]:
        aqmlab.validate(p.scenario)


def test_grid_and_overrides():
    full = g.points(quick=False)
    paper = [
        p for p in full if p.labels["variant"] == "paper" and p.labels["trial"] != g.T1_BUFFERS
    ]
    assert len(paper) == 5 * (13 + 6 + 8) * len(g.SEEDS_FULL)
    # BLUE's buffer prediction: trial 1's loads with BLUE at larger buffers, every seed.
    blue = [p for p in full if p.labels["trial"] == g.T1_BUFFERS]
    assert len(blue) == 13 * len(g.BLUE_BUFFERS["full"]) * len(g.SEEDS_FULL)
    assert {p.labels["algorithm"] for p in blue} == {"blue"}
    for p in blue:
        assert p.scenario["bottleneck"]["buffer"] == p.labels["buffer"] > g.BASE_BUFFER
        assert p.scenario["bottleneck"]["qdisc"] == g.qdisc("blue", p.labels["buffer"])
    # Trial 3's access delays, run both ways: REM and GREEN at every delay and seed.
    t3 = [p for p in full if p.labels["variant"] in g.T3_ACCESS]
    assert len(t3) == len(g.T3_ACCESS) * 2 * 8 * len(g.SEEDS_FULL)
    for p in t3:
        assert p.labels["trial"] == 3 and p.labels["algorithm"] in g.T3_ALGORITHMS
        assert p.scenario["flows"][0]["access_delay"] == g.T3_ACCESS[p.labels["variant"]]
    # Sensitivity runs: trial 1, seed 1, the algorithms each variant is about; and the set-up
    # choice RED_MAX_P: trial 1's RED at every load and seed.
    choice = [p for p in full if p.labels["variant"] == g.RED_MAX_P_OTHER]
    assert len(choice) == 13 * len(g.SEEDS_FULL)
    assert {p.scenario["bottleneck"]["qdisc"]["max_p"] for p in choice} == {0.02}
    # The set-up choice COUNT_RULE: RED with ns-3's count rule in trials 1 and 2, every point
    # and seed; the paper's RED restarts the count as ns-2 does.
    kept = [p for p in full if p.labels["variant"] == count_rule.KEPT]
    assert len(kept) == (13 + 6) * len(g.SEEDS_FULL)
    assert {p.labels["trial"] for p in kept} == {1, 2}
    assert g.qdisc("red", 91)[count_rule.KEY] is True
    # The set-up choice NON_ECT: GREEN and BLUE dropping Not-ECT packets, every point and seed;
    # the paper's REM, GREEN and BLUE pass them (rem.cc), its RED drops them (red.cc).
    dropping = [p for p in full if p.labels["variant"] == g.NON_ECT_DROP]
    assert len(dropping) == 2 * (13 + 6 + 8) * len(g.SEEDS_FULL)
    assert {p.labels["algorithm"] for p in dropping} == {"green_rate", "blue"}
    assert {p.scenario["bottleneck"]["qdisc"]["non_ect"] for p in dropping} == {"drop"}
    assert all(g.qdisc(a, 91)["non_ect"] == "pass" for a in ("rem", "green_rate", "blue"))
    sens = len(full) - len(paper) - len(blue) - len(t3) - len(choice) - len(kept) - len(dropping)
    assert sens == 13 * sum(len(a) for a, _ in g.VARIANTS.values())
    sack = next(p for p in full if p.labels["variant"] == "SACK senders")
    assert sack.scenario["flows"][0]["tcp"]["variant"] == "sack"
    t2 = next(p for p in paper if p.labels["trial"] == 2 and p.labels["buffer"] == 250)
    assert t2.scenario["bottleneck"]["buffer"] == 250
    assert t2.scenario["bottleneck"]["qdisc"] == {"kind": "droptail"}
    assert t2.scenario["flows"][0]["count"] == 1000
    t3 = next(p for p in paper if p.labels["trial"] == 3 and p.labels["algorithm"] == "red")
    assert t3.scenario["bottleneck"]["delay"] == f"{t3.labels['bottleneck_delay_ms']}ms"
    assert t3.scenario["flows"][0]["count"] == 400
    # 91 packets of 1000 bytes are 72.8 ms at the 10 Mbps bottleneck (the paper's numbers).
    base = reproduce.load_base("green_rate_001", "trial1")
    assert base["bottleneck"]["rate"] == "10Mbps" and base["bottleneck"]["buffer"] == 91


def test_report_and_table1(outcome: reproduce.Outcome, m):
    out = Path(outcome.out_dir)
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    for name in ("trial1_vs_sessions", "trial2_vs_buffer", "trial3_vs_delay"):
        assert (out / "figures" / f"{name}.png").is_file(), name
    t = g.table1(g.paper_runs(m))
    assert list(t["algorithm"]) == ["DropTail", "RED", "BLUE", "REM", "GREEN"]
    assert list(t["loss % published"]) == [6.85, 5.43, 0.14, 0.23, 0.05]
    # ns-2 runs the baselines (averaged over the same loads as aqmlab); not BLUE or GREEN.
    ns2 = dict(zip(t["algorithm"], t["loss % ns-2"], strict=True))
    assert ns2["BLUE"] == ns2["GREEN"] == "—"
    assert all(isinstance(ns2[a], float) and ns2[a] > 0 for a in ("DropTail", "RED", "REM"))
    assert set(m.loc[m["trial"] == 1, "sessions"]) == set(g.QUICK[1])


def test_claims_cover_trial_2_and_count_no_subset(outcome: reproduce.Outcome):
    doc = json.loads((Path(outcome.out_dir) / "claims.json").read_text())
    ids = [c["id"] for c in doc]
    assert "t2-rem-similar" in ids and len(ids) == len(set(ids)) == len(g.CLAIMS)
    # No claim is repeated on a subset of the loads chosen after the fact.
    assert not any("sessions only" in c["quote"] for c in doc)


def test_queue_based_aqms_lose_more_than_the_others(m):
    t = g.paper_runs(m)
    t1 = t[t["trial"] == 1].groupby("algorithm")[["loss_pct", "delay_ms"]].mean()
    assert min(t1.loc[a, "loss_pct"] for a in ("droptail", "red")) > max(
        t1.loc[a, "loss_pct"] for a in ("green_rate", "blue", "rem")
    )
    assert t1["delay_ms"].idxmax() == "droptail"


def test_trial2_measures_on_a_hand_made_table():
    import pandas as pd

    rows = []
    for seed in (1, 2):
        for buf, blue_u, blue_d, rem_d in ((31, 0.92, 5.0, 20.0), (250, 1.0, 80.0, 46.0)):
            for algo, u, d in (
                ("blue", blue_u, blue_d),
                ("rem", 1.0, rem_d),
                ("red", 1.0, 2 * blue_d),
                ("droptail", 1.0, 3 * blue_d),
                ("green_rate", 0.965, 9.0),
            ):
                rows.append(
                    {
                        "trial": 2,
                        "algorithm": algo,
                        "buffer": buf,
                        "seed": seed,
                        "utilisation": u,
                        "delay_ms": d + seed,
                        "loss_pct": 0.1 if algo in ("red", "droptail") else 0.0,
                    }
                )
    m = pd.DataFrame(rows)
    higher = {c.label: c for c in g._c_higher_backlog(m)}
    # BLUE's delay over the two buffers (5 + 80) / 2 against REM's (20 + 46) / 2, plus the seed.
    assert higher["BLUE vs REM"].lhs == [43.5, 44.5] and higher["BLUE vs REM"].rhs == [34.0, 35.0]
    blue = {c.label: c for c in g._c_blue_sacrifices(m)}
    assert blue["lowest utilisation vs 0.95"].rhs == [0.92, 0.92]
    same = {c.label: c for c in g._c_same_util_as_queue_based(m)}
    assert same["GREEN vs RED"].lhs == [0.965, 0.965] and same["GREEN vs RED"].rhs == [1.0, 1.0]


def test_blue_buffer_measures_on_a_hand_made_table():
    import pandas as pd

    rows = []
    for seed in (1, 2):
        for algo, u in (("droptail", 1.0), ("red", 1.0), ("rem", 0.99), ("green_rate", 0.95)):
            for x in (100, 200):
                rows.append((1, algo, x, 91, seed, u, 60.0, 10.0))
        for b, u, d, loss in (
            (91, 0.94, 10.0, 0.05),
            (125, 0.96, 20.0, 0.04),
            (250, 0.99, 60, 0.0),
        ):
            for x in (100, 200):
                rows.append((1 if b == 91 else g.T1_BUFFERS, "blue", x, b, seed, u, d + seed, loss))
    m = pd.DataFrame(
        rows,
        columns=[
            "trial",
            "algorithm",
            "sessions",
            "buffer",
            "seed",
            "utilisation",
            "delay_ms",
            "loss_pct",
        ],
    )
    # The others' mean at 91 packets, (1 + 1 + 0.99 + 0.95) / 4, against BLUE below 182 packets.
    need = g._c_blue_buffer_needed()(m)
    assert [c.label for c in need] == ["BLUE at 125 pkts"]
    assert need[0].lhs == pytest.approx([0.985, 0.985]) and need[0].rhs == [0.96, 0.96]
    top = g._c_blue_buffer_needed(target=g._others_max)(m)
    assert top[0].lhs == [1.0, 1.0]
    cost = {c.label: c for c in g._c_blue_buffer_cost()(m)}
    assert set(cost) == {"delay (ms) 250 vs 91 pkts", "loss (%) 250 vs 91 pkts"}
    assert cost["delay (ms) 250 vs 91 pkts"].lhs == [61.0, 62.0]
    assert cost["delay (ms) 250 vs 91 pkts"].rhs == [11.0, 12.0]
    assert cost["loss (%) 250 vs 91 pkts"].lhs == [0.0, 0.0]
    # The explanations read the same table: where BLUE reaches the others, what it drops.
    why = g._why_blue_buffer_needed(m, None)
    assert "reaches the others' mean from 250 packets" in why
    assert "stays below the highest (1.0000) up to 250 packets" in why
    m["overflow_drops"], m["early_drops"] = 3.0, 0.0
    # 12 BLUE runs (91, 125 and 250 packets, two loads, two seeds), 3 overflows each.
    why = g._why_blue_buffer_cost(m, None)
    assert "Of its drops in these runs 36 are buffer overflows and 0 early drops: with ECN" in why
    m["early_drops"] = 1.0
    assert "with ECN" not in g._why_blue_buffer_cost(m, None)


def test_trial3_access_runs_swap_only_trial_3s_rem_and_green():
    import pandas as pd

    m = pd.DataFrame(
        [
            (3, "rem", "paper", 1.0),
            (3, "green_rate", "paper", 2.0),
            (3, "red", "paper", 3.0),
            (1, "rem", "paper", 4.0),
            (3, "rem", g.T3_ACCESS_1MS, 5.0),
            (3, "green_rate", g.T3_ACCESS_1MS, 6.0),
            (3, "rem", g.T3_ACCESS_10MS, 7.0),
        ],
        columns=["trial", "algorithm", "variant", "loss_pct"],
    )
    one = g.t3_access_runs(m, g.T3_ACCESS_1MS)
    assert sorted(one["loss_pct"]) == [3.0, 4.0, 5.0, 6.0]
    assert set(one["variant"]) == {"paper"}
