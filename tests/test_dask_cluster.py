"""A sweep on a real Dask cluster: ``dask scheduler`` + 2 ``dask worker`` processes on
127.0.0.1, each worker in a directory of its own, and a relative ``--out``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from aqmlab import scenario as sc
from aqmlab import sweep
from conftest import TINY, run_cli

distributed = pytest.importorskip("distributed")
DASK = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if DASK is None:
        pytest.skip("no dask command")
    base = tmp_path_factory.mktemp("cluster")
    sched_file = base / "scheduler.json"
    procs = [
        subprocess.Popen(
            [
                DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(sched_file),
            ],
            cwd=base,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        for i in range(2):
            wdir = base / f"worker{i}"
            wdir.mkdir()
            procs.append(
                subprocess.Popen(
                    [
                        DASK,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--local-directory",
                        str(wdir),
                    ],
                    cwd=wdir,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with distributed.Client(address, timeout=30) as c:
            c.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_sweep_with_a_relative_out_finishes_every_point(cluster: str, tmp_path: Path):
    (tmp_path / "tiny.toml").write_text(TINY)
    (tmp_path / "sw.toml").write_text(
        'base = "tiny.toml"\n[axes]\n"bottleneck.buffer" = [10, 20, 30, 40]\n'
    )
    r = run_cli(
        "sweep",
        "sw.toml",
        "--out",
        "rel/out",
        "--scheduler",
        cluster,
        "--no-progress",
        cwd=tmp_path,
    )
    assert r.code == 0, r.stderr
    table = pd.read_parquet(tmp_path / "rel" / "out" / "runs.parquet")
    assert len(table) == 4 and table["error"].isna().all()
    assert all(sweep.is_complete(Path(d)) for d in table["run_dir"])


def test_a_client_object_is_accepted(cluster: str, tmp_path: Path):
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [15, 25]})
    with distributed.Client(cluster, timeout=30) as client:
        df = sweep.run_points(pts, tmp_path / "o", client=client, progress=False)
        assert client.status == "running"  # left open for its owner
    assert df["error"].isna().all() and len(df) == 2


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path: Path):
    (tmp_path / "tiny.toml").write_text(TINY)
    (tmp_path / "sw.toml").write_text('base = "tiny.toml"\n[axes]\n"bottleneck.buffer" = [10]\n')
    r = run_cli(
        "sweep", "sw.toml", "--scheduler", "tcp://127.0.0.1:9", "--no-progress", cwd=tmp_path
    )
    assert r.code == 2
    assert "--scheduler" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
