"""The Python API and the binding: run, validate, algorithms, Results, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import aqmlab
from aqmlab import _core
from aqmlab.scenario import tomllib
from conftest import FLOW_KEYS, STABLE_KEYS, TINY


@pytest.fixture(scope="module")
def tiny_results() -> aqmlab.Results:
    return aqmlab.run(TINY)


def test_summary_has_the_stable_keys_and_sane_values(tiny_results):
    s = tiny_results.summary
    assert s.keys() >= STABLE_KEYS
    assert 0.0 < s["utilisation"] <= 1.0
    assert 0.0 <= s["loss_rate"] <= 1.0
    assert 0.0 < s["jain_index"] <= 1.0
    g = s["goodput_mbps"]
    assert 0.0 <= g["min"] <= g["mean"] <= g["max"]
    # Four flows share 2 Mbps: their mean goodput cannot exceed a quarter of it.
    assert g["mean"] <= 2.0 / 4 + 1e-9
    assert s["queue_pkts"]["mean"] >= 0 and s["queue_pkts"]["std"] >= 0
    d = s["delay_ms"]
    assert 0.0 <= d["p50"] <= d["p99"]
    assert s["departures"] <= s["arrivals"]
    assert isinstance(s["drops"], dict)
    assert all(isinstance(v, int) and v >= 0 for v in s["drops"].values())
    assert len(s["flows"]) == 4
    assert s["flows"][0].keys() >= FLOW_KEYS
    assert set(s["groups"]) == {"a"}


def test_summary_json_is_the_cores_string(tiny_results):
    # The summary crosses as a string and is parsed, not rebuilt, on the Python side.
    assert json.loads(tiny_results.summary_json) == tiny_results.summary


def test_tables_have_typed_columns(tiny_results):
    flows = tiny_results.flows
    assert flows.num_rows == 4
    assert {"id", "group", "rtt_ms", "goodput_mbps", "drops", "marks"} <= set(flows.column_names)
    assert str(flows.schema.field("id").type) == "int64"
    assert str(flows.schema.field("rtt_ms").type) == "double"
    assert str(flows.schema.field("group").type) == "string"
    # Base RTT = 2 x (access + bottleneck delay): access delays linear in 2..20 ms.
    rtts = sorted(flows.column("rtt_ms").to_pylist())
    assert rtts == pytest.approx([2 * (a + 5) for a in (2, 8, 14, 20)])
    df = flows.to_pandas()
    per_flow = {f["id"]: f["goodput_mbps"] for f in tiny_results.summary["flows"]}
    for fid, gp in zip(df["id"], df["goodput_mbps"], strict=True):
        assert gp == pytest.approx(per_flow[fid])


def test_queue_is_sampled_every_sample_interval(tiny_results):
    q = tiny_results.queue.to_pandas()
    assert {"t_s", "qlen_pkts", "qlen_bytes"} <= set(q.columns)
    t = q["t_s"].to_numpy()
    assert len(t) > 10
    assert np.allclose(np.diff(t), 0.020)  # the 20 ms default
    assert (q["qlen_pkts"] >= 0).all() and (q["qlen_pkts"] <= 20).all()  # buffer = 20


def test_groups_and_links_tables(tiny_results):
    g = tiny_results.groups.to_pandas()
    assert {"t_s", "group", "goodput_mbps"} <= set(g.columns)
    assert set(g["group"]) == {"a"}
    links = tiny_results.links.to_pandas()
    b = links[links["role"] == "bottleneck"].iloc[0]
    # Conservation at a DropTail bottleneck (drops only before enqueue).
    assert b["arrivals"] == b["enqueued"] + b["drops"]
    assert b["enqueued"] - b["dequeued"] == b["backlog"]


def test_validate_returns_the_resolved_scenario():
    resolved = aqmlab.validate(TINY)
    doc = tomllib.loads(resolved)
    assert doc["bottleneck"]["qdisc"]["kind"] == "droptail"
    assert doc["sample_interval"] == "20ms"  # a default, written out
    assert aqmlab.validate(resolved) == resolved  # resolving is idempotent


def test_scenario_error_carries_path_value_allowed():
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.run(TINY, set=["bottleneck.loss=1.5"])
    err = e.value
    assert isinstance(err, ValueError)
    assert err.path == "bottleneck.loss"
    assert "1.5" in err.value
    assert err.allowed
    assert str(err) == f"{err.path}: {err.value} ({err.allowed})"
    assert aqmlab.ScenarioError is _core.ScenarioError


def test_overrides_and_seed_reach_the_run():
    res = aqmlab.run(TINY, set={"flows.0.count": 3, "flows.0.group": "z"}, seed=7)
    assert res.flows.num_rows == 3
    assert set(res.summary["groups"]) == {"z"}
    assert tomllib.loads(res.scenario_toml)["seed"] == 7


def test_algorithms_are_documented():
    algos = aqmlab.algorithms()
    by_kind = {a["kind"]: a for a in algos}
    assert "droptail" in by_kind
    for a in algos:
        assert a["name"] and a["source"]
        for p in a["params"]:
            assert p["key"] and p["help"]
            assert isinstance(p["default"], str)


def test_runs_in_threads_match_a_run_alone(tiny_results):
    # The core releases the GIL; concurrent runs must not disturb each other.
    out: list[str] = [""] * 3

    def work(i: int) -> None:
        out[i] = aqmlab.run(TINY).summary_json

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [tiny_results.summary_json] * 3


def test_write_puts_every_file_in_place(tiny_results, tmp_path: Path):
    out = tiny_results.write(tmp_path / "res")
    names = {p.name for p in out.iterdir()}
    assert {
        "summary.json",
        "scenario.toml",
        "flows.parquet",
        "queue.parquet",
        "groups.parquet",
        "links.parquet",
        "queue.png",
        "goodput_vs_rtt.png",
        "group_goodput.png",
    } <= names
    assert (out / "summary.json").read_bytes() == tiny_results.summary_json.encode()
    assert (out / "scenario.toml").read_text() == tiny_results.scenario_toml
    for name in ("flows", "queue", "groups", "links", "transfers"):
        back = pq.read_table(out / f"{name}.parquet")
        assert back.schema == tiny_results.table(name).schema
        # (NaN-aware: finite flows' completion_s is NaN for unfinished flows)
        pd.testing.assert_frame_equal(back.to_pandas(), tiny_results.table(name).to_pandas())
    assert (out / "queue.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Only the result directory is left beside it: no temporary directories.
    assert [p.name for p in tmp_path.iterdir()] == ["res"]


def test_write_replaces_an_old_result_whole(tiny_results, tmp_path: Path):
    out = tmp_path / "res"
    tiny_results.write(out, plots=True)  # an earlier result, with plots
    assert (out / "queue.png").exists()
    tiny_results.write(out, plots=False)  # what aqmlab wrote before is replaced whole
    assert not (out / "queue.png").exists()
    assert (out / "summary.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["res"]


def test_failed_write_leaves_nothing(tiny_results, tmp_path: Path, monkeypatch):
    def broken(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match="disk full"):
        tiny_results.write(tmp_path / "res")
    assert list(tmp_path.iterdir()) == []


def test_stubs_match_the_extension():
    import ast

    stub = Path(aqmlab.__file__).with_name("_core.pyi")
    tree = ast.parse(stub.read_text())
    declared = {
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")
    }  # private stub-only types (``_RunOutput`` ...) describe return values
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert declared == public


def test_version_is_the_crates():
    assert aqmlab.__version__ == _core.version()
    assert all(part.isdigit() for part in aqmlab.__version__.split("."))


def test_a_run_and_its_files_need_neither_pandas_nor_eager_pyarrow(tiny_path: Path, tmp_path):
    # `aqmlab run` start-up and Parquet writing stay cheap: importing the package loads no
    # pyarrow (crosscheck's module is loaded on first use), and building and writing the tables
    # never imports pandas (pyarrow's `pa.array` would). A fresh interpreter, so nothing an
    # earlier test imported counts.
    code = (
        "import sys, aqmlab, aqmlab.cli\n"
        "assert 'pyarrow' not in sys.modules, 'pyarrow imported at start-up'\n"
        f"res = aqmlab.run({str(tiny_path)!r})\n"
        f"res.write({str(tmp_path / 'out')!r}, plots=False)\n"
        "assert 'pandas' not in sys.modules, 'pandas imported by a run'\n"
        "assert callable(aqmlab.crosscheck)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    back = pq.read_table(tmp_path / "out" / "flows.parquet")
    assert back.num_rows > 0 and back.schema.field("group").type == "string"


def test_cli_run_json_alone_writes_nothing_and_loads_no_pyarrow(tiny_path: Path, tmp_path):
    # `aqmlab run --json` without --out prints the summary and writes no table: it must not pay
    # for pyarrow (~0.06 s of CPU); its invariants are still checked.
    code = (
        "import contextlib, io, json, sys, aqmlab.cli\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    rc = aqmlab.cli.main(['run', {str(tiny_path)!r}, '--json'])\n"
        "assert rc == 0, rc\n"
        "assert 'pyarrow' not in sys.modules, 'pyarrow imported by run --json'\n"
        "print(json.dumps(json.loads(buf.getvalue())))\n"
    )
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == aqmlab.run(tiny_path).summary
    assert not list(cwd.iterdir())


def test_cli_run_json_no_plots_loads_no_plotting_analysis_or_crosscheck(tiny_path: Path, tmp_path):
    # What `aqmlab run --json --no-plots --out DIR` must not pay for at start or end: pandas,
    # matplotlib, scipy, the ns-2 cross-check package (which imports its translator and
    # pyarrow up front) and the live runs' preflight (subprocess). A fresh interpreter, so
    # nothing an earlier test imported counts.
    out = tmp_path / "out"
    code = (
        "import sys, aqmlab.cli\n"
        f"rc = aqmlab.cli.main(['run', {str(tiny_path)!r}, '--json', '--no-plots', '--out', "
        f"{str(out)!r}])\n"
        "assert rc == 0, rc\n"
        "heavy = ('pandas', 'matplotlib', 'scipy', 'aqmlab.ns2', 'subprocess')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "assert not loaded, f'loaded by the run: {loaded}'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (out / "flows.parquet").is_file() and not list(out.glob("*.png"))
