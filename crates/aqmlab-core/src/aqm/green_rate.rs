//! Rate-based GREEN (Wydrowski and Zukerman): step the marking rate on the sign of
//! (arrival-rate estimate − target capacity).
//!
//! Source: `papers/001_b15d0b1564b3cf2d.txt` §3 (algorithm, eqs. 3–5) and §4 (the parameters of
//! its simulations). Equations (3) and (4) were lost in the text copy; the prose pins them down:
//! "If the link's estimated data arrival rate x_est is above the target link capacity c_t, the
//! rate of congestion notification, P, is incremented by ΔP at a rate of 1/ΔT. Conversely, if
//! x_est is below c_t, P is decremented by ΔP at a rate of 1/ΔT", with the step function U.
//!
//! # Equations
//! ```text
//! per arrival:  x_est ← (1 − e^(−Del/K)) · B/Del + e^(−Del/K) · x_est        (eq. 5)
//! every ΔT:     P ← clamp(P + ΔP · U(x_est − c_t), 0, 1),  U(x) = +1 if x ≥ 0 else −1
//!               c_t = target · c  (c = link rate)
//! ```
//! `Del` is the time since the previous arrival (s), `B` the packet's size in bits, `K` the time
//! constant (s). Each arrival is marked (ECN) or dropped with probability P
//! (`Verdict::Signal(Early)`); a uniform is drawn only when `0 < P < 1`.
//!
//! # Parameters
//! | key | unit | default | paper (§4) |
//! |---|---|---|---|
//! | `delta_t` | duration | "10ms" | ΔT = 10 ms |
//! | `delta_p` | probability step | 0.001 | ΔP = 0.001 |
//! | `k` | duration | "100ms" | K = 0.1 (s) |
//! | `target` | fraction of the link rate | 0.97 | "Cl = 0.97% of Capacity" (a typo for 97 %: §3 says "typically 0.97 c") |
//! | `ecn` | bool | true | "All algorithms were configured to use ECN" |
//! | `non_ect` | `"drop"` or `"pass"` | "drop" | with `ecn`, a picked packet that is not ECN-capable: dropped (RFC 3168 §5) or sent on unmarked (`aqm/non_ect.rs`); the paper does not say, and ns-2.35 has no GREEN |
//!
//! # Readings where the paper is ambiguous
//! - `Del = 0` (two arrivals at the same instant): eq. (5) is 0·∞; we use its limit as Del → 0,
//!   `x_est ← B/K + x_est`.
//! - All arrivals feed x_est, including those GREEN then drops: it estimates the *incoming* rate.
//! - The estimator before the first arrival is 0, with the previous arrival taken at t = 0.
//! - Silence: eq. (5) only runs on arrivals, so during a silence the last estimate would go on
//!   raising P every ΔT. At each ΔT we use `min(x_est, x_next)`, where `x_next` is what eq. (5)
//!   would give if a packet of the last arrival's size arrived *now*. While packets keep coming
//!   at the estimated rate `x_next ≥ x_est` (for `now − last < B/x_est`), so this is exactly
//!   x_est; in a silence it decays as eq. (5) would. (The paper's traffic never idles.)
//! - The ΔT updates run at `k·ΔT` from the timer; hooks that see `now` past a due update run it
//!   first (same result when an arrival at the boundary is processed before the timer).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, NonEct, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Duration between updates of P; paper: 10ms.
    pub delta_t: SimDuration,
    /// Step of the marking probability P per update, in (0, 1]; paper: 0.001.
    pub delta_p: f64,
    /// Time constant of the arrival-rate estimate (duration); paper: 100ms.
    pub k: SimDuration,
    /// Target arrival rate as a fraction of the link rate, in (0, 1]; paper: 0.97.
    pub target: f64,
    /// Mark ECN-capable packets instead of dropping them; paper: true.
    pub ecn: bool,
    /// With ecn: what happens to a packet that is not ECN-capable when the law picks it:
    /// "drop" (RFC 3168 section 5, ns-2's RED) or "pass" (sent on unmarked, as ns-2.35's rem.cc
    /// with markpkts_). The default "drop" is left out of a resolved scenario, so a scenario
    /// without the key resolves (and hashes) the same as one that gives it.
    // The schema states the default itself: serde skips it when serialising `Default`.
    #[serde(skip_serializing_if = "NonEct::is_drop")]
    #[schemars(extend("default" = "drop"))]
    pub non_ect: NonEct,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            delta_t: SimDuration::from_millis(10),
            delta_p: 0.001,
            k: SimDuration::from_millis(100),
            target: 0.97,
            ecn: true,
            non_ect: NonEct::Drop,
        }
    }
}

/// Equation (5): the rate estimate (bit/s) after an arrival of `bits` bits `del_s` seconds
/// after the previous one, with time constant `k_s`.
pub fn rate_update(x_est: f64, del_s: f64, bits: f64, k_s: f64) -> f64 {
    let decay = (-del_s / k_s).exp();
    // (1 − e^(−Del/K)) / Del, computed stably; its limit at Del → 0 is 1/K.
    let gain_per_s = if del_s > 0.0 {
        -(-del_s / k_s).exp_m1() / del_s
    } else {
        1.0 / k_s
    };
    gain_per_s * bits + decay * x_est
}

/// The estimate used at an update instant `since_s` seconds after the last arrival (of
/// `last_bits` bits): x_est, or less if a packet arriving now would already lower it.
pub fn estimate_at(x_est: f64, since_s: f64, last_bits: f64, k_s: f64) -> f64 {
    x_est.min(rate_update(x_est, since_s, last_bits, k_s))
}

/// One ΔT step: `P + ΔP·U(x − c_t)`, U(0) = +1, clamped to [0, 1].
pub fn p_step(p: f64, x_est: f64, c_target: f64, delta_p: f64) -> f64 {
    let u = if x_est - c_target >= 0.0 { 1.0 } else { -1.0 };
    (p + delta_p * u).clamp(0.0, 1.0)
}

/// Rate-based GREEN's state.
pub struct GreenRate {
    // configured
    delta_t: SimDuration,
    delta_p: f64,
    k_s: f64,
    target: f64,
    /// `Params::ecn` and `Params::non_ect`: the verdict on a picked packet.
    ecn: bool,
    non_ect: NonEct,
    // maintained
    link_rate_bps: u64,
    p: f64,
    x_est: f64,
    last_arrival: SimTime,
    last_bits: f64,
    next_update: SimTime,
}

impl GreenRate {
    pub fn new(p: &Params, link_rate_bps: u64) -> GreenRate {
        GreenRate {
            delta_t: p.delta_t,
            delta_p: p.delta_p,
            k_s: p.k.as_secs_f64(),
            target: p.target,
            ecn: p.ecn,
            non_ect: p.non_ect,
            link_rate_bps,
            p: 0.0,
            x_est: 0.0,
            last_arrival: SimTime::ZERO,
            last_bits: 0.0,
            next_update: SimTime::ZERO + p.delta_t,
        }
    }

    fn advance(&mut self, now: SimTime) {
        while now >= self.next_update {
            let t = self.next_update;
            let x = estimate_at(
                self.x_est,
                t.since(self.last_arrival).as_secs_f64(),
                self.last_bits,
                self.k_s,
            );
            let c_target = self.target * self.link_rate_bps as f64;
            self.p = p_step(self.p, x, c_target, self.delta_p);
            self.next_update += self.delta_t;
        }
    }
}

impl Aqm for GreenRate {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now);
        let bits = pkt.size_bytes as f64 * 8.0;
        let del = now.since(self.last_arrival).as_secs_f64();
        self.x_est = rate_update(self.x_est, del, bits, self.k_s);
        self.last_arrival = now;
        self.last_bits = bits;
        let hit = if self.p >= 1.0 {
            true
        } else if self.p > 0.0 {
            rng.uniform() < self.p
        } else {
            false
        };
        if hit {
            self.non_ect.verdict(self.ecn, pkt, Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p", self.p);
        out("x_est_bps", self.x_est);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "green_rate";
    const NAME: &'static str = "GREEN, rate-based (Wydrowski/Zukerman)";
    const SOURCE: &'static str =
        "papers/001_b15d0b1564b3cf2d.txt, section 3: EWMA arrival rate x_est \
         (eq. 5), P +/- delta_p every delta_t on the sign of x_est - 0.97c";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.delta_t >= crate::time::MIN_TIMER_PERIOD,
            "delta_t",
            self.delta_t,
            "a duration of at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        check(
            self.delta_p > 0.0 && self.delta_p <= 1.0,
            "delta_p",
            self.delta_p,
            "in (0, 1]",
        )?;
        check(
            self.k > SimDuration::ZERO,
            "k",
            self.k,
            "a positive duration such as \"100ms\"",
        )?;
        check(
            self.target > 0.0 && self.target <= 1.0,
            "target",
            self.target,
            "in (0, 1]",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, GreenRate::new(self, ctx.link_rate_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::qdisc::BufferLimit;

    const RATE: u64 = 10_000_000;

    fn view() -> QueueView {
        QueueView {
            len_pkts: 0,
            len_bytes: 0,
            limit: BufferLimit::Packets(100),
            link_rate_bps: RATE,
        }
    }

    fn pkt() -> Packet {
        crate::aqm::test_support::pkt(0, 0, 1000)
    }

    #[test]
    fn non_ect_chooses_the_fate_of_a_picked_not_ect_packet() {
        let not_ect = pkt(); // test_support packets are Not-ECT
        assert!(!not_ect.is_ecn_capable());
        let ect = Packet {
            ecn: crate::net::packet::Ecn::Ect,
            ..pkt()
        };
        let early = Verdict::Signal(Reason::Early);
        for (non_ect, want) in [(NonEct::Drop, early), (NonEct::Pass, Verdict::Pass)] {
            let p = Params {
                non_ect,
                ..Params::default()
            };
            let mut g = GreenRate::new(&p, RATE);
            g.p = 1.0;
            let mut rng = SimRng::new(1, 1);
            assert_eq!(g.on_enqueue(SimTime(1), &not_ect, &view(), &mut rng), want);
            assert_eq!(g.on_enqueue(SimTime(2), &ect, &view(), &mut rng), early);
        }
    }

    #[test]
    fn rate_update_by_hand() {
        // Del = K: x = (1 − e^-1)·B/Del + e^-1·x0. B = 8000 bits, Del = 0.1 s, x0 = 1e5.
        let e1 = (-1f64).exp();
        let want = (1.0 - e1) * 80_000.0 + e1 * 1e5;
        assert!((rate_update(1e5, 0.1, 8000.0, 0.1) - want).abs() < 1e-6);
        // Del = 0: limit B/K + x.
        assert!((rate_update(5.0, 0.0, 8000.0, 0.1) - 80_005.0).abs() < 1e-9);
    }

    #[test]
    fn estimate_converges_to_constant_rate() {
        // 1000-byte packets every 1 ms = 8 Mbit/s. After 2 s (20 K), x_est = 8e6 to 1e-6.
        let mut x = 0.0;
        for _ in 0..2000 {
            x = rate_update(x, 0.001, 8000.0, 0.1);
        }
        assert!((x - 8e6).abs() / 8e6 < 1e-6, "{x}");
        // Fixed point is exact: B/Del.
        assert!((rate_update(8e6, 0.001, 8000.0, 0.1) - 8e6).abs() < 1e-6);
        // Between arrivals the update-time view equals x_est; after a 1 s silence it decays.
        assert_eq!(estimate_at(8e6, 0.0005, 8000.0, 0.1), 8e6);
        let silent = estimate_at(8e6, 1.0, 8000.0, 0.1);
        assert!(silent < 8e6 * 1e-4 + 8000.0 / 1.0, "{silent}");
    }

    #[test]
    fn p_steps_and_clamps() {
        assert_eq!(p_step(0.5, 10.0, 9.7, 0.001), 0.501);
        assert_eq!(p_step(0.5, 9.7, 9.7, 0.001), 0.501); // U(0) = +1
        assert_eq!(p_step(0.5, 9.0, 9.7, 0.001), 0.499);
        assert_eq!(p_step(0.0, 9.0, 9.7, 0.001), 0.0);
        assert_eq!(p_step(0.9995, 10.0, 9.7, 0.001), 1.0);
    }

    /// Drive the algorithm with a constant arrival rate above the target, then silence, and
    /// check that every update moves P by exactly ΔP, up while the rate is above target and
    /// down once the silence has pulled the estimate below it.
    #[test]
    fn p_moves_one_step_per_interval() {
        let mut g = GreenRate::new(&Params::default(), RATE);
        let mut rng = SimRng::new(0, 0);
        let q = view();
        let mut ps = vec![0.0];
        let fire = |g: &mut GreenRate, upto: u64, ps: &mut Vec<f64>| {
            while let Some(n) = g.next_timer() {
                if n.0 > upto {
                    break;
                }
                g.on_timer(n, &q);
                ps.push(g.p);
            }
        };
        // 12 Mbit/s > 9.7 Mbit/s target: 1000 B every 666_667 ns, for 1 s.
        let mut t = 0u64;
        while t < 1_000_000_000 {
            fire(&mut g, t, &mut ps);
            g.on_enqueue(SimTime(t), &pkt(), &q, &mut rng);
            t += 666_667;
        }
        assert!((g.x_est - 12e6).abs() / 12e6 < 1e-3, "{}", g.x_est);
        let busy = ps.len();
        // Silence until 1.2 s.
        fire(&mut g, 1_200_000_000, &mut ps);
        assert_eq!(ps.len(), 121);
        let d: Vec<f64> = ps.windows(2).map(|w| w[1] - w[0]).collect();
        for (i, &x) in d.iter().enumerate() {
            let ok = (x.abs() - 0.001).abs() < 1e-12 || (x == 0.0 && ps[i] == 0.0);
            assert!(ok, "step {i}: {x}");
        }
        // The estimate needs ~K·ln(12/2.3) = 165 ms to pass 9.7 Mbit/s; from 0.2 s on, all up.
        assert!(d[20..busy - 1].iter().all(|&x| x > 0.0));
        // The estimate starts at 0 (below target): P stays clamped at 0 at first.
        assert_eq!(ps[1], 0.0);
        // Silence: after ~30 ms the estimate is below target and every step is down.
        assert!(
            d[busy + 3..].iter().all(|&x| x < 0.0),
            "{:?}",
            &d[busy - 2..]
        );
    }

    #[test]
    fn marks_with_probability_p() {
        let p = Params::default();
        let mut q = p.build(&BuildContext {
            limit: BufferLimit::Packets(1000),
            link_rate_bps: RATE,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        });
        let mut rng = SimRng::new(5, 5);
        // Overload at 20 Mbit/s (1000 B every 400 us) for 3 s; dequeue one per 800 us.
        let mut next_deq = 0u64;
        for i in 0..7500u64 {
            let t = i * 400_000;
            while let Some(n) = q.next_timer() {
                if n.0 > t {
                    break;
                }
                q.on_timer(n, &mut rng);
            }
            q.enqueue(SimTime(t), pkt(), &mut rng);
            while next_deq <= t {
                q.dequeue(SimTime(next_deq), &mut rng, &mut |_, _| {});
                next_deq += 800_000;
            }
            assert!(q.stats().conserved(q.len_pkts()));
        }
        let mut p_now = 0.0;
        q.probe(&mut |k, v| {
            if k == "p" {
                p_now = v
            }
        });
        // Above target from ~50 ms on: P climbs 0.001 per 10 ms to ~0.29, and (packets are not
        // ECN-capable) about mean(P)·arrivals ≈ 0.15·7500 are dropped early.
        assert!((0.27..=0.30).contains(&p_now), "{p_now}");
        let early = q.stats().dropped_before_enqueue[Reason::Early as usize];
        assert!((900..1300).contains(&early), "{early}");
    }

    #[test]
    fn validation_and_unknown_keys() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        assert!(parse("kind='green_rate'\ndelta_t='5ms'\nk='50ms'").is_ok());
        assert_eq!(
            parse("kind='green_rate'\nmax_pp=0.1").unwrap_err().path,
            "max_pp"
        );
        assert_eq!(
            parse("kind='green_rate'\ndelta_p=0").unwrap_err().path,
            "delta_p"
        );
        assert_eq!(
            parse("kind='green_rate'\ntarget=1.5").unwrap_err().path,
            "target"
        );
        assert_eq!(parse("kind='green_rate'\nk='0s'").unwrap_err().path, "k");
        assert_eq!(
            parse("kind='green_rate'\ndelta_t='0s'").unwrap_err().path,
            "delta_t"
        );
    }
}
