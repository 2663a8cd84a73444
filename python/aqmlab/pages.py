"""Self-contained HTML pages (figures embedded as data URIs) and Markdown tables for results.

One place for the look of every page aqmlab writes: a run's ``report.html`` (``aqmlab run``, and
each run of ``aqmlab compare``), a comparison's ``report.html`` and a reproduction's report
(:class:`aqmlab.reproduce.Report`). A page opens on its own, offline, without the PNG files
beside it.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas costs ~0.5 s of CPU to import; a run's page does not need it
    import pandas as pd

from aqmlab import registry

STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;"
    "padding:2px 6px;text-align:right}.ok{color:#060}.no{color:#a00}"
    "img{max-width:100%}figcaption{font-style:italic}pre{background:#f6f6f6;padding:.5em}"
)

esc = html.escape


def head(title: str) -> str:
    """The opening of a page, through its ``<h1>``."""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
    )


TAIL = "</body></html>"


def figure(png: Path, caption: str) -> str:
    """A PNG embedded as a data URI, with its caption; empty if the file is missing (a run
    written without plots)."""
    if not png.is_file():
        return ""
    data = base64.b64encode(png.read_bytes()).decode()
    return (
        f"<figure><img src='data:image/png;base64,{data}' alt='{esc(caption)}'>"
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def table(df: pd.DataFrame, caption: str = "") -> str:
    """A DataFrame as an HTML table (numbers to 4 significant digits)."""
    cap = f"<p><em>{esc(caption)}</em></p>" if caption else ""
    return cap + df.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="")


def rows_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    """Rows as an HTML table shaped like :func:`table`'s, without pandas (a run's page is
    written by every ``aqmlab run``, and importing pandas would cost more than a short run)."""

    def cell(v: Any) -> str:
        if v is None or (isinstance(v, float) and v != v):
            return ""
        return esc(f"{v:.4g}" if isinstance(v, float) else str(v))

    cap = f"<p><em>{esc(caption)}</em></p>" if caption else ""
    header = "".join(f"<th>{esc(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return (
        f'{cap}<table border="1" class="dataframe"><thead><tr style="text-align: right;">'
        f"{header}</tr></thead><tbody>{body}</tbody></table>"
    )


def _records_table(records: Sequence[Mapping[str, Any]], caption: str = "") -> str:
    """Dicts as rows; columns in first-seen order (as ``pd.DataFrame(records)`` has them)."""
    columns: dict[str, None] = {}
    for r in records:
        columns.update(dict.fromkeys(r))
    return rows_table(list(columns), [[r.get(c) for c in columns] for r in records], caption)


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


def _groups(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    groups = summary.get("groups")
    if not isinstance(groups, Mapping) or not groups:
        return []
    return [{"group": g, **v} for g, v in groups.items() if isinstance(v, Mapping)]


def _links(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    links = summary.get("links")
    if not isinstance(links, Sequence) or not links:
        return []
    return [dict(r) for r in links if isinstance(r, Mapping)]


def run_page(summary: Mapping[str, Any], scenario_toml: str, run_dir: Path) -> str:
    """The ``report.html`` of one run written into ``run_dir`` (its PNGs, if any, embedded)."""
    title = str(summary.get("scenario") or run_dir.name)
    parts = [head(f"aqmlab run: {title}")]
    parts.append(
        f"<p>Seed {esc(str(summary.get('seed', '')))}; files in this directory: "
        "summary.json, *.parquet, scenario.toml.</p>"
    )
    parts.append(rows_table(["metric", "value"], headline(summary)))
    if isinstance(summary.get("live"), Mapping):  # a live run: kernel, cc, loop punctuality
        from aqmlab.live.page import section

        parts.append(section(summary["live"]))
    groups = _groups(summary)
    if groups:
        parts += ["<h2>Flow groups</h2>", _records_table(groups)]
    links = _links(summary)
    if links:
        parts += [
            "<h2>Links</h2>",
            _records_table(links, "Every link of the topology, both directions."),
        ]
    figures = [figure(run_dir / name, caption) for name, caption in RUN_FIGURES]
    if any(figures):
        parts += ["<h2>Plots</h2>", *figures]
    parts += [
        "<h2>Scenario</h2><details><summary>resolved scenario.toml</summary>",
        f"<pre>{esc(scenario_toml)}</pre></details>",
        TAIL,
    ]
    return "\n".join(parts)


# ---- a comparison ---------------------------------------------------------------------------


def comparison_page(comparison: pd.DataFrame, out_dir: Path) -> str:
    """The ``report.html`` of ``aqmlab compare``: the table, the figure, links to each run."""
    parts = [head("aqmlab comparison"), table(comparison)]
    parts.append(figure(out_dir / "comparison.png", "The runs side by side."))
    runs = [str(r) for r in comparison.get("run", [])]
    if runs:
        items = "".join(f"<li><a href='{esc(r)}/report.html'>{esc(r)}</a></li>" for r in runs)
        parts.append(f"<h2>Runs</h2><ul>{items}</ul>")
    parts.append(TAIL)
    return "\n".join(parts)


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
    parts = [head(f"aqmlab sweep: {out_dir.name}")]
    failed = int(runs["error"].notna().sum()) if "error" in runs else 0
    parts.append(f"<p>{len(runs)} points, {failed} failed; table: runs.parquet.</p>")
    ok = runs[runs["error"].isna()] if "error" in runs else runs
    line = "algorithm" if "algorithm" in labels and ok["algorithm"].nunique() > 1 else None
    figures_dir = out_dir / "figures"
    for x in _numeric_axes(ok, labels):
        parts.append(f"<h2>Against {esc(x)}</h2>")
        for y in metrics:
            fig = plots.metric_vs(ok, x, y, line=line, title=f"{y} vs {x}")
            figures_dir.mkdir(parents=True, exist_ok=True)
            png = figures_dir / f"{y}_vs_{x}.png".replace("/", "_")
            plots.save(fig, png)
            parts.append(figure(png, f"{y} against {x}; seeds averaged, bars: their std."))
    cols = [c for c in labels if c in runs.columns] + metrics
    if failed:
        cols.append("error")
    parts += ["<h2>Points</h2>", table(runs[cols]), TAIL]
    page = out_dir / "report.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page


__all__ = [
    "comparison_page",
    "figure",
    "head",
    "headline",
    "markdown_table",
    "run_page",
    "table",
    "write_sweep_report",
]


# ---- reproduction reports -------------------------------------------------------------------

#: Verdict -> CSS class of a claims table cell.
VERDICT_CLASS = {"holds": "ok", "within noise": "noise", "fails": "no", "not measured": "no"}
CLAIMS_STYLE = (
    ".claims td{text-align:left;vertical-align:top;font-size:88%}.noise{color:#a60}"
    "td.verdict{font-weight:bold;white-space:nowrap}"
)


def markdown_html(text: str) -> str:
    """Markdown (CommonMark plus tables) rendered to HTML with markdown-it-py; raw HTML in the
    text is escaped, not passed through."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return md.render(text)


def claims_table(df: pd.DataFrame, caption: str = "") -> str:
    """A claims table (:func:`aqmlab.claims.table`) with each verdict coloured."""
    cap = f"<p><em>{esc(caption)}</em></p>" if caption else ""
    cols = [str(c) for c in df.columns]
    head_row = "".join(f"<th>{esc(c)}</th>" for c in cols)
    rows = []
    for rec in df.itertuples(index=False):
        cells = []
        for c, v in zip(cols, rec, strict=True):
            if c == "verdict":
                cls = VERDICT_CLASS.get(str(v), "")
                cells.append(f"<td class='verdict {cls}'>{esc(str(v))}</td>")
            else:
                cells.append(f"<td>{esc(str(v))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"{cap}<style>{CLAIMS_STYLE}</style><table class='claims'><thead><tr>{head_row}"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
