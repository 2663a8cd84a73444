//! # aqmlab-core
//!
//! A packet-level discrete-event network simulator built to compare active queue management
//! (AQM) algorithms. Pure Rust, no Python; the `aqmlab-py` crate binds it.
//!
//! Layers, bottom up (each module's own docs say more); a module imports only from layers
//! below it (`tests/module_graph.rs` fails on an import cycle):
//! - [`time`], [`rng`], [`error`], [`shape`], [`key_docs`]: integer nanosecond clock, unit
//!   strings, seeded per-component streams, errors that name the key, and the reading of a
//!   table type's keys and doc comments.
//! - [`net`]: packets, the flow maps, the slab of packets in flight.
//! - [`qdisc`]: the one queueing glue, and the contract an algorithm implements (`Aqm`,
//!   `Verdict`, `Reason`, `QueueView`).
//! - [`aqm`]: the algorithms and their registry (`AqmConfig`); `net::link` and
//!   `net::topology` (a link at run time: qdisc, transmitter, pipe) sit above it.
//! - [`transport`]: TCP (Tahoe, Reno, NewReno and SACK recovery; Reno, CUBIC and DCTCP
//!   congestion control; ns-2 style one-way agents) and unresponsive senders.
//! - [`traffic`]: sources that drive transports (bulk, finite, on/off, web-like).
//! - [`engine`]: the event queue, ordered by (time, insertion sequence), and the simulator
//!   proper over a built `World`: `Simulator::step` / `run_until`, packet forwarding, and an
//!   `Observer` hook through which measurement runs on timers of its own (never per packet).
//! - [`scenario`]: the TOML schema (one schema, owned here), expansion into a network, and
//!   `scenario::build` (the engine's world for a scenario).
//! - [`metrics`]: the run's `Recorder` (warm-up snapshot, queue sampling, goodput bins), the
//!   typed `Summary`, the metric registry `METRICS` (exported to Python), columnar tables;
//!   `scenario::run` puts world, engine and recorder together and returns `RunOutput`.
//! - [`replay`]: drive one qdisc by script, with scripted random numbers.
//! - [`schema`]: the scenario format's JSON Schema and reference tables, from the doc comments.
//!
//! Nothing reads a wall clock or a global RNG: time and randomness are passed in, so every
//! component runs unchanged in a unit test, a replay or a full simulation, and runs repeat bit
//! for bit.

pub mod aqm;
pub mod engine;
pub mod error;
pub mod key_docs;
pub mod metrics;
pub mod net;
pub mod qdisc;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod shape;
pub mod time;
pub mod traffic;
pub mod transport;

pub use error::ScenarioError;

/// Which behaviour of the model this build has, as a whole: a hash of the golden hashes (quick
/// and full, `tests/data/`), which every change that alters any run's results must re-record
/// (the golden test's contract), whereas the package version stays the same across such
/// changes. The run cache keys each run on the narrower `scenario::model_id::of`, which
/// follows only the algorithms that run uses.
pub const MODEL_ID: u64 = fnv1a(
    include_bytes!("../tests/data/golden_hashes.json"),
    fnv1a(
        include_bytes!("../tests/data/golden_hashes_full.json"),
        FNV_OFFSET,
    ),
);

pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a of `bytes`, continuing from `hash` (a build-time identity, not security).
pub(crate) const fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
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
