"""``aqmlab reproduce sfred_003 --quick``: the report is written and the paper's claims hold.

Checked on the runs: with two CBR-UDP flows SFRED leaves the two TCP flows far more goodput
than RED does; the web-like transfer delay mean and variance are reported beside Table 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tomllib

from aqmlab.papers import count_rule
from aqmlab.papers import sfred_003 as paper
from aqmlab.units import duration_s
from conftest import run_cli


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    out = tmp_path_factory.mktemp("sfred_003")
    r = run_cli("reproduce", "sfred_003", "--quick", "--out", out, "--workers", "2")
    assert r.code == 0, r.stderr
    return out, pd.read_parquet(out / "runs.parquet")


def test_report_and_figures_are_written(quick: tuple[Path, pd.DataFrame]) -> None:
    out, runs = quick
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    names = {p.name for p in (out / "figures").glob("*.png")}
    assert {"fig2_3_ftp2.png", "fig4_5_web.png", "fig6_cdf.png", "fig7_8_cbr.png"} <= names
    md = (out / "report.md").read_text()
    assert "18.1812" in md and "1.825" in md  # Table 1's published values beside ours
    # RED and SFRED (main reading) x 3 experiments x 3 seeds, plus six more SFRED readings,
    # and RED with ns-3's count rule (the set-up choice COUNT_RULE); an MRUL of 16 flows in
    # the web experiment only (3 seeds); RED and SFRED with Tahoe senders (TCP_VARIANT).
    assert len(runs) == 3 * 3 * (2 + 6 + 1) + 3 + 3 * 3 * 2
    assert "Set-up choice run both ways: RED's early-drop count after a forced drop" in md
    assert set(runs["reading"]) == {
        count_rule.KEPT,
        "-",
        "raised",
        "printed",
        "raised, rule off",
        "printed, rule off",
        "raised, cumulative",
        "raised, k 0",
        "raised, k 35",
        f"raised, MRUL {paper.MRUL_SMALL}",
        paper.TAHOE,
    }
    tahoe = runs[runs["reading"] == paper.TAHOE]
    assert sorted(tahoe["algorithm"].value_counts()) == [9, 9]
    for d in tahoe["run_dir"]:
        sc = tomllib.loads(Path(d, "scenario.toml").read_text(encoding="utf-8"))
        variants = {f["tcp"]["variant"] for f in sc["flows"] if f["kind"] in ("tcp", "web")}
        assert variants == {"tahoe"}
        if sc["bottleneck"]["qdisc"]["kind"] == "sfred":
            assert sc["bottleneck"]["qdisc"]["fast_p"] == "raised"
    # Tahoe's fast retransmits close the window to one segment, so the runs differ from Reno's.
    for alg in ("red", "sfred"):
        reno = runs[(runs["algorithm"] == alg) & runs["reading"].isin(["-", "raised"])]
        t = tahoe[tahoe["algorithm"] == alg]
        assert not np.allclose(
            reno.sort_values(["experiment", "seed"])["utilisation"].to_numpy(),
            t.sort_values(["experiment", "seed"])["utilisation"].to_numpy(),
        )
    assert "## Set-up choice run both ways: the TCP senders' variant" in md
    small = runs[runs["reading"] == f"raised, MRUL {paper.MRUL_SMALL}"]
    assert set(small["experiment"]) == {"web"}
    for d in small["run_dir"]:
        sc = tomllib.loads(Path(d, "scenario.toml").read_text(encoding="utf-8"))
        assert sc["bottleneck"]["qdisc"]["mrul_size"] == paper.MRUL_SMALL
    assert "## Set-up choice run both ways: SFRED's MRUL size N" in md
    cum = runs[runs["reading"] == "raised, cumulative"]
    assert len(cum) == 3 * 3
    for d in cum["run_dir"]:
        sc = tomllib.loads(Path(d, "scenario.toml").read_text(encoding="utf-8"))
        assert sc["bottleneck"]["qdisc"]["kind"] == "sfred"
        window = duration_s(sc["bottleneck"]["qdisc"]["window"])
        assert window == duration_s(paper.CUMULATIVE_WINDOW) > duration_s(sc["duration"])
    assert "## Set-up choice run both ways: SFRED's counting window" in md


def test_sfred_protects_tcp_from_cbr(quick: tuple[Path, pd.DataFrame]) -> None:
    runs = paper.main_runs(quick[1])
    gp = {a: paper.group_goodput(runs, "cbr", a) for a in paper.ALGORITHMS}
    tcp = {a: gp[a]["ftp1"] + gp[a]["ftp2"] for a in paper.ALGORITHMS}
    udp = {a: gp[a]["cbr1"] + gp[a]["cbr2"] for a in paper.ALGORITHMS}
    # The two 800 kbps CBR flows overload the 1.5 Mbps link: RED leaves TCP little.
    assert udp["red"] > 1.0 and tcp["red"] < 0.4
    assert tcp["sfred"] >= 2.0 * tcp["red"] and tcp["sfred"] > 0.8
    assert udp["sfred"] < udp["red"]


def test_web_transfer_delays_are_measured(quick: tuple[Path, pd.DataFrame]) -> None:
    runs = paper.main_runs(quick[1])
    for a in paper.ALGORITHMS:
        st = paper.transfer_stats(runs, a)
        d = paper.transfer_delays(runs, a)
        assert st["count"] > 1000
        # The CDF's delays and the core's summary describe the same transfers, seed by seed.
        assert d.size == st["count"]
        for r in paper._rows(runs, "web", a):
            one = paper._delays(r)
            t = paper.load_summary(r["run_dir"])["groups"]["web"]["transfers"]
            assert one.mean() == pytest.approx(t["mean_s"], rel=1e-6)
            assert one.var() == pytest.approx(t["variance_s2"], rel=1e-3)
    # SFRED's transfer delay varies less than RED's (Table 1: 3.977 vs 18.18).
    assert (
        paper.transfer_stats(runs, "sfred")["variance"]
        < paper.transfer_stats(runs, "red")["variance"]
    )
    # Fig. 6's 'more stable' read as the spread (the set-up choice STABLE_READING): the 90th
    # minus the 10th percentile of each seed's delays, what the other reading compares.
    m = paper.measure(runs)
    for a in paper.ALGORITHMS:
        per = [paper._delays(r) for r in paper._rows(runs, "web", a)]
        want = [float(np.percentile(d, 90) - np.percentile(d, 10)) for d in per]
        assert m.spread[a] == pytest.approx(want) and all(x > 0 for x in want)
    md = (quick[0] / "report.md").read_text()
    assert "## Set-up choice run both ways: Fig. 6's 'more stable'" in md


def test_two_ftp_flows_share_more_fairly_under_sfred(quick: tuple[Path, pd.DataFrame]) -> None:
    runs = paper.main_runs(quick[1])
    gp = {a: paper.group_goodput(runs, "ftp2", a) for a in paper.ALGORITHMS}
    ratio = {a: gp[a]["ftp1"] / gp[a]["ftp2"] for a in paper.ALGORITHMS}
    assert ratio["red"] > 1.5  # RED favours the 10 ms flow
    assert abs(ratio["sfred"] - 1.0) < abs(ratio["red"] - 1.0)


def test_readings_differ_and_the_unresponsive_rule_costs_utilisation(
    quick: tuple[Path, pd.DataFrame],
) -> None:
    _, runs = quick
    ftp = runs[(runs["experiment"] == "ftp2") & (runs["algorithm"] == "sfred")]
    by = ftp.groupby("reading")["utilisation"].mean()
    # Two responsive TCP flows: punishing one as unresponsive leaves the link underused.
    assert by["raised, rule off"] > by["raised"] + 0.1
    # The printed formula is a different probability, so the runs differ.
    raised = ftp[ftp["reading"] == "raised"].sort_values("seed")["arrivals"].to_numpy()
    printed = ftp[ftp["reading"] == "printed"].sort_values("seed")["arrivals"].to_numpy()
    assert (raised != printed).any()


def test_slow_flow_raise_k_is_run_both_ways(quick: tuple[Path, pd.DataFrame]) -> None:
    out, runs = quick
    web = runs[(runs["experiment"] == "web") & (runs["algorithm"] == "sfred")]
    k = {r: web[web["reading"] == r].sort_values("seed") for r in ("raised, k 0", "raised")}
    assert len(k["raised, k 0"]) == len(k["raised"]) > 0
    # The raise reaches the runs: without it slow flows meet RED's thresholds earlier.
    assert (
        k["raised, k 0"]["drops.early"].to_numpy() != k["raised"]["drops.early"].to_numpy()
    ).any()
    md = (out / "report.md").read_text(encoding="utf-8")
    for name in ("§2.4's slow-flow raise k: none", "§2.4's slow-flow raise k: the most"):
        assert f"Set-up choice run both ways: {name}" in md


def test_throughput_at_g0_is_sent_less_dropped(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text('{"duration_s": 12.0, "warmup_s": 2.0}')
    (tmp_path / "scenario.toml").write_text(
        '[[flows]]\nkind = "udp_cbr"\ngroup = "a"\ncbr = { packet_bytes = 500 }\n'
        '[[flows]]\nkind = "tcp"\ngroup = "b"\ntcp = { mss = 1000 }\n'
    )
    pd.DataFrame(
        {"group": ["a", "b", "b"], "sent": [100, 200, 50], "drops": [10, 20, 0]}
    ).to_parquet(tmp_path / "flows.parquet")
    got = paper._g0_mbps(str(tmp_path))
    # (100 - 10) x 500 B and (180 + 50) x 1000 B over the 10 s window.
    assert got == pytest.approx({"a": 0.036, "b": 0.184})


def test_bandwidth_is_read_at_g0_and_at_the_receivers(quick: tuple[Path, pd.DataFrame]) -> None:
    out, runs = quick
    main = paper.main_runs(runs)
    for alg in paper.ALGORITHMS:
        g0 = paper.group_rate_seeds(main, "cbr", alg)
        rx = paper.group_rate_seeds(main, "cbr", alg, paper.AT_RECEIVERS)
        # CBR packets that leave G0 arrive (no loss after it) and are never sent twice; TCP's
        # retransmissions count at G0 only.
        for g in ("cbr1", "cbr2"):
            np.testing.assert_allclose(g0[g], rx[g], rtol=0.02, atol=1e-3)
        for g in ("ftp1", "ftp2"):
            assert all(a >= 0.98 * b for a, b in zip(g0[g], rx[g], strict=True))
    md = (out / "report.md").read_text()
    assert "## Set-up choice run both ways: where a flow's bandwidth is read" in md
