//! Reno-style AIMD (RFC 5681, RFC 3168; ns-2 `TcpAgent::opencwnd` and `slowdown`): the window
//! arithmetic shared by the Reno, NewReno and SACK senders, which differ only in loss recovery.
//!
//! Growth is per ACK, not per acknowledged segment (ns-2 and RFC 5681 without byte counting), so
//! a delayed-ACK receiver slows growth, as it does in ns-2.

use super::{Ack, Controller, Window};

/// Slow start, congestion avoidance and halving.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reno;

impl Controller for Reno {
    fn on_ack(&mut self, w: &mut Window, _ack: &Ack) {
        w.cwnd = open(w.cwnd, w.ssthresh as f64);
    }

    fn on_loss(&mut self, w: &mut Window, flight: u64) {
        w.ssthresh = halved(flight);
    }

    /// ns-2 `slowdown`: `ssthresh = max(⌊W/2⌋, 2)`, `cwnd = min(cwnd, max(W/2, 1))`: the
    /// window may fall to one segment (ssthresh keeps RFC 5681's floor of two). `W/2` is whole
    /// when `W` is the usable window, fractional when it is ns-2's `windowd()`.
    fn on_ecn(&mut self, w: &mut Window, window: f64) {
        w.ssthresh = halved(window.floor() as u64);
        w.cwnd = w.cwnd.min((window / 2.0).max(1.0));
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u64) {
        w.ssthresh = halved(flight);
        w.cwnd = 1.0;
    }
}

/// Window increase on an ACK of new data outside recovery (RFC 5681 §3.1, ns-2 `opencwnd` with
/// `wnd_option_ = 1`): slow start `cwnd + 1` while `cwnd < ssthresh`, otherwise congestion
/// avoidance `cwnd + 1/cwnd`.
pub fn open(cwnd: f64, ssthresh: f64) -> f64 {
    if cwnd < ssthresh {
        cwnd + 1.0
    } else {
        cwnd + 1.0 / cwnd
    }
}

/// The slow-start threshold after a congestion signal: `max(⌊w/2⌋, 2)` segments, where `w` is
/// the flight size (RFC 5681 eq. 4) or, for ECN, the current window (ns-2 `slowdown` computes
/// `int(window()/2)`, floored at 2).
pub fn halved(w: u64) -> u64 {
    (w / 2).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn slow_start_and_congestion_avoidance_steps() {
        assert_eq!(open(2.0, 10.0), 3.0);
        assert_eq!(open(9.5, 10.0), 10.5);
        assert!((open(10.0, 10.0) - 10.1).abs() < 1e-12);
        assert!((open(4.0, 2.0) - 4.25).abs() < 1e-12);
        // A full window of ACKs in CA adds about one segment: sum of 1/cwnd over cwnd ACKs.
        let mut c = 20.0;
        for _ in 0..20 {
            c = open(c, 5.0);
        }
        assert!((c - 21.0).abs() < 0.03, "{c}");
    }

    #[test]
    fn halving_floors_at_two() {
        assert_eq!(halved(20), 10);
        assert_eq!(halved(21), 10);
        assert_eq!(halved(5), 2);
        assert_eq!(halved(1), 2);
        assert_eq!(halved(0), 2);
    }

    #[test]
    fn signals_back_off_as_rfc_5681_and_3168() {
        let mut w = Window {
            cwnd: 9.7,
            ssthresh: u64::MAX,
        };
        let ack = Ack {
            now: SimTime::ZERO,
            newly_acked: 1,
            ece: false,
            min_rtt: None,
        };
        Reno.on_ack(&mut w, &ack);
        assert_eq!(w.cwnd, 10.7, "slow start while ssthresh is unlimited");
        Reno.on_ecn(&mut w, 10.0);
        assert_eq!((w.cwnd, w.ssthresh), (5.0, 5));
        Reno.on_ecn(&mut w, 1.0);
        assert_eq!(
            (w.cwnd, w.ssthresh),
            (1.0, 2),
            "ECN may take cwnd to one segment"
        );
        // From ns-2's fractional window: cwnd 7.6 -> 3.8, ssthresh 3.
        w.cwnd = 7.6;
        Reno.on_ecn(&mut w, 7.6);
        assert_eq!((w.cwnd, w.ssthresh), (3.8, 3));
        Reno.on_loss(&mut w, 30);
        assert_eq!(w.ssthresh, 15);
        Reno.on_timeout(&mut w, 8);
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 4));
    }
}
