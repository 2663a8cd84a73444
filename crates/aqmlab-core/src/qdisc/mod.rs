//! The qdisc glue: queues packets, applies an algorithm's verdicts, decides mark-versus-drop and
//! counts every outcome by reason, for both forms a link's queue takes:
//! - queued: the glue holds the waiting packets and the link's transmitter asks it for the next;
//! - FIFO arithmetic (a lossless link whose algorithm decides only at arrival, which the qdisc
//!   offers through [`Qdisc::arithmetic`]): the link computes each departure at arrival and
//!   keeps the packets in its pipe; the glue ([`ArithmeticQueue`]) still decides and counts each
//!   arrival, each departure and each idle period, told the queue the arithmetic computes.
//!   Only a plain tail-drop FIFO on a link nobody reads per flow (a dumbbell's host links) keeps
//!   the link's three aggregate counters instead (`net::link`).
//!
//! Two layers, as in Linux `net/sched`:
//! - [`Qdisc`] is what a link's egress holds: enqueue, dequeue, counters. Schedulers with several
//!   queues (DRR, FQ-CoDel, …) implement it directly, using [`QdiscStats`] for their counting.
//! - [`SingleQueue`] (`single.rs`) is the common case: one FIFO buffer plus a `Box<dyn Aqm>`
//!   that decides. Algorithms (RED, BLUE, GREEN, CoDel, PIE, …) implement
//!   [`Aqm`] and never touch the buffer or the counters.
//! - [`FlowQueues`] (`flow_queues.rs`) is the machinery under schedulers with several queues
//!   (DRR, FQ-CoDel) and under CHOKe, which removes packets from inside its queue: N FIFOs
//!   sharing one limit and one [`QdiscStats`], with the shared overflow rule (drop from the head
//!   of a chosen queue) and the shared dequeue-verdict loop. The scheduler keeps only its own
//!   order (rings, lists, deficits).
//!
//! Conservation (asserted after every operation in debug builds, and by tests):
//! `arrivals = enqueued + dropped_before_enqueue` and
//! `backlog = enqueued − dequeued − dropped_after_dequeue`.

mod flow_queues;
mod single;
mod verdict;

pub use flow_queues::{Admission, FlowQueues, SubQueue};
pub use single::SingleQueue;
pub use verdict::{Aqm, FifoArithmetic, QueueView, Reason, Verdict};

use crate::net::flow_map::DenseFlowMap;
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
    /// Counters of each flow this qdisc has seen (updated per packet on the measured link, so a
    /// vector slot per id where the ids are dense).
    pub per_flow: DenseFlowMap<FlowCounters>,
}

impl QdiscStats {
    fn flow(&mut self, flow: FlowId) -> &mut FlowCounters {
        self.per_flow.entry(flow)
    }
    /// The counters of `flow` (zero if it never arrived here).
    pub fn flow_counters(&self, flow: FlowId) -> FlowCounters {
        self.per_flow.get(flow).copied().unwrap_or_default()
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
    /// Checks both conservation laws against the qdisc's current backlog.
    pub fn conserved(&self, backlog_pkts: usize) -> bool {
        self.arrivals == self.enqueued + self.drops_before()
            && self.enqueued == self.dequeued + self.drops_after() + backlog_pkts as u64
    }
}

/// Where a sub-queue of a multi-queue scheduler stands (FQ-CoDel's new/old lists; ns-3
/// `FqCoDelFlow::FlowStatus`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SubQueueStatus {
    /// In no list.
    #[default]
    Inactive,
    New,
    Old,
}

impl SubQueueStatus {
    pub fn key(self) -> &'static str {
        match self {
            SubQueueStatus::Inactive => "inactive",
            SubQueueStatus::New => "new",
            SubQueueStatus::Old => "old",
        }
    }
}

/// One sub-queue of a multi-queue scheduler, as replay records show it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SubQueueState {
    pub index: usize,
    pub pkts: usize,
    pub bytes: u64,
    pub status: SubQueueStatus,
    /// Bytes the queue may still send this round (DRR-style schedulers).
    pub deficit: i64,
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
    /// Whether `next_timer` may ever return an instant (see [`Aqm::timed`]); asked once, when
    /// the simulator is built. The default, true, is always correct.
    fn timed(&self) -> bool {
        true
    }
    fn on_timer(&mut self, _now: SimTime, _rng: &mut SimRng) {}
    /// The capability a link is chosen by: a qdisc whose algorithm decides only at arrival
    /// offers the interface a FIFO-arithmetic link drives it through (None: queue packets).
    fn arithmetic(&mut self) -> Option<&mut dyn ArithmeticQueue> {
        None
    }
    /// Internal variables for traces (avg queue, max_p, price, …).
    fn probe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// Test hook for `replay`'s `Set` event (see [`Aqm::set_state`]).
    fn set_state(&mut self, _name: &str, _value: f64) -> bool {
        false
    }
    /// Multi-queue schedulers: every sub-queue that has held a packet, by index.
    fn sub_queues(&self, _out: &mut dyn FnMut(SubQueueState)) {}
    /// Multi-queue schedulers: the sub-queue of the packet last enqueued or sent.
    fn last_sub_queue(&self) -> Option<usize> {
        None
    }
}

/// A queue's length at one instant as a FIFO-arithmetic link computes it: the packets whose
/// transmission has not started.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub pkts: usize,
    pub bytes: u64,
}

/// A qdisc driven by a FIFO-arithmetic link (`Qdisc::arithmetic`): the link keeps the packets
/// and their departure times; the glue decides and counts, in time order, from what the link
/// tells it. Counters are those of the queued form: a packet counts as dequeued when its
/// transmission starts.
pub trait ArithmeticQueue {
    /// An arrival at `now`, the queue then being `q`: counts it and applies the algorithm's
    /// verdict (marking `pkt` CE, or stamping its enqueue time if it stays) and the buffer
    /// limit. The link keeps the packet unless the outcome is `Dropped`.
    fn admit(&mut self, now: SimTime, pkt: &mut Packet, q: Backlog, rng: &mut SimRng) -> Outcome;
    /// `pkt` starts its transmission at `start`, `rest` waiting behind it.
    fn depart(&mut self, start: SimTime, pkt: &Packet, rest: Backlog, rng: &mut SimRng);
    /// The link went idle at `at` (its last transmission ended and nothing waits), or an
    /// arrival at an idle link was dropped (`at` = now): what the queued form's transmitter
    /// reports by asking an empty queue for a packet.
    fn idle(&mut self, at: SimTime);
    /// The algorithm's periodic timer at `now`, the queue then being `q`.
    fn timer(&mut self, now: SimTime, q: Backlog);
    /// A plain tail-drop FIFO (decides nothing): a link that needs no per-flow counts may
    /// bypass the glue.
    fn plain(&self) -> bool;
}

/// Applies an algorithm's verdict on a packet leaving (or entering) a queue: `None` if the packet
/// goes on (a `Signal` on an ECN-capable packet with `ecn` on marks it CE and counts the mark),
/// `Some(reason)` if it must be dropped (the caller counts the drop on its side of the queue).
#[inline]
pub(crate) fn apply_verdict(
    stats: &mut QdiscStats,
    ecn: bool,
    pkt: &mut Packet,
    verdict: Verdict,
) -> Option<Reason> {
    match verdict {
        Verdict::Pass => None,
        Verdict::Signal(r) => (!mark_if_allowed(stats, ecn, pkt, r)).then_some(r),
        Verdict::Drop(r) => Some(r),
    }
}

/// CE-marks `pkt` if `ecn` is on and the packet is ECN-capable, counting the mark; false if it
/// cannot be marked (the signal becomes a drop).
#[inline]
pub(crate) fn mark_if_allowed(
    stats: &mut QdiscStats,
    ecn: bool,
    pkt: &mut Packet,
    reason: Reason,
) -> bool {
    if ecn && pkt.is_ecn_capable() {
        pkt.ecn = Ecn::Ce;
        stats.on_mark(pkt, reason);
        true
    } else {
        false
    }
}
