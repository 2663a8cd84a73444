"""``aqmlab.replay``: one qdisc driven by script, decisions checked by hand."""

from __future__ import annotations

import pytest

import aqmlab


def test_droptail_overflows_at_its_buffer():
    events = [("enqueue", 0.0), ("enqueue", 0.001), ("enqueue", 0.002), ("dequeue", 0.003)]
    recs = aqmlab.replay("droptail", events, buffer=2)
    assert [r["action"] for r in recs] == ["enqueued", "enqueued", "dropped", "dequeued"]
    assert recs[2]["reason"] == "overflow"
    assert [r["packet"] for r in recs] == [0, 1, 2, 0]  # FIFO: packet 0 leaves first
    assert [r["qlen_pkts_before"] for r in recs] == [0, 1, 2, 2]
    assert [r["qlen_bytes_before"] for r in recs] == [0, 1000, 2000, 2000]
    assert recs[3]["t_s"] == pytest.approx(0.003)
    assert recs[3]["t_ns"] == 3_000_000


def test_dequeue_of_an_empty_queue_and_dict_events():
    recs = aqmlab.replay(
        {"kind": "droptail"},
        [{"op": "dequeue", "t_ns": 5}, {"op": "enqueue", "t": 1e-6, "size": 40, "flow": 3}],
    )
    assert [r["action"] for r in recs] == ["empty", "enqueued"]
    assert recs[1]["qlen_bytes_before"] == 0


def test_red_forces_a_drop_once_the_average_reaches_max_th():
    # With w_q = 1 the average is the instantaneous queue seen by each arrival: 0, 1, 2, 3.
    # At 3 = max_th the drop is forced (non-gentle RED); at 1 and 2 it is early-drop territory,
    # where p_b = max_p (avg - min_th) / (max_th - min_th) <= 0.05, and a uniform of 0.99 passes.
    red = {"kind": "red", "min_th": 1, "max_th": 3, "max_p": 0.1, "w_q": 1.0}
    events = [("enqueue", i * 1e-4) for i in range(4)]
    recs = aqmlab.replay(red, events, uniforms=[0.99] * 4)
    assert [r["action"] for r in recs] == ["enqueued", "enqueued", "enqueued", "dropped"]
    assert recs[3]["reason"] == "forced"
    assert [r["probes"]["avg"] for r in recs] == pytest.approx([0.0, 1.0, 2.0, 3.0])
    assert recs[-1]["draws"] <= 4


def test_red_reports_an_overrun_uniform_script():
    red = {"kind": "red", "min_th": 1, "max_th": 30, "max_p": 0.5, "w_q": 1.0}
    events = [("enqueue", i * 1e-4) for i in range(10)]
    with pytest.raises(aqmlab.ScenarioError):
        aqmlab.replay(red, events, uniforms=[])


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"qdisc": "magic"}, "qdisc.kind"),
        ({"qdisc": {"kind": "droptail", "limt": 3}}, "qdisc.limt"),
        ({"buffer": 0}, "buffer"),
        ({"buffer": "10 furlongs"}, "buffer"),
        ({"link_rate": "fast"}, "link_rate"),
        ({"link_rate": 0}, "link_rate"),
        ({"events": [("teleport", 0.0)]}, "events.0.op"),
        ({"events": [("enqueue", -1.0)]}, "events.0.1"),
    ],
)
def test_replay_errors_name_the_argument(kwargs, path):
    args = {"qdisc": "droptail", "events": [("enqueue", 0.0)], **kwargs}
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.replay(args.pop("qdisc"), args.pop("events"), **args)
    assert e.value.path == path


def test_codel_marks_made_at_dequeue_are_in_the_records():
    # One ECN-capable packet per ms, one dequeue per 2 ms: a standing queue above CoDel's 5 ms
    # target for more than its 100 ms interval, so CoDel marks on the way out.
    events: list[tuple[str, float] | tuple[str, float, int, int, bool]] = []
    for i in range(200):
        events.append(("enqueue", i * 1e-3, 1000, 0, True))
        if i % 2:
            events.append(("dequeue", i * 1e-3))
    recs = aqmlab.replay({"kind": "codel", "ecn": True}, events, buffer=1000)
    marked = [r for r in recs if r["marked"] is not None]
    assert marked, "no dequeue-time mark recorded"
    assert all(r["action"] == "dequeued" and r["marked"] == "sojourn" for r in marked)
    assert all(r["marked"] is None for r in recs if r["action"] == "enqueued")


def test_codel_ce_threshold_marks_are_in_the_records():
    # 20 ECN-capable packets at t = 0, dequeued at 1 ms and 3 ms: only the second waited longer
    # than the 2 ms CE threshold (both far below the 5 ms target, so no control-law mark).
    events: list[tuple[str, float] | tuple[str, float, int, int, bool]] = [
        ("enqueue", 0.0, 1000, 0, True) for _ in range(20)
    ]
    events += [("dequeue", 1e-3), ("dequeue", 3e-3)]
    cfg = {"kind": "codel", "ecn": True, "ce_threshold": "2ms"}
    recs = aqmlab.replay(cfg, events, buffer=1000)
    assert [r["marked"] for r in recs[20:]] == [None, "ce_threshold"]


def test_fq_codel_records_show_each_sub_queue():
    # ns-3's deficit test, first steps: quantum 90, 120-byte packets, flow ids as hashes.
    fq = {"kind": "fq_codel", "quantum": 90, "hash": "flow_id"}
    events = [("enqueue", 0.0, 120, 0), ("dequeue", 1e-6), ("enqueue", 2e-6, 120, 1)]
    recs = aqmlab.replay(fq, events)
    assert recs[0]["sub_queue"] == 0
    assert recs[0]["queues"] == [
        {"index": 0, "pkts": 1, "bytes": 120, "status": "new", "deficit": 90}
    ]
    assert recs[1]["queues"][0]["deficit"] == -30
    assert recs[2]["sub_queue"] == 1
    # By default a record shows what its event changed: only the new sub-queue 1 here.
    assert [(q["index"], q["status"]) for q in recs[2]["queues"]] == [(1, "new")]
    full = aqmlab.replay(fq, events, full_state=True)
    assert [q["status"] for q in full[2]["queues"]] == ["new", "new"]
    assert aqmlab.replay("droptail", [("enqueue", 0.0)])[0]["queues"] == []


def test_fq_codel_with_many_flows_keeps_records_linear_in_events():
    # 2,000 flows, 3,000 events: full state would be ~4 million sub-queue dicts.
    events = [("enqueue", i * 1e-4, 1000, i % 2000) for i in range(3000)]
    recs = aqmlab.replay("fq_codel", events, buffer=10_000)
    assert sum(len(r["queues"]) for r in recs) <= 2 * len(events)
    # The changes rebuild the full state (checked on the first 400 events).
    head = events[:400] + [("dequeue", 0.05 + i * 1e-4) for i in range(100)]
    full = aqmlab.replay("fq_codel", head, buffer=10_000, full_state=True)
    state: dict[int, dict] = {}
    for r, f in zip(aqmlab.replay("fq_codel", head, buffer=10_000), full, strict=True):
        state.update({q["index"]: q for q in r["queues"]})
        assert sorted(state.values(), key=lambda q: q["index"]) == sorted(
            f["queues"], key=lambda q: q["index"]
        )


def test_ect1_arrivals_reach_an_l4s_queue():
    # CoDel in L4S mode marks an ECT(1) packet whose sojourn exceeds ce_threshold; an ECT(0)
    # packet of the same sojourn is not marked (ce_threshold needs ecn for it).
    q = {"kind": "codel", "l4s": True, "ce_threshold": "1ms"}
    events = [
        ("enqueue", 0.0, 1000, 1, "ect1"),
        {"op": "enqueue", "t": 0.0, "flow": 2, "ecn": "ect0"},
        ("dequeue", 0.010),
        ("dequeue", 0.011),
    ]
    recs = aqmlab.replay(q, events)
    assert [r["packet"] for r in recs[2:]] == [0, 1]
    assert recs[2]["marked"] == "ce_threshold"
    assert recs[3]["marked"] is None
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.replay(q, [("enqueue", 0.0, 1000, 1, "ect2")])
    assert e.value.path == "events.0.4"


def test_set_events_write_the_variables_an_algorithm_offers():
    recs = aqmlab.replay(
        "pie",
        [
            ("set", 0.0, "drop_prob", 0.25),
            {"op": "set", "t": 0.0, "name": "accu_prob", "value": 0.5},
        ],
    )
    assert [r["action"] for r in recs] == ["set", "set"]
    assert recs[0]["probes"]["drop_prob"] == pytest.approx(0.25)
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.replay("pie", [("set", 0.0, "no_such_variable", 1.0)])
    assert e.value.path.startswith("events.0")
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.replay("pie", [("set", 0.0, "drop_prob")])
    assert e.value.path == "events.0"
