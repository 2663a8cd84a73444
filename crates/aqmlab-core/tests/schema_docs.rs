//! The scenario format is documented once, by doc comments on the schema structs and on each
//! algorithm's `Params` (see `src/schema.rs`). This test keeps everything generated from them
//! fresh and consistent:
//! - `schema/aqmlab-scenario.schema.json` and the generated blocks of `docs/scenarios.md` equal
//!   what the current code generates (rewrite them with `make docs`, i.e.
//!   `AQMLAB_BLESS=1 cargo test --test schema_docs`);
//! - every key of every table and algorithm has a description, and no table accepts unknown keys;
//! - the defaults the schema shows are the ones the loader fills in;
//! - the parameter tables in the algorithm files' `//!` headers (the paper's values, kept as
//!   prose) do not contradict the defaults.

use std::path::{Path, PathBuf};

use aqmlab_core::aqm::AqmConfig;
use aqmlab_core::schema;
use aqmlab_core::time::{parse_duration, parse_rate};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bless() -> bool {
    std::env::var_os("AQMLAB_BLESS").is_some_and(|v| v == "1")
}

/// Compares a committed file with its generated text, or rewrites it under `AQMLAB_BLESS=1`.
fn check_fresh(rel: &str, expected: &str) {
    let path = repo_root().join(rel);
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "{rel} is stale (first difference at line {}): run `make docs` and commit the result",
            line + 1
        );
    }
}

#[test]
fn schema_file_is_fresh() {
    check_fresh("schema/aqmlab-scenario.schema.json", &schema::schema_json());
}

#[test]
fn scenario_reference_is_fresh() {
    let rel = "docs/scenarios.md";
    let doc = std::fs::read_to_string(repo_root().join(rel)).unwrap();
    let spliced = schema::splice_docs(&doc).unwrap_or_else(|e| panic!("{rel}: {e}"));
    check_fresh(rel, &spliced);
}

#[test]
fn every_key_has_a_description() {
    let mut missing = Vec::new();
    for doc in AqmConfig::docs() {
        for k in &doc.keys {
            if k.help.trim().is_empty() {
                missing.push(format!("{}.{}", doc.kind, k.key));
            }
        }
    }
    let root = schema::scenario_schema().to_value();
    let mut open = Vec::new(); // tables that would accept unknown keys
    let mut stack = vec![("".to_string(), &root)];
    while let Some((path, s)) = stack.pop() {
        if let Some(props) = s.get("properties").and_then(|p| p.as_object()) {
            // (The qdisc union is closed by its alternatives, each `additionalProperties: false`.)
            let closed = s.get("additionalProperties") == Some(&serde_json::Value::Bool(false));
            if !closed && s.get("oneOf").is_none() {
                open.push(path.clone());
            }
            for (k, p) in props {
                let at = format!("{path}.{k}");
                let described = p.get("description").or(p.get("enum")).is_some();
                if !described {
                    missing.push(at.clone());
                }
                stack.push((at, p));
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for alt in s.get(key).and_then(|a| a.as_array()).into_iter().flatten() {
                stack.push((path.clone(), alt));
            }
        }
        if let Some(items) = s.get("items") {
            stack.push((format!("{path}[]"), items));
        }
        if let Some(defs) = s.get("definitions").and_then(|d| d.as_object()) {
            for (k, d) in defs {
                stack.push((format!("#{k}"), d));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys without a doc comment: {missing:?}"
    );
}

#[test]
fn schema_defaults_are_the_loaders_defaults() {
    for doc in AqmConfig::docs() {
        let mut t = toml::Table::new();
        t.insert("kind".into(), doc.kind.into());
        let resolved = AqmConfig::from_table(t.clone()).unwrap().to_table();
        for k in &doc.keys {
            let loaded = resolved.get(&k.key).map(|v| v.to_string());
            if let (None, Some(default)) = (&loaded, &k.default) {
                // A default the resolved table leaves out (so older scenarios hash as they did):
                // giving it explicitly must resolve to the same table.
                let value: toml::Table = toml::from_str(&format!("v = {default}")).unwrap();
                let mut given = t.clone();
                given.insert(k.key.clone(), value["v"].clone());
                assert_eq!(
                    AqmConfig::from_table(given).unwrap().to_table(),
                    resolved,
                    "{}.{}: the schema's default {default} is not what the loader fills in",
                    doc.kind,
                    k.key
                );
                continue;
            }
            assert_eq!(
                k.default, loaded,
                "{}.{}: schema default vs the resolved table",
                doc.kind, k.key
            );
        }
        for key in resolved.keys().filter(|k| *k != "kind") {
            assert!(
                doc.keys.iter().any(|k| &k.key == key),
                "{}.{key} is filled in by the loader but missing from the schema",
                doc.kind
            );
        }
    }
    // The scenario tables: a minimal scenario, resolved, has the schema's defaults.
    let minimal = "duration = \"10s\"\n[bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
                   [[flows]]\n";
    let s = aqmlab_core::scenario::Scenario::from_toml_str(minimal).unwrap();
    let resolved: toml::Table = toml::from_str(&s.resolved_toml()).unwrap();
    let tables: [(&str, Vec<schema::KeyDoc>); 4] = [
        ("", schema::keys_of::<aqmlab_core::scenario::ScenarioFile>()),
        (
            "bottleneck",
            schema::keys_of::<aqmlab_core::scenario::Bottleneck>(),
        ),
        (
            "flows",
            schema::keys_of::<aqmlab_core::scenario::FlowGroup>(),
        ),
        (
            "tcp",
            schema::keys_of::<aqmlab_core::transport::tcp::TcpConfig>(),
        ),
    ];
    for (at, keys) in tables {
        let table = match at {
            "" => &resolved,
            "bottleneck" => resolved["bottleneck"].as_table().unwrap(),
            "flows" => resolved["flows"].as_array().unwrap()[0].as_table().unwrap(),
            _ => resolved["flows"].as_array().unwrap()[0]["tcp"]
                .as_table()
                .unwrap(),
        };
        for k in keys.iter().filter(|k| !k.required) {
            let (Some(default), Some(loaded)) = (&k.default, table.get(&k.key)) else {
                continue;
            };
            if k.key == "qdisc" {
                continue; // resolved with every parameter of the kind written out
            }
            assert_eq!(
                default,
                &loaded.to_string(),
                "{at}.{}: schema default vs the resolved scenario",
                k.key
            );
        }
    }
}

/// A default as a header table writes it, if it is a plain value: `5`, `0.1`, `true`,
/// `"5ms"`, `1 s`.
fn plain_value(cell: &str) -> Option<toml::Value> {
    let cell = cell.split(" (").next()?.trim().trim_matches('`').trim();
    if parse_duration(cell).is_ok() || parse_rate(cell).is_ok() {
        return Some(toml::Value::String(cell.to_string())); // a bare unit string: 12.5ms
    }
    toml::from_str::<toml::Table>(&format!("v = {cell}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
}

fn same_value(header: &toml::Value, actual: &toml::Value) -> bool {
    use toml::Value as V;
    match (header, actual) {
        (V::Integer(a), V::Integer(b)) => a == b,
        (V::Integer(a), V::Float(b)) | (V::Float(b), V::Integer(a)) => {
            (*a as f64 - b).abs() < 1e-12
        }
        (V::Float(a), V::Float(b)) => (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
        (V::String(a), V::String(b)) => {
            a == b
                || matches!((parse_duration(a), parse_duration(b)), (Ok(x), Ok(y)) if x == y)
                || matches!((parse_rate(a), parse_rate(b)), (Ok(x), Ok(y)) if x == y)
        }
        (a, b) => a == b,
    }
}

/// The rows of the `| key | ... |` tables in a file's `//!` header, each with its table's header
/// cells. Cells split at `|`, but not at an escaped `\|` inside a cell.
fn header_rows(text: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut rows = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for line in text.lines().filter_map(|l| l.strip_prefix("//!")) {
        let line = line.trim();
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let line = line.replace("\\|", "/");
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        if cells.first().is_some_and(|c| c == "key") {
            header = Some(cells);
        } else if let Some(h) = &header {
            rows.push((h.clone(), cells));
        }
    }
    rows
}

/// The keys a row's first cell names (one, or several: `` `a`, `b` ``).
fn row_keys(cell: &str) -> Vec<String> {
    cell.split(',')
        .map(|k| k.trim().trim_matches('`').to_string())
        .collect()
}

/// Every key of the header tables of the file at `path`.
fn table_keys(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    header_rows(&text)
        .iter()
        .flat_map(|(_, cells)| row_keys(cells.first().map_or("", String::as_str)))
        .collect()
}

#[test]
fn header_tables_agree_with_defaults() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    let mut undocumented = Vec::new();
    let red_keys = table_keys(&repo_root().join("crates/aqmlab-core/src/aqm/red.rs"));
    for kind in AqmConfig::KINDS {
        let path = repo_root().join(format!("crates/aqmlab-core/src/aqm/{kind}.rs"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut t = toml::Table::new();
        t.insert("kind".into(), (*kind).into());
        let resolved = AqmConfig::from_table(t).unwrap().to_table();
        // Every parameter has a row in the file's table (the RED family may leave RED's own
        // keys to `red.rs`'s table).
        let rows = table_keys(&path);
        let family = text.contains("use super::red::");
        let doc = AqmConfig::docs().into_iter().find(|d| d.kind == *kind);
        for key in doc
            .iter()
            .flat_map(|d| d.keys.iter().map(|k| k.key.clone()))
        {
            let documented = rows.contains(&key) || (family && red_keys.contains(&key));
            if !documented {
                undocumented.push(format!("{kind}.{key}"));
            }
        }
        for (header, cells) in header_rows(&text) {
            let Some(col) = header.iter().position(|c| c == "default") else {
                continue;
            };
            let (Some(key_cell), Some(default_cell)) = (cells.first(), cells.get(col)) else {
                continue;
            };
            let keys = row_keys(key_cell);
            let defaults: Vec<&str> = if keys.len() > 1 {
                default_cell.split(',').map(str::trim).collect()
            } else {
                vec![default_cell.as_str()]
            };
            if defaults.len() != keys.len() {
                continue;
            }
            for (key, cell) in keys.iter().zip(defaults) {
                let (Some(header), Some(actual)) = (plain_value(cell), resolved.get(key)) else {
                    continue;
                };
                checked += 1;
                if !same_value(&header, actual) {
                    wrong.push(format!(
                        "{kind}.{key}: header says {header}, default is {actual}"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "header tables contradict defaults: {wrong:#?}"
    );
    assert!(
        undocumented.is_empty(),
        "parameters without a row in their file's `| key | ... |` header table: {undocumented:#?}"
    );
    assert!(
        checked >= 40,
        "only {checked} header defaults were readable"
    );
}
