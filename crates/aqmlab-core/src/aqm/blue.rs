//! BLUE: a marking probability driven by packet loss and link idle events, not by queue length.
//!
//! Source: W. Feng, D. Kandlur, D. Saha, K. Shin, "BLUE: A New Class of Active Queue Management
//! Algorithms", U. Michigan CSE-TR-387-99 (1999) / IEEE/ACM ToN 10(4) 2002 (not in `papers/`),
//! as described and parameterised by `papers/001_b15d0b1564b3cf2d.txt` §2 and §4, which compares
//! against it: "The congestion notification rate pm is increased at a set rate if the queue size
//! exceeds a threshold L, and it is decreased if the link is idle. The amount of increase is d1,
//! and decrease d2, at a rate of 1/freezetime."
//!
//! # Algorithm (BLUE's pseudocode)
//! ```text
//! upon packet loss (or queue length > L):   if now − last_update > freeze_time:
//!                                               p_m ← min(1, p_m + d1); last_update ← now
//! upon link idle:                           if now − last_update > freeze_time:
//!                                               p_m ← max(0, p_m − d2); last_update ← now
//! every arrival: marked (ECN) or dropped with probability p_m   → Signal(Early)
//! ```
//! One `last_update` serves both directions, as in the pseudocode. A uniform is drawn only when
//! `0 < p_m < 1`.
//!
//! # Parameters
//! | key | unit | default | source |
//! |---|---|---|---|
//! | `d1` | probability step up | 0.001 | paper 001 §4 ("d1=0.001"); BLUE's own report mostly used 0.02 (d1 an order of magnitude above d2) |
//! | `d2` | probability step down | 0.0002 | paper 001 §4 (BLUE's report: 0.002) |
//! | `freeze_time` | duration | "10ms" | paper 001 §4 (BLUE's report: 10 ms and 100 ms) |
//! | `l_max` | fraction of the buffer, (0, 1] | 0.66 | paper 001 §4 ("Threshold L is 66% of the queue size"); the queue threshold L in the buffer's unit (packets or bytes); 1.0 = only real overflows raise p_m (pure loss-driven BLUE) |
//! | `ecn` | bool | true | paper 001 §4 ("All algorithms were configured to use ECN"); BLUE was designed around ECN marking |
//! | `non_ect` | `"drop"` or `"pass"` | "drop" | with `ecn`, a picked packet that is not ECN-capable: dropped (RFC 3168 §5) or sent on unmarked (`aqm/non_ect.rs`); neither BLUE's report nor paper 001 says, and ns-2.35 has no BLUE |
//!
//! # Readings where the sources are ambiguous
//! - "Queue exceeds L" is tested on each arrival against the queue *before* the arrival:
//!   `len > l_max · limit`. A real overflow (`Aqm::on_overflow`) is a loss event too.
//! - The event updates p_m before the arriving packet's own marking decision.
//! - "Link idle" is the glue's `on_empty` (the link asked for a packet and found none), as in the
//!   ns-2 implementation where the event fires when dequeue finds the queue empty. There is one
//!   such event per idle period, so a long silence lowers p_m by d2 once, not d2 per freeze time.
//!   (Paper 001's remark that the change is "the time spent in this event multiplied by
//!   d/freezetime" holds for the overflow side, where every arrival is an event.)
//! - The first event is never frozen (no previous update), and an event that cannot move p_m
//!   (increase at 1, decrease at 0) does not count as an update for the freeze time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, NonEct, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::{BufferLimit, Qdisc};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Increase of p_m on overflow or queue above l_max, in (0, 1]; paper 001: 0.001.
    pub d1: f64,
    /// Decrease of p_m when the link goes idle, in (0, 1]; paper 001: 0.0002.
    pub d2: f64,
    /// Minimum duration between two changes of p_m; paper 001: 10ms.
    pub freeze_time: SimDuration,
    /// Queue threshold L as a fraction of the buffer, in (0, 1] (1 = overflow only); paper 001:
    /// 0.66.
    pub l_max: f64,
    /// Mark ECN-capable packets instead of dropping them; paper 001: true.
    pub ecn: bool,
    /// With ecn: what happens to a packet that is not ECN-capable when the law picks it:
    /// "drop" (RFC 3168 section 5, ns-2's RED) or "pass" (sent on unmarked, as ns-2.35's rem.cc
    /// with markpkts_). The default "drop" is left out of a resolved scenario, so a scenario
    /// without the key resolves (and hashes) the same as one that gives it.
    // The schema states the default itself: serde skips it when serialising `Default`.
    #[serde(skip_serializing_if = "NonEct::is_drop")]
    #[schemars(extend("default" = "drop"))]
    pub non_ect: NonEct,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            d1: 0.001,
            d2: 0.0002,
            freeze_time: SimDuration::from_millis(10),
            l_max: 0.66,
            ecn: true,
            non_ect: NonEct::Drop,
        }
    }
}

/// BLUE's probability with its freeze time: the state shared by BLUE and each SFB bin.
/// An event that cannot move `p` (an increase at 1, a decrease at 0) is not an update: it does
/// not start a freeze period. (Otherwise an idle event at p = 0 would delay the reaction to the
/// next overflow by a freeze time for nothing.)
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct BlueProb {
    pub p: f64,
    pub last_update: Option<SimTime>,
}

impl BlueProb {
    /// True if an update is allowed at `now`: strictly more than `freeze` since the last one.
    #[inline]
    pub fn thawed(&self, now: SimTime, freeze: SimDuration) -> bool {
        self.last_update.is_none_or(|t| now.since(t) > freeze)
    }
    /// Loss / congestion event: `p += d1` unless frozen. Returns whether it changed.
    #[inline]
    pub fn increase(&mut self, now: SimTime, d1: f64, freeze: SimDuration) -> bool {
        let ok = self.p < 1.0 && self.thawed(now, freeze);
        if ok {
            self.p = (self.p + d1).min(1.0);
            self.last_update = Some(now);
        }
        ok
    }
    /// Idle / empty event: `p −= d2` unless frozen. Returns whether it changed.
    #[inline]
    pub fn decrease(&mut self, now: SimTime, d2: f64, freeze: SimDuration) -> bool {
        let ok = self.p > 0.0 && self.thawed(now, freeze);
        if ok {
            self.p = (self.p - d2).max(0.0);
            self.last_update = Some(now);
        }
        ok
    }
}

/// Draws against `p`: always true at `p ≥ 1`, never at `p ≤ 0`, one uniform otherwise.
#[inline]
pub(crate) fn bernoulli(p: f64, rng: &mut SimRng) -> bool {
    if p >= 1.0 {
        true
    } else if p > 0.0 {
        rng.uniform() < p
    } else {
        false
    }
}

/// BLUE's state.
pub struct Blue {
    d1: f64,
    d2: f64,
    freeze: SimDuration,
    l_max: f64,
    /// `Params::ecn` and `Params::non_ect`: the verdict on a picked packet.
    ecn: bool,
    non_ect: NonEct,
    prob: BlueProb,
}

impl Blue {
    pub fn new(p: &Params) -> Blue {
        Blue {
            d1: p.d1,
            d2: p.d2,
            freeze: p.freeze_time,
            l_max: p.l_max,
            ecn: p.ecn,
            non_ect: p.non_ect,
            prob: BlueProb::default(),
        }
    }

    /// Is the queue (before the arrival) above the threshold L?
    #[inline]
    fn above_threshold(&self, q: &QueueView) -> bool {
        match q.limit {
            BufferLimit::Packets(n) => q.len_pkts as f64 > self.l_max * n as f64,
            BufferLimit::Bytes(b) => q.len_bytes as f64 > self.l_max * b as f64,
        }
    }
}

impl Aqm for Blue {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        if self.above_threshold(q) {
            self.prob.increase(now, self.d1, self.freeze);
        }
        if bernoulli(self.prob.p, rng) {
            self.non_ect.verdict(self.ecn, pkt, Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn on_overflow(&mut self, now: SimTime, _pkt: &Packet, _q: &QueueView) {
        self.prob.increase(now, self.d1, self.freeze);
    }

    fn on_empty(&mut self, now: SimTime) {
        self.prob.decrease(now, self.d2, self.freeze);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_m", self.prob.p);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "blue";
    const NAME: &'static str = "BLUE (Feng, Kandlur, Saha, Shin)";
    const SOURCE: &'static str =
        "Feng et al., BLUE, CSE-TR-387-99 / ToN 2002; parameters as used by \
         papers/001_b15d0b1564b3cf2d.txt section 4: p_m += d1 on loss or queue > L, -= d2 on idle, \
         at most once per freeze_time";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(self.d1 > 0.0 && self.d1 <= 1.0, "d1", self.d1, "in (0, 1]")?;
        check(self.d2 > 0.0 && self.d2 <= 1.0, "d2", self.d2, "in (0, 1]")?;
        check(
            self.l_max > 0.0 && self.l_max <= 1.0,
            "l_max",
            self.l_max,
            "a fraction of the buffer in (0, 1]",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Blue::new(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;

    fn view(len: usize) -> QueueView {
        QueueView {
            len_pkts: len,
            len_bytes: len as u64 * 1000,
            limit: BufferLimit::Packets(100),
            link_rate_bps: 10_000_000,
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    #[test]
    fn non_ect_chooses_the_fate_of_a_picked_not_ect_packet() {
        let not_ect = Packet::default();
        let ect = Packet {
            ecn: crate::net::packet::Ecn::Ect,
            ..Packet::default()
        };
        let early = Verdict::Signal(Reason::Early);
        for (non_ect, want) in [(NonEct::Drop, early), (NonEct::Pass, Verdict::Pass)] {
            let p = Params {
                non_ect,
                ..Params::default()
            };
            let mut b = Blue::new(&p);
            b.prob.p = 1.0;
            let mut rng = SimRng::new(1, 1);
            assert_eq!(b.on_enqueue(ms(1), &not_ect, &view(0), &mut rng), want);
            assert_eq!(b.on_enqueue(ms(2), &ect, &view(0), &mut rng), early);
        }
    }

    #[test]
    fn freeze_time_is_respected() {
        let p = Params {
            d1: 0.02,
            d2: 0.002,
            freeze_time: SimDuration::from_millis(100),
            ..Params::default()
        };
        let mut b = Blue::new(&p);
        let full = view(100);
        let pk = Packet::default();
        // First event is never frozen.
        b.on_overflow(ms(5), &pk, &full);
        assert_eq!(b.prob.p, 0.02);
        // Within 100 ms (and exactly at 100 ms: strictly greater required): no change.
        for t in [6, 50, 105] {
            b.on_overflow(ms(t), &pk, &full);
            b.on_empty(ms(t));
        }
        assert_eq!(b.prob.p, 0.02);
        // 100 ms + 1 ns after the last update: one more step.
        b.on_overflow(SimTime(ms(105).0 + 1), &pk, &full);
        assert_eq!(b.prob.p, 0.04);
        // Idle 150 ms later lowers by d2; the freeze also blocks an increase right after it.
        b.on_empty(ms(255));
        assert!((b.prob.p - 0.038).abs() < 1e-15);
        b.on_overflow(ms(300), &pk, &full);
        assert!((b.prob.p - 0.038).abs() < 1e-15);
        // Probe.
        let mut got = None;
        b.probe(&mut |k, v| got = Some((k, v)));
        assert_eq!(got, Some(("p_m", b.prob.p)));
    }

    #[test]
    fn threshold_raises_and_probability_clamps() {
        let mut b = Blue::new(&Params::default());
        let mut rng = SimRng::scripted(vec![0.99; 10]);
        // Threshold 0.66 * 100 = 66 packets: 66 queued is not above it, 67 is.
        b.on_enqueue(ms(0), &Packet::default(), &view(66), &mut rng);
        assert_eq!(b.prob.p, 0.0);
        assert_eq!(rng.drawn(), 0, "no uniform drawn at p = 0");
        b.on_enqueue(ms(1), &Packet::default(), &view(67), &mut rng);
        assert_eq!(b.prob.p, 0.001);
        assert_eq!(rng.drawn(), 1);
        // Byte-limited buffers compare bytes.
        let bytes = QueueView {
            limit: BufferLimit::Bytes(10_000),
            len_bytes: 6_601,
            ..view(1)
        };
        assert!(b.above_threshold(&bytes));
        // Clamps.
        let mut pr = BlueProb::default();
        for i in 0..60 {
            pr.increase(ms(i * 20), 0.02, SimDuration::from_millis(10));
        }
        assert_eq!(pr.p, 1.0);
        let mut pr = BlueProb::default();
        assert!(!pr.decrease(ms(0), 0.002, SimDuration::from_millis(10)));
        assert_eq!(pr.p, 0.0);
        // ... and that no-op did not freeze the next increase.
        assert!(pr.increase(ms(1), 0.02, SimDuration::from_millis(10)));
    }

    #[test]
    fn qdisc_marks_and_conserves() {
        let p = Params::default();
        let mut q = p.build(&BuildContext {
            limit: BufferLimit::Packets(10),
            link_rate_bps: 10_000_000,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        });
        let mut rng = SimRng::new(9, 9);
        // Two arrivals per dequeue for 2 s: the queue sits at the threshold and overflows, and
        // p_m climbs by d1 per freeze time (10 ms + the 1 ms tick): ~0.18 after 2 s.
        for i in 0..2000u64 {
            let t = ms(i);
            q.enqueue(t, Packet::default(), &mut rng);
            q.enqueue(t, Packet::default(), &mut rng);
            q.dequeue(t, &mut rng, &mut |_, _| {});
            assert!(q.stats().conserved(q.len_pkts()));
        }
        let mut p_m = 0.0;
        q.probe(&mut |_, v| p_m = v);
        assert!((p_m - 2000.0 / 11.0 * 0.001).abs() < 0.002, "{p_m}");
        assert!(q.stats().dropped_before_enqueue[Reason::Early as usize] > 100);
    }

    #[test]
    fn validation_and_unknown_keys() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        assert!(parse("kind='blue'\nd1=0.02\nd2=0.002\nfreeze_time='100ms'\nl_max=1.0").is_ok());
        assert_eq!(parse("kind='blue'\nmax_pp=0.1").unwrap_err().path, "max_pp");
        assert_eq!(parse("kind='blue'\nd1=0").unwrap_err().path, "d1");
        assert_eq!(parse("kind='blue'\nd2=2").unwrap_err().path, "d2");
        assert_eq!(parse("kind='blue'\nl_max=0").unwrap_err().path, "l_max");
        assert_eq!(
            parse("kind='blue'\nfreeze_time=10").unwrap_err().path,
            "freeze_time"
        );
    }
}
