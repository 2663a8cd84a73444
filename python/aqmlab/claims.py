"""Claims as data: every claim a paper's text makes, one declarative table per paper, one engine.

A paper module lists its claims as :class:`Claim` rows: where the paper says it (figure, table,
section), the sentence quoted, the metric and the comparison, the tolerance and where the
tolerance comes from (the paper's own words, or "none": any difference beyond the seed noise).
Each claim's ``measure`` turns the paper's measurements into :class:`Case` objects (one per
scenario the sentence covers: every load, experiment or period it speaks of), each holding the
two compared quantities *per seed*.

:func:`evaluate` is the one engine that gives every claim its verdict, by the test in
:data:`TEST`:

- per case, the paired per-seed difference gives the margin by which the comparison is met, and
  a two-sided 95 % Student's t interval around it (t with n - 1 degrees of freedom, from
  ``scipy.stats``): ``holds`` when the interval lies above zero, ``fails`` when it lies below,
  ``within noise`` when it contains zero (a single seed has no interval: its verdict says so);
- an adjective of the sentence ("far", "significantly", "much") is read as a quantity
  (:class:`Adjective`): the claim's verdict is the verdict on that stronger comparison, and the
  table shows the plain comparison's verdict beside it; an adjective that bounds the gap from
  above ("slightly", "a bit") adds a second test, gap <= bound, and the case takes the worse;
- a claim over several cases combines them with its ``quorum``: ``all`` (the paper's "in all
  scenarios", "regardless of the load"), ``most`` ("in most scenarios") or ``any`` ("in some
  cases");
- a claim that does not hold carries an explanation measured on the same runs (its
  ``explain``), or says "unexplained".

Set-up choices the paper leaves open and that can decide a verdict are :class:`Choice` rows: the
reproduction runs both readings and :func:`choice_table` sets the verdicts side by side; only the
default reading's verdicts are counted. Sensitivity runs are never claims either, so the counts
here are unique paper claims.
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
from scipy import special

Verdict = Literal["holds", "within noise", "fails", "not measured"]
#: Rendering order and the words the reports use.
VERDICTS: tuple[Verdict, ...] = ("holds", "within noise", "fails", "not measured")
#: The comparisons a claim can make: lhs > rhs, lhs < rhs, lhs ≈ rhs (|lhs - rhs| <= tolerance).
Op = Literal[">", "<", "~"]
#: Where recorded ns-2 references live: ``papers/ns2/<paper id>.json`` (see :func:`ns2_refs`).
NS2_DIR = Path(__file__).resolve().parent / "papers" / "ns2"
#: Shown where there is no ns-2 reference (yet) or the algorithm does not exist in ns-2.
DASH = "—"
#: The confidence of the interval a verdict is judged on.
CONFIDENCE = 0.95
#: The statistical test behind every verdict, printed in each report.
TEST = (
    "Each case compares the two quantities seed by seed (the same scenario and seed on both "
    "sides): d_i = lhs_i - rhs_i, the margin is the mean of d corrected by the tolerance, and "
    "the noise is the half-width of its two-sided 95 % Student's t interval, "
    "t(0.975, n - 1) x sd(d) / sqrt(n) (scipy.stats.t; 2.78 x the standard error with 5 seeds). "
    "A case holds when the interval lies above zero, fails when it lies below, and is within "
    "noise when it contains zero. An adjective of the sentence is read as the stronger "
    "comparison shown with the claim; the verdict is that comparison's ('slightly' and the "
    "like bound the gap from above: the plain comparison and gap <= bound are both tested, "
    "paired the same way, and the worse verdict counts)."
)
#: Shown for a claim that does not hold and has no measured explanation.
UNEXPLAINED = "unexplained"


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
class Vs:
    """The one argument of :func:`versus` that differs between a claim's two sides."""

    lhs: Any
    rhs: Any


def versus(
    label: str,
    get: Callable[..., Sequence[float]],
    *args: Any,
    published: str = "",
    **kwargs: Any,
) -> Case:
    """A case reading one accessor on both sides: ``get(*args, **kwargs)`` with the one
    :class:`Vs` positional argument taken as its ``lhs`` for the left side and as its ``rhs``
    for the right, e.g. ``versus("8 conn.", phase, d, Vs("aggressive", "conservative"), 8)``."""
    at = [i for i, a in enumerate(args) if isinstance(a, Vs)]
    if len(at) != 1:
        raise TypeError(f"versus needs exactly one Vs argument, got {len(at)}")
    i, vs = at[0], args[at[0]]
    left = get(*args[:i], vs.lhs, *args[i + 1 :], **kwargs)
    right = get(*args[:i], vs.rhs, *args[i + 1 :], **kwargs)
    return Case(label, left, right, published)


@dataclass(frozen=True)
class Adjective:
    """An adjective of the sentence read as a quantity: the claim holds only if ``lhs`` beats
    ``factor`` x ``rhs`` (op ">": lhs > factor rhs + offset; op "<": factor lhs + offset < rhs)
    by ``offset`` more, in the claim's unit. ``why`` says where the reading comes from.

    With ``at_most`` the adjective bounds the gap from above instead ("slightly", "a bit"): the
    plain comparison must hold *and* the gap in its direction (lhs - rhs for ">", rhs - lhs for
    "<") must not exceed ``offset``; the case's verdict is the worse of the two tests."""

    word: str
    factor: float = 1.0
    offset: float = 0.0
    why: str = ""
    at_most: bool = False

    def __post_init__(self) -> None:
        if self.at_most and (self.factor != 1.0 or self.offset <= 0):
            raise ValueError(
                f"adjective {self.word!r}: an upper bound needs factor 1 and an offset > 0, got "
                f"factor {self.factor:g}, offset {self.offset:g}"
            )

    def reading(self, c: Claim) -> str:
        u = f" {c.unit}" if c.unit else ""
        f = f"{self.factor:g} x " if self.factor != 1.0 else ""
        off = f" + {self.offset:g}{u}" if self.offset else ""
        if self.at_most:
            gap = f"{c.lhs_name} - {c.rhs_name}" if c.op == ">" else f"{c.rhs_name} - {c.lhs_name}"
            body = f"0 < {gap} <= {self.offset:g}{u}"
        elif c.op == ">":
            body = f"{c.lhs_name} > {f}{c.rhs_name}{off}"
        else:
            body = f"{f}{c.lhs_name}{off} < {c.rhs_name}"
        return f"'{self.word}': {body}" + (f" ({self.why})" if self.why else "")


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
    #: The sentence's adjective read as a stronger comparison (None: the plain comparison).
    adjective: Adjective | None = None
    #: When the claim does not hold: a sentence measured on the same data that says why (called
    #: with the data and the result), or None ("unexplained").
    explain: Callable[[Any, Result], str] | None = None

    def __post_init__(self) -> None:
        if self.adjective is not None and self.op == "~":
            raise ValueError(f"claim {self.id!r}: an adjective needs '>' or '<', not '~'")

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
    #: The plain comparison's verdict (equal to ``verdict`` when the claim has no adjective).
    plain: Verdict = "not measured"


@dataclass
class Result:
    claim: Claim
    verdict: Verdict
    cases: list[CaseResult] = field(default_factory=list)
    error: str = ""
    ns2: str = DASH
    #: The claim judged on the recorded ns-2 runs of the baselines (:func:`ns2_refs`), or "".
    ns2_verdict: str = ""
    #: The plain comparison's verdict (differs from ``verdict`` only through an adjective).
    plain: Verdict = "not measured"
    #: Why a claim that does not hold does not, measured, or :data:`UNEXPLAINED` ("" if held).
    why: str = ""
    #: The labels of the cases ns-2's verdict was judged on (both sides in ns-2).
    ns2_cases: tuple[str, ...] = ()

    def held(self) -> bool:
        return self.verdict == "holds"


def _margin(op: Op, d: float, tol: float) -> float:
    if op == ">":
        return d + tol
    if op == "<":
        return -d + tol
    return tol - abs(d)


def t_noise(d: np.ndarray) -> float:
    """Half-width of the two-sided :data:`CONFIDENCE` Student's t interval of the mean of the
    paired differences ``d`` (NaN for fewer than two seeds)."""
    n = int(d.size)
    if n < 2:
        return float("nan")
    # scipy.stats.t.ppf(p, df) is special.stdtrit(df, p) (the same value, bit for bit), and
    # scipy.stats costs ~1 s of CPU to import against ~0.1 s for scipy.special.
    q = float(special.stdtrit(n - 1, 0.5 + CONFIDENCE / 2.0))
    return q * float(d.std(ddof=1)) / math.sqrt(n)


#: Verdicts from worst to best, for taking the worse of two tests on one case.
_RANK: dict[Verdict, int] = {"not measured": 0, "fails": 1, "within noise": 2, "holds": 3}


def _verdict(margin: float, noise: float, n: int) -> Verdict:
    if not math.isfinite(margin):
        return "not measured"
    # Identical differences on every seed (noise 0) leave no doubt: a margin of exactly zero
    # does not meet a strict comparison.
    if n >= 2 and noise > 0 and abs(margin) <= noise:
        return "within noise"
    return "holds" if margin > 0 else "fails"


def judge_case(claim: Claim, case: Case) -> CaseResult:
    """The verdict on one case: the margin of the mean paired difference against its t
    interval; with an adjective, on the stronger comparison (the plain one kept beside)."""
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
    n = int(lhs.size)
    d = lhs - rhs
    margin = _margin(claim.op, float(d.mean()), claim.tolerance)
    noise = t_noise(d)
    plain = _verdict(margin, noise, n)
    verdict = plain
    adj = claim.adjective
    if adj is not None and adj.at_most:
        # The gap in the comparison's direction must not exceed the bound (paired by seed);
        # the case takes the worse of the two tests and that test's margin.
        gap = d if claim.op == ">" else -d
        b_margin = adj.offset - float(gap.mean())
        b_noise = t_noise(gap)
        b_verdict = _verdict(b_margin, b_noise, n)
        if _RANK[b_verdict] < _RANK[plain] or (b_verdict == plain and b_margin < margin):
            margin, noise, verdict = b_margin, b_noise, b_verdict
    elif adj is not None:
        # The stronger comparison, also paired by seed: lhs - factor rhs (">") or
        # factor lhs - rhs ("<"), beyond the offset.
        da = lhs - adj.factor * rhs if claim.op == ">" else adj.factor * lhs - rhs
        sign = -1.0 if claim.op == ">" else 1.0
        margin = _margin(claim.op, float(da.mean()) + sign * adj.offset, claim.tolerance)
        noise = t_noise(da)
        verdict = _verdict(margin, noise, n)
    return CaseResult(
        label=case.label,
        lhs=float(lhs.mean()),
        rhs=float(rhs.mean()),
        margin=margin,
        noise=noise,
        seeds=n,
        verdict=verdict,
        published=case.published,
        plain=plain,
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
        r.plain = combine(c.quorum, [k.plain for k in cases])
        r.ns2 = _ns2_text(c, ns2 or {})
        r.ns2_verdict = _ns2_verdict(c, ns2 or {})
        r.ns2_cases = tuple(_ns2_entry(c, ns2 or {}).get("cases", {}))
        r.why = _why(c, r, data)
        out.append(r)
    return out


def _why(c: Claim, r: Result, data: Any) -> str:
    """The measured explanation of a claim that does not hold, or :data:`UNEXPLAINED`."""
    if r.verdict == "holds":
        return ""
    if c.explain is None:
        return UNEXPLAINED
    try:
        return c.explain(data, r).strip() or UNEXPLAINED
    except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
        return f"{UNEXPLAINED} (the explanation's measurement failed: {type(e).__name__}: {e})"


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
        # ns-2 judged fewer cases (one side an algorithm it lacks): on those same cases aqmlab
        # may give ns-2's verdict, and the two part only on cases ns-2 cannot run.
        shared = [k.verdict for k in r.cases if k.label in r.ns2_cases]
        if r.ns2_cases and len(shared) < len(r.cases) and combine(r.claim.quorum, shared) == v:
            out.append(
                f"Claim {i} ({r.claim.id}): on the cases ns-2 runs aqmlab gives ns-2's verdict "
                f"({v}); aqmlab's {r.verdict} comes from cases ns-2 cannot run."
            )
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


def _adjective_text(r: Result) -> str:
    adj = r.claim.adjective
    if adj is None:
        return DASH
    return f"{adj.reading(r.claim)}; plain comparison: {r.plain}"


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
                "adjective read as": _adjective_text(r),
                "published": _published_text(r),
                "ns-2": r.ns2,
                "aqmlab (lhs vs rhs, ±noise)": _cases_text(r, c.unit),
                "seeds": ",".join(str(s) for s in seeds) or DASH,
                "verdict": r.verdict,
                "why not": r.why or DASH,
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
                "adjective": None if c.adjective is None else c.adjective.reading(c),
                "plain_verdict": r.plain,
                "why_not": r.why,
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
                        "plain_verdict": k.plain,
                        "published": k.published,
                    }
                    for k in r.cases
                ],
            }
        )
    return out


# -- set-up choices run both ways -------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """A set-up choice the paper leaves open (or that a reading of its words makes) and that can
    decide a claim: the reproduction runs both readings, counts the ``default``'s verdicts and
    shows the ``other``'s beside them. ``why`` says why the default is the default; ``claims``
    names the claim ids the choice can decide (empty: every claim)."""

    name: str
    default: str
    other: str
    why: str
    claims: tuple[str, ...] = ()


def choice_table(
    choice: Choice, default: Sequence[Result], other: Sequence[Result]
) -> pd.DataFrame:
    """The claims a choice can decide with both readings' verdicts, one row per claim (every
    claim whose verdict moves is shown, named in ``choice.claims`` or not)."""
    ids = set(choice.claims)
    rows = []
    for i, (a, b) in enumerate(zip(default, other, strict=True), 1):
        if a.claim.id != b.claim.id:
            raise ValueError(f"choice {choice.name!r}: claims differ ({a.claim.id}, {b.claim.id})")
        if ids and a.claim.id not in ids and a.verdict == b.verdict:
            continue
        rows.append(
            {
                "#": i,
                "claim": a.claim.id,
                f"{choice.default} (default)": a.verdict,
                f"{choice.other}": b.verdict,
                "aqmlab, default": _cases_text(a, a.claim.unit),
                "aqmlab, other": _cases_text(b, b.claim.unit),
                "moves": "yes" if a.verdict != b.verdict else "no",
            }
        )
    return pd.DataFrame(rows)


def choice_summary(choice: Choice, default: Sequence[Result], other: Sequence[Result]) -> str:
    """One sentence: both readings' counts and the claims whose verdict moves."""
    moved = [
        f"{a.claim.id} ({a.verdict} -> {b.verdict})"
        for a, b in zip(default, other, strict=True)
        if a.verdict != b.verdict
    ]
    head = (
        f"**{choice.name}** — default '{choice.default}': {summary_line(default)} "
        f"Other reading '{choice.other}': {summary_line(other)}"
    )
    tail = " Verdicts that move: " + "; ".join(moved) + "." if moved else " No verdict moves."
    return head + tail + f" Why the default: {choice.why}"


def explain_by_choice(choice: Choice, default: Sequence[Result], other: Sequence[Result]) -> None:
    """Gives each default-reading claim that does not hold and had no explanation the one the
    other reading measures, where that reading makes it hold: the same runs with one setting
    changed (``why`` of the default's result, in place)."""
    for a, b in zip(default, other, strict=True):
        if a.verdict == "holds" or not a.why.startswith(UNEXPLAINED) or b.verdict != "holds":
            continue
        a.why = (
            f"holds when the set-up choice '{choice.name}' is read as '{choice.other}' (the "
            f"same runs with that one setting changed: {_cases_text(b, a.claim.unit)}); the "
            f"default reading '{choice.default}' decides it"
        )


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
    "TEST",
    "UNEXPLAINED",
    "VERDICTS",
    "Adjective",
    "Case",
    "CaseResult",
    "Choice",
    "Claim",
    "Result",
    "Vs",
    "choice_summary",
    "choice_table",
    "combine",
    "counts",
    "evaluate",
    "explain_by_choice",
    "judge_case",
    "ns2_agreement",
    "ns2_baselines",
    "ns2_cell",
    "ns2_refs",
    "per_seed",
    "seeds_of",
    "summary_line",
    "t_noise",
    "table",
    "to_json",
    "versus",
]
