//! Behaviour lock: every scenario file in the repository, and every algorithm with every TCP
//! variant (and with the `ns2` model's Reno and Tahoe, and both models with the queue's ECN on)
//! on a small dumbbell, must produce the same bytes as when the hashes in
//! `tests/data/golden_hashes.json` were recorded (SHA-256 of the summary JSON and of every
//! result table). A refactor that is meant to change nothing must leave this test green; a
//! change that is meant to alter behaviour re-records the file and says so in its commit:
//!
//! ```sh
//! AQMLAB_BLESS=1 cargo test --test golden
//! ```
//!
//! Scenario files run shortened (at most 20 s simulated, warm-up at most 5 s) so the lock stays
//! cheap enough for every `make test`; `AQMLAB_GOLDEN_FULL=1` runs them at full length against
//! `golden_hashes_full.json` (recorded the same way), for the refactors that want the stronger
//! lock.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use aqmlab_core::aqm::AqmConfig;
use aqmlab_core::metrics::{Column, Table};
use aqmlab_core::scenario::model_id::qdisc_kinds;
use aqmlab_core::scenario::run::{run, RunOutput};
use aqmlab_core::scenario::Scenario;
use aqmlab_core::time::parse_duration;
use sha2::{Digest, Sha256};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut out = Vec::new();
    for dir in ["scenarios", "bench/scenarios"] {
        collect_toml(&root.join(dir), &mut out);
    }
    out.sort();
    out
}

fn collect_toml(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_toml(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

fn table_digest(h: &mut Sha256, name: &str, t: &Table) {
    h.update(name.as_bytes());
    for (col, values) in &t.columns {
        h.update(col.as_bytes());
        match values {
            Column::F64(v) => v.iter().for_each(|x| h.update(x.to_bits().to_le_bytes())),
            Column::I64(v) => v.iter().for_each(|x| h.update(x.to_le_bytes())),
            Column::Str(v) => v.iter().for_each(|x| {
                h.update(x.as_bytes());
                h.update([0]);
            }),
        }
    }
}

fn digest(out: &RunOutput) -> String {
    let mut h = Sha256::new();
    h.update(out.summary_json.as_bytes());
    table_digest(&mut h, "flows", &out.flows);
    table_digest(&mut h, "queue", &out.queue);
    table_digest(&mut h, "groups", &out.groups);
    table_digest(&mut h, "links", &out.links);
    table_digest(&mut h, "transfers", &out.transfers);
    // An engine change that only alters how many events carry the same run can be checked
    // with the event count left out (AQMLAB_GOLDEN_DUMP, below).
    if std::env::var_os("AQMLAB_GOLDEN_NO_EVENTS").is_none() {
        h.update(out.events.to_le_bytes());
    }
    h.finalize().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn shorten(table: &mut toml::Table) {
    let secs = |v: Option<&toml::Value>| {
        v.and_then(|v| v.as_str())
            .and_then(|s| parse_duration(s).ok())
            .map(|d| d.as_secs_f64())
    };
    if secs(table.get("duration")).is_none_or(|d| d > 20.0) {
        table.insert("duration".into(), "20s".into());
    }
    if secs(table.get("warmup")).is_none_or(|w| w > 5.0) {
        table.insert("warmup".into(), "5s".into());
    }
}

/// The small dumbbell every algorithm and TCP variant runs on: short and long RTTs, a UDP flow
/// for the algorithms that police unresponsive traffic, ECN on half the TCP flows.
const MATRIX_BASE: &str = r#"
    seed = 3
    duration = "12s"
    warmup = "2s"
    [bottleneck]
    rate = "10Mbps"
    delay = "5ms"
    buffer = 60
    [[flows]]
    count = 6
    access_rate = "100Mbps"
    access_delay = { linear = ["2ms", "80ms"] }
    start = { uniform = ["0s", "1s"] }
    tcp = { variant = "VARIANT", ecn = true, rtt_label = "min" }
    group = "ecn"
    [[flows]]
    count = 6
    access_rate = "100Mbps"
    access_delay = { linear = ["5ms", "120ms"] }
    start = { uniform = ["0s", "1s"] }
    tcp = { variant = "VARIANT", rtt_label = "srtt" }
    group = "plain"
    [[flows]]
    kind = "udp_cbr"
    count = 1
    access_rate = "100Mbps"
    access_delay = "10ms"
    cbr = { rate = "2Mbps" }
    group = "udp"
"#;

/// The matrix dumbbell `base` with algorithm `kind` at the bottleneck.
fn matrix_case(kind: &str, base: &str) -> Scenario {
    let mut table: toml::Table = toml::from_str(base).expect("TOML");
    let mut qdisc = toml::Table::new();
    qdisc.insert("kind".into(), kind.into());
    table["bottleneck"]
        .as_table_mut()
        .expect("bottleneck table")
        .insert("qdisc".into(), toml::Value::Table(qdisc));
    Scenario::from_table(table).unwrap_or_else(|e| panic!("matrix {kind}: {e}"))
}

/// The matrix dumbbell `base` with algorithm `kind` at the bottleneck and its `ecn` key on, or
/// None for a kind without that key.
fn matrix_case_marking(kind: &str, base: &str) -> Option<Scenario> {
    let mut table: toml::Table = toml::from_str(base).expect("TOML");
    let mut qdisc = toml::Table::new();
    qdisc.insert("kind".into(), kind.into());
    qdisc.insert("ecn".into(), true.into());
    table["bottleneck"]
        .as_table_mut()
        .expect("bottleneck table")
        .insert("qdisc".into(), toml::Value::Table(qdisc));
    Scenario::from_table(table).ok()
}

/// The TCP of the matrix's `ns2` row: ns-2.35's agent, Reno, as the paper reproductions run.
const NS2_RENO: &str = r#"model = "ns2", variant = "reno""#;
const NS2_TAHOE: &str = r#"model = "ns2", variant = "tahoe""#;

fn cases() -> Vec<(String, Scenario)> {
    cases_of(std::env::var_os("AQMLAB_GOLDEN_FULL").is_some())
}

/// The cases at full length (`full`: the scenario files only) or shortened (with the matrix).
fn cases_of(full: bool) -> Vec<(String, Scenario)> {
    let root = repo_root();
    let mut cases = Vec::new();
    for path in scenario_files() {
        let text = std::fs::read_to_string(&path).expect("readable scenario");
        let mut table: toml::Table = toml::from_str(&text).expect("valid TOML");
        if !full {
            shorten(&mut table);
        }
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let s = Scenario::from_table(table)
            .unwrap_or_else(|e| panic!("{name}: scenario rejected: {e}"));
        cases.push((name, s));
    }
    if !full {
        for kind in AqmConfig::KINDS {
            for variant in ["reno", "newreno", "sack"] {
                let base = MATRIX_BASE.replace("VARIANT", variant);
                cases.push((format!("matrix/{kind}/{variant}"), matrix_case(kind, &base)));
            }
            // The `ns2` TCP model's own rules (ECN ones among them) under every algorithm, so
            // that a change of them moves the identity (`scenario::model_id`) of each kind's
            // `ns2`-model scenarios, the paper reproductions'.
            let base = MATRIX_BASE.replace("variant = \"VARIANT\"", NS2_RENO);
            cases.push((format!("matrix/{kind}/reno-ns2"), matrix_case(kind, &base)));
            // ns-2's default agent (Tahoe: slow start from one segment after the third
            // duplicate ACK, no fast recovery) under every algorithm, as a paper's set-up
            // choice runs it.
            let base = MATRIX_BASE.replace("variant = \"VARIANT\"", NS2_TAHOE);
            cases.push((format!("matrix/{kind}/tahoe-ns2"), matrix_case(kind, &base)));
            // Both TCP models with the queue's `ecn` key on (where the kind has one; several
            // default to dropping): which data packets the senders send ECN-capable (segment 0
            // under `ns2`, resends under `rfc`) matters only to a queue that marks, so a change of
            // those rules moves the identity of each marking kind's scenarios.
            for (row, tcp) in [
                ("newreno-ecn", r#"variant = "newreno""#),
                ("reno-ns2-ecn", NS2_RENO),
            ] {
                let base = MATRIX_BASE.replace("variant = \"VARIANT\"", tcp);
                if let Some(s) = matrix_case_marking(kind, &base) {
                    cases.push((format!("matrix/{kind}/{row}"), s));
                }
            }
        }
    }
    cases
}

#[test]
fn results_match_the_recorded_hashes() {
    let full = std::env::var_os("AQMLAB_GOLDEN_FULL").is_some();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(if full {
        "tests/data/golden_hashes_full.json"
    } else {
        "tests/data/golden_hashes.json"
    });
    let got: BTreeMap<String, String> = cases()
        .into_iter()
        .map(|(name, s)| {
            let out = run(&s);
            common::assert_conserved(&out);
            (name, digest(&out))
        })
        .collect();
    if let Some(path) = std::env::var_os("AQMLAB_GOLDEN_DUMP") {
        // For comparing two builds case by case (e.g. with AQMLAB_GOLDEN_NO_EVENTS).
        let text = serde_json::to_string_pretty(&got).expect("json") + "\n";
        std::fs::write(path, text).expect("write the digest dump");
        return;
    }
    if std::env::var_os("AQMLAB_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&got).expect("json") + "\n";
        std::fs::write(&file, text).expect("write golden hashes");
        return;
    }
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; record it with AQMLAB_BLESS=1 cargo test --test golden",
            file.display()
        )
    });
    let want: BTreeMap<String, String> = serde_json::from_str(&text).expect("hash file");
    let mut diffs = Vec::new();
    for (name, hash) in &got {
        match want.get(name) {
            Some(w) if w == hash => {}
            Some(_) => diffs.push(format!("changed: {name}")),
            None => diffs.push(format!("not recorded: {name}")),
        }
    }
    for name in want.keys().filter(|n| !got.contains_key(*n)) {
        diffs.push(format!("recorded but not run: {name}"));
    }
    assert!(
        diffs.is_empty(),
        "{} of {} results differ from {}:\n{}\n(if the change is meant to alter behaviour, \
         re-record with AQMLAB_BLESS=1 and say so in the commit)",
        diffs.len(),
        got.len(),
        file.display(),
        diffs.join("\n")
    );
}

/// `golden_kinds.json` names the qdisc kinds every case runs, as `scenario::model_id` reads
/// them to give each scenario the identity of the cases it shares code with (the run cache's
/// key). Recorded with the hashes (`AQMLAB_BLESS=1`); stale, this test fails.
#[test]
fn case_kinds_match_the_recorded_ones() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden_kinds.json");
    let got: BTreeMap<String, Vec<String>> = cases_of(false)
        .iter()
        .map(|(name, s)| {
            let kinds = qdisc_kinds(s).into_iter().map(str::to_string).collect();
            (name.clone(), kinds)
        })
        .collect();
    if std::env::var_os("AQMLAB_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&got).expect("json") + "\n";
        std::fs::write(&file, text).expect("write golden kinds");
        return;
    }
    let text = std::fs::read_to_string(&file).expect("golden_kinds.json");
    let want: BTreeMap<String, Vec<String>> = serde_json::from_str(&text).expect("kinds file");
    assert!(
        got == want,
        "{} is stale: re-record it with AQMLAB_BLESS=1 cargo test --test golden",
        file.display()
    );
}
