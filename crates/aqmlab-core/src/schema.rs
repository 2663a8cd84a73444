//! The scenario format described once: the doc comments on the schema structs
//! ([`ScenarioFile`] and the tables below it) and on each algorithm's `Params` become a JSON
//! Schema (derived with `schemars`), and everything that documents a key is generated from it:
//! - `aqmlab algorithms` (each `kind` with its parameters, defaults and help), via
//!   [`crate::aqm::AqmConfig::docs`];
//! - the reference tables of `docs/scenarios.md` ([`markdown_sections`], [`splice_docs`]);
//! - `schema/aqmlab-scenario.schema.json` ([`schema_json`]), which editors load for completion
//!   and checking of scenario files (Taplo / Even Better TOML: a `#:schema` comment).
//!
//! `tests/docs_fresh.rs` fails when a committed generated file is stale (`make docs` rewrites
//! them). Defaults come from the types' `Default` (or `#[serde(default = …)]`) through serde, so
//! the schema cannot contradict what the loader fills in.

use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;

use crate::aqm::AqmConfig;
use crate::scenario::topology::{LinkEntry, Reverse, Spec};
use crate::scenario::{Bottleneck, FlowGroup, ScenarioFile, Sink, WebConfig};
use crate::time::NS_PER_SEC;
use crate::transport::tcp::TcpConfig;
use crate::transport::udp::{CbrConfig, ParetoConfig};

pub use crate::key_docs::{
    field_order, generator, keys_in, keys_of, schema_of, toml_literal, type_name, KeyDoc,
};

/// The JSON Schema of a scenario file.
pub fn scenario_schema() -> Schema {
    let mut root = schema_of::<ScenarioFile>();
    root.insert("title".into(), "aqmlab scenario".into());
    root.insert(
        "description".into(),
        "A scenario file of aqmlab (a network, its flows and how long to run). Generated from \
         the Rust schema by `aqmlab schema`; reference: docs/scenarios.md."
            .into(),
    );
    root
}

/// [`scenario_schema`] as the committed file holds it: pretty JSON, one trailing newline.
pub fn schema_json() -> String {
    let mut text = serde_json::to_string_pretty(&scenario_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// Durations serialise in milliseconds (`"60000ms"`); the reference tables write whole
/// seconds as seconds (`"60s"`), the same value.
fn readable_duration(literal: &str) -> String {
    let inner = literal.trim_matches('"');
    match crate::time::parse_duration(inner) {
        Ok(d) if literal.starts_with('"') && d.0 >= NS_PER_SEC && d.0 % NS_PER_SEC == 0 => {
            format!("\"{}s\"", d.0 / NS_PER_SEC)
        }
        _ => literal.to_string(),
    }
}

/// A markdown table of keys: key, type, default, meaning.
pub fn markdown_table(keys: &[KeyDoc]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
    for k in keys {
        let default = match (&k.default, k.required) {
            (_, true) => "required".to_string(),
            (Some(d), _) if d.len() <= 40 => format!("`{}`", readable_duration(d)),
            (Some(_), _) => "see below".to_string(),
            (None, _) => "(none)".to_string(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            k.key,
            cell(&k.ty),
            cell(&default),
            cell(&k.help)
        ));
    }
    out
}

/// The generated sections of `docs/scenarios.md`, by name.
pub fn markdown_sections() -> Vec<(&'static str, String)> {
    fn table<T: JsonSchema + DeserializeOwned>() -> String {
        markdown_table(&keys_of::<T>())
    }
    vec![
        ("top", table::<ScenarioFile>()),
        ("bottleneck", table::<Bottleneck>()),
        ("sink", table::<Sink>()),
        ("flows", table::<FlowGroup>()),
        ("tcp", table::<TcpConfig>()),
        ("web", table::<WebConfig>()),
        ("cbr", table::<CbrConfig>()),
        ("pareto", table::<ParetoConfig>()),
        ("topology", table::<Spec>()),
        ("topology.links", table::<LinkEntry>()),
        ("reverse", table::<Reverse>()),
        ("algorithms", algorithms_markdown()),
    ]
}

/// Every algorithm: a heading with its `kind` and name, its source, and its parameter table.
fn algorithms_markdown() -> String {
    let mut out = String::new();
    for doc in AqmConfig::docs() {
        out.push_str(&format!("### `{}`: {}\n\n", doc.kind, doc.name));
        out.push_str(&format!("Source: {}\n\n", doc.source));
        if doc.keys.is_empty() {
            out.push_str("No parameters.\n\n");
        } else {
            out.push_str(&markdown_table(&doc.keys));
            out.push('\n');
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// All generated sections, each between its markers, as `aqmlab schema --markdown` prints them.
pub fn markdown() -> String {
    markdown_sections()
        .into_iter()
        .map(|(name, body)| format!("{}\n{body}{}\n", begin_marker(name), end_marker(name)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn begin_marker(name: &str) -> String {
    format!("<!-- BEGIN GENERATED {name}: `make docs` rewrites this block from the Rust schema -->")
}

fn end_marker(name: &str) -> String {
    format!("<!-- END GENERATED {name} -->")
}

/// Replaces every generated block of a document (between its markers) with the current text.
/// Errors name a block the document lacks or one it has twice.
pub fn splice_docs(doc: &str) -> Result<String, String> {
    let mut out = doc.to_string();
    for (name, body) in markdown_sections() {
        let (begin, end) = (begin_marker(name), end_marker(name));
        let start = match out.matches(&begin).count() {
            1 => out.find(&begin).unwrap_or(0) + begin.len(),
            0 => return Err(format!("no generated block `{name}` (marker: {begin})")),
            _ => return Err(format!("generated block `{name}` appears twice")),
        };
        let Some(len) = out[start..].find(&end) else {
            return Err(format!(
                "generated block `{name}` has no end marker ({end})"
            ));
        };
        out.replace_range(start..start + len, &format!("\n{body}"));
    }
    Ok(out)
}
