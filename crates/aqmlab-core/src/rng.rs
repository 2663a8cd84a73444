//! Seeded random streams, one per component.
//!
//! Every component that draws random numbers (each qdisc, each traffic source, the loss model of
//! each link, the scenario expansion) owns a `SimRng` derived from `(scenario seed, component id)`.
//! Streams are independent of the order in which components draw, so adding a flow does not
//! perturb the drop decisions of the bottleneck, and runs repeat bit for bit on every machine.
//!
//! Algorithm: xoshiro256++ (`rand_xoshiro`, a fixed and documented generator), seeded through
//! SplitMix64 from `seed ^ mix(component)`. Uniforms are the top 53 bits of a 64-bit draw, so they
//! lie in [0, 1) with 2^-53 resolution.
//!
//! For `replay`, a stream can instead be *scripted*: it returns a given list of uniforms in order
//! (e.g. the numbers ns-3's RED consumed), which lets a test compare decisions one by one.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Well-known component ids, so that streams do not collide by accident.
pub mod component {
    /// Scenario expansion (random access delays, start times, IDMaps factors).
    pub const SCENARIO: u64 = 1;
    /// Qdisc at link `i` uses `QDISC_BASE + i`.
    pub const QDISC_BASE: u64 = 1 << 32;
    /// Random-loss model at link `i` uses `LOSS_BASE + i`.
    pub const LOSS_BASE: u64 = 2 << 32;
    /// Traffic source of flow `i` uses `SOURCE_BASE + i`.
    pub const SOURCE_BASE: u64 = 3 << 32;
}

enum Source {
    Xoshiro(Xoshiro256PlusPlus),
    Scripted { values: Vec<f64>, next: usize },
}

/// A random stream. Cheap to draw from; not `Clone` on purpose (copies would repeat numbers).
pub struct SimRng {
    source: Source,
    drawn: u64,
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SimRng {
    /// The stream of component `component` in a run with scenario seed `seed`.
    pub fn new(seed: u64, component: u64) -> SimRng {
        let key = splitmix64(seed) ^ splitmix64(component.wrapping_mul(0xD1B5_4A32_D192_ED03));
        SimRng {
            source: Source::Xoshiro(Xoshiro256PlusPlus::seed_from_u64(key)),
            drawn: 0,
        }
    }

    /// A stream that returns `values` in order. Draws past the end return 0.5 and are counted, so
    /// the caller can report that the script ran out (`overrun()`).
    pub fn scripted(values: Vec<f64>) -> SimRng {
        SimRng {
            source: Source::Scripted { values, next: 0 },
            drawn: 0,
        }
    }

    /// A uniform number in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.drawn += 1;
        match &mut self.source {
            Source::Xoshiro(r) => (r.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64),
            Source::Scripted { values, next } => {
                let v = values.get(*next).copied().unwrap_or(0.5);
                *next += 1;
                v
            }
        }
    }

    /// A uniform number in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// A raw 64-bit draw (hashing salts, bin choices). Scripted streams derive it from a uniform.
    pub fn next_u64(&mut self) -> u64 {
        match &mut self.source {
            Source::Xoshiro(r) => {
                self.drawn += 1;
                r.next_u64()
            }
            Source::Scripted { .. } => (self.uniform() * u64::MAX as f64) as u64,
        }
    }

    /// Pareto distributed with the given mean and shape (> 1), as ns-2's Pareto on/off source:
    /// scale = mean·(shape−1)/shape, value = scale / U^(1/shape).
    pub fn pareto(&mut self, mean: f64, shape: f64) -> f64 {
        let scale = mean * (shape - 1.0) / shape;
        scale / (1.0 - self.uniform()).powf(1.0 / shape)
    }

    /// How many numbers have been drawn so far.
    pub fn drawn(&self) -> u64 {
        self.drawn
    }

    /// For scripted streams: true if more numbers were drawn than the script held.
    pub fn overrun(&self) -> bool {
        match &self.source {
            Source::Xoshiro(_) => false,
            Source::Scripted { values, next } => *next > values.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_repeat_and_differ() {
        let a: Vec<f64> = (0..5)
            .map({
                let mut r = SimRng::new(1, 7);
                move |_| r.uniform()
            })
            .collect();
        let mut r = SimRng::new(1, 7);
        let b: Vec<f64> = (0..5).map(|_| r.uniform()).collect();
        assert_eq!(a, b);
        let mut other = SimRng::new(1, 8);
        assert_ne!(a[0], other.uniform());
        let mut other_seed = SimRng::new(2, 7);
        assert_ne!(a[0], other_seed.uniform());
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = SimRng::new(42, 0);
        let n = 100_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
    }

    #[test]
    fn scripted_returns_values_then_reports_overrun() {
        let mut r = SimRng::scripted(vec![0.25, 0.75]);
        assert_eq!(r.uniform(), 0.25);
        assert_eq!(r.uniform(), 0.75);
        assert!(!r.overrun());
        r.uniform();
        assert!(r.overrun());
        assert_eq!(r.drawn(), 3);
    }
}
