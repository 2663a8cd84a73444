//! Test harness: one sender and one receiver joined by a two-way pipe with a fixed one-way
//! delay, an optional data-direction bottleneck (FIFO, unlimited buffer) and a scripted fate for
//! each data packet (pass, drop, CE-mark). A tiny discrete-event loop pops the earliest of: data
//! arrival, ACK arrival, sender timer, receiver timer (ties in that order).

use std::collections::VecDeque;

use crate::net::packet::{Ecn, Packet};
use crate::time::{SimDuration, SimTime};

use super::{Receiver, Sender, TcpConfig};

/// What happens to a data packet on the way.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Pass,
    Drop,
    /// Set CE if ECN-capable, else drop (what an AQM does).
    Mark,
}

/// A data packet as the sender emitted it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub t: SimTime,
    pub seq: u64,
    pub pkt: Packet,
}

pub type FateFn = Box<dyn FnMut(&Packet, SimTime) -> Fate>;

pub struct Wire {
    pub sender: Sender,
    pub receiver: Receiver,
    pub now: SimTime,
    pub delay: SimDuration,
    pub rate_bps: Option<u64>,
    pub fate: FateFn,
    /// Record every data packet in `sent`.
    pub record: bool,
    pub sent: Vec<Sent>,
    pub dropped: u64,
    link_free: SimTime,
    to_rx: VecDeque<(SimTime, Packet)>,
    to_tx: VecDeque<(SimTime, Packet)>,
    buf: Vec<Packet>,
}

impl Wire {
    pub fn new(cfg: &TcpConfig, delay: SimDuration) -> Wire {
        Wire {
            sender: Sender::new(1, cfg),
            receiver: Receiver::new(1, cfg),
            now: SimTime::ZERO,
            delay,
            rate_bps: None,
            fate: Box::new(|_, _| Fate::Pass),
            record: true,
            sent: Vec::new(),
            dropped: 0,
            link_free: SimTime::ZERO,
            to_rx: VecDeque::new(),
            to_tx: VecDeque::new(),
            buf: Vec::new(),
        }
    }

    /// Drops the first transmission of each listed segment.
    pub fn drop_first_tx_of(&mut self, seqs: &[u64]) {
        let mut pending: Vec<u64> = seqs.to_vec();
        self.fate = Box::new(move |p, _| {
            if let Some(i) = pending.iter().position(|&s| s == p.seq) {
                pending.swap_remove(i);
                Fate::Drop
            } else {
                Fate::Pass
            }
        });
    }

    pub fn start(&mut self, segments: Option<u64>) {
        let mut buf = std::mem::take(&mut self.buf);
        self.sender.start(self.now, segments, &mut |p| buf.push(p));
        self.launch(&mut buf);
        self.buf = buf;
    }

    fn launch(&mut self, buf: &mut Vec<Packet>) {
        for mut p in buf.drain(..) {
            if self.record {
                self.sent.push(Sent {
                    t: self.now,
                    seq: p.seq,
                    pkt: p.clone(),
                });
            }
            match (self.fate)(&p, self.now) {
                Fate::Pass => {}
                Fate::Drop => {
                    self.dropped += 1;
                    continue;
                }
                Fate::Mark => {
                    if p.is_ecn_capable() {
                        p.ecn = Ecn::Ce;
                    } else {
                        self.dropped += 1;
                        continue;
                    }
                }
            }
            let depart = match self.rate_bps {
                Some(r) => {
                    let begin = self.link_free.max(self.now);
                    self.link_free = begin + SimDuration::transmission(p.size_bytes as u64, r);
                    self.link_free
                }
                None => self.now,
            };
            self.to_rx.push_back((depart + self.delay, p));
        }
    }

    /// Processes the earliest event if it is at or before `t_end`; false if none.
    pub fn step(&mut self, t_end: SimTime) -> bool {
        let cands = [
            self.to_rx.front().map(|e| e.0),
            self.to_tx.front().map(|e| e.0),
            self.sender.next_timer(),
            self.receiver.next_timer(),
        ];
        let Some((which, t)) = cands
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (i, t)))
            .min_by_key(|&(i, t)| (t, i))
        else {
            return false;
        };
        if t > t_end {
            return false;
        }
        assert!(t >= self.now, "time went backwards");
        self.now = t;
        let mut buf = std::mem::take(&mut self.buf);
        match which {
            0 => {
                let (_, p) = self.to_rx.pop_front().unwrap();
                self.receiver.on_data(t, &p, &mut |a| buf.push(a));
                for a in buf.drain(..) {
                    self.to_tx.push_back((t + self.delay, a));
                }
            }
            1 => {
                let (_, a) = self.to_tx.pop_front().unwrap();
                self.sender.on_ack(t, &a, &mut |p| buf.push(p));
                self.launch(&mut buf);
            }
            2 => {
                self.sender.on_timer(t, &mut |p| buf.push(p));
                self.launch(&mut buf);
            }
            _ => {
                self.receiver.on_timer(t, &mut |a| buf.push(a));
                for a in buf.drain(..) {
                    self.to_tx.push_back((t + self.delay, a));
                }
            }
        }
        self.buf = buf;
        true
    }

    /// Runs every event up to and including `t_end`, then sets the clock to `t_end`.
    pub fn run_until(&mut self, t_end: SimTime) {
        while self.step(t_end) {}
        self.now = self.now.max(t_end);
    }

    /// Data packets sent at exactly `t`.
    pub fn sent_at(&self, t: SimTime) -> usize {
        self.sent.iter().filter(|s| s.t == t).count()
    }
}
