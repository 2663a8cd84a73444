"""The claims table per paper before/after: ``docs/claims-history.md`` from recorded data.

``.venv/bin/python tools/claims_history.py BEFORE_JSON AFTER_DIR [--after-label TEXT]``
prints Markdown: per paper the counts before (``docs/claims-history/before.json``) and after
(``AFTER_DIR/<id>/claims.json`` of a full-length ``aqmlab reproduce all``), then every claim
whose verdict moved, with its reason computed from the two records:

- **new claim**: no claim of that id before;
- **adjective**: the claim now carries a declared adjective and its plain comparison gives the
  before verdict;
- **reading**: the comparison the claim checks changed (before and after printed);
- **test**: the after cases judged by the earlier test (within noise when the margin is within
  two standard errors) give the before verdict, so the Student's t interval alone moved it;
- **runs**: otherwise the numbers themselves moved (more seeds, simulator and model changes
  between the two records); the earlier test on the new numbers is printed.

A claim that does not hold also carries the reproduction's own measured explanation (or
"unexplained"), from ``why_not``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from scipy import special

from aqmlab.claims import combine

ORDER = (
    "adaptive_red_004",
    "nlred_003",
    "chablis_002",
    "sfred_003",
    "green_tcp_000",
    "green_rate_001",
)
VERDICTS = ("holds", "within noise", "fails", "not measured")
CONFIDENCE = 0.95


def counts(verdicts: list[str]) -> str:
    n = {v: verdicts.count(v) for v in VERDICTS}
    extra = f" / {n['not measured']} not measured" if n["not measured"] else ""
    return f"{n['holds']} / {n['within noise']} / {n['fails']}{extra} of {len(verdicts)}"


def earlier_test(claim: dict[str, Any]) -> str:
    """The after claim's cases judged with the earlier rule: within noise when |margin| is at
    most two standard errors (the after record's noise is the t half-width: t * SE)."""
    out = []
    for c in claim["cases"]:
        margin, noise, n = c["margin"], c["noise"], int(c["seeds"])
        if margin is None or not math.isfinite(margin):
            out.append("not measured")
            continue
        if n >= 2 and noise is not None and math.isfinite(noise) and noise > 0:
            q = float(special.stdtrit(n - 1, 0.5 + CONFIDENCE / 2.0))
            if abs(margin) <= 2.0 * noise / q:
                out.append("within noise")
                continue
        out.append("holds" if margin > 0 else "fails")
    return combine(claim.get("quorum", "all"), out)


def reason(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    if before is None:
        return "new claim"
    bv = before["verdict"]
    if after.get("adjective") and after.get("plain_verdict") == bv:
        return f"adjective: {after['adjective']} (plain comparison: {bv})"
    if before.get("comparison") != after.get("comparison") or before.get("metric") != after.get(
        "metric"
    ):
        return (
            f"reading: '{before.get('metric')}: {before.get('comparison')}' -> "
            f"'{after.get('metric')}: {after.get('comparison')}'"
        )
    old = earlier_test(after)
    if old == bv:
        return f"test: the earlier 2-SE rule on these runs gives {old}{_moved_case(before, after)}"
    return (
        f"runs: the numbers moved (the earlier 2-SE rule on these runs gives {old})"
        f"{_moved_case(before, after)}"
    )


def _moved_case(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The first case (by label) whose verdict differs, with margin ± noise before and after."""
    old = {c["label"]: c for c in before.get("cases", [])}
    for c in after["cases"]:
        b = old.get(c["label"])
        if b is not None and b["verdict"] != c["verdict"]:
            return (
                f"; case '{c['label']}': margin {b['margin']:.4g} ± {b['noise']:.3g} "
                f"({b['seeds']} seeds, {b['verdict']}) -> {c['margin']:.4g} ± {c['noise']:.3g} "
                f"({c['seeds']} seeds, {c['verdict']})"
            )
    return ""


#: A case is borderline when its |margin| lies within this factor of its t interval either way.
BORDER = 4.0 / 3.0


def _t(n: int) -> float:
    return float(special.stdtrit(n - 1, 0.5 + CONFIDENCE / 2.0))


def seeds_to_settle(margin: float, noise: float, seeds: int) -> int | None:
    """Seeds for the t interval to shrink to 3/4 of |margin|, if the per-seed differences kept
    their mean and spread (None above 100: more seeds would not settle it)."""
    if seeds < 2 or not noise > 0 or margin == 0:
        return None
    sd = noise * math.sqrt(seeds) / _t(seeds)
    for n in range(2, 101):
        if _t(n) * sd / math.sqrt(n) <= 0.75 * abs(margin):
            return n
    return None


def borderline(after: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(claim, case) for every case whose |margin| is within :data:`BORDER` of its interval
    and whose verdict decides the claim's (the case across its edge moves the claim)."""
    out = []
    for c in after:
        verdicts = [k["verdict"] for k in c["cases"]]
        for i, k in enumerate(c["cases"]):
            m, noise = k.get("margin"), k.get("noise")
            if m is None or noise is None or not (math.isfinite(m) and math.isfinite(noise)):
                continue
            if not (noise > 0 and noise / BORDER <= abs(m) <= noise * BORDER):
                continue
            across = k["verdict"] != "within noise" and "within noise"
            across = across or ("holds" if m > 0 else "fails")
            moved = [*verdicts[:i], across, *verdicts[i + 1 :]]
            if combine(c.get("quorum", "all"), moved) != c["verdict"]:
                out.append((c, k))
    return out


def cell(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(before_doc: dict[str, Any], after_dir: Path, after_label: str) -> str:
    lines = [
        "# Claims before and after",
        "",
        "Generated by `tools/claims_history.py` from `docs/claims-history/before.json` and the",
        f"`claims.json` files of {after_label}; do not edit by hand.",
        "",
        f"**Before:** {before_doc['about']}",
        "",
        "**Reasons** (computed from the two records, see the tool's docstring): *new claim*; "
        "*adjective* (a declared adjective decides, the plain comparison gives the before "
        "verdict); *reading* (the metric or comparison changed); *test* (the earlier rule, "
        "within noise inside two standard errors, gives the before verdict on the new runs: "
        "the Student's t interval moved it); *runs* (the numbers moved).",
        "",
        "| paper | before (hold / noise / fail) | after | moved | new |",
        "|---|---|---|---|---|",
    ]
    body: list[str] = []
    tb: list[str] = []
    ta: list[str] = []
    for pid in ORDER:
        b = before_doc["papers"].get(pid, {})
        a_path = after_dir / pid / "claims.json"
        after = json.loads(a_path.read_text(encoding="utf-8")) if a_path.exists() else None
        bclaims = {c["id"]: c for c in b.get("claims", [])}
        if bclaims:
            bcount = counts([c["verdict"] for c in bclaims.values()])
            tb += [c["verdict"] for c in bclaims.values()]
        elif "counts" in b:
            k = b["counts"]
            bcount = f"{k['holds']} / {k['within noise']} / {k['fails']} of {k['claims']}"
            tb += ["holds"] * k["holds"] + ["within noise"] * k["within noise"]
            tb += ["fails"] * k["fails"]
        else:
            bcount = "—"
        if after is None:
            lines.append(f"| `{pid}` | {bcount} | not run | — | — |")
            continue
        ta += [c["verdict"] for c in after]
        moved = new = 0
        rows = []
        for i, c in enumerate(after, 1):
            old = bclaims.get(c["id"])
            bv = old["verdict"] if old else ("new" if bclaims else "not recorded")
            if old is None and bclaims:
                new += 1
            changed = old is not None and old["verdict"] != c["verdict"]
            moved += changed
            if not (changed or (old is None and bclaims) or not bclaims):
                continue
            why = "" if c["verdict"] == "holds" else (c.get("why_not") or "unexplained")
            r = reason(old, c) if bclaims else ""
            rows.append(
                f"| {i} | `{c['id']}` | {c['where']} | {bv} | **{c['verdict']}** | "
                f"{cell(r, 320)} | {cell(why)} |"
            )
        mv = str(moved) if bclaims else "not recorded"
        lines.append(
            f"| `{pid}` | {bcount} | {counts([c['verdict'] for c in after])} | {mv} | "
            f"{new if bclaims else '—'} |"
        )
        head = (
            "Every claim (no per-claim record before)."
            if not bclaims
            else ("Claims whose verdict moved, and claims added since.")
        )
        body += [f"## {pid}", "", head, ""]
        if rows:
            body += [
                "| # | claim | where | before | after | reason | why it does not hold |",
                "|---|---|---|---|---|---|---|",
                *rows,
                "",
            ]
        else:
            body += ["No verdict moved.", ""]
        gone = [k for k in bclaims if k not in {c["id"] for c in after}]
        if gone:
            body += [f"Claims of the before record no longer checked: {', '.join(gone)}.", ""]
    lines.append(f"| all | {counts(tb)} | {counts(ta)} | | |")
    body += _borderline_section(after_dir)
    return "\n".join([*lines, "", *body]).rstrip() + "\n"


def _borderline_section(after_dir: Path) -> list[str]:
    rows = []
    for pid in ORDER:
        a_path = after_dir / pid / "claims.json"
        if not a_path.exists():
            continue
        for c, k in borderline(json.loads(a_path.read_text(encoding="utf-8"))):
            n = seeds_to_settle(k["margin"], k["noise"], int(k["seeds"]))
            rows.append(
                f"| `{pid}` | `{c['id']}` | {cell(k['label'], 80)} | {k['verdict']} "
                f"({c['verdict']}) | {k['margin']:.4g} ± {k['noise']:.3g} | "
                f"{abs(k['margin']) / k['noise']:.2f} | {k['seeds']} | "
                f"{n if n is not None else 'more than 100'} |"
            )
    head = [
        "## Borderline cases",
        "",
        f"Cases whose |margin| lies within {BORDER:.2f}x of their Student's t interval either "
        "way and whose verdict decides the claim's: a shift of a quarter of the interval moves "
        "them, and the claim, between within noise and holds or fails. 'Seeds to settle': "
        "seeds for the interval to shrink to 3/4 of |margin| if the per-seed differences kept "
        "their mean and spread (an estimate; the mean moves too).",
        "",
    ]
    if not rows:
        return [*head, "None.", ""]
    return [
        *head,
        "| paper | claim | case | case verdict (claim) | margin ± interval "
        "| abs. margin / interval | seeds | seeds to settle |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after_dir", type=Path)
    ap.add_argument("--after-label", default="a full-length `aqmlab reproduce all`")
    args = ap.parse_args(argv)
    doc = json.loads(args.before.read_text(encoding="utf-8"))
    print(render(doc, args.after_dir, args.after_label), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
