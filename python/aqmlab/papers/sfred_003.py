"""Reproduction of paper 003 §3 (SFRED half): RED vs SFRED on the paper's Fig. 1 network.

``aqmlab reproduce sfred_003 [--quick]``:

- two FTP flows with 10 and 100 ms access delays (Figs. 2, 3);
- the same two FTP flows with 30 web-like flows (Figs. 4, 5), the CDF of the web transfer delays
  (Fig. 6) and their mean and variance beside Table 1;
- two FTP flows with two CBR-UDP flows (Figs. 7, 8).

The claims are :data:`CLAIMS` (one row per sentence of §3 that states a result), evaluated by
:mod:`aqmlab.claims`. The fast-flow probability's two readings (``fast_p`` = raised, the prose;
printed, the formula), the unresponsive-flow rule on/off, the MRUL's counting window (1 s
halving or cumulative), the slow-flow raise k (10; 0 and 35) and the MRUL's size (100; 16 in
the web experiment) run beside the main runs, and so does the TCP senders' variant (Reno; Tahoe,
ns-2's default ``Agent/TCP``, with RED and SFRED), in a
section of their own: they are not claims, and the claims are judged on each as set-up choices.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import plots
from aqmlab.claims import Adjective, Case, Choice, Claim, evaluate, ns2_cell, ns2_refs
from aqmlab.papers import count_rule
from aqmlab.registry import jain_index
from aqmlab.reproduce import Paper, Report, load_base, published
from aqmlab.sweep import Point, load_scenario, load_summary, load_table

ID = "sfred_003"
TITLE = "SFRED: scalable fair RED (paper 003 §3): RED vs SFRED"
PAPER_FILE = "003_edfb7d1401f469aa.txt"

# ---- experiments ----------------------------------------------------------------------------

PUB = "sfred_nlred_003"
READINGS = """\
Readings taken where the paper is silent (the paper gives the topology, RED settings and flows
of each experiment, not the rest):

- Topology (Fig. 1, `published.toml` `sfred_nlred_003.settings`): senders --10 Mbps, tau_i-->
  G0 --1.5 Mbps, tau_c--> G1 --10 Mbps, tau_r--> R, mapped onto the dumbbell as access links
  (10 Mbps, tau_i), bottleneck (1.5 Mbps, tau_c = 10 ms, buffer 50 packets, the queue under test)
  and sink link (10 Mbps, tau_r). ACKs return over the same links.
- RED and SFRED: min_th 5, max_th 15, w_q 0.002, max_p 0.1, dropping (no ECN). SFRED alpha =
  beta = 0.1, eta = 10 packets (§2); its MRUL size (100), slow-flow threshold raise k (10 packets)
  and counting window (1 s halving) are not in the paper: the `sfred` kind's defaults. An MRUL
  of 100 never fills here (at most 32 flows); its size is a set-up choice run both ways (16,
  half the web experiment's flows, in the web experiment), and so is the counting window
  (halved every 1 s, or counted from each flow's first packet as §2.1 words it), and so is k:
  k = eta = 10 reserves room for the eta packets a new flow sends before it can see three
  duplicate ACKs; k = 0 (no slow-flow protection) and k = 35 (the thresholds raised to 40 / 50,
  the most the 50-packet buffer allows) bound what any other k can do.
- RED restarts its early-drop count after every forced drop, a full buffer's included, as
  ns-2's red.cc, which the paper ran (`forced_resets_count`; ns-3's rule is a set-up choice run
  both ways). SFRED restarts it on a forced drop (Floyd and Jacobson's rule), not on a full
  buffer.
- §2.2's fast-flow probability is printed as `max_pd = T_f·max_p/T_i`, which *lowers* a fast
  flow's probability, while the prose says it increases "by T_f/T_i times". The main runs take
  the prose (`fast_p = "raised"`, `max_p·T_i/T_f`); the section "Readings of §2.1-§2.3"
  runs the printed formula too.
- TCP: Reno (§3 names no variant; the paper's NLRED half reports 'results based on TCP
  Reno'; Tahoe, ns-2's default `Agent/TCP`, is a set-up choice run both ways, with RED and
  SFRED), 1 KB packets; receiver window 2 x BDP per flow, BDP =
  1.5 Mbps x the flow's base RTT, rounded up (19 / 87 packets for 50 / 230 ms; 18 / 85 for 46 /
  226 ms with tau_r = 3 ms).
- Web-like flows (§3): fetch D_w = 10 packets, then restart from slow start on the same
  connection, no think time. Transfer delay = first packet of a fetch sent to its last
  acknowledged. Table 1's mean and variance are taken over the transfers finished in the
  measurement window.
- Run lengths are not given except for Figs. 4-6 (2000 s): two FTP flows 300 s, with CBR 200 s;
  measurement from 20 s. CBR-UDP: 1 KB every 10 ms and 500 B every 5 ms are 800 kbit/s each,
  together more than the 1.5 Mbps bottleneck.
- "Bandwidth usage": §3.1 says "Each marker on the curves represents a 10s average of the TCP
  throughput traced at router G0". The claims read each flow's throughput leaving G0 over the
  measurement window: the packets it sent in the window less those G0 dropped, in bytes on
  the wire (retransmissions included, as a trace at G0 counts them). That count is G0's
  departures but for the packets in flight to G0 or queued there at the window's two ends:
  G0's packet trace (seed 1 of each experiment, RED and SFRED; 2026-11-26) gives every
  group's throughput within 0.2 % of it. Goodput at the receivers is the measurement choice's other
  reading. The time series (Figs. 2-5: 10 s
  bins, Figs. 7, 8: 1 s bins) show goodput at the receivers.
"""
ALGORITHMS = ("red", "sfred")
LABEL = {"red": "RED", "sfred": "SFRED"}
RED_SETTINGS: dict[str, Any] = {"min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1}
QDISC: dict[str, dict[str, Any]] = {
    "red": count_rule.ns2_rule({"kind": "red", **RED_SETTINGS}),
    "sfred": {"kind": "sfred", **RED_SETTINGS, "alpha": 0.1, "beta": 0.1, "eta": 10},
}
#: A counting window longer than every run: the MRUL's counters are never halved, so H_ri,
#: H_di, H_r and H_d count from the flow's first packet, as §2.1 describes them.
CUMULATIVE_WINDOW = "100000s"
#: An MRUL smaller than the web experiment's 32 flows (the set-up choice MRUL_SIZE).
MRUL_SMALL = 16
#: Readings of SFRED run beside the main one: (label, qdisc overrides). "rule off" sets beta so
#: large that L_i > (1 + beta) L never holds: §2.3's unresponsive-flow punishment disabled.
READINGS_SFRED: dict[str, dict[str, Any]] = {
    "raised": {"fast_p": "raised"},
    "printed": {"fast_p": "printed"},
    "raised, rule off": {"fast_p": "raised", "beta": 1e9},
    "printed, rule off": {"fast_p": "printed", "beta": 1e9},
    "raised, cumulative": {"fast_p": "raised", "window": CUMULATIVE_WINDOW},
    "raised, k 0": {"fast_p": "raised", "k": 0},
    "raised, k 35": {"fast_p": "raised", "k": 35},
    f"raised, MRUL {MRUL_SMALL}": {"fast_p": "raised", "mrul_size": MRUL_SMALL},
}
#: The readings run only in some experiments: an MRUL of MRUL_SMALL flows holds all 2 and 4
#: flows of the two-FTP and CBR experiments, whose runs would be the main ones.
READING_EXPERIMENTS: dict[str, tuple[str, ...]] = {f"raised, MRUL {MRUL_SMALL}": ("web",)}
EXPERIMENTS = ("ftp2", "web", "cbr")
#: The reading label of the runs with Tahoe senders (the set-up choice TCP_VARIANT), RED and
#: SFRED (SFRED with its main reading, "raised").
TAHOE = "tahoe"
QUICK_DURATION = {"ftp2": "100s", "web": "300s", "cbr": "60s"}
BOTTLENECK_MBPS = 1.5
#: Seeds: the claims compare close numbers, so every point runs over several seeds (quick: 3).
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1, 2, 3)
#: Fig. 6's "most of the transmissions finish in 2s".
WITHIN_S = 2.0


def scenario(
    exp: str, algorithm: str, quick: bool, seed: int = 1, reading: str = "raised"
) -> dict[str, Any]:
    """One run; ``reading``: SFRED's (:data:`READINGS_SFRED`), or for RED
    ``count_rule.KEPT`` (ns-3's count rule, the set-up choice COUNT_RULE); for either,
    :data:`TAHOE` (every TCP sender Tahoe, the set-up choice TCP_VARIANT)."""
    sc = copy.deepcopy(load_base(ID, exp))
    sc["bottleneck"]["qdisc"] = copy.deepcopy(QDISC[algorithm])
    if reading == TAHOE:
        for f in sc["flows"]:
            if "tcp" in f:
                f["tcp"]["variant"] = "tahoe"
        if algorithm == "sfred":
            sc["bottleneck"]["qdisc"].update(READINGS_SFRED["raised"])
    elif algorithm == "sfred":
        sc["bottleneck"]["qdisc"].update(READINGS_SFRED[reading])
    elif reading == count_rule.KEPT:
        sc["bottleneck"]["qdisc"] = count_rule.ns3_rule(sc["bottleneck"]["qdisc"])
    sc["seed"] = seed
    if quick:
        sc["duration"] = QUICK_DURATION[exp]
        sc["warmup"] = "10s"
    return sc


def _point(exp: str, alg: str, quick: bool, seed: int, reading: str) -> Point:
    labels = {"figure": exp, "experiment": exp, "algorithm": alg, "seed": seed}
    labels["reading"] = reading if alg == "sfred" or reading in (count_rule.KEPT, TAHOE) else "-"
    return Point(labels=labels, scenario=scenario(exp, alg, quick, seed, reading))


# ---- runs -----------------------------------------------------------------------------------


def points(quick: bool) -> list[Point]:
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    main = [
        _point(e, a, quick, s, "raised") for e in EXPERIMENTS for a in ALGORITHMS for s in seeds
    ]
    other = [
        _point(e, "sfred", quick, s, r)
        for e in EXPERIMENTS
        for r in READINGS_SFRED
        if r != "raised" and e in READING_EXPERIMENTS.get(r, EXPERIMENTS)
        for s in seeds
    ]
    # The set-up choice COUNT_RULE: RED with ns-3's count rule, every experiment and seed.
    kept = [_point(e, "red", quick, s, count_rule.KEPT) for e in EXPERIMENTS for s in seeds]
    # The set-up choice TCP_VARIANT: RED and SFRED with Tahoe senders, every experiment and seed.
    tahoe = [_point(e, a, quick, s, TAHOE) for e in EXPERIMENTS for a in ALGORITHMS for s in seeds]
    return main + other + kept + tahoe


# ---- measurements ---------------------------------------------------------------------------


def main_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of the main reading (RED, and SFRED with the prose's fast-flow probability)."""
    if "reading" not in runs:
        return runs
    return runs[runs["reading"].isin(["-", "raised"])]


def _rows(runs: pd.DataFrame, exp: str, alg: str, reading: str = "raised") -> list[pd.Series]:
    """The runs of one experiment and algorithm (and SFRED reading), lowest seed first."""
    m = runs[(runs["experiment"] == exp) & (runs["algorithm"] == alg)]
    if "reading" in m:
        m = m[m["reading"] == (reading if alg == "sfred" else "-")]
    return [r for _, r in m.sort_values("seed").iterrows()]


def _row(runs: pd.DataFrame, exp: str, alg: str) -> pd.Series:
    return _rows(runs, exp, alg)[0]


def group_goodput_seeds(
    runs: pd.DataFrame, exp: str, alg: str, reading: str = "raised"
) -> dict[str, list[float]]:
    """Goodput (Mbps) of each group over the measurement window, one value per seed."""
    per = [load_summary(r["run_dir"])["groups"] for r in _rows(runs, exp, alg, reading)]
    if not per:
        raise KeyError(f"no runs of {exp}/{alg}/{reading}")
    return {g: [float(p[g]["goodput_mbps"]) for p in per] for g in per[0]}


#: The two readings of the paper's "bandwidth usage" (the measurement choice BANDWIDTH_AT).
AT_G0 = "throughput at G0"
AT_RECEIVERS = "goodput at the receivers"


def _g0_mbps(run_dir: str) -> dict[str, float]:
    """Each group's throughput leaving G0 over the measurement window (Mbps): the packets its
    flows sent in the window less those dropped at G0, times their size on the wire."""
    summ = load_summary(run_dir)
    size = {}
    for f in load_scenario(run_dir)["flows"]:
        size[f["group"]] = float(f["cbr"]["packet_bytes"] if "cbr" in f else f["tcp"]["mss"])
    fl = load_table(run_dir, "flows")
    window = float(summ["duration_s"]) - float(summ["warmup_s"])
    left = (fl["sent"] - fl["drops"]).groupby(fl["group"]).sum()
    return {str(g): float(n) * size[str(g)] * 8.0 / window / 1e6 for g, n in left.items()}


def group_rate_seeds(
    runs: pd.DataFrame, exp: str, alg: str, at: str = AT_G0, reading: str = "raised"
) -> dict[str, list[float]]:
    """Each group's bandwidth (Mbps) over the measurement window, one value per seed: its
    throughput leaving G0 (``AT_G0``) or its goodput at the receivers (``AT_RECEIVERS``)."""
    if at == AT_RECEIVERS:
        return group_goodput_seeds(runs, exp, alg, reading)
    per = [_g0_mbps(r["run_dir"]) for r in _rows(runs, exp, alg, reading)]
    if not per:
        raise KeyError(f"no runs of {exp}/{alg}/{reading}")
    return {g: [p[g] for p in per] for g in per[0]}


def group_goodput(runs: pd.DataFrame, exp: str, alg: str) -> dict[str, float]:
    """Goodput (Mbps) of each group over the measurement window, mean over seeds."""
    return {g: float(np.mean(v)) for g, v in group_goodput_seeds(runs, exp, alg).items()}


def transfer_stats(runs: pd.DataFrame, alg: str) -> dict[str, float]:
    """Web transfer delays from the summaries: transfers (sum over seeds), mean (s) and
    variance (s^2) (means over seeds)."""
    per = [
        load_summary(r["run_dir"])["groups"]["web"].get("transfers", {})
        for r in _rows(runs, "web", alg)
    ]
    return {
        "count": float(sum(t.get("count", 0) for t in per)),
        "mean_s": float(np.mean([t.get("mean_s", float("nan")) for t in per])),
        "variance": float(np.mean([t.get("variance_s2", float("nan")) for t in per])),
    }


def _delays(r: pd.Series) -> np.ndarray:
    t = load_table(r["run_dir"], "transfers")
    if t.empty:
        return np.array([])
    warm = float(load_summary(r["run_dir"])["warmup_s"])
    if "group" in t.columns:
        t = t[t["group"] == "web"]
    return t.loc[t["start_s"] >= warm, "duration_s"].to_numpy(dtype=float)


def transfer_delays(runs: pd.DataFrame, alg: str) -> np.ndarray:
    """Every web transfer delay (s) in the measurement windows of all seeds, for the CDF."""
    out = [_delays(r) for r in _rows(runs, "web", alg)]
    return np.sort(np.concatenate(out)) if out else np.array([])


@dataclass
class Measured:
    """What the claims read: per algorithm, one value per seed."""

    # Bandwidths: throughput at G0 or goodput at the receivers (measure's ``at``).
    gap: dict[str, list[float]]  # ftp2: |short-RTT - long-RTT bandwidth| (Mbps)
    ftp_total: dict[str, list[float]]  # ftp2: the two FTP flows' total bandwidth
    policy_ftp2: dict[str, list[float]]  # ftp2: §2.3's policy drops per run
    fair_dev: dict[str, list[float]]  # web: |ftp1 - fair| + |ftp2 - fair| (Mbps)
    within: dict[str, list[float]]  # web: share of transfers done within 2 s
    spread: dict[str, list[float]]  # web: 90th minus 10th percentile of the transfer delay (s)
    mean_s: dict[str, list[float]]
    variance: dict[str, list[float]]
    tcp: dict[str, list[float]]  # cbr: TCP bandwidth total
    udp: dict[str, list[float]]  # cbr: UDP bandwidth total
    jain_cbr: dict[str, list[float]]  # cbr: Jain index over the four flows


def measure(runs: pd.DataFrame, at: str = AT_G0) -> Measured:
    """The claims' values; the flows' bandwidths read ``at`` G0 or at the receivers."""
    fair = BOTTLENECK_MBPS / 32.0
    m = Measured({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
    for a in ALGORITHMS:
        g2 = group_rate_seeds(runs, "ftp2", a, at)
        m.gap[a] = [abs(s - lg) for s, lg in zip(g2["ftp1"], g2["ftp2"], strict=True)]
        m.ftp_total[a] = [x + y for x, y in zip(g2["ftp1"], g2["ftp2"], strict=True)]
        m.policy_ftp2[a] = [
            float(load_summary(r["run_dir"])["drops"].get("policy", 0))
            for r in _rows(runs, "ftp2", a)
        ]
        gw = group_rate_seeds(runs, "web", a, at)
        m.fair_dev[a] = [
            abs(x - fair) + abs(y - fair) for x, y in zip(gw["ftp1"], gw["ftp2"], strict=True)
        ]
        rows = _rows(runs, "web", a)
        ds = [_delays(r) for r in rows]
        m.within[a] = [float((d <= WITHIN_S).mean()) if d.size else float("nan") for d in ds]
        m.spread[a] = [
            float(np.percentile(d, 90) - np.percentile(d, 10)) if d.size else float("nan")
            for d in ds
        ]
        tr = [load_summary(r["run_dir"])["groups"]["web"].get("transfers", {}) for r in rows]
        m.mean_s[a] = [float(t.get("mean_s", float("nan"))) for t in tr]
        m.variance[a] = [float(t.get("variance_s2", float("nan"))) for t in tr]
        gc = group_rate_seeds(runs, "cbr", a, at)
        m.tcp[a] = [x + y for x, y in zip(gc["ftp1"], gc["ftp2"], strict=True)]
        m.udp[a] = [x + y for x, y in zip(gc["cbr1"], gc["cbr2"], strict=True)]
        m.jain_cbr[a] = [jain_index([gc[k][i] for k in gc]) for i in range(len(gc["ftp1"]))]
    return m


# ---- claims ---------------------------------------------------------------------------------


def _pair(attr: str, label: str, published: str = "") -> Any:
    def f(m: Measured) -> list[Case]:
        v = getattr(m, attr)
        return [Case(label, v["sfred"], v["red"], published)]

    return f


def _why_mean_delay(m: Measured, r: Any) -> str:
    """The web transfers' mean, variance and share within 2 s under SFRED and RED."""

    def one(a: str) -> str:
        return (
            f"{a.upper()} mean {np.mean(m.mean_s[a]):.2f} s, variance "
            f"{np.mean(m.variance[a]):.2f} s², {100 * np.mean(m.within[a]):.1f} % within "
            f"{WITHIN_S:g} s"
        )

    return (
        f"{one('sfred')}; {one('red')}: SFRED cuts the variance (the slow tail of RED's "
        "transfers) but finishes fewer transfers within 2 s, so its mean is higher"
        if np.mean(m.within["sfred"]) < np.mean(m.within["red"])
        and np.mean(m.variance["sfred"]) < np.mean(m.variance["red"])
        else f"{one('sfred')}; {one('red')}"
    )


def _why_same_link(m: Measured, r: Any) -> str:
    pol = float(np.mean(m.policy_ftp2["sfred"]))
    return (
        f"two TCP flows and no unresponsive one, yet §2.3's rule drops {pol:.0f} packets per run "
        f"under SFRED (RED {float(np.mean(m.policy_ftp2['red'])):.0f}); the FTP flows carry "
        f"{float(np.mean(m.ftp_total['sfred'])):.3f} Mbps against RED's "
        f"{float(np.mean(m.ftp_total['red'])):.3f} on the 1.5 Mbps link. See the set-up choice "
        "'§2.3's unresponsive-flow rule' for the same runs with the rule off."
    )


def _why_not_rigorous(m: Measured, r: Any) -> str:
    return (
        f"SFRED leaves the two CBR-UDP flows {float(np.mean(m.udp['sfred'])):.3f} Mbps in all "
        f"(RED {float(np.mean(m.udp['red'])):.3f}) and the two FTP flows "
        f"{float(np.mean(m.tcp['sfred'])):.3f}: the UDP flows are shut out rather than held "
        "near their share, so the four flows are far from fair, not nearly fair."
    )


_T1 = published(f"{PUB}.web_transfer_delay")
#: This paper's "much", one factor for both halves of paper 003 (nlred_003 reads "much more
#: noticeable" and "extremely poor" with it).
MUCH = 2.0
#: §3.2's "it is clear that": read as this paper's "much", on both halves of the sentence.
CLEAR = Adjective(
    "it is clear", factor=MUCH, why=f"ours: a factor {MUCH:g}, as this paper's 'much' is read"
)
CLAIMS: list[Claim] = [
    Claim(
        id="fig2-3-fairer",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Figs. 2-3",
        quote="With much less margin between the two curves, Figures 2 and 3 show that SFRED "
        "achieved fairer bandwidth allocation than RED.",
        metric="margin between the two curves: |throughput at G0 of the 10 ms FTP flow - the "
        "100 ms one's| over the measurement window (Mbps)",
        lhs_name="SFRED",
        op="<",
        rhs_name="RED",
        unit="Mbps",
        adjective=Adjective(
            "much less margin", factor=MUCH, why="ours: SFRED's margin at most half RED's"
        ),
        measure=_pair("gap", "two FTP flows"),
    ),
    Claim(
        id="fig2-3-same-link",
        explain=_why_same_link,
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Figs. 2-3",
        quote="SFRED achieved fairer bandwidth allocation than RED.",
        metric="the two FTP flows' total throughput at G0 (Mbps): an allocation of the same link",
        lhs_name="SFRED",
        op=">",
        rhs_name="95 % of RED's",
        unit="Mbps",
        tolerance_source="ours: allocating the link, not leaving it idle: at most 5 % less total",
        measure=lambda m: [
            Case("two FTP flows", m.ftp_total["sfred"], [0.95 * x for x in m.ftp_total["red"]])
        ],
    ),
    Claim(
        id="fig4-5-fair-rate",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Figs. 4-5",
        quote="Again we see SFRED enables much efficient fair bandwidth allocation than RED.",
        metric="the two FTP flows' total distance from the fair rate 1.5 Mbps/32, throughput at "
        "G0 (Mbps)",
        lhs_name="SFRED",
        op="<",
        rhs_name="RED",
        unit="Mbps",
        adjective=Adjective("much", factor=MUCH, why="ours: SFRED's distance at most half RED's"),
        measure=_pair("fair_dev", "30 web + 2 FTP"),
    ),
    Claim(
        id="fig6-most-within-2s",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Fig. 6",
        quote="the transfer delay of Web-like flows under SFRED is more stable than RED, in that "
        "most of the transmissions finish in 2s",
        metric="share of SFRED's web transfers finished within 2 s",
        lhs_name="SFRED's share",
        op=">",
        rhs_name="1/2",
        tolerance_source="the paper's word: 'most' = more than half",
        measure=lambda m: [Case("web transfers", m.within["sfred"], 0.5)],
    ),
    Claim(
        id="fig6-more-stable",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Fig. 6",
        quote="the transfer delay of Web-like flows under SFRED is more stable than RED",
        metric="share of web transfers finished within 2 s (the paper's own yardstick)",
        lhs_name="SFRED",
        op=">",
        rhs_name="RED",
        measure=_pair("within", "web transfers"),
    ),
    Claim(
        id="table1-mean",
        explain=_why_mean_delay,
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Table 1",
        quote="It shows that SFRED performs better in the both metrics. (mean)",
        metric="mean web transfer delay (s)",
        lhs_name="SFRED",
        op="<",
        rhs_name="RED",
        unit="s",
        measure=_pair(
            "mean_s",
            "web transfers",
            f"SFRED {_T1['sfred']['mean_s']} vs RED {_T1['red']['mean_s']} s",
        ),
    ),
    Claim(
        id="table1-variance",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.1, Table 1",
        quote="It shows that SFRED performs better in the both metrics. (variance)",
        metric="variance of the web transfer delay (s²)",
        lhs_name="SFRED",
        op="<",
        rhs_name="RED",
        unit="s²",
        measure=_pair(
            "variance",
            "web transfers",
            f"SFRED {_T1['sfred']['variance']} vs RED {_T1['red']['variance']} s²",
        ),
    ),
    Claim(
        id="fig7-8-protects-tcp",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.2, Figs. 7-8",
        quote="From the figures, it is clear that the implementation of SFRED protected TCP flows",
        metric="the two FTP flows' total throughput at G0 beside two CBR-UDP flows (Mbps)",
        lhs_name="SFRED",
        op=">",
        rhs_name="RED",
        unit="Mbps",
        adjective=CLEAR,
        measure=_pair("tcp", "2 FTP + 2 CBR"),
    ),
    Claim(
        id="fig7-8-punishes-udp",
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.2, Figs. 7-8",
        quote="(it is clear that ...) by punishing the unresponsive UDP flows",
        metric="the two CBR-UDP flows' total throughput at G0 (Mbps)",
        lhs_name="SFRED",
        op="<",
        rhs_name="RED",
        unit="Mbps",
        adjective=CLEAR,
        measure=_pair("udp", "2 FTP + 2 CBR"),
    ),
    Claim(
        id="fig7-8-not-rigorous",
        explain=_why_not_rigorous,
        in_ns2=False,  # SFRED is not in ns-2
        where="§3.2, Figs. 7-8",
        quote="although rigorous fairness is still not attained",
        metric="Jain's index of the four flows' throughputs at G0 under SFRED: close to fair, "
        "not fair",
        lhs_name="0.8 and SFRED's Jain index",
        op="<",
        rhs_name="SFRED's Jain index and 0.99",
        tolerance_source="ours: 'rigorous fairness' read as a Jain index of 0.99 or more; 'still "
        "not attained' (after protecting TCP by punishing UDP) as close to it: 0.8 or more",
        measure=lambda m: [
            Case("not rigorous: Jain vs 0.99", m.jain_cbr["sfred"], 0.99),
            Case(
                "close to fair: 0.8 vs Jain", [0.8] * len(m.jain_cbr["sfred"]), m.jain_cbr["sfred"]
            ),
        ],
    ),
]

#: The set-up choices run both ways (SFRED's readings of §2.2 and §2.3).
FAST_P = Choice(
    name="§2.2's fast-flow probability",
    default="raised, max_p T_i / T_f (the prose)",
    other="printed, T_f max_p / T_i (the formula)",
    why="the prose says a fast flow's probability increases 'by T_f/T_i times'; the printed "
    "formula lowers it, which contradicts the mechanism's purpose.",
)
COUNTING_WINDOW = Choice(
    name="SFRED's counting window",
    default="every counter halved each 1 s (the sfred kind's default)",
    other=f"cumulative counts (window {CUMULATIVE_WINDOW}: never halved within a run)",
    why="§2.1 counts packets received and dropped without saying over what time; cumulative "
    "counts make an old flow's H_ri its packets since it was first seen, so T_i and L_i stop "
    "following its current rate; the 1 s halving keeps them a recent rate.",
)
UNRESPONSIVE_RULE = Choice(
    name="§2.3's unresponsive-flow rule",
    default="on (the paper's algorithm)",
    other="off (beta = 1e9: L_i > (1 + beta) L never holds)",
    why="the rule is part of SFRED as §2.3 defines it; off shows what it does to TCP-only "
    "traffic, where no flow is unresponsive.",
)
_K_WHY = (
    "the paper gives no k (§2.4: 'both the minimum threshold and maximum thresholds increased "
    "by k packets ... allocating k packets buffer in the queue to protect slow flow'; §6: 'a "
    "small amount of buffer'); k = eta = 10 reserves room for the eta packets a new flow sends "
    "before it can see three duplicate ACKs, the reason §2.4 gives for eta. The two ends, no "
    "protection and the most the buffer allows, bound every other k."
)
SLOW_K_NONE = Choice(
    name="§2.4's slow-flow raise k: none",
    default="k = 10 packets (= eta)",
    other="k = 0 (slow flows get RED's thresholds: no protection)",
    why=_K_WHY,
)
SLOW_K_MOST = Choice(
    name="§2.4's slow-flow raise k: the most",
    default="k = 10 packets (= eta)",
    other="k = 35 (slow flows' thresholds 40 / 50 packets, the top of the 50-packet buffer)",
    why=_K_WHY,
)
MRUL_SIZE = Choice(
    name="SFRED's MRUL size N",
    default="N = 100 flows (the list holds every flow of every experiment)",
    other=f"N = {MRUL_SMALL} (fewer than the web experiment's 32 flows)",
    why="§2.1 keeps 'up to N most recently seen active flows' and never gives N; the abstract "
    "calls them 'statistics of limited active flows'. With N at least the number of flows the "
    f"list never forgets a flow; N = {MRUL_SMALL}, half the web experiment's 32, makes it "
    "forget flows as a router with more flows than N would. The two-FTP and CBR experiments "
    "(2 and 4 flows) are the same under both and are not rerun.",
)
TCP_VARIANT = Choice(
    name="the TCP senders' variant",
    default="Reno (`Agent/TCP/Reno`: fast recovery)",
    other="Tahoe (ns-2's default `Agent/TCP`: cwnd = 1 and slow start after a fast retransmit)",
    why="§3 says only 'with NS2' and names no TCP variant; ns-2's default agent is Tahoe. Reno "
    "stays the main reading because the same paper's NLRED half (§5, same simulator) names its "
    "TCP: 'only a representative subset of the results based on TCP Reno is reported'. Both "
    "queues run with the same variant in each reading.",
)
STABLE_READING = Choice(
    name="Fig. 6's 'more stable'",
    default="more transfers finished within 2 s than under RED (the sentence's own 'in that')",
    other="a narrower spread of the transfer delay: 90th minus 10th percentile",
    why="the sentence gives its yardstick ('more stable than RED, in that most of the "
    "transmissions finish in 2s'); 'stable' alone would read as a narrow distribution, which "
    "Table 1's variance (claim table1-variance) checks by its second moment and this reading by "
    "the width of the CDF's middle 80 %. Only this claim's reading changes, on the same runs.",
    claims=("fig6-more-stable",),
)


def _stable_by_spread(claims: list[Claim]) -> list[Claim]:
    """The claims with Fig. 6's 'more stable' read by the spread of the delays
    (:data:`STABLE_READING`)."""
    return [
        dataclasses.replace(
            c,
            metric="90th minus 10th percentile of the web transfer delay (s)",
            op="<",
            unit="s",
            measure=_pair("spread", "web transfers"),
        )
        if c.id in STABLE_READING.claims
        else c
        for c in claims
    ]


BANDWIDTH_AT = Choice(
    name="where a flow's bandwidth is read",
    default=f"{AT_G0}: packets sent less those dropped at G0, bytes on the wire (§3.1)",
    other=f"{AT_RECEIVERS}: data delivered in order (what the time series show)",
    why="§3.1: 'Each marker on the curves represents a 10s average of the TCP throughput traced "
    "at router G0' (Figs. 2-3; Figs. 4-5 and 7-8 show the same 'bandwidth usage'), so the "
    "default reads what leaves G0, retransmissions included. Arrivals at G0 are not a reading: "
    "a CBR source's arrivals do not depend on the queue, yet §3.2 sees SFRED 'punishing the "
    "unresponsive UDP flows' in Figs. 7-8. Only the bandwidth claims' reading changes, on the "
    "same runs.",
    claims=(
        "fig2-3-fairer",
        "fig2-3-same-link",
        "fig4-5-fair-rate",
        "fig7-8-protects-tcp",
        "fig7-8-punishes-udp",
        "fig7-8-not-rigorous",
    ),
)


def _at_receivers(claims: list[Claim]) -> list[Claim]:
    """The claims with the bandwidth claims' metric worded for goodput at the receivers
    (:data:`BANDWIDTH_AT`; their values come from ``measure(runs, AT_RECEIVERS)``)."""
    return [
        dataclasses.replace(
            c,
            metric=c.metric.replace("throughputs at G0", "goodputs at the receivers").replace(
                "throughput at G0", "goodput at the receivers"
            ),
        )
        if c.id in BANDWIDTH_AT.claims
        else c
        for c in claims
    ]


COUNT_RULE = count_rule.choice(
    "§3: 'simulating the network in Figure 1 with NS2'",
    "RED in every experiment and seed (SFRED does not read the key)",
)
#: SFRED reading of each choice's other side.
CHOICE_READING = {
    FAST_P.name: "printed",
    UNRESPONSIVE_RULE.name: "raised, rule off",
    COUNTING_WINDOW.name: "raised, cumulative",
    SLOW_K_NONE.name: "raised, k 0",
    SLOW_K_MOST.name: "raised, k 35",
    MRUL_SIZE.name: f"raised, MRUL {MRUL_SMALL}",
}

#: Sentences of §3 and §6 not counted separately, and why.
NOT_SEPARATE = [
    "Abstract and §1: 'Its performance improvements are demonstrated with extensive "
    "simulations' and 'Simulations demonstrate that SFRED has significantly improved the "
    "fairness of RED' summarise §3 (claims 1-3 and 8-10).",
    "§6: 'Simulations show that the SFRED proposed has significantly improved the fairness of "
    "RED' summarises Figs. 2-5 (claims 1-3).",
    "§6: 'with only limited resource usage' is about memory (the MRUL's size), not a result of "
    "the simulations.",
    "Abstract, §1 and §6: 'the complexity of SFRED is proportional to the size of the MRUL but "
    "not coupled with the queue buffer size or the number of active flows, so it is scalable' "
    "is about the algorithm's cost, which the paper does not measure.",
    "§2.2: 'applying a strict bandwidth limitation (e.g. dropping all packets received from a "
    "flow except the first five in each 0.5s interval) results in lower than fair rate "
    "throughput for a TCP flow' argues the design; the paper shows no run of it.",
    "§3.1: 'The dash dotted curve presents the theoretical fair rate—the bottleneck bandwidth "
    "over the total number of flows' describes Figs. 4-5; that rate (1.5 Mbps / 32) is the "
    "yardstick of fig4-5-fair-rate.",
]


# ---- report ---------------------------------------------------------------------------------


def _series(runs: pd.DataFrame, exp: str, groups: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    out = {}
    for a in ALGORITHMS:
        g = load_table(_row(runs, exp, a)["run_dir"], "groups")
        out[LABEL[a]] = g[g["group"].isin(groups)]
    return out


def _readings_table(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for exp in EXPERIMENTS:
        cases = [("red", "-")] + [("sfred", r) for r in READINGS_SFRED]
        for alg, reading in cases:
            rr = _rows(runs, exp, alg, reading)
            if not rr:
                continue
            summ = [load_summary(r["run_dir"]) for r in rr]
            gp = group_goodput_seeds(runs, exp, alg, reading)
            row: dict[str, Any] = {
                "experiment": exp,
                "queue": LABEL[alg] + ("" if alg == "red" else f" ({reading})"),
                "utilisation": float(np.mean([s["utilisation"] for s in summ])),
                "utilisation sd": float(np.std([s["utilisation"] for s in summ], ddof=1))
                if len(summ) > 1
                else float("nan"),
                "policy drops": float(np.mean([s["drops"].get("policy", 0) for s in summ])),
                "early drops": float(np.mean([s["drops"].get("early", 0) for s in summ])),
            }
            if exp == "ftp2":
                row["ftp1/ftp2"] = float(
                    np.mean(np.array(gp["ftp1"]) / np.maximum(gp["ftp2"], 1e-9))
                )
            if exp == "cbr":
                row["TCP Mbps"] = float(np.mean(np.add(gp["ftp1"], gp["ftp2"])))
                row["UDP Mbps"] = float(np.mean(np.add(gp["cbr1"], gp["cbr2"])))
            rows.append(row)
    return pd.DataFrame(rows)


def report(all_runs: pd.DataFrame, rep: Report, quick: bool) -> None:
    runs = main_runs(all_runs)
    m = measure(runs)
    rep.claims(evaluate(CLAIMS, m, ns2_refs(ID)))
    n_seeds = int(runs["seed"].nunique())
    rep.section("Setup and readings")
    rep.text(READINGS)
    rep.text(
        f"Every point runs with {n_seeds} seeds; claims compare the per-seed values (the test "
        "under the claims table), tables show means over seeds, the "
        "CDF pools every seed's transfers, time series show seed 1."
        + (
            " **Quick mode**: shortened runs (two FTP 100 s, web 300 s instead of 2000 s, CBR "
            "60 s; measured from 10 s)."
            if quick
            else ""
        )
    )

    rep.section("Two FTP flows (Figs. 2, 3)")
    rep.figure(
        plots.series_per_panel(
            _series(runs, "ftp2", ("ftp1", "ftp2")),
            t="t_s",
            y="goodput_mbps",
            by="group",
            ylabel="goodput (Mbps)",
        ),
        "fig2_3_ftp2",
        "Goodput of the two FTP flows (tau = 10 ms: ftp1, 100 ms: ftp2), 10 s averages, RED "
        "(Fig. 2) and SFRED (Fig. 3), seed 1.",
    )
    gp2 = {a: group_goodput(runs, "ftp2", a) for a in ALGORITHMS}
    rep.table(
        pd.DataFrame([{"queue": LABEL[a], **gp2[a]} for a in ALGORITHMS]),
        "Mean goodput (Mbps) of each FTP flow over the measurement window.",
    )

    rep.section("30 web-like and 2 FTP flows (Figs. 4-6, Table 1)")
    fair = BOTTLENECK_MBPS / 32.0
    rep.figure(
        plots.series_per_panel(
            _series(runs, "web", ("ftp1", "ftp2")),
            t="t_s",
            y="goodput_mbps",
            by="group",
            ylabel="goodput (Mbps)",
        ),
        "fig4_5_web",
        "Goodput of the two FTP flows with 30 web-like flows, 10 s averages, RED (Fig. 4) and "
        f"SFRED (Fig. 5), seed 1. Fair rate 1.5 Mbps / 32 = {fair * 1000:.0f} kbps.",
    )
    cdf = []
    for a in ALGORITHMS:
        d = transfer_delays(runs, a)
        cdf.append(pd.DataFrame({"delay": d, "cdf": np.arange(1, d.size + 1) / max(d.size, 1)}))
        cdf[-1]["queue"] = LABEL[a]
    fig = plots.series_per_panel(
        {"web transfer delay": pd.concat(cdf)},
        t="delay",
        y="cdf",
        by="queue",
        ylabel="CDF",
        xlabel="transfer delay (s)",
    )
    fig.axes[0].set_xscale("log")
    fig.axes[0].axvline(WITHIN_S, color="k", ls=":", lw=1)
    rep.figure(fig, "fig6_cdf", "CDF of the web-like flows' transfer delays (Fig. 6), all seeds.")
    pub = published(f"{PUB}.web_transfer_delay")
    ts = {a: transfer_stats(runs, a) for a in ALGORITHMS}
    rep.table(
        pd.DataFrame(
            [
                {
                    "queue": LABEL[a],
                    "transfers": int(ts[a]["count"]),
                    "mean (s) published": pub[a]["mean_s"],
                    "mean (s) ns-2": ns2_cell(ns2_refs(ID), "table1", a, "mean_s"),
                    "mean (s) aqmlab": round(ts[a]["mean_s"], 3),
                    "variance published": pub[a]["variance"],
                    "variance ns-2": ns2_cell(ns2_refs(ID), "table1", a, "variance"),
                    "variance aqmlab": round(ts[a]["variance"], 3),
                    "share within 2 s": round(float(np.mean(m.within[a])), 3),
                }
                for a in ALGORITHMS
            ]
        ),
        "Web-like transfer delay beside Table 1 (published / ns-2 / aqmlab).",
    )
    quant = {a: _quantiles(transfer_delays(runs, a)) for a in ALGORITHMS}
    rep.text(
        "Transfer-delay percentiles: "
        + "; ".join(
            f"{LABEL[a]} " + ", ".join(f"p{k} {v:.2f} s" for k, v in quant[a].items())
            for a in ALGORITHMS
        )
        + "."
    )
    p50 = {a: quant[a].get(50, float("nan")) for a in ALGORITHMS}
    p99 = {a: quant[a].get(99, float("nan")) for a in ALGORITHMS}
    if p99["sfred"] < p99["red"] and p50["sfred"] > p50["red"]:
        rep.text(
            f"SFRED shortens the tail (p99 {p99['sfred']:.2f} s vs RED's {p99['red']:.2f} s) "
            f"but lengthens the typical transfer (median {p50['sfred']:.2f} s vs "
            f"{p50['red']:.2f} s)."
        )
        rep.hypothesis(
            "a web flow here is one long-lived connection fetching 10 packets at a time, so in "
            "the MRUL it soon has H_ri >= eta and loses the slow-flow protection meant for new "
            "flows.",
            "count the web packets classed slow / normal / fast per run (an SFRED probe), or run "
            "each fetch on a new connection.",
        )

    rep.section("Two FTP and two CBR-UDP flows (Figs. 7, 8)")
    rep.figure(
        plots.series_per_panel(
            _series(runs, "cbr", ("cbr1", "cbr2", "ftp1", "ftp2")),
            t="t_s",
            y="goodput_mbps",
            by="group",
            ylabel="goodput (Mbps)",
        ),
        "fig7_8_cbr",
        "Goodput per flow in 1 s bins, RED (Fig. 7) and SFRED (Fig. 8), seed 1. cbr1: tau 10 ms, "
        "1 KB / 10 ms; cbr2: tau 100 ms, 500 B / 5 ms; ftp1 / ftp2: tau 10 / 100 ms.",
    )
    gpc = {a: group_goodput(runs, "cbr", a) for a in ALGORITHMS}
    rep.table(
        pd.DataFrame([{"queue": LABEL[a], **gpc[a]} for a in ALGORITHMS]),
        "Mean goodput (Mbps) per flow with two CBR-UDP flows.",
    )

    rep.section("Readings of §2.1-§2.3 (not claims)")
    rt = _readings_table(all_runs)
    rep.table(
        rt,
        "Every experiment with RED and eight SFRED readings: fast-flow probability raised (the "
        "prose, main runs) or printed (the formula), §2.3's unresponsive rule on or off "
        "(beta = 1e9), the MRUL's counters halved every 1 s (main runs) or cumulative, "
        "§2.4's slow-flow raise k = 10 (main runs), 0 or 35 packets, and (web only) an MRUL of "
        f"{MRUL_SMALL} flows instead of 100. "
        "Means over seeds; policy drops are §2.3's drops of flows classed unresponsive.",
    )
    _readings_text(rep, rt)
    main_res = rep.results
    for choice in (FAST_P, UNRESPONSIVE_RULE, COUNTING_WINDOW, SLOW_K_NONE, SLOW_K_MOST, MRUL_SIZE):
        reading = CHOICE_READING[choice.name]
        other = all_runs[all_runs["reading"].isin(["-", reading])].copy()
        if (other["reading"] == reading).any():
            # An experiment the reading does not run (READING_EXPERIMENTS) keeps its main runs.
            ran = set(other.loc[other["reading"] == reading, "experiment"])
            same = runs[(runs["algorithm"] == "sfred") & ~runs["experiment"].isin(ran)]
            other = pd.concat([other, same], ignore_index=True)
            other.loc[other["algorithm"] == "sfred", "reading"] = "raised"
            rep.choice(choice, main_res, evaluate(CLAIMS, measure(other), ns2_refs(ID)))
    rep.choice(STABLE_READING, main_res, evaluate(_stable_by_spread(CLAIMS), m, ns2_refs(ID)))
    at_rx = measure(runs, AT_RECEIVERS)
    rep.choice(BANDWIDTH_AT, main_res, evaluate(_at_receivers(CLAIMS), at_rx, ns2_refs(ID)))
    kept = all_runs[all_runs["reading"] == count_rule.KEPT]
    if not kept.empty:
        other = pd.concat([runs[runs["algorithm"] != "red"], kept.assign(reading="-")])
        rep.choice(COUNT_RULE, main_res, evaluate(CLAIMS, measure(other), ns2_refs(ID)))
    tahoe = all_runs[all_runs["reading"] == TAHOE].copy()
    if not tahoe.empty:
        tahoe["reading"] = np.where(tahoe["algorithm"] == "sfred", "raised", "-")
        rep.choice(TCP_VARIANT, main_res, evaluate(CLAIMS, measure(tahoe), ns2_refs(ID)))
    rep.section("Sentences not counted as separate claims")
    rep.text("\n".join(f"- {s}" for s in NOT_SEPARATE))


def _readings_text(rep: Report, rt: pd.DataFrame) -> None:
    """Sentences built from the readings table, each only when its numbers say so."""
    f = rt[rt["experiment"] == "ftp2"].set_index("queue")
    red, main = f.loc["RED"], f.loc["SFRED (raised)"]
    off = f.loc["SFRED (raised, rule off)"]
    printed = f.loc["SFRED (printed)"]
    rep.text(
        f"Two FTP flows: RED uses {red['utilisation']:.3f} of the link; SFRED "
        f"{main['utilisation']:.3f} with the prose's reading and {printed['utilisation']:.3f} "
        f"with the printed formula, with {main['policy drops']:.0f} and "
        f"{printed['policy drops']:.0f} policy drops per run; with the unresponsive rule off "
        f"{off['utilisation']:.3f} ({off['policy drops']:.0f} policy drops) and a short/long "
        f"goodput ratio of {off['ftp1/ftp2']:.2f} (RED {red['ftp1/ftp2']:.2f}, SFRED "
        f"{main['ftp1/ftp2']:.2f})."
    )
    closer = abs(off["ftp1/ftp2"] - red["ftp1/ftp2"]) < abs(main["ftp1/ftp2"] - red["ftp1/ftp2"])
    if main["policy drops"] > 0 and off["utilisation"] > main["utilisation"] + 0.05:
        rep.text(
            "Two TCP flows have no unresponsive flow among them, yet §2.3's rule drops "
            f"{main['policy drops']:.0f} packets per run and costs "
            f"{off['utilisation'] - main['utilisation']:.3f} of utilisation: SFRED's gain in "
            "fairness here comes from punishing a responsive flow."
            + (" With the rule off the ratio moves back toward RED's." if closer else "")
        )
    if abs(printed["utilisation"] - main["utilisation"]) < 0.02:
        rep.text(
            "The two readings of the fast-flow probability differ by less than 0.02 in "
            "utilisation here: the unresponsive rule, not §2.2's formula, sets the outcome."
        )


def _quantiles(d: np.ndarray) -> dict[int, float]:
    if d.size == 0:
        return {}
    return {k: float(np.percentile(d, k)) for k in (10, 50, 90, 99)}


REPRODUCTION = Paper(ID, TITLE, PAPER_FILE, points, report)
