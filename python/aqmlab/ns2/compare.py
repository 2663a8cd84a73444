"""The metrics both simulators report, their spread over seeds, and a verdict per metric.

Every metric is computed the same way from both sides' raw numbers (per-flow delivered bytes,
bottleneck counters over the measurement window), so a difference is the simulators', not the
bookkeeping's. Verdicts:

- ``agree``: the two seed ranges (min-max) overlap;
- ``within 10%``: the means differ by at most the metric's tolerance (10 % of the larger mean,
  or the metric's absolute tolerance, e.g. 0.05 for the log-log slope);
- ``differs``: neither.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from aqmlab.registry import jain_index

#: (key, label, absolute tolerance used beside the relative 10 %).
METRICS: list[tuple[str, str, float]] = [
    ("utilisation", "utilisation", 0.0),
    ("loss_rate", "loss rate", 0.0),
    ("drops_bottleneck", "drops at the bottleneck (with link loss)", 0.0),
    ("drops_access", "drops on access links (whole run)", 0.0),
    ("jain", "Jain index", 0.0),
    ("queue_mean_pkts", "mean queue (packets)", 0.0),
    ("delay_mean_ms", "mean queueing delay (ms)", 0.0),
    ("goodput_mean_mbps", "mean goodput per flow (Mbps)", 0.0),
    ("slope", "log goodput / log RTT slope", 0.05),
    ("retransmits", "retransmitted packets", 0.0),
    ("timeouts", "timeouts (not right after an ECN cut)", 0.0),
]
REL_TOL = 0.10


@dataclass
class RunMetrics:
    """One run of one simulator."""

    values: dict[str, float]
    goodput_mbps: dict[int, float]  # per flow
    rtt_ms: dict[int, float]


def slope(goodput: list[float], rtt_ms: list[float]) -> float:
    """Least-squares slope of log(goodput) on log(RTT) over flows with goodput > 0."""
    pairs = zip(goodput, rtt_ms, strict=True)
    pts = [(math.log(r), math.log(g)) for g, r in pairs if g > 0 and r > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return float("nan")
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def flow_metrics(goodput: dict[int, float], rtt: dict[int, float]) -> dict[str, float]:
    ids = sorted(goodput)
    g = [goodput[i] for i in ids]
    return {
        "jain": jain_index(g),
        "goodput_mean_mbps": sum(g) / len(g) if g else float("nan"),
        "slope": slope(g, [rtt[i] for i in ids]),
    }


def spread(values: list[float]) -> dict[str, Any]:
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return {
            "mean": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
            "std": 0.0,
            "values": values,
        }
    return {
        "mean": statistics.fmean(vals),
        "min": min(vals),
        "max": max(vals),
        "std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
        "values": values,
    }


def verdict(a: dict[str, Any], b: dict[str, Any], abs_tol: float = 0.0) -> str:
    if any(math.isnan(x) for x in (a["mean"], b["mean"])):
        return "n/a"
    if a["min"] <= b["max"] and b["min"] <= a["max"]:
        return "agree"
    tol = max(REL_TOL * max(abs(a["mean"]), abs(b["mean"])), abs_tol)
    if abs(a["mean"] - b["mean"]) <= tol:
        return "within 10%"
    return "differs"


def table(aqm: list[RunMetrics], ns: list[RunMetrics]) -> list[dict[str, Any]]:
    """One row per metric: both simulators' spread over seeds, the ratio and the verdict."""
    rows = []
    for key, label, abs_tol in METRICS:
        a = spread([r.values.get(key, float("nan")) for r in aqm])
        b = spread([r.values.get(key, float("nan")) for r in ns])
        ratio = (
            a["mean"] / b["mean"]
            if b["mean"] not in (0.0,) and not math.isnan(b["mean"])
            else float("nan")
        )
        if a["mean"] == 0 and b["mean"] == 0:
            ratio = 1.0
        rows.append(
            {
                "metric": key,
                "label": label,
                "aqmlab": a,
                "ns2": b,
                "ratio": ratio,
                "verdict": verdict(a, b, abs_tol),
            }
        )
    return rows


def _fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    if abs(x) >= 0.1:
        return f"{x:.3f}"
    return f"{x:.4g}"


def cell(s: dict[str, Any]) -> str:
    """``mean [min-max]``."""
    if len([v for v in s["values"] if not math.isnan(v)]) <= 1:
        return _fmt(s["mean"])
    return f"{_fmt(s['mean'])} [{_fmt(s['min'])}-{_fmt(s['max'])}]"


def markdown(rows: list[dict[str, Any]], *, title: str, seeds: list[int]) -> str:
    out = [
        f"# aqmlab beside ns-2.35: {title}",
        "",
        f"Seeds {', '.join(map(str, seeds))}; each cell: mean [min-max] over seeds. Verdict: "
        "`agree` = the seed ranges overlap; `within 10%` = the means differ by ≤ 10 %; "
        "`differs` = neither.",
        "",
        "| metric | aqmlab | ns-2 | aqmlab / ns-2 | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['label']} | {cell(r['aqmlab'])} | {cell(r['ns2'])} "
            f"| {_fmt(r['ratio'])} | {r['verdict']} |"
        )
    return "\n".join(out) + "\n"
