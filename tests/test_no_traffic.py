"""Boundary values that leave a run without traffic: refused with one line naming the key when
no run could deliver anything, otherwise run and warned (:mod:`aqmlab.diagnose`)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import aqmlab
from aqmlab.diagnose import NoTrafficWarning

SHORT = {"duration": "6s", "warmup": "2s"}


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ({"bottleneck.rate": "0bps"}, "bottleneck.rate"),
        ({"bottleneck.buffer": 0}, "bottleneck.buffer"),
        ({"bottleneck.buffer": "0B"}, "bottleneck.buffer"),
        ({"duration": "2s"}, "warmup"),
        ({"duration": "1s"}, "warmup"),
        ({"bottleneck.loss": 1.0}, "bottleneck.loss"),
        ({"flows.0.count": 0}, "flows.0.count"),
        ({"bottleneck.qdisc.min_th": 0}, "bottleneck.qdisc.min_th"),
        ({"flows.0.tcp.initial_window": 0}, "flows.0.tcp.initial_window"),
    ],
)
def test_values_that_can_only_make_a_black_hole_are_refused(override, path):
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(aqmlab.example("red"), set={**SHORT, **override})
    assert str(e.value).startswith(path)


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ({"bottleneck.rate": "100bps"}, "sent no packet"),
        ({"bottleneck.loss": 0.999}, "dropped all"),
        ({"flows.0.start": "10s"}, "no packet reached"),
        ({"flows.0.access_delay": "100s"}, "no packet reached"),
        ({"bottleneck.delay": "1000s"}, "no data reached any receiver"),
    ],
)
def test_a_run_that_delivers_nothing_is_warned(override, says):
    with pytest.warns(NoTrafficWarning, match=says):
        res = aqmlab.run(aqmlab.example("red"), set={**SHORT, **override}, seed=1)
    assert sum(f["goodput_mbps"] for f in res.summary["flows"]) == 0


def test_a_run_that_delivers_is_not_warned():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoTrafficWarning)
        aqmlab.run(aqmlab.example("red"), set=SHORT, seed=1)


SLOW = ["--set", "duration=6s", "--set", "warmup=2s", "--set", "bottleneck.rate=100bps"]


def test_the_cli_warns_in_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", str(aqmlab.example("red")), "--json", *SLOW],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: the measured link sent no packet")
