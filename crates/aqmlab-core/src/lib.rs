//! # aqmlab-core
//!
//! A packet-level discrete-event network simulator built to compare active queue management
//! (AQM) algorithms. Pure Rust, no Python; the `aqmlab-py` crate binds it.
//!
//! Layers, bottom up (each module's own docs say more):
//! - [`time`], [`rng`]: integer nanosecond clock, unit strings, seeded per-component streams.
//! - [`engine`]: the event queue, ordered by (time, insertion sequence), and the simulator
//!   proper: `Simulator::step` / `run_until`, packet forwarding, and an `Observer` hook through
//!   which measurement runs on timers of its own (never per packet).
//! - [`net`]: packets, links (rate + delay + an egress qdisc), nodes, routes.
//! - [`qdisc`], [`aqm`]: the one queueing glue, and the algorithms behind one `Aqm` trait.
//! - [`transport`]: TCP (Reno/NewReno, ns-2 style one-way agents) and unresponsive senders.
//! - [`traffic`]: sources that drive transports (bulk, finite, on/off, web-like).
//! - [`metrics`]: the run's `Recorder` (warm-up snapshot, queue sampling, goodput bins), the
//!   typed `Summary`, the metric registry `METRICS` (exported to Python), columnar tables.
//! - [`scenario`]: the TOML schema (one schema, owned here), expansion into a network, and
//!   `scenario::run` (engine + recorder for one scenario, returning `RunOutput`).
//! - [`replay`]: drive one qdisc by script, with scripted random numbers.
//! - [`schema`]: the scenario format's JSON Schema and reference tables, from the doc comments.
//!
//! Nothing reads a wall clock or a global RNG: time and randomness are passed in, so every
//! component runs unchanged in a unit test, a replay or a full simulation, and runs repeat bit
//! for bit.

pub mod aqm;
pub mod engine;
pub mod error;
pub mod metrics;
pub mod net;
pub mod qdisc;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod time;
pub mod traffic;
pub mod transport;

pub use error::ScenarioError;

/// Which behaviour of the model this build has: a hash of the golden hashes (quick and full,
/// `tests/data/`), which every change that alters any run's results must re-record (the golden
/// test's contract). So it changes exactly when results may, and a run cache keyed on it
/// (`aqmlab.sweep.point_hash`) never serves a run of another model, whereas the package
/// version stays the same across such changes.
pub const MODEL_ID: u64 = fnv1a(
    include_bytes!("../tests/data/golden_hashes.json"),
    fnv1a(
        include_bytes!("../tests/data/golden_hashes_full.json"),
        FNV_OFFSET,
    ),
);

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a of `bytes`, continuing from `hash` (a build-time identity, not security).
const fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a test vectors, and a one-byte change moves the identity.
    #[test]
    fn fnv1a_matches_the_reference_and_sees_a_byte() {
        assert_eq!(fnv1a(b"", FNV_OFFSET), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a", FNV_OFFSET), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar", FNV_OFFSET), 0x8594_4171_f739_67e8);
        assert_ne!(
            fnv1a(b"{\"a\": 1}", FNV_OFFSET),
            fnv1a(b"{\"a\": 2}", FNV_OFFSET)
        );
        assert_ne!(MODEL_ID, FNV_OFFSET);
    }
}
