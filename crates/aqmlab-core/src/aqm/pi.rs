//! PI: the Proportional-Integral controller of Hollot, Misra, Towsley and Gong.
//!
//! Source: C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "On Designing Improved Controllers
//! for AQM Routers Supporting TCP Flows", IEEE INFOCOM 2001 (not in `papers/`), as ns-2 implements
//! it (`queue/pi.cc`, `Queue/PI`), which the authors wrote and ns-3's `PiQueueDisc` ports.
//!
//! # Equations
//! Every `1/w` seconds (sampling frequency `w`, a periodic timer), with `q` the instantaneous
//! queue in packets (or bytes / `mean_pktsize` when `queue_in_bytes`):
//! ```text
//! p = a·(q − q_ref) − b·(q_old − q_ref) + p_old,   clamped to [0, 1];   q_old = q
//! ```
//! (the discretised PI controller `C(s) = K_PI·(s/z + 1)/s`; `a − b` is the integral gain per
//! sample). On each arrival that finds room: drop (or, with `ecn`, mark an ECN-capable packet)
//! when `u ≤ p` for one uniform `u`; with `bytes`, `p` is scaled by `size / mean_pktsize` first.
//!
//! # Parameters (ns-2 `ns-default.tcl` defaults, which are the paper's design example)
//! | key | unit | default | ns-2 |
//! |---|---|---|---|
//! | `a` | 1/packet | 0.00001822 | `a_` |
//! | `b` | 1/packet | 0.00001816 | `b_` |
//! | `w` | Hz | 170 | `w_` (sampling frequency) |
//! | `q_ref` | packets | 50 | `qref_` |
//! | `mean_pktsize` | bytes | 500 | `mean_pktsize_` |
//! | `queue_in_bytes` | bool | false | `queue_in_bytes_` |
//! | `bytes` | bool | false | `bytes_` (byte-mode drop probability) |
//! | `ecn` | bool | false | `setbit_` |
//!
//! # Readings
//! - ns-2 drops with `u ≤ p`; here `u ≤ p` with `p > 0` (a uniform of exactly 0 never drops at
//!   `p = 0`). A full buffer tail-drops before any random number is drawn, as ns-2 checks the
//!   limit first (so replayed uniform streams line up with ns-2's).
//! - The first update is at `1/w` (ns-2 calls `calculate_p` at reset, time 0, on an empty
//!   queue, where `p` clamps to 0: the same state).
//! - ns-2's `queue_in_bytes_` also scales its buffer limit by `mean_pktsize_`; here the buffer
//!   is the link's (`buffer = 100` or `"150KB"`), so only the controller's `q` is converted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Gain on the current queue error, per packet (ns-2 a_).
    pub a: f64,
    /// Gain on the previous queue error, per packet (ns-2 b_); a − b is the integral gain.
    pub b: f64,
    /// Sampling frequency of the controller, Hz (ns-2 w_).
    pub w: f64,
    /// Reference (target) queue length, packets (ns-2 qref_).
    pub q_ref: f64,
    /// Bytes per packet for queue_in_bytes and byte-mode probability.
    pub mean_pktsize: u32,
    /// Measure the queue in bytes / mean_pktsize (ns-2 queue_in_bytes_).
    pub queue_in_bytes: bool,
    /// Scale the drop probability by size / mean_pktsize (ns-2 bytes_).
    pub bytes: bool,
    /// Mark ECN-capable packets instead of dropping (ns-2 setbit_).
    pub ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            a: 0.00001822,
            b: 0.00001816,
            w: 170.0,
            q_ref: 50.0,
            mean_pktsize: 500,
            queue_in_bytes: false,
            bytes: false,
            ecn: false,
        }
    }
}

/// One PI update: the new probability from the current and previous queue samples.
pub fn next_prob(p: &Params, prob: f64, q: f64, q_old: f64) -> f64 {
    (p.a * (q - p.q_ref) - p.b * (q_old - p.q_ref) + prob).clamp(0.0, 1.0)
}

/// PI's state.
pub struct Pi {
    params: Params,
    period: SimDuration,
    next_update: SimTime,
    prob: f64,
    q_old: f64,
}

impl Pi {
    pub fn new(params: Params) -> Pi {
        let period = SimDuration::from_secs_f64(1.0 / params.w);
        Pi {
            params,
            period,
            next_update: SimTime::ZERO + period,
            prob: 0.0,
            q_old: 0.0,
        }
    }

    fn queue(&self, q: &QueueView) -> f64 {
        if self.params.queue_in_bytes {
            q.len_bytes as f64 / self.params.mean_pktsize as f64
        } else {
            q.len_pkts as f64
        }
    }
}

impl Aqm for Pi {
    fn on_enqueue(
        &mut self,
        _now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        if q.limit
            .would_overflow(q.len_pkts, q.len_bytes, pkt.size_bytes)
        {
            return Verdict::Pass; // the glue tail-drops it, no random number drawn (ns-2 order)
        }
        let mut p = self.prob;
        if self.params.bytes {
            p = (p * pkt.size_bytes as f64 / self.params.mean_pktsize as f64).min(1.0);
        }
        if p > 0.0 && rng.uniform() <= p {
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        if now < self.next_update {
            return;
        }
        let cur = self.queue(q);
        self.prob = next_prob(&self.params, self.prob, cur, self.q_old);
        self.q_old = cur;
        self.next_update = now + self.period;
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("prob", self.prob);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "pi";
    const NAME: &'static str = "PI controller (Hollot, Misra, Towsley, Gong 2001)";
    const SOURCE: &'static str =
        "Hollot et al., INFOCOM 2001; ns-2 queue/pi.cc (Queue/PI) and its ns-default.tcl values";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.a.is_finite() && self.a >= 0.0,
            "a",
            self.a,
            "a number ≥ 0",
        )?;
        check(
            self.b.is_finite() && self.b >= 0.0,
            "b",
            self.b,
            "a number ≥ 0",
        )?;
        // a − b is the controller's integral gain per sample: at 0 or below, p no longer
        // falls while the queue stays above q_ref and, once the queue drains, climbs to 1 and
        // stays there — every arrival dropped (a black hole), whatever the traffic.
        check(
            self.a > self.b,
            "a",
            self.a,
            "greater than b (a − b is the integral gain; a ≤ b drops everything)",
        )?;
        check(
            self.w.is_finite() && self.w > 0.0 && self.w <= 1e6,
            "w",
            self.w,
            "a frequency in (0, 1e6] Hz",
        )?;
        check(
            self.q_ref.is_finite() && self.q_ref >= 0.0,
            "q_ref",
            self.q_ref,
            "packets ≥ 0",
        )?;
        check(
            self.mean_pktsize >= 1,
            "mean_pktsize",
            self.mean_pktsize,
            "bytes ≥ 1",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Pi::new(self.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::BufferLimit;

    fn view(len: usize) -> QueueView {
        QueueView {
            len_pkts: len,
            len_bytes: len as u64 * 1000,
            limit: BufferLimit::Packets(300),
            link_rate_bps: 10_000_000,
        }
    }

    /// The recursion by hand with ns-2's gains: a queue held at 150 packets (100 above q_ref)
    /// from an empty start.
    #[test]
    fn update_is_the_discretised_pi_law() {
        let p = Params::default();
        let mut pi = Pi::new(p.clone());
        let dt = SimDuration::from_secs_f64(1.0 / 170.0);
        let mut t = SimTime::ZERO;
        let (mut prob, mut q_old) = (0.0f64, 0.0f64);
        for _ in 0..50 {
            t += dt;
            pi.on_timer(t, &view(150));
            prob = (p.a * (150.0 - 50.0) - p.b * (q_old - 50.0) + prob).clamp(0.0, 1.0);
            q_old = 150.0;
            assert!((pi.prob - prob).abs() < 1e-15);
        }
        // First step: a·100 + b·50 = 0.002730; later steps add (a − b)·100 = 6e-6 each.
        assert!(
            (prob - (0.00001822 * 100.0 + 0.00001816 * 50.0 + 49.0 * 0.00000006 * 100.0)).abs()
                < 1e-12
        );
        // An empty queue drives it back down, never below 0.
        for _ in 0..2000 {
            t += dt;
            pi.on_timer(t, &view(0));
        }
        assert_eq!(pi.prob, 0.0);
        // Timers early are ignored.
        pi.on_timer(t, &view(300));
        assert_eq!(pi.prob, 0.0);
    }

    #[test]
    fn drops_with_probability_p_one_uniform_each() {
        let mut pi = Pi::new(Params::default());
        pi.prob = 0.25;
        let pkt = Packet {
            size_bytes: 1000,
            ..Packet::default()
        };
        let mut rng = SimRng::scripted(vec![0.25, 0.2500001, 0.1]);
        let got: Vec<Verdict> = (0..3)
            .map(|_| pi.on_enqueue(SimTime::ZERO, &pkt, &view(10), &mut rng))
            .collect();
        assert_eq!(
            got,
            vec![
                Verdict::Signal(Reason::Early),
                Verdict::Pass,
                Verdict::Signal(Reason::Early)
            ]
        );
        // A full buffer draws nothing.
        assert_eq!(
            pi.on_enqueue(SimTime::ZERO, &pkt, &view(300), &mut rng),
            Verdict::Pass
        );
        assert_eq!(rng.drawn(), 3);
        // Byte mode: a 250-byte packet at mean 500 sees p/2.
        let mut bytes = Pi::new(Params {
            bytes: true,
            ..Params::default()
        });
        bytes.prob = 0.25;
        let small = Packet {
            size_bytes: 250,
            ..Packet::default()
        };
        let mut rng = SimRng::scripted(vec![0.2]);
        assert_eq!(
            bytes.on_enqueue(SimTime::ZERO, &small, &view(1), &mut rng),
            Verdict::Pass
        );
    }

    #[test]
    fn a_not_above_b_is_refused_as_a_black_hole() {
        let with = |a: f64, b: f64| {
            Params {
                a,
                b,
                ..Params::default()
            }
            .validate()
        };
        assert!(with(0.00001822, 0.00001816).is_ok());
        for (a, b) in [(0.0, 0.00001816), (0.00001816, 0.00001816), (0.0, 0.0)] {
            assert_eq!(with(a, b).expect_err("black hole").path, "a");
        }
    }
}