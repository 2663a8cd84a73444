//! The sender's response to ECN-Echo (RFC 3168 §6.1.2, ns-2 `ecn()`): one reduction per
//! window, down to one segment, then holding new data and backing the timer off.

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::congestion;
use super::{Response, Sender};

impl Sender {
    /// Reduces the window if this ACK's ECN-Echo is a new congestion signal; true if it did.
    /// Inlined: most ACKs carry no ECN-Echo, and those are done with one test.
    #[inline(always)]
    pub(super) fn respond_to_ece(&mut self, now: SimTime, pkt: &Packet) -> bool {
        if !(self.conn.ecn && pkt.ece) {
            return false;
        }
        self.respond_to_echo(now, pkt)
    }

    /// `respond_to_ece` for an ACK with ECN-Echo on an ECN connection.
    #[inline(never)]
    fn respond_to_echo(&mut self, now: SimTime, pkt: &Packet) -> bool {
        let c = &mut self.conn;
        let ack = pkt.ack;
        let mut reduced = false;
        // ns-2 `ecn()` also responds to the first ECN-Echo after a timeout, whatever it
        // acknowledges (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
        let after_timeout =
            c.behave.ecn_after_timeout_reduces && c.last_response == Response::Timeout;
        if c.ecn && pkt.ece && (ack > c.recover || after_timeout) && !c.in_recovery {
            // RFC 3168 §6.1.2 (and ns-2's `ecn()`): the controller reduces, down to one
            // segment. At one segment already, reset the retransmit timer and send nothing new
            // until it expires, so a flow can back off below one packet per RTT, as many flows
            // sharing a small pipe must.
            let w = congestion::usable_window(c.win.cwnd, c.max_window);
            // ns-2 `slowdown` halves `windowd()`, the fractional window (precision_reduce_),
            // as for a loss: from cwnd 3.9 it keeps 1.95, where halving the usable 3 keeps 1.
            let basis = if c.behave.ecn_halves_fractional_window {
                c.capped_cwnd()
            } else {
                w as f64
            };
            // ns-2 `ecn()` asks whether the fractional `cwnd_` is at most 1.0, before the cut:
            // from 1 < cwnd < 2 it clears `ecn_backoff_` though it too holds new data.
            let one_segment = if c.behave.ecn_one_segment_is_fractional {
                c.win.cwnd <= 1.0
            } else {
                w <= 1
            };
            self.cc.inner_mut().on_ecn(&mut c.win, basis);
            if one_segment {
                // ns-2 `ecn()`: a second ECE in a row at one segment doubles the timer
                // (`rtt_backoff`); the backoff then survives the ACKs that carry ECE.
                if c.ecn_backoff {
                    c.rtt.back_off();
                } else {
                    c.ecn_backoff = c.ecn_backoff_enabled;
                }
            } else {
                c.ecn_backoff = false;
            }
            if w <= 1 {
                let until = now + c.rtt.rto();
                c.ecn_hold = Some(until);
                if c.rto_deadline.is_some() {
                    c.rto_deadline = Some(until);
                }
            }
            c.recover = c.snd_max;
            c.last_response = Response::Ecn;
            c.cwr_pending = true;
            c.stats.ecn_reductions += 1;
            reduced = true;
        }
        reduced
    }
}
