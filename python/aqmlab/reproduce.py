"""Paper reproductions: points from a paper's scenarios, a sweep, and a report beside the paper.

``aqmlab reproduce adaptive_red_004 [--quick]`` runs the reproduction's points as a sweep
(:mod:`aqmlab.schedule`, cached under ``OUT/runs/``, so a second call only redraws) and
writes ``OUT/report.md``, ``OUT/report.html``, ``OUT/figures/*.png``, ``OUT/claims.json`` (each
qualitative claim of the paper, whether it held in our runs, and the evidence) and
``OUT/runs.parquet``.

A paper module (``aqmlab/papers/<id>.py``) defines an object satisfying :class:`Reproduction`
and registers it in ``aqmlab.papers.REPRODUCTIONS``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from aqmlab import claims as claims_mod
from aqmlab import pages
from aqmlab import scenario as _scenario
from aqmlab.schedule import Job, JobTimes, run_jobs
from aqmlab.sweep import Point

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


@runtime_checkable
class Section(Protocol):
    """A section another module adds to a paper's report (for example the paper's testbed run
    live): its own points and a report step. Registered in ``aqmlab.papers._SECTIONS`` under the
    paper's id; its points carry the label ``section = name``, the paper module's report never
    sees them, and the section's report sees only them."""

    name: str

    def points(self, quick: bool) -> list[Point]: ...

    def report(self, runs: pd.DataFrame, rep: Report, quick: bool) -> None: ...


@dataclass(frozen=True)
class Paper:
    """The :class:`Reproduction` every paper module ends with: its id, title, paper file and its
    two steps, ``points(quick)`` and ``report(runs, rep, quick)``, module-level functions."""

    id: str
    title: str
    paper_file: str
    points: Callable[[bool], list[Point]]
    report: Callable[[pd.DataFrame, Report, bool], None]


@dataclass(frozen=True)
class PaperSection:
    """The :class:`Section` a module adds to another paper's report, built the same way."""

    name: str
    points: Callable[[bool], list[Point]]
    report: Callable[[pd.DataFrame, Report, bool], None]


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


class Report:
    """A reproduction's report: the paper's claims table first (published / ns-2 / aqmlab
    columns and a verdict each), then sections, text (Markdown, rendered to HTML), figures and
    tables; written as Markdown and as a self-contained HTML page."""

    def __init__(self, title: str, paper_file: str) -> None:
        self.title = title
        self.paper_file = paper_file
        self.results: list[claims_mod.Result] = []
        #: Set-up choices run both ways: (choice, default reading's results, other's).
        self.choices: list[
            tuple[claims_mod.Choice, list[claims_mod.Result], list[claims_mod.Result]]
        ] = []
        self._blocks: list[tuple[str, Any]] = []
        self._figures: dict[str, Figure] = {}

    def section(self, title: str) -> None:
        self._blocks.append(("section", title))

    def text(self, markdown: str) -> None:
        """Markdown text. Say only what the numbers show: build sentences from them, or add
        them only when their condition holds (see :meth:`hypothesis` for the rest)."""
        self._blocks.append(("text", markdown.strip("\n")))

    def hypothesis(self, text: str, experiment: str) -> None:
        """A possible explanation this reproduction has not measured, labelled as such, with
        the experiment that would settle it."""
        self.text(
            f"*Hypothesis, not measured:* {text.strip()} *Would settle it:* {experiment.strip()}"
        )

    def figure(self, fig: Figure, name: str, caption: str) -> None:
        """Adds a figure, saved as ``figures/<name>.png`` when written."""
        stem = Path(name).stem
        if stem in self._figures:
            raise ValueError(f"figure name {stem!r} used twice")
        self._figures[stem] = fig
        self._blocks.append(("figure", (stem, caption)))

    def table(self, df: pd.DataFrame, caption: str) -> None:
        self._blocks.append(("table", (df.copy(), caption)))

    def claims(self, results: list[claims_mod.Result]) -> None:
        """The paper's claims, evaluated (:func:`aqmlab.claims.evaluate`): shown at the top."""
        self.results = list(results)

    def choice(
        self,
        choice: claims_mod.Choice,
        default: list[claims_mod.Result],
        other: list[claims_mod.Result],
    ) -> None:
        """A set-up choice run both ways: a line under the claims table (both readings' counts,
        the verdicts that move, why the default) and a section with the claims it can decide."""
        claims_mod.explain_by_choice(choice, default, other)
        self.choices.append((choice, list(default), list(other)))
        self.section(f"Set-up choice run both ways: {choice.name}")
        self.text(claims_mod.choice_summary(choice, default, other))
        t = claims_mod.choice_table(choice, default, other)
        if not t.empty:
            self.table(t, f"{choice.name}: the claims it can decide, under both readings.")

    def _head_lines(self) -> list[str]:
        """Markdown under the claims table: the test and the set-up choices."""
        out = [f"**The test behind each verdict:** {claims_mod.TEST}"]
        for c, a, b in self.choices:
            moved = sum(x.verdict != y.verdict for x, y in zip(a, b, strict=True))
            out.append(
                f"**Set-up choice '{c.name}':** default '{c.default}' (counted), other "
                f"'{c.other}': {moved} verdict(s) move; see its section below."
            )
        return out

    # -- output -----------------------------------------------------------------------------

    def _claims_df(self) -> pd.DataFrame:
        return claims_mod.table(self.results)

    def _ns2_note(self) -> str:
        """Where ns-2's verdict (on the baselines it runs) and aqmlab's part, from the numbers."""
        judged = sum(bool(r.ns2_verdict) for r in self.results)
        if not judged:
            return (
                "**ns-2 column:** no claim of this paper has both sides in the recorded ns-2 "
                "runs (see `aqmlab/papers/ns2/README.md`)."
            )
        parts = claims_mod.ns2_agreement(self.results)
        head = (
            f"**ns-2 column:** {judged} claim(s) judged on the recorded ns-2.35 runs of the "
            "baselines ns-2 has (same scenarios and seeds); "
        )
        if not parts:
            return head + "ns-2's verdict is aqmlab's on every one."
        return head + "where the verdicts part:\n\n" + "\n".join(f"- {x}" for x in parts)

    def markdown(self) -> str:
        lines = [f"# {self.title}", "", f"Paper: `{self.paper_file}`", ""]
        if self.results:
            lines += [claims_mod.summary_line(self.results), ""]
            lines += ["## Claims", "", pages.markdown_table(self._claims_df()), ""]
            for x in self._head_lines():
                lines += [x, ""]
            lines += [self._ns2_note(), ""]
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
        return "\n".join(lines).rstrip() + "\n"

    def html(self, figures_dir: Path) -> str:
        claims = None
        if self.results:
            notes = [*self._head_lines(), self._ns2_note()]
            claims = (claims_mod.summary_line(self.results), self._claims_df(), notes)
        return pages.reproduction_page(
            self.title, self.paper_file, claims, self._blocks, figures_dir
        )

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
        doc = claims_mod.to_json(self.results)
        write_text_atomic(out_dir / "claims.json", json.dumps(doc, indent=2))


@dataclass
class Outcome:
    """What :func:`reproduce` did: the runs table, the report, and the paper's wall time (from
    the start of its first run, or of its report if every run came from the cache, to its
    report written) and CPU time (its runs' in the workers, and this process's for its points
    and its report)."""

    runs: pd.DataFrame
    report: Report
    out_dir: Path
    seconds: float
    cpu_seconds: float = float("nan")


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
    [outcome] = run_jobs(
        [_job(repro, quick, out, together=False)],
        workers=workers,
        dask=client if client is not None else scheduler,
        progress=progress,
        force=force,
    )
    return outcome


def _job(repro: Reproduction, quick: bool, out: Path, *, together: bool) -> Job[Outcome]:
    """A paper's points (its own and its sections', labelled ``section``) and its report as a
    job of :func:`aqmlab.schedule.run_jobs`; ``together``: its runs share the workers with
    other papers'."""
    cpu0 = time.process_time()
    pts = repro.points(quick)
    sections = _sections(repro.id)
    for sec in sections:
        extra = sec.points(quick)
        for p in extra:
            p.labels["section"] = sec.name
        pts += extra
    points_cpu = time.process_time() - cpu0

    def finish(runs: pd.DataFrame, times: JobTimes) -> Outcome:
        return _report(repro, sections, runs, quick, out, times, points_cpu, together)

    return Job(repro.id, pts, out, finish, step="report")


def _report(
    repro: Reproduction,
    sections: list[Section],
    runs: pd.DataFrame,
    quick: bool,
    out: Path,
    times: JobTimes,
    points_cpu: float,
    together: bool,
) -> Outcome:
    """Builds and writes a paper's report from its runs table."""
    t0, cpu0 = time.time(), time.process_time()
    rep = Report(repro.title + (" (quick)" if quick else ""), repro.paper_file)
    if sections:
        own = runs["section"].isna()
        repro.report(runs[own].drop(columns="section").reset_index(drop=True), rep, quick)
        for sec in sections:
            mine = runs[runs["section"] == sec.name].reset_index(drop=True)
            sec.report(mine, rep, quick)
    else:
        repro.report(runs, rep, quick)
    _ns2_section(rep, repro.id)
    rep.section("Run statistics")
    rep.text(_statistics(times, points_cpu, time.time() - t0, time.process_time() - cpu0, together))
    rep.write(out)
    start = times.first_start if times.first_start is not None else t0
    cpu = times.run_cpu_s + times.plan_cpu_s + points_cpu + time.process_time() - cpu0
    return Outcome(runs=runs, report=rep, out_dir=out, seconds=time.time() - start, cpu_seconds=cpu)


def _statistics(
    times: JobTimes, points_cpu: float, report_s: float, report_cpu: float, together: bool
) -> str:
    """The report's run statistics: what its runs and this process cost, and how measured."""
    shared = (
        " The papers of `aqmlab reproduce all` share one pool of workers, so other papers' runs "
        "ran in this span too; the CPU is this paper's runs' own."
        if together
        else ""
    )
    return (
        f"{times.points} points ({times.cached} from the cache), {times.runs} runs executed: "
        f"{times.run_cpu_s:.1f} s CPU in the workers (each run's own), "
        f"{times.runs_wall_s:.1f} s wall time from the start of the first run to the end of "
        f"the last, on {os.cpu_count()} cores.{shared} This process: "
        f"{points_cpu + times.plan_cpu_s:.1f} s CPU to build the points and look them up in "
        f"the cache, {report_s:.1f} s wall time ({report_cpu:.1f} s CPU) to build this report "
        "before writing it."
    )


def _ns2_section(rep: Report, paper_id: str) -> None:
    """The baselines ns-2 has, in ns-2.35 and in aqmlab on the same resolved flows (from the
    recorded ``papers/ns2/<id>.json``): whether the network behaves alike under them."""
    refs = claims_mod.ns2_refs(paper_id)
    if not refs.get("runs"):
        return
    t = claims_mod.ns2_baselines(refs, getattr(_module(paper_id), "NS2_GROUP", None))
    if t.empty:
        return
    rep.section("Baselines in ns-2.35 and in aqmlab (the ns-2 column's runs)")
    rep.text(
        f"Recorded by `{refs.get('command', 'python -m aqmlab.papers.ns2_record')}` "
        f"({refs.get('source', 'ns-2.35')}): {refs.get('points', len(refs['runs']))} runs of "
        f"the full reproduction's baseline points, seeds {refs.get('seeds')} "
        f"({refs.get('seeds_note', '')}); aqmlab ran each with its `ns2` TCP model on the same "
        "resolved flows. Means over seeds and points."
    )
    rep.table(t, "Utilisation, loss (%) and mean queue (packets): ns-2 beside aqmlab.")
    worst = []
    for m in ("utilisation", "loss_pct", "queue_mean_pkts"):
        a, b = t[f"{m} aqmlab"].astype(float), t[f"{m} ns-2"].astype(float)
        rel = ((a - b).abs() / b.abs().clip(lower=1e-9)).where(b.abs() > 1e-3)
        if rel.notna().any():
            i = rel.idxmax()
            worst.append(f"{m} {rel[i]:.0%} (row {int(i) + 1}: {a[i]:g} vs {b[i]:g})")
    if worst:
        rep.text("Largest relative gap aqmlab vs ns-2 per metric: " + "; ".join(worst) + ".")
    gaps, spread = ns2_gaps(t, refs, getattr(_module(paper_id), "NS2_GROUP", None))
    if gaps:
        rep.text(
            f"Gaps of more than {NS2_GAP:.0%} between aqmlab and ns-2 on the same baseline runs "
            "whose paired per-run differences exclude zero, **open** (not traced to a cause in "
            "either simulator): " + "; ".join(gaps) + "."
        )
    if spread:
        rep.text(
            f"Gaps of more than {NS2_GAP:.0%} within the runs' own spread (the "
            f"{claims_mod.CONFIDENCE:.0%} Student's t interval of the mean paired per-run "
            "difference aqmlab - ns-2 covers "
            "zero, so these runs cannot tell the two simulators apart there): "
            + "; ".join(spread)
            + "."
        )


#: A relative gap between aqmlab and ns-2 on a baseline above which the report lists it.
NS2_GAP = 0.10

_NS2_METRIC = {"utilisation": ("utilisation", 1.0), "loss_pct": ("loss_rate", 100.0)}
_NS2_METRIC["queue_mean_pkts"] = ("queue_mean_pkts", 1.0)


def ns2_paired_gap(
    refs: dict[str, Any], by: dict[str, Any], metric: str
) -> tuple[float, float, int]:
    """The recorded baseline runs whose labels equal ``by``: the mean paired difference
    aqmlab - ns-2 of ``metric`` (a column of :func:`aqmlab.claims.ns2_baselines`) over ns-2's
    mean, and the half-width of its Student's t interval on the same scale, and the runs."""
    key, scale = _NS2_METRIC[metric]
    pairs = [
        (r["aqmlab_ns2_model"].get(key), r["ns2"].get(key))
        for r in refs.get("runs", [])
        if all(str(r["labels"].get(k)) == str(v) for k, v in by.items())
    ]
    d = np.array([(a - b) * scale for a, b in pairs if a is not None and b is not None])
    base = float(np.mean([b * scale for a, b in pairs if a is not None and b is not None]))
    if d.size == 0 or base == 0:
        return float("nan"), float("nan"), int(d.size)
    return float(d.mean()) / abs(base), claims_mod.t_noise(d) / abs(base), int(d.size)


def ns2_gaps(
    t: pd.DataFrame, refs: dict[str, Any] | None = None, by: Sequence[str] | None = None
) -> tuple[list[str], list[str]]:
    """Every row and metric of the ns-2 baseline table (:func:`aqmlab.claims.ns2_baselines`)
    where aqmlab and ns-2 differ by more than :data:`NS2_GAP` (relative; values under 0.001
    skipped), as "row: metric aqmlab vs ns-2 (+x %)": (open, within the runs' spread). With the
    recorded runs ``refs``, a gap whose paired per-run t interval covers zero is within the
    spread (its text gains "paired over n runs: +x % ± y %"); without them every gap is open."""
    out: tuple[list[str], list[str]] = ([], [])
    keys = [c for c in t.columns if not c.endswith((" ns-2", " aqmlab")) and c != "runs"]
    for _, r in t.iterrows():
        name = ", ".join(f"{k} {r[k]}" for k in keys)
        for m in ("utilisation", "loss_pct", "queue_mean_pkts"):
            a, b = float(r[f"{m} aqmlab"]), float(r[f"{m} ns-2"])
            if not (abs(b) > 1e-3 and abs(a - b) / abs(b) > NS2_GAP):
                continue
            text = f"{name}: {m} {a:g} vs {b:g} ({(a - b) / abs(b):+.0%})"
            if refs is None:
                out[0].append(text)
                continue
            mean, half, n = ns2_paired_gap(refs, {k: r[k] for k in keys}, m)
            text += f", paired over {n} runs: {mean:+.1%} ± {half:.1%}"
            out[abs(mean) <= half].append(text)
    return out


def _sections(paper_id: str) -> list[Section]:
    from aqmlab.papers import SECTIONS

    return list(SECTIONS.get(paper_id, []))


def _module(paper_id: str) -> Any:
    """The paper module of a registered reproduction (None for others, e.g. in tests)."""
    import importlib

    try:
        return importlib.import_module(f"aqmlab.papers.{paper_id}")
    except ModuleNotFoundError:
        return None


def process_cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the run workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def reproduce_all(
    *,
    quick: bool = False,
    out_dir: str | Path | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> list[Outcome]:
    """Runs every registered reproduction into ``OUT/<id>/`` through one pool of workers (each
    paper's report written as soon as its runs are done, while the workers go on with the
    others', see :mod:`aqmlab.schedule`) and writes ``OUT/index.html`` (and ``index.md``):
    every paper's claims table, its counts and its times, and the whole command's."""
    from aqmlab import output
    from aqmlab.papers import REPRODUCTIONS

    t0, cpu0 = time.perf_counter(), process_cpu_seconds()
    out = Path(out_dir) if out_dir is not None else Path("results/reproduce")
    for name in ("index.html", "index.md"):  # before hours of runs, not after
        output.check_file(out / name, what="--out")
    jobs = [_job(r, quick, out / r.id, together=True) for r in REPRODUCTIONS.values()]
    outcomes = run_jobs(jobs, workers=workers, dask=scheduler, progress=progress)
    # The workers have ended: their CPU is in this process's children's.
    totals = (time.perf_counter() - t0, process_cpu_seconds() - cpu0)
    write_index(outcomes, out, quick=quick, totals=totals)
    return outcomes


def write_index(
    outcomes: list[Outcome],
    out: Path,
    *,
    quick: bool,
    totals: tuple[float, float] | None = None,
) -> Path:
    """``index.html``/``index.md``: one section per paper with its claims table; ``totals``:
    the whole command's wall and CPU seconds."""
    title = "aqmlab paper reproductions" + (" (quick)" if quick else "")
    rows = []
    for o in outcomes:
        c = claims_mod.counts(o.report.results)
        rows.append(
            {
                "paper": o.report.title,
                "report": f"{o.out_dir.name}/report.html",
                "claims": len(o.report.results),
                "hold": c["holds"],
                "within noise": c["within noise"],
                "fail": c["fails"],
                "not measured": c["not measured"],
                "wall s": round(o.seconds, 1),
                "CPU s": round(o.cpu_seconds, 1),
            }
        )
    overview = pd.DataFrame(rows)
    note = TIMES_NOTE
    if totals is not None:
        note = (
            f"The whole command: {totals[0]:.1f} s wall time, {totals[1]:.1f} s CPU time "
            f"(this process and its workers) on {os.cpu_count()} cores. " + note
        )
    md = [f"# {title}", "", pages.markdown_table(overview), "", note, ""]
    papers = []
    for o in outcomes:
        df = claims_mod.table(o.report.results)
        line = claims_mod.summary_line(o.report.results)
        papers.append((f"{o.out_dir.name}/report.html", o.report.title, line, df))
        md += [f"## {o.report.title}", "", line, ""]
        md += [pages.markdown_table(df), ""]
    page = pages.reproductions_index(title, overview, papers, note)
    from aqmlab import output

    out.mkdir(parents=True, exist_ok=True)
    for name, text in (("index.html", page), ("index.md", "\n".join(md))):
        output.check_file(out / name, what="--out")
        output.write_text_atomic(out / name, text)
        output.record_file(out / name)
    return out / "index.html"


#: What the index's per-paper times measure.
TIMES_NOTE = (
    "Per paper, 'wall s' runs from the start of its first run (of its report, if every run "
    "came from the cache) to its report written, and 'CPU s' is its runs' own CPU in the "
    "workers plus this process's for its points and its report. The papers share one pool of "
    "workers, so their spans overlap and do not add up to the command's."
)


__all__ = [
    "Outcome",
    "Report",
    "Reproduction",
    "Section",
    "load_base",
    "process_cpu_seconds",
    "published",
    "reproduce",
    "reproduce_all",
    "write_index",
]


def claims_list_markdown() -> str:
    """``docs/claims.md``: every paper's sentences taken as claims, and those not counted
    separately (a test keeps the file equal to this)."""
    import importlib

    from aqmlab.papers import REPRODUCTIONS

    lines = [
        "# The sentences each reproduction checks",
        "",
        "Generated from the paper modules' `CLAIMS` and `NOT_SEPARATE` by",
        "`aqmlab.reproduce.claims_list_markdown()`; `tests/test_reproduce.py` keeps it current.",
        "",
    ]
    for rid, repro in REPRODUCTIONS.items():
        mod = importlib.import_module(f"aqmlab.papers.{rid}")
        lines += [f"## {repro.title} ({len(mod.CLAIMS)} claims)", ""]
        for i, c in enumerate(mod.CLAIMS, 1):
            adj = f"; adjective {c.adjective.reading(c)}" if c.adjective else ""
            lines.append(
                f"{i}. {c.where}: “{c.quote}” — checked as {c.metric}: {c.comparison()}{adj}"
            )
        extra = getattr(mod, "NOT_SEPARATE", [])
        if extra:
            lines += ["", "Not counted separately:", ""]
            lines += [f"- {s}" for s in extra]
        lines.append("")
    return "\n".join(lines)
