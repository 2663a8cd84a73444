//! The cost of the per-flow delay statistics (`metrics/flow_delay.rs`) on a whole run: the same
//! scenario run alternately with the measured link's departure hook as shipped (run-wide
//! histogram + per-flow sojourn, jitter and percentile bins) and with a hook that feeds the
//! run-wide histogram only. Prints the best CPU time of each and their ratio, measured in one
//! process so both see the same machine.
//! `cargo run --release -p aqmlab-core --example flow_delay_cost -- [SCENARIO.toml] [PAIRS]`
use aqmlab_core::metrics::{DelayHistogram, Recorder};
use aqmlab_core::net::packet::Packet;
use aqmlab_core::scenario::run::{EngineOptions, Simulator};
use aqmlab_core::scenario::{build, Scenario};
use aqmlab_core::time::SimTime;

mod common;
use common::{bottleneck_packets, cpu_seconds};

/// The run-wide histogram alone: what the hook did before per-flow statistics.
fn run_wide_only(h: &mut DelayHistogram, now: SimTime, pkt: &Packet) {
    h.record_ns(now.since(pkt.enqueued).0);
}

/// One run, the bottleneck's departure hook replaced when `hook` is given; CPU seconds and
/// bottleneck packets.
fn one(s: &Scenario, hook: Option<fn(&mut DelayHistogram, SimTime, &Packet)>) -> (f64, u64) {
    let c0 = cpu_seconds();
    let (world, net) = build::world(s, EngineOptions::default());
    let mut recorder = Recorder::new(s, net);
    if let Some(h) = hook {
        if let Some((_, record)) = &mut recorder.measured_probe(&world).sojourns {
            *record = h;
        }
    }
    let out = Simulator::new(world, recorder).finish();
    (cpu_seconds() - c0, bottleneck_packets(&out))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "bench/scenarios/dumbbell_155mbps_100flows.toml".into());
    let pairs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let s = common::load_scenario(&path);
    let (mut with, mut without) = (f64::INFINITY, f64::INFINITY);
    let mut packets = 0;
    for i in 0..pairs {
        let (a, pa) = one(&s, None);
        let (b, pb) = one(&s, Some(run_wide_only));
        assert_eq!(pa, pb, "the hook changed the simulation");
        packets = pa;
        with = with.min(a);
        without = without.min(b);
        println!("pair {i}: with per-flow delay {a:.3} s, run-wide histogram only {b:.3} s");
    }
    println!(
        "best: with {with:.3} s, without {without:.3} s, ratio {:.4} ({packets} bottleneck \
         packets, {path})",
        with / without
    );
}
