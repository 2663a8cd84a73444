"""Sweeps: grids, the run cache, resuming a killed sweep, failed points, plots, Dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from aqmlab import scenario as sc
from aqmlab import sweep
from conftest import ROOT, TINY, run_cli

BASE = sc.loads(TINY)


def _sweep_file(tmp_path: Path, axes: str, extra: str = "") -> Path:
    (tmp_path / "tiny.toml").write_text(TINY)
    p = tmp_path / "sw.toml"
    p.write_text(f'base = "tiny.toml"\n{extra}\n[axes]\n{axes}\n')
    return p


def test_grid_product_and_zip_labels():
    axes = {"bottleneck.buffer": [10, 20, 30], "flows.0.count": [2, 4]}
    pts = sweep.grid(BASE, axes, seeds=[1, 2])
    assert len(pts) == 3 * 2 * 2
    assert pts[0].labels == {"buffer": 10, "count": 2, "algorithm": "droptail", "seed": 1}
    assert pts[-1].scenario["bottleneck"]["buffer"] == 30
    assert pts[-1].scenario["flows"][0]["count"] == 4
    assert pts[-1].scenario["seed"] == 2
    # The base is never edited in place.
    assert BASE["bottleneck"]["buffer"] == 20

    zipped = sweep.grid(BASE, {"bottleneck.buffer": [10, 20], "flows.0.count": [2, 4]}, mode="zip")
    assert [(p.labels["buffer"], p.labels["count"]) for p in zipped] == [(10, 2), (20, 4)]
    with pytest.raises(ValueError, match="equally long"):
        sweep.grid(BASE, {"bottleneck.buffer": [10, 20], "flows.0.count": [2]}, mode="zip")
    with pytest.raises(ValueError, match="mode"):
        sweep.grid(BASE, axes, mode="cartesian")


def test_grid_table_values_label_the_algorithm():
    qdiscs = [{"kind": "red", "gentle": True}, {"kind": "droptail"}]
    pts = sweep.grid(BASE, {"bottleneck.qdisc": qdiscs}, extra_labels={"figure": "x"})
    assert [p.labels["algorithm"] for p in pts] == ["red (gentle)", "droptail"]
    assert all(p.labels["figure"] == "x" for p in pts)


def test_load_sweep_file(tmp_path: Path):
    p = _sweep_file(
        tmp_path,
        '"bottleneck.buffer" = [10, 20]',
        'repetitions = 3\n[set]\nduration = "2s"\n[labels]\n"bottleneck.buffer" = "buf"',
    )
    pts = sweep.load_sweep(p)
    assert len(pts) == 6
    assert sorted({p.labels["seed"] for p in pts}) == [1, 2, 3]
    assert all(p.scenario["duration"] == "2s" for p in pts)
    assert {p.labels["buf"] for p in pts} == {10, 20}
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "tiny.toml"\naxis = {}\n')
    with pytest.raises(ValueError) as e:
        sweep.load_sweep(bad)
    assert e.value.path == "axis"


def test_example_sweep_file_loads():
    pts = sweep.load_sweep(ROOT / "sweeps" / "red_max_p.toml")
    assert len(pts) == 4 * 2 * 2
    for p in pts[:2]:
        sweep.resolve_point(p)  # validates in Rust


def test_run_points_cache_and_table(tmp_path: Path):
    pts = sweep.grid(BASE, {"bottleneck.buffer": [10, 40]}, seeds=[1, 2])
    df = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    assert len(df) == 4
    assert df["error"].isna().all() and not df["cached"].any()
    for col in (
        "utilisation",
        "loss_rate",
        "goodput_mbps.min",
        "delay_ms.p99",
        "drops.overflow",
        "queue_pkts.mean",
        "groups.a.goodput_mbps",
        "buffer",
        "seed",
        "run_dir",
    ):
        assert col in df.columns, col
    assert df["run_dir"].nunique() == 4
    # A bigger buffer holds a longer queue (same seed).
    by = df.set_index(["buffer", "seed"])["queue_pkts.mean"]
    assert by[(40, 1)] > by[(10, 1)]
    mtimes = {d: Path(d, "summary.json").stat().st_mtime_ns for d in df["run_dir"]}
    again = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    assert again["cached"].all()
    assert {d: Path(d, "summary.json").stat().st_mtime_ns for d in again["run_dir"]} == mtimes
    pd.testing.assert_series_equal(again["loss_rate"], df["loss_rate"])
    table = pd.read_parquet(tmp_path / "runs.parquet")
    assert len(table) == 4
    for name in ("flows", "queue", "groups", "links"):
        assert not sweep.load_table(df["run_dir"][0], name).empty, name
    assert "qlen_pkts" in sweep.load_table(df["run_dir"][0], "queue")
    with pytest.raises(KeyError):
        sweep.load_table(df["run_dir"][0], "nope")


def test_a_pool_worker_runs_a_point_without_pandas(tmp_path: Path):
    # A process-pool worker imports aqmlab.sweep for run_one: running and writing a point must
    # not import pandas (~0.7 s of CPU in every worker of every sweep and reproduction).
    run_dir = tmp_path / "run"
    code = (
        "import sys\n"
        "from aqmlab import api, sweep\n"
        f"text = api.validate({str(TINY)!r})\n"
        f"sweep.run_one(text, {str(run_dir)!r})\n"
        "assert 'pandas' not in sys.modules, 'pandas imported by a worker'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sweep.is_complete(run_dir)


def test_same_scenario_twice_runs_once(tmp_path: Path):
    pts = sweep.points_from([({"name": "a"}, BASE), ({"name": "b"}, BASE)])
    df = sweep.run_points(pts, tmp_path, workers=2, progress=False)
    assert len(df) == 2 and df["run_dir"].nunique() == 1
    assert len(list((tmp_path / "runs").iterdir())) == 1


def test_bad_point_reported_and_leaves_no_directory(tmp_path: Path):
    base = sc._deep_copy(BASE)
    base["bottleneck"]["qdisc"] = {"kind": "red", "min_th": 2, "max_th": 10}
    pts = sweep.grid(base, {"bottleneck.qdisc.max_p": [0.1, 1.5]})
    df = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    assert df["error"].isna().tolist() == [True, False]
    assert "bottleneck.qdisc.max_p" in df["error"][1]
    assert df["run_dir"][1] is None or pd.isna(df["run_dir"][1])
    dirs = list((tmp_path / "runs").iterdir())
    assert len(dirs) == 1 and sweep.is_complete(dirs[0])
    with pytest.raises(RuntimeError, match="1 of 2 points failed"):
        sweep.run_points(pts, tmp_path, workers=1, progress=False, on_error="raise")


def test_run_failing_midway_leaves_nothing_complete(tmp_path: Path, monkeypatch):
    import pyarrow.parquet as pq

    calls = {"n": 0}
    real = pq.write_table

    def flaky(table, where, *a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return real(table, where, *a, **k)

    monkeypatch.setattr(pq, "write_table", flaky)
    df = sweep.run_points(sweep.grid(BASE, {}), tmp_path, workers=1, progress=False)
    assert "disk full" in df["error"][0]
    assert list((tmp_path / "runs").iterdir()) == []  # no final dir, no temporary left over


def test_cli_sweep_reports_failed_point(tmp_path: Path):
    p = _sweep_file(tmp_path, '"bottleneck.buffer" = [10, 0]', '[set]\nduration = "2s"')
    r = run_cli("sweep", p, "--out", tmp_path / "out", "--workers", "1", "--no-progress")
    assert r.code == 1
    assert "bottleneck.buffer" in r.stderr and "1 of 2 points failed" in r.stderr
    assert "1 run, 0 cached, 1 failed" in r.stdout
    assert len(pd.read_parquet(tmp_path / "out" / "runs.parquet")) == 2


def test_cli_sweep_writes_a_report_page(tmp_path: Path):
    p = _sweep_file(
        tmp_path, '"bottleneck.buffer" = [10, 40]', 'seeds = [1, 2]\n[set]\nduration = "3s"'
    )
    out = tmp_path / "out"
    r = run_cli("sweep", p, "--out", out, "--workers", "1", "--no-progress")
    assert r.code == 0, r.stderr
    page = (out / "report.html").read_text()
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == 4
    # The plotted metrics against the one numeric axis as small multiples: one figure,
    # embedded, and saved as PNG and SVG.
    assert page.count("data:image/png;base64,") == 1
    assert (out / "figures" / "metrics_vs_buffer.png").is_file()
    assert (out / "figures" / "metrics_vs_buffer.svg").is_file()
    # The points table: a header row and one row per point.
    assert page.count("<tr>") == 1 + 4


def _complete(runs: Path) -> set[str]:
    if not runs.is_dir():
        return set()
    return {d.name for d in runs.iterdir() if sweep.is_complete(d)}


def test_killed_sweep_resumes_without_rerunning(tmp_path: Path):
    # 10 points of a few tenths of a second each, run one at a time so the kill lands midway.
    p = _sweep_file(
        tmp_path,
        '"flows.0.count" = [4, 6, 8, 10, 12, 14, 16, 18, 20, 22]',
        '[set]\nduration = "40s"\n"bottleneck.rate" = "10Mbps"',
    )
    out = tmp_path / "out"
    args = [sys.executable, "-m", "aqmlab", "sweep", str(p), "--out", str(out)]
    proc = subprocess.Popen(
        [*args, "--workers", "1", "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    try:
        while len(_complete(out / "runs")) < 2:
            assert proc.poll() is None, "the sweep finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finished = _complete(out / "runs")
    assert 2 <= len(finished) < 10
    mtimes = {h: (out / "runs" / h / "summary.json").stat().st_mtime_ns for h in finished}

    r = run_cli(*args[3:], "--workers", "2", "--no-progress")
    assert r.code == 0, r.stderr
    table = pd.read_parquet(out / "runs.parquet")
    assert len(table) == 10 and sorted(table["count"]) == list(range(4, 24, 2))
    assert table["run_dir"].nunique() == 10 and table["error"].isna().all()
    assert set(table.loc[table["cached"], "run_dir"].map(lambda d: Path(d).name)) == finished
    assert int(table["cached"].sum()) == len(finished)
    for h, t in mtimes.items():  # finished runs were not run again
        assert (out / "runs" / h / "summary.json").stat().st_mtime_ns == t
    assert len(_complete(out / "runs")) == 10
    assert not [d for d in (out / "runs").iterdir() if d.name.startswith(".")]


def test_cli_plot(tmp_path: Path):
    pts = sweep.grid(BASE, {"bottleneck.buffer": [10, 40]}, seeds=[1, 2])
    sweep.run_points(pts, tmp_path, workers=1, progress=False)
    r = run_cli("plot", tmp_path / "runs.parquet", "--x", "buffer", "--y", "queue_pkts.mean")
    assert r.code == 0, r.stderr
    assert (tmp_path / "queue_pkts.mean_vs_buffer.png").stat().st_size > 1000
    r = run_cli("plot", tmp_path / "runs.parquet", "--x", "nope", "--y", "loss_rate")
    assert r.code == 2 and "nope" in r.stderr


def test_plot_axis_named_like_an_aggregate(tmp_path: Path):
    # A sweep over "flows.0.count" labels its axis "count": plotting against it must work.
    from aqmlab import plots

    runs = pd.DataFrame(
        {"count": [4, 4, 8, 8], "seed": [1, 2, 1, 2], "loss_rate": [0.1, 0.3, 0.2, 0.4]}
    )
    runs.attrs["labels"] = ["count", "seed"]
    fig = plots.metric_vs(runs, "count", "loss_rate", line=None)
    line = fig.axes[0].lines[0]  # the data line (the error-bar caps follow)
    assert list(line.get_xdata()) == [4, 8]
    assert list(line.get_ydata()) == pytest.approx([0.2, 0.3])


def test_plot_lines_split_by_varying_labels(tmp_path: Path):
    from aqmlab import plots

    runs = pd.DataFrame(
        {
            "algorithm": ["red"] * 4,
            "n": [8, 8, 32, 32],
            "max_p": [0.1, 0.2] * 2,
            "seed": 1,
            "loss_rate": [0.01, 0.02, 0.03, 0.04],
            "error": None,
        }
    )
    fig = plots.metric_vs(runs, "max_p", "loss_rate")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["red, n=8", "red, n=32"]


def test_dask_local_cluster(tmp_path: Path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        pts = sweep.grid(BASE, {"bottleneck.buffer": [10, 40]})
        df = sweep.run_points(pts, tmp_path, scheduler=cluster.scheduler_address, progress=False)
    assert df["error"].isna().all() and len(df) == 2
    assert all(sweep.is_complete(Path(d)) for d in df["run_dir"])


def test_cache_key_follows_the_model_identity(monkeypatch: pytest.MonkeyPatch):
    """A run cached by a build with other results (another model identity) is not served."""
    from aqmlab import _core

    text = sweep.resolve_point(sweep.grid(BASE, {}, seeds=[1])[0])
    key = sweep.point_hash(text)
    assert len(_core.scenario_model_id(text)) == 16
    assert sweep.point_hash(text) == key
    monkeypatch.setattr(_core, "scenario_model_id", lambda _text: "0" * 16)
    assert sweep.point_hash(text) != key


def test_run_times_logged_for_executed_runs_only(tmp_path: Path, monkeypatch):
    log = tmp_path / "times.jsonl"
    monkeypatch.setenv(sweep.RUN_TIMES_ENV, str(log))
    pts = sweep.grid(BASE, {"bottleneck.buffer": [10, 40]})
    df = sweep.run_points(pts, tmp_path / "out", workers=1, progress=False)
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert sorted(r["run_dir"] for r in rows) == sorted(df["run_dir"])
    assert all(r["cpu_s"] > 0 and r["wall_s"] > 0 for r in rows)
    sweep.run_points(pts, tmp_path / "out", workers=1, progress=False)  # cached: no new lines
    assert len(log.read_text().splitlines()) == 2
    # The run directories hold nothing more than without the log.
    assert sweep.is_complete(Path(df["run_dir"][0]))


def test_a_swept_run_writes_what_a_run_alone_writes(tmp_path: Path):
    # A sweep's worker skips the destination checks and hashes its files from memory: the
    # files must still be those of a run written alone, and its marker their true manifest.
    from aqmlab import api, output

    text = api.validate(str(TINY))
    swept = tmp_path / "swept"
    sweep.run_one(text, str(swept))
    alone = api.run(text).write(tmp_path / "alone", plots=False)
    for name in ("summary.json", "scenario.toml", *(f"{t}.parquet" for t in sweep.TABLES)):
        assert (swept / name).read_bytes() == (alone / name).read_bytes(), name
    marker = output.read_marker(swept)
    assert marker is not None and marker["files"] == output.manifest(swept)
    assert sweep.is_complete(swept)


def test_a_saved_figure_keeps_its_layout_and_the_svg_the_png_size(tmp_path: Path):
    import re

    from aqmlab import plots

    fig = plots.new_figure(figsize=(4, 3), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1, 2], [3, 1, 2], label="a line")
    ax.set_xlabel("a long axis label to crop around")
    ax.legend()
    engine = fig.get_layout_engine()
    plots.save(fig, tmp_path / "f.png")
    assert fig.get_layout_engine() is engine
    assert "get_tightbbox" not in vars(fig)  # the figure's own method again
    png = (tmp_path / "f.png").read_bytes()
    width_px = int.from_bytes(png[16:20], "big")
    svg = (tmp_path / "f.svg").read_text()
    m = re.search(r'width="([0-9.]+)pt"', svg)
    assert m is not None
    # The same cropped box: inches x 150 dpi (PNG) against points / 72 (SVG), to a pixel.
    assert abs(float(m.group(1)) / 72 * 150 - width_px) <= 1.0
