//! Data Center TCP (RFC 8257 §3.3; Linux `net/ipv4/tcp_dctcp.c`, ns-3 `TcpDctcp`).
//!
//! The sender estimates the fraction of its bytes that were CE-marked, once per window of data:
//!
//! ```text
//! BytesAcked  += acked;  BytesMarked += acked if the ACK carries ECE
//! when SND.UNA ≥ WindowEnd:
//!     M = BytesMarked / BytesAcked
//!     α = (1 − g)·α + g·M              (g = 1/16, α starts at 1)
//!     WindowEnd = SND.NXT; BytesAcked = BytesMarked = 0
//! ```
//!
//! and on ECN-Echo (at most once per window, as RFC 3168's reduction, which the sender
//! enforces) reduces `cwnd = cwnd·(1 − α/2)`, `ssthresh` to the same (at least 2 segments,
//! as Linux's `dctcp_ssthresh` and ns-3's `GetSsThresh`). Growth and loss are Reno's (§3.5).
//! The receiver side (ECE set exactly on the ACKs of CE-marked packets, with the delayed-ACK
//! state machine of §3.2) is in `receiver.rs`.
//!
//! Parameters (RFC 8257's, Linux's and ns-3's defaults, not configurable here): `g = 1/16`,
//! initial `α = 1` (Linux `dctcp_alpha_on_init = 1024`, ns-3 `DctcpAlphaOnInit = 1.0`).
//! Counting is in segments: every data packet has the same size. The window closes when
//! `SND.UNA ≥ WindowEnd` (Linux `!before(snd_una, next_seq)`, ns-3 likewise; the RFC's text has
//! `>`, which in bytes waits for one byte beyond the window): every segment sent before the
//! window was opened is then acknowledged.

use super::reno::{halved, open};
use super::{Ack, AckSeen, Controller, Window};

/// RFC 8257 `g`.
pub const G: f64 = 1.0 / 16.0;

/// DCTCP's marked-fraction estimator.
#[derive(Clone, Debug)]
pub struct Dctcp {
    alpha: f64,
    window_end: u64,
    acked: u64,
    marked: u64,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp {
            alpha: 1.0,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }
}

impl Dctcp {
    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn probe(&self, f: &mut dyn FnMut(&'static str, f64)) {
        f("dctcp_alpha", self.alpha);
    }
}

impl Controller for Dctcp {
    fn on_ack_seen(&mut self, ack: &AckSeen) {
        self.acked += ack.newly_acked;
        if ack.ece {
            self.marked += ack.newly_acked;
        }
        if ack.snd_una >= self.window_end {
            if self.acked > 0 {
                let m = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - G) * self.alpha + G * m;
            }
            self.window_end = ack.snd_nxt;
            self.acked = 0;
            self.marked = 0;
        }
    }

    fn on_ack(&mut self, w: &mut Window, _ack: &Ack) {
        w.cwnd = open(w.cwnd, w.ssthresh as f64);
    }

    fn on_loss(&mut self, w: &mut Window, flight: u64) {
        w.ssthresh = halved(flight);
    }

    fn on_ecn(&mut self, w: &mut Window, _window: f64) {
        let reduced = w.cwnd * (1.0 - self.alpha / 2.0);
        w.ssthresh = (reduced.floor() as u64).max(2);
        w.cwnd = w.cwnd.min(reduced.max(2.0));
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u64) {
        w.ssthresh = halved(flight);
        w.cwnd = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn seen(newly: u64, ece: bool, una: u64, nxt: u64) -> AckSeen {
        AckSeen {
            now: SimTime::ZERO,
            newly_acked: newly,
            ece,
            snd_una: una,
            snd_nxt: nxt,
        }
    }

    /// A hand-computed sequence from α₀ = 1, g = 1/16 (each window's M in the comment):
    /// W1 = one ACK of 2 segments, unmarked (M = 0): α = 15/16 = 0.9375;
    /// W2 = ACKs to 3 (ECE) and 4 (M = 1/2): α = 0.9375·15/16 + 0.5/16 = 0.91015625;
    /// W3 = one ACK of 2 segments with ECE (M = 1): α = 0.915771484375;
    /// W4 = ACKs of 1, 1, 2 segments, the last with ECE (M = 2/4): α = 0.8897857666015625.
    #[test]
    fn alpha_follows_the_ewma_once_per_window() {
        let mut d = Dctcp::default();
        let mut alphas = Vec::new();
        let acks = [
            // (newly acked, ECE, snd_una after, snd_nxt)
            (2, false, 2, 4),
            (1, true, 3, 6),
            (1, false, 4, 6),
            (2, true, 6, 10),
            (1, false, 7, 14),
            (1, false, 8, 14),
            (0, true, 8, 14), // a duplicate ACK: nothing acknowledged, nothing counted
            (2, true, 10, 14),
        ];
        for (newly, ece, una, nxt) in acks {
            d.on_ack_seen(&seen(newly, ece, una, nxt));
            alphas.push(d.alpha());
        }
        let expect = [
            0.9375,
            0.9375,
            0.91015625,
            0.915771484375,
            0.915771484375,
            0.915771484375,
            0.915771484375,
            0.8897857666015625,
        ];
        for (i, (a, e)) in alphas.iter().zip(expect).enumerate() {
            assert!((a - e).abs() < 1e-15, "after ACK {i}: {a} != {e}");
        }
        // Twenty unmarked windows decay α by (15/16)^20.
        let start = d.alpha();
        let mut una = 10;
        for _ in 0..20 {
            una += 4;
            d.on_ack_seen(&seen(4, false, una, una + 4));
        }
        assert!((d.alpha() - start * (15.0f64 / 16.0).powi(20)).abs() < 1e-12);
    }

    #[test]
    fn reduction_scales_with_alpha() {
        let mut d = Dctcp::default();
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: u64::MAX,
        };
        d.on_ecn(&mut w, 40.0);
        assert_eq!((w.cwnd, w.ssthresh), (20.0, 20), "α = 1 halves");
        d.alpha = 0.25;
        d.on_ecn(&mut w, 20.0);
        assert_eq!((w.cwnd, w.ssthresh), (17.5, 17));
        d.alpha = 0.0;
        d.on_ecn(&mut w, 17.0);
        assert_eq!(w.cwnd, 17.5, "no marks, no reduction");
        w.cwnd = 2.5;
        d.alpha = 1.0;
        d.on_ecn(&mut w, 2.0);
        assert_eq!((w.cwnd, w.ssthresh), (2.0, 2), "floor of two segments");
    }
}
