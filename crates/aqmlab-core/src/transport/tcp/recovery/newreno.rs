//! NewReno (RFC 6582; ns-2 `Agent/TCP/Newreno`): Reno's entry and inflation, but recovery lasts
//! until the whole window outstanding at the loss is acknowledged (an ACK `>= recover`). A
//! partial ACK retransmits the next hole, deflates `cwnd` by the amount acknowledged and adds one
//! back (ns-2 `partial_window_deflation_ = 1`), and re-arms the timer only on the first partial
//! ACK of a recovery (RFC 6582 "Impatient" variant, ns-2 `newreno_changes1_ = 1`).

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::sender::Conn;
use super::reno::{enter_inflated, inflate};
use super::Recovery;

#[derive(Copy, Clone, Debug, Default)]
pub struct NewReno {
    /// The first partial ACK of this recovery has re-armed the timer.
    first_partial_seen: bool,
}

impl Recovery for NewReno {
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        self.first_partial_seen = false;
        enter_inflated(conn, now, emit);
    }

    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        emit: &mut F,
    ) {
        inflate(conn, now, emit);
    }

    /// RFC 6582 §3.2 step 3.
    fn on_partial_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        newly: u64,
        emit: &mut F,
    ) -> bool {
        conn.stats.partial_acks += 1;
        conn.win.cwnd = if conn.behave.fractional_recovery_window {
            // ns-2 `partialnewack`: deflate dupwnd_ first (adding one back), then cwnd_.
            if conn.dupwnd > newly {
                conn.dupwnd -= newly - 1;
            } else {
                conn.recovery_cwnd -= (newly - conn.dupwnd) as f64;
                conn.dupwnd = 1;
            }
            conn.recovery_cwnd = conn.recovery_cwnd.max(1.0);
            conn.recovery_cwnd.floor() + conn.dupwnd as f64
        } else {
            deflate_partial(conn.win.cwnd, newly)
        };
        if !self.first_partial_seen {
            self.first_partial_seen = true;
            conn.arm_timer(now);
        }
        let hole = conn.snd_una;
        conn.transmit(now, hole, emit);
        conn.send_much(now, &|_, _| false, emit);
        true
    }
}

/// NewReno partial-ACK window deflation (RFC 6582 §3.2 step 3, ns-2
/// `partial_window_deflation_ = 1`): deflate by the amount newly acknowledged, add back one
/// segment (for the retransmission the partial ACK triggers), never below 1.
pub fn deflate_partial(cwnd: f64, newly_acked: u64) -> f64 {
    (cwnd - newly_acked as f64 + 1.0).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_deflation() {
        // cwnd 13 (ssthresh 10 + 3), a partial ACK of 2 segments: 13 - 2 + 1 = 12.
        assert_eq!(deflate_partial(13.0, 2), 12.0);
        assert_eq!(deflate_partial(3.0, 10), 1.0);
    }
}
