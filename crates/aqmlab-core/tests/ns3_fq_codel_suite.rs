//! The project's port of ns-3's FQ-CoDel test suite (`src/test/ns3tc/
//! fq-codel-queue-disc-test-suite.cc`, ns-3.44), written against aqmlab's public interface: each
//! ns-3 test case is a `replay` script, and its assertions are checked on the replay records,
//! whose `queues` show each sub-queue (packets, bytes, new/old/inactive status, deficit).
//!
//! Mapping. ns-3 classifies a packet by hashing its 5-tuple; aqmlab packets carry a flow id, so
//! a distinct 5-tuple is a distinct flow id, and `hash = "flow_id"` makes the flow id the hash
//! (as ns-3's `Ipv4TestPacketFilter` returns preset hashes), so flow `i` of a test lands in
//! sub-queue `i`, which is ns-3's class `i` (classes are numbered in creation order and every
//! test here creates them in flow order). ns-3's item size includes the 20-byte IPv4 header: a
//! 100-byte payload is a 120-byte packet here. `MaxSize` is the replay buffer; `Quantum` →
//! `quantum`; `UseEcn` → `ecn`; `EnableSetAssociativeHash` → `set_associative`; `CeThreshold` →
//! `ce_threshold`; `UseL4s` → `l4s`. ns-3's `CE_THRESHOLD_EXCEEDED_MARK` is `Reason::CeThreshold`;
//! an ECT(1) packet is `Ecn::Ect1` in the replay script.
//!
//! Assertions, counted as ns-3's source states them (160 `NS_TEST_*` lines):
//! | ns-3 test case | lines | expressible | passing | not expressible, why |
//! |---|---|---|---|---|
//! | NoSuitableFilter | 2 | 0 | 0 | aqmlab has no packet filters: every packet carries its flow id, so there is no unclassifiable packet |
//! | IPFlowsSeparationAndPacketLimit | 8 | 8 | 8 | |
//! | Deficit | 47 | 47 | 47 | |
//! | TCPFlowsSeparation | 14 | 14 | 14 | |
//! | UDPFlowsSeparation | 14 | 14 | 14 | |
//! | ECNMarking | 56 | 56 | 56 | |
//! | SetLinearProbing | 11 | 11 | 11 | |
//! | L4sMode | 8 | 8 | 8 | |
//! | total | 160 | 158 | 158 | 2 |
//!
//! The two assertion lines inside ns-3's ECN `AddPacket` helper run five times per run; they
//! are counted once, as written, and checked on every call of the first run.

use aqmlab_core::aqm::{AqmConfig, Reason};
use aqmlab_core::net::packet::Ecn;
use aqmlab_core::qdisc::{BufferLimit, SubQueueState, SubQueueStatus};
use aqmlab_core::replay::{replay, Action, ReplayEvent, ReplayRecord};
use aqmlab_core::time::SimTime;

/// ns-3's item size for a 100-byte payload: IPv4 header included.
const PKT: u32 = 120;

fn fq_codel(extra: &str) -> AqmConfig {
    let text = format!("kind = 'fq_codel'\nhash = 'flow_id'\n{extra}");
    AqmConfig::from_table(toml::from_str(&text).unwrap()).unwrap_or_else(|e| panic!("{extra}: {e}"))
}

fn enq(t: SimTime, flow: u32) -> ReplayEvent {
    ReplayEvent::Enqueue {
        t,
        size_bytes: PKT,
        flow,
        ecn: Ecn::NotEct,
    }
}

fn run(cfg: &AqmConfig, limit_pkts: u32, events: &[ReplayEvent]) -> Vec<ReplayRecord> {
    replay(
        cfg,
        BufferLimit::Packets(limit_pkts),
        events,
        None,
        1,
        1_000_000_000,
        PKT,
    )
    .unwrap()
}

/// Packets in the whole qdisc after record `r`.
fn total(r: &ReplayRecord) -> usize {
    r.queues.iter().map(|q| q.pkts).sum()
}

/// Sub-queue `i` after record `r` (ns-3's `GetQueueDiscClass(i)`).
fn class(r: &ReplayRecord, i: usize) -> SubQueueState {
    *r.queues
        .iter()
        .find(|q| q.index == i)
        .unwrap_or_else(|| panic!("no sub-queue {i} after event {}", r.event))
}

/// ns-3 `GetNQueueDiscClasses()`: sub-queues created so far.
fn n_classes(r: &ReplayRecord) -> usize {
    r.queues.len()
}

// ---- IP, TCP and UDP flows separation, packet limit --------------------------------------------

/// `FqCoDelQueueDiscIPFlowsSeparationAndPacketLimit`: 8 assertions. The fifth packet overflows
/// the 4-packet limit and the batch drop takes two packets (half of the fat queue's bytes) from
/// the head of the fat flow.
#[test]
fn ip_flows_separation_and_packet_limit() {
    let t = SimTime::ZERO;
    let ev = [enq(t, 0), enq(t, 0), enq(t, 0), enq(t, 1), enq(t, 1)];
    let r = run(&fq_codel("quantum = 1500"), 4, &ev);
    assert_eq!(total(&r[2]), 3);
    assert_eq!(class(&r[2], 0).pkts, 3);
    assert_eq!(total(&r[3]), 4);
    assert_eq!(class(&r[3], 0).pkts, 3);
    assert_eq!(class(&r[3], 1).pkts, 1);
    assert_eq!(total(&r[4]), 3);
    assert_eq!(class(&r[4], 0).pkts, 1);
    assert_eq!(class(&r[4], 1).pkts, 2);
    // The two came from the head of flow 0, as overflow drops.
    assert_eq!(
        r[4].dropped,
        vec![(0, Reason::Overflow), (1, Reason::Overflow)]
    );
}

/// `FqCoDelQueueDiscTCPFlowsSeparation` and `...UDPFlowsSeparation` (14 assertions each, the same
/// script): packets differing in a source or destination port are different flows. ns-3's
/// 5-tuples in order: (7, 27), (8, 27), (8, 28), (7, 28) → flows 0, 1, 2, 3.
fn ports_separation() {
    let t = SimTime::ZERO;
    let flows = [0, 0, 0, 1, 2, 3, 3];
    let ev: Vec<_> = flows.iter().map(|&f| enq(t, f)).collect();
    let r = run(&fq_codel("quantum = 1500"), 10, &ev);
    assert_eq!(total(&r[2]), 3);
    assert_eq!(class(&r[2], 0).pkts, 3);
    assert_eq!(total(&r[3]), 4);
    assert_eq!(class(&r[3], 0).pkts, 3);
    assert_eq!(class(&r[3], 1).pkts, 1);
    assert_eq!(total(&r[4]), 5);
    assert_eq!(class(&r[4], 0).pkts, 3);
    assert_eq!(class(&r[4], 1).pkts, 1);
    assert_eq!(class(&r[4], 2).pkts, 1);
    assert_eq!(total(&r[6]), 7);
    assert_eq!(class(&r[6], 0).pkts, 3);
    assert_eq!(class(&r[6], 1).pkts, 1);
    assert_eq!(class(&r[6], 2).pkts, 1);
    assert_eq!(class(&r[6], 3).pkts, 2);
}

#[test]
fn tcp_flows_separation() {
    ports_separation();
}

#[test]
fn udp_flows_separation() {
    ports_separation();
}

// ---- deficit and flow status ------------------------------------------------------------------

/// `FqCoDelQueueDiscDeficit`: 47 assertions on packet counts, deficits and new/old/inactive
/// status through the DRR rounds, quantum 90 bytes, 120-byte packets.
#[test]
fn deficit_and_flow_status() {
    use SubQueueStatus::{Inactive, New, Old};
    let t = |k: u64| SimTime(k);
    let deq = |k: u64| ReplayEvent::Dequeue { t: SimTime(k) };
    let ev = [
        enq(t(0), 0), // 0
        deq(1),       // 1
        enq(t(2), 0), // 2
        enq(t(2), 0), // 3
        enq(t(3), 1), // 4
        enq(t(3), 1), // 5
        deq(4),       // 6
        deq(5),       // 7
        deq(6),       // 8
        deq(7),       // 9
        deq(8),       // 10
    ];
    let r = run(&fq_codel("quantum = 90"), 10240, &ev);
    let (f1, f2) = (
        |r: &ReplayRecord| class(r, 0),
        |r: &ReplayRecord| class(r, 1),
    );

    assert_eq!(total(&r[0]), 1);
    assert_eq!(f1(&r[0]).pkts, 1);
    assert_eq!(f1(&r[0]).deficit, 90, "deficit = quantum");
    assert_eq!(f1(&r[0]).status, New);

    assert_eq!(total(&r[1]), 0);
    assert_eq!(f1(&r[1]).pkts, 0);
    assert_eq!(f1(&r[1]).deficit, -30, "90 - 120");

    assert_eq!(total(&r[3]), 2);
    assert_eq!(f1(&r[3]).pkts, 2);
    assert_eq!(f1(&r[3]).status, New, "still in the new list");

    assert_eq!(total(&r[5]), 4);
    assert_eq!(f1(&r[5]).pkts, 2);
    assert_eq!(f2(&r[5]).pkts, 2);
    assert_eq!(f2(&r[5]).deficit, 90);
    assert_eq!(f2(&r[5]).status, New);

    // From the second flow: the first has a negative deficit.
    assert_eq!(total(&r[6]), 3);
    assert_eq!(f1(&r[6]).pkts, 2);
    assert_eq!(f2(&r[6]).pkts, 1);
    assert_eq!(f1(&r[6]).deficit, 60);
    assert_eq!(f1(&r[6]).status, Old);
    assert_eq!(f2(&r[6]).deficit, -30);
    assert_eq!(f2(&r[6]).status, New);

    assert_eq!(total(&r[7]), 2);
    assert_eq!(f1(&r[7]).pkts, 1);
    assert_eq!(f2(&r[7]).pkts, 1);
    assert_eq!(f1(&r[7]).deficit, -60);
    assert_eq!(f1(&r[7]).status, Old);
    assert_eq!(f2(&r[7]).deficit, 60);
    assert_eq!(f2(&r[7]).status, Old);

    assert_eq!(total(&r[8]), 1);
    assert_eq!(f1(&r[8]).pkts, 1);
    assert_eq!(f2(&r[8]).pkts, 0);
    assert_eq!(f1(&r[8]).deficit, 30);
    assert_eq!(f1(&r[8]).status, Old);
    assert_eq!(f2(&r[8]).deficit, -60);
    assert_eq!(f2(&r[8]).status, Old);

    assert_eq!(total(&r[9]), 0);
    assert_eq!(f1(&r[9]).pkts, 0);
    assert_eq!(f2(&r[9]).pkts, 0);
    assert_eq!(f1(&r[9]).deficit, -90);
    assert_eq!(f1(&r[9]).status, Old);
    assert_eq!(f2(&r[9]).deficit, 30);
    assert_eq!(f2(&r[9]).status, Old);

    // Both empty: the rounds leave them inactive, flow 1 with a fresh 0 + 90.
    assert_eq!(r[10].action, Action::Empty);
    assert_eq!(f1(&r[10]).deficit, 90);
    assert_eq!(f1(&r[10]).status, Inactive);
    assert_eq!(f2(&r[10]).deficit, 30);
    assert_eq!(f2(&r[10]).status, Inactive);
}

// ---- ECN marking ------------------------------------------------------------------------------

/// `FqCoDelQueueDiscECNMarking`, first run (20 assertion lines): five flows of 20 packets at
/// t = 0, three ECN-capable (ECT(0)) and two not, 10240-packet limit, quantum 1514, one dequeue
/// every 110 ms, 60 in all. CoDel marks each ECN-capable flow 6 times and drops from each
/// other flow 4 times. The second and third runs (with `CeThreshold`) are below.
#[test]
fn ecn_marking_without_ce_threshold() {
    let mut ev = Vec::new();
    let mut flow_of = Vec::new();
    let mut ect_of = Vec::new();
    for flow in 0..5u32 {
        for _ in 0..20 {
            ev.push(ReplayEvent::Enqueue {
                t: SimTime::ZERO,
                size_bytes: PKT,
                flow,
                ecn: Ecn::ect0_if(flow < 3),
            });
            flow_of.push(flow);
            ect_of.push(flow < 3);
        }
    }
    for i in 1..=60u64 {
        ev.push(ReplayEvent::Dequeue {
            t: SimTime(i * 110_000_000),
        });
    }
    let r = run(&fq_codel("quantum = 1514\necn = true"), 10240, &ev);
    // ns-3's AddPacket checks after each group of 20: classes and packets.
    for g in 0..5 {
        let after = &r[g * 20 + 19];
        assert_eq!(n_classes(after), g + 1);
        assert_eq!(total(after), (g + 1) * 20);
    }
    let last = r.last().unwrap();
    let (mut marks, mut drops) = ([0; 5], [0; 5]);
    for rec in &r {
        if let (Some(Reason::Sojourn), Some(p)) = (rec.marked, rec.packet) {
            marks[flow_of[p as usize] as usize] += 1;
        }
        for &(p, why) in &rec.dropped {
            assert_eq!(why, Reason::Sojourn);
            drops[flow_of[p as usize] as usize] += 1;
        }
    }
    for i in 0..5 {
        assert_ne!(class(last, i).pkts, 0, "queue {i} still holds packets");
    }
    assert_eq!(marks, [6, 6, 6, 0, 0], "TARGET_EXCEEDED_MARK per queue");
    assert_eq!(drops, [0, 0, 0, 4, 4], "TARGET_EXCEEDED_DROP per queue");
    // The head of each ECN-capable queue is an ECT or CE packet: its flow's packets all
    // arrived ECN-capable, and a mark only turns ECT into CE.
    let gone: std::collections::HashSet<u64> = r
        .iter()
        .filter(|x| x.action == Action::Dequeued)
        .filter_map(|x| x.packet)
        .chain(r.iter().flat_map(|x| x.dropped.iter().map(|d| d.0)))
        .collect();
    for q in 0..3u32 {
        let head = (0..100u64)
            .find(|&p| flow_of[p as usize] == q && !gone.contains(&p))
            .expect("queue not empty");
        assert!(ect_of[head as usize], "head of queue {q} is not Not-ECT");
    }
}

// ---- set-associative hashing ------------------------------------------------------------------

/// `FqCoDelQueueDiscSetLinearProbing`: 11 assertions. Hashes 0..7 fill set one (queues 0..7;
/// 1 and 4 twice); 1024 maps to queue 0 of the full set, so it shares queue 0; 1025 finds every
/// queue of set one taken by another active flow and shares queue 0 as well; 10 opens queue 8
/// (the first of set two).
#[test]
fn set_linear_probing() {
    let t = SimTime::ZERO;
    let hashes = [0u32, 1, 1, 2, 3, 4, 4, 5, 6, 7, 1024];
    let mut ev: Vec<_> = hashes.iter().map(|&h| enq(t, h)).collect();
    ev.push(enq(t, 1025));
    ev.push(enq(t, 10));
    let r = run(
        &fq_codel("quantum = 90\nset_associative = true"),
        10240,
        &ev,
    );
    let a = &r[10];
    assert_eq!(total(a), 11);
    for (i, n) in [2, 2, 1, 1, 2, 1, 1, 1].into_iter().enumerate() {
        assert_eq!(class(a, i).pkts, n, "queue {i} of set one");
    }
    assert_eq!(
        class(&r[11], 0).pkts,
        3,
        "1025 shares the set's first queue"
    );
    assert_eq!(
        class(&r[12], 8).pkts,
        1,
        "10 opens the first queue of set two"
    );
    assert_eq!(r[12].sub_queue, Some(8));
}

// ---- CE threshold and L4S mode ----------------------------------------------------------------

/// Per-flow counts of one replay: (CE-threshold marks, target-exceeded marks, target drops).
struct PerFlow {
    ce_marks: Vec<usize>,
    target_marks: Vec<usize>,
    target_drops: Vec<usize>,
}

fn per_flow(r: &[ReplayRecord], flow_of: &[u32], n_flows: usize) -> PerFlow {
    let mut c = PerFlow {
        ce_marks: vec![0; n_flows],
        target_marks: vec![0; n_flows],
        target_drops: vec![0; n_flows],
    };
    for rec in r {
        if let Some(p) = rec.packet {
            let f = flow_of[p as usize] as usize;
            match rec.marked {
                Some(Reason::CeThreshold) => c.ce_marks[f] += 1,
                Some(Reason::Sojourn) => c.target_marks[f] += 1,
                Some(other) => panic!("FQ-CoDel marked for {other:?}"),
                None => {}
            }
        }
        for &(p, why) in &rec.dropped {
            assert_eq!(why, Reason::Sojourn);
            c.target_drops[flow_of[p as usize] as usize] += 1;
        }
    }
    c
}

/// `FqCoDelQueueDiscECNMarking`, second and third runs (18 assertion lines each): the first
/// run's five flows (three ECT(0), two Not-ECT) with `CeThreshold` 2 ms, dequeued every
/// `spacing` (run 2: 0.1 ms, run 3: 110 ms).
fn ecn_marking_ce_threshold_run(spacing_ns: u64) -> (Vec<ReplayRecord>, PerFlow, Vec<bool>) {
    let mut ev = Vec::new();
    let mut flow_of = Vec::new();
    let mut ect_of = Vec::new();
    for flow in 0..5u32 {
        for _ in 0..20 {
            ev.push(ReplayEvent::Enqueue {
                t: SimTime::ZERO,
                size_bytes: PKT,
                flow,
                ecn: Ecn::ect0_if(flow < 3),
            });
            flow_of.push(flow);
            ect_of.push(flow < 3);
        }
    }
    for i in 1..=60u64 {
        ev.push(ReplayEvent::Dequeue {
            t: SimTime(i * spacing_ns),
        });
    }
    let cfg = fq_codel("quantum = 1514\necn = true\nce_threshold = '2ms'");
    let r = run(&cfg, 10240, &ev);
    let c = per_flow(&r, &flow_of, 5);
    // The head of each ECN-capable queue (ns-3's Peek) is ECT or CE.
    let gone: std::collections::HashSet<u64> = r
        .iter()
        .filter(|x| x.action == Action::Dequeued)
        .filter_map(|x| x.packet)
        .chain(r.iter().flat_map(|x| x.dropped.iter().map(|d| d.0)))
        .collect();
    let head_ect = (0..3u32)
        .map(|q| {
            let head = (0..100u64)
                .find(|&p| flow_of[p as usize] == q && !gone.contains(&p))
                .expect("queue not empty");
            ect_of[head as usize]
        })
        .collect();
    (r, c, head_ect)
}

#[test]
fn ecn_marking_ce_threshold_short_delay() {
    let (r, c, head_ect) = ecn_marking_ce_threshold_run(100_000);
    let last = r.last().unwrap();
    for i in 0..5 {
        assert_ne!(class(last, i).pkts, 0, "queue {i} still holds packets");
    }
    // Queue 0 is served within 2 ms; the sojourn of queue 1's and 2's packets grows past it.
    assert_eq!(
        &c.target_drops[..3],
        &[0, 0, 0],
        "TARGET_EXCEEDED_DROP, ECT queues"
    );
    assert_eq!(
        &c.ce_marks[..3],
        &[0, 6, 13],
        "CE_THRESHOLD_EXCEEDED_MARK, ECT queues"
    );
    assert_eq!(
        &c.ce_marks[3..],
        &[0, 0],
        "CE_THRESHOLD_EXCEEDED_MARK, Not-ECT queues"
    );
    assert_eq!(
        &c.target_drops[3..],
        &[0, 0],
        "TARGET_EXCEEDED_DROP, Not-ECT queues"
    );
    assert_eq!(
        head_ect,
        vec![true; 3],
        "heads of queues 0-2 are not Not-ECT"
    );
}

#[test]
fn ecn_marking_ce_threshold_long_delay() {
    let (r, c, head_ect) = ecn_marking_ce_threshold_run(110_000_000);
    let last = r.last().unwrap();
    for i in 0..5 {
        assert_ne!(class(last, i).pkts, 0, "queue {i} still holds packets");
    }
    for q in 0..3 {
        assert_eq!(c.target_drops[q], 0, "queue {q}: TARGET_EXCEEDED_DROP");
        // Every packet that left an ECT queue was marked, by one reason or the other.
        assert_eq!(
            c.ce_marks[q] + c.target_marks[q],
            20 - class(last, q).pkts,
            "queue {q}: CE_THRESHOLD_EXCEEDED_MARK + TARGET_EXCEEDED_MARK"
        );
    }
    assert_eq!(
        &c.ce_marks[3..],
        &[0, 0],
        "CE_THRESHOLD_EXCEEDED_MARK, Not-ECT queues"
    );
    assert_eq!(
        &c.target_drops[3..],
        &[4, 4],
        "TARGET_EXCEEDED_DROP, Not-ECT queues"
    );
    assert_eq!(
        head_ect,
        vec![true; 3],
        "heads of queues 0-2 are not Not-ECT"
    );
}

/// ns-3 orders events at one instant by when they were scheduled: the test's dequeues (scheduled
/// before the run) go before arrivals scheduled at t = 0 by `AddPacketWithDelay`.
fn sorted_script(mut ev: Vec<(SimTime, usize, ReplayEvent)>) -> Vec<ReplayEvent> {
    ev.sort_by_key(|(t, order, _)| (*t, *order));
    ev.into_iter().map(|(_, _, e)| e).collect()
}

fn l4s_enq(t: SimTime, flow: u32, ecn: Ecn) -> ReplayEvent {
    ReplayEvent::Enqueue {
        t,
        size_bytes: PKT,
        flow,
        ecn,
    }
}

fn us(x: u64) -> SimTime {
    SimTime(x * 1000)
}

/// `FqCoDelQueueDiscL4sMode`, first run (5 assertion lines): 70 ECT(1) packets of flow 0 and 70
/// ECT(0) packets of flow 1, one each every 0.5 ms; 140 dequeues every 1 ms; `UseL4s` with a
/// 2 ms CE threshold.
#[test]
fn l4s_mode_without_collisions() {
    let mut ev = Vec::new();
    for j in 1..=140u64 {
        ev.push((us(1000 * j), 0, ReplayEvent::Dequeue { t: us(1000 * j) }));
    }
    for i in 1..=70u64 {
        ev.push((us(500 * i), 1, l4s_enq(us(500 * i), 0, Ecn::Ect1)));
        ev.push((us(500 * i), 2, l4s_enq(us(500 * i), 1, Ecn::Ect)));
    }
    let ev = sorted_script(ev);
    let flow_of: Vec<u32> = ev
        .iter()
        .filter_map(|e| match e {
            ReplayEvent::Enqueue { flow, .. } => Some(*flow),
            _ => None,
        })
        .collect();
    let cfg = fq_codel("quantum = 1514\necn = true\nl4s = true\nce_threshold = '2ms'");
    let r = run(&cfg, 10240, &ev);
    let c = per_flow(&r, &flow_of, 2);
    assert_eq!(c.ce_marks[0], 66, "queue 0: CE_THRESHOLD_EXCEEDED_MARK");
    assert_eq!(c.target_drops[0], 0, "queue 0: TARGET_EXCEEDED_DROP");
    assert_eq!(
        c.target_marks[0], 0,
        "queue 0: TARGET_EXCEEDED_MARK (L4S skips CoDel)"
    );
    assert_eq!(c.target_marks[1], 1, "queue 1: TARGET_EXCEEDED_MARK");
    assert_eq!(c.target_drops[1], 0, "queue 1: TARGET_EXCEEDED_DROP");
}

/// `FqCoDelQueueDiscL4sMode`, second run (3 assertion lines): one flow (a hash collision) of 70
/// ECT(1) packets at 0.5, 1.5, 2.5, ... ms and 70 ECT(0) packets at 1, 2, ... ms; 140 dequeues
/// every 1 ms.
#[test]
fn l4s_mode_with_collisions() {
    let mut ev = Vec::new();
    ev.push((us(500), 0, l4s_enq(us(500), 0, Ecn::Ect1)));
    for j in 1..=140u64 {
        ev.push((us(1000 * j), 1, ReplayEvent::Dequeue { t: us(1000 * j) }));
    }
    for i in 1..=70u64 {
        ev.push((us(1000 * i), 2, l4s_enq(us(1000 * i), 0, Ecn::Ect)));
    }
    for i in 1..=69u64 {
        ev.push((
            us(500 + 1000 * i),
            3,
            l4s_enq(us(500 + 1000 * i), 0, Ecn::Ect1),
        ));
    }
    let ev = sorted_script(ev);
    let cfg = fq_codel("quantum = 1514\necn = true\nl4s = true\nce_threshold = '2ms'");
    let r = run(&cfg, 10240, &ev);
    let c = per_flow(&r, &vec![0; 140], 1);
    assert_eq!(c.ce_marks[0], 68, "queue 0: CE_THRESHOLD_EXCEEDED_MARK");
    assert_eq!(c.target_drops[0], 0, "queue 0: TARGET_EXCEEDED_DROP");
    assert_eq!(c.target_marks[0], 1, "queue 0: TARGET_EXCEEDED_MARK");
}

/// `l4s` without a CE threshold is refused, as ns-3's `CheckConfig` aborts.
#[test]
fn l4s_needs_ce_threshold() {
    let text = "kind = 'fq_codel'\nl4s = true";
    let err = AqmConfig::from_table(toml::from_str(text).unwrap()).unwrap_err();
    assert!(err.to_string().contains("l4s"), "{err}");
}
