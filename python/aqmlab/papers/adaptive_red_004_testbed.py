"""Paper 004 §V: the testbed of Fig. 9, run live (real Linux TCP through aqmlab's user-space
bottleneck) and simulated beside it (``papers/004_618a487a53bfbc7f.txt`` §V).

The paper: FreeBSD 2.2.6 + ALTQ routers, infinite ``netperf`` sessions from ``fast`` to
``slow`` across a 10 Mbps Ethernet bottleneck; queue 50 KB, ``min_th`` 10 KB, ``max_th``
40 KB; ``max_p`` 0.02 (conservative), 1.00 (aggressive), and the self-configuring RED starting
at 0.02; TCP with ECN; each point the mean of ten 5-s intervals. Fig. 9 plots throughput (what
the congested interface forwards, retransmissions included) and loss (drops over arrivals at
the queue) against the number of connections.

Readings taken where the text is silent:

- Byte-mode RED (thresholds in bytes, as printed), 1500-byte packets (Ethernet MTU), ``w_q``
  0.002, marking above ``max_th`` as in Figs. 6/7 of the reproduction (``hard_drop = false``):
  drops then come from the full queue only, as the paper's loss is "packets dropped at the
  queue".
- A LAN: base RTT 2 ms (bottleneck 1 ms each way, nothing else). The figure's axis values are
  lost: connection counts 4..64 (quick: 8 and 32).
- Each point: 5 s of warm-up, then 50 s measured (the ten 5-s intervals; utilisation over the
  whole window is the mean of the ten intervals' utilisations; the loss rate is the window's
  ratio, which differs from the mean of ten ratios only by the weighting of the intervals).
  Quick mode measures 10 s.
- Live: kernel Reno with ECN (``net.ipv4.tcp_ecn`` negotiated per route), one run per point.
  Simulated: aqmlab's TCP (``model = "rfc"``, Reno, ECN), seeds 1-2 (quick) or 1-5.

Where today's Linux Reno differs from FreeBSD 2.2.6's (the paper's senders): SACK and RACK-TLP
loss recovery instead of Reno fast recovery (one loss per window without a timeout), an initial
window of 10 segments instead of 1-2, a 200 ms minimum RTO with 1 ms timers instead of 500 ms
ticks, TCP timestamps, receive-window auto-tuning, pacing of the first RTT's burst only (Reno
sets no pacing rate), GSO on the host (segmented before our device: every packet is judged
alone), and the 4.2BSD-style ECN reaction of RFC 3168 (halve once per window) in both.

In ``aqmlab reproduce adaptive_red_004`` this module is the section ``testbed`` (``SECTION``):
its simulated points run and are cached with the paper's own. The live part runs when the
machine can (root, TUN, netns, the compiled bottleneck) *and*
``AQMLAB_TESTBED`` is ``quick`` or ``full``; otherwise the report says so. It takes about
15 points x 60 s in full, 6 x 15 s quick.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import api
from aqmlab.claims import Case, Claim, Result, Vs, evaluate, versus
from aqmlab.claims import table as claims_table
from aqmlab.reproduce import PaperSection, Report
from aqmlab.sweep import Point, grid, load_table

VARIANTS = {
    "conservative": {"kind": "red", "max_p": 0.02},
    "aggressive": {"kind": "red", "max_p": 1.0},
    "adaptive": {"kind": "self_config_red", "max_p": 0.02},
}
CONNECTIONS_FULL = [4, 8, 16, 32, 64]
CONNECTIONS_QUICK = [8, 32]
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1, 2)
ENV = "AQMLAB_TESTBED"


def scenario(variant: str, n: int, quick: bool) -> dict[str, Any]:
    """Fig. 9's testbed as a scenario (see the module's readings)."""
    q = {
        **VARIANTS[variant],
        "min_th": 10_000,
        "max_th": 40_000,
        "w_q": 0.002,
        "bytes": True,
        "ecn": True,
        "hard_drop": False,
    }
    return {
        "name": f"paper 004 Fig. 9 testbed: {variant}, {n} connections",
        "seed": 1,
        "duration": "15s" if quick else "55s",
        "warmup": "5s",
        "bottleneck": {"rate": "10Mbps", "delay": "1ms", "buffer": "50KB", "qdisc": q},
        "flows": [
            {
                "kind": "tcp",
                "count": n,
                "access_delay": "0ms",
                "start": {"uniform": ["0s", "1s"]},
                "tcp": {"mss": 1500, "ecn": True, "cc": "reno"},
                "group": "netperf",
            }
        ],
    }


def _row(side: str, variant: str, n: int, rep: int, s: dict[str, Any], wall: float) -> dict:
    arrivals = max(int(s["arrivals"]), 1)
    return {
        "side": side,
        "variant": variant,
        "n": n,
        "rep": rep,
        "throughput_mbps": 10.0 * float(s["utilisation"]),
        "utilisation": float(s["utilisation"]),
        "loss_rate": float(s["loss_rate"]),
        "mark_rate": int(s["marks"]) / arrivals,
        "wall_s": wall,
    }


def simulate(quick: bool) -> pd.DataFrame:
    """The simulated sweep run here, without the run cache (``main`` and the live tests)."""
    rows = []
    for variant in VARIANTS:
        for n in CONNECTIONS_QUICK if quick else CONNECTIONS_FULL:
            for seed in SEEDS_QUICK if quick else SEEDS_FULL:
                t = time.monotonic()
                res = api.run(scenario(variant, n, quick), seed=seed)
                rows.append(_row("sim", variant, n, seed, res.summary, time.monotonic() - t))
    return pd.DataFrame(rows)


def points(quick: bool) -> list[Point]:
    """The simulated sweep as points of the 004 reproduction (run and cached with its own)."""
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    return [
        p
        for variant in VARIANTS
        for n in (CONNECTIONS_QUICK if quick else CONNECTIONS_FULL)
        for p in grid(
            scenario(variant, n, quick), {}, seeds=seeds, extra_labels={"variant": variant, "n": n}
        )
    ]


def simulated(runs: pd.DataFrame) -> pd.DataFrame:
    """The section's runs (:func:`points`) as the table :func:`simulate` returns, with each
    run's directory (``run_dir``, for its queue trace) where the runs table has one."""
    return pd.DataFrame(
        [
            {
                **_row(
                    "sim", str(r["variant"]), int(r["n"]), int(r["seed"]), r.to_dict(), float("nan")
                ),
                "run_dir": r.get("run_dir"),
            }
            for _, r in runs.iterrows()
        ]
    )


def live_unavailable() -> str | None:
    """Why the live part cannot run here, or None."""
    from aqmlab import _core
    from aqmlab.live import preflight

    try:
        preflight.check_access()
    except preflight.PreflightError as e:
        return str(e)
    if not hasattr(_core, "LiveBottleneck"):
        return "this build has no live bottleneck"
    return None


def run_live(quick: bool) -> pd.DataFrame:
    from aqmlab.live import live

    rows = []
    for variant in VARIANTS:
        for n in CONNECTIONS_QUICK if quick else CONNECTIONS_FULL:
            t = time.monotonic()
            res = live(scenario(variant, n, quick))
            rows.append(_row("live", variant, n, 1, res.summary, time.monotonic() - t))
    return pd.DataFrame(rows)


# ---- §V's sentences as claims ---------------------------------------------------------------


def _vals(d: pd.DataFrame, variant: str, n: int, col: str) -> list[float]:
    sel = d[(d["variant"] == variant) & (d["n"] == n)].sort_values("rep")
    if sel.empty:
        raise KeyError(f"no run of {variant} at {n} connections")
    return [float(v) for v in sel[col]]


def _ns(d: pd.DataFrame) -> list[int]:
    return sorted(int(n) for n in d["n"].unique())


def _c_high(d: pd.DataFrame) -> list[Case]:
    return [
        Case(f"{v}, {n} conn.", _vals(d, v, n, "utilisation"), 0.9)
        for v in ("conservative", "adaptive")
        for n in _ns(d)
    ]


def _c_aggressive_low(d: pd.DataFrame) -> list[Case]:
    n = _ns(d)[0]
    return [
        versus(
            f"{other} vs aggressive, {n} conn.", _vals, d, Vs(other, "aggressive"), n, "utilisation"
        )
        for other in ("conservative", "adaptive")
    ]


#: 'low' loss read as below 1 % (as paper 004's Fig. 4 claim fig4-few-loss-low), 'fairly large'
#: as above it.
LOW_LOSS = 0.01


def _c_low_loss(d: pd.DataFrame) -> list[Case]:
    return [
        Case(f"{v}, {n} conn.", _vals(d, v, n, "loss_rate"), LOW_LOSS)
        for v in ("aggressive", "adaptive")
        for n in _ns(d)
    ]


def _c_conservative_grows(d: pd.DataFrame) -> list[Case]:
    ns = _ns(d)
    top = _vals(d, "conservative", ns[-1], "loss_rate")
    return [
        versus(
            f"{ns[-1]} vs {ns[0]} conn.", _vals, d, "conservative", Vs(ns[-1], ns[0]), "loss_rate"
        ),
        Case(f"{ns[-1]} conn., fairly large", top, LOW_LOSS),
    ]


#: The simulated LAN's pipe: 10 Mbps x 2 ms base RTT, in bytes; min_th is 10 KB.
PIPE_BYTES = 10e6 * 0.002 / 8


def _why_aggressive_low(d: pd.DataFrame, r: Result) -> str:
    n = _ns(d)[0]
    tp = {v: _vals(d, v, n, "throughput_mbps") for v in VARIANTS}
    mark = _vals(d, "aggressive", n, "mark_rate")
    return (
        f"at {n} connections the aggressive setting forwards "
        + ", ".join(f"{x:.2f}" for x in tp["aggressive"])
        + " Mbps per seed (conservative "
        + ", ".join(f"{x:.2f}" for x in tp["conservative"])
        + f") while marking {100 * sum(mark) / len(mark):.1f} % of the packets: the simulated "
        f"LAN's pipe is {PIPE_BYTES / 1000:.1f} KB (base RTT 2 ms), a quarter of min_th's 10 KB, "
        "so the queue early detection keeps above min_th covers every window cut and the link "
        "never idles."
    )


def _c_harder(d: pd.DataFrame) -> list[Case]:
    """Aggressive's and adaptive's loss at the most connections against the fewest."""
    ns = _ns(d)
    return [
        versus(f"{v}, {ns[-1]} vs {ns[0]} conn.", _vals, d, v, Vs(ns[-1], ns[0]), "loss_rate")
        for v in ("aggressive", "adaptive")
    ]


def _c_half(d: pd.DataFrame) -> list[Case]:
    n = _ns(d)[-1]
    return [
        Case(f"{v}, {n} conn.", _vals(d, v, n, "mark_rate"), 0.5)
        for v in ("adaptive", "aggressive")
    ]


#: max_th of the testbed's RED (bytes): above it every packet is marked.
MAX_TH_BYTES = 40_000
#: 'oscillates': at least one full cycle (empty -> above max_th -> empty, two swings) per 5-s
#: interval of the paper's measurement, in swings per second.
SWINGS_PER_S = 2 / 5


def _queue_states(d: pd.DataFrame, variant: str, n: int) -> list[pd.DataFrame]:
    """Per seed: the run's queue samples in its measurement window (``run_dir``'s queue
    table, from the warm-up on)."""
    sel = d[(d["variant"] == variant) & (d["n"] == n)].sort_values("rep")
    if sel.empty:
        raise KeyError(f"no run of {variant} at {n} connections")
    if "run_dir" not in sel or sel["run_dir"].isna().any():
        raise KeyError("these runs keep no queue trace (the live runs measure counters only)")
    warm = float(scenario(variant, n, False)["warmup"].rstrip("s"))
    out = []
    for rd in sel["run_dir"]:
        q = load_table(str(rd), "queue")
        out.append(q[q["t_s"] >= warm])
    return out


def swing_rate(q: pd.DataFrame) -> float:
    """Swings per second of the queue between empty (the link idles: underutilisation, and no
    queue to mark) and above max_th (every packet marked, the 50 KB queue near overflow): each
    sample is one of the two states or neither, and a swing is a change of state between
    consecutive samples in one of them."""
    b = q["qlen_bytes"].to_numpy()
    state = np.where(b == 0, 0, np.where(b > MAX_TH_BYTES, 1, -1))
    state = state[state >= 0]
    span = float(q["t_s"].iloc[-1] - q["t_s"].iloc[0]) if len(q) > 1 else 0.0
    if span <= 0:
        raise ValueError("a queue trace of one sample")
    return float((np.diff(state) != 0).sum()) / span


def _c_oscillates(d: pd.DataFrame) -> list[Case]:
    n = _ns(d)[-1]
    return [
        Case(f"{v}, {n} conn.", [swing_rate(q) for q in _queue_states(d, v, n)], SWINGS_PER_S)
        for v in ("adaptive", "aggressive")
    ]


def _why_oscillates(d: pd.DataFrame, r: Result) -> str:
    n = _ns(d)[-1]
    parts = []
    for v in ("adaptive", "aggressive", "conservative"):
        qs = _queue_states(d, v, n)
        empty = [100 * float((q["qlen_bytes"] == 0).mean()) for q in qs]
        high = [100 * float((q["qlen_bytes"] > MAX_TH_BYTES).mean()) for q in qs]
        parts.append(
            f"{v}: {', '.join(f'{swing_rate(q):.2f}' for q in qs)} swings/s, empty in "
            f"{', '.join(f'{x:.1f}' for x in empty)} % and above max_th in "
            f"{', '.join(f'{x:.0f}' for x in high)} % of the samples"
        )
    return (
        f"at {n} connections, per seed: "
        + "; ".join(parts)
        + f". The adaptive and aggressive queues do not empty: the simulated LAN's pipe is "
        f"{PIPE_BYTES / 1000:.1f} KB (base RTT 2 ms), a quarter of min_th's 10 KB, so the "
        "queue early detection keeps covers the senders' window cuts; the conservative queue, "
        "which overflows, does swing. The paper names shared Ethernet segments (ACKs colliding "
        "with data) as limiting its throughput; aqmlab's links are full duplex."
    )


WHERE = "§V, Fig. 9"
CLAIMS: list[Claim] = [
    Claim(
        id="fig9a-high",
        where=WHERE + "(a)",
        quote="both the conservative and adaptive early detection algorithms maintain high "
        "throughput levels across all workloads",
        metric="utilisation",
        lhs_name="utilisation",
        op=">",
        rhs_name="0.9",
        tolerance_source="ours: 'high' read as above 90 % of the link",
        measure=_c_high,
    ),
    Claim(
        id="fig9a-aggressive-low",
        where=WHERE + "(a)",
        quote="while the aggressive early detection algorithm achieves a lower throughput for "
        "smaller numbers of connections",
        metric="utilisation at the fewest connections",
        lhs_name="conservative / adaptive",
        op=">",
        rhs_name="aggressive",
        measure=_c_aggressive_low,
        explain=_why_aggressive_low,
    ),
    Claim(
        id="fig9b-low-loss",
        where=WHERE + "(b)",
        quote="both the aggressive and the adaptive early detection algorithms maintain low "
        "packet loss rates across all workloads",
        metric="loss rate at every number of connections",
        lhs_name="aggressive / adaptive",
        op="<",
        rhs_name="1 %",
        tolerance_source="ours: 'low' read as below 1 % (paper 004's claim fig4-few-loss-low)",
        measure=_c_low_loss,
    ),
    Claim(
        id="fig9b-conservative-grows",
        where=WHERE + "(b)",
        quote="the conservative early detection algorithm suffers from fairly large packet loss "
        "rates as the number of connections increase",
        metric="conservative's loss rate at the most connections, against the fewest and "
        "against 1 %",
        lhs_name="most connections",
        op=">",
        rhs_name="fewest (and 1 %)",
        tolerance_source="ours: 'fairly large' read as above the 1 % that reads 'low'",
        measure=_c_conservative_grows,
    ),
    Claim(
        id="fig9-marks-half",
        where=WHERE,
        quote="As the number of connections increases, an interesting observation is that "
        "marking rate of the adaptive and aggressive early detection algorithms approaches 50%.",
        metric="marks over arrivals at the most connections",
        lhs_name="marking rate",
        op="~",
        rhs_name="0.5",
        tolerance=0.15,
        tolerance_source="ours: 'approaches' read as within 15 points",
        measure=_c_half,
        in_ns2=False,
    ),
    Claim(
        id="fig9-harder-with-more",
        where=WHERE + "(b)",
        quote="Because aggregate TCP behavior becomes more aggressive as the number of "
        "connections increases, it becomes more and more difficult for the RED queue to "
        "maintain low loss rates.",
        metric="loss rate of the aggressive and the adaptive settings at the most connections "
        "against the fewest",
        lhs_name="most connections",
        op=">",
        rhs_name="fewest",
        measure=_c_harder,
        in_ns2=False,
    ),
    Claim(
        id="v-oscillates",
        where=WHERE,
        quote="Fluctuations in queue lengths occur so abruptly that the RED algorithm oscillates "
        "between periods of sustained marking and packet loss and periods of minimal marking "
        "and link underutilization.",
        metric="swings per second of the queue between empty (link idle) and above max_th "
        "(40 KB: every packet marked), queue samples every 20 ms of the measured 50 s, the "
        "adaptive and aggressive settings (the paragraph's subject) at the most connections",
        lhs_name="swings per second",
        op=">",
        rhs_name="0.4",
        tolerance_source="ours: 'oscillates' read as at least one full cycle (empty -> above "
        "max_th -> empty) per 5-s interval the paper averages over",
        measure=_c_oscillates,
        explain=_why_oscillates,
        in_ns2=False,
    ),
]


def _table(d: pd.DataFrame) -> pd.DataFrame:
    g = d.groupby(["n", "variant"])[["throughput_mbps", "loss_rate", "mark_rate"]].mean()
    t = g.unstack("variant")
    t.columns = [f"{v} {m}" for m, v in t.columns]
    return t.reset_index()


def report(runs: pd.DataFrame, rep: Report, quick: bool) -> None:
    """The testbed section of the 004 report: the sweep simulated (``runs``, this section's
    points), live where possible, the claims on each."""
    rep.section("§V testbed (Fig. 9): live Linux TCP and the same sweep simulated")
    rep.text(
        "Fig. 9's sweep (10 Mbps, 50 KB queue, min_th 10 KB, max_th 40 KB; conservative "
        "max_p 0.02, aggressive 1.00, self-configuring from 0.02; Reno with ECN). Readings and "
        "the differences between today's Linux Reno and FreeBSD 2.2.6's: see "
        "`aqmlab/papers/adaptive_red_004_testbed.py`."
    )
    sim = simulated(runs)
    rep.text(f"Simulated: {len(sim)} runs (counted in the run statistics below).")
    rep.table(_table(sim), "Simulated: throughput (Mbps), loss and marking rates, seed means")
    rep.table(claims_table(evaluate(CLAIMS, sim)), "§V's sentences on the simulated sweep")
    mode = os.environ.get(ENV, "")
    why = live_unavailable() if mode in ("quick", "full") else f"{ENV} is not quick or full"
    if why is not None:
        rep.text(f"**Live part not run**: {why}.")
        return
    from aqmlab.live import preflight

    t = time.monotonic()
    lv = run_live(mode == "quick")
    took = time.monotonic() - t
    rep.text(
        f"Live: {len(lv)} runs in {took:.0f} s of wall clock on Linux "
        f"{preflight.kernel_release()} (kernel Reno, ECN)."
    )
    rep.table(_table(lv), "Live: throughput (Mbps), loss and marking rates")
    rep.table(claims_table(evaluate(CLAIMS, lv)), "§V's sentences on the live sweep")


#: This module's section of the adaptive_red_004 report (``aqmlab.papers._SECTIONS``).
SECTION = PaperSection("testbed", points, report)

__all__ = ["CLAIMS", "SECTION", "VARIANTS", "points", "report", "run_live", "scenario", "simulate"]


def main() -> None:
    """``python -m aqmlab.papers.adaptive_red_004_testbed [quick|full]``: the testbed sweep
    live and simulated, printed as Markdown (what docs/live.md quotes)."""
    import sys

    from aqmlab.claims import evaluate
    from aqmlab.live import preflight
    from aqmlab.pages import markdown_table

    quick = (sys.argv[1:] or ["full"])[0] == "quick"
    t = time.monotonic()
    sim = simulate(quick)
    print(f"simulated: {len(sim)} runs, {time.monotonic() - t:.0f} s\n")
    print(markdown_table(_table(sim)) + "\n")
    t = time.monotonic()
    lv = run_live(quick)
    print(
        f"live: {len(lv)} runs, {time.monotonic() - t:.0f} s, Linux {preflight.kernel_release()}\n"
    )
    print(markdown_table(_table(lv)) + "\n")
    for side, d in (("sim", sim), ("live", lv)):
        for r in evaluate(CLAIMS, d):
            cases = "; ".join(f"{c.label}: {c.lhs:.3g} vs {c.rhs:.3g}" for c in r.cases)
            print(f"{side} {r.claim.id}: {r.verdict} ({cases or r.error})")


if __name__ == "__main__":
    main()
