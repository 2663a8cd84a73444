//! Metrics: what a run measures and how it is reported.
//!
//! - [`link_probe`]: what the recorder measures at a link, fed by the link's hook;
//! - [`histogram`]: the bottleneck's queueing-delay histogram;
//! - [`flow_delay`]: the same departures per flow (mean, p99, jitter);
//! - [`packet_trace`]: the opt-in per-packet event log of chosen links;
//! - [`table`]: columnar result tables;
//! - [`recorder`]: the run's [`Observer`](crate::engine::Observer): warm-up snapshot, queue
//!   sampling, goodput bins, then the tables;
//! - [`summary`]: the typed [`Summary`] and the registry of its metrics ([`METRICS`]).

pub mod flow_delay;
pub mod histogram;
pub mod link_probe;
pub mod packet_trace;
pub mod recorder;
pub mod summary;
pub mod table;

pub use flow_delay::{FlowDelayStats, FlowDelays};
pub use histogram::DelayHistogram;
pub use link_probe::LinkProbe;
pub use recorder::Recorder;
pub use summary::{Metric, Recorded, Summary, METRICS};
pub use table::{Column, Table};

/// Jain's fairness index (Σx)² / (n·Σx²); 1 for equal shares, 1/n when one flow takes all.
/// Defined as 1 for an empty set or all-zero values (nothing is unfairly shared).
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sq == 0.0 {
        1.0
    } else {
        sum * sum / (n * sq)
    }
}

/// Mean and population standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_bounds() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    }
}
