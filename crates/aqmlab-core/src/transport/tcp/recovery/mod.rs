//! Loss recovery: what the sender does from the loss its duplicate ACKs reveal until it leaves
//! fast recovery. One file per variant; the closed enum [`AnyRecovery`] dispatches with a
//! `match` (no box, no virtual call per ACK), as smoltcp's `AnyController`.
//!
//! - [`tahoe`]: ns-2's base `Agent/TCP`: fast retransmit, then `cwnd = 1` and slow start
//!   (go-back-N from the hole), no fast recovery.
//! - [`reno`]: RFC 5681 fast retransmit / fast recovery; leaves on the first new ACK.
//! - [`newreno`]: RFC 6582; a partial ACK retransmits the next hole and stays in recovery.
//! - [`sack`]: RFC 6675 over RFC 2018 blocks: a scoreboard, `IsLost`, `pipe` and `NextSeg`.
//!
//! How far the window backs off on the loss is the congestion controller's decision
//! (`super::congestion`); a variant here sets `cwnd` on entry (inflated by the duplicate ACKs for
//! Reno/NewReno, `ssthresh` for SACK), chooses what to send in recovery, and handles partial ACKs.
//! The sender keeps what every variant shares ([`Conn`]: sequence space, window, timers,
//! counters) and calls these hooks.

pub mod newreno;
pub mod reno;
pub mod sack;
pub mod tahoe;

pub use newreno::NewReno;
pub use reno::Reno;
pub use sack::Sack;
pub use tahoe::Tahoe;

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::sender::{Conn, Response};
use super::Variant;

/// The hooks of a loss-recovery variant. `Conn` is the sender's shared state; the sender has
/// already updated it (`snd_una`, counters, `ssthresh`) before each call.
pub(super) trait Recovery {
    /// Every valid ACK, before it is processed (SACK reads its blocks).
    fn on_ack_received(&mut self, _conn: &Conn, _pkt: &Packet) {}

    /// `n` segments are about to be acknowledged cumulatively (`snd_una` has not moved yet,
    /// `in_recovery` is still the state before this ACK).
    fn on_cumulative_ack(&mut self, _conn: &Conn, _n: u64) {}

    /// Whether the receiver is known to hold `seq` (resending after a timeout skips it).
    fn is_sacked(&self, _snd_una: u64, _seq: u64) -> bool {
        false
    }

    /// Whether the duplicate ACKs so far reveal a loss: the `dupack_threshold`-th one
    /// (RFC 5681 §3.2 step 2).
    fn loss_detected(&self, conn: &Conn) -> bool {
        conn.dupacks == conn.dupack_threshold
    }

    /// Whether the duplicate ACKs acknowledge past the last recovery point, so that they may
    /// start a new recovery. RFC 6582 §3.2 step 1 (Reno and NewReno): only when the cumulative
    /// ACK "covers more than recover", `recover` being the highest segment sent at the last
    /// fast retransmit or timeout (`conn.recover` is one past it): an ACK of exactly `recover`
    /// acknowledges "all of the data up to and including recover" (the full ACK of step 4),
    /// not more, and its duplicates come from segments resent needlessly after a timeout
    /// (RFC 6582 §4); ns-2 (`highest_ack_ > recover_`) and Linux (`tcp_try_undo_recovery`
    /// holds the state until something above `high_seq` is acknowledged) agree. Before any
    /// congestion response `recover` is the initial sequence number, below every data segment.
    fn past_recovery_point(&self, conn: &Conn) -> bool {
        conn.snd_una > conn.recover || conn.last_response == Response::None
    }

    /// Enter fast recovery: `ssthresh` and `recover` are set, `in_recovery` is true; set `cwnd`
    /// and retransmit `snd_una`.
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F);

    /// A duplicate ACK while in recovery.
    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        emit: &mut F,
    );

    /// An ACK of new data below `recover` while in recovery (`snd_una` has moved, `newly`
    /// segments acknowledged). Returns `true` if the variant stays in recovery (it has sent what
    /// it needs); `false` leaves recovery as on a full ACK.
    fn on_partial_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        _conn: &mut Conn,
        _now: SimTime,
        _newly: u64,
        _emit: &mut F,
    ) -> bool {
        false
    }

    /// The retransmission timer expired (recovery is abandoned).
    fn on_timeout(&mut self, _conn: &Conn) {}
}

/// The loss-recovery variants.
#[derive(Clone, Debug)]
pub(super) enum AnyRecovery {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
}

macro_rules! dispatch {
    ($self:expr, $r:ident => $call:expr) => {
        match $self {
            AnyRecovery::Tahoe($r) => $call,
            AnyRecovery::Reno($r) => $call,
            AnyRecovery::NewReno($r) => $call,
            AnyRecovery::Sack($r) => $call,
        }
    };
}

impl AnyRecovery {
    pub fn new(variant: Variant) -> AnyRecovery {
        match variant {
            Variant::Tahoe => AnyRecovery::Tahoe(Tahoe),
            Variant::Reno => AnyRecovery::Reno(Reno),
            Variant::NewReno => AnyRecovery::NewReno(NewReno::default()),
            Variant::Sack => AnyRecovery::Sack(Sack::default()),
        }
    }
}

impl Recovery for AnyRecovery {
    fn on_ack_received(&mut self, conn: &Conn, pkt: &Packet) {
        dispatch!(self, r => r.on_ack_received(conn, pkt))
    }
    fn on_cumulative_ack(&mut self, conn: &Conn, n: u64) {
        dispatch!(self, r => r.on_cumulative_ack(conn, n))
    }
    fn is_sacked(&self, snd_una: u64, seq: u64) -> bool {
        dispatch!(self, r => r.is_sacked(snd_una, seq))
    }
    fn loss_detected(&self, conn: &Conn) -> bool {
        dispatch!(self, r => r.loss_detected(conn))
    }
    fn past_recovery_point(&self, conn: &Conn) -> bool {
        dispatch!(self, r => r.past_recovery_point(conn))
    }
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        dispatch!(self, r => r.enter(conn, now, emit))
    }
    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        emit: &mut F,
    ) {
        dispatch!(self, r => r.on_dup_ack(conn, now, emit))
    }
    fn on_partial_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        newly: u64,
        emit: &mut F,
    ) -> bool {
        dispatch!(self, r => r.on_partial_ack(conn, now, newly, emit))
    }
    fn on_timeout(&mut self, conn: &Conn) {
        dispatch!(self, r => r.on_timeout(conn))
    }
}
