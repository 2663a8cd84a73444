"""Type stubs of the Rust extension module (crates/aqmlab-py).

Checked against the compiled module by ``python -m mypy.stubtest aqmlab._core`` (``make lint``
and ``tests/test_typing.py``): a function added, removed or re-signed in Rust without its stub
here fails the check.
"""

from typing import Any, TypedDict, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Cancelled",
    "RunControl",
    "ScenarioError",
    "_panic_for_test",
    "algorithms",
    "metrics",
    "model_id",
    "replay",
    "run",
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

class Cancelled(Exception):
    """A run cancelled through its :class:`RunControl`; nothing was collected."""

@final
class RunControl:
    """Shared with a running ``run``: ``cancel()`` stops it at its next check (every few
    thousand events); ``sim_time_ns`` is the simulated time it has reached."""

    def __init__(self) -> None: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...
    @property
    def sim_time_ns(self) -> int: ...

def _panic_for_test(inside: bool) -> None:
    """Test hook: panics (inside the core's work, or in the binding); raises RuntimeError."""

_Column = npt.NDArray[np.float64] | npt.NDArray[np.int64] | list[str]

class _RunOutput(TypedDict):
    summary_json: str
    scenario_toml: str
    tables: dict[str, dict[str, _Column]]
    """``flows``, ``queue``, ``groups``, ``links``, ``transfers``: column name -> values."""

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

def validate(toml_text: str) -> str: ...
def metrics() -> list[dict[str, Any]]:
    """The metric registry: ``[{"key", "scope", "label", "short", "unit", "description",
    "better", "headline", "plot", "format"}]``."""

def run(toml_text: str, control: RunControl | None = None) -> _RunOutput: ...
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
    full_queues: bool = False,
) -> list[dict[str, Any]]: ...
