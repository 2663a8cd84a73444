//! Running a scenario: build its network in the engine with a [`Recorder`] attached, run to the
//! end, collect the results.
//!
//! One run is single-threaded and deterministic: the same scenario and seed give the same
//! `summary_json`, byte for byte (integer time, insertion-ordered ties, per-component streams,
//! sorted JSON keys, no wall-clock values in the summary).

use serde_json::Value;

use crate::engine;
use crate::error::ScenarioError;
use crate::metrics::{Recorder, Summary, Table};
use crate::scenario::Scenario;
use crate::time::SimDuration;

pub use crate::engine::EngineOptions;

/// The simulator of one scenario with the standard measurement attached.
pub type Simulator = engine::Simulator<Recorder>;

/// Everything one run produces.
pub struct RunOutput {
    /// The summary (DESIGN.md "Results" stable keys) as pretty JSON with sorted keys.
    pub summary_json: String,
    pub summary: Value,
    /// The same summary, typed.
    pub typed_summary: Summary,
    /// One row per flow.
    pub flows: Table,
    /// The bottleneck queue sampled every `sample_interval`, with the AQM's probes.
    pub queue: Table,
    /// Per-group goodput per `series_bin` (long format: t_s, group, goodput_mbps).
    pub groups: Table,
    /// One row per link: counters for conservation checks and utilisation.
    pub links: Table,
    /// One row per completed web transfer: flow, group, start_s, duration_s.
    pub transfers: Table,
    /// Events processed (for benchmarks; not part of the summary).
    pub events: u64,
}

/// Parses, validates and runs TOML text.
pub fn run_toml(text: &str) -> Result<RunOutput, ScenarioError> {
    Ok(run(&Scenario::from_toml_str(text)?))
}

/// Runs a validated scenario to the end.
pub fn run(s: &Scenario) -> RunOutput {
    Simulator::new(s).finish()
}

impl engine::Simulator<Recorder> {
    pub fn new(scenario: &Scenario) -> Simulator {
        Simulator::with_options(scenario, EngineOptions::default())
    }

    pub fn with_options(scenario: &Scenario, options: EngineOptions) -> Simulator {
        let f = &scenario.file;
        let recorder = Recorder::new(f.sample_interval, f.series_bin);
        Simulator::with_observer(scenario, options, recorder)
    }

    /// Runs to the end and collects the results.
    pub fn finish(mut self) -> RunOutput {
        self.run_until(self.world().end);
        let events = self.events_processed();
        let (world, recorder) = self.into_parts();
        debug_assert!(world.links.iter().all(|l| {
            let c = l.counters(world.now);
            c.arrivals == c.dequeued + c.drops + c.backlog
        }));
        let r = recorder.finish(&world);
        let value = r.summary.to_value();
        RunOutput {
            summary_json: serde_json::to_string_pretty(&value).unwrap_or_default(),
            summary: value,
            typed_summary: r.summary,
            flows: r.flows,
            queue: r.queue,
            groups: r.groups,
            links: r.links,
            transfers: r.transfers,
            events,
        }
    }
}

/// Convenience for benchmarks: total simulated duration of a scenario.
pub fn duration(s: &Scenario) -> SimDuration {
    s.file.duration
}
