//! The bottleneck's configuration: the JSON object the orchestrator passes (its keys are
//! documented in `LiveBottleneck`'s Python stub and below), validated once, every error naming
//! its key path, the bad value and what is allowed.

use std::collections::HashSet;

use aqmlab_core::aqm::AqmConfig;
use aqmlab_core::error::from_serde;
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::time::parse_size;
use aqmlab_core::ScenarioError;
use serde::Deserialize;

use crate::ip::{PROTO_TCP, PROTO_UDP};

/// One flow of the scenario: packets from namespace a with (source port, destination port) =
/// (`a_port`, `b_port`), and back from b with the ports swapped, belong to it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub id: u32,
    pub proto: u8,
    pub a_port: u16,
    pub b_port: u16,
    pub delay_ab_ns: u64,
    pub delay_ba_ns: u64,
}

/// A validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub dev_a: String,
    pub dev_b: String,
    pub rate_bps: u64,
    pub buffer: BufferLimit,
    /// The qdisc, with the top-level `ecn` folded into its table.
    pub qdisc: AqmConfig,
    pub seed: u64,
    pub mean_pkt_bytes: u32,
    pub sample_interval_ns: u64,
    pub warmup_ns: u64,
    pub default_delay_ab_ns: u64,
    pub default_delay_ba_ns: u64,
    pub reverse_rate_bps: Option<u64>,
    pub flows: Vec<FlowSpec>,
    pub trace_path: Option<String>,
    /// Run the packet loop's thread SCHED_FIFO at this priority (1..=99); None: as called.
    pub realtime_priority: Option<u8>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum BufferArg {
    Packets(u64),
    Size(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlow {
    id: u32,
    proto: String,
    a_port: u16,
    b_port: u16,
    #[serde(default)]
    delay_ab_ns: u64,
    #[serde(default)]
    delay_ba_ns: u64,
}

fn default_seed() -> u64 {
    1
}
fn default_mean_pkt() -> u32 {
    1000
}
fn default_sample() -> u64 {
    20_000_000
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    dev_a: String,
    dev_b: String,
    rate_bps: u64,
    buffer: BufferArg,
    qdisc: toml::Table,
    #[serde(default)]
    ecn: Option<bool>,
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default = "default_mean_pkt")]
    mean_pkt_bytes: u32,
    #[serde(default = "default_sample")]
    sample_interval_ns: u64,
    #[serde(default)]
    warmup_ns: u64,
    #[serde(default)]
    default_delay_ab_ns: u64,
    #[serde(default)]
    default_delay_ba_ns: u64,
    #[serde(default)]
    reverse_rate_bps: Option<u64>,
    #[serde(default)]
    flows: Vec<RawFlow>,
    #[serde(default)]
    trace_path: Option<String>,
    #[serde(default)]
    realtime_priority: Option<u64>,
}

/// A Linux interface name: 1..=15 bytes, no '/', whitespace, ':' or NUL (`dev_valid_name`).
fn check_dev(key: &str, name: &str) -> Result<(), ScenarioError> {
    let ok = !name.is_empty()
        && name.len() <= 15
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c == '/' || c == ':' || c == '\0' || c.is_whitespace());
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(
            key,
            format!("\"{name}\""),
            "an interface name of 1 to 15 characters without '/', ':' or spaces",
        ))
    }
}

/// A one-way delay at most this long (an hour: beyond it a typo, not an experiment).
const MAX_DELAY_NS: u64 = 3_600_000_000_000;

fn check_delay(key: &str, ns: u64) -> Result<(), ScenarioError> {
    if ns <= MAX_DELAY_NS {
        Ok(())
    } else {
        Err(ScenarioError::new(
            key,
            ns.to_string(),
            "a delay of at most 3600000000000 ns",
        ))
    }
}

impl Config {
    /// Parses and validates `json`.
    pub fn from_json(json: &str) -> Result<Config, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(json);
        let raw: RawConfig = serde_path_to_error::deserialize(de).map_err(from_serde)?;
        check_dev("dev_a", &raw.dev_a)?;
        check_dev("dev_b", &raw.dev_b)?;
        if raw.dev_a == raw.dev_b {
            return Err(ScenarioError::new(
                "dev_b",
                format!("\"{}\"", raw.dev_b),
                "a name other than dev_a's",
            ));
        }
        let positive_rate = |key: &str, r: u64| {
            if r >= 1000 {
                Ok(r)
            } else {
                Err(ScenarioError::new(
                    key,
                    r.to_string(),
                    "a rate of at least 1000 bit/s",
                ))
            }
        };
        let rate_bps = positive_rate("rate_bps", raw.rate_bps)?;
        let reverse_rate_bps = raw
            .reverse_rate_bps
            .map(|r| positive_rate("reverse_rate_bps", r))
            .transpose()?;
        let buffer = match raw.buffer {
            BufferArg::Packets(n) if (1..=u32::MAX as u64).contains(&n) => {
                BufferLimit::Packets(n as u32)
            }
            BufferArg::Packets(n) => {
                return Err(ScenarioError::new(
                    "buffer",
                    n.to_string(),
                    "at least 1 packet",
                ))
            }
            BufferArg::Size(s) => {
                let b = parse_size(&s).map_err(|m| ScenarioError::new("buffer", &s, m))?;
                if b < 64 {
                    return Err(ScenarioError::new(
                        "buffer",
                        format!("\"{s}\""),
                        "a size of at least 64B",
                    ));
                }
                BufferLimit::Bytes(b)
            }
        };
        let qdisc = qdisc_with_ecn(raw.qdisc, raw.ecn)?;
        if raw.mean_pkt_bytes == 0 || raw.mean_pkt_bytes > 65_535 {
            return Err(ScenarioError::new(
                "mean_pkt_bytes",
                raw.mean_pkt_bytes.to_string(),
                "a packet size in 1..=65535 bytes",
            ));
        }
        if raw.sample_interval_ns < 1_000_000 {
            return Err(ScenarioError::new(
                "sample_interval_ns",
                raw.sample_interval_ns.to_string(),
                "at least 1000000 (1 ms)",
            ));
        }
        check_delay("default_delay_ab_ns", raw.default_delay_ab_ns)?;
        check_delay("default_delay_ba_ns", raw.default_delay_ba_ns)?;
        let mut flows = Vec::with_capacity(raw.flows.len());
        let (mut ids, mut keys) = (HashSet::new(), HashSet::new());
        for (i, f) in raw.flows.into_iter().enumerate() {
            let key = |k: &str| format!("flows.{i}.{k}");
            let proto = match f.proto.as_str() {
                "tcp" => PROTO_TCP,
                "udp" => PROTO_UDP,
                other => {
                    return Err(ScenarioError::new(
                        key("proto"),
                        format!("\"{other}\""),
                        "\"tcp\" or \"udp\"",
                    ))
                }
            };
            if f.id == crate::bottleneck::OTHER || !ids.insert(f.id) {
                return Err(ScenarioError::new(
                    key("id"),
                    f.id.to_string(),
                    "an id below 4294967295 that no other flow has",
                ));
            }
            if !keys.insert((proto, f.a_port, f.b_port)) {
                return Err(ScenarioError::new(
                    key("a_port"),
                    f.a_port.to_string(),
                    "a (proto, a_port, b_port) that no other flow has",
                ));
            }
            check_delay(&key("delay_ab_ns"), f.delay_ab_ns)?;
            check_delay(&key("delay_ba_ns"), f.delay_ba_ns)?;
            flows.push(FlowSpec {
                id: f.id,
                proto,
                a_port: f.a_port,
                b_port: f.b_port,
                delay_ab_ns: f.delay_ab_ns,
                delay_ba_ns: f.delay_ba_ns,
            });
        }
        if let Some(p) = &raw.trace_path {
            if p.is_empty() {
                return Err(ScenarioError::new(
                    "trace_path",
                    "\"\"",
                    "a file path, or null for no trace",
                ));
            }
        }
        let realtime_priority = match raw.realtime_priority {
            None => None,
            Some(p @ 1..=99) => Some(p as u8),
            Some(p) => {
                return Err(ScenarioError::new(
                    "realtime_priority",
                    p.to_string(),
                    "a SCHED_FIFO priority in 1..=99, or null",
                ))
            }
        };
        Ok(Config {
            realtime_priority,
            dev_a: raw.dev_a,
            dev_b: raw.dev_b,
            rate_bps,
            buffer,
            qdisc,
            seed: raw.seed,
            mean_pkt_bytes: raw.mean_pkt_bytes,
            sample_interval_ns: raw.sample_interval_ns,
            warmup_ns: raw.warmup_ns,
            default_delay_ab_ns: raw.default_delay_ab_ns,
            default_delay_ba_ns: raw.default_delay_ba_ns,
            reverse_rate_bps,
            flows,
            trace_path: raw.trace_path,
        })
    }
}

/// Builds the qdisc's configuration from its table, folding in the top-level `ecn`: a kind that
/// has an `ecn` parameter gets it when the table does not set it; a table that sets it
/// differently is an error; a kind without one (DropTail, DRR) never marks, so `ecn` changes
/// nothing there.
fn qdisc_with_ecn(mut table: toml::Table, ecn: Option<bool>) -> Result<AqmConfig, ScenarioError> {
    let parse = |t: toml::Table| AqmConfig::from_table(t).map_err(|e| e.prefixed("qdisc"));
    let Some(ecn) = ecn else {
        return parse(table);
    };
    match table.get("ecn") {
        Some(toml::Value::Boolean(own)) if *own != ecn => Err(ScenarioError::new(
            "ecn",
            ecn.to_string(),
            format!("the same as qdisc.ecn ({own}), or absent"),
        )),
        Some(_) => parse(table),
        None => {
            let has_ecn = parse(table.clone())?.to_table().contains_key("ecn");
            if has_ecn {
                table.insert("ecn".into(), toml::Value::Boolean(ecn));
            }
            parse(table)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const EXAMPLE: &str = r#"{
      "dev_a": "aql1a2b3ca", "dev_b": "aql1a2b3cb",
      "rate_bps": 10000000, "buffer": 100,
      "qdisc": {"kind": "red", "min_th": 5, "max_th": 15},
      "ecn": true, "seed": 1, "mean_pkt_bytes": 1040,
      "sample_interval_ns": 20000000, "warmup_ns": 0,
      "default_delay_ab_ns": 5000000, "default_delay_ba_ns": 5000000,
      "reverse_rate_bps": null,
      "flows": [{"id": 0, "proto": "tcp", "a_port": 40000, "b_port": 5001,
                 "delay_ab_ns": 15000000, "delay_ba_ns": 15000000}],
      "trace_path": null
    }"#;

    fn with(key: &str, value: serde_json::Value) -> String {
        let mut v: serde_json::Value = serde_json::from_str(EXAMPLE).unwrap();
        v[key] = value;
        v.to_string()
    }

    #[test]
    fn the_contract_example_parses_and_ecn_reaches_the_qdisc() {
        let c = Config::from_json(EXAMPLE).unwrap();
        assert_eq!(c.rate_bps, 10_000_000);
        assert_eq!(c.buffer, BufferLimit::Packets(100));
        assert_eq!(c.qdisc.kind(), "red");
        assert_eq!(c.qdisc.to_table()["ecn"], toml::Value::Boolean(true));
        assert_eq!(c.flows[0].proto, PROTO_TCP);
        let c = Config::from_json(&with("buffer", "50KB".into())).unwrap();
        assert_eq!(c.buffer, BufferLimit::Bytes(50_000));
        // DropTail has no ecn parameter: the flag changes nothing.
        let c = Config::from_json(&with("qdisc", serde_json::json!({"kind": "droptail"})));
        assert_eq!(c.unwrap().qdisc.kind(), "droptail");
    }

    #[test]
    fn errors_name_the_key() {
        let path = |json: String| Config::from_json(&json).unwrap_err().path;
        assert_eq!(path(with("rate_bps", 0.into())), "rate_bps");
        assert_eq!(path(with("buffer", 0.into())), "buffer");
        assert_eq!(path(with("buffer", "lots".into())), "buffer");
        assert_eq!(path(with("dev_a", "a/b".into())), "dev_a");
        assert_eq!(path(with("dev_b", "aql1a2b3ca".into())), "dev_b");
        assert_eq!(path(with("dev_a", "x".repeat(16).into())), "dev_a");
        assert_eq!(path(with("bogus", 1.into())), "bogus");
        assert_eq!(
            path(with("sample_interval_ns", 10.into())),
            "sample_interval_ns"
        );
        let q = serde_json::json!({"kind": "red", "max_p": 7});
        assert_eq!(path(with("qdisc", q)), "qdisc.max_p");
        let q = serde_json::json!({"kind": "red", "ecn": false});
        assert_eq!(path(with("qdisc", q)), "ecn");
        let f = serde_json::json!([{"id": 0, "proto": "sctp", "a_port": 1, "b_port": 2}]);
        assert_eq!(path(with("flows", f)), "flows.0.proto");
        let f = serde_json::json!([{"id": 0, "proto": "tcp", "a_port": 1, "b_port": 2},
                                   {"id": 0, "proto": "tcp", "a_port": 3, "b_port": 2}]);
        assert_eq!(path(with("flows", f)), "flows.1.id");
        let f = serde_json::json!([{"id": 0, "proto": "tcp", "a_port": 70000, "b_port": 2}]);
        assert_eq!(path(with("flows", f)), "flows.0.a_port");
    }
}
