//! A one-way link at run time: an egress queue, a transmitter, and a propagation pipe.
//!
//! Packets on a link never overtake each other, so the packets in flight live in a FIFO
//! (`pipe`, a list through the slab all links share: net/pipe.rs) and only the head of it has
//! an event in the simulator's queue: the event heap stays O(links + timers) instead of
//! O(packets in flight).
//!
//! Two modes:
//! - **Queued** (any qdisc, random loss): the qdisc holds waiting packets; a transmitter event
//!   (`TxDone`) per packet dequeues the next one. Every AQM bottleneck, and any lossy link,
//!   uses it.
//! - **FIFO arithmetic** (every lossless link whose qdisc decides only at arrival, which it
//!   offers by `Qdisc::arithmetic`: DropTail's access, sink and reverse links, and a DropTail,
//!   RED-family, Chablis, SFRED, SFB or GREEN bottleneck): a FIFO's departure times are known
//!   at arrival (`start = max(now, busy_until)`), so the packet goes straight into the pipe
//!   with its arrival time at the far end, and no transmitter event is needed. The queue length
//!   at any instant is the number of piped packets whose transmission has not started.
//!
//! On a FIFO-arithmetic link the qdisc glue still decides and counts (`qdisc::ArithmeticQueue`):
//! each arrival is admitted by it with the queue at that instant, and a cursor over the pipe
//! (the first packet whose transmission has not started) passes every packet, in order, to it
//! as the packet's transmission starts, and reports the end of each busy period. The cursor
//! moves forward to `now` before anything else reaches the algorithm (an arrival, its timer,
//! a sample), so the algorithm sees its calls in time order, as on the queued path. The one
//! exception is a plain tail-drop FIFO on a link nobody reads per flow (a dumbbell's host
//! links): it bypasses the glue, keeps three aggregate counters here, and its cursor may jump
//! to the pipe's head or tail.

use std::borrow::Cow;

use crate::net::link_hook::{self, LinkHook};
use crate::net::packet::{FlowId, Packet};
use crate::net::pipe::{NodeRef, Pipe, PipeSlab};
use crate::net::topology::{LinkRole, LinkSpec, NodeId};
use crate::qdisc::{ArithmeticQueue, Backlog, Outcome, Reason};
use crate::qdisc::{BufferLimit, FlowCounters, Qdisc, QdiscStats};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// What the caller must schedule after offering a packet or finishing a transmission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Nothing,
    /// The transmitter will finish at this time (queued mode).
    TxDone(SimTime),
    /// The pipe was empty: its new head arrives at this time.
    Arrive(SimTime),
}

/// State of a link in FIFO-arithmetic mode: everything one packet touches, in two cache lines
/// at the head of `Link` (most links of a run are in this mode, and a large run's links do not
/// all fit in a core's cache). The counters are plain integers rather than a
/// `QdiscStats`, whose per-reason arrays and per-flow map would triple its size.
struct Fifo {
    limit: BufferLimit,
    busy_until: SimTime,
    /// `tx_time`'s exact per-byte factor for this link's rate (0: none).
    ns_per_byte: u64,
    arrival_bytes: u64,
    overflows: u64,
    enqueued_bytes: u64,
    /// Entries ever pushed (= packets enqueued; arrivals are those plus `overflows`) into / popped from the pipe, and the absolute index of the first
    /// entry whose transmission had not started at the last look (`cursor_node` is that entry
    /// while it is in the pipe). Start times increase along the pipe, so this cursor only moves
    /// forward: counting the waiting packets is O(1) amortised instead of a search per arrival.
    pushed: u64,
    popped: u64,
    cursor: u64,
    cursor_node: NodeRef,
    /// The qdisc glue admits, counts and sees every departure (`qdisc::ArithmeticQueue`); the
    /// cursor then passes every packet one by one and `Observed` is kept. False only for a
    /// plain FIFO nobody reads per flow.
    glue: bool,
    /// The end of the last busy period was reported to the glue (or nothing was ever sent).
    idle_reported: bool,
    /// Ties at an instant `t` (a transmission that starts at `t` and an arrival, timer or
    /// sample at `t`): false, the packet has left the queue at `t` (a plain FIFO, where
    /// either order gives the same statistics); true, everything else at `t` comes first,
    /// as on the queued path, whose transmitter event for `t` was scheduled after the events
    /// already pending for `t` (and as in ns-2 and ns-3). An algorithm that averages the queue
    /// length at arrivals (RED) sees one packet fewer at each tie under the first rule, which
    /// on a tie-prone run moves its mean queue by about 1 %: deciding algorithms use the second.
    defer_ties: bool,
}

impl Fifo {
    /// Whether the last transmission has ended by `now` (with `defer_ties`, one that ends at
    /// `now` has not: its end comes after everything else at `now`).
    #[inline]
    fn ended_by(&self, now: SimTime) -> bool {
        self.busy_until < now || (self.busy_until == now && !self.defer_ties)
    }
}

/// Walks a glue FIFO's pipe from its cursor past every packet whose transmission started at or
/// before `now`, adding its bytes to `started_bytes` and passing it to `each` with its start
/// time and the queue behind it; returns the new cursor (entry number, slab node). Start times
/// increase along the pipe, and every packet behind the one passed arrived before it started
/// (an arrival moves the cursor first), so the queue behind it is the rest of the pipe.
#[inline]
fn pass_started(
    f: &Fifo,
    (delay, rate_bps): (SimDuration, u64),
    pipes: &PipeSlab,
    now: SimTime,
    started_bytes: &mut u64,
    mut each: impl FnMut(SimTime, &Packet, Backlog),
) -> (u64, NodeRef) {
    // With `defer_ties`, a transmission starting at `now` is not passed yet.
    let now = if f.defer_ties {
        SimTime(now.0.saturating_sub(1))
    } else {
        now
    };
    let (mut cursor, mut node) = (f.cursor, f.cursor_node);
    while cursor < f.pushed {
        let (arrival, pkt) = pipes.get(node);
        let start = start_of(
            delay,
            tx_time(pkt.size_bytes, rate_bps, f.ns_per_byte),
            arrival,
        );
        if start > now {
            break;
        }
        *started_bytes += pkt.size_bytes as u64;
        cursor += 1;
        let rest = Backlog {
            pkts: (f.pushed - cursor) as usize,
            bytes: f.enqueued_bytes - *started_bytes,
        };
        each(start, pkt, rest);
        node = pipes.next(node);
    }
    (cursor, node)
}

/// A bypassing plain FIFO's queue at `now` (packets, and bytes under a byte limit; `backlog`'s
/// `waiting`), moving the cursor forward. `now` never decreases between calls. An idle link
/// (the common case on host links) has nothing waiting and walks nothing.
#[inline(always)]
fn plain_backlog(
    f: &mut Fifo,
    pipe: &Pipe,
    (delay, rate): (SimDuration, u64),
    now: SimTime,
    pipes: &PipeSlab,
) -> (usize, u64) {
    if f.busy_until <= now {
        f.cursor = f.pushed;
        f.cursor_node = NodeRef::NONE;
        return (0, 0);
    }
    plain_waiting(f, pipe, (delay, rate), now, pipes)
}

/// `plain_backlog` on a busy link: walks the cursor past the packets that started by `now`.
#[inline(never)]
fn plain_waiting(
    f: &mut Fifo,
    pipe: &Pipe,
    (delay, rate): (SimDuration, u64),
    now: SimTime,
    pipes: &PipeSlab,
) -> (usize, u64) {
    if f.cursor < f.popped {
        // The cursor's entry has left the pipe: everything still in it is ahead.
        f.cursor = f.popped;
        f.cursor_node = pipes.front(pipe);
    }
    while f.cursor < f.pushed {
        let (arrival, pkt) = pipes.get(f.cursor_node);
        let tx = tx_time(pkt.size_bytes, rate, f.ns_per_byte);
        if start_of(delay, tx, arrival) > now {
            break;
        }
        f.cursor += 1;
        f.cursor_node = pipes.next(f.cursor_node);
    }
    let pkts = (f.pushed - f.cursor) as usize;
    let bytes = if matches!(f.limit, BufferLimit::Bytes(_)) && pkts > 0 {
        pipes
            .iter_from(f.cursor_node)
            .map(|(_, p)| p.size_bytes as u64)
            .sum()
    } else {
        0
    };
    (pkts, bytes)
}

/// A link's queue at one instant (`Link::queue_at`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueAt {
    /// Packets waiting (not yet being transmitted).
    pub waiting: u64,
    /// Their bytes.
    pub waiting_bytes: u64,
}

/// `SimDuration::transmission(size, rate_bps)` by a multiplication when the rate divides
/// 8·10⁹ (host links at 10 Mbps, 100 Mbps, 1 Gbps: 800, 80, 8 ns per byte), where the division
/// would be exact anyway; `ns_per_byte` 0 means it does not, and the division is done. The
/// same result either way, one 64-bit division fewer per hop on most links.
#[inline]
fn tx_time(size: u32, rate_bps: u64, ns_per_byte: u64) -> SimDuration {
    if ns_per_byte != 0 {
        SimDuration(size as u64 * ns_per_byte)
    } else {
        SimDuration::transmission(size as u64, rate_bps)
    }
}

/// `tx_time`'s factor for `rate_bps`: nanoseconds per byte if exact, else 0. Also 0 below
/// 2 bit/s, where the factor times a `u32` size could overflow.
fn exact_ns_per_byte(rate_bps: u64) -> u64 {
    const BIT_NS: u64 = 8_000_000_000;
    if rate_bps >= 2 && BIT_NS.is_multiple_of(rate_bps) {
        BIT_NS / rate_bps
    } else {
        0
    }
}

/// When a packet that arrives at `arrival` at the far end of a FIFO link started its
/// transmission: `arrival = start + transmission + delay`, all integers, so this is exact.
#[inline]
fn start_of(delay: SimDuration, tx: SimDuration, arrival: SimTime) -> SimTime {
    SimTime(arrival.0 - delay.0 - tx.0)
}

/// A FIFO-arithmetic link's packets at one instant (`Link::backlog`).
#[derive(Default)]
struct FifoBacklog {
    waiting: usize,
    waiting_bytes: u64,
    sending: Vec<(u32, SimTime)>,
}

/// Counters of a link at one instant, for the links table and conservation checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub drops: u64,
    pub marks: u64,
    /// Packets waiting in the queue (not yet being transmitted).
    pub backlog: u64,
    /// Packets being transmitted or propagating.
    pub in_flight: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub lost_on_wire: u64,
}

/// `repr(C)`, aligned to a cache line: the fields a FIFO-arithmetic packet touches come first, so
/// they fill the first two lines of the link and nothing else shares them.
#[repr(C, align(64))]
pub struct Link {
    fifo: Option<Fifo>,
    pipe: Pipe,
    /// A link the results read beyond its counters (`Link::new`'s `observed`): the only links
    /// whose hook the simulator asks the observer for.
    observed: bool,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub to: NodeId,
    pub role: LinkRole,
    /// The egress qdisc: it holds the waiting packets in queued mode, and decides and counts
    /// through `Qdisc::arithmetic` in FIFO-arithmetic mode (unused by a bypassing plain FIFO).
    pub qdisc: Box<dyn Qdisc>,
    /// The qdisc's random stream.
    pub rng: SimRng,
    loss: f64,
    loss_rng: SimRng,
    /// The slab node of the packet being serialised (queued mode; `NodeRef::NONE` when idle),
    /// its size, and when its serialisation started. The packet waits in its node, which joins
    /// the pipe when the transmission ends: one copy fewer than holding it here.
    transmitting: NodeRef,
    tx_size: u32,
    tx_started: SimTime,
    /// Packets/bytes that finished transmission (queued mode), packets lost on the wire.
    tx_packets: u64,
    pub tx_bytes: u64,
    pub lost_on_wire: u64,
    /// A glue FIFO's bytes of the packets its cursor passed (the bytes waiting are the rest).
    started_bytes: u64,
}

impl Link {
    /// A link as `spec` describes it, with its built qdisc and its two random streams.
    /// `arithmetic_fifo`: use FIFO-arithmetic mode if the link is lossless and the qdisc offers
    /// it (`Qdisc::arithmetic`); `observed`: a link the results report on (per-flow counters,
    /// and a hook that sees every departure), which a plain FIFO then keeps through the glue
    /// too.
    pub fn new(
        spec: &LinkSpec,
        mut qdisc: Box<dyn Qdisc>,
        rng: SimRng,
        loss_rng: SimRng,
        arithmetic_fifo: bool,
        observed: bool,
    ) -> Link {
        let plain = match qdisc.arithmetic() {
            Some(a) if arithmetic_fifo && spec.loss == 0.0 => Some(a.plain()),
            _ => None,
        };
        let fifo = plain.map(|plain| Fifo {
            limit: spec.buffer,
            busy_until: SimTime::ZERO,
            ns_per_byte: exact_ns_per_byte(spec.rate_bps),
            arrival_bytes: 0,
            overflows: 0,
            enqueued_bytes: 0,
            pushed: 0,
            popped: 0,
            cursor: 0,
            cursor_node: NodeRef::NONE,
            glue: observed || !plain,
            idle_reported: true,
            defer_ties: !plain,
        });
        Link {
            to: spec.to,
            rate_bps: spec.rate_bps,
            delay: spec.delay,
            role: spec.role.clone(),
            qdisc,
            rng,
            fifo,
            observed,
            loss: spec.loss,
            loss_rng,
            transmitting: NodeRef::NONE,
            tx_size: 0,
            tx_started: SimTime::ZERO,
            pipe: Pipe::default(),
            tx_packets: 0,
            tx_bytes: 0,
            lost_on_wire: 0,
            started_bytes: 0,
        }
    }

    /// The queue at `now`: waiting packets and bytes (a glue FIFO link walks the packets
    /// started since its cursor last moved).
    pub fn queue_at(&self, now: SimTime, pipes: &PipeSlab) -> QueueAt {
        match &self.fifo {
            Some(f) => self.view(f, now, pipes),
            None => QueueAt {
                waiting: self.qdisc.len_pkts() as u64,
                waiting_bytes: self.qdisc.len_bytes(),
            },
        }
    }

    /// The algorithm's internal variables (call `settle` first on a FIFO-arithmetic link, so
    /// that the algorithm has seen every departure up to now).
    pub fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.qdisc.probe(out);
    }

    /// The qdisc's timer fired at `now` (its deadline has come): a FIFO-arithmetic link first
    /// passes the algorithm every departure up to `now`, then gives it the queue at `now`.
    pub fn on_qdisc_timer<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &PipeSlab,
        hook: Option<&mut H>,
    ) {
        if self.fifo.as_ref().is_some_and(|f| f.glue) {
            let q = self.fifo_backlog(now, pipes, hook);
            glue(&mut self.qdisc).timer(now, q);
        } else if self.fifo.is_none() {
            self.qdisc.on_timer(now, &mut self.rng);
        }
    }

    /// Whether the results read this link beyond its counters, so that it may have a hook
    /// (the simulator asks the observer for no other link's).
    #[inline]
    pub fn observed(&self) -> bool {
        self.observed
    }

    /// Whether the simulator must ask the qdisc for its next timer after each packet: every
    /// link whose qdisc sees packets (all but a bypassing plain FIFO) and may set a timer.
    pub fn polls_qdisc(&self) -> bool {
        self.fifo.as_ref().is_none_or(|f| f.glue) && self.qdisc.timed()
    }

    /// Offers a packet to the link's egress.
    #[inline]
    pub fn offer<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pkt: Packet,
        pipes: &mut PipeSlab,
        mut hook: Option<&mut H>,
    ) -> Next {
        if self.fifo.is_some() {
            return self.offer_fifo(now, pkt, pipes, hook);
        }
        match hook.as_deref_mut() {
            Some(h) if h.traces() => {
                link_hook::enqueue(h, &mut *self.qdisc, now, pkt, &mut self.rng)
            }
            _ => _ = self.qdisc.enqueue(now, pkt, &mut self.rng),
        }
        let next = if self.transmitting == NodeRef::NONE {
            self.start_next(now, pipes, hook.as_deref_mut())
        } else {
            Next::Nothing
        };
        if let Some(h) = hook {
            h.queue(now, self.qdisc.len_pkts() as u64);
        }
        next
    }

    #[inline]
    fn offer_fifo<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        pipes: &mut PipeSlab,
        mut hook: Option<&mut H>,
    ) -> Next {
        if hook.is_none() && self.fifo.as_ref().is_some_and(|f| !f.glue) {
            let Some(arrival) = self.admit_plain(now, pkt.size_bytes, pipes) else {
                return Next::Nothing;
            };
            pkt.enqueued = now;
            let was_empty = self.pipe.is_empty();
            let node = pipes.push_back(&mut self.pipe, arrival, pkt);
            return self.piped_fifo(node, arrival, was_empty);
        }
        let q = self.fifo_backlog(now, pipes, hook.as_deref_mut());
        let Some(arrival) = self.admit_fifo(now, q, &mut pkt, hook) else {
            return Next::Nothing;
        };
        pkt.enqueued = now;
        let was_empty = self.pipe.is_empty();
        let node = pipes.push_back(&mut self.pipe, arrival, pkt);
        self.piped_fifo(node, arrival, was_empty)
    }

    /// Whether the link takes packets handed on inside the slab (`offer_node`): FIFO mode.
    #[inline]
    pub fn takes_nodes(&self) -> bool {
        self.fifo.is_some()
    }

    /// FIFO mode: offers the packet of a slab node detached from the previous link's pipe, which
    /// moves into this link's pipe as it is (or is freed if the buffer overflows). Same outcome
    /// as `offer` with the packet copied out, without the two copies.
    #[inline]
    pub fn offer_node<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        node: NodeRef,
        pipes: &mut PipeSlab,
        mut hook: Option<&mut H>,
    ) -> Next {
        if hook.is_none() && self.fifo.as_ref().is_some_and(|f| !f.glue) {
            let size = pipes.get(node).1.size_bytes;
            let Some(arrival) = self.admit_plain(now, size, pipes) else {
                pipes.free(node);
                return Next::Nothing;
            };
            let was_empty = self.pipe.is_empty();
            pipes.append(&mut self.pipe, node, arrival);
            return self.piped_fifo(node, arrival, was_empty);
        }
        let q = self.fifo_backlog(now, pipes, hook.as_deref_mut());
        // The glue stamps the enqueue time, which only it reads back (sojourns); every qdisc
        // sets its own, so on a bypassing link the store would be dead.
        let Some(arrival) = self.admit_fifo(now, q, pipes.packet_mut(node), hook) else {
            pipes.free(node);
            return Next::Nothing;
        };
        let was_empty = self.pipe.is_empty();
        pipes.append(&mut self.pipe, node, arrival);
        self.piped_fifo(node, arrival, was_empty)
    }

    /// FIFO mode: the queue at `now` (the packets whose transmission has not started), moving
    /// the cursor forward; a glue link's algorithm is passed every departure up to `now`.
    #[inline]
    fn fifo_backlog<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &PipeSlab,
        hook: Option<&mut H>,
    ) -> Backlog {
        let (delay, rate) = (self.delay, self.rate_bps);
        let Some(f) = self.fifo.as_mut() else {
            return Backlog { pkts: 0, bytes: 0 };
        };
        if f.glue {
            let pkts = self.advance_glue(now, pipes, hook);
            let bytes = self
                .fifo
                .as_ref()
                .map_or(0, |f| f.enqueued_bytes - self.started_bytes);
            return Backlog { pkts, bytes };
        }
        let (pkts, bytes) = plain_backlog(f, &self.pipe, (delay, rate), now, pipes);
        Backlog { pkts, bytes }
    }

    /// FIFO mode: decides whether an arrival finds room (a glue link's qdisc decides and
    /// counts; a bypassing plain FIFO counts here); if it stays, books its transmission and
    /// returns its arrival time at the far end.
    #[inline]
    fn admit_fifo<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        q: Backlog,
        pkt: &mut Packet,
        mut hook: Option<&mut H>,
    ) -> Option<SimTime> {
        let f = self.fifo.as_mut()?;
        let size = pkt.size_bytes;
        let tx = tx_time(size, self.rate_bps, f.ns_per_byte);
        let outcome = if f.glue {
            glue(&mut self.qdisc).admit(now, pkt, q, &mut self.rng)
        } else {
            f.arrival_bytes += size as u64;
            if f.limit.would_overflow(q.pkts, q.bytes, size) {
                f.overflows += 1;
                Outcome::Dropped(Reason::Overflow)
            } else {
                Outcome::Enqueued
            }
        };
        if let Some(h) = hook.as_deref_mut().filter(|h| h.traces()) {
            link_hook::arrival(h, now, outcome, pkt);
        }
        if let Outcome::Dropped(_) = outcome {
            // The queued form's transmitter, idle, asks the qdisc for a packet after every
            // arrival and finds none: the algorithm hears of the idle link again.
            if f.glue && f.ended_by(now) {
                glue(&mut self.qdisc).idle(now);
            }
            return None;
        }
        if let Some(h) = hook {
            h.queue(now, q.pkts as u64 + 1);
        }
        f.enqueued_bytes += size as u64;
        f.idle_reported = false;
        let start = now.max(f.busy_until);
        f.busy_until = start + tx;
        Some(f.busy_until + self.delay)
    }

    /// A bypassing plain FIFO with no hook, hot path (most links of a run): `fifo_backlog`
    /// and `admit_fifo` in one, without the glue's branches. An arrival that finds the link
    /// idle (the common case on host links) finds nothing waiting and walks nothing.
    #[inline(always)]
    fn admit_plain(&mut self, now: SimTime, size: u32, pipes: &PipeSlab) -> Option<SimTime> {
        let (delay, rate) = (self.delay, self.rate_bps);
        let f = self.fifo.as_mut()?;
        let (pkts, bytes) = plain_backlog(f, &self.pipe, (delay, rate), now, pipes);
        f.arrival_bytes += size as u64;
        if f.limit.would_overflow(pkts, bytes, size) {
            f.overflows += 1;
            return None;
        }
        f.enqueued_bytes += size as u64;
        f.idle_reported = false;
        let start = now.max(f.busy_until);
        f.busy_until = start + tx_time(size, rate, f.ns_per_byte);
        Some(f.busy_until + delay)
    }

    /// FIFO mode: the packet admitted by `admit_fifo` is in the pipe at `node`.
    #[inline]
    fn piped_fifo(&mut self, node: NodeRef, arrival: SimTime, was_empty: bool) -> Next {
        if let Some(f) = self.fifo.as_mut() {
            if f.cursor == f.pushed {
                f.cursor_node = node;
            }
            f.pushed += 1;
        }
        if was_empty {
            Next::Arrive(arrival)
        } else {
            Next::Nothing
        }
    }

    /// FIFO mode: when the packet of a pipe entry started its transmission (stored nowhere).
    #[inline]
    fn start_of(&self, arrival: SimTime, pkt: &Packet) -> SimTime {
        let ns_per_byte = self.fifo.as_ref().map_or(0, |f| f.ns_per_byte);
        let tx = tx_time(pkt.size_bytes, self.rate_bps, ns_per_byte);
        start_of(self.delay, tx, arrival)
    }

    /// FIFO mode at `now`, for reports, in one walk of the pipe: the packets whose transmission
    /// has not started (a suffix of the pipe: start times increase along it) and the started
    /// ones still being serialised (at most one), as (size, start).
    fn backlog(&self, now: SimTime, pipes: &PipeSlab) -> FifoBacklog {
        let mut b = FifoBacklog::default();
        for (arrival, pkt) in pipes.iter(&self.pipe) {
            let start = self.start_of(arrival, pkt);
            if b.waiting > 0 || start > now {
                b.waiting += 1;
                b.waiting_bytes += pkt.size_bytes as u64;
            } else if arrival > now + self.delay {
                b.sending.push((pkt.size_bytes, start));
            }
        }
        b
    }

    /// Whether the link is a FIFO-arithmetic link that goes through the glue.
    #[inline]
    fn glue_on(&self) -> bool {
        self.fifo.as_ref().is_some_and(|f| f.glue)
    }

    /// Glue FIFO mode: moves the cursor past every packet whose transmission started at or
    /// before `now`, one by one, passing each to the glue as the queued model's transmitter
    /// dequeues it (its counters, the algorithm's departure bookkeeping) and to the hook (the
    /// queue behind it, the departure); then, if the link has gone idle by `now`, reports the
    /// instant its last transmission ended. Returns the number of packets still waiting.
    fn advance_glue<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &PipeSlab,
        mut hook: Option<&mut H>,
    ) -> usize {
        let Link {
            fifo: Some(f),
            started_bytes,
            delay,
            rate_bps,
            qdisc,
            rng,
            ..
        } = self
        else {
            return 0;
        };
        let q = glue(qdisc);
        (f.cursor, f.cursor_node) = pass_started(
            f,
            (*delay, *rate_bps),
            pipes,
            now,
            started_bytes,
            |start, pkt, rest| {
                q.depart(start, pkt, rest, rng);
                if let Some(h) = hook.as_deref_mut() {
                    h.queue(start, rest.pkts as u64);
                    h.departure(start, pkt);
                }
            },
        );
        if f.cursor == f.pushed && f.ended_by(now) && !f.idle_reported {
            f.idle_reported = true;
            q.idle(f.busy_until);
        }
        if let Some(h) = hook.filter(|_| f.cursor < f.pushed) {
            let (arrival, pkt) = pipes.get(f.cursor_node);
            let tx = tx_time(pkt.size_bytes, *rate_bps, f.ns_per_byte);
            h.upcoming(start_of(*delay, tx, arrival), pkt);
        }
        (f.pushed - f.cursor) as usize
    }

    /// A FIFO link's queue at `now` without moving its cursor: a glue link's bytes passed
    /// plus the packets that started since the cursor's last move (few: the cursor moves at
    /// every arrival); a bypassing link's by a walk of its pipe.
    fn view(&self, f: &Fifo, now: SimTime, pipes: &PipeSlab) -> QueueAt {
        if !f.glue {
            let b = self.backlog(now, pipes);
            return QueueAt {
                waiting: b.waiting as u64,
                waiting_bytes: b.waiting_bytes,
            };
        }
        let mut started = self.started_bytes;
        let (n, _) = pass_started(
            f,
            (self.delay, self.rate_bps),
            pipes,
            now,
            &mut started,
            |_, _, _| {},
        );
        QueueAt {
            waiting: f.pushed - n,
            waiting_bytes: f.enqueued_bytes - started,
        }
    }

    /// Glue FIFO mode: brings the glue up to `now` (every packet that started by then is
    /// passed to the algorithm and counted, and to the hook). The recorder calls it before it
    /// reads the hook's measurements or the algorithm's probes, and at the end of the run;
    /// elsewhere counters are read through `view`.
    pub fn settle<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &PipeSlab,
        hook: Option<&mut H>,
    ) {
        if self.glue_on() {
            self.advance_glue(now, pipes, hook);
        }
    }

    /// Dequeues the next packet and starts serialising it (queued mode).
    #[inline]
    fn start_next<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &mut PipeSlab,
        hook: Option<&mut H>,
    ) -> Next {
        let (dequeued, hook) = match hook {
            Some(h) if h.traces() => (
                link_hook::dequeue(h, &mut *self.qdisc, now, &mut self.rng),
                Some(h),
            ),
            hook => (self.qdisc.dequeue(now, &mut self.rng, &mut |_, _| {}), hook),
        };
        let Some(pkt) = dequeued else {
            return Next::Nothing;
        };
        if let Some(h) = hook {
            h.departure(now, &pkt);
        }
        let done = now + SimDuration::transmission(pkt.size_bytes as u64, self.rate_bps);
        self.tx_size = pkt.size_bytes;
        self.transmitting = pipes.hold(pkt);
        self.tx_started = now;
        Next::TxDone(done)
    }

    /// The transmitter finished its packet (queued mode). Returns (arrival to schedule if the
    /// pipe was empty before, the next transmission's completion if one started).
    #[inline]
    pub fn on_tx_done<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &mut PipeSlab,
        mut hook: Option<&mut H>,
    ) -> (Next, Next) {
        let mut arrival = Next::Nothing;
        let node = std::mem::replace(&mut self.transmitting, NodeRef::NONE);
        if node != NodeRef::NONE {
            self.tx_packets += 1;
            self.tx_bytes += self.tx_size as u64;
            if self.loss > 0.0 && self.loss_rng.uniform() < self.loss {
                self.lost_on_wire += 1;
                pipes.free(node);
            } else {
                let at = now + self.delay;
                if self.pipe.is_empty() {
                    arrival = Next::Arrive(at);
                }
                pipes.append(&mut self.pipe, node, at);
            }
        }
        let next = self.start_next(now, pipes, hook.as_deref_mut());
        if let Some(h) = hook {
            h.queue(now, self.qdisc.len_pkts() as u64);
        }
        (arrival, next)
    }

    /// Detaches the slab node at the head of the pipe (its arrival event fired), leaving the
    /// packet in it: the caller hands it on (`offer_node`) or releases it. Returns the node and
    /// the arrival time of the next one, if any, to schedule.
    #[inline]
    pub fn take_arrival<H: LinkHook + ?Sized>(
        &mut self,
        now: SimTime,
        pipes: &mut PipeSlab,
        hook: Option<&mut H>,
    ) -> Option<(NodeRef, Option<SimTime>)> {
        if let Some(f) = self.fifo.as_ref() {
            // A glue link's cursor must pass the head before it leaves (it started long ago,
            // but no arrival has moved the cursor since).
            if f.glue && f.cursor == f.popped && f.cursor < f.pushed {
                self.advance_glue(now, pipes, hook);
            }
        }
        let taken = pipes.unlink_front(&mut self.pipe)?;
        if let Some(f) = self.fifo.as_mut() {
            f.popped += 1;
        }
        Some(taken)
    }

    /// The link's queueing counters at `now` (arrivals, drops, marks per reason; per flow
    /// except on a bypassing plain FIFO, which keeps none). On a glue FIFO they are the glue's,
    /// with the departures the cursor has not passed yet added.
    pub fn stats(&self, now: SimTime, pipes: &PipeSlab) -> Cow<'_, QdiscStats> {
        match &self.fifo {
            Some(f) if f.glue => {
                let v = self.view(f, now, pipes);
                let mut st = self.qdisc.stats().clone();
                st.dequeued = st.enqueued - v.waiting;
                st.dequeued_bytes = f.enqueued_bytes - v.waiting_bytes;
                Cow::Owned(st)
            }
            Some(f) => {
                let v = self.view(f, now, pipes);
                let mut st = QdiscStats {
                    arrivals: f.pushed + f.overflows,
                    arrival_bytes: f.arrival_bytes,
                    enqueued: f.pushed,
                    dequeued: f.pushed - v.waiting,
                    dequeued_bytes: f.enqueued_bytes - v.waiting_bytes,
                    ..QdiscStats::default()
                };
                st.dropped_before_enqueue[Reason::Overflow as usize] = f.overflows;
                Cow::Owned(st)
            }
            None => Cow::Borrowed(self.qdisc.stats()),
        }
    }

    /// One flow's counters here (zero on a bypassing plain FIFO).
    pub fn flow_counters(&self, flow: FlowId) -> FlowCounters {
        match &self.fifo {
            Some(f) if !f.glue => FlowCounters::default(),
            _ => self.qdisc.stats().flow_counters(flow),
        }
    }

    /// Counters at `now`, consistent with each other: arrivals = dequeued + drops + backlog.
    pub fn counters(&self, now: SimTime, pipes: &PipeSlab) -> LinkCounters {
        let st = self.stats(now, pipes);
        match &self.fifo {
            None => LinkCounters {
                arrivals: st.arrivals,
                enqueued: st.enqueued,
                dequeued: st.dequeued,
                drops: st.drops(),
                marks: st.marks(),
                backlog: self.qdisc.len_pkts() as u64,
                in_flight: self.nodes_held() as u64,
                tx_packets: self.tx_packets,
                tx_bytes: self.tx_bytes,
                lost_on_wire: self.lost_on_wire,
            },
            Some(f) => {
                let b = self.backlog(now, pipes);
                let (waiting, started) = (b.waiting, self.pipe.len() - b.waiting);
                let unsent_bytes =
                    b.waiting_bytes + b.sending.iter().map(|&(size, _)| size as u64).sum::<u64>();
                let dequeued = st.enqueued - waiting as u64;
                LinkCounters {
                    arrivals: st.arrivals,
                    enqueued: st.enqueued,
                    dequeued,
                    drops: st.drops(),
                    marks: st.marks(),
                    backlog: waiting as u64,
                    in_flight: started as u64,
                    tx_packets: dequeued - b.sending.len() as u64,
                    tx_bytes: f.enqueued_bytes - unsent_bytes,
                    lost_on_wire: 0,
                }
            }
        }
    }

    /// Bits serialised onto the wire from the start to `now`, counting the part of a packet
    /// still being sent (`(now − start)·rate`). Utilisation over a window is the difference of
    /// two of these over `rate × window`: counting whole packets at the end of their
    /// transmission instead credits a window with all of a packet that started before it (up to
    /// one packet's bits too many, e.g. +3.4 % for 1500 bytes at 200 kbit/s over 1.7 s).
    pub fn served_bits(&self, now: SimTime, pipes: &PipeSlab) -> u128 {
        let partial = |bytes: u32, start: SimTime| -> u128 {
            let bits = bytes as u128 * 8;
            let elapsed = now.0.saturating_sub(start.0) as u128;
            (elapsed * self.rate_bps as u128 / 1_000_000_000).min(bits)
        };
        match &self.fifo {
            None => {
                let sending = self.transmitting != NodeRef::NONE;
                self.tx_bytes as u128 * 8
                    + if sending {
                        partial(self.tx_size, self.tx_started)
                    } else {
                        0
                    }
            }
            Some(f) => {
                let b = self.backlog(now, pipes);
                let unsent = b.waiting_bytes as u128 * 8
                    + b.sending
                        .iter()
                        .map(|&(size, start)| size as u128 * 8 - partial(size, start))
                        .sum::<u128>();
                f.enqueued_bytes as u128 * 8 - unsent
            }
        }
    }

    /// Slab nodes this link holds: its pipe, and the transmitter's packet (queued mode).
    pub fn nodes_held(&self) -> usize {
        self.pipe.len() + (self.transmitting != NodeRef::NONE) as usize
    }
}

/// The glue of a FIFO-arithmetic link's qdisc: present by construction (`Link::new` chose
/// the mode from it).
#[inline]
fn glue(qdisc: &mut Box<dyn Qdisc>) -> &mut dyn ArithmeticQueue {
    qdisc
        .arithmetic()
        .expect("a FIFO-arithmetic link's qdisc offers the interface it was chosen by")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multiplication shortcut gives exactly the division's result at every rate, exact
    /// or not, and is taken only where the rate divides 8·10⁹.
    #[test]
    fn tx_time_equals_the_division() {
        let rates = [
            1,
            3,
            56_000,
            1_000_000,
            1_500_000,
            2_000_000,
            10_000_000,
            45_000_000,
            100_000_000,
            155_000_000,
            622_000_000,
            1_000_000_000,
            8_000_000_000,
            10_000_000_000,
        ];
        for rate in rates {
            let k = exact_ns_per_byte(rate);
            assert_eq!(
                k != 0,
                rate >= 2 && 8_000_000_000 % rate == 0,
                "rate {rate}"
            );
            for size in [
                0u32,
                1,
                40,
                52,
                576,
                1000,
                1040,
                1500,
                9000,
                65_535,
                1 << 20,
            ] {
                assert_eq!(
                    tx_time(size, rate, k),
                    SimDuration::transmission(size as u64, rate),
                    "rate {rate}, size {size}"
                );
            }
        }
        assert_eq!(exact_ns_per_byte(10_000_000), 800);
        assert_eq!(exact_ns_per_byte(155_000_000), 0);
    }
}
