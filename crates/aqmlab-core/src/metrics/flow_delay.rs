//! Per-flow queueing delay at the measured link, as ns-3's FlowMonitor reports delay and jitter
//! per flow: each flow's departures give its mean sojourn, its 99th percentile and its jitter.
//!
//! - **Sojourn**: departure (start of transmission) minus enqueue time, the same quantity as the
//!   run's `delay_ms` histogram, counted per flow.
//! - **Jitter**: the mean of |dᵢ − dᵢ₋₁| over the flow's consecutive departures (FlowMonitor's
//!   `jitterSum / (rxPackets − 1)`), here of the queueing delay alone: a flow's propagation
//!   delay is constant, so this is the variation of its one-way delay through the measured link.
//! - **Percentiles** come from a log-linear histogram per flow: 1 µs bins below 64 µs, then 32
//!   bins per power of two (a bin is at most 1/32 ≈ 3 % of its value wide), grown only as far
//!   as the flow's largest delay, so 10,000 flows cost a few kilobytes each at most.

/// Exact microsecond bins below this many microseconds.
const LINEAR_US: u64 = 64;
/// Bins per power of two above `LINEAR_US` (a power of two).
const SUB_BINS: u64 = 32;

use crate::net::flow_map::DenseFlowMap;

/// One flow's departures.
#[derive(Clone, Debug, Default)]
struct Flow {
    count: u64,
    sum_ns: u128,
    jitter_sum_ns: u128,
    last_ns: u64,
    max_ns: u64,
    bins: Vec<u32>,
}

/// What [`FlowDelays::stats`] reports for one flow, milliseconds; NaN with no departures (and
/// jitter NaN with fewer than two).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowDelayStats {
    pub packets: u64,
    pub mean_ms: f64,
    pub p99_ms: f64,
    pub jitter_ms: f64,
}

/// Sojourn times of departing packets, per flow id.
#[derive(Clone, Debug, Default)]
pub struct FlowDelays {
    /// Dense for the small ids a simulation numbers its flows with, sparse beyond (a live run's
    /// "other" traffic has id `u32::MAX`).
    flows: DenseFlowMap<Flow>,
}

fn bin_of(ns: u64) -> usize {
    let us = ns / 1000;
    if us < LINEAR_US {
        return us as usize;
    }
    let octave = 63 - us.leading_zeros() as u64; // floor(log2(us)) >= 6
    let shift = octave - SUB_BINS.trailing_zeros() as u64;
    let sub = (us >> shift) - SUB_BINS; // in [0, SUB_BINS)
    (LINEAR_US + (octave - LINEAR_US.trailing_zeros() as u64) * SUB_BINS + sub) as usize
}

/// Asks the CPU to start loading the line holding `bin`.
#[inline(always)]
fn prefetch(bin: &u32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint with no effect on memory; `bin` is a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(bin as *const u32 as *const i8, _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bin;
}

/// The lower edge and width of bin `b`, ns.
fn bin_range_ns(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < LINEAR_US {
        return (b * 1000, 1000);
    }
    let octave = (b - LINEAR_US) / SUB_BINS + LINEAR_US.trailing_zeros() as u64;
    let sub = (b - LINEAR_US) % SUB_BINS;
    let width_us = 1u64 << (octave - SUB_BINS.trailing_zeros() as u64);
    ((SUB_BINS + sub) * width_us * 1000, width_us * 1000)
}

impl FlowDelays {
    /// Records one departure of `flow` after `ns` nanoseconds in the queue.
    #[inline]
    pub fn record(&mut self, flow: u32, ns: u64) {
        let f = self.flows.entry(flow);
        if f.count > 0 {
            f.jitter_sum_ns += ns.abs_diff(f.last_ns) as u128;
        }
        f.count += 1;
        f.sum_ns += ns as u128;
        f.last_ns = ns;
        f.max_ns = f.max_ns.max(ns);
        let b = bin_of(ns);
        if b >= f.bins.len() {
            f.bins.resize(b + 1, 0);
        }
        f.bins[b] += 1;
    }

    /// Starts loading the bin `record(flow, ns)` will count into (its line is rarely still
    /// cached: a flow departs once every few hundred departures at a busy link).
    #[inline]
    pub fn prefetch(&self, flow: u32, ns: u64) {
        if let Some(bin) = self.flows.get(flow).and_then(|f| f.bins.get(bin_of(ns))) {
            prefetch(bin);
        }
    }

    /// Forgets everything (the measurement window opens).
    pub fn clear(&mut self) {
        self.flows = DenseFlowMap::default();
    }

    /// The statistics of `flow`'s departures so far.
    pub fn stats(&self, flow: u32) -> FlowDelayStats {
        let Some(f) = self.flows.get(flow).filter(|f| f.count > 0) else {
            return FlowDelayStats {
                packets: 0,
                mean_ms: f64::NAN,
                p99_ms: f64::NAN,
                jitter_ms: f64::NAN,
            };
        };
        FlowDelayStats {
            packets: f.count,
            mean_ms: f.sum_ns as f64 / f.count as f64 / 1e6,
            p99_ms: quantile_ns(f, 0.99) / 1e6,
            jitter_ms: if f.count > 1 {
                f.jitter_sum_ns as f64 / (f.count - 1) as f64 / 1e6
            } else {
                f64::NAN
            },
        }
    }
}

/// The q-quantile of a flow's sojourns, ns: the middle of the bin holding the ⌈q·n⌉-th smallest
/// value, capped at the largest value seen.
fn quantile_ns(f: &Flow, q: f64) -> f64 {
    let rank = ((q * f.count as f64).ceil() as u64).clamp(1, f.count);
    let mut seen = 0u64;
    for (b, &n) in f.bins.iter().enumerate() {
        seen += n as u64;
        if seen >= rank {
            let (lo, width) = bin_range_ns(b);
            return ((lo + width / 2) as f64).min(f.max_ns as f64);
        }
    }
    f.max_ns as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_value_once_within_3_percent() {
        let mut last = None;
        for us in (0..100_000u64).chain([1 << 20, 5_000_000, 123_456_789]) {
            let ns = us * 1000 + 999;
            let b = bin_of(ns);
            let (lo, width) = bin_range_ns(b);
            assert!(
                lo <= ns && ns < lo + width,
                "{ns} ns in bin {b} = [{lo}, +{width})"
            );
            if us >= LINEAR_US {
                assert!(
                    width as f64 <= lo as f64 / SUB_BINS as f64 + 1.0,
                    "bin {b} too wide"
                );
            }
            if let Some(prev) = last {
                assert!(
                    b == prev || b == prev + 1 || us > 100_000,
                    "bins skip at {us} µs"
                );
            }
            last = Some(b);
        }
    }

    #[test]
    fn mean_jitter_and_p99_of_known_delays() {
        let mut d = FlowDelays::default();
        // Flow 3: 1, 3, 2 ms -> mean 2 ms, jitter (2 + 1) / 2 = 1.5 ms.
        for ms in [1u64, 3, 2] {
            d.record(3, ms * 1_000_000);
        }
        let s = d.stats(3);
        assert_eq!(s.packets, 3);
        assert!((s.mean_ms - 2.0).abs() < 1e-12);
        assert!((s.jitter_ms - 1.5).abs() < 1e-12);
        assert!((s.p99_ms - 3.0).abs() <= 3.0 / 32.0, "p99 {}", s.p99_ms);
        // Flow 0: 1,000 departures of 1..=1000 µs: p99 is the 990th, within a bin of it.
        for us in 1..=1000u64 {
            d.record(0, us * 1000);
        }
        let p99 = d.stats(0).p99_ms;
        assert!((p99 - 0.990).abs() <= 0.990 / 32.0, "p99 {p99}");
        assert!(d.stats(1).mean_ms.is_nan() && d.stats(7).p99_ms.is_nan());
        d.clear();
        assert_eq!(d.stats(3).packets, 0);
    }
}
