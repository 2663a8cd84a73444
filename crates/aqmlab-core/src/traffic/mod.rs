//! Traffic: what each flow's application does on top of its transport.
//!
//! - `tcp`: an FTP-like bulk transfer (unlimited), or a finite one of `packets` segments.
//! - `web`: a web-like flow (paper 003 §3): fetch `web.segments` segments; when the transfer is
//!   acknowledged, record its transfer delay, reset to slow start and fetch again (after an
//!   optional think time). One TCP connection is reused, as the paper did to avoid collapsing
//!   the simulator with connection set-ups.
//! - `udp_cbr`: constant bit rate, unresponsive (paper 003 §3.2, `cbr = { rate, packet_bytes }`).
//! - `pareto_onoff`: ns-2's Pareto on/off source (paper 000 experiment 2).
//!
//! Every flow is active over one or more intervals: by default `[start, start + duration)`
//! (duration unlimited unless given); `active = [["0s", "40s"], ["80s", "120s"]]` lists them
//! explicitly (paper 004's load changes). Leaving an interval stops new data (a TCP sender
//! still retransmits what is outstanding); entering the next one resumes, a TCP sender in slow
//! start as after an idle period (RFC 5681 §4.1).

use crate::net::packet::{FlowId, Packet};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::{Receiver, Sender, SenderStats, TcpConfig};
use crate::transport::udp::{Cbr, CbrConfig, ParetoConfig, ParetoOnOff};

/// A flow's sending side.
pub enum Source {
    Tcp {
        sender: Sender,
        limit: Option<u64>,
    },
    Web {
        sender: Sender,
        segments: u64,
        think: SimDuration,
        fetch_started: SimTime,
        next_fetch: Option<SimTime>,
    },
    Cbr(Cbr),
    Pareto(ParetoOnOff),
}

/// A flow's receiving side.
pub enum Sink {
    Tcp(Receiver),
    Udp { packets: u64, bytes: u64 },
}

/// One completed web transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transfer {
    pub flow: FlowId,
    pub start: SimTime,
    pub duration: SimDuration,
}

static NO_STATS: SenderStats = SenderStats {
    segments_sent: 0,
    retransmits: 0,
    timeouts: 0,
    timeouts_after_ecn: 0,
    fast_retransmits: 0,
    partial_acks: 0,
    ecn_reductions: 0,
    acks_received: 0,
    dup_acks: 0,
    rtt_samples: 0,
    completed_at: None,
    completions: 0,
};

impl Source {
    /// A TCP source; `rng` is the flow's own stream (send delays of `tcp.overhead`).
    pub fn tcp(flow: FlowId, cfg: &TcpConfig, limit: Option<u64>, rng: SimRng) -> Source {
        Source::Tcp {
            sender: Sender::new(flow, cfg).with_rng(rng),
            limit,
        }
    }
    pub fn web(
        flow: FlowId,
        cfg: &TcpConfig,
        segments: u64,
        think: SimDuration,
        rng: SimRng,
    ) -> Source {
        Source::Web {
            sender: Sender::new(flow, cfg).with_rng(rng),
            segments,
            think,
            fetch_started: SimTime::ZERO,
            next_fetch: None,
        }
    }
    pub fn cbr(flow: FlowId, cfg: &CbrConfig) -> Source {
        Source::Cbr(Cbr::new(flow, cfg))
    }
    pub fn pareto(flow: FlowId, cfg: &ParetoConfig, rng: SimRng) -> Source {
        Source::Pareto(ParetoOnOff::new(flow, cfg, rng))
    }

    /// Enters an activity interval. `first`: the flow has never run before.
    pub fn on<F: FnMut(Packet)>(&mut self, now: SimTime, first: bool, emit: &mut F) {
        match self {
            Source::Tcp { sender, limit } => {
                if first {
                    sender.start(now, *limit, emit);
                } else if limit.is_none() {
                    sender.restart_slow_start();
                    sender.resume_unlimited(now, emit);
                }
            }
            Source::Web {
                sender,
                segments,
                fetch_started,
                next_fetch,
                ..
            } => {
                if !first {
                    sender.restart_slow_start();
                }
                *fetch_started = now;
                *next_fetch = None;
                if first {
                    sender.start(now, Some(*segments), emit);
                } else {
                    // A fetch cut off by the previous `off` is abandoned; a fresh one starts.
                    sender.add_segments(now, *segments, emit);
                }
            }
            Source::Cbr(c) => c.start(now, emit),
            Source::Pareto(p) => p.start(now, emit),
        }
    }

    /// Leaves an activity interval: no new data from now on.
    pub fn off(&mut self) {
        match self {
            Source::Tcp { sender, .. } => sender.stop_new_data(),
            Source::Web {
                sender, next_fetch, ..
            } => {
                sender.stop_new_data();
                *next_fetch = None;
            }
            Source::Cbr(c) => c.stop(),
            Source::Pareto(p) => p.stop(),
        }
    }

    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            Source::Tcp { sender, .. } => sender.next_timer(),
            Source::Web {
                sender, next_fetch, ..
            } => match (sender.next_timer(), *next_fetch) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            Source::Cbr(c) => c.next_send(),
            Source::Pareto(p) => p.next_send(),
        }
    }

    pub fn on_timer<F: FnMut(Packet)>(&mut self, now: SimTime, emit: &mut F) {
        match self {
            Source::Tcp { sender, .. } => sender.on_timer(now, emit),
            Source::Web {
                sender,
                segments,
                fetch_started,
                next_fetch,
                ..
            } => {
                if sender.next_timer().is_some_and(|t| t <= now) {
                    sender.on_timer(now, emit);
                }
                if next_fetch.is_some_and(|t| t <= now) {
                    *next_fetch = None;
                    *fetch_started = now;
                    sender.restart_slow_start();
                    sender.add_segments(now, *segments, emit);
                }
            }
            Source::Cbr(c) => c.on_timer(now, emit),
            Source::Pareto(p) => p.on_timer(now, emit),
        }
    }

    /// An ACK arrived. Returns a completed web transfer, if this ACK completed one.
    pub fn on_ack<F: FnMut(Packet)>(
        &mut self,
        now: SimTime,
        ack: &Packet,
        emit: &mut F,
    ) -> Option<Transfer> {
        match self {
            Source::Tcp { sender, .. } => {
                sender.on_ack(now, ack, emit);
                None
            }
            Source::Web {
                sender,
                segments,
                think,
                fetch_started,
                next_fetch,
            } => {
                let was_complete = sender.is_complete();
                sender.on_ack(now, ack, emit);
                if was_complete || !sender.is_complete() || sender.is_stopped() {
                    return None;
                }
                let done = Transfer {
                    flow: sender.flow(),
                    start: *fetch_started,
                    duration: now - *fetch_started,
                };
                if think.0 == 0 {
                    *fetch_started = now;
                    sender.restart_slow_start();
                    sender.add_segments(now, *segments, emit);
                } else {
                    *next_fetch = Some(now + *think);
                }
                Some(done)
            }
            Source::Cbr(_) | Source::Pareto(_) => None,
        }
    }

    /// TCP sender statistics (zeros for UDP sources).
    /// The TCP sender of a `tcp` or `web` source.
    pub fn sender_mut(&mut self) -> Option<&mut Sender> {
        match self {
            Source::Tcp { sender, .. } | Source::Web { sender, .. } => Some(sender),
            _ => None,
        }
    }

    pub fn tcp_stats(&self) -> &SenderStats {
        match self {
            Source::Tcp { sender, .. } | Source::Web { sender, .. } => sender.stats(),
            _ => &NO_STATS,
        }
    }

    /// Packets sent so far (TCP: segments including retransmissions).
    pub fn packets_sent(&self) -> u64 {
        match self {
            Source::Tcp { sender, .. } | Source::Web { sender, .. } => sender.stats().segments_sent,
            Source::Cbr(c) => c.stats().packets_sent,
            Source::Pareto(p) => p.stats().packets_sent,
        }
    }
}

impl Sink {
    pub fn on_data<F: FnMut(Packet)>(&mut self, now: SimTime, pkt: &Packet, emit: &mut F) {
        match self {
            Sink::Tcp(r) => r.on_data(now, pkt, emit),
            Sink::Udp { packets, bytes } => {
                *packets += 1;
                *bytes += pkt.size_bytes as u64;
            }
        }
    }

    pub fn next_timer(&self) -> Option<SimTime> {
        match self {
            Sink::Tcp(r) => r.next_timer(),
            Sink::Udp { .. } => None,
        }
    }

    pub fn on_timer<F: FnMut(Packet)>(&mut self, now: SimTime, emit: &mut F) {
        if let Sink::Tcp(r) = self {
            r.on_timer(now, emit);
        }
    }

    /// Unique data delivered to the application so far, bytes (TCP: in-order segments × mss).
    pub fn delivered_bytes(&self, mss: u32) -> u64 {
        match self {
            Sink::Tcp(r) => r.delivered_segments() * mss as u64,
            Sink::Udp { bytes, .. } => *bytes,
        }
    }
}
