//! The sender's timers: the retransmission timeout (RFC 6298 §5, go-back-N restart, ns-2
//! `timeout()`), ns-2's delayed-send timer and the ECN hold at one segment.

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::congestion;
use super::super::recovery::Recovery;
use super::super::trace::TraceEvent;
use super::{Response, Sender};

impl Sender {
    /// Handles the retransmission timer; call when `now >= next_timer()`.
    pub fn on_timer<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        if self.conn.send_due.is_some_and(|d| now >= d) {
            // ns-2's delayed-send timeout: send what the window allows, without a new delay.
            self.conn.send_due = None;
            self.conn.forcing = true;
            self.send_much(now, emit);
            self.conn.forcing = false;
        }
        if self.conn.ecn_hold.is_some_and(|h| now >= h) {
            let c = &mut self.conn;
            c.ecn_hold = None;
            if !c.behave.hold_ends_as_timeout {
                self.send_much(now, emit);
            } else if c.snd_una < c.snd_max {
                // ns-2: the hold is the retransmission timer; with data outstanding its expiry
                // is a timeout (below), not a send of new data first.
                c.rto_deadline = Some(now);
            } else {
                // ns-2 `timeout()` with nothing outstanding: no backoff, ssthresh kept, but the
                // last congestion action becomes a timeout and the next packet carries CWR.
                c.last_response = Response::Timeout;
                c.recover = c.snd_max;
                c.cwr_pending = c.ecn;
                self.send_much(now, emit);
            }
        }
        let c = &mut self.conn;
        match c.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        c.rto_deadline = None;
        if c.snd_una >= c.snd_max {
            return;
        }
        c.stats.timeouts += 1;
        // A timeout whose previous congestion response was an ECN reduction: ns-2's `timeout()`
        // closes the window to one segment but keeps ssthresh, and does not count it in
        // `nrexmit_`. (Its test `highest_ack_ < recover_ && last_cwnd_action_ ==
        // CWND_ACTION_ECN` comes right after `recover_ = maxseq_`, so it holds whenever data
        // is outstanding: however long ago the ECN reduction was. Traced on the ECN RED
        // dumbbell: 72 of flow 0's 78 expiries in ns-2 take this branch.) Counted apart.
        let ecn_window = c.last_response == Response::Ecn;
        if ecn_window {
            c.stats.timeouts_after_ecn += 1;
        }
        let basis = if c.behave.loss_basis_is_window {
            // ns-2 `slowdown` from `windowd()`; Reno's `timeout()` first clears `dupwnd_`, so
            // in recovery that is cwnd_ (W/2, deflated), not the inflated window.
            let w = if c.in_recovery {
                c.recovery_cwnd
            } else {
                c.win.cwnd
            };
            congestion::usable_window(w, c.max_window)
        } else {
            c.snd_nxt - c.snd_una
        };
        c.dupwnd = 0;
        if ecn_window && c.behave.timeout_after_ecn_keeps_ssthresh {
            c.win.cwnd = 1.0;
        } else {
            self.cc.inner_mut().on_timeout(&mut c.win, basis);
        }
        c.in_recovery = false;
        c.dupacks = 0;
        c.last_response = Response::Timeout;
        c.cwr_pending = c.ecn;
        c.recover = c.snd_max;
        self.recovery.on_timeout(c);
        c.rtt.back_off();
        c.snd_nxt = c.snd_una;
        self.send_much(now, emit);
        if self.conn.trace.is_some() {
            self.record(now, TraceEvent::Timeout);
        }
    }

    /// The retransmission deadline, if armed.
    pub fn next_timer(&self) -> Option<SimTime> {
        let c = &self.conn;
        // Called after every ACK: plain comparisons, which the optimiser keeps branch-light,
        // where an iterator over the three cost ~45 instructions (cachegrind).
        let earliest = |a: Option<SimTime>, b: Option<SimTime>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        earliest(earliest(c.rto_deadline, c.ecn_hold), c.send_due)
    }
}
