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
