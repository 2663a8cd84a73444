"""Every input bounded before it is read or allocated: scenario files by kind and size, every
count and window of the schema by the memory rule of docs/robustness.md."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import aqmlab
from aqmlab import scenario
from conftest import ROOT, run_cli

TINY = ROOT / "scenarios/demo/red.toml"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_without_reading(device):
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    with pytest.raises(aqmlab.ScenarioError, match="device, pipe or socket"):
        scenario.load(device)
    with pytest.raises(aqmlab.ScenarioError, match="device, pipe or socket"):
        aqmlab.validate(Path(device))


def test_cli_refuses_dev_zero_in_one_line():
    res = run_cli("validate", "/dev/zero")
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and "regular scenario file" in res.stderr


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    box: dict[str, BaseException] = {}

    def load() -> None:
        try:
            scenario.load(fifo)
        except BaseException as e:
            box["e"] = e

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "blocked opening a FIFO"
    assert isinstance(box.get("e"), aqmlab.ScenarioError)


def test_files_beyond_the_limit_are_refused_before_reading(tmp_path):
    big = tmp_path / "big.toml"
    with big.open("wb") as f:
        f.truncate(scenario.MAX_FILE_BYTES + 1)  # sparse: nothing to read
    with pytest.raises(aqmlab.ScenarioError, match="bytes"):
        scenario.load(big)
    ok = tmp_path / "ok.toml"
    ok.write_text(TINY.read_text() + "#" * 1000 + "\n")
    assert scenario.load(ok)["bottleneck"]


def test_a_read_stops_at_the_limit(tmp_path):
    # A file that reports a small size but yields more (here: the limit lowered under it).
    p = tmp_path / "s.toml"
    p.write_bytes(b"#" * 5000)
    with pytest.raises(aqmlab.ScenarioError, match="at most"):
        scenario.read_bounded(p, limit=4096)
    assert scenario.read_bounded(p, limit=5000) == b"#" * 5000


def test_toml_text_beyond_the_limit_is_refused():
    with pytest.raises(aqmlab.ScenarioError, match="characters"):
        scenario.loads("#" * (scenario.MAX_FILE_BYTES + 1))


def test_dev_zero_in_a_memory_capped_process_is_an_error_not_an_oom(tmp_path):
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from aqmlab import cli\n"
        "sys.exit(cli.main(['run', '/dev/zero', '--out', sys.argv[1]]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 2, res.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ("flows.0.count=1000000", "flows"),
        ("flows.0.count=100001", "flows"),
        ("flows.0.tcp.initial_window=100000000", "flows.0.tcp.initial_window"),
        ("flows.0.tcp.initial_window=65536", "flows.0.tcp.initial_window"),
    ],
)
def test_counts_and_windows_beyond_the_memory_rule_are_refused(override, path):
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(TINY, set=[override])
    assert e.value.path == path


def test_the_largest_window_runs(tmp_path):
    res = aqmlab.run(TINY, set=["flows.0.count=1", "flows.0.tcp.initial_window=65535"])
    assert res.summary["arrivals"] > 0
