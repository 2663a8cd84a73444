//! CUBIC and DCTCP on a dumbbell: sane goodput, fairness and queue (their control laws are
//! unit-tested against RFC 9438 and RFC 8257 in `transport/tcp/congestion/`).

mod common;
use common::*;

/// Ten flows, 10 Mbps, 2 × (10 + 20) ms base RTT (a BDP of 75 packets), SACK recovery.
fn dumbbell(tcp: &str, qdisc: &str) -> String {
    format!(
        r#"
name = "modern tcp"
duration = "30s"
warmup = "10s"
[bottleneck]
rate = "10Mbps"
delay = "20ms"
buffer = 100
qdisc = {qdisc}
[[flows]]
count = 10
access_rate = "100Mbps"
access_delay = "10ms"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "sack", mss = 1000, {tcp} }}
"#
    )
}

#[test]
fn cubic_fills_the_link_fairly() {
    let out = run(&dumbbell(r#"cc = "cubic""#, r#"{ kind = "droptail" }"#));
    assert_conserved(&out);
    println!("{}", out.summary_json);
    assert!(f(&out, "utilisation") > 0.97);
    assert!(f(&out, "jain_index") > 0.9);
    assert!(f(&out, "loss_rate") < 0.02);
    // CUBIC's reduction is to 0.7·W, not 0.5·W: the DropTail queue stays fuller than Reno's.
    let reno = run(&dumbbell(r#"cc = "reno""#, r#"{ kind = "droptail" }"#));
    assert!(
        out.summary["queue_pkts"]["mean"].as_f64() > reno.summary["queue_pkts"]["mean"].as_f64()
    );
}

/// A step-marking queue (RED with min_th = K, max_th = K + 1, instantaneous average, p = 1,
/// marking above max_th too): DCTCP holds the queue near K = 20 packets with no loss and a
/// full link, where Reno-ECN on the same queue halves per mark.
#[test]
fn dctcp_holds_the_queue_near_the_marking_threshold() {
    let step = r#"{ kind = "red", min_th = 20, max_th = 21, max_p = 1.0, w_q = 1.0, ecn = true, gentle = false, hard_drop = false }"#;
    let out = run(&dumbbell(r#"cc = "dctcp", ecn = true"#, step));
    assert_conserved(&out);
    println!("{}", out.summary_json);
    assert!(f(&out, "utilisation") > 0.97);
    assert!(f(&out, "jain_index") > 0.9);
    assert_eq!(f(&out, "loss_rate"), 0.0);
    assert!(f(&out, "marks") > 0.0);
    let q = out.summary["queue_pkts"]["mean"].as_f64().unwrap();
    assert!((10.0..30.0).contains(&q), "mean queue {q}");
    // Reno with RFC 3168 ECN halves on each marked window: the link empties more often.
    let reno = run(&dumbbell(r#"cc = "reno", ecn = true"#, step));
    println!("reno-ecn: {}", reno.summary_json);
    assert!(f(&reno, "utilisation") < f(&out, "utilisation"));
}

/// DualPI2 (RFC 9332) with five Classic flows (Reno, Not-ECT) and five L4S flows (DCTCP,
/// ECT(1)) sharing the 10 Mbps link: L4S packets wait about the 1 ms step threshold, Classic
/// packets about the 15 ms PI target, and the link stays full.
#[test]
fn dualpi2_keeps_l4s_delay_near_its_step_with_classic_flows_sharing() {
    let text = r#"
name = "dualpi2 sharing"
duration = "40s"
warmup = "10s"
[bottleneck]
rate = "10Mbps"
delay = "20ms"
buffer = 200
qdisc = { kind = "dualpi2" }
[[flows]]
count = 5
access_rate = "100Mbps"
access_delay = "10ms"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "sack", cc = "reno" }
group = "classic"
[[flows]]
count = 5
access_rate = "100Mbps"
access_delay = "10ms"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "sack", cc = "dctcp", ecn = true, ecn_codepoint = "ect1" }
group = "l4s"
"#;
    let out = run(text);
    assert_conserved(&out);
    let t = col_f64(&out.queue, "t_s");
    let mean_after = |name: &str| {
        let v = col_f64(&out.queue, name);
        let xs: Vec<f64> = t
            .iter()
            .zip(v)
            .filter(|(t, _)| **t >= 10.0)
            .map(|(_, v)| *v)
            .collect();
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    let l4s = mean_after("l4s_sojourn_ms");
    let classic = mean_after("classic_sojourn_ms");
    let g = &out.summary["groups"];
    let (gl, gc) = (
        g["l4s"]["goodput_mbps"].as_f64().unwrap(),
        g["classic"]["goodput_mbps"].as_f64().unwrap(),
    );
    println!("L4S sojourn {l4s:.2} ms, Classic {classic:.2} ms, goodput L4S {gl:.2} Classic {gc:.2} Mbps");
    assert!(f(&out, "utilisation") > 0.95);
    assert!(
        (0.3..2.0).contains(&l4s),
        "L4S delay {l4s} ms, step at 1 ms"
    );
    assert!(
        (7.0..25.0).contains(&classic),
        "Classic delay {classic} ms, target 15 ms"
    );
    assert_eq!(
        g["l4s"]["drops"].as_f64(),
        Some(0.0),
        "L4S flows see marks, not loss"
    );
    assert!(gl > 1.0 && gc > 1.0, "neither class starves");
}
