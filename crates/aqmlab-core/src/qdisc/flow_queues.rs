//! [`FlowQueues`]: several FIFO queues sharing one buffer limit and one set of counters.
//!
//! The machinery under the schedulers with several queues (DRR, FQ-CoDel) and under CHOKe, which
//! removes packets from inside its one queue. It owns the packets, the per-queue and total
//! byte/packet counts and the [`QdiscStats`]; the scheduler keeps only its order (DRR's ring,
//! FQ-CoDel's new/old lists, deficits) and chooses which queue to serve or to drop from.
//!
//! An arrival goes through three steps, so that conservation holds whatever the overflow rule
//! removes: [`arrive`](FlowQueues::arrive) counts it; [`push`](FlowQueues::push) queues it and
//! returns an [`Admission`]; the scheduler drops what its overflow rule says with
//! [`drop_head_of`](FlowQueues::drop_head_of); [`admit`](FlowQueues::admit) closes the
//! arrival (`Enqueued`, or `Dropped(Overflow)` if the arrival itself was dropped). A packet
//! already queued that is dropped to make room counts as a drop after enqueue and goes to the
//! caller's `pushed_out`; the arrival, when it is the victim (alone at the head of its queue),
//! counts as a drop before enqueue.

use std::collections::VecDeque;

use super::{apply_verdict, mark_if_allowed, BufferLimit, Outcome, QdiscStats};
use super::{Reason, Verdict};
use crate::net::packet::Packet;
use crate::time::SimTime;

/// One FIFO of a [`FlowQueues`].
#[derive(Clone, Debug, Default)]
pub struct SubQueue {
    pkts: VecDeque<Packet>,
    bytes: u64,
}

impl SubQueue {
    pub fn len(&self) -> usize {
        self.pkts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }
    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn front(&self) -> Option<&Packet> {
        self.pkts.front()
    }
    /// The packet at position `idx` from the head.
    pub fn get(&self, idx: usize) -> Option<&Packet> {
        self.pkts.get(idx)
    }
}

/// An arrival between [`FlowQueues::push`] and [`FlowQueues::admit`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use = "close the arrival with FlowQueues::admit"]
pub struct Admission {
    /// The queue the arrival joined.
    pub queue: usize,
    /// The overflow rule dropped the arrival itself.
    pub dropped: bool,
}

/// N FIFO queues, one shared limit, one [`QdiscStats`].
pub struct FlowQueues {
    queues: Vec<SubQueue>,
    len_pkts: usize,
    len_bytes: u64,
    limit: BufferLimit,
    /// Whether `Signal` verdicts may mark ECN-capable packets instead of dropping them.
    ecn: bool,
    stats: QdiscStats,
}

impl FlowQueues {
    /// `n` empty queues. Each grows on demand: no buffer is preallocated to the limit, so a
    /// link with a large limit that never fills costs no memory for it.
    pub fn new(n: usize, limit: BufferLimit, ecn: bool) -> FlowQueues {
        FlowQueues {
            queues: (0..n).map(|_| SubQueue::default()).collect(),
            len_pkts: 0,
            len_bytes: 0,
            limit,
            ecn,
            stats: QdiscStats::default(),
        }
    }

    /// Adds an empty queue and returns its index (schedulers with one queue per flow).
    pub fn add_queue(&mut self) -> usize {
        self.queues.push(SubQueue::default());
        self.queues.len() - 1
    }

    pub fn queue(&self, i: usize) -> &SubQueue {
        &self.queues[i]
    }
    pub fn len_pkts(&self) -> usize {
        self.len_pkts
    }
    pub fn len_bytes(&self) -> u64 {
        self.len_bytes
    }
    pub fn stats(&self) -> &QdiscStats {
        &self.stats
    }

    /// The total is above the limit (checked after an arrival was pushed).
    pub fn over_limit(&self) -> bool {
        match self.limit {
            BufferLimit::Packets(n) => self.len_pkts > n as usize,
            BufferLimit::Bytes(b) => self.len_bytes > b,
        }
    }

    /// Adding a packet of `size` bytes would overflow (checked before pushing it).
    pub fn would_overflow(&self, size: u32) -> bool {
        self.limit
            .would_overflow(self.len_pkts, self.len_bytes, size)
    }

    /// Index of the queue with the most bytes (the first such index on ties).
    pub fn fattest(&self) -> usize {
        let mut best = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.bytes > self.queues[best].bytes {
                best = i;
            }
        }
        best
    }

    /// Counts an arriving packet (first step of every arrival).
    pub fn arrive(&mut self, pkt: &Packet) {
        self.stats.on_arrival(pkt);
    }

    /// The counters, for the FIFO-arithmetic glue (`SingleQueue`), which holds no packets and
    /// so counts without the conservation check against this queue's length.
    pub(super) fn stats_mut(&mut self) -> &mut QdiscStats {
        &mut self.stats
    }

    /// Drops the arrival before it is queued.
    pub fn reject(&mut self, pkt: &Packet, reason: Reason) -> Outcome {
        self.stats.on_drop_before_enqueue(pkt, reason);
        self.debug_check();
        Outcome::Dropped(reason)
    }

    /// CE-marks the arrival (ECN on and the packet ECN-capable); false if it cannot be marked.
    pub fn mark(&mut self, pkt: &mut Packet, reason: Reason) -> bool {
        mark_if_allowed(&mut self.stats, self.ecn, pkt, reason)
    }

    /// Applies an algorithm's verdict on the arrival: `None` if it goes on (a `Signal` marked
    /// it when it could), else the reason to [`reject`](FlowQueues::reject) it with.
    pub fn apply(&mut self, pkt: &mut Packet, verdict: Verdict) -> Option<Reason> {
        apply_verdict(&mut self.stats, self.ecn, pkt, verdict)
    }

    pub fn limit(&self) -> BufferLimit {
        self.limit
    }

    /// Timestamps the arrival and appends it to queue `i`.
    pub fn push(&mut self, i: usize, now: SimTime, mut pkt: Packet) -> Admission {
        pkt.enqueued = now;
        let sz = pkt.size_bytes as u64;
        let q = &mut self.queues[i];
        q.pkts.push_back(pkt);
        q.bytes += sz;
        self.len_pkts += 1;
        self.len_bytes += sz;
        Admission {
            queue: i,
            dropped: false,
        }
    }

    /// Drops the head of queue `i` to make room for `adm`'s arrival, counting it (the arrival
    /// itself is the head when it is alone in its queue). Returns true if queue `i` is now empty.
    pub fn drop_head_of(
        &mut self,
        i: usize,
        adm: &mut Admission,
        reason: Reason,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> bool {
        // The arrival is at the tail of its queue: it is the head only when alone.
        let is_arrival = i == adm.queue && self.queues[i].len() == 1 && !adm.dropped;
        let head = self.pop(i).expect("the victim queue is not empty");
        if is_arrival {
            adm.dropped = true;
            self.stats.on_drop_before_enqueue(&head, reason);
        } else {
            self.stats.on_drop_after_dequeue(&head, reason);
            pushed_out(head, reason);
        }
        self.queues[i].is_empty()
    }

    /// Closes an arrival: counts it as enqueued unless the overflow rule dropped it. `outcome` is
    /// what an arrival that stayed is reported as (`Enqueued` or `Marked`).
    pub fn admit(&mut self, adm: Admission, outcome: Outcome) -> Outcome {
        let out = if adm.dropped {
            Outcome::Dropped(Reason::Overflow)
        } else {
            // Counted last, so that conservation holds whichever packets the overflow removed.
            self.stats.on_enqueue();
            outcome
        };
        self.debug_check();
        out
    }

    /// Removes the packet at position `idx` of queue `i` (CHOKe's matched victim) as a drop.
    pub fn remove(
        &mut self,
        i: usize,
        idx: usize,
        reason: Reason,
        pushed_out: &mut dyn FnMut(Packet, Reason),
    ) {
        let q = &mut self.queues[i];
        if let Some(victim) = q.pkts.remove(idx) {
            q.bytes -= victim.size_bytes as u64;
            self.len_pkts -= 1;
            self.len_bytes -= victim.size_bytes as u64;
            self.stats.on_drop_after_dequeue(&victim, reason);
            pushed_out(victim, reason);
        }
    }

    /// Sends the head of queue `i` (no algorithm asked).
    pub fn take(&mut self, i: usize) -> Option<Packet> {
        let pkt = self.pop(i)?;
        self.stats.on_dequeue(&pkt);
        self.debug_check();
        Some(pkt)
    }

    /// Sends the head of queue `i` that `decide(packet, the queue behind it)` lets through:
    /// dropped packets go to `dropped` (counted after dequeue), a `Signal` marks when it can.
    /// `None` when the queue ran out.
    pub fn dequeue_from(
        &mut self,
        i: usize,
        dropped: &mut dyn FnMut(Packet, Reason),
        mut decide: impl FnMut(&Packet, &SubQueue) -> Verdict,
    ) -> Option<Packet> {
        while !self.queues[i].is_empty() {
            if let Some(pkt) = self.serve_head(i, dropped, &mut decide) {
                return Some(pkt);
            }
        }
        None
    }

    /// One step of [`dequeue_from`](FlowQueues::dequeue_from): the head of queue `i` is sent
    /// (`Some`) or dropped to `dropped` (`None`; also `None` if the queue is empty). For
    /// schedulers that choose the queue again after every drop (DualPI2).
    pub fn serve_head<F: FnMut(&Packet, &SubQueue) -> Verdict>(
        &mut self,
        i: usize,
        dropped: &mut dyn FnMut(Packet, Reason),
        decide: &mut F,
    ) -> Option<Packet> {
        let mut pkt = self.pop(i)?;
        let verdict = decide(&pkt, &self.queues[i]);
        match apply_verdict(&mut self.stats, self.ecn, &mut pkt, verdict) {
            None => {
                self.stats.on_dequeue(&pkt);
                self.debug_check();
                Some(pkt)
            }
            Some(r) => {
                self.stats.on_drop_after_dequeue(&pkt, r);
                self.debug_check();
                dropped(pkt, r);
                None
            }
        }
    }

    /// Removes the head of queue `i`, keeping the byte and packet counts (not the stats).
    fn pop(&mut self, i: usize) -> Option<Packet> {
        let q = &mut self.queues[i];
        let p = q.pkts.pop_front()?;
        q.bytes -= p.size_bytes as u64;
        self.len_pkts -= 1;
        self.len_bytes -= p.size_bytes as u64;
        Some(p)
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(
            self.stats.conserved(self.len_pkts),
            "qdisc conservation violated: {:?}",
            self.stats
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(id: u64, flow: u32, size: u32) -> Packet {
        Packet {
            id,
            flow,
            size_bytes: size,
            ..Default::default()
        }
    }

    /// Arrive, push, overflow drops, admit: counts and conservation, and the arrival counted
    /// before enqueue only when it is the victim.
    #[test]
    fn overflow_drop_counts_and_conserves() {
        let mut q = FlowQueues::new(2, BufferLimit::Packets(2), false);
        let mut out = Vec::new();
        for (id, flow, size) in [(0, 0, 1000), (1, 0, 1000), (2, 1, 100)] {
            let p = pkt(id, flow, size);
            q.arrive(&p);
            let mut adm = q.push(flow as usize, SimTime(0), p);
            while q.over_limit() {
                let fat = q.fattest();
                q.drop_head_of(fat, &mut adm, Reason::Overflow, &mut |p, _| out.push(p.id));
            }
            assert_eq!(q.admit(adm, Outcome::Enqueued), Outcome::Enqueued);
        }
        assert_eq!(out, vec![0], "the head of the fattest queue went");
        assert_eq!((q.len_pkts(), q.len_bytes()), (2, 1100));
        assert!(q.stats().conserved(2));
        // A lone arrival in the fattest queue is itself dropped (before enqueue).
        let p = pkt(3, 1, 5000);
        q.arrive(&p);
        let mut adm = q.push(1, SimTime(0), p);
        // Queue 1 now holds 100 + 5000 bytes: fattest, its head is packet 2, not the arrival.
        let fat = q.fattest();
        assert!(!q.drop_head_of(fat, &mut adm, Reason::Overflow, &mut |_, _| {}));
        assert_eq!(q.admit(adm, Outcome::Enqueued), Outcome::Enqueued);
        let p = pkt(4, 0, 1);
        let mut q1 = FlowQueues::new(1, BufferLimit::Packets(0), false);
        q1.arrive(&p);
        let mut adm = q1.push(0, SimTime(0), p);
        assert!(q1.drop_head_of(0, &mut adm, Reason::Overflow, &mut |_, _| panic!()));
        assert_eq!(
            q1.admit(adm, Outcome::Enqueued),
            Outcome::Dropped(Reason::Overflow)
        );
        assert!(q1.stats().conserved(0));
    }

    /// `dequeue_from` drops what the decision drops and sends the first packet it passes.
    #[test]
    fn dequeue_from_applies_verdicts() {
        let mut q = FlowQueues::new(1, BufferLimit::Packets(10), false);
        for id in 0..3 {
            let p = pkt(id, 0, 100);
            q.arrive(&p);
            let adm = q.push(0, SimTime(0), p);
            let _ = q.admit(adm, Outcome::Enqueued);
        }
        let mut dropped = Vec::new();
        let got = q.dequeue_from(0, &mut |p, r| dropped.push((p.id, r)), |p, rest| {
            assert_eq!(rest.bytes(), 100 * (2 - p.id));
            if p.id == 0 {
                Verdict::Signal(Reason::Sojourn) // not ECN: dropped
            } else {
                Verdict::Pass
            }
        });
        assert_eq!(got.map(|p| p.id), Some(1));
        assert_eq!(dropped, vec![(0, Reason::Sojourn)]);
        assert!(q.stats().conserved(1));
    }
}
