"""Records the ns-2 column of the paper reproductions: ``aqmlab/papers/ns2/<id>.json``.

    .venv/bin/python -m aqmlab.papers.ns2_record [ID ...] [--jobs 2]
    .venv/bin/python -m aqmlab.papers.ns2_record --remeasure [ID ...]   # aqmlab's side only

For each paper, every point of its full reproduction (``points(quick=False)``) on the paper's own
reading (no sensitivity variants) whose queue discipline ns-2.35 has (``aqmlab.ns2`` translates
it: DropTail, RED/GRED, ARED, REM, DRR) runs in ns-2.35 through the cross-check machinery
(:func:`aqmlab.ns2.run_seed`: the same resolved flows, start times and access delays, ns-2's
generator seeded with the same number). The algorithms the papers propose are not in ns-2; their
points are kept as empty rows so that a claim comparing a baseline with them is left out rather
than judged on half its data.

The paper module's own ``CLAIMS`` are then evaluated on a runs table built from ns-2's numbers
(utilisation, loss rate, mean queue, mean queueing delay, per-group goodput): a claim whose
cases ns-2 can run (both sides in ns-2) gets ns-2's values and verdict; one that needs what the
ns-2 runs do not record (queue traces, transfer times) is listed under ``not_recorded`` with the
reason. Per-paper tables (Table 1 of paper 001, ...) are written under ``tables``.

CPU budget: :data:`SEEDS` caps the seeds per paper (fewer than the reproduction where ns-2 is
slow; the file says so under ``seeds_note``) and :data:`SELECT` the points.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import importlib
import json
import math
import os
import resource
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import api, claims
from aqmlab.claims import NS2_DIR
from aqmlab.ns2 import check_translatable, ns2_tcp_model, run_seed
from aqmlab.ns2.reference import ns_version
from aqmlab.ns2.tcl import Unsupported
from aqmlab.ns2.units import duration_s
from aqmlab.papers import count_rule
from aqmlab.sweep import Point
from aqmlab.xcheck.aqmlab_side import aqmlab_metrics

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

COMMAND = ".venv/bin/python -m aqmlab.papers.ns2_record"


def _variant_paper(lab: dict[str, Any]) -> bool:
    return lab.get("variant", "paper") == "paper"


#: Which points of a paper's full reproduction are the paper's own reading (sensitivity runs
#: are not recorded).
SELECT: dict[str, Callable[[dict[str, Any]], bool]] = {
    "green_rate_001": _variant_paper,
    # Figs. 11 and 19 on the other reading of the lost Fig. 12 are a set-up choice's other side,
    # and so are the runs with ns-3's count rule (the set-up choice COUNT_RULE).
    "nlred_003": lambda lab: (
        lab.get("figure") not in ("11-bdp", "19-20-bdp")
        and count_rule.KEPT not in str(lab.get("figure", ""))
    ),
    # Fig. 1's RED with the other min_th is a set-up choice's other reading, not recorded.
    "adaptive_red_004": lambda lab: lab.get("figure") != "1-minth",
    # Experiments 5 and 6 are judged on goodput time series, which the ns-2 runs do not record.
    "chablis_002": lambda lab: lab.get("settings") == "main" and lab["experiment"] <= 4,
    # Transfer times (the web experiment's claims) are not in the ns-2 runs' output.
    "sfred_003": lambda lab: lab["experiment"] != "web" and lab.get("reading") != count_rule.KEPT,
    # DropTail is the only queue of paper 000 in ns-2; experiment 1 (FTP only) at three loads.
    "green_tcp_000": lambda lab: (
        lab.get("tcp", "reno") == "reno" and lab["experiment"] == 1 and lab["n"] in (100, 250, 400)
    ),
}
#: Seeds recorded per paper (None: the reproduction's own), and why fewer where fewer.
SEEDS: dict[str, tuple[tuple[int, ...] | None, str]] = {
    "green_rate_001": (
        (1, 2, 3),
        "seeds 1, 2 and 3 (the reproduction: 1-5): ns-2 needs about 5 s of CPU per point",
    ),
    "nlred_003": (None, "the reproduction's seeds (1, 2, 3)"),
    "adaptive_red_004": (None, "the reproduction's seeds"),
    "chablis_002": (None, "the reproduction's seeds; experiments 1-4 (5 and 6 not recorded)"),
    "sfred_003": (None, "the reproduction's seeds; the web experiment is not recorded"),
    "green_tcp_000": (
        (1, 2),
        "DropTail, experiment 1 at N = 100, 250, 400, seeds 1 and 2 only (the reproduction: "
        "7 loads, seeds 1-5): ns-2 needs minutes of CPU per 180 s run at 155 Mbps",
    ),
}


#: Queue disciplines the cross-check maps onto ns-2 (none of them reads an RTT label).
NS2_KINDS = ("droptail", "red", "ared", "rem", "drr")


def for_ns2(p: Point) -> Point:
    """The point as ns-2 can run it, meaning the same: RTT labels dropped where the queue does
    not read them (ns-2 has none), and drawn session durations listed one per flow (drawn
    here from the point's seed, so aqmlab's ns2-model run beside it gets the same list)."""
    doc = copy.deepcopy(p.scenario)
    if doc.get("bottleneck", {}).get("qdisc", {}).get("kind", "droptail") not in NS2_KINDS:
        return p
    seed = int(p.labels.get("seed", doc.get("seed", 1)))
    for gi, g in enumerate(doc.get("flows", [])):
        g.get("tcp", {}).pop("rtt_label", None)
        dur = g.get("duration")
        if isinstance(dur, dict) and "uniform" in dur:
            lo, hi = (duration_s(x) for x in dur["uniform"])
            rng = np.random.default_rng([seed, gi])
            draws = rng.uniform(lo, hi, int(g.get("count", 1)))
            g["duration"] = {"list": [f"{d * 1e3:.3f}ms" for d in draws]}
    return Point(labels=p.labels, scenario=doc)


def ns2_points(paper_id: str) -> tuple[list[Point], list[Point]]:
    """The paper's points on its own reading: (those ns-2 can run, the others), seeds kept."""
    mod = importlib.import_module(f"aqmlab.papers.{paper_id}")
    seeds, _ = SEEDS[paper_id]
    pts = [for_ns2(p) for p in mod.REPRODUCTION.points(False) if SELECT[paper_id](p.labels)]
    if seeds is not None:
        pts = [p for p in pts if int(p.labels.get("seed", 1)) in seeds]
    runnable, other = [], []
    for p in pts:
        try:
            doc = tomllib.loads(api.validate(ns2_tcp_model(api.prepare(p.scenario)[0])))
            check_translatable(doc)
        except Unsupported:
            other.append(p)
            continue
        runnable.append(p)
    return runnable, other


def _groups(doc: dict[str, Any]) -> list[str]:
    """The group of each flow id, in id order (groups expand in file order)."""
    out = []
    for i, g in enumerate(doc["flows"]):
        out += [g.get("group") or f"g{i}"] * int(g.get("count", 1))
    return out


#: Runs with more flows keep only per-group goodput.
MAX_FLOWS_KEPT = 200


def aqmlab_side(p: Point) -> dict[str, float | None]:
    """aqmlab's ``ns2`` TCP model on the point's resolved flows and seed, counted as ns-2
    counts: the ``aqmlab_ns2_model`` values :func:`run_point` records beside ns-2's."""
    seed = int(p.labels.get("seed", p.scenario.get("seed", 1)))
    text = ns2_tcp_model(api.prepare(p.scenario, seed=seed)[0])
    m = aqmlab_metrics(api.run(text), timeouts_after_ecn=False)
    return {k: _round(v) for k, v in m.values.items()}


def run_point(p: Point) -> dict[str, Any]:
    """One point in ns-2 (and aqmlab's ns2 TCP model beside it, for the record)."""
    seed = int(p.labels.get("seed", p.scenario.get("seed", 1)))
    sr = run_seed(p.scenario, seed)
    doc = tomllib.loads(api.validate(ns2_tcp_model(api.prepare(p.scenario, seed=seed)[0])))
    names = _groups(doc)
    per_group: dict[str, float] = {}
    for fid, g in sorted(sr.ns2.goodput_mbps.items()):
        name = names[fid] if fid < len(names) else "?"
        per_group[name] = per_group.get(name, 0.0) + g
    flat = [round(g, 6) for _, g in sorted(sr.ns2.goodput_mbps.items())]
    return {
        # Per flow (id order) only where a paper compares flows: the file stays small.
        "ns2_flow_goodput_mbps": flat if len(flat) <= MAX_FLOWS_KEPT else None,
        "ns2_goodput_mbps": {k: round(v, 6) for k, v in per_group.items()},
        "labels": _labels(p),
        "ns2": {k: _round(v) for k, v in sr.ns2.values.items()},
        "aqmlab_ns2_model": {k: _round(v) for k, v in sr.aqmlab.values.items()},
    }


def _cpu() -> float:
    """CPU seconds of this process (aqmlab runs) and its finished children (`ns`)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _round(v: float) -> float | None:
    return None if not math.isfinite(v) else round(float(v), 6)


# -- the ns-2 runs as a reproduction's runs table -----------------------------------------------

#: ns-2 metric -> the runs-table column the paper modules read.
COLUMNS = {
    "utilisation": "utilisation",
    "loss_rate": "loss_rate",
    "queue_mean_pkts": "queue_pkts.mean",
    "delay_mean_ms": "delay_ms.mean",
}


#: Runs-table columns the ns-2 runs do not give.
NOT_IN_NS2 = ("queue_pkts.std",)


def runs_frame(records: list[dict[str, Any]], others: list[Point]) -> pd.DataFrame:
    """A runs table in the shape :func:`aqmlab.sweep.run_points` gives, from ns-2's numbers;
    the points ns-2 cannot run are rows with every metric missing (NaN)."""
    rows = []
    for r in records:
        row = dict(r["labels"])
        for k, col in COLUMNS.items():
            v = r["ns2"].get(k)
            row[col] = float("nan") if v is None else v
        for g, gp in r["ns2_goodput_mbps"].items():
            row[f"groups.{g}.goodput_mbps"] = float(np.sum(gp))  # (older files: lists)
        row["ns2_goodput"] = r["ns2_goodput_mbps"]
        row["ns2_flows"] = r.get("ns2_flow_goodput_mbps")
        rows.append(row)
    for p in others:
        row = {k: _plain(v) for k, v in p.labels.items()}
        row.update({col: float("nan") for col in COLUMNS.values()})
        row["ns2_goodput"] = None
        row["ns2_flows"] = None
        rows.append(row)
    df = pd.DataFrame(rows)
    # Not in ns-2's output: present and missing, so the claims that need them are left out.
    for col in NOT_IN_NS2:
        df[col] = float("nan")
    df["cached"] = False
    return df


def _missing_measure(e: Exception) -> str:
    """Why a claim's measure failed on ns-2's runs, in words: a missing key is a quantity the
    recorded ns-2 runs do not carry (ns-2 has no such counter or the recording left it out)."""
    if isinstance(e, KeyError):
        what = str(e.args[0]) if e.args else str(e)
        if what.startswith("no runs"):
            return f"these points were not recorded in ns-2 ({what})"
        return f"ns-2's recorded runs do not carry {e}"
    return f"{type(e).__name__}: {e}"


def ns2_claims(paper_id: str, frame: pd.DataFrame) -> tuple[dict[str, Any], dict[str, str]]:
    """The paper's claims judged on ns-2's runs: {claim id: {verdict, cases, of}} for claims
    with at least one case ns-2 ran on both sides, and {claim id: reason} for the others."""
    mod = importlib.import_module(f"aqmlab.papers.{paper_id}")
    out: dict[str, Any] = {}
    missing: dict[str, str] = {}
    try:
        data = DATA[paper_id](mod, frame)
    except (KeyError, IndexError, ValueError) as e:
        why = f"the paper's measures need what ns-2's runs do not record ({type(e).__name__}: {e})"
        return out, {c.id: why for c in mod.CLAIMS}
    for c in mod.CLAIMS:
        try:
            cases = c.measure(data)
        except (KeyError, IndexError, ValueError, ZeroDivisionError, AttributeError) as e:
            missing[c.id] = NOT_RUN.get(paper_id, {}).get(str(e).split(",")[0].strip("'\""), "")
            if "run_dir" in str(e):
                missing[c.id] = "needs per-run tables (queue traces, time series) ns-2's runs lack"
            missing[c.id] = missing[c.id] or _missing_measure(e)
            continue
        judged = []
        for k in cases:
            try:
                r = claims.judge_case(c, k)
            except ValueError as e:
                missing[c.id] = str(e)
                break
            if math.isfinite(r.lhs) and math.isfinite(r.rhs):
                judged.append(r)
        if c.id in missing:
            continue
        if not judged:
            missing[c.id] = "no case with both sides in ns-2: one side is an algorithm ns-2 lacks"
            continue
        out[c.id] = {
            "verdict": claims.combine(c.quorum, [k.verdict for k in judged]),
            "of": len(cases),
            "cases": {
                k.label: [_round(k.lhs), _round(k.rhs), None if math.isnan(k.noise) else k.noise]
                for k in judged
            },
            "seeds": max(k.seeds for k in judged),
        }
    return out, missing


def _chablis_units(mod: Any, frame: pd.DataFrame) -> pd.DataFrame:
    """Paper 002's per-seed units (its ``units``) from ns-2's per-flow goodputs: experiments 1,
    3 and 4 flow by flow, 2 by cluster (5 and 6 need goodput time series, not recorded). The
    algorithms ns-2 lacks get the same units with every value missing."""
    rows, shapes = [], {}
    f = mod.main_runs(frame)
    for _, r in f[f["ns2_goodput"].notna()].iterrows():
        e, alg, seed = int(r["experiment"]), str(r["algorithm"]), int(r["seed"])
        gp: dict[str, list[float]] = r["ns2_goodput"]
        flows: list[float] = r["ns2_flows"]  # in flow id order
        if e in mod.FLOW_EXPS:
            vals = {f"flow {i}": g for i, g in enumerate(flows)}
        elif e == 2:
            vals = {c: float(np.sum(gp.get(c, 0.0))) for c in mod.CLUSTERS}
        else:
            continue
        drop = 100.0 * float(r["loss_rate"])
        rows.append(mod._unit_row(str(e), e, alg, seed, vals, drop, float(np.sum(flows))))
        shapes[(e, seed)] = list(vals)
    for _, r in f[f["ns2_goodput"].isna()].iterrows():
        e, seed = int(r["experiment"]), int(r["seed"])
        if (e, seed) in shapes:
            row = mod._unit_row(
                str(e), e, str(r["algorithm"]), seed, dict.fromkeys(shapes[(e, seed)], 0.0), 0, 0
            )
            nan = float("nan")
            row.update(min=nan, max=nan, jain=nan, drop_pct=nan, goodput_total=nan)
            row["values"] = dict.fromkeys(shapes[(e, seed)], nan)
            rows.append(row)
    return pd.DataFrame(rows)


#: Why a claim has no ns-2 verdict, by the first words of its measure's error, where the
#: error alone would not say it.
_SERIES = "judged on goodput time series, which the ns-2 runs do not record"
NOT_RUN: dict[str, dict[str, str]] = {
    "chablis_002": {
        f"no runs of experiment {e}{p}": f"experiments 5 and 6 are {_SERIES}"
        for e in (5, 6)
        for p in "ABCD"
    }
}


#: How each paper module turns a runs table into what its claims' measures read.
DATA: dict[str, Callable[[Any, pd.DataFrame], Any]] = {
    "green_rate_001": lambda mod, f: mod.paper_runs(mod.metrics(f)),
    "nlred_003": lambda mod, f: mod.table(f),
    "adaptive_red_004": lambda mod, f: mod.Data(f, False),
    "chablis_002": lambda mod, f: mod.Data(_chablis_units(mod, f)),
    "sfred_003": lambda mod, f: mod.measure(mod.main_runs(f)),
    "green_tcp_000": lambda mod, f: mod.Data(mod.by_tcp(mod.metrics(f), mod.PAPER_TCP)),
}


def tables(paper_id: str, frame: pd.DataFrame) -> dict[str, Any]:
    """Per-paper published / ns-2 / aqmlab tables (see papers/ns2/README.md)."""
    mod = importlib.import_module(f"aqmlab.papers.{paper_id}")
    if paper_id == "green_rate_001":
        m = mod.paper_runs(mod.metrics(frame))
        t1 = m[m["trial"] == 1].groupby("algorithm")[["utilisation", "loss_pct", "delay_ms"]]
        mean = t1.mean().dropna()
        by_load = m[m["trial"] == 1].groupby(["algorithm", "sessions"])
        load_mean = by_load[["utilisation", "loss_pct", "delay_ms"]].mean().dropna()
        per_load: dict[str, dict[str, Any]] = {}
        for (a, n), r in load_mean.iterrows():
            per_load.setdefault(a, {})[str(n)] = {c: round(float(v), 4) for c, v in r.items()}
        return {
            "table1": {
                a: {c: round(float(mean.loc[a, c]), 4) for c in mean.columns} for a in mean.index
            },
            "trial1_by_sessions": per_load,
        }
    if paper_id == "adaptive_red_004":
        d = mod.Data(frame, False)
        fig1: dict[str, dict[str, Any]] = {}
        for n in d.ns("1"):
            c = d.curve("1", n, "loss_rate").mean()
            if c.notna().any():
                fig1[str(n)] = {"argmin_max_p": float(c.idxmin())}
        return {"fig1": fig1}
    if paper_id == "chablis_002":
        u = _chablis_units(mod, frame)
        agg = mod.aggregate(u.dropna(subset=["min"]))
        fig6: dict[str, dict[str, Any]] = {}
        fig14: dict[str, dict[str, Any]] = {}
        for _, r in agg.iterrows():
            fig6.setdefault(f"exp{r['key']}", {})[r["algorithm"]] = mod._fmt_band(
                r["min"], r["max"]
            )
            row14 = fig14.setdefault(str(r["experiment"]), {})
            row14[f"{r['algorithm']}_drop"] = round(float(r["drop_pct"]), 2)
            row14[f"{r['algorithm']}_goodput"] = round(float(r["goodput_total"]), 2)
        return {"fig6": fig6, "fig14": fig14}
    return {}


def _source() -> str:
    """Which ns-2 ran (the Debian package's version; `ns -version` prints nothing)."""
    import subprocess

    v = ns_version()
    if not v:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "ns2"],
            capture_output=True,
            text=True,
            check=False,
        )
        v = f"ns-2.35 (Debian ns2 {out.stdout.strip()})" if out.returncode == 0 else "ns-2.35"
    return v


def record(paper_id: str, *, jobs: int) -> Path:
    runnable, others = ns2_points(paper_id)
    t0 = time.perf_counter()
    cpu0 = _cpu()
    print(f"{paper_id}: {len(runnable)} points in ns-2, {len(others)} not in ns-2", flush=True)
    done = 0

    def one(p: Point) -> dict[str, Any]:
        nonlocal done
        r = run_point(p)
        done += 1
        print(f"  {done}/{len(runnable)} {r['labels']}", flush=True)
        return r

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        records = list(pool.map(one, runnable))
    frame = runs_frame(records, others)
    found, missing = ns2_claims(paper_id, frame)
    doc = {
        "source": f"{_source()}, aqmlab crosscheck, {dt.date.today().isoformat()}",
        "command": f"{COMMAND} {paper_id}",
        "points": len(runnable),
        "not_in_ns2_points": len(others),
        "seeds": sorted({int(r["labels"].get("seed", 1)) for r in records}),
        "seeds_note": SEEDS[paper_id][1],
        "cpu_s": round(_cpu() - cpu0, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
        "claims": found,
        "not_recorded": missing,
        "tables": tables(paper_id, frame),
        "runs": records,
    }
    path = NS2_DIR / f"{paper_id}.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{paper_id}: wrote {path} ({doc['cpu_s']} s CPU, ns-2 and aqmlab)", flush=True)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", help="paper ids (default: all six)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--remeasure",
        action="store_true",
        help="rerun aqmlab's side of the recorded runs with the current build (no ns-2 runs)",
    )
    ap.add_argument(
        "--reclaim",
        action="store_true",
        help="re-judge the claims from the runs already recorded (no ns-2 runs)",
    )
    a = ap.parse_args(argv)
    ids = a.ids or list(SELECT)
    for pid in ids:
        if a.remeasure:
            remeasure(pid, jobs=a.jobs)
        elif a.reclaim:
            reclaim(pid)
        else:
            record(pid, jobs=a.jobs)
    return 0


def remeasure(paper_id: str, *, jobs: int) -> Path:
    """Reruns aqmlab's side (``aqmlab_ns2_model``) of every recorded run with the current build,
    keeping ns-2's numbers (ns-2.35 does not change; aqmlab's TCP model may). The file's
    ``source`` gains the date of the new aqmlab side."""
    path = NS2_DIR / f"{paper_id}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    runnable, _ = ns2_points(paper_id)
    by_labels = {json.dumps(_labels(p), sort_keys=True): p for p in runnable}
    todo = []
    for r in doc["runs"]:
        p = by_labels.get(json.dumps(r["labels"], sort_keys=True))
        if p is None:
            raise SystemExit(f"{paper_id}: recorded run {r['labels']} is no longer a point")
        todo.append(p)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        sides = list(pool.map(aqmlab_side, todo))
    for r, side in zip(doc["runs"], sides, strict=True):
        r["aqmlab_ns2_model"] = side
    src = doc["source"].split(", aqmlab side ")[0]
    doc["source"] = f"{src}, aqmlab side {dt.date.today().isoformat()}"
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{paper_id}: aqmlab's side of {len(todo)} runs rerun, wrote {path}", flush=True)
    return path


def _labels(p: Point) -> dict[str, Any]:
    return {k: _plain(v) for k, v in p.labels.items()}


def reclaim(paper_id: str) -> Path:
    """Re-judges the claims and tables of a recorded file from its runs (after a claim changed)."""
    path = NS2_DIR / f"{paper_id}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    _, others = ns2_points(paper_id)
    # The points ns-2 cannot run pair with the recorded ones by seed: keep the recorded seeds
    # (a reproduction may run more seeds than were recorded).
    recorded = {int(r["labels"].get("seed", 1)) for r in doc["runs"]}
    others = [p for p in others if int(p.labels.get("seed", 1)) in recorded]
    frame = runs_frame(doc["runs"], others)
    doc["claims"], doc["not_recorded"] = ns2_claims(paper_id, frame)
    doc["tables"] = tables(paper_id, frame)
    doc["source"] = reclaimed_source(doc["source"], _source())
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def reclaimed_source(source: str, ns2: str) -> str:
    """The ``source`` of a re-judged file: which ns-2 ran, then everything the recorded source
    says after the cross-check (the recording date and, when remeasured, the date of aqmlab's
    side), e.g. "ns-2.35 (...), aqmlab crosscheck, 2026-11-23, aqmlab side 2026-11-26"."""
    mark = "aqmlab crosscheck, "
    tail = source.split(mark, 1)[1] if mark in source else source.rsplit(", ", 1)[-1]
    return f"{ns2}, {mark}{tail}"


if __name__ == "__main__":
    raise SystemExit(main())
