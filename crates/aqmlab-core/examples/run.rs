//! Runs one scenario file and prints its summary and the wall time:
//! `cargo run --release -p aqmlab-core --example run -- scenario.toml`
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run SCENARIO.toml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    match aqmlab_core::scenario::run::run_toml(&text) {
        Ok(out) => {
            println!("{}", out.summary_json);
            eprintln!(
                "wall {:.3}s, {} events",
                t0.elapsed().as_secs_f64(),
                out.events
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
