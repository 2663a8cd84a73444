//! The project's port of ns-3's PIE test suite (`src/traffic-control/test/
//! pie-queue-disc-test-suite.cc`, ns-3.44), written against aqmlab's public interface: each ns-3
//! test case is a `replay` script (enqueues every 10 ms, dequeues every `d` ms, as ns-3's
//! `EnqueueWithDelay`/`DequeueWithDelay`), run in packet mode and in byte mode as ns-3's
//! `DoRun` does, and its assertions are checked on the replay records and counters.
//!
//! ns-3 attribute → aqmlab key: `Tupdate` → `tupdate`, `DequeueThreshold` → `dq_threshold`,
//! `QueueDelayReference` → `target`, `MaxBurstAllowance` → `max_burst`,
//! `UseDequeueRateEstimator` → `estimator = "dq_rate"`, `UseEcn` → `ecn`,
//! `MarkEcnThreshold` → `mark_ecn_th`, `UseDerandomization` → `derandomize`,
//! `UseCapDropAdjustment` → `cap_drop_adjustment`, `ActiveThreshold` → `active_threshold`;
//! `MaxSize` is the replay buffer. ns-3's defaults differ from aqmlab's nowhere that these tests
//! touch.
//!
//! Tests 13 and 14 overwrite PIE's private `m_accuProb` (and, in 14, `m_dropProb`) before every
//! arrival, a state no sequence of calls produces; the port does the same with `replay`'s `Set`
//! events (a test hook PIE offers for exactly these two variables). Every assertion of ns-3's
//! file is expressed.

use aqmlab_core::aqm::{AqmConfig, Reason};
use aqmlab_core::net::packet::Ecn;
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::replay::{replay, Action, ReplayEvent, ReplayRecord};
use aqmlab_core::time::SimTime;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Packets,
    Bytes,
}

fn pie(extra: &str) -> AqmConfig {
    AqmConfig::from_table(toml::from_str(&format!("kind = 'pie'\n{extra}")).unwrap())
        .unwrap_or_else(|e| panic!("{extra}: {e}"))
}

/// ns-3's `EnqueueWithDelay(n)` (one 1000-byte packet every 10 ms from 10 ms) and
/// `DequeueWithDelay(d, n)`; at equal times the enqueue runs first (scheduled first in ns-3).
fn script(n: u64, dequeue_every_ms: f64, ecn: bool) -> Vec<ReplayEvent> {
    script_with_sets(n, dequeue_every_ms, ecn, &[])
}

/// [`script`] with PIE's variables overwritten before every arrival, in order (ns-3's
/// `Enqueue` helper with `m_constAccuProb`/`CheckMaxAccuProb`).
fn script_with_sets(
    n: u64,
    dequeue_every_ms: f64,
    ecn: bool,
    sets: &[(&str, f64)],
) -> Vec<ReplayEvent> {
    let mut ev: Vec<(u64, u8, ReplayEvent)> = Vec::new();
    for i in 1..=n {
        let t = SimTime(i * 10_000_000);
        for (name, value) in sets {
            ev.push((
                t.0,
                0,
                ReplayEvent::Set {
                    t,
                    name: name.to_string(),
                    value: *value,
                },
            ));
        }
        ev.push((
            t.0,
            1,
            ReplayEvent::Enqueue {
                t,
                size_bytes: 1000,
                flow: 0,
                ecn: Ecn::ect0_if(ecn),
            },
        ));
        let td = SimTime((i as f64 * dequeue_every_ms * 1e6).round() as u64);
        ev.push((td.0, 2, ReplayEvent::Dequeue { t: td }));
    }
    ev.sort_by_key(|(t, k, _)| (*t, *k));
    ev.into_iter().map(|(_, _, e)| e).collect()
}

fn limit(mode: Mode) -> BufferLimit {
    match mode {
        Mode::Packets => BufferLimit::Packets(300),
        Mode::Bytes => BufferLimit::Bytes(300_000),
    }
}

fn run(mode: Mode, cfg: &str, n: u64, d_ms: f64, ecn: bool) -> Vec<ReplayRecord> {
    replay(
        &pie(cfg),
        limit(mode),
        &script(n, d_ms, ecn),
        None,
        1,
        10_000_000,
        1000,
    )
    .unwrap()
}

/// (unforced drops, forced drops, unforced marks). PIE's probabilistic drops are `early`;
/// ns-3's FORCED_DROP is the full buffer (`overflow`).
fn counts(r: &[ReplayRecord]) -> (usize, usize, usize) {
    let mut c = (0, 0, 0);
    for x in r {
        match x.action {
            Action::Dropped(Reason::Early) => c.0 += 1,
            Action::Dropped(Reason::Overflow) => c.1 += 1,
            Action::Marked(Reason::Early) => c.2 += 1,
            _ => {}
        }
    }
    c
}

const T2: &str = "tupdate = '30ms'\ndq_threshold = 10000\ntarget = '20ms'\nmax_burst = '100ms'";

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

    // Test 1: FIFO order, sizes, empty.
    let mut ev: Vec<ReplayEvent> = (0..8)
        .map(|_| ReplayEvent::Enqueue {
            t: SimTime(0),
            size_bytes: 1000,
            flow: 0,
            ecn: Ecn::NotEct,
        })
        .collect();
    ev.extend((0..9).map(|_| ReplayEvent::Dequeue { t: SimTime(0) }));
    let r = replay(&pie(""), limit(mode), &ev, None, 1, 10_000_000, 1000).unwrap();
    let unit = if mode == Mode::Packets { 1 } else { 1000 };
    let size = |x: &ReplayRecord| match mode {
        Mode::Packets => x.qlen_pkts_before as u64,
        Mode::Bytes => x.qlen_bytes_before,
    };
    check(size(&r[0]) == 0, "no packets in there");
    check(size(&r[1]) == unit, "one packet in there");
    check(size(&r[2]) == 2 * unit, "two packets in there");
    check(size(&r[8]) == 8 * unit, "eight packets in there");
    for k in 0..3 {
        check(r[8 + k].action == Action::Dequeued, "remove a packet");
        check(size(&r[9 + k]) == (7 - k as u64) * unit, "one fewer packet");
        check(r[8 + k].packet == Some(k as u64), "FIFO order");
    }
    check(r[16].action == Action::Empty, "really no packets in there");

    // Tests 2-5: unforced drops and no forced drops; more target, fewer drops; slower
    // dequeues, more drops; longer tupdate, fewer drops.
    let t2 = counts(&run(mode, T2, 400, 12.0, false));
    check(t2.0 > 0, "test 2: some unforced drops");
    check(t2.1 == 0, "test 2: zero forced drops");
    let t3 = counts(&run(mode, &T2.replace("20ms", "80ms"), 400, 12.0, false));
    check(t3.0 < t2.0, "test 3: fewer unforced drops than test 2");
    check(t3.1 == 0, "test 3: zero forced drops");
    let t4 = counts(&run(mode, T2, 400, 15.0, false));
    check(t4.0 > t2.0, "test 4: more unforced drops than test 2");
    check(t4.1 == 0, "test 4: zero forced drops");
    let t5 = counts(&run(mode, &T2.replace("30ms", "90ms"), 400, 15.0, false));
    check(t5.0 < t4.0, "test 5: fewer unforced drops than test 4");
    check(t5.1 == 0, "test 5: zero forced drops");

    // Test 6: departure-rate estimator.
    let t6 = counts(&run(mode, "estimator = 'dq_rate'", 400, 14.0, false));
    check(t6.0 > 0, "test 6: some unforced drops");
    check(t6.1 == 0, "test 6: zero forced drops");

    // Test 7: the cap switched off: some step above 0.1 rises by more than 0.02.
    let r7 = run(mode, "cap_drop_adjustment = false", 400, 14.0, false);
    let t7 = counts(&r7);
    check(t7.0 > 0, "test 7: some unforced drops");
    check(t7.1 == 0, "test 7: zero forced drops");
    check(
        max_rise_above_0_1(&r7) > 0.02,
        "test 7: rise of more than 0.02",
    );

    // Test 8: the cap (on by default): once above 0.1 the probability never rises by more than
    // 0.02 from one arrival to the next.
    let r8 = run(mode, "cap_drop_adjustment = true", 400, 14.0, false);
    let t8 = counts(&r8);
    check(t8.0 > 0, "test 8: some unforced drops");
    check(t8.1 == 0, "test 8: zero forced drops");
    check(
        max_rise_above_0_1(&r8) < 0.020_000_000_000_000_1,
        "test 8: rise of at most 0.02",
    );

    // Tests 9-11: ECN.
    let ecn = "ecn = true\nmark_ecn_th = 0.3";
    let t9 = counts(&run(mode, ecn, 400, 14.0, false));
    check(t9.2 == 0, "test 9: zero unforced marks");
    check(t9.0 > 0, "test 9: some unforced drops");
    check(t9.1 == 0, "test 9: zero forced drops");
    let t10 = counts(&run(
        mode,
        "ecn = false\nmark_ecn_th = 0.3",
        400,
        14.0,
        true,
    ));
    check(t10.2 == 0, "test 10: zero unforced marks");
    check(t10.0 > 0, "test 10: some unforced drops");
    check(t10.1 == 0, "test 10: zero forced drops");
    let r11 = run(mode, ecn, 400, 14.0, true);
    let t11 = counts(&r11);
    let max_p = r11
        .iter()
        .filter(|x| x.packet.is_some() && !matches!(x.action, Action::Dequeued))
        .map(|x| x.probe("drop_prob").unwrap())
        .fold(0.0f64, f64::max);
    check(t11.2 > 0, "test 11: some unforced marks");
    check(
        t11.0 > 0,
        "test 11: some unforced drops (probability above 0.3)",
    );
    check(max_p > 0.3, "test 11: maximum drop probability above 0.3");
    check(t11.1 == 0, "test 11: zero forced drops");

    // Test 12: de-randomisation: after each arrival, accu_prob is the previous value plus the
    // drop probability (or was reset to 0).
    let r12 = run(mode, "derandomize = true", 400, 14.0, false);
    let t12 = counts(&r12);
    let mut prev_accu = 0.0f64;
    let mut err = 0.0f64;
    for x in r12
        .iter()
        .filter(|x| !matches!(x.action, Action::Dequeued | Action::Empty))
    {
        let (accu, p) = (x.probe("accu_prob").unwrap(), x.probe("drop_prob").unwrap());
        if accu != 0.0 {
            err = accu - (prev_accu + p);
        }
        prev_accu = accu;
    }
    check(t12.0 > 0, "test 12: some unforced drops");
    check(t12.1 == 0, "test 12: zero forced drops");
    check(err == 0.0, "test 12: no error in accu_prob");

    // Test 13: accu_prob set to -0.16 before every arrival: at most -0.16 + 1 = 0.84 < 0.85
    // after adding drop_prob, so de-randomised PIE never drops.
    let r13 = replay(
        &pie("derandomize = true"),
        limit(mode),
        &script_with_sets(400, 14.0, false, &[("accu_prob", -0.16)]),
        None,
        1,
        10_000_000,
        1000,
    )
    .unwrap();
    let t13 = counts(&r13);
    check(t13.0 == 0, "test 13: zero unforced drops");
    check(t13.1 == 0, "test 13: zero forced drops");

    // Test 14: no burst allowance, accu_prob 8.6 and drop_prob 0.001 before every arrival:
    // every arrival that finds more than two packets queued is dropped, whatever the uniform.
    let r14 = replay(
        &pie("derandomize = true\nmax_burst = '0s'"),
        limit(mode),
        &script_with_sets(
            400,
            14.0,
            false,
            &[("accu_prob", 8.6), ("drop_prob", 0.001)],
        ),
        None,
        1,
        10_000_000,
        1000,
    )
    .unwrap();
    let t14 = counts(&r14);
    let expected = r14
        .iter()
        .filter(|x| x.packet.is_some() && !matches!(x.action, Action::Dequeued))
        .filter(|x| match mode {
            Mode::Packets => x.qlen_pkts_before > 2,
            Mode::Bytes => x.qlen_bytes_before > 2000,
        })
        .count();
    check(
        t14.0 == expected && expected > 0,
        "test 14: unforced drops = arrivals finding more than two packets",
    );
    check(t14.1 == 0, "test 14: zero forced drops");

    // Tests 15-16: active/inactive states. 100 arrivals every 10 ms, a dequeue every 20 ms: the
    // largest sojourn sample before the arrivals stop is about 0.5 s.
    let t15 = counts(&run(mode, "active_threshold = '1s'", 100, 20.0, false));
    check(t15.0 == 0, "test 15: no drops (PIE never active)");
    check(t15.2 == 0, "test 15: zero marks");
    let t16 = counts(&run(mode, "active_threshold = '1ms'", 100, 20.0, false));
    check(t16.0 > 0, "test 16: some drops (PIE active early)");
    check(t16.2 == 0, "test 16: zero marks");
    asserted
}

/// ns-3's `CheckDropProb`: the largest rise of the drop probability from one arrival to the
/// next, counted only from values above 0.1.
fn max_rise_above_0_1(r: &[ReplayRecord]) -> f64 {
    let mut prev = 0.0f64;
    let mut max_diff = 0.0f64;
    for x in r.iter().filter(|x| {
        matches!(
            x.action,
            Action::Enqueued | Action::Dropped(_) | Action::Marked(_)
        )
    }) {
        let p = x.probe("drop_prob").unwrap();
        if prev > 0.1 {
            max_diff = max_diff.max(p - prev);
        }
        prev = p;
    }
    max_diff
}

#[test]
fn ns3_pie_suite_packet_mode() {
    assert_eq!(suite(Mode::Packets), 51);
}

#[test]
fn ns3_pie_suite_byte_mode() {
    assert_eq!(suite(Mode::Bytes), 51);
}
