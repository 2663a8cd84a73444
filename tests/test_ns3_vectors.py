"""ns-3's RedQueueDisc decisions replayed through the Python API (``aqmlab.replay``).

The Rust test ``crates/aqmlab-core/tests/red_vectors.rs`` checks every public case bit for bit;
this one drives the same vectors through the binding, so the user-facing ``aqmlab.replay`` is
held to ns-3 too. The data are the project's own copies of the vectors recorded from ns-3.44.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import aqmlab

DATA = Path(__file__).resolve().parents[1] / "crates/aqmlab-core/tests/data"

ACTION = {
    "enq": ("enqueued", None),
    "U": ("dropped", "early"),
    "F": ("dropped", "forced"),
    "M": ("marked", "early"),
    "L": ("dropped", "overflow"),
}


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    return json.loads((DATA / "ns3_red_public.json").read_text())


@pytest.fixture(scope="module")
def uniforms() -> list[float]:
    return json.loads((DATA / "ns3_uniform_stream0.json").read_text())["values"]


# (case, qdisc table, link rate, buffer): the case's ns-3 attributes in our parameter names.
CASES = [
    (
        "red_dyn",
        {
            "kind": "red",
            "min_th": 5,
            "max_th": 15,
            "max_p": 0.1,
            "w_q": 0.002,
            "wait": True,
            "gentle": True,
            "mean_pkt_size": 1000,
        },
        "1.5Mbps",
        50,
    ),
    (
        "t3",
        {
            "kind": "red",
            "min_th": 70,
            "max_th": 150,
            "max_p": 0.02,
            "w_q": 0.02,
            "wait": True,
            "gentle": True,
            "mean_pkt_size": 500,
        },
        "1.5Mbps",
        300,
    ),
]


@pytest.mark.parametrize(("name", "qdisc", "rate", "buffer"), CASES, ids=[c[0] for c in CASES])
def test_replay_matches_ns3(
    vectors: dict[str, Any],
    uniforms: list[float],
    name: str,
    qdisc: dict[str, Any],
    rate: str,
    buffer: int,
) -> None:
    case = vectors["cases"][name]
    cols = case["columns"]
    a = {c: i for i, c in enumerate(cols["A"])}
    events = []
    for row in case["events"]:
        if row[0] == "A":
            # The static cases use ns-3's 0-byte test packets; in packet mode RED ignores sizes.
            size = row[a["size_bytes"]] or qdisc["mean_pkt_size"]
            events.append({"op": "enqueue", "t_ns": row[a["t_ns"]], "size": size})
        else:
            events.append({"op": "dequeue", "t_ns": row[cols["D"].index("t_ns")]})
    used = case["uniforms_consumed"]
    recs = aqmlab.replay(
        qdisc,
        events,
        uniforms=uniforms[:used],
        link_rate=rate,
        buffer=buffer,
        mean_pkt_size=qdisc["mean_pkt_size"],
    )
    assert len(recs) == len(case["events"])
    mismatches = []
    for row, rec in zip(case["events"], recs, strict=True):
        if row[0] == "A":
            want = ACTION[row[a["action"]]]
            got = (rec["action"], rec["reason"])
            if got != want or rec["probes"]["avg"] != row[a["qavg"]]:
                mismatches.append((row[1], want, got, row[a["qavg"]], rec["probes"]["avg"]))
        else:
            want_pkt = row[cols["D"].index("pkt")]
            got_pkt = rec["packet"] if rec["action"] == "dequeued" else -1
            if want_pkt != got_pkt:
                mismatches.append((row[1], want_pkt, got_pkt))
    assert not mismatches, mismatches[:5]
    assert recs[-1]["draws"] == used
