//! The contract between the glue and an algorithm: what an algorithm sees of its queue
//! ([`QueueView`]), what it answers ([`Verdict`]), why a packet is dropped or marked
//! ([`Reason`]), and the [`Aqm`] trait a single-queue algorithm implements. The glue in this
//! folder acts on verdicts; the algorithms in `aqm/` only decide.

use crate::net::packet::Packet;
use crate::qdisc::BufferLimit;
use crate::rng::SimRng;
use crate::time::SimTime;

/// Why a packet was dropped or marked. `Display` gives ns-3-style strings; `key()` the stable
/// snake_case name used in results (`drops = { early = 12, overflow = 3 }`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The buffer was full.
    Overflow = 0,
    /// Probabilistic (unforced) decision: RED's early drop, BLUE/GREEN/REM/PIE probability.
    Early = 1,
    /// Forced: RED's average above `max_th` (or `2·max_th` when gentle).
    Forced = 2,
    /// Policy: a flow singled out as unresponsive or over its share (SFRED, FRED, SFB, CSFQ).
    Policy = 3,
    /// Sojourn-time control on dequeue (CoDel "target exceeded").
    Sojourn = 4,
    /// Mark only: sojourn time above CoDel's CE threshold (ns-3 "CE threshold exceeded mark").
    CeThreshold = 5,
}

impl Reason {
    pub const COUNT: usize = 6;
    pub const ALL: [Reason; Reason::COUNT] = [
        Reason::Overflow,
        Reason::Early,
        Reason::Forced,
        Reason::Policy,
        Reason::Sojourn,
        Reason::CeThreshold,
    ];

    /// Whether this reason can drop a packet (false: it only ever marks, and summaries leave it out
    /// of their drop maps).
    pub fn can_drop(self) -> bool {
        !matches!(self, Reason::CeThreshold)
    }

    pub fn key(self) -> &'static str {
        match self {
            Reason::Overflow => "overflow",
            Reason::Early => "early",
            Reason::Forced => "forced",
            Reason::Policy => "policy",
            Reason::Sojourn => "sojourn",
            Reason::CeThreshold => "ce_threshold",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reason::Overflow => "Queue overflow",
            Reason::Early => "Unforced drop",
            Reason::Forced => "Forced drop",
            Reason::Policy => "Policy drop",
            Reason::Sojourn => "Target exceeded drop",
            Reason::CeThreshold => "CE threshold exceeded mark",
        })
    }
}

/// An algorithm's decision about one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Congestion signal: the glue marks the packet if it is ECN-capable and the qdisc has ECN
    /// enabled, and drops it otherwise.
    Signal(Reason),
    /// Drop regardless of ECN.
    Drop(Reason),
}

/// What an algorithm may see of its queue (the state *before* the arriving packet is added, or
/// *after* the departing packet was removed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub len_pkts: usize,
    pub len_bytes: u64,
    pub limit: BufferLimit,
    pub link_rate_bps: u64,
}

/// What an algorithm asks of its queue's departures, which decides whether a link may compute
/// them by FIFO arithmetic (`net::link`): there the glue asks the algorithm at each arrival
/// with the queue the arithmetic computes at that instant, calls `on_dequeue` as each packet
/// starts its transmission (with the queue behind it), `on_empty` at the end of each busy
/// period (the instant the last transmission ended), and `on_timer` with the queue at the
/// timer's instant, always in time order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FifoArithmetic {
    /// The algorithm may drop or reorder at departure (CoDel, PIE's estimators, schedulers):
    /// departure times depend on it, so its link queues packets.
    Unfit,
    /// It decides only at arrival; `on_dequeue` is bookkeeping that always returns `Pass`
    /// (the RED family, Chablis, SFRED, SFB, GREEN-TCP).
    Decides,
    /// A plain tail-drop FIFO: it decides nothing (DropTail). A link nobody reads per flow may
    /// then skip the glue altogether.
    Plain,
}

/// The decision-making part of a single-queue qdisc.
pub trait Aqm {
    /// Called for each arriving packet before it is queued.
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict;
    /// The packet passed `on_enqueue` and the buffer has room: the one chance to rewrite header
    /// labels that routers further along the path read (CSFQ's relabelling). Called just before
    /// `on_enqueued`.
    fn relabel(&mut self, _pkt: &mut Packet) {}
    /// The packet passed `on_enqueue` (possibly marked) and is now in the queue.
    fn on_enqueued(&mut self, _now: SimTime, _pkt: &Packet) {}
    /// The packet passed `on_enqueue` but the buffer was full, so the glue dropped it.
    fn on_overflow(&mut self, _now: SimTime, _pkt: &Packet, _q: &QueueView) {}
    /// Called for each packet leaving the head of the queue (already removed: `q` excludes it).
    /// A `Drop` or unmarkable `Signal` drops it and the glue asks again with the next packet.
    fn on_dequeue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        Verdict::Pass
    }
    /// The link asked for a packet and the queue was empty: an idle period starts now.
    fn on_empty(&mut self, _now: SimTime) {}
    /// The next instant for `on_timer` (periodic control laws), if any.
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    /// Whether `next_timer` may ever return an instant. False (an algorithm without a control
    /// law on a clock) spares the simulator asking after every packet. Fixed for the
    /// algorithm's lifetime; the default, true, is always correct.
    fn timed(&self) -> bool {
        true
    }
    fn on_timer(&mut self, _now: SimTime, _q: &QueueView) {}
    /// Internal variables for traces, e.g. `out("avg", self.avg)`.
    fn probe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// Whether a link may run this algorithm's queue by FIFO arithmetic (departure times known
    /// at arrival, `net::link`) instead of queueing each packet: see [`FifoArithmetic`]. The
    /// default, `Unfit`, keeps the queued path. Fixed for the algorithm's lifetime: the
    /// queue that holds it asks once, when it is built.
    fn fifo_arithmetic(&self) -> FifoArithmetic {
        FifoArithmetic::Unfit
    }
    /// Test hook, reached only through `replay`'s `Set` event: overwrite the internal variable
    /// `name` with `value`, as ns-3's test suites write a queue disc's private members between
    /// calls. Returns false when the algorithm lets no script set `name`.
    fn set_state(&mut self, _name: &str, _value: f64) -> bool {
        false
    }
}
