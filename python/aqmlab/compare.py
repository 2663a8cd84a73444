"""Run several scenarios and set them side by side: a table and ``comparison.png``.

``aqmlab compare scenarios/demo/*.toml --out results/demo`` (what ``make demo`` runs) writes each
run's results under ``results/demo/<scenario-stem>/`` and, beside them, ``comparison.csv``,
``comparison.md`` and ``comparison.png``. Runs go in threads: the core releases the GIL.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab import api, pages, registry
from aqmlab.diagnose import NoTrafficWarning, no_traffic
from aqmlab.results import Results
from aqmlab.scenario import Overrides, ScenarioLike, measured_qdisc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Columns of the comparison table, in order: the run, its qdisc, then every headline metric of
#: the registry (flat names: ``delay_ms.p99`` -> ``delay_ms_p99``).
COLUMNS = ("run", "qdisc", *(m.column for m in registry.metrics("run", headline=True)))


def qdisc_label(scenario_toml: str) -> str:
    """``red``, ``red (gentle)``, ``droptail``... from a resolved scenario."""
    q = measured_qdisc(tomllib.loads(scenario_toml))
    kind = str(q.get("kind", "?"))
    return f"{kind} (gentle)" if q.get("gentle") is True else kind


def summary_row(name: str, res: Results) -> dict[str, Any]:
    """One row of the comparison table from a run's summary (missing keys become NaN; a
    breakdown such as ``drops`` by reason becomes its total)."""
    s = res.summary
    row: dict[str, Any] = {"run": name, "qdisc": qdisc_label(res.scenario_toml)}
    for m in registry.metrics("run", headline=True):
        row[m.column] = m.value(s)
    return row


def _unique_names(scenarios: Sequence[ScenarioLike]) -> list[str]:
    names: list[str] = []
    for i, sc in enumerate(scenarios):
        base = Path(sc).stem if isinstance(sc, (str, Path)) and "\n" not in str(sc) else f"run{i}"
        name, n = base, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.append(name)
    return names


def compare(
    scenarios: Sequence[ScenarioLike],
    *,
    set: Overrides = None,
    seed: int | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    plots: bool = True,
    force: bool = False,
) -> tuple[pd.DataFrame, dict[str, Results]]:
    """Runs every scenario (the same overrides and seed applied to each) and returns the
    comparison table and the results by run name. With ``out``, writes everything there.

    Every scenario is validated, and ``out`` checked (:mod:`aqmlab.output`; ``force``
    replaces a destination aqmlab did not write), before any runs, so a typo in the last file
    or an unwritable ``out`` fails fast.
    """
    from aqmlab import output

    if out is not None:
        out = output.check_destination(out, force=force, kind="compare")
    names = _unique_names(scenarios)
    # A one-shot iterable of overrides must serve every scenario.
    overrides = set if set is None or isinstance(set, (str, Mapping)) else list(set)
    texts = [api.prepare(sc, set=overrides, seed=seed)[0] for sc in scenarios]
    for text in texts:
        api._core.validate(text)
    workers = jobs or min(len(texts), os.cpu_count() or 1) or 1
    raws = api.run_many(texts, workers)
    results = {n: Results.from_core(raw, name=n) for n, raw in zip(names, raws, strict=True)}
    for n, res in results.items():
        why = no_traffic(res.summary)
        if why is not None:
            warnings.warn(f"{n}: {why}", NoTrafficWarning, stacklevel=2)
    table = pd.DataFrame([summary_row(n, r) for n, r in results.items()], columns=list(COLUMNS))
    if out is not None:
        write(Path(out), table, results, plots=plots, force=force)
    return table, results


def write(
    out: Path, table: pd.DataFrame, results: dict[str, Results], *, plots: bool, force: bool = False
) -> None:
    """Writes each run under ``out/<run>/`` and the comparison files into ``out``, all at once
    (a temporary directory renamed into place: see :mod:`aqmlab.output`)."""
    from aqmlab import output

    with output.atomic_dir(out, kind="compare", force=force) as tmp:
        for name, res in results.items():
            res.write(tmp / name, plots=plots)
        table.to_csv(tmp / "comparison.csv", index=False)
        (tmp / "comparison.md").write_text(to_markdown(table), encoding="utf-8")
        if plots:
            from aqmlab import plots as _plots

            flows = {n: r.flows.to_pandas() for n, r in results.items()}
            fig = _plots.comparison(table, flows, title="aqmlab comparison")
            _plots.save(fig, tmp / "comparison.png")
        (tmp / "report.html").write_text(pages.comparison_page(table, tmp), encoding="utf-8")


def to_markdown(table: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    return pages.markdown_table(table) + "\n"


__all__ = ["COLUMNS", "compare", "qdisc_label", "summary_row", "to_markdown", "write"]
