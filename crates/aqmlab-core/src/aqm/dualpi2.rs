//! DualPI2: the Dual-Queue Coupled AQM for L4S (RFC 9332, Appendix A; Linux `sch_dualpi2`).
//!
//! Two FIFOs share one buffer. Packets with ECT(1) or CE go to the L4S queue, all others
//! (Not-ECT, ECT(0)) to the Classic queue. A PI controller updates a base probability `p'`
//! every `tupdate` from the Classic queue's delay; the queues are coupled through it:
//! ```text
//! p' += alpha·(qdelay_C − target) + beta·(qdelay_C − qdelay_C_old),  clamped to [0, 1]
//! p_C  = (p')²                       Classic drop (Not-ECT) or mark (ECT(0)) probability
//! p_CL = min(k·p', 1)                coupled L4S marking probability
//! p_L  = max(p'_L, p_CL)             p'_L: the L4S queue's native AQM, a step at step_thresh
//!                                    of sojourn time (or a ramp over ramp_range above it)
//! ```
//! `qdelay_C` is the sojourn time of the packet at the head of the Classic queue (RFC 9332
//! `cq.time()`), 0 when empty. Both AQMs act at dequeue, on the packet's own sojourn time.
//!
//! Scheduler (Linux's "C-protection" weighted round robin): the L4S queue has priority, but a
//! credit counter gives the Classic queue `c_protection` % of the bytes while both are
//! backlogged: an L4S packet adds `c_protection·size` to the credit, a Classic packet takes
//! `(100 − c_protection)·size`; the L4S queue is served while the credit is ≤ 0, and the credit
//! restarts at `mtu·(2·c_protection − 100)` whenever the Classic queue is empty.
//!
//! Overload (RFC 9332 §4.2.3, Linux `drop_overload`): when `p_C ≥ p_Cmax = min(1/k², 1)`
//! Classic signals drop even ECN-capable packets, and L4S packets are dropped with probability
//! `p_C` before the L4S marking.
//!
//! # Parameters (Linux `sch_dualpi2` defaults; RFC 9332 Appendix A derives close values:
//! `Tupdate = 15 ms`, `alpha = 0.15 Hz`, `beta = 3 Hz` from `RTT_max = 100 ms`)
//! | key | unit | default |
//! |---|---|---|
//! | `target` | duration | `"15ms"` (Classic queue delay target) |
//! | `tupdate` | duration | `"16ms"` |
//! | `alpha` | Hz | 0.16 (integral gain) |
//! | `beta` | Hz | 3.2 (proportional gain) |
//! | `k` | — | 2 (coupling factor) |
//! | `step_thresh` | duration | `"1ms"` (L4S native marking threshold) |
//! | `ramp_range` | duration | `"0s"` (0: a step; else a linear ramp from step_thresh) |
//! | `c_protection` | % | 10 |
//! | `classic_ecn` | bool | true (mark ECT(0) Classic packets instead of dropping) |
//!
//! # Readings
//! - Random numbers are drawn only for probabilities strictly between 0 and 1 (the RFC's
//!   `p > rand()` draws always; the outcome is the same).
//! - Marks by the native L4S step count as `sojourn`, coupled L4S and Classic marks and drops as
//!   `early`, overload drops of L4S packets as `policy`.
//! - Linux's PI uses the larger of both queues' head delays; the RFC (taken here) the Classic's.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, BuildContext, Reason};
use crate::error::{check, ScenarioError};
use crate::net::packet::{Ecn, Packet};
use crate::qdisc::{BufferLimit, Outcome, Qdisc, QdiscStats};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Classic queue delay target (duration).
    pub target: SimDuration,
    /// Interval of the PI update of the base probability (duration).
    pub tupdate: SimDuration,
    /// Integral gain, Hz.
    pub alpha: f64,
    /// Proportional gain, Hz.
    pub beta: f64,
    /// Coupling factor: p_CL = k·p', p_C = p'².
    pub k: f64,
    /// L4S native marking threshold on sojourn time (duration).
    pub step_thresh: SimDuration,
    /// 0 for a step at step_thresh, else the width of a linear marking ramp above it.
    pub ramp_range: SimDuration,
    /// Percent of the bytes the Classic queue gets while both queues are backlogged.
    pub c_protection: u32,
    /// Mark ECT(0) Classic packets with p_C instead of dropping them.
    pub classic_ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(16),
            alpha: 0.16,
            beta: 3.2,
            k: 2.0,
            step_thresh: SimDuration::from_millis(1),
            ramp_range: SimDuration::ZERO,
            c_protection: 10,
            classic_ecn: true,
        }
    }
}

/// Is this packet L4S (RFC 9332 §2.3: ECT(1) or CE)?
pub fn is_l4s(pkt: &Packet) -> bool {
    matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce)
}

/// The base probability after one PI update (RFC 9332 Appendix A, `dualpi2_update`).
pub fn next_base_prob(p: &Params, base: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let target = p.target.as_secs_f64();
    (base + p.alpha * (qdelay - target) + p.beta * (qdelay - qdelay_old)).clamp(0.0, 1.0)
}

/// Bytes a credit unit stands for when the Classic queue empties (Linux uses the device MTU).
const MTU: i64 = 1500;

pub struct DualPi2 {
    params: Params,
    limit: BufferLimit,
    lq: VecDeque<Packet>,
    cq: VecDeque<Packet>,
    bytes: u64,
    base: f64,
    qdelay_old: f64,
    next_update: SimTime,
    credit: i64,
    /// Sojourn of the last packet dequeued from each queue, ms (for traces).
    last_sojourn_ms: [f64; 2],
    stats: QdiscStats,
}

impl DualPi2 {
    pub fn new(params: Params, limit: BufferLimit) -> DualPi2 {
        let mut q = DualPi2 {
            next_update: SimTime::ZERO + params.tupdate,
            params,
            limit,
            lq: VecDeque::new(),
            cq: VecDeque::new(),
            bytes: 0,
            base: 0.0,
            qdelay_old: 0.0,
            credit: 0,
            last_sojourn_ms: [0.0; 2],
            stats: QdiscStats::default(),
        };
        q.credit = q.credit_init();
        q
    }

    fn credit_init(&self) -> i64 {
        MTU * (2 * self.params.c_protection as i64 - 100)
    }

    /// `p_C = (p')²`.
    pub fn p_classic(&self) -> f64 {
        self.base * self.base
    }

    /// `p_CL = min(k·p', 1)`.
    pub fn p_coupled(&self) -> f64 {
        (self.params.k * self.base).min(1.0)
    }

    fn overloaded(&self) -> bool {
        self.p_classic() >= (1.0 / (self.params.k * self.params.k)).min(1.0)
    }

    /// The native L4S AQM: a step (or ramp) on the packet's sojourn time.
    fn native_l4s(&self, sojourn: SimDuration) -> f64 {
        let th = self.params.step_thresh;
        if self.params.ramp_range.0 == 0 {
            if sojourn > th {
                1.0
            } else {
                0.0
            }
        } else if sojourn <= th {
            0.0
        } else {
            (SimDuration(sojourn.0 - th.0).as_secs_f64() / self.params.ramp_range.as_secs_f64())
                .min(1.0)
        }
    }

    fn take(q: &mut VecDeque<Packet>, bytes: &mut u64) -> Packet {
        let pkt = q.pop_front().expect("non-empty queue");
        *bytes -= pkt.size_bytes as u64;
        pkt
    }

    fn debug_check(&self) {
        debug_assert!(self.stats.conserved(self.lq.len() + self.cq.len()));
    }
}

/// Bernoulli trial that draws only for probabilities strictly between 0 and 1.
fn roll(p: f64, rng: &mut SimRng) -> bool {
    if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        rng.uniform() < p
    }
}

impl Qdisc for DualPi2 {
    fn enqueue_reporting(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        _rng: &mut SimRng,
        _pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome {
        self.stats.on_arrival(&pkt);
        let len = self.lq.len() + self.cq.len();
        if self.limit.would_overflow(len, self.bytes, pkt.size_bytes) {
            self.stats.on_drop_before_enqueue(&pkt, Reason::Overflow);
            self.debug_check();
            return Outcome::Dropped(Reason::Overflow);
        }
        pkt.enqueued = now;
        self.bytes += pkt.size_bytes as u64;
        if is_l4s(&pkt) {
            self.lq.push_back(pkt);
        } else {
            self.cq.push_back(pkt);
        }
        self.stats.on_enqueue();
        self.debug_check();
        Outcome::Enqueued
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        loop {
            if self.cq.is_empty() {
                self.credit = self.credit_init();
            }
            let pick_l = !self.lq.is_empty() && (self.cq.is_empty() || self.credit <= 0);
            if pick_l {
                let mut pkt = Self::take(&mut self.lq, &mut self.bytes);
                if !self.cq.is_empty() {
                    self.credit += self.params.c_protection as i64 * pkt.size_bytes as i64;
                }
                if self.overloaded() && roll(self.p_classic(), rng) {
                    self.stats.on_drop_after_dequeue(&pkt, Reason::Policy);
                    self.debug_check();
                    dropped(pkt, Reason::Policy);
                    continue;
                }
                let sojourn = now.since(pkt.enqueued);
                self.last_sojourn_ms[0] = sojourn.as_millis_f64();
                let native = self.native_l4s(sojourn);
                let coupled = self.p_coupled();
                let (p, reason) = if native >= coupled {
                    (native, Reason::Sojourn)
                } else {
                    (coupled, Reason::Early)
                };
                if roll(p, rng) {
                    pkt.ecn = Ecn::Ce;
                    self.stats.on_mark(&pkt, reason);
                }
                self.stats.on_dequeue(&pkt);
                self.debug_check();
                return Some(pkt);
            } else if !self.cq.is_empty() {
                let mut pkt = Self::take(&mut self.cq, &mut self.bytes);
                if !self.lq.is_empty() {
                    self.credit -= (100 - self.params.c_protection as i64) * pkt.size_bytes as i64;
                }
                self.last_sojourn_ms[1] = now.since(pkt.enqueued).as_millis_f64();
                if roll(self.p_classic(), rng) {
                    if self.params.classic_ecn && pkt.is_ecn_capable() && !self.overloaded() {
                        pkt.ecn = Ecn::Ce;
                        self.stats.on_mark(&pkt, Reason::Early);
                    } else {
                        self.stats.on_drop_after_dequeue(&pkt, Reason::Early);
                        self.debug_check();
                        dropped(pkt, Reason::Early);
                        continue;
                    }
                }
                self.stats.on_dequeue(&pkt);
                self.debug_check();
                return Some(pkt);
            } else {
                return None;
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.lq.len() + self.cq.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn stats(&self) -> &QdiscStats {
        &self.stats
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: SimTime, _rng: &mut SimRng) {
        if now < self.next_update {
            return;
        }
        let qdelay = self
            .cq
            .front()
            .map_or(0.0, |p| now.since(p.enqueued).as_secs_f64());
        self.base = next_base_prob(&self.params, self.base, qdelay, self.qdelay_old);
        self.qdelay_old = qdelay;
        self.next_update = now + self.params.tupdate;
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_base", self.base);
        out("p_c", self.p_classic());
        out("p_cl", self.p_coupled());
        out("l4s_pkts", self.lq.len() as f64);
        out("classic_pkts", self.cq.len() as f64);
        out("l4s_sojourn_ms", self.last_sojourn_ms[0]);
        out("classic_sojourn_ms", self.last_sojourn_ms[1]);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "dualpi2";
    const NAME: &'static str = "DualPI2, dual-queue coupled AQM for L4S";
    const SOURCE: &'static str = "RFC 9332 (Appendix A) and Linux sch_dualpi2";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.tupdate.0 > 0,
            "tupdate",
            self.tupdate,
            "a duration greater than 0",
        )?;
        check(
            self.alpha.is_finite() && self.alpha >= 0.0,
            "alpha",
            self.alpha,
            "Hz ≥ 0",
        )?;
        check(
            self.beta.is_finite() && self.beta >= 0.0,
            "beta",
            self.beta,
            "Hz ≥ 0",
        )?;
        check(
            self.k.is_finite() && self.k > 0.0,
            "k",
            self.k,
            "a coupling factor > 0",
        )?;
        check(
            self.c_protection <= 100,
            "c_protection",
            self.c_protection,
            "percent in [0, 100]",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        Box::new(DualPi2::new(self.clone(), ctx.limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(ecn: Ecn) -> Packet {
        Packet {
            size_bytes: 1000,
            ecn,
            ..Packet::default()
        }
    }

    fn at(us: u64) -> SimTime {
        SimTime(us * 1000)
    }

    #[test]
    fn classifies_by_ecn_codepoint() {
        let mut q = DualPi2::new(Params::default(), BufferLimit::Packets(10));
        let mut rng = SimRng::new(0, 0);
        for e in [Ecn::NotEct, Ecn::Ect, Ecn::Ect1, Ecn::Ce] {
            q.enqueue(at(0), pkt(e), &mut rng);
        }
        assert_eq!((q.lq.len(), q.cq.len()), (2, 2));
        assert!(q.lq.iter().all(is_l4s));
    }

    /// The PI law by hand: a Classic head delay held at 25 ms from p' = 0.
    #[test]
    fn base_probability_follows_the_pi_update_and_couples() {
        let p = Params::default();
        let b1 = next_base_prob(&p, 0.0, 0.025, 0.0);
        assert!((b1 - (0.16 * 0.010 + 3.2 * 0.025)).abs() < 1e-15);
        let b2 = next_base_prob(&p, b1, 0.025, 0.025);
        assert!((b2 - (b1 + 0.16 * 0.010)).abs() < 1e-15);
        assert_eq!(next_base_prob(&p, 0.0, 0.0, 0.0), 0.0, "clamped at 0");
        let mut q = DualPi2::new(p, BufferLimit::Packets(10));
        q.base = 0.3;
        assert!((q.p_classic() - 0.09).abs() < 1e-15);
        assert!((q.p_coupled() - 0.6).abs() < 1e-15);
        assert!(!q.overloaded());
        q.base = 0.6;
        assert_eq!(q.p_coupled(), 1.0);
        assert!(q.overloaded(), "p_C = 0.36 ≥ 1/k² = 0.25");
    }

    /// The step marks an L4S packet that waited more than 1 ms and not one that waited less;
    /// Classic packets are untouched while p' = 0.
    #[test]
    fn l4s_step_marks_on_sojourn() {
        let mut q = DualPi2::new(Params::default(), BufferLimit::Packets(10));
        let mut rng = SimRng::scripted(vec![]);
        q.enqueue(at(0), pkt(Ecn::Ect1), &mut rng);
        q.enqueue(at(0), pkt(Ecn::Ect1), &mut rng);
        q.enqueue(at(0), pkt(Ecn::Ect), &mut rng);
        let mut none = |_: Packet, _: Reason| panic!("no drop");
        let a = q.dequeue(at(900), &mut rng, &mut none).unwrap();
        assert_eq!(a.ecn, Ecn::Ect1, "900 µs: below the step");
        let b = q.dequeue(at(1100), &mut rng, &mut none).unwrap();
        assert_eq!(b.ecn, Ecn::Ce, "1.1 ms: marked");
        let c = q.dequeue(at(20_000), &mut rng, &mut none).unwrap();
        assert_eq!(c.ecn, Ecn::Ect);
        assert_eq!(q.stats().marked[Reason::Sojourn as usize], 1);
        assert_eq!(rng.drawn(), 0, "probabilities 0 and 1 draw nothing");
    }

    /// Both queues backlogged: the Classic queue gets c_protection = 10 % of the packets.
    #[test]
    fn scheduler_gives_classic_its_protected_share() {
        let mut q = DualPi2::new(Params::default(), BufferLimit::Packets(1000));
        let mut rng = SimRng::new(0, 0);
        for _ in 0..400 {
            q.enqueue(at(0), pkt(Ecn::Ect1), &mut rng);
            q.enqueue(at(0), pkt(Ecn::NotEct), &mut rng);
        }
        let mut classic = 0;
        for _ in 0..300 {
            // At t = 0 nothing has waited: no marks, no drops.
            let p = q.dequeue(at(0), &mut rng, &mut |_, _| panic!()).unwrap();
            classic += (p.ecn == Ecn::NotEct) as u32;
        }
        assert!((29..=31).contains(&classic), "{classic} of 300");
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// Overload: p_C ≥ 1/k² drops ECT(0) Classic packets instead of marking them, and drops
    /// L4S packets with p_C.
    #[test]
    fn overload_drops_instead_of_marking() {
        let mut q = DualPi2::new(Params::default(), BufferLimit::Packets(10));
        q.base = 0.6; // p_C = 0.36
        let mut rng = SimRng::scripted(vec![0.3, 0.3]);
        q.enqueue(at(0), pkt(Ecn::Ect), &mut rng);
        let mut got = Vec::new();
        assert!(q
            .dequeue(at(0), &mut rng, &mut |_, r| got.push(r))
            .is_none());
        assert_eq!(got, vec![Reason::Early]);
        q.enqueue(at(0), pkt(Ecn::Ect1), &mut rng);
        assert!(q
            .dequeue(at(0), &mut rng, &mut |_, r| got.push(r))
            .is_none());
        assert_eq!(got, vec![Reason::Early, Reason::Policy]);
    }
}
