//! REM, Random Exponential Marking: a link price driven by rate mismatch and backlog, marking
//! with probability 1 − φ^(−price).
//!
//! Source: S. Athuraliya, S. H. Low, V. H. Li, Q. Yin, "REM: Active Queue Management", IEEE
//! Network 15(3), 2001 (not in `papers/`), in the PC3 form that
//! `papers/001_b15d0b1564b3cf2d.txt` §2 evaluates (its eq. (1) was lost in the text copy; eq. (2)
//! `m = 1 − φ^(−p)` survived), and as implemented by the authors' ns-2 `queue/rem.cc` (ported to
//! ns-3 as `RemQueueDisc`), which papers 001 and 003 ran.
//!
//! # Equations (every `update_time`)
//! ```text
//! x̄   ← (1 − w)·x̄ + w·x                         x: arrivals in the last interval (packets)
//! p   ← max(0, p + γ·(α·(b − b*) + x̄ − c))      b: backlog (packets), c = link rate · T / (8·S)
//! m   = 1 − φ^(−p)                              each arrival marked (ECN) or dropped w.p. m
//! ```
//! Rates are in packets per update interval `T` and the backlog in packets, as in `rem.cc`.
//! Arrivals are counted before the marking decision (dropped arrivals count towards x).
//!
//! # Byte mode (a byte-limited `buffer`: `rem.cc`'s `qib_ = true`)
//! As `rem.cc` does with `qib_`:
//! - x and b are counted in bytes and divided by `S`: `x = bytes arrived / S`,
//!   `b = bytes queued / S`;
//! - an arrival of `size` bytes is marked or dropped w.p. `m·size/S` (always when that is ≥ 1),
//!   so large packets are signalled more often than small ones;
//! - `c = link rate · T / (8·S)` (in both modes).
//!
//! `S` is `rem.cc`'s `mean_pktsize_` (`remp_.p_pktsize`): a configured reference size (ns-2
//! default 1000 bytes), **not** the size of the packets that actually arrive. It is the key
//! `mean_pkt_size`; unset, it is the link's data packet size (`BuildContext::mean_pkt_bytes`, the
//! first flow's MSS), as if `mean_pktsize_` had been set to match the traffic — the same as
//! ns-2's default whenever packets are 1000 bytes. (`rem.cc`'s packet mode with other packet
//! sizes and `mean_pktsize_` left at 1000 misjudges c, e.g. 10× too small with 100-byte packets:
//! the "extremely poor" packet mode of paper 003 §5; `mean_pkt_size = 1000` reproduces it.)
//! An earlier version always divided by
//! `BuildContext::mean_pkt_bytes`: with a single packet size that made byte mode the same as
//! packet mode (bytes/size = packets) and left out the `size/S` scaling of `m`, so it was not
//! `rem.cc`'s byte mode whenever the packets differ from the reference size (paper 003's
//! Fig. 21 runs 100..2500-byte packets against 1000-byte REM). `rem.cc` sizes its byte buffer
//! as `qlim_ · S` bytes; here the byte `buffer` is written directly (`buffer = "120000B"` for
//! ns-2's 120-packet queue limit with S = 1000).
//!
//! # Parameters
//! Defaults are the REM authors' ns-2 defaults, which paper 003 §5 also ran
//! ("γ = 0.001, α = 0.1, φ = 1.001, b = 20"):
//!
//! | key | unit | default | paper 001's setting |
//! |---|---|---|---|
//! | `gamma` | γ, price step | 0.001 | 0.01 |
//! | `phi` | φ, base of the marking law, > 1 | 1.001 | 1.003 |
//! | `alpha` | α, weight of the backlog mismatch | 0.1 | 0.1 |
//! | `target` | b*, packets | 20 | b0 = 55 |
//! | `update_time` | T, duration | "2ms" | "updatetime=0.01", i.e. 10 ms |
//! | `in_weight` | w, weight of the newest interval in x̄, (0, 1] | 1 | (`rem.cc`'s `inw_`; 1 = no filtering) |
//! | `mean_pkt_size` | S, bytes | unset | (`rem.cc`'s `mean_pktsize_`, ns-2 default 1000) |
//! | `ecn` | bool | true | "All algorithms were configured to use ECN" |
//! | `non_ect` | `"drop"` or `"pass"` | "drop" | not printed; `rem.cc` passes (see Readings) |
//!
//! Unset, `mean_pkt_size` is the link's data packet size; it converts the link rate into
//! packets per interval and, in byte mode, bytes into packets (see Byte mode).
//!
//! The paper-001 reproduction should set `gamma = 0.01, phi = 1.003, target = 55,
//! update_time = "10ms"` explicitly (see `published.toml` `[green_rate_001.settings]`).
//!
//! # Readings
//! - The marking decision happens on arrival (`rem.cc` drops on enqueue; with `markpkts_` it
//!   marks on dequeue instead, as ns-3's port does). A uniform is drawn only when the arrival's
//!   probability (m, or m·size/S in byte mode) is in (0, 1).
//! - A picked packet that is not ECN-capable, with `ecn` on: `REMQueue::deque` sets CE only
//!   `if (hf->ect() == 1)` and otherwise sends the packet on unmarked, and `REMQueue::enque`
//!   drops nothing early with `markpkts_`, so in ns-2 a Not-ECT packet never sees REM's signal.
//!   RFC 3168 §5 drops it, as ns-2's RED and every other kind here do. The key `non_ect`
//!   chooses: `"drop"` (default, RFC 3168) or `"pass"` (`rem.cc`; `aqm/non_ect.rs`).
//! - Updates run from the timer at `k·T`; hooks that see `now` past a due update run it first.
//! - `rem.cc` tail-drops an arrival when the queue *including* it reaches the limit (so it holds
//!   at most `qlim_ − 1` packets, or just under `qlim_·S` bytes); here the shared buffer holds
//!   up to its limit.
//! - Bound on the price (ours; the PC3 law has only the floor 0): `p ≤ p_max = 60·ln 2 / ln φ`,
//!   the price at which `φ^(−p) = 2⁻⁶⁰`, far below f64's 2⁻⁵³ resolution at 1, so `m` is 1.0. Under persistent overload
//!   (unresponsive traffic above c) the law adds γ·(x̄ − c) every interval without end; a price
//!   above `p_max` marks no more than `p_max` does, but would take (p − p_max)/(γ·(c − x̄))
//!   intervals to unwind once the overload ends (φ = 1.001: p_max ≈ 41,600). Below `p_max` the
//!   law is unchanged.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blue::bernoulli;
use super::{AlgorithmParams, Aqm, BuildContext, NonEct, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::{BufferLimit, Qdisc};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Price step gamma (> 0); ns-2 default 0.001, paper 001: 0.01.
    pub gamma: f64,
    /// Marking base phi (> 1): m = 1 - phi^-price; ns-2 default 1.001, paper 001: 1.003.
    pub phi: f64,
    /// Weight of the backlog term (>= 0); ns-2 default and paper 001: 0.1.
    pub alpha: f64,
    /// Target backlog b*, packets (>= 0); ns-2 default 20, paper 001: 55.
    pub target: f64,
    /// Duration between price updates; ns-2 default 2ms, paper 001: 10ms.
    pub update_time: SimDuration,
    /// Weight of the newest interval in the filtered arrival rate, in (0, 1]; 1 = none.
    pub in_weight: f64,
    /// Reference packet size S, bytes (rem.cc mean_pktsize_, ns-2 1000): c = rate*T/(8*S); with a
    /// byte buffer, bytes/S count as packets and m is scaled by size/S (default: the link's data
    /// packet size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_pkt_size: Option<u32>,
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
            gamma: 0.001,
            phi: 1.001,
            alpha: 0.1,
            target: 20.0,
            update_time: SimDuration::from_millis(2),
            in_weight: 1.0,
            mean_pkt_size: None,
            ecn: true,
            non_ect: NonEct::Drop,
        }
    }
}

/// The PC3 price step: `max(0, p + γ·(α·(b − b*) + x − c))`.
pub fn price_step(
    price: f64,
    gamma: f64,
    alpha: f64,
    backlog: f64,
    target: f64,
    x: f64,
    c: f64,
) -> f64 {
    (price + gamma * (alpha * (backlog - target) + x - c)).max(0.0)
}

/// The largest useful price: `φ^(−p_max) = 2⁻⁶⁰`, so `1 − φ^(−p)` is 1.0 in f64 from there on.
pub fn price_max(phi: f64) -> f64 {
    60.0 * std::f64::consts::LN_2 / phi.ln()
}

/// Equation (2) of paper 001: marking probability `1 − φ^(−p)`.
pub fn mark_probability(price: f64, phi: f64) -> f64 {
    1.0 - phi.powf(-price)
}

/// REM's state.
pub struct Rem {
    // configured
    gamma: f64,
    phi: f64,
    alpha: f64,
    target: f64,
    update_time: SimDuration,
    in_weight: f64,
    /// The reference packet size S, bytes.
    mean_pkt_bytes: f64,
    /// `Params::ecn` and `Params::non_ect`: the verdict on a picked packet.
    ecn: bool,
    non_ect: NonEct,
    // maintained
    link_rate_bps: u64,
    /// Arrivals in the current interval: packets, or bytes with a byte-limited buffer.
    count: f64,
    in_avg: f64,
    price: f64,
    prob: f64,
    next_update: SimTime,
}

impl Rem {
    pub fn new(p: &Params, ctx: &BuildContext) -> Rem {
        Rem {
            gamma: p.gamma,
            phi: p.phi,
            alpha: p.alpha,
            target: p.target,
            update_time: p.update_time,
            in_weight: p.in_weight,
            mean_pkt_bytes: p.mean_pkt_size.unwrap_or(ctx.mean_pkt_bytes).max(1) as f64,
            ecn: p.ecn,
            non_ect: p.non_ect,
            link_rate_bps: ctx.link_rate_bps,
            count: 0.0,
            in_avg: 0.0,
            price: 0.0,
            prob: 0.0,
            next_update: SimTime::ZERO + p.update_time,
        }
    }

    #[inline]
    fn bytes_mode(q: &QueueView) -> bool {
        matches!(q.limit, BufferLimit::Bytes(_))
    }

    fn advance(&mut self, now: SimTime, q: &QueueView) {
        while now >= self.next_update {
            let (x, backlog) = if Self::bytes_mode(q) {
                (
                    self.count / self.mean_pkt_bytes,
                    q.len_bytes as f64 / self.mean_pkt_bytes,
                )
            } else {
                (self.count, q.len_pkts as f64)
            };
            self.in_avg = (1.0 - self.in_weight) * self.in_avg + self.in_weight * x;
            let c = self.link_rate_bps as f64 * self.update_time.as_secs_f64()
                / (8.0 * self.mean_pkt_bytes);
            self.price = price_step(
                self.price,
                self.gamma,
                self.alpha,
                backlog,
                self.target,
                self.in_avg,
                c,
            )
            .min(price_max(self.phi));
            self.prob = mark_probability(self.price, self.phi);
            self.count = 0.0;
            self.next_update += self.update_time;
        }
    }
}

impl Aqm for Rem {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now, q);
        // rem.cc byte mode: count bytes, and signal w.p. m·size/S (`pro = v_prob*size/p_pktsize`).
        let p = if Self::bytes_mode(q) {
            self.count += pkt.size_bytes as f64;
            self.prob * pkt.size_bytes as f64 / self.mean_pkt_bytes
        } else {
            self.count += 1.0;
            self.prob
        };
        if bernoulli(p, rng) {
            self.non_ect.verdict(self.ecn, pkt, Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now, q);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("price", self.price);
        out("p", self.prob);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "rem";
    const NAME: &'static str = "REM, Random Exponential Marking (PC3)";
    const SOURCE: &'static str =
        "Athuraliya, Low, Li, Yin, REM: Active Queue Management, IEEE Network \
         2001, as ns-2 rem.cc and papers/001_b15d0b1564b3cf2d.txt eqs. (1)-(2): \
         p <- max(0, p + gamma*(alpha*(b - b*) + x - c)), m = 1 - phi^-p";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.gamma.is_finite() && self.gamma > 0.0,
            "gamma",
            self.gamma,
            "a positive number (ns-2: 0.001)",
        )?;
        check(
            self.phi.is_finite() && self.phi > 1.0,
            "phi",
            self.phi,
            "a number greater than 1 (ns-2: 1.001)",
        )?;
        check(
            self.alpha.is_finite() && self.alpha >= 0.0,
            "alpha",
            self.alpha,
            "a non-negative number (ns-2: 0.1)",
        )?;
        check(
            self.target.is_finite() && self.target >= 0.0,
            "target",
            self.target,
            "a non-negative number of packets",
        )?;
        check(
            self.update_time >= crate::time::MIN_TIMER_PERIOD,
            "update_time",
            self.update_time,
            "a duration of at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        check(
            self.in_weight > 0.0 && self.in_weight <= 1.0,
            "in_weight",
            self.in_weight,
            "in (0, 1]",
        )?;
        if let Some(s) = self.mean_pkt_size {
            check(
                s > 0,
                "mean_pkt_size",
                s,
                "a positive number of bytes (ns-2: 1000)",
            )?;
        }
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Rem::new(self, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::net::packet::Ecn;
    use crate::qdisc::{apply_verdict, QdiscStats};

    fn ctx(limit: BufferLimit) -> BuildContext<'static> {
        BuildContext {
            limit,
            link_rate_bps: 10_000_000,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        }
    }

    fn view(len: usize) -> QueueView {
        QueueView {
            len_pkts: len,
            len_bytes: len as u64 * 1000,
            limit: BufferLimit::Packets(100),
            link_rate_bps: 10_000_000,
        }
    }

    #[test]
    fn price_and_marking_by_hand() {
        // p = 0 + 0.001*(0.1*(50 - 20) + 3 - 2.5) = 0.001*3.5 = 0.0035.
        let p = price_step(0.0, 0.001, 0.1, 50.0, 20.0, 3.0, 2.5);
        assert!((p - 0.0035).abs() < 1e-15);
        // Below target and below capacity: clamps at 0.
        assert_eq!(price_step(0.001, 0.001, 0.1, 0.0, 20.0, 1.0, 2.5), 0.0);
        // m = 1 - 1.001^-1000 = 1 - e^(-1000 ln 1.001) = 1 - e^-0.9995003 = 0.631937...
        let m = mark_probability(1000.0, 1.001);
        assert!((m - (1.0 - (-1000.0 * 1.001f64.ln()).exp())).abs() < 1e-15);
        assert!((m - 0.631937).abs() < 1e-6, "{m}");
        assert_eq!(mark_probability(0.0, 1.001), 0.0);
    }

    #[test]
    fn price_is_bounded_under_persistent_overload() {
        // gamma = 1, 1000 arrivals per 2 ms interval on a link that carries 2.5: the law adds
        // ~1000 per interval; after 10,000 intervals the price sits at p_max, where m is 1.
        let params = Params {
            gamma: 1.0,
            ..Params::default()
        };
        let mut r = Rem::new(&params, &ctx(BufferLimit::Packets(100)));
        for k in 0..10_000u64 {
            r.count = 1000.0;
            r.on_timer(SimTime((k + 1) * 2_000_000), &view(100));
        }
        let cap = price_max(1.001);
        assert_eq!(r.price, cap);
        assert_eq!(r.prob, 1.0);
        assert_eq!(mark_probability(cap, 1.001), 1.0);
        assert!(mark_probability(cap * 0.9, 1.001) < 1.0);
        // Once the overload ends the price falls back within a bounded number of intervals.
        let mut k = 10_000u64;
        while r.price > 0.0 && k < 40_000 {
            k += 1;
            r.on_timer(SimTime(k * 2_000_000), &view(0));
        }
        assert_eq!(
            r.price,
            0.0,
            "still {} after {} intervals",
            r.price,
            k - 10_000
        );
    }

    /// Scripted intervals: 10 Mbit/s, 1000-byte packets, T = 2 ms -> c = 2.5 packets/interval.
    #[test]
    fn update_rule_over_scripted_intervals() {
        let mut r = Rem::new(&Params::default(), &ctx(BufferLimit::Packets(100)));
        let mut rng = SimRng::scripted(vec![0.999_999; 100]);
        // Interval 1: 5 arrivals, backlog 40 at the update:
        // p = 0.001*(0.1*(40-20) + 5 - 2.5) = 0.001*4.5 = 0.0045.
        for i in 0..5 {
            r.on_enqueue(
                SimTime(i * 100_000),
                &Packet::default(),
                &view(10),
                &mut rng,
            );
        }
        assert_eq!(r.next_timer(), Some(SimTime(2_000_000)));
        r.on_timer(SimTime(2_000_000), &view(40));
        assert!((r.price - 0.0045).abs() < 1e-15, "{}", r.price);
        assert!((r.prob - (1.0 - 1.001f64.powf(-0.0045))).abs() < 1e-15);
        // Interval 2: 1 arrival, backlog 20: p = 0.0045 + 0.001*(0 + 1 - 2.5) = 0.003.
        r.on_enqueue(SimTime(2_500_000), &Packet::default(), &view(20), &mut rng);
        r.on_timer(SimTime(4_000_000), &view(20));
        assert!((r.price - 0.003).abs() < 1e-15, "{}", r.price);
        // Intervals 3 and 4 (caught up at once): empty queue, no arrivals: each
        // 0.001*(0.1*(0-20) + 0 - 2.5) = -0.0045 -> clamps at 0.
        r.on_timer(SimTime(8_000_000), &view(0));
        assert_eq!(r.price, 0.0);
        assert_eq!(r.next_timer(), Some(SimTime(10_000_000)));
    }

    #[test]
    fn byte_mode_counts_bytes_over_mean_size() {
        let mut r = Rem::new(&Params::default(), &ctx(BufferLimit::Bytes(100_000)));
        let mut rng = SimRng::scripted(vec![]);
        let q = QueueView {
            limit: BufferLimit::Bytes(100_000),
            len_bytes: 30_000,
            ..view(0)
        };
        // Two 1500-byte arrivals = 3 "packets" of 1000 bytes; backlog 30 "packets".
        let big = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        r.on_enqueue(SimTime(0), &big, &q, &mut rng);
        r.on_enqueue(SimTime(1), &big, &q, &mut rng);
        r.on_timer(SimTime(2_000_000), &q);
        // 0.001*(0.1*(30-20) + 3 - 2.5) = 0.0015
        assert!((r.price - 0.0015).abs() < 1e-15, "{}", r.price);
        assert_eq!(rng.drawn(), 0, "m = 0: no uniform drawn");
    }

    /// rem.cc's byte mode divides by the configured `mean_pktsize_`, not by the size of the
    /// packets that arrive: 2500-byte packets against S = 1000 count 2.5 packets each.
    #[test]
    fn byte_mode_normalises_by_the_reference_size_not_the_packet_size() {
        let p = Params {
            mean_pkt_size: Some(1000),
            ..Params::default()
        };
        // The link's data packets are 2500 bytes (what BuildContext says for mss = 2500).
        let c = BuildContext {
            mean_pkt_bytes: 2500,
            ..ctx(BufferLimit::Bytes(120_000))
        };
        let mut r = Rem::new(&p, &c);
        let mut rng = SimRng::scripted(vec![]);
        let q = QueueView {
            limit: BufferLimit::Bytes(120_000),
            len_pkts: 20,
            len_bytes: 50_000,
            link_rate_bps: 10_000_000,
        };
        let big = Packet {
            size_bytes: 2500,
            ..Default::default()
        };
        r.on_enqueue(SimTime(0), &big, &q, &mut rng);
        r.on_enqueue(SimTime(1), &big, &q, &mut rng);
        r.on_timer(SimTime(2_000_000), &q);
        // x = 5000/1000 = 5, b = 50000/1000 = 50, c = 10e6·0.002/(8·1000) = 2.5:
        // p = 0.001·(0.1·(50 − 20) + 5 − 2.5) = 0.0055. (Dividing by the packet size instead
        // would give x = 2, b = 20, c = 1 and p = 0.001.)
        assert!((r.price - 0.0055).abs() < 1e-15, "{}", r.price);
        // Unset, S is the link's data packet size.
        let r = Rem::new(&Params::default(), &c);
        assert_eq!(r.mean_pkt_bytes, 2500.0);
    }

    /// rem.cc sizes the link in packets of `mean_pktsize_` in packet mode too.
    #[test]
    fn packet_mode_capacity_uses_the_reference_size() {
        let p = Params {
            mean_pkt_size: Some(1000),
            ..Params::default()
        };
        let c = BuildContext {
            mean_pkt_bytes: 500,
            ..ctx(BufferLimit::Packets(100))
        };
        let mut r = Rem::new(&p, &c);
        let mut rng = SimRng::scripted(vec![]);
        for _ in 0..5 {
            r.on_enqueue(SimTime(0), &Packet::default(), &view(20), &mut rng);
        }
        r.on_timer(SimTime(2_000_000), &view(20));
        // c = 2.5 (1000-byte packets), not 5 (500-byte): p = 0.001·(0 + 5 − 2.5) = 0.0025.
        assert!((r.price - 0.0025).abs() < 1e-15, "{}", r.price);
    }

    /// rem.cc byte mode signals an arrival w.p. m·size/S; packet mode w.p. m whatever the size.
    #[test]
    fn byte_mode_scales_the_probability_by_size() {
        let p = Params {
            mean_pkt_size: Some(1000),
            ..Params::default()
        };
        let bytes_q = QueueView {
            limit: BufferLimit::Bytes(120_000),
            ..view(0)
        };
        let sized = |n: u32| Packet {
            size_bytes: n,
            ..Default::default()
        };
        let mut r = Rem::new(&p, &ctx(BufferLimit::Bytes(120_000)));
        r.prob = 0.1;
        // u = 0.2: 2500 bytes -> 0.25 > u, signalled; 1000 bytes -> 0.1 < u, passes.
        let mut rng = SimRng::scripted(vec![0.2, 0.2]);
        let big = r.on_enqueue(SimTime(0), &sized(2500), &bytes_q, &mut rng);
        let mid = r.on_enqueue(SimTime(0), &sized(1000), &bytes_q, &mut rng);
        assert_eq!(big, Verdict::Signal(Reason::Early));
        assert_eq!(mid, Verdict::Pass);
        // u = 0.05: 100 bytes -> 0.01 < u, passes (packet mode would signal it: 0.1 > u).
        let mut rng = SimRng::scripted(vec![0.05, 0.05]);
        let small = r.on_enqueue(SimTime(0), &sized(100), &bytes_q, &mut rng);
        assert_eq!(small, Verdict::Pass);
        let small_pkt_mode = r.on_enqueue(SimTime(0), &sized(100), &view(0), &mut rng);
        assert_eq!(small_pkt_mode, Verdict::Signal(Reason::Early));
        // m·size/S >= 1: signalled without drawing.
        r.prob = 0.5;
        let mut rng = SimRng::scripted(vec![]);
        let v = r.on_enqueue(SimTime(0), &sized(2000), &bytes_q, &mut rng);
        assert_eq!(v, Verdict::Signal(Reason::Early));
        assert_eq!(rng.drawn(), 0);
    }

    #[test]
    fn in_weight_filters_arrivals() {
        let p = Params {
            in_weight: 0.5,
            ..Params::default()
        };
        let mut r = Rem::new(&p, &ctx(BufferLimit::Packets(100)));
        let mut rng = SimRng::scripted(vec![]);
        for _ in 0..8 {
            r.on_enqueue(SimTime(0), &Packet::default(), &view(20), &mut rng);
        }
        // x̄ = 0.5*0 + 0.5*8 = 4; p = 0.001*(0 + 4 - 2.5) = 0.0015.
        r.on_timer(SimTime(2_000_000), &view(20));
        assert!((r.in_avg - 4.0).abs() < 1e-15);
        assert!((r.price - 0.0015).abs() < 1e-15);
    }

    #[test]
    fn qdisc_marks_under_overload_and_conserves() {
        let mut q = Params::default().build(&ctx(BufferLimit::Packets(200)));
        let mut rng = SimRng::new(4, 4);
        // 2 arrivals per 800 us dequeue (2x overload) for 2 s.
        for i in 0..2500u64 {
            let t = SimTime(i * 800_000);
            while let Some(n) = q.next_timer() {
                if n > t {
                    break;
                }
                q.on_timer(n, &mut rng);
            }
            q.enqueue(t, Packet::default(), &mut rng);
            q.enqueue(t, Packet::default(), &mut rng);
            q.dequeue(t, &mut rng, &mut |_, _| {});
            assert!(q.stats().conserved(q.len_pkts()));
        }
        let mut price = 0.0;
        q.probe(&mut |k, v| {
            if k == "price" {
                price = v
            }
        });
        // By hand: the queue gains one packet per 0.8 ms tick and is full (200) after 0.16 s; from then
        // on each 2 ms interval brings 5 arrivals against c = 2.5 with b ≈ 199, so the price grows
        // by 0.001·(0.1·179 + 2.5) = 0.0204 per interval: 920 intervals -> ~18.8, plus ~0.8 from
        // the ramp. m then rises roughly linearly to 1 − 1.001^-19.6 ≈ 0.019, so about
        // 0.01 · 5000 arrivals are dropped early.
        assert!((19.0..20.2).contains(&price), "{price}");
        let early = q.stats().dropped_before_enqueue[Reason::Early as usize];
        assert!((25..=80).contains(&early), "{early}");
    }

    #[test]
    fn validation_and_unknown_keys() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let cfg =
            parse("kind='rem'\ngamma=0.01\nphi=1.003\ntarget=55\nupdate_time='10ms'").unwrap();
        assert_eq!(cfg.kind(), "rem");
        assert_eq!(parse("kind='rem'\nmax_pp=0.1").unwrap_err().path, "max_pp");
        assert_eq!(parse("kind='rem'\nphi=1.0").unwrap_err().path, "phi");
        assert_eq!(parse("kind='rem'\ngamma=0").unwrap_err().path, "gamma");
        assert_eq!(parse("kind='rem'\ntarget=-1").unwrap_err().path, "target");
        assert_eq!(
            parse("kind='rem'\nin_weight=0").unwrap_err().path,
            "in_weight"
        );
        assert_eq!(
            parse("kind='rem'\nupdate_time='0ms'").unwrap_err().path,
            "update_time"
        );
        assert_eq!(
            parse("kind='rem'\nmean_pkt_size=0").unwrap_err().path,
            "mean_pkt_size"
        );
        assert!(parse("kind='rem'\nmean_pkt_size=1000").is_ok());
        let e = parse("kind='rem'\nnon_ect='mark'").unwrap_err();
        assert_eq!(e.path, "non_ect");
        assert!(e.to_string().contains("drop"), "{e}");
        assert!(parse("kind='rem'\nnon_ect='pass'").is_ok());
    }

    #[test]
    fn non_ect_pass_lets_a_picked_not_ect_packet_through_unmarked() {
        // Price high enough that every arrival is picked (m = 1): an ECN-capable packet is marked
        // either way; a Not-ECT one is dropped by default (RFC 3168) and passes under "pass"
        // (rem.cc with markpkts_), where the queue keeps it without a mark.
        let run = |non_ect: NonEct, ecn: Ecn| {
            let p = Params {
                non_ect,
                ..Params::default()
            };
            let mut rem = Rem::new(&p, &ctx(BufferLimit::Packets(100)));
            rem.prob = 1.0;
            let mut rng = SimRng::new(1, 1);
            let pkt = Packet {
                ecn,
                ..Packet::default()
            };
            let verdict = rem.on_enqueue(SimTime(1), &pkt, &view(10), &mut rng);
            // The same verdict through the glue: what the packet becomes.
            let mut out = pkt.clone();
            let mut stats = QdiscStats::default();
            let dropped = apply_verdict(&mut stats, p.ecn, &mut out, verdict);
            (verdict, dropped.is_some(), out.ecn)
        };
        let early = Verdict::Signal(Reason::Early);
        assert_eq!(run(NonEct::Drop, Ecn::Ect), (early, false, Ecn::Ce));
        assert_eq!(run(NonEct::Pass, Ecn::Ect), (early, false, Ecn::Ce));
        assert_eq!(run(NonEct::Drop, Ecn::NotEct), (early, true, Ecn::NotEct));
        assert_eq!(
            run(NonEct::Pass, Ecn::NotEct),
            (Verdict::Pass, false, Ecn::NotEct)
        );
        // The default is left out of the resolved table; "pass" is written.
        let text = toml::to_string(&Params::default()).unwrap();
        assert!(!text.contains("non_ect"), "{text}");
        let pass = Params {
            non_ect: NonEct::Pass,
            ..Params::default()
        };
        assert!(toml::to_string(&pass).unwrap().contains("non_ect = \"pass\""));
    }
}
