//! Stochastic Fair Blue (SFB): BLUE per hash bin, L levels × N bins, a flow marked with the
//! minimum probability of its bins; flows whose minimum reaches 1 are rate-limited.
//!
//! Source: W. Feng, D. Kandlur, D. Saha, K. Shin, "Stochastic Fair Blue: A Queue Management
//! Algorithm for Enforcing Fairness", INFOCOM 2001 (not in `papers/`); described by
//! `papers/000_18b337451fd23142.txt` §4 ("hash flows into L levels of N bins. Each bin maintains
//! queue-occupancy statistics for flows that map into that bin and a corresponding drop
//! probability p_m"), which compares GREEN against it (§7) but prints none of its parameters.
//!
//! # Algorithm (the SFB pseudocode)
//! ```text
//! enqueue(pkt):  h_l = hash_l(flow) for l in 0..L
//!   for each level l:   bin = B[l][h_l]
//!     if bin.qlen ≥ bin_size:  bin.p += d1 (BLUE freeze time); the packet is dropped
//!     else if bin.qlen == 0:   bin.p −= d2 (BLUE freeze time)
//!   p_min = min_l B[l][h_l].p
//!   if p_min == 1:  rate-limit the flow (token bucket, below)
//!   else:           mark (ECN) or drop with probability p_min          → Signal(Early)
//! bin.qlen counts the flow's packets in the queue: +1 when queued, −1 when dequeued.
//! ```
//! Bins are BLUE probabilities ([`super::blue::BlueProb`]): steps clamp to [0, 1] and each bin
//! changes at most once per `freeze_time`.
//!
//! # Parameters
//! | key | unit | default | source |
//! |---|---|---|---|
//! | `levels` | L | 2 | the SFB article's evaluation (2 × 23 bins); paper 000 does not state what it ran |
//! | `bins` | N per level | 23 | as `levels` |
//! | `bin_size` | packets | unset | our choice, below |
//! | `max` | packets | unset | the article's drop rule; set: Linux `sch_sfb`'s, below |
//! | `d1` | probability step up, per bin | 0.02 | BLUE's original recommendation (d1 ≫ d2) |
//! | `d2` | probability step down, per bin | 0.002 | BLUE's original recommendation |
//! | `freeze_time` | duration | "100ms" | BLUE's original recommendation |
//! | `penalty_rate` | packets/s | 10 | Linux `sch_sfb`, below |
//! | `penalty_burst` | packets | 20 | Linux `sch_sfb`, below |
//! | `ecn` | bool | true | SFB, like BLUE, was designed around ECN marking |
//!
//! - `bin_size` unset is `ceil(buffer in packets / bins)` (each level's bins share the buffer
//!   evenly; byte buffers are converted with the link's mean packet size): the article sizes
//!   bins relative to the buffer but paper 000 gives no number.
//! - `max` unset: the article's pseudocode, an arrival that finds any of its bins holding
//!   `bin_size` packets is dropped. Set: Linux `sch_sfb`'s rule, `bin_size` only raises p (its
//!   `target`) and an arrival is dropped when every one of its bins holds at least `max` packets
//!   (Linux's defaults: 8 levels x 16 bins, `bin_size` 20, `max` 25).
//! - No source in `papers/` gives SFB's `d1`, `d2`, `freeze_time`; set them in a reproduction.
//! - `penalty_rate`, `penalty_burst`: the rate limiter for non-responsive flows. The article
//!   rate-limits flows whose p_min is 1 without prescribing a mechanism; we use one token
//!   bucket shared by all such flows (no per-flow state, as SFB intends), with the defaults of
//!   Linux `sch_sfb`. Packets within the bucket are queued unmarked, the rest dropped with
//!   reason `policy`.
//!
//! # Readings where the sources are ambiguous
//! - "qlen > bin_size" in the pseudocode: we treat `bin_size` as the bin's capacity, so the
//!   bin is full (increase and drop) when it already holds `bin_size` packets. The drop is an
//!   overflow of the bin's share of the buffer: reason `overflow`. Every level's bin is updated
//!   before the drop. (Linux drops only when *all* bins are over a separate `max`: the key
//!   `max`; unset, the default follows the article.)
//! - Decreases happen on arrivals to an empty bin (the pseudocode; Linux does the same), not on
//!   dequeue.
//! - Hashes: SplitMix64 of the flow id XOR a per-level salt derived from the scenario seed.
//!   A flow's bins depend on nothing else, so they are hashed at its first packet and kept
//!   (one entry per flow seen): arrival, admission and departure then read them instead of
//!   taking a 64-bit remainder per level each time.
//! - Probes: `p_min_avg` is an exponential average (weight 1/1000 per arrival) of arrivals'
//!   p_min; `nonresponsive` is the same average of the indicator "p_min = 1" (the share of
//!   arrivals being rate-limited). Neither needs per-flow state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blue::{bernoulli, BlueProb};
use super::green_tcp::mix64;
use super::{AlgorithmParams, Aqm, BuildContext, FifoArithmetic, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::DenseFlowMap;
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Hash levels L, 1..=8; SFB article: 2.
    pub levels: u32,
    /// Bins per level N, 1..=4096; SFB article: 23.
    pub bins: u32,
    /// Packets a bin may hold before it counts as overflowing (default: buffer / bins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bin_size: Option<u32>,
    /// Linux sch_sfb's drop rule: an arrival is dropped when each of its bins holds at least this
    /// many packets, and bin_size only raises p (Linux: 25). Unset: the SFB article's rule, an
    /// arrival that finds any of its bins holding bin_size packets is dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
    /// Increase of a bin's p when it overflows, in (0, 1]; BLUE: 0.02.
    pub d1: f64,
    /// Decrease of a bin's p when a packet finds it empty, in (0, 1]; BLUE: 0.002.
    pub d2: f64,
    /// Minimum duration between two changes of one bin's p; BLUE: 100ms.
    pub freeze_time: SimDuration,
    /// Packets/s let through for all flows with p_min = 1 together (Linux sch_sfb: 10).
    pub penalty_rate: f64,
    /// Token-bucket depth of the penalty rate limiter, packets (Linux sch_sfb: 20).
    pub penalty_burst: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            levels: 2,
            bins: 23,
            bin_size: None,
            max: None,
            d1: 0.02,
            d2: 0.002,
            freeze_time: SimDuration::from_millis(100),
            penalty_rate: 10.0,
            penalty_burst: 20,
            ecn: true,
        }
    }
}

/// Weight of one arrival in the probes' exponential averages.
const PROBE_WEIGHT: f64 = 0.001;

/// Most hash levels (`levels` is validated to 1..=8).
const MAX_LEVELS: usize = 8;

/// A flow's bin index (`l * bins + h`) at each level; entries past `levels` are unused. Indices
/// fit in 16 bits: at most 8 levels of 4,096 bins.
type FlowBins = [u16; MAX_LEVELS];

/// SFB's state.
pub struct Sfb {
    // configured
    levels: usize,
    bins: usize,
    bin_size: u32,
    /// Linux's drop rule (`max`): the smallest bin count at which an arrival is dropped.
    max: Option<u32>,
    d1: f64,
    d2: f64,
    freeze: SimDuration,
    salts: Vec<u64>,
    /// Each flow's bins, hashed at its first packet (`None` until then).
    flow_bins: DenseFlowMap<Option<FlowBins>>,
    penalty_rate: f64,
    penalty_burst: f64,
    // maintained: bin `l * bins + h`
    qlen: Vec<u32>,
    prob: Vec<BlueProb>,
    tokens: f64,
    last_refill: SimTime,
    p_min_avg: f64,
    nonresponsive: f64,
}

impl Sfb {
    pub fn new(p: &Params, ctx: &BuildContext) -> Sfb {
        let levels = p.levels as usize;
        let bins = p.bins as usize;
        let buffer_pkts = ctx.limit.packets(ctx.mean_pkt_bytes);
        let bin_size = p
            .bin_size
            .unwrap_or_else(|| ((buffer_pkts / bins as f64).ceil() as u32).max(1));
        Sfb {
            levels,
            bins,
            bin_size,
            max: p.max,
            d1: p.d1,
            d2: p.d2,
            freeze: p.freeze_time,
            salts: (0..levels as u64)
                .map(|l| mix64(ctx.seed ^ mix64(0x5346_4200 + l)))
                .collect(),
            flow_bins: DenseFlowMap::default(),
            penalty_rate: p.penalty_rate,
            penalty_burst: p.penalty_burst as f64,
            qlen: vec![0; levels * bins],
            prob: vec![BlueProb::default(); levels * bins],
            tokens: p.penalty_burst as f64,
            last_refill: SimTime::ZERO,
            p_min_avg: 0.0,
            nonresponsive: 0.0,
        }
    }

    /// The flow's bin at `level`.
    #[inline]
    fn bin(&self, level: usize, flow: FlowId) -> usize {
        level * self.bins + (mix64(flow as u64 ^ self.salts[level]) % self.bins as u64) as usize
    }

    /// The flow's bins at every level, hashed once per flow.
    #[inline]
    fn bins_of(&mut self, flow: FlowId) -> FlowBins {
        if let Some(b) = *self.flow_bins.entry(flow) {
            return b;
        }
        let mut b = [0; MAX_LEVELS];
        for (l, slot) in b.iter_mut().enumerate().take(self.levels) {
            *slot = self.bin(l, flow) as u16;
        }
        *self.flow_bins.entry(flow) = Some(b);
        b
    }

    /// The flow's marking probability: the minimum over its bins.
    pub fn p_min(&self, flow: FlowId) -> f64 {
        (0..self.levels)
            .map(|l| self.prob[self.bin(l, flow)].p)
            .fold(1.0, f64::min)
    }

    /// Takes one token from the penalty bucket if it has one.
    fn take_token(&mut self, now: SimTime) -> bool {
        let dt = now.since(self.last_refill).as_secs_f64();
        self.tokens = (self.tokens + dt * self.penalty_rate).min(self.penalty_burst);
        self.last_refill = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

impl Aqm for Sfb {
    /// Decides at arrival only; departures and idle periods are bookkeeping.
    fn fifo_arithmetic(&self) -> FifoArithmetic {
        FifoArithmetic::Decides
    }
    fn timed(&self) -> bool {
        false
    }

    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        _q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        let mut over = false;
        let mut min_qlen = u32::MAX;
        let mut p_min: f64 = 1.0;
        let bins = self.bins_of(pkt.flow);
        for &i in &bins[..self.levels] {
            let i = usize::from(i);
            if self.qlen[i] >= self.bin_size {
                self.prob[i].increase(now, self.d1, self.freeze);
                over = true;
            } else if self.qlen[i] == 0 {
                self.prob[i].decrease(now, self.d2, self.freeze);
            }
            min_qlen = min_qlen.min(self.qlen[i]);
            p_min = p_min.min(self.prob[i].p);
        }
        let full = match self.max {
            None => over,
            Some(max) => min_qlen >= max,
        };
        let limited = p_min >= 1.0;
        self.p_min_avg += PROBE_WEIGHT * (p_min - self.p_min_avg);
        self.nonresponsive += PROBE_WEIGHT * (f64::from(u8::from(limited)) - self.nonresponsive);
        if full {
            Verdict::Drop(Reason::Overflow)
        } else if limited {
            if self.take_token(now) {
                Verdict::Pass
            } else {
                Verdict::Drop(Reason::Policy)
            }
        } else if bernoulli(p_min, rng) {
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn on_enqueued(&mut self, _now: SimTime, pkt: &Packet) {
        let bins = self.bins_of(pkt.flow);
        for &i in &bins[..self.levels] {
            self.qlen[usize::from(i)] += 1;
        }
    }

    fn on_dequeue(
        &mut self,
        _now: SimTime,
        pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        let bins = self.bins_of(pkt.flow);
        for &i in &bins[..self.levels] {
            let i = usize::from(i);
            debug_assert!(self.qlen[i] > 0, "SFB bin count underflow");
            self.qlen[i] = self.qlen[i].saturating_sub(1);
        }
        Verdict::Pass
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_min_avg", self.p_min_avg);
        out("nonresponsive", self.nonresponsive);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "sfb";
    const NAME: &'static str = "Stochastic Fair Blue";
    const SOURCE: &'static str = "Feng et al., Stochastic Fair Blue, INFOCOM 2001 (compared against in \
         papers/000_18b337451fd23142.txt): BLUE per bin, L levels x N bins, p = min over a flow's bins";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            (1..=8).contains(&self.levels),
            "levels",
            self.levels,
            "an integer in 1..=8",
        )?;
        check(
            (1..=4096).contains(&self.bins),
            "bins",
            self.bins,
            "an integer in 1..=4096",
        )?;
        if let Some(b) = self.bin_size {
            check(b >= 1, "bin_size", b, "a positive number of packets")?;
        }
        if let Some(m) = self.max {
            check(m >= 1, "max", m, "a positive number of packets")?;
        }
        check(self.d1 > 0.0 && self.d1 <= 1.0, "d1", self.d1, "in (0, 1]")?;
        check(self.d2 > 0.0 && self.d2 <= 1.0, "d2", self.d2, "in (0, 1]")?;
        check(
            self.penalty_rate.is_finite() && self.penalty_rate > 0.0,
            "penalty_rate",
            self.penalty_rate,
            "a positive number of packets per second",
        )?;
        check(
            self.penalty_burst >= 1,
            "penalty_burst",
            self.penalty_burst,
            "a positive number of packets",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Sfb::new(self, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::qdisc::BufferLimit;

    fn ctx() -> BuildContext<'static> {
        BuildContext {
            limit: BufferLimit::Packets(100),
            link_rate_bps: 10_000_000,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 11,
        }
    }

    fn view() -> QueueView {
        QueueView {
            len_pkts: 0,
            len_bytes: 0,
            limit: BufferLimit::Packets(100),
            link_rate_bps: 10_000_000,
        }
    }

    fn pkt(flow: FlowId) -> Packet {
        Packet {
            flow,
            size_bytes: 1000,
            ..Default::default()
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    #[test]
    fn default_bin_size_and_distinct_level_hashes() {
        let s = Sfb::new(&Params::default(), &ctx());
        assert_eq!(s.bin_size, 5); // ceil(100 / 23)
                                   // Levels hash independently: some pair of flows sharing a level-0 bin is split at level 1.
        let same0: Vec<FlowId> = (0..200).filter(|&f| s.bin(0, f) == s.bin(0, 0)).collect();
        assert!(same0.len() > 1);
        assert!(same0.iter().any(|&f| s.bin(1, f) != s.bin(1, 0)));
        assert!((0..2).all(|l| (0..1000).all(|f| s.bin(l, f) / 23 == l)));
    }

    /// The kept bins are the hashed ones, at the widest table (8 x 4,096 bins) and for ids far
    /// beyond the dense range, asked in any order and more than once.
    #[test]
    fn kept_bins_equal_the_hash() {
        let p = Params {
            levels: 8,
            bins: 4096,
            ..Params::default()
        };
        let mut s = Sfb::new(&p, &ctx());
        let ids: Vec<FlowId> = (0..3000)
            .rev()
            .chain([u32::MAX, u32::MAX - 1, 1 << 20])
            .collect();
        for _ in 0..2 {
            for &f in &ids {
                let kept = s.bins_of(f);
                for (l, &b) in kept.iter().enumerate().take(8) {
                    assert_eq!(usize::from(b), s.bin(l, f), "flow {f} level {l}");
                }
            }
        }
        assert_eq!(usize::from(s.bins_of(7)[7]) / 4096, 7);
    }

    #[test]
    fn probability_is_minimum_over_bins() {
        let mut s = Sfb::new(&Params::default(), &ctx());
        let (b0, b1) = (s.bin(0, 7), s.bin(1, 7));
        s.prob[b0].p = 0.5;
        s.prob[b1].p = 0.2;
        // Make the bins non-empty so the arrival does not trigger a decrease.
        s.qlen[b0] = 1;
        s.qlen[b1] = 1;
        assert_eq!(s.p_min(7), 0.2);
        let mut rng = SimRng::scripted(vec![0.3, 0.1]);
        assert_eq!(
            s.on_enqueue(ms(0), &pkt(7), &view(), &mut rng),
            Verdict::Pass
        );
        assert_eq!(
            s.on_enqueue(ms(0), &pkt(7), &view(), &mut rng),
            Verdict::Signal(Reason::Early)
        );
        assert_eq!(rng.drawn(), 2);
    }

    #[test]
    fn full_bin_raises_and_drops_empty_bin_lowers() {
        let mut s = Sfb::new(&Params::default(), &ctx());
        let mut rng = SimRng::scripted(vec![0.99; 100]);
        let (b0, b1) = (s.bin(0, 3), s.bin(1, 3));
        // Fill the flow's bins to bin_size (5) through the hooks.
        for _ in 0..5 {
            assert_eq!(
                s.on_enqueue(ms(0), &pkt(3), &view(), &mut rng),
                Verdict::Pass
            );
            s.on_enqueued(ms(0), &pkt(3));
        }
        assert_eq!((s.qlen[b0], s.qlen[b1]), (5, 5));
        // 6th: both bins full -> each p += d1, packet dropped as overflow.
        let v = s.on_enqueue(ms(1), &pkt(3), &view(), &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Overflow));
        assert_eq!((s.prob[b0].p, s.prob[b1].p), (0.02, 0.02));
        // Frozen for 100 ms.
        s.on_enqueue(ms(50), &pkt(3), &view(), &mut rng);
        assert_eq!(s.prob[b0].p, 0.02);
        s.on_enqueue(ms(102), &pkt(3), &view(), &mut rng);
        assert_eq!(s.prob[b0].p, 0.04);
        // Drain: dequeues decrement the counts.
        for _ in 0..5 {
            s.on_dequeue(ms(103), &pkt(3), &view(), &mut rng);
        }
        assert_eq!((s.qlen[b0], s.qlen[b1]), (0, 0));
        // Arrival to empty bins after the freeze: p -= d2.
        s.on_enqueue(ms(300), &pkt(3), &view(), &mut rng);
        assert!((s.prob[b0].p - 0.038).abs() < 1e-15);
        assert!((s.prob[b1].p - 0.038).abs() < 1e-15);
    }

    #[test]
    fn linux_max_drops_only_when_every_bin_holds_max() {
        let p = Params {
            bin_size: Some(2),
            max: Some(3),
            ..Params::default()
        };
        let mut s = Sfb::new(&p, &ctx());
        let mut rng = SimRng::scripted(vec![0.99; 100]);
        let (b0, b1) = (s.bin(0, 3), s.bin(1, 3));
        // Level 0's bin at max, level 1's below: p rises in the bin over bin_size, no drop.
        s.qlen[b0] = 3;
        s.qlen[b1] = 2;
        let v = s.on_enqueue(ms(0), &pkt(3), &view(), &mut rng);
        assert_eq!(v, Verdict::Pass);
        assert_eq!((s.prob[b0].p, s.prob[b1].p), (0.02, 0.02));
        // Every bin at max: dropped as an overflow.
        s.qlen[b1] = 3;
        let v = s.on_enqueue(ms(200), &pkt(3), &view(), &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Overflow));
        // The article's rule (max unset) drops as soon as one bin holds bin_size.
        let mut a = Sfb::new(&Params { max: None, ..p }, &ctx());
        let a0 = a.bin(0, 3);
        a.qlen[a0] = 2;
        let v = a.on_enqueue(ms(0), &pkt(3), &view(), &mut rng);
        assert_eq!(v, Verdict::Drop(Reason::Overflow));
    }

    #[test]
    fn nonresponsive_flow_is_rate_limited() {
        let mut s = Sfb::new(&Params::default(), &ctx());
        let mut rng = SimRng::scripted(vec![]);
        for l in 0..2 {
            let i = s.bin(l, 9);
            s.prob[i].p = 1.0;
            s.qlen[i] = 1;
        }
        // Bucket starts full (20 tokens) at t = 0: 20 pass, then policy drops.
        let verdicts: Vec<Verdict> = (0..25)
            .map(|_| s.on_enqueue(ms(0), &pkt(9), &view(), &mut rng))
            .collect();
        assert!(verdicts[..20].iter().all(|v| *v == Verdict::Pass));
        assert!(verdicts[20..]
            .iter()
            .all(|v| *v == Verdict::Drop(Reason::Policy)));
        // 0.5 s later: 10 pkt/s * 0.5 s = 5 tokens.
        let passed = (0..10)
            .filter(|_| s.on_enqueue(ms(500), &pkt(9), &view(), &mut rng) == Verdict::Pass)
            .count();
        assert_eq!(passed, 5);
        assert_eq!(rng.drawn(), 0, "no random draw for a rate-limited flow");
        assert!(s.nonresponsive > 0.0);
    }

    #[test]
    fn qdisc_conserves() {
        let p = Params {
            freeze_time: SimDuration::from_millis(10),
            ..Params::default()
        };
        let mut q = p.build(&ctx());
        let mut rng = SimRng::new(2, 2);
        // 20 flows, 2 arrivals per dequeue, for 1 s.
        for i in 0..1000u64 {
            let t = ms(i);
            q.enqueue(t, pkt((i % 20) as u32), &mut rng);
            q.enqueue(t, pkt(((i + 7) % 20) as u32), &mut rng);
            q.dequeue(t, &mut rng, &mut |_, _| {});
            assert!(q.stats().conserved(q.len_pkts()));
        }
        let st = q.stats();
        assert!(st.dropped_before_enqueue[Reason::Overflow as usize] > 0);
        assert!(st.dropped_before_enqueue[Reason::Early as usize] > 0);
        // The bins (at most 5 packets each, 23 bins per level) keep the queue under 100.
        assert!(q.len_pkts() < 100);
    }

    #[test]
    fn validation_and_unknown_keys() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let ok = parse("kind='sfb'\nlevels=3\nbins=16\nbin_size=10").unwrap();
        assert_eq!(ok.to_table()["bin_size"].as_integer(), Some(10));
        assert!(!parse("kind='sfb'")
            .unwrap()
            .to_table()
            .contains_key("bin_size"));
        assert_eq!(parse("kind='sfb'\nmax_pp=0.1").unwrap_err().path, "max_pp");
        assert_eq!(parse("kind='sfb'\nlevels=0").unwrap_err().path, "levels");
        assert_eq!(parse("kind='sfb'\nbins=0").unwrap_err().path, "bins");
        assert_eq!(
            parse("kind='sfb'\nbin_size=0").unwrap_err().path,
            "bin_size"
        );
        assert_eq!(parse("kind='sfb'\nmax=0").unwrap_err().path, "max");
        assert!(!parse("kind='sfb'").unwrap().to_table().contains_key("max"));
        assert_eq!(parse("kind='sfb'\nd1=1.5").unwrap_err().path, "d1");
        assert_eq!(
            parse("kind='sfb'\npenalty_rate=0").unwrap_err().path,
            "penalty_rate"
        );
    }
}
