//! Helpers shared by the integration tests.
#![allow(dead_code)]

use aqmlab_core::metrics::Column;
use aqmlab_core::scenario::run::{run_toml, RunOutput};

pub fn run(text: &str) -> RunOutput {
    run_toml(text).unwrap_or_else(|e| panic!("scenario rejected: {e}\n{text}"))
}

pub fn f(out: &RunOutput, key: &str) -> f64 {
    out.summary[key]
        .as_f64()
        .unwrap_or_else(|| panic!("summary has no number `{key}`"))
}

pub fn col_i64<'a>(t: &'a aqmlab_core::metrics::Table, name: &str) -> &'a [i64] {
    t.i64(name)
        .unwrap_or_else(|| panic!("no i64 column {name}"))
}

pub fn col_f64<'a>(t: &'a aqmlab_core::metrics::Table, name: &str) -> &'a [f64] {
    t.f64(name)
        .unwrap_or_else(|| panic!("no f64 column {name}"))
}

pub fn roles(out: &RunOutput) -> Vec<String> {
    match out.links.get("role") {
        Some(Column::Str(r)) => r.clone(),
        _ => panic!("no role column"),
    }
}

/// Asserts packet conservation on every link and that no link sent more than its capacity.
pub fn assert_conserved(out: &RunOutput) {
    let l = &out.links;
    let (arr, deq, drops, backlog) = (
        col_i64(l, "arrivals"),
        col_i64(l, "dequeued"),
        col_i64(l, "drops"),
        col_i64(l, "backlog"),
    );
    let (txp, txb, cap) = (
        col_i64(l, "tx_packets"),
        col_i64(l, "tx_bytes"),
        col_i64(l, "capacity_bytes"),
    );
    let roles = roles(out);
    for i in 0..arr.len() {
        assert_eq!(
            arr[i],
            deq[i] + drops[i] + backlog[i],
            "link {i} ({}): arrivals != departures + drops + backlog",
            roles[i]
        );
        let in_tx = deq[i] - txp[i];
        assert!(
            (0..=1).contains(&in_tx),
            "link {i}: dequeued {} vs transmitted {}",
            deq[i],
            txp[i]
        );
        // A link may finish at most the packet it started before the end beyond its capacity.
        assert!(
            txb[i] <= cap[i] + 1500,
            "link {i} ({}): sent {} bytes > capacity {}",
            roles[i],
            txb[i],
            cap[i]
        );
    }
}
