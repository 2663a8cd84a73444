"""Self-contained HTML pages (figures embedded as data URIs) and Markdown tables for results.

One place for the look of every page aqmlab writes: a run's ``report.html`` (``aqmlab run``, and
each run of ``aqmlab compare``), a comparison's and a sweep's ``report.html``, and the pieces of
a reproduction's report (:class:`aqmlab.reproduce.Report`). The pages are Jinja2 templates
(``aqmlab/templates/``, autoescaped); this module gathers what they show. A page opens on its
own, offline, without the PNG files beside it.
"""

from __future__ import annotations

import base64
import functools
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas costs ~0.5 s of CPU to import; a run's page does not need it
    import pandas as pd

import jinja2
from markupsafe import Markup, escape

from aqmlab import registry
from aqmlab.template_cache import CompiledTemplates, compile_all, settings_key

#: The page templates (a package directory: also what ``jinja2.PackageLoader`` reads).
TEMPLATES = Path(__file__).parent / "templates"

STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
    ".scroll{overflow-x:auto;max-width:100%}td:first-child,th:first-child{text-align:left}"
    "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;"
    "padding:2px 6px;text-align:right}.ok{color:#060}.no{color:#a00}"
    "img{max-width:100%}figcaption{font-style:italic}pre{background:#f6f6f6;padding:.5em}"
    ".claims td{text-align:left;vertical-align:top;font-size:88%}.noise{color:#a60}"
    "td.verdict{font-weight:bold;white-space:nowrap}"
)

esc = html.escape


def _cell(v: Any) -> str:
    """A table cell: numbers to 4 significant digits, nothing for a missing value."""
    if v is None or (isinstance(v, float) and v != v):
        return ""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _rows_html(rows: Any) -> Markup:
    """The body rows of the ``table`` macro (``macros.html.j2``): one ``<tr>`` line per row,
    each value a ``<td>`` of its :func:`_cell` text, escaped as the template's autoescape would
    escape it. Built here instead of in the template: a run's page has a row per flow and per
    link, and the template's per-cell filter call and escape cost ~1 ms per 500 cells."""
    out: list[str] = []
    for row in rows:
        out.append("<tr>")
        for v in row:
            # _cell's text, inlined for exact floats and ints (bool too), whose text holds no
            # character HTML escapes; anything else (a subclass may print anything) escaped.
            t = type(v)
            if t is float:
                out.append(f"<td>{v:.4g}</td>" if v == v else "<td></td>")
            elif t is int or t is bool:
                out.append(f"<td>{v}</td>")
            else:
                out.append(f"<td>{escape(_cell(v))}</td>")
        out.append("</tr>\n")
    return Markup("".join(out))


@functools.cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("aqmlab", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["rows_html"] = _rows_html
    env.globals["zip"] = zip
    env.bytecode_cache = CompiledTemplates(TEMPLATES / "__pycache__", settings_key(env))
    return env


def compile_templates() -> list[str]:
    """Writes every page template's compiled code beside it (``make setup``; see
    :mod:`aqmlab.template_cache`); returns the names."""
    return compile_all(_env())


def render(template: str, **context: Any) -> str:
    """Renders ``aqmlab/templates/<template>`` with the page style."""
    return _env().get_template(template).render(style=STYLE, **context)


def _macros() -> Any:
    return _env().get_template("macros.html.j2").module


def data_uri(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode()


def _figures(pairs: Sequence[tuple[Path, str]]) -> list[dict[str, str]]:
    """The PNGs that exist, as template figures (uri, caption)."""
    return [{"uri": data_uri(p), "caption": c} for p, c in pairs if p.is_file()]


def _frame(df: pd.DataFrame) -> dict[str, Any]:
    """A DataFrame as template table data (missing values as ``None``)."""
    rows = df.astype(object).where(df.notna(), None).values.tolist()
    return {"columns": [str(c) for c in df.columns], "rows": rows}


def rows_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    """Rows as an HTML table shaped like :func:`table`'s, without pandas (a run's page is
    written by every ``aqmlab run``, and importing pandas would cost more than a short run)."""
    return str(_macros().table(list(columns), [list(r) for r in rows], caption))


def _records(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Dicts as template table data; columns in first-seen order (as ``pd.DataFrame(records)``
    has them); ``None`` for no records."""
    if not records:
        return None
    columns: dict[str, None] = {}
    for r in records:
        columns.update(dict.fromkeys(r))
    return {"columns": list(columns), "rows": [[r.get(c) for c in columns] for r in records]}


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (numbers to 4 significant digits)."""

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(lines)


# ---- one run --------------------------------------------------------------------------------

#: The run's PNGs (written by ``Results.write``) and their captions.
RUN_FIGURES = (
    ("queue.png", "Queue length at the measured link over time."),
    ("goodput_vs_rtt.png", "Goodput of each flow against its base RTT."),
    ("group_goodput.png", "Goodput of each flow group over time."),
    ("cwnd.png", "Congestion window and slow-start threshold of the traced flows."),
)


def _stat(summary: Mapping[str, Any], key: str, field: str) -> Any:
    v = summary.get(key)
    return v.get(field) if isinstance(v, Mapping) else None


def headline(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The run's headline numbers as (metric, value) rows; absent keys are left out."""
    out: list[tuple[str, str]] = []
    for name, value in (
        ("qdisc (measured link)", summary.get("qdisc")),
        ("measured link", summary.get("measured_link")),
        ("simulated / measured s", f"{summary.get('duration_s')} / {summary.get('window_s')}"),
    ):
        if value is not None:
            out.append((name, str(value)))
    for ms in registry.grouped(registry.metrics("run", headline=True)):
        value = summary.get(ms[0].group)
        if value is None:
            continue
        if len(ms) > 1:
            vals = [_stat(summary, m.group, m.stat) for m in ms]
            text = " / ".join("" if v is None else f"{v:.4g}" for v in vals)
            out.append((registry.group_title(ms), text))
        elif isinstance(value, Mapping):  # a breakdown: drops by reason
            nonzero = {k: v for k, v in value.items() if v}
            text = ", ".join(f"{k} {v:,}" for k, v in nonzero.items()) or "0"
            out.append((f"{ms[0].label} by reason", text))
        else:
            out.append((ms[0].title, f"{value:.4g}" if isinstance(value, float) else str(value)))
    return out


#: A run's per-group columns on its page: summary key (dotted into ``transfers``) -> header.
GROUP_COLUMNS = {
    "flows": "flows",
    "goodput_mbps": "goodput (Mbps)",
    "mean_goodput_mbps": "mean per flow (Mbps)",
    "jain_index": "Jain index",
    "drops": "drops",
    "marks": "ECN marks",
    "transfers.count": "transfers",
    "transfers.mean_s": "transfer mean (s)",
}


def _groups(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    groups = summary.get("groups")
    if not isinstance(groups, Mapping) or not groups:
        return None
    entries = {g: v for g, v in groups.items() if isinstance(v, Mapping)}
    # Transfer columns only when some group had web transfers.
    keys = [
        k
        for k in GROUP_COLUMNS
        if "." not in k or any(k.split(".")[0] in v for v in entries.values())
    ]
    return {
        "columns": ["group", *(GROUP_COLUMNS[k] for k in keys)],
        "rows": [[g, *(_dotted(v, k) for k in keys)] for g, v in entries.items()],
    }


def _dotted(entry: Mapping[str, Any], key: str) -> Any:
    """``entry[a][b]`` for ``"a.b"``, ``entry[key]`` otherwise; ``None`` where absent."""
    head, _, stat = key.partition(".")
    v = entry.get(head)
    if not stat:
        return v
    # dict first: the ABC check costs more than the lookup, for every cell of a run's page.
    return v.get(stat) if type(v) is dict or isinstance(v, Mapping) else None


def _links(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    links = summary.get("links")
    if not isinstance(links, Sequence) or not links:
        return []
    return [dict(r) for r in links if isinstance(r, Mapping)]


#: A run's per-flow columns on its page: summary key (dotted into ``delay_ms``) -> header.
FLOW_COLUMNS = {
    "id": "flow",
    "group": "group",
    "rtt_ms": "base RTT (ms)",
    "goodput_mbps": "goodput (Mbps)",
    "drops": "drops",
    "marks": "marks",
    "delay_ms.mean": "delay mean (ms)",
    "delay_ms.p99": "delay p99 (ms)",
    "jitter_ms": "jitter (ms)",
    "loss_rate": "loss rate",
}


def _flows(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    flows = summary.get("flows")
    if not isinstance(flows, Sequence) or not flows:
        return None
    rows = []
    for f in flows:
        if type(f) is dict or isinstance(f, Mapping):
            rows.append([_dotted(f, key) for key in FLOW_COLUMNS])
    return {"columns": list(FLOW_COLUMNS.values()), "rows": rows}


def run_page(summary: Mapping[str, Any], scenario_toml: str, run_dir: Path) -> str:
    """The ``report.html`` of one run written into ``run_dir`` (its PNGs, if any, embedded)."""
    return render(
        "run.html.j2",
        title=f"aqmlab run: {summary.get('scenario') or run_dir.name}",
        seed=summary.get("seed", ""),
        headline=headline(summary),
        groups=_groups(summary),
        flows=_flows(summary),
        links=_records(_links(summary)),
        figures=_figures([(run_dir / name, caption) for name, caption in RUN_FIGURES]),
        scenario_toml=scenario_toml,
        live=_live_section(summary),
    )


def _live_section(summary: Mapping[str, Any]) -> Markup | None:
    """A live run's section (kernel, cc, loop punctuality), built by ``aqmlab.live.page``,
    which escapes every value it shows."""
    if not isinstance(summary.get("live"), Mapping):
        return None
    from aqmlab.live.page import section

    return Markup(section(summary["live"]))


# ---- a comparison ---------------------------------------------------------------------------


def metric_title(column: str) -> str:
    """A table header for a metric column: the registry's label and unit
    (``delay_ms_p99`` -> ``queueing delay p99 (ms)``), else the column name."""
    for m in registry.METRICS:
        if column in (m.key, m.column):
            return m.title
    return column


def transposed(comparison: pd.DataFrame) -> tuple[list[str], list[list[Any]]]:
    """A comparison as one row per metric and one column per run (a page 1,280 px wide holds
    many runs this way; one column per metric does not hold 18 metrics)."""
    runs = [str(r) for r in comparison["run"]]
    rows = [
        [metric_title(str(c)), *comparison[c].tolist()] for c in comparison.columns if c != "run"
    ]
    return ["metric", *runs], rows


def comparison_page(comparison: pd.DataFrame, out_dir: Path) -> str:
    """The ``report.html`` of ``aqmlab compare``: the table, the figure, links to each run."""
    columns, rows = transposed(comparison)
    shown = _figures([(out_dir / "comparison.png", "The runs side by side.")])
    return render(
        "comparison.html.j2",
        title="aqmlab comparison",
        table={"columns": columns, "rows": rows},
        figure=shown[0] if shown else None,
        runs=[str(r) for r in comparison.get("run", [])],
    )


# ---- a sweep --------------------------------------------------------------------------------

#: Metrics a sweep's page tabulates and plots, when the runs table has them (the registry's
#: plotted metrics).
SWEEP_METRICS = tuple(m.key for m in registry.plotted())


def _numeric_axes(runs: pd.DataFrame, labels: list[str]) -> list[str]:
    import pandas as pd

    return [
        c
        for c in labels
        if c not in ("seed", "algorithm")
        and pd.api.types.is_numeric_dtype(runs[c])
        and runs[c].nunique() > 1
    ]


def write_sweep_report(runs: pd.DataFrame, out_dir: Path) -> Path:
    """Writes ``out_dir/report.html`` for a sweep's runs table (``aqmlab sweep``): every point
    with its labels and headline metrics, and each metric against each numeric axis (seeds
    averaged, one line per value of the other labels; PNGs also in ``out_dir/figures``)."""
    from aqmlab import plots

    out_dir = Path(out_dir)
    labels = plots.sweep_label_columns(runs)
    metrics = [m for m in SWEEP_METRICS if m in runs.columns]
    failed = int(runs["error"].notna().sum()) if "error" in runs else 0
    ok = runs[runs["error"].isna()] if "error" in runs else runs
    line = "algorithm" if "algorithm" in labels and ok["algorithm"].nunique() > 1 else None
    figures_dir = out_dir / "figures"
    sections = []
    for x in _numeric_axes(ok, labels):
        fig = plots.small_multiples(ok, x, metrics, line=line)
        figures_dir.mkdir(parents=True, exist_ok=True)
        png = figures_dir / f"metrics_vs_{x}.png".replace("/", "_")
        plots.save(fig, png)
        caption = f"Each metric against {x}; seeds averaged, bars: their standard deviation."
        sections.append({"axis": x, "figure": _figures([(png, caption)])[0]})
    cols = [c for c in labels if c in runs.columns] + metrics
    if failed:
        cols.append("error")
    page = out_dir / "report.html"
    text = render(
        "sweep.html.j2",
        title=f"aqmlab sweep: {out_dir.name}",
        points=len(runs),
        failed=failed,
        sections=sections,
        table={
            "columns": [metric_title(c) for c in cols],
            "rows": runs[cols].astype(object).where(runs[cols].notna(), None).values.tolist(),
        },
    )
    page.write_text(text, encoding="utf-8")
    return page


__all__ = [
    "comparison_page",
    "headline",
    "markdown_html",
    "markdown_table",
    "reproduction_page",
    "reproductions_index",
    "run_page",
    "write_sweep_report",
]


# ---- reproduction reports -------------------------------------------------------------------

#: Verdict -> CSS class of a claims table cell.
VERDICT_CLASS = {"holds": "ok", "within noise": "noise", "fails": "no", "not measured": "no"}


def markdown_html(text: str) -> Markup:
    """Markdown (CommonMark plus tables) rendered to HTML with markdown-it-py; raw HTML in the
    text is escaped, not passed through."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return Markup(md.render(text))


def _claims(df: pd.DataFrame) -> dict[str, Any]:
    """A claims table (:func:`aqmlab.claims.table`) as template data, every cell as text."""
    return {"columns": [str(c) for c in df.columns], "rows": df.astype(str).values.tolist()}


def reproduction_page(
    title: str,
    paper_file: str,
    claims: tuple[str, pd.DataFrame, Sequence[str]] | None,
    blocks: Sequence[tuple[str, Any]],
    figures_dir: Path,
) -> str:
    """A paper's ``report.html``: ``claims`` is (summary line, claims table, Markdown notes) or
    ``None``; ``blocks`` are :class:`aqmlab.reproduce.Report`'s sections, Markdown texts,
    figures (stem, caption: the PNG in ``figures_dir`` embedded) and tables (df, caption)."""
    shown: list[dict[str, Any]] = []
    for kind, body in blocks:
        if kind == "section":
            shown.append({"kind": kind, "title": body})
        elif kind == "text":
            shown.append({"kind": kind, "html": markdown_html(body)})
        elif kind == "figure":
            stem, caption = body
            png = figures_dir / f"{stem}.png"
            uri = data_uri(png) if png.is_file() else None
            shown.append({"kind": kind, "uri": uri, "caption": caption})
        elif kind == "table":
            df, caption = body
            shown.append({"kind": kind, "caption": caption, **_frame(df)})
    claims_data = None
    if claims is not None:
        summary, df, notes = claims
        claims_data = {
            "summary": summary,
            "notes": [markdown_html(n) for n in notes],
            **_claims(df),
        }
    return render(
        "reproduction.html.j2",
        title=title,
        paper_file=paper_file,
        claims=claims_data,
        blocks=shown,
        verdict_class=VERDICT_CLASS,
    )


def reproductions_index(
    title: str,
    overview: pd.DataFrame,
    papers: Sequence[tuple[str, str, str, pd.DataFrame]],
    note: str = "",
) -> str:
    """``aqmlab reproduce all``'s ``index.html``: the overview table and ``note`` (text: what
    its times measure), then per paper (link, title, summary line, claims table)."""
    return render(
        "reproductions.html.j2",
        title=title,
        overview=_frame(overview),
        note=note,
        papers=[
            {"href": href, "title": t, "summary": line, "claims": _claims(df)}
            for href, t, line, df in papers
        ],
        verdict_class=VERDICT_CLASS,
    )
