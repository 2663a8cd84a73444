//! Self-configuring RED: RED whose `max_p` follows the traffic (Feng, Kandlur, Saha, Shin).
//!
//! Source: paper 004 (`004_618a487a53bfbc7f.txt`), §IV and Fig. 8 "Adaptive RED algorithm";
//! semantics as ns-3's `RedQueueDisc` with `FengAdaptive = true` (`UpdateMaxPFeng`).
//!
//! # Rule (Fig. 8), run on every update of the average (every arrival)
//! ```text
//! if min_th < avg < max_th:                 status = Between
//! if avg < min_th and status != Below:      status = Below;  max_p = max_p / alpha
//! if avg > max_th and status != Above:      status = Above;  max_p = max_p * beta
//! ```
//! The rule runs right after the average is updated and before the drop decision of the same
//! arrival, which then uses the new `max_p`. The rest is RED (`red.rs`).
//!
//! # Parameters (`kind = "self_config_red"`): those of `red`, plus
//! | key | unit | default | notes |
//! |---|---|---|---|
//! | `max_p` | probability | 0.02 | the *initial* max_p; paper §IV: "initially set max_p to 0.020" |
//! | `alpha` | factor > 1 | 3 | divisor when avg falls below min_th (paper: 3) |
//! | `beta` | factor > 1 | 2 | multiplier when avg rises above max_th (paper: 2) |
//!
//! # Readings taken
//! - Initial status: the paper does not say; ns-3 starts at `Above`, so the first time the
//!   average is below `min_th` (typically the very first arrival) max_p is divided by alpha. We
//!   follow ns-3.
//! - Bounds (ours): `max_p ∈ [1e-6, 1]`. The paper puts no bound on max_p and neither does
//!   ns-3, so every crossing below min_th divides it by alpha and every crossing above max_th
//!   multiplies it by beta without end: a long lightly loaded run that dips below min_th again
//!   and again drives it towards 0 (0.02/3ᵏ underflows to 0 after ~680 dips, and 0·beta stays 0
//!   for ever), and a run that keeps rising above max_th towards infinity (then
//!   `max_p·(avg − min_th)/(max_th − min_th)` is inf or NaN). max_p is the drop probability at
//!   max_th, so 1 is its natural top (Fig. 8's own `beta` steps start from 0.02); the floor 1e-6
//!   means an early drop per million arrivals at max_th, below anything the rule is meant to
//!   reach, and lets `beta` climb back in ⌈log₂(0.02/1e-6)⌉ = 15 crossings instead of hundreds.
//!   Comparisons are strict, so `avg == min_th` or `max_th` changes nothing.
//! - The gentle slope (if `gentle = true`) is computed once from the initial max_p (ns-3).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::red::{self, Adapt, Curve};
use super::{AlgorithmParams, BuildContext};
use crate::error::{check, ScenarioError};
use crate::qdisc::Qdisc;

red::red_family_params! {
    pub struct Params {
        /// Minimum threshold of the average queue, packets (bytes if bytes = true).
        pub min_th: f64,
        /// Maximum threshold of the average queue, packets (bytes if bytes = true).
        pub max_th: f64,
        /// Initial max_p, in (0, 1] (paper 004: 0.02).
        pub max_p: f64,
        ..shared..
        /// Max_p is divided by alpha when avg falls below min_th (paper: 3).
        pub alpha: f64,
        /// Max_p is multiplied by beta when avg rises above max_th (paper: 2).
        pub beta: f64,
    }
}

impl Default for Params {
    fn default() -> Self {
        let r = red::Params::default();
        Params {
            min_th: r.min_th,
            max_th: r.max_th,
            max_p: 0.02,
            w_q: r.w_q,
            wait: r.wait,
            gentle: r.gentle,
            bytes: r.bytes,
            ecn: r.ecn,
            hard_drop: r.hard_drop,
            forced_resets_count: r.forced_resets_count,
            mean_pkt_size: r.mean_pkt_size,
            idle_pkt_size: r.idle_pkt_size,
            alpha: 3.0,
            beta: 2.0,
        }
    }
}

impl Params {
    fn common(&self) -> red::Params {
        self.red_params(self.min_th, self.max_th, self.max_p)
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "self_config_red";
    const NAME: &'static str = "Self-configuring RED (Feng et al.)";
    const SOURCE: &'static str =
        "paper 004 (004_618a487a53bfbc7f.txt) §IV Fig. 8: max_p / alpha below min_th, * beta above max_th";
    fn validate(&self) -> Result<(), ScenarioError> {
        self.common().check_common(true)?;
        check(
            self.alpha.is_finite() && self.alpha > 1.0,
            "alpha",
            self.alpha,
            "a factor > 1 (paper: 3)",
        )?;
        check(
            self.beta.is_finite() && self.beta > 1.0,
            "beta",
            self.beta,
            "a factor > 1 (paper: 2)",
        )
    }
    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        let common = self.common();
        let adapt = Adapt::Feng {
            alpha: self.alpha,
            beta: self.beta,
        };
        let red = common.core(ctx, Curve::Linear, adapt);
        common.single_queue(ctx, red)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::QueueWeight;
    use crate::aqm::{Aqm, AqmConfig, QueueView};
    use crate::net::packet::Packet;
    use crate::qdisc::BufferLimit;
    use crate::rng::SimRng;
    use crate::time::SimTime;

    /// Drives the average along a scripted trace (w_q = 1: avg = the queue length offered) and
    /// collects max_p after each update.
    fn trace(avgs: &[usize]) -> Vec<f64> {
        let p = Params {
            w_q: QueueWeight::Fixed(1.0),
            min_th: 5.0,
            max_th: 15.0,
            ..Params::default()
        };
        let ctx = crate::aqm::red::tests::ctx(BufferLimit::Packets(100));
        let mut red = p.common().core(
            &ctx,
            Curve::Linear,
            Adapt::Feng {
                alpha: 3.0,
                beta: 2.0,
            },
        );
        let mut rng = SimRng::scripted(vec![0.999; 100]);
        avgs.iter()
            .map(|&q| {
                let view = QueueView {
                    len_pkts: q,
                    len_bytes: q as u64 * 1000,
                    limit: BufferLimit::Packets(100),
                    link_rate_bps: 1_500_000,
                };
                let pkt = Packet {
                    size_bytes: 1000,
                    ..Default::default()
                };
                red.on_enqueue(SimTime::ZERO, &pkt, &view, &mut rng);
                let mut max_p = f64::NAN;
                red.probe(&mut |k, v| {
                    if k == "max_p" {
                        max_p = v
                    }
                });
                max_p
            })
            .collect()
    }

    #[test]
    fn fig8_step_by_step() {
        // status starts Above: the first avg below min_th divides (0.02/3); staying below does
        // nothing; between sets Between; above multiplies once (×2); staying above nothing;
        // crossing to below divides again; exactly at a threshold changes nothing.
        let avgs = [2, 3, 10, 20, 25, 10, 20, 1, 5, 15, 4];
        let a = 0.02 / 3.0;
        let b = a * 2.0;
        let c = b * 2.0;
        let d = c / 3.0;
        let want = [a, a, a, b, b, b, c, d, d, d, d];
        let got = trace(&avgs);
        for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
            assert_eq!(g, w, "step {i} (avg {})", avgs[i]);
        }
    }

    #[test]
    fn validation() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let c = parse("kind='self_config_red'").unwrap();
        match &c {
            AqmConfig::SelfConfigRed(p) => assert_eq!((p.max_p, p.alpha, p.beta), (0.02, 3.0, 2.0)),
            _ => panic!("wrong kind"),
        }
        assert_eq!(
            parse("kind='self_config_red'\nmax_pp=0.1")
                .unwrap_err()
                .path,
            "max_pp"
        );
        assert_eq!(
            parse("kind='self_config_red'\nalpha=1").unwrap_err().path,
            "alpha"
        );
        assert_eq!(
            parse("kind='self_config_red'\nbeta=0.5").unwrap_err().path,
            "beta"
        );
        assert_eq!(
            parse("kind='self_config_red'\nmax_th=3").unwrap_err().path,
            "max_th"
        );
    }
}
