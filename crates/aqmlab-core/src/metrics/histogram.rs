//! Queueing delays of departing packets in fixed 10 µs bins up to 5 s (plus an overflow count),
//! so percentiles need no per-packet storage. The mean is exact (kept as a sum). The same
//! departures are also counted per flow ([`FlowDelays`]).

use crate::metrics::flow_delay::FlowDelays;
use crate::net::packet::Packet;
use crate::time::SimTime;

const BIN_NS: u64 = 10_000;
const BINS: usize = 500_000;

#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    bins: Vec<u32>,
    overflow: u64,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
    /// The same sojourns per flow (mean, p99, jitter in the flows table).
    pub per_flow: FlowDelays,
}

impl DelayHistogram {
    pub fn record_ns(&mut self, ns: u64) {
        if self.bins.is_empty() {
            self.bins = vec![0; BINS];
        }
        match self.bins.get_mut((ns / BIN_NS) as usize) {
            Some(b) => *b += 1,
            None => self.overflow += 1,
        }
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    /// The departure hook links call: sojourn = now − enqueue time.
    pub fn record_departure(h: &mut DelayHistogram, now: SimTime, pkt: &Packet) {
        let ns = now.since(pkt.enqueued).0;
        h.record_ns(ns);
        h.per_flow.record(pkt.flow, ns);
    }

    /// Starts loading the lines `record_departure(self, start, pkt)` will count into.
    #[inline]
    pub fn prefetch(&self, start: SimTime, pkt: &Packet) {
        let ns = start.since(pkt.enqueued).0;
        self.per_flow.prefetch(pkt.flow, ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64 / 1e6
        }
    }

    /// The q-quantile (0..1) in ms, at the middle of its 10 µs bin (capped at the maximum).
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for (i, &b) in self.bins.iter().enumerate() {
            seen += b as u64;
            if seen >= rank {
                return ((i as u64 * BIN_NS + BIN_NS / 2).min(self.max_ns)) as f64 / 1e6;
            }
        }
        self.max_ns as f64 / 1e6
    }

    pub fn clear(&mut self) {
        self.bins.iter_mut().for_each(|b| *b = 0);
        self.overflow = 0;
        self.count = 0;
        self.sum_ns = 0;
        self.max_ns = 0;
        self.per_flow.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_a_bin() {
        let mut h = DelayHistogram::default();
        for ms in 1..=100 {
            h.record_ns(ms * 1_000_000);
        }
        assert!((h.mean_ms() - 50.5).abs() < 1e-9);
        assert!((h.quantile_ms(0.5) - 50.0).abs() <= 0.01);
        assert!((h.quantile_ms(0.99) - 99.0).abs() <= 0.01);
        assert_eq!(h.quantile_ms(1.0), 100.0);
    }
}
