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
//! `quantum`; `UseEcn` → `ecn`; `EnableSetAssociativeHash` → `set_associative`.
//!
//! Assertions, counted as ns-3's source states them (160 `NS_TEST_*` lines):
//! | ns-3 test case | lines | expressible | passing | not expressible, why |
//! |---|---|---|---|---|
//! | NoSuitableFilter | 2 | 0 | 0 | aqmlab has no packet filters: every packet carries its flow id, so there is no unclassifiable packet |
//! | IPFlowsSeparationAndPacketLimit | 8 | 8 | 8 | |
//! | Deficit | 47 | 47 | 47 | |
//! | TCPFlowsSeparation | 14 | 14 | 14 | |
//! | UDPFlowsSeparation | 14 | 14 | 14 | |
//! | ECNMarking | 56 | 20 | 20 | 36: its 2nd and 3rd runs set `CeThreshold` (CE-threshold marking is not in aqmlab's CoDel/FQ-CoDel) |
//! | SetLinearProbing | 11 | 11 | 11 | |
//! | L4sMode | 8 | 0 | 0 | `UseL4s` and `CeThreshold` (not in aqmlab's FQ-CoDel) |
//! | total | 160 | 114 | 114 | 46 |
//!
//! The two assertion lines inside ns-3's ECN `AddPacket` helper run five times per run; they
//! are counted once, as written, and checked on every call of the first run.

use aqmlab_core::aqm::{AqmConfig, Reason};
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
        ecn_capable: false,
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
/// other flow 4 times. The second and third runs need `CeThreshold` (not expressible).
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
                ecn_capable: flow < 3,
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
