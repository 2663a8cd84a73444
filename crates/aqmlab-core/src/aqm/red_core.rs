//! Small RED building blocks shared by the fairness AQMs (Chablis, SFRED, FRED, CHOKe): the
//! linear probability, Floyd & Jacobson's count spacing and the RED parameter checks. Their
//! average queue is `red::Average`, the EWMA and idle-time decay the `red` kind is held to ns-3
//! with. Source: Floyd & Jacobson 1993; ns-2 `red.cc`.

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
