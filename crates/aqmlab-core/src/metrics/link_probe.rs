//! What the recorder measures at one link, fed by the link through its hook
//! ([`LinkHook`]): the time integral of the queue length, the sojourn of every departing
//! packet (the measured link only) and the per-packet event log of a traced link.
//!
//! The link reports in time order (a FIFO-arithmetic link reports each departure when its
//! cursor passes the packet, stamped with the start of its transmission, and always before
//! anything later), so the integral is exact wherever the link has been settled
//! (`Link::settle`) up to the instant it is read.

use crate::metrics::packet_trace::{Event, PacketTrace};
use crate::metrics::DelayHistogram;
use crate::net::link_hook::LinkHook;
use crate::net::packet::Packet;
use crate::qdisc::Reason;
use crate::time::SimTime;

/// Where a departing packet's sojourn goes (`DelayHistogram::record_departure` unless a
/// benchmark swaps it).
pub type SojournHook = fn(&mut DelayHistogram, SimTime, &Packet);

/// One link's measurement state (see the module docs).
pub struct LinkProbe {
    /// Time integral of the queue length (packets × ns) up to `last_change`, and the length
    /// since then.
    area: u128,
    last_change: SimTime,
    len: u64,
    /// Sojourns of departing packets (the measured link), and the hook that records them.
    pub sojourns: Option<(DelayHistogram, SojournHook)>,
    /// The per-packet event log (`trace.links`).
    pub trace: Option<Box<PacketTrace>>,
}

impl LinkProbe {
    /// A probe that records sojourns if `sojourns`, and logs events (at most `max_events`)
    /// if `trace` is given.
    pub fn new(sojourns: bool, trace: Option<u64>) -> LinkProbe {
        LinkProbe {
            area: 0,
            last_change: SimTime::ZERO,
            len: 0,
            sojourns: sojourns.then(|| {
                let hook: SojournHook = DelayHistogram::record_departure;
                (DelayHistogram::default(), hook)
            }),
            trace: trace.map(|max| Box::new(PacketTrace::new(max))),
        }
    }

    /// Time integral of the queue length from the start to `now`, packet·ns.
    pub fn area(&self, now: SimTime) -> u128 {
        self.area + self.len as u128 * (now - self.last_change).0 as u128
    }

    /// The sojourn histogram (empty if this probe records none).
    pub fn delays(&self) -> Option<&DelayHistogram> {
        self.sojourns.as_ref().map(|(h, _)| h)
    }
}

impl LinkHook for LinkProbe {
    #[inline]
    fn queue(&mut self, now: SimTime, len: u64) {
        self.area = self.area(now);
        self.last_change = now;
        self.len = len;
    }

    #[inline]
    fn departure(&mut self, start: SimTime, pkt: &Packet) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.record(start, Event::Dequeue, None, false, pkt);
        }
        if let Some((h, hook)) = &mut self.sojourns {
            hook(h, start, pkt);
        }
    }

    #[inline]
    fn upcoming(&mut self, start: SimTime, pkt: &Packet) {
        if let Some((h, _)) = &self.sojourns {
            h.prefetch(start, pkt);
        }
    }

    #[inline]
    fn traces(&self) -> bool {
        self.trace.is_some()
    }

    fn event(
        &mut self,
        now: SimTime,
        event: Event,
        reason: Option<Reason>,
        queued: bool,
        pkt: &Packet,
    ) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.record(now, event, reason, queued, pkt);
        }
    }
}
