//! The FIFO-arithmetic link model (used for every lossless DropTail link but the bottleneck)
//! against the queued model (qdisc + transmitter events) on a scenario where the access link is
//! itself congested: 12 flows share one 2 Mbps host link with a 20-packet buffer in front of a
//! 10 Mbps bottleneck, so the access queue fills and overflows.

mod common;
use aqmlab_core::scenario::run::{EngineOptions, Simulator};
use aqmlab_core::scenario::Scenario;
use common::*;

const CONGESTED_ACCESS: &str = r#"
    duration = "30s"
    warmup = "5s"
    [bottleneck]
    rate = "10Mbps"
    delay = "10ms"
    buffer = 50
    [[flows]]
    count = 12
    hosts = 1
    access_rate = "2Mbps"
    access_buffer = ACCESS_BUFFER
    access_delay = "15ms"
    start = { uniform = ["0s", "1s"] }
"#;

/// Both buffer units: a byte limit makes the arithmetic model sum the sizes of the packets still
/// waiting in its pipe, a packet limit only counts them.
#[test]
fn arithmetic_fifo_equals_queued_fifo() {
    for buffer in ["20", "\"21000B\""] {
        equal_models(&CONGESTED_ACCESS.replace("ACCESS_BUFFER", buffer));
    }
}

fn equal_models(toml: &str) {
    let s = Scenario::from_toml_str(toml).unwrap();
    let fast = Simulator::with_options(
        &s,
        EngineOptions {
            arithmetic_fifo: true,
        },
    )
    .finish();
    let slow = Simulator::with_options(
        &s,
        EngineOptions {
            arithmetic_fifo: false,
        },
    )
    .finish();
    assert_conserved(&fast);
    assert_conserved(&slow);
    let roles = roles(&fast);
    let access = roles.iter().position(|r| r == "access.0").unwrap();
    let drops = col_i64(&fast.links, "drops")[access];
    assert!(
        drops > 100,
        "the access link should overflow, dropped only {drops}"
    );
    for c in ["arrivals", "dequeued", "drops", "tx_bytes"] {
        assert_eq!(
            col_i64(&fast.links, c),
            col_i64(&slow.links, c),
            "column {c}"
        );
    }
    assert_eq!(fast.summary_json, slow.summary_json);
    assert!(
        fast.events < slow.events,
        "arithmetic mode should need fewer events"
    );
}
