"""Paper 003, NLRED half: the --quick reproduction runs, writes its report, and NLRED's
throughput is less sensitive to max_p than GRED's (checked from the runs table); Fig. 21 runs
REM in byte mode as the paper did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import aqmlab
from aqmlab import reproduce
from aqmlab.papers import REPRODUCTIONS
from aqmlab.papers import nlred_003 as nl
from aqmlab.papers.nlred_003 import FIG12_DELAY, REPRODUCTION, delay_reading, rem_byte_buffer
from aqmlab.scenario import tomllib


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> reproduce.Outcome:
    out = tmp_path_factory.mktemp("nlred003")
    return reproduce.reproduce("nlred_003", quick=True, out_dir=out, progress=False)


def test_registered():
    assert "nlred_003" in REPRODUCTIONS


def test_report_files(quick: reproduce.Outcome):
    out = quick.out_dir
    for f in ("report.md", "report.html", "claims.json", "runs.parquet"):
        assert (out / f).is_file(), f
    figs = {p.stem for p in (out / "figures").glob("*.png")}
    assert figs == {"fig13_15_gred", "fig14_16_nlred", "fig19_20", "fig21"}
    doc = json.loads((out / "claims.json").read_text())
    assert len(doc) == 17
    # The 10-40-flow claim is checked at every flow count run in that range.
    dip = next(c for c in doc if c["id"] == "fig19-dip-nlred-above-gred")
    assert [k["label"] for k in dip["cases"]] == ["10 flows", "20 flows", "40 flows"]
    assert all(k["seeds"] == 3 for k in dip["cases"])
    assert quick.runs["error"].isna().all()
    assert set(quick.runs["algorithm"]) == {"GRED", "NLRED", "REM", "DropTail"}
    # Fig. 11 is drop-tail; Figs. 19-20 also run below 5 flows ("less than 5 flows"), and
    # REM's claim there is judged at each such count.
    assert set(quick.runs.loc[quick.runs["figure"] == "11", "algorithm"]) == {"DropTail"}
    few = quick.runs[(quick.runs["figure"] == "19-20") & (quick.runs["n"] < 5)]
    assert set(few["algorithm"]) == {"GRED", "NLRED", "REM"}
    rem_low = next(c for c in doc if c["id"] == "fig19-rem-low-extremes")
    assert [k["label"] for k in rem_low["cases"]] == ["2 flows", "100 flows"]
    # The buffer-unit choice: GRED and NLRED rerun Fig. 21 with REM's 120 000-byte buffer, and
    # the report sets both readings' verdicts side by side; its set-up section starts at the
    # first sentence of the readings.
    b = quick.runs[quick.runs["figure"] == "21-bytes"]
    assert set(b["algorithm"]) == {"GRED", "NLRED"}
    assert (
        len(b)
        == len(quick.runs[(quick.runs["figure"] == "21") & (quick.runs["algorithm"] == "GRED")]) * 2
    )
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Set-up choice run both ways: Fig. 21: GRED's and NLRED's queue unit" in md
    assert "## Set-up choice run both ways: Figs. 19-20: the flow counts" in md
    # The lost Fig. 12: Fig. 11's drop-tail runs and Fig. 19's NLRED (10 flows up) and GRED
    # (10-40 flows) again with the 40 ms bottleneck, the claims that read them judged on both.
    f11 = quick.runs[quick.runs["figure"] == "11"]
    bdp = quick.runs[quick.runs["figure"] == "11-bdp"]
    assert set(bdp["algorithm"]) == {"DropTail"} and len(bdp) == len(f11)
    assert sorted(bdp["n"].unique()) == sorted(f11["n"].unique())
    b19 = quick.runs[quick.runs["figure"] == "19-20-bdp"]
    assert sorted(b19.loc[b19["algorithm"] == "GRED", "n"].unique()) == [10, 20, 40]
    assert sorted(b19.loc[b19["algorithm"] == "NLRED", "n"].unique()) == [10, 20, 40, 60, 100]
    assert "## Set-up choice run both ways: Fig. 12: the bottleneck's delay" in md
    section = md.split("## Set-up choice run both ways: Fig. 12: the bottleneck's delay")[1]
    rows = [ln for ln in section.split("\n## ")[0].splitlines() if ln.startswith("| ")]
    assert [r.split(" | ")[1] for r in rows[1:]] == list(FIG12_DELAY.claims)
    # ns-3's count rule: GRED at max_p 0.1 and NLRED at 0.05 and 0.1 over every load, both
    # below 5 flows.
    assert "## Set-up choice run both ways: RED's early-drop count after a forced drop" in md
    kept = quick.runs[quick.runs["figure"] == "13-16" + nl.COUNT_KEPT]
    assert len(kept) == 3 * len(nl.FLOWS_QUICK) * len(nl.SEEDS_QUICK)
    assert set(kept.loc[kept["algorithm"] == "GRED", "max_p"]) == {0.1}
    assert set(kept.loc[kept["algorithm"] == "NLRED", "max_p"]) == {0.05, 0.1}
    few_kept = quick.runs[quick.runs["figure"] == "19-20" + nl.COUNT_KEPT]
    assert len(few_kept) == 2 * len(nl.FLOWS_FEW_QUICK) * len(nl.SEEDS_QUICK)
    assert "## Setup and readings\n\nReadings taken where the text is silent" in md


def test_nlred_throughput_less_sensitive_to_max_p(quick: reproduce.Outcome):
    e1 = quick.runs[quick.runs["figure"] == "13-16"]
    assert e1["max_p"].nunique() >= 3 and e1["n"].nunique() >= 3
    spread = e1.groupby(["algorithm", "n"])["utilisation"].agg(lambda s: s.max() - s.min())
    assert spread["NLRED"].mean() < spread["GRED"].mean()


def test_nlred_max_p_is_the_red_equivalent():
    base = reproduce.load_base("nlred_003", "nlred")
    q = base["bottleneck"]["qdisc"]
    assert (q["kind"], q["min_th"], q["max_th"], q["w_q"]) == ("nlred", 10, 30, 0.002)
    assert q["gentle"] is False
    assert reproduce.load_base("nlred_003", "gred")["bottleneck"]["qdisc"]["gentle"] is True
    assert reproduce.load_base("nlred_003", "gred")["bottleneck"]["buffer"] == 120


def test_fig21_rem_runs_in_byte_mode():
    """Fig. 21's REM points have rem.cc's byte buffer (queue limit x reference size); the other
    REM points and GRED/NLRED keep the 120-packet buffer, except GRED's and NLRED's Fig. 21
    runs of the queue-unit choice, which run in byte mode with REM's byte buffer."""
    rem = reproduce.load_base("nlred_003", "rem")
    ref = rem["bottleneck"]["qdisc"]["mean_pkt_size"]
    assert ref == 1000
    assert rem_byte_buffer(rem) == f"{rem['bottleneck']['buffer'] * ref}B"
    # The default bottleneck rate's points (the other rate's are the same figures again).
    pts = [
        p
        for p in REPRODUCTION.points(quick=True)
        if not p.labels["figure"].endswith(nl.RATE_SUFFIX)
    ]
    fig21 = [p for p in pts if p.labels["figure"] == "21"]
    assert {p.labels["algorithm"] for p in fig21} == {"GRED", "NLRED", "REM"}
    rem21 = [p for p in fig21 if p.labels["algorithm"] == "REM"]
    assert len({p.scenario["flows"][0]["tcp"]["mss"] for p in rem21}) >= 3
    for p in rem21:
        b = p.scenario["bottleneck"]
        assert isinstance(b["buffer"], str) and b["buffer"] == rem_byte_buffer(rem)
        assert b["qdisc"]["kind"] == "rem" and b["qdisc"]["mean_pkt_size"] == ref
    for p in pts:
        if p.labels["figure"] == "21-bytes":
            assert p.labels["algorithm"] in {"GRED", "NLRED"}
            assert p.scenario["bottleneck"]["buffer"] == rem_byte_buffer(rem)
            q = p.scenario["bottleneck"]["qdisc"]
            assert q["bytes"] is True and (q["min_th"], q["max_th"]) == (10 * ref, 30 * ref)
        elif p not in rem21:
            assert p.scenario["bottleneck"]["buffer"] == 120, p.labels
        if p.labels["figure"] == "21-rem-packets":  # packet-mode REM: 120 packets, any size
            assert p.labels["algorithm"] == "REM" and p.scenario["bottleneck"]["buffer"] == 120


def test_fig21_rem_runs_used_the_byte_buffer(quick: reproduce.Outcome):
    """The runs themselves (their resolved scenarios) had the byte buffer, and the claim no
    longer says REM lacks a byte mode."""
    rem21 = quick.runs[(quick.runs["figure"] == "21") & (quick.runs["algorithm"] == "REM")]
    assert len(rem21) >= 3
    byte_buffer = rem_byte_buffer(reproduce.load_base("nlred_003", "rem"))
    for d in rem21["run_dir"]:
        sc = tomllib.loads(Path(d, "scenario.toml").read_text(encoding="utf-8"))
        assert sc["bottleneck"]["buffer"] == byte_buffer
    claims = json.loads((quick.out_dir / "claims.json").read_text())
    rem_claim = [c for c in claims if c["id"] == "fig21-size-vs-rem"]
    assert len(rem_claim) == 1 and "byte mode" in rem_claim[0]["quote"]
    assert "packet mode only" not in (quick.out_dir / "report.md").read_text()


def _rem_run(mss: int, buffer: int | str, ref: int) -> dict:
    return aqmlab.run(
        reproduce.load_base("nlred_003", "rem"),
        set={
            "duration": "20s",
            "warmup": "10s",
            "flows.0.count": 20,
            "flows.0.tcp.mss": mss,
            "bottleneck.buffer": buffer,
            "bottleneck.qdisc.mean_pkt_size": ref,
        },
    ).summary


def test_byte_mode_rem_normalises_by_the_reference_size():
    """Byte mode with the reference size equal to the packet size (and the buffer in those
    packets) is packet mode, run for run; with rem.cc's 1000-byte reference and 250-byte packets
    it is not."""
    keys = ("utilisation", "drops", "arrivals", "queue_pkts")
    pkt_mode = _rem_run(250, 120, 250)
    byte_same_ref = _rem_run(250, "30000B", 250)
    byte_ref_1000 = _rem_run(250, "30000B", 1000)
    assert {k: byte_same_ref[k] for k in keys} == {k: pkt_mode[k] for k in keys}
    assert byte_ref_1000["drops"] != byte_same_ref["drops"]


def test_the_delay_reading_swaps_only_the_runs_it_redoes():
    import pandas as pd

    rows = [
        ("19-20", "NLRED", 10, 9.0),
        ("19-20", "NLRED", 5, 8.0),
        ("19-20", "REM", 10, 6.0),
        ("19-20-bdp", "NLRED", 10, 7.0),
        ("11", "DropTail", 5, 90.0),
        ("11-bdp", "DropTail", 5, 80.0),
        ("13-16", "NLRED", 10, 9.5),
    ]
    t = pd.DataFrame(rows, columns=["figure", "algorithm", "n", "throughput"])
    got = delay_reading(t)
    val = {(f, a, n): x for f, a, n, x in got.itertuples(index=False)}
    assert val == {
        ("19-20", "NLRED", 10): 7.0,  # redone on the 40 ms bottleneck
        ("19-20", "NLRED", 5): 8.0,  # not redone: the default's run
        ("19-20", "REM", 10): 6.0,
        ("11", "DropTail", 5): 80.0,
        ("13-16", "NLRED", 10): 9.5,
    }


def test_fig12_rate_reruns_every_figure_on_the_other_rate(quick: reproduce.Outcome):
    """The lost Fig. 12's bottleneck rate: every figure's runs again at 1.5 Mbps (the paper's
    other bottleneck), judged on every claim, throughput read against the rate run."""
    runs = quick.runs
    fig = runs["figure"].astype(str)
    other = runs[fig.str.endswith(nl.RATE_SUFFIX)]
    main = runs[fig.isin({f.removesuffix(nl.RATE_SUFFIX) for f in other["figure"]})]
    assert len(other) == len(main) > 0
    assert set(other["link_mbps"]) == {1.5} and set(main["link_mbps"]) == {nl.LINK_MBPS}
    for d in other["run_dir"]:
        sc = tomllib.loads(Path(d, "scenario.toml").read_text(encoding="utf-8"))
        assert sc["bottleneck"]["rate"] in ("1.5Mbps", "1500000bps", 1500000), sc["bottleneck"]
    t = nl.table(nl.rate_reading(runs))
    assert (t["throughput"] <= 1.5 + 1e-9).all() and t["throughput"].max() > 1.0
    md = (quick.out_dir / "report.md").read_text(encoding="utf-8")
    assert "## Set-up choice run both ways: Fig. 12: the bottleneck's rate" in md
