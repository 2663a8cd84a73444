//! The qdisc glue: the one place that queues packets, applies an algorithm's verdicts, decides
//! mark-versus-drop and counts every outcome by reason.
//!
//! Two layers, as in Linux `net/sched`:
//! - [`Qdisc`] is what a link's egress holds: enqueue, dequeue, counters. Schedulers with several
//!   queues (DRR, FQ-CoDel, …) implement it directly, using [`QdiscStats`] for their counting.
//! - [`SingleQueue`] is the common case: one FIFO buffer plus a `Box<dyn Aqm>` that decides.
//!   Algorithms (RED, BLUE, GREEN, CoDel, …) implement [`Aqm`](crate::aqm::Aqm) and never touch
//!   the buffer or the counters.
//!
//! Conservation (asserted after every operation in debug builds, and by tests):
//! `arrivals = enqueued + dropped_before_enqueue` and
//! `backlog = enqueued − dequeued − dropped_after_dequeue`.

use std::collections::VecDeque;

use crate::aqm::{Aqm, QueueView, Reason, Verdict};
use crate::net::flow_map::FlowMap;
use crate::net::packet::{Ecn, FlowId, Packet};
use crate::rng::SimRng;
use crate::time::SimTime;

/// The buffer size: in packets or in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Packets(u32),
    Bytes(u64),
}

impl BufferLimit {
    /// Would a queue of `len_pkts`/`len_bytes` overflow by adding a packet of `size` bytes?
    #[inline]
    pub fn would_overflow(self, len_pkts: usize, len_bytes: u64, size: u32) -> bool {
        match self {
            BufferLimit::Packets(n) => len_pkts >= n as usize,
            BufferLimit::Bytes(b) => len_bytes + size as u64 > b,
        }
    }
    /// The limit in packets, converting bytes with `mean_pkt_bytes`.
    pub fn packets(self, mean_pkt_bytes: u32) -> f64 {
        match self {
            BufferLimit::Packets(n) => n as f64,
            BufferLimit::Bytes(b) => b as f64 / mean_pkt_bytes.max(1) as f64,
        }
    }
}

/// What happened to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Enqueued,
    /// Enqueued with its ECN field set to CE.
    Marked(Reason),
    Dropped(Reason),
}

/// Per-flow counters kept by a qdisc.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowCounters {
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
}

/// Counters of one qdisc. Reasons index the arrays by `Reason as usize`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub dequeued_bytes: u64,
    pub dropped_before_enqueue: [u64; Reason::COUNT],
    pub dropped_after_dequeue: [u64; Reason::COUNT],
    pub marked: [u64; Reason::COUNT],
    /// Counters of each flow this qdisc has seen, in order of first arrival.
    pub per_flow: FlowMap<FlowCounters>,
}

impl QdiscStats {
    fn flow(&mut self, flow: FlowId) -> &mut FlowCounters {
        self.per_flow.entry(flow).or_default()
    }
    /// The counters of `flow` (zero if it never arrived here).
    pub fn flow_counters(&self, flow: FlowId) -> FlowCounters {
        self.per_flow.get(&flow).copied().unwrap_or_default()
    }
    pub fn on_arrival(&mut self, pkt: &Packet) {
        self.arrivals += 1;
        self.arrival_bytes += pkt.size_bytes as u64;
        self.flow(pkt.flow).arrivals += 1;
    }
    pub fn on_enqueue(&mut self) {
        self.enqueued += 1;
    }
    pub fn on_drop_before_enqueue(&mut self, pkt: &Packet, reason: Reason) {
        self.dropped_before_enqueue[reason as usize] += 1;
        self.flow(pkt.flow).drops += 1;
    }
    pub fn on_drop_after_dequeue(&mut self, pkt: &Packet, reason: Reason) {
        self.dropped_after_dequeue[reason as usize] += 1;
        self.flow(pkt.flow).drops += 1;
    }
    pub fn on_mark(&mut self, pkt: &Packet, reason: Reason) {
        self.marked[reason as usize] += 1;
        self.flow(pkt.flow).marks += 1;
    }
    pub fn on_dequeue(&mut self, pkt: &Packet) {
        self.dequeued += 1;
        self.dequeued_bytes += pkt.size_bytes as u64;
    }
    pub fn drops_before(&self) -> u64 {
        self.dropped_before_enqueue.iter().sum()
    }
    pub fn drops_after(&self) -> u64 {
        self.dropped_after_dequeue.iter().sum()
    }
    pub fn drops(&self) -> u64 {
        self.drops_before() + self.drops_after()
    }
    pub fn marks(&self) -> u64 {
        self.marked.iter().sum()
    }
    /// Drops per reason (both sides of the queue), as (reason, count) for reasons that occurred.
    pub fn drops_by_reason(&self) -> Vec<(Reason, u64)> {
        Reason::ALL
            .iter()
            .map(|&r| {
                (
                    r,
                    self.dropped_before_enqueue[r as usize]
                        + self.dropped_after_dequeue[r as usize],
                )
            })
            .filter(|&(_, n)| n > 0)
            .collect()
    }
    pub fn marks_by_reason(&self) -> Vec<(Reason, u64)> {
        Reason::ALL
            .iter()
            .map(|&r| (r, self.marked[r as usize]))
            .filter(|&(_, n)| n > 0)
            .collect()
    }
    /// Checks both conservation laws against the qdisc's current backlog.
    pub fn conserved(&self, backlog_pkts: usize) -> bool {
        self.arrivals == self.enqueued + self.drops_before()
            && self.enqueued == self.dequeued + self.drops_after() + backlog_pkts as u64
    }
}

/// What a link's egress holds.
pub trait Qdisc {
    /// Offers an arriving packet. The qdisc queues it, marks it or drops it, and counts. Packets
    /// already queued that it drops to make room (FQ-CoDel's and DRR's overflow drop from the
    /// fattest queue, CHOKe's matched victim) are passed to `pushed_out` (already counted as
    /// drops after enqueue, with their reason).
    fn enqueue_reporting(
        &mut self,
        now: SimTime,
        pkt: Packet,
        rng: &mut SimRng,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome;
    /// [`enqueue_reporting`](Qdisc::enqueue_reporting) for a caller that needs only the counts.
    fn enqueue(&mut self, now: SimTime, pkt: Packet, rng: &mut SimRng) -> Outcome {
        self.enqueue_reporting(now, pkt, rng, &mut |_, _| {})
    }
    /// The next packet to transmit, if any. Packets the qdisc drops on the way out are passed to
    /// `dropped` (already counted).
    fn dequeue(
        &mut self,
        now: SimTime,
        rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet>;
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn stats(&self) -> &QdiscStats;
    /// The next instant at which the qdisc wants `on_timer` (periodic control laws).
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    fn on_timer(&mut self, _now: SimTime, _rng: &mut SimRng) {}
    /// Internal variables for traces (avg queue, max_p, price, …).
    fn probe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// Test hook for `replay`'s `Set` event (see [`Aqm::set_state`](crate::aqm::Aqm::set_state)).
    fn set_state(&mut self, _name: &str, _value: f64) -> bool {
        false
    }
}

/// One FIFO buffer driven by an [`Aqm`].
pub struct SingleQueue {
    buf: VecDeque<Packet>,
    bytes: u64,
    limit: BufferLimit,
    ecn: bool,
    link_rate_bps: u64,
    aqm: Box<dyn Aqm>,
    stats: QdiscStats,
}

impl SingleQueue {
    /// `ecn`: whether `Verdict::Signal` may mark ECN-capable packets instead of dropping them.
    pub fn new(
        limit: BufferLimit,
        ecn: bool,
        link_rate_bps: u64,
        aqm: Box<dyn Aqm>,
    ) -> SingleQueue {
        SingleQueue {
            // Grown on demand, not sized to the limit: a ring buffer's head walks its whole
            // capacity, so a large preallocation turns every packet into a cache miss.
            buf: VecDeque::new(),
            bytes: 0,
            limit,
            ecn,
            link_rate_bps,
            aqm,
            stats: QdiscStats::default(),
        }
    }

    #[inline]
    fn view(&self) -> QueueView {
        QueueView {
            len_pkts: self.buf.len(),
            len_bytes: self.bytes,
            limit: self.limit,
            link_rate_bps: self.link_rate_bps,
        }
    }

    /// Applies a `Signal` verdict: true if the packet was marked (and may go on), false if it
    /// must be dropped instead.
    #[inline]
    fn try_mark(&mut self, pkt: &mut Packet, reason: Reason) -> bool {
        if self.ecn && pkt.is_ecn_capable() {
            pkt.ecn = Ecn::Ce;
            self.stats.on_mark(pkt, reason);
            true
        } else {
            false
        }
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(
            self.stats.conserved(self.buf.len()),
            "qdisc conservation violated: {:?}",
            self.stats
        );
    }
}

impl Qdisc for SingleQueue {
    fn enqueue_reporting(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        rng: &mut SimRng,
        _pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome {
        self.stats.on_arrival(&pkt);
        let view = self.view();
        let mut outcome = Outcome::Enqueued;
        match self.aqm.on_enqueue(now, &pkt, &view, rng) {
            Verdict::Pass => {}
            Verdict::Signal(reason) => {
                if self.try_mark(&mut pkt, reason) {
                    outcome = Outcome::Marked(reason);
                } else {
                    self.stats.on_drop_before_enqueue(&pkt, reason);
                    self.debug_check();
                    return Outcome::Dropped(reason);
                }
            }
            Verdict::Drop(reason) => {
                self.stats.on_drop_before_enqueue(&pkt, reason);
                self.debug_check();
                return Outcome::Dropped(reason);
            }
        }
        // As in ns-3's RED and Linux: the algorithm decides first, then the buffer may still be full.
        if self
            .limit
            .would_overflow(self.buf.len(), self.bytes, pkt.size_bytes)
        {
            self.aqm.on_overflow(now, &pkt, &view);
            self.stats.on_drop_before_enqueue(&pkt, Reason::Overflow);
            self.debug_check();
            return Outcome::Dropped(Reason::Overflow);
        }
        pkt.enqueued = now;
        self.bytes += pkt.size_bytes as u64;
        self.aqm.relabel(&mut pkt);
        self.aqm.on_enqueued(now, &pkt);
        self.buf.push_back(pkt);
        self.stats.on_enqueue();
        self.debug_check();
        outcome
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        while let Some(mut pkt) = self.buf.pop_front() {
            self.bytes -= pkt.size_bytes as u64;
            let view = self.view();
            let verdict = self.aqm.on_dequeue(now, &pkt, &view, rng);
            let reason = match verdict {
                Verdict::Pass => None,
                Verdict::Signal(r) => (!self.try_mark(&mut pkt, r)).then_some(r),
                Verdict::Drop(r) => Some(r),
            };
            match reason {
                None => {
                    self.stats.on_dequeue(&pkt);
                    self.debug_check();
                    return Some(pkt);
                }
                Some(r) => {
                    self.stats.on_drop_after_dequeue(&pkt, r);
                    self.debug_check();
                    dropped(pkt, r);
                }
            }
        }
        self.aqm.on_empty(now);
        None
    }

    fn len_pkts(&self) -> usize {
        self.buf.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    fn next_timer(&self) -> Option<SimTime> {
        self.aqm.next_timer()
    }
    fn on_timer(&mut self, now: SimTime, _rng: &mut SimRng) {
        let view = self.view();
        self.aqm.on_timer(now, &view);
    }
    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.aqm.probe(out);
    }
    fn set_state(&mut self, name: &str, value: f64) -> bool {
        self.aqm.set_state(name, value)
    }
}
