//! ECN end to end: RED marks ECN-capable packets instead of dropping them early, the receivers
//! echo the marks and the senders back off, so the queue stays controlled without early drops.

mod common;
use common::*;

const BASE: &str = r#"
    duration = "60s"
    warmup = "10s"
    [bottleneck]
    rate = "10Mbps"
    delay = "10ms"
    buffer = 100
    qdisc = { kind = "red", min_th = 10, max_th = 40, max_p = 0.1, w_q = 0.002, gentle = true, ecn = QDISC_ECN }
    [[flows]]
    count = 20
    access_delay = { linear = ["5ms", "50ms"] }
    start = { uniform = ["0s", "1s"] }
    tcp = { variant = "newreno", ecn = TCP_ECN }
"#;

fn scenario(qdisc_ecn: bool, tcp_ecn: bool) -> String {
    BASE.replace("QDISC_ECN", &qdisc_ecn.to_string())
        .replace("TCP_ECN", &tcp_ecn.to_string())
}

#[test]
fn red_marks_and_ecn_senders_back_off_without_early_drops() {
    let ecn = run(&scenario(true, true));
    let drop = run(&scenario(false, false));
    assert_conserved(&ecn);
    assert_conserved(&drop);
    let marks = ecn.summary["marks"].as_u64().unwrap();
    let early_drops = ecn.summary["drops"]["early"].as_u64().unwrap();
    assert!(marks > 500, "RED should mark: {marks}");
    assert_eq!(
        early_drops, 0,
        "ECN-capable packets are marked, not dropped early"
    );
    // The marks work as congestion signals: the average queue stays in RED's operating range.
    let q = ecn.summary["queue_pkts"]["mean"].as_f64().unwrap();
    assert!(q < 40.0, "mean queue {q} packets with ECN");
    assert!(f(&ecn, "utilisation") > 0.95);
    // And the loss rate falls far below the dropping configuration's.
    assert!(
        f(&ecn, "loss_rate") < 0.2 * f(&drop, "loss_rate"),
        "{} vs {}",
        f(&ecn, "loss_rate"),
        f(&drop, "loss_rate")
    );
}

#[test]
fn ecn_marks_fall_back_to_drops_for_non_ecn_senders() {
    let out = run(&scenario(true, false));
    assert_eq!(out.summary["marks"].as_u64().unwrap(), 0);
    assert!(out.summary["drops"]["early"].as_u64().unwrap() > 100);
}
