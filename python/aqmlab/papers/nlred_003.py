"""Reproduction of paper 003's NLRED half: "On the Scalable Fairness and Efficient Active Queue
Management of RED" (``papers/003_edfb7d1401f469aa.txt``), section 5.

What we reproduce:

- Figs. 13-16 (Experiment 1): bottleneck throughput and average queue against the number of
  long-lived TCP flows (5..120) for GRED and NLRED, one curve per ``max_p`` (0.02..0.5).
- Figs. 19-20 (Experiment 2): GRED vs REM vs NLRED at ``max_p`` = 0.1 against the number of flows.
- Fig. 21: throughput against packet size (100..2500 bytes) with 50 flows.

Readings taken where the text is silent (Fig. 12, the topology, is lost; the scenario files
under ``scenarios/papers/nlred_003/`` say the same):

- Bottleneck A -> B 10 Mbps / 20 ms, B -> sink 100 Mbps / 1 ms, sender access links 100 Mbps
  with one-way delays spread evenly over 1..10 ms (base RTTs 44..62 ms, a bandwidth-delay
  product of 55..78 packets, above max_th = 30 so the drop curve matters). Flows start
  uniformly in the first 5 s.
- Given by the text: buffer 120 packets, 1000-byte packets, TCP Reno, w_q 0.002, min_th 10,
  max_th 30, 200 s runs measured over the second 100 s; NLRED's curves are labelled by the
  RED-equivalent max_p (its curve reaches 1.5 max_p at max_th) and it drops everything above
  max_th; GRED is gentle RED; REM has ns-2's defaults (gamma 0.001, alpha 0.1, phi 1.001,
  b* = 20 packets).
- "Throughput" is the bottleneck link's throughput (utilisation x 10 Mbps, retransmissions
  included, as a link counter would see it); "average queue" is the mean of the queue length
  sampled every 20 ms over the measurement window.
- Fig. 21: packet size = TCP segment size (``tcp.mss``). GRED's and NLRED's thresholds and
  buffer stay in packets (120 packets of whatever size). REM runs in byte mode, as the paper
  did ("packet mode shows extremely poor performance"), the way ns-2's ``rem.cc`` does it with
  ``qib_``: arrivals and backlog are counted in bytes and divided by the reference packet size
  ``mean_pktsize_`` = 1000 bytes (ns-2's default and the paper's packet size; our
  ``mean_pkt_size``), the link capacity is counted in 1000-byte packets, each arrival is dropped
  with probability m x size / 1000, and the buffer is ``qlim_`` x 1000 = 120 000 bytes (1200
  packets of 100 bytes, 48 of 2500). REM's average queue is normalised to packets of the
  reference size (queued bytes / 1000) as the paper did; GRED's and NLRED's are in packets.
  Figs. 19-20 run REM in packet mode (ns-2's default); with 1000-byte packets byte mode is
  the same.
- One run (seed 1) per point, as the paper ("each point ... from a single 200 seconds
  simulation").
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd

from aqmlab.reproduce import Report, load_base
from aqmlab.sweep import Point, grid, load_table

ID = "nlred_003"
FLOWS_FULL = [5, 10, 20, 30, 40, 60, 80, 100, 120]
FLOWS_QUICK = [5, 20, 60, 120]
MAX_P_FULL = [0.02, 0.05, 0.1, 0.2, 0.5]
MAX_P_QUICK = [0.02, 0.1, 0.5]
SIZES_FULL = [100, 250, 500, 1000, 1500, 2000, 2500]
SIZES_QUICK = [250, 1000, 2500]
LINK_MBPS = 10.0
NAMES = {"red (gentle)": "GRED", "nlred": "NLRED", "rem": "REM"}


def rem_byte_buffer(rem: dict[str, Any]) -> str:
    """Byte-mode REM's buffer as ``rem.cc`` sizes it: the queue limit in packets times the
    reference packet size ``mean_pktsize_`` (``"120000B"`` for 120 packets of 1000 bytes)."""
    return f"{rem['bottleneck']['buffer'] * rem['bottleneck']['qdisc']['mean_pkt_size']}B"


def _base(name: str, quick: bool) -> dict[str, Any]:
    doc = load_base(ID, name)
    if quick:
        doc = dict(doc, duration="60s", warmup="30s")
    return doc


class Nlred003:
    id = ID
    title = "Paper 003 (NLRED half): nonlinear RED vs GRED and REM"
    paper_file = "003_edfb7d1401f469aa.txt"

    def points(self, quick: bool) -> list[Point]:
        flows = FLOWS_QUICK if quick else FLOWS_FULL
        max_ps = MAX_P_QUICK if quick else MAX_P_FULL
        sizes = SIZES_QUICK if quick else SIZES_FULL
        lab = {"flows.0.count": "n", "bottleneck.qdisc.max_p": "max_p", "flows.0.tcp.mss": "size"}
        pts: list[Point] = []
        for name in ("gred", "nlred"):
            axes: dict[str, list[Any]] = {"flows.0.count": flows, "bottleneck.qdisc.max_p": max_ps}
            pts += grid(_base(name, quick), axes, labels=lab, extra_labels={"figure": "13-16"})
        for name in ("gred", "nlred", "rem"):
            doc = _base(name, quick)
            fixed: dict[str, Any] = {} if name == "rem" else {"bottleneck.qdisc.max_p": 0.1}
            pts += grid(
                doc,
                {"flows.0.count": flows},
                fixed=fixed,
                labels=lab,
                extra_labels={"figure": "19-20", "max_p": 0.1},
            )
            # Fig. 21: REM in byte mode (a byte-limited buffer), the others as before.
            fig21 = {"bottleneck.buffer": rem_byte_buffer(doc)} if name == "rem" else {}
            pts += grid(
                doc,
                {"flows.0.tcp.mss": sizes},
                fixed={**fixed, **fig21, "flows.0.count": 50},
                labels=lab,
                extra_labels={"figure": "21", "max_p": 0.1, "n": 50},
            )
        for p in pts:
            p.labels["algorithm"] = NAMES.get(p.labels["algorithm"], p.labels["algorithm"])
        return pts

    def report(self, runs: pd.DataFrame, rep: Report, quick: bool) -> None:
        _report(runs, rep, quick)


def _report(runs: pd.DataFrame, rep: Report, quick: bool) -> None:
    runs = runs.assign(throughput=LINK_MBPS * runs["utilisation"], queue=runs["queue_pkts.mean"])
    rep.section("Setup and readings")
    rep.text(__doc__.split("Readings taken", 1)[1].split("\n", 1)[1].strip() if __doc__ else "")
    if quick:
        rep.text(
            "**Quick mode**: 60 s runs measured from 30 s, fewer flow counts, max_p values and "
            "packet sizes. Indicative only; run without --quick."
        )

    # ---- Figs. 13-16 ------------------------------------------------------------------------
    rep.section("Figs. 13-16: throughput and average queue vs number of flows")
    e1 = runs[runs["figure"] == "13-16"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True, sharey="row", layout="constrained")
    for col, algo in enumerate(("GRED", "NLRED")):
        d = e1[e1["algorithm"] == algo]
        for i, (mp, c) in enumerate(d.groupby("max_p")):
            c = c.sort_values("n")
            axes[0, col].plot(c["n"], c["throughput"], "o-", ms=3, color=f"C{i}", label=f"{mp:g}")
            axes[1, col].plot(c["n"], c["queue"], "o-", ms=3, color=f"C{i}", label=f"{mp:g}")
        axes[0, col].set_title(f"{algo}: throughput (Fig. {13 + col})")
        axes[1, col].set_title(f"{algo}: average queue (Fig. {15 + col})")
        axes[0, col].set_ylabel("throughput (Mbps)")
        axes[1, col].set_ylabel("average queue (packets)")
        axes[1, col].set_xlabel("number of flows")
        for ax in axes[:, col]:
            ax.grid(True, alpha=0.3)
    axes[0, 0].legend(title="max_p")
    rep.figure(fig, "fig13_16", "Figs. 13-16: GRED and NLRED, throughput and average queue")
    for algo in ("GRED", "NLRED"):
        d = e1[e1["algorithm"] == algo]
        rep.table(
            d.pivot(index="n", columns="max_p", values="throughput").reset_index(),
            f"{algo}: throughput (Mbps) by number of flows (rows) and max_p (columns)",
        )
    spread = (
        e1.groupby(["algorithm", "n"])["throughput"].agg(lambda s: s.max() - s.min()).unstack(0)
    )
    rep.table(
        spread.reset_index(),
        "Spread of throughput over max_p (max - min, Mbps) at each number of flows",
    )
    g, nl = spread["GRED"].mean(), spread["NLRED"].mean()
    rep.claim(
        "NLRED's throughput is less sensitive to the choice of max_p than GRED's (smaller "
        "spread over max_p, averaged over the numbers of flows).",
        nl < g,
        f"mean spread over max_p: NLRED {nl:.3f} Mbps, GRED {g:.3f} Mbps; NLRED smaller at "
        f"{int((spread['NLRED'] < spread['GRED']).sum())} of {len(spread)} flow counts",
    )
    mid = e1[(e1["algorithm"] == "NLRED") & e1["max_p"].isin([0.05, 0.1])]
    if not mid.empty:
        worst = mid.loc[mid["throughput"].idxmin()]
        rep.claim(
            "With max_p = 0.05 to 0.1, NLRED keeps a high throughput (>= 95 % of the link) "
            "regardless of the number of flows.",
            bool(mid["throughput"].min() >= 0.95 * LINK_MBPS),
            f"lowest NLRED throughput at max_p 0.05-0.1: {worst['throughput']:.2f} Mbps "
            f"(n = {int(worst['n'])}, max_p = {worst['max_p']:g}). The paper itself notes a "
            "'short concave phase' of NLRED between 10 and 40 flows (Fig. 19); ours is deeper",
        )
    q = e1.groupby(["algorithm", "n"])["queue"].mean().unstack(0)
    n_small = int(q.index.min())
    rep.claim(
        "With few flows NLRED lets the average queue grow larger than GRED does (mean over "
        f"max_p at the smallest number of flows, {n_small}).",
        bool(q.loc[n_small, "NLRED"] > q.loc[n_small, "GRED"]),
        f"average queue at {n_small} flows: NLRED {q.loc[n_small, 'NLRED']:.1f}, "
        f"GRED {q.loc[n_small, 'GRED']:.1f} packets",
    )

    # ---- Figs. 19-20 ------------------------------------------------------------------------
    rep.section("Figs. 19-20: GRED, REM and NLRED at max_p = 0.1")
    e2 = runs[runs["figure"] == "19-20"]
    fig, (ax_t, ax_q) = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
    for algo, c in e2.groupby("algorithm"):
        c = c.sort_values("n")
        ax_t.plot(c["n"], c["throughput"], "o-", label=algo)
        ax_q.plot(c["n"], c["queue"], "o-", label=algo)
    ax_t.set_ylabel("throughput (Mbps)")
    ax_q.set_ylabel("average queue (packets)")
    for ax in (ax_t, ax_q):
        ax.set_xlabel("number of flows")
        ax.grid(True, alpha=0.3)
    ax_t.legend()
    rep.figure(fig, "fig19_20", "Figs. 19 (throughput) and 20 (average queue) vs number of flows")
    t2 = e2.pivot(index="n", columns="algorithm", values=["throughput", "queue"])
    t2.columns = [f"{a} {'Mbps' if m == 'throughput' else 'queue'}" for m, a in t2.columns]
    rep.table(t2.reset_index(), "Figs. 19-20: throughput (Mbps) and average queue (packets)")
    mean_t = e2.groupby("algorithm")["throughput"].mean()
    order = ", ".join(f"{a} {v:.3f}" for a, v in mean_t.sort_values(ascending=False).items())
    rep.claim(
        "NLRED has the highest overall throughput of the three.",
        mean_t.idxmax() == "NLRED",
        f"mean throughput over the flow counts (Mbps): {order}",
    )
    rep.claim(
        "GRED has the lowest overall throughput of the three.",
        mean_t.idxmin() == "GRED",
        f"mean throughput over the flow counts (Mbps): {order}",
    )
    rem_q = e2[e2["algorithm"] == "REM"].set_index("n")["queue"]
    gred_q = e2[e2["algorithm"] == "GRED"].set_index("n")["queue"]
    rep.claim(
        "REM steers the queue around a fixed target (20 packets): its average queue varies less "
        "with the number of flows than GRED's.",
        bool(rem_q.std() < gred_q.std()),
        f"REM average queue {rem_q.min():.1f}..{rem_q.max():.1f} (std {rem_q.std():.1f}); GRED "
        f"{gred_q.min():.1f}..{gred_q.max():.1f} (std {gred_q.std():.1f}) packets",
    )

    # ---- Fig. 21 ----------------------------------------------------------------------------
    rep.section("Fig. 21: throughput vs packet size (50 flows)")
    e3 = runs[runs["figure"] == "21"]
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    for algo, c in e3.groupby("algorithm"):
        c = c.sort_values("size")
        ax.plot(c["size"], c["throughput"], "o-", label=algo)
    ax.set_xlabel("packet size (bytes)")
    ax.set_ylabel("throughput (Mbps)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    rep.figure(fig, "fig21", "Fig. 21: throughput vs packet size, 50 flows (REM in byte mode)")
    rep.table(
        e3.pivot(index="size", columns="algorithm", values="throughput").reset_index(),
        "Fig. 21: throughput (Mbps) by packet size",
    )
    # REM's reference packet size (rem.cc's mean_pktsize_, `mean_pkt_size` in rem.toml).
    rem = load_base(ID, "rem")
    ref = int(rem["bottleneck"]["qdisc"]["mean_pkt_size"])
    q21 = e3.assign(queue=[_fig21_queue(r, ref) for _, r in e3.iterrows()])
    qt = q21.pivot(index="size", columns="algorithm", values="queue")
    qt = qt.rename(columns={"REM": f"REM ({ref}-B packets)"})
    if "REM" in set(e3["algorithm"]):
        qt["REM (packets)"] = e3[e3["algorithm"] == "REM"].set_index("size")["queue"]
    rep.table(
        qt.reset_index(),
        "Fig. 21: average queue by packet size: GRED and NLRED in packets; byte-mode REM "
        f"normalised to {ref}-byte packets (queued bytes / {ref}) as the "
        "paper did, and in actual packets for comparison",
    )
    rng = e3.groupby("algorithm")["throughput"].agg(lambda s: s.max() - s.min())
    ranges = ", ".join(f"{a} {v:.3f}" for a, v in rng.sort_values().items())
    lows = ", ".join(
        f"{a} {c.loc[c['throughput'].idxmin(), 'throughput']:.2f} Mbps at "
        f"{int(c.loc[c['throughput'].idxmin(), 'size'])} B"
        for a, c in e3.groupby("algorithm")
    )
    rep.claim(
        "NLRED is less sensitive to the packet size than GRED (smaller throughput range over "
        "packet sizes).",
        bool(rng["NLRED"] < rng["GRED"]),
        f"throughput range over packet sizes (Mbps): {ranges}; lowest: {lows}",
    )
    rep.claim(
        "NLRED is less sensitive to the packet size than REM (byte-mode REM, as the paper ran it).",
        bool(rng["NLRED"] < rng["REM"]),
        f"throughput range over packet sizes (Mbps): {ranges}; lowest: {lows}. REM in byte mode "
        f"with reference size {ref} bytes and a {rem_byte_buffer(rem)} buffer, as ns-2's "
        "rem.cc with qib_",
    )


def _fig21_queue(r: pd.Series, ref: int) -> float:
    """A Fig. 21 point's average queue: packets for GRED and NLRED; for byte-mode REM the mean
    queued bytes over the measurement window in packets of the reference size, as the paper
    normalised it ("assumes all the packets are with the same size as the referenced packet
    size")."""
    if r["algorithm"] != "REM":
        return float(r["queue"])
    q = load_table(r["run_dir"], "queue")
    sel = q.loc[q["t_s"] >= float(r["warmup_s"]), "qlen_bytes"]
    return float(sel.mean()) / ref if len(sel) else float("nan")


REPRODUCTION = Nlred003()
