//! TCP checked against models nobody here wrote: the Mathis et al. throughput formula under
//! random loss, full utilisation by one flow with a buffer of one bandwidth-delay product, and
//! fair sharing among flows with equal RTTs.

mod common;
use common::*;

/// One flow of `variant`, ~100 ms RTT, Bernoulli loss p on the data path, capacity far above
/// the loss-limited rate, so throughput is set by loss alone.
fn lossy_path(variant: &str, p: f64, secs: u32) -> String {
    format!(
        r#"
        name = "mathis {variant} p={p}"
        seed = 3
        duration = "{secs}s"
        warmup = "20s"
        [bottleneck]
        rate = "100Mbps"
        delay = "30ms"
        buffer = 5000
        loss = {p}
        [[flows]]
        count = 1
        access_rate = "1Gbps"
        access_delay = "20ms"
        tcp = {{ variant = "{variant}", mss = 1000 }}
        "#
    )
}

fn mathis_mbps(mss_bytes: f64, rtt_s: f64, p: f64) -> f64 {
    mss_bytes * 8.0 * (1.5f64).sqrt() / (rtt_s * p.sqrt()) / 1e6
}

/// Goodput over the Mathis prediction.
fn mathis_ratio(variant: &str, p: f64, secs: u32) -> f64 {
    let out = run(&lossy_path(variant, p, secs));
    assert_conserved(&out);
    let goodput = col_f64(&out.flows, "goodput_mbps")[0];
    let rtt = col_f64(&out.flows, "rtt_ms")[0] / 1e3;
    assert!((rtt - 0.1).abs() < 1e-9, "base RTT {rtt}");
    let model = mathis_mbps(1000.0, rtt, p);
    let ratio = goodput / model;
    println!(
        "{variant} p={p}: goodput {goodput:.3} Mbps, Mathis {model:.3} Mbps, ratio {ratio:.3}"
    );
    ratio
}

fn check_mathis(variant: &str, p: f64, secs: u32) {
    let ratio = mathis_ratio(variant, p, secs);
    assert!(
        (0.8..=1.2).contains(&ratio),
        "{variant} p={p}: goodput/Mathis = {ratio:.3}"
    );
}

#[test]
fn reno_matches_mathis_at_p_0_001() {
    check_mathis("reno", 0.001, 420);
}

#[test]
fn reno_matches_mathis_at_p_0_01() {
    check_mathis("reno", 0.01, 420);
}

#[test]
fn sack_matches_mathis_and_beats_reno_where_reno_times_out() {
    // At p = 0.01 Reno loses throughput to timeouts after two losses in a window; SACK repairs
    // them in one round trip, so it lands closer to the model (which has no timeouts).
    check_mathis("sack", 0.001, 420);
    let sack = mathis_ratio("sack", 0.01, 420);
    let reno = mathis_ratio("reno", 0.01, 420);
    assert!((0.8..=1.2).contains(&sack), "sack p=0.01: {sack:.3}");
    assert!(sack > reno, "sack {sack:.3} vs reno {reno:.3}");
}

#[test]
fn one_flow_fills_a_link_with_a_bdp_buffer() {
    // 10 Mbps, RTT 2*(20+30) = 100 ms: BDP = 125 packets of 1000 B; buffer 150 packets.
    let out = run(r#"
        duration = "60s"
        warmup = "10s"
        [bottleneck]
        rate = "10Mbps"
        delay = "30ms"
        buffer = 150
        [[flows]]
        count = 1
        access_rate = "100Mbps"
        access_delay = "20ms"
        tcp = { variant = "reno" }
    "#);
    assert_conserved(&out);
    let u = f(&out, "utilisation");
    assert!(u >= 0.97, "utilisation {u}");
    assert!(u <= 1.0 + 1e-9, "utilisation {u} above 1");
}

#[test]
fn equal_rtt_flows_share_fairly_through_droptail() {
    let out = run(r#"
        duration = "120s"
        warmup = "20s"
        [bottleneck]
        rate = "10Mbps"
        delay = "20ms"
        buffer = 100
        [[flows]]
        count = 10
        access_rate = "100Mbps"
        access_delay = "10ms"
        start = { uniform = ["0s", "2s"] }
        tcp = { variant = "newreno" }
    "#);
    assert_conserved(&out);
    let j = f(&out, "jain_index");
    assert!(j >= 0.95, "Jain index {j}");
    assert!(f(&out, "utilisation") > 0.9);
}
