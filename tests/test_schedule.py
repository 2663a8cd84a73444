"""Several sweeps through one pool (aqmlab.schedule): what `reproduce all` runs its papers with.

Two tiny fake papers stand in for the six: every point runs once, the outputs equal those of
each paper reproduced alone, an interrupted command resumes with only what had not finished,
and a failed point in one paper leaves the other's report written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from aqmlab import claims, papers, reproduce, schedule, sweep
from aqmlab import scenario as sc
from conftest import TINY


class FakePaper:
    """A reproduction of a few tiny runs: buffers by seeds, one claim, a figure-free report."""

    def __init__(self, rid: str, buffers: list[int], duration: str = "4s") -> None:
        self.id = rid
        self.title = f"Fake paper {rid}"
        self.paper_file = "none.txt"
        self.buffers = buffers
        self.duration = duration
        self.reported = 0

    def points(self, quick: bool) -> list[sweep.Point]:
        base = sc.loads(TINY)
        base["duration"] = self.duration
        return sweep.grid(base, {"bottleneck.buffer": self.buffers}, seeds=[1, 2])

    def report(self, runs: pd.DataFrame, rep: reproduce.Report, quick: bool) -> None:
        self.reported += 1
        rep.section("Queue vs buffer")
        rep.table(runs[["buffer", "seed", "queue_pkts.mean"]], "the numbers")
        big, small = max(self.buffers), min(self.buffers)
        claim = claims.Claim(
            id="grows",
            where="Fig. 1",
            quote=f"{self.id}: a bigger buffer holds a longer queue",
            metric="mean queue (packets)",
            lhs_name="largest buffer",
            op=">",
            rhs_name="smallest",
            measure=lambda r: [
                claims.Case(
                    "two buffers",
                    list(r.loc[r["buffer"] == big, "queue_pkts.mean"]),
                    list(r.loc[r["buffer"] == small, "queue_pkts.mean"]),
                )
            ],
        )
        rep.claims(claims.evaluate([claim], runs))


@pytest.fixture
def two_papers(monkeypatch):
    """Two fake papers registered as the only reproductions; the second one costs more (longer
    runs), so it is submitted first."""
    found = {
        "fake_a": FakePaper("fake_a", [5, 30]),
        "fake_b": FakePaper("fake_b", [8, 40, 12], duration="6s"),
    }
    monkeypatch.setattr(papers, "REPRODUCTIONS", found)
    monkeypatch.setattr(papers, "SECTIONS", {})
    return found


@pytest.fixture
def run_times(tmp_path, monkeypatch) -> Path:
    """The file every executed run appends a line to (aqmlab.sweep.RUN_TIMES_ENV)."""
    path = tmp_path / "run_times.jsonl"
    monkeypatch.setenv(sweep.RUN_TIMES_ENV, str(path))
    return path


def _executed(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [json.loads(x)["run_dir"] for x in path.read_text().splitlines()]


def _comparable(df: pd.DataFrame) -> pd.DataFrame:
    """A runs table without what names where it was written."""
    return df.drop(columns=["run_dir"]).reset_index(drop=True)


def test_every_point_runs_once_and_outputs_equal_the_per_paper_path(
    two_papers, run_times, tmp_path
):
    together = reproduce.reproduce_all(
        quick=True, out_dir=tmp_path / "all", workers=2, progress=False
    )
    ran = _executed(run_times)
    assert len(ran) == len(set(ran)) == 4 + 6  # each distinct point once, through one pool
    assert [o.out_dir.name for o in together] == ["fake_a", "fake_b"]  # the registry's order
    for o in together:
        assert o.report.results and o.seconds > 0 and o.cpu_seconds > 0
    index = (tmp_path / "all" / "index.md").read_text()
    assert "The whole command:" in index and "overlap" in index

    run_times.unlink()
    for rid in two_papers:
        alone = reproduce.reproduce(rid, quick=True, out_dir=tmp_path / "one" / rid, workers=1)
        a, b = tmp_path / "all" / rid, tmp_path / "one" / rid
        assert (a / "claims.json").read_bytes() == (b / "claims.json").read_bytes()
        pd.testing.assert_frame_equal(
            _comparable(pd.read_parquet(a / "runs.parquet")),
            _comparable(pd.read_parquet(b / "runs.parquet")),
        )
        # Same runs, same files: the run directories are named by the points' hashes.
        assert sorted(p.name for p in (a / "runs").iterdir()) == sorted(
            p.name for p in (b / "runs").iterdir()
        )
        assert _comparable(alone.runs).equals(_comparable(pd.read_parquet(a / "runs.parquet")))
        md = (a / "report.md").read_text()
        assert "runs executed" in md and "share one pool" in md
        assert "share one pool" not in (b / "report.md").read_text()


def test_an_interrupted_command_resumes_with_only_what_had_not_finished(
    two_papers, run_times, tmp_path, monkeypatch
):
    out = tmp_path / "all"
    # fake_b (the costlier) runs first; Ctrl-C while its report is written: fake_a's runs
    # have not run (one worker: runs in this process, in submission order).
    real = reproduce._report

    def interrupted(repro, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce, "_report", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reproduce.reproduce_all(quick=True, out_dir=out, workers=1, progress=False)
    first = _executed(run_times)
    assert len(first) == 6 and all("/fake_b/" in d for d in first)
    assert not (out / "index.html").exists() and not (out / "fake_b" / "claims.json").exists()

    monkeypatch.setattr(reproduce, "_report", real)
    run_times.unlink()
    outcomes = reproduce.reproduce_all(quick=True, out_dir=out, workers=2, progress=False)
    second = _executed(run_times)
    assert len(second) == 4 and all("/fake_a/" in d for d in second)
    b = next(o for o in outcomes if o.out_dir.name == "fake_b")
    assert b.runs["cached"].all() and (out / "fake_b" / "claims.json").is_file()
    assert (out / "index.html").is_file()


def test_a_failed_point_in_one_paper_leaves_the_others_report(two_papers, tmp_path):
    bad = two_papers["fake_a"]
    good_points = bad.points

    def with_a_bad_point(quick: bool) -> list[sweep.Point]:
        pts = good_points(quick)
        broken = sc._deep_copy(pts[0].scenario)
        broken["bottleneck"]["buffer"] = -3
        return [*pts, sweep.Point(labels={"buffer": -3, "seed": 1}, scenario=broken)]

    bad.points = with_a_bad_point  # type: ignore[method-assign]
    out = tmp_path / "all"
    with pytest.raises(RuntimeError, match="1 of 5 points failed"):
        reproduce.reproduce_all(quick=True, out_dir=out, workers=2, progress=False)
    runs = pd.read_parquet(out / "fake_a" / "runs.parquet")
    assert len(runs) == 5 and runs["error"].notna().sum() == 1
    assert not (out / "fake_a" / "claims.json").exists()
    assert (out / "fake_b" / "claims.json").is_file()  # the other paper finished
    assert not (out / "index.html").exists()


def test_the_largest_job_goes_first_then_the_smallest_and_runs_longest_first(tmp_path):
    def plan(durations: list[str], name: str) -> sweep.SweepPlan:
        pts = sweep.grid(sc.loads(TINY), {"duration": durations})
        return sweep.SweepPlan(pts, tmp_path / name)

    mid, small, big = (
        plan(["4s", "8s"], "mid"),
        plan(["2s", "3s"], "small"),
        plan(["3s", "9s", "4s"], "big"),
    )
    order = schedule.submission_order([mid, small, big])
    assert [k for k, _ in order] == [2, 2, 2, 1, 1, 0, 0]
    costs = [schedule.expected_cost([mid, small, big][k].texts[h]) for k, h in order]
    assert costs == pytest.approx([s * 2e6 for s in (9, 4, 3, 3, 2, 8, 4)])  # at 2 Mbps


def test_expected_cost_reads_the_resolved_units():
    assert schedule.expected_cost('duration = "180000ms"\n[bottleneck]\nrate = "155Mbps"\n') == (
        pytest.approx(180 * 155e6)
    )
    assert schedule.expected_cost('duration = "2s"\n[bottleneck]\nrate = "64kbps"\n') == (
        pytest.approx(128e3)
    )
    assert schedule.expected_cost("not toml [") == 1.0
    assert schedule.expected_cost('duration = "2s"\n') == 1.0
    # Keys of the same name in other tables are not the run's.
    other = '[flows.on]\nduration = "9s"\n[bottleneck]\nrate = "1Mbps"\n[sink]\nrate = "1Gbps"\n'
    assert schedule.expected_cost(other) == 1.0
    assert schedule.expected_cost('duration = "3s"\n' + other) == pytest.approx(3e6)
    # The core's own text of a scenario.
    text = sweep.resolve_point(sweep.grid(sc.loads(TINY), {})[0])
    assert schedule.expected_cost(text) == pytest.approx(4 * 2e6)


def test_two_jobs_may_not_share_a_directory(tmp_path):
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10]})
    jobs = [schedule.Job(name, pts, tmp_path / "same", lambda runs, t: None) for name in ("a", "b")]
    with pytest.raises(ValueError, match="one directory per sweep"):
        schedule.run_jobs(jobs, workers=1, progress=False)
    assert not (tmp_path / "same").exists()
