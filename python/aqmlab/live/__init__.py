"""Live runs: a scenario with real Linux TCP through aqmlab's user-space bottleneck.

Modules, one job each: :mod:`~aqmlab.live.preflight` (what the machine must offer),
:mod:`~aqmlab.live.plan` (the scenario read as a live run, or the key it cannot express),
:mod:`~aqmlab.live.netns` (``ip`` commands), :mod:`~aqmlab.live.owner` (ownership records and
the removal of killed runs' leftovers), :mod:`~aqmlab.live.session` (one run's network, torn
down on every way out), :mod:`~aqmlab.live.agent` and :mod:`~aqmlab.live.agents` (the load
generator inside the namespaces), :mod:`~aqmlab.live.outcome` (results shaped as a simulated
run's), :mod:`~aqmlab.live.run` (:func:`live`), :mod:`~aqmlab.live.command` (``aqmlab live``).
See docs/live.md.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aqmlab.live.preflight import PreflightError


def __getattr__(name: str) -> Any:
    # The run's modules import numpy, the preflight subprocess: loaded when first used, not by
    # the CLI's start-up (which imports this package for the `live` command's options).
    if name in ("live", "prepare"):
        from aqmlab.live import run

        return getattr(run, name)
    if name == "PreflightError":
        from aqmlab.live.preflight import PreflightError

        return PreflightError
    raise AttributeError(f"module 'aqmlab.live' has no attribute {name!r}")


__all__ = ["PreflightError", "live", "prepare"]
