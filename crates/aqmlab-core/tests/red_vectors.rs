//! Decision-by-decision comparison of our RED family with ns-3.44's `RedQueueDisc`.
//!
//! `tests/data/ns3_red_public.json` holds vectors recorded by running ns-3 itself (see its
//! `schema` text): for each case, the attributes set on the queue disc, every Enqueue()/Dequeue()
//! call in order, and after each arrival the action, the average queue (`qavg_hex`, exact bits),
//! `m_curMaxP`, `m_count` and the drop probability used. `ns3_uniform_stream0.json` holds the
//! uniforms RED drew. We map each case's attributes to our parameters, replay the calls through
//! [`aqmlab_core::replay::replay`] with exactly those uniforms, and require every action, every
//! average and every probability to match bit for bit.

use std::collections::BTreeMap;

use aqmlab_core::aqm::{AqmConfig, Reason};
use aqmlab_core::net::packet::Ecn;
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::replay::{replay, Action, ReplayEvent, ReplayRecord};
use aqmlab_core::time::{parse_duration, parse_rate, SimTime};
use serde_json::Value;

fn data(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn from_hex(v: &Value) -> f64 {
    f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap())
}

fn uniforms() -> Vec<f64> {
    data("ns3_uniform_stream0.json")["bits_hex"]
        .as_array()
        .unwrap()
        .iter()
        .map(from_hex)
        .collect()
}

/// ns-3.44 `RedQueueDisc` attribute defaults (red-queue-disc.cc `GetTypeId`).
fn ns3_defaults() -> BTreeMap<String, String> {
    [
        ("MeanPktSize", "500"),
        ("IdlePktSize", "0"),
        ("Wait", "true"),
        ("Gentle", "true"),
        ("ARED", "false"),
        ("AdaptMaxP", "false"),
        ("FengAdaptive", "false"),
        ("NLRED", "false"),
        ("MinTh", "5"),
        ("MaxTh", "15"),
        ("MaxSize", "25p"),
        ("QW", "0.002"),
        ("LInterm", "50"),
        ("TargetDelay", "5ms"),
        ("Interval", "500ms"),
        ("Top", "0.5"),
        ("Bottom", "0"),
        ("Rtt", "100ms"),
        ("LinkBandwidth", "1.5Mbps"),
        ("UseEcn", "false"),
        ("UseHardDrop", "true"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// A ns-3 attribute string as a duration ("5ms" as we write it, or "+5e+06ns" as ns-3 prints it).
fn ns3_time(s: &str) -> String {
    let ns = match s.strip_suffix("ns") {
        Some(n) => n.trim_start_matches('+').parse::<f64>().unwrap(),
        None => parse_duration(s).unwrap().as_nanos() as f64,
    };
    format!("{}ns", ns as u64)
}

struct Mapped {
    cfg: AqmConfig,
    limit: BufferLimit,
    link_rate_bps: u64,
    mean_pkt_bytes: u32,
}

/// Maps ns-3 attributes (defaults overridden by `attributes_set`, in order) to our kind/params.
fn map_case(case: &Value) -> Mapped {
    let mut a = ns3_defaults();
    for kv in case["attributes_set"].as_array().unwrap() {
        let k = kv[0].as_str().unwrap();
        assert!(a.contains_key(k), "unmapped ns-3 attribute {k}");
        a.insert(k.to_string(), kv[1].as_str().unwrap().to_string());
    }
    let num = |k: &str| a[k].parse::<f64>().unwrap();
    let flag = |k: &str| match a[k].as_str() {
        "true" => true,
        "false" => false,
        v => panic!("{k} = {v}"),
    };
    let bytes = case["mode"] == "bytes";
    let limit = match a["MaxSize"].strip_suffix('p') {
        Some(n) => BufferLimit::Packets(n.parse().unwrap()),
        None => BufferLimit::Bytes(a["MaxSize"].strip_suffix('B').unwrap().parse().unwrap()),
    };
    assert_eq!(bytes, matches!(limit, BufferLimit::Bytes(_)));
    assert!(
        !flag("AdaptMaxP") || flag("ARED"),
        "AdaptMaxP without ARED is not mapped"
    );
    let kind = match (flag("ARED"), flag("FengAdaptive"), flag("NLRED")) {
        (false, false, false) => "red",
        (false, false, true) => "nlred",
        (false, true, false) => "self_config_red",
        (true, false, false) => "ared",
        other => panic!("combination {other:?} has no kind"),
    };
    let mean_pkt_bytes = num("MeanPktSize") as u32;
    let mut t = toml::Table::new();
    t.insert("kind".into(), kind.into());
    t.insert("max_p".into(), (1.0 / num("LInterm")).into());
    t.insert("wait".into(), flag("Wait").into());
    t.insert("gentle".into(), flag("Gentle").into());
    t.insert("bytes".into(), bytes.into());
    t.insert("ecn".into(), flag("UseEcn").into());
    t.insert("hard_drop".into(), flag("UseHardDrop").into());
    t.insert("mean_pkt_size".into(), (mean_pkt_bytes as i64).into());
    assert_eq!(
        num("IdlePktSize"),
        0.0,
        "IdlePktSize is only used by ns-3's cautious mode"
    );
    if kind == "ared" {
        // ns-3's ARED overwrites MinTh, MaxTh and QW with its automatic values.
        t.insert("target_delay".into(), ns3_time(&a["TargetDelay"]).into());
        t.insert("interval".into(), ns3_time(&a["Interval"]).into());
        t.insert("top".into(), num("Top").into());
        t.insert("rtt".into(), ns3_time(&a["Rtt"]).into());
        if num("Bottom") != 0.0 {
            t.insert("bottom".into(), num("Bottom").into());
        }
    } else {
        t.insert("min_th".into(), num("MinTh").into());
        t.insert("max_th".into(), num("MaxTh").into());
        let qw = num("QW");
        assert!(
            qw >= 0.0,
            "QW {qw} (ns-3's -1/-2 automatic weights) is not mapped"
        );
        if qw == 0.0 {
            t.insert("w_q".into(), "auto".into());
        } else {
            t.insert("w_q".into(), qw.into());
        }
    }
    let cfg = AqmConfig::from_table(t).unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
    Mapped {
        cfg,
        limit,
        link_rate_bps: parse_rate(&a["LinkBandwidth"]).unwrap(),
        mean_pkt_bytes,
    }
}

fn expected_action(code: &str) -> Action {
    match code {
        "enq" => Action::Enqueued,
        "U" => Action::Dropped(Reason::Early),
        "F" => Action::Dropped(Reason::Forced),
        "M" => Action::Marked(Reason::Early),
        "FM" => Action::Marked(Reason::Forced),
        "L" => Action::Dropped(Reason::Overflow),
        other => panic!("unknown action {other}"),
    }
}

/// Replays one case; returns the mismatches (empty: the case passes exactly).
fn check_case(case: &Value, stream: &[f64]) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let m = map_case(case);
    let cols = &case["columns"];
    let col = |kind: &str, name: &str| {
        cols[kind]
            .as_array()
            .unwrap()
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("column {kind}.{name}"))
    };
    let ecn_capable = case["packets"]["ecn_capable"].as_bool().unwrap();
    let rows = case["events"].as_array().unwrap();
    let events: Vec<ReplayEvent> = rows
        .iter()
        .map(|r| {
            let t = SimTime(r[col("A", "t_ns")].as_u64().unwrap());
            match r[0].as_str().unwrap() {
                "A" => ReplayEvent::Enqueue {
                    t,
                    size_bytes: r[col("A", "size_bytes")].as_u64().unwrap() as u32,
                    flow: 0,
                    ecn: Ecn::ect0_if(ecn_capable),
                },
                "D" => ReplayEvent::Dequeue { t },
                k => panic!("row kind {k}"),
            }
        })
        .collect();
    // Exactly the uniforms ns-3 drew: drawing one more is an error (`uniforms` overrun).
    let consumed = case["uniforms_consumed"].as_u64().unwrap() as usize;
    let recs = match replay(
        &m.cfg,
        m.limit,
        &events,
        Some(stream[..consumed].to_vec()),
        0,
        m.link_rate_bps,
        m.mean_pkt_bytes,
    ) {
        Ok(r) => r,
        Err(e) => return vec![format!("{name}: replay failed: {e}")],
    };

    let mut bad = Vec::new();
    let mut report = |msg: String| {
        if bad.len() < 10 {
            bad.push(format!("{name}: {msg}"));
        }
    };
    // Values RED computes at initialisation.
    let init = &case["internal_after_initialize"];
    let first: &ReplayRecord = &recs[0];
    for (ours, theirs) in [
        ("min_th", "m_minTh"),
        ("max_th", "m_maxTh"),
        ("w_q", "m_qW"),
    ] {
        let want = init[theirs].as_f64().unwrap();
        let got = first.probe(ours).unwrap();
        // JSON decimals of these constants: compare to the last ulp or two.
        if (got - want).abs() > 4.0 * f64::EPSILON * want.abs() {
            report(format!("{ours} = {got}, ns-3 {theirs} = {want}"));
        }
    }
    for (i, (row, rec)) in rows.iter().zip(&recs).enumerate() {
        if row[0] == "D" {
            let want = row[col("D", "pkt")].as_i64().unwrap();
            let got = rec.packet.map_or(-1, |p| p as i64);
            if got != want || (want < 0) != (rec.action == Action::Empty) {
                report(format!("event {i}: dequeue gave {got}, ns-3 {want}"));
            }
            continue;
        }
        let want = expected_action(row[col("A", "action")].as_str().unwrap());
        if rec.action != want {
            report(format!(
                "event {i} (pkt {}): {:?}, ns-3 {want:?}",
                row[col("A", "pkt")],
                rec.action
            ));
        }
        let qb = row[col("A", "qlen_pkts_before")].as_u64().unwrap() as usize;
        if rec.qlen_pkts_before != qb {
            report(format!(
                "event {i}: queue before {}, ns-3 {qb}",
                rec.qlen_pkts_before
            ));
        }
        let avg = rec.probe("avg").unwrap();
        let want_avg = from_hex(&row[col("A", "qavg_hex")]);
        if avg.to_bits() != want_avg.to_bits() {
            report(format!("event {i}: avg {avg:e}, ns-3 {want_avg:e}"));
        }
        let max_p = rec.probe("max_p").unwrap();
        let want_max_p = from_hex(&row[col("A", "cur_max_p_hex")]);
        if max_p.to_bits() != want_max_p.to_bits() {
            report(format!("event {i}: max_p {max_p:e}, ns-3 {want_max_p:e}"));
        }
        let count = rec.probe("count").unwrap();
        if count != row[col("A", "count")].as_f64().unwrap() {
            report(format!(
                "event {i}: count {count}, ns-3 {}",
                row[col("A", "count")]
            ));
        }
        let after = row[col("A", "uniforms_after")].as_u64().unwrap();
        if rec.draws != after {
            report(format!(
                "event {i}: {} uniforms drawn, ns-3 {after}",
                rec.draws
            ));
        }
        if let Some(p_drop) = row[col("A", "p_drop")].as_f64() {
            let p = rec.probe("p").unwrap();
            // p_drop has no hex column; its decimal is shortest round-trip and serde_json's
            // float_roundtrip feature (dev-dependency) parses it exactly, so compare bits.
            if p.to_bits() != p_drop.to_bits() {
                report(format!("event {i}: p {p:e}, ns-3 {p_drop:e}"));
            }
        }
    }
    if recs.len() != rows.len() {
        report(format!("{} records for {} events", recs.len(), rows.len()));
    }
    bad
}

fn red_cases(vectors: &Value) -> Vec<&Value> {
    vectors["cases"]
        .as_object()
        .unwrap()
        .values()
        .filter(|c| c["qdisc"] == "ns3::RedQueueDisc")
        .collect()
}

#[test]
fn ns3_red_vectors_match_exactly() {
    let vectors = data("ns3_red_public.json");
    let stream = uniforms();
    let cases = red_cases(&vectors);
    let names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for required in ["t3", "t4", "t7", "t11", "t13", "t3_bytes", "red_dyn"] {
        assert!(names.contains(&required), "vector case {required} missing");
    }
    let mut failures = Vec::new();
    for case in &cases {
        failures.extend(check_case(case, &stream));
    }
    assert!(
        failures.is_empty(),
        "mismatches against ns-3:\n{}",
        failures.join("\n")
    );
}

#[test]
fn totals_match_ns3_stats() {
    // Redundant with the per-event check, but states the headline numbers a reader looks for.
    let vectors = data("ns3_red_public.json");
    let stream = uniforms();
    for case in red_cases(&vectors) {
        let m = map_case(case);
        let rows = case["events"].as_array().unwrap();
        let events: Vec<ReplayEvent> = rows
            .iter()
            .map(|r| match r[0].as_str().unwrap() {
                "A" => ReplayEvent::Enqueue {
                    t: SimTime(r[2].as_u64().unwrap()),
                    size_bytes: r[4].as_u64().unwrap() as u32,
                    flow: 0,
                    ecn: Ecn::ect0_if(case["packets"]["ecn_capable"].as_bool().unwrap()),
                },
                _ => ReplayEvent::Dequeue {
                    t: SimTime(r[2].as_u64().unwrap()),
                },
            })
            .collect();
        let recs = replay(
            &m.cfg,
            m.limit,
            &events,
            Some(stream.clone()),
            0,
            m.link_rate_bps,
            m.mean_pkt_bytes,
        )
        .unwrap();
        let n = |a: Action| recs.iter().filter(|r| r.action == a).count() as u64;
        let s = &case["ns3_stats"];
        let name = &case["name"];
        assert_eq!(
            n(Action::Dropped(Reason::Early)),
            s["unforced_drop"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            n(Action::Dropped(Reason::Forced)),
            s["forced_drop"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            n(Action::Dropped(Reason::Overflow)),
            s["internal_queue_drop"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            n(Action::Marked(Reason::Early)),
            s["unforced_mark"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            n(Action::Dequeued),
            s["dequeued"].as_u64().unwrap(),
            "{name}"
        );
        let max_p = recs.last().unwrap().probe("max_p").unwrap();
        let want = case["final"]["m_curMaxP"].as_f64().unwrap();
        assert!(
            (max_p - want).abs() <= 4.0 * f64::EPSILON * want,
            "{name}: {max_p} vs {want}"
        );
    }
}
