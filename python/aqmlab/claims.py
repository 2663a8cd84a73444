"""Claims as data: every claim a paper's text makes, one declarative table per paper, one engine.

A paper module lists its claims as :class:`Claim` rows: where the paper says it (figure, table,
section), the sentence quoted, the metric and the comparison, the tolerance and where the
tolerance comes from (the paper's own words, or "none": any difference beyond the seed noise).
Each claim's ``measure`` turns the paper's measurements into :class:`Case` objects (one per
scenario the sentence covers: every load, experiment or period it speaks of), each holding the
two compared quantities *per seed*.

:func:`evaluate` is the one engine that gives every claim its verdict:

- per case, the paired difference over seeds gives the margin by which the comparison is met
  and the noise: twice the standard error of the mean difference (about a 95 % interval);
- ``holds`` when the margin exceeds the noise, ``fails`` when it is below minus the noise,
  ``within noise`` in between (a single seed has no noise estimate: its verdict says so);
- a claim over several cases combines them with its ``quorum``: ``all`` (the paper's "in all
  scenarios", "regardless of the load"), ``most`` ("in most scenarios") or ``any`` ("in some
  cases").

Sensitivity runs (other senders, other readings of a lost setting) are never claims: reports
show them in sections of their own, so the counts here are unique paper claims.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

Verdict = Literal["holds", "within noise", "fails", "not measured"]
#: Rendering order and the words the reports use.
VERDICTS: tuple[Verdict, ...] = ("holds", "within noise", "fails", "not measured")
#: The comparisons a claim can make: lhs > rhs, lhs < rhs, lhs ≈ rhs (|lhs - rhs| <= tolerance).
Op = Literal[">", "<", "~"]
#: Where recorded ns-2 references live: ``papers/ns2/<paper id>.json`` (see :func:`ns2_refs`).
NS2_DIR = Path(__file__).resolve().parent / "papers" / "ns2"
#: Shown where there is no ns-2 reference (yet) or the algorithm does not exist in ns-2.
DASH = "—"


@dataclass(frozen=True)
class Case:
    """One scenario a claim speaks of: the two compared quantities, one value per seed (paired
    by seed), or a constant ``rhs`` (a threshold the paper prints)."""

    label: str
    lhs: Sequence[float]
    rhs: Sequence[float] | float
    #: The paper's own numbers for this case, as text ("" when it prints none).
    published: str = ""


@dataclass(frozen=True)
class Claim:
    """One sentence of a paper, checked.

    ``op`` compares ``lhs`` with ``rhs`` (named in ``lhs_name``/``rhs_name``, in ``unit``).
    ``tolerance`` loosens (> 0) or tightens (< 0) the comparison: ``>`` holds when
    lhs - rhs + tolerance > 0, ``<`` when rhs - lhs + tolerance > 0, ``~`` when
    |lhs - rhs| <= tolerance. ``tolerance_source`` says where it comes from."""

    id: str
    where: str
    quote: str
    metric: str
    lhs_name: str
    op: Op
    rhs_name: str
    measure: Callable[[Any], list[Case]]
    unit: str = ""
    tolerance: float = 0.0
    tolerance_source: str = "none: any difference beyond the seed noise"
    quorum: Literal["all", "most", "any"] = "all"
    #: Whether the algorithms compared exist in ns-2 (the ns-2 column is "—" otherwise).
    in_ns2: bool = True

    def comparison(self) -> str:
        sym = {">": ">", "<": "<", "~": "≈"}[self.op]
        tol = ""
        if self.tolerance:
            tol = f" (tolerance {self.tolerance:+g}{' ' + self.unit if self.unit else ''})"
        q = {"all": "", "most": " in most cases", "any": " in at least one case"}[self.quorum]
        return f"{self.lhs_name} {sym} {self.rhs_name}{tol}{q}"


@dataclass
class CaseResult:
    label: str
    lhs: float
    rhs: float
    margin: float
    noise: float
    seeds: int
    verdict: Verdict
    published: str


@dataclass
class Result:
    claim: Claim
    verdict: Verdict
    cases: list[CaseResult] = field(default_factory=list)
    error: str = ""
    ns2: str = DASH
    #: The claim judged on the recorded ns-2 runs of the baselines (:func:`ns2_refs`), or "".
    ns2_verdict: str = ""

    def held(self) -> bool:
        return self.verdict == "holds"


def _margin(op: Op, d: float, tol: float) -> float:
    if op == ">":
        return d + tol
    if op == "<":
        return -d + tol
    return tol - abs(d)


def judge_case(claim: Claim, case: Case) -> CaseResult:
    """The verdict on one case: the margin of the mean paired difference against its noise."""
    lhs = np.asarray(case.lhs, dtype=float)
    rhs = (
        np.full(lhs.shape, float(case.rhs))
        if isinstance(case.rhs, int | float)
        else np.asarray(case.rhs, dtype=float)
    )
    if lhs.shape != rhs.shape or lhs.size == 0:
        raise ValueError(
            f"claim {claim.id!r}, case {case.label!r}: {lhs.size} lhs values vs {rhs.size} rhs "
            "(one per seed on each side)"
        )
    d = lhs - rhs
    n = int(d.size)
    mean_d = float(d.mean())
    noise = 2.0 * float(d.std(ddof=1)) / math.sqrt(n) if n >= 2 else float("nan")
    margin = _margin(claim.op, mean_d, claim.tolerance)
    if not math.isfinite(margin):
        verdict: Verdict = "not measured"
    elif n >= 2 and abs(margin) <= noise:
        verdict = "within noise"
    else:
        verdict = "holds" if margin > 0 else "fails"
    return CaseResult(
        label=case.label,
        lhs=float(lhs.mean()),
        rhs=float(rhs.mean()),
        margin=margin,
        noise=noise,
        seeds=n,
        verdict=verdict,
        published=case.published,
    )


def combine(quorum: str, verdicts: Sequence[Verdict]) -> Verdict:
    """A claim's verdict from its cases' (see the module docstring)."""
    if not verdicts or any(v == "not measured" for v in verdicts):
        return "not measured"
    n = len(verdicts)
    held = sum(v == "holds" for v in verdicts)
    noisy = sum(v == "within noise" for v in verdicts)
    if quorum == "any":
        if held:
            return "holds"
        return "within noise" if noisy else "fails"
    if quorum == "most":
        if held > n / 2:
            return "holds"
        return "within noise" if held + noisy > n / 2 else "fails"
    if held == n:
        return "holds"
    return "within noise" if held + noisy == n else "fails"


def evaluate(claims: Sequence[Claim], data: Any, ns2: dict[str, Any] | None = None) -> list[Result]:
    """Every claim's verdict on ``data`` (whatever the paper module's measures read). A measure
    that cannot find its runs gives "not measured" with the reason, never a silent pass."""
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"claim ids must be unique; repeated: {', '.join(dup)}")
    out = []
    for c in claims:
        try:
            cases = [judge_case(c, k) for k in c.measure(data)]
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            out.append(Result(c, "not measured", error=f"{type(e).__name__}: {e}"))
            continue
        r = Result(c, combine(c.quorum, [k.verdict for k in cases]), cases)
        r.ns2 = _ns2_text(c, ns2 or {})
        r.ns2_verdict = _ns2_verdict(c, ns2 or {})
        out.append(r)
    return out


def ns2_refs(paper_id: str) -> dict[str, Any]:
    """Recorded ns-2 references for a paper (``papers/ns2/<id>.json``, written by the ns-2
    cross-check): ``{"claims": {claim id: {case label: [lhs, rhs]}}, "tables": {...}}``;
    empty when none are recorded yet."""
    path = NS2_DIR / f"{paper_id}.json"
    if not path.is_file():
        return {}
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def ns2_cell(refs: dict[str, Any], table: str, row: str, col: str) -> Any:
    """One cell of a published / ns-2 / aqmlab table from the recorded references
    (``refs["tables"][table][row][col]``), or "—" when none is recorded."""
    v = refs.get("tables", {}).get(table, {}).get(row, {}).get(col)
    return DASH if v is None else v


def _ns2_entry(c: Claim, refs: dict[str, Any]) -> dict[str, Any]:
    """A claim's recorded ns-2 entry in the one form: {"verdict", "of", "cases"}; an older
    bare {case label: [lhs, rhs]} has no verdict."""
    entry = refs.get("claims", {}).get(c.id)
    if not entry:
        return {}
    if "cases" in entry:
        return dict(entry)
    return {"verdict": "", "of": len(entry), "cases": entry}


def _ns2_verdict(c: Claim, refs: dict[str, Any]) -> str:
    return str(_ns2_entry(c, refs).get("verdict", ""))


def _ns2_text(c: Claim, refs: dict[str, Any]) -> str:
    e = _ns2_entry(c, refs)
    if not e:
        why = refs.get("not_recorded", {}).get(c.id)
        if why is not None and c.in_ns2:
            return f"{DASH} ({why})"
        return DASH if c.in_ns2 else "not in ns-2"
    cases = e["cases"]
    body = "; ".join(f"{k}: {_num(v[0])} vs {_num(v[1])}" for k, v in cases.items())
    head = e.get("verdict", "")
    if head and len(cases) < int(e.get("of", len(cases))):
        head += f" ({len(cases)} of {e['of']} cases have both sides in ns-2)"
    return f"{head}: {body}" if head else body


def ns2_agreement(results: Sequence[Result]) -> list[str]:
    """Sentences on where ns-2 and aqmlab part on a claim (from the verdicts, no fixed text):
    ns-2 holds and aqmlab does not, and the other way round."""
    out = []
    for i, r in enumerate(results, 1):
        v = r.ns2_verdict
        if not v or v == r.verdict:
            continue
        if v == "holds" and r.verdict != "holds":
            out.append(
                f"Claim {i} ({r.claim.id}): ns-2 agrees with the paper (holds on the "
                f"cases ns-2 runs), aqmlab does not ({r.verdict})."
            )
        elif r.verdict == "holds":
            out.append(
                f"Claim {i} ({r.claim.id}): aqmlab agrees with the paper, ns-2 does not "
                f"({v} on the cases ns-2 runs)."
            )
        else:
            out.append(f"Claim {i} ({r.claim.id}): ns-2 {v}, aqmlab {r.verdict}.")
    return out


#: Label columns that name an experiment, the first present groups the baseline table.
_EXPERIMENT_LABELS = ("trial", "experiment", "figure")


def ns2_baselines(refs: dict[str, Any], by: Sequence[str] | None = None) -> pd.DataFrame:
    """The recorded baseline runs, ns-2 beside aqmlab (its ``ns2`` TCP model on the same
    resolved flows, recorded with them): means over seeds and points of utilisation, loss (%)
    and mean queue (packets), per algorithm and experiment (or ``by``)."""
    runs = refs.get("runs") or []
    if not runs:
        return pd.DataFrame()
    labels = pd.DataFrame([r["labels"] for r in runs])
    if by is None:
        exp = next((c for c in _EXPERIMENT_LABELS if c in labels.columns), None)
        by = ["algorithm"] + ([exp] if exp else [])
    rows = []
    for side, key in (("ns-2", "ns2"), ("aqmlab", "aqmlab_ns2_model")):
        vals = pd.DataFrame([r[key] for r in runs]).astype(float)
        df = pd.concat([labels[list(by)], vals], axis=1)
        df["loss_pct"] = 100.0 * df["loss_rate"]
        g = df.groupby(list(by), sort=False)[["utilisation", "loss_pct", "queue_mean_pkts"]]
        rows.append(g.mean().add_suffix(f" {side}"))
    out = pd.concat(rows, axis=1).reset_index()
    out.insert(len(by), "runs", labels.groupby(list(by), sort=False).size().to_numpy())
    order = [*by, "runs"]
    for m in ("utilisation", "loss_pct", "queue_mean_pkts"):
        order += [f"{m} ns-2", f"{m} aqmlab"]
    return out[order].round(3)


def _num(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    a = abs(x)
    if a >= 100:
        return f"{x:.0f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def counts(results: Sequence[Result]) -> dict[str, int]:
    """How many unique claims got each verdict."""
    return {v: sum(r.verdict == v for r in results) for v in VERDICTS}


def summary_line(results: Sequence[Result]) -> str:
    c = counts(results)
    parts = [f"{c['holds']} of {len(results)} paper claims hold"]
    if c["within noise"]:
        parts.append(f"{c['within noise']} within noise")
    parts.append(f"{c['fails']} fail")
    if c["not measured"]:
        parts.append(f"{c['not measured']} not measured")
    return ", ".join(parts) + "."


def _cases_text(r: Result, unit: str) -> str:
    if r.error:
        return r.error
    u = f" {unit}" if unit else ""
    parts = []
    for k in r.cases:
        noise = "" if math.isnan(k.noise) else f" ±{_num(k.noise)}"
        mark = "" if k.verdict == "holds" else f" [{k.verdict}]"
        parts.append(f"{k.label}: {_num(k.lhs)} vs {_num(k.rhs)}{u}{noise}{mark}")
    return "; ".join(parts)


def _published_text(r: Result) -> str:
    pub = [f"{k.label}: {k.published}" for k in r.cases if k.published]
    return "; ".join(pub) if pub else DASH


def table(results: Sequence[Result]) -> pd.DataFrame:
    """The claims table: one row per claim with the published / ns-2 / aqmlab columns."""
    rows = []
    for i, r in enumerate(results, 1):
        c = r.claim
        seeds = sorted({k.seeds for k in r.cases})
        rows.append(
            {
                "#": i,
                "where": c.where,
                "the paper says": f"“{c.quote}”",
                "checked as": f"{c.metric}: {c.comparison()}",
                "tolerance from": c.tolerance_source,
                "published": _published_text(r),
                "ns-2": r.ns2,
                "aqmlab (lhs vs rhs, ±noise)": _cases_text(r, c.unit),
                "seeds": ",".join(str(s) for s in seeds) or DASH,
                "verdict": r.verdict,
            }
        )
    return pd.DataFrame(rows)


def to_json(results: Sequence[Result]) -> list[dict[str, Any]]:
    """``claims.json``: each claim, its verdict and every case's numbers."""
    out = []
    for r in results:
        c = r.claim
        out.append(
            {
                "id": c.id,
                "where": c.where,
                "quote": c.quote,
                "metric": c.metric,
                "comparison": c.comparison(),
                "tolerance": c.tolerance,
                "tolerance_source": c.tolerance_source,
                "quorum": c.quorum,
                "verdict": r.verdict,
                "holds": r.verdict == "holds",
                "error": r.error,
                "ns2": r.ns2,
                "ns2_verdict": r.ns2_verdict,
                "cases": [
                    {
                        "label": k.label,
                        "lhs": k.lhs,
                        "rhs": k.rhs,
                        "margin": k.margin,
                        "noise": None if math.isnan(k.noise) else k.noise,
                        "seeds": k.seeds,
                        "verdict": k.verdict,
                        "published": k.published,
                    }
                    for k in r.cases
                ],
            }
        )
    return out


# -- helpers for measures ---------------------------------------------------------------------


def per_seed(df: pd.DataFrame, value: str, seed: str = "seed") -> list[float]:
    """The values of ``value`` in seed order (the rows of one case)."""
    if df.empty:
        raise KeyError(f"no runs for {value!r}")
    return [float(x) for x in df.sort_values(seed)[value]]


def seeds_of(df: pd.DataFrame, seed: str = "seed") -> list[int]:
    return sorted(int(s) for s in df[seed].unique())


__all__ = [
    "DASH",
    "VERDICTS",
    "Case",
    "CaseResult",
    "Claim",
    "Result",
    "combine",
    "counts",
    "evaluate",
    "judge_case",
    "ns2_agreement",
    "ns2_baselines",
    "ns2_cell",
    "ns2_refs",
    "per_seed",
    "seeds_of",
    "summary_line",
    "table",
    "to_json",
]
