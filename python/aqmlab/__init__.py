"""aqmlab: a laboratory for active queue management.

A fast packet-level network simulator (Rust) with every AQM algorithm behind one interface, and
this Python layer: scenarios, runs, results as Arrow tables, plots, and the ``aqmlab`` CLI.

>>> import aqmlab
>>> res = aqmlab.run("scenarios/demo/red.toml", set=["duration=20s"], seed=3)  # doctest: +SKIP
>>> res.summary["jain_index"], res.flows.to_pandas().head()                  # doctest: +SKIP
"""

from aqmlab._core import ScenarioError
from aqmlab._core import version as _core_version
from aqmlab.api import algorithms, run, schema, validate
from aqmlab.ns2 import crosscheck
from aqmlab.registry import METRICS, metrics
from aqmlab.replay import replay
from aqmlab.results import Results

__version__: str = _core_version()

__all__ = [
    "METRICS",
    "Results",
    "ScenarioError",
    "__version__",
    "algorithms",
    "crosscheck",
    "metrics",
    "replay",
    "run",
    "schema",
    "validate",
]
