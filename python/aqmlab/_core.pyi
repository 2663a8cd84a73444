"""Type stubs of the Rust extension module (crates/aqmlab-py).

Checked against the compiled module by ``python -m mypy.stubtest aqmlab._core`` (``make lint``
and ``tests/test_typing.py``): a function added, removed or re-signed in Rust without its stub
here fails the check.
"""

from typing import Any, TypedDict, final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

__all__ = [
    "Cancelled",
    "LiveBottleneck",
    "RunControl",
    "ScenarioError",
    "_panic_for_test",
    "algorithms",
    "jain_index",
    "live_trace_parity",
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

def run(toml_text: str, control: RunControl | None = None) -> _RunOutput: ...
def algorithms() -> list[_AlgorithmDoc]: ...
def schema_json() -> str: ...
def schema_markdown() -> str: ...
def replay(
    qdisc_toml: str,
    op: list[int],
    t_ns: list[int],
    size_bytes: list[int],
    flow: list[int],
    ecn: list[int],
    set_name: list[str],
    set_value: list[float],
    buffer: int | str,
    link_rate: int | str,
    uniforms: list[float] | None = None,
    seed: int = 0,
    mean_pkt_bytes: int = 1000,
    full_queues: bool = False,
) -> list[dict[str, Any]]: ...

@final
class LiveBottleneck:
    """aqmlab's user-space bottleneck between two TUN devices (Linux only; needs root or
    CAP_NET_ADMIN). Packets the kernel sends into ``dev_a`` go through the scenario's qdisc (the
    simulator's own code), a serialiser at ``rate_bps`` and the flow's forward delay, and come
    out of ``dev_b``; packets into ``dev_b`` get the reverse delay only.

    ``config_json`` keys: ``dev_a``, ``dev_b`` (interface names, <= 15 chars), ``rate_bps``,
    ``buffer`` (packets, or a size string such as ``"50KB"``), ``qdisc`` (the scenario's qdisc
    table), and optionally ``ecn`` (folded into the qdisc table), ``seed`` (1), ``mean_pkt_bytes``
    (1000), ``sample_interval_ns`` (20 ms), ``warmup_ns`` (0), ``default_delay_ab_ns`` and
    ``default_delay_ba_ns`` (0: packets of no flow), ``reverse_rate_bps`` (none), ``flows``
    (``[{"id", "proto": "tcp"|"udp", "a_port", "b_port", "delay_ab_ns", "delay_ba_ns"}]``),
    ``trace_path`` (a CSV of every qdisc call and its decision; see ``aqmlab_live::trace``),
    ``realtime_priority`` (run the packet loop's thread SCHED_FIFO at this priority, 1..99, so it
    wakes on time on a loaded machine; null: as called).

    Raises ``ScenarioError`` (key path) for a bad configuration, ``PermissionError`` /
    ``FileNotFoundError`` / ``OSError`` when the TUN devices cannot be made.
    """

    def __new__(cls, config_json: str) -> Self: ...
    def devices(self) -> tuple[str, str]:
        """(dev_a, dev_b) as created."""

    def run(self, seconds: float) -> None:
        """Runs the packet loop for ``seconds`` (GIL released), or until ``stop()``; once per
        object. Raises ``OSError`` on an I/O error, ``KeyboardInterrupt`` on Ctrl-C."""

    def stop(self) -> None:
        """Makes a running ``run()`` return within a few ms (thread-safe)."""

    def result(self) -> dict[str, Any]:
        """The run's counters: ``elapsed_ns``, ``warmup_ns``, ``link``, ``flows``, ``other``,
        ``queue``, ``sojourn_ms``, ``sojourn_check``, ``loop``, ``trace_path``."""

    def close(self) -> None:
        """Closes both devices (they vanish); idempotent."""

def live_trace_parity(config_json: str, trace_path: str) -> dict[str, Any]:
    """Replays a live run's trace with the same qdisc and seed: ``{"events", "mismatches",
    "signals", "first_mismatch"}``."""
