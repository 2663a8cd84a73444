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
