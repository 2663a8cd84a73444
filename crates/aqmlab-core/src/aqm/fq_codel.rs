//! FQ-CoDel: flow queueing with CoDel on each queue.
//!
//! Source: RFC 8290 (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet, 2018), §4 and §5;
//! structure of Linux `net/sched/sch_fq_codel.c`. Not one of the five papers in `papers/`.
//!
//! # Algorithm
//! - Classification (§4.1.1): each packet's flow id is hashed with a per-run salt (derived from the
//!   scenario seed) into one of `flows` queues (`hash = "flow_id"` uses the flow id itself as the
//!   hash, as ns-3's tests do with their packet filter). Distinct flows may collide, as in Linux.
//!   With `set_associative = true` (ns-3 `EnableSetAssociativeHash`), the queues form sets of
//!   `set_ways` consecutive queues: a flow hashed to queue `h` takes the first queue of
//!   `h`'s set that was never used, is tagged with this flow's hash, or is inactive, and the
//!   set's first queue if none is (ns-3 `SetAssociativeHash`).
//! - Enqueue (§4.1): timestamp, append to its queue; a queue that is in neither list joins the
//!   tail of `new_flows` with `deficit = quantum`. When the total backlog then exceeds the limit,
//!   the overflow policy drops from the *head* of the queue with the largest byte count: as
//!   Linux `fq_codel_drop` and ns-3 `FqCoDelDrop`, a batch until at least half of that queue's
//!   bytes are gone or `drop_batch` packets were dropped (repeated while still over the limit).
//!   `drop_batch = 1` is RFC 8290's single drop (the behaviour before the batch existed).
//! - Dequeue (§4.2, deficit round robin over two lists): take the first queue of `new_flows`, or
//!   else of `old_flows`. If its `deficit ≤ 0`: `deficit += quantum`, move it to the tail of
//!   `old_flows`, start over. Otherwise run CoDel's dequeue on it (the same core as `codel.rs`,
//!   with this queue's own CoDel state). If that yields nothing, the queue leaves its list — except
//!   that an empty *new* queue goes to the tail of `old_flows` when `old_flows` is not empty
//!   (prevents starvation by flows that empty and re-enter as new) — and we start over. Otherwise
//!   `deficit −= size` and the packet is sent.
//!
//! # Parameters
//! | key | unit | default | RFC 8290 / Linux |
//! |---|---|---|---|
//! | `flows` | queues | 1024 | 1024 |
//! | `quantum` | bytes | 1514 | 1514 (one Ethernet MTU incl. header) |
//! | `target` | duration | `"5ms"` | 5 ms |
//! | `interval` | duration | `"100ms"` | 100 ms |
//! | `min_bytes` | bytes | 1500 | one MTU |
//! | `ecn` | bool | true | ECN on by default (RFC 8290 §5.1, Linux `ecn`) |
//! | `drop_batch` | packets | 64 | Linux `drop_batch_size` 64, ns-3 `DropBatchSize` 64; RFC 8290: 1 |
//! | `set_associative` | bool | false | ns-3 `EnableSetAssociativeHash` false (Linux has none) |
//! | `set_ways` | queues | 8 | ns-3 `SetWays` 8 |
//! | `hash` | `"salted"` or `"flow_id"` | `"salted"` | Linux/ns-3 hash the 5-tuple with a perturbation |
//! | `ce_threshold` | duration or none | none | ns-3 `CeThreshold` (off), Linux `ce_threshold` |
//! | `l4s` | bool | false | ns-3 `UseL4s` false; needs `ce_threshold` and turns ECN on |
//!
//! `ce_threshold` and `l4s` are passed to every queue's CoDel (see `codel.rs` for their
//! semantics). As ns-3's `FqCoDelQueueDisc::CheckConfig`, `l4s` requires a CE threshold (ns-3
//! aborts without one) and forces ECN on.
//!
//! The overall limit is the link's `buffer` (packets or bytes), not Linux's 10240 packets, so that
//! scenarios compare algorithms with the same buffer; set `buffer = 10240` to reproduce Linux.
//!
//! # Readings
//! - CoDel per queue is ns-3's (as `codel.rs`, verified against ns-3). Its `min_bytes` test uses the
//!   queue's own backlog, as ns-3's FqCoDelQueueDisc does (each flow queue is a CoDelQueueDisc);
//!   Linux tests the whole qdisc's backlog.
//! - Overflow drops of packets already queued are counted as drops after enqueue (reason
//!   `overflow`) so conservation holds, and handed to `enqueue_reporting`'s `pushed_out` with
//!   that reason; they appear in the per-reason and per-flow counters. If the dropped head
//!   packet is the arriving one, `enqueue` returns `Dropped(Overflow)`.
//! - CoDel drops on dequeue are `sojourn`; marks likewise.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::codel;
use super::{AlgorithmParams, BuildContext, Reason};
use crate::error::{check, ScenarioError};
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::{
    Admission, BufferLimit, FlowQueues, Outcome, Qdisc, QdiscStats, SubQueueState, SubQueueStatus,
};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Number of flow queues the hash maps into (RFC 8290, Linux: 1024).
    pub flows: u32,
    /// Bytes a queue may send per round (one Ethernet MTU including its header).
    pub quantum: u32,
    /// CoDel target sojourn time per queue.
    pub target: SimDuration,
    /// CoDel interval: time the sojourn must stay above target before dropping.
    pub interval: SimDuration,
    /// CoDel: no drop while the queue holds fewer bytes (one MTU).
    pub min_bytes: u32,
    /// CE-mark ECN-capable packets instead of dropping them (on by default, RFC 8290 §5.1).
    pub ecn: bool,
    /// On overflow, drop from the fattest queue's head until half its bytes are gone, at most
    /// this many packets (Linux, ns-3: 64); 1 = RFC 8290's single drop.
    pub drop_batch: u32,
    /// Set-associative hashing (ns-3 EnableSetAssociativeHash): probe the set_ways queues of a
    /// flow's set for a free or inactive one before sharing.
    pub set_associative: bool,
    /// Queues per set for set-associative hashing (ns-3 SetWays: 8); must divide flows.
    pub set_ways: u32,
    /// How a flow id becomes a hash: "salted" (mixed with a per-run salt from the seed) or
    /// "flow_id" (the flow id itself, as ns-3's test packet filter gives preset hashes).
    pub hash: FlowHash,
    /// CoDel CE threshold (ns-3 CeThreshold, Linux ce_threshold): CE-mark ECN-capable packets that
    /// leave with a sojourn time above it. Unset: off.
    pub ce_threshold: Option<SimDuration>,
    /// L4S mode (ns-3 UseL4s): ECT(1) and CE packets are marked by ce_threshold only, without
    /// CoDel's control law; requires ce_threshold and turns ECN on.
    pub l4s: bool,
}

/// How FQ-CoDel turns a flow id into a hash.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowHash {
    /// Mixed with a per-run salt derived from the scenario seed.
    #[default]
    Salted,
    /// The flow id itself.
    FlowId,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            flows: 1024,
            quantum: 1514,
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            min_bytes: 1500,
            ecn: true,
            drop_batch: 64,
            set_associative: false,
            set_ways: 8,
            hash: FlowHash::Salted,
            ce_threshold: None,
            l4s: false,
        }
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "fq_codel";
    const NAME: &'static str = "FQ-CoDel (flow queueing + CoDel)";
    const SOURCE: &'static str =
        "RFC 8290; Linux sch_fq_codel (DRR over new/old flow lists, CoDel per queue)";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            (1..=65536).contains(&self.flows),
            "flows",
            self.flows,
            "an integer in [1, 65536]",
        )?;
        check(
            self.quantum >= 1,
            "quantum",
            self.quantum,
            "a positive number of bytes",
        )?;
        check(
            self.drop_batch >= 1,
            "drop_batch",
            self.drop_batch,
            "a positive number of packets",
        )?;
        check(
            !self.set_associative
                || (self.set_ways >= 1 && self.flows.is_multiple_of(self.set_ways)),
            "set_ways",
            self.set_ways,
            "a positive divisor of flows (with set_associative = true)",
        )?;
        check(
            !self.l4s || self.ce_threshold.is_some(),
            "l4s",
            self.l4s,
            "false unless ce_threshold is set (L4S marks by the CE threshold)",
        )?;
        codel::Params::validate_codel(self.target, self.interval)
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        let cfg = codel::Params {
            target: self.target,
            interval: self.interval,
            min_bytes: self.min_bytes,
            ecn: self.ecn || self.l4s,
            ce_threshold: self.ce_threshold,
            l4s: self.l4s,
        }
        .config();
        let mut q = FqCoDel::new(self.flows, self.quantum, cfg, ctx.limit, ctx.seed);
        q.drop_batch = self.drop_batch;
        q.set_ways = self.set_associative.then_some(self.set_ways);
        q.hash = self.hash;
        Box::new(q)
    }
}

/// The scheduler's state of one flow queue (Linux `struct fq_codel_flow`; the packets are in
/// the shared [`FlowQueues`]).
#[derive(Default)]
struct Flow {
    deficit: i64,
    vars: codel::Vars,
    /// In `new_flows`, `old_flows` or neither.
    status: SubQueueStatus,
    /// A packet was ever queued here (ns-3 created the flow queue).
    used: bool,
    /// Set-associative hashing: the hash of the flow that last took this queue.
    tag: Option<u64>,
}

/// SplitMix64 finaliser: a well-mixed 64-bit hash of the (flow id, salt) pair.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct FqCoDel {
    queues: FlowQueues,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: i64,
    cfg: codel::Config,
    salt: u64,
    /// Overflow: at most this many packets per batch.
    drop_batch: u32,
    /// Set-associative hashing: the set size.
    set_ways: Option<u32>,
    hash: FlowHash,
    /// The queue of the last packet enqueued or sent (replay records).
    last_queue: Option<usize>,
}

impl FqCoDel {
    pub fn new(
        n_flows: u32,
        quantum: u32,
        cfg: codel::Config,
        limit: BufferLimit,
        seed: u64,
    ) -> FqCoDel {
        FqCoDel {
            queues: FlowQueues::new(n_flows as usize, limit, cfg.ecn),
            flows: (0..n_flows).map(|_| Flow::default()).collect(),
            new_flows: VecDeque::with_capacity(n_flows as usize),
            old_flows: VecDeque::with_capacity(n_flows as usize),
            quantum: quantum as i64,
            cfg,
            salt: mix(seed ^ 0x6671_5f63_6f64_656c), // "fq_codel"
            drop_batch: 1,
            set_ways: None,
            hash: FlowHash::Salted,
            last_queue: None,
        }
    }

    /// The hash of a flow id.
    fn flow_hash(&self, flow: FlowId) -> u64 {
        match self.hash {
            FlowHash::Salted => mix(flow as u64 ^ self.salt),
            FlowHash::FlowId => flow as u64,
        }
    }

    /// The queue index of a flow under plain hashing.
    pub fn classify(&self, flow: FlowId) -> usize {
        (self.flow_hash(flow) % self.flows.len() as u64) as usize
    }

    /// The queue an arriving packet of `flow` joins (ns-3 `DoEnqueue` then `SetAssociativeHash`).
    fn queue_for(&mut self, flow: FlowId) -> usize {
        let h = self.classify(flow);
        let Some(ways) = self.set_ways else {
            return h;
        };
        let hash = self.flow_hash(flow);
        let outer = h - h % ways as usize;
        let free = (outer..outer + ways as usize).find(|&i| {
            let f = &self.flows[i];
            !f.used || f.tag == Some(hash) || f.status == SubQueueStatus::Inactive
        });
        // All queues of the set are taken by other active flows: share the set's first.
        let i = free.unwrap_or(outer);
        self.flows[i].tag = Some(hash);
        i
    }

    /// The overflow policy (Linux `fq_codel_drop`, ns-3 `FqCoDelDrop`): from the head of the
    /// fattest queue, drop until at least half its bytes are gone or `drop_batch` packets were
    /// dropped; again while the total is still over the limit.
    fn drop_on_overflow(
        &mut self,
        adm: &mut Admission,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) {
        while self.queues.over_limit() {
            let fat = self.queues.fattest();
            let threshold = self.queues.queue(fat).bytes() / 2;
            let (mut gone, mut count) = (0u64, 0u32);
            loop {
                gone += self.queues.queue(fat).front().map_or(0, |p| p.size_bytes as u64);
                let emptied = self
                    .queues
                    .drop_head_of(fat, adm, Reason::Overflow, pushed_out);
                count += 1;
                if emptied || count >= self.drop_batch || gone >= threshold {
                    break;
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

impl Qdisc for FqCoDel {
    fn enqueue_reporting(
        &mut self,
        now: SimTime,
        pkt: Packet,
        _rng: &mut SimRng,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome {
        self.queues.arrive(&pkt);
        let idx = self.queue_for(pkt.flow);
        self.last_queue = Some(idx);
        let mut adm = self.queues.push(idx, now, pkt);
        let f = &mut self.flows[idx];
        f.used = true;
        if f.status == SubQueueStatus::Inactive {
            f.status = SubQueueStatus::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(idx as u32);
        }
        self.drop_on_overflow(&mut adm, pushed_out);
        self.queues.admit(adm, Outcome::Enqueued)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        _rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        loop {
            let (from_new, idx) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => match self.old_flows.front() {
                    Some(&i) => (false, i),
                    None => return None,
                },
            };
            let f = &mut self.flows[idx as usize];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                f.status = SubQueueStatus::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(idx);
                continue;
            }
            let (cfg, vars) = (&self.cfg, &mut f.vars);
            let got = self
                .queues
                .dequeue_from(idx as usize, dropped, |p, rest| {
                    vars.on_head(now, cfg, p, rest.bytes())
                });
            match got {
                None => {
                    self.flows[idx as usize].vars.on_empty();
                    self.pop_list(from_new);
                    let f = &mut self.flows[idx as usize];
                    if from_new && !self.old_flows.is_empty() {
                        f.status = SubQueueStatus::Old;
                        self.old_flows.push_back(idx);
                    } else {
                        f.status = SubQueueStatus::Inactive;
                    }
                }
                Some(p) => {
                    self.flows[idx as usize].deficit -= p.size_bytes as i64;
                    self.last_queue = Some(idx as usize);
                    return Some(p);
                }
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.queues.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.queues.len_bytes()
    }
    fn stats(&self) -> &QdiscStats {
        self.queues.stats()
    }
    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("new_flows", self.new_flows.len() as f64);
        out("old_flows", self.old_flows.len() as f64);
        out(
            "dropping_queues",
            self.flows.iter().filter(|f| f.vars.dropping).count() as f64,
        );
    }
    fn sub_queues(&self, out: &mut dyn FnMut(SubQueueState)) {
        for (i, f) in self.flows.iter().enumerate().filter(|(_, f)| f.used) {
            let q = self.queues.queue(i);
            out(SubQueueState {
                index: i,
                pkts: q.len(),
                bytes: q.bytes(),
                status: f.status,
                deficit: f.deficit,
            });
        }
    }
    fn last_sub_queue(&self) -> Option<usize> {
        self.last_queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support::pkt;
    use crate::aqm::AqmConfig;

    fn build(limit: BufferLimit) -> FqCoDel {
        let p = Params::default();
        let cfg = codel::Params {
            target: p.target,
            interval: p.interval,
            min_bytes: p.min_bytes,
            ecn: false,
            ..codel::Params::default()
        }
        .config();
        FqCoDel::new(p.flows, p.quantum, cfg, limit, 42)
    }


    /// Two flows whose ids do not collide under the test salt.
    fn distinct(q: &FqCoDel, n: u32) -> Vec<FlowId> {
        let mut seen = std::collections::HashSet::new();
        (0..1000)
            .filter(|&f| seen.insert(q.classify(f)))
            .take(n as usize)
            .collect()
    }

    /// A sparse flow's packet arriving behind a bulk backlog is sent next (new-flow priority),
    /// not after the bulk queue drains.
    #[test]
    fn sparse_flow_served_ahead_of_bulk() {
        let mut q = build(BufferLimit::Packets(10_000));
        let mut rng = SimRng::new(0, 0);
        let f = distinct(&q, 2);
        let (bulk, sparse) = (f[0], f[1]);
        for k in 0..100 {
            q.enqueue(SimTime(0), pkt(k, bulk, 1500), &mut rng);
        }
        // The bulk queue starts as new; two dequeues use up its first quantum (1514 − 1500 > 0,
        // then 14 − 1500 < 0), which moves it to the old list.
        let a = q.dequeue(SimTime(1), &mut rng, &mut |_, _| {}).unwrap();
        let b = q.dequeue(SimTime(2), &mut rng, &mut |_, _| {}).unwrap();
        assert_eq!((a.flow, b.flow), (bulk, bulk));
        q.enqueue(SimTime(3), pkt(1000, sparse, 100), &mut rng);
        let c = q.dequeue(SimTime(4), &mut rng, &mut |_, _| {}).unwrap();
        assert_eq!(c.id, 1000, "sparse packet goes first");
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// A flooding flow with a huge backlog and a well-behaved flow: each gets one quantum per
    /// round, so while both are backlogged their byte shares are equal within one quantum.
    #[test]
    fn flood_cannot_starve_other_flow() {
        let mut q = build(BufferLimit::Packets(10_000));
        let mut rng = SimRng::new(0, 0);
        let f = distinct(&q, 2);
        let (flood, other) = (f[0], f[1]);
        let mut id = 0;
        for _ in 0..3000 {
            q.enqueue(SimTime(0), pkt(id, flood, 1500), &mut rng);
            id += 1;
        }
        for _ in 0..300 {
            q.enqueue(SimTime(0), pkt(id, other, 500), &mut rng);
            id += 1;
        }
        let mut bytes = [0u64; 2];
        // Dequeue quickly (sojourn below target: no CoDel drops) 400 packets.
        for k in 0..400u64 {
            let p = q
                .dequeue(SimTime(k), &mut rng, &mut |_, _| panic!("no drop expected"))
                .unwrap();
            bytes[(p.flow == other) as usize] += p.size_bytes as u64;
        }
        let diff = bytes[0].abs_diff(bytes[1]);
        assert!(diff <= 2 * 1514, "{bytes:?}");
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// Overflow drops from the head of the fattest queue (by bytes), not the arriving packet.
    #[test]
    fn overflow_drops_head_of_fattest() {
        let mut q = build(BufferLimit::Packets(5));
        let mut rng = SimRng::new(0, 0);
        let f = distinct(&q, 2);
        for k in 0..4 {
            q.enqueue(SimTime(0), pkt(k, f[0], 1000), &mut rng);
        }
        q.enqueue(SimTime(0), pkt(10, f[1], 1500), &mut rng);
        // Sixth packet, from the small flow: flow 0 (4000 B) is fattest; its head (id 0) goes.
        let out = q.enqueue(SimTime(0), pkt(11, f[1], 1500), &mut rng);
        assert_eq!(out, Outcome::Enqueued);
        assert_eq!(q.len_pkts(), 5);
        assert_eq!(
            q.stats().dropped_after_dequeue[Reason::Overflow as usize],
            1
        );
        assert_eq!(q.stats().flow_counters(f[0]).drops, 1);
        let mut ids = Vec::new();
        while let Some(p) = q.dequeue(SimTime(1), &mut rng, &mut |_, _| {}) {
            ids.push(p.id);
        }
        assert!(!ids.contains(&0) && ids.contains(&1) && ids.contains(&11));
        assert!(q.stats().conserved(0));
        // A lone arriving packet larger than everything else is itself the fattest queue's head.
        let mut q = build(BufferLimit::Packets(1));
        q.enqueue(SimTime(0), pkt(0, f[0], 100), &mut rng);
        let out = q.enqueue(SimTime(0), pkt(1, f[1], 1500), &mut rng);
        assert_eq!(out, Outcome::Dropped(Reason::Overflow));
        assert!(q.stats().conserved(1));
    }

    /// Batch drop (Linux `fq_codel_drop`, ns-3 `FqCoDelDrop`): one overflow drops from the fat
    /// queue's head until half its bytes are gone; `drop_batch` caps the packets per batch.
    #[test]
    fn overflow_batch_drops_half_the_fat_queue() {
        let mut rng = SimRng::new(0, 0);
        for (batch, expect) in [(64, 5), (3, 3), (1, 1)] {
            let mut q = build(BufferLimit::Packets(10));
            q.drop_batch = batch;
            let f = distinct(&q, 2);
            for k in 0..10 {
                q.enqueue(SimTime(0), pkt(k, f[0], 1000), &mut rng);
            }
            let mut gone = Vec::new();
            let out = q.enqueue_reporting(SimTime(0), pkt(10, f[1], 1000), &mut rng, &mut |p, r| {
                assert_eq!(r, Reason::Overflow);
                gone.push(p.id)
            });
            assert_eq!(out, Outcome::Enqueued);
            // 10 000 bytes queued in the fat flow: half is 5 packets, all from its head.
            assert_eq!(gone, (0..expect).collect::<Vec<u64>>(), "drop_batch {batch}");
            assert_eq!(q.len_pkts(), 11 - expect as usize);
            assert!(q.stats().conserved(q.len_pkts()));
        }
    }

    /// CoDel runs per queue: a standing queue of one flow gets CoDel drops while a light flow
    /// sharing the link sees none.
    #[test]
    fn codel_per_queue() {
        let mut q = build(BufferLimit::Packets(10_000));
        let mut rng = SimRng::new(0, 0);
        let f = distinct(&q, 2);
        let (bulk, light) = (f[0], f[1]);
        let mut drops = [0u64; 2];
        let mut id = 0;
        // Link sends one 1000 B packet per ms; bulk offers 2 per ms, light one per 10 ms.
        for ms in 0..2000u64 {
            let t = SimTime(ms * 1_000_000);
            for _ in 0..2 {
                q.enqueue(t, pkt(id, bulk, 1000), &mut rng);
                id += 1;
            }
            if ms % 10 == 0 {
                q.enqueue(t, pkt(id, light, 200), &mut rng);
                id += 1;
            }
            q.dequeue(SimTime(t.0 + 500_000), &mut rng, &mut |p, r| {
                assert_eq!(r, Reason::Sojourn);
                drops[(p.flow == light) as usize] += 1;
            });
        }
        assert!(drops[0] > 10, "{drops:?}");
        assert_eq!(drops[1], 0);
        assert!(q.stats().conserved(q.len_pkts()));
    }

    #[test]
    fn validation_and_unknown_keys() {
        let t = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let AqmConfig::FqCoDel(p) = t("kind='fq_codel'\nquantum=300").unwrap() else {
            panic!()
        };
        assert_eq!(p.quantum, 300);
        assert!(p.ecn);
        assert_eq!(
            t("kind='fq_codel'\nquantom=300").unwrap_err().path,
            "quantom"
        );
        assert_eq!(t("kind='fq_codel'\nflows=0").unwrap_err().path, "flows");
        assert_eq!(t("kind='fq_codel'\nquantum=0").unwrap_err().path, "quantum");
        assert_eq!(
            t("kind='fq_codel'\ntarget='0s'").unwrap_err().path,
            "target"
        );
    }
}
