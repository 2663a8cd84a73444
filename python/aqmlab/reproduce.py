"""Paper reproductions: points from a paper's scenarios, a sweep, and a report beside the paper.

``aqmlab reproduce adaptive_red_004 [--quick]`` runs the reproduction's points with
:func:`aqmlab.sweep.run_points` (cached under ``OUT/runs/``, so a second call only redraws) and
writes ``OUT/report.md``, ``OUT/report.html``, ``OUT/figures/*.png``, ``OUT/claims.json`` (each
qualitative claim of the paper, whether it held in our runs, and the evidence) and
``OUT/runs.parquet``.

A paper module (``aqmlab/papers/<id>.py``) defines an object satisfying :class:`Reproduction`
and registers it in ``aqmlab.papers.REPRODUCTIONS``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pandas as pd
from matplotlib.figure import Figure

from aqmlab import pages
from aqmlab import scenario as _scenario
from aqmlab.sweep import Point, run_points

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PAPERS_DIR = Path(__file__).resolve().parent / "papers"
#: Where ``papers/<id>/*.toml`` lives: ``$AQMLAB_SCENARIOS``, else the package's own copy,
#: ``aqmlab/data/papers`` (in the repository a link to ``scenarios/papers``, which the wheel
#: ships as files), so ``aqmlab reproduce`` works from an installed wheel.
SCENARIOS_DIR = Path(os.environ.get("AQMLAB_SCENARIOS", Path(__file__).parent / "data"))


@runtime_checkable
class Reproduction(Protocol):
    """What a paper module provides."""

    id: str  # "adaptive_red_004"
    title: str
    paper_file: str  # "004_618a487a53bfbc7f.txt"

    def points(self, quick: bool) -> list[Point]: ...

    def report(self, runs: pd.DataFrame, rep: Report, quick: bool) -> None: ...


def published(section: str) -> dict[str, Any]:
    """A section of the papers' printed numbers (``published("adaptive_red_004.text")``), from
    ``aqmlab/papers/published.toml`` (the project's copy of ``papers/published.toml``)."""
    doc: Any = tomllib.loads((PAPERS_DIR / "published.toml").read_text(encoding="utf-8"))
    for part in section.split("."):
        if not isinstance(doc, dict) or part not in doc:
            raise KeyError(f"published.toml has no section {section!r}")
        doc = doc[part]
    if not isinstance(doc, dict):
        raise KeyError(f"published.toml: {section!r} is a value, not a section")
    return doc


def load_base(paper_id: str, name: str) -> dict[str, Any]:
    """The scenario ``scenarios/papers/<paper_id>/<name>.toml`` as a document."""
    return _scenario.load(SCENARIOS_DIR / "papers" / paper_id / f"{name}.toml")


@dataclass
class Claim:
    claim: str
    holds: bool
    evidence: str


class Report:
    """A reproduction's report: sections, text, figures, tables and checked claims, written as
    Markdown and as a self-contained HTML page."""

    def __init__(self, title: str, paper_file: str) -> None:
        self.title = title
        self.paper_file = paper_file
        self.claims: list[Claim] = []
        self._blocks: list[tuple[str, Any]] = []
        self._figures: dict[str, Figure] = {}

    def section(self, title: str) -> None:
        self._blocks.append(("section", title))

    def text(self, markdown: str) -> None:
        self._blocks.append(("text", markdown.strip("\n")))

    def figure(self, fig: Figure, name: str, caption: str) -> None:
        """Adds a figure, saved as ``figures/<name>.png`` when written."""
        stem = Path(name).stem
        if stem in self._figures:
            raise ValueError(f"figure name {stem!r} used twice")
        self._figures[stem] = fig
        self._blocks.append(("figure", (stem, caption)))

    def table(self, df: pd.DataFrame, caption: str) -> None:
        self._blocks.append(("table", (df.copy(), caption)))

    def claim(self, claim: str, holds: bool, evidence: str) -> None:
        """A qualitative claim of the paper, and whether our runs bear it out (with numbers)."""
        c = Claim(claim, bool(holds), evidence)
        self.claims.append(c)
        self._blocks.append(("claim", c))

    # -- output -----------------------------------------------------------------------------

    def markdown(self) -> str:
        lines = [f"# {self.title}", "", f"Paper: `{self.paper_file}`", ""]
        if self.claims:
            held = sum(c.holds for c in self.claims)
            lines += [f"Claims: {held} of {len(self.claims)} hold in our runs.", ""]
        for kind, body in self._blocks:
            if kind == "section":
                lines += [f"## {body}", ""]
            elif kind == "text":
                lines += [body, ""]
            elif kind == "figure":
                stem, caption = body
                lines += [f"![{caption}](figures/{stem}.png)", "", f"*{caption}*", ""]
            elif kind == "table":
                df, caption = body
                lines += [f"*{caption}*", "", pages.markdown_table(df), ""]
            elif kind == "claim":
                mark = "HOLDS" if body.holds else "DOES NOT HOLD"
                lines += [
                    f"- **Claim ({mark}):** {body.claim}  ",
                    f"  Evidence: {body.evidence}",
                    "",
                ]
        return "\n".join(lines).rstrip() + "\n"

    def html(self, figures_dir: Path) -> str:
        esc = pages.esc
        parts = [
            pages.head(self.title),
            f"<p>Paper: <code>{esc(self.paper_file)}</code></p>",
        ]
        if self.claims:
            held = sum(c.holds for c in self.claims)
            parts.append(f"<p>Claims: {held} of {len(self.claims)} hold in our runs.</p>")
        for kind, body in self._blocks:
            if kind == "section":
                parts.append(f"<h2>{esc(body)}</h2>")
            elif kind == "text":
                paras = [p for p in body.split("\n\n") if p.strip()]
                parts += [f"<p>{esc(p)}</p>" for p in paras]
            elif kind == "figure":
                stem, caption = body
                parts.append(pages.figure(figures_dir / f"{stem}.png", caption))
            elif kind == "table":
                df, caption = body
                parts.append(pages.table(df, caption))
            elif kind == "claim":
                cls, mark = ("ok", "holds") if body.holds else ("no", "does not hold")
                parts.append(
                    f"<p class='{cls}'><b>Claim ({mark}):</b> {esc(body.claim)}<br>"
                    f"Evidence: {esc(body.evidence)}</p>"
                )
        parts.append(pages.TAIL)
        return "\n".join(parts)

    def write(self, out_dir: Path) -> None:
        """Writes ``report.md``, ``report.html`` (figures embedded), ``figures/*.png`` and
        ``claims.json`` into ``out_dir``."""
        from aqmlab import plots

        out_dir = Path(out_dir)
        figures_dir = out_dir / "figures"
        figures_dir.mkdir(parents=True, exist_ok=True)
        for stem, fig in self._figures.items():
            plots.save(fig, figures_dir / f"{stem}.png")
        self._figures = {}
        from aqmlab.output import write_text_atomic

        write_text_atomic(out_dir / "report.md", self.markdown())
        write_text_atomic(out_dir / "report.html", self.html(figures_dir))
        claims = [c.__dict__ for c in self.claims]
        write_text_atomic(out_dir / "claims.json", json.dumps(claims, indent=2))


@dataclass
class Outcome:
    """What :func:`reproduce` did: the runs table, the report and the wall time."""

    runs: pd.DataFrame
    report: Report
    out_dir: Path
    seconds: float


def reproduce(
    repro: Reproduction | str,
    *,
    quick: bool = False,
    out_dir: str | Path | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    client: Any = None,
    force: bool = False,
) -> Outcome:
    """Runs a reproduction's points (cached) and writes its report; raises if a point failed.

    ``scheduler``/``client``: a Dask scheduler address or ``distributed.Client``; ``force``:
    write into ``out_dir`` even if aqmlab did not write it (see :mod:`aqmlab.output`)."""
    if isinstance(repro, str):
        from aqmlab.papers import REPRODUCTIONS

        if repro not in REPRODUCTIONS:
            raise KeyError(f"no reproduction {repro!r}; known: {', '.join(sorted(REPRODUCTIONS))}")
        repro = REPRODUCTIONS[repro]
    out = Path(out_dir) if out_dir is not None else Path("results/reproduce") / repro.id
    t0 = time.perf_counter()
    pts = repro.points(quick)
    runs = run_points(
        pts,
        out,
        workers=workers,
        scheduler=scheduler,
        client=client,
        progress=progress,
        on_error="raise",
        force=force,
    )
    t_runs = time.perf_counter() - t0
    rep = Report(repro.title + (" (quick)" if quick else ""), repro.paper_file)
    repro.report(runs, rep, quick)
    seconds = time.perf_counter() - t0
    rep.section("Run statistics")
    rep.text(
        f"{len(pts)} points ({int(runs['cached'].sum())} from the cache), "
        f"runs {t_runs:.1f} s, total with the report {seconds:.1f} s wall time "
        f"on {os.cpu_count()} cores."
    )
    rep.write(out)
    return Outcome(runs=runs, report=rep, out_dir=out, seconds=seconds)


__all__ = [
    "Claim",
    "Outcome",
    "Report",
    "Reproduction",
    "load_base",
    "published",
    "reproduce",
]
