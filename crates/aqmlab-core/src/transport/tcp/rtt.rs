//! Round-trip-time estimation and the retransmission timeout, RFC 6298 with ns-2's flavour.
//!
//! Source: RFC 6298 "Computing TCP's Retransmission Timer" (Paxson, Allman, Chu, Sargent, 2011),
//! and ns-2 `tcp.cc` (`rtt_update`, `rtt_timeout`, `t_backoff_`), the simulator the papers used.
//!
//! Equations (R = one RTT sample, G = clock granularity, K = 4):
//! - (2.2) first sample: `SRTT = R`, `RTTVAR = R/2`.
//! - (2.3) later samples: `RTTVAR = (1 − 1/4)·RTTVAR + 1/4·|SRTT − R|`, then
//!   `SRTT = (1 − 1/8)·SRTT + 1/8·R` (RTTVAR is updated with the *old* SRTT, as the RFC says).
//! - `RTO = SRTT + max(G, K·RTTVAR)`; (2.4) raised to `min_rto` if smaller; then rounded *up* to a
//!   whole number of clock ticks (ns-2 does its timer arithmetic in `tcpTick_` units); (2.5) capped
//!   at `max_rto`. Before the first sample, `RTO = initial_rto` (2.1).
//! - (5.5) on each expiry the timer backs off: `RTO·backoff` with `backoff` doubling, capped at 64
//!   (ns-2's `t_backoff_` limit) and the product capped at `max_rto`. The backoff resets to 1 on
//!   the next ACK of new data (ns-2 resets `t_backoff_` when a valid RTT sample arrives).
//!
//! Samples come from echoed timestamps (`ts_echo`), so retransmitted segments yield valid samples
//! and Karn's algorithm is not needed (RFC 7323 §4.1; ns-2's agents with `timestamps_`).
//! Arithmetic is in integer nanoseconds so runs repeat bit for bit. Unlike ns-2 we do not
//! quantise the samples themselves to ticks, only the resulting RTO (the brief's reading of
//! "RTO rounded up to `clock_granularity` ticks").
//!
//! ns-2's arithmetic (`RttEstimator::ns2`, `tcp.model = "ns2"`, the default): `tcp.cc`
//! `rtt_update`/`rtt_timeout`/`rtt_backoff` in integer clock ticks. Each sample is rounded to
//! the nearest tick (at least 1); `t_srtt` holds 8·SRTT and `t_rttvar` 4·RTTVAR in ticks
//! (first sample: SRTT = R, RTTVAR = R/2; then `δ = R − t_srtt/8`, `t_srtt += δ`,
//! `t_rttvar += |δ| − t_rttvar/4`, each at least 1); `RTO = ⌊(t_srtt + 8·t_rttvar)/8⌋` ticks
//! (SRTT + 4·RTTVAR truncated), raised to `min_rto` before the backoff multiplies it, capped at
//! `max_rto`, at least two ticks. A backoff doubles while below 64 or while the backed-off RTO
//! is below `max_rto`; past 8 the SRTT is folded into RTTVAR and forgotten (the next sample
//! starts afresh).
//!
//! Parameters (from `TcpConfig`): `min_rto` (default 200 ms = ns-2 `minrto_`; RFC 6298 says 1 s),
//! `max_rto` (60 s = ns-2 `maxrto_`), `initial_rto` (3 s = ns-2 `rtxcur_init_`; RFC 6298 recommends
//! 1 s), `clock_granularity` (10 ms = ns-2 `tcpTick_`).

use crate::time::SimDuration;

/// Maximum backoff multiplier (ns-2 caps `t_backoff_` at 64).
pub const MAX_BACKOFF: u32 = 64;

/// `max(min_rto, srtt + max(g, 4·rttvar))` rounded up to whole ticks of `g`, capped at `max_rto`.
/// Pure so tests can check it against hand-computed values.
pub fn rto_from(
    srtt: SimDuration,
    rttvar: SimDuration,
    g: SimDuration,
    min_rto: SimDuration,
    max_rto: SimDuration,
) -> SimDuration {
    let raw = srtt.0.saturating_add(g.0.max(rttvar.0.saturating_mul(4)));
    let floored = raw.max(min_rto.0);
    let g = g.0.max(1);
    let ticks = floored.div_ceil(g);
    SimDuration(ticks.saturating_mul(g).min(max_rto.0))
}

/// RTT estimator and timeout calculator of one sender.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    // ** Configured
    min_rto: SimDuration,
    max_rto: SimDuration,
    initial_rto: SimDuration,
    granularity: SimDuration,
    // ** Maintained
    /// Smoothed RTT; None before the first sample.
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// Lowest sample seen.
    min_rtt: Option<SimDuration>,
    /// Base RTO (without backoff).
    rto: SimDuration,
    /// Backoff multiplier, 1 when not backed off.
    backoff: u32,
    samples: u64,
    /// ns-2's tick arithmetic (`Some`), or RFC 6298 on exact samples (`None`).
    ticks: Option<Ns2Ticks>,
}

/// ns-2's estimator state, in clock ticks (`tcp.cc` `t_srtt_`, `t_rttvar_`, `t_rtxcur_`).
#[derive(Clone, Debug, Default)]
struct Ns2Ticks {
    /// 8 x SRTT, ticks; 0 = no estimate.
    srtt8: i64,
    /// 4 x RTTVAR, ticks.
    rttvar4: i64,
}

impl RttEstimator {
    pub fn new(
        min_rto: SimDuration,
        max_rto: SimDuration,
        initial_rto: SimDuration,
        granularity: SimDuration,
    ) -> RttEstimator {
        RttEstimator {
            min_rto,
            max_rto,
            initial_rto,
            granularity,
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            rto: initial_rto.min(max_rto),
            backoff: 1,
            samples: 0,
            ticks: None,
        }
    }

    /// ns-2's estimator (`tcp.cc`): tick-rounded samples, truncated RTO (module docs).
    pub fn ns2(
        min_rto: SimDuration,
        max_rto: SimDuration,
        initial_rto: SimDuration,
        granularity: SimDuration,
    ) -> RttEstimator {
        RttEstimator {
            ticks: Some(Ns2Ticks::default()),
            ..RttEstimator::new(min_rto, max_rto, initial_rto, granularity)
        }
    }

    /// ns-2 `rtt_update`: updates the tick state and `self.rto` (the unclamped `t_rtxcur_`).
    fn sample_ns2(&mut self, r: SimDuration) {
        let g = self.granularity.0.max(1);
        let t = self.ticks.get_or_insert_with(Ns2Ticks::default);
        let rtt = (((r.0 + g / 2) / g) as i64).max(1); // int(tao / tick + 0.5)
        if t.srtt8 != 0 {
            let mut delta = rtt - (t.srtt8 >> 3);
            t.srtt8 += delta;
            if t.srtt8 <= 0 {
                t.srtt8 = 1;
            }
            delta = delta.abs() - (t.rttvar4 >> 2);
            t.rttvar4 += delta;
            if t.rttvar4 <= 0 {
                t.rttvar4 = 1;
            }
        } else {
            t.srtt8 = rtt << 3;
            t.rttvar4 = rtt << 1;
        }
        // ((t_rttvar << (rttvar_exp_ + T_SRTT_BITS - T_RTTVAR_BITS)) + t_srtt) >> T_SRTT_BITS
        let rto_ticks = ((t.rttvar4 << 3) + t.srtt8) >> 3;
        self.srtt = Some(SimDuration(t.srtt8 as u64 * g / 8));
        self.rttvar = SimDuration(t.rttvar4 as u64 * g / 4);
        self.rto = SimDuration(rto_ticks as u64 * g);
    }

    /// Feeds one RTT sample (RFC 6298 2.2/2.3) and recomputes the base RTO.
    pub fn sample(&mut self, r: SimDuration) {
        self.samples += 1;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        if self.ticks.is_some() {
            self.sample_ns2(r);
            return;
        }
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            Some(s) => {
                let diff = s.0.abs_diff(r.0);
                // rttvar = 3/4 rttvar + 1/4 |srtt - r|; srtt = 7/8 srtt + 1/8 r (rounded to ns).
                self.rttvar = SimDuration((3 * self.rttvar.0 + diff + 2) / 4);
                self.srtt = Some(SimDuration((7 * s.0 + r.0 + 4) / 8));
            }
        }
        self.rto = rto_from(
            self.srtt.unwrap_or_default(),
            self.rttvar,
            self.granularity,
            self.min_rto,
            self.max_rto,
        );
    }

    /// The timeout to arm now: base RTO times the backoff, capped at `max_rto`.
    pub fn rto(&self) -> SimDuration {
        if self.ticks.is_some() {
            // ns-2 `rtt_timeout` (rfc2988_): min_rto is applied before the backoff.
            let base = self.rto.0.max(self.min_rto.0);
            let t = base.saturating_mul(self.backoff as u64).min(self.max_rto.0);
            return SimDuration(t.max(2 * self.granularity.0));
        }
        SimDuration(
            self.rto
                .0
                .saturating_mul(self.backoff as u64)
                .min(self.max_rto.0),
        )
    }

    /// The base RTO without backoff (`initial_rto` before the first sample).
    pub fn base_rto(&self) -> SimDuration {
        self.rto
    }

    /// Doubles the backoff after a timeout (capped at [`MAX_BACKOFF`]).
    pub fn back_off(&mut self) {
        if self.ticks.is_some() {
            // ns-2 `rtt_backoff`.
            if self.backoff < MAX_BACKOFF || self.rto() < self.max_rto {
                self.backoff = self.backoff.saturating_mul(2);
            }
            if self.backoff > 8 {
                if let Some(t) = self.ticks.as_mut() {
                    t.rttvar4 += t.srtt8 >> 3;
                    t.srtt8 = 0;
                }
            }
            return;
        }
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }

    /// Clears the backoff (on an ACK of new data).
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
    pub fn samples(&self) -> u64 {
        self.samples
    }
    /// The initial RTO this estimator was configured with.
    pub fn initial_rto(&self) -> SimDuration {
        self.initial_rto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn est() -> RttEstimator {
        RttEstimator::new(ms(200), ms(60_000), ms(3_000), ms(10))
    }

    #[test]
    fn initial_rto_before_any_sample() {
        let e = est();
        assert_eq!(e.rto(), ms(3_000));
        assert_eq!(e.srtt(), None);
        assert_eq!(e.min_rtt(), None);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.sample(ms(300));
        assert_eq!(e.srtt(), Some(ms(300)));
        assert_eq!(e.rttvar(), ms(150));
        // 300 + max(10, 600) = 900 ms, already a whole number of ticks.
        assert_eq!(e.rto(), ms(900));
    }

    #[test]
    fn second_sample_follows_rfc6298_gains() {
        let mut e = est();
        e.sample(ms(100));
        e.sample(ms(200));
        // rttvar = 3/4*50 + 1/4*|100-200| = 37.5 + 25 = 62.5 ms; srtt = 7/8*100 + 1/8*200 = 112.5.
        assert_eq!(e.rttvar(), SimDuration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(112_500)));
        // rto = 112.5 + 250 = 362.5 ms -> rounded up to 370 ms (10 ms ticks).
        assert_eq!(e.rto(), ms(370));
        assert_eq!(e.min_rtt(), Some(ms(100)));
        assert_eq!(e.samples(), 2);
    }

    #[test]
    fn min_rto_floor_and_granularity_rounding() {
        // Steady 20 ms RTT: rttvar decays towards 0, so RTO = srtt + G = 30 ms < min_rto.
        let mut e = est();
        for _ in 0..200 {
            e.sample(ms(20));
        }
        assert_eq!(e.rto(), ms(200));
        // No floor: 20 + max(10, ~0) = 30 ms.
        assert_eq!(rto_from(ms(20), ms(0), ms(10), ms(0), ms(60_000)), ms(30));
        // Rounding up to ticks: 231 ms + 10 ms = 241 ms -> 250 ms.
        assert_eq!(
            rto_from(ms(231), ms(1), ms(10), ms(200), ms(60_000)),
            ms(250)
        );
        // A coarse 500 ms clock (the classic BSD tick): 120 + 500 = 620 -> 1000 ms.
        assert_eq!(
            rto_from(ms(120), ms(5), ms(500), ms(200), ms(60_000)),
            ms(1000)
        );
        // Exactly on a tick stays put.
        assert_eq!(
            rto_from(ms(290), ms(0), ms(10), ms(200), ms(60_000)),
            ms(300)
        );
        // Cap.
        assert_eq!(
            rto_from(ms(90_000), ms(0), ms(10), ms(200), ms(60_000)),
            ms(60_000)
        );
    }

    #[test]
    fn backoff_doubles_caps_and_resets() {
        let mut e = est();
        e.sample(ms(100)); // rto = 100 + 200 = 300 ms
        assert_eq!(e.rto(), ms(300));
        e.back_off();
        assert_eq!(e.rto(), ms(600));
        e.back_off();
        assert_eq!(e.rto(), ms(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.backoff(), MAX_BACKOFF);
        assert_eq!(e.rto(), ms(300 * 64));
        let mut capped = RttEstimator::new(ms(200), ms(1_000), ms(3_000), ms(10));
        assert_eq!(capped.rto(), ms(1_000), "initial RTO is capped too");
        capped.sample(ms(100));
        capped.back_off();
        capped.back_off();
        assert_eq!(capped.rto(), ms(1_000));
        e.reset_backoff();
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn ns2_arithmetic_in_ticks() {
        // tcp.cc rtt_update by hand, tick 10 ms: 100 ms -> t_rtt 10, t_srtt 80, t_rttvar 20,
        // RTO ((20 << 3) + 80) >> 3 = 30 ticks.
        let mut e = RttEstimator::ns2(ms(200), ms(60_000), ms(3_000), ms(10));
        assert_eq!(e.rto(), ms(3_000), "rtxcur_init_ before a sample");
        e.sample(ms(100));
        assert_eq!(e.base_rto(), ms(300));
        assert_eq!(e.srtt(), Some(ms(100)));
        // 124 ms rounds to 12 ticks: delta 2, t_srtt 82, t_rttvar 20 + 2 - 5 = 17,
        // RTO (136 + 82) >> 3 = 27 ticks (truncated).
        e.sample(ms(124));
        assert_eq!(e.base_rto(), ms(270));
        assert_eq!(e.rto(), ms(270));
        // A short path: min_rto applies before the backoff multiplies it.
        let mut short = RttEstimator::ns2(ms(200), ms(60_000), ms(3_000), ms(10));
        short.sample(ms(12));
        assert_eq!(short.base_rto(), ms(30));
        assert_eq!(short.rto(), ms(200));
        short.back_off();
        assert_eq!(short.rto(), ms(400));
        // Past a backoff of 8 the SRTT is forgotten: the next sample starts afresh.
        for _ in 0..3 {
            short.back_off();
        }
        assert_eq!(short.backoff(), 16);
        short.sample(ms(500));
        assert_eq!(short.srtt(), Some(ms(500)));
    }
}
