"""aqmlab beside ns-2.35: the scenario translation, the errors, the recorded references and
(marked ``ns2``, skipped when `ns` is absent) live cross-checks against the real ns-2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import aqmlab
from aqmlab.ns2 import reference, runner, tcl
from aqmlab.xcheck import table as compare
from conftest import ROOT, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REFERENCES = sorted((ROOT / "tests/data/ns2").glob("*.json"))
NS = pytest.mark.skipif(
    not runner.available(), reason="ns-2 not installed (apt-get install -y ns2)"
)


def _resolved(path: Path | str, *overrides: str) -> dict:
    return tomllib.loads(aqmlab.validate(path, set=list(overrides)))


def _flows(doc: dict) -> list[tcl.FlowRun]:
    res = aqmlab.run(doc)
    f = res.flows.to_pydict()
    return [
        tcl.FlowRun(i, 0, round(r * 1e6), s)
        for i, r, s in zip(f["id"], f["rtt_ms"], f["start_s"], strict=True)
    ]


def test_script_sets_ns2_to_aqmlab_semantics():
    doc = _resolved(ROOT / "scenarios/demo/red.toml", "duration=2s", "warmup=1s")
    text = tcl.translate(doc, _flows(doc), seed=7).text
    for line in (
        "$defaultRNG seed 7",
        "Agent/TCP set useHeaders_ false",
        "Agent/TCP set timestamps_ true",
        "Agent/TCP set ts_resetRTO_ true",
        "Agent/TCP set singledup_ 0",
        "Agent/TCP set syn_ false",
        "Queue/RED set bytes_ false",
        "Queue/RED set queue_in_bytes_ false",
        "Queue/RED set mean_pktsize_ 1000",
        "Queue/RED set gentle_ false",
        "Queue/RED set thresh_ 5.0",
        "Queue/RED set maxthresh_ 15.0",
        "Queue/RED set linterm_ 10.0",
        "Queue/RED set q_weight_ 0.002",
        # RED holds `buffer` packets; DropTail (access links) drops when len + 1 >= limit.
        "$ns queue-limit $r(R1) $r(R2) 100",
        "$ns queue-limit $src(0) $r(R1) 1001",
    ):
        assert line in text, line
    # The 30 flows' access delays are the ones aqmlab resolved: 5 ms ... 150 ms.
    assert "$ns simplex-link $src(0) $r(R1) 100000000 0.005000000 DropTail" in text
    assert "$ns simplex-link $src(29) $r(R1) 100000000 0.150000000 DropTail" in text


@pytest.mark.parametrize(
    ("variant", "agent"),
    [("tahoe", "Agent/TCP"), ("reno", "Agent/TCP/Reno"), ("newreno", "Agent/TCP/Newreno")],
)
def test_tcp_variants_map_to_ns2_agents(variant, agent):
    doc = _resolved(
        ROOT / "scenarios/demo/red.toml",
        "duration=2s",
        "warmup=1s",
        f"flows.0.tcp.variant={variant}",
    )
    text = tcl.translate(doc, _flows(doc), seed=7).text
    assert f"[new {agent}]" in text


def test_droptail_and_rem_limits_count_one_more_packet():
    doc = _resolved(ROOT / "scenarios/crosscheck/demo_rem.toml", "duration=2s", "warmup=1s")
    text = tcl.translate(doc, _flows(doc), seed=1).text
    assert "$ns queue-limit $r(R1) $r(R2) 101" in text
    assert "markpkts_ false" in text  # non-ECN flows: REM drops, as aqmlab does


def test_rem_marks_in_ns2_only_when_every_flow_is_ecn_capable():
    # rem.cc's markpkts_ sets CE on ECT packets only and lets a non-ECT packet it picks pass;
    # aqmlab's ecn marks ECT packets and drops the others: the two agree when all are ECT.
    path = ROOT / "scenarios/crosscheck/demo_rem.toml"
    doc = _resolved(path, "duration=2s", "warmup=1s", "flows.0.tcp.ecn=true")
    assert "markpkts_ true" in tcl.translate(doc, _flows(doc), seed=1).text
    # ECT flows, REM without ECN: both drop.
    off = _resolved(
        path, "duration=2s", "warmup=1s", "flows.0.tcp.ecn=true", "bottleneck.qdisc.ecn=false"
    )
    assert "markpkts_ false" in tcl.translate(off, _flows(off), seed=1).text


def test_rem_non_ect_pass_is_ns2_markpkts():
    # rem.cc with markpkts_ sends a picked Not-ECT packet on unmarked: aqmlab's non_ect = "pass",
    # whatever the flows' ECN.
    doc = _resolved(
        ROOT / "scenarios/crosscheck/demo_rem.toml",
        "duration=2s",
        "warmup=1s",
        "bottleneck.qdisc.non_ect=pass",
    )
    assert doc["bottleneck"]["qdisc"]["non_ect"] == "pass"
    text = tcl.translate(doc, _flows(doc), seed=1).text
    assert "markpkts_ true" in text


def test_pi_and_avq_map_every_parameter_to_ns2():
    doc = _resolved(ROOT / "scenarios/crosscheck/demo_pi.toml", "duration=2s", "warmup=1s")
    text = tcl.translate(doc, _flows(doc), seed=1).text
    for line in (
        "Queue/PI set a_ 1.822e-05",
        "Queue/PI set b_ 1.816e-05",
        "Queue/PI set w_ 170.0",
        "Queue/PI set qref_ 50.0",
        "Queue/PI set mean_pktsize_ 1000",
        "Queue/PI set queue_in_bytes_ false",
        "Queue/PI set setbit_ false",
        "$ns queue-limit $r(R1) $r(R2) 200",  # PI drops when qlen >= limit: no + 1
    ):
        assert line in text, line
    doc = _resolved(ROOT / "scenarios/crosscheck/demo_avq.toml", "duration=2s", "warmup=1s")
    text = tcl.translate(doc, _flows(doc), seed=1).text
    for line in (
        "Queue/Vq set gamma_ 0.98",
        "Queue/Vq set ecnlim_ 0.8",
        "Queue/Vq set buflim_ 1.0",
        "Queue/Vq set queue_in_bytes_ true",
        "Queue/Vq set mean_pktsize_ 1000",
        "Queue/Vq set markpkts_ false",
        "$ns queue-limit $r(R1) $r(R2) 100",  # Vq drops when the queue exceeds the limit
    ):
        assert line in text, line


def test_topology_costs_stay_below_ns2_infinity():
    # ns-2's route logic takes a path cost >= 0x3fff as unreachable: a 3-hop route of 10 ms
    # links costed in microseconds (30000) left the long flows without a route.
    doc = _resolved(ROOT / "scenarios/examples/parking_lot.toml", "duration=2s", "warmup=1s")
    names = [g["group"] for g in doc["flows"]]
    f = aqmlab.run(doc).flows.to_pydict()
    flows = [
        tcl.FlowRun(i, names.index(g), round(r * 1e6), s)
        for i, g, r, s in zip(f["id"], f["group"], f["rtt_ms"], f["start_s"], strict=True)
    ]
    text = tcl.translate(doc, flows, seed=1, measured_link="R0->R1").text
    costs = [int(line.split()[-1]) for line in text.splitlines() if line.startswith("$ns cost")]
    assert costs and all(c == 100 for c in costs)  # 10 ms in 100 us units
    assert 3 * max(costs) < tcl.NS2_INFINITY


def test_the_monitor_goes_on_the_link_the_core_measured():
    doc = _resolved(ROOT / "scenarios/examples/parking_lot.toml", "duration=2s", "warmup=1s")
    names = [g["group"] for g in doc["flows"]]
    res = aqmlab.run(doc)
    f = res.flows.to_pydict()
    flows = [
        tcl.FlowRun(i, names.index(g), round(r * 1e6), s)
        for i, g, r, s in zip(f["id"], f["group"], f["rtt_ms"], f["start_s"], strict=True)
    ]
    measured = res.summary["measured_link"]
    assert measured == "R0->R1"  # the link with `measure = true`, as the core names it
    text = tcl.translate(doc, flows, seed=1, measured_link=measured).text
    assert "set qmon [$ns monitor-queue $r(R0) $r(R1) 0]" in text
    text = tcl.translate(doc, flows, seed=1, measured_link="R1->R2").text
    assert "set qmon [$ns monitor-queue $r(R1) $r(R2) 0]" in text
    with pytest.raises(ValueError, match="none of the topology's links"):
        tcl.translate(doc, flows, seed=1, measured_link="R9->R0")


def test_drr_sources_hash_to_distinct_buckets():
    doc = _resolved(ROOT / "scenarios/crosscheck/demo_drr.toml", "duration=2s", "warmup=1s")
    script = tcl.translate(doc, _flows(doc), seed=1).text
    ids = []
    node = 0
    for line in script.splitlines():
        if line.endswith("[$ns node]"):
            if line.startswith("set src("):
                ids.append(node)
            node += 1
    assert len(ids) == 30
    assert len({tcl._drr_bucket(i) for i in ids}) == 30


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ('bottleneck.qdisc={ kind = "codel" }', "bottleneck.qdisc.kind"),
        ("flows.0.tcp.rtt_label=min", "flows.0.tcp.rtt_label"),
        ('bottleneck.qdisc={ kind = "drr", buckets = 4 }', "bottleneck.qdisc.buckets"),
        ('bottleneck.qdisc={ kind = "blue" }', "bottleneck.qdisc.kind"),  # not in ns-2.35
        ('bottleneck.qdisc={ kind = "avq", alpha = 0.3 }', "bottleneck.qdisc.alpha"),
        (
            'bottleneck.qdisc={ kind = "pi", queue_in_bytes = true, mean_pktsize = 500 }',
            "bottleneck.qdisc.mean_pktsize",
        ),
        # ns-2.35's one-way agents are Reno arithmetic with ECT(0) and ns-2's ECN backoff.
        ("flows.0.tcp.cc=cubic", "flows.0.tcp.cc"),
        ('flows.0.tcp={ cc = "dctcp", ecn = true }', "flows.0.tcp.cc"),
        ('flows.0.tcp={ ecn = true, ecn_codepoint = "ect1" }', "flows.0.tcp.ecn_codepoint"),
        ("flows.0.tcp={ ecn = true, ecn_backoff = false }", "flows.0.tcp.ecn_backoff"),
    ],
)
def test_what_ns2_lacks_is_named_by_key(override, path):
    doc = _resolved(ROOT / "scenarios/demo/droptail.toml", override)
    with pytest.raises(tcl.Unsupported) as e:
        aqmlab.ns2.check_translatable(doc)
    assert e.value.path == path


def test_cli_unsupported_is_one_line_exit_2(tmp_path):
    r = run_cli(
        "crosscheck",
        ROOT / "scenarios/demo/droptail.toml",
        "--set",
        'bottleneck.qdisc={ kind = "codel" }',
        "--out",
        tmp_path / "cc",
    )
    if not runner.available():
        pytest.skip("ns-2 not installed: the missing-ns error comes first")
    assert r.code == 2
    assert r.stderr.strip().count("\n") == 0
    assert 'bottleneck.qdisc.kind: "codel"' in r.stderr.replace("'", '"')
    assert "droptail, red, ared, rem, drr, pi, avq" in r.stderr


def test_missing_ns_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("AQMLAB_NS", str(tmp_path / "no-such-ns"))
    with pytest.raises(runner.NsMissing, match="ns2"):
        aqmlab.crosscheck(ROOT / "scenarios/demo/droptail.toml", seeds=1)
    r = run_cli("crosscheck", ROOT / "scenarios/demo/droptail.toml", "--out", tmp_path / "x")
    assert r.code == 2
    assert "apt-get install -y ns2" in r.stderr


def test_verdicts():
    s = compare.spread
    assert compare.verdict(s([1.0, 1.2]), s([1.1, 1.3])) == "agree"
    assert compare.verdict(s([1.0, 1.01]), s([1.08, 1.09])) == "within 10%"
    assert compare.verdict(s([1.0, 1.01]), s([1.3, 1.31])) == "differs"
    assert compare.verdict(s([-0.90]), s([-0.86]), 0.05) == "within 10%"


def test_there_are_ns2_references():
    names = {p.stem for p in REFERENCES}
    assert {
        "demo_droptail_reno",
        "demo_red_reno",
        "demo_red_tahoe",
        "dumbbell_155mbps_100flows",
    } <= names


@pytest.mark.parametrize("path", REFERENCES, ids=lambda p: p.stem)
def test_aqmlab_agrees_with_recorded_ns2(path):
    """Every metric within both simulators' seed spread or within 10 % of ns-2's."""
    rows = reference.against(path, root=ROOT)
    bad = [
        f"{r['metric']}: aqmlab {compare.cell(r['aqmlab'])} vs ns-2 {compare.cell(r['ns2'])}"
        for r in rows
        if r["verdict"] == "differs"
    ]
    assert not bad, "; ".join(bad)
    ref = reference.load(path)
    if any(o.startswith("flows.0.tcp.overhead=") for o in ref["set"]):
        # Ties broken at random on both sides: fairness within 0.05 of ns-2's.
        jain = next(r for r in rows if r["metric"] == "jain")
        assert abs(jain["aqmlab"]["mean"] - jain["ns2"]["mean"]) <= 0.05, compare.cell(jain["ns2"])


@pytest.mark.ns2
@NS
def test_live_crosscheck_red_demo(tmp_path):
    cc = aqmlab.crosscheck(
        ROOT / "scenarios/demo/red.toml",
        seeds=2,
        set={"duration": "40s", "warmup": "10s"},
        out=tmp_path / "cc",
        plots=False,
    )
    verdicts = {r["metric"]: r["verdict"] for r in cc.rows}
    for m in ("utilisation", "loss_rate", "queue_mean_pkts", "jain", "retransmits"):
        assert verdicts[m] in ("agree", "within 10%"), (m, cc.row(m))
    written = json.loads((tmp_path / "cc/crosscheck.json").read_text())
    assert [r["seed"] for r in written["runs"]] == [1, 2]
    assert (tmp_path / "cc/crosscheck.md").read_text().count("|") > 20
    assert (tmp_path / "cc/ns2_seed1.tcl").exists()


@pytest.mark.ns2
@NS
def test_live_ns2_seed_changes_results():
    doc = _resolved(ROOT / "scenarios/demo/red.toml", "duration=10s", "warmup=2s")
    flows = _flows(doc)
    a = runner.run(tcl.translate(doc, flows, seed=1).text)
    b = runner.run(tcl.translate(doc, flows, seed=2).text)
    assert a.metrics["pdrops_"] != b.metrics["pdrops_"]  # RED's draws come from ns-2's RNG


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        # ns-2's red.cc restarts its early-drop count on forced and overflow drops unless
        # ns1_compat_: the script always says which, so both simulators run the same RED.
        ("forced_resets_count=false", "ns1_compat_ true"),
        ("forced_resets_count=true", "ns1_compat_ false"),
        # ns-2's red.cc shares ns-3's QW codes: 0 = 1 - exp(-1/C), -2 = 1 - exp(-10/C).
        ('w_q="auto"', "q_weight_ 0"),
        ('w_q="auto_fast"', "q_weight_ -2"),
    ],
)
def test_red_settings_map_to_ns2_red(setting, expected):
    doc = _resolved(
        ROOT / "scenarios/demo/red.toml",
        "duration=2s",
        "warmup=1s",
        f"bottleneck.qdisc.{setting}",
    )
    assert f"Queue/RED set {expected}\n" in tcl.translate(doc, _flows(doc), seed=1).text


def test_red_weight_from_the_link_delay_is_refused_by_name():
    # -1 takes its delay from ns-2's link, not from the scenario's key: refused by name.
    doc = _resolved(ROOT / "scenarios/demo/red.toml", 'bottleneck.qdisc.w_q={ auto_rtt = "20ms" }')
    with pytest.raises(tcl.Unsupported) as e:
        aqmlab.ns2.check_translatable(doc)
    assert e.value.path == "bottleneck.qdisc.w_q"
