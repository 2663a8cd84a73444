//! The FIFO-arithmetic link model against the queued one over many seeds: where equal-time ties
//! occur at a queue (an arrival at the instant a transmission starts), the two models take
//! different paths, and this shows whether their statistics differ. Runs a scenario for seeds
//! 1..=N in both models and prints, for every number of the run summary (flattened to dotted
//! keys; the per-flow and per-link lists left out), both means and the mean of the per-seed
//! differences in units of its standard error.
//! `cargo run --release -p aqmlab-core --example model_compare -- SCENARIO.toml [SEEDS]`
use std::collections::BTreeMap;

use aqmlab_core::scenario::run::{EngineOptions, Simulator};
use aqmlab_core::scenario::Scenario;

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, f64>) {
    match v {
        serde_json::Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                out.insert(prefix.to_string(), x);
            }
        }
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                if prefix.is_empty() && (k == "flows" || k == "links") {
                    continue;
                }
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => {}
    }
}

fn summary(s: &Scenario, arithmetic_fifo: bool) -> BTreeMap<String, f64> {
    let out = Simulator::with_options(s, EngineOptions { arithmetic_fifo }).finish();
    let mut m = BTreeMap::new();
    flatten("", &out.summary, &mut m);
    m
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: model_compare SCENARIO.toml [SEEDS]");
        std::process::exit(2)
    };
    let seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let mut scenario = Scenario::from_toml_str(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    // Per key: (arithmetic values, queued values), one per seed.
    let mut values: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut identical = 0;
    for seed in 1..=seeds {
        scenario.file.seed = seed;
        let (a, q) = (summary(&scenario, true), summary(&scenario, false));
        identical += (a == q) as u32;
        for (k, x) in &a {
            if let Some(y) = q.get(k) {
                let e = values.entry(k.clone()).or_default();
                e.0.push(*x);
                e.1.push(*y);
            }
        }
    }
    println!("scenario: {path}, seeds 1..={seeds}, identical summaries: {identical}");
    println!("| metric | arithmetic | queued | difference / its standard error |");
    println!("|---|---|---|---|");
    let mut worst: f64 = 0.0;
    for (k, (a, q)) in &values {
        let n = a.len() as f64;
        let mean = |v: &[f64]| v.iter().sum::<f64>() / n;
        let d: Vec<f64> = a.iter().zip(q).map(|(x, y)| x - y).collect();
        let md = mean(&d);
        let var = d.iter().map(|x| (x - md).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        let se = (var / n).sqrt();
        let z = if se > 0.0 { md / se } else { 0.0 };
        if !a.iter().chain(q).all(|x| x.is_finite()) {
            continue;
        }
        worst = worst.max(z.abs());
        println!("| {k} | {:.6} | {:.6} | {z:+.2} |", mean(a), mean(q));
    }
    println!("largest |difference| / standard error: {worst:.2}");
}
