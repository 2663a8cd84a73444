//! NLRED: nonlinear RED, RED with a quadratic drop curve.
//!
//! Source: paper 003 (`003_edfb7d1401f469aa.txt`), §4 "Nonlinear Random Early Detection",
//! eq. (3) and Fig. 9; semantics as ns-3's `RedQueueDisc` with `NLRED = true` (checked against the
//! ns-3 vector `t13` in `tests/red_vectors.rs`).
//!
//! # Equation
//! For `min_th ≤ avg < max_th`:
//! `p_b = max'_p · ((avg − min_th)/(max_th − min_th))²` with `max'_p = 1.5 · max_p`,
//! so that the area under the curve from `min_th` to `max_th` equals RED's linear one
//! (`∫₀¹ 1.5·max_p·x² dx = max_p/2 = ∫₀¹ max_p·x dx`). Everything else is RED (see `red.rs`):
//! EWMA with idle decay, count spacing (`wait`), first-crossing rule, forced drops at `max_th`.
//!
//! # Parameters (`kind = "nlred"`): exactly those of `red`
//! `max_p` is RED's equivalent `max_p` (the paper labels its NLRED curves that way, §5: "max_p =
//! 0.1 … means the actual maximum … is max'_p = 0.15"); ns-3 does the same (`p *= p · 1.5`).
//! Paper values (§5): `min_th = 10`, `max_th = 30`, `w_q = 0.002`, `max_p` 0.02–0.1, buffer 120.
//!
//! # Readings taken
//! - The paper's NLRED drops everything above `max_th` (no gentle region, §4.2), so `gentle`
//!   defaults to false. With `gentle = true` we do what ns-3 does: the gentle segment is RED's,
//!   from `max_p` (not `1.5·max_p`) at `max_th` to 1 at `2·max_th`, so the curve steps down at
//!   `max_th` from 1.5·max_p to max_p.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::red::{self, Adapt, Curve};
use super::{AlgorithmParams, BuildContext};
use crate::error::ScenarioError;
use crate::qdisc::Qdisc;

/// The parameters of `red`, under another kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Params(pub red::Params);

impl AlgorithmParams for Params {
    const KIND: &'static str = "nlred";
    const NAME: &'static str = "NLRED, nonlinear (quadratic) RED";
    const SOURCE: &'static str =
        "paper 003 (003_edfb7d1401f469aa.txt) §4 eq. (3): p_b = 1.5 max_p ((avg-min_th)/(max_th-min_th))^2";
    fn validate(&self) -> Result<(), ScenarioError> {
        self.0.check_common(true)
    }
    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        let red = self.0.core(ctx, Curve::Quadratic, Adapt::None);
        self.0.single_queue(ctx, red)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::{initial_p, Config, Slope};
    use crate::aqm::AqmConfig;

    fn cfg(curve: Curve, gentle: bool) -> Config {
        Config {
            min_th: 10.0,
            max_th: 30.0,
            w_q: 0.002,
            wait: true,
            gentle,
            bytes: false,
            hard_drop: true,
            forced_resets_count: false,
            mean_pkt_size: 1000,
            ptc: 187.5,
            idle_ptc: 187.5,
            curve,
            slope: Slope::new(10.0, 30.0, 0.1),
        }
    }

    #[test]
    fn curve_is_eq_3() {
        let c = cfg(Curve::Quadratic, false);
        for avg in [10.0, 12.0, 15.0, 20.0, 25.0, 29.5] {
            let x: f64 = (avg - 10.0) / 20.0;
            let want = 1.5 * 0.1 * x * x;
            let got = initial_p(&c, avg, 0.1);
            assert!((got - want).abs() < 1e-15, "avg {avg}: {got} vs {want}");
        }
        // Gentler than RED below 2/3 of the way, harsher above (paper Fig. 10).
        let lin = cfg(Curve::Linear, false);
        assert!(initial_p(&c, 15.0, 0.1) < initial_p(&lin, 15.0, 0.1));
        assert!(initial_p(&c, 27.0, 0.1) > initial_p(&lin, 27.0, 0.1));
    }

    #[test]
    fn area_equals_red_area() {
        // Midpoint rule over [min_th, max_th]: both areas → max_p·(max_th − min_th)/2 = 1.
        let (q, l) = (cfg(Curve::Quadratic, false), cfg(Curve::Linear, false));
        let n = 20_000;
        let h = 20.0 / n as f64;
        let area = |c: &Config| {
            (0..n)
                .map(|i| initial_p(c, 10.0 + (i as f64 + 0.5) * h, 0.1) * h)
                .sum::<f64>()
        };
        let (aq, al) = (area(&q), area(&l));
        assert!((al - 1.0).abs() < 1e-9, "{al}");
        assert!((aq - al).abs() < 1e-6, "{aq} vs {al}");
    }

    #[test]
    fn gentle_segment_is_reds() {
        let c = cfg(Curve::Quadratic, true);
        assert!((initial_p(&c, 30.0, 0.1) - 0.1).abs() < 1e-15);
        assert!((initial_p(&c, 45.0, 0.1) - 0.55).abs() < 1e-12);
    }

    #[test]
    fn parses_and_rejects_like_red() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let c = parse("kind='nlred'\nmin_th=10\nmax_th=30").unwrap();
        assert_eq!(c.kind(), "nlred");
        assert_eq!(
            parse("kind='nlred'\nmax_pp=0.1").unwrap_err().path,
            "max_pp"
        );
        assert_eq!(
            parse("kind='nlred'\nmin_th=30\nmax_th=10")
                .unwrap_err()
                .path,
            "max_th"
        );
    }
}
