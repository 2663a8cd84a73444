"""Type stubs of the Rust extension module (crates/aqmlab-py).

Checked against the compiled module by ``python -m mypy.stubtest aqmlab._core`` (``make lint``
and ``tests/test_typing.py``): a function added, removed or re-signed in Rust without its stub
here fails the check.
"""

from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

__all__ = [
    "ScenarioError",
    "algorithms",
    "jain_index",
    "metrics",
    "model_id",
    "replay",
    "run",
    "scenario_model_id",
    "schema_json",
    "schema_markdown",
    "validate",
    "version",
]

class ScenarioError(ValueError):
    """A rejected scenario: ``path`` (dotted key), ``value`` (as written), ``allowed``."""

    path: str
    value: str
    allowed: str

_Column = npt.NDArray[np.float64] | npt.NDArray[np.int64] | list[str]

class _RunOutput(TypedDict):
    summary_json: str
    scenario_toml: str
    tables: dict[str, dict[str, _Column]]
    """``flows``, ``queue``, ``groups``, ``links``, ``transfers``, ``tcp_trace``: column name ->
    values."""

class _ParamDoc(TypedDict):
    key: str
    default: str
    """The default as a TOML value (``0.1``, ``"5ms"``, ``true``), or ``(none)``."""
    help: str

class _AlgorithmDoc(TypedDict):
    kind: str
    name: str
    source: str
    params: list[_ParamDoc]

def version() -> str: ...
def model_id() -> str:
    """Which behaviour of the model this build has (16 hex digits): changes whenever any run's
    results may change, unlike the version."""

def scenario_model_id(toml_text: str) -> str:
    """The model identity one scenario's results depend on (16 hex digits): it follows only the
    qdisc kinds the scenario runs, so adding an algorithm leaves it unchanged."""

def validate(toml_text: str) -> str: ...
def jain_index(values: list[float]) -> float:
    """Jain's fairness index, as the summary computes it (1 for no values or all zero)."""

def metrics() -> list[dict[str, Any]]:
    """The metric registry: ``[{"key", "scope", "label", "short", "unit", "description",
    "better", "headline", "plot", "format"}]``."""

def run(toml_text: str) -> _RunOutput: ...
def algorithms() -> list[_AlgorithmDoc]: ...
def schema_json() -> str: ...
def schema_markdown() -> str: ...
def replay(
    qdisc_toml: str,
    enqueue: list[bool],
    t_ns: list[int],
    size_bytes: list[int],
    flow: list[int],
    ecn_capable: list[bool],
    buffer: int | str,
    link_rate: int | str,
    uniforms: list[float] | None = None,
    seed: int = 0,
    mean_pkt_bytes: int = 1000,
) -> list[dict[str, Any]]: ...
