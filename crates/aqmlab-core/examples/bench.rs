//! Whole-run benchmark (`make bench`): runs a scenario file (default: the issue-2 benchmark,
//! 100 flows over 155 Mbps for 60 simulated seconds) a few times and prints wall time, events
//! per second and bottleneck packets per wall-second.
//! `cargo run --release -p aqmlab-core --example bench -- [SCENARIO.toml] [REPEATS]`
use std::time::Instant;

/// CPU seconds (user + system) this process has used so far.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "bench/scenarios/dumbbell_155mbps_100flows.toml".into());
    let repeats: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let scenario = aqmlab_core::scenario::Scenario::from_toml_str(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    println!("scenario: {path}");
    let mut best = f64::INFINITY;
    for i in 0..repeats {
        let t0 = Instant::now();
        let c0 = cpu_seconds();
        let out = aqmlab_core::scenario::run::run(&scenario);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - c0;
        best = best.min(wall);
        let links = &out.links;
        let roles = match links.get("role") {
            Some(aqmlab_core::metrics::Column::Str(r)) => r.clone(),
            _ => vec![],
        };
        let b = roles.iter().position(|r| r == "bottleneck").unwrap_or(0);
        let bpkts = links.i64("arrivals").map_or(0, |a| a[b]);
        println!(
            "run {i}: wall {wall:.3} s | cpu {cpu:.3} s | {} events ({:.2} M per cpu-s) | {bpkts} bottleneck packets ({:.0} k per wall-s, {:.0} k per cpu-s) | utilisation {:.4} | {} simulated s",
            out.events,
            out.events as f64 / cpu / 1e6,
            bpkts as f64 / wall / 1e3,
            bpkts as f64 / cpu / 1e3,
            out.summary["utilisation"].as_f64().unwrap_or(0.0),
            scenario.file.duration.as_secs_f64(),
        );
    }
    println!("best wall time: {best:.3} s");
}
