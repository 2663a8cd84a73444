//! Adaptive RED (ARED): RED that steers `max_p` so the average queue sits in a target band.
//!
//! Source: S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management", ICIR tech. report, August 2001 (not one of the
//! five papers; it refines paper 004's idea). Semantics as ns-3's `RedQueueDisc` with
//! `ARED = true` (`InitializeParams`, `UpdateMaxP`), itself after ns-2's `adaptive_ 1`.
//!
//! # Equations
//! - Automatic parameters (ns-3 / the report §4): `C = link_rate/(8·mean_pkt_size)` packets/s;
//!   `w_q = 1 − exp(−1/C)`; `min_th = max(5, target_delay·C/2)` packets (× mean_pkt_size in byte
//!   mode); `max_th = 3·min_th`; `bottom = min(0.01, 8·mean_pkt_size·rtt/link_rate)`.
//! - AIMD on `max_p`, evaluated on an arrival's average update when `now > last_set + interval`,
//!   target band `[min_th + 0.4·(max_th − min_th), max_th − 0.4·(max_th − min_th)]`:
//!   avg below the band and `max_p > bottom` → `max_p ← β·max_p`;
//!   avg above the band and `max_p < top` → `max_p ← max_p + min(α, max_p/4)`.
//!   `last_set ← now` only when max_p changed.
//! - Everything else is RED (`red.rs`); gentle by default as the report recommends.
//!
//! # Parameters (`kind = "ared"`): those of `red` (with the defaults below), plus
//! | key | unit | default | notes |
//! |---|---|---|---|
//! | `min_th` | packets (bytes if `bytes`) | auto | see above; ns-3 always computes it |
//! | `max_th` | packets (bytes if `bytes`) | auto = 3·min_th | |
//! | `w_q` | weight or `"auto"` | `"auto"` | 1 − exp(−1/C) |
//! | `max_p` | probability | 0.1 | initial value (ns-2 `linterm_ 10`; ns-3 `LInterm` default 50 = 0.02) |
//! | `gentle` | bool | true | the report: use with gentle RED |
//! | `target_delay` | duration | 5ms | ns-3 `TargetDelay` |
//! | `interval` | duration | 500ms | ns-3 `Interval`, the report's 0.5 s |
//! | `alpha` | probability | 0.01 | additive increase, capped at max_p/4 |
//! | `beta` | factor | 0.9 | multiplicative decrease |
//! | `top` | probability | 0.5 | upper bound for increases |
//! | `bottom` | probability | auto | lower bound for decreases, see above |
//! | `rtt` | duration | 100ms | the RTT in the automatic `bottom` (ns-3 `Rtt`) |
//!
//! # Readings taken (all as ns-3)
//! - The adaptation runs lazily on arrivals, not on a 0.5 s timer as in the report's pseudocode:
//!   ns-3 checks `now > last_set + interval` on every average update and resets `last_set` only
//!   when it changes max_p. So in-band periods are re-checked on every arrival.
//! - max_p is not clamped to [bottom, top] after a step (a step may overshoot by one factor).
//! - The gentle slope uses the initial max_p for the whole run.
//! - Where we extend ns-3: `min_th`/`max_th` and `w_q` may be given explicitly (ns-3 ARED
//!   overwrites them); `min_th` alone gives `max_th = 3·min_th`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::red::{self, Adapt, AredRule, Curve, QueueWeight};
use super::{AlgorithmParams, BuildContext};
use crate::error::{check, ScenarioError};
use crate::qdisc::Qdisc;
use crate::time::SimDuration;

red::red_family_params! {
    pub struct Params {
        /// Minimum threshold of the average queue, packets (bytes if bytes = true); default
        /// auto = max(5, target_delay C / 2).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub min_th: Option<f64>,
        /// Maximum threshold of the average queue, packets (bytes if bytes = true); default
        /// 3 min_th.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub max_th: Option<f64>,
        /// Initial max_p, in (0, 1].
        pub max_p: f64,
        ..shared..
    /// Queueing delay the automatic thresholds aim at (duration).
    pub target_delay: SimDuration,
    /// Minimum time between two max_p changes (duration).
    pub interval: SimDuration,
    /// Additive increase of max_p (capped at max_p/4).
    pub alpha: f64,
    /// Multiplicative decrease factor of max_p, in (0, 1).
    pub beta: f64,
    /// Max_p is not increased at or above top.
    pub top: f64,
    /// Max_p is not decreased at or below bottom; default min(0.01, 8 mean_pkt_size rtt / link
    /// rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottom: Option<f64>,
    /// Round-trip time used by the automatic bottom (duration).
    pub rtt: SimDuration,
}
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: QueueWeight::Auto,
            wait: true,
            gentle: true,
            bytes: false,
            ecn: false,
            hard_drop: true,
            forced_resets_count: false,
            mean_pkt_size: None,
            idle_pkt_size: None,
            target_delay: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(500),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: None,
            rtt: SimDuration::from_millis(100),
        }
    }
}

/// The automatic thresholds for a link of `ptc` mean packets/s: (min_th, max_th).
pub fn auto_thresholds(target_delay: SimDuration, ptc: f64, bytes: bool, mean: u32) -> (f64, f64) {
    let mut min_th = 5.0;
    let target_queue = target_delay.as_secs_f64() * ptc;
    if min_th < target_queue / 2.0 {
        min_th = target_queue / 2.0;
    }
    if bytes {
        min_th *= mean as f64;
    }
    (min_th, 3.0 * min_th)
}

/// The automatic lower bound of max_p: `min(0.01, 8·mean·rtt/link_rate)`.
pub fn auto_bottom(mean: u32, rtt: SimDuration, link_rate_bps: u64) -> f64 {
    let b = (8.0 * mean as f64 * rtt.as_secs_f64()) / link_rate_bps as f64;
    b.min(0.01)
}

impl Params {
    /// The RED parameters with thresholds resolved for a link.
    fn common(&self, ctx: &BuildContext) -> red::Params {
        let mean = self.mean_pkt_size.unwrap_or(ctx.mean_pkt_bytes).max(1);
        let (min_th, max_th) = match (self.min_th, self.max_th) {
            (Some(lo), Some(hi)) => (lo, hi),
            (Some(lo), None) => (lo, 3.0 * lo),
            _ => auto_thresholds(
                self.target_delay,
                red::ptc(ctx.link_rate_bps, mean),
                self.bytes,
                mean,
            ),
        };
        red::Params {
            mean_pkt_size: Some(mean),
            ..self.red_params(min_th, max_th, self.max_p)
        }
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "ared";
    const NAME: &'static str = "Adaptive RED (Floyd, Gummadi, Shenker 2001)";
    const SOURCE: &'static str =
        "Floyd, Gummadi, Shenker 2001 'Adaptive RED'; ns-3 RedQueueDisc ARED = true semantics";
    fn validate(&self) -> Result<(), ScenarioError> {
        match (self.min_th, self.max_th) {
            (Some(lo), hi) => red::check_thresholds(lo, hi.unwrap_or(3.0 * lo))?,
            (None, Some(hi)) => {
                return Err(ScenarioError::new(
                    "max_th",
                    hi.to_string(),
                    "only together with min_th (or leave both automatic)",
                ))
            }
            (None, None) => {}
        }
        // The thresholds are checked above (they may be automatic).
        self.red_params(1.0, 3.0, self.max_p).check_common(false)?;
        check(
            self.target_delay > SimDuration::ZERO,
            "target_delay",
            self.target_delay,
            "a positive duration",
        )?;
        check(
            self.interval > SimDuration::ZERO,
            "interval",
            self.interval,
            "a positive duration",
        )?;
        check(
            self.alpha > 0.0 && self.alpha <= 1.0,
            "alpha",
            self.alpha,
            "in (0, 1] (report: 0.01)",
        )?;
        check(
            self.beta > 0.0 && self.beta < 1.0,
            "beta",
            self.beta,
            "in (0, 1) (report: 0.9)",
        )?;
        check(
            self.top > 0.0 && self.top <= 1.0,
            "top",
            self.top,
            "in (0, 1] (report: 0.5)",
        )?;
        if let Some(b) = self.bottom {
            check(
                b > 0.0 && b < self.top,
                "bottom",
                b,
                &format!("in (0, top = {})", self.top),
            )?;
        }
        check(
            self.rtt > SimDuration::ZERO,
            "rtt",
            self.rtt,
            "a positive duration",
        )
    }
    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        let common = self.common(ctx);
        let mean = common.mean_pkt_size.unwrap_or(1);
        let rule = AredRule {
            interval: self.interval,
            alpha: self.alpha,
            beta: self.beta,
            top: self.top,
            bottom: self
                .bottom
                .unwrap_or_else(|| auto_bottom(mean, self.rtt, ctx.link_rate_bps)),
        };
        let red = common.core(ctx, Curve::Linear, Adapt::Ared(rule));
        common.single_queue(ctx, red)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::net::packet::Packet;
    use crate::qdisc::BufferLimit;
    use crate::rng::SimRng;
    use crate::time::SimTime;

    #[test]
    fn automatic_parameters() {
        // 1.5 Mb/s, 500 B → C = 375 pkt/s; 5 ms → target queue 1.875 pkts: min_th stays 5.
        assert_eq!(
            auto_thresholds(SimDuration::from_millis(5), 375.0, false, 500),
            (5.0, 15.0)
        );
        // 100 Mb/s, 1000 B → C = 12500; 5 ms → 62.5 pkts, min_th 31.25, max_th 93.75.
        assert_eq!(
            auto_thresholds(SimDuration::from_millis(5), 12500.0, false, 1000),
            (31.25, 93.75)
        );
        assert_eq!(
            auto_thresholds(SimDuration::from_millis(5), 12500.0, true, 1000),
            (31250.0, 93750.0)
        );
        // bottom = min(0.01, 8·500·0.1/1.5e6) = 2.666…e-4 (ns-3's Bottom for these settings).
        let b = auto_bottom(500, SimDuration::from_millis(100), 1_500_000);
        assert!((b - 8.0 * 500.0 * 0.1 / 1.5e6).abs() < 1e-18);
        assert_eq!(auto_bottom(500, SimDuration::from_millis(100), 1_000), 0.01);
    }

    #[test]
    fn max_p_adapts_at_most_once_per_interval() {
        // w_q = 1 so avg = queue offered; thresholds 5/15 → band [9, 11].
        let p = Params {
            min_th: Some(5.0),
            max_th: Some(15.0),
            w_q: QueueWeight::Fixed(1.0),
            max_p: 0.1,
            ..Params::default()
        };
        let ctx = crate::aqm::red::tests::ctx(BufferLimit::Packets(1000));
        let mut q = p.build(&ctx);
        let mut rng = SimRng::scripted(vec![0.999; 1000]);
        let max_p = |q: &dyn Qdisc| {
            let mut m = f64::NAN;
            q.probe(&mut |k, v| {
                if k == "max_p" {
                    m = v
                }
            });
            m
        };
        let ms = |x: u64| SimTime(x * 1_000_000);
        let mut id = 0;
        let mut arrive = |q: &mut Box<dyn Qdisc>, t: SimTime| {
            id += 1;
            let pkt = Packet {
                id,
                size_bytes: 1000,
                ..Default::default()
            };
            q.enqueue(t, pkt, &mut rng);
        };
        // t = 0: not later than last_set + interval (0 + 0.5 s): no change.
        arrive(&mut q, ms(0));
        assert_eq!(max_p(&*q), 0.1);
        // Fill to 12 packets by t = 400 ms: still no change (within the first interval).
        for _ in 0..11 {
            arrive(&mut q, ms(400));
        }
        assert_eq!(max_p(&*q), 0.1);
        // t = 501 ms, avg = 12 > 11 → +min(0.01, 0.025).
        arrive(&mut q, ms(501));
        assert_eq!(max_p(&*q), 0.1 + 0.01);
        // Again at 900 ms: within interval of last_set = 501 ms → unchanged.
        arrive(&mut q, ms(900));
        assert_eq!(max_p(&*q), 0.1 + 0.01);
        arrive(&mut q, ms(1002));
        assert_eq!(max_p(&*q), 0.1 + 0.01 + 0.01);
    }

    #[test]
    fn validation() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        assert_eq!(parse("kind='ared'").unwrap().kind(), "ared");
        assert!(parse("kind='ared'\ninterval='1s'\ntarget_delay='10ms'").is_ok());
        assert_eq!(parse("kind='ared'\nmax_pp=0.1").unwrap_err().path, "max_pp");
        assert_eq!(parse("kind='ared'\nmax_th=30").unwrap_err().path, "max_th");
        assert_eq!(
            parse("kind='ared'\nmin_th=30\nmax_th=10").unwrap_err().path,
            "max_th"
        );
        assert_eq!(parse("kind='ared'\nbeta=1.2").unwrap_err().path, "beta");
        assert_eq!(
            parse("kind='ared'\ninterval='0s'").unwrap_err().path,
            "interval"
        );
        assert_eq!(parse("kind='ared'\nbottom=0.7").unwrap_err().path, "bottom");
        assert_eq!(parse("kind='ared'\nw_q=2").unwrap_err().path, "w_q");
    }
}
