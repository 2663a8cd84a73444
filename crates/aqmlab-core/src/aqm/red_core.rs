//! Small RED building blocks shared by the fairness AQMs (Chablis, SFRED, FRED, CHOKe): the
//! linear probability, Floyd & Jacobson's count spacing and the RED parameter checks. Their
//! average queue is `red::Average`, the EWMA and idle-time decay the `red` kind is held to ns-3
//! with; the spacing and the checks are `red`'s own. The linear probability is Floyd &
//! Jacobson's formula as written, where `red` computes ns-3's coefficient form
//! (`red::Slope`): the two differ in the last bits, so each kind keeps the one its results
//! were recorded with. Source: Floyd & Jacobson 1993; ns-2 `red.cc`.

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
/// `count·p_b ≥ 1` (`red::spaced_p` without `wait`; a negative count counts as 0).
#[inline]
pub(crate) fn spaced(p_b: f64, count: i64) -> f64 {
    super::red::spaced_p(p_b, count.max(0) as f64, false)
}

/// Validation shared by the RED-based kinds: `red`'s rules for the thresholds, `max_p` and
/// `w_q`.
pub(crate) fn validate_red(
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
) -> Result<(), crate::error::ScenarioError> {
    super::red::check_thresholds(min_th, max_th)?;
    super::red::check_max_p(max_p)?;
    super::red::check_weight(w_q, "a weight in (0, 1]")
}
