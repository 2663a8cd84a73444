//! The sans-IO bottleneck on simulated time: rate, delays, CE marking, classification,
//! conservation, sojourn bookkeeping, and parity of its decisions with `replay`.

use aqmlab_core::net::packet::Ecn;
use aqmlab_live::ip::{self, build::ipv4, PROTO_TCP, PROTO_UDP};
use aqmlab_live::trace::{self, check_parity};
use aqmlab_live::{Bottleneck, Config, Dir, LoopStats};
use serde_json::{json, Value};

fn config(extra: Value) -> Config {
    let mut v = json!({
        "dev_a": "ta", "dev_b": "tb",
        "rate_bps": 10_000_000, "buffer": 1000,
        "qdisc": {"kind": "droptail"},
        "seed": 3, "mean_pkt_bytes": 1000,
        "default_delay_ab_ns": 2_000_000, "default_delay_ba_ns": 3_000_000,
        "flows": [
            {"id": 0, "proto": "tcp", "a_port": 40000, "b_port": 5001,
             "delay_ab_ns": 15_000_000, "delay_ba_ns": 7_000_000},
            {"id": 7, "proto": "udp", "a_port": 40001, "b_port": 5002,
             "delay_ab_ns": 1_000_000, "delay_ba_ns": 1_000_000}
        ]
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    Config::from_json(&v.to_string()).unwrap()
}

/// A packet written: (time written, time due, direction, bytes).
type Out = (u64, u64, Dir, Vec<u8>);

/// Tiny deterministic generator for jitter and arrival patterns.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Drives `b` as the packet loop does: wake at the deadline it gives (plus up to `jitter_ns`
/// late), or at the next arrival, stamp every arrival due by then with the wake time, poll.
fn drive(
    b: &mut Bottleneck,
    arrivals: &[(u64, Dir, Vec<u8>)],
    end: u64,
    jitter_ns: u64,
) -> Vec<Out> {
    let mut outs = Vec::new();
    let mut rng = Lcg(99);
    let (mut now, mut i) = (0u64, 0usize);
    loop {
        let deadline = b.poll(now, &mut |d, p, due| outs.push((now, due, d, p.to_vec())));
        if now >= end {
            return outs;
        }
        let late = if jitter_ns > 0 {
            rng.next() % jitter_ns
        } else {
            0
        };
        let next_arrival = arrivals.get(i).map_or(u64::MAX, |a| a.0);
        now = (deadline + late).min(next_arrival).min(end).max(now);
        while i < arrivals.len() && arrivals[i].0 <= now {
            b.arrive(now, arrivals[i].1, &arrivals[i].2);
            i += 1;
        }
    }
}

fn tcp_ab(size: usize, ecn: u8) -> Vec<u8> {
    ipv4(size, PROTO_TCP, 40000, 5001, ecn, 64)
}

#[test]
fn departures_keep_the_rate_exactly() {
    let cfg = config(json!({}));
    let mut b = Bottleneck::new(&cfg, false);
    // 500 packets of 1500 B at once: 1.2 ms each at 10 Mbps, then 15 ms of propagation.
    let arrivals: Vec<_> = (0..500).map(|_| (0, Dir::AtoB, tcp_ab(1500, 0))).collect();
    let outs = drive(&mut b, &arrivals, 2_000_000_000, 300_000);
    assert_eq!(outs.len(), 500);
    for (k, o) in outs.iter().enumerate() {
        assert_eq!(o.1, (k as u64 + 1) * 1_200_000 + 15_000_000, "packet {k}");
        assert!(
            o.0 >= o.1 && o.0 < o.1 + 300_000,
            "written late by less than the jitter"
        );
    }
    let r = b.result(2_000_000_000, &LoopStats::default(), None);
    assert_eq!(r["link"]["busy_ns"], json!(600_000_000u64));
    assert_eq!(r["link"]["departure_bytes"], json!(750_000u64));
    // At 1 Gbps (8 ns per byte) the same holds to the nanosecond.
    let cfg = config(json!({"rate_bps": 1_000_000_000u64}));
    let mut b = Bottleneck::new(&cfg, false);
    let outs = drive(&mut b, &arrivals, 100_000_000, 50_000);
    assert_eq!(outs.last().unwrap().1, 500 * 12_000 + 15_000_000);
}

#[test]
fn each_flow_and_direction_gets_its_delay() {
    let cfg = config(json!({"reverse_rate_bps": 1_000_000}));
    let mut b = Bottleneck::new(&cfg, false);
    let udp_ab = ipv4(1000, PROTO_UDP, 40001, 5002, 0, 64);
    let ack_ba = ipv4(100, PROTO_TCP, 5001, 40000, 0, 64);
    let icmp = ipv4(84, 1, 0, 0, 0, 64);
    let arrivals = vec![
        (1_000_000, Dir::AtoB, tcp_ab(1000, 0)),
        (50_000_000, Dir::AtoB, udp_ab),
        (100_000_000, Dir::BtoA, ack_ba.clone()),
        (100_000_000, Dir::BtoA, ack_ba),
        (200_000_000, Dir::AtoB, icmp.clone()),
        (300_000_000, Dir::BtoA, icmp),
    ];
    let outs = drive(&mut b, &arrivals, 1_000_000_000, 0);
    let due: Vec<(u64, Dir)> = outs.iter().map(|o| (o.1, o.2)).collect();
    assert_eq!(
        due,
        vec![
            (1_000_000 + 800_000 + 15_000_000, Dir::AtoB), // tcp: tx 0.8 ms + 15 ms
            (50_000_000 + 800_000 + 1_000_000, Dir::AtoB), // udp flow 7: 1 ms
            (100_000_000 + 800_000 + 7_000_000, Dir::BtoA), // ACK: 100 B at 1 Mbps, then 7 ms
            (100_000_000 + 1_600_000 + 7_000_000, Dir::BtoA), // the second waits for the first
            (200_000_000 + 67_200 + 2_000_000, Dir::AtoB), // ICMP: default delays
            (300_000_000 + 672_000 + 3_000_000, Dir::BtoA),
        ]
    );
    let r = b.result(1_000_000_000, &LoopStats::default(), None);
    assert_eq!(r["flows"]["id"], json!([0, 7]));
    assert_eq!(r["flows"]["arrivals"], json!([1, 1]));
    assert_eq!(r["flows"]["pkts_ab"], json!([1, 1]));
    assert_eq!(r["flows"]["bytes_ab"], json!([1000, 1000]));
    assert_eq!(r["flows"]["pkts_ba"], json!([2, 0]));
    assert_eq!(r["other"]["arrivals"], json!(1));
    assert_eq!(r["other"]["pkts_ba"], json!(1));
    assert_eq!(r["link"]["arrivals"], json!(3));
}

/// Port pairs decide the flow: swapped or unknown ports, and non-IP bytes, are "other".
#[test]
fn classification_by_ports_and_direction() {
    let cfg = config(json!({}));
    let mut b = Bottleneck::new(&cfg, false);
    let pkts = [
        (Dir::AtoB, ipv4(500, PROTO_TCP, 40000, 5001, 0, 64)), // flow 0
        (Dir::AtoB, ipv4(500, PROTO_TCP, 5001, 40000, 0, 64)), // reversed on a: other
        (Dir::AtoB, ipv4(500, PROTO_UDP, 40000, 5001, 0, 64)), // wrong proto: other
        (Dir::AtoB, ipv4(500, PROTO_UDP, 40001, 5002, 0, 64)), // flow 7
        (Dir::AtoB, vec![0x20; 77]),                           // not IP: other
        (Dir::BtoA, ipv4(60, PROTO_TCP, 5001, 40000, 0, 64)),  // flow 0's ACK
        (Dir::BtoA, ipv4(60, PROTO_TCP, 40000, 5001, 0, 64)),  // not swapped: other
    ];
    for (i, (d, p)) in pkts.iter().enumerate() {
        b.arrive(i as u64 * 10_000_000, *d, p);
    }
    let r = b.result(100_000_000, &LoopStats::default(), None);
    assert_eq!(r["flows"]["arrivals"], json!([1, 1]));
    assert_eq!(r["flows"]["pkts_ba"], json!([1, 0]));
    assert_eq!(r["other"]["arrivals"], json!(3));
    assert_eq!(r["other"]["pkts_ba"], json!(1));
    assert_eq!(r["link"]["arrival_bytes"], json!(500 * 4 + 77));
}

/// RED with ECN marks ECT packets: they leave with CE and a header checksum equal to a full
/// recompute; Not-ECT packets are dropped instead; the counts agree with the qdisc's.
#[test]
fn marks_write_ce_with_a_valid_checksum() {
    let cfg = config(json!({
        "qdisc": {"kind": "red", "min_th": 2, "max_th": 400, "max_p": 0.5, "w_q": 0.5,
                  "ecn": true, "gentle": false},
        "buffer": 500
    }));
    let mut b = Bottleneck::new(&cfg, false);
    let mut arrivals = Vec::new();
    for k in 0..400u64 {
        // ECT(0), ECT(1) and Not-ECT in turn, TTL varied so checksums differ.
        let ecn = [0b10, 0b01, 0b00][k as usize % 3];
        let p = ipv4(1000, PROTO_TCP, 40000, 5001, ecn, (k % 250) as u8 + 1);
        arrivals.push((k * 400_000, Dir::AtoB, p)); // twice the link's rate
    }
    let outs = drive(&mut b, &arrivals, 2_000_000_000, 100_000);
    let r = b.result(2_000_000_000, &LoopStats::default(), None);
    let marks = r["link"]["marks"]["early"].as_u64().unwrap();
    let early_drops = r["link"]["drops"]["early"].as_u64().unwrap();
    assert!(
        marks > 10 && early_drops > 5,
        "marks {marks}, drops {early_drops}"
    );
    let mut ce = 0;
    for (_, _, _, p) in &outs {
        let h = ip::parse(p);
        let sum = u16::from_be_bytes([p[10], p[11]]);
        assert_eq!(sum, ip::ipv4_header_checksum(&p[..20]));
        if h.ecn == Ecn::Ce {
            ce += 1;
        }
    }
    assert_eq!(ce, marks);
    assert_eq!(outs.len() as u64, r["link"]["departures"].as_u64().unwrap());
}

/// Every packet read is written, dropped or still held, under overload with jitter, for a
/// single-queue AQM and a multi-queue scheduler that pushes packets out.
#[test]
fn packets_are_conserved() {
    for qdisc in [
        json!({"kind": "red"}),
        json!({"kind": "fq_codel"}),
        json!({"kind": "pie"}),
    ] {
        let cfg = config(json!({"qdisc": qdisc, "buffer": 40}));
        let mut b = Bottleneck::new(&cfg, false);
        let mut rng = Lcg(5);
        let mut t = 0;
        let mut arrivals = Vec::new();
        for k in 0..3000u64 {
            t += rng.next() % 1_200_000; // mean 0.6 ms: 1.33x the rate for 1000 B
            let port = 40000 + (k % 3) as u16;
            arrivals.push((t, Dir::AtoB, ipv4(1000, PROTO_TCP, port, 5001, 0, 64)));
            if k % 4 == 0 {
                arrivals.push((t, Dir::BtoA, ipv4(52, PROTO_TCP, 5001, 40000, 0, 64)));
            }
        }
        let end = t / 2; // stop mid-run: packets still queued and in flight
        let outs = drive(&mut b, &arrivals, end, 200_000);
        let read_ab = arrivals
            .iter()
            .filter(|a| a.0 <= end && a.1 == Dir::AtoB)
            .count() as u64;
        let read_ba = arrivals
            .iter()
            .filter(|a| a.0 <= end && a.1 == Dir::BtoA)
            .count() as u64;
        let st = b.stats();
        assert_eq!(st.arrivals, read_ab);
        assert!(st.conserved(b.backlog()), "{qdisc}");
        assert!(st.drops() > 0, "{qdisc}: overload drops");
        let written_ab = outs.iter().filter(|o| o.2 == Dir::AtoB).count() as u64;
        let written_ba = outs.iter().filter(|o| o.2 == Dir::BtoA).count() as u64;
        // Held = queued + being sent or propagating (a→b) + propagating (b→a).
        let in_flight = b.packets_held() as u64 - b.backlog() as u64;
        assert_eq!(
            read_ab + read_ba,
            written_ab + written_ba + st.drops() + b.backlog() as u64 + in_flight,
            "{qdisc}"
        );
        assert_eq!(
            st.dequeued,
            written_ab + (in_flight - (read_ba - written_ba)),
            "{qdisc}"
        );
    }
}

/// Sojourn times are recorded per departing packet (start of transmission − arrival), and on a
/// saturated link their mean equals the time-average queue in bytes over the rate (Little).
#[test]
fn sojourns_match_the_queue_over_the_rate() {
    let cfg = config(json!({}));
    let mut b = Bottleneck::new(&cfg, false);
    // Ten packets of 1000 B at once: they start at 0, 0.8, …, 7.2 ms.
    let arrivals: Vec<_> = (0..10).map(|_| (0, Dir::AtoB, tcp_ab(1000, 0))).collect();
    drive(&mut b, &arrivals, 100_000_000, 0);
    let r = b.result(100_000_000, &LoopStats::default(), None);
    assert_eq!(r["sojourn_ms"]["n"], json!(10));
    assert!((r["sojourn_ms"]["mean"].as_f64().unwrap() - 3.6).abs() < 1e-9);
    assert!(
        (r["sojourn_ms"]["p50"].as_f64().unwrap() - 3.205).abs() < 1e-9,
        "{r}"
    );
    // Waiting queue: 9 packets for 0.8 ms, 8 for 0.8 ms, … = 45 × 0.8 ms = 36 packet·ms of
    // 1000 B over a 100 ms window.
    let check = &r["sojourn_check"];
    let want_ms = 36e-3 * 1000.0 * 8.0 / 10e6 / 0.1 * 1e3;
    let got = check["mean_queue_bytes_over_rate_ms"].as_f64().unwrap();
    assert!((got - want_ms).abs() < 1e-9, "{got} vs {want_ms}");
    // A long saturated run: a steady arrival rate above the link's keeps it busy; then mean
    // sojourn = mean queue / rate to within one packet's time.
    let mut b = Bottleneck::new(
        &config(json!({"buffer": 50, "warmup_ns": 1_000_000_000u64})),
        false,
    );
    let arrivals: Vec<_> = (0..20_000u64)
        .map(|k| (k * 700_000, Dir::AtoB, tcp_ab(1000, 0)))
        .collect();
    let end = 12_000_000_000;
    drive(&mut b, &arrivals, end, 400_000);
    let r = b.result(end, &LoopStats::default(), None);
    let c = &r["sojourn_check"];
    let (s, q) = (
        c["mean_sojourn_ms"].as_f64().unwrap(),
        c["mean_queue_bytes_over_rate_ms"].as_f64().unwrap(),
    );
    assert!(s > 30.0, "a standing queue of ~50 packets: {s} ms");
    assert!((s - q).abs() < 0.8, "sojourn {s} ms vs queue/rate {q} ms");
    assert!(r["link"]["utilisation"].as_f64().unwrap() > 0.999);
}

/// The trace of a jittery RED run (ECN mixed), replayed with the same seed, gives the same
/// decision for every call; so does PIE's, whose control law runs on timers, and CoDel's,
/// which decides at dequeue. The CSV form carries the same records.
#[test]
fn replay_of_the_trace_makes_the_same_decisions() {
    for qdisc in [
        json!({"kind": "red", "min_th": 5, "max_th": 15, "ecn": true}),
        json!({"kind": "pie", "ecn": true}),
        json!({"kind": "codel", "ecn": true}),
        json!({"kind": "fq_codel"}),
    ] {
        let cfg = config(json!({"qdisc": qdisc, "buffer": 60}));
        let mut b = Bottleneck::new(&cfg, true);
        let mut rng = Lcg(11);
        let mut t = 0;
        let mut arrivals = Vec::new();
        for k in 0..6000u64 {
            // Bursty: gaps of 0..1 ms (1.4x the rate), with a pause every 500 packets.
            t += rng.next() % 1_000_000 + if k % 500 == 0 { 80_000_000 } else { 0 };
            let ecn = [0b10, 0b00, 0b01, 0b10][(rng.next() % 4) as usize];
            let size = 200 + (rng.next() % 1300) as usize;
            let port = 40000 + (k % 2) as u16;
            arrivals.push((t, Dir::AtoB, ipv4(size, PROTO_TCP, port, 5001, ecn, 64)));
        }
        drive(&mut b, &arrivals, t + 1_000_000_000, 250_000);
        let recs = b.drain_trace();
        let p = check_parity(
            &cfg.qdisc,
            cfg.buffer,
            cfg.seed,
            cfg.rate_bps,
            cfg.mean_pkt_bytes,
            &recs,
        )
        .unwrap();
        assert_eq!(p.mismatches, 0, "{qdisc}: {:?}", p.first_mismatch);
        assert!(
            p.signals > 50,
            "{qdisc}: decisions that were not passes: {}",
            p.signals
        );
        let mut csv = format!("{}\n", trace::HEADER).into_bytes();
        for r in &recs {
            trace::write_row(&mut csv, r).unwrap();
        }
        assert_eq!(trace::read(&csv[..]).unwrap(), recs);
        // A different seed makes RED's random decisions differ: the check can fail.
        if cfg.qdisc.kind() == "red" {
            let q = check_parity(
                &cfg.qdisc,
                cfg.buffer,
                4,
                cfg.rate_bps,
                cfg.mean_pkt_bytes,
                &recs,
            )
            .unwrap();
            assert!(q.mismatches > 0);
        }
    }
}
