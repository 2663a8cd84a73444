//! The discrete-event engine: an event queue ordered by (time, insertion sequence).
//! The simulator that drives a scenario's network with it lives in `scenario::run`.

pub mod queue;
