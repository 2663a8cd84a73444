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
//! | `min_qlen_step` | packets | 2 (the step marks only packets that found ≥ 2 L4S packets ahead) |
//!
//! # Readings
//! - Random numbers are drawn only for probabilities strictly between 0 and 1 (the RFC's
//!   `p > rand()` draws always; the outcome is the same).
//! - Marks by the native L4S step count as `sojourn`, coupled L4S and Classic marks and drops as
//!   `early`, overload drops of L4S packets as `policy`.
//! - Linux's PI uses the larger of both queues' head delays; the RFC (taken here) the Classic's.
//! - The native step applies only while an L4S queue is building: to a packet that found at
//!   least `min_qlen_step` = 2 packets ahead of it in the L4S queue on arrival (the L4S team's
//!   `sch_dualpi2`, `apply_step = qlen(l_queue) > 1` at enqueue). Without it the 1 ms step is
//!   about one packet time at 10 Mb/s, so an L4S packet waiting behind one other packet is
//!   marked with no queue building, and one DCTCP flow beside one Reno flow got 0.16–0.19 of
//!   Reno's rate (1.64–1.70 with the rule; `tests/modern_tcp.rs`). `min_qlen_step = 0` marks
//!   on sojourn alone (mainline Linux's default).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

use super::{AlgorithmParams, BuildContext, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::{Ecn, Packet};
use crate::qdisc::{BufferLimit, FlowQueues, Outcome, Qdisc, QdiscStats};
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
    /// The native L4S step applies only to packets that found at least this many packets in
    /// the L4S queue on arrival (a queue is building); 0: to every L4S packet.
    pub min_qlen_step: u32,
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
            min_qlen_step: 2,
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

/// Index of the L4S queue and of the Classic queue in the shared [`FlowQueues`].
const L4S: usize = 0;
const CLASSIC: usize = 1;

pub struct DualPi2 {
    /// The two queues (L4S, Classic) on the shared multi-queue glue: one limit, one set of
    /// counters.
    q: FlowQueues,
    ctl: Control,
    /// Per packet in the L4S queue, in queue order: may the native step mark it (it found at
    /// least `min_qlen_step` packets ahead of it on arrival)?
    step_armed: VecDeque<bool>,
}

/// The coupled PI controller and the weighted scheduler's credit.
struct Control {
    params: Params,
    base: f64,
    qdelay_old: f64,
    next_update: SimTime,
    credit: i64,
    /// Sojourn of the last packet dequeued from each queue, ms (for traces).
    last_sojourn_ms: [f64; 2],
}

impl DualPi2 {
    pub fn new(params: Params, limit: BufferLimit) -> DualPi2 {
        let mut ctl = Control {
            next_update: SimTime::ZERO + params.tupdate,
            params,
            base: 0.0,
            qdelay_old: 0.0,
            credit: 0,
            last_sojourn_ms: [0.0; 2],
        };
        ctl.credit = ctl.credit_init();
        // ECN on: L4S packets are always ECN-capable; Classic marks are decided in `dequeue`.
        DualPi2 {
            q: FlowQueues::new(2, limit, true),
            ctl,
            step_armed: VecDeque::new(),
        }
    }

    /// `p_C = (p')²`.
    pub fn p_classic(&self) -> f64 {
        self.ctl.p_classic()
    }

    /// `p_CL = min(k·p', 1)`.
    pub fn p_coupled(&self) -> f64 {
        self.ctl.p_coupled()
    }
}

impl Control {
    fn credit_init(&self) -> i64 {
        MTU * (2 * self.params.c_protection as i64 - 100)
    }

    fn p_classic(&self) -> f64 {
        self.base * self.base
    }

    fn p_coupled(&self) -> f64 {
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

    /// The verdict on an L4S packet leaving while the Classic queue is (`classic_waiting`) or is
    /// not backlogged.
    fn l4s_verdict(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        classic_waiting: bool,
        step_armed: bool,
        rng: &mut SimRng,
    ) -> Verdict {
        if classic_waiting {
            self.credit += self.params.c_protection as i64 * pkt.size_bytes as i64;
        }
        if self.overloaded() && roll(self.p_classic(), rng) {
            return Verdict::Drop(Reason::Policy);
        }
        let sojourn = now.since(pkt.enqueued);
        self.last_sojourn_ms[L4S] = sojourn.as_millis_f64();
        let native = if step_armed {
            self.native_l4s(sojourn)
        } else {
            0.0
        };
        let coupled = self.p_coupled();
        let (p, reason) = if native >= coupled {
            (native, Reason::Sojourn)
        } else {
            (coupled, Reason::Early)
        };
        if roll(p, rng) {
            Verdict::Signal(reason)
        } else {
            Verdict::Pass
        }
    }

    /// The verdict on a Classic packet leaving while the L4S queue is (`l4s_waiting`) or is not
    /// backlogged.
    fn classic_verdict(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        l4s_waiting: bool,
        rng: &mut SimRng,
    ) -> Verdict {
        if l4s_waiting {
            self.credit -= (100 - self.params.c_protection as i64) * pkt.size_bytes as i64;
        }
        self.last_sojourn_ms[CLASSIC] = now.since(pkt.enqueued).as_millis_f64();
        if !roll(self.p_classic(), rng) {
            Verdict::Pass
        } else if self.params.classic_ecn && !self.overloaded() {
            // The glue marks an ECN-capable packet and drops any other.
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Drop(Reason::Early)
        }
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
        pkt: Packet,
        _rng: &mut SimRng,
        _pushed_out: &mut dyn FnMut(Packet, Reason),
    ) -> Outcome {
        self.q.arrive(&pkt);
        if self.q.would_overflow(pkt.size_bytes) {
            return self.q.reject(&pkt, Reason::Overflow);
        }
        let queue = if is_l4s(&pkt) {
            let ahead = self.q.queue(L4S).len();
            self.step_armed
                .push_back(ahead >= self.ctl.params.min_qlen_step as usize);
            L4S
        } else {
            CLASSIC
        };
        let adm = self.q.push(queue, now, pkt);
        self.q.admit(adm, Outcome::Enqueued)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        rng: &mut SimRng,
        dropped: &mut dyn FnMut(Packet, Reason),
    ) -> Option<Packet> {
        loop {
            let l4s_waiting = !self.q.queue(L4S).is_empty();
            let classic_waiting = !self.q.queue(CLASSIC).is_empty();
            if !classic_waiting {
                self.ctl.credit = self.ctl.credit_init();
            }
            let ctl = &mut self.ctl;
            let served = if l4s_waiting && (!classic_waiting || ctl.credit <= 0) {
                let armed = self.step_armed.pop_front().unwrap_or(true);
                self.q.serve_head(L4S, dropped, &mut |pkt, _| {
                    ctl.l4s_verdict(now, pkt, classic_waiting, armed, rng)
                })
            } else if classic_waiting {
                // `l4s_waiting` is read before the Classic packet leaves, as the L4S queue is.
                self.q.serve_head(CLASSIC, dropped, &mut |pkt, _| {
                    ctl.classic_verdict(now, pkt, l4s_waiting, rng)
                })
            } else {
                return None;
            };
            if served.is_some() {
                return served;
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.q.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }

    fn stats(&self) -> &QdiscStats {
        self.q.stats()
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.ctl.next_update)
    }

    fn on_timer(&mut self, now: SimTime, _rng: &mut SimRng) {
        let c = &mut self.ctl;
        if now < c.next_update {
            return;
        }
        let qdelay = self
            .q
            .queue(CLASSIC)
            .front()
            .map_or(0.0, |p| now.since(p.enqueued).as_secs_f64());
        c.base = next_base_prob(&c.params, c.base, qdelay, c.qdelay_old);
        c.qdelay_old = qdelay;
        c.next_update = now + c.params.tupdate;
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_base", self.ctl.base);
        out("p_c", self.p_classic());
        out("p_cl", self.p_coupled());
        out("l4s_pkts", self.q.queue(L4S).len() as f64);
        out("classic_pkts", self.q.queue(CLASSIC).len() as f64);
        out("l4s_sojourn_ms", self.ctl.last_sojourn_ms[L4S]);
        out("classic_sojourn_ms", self.ctl.last_sojourn_ms[CLASSIC]);
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
        assert_eq!((q.q.queue(L4S).len(), q.q.queue(CLASSIC).len()), (2, 2));
        assert!((0..2).all(|i| is_l4s(q.q.queue(L4S).get(i).unwrap())));
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
        q.ctl.base = 0.3;
        assert!((q.p_classic() - 0.09).abs() < 1e-15);
        assert!((q.p_coupled() - 0.6).abs() < 1e-15);
        assert!(!q.ctl.overloaded());
        q.ctl.base = 0.6;
        assert_eq!(q.p_coupled(), 1.0);
        assert!(q.ctl.overloaded(), "p_C = 0.36 ≥ 1/k² = 0.25");
    }

    /// The step marks an L4S packet that waited more than 1 ms and not one that waited less;
    /// Classic packets are untouched while p' = 0.
    #[test]
    fn l4s_step_marks_on_sojourn() {
        let p = Params {
            min_qlen_step: 0,
            ..Params::default()
        };
        let mut q = DualPi2::new(p, BufferLimit::Packets(10));
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

    /// The step applies only to L4S packets that found at least `min_qlen_step` (2) packets
    /// ahead of them in the L4S queue: at 10 Mb/s one 1000-byte packet takes 0.8 ms, so a
    /// packet behind one other (or behind a Classic packet in service) exceeds 1 ms without
    /// any L4S queue building.
    #[test]
    fn l4s_step_waits_for_a_queue_to_build() {
        let mut q = DualPi2::new(Params::default(), BufferLimit::Packets(10));
        let mut rng = SimRng::scripted(vec![]);
        for _ in 0..4 {
            q.enqueue(at(0), pkt(Ecn::Ect1), &mut rng);
        }
        let mut none = |_: Packet, _: Reason| panic!("no drop");
        // All four leave after 1.5 ms; the first two found 0 and 1 ahead: not marked.
        let ecn: Vec<Ecn> = (0..4)
            .map(|_| q.dequeue(at(1500), &mut rng, &mut none).unwrap().ecn)
            .collect();
        assert_eq!(ecn, [Ecn::Ect1, Ecn::Ect1, Ecn::Ce, Ecn::Ce]);
        assert_eq!(q.stats().marked[Reason::Sojourn as usize], 2);
        // The arming follows the packets through a coupled drop on overload.
        q.ctl.base = 1.0;
        for _ in 0..3 {
            q.enqueue(at(2000), pkt(Ecn::Ect1), &mut rng);
        }
        let mut dropped = 0;
        assert!(q
            .dequeue(at(2000), &mut rng, &mut |_, _| dropped += 1)
            .is_none());
        assert_eq!((dropped, q.step_armed.len()), (3, 0));
        assert!(q.stats().conserved(q.len_pkts()));
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
        q.ctl.base = 0.6; // p_C = 0.36
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
