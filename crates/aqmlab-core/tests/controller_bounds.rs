//! Controller state stays bounded over long quiet stretches: GREEN-TCP's α(t) on a
//! lightly loaded link must not grow ~5·10⁴ per window until it overflows, after which the link
//! would drop every packet for the rest of the run.

mod common;
use common::*;

/// A 100 Mbit/s link carrying only an 8 kbit/s CBR stream (U = 8·10⁻⁵) for 100 s, then one TCP flow.
fn light_then_tcp(qdisc: &str) -> aqmlab_core::scenario::run::RunOutput {
    run(&format!(
        r#"
        duration = "130s"
        warmup = "110s"
        [bottleneck]
        rate = "100Mbps"
        delay = "10ms"
        buffer = 500
        qdisc = {qdisc}
        [[flows]]
        kind = "udp_cbr"
        group = "light"
        cbr = {{ rate = "8kbps", packet_bytes = 100 }}
        [[flows]]
        group = "tcp"
        start = "100s"
        tcp = {{ variant = "sack", mss = 1000, max_window = 10000 }}
        "#
    ))
}

#[test]
fn green_tcp_after_a_light_period_lets_a_new_flow_fill_the_link() {
    let droptail = light_then_tcp(r#"{ kind = "droptail" }"#);
    let green = light_then_tcp(r#"{ kind = "green_tcp" }"#);
    assert_conserved(&green);
    let tcp = |out: &aqmlab_core::scenario::run::RunOutput| col_f64(&out.flows, "goodput_mbps")[1];
    let (dt, gr) = (tcp(&droptail), tcp(&green));
    assert!(dt > 80.0, "DropTail: the TCP flow gets {dt} Mbit/s");
    assert!(gr > 0.8 * dt, "GREEN: {gr} Mbit/s vs DropTail {dt}");
    let alpha = green
        .queue
        .get("alpha")
        .map(|c| match c {
            aqmlab_core::metrics::Column::F64(v) => v.iter().cloned().fold(0.0, f64::max),
            _ => panic!("alpha column"),
        })
        .expect("alpha probe");
    assert!(alpha.is_finite() && alpha <= 2.0, "alpha reached {alpha}");
}

#[test]
fn nanosecond_timer_periods_are_rejected_with_their_key() {
    let base = "duration = \"5s\"\n[bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n";
    for (extra, path) in [
        (
            "qdisc = { kind = \"rem\", update_time = \"1ns\" }\n[[flows]]\n",
            "bottleneck.qdisc.update_time",
        ),
        (
            "qdisc = { kind = \"green_tcp\", window = \"999ns\" }\n[[flows]]\n",
            "bottleneck.qdisc.window",
        ),
        (
            "qdisc = { kind = \"green_rate\", delta_t = \"1ns\" }\n[[flows]]\n",
            "bottleneck.qdisc.delta_t",
        ),
        (
            "[[flows]]\ntcp = { min_rto = \"1ns\", max_rto = \"1ns\" }\n",
            "flows.0.tcp.max_rto",
        ),
        (
            "[[flows]]\ntcp = { clock_granularity = \"1ns\" }\n",
            "flows.0.tcp.clock_granularity",
        ),
        (
            "[[flows]]\ntcp = { initial_rto = \"1ns\" }\n",
            "flows.0.tcp.initial_rto",
        ),
    ] {
        let e = aqmlab_core::scenario::Scenario::from_toml_str(&format!("{base}{extra}"))
            .err()
            .unwrap_or_else(|| panic!("accepted: {extra}"));
        assert_eq!(e.path, path, "{e}");
        assert!(e.allowed.contains("1us"), "{e}");
    }
    // 1 us itself is allowed.
    aqmlab_core::scenario::Scenario::from_toml_str(&format!(
        "{base}qdisc = {{ kind = \"rem\", update_time = \"1us\" }}\n[[flows]]\n"
    ))
    .unwrap();
}
