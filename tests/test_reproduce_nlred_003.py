"""Paper 003, NLRED half: the --quick reproduction runs, writes its report, and NLRED's
throughput is less sensitive to max_p than GRED's (checked from the runs table)."""

from __future__ import annotations

import json

import pytest

from aqmlab import reproduce
from aqmlab.papers import REPRODUCTIONS


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
    assert {p.stem for p in (out / "figures").glob("*.png")} == {"fig13_16", "fig19_20", "fig21"}
    assert len(json.loads((out / "claims.json").read_text())) >= 6
    assert quick.runs["error"].isna().all()
    assert set(quick.runs["algorithm"]) == {"GRED", "NLRED", "REM"}


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
