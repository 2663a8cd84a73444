"""How a :class:`aqmlab.Results` shows itself in a notebook (``_repr_html_``): the headline
numbers as a table and the measured link's queue as a small inline SVG line. Plain strings and
numpy only (no matplotlib), so displaying a result costs milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from aqmlab import pages

if TYPE_CHECKING:
    from aqmlab.results import Results

#: Size of the queue sketch, pixels, and the most points it draws.
WIDTH, HEIGHT, MAX_POINTS = 360, 72, 360


def queue_svg(t_s: np.ndarray, qlen: np.ndarray) -> str:
    """The queue length over time as an SVG polyline, empty when there are no samples.

    Long series are cut into ``MAX_POINTS`` buckets and each bucket drawn at its maximum, so
    short bursts stay visible however long the run.
    """
    n = min(len(t_s), len(qlen))
    if n == 0:
        return ""
    t = np.asarray(t_s[:n], dtype=float)
    q = np.asarray(qlen[:n], dtype=float)
    if n > MAX_POINTS:
        edges = np.linspace(0, n, MAX_POINTS + 1).astype(int)
        t = t[edges[:-1]]
        q = np.maximum.reduceat(q, edges[:-1])
    t_span = float(t[-1] - t[0]) or 1.0
    q_max = float(q.max()) or 1.0
    xs = (t - t[0]) / t_span * WIDTH
    ys = HEIGHT - q / q_max * HEIGHT
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    caption = (
        f"queue (packets) at the measured link, {float(t[0]):.3g}-{float(t[-1]):.3g} s, "
        f"peak {q_max:.4g}"
    )
    return (
        f"<figure style='margin:0.5em 0'>"
        f"<svg width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}' "
        f"role='img' aria-label='{pages.esc(caption)}' "
        f"style='border:1px solid #ccc;background:#fafafa'>"
        f"<polyline fill='none' stroke='#1f77b4' stroke-width='1' points='{points}'/></svg>"
        f"<figcaption style='font-size:80%'>{pages.esc(caption)}</figcaption></figure>"
    )


def results_html(res: Results) -> str:
    """The notebook view of one run: its name, headline numbers, and the queue sketch."""
    queue = res.queue
    svg = ""
    if "t_s" in queue.column_names and "qlen_pkts" in queue.column_names:
        svg = queue_svg(queue["t_s"].to_numpy(), queue["qlen_pkts"].to_numpy())
    return (
        f"<div><strong>aqmlab run: {pages.esc(res.title)}</strong>"
        f"{pages.rows_table(('metric', 'value'), pages.headline(res.summary))}{svg}</div>"
    )
