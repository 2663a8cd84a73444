//! What a link reports to whoever measures it: the hook ([`LinkHook`]), the vocabulary of a
//! traced link's packet events (see `metrics::packet_trace` for what a trace is and the table it
//! becomes) and the qdisc calls that report every outcome to the hook. What is measured is the
//! recorder's (`metrics::LinkProbe`), so the link keeps none of it.

use crate::net::packet::{Ecn, Packet};
use crate::qdisc::{Outcome, Qdisc, Reason};
use crate::rng::SimRng;
use crate::time::SimTime;

/// What a link reports to whoever measures it (the run's recorder: `metrics::LinkProbe`),
/// in time order. The link keeps no measurement state of its own: every call that may move a
/// packet takes the link's hook, `None` on a link nobody measures.
pub trait LinkHook {
    /// From `now` on, `len` packets wait in the queue.
    fn queue(&mut self, now: SimTime, len: u64);
    /// `pkt` leaves the queue: its transmission starts at `start`.
    fn departure(&mut self, start: SimTime, pkt: &Packet);
    /// `pkt` is the next to leave, at `start` (a FIFO-arithmetic link knows when): a hint to
    /// start loading what its `departure` will touch. It changes nothing.
    #[inline]
    fn upcoming(&mut self, _start: SimTime, _pkt: &Packet) {}
    /// Whether the link reports each packet's fate too (`event`): a traced link.
    fn traces(&self) -> bool;
    /// A packet's fate at the queue, on a traced link: its enqueue, a drop (`queued`: of a
    /// packet that had been queued) or a mark (`queued`: at dequeue).
    fn event(
        &mut self,
        now: SimTime,
        event: Event,
        reason: Option<Reason>,
        queued: bool,
        pkt: &Packet,
    );
}

/// The hook of a run nobody measures.
impl LinkHook for () {
    fn queue(&mut self, _: SimTime, _: u64) {}
    fn departure(&mut self, _: SimTime, _: &Packet) {}
    fn traces(&self) -> bool {
        false
    }
    fn event(&mut self, _: SimTime, _: Event, _: Option<Reason>, _: bool, _: &Packet) {}
}

/// What happened to a packet (`event` column).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    Enqueue = 0,
    Dequeue = 1,
    Drop = 2,
    Mark = 3,
}

impl Event {
    pub fn key(self) -> &'static str {
        match self {
            Event::Enqueue => "enqueue",
            Event::Dequeue => "dequeue",
            Event::Drop => "drop",
            Event::Mark => "mark",
        }
    }
}

/// An arrival and what became of it (`pkt` as it stays: CE if it was marked): its mark and
/// enqueue, or its drop.
pub fn arrival<H: LinkHook + ?Sized>(hook: &mut H, now: SimTime, outcome: Outcome, pkt: &Packet) {
    match outcome {
        Outcome::Enqueued => hook.event(now, Event::Enqueue, None, false, pkt),
        Outcome::Marked(r) => {
            hook.event(now, Event::Mark, Some(r), false, pkt);
            hook.event(now, Event::Enqueue, None, false, pkt);
        }
        Outcome::Dropped(r) => hook.event(now, Event::Drop, Some(r), false, pkt),
    }
}

/// `qdisc.enqueue` with every outcome reported: the arrival's enqueue (and mark) or drop, and
/// the queued packets it pushed out.
pub fn enqueue<H: LinkHook + ?Sized>(
    hook: &mut H,
    qdisc: &mut dyn Qdisc,
    now: SimTime,
    pkt: Packet,
    rng: &mut SimRng,
) {
    let mut seen = pkt.clone();
    let mut pushed_out = Vec::new();
    let outcome = qdisc.enqueue_reporting(now, pkt, rng, &mut |p, r| pushed_out.push((p, r)));
    if let Outcome::Marked(_) = outcome {
        seen.ecn = Ecn::Ce;
    }
    arrival(hook, now, outcome, &seen);
    for (p, r) in pushed_out {
        hook.event(now, Event::Drop, Some(r), true, &p);
    }
}

/// `qdisc.dequeue` with the packets it drops on the way out and a mark it sets on the packet
/// it returns (seen in its mark counters) reported; the departure itself is the caller's to
/// report (`LinkHook::departure`).
pub fn dequeue<H: LinkHook + ?Sized>(
    hook: &mut H,
    qdisc: &mut dyn Qdisc,
    now: SimTime,
    rng: &mut SimRng,
) -> Option<Packet> {
    let marks_before = qdisc.stats().marked;
    let mut dropped = Vec::new();
    let pkt = qdisc.dequeue(now, rng, &mut |p, r| dropped.push((p, r)));
    for (p, r) in dropped {
        hook.event(now, Event::Drop, Some(r), true, &p);
    }
    let pkt = pkt?;
    let marks_after = qdisc.stats().marked;
    if let Some(r) = Reason::ALL
        .into_iter()
        .find(|&r| marks_after[r as usize] > marks_before[r as usize])
    {
        hook.event(now, Event::Mark, Some(r), true, &pkt);
    }
    Some(pkt)
}
