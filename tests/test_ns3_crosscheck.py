"""aqmlab beside ns-3.44 (``crosscheck --against ns3``): the translation into the ns-3
program's run file and the refusals (no ns-3 needed), the shared metric table, and (skipped when
the ``ns3`` wheel or a compiler is missing) an end-to-end run of the real program."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import aqmlab
from aqmlab import registry
from aqmlab.ns3 import build, flows_of, prepare_seed, run_program, run_seed, translate
from aqmlab.xcheck import Unsupported, table
from conftest import ROOT, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NS3 = pytest.mark.skipif(not build.available(), reason=f"ns-3 not available: {build.INSTALL_HINT}")
SCENARIOS = ROOT / "scenarios/crosscheck"


def _resolved(path: Path | str, *overrides: str) -> dict:
    return tomllib.loads(aqmlab.validate(path, set=list(overrides)))


def _lines(text: str, word: str) -> dict[str, str]:
    """``word NAME VALUE`` lines of a run file as {NAME: VALUE}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == word:
            out[parts[1]] = parts[2]
    return out


SHORT = ["duration=3s", "warmup=1s"]


def test_pie_run_file_writes_every_parameter_and_the_resolved_flows():
    doc = _resolved(SCENARIOS / "ns3_pie.toml", *SHORT)
    res = aqmlab.run(doc)
    flows = flows_of(doc, res.flows.to_pydict())
    # Access delays linear over 5-50 ms for 10 flows: the run's own values, exactly.
    assert [f.access_delay_ns for f in flows] == [5_000_000 + 5_000_000 * i for i in range(10)]
    starts = res.flows.to_pydict()["start_s"]
    assert [f.start_ns for f in flows] == [round(s * 1e9) for s in starts]
    text = translate.translate(doc, flows, seed=7)
    assert "qdisc ns3::PieQueueDisc\n" in text
    q = _lines(text, "qattr")
    assert q["MaxSize"] == "1000p"
    assert q["QueueDelayReference"] == "15000000ns"  # RFC 8033's 15 ms target
    assert q["Tupdate"] == "15000000ns"
    assert q["MaxBurstAllowance"] == "150000000ns"
    assert (q["A"], q["B"]) == ("0.125", "1.25")
    assert q["UseDequeueRateEstimator"] == "false"  # aqmlab's default estimator: timestamp
    d = _lines(text, "default")
    assert d["ns3::TcpL4Protocol::SocketType"] == "ns3::TcpLinuxReno"
    assert d["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpClassicRecovery"
    assert d["ns3::TcpSocketBase::Sack"] == "true"
    assert d["ns3::TcpSocket::SegmentSize"] == "958"  # 1000 bytes on the wire
    assert d["ns3::TcpSocket::InitialCwnd"] == "2"
    assert d["ns3::TcpSocketBase::MinRto"] == "200000000ns"
    assert "seed 7\n" in text
    assert "time 3000000000 1000000000 20000000\n" in text
    assert "bottleneck 10000000 20000000\n" in text
    assert [line.split()[1:] for line in text.splitlines() if line.startswith("flow ")][3] == [
        "100000000",
        "20000000",
        "1000",
        str(flows[3].start_ns),
    ]


def test_red_step_marker_and_dctcp():
    doc = _resolved(SCENARIOS / "ns3_dctcp.toml")
    flows = [translate.Flow(i, 0, 5_000_000, 0) for i in range(10)]
    text = translate.translate(doc, flows, seed=1)
    q = _lines(text, "qattr")
    assert (q["MinTh"], q["MaxTh"], q["QW"], q["LInterm"]) == ("20.0", "21.0", "1.0", "1.0")
    assert (q["Gentle"], q["UseHardDrop"], q["UseEcn"]) == ("false", "false", "true")
    assert (q["LinkBandwidth"], q["LinkDelay"]) == ("10000000bps", "20000000ns")
    assert q["MeanPktSize"] == "1000"
    d = _lines(text, "default")
    assert d["ns3::TcpL4Protocol::SocketType"] == "ns3::TcpDctcp"
    assert d["ns3::TcpSocketBase::UseEcn"] == "On"


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("ns3_*.toml")), ids=lambda p: p.stem)
def test_every_ns3_scenario_translates(path):
    # What `aqmlab crosscheck FILE --against ns3` checks before it runs anything, and the run
    # file it then writes: each shipped case is one the program can run, as its file says.
    doc = _resolved(path)
    translate.check(doc)
    n = sum(int(g.get("count", 1)) for g in doc["flows"])
    flows = [translate.Flow(i, 0, 5_000_000, 0) for i in range(n)]
    text = translate.translate(doc, flows, seed=1)
    assert text.count("\nflow ") == n
    kind = doc["bottleneck"].get("qdisc", {}).get("kind", "droptail")
    assert f"qdisc {translate.QDISCS[kind]}\n" in text
    d = _lines(text, "default")
    cc = doc["flows"][0]["tcp"].get("cc", "reno")
    assert d["ns3::TcpL4Protocol::SocketType"] == translate.CCS[cc]


@pytest.mark.parametrize(
    ("scenario", "override", "path", "allowed"),
    [
        # Algorithms ns-3.44 does not have.
        ("ns3_pie.toml", 'bottleneck.qdisc={ kind = "green_tcp" }', "bottleneck.qdisc.kind", "pie"),
        ("ns3_pie.toml", 'bottleneck.qdisc={ kind = "chablis" }', "bottleneck.qdisc.kind", "pie"),
        ("ns3_pie.toml", 'bottleneck.qdisc={ kind = "sfred" }', "bottleneck.qdisc.kind", "pie"),
        # A parameter ns-3's algorithm has no attribute for, away from aqmlab's default.
        (
            "ns3_fq_codel.toml",
            'bottleneck.qdisc={ kind = "fq_codel", hash = "flow_id" }',
            "bottleneck.qdisc.hash",
            "salted",
        ),
        (
            "ns3_fq_codel.toml",
            'bottleneck.qdisc={ kind = "fq_codel", quantum = 3000 }',
            "bottleneck.qdisc.quantum",
            "1514",
        ),
        (
            "ns3_pie.toml",
            'bottleneck.qdisc={ kind = "red", forced_resets_count = true }',
            "bottleneck.qdisc.forced_resets_count",
            "overflow",
        ),
        ("ns3_pie.toml", "bottleneck.buffer=150KB", "bottleneck.buffer", "packets"),
        ("ns3_pie.toml", "bottleneck.loss=0.01", "bottleneck.loss", "no link loss"),
        # Per-flow things the program cannot set.
        ("ns3_pie.toml", 'flows.0.tcp.rtt_label="min"', "flows.0.tcp.rtt_label", "'none'"),
        ("ns3_pie.toml", 'flows.0.tcp.overhead="1ms"', "flows.0.tcp.overhead", "'0ms'"),
        ("ns3_pie.toml", "flows.0.tcp.max_window=20", "flows.0.tcp.max_window", "0"),
        ("ns3_pie.toml", 'flows.0.tcp.variant="reno"', "flows.0.tcp.variant", "newreno or sack"),
        ("ns3_pie.toml", "flows.0.hosts=2", "flows.0.hosts", "one host per flow"),
        ("ns3_pie.toml", 'flows.0.kind="udp_cbr"', "flows.0.kind", "tcp"),
        ("ns3_pie.toml", 'flows.0.duration="5s"', "flows.0.duration", "end of the run"),
        ("ns3_pie.toml", "flows.0.packets=100", "flows.0.packets", "bulk"),
        ("ns3_pie.toml", "flows.0.tcp.mss=42", "flows.0.tcp.mss", "> 42"),
        ("ns3_pie.toml", "flows.0.count=16001", "flows", "at most 16000"),
        ("ns3_pie.toml", "flows.0.tcp.delayed_ack=true", "flows.0.tcp.delayed_ack", "per ACK"),
        ("ns3_fq_codel.toml", "flows.0.tcp.mss=9000", "flows.0.tcp.mss", "quantum"),
    ],
)
def test_what_ns3_lacks_is_named_by_key(scenario, override, path, allowed):
    doc = _resolved(SCENARIOS / scenario, override)
    with pytest.raises(Unsupported) as e:
        translate.check(doc)
    assert e.value.path == path
    assert allowed in str(e.value)


def test_packets_above_the_mtu_travel_whole_not_in_fragments():
    # ns-3 would send a 9000-byte segment as seven IPv4 fragments (its links' MTU is 1500):
    # seven packets in the queue for aqmlab's one. The run file raises the MTU instead.
    for mss, mtu in ((1000, None), (1502, None), (1503, "1501"), (9000, "8998")):
        doc = _resolved(SCENARIOS / "ns3_pie.toml", f"flows.0.tcp.mss={mss}")
        text = translate.translate(doc, [translate.Flow(0, 0, 1_000_000, 0)], seed=1)
        assert _lines(text, "default").get("ns3::PointToPointNetDevice::Mtu") == mtu, mss


def test_groups_must_agree_on_tcp_and_a_topology_is_refused():
    doc = _resolved(SCENARIOS / "ns3_pie.toml")
    doc["flows"].append(dict(doc["flows"][0], tcp=dict(doc["flows"][0]["tcp"], cc="cubic")))
    with pytest.raises(Unsupported) as e:
        translate.check(doc)
    assert e.value.path == "flows.1.tcp.cc"
    # aqmlab's own readings of the RFCs are aqmlab's side only: they may differ.
    doc["flows"][1]["tcp"] = dict(doc["flows"][0]["tcp"], model="ns2")
    translate.check(doc)
    with pytest.raises(Unsupported) as e:
        translate.check(_resolved(ROOT / "scenarios/examples/parking_lot.toml"))
    assert e.value.path == "topology"


def test_cli_refusal_is_one_line_exit_2_before_anything_runs(tmp_path, monkeypatch):
    # The refusal comes first, also where ns-3 is not installed.
    monkeypatch.setenv("AQMLAB_NS3", str(tmp_path / "no-ns3"))
    r = run_cli(
        "crosscheck",
        SCENARIOS / "ns3_pie.toml",
        "--against",
        "ns3",
        "--set",
        'bottleneck.qdisc={ kind = "sfred" }',
        "--out",
        tmp_path / "cc",
    )
    assert r.code == 2
    assert r.stderr.strip().count("\n") == 0
    assert "bottleneck.qdisc.kind: 'sfred' (ns-3.44 cross-check has: droptail, red" in r.stderr
    assert not (tmp_path / "cc").exists()
    r = run_cli("crosscheck", SCENARIOS / "ns3_pie.toml", "--against", "ns3", "--trace-flows", "0")
    assert r.code == 2
    assert "--trace-flows is for --against ns2 only" in r.stderr


def test_missing_wheel_or_compiler_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("AQMLAB_NS3", str(tmp_path / "no-ns3"))
    with pytest.raises(build.Ns3Missing, match="make ns3"):
        build.program()
    r = run_cli(
        "crosscheck", SCENARIOS / "ns3_pie.toml", "--against", "ns3", "--out", tmp_path / "x"
    )
    assert r.code == 2
    assert r.stderr.strip().count("\n") == 0
    assert "make ns3" in r.stderr and "pip install ns3==3.44.post0" in r.stderr
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(build.Ns3Missing, match="install g\\+\\+"):
        build.compiler()


def test_one_metric_table_labelled_by_the_core_registry():
    titles = {m.key: m.title for m in registry.metrics("run")}
    labels = {m.key: m.label for m in table.METRICS}
    assert labels["jain"] == titles["jain_index"]
    assert labels["queue_mean_pkts"] == titles["queue_pkts.mean"]
    assert labels["utilisation"] == titles["utilisation"]
    # Jain's index is the core's for both backends, also where every goodput is zero.
    assert table.flow_metrics({0: 0.0, 1: 0.0}, {0: 10.0, 1: 20.0})["jain"] == 1.0
    assert table.flow_metrics({0: 0.0, 1: 0.0}, {0: 1, 1: 2})["jain"] == aqmlab._core.jain_index(
        [0.0, 0.0]
    )
    # A metric the other side does not measure (ns-2: ECN marks) has no row.
    a = table.RunMetrics({"utilisation": 1.0, "marks": 3.0}, {}, {})
    b = table.RunMetrics({"utilisation": 0.9}, {}, {})
    assert [r["metric"] for r in table.table([a], [b], side="ns3")] == ["utilisation"]


@NS3
def test_end_to_end_seeds_are_deterministic_and_agree_roughly(tmp_path):
    sets = ["duration=8s", "warmup=3s", "flows.0.count=4"]
    a = run_seed(SCENARIOS / "ns3_pie.toml", 3, set=sets)
    b = run_seed(SCENARIOS / "ns3_pie.toml", 3, set=sets)
    c = run_seed(SCENARIOS / "ns3_pie.toml", 4, set=sets)
    assert a.other.values == b.other.values  # ns-3 with the same seed: the same run
    assert a.other.values != c.other.values
    assert a.other_cpu_s > 0 and a.aqmlab_cpu_s > 0
    # Four PIE flows, 5 s measured: both keep the link busy and PIE's queue near its 15 ms
    # target (19 packets at 10 Mbps), ns-3's as aqmlab's.
    for side in (a.aqmlab, a.other):
        assert side.values["utilisation"] > 0.8, side.values
        assert 5 < side.values["queue_mean_pkts"] < 40, side.values
    assert abs(a.aqmlab.values["utilisation"] - a.other.values["utilisation"]) < 0.1
    assert "qdisc ns3::PieQueueDisc" in a.script
    # The CLI writes the same files as with ns-2, ns-3's run files in place of the Tcl scripts.
    out = tmp_path / "cc"
    r = run_cli(
        "crosscheck",
        SCENARIOS / "ns3_pie.toml",
        "--against",
        "ns3",
        "--seeds",
        "1",
        "--jobs",
        "1",
        "--no-plots",
        *[x for s in sets for x in ("--set", s)],
        "--out",
        out,
    )
    assert r.code == 0, r.stderr
    assert "aqmlab vs ns-3.44" in r.stdout
    for name in ("crosscheck.json", "crosscheck.md", "ns3_seed1.run"):
        assert (out / name).is_file(), name
    md = (out / "crosscheck.md").read_text(encoding="utf-8")
    assert "| metric | aqmlab | ns-3 | aqmlab / ns-3 | verdict |" in md


@NS3
def test_fast_retransmit_restarts_the_timer_so_droptail_losses_need_no_timeout():
    # Ten equal-RTT NewReno flows filling a 100-packet DropTail queue: the duplicate ACKs of a
    # loss arrive most of an RTT after the last new ACK. Unless the fast retransmission restarts
    # the retransmission timer (ns-2, Linux and aqmlab do; ns-3.44's TcpSocketBase does not),
    # the timer expires before the retransmission is acknowledged and go-back-N resends what
    # the receiver holds. Seed 1, 15 s measured: without the restart ns-3 timed out 113 times,
    # resent 6,138 packets for 1,601 drops and lost 8.5 % (aqmlab 0.66 %); with it 15 timeouts
    # (the start-up's), 478 for 275 and 1.4 %.
    sets = ["duration=20s", "warmup=5s"]
    run = run_seed(ROOT / "bench/scenarios/dumbbell_10mbps_10flows.toml", 1, set=sets)
    ns3, aq = run.other.values, run.aqmlab.values
    assert ns3["timeouts"] <= 40, ns3
    assert ns3["retransmits"] <= 2.5 * ns3["drops_bottleneck"], ns3
    assert ns3["loss_rate"] < 3 * aq["loss_rate"], (ns3, aq)


REFERENCE = ROOT / "bench/reference"


def test_every_reference_scenario_is_recorded_with_its_own_text():
    # tests/ns3_reference.rs runs the text a recording holds; it must be the scenario file's,
    # so that the file says what was recorded (`make ns3-reference` re-records from the files).
    scenarios = sorted((REFERENCE / "scenarios").glob("*.toml"))
    assert scenarios
    for path in scenarios:
        rec = json.loads((REFERENCE / f"ns3_{path.stem}.json").read_text(encoding="utf-8"))
        assert rec["scenario"] == path.read_text(encoding="utf-8"), path.name
        assert rec["seeds"] == [r["seed"] for r in rec["runs"]]
        for key, mean in rec["metrics"].items():
            lo, hi = rec["spread"][key]
            assert lo <= mean <= hi or math.isnan(mean), (path.name, key)
    recorded = {p.name for p in REFERENCE.glob("ns3_*.json")}
    assert recorded == {f"ns3_{p.stem}.json" for p in scenarios}, "a recording without scenario"


def _reference_cli(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "aqmlab.ns3.reference", *map(str, args)]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **env}
    )


def test_reference_run_file_is_the_crosschecks_and_needs_no_ns3(tmp_path):
    scen = REFERENCE / "scenarios/dumbbell_10mbps_10flows_linuxreno_sack.toml"
    no_ns3 = {"AQMLAB_NS3": str(tmp_path / "no-ns3")}
    trace = tmp_path / "t.txt"
    r = _reference_cli("run-file", scen, "--seed", "2", "--trace", trace, env=no_ns3)
    assert r.returncode == 0, r.stderr
    assert r.stdout == prepare_seed(scen, 2).run_file + f"trace {trace}\n"
    assert "seed 2\n" in r.stdout and r.stdout.count("\nflow ") == 10
    # What the program cannot run is refused in one line, exit 2, as by the cross-check.
    bad = tmp_path / "sfred.toml"
    bad.write_text(
        scen.read_text(encoding="utf-8").replace(
            "buffer = 100", 'buffer = 100\nqdisc = { kind = "sfred" }'
        ),
        encoding="utf-8",
    )
    r = _reference_cli("record", bad, "-o", tmp_path / "out.json", env=no_ns3)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "bottleneck.qdisc.kind: 'sfred'" in r.stderr
    assert not (tmp_path / "out.json").exists()


@NS3
def test_recovery_ends_at_ssthresh_without_a_window_of_credit(tmp_path):
    # ns-3.44 hands the congestion control every segment the ACK that ends fast recovery
    # covers (most SACKed long before) and TcpLinuxReno keeps its increase counter across the
    # loss: cwnd jumped from ssthresh 11 to 14 at each exit, and ns-3 lost 25 % more than aqmlab
    # on this dumbbell. The program's senders end recovery at ssthresh (RFC 5681, Linux).
    scen = REFERENCE / "scenarios/dumbbell_10mbps_10flows_linuxreno_sack.toml"
    trace = tmp_path / "trace.txt"
    short = scen.read_text(encoding="utf-8").replace('duration = "100s"', 'duration = "15s"')
    short = short.replace('warmup = "20s"', 'warmup = "5s"')
    assert "15s" in short and "5s" in short
    run_program(prepare_seed(short, 1).run_file + f"trace {trace}\n")
    exits = 0
    state: dict[int, int] = {}
    ssthresh: dict[int, float] = {}
    exit_at: dict[int, str] = {}
    for line in trace.read_text(encoding="utf-8").splitlines():
        flow, t, var, value = line.split()
        k = int(flow)
        if var == "ssthresh":
            ssthresh[k] = float(value)
        elif var == "state":
            if state.get(k) == 3 and int(value) == 0:  # CA_RECOVERY -> CA_OPEN
                exits += 1
                exit_at[k] = t
            state[k] = int(value)
        elif var == "cwnd" and exit_at.get(k) == t:
            assert float(value) <= ssthresh[k] + 1e-9, (line, ssthresh[k])
    assert exits >= 50, exits


def _recovery_entries(trace: Path) -> list[tuple[int, int, int]]:
    """Every entry into fast recovery (CA_RECOVERY) in a trace of the program: (the duplicate
    ACKs in a row before it, its cumulative ACK, ``recover`` of the flow's previous recovery or
    timeout), in bytes as ns-3 numbers them (``recover`` one past the highest byte sent)."""
    sent_to: dict[int, int] = {}
    ack: dict[int, int] = {}
    dups: dict[int, int] = {}
    recover: dict[int, int] = {}
    out = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        flow, _, var, value = line.split()
        k = int(flow)
        if var == "tx":
            sent_to[k] = max(sent_to.get(k, 0), int(value) + SEGMENT)
        elif var == "ack":
            a = int(value)
            dups[k] = dups.get(k, 0) + 1 if ack.get(k) == a else 0
            ack[k] = a
        elif var == "state" and value in ("3", "4"):  # CA_RECOVERY, CA_LOSS
            if value == "3":
                out.append((dups.get(k, 0), ack[k], recover.get(k, -1)))
            recover[k] = sent_to[k]
    return out


SEGMENT = 958  # the 1000-byte packets' payload


@NS3
def test_newreno_starts_recovery_on_three_duplicate_acks_past_recover(tmp_path):
    # Without SACK, ns-3.44 entered fast recovery on duplicate ACKs of exactly `recover` (the
    # go-back-N resends after a timeout of segments the receiver held: RFC 6582 §4), and on a
    # single duplicate ACK when the segment after a full ACK kept a guess made from surplus
    # duplicate ACKs (its NewReno "SACK" emulation, never cleared at the end of recovery). On
    # the 30-flow RED dumbbell, seed 1, 150 s: 571 (184 of them after a timeout) and 473 of its
    # 3,852 entries; ns-3 lost 8.4 % of what reached the queue (aqmlab 4.6 %). The program's
    # senders apply RFC 6582 §3.2 step 1 and forget the guesses when recovery ends (Linux
    # `tcp_reset_reno_sack`): none of either since.
    scen = SCENARIOS / "ns3_newreno_red_30flows.toml"
    trace = tmp_path / "trace.txt"
    text = prepare_seed(scen, 1, set=["duration=25s", "warmup=5s"]).run_file
    run_program(text + f"trace {trace}\n")
    entries = _recovery_entries(trace)
    assert len(entries) >= 100, len(entries)
    for dups, ack, recover in entries:
        assert dups >= 3, (dups, ack, recover)
        assert ack > recover, (dups, ack, recover)
