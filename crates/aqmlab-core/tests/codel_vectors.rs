//! CoDel against ns-3.44's CoDelQueueDisc, call by call.
//!
//! `tests/data/ns3_red_public.json` (a byte-identical copy of `shared/vectors/`) holds, in case
//! `codel_dyn`, every Enqueue()/Dequeue() call ns-3 made in a 7.5 s run (one 1000 B packet per ms,
//! dequeues on a clock whose period alternates 1.2 ms / 0.8 ms, a 200 ms stall), the packets
//! delivered and dropped by each dequeue and CoDel's state after each call, read from the live
//! ns-3 object. We make the same calls in the same order on our `codel` qdisc (packet id = arrival
//! index) and require identical actions and identical state after every call.

use aqmlab_core::aqm::{AqmConfig, BuildContext, Reason};
use aqmlab_core::net::packet::Packet;
use aqmlab_core::qdisc::{BufferLimit, Outcome};
use aqmlab_core::rng::SimRng;
use aqmlab_core::time::SimTime;
use serde_json::Value;

fn load_case(name: &str) -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ns3_red_public.json"
    );
    let text = std::fs::read_to_string(path).expect("vector file");
    let mut all: Value = serde_json::from_str(&text).expect("valid JSON");
    all["cases"][name].take()
}

fn probes(q: &dyn aqmlab_core::qdisc::Qdisc) -> std::collections::HashMap<&'static str, f64> {
    let mut m = std::collections::HashMap::new();
    q.probe(&mut |k, v| {
        m.insert(k, v);
    });
    m
}

#[test]
fn codel_matches_ns3_call_by_call() {
    let case = load_case("codel_dyn");
    assert_eq!(case["qdisc"], "ns3::CoDelQueueDisc");
    // Attributes: defaults (Target 5 ms, Interval 100 ms, MinBytes 1500, no ECN), MaxSize 100000p.
    let eff = &case["attributes_effective"];
    assert_eq!(eff["Target"], "+5e+06ns");
    assert_eq!(eff["Interval"], "+1e+08ns");
    assert_eq!(eff["MinBytes"], "1500");
    assert_eq!(eff["UseEcn"], "false");
    let cfg = AqmConfig::from_table(toml::from_str("kind = 'codel'").unwrap()).unwrap();
    let ctx = BuildContext {
        limit: BufferLimit::Packets(100_000),
        link_rate_bps: 8_000_000,
        mean_pkt_bytes: 1000,
        flows: &[],
        seed: 1,
    };
    let mut q = cfg.build(&ctx);
    let mut rng = SimRng::new(1, 0);

    let events = case["events"].as_array().unwrap();
    let (mut n_enq, mut n_deq_calls, mut n_dropped, mut n_delivered) = (0u64, 0u64, 0u64, 0u64);
    let mut arrival_time = Vec::new();
    for ev in events {
        let row = ev.as_array().unwrap();
        let kind = row[0].as_str().unwrap();
        let seq = row[1].as_u64().unwrap();
        let t = SimTime(row[2].as_u64().unwrap());
        let pkt_idx = row[3].as_i64().unwrap();
        let qlen_before = row[if kind == "A" { 6 } else { 5 }].as_u64().unwrap();
        assert_eq!(
            q.len_pkts() as u64,
            qlen_before,
            "event {seq}: queue length before"
        );
        match kind {
            "A" => {
                let size = row[4].as_u64().unwrap() as u32;
                assert_eq!(pkt_idx as usize, arrival_time.len());
                arrival_time.push(t);
                let p = Packet {
                    id: pkt_idx as u64,
                    size_bytes: size,
                    ..Default::default()
                };
                let out = q.enqueue(t, p, &mut rng);
                let expect = match row[5].as_str().unwrap() {
                    "enq" => Outcome::Enqueued,
                    "L" => Outcome::Dropped(Reason::Overflow),
                    other => panic!("unexpected action {other}"),
                };
                assert_eq!(out, expect, "event {seq} (arrival {pkt_idx})");
                n_enq += 1;
            }
            "D" => {
                n_deq_calls += 1;
                let mut dropped = Vec::new();
                let got = q.dequeue(t, &mut rng, &mut |p, r| {
                    assert_eq!(r, Reason::Sojourn);
                    dropped.push(p.id as i64);
                });
                let want_dropped: Vec<i64> = row[4]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect();
                assert_eq!(dropped, want_dropped, "event {seq} at {t}: dropped packets");
                assert_eq!(
                    got.as_ref().map_or(-1, |p| p.id as i64),
                    pkt_idx,
                    "event {seq} at {t}: delivered packet"
                );
                n_dropped += dropped.len() as u64;
                if let Some(p) = &got {
                    n_delivered += 1;
                    let sojourn = t.0 - arrival_time[p.id as usize].0;
                    assert_eq!(Some(sojourn), row[7].as_u64(), "event {seq}: sojourn");
                }
                let pr = probes(q.as_ref());
                for (col, key) in [
                    (8, "count"),
                    (9, "last_count"),
                    (10, "dropping"),
                    (11, "drop_next"),
                    (12, "first_above_time"),
                    (13, "rec_inv_sqrt"),
                ] {
                    assert_eq!(
                        pr[key],
                        row[col].as_u64().unwrap() as f64,
                        "event {seq} at {t}: {key}"
                    );
                }
            }
            other => panic!("unknown event kind {other}"),
        }
        assert!(q.stats().conserved(q.len_pkts()));
    }
    assert_eq!(n_enq, case["n_arrivals"].as_u64().unwrap());
    assert_eq!(n_deq_calls, case["n_dequeue_calls"].as_u64().unwrap());
    assert_eq!(n_dropped, case["n_dequeue_drops"].as_u64().unwrap());
    assert_eq!(n_delivered, case["n_delivered"].as_u64().unwrap());
    let st = q.stats();
    assert_eq!(
        st.dropped_after_dequeue[Reason::Sojourn as usize],
        case["ns3_stats"]["target_exceeded_drop"].as_u64().unwrap()
    );
    assert_eq!(
        st.dropped_before_enqueue[Reason::Overflow as usize],
        case["ns3_stats"]["overlimit_drop"].as_u64().unwrap()
    );
}
