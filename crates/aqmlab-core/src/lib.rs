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
