//! The per-packet event log a traced link keeps at its egress queue (see
//! `metrics::packet_trace` for what a trace is and the table it becomes). It lives beside the
//! link, which owns one, so the link never reaches up into the metrics that read it.

use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::qdisc::{Outcome, Qdisc, Reason};
use crate::rng::SimRng;
use crate::time::SimTime;

/// Events per traced link unless `trace.max_events` says otherwise.
pub const DEFAULT_MAX_EVENTS: u64 = 1_000_000;

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

/// One traced link's events, column by column.
#[derive(Clone, Debug, Default)]
pub struct PacketTrace {
    max_events: u64,
    /// Events past `max_events`, not recorded.
    pub dropped_events: u64,
    pub t_ns: Vec<u64>,
    pub event: Vec<Event>,
    /// The drop's or mark's reason (`None` for enqueue and dequeue).
    pub reason: Vec<Option<Reason>>,
    /// A drop of a packet that had been queued, or a mark at dequeue.
    pub queued: Vec<bool>,
    pub flow: Vec<u32>,
    pub ack: Vec<bool>,
    pub seq: Vec<u64>,
    pub size: Vec<u32>,
    pub ecn: Vec<Ecn>,
}

impl PacketTrace {
    pub fn new(max_events: u64) -> PacketTrace {
        PacketTrace {
            max_events,
            ..PacketTrace::default()
        }
    }

    /// Events recorded.
    pub fn len(&self) -> usize {
        self.t_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }

    fn record(
        &mut self,
        now: SimTime,
        event: Event,
        reason: Option<Reason>,
        queued: bool,
        p: &Packet,
    ) {
        if self.t_ns.len() as u64 >= self.max_events {
            self.dropped_events += 1;
            return;
        }
        let ack = p.kind == PacketKind::Ack;
        self.t_ns.push(now.0);
        self.event.push(event);
        self.reason.push(reason);
        self.queued.push(queued);
        self.flow.push(p.flow);
        self.ack.push(ack);
        self.seq.push(if ack { p.ack } else { p.seq });
        self.size.push(p.size_bytes);
        self.ecn.push(p.ecn);
    }

    /// A FIFO-arithmetic link's arrival and what became of it (`pkt` as it stays: CE if it
    /// was marked), logged as `enqueue` logs a queued link's.
    pub fn arrival(&mut self, now: SimTime, outcome: Outcome, pkt: &Packet) {
        match outcome {
            Outcome::Enqueued => self.record(now, Event::Enqueue, None, false, pkt),
            Outcome::Marked(r) => {
                self.record(now, Event::Mark, Some(r), false, pkt);
                self.record(now, Event::Enqueue, None, false, pkt);
            }
            Outcome::Dropped(r) => self.record(now, Event::Drop, Some(r), false, pkt),
        }
    }

    /// A FIFO-arithmetic link's departure, logged late (when the link's cursor passes it) with
    /// the time its transmission started.
    pub fn departure(&mut self, start: SimTime, pkt: &Packet) {
        self.record(start, Event::Dequeue, None, false, pkt);
    }

    /// The events in time order (a FIFO-arithmetic link logs departures late); events at the
    /// same instant keep the order they were logged in.
    pub(crate) fn sort_by_time(&mut self) {
        if self.t_ns.is_sorted() {
            return;
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by_key(|&i| self.t_ns[i]);
        fn permute<T: Copy>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&i| v[i]).collect();
        }
        permute(&mut self.t_ns, &order);
        permute(&mut self.event, &order);
        permute(&mut self.reason, &order);
        permute(&mut self.queued, &order);
        permute(&mut self.flow, &order);
        permute(&mut self.ack, &order);
        permute(&mut self.seq, &order);
        permute(&mut self.size, &order);
        permute(&mut self.ecn, &order);
    }

    /// `qdisc.enqueue` with every outcome recorded: the arrival's enqueue (and mark) or drop,
    /// and the queued packets it pushed out.
    pub fn enqueue(&mut self, qdisc: &mut dyn Qdisc, now: SimTime, pkt: Packet, rng: &mut SimRng) {
        let probe = pkt.clone();
        let mut pushed_out = Vec::new();
        let outcome = qdisc.enqueue_reporting(now, pkt, rng, &mut |p, r| pushed_out.push((p, r)));
        match outcome {
            Outcome::Enqueued => self.record(now, Event::Enqueue, None, false, &probe),
            Outcome::Marked(r) => {
                let marked = Packet {
                    ecn: Ecn::Ce,
                    ..probe
                };
                self.record(now, Event::Mark, Some(r), false, &marked);
                self.record(now, Event::Enqueue, None, false, &marked);
            }
            Outcome::Dropped(r) => self.record(now, Event::Drop, Some(r), false, &probe),
        }
        for (p, r) in pushed_out {
            self.record(now, Event::Drop, Some(r), true, &p);
        }
    }

    /// `qdisc.dequeue` with the packets it drops on the way out, a mark it sets on the packet it
    /// returns (seen in its mark counters), and the departure recorded.
    pub fn dequeue(
        &mut self,
        qdisc: &mut dyn Qdisc,
        now: SimTime,
        rng: &mut SimRng,
    ) -> Option<Packet> {
        let marks_before = qdisc.stats().marked;
        let mut dropped = Vec::new();
        let pkt = qdisc.dequeue(now, rng, &mut |p, r| dropped.push((p, r)));
        for (p, r) in dropped {
            self.record(now, Event::Drop, Some(r), true, &p);
        }
        let pkt = pkt?;
        let marks_after = qdisc.stats().marked;
        if let Some(r) = Reason::ALL
            .into_iter()
            .find(|&r| marks_after[r as usize] > marks_before[r as usize])
        {
            self.record(now, Event::Mark, Some(r), true, &pkt);
        }
        self.record(now, Event::Dequeue, None, false, &pkt);
        Some(pkt)
    }
}
