//! The TCP receiver: ns-2's `Agent/TCPSink` and `Agent/TCPSink/DelAck`, sans-IO.
//!
//! Sources: RFC 5681 §4.2 (ACK generation), RFC 3168 §6.1.3 (ECE/CWR), ns-2 `tcp-sink.cc`.
//!
//! - Cumulative ACKs: the ACK field is the next segment expected (`rcv_nxt`). Every data packet
//!   is answered with an ACK echoing its timestamp (`ts_echo = ts`), except that with
//!   `delayed_ack` an in-order segment that leaves no gap, arriving while no ACK is held, is held
//!   until a second segment arrives or `delack_interval` passes (ns-2 `DelAckSink`: the ACK then
//!   echoes the timestamp of the packet that triggers it, or the held one on timeout).
//!   Out-of-order segments, segments that fill a gap and duplicates are ACKed at once
//!   (RFC 5681: "SHOULD send an immediate ACK"; ns-2 `RFC2581_immediate_ack_`).
//! - Out-of-order segments are remembered in a ring of flags indexed from `rcv_nxt`, so the
//!   steady state allocates nothing (the ring keeps its capacity, bounded by the window).
//! - ECN: with `ecn`, after a CE-marked packet every ACK carries ECE until a packet with CWR
//!   arrives (a packet carrying both CWR and CE sets ECE again: CWR is applied first).
//! - DCTCP (`cc = "dctcp"`, RFC 8257 §3.2): ECE is set on exactly the ACKs of CE-marked
//!   packets and CWR is ignored. With delayed ACKs, a packet whose CE state differs from the
//!   held ACK's first sends that held ACK at once with the old state (the two-state machine of
//!   RFC 8257 Figure 1), so the sender can count marked bytes exactly.
//! - ACKs are `ack_size` bytes, Not-ECT (RFC 3168 §6.1.4: pure ACKs are not ECN-capable).
//! - SACK (`variant = "sack"`, RFC 2018 §4): each ACK sent while segments wait above a hole
//!   carries up to three blocks. The first is the run of buffered segments holding the segment
//!   that triggered the ACK; the rest repeat the most recently reported runs that still exist,
//!   so every run is reported in at least three successive ACKs (RFC 2018's rule). The
//!   receiver never reneges (ns-2's sinks do not either).

use std::collections::VecDeque;

use crate::net::packet::{Ecn, FlowId, Packet, PacketKind, SackBlocks};
use crate::time::{SimDuration, SimTime};

use super::{CongestionControl, TcpConfig, Variant};

/// Counters of one receiver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    /// Data packets received (duplicates included).
    pub data_received: u64,
    /// Data packets that carried segments already received.
    pub duplicates: u64,
    /// Data packets that arrived above a gap.
    pub out_of_order: u64,
    /// CE-marked data packets.
    pub ce_received: u64,
    /// ACKs emitted.
    pub acks_sent: u64,
}

/// A cumulative-ACK receiver, optionally with delayed ACKs.
pub struct Receiver {
    // ** Configured
    flow: FlowId,
    ack_size: u32,
    delayed_ack: bool,
    delack_interval: SimDuration,
    ecn: bool,
    /// RFC 8257 per-packet echo instead of RFC 3168's echo-until-CWR.
    dctcp: bool,
    sack: bool,
    // ** Maintained
    /// Next segment expected in order (= unique in-order segments delivered).
    rcv_nxt: u64,
    /// `ooo[i]`: segment `rcv_nxt + i` has arrived. Empty when there is no gap; otherwise
    /// `ooo[0]` is false (the hole) and the last entry true.
    ooo: VecDeque<bool>,
    /// A segment inside each SACK block of the last ACK, most recent first (RFC 2018 §4).
    recent_blocks: [Option<u64>; SackBlocks::MAX],
    /// Echo ECE on ACKs (a CE was seen and no CWR since).
    ece: bool,
    /// A held (delayed) ACK: its deadline and the timestamp it will echo.
    held: Option<(SimTime, SimTime)>,
    stats: ReceiverStats,
}

impl Receiver {
    pub fn new(flow: FlowId, cfg: &TcpConfig) -> Receiver {
        Receiver {
            flow,
            ack_size: cfg.ack_size,
            delayed_ack: cfg.delayed_ack,
            delack_interval: cfg.delack_interval,
            ecn: cfg.ecn,
            dctcp: cfg.cc == CongestionControl::Dctcp,
            sack: cfg.variant == Variant::Sack,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            recent_blocks: [None; SackBlocks::MAX],
            ece: false,
            held: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Processes a data packet; emits zero or one ACK.
    pub fn on_data<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, pkt: &Packet, emit: &mut F) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        self.stats.data_received += 1;
        if self.ecn && self.dctcp {
            let ce = pkt.ecn == Ecn::Ce;
            if ce {
                self.stats.ce_received += 1;
            }
            if ce != self.ece {
                // RFC 8257 §3.2: the CE state changed; a held ACK goes out first, echoing the
                // old state for the packets it covers.
                if let Some((_, ts)) = self.held.take() {
                    self.send_ack(now, ts, None, emit);
                }
                self.ece = ce;
            }
        } else if self.ecn {
            if pkt.cwr {
                self.ece = false;
            }
            if pkt.ecn == Ecn::Ce {
                self.ece = true;
                self.stats.ce_received += 1;
            }
        }
        let had_gap = !self.ooo.is_empty();
        let seq = pkt.seq;
        let in_order = seq == self.rcv_nxt;
        if seq < self.rcv_nxt {
            self.stats.duplicates += 1;
        } else if in_order {
            self.advance();
        } else {
            let idx = (seq - self.rcv_nxt) as usize;
            if idx >= self.ooo.len() {
                self.ooo.resize(idx + 1, false);
            }
            if self.ooo[idx] {
                self.stats.duplicates += 1;
            } else {
                self.ooo[idx] = true;
                self.stats.out_of_order += 1;
            }
        }

        if self.delayed_ack && in_order && !had_gap && self.held.is_none() {
            self.held = Some((now + self.delack_interval, pkt.ts));
            return;
        }
        self.held = None;
        let trigger = (seq > self.rcv_nxt).then_some(seq);
        self.send_ack(now, pkt.ts, trigger, emit);
    }

    /// The run of buffered segments around `seq` as `[start, end)`, if `seq` is buffered.
    fn run_around(&self, seq: u64) -> Option<(u64, u64)> {
        let idx = usize::try_from(seq.checked_sub(self.rcv_nxt)?).ok()?;
        if !*self.ooo.get(idx)? {
            return None;
        }
        let mut lo = idx;
        while lo > 0 && self.ooo[lo - 1] {
            lo -= 1;
        }
        let mut hi = idx + 1;
        while hi < self.ooo.len() && self.ooo[hi] {
            hi += 1;
        }
        Some((self.rcv_nxt + lo as u64, self.rcv_nxt + hi as u64))
    }

    /// The SACK blocks of the next ACK (RFC 2018 §4): the run holding `trigger` first, then
    /// the runs of the previous ACK's blocks that remain, most recent first.
    /// Inlined: most ACKs carry no blocks (no SACK, or nothing out of order).
    #[inline(always)]
    fn sack_blocks(&mut self, trigger: Option<u64>) -> SackBlocks {
        if !self.sack || self.ooo.is_empty() {
            self.recent_blocks = [None; SackBlocks::MAX];
            return SackBlocks::default();
        }
        self.sack_runs(trigger)
    }

    /// `sack_blocks` with segments out of order.
    #[inline(never)]
    fn sack_runs(&mut self, trigger: Option<u64>) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        let mut runs: [Option<(u64, u64)>; SackBlocks::MAX] = [None; SackBlocks::MAX];
        let mut n = 0;
        let candidates = trigger
            .into_iter()
            .chain(self.recent_blocks.into_iter().flatten());
        for seq in candidates {
            if n == SackBlocks::MAX {
                break;
            }
            if let Some(run) = self.run_around(seq) {
                if !runs[..n].contains(&Some(run)) {
                    runs[n] = Some(run);
                    n += 1;
                }
            }
        }
        if n == 0 {
            // Nothing recent survives (e.g. after the delayed-ACK timer): report the lowest run.
            let first = self
                .ooo
                .iter()
                .position(|&b| b)
                .map(|i| self.rcv_nxt + i as u64);
            runs[0] = first.and_then(|s| self.run_around(s));
        }
        for (slot, run) in self.recent_blocks.iter_mut().zip(runs) {
            *slot = run.map(|(start, _)| start);
            if let Some((start, end)) = run {
                blocks.push(self.rcv_nxt, start, end);
            }
        }
        blocks
    }

    /// Segment `rcv_nxt` arrived: move past it and every buffered segment that follows.
    fn advance(&mut self) {
        self.rcv_nxt += 1;
        if !self.ooo.is_empty() {
            self.ooo.pop_front(); // the hole just filled
            while self.ooo.front() == Some(&true) {
                self.ooo.pop_front();
                self.rcv_nxt += 1;
            }
            // The ring is either empty or starts at the next hole.
            debug_assert!(self.ooo.front() != Some(&true));
        }
    }

    /// Fires the delayed-ACK timer; call when `now >= next_timer()`.
    pub fn on_timer<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        if let Some((deadline, ts)) = self.held {
            if now >= deadline {
                self.held = None;
                self.send_ack(now, ts, None, emit);
            }
        }
    }

    /// The delayed-ACK deadline, if an ACK is held.
    pub fn next_timer(&self) -> Option<SimTime> {
        self.held.map(|(d, _)| d)
    }

    /// Unique in-order segments delivered so far.
    pub fn delivered_segments(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    fn send_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        now: SimTime,
        ts_echo: SimTime,
        trigger: Option<u64>,
        emit: &mut F,
    ) {
        self.stats.acks_sent += 1;
        let sack = self.sack_blocks(trigger);
        emit(Packet {
            flow: self.flow,
            kind: PacketKind::Ack,
            ack: self.rcv_nxt,
            size_bytes: self.ack_size,
            ecn: Ecn::NotEct,
            ece: self.ece,
            ts: now,
            ts_echo,
            created: now,
            sack,
            ..Packet::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, ts_ms: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            seq,
            size_bytes: 1000,
            ts: SimTime(ts_ms * 1_000_000),
            ..Packet::default()
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// Feeds `pkts` at time `t` and returns the ACK numbers emitted.
    fn feed(r: &mut Receiver, t: SimTime, pkts: &[Packet]) -> Vec<Packet> {
        let mut out = Vec::new();
        for p in pkts {
            r.on_data(t, p, &mut |a| out.push(a));
        }
        out
    }

    #[test]
    fn cumulative_acks_with_gap_and_fill() {
        let cfg = TcpConfig::default();
        let mut r = Receiver::new(7, &cfg);
        let acks = feed(
            &mut r,
            at(1),
            &[data(0, 0), data(1, 0), data(3, 0), data(4, 0), data(2, 0)],
        );
        let nums: Vec<u64> = acks.iter().map(|a| a.ack).collect();
        // 0 -> 1, 1 -> 2, 3 -> dup 2, 4 -> dup 2, 2 fills the gap -> 5.
        assert_eq!(nums, vec![1, 2, 2, 2, 5]);
        assert_eq!(r.delivered_segments(), 5);
        assert_eq!(r.stats().out_of_order, 2);
        let a = &acks[0];
        assert_eq!(a.flow, 7);
        assert_eq!(a.kind, PacketKind::Ack);
        assert_eq!(a.size_bytes, 40);
        assert_eq!(a.created, at(1));
        assert_eq!(a.id, 0);
    }

    #[test]
    fn duplicates_are_acked_and_not_delivered_twice() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let acks = feed(
            &mut r,
            at(1),
            &[data(0, 0), data(0, 0), data(2, 0), data(2, 0)],
        );
        let nums: Vec<u64> = acks.iter().map(|a| a.ack).collect();
        assert_eq!(nums, vec![1, 1, 1, 1]);
        assert_eq!(r.stats().duplicates, 2);
        assert_eq!(r.delivered_segments(), 1);
    }

    #[test]
    fn echoes_the_timestamp_of_the_triggering_packet() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let acks = feed(&mut r, at(50), &[data(0, 10), data(1, 20)]);
        assert_eq!(acks[0].ts_echo, at(10));
        assert_eq!(acks[1].ts_echo, at(20));
        assert_eq!(acks[1].ts, at(50));
    }

    #[test]
    fn ece_from_ce_until_cwr() {
        let cfg = TcpConfig {
            ecn: true,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &cfg);
        let mut ce = data(1, 0);
        ce.ecn = Ecn::Ce;
        let mut cwr = data(3, 0);
        cwr.cwr = true;
        let mut cwr_ce = data(4, 0);
        cwr_ce.cwr = true;
        cwr_ce.ecn = Ecn::Ce;
        let acks = feed(
            &mut r,
            at(1),
            &[data(0, 0), ce, data(2, 0), cwr, data(5, 0), cwr_ce],
        );
        let ece: Vec<bool> = acks.iter().map(|a| a.ece).collect();
        assert_eq!(ece, vec![false, true, true, false, false, true]);
        assert_eq!(r.stats().ce_received, 2);
        assert!(acks.iter().all(|a| a.ecn == Ecn::NotEct));

        // Without ECN negotiated, CE is not echoed.
        let mut plain = Receiver::new(0, &TcpConfig::default());
        let mut ce0 = data(0, 0);
        ce0.ecn = Ecn::Ce;
        assert!(!feed(&mut plain, at(1), &[ce0])[0].ece);
    }

    #[test]
    fn dctcp_echoes_ce_per_packet_with_the_delayed_ack_state_machine() {
        let ce = |seq| {
            let mut p = data(seq, seq);
            p.ecn = Ecn::Ce;
            p
        };
        let mut cwr = data(2, 2);
        cwr.cwr = true;
        let cfg = TcpConfig {
            ecn: true,
            cc: CongestionControl::Dctcp,
            ..TcpConfig::default()
        };
        // Immediate ACKs: ECE mirrors each packet's CE; CWR does not clear anything.
        let mut r = Receiver::new(0, &cfg);
        let acks = feed(&mut r, at(1), &[data(0, 0), ce(1), cwr, ce(3), ce(4)]);
        let ece: Vec<bool> = acks.iter().map(|a| a.ece).collect();
        assert_eq!(ece, vec![false, true, false, true, true]);
        assert_eq!(r.stats().ce_received, 3);

        // Delayed ACKs (one per two packets): 0, 1 unmarked → one ACK (ack 2, no ECE);
        // 2 unmarked is held, 3 marked flips the state: the held ACK for 2 goes out at once
        // without ECE, then 3 is held; 4 marked completes the pair: ACK 5 with ECE; 5 unmarked
        // is held and flushed by 6's CE: ACK 6 without ECE; 6 held until the timer: ECE.
        let mut r = Receiver::new(
            0,
            &TcpConfig {
                delayed_ack: true,
                ..cfg.clone()
            },
        );
        let acks = feed(
            &mut r,
            at(1),
            &[
                data(0, 0),
                data(1, 1),
                data(2, 2),
                ce(3),
                ce(4),
                data(5, 5),
                ce(6),
            ],
        );
        let got: Vec<(u64, bool)> = acks.iter().map(|a| (a.ack, a.ece)).collect();
        assert_eq!(got, vec![(2, false), (3, false), (5, true), (6, false)]);
        let mut out = Vec::new();
        r.on_timer(at(500), &mut |a| out.push((a.ack, a.ece)));
        assert_eq!(out, vec![(7, true)]);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_timeout() {
        let cfg = TcpConfig {
            delayed_ack: true,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &cfg);
        // Segment 0 is held.
        assert!(feed(&mut r, at(0), &[data(0, 0)]).is_empty());
        assert_eq!(r.next_timer(), Some(at(100)));
        // Segment 1 releases one ACK for both, echoing segment 1's timestamp.
        let acks = feed(&mut r, at(5), &[data(1, 3)]);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].ack, 2);
        assert_eq!(acks[0].ts_echo, at(3));
        assert_eq!(r.next_timer(), None);
        // Segment 2 alone: held until the 100 ms timer, which echoes its timestamp.
        assert!(feed(&mut r, at(10), &[data(2, 7)]).is_empty());
        let mut out = Vec::new();
        r.on_timer(at(109), &mut |a| out.push(a));
        assert!(out.is_empty(), "timer fired early");
        r.on_timer(at(110), &mut |a| out.push(a));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 3);
        assert_eq!(out[0].ts_echo, at(7));
        assert_eq!(r.next_timer(), None);
        // Out-of-order is ACKed at once, and so is the segment that fills the gap.
        assert_eq!(feed(&mut r, at(200), &[data(4, 0)]).len(), 1);
        let fill = feed(&mut r, at(201), &[data(3, 0)]);
        assert_eq!(fill.len(), 1);
        assert_eq!(fill[0].ack, 5);
        assert_eq!(r.stats().acks_sent, 4);
    }

    fn blocks(a: &Packet) -> Vec<(u64, u64)> {
        a.sack.iter(a.ack).collect()
    }

    #[test]
    fn sack_blocks_follow_rfc2018() {
        let cfg = TcpConfig {
            variant: Variant::Sack,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &cfg);
        let acks = feed(
            &mut r,
            at(1),
            &[
                data(0, 0),
                data(1, 0),
                data(3, 0),
                data(4, 0),
                data(6, 0),
                data(8, 0),
            ],
        );
        let got: Vec<Vec<(u64, u64)>> = acks.iter().map(blocks).collect();
        assert_eq!(
            got,
            vec![
                vec![],
                vec![],
                vec![(3, 4)],
                vec![(3, 5)],
                // The triggering run first, then the most recently reported.
                vec![(6, 7), (3, 5)],
                vec![(8, 9), (6, 7), (3, 5)],
            ]
        );
        // Segment 10 pushes the oldest run out of the three slots; 2 fills the first hole,
        // so the cumulative ACK moves to 5 and only runs above it remain.
        let acks = feed(&mut r, at(2), &[data(10, 0), data(2, 0)]);
        assert_eq!(blocks(&acks[0]), vec![(10, 11), (8, 9), (6, 7)]);
        assert_eq!(acks[1].ack, 5);
        assert_eq!(blocks(&acks[1]), vec![(10, 11), (8, 9), (6, 7)]);
        // Filling everything leaves no blocks.
        let acks = feed(&mut r, at(3), &[data(5, 0), data(7, 0), data(9, 0)]);
        assert_eq!(acks.last().unwrap().ack, 11);
        assert!(acks.last().unwrap().sack.is_empty());
        // Without SACK negotiated, no blocks at all.
        let mut plain = Receiver::new(0, &TcpConfig::default());
        let acks = feed(&mut plain, at(1), &[data(0, 0), data(2, 0)]);
        assert!(acks.iter().all(|a| a.sack.is_empty()));
    }

    #[test]
    fn reorder_ring_keeps_its_capacity() {
        let mut r = Receiver::new(0, &TcpConfig::default());
        let mut sink = |_p: Packet| {};
        // Warm up: a gap of 30 segments.
        for s in 1..=30 {
            r.on_data(at(0), &data(s, 0), &mut sink);
        }
        r.on_data(at(0), &data(0, 0), &mut sink);
        assert_eq!(r.delivered_segments(), 31);
        let cap = r.ooo.capacity();
        // Many more gaps of the same size: no growth.
        for round in 1..100u64 {
            let base = round * 31;
            for s in 1..=30 {
                r.on_data(at(0), &data(base + s, 0), &mut sink);
            }
            r.on_data(at(0), &data(base, 0), &mut sink);
        }
        assert_eq!(r.delivered_segments(), 100 * 31);
        assert!(r.ooo.is_empty());
        assert_eq!(r.ooo.capacity(), cap);
    }
}
