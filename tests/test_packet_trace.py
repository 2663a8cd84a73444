"""The opt-in packet trace and the per-flow delay statistics, read back against the counters and
the summary they must agree with: every arrival, drop, mark and departure of a RED bottleneck
is one event; the per-flow delay, jitter and p99 in ``flows.parquet`` are what the trace's own
enqueue/dequeue times give; the pcap holds every departure (checked with ``tshark`` when it is
installed)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import aqmlab

#: RED with ECN on half the story: ECN-capable flows are marked, the overflow and forced drops
#: remain, so the trace holds all four kinds of event.
RED_ECN = {
    "duration": "12s",
    "warmup": "4s",
    "bottleneck.qdisc.ecn": True,
    "flows.0.tcp.ecn": True,
    "trace.links": ["bottleneck"],
}


@pytest.fixture(scope="module")
def red() -> aqmlab.Results:
    return aqmlab.run(aqmlab.example("red"), set=RED_ECN, seed=4)


def _counts(ev: pd.DataFrame) -> dict[str, int]:
    return {
        "arrivals": int(((ev.event == "enqueue") | (ev.event == "drop") & (ev.queued == 0)).sum()),
        "departures": int((ev.event == "dequeue").sum()),
        "drops": int((ev.event == "drop").sum()),
        "marks": int((ev.event == "mark").sum()),
    }


def test_trace_accounts_for_every_counted_packet(red: aqmlab.Results):
    ev = red.packet_trace.to_pandas()
    assert set(ev.event) == {"enqueue", "dequeue", "drop", "mark"}
    assert (ev.link == "bottleneck").all()
    assert red.summary["packet_trace"]["bottleneck"] == {"events": len(ev), "dropped_events": 0}
    # The whole run against the link's counters.
    links = red.links.to_pandas().set_index("role").loc["bottleneck"]
    whole = _counts(ev)
    assert whole == {
        "arrivals": links.arrivals,
        "departures": links.dequeued,
        "drops": links.drops,
        "marks": links.marks,
    }
    assert whole["arrivals"] == whole["departures"] + whole["drops"] + links.backlog
    # The measurement window against the summary, reason by reason.
    s = red.summary
    window = ev[ev.t_s >= s["warmup_s"]]
    counted = _counts(window)
    marks = s["marks"] if isinstance(s["marks"], int) else sum(s["marks"].values())
    assert counted == {
        "arrivals": s["arrivals"],
        "departures": s["departures"],
        "drops": sum(s["drops"].values()),
        "marks": marks,
    }
    by_reason = window[window.event == "drop"].reason.value_counts().to_dict()
    assert by_reason == {k: v for k, v in s["drops"].items() if v}
    assert (window[window.event == "mark"].ecn == "ce").all()


def test_per_flow_delay_jitter_and_p99_match_the_trace(red: aqmlab.Results):
    ev = red.packet_trace.to_pandas()
    warm = red.summary["warmup_s"]
    flows = red.flows.to_pandas().set_index("id")
    checked = 0
    for flow, g in ev[ev.kind == "data"].groupby("flow"):
        # One FIFO: a flow's packets leave in the order they were queued (RED drops only on
        # arrival), so the n-th dequeue is the n-th enqueue.
        enq = g[g.event == "enqueue"].t_s.to_numpy()
        deq = g[g.event == "dequeue"].t_s.to_numpy()
        sojourn_ms = (deq - enq[: len(deq)]) * 1e3
        d = sojourn_ms[deq >= warm]
        row = flows.loc[flow]
        if len(d) < 2:
            continue
        assert row.delay_mean_ms == pytest.approx(d.mean(), rel=1e-9, abs=1e-9)
        assert row.jitter_ms == pytest.approx(np.abs(np.diff(d)).mean(), rel=1e-9, abs=1e-9)
        exact_p99 = np.sort(d)[int(np.ceil(0.99 * len(d))) - 1]
        assert abs(row.delay_p99_ms - exact_p99) <= exact_p99 / 32 + 1e-3
        checked += 1
    assert checked >= 20
    sent = flows.sent.where(flows.sent > 0)
    assert np.allclose(flows.loss_rate, (flows.drops / sent).clip(upper=1.0), equal_nan=True)
    entry = red.summary["flows"][0]
    assert entry["delay_ms"]["mean"] == pytest.approx(flows.loc[0].delay_mean_ms)
    assert {"jitter_ms", "loss_rate"} <= set(entry)


def test_pcap_holds_every_departure(red: aqmlab.Results, tmp_path: Path):
    out = red.write(tmp_path / "red", plots=False)
    pcap = out / "bottleneck.pcap"
    data = pcap.read_bytes()
    departures = int((red.packet_trace.to_pandas().event == "dequeue").sum())
    count, offset = 0, 24
    while offset < len(data):
        incl = struct.unpack_from("<IIII", data, offset)[2]
        offset += 16 + incl
        count += 1
    assert offset == len(data) and count == departures
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark not installed (Debian package tshark): pcap parsed here only")
    proc = subprocess.run(
        [tshark, "-r", str(pcap), "-T", "fields", "-e", "frame.number"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert len(proc.stdout.split()) == departures


def test_a_traced_droptail_link_gives_the_same_results():
    base = {"duration": "6s", "warmup": "2s"}
    plain = aqmlab.run(aqmlab.example("droptail"), set=base)
    traced = aqmlab.run(aqmlab.example("droptail"), set={**base, "trace.links": ["bottleneck"]})
    pd.testing.assert_frame_equal(plain.flows.to_pandas(), traced.flows.to_pandas())
    pd.testing.assert_frame_equal(plain.queue.to_pandas(), traced.queue.to_pandas())
    summary = dict(traced.summary)
    summary.pop("packet_trace")
    assert summary == plain.summary
    assert traced.packet_trace.num_rows > 0 and plain.packet_trace.num_rows == 0
    # A DropTail bottleneck computes departures instead of dequeuing: its log still holds
    # every counted packet, in time order.
    ev = traced.packet_trace.to_pandas()
    assert ev.t_s.is_monotonic_increasing
    link = traced.links.to_pandas().set_index("role").loc["bottleneck"]
    assert _counts(ev) == {
        "arrivals": link.arrivals,
        "departures": link.dequeued,
        "drops": link.drops,
        "marks": 0,
    }


def test_the_trace_is_bounded():
    res = aqmlab.run(
        aqmlab.example("red"),
        set={"duration": "6s", "warmup": "2s", "trace.links": ["bottleneck"]}
        | {"trace.max_events": 500},
    )
    assert res.packet_trace.num_rows == 500
    assert res.summary["packet_trace"]["bottleneck"]["dropped_events"] > 0


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [("trace.links", ["nowhere"], "trace.links.0"), ("trace.max_events", 0, "trace.max_events")],
)
def test_bad_trace_keys_name_the_key(key: str, value: object, path: str):
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(aqmlab.example("red"), set={key: value})
    assert e.value.path == path
