"""The reproduction framework: Report, published(), load_base(), reproduce() and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from aqmlab import reproduce, sweep
from aqmlab import scenario as sc
from aqmlab.papers import REPRODUCTIONS
from conftest import ROOT, TINY, run_cli


class TinyRepro:
    id = "tiny_test"
    title = "A tiny reproduction"
    paper_file = "none.txt"

    def points(self, quick: bool) -> list[sweep.Point]:
        bufs = [10, 40] if quick else [10, 20, 40]
        return sweep.grid(sc.loads(TINY), {"bottleneck.buffer": bufs})

    def report(self, runs: pd.DataFrame, rep: reproduce.Report, quick: bool) -> None:
        rep.section("Queue vs buffer")
        rep.text("Some *text*.\n\nA second paragraph.")
        fig, ax = plt.subplots()
        ax.plot(runs["buffer"], runs["queue_pkts.mean"])
        rep.figure(fig, "queue", "mean queue vs buffer")
        rep.table(runs[["buffer", "queue_pkts.mean"]], "the numbers")
        grows = runs["queue_pkts.mean"].is_monotonic_increasing
        rep.claim("a bigger buffer holds a longer queue", grows, f"{runs['queue_pkts.mean']}")
        rep.claim("a claim that fails", False, "on purpose")


def test_published_and_load_base():
    assert published_ok()
    with pytest.raises(KeyError):
        reproduce.published("adaptive_red_004.nope")
    # The project's copy is the shared one, unchanged.
    shared = Path("/work/shared/papers/published.toml")
    if shared.exists():
        ours = Path(reproduce.__file__).parent / "papers" / "published.toml"
        assert ours.read_text() == shared.read_text()


def published_ok() -> bool:
    text = reproduce.published("adaptive_red_004.text")
    return bool(text["max_p_minimising_loss_32_connections"] == 0.063)


def test_load_base_reads_scenarios_papers():
    files = sorted((ROOT / "scenarios" / "papers").glob("*/*.toml"))
    if not files:
        pytest.skip("no paper scenarios in this build")
    f = files[0]
    assert reproduce.load_base(f.parent.name, f.stem) == sc.load(f)


def test_reproduce_writes_report(tmp_path: Path):
    out = reproduce.reproduce(TinyRepro(), quick=True, out_dir=tmp_path, workers=1, progress=False)
    assert len(out.runs) == 2
    for f in ("report.md", "report.html", "claims.json", "runs.parquet", "figures/queue.png"):
        assert (tmp_path / f).is_file(), f
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert [c["holds"] for c in claims] == [True, False]
    md = (tmp_path / "report.md").read_text()
    assert "Claims: 1 of 2 hold" in md and "DOES NOT HOLD" in md and "figures/queue.png" in md
    assert "data:image/png;base64," in (tmp_path / "report.html").read_text()
    # Second time: every point from the cache.
    again = reproduce.reproduce(TinyRepro(), quick=True, out_dir=tmp_path, progress=False)
    assert again.runs["cached"].all()


def test_report_rejects_duplicate_figure_names():
    rep = reproduce.Report("t", "p")
    fig, _ = plt.subplots()
    rep.figure(fig, "a", "x")
    with pytest.raises(ValueError):
        rep.figure(fig, "a.png", "y")
    plt.close(fig)


def test_registered_reproductions_follow_the_protocol():
    for rid, repro in REPRODUCTIONS.items():
        assert isinstance(repro, reproduce.Reproduction)
        assert repro.id == rid
        assert (Path(reproduce.__file__).parent / "papers" / "published.toml").exists()


def test_cli_reproduce_list_and_unknown():
    r = run_cli("reproduce", "--list")
    assert r.code == 0
    for rid in REPRODUCTIONS:
        assert rid in r.stdout
    r = run_cli("reproduce", "no_such_paper")
    assert r.code == 2 and "no_such_paper" in r.stderr
