use super::super::trace::TraceEvent;
use super::super::wire::{Fate, Wire};
use super::super::{TcpModel, Variant};
use super::*;
use crate::rng::SimRng;

fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}
fn at(x: u64) -> SimTime {
    SimTime(x * 1_000_000)
}

// ---------------------------------------------------------------- window growth

#[test]
fn slow_start_doubles_per_rtt() {
    // RTT 100 ms, no bottleneck: each round's window leaves at one instant, k·RTT.
    let mut w = Wire::new(&TcpConfig::default(), ms(50));
    w.start(None);
    w.run_until(at(550));
    for k in 0..6u64 {
        assert_eq!(w.sent_at(at(100 * k)), 2 << k, "round {k}");
    }
    // initial_window 2, doubled five times.
    assert_eq!(w.sender.cwnd(), 64.0);
    assert_eq!(w.sender.ssthresh(), None);
    assert_eq!(w.sender.stats().retransmits, 0);
}

#[test]
fn congestion_avoidance_adds_about_one_per_rtt() {
    let cfg = TcpConfig {
        initial_ssthresh: 8,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    // Slow start 2 -> 4 -> 8 (rounds at 100 and 200 ms), CA from the ACKs at 300 ms on.
    w.run_until(at(250));
    assert_eq!(w.sender.cwnd(), 8.0);
    let mut prev = w.sender.cwnd();
    let rounds = 20;
    for k in 3..3 + rounds {
        w.run_until(at(100 * k + 50));
        let c = w.sender.cwnd();
        // ⌊c⌋ ACKs per round, each adding 1/cwnd: between ⌊c⌋/(c+1) and 1.
        let inc = c - prev;
        assert!(
            inc > prev.floor() / (prev + 1.0) - 1e-9 && inc <= 1.0,
            "round {k}: {prev} -> {c}"
        );
        prev = c;
    }
    let total = w.sender.cwnd() - 8.0;
    assert!(
        (total - rounds as f64).abs() < 0.1 * rounds as f64,
        "{total}"
    );
}

#[test]
fn receiver_window_caps_the_flight() {
    let cfg = TcpConfig {
        max_window: 6,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    let mut max_flight = 0;
    while w.step(at(2_000)) {
        max_flight = max_flight.max(w.sender.snd_max() - w.sender.snd_una());
    }
    assert_eq!(max_flight, 6);
    // 6 segments per 100 ms RTT.
    let d = w.receiver.delivered_segments();
    assert!((114..=120).contains(&d), "{d}");
}

// ---------------------------------------------------------------- loss recovery

/// Steps until `end`, checking the fast-recovery entry and exit against RFC 5681:
/// returns the ssthresh set at entry.
/// Steps `w` to `end`, checking each entry into and exit from fast recovery against the
/// sender's model: RFC 5681 (`ssthresh = flight/2`, leave with `cwnd = ssthresh`) or ns-2
/// (`ssthresh = ⌊W/2⌋` of the window, leave with `W/2` opened once by `1/(W/2)` for
/// Reno/NewReno, or just `W/2` for SACK; `W/2` is fractional, so between `ssthresh` and
/// `ssthresh + 2`).
fn run_checking_recovery(w: &mut Wire, end: SimTime, model: TcpModel) -> Option<u64> {
    let mut entered = None;
    loop {
        let flight_before = w.sender.snd_nxt() - w.sender.snd_una();
        let cwnd_before = w.sender.cwnd();
        let frs_before = w.sender.stats().fast_retransmits;
        let was_in = w.sender.in_recovery();
        if !w.step(end) {
            break;
        }
        if w.sender.stats().fast_retransmits > frs_before {
            let ss = w.sender.ssthresh().unwrap();
            let basis = match model {
                TcpModel::Rfc => flight_before,
                TcpModel::Ns2 => cwnd_before.floor() as u64,
            };
            assert_eq!(ss, (basis / 2).max(2));
            assert!(w.sender.in_recovery());
            entered.get_or_insert(ss);
        }
        if was_in && !w.sender.in_recovery() && w.sender.stats().timeouts == 0 {
            let (ss, cwnd) = (w.sender.ssthresh().unwrap() as f64, w.sender.cwnd());
            match model {
                TcpModel::Rfc => assert_eq!(cwnd, ss, "deflate to ssthresh on leaving"),
                TcpModel::Ns2 => assert!(ss <= cwnd && cwnd < ss + 2.0, "{ss} {cwnd}"),
            }
        }
    }
    entered
}

fn single_loss(variant: Variant) {
    let cfg = TcpConfig {
        variant,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.drop_first_tx_of(&[100]);
    w.start(None);
    // Watch the entry closely: cwnd = ssthresh + 3 right after the third dup ACK.
    let mut checked_inflation = false;
    while w.step(at(3_000)) {
        if w.sender.stats().fast_retransmits == 1 && !checked_inflation {
            let ss = w.sender.ssthresh().unwrap();
            assert_eq!(w.sender.cwnd(), (ss + 3) as f64);
            checked_inflation = true;
            break;
        }
    }
    assert!(checked_inflation);
    let ss = w.sender.ssthresh().unwrap();
    // The loss happened in CA with a window of about 18-20 segments.
    assert!((8..=11).contains(&ss), "{ss}");
    run_checking_recovery(&mut w, at(3_000), cfg.model);
    let s = w.sender.stats();
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.retransmits, 1);
    assert_eq!(w.sent.iter().filter(|p| p.seq == 100).count(), 2);
    assert!(!w.sender.in_recovery());
    let d = w.receiver.delivered_segments();
    assert!(d >= w.sender.snd_una() && d <= w.sender.snd_max());
}

/// CUBIC leaves fast recovery at β_cubic·W (RFC 9438 §4.6), not at Reno's halving, under
/// both models and every recovery variant.
#[test]
fn cubic_leaves_recovery_at_beta_times_the_window() {
    for model in [TcpModel::Rfc, TcpModel::Ns2] {
        for variant in [Variant::Reno, Variant::NewReno, Variant::Sack] {
            let cfg = TcpConfig {
                variant,
                model,
                cc: congestion::CongestionControl::Cubic,
                initial_ssthresh: 40,
                ..TcpConfig::default()
            };
            let mut w = Wire::new(&cfg, ms(50));
            w.drop_first_tx_of(&[300]);
            w.start(None);
            let mut before = 0.0;
            let mut exit = None;
            loop {
                let was_in = w.sender.in_recovery();
                let cwnd = w.sender.cwnd();
                if !w.step(at(10_000)) {
                    break;
                }
                if !was_in && w.sender.in_recovery() {
                    before = cwnd;
                }
                if was_in && !w.sender.in_recovery() {
                    exit = Some(w.sender.cwnd());
                    break;
                }
            }
            let exit = exit.expect("left recovery");
            let want = before * congestion::cubic::BETA;
            assert!(before > 30.0, "{model:?} {variant:?}: W = {before}");
            assert!(
                (exit - want).abs() <= 1.0,
                "{model:?} {variant:?}: left recovery at {exit}, β·W = {want} (W = {before})"
            );
            assert_eq!(w.sender.stats().timeouts, 0);
        }
    }
}

#[test]
fn single_loss_one_fast_retransmit_reno() {
    single_loss(Variant::Reno);
}

#[test]
fn single_loss_one_fast_retransmit_newreno() {
    single_loss(Variant::NewReno);
}

fn three_losses(variant: Variant) -> SenderStats {
    let cfg = TcpConfig {
        variant,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    // RTT 60 ms: three holes take three RTTs, well inside one (200 ms minimum) RTO.
    let mut w = Wire::new(&cfg, ms(30));
    w.drop_first_tx_of(&[100, 102, 104]);
    w.start(None);
    run_checking_recovery(&mut w, at(3_000), cfg.model);
    let d = w.receiver.delivered_segments();
    assert!(d >= w.sender.snd_una() && d <= w.sender.snd_max());
    assert!(d > 300);
    w.sender.stats().clone()
}

#[test]
fn newreno_recovers_three_losses_without_timeout() {
    let s = three_losses(Variant::NewReno);
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.partial_acks, 2);
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.retransmits, 3);
}

#[test]
fn reno_times_out_on_three_losses() {
    // Reno leaves recovery on the first (partial) ACK; the duplicate ACKs for the second
    // hole belong to the window already reduced for, so ns-2's bug_fix_ suppresses a
    // second fast retransmit and the timer recovers the rest.
    let s = three_losses(Variant::Reno);
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.partial_acks, 0);
    assert_eq!(s.timeouts, 1);
}

/// Steps a Tahoe sender until its first fast retransmit. Returns the flight just before it and
/// the segments that step sent.
fn tahoe_until_fast_retransmit(w: &mut Wire) -> (u64, Vec<u64>) {
    loop {
        let flight = w.sender.snd_nxt() - w.sender.snd_una();
        let n_sent = w.sent.len();
        assert!(w.step(at(3_000)), "no fast retransmit");
        if w.sender.stats().fast_retransmits == 1 {
            return (flight, w.sent[n_sent..].iter().map(|p| p.seq).collect());
        }
    }
}

#[test]
fn tahoe_single_loss_closes_the_window_to_one_and_slow_starts() {
    let cfg = TcpConfig {
        variant: Variant::Tahoe,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.drop_first_tx_of(&[100]);
    w.start(None);
    let (flight, resent) = tahoe_until_fast_retransmit(&mut w);
    // ns-2 `tahoe_action`: ssthresh halved, cwnd = 1, only the hole goes out; no fast
    // recovery (Reno would be at ssthresh + 3 here, inflating).
    let ss = w.sender.ssthresh().unwrap();
    assert_eq!(ss, (flight / 2).max(2));
    assert!((8..=11).contains(&ss), "{ss}");
    assert_eq!(w.sender.cwnd(), 1.0);
    assert!(!w.sender.in_recovery());
    assert_eq!(resent, vec![100]);
    // The later duplicate ACKs of that window send nothing and do not cut again.
    let una = w.sender.snd_una();
    let n_sent = w.sent.len();
    loop {
        let before = w.sent.len();
        assert!(w.step(at(3_000)));
        if w.sender.snd_una() != una {
            assert_eq!(before, n_sent, "nothing sent on the later duplicate ACKs");
            assert_eq!(w.sent.len() - before, 2, "cwnd 2 after the ACK of the hole");
            break;
        }
    }
    // The ACK of the resent hole covers the whole window the receiver buffered and opens the
    // window in slow start: 1 -> 2.
    assert!(w.sender.snd_una() > 110, "{}", w.sender.snd_una());
    assert_eq!(w.sender.cwnd(), 2.0);
    // Slow start up to ssthresh (one more segment per ACK), then congestion avoidance.
    w.run_until(at(3_000));
    let s = w.sender.stats();
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.retransmits, 1);
    assert_eq!(w.sent.iter().filter(|p| p.seq == 100).count(), 2);
    assert!(w.sender.cwnd() > ss as f64);
    let d = w.receiver.delivered_segments();
    assert!(d >= w.sender.snd_una() && d <= w.sender.snd_max());
}

/// Three holes in one window: Tahoe repairs them by one cut and a go-back-N slow start,
/// resending the segments after each hole that the receiver already holds; no timeout (Reno
/// times out here, `reno_times_out_on_three_losses`).
#[test]
fn tahoe_recovers_three_losses_by_slow_start_without_timeout() {
    let cfg = TcpConfig {
        variant: Variant::Tahoe,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(30));
    w.drop_first_tx_of(&[100, 102, 104]);
    w.start(None);
    tahoe_until_fast_retransmit(&mut w);
    let ss = w.sender.ssthresh();
    w.run_until(at(3_000));
    let s = w.sender.stats();
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.timeouts, 0);
    assert_eq!(w.sender.ssthresh(), ss, "one cut for the window");
    // 100; then 102 and 103 (cwnd 2); then 104, 105, 106 (cwnd 3): 103 was resent needlessly,
    // the ACK of 104 passes 105 and 106 only after they left.
    let resent: Vec<u64> = w
        .sent
        .iter()
        .filter(|p| w.sent.iter().filter(|q| q.seq == p.seq).count() > 1)
        .map(|p| p.seq)
        .collect();
    let mut once = resent.clone();
    once.dedup();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once, vec![100, 102, 103, 104, 105, 106], "{resent:?}");
    assert_eq!(s.retransmits, 6);
    let d = w.receiver.delivered_segments();
    assert!(d >= w.sender.snd_una() && d <= w.sender.snd_max());
    assert!(d > 300);
}

/// Runs a NewReno/Reno sender whose fast retransmission of segment 100 is lost too, so that it
/// times out with holes at 100-103 and 110 and everything else held by the receiver. Returns
/// its counters and how many duplicate ACKs arrived, after the timeout, acknowledging exactly
/// `recover` (the go-back-N resends of segments the receiver held).
fn timeout_then_resends_below_recover(variant: Variant) -> (SenderStats, u64) {
    let cfg = TcpConfig {
        variant,
        initial_ssthresh: 32,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    let mut tx = std::collections::HashMap::<u64, u32>::new();
    w.fate = Box::new(move |p, _| {
        let n = tx.entry(p.seq).or_insert(0);
        *n += 1;
        match (p.seq, *n) {
            (100, 1 | 2) | (101..=103 | 110, 1) => Fate::Drop,
            _ => Fate::Pass,
        }
    });
    w.start(None);
    let mut dupacks_at_recover = 0;
    while w.step(at(6_000)) {
        let c = &w.sender.conn;
        if c.stats.timeouts == 1 && c.snd_una == c.recover {
            dupacks_at_recover = dupacks_at_recover.max(u64::from(c.dupacks));
        }
    }
    assert_eq!(w.receiver.delivered_segments(), w.sender.snd_una());
    (w.sender.stats().clone(), dupacks_at_recover)
}

#[test]
fn rfc6582_dupacks_not_covering_more_than_recover_start_no_fast_retransmit() {
    // RFC 6582 §3.2 step 1 and §4: after the timeout, go-back-N resends segments the receiver
    // already holds; once the hole below them is filled, each resend draws a duplicate ACK of
    // exactly `recover` (the highest segment sent before the timeout). Those do not "cover
    // more than recover" and must not start a fast retransmit (ns-2 and Linux agree).
    for variant in [Variant::NewReno, Variant::Reno] {
        let (s, dupacks) = timeout_then_resends_below_recover(variant);
        assert_eq!(s.timeouts, 1, "{variant:?}");
        assert!(
            dupacks >= 3,
            "{variant:?}: {dupacks} duplicate ACKs of recover"
        );
        assert_eq!(
            s.fast_retransmits, 1,
            "{variant:?}: only the one before the timeout"
        );
    }
}

#[test]
fn rfc6582_dupacks_covering_more_than_recover_start_a_fast_retransmit() {
    // The same gate lets a new loss through: one segment lost after `recover`, whose
    // duplicate ACKs acknowledge beyond it, is retransmitted fast.
    for variant in [Variant::NewReno, Variant::Reno] {
        let cfg = TcpConfig {
            variant,
            initial_ssthresh: 16,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(50));
        w.drop_first_tx_of(&[100, 200]);
        w.start(None);
        w.run_until(at(6_000));
        let s = w.sender.stats();
        assert_eq!((s.fast_retransmits, s.timeouts), (2, 0), "{variant:?}");
    }
}

#[test]
fn sack_recovers_three_losses_in_one_round_trip() {
    let s = three_losses(Variant::Sack);
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.retransmits, 3, "each hole once, nothing SACKed resent");
}

#[test]
fn sack_repairs_a_burst_of_losses_with_the_pipe_within_cwnd() {
    // Eight holes in one window of about 20: NewReno finds one hole per round trip (one per
    // partial ACK); SACK retransmits every hole within the first round trip of recovery.
    let holes: Vec<u64> = (0..8).map(|k| 100 + 2 * k).collect();
    let run = |variant: Variant| {
        let cfg = TcpConfig {
            variant,
            initial_ssthresh: 16,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(30));
        w.drop_first_tx_of(&holes);
        w.start(None);
        let mut first_rtx = None;
        let mut last_rtx = None;
        loop {
            let was_in = w.sender.in_recovery();
            let sent_before = w.sender.stats().segments_sent;
            if !w.step(at(3_000)) {
                break;
            }
            let s = w.sender.stats();
            if variant == Variant::Sack
                && was_in
                && w.sender.in_recovery()
                && s.segments_sent > sent_before
            {
                // RFC 6675: an ACK in recovery sends only while cwnd − pipe ≥ 1.
                let pipe = w.sender.sack_pipe().unwrap();
                assert!(pipe <= w.sender.cwnd().floor() as i64);
            }
            if s.retransmits > 0 {
                first_rtx.get_or_insert(w.now);
            }
            if s.retransmits == holes.len() as u64 && last_rtx.is_none() {
                last_rtx = Some(w.now);
            }
        }
        let s = w.sender.stats().clone();
        let span = last_rtx.unwrap().since(first_rtx.unwrap());
        (s, span, w.receiver.delivered_segments())
    };
    let (sack, sack_span, sack_d) = run(Variant::Sack);
    let (newreno, nr_span, _) = run(Variant::NewReno);
    assert_eq!(sack.timeouts, 0);
    assert_eq!(sack.fast_retransmits, 1);
    assert_eq!(sack.retransmits, holes.len() as u64);
    assert!(
        sack_span < ms(60),
        "SACK took {sack_span:?} to resend all holes"
    );
    // NewReno resends one hole per partial ACK (or falls back to its timer).
    assert!(nr_span >= ms(180), "NewReno took {nr_span:?}");
    assert!(newreno.partial_acks >= 2);
    assert!(sack_d > 300);
}

#[test]
fn sack_timeout_resend_skips_sacked_segments() {
    // Every segment of a window after the first hole is SACKed; the hole's retransmission
    // is lost too, so the timer fires. Go-back-N then resends only what is missing.
    let cfg = TcpConfig {
        variant: Variant::Sack,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(30));
    let mut tx_of_100 = 0;
    w.fate = Box::new(move |p, _| {
        if p.seq == 100 {
            tx_of_100 += 1;
            if tx_of_100 <= 2 {
                return Fate::Drop;
            }
        }
        Fate::Pass
    });
    w.start(None);
    w.run_until(at(3_000));
    let s = w.sender.stats();
    assert_eq!(s.timeouts, 1);
    assert_eq!(w.sent.iter().filter(|p| p.seq == 100).count(), 3);
    // Nothing but segment 100 was ever sent twice.
    let resent_others = w
        .sent
        .iter()
        .filter(|p| p.seq != 100 && w.sent.iter().filter(|q| q.seq == p.seq).count() > 1)
        .count();
    assert_eq!(resent_others, 0);
}

#[test]
fn ns2_sack_timeout_forgets_the_scoreboard() {
    // The case above under `tcp.model = "ns2"`: ns-2's Sack1 clears its scoreboard on a
    // timeout and on each new ACK outside recovery, so go-back-N resends SACKed segments.
    let cfg = TcpConfig {
        variant: Variant::Sack,
        initial_ssthresh: 16,
        model: TcpModel::Ns2,
        ..TcpConfig::default()
    };
    // Two holes, 100 and 105, and both retransmissions lost: after the timeout the ACK of
    // 100's resend is new and leaves 105 missing, with 106.. SACKed.
    let resent_sacked = |model: TcpModel| {
        let cfg = TcpConfig {
            model,
            ..cfg.clone()
        };
        let mut w = Wire::new(&cfg, ms(30));
        let mut tx = [0u32; 2];
        w.fate = Box::new(move |p, _| match p.seq {
            100 | 105 => {
                let n = &mut tx[usize::from(p.seq == 105)];
                *n += 1;
                if *n <= 2 {
                    Fate::Drop
                } else {
                    Fate::Pass
                }
            }
            _ => Fate::Pass,
        });
        w.start(None);
        w.run_until(at(3_000));
        assert_eq!(w.sender.stats().timeouts, 1, "{model:?}");
        w.sent
            .iter()
            .filter(|p| p.seq != 100 && p.seq != 105)
            .filter(|p| w.sent.iter().filter(|q| q.seq == p.seq).count() > 1)
            .count()
    };
    assert_eq!(resent_sacked(TcpModel::Rfc), 0);
    assert!(
        resent_sacked(TcpModel::Ns2) > 0,
        "go-back-N skipped SACKed segments"
    );
}

#[test]
fn sack_rearms_the_timer_on_every_partial_ack() {
    // Four holes in one window: each retransmission brings a partial ACK. RFC 6675 (RFC 6298
    // rule 5.3) restarts the timer on every one, and so does ns-2's Sack1 with its default
    // `partial_ack_ = 0`.
    let deadlines = |model: TcpModel| {
        let cfg = TcpConfig {
            variant: Variant::Sack,
            initial_ssthresh: 32,
            model,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(30));
        // 1 Mbps: the retransmissions, and so their partial ACKs, are 8 ms apart.
        w.rate_bps = Some(1_000_000);
        w.drop_first_tx_of(&[200, 204, 208, 212]);
        w.start(None);
        let mut seen = Vec::new();
        let mut partial = 0;
        while w.step(at(5_000)) {
            let p = w.sender.stats().partial_acks;
            if p > partial {
                partial = p;
                seen.push(w.sender.next_timer().unwrap());
            }
        }
        assert_eq!(w.sender.stats().timeouts, 0);
        seen
    };
    let ns2 = deadlines(TcpModel::Ns2);
    let rfc = deadlines(TcpModel::Rfc);
    assert!(ns2.len() >= 3 && rfc.len() >= 3, "{ns2:?} {rfc:?}");
    assert!(ns2.windows(2).all(|p| p[0] < p[1]), "{ns2:?}");
    assert!(rfc.windows(2).all(|p| p[0] < p[1]), "{rfc:?}");
}

#[test]
fn rto_backs_off_exponentially_and_resets() {
    let cfg = TcpConfig {
        max_window: 10,
        model: TcpModel::Rfc,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    w.run_until(at(2_000));
    let base = w.sender.rtt().base_rto();
    // Steady 100 ms RTT: srtt -> 100, rttvar -> ~0, so RTO = max(200, 110) = 200 ms.
    assert_eq!(base, ms(200));
    assert!(w.sender.next_timer().is_some());
    w.fate = Box::new(|_, _| Fate::Drop);
    // Timeout bookkeeping at the first expiry.
    let first_flight = loop {
        let flight = w.sender.snd_nxt() - w.sender.snd_una();
        assert!(w.step(at(60_000)));
        if w.sender.stats().timeouts == 1 {
            break flight;
        }
    };
    assert_eq!(first_flight, 10);
    assert_eq!(w.sender.ssthresh(), Some(5));
    assert_eq!(w.sender.cwnd(), 1.0);
    // Go-back-N: the one segment sent is the first unacknowledged.
    assert_eq!(w.sent.last().unwrap().seq, w.sender.snd_una());
    w.run_until(at(60_000));
    let una = w.sender.snd_una();
    let times: Vec<SimTime> = w
        .sent
        .iter()
        .filter(|s| s.seq == una)
        .map(|s| s.t)
        .collect();
    let rtx = &times[1..]; // [0] is the original transmission
    assert_eq!(rtx.len() as u64, w.sender.stats().timeouts);
    let gaps: Vec<SimDuration> = rtx.windows(2).map(|p| p[1] - p[0]).collect();
    // 2, 4, 8, 16, 32, 64 × RTO, then capped at 64 × RTO.
    for (i, g) in gaps.iter().enumerate() {
        let mult = (2u64 << i).min(64);
        assert_eq!(*g, SimDuration(base.0 * mult), "gap {i}");
    }
    assert!(gaps.len() >= 7, "{gaps:?}");
    // Later timeouts halve a flight of 1: ssthresh 2.
    assert_eq!(w.sender.ssthresh(), Some(2));
    // Heal the path: the next expiry's retransmission gets through, backoff resets.
    w.fate = Box::new(|_, _| Fate::Pass);
    let t = w.now;
    w.run_until(t + SimDuration::from_secs(20));
    assert_eq!(w.sender.rtt().backoff(), 1);
    assert!(w.sender.snd_una() > una);
    assert!(w.sender.next_timer().unwrap() <= w.now + ms(200));
}

#[test]
fn ns2_rto_backs_off_until_max_rto() {
    // ns-2 `rtt_backoff` (rfc2988_): the backoff keeps doubling past 64 while the backed-off
    // RTO is below maxrto_, so the gaps grow to 60 s; min_rto applies before the backoff.
    let cfg = TcpConfig {
        max_window: 10,
        model: TcpModel::Ns2,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    w.run_until(at(2_000));
    assert_eq!(w.sender.rtt().rto(), ms(200));
    w.fate = Box::new(|_, _| Fate::Drop);
    w.run_until(at(400_000));
    let una = w.sender.snd_una();
    let times: Vec<SimTime> = w
        .sent
        .iter()
        .filter(|s| s.seq == una)
        .map(|s| s.t)
        .collect();
    let gaps: Vec<SimDuration> = times[1..].windows(2).map(|p| p[1] - p[0]).collect();
    for (i, g) in gaps.iter().enumerate() {
        let want = SimDuration((200_000_000u64 << (i + 1)).min(60_000_000_000));
        assert_eq!(*g, want, "gap {i}");
    }
    assert!(gaps.len() >= 10, "{gaps:?}");
}

#[test]
fn ns2_timeout_after_reno_partial_exit_halves_the_window_not_the_flight() {
    // Reno leaves recovery on the first partial ACK with about W/2 segments of window and
    // about W in flight; the timeout that repairs the next hole halves the window (ns-2
    // `slowdown` from `windowd()`), not the flight (RFC 5681 eq. 4). The RFC reading set
    // ssthresh twice as high and overshot the next slow start (docs/validation.md).
    for (model, expect_window) in [(TcpModel::Ns2, true), (TcpModel::Rfc, false)] {
        let cfg = TcpConfig {
            initial_ssthresh: 16,
            model,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(30));
        w.drop_first_tx_of(&[100, 102, 104]);
        w.start(None);
        let (mut cwnd, mut flight) = (0.0, 0);
        while w.step(at(3_000)) && w.sender.stats().timeouts == 0 {
            cwnd = w.sender.cwnd();
            flight = w.sender.snd_nxt() - w.sender.snd_una();
        }
        assert_eq!(w.sender.stats().timeouts, 1);
        let want = if expect_window {
            cwnd.floor() as u64 / 2
        } else {
            flight / 2
        };
        assert_eq!(w.sender.ssthresh(), Some(want.max(2)), "{model:?}");
        assert!(flight as f64 > cwnd + 3.0, "flight {flight} cwnd {cwnd}");
    }
}

#[test]
fn overhead_delays_sends_by_a_random_fraction() {
    // ns-2 `overhead_`: a send triggered by an ACK waits U[0, overhead); the fast
    // retransmission does not. Each flow's delays come from its own stream.
    let cfg = TcpConfig {
        overhead: ms(5),
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let run = |seed: u64| {
        let mut w = Wire::new(&cfg, ms(20));
        w.sender = Sender::new(1, &cfg).with_rng(SimRng::new(seed, 7));
        w.drop_first_tx_of(&[60]);
        w.start(None);
        w.run_until(at(2_000));
        w
    };
    let w = run(1);
    // Without delay every send happens at an ACK arrival: 40 ms multiples of the start
    // (RTT 40 ms, no bottleneck); with it, sends leave off that grid, by less than 5 ms.
    let off: Vec<u64> = w.sent.iter().map(|s| s.t.0 % 1_000_000).collect();
    assert!(off.iter().filter(|&&o| o != 0).count() > w.sent.len() / 2);
    assert_eq!(w.sender.stats().fast_retransmits, 1);
    assert!(w.sender.stats().segments_sent > 300);
    let again = run(1);
    let other = run(2);
    let times = |w: &Wire| w.sent.iter().map(|s| s.t).collect::<Vec<_>>();
    assert_eq!(times(&w), times(&again), "same stream, same delays");
    assert_ne!(times(&w), times(&other));
}

#[test]
fn trace_records_acks_and_timeouts_only_when_enabled() {
    let cfg = TcpConfig {
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(30));
    w.sender.enable_trace();
    w.drop_first_tx_of(&[100, 102, 104]);
    w.start(None);
    w.run_until(at(3_000));
    let s = w.sender.stats().clone();
    let t = w.sender.take_trace().unwrap();
    assert_eq!(t.len() as u64, s.acks_received + s.timeouts);
    assert_eq!(
        t.event
            .iter()
            .filter(|e| **e == TraceEvent::Timeout)
            .count() as u64,
        s.timeouts
    );
    assert_eq!(*t.retransmits.last().unwrap(), s.retransmits);
    assert!(t.t_s.windows(2).all(|p| p[0] <= p[1]));
    assert!(w.sender.take_trace().is_none(), "taken");
    let mut quiet = Wire::new(&cfg, ms(30));
    quiet.start(None);
    quiet.run_until(at(500));
    assert!(quiet.sender.take_trace().is_none());
}

// ---------------------------------------------------------------- ECN

fn ecn_wire() -> Wire {
    ecn_wire_with(true)
}

/// An ECN flow in congestion avoidance at 1.99 s (RTT 100 ms, no marks yet).
fn ecn_wire_with(ecn_backoff: bool) -> Wire {
    let cfg = TcpConfig {
        ecn: true,
        ecn_backoff,
        initial_ssthresh: 16,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    w.run_until(at(1_990));
    w
}

/// CE-marks every data packet sent in `[from, to)`.
fn mark_between(w: &mut Wire, from: SimTime, to: SimTime) {
    w.fate = Box::new(move |_, t| {
        if t >= from && t < to {
            Fate::Mark
        } else {
            Fate::Pass
        }
    });
}

/// The time between consecutive data packets sent in `(from, to)`, ns.
fn send_gaps(w: &Wire, from: SimTime, to: SimTime) -> Vec<u64> {
    let sends: Vec<SimTime> = w
        .sent
        .iter()
        .map(|x| x.t)
        .filter(|&t| t > from && t < to)
        .collect();
    sends.windows(2).map(|p| p[1].since(p[0]).0).collect()
}

/// Segment 0 under a queue that CE-marks every packet of the first window (sent before 1 s) and
/// passes the rest: (its sends as (time, ECN codepoint), the sender's stats, packets dropped).
fn first_window_marked(model: TcpModel) -> (Vec<(SimTime, Ecn)>, SenderStats, u64) {
    let cfg = TcpConfig {
        ecn: true,
        model,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    mark_between(&mut w, at(0), at(1_000));
    w.start(Some(4));
    w.run_until(at(5_000));
    let seg0 = w.sent.iter().filter(|s| s.seq == 0);
    let sends = seg0.map(|s| (s.t, s.pkt.ecn)).collect();
    (sends, w.sender.stats().clone(), w.dropped)
}

#[test]
fn ns2_sends_segment_zero_not_ecn_capable() {
    // ns-2.35 `output()` clears ECT on packet 0 and its resends: the marking queue drops it
    // and the sender waits out the initial RTO (3 s) to resend it, not ECN-capable again.
    let (sends, s, dropped) = first_window_marked(TcpModel::Ns2);
    assert_eq!(sends, vec![(at(0), Ecn::NotEct), (at(3_000), Ecn::NotEct)]);
    assert_eq!((dropped, s.timeouts, s.retransmits), (1, 1, 1));
    assert_eq!(s.completions, 1, "the transfer completes after the resend");
    // The RFC reading sends it ECN-capable like any data segment: marked, not dropped.
    let (sends, s, dropped) = first_window_marked(TcpModel::Rfc);
    assert_eq!(sends, vec![(at(0), Ecn::Ect)]);
    assert_eq!((dropped, s.timeouts, s.retransmits), (0, 0, 0));
    assert_eq!(s.completions, 1);
}

#[test]
fn ecn_halves_once_per_window() {
    let mut w = ecn_wire();
    assert!(w.sent.iter().all(|s| s.pkt.ecn == Ecn::Ect));
    // Mark every packet of the window sent at t = 2 s.
    w.fate = Box::new(|_, t| {
        if t == at(2_000) {
            Fate::Mark
        } else {
            Fate::Pass
        }
    });
    let mut checked = false;
    loop {
        let win = congestion::usable_window(w.sender.cwnd(), 0);
        if !w.step(at(4_000)) {
            break;
        }
        if w.sender.stats().ecn_reductions == 1 && !checked {
            assert_eq!(w.sender.ssthresh(), Some((win / 2).max(2)));
            assert_eq!(w.sender.cwnd(), (win / 2).max(2) as f64);
            checked = true;
        }
    }
    assert!(checked);
    let s = w.sender.stats();
    assert_eq!(s.ecn_reductions, 1, "a whole window of ECEs must cut once");
    assert_eq!((s.retransmits, s.timeouts), (0, 0));
    let cwr: Vec<&_> = w.sent.iter().filter(|s| s.pkt.cwr).collect();
    assert_eq!(cwr.len(), 1);
    assert_eq!(
        cwr[0].t,
        at(2_100),
        "CWR rides on the first packet after the cut"
    );
    assert_eq!(w.receiver.stats().ce_received, w.sent_at(at(2_000)) as u64);
}

#[test]
fn persistent_ecn_cuts_at_most_once_per_rtt() {
    let mut w = ecn_wire();
    mark_between(&mut w, at(2_000), at(3_000));
    w.run_until(at(2_990));
    assert_eq!(
        w.sender.cwnd(),
        1.0,
        "the window is one segment while the marks last"
    );
    w.run_until(at(3_200));
    let s = w.sender.stats();
    // Ten RTTs of marks: one cut per RTT at most; the window halves down to one segment
    // (ssthresh keeps its floor of 2), and then (RFC 3168 §6.1.2) each further ECN-Echo
    // holds new data for a retransmit timeout, so cuts come less than once per RTT.
    assert!((5..=9).contains(&s.ecn_reductions), "{}", s.ecn_reductions);
    assert!(w.receiver.stats().ce_received > 3 * s.ecn_reductions);
    assert_eq!((s.retransmits, s.timeouts), (0, 0));
    assert_eq!(w.sender.ssthresh(), Some(2));
    // Once the window is one segment, consecutive packets are at least an RTO apart.
    let late: Vec<SimTime> = w
        .sent
        .iter()
        .map(|x| x.t)
        .filter(|&t| t > at(2_600) && t < at(3_000))
        .collect();
    assert!(
        late.len() <= 2,
        "at one segment under marks, sends are spaced by the RTO: {late:?}"
    );
}

#[test]
fn repeated_ecn_at_one_segment_backs_off_exponentially() {
    // Marks from 2 s on: the window falls to one segment, then each ECE-carrying ACK holds
    // new data for an RTO that doubles every time (ns-2 `ecn_backoff_`); the first ACK
    // without ECE ends the backoff.
    let mut w = ecn_wire();
    mark_between(&mut w, at(2_000), at(12_000));
    w.run_until(at(12_000));
    let gaps = send_gaps(&w, at(2_500), SimTime(u64::MAX));
    assert!(gaps.len() >= 3, "{gaps:?}");
    // Each gap is (RTT +) the held RTO, which doubles: strictly growing, about x2.
    for g in gaps.windows(2) {
        let ratio = g[1] as f64 / g[0] as f64;
        assert!((1.6..=2.4).contains(&ratio), "gaps {gaps:?}");
    }
    assert_eq!(w.sender.stats().timeouts, 0);
    // Unmarked again: backoff cleared by the first ACK without ECE; the window reopens.
    w.run_until(at(90_000));
    assert_eq!(w.sender.rtt().backoff(), 1);
    assert!(w.sender.cwnd() > 4.0, "{}", w.sender.cwnd());

    // With `ecn_backoff = false` the holds stay one RTO: equal gaps.
    let mut w = ecn_wire_with(false);
    mark_between(&mut w, at(2_000), at(12_000));
    w.run_until(at(12_000));
    let gaps = send_gaps(&w, at(4_000), at(11_000));
    assert!(gaps.len() >= 5, "{gaps:?}");
    let (lo, hi) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
    assert!(*hi as f64 <= 1.2 * *lo as f64, "gaps {gaps:?}");
}

/// A sender at 1.99 s whose next ECN-Echo finds `cwnd` and a pending `ecn_backoff` as given;
/// returns it after that ECE (one acknowledging new data, so it is a new congestion signal).
fn after_ece_at(model: TcpModel, cwnd: f64) -> Wire {
    let cfg = TcpConfig {
        ecn: true,
        initial_ssthresh: 16,
        model,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    w.run_until(at(1_990));
    let c = &mut w.sender.conn;
    c.win.cwnd = cwnd;
    c.ecn_backoff = true;
    c.recover = c.snd_una;
    let ece = Packet {
        kind: crate::net::packet::PacketKind::Ack,
        ack: c.snd_una + 1,
        ece: true,
        ts_echo: at(1_900),
        ..Packet::default()
    };
    assert!(w.sender.respond_to_ece(at(1_990), &ece));
    w
}

#[test]
fn ns2_ecn_at_one_segment_means_fractional_cwnd_at_most_one() {
    // ns-2 `ecn()` tests `cwnd_ <= 1.0` before the cut: at 1.5 (usable window one segment)
    // it clears `ecn_backoff_` and leaves the timer alone; at 1.0 a second ECE doubles it.
    // Both hold new data: ns-2's halved `cwnd_` is below one.
    for (cwnd, backoff, pending) in [(1.5, 1, false), (1.0, 2, true)] {
        let w = after_ece_at(TcpModel::Ns2, cwnd);
        let c = &w.sender.conn;
        assert_eq!(w.sender.rtt().backoff(), backoff, "cwnd {cwnd}");
        assert_eq!(c.ecn_backoff, pending, "cwnd {cwnd}");
        assert!(c.ecn_hold.is_some(), "cwnd {cwnd}: new data held");
    }
    // The standard model reads RFC 3168's "one segment" as the usable window.
    let w = after_ece_at(TcpModel::Rfc, 1.5);
    assert_eq!(w.sender.rtt().backoff(), 2);
    assert!(w.sender.conn.ecn_backoff && w.sender.conn.ecn_hold.is_some());
}

#[test]
fn ns2_ecn_hold_expiry_is_a_timeout() {
    // ns-2's hold is its retransmission timer, so its expiry runs `timeout()`. Data outstanding
    // (a go-back-N resend under way): the timeout alone resends snd_una, once. Nothing
    // outstanding: no backoff and ssthresh kept, one new segment with CWR, and the last
    // congestion action becomes a timeout (a later timeout halves ssthresh and counts).
    for model in [TcpModel::Ns2, TcpModel::Rfc] {
        let ns2 = model == TcpModel::Ns2;
        // Outstanding: snd_nxt back at snd_una, snd_max beyond; the timer at the hold's end.
        let mut w = after_ece_at(model, 1.0);
        let hold = w.sender.conn.ecn_hold.expect("held");
        let c = &mut w.sender.conn;
        c.snd_nxt = c.snd_una;
        c.rto_deadline = Some(hold);
        let (una, timeouts, backoff) = (c.snd_una, c.stats.timeouts, c.rtt.backoff());
        let mut sent = vec![];
        w.sender.on_timer(hold, &mut |p: Packet| sent.push(p.seq));
        assert_eq!(w.sender.stats().timeouts, timeouts + 1, "{model:?}");
        assert_eq!(w.sender.rtt().backoff(), 2 * backoff, "{model:?}");
        let expect = if ns2 { vec![una] } else { vec![una, una] };
        assert_eq!(sent, expect, "{model:?}: resent once under ns-2");

        // Nothing outstanding: the hold releases one new segment.
        let mut w = after_ece_at(model, 1.0);
        let hold = w.sender.conn.ecn_hold.expect("held");
        let c = &mut w.sender.conn;
        c.snd_una = c.snd_max;
        c.snd_nxt = c.snd_max;
        c.rto_deadline = None;
        let (max, timeouts, backoff) = (c.snd_max, c.stats.timeouts, c.rtt.backoff());
        let mut sent = vec![];
        w.sender
            .on_timer(hold, &mut |p: Packet| sent.push((p.seq, p.cwr)));
        assert_eq!(sent, vec![(max, true)], "{model:?}");
        let c = &w.sender.conn;
        assert_eq!((c.stats.timeouts, c.rtt.backoff()), (timeouts, backoff));
        let last = if ns2 {
            Response::Timeout
        } else {
            Response::Ecn
        };
        assert_eq!(c.last_response, last, "{model:?}");
    }
}

#[test]
fn loss_in_a_window_already_cut_by_ecn_is_not_cut_again() {
    let mut w = ecn_wire();
    // The window sent at 2 s: its first packet is lost, the rest are CE-marked.
    let mut first = true;
    w.fate = Box::new(move |_, t| {
        if t != at(2_000) {
            Fate::Pass
        } else if std::mem::take(&mut first) {
            Fate::Drop
        } else {
            Fate::Mark
        }
    });
    let win = loop {
        let win = congestion::usable_window(w.sender.cwnd(), 0);
        assert!(w.step(at(4_000)));
        if w.sender.stats().ecn_reductions == 1 {
            break win;
        }
    };
    let cut = (win / 2).max(2);
    w.run_until(at(4_000));
    let s = w.sender.stats();
    // The first duplicate ACK carries ECE and cuts; the third retransmits without a
    // second reduction (ns-2: last_cwnd_action_ == CWND_ACTION_ECN).
    assert_eq!(s.ecn_reductions, 1);
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!((s.retransmits, s.timeouts), (1, 0));
    // ssthresh is still the ECN cut: no later signal changed it.
    assert_eq!(w.sender.ssthresh(), Some(cut));
}

/// An ECN flow (RTT 100 ms, `cc`, `codepoint`) whose window sent at 2 s is CE-marked except
/// its first segment, which is lost: the codepoints of every send of that segment, in order.
fn sends_of_a_segment_lost_among_marks(
    model: TcpModel,
    cc: CongestionControl,
    codepoint: EcnCodepoint,
) -> Vec<Ecn> {
    let cfg = TcpConfig {
        ecn: true,
        initial_ssthresh: 16,
        model,
        cc,
        ecn_codepoint: codepoint,
        ..TcpConfig::default()
    };
    let mut w = Wire::new(&cfg, ms(50));
    w.start(None);
    w.run_until(at(1_990));
    let mut lost = None;
    w.fate = Box::new(move |p, t| {
        if t != at(2_000) {
            Fate::Pass
        } else if lost.get_or_insert(p.seq) == &p.seq {
            Fate::Drop
        } else {
            Fate::Mark
        }
    });
    w.run_until(at(4_000));
    let seq = w.sent.iter().find(|s| s.t == at(2_000)).unwrap().seq;
    assert_eq!(w.sender.stats().retransmits, 1, "{model:?} {cc:?}");
    let sends = w.sent.iter().filter(|s| s.seq == seq);
    sends.map(|s| s.pkt.ecn).collect()
}

#[test]
fn rfc_resends_data_not_ecn_capable_unless_the_controller_needs_ecn() {
    use EcnCodepoint::{Ect0, Ect1};
    let (reno, dctcp) = (CongestionControl::Reno, CongestionControl::Dctcp);
    // RFC 3168 §6.1.5 (Linux `tcp_ecn_send()`, ns-3 `SendDataPacket`): the resend is Not-ECT,
    // so a queue that would mark it drops it instead.
    let rfc = sends_of_a_segment_lost_among_marks(TcpModel::Rfc, reno, Ect0);
    assert_eq!(rfc, vec![Ecn::Ect, Ecn::NotEct]);
    // ns-2.35 `output()` sets ECT on every data packet, resends included.
    let ns2 = sends_of_a_segment_lost_among_marks(TcpModel::Ns2, reno, Ect0);
    assert_eq!(ns2, vec![Ecn::Ect, Ecn::Ect]);
    // DCTCP and L4S (ect1) senders keep ECT (Linux `tcp_ca_needs_ecn()`, ns-3 `DctcpEcn`).
    let dctcp_ect0 = sends_of_a_segment_lost_among_marks(TcpModel::Rfc, dctcp, Ect0);
    assert_eq!(dctcp_ect0, vec![Ecn::Ect, Ecn::Ect]);
    let dctcp_ect1 = sends_of_a_segment_lost_among_marks(TcpModel::Rfc, dctcp, Ect1);
    assert_eq!(dctcp_ect1, vec![Ecn::Ect1, Ecn::Ect1]);
    let reno_ect1 = sends_of_a_segment_lost_among_marks(TcpModel::Rfc, reno, Ect1);
    assert_eq!(reno_ect1, vec![Ecn::Ect1, Ecn::Ect1]);
}

// ---------------------------------------------------------------- receiver interplay

#[test]
fn delayed_acks_halve_the_ack_count() {
    let run = |delayed_ack: bool| {
        let cfg = TcpConfig {
            delayed_ack,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(10));
        w.start(Some(1_000));
        w.run_until(at(30_000));
        assert!(w.sender.is_complete());
        assert_eq!(w.receiver.delivered_segments(), 1_000);
        (w.receiver.stats().acks_sent, w.sender.stats().acks_received)
    };
    let (plain, plain_rx) = run(false);
    assert_eq!(plain, 1_000);
    assert_eq!(plain_rx, 1_000);
    let (del, _) = run(true);
    assert!((500..=520).contains(&del), "{del}");
}

#[test]
fn finite_transfer_completes_and_refetches() {
    let mut w = Wire::new(&TcpConfig::default(), ms(50));
    w.start(Some(10));
    w.run_until(at(1_000));
    // Rounds of 2, 4 and the last 4 segments: done when the third round is ACKed.
    assert!(w.sender.is_complete());
    assert_eq!(w.sender.stats().completed_at, Some(at(300)));
    assert_eq!(w.sender.stats().segments_sent, 10);
    assert_eq!(w.sender.next_timer(), None, "no timer while idle");
    // A second fetch of 6 segments in slow start: 2 then 4, done two RTTs later.
    w.sender.restart_slow_start();
    assert_eq!(w.sender.cwnd(), 2.0);
    let now = w.now;
    let mut buf = Vec::new();
    w.sender.add_segments(now, 6, &mut |p| buf.push(p));
    assert_eq!(buf.len(), 2);
    assert!(!w.sender.is_complete());
    assert_eq!(w.sender.stats().completed_at, None);
    // Feed the emitted packets through the wire by hand.
    let mut w2 = w;
    for p in buf {
        w2.receiver.on_data(now + ms(50), &p, &mut |a| {
            let mut out = Vec::new();
            w2.sender.on_ack(now + ms(100), &a, &mut |d| out.push(d));
            for d in out {
                w2.sent.push(super::super::wire::Sent {
                    t: now + ms(100),
                    seq: d.seq,
                    pkt: d,
                });
            }
        });
    }
    let second: Vec<&_> = w2.sent.iter().filter(|s| s.t == now + ms(100)).collect();
    assert_eq!(second.len(), 4);
    let mut tail = Vec::new();
    for s in &second {
        w2.receiver
            .on_data(now + ms(150), &s.pkt, &mut |a| tail.push(a));
    }
    for a in tail {
        w2.sender
            .on_ack(now + ms(200), &a, &mut |_| panic!("nothing left"));
    }
    assert!(w2.sender.is_complete());
    assert_eq!(w2.sender.stats().completed_at, Some(now + ms(200)));
    assert_eq!(w2.sender.stats().completions, 2);
    assert_eq!(w2.receiver.delivered_segments(), 16);
}

#[test]
fn data_packet_fields_and_rtt_labels() {
    for (label, want_min) in [(RttLabel::Srtt, false), (RttLabel::Min, true)] {
        let cfg = TcpConfig {
            rtt_label: label,
            ecn: true,
            mss: 1460,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(50));
        // RTT grows with a 1 Mbps bottleneck queue, so srtt and min differ.
        w.rate_bps = Some(1_000_000);
        w.start(None);
        w.run_until(at(2_000));
        let first = &w.sent[0].pkt;
        assert_eq!(
            first.rtt_label,
            SimDuration::ZERO,
            "no label before the first sample"
        );
        assert_eq!(first.kind, PacketKind::Data);
        assert_eq!((first.flow, first.id, first.hop), (1, 0, 0));
        assert_eq!(first.size_bytes, 1460);
        assert_eq!(first.ecn, Ecn::Ect);
        let last = &w.sent.last().unwrap().pkt;
        assert_eq!((last.ts, last.created), (w.sent.last().unwrap().t, last.ts));
        let min = w.sender.rtt().min_rtt().unwrap();
        let srtt = w.sender.rtt().srtt().unwrap();
        // Base RTT 100 ms plus one 11.68 ms serialisation.
        assert_eq!(min, ms(100) + SimDuration::transmission(1460, 1_000_000));
        assert!(srtt > min + ms(50), "{srtt} vs {min}");
        let want = if want_min { min } else { srtt };
        assert_eq!(last.rtt_label, want);
    }
    let plain = Wire::new(&TcpConfig::default(), ms(1));
    let mut p = plain;
    p.start(Some(1));
    assert_eq!(p.sent[0].pkt.rtt_label, SimDuration::ZERO);
    assert_eq!(p.sent[0].pkt.ecn, Ecn::NotEct);
}

#[test]
fn probes_report_window_and_rtt() {
    let mut w = Wire::new(&TcpConfig::default(), ms(50));
    w.start(None);
    w.run_until(at(150));
    let mut got = Vec::new();
    w.sender.probe(&mut |n, v| got.push((n, v)));
    let get = |n: &str| got.iter().find(|(k, _)| *k == n).unwrap().1;
    assert_eq!(get("cwnd"), 4.0);
    assert_eq!(get("ssthresh"), 0.0);
    assert_eq!(get("srtt_ms"), 100.0);
    assert_eq!(get("flight"), 4.0);
    // Two 100 ms samples: rttvar = 50 then 3/4·50 = 37.5; RTO = 100 + 4·37.5 = 250 ms.
    assert_eq!(get("rto_ms"), 250.0);
}

// ---------------------------------------------------------------- Mathis et al.

/// Goodput under Bernoulli loss p against MSS·sqrt(3/2)/(RTT·sqrt(p)) (Mathis, Semke,
/// Mahdavi, Ott 1997), with no queueing and no receiver cap.
fn mathis(variant: Variant) -> f64 {
    let cfg = TcpConfig {
        variant,
        ..TcpConfig::default()
    };
    let p = 0.01;
    let rtt = 0.1;
    let mut w = Wire::new(&cfg, ms(50));
    w.record = false;
    let mut rng = SimRng::new(11, 3);
    w.fate = Box::new(move |_, _| {
        if rng.uniform() < p {
            Fate::Drop
        } else {
            Fate::Pass
        }
    });
    w.start(None);
    w.run_until(at(20_000));
    let d0 = w.receiver.delivered_segments();
    w.run_until(at(620_000));
    let goodput = (w.receiver.delivered_segments() - d0) as f64 * 1000.0 / 600.0;
    let model = 1000.0 * (1.5f64).sqrt() / (rtt * p.sqrt());
    goodput / model
}

#[test]
fn mathis_formula_reno_newreno_and_sack() {
    for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let r = mathis(v);
        eprintln!("{v:?}: goodput/model = {r}");
        assert!((0.75..=1.25).contains(&r), "{v:?}: goodput/model = {r}");
    }
}

#[test]
fn ns2_sack_pipe_counts_acks_not_the_scoreboard() {
    // ns-2's Sack1 keeps `pipe_` as a counter: on the third duplicate ACK the segments
    // outstanding less three, then one less per ACK in recovery (two per partial ACK) and one
    // more per segment sent. Lost segments stay in it, so a window that lost most of its tail
    // cannot refill the pipe: eight holes at the end of a window of 12 (pipe 12 − 3, − 1 for
    // the fourth duplicate ACK, − 2 for the partial ACK: 6, the whole of cwnd), as flow 0 of
    // the ECN RED dumbbell in ns-2 at 36.0 s (fast retransmit, a partial ACK, nothing more
    // sent, timeout). RFC 6675's SetPipe takes the lost segments out at once and repairs them.
    let run = |model: TcpModel| {
        let cfg = TcpConfig {
            variant: Variant::Sack,
            initial_ssthresh: 10,
            model,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(30));
        w.drop_first_tx_of(&[30, 31, 32, 33, 34, 35, 36, 37]);
        w.start(None);
        let mut checked = 0;
        loop {
            let was_in = w.sender.in_recovery();
            let pipe_before = w.sender.sack_pipe().unwrap();
            let flight_before = w.sender.snd_max() - w.sender.snd_una();
            let una_before = w.sender.snd_una();
            let sent_before = w.sender.stats().segments_sent;
            let acks_before = w.sender.stats().acks_received;
            if !w.step(at(3_000)) {
                break;
            }
            if model != TcpModel::Ns2 || w.sender.stats().timeouts > 0 {
                continue;
            }
            let sent = (w.sender.stats().segments_sent - sent_before) as i64;
            let pipe = w.sender.sack_pipe().unwrap();
            if !was_in && w.sender.in_recovery() {
                assert_eq!(sent, 1, "only the fast retransmission on entry");
                assert_eq!(pipe, flight_before as i64 - 3);
                checked += 1;
            } else if was_in
                && w.sender.in_recovery()
                && w.sender.stats().acks_received > acks_before
            {
                let partial = i64::from(w.sender.snd_una() > una_before);
                assert_eq!(pipe, pipe_before - 1 - partial + sent, "ACK in recovery");
                assert!(pipe <= w.sender.cwnd().floor() as i64 || sent == 0);
                checked += 1;
            }
        }
        // The entry, two duplicate ACKs and the partial ACK; then the timer.
        assert!(model != TcpModel::Ns2 || checked >= 3, "{checked}");
        w.sender.stats().clone()
    };
    let rfc = run(TcpModel::Rfc);
    assert_eq!(rfc.fast_retransmits, 1);
    assert_eq!(rfc.timeouts, 0, "SetPipe repairs the holes in recovery");
    let ns2 = run(TcpModel::Ns2);
    assert_eq!(ns2.fast_retransmits, 1);
    assert_eq!(
        ns2.timeouts, 1,
        "the counted pipe stays full of lost segments"
    );
}

#[test]
fn ns2_recovery_after_an_ecn_cut_keeps_the_ecn_window() {
    // A mark, then a loss in the same window: the duplicate ACKs start a recovery without a
    // second reduction (ns-2 `dupack_action` after `CWND_ACTION_ECN`). ns-2 leaves `cwnd_` as
    // the ECN cut set it, so the recovery runs with that window and leaves with it (Reno and
    // NewReno open it once on the exiting ACK), not with the window of an earlier recovery.
    for variant in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let cfg = TcpConfig {
            variant,
            ecn: true,
            initial_ssthresh: 20,
            model: TcpModel::Ns2,
            ..TcpConfig::default()
        };
        let mut w = Wire::new(&cfg, ms(30));
        let mut dropped = false;
        w.fate = Box::new(move |p, _| match p.seq {
            100 => Fate::Mark,
            104 if !dropped => {
                dropped = true;
                Fate::Drop
            }
            _ => Fate::Pass,
        });
        w.start(None);
        let mut after_ecn = None;
        let mut exit = None;
        loop {
            let was_in = w.sender.in_recovery();
            let cuts = w.sender.stats().ecn_reductions;
            if !w.step(at(3_000)) {
                break;
            }
            if w.sender.stats().ecn_reductions > cuts {
                after_ecn = Some((w.sender.cwnd(), w.sender.ssthresh()));
            }
            if was_in && !w.sender.in_recovery() {
                exit = Some((w.sender.cwnd(), w.sender.ssthresh()));
                break;
            }
        }
        let (ecn_cwnd, ecn_ss) = after_ecn.expect("an ECN cut");
        let (cwnd, ss) = exit.expect("a recovery");
        let s = w.sender.stats();
        assert_eq!(
            (s.ecn_reductions, s.fast_retransmits, s.timeouts),
            (1, 1, 0),
            "{variant:?}"
        );
        assert_eq!(ss, ecn_ss, "{variant:?}: no second reduction");
        assert!(ecn_cwnd > 8.0, "{variant:?}: {ecn_cwnd}");
        assert!(
            cwnd >= ecn_cwnd && cwnd <= ecn_cwnd + 1.0,
            "{variant:?}: left recovery at {cwnd}, the ECN cut left {ecn_cwnd}"
        );
    }
}
