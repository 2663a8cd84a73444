//! DRR: Deficit Round Robin.
//!
//! Source: M. Shreedhar and G. Varghese, "Efficient Fair Queueing Using Deficit Round Robin",
//! SIGCOMM 1995 — reference [12] of paper 002 (`002_24dd6513f24de3ea.txt`), which uses DRR as
//! the fairness baseline ("the best case scenario for achieving fairness", §1 and §3) and ran
//! ns-2's `Queue/DRR`. We follow ns-2's `queue/drr.cc` (ns-2.35) behaviour for behaviour.
//!
//! # Algorithm (ns-2 `Queue/DRR`)
//! - Packets are queued per bucket; active buckets form a ring with a current pointer `curr`.
//!   A bucket that becomes non-empty joins the ring just *before* `curr` (served last in the
//!   current round) with `deficit = 0`.
//! - Dequeue: at the start of a bucket's turn, `deficit += quantum`. While the head packet fits
//!   (`deficit ≥ size`) it is sent, `deficit −= size`, and the same bucket keeps the turn for the
//!   next dequeue; when the head does not fit, the turn passes to the next bucket (the deficit is
//!   kept). A bucket that empties leaves the ring with `deficit = 0`.
//! - The buffer is shared by all buckets. After each arrival is queued, while the total exceeds the
//!   limit, the packet at the *head* of the bucket with the most bytes is dropped (ties: the first
//!   found walking the ring from `curr`).
//! - Byte-fairness: over any interval in which two buckets stay backlogged, the bytes they send
//!   differ by at most `quantum + max packet size` (Shreedhar & Varghese, Lemma 2).
//!
//! # Parameters
//! | key | unit | default | ns-2 default / paper |
//! |---|---|---|---|
//! | `quantum` | bytes | 250 | ns-2 `quantum_` 250; paper 002 does not give its value, and DRR's fairness bound holds for any quantum (a quantum below the packet size only costs extra rounds) |
//! | `buckets` | queues | 0 | ns-2 `buckets_` 10 (ns-default.tcl), hashing the *source address*; 0 here = one exact queue per flow id |
//!
//! The limit is the link's `buffer` (ns-2's `blimit_`, 25000 bytes by default there).
//!
//! # Readings and differences from ns-2
//! - ns-2 hashes the source node address into `buckets_` queues and only warns on collisions. In
//!   paper 002 each flow has its own source node, so per-flow queues is what its DRR did when the
//!   bucket count was large enough; our default `buckets = 0` gives exact per-flow queues. With
//!   `buckets = n > 0` flows share queue `flow_id mod n` (collisions by design, as ns-2's hash).
//! - ns-2 counts the shared limit in bytes (`blimit_`); a packet-count buffer here limits the
//!   packet total instead. The victim queue is chosen by bytes in both cases, as ns-2 does.
//! - Faithful ns-2 quirk: when an overflow drop empties a bucket, the bucket leaves the ring but its
//!   `turn` flag is not cleared (ns-2 clears it only in `deque`); on its next turn it then gets no
//!   fresh quantum. Rare (a one-packet bucket must be the fattest) and kept for fidelity.
//! - Overflow drops of packets already queued count as drops after enqueue (reason `overflow`) so
//!   conservation holds; if the arriving packet itself is the victim, `enqueue` returns
//!   `Dropped(Overflow)`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, BuildContext, Reason};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::FlowMap;
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::{Admission, BufferLimit, FlowQueues, Outcome, Qdisc, QdiscStats};
use crate::rng::SimRng;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Bytes added to a queue's deficit per round (ns-2 `quantum_`: 250).
    pub quantum: u32,
    /// Number of queues flows hash into (flow id mod buckets); 0 = one queue per flow.
    pub buckets: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            quantum: 250,
            buckets: 0,
        }
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "drr";
    const NAME: &'static str = "Deficit Round Robin";
    const SOURCE: &'static str =
        "Shreedhar & Varghese, SIGCOMM 1995 (ref. [12] of paper 002); ns-2 queue/drr.cc semantics";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.quantum >= 1,
            "quantum",
            self.quantum,
            "a positive number of bytes",
        )?;
        check(
            self.buckets <= 1 << 20,
            "buckets",
            self.buckets,
            "0 (one queue per flow) or a number of queues up to 1048576",
        )
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        Box::new(Drr::new(self.quantum, self.buckets, ctx.limit))
    }
}

/// The scheduler's state of one queue (ns-2 `PacketDRR`; the packets are in the shared
/// [`FlowQueues`]).
#[derive(Default)]
struct Bucket {
    deficit: i64,
    turn: bool,
    prev: u32,
    next: u32,
}

pub struct Drr {
    queues: FlowQueues,
    buckets: Vec<Bucket>,
    /// 0: exact per-flow queues.
    n_hashed: u32,
    /// Exact mode: a flow's bucket is its index here (buckets are made as flows first arrive).
    slot_of: FlowMap<()>,
    quantum: i64,
    /// Current bucket of the ring (None: no active bucket).
    curr: Option<u32>,
    active: usize,
}

impl Drr {
    pub fn new(quantum: u32, buckets: u32, limit: BufferLimit) -> Drr {
        Drr {
            queues: FlowQueues::new(buckets as usize, limit, false),
            buckets: (0..buckets).map(|_| Bucket::default()).collect(),
            n_hashed: buckets,
            slot_of: FlowMap::default(),
            quantum: quantum as i64,
            curr: None,
            active: 0,
        }
    }

    fn bucket_of(&mut self, flow: FlowId) -> usize {
        if self.n_hashed != 0 {
            return (flow % self.n_hashed) as usize;
        }
        let (i, _) = self.slot_of.insert_full(flow, ());
        if i == self.buckets.len() {
            self.buckets.push(Bucket::default());
            self.queues.add_queue();
        }
        i
    }

    /// ns-2 `activate`: insert before `curr` (at the end of the current round).
    fn activate(&mut self, i: u32) {
        match self.curr {
            Some(h) => {
                let p = self.buckets[h as usize].prev;
                self.buckets[i as usize].prev = p;
                self.buckets[i as usize].next = h;
                self.buckets[p as usize].next = i;
                self.buckets[h as usize].prev = i;
            }
            None => {
                self.buckets[i as usize].prev = i;
                self.buckets[i as usize].next = i;
                self.curr = Some(i);
            }
        }
        self.active += 1;
    }

    /// ns-2 `idle`: unlink; if it was `curr`, the next bucket becomes current.
    fn idle(&mut self, i: u32) {
        let (p, n) = (self.buckets[i as usize].prev, self.buckets[i as usize].next);
        if n == i {
            self.curr = None;
        } else {
            self.buckets[p as usize].next = n;
            self.buckets[n as usize].prev = p;
            if self.curr == Some(i) {
                self.curr = Some(n);
            }
        }
        self.active -= 1;
    }

    /// ns-2 `getMaxflow`: walk the ring from `curr`; the first bucket with the most bytes.
    fn max_flow(&self) -> u32 {
        let start = self.curr.expect("non-empty when over limit");
        let (mut best, mut t) = (start, start);
        for _ in 0..self.active {
            if self.queues.queue(best as usize).bytes() < self.queues.queue(t as usize).bytes() {
                best = t;
            }
            t = self.buckets[t as usize].next;
        }
        best
    }

    /// The overflow policy (ns-2 `enque`): while the total is over the limit, drop the head of
    /// the bucket with the most bytes; a bucket emptied so leaves the ring.
    fn drop_on_overflow(
        &mut self,
        adm: &mut Admission,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) {
        while self.queues.over_limit() {
            let m = self.max_flow();
            if self
                .queues
                .drop_head_of(m as usize, adm, Reason::Overflow, pushed_out)
            {
                self.idle(m);
            }
        }
    }
}

impl Qdisc for Drr {
    fn enqueue_reporting(
        &mut self,
        now: SimTime,
        pkt: Packet,
        _rng: &mut SimRng,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome {
        self.queues.arrive(&pkt);
        let i = self.bucket_of(pkt.flow);
        let mut adm = self.queues.push(i, now, pkt);
        if self.queues.queue(i).len() == 1 {
            self.activate(i as u32);
            self.buckets[i].deficit = 0;
        }
        self.drop_on_overflow(&mut adm, pushed_out);
        self.queues.admit(adm, Outcome::Enqueued)
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _rng: &mut SimRng,
        _dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        if self.queues.len_pkts() == 0 {
            return None;
        }
        loop {
            let c = self
                .curr
                .expect("an active bucket while packets are queued");
            let head = self.queues.queue(c as usize).front();
            let size = head.expect("active bucket is not empty").size_bytes as i64;
            let b = &mut self.buckets[c as usize];
            if !b.turn {
                b.deficit += self.quantum;
                b.turn = true;
            }
            if b.deficit >= size {
                b.deficit -= size;
                let pkt = self.queues.take(c as usize);
                if self.queues.queue(c as usize).is_empty() {
                    let b = &mut self.buckets[c as usize];
                    b.turn = false;
                    b.deficit = 0;
                    self.idle(c);
                }
                return pkt;
            }
            b.turn = false;
            self.curr = Some(b.next);
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
        out("active_queues", self.active as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support::pkt;
    use crate::aqm::AqmConfig;


    fn drain(q: &mut Drr, n: usize) -> Vec<Packet> {
        let mut rng = SimRng::new(0, 0);
        (0..n)
            .map_while(|_| q.dequeue(SimTime(0), &mut rng, &mut |_, _| panic!()))
            .collect()
    }

    /// Flows of 1500 B, 500 B and 40 B packets, all backlogged: the bytes each has sent differ by
    /// at most quantum + max packet size at every point (Shreedhar & Varghese's bound).
    #[test]
    fn byte_fair_with_different_packet_sizes() {
        for quantum in [250u32, 1500] {
            let mut q = Drr::new(quantum, 0, BufferLimit::Packets(100_000));
            let mut rng = SimRng::new(0, 0);
            let sizes = [1500u32, 500, 40];
            let mut id = 0;
            for (f, &s) in sizes.iter().enumerate() {
                for _ in 0..(600_000 / s) {
                    q.enqueue(SimTime(0), pkt(id, f as FlowId, s), &mut rng);
                    id += 1;
                }
            }
            let mut sent = [0u64; 3];
            for p in drain(&mut q, 10_000) {
                sent[p.flow as usize] += p.size_bytes as u64;
                let (lo, hi) = (sent.iter().min().unwrap(), sent.iter().max().unwrap());
                assert!(
                    hi - lo <= (quantum + 1500) as u64,
                    "quantum {quantum}: {sent:?}"
                );
            }
            assert!(sent[2] > 100_000, "{sent:?}");
            assert!(q.stats().conserved(q.len_pkts()));
        }
    }

    /// ns-2 ring order: a bucket that becomes active joins at the end of the current round.
    #[test]
    fn new_bucket_joins_end_of_round() {
        let mut q = Drr::new(1000, 0, BufferLimit::Packets(100));
        let mut rng = SimRng::new(0, 0);
        q.enqueue(SimTime(0), pkt(0, 0, 1000), &mut rng);
        q.enqueue(SimTime(0), pkt(1, 0, 1000), &mut rng);
        q.enqueue(SimTime(0), pkt(2, 1, 1000), &mut rng);
        q.enqueue(SimTime(0), pkt(3, 1, 1000), &mut rng);
        // Flow 0 sends one packet (one quantum), then flow 2 arrives.
        let first = drain(&mut q, 1);
        assert_eq!(first[0].id, 0);
        q.enqueue(SimTime(0), pkt(4, 2, 1000), &mut rng);
        let order: Vec<u64> = drain(&mut q, 10).iter().map(|p| p.id).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    /// Shared buffer: overflow drops the head of the queue with most bytes.
    #[test]
    fn overflow_drops_head_of_longest_queue() {
        let mut q = Drr::new(250, 0, BufferLimit::Bytes(5000));
        let mut rng = SimRng::new(0, 0);
        for k in 0..4 {
            q.enqueue(SimTime(0), pkt(k, 0, 1000), &mut rng);
        }
        // Flow 1's first packet overflows the buffer (5500 B > 5000 B): flow 0 (4000 B) loses id 0.
        assert_eq!(
            q.enqueue(SimTime(0), pkt(10, 1, 1500), &mut rng),
            Outcome::Enqueued
        );
        assert_eq!(q.len_bytes(), 4500);
        assert_eq!(q.stats().flow_counters(0).drops, 1);
        let ids: Vec<u64> = drain(&mut q, 10).iter().map(|p| p.id).collect();
        assert!(!ids.contains(&0) && ids.len() == 4, "{ids:?}");
        // The arriving packet itself is the victim when its queue is the longest and it is alone.
        let mut q = Drr::new(250, 0, BufferLimit::Bytes(1000));
        q.enqueue(SimTime(0), pkt(0, 0, 500), &mut rng);
        assert_eq!(
            q.enqueue(SimTime(0), pkt(1, 1, 900), &mut rng),
            Outcome::Dropped(Reason::Overflow)
        );
        assert!(q.stats().conserved(q.len_pkts()));
        assert_eq!(q.len_pkts(), 1);
    }

    /// With `buckets = 2`, flows 0 and 2 share a FIFO.
    #[test]
    fn hashed_buckets_share_a_queue() {
        let mut q = Drr::new(1000, 2, BufferLimit::Packets(100));
        let mut rng = SimRng::new(0, 0);
        q.enqueue(SimTime(0), pkt(0, 0, 1000), &mut rng);
        q.enqueue(SimTime(0), pkt(1, 2, 1000), &mut rng);
        q.enqueue(SimTime(0), pkt(2, 1, 1000), &mut rng);
        let order: Vec<u64> = drain(&mut q, 10).iter().map(|p| p.id).collect();
        assert_eq!(order, vec![0, 2, 1]);
    }

    #[test]
    fn validation_and_unknown_keys() {
        let t = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let AqmConfig::Drr(p) = t("kind='drr'\nquantum=1000\nbuckets=10").unwrap() else {
            panic!()
        };
        assert_eq!((p.quantum, p.buckets), (1000, 10));
        assert_eq!(t("kind='drr'\nquanta=1").unwrap_err().path, "quanta");
        assert_eq!(t("kind='drr'\nquantum=0").unwrap_err().path, "quantum");
    }
}
