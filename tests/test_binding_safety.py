"""The extension never takes the interpreter down: a panic anywhere in a call becomes a
RuntimeError, and a running simulation stops when asked (RunControl)."""

from __future__ import annotations

import threading

import pytest

import aqmlab
from aqmlab import _core, api
from conftest import ROOT


def _long_text() -> str:
    return api.prepare(ROOT / "scenarios/demo/red.toml", set=["duration=100000s"])[0]


@pytest.mark.parametrize("inside", [True, False])
def test_a_panic_is_a_runtime_error_and_the_interpreter_carries_on(inside):
    for _ in range(3):
        with pytest.raises(RuntimeError, match=r"internal error in aqmlab \(a bug\): deliberate"):
            _core._panic_for_test(inside)
    assert aqmlab.validate(ROOT / "scenarios/demo/red.toml")


def test_a_cancelled_control_stops_a_run_in_another_thread():
    control = _core.RunControl()
    box: dict[str, BaseException] = {}

    def work() -> None:
        try:
            _core.run(_long_text(), control)
        except BaseException as e:
            box["e"] = e

    t = threading.Thread(target=work, daemon=True)
    t.start()
    while control.sim_time_ns == 0 and t.is_alive():
        t.join(0.01)
    control.cancel()
    t.join(60)
    assert not t.is_alive(), "the run did not stop"
    assert isinstance(box.get("e"), _core.Cancelled)
    assert control.cancelled and 0 < control.sim_time_ns < 100_000 * 10**9


def test_an_uncancelled_control_gives_the_same_results():
    text = api.prepare(ROOT / "scenarios/demo/red.toml", set=["duration=5s", "warmup=1s"])[0]
    control = _core.RunControl()
    assert _core.run(text, control)["summary_json"] == _core.run(text)["summary_json"]
    assert control.sim_time_ns > 0 and not control.cancelled
