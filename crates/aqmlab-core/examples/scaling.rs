//! Scaling benchmark (`make bench-scaling`): bottleneck packets per CPU-second on DropTail
//! dumbbells from 10 to 10 000 NewReno flows and from 10 Mbps to 10 Gbps, as a Markdown table.
//!
//! Each dumbbell: bottleneck delay 10 ms and a buffer of one bandwidth-delay product at 100 ms
//! (at least 100 packets); access links as fast as the bottleneck (so only the bottleneck
//! queues) with one-way delays spread linearly over 1-50 ms; flows start in the first second.
//! The simulated time gives about 4 M bottleneck packets at full load (between 5 and 200 s),
//! enough that start-up costs do not count.
//!
//! `cargo run --release -p aqmlab-core --example scaling -- [--write docs/performance.md]`
//! With `--write FILE` the table replaces the lines between `<!-- scaling:start -->` and
//! `<!-- scaling:end -->` in FILE.
mod common;
use common::{bottleneck_packets, cpu_seconds};

const FLOWS: [u64; 4] = [10, 100, 1_000, 10_000];
const RATES_MBPS: [u64; 4] = [10, 100, 1_000, 10_000];

fn scenario(flows: u64, mbps: u64) -> (String, f64) {
    let pkts_per_s = mbps as f64 * 1e6 / 8000.0;
    let duration = (4e6 / pkts_per_s).clamp(5.0, 200.0).round();
    let buffer = ((pkts_per_s * 0.1) as u64).max(100);
    let toml = format!(
        r#"name = "scaling: {flows} flows, {mbps} Mbps"
seed = 1
duration = "{duration}s"
warmup = "1s"
[bottleneck]
rate = "{mbps}Mbps"
delay = "10ms"
buffer = {buffer}
[[flows]]
count = {flows}
access_rate = "{mbps}Mbps"
access_delay = {{ linear = ["1ms", "50ms"] }}
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "newreno", mss = 1000 }}
"#
    );
    (toml, duration)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let write = match args.get(1).map(String::as_str) {
        Some("--write") => args.get(2).cloned(),
        _ => None,
    };
    let mut table = String::from(
        "| flows \\ rate | 10 Mbps | 100 Mbps | 1 Gbps | 10 Gbps |\n|---|---|---|---|---|\n",
    );
    for flows in FLOWS {
        table += &format!("| {flows} |");
        for mbps in RATES_MBPS {
            let (toml, duration) = scenario(flows, mbps);
            let s = aqmlab_core::scenario::Scenario::from_toml_str(&toml).expect("valid");
            let c0 = cpu_seconds();
            let out = aqmlab_core::scenario::run::run(&s);
            let cpu = cpu_seconds() - c0;
            let pkts = bottleneck_packets(&out);
            eprintln!(
                "{flows} flows, {mbps} Mbps, {duration} s: {pkts} bottleneck packets, {} events, cpu {cpu:.2} s, utilisation {:.3}",
                out.events,
                out.summary["utilisation"].as_f64().unwrap_or(0.0)
            );
            table += &format!(" {:.2} M |", pkts as f64 / cpu / 1e6);
        }
        table += "\n";
    }
    print!("{table}");
    if let Some(path) = write {
        let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("error: {path}: {e}");
            std::process::exit(2)
        });
        let (start, end) = ("<!-- scaling:start -->\n", "<!-- scaling:end -->");
        let (Some(a), Some(b)) = (doc.find(start), doc.find(end)) else {
            eprintln!("error: {path} has no {start:?} ... {end:?} markers");
            std::process::exit(2)
        };
        let new = format!("{}{start}{table}{}", &doc[..a], &doc[b..]);
        std::fs::write(&path, new).unwrap_or_else(|e| {
            eprintln!("error: {path}: {e}");
            std::process::exit(2)
        });
        eprintln!("table written into {path}");
    }
}
