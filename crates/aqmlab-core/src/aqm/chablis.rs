//! Chablis (and Chardonnay): RED whose mark probability depends on each packet's RTT label.
//!
//! Source: `papers/002_24dd6513f24de3ea.txt`, C.-S. Lee, M. Claypool, R. Kinicki, "Chablis —
//! Achieving Fair Bandwidth Allocation with Priority Dropping Based on Round Trip Time" (2002),
//! §2 (Figs. 2–4, eq. 4). Chardonnay (§4) is the same algorithm dropping instead of marking:
//! `ecn = false`.
//!
//! # Equations (per arriving packet, Fig. 2)
//! - RED average: `avg ← (1 − w_q)·avg + w_q·q` (q in packets), with ns-3's idle-time decay
//!   `avg ← (1 − w_q)^m·avg`, `m` = packets the link could have sent while the queue was empty
//!   (`red::Average`, the EWMA the `red` kind is held to ns-3 with).
//! - If the packet carries an RTT label `R > 0` (`Packet::rtt_label`, the sender's lowest RTT):
//!   `R_average ← (1 − w_rtt)·R_average + w_rtt·R` (§2.2, `w_rtt = 0.1`), then Fig. 3 moves
//!   `R_formula` (below).
//! - `avg ≥ max_th`: drop (Fig. 2 `dropPacket(p, 1)`, reason `forced`, a drop even with ECN).
//! - `min_th ≤ avg < max_th`: `p_base = max_p·(avg − min_th)/(max_th − min_th)` (RED's `p_b`), and
//!   eq. 4 `p = p_base·(R_formula/R)^e`, with `e = alpha` (1.6) when `R < R_formula` (robust, short-RTT
//!   flows: the ratio is > 1 and their probability rises) and `e = beta` (1.4) when `R > R_formula`
//!   (fragile, long-RTT flows: the ratio is < 1 and their probability falls). §2.3: "the exponent
//!   used for the mark probability for robust flows will be called α and … for fragile flows β";
//!   §3.1 gives α = 1.6, β = 1.4 (theory 1/0.63 ≈ 1.58 for both). `p` is clamped to [0, 1] and
//!   is the packet's mark probability, as the paper calls eq. 4's result.
//!   `count_spacing = true` additionally applies RED's count-based spacing `p_a = p/(1 − count·p)`
//!   with one count shared by all packets. Off by default: the paper builds the base probability
//!   from min_th, max_th, max_p and the average alone and calls eq. 4 "the per-packet mark
//!   probability"; and a shared count lets the frequent short-RTT packets absorb the marks, which
//!   over-corrects (experiment 2 of the reproduction: robust cluster 2.3 vs fragile 3.9 Mbps with
//!   spacing, [3.26, 3.45] without; the paper prints [3.14, 3.56]).
//! - Packets without a label (or a zero label) are treated as `R = R_formula`: plain RED.
//! - `rtt_source = "true"` (a diagnostic, not the paper's mechanism) replaces every packet's label
//!   by its flow's propagation RTT from the topology (`FlowInfo::base_rtt`), the "best-case
//!   round-trip time" §2.1 wants the edge to write. The paper's sender writes "the lowest RTT
//!   recorded" (`rtt_source = "label"`, the default), which includes whatever queueing delay the
//!   flow saw at its best moment: under a standing queue identical flows carry different labels.
//!
//! # R_formula (Fig. 3)
//! `R_formula` holds still while `R_average` is inside `(R_formula − band, R_formula + band)`
//! (band = 12.5 ms). Once `R_average` has stayed outside the band, on the same side, for more than
//! `hold` (100 ms), `R_formula` is updated and the timer restarts. Crossing from one side of the
//! band to the other ("crossing over") restarts the timer. The timer (Fig. 3 `lasttime`) is
//! restarted by every packet inside the band and by the packet that leaves it, so after a pause
//! in arrivals the first packet outside does not move `R_formula` at once.
//!
//! # Readings taken where the paper is ambiguous
//! - "update R_formula towards the new R_average": the paper gives no step size. We **set
//!   `R_formula = R_average`**. The 100 ms hold already filters noise; a partial step would make
//!   `R_formula` lag a genuine change by several holds, against §2.2's aim ("to adjust quickly to
//!   changes in the network"). After the jump `R_average` is inside the band, so it holds again.
//! - Initial values: the first labelled packet sets `R_average = R_formula = R` (the paper does
//!   not say; starting from 0 would treat every flow as fragile for the first seconds).
//! - Fig. 7 (the RED settings of the experiments) is an image missing from the text copy; §3 says
//!   "any setting not listed in the figure is set to the default NS-2 configuration", so defaults
//!   are ns-2's RED defaults: `min_th = 5`, `max_th = 15`, `max_p = 0.1` (linterm 10),
//!   `w_q = 0.002`.
//! - Count-based spacing follows Floyd & Jacobson (count starts at 0 when avg first exceeds
//!   `min_th`, `−1` below it); we do not reproduce ns-2's `wait` variant or its "no early drop with
//!   one packet queued" rule here (the `red` kind does).
//! - The forced region (`avg ≥ max_th`) drops regardless of RTT, as Fig. 2 is written.
//!
//! # Parameters
//! | key | unit | default | paper |
//! |---|---|---|---|
//! | `min_th` | packets | 5 | ns-2 default (Fig. 7 lost) |
//! | `max_th` | packets | 15 | ns-2 default |
//! | `max_p` | probability | 0.1 | ns-2 default |
//! | `w_q` | weight | 0.002 | 0.002 (§2.2 "a typical w_q of 0.002") |
//! | `w_rtt` | weight | 0.1 | 0.1 (§2.2) |
//! | `band` | duration | 12.5ms | ±12.5 ms (§2.2) |
//! | `hold` | duration | 100ms | 100 ms (§2.2) |
//! | `alpha` | exponent, robust (R < R_formula) | 1.6 | 1.6 (§3.1) |
//! | `beta` | exponent, fragile (R > R_formula) | 1.4 | 1.4 (§3.1) |
//! | `count_spacing` | bool | false | not in the paper (RED's uniformisation, shared count) |
//! | `rtt_source` | label \| true | label | label (§2.1: the sender's lowest recorded RTT) |
//! | `ecn` | bool | true | Chablis marks; `false` = Chardonnay |
//!
//! Probes: `avg`, `r_average_ms`, `r_formula_ms`, `p_base`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, FifoArithmetic, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

use super::red::{self, Average};
use super::red_core::{linear_pb, spaced, validate_red};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Packets: RED minimum threshold on the average queue.
    pub min_th: f64,
    /// Packets: above it every arrival is dropped (forced).
    pub max_th: f64,
    /// RED probability at max_th, before the RTT factor.
    pub max_p: f64,
    /// Weight of the queue average EWMA.
    pub w_q: f64,
    /// Weight of the R_average EWMA over RTT labels (paper 0.1).
    pub w_rtt: f64,
    /// Duration: R_formula holds while R_average is within ± band (paper 12.5ms).
    pub band: SimDuration,
    /// Duration: R_average must stay outside the band this long before R_formula moves (paper
    /// 100ms).
    pub hold: SimDuration,
    /// Exponent for robust packets, R < R_formula (paper 1.6).
    pub alpha: f64,
    /// Exponent for fragile packets, R > R_formula (paper 1.4).
    pub beta: f64,
    /// Apply RED's p/(1 - count p) spacing to the RTT-scaled probability.
    pub count_spacing: bool,
    /// Mark ECN-capable packets (Chablis); false drops them (Chardonnay).
    pub ecn: bool,
    /// Label (the packet's RTT label, the paper) | true (the flow's propagation RTT; diagnostic).
    pub rtt_source: RttSource,
}

/// Where Chablis reads a packet's RTT `R`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// The packet's RTT label (the sender's lowest recorded RTT, §2.1).
    Label,
    /// The flow's propagation RTT from the topology (diagnostic: a perfect best-case hint).
    True,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            w_rtt: 0.1,
            band: SimDuration::from_micros(12_500),
            hold: SimDuration::from_millis(100),
            alpha: 1.6,
            beta: 1.4,
            count_spacing: false,
            ecn: true,
            rtt_source: RttSource::Label,
        }
    }
}

/// Eq. 4: `p_base·(R_formula/R)^e`, `e = alpha` if `R < R_formula`, `beta` if `R > R_formula`,
/// clamped to [0, 1]. Times in seconds; `r <= 0` means "no label" and returns `p_base`.
#[inline]
pub fn rtt_probability(p_base: f64, r_formula: f64, r: f64, alpha: f64, beta: f64) -> f64 {
    if r <= 0.0 || r_formula <= 0.0 || r == r_formula {
        return p_base.clamp(0.0, 1.0);
    }
    let e = if r < r_formula { alpha } else { beta };
    (p_base * (r_formula / r).powf(e)).clamp(0.0, 1.0)
}

/// Which side of the band around R_formula R_average is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Side {
    Inside,
    Above,
    Below,
}

/// The stabilised RTT of Fig. 3: `R_average` (EWMA of labels) and `R_formula` (moved only after
/// `R_average` stayed outside ±band for `hold`). Times in seconds.
#[derive(Clone, Debug)]
pub struct RttTracker {
    w: f64,
    band: f64,
    hold: SimDuration,
    pub r_average: f64,
    pub r_formula: f64,
    last_time: SimTime,
    last_side: Side,
    started: bool,
}

impl RttTracker {
    pub fn new(w: f64, band: SimDuration, hold: SimDuration) -> RttTracker {
        RttTracker {
            w,
            band: band.as_secs_f64(),
            hold,
            r_average: 0.0,
            r_formula: 0.0,
            last_time: SimTime::ZERO,
            last_side: Side::Inside,
            started: false,
        }
    }

    /// Folds in one packet's RTT label `r` (seconds) at `now`.
    pub fn update(&mut self, now: SimTime, r: f64) {
        if !self.started {
            self.started = true;
            self.r_average = r;
            self.r_formula = r;
            self.last_time = now;
            return;
        }
        self.r_average = (1.0 - self.w) * self.r_average + self.w * r;
        let side = if self.r_average >= self.r_formula + self.band {
            Side::Above
        } else if self.r_average <= self.r_formula - self.band {
            Side::Below
        } else {
            Side::Inside
        };
        let prev = self.last_side;
        let crossed = matches!(
            (prev, side),
            (Side::Above, Side::Below) | (Side::Below, Side::Above)
        );
        self.last_side = side;
        // Fig. 3 restarts the timer on every packet inside the band; we also restart it on the
        // packet that leaves the band, so the hold counts time spent *outside* even when
        // packets are sparse (with back-to-back packets the two readings coincide).
        if side == Side::Inside || prev == Side::Inside || crossed {
            self.last_time = now;
        } else if now.since(self.last_time) > self.hold {
            self.last_time = now;
            self.r_formula = self.r_average;
            self.last_side = Side::Inside;
        }
    }
}

pub struct Chablis {
    p: Params,
    avg: Average,
    rtt: RttTracker,
    /// Packets since the last mark while min_th ≤ avg < max_th (−1 below min_th).
    count: i64,
    p_base: f64,
    /// With `rtt_source = "true"`: each flow's propagation RTT (seconds), indexed by `FlowId`.
    flow_rtt_s: Vec<f64>,
}

impl Chablis {
    pub fn new(p: &Params, link_rate_bps: u64, mean_pkt_bytes: u32) -> Chablis {
        Chablis {
            p: p.clone(),
            avg: Average::new(p.w_q, red::ptc(link_rate_bps, mean_pkt_bytes.max(1))),
            rtt: RttTracker::new(p.w_rtt, p.band, p.hold),
            count: -1,
            p_base: 0.0,
            flow_rtt_s: Vec::new(),
        }
    }

    /// As `new`, with the flows' propagation RTTs for `rtt_source = "true"`.
    pub fn with_context(p: &Params, ctx: &BuildContext) -> Chablis {
        let mut c = Chablis::new(p, ctx.link_rate_bps, ctx.mean_pkt_bytes);
        if p.rtt_source == RttSource::True {
            c.flow_rtt_s = ctx.flows.iter().map(|f| f.base_rtt.as_secs_f64()).collect();
        }
        c
    }

    /// The packet's `R` in seconds (0 = unknown).
    #[inline]
    fn packet_rtt_s(&self, pkt: &Packet) -> f64 {
        match self.p.rtt_source {
            RttSource::Label => pkt.rtt_label.as_secs_f64(),
            RttSource::True => self
                .flow_rtt_s
                .get(pkt.flow as usize)
                .copied()
                .unwrap_or(0.0),
        }
    }
}

impl Aqm for Chablis {
    /// Decides at arrival only; departures and idle periods are bookkeeping.
    fn fifo_arithmetic(&self) -> FifoArithmetic {
        FifoArithmetic::Decides
    }
    fn timed(&self) -> bool {
        false
    }

    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        let avg = self.avg.update(now, q.len_pkts as f64);
        let label = self.packet_rtt_s(pkt);
        if label > 0.0 {
            self.rtt.update(now, label);
        }
        if avg >= self.p.max_th {
            self.count = 0;
            self.p_base = 1.0;
            return Verdict::Drop(Reason::Forced);
        }
        if avg < self.p.min_th {
            self.count = -1;
            self.p_base = 0.0;
            return Verdict::Pass;
        }
        self.count += 1;
        self.p_base = linear_pb(avg, self.p.min_th, self.p.max_th, self.p.max_p);
        let r = if label > 0.0 {
            label
        } else {
            self.rtt.r_formula
        };
        let p = rtt_probability(
            self.p_base,
            self.rtt.r_formula,
            r,
            self.p.alpha,
            self.p.beta,
        );
        let p = if self.p.count_spacing {
            spaced(p, self.count)
        } else {
            p
        };
        if p > 0.0 && rng.uniform() < p {
            self.count = 0;
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn on_dequeue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        // ns-3 RED: a dequeue that returns a packet ends an idle period.
        self.avg.busy();
        Verdict::Pass
    }

    fn on_empty(&mut self, now: SimTime) {
        self.avg.idle(now);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("avg", self.avg.avg);
        out("r_average_ms", self.rtt.r_average * 1e3);
        out("r_formula_ms", self.rtt.r_formula * 1e3);
        out("p_base", self.p_base);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "chablis";
    const NAME: &'static str = "Chablis (RTT-label priority marking; ecn = false is Chardonnay)";
    const SOURCE: &'static str = "papers/002_24dd6513f24de3ea.txt §2: Figs. 2-3, eq. 4 \
        p = p_base (R_formula/R)^alpha|beta, R_average EWMA w=0.1, R_formula held within ±12.5 ms for 100 ms";

    fn validate(&self) -> Result<(), ScenarioError> {
        validate_red(self.min_th, self.max_th, self.max_p, self.w_q)?;
        check(
            self.w_rtt > 0.0 && self.w_rtt <= 1.0,
            "w_rtt",
            self.w_rtt,
            "in (0, 1]",
        )?;
        check(
            self.band > SimDuration::ZERO,
            "band",
            self.band,
            "a positive duration",
        )?;
        check(
            self.alpha.is_finite() && self.alpha >= 0.0,
            "alpha",
            self.alpha,
            ">= 0",
        )?;
        check(
            self.beta.is_finite() && self.beta >= 0.0,
            "beta",
            self.beta,
            ">= 0",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Chablis::with_context(self, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support;
    use crate::aqm::AqmConfig;
    use crate::net::packet::Ecn;
    use crate::qdisc::{BufferLimit, Outcome};

    const MS: f64 = 1e-3;

    #[test]
    fn exponent_alpha_below_and_beta_above_r_formula() {
        // R_formula = 100 ms, p_base = 0.05.
        // Robust R = 50 ms: 0.05·2^1.6 = 0.05·3.0314331 = 0.15157166.
        let p = rtt_probability(0.05, 100.0 * MS, 50.0 * MS, 1.6, 1.4);
        assert!((p - 0.151_571_66).abs() < 1e-7, "{p}");
        // Fragile R = 200 ms: 0.05·0.5^1.4 = 0.05·0.37892914 = 0.01894646.
        let p = rtt_probability(0.05, 100.0 * MS, 200.0 * MS, 1.6, 1.4);
        assert!((p - 0.018_946_46).abs() < 1e-7, "{p}");
        // Equal RTT, or no label: plain RED.
        assert_eq!(rtt_probability(0.05, 0.1, 0.1, 1.6, 1.4), 0.05);
        assert_eq!(rtt_probability(0.05, 0.1, 0.0, 1.6, 1.4), 0.05);
        // Clamp: 0.5·(100/10)^1.6 = 0.5·39.8 > 1.
        assert_eq!(rtt_probability(0.5, 0.1, 0.01, 1.6, 1.4), 1.0);
        // Swapping the exponents changes the answer (the side matters).
        let swapped = rtt_probability(0.05, 100.0 * MS, 50.0 * MS, 1.4, 1.6);
        assert!((swapped - 0.05 * 2f64.powf(1.4)).abs() < 1e-12);
    }

    #[test]
    fn red_helpers_match_hand_values() {
        // avg 10 between 5 and 15 with max_p 0.1 → 0.05; count 4 → 0.05/(1-0.2) = 0.0625.
        assert!((linear_pb(10.0, 5.0, 15.0, 0.1) - 0.05).abs() < 1e-12);
        assert_eq!(linear_pb(4.0, 5.0, 15.0, 0.1), 0.0);
        assert!((spaced(0.05, 4) - 0.0625).abs() < 1e-12);
        assert_eq!(spaced(0.05, 20), 1.0);
        assert_eq!(spaced(0.05, -1), 0.05);
        // EWMA: from 0 with q = 10, w = 0.5 → 5, then 7.5.
        let mut a = Average::new(0.5, red::ptc(8_000_000, 1000)); // 1000 pkt/s
        a.update(SimTime::ZERO, 10.0);
        assert_eq!(a.avg, 5.0);
        a.update(SimTime::ZERO, 10.0);
        assert_eq!(a.avg, 7.5);
        // 3 ms idle = 3 packet times: 7.5·0.5^3 = 0.9375, then one update with q = 0 → 0.46875.
        a.idle(SimTime(1_000_000));
        a.update(SimTime(4_000_000), 0.0);
        assert!((a.avg - 0.468_75).abs() < 1e-12, "{}", a.avg);
    }

    fn tracker() -> RttTracker {
        RttTracker::new(
            0.1,
            SimDuration::from_micros(12_500),
            SimDuration::from_millis(100),
        )
    }

    #[test]
    fn r_formula_holds_inside_band_and_moves_after_hold_outside() {
        let mut t = tracker();
        t.update(SimTime::ZERO, 100.0 * MS);
        assert_eq!(t.r_formula, 100.0 * MS);
        // Labels of 110 ms: R_average approaches 110 but never leaves 100 ± 12.5 → holds for 1 s.
        for i in 1..=100 {
            t.update(SimTime::from_secs_f64(i as f64 * 0.01), 110.0 * MS);
        }
        assert!((t.r_average - 110.0 * MS).abs() < 1e-5);
        assert_eq!(t.r_formula, 100.0 * MS);

        // Labels of 300 ms, one per ms. R_average leaves the band when
        // 110 + 190·(1 − 0.9^k) ≥ 112.5 ms → k = 1 (110 + 19 = 129). It must then stay outside for
        // more than 100 ms: the update that sees now − last_time > 100 ms is 101 ms later.
        let t0 = 2.0;
        t.update(SimTime::from_secs_f64(t0), 300.0 * MS); // leaves the band; timer starts here
        assert_eq!(t.r_formula, 100.0 * MS);
        for i in 1..=100 {
            t.update(SimTime::from_secs_f64(t0 + i as f64 * 1e-3), 300.0 * MS);
            assert_eq!(t.r_formula, 100.0 * MS, "moved too early at {i} ms");
        }
        t.update(SimTime::from_secs_f64(t0 + 0.101), 300.0 * MS);
        assert!(
            (t.r_formula - t.r_average).abs() < 1e-12 && t.r_formula > 0.29,
            "R_formula = R_average after the hold: {} vs {}",
            t.r_formula,
            t.r_average
        );
    }

    #[test]
    fn returning_inside_resets_the_timer() {
        let mut t = tracker();
        t.update(SimTime::ZERO, 100.0 * MS);
        // Jump above: 100·0.9 + 0.1·300 = 120 → above (≥ 112.5) at t = 0.
        t.update(SimTime(0), 300.0 * MS);
        assert!(t.r_average >= 0.1125);
        // 60 ms later, labels of 0.5 ms pull it below: 0.9·120 + 0.05 = 108.05 (inside),
        // then 97.3 (inside), 87.6 → below. Each inside/crossing update resets the timer.
        let mut now = 0.06;
        while t.r_average > 0.0875 {
            t.update(SimTime::from_secs_f64(now), 0.5 * MS);
            now += 1e-3;
        }
        let crossed_at = now - 1e-3;
        // Keep it below (labels equal to the current average keep it still) for 95 ms more:
        // 60 + 95 > 100 ms since the first excursion, but only 95 ms since crossing → no move.
        let hold_value = t.r_average;
        for i in 1..=95 {
            t.update(
                SimTime::from_secs_f64(crossed_at + i as f64 * 1e-3),
                hold_value,
            );
        }
        assert_eq!(t.r_formula, 100.0 * MS);
        // Past 100 ms below → moves.
        t.update(SimTime::from_secs_f64(crossed_at + 0.102), hold_value);
        assert!((t.r_formula - hold_value).abs() < 1e-9);
    }

    #[test]
    fn direct_crossing_above_to_below_resets_timer() {
        // With w = 1 the average jumps straight from above the band to below it.
        let mut t = RttTracker::new(
            1.0,
            SimDuration::from_micros(12_500),
            SimDuration::from_millis(100),
        );
        t.update(SimTime::ZERO, 0.1);
        t.update(SimTime::from_secs_f64(0.0), 0.2); // above, timer at 0
        t.update(SimTime::from_secs_f64(0.08), 0.05); // crossed over at 80 ms → timer reset
        t.update(SimTime::from_secs_f64(0.15), 0.05); // 150 ms since first excursion, 70 since cross
        assert_eq!(t.r_formula, 0.1);
        t.update(SimTime::from_secs_f64(0.181), 0.05); // 101 ms since crossing
        assert_eq!(t.r_formula, 0.05);
    }

    fn ctx(limit: u32) -> BuildContext<'static> {
        test_support::ctx(BufferLimit::Packets(limit), 10_000_000)
    }

    fn labelled(id: u64, flow: u32, rtt_ms: u64) -> Packet {
        Packet {
            id,
            flow,
            size_bytes: 1000,
            ecn: Ecn::Ect,
            rtt_label: SimDuration::from_millis(rtt_ms),
            ..Default::default()
        }
    }

    #[test]
    fn robust_flows_are_marked_more_than_fragile_and_counts_conserve() {
        // Fill a queue to hold avg between thresholds; alternate 20 ms and 200 ms labels.
        let params = Params {
            w_q: 0.2,
            count_spacing: false,
            ..Params::default()
        };
        let mut q = params.build(&ctx(1000));
        let mut rng = SimRng::new(3, 0);
        let mut marks = [0u32; 2];
        let mut now = 0u64;
        for i in 0..20_000u64 {
            now += 100_000;
            let flow = (i % 2) as u32;
            let rtt = if flow == 0 { 20 } else { 200 };
            if let Outcome::Marked(_) = q.enqueue(SimTime(now), labelled(i, flow, rtt), &mut rng) {
                marks[flow as usize] += 1;
            }
            // Keep about 10 packets queued.
            while q.len_pkts() > 10 {
                q.dequeue(SimTime(now), &mut rng, &mut |_, _| {});
            }
        }
        // R_average ≈ mean label 110 ms; p(20)/p(200) = (110/20)^1.6 / (110/200)^1.4 ≈ 15·2.3.
        assert!(
            marks[0] > 10 * marks[1].max(1),
            "robust {} vs fragile {}",
            marks[0],
            marks[1]
        );
        assert!(q.stats().conserved(q.len_pkts()));
        let mut probes = Vec::new();
        q.probe(&mut |k, v| probes.push((k, v)));
        let r_avg = probes.iter().find(|(k, _)| *k == "r_average_ms").unwrap().1;
        assert!((r_avg - 110.0).abs() < 10.0, "{r_avg}");
    }

    #[test]
    fn true_rtt_source_ignores_the_label() {
        // Two flows with the same (inflated) 60 ms label but true RTTs 20 and 200 ms: with
        // rtt_source = "label" they are marked alike, with "true" the 20 ms flow far more.
        let flows = [
            crate::aqm::FlowInfo {
                base_rtt: SimDuration::from_millis(20),
                idmaps_rtt: SimDuration::from_millis(20),
                packet_bytes: 1000,
            },
            crate::aqm::FlowInfo {
                base_rtt: SimDuration::from_millis(200),
                idmaps_rtt: SimDuration::from_millis(200),
                packet_bytes: 1000,
            },
        ];
        let marks_with = |source: RttSource| {
            let params = Params {
                w_q: 0.2,
                rtt_source: source,
                ..Params::default()
            };
            let c = BuildContext {
                flows: &flows,
                ..ctx(1000)
            };
            let mut q = params.build(&c);
            let mut rng = SimRng::new(5, 0);
            let mut marks = [0u32; 2];
            for i in 0..20_000u64 {
                let flow = (i % 2) as u32;
                let now = SimTime((i + 1) * 100_000);
                if let Outcome::Marked(_) = q.enqueue(now, labelled(i, flow, 60), &mut rng) {
                    marks[flow as usize] += 1;
                }
                while q.len_pkts() > 10 {
                    q.dequeue(now, &mut rng, &mut |_, _| {});
                }
            }
            marks
        };
        let [a, b] = marks_with(RttSource::Label);
        let ratio = a as f64 / b.max(1) as f64;
        assert!((0.8..1.25).contains(&ratio), "label: {a} vs {b}");
        let [a, b] = marks_with(RttSource::True);
        assert!(a > 10 * b.max(1), "true: {a} vs {b}");
        let bad = AqmConfig::from_table(toml::from_str("kind='chablis'\nrtt_source='x'").unwrap());
        assert!(bad.is_err());
    }

    #[test]
    fn forced_region_drops_even_with_ecn() {
        let params = Params {
            w_q: 1.0,
            ..Params::default()
        };
        let mut q = params.build(&ctx(100));
        let mut rng = SimRng::new(1, 0);
        for i in 0..15 {
            q.enqueue(SimTime(i), labelled(i, 0, 50), &mut rng);
        }
        // avg = instantaneous = 15 ≥ max_th now.
        let out = q.enqueue(SimTime(20), labelled(99, 0, 50), &mut rng);
        assert_eq!(out, Outcome::Dropped(Reason::Forced));
        assert!(q.stats().conserved(q.len_pkts()));
    }

    #[test]
    fn validation_and_misspelled_keys() {
        let bad = AqmConfig::from_table(toml::from_str("kind='chablis'\nmax_pp=0.1").unwrap());
        assert_eq!(bad.unwrap_err().path, "max_pp");
        let bad = AqmConfig::from_table(toml::from_str("kind='chablis'\nalpah=1.6").unwrap());
        assert_eq!(bad.unwrap_err().path, "alpah");
        let err = AqmConfig::from_table(toml::from_str("kind='chablis'\nw_rtt=1.5").unwrap())
            .unwrap_err();
        assert_eq!(err.path, "w_rtt");
        let err =
            AqmConfig::from_table(toml::from_str("kind='chablis'\nmin_th=20\nmax_th=10").unwrap())
                .unwrap_err();
        assert_eq!(err.path, "max_th");
        let ok = AqmConfig::from_table(
            toml::from_str("kind='chablis'\nband='10ms'\nhold='200ms'\necn=false").unwrap(),
        )
        .unwrap();
        assert_eq!(ok.kind(), "chablis");
    }
}
