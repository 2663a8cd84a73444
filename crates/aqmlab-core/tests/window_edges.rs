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
