//! The project's port of ns-3's RED test suite (`src/traffic-control/test/
//! red-queue-disc-test-suite.cc`), written against aqmlab's public interface: every ns-3 test
//! case is a `replay` script (ns-3 enqueues 300 packets at once, no dequeues), run in packet
//! mode and in byte mode (500-byte packets, thresholds and buffer in bytes) as ns-3's `DoRun`
//! does, with the uniforms ns-3's RED drew (`tests/data/ns3_uniform_stream0.json`) injected.
//!
//! ns-3 attribute → aqmlab: `MinTh`/`MaxTh` → `min_th`/`max_th`, `QW` → `w_q`, `LInterm` →
//! `max_p = 1/LInterm`, `Gentle`, `Wait`, `UseEcn` → `gentle`, `wait`, `ecn`; `FengAdaptive`
//! → kind `self_config_red`, `NLRED` → kind `nlred`. ns-3 defaults: `MeanPktSize` 500,
//! `LInterm` 50, `QW` 0.002, `Wait` and `Gentle` true, link 1.5 Mbps. Drop kinds:
//! UNFORCED_DROP → `early`, FORCED_DROP → `forced`, INTERNAL_QUEUE_DROP → `overflow`,
//! UNFORCED_MARK → a `marked` action.

use aqmlab_core::aqm::{AqmConfig, Reason};
use aqmlab_core::net::packet::Ecn;
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::replay::{replay, Action, ReplayEvent, ReplayRecord};
use aqmlab_core::time::SimTime;
use serde_json::Value;

fn uniforms() -> Vec<f64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ns3_uniform_stream0.json"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["bits_hex"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| f64::from_bits(u64::from_str_radix(h.as_str().unwrap(), 16).unwrap()))
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Packets,
    Bytes,
}

/// One ns-3 test case: `kind` and attributes, thresholds and buffer in packets (scaled to bytes
/// in byte mode), `n` enqueues of ECN-capable or not packets at time 0.
fn case(
    mode: Mode,
    kind: &str,
    extra: &str,
    th: (f64, f64),
    q: u32,
    ecn: bool,
) -> Vec<ReplayRecord> {
    let unit = if mode == Mode::Bytes { 500.0 } else { 1.0 };
    let text = format!(
        "kind = '{kind}'\nmin_th = {}\nmax_th = {}\nmean_pkt_size = 500\nmax_p = 0.02\nw_q = 0.002\ngentle = true\nwait = true\nhard_drop = true\nbytes = {}",
        th.0 * unit,
        th.1 * unit,
        mode == Mode::Bytes
    );
    // ns-3's defaults first, the test's attributes over them.
    let mut table: toml::Table = toml::from_str(&text).unwrap();
    table.extend(toml::from_str::<toml::Table>(extra).unwrap());
    let cfg = AqmConfig::from_table(table).unwrap_or_else(|e| panic!("{text}\n{extra}: {e}"));
    let limit = match mode {
        Mode::Packets => BufferLimit::Packets(q),
        Mode::Bytes => BufferLimit::Bytes(q as u64 * 500),
    };
    let events: Vec<ReplayEvent> = (0..300)
        .map(|_| ReplayEvent::Enqueue {
            t: SimTime(0),
            size_bytes: 500,
            flow: 0,
            ecn: Ecn::ect0_if(ecn),
        })
        .collect();
    replay(&cfg, limit, &events, Some(uniforms()), 1, 1_500_000, 500).unwrap()
}

/// (unforced drops, forced drops, queue-limit drops, unforced marks).
fn counts(r: &[ReplayRecord]) -> (usize, usize, usize, usize) {
    let mut c = (0, 0, 0, 0);
    for x in r {
        match x.action {
            Action::Dropped(Reason::Early) => c.0 += 1,
            Action::Dropped(Reason::Forced) => c.1 += 1,
            Action::Dropped(Reason::Overflow) => c.2 += 1,
            Action::Marked(Reason::Early) => c.3 += 1,
            _ => {}
        }
    }
    c
}

fn all_drops(c: (usize, usize, usize, usize)) -> usize {
    c.0 + c.1 + c.2
}

fn suite(mode: Mode) -> usize {
    let mut asserted = 0;
    let mut check = |ok: bool, what: &str| {
        assert!(
            ok,
            "{}: {what}",
            if mode == Mode::Packets {
                "packets"
            } else {
                "bytes"
            }
        );
        asserted += 1;
    };
    let unit: u64 = if mode == Mode::Bytes { 500 } else { 1 };

    // Test 1: min_th 2, max_th 5, 8 packets: FIFO, sizes, empty.
    let text = format!(
        "kind = 'red'\nmin_th = {}\nmax_th = {}\nmean_pkt_size = 500\nmax_p = 0.02\nw_q = 0.002\ngentle = true\nwait = true\nbytes = {}",
        2 * unit,
        5 * unit,
        mode == Mode::Bytes
    );
    let cfg = AqmConfig::from_table(toml::from_str(&text).unwrap()).unwrap();
    let limit = match mode {
        Mode::Packets => BufferLimit::Packets(8),
        Mode::Bytes => BufferLimit::Bytes(8 * 500),
    };
    let mut ev: Vec<ReplayEvent> = (0..8)
        .map(|_| ReplayEvent::Enqueue {
            t: SimTime(0),
            size_bytes: 500,
            flow: 0,
            ecn: Ecn::NotEct,
        })
        .collect();
    ev.extend((0..9).map(|_| ReplayEvent::Dequeue { t: SimTime(0) }));
    let r = replay(&cfg, limit, &ev, Some(uniforms()), 1, 1_500_000, 500).unwrap();
    let size = |x: &ReplayRecord| match mode {
        Mode::Packets => x.qlen_pkts_before as u64,
        Mode::Bytes => x.qlen_bytes_before,
    };
    check(size(&r[0]) == 0, "no packets in there");
    check(size(&r[1]) == unit, "one packet in there");
    check(size(&r[2]) == 2 * unit, "two packets in there");
    check(size(&r[8]) == 8 * unit, "eight packets in there");
    for k in 0..3u64 {
        check(
            r[8 + k as usize].action == Action::Dequeued,
            "remove a packet",
        );
        check(
            size(&r[9 + k as usize]) == (7 - k) * unit,
            "one fewer packet",
        );
        check(r[8 + k as usize].packet == Some(k), "FIFO order");
    }
    check(r[16].action == Action::Empty, "really no packets in there");

    // Test 2: min_th 70, max_th 150, 300-packet buffer, defaults: no drops of any kind.
    let t2 = counts(&case(mode, "red", "w_q = 0.002", (70.0, 150.0), 300, false));
    check(t2.0 == 0, "test 2: zero unforced drops");
    check(t2.1 == 0, "test 2: zero forced drops");
    check(t2.2 == 0, "test 2: zero drops due to queue limit");

    // Tests 3-7: QW 0.02 makes drops; lower max_th, higher max_p, no gentle, no wait: more.
    let t3 = all_drops(counts(&case(
        mode,
        "red",
        "w_q = 0.02",
        (70.0, 150.0),
        300,
        false,
    )));
    check(t3 > 0, "test 3: some dropped packets");
    let t4 = all_drops(counts(&case(
        mode,
        "red",
        "w_q = 0.02",
        (70.0, 100.0),
        300,
        false,
    )));
    check(t4 > t3, "test 4: more drops than test 3");
    let t5 = all_drops(counts(&case(
        mode,
        "red",
        "w_q = 0.02\nmax_p = 0.2",
        (70.0, 150.0),
        300,
        false,
    )));
    check(t5 > t3, "test 5: more drops than test 3");
    let t6 = all_drops(counts(&case(
        mode,
        "red",
        "w_q = 0.02\ngentle = false",
        (70.0, 150.0),
        300,
        false,
    )));
    check(t6 > t3, "test 6: more drops than test 3");
    let t7 = all_drops(counts(&case(
        mode,
        "red",
        "w_q = 0.02\nwait = false",
        (70.0, 150.0),
        300,
        false,
    )));
    check(t7 > t3, "test 7: more drops than test 3");

    // Tests 8-10: ECN (min_th 30, max_th 90, LInterm 2, gentle).
    let ecn = |on: bool| format!("w_q = 0.002\nmax_p = 0.5\ngentle = true\necn = {on}");
    let t8 = counts(&case(mode, "red", &ecn(true), (30.0, 90.0), 300, false));
    check(t8.0 > 0, "test 8: some unforced drops");
    check(t8.3 == 0, "test 8: no unforced marks");
    let t9 = counts(&case(mode, "red", &ecn(false), (30.0, 90.0), 300, true));
    check(t9.0 > 0, "test 9: some unforced drops");
    check(t9.3 == 0, "test 9: no unforced marks");
    let t10 = counts(&case(mode, "red", &ecn(true), (30.0, 90.0), 300, true));
    check(t10.0 == 0, "test 10: no unforced drops");
    check(t10.3 > 0, "test 10: some unforced marks");

    // Tests 11-13: linear RED, Feng's adaptive RED, nonlinear RED.
    let base = "w_q = 0.002\nmax_p = 0.5\ngentle = true";
    let t11 = counts(&case(mode, "red", base, (30.0, 90.0), 300, false)).0;
    check(t11 > 0, "test 11: some drops due to probability");
    let t12 = counts(&case(
        mode,
        "self_config_red",
        base,
        (30.0, 90.0),
        300,
        false,
    ))
    .0;
    check(t12 < t11, "test 12: fewer probability drops than test 11");
    let t13 = counts(&case(mode, "nlred", base, (30.0, 90.0), 300, false)).0;
    check(t13 < t11, "test 13: fewer probability drops than test 11");
    asserted
}

#[test]
fn ns3_red_suite_packet_mode() {
    assert_eq!(suite(Mode::Packets), 31);
}

#[test]
fn ns3_red_suite_byte_mode() {
    assert_eq!(suite(Mode::Bytes), 31);
}
