//! Whole-run benchmark (`make bench`): runs a scenario file (default: the reference benchmark,
//! 100 flows over 155 Mbps for 60 simulated seconds) a few times and prints CPU and wall time,
//! events per CPU-second and bottleneck packets per CPU-second (the figure to compare: CPU time
//! does not depend on how many other processes share the machine, wall time does).
//! `cargo run --release -p aqmlab-core --example bench -- [SCENARIO.toml] [REPEATS]`
use std::time::Instant;

mod common;
use common::{bottleneck_packets, cpu_seconds, load_scenario};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "bench/scenarios/dumbbell_155mbps_100flows.toml".into());
    let repeats: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let scenario = load_scenario(&path);
    println!("scenario: {path}");
    let mut best_cpu = f64::INFINITY;
    let mut packets = 0;
    for i in 0..repeats {
        let t0 = Instant::now();
        let c0 = cpu_seconds();
        let out = aqmlab_core::scenario::run::run(&scenario);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - c0;
        best_cpu = best_cpu.min(cpu);
        let bpkts = bottleneck_packets(&out);
        packets = bpkts;
        println!(
            "run {i}: cpu {cpu:.3} s | wall {wall:.3} s | {} events ({:.2} per bottleneck packet, {:.2} M per cpu-s) | {bpkts} bottleneck packets ({:.0} k per cpu-s) | utilisation {:.4} | {} simulated s",
            out.events,
            out.events as f64 / bpkts.max(1) as f64,
            out.events as f64 / cpu / 1e6,
            bpkts as f64 / cpu / 1e3,
            out.summary["utilisation"].as_f64().unwrap_or(0.0),
            scenario.file.duration.as_secs_f64(),
        );
    }
    println!(
        "best: cpu {best_cpu:.3} s, {:.2} M bottleneck packets per cpu-s",
        packets as f64 / best_cpu / 1e6
    );
}
