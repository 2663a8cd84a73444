"""Type stubs of the Rust extension module (crates/aqmlab-py)."""

from typing import Any

import numpy as np
import numpy.typing as npt

class ScenarioError(ValueError):
    """A rejected scenario: ``path`` (dotted key), ``value`` (as written), ``allowed``."""

    path: str
    value: str
    allowed: str

Column = npt.NDArray[np.float64] | npt.NDArray[np.int64] | list[str]

def version() -> str: ...
def validate(toml_text: str) -> str: ...
def run(toml_text: str) -> dict[str, Any]:
    """``{"summary_json": str, "scenario_toml": str, "tables": {name: {column: Column}}}``."""

def algorithms() -> list[dict[str, Any]]: ...
def metrics() -> list[dict[str, Any]]:
    """The metric registry: ``[{"key", "scope", "label", "short", "unit", "description",
    "better", "headline", "plot", "format"}]``."""

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
