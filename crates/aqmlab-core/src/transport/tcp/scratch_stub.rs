// THROWAWAY: compile-check only; never committed.
use super::TcpConfig;
use crate::net::packet::{Packet, PacketKind};
use crate::time::{SimDuration, SimTime};
#[derive(Default, Clone)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub completed_at: Option<SimTime>,
}
pub struct Sender {
    flow: u32,
    next: u64,
    una: u64,
    cwnd: u64,
    mss: u32,
    stats: SenderStats,
    rto_at: Option<SimTime>,
}
impl Sender {
    pub fn new(flow: u32, cfg: &TcpConfig) -> Self {
        Sender {
            flow,
            next: 0,
            una: 0,
            cwnd: 10,
            mss: cfg.mss,
            stats: Default::default(),
            rto_at: None,
        }
    }
    fn pump(&mut self, now: SimTime, emit: &mut dyn FnMut(Packet)) {
        while self.next < self.una + self.cwnd {
            emit(Packet {
                flow: self.flow,
                kind: PacketKind::Data,
                seq: self.next,
                size_bytes: self.mss,
                ts: now,
                created: now,
                ..Default::default()
            });
            self.next += 1;
            self.stats.segments_sent += 1;
        }
        self.rto_at = Some(now + SimDuration::from_secs(1));
    }
    pub fn start(&mut self, now: SimTime, _limit: Option<u64>, emit: &mut dyn FnMut(Packet)) {
        self.pump(now, emit)
    }
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, emit: &mut dyn FnMut(Packet)) {
        if ack.ack > self.una {
            self.una = ack.ack;
        }
        self.pump(now, emit)
    }
    pub fn on_timer(&mut self, now: SimTime, emit: &mut dyn FnMut(Packet)) {
        self.next = self.una;
        self.stats.timeouts += 1;
        self.pump(now, emit)
    }
    pub fn next_timer(&self) -> Option<SimTime> {
        self.rto_at
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
}
pub struct Receiver {
    flow: u32,
    expect: u64,
    ack_size: u32,
}
impl Receiver {
    pub fn new(flow: u32, cfg: &TcpConfig) -> Self {
        Receiver {
            flow,
            expect: 0,
            ack_size: cfg.ack_size,
        }
    }
    pub fn on_data(&mut self, now: SimTime, p: &Packet, emit: &mut dyn FnMut(Packet)) {
        if p.seq == self.expect {
            self.expect += 1;
        }
        emit(Packet {
            flow: self.flow,
            kind: PacketKind::Ack,
            ack: self.expect,
            size_bytes: self.ack_size,
            ts_echo: p.ts,
            created: now,
            ..Default::default()
        })
    }
    pub fn on_timer(&mut self, _now: SimTime, _emit: &mut dyn FnMut(Packet)) {}
    pub fn next_timer(&self) -> Option<SimTime> {
        None
    }
    pub fn delivered_segments(&self) -> u64 {
        self.expect
    }
}
