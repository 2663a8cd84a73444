//! Congestion-window arithmetic of Reno/NewReno, as small pure functions (RFC 5681, RFC 6582,
//! RFC 3168; ns-2 `TcpAgent::opencwnd`, `slowdown`, `NewRenoTcpAgent::partialnewack`).
//!
//! Windows are counted in segments. `cwnd` is fractional (congestion avoidance adds `1/cwnd` per
//! ACK); the usable window is its integer part, as ns-2's `window()` = `int(cwnd_)`.
//! Growth is per ACK, not per acknowledged segment (ns-2 and RFC 5681 without byte counting), so
//! a delayed-ACK receiver slows growth, as it does in ns-2.

/// Window increase on an ACK of new data outside recovery (RFC 5681 §3.1, ns-2 `opencwnd` with
/// `wnd_option_ = 1`): slow start `cwnd + 1` while `cwnd < ssthresh`, otherwise congestion
/// avoidance `cwnd + 1/cwnd`.
pub fn open(cwnd: f64, ssthresh: f64) -> f64 {
    if cwnd < ssthresh {
        cwnd + 1.0
    } else {
        cwnd + 1.0 / cwnd
    }
}

/// The slow-start threshold after a congestion signal: `max(⌊w/2⌋, 2)` segments, where `w` is
/// the flight size (RFC 5681 eq. 4) or, for ECN, the current window (ns-2 `slowdown` computes
/// `int(window()/2)`, floored at 2).
pub fn halved(w: u64) -> u64 {
    (w / 2).max(2)
}

/// The usable send window in segments: `min(⌊cwnd⌋, max_window)` (0 = no receiver cap), at
/// least 1.
pub fn usable_window(cwnd: f64, max_window: u32) -> u64 {
    let w = (cwnd.max(1.0)).floor() as u64;
    if max_window == 0 {
        w
    } else {
        w.min(max_window as u64)
    }
}

/// NewReno partial-ACK window deflation (RFC 6582 §3.2 step 3, ns-2
/// `partial_window_deflation_ = 1`): deflate by the amount newly acknowledged, add back one
/// segment (for the retransmission the partial ACK triggers), never below 1.
pub fn deflate_partial(cwnd: f64, newly_acked: u64) -> f64 {
    (cwnd - newly_acked as f64 + 1.0).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_and_congestion_avoidance_steps() {
        assert_eq!(open(2.0, 10.0), 3.0);
        assert_eq!(open(9.5, 10.0), 10.5);
        assert!((open(10.0, 10.0) - 10.1).abs() < 1e-12);
        assert!((open(4.0, 2.0) - 4.25).abs() < 1e-12);
        // A full window of ACKs in CA adds about one segment: sum of 1/cwnd over cwnd ACKs.
        let mut c = 20.0;
        for _ in 0..20 {
            c = open(c, 5.0);
        }
        assert!((c - 21.0).abs() < 0.03, "{c}");
    }

    #[test]
    fn halving_floors_at_two() {
        assert_eq!(halved(20), 10);
        assert_eq!(halved(21), 10);
        assert_eq!(halved(5), 2);
        assert_eq!(halved(1), 2);
        assert_eq!(halved(0), 2);
    }

    #[test]
    fn usable_window_is_integer_part_capped() {
        assert_eq!(usable_window(7.9, 0), 7);
        assert_eq!(usable_window(7.9, 5), 5);
        assert_eq!(usable_window(0.3, 0), 1);
        assert_eq!(usable_window(64.0, 64), 64);
    }

    #[test]
    fn partial_deflation() {
        // cwnd 13 (ssthresh 10 + 3), a partial ACK of 2 segments: 13 - 2 + 1 = 12.
        assert_eq!(deflate_partial(13.0, 2), 12.0);
        assert_eq!(deflate_partial(3.0, 10), 1.0);
    }
}
