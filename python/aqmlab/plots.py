"""Plots: pure functions from DataFrames to matplotlib Figures.

Figures are ``matplotlib.figure.Figure`` objects drawn on their own Agg canvas, never through
``pyplot``: importing this module, or writing results, leaves matplotlib's global backend and
pyplot's figure list as the user had them (a notebook's ``plt.show()`` keeps working).

Each function takes the table as it comes out of :class:`aqmlab.Results` (``.to_pandas()``) and
returns a Figure; :func:`save` writes and closes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from aqmlab import registry

#: AQM probe columns drawn on the queue plot when present (RED's average queue and the like).
QUEUE_PROBES = ("avg",)


def new_figure(**kwargs: Any) -> Figure:
    """A Figure on its own Agg canvas (no pyplot, no global state)."""
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def _figure(title: str) -> tuple[Figure, Axes]:
    fig = new_figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.subplots()
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return fig, ax


def queue_length(queue: pd.DataFrame, *, title: str = "") -> Figure:
    """Bottleneck queue length over time: instantaneous, and the AQM's average if it probes one."""
    fig, ax = _figure(title)
    if not queue.empty and "t_s" in queue and "qlen_pkts" in queue:
        ax.plot(queue["t_s"], queue["qlen_pkts"], lw=0.6, label="queue (packets)")
        if "qlen_avg_pkts" in queue:
            ax.plot(queue["t_s"], queue["qlen_avg_pkts"], lw=1.0, label="time average per sample")
        for probe in QUEUE_PROBES:
            if probe in queue:
                ax.plot(queue["t_s"], queue[probe], lw=1.2, label=f"{probe} (AQM)")
        ax.legend(loc="upper right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)")
    ax.set_ylim(bottom=0)
    return fig


def goodput_vs_rtt(flows: pd.DataFrame, *, title: str = "") -> Figure:
    """Each flow's goodput against its base RTT, one colour per group."""
    fig, ax = _figure(title)
    if not flows.empty and {"rtt_ms", "goodput_mbps"} <= set(flows.columns):
        groups = flows.groupby("group", sort=False) if "group" in flows else [("", flows)]
        for name, g in groups:
            ax.scatter(g["rtt_ms"], g["goodput_mbps"], s=18, label=str(name) or None)
        if "group" in flows and flows["group"].nunique() > 1:
            ax.legend()
    ax.set_xlabel("base RTT (ms)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    return fig


def group_goodput(groups: pd.DataFrame, *, title: str = "") -> Figure:
    """Goodput of each flow group over time (one line per group)."""
    fig, ax = _figure(title)
    if not groups.empty and {"t_s", "group", "goodput_mbps"} <= set(groups.columns):
        for name, g in groups.groupby("group", sort=False):
            ax.plot(g["t_s"], g["goodput_mbps"], lw=1.0, label=str(name))
        ax.legend(loc="upper right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    return fig


def comparison(
    table: pd.DataFrame, flows: Mapping[str, pd.DataFrame], *, title: str = ""
) -> Figure:
    """Several runs side by side: goodput against RTT (one series per run) and one bar chart
    per plotted metric of the registry (utilisation, loss rate, Jain index, mean queue, mean
    queueing delay).

    ``table`` is a comparison table (:data:`aqmlab.compare.COLUMNS`: ``run`` and the metrics'
    flat column names); ``flows`` maps each run to its flows table.
    """
    fig = new_figure(figsize=(12, 7), layout="constrained")
    if title:
        fig.suptitle(title)
    metrics = [(m.column, m.title) for m in registry.plotted()]
    grid = fig.add_gridspec(2, max(len(metrics), 1))
    ax = fig.add_subplot(grid[0, :])
    for run, f in flows.items():
        if {"rtt_ms", "goodput_mbps"} <= set(f.columns):
            f = f.sort_values("rtt_ms")
            ax.plot(f["rtt_ms"], f["goodput_mbps"], marker="o", ms=3, lw=0.8, label=run)
    ax.set_xlabel("base RTT (ms)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    colours = [f"C{i}" for i in range(len(table))]
    for i, (col, label) in enumerate(metrics):
        bar_ax = fig.add_subplot(grid[1, i])
        if col in table:
            bar_ax.bar(table["run"].astype(str), table[col], color=colours)
        bar_ax.set_title(label, fontsize=10)
        bar_ax.tick_params(axis="x", labelrotation=30)
        bar_ax.grid(True, axis="y", alpha=0.3)
    return fig


def metric_vs(
    runs: pd.DataFrame,
    x: str,
    y: str,
    *,
    line: str | None = "algorithm",
    ax: Axes | None = None,
    title: str = "",
    logx: bool = False,
) -> Figure:
    """A sweep's metric against one axis: one line per value of ``line`` (and per value of
    every other label that varies, so that different settings are never averaged together).
    Repetitions (``seed``) are averaged; error bars show their standard deviation.

    ``runs`` is a runs table (:func:`aqmlab.sweep.run_points`, ``runs.parquet``).
    """
    for col in (x, y):
        if col not in runs:
            raise KeyError(f"no column {col!r} in the runs table")
    if line is not None and line not in runs:
        raise KeyError(f"no column {line!r} in the runs table")
    if ax is None:
        fig, ax = _figure(title)
    else:
        fig = ax.figure
        if title:
            ax.set_title(title)
    ok = runs if "error" not in runs else runs[runs["error"].isna()]
    others = [
        c
        for c in sweep_label_columns(ok)
        if c not in (x, y, line, "seed") and ok[c].nunique(dropna=False) > 1
    ]
    keys = ([line] if line is not None else []) + others
    groups = ok.groupby(keys, sort=True, dropna=False) if keys else [((), ok)]
    for name, g in groups:
        name_t = name if isinstance(name, tuple) else (name,)
        label = ", ".join(
            str(v) if i == 0 and line is not None else f"{k}={v}"
            for i, (k, v) in enumerate(zip(keys, name_t, strict=True))
        )
        # Named aggregations, so that an axis called "count" or "mean" does not collide.
        stats = g.groupby(x, sort=True)[y].agg(_mean="mean", _std="std", _n="count")
        err = stats["_std"].where(stats["_n"] > 1)
        ax.errorbar(stats.index, stats["_mean"], yerr=err, marker="o", ms=4, capsize=3, label=label)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if logx:
        ax.set_xscale("log")
    if keys:
        ax.legend()
    return fig


def sweep_label_columns(runs: pd.DataFrame) -> list[str]:
    """The label columns of a runs table: ``runs.attrs["labels"]`` when the table carries it
    (``run_points`` sets it), else every column that is not a summary metric."""
    if runs.attrs.get("labels"):
        return [c for c in runs.attrs["labels"] if c in runs.columns]
    metrics = registry.keys()
    metrics |= {"duration_s", "warmup_s", "window_s", "run_dir", "cached", "error", "qdisc"}
    return [c for c in runs.columns if "." not in c and c not in metrics]


def save(fig: Figure, path: str | Path, *, dpi: int = 120) -> None:
    """Writes ``fig`` as PNG and closes it."""
    fig.savefig(path, dpi=dpi)


# ---- reproduction figures -------------------------------------------------------------------


def panels_vs(
    df: pd.DataFrame,
    x: str,
    panels: list[tuple[str, str]],
    *,
    line: str = "algorithm",
    seed: str = "seed",
    labels: Mapping[str, str] | None = None,
    xlabel: str = "",
    title: str = "",
    logx: bool = False,
    ncols: int = 3,
    hlines: Mapping[str, Mapping[str, float]] | None = None,
) -> Figure:
    """One panel per metric ``(column, axis label)`` against ``x``, one line per value of
    ``line``; repetitions (``seed``) are averaged and their standard deviation drawn as error
    bars. ``hlines[column][name]`` adds a dashed reference line (e.g. DropTail's value)."""
    for col in [x, line, *(c for c, _ in panels)]:
        if col not in df:
            raise KeyError(f"no column {col!r} in the table")
    ncols = min(ncols, len(panels))
    nrows = -(-len(panels) // ncols)
    fig = new_figure(figsize=(4.4 * ncols, 3.5 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    names = dict(labels or {})
    for ax, (col, ylabel) in zip(axes, panels, strict=False):
        for i, (key, g) in enumerate(df.groupby(line, sort=False)):
            stats = g.groupby(x, sort=True)[col].agg(_mean="mean", _std="std", _n="count")
            err = stats["_std"].where(stats["_n"] > 1) if seed in g else None
            ax.errorbar(
                stats.index,
                stats["_mean"],
                yerr=err,
                marker="o",
                ms=4,
                capsize=3,
                color=f"C{i}",
                label=names.get(str(key), str(key)),
            )
        for j, (name, v) in enumerate(((hlines or {}).get(col) or {}).items()):
            ax.axhline(v, color="k", ls="--", lw=0.8, alpha=0.6 + 0.4 * (j == 0), label=name)
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel)
        if logx:
            ax.set_xscale("log")
        ax.grid(True, alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.axis("off")
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig


def bars_per_panel(
    values: Mapping[str, Sequence[float]],
    *,
    xlabel: str,
    ylabel: str,
    ref: float | None = None,
    title: str = "",
) -> Figure:
    """One bar chart per key of ``values`` (e.g. each flow's goodput under each algorithm),
    sharing the y axis; ``ref`` draws a horizontal line (e.g. the fair share)."""
    n = max(len(values), 1)
    fig = new_figure(figsize=(3.2 * n, 3.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, n, sharey=True))
    for ax, (name, v) in zip(axes, values.items(), strict=False):
        ax.bar(range(len(v)), list(v), color="tab:blue")
        if ref is not None:
            ax.axhline(ref, color="k", lw=1)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel(ylabel)
    if title:
        fig.suptitle(title)
    return fig


def series_per_panel(
    series: Mapping[str, pd.DataFrame],
    *,
    t: str,
    y: str,
    by: str,
    ylabel: str,
    xlabel: str = "time (s)",
    logy: bool = False,
    ylim: tuple[float, float] | None = None,
    shade: Sequence[tuple[float, float]] = (),
    title: str = "",
) -> Figure:
    """Time series, one panel per key of ``series`` (e.g. per algorithm) and one line per value
    of ``by`` within it (e.g. per flow group); ``shade`` marks time intervals."""
    n = max(len(series), 1)
    ncols = min(n, 3)
    nrows = -(-n // ncols)
    fig = new_figure(figsize=(4.8 * ncols, 3.0 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True).ravel()
    for ax, (name, d) in zip(axes, series.items(), strict=False):
        for key, g in d.groupby(by, sort=False):
            ax.plot(g[t], g[y], lw=0.8, label=str(key))
        for a, b in shade:
            ax.axvspan(a, b, color="0.9", zorder=0)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        if logy:
            ax.set_yscale("log")
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.grid(True, alpha=0.3)
    for ax in axes[n:]:
        ax.axis("off")
    axes[0].set_ylabel(ylabel)
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title)
    return fig
