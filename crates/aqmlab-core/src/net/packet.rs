//! The packet: what the network moves and what AQMs look at.
//!
//! One struct for data and ACKs, small and `Copy`-free on purpose (moved, never cloned, through
//! queues and links). Besides the usual header fields it carries the labels the papers put in
//! headers: an RTT label (GREEN-Embedded: sender's smoothed RTT; Chablis: sender's lowest RTT)
//! and a rate label (CSFQ).

use crate::time::{SimDuration, SimTime};

/// Index of a flow in the scenario (dense, from 0).
pub type FlowId = u32;

/// ECN codepoint in the IP header (RFC 3168).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0) (RFC 3168).
    Ect,
    /// ECN-capable transport, ECT(1): an L4S sender (RFC 9331).
    Ect1,
    /// Congestion experienced (marked by a router).
    Ce,
}

impl Ecn {
    /// ECT(0) for an ECN-capable (classic RFC 3168) sender, Not-ECT otherwise.
    pub fn ect0_if(capable: bool) -> Ecn {
        if capable {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }
}

/// Data segment or acknowledgement.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    Data,
    Ack,
}

#[derive(Clone, Debug, Default)]
pub struct Packet {
    /// Unique per run, in creation order.
    pub id: u64,
    pub flow: FlowId,
    pub kind: PacketKind,
    /// Data: segment number (ns-2 style, counted in packets from 0). Unused for ACKs.
    pub seq: u64,
    /// ACK: the next segment expected (cumulative). Unused for data.
    pub ack: u64,
    /// Bytes on the wire (headers included).
    pub size_bytes: u32,
    pub ecn: Ecn,
    /// TCP ECN-Echo flag (receiver -> sender: a CE mark was seen).
    pub ece: bool,
    /// TCP Congestion Window Reduced flag (sender -> receiver: the window was reduced).
    pub cwr: bool,
    /// Sender timestamp (data) — echoed by the receiver in `ts_echo` of the ACK, so the sender
    /// measures RTT on every ACK as ns-2's agents do with timestamps.
    pub ts: SimTime,
    pub ts_echo: SimTime,
    /// When the packet was created at its source.
    pub created: SimTime,
    /// When it entered the queue it is in (set by the qdisc; for sojourn times).
    pub enqueued: SimTime,
    /// RTT label written by the sender; zero: no label (a path has a positive RTT, and both
    /// label readers, GREEN and Chablis, treat a zero label as none). Not an `Option`: that
    /// would add 8 bytes to every packet, and packets in flight are most of a run's memory.
    pub rtt_label: SimDuration,
    /// Rate label in bit/s (CSFQ); 0 when unset.
    pub rate_label_bps: f64,
    /// Index of the next link on the packet's path (source routing, set by the network).
    pub hop: u16,
    /// ACK: selective-acknowledgement blocks (RFC 2018), empty unless the flow runs SACK.
    pub sack: SackBlocks,
}

/// Up to three SACK blocks (RFC 2018 fits three beside the timestamp option), each the
/// half-open segment range `[start, end)` stored as 16-bit offsets above the ACK's cumulative
/// `ack`: every packet carries the field, and at 14 bytes it keeps `Packet` at 104 bytes (a
/// 28-byte form measurably slowed the benchmarks: docs/performance.md). A block beyond 65 535
/// segments above the cumulative ACK (a window no scenario here comes near) is not reported.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u16, u16); SackBlocks::MAX],
}

impl SackBlocks {
    /// Blocks an ACK carries at most.
    pub const MAX: usize = 3;

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `[start, end)` (absolute segment numbers above `ack`); ignored when full, empty,
    /// not above `ack` (the receiver never reports data below its cumulative ACK) or out of the
    /// 16-bit range (the end is clipped to it).
    pub fn push(&mut self, ack: u64, start: u64, end: u64) {
        let off = |x: u64| u16::try_from(x - ack).unwrap_or(u16::MAX);
        if (self.len as usize) < Self::MAX && start > ack && end > start {
            let (s, e) = (off(start), off(end));
            if s < e {
                self.blocks[self.len as usize] = (s, e);
                self.len += 1;
            }
        }
    }

    /// The blocks as absolute `[start, end)` ranges, in the order the receiver wrote them (the
    /// first holds the segment that triggered the ACK, RFC 2018 §4).
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.len as usize]
            .iter()
            .map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }
}

impl Packet {
    pub fn is_ecn_capable(&self) -> bool {
        self.ecn != Ecn::NotEct
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_round_trip_and_stay_small() {
        let mut b = SackBlocks::default();
        assert!(b.is_empty());
        b.push(100, 103, 105);
        b.push(100, 100, 102); // not above the cumulative ACK
        b.push(100, 110, 110); // empty
        b.push(100, 107, 109);
        b.push(100, 200_000, 200_001); // beyond 16 bits
        b.push(100, 120, 121);
        b.push(100, 130, 131); // a fourth block: full
        assert_eq!(
            b.iter(100).collect::<Vec<_>>(),
            vec![(103, 105), (107, 109), (120, 121)]
        );
        assert!(std::mem::size_of::<Packet>() <= 104);
    }
}
