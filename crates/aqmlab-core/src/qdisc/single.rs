//! [`SingleQueue`]: one FIFO buffer driven by an [`Aqm`].

use super::{Aqm, ArithmeticQueue, Backlog, FifoArithmetic, QueueView, Reason, Verdict};
use super::{BufferLimit, FlowQueues, Outcome, Qdisc, QdiscStats, SubQueue};
use crate::net::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

/// One FIFO buffer driven by an [`Aqm`]: the glue's [`FlowQueues`] with one queue.
pub struct SingleQueue {
    q: FlowQueues,
    link_rate_bps: u64,
    aqm: Box<dyn Aqm>,
    /// `aqm.fifo_arithmetic()`, asked once: a FIFO-arithmetic link reaches its glue through
    /// `Qdisc::arithmetic` at every packet, and this spares that a second virtual call.
    fifo: FifoArithmetic,
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
            q: FlowQueues::new(1, limit, ecn),
            link_rate_bps,
            fifo: aqm.fifo_arithmetic(),
            aqm,
        }
    }
}

/// What the algorithm sees of a queue the link computes.
#[inline]
fn view_of(q: Backlog, limit: BufferLimit, link_rate_bps: u64) -> QueueView {
    QueueView {
        len_pkts: q.pkts,
        len_bytes: q.bytes,
        limit,
        link_rate_bps,
    }
}

/// What the algorithm sees of the queue.
#[inline]
fn view(q: &SubQueue, limit: BufferLimit, link_rate_bps: u64) -> QueueView {
    QueueView {
        len_pkts: q.len(),
        len_bytes: q.bytes(),
        limit,
        link_rate_bps,
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
        self.q.arrive(&pkt);
        let view = view(self.q.queue(0), self.q.limit(), self.link_rate_bps);
        let verdict = self.aqm.on_enqueue(now, &pkt, &view, rng);
        if let Some(reason) = self.q.apply(&mut pkt, verdict) {
            return self.q.reject(&pkt, reason);
        }
        let outcome = match verdict {
            Verdict::Signal(reason) => Outcome::Marked(reason),
            _ => Outcome::Enqueued,
        };
        // As in ns-3's RED and Linux: the algorithm decides first, then the buffer may still be full.
        if self.q.would_overflow(pkt.size_bytes) {
            self.aqm.on_overflow(now, &pkt, &view);
            return self.q.reject(&pkt, Reason::Overflow);
        }
        pkt.enqueued = now;
        self.aqm.relabel(&mut pkt);
        self.aqm.on_enqueued(now, &pkt);
        let adm = self.q.push(0, now, pkt);
        self.q.admit(adm, outcome)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        let (limit, rate, aqm) = (self.q.limit(), self.link_rate_bps, &mut self.aqm);
        let pkt = self.q.dequeue_from(0, dropped, |pkt, rest| {
            aqm.on_dequeue(now, pkt, &view(rest, limit, rate), rng)
        });
        if pkt.is_none() {
            self.aqm.on_empty(now);
        }
        pkt
    }

    fn len_pkts(&self) -> usize {
        self.q.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }
    fn stats(&self) -> &QdiscStats {
        self.q.stats()
    }
    fn next_timer(&self) -> Option<SimTime> {
        self.aqm.next_timer()
    }
    fn timed(&self) -> bool {
        self.aqm.timed()
    }
    fn on_timer(&mut self, now: SimTime, _rng: &mut SimRng) {
        let view = view(self.q.queue(0), self.q.limit(), self.link_rate_bps);
        self.aqm.on_timer(now, &view);
    }
    fn arithmetic(&mut self) -> Option<&mut dyn ArithmeticQueue> {
        match self.fifo {
            FifoArithmetic::Unfit => None,
            _ => Some(self),
        }
    }
    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.aqm.probe(out);
    }
    fn set_state(&mut self, name: &str, value: f64) -> bool {
        self.aqm.set_state(name, value)
    }
}

/// The same steps as `enqueue_reporting` and `dequeue`, on the queue the link computes: the
/// buffer here stays empty, the counters are the ones the queued form keeps.
impl ArithmeticQueue for SingleQueue {
    #[inline]
    fn admit(&mut self, now: SimTime, pkt: &mut Packet, q: Backlog, rng: &mut SimRng) -> Outcome {
        let (limit, rate) = (self.q.limit(), self.link_rate_bps);
        self.q.arrive(pkt);
        let view = view_of(q, limit, rate);
        let verdict = self.aqm.on_enqueue(now, pkt, &view, rng);
        if let Some(reason) = self.q.apply(pkt, verdict) {
            self.q.stats_mut().on_drop_before_enqueue(pkt, reason);
            return Outcome::Dropped(reason);
        }
        if limit.would_overflow(q.pkts, q.bytes, pkt.size_bytes) {
            self.aqm.on_overflow(now, pkt, &view);
            self.q
                .stats_mut()
                .on_drop_before_enqueue(pkt, Reason::Overflow);
            return Outcome::Dropped(Reason::Overflow);
        }
        pkt.enqueued = now;
        self.aqm.relabel(pkt);
        self.aqm.on_enqueued(now, pkt);
        self.q.stats_mut().on_enqueue();
        match verdict {
            Verdict::Signal(reason) => Outcome::Marked(reason),
            _ => Outcome::Enqueued,
        }
    }

    #[inline]
    fn depart(&mut self, start: SimTime, pkt: &Packet, rest: Backlog, rng: &mut SimRng) {
        self.q.stats_mut().on_dequeue(pkt);
        let view = view_of(rest, self.q.limit(), self.link_rate_bps);
        let verdict = self.aqm.on_dequeue(start, pkt, &view, rng);
        debug_assert_eq!(
            verdict,
            Verdict::Pass,
            "an arrival-only algorithm passes departures"
        );
    }

    fn idle(&mut self, at: SimTime) {
        self.aqm.on_empty(at);
    }

    fn timer(&mut self, now: SimTime, q: Backlog) {
        let view = view_of(q, self.q.limit(), self.link_rate_bps);
        self.aqm.on_timer(now, &view);
    }

    fn plain(&self) -> bool {
        self.fifo == FifoArithmetic::Plain
    }
}
