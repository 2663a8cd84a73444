//! CSFQ: Core-Stateless Fair Queueing, edge and core in one router.
//!
//! Source: I. Stoica, S. Shenker, H. Zhang, "Core-Stateless Fair Queueing: Achieving
//! Approximately Fair Bandwidth Allocations in High Speed Networks", ACM SIGCOMM 1998 (not in
//! `papers/`; it is a baseline of paper 002 §3, which used the authors' ns-2 code with the
//! recommended constants). In a dumbbell the bottleneck router plays both roles.
//!
//! # Edge: per-flow rate label (paper eq. 3)
//! On each arrival of flow i, with `T` the time since its previous arrival and `l` the packet
//! length: `r_i ← (1 − e^{−T/K})·l/T + e^{−T/K}·r_i`. As `T → 0` the first term tends to `l/K`
//! (used for simultaneous arrivals). A flow's first packet uses `T = K`. If the packet already
//! carries `rate_label_bps > 0` (an edge elsewhere wrote it), that label is used instead.
//!
//! # Core: probabilistic drop (eq. 2) and the fair share α (Fig. 3 pseudocode)
//! - Drop with probability `max(0, 1 − α/label)` (reason `policy`: the flow is over its share).
//! - `A` (aggregate arrival rate) and `F` (rate of packets CSFQ accepts) are estimated with the
//!   same exponential averaging, constant `K_α`.
//! - Congested (`A ≥ C`): the first packet starts a timer; after every further `K_c` spent
//!   congested, `α ← α·C/F`.
//! - Uncongested: the first packet starts a timer and resets `tmp_α = 0`; within `K_c`,
//!   `tmp_α ← max(tmp_α, label)`; after `K_c`, `α ← tmp_α` (the largest rate seen: nobody is
//!   dropped while the link is not congested).
//! - Buffer overflow: `α ← 0.99·α`, with consecutive overflow reductions limited to 25% in total
//!   (the paper's guard against over-correction); any regular update of α ends the run.
//!
//! # Readings and choices
//! - Initial α = C (the link rate): no drop before the first estimate. The paper's code starts
//!   from 0, which with eq. 2 would drop everything until the first uncongested window ends.
//! - `F` is updated for packets CSFQ does not drop; a packet later lost to buffer overflow has
//!   already been counted in `F` (as in the paper's pseudocode, where `estimate_α` runs before
//!   `enqueue`).
//! - Relabelling (Fig. 3, `label ← min(label, α)`): every packet CSFQ accepts leaves with
//!   `rate_label_bps` = min(the label it used, α), written in `Aqm::relabel` once the buffer has
//!   room. A packet that arrives unlabelled is labelled here (this router is its edge); a
//!   labelled one keeps its edge's estimate, capped by this hop's fair share. So along a path of
//!   CSFQ links (a `[topology]` scenario) only the first one estimates a flow's rate and the
//!   others act as core routers. In a dumbbell nothing downstream reads the label.
//! - Constants: K = 100 ms (as the brief and the paper), `K_α = K_c = 200 ms`, the values we
//!   recall from the paper's §3 (not in `papers/`; check against the original if precision
//!   matters).
//!
//! # Parameters
//! | key | unit | default |
//! |---|---|---|
//! | `k` | duration: flow-rate averaging constant K | 100ms |
//! | `k_alpha` | duration: averaging constant of A and F | 200ms |
//! | `k_c` | duration: window for congestion decisions | 200ms |
//! | `overflow_decrease` | fraction cut from α per buffer overflow | 0.01 |
//! | `max_overflow_decrease` | bound on consecutive overflow cuts | 0.25 |
//!
//! Probes: `alpha_bps`, `arrival_bps` (A), `accepted_bps` (F), `congested`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::FlowMap;
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Duration: averaging constant K of the per-flow rate estimate (100ms).
    pub k: SimDuration,
    /// Duration: averaging constant of the aggregate arrival (A) and accepted (F) rates.
    pub k_alpha: SimDuration,
    /// Duration: how long congestion (or its absence) lasts before alpha is updated.
    pub k_c: SimDuration,
    /// Fraction: alpha is cut by this much at each buffer overflow (0.01).
    pub overflow_decrease: f64,
    /// Fraction: bound on consecutive overflow cuts of alpha (0.25).
    pub max_overflow_decrease: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k: SimDuration::from_millis(100),
            k_alpha: SimDuration::from_millis(200),
            k_c: SimDuration::from_millis(200),
            overflow_decrease: 0.01,
            max_overflow_decrease: 0.25,
        }
    }
}

/// Eq. 3: `(1 − e^{−T/K})·l/T + e^{−T/K}·r_old` (bit/s), with the `T → 0` limit `l/K + r_old`.
#[inline]
pub fn exp_rate(r_old: f64, bits: f64, t: f64, k: f64) -> f64 {
    if t <= 0.0 {
        return r_old + bits / k;
    }
    let e = (-t / k).exp();
    (1.0 - e) * bits / t + e * r_old
}

/// An exponentially averaged rate (eq. 3) with its last update time.
#[derive(Copy, Clone, Debug, Default)]
struct RateEst {
    rate: f64,
    last: Option<SimTime>,
}

impl RateEst {
    #[inline]
    fn update(&mut self, now: SimTime, bits: f64, k: f64) -> f64 {
        let t = match self.last {
            Some(prev) => now.since(prev).as_secs_f64(),
            None => k,
        };
        self.rate = exp_rate(self.rate, bits, t, k);
        self.last = Some(now);
        self.rate
    }
}

pub struct Csfq {
    p: Params,
    k: f64,
    k_alpha: f64,
    c: f64,
    /// Each flow's arrival-rate estimate (edge routers: the label), flows seen only.
    flows: FlowMap<RateEst>,
    a: RateEst,
    f: RateEst,
    pub alpha: f64,
    congested: bool,
    start: SimTime,
    tmp_alpha: f64,
    /// α when the current run of overflow reductions began (None: no run).
    overflow_base: Option<f64>,
    /// The label the last accepted arrival was judged by (for `relabel`).
    last_label: f64,
}

impl Csfq {
    pub fn new(p: &Params, link_rate_bps: u64) -> Csfq {
        Csfq {
            p: p.clone(),
            k: p.k.as_secs_f64(),
            k_alpha: p.k_alpha.as_secs_f64(),
            c: link_rate_bps as f64,
            flows: FlowMap::default(),
            a: RateEst::default(),
            f: RateEst::default(),
            alpha: link_rate_bps as f64,
            congested: false,
            start: SimTime::ZERO,
            tmp_alpha: 0.0,
            overflow_base: None,
            last_label: 0.0,
        }
    }

    /// The fair-share update of the paper's `estimate_α`, after A (and F) were updated.
    fn estimate_alpha(&mut self, now: SimTime, label: f64) {
        if self.a.rate >= self.c {
            if !self.congested {
                self.congested = true;
                self.start = now;
            } else if now > self.start + self.p.k_c {
                if self.f.rate > 0.0 {
                    self.alpha *= self.c / self.f.rate;
                }
                self.start = now;
                self.overflow_base = None;
            }
        } else if self.congested {
            self.congested = false;
            self.start = now;
            self.tmp_alpha = 0.0;
        } else if now < self.start + self.p.k_c {
            self.tmp_alpha = self.tmp_alpha.max(label);
        } else {
            self.alpha = self.tmp_alpha;
            self.start = now;
            self.tmp_alpha = 0.0;
            self.overflow_base = None;
        }
    }
}

impl Aqm for Csfq {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        _q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        let bits = pkt.size_bytes as f64 * 8.0;
        let estimated = self
            .flows
            .entry(pkt.flow)
            .or_default()
            .update(now, bits, self.k);
        let label = if pkt.rate_label_bps > 0.0 {
            pkt.rate_label_bps
        } else {
            estimated
        };
        let prob = if label > 0.0 {
            (1.0 - self.alpha / label).max(0.0)
        } else {
            0.0
        };
        let dropped = prob > 0.0 && rng.uniform() < prob;
        self.last_label = label;
        self.a.update(now, bits, self.k_alpha);
        if !dropped {
            self.f.update(now, bits, self.k_alpha);
        }
        self.estimate_alpha(now, label);
        if dropped {
            Verdict::Drop(Reason::Policy)
        } else {
            Verdict::Pass
        }
    }

    fn relabel(&mut self, pkt: &mut Packet) {
        pkt.rate_label_bps = self.last_label.min(self.alpha);
    }

    fn on_overflow(&mut self, _now: SimTime, _pkt: &Packet, _q: &QueueView) {
        let base = *self.overflow_base.get_or_insert(self.alpha);
        let floor = base * (1.0 - self.p.max_overflow_decrease);
        self.alpha = (self.alpha * (1.0 - self.p.overflow_decrease)).max(floor);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha_bps", self.alpha);
        out("arrival_bps", self.a.rate);
        out("accepted_bps", self.f.rate);
        out("congested", if self.congested { 1.0 } else { 0.0 });
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "csfq";
    const NAME: &'static str = "CSFQ (Core-Stateless Fair Queueing, edge + core)";
    const SOURCE: &'static str =
        "Stoica, Shenker, Zhang, SIGCOMM 1998: r_i = (1-e^(-T/K)) l/T + e^(-T/K) r_i, \
        drop w.p. max(0, 1 - alpha/r_i), alpha <- alpha C/F when congested, max label otherwise";

    fn validate(&self) -> Result<(), ScenarioError> {
        for (key, d) in [("k", self.k), ("k_alpha", self.k_alpha), ("k_c", self.k_c)] {
            check(d > SimDuration::ZERO, key, d, "a positive duration")?;
        }
        check(
            (0.0..1.0).contains(&self.overflow_decrease),
            "overflow_decrease",
            self.overflow_decrease,
            "in [0, 1)",
        )?;
        check(
            (0.0..1.0).contains(&self.max_overflow_decrease),
            "max_overflow_decrease",
            self.max_overflow_decrease,
            "in [0, 1)",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(false, Csfq::new(self, ctx.link_rate_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::qdisc::{BufferLimit, Outcome};

    #[test]
    fn rate_estimate_formula() {
        // T = K: (1 − e^−1)·l/T + e^−1·r_old. l = 8000 bits, T = 0.1 s: l/T = 80 kbit/s.
        let r = exp_rate(50_000.0, 8000.0, 0.1, 0.1);
        let e = (-1.0f64).exp();
        assert!((r - ((1.0 - e) * 80_000.0 + e * 50_000.0)).abs() < 1e-6);
        // T → 0 limit.
        assert_eq!(exp_rate(1000.0, 8000.0, 0.0, 0.1), 1000.0 + 80_000.0);
        // Periodic arrivals converge to l/T whatever the start.
        let mut x = 0.0;
        for _ in 0..1000 {
            x = exp_rate(x, 8000.0, 0.004, 0.1);
        }
        assert!((x - 2_000_000.0).abs() < 1.0, "{x}");
    }

    /// Three periodic flows of 1000-byte packets at 1, 2 and 7 Mbit/s into a 6 Mbit/s link.
    /// Max-min fair share: flow 1 gets 1; the remaining 5 split over two flows would be 2.5,
    /// but flow 2 wants only 2, so it gets 2 and flow 3 gets 6 − 1 − 2 = 3. So α → 3 Mbit/s
    /// (check: min(1,3) + min(2,3) + min(7,3) = 6).
    #[test]
    fn fair_share_converges_to_max_min_share() {
        let c = 6_000_000u64;
        let ctx = BuildContext {
            limit: BufferLimit::Packets(2000),
            link_rate_bps: c,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        };
        let mut q = Params::default().build(&ctx);
        let mut rng = SimRng::new(11, 0);
        let period_ns = [8_000_000u64, 4_000_000, 8_000_000 / 7];
        let mut next = [0u64, 1_000, 2_000];
        let service = SimDuration::transmission(1000, c).0;
        let mut link_free_at: Option<u64> = None;
        let end = 6_000_000_000u64;
        let measure_from = 3_000_000_000u64;
        let mut sent = [0u64; 3];
        let mut label_sum = [0.0f64; 3];
        let mut id = 0;
        loop {
            let t_arr = *next.iter().min().unwrap();
            let t_dep = link_free_at.unwrap_or(u64::MAX);
            let now = t_arr.min(t_dep);
            if now >= end {
                break;
            }
            if t_dep <= t_arr {
                match q.dequeue(SimTime(now), &mut rng, &mut |_, _| {}) {
                    Some(p) => {
                        if now >= measure_from {
                            sent[p.flow as usize] += 1;
                            label_sum[p.flow as usize] += p.rate_label_bps;
                        }
                        link_free_at = Some(now + service);
                    }
                    None => link_free_at = None,
                }
            } else {
                let f = next.iter().position(|&t| t == t_arr).unwrap();
                next[f] += period_ns[f];
                id += 1;
                let pkt = Packet {
                    id,
                    flow: f as u32,
                    size_bytes: 1000,
                    ..Default::default()
                };
                let out = q.enqueue(SimTime(now), pkt, &mut rng);
                assert_ne!(out, Outcome::Dropped(Reason::Overflow));
                if link_free_at.is_none() {
                    link_free_at = Some(now);
                }
            }
        }
        assert!(q.stats().conserved(q.len_pkts()));
        let mut alpha = 0.0;
        q.probe(&mut |k, v| {
            if k == "alpha_bps" {
                alpha = v
            }
        });
        assert!(
            (alpha - 3e6).abs() < 0.15e6,
            "alpha = {alpha} bit/s, expected ≈ 3 Mbit/s"
        );
        let secs = (end - measure_from) as f64 / 1e9;
        let mbps: Vec<f64> = sent
            .iter()
            .map(|&n| n as f64 * 8000.0 / secs / 1e6)
            .collect();
        assert!((mbps[0] - 1.0).abs() < 0.05, "{mbps:?}");
        assert!((mbps[1] - 2.0).abs() < 0.1, "{mbps:?}");
        assert!((mbps[2] - 3.0).abs() < 0.15, "{mbps:?}");
        // Relabelling: packets leave labelled min(rate, α), so a router further along the path
        // sees the 7 Mbit/s flow at its 3 Mbit/s share and the others at their own rates.
        let labels: Vec<f64> = (0..3)
            .map(|f| label_sum[f] / sent[f] as f64 / 1e6)
            .collect();
        assert!((labels[0] - 1.0).abs() < 0.05, "{labels:?}");
        assert!((labels[1] - 2.0).abs() < 0.1, "{labels:?}");
        assert!((labels[2] - 3.0).abs() < 0.15, "{labels:?}");
    }

    #[test]
    fn uses_an_existing_label_and_drop_probability() {
        // α starts at C = 1 Mbit/s; a packet labelled 4 Mbit/s is dropped w.p. 1 − 1/4 = 0.75.
        let mut a = Csfq::new(&Params::default(), 1_000_000);
        let view = QueueView {
            len_pkts: 0,
            len_bytes: 0,
            limit: BufferLimit::Packets(10),
            link_rate_bps: 1_000_000,
        };
        let labelled = Packet {
            size_bytes: 1000,
            rate_label_bps: 4e6,
            ..Default::default()
        };
        let mut r = SimRng::scripted(vec![0.74, 0.76]);
        assert_eq!(
            a.on_enqueue(SimTime(0), &labelled, &view, &mut r),
            Verdict::Drop(Reason::Policy)
        );
        assert_eq!(
            a.on_enqueue(SimTime(1), &labelled, &view, &mut r),
            Verdict::Pass
        );
        // A label below α draws nothing.
        let low = Packet {
            size_bytes: 1000,
            rate_label_bps: 0.5e6,
            ..Default::default()
        };
        let mut none = SimRng::scripted(vec![]);
        assert_eq!(
            a.on_enqueue(SimTime(2), &low, &view, &mut none),
            Verdict::Pass
        );
        assert_eq!(none.drawn(), 0);
    }

    #[test]
    fn overflow_cuts_alpha_by_one_percent_at_most_25_percent() {
        let mut a = Csfq::new(&Params::default(), 1_000_000);
        let view = QueueView {
            len_pkts: 10,
            len_bytes: 10_000,
            limit: BufferLimit::Packets(10),
            link_rate_bps: 1_000_000,
        };
        let pkt = Packet::default();
        a.on_overflow(SimTime(0), &pkt, &view);
        assert!((a.alpha - 990_000.0).abs() < 1e-6);
        for _ in 0..100 {
            a.on_overflow(SimTime(0), &pkt, &view);
        }
        assert!((a.alpha - 750_000.0).abs() < 1e-6, "{}", a.alpha);
    }

    #[test]
    fn validation_and_misspelled_keys() {
        let bad = AqmConfig::from_table(toml::from_str("kind='csfq'\nk_alfa='1ms'").unwrap());
        assert_eq!(bad.unwrap_err().path, "k_alfa");
        let err =
            AqmConfig::from_table(toml::from_str("kind='csfq'\nk='0ms'").unwrap()).unwrap_err();
        assert_eq!(err.path, "k");
        let err =
            AqmConfig::from_table(toml::from_str("kind='csfq'\noverflow_decrease=1.0").unwrap())
                .unwrap_err();
        assert_eq!(err.path, "overflow_decrease");
    }
}
