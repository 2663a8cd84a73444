"""A live run's measurements shaped as a simulated run's results.

The summary has the simulated summary's keys (``utilisation``, ``loss_rate``, ``drops`` by
reason, ``marks``, ``queue_pkts``, ``delay_ms``, ``flows``, ``groups``, ``goodput_mbps``,
``jain_index``, ...), so ``Results.write`` produces the same files and :mod:`aqmlab.compare`
can set a live run beside its simulated twin, plus a ``live`` table saying what ran: kernel,
congestion control per group, wall-clock time, the packet loop's lateness, the queue-delay
check, the keys not applied.

Where the figures come from:

- link counters, queue samples, queueing delays: the bottleneck (over ``[warmup, end)``);
- goodput: bytes each receiver got, in ``series_bin`` bins on the run's clock; payload is scaled
  to wire bytes (``mss / (mss - 52)``), as the simulator counts whole packets with headers;
- retransmits, timeouts (``tcpi_total_rto``), ECN-Echo'd deliveries (``tcpi_delivered_ce``):
  each sender's ``TCP_INFO`` at its end, over the whole run;
- CE-marked packets received: the receivers' namespace counter ``IpExt.InCEPkts``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from aqmlab.live.plan import Plan

#: Drop reasons every simulated summary lists (zeros included).
REASONS = ("early", "forced", "link_loss", "overflow", "policy", "sojourn")


def jain(xs: Sequence[float]) -> float:
    if not xs:
        return 0.0
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else 1.0


def _window_bins(plan: Plan) -> tuple[int, int]:
    first = round(plan.warmup_s / plan.series_bin_s)
    last = math.ceil(plan.duration_s / plan.series_bin_s - 1e-9)
    return first, last


def _flow_rows(
    plan: Plan, bn: Mapping[str, Any], sink: Mapping[str, Any], sender: Mapping[str, Any]
) -> list[dict[str, Any]]:
    window = plan.duration_s - plan.warmup_s
    first, last = _window_bins(plan)
    bflows = bn.get("flows", {})
    by_id = {int(i): k for k, i in enumerate(bflows.get("id", []))}
    sent = {int(r["id"]): r for r in sender.get("flows", []) if "id" in r}
    rows = []
    for f in plan.flows:
        rec = sink.get("flows", {}).get(str(f.id)) or {"bins": [], "bytes": 0, "eof_s": None}
        scale = f.wire_mss / f.payload
        in_window = sum(rec["bins"][first:last])
        k = by_id.get(f.id)

        def col(name: str, k: int | None = k) -> int:
            return int(bflows[name][k]) if k is not None and name in bflows else 0

        s = sent.get(f.id, {})
        info = s.get("tcp_info") or {}
        eof = rec.get("eof_s")
        rows.append(
            {
                "id": f.id,
                "group": f.group,
                "rtt_ms": f.rtt_ms,
                "start_s": f.start_s,
                "goodput_mbps": round(in_window * scale * 8 / window / 1e6, 3) if window else 0.0,
                "delivered_bytes": int(rec["bytes"] * scale),
                "sent": int(info.get("data_segs_out", 0)),
                "retransmits": int(info.get("total_retrans", 0)),
                "timeouts": int(info.get("total_rto", 0)),
                "drops": col("drops"),
                "marks": col("marks"),
                "completion_s": (eof - f.start_s) if eof is not None and f.bytes else math.nan,
                "cc": f.cc,
                "ecn": f.ecn,
                "ece_delivered": int(info.get("delivered_ce", 0)),
                "snd_mss": int(info.get("snd_mss", 0)),
                "srtt_ms": info.get("rtt_us", 0) / 1e3,
                "min_rtt_ms": info.get("min_rtt_us", 0) / 1e3,
                "error": s.get("error") or "",
                "_bins": [b * scale for b in rec["bins"]],
            }
        )
    return rows


def _queue_stats(plan: Plan, queue: Mapping[str, Any]) -> dict[str, Any]:
    t = np.asarray(queue.get("t_s", []), dtype=float)
    q = np.asarray(queue.get("pkts", []), dtype=float)
    sel = q[(t >= plan.warmup_s - 1e-9) & (t <= plan.duration_s + 1e-9)] if len(t) else q
    if len(sel) == 0:
        return {"mean": 0.0, "samples": 0, "std": 0.0}
    return {"mean": float(sel.mean()), "samples": len(sel), "std": float(sel.std())}


def summary(
    plan: Plan,
    bn: Mapping[str, Any],
    sink: Mapping[str, Any],
    sender: Mapping[str, Any],
    live: Mapping[str, Any],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary (simulated keys plus ``live``) and the per-flow rows behind it."""
    rows = _flow_rows(plan, bn, sink, sender)
    link = bn["link"]
    drops = {r: 0 for r in REASONS}
    for r, n in (link.get("drops") or {}).items():
        drops[r] = drops.get(r, 0) + int(n)
    marks = sum(int(n) for n in (link.get("marks") or {}).values())
    arrivals = int(link["arrivals"])
    window = plan.duration_s - plan.warmup_s
    util = link.get("utilisation")
    if util is None:
        util = link["departure_bytes"] * 8 / (plan.rate_bps * window) if window else 0.0
    goodputs = [r["goodput_mbps"] for r in rows]
    groups: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(r["group"] for r in rows):
        g = [r for r in rows if r["group"] == name]
        gp = [r["goodput_mbps"] for r in g]
        groups[name] = {
            "drops": sum(r["drops"] for r in g),
            "flows": len(g),
            "goodput_mbps": round(sum(gp), 3),
            "jain_index": jain(gp),
            "marks": sum(r["marks"] for r in g),
            "mean_goodput_mbps": statistics.fmean(gp),
        }
    soj = bn.get("sojourn_ms") or {}
    out = {
        "arrivals": arrivals,
        "delay_ms": {k: float(soj.get(k) or 0.0) for k in ("mean", "p50", "p99")},
        "departures": int(link["departures"]),
        "drops": drops,
        "duration_s": plan.duration_s,
        "flows": [
            {
                k: r[k]
                for k in (
                    "drops",
                    "goodput_mbps",
                    "group",
                    "id",
                    "marks",
                    "retransmits",
                    "rtt_ms",
                    "timeouts",
                )
            }
            for r in rows
        ],
        "goodput_mbps": {
            "max": max(goodputs),
            "mean": statistics.fmean(goodputs),
            "min": min(goodputs),
        },
        "groups": groups,
        "jain_index": jain(goodputs),
        "loss_rate": sum(drops.values()) / arrivals if arrivals else 0.0,
        "marks": marks,
        "qdisc": str(plan.qdisc.get("kind", "droptail")),
        "queue_pkts": _queue_stats(plan, bn.get("queue", {})),
        "scenario": plan.name,
        "seed": plan.seed,
        "utilisation": min(float(util), 1.0),
        "warmup_s": plan.warmup_s,
        "window_s": window,
        "live": dict(live),
    }
    return out, rows


def tables(
    plan: Plan, bn: Mapping[str, Any], rows: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Columns of the flows, queue, groups and links tables (names as a simulated run's)."""
    flows = {k: [r[k] for r in rows] for k in rows[0] if not k.startswith("_")} if rows else {}
    queue_raw = bn.get("queue", {})
    queue: dict[str, Any] = {
        "t_s": np.asarray(queue_raw.get("t_s", []), dtype=float),
        "qlen_pkts": np.asarray(queue_raw.get("pkts", []), dtype=float),
        "qlen_bytes": np.asarray(queue_raw.get("bytes", []), dtype=float),
    }
    for k, v in queue_raw.items():
        if k not in ("t_s", "pkts", "bytes"):
            queue[k] = np.asarray([math.nan if x is None else x for x in v], dtype=float)
    nbins = max((len(r["_bins"]) for r in rows), default=0)
    t, grp, gp = [], [], []
    for name in dict.fromkeys(r["group"] for r in rows):
        sums = np.zeros(nbins)
        for r in rows:
            if r["group"] == name:
                sums[: len(r["_bins"])] += r["_bins"]
        for i in range(nbins):
            t.append(round((i + 1) * plan.series_bin_s, 9))
            grp.append(name)
            gp.append(round(sums[i] * 8 / plan.series_bin_s / 1e6, 3))
    groups = {"t_s": np.asarray(t, dtype=float), "group": grp, "goodput_mbps": np.asarray(gp)}
    return {"flows": flows, "queue": queue, "groups": groups, "links": _links(plan, bn)}


def _links(plan: Plan, bn: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The forward bottleneck and the reverse path. Whole-run counters when the dataplane
    gives them (``link_run``), else the window's (exact when there is no warmup); without
    either, the backlog column is left out rather than made up."""
    run = bn.get("link_run")
    if run is None and plan.warmup_s == 0:
        run = bn["link"]
    src = run or bn["link"]
    drops = sum(int(n) for n in (src.get("drops") or {}).values())
    marks = sum(int(n) for n in (src.get("marks") or {}).values())
    loop = bn.get("loop", {})
    ba = int(loop.get("packets_ba", 0))
    cols: dict[str, list[Any]] = {
        "link": [0, 1],
        "role": ["bottleneck", "bottleneck_reverse"],
        "rate_bps": [int(plan.rate_bps), 0],
        "arrivals": [int(src["arrivals"]), ba],
        "enqueued": [int(src.get("enqueued", src["arrivals"])), ba],
        "dequeued": [int(src["departures"]), ba],
        "drops": [drops, 0],
        "marks": [marks, 0],
        "tx_packets": [int(src["departures"]), ba],
        "tx_bytes": [int(src.get("departure_bytes", 0)), 0],
        "lost_on_wire": [0, 0],
    }
    if run is not None:
        cols["backlog"] = [int(run.get("backlog_pkts", 0)), 0]
    return cols


__all__ = ["REASONS", "jain", "summary", "tables"]
