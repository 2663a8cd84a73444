"""aqmlab: a laboratory for active queue management.

A fast packet-level network simulator (Rust) with every AQM algorithm behind one interface, and
this Python layer: scenarios, runs, results as Arrow tables, plots, and the ``aqmlab`` CLI.

>>> import aqmlab
>>> res = aqmlab.run(aqmlab.example("red"), set={"duration": "20s", "warmup": "5s"}, seed=3)
>>> print(res)                                   # doctest: +ELLIPSIS
Results('30 flows, RTT 20-310 ms, RED', utilisation ..., loss ..., Jain ..., rows: flows 30, ...)
>>> flows = res.flows.to_pandas()                # also res.queue, res.groups, res.links
>>> flows[["goodput_mbps", "delay_mean_ms", "delay_p99_ms", "jitter_ms", "loss_rate"]].shape
(30, 5)
>>> aqmlab.examples()                            # doctest: +ELLIPSIS
{'droptail': ...PosixPath(...droptail.toml'), ...}

``res.write("results/red")`` writes the run's files (summary.json, Parquet tables, figures and
report.html); the command line is ``aqmlab`` (``aqmlab --help``).
"""

from typing import TYPE_CHECKING, Any

from aqmlab._core import ScenarioError
from aqmlab._core import version as _core_version
from aqmlab.api import algorithms, run, schema, validate
from aqmlab.example_scenarios import example, examples
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
    "example",
    "examples",
    "live",
    "metrics",
    "replay",
    "run",
    "schema",
    "validate",
]
