//! The discrete-event engine.
//!
//! - [`queue`]: the event queue, ordered by (time, insertion sequence).
//! - [`simulator`]: the simulator proper. [`Simulator`] takes a built [`World`] (links, flows,
//!   clock), dispatches events ([`Simulator::step`], [`Simulator::run_until`]) and forwards
//!   packets hop by hop; an [`Observer`] (the run's `metrics::Recorder`) measures through
//!   timers of its own.
//!
//! The engine knows no scenario: `scenario::build` makes the world from one, and
//! `scenario::run` puts world, engine and recorder together and returns the results.

pub mod queue;
pub mod simulator;

pub use simulator::{FlowRt, Observer, Simulator, TimerId, World};
