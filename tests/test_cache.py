"""The sweep cache serves a run only if every file is the one aqmlab wrote for that point."""

from __future__ import annotations

import json
import shutil

import pytest

from aqmlab import scenario as sc
from aqmlab import sweep
from conftest import TINY


@pytest.fixture
def two_points(tmp_path):
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10, 20]})
    df = sweep.run_points(pts, tmp_path / "sw", workers=1, progress=False)
    dirs = [tmp_path / "sw" / "runs" / sweep.Path(d).name for d in df["run_dir"]]
    assert all(sweep.is_complete(d) for d in dirs)
    return pts, tmp_path / "sw", dirs


def _damage_truncate(a, b):
    p = a / "flows.parquet"
    p.write_bytes(p.read_bytes()[:-100])


def _damage_edit_summary(a, b):
    s = json.loads((a / "summary.json").read_text())
    s["utilisation"] = s["utilisation"] * 0.9  # still within every invariant
    (a / "summary.json").write_text(json.dumps(s, indent=2))


def _damage_copy_other_point(a, b):
    shutil.rmtree(a)
    shutil.copytree(b, a)


def _damage_extra_file(a, b):
    (a / "queue.parquet.bak").write_bytes(b"x")


@pytest.mark.parametrize(
    "damage", [_damage_truncate, _damage_edit_summary, _damage_copy_other_point, _damage_extra_file]
)
def test_a_damaged_or_foreign_entry_is_detected_and_rerun(two_points, damage):
    pts, out, (a, b) = two_points
    damage(a, b)
    assert not sweep.is_complete(a)
    assert sweep.is_complete(b)
    df = sweep.run_points(pts, out, workers=1, progress=False)
    assert list(df["cached"]) == [False, True]
    assert sweep.is_complete(a)
    assert sc.loads((a / "scenario.toml").read_text())["bottleneck"]["buffer"] == 10
