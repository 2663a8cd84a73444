//! [`SingleQueue`]: one FIFO buffer driven by an [`Aqm`].

use std::collections::VecDeque;

use super::{apply_verdict, mark_if_allowed, BufferLimit, Outcome, Qdisc, QdiscStats};
use crate::aqm::{Aqm, QueueView, Reason, Verdict};
use crate::net::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

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
                if mark_if_allowed(&mut self.stats, self.ecn, &mut pkt, reason) {
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
            match apply_verdict(&mut self.stats, self.ecn, &mut pkt, verdict) {
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
}
