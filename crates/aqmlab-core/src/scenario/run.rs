//! Running a scenario: build its world ([`build`](super::build)), run it in the engine with a
//! [`Recorder`] attached to the end, collect the results.
//!
//! One run is single-threaded and deterministic: the same scenario and seed give the same
//! `summary_json`, byte for byte (integer time, insertion-ordered ties, per-component streams,
//! sorted JSON keys, no wall-clock values in the summary).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::Value;

use crate::engine;
use crate::error::ScenarioError;
use crate::metrics::{packet_trace, Recorder, Summary, Table};
use crate::scenario::{build, Scenario};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpTrace;

pub use crate::scenario::build::EngineOptions;

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
    /// The per-event TCP traces of the flows `trace.flows` names (empty otherwise).
    pub tcp_trace: Table,
    /// The per-packet event log of the links `trace.links` names (empty otherwise).
    pub packet_trace: Table,
    /// Events processed (for benchmarks; not part of the summary).
    pub events: u64,
}

/// Parses, validates and runs TOML text.
pub fn run_toml(text: &str) -> Result<RunOutput, ScenarioError> {
    Ok(run(&Scenario::from_toml_str(text)?))
}

/// Runs a validated scenario to the end.
pub fn run(s: &Scenario) -> RunOutput {
    Simulator::for_scenario(s).finish()
}

/// Events aimed at between two looks at [`Control`]: a few milliseconds of work, so a
/// cancellation is acted on at once while the check costs nothing measurable.
pub const CHECK_EVERY: u64 = 4096;
/// Bounds of the simulated time a controlled run advances between two looks (see
/// [`run_controlled`]): at most 100 ms, so that a busy period after a long idle one is seen
/// within one such slice.
const SLICE_MIN_NS: u64 = 1_000;
const SLICE_MAX_NS: u64 = 100_000_000;

/// What a caller on another thread may do to a running [`run_controlled`]: ask it to stop, and
/// read how far it got.
#[derive(Debug, Default)]
pub struct Control {
    cancel: AtomicBool,
    now_ns: AtomicU64,
}

impl Control {
    /// Asks the run to stop at its next check.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The simulated time the run has reached (updated after each slice of about
    /// [`CHECK_EVERY`] events).
    pub fn now(&self) -> SimTime {
        SimTime(self.now_ns.load(Ordering::Relaxed))
    }
}

/// [`run`], looking at `control` about every [`CHECK_EVERY`] events: `None` once it is
/// cancelled (nothing collected). The same events in the same order as [`run`], so the same
/// results.
///
/// The run advances in slices of simulated time through [`engine::Simulator::run_until`], the
/// loop [`run`] uses too, each slice sized from the previous one's event count (at most
/// doubling). Stepping event by event here instead would give the event handler a second
/// caller, and the compiler then keeps it out of line in both loops: in the Python extension,
/// where both are linked, that made the whole run execute about 7 % more instructions.
pub fn run_controlled(s: &Scenario, control: &Control) -> Option<RunOutput> {
    let mut sim = Simulator::for_scenario(s);
    let end = sim.world().end;
    let mut slice_ns = 1_000_000; // 1 ms to begin with
    while sim.world().now < end {
        if control.is_cancelled() {
            return None;
        }
        let before = sim.events_processed();
        sim.run_until(sim.world().now + SimDuration(slice_ns));
        let done = sim.events_processed() - before;
        slice_ns = (slice_ns.saturating_mul(CHECK_EVERY) / done.max(1))
            .min(slice_ns.saturating_mul(2))
            .clamp(SLICE_MIN_NS, SLICE_MAX_NS);
        control
            .now_ns
            .store(sim.world().now.as_nanos(), Ordering::Relaxed);
    }
    Some(sim.finish())
}

impl engine::Simulator<Recorder> {
    /// The scenario's world in the engine, with its recorder attached.
    pub fn for_scenario(scenario: &Scenario) -> Simulator {
        Simulator::with_options(scenario, EngineOptions::default())
    }

    pub fn with_options(scenario: &Scenario, options: EngineOptions) -> Simulator {
        let (world, net) = build::world(scenario, options);
        Simulator::new(world, Recorder::new(scenario, net))
    }

    /// Runs to the end and collects the results.
    pub fn finish(mut self) -> RunOutput {
        self.run_until(self.world().end);
        let events = self.events_processed();
        let (mut world, mut recorder) = self.into_parts();
        recorder.settle_links(&mut world);
        let tcp_trace = trace_table(&mut world);
        let (packet_trace, trace_counts) = packet_trace::take_table(recorder.take_traces(&world));
        debug_assert!(world.links.iter().all(|l| {
            let c = l.counters(world.now, &world.pipes);
            c.arrivals == c.dequeued + c.drops + c.backlog
        }));
        // Every slab node in use belongs to a link (none leaked by a drop or a loss on the wire).
        debug_assert_eq!(
            world.pipes.in_use(),
            world.links.iter().map(|l| l.nodes_held()).sum::<usize>()
        );
        let r = recorder.finish(&world);
        let mut value = r.summary.to_value();
        if !trace_counts.is_empty() {
            // Only traced runs carry the key, so every other summary keeps its bytes.
            let per_link: serde_json::Map<String, Value> = trace_counts
                .into_iter()
                .map(|(link, events, dropped)| {
                    let v = serde_json::json!({ "events": events, "dropped_events": dropped });
                    (link, v)
                })
                .collect();
            value["packet_trace"] = Value::Object(per_link);
        }
        RunOutput {
            summary_json: serde_json::to_string_pretty(&value).unwrap_or_default(),
            summary: value,
            typed_summary: r.summary,
            flows: r.flows,
            queue: r.queue,
            groups: r.groups,
            links: r.links,
            transfers: r.transfers,
            tcp_trace,
            packet_trace,
            events,
        }
    }
}

/// The traces the senders recorded, one table in flow order (see `transport::tcp::trace`).
fn trace_table(world: &mut engine::World) -> Table {
    use crate::metrics::Column;
    let mut t = Table::new();
    let traces: Vec<(u32, TcpTrace)> = world
        .flows
        .iter_mut()
        .enumerate()
        .filter_map(|(i, f)| {
            let tr = f.source.sender_mut()?.take_trace()?;
            Some((i as u32, tr))
        })
        .collect();
    if traces.is_empty() {
        return t;
    }
    let f64s = |f: &dyn Fn(&TcpTrace) -> &Vec<f64>| {
        Column::F64(
            traces
                .iter()
                .flat_map(|(_, tr)| f(tr).iter().copied())
                .collect(),
        )
    };
    let i64s = |f: &dyn Fn(&TcpTrace) -> Vec<i64>| {
        Column::I64(traces.iter().flat_map(|(_, tr)| f(tr)).collect())
    };
    t.push(
        "flow",
        Column::I64(
            traces
                .iter()
                .flat_map(|(id, tr)| std::iter::repeat_n(*id as i64, tr.len()))
                .collect(),
        ),
    );
    t.push("t_s", f64s(&|tr| &tr.t_s));
    t.push(
        "event",
        Column::Str(
            traces
                .iter()
                .flat_map(|(_, tr)| tr.event.iter().map(|e| e.name().to_string()))
                .collect(),
        ),
    );
    t.push("cwnd", f64s(&|tr| &tr.cwnd));
    t.push("ssthresh", f64s(&|tr| &tr.ssthresh));
    t.push("srtt_s", f64s(&|tr| &tr.srtt_s));
    t.push("rto_s", f64s(&|tr| &tr.rto_s));
    t.push(
        "backoff",
        i64s(&|tr| tr.backoff.iter().map(|&v| v as i64).collect()),
    );
    t.push(
        "retransmits",
        i64s(&|tr| tr.retransmits.iter().map(|&v| v as i64).collect()),
    );
    t.push(
        "timeouts",
        i64s(&|tr| tr.timeouts.iter().map(|&v| v as i64).collect()),
    );
    t.push(
        "snd_una",
        i64s(&|tr| tr.snd_una.iter().map(|&v| v as i64).collect()),
    );
    t.push(
        "in_recovery",
        i64s(&|tr| tr.in_recovery.iter().map(|&v| v as i64).collect()),
    );
    t
}

/// Convenience for benchmarks: total simulated duration of a scenario.
pub fn duration(s: &Scenario) -> SimDuration {
    s.file.duration
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(duration: &str) -> Scenario {
        Scenario::from_toml_str(&format!(
            "duration = \"{duration}\"\n[bottleneck]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [[flows]]\ncount = 4\n"
        ))
        .unwrap()
    }

    #[test]
    fn a_controlled_run_gives_the_same_results() {
        let s = scenario("3s");
        let control = Control::default();
        let out = run_controlled(&s, &control).expect("not cancelled");
        assert_eq!(out.summary_json, run(&s).summary_json);
        assert_eq!(out.events, run(&s).events);
        assert!(control.now() > SimTime::ZERO);
        // Idle for 20 s (slices grow to their longest), then busy: the slices shrink again
        // without changing a result.
        let late = Scenario::from_toml_str(
            "duration = \"30s\"\nwarmup = \"0s\"\n[bottleneck]\nrate = \"10Mbps\"\n\
             delay = \"10ms\"\n[[flows]]\ncount = 4\nstart = \"20s\"\n",
        )
        .unwrap();
        let out = run_controlled(&late, &control).expect("not cancelled");
        let plain = run(&late);
        assert_eq!(out.summary_json, plain.summary_json);
        assert_eq!(out.events, plain.events);
        assert!(plain.events > 5 * CHECK_EVERY, "several slices ran");
    }

    #[test]
    fn a_cancelled_run_stops_at_its_next_check() {
        let control = Control::default();
        control.cancel();
        assert!(run_controlled(&scenario("3s"), &control).is_none());
        // Cancelled from another thread while a run of simulated hours is under way.
        let control = std::sync::Arc::new(Control::default());
        let c = control.clone();
        let worker = std::thread::spawn(move || run_controlled(&scenario("100000s"), &c).is_none());
        while control.now() == SimTime::ZERO {
            std::thread::yield_now();
        }
        control.cancel();
        assert!(worker.join().unwrap(), "the run stopped early");
        assert!(control.now() < SimTime::ZERO + SimDuration::from_secs(100_000));
    }
}
