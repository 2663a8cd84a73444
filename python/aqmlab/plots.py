"""Plots: pure functions from DataFrames to matplotlib Figures.

Figures are ``matplotlib.figure.Figure`` objects drawn on their own Agg canvas, never through
``pyplot``: importing this module, or writing results, leaves matplotlib's global backend and
pyplot's figure list as the user had them (a notebook's ``plt.show()`` keeps working).

Each function takes the table as it comes out of :class:`aqmlab.Results` (``.to_pandas()``) and
returns a Figure; :func:`save` writes and closes it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from aqmlab import registry

#: One look for every figure aqmlab draws (applied while a figure is built: see ``styled``).
STYLE: Any = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.2,
    "savefig.bbox": "tight",
}

#: The most points a time series is drawn with; longer ones are cut into this many windows,
#: each drawn as its mean with its min-max range shaded (a 150 s run sampled every 20 ms has
#: 7,501 samples, a solid block of colour when drawn point by point).
MAX_POINTS = 300

F = TypeVar("F", bound=Callable[..., Figure])


def styled(fn: F) -> F:
    """Builds the figure under :data:`STYLE` (a temporary rc context: the user's settings are
    back as they were when the function returns)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Figure:
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)

    return cast(F, wrapper)


def new_figure(**kwargs: Any) -> Figure:
    """A Figure on its own Agg canvas (no pyplot, no global state)."""
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def _figure(title: str, size: tuple[float, float] = (7, 3.6)) -> tuple[Figure, Axes]:
    fig = new_figure(figsize=size, layout="constrained")
    ax = fig.subplots()
    if title:
        ax.set_title(title)
    return fig, ax


def axis_label(key: str) -> str:
    """An axis label for a summary metric or runs-table column: the registry's label and unit
    (``delay_ms.p99`` and ``delay_ms_p99`` -> ``queueing delay p99 (ms)``), else the key."""
    for m in registry.METRICS:
        if key in (m.key, m.column):
            return m.title
    return key


def windowed(t: Any, y: Any, points: int = MAX_POINTS) -> tuple[np.ndarray, ...]:
    """``(t, mean, low, high)`` of ``y`` over at most ``points`` equal windows of samples (the
    series itself, with low = high = y, when it is short enough)."""
    tt = np.asarray(t, dtype=float)
    yy = np.asarray(y, dtype=float)
    if len(yy) <= points:
        return tt, yy, yy, yy
    edges = np.linspace(0, len(yy), points + 1).astype(int)
    starts = edges[:-1]
    sizes = np.diff(edges)
    mean = np.add.reduceat(yy, starts) / sizes
    low = np.minimum.reduceat(yy, starts)
    high = np.maximum.reduceat(yy, starts)
    mid = np.add.reduceat(tt, starts) / sizes
    return mid, mean, low, high


def _series(ax: Axes, t: Any, y: Any, *, label: str, color: str, band: bool = True) -> None:
    tt, mean, low, high = windowed(t, y)
    ax.plot(tt, mean, color=color, label=label)
    if band and len(tt) < len(np.asarray(t)):
        ax.fill_between(tt, low, high, color=color, alpha=0.2, lw=0)


def _warmup(ax: Axes, warmup_s: float | None) -> None:
    if warmup_s:
        ax.axvspan(0, warmup_s, color="0.9", zorder=0, lw=0, label=f"warm-up ({warmup_s:g} s)")


@styled
def queue_length(queue: pd.DataFrame, *, title: str = "", warmup_s: float | None = None) -> Figure:
    """Queue length at the measured link over time: the instantaneous queue (windowed means,
    min-max shaded), the AQM's average if it probes one, its thresholds (``min_th``/``max_th``
    probes) as dashed lines, and the warm-up shaded."""
    fig, ax = _figure(title)
    _warmup(ax, warmup_s)
    if not queue.empty and "t_s" in queue and "qlen_pkts" in queue:
        _series(ax, queue["t_s"], queue["qlen_pkts"], label="queue", color="C0")
        if "avg" in queue and queue["avg"].notna().any():
            _series(ax, queue["t_s"], queue["avg"], label="average (AQM)", color="C1", band=False)
        for th, style in (("min_th", ":"), ("max_th", "--")):
            if th in queue and queue[th].notna().any():
                v = float(queue[th].dropna().iloc[-1])
                ax.axhline(v, color="k", ls=style, lw=0.9, label=f"{th} = {v:g}")
        ax.legend(loc="upper right", ncols=2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    return fig


@styled
def goodput_vs_rtt(
    flows: pd.DataFrame, *, title: str = "", capacity_mbps: float | None = None
) -> Figure:
    """Each flow's goodput against its base RTT, one colour per group; with ``capacity_mbps``
    (the measured link's rate) a dashed line at the fair share, capacity / flows."""
    fig, ax = _figure(title)
    if not flows.empty and {"rtt_ms", "goodput_mbps"} <= set(flows.columns):
        groups = flows.groupby("group", sort=False) if "group" in flows else [("", flows)]
        for name, g in groups:
            ax.scatter(g["rtt_ms"], g["goodput_mbps"], s=16, label=str(name) or None)
        if capacity_mbps:
            share = capacity_mbps / len(flows)
            ax.axhline(share, color="k", ls="--", lw=0.8, label=f"fair share {share:.3g} Mbps")
        if ("group" in flows and flows["group"].nunique() > 1) or capacity_mbps:
            ax.legend()
    ax.set_xlabel("base RTT (ms)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    return fig


@styled
def group_goodput(
    groups: pd.DataFrame, *, title: str = "", warmup_s: float | None = None
) -> Figure:
    """Goodput of each flow group over time (one line per group), the warm-up shaded."""
    fig, ax = _figure(title)
    _warmup(ax, warmup_s)
    if not groups.empty and {"t_s", "group", "goodput_mbps"} <= set(groups.columns):
        for i, (name, g) in enumerate(groups.groupby("group", sort=False)):
            _series(ax, g["t_s"], g["goodput_mbps"], label=str(name), color=f"C{i}")
        ax.legend(loc="upper right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    return fig


@styled
def cwnd(trace: pd.DataFrame, *, title: str = "", warmup_s: float | None = None) -> Figure:
    """Congestion window and slow-start threshold of each traced flow (``tcp_trace``), one
    panel per flow (at most six), segments against time."""
    ids = list(dict.fromkeys(trace["flow"]))[:6] if "flow" in trace else []
    n = max(len(ids), 1)
    ncols = min(n, 2)
    nrows = -(-n // ncols)
    fig = new_figure(figsize=(3.8 * ncols, 2.4 * nrows + 0.4), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True).ravel()
    for ax, flow in zip(axes, ids, strict=False):
        g = trace[trace["flow"] == flow]
        _warmup(ax, warmup_s)
        ax.step(g["t_s"], g["cwnd"], where="post", color="C0", label="cwnd")
        ssthresh = g["ssthresh"].where(g["ssthresh"] > 0)  # 0: unlimited (ns-2's convention)
        ax.step(g["t_s"], ssthresh, where="post", color="C3", ls="--", label="ssthresh")
        ax.set_title(f"flow {flow}")
        ax.set_ylabel("segments")
        ax.set_ylim(bottom=0)
    for ax in axes[len(ids) :]:
        ax.axis("off")
    for ax in axes[-ncols:]:
        ax.set_xlabel("time (s)")
    axes[0].legend(loc="upper right")
    if title:
        fig.suptitle(title)
    return fig


@styled
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


@styled
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
        fig = cast(Figure, ax.figure)
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
    ax.set_xlabel(axis_label(x))
    ax.set_ylabel(axis_label(y))
    if logx:
        ax.set_xscale("log")
    if keys:
        ax.legend()
    return fig


@styled
def small_multiples(
    runs: pd.DataFrame, x: str, ys: Sequence[str], *, line: str | None = "algorithm", ncols: int = 3
) -> Figure:
    """A sweep's metrics against one axis, one small panel per metric (:func:`metric_vs` in
    each), sharing the x axis; the legend once, on the first panel."""
    n = max(len(ys), 1)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = new_figure(figsize=(3.6 * ncols, 2.7 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True).ravel()
    for i, (ax, y) in enumerate(zip(axes, ys, strict=False)):
        metric_vs(runs, x, y, line=line, ax=ax)
        legend = ax.get_legend()
        if legend is not None and i > 0:
            legend.remove()
    for ax in axes[len(ys) :]:
        ax.axis("off")
    return fig


def sweep_label_columns(runs: pd.DataFrame) -> list[str]:
    """The label columns of a runs table: ``runs.attrs["labels"]`` when the table carries it
    (``run_points`` sets it), else every column that is not a summary metric."""
    if runs.attrs.get("labels"):
        return [c for c in runs.attrs["labels"] if c in runs.columns]
    metrics = registry.keys()
    metrics |= {"duration_s", "warmup_s", "window_s", "run_dir", "cached", "error", "qdisc"}
    return [c for c in runs.columns if "." not in c and c not in metrics]


def save(fig: Figure, path: str | Path, *, dpi: int = 150, svg: bool = True) -> None:
    """Writes ``fig`` as PNG and, with ``svg``, as SVG beside it (same name, ``.svg``: vector,
    for papers).

    The SVG is drawn in the layout and bounding box the PNG was just saved with, instead of
    laying the figure out and measuring its tight box a second time: that skips a full pass
    over every artist (about 40 % of the SVG's CPU, 0.2 s a paper figure). The SVG's
    coordinates are the same as with its own layout pass, to the last printed digit at most."""
    path = Path(path)
    with matplotlib.rc_context(STYLE):
        tight = _capture_tight_bbox(fig)
        try:
            fig.savefig(path, dpi=dpi)
        finally:
            del fig.get_tightbbox  # the class's method again
        if not svg:
            return
        if not tight:  # not saved with a tight box: nothing to reuse
            fig.savefig(path.with_suffix(".svg"))
            return
        engine = fig.get_layout_engine()
        fig.set_layout_engine("none")  # keep the positions the PNG's layout gave the axes
        try:
            pad = matplotlib.rcParams["savefig.pad_inches"]
            fig.savefig(path.with_suffix(".svg"), bbox_inches=tight[-1].padded(pad))
        finally:
            fig.set_layout_engine(engine)


def _capture_tight_bbox(fig: Figure) -> list[Bbox]:
    """Until ``del fig.get_tightbbox``, records every tight bounding box (inches) computed of
    ``fig``: what ``savefig`` measured to crop with ``bbox_inches="tight"``."""
    seen: list[Bbox] = []
    measure = fig.get_tightbbox

    def recording(*args: Any, **kwargs: Any) -> Bbox:
        box = measure(*args, **kwargs)
        seen.append(box)
        return box

    fig.get_tightbbox = recording  # type: ignore[method-assign]
    return seen


# ---- reproduction figures -------------------------------------------------------------------


@styled
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


@styled
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


@styled
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
    of ``by`` within it (e.g. per flow group), windowed as :func:`queue_length` draws them;
    ``shade`` marks time intervals."""
    n = max(len(series), 1)
    ncols = min(n, 3)
    nrows = -(-n // ncols)
    fig = new_figure(figsize=(4.8 * ncols, 3.0 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True).ravel()
    for ax, (name, d) in zip(axes, series.items(), strict=False):
        for i, (key, g) in enumerate(d.groupby(by, sort=False)):
            _series(ax, g[t], g[y], label=str(key), color=f"C{i}")
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
