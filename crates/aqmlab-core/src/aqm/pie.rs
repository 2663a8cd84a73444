//! PIE: Proportional Integral controller Enhanced.
//!
//! Source: RFC 8033 (Pan, Natarajan, Baker, White, 2017), §4 (the algorithm), §5 (optional
//! features) and its pseudo-code; not one of the five papers in `papers/` (one of "today's AQMs").
//! Defaults are the RFC's (= Linux `sch_pie`).
//!
//! # Equations
//! Every `tupdate` (periodic timer, [`Pie::on_timer`]):
//! ```text
//! p = alpha·(qdelay − target) + beta·(qdelay − qdelay_old)          (delays in s, alpha/beta in Hz)
//! auto-tuning (§4.2): p /= 2048, 512, 128, 32, 8, 2 when drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1
//! cap (§5.5):         if cap_drop_adjustment and drop_prob ≥ 0.1 and p > 0.02 then p = 0.02
//! drop_prob += p
//! decay (§4.3):       if qdelay == 0 and qdelay_old == 0 then drop_prob ·= 0.98
//! drop_prob = clamp(drop_prob, 0, 1)
//! burst (§4.4):       burst_allowance = max(0, burst_allowance − tupdate);
//!                     if drop_prob == 0 and qdelay < target/2 and qdelay_old < target/2
//!                     then burst_allowance = max_burst
//! qdelay_old = qdelay
//! ```
//! On each arrival (§4.1, `drop_early`): no early drop while `burst_allowance > 0`, nor when
//! `qdelay_old < target/2 and drop_prob < 0.2`, nor when the backlog is at most two mean packets;
//! otherwise drop with probability `drop_prob` (one uniform per decision), or with
//! de-randomisation (§5.4, `derandomize = true`): `accu_prob += drop_prob`, no drop while
//! `accu_prob < 0.85`, certain drop at `accu_prob ≥ 8.5`, else drop if `u < drop_prob`;
//! `accu_prob = 0` after a drop or when `drop_prob == 0`. With `ecn = true` an ECN-capable packet
//! is marked instead of dropped while `drop_prob ≤ mark_ecn_th` (§5.1; above it, dropped).
//!
//! # Queue delay estimate (`estimator`)
//! - `"timestamp"` (default, as Linux and ns-3.44 by default): `qdelay` is the sojourn time of the
//!   most recently dequeued packet, 0 when that dequeue emptied the queue (Linux `pie_process_dequeue`).
//! - `"dq_rate"` (RFC 8033 §4.3/§5 pseudo-code, Little's law): a measurement cycle starts at a
//!   dequeue when the backlog is ≥ `dq_threshold` bytes; it ends when `dq_threshold` bytes have left,
//!   and `avg_dq_time` (time to send `dq_threshold` bytes) is updated with weight 1/4
//!   (`weight = DQ_THRESHOLD / 2^16`); `qdelay = backlog_bytes · avg_dq_time / dq_threshold`
//!   (0 until the first cycle completes).
//!
//! # Parameters
//! | key | unit | default | RFC 8033 |
//! |---|---|---|---|
//! | `target` | duration | `"15ms"` | QDELAY_REF = 15 ms |
//! | `tupdate` | duration | `"15ms"` | T_UPDATE = 15 ms (ns-3 ≤ 3.29 used 30 ms; the RFC says 15) |
//! | `alpha` | Hz | 0.125 | 0.125 |
//! | `beta` | Hz | 1.25 | 1.25 |
//! | `max_burst` | duration | `"150ms"` | MAX_BURST = 150 ms |
//! | `estimator` | `"timestamp"` / `"dq_rate"` | `"timestamp"` | either |
//! | `dq_threshold` | bytes | 16384 | DQ_THRESHOLD = 2^14 |
//! | `derandomize` | bool | false | optional (§5.4) |
//! | `ecn` | bool | false | optional (§5.1) |
//! | `mark_ecn_th` | probability | 0.1 | 10 % |
//! | `cap_drop_adjustment` | bool | true | §5.5 (ns-3 `UseCapDropAdjustment`, default true) |
//! | `active_threshold` | duration or absent | absent (always active) | §5.2 (ns-3 `ActiveThreshold`, default never) |
//!
//! # Active/inactive states (`active_threshold`, ns-3.44's reading of RFC 8033 §5.2)
//! Absent (the default), PIE is always active. Set, PIE starts inactive and makes no early
//! drop while inactive (its update still runs every `tupdate`). After an arrival is queued, an
//! inactive PIE whose queue-delay sample is at least `active_threshold` becomes active and
//! restarts from scratch (`drop_prob = 0`, `qdelay_old = 0`, `accu_prob = 0`, full burst
//! allowance, a new departure-rate measurement cycle from now). After any queued arrival, a PIE
//! with `drop_prob == 0` and both delay samples below 1 ms (ns-3: `GetMilliSeconds() == 0`)
//! becomes inactive. The RFC's own trigger (queue above a third of the buffer) is not offered.
//!
//! # Readings
//! - No reference implementation was replayed against this file decision by decision (unlike
//!   CoDel): the order of the steps above is our reading of RFC 8033 §4 and its pseudo-code (Linux
//!   `pie.c` computes the same recursion in fixed point, ns-3 ≤ 3.29 followed the older draft).
//!   Whole runs agree with ns-3.44's `PieQueueDisc` on the controlled variable: mean queueing
//!   delay 16.3 vs 15.3 ms (10 flows) and 15.5 vs 15.6 ms (30 flows, RTT 20–310 ms);
//!   `tests/ns3_reference.rs`, `docs/validation.md`.
//! - The RFC's `MEAN_PKTSIZE` in the safeguard is the link's typical packet size
//!   (`BuildContext::mean_pkt_bytes`).
//! - Packet-size scaling of the probability (ns-3 in byte mode) is not implemented: PIE drops
//!   per packet.
//! - The burst reset is evaluated with `qdelay_old` *before* it is overwritten by this update
//!   (the RFC's prose: "both the current and previous samples").
//! - When the buffer is full the glue tail-drops (`overflow`) after PIE passed the packet; with
//!   de-randomisation `accu_prob` is then reset, as the RFC's `enqueue` does on a full queue.
//! - Alpha and beta are not rescaled automatically when `tupdate` changes (the RFC advises the
//!   user to do so: halving `tupdate` ⇒ halve alpha, beta += alpha/4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// Sojourn time of the last dequeued packet.
    Timestamp,
    /// Little's law with the RFC's departure-rate measurement.
    DqRate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Reference queueing delay QDELAY_REF (RFC 8033: 15 ms).
    pub target: SimDuration,
    /// Drop-probability update period T_UPDATE (RFC 8033: 15 ms).
    pub tupdate: SimDuration,
    /// Proportional-to-error gain, Hz (RFC 8033: 0.125).
    pub alpha: f64,
    /// Gain on the delay trend, Hz (RFC 8033: 1.25).
    pub beta: f64,
    /// Burst allowance before early drops start (RFC 8033 MAX_BURST: 150 ms).
    pub max_burst: SimDuration,
    /// Queue delay from "timestamp" (sojourn of the last dequeued packet) or "dq_rate" (Little's
    /// law, RFC 8033 departure-rate estimate).
    pub estimator: Estimator,
    /// Bytes per departure-rate measurement cycle (RFC 8033 DQ_THRESHOLD: 2^14).
    pub dq_threshold: u32,
    /// RFC 8033 §5.4 de-randomised drops via accumulated probability.
    pub derandomize: bool,
    /// Mark ECN-capable packets instead of dropping while drop_prob <= mark_ecn_th.
    pub ecn: bool,
    /// Highest drop probability at which packets are marked rather than dropped (RFC 8033: 10 %).
    pub mark_ecn_th: f64,
    /// RFC 8033 §5.5 cap: once drop_prob >= 0.1, one update raises it by at most 0.02 (ns-3
    /// UseCapDropAdjustment; default true). False lets one update add any amount.
    pub cap_drop_adjustment: bool,
    /// RFC 8033 §5.2 active/inactive states as ns-3 ActiveThreshold: PIE starts inactive (no early
    /// drops) and becomes active once a queue-delay sample reaches this duration; absent (the
    /// default): always active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_threshold: Option<SimDuration>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            estimator: Estimator::Timestamp,
            dq_threshold: 16384,
            derandomize: false,
            ecn: false,
            mark_ecn_th: 0.1,
            cap_drop_adjustment: true,
            active_threshold: None,
        }
    }
}

/// The controller's constants in seconds (precomputed once).
#[derive(Copy, Clone, Debug)]
pub struct Gains {
    pub target: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Apply the §5.5 cap on one update's increase.
    pub cap: bool,
}

/// RFC 8033 `calculate_drop_prob` without the burst bookkeeping: the new drop probability from
/// the old one and the current and previous queue-delay samples (seconds).
pub fn next_drop_prob(g: &Gains, drop_prob: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let mut p = g.alpha * (qdelay - g.target) + g.beta * (qdelay - qdelay_old);
    // Auto-tuning: scale the step to the current probability's magnitude.
    p /= if drop_prob < 0.000_001 {
        2048.0
    } else if drop_prob < 0.000_01 {
        512.0
    } else if drop_prob < 0.000_1 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    // Cap drop adjustment.
    if g.cap && drop_prob >= 0.1 && p > 0.02 {
        p = 0.02;
    }
    let mut np = drop_prob + p;
    // Exponential decay when congestion is gone.
    if qdelay == 0.0 && qdelay_old == 0.0 {
        np *= 0.98;
    }
    np.clamp(0.0, 1.0)
}

/// PIE's state.
pub struct Pie {
    // ** configured
    gains: Gains,
    tupdate: SimDuration,
    max_burst: f64,
    estimator: Estimator,
    dq_threshold: u64,
    derandomize: bool,
    ecn: bool,
    mark_ecn_th: f64,
    mean_pkt_bytes: u64,
    /// `active_threshold` in seconds; `None`: always active.
    active_threshold: Option<f64>,
    // ** maintained
    /// Early drops allowed (always true without `active_threshold`).
    active: bool,
    drop_prob: f64,
    /// Latest queue-delay sample (s): timestamp estimator's last sojourn, or the last
    /// Little's-law estimate.
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: f64,
    accu_prob: f64,
    next_update: SimTime,
    in_measurement: bool,
    dq_count: u64,
    measurement_start: SimTime,
    /// Time to dequeue `dq_threshold` bytes (s); 0 until measured.
    avg_dq_time: f64,
}

impl Pie {
    pub fn new(p: &Params, mean_pkt_bytes: u32) -> Pie {
        Pie {
            gains: Gains {
                target: p.target.as_secs_f64(),
                alpha: p.alpha,
                beta: p.beta,
                cap: p.cap_drop_adjustment,
            },
            tupdate: p.tupdate,
            max_burst: p.max_burst.as_secs_f64(),
            estimator: p.estimator,
            dq_threshold: p.dq_threshold as u64,
            derandomize: p.derandomize,
            ecn: p.ecn,
            mark_ecn_th: p.mark_ecn_th,
            mean_pkt_bytes: mean_pkt_bytes as u64,
            active_threshold: p.active_threshold.map(|d| d.as_secs_f64()),
            active: p.active_threshold.is_none(),
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: p.max_burst.as_secs_f64(),
            accu_prob: 0.0,
            next_update: SimTime::ZERO + p.tupdate,
            in_measurement: false,
            dq_count: 0,
            measurement_start: SimTime::ZERO,
            avg_dq_time: 0.0,
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// RFC 8033 `drop_early`: true to drop (or mark) this arrival.
    fn drop_early(&mut self, q: &QueueView, rng: &mut SimRng) -> bool {
        let half = self.gains.target / 2.0;
        if (self.qdelay_old < half && self.drop_prob < 0.2)
            || q.len_bytes <= 2 * self.mean_pkt_bytes
        {
            return false;
        }
        if self.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        rng.uniform() < self.drop_prob
    }

    /// The current queue-delay estimate (s) for an update.
    fn current_qdelay(&self, q: &QueueView) -> f64 {
        match self.estimator {
            Estimator::Timestamp => self.qdelay,
            Estimator::DqRate => {
                if self.avg_dq_time > 0.0 {
                    q.len_bytes as f64 * self.avg_dq_time / self.dq_threshold as f64
                } else {
                    0.0
                }
            }
        }
    }
}

impl Aqm for Pie {
    fn on_enqueue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        if !self.active || self.burst_allowance > 0.0 || !self.drop_early(q, rng) {
            return Verdict::Pass;
        }
        self.accu_prob = 0.0;
        if self.ecn && self.drop_prob <= self.mark_ecn_th {
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Drop(Reason::Early)
        }
    }

    fn on_overflow(&mut self, _now: SimTime, _pkt: &Packet, _q: &QueueView) {
        self.accu_prob = 0.0;
    }

    fn on_enqueued(&mut self, now: SimTime, _pkt: &Packet) {
        let Some(threshold) = self.active_threshold else {
            return;
        };
        if !self.active && self.qdelay >= threshold {
            self.active = true;
            self.qdelay_old = 0.0;
            self.drop_prob = 0.0;
            self.in_measurement = true;
            self.dq_count = 0;
            self.measurement_start = now;
            self.avg_dq_time = 0.0;
            self.burst_allowance = self.max_burst;
            self.accu_prob = 0.0;
        }
        // Idle for a while: switch off (ns-3 compares whole milliseconds with 0).
        if self.drop_prob == 0.0 && self.qdelay_old < 1e-3 && self.qdelay < 1e-3 {
            self.active = false;
            self.in_measurement = false;
        }
    }

    fn on_dequeue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        match self.estimator {
            Estimator::Timestamp => {
                self.qdelay = if q.len_pkts == 0 {
                    0.0
                } else {
                    now.since(pkt.enqueued).as_secs_f64()
                };
            }
            Estimator::DqRate => {
                if !self.in_measurement && q.len_bytes >= self.dq_threshold {
                    self.in_measurement = true;
                    self.measurement_start = now;
                    self.dq_count = 0;
                }
                if self.in_measurement {
                    self.dq_count += pkt.size_bytes as u64;
                    if self.dq_count >= self.dq_threshold {
                        let dq_int = now.since(self.measurement_start).as_secs_f64();
                        self.avg_dq_time = if self.avg_dq_time == 0.0 {
                            dq_int
                        } else {
                            // weight = DQ_THRESHOLD / 2^16 = 1/4 with the default threshold.
                            dq_int * 0.25 + self.avg_dq_time * 0.75
                        };
                        self.in_measurement = false;
                    }
                }
            }
        }
        Verdict::Pass
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        let qdelay = self.current_qdelay(q);
        self.drop_prob = next_drop_prob(&self.gains, self.drop_prob, qdelay, self.qdelay_old);
        self.burst_allowance = (self.burst_allowance - self.tupdate.as_secs_f64()).max(0.0);
        let half = self.gains.target / 2.0;
        if self.drop_prob == 0.0 && qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.max_burst;
        }
        self.qdelay_old = qdelay;
        if self.estimator == Estimator::DqRate {
            self.qdelay = qdelay;
        }
        self.next_update = now + self.tupdate;
    }

    /// ns-3's PIE suite (tests 13–14) writes `m_accuProb` and `m_dropProb` between calls.
    fn set_state(&mut self, name: &str, value: f64) -> bool {
        match name {
            "accu_prob" => self.accu_prob = value,
            "drop_prob" => self.drop_prob = value,
            _ => return false,
        }
        true
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("drop_prob", self.drop_prob);
        out("qdelay_ms", self.qdelay_old * 1e3);
        out("burst_allowance_ms", self.burst_allowance * 1e3);
        out("accu_prob", self.accu_prob);
        if self.active_threshold.is_some() {
            out("active", if self.active { 1.0 } else { 0.0 });
        }
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "pie";
    const NAME: &'static str = "PIE (Proportional Integral controller Enhanced)";
    const SOURCE: &'static str =
        "RFC 8033 (p += alpha·(qdelay − target) + beta·(qdelay − qdelay_old), auto-tuned every tupdate)";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.target > SimDuration::ZERO,
            "target",
            self.target,
            "a positive duration",
        )?;
        check(
            self.tupdate >= SimDuration::from_micros(1),
            "tupdate",
            self.tupdate,
            "a duration of at least 1us",
        )?;
        check(
            self.alpha.is_finite() && self.alpha >= 0.0,
            "alpha",
            self.alpha,
            "a finite number >= 0 (Hz)",
        )?;
        check(
            self.beta.is_finite() && self.beta >= 0.0,
            "beta",
            self.beta,
            "a finite number >= 0 (Hz)",
        )?;
        check(
            self.dq_threshold > 0,
            "dq_threshold",
            self.dq_threshold,
            "a positive number of bytes",
        )?;
        check(
            (0.0..=1.0).contains(&self.mark_ecn_th),
            "mark_ecn_th",
            self.mark_ecn_th,
            "a probability in [0, 1]",
        )?;
        if let Some(t) = self.active_threshold {
            check(
                t > SimDuration::ZERO,
                "active_threshold",
                t,
                "a positive duration (omit the key for an always-active PIE)",
            )?;
        }
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Pie::new(self, ctx.mean_pkt_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::qdisc::BufferLimit;

    const G: Gains = Gains {
        target: 0.015,
        alpha: 0.125,
        beta: 1.25,
        cap: true,
    };

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-9)
    }

    /// The probability update against values worked out by hand from RFC 8033 §4.2–4.3.
    #[test]
    fn drop_prob_update_hand_values() {
        // p = 0.125·(0.030 − 0.015) + 1.25·(0.030 − 0) = 0.039375; drop_prob = 0 < 1e-6 ⇒ /2048.
        assert!(close(
            next_drop_prob(&G, 0.0, 0.030, 0.0),
            0.039375 / 2048.0
        ));
        // 0.05 < 0.1 ⇒ /2: p = 0.125·0.005 + 1.25·0.002 = 0.003125 → 0.05 + 0.0015625.
        assert!(close(next_drop_prob(&G, 0.05, 0.020, 0.018), 0.0515625));
        // 0.005 < 0.01 ⇒ /8: p = 0.003125/8.
        assert!(close(
            next_drop_prob(&G, 0.005, 0.020, 0.018),
            0.005 + 0.003125 / 8.0
        ));
        // 5e-4 < 1e-3 ⇒ /32; 5e-5 ⇒ /128; 5e-6 ⇒ /512.
        assert!(close(
            next_drop_prob(&G, 5e-4, 0.020, 0.018),
            5e-4 + 0.003125 / 32.0
        ));
        assert!(close(
            next_drop_prob(&G, 5e-5, 0.020, 0.018),
            5e-5 + 0.003125 / 128.0
        ));
        assert!(close(
            next_drop_prob(&G, 5e-6, 0.020, 0.018),
            5e-6 + 0.003125 / 512.0
        ));
        // ≥ 0.1: no scaling, but a step above 0.02 is capped: p = 0.010625 + 0.1 → 0.02.
        assert!(close(next_drop_prob(&G, 0.5, 0.100, 0.020), 0.52));
        // ≥ 0.1, small step passes unscaled: p = 0.125·0.001 + 1.25·0.001 = 0.001375.
        assert!(close(next_drop_prob(&G, 0.3, 0.016, 0.015), 0.301375));
        // Decay: both samples 0 ⇒ p = −0.001875, then ·0.98.
        assert!(close(
            next_drop_prob(&G, 0.5, 0.0, 0.0),
            (0.5 - 0.001875) * 0.98
        ));
        // Bounds.
        assert_eq!(next_drop_prob(&G, 0.001, 0.0, 0.2), 0.0);
        assert_eq!(next_drop_prob(&G, 0.999, 0.5, 0.0), 1.0);
    }

    fn view(len_pkts: usize, len_bytes: u64) -> QueueView {
        QueueView {
            len_pkts,
            len_bytes,
            limit: BufferLimit::Packets(1000),
            link_rate_bps: 10_000_000,
        }
    }

    fn pkt(id: u64, enqueued: SimTime) -> Packet {
        Packet {
            id,
            size_bytes: 1000,
            enqueued,
            ..Default::default()
        }
    }

    /// Scripted sojourn times fed through the timestamp estimator: the controller follows the
    /// RFC's recursion step by step, and the burst allowance runs out after max_burst.
    #[test]
    fn scripted_delays_timestamp_estimator() {
        let mut pie = Pie::new(&Params::default(), 1000);
        let mut rng = SimRng::new(0, 0);
        let delays_ms = [30.0, 30.0, 45.0, 45.0, 20.0, 10.0];
        let mut expect = 0.0;
        let mut old = 0.0;
        let mut t = SimTime(0);
        for (k, &d) in delays_ms.iter().enumerate() {
            t = pie.next_timer().unwrap();
            assert_eq!(t, SimTime((k as u64 + 1) * 15_000_000));
            // A packet that waited d ms leaves (at some instant since the last update; here 1 s
            // after it, the estimator only keeps the sample) with others still queued.
            let leave = SimTime(t.0 + 1_000_000_000);
            let sent = pkt(k as u64, SimTime(leave.0 - (d * 1e6) as u64));
            pie.on_dequeue(leave, &sent, &view(10, 10_000), &mut rng);
            pie.on_timer(t, &view(10, 10_000));
            expect = next_drop_prob(&G, expect, d / 1e3, old);
            old = d / 1e3;
            assert!(close(pie.drop_prob(), expect), "step {k}");
            assert!(close(pie.qdelay_old, d / 1e3));
        }
        // Hand check of the first two steps: p1 = 0.039375/2048 = 1.92e-5, which lies in
        // [1e-5, 1e-4), so the second step (0.125·0.015 + 1.25·0 = 0.001875) is divided by 128.
        let p1 = 0.039375 / 2048.0;
        let p2 = p1 + 0.001875 / 128.0;
        assert!(close(next_drop_prob(&G, p1, 0.030, 0.030), p2));
        // Burst allowance: 150 ms minus 6 updates of 15 ms = 60 ms left.
        assert!((pie.burst_allowance - 0.060).abs() < 1e-12);
        // An emptying dequeue resets the timestamp sample to 0.
        pie.on_dequeue(t, &pkt(99, SimTime(0)), &view(0, 0), &mut rng);
        assert_eq!(pie.qdelay, 0.0);
    }

    /// Departure-rate estimator: 1000 B packets leave every 1 ms with more than dq_threshold
    /// queued. The cycle starts at the first dequeue (counting that packet) and ends when
    /// 17 packets = 17000 B ≥ 16384 B have left, 16 ms later: avg_dq_time = 16 ms, and a backlog
    /// of 20000 B then reads as 20000 · 0.016 / 16384 s.
    #[test]
    fn dq_rate_estimator() {
        let p = Params {
            estimator: Estimator::DqRate,
            ..Params::default()
        };
        let mut pie = Pie::new(&p, 1000);
        let mut rng = SimRng::new(0, 0);
        for k in 0..17u64 {
            let t = SimTime(1_000_000_000 + k * 1_000_000);
            pie.on_dequeue(
                t,
                &pkt(k, SimTime(0)),
                &view(40 - k as usize, 40_000 - k * 1000),
                &mut rng,
            );
        }
        assert!((pie.avg_dq_time - 0.016).abs() < 1e-12);
        assert!(!pie.in_measurement);
        pie.on_timer(SimTime(1_020_000_000), &view(20, 20_000));
        assert!((pie.qdelay_old - 20000.0 * 0.016 / 16384.0).abs() < 1e-12);
        // A second cycle at 2 ms per packet: EWMA with weight 1/4 → 0.25·0.032 + 0.75·0.016.
        for k in 0..17u64 {
            let t = SimTime(2_000_000_000 + k * 2_000_000);
            pie.on_dequeue(t, &pkt(k, SimTime(0)), &view(40, 40_000), &mut rng);
        }
        assert!((pie.avg_dq_time - (0.25 * 0.032 + 0.75 * 0.016)).abs() < 1e-12);
    }

    /// No early drop while burst allowance remains or under the safeguards; drops once they lift.
    #[test]
    fn burst_allowance_and_safeguards() {
        let mut pie = Pie::new(&Params::default(), 1000);
        let mut rng = SimRng::scripted(vec![0.0; 100]);
        let busy = view(50, 50_000);
        pie.drop_prob = 0.5;
        pie.qdelay_old = 0.1;
        // Burst allowance 150 ms > 0: pass, and no uniform drawn.
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(0, SimTime(0)), &busy, &mut rng),
            Verdict::Pass
        );
        assert_eq!(rng.drawn(), 0);
        pie.burst_allowance = 0.0;
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(1, SimTime(0)), &busy, &mut rng),
            Verdict::Drop(Reason::Early)
        );
        // Backlog of at most two mean packets: never drop.
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(2, SimTime(0)), &view(2, 2000), &mut rng),
            Verdict::Pass
        );
        // Low delay and drop_prob < 0.2: never drop.
        pie.qdelay_old = 0.005;
        pie.drop_prob = 0.19;
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(3, SimTime(0)), &busy, &mut rng),
            Verdict::Pass
        );
        // u < p drops, u ≥ p passes.
        let mut pie = Pie::new(&Params::default(), 1000);
        pie.burst_allowance = 0.0;
        pie.drop_prob = 0.3;
        pie.qdelay_old = 0.02;
        let mut rng = SimRng::scripted(vec![0.29, 0.31]);
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(4, SimTime(0)), &busy, &mut rng),
            Verdict::Drop(Reason::Early)
        );
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(5, SimTime(0)), &busy, &mut rng),
            Verdict::Pass
        );
        // ECN: mark while drop_prob ≤ 10 %, drop above.
        let mut pie = Pie::new(
            &Params {
                ecn: true,
                ..Params::default()
            },
            1000,
        );
        pie.burst_allowance = 0.0;
        pie.qdelay_old = 0.02;
        pie.drop_prob = 0.1;
        let mut rng = SimRng::scripted(vec![0.0, 0.0]);
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(6, SimTime(0)), &busy, &mut rng),
            Verdict::Signal(Reason::Early)
        );
        pie.drop_prob = 0.11;
        assert_eq!(
            pie.on_enqueue(SimTime(0), &pkt(7, SimTime(0)), &busy, &mut rng),
            Verdict::Drop(Reason::Early)
        );
    }

    /// De-randomisation: with drop_prob = 0.1 the accumulated probability needs 9 arrivals to
    /// reach 0.85, so two drops are always at least 9 arrivals apart; and 0.1·85 = 8.5 forces a
    /// drop by the 85th arrival even if every uniform says no.
    #[test]
    fn derandomized_spacing() {
        let p = Params {
            derandomize: true,
            ..Params::default()
        };
        let mut pie = Pie::new(&p, 1000);
        pie.burst_allowance = 0.0;
        pie.drop_prob = 0.1;
        pie.qdelay_old = 0.02;
        let busy = view(50, 50_000);
        let mut rng = SimRng::new(3, 3);
        let mut last: Option<u64> = None;
        let mut drops = 0;
        for k in 0..5000u64 {
            if pie.on_enqueue(SimTime(0), &pkt(k, SimTime(0)), &busy, &mut rng) != Verdict::Pass {
                if let Some(l) = last {
                    assert!(k - l >= 9, "drops at {l} and {k}");
                }
                last = Some(k);
                drops += 1;
            }
        }
        assert!(drops > 0);
        let mut pie = Pie::new(&p, 1000);
        pie.burst_allowance = 0.0;
        pie.drop_prob = 0.1;
        pie.qdelay_old = 0.02;
        let mut never = SimRng::scripted(vec![0.99; 100]);
        let first = (1..=100u64)
            .find(|&k| {
                pie.on_enqueue(SimTime(0), &pkt(k, SimTime(0)), &busy, &mut never) != Verdict::Pass
            })
            .unwrap();
        // accu after k arrivals = 0.1·k (floating point): ≥ 8.5 at k = 85 (or 86 by rounding).
        assert!((85..=86).contains(&first), "{first}");
    }

    /// A persistent overload: arrivals at 1.25× the service rate into a SingleQueue drive
    /// drop_prob up until drops hold the queueing delay near target; conservation holds.
    #[test]
    fn controls_overload_to_target() {
        let ctx = BuildContext {
            limit: BufferLimit::Packets(1000),
            link_rate_bps: 8_000_000, // 1000 B = 1 ms
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        };
        let mut q = Params::default().build(&ctx);
        let mut rng = SimRng::new(7, 7);
        let mut next_arrival = 0u64;
        let mut next_departure = 0u64;
        let mut k = 0u64;
        let mut delays = Vec::new();
        let end = 20_000_000_000u64; // 20 s
        loop {
            let timer = q.next_timer().unwrap().0;
            let t = next_arrival.min(next_departure).min(timer);
            if t > end {
                break;
            }
            if t == timer {
                q.on_timer(SimTime(t), &mut rng);
            } else if t == next_arrival {
                q.enqueue(SimTime(t), pkt(k, SimTime(0)), &mut rng);
                k += 1;
                next_arrival += 800_000;
            } else {
                if let Some(p) = q.dequeue(SimTime(t), &mut rng, &mut |_, _| {}) {
                    if t > 10_000_000_000 {
                        delays.push((t - p.enqueued.0) as f64 / 1e6);
                    }
                }
                next_departure += 1_000_000;
            }
        }
        let mean = delays.iter().sum::<f64>() / delays.len() as f64;
        assert!(mean > 5.0 && mean < 30.0, "mean delay {mean} ms");
        let st = q.stats();
        assert!(st.dropped_before_enqueue[Reason::Early as usize] > 0);
        assert_eq!(st.dropped_before_enqueue[Reason::Overflow as usize], 0);
        // 20 % of arrivals must go for the queue to stay bounded.
        let loss = st.drops() as f64 / st.arrivals as f64;
        assert!((0.17..0.23).contains(&loss), "loss {loss}");
        assert!(st.conserved(q.len_pkts()));
    }

    #[test]
    fn validation_and_unknown_keys() {
        let t = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let AqmConfig::Pie(p) = t("kind='pie'\nestimator='dq_rate'\ntarget='20ms'").unwrap() else {
            panic!()
        };
        assert_eq!(p.estimator, Estimator::DqRate);
        assert_eq!(p.target, SimDuration::from_millis(20));
        assert_eq!(t("kind='pie'\nalpah=0.1").unwrap_err().path, "alpah");
        assert_eq!(t("kind='pie'\nalpha=-1.0").unwrap_err().path, "alpha");
        assert_eq!(
            t("kind='pie'\nmark_ecn_th=1.5").unwrap_err().path,
            "mark_ecn_th"
        );
        assert_eq!(
            t("kind='pie'\nestimator='sojourn'").unwrap_err().path,
            "estimator"
        );
        assert_eq!(t("kind='pie'\ntupdate='0ms'").unwrap_err().path, "tupdate");
    }
}
