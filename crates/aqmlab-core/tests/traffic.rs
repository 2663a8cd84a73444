//! Traffic kinds and activity schedules, end to end.

mod common;
use aqmlab_core::metrics::Column;
use aqmlab_core::scenario::Scenario;
use common::*;

fn groups(out: &aqmlab_core::scenario::run::RunOutput) -> Vec<String> {
    match out.groups.get("group") {
        Some(Column::Str(g)) => g.clone(),
        _ => panic!("no group column"),
    }
}

#[test]
fn cbr_delivers_its_rate_when_uncongested_and_is_punished_by_nothing() {
    let out = run(r#"
        duration = "20s"
        warmup = "2s"
        [bottleneck]
        rate = "10Mbps"
        delay = "5ms"
        [[flows]]
        kind = "udp_cbr"
        count = 2
        cbr = { rate = "2Mbps", packet_bytes = 500 }
    "#);
    assert_conserved(&out);
    for g in col_f64(&out.flows, "goodput_mbps") {
        assert!((g - 2.0).abs() < 0.01, "CBR goodput {g}");
    }
    assert!((f(&out, "utilisation") - 0.4).abs() < 0.01);
}

#[test]
fn unresponsive_cbr_over_capacity_starves_tcp_through_droptail() {
    let out = run(r#"
        duration = "30s"
        warmup = "5s"
        [bottleneck]
        rate = "5Mbps"
        delay = "5ms"
        buffer = 50
        [[flows]]
        kind = "udp_cbr"
        group = "udp"
        cbr = { rate = "6Mbps" }
        [[flows]]
        group = "tcp"
        count = 2
    "#);
    assert_conserved(&out);
    let gp = col_f64(&out.flows, "goodput_mbps");
    assert!(gp[0] > 4.0, "CBR keeps most of the link: {gp:?}");
    assert!(gp[1] + gp[2] < 1.0, "TCP is squeezed out: {gp:?}");
    assert!(f(&out, "loss_rate") > 0.1);
}

#[test]
fn web_flows_repeat_fetches_and_report_transfer_delays() {
    let out = run(r#"
        duration = "30s"
        warmup = "5s"
        [bottleneck]
        rate = "10Mbps"
        delay = "10ms"
        [[flows]]
        kind = "web"
        group = "web"
        count = 3
        access_delay = "10ms"
        web = { segments = 20 }
    "#);
    let n = out.transfers.rows();
    assert!(n > 100, "only {n} transfers");
    let web = &out.summary["groups"]["web"]["transfers"];
    let mean = web["mean_s"].as_f64().unwrap();
    // 20 segments from slow start with initial window 2 take 4 round trips of >= 40 ms.
    assert!(mean >= 0.16, "mean transfer delay {mean}");
    assert!(web["count"].as_u64().unwrap() > 50);
}

#[test]
fn active_intervals_switch_a_group_on_and_off() {
    let out = run(r#"
        duration = "40s"
        series_bin = "1s"
        [bottleneck]
        rate = "10Mbps"
        delay = "5ms"
        [[flows]]
        group = "always"
        count = 2
        [[flows]]
        group = "switching"
        count = 4
        active = [["0s", "10s"], ["20s", "30s"]]
    "#);
    assert_conserved(&out);
    let t = col_f64(&out.groups, "t_s");
    let g = groups(&out);
    let gp = col_f64(&out.groups, "goodput_mbps");
    let at = |name: &str, lo: f64, hi: f64| -> f64 {
        let v: Vec<f64> = (0..t.len())
            .filter(|&i| g[i] == name && t[i] > lo && t[i] <= hi)
            .map(|i| gp[i])
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(at("switching", 3.0, 10.0) > 3.0, "on in [0, 10)");
    assert!(at("switching", 12.0, 20.0) < 0.05, "off in [10, 20)");
    assert!(at("switching", 23.0, 30.0) > 3.0, "on again in [20, 30)");
    assert!(
        at("always", 12.0, 20.0) > 9.0,
        "the others take the link while it is off"
    );
}

#[test]
fn sessions_with_durations_stop_sending() {
    let out = run(r#"
        duration = "30s"
        [bottleneck]
        rate = "10Mbps"
        delay = "5ms"
        [[flows]]
        count = 3
        duration = { list = ["5s", "10s", "15s"] }
    "#);
    let t = col_f64(&out.groups, "t_s");
    let gp = col_f64(&out.groups, "goodput_mbps");
    let late: f64 = (0..t.len()).filter(|&i| t[i] > 16.0).map(|i| gp[i]).sum();
    assert!(
        late < 0.01,
        "nothing is delivered after every session ended: {late}"
    );
}

#[test]
fn kind_tables_must_match_the_kind() {
    let base = r#"
        duration = "1s"
        [bottleneck]
        rate = "1Mbps"
        delay = "1ms"
        [[flows]]
    "#;
    let err =
        Scenario::from_toml_str(&format!("{base}\ncbr = {{ rate = \"1Mbps\" }}")).unwrap_err();
    assert_eq!(err.path, "flows.0.cbr");
    let err = Scenario::from_toml_str(&format!(
        "{base}\nkind = \"udp_cbr\"\ncbr = {{ rate = \"fast\" }}"
    ))
    .unwrap_err();
    assert_eq!(err.path, "flows.0.cbr.rate");
    let err = Scenario::from_toml_str(&format!("{base}\nactive = [[\"5s\", \"2s\"]]")).unwrap_err();
    assert_eq!(err.path, "flows.0.active.0");
    let err = Scenario::from_toml_str(&format!("{base}\nkind = \"video\"")).unwrap_err();
    assert_eq!(err.path, "flows.0.kind");
}

#[test]
fn tables_given_as_arrays_are_rejected_with_their_key_path() {
    let base = "duration = \"5s\"\n[bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n";
    for (extra, path) in [
        ("[[flows]]\ntcp = [\"sack\", 1460, 52]\n", "flows.0.tcp"),
        (
            "[[flows]]\nkind = \"udp_cbr\"\ncbr = [\"1Mbps\", 500]\n",
            "flows.0.cbr",
        ),
        ("[sink]\n[[flows]]\n", ""),
    ] {
        let r = Scenario::from_toml_str(&format!("{base}{extra}"));
        if path.is_empty() {
            assert!(r.is_ok());
            continue;
        }
        let e = r.err().unwrap_or_else(|| panic!("{extra} was accepted"));
        assert_eq!(e.path, path, "{e}");
        assert!(e.allowed.starts_with("a table with named keys"), "{e}");
    }
    let e = Scenario::from_toml_str(
        "duration = \"5s\"\nbottleneck = [\"10Mbps\", \"5ms\"]\n[[flows]]\n",
    )
    .unwrap_err();
    assert_eq!(e.path, "bottleneck");
}
