"""Readable terminal output (rich): a run's summary, the algorithm list, a comparison."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from aqmlab import registry


def printable(text: Any) -> str:
    """``text`` safe for a terminal: control characters (escape sequences, carriage returns,
    backspaces) and format characters (bidirectional overrides) shown as ``\\x1b``/``\\u202e``
    instead of acting on the terminal."""
    out = []
    for ch in str(text):
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def _safe(text: Any) -> str:
    """A name from a scenario or a path, as rich text: printable, and never rich markup."""
    return escape(printable(text))


def _num(v: Any, fmt: str = ".4g") -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return format(v, fmt)
    return str(v)


def _stats(v: Any, keys: tuple[str, ...], fmt: str = ".3g") -> str:
    if not isinstance(v, Mapping):
        return _num(v)
    return "  ".join(f"{k} {_num(v[k], fmt)}" for k in keys if k in v)


def print_summary(
    summary: Mapping[str, Any],
    *,
    title: str = "",
    out_dir: Path | None = None,
    console: Console | None = None,
) -> None:
    """The headline numbers of one run, then one line per flow group."""
    console = console or Console()
    t = Table(title=f"aqmlab run: {_safe(title)}" if title else "aqmlab run", show_header=False)
    t.add_column("metric", style="bold")
    t.add_column("value")
    rows: list[tuple[str, str]] = []
    for ms in registry.grouped(registry.metrics("run")):
        value = summary.get(ms[0].group)
        if len(ms) > 1:
            name = f"{ms[0].label} ({ms[0].unit})" if ms[0].unit else ms[0].label
            rows.append((name, _stats(value, tuple(m.stat for m in ms))))
        elif isinstance(value, Mapping):  # a breakdown: drops by reason
            rows.append((ms[0].label, _stats(value, tuple(value))))
        else:
            rows.append((ms[0].label, ms[0].fmt(value)))
    for k, v in rows:
        t.add_row(k, v)
    console.print(t)
    groups = summary.get("groups")
    if isinstance(groups, Mapping) and groups:
        g = Table(title="groups")
        fields: list[str] = []
        for stats in groups.values():
            if isinstance(stats, Mapping):
                fields += [k for k in stats if k not in fields]
        g.add_column("group", style="bold")
        for f in fields:
            g.add_column(f, justify="right")
        for name, stats in groups.items():
            stats = stats if isinstance(stats, Mapping) else {}
            g.add_row(_safe(name), *(_stats(stats.get(f), ("min", "mean", "max")) for f in fields))
        console.print(g)
    links = summary.get("links")
    if isinstance(links, list) and links:
        measured = _safe(summary.get("measured_link", "?"))
        lt = Table(title=f"links (the summary above is {measured})")
        # summary key -> column header (short enough for an 80-column terminal)
        cols = {"qdisc": "qdisc", **{m.key: m.short for m in registry.metrics("link")}}
        lt.add_column("link", style="bold")
        for header in cols.values():
            lt.add_column(header, justify="right")
        for link in links:
            if isinstance(link, Mapping):
                lt.add_row(_safe(link.get("link")), *(_num(link.get(k)) for k in cols))
        console.print(lt)
    if out_dir is not None:
        console.print(f"results written to [bold]{_safe(out_dir)}[/bold]")


def print_algorithms(algos: list[dict[str, Any]], *, console: Console | None = None) -> None:
    """Each algorithm: kind, name, source, then its parameters with defaults."""
    console = console or Console()
    for a in algos:
        console.print(f"[bold cyan]{a['kind']}[/bold cyan]  {a['name']}")
        console.print(f"  source: {a['source']}", highlight=False)
        if a["params"]:
            t = Table(show_edge=False, box=None, padding=(0, 2, 0, 4))
            t.add_column("key", style="bold")
            t.add_column("default")
            t.add_column("meaning")
            for p in a["params"]:
                t.add_row(p["key"], p["default"], p["help"])
            console.print(t)
        console.print()


def print_metrics(metrics: Sequence[registry.Metric], *, console: Console | None = None) -> None:
    """The metric registry: one row per metric (``links`` entries' metrics last)."""
    console = console or Console()
    t = Table(title="aqmlab metrics")
    for col in ("key", "scope", "unit", "better", "meaning"):
        t.add_column(col, style="bold" if col == "key" else None)
    for m in metrics:
        t.add_row(m.key, m.scope, m.unit, m.better, m.description)
    console.print(t)


def print_comparison(
    table: pd.DataFrame, *, out_dir: Path | None = None, console: Console | None = None
) -> None:
    """The comparison: one column per run, one row per metric (fits a terminal)."""
    console = console or Console()
    t = Table(title="aqmlab compare")
    t.add_column("metric", style="bold")
    for run in table["run"]:
        t.add_column(_safe(run), justify="right")
    titles = {m.column: m.title for m in registry.METRICS if m.scope == "run"}
    for col in table.columns:
        if col == "run":
            continue
        t.add_row(titles.get(str(col), str(col)), *(_num(v) for v in table[col]))
    console.print(t)
    if out_dir is not None:
        console.print(f"results and comparison.png written to [bold]{_safe(out_dir)}[/bold]")


_VERDICT_STYLE = {"agree": "green", "within 10%": "yellow", "differs": "bold red", "n/a": "dim"}


def print_crosscheck(
    rows: list[dict[str, Any]],
    *,
    title: str,
    seeds: list[int],
    out_dir: Path | None = None,
    console: Console | None = None,
    side: str = "ns2",
    simulator: str = "ns-2.35",
    short: str = "ns-2",
) -> None:
    """aqmlab beside another simulator (``side`` is its column in ``rows``): one row per
    metric, mean [min-max] over seeds and the verdict."""
    from aqmlab.xcheck import table

    console = console or Console()
    t = Table(title=f"aqmlab vs {simulator}: {_safe(title)} (seeds {', '.join(map(str, seeds))})")
    t.add_column("metric", style="bold")
    t.add_column("aqmlab", justify="right")
    t.add_column(short, justify="right")
    t.add_column("ratio", justify="right")
    t.add_column("verdict")
    for r in rows:
        style = _VERDICT_STYLE.get(r["verdict"], "")
        t.add_row(
            r["label"],
            table.cell(r["aqmlab"]),
            table.cell(r[side]),
            table.cell({"mean": r["ratio"], "values": [r["ratio"]]}),
            f"[{style}]{r['verdict']}[/{style}]" if style else r["verdict"],
        )
    console.print(t)
    if out_dir is not None:
        console.print(
            f"crosscheck.json, crosscheck.md and what {short} ran in [bold]{_safe(out_dir)}[/bold]"
        )
