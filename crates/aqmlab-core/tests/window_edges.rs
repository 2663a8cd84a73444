//! Utilisation over the measurement window counts the bits serialised inside it (counting whole
//! packets at the end of their transmission would credit a window with a packet that started
//! before it, up to 1.049 in fuzzed runs with slow links and short windows).

mod common;
use common::*;

#[test]
fn a_saturated_slow_link_is_used_exactly_once_over_any_window() {
    // 1500-byte packets at 200 kbit/s take 60 ms each; windows opening 10..55 ms into a
    // packet used to read 1.003..1.034.
    for warmup_ms in [2000, 2010, 2020, 2030, 2040, 2050, 2055] {
        let out = run(&format!(
            r#"
            duration = "3s"
            warmup = "{warmup_ms}ms"
            [bottleneck]
            rate = "200kbps"
            delay = "1ms"
            buffer = 20
            [[flows]]
            count = 3
            tcp = {{ mss = 1460 }}
            "#
        ));
        let u = f(&out, "utilisation");
        assert!(u <= 1.0 + 1e-9, "warmup {warmup_ms} ms: utilisation {u}");
        assert!(u > 0.99, "warmup {warmup_ms} ms: a saturated link at {u}");
    }
}

/// Loss over the window is of the packets that were at the link in it: those that arrived in
/// the window and those already queued (or being sent) when it opened. At 1 kbit/s a packet
/// takes 12 s to send, so most packets dropped in a short window were queued before it; counting
/// only the window's arrivals read 2.64 for DualPI2 (29 drops over 11 arrivals).
#[test]
fn loss_rate_at_a_crawling_link_is_a_fraction_of_the_packets_present() {
    for qdisc in ["dualpi2", "fq_codel", "codel", "pie", "red", "droptail"] {
        for (duration, warmup, count) in [(10, 5, 10), (3, 2, 1), (40, 30, 4)] {
            let out = run(&format!(
                r#"
                duration = "{duration}s"
                warmup = "{warmup}s"
                [bottleneck]
                rate = "1kbps"
                delay = "1ms"
                buffer = 100
                qdisc = {{ kind = "{qdisc}" }}
                [[flows]]
                count = {count}
                "#
            ));
            let loss = f(&out, "loss_rate");
            assert!(
                (0.0..=1.0).contains(&loss),
                "{qdisc}, {duration} s after {warmup} s, {count} flows: loss rate {loss}"
            );
        }
    }
}

/// A scenario's extra `windows` are counted as the summary counts its own window: the one equal
/// to `[warmup, duration]` reads the summary's numbers, asking for windows leaves the rest of
/// the summary byte for byte as it was, and a window inside the run reads what a run ending at
/// the window's end, measured from its start, reads (the same run up to then).
#[test]
fn extra_windows_read_what_a_run_measured_over_them_reads() {
    for qdisc in ["red", "droptail"] {
        let base = format!(
            r#"
            duration = "12s"
            warmup = "4s"
            [bottleneck]
            rate = "4Mbps"
            delay = "10ms"
            buffer = 40
            qdisc = {{ kind = "{qdisc}" }}
            [[flows]]
            count = 6
            start = {{ uniform = ["0s", "1s"] }}
            [[flows]]
            count = 6
            start = {{ uniform = ["0s", "1s"] }}
            active = [["5s", "8s"]]
            "#
        );
        let plain = run(&base);
        let windows = base.replacen(
            "warmup = \"4s\"",
            "warmup = \"4s\"\n            windows = [[\"5s\", \"8s\"], [\"4s\", \"12s\"], [\"8s\", \"12s\"]]",
            1,
        );
        let out = run(&windows);
        let mut without = out.summary.clone();
        let w = without
            .as_object_mut()
            .unwrap()
            .remove("windows")
            .expect("a summary with windows");
        assert_eq!(
            without, plain.summary,
            "{qdisc}: windows changed the summary"
        );
        assert!(plain.summary.get("windows").is_none());
        let keys = [
            "utilisation",
            "loss_rate",
            "drops",
            "marks",
            "arrivals",
            "departures",
        ];
        for k in keys {
            assert_eq!(
                w[1][k], plain.summary[k],
                "{qdisc}: window [warmup, end] {k}"
            );
        }
        // The window [5 s, 8 s] against a run of 8 s measured from 5 s.
        let short = base
            .replacen("duration = \"12s\"", "duration = \"8s\"", 1)
            .replacen("warmup = \"4s\"", "warmup = \"5s\"", 1);
        let s = run(&short);
        for k in keys {
            assert_eq!(w[0][k], s.summary[k], "{qdisc}: window [5 s, 8 s] {k}");
        }
        assert!(f(&s, "loss_rate") > 0.0, "{qdisc}: a window that drops");
        assert_eq!(w[0]["start_s"], 5.0);
        assert_eq!(w[2]["end_s"], 12.0);
    }
}

#[test]
fn a_window_outside_the_run_is_refused_at_its_key() {
    let e = aqmlab_core::scenario::run::run_toml(
        r#"
        duration = "10s"
        windows = [["2s", "4s"], ["5s", "11s"]]
        [bottleneck]
        rate = "4Mbps"
        delay = "10ms"
        [[flows]]
        count = 1
        "#,
    )
    .err()
    .expect("a window past the end is refused");
    let text = e.to_string();
    assert!(text.contains("windows.1"), "{text}");
    assert!(text.contains("start < end <= duration"), "{text}");
}
