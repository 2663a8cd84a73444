"""aqmlab's side of a cross-check: one run's metrics, from its summary and tables."""

from __future__ import annotations

from typing import Any

from aqmlab.xcheck.table import RunMetrics, flow_metrics


def aqmlab_metrics(res: Any, *, timeouts_after_ecn: bool = False) -> RunMetrics:
    """The cross-check metrics of one aqmlab run (an :class:`aqmlab.Results`). The summary
    describes the link the core measured (the dumbbell's bottleneck, or the topology link its
    ``measured_link`` names); access drops come from the links table's ``access.*`` roles.
    ``timeouts_after_ecn``: count the timeouts that follow an ECN reduction too (ns-3 counts
    every entry into its loss state; ns-2 does not count those, see below)."""
    s = res.summary
    flows = res.flows.to_pydict()
    goodput = dict(zip(flows["id"], flows["goodput_mbps"], strict=False))
    rtt = dict(zip(flows["id"], flows["rtt_ms"], strict=False))
    links = res.links.to_pydict()
    roles = zip(links["role"], links["drops"], strict=True)
    access = sum(d for role, d in roles if role.startswith("access."))
    # ns-2's error model sits on the bottleneck link behind the queue and drops into the
    # link's drop target, which the queue monitor counts: its `pdrops_` includes link loss,
    # so aqmlab's count does too (the same packets, counted alike on both sides).
    drops = sum(s["drops"].values())
    values = {
        "utilisation": s["utilisation"],
        "loss_rate": drops / s["arrivals"] if s["arrivals"] else float("nan"),
        "drops_bottleneck": float(drops),
        "drops_access": float(access),
        "marks": float(s["marks"]),
        "queue_mean_pkts": s["queue_pkts"]["mean"],
        "delay_mean_ms": s["delay_ms"]["mean"],
        "retransmits": float(sum(flows["retransmits"])),
        # As ns-2's `nrexmit_` counts them: not those whose previous congestion response was
        # an ECN reduction, which ns-2 answers without counting (`timeout()`'s
        # `CWND_ACTION_ECN` branch).
        "timeouts": float(
            sum(flows["timeouts"]) - (0 if timeouts_after_ecn else sum(flows["timeouts_after_ecn"]))
        ),
    }
    values.update(flow_metrics(goodput, rtt))
    return RunMetrics(values=values, goodput_mbps=goodput, rtt_ms=rtt)
