//! The general topology form: a three-hop parking lot (R0 - R1 - R2 - R3, 10 Mbps per hop),
//! one long group crossing every hop and one cross group per hop. Checks conservation on every
//! link, the routes, determinism, the classic parking-lot unfairness under DropTail, and that a
//! dumbbell written as a topology runs exactly like the dumbbell shorthand.

mod common;
use aqmlab_core::metrics::Column;
use aqmlab_core::scenario::expand::expand;
use aqmlab_core::scenario::Scenario;
use common::*;
use serde_json::Value;

const PARKING_LOT: &str = r#"
    seed = SEED
    duration = "40s"
    warmup = "10s"
    [topology]
    nodes = ["R0", "R1", "R2", "R3"]
    [[topology.links]]
    from = "R0"
    to = "R1"
    rate = "10Mbps"
    delay = "10ms"
    buffer = 60
    QDISC
    [[topology.links]]
    from = "R1"
    to = "R2"
    rate = "10Mbps"
    delay = "10ms"
    buffer = 60
    QDISC
    [[topology.links]]
    from = "R2"
    to = "R3"
    rate = "10Mbps"
    delay = "10ms"
    buffer = 60
    QDISC
    [[flows]]
    group = "long"
    count = 4
    src = "R0"
    dst = "R3"
    access_delay = "2ms"
    start = { uniform = ["0s", "1s"] }
    [[flows]]
    group = "cross1"
    count = 4
    src = "R0"
    dst = "R1"
    access_delay = "2ms"
    start = { uniform = ["0s", "1s"] }
    [[flows]]
    group = "cross2"
    count = 4
    src = "R1"
    dst = "R2"
    access_delay = "2ms"
    start = { uniform = ["0s", "1s"] }
    [[flows]]
    group = "cross3"
    count = 4
    src = "R2"
    dst = "R3"
    access_delay = "2ms"
    start = { uniform = ["0s", "1s"] }
"#;

fn parking_lot(seed: u64, qdisc: &str) -> String {
    PARKING_LOT
        .replace("SEED", &seed.to_string())
        .replace("QDISC", qdisc)
}

fn group_mean(out: &aqmlab_core::scenario::run::RunOutput, g: &str) -> f64 {
    out.summary["groups"][g]["mean_goodput_mbps"]
        .as_f64()
        .unwrap_or_else(|| panic!("no group {g}"))
}

#[test]
fn parking_lot_routes_follow_the_chain() {
    let s = Scenario::from_toml_str(&parking_lot(1, "")).unwrap();
    let e = expand(&s);
    assert_eq!(e.declared, 6);
    assert_eq!(e.bottleneck, 0, "the first link is measured by default");
    let names: Vec<String> = e.topology.links[..6]
        .iter()
        .map(|l| format!("{:?}", l.role))
        .collect();
    assert_eq!(
        names,
        [
            "Named(\"R0->R1\")",
            "Named(\"R1->R0\")",
            "Named(\"R1->R2\")",
            "Named(\"R2->R1\")",
            "Named(\"R2->R3\")",
            "Named(\"R3->R2\")"
        ]
    );
    for fl in &e.flows {
        // Access link, the group's hops through the chain, sink link.
        let core: Vec<u32> = fl.forward[1..fl.forward.len() - 1].to_vec();
        let back: Vec<u32> = fl.reverse[1..fl.reverse.len() - 1].to_vec();
        let (want, want_back) = match fl.group {
            0 => (vec![0, 2, 4], vec![5, 3, 1]),
            g => (vec![2 * (g as u32 - 1)], vec![2 * (g as u32 - 1) + 1]),
        };
        assert_eq!(core, want, "group {}", fl.group);
        assert_eq!(back, want_back, "group {}", fl.group);
        assert!(fl.forward[0] as usize >= e.declared);
        // Base RTT: 2 × (2 ms access + hops × 10 ms + 0 ms sink).
        let hops = want.len() as u64;
        assert_eq!(fl.info.base_rtt.0, 2 * (2 + 10 * hops) * 1_000_000);
    }
}

#[test]
fn explicit_path_overrides_the_shortest_route() {
    // A triangle: the direct A-C link (30 ms) is slower than A-B-C (2 × 10 ms).
    let text = r#"
        duration = "1s"
        [topology]
        [[topology.links]]
        from = "A"
        to = "B"
        rate = "10Mbps"
        delay = "10ms"
        [[topology.links]]
        from = "B"
        to = "C"
        rate = "10Mbps"
        delay = "10ms"
        [[topology.links]]
        from = "A"
        to = "C"
        rate = "10Mbps"
        delay = "30ms"
        [[flows]]
        src = "A"
        dst = "C"
        [[flows]]
        src = "A"
        dst = "C"
        path = ["A", "C"]
    "#;
    let e = expand(&Scenario::from_toml_str(text).unwrap());
    let core = |i: usize| e.flows[i].forward[1..e.flows[i].forward.len() - 1].to_vec();
    let back = |i: usize| e.flows[i].reverse[1..e.flows[i].reverse.len() - 1].to_vec();
    assert_eq!(core(0), vec![0, 2]);
    assert_eq!(back(0), vec![3, 1]);
    assert_eq!(core(1), vec![4]);
    assert_eq!(back(1), vec![5]);
}

#[test]
fn parking_lot_conserves_repeats_and_penalises_the_long_flows() {
    let a = run(&parking_lot(7, ""));
    let b = run(&parking_lot(7, ""));
    let c = run(&parking_lot(8, ""));
    assert_conserved(&a);
    assert_conserved(&c);
    assert_eq!(a.summary_json, b.summary_json);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.links), format!("{:?}", b.links));
    assert_ne!(a.summary_json, c.summary_json);

    // Per-link rows: each hop is busy, and the summary names the measured link.
    assert_eq!(a.summary["measured_link"], "R0->R1");
    let links = a.summary["links"].as_array().unwrap();
    assert_eq!(links.len(), 6);
    for (k, l) in links.iter().enumerate() {
        let u = l["utilisation"].as_f64().unwrap();
        if k % 2 == 0 {
            assert!(u > 0.9, "hop {} utilisation {u}", l["link"]);
            assert!(l["drops"].as_u64().unwrap() > 0, "hop {} drops", l["link"]);
        } else {
            assert!(u < 0.2, "ACK direction {} utilisation {u}", l["link"]);
        }
    }
    assert_eq!(a.summary["utilisation"], links[0]["utilisation"]);
    // Per-flow drops count every hop of the route: they add up to the hops' drops.
    let flow_drops: u64 = a.summary["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["drops"].as_u64().unwrap())
        .sum();
    let hop_drops: u64 = links.iter().map(|l| l["drops"].as_u64().unwrap()).sum();
    assert_eq!(flow_drops, hop_drops);

    // The classic parking-lot result: the flows crossing three congested hops get much less
    // than the flows crossing one.
    let long = group_mean(&a, "long");
    for g in ["cross1", "cross2", "cross3"] {
        let cross = group_mean(&a, g);
        assert!(
            long < 0.5 * cross,
            "long flows {long:.3} Mbps vs {g} {cross:.3} Mbps"
        );
    }
    println!(
        "droptail: long {:.3} Mbps, cross {:.3} / {:.3} / {:.3} Mbps per flow",
        long,
        group_mean(&a, "cross1"),
        group_mean(&a, "cross2"),
        group_mean(&a, "cross3")
    );
}

#[test]
fn every_aqm_link_gets_its_own_qdisc() {
    // RED on every hop: each hop's instance sees its own traffic and marks/drops early, and its
    // timers and random streams are per link (the run repeats bit for bit).
    let red = "qdisc = { kind = \"red\", min_th = 5, max_th = 15 }";
    let a = run(&parking_lot(3, red));
    let b = run(&parking_lot(3, red));
    assert_eq!(a.summary_json, b.summary_json);
    assert_conserved(&a);
    assert_eq!(a.summary["qdisc"], "red");
    for l in a.summary["links"].as_array().unwrap().iter().step_by(2) {
        assert_eq!(l["qdisc"], "red");
        let q = l["queue_pkts_mean"].as_f64().unwrap();
        assert!(
            q > 1.0 && q < 20.0,
            "{}: RED keeps the queue low: {q}",
            l["link"]
        );
    }
    let green = "qdisc = { kind = \"green_tcp\" }";
    let g = run(&parking_lot(3, green));
    assert_conserved(&g);
    println!(
        "red: long {:.3} Mbps, cross1 {:.3} Mbps; green_tcp: long {:.3} Mbps, cross1 {:.3} Mbps",
        group_mean(&a, "long"),
        group_mean(&a, "cross1"),
        group_mean(&g, "long"),
        group_mean(&g, "cross1"),
    );
}

#[test]
fn measure_selects_the_link_of_the_scalar_summary() {
    let text = parking_lot(1, "").replacen(
        "from = \"R1\"\n    to = \"R2\"",
        "from = \"R1\"\n    to = \"R2\"\n    measure = true",
        1,
    );
    let out = run(&text
        .replace("duration = \"40s\"", "duration = \"10s\"")
        .replace("warmup = \"10s\"", "warmup = \"2s\""));
    assert_eq!(out.summary["measured_link"], "R1->R2");
    let links = out.summary["links"].as_array().unwrap();
    assert_eq!(out.summary["utilisation"], links[2]["utilisation"]);
    assert_eq!(out.summary["arrivals"], links[2]["arrivals"]);
}

const DUMBBELL: &str = r#"
    duration = "20s"
    warmup = "5s"
    [bottleneck]
    rate = "10Mbps"
    delay = "5ms"
    buffer = 50
    loss = 0.001
    qdisc = { kind = "red", min_th = 5, max_th = 15 }
    [sink]
    delay = "1ms"
    [[flows]]
    count = 6
    hosts = 3
    access_delay = { uniform = ["5ms", "50ms"] }
    start = { uniform = ["0s", "1s"] }
    [[flows]]
    kind = "udp_cbr"
    cbr = { rate = "1Mbps" }
"#;

#[test]
fn a_dumbbell_written_as_a_topology_runs_like_the_dumbbell() {
    let as_topology = DUMBBELL
        .replace(
            "[bottleneck]",
            "[topology]\n    [[topology.links]]\n    from = \"R1\"\n    to = \"R2\"",
        )
        .replace("[[flows]]", "[[flows]]\n    src = \"R1\"\n    dst = \"R2\"");
    let a = run(DUMBBELL);
    let b = run(&as_topology);
    assert_conserved(&b);
    let mut sb = b.summary.clone();
    let obj = sb.as_object_mut().unwrap();
    assert_eq!(obj.remove("measured_link"), Some(Value::from("R1->R2")));
    assert!(obj.remove("links").is_some());
    // Per-flow drops/marks: at the bottleneck vs along the declared route, the same link here.
    assert_eq!(a.summary, sb);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.queue), format!("{:?}", b.queue));
    for c in ["arrivals", "dequeued", "drops", "tx_bytes"] {
        assert_eq!(col_i64(&a.links, c), col_i64(&b.links, c), "column {c}");
    }
    // Only the names differ: the declared link keeps its node names in the links table.
    let Some(Column::Str(rb)) = b.links.get("role") else {
        panic!("no role column")
    };
    assert_eq!(&rb[..2], ["R1->R2", "R2->R1"]);
    assert_eq!(roles(&a)[..2], ["bottleneck", "bottleneck_reverse"]);
}
