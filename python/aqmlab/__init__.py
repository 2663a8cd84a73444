"""aqmlab: a laboratory for active queue management.

A fast packet-level network simulator (Rust) with every AQM algorithm behind one interface, and
this Python layer: scenarios, runs, results as Arrow tables, plots, and the ``aqmlab`` CLI.

>>> import aqmlab
>>> res = aqmlab.run("scenarios/demo/red.toml", set=["duration=20s"], seed=3)  # doctest: +SKIP
>>> res.summary["jain_index"], res.flows.to_pandas().head()                  # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from aqmlab._core import ScenarioError
from aqmlab._core import version as _core_version
from aqmlab.api import algorithms, run, schema, validate
from aqmlab.registry import METRICS, metrics
from aqmlab.replay import replay
from aqmlab.results import Results

if TYPE_CHECKING:
    from aqmlab.live.run import live
    from aqmlab.ns2 import crosscheck

__version__: str = _core_version()


def __getattr__(name: str) -> Any:
    # aqmlab.ns2 imports pyarrow (~0.2 s of CPU): loaded when `aqmlab.crosscheck` is first used,
    # not by every `import aqmlab` (the CLI's start-up).
    if name == "crosscheck":
        from aqmlab.ns2 import crosscheck

        return crosscheck
    if name == "live":  # real kernel TCP through the user-space bottleneck (docs/live.md)
        from aqmlab.live.run import live

        return live
    raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")


__all__ = [
    "METRICS",
    "Results",
    "ScenarioError",
    "__version__",
    "algorithms",
    "crosscheck",
    "live",
    "metrics",
    "replay",
    "run",
    "schema",
    "validate",
]
