//! The engine's driving API and the measurement hook: stepping one event at a time or running
//! to intermediate times gives the same run as `run`; an observer of one's own sees its timers;
//! and every key of the metric registry is a key of the summary.

mod common;
use aqmlab_core::engine::{self, Observer, TimerId, World};
use aqmlab_core::metrics::summary::{lookup, Scope};
use aqmlab_core::metrics::METRICS;
use aqmlab_core::net::topology::LinkId;
use aqmlab_core::scenario::build::{self, EngineOptions};
use aqmlab_core::scenario::run::{run, Simulator};
use aqmlab_core::scenario::Scenario;
use aqmlab_core::time::{SimDuration, SimTime};

fn scenario(path: &str, duration: &str, warmup: &str) -> Scenario {
    let text = std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text
        .lines()
        .map(|l| match l.split('=').next().map(str::trim) {
            Some("duration") => format!("duration = \"{duration}\""),
            Some("warmup") => format!("warmup = \"{warmup}\""),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn stepping_and_running_in_pieces_equal_one_run() {
    let s = scenario("scenarios/demo/red.toml", "6s", "2s");
    let whole = run(&s);

    let mut stepped = Simulator::for_scenario(&s);
    let mut last = SimTime::ZERO;
    while let Some(t) = stepped.step() {
        assert!(t >= last, "time went backward: {t} after {last}");
        last = t;
    }
    assert!(last <= stepped.world().end);
    let stepped = stepped.finish();

    let mut pieces = Simulator::for_scenario(&s);
    let mut t = SimTime::ZERO;
    while t < pieces.world().end {
        t += SimDuration::from_secs_f64(0.7);
        pieces.run_until(t);
        assert_eq!(pieces.now(), t.min(pieces.world().end));
    }
    let pieces = pieces.finish();

    for out in [&stepped, &pieces] {
        assert_eq!(out.events, whole.events);
        assert_eq!(out.summary_json, whole.summary_json);
    }
}

/// Samples the bottleneck's queue every second: a measurement of one's own on the same hook.
#[derive(Default)]
struct EverySecond {
    seen: Vec<(SimTime, usize)>,
}

impl Observer for EverySecond {
    type Hook = ();

    fn link_hook(&mut self, _link: LinkId) -> Option<&mut ()> {
        None
    }

    fn start(&mut self, _world: &World) -> Vec<(SimTime, TimerId)> {
        vec![(SimTime::ZERO, 7)]
    }

    fn on_timer(&mut self, timer: TimerId, world: &mut World) -> Option<SimTime> {
        assert_eq!(timer, 7);
        self.seen.push((
            world.now,
            world.bottleneck().queue_at(world.now, &world.pipes).waiting as usize,
        ));
        Some(world.now + SimDuration::from_secs_f64(1.0))
    }
}

#[test]
fn an_observer_of_ones_own_sees_its_timers() {
    let s = scenario("scenarios/demo/red.toml", "5s", "1s");
    let mut sim = engine::Simulator::new(
        build::world(&s, EngineOptions::default()).0,
        EverySecond::default(),
    );
    sim.run_until(sim.world().end);
    let busy = sim.events_processed();
    let (_, obs) = sim.into_parts();
    let times: Vec<f64> = obs.seen.iter().map(|(t, _)| t.as_secs_f64()).collect();
    assert_eq!(times, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert!(
        obs.seen.iter().skip(1).any(|&(_, q)| q > 0),
        "the queue never held a packet"
    );
    // Without the recorder's timers the run is the same network, so the same packet events.
    let recorded = run(&s).events;
    assert!(
        busy < recorded,
        "{busy} events without the recorder, {recorded} with it"
    );
}

#[test]
fn every_registry_key_is_in_the_summary() {
    let dumbbell = run(&scenario("scenarios/demo/red.toml", "4s", "1s"));
    let topology = run(&scenario("scenarios/examples/parking_lot.toml", "4s", "1s"));
    let links = topology.summary["links"].as_array().expect("links");
    assert!(!links.is_empty());
    for m in METRICS {
        match m.scope {
            Scope::Run => {
                for out in [&dumbbell, &topology] {
                    let v = lookup(&out.summary, m.key)
                        .unwrap_or_else(|| panic!("summary has no `{}`", m.key));
                    assert!(v.is_number() || v.is_object(), "`{}` is {v}", m.key);
                }
            }
            Scope::Link => {
                for l in links {
                    assert!(
                        lookup(l, m.key).is_some_and(|v| v.is_number()),
                        "link has no `{}`",
                        m.key
                    );
                }
            }
        }
    }
}
