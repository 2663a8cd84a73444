"""Reproduction of paper 004: Feng, Kandlur, Saha, Shin, "A Self-Configuring RED Gateway"
(``papers/004_618a487a53bfbc7f.txt``).

What we reproduce (ns simulations of sections III and IV):

- Fig. 1(b,c): loss rate against ``max_p`` for 32 and 64 connections, RED signalling by drop,
  beside DropTail. Published: the loss-minimising ``max_p`` at 32 connections is 0.063.
- Fig. 4(a,b): RED with ECN-capable TCP, loss and utilisation against ``max_p`` for 4, 8, 32 and
  64 connections (``max_th`` = queue size = 80 KB), beside DropTail.
- Fig. 2(a,b,c), at 32 connections: the mean queue at the smallest ``max_p`` against
  DropTail's (Fig. 2(a)); the loss-minimising ``max_p`` against the printed 0.063 and the share
  of its drops that are buffer overflows (Fig. 2(b): RED there "eliminate[s] packet loss due to
  buffer overflow"); the mean queue there against the largest ``max_p`` (Fig. 2(c): "a drop in
  the average queue length").
- Figs. 3(a,b) and 5(a,b): RED-ECN queue length with 8 and 32 connections, aggressive and
  conservative early detection; Fig. 5 the conservative setting with 32 connections, ``max_th``
  80 KB in a 120 KB and a 240 KB queue, every packet marked above ``max_th``.
- Figs. 6 and 7: 8 and 32 connections alternating every 40 s, 100 KB queue: static aggressive
  and conservative RED (queue length over time) and the self-configuring RED (queue length and
  ``max_p`` over time).

Readings taken where the text is silent (Fig. 1(a), the topology, is lost; the scenario files
under ``scenarios/papers/adaptive_red_004/`` say the same):

- Links: access n0..n4 -> n5 100 Mbps with one-way delays 1, 3, 5, 7, 9 ms (``hosts = 5``,
  connections spread round robin; with 4 connections, 4 hosts at 1..9 ms), bottleneck n5 -> n6
  10 Mbps / 10 ms, n6 -> n8 100 Mbps / 15 ms. Base RTTs 52..68 ms, a bandwidth-delay product of
  65..85 KB: the scale of the text's own worked example (III.A: "two identical networks with
  bandwidth-delay products of 64KB"). The text names the nodes (§III.A: connections from
  n0..n4 to n8, n5 -> n6 the bottleneck; a node n7 beyond n6 would add only delay) and runs
  every simulated figure on this network (§IV: "the same network as shown in Figure 1(a)"):
  the reproduction reruns every figure (Figs. 1-7, every point and seed) with n6 -> n8 at
  5 ms (base RTTs 32..48 ms), a set-up choice whose verdicts the report sets beside the main
  ones.
- 1000-byte segments (the text's own example uses 1 KB segments), TCP Reno, no window cap.
- Queue of Figs. 1 and 4: 80 KB = 80 packets with ``max_th`` = 80 (III.B: "we set max_th equal
  to the queue size"; Fig. 5's text gives the 80 KB). ``min_th`` = 20 packets (not printed;
  a quarter of ``max_th``, the testbed's 10 KB / 40 KB ratio). ``w_q`` = 0.002. Fig. 1's RED
  sweep is also run with ``min_th`` = max_th / 3 (26.7 packets), a set-up choice whose
  verdicts the report sets beside the main ones.
- Figs. 3 and 5 print no max_p for "aggressive" and "conservative": the testbed's 1.0 and 0.02
  (section V), as for Figs. 6/7. Each is also run at 0.063, the paper's other printed max_p
  (§III.A, Fig. 2(b)): two set-up choices whose verdicts the report sets beside the main ones
  (Fig. 3's runs at 0.063 are Fig. 4's). Fig. 5's marking above ``max_th`` is RED with
  ``hard_drop = false`` and ECN (a full queue still drops).
- Figs. 6/7: 100 packets (100 KB), ``min_th`` 20 / ``max_th`` 80 (Fig. 5's fixed 80 KB max_th),
  ECN on, marking (not dropping) above ``max_th``. "Aggressive" and "conservative" are not given
  for the simulation; we use the testbed's values (section V): ``max_p`` = 1.0 and 0.02. 8
  connections run throughout and 24 more are active in [40, 80] s and [120, 160] s.
- Per-phase loss and utilisation of Figs. 6/7 are the whole run's measurement windows, one per
  40 s phase (the scenario's ``windows``: the summary counts each as it counts its own window).
- Runs: 200 s, measured from 100 s to 200 s, connections starting uniformly in the first 10 s
  (footnote 1); five seeds per point (quick: two, 60 s runs), claims compare per-seed values.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from aqmlab import plots
from aqmlab.claims import (
    Adjective,
    Case,
    Choice,
    Claim,
    Result,
    Vs,
    evaluate,
    ns2_cell,
    ns2_refs,
    versus,
)
from aqmlab.reproduce import Paper, Report, load_base, published
from aqmlab.sweep import Point, grid, load_summary, load_table

ID = "adaptive_red_004"
TITLE = "Paper 004: A Self-Configuring RED Gateway (Feng, Kandlur, Saha, Shin)"
PAPER_FILE = "004_618a487a53bfbc7f.txt"

# ---- experiments ----------------------------------------------------------------------------

MAX_P_FULL = [0.01, 0.016, 0.025, 0.04, 0.063, 0.1, 0.16, 0.25, 0.4, 0.63, 1.0]
MAX_P_QUICK = [0.01, 0.025, 0.063, 0.16, 1.0]
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1, 2)
#: Figs. 6/7: 8 connections, then 32, every 40 s.
PHASES = [(0, 40, 8), (40, 80, 32), (80, 120, 8), (120, 160, 32), (160, 200, 8)]
VARIANTS = {
    "aggressive": {"kind": "red", "max_p": 1.0},
    "conservative": {"kind": "red", "max_p": 0.02},
    "self-config": {"kind": "self_config_red", "max_p": 0.02},
}
LINK_MBPS = 10.0
#: Fig. 3(a,b): connections; Fig. 5(a,b): queue limits (KB = packets of 1000 bytes).
FIG3_N = (8, 32)
#: Suffix of the figure label of runs on the other reading of Fig. 1(a)'s lost last link
#: n6 -> n8 (5 ms instead of 15 ms; the set-up choice LAST_LINK): "1-5ms", "dt-5ms", ...
SHORT = "-5ms"
#: The scenario override of that reading.
SHORT_SINK = {"sink.delay": "5ms"}
FIG6_SHORT = "6" + SHORT
FIG3_BUFFER = 80.0
#: Figure label of Fig. 1's RED runs with min_th = max_th / 3 (the set-up choice MIN_TH).
FIG1_MIN_TH = "1-minth"
MIN_TH_OTHER = round(80 / 3, 1)
FIG5_BUFFERS = (120, 240)
#: Figs. 3 and 5 print no max_p: the paper's other printed value (§III.A: the loss-minimising
#: 0.063 of Fig. 2(b)) read as "aggressive" or as "conservative" (the set-up choices
#: FIG3_AGGRESSIVE and FIG35_CONSERVATIVE); their runs carry the figure label "3-maxp" / "5-maxp".
MAX_P_PRINTED = 0.063
FIG35_ALT = "-maxp"


def _quick_time(doc: dict[str, Any], quick: bool) -> dict[str, Any]:
    if quick:
        doc = dict(doc, duration="60s", warmup="30s")
    return doc


def _with_qdisc(base: dict[str, Any], q: dict[str, Any]) -> dict[str, Any]:
    doc = dict(base)
    doc["bottleneck"] = dict(base["bottleneck"])
    doc["bottleneck"]["qdisc"] = {**base["bottleneck"]["qdisc"], **q}
    if q["kind"] == "red":
        for k in ("alpha", "beta"):
            doc["bottleneck"]["qdisc"].pop(k, None)
    return doc


# ---- runs -----------------------------------------------------------------------------------


def _fig1_4_points(
    drop: dict[str, Any],
    ecn: dict[str, Any],
    dt: dict[str, Any],
    quick: bool,
    suffix: str,
    sink: dict[str, Any],
) -> list[Point]:
    """Figs. 1 and 4 and DropTail beside them, figure labels ending in ``suffix`` (the last
    link's reading, ``sink`` its override)."""
    max_ps = MAX_P_QUICK if quick else MAX_P_FULL
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    n4 = [8, 32] if quick else [4, 8, 32, 64]
    n1 = [32, 64]
    pts: list[Point] = []
    for n in sorted(set(n4) | set(n1)):
        # Five hosts, or one per connection when there are fewer than five (4 connections).
        fixed = {"flows.0.count": n, "flows.0.hosts": min(5, n), **sink}
        lab = {"bottleneck.qdisc.max_p": "max_p"}
        for fig_id, doc, axes in (
            ("1", drop, {"bottleneck.qdisc.max_p": max_ps} if n in n1 else None),
            ("dt", dt, {}),
            ("4", ecn, {"bottleneck.qdisc.max_p": max_ps} if n in n4 else None),
        ):
            if axes is None:
                continue
            extra: dict[str, Any] = {"figure": fig_id + suffix, "n": n}
            pts += grid(doc, axes, seeds=seeds, fixed=fixed, labels=lab, extra_labels=extra)
    return pts


def _fig3_5_points(
    ecn: dict[str, Any],
    seeds: Sequence[int],
    max_p: dict[str, float],
    suffix: str,
    sink: dict[str, Any],
) -> list[Point]:
    """Fig. 3: RED-ECN queue length with aggressive and conservative early detection at 8 and
    32 connections; Fig. 5: the conservative setting with 32 connections, max_th 80 KB in a
    120 KB and a 240 KB queue, deterministic marking above max_th. ``max_p`` gives the settings
    run (name -> max_p), labels end in ``suffix``."""
    pts: list[Point] = []
    for name, mp in max_p.items():
        for n in FIG3_N:
            fig3: dict[str, Any] = {
                "flows.0.count": n,
                "flows.0.hosts": 5,
                "bottleneck.qdisc.max_p": mp,
                **sink,
            }
            extra = {"figure": "3" + suffix, "variant": name, "n": n}
            pts += grid(ecn, {}, seeds=seeds, fixed=fig3, extra_labels=extra)
    if "conservative" not in max_p:
        return pts
    for buf in FIG5_BUFFERS:
        fig5: dict[str, Any] = {
            "flows.0.count": 32,
            "flows.0.hosts": 5,
            "bottleneck.buffer": buf,
            "bottleneck.qdisc.max_p": max_p["conservative"],
            "bottleneck.qdisc.hard_drop": False,
            **sink,
        }
        extra = {"figure": "5" + suffix, "variant": "conservative", "n": 32, "buffer_kb": buf}
        pts += grid(ecn, {}, seeds=seeds, fixed=fig5, extra_labels=extra)
    return pts


def points(quick: bool) -> list[Point]:
    max_ps = MAX_P_QUICK if quick else MAX_P_FULL
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    drop = _quick_time(load_base(ID, "red_drop"), quick)
    ecn = _quick_time(load_base(ID, "red_ecn"), quick)
    dt = _quick_time(load_base(ID, "droptail"), quick)
    static = {name: cast(float, VARIANTS[name]["max_p"]) for name in ("aggressive", "conservative")}
    pts: list[Point] = []
    # Every figure on Fig. 1(a)'s network twice: the last link n6 -> n8 at 15 ms and at 5 ms
    # (the set-up choice LAST_LINK; Figs. 6/7 below).
    for suffix, sink in (("", {}), (SHORT, SHORT_SINK)):
        pts += _fig1_4_points(drop, ecn, dt, quick, suffix, sink)
        pts += _fig3_5_points(ecn, seeds, static, suffix, sink)
    # Figs. 3 and 5 with max_p 0.063 as aggressive and as conservative (FIG3_AGGRESSIVE,
    # FIG35_CONSERVATIVE; Fig. 3's are Fig. 4's runs at 0.063, served once by the run cache).
    alt = {name: MAX_P_PRINTED for name in static}
    pts += _fig3_5_points(ecn, seeds, alt, FIG35_ALT, {})
    # Fig. 1's RED with the other min_th (the set-up choice MIN_TH): the same sweep.
    for n in (32, 64):
        other: dict[str, Any] = {
            "flows.0.count": n,
            "flows.0.hosts": min(5, n),
            "bottleneck.qdisc.min_th": MIN_TH_OTHER,
        }
        pts += grid(
            drop,
            {"bottleneck.qdisc.max_p": max_ps},
            seeds=seeds,
            fixed=other,
            labels={"bottleneck.qdisc.max_p": "max_p"},
            extra_labels={"figure": FIG1_MIN_TH, "n": n},
        )
    # Figs. 6/7: one run per setting and seed, its time series and one measurement window
    # per phase (loss, utilisation: the summary's `windows`, read by `phase_windows`).
    base = load_base(ID, "load_change")
    phases = PHASES[1:3] if quick else PHASES[1:]
    base = dict(base, windows=[[f"{t0}s", f"{t1}s"] for t0, t1, _ in phases])
    # The same with the lost last link n6 -> n8 at 5 ms (the set-up choice LAST_LINK).
    for fig, sink_doc in (("6", None), (FIG6_SHORT, {"rate": "100Mbps", "delay": "5ms"})):
        for name, q in VARIANTS.items():
            doc = _with_qdisc(base, q)
            if sink_doc is not None:
                doc["sink"] = sink_doc
            extra = {"figure": fig, "variant": name, "phase": "all"}
            pts += grid(doc, {}, seeds=seeds, extra_labels=extra)
    return pts


# ---- measurements ---------------------------------------------------------------------------


def _max_p_at(q: pd.DataFrame, x: float) -> float:
    t = q["t_s"].to_numpy()
    i = int(np.searchsorted(t, x, side="right")) - 1
    return float(q["max_p"].iloc[max(i, 0)])


def max_p_moves(q: pd.DataFrame, phases: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    """max_p at the start and end of each phase after the first (one queue table)."""
    return [
        {"phase": f"{t0}-{t1} s", "n": n, "start": _max_p_at(q, t0), "end": _max_p_at(q, t1 - 0.01)}
        for t0, t1, n in phases
    ]


def phase_windows(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per measurement window of each whole Figs. 6/7 run (the summary's ``windows``):
    the run's labels with ``phase`` "t0-t1s", ``n`` the phase's connections, and the window's
    ``loss_rate`` and ``utilisation``."""
    conns = {(t0, t1): n for t0, t1, n in PHASES}
    rows = []
    whole = runs[runs["figure"].isin(["6", FIG6_SHORT]) & (runs["phase"] == "all")]
    for _, r in whole.iterrows():
        for w in load_summary(r["run_dir"]).get("windows", []):
            t0, t1 = round(float(w["start_s"])), round(float(w["end_s"]))
            rows.append(
                {
                    **{k: r[k] for k in ("figure", "variant", "seed", "run_dir")},
                    "phase": f"{t0}-{t1}s",
                    "n": conns[(t0, t1)],
                    "loss_rate": float(w["loss_rate"]),
                    "utilisation": float(w["utilisation"]),
                }
            )
    return pd.DataFrame(rows)


class Data:
    """The runs, and per-seed values the claims read."""

    def __init__(self, runs: pd.DataFrame, quick: bool) -> None:
        if "run_dir" in runs and "phase" in runs:
            runs = pd.concat([runs, phase_windows(runs)], ignore_index=True)
        self.runs = runs.assign(n=runs["n"].astype("Int64"))
        self.phases = PHASES[1:3] if quick else PHASES[1:]
        self._traces: dict[int, pd.DataFrame] = {}
        #: The same figures with n6 -> n8 at 5 ms (LAST_LINK's other reading), where run: an
        #: explanation may set the default's numbers beside them.
        self.short: Data | None = None

    def sel(self, figure: str, **eq: Any) -> pd.DataFrame:
        d = self.runs[self.runs["figure"] == figure]
        for k, v in eq.items():
            d = d[np.isclose(d[k].astype(float), v)] if isinstance(v, float) else d[d[k] == v]
        if d.empty:
            raise KeyError(f"no runs: figure {figure}, {eq}")
        return d

    def per_seed(self, figure: str, col: str, **eq: Any) -> list[float]:
        d = self.sel(figure, **eq)
        return [float(v) for v in d.groupby("seed")[col].mean().sort_index()]

    def ns(self, figure: str) -> list[int]:
        return sorted(int(n) for n in self.sel(figure)["n"].dropna().unique())

    def max_ps(self, figure: str) -> list[float]:
        return sorted(float(p) for p in self.sel(figure)["max_p"].unique())

    def curve(self, figure: str, n: int, col: str) -> pd.DataFrame:
        """seed x max_p table of ``col``."""
        d = self.sel(figure, n=n)
        return d.pivot_table(index="seed", columns="max_p", values=col)

    def trace(self, seed: int) -> pd.DataFrame:
        if seed not in self._traces:
            r = self.sel("6", variant="self-config", phase="all")
            r = r[r["seed"] == seed]
            self._traces[seed] = load_table(r["run_dir"].iloc[0], "queue")
        return self._traces[seed]

    def seeds6(self) -> list[int]:
        return sorted(int(s) for s in self.sel("6", variant="self-config", phase="all")["seed"])


# ---- claims ---------------------------------------------------------------------------------


#: 'slight', 'slightly', 'marginal', 'approach' read on one scale: within a fifth (ours; the
#: paper prints no Fig. 1 numbers to take it from).
SLIGHT = 0.2


def _dt(d: Data, n: int) -> list[float]:
    return d.per_seed("dt", "loss_rate", n=n)


def _c_small_max_p(d: Data) -> list[Case]:
    out = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate")
        lo = c[min(c.columns)].to_numpy()
        out.append(Case(f"{n} conn.", list(lo / np.array(_dt(d, n))), 1.0))
    return out


def _c_marginal(d: Data) -> list[Case]:
    """Per load: RED's lowest loss over max_p within a fifth below DropTail's, and its highest
    within a fifth above (an impact either way)."""
    out = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate")
        dt = np.array(_dt(d, n))
        out.append(Case(f"{n} conn., lowest", list(c.min(axis=1).to_numpy() / dt), 1 - SLIGHT))
        out.append(
            Case(f"{n} conn., highest", [1 + SLIGHT] * len(dt), list(c.max(axis=1).to_numpy() / dt))
        )
    return out


def _c_decrease_slight(d: Data) -> list[Case]:
    """Per load: the lowest loss below the loss at the smallest max_p, and by less than a fifth
    ('slightly') of it."""
    out = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate")
        lo, first = c.min(axis=1), c[min(c.columns)]
        out.append(versus(f"{n} conn., decrease", list, Vs(lo, first)))
        out.append(versus(f"{n} conn., slight", list, Vs((1 - SLIGHT) * first, lo)))
    return out


def _c_large_max_p_slight(d: Data) -> list[Case]:
    """Per load: RED's loss at the largest max_p above DropTail's, and by less than a fifth
    ('slight')."""
    out = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate")
        red, dt = list(c[max(c.columns)]), _dt(d, n)
        out.append(Case(f"{n} conn., increase", red, dt))
        out.append(Case(f"{n} conn., slight", [(1 + SLIGHT) * x for x in dt], red))
    return out


#: Base RTT of Figs. 1 and 4 (ms): twice the mean access delay (5 ms) + 10 ms + 15 ms.
BASE_RTT_MS = 2 * (5 + 10 + 15)
#: Transmission time of one 1000-byte packet on the 10 Mbps bottleneck (ms).
PKT_MS = 1000 * 8 / (LINK_MBPS * 1e3)


def _why_large_max_p(d: Data, r: Result) -> str:
    parts = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate").mean()
        q = d.curve("1", n, "queue_pkts.mean").mean()
        top = max(c.index)
        red, dt = float(c[top]), float(np.mean(_dt(d, n)))
        q_red, q_dt = float(q[top]), float(np.mean(d.per_seed("dt", "queue_pkts.mean", n=n)))
        rtt_red, rtt_dt = BASE_RTT_MS + PKT_MS * q_red, BASE_RTT_MS + PKT_MS * q_dt
        parts.append(
            f"{n} conn.: RED at max_p {top:g} loses {100 * red:.2f} % against DropTail's "
            f"{100 * dt:.2f} % (x{red / dt:.2f}); its mean queue is {q_red:.0f} packets against "
            f"{q_dt:.0f}, a mean RTT of about {rtt_red:.0f} against {rtt_dt:.0f} ms, by which "
            f"Eq. 2's loss ~ 1/RTT^2 would grow up to x{(rtt_dt / rtt_red) ** 2:.2f}"
        )
    short = ""
    if d.short is not None and "1" in set(d.short.runs["figure"]):
        ratios = []
        for n in d.short.ns("1"):
            c = d.short.curve("1", n, "loss_rate").mean()
            ratios.append(f"x{float(c[max(c.index)]) / float(np.mean(_dt(d.short, n))):.2f}")
        short = (
            f" With the lost last link n6 -> n8 at 5 ms instead (base RTTs 32..48 ms, the set-up "
            f"choice on Fig. 1(a)'s delays) RED at the largest max_p loses {' / '.join(ratios)} "
            f"DropTail's at {' / '.join(str(n) for n in d.short.ns('1'))} connections: the lost "
            "delays do not account for the gap alone."
        )
    return (
        "; ".join(parts) + ": the increase follows the queue (and RTT) RED removes, the paper's "
        "own mechanism (Fig. 2(c)); with 80-packet queues on base RTTs of 52..68 ms the queue is "
        "a large part of the RTT, so the increase is more than slight." + short + " Why the "
        "paper's was slight is unexplained."
    )


def _drop_shares(d: Data, n: int, max_p: float) -> tuple[list[float], list[float]]:
    """Per seed at one Fig. 1 point: the shares of the drops that are early (RED's decision,
    forced drops included) and buffer overflows."""
    s = d.sel("1", n=n, max_p=max_p).sort_values("seed")
    early = (s["drops.early"] + s["drops.forced"]).to_numpy(dtype=float)
    ov = s["drops.overflow"].to_numpy(dtype=float)
    tot = np.maximum(early + ov, 1.0)
    return list(early / tot), list(ov / tot)


def _c_drop_composition(d: Data) -> list[Case]:
    out = []
    for n in d.ns("1"):
        ps = d.max_ps("1")
        out.append(Case(f"{n} conn., max_p {ps[-1]:g}: early", _drop_shares(d, n, ps[-1])[0], 0.5))
        out.append(Case(f"{n} conn., max_p {ps[0]:g}: overflow", _drop_shares(d, n, ps[0])[1], 0.5))
    return out


def _n2(d: Data) -> int:
    """Fig. 2's load: 32 connections (or the first Fig. 1 load run)."""
    return 32 if 32 in d.ns("1") else d.ns("1")[0]


def _c_fig2a(d: Data) -> list[Case]:
    """Fig. 2(a) at 32 connections: RED's mean queue at the smallest max_p over DropTail's."""
    n = _n2(d)
    q = d.curve("1", n, "queue_pkts.mean")
    dt = np.array(d.per_seed("dt", "queue_pkts.mean", n=n))
    return [Case(f"{n} conn., max_p {min(q.columns):g}", list(q[min(q.columns)] / dt), 1.0)]


def _c_fig2b_argmin(d: Data) -> list[Case]:
    """Fig. 2(b): the loss-minimising max_p at 32 connections against the printed 0.063
    (log10, per seed)."""
    n = _n2(d)
    pub = published(f"{ID}.text")["max_p_minimising_loss_32_connections"]
    return [Case(f"{n} conn.", _argmin(d, n), math.log10(pub), f"{pub}")]


def _c_queue_falls(d: Data) -> list[Case]:
    """Fig. 2(c) at 32 connections: mean queue at the largest max_p against the mean queue at
    each seed's loss-minimising max_p (Fig. 2(b))."""
    n = 32 if 32 in d.ns("1") else d.ns("1")[0]
    c = d.curve("1", n, "loss_rate")
    q = d.curve("1", n, "queue_pkts.mean")
    at_min = [float(q.loc[s, row.idxmin()]) for s, row in c.iterrows()]
    return [Case(f"{n} conn.", list(q[max(q.columns)]), at_min)]


def _c_rtt_falls(d: Data) -> list[Case]:
    """Fig. 2(c) at 32 connections: the mean queueing delay of a packet at the bottleneck (the
    part of the RTT the queue sets; the links' delays are fixed) at the largest max_p against
    each seed's loss-minimising max_p."""
    n = _n2(d)
    c = d.curve("1", n, "loss_rate")
    w = d.curve("1", n, "delay_ms.mean")
    at_min = [float(w.loc[s, row.idxmin()]) for s, row in c.iterrows()]
    return [Case(f"{n} conn.", list(w[max(w.columns)]), at_min)]


def _c_ecn_better(d: Data) -> list[Case]:
    """Per load run with both: RED-ECN's lowest loss over max_p against RED-drop's."""
    out = []
    for n in sorted(set(d.ns("1")) & set(d.ns("4"))):
        ecn = d.curve("4", n, "loss_rate").min(axis=1)
        drop = d.curve("1", n, "loss_rate").min(axis=1)
        out.append(versus(f"{n} conn.", list, Vs(ecn, drop)))
    return out


def _argmin(d: Data, n: int) -> list[float]:
    c = d.curve("1", n, "loss_rate")
    return [math.log10(float(c.columns[int(np.argmin(row))])) for row in c.to_numpy()]


def _c_argmin(d: Data) -> list[Case]:
    ns = d.ns("1")
    a, b = ns[0], ns[-1]
    pub = published(f"{ID}.text")["max_p_minimising_loss_32_connections"]
    return [
        versus(
            f"log10 argmin, {b} vs {a} conn.", _argmin, d, Vs(b, a), published=f"{pub} at 32 conn."
        )
    ]


def _c_between_linear_quadratic(d: Data) -> list[Case]:
    ns = d.ns("1")
    a, b = ns[0], ns[-1]
    k = [math.log(y / x) / math.log(b / a) for x, y in zip(_dt(d, a), _dt(d, b), strict=True)]
    return [
        Case(f"exponent {a} -> {b} conn., above linear", k, 1.0),
        Case(f"exponent {a} -> {b} conn., below quadratic", [2.0 - x for x in k], 0.0),
    ]


def _dt_slope(d: Data) -> list[float]:
    """Per seed: the least-squares exponent k of DropTail's loss ~ N^k over Fig. 4's loads."""
    ns = d.ns("dt")
    x = np.log(np.array(ns, dtype=float))
    y = np.log(np.array([_dt(d, n) for n in ns]))  # loads x seeds
    return [float(np.polyfit(x, y[:, j], 1)[0]) for j in range(y.shape[1])]


def _c_dt_proportional(d: Data) -> list[Case]:
    ns = d.ns("dt")
    return [Case(f"k over N = {ns[0]}..{ns[-1]}", _dt_slope(d), 1.0)]


def _why_dt_proportional(d: Data, r: Result) -> str:
    ns = d.ns("dt")
    loss = [100 * float(np.mean(_dt(d, n))) for n in ns]
    local = [
        f"{ns[i]} -> {ns[i + 1]}: "
        f"{math.log(loss[i + 1] / loss[i]) / math.log(ns[i + 1] / ns[i]):.2f}"
        for i in range(len(ns) - 1)
        if loss[i] > 0 and loss[i + 1] > 0
    ]
    return (
        "DropTail's loss grows faster than N: "
        + ", ".join(f"{x:.2f} %" for x in loss)
        + f" at N = {', '.join(str(n) for n in ns)} (exponent {r.cases[0].lhs:.2f}; between "
        + "neighbouring loads "
        + ", ".join(local)
        + "): nearest proportional between the largest loads, steeper at the few-connection "
        "end; the paper's own §III.A puts the same DropTail runs between linear and quadratic "
        "(claim fig1-dt-between)."
    )


def _overflow_at_argmin(d: Data, n: int) -> tuple[list[float], list[float]]:
    """Per seed: the loss-minimising max_p of Fig. 1 at n connections and the share of that
    run's drops that were buffer overflows."""
    c = d.curve("1", n, "loss_rate")
    ov = d.curve("1", n, "drops.overflow")
    tot = ov + d.curve("1", n, "drops.early") + d.curve("1", n, "drops.forced")
    arg, share = [], []
    for seed, row in c.iterrows():
        mp = float(row.idxmin())
        arg.append(mp)
        share.append(float(ov.loc[seed, mp] / max(float(tot.loc[seed, mp]), 1.0)))
    return arg, share


def _c_fig2b(d: Data) -> list[Case]:
    n = 32 if 32 in d.ns("1") else d.ns("1")[0]
    _, share = _overflow_at_argmin(d, n)
    pub = published(f"{ID}.text")["max_p_minimising_loss_32_connections"]
    return [Case(f"{n} conn., at the loss-minimising max_p", share, 0.01, f"max_p {pub}")]


def _why_fig2b(d: Data, r: Result) -> str:
    n = 32 if 32 in d.ns("1") else d.ns("1")[0]
    arg, share = _overflow_at_argmin(d, n)
    c = d.curve("1", n, "loss_rate").mean()
    ov = d.curve("1", n, "drops.overflow").mean()
    clean = [float(p) for p in c.index if float(ov[p]) < 1.0]
    tail = ""
    if clean:
        p0 = min(clean)
        tail = (
            f"; overflow stops (under one drop per run) only from max_p {p0:g}, where the loss "
            f"is {100 * float(c[p0]):.2f} % against the minimum {100 * float(c.min()):.2f} %: "
            "in aqmlab the loss minimum lies where early drops have not yet taken over from "
            "overflow, not where overflow ends"
        )
    return (
        f"the loss-minimising max_p per seed is {', '.join(f'{x:g}' for x in arg)}, where "
        f"{100 * float(np.mean(share)):.0f} % of the drops ({float(np.mean(ov[c.idxmin()])):.0f} "
        f"per run) are still overflows{tail}."
    )


def _q_stats(d: Data, figure: str, **eq: Any) -> dict[str, list[float]]:
    """Per seed, over the measurement window: share of queue samples with an empty queue, mean
    and largest queue (packets)."""
    sel = d.sel(figure, **eq).sort_values("seed")
    out: dict[str, list[float]] = {"empty": [], "mean": [], "max": [], "full": []}
    for _, r in sel.iterrows():
        q = load_table(r["run_dir"], "queue")
        q = q[q["t_s"] >= float(r["warmup_s"])]["qlen_pkts"]
        out["empty"].append(float((q == 0).mean()))
        out["mean"].append(float(q.mean()))
        out["max"].append(float(q.max()))
        buf = float(r["buffer_kb"]) if pd.notna(r.get("buffer_kb")) else FIG3_BUFFER
        out["full"].append(float((q >= 0.9 * buf).mean()))
    return out


def _empty_share(d: Data, figure: str, buffer_kb: int | None) -> list[float]:
    """Fig. 5 (queue ``buffer_kb``) or Fig. 3(b) (conservative, 32 connections): per seed, the
    share of queue samples with an empty queue."""
    if figure == "5":
        return _q_stats(d, "5", buffer_kb=buffer_kb)["empty"]
    return _q_stats(d, "3", variant="conservative", n=32)["empty"]


def _shortfall(d: Data, figure: str, buffer_kb: int | None) -> list[float]:
    """As :func:`_empty_share`, per seed 1 - utilisation."""
    if figure == "5":
        u = d.per_seed("5", "utilisation", buffer_kb=buffer_kb)
    else:
        u = d.per_seed("3", "utilisation", variant="conservative", n=32)
    return [1 - x for x in u]


def _f3(d: Data, variant: str, n: int, col: str) -> list[float]:
    return d.per_seed("3", col, variant=variant, n=n)


def _loss_and_shortfall(d: Data, variant: str, n: int) -> list[Case]:
    """Fig. 3's 'avoid packet loss' and 'high utilization' read as loss under 0.1 % and a
    utilisation shortfall under 5 %."""
    return [
        Case("loss %", [100 * x for x in _f3(d, variant, n, "loss_rate")], 0.1),
        Case("1 - utilisation", [1 - x for x in _f3(d, variant, n, "utilisation")], 0.05),
    ]


def _c_like_droptail(d: Data) -> list[Case]:
    """Fig. 3(b), 32 connections: the conservative RED-ECN queue's loss and mean queue over
    DropTail's with the same connections and seeds."""
    out = []
    for col, name in (("loss_rate", "loss"), ("queue_pkts.mean", "mean queue")):
        red = np.array(_f3(d, "conservative", 32, col))
        dt = np.array(d.per_seed("dt", col, n=32))
        out.append(Case(f"{name} over DropTail's", list(red / dt), 1.0))
    return out


def _small(d: Data) -> list[int]:
    return [n for n in d.ns("4") if n <= 8]


def _large(d: Data) -> list[int]:
    return [n for n in d.ns("4") if n >= 32]


def _c_few_loss(d: Data) -> list[Case]:
    return [
        Case(f"{n} conn.", list(d.curve("4", n, "loss_rate").max(axis=1)), 0.01) for n in _small(d)
    ]


#: 'significantly ... at times' (Fig. 3(a)) and 'fairly long periods' (Fig. 5) of an empty,
#: underused link: at least one point of the time more than the setting compared (ours).
AT_TIMES = 0.01
#: 'full utilization' read as a shortfall under 1 % (ours).
FULL_UTIL = 0.99
#: 'avoid' / 'prevent packet loss' read as a loss under 0.1 % (ours, as Fig. 3's claims).
NO_LOSS = 0.001


def _c_few_util(d: Data) -> list[Case]:
    """'only small values of max_p can keep the bottleneck link at full utilization': per load,
    the smallest max_p at full utilisation, the largest below it."""
    out = []
    for n in _small(d):
        c = d.curve("4", n, "utilisation")
        out.append(Case(f"{n} conn., smallest max_p full", list(c[min(c.columns)]), FULL_UTIL))
        out.append(
            Case(
                f"{n} conn., largest max_p not full", [FULL_UTIL] * len(c), list(c[max(c.columns)])
            )
        )
    return out


def _c_many_util(d: Data) -> list[Case]:
    return [
        Case(f"{n} conn.", list(d.curve("4", n, "utilisation").min(axis=1)), 0.95)
        for n in _large(d)
    ]


def _c_many_loss(d: Data) -> list[Case]:
    """'only large values of max_p are able to prevent packet loss': per load, the largest
    max_p under the no-loss line, the smallest above it."""
    out = []
    for n in _large(d):
        c = d.curve("4", n, "loss_rate")
        out.append(Case(f"{n} conn., largest max_p", list(c[max(c.columns)]), NO_LOSS))
        out.append(Case(f"{n} conn., smallest max_p", [NO_LOSS] * len(c), list(c[min(c.columns)])))
    return out


def _phase(d: Data, variant: str, n: int, col: str) -> list[float]:
    w = d.sel("6", variant=variant)
    w = w[(w["phase"] != "all") & (w["n"] == n)]
    return [float(v) for v in w.groupby("seed")[col].mean().sort_index()]


def _phase_empty(d: Data, variant: str, n: int) -> list[float]:
    """Per seed: the share of queue samples with an empty queue in the n-connection phases of a
    whole Figs. 6/7 run."""
    out = []
    for _, r in d.sel("6", variant=variant, phase="all").sort_values("seed").iterrows():
        q = load_table(r["run_dir"], "queue")
        t = q["t_s"]
        inside = np.zeros(len(q), dtype=bool)
        for t0, t1, k in d.phases:
            if k == n:
                inside |= ((t >= t0) & (t < t1)).to_numpy()
        out.append(float((q["qlen_pkts"].to_numpy()[inside] == 0).mean()))
    return out


def _phase_well(d: Data, variant: str, n: int) -> list[Case]:
    """'performs well' in the n-connection phases: loss under 0.1 % and a utilisation shortfall
    under 5 % (Fig. 3's 'avoid packet loss' and 'high link utilization')."""
    return [
        Case("loss %", [100 * x for x in _phase(d, variant, n, "loss_rate")], 100 * NO_LOSS),
        Case("1 - utilisation", [1 - x for x in _phase(d, variant, n, "utilisation")], 0.05),
    ]


def _why_rises(d: Data, r: Result) -> str:
    parts = []
    for t0, t1, k in d.phases:
        if k != 32:
            continue
        f = [_max_p_at(d.trace(s), t1 - 0.01) / _max_p_at(d.trace(s), t0) for s in d.seeds6()]
        parts.append(f"{t0}-{t1} s: x{', x'.join(f'{x:.3g}' for x in f)}")
    return (
        "max_p's factor over each 32-connection phase, per seed: "
        + "; ".join(parts)
        + ". Fig. 8 raises max_p by beta = 2 each time the average crosses max_th, so a phase "
        "with one crossing doubles it exactly, the boundary of the 'at least doubles' reading."
    )


def _why_full(d: Data, r: Result) -> str:
    st = _q_stats(d, "3", variant="conservative", n=32)
    return (
        "the queue is at 90 % of its 80 packets or more in "
        + ", ".join(f"{100 * x:.0f}" for x in st["full"])
        + " % of the samples per seed (mean queue "
        + ", ".join(f"{x:.0f}" for x in st["mean"])
        + " packets, empty in "
        + ", ".join(f"{100 * x:.1f}" for x in st["empty"])
        + " %): it never drains, but sits near full about half the time, at the line drawn for "
        "'close to fully occupied'."
    )


def _phase_avg(d: Data, variant: str, n: int) -> list[float]:
    """Per seed: RED's average queue (packets), the mean of its samples in the n-connection
    phases of a whole Figs. 6/7 run."""
    out = []
    for _, r in d.sel("6", variant=variant, phase="all").sort_values("seed").iterrows():
        q = load_table(r["run_dir"], "queue")
        if "avg" not in q:
            raise KeyError(f"no average queue in the queue table of {r['run_dir']}")
        t = q["t_s"]
        inside = np.zeros(len(q), dtype=bool)
        for t0, t1, k in d.phases:
            if k == n:
                inside |= ((t >= t0) & (t < t1)).to_numpy()
        out.append(float(q["avg"].to_numpy()[inside].mean()))
    return out


def _thresholds() -> tuple[float, float]:
    """min_th and max_th of Figs. 6/7 (packets)."""
    qd = load_base(ID, "load_change")["bottleneck"]["qdisc"]
    return float(qd["min_th"]), float(qd["max_th"])


def _c_avg_around(d: Data) -> list[Case]:
    """§IV: the too aggressive setting's average sits around min_th, the too conservative one's
    around max_th: Fig. 6's aggressive RED with 8 connections (too aggressive there, Fig. 6(a))
    and conservative RED with 32 (too conservative, Fig. 6(b))."""
    lo, hi = _thresholds()
    return [
        Case("aggressive, 8 conn., around min_th", _phase_avg(d, "aggressive", 8), lo),
        Case("conservative, 32 conn., around max_th", _phase_avg(d, "conservative", 32), hi),
    ]


def _c_moves(d: Data, n: int, rising: bool) -> list[Case]:
    out = []
    for t0, t1, k in d.phases:
        if k != n:
            continue
        start = [_max_p_at(d.trace(s), t0) for s in d.seeds6()]
        end = [_max_p_at(d.trace(s), t1 - 0.01) for s in d.seeds6()]
        lhs, rhs = (end, start) if rising else (start, end)
        out.append(Case(f"{t0}-{t1} s", [math.log10(x) for x in lhs], [math.log10(x) for x in rhs]))
    return out


def _swapped(c: Case) -> Case:
    """``c`` with its two sides exchanged (both per-seed lists, as ``_c_moves`` makes them)."""
    rhs = c.rhs if isinstance(c.rhs, Sequence) else [c.rhs]
    return Case(c.label, rhs, c.lhs)


CLAIMS: list[Claim] = [
    Claim(
        id="fig1-small-max-p",
        where="§III.A, Fig. 1(b,c)",
        quote="For small values of max_p, early detection is ineffective and the loss rates in the "
        "RED queue approach loss rates in the drop-tail queue.",
        metric="RED's loss at the smallest max_p over DropTail's",
        lhs_name="ratio",
        op="~",
        rhs_name="1",
        tolerance=0.2,
        tolerance_source="ours: 'approach' read as within 20 %",
        measure=_c_small_max_p,
    ),
    Claim(
        id="fig1-marginal",
        where="§III.A, Fig. 1(b,c)",
        quote="As the Figure 1 shows, RED has only a marginal impact on the packet loss rates "
        "observed.",
        metric="RED's loss over DropTail's, the lowest and the highest over max_p",
        lhs_name="lowest (and 1.2)",
        op=">",
        rhs_name="0.8 (and highest)",
        tolerance_source="ours: 'marginal' read as RED's loss within a fifth of DropTail's at "
        "every max_p, below and above (the fifth that reads 'approach' and 'slight')",
        measure=_c_marginal,
        explain=_why_large_max_p,
    ),
    Claim(
        id="fig1-decrease",
        where="§III.A, Fig. 1(b,c)",
        quote="As max_p is increased, loss rates decrease slightly",
        metric="RED's lowest loss vs its loss at the smallest max_p; 'slightly': the lowest above "
        "0.8 x the loss at the smallest max_p",
        lhs_name="lowest (and 0.8 x at the smallest)",
        op="<",
        rhs_name="at the smallest max_p (and lowest)",
        tolerance_source="ours: 'slightly' read as by less than a fifth",
        measure=_c_decrease_slight,
    ),
    Claim(
        id="fig1-large-max-p",
        where="§III.A, Fig. 1(b,c)",
        quote="Finally, as max_p becomes large, the RED queue causes a slight increase in packet "
        "loss rates over drop-tail queues.",
        metric="loss rate at the largest max_p; 'slight': RED below 1.2 x DropTail",
        lhs_name="RED (and 1.2 x DropTail)",
        op=">",
        rhs_name="DropTail (and RED)",
        tolerance_source="ours: 'slight' read as by less than a fifth",
        measure=_c_large_max_p_slight,
        explain=_why_large_max_p,
    ),
    Claim(
        id="fig1-drop-composition",
        where="§III.A, Fig. 1(b,c)",
        quote="When extremely large values of max_p are used, packet loss rates are dominated by "
        "drops due to early detection, while with extremely small values of max_p packet loss "
        "is mostly due to queue overflow.",
        metric="share of RED's drops that are early (largest max_p) and overflows (smallest "
        "max_p), per seed",
        lhs_name="share",
        op=">",
        rhs_name="1/2",
        tolerance_source="ours: 'dominated by' and 'mostly' read as more than half of the drops",
        measure=_c_drop_composition,
    ),
    Claim(
        id="fig1-argmin-grows",
        where="§III.A, Fig. 1(b,c)",
        quote="As more connections are added, the optimal value of max_p increases.",
        metric="log10 of the loss-minimising max_p (per seed)",
        lhs_name="more connections",
        op=">",
        rhs_name="fewer",
        measure=_c_argmin,
    ),
    Claim(
        id="fig1-dt-between",
        where="§III.A, Fig. 1",
        quote="From the drop-tail experiments in Figure 1, the observed loss rates show a "
        "dependence on the number of connections which is somewhere between linear and "
        "quadratic.",
        metric="exponent k of DropTail's loss ~ N^k between the two Fig. 1 loads",
        lhs_name="k (and 2 - k)",
        op=">",
        rhs_name="1 (and 0)",
        measure=_c_between_linear_quadratic,
    ),
    Claim(
        id="fig2a-droptail-like",
        where="§III.A, Fig. 2(a)",
        quote="When max_p is small as in Figure 2(a), early detection is ineffective and the "
        "behavior of the RED queue approaches that of a drop-tail queue.",
        metric="RED's mean queue at the smallest max_p over DropTail's (Fig. 2 plots the queue), "
        "Fig. 1's 32 connections",
        lhs_name="ratio",
        op="~",
        rhs_name="1",
        tolerance=SLIGHT,
        tolerance_source="ours: 'approaches' read as within 20 %, as claim fig1-small-max-p",
        measure=_c_fig2a,
    ),
    Claim(
        id="fig2b-argmin",
        where="§III.A, Fig. 2(b)",
        quote="Figure 2(b) shows the queue length plot for the max_p value which minimizes packet "
        "loss (0.063).",
        metric="log10 of the loss-minimising max_p at 32 connections (per seed)",
        lhs_name="log10 argmin",
        op="~",
        rhs_name="log10 0.063",
        tolerance=0.1,
        tolerance_source="ours: half a step of the full max_p grid (0.2 decade): the grid point "
        "nearest the printed 0.063 is 0.063",
        measure=_c_fig2b_argmin,
    ),
    Claim(
        id="fig2b-no-overflow",
        where="§III.A, Fig. 2(b)",
        quote="Figure 2(b) shows the queue length plot for the max_p value which minimizes packet "
        "loss (0.063). In this case, the RED algorithm is sufficiently aggressive to eliminate "
        "packet loss due to buffer overflow",
        metric="share of the drops that are buffer overflows at the loss-minimising max_p (per "
        "seed), Fig. 1's 32 connections",
        lhs_name="overflow share",
        op="<",
        rhs_name="1 %",
        tolerance_source="ours: 'eliminate' read as under 1 % of the drops",
        measure=_c_fig2b,
        explain=_why_fig2b,
    ),
    Claim(
        id="fig2c-queue-falls",
        where="§III.A, Fig. 2(c)",
        quote="Finally, as max_p increases even further as shown in Figure 2(c), RED becomes more "
        "aggressive in its early detection leading to a drop in the average queue length.",
        metric="mean queue (packets), Fig. 1's 32 connections, RED (drop)",
        lhs_name="largest max_p",
        op="<",
        rhs_name="loss-minimising max_p (Fig. 2(b))",
        unit="pkts",
        measure=_c_queue_falls,
    ),
    Claim(
        id="fig2c-rtt-falls",
        where="§III.A, Fig. 2(c)",
        quote="RED becomes more aggressive in its early detection leading to a drop in the average "
        "queue length. Consequently, the round-trip times seen by TCP connections also drop.",
        metric="mean queueing delay of a packet at the bottleneck, the part of the RTT the queue "
        "sets (the links' delays are fixed), Fig. 1's 32 connections, RED (drop)",
        lhs_name="largest max_p",
        op="<",
        rhs_name="loss-minimising max_p (Fig. 2(b))",
        unit="ms",
        measure=_c_rtt_falls,
    ),
    Claim(
        id="ecn-more-effective",
        where="§III (overview of III.A and III.B)",
        quote="Although, RED is more effective when used with ECN enabled connections, packet "
        "losses are still significant.",
        metric="RED's lowest loss rate over max_p, with ECN (Fig. 4) and with drop (Fig. 1)",
        lhs_name="RED-ECN",
        op="<",
        rhs_name="RED (drop)",
        measure=_c_ecn_better,
    ),
    Claim(
        id="fig4-dt-grows",
        where="§III.B, Fig. 4(a)",
        quote="As the drop-tail results show, loss rates at the bottleneck link increase "
        "proportionally to the number of connections using the link.",
        metric="exponent k of DropTail's loss ~ N^k, least squares over Fig. 4's loads (log-log)",
        lhs_name="k",
        op="~",
        rhs_name="1",
        tolerance=0.25,
        tolerance_source="ours: 'proportionally' read as k within 1 ± 0.25: over Fig. 4's "
        "16-fold range of N, at most a factor of 2 from proportional",
        measure=_c_dt_proportional,
        explain=_why_dt_proportional,
    ),
    Claim(
        id="fig4-few-loss-low",
        where="§III.B, Fig. 4(a)",
        quote="for small numbers of connections, loss rates remain low across all values of max_p",
        metric="RED-ECN's highest loss rate over max_p (4 and 8 connections)",
        lhs_name="highest loss",
        op="<",
        rhs_name="1 %",
        tolerance_source="ours: 'low' read as below 1 %",
        measure=_c_few_loss,
    ),
    Claim(
        id="fig4-few-util",
        where="§III.B, Fig. 4(b)",
        quote="while only small values of max_p can keep the bottleneck link at full utilization",
        metric="RED-ECN's utilisation at the smallest max_p (above 0.99) and at the largest "
        "(below 0.99), 4 and 8 connections",
        lhs_name="smallest max_p (and 0.99)",
        op=">",
        rhs_name="0.99 (and largest max_p)",
        tolerance_source="ours: 'full utilization' read as above 99 %",
        measure=_c_few_util,
    ),
    Claim(
        id="fig4-many-util",
        where="§III.B, Fig. 4(b)",
        quote="In contrast, for large numbers of connections, bottleneck link utilizations remain "
        "high across all values of max_p",
        metric="RED-ECN's lowest utilisation over max_p (32 and 64 connections)",
        lhs_name="lowest",
        op=">",
        rhs_name="0.95",
        tolerance_source="ours: 'high' read as above 95 %",
        measure=_c_many_util,
    ),
    Claim(
        id="fig4-many-loss",
        where="§III.B, Fig. 4(a)",
        quote="and only large values of max_p are able to prevent packet loss.",
        metric="RED-ECN's loss at the largest max_p (below 0.1 %) and at the smallest (above "
        "0.1 %), 32 and 64 connections",
        lhs_name="largest max_p (and 0.1 %)",
        op="<",
        rhs_name="0.1 % (and smallest max_p)",
        tolerance_source="ours: 'prevent packet loss' read as a loss under 0.1 % (Fig. 3's 'avoid "
        "packet loss')",
        measure=_c_many_loss,
    ),
    Claim(
        id="fig3a-aggressive-8-empty",
        where="§III.B, Fig. 3(a)",
        quote="when only 8 connections are active, aggressive early detection ... causing the "
        "offered load to be significantly smaller at times than the bottleneck link bandwidth. "
        "This causes periodic underutilization where the queue is empty",
        metric="share of queue samples with an empty queue, and utilisation shortfall, 8 "
        "connections, RED-ECN",
        lhs_name="aggressive (max_p 1)",
        op=">",
        rhs_name="conservative (max_p 0.02)",
        adjective=Adjective(
            "significantly",
            offset=AT_TIMES,
            why="ours: idle (empty, underused) at least 1 point of the time more; the "
            "conservative side is 0, which no factor can scale",
        ),
        measure=lambda d: [
            Case(
                "8 conn., empty share",
                _q_stats(d, "3", variant="aggressive", n=8)["empty"],
                _q_stats(d, "3", variant="conservative", n=8)["empty"],
            ),
            Case(
                "8 conn., 1 - utilisation",
                [1 - x for x in _f3(d, "aggressive", 8, "utilisation")],
                [1 - x for x in _f3(d, "conservative", 8, "utilisation")],
            ),
        ],
    ),
    Claim(
        id="fig3a-aggressive-32-desired",
        where="§III.B, Fig. 3(a)",
        quote="When the number of connections is increased to 32 the aggressive early detection "
        "performs as desired, sending congestion notification at a rate which can both avoid "
        "packet loss and achieve high link utilization.",
        metric="RED-ECN, aggressive, 32 connections: loss (%) and utilisation",
        lhs_name="loss / shortfall",
        op="<",
        rhs_name="0.1 % / 5 %",
        tolerance_source="ours: 'avoid packet loss' read as under 0.1 %, 'high utilization' as "
        "above 95 % (claim 10's reading)",
        measure=lambda d: _loss_and_shortfall(d, "aggressive", 32),
    ),
    Claim(
        id="fig3b-conservative-8",
        where="§III.B, Fig. 3(b)",
        quote="by using less aggressive early detection, the RED queue can maintain high link "
        "utilization while avoiding packet loss when the number of connections is small.",
        metric="RED-ECN, conservative, 8 connections: loss (%) and utilisation",
        lhs_name="loss / shortfall",
        op="<",
        rhs_name="0.1 % / 5 %",
        tolerance_source="ours: as claim fig3a-aggressive-32-desired",
        measure=lambda d: _loss_and_shortfall(d, "conservative", 8),
    ),
    Claim(
        id="fig3b-conservative-32-droptail",
        where="§III.B, Fig. 3(b)",
        quote="when the number of connections is increased to 32, Figure 3(b) shows that "
        "conservative early detection does not deliver congestion notification to a "
        "sufficient number of sources. Thus, the RED queue continually overflows causing it to "
        "behave more like a drop-tail queue.",
        metric="RED-ECN, conservative, 32 connections: loss and mean queue over DropTail's (same "
        "connections and seeds)",
        lhs_name="ratio",
        op="~",
        rhs_name="1",
        tolerance=SLIGHT,
        tolerance_source="ours: 'more like a drop-tail queue' read as claim fig1-small-max-p's "
        "'approach': within 20 % of DropTail's",
        measure=_c_like_droptail,
    ),
    Claim(
        id="fig3b-conservative-32-full",
        where="§III.B, Fig. 3(b)",
        quote="the bottleneck queue never drains even though it is dropping a significant number "
        "of packets ... Consequently, the bottleneck queue remains close to fully occupied "
        "through the duration of the experiment.",
        metric="RED-ECN, conservative, 32 connections: share of queue samples at 90 % of the "
        "80-packet queue or more; 'never drains': share of samples not empty; 'a significant "
        "number': loss (%)",
        lhs_name="share near full / not empty / loss",
        op=">",
        rhs_name="1/2 / 0.99 / 1 %",
        tolerance_source="ours: 'remains close to fully occupied' read as at 90 % of the queue "
        "or more in most samples, 'never drains' as empty in under 1 % of the samples, "
        "'significant' as a loss of 1 % or more (the line claim fig4-few-loss-low reads as low)",
        measure=lambda d: [
            Case("near full", _q_stats(d, "3", variant="conservative", n=32)["full"], 0.5),
            Case(
                "not empty",
                [1 - x for x in _q_stats(d, "3", variant="conservative", n=32)["empty"]],
                0.99,
            ),
            Case("loss %", [100 * x for x in _f3(d, "conservative", 32, "loss_rate")], 1.0),
        ],
        explain=_why_full,
    ),
    Claim(
        id="fig5a-loss-not-eliminated",
        where="§III.B, Fig. 5(a)",
        quote="When the queue size is 120KB, the queue-length plot shows that even with a fairly "
        "significant amount of additional buffer space, packet loss is not eliminated.",
        metric="RED-ECN, conservative, 32 connections, max_th 80 KB in a 120 KB queue: loss (%)",
        lhs_name="loss",
        op=">",
        rhs_name="0",
        unit="%",
        measure=lambda d: [
            Case("120 KB", [100 * x for x in d.per_seed("5", "loss_rate", buffer_kb=120)], 0.0)
        ],
    ),
    Claim(
        id="fig5-queue-drains",
        where="§III.B, Fig. 5",
        quote="after a sustained period of ECN marking and packet loss, the sources back off "
        "sufficiently to allow the queue to drain ... periods of congestion are immediately "
        "followed by fairly long periods of underutilization where the queue is empty.",
        metric="share of queue samples with an empty queue and utilisation shortfall, 32 "
        "connections, conservative",
        lhs_name="max_th 80 KB in 120 and 240 KB (Fig. 5(a,b))",
        op=">",
        rhs_name="max_th = queue 80 KB (Fig. 3(b))",
        adjective=Adjective(
            "fairly long",
            offset=AT_TIMES,
            why="ours: as claim fig3a-aggressive-8-empty's 'significantly ... at times': at "
            "least 1 point of the time more",
        ),
        measure=lambda d: [
            Case(
                f"{b} KB, {name}",
                get(d, "5", b),
                get(d, "3", None),
            )
            for b in FIG5_BUFFERS
            for name, get in (("empty share", _empty_share), ("1 - utilisation", _shortfall))
        ],
    ),
    Claim(
        id="fig5-buffer-substantial",
        where="§III.B, Fig. 5(a,b)",
        quote="Furthermore, the buffer space required to reduce loss is substantial.",
        metric="RED-ECN, conservative, 32 connections, max_th 80 KB: loss (%) in a 240 KB "
        "queue against a 120 KB one",
        lhs_name="240 KB",
        op="<",
        rhs_name="120 KB",
        unit="%",
        tolerance_source="none: read as the 120 KB queue (claim fig5a) still losing what "
        "doubling it removes",
        measure=lambda d: [
            versus(
                "32 conn.",
                lambda b: [100 * x for x in d.per_seed("5", "loss_rate", buffer_kb=b)],
                Vs(240, 120),
            )
        ],
    ),
    Claim(
        id="fig5b-more-than-double",
        where="§III.B, Fig. 5(b)",
        quote="even though deterministic marking is enforced at an average queue length of 80KB, "
        "the actual queue length can more than double before the sources have a chance to back "
        "off.",
        metric="largest queue (packets) in the 240 KB queue, 32 connections",
        lhs_name="largest queue",
        op=">",
        rhs_name="2 x 80 packets",
        unit="pkts",
        measure=lambda d: [Case("240 KB", _q_stats(d, "5", buffer_kb=240)["max"], 160.0)],
        explain=lambda d, r: (
            "the largest queue per seed in the 240 KB queue is "
            + ", ".join(f"{x:.0f}" for x in _q_stats(d, "5", buffer_kb=240)["max"])
            + " packets (in the 120 KB queue "
            + ", ".join(f"{x:.0f}" for x in _q_stats(d, "5", buffer_kb=120)["max"])
            + "): marking every packet once avg passes 80 turns the sources before the queue "
            "reaches twice max_th in aqmlab's runs; why the paper's queue grew further is "
            "unexplained."
        ),
    ),
    Claim(
        id="fig6a-aggressive-32-well",
        where="§IV, Fig. 6(a)",
        quote="When aggressive early detection is used, as shown in Figure 6(a), the RED queue "
        "performs well whenever 32 connections are active.",
        metric="aggressive RED (max_p 1) in the 32-connection phases: loss (%) and utilisation",
        lhs_name="loss / shortfall",
        op="<",
        rhs_name="0.1 % / 5 %",
        tolerance_source="ours: 'performs well' read as claim fig3a-aggressive-32-desired's "
        "'avoid packet loss' and 'high link utilization'",
        measure=lambda d: _phase_well(d, "aggressive", 32),
    ),
    Claim(
        id="fig6a-aggressive-8",
        where="§IV, Fig. 6(a)",
        quote="When only 8 connections are active though, the RED queue is too aggressive in its "
        "congestion notification, thus causing periodic underutilization when the queue is "
        "empty.",
        metric="utilisation, and the share of queue samples with an empty queue, in the "
        "8-connection phases",
        lhs_name="aggressive (utilisation; conservative: empty share)",
        op="<",
        rhs_name="conservative (utilisation; aggressive: empty share)",
        measure=lambda d: [
            versus(
                "8 conn., utilisation",
                _phase,
                d,
                Vs("aggressive", "conservative"),
                8,
                "utilisation",
            ),
            versus("8 conn., empty share", _phase_empty, d, Vs("conservative", "aggressive"), 8),
        ],
    ),
    Claim(
        id="fig6b-conservative-8-well",
        where="§IV, Fig. 6(b)",
        quote="When conservative early detection is used, as shown in Figure 6(b), the RED queue "
        "only performs well when 8 connections are active.",
        metric="conservative RED (max_p 0.02) in the 8-connection phases: loss (%) and "
        "utilisation; 'only': its loss in the 32-connection phases above 0.1 %",
        lhs_name="loss / shortfall",
        op="<",
        rhs_name="0.1 % / 5 %",
        tolerance_source="ours: as claim fig6a-aggressive-32-well",
        measure=lambda d: [
            *_phase_well(d, "conservative", 8),
            Case(
                "'only': 0.1 % vs loss % with 32 conn.",
                [100 * NO_LOSS] * len(d.seeds6()),
                [100 * x for x in _phase(d, "conservative", 32, "loss_rate")],
            ),
        ],
    ),
    Claim(
        id="fig6b-conservative-32",
        where="§IV, Fig. 6(b)",
        quote="When all 32 connections are active, the RED queue continually fluctuates between "
        "periods of sustained packet loss and ECN marking and subsequent periods of "
        "underutilization.",
        metric="loss rate and utilisation shortfall in the 32-connection phases",
        lhs_name="conservative",
        op=">",
        rhs_name="aggressive",
        measure=lambda d: [
            versus("32 conn., loss", _phase, d, Vs("conservative", "aggressive"), 32, "loss_rate"),
            Case(
                "32 conn., 1 - utilisation",
                [1 - x for x in _phase(d, "conservative", 32, "utilisation")],
                [1 - x for x in _phase(d, "aggressive", 32, "utilisation")],
            ),
        ],
    ),
    Claim(
        id="iv-avg-around-thresholds",
        where="§IV, Figs. 6(a,b)",
        quote="If the average queue length oscillates around min_th, then the early detection "
        "mechanism is too aggressive. On the other hand, if it oscillates around max_th, then "
        "the early detection mechanism is too conservative.",
        metric="RED's average queue (packets), mean of its samples, where Fig. 6 shows the "
        "static settings too aggressive (aggressive, 8-connection phases) and too conservative "
        "(conservative, 32-connection phases)",
        lhs_name="average queue",
        op="~",
        rhs_name="min_th (20) / max_th (80)",
        unit="pkts",
        tolerance=15.0,
        tolerance_source="ours: 'oscillates around' a threshold read as a mean within a quarter "
        "of the gap max_th - min_th (15 packets) of it: nearer that threshold than the midway "
        "point between the two is by half",
        measure=_c_avg_around,
    ),
    Claim(
        id="fig7b-rises",
        where="§IV, Fig. 7(b)",
        quote="When all 32 connections are active, max_p increases significantly",
        metric="log10 max_p at the end vs the start of each 32-connection phase",
        lhs_name="end",
        op=">",
        rhs_name="start",
        adjective=Adjective(
            "significantly", offset=math.log10(2.0), why="ours: at least doubles (log10 2)"
        ),
        measure=lambda d: _c_moves(d, 32, rising=True),
        explain=_why_rises,
    ),
    Claim(
        id="fig7b-falls",
        where="§IV, Fig. 7(b)",
        quote="When only 8 connections are active, max_p decreases",
        metric="log10 max_p at the end vs the start of each 8-connection phase",
        lhs_name="end",
        op="<",
        rhs_name="start",
        measure=lambda d: [_swapped(c) for c in _c_moves(d, 8, rising=False)],
    ),
    Claim(
        id="fig7a-adapts",
        where="§IV, Fig. 7(a)",
        quote="after brief learning periods when the experiment starts and when the input traffic "
        "changes, the RED queue is able to adapt itself well.",
        metric="self-configuring RED vs the better static setting in each phase: utilisation "
        "with 8 (vs conservative), loss with 32 (vs aggressive)",
        lhs_name="self-config",
        op=">",
        rhs_name="better static",
        tolerance=0.01,
        tolerance_source="ours: 'well' read as within 1 point of the better static setting",
        measure=lambda d: [
            versus(
                "utilisation, 8 conn.",
                _phase,
                d,
                Vs("self-config", "conservative"),
                8,
                "utilisation",
            ),
            Case(
                "minus loss, 32 conn.",
                [-x for x in _phase(d, "self-config", 32, "loss_rate")],
                [-x for x in _phase(d, "aggressive", 32, "loss_rate")],
            ),
        ],
    ),
]
NOT_SEPARATE = [
    "Abstract: 'there is no single set of RED parameters that work well under different "
    "congestion scenarios' and 'traffic cognizant parameterization ... can effectively reduce "
    "packet loss while maintaining high link utilizations' summarise claims fig4-* and "
    "fig6*/fig7*; §I: 'When congestion notification is aggressive, packet loss can be avoided, "
    "but at the expense of low overall link utilization ...' announces claims fig3a-* and "
    "fig3b-*.",
    "Abstract: 'the effectiveness of RED depends, to a large extent, on the appropriate "
    "parameterization of the RED queue' and §I: 'The effectiveness of early detection is shown "
    "to be critically dependent upon the rate at which congestion notification is provided to "
    "the sources' summarise claims fig1-* and fig4-* (loss and utilisation against max_p).",
    "§I: 'Recent measurements have shown that the growing demand for network bandwidth has "
    "driven loss rates up' cites another study ([18]); RED's properties ('prevent global "
    "synchronization, reduce packet loss rates, and minimize biases against bursty sources', "
    "'RED outperforms traditional drop-tail queues') are cited from RED's own papers ([1, 5]).",
    "§III: the offered-load arithmetic (a notification to one of 100 connections leaves "
    "9.95 Mbps, to one of 2 leaves 7.5 Mbps: a factor 1 - 1/(2N)) is arithmetic, not a "
    "measured result; 'the RED queue can degenerate into a simple drop-tail queue' (many "
    "connections, RED not aggressive) and 'underutilization can occur' (few connections, RED "
    "aggressive) announce claims fig3b-conservative-32-droptail and fig3a-aggressive-8-empty.",
    "§III: 'it is conspicuous that the congestion notification mechanism used by RED does not "
    "directly depend upon the number of connections' describes RED, not a result.",
    "§III: 'We show that RED is only marginally effective when used in conjunction with packet "
    "drop' announces claim fig1-marginal.",
    "§III: '... packet losses are still significant' (with ECN) announces claims "
    "fig4-many-loss (loss at small max_p with many connections), fig3b-conservative-32-full "
    "and fig5a-loss-not-eliminated.",
    "§III.A: 'Note that the value of max_p that minimizes the loss rates is different in Figure "
    "1(b) and Figure 1(c)' is implied by claim fig1-argmin-grows (a larger value is a "
    "different one).",
    "§III.A: Eq. 2's 'the upper bound on the packet loss rate increases quadratically with the "
    "number of connections' and the idealised example's 0.5 and 2.0 packet drops per "
    "round-trip time (4 and 8 connections over 64 KB) are derived, not simulated; the paper "
    "measures the dependence in claim fig1-dt-between ('somewhere between linear and "
    "quadratic').",
    "§III.A: 'This is partially due to the fact that connections can experience retransmission "
    "timeouts' is a cause the paper gives for claim fig1-dt-between, not a result.",
    "§III.A: 'since packet loss rates increase rapidly as networks become more congested, it is "
    "necessary to decouple packet loss from congestion notification through the use of ECN' "
    "concludes from claims fig1-dt-between and fig4-dt-grows; 'by making the increase linear "
    "in terms of the transmission rate, loss rates can be made to increase linearly with the "
    "number of connections' is a prediction from Eq. 2 the paper does not run.",
    "§III.A: 'decreasing the segment size, increasing the bottleneck bandwidth, and increasing "
    "the round-trip times ... can slow the rate of congestion notification' is read from "
    "Eq. 2; the paper runs no such experiment.",
    "§III.A: 'the dependence of packet loss rates on round-trip time explains why RED queues "
    "... can potentially increase packet loss rates (as observed in Figure 1)' and 'Because "
    "packet loss rates increase with decreasing round-trip times ... this causes the loss rates "
    "in the RED queue to eventually exceed that of the drop-tail queue' are the paper's reason "
    "for claim fig1-large-max-p (its measured explanation computes it) and fig2c-queue-falls.",
    "§III.A, Fig. 2(b): '... while keeping the average queue length as close to the size of the "
    "queue as possible' qualifies claim fig2b-no-overflow (as close as possible without "
    "overflow), which does not hold: no overflow-free point to compare against.",
    "§III.B: 'By using ECN, all packet losses from the RED queue can be attributed to buffer "
    "overflow' describes the set-up (max_th = the queue size), not a result.",
    "§III.B, Fig. 3(b): 'This indicates that the TCP sources do not back off sufficiently ... "
    "trigger further increases in transmission rate' is the paper's reason for claim "
    "fig3b-conservative-32-full.",
    "§III.B: 'By setting max_th sufficiently below the queue size, the RED algorithm can avoid "
    "packet losses when early detection fails by deterministically marking every incoming "
    "packet' introduces Fig. 5, whose claims fig5a-loss-not-eliminated and "
    "fig5-buffer-substantial check it.",
    "§III.B, Fig. 5: 'leads to periods of time where TCP is able to impact the transmission "
    "rates of the sources' and 'all connections receive congestion notification when the queue "
    "is full' are claim fig5-queue-drains and its reason.",
    "§III.B: 'to optimize performance over a small number of connections, early detection must "
    "be made conservative' and '... must be aggressive' are conclusions drawn from claims "
    "fig4-few-loss-low, fig4-few-util, fig4-many-util and fig4-many-loss.",
    "§IV: 'it is clear that adapting RED parameters based on traffic load and using explicit "
    "congestion notification can be beneficial' concludes from §III's claims.",
    "§IV: 'As expected, its value adapts to reflect the number of active flows' is claims "
    "fig7b-rises and fig7b-falls.",
    "§V (testbed, Fig. 9): its own section below, live and simulated "
    "(adaptive_red_004_testbed), whose claims include 'the RED algorithm oscillates between "
    "periods of sustained marking and packet loss and periods of minimal marking and link "
    "underutilization' (v-oscillates).",
    "§V: 'the sustained throughput of router1 was always above 70Mbps' checks the testbed's "
    "router, not a queue discipline; 'since the ethernet segments are shared, acknowledgments "
    "on the reverse path collide with data packets on the forward path, thus limiting "
    "throughput' describes the testbed's shared Ethernet, which aqmlab does not model (its "
    "links are full duplex); 'This rate slightly overestimates the end-to-end goodput' "
    "describes the measure.",
    "§VI: 'an adaptive RED mechanism ... can provide significant benefits in terms of decreasing "
    "packet loss and increasing network utilization' summarises claim fig7a-adapts and the "
    "testbed's, as 'Preliminary experiments using a small testbed has shown the efficacy of the "
    "algorithm' summarises the testbed's; 'it is expected that the performance improvements "
    "will become even more significant as the network grows' (on the premise that 'early "
    "detection algorithms become more effective as round trip times increase') is a prediction "
    "the paper does not test; 'When a large number of connections are present, queue lengths "
    "can fluctuate considerably in a short period of time' motivates future work (an adaptive "
    "w_q) and restates the testbed's v-oscillates.",
]


#: Fig. 1(a), the topology, is lost: the last link's delay sets the base RTTs of every figure
#: (Figs. 6/7 run on "the same network as shown in Figure 1(a)", §IV).
LAST_LINK = Choice(
    name="Fig. 1(a): the lost last link n6 -> n8 (Figs. 1-7)",
    default="15 ms (base RTTs 52..68 ms)",
    other="5 ms (base RTTs 32..48 ms)",
    why="the text gives the topology's shape (§III.A: connections from n0..n4 to n8, the n5 -> n6 "
    "link the bottleneck) but not its delays, and runs Figs. 1-7 on it (§IV: 'the same network "
    "as shown in Figure 1(a)'); a node n7 between n6 and n8 would add only delay, the bottleneck "
    "being n5 -> n6. 15 ms gives a bandwidth-delay product of 65..85 KB, the scale of §III.A's "
    "worked example ('bandwidth-delay products of 64KB'); 5 ms is the other round figure that "
    "keeps it below the 80 KB queue of Figs. 1-4.",
)


#: How Fig. 7(a)'s 'adapt itself well' is measured (no runs: the same data, read two ways).
ADAPTS_WELL = Choice(
    name="Fig. 7(a): 'the RED queue is able to adapt itself well'",
    default="as well as the better static setting in each phase, within 1 point",
    other="as desired in each phase, learning periods included: loss under 0.1 % and a "
    "utilisation shortfall under 5 % (claim fig6a-aggressive-32-well's 'performs well')",
    why="the sentence compares the self-configuring queue with Fig. 6's static settings and "
    "excuses 'brief learning periods', which fall inside each 40 s phase this reproduction "
    "measures; the absolute reading counts them against it. The 1-point tolerance is wide for "
    "loss (the better static setting loses 0.05..0.07 % with 32 connections), which is why the "
    "other reading is run too.",
    claims=("fig7a-adapts",),
)


def _adapts_as_desired(claims: list[Claim]) -> list[Claim]:
    """The claims with Fig. 7(a)'s sentence read as :data:`ADAPTS_WELL`'s other reading."""
    return [
        dataclasses.replace(
            c,
            metric="self-configuring RED in the 8- and 32-connection phases: loss (%) and "
            "utilisation shortfall",
            lhs_name="loss / shortfall",
            op="<",
            rhs_name="0.1 % / 5 %",
            tolerance=0.0,
            tolerance_source="ours: as claim fig6a-aggressive-32-well",
            measure=lambda d: [
                Case(f"{n} conn., {k.label}", k.lhs, k.rhs)
                for n in (8, 32)
                for k in _phase_well(d, "self-config", n)
            ],
        )
        if c.id in ADAPTS_WELL.claims
        else c
        for c in claims
    ]


#: Figs. 3 and 5 print no max_p: "aggressive" and "conservative" are words only.
FIG3_AGGRESSIVE = Choice(
    name="Fig. 3(a): the 'aggressive' max_p (not printed)",
    default="1.0 (the testbed's aggressive setting, §V)",
    other=f"{MAX_P_PRINTED:g} (§III.A's loss-minimising max_p of Fig. 2(b), the paper's only "
    "other printed value above the conservative 0.02)",
    why="§V prints 1.00 and 0.02 as the aggressive and conservative settings and Figs. 6/7 use "
    "the same words; 0.063 is the one other max_p the paper prints for its simulations. The "
    "other reading reruns Fig. 3's aggressive runs (8 and 32 connections) at 0.063.",
    claims=("fig3a-aggressive-8-empty", "fig3a-aggressive-32-desired"),
)
FIG35_CONSERVATIVE = Choice(
    name="Figs. 3(b) and 5: the 'conservative' max_p (not printed)",
    default="0.02 (the testbed's conservative setting, §V, and Fig. 7's initial max_p)",
    other=f"{MAX_P_PRINTED:g} (§III.A's loss-minimising max_p of Fig. 2(b))",
    why="§V prints 0.02 as the conservative setting and §IV starts the self-configuring RED "
    "there ('We initially set max_p to 0.020'); 0.063 is the paper's other printed value. The "
    "other reading reruns Fig. 3's conservative runs and Fig. 5 (whose text repeats 'the same "
    "experiment as in Figure 3(b)') at 0.063.",
    claims=(
        "fig3a-aggressive-8-empty",
        "fig3b-conservative-8",
        "fig3b-conservative-32-droptail",
        "fig3b-conservative-32-full",
        "fig5a-loss-not-eliminated",
        "fig5-queue-drains",
        "fig5-buffer-substantial",
        "fig5b-more-than-double",
    ),
)


#: min_th of Figs. 1 and 2 is not printed.
MIN_TH = Choice(
    name="Figs. 1 and 2: RED's min_th (not printed)",
    default="20 packets (a quarter of max_th = 80)",
    other=f"{MIN_TH_OTHER:g} packets (max_th / 3)",
    why="a quarter is the ratio of the paper's own testbed (10 KB / 40 KB, section V); a third "
    "is the usual rule of thumb (max_th = 3 min_th) of RED's authors. Only Fig. 1's RED runs "
    "change (DropTail and the ECN figures keep 20).",
    claims=(
        "fig1-small-max-p",
        "fig1-marginal",
        "fig1-decrease",
        "fig1-large-max-p",
        "fig1-drop-composition",
        "fig1-argmin-grows",
        "fig2a-droptail-like",
        "fig2b-argmin",
        "fig2b-no-overflow",
        "fig2c-queue-falls",
        "ecn-more-effective",
    ),
)


# ---- report ---------------------------------------------------------------------------------


#: Figure labels of runs that only a set-up choice's other reading reads.
_OTHER_READINGS = (FIG1_MIN_TH, "3" + FIG35_ALT, "5" + FIG35_ALT)


def _main(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of the default readings (every figure label without a choice's suffix)."""
    fig = runs["figure"].astype(str)
    return runs[~fig.str.endswith(SHORT) & ~fig.isin(_OTHER_READINGS)]


def other_min_th(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with Fig. 1's RED taken from the min_th = max_th / 3 runs."""
    rest = _main(runs)
    rest = rest[rest["figure"] != "1"]
    return pd.concat([rest, runs[runs["figure"] == FIG1_MIN_TH].assign(figure="1")])


def short_link(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with every figure taken from its runs with n6 -> n8 at 5 ms."""
    fig = runs["figure"].astype(str)
    short = runs[fig.str.endswith(SHORT)]
    short = short.assign(figure=short["figure"].astype(str).str[: -len(SHORT)])
    rest = _main(runs)
    return pd.concat([rest[~rest["figure"].isin(set(short["figure"]))], short])


def other_fig35_max_p(runs: pd.DataFrame, variant: str) -> pd.DataFrame:
    """The runs with Figs. 3 and 5's ``variant`` setting taken from its max_p 0.063 runs."""
    fig = runs["figure"].astype(str)
    alt = runs[fig.isin(["3" + FIG35_ALT, "5" + FIG35_ALT]) & (runs["variant"] == variant)]
    alt = alt.assign(figure=alt["figure"].astype(str).str[: -len(FIG35_ALT)])
    rest = _main(runs)
    gone = rest["figure"].isin(["3", "5"]) & (rest["variant"] == variant)
    return pd.concat([rest[~gone], alt])


def report(runs: pd.DataFrame, rep: Report, quick: bool) -> None:
    d = Data(_main(runs), quick)
    if (runs["figure"] == "1" + SHORT).any():
        d.short = Data(short_link(runs), quick)
    refs = ns2_refs(ID)
    rep.claims(evaluate(CLAIMS, d, refs))
    main_res = rep.results
    pub = published(f"{ID}.text")
    rep.section("Setup and readings")
    readings = __doc__.split("Readings taken", 1)[1] if __doc__ else ""
    rep.text(readings[readings.find("\n- ") + 1 :].strip() if "\n- " in readings else readings)
    if quick:
        rep.text(
            f"**Quick mode**: 60 s runs measured from 30 s, max_p {MAX_P_QUICK}, seeds "
            f"{list(SEEDS_QUICK)}, Fig. 4 with 8 and 32 connections, Figs. 6/7 over 120 s."
        )
    r = d.runs
    dt = r[r["figure"] == "dt"].groupby("n")[["loss_rate", "utilisation"]].mean()
    f1 = r[r["figure"] == "1"].assign(loss_pct=lambda x: 100 * x["loss_rate"])
    f4 = r[r["figure"] == "4"].assign(
        loss_pct=lambda x: 100 * x["loss_rate"], util_pct=lambda x: 100 * x["utilisation"]
    )

    rep.section("Fig. 1: RED with packet drop vs DropTail")
    rep.figure(
        plots.panels_vs(
            f1.assign(line=f1["n"].map(lambda n: f"{n} connections")),
            "max_p",
            [("loss_pct", "loss rate (%)")],
            line="line",
            logx=True,
            hlines={
                "loss_pct": {
                    f"DropTail, {n}": 100 * float(dt.loc[n, "loss_rate"]) for n in d.ns("1")
                }
            },
        ),
        "fig1_loss_vs_max_p",
        "Fig. 1(b,c): loss rate vs max_p, RED (drop); dashed: DropTail; error bars: standard "
        "deviation over seeds.",
    )
    rows = []
    for n in d.ns("1"):
        c = d.curve("1", n, "loss_rate").mean()
        rows.append(
            {
                "connections": n,
                "DropTail loss %": 100 * float(dt.loc[n, "loss_rate"]),
                "RED loss % at smallest max_p": 100 * float(c.iloc[0]),
                "RED min loss %": 100 * float(c.min()),
                "RED loss % at max_p=1": 100 * float(c.iloc[-1]),
                "argmin max_p published": pub["max_p_minimising_loss_32_connections"]
                if n == 32
                else "—",
                "argmin max_p ns-2": ns2_cell(ns2_refs(ID), "fig1", str(n), "argmin_max_p"),
                "argmin max_p aqmlab (mean curve)": float(c.idxmin()),
            }
        )
    rep.table(pd.DataFrame(rows), "Fig. 1: loss rates and the loss-minimising max_p")

    rep.section("Fig. 4: RED with ECN")
    rep.figure(
        plots.panels_vs(
            f4.assign(line=f4["n"].map(lambda n: f"{n} RED-ECN")),
            "max_p",
            [("loss_pct", "loss rate (%)"), ("util_pct", "utilisation (%)")],
            line="line",
            logx=True,
        ),
        "fig4_ecn",
        "Fig. 4(a,b): RED-ECN loss and utilisation vs max_p; error bars: standard deviation over "
        "seeds.",
    )
    rep.table(
        f4.pivot_table(index="max_p", columns="n", values="loss_pct").reset_index(),
        "Fig. 4(a): loss rate (%) by max_p (rows) and connections (columns)",
    )
    rep.table(
        f4.pivot_table(index="max_p", columns="n", values="util_pct").reset_index(),
        "Fig. 4(b): utilisation (%) by max_p and connections",
    )
    rep.table(
        (100 * dt)
        .reset_index()
        .rename(columns={"loss_rate": "DropTail loss %", "utilisation": "DropTail util %"}),
        "DropTail (80-packet queue) by number of connections",
    )

    _fig3_5(rep, d)

    rep.section("Figs. 6 and 7: 8 and 32 connections alternating every 40 s")
    shade = [(t0, t1) for t0, t1, n in PHASES if n == 32]
    series = {}
    for name in VARIANTS:
        w = d.sel("6", variant=name, phase="all")
        q = load_table(w.sort_values("seed")["run_dir"].iloc[0], "queue")
        cols = ["qlen_pkts"] + (["avg"] if "avg" in q else [])
        series[name] = q.melt(id_vars="t_s", value_vars=cols, var_name="series")
    rep.figure(
        plots.series_per_panel(
            series, t="t_s", y="value", by="series", ylabel="packets", shade=shade
        ),
        "fig6_7a_queue",
        "Figs. 6(a,b), 7(a): queue length (and RED's average), aggressive, conservative and "
        "self-configuring RED, seed 1; shaded: 32 connections.",
    )
    traces = {f"seed {s}": d.trace(s)[["t_s", "max_p"]].assign(series="max_p") for s in d.seeds6()}
    rep.figure(
        plots.series_per_panel(
            traces, t="t_s", y="max_p", by="series", ylabel="max_p", logy=True, shade=shade
        ),
        "fig7b_max_p",
        "Fig. 7(b): max_p of the self-configuring RED over time, each seed; shaded: 32 "
        "connections.",
    )
    win = r[(r["figure"] == "6") & (r["phase"] != "all")]
    tab = win.pivot_table(
        index=["phase", "n"], columns="variant", values=["loss_rate", "utilisation"]
    )
    tab.columns = [f"{v} {'loss %' if m == 'loss_rate' else 'util %'}" for m, v in tab.columns]
    # The pivot orders phases as text ("120-160s" before "40-80s"); the table reads in time.
    out = (100 * tab).reset_index()
    out = out.sort_values(
        "phase", key=lambda p: p.str.split("-").str[0].astype(float), kind="stable"
    )
    rep.table(out, "Figs. 6/7: loss and utilisation per 40 s phase")
    moves = pd.DataFrame(
        [{"seed": s, **mv} for s in d.seeds6() for mv in max_p_moves(d.trace(s), d.phases)]
    )
    rep.table(moves, "Self-configuring RED: max_p at the start and end of each phase, per seed.")
    _moves_text(rep, moves, d)
    if (runs["figure"] == FIG6_SHORT).any():
        q7 = d.short if d.short is not None else Data(short_link(runs), quick)
        rep.choice(LAST_LINK, main_res, evaluate(CLAIMS, q7))
        moves7 = pd.DataFrame(
            [{"seed": s, **mv} for s in q7.seeds6() for mv in max_p_moves(q7.trace(s), q7.phases)]
        )
        rep.table(
            moves7,
            "Self-configuring RED with base RTTs 32..48 ms (n6 -> n8 at 5 ms): max_p at the "
            "start and end of each phase, per seed.",
        )
    rep.choice(ADAPTS_WELL, main_res, evaluate(_adapts_as_desired(CLAIMS), d, refs))
    if (runs["figure"] == FIG1_MIN_TH).any():
        rep.choice(MIN_TH, main_res, evaluate(CLAIMS, Data(other_min_th(runs), quick)))
    if (runs["figure"] == "3" + FIG35_ALT).any():
        for choice, variant in (
            (FIG3_AGGRESSIVE, "aggressive"),
            (FIG35_CONSERVATIVE, "conservative"),
        ):
            alt = Data(other_fig35_max_p(runs, variant), quick)
            rep.choice(choice, main_res, evaluate(CLAIMS, alt))
    rep.section("Sentences not counted as separate claims")
    rep.text("\n".join(f"- {s}" for s in NOT_SEPARATE))


def _fig3_5(rep: Report, d: Data) -> None:
    """Figs. 3(a,b) and 5(a,b): queue length over time (seed 1) and per-seed statistics."""
    r = d.runs
    if not {"3", "5"} <= set(r["figure"].astype(str)):
        return
    rep.section("Figs. 3 and 5: RED-ECN queue length, early detection aggressive or conservative")
    series = {}
    rows = []
    cases = [("3", {"variant": v, "n": n}) for v in ("aggressive", "conservative") for n in FIG3_N]
    cases += [("5", {"buffer_kb": b}) for b in FIG5_BUFFERS]
    for fig, eq in cases:
        sel = d.sel(fig, **eq).sort_values("seed")
        name = (
            f"Fig. 3: {eq['variant']}, {eq['n']} conn."
            if fig == "3"
            else f"Fig. 5: max_th 80, queue {eq['buffer_kb']} KB"
        )
        q = load_table(sel["run_dir"].iloc[0], "queue")
        series[name] = q[["t_s", "qlen_pkts"]].assign(series="queue")
        st = _q_stats(d, fig, **eq)
        rows.append(
            {
                "run": name,
                "loss %": 100 * float(sel["loss_rate"].mean()),
                "util %": 100 * float(sel["utilisation"].mean()),
                "empty share": float(np.mean(st["empty"])),
                "near-full share": float(np.mean(st["full"])),
                "mean queue": float(np.mean(st["mean"])),
                "largest queue": float(np.mean(st["max"])),
            }
        )
    rep.figure(
        plots.series_per_panel(series, t="t_s", y="qlen_pkts", by="series", ylabel="packets"),
        "fig3_5_queue",
        "Figs. 3(a,b) and 5(a,b): queue length at n5 -> n6, seed 1 (RED-ECN, max_p 1 = "
        "aggressive, 0.02 = conservative; Fig. 5 marks every packet above max_th = 80).",
    )
    rep.table(
        pd.DataFrame(rows),
        "Figs. 3 and 5 over the measurement window, means over seeds: loss, utilisation, share "
        "of queue samples empty and at 90 % of the queue or more, mean and largest queue "
        "(packets).",
    )


def _moves_text(rep: Report, moves: pd.DataFrame, d: Data) -> None:
    """Why max_p stayed put in a phase, shown only for phases where it did, from the average
    queue against the thresholds (Fig. 8 moves max_p only when avg crosses min_th / max_th)."""
    still = moves[np.isclose(moves["start"], moves["end"])]
    if still.empty:
        return
    s0 = int(still["seed"].iloc[0])
    q = d.trace(s0)
    if "avg" not in q:
        return
    qd = _with_qdisc(load_base(ID, "load_change"), VARIANTS["self-config"])["bottleneck"]["qdisc"]
    lo, hi = float(qd["min_th"]), float(qd["max_th"])
    parts = []
    for _, row in still[still["seed"] == s0].iterrows():
        t0, t1 = (float(x) for x in row["phase"].replace(" s", "").split("-"))
        a = q[(q["t_s"] >= t0) & (q["t_s"] < t1)]["avg"]
        parts.append(
            f"{row['phase']} ({row['n']} conn.): avg below min_th in "
            f"{100 * float((a < lo).mean()):.0f} % of samples, above max_th in "
            f"{100 * float((a > hi).mean()):.0f} %"
        )
    rep.text(
        f"max_p did not move in {len(still)} phase(s) over all seeds. Fig. 8 changes it only when "
        f"the average queue crosses min_th = {lo:g} or max_th = {hi:g}; in seed {s0}: "
        + "; ".join(parts)
        + "."
    )


REPRODUCTION = Paper(ID, TITLE, PAPER_FILE, points, report)
