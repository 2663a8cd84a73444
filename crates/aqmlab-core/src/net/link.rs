//! A one-way link at run time: an egress qdisc, a transmitter, and a propagation pipe.
//!
//! Packets on a link never overtake each other, so the packets in flight live in a FIFO ring
//! (`pipe`) and only the head of it has an event in the simulator's queue. With the transmitter's
//! own completion event that is at most two events per link, however many packets are in flight:
//! the event heap stays O(links + timers) instead of O(packets in flight).

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::net::topology::{LinkRole, LinkSpec, NodeId};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

pub struct Link {
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub role: LinkRole,
    pub qdisc: Box<dyn Qdisc>,
    /// The qdisc's random stream.
    pub rng: SimRng,
    loss: f64,
    loss_rng: SimRng,
    /// The packet being serialised, if any.
    transmitting: Option<Packet>,
    /// Packets propagating, with their arrival time at `to`, in order.
    pipe: VecDeque<(SimTime, Packet)>,
    /// Counters: packets/bytes that finished transmission, packets lost on the wire.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub lost_on_wire: u64,
    /// Sojourn times of departing packets are reported to this hook when set (bottleneck only).
    pub on_depart: Option<fn(&mut crate::metrics::DelayHistogram, SimTime, &Packet)>,
    pub delay_hist: crate::metrics::DelayHistogram,
}

impl Link {
    /// A link as `spec` describes it, with its built qdisc and its two random streams.
    pub fn new(spec: &LinkSpec, qdisc: Box<dyn Qdisc>, rng: SimRng, loss_rng: SimRng) -> Link {
        Link {
            to: spec.to,
            rate_bps: spec.rate_bps,
            delay: spec.delay,
            role: spec.role.clone(),
            qdisc,
            rng,
            loss: spec.loss,
            loss_rng,
            transmitting: None,
            pipe: VecDeque::new(),
            tx_packets: 0,
            tx_bytes: 0,
            lost_on_wire: 0,
            on_depart: None,
            delay_hist: crate::metrics::DelayHistogram::default(),
        }
    }

    /// Offers a packet to the egress queue. Returns the time the transmitter will finish if it
    /// was idle and started on a packet (the caller schedules that completion).
    #[inline]
    pub fn offer(&mut self, now: SimTime, pkt: Packet) -> Option<SimTime> {
        self.qdisc.enqueue(now, pkt, &mut self.rng);
        if self.transmitting.is_none() {
            self.start_next(now)
        } else {
            None
        }
    }

    /// Dequeues the next packet and starts serialising it; returns when that will finish.
    #[inline]
    fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        let pkt = self.qdisc.dequeue(now, &mut self.rng, &mut |_, _| {})?;
        if let Some(hook) = self.on_depart {
            hook(&mut self.delay_hist, now, &pkt);
        }
        let done = now + SimDuration::transmission(pkt.size_bytes as u64, self.rate_bps);
        self.transmitting = Some(pkt);
        Some(done)
    }

    /// The transmitter finished its packet. Returns (arrival time to schedule if the pipe was
    /// empty before, completion time of the next transmission if one started).
    #[inline]
    pub fn on_tx_done(&mut self, now: SimTime) -> (Option<SimTime>, Option<SimTime>) {
        let mut arrival = None;
        if let Some(pkt) = self.transmitting.take() {
            self.tx_packets += 1;
            self.tx_bytes += pkt.size_bytes as u64;
            if self.loss > 0.0 && self.loss_rng.uniform() < self.loss {
                self.lost_on_wire += 1;
            } else {
                let at = now + self.delay;
                if self.pipe.is_empty() {
                    arrival = Some(at);
                }
                self.pipe.push_back((at, pkt));
            }
        }
        (arrival, self.start_next(now))
    }

    /// Takes the packet at the head of the pipe (its arrival event fired). Returns it and the
    /// arrival time of the next one, if any, to schedule.
    #[inline]
    pub fn take_arrival(&mut self) -> Option<(Packet, Option<SimTime>)> {
        let (_, pkt) = self.pipe.pop_front()?;
        Some((pkt, self.pipe.front().map(|(t, _)| *t)))
    }

    /// Packets on the wire or being transmitted (not in the queue).
    pub fn in_flight(&self) -> usize {
        self.pipe.len() + self.transmitting.is_some() as usize
    }
}
