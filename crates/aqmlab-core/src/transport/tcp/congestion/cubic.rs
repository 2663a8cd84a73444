//! CUBIC (RFC 9438; Linux `net/ipv4/tcp_cubic.c`, ns-3 `TcpCubic`).
//!
//! Window growth is a cubic function of the time `t` since the current congestion-avoidance
//! epoch began, centred on `W_max`, the window before the last reduction:
//!
//! ```text
//! W_cubic(t) = C·(t − K)³ + W_max            (RFC 9438 eq. 1; windows in segments, t in s)
//! K          = ∛((W_max − cwnd_epoch) / C)   (eq. 2; 0 when cwnd_epoch ≥ W_max)
//! W_est     += α_cubic · acked / cwnd        (eq. 4, the Reno-friendly estimate)
//! α_cubic    = 3·(1 − β) / (1 + β)           (eq. 3; 1 once W_est ≥ cwnd_prior, §4.3)
//! ```
//!
//! Per ACK in congestion avoidance (§4.2–4.4): `target = W_cubic(t + RTT)` clamped to
//! `[cwnd, 1.5·cwnd]`; if `W_cubic(t) < W_est` the sender is in the Reno-friendly region and
//! `cwnd = W_est`; otherwise `cwnd += (target − cwnd) / cwnd`. On a congestion event (loss by
//! duplicate ACKs or ECN-Echo, §4.6): `W_max = cwnd` (fast convergence, §4.7: `cwnd·(1 + β)/2`
//! when `cwnd < W_max` already), `ssthresh = max(⌊cwnd·β⌋, 2)`, and the epoch ends. Slow start
//! adds the segments acknowledged, at most `L = 2` per ACK (RFC 3465 appropriate byte counting,
//! so a delayed ACK opens the window as two ACKs would), and at most `L = 1` in the slow start
//! that follows a retransmission timeout (RFC 3465 §2.3).
//!
//! Parameters (the RFC's and ns-3's defaults, not configurable here): `C = 0.4`,
//! `β_cubic = 0.7`, fast convergence on, Reno-friendly region on. One reading is a choice,
//! `tcp.cubic_friendly` ([`Friendliness`]): `rfc` (default) switches `α_cubic` to 1 once
//! `W_est ≥ cwnd_prior` (RFC 9438 §4.3); `linux` keeps `α_cubic = 3(1 − β)/(1 + β)` throughout,
//! as Linux's `tcp_friendliness` and ns-3's `TcpCubic` (`TcpFriendliness`) do.
//!
//! Readings where sources differ (and why):
//! - `RTT` in `t + RTT` is the lowest RTT seen (Linux's and ns-3's `delay_min`); the RFC names
//!   the smoothed RTT. The minimum keeps the curve's look-ahead free of queueing delay.
//! - Arithmetic in floating point on a fractional `cwnd`, as the RFC writes it. Linux and ns-3
//!   count ACKs (`cnt`) and add whole segments, which rounds the same curve.
//! - HyStart (ns-3's `HyStart` attribute and Linux's `hystart` are on by default) is not
//!   modelled: slow start ends at the first loss or ECN-Echo, as RFC 5681's. ns-3 comparisons
//!   switch HyStart off in ns-3 (`ns3::TcpCubic::HyStart = false`).
//! - Linux's `cnt_clamp` (growth of at least 5 % per RTT in the first epoch, before any loss)
//!   is left out: the RFC has no such rule.
//! - A retransmission timeout forgets `W_max` and the epoch (Linux `bictcp_reset` on
//!   `TCP_CA_Loss`, ns-3 `CubicReset`; RFC 9438 §4.8: the next epoch has `K = 0` and starts at
//!   its own window), after setting `ssthresh` as for a loss. It keeps `cwnd_prior`, the window
//!   before the timeout, so `α_cubic` switches to 1 only when `W_est` gets back there (§4.3;
//!   Linux and ns-3 have no switch, `tcp.cubic_friendly = "linux"`).
//! - Slow start's per-ACK limit `L` is RFC 3465's. ns-3's `TcpCubic` adds every segment an ACK
//!   covers and Linux's `tcp_slow_start` every segment up to `ssthresh`; without a limit, the
//!   cumulative ACK that repairs a hole after a timeout (hundreds of segments, SACKed while the
//!   hole waited) opened `cwnd` by hundreds at once on a 100 Mbps dumbbell, and the line-rate
//!   burst that followed overflowed the buffer and timed out again, every second or so for
//!   20 s (one flow: 24 timeouts, 14 376 retransmissions; Jain 0.72 where ns-3 had 0.96).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::time::SimTime;

use super::{Ack, Controller, Window};

/// How CUBIC's Reno-friendly estimate grows: where RFC 9438 and Linux/ns-3 differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Friendliness {
    /// RFC 9438 §4.3: `α_cubic = 3(1 − β)/(1 + β)` until `W_est` reaches `cwnd_prior`, then 1.
    #[default]
    Rfc,
    /// Linux `tcp_cubic` and ns-3 `TcpCubic`: `α_cubic = 3(1 − β)/(1 + β)` throughout.
    Linux,
}

/// RFC 9438 `C`, segments / s³.
pub const C: f64 = 0.4;
/// RFC 9438 `β_cubic`.
pub const BETA: f64 = 0.7;

/// CUBIC's state between ACKs.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// Window just before the last reduction (0: none yet).
    w_max: f64,
    /// `cwnd` when `ssthresh` was last set (§4.3's `cwnd_prior`).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch; `None` until the first CA ACK after a
    /// reduction.
    epoch_start: Option<SimTime>,
    /// `K` of this epoch, seconds.
    k: f64,
    /// `W_max` of this epoch (the curve's plateau; `cwnd_epoch` when above the old `W_max`).
    origin: f64,
    /// Reno-friendly estimate, segments.
    w_est: f64,
    /// In the slow start that follows a retransmission timeout (RFC 3465 §2.3: `L = 1`).
    after_timeout: bool,
    /// Configured: the Reno-friendly estimate's growth.
    friendliness: Friendliness,
}

/// RFC 3465 `L`: the most segments one ACK may add to `cwnd` in slow start.
pub const ABC_LIMIT: u64 = 2;

/// RFC 9438 eq. 1: `W_cubic(t) = C·(t − K)³ + W_max` (segments; `t`, `k` in seconds).
pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    C * (t - k).powi(3) + w_max
}

/// RFC 9438 eq. 2: `K = ∛((W_max − cwnd_epoch) / C)`, 0 when the epoch starts at or above
/// `W_max`.
pub fn k_of(w_max: f64, cwnd_epoch: f64) -> f64 {
    if w_max > cwnd_epoch {
        ((w_max - cwnd_epoch) / C).cbrt()
    } else {
        0.0
    }
}

impl Cubic {
    pub fn new(friendliness: Friendliness) -> Cubic {
        Cubic {
            friendliness,
            ..Cubic::default()
        }
    }

    /// Reports `w_max` (segments) and `k_s` (seconds) of the current epoch.
    pub fn probe(&self, f: &mut dyn FnMut(&'static str, f64)) {
        f("w_max", self.w_max);
        f("k_s", self.k);
    }

    /// A congestion event (§4.6–4.7): remember `W_max`, end the epoch, return `ssthresh`.
    fn reduce(&mut self, cwnd: f64) -> u64 {
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        self.after_timeout = false;
        ((cwnd * BETA).floor() as u64).max(2)
    }
}

impl Controller for Cubic {
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if w.cwnd < w.ssthresh as f64 {
            let limit = if self.after_timeout { 1 } else { ABC_LIMIT };
            w.cwnd += ack.newly_acked.clamp(1, limit) as f64;
            return;
        }
        self.after_timeout = false;
        let start = *self.epoch_start.get_or_insert_with(|| {
            self.origin = self.w_max.max(w.cwnd);
            self.k = k_of(self.w_max, w.cwnd);
            self.w_est = w.cwnd;
            ack.now
        });
        let t = ack.now.since(start).as_secs_f64();
        let rtt = ack.min_rtt.map_or(0.0, |r| r.as_secs_f64());
        let target = w_cubic(t + rtt, self.k, self.origin).clamp(w.cwnd, 1.5 * w.cwnd);
        let alpha = if self.friendliness == Friendliness::Rfc && self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - BETA) / (1.0 + BETA)
        };
        self.w_est += alpha * ack.newly_acked.max(1) as f64 / w.cwnd;
        if w_cubic(t, self.k, self.origin) < self.w_est {
            w.cwnd = self.w_est;
        } else {
            w.cwnd += (target - w.cwnd) / w.cwnd;
        }
    }

    fn on_loss(&mut self, w: &mut Window, _flight: u64) {
        w.ssthresh = self.reduce(w.cwnd);
    }

    fn on_ecn(&mut self, w: &mut Window, _window: f64) {
        let ssthresh = self.reduce(w.cwnd);
        w.ssthresh = ssthresh;
        w.cwnd = w.cwnd.min(ssthresh as f64);
    }

    fn on_timeout(&mut self, w: &mut Window, _flight: u64) {
        w.ssthresh = self.reduce(w.cwnd);
        w.cwnd = 1.0;
        // RFC 9438 §4.8: the next epoch starts with K = 0 and W_max = cwnd at its start (so
        // `w_max` and the epoch go), but the timeout is a congestion event like any other:
        // `cwnd_prior` stays the window before it, so the Reno-friendly estimate grows at
        // α_cubic (not 1) until it gets back there (§4.3).
        *self = Cubic {
            after_timeout: true,
            cwnd_prior: self.cwnd_prior,
            ..Cubic::new(self.friendliness)
        };
    }

    fn decrease_factor(&self) -> f64 {
        BETA
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn ack_at(ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO + SimDuration::from_millis(ms),
            newly_acked: 1,
            ece: false,
            min_rtt: Some(SimDuration::from_millis(100)),
        }
    }

    #[test]
    fn k_and_w_cubic_are_rfc_9438_equations() {
        // W_max = 100, cwnd_epoch = 70: K = ∛(30 / 0.4) = ∛75.
        let k = k_of(100.0, 70.0);
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        assert!(
            (w_cubic(0.0, k, 100.0) - 70.0).abs() < 1e-9,
            "starts at cwnd_epoch"
        );
        assert_eq!(w_cubic(k, k, 100.0), 100.0, "plateau at W_max after K");
        assert_eq!(k_of(50.0, 70.0), 0.0);
    }

    #[test]
    fn reduction_is_beta_with_fast_convergence() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: u64::MAX,
        };
        c.on_loss(&mut w, 100);
        assert_eq!(w.ssthresh, 70);
        assert_eq!(c.w_max, 100.0);
        // A second loss below the old W_max releases bandwidth: W_max = cwnd·(1 + β)/2.
        w.cwnd = 80.0;
        c.on_ecn(&mut w, 80.0);
        assert_eq!((w.cwnd, w.ssthresh), (56.0, 56));
        assert!((c.w_max - 80.0 * 0.85).abs() < 1e-12);
    }

    /// After a loss at W_max = 1000 with a 100 ms RTT, an ACK clock of cwnd ACKs per RTT
    /// for 15 s (the Reno-friendly estimate stays below the curve: 700 + 0.53 per RTT): cwnd stays between RFC 9438's `W_cubic(t)` and its look-ahead `W_cubic(t + RTT)`
    /// (within a segment), concave up to W_max at K, then convex.
    #[test]
    fn window_follows_w_cubic_after_a_loss() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: u64::MAX,
        };
        c.on_loss(&mut w, 1000);
        w.cwnd = w.ssthresh as f64;
        let k = k_of(1000.0, 700.0);
        let rtt = 0.1;
        let mut t = 0.0f64;
        let mut at_k = None;
        let mut checked = 0;
        while t < 15.0 {
            let a = Ack {
                now: SimTime::ZERO + SimDuration::from_secs_f64(t),
                newly_acked: 1,
                ece: false,
                min_rtt: Some(SimDuration::from_millis(100)),
            };
            c.on_ack(&mut w, &a);
            let t_ack = SimDuration::from_secs_f64(t).as_secs_f64();
            if t_ack > 0.5 {
                let lo = w_cubic(t_ack, k, 1000.0) - 1.0;
                let hi = w_cubic(t_ack + rtt, k, 1000.0) + 1.0;
                assert!(
                    lo <= w.cwnd && w.cwnd <= hi,
                    "t = {t_ack}: cwnd {} outside [{lo}, {hi}]",
                    w.cwnd
                );
                checked += 1;
            }
            if at_k.is_none() && t_ack >= k {
                at_k = Some(w.cwnd);
            }
            t += rtt / w.cwnd;
        }
        assert!(checked > 1000);
        let at_k = at_k.unwrap();
        assert!(
            (at_k - 1000.0).abs() < 1.0,
            "cwnd at K = {at_k}, W_max = 1000"
        );
        assert!(
            w.cwnd > w_cubic(14.9, k, 1000.0) - 1.0,
            "convex growth past W_max"
        );
        assert!((c.k - k).abs() < 1e-12);
    }

    /// A loss at cwnd 10 (W_max = 10, cwnd 7), then 1 s of ACKs on a 10 ms RTT, one per segment
    /// (one ACK every 10/cwnd ms). Returns the window after it.
    fn grow_one_second_after_loss(c: &mut Cubic) -> Window {
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: u64::MAX,
        };
        c.on_loss(&mut w, 10);
        w.cwnd = w.ssthresh as f64;
        let mut now = 0.0f64;
        while now < 1.0 {
            let a = Ack {
                now: SimTime::ZERO + SimDuration::from_secs_f64(now),
                newly_acked: 1,
                ece: false,
                min_rtt: Some(SimDuration::from_millis(10)),
            };
            c.on_ack(&mut w, &a);
            now += 0.010 / w.cwnd;
        }
        w
    }

    /// With a small W_max - cwnd gap and a long time, the Reno-friendly estimate W_est
    /// (α = 3(1−β)/(1+β) per window) can exceed the cubic curve for short RTTs; the window is
    /// then W_est.
    #[test]
    fn reno_friendly_region_takes_over_when_cubic_is_slower() {
        let mut c = Cubic::default();
        let w = grow_one_second_after_loss(&mut c);
        let t = 1.0;
        let cubic = w_cubic(t, c.k, c.origin);
        // 100 RTTs of Reno-friendly growth: 7 + 100·α (α = 0.529 until W_est ≥ 10, then 1).
        assert!(w.cwnd > cubic + 10.0, "cwnd {} cubic {cubic}", w.cwnd);
        assert!((w.cwnd - c.w_est).abs() < 1.0);
    }

    /// The `linux` reading keeps α = 3(1 − β)/(1 + β) past cwnd_prior: after 100 RTTs of
    /// Reno-friendly growth from 7 (W_max = 10) it is well below the RFC reading's window.
    #[test]
    fn linux_friendliness_keeps_the_small_alpha() {
        let grow = |friendliness| grow_one_second_after_loss(&mut Cubic::new(friendliness)).cwnd;
        let (rfc, linux) = (grow(Friendliness::Rfc), grow(Friendliness::Linux));
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        // 100 RTTs at α: 7 + 100·α ≈ 59.9 (within a few segments: the ACK clock is discrete).
        assert!((linux - (7.0 + 100.0 * alpha)).abs() < 3.0, "linux {linux}");
        assert!(rfc > linux + 20.0, "rfc {rfc}, linux {linux}");
    }

    #[test]
    fn timeout_forgets_the_epoch() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: u64::MAX,
        };
        c.on_timeout(&mut w, 40);
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 28));
        assert_eq!(c.w_max, 0.0);
        assert_eq!(
            c.cwnd_prior, 40.0,
            "the window before the timeout is kept (§4.3)"
        );
        // The slow start after a timeout adds one segment per ACK (RFC 3465 §2.3, L = 1),
        // however many the ACK covers.
        let mut a = ack_at(0);
        a.newly_acked = 300;
        c.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 2.0);
    }

    #[test]
    fn slow_start_counts_at_most_two_segments_per_ack() {
        let mut c = Cubic::default();
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: u64::MAX,
        };
        for (newly, cwnd) in [(1, 3.0), (2, 5.0), (500, 7.0)] {
            let mut a = ack_at(0);
            a.newly_acked = newly;
            c.on_ack(&mut w, &a);
            assert_eq!(w.cwnd, cwnd, "after an ACK of {newly}");
        }
        // Out of slow start: the next slow start (after a timeout) counts one per ACK until
        // it reaches ssthresh, then two again after a later loss.
        c.on_timeout(&mut w, 7);
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 4));
        let mut a = ack_at(0);
        a.newly_acked = 2;
        for cwnd in [2.0, 3.0, 4.0] {
            c.on_ack(&mut w, &a);
            assert_eq!(w.cwnd, cwnd);
        }
        c.on_ack(&mut w, &a); // congestion avoidance: leaves the post-timeout slow start
        assert!(!c.after_timeout);
    }
}
