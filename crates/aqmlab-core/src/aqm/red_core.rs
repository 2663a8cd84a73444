//! Small RED building blocks shared by the fairness AQMs (Chablis, SFRED, FRED, CHOKe): ns-2's
//! EWMA of the queue with idle-time decay, the linear probability, Floyd & Jacobson's count
//! spacing and the RED parameter checks.
//!
//! The `red` kind (`red.rs`) does not use them: it follows ns-3's `RedQueueDisc` bit for bit
//! (held to ns-3's decision vectors), including details these users do not need (gentle mode,
//! wait, byte mode, ARED/Feng adaptation). Source: Floyd & Jacobson 1993; ns-2 `red.cc`.

use crate::time::SimTime;

/// RED's EWMA of the queue length in packets, with ns-2's idle-time decay.
#[derive(Clone, Debug)]
pub(crate) struct RedAverage {
    pub(crate) avg: f64,
    w_q: f64,
    /// Packets per second the link can send (for the idle decay), `link_rate / (8·mean size)`.
    ptc: f64,
    idle_since: Option<SimTime>,
}

impl RedAverage {
    pub(crate) fn new(w_q: f64, link_rate_bps: u64, mean_pkt_bytes: u32) -> RedAverage {
        RedAverage {
            avg: 0.0,
            w_q,
            ptc: link_rate_bps as f64 / (8.0 * mean_pkt_bytes.max(1) as f64),
            idle_since: Some(SimTime::ZERO),
        }
    }

    /// Folds in the current queue length `q` (packets). After an idle period the average
    /// first decays by `(1 − w_q)^m`, m = ⌊idle time × ptc⌋ (ns-2 `red.cc` `estimator`).
    pub(crate) fn update(&mut self, now: SimTime, q: f64) -> f64 {
        if let Some(t0) = self.idle_since.take() {
            let m = (now.since(t0).as_secs_f64() * self.ptc).floor();
            self.avg *= (1.0 - self.w_q).powf(m);
        }
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
        self.avg
    }

    /// The queue went empty at `now` (keeps the first instant of a run of empty polls).
    pub(crate) fn idle(&mut self, now: SimTime) {
        if self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
    }
}

/// RED's linear probability `p_b = max_p·(avg − min_th)/(max_th − min_th)`, clamped to
/// [0, max_p] (callers handle `avg ≥ max_th` themselves).
#[inline]
pub(crate) fn linear_pb(avg: f64, min_th: f64, max_th: f64, max_p: f64) -> f64 {
    if avg <= min_th {
        0.0
    } else if avg >= max_th {
        max_p
    } else {
        max_p * (avg - min_th) / (max_th - min_th)
    }
}

/// Floyd & Jacobson's count-based spacing: `p_a = p_b / (1 − count·p_b)`, 1 once
/// `count·p_b ≥ 1`.
#[inline]
pub(crate) fn spaced(p_b: f64, count: i64) -> f64 {
    let c = count.max(0) as f64;
    if p_b <= 0.0 {
        0.0
    } else if c * p_b >= 1.0 {
        1.0
    } else {
        (p_b / (1.0 - c * p_b)).min(1.0)
    }
}

/// Validation shared by the RED-based kinds.
pub(crate) fn validate_red(
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
) -> Result<(), crate::error::ScenarioError> {
    use crate::error::check;
    check(
        min_th.is_finite() && min_th >= 0.0,
        "min_th",
        min_th,
        "packets, >= 0",
    )?;
    check(
        max_th.is_finite() && max_th > min_th,
        "max_th",
        max_th,
        "packets, > min_th",
    )?;
    check(max_p > 0.0 && max_p <= 1.0, "max_p", max_p, "in (0, 1]")?;
    check(w_q > 0.0 && w_q <= 1.0, "w_q", w_q, "in (0, 1]")?;
    Ok(())
}
