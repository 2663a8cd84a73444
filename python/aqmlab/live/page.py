"""What a live run's ``report.html`` and terminal summary add: that it was live, on which
kernel, with which congestion controls, and how punctual the packet loop was."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aqmlab.pages import esc, rows_table


def facts(live: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(fact, value) rows from a summary's ``live`` table."""
    cc = ", ".join(f"{g}: {c}" for g, c in (live.get("cc_by_group") or {}).items())
    ecn = ", ".join(
        f"{g}: {'on' if e else 'off'}" for g, e in (live.get("ecn_by_group") or {}).items()
    )
    check = live.get("sojourn_check") or {}
    rows = [
        ("kernel", str(live.get("kernel", "?"))),
        ("started (UTC)", str(live.get("started_utc", "?"))),
        ("congestion control", cc),
        ("ECN", ecn),
        (
            "bottleneck loop ran / wall clock, s",
            f"{live.get('elapsed_s', 0):.3f} / {live.get('wall_s', 0):.3f}",
        ),
        (
            "packets written late: max / mean, ms",
            f"{live.get('max_late_ms', 0):.3f} / {live.get('mean_late_ms', 0):.4f}",
        ),
        (
            "packet loop priority",
            f"SCHED_FIFO {live['realtime_priority']}"
            if live.get("realtime_priority")
            else "normal",
        ),
        ("loop CPU, s", f"{(live.get('loop') or {}).get('cpu_s', 0):.3f}"),
        (
            "mean sojourn / mean queue over rate, ms",
            f"{check.get('mean_sojourn_ms', 0):.3f} / "
            f"{check.get('mean_queue_bytes_over_rate_ms', 0):.3f}",
        ),
        (
            "CE marks received / ECN-Echo'd deliveries",
            f"{live.get('ce_received', 0)} / {live.get('ece_delivered', 0)}",
        ),
    ]
    if live.get("not_applied"):
        rows.append(("kernel's own values used for", ", ".join(live["not_applied"])))
    if live.get("sender_errors"):
        rows.append(("sender errors", "; ".join(live["sender_errors"])))
    return rows


def section(live: Mapping[str, Any]) -> str:
    """The live run's HTML section."""
    return (
        "<h2>Live run</h2><p>Real Linux TCP in two network namespaces, through aqmlab's "
        "user-space bottleneck running the scenario's qdisc on the wall clock. Goodput counts "
        "the bytes the receivers got (scaled to wire size); counters cover the measured window."
        f"</p>{rows_table(['fact', 'value'], facts(live))}"
        if live
        else esc("")
    )


__all__ = ["facts", "section"]
