"""The metric registry: every summary metric's key, label, unit and meaning, from the core.

The table lives in Rust (``aqmlab_core::metrics::METRICS``), beside the code that computes the
summary; comparison tables, reports, web pages and plots take their metric names, labels and
units from here. A new metric is one registry entry in the core (plus computing it).

>>> import aqmlab
>>> [m.key for m in aqmlab.METRICS if m.plot]
['utilisation', 'loss_rate', 'jain_index', 'queue_pkts.mean', 'delay_ms.mean']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from aqmlab import _core

Scope = Literal["run", "link"]


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2), defined once, by the core (the summary's
    ``jain_index``): 1 for no values or all zero (nothing is unfairly shared)."""
    return _core.jain_index([float(v) for v in values])


@dataclass(frozen=True)
class Metric:
    """One metric of the summary (see :func:`aqmlab._core.metrics`)."""

    key: str
    scope: str
    label: str
    short: str
    unit: str
    description: str
    better: str
    headline: bool
    plot: bool
    format: str

    @property
    def column(self) -> str:
        """The metric's column in flat tables (``delay_ms.p99`` -> ``delay_ms_p99``)."""
        return self.key.replace(".", "_")

    @property
    def group(self) -> str:
        """The summary key it belongs to (``delay_ms`` for ``delay_ms.p99``)."""
        return self.key.partition(".")[0]

    @property
    def stat(self) -> str:
        """The statistic within its group (``p99``), or empty for a plain value."""
        return self.key.partition(".")[2]

    @property
    def title(self) -> str:
        """A self-contained label: ``queueing delay p99 (ms)``."""
        name = f"{self.label} {self.stat}" if self.stat else self.label
        return f"{name} ({self.unit})" if self.unit else name

    def value(self, entry: Mapping[str, Any]) -> Any:
        """The metric's value in a summary (or a ``links`` entry): NaN when absent; the total
        when the summary holds a breakdown (``drops`` by reason)."""
        v: Any = entry
        for part in self.key.split("."):
            v = v.get(part) if isinstance(v, Mapping) else None
        if isinstance(v, Mapping):
            nums = [x for x in v.values() if isinstance(x, (int, float))]
            return sum(nums) if len(nums) == len(v) else math.nan
        return math.nan if v is None else v

    def fmt(self, v: Any) -> str:
        """``v`` as text, with the metric's format (general when it has none)."""
        if isinstance(v, bool) or v is None:
            return str(v)
        if isinstance(v, int) and not self.format:
            return f"{v:,}"
        if isinstance(v, (int, float)):
            return format(v, self.format or ".4g")
        return str(v)


#: Every metric, in display order.
METRICS: tuple[Metric, ...] = tuple(Metric(**m) for m in _core.metrics())


def metrics(scope: Scope = "run", *, headline: bool | None = None) -> list[Metric]:
    """The metrics of one scope, optionally only the headline ones (or only the others)."""
    return [m for m in METRICS if m.scope == scope and (headline is None or m.headline == headline)]


def plotted() -> list[Metric]:
    """The metrics comparisons and sweep reports plot."""
    return [m for m in METRICS if m.scope == "run" and m.plot]


def grouped(ms: Iterable[Metric]) -> list[list[Metric]]:
    """Consecutive metrics of the same summary key together (``delay_ms.mean``, ``.p50``...)."""
    out: list[list[Metric]] = []
    for m in ms:
        if out and m.stat and out[-1][0].group == m.group:
            out[-1].append(m)
        else:
            out.append([m])
    return out


def group_title(ms: list[Metric]) -> str:
    """``queueing delay mean / p50 / p99 (ms)`` for a group, the metric's title for one."""
    if len(ms) == 1:
        return ms[0].title
    first = ms[0]
    name = f"{first.label} {' / '.join(m.stat for m in ms)}"
    return f"{name} ({first.unit})" if first.unit else name


def keys() -> set[str]:
    """Every run-scope key and its flat column name (to tell metric columns from labels)."""
    return {k for m in metrics("run") for k in (m.key, m.column, m.group)}


__all__ = ["METRICS", "Metric", "group_title", "grouped", "keys", "metrics", "plotted"]
