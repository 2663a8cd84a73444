"""Results of one run: the summary, four columnar tables, and writing them to disk.

Files written by :meth:`Results.write` (into ``out_dir``):

=================  ===========================================================================
``summary.json``   the core's summary, byte for byte (stable keys, see docs/scenarios.md)
``scenario.toml``  the resolved scenario: every default written out (rerun it to reproduce)
``flows.parquet``  one row per flow: id, group, rtt_ms, goodput_mbps, drops, marks, ...,
                   delay_mean_ms, delay_p99_ms, jitter_ms (at the measured link), loss_rate
``queue.parquet``  bottleneck queue sampled every ``sample_interval``: t_s, qlen_pkts, AQM probes
``groups.parquet`` per-group goodput per ``series_bin``, long format: t_s, group, goodput_mbps
``links.parquet``  per-link counters: arrivals, enqueued, dequeued, drops, marks, backlog, ...
``transfers.parquet`` completed web transfers: flow, group, start_s, duration_s
``tcp_trace.parquet`` per-event TCP traces of the flows ``trace.flows`` names (empty otherwise)
``packet_trace.parquet`` per-packet events of the links ``trace.links`` names: link, t_s, event
                   (enqueue/drop/mark/dequeue), reason, queued, flow, kind, seq, size_bytes, ecn
``<link>.pcap``    each traced link's departures as a capture (:mod:`aqmlab.pcap`)
``*.png``, ``*.svg`` queue, goodput_vs_rtt, group_goodput; cwnd for traced flows
=================  ===========================================================================
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pyarrow costs ~0.35 s to import: only when tables are built or written
    import pyarrow as pa

TABLES = ("flows", "queue", "groups", "links", "transfers", "tcp_trace", "packet_trace")


def _to_arrow(columns: dict[str, Any]) -> pa.Table:
    import pyarrow as pa

    names = list(columns)
    return pa.Table.from_arrays([_column(columns[n]) for n in names], names=names)


def _column(values: Any) -> pa.Array:
    """One column from the core (a numpy array, or a list of str) as an Arrow array, built from
    its buffers: ``pa.array`` imports pandas (~0.5 s of CPU) to ask whether the values are a
    pandas object, which would cost a short ``aqmlab run`` more than its simulation. Same types
    as ``pa.array`` gives (numpy dtype; ``string``; ``null`` for an empty list)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "fiub":
        data = np.ascontiguousarray(values)
        kind = pa.from_numpy_dtype(data.dtype)
        if data.dtype.kind == "b":  # Arrow packs booleans into bits
            bits = np.packbits(data, bitorder="little")
            return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(bits)])
        return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        if not values:
            return pa.nulls(0)
        encoded = [v.encode("utf-8") for v in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        if offsets[-1] < 2**31:
            offsets32 = pa.py_buffer(offsets.astype(np.int32))
            buffers = [None, offsets32, pa.py_buffer(b"".join(encoded))]
            return pa.Array.from_buffers(pa.string(), len(encoded), buffers)
    return pa.array(values)  # anything else: pyarrow's own conversion


def _parquet(table: pa.Table) -> pa.Buffer:
    """``table`` as a Parquet file in memory (written with one ``write``: no filesystem
    resolved, no stream opened per file). Dictionary encoding only for the text columns (flow
    groups, link names and roles, which repeat): on the numeric columns of the sampled queue
    and the per-flow and per-link counters, nearly every value is distinct, so the
    dictionary pyarrow builds by default for every column is thrown away as too large or costs
    more bytes than it saves. Writing the seven tables of a paper run takes 1.9-2.9 ms of CPU
    instead of 3.6-7.0 ms, and a run's tables come out between 7 % smaller and 6 % larger (a
    SFRED web run, whose thousands of transfers repeat values). The values and the Arrow
    schema read back are the same either way."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = [f.name for f in table.schema if pa.types.is_string(f.type)]
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=text)
    return sink.getvalue()


def checked_summary(raw: Mapping[str, Any], *, name: str) -> dict[str, Any]:
    """The parsed summary of the core's output ``raw``, after checking its invariants
    (:mod:`aqmlab.invariants`: raises :class:`~aqmlab.invariants.InvariantError` naming the
    run). Builds no table, so a caller that writes none never imports pyarrow."""
    from aqmlab import invariants

    summary: dict[str, Any] = json.loads(raw["summary_json"])
    invariants.check_summary(summary, name)
    invariants.check_links(raw["tables"].get("links", {}), name)
    return summary


@dataclass
class Results:
    """One run's results. ``flows``/``queue``/``groups``/``links``/``transfers`` are
    ``pyarrow.Table``s (``.to_pandas()`` for DataFrames); ``summary`` is the parsed
    ``summary_json``."""

    name: str
    summary_json: str
    scenario_toml: str
    flows: pa.Table
    queue: pa.Table
    groups: pa.Table
    links: pa.Table
    transfers: pa.Table = field(default_factory=lambda: _to_arrow({}))
    tcp_trace: pa.Table = field(default_factory=lambda: _to_arrow({}))
    packet_trace: pa.Table = field(default_factory=lambda: _to_arrow({}))
    _summary: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    #: The ``summary_json`` whose invariants :meth:`from_core` checked: :meth:`write` does not
    #: check the same text again (a per-flow loop: ~4 ms of CPU a run with 1,000 flows).
    _checked_json: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], *, name: str) -> Results:
        """Wraps the core's output, after checking its invariants (:func:`checked_summary`)."""
        summary = checked_summary(raw, name=name)
        tables = raw["tables"]
        return cls(
            name=name,
            summary_json=raw["summary_json"],
            scenario_toml=raw["scenario_toml"],
            **{t: _to_arrow(tables.get(t, {})) for t in TABLES},
            _summary=summary,
            _checked_json=raw["summary_json"],
        )

    def __repr__(self) -> str:
        """One line: the run's name, headline numbers and table sizes (the tables themselves
        are a ``to_pandas()`` away)."""
        s = self.summary
        parts = [f"Results({self.title!r}"]
        for key, label, fmt in (
            ("utilisation", "utilisation", ".3f"),
            ("loss_rate", "loss", ".4f"),
            ("jain_index", "Jain", ".3f"),
        ):
            if isinstance(s.get(key), (int, float)):
                parts.append(f"{label} {s[key]:{fmt}}")
        delay = s.get("delay_ms")
        if isinstance(delay, Mapping) and isinstance(delay.get("p99"), (int, float)):
            parts.append(f"delay p99 {delay['p99']:.3g} ms")
        rows = ", ".join(f"{t} {self.table(t).num_rows}" for t in TABLES if self.table(t).num_rows)
        parts.append(f"rows: {rows})")
        return ", ".join(parts)

    __str__ = __repr__

    @property
    def title(self) -> str:
        """The scenario's ``name`` (what figures and pages are titled), else the run's name."""
        return str(self.summary.get("scenario") or self.name)

    @property
    def summary(self) -> dict[str, Any]:
        if self._summary is None:
            self._summary = json.loads(self.summary_json)
        return self._summary

    def _repr_html_(self) -> str:
        """Notebook display: headline numbers and a small queue plot (see aqmlab.notebook)."""
        from aqmlab import notebook

        return notebook.results_html(self)

    def table(self, name: str) -> pa.Table:
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables are {', '.join(TABLES)}")
        table: pa.Table = getattr(self, name)
        return table

    def write(self, out_dir: str | Path, *, plots: bool = True, force: bool = False) -> Path:
        """Writes every file into ``out_dir`` and returns it.

        ``out_dir`` must be new, empty, or an earlier aqmlab result (see :mod:`aqmlab.output`);
        an existing file or a directory of other files is refused with
        :class:`aqmlab.ScenarioError` unless ``force=True``. Everything is first written into a
        temporary directory beside ``out_dir`` and renamed into place at the end, so an
        interrupted or failed write never leaves a directory that looks like a complete result.
        """
        from aqmlab import output

        out = output.check_destination(out_dir, force=force, what="out_dir")
        return self.write_checked(out, plots=plots, force=force)

    def write_checked(
        self, out: Path, *, plots: bool = True, force: bool = False, clean: bool = True
    ) -> Path:
        """:meth:`write` into ``out``, a destination already checked
        (:func:`aqmlab.output.check_destination`, as a sweep checks its own before any run).
        ``clean``: see :func:`aqmlab.output.atomic_dir`."""
        from aqmlab import invariants, output, pages

        if self._checked_json != self.summary_json:
            invariants.check_summary(self.summary, self.name)
        # Each file's SHA-256 from the bytes written, for the marker's manifest: nothing is
        # read back. Captures and figures are written by other modules: then hashed at the end.
        hashes: dict[str, str] | None = {} if not plots and not self.packet_trace.num_rows else None

        def put(path: Path, data: Any) -> None:  # bytes, or a pyarrow Buffer
            path.write_bytes(data)
            if hashes is not None:
                hashes[path.name] = hashlib.sha256(data).hexdigest()

        with output.atomic_dir(
            out, kind="run", force=force, what="out_dir", clean=clean, files=hashes
        ) as tmp:
            put(tmp / "summary.json", self.summary_json.encode("utf-8"))
            put(tmp / "scenario.toml", self.scenario_toml.encode("utf-8"))
            for name in TABLES:
                put(tmp / f"{name}.parquet", _parquet(self.table(name)))
            if self.packet_trace.num_rows:
                self._write_pcaps(tmp)
            if plots:
                self._write_plots(tmp)
            page = pages.run_page(self.summary, self.scenario_toml, tmp)
            put(tmp / "report.html", page.encode("utf-8"))
        return out

    def _write_pcaps(self, into: Path) -> None:
        from aqmlab import pcap

        trace = self.packet_trace.to_pandas()
        for link in trace["link"].unique():
            pcap.write(trace, str(link), into / pcap.file_name(str(link)))

    def _write_plots(self, into: Path) -> None:
        """The run's figures, PNG and SVG: titled with the scenario's name, the warm-up shaded,
        the fair share on goodput against RTT, and cwnd for traced flows."""
        from aqmlab import plots

        warmup = self.summary.get("warmup_s")
        warmup_s = float(warmup) if isinstance(warmup, (int, float)) else None
        links = self.links.to_pandas()
        measured = str(self.summary.get("measured_link") or "bottleneck")
        rates = links.loc[links["role"] == measured, "rate_bps"].tolist() if "role" in links else []
        capacity = float(rates[0]) / 1e6 if rates else None
        title = self.title
        figures = {
            "queue.png": plots.queue_length(self.queue.to_pandas(), title=title, warmup_s=warmup_s),
            "goodput_vs_rtt.png": plots.goodput_vs_rtt(
                self.flows.to_pandas(), title=title, capacity_mbps=capacity
            ),
            "group_goodput.png": plots.group_goodput(
                self.groups.to_pandas(), title=title, warmup_s=warmup_s
            ),
        }
        if self.tcp_trace.num_rows:
            figures["cwnd.png"] = plots.cwnd(
                self.tcp_trace.to_pandas(), title=title, warmup_s=warmup_s
            )
        for file, fig in figures.items():
            plots.save(fig, into / file)
