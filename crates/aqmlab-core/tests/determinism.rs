//! Same scenario and seed → byte-identical summary; another seed → a different one.

mod common;
use common::*;

const SCENARIO: &str = r#"
    seed = SEED
    duration = "20s"
    warmup = "5s"
    [bottleneck]
    rate = "10Mbps"
    delay = "5ms"
    buffer = 50
    loss = 0.001
    [[flows]]
    count = 8
    access_rate = "100Mbps"
    access_delay = { uniform = ["5ms", "50ms"] }
    start = { uniform = ["0s", "1s"] }
"#;

#[test]
fn same_seed_same_bytes_other_seed_differs() {
    let a = run(&SCENARIO.replace("SEED", "7"));
    let b = run(&SCENARIO.replace("SEED", "7"));
    let c = run(&SCENARIO.replace("SEED", "8"));
    assert_eq!(a.summary_json, b.summary_json);
    // Debug output compares NaN cells (flows without a completion time) as equal text.
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.queue), format!("{:?}", b.queue));
    assert_eq!(a.events, b.events);
    assert_ne!(a.summary_json, c.summary_json);
    assert_conserved(&a);
    assert_conserved(&c);
}

/// The Tahoe sender is deterministic and conserves packets on the lossy dumbbell too, and it
/// behaves differently from the default Reno (its cwnd closes to one segment on each fast
/// retransmit).
#[test]
fn tahoe_same_seed_same_bytes_and_conserved() {
    let tahoe = SCENARIO.replace("SEED", "7") + "    tcp = { variant = \"tahoe\" }\n";
    let a = run(&tahoe);
    let b = run(&tahoe);
    let reno = run(&SCENARIO.replace("SEED", "7"));
    assert_eq!(a.summary_json, b.summary_json);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(a.events, b.events);
    assert_ne!(a.summary_json, reno.summary_json);
    assert_conserved(&a);
}

#[test]
fn queue_time_average_matches_the_sampled_mean() {
    // Over a long window the exact time average and the mean of 20 ms samples estimate the same
    // quantity; they must agree closely, and the time average can never exceed the buffer.
    let out = run(&SCENARIO.replace("SEED", "3").replace("\"20s\"", "\"60s\""));
    let avg = col_f64(&out.queue, "qlen_avg_pkts");
    let inst = col_f64(&out.queue, "qlen_pkts");
    assert!(
        avg.iter().all(|&a| (0.0..=50.0).contains(&a)),
        "time averages within [0, buffer]"
    );
    let n = avg.len() as f64;
    let (ma, mi) = (avg.iter().sum::<f64>() / n, inst.iter().sum::<f64>() / n);
    assert!(mi > 5.0, "the queue is busy: sampled mean {mi}");
    assert!(
        (ma - mi).abs() < 0.05 * mi,
        "time average {ma} vs sampled mean {mi}"
    );
}
