//! The discrete-event engine.
//!
//! - [`queue`]: the event queue, ordered by (time, insertion sequence).
//! - [`simulator`]: the simulator proper. [`Simulator`] builds a scenario's network into a
//!   [`World`], dispatches events ([`Simulator::step`], [`Simulator::run_until`]) and forwards
//!   packets hop by hop; an [`Observer`] (the run's
//!   [`Recorder`](crate::metrics::recorder::Recorder)) measures through timers of its own.
//!
//! `scenario::run` puts the two together for one scenario and returns the results.

pub mod queue;
pub mod simulator;

pub use simulator::{EngineOptions, FlowRt, Observer, Simulator, TimerId, World};
