"""The examples a user copies first: the README's Python block and the package's doctests run as
written, from a directory that is not the repository; the example scenarios ship inside the
package; importing the plots (writing results) leaves matplotlib's backend alone."""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import aqmlab
from aqmlab import api
from aqmlab import example_scenarios as examples
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def test_readme_python_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocks = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert blocks, "README.md has no python block"
    monkeypatch.chdir(tmp_path)  # as a pip user: no scenarios/ directory around
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, "README.md", "exec"), namespace)
    assert (tmp_path / "results" / "red-40s" / "summary.json").is_file()


@pytest.mark.parametrize("module", [aqmlab, api])
def test_docstring_examples_run(module: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


def test_examples_ship_in_the_package():
    found = examples.examples()
    assert {"droptail", "red", "gred", "parking_lot"} <= set(found)
    pkg = Path(aqmlab.__file__).resolve().parent
    for path in found.values():
        assert path.is_relative_to(pkg)
        aqmlab.validate(path)
    with pytest.raises(aqmlab.ScenarioError, match="example: 'nope'"):
        aqmlab.example("nope")


def test_example_command_copies_a_runnable_scenario(tmp_path: Path):
    listed = run_cli("examples", cwd=tmp_path)
    assert listed.code == 0 and "red" in listed.stdout and "parking_lot" in listed.stdout
    shown = run_cli("example", "red", cwd=tmp_path)
    assert shown.code == 0
    assert shown.stdout == examples.example("red").read_text(encoding="utf-8")
    bad = run_cli("example", "nope", cwd=tmp_path)
    assert bad.code == 2 and bad.stderr.count("\n") == 1


def test_demo_runs_from_outside_the_repository(tmp_path: Path):
    out = tmp_path / "demo"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "aqmlab.demo", "--out", str(out)),
            *("--set", "duration=6s", "--set", "warmup=2s"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "report.html").is_file()
    assert {p.name for p in out.iterdir() if p.is_dir()} >= {"droptail", "red", "gred"}


def test_writing_results_leaves_the_matplotlib_backend_alone(tmp_path: Path):
    code = (
        "import matplotlib; matplotlib.use('svg'); import aqmlab;"
        "res = aqmlab.run(aqmlab.example('red'), set={'duration': '3s', 'warmup': '1s'});"
        f"res.write({str(tmp_path / 'r')!r});"
        "import matplotlib.pyplot as plt;"
        "print(matplotlib.get_backend(), len(plt.get_fignums()))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["svg", "0"]
    assert (tmp_path / "r" / "queue.png").is_file()


def test_print_results_is_one_short_line():
    res = aqmlab.run(aqmlab.example("red"), set={"duration": "3s", "warmup": "1s"})
    text = repr(res)
    assert "\n" not in text and len(text) < 300, text
    assert text.startswith("Results('30 flows") and "flows 30" in text


def test_run_json_prints_the_summary_and_writes_nothing(tmp_path: Path):
    scenario = tmp_path / "red.toml"
    scenario.write_text(examples.example("red").read_text(encoding="utf-8"))
    r = run_cli(
        "run", scenario, "--json", "--set", "duration=3s", "--set", "warmup=1s", cwd=tmp_path
    )
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["scenario"] == "30 flows, RTT 20-310 ms, RED"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["red.toml"]
