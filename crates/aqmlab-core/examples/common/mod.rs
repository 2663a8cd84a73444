//! Shared by the benchmark examples.

/// CPU seconds (user + system) this process has used so far.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Packets that arrived at the measured link (the dumbbell's bottleneck).
pub fn bottleneck_packets(out: &aqmlab_core::scenario::run::RunOutput) -> u64 {
    let roles = match out.links.get("role") {
        Some(aqmlab_core::metrics::Column::Str(r)) => r.clone(),
        _ => vec![],
    };
    let b = roles.iter().position(|r| r == "bottleneck").unwrap_or(0);
    out.links.i64("arrivals").map_or(0, |a| a[b] as u64)
}

/// The scenario file at `path`, parsed; a bad file ends the process with exit code 2 and the
/// error on stderr (the examples' command-line contract).
#[allow(dead_code)] // `scaling` builds its scenarios itself
pub fn load_scenario(path: &str) -> aqmlab_core::scenario::Scenario {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    aqmlab_core::scenario::Scenario::from_toml_str(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    })
}
