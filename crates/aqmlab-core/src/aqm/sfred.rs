//! SFRED: Scalable Fair RED with a Most-Recently-Used List (MRUL) of flows.
//!
//! Source: `papers/003_edfb7d1401f469aa.txt` §2 (H. Wang et al., "On the Scalable Fairness and
//! Efficient Active Queue Management of RED", 2009). Packet mode (§2: "all the computations …
//! are in packets").
//!
//! # State (§2.1)
//! An MRUL of at most `N = mrul_size` flows, most recently seen first. Each entry holds `H_ri`
//! (packets received) and `H_di` (packets dropped). A packet of a listed flow increments its
//! `H_ri` and moves it to the head; an unlisted flow gets a new head entry with `H_ri = 1`,
//! `H_di = 0`, evicting the tail (least recently seen) first when the list is full. Aggregates:
//! `H_r`, `H_d`, and `n` = number of flows in the list.
//!
//! # Per-packet decision, after the MRUL update
//! - fair rate `T_f = (H_r − H_d)/n`, flow rate `T_i = H_ri` (§2.2);
//! - **fast** if `T_i > (1 + α)·T_f` (eq. 1): RED with `max_pd = min(1, max_p·T_i/T_f)`;
//! - **unresponsive fast** if also `L_i > (1 + β)·L`, `L_i = H_di/H_ri`, `L = H_d/H_r` (§2.3):
//!   dropped with probability 1 (reason `policy`);
//! - otherwise **slow** if `H_ri < η` and `H_di = 0` (§2.4): RED with both thresholds raised by
//!   `k` packets;
//! - otherwise plain RED (`min_th`, `max_th`, `max_p`, `w_q`, count-based spacing
//!   `p_a = p_b/(1 − count·p_b)`; `avg ≥ max_th` (of the class's thresholds) is a forced drop).
//!
//! Every congestion signal the qdisc gives a flow (early/forced/policy verdicts, and buffer
//! overflows reported through `on_overflow`) increments `H_di` and `H_d`.
//!
//! # Readings taken where the paper is ambiguous
//! - **Fast-flow probability.** The paper prints `max_pd = T_f·max_p/T_i` yet says the loss
//!   probability "increase[s] by T_f/T_i times" and that "such increases in loss probability" curb
//!   a TCP flow. For a fast flow `T_i > T_f`, so the printed formula *lowers* its probability,
//!   contradicting the text and the purpose. We implement the increase,
//!   `max_pd = min(1, max_p·T_i/T_f)` (`max_pd = 1` if `T_f ≤ 0`); `fast_p = "printed"` runs
//!   the formula as printed instead, so that a reproduction can show both readings' numbers.
//! - **Counting window.** The paper never says over what time `H_r`, `H_d`, `H_ri`, `H_di` are
//!   counted; cumulative counts would make `T_i` mean "packets since first seen", so an old flow
//!   always looks fast and a new one slow, and `L` would freeze. We (1) keep `H_r`/`H_d` equal to
//!   the sums over the listed flows (eviction subtracts the evicted flow's counts), so
//!   `T_f` is the mean accepted count of the same flows `n` counts; and (2) halve every counter
//!   (integer halving) every `window` (default 1 s), an exponential memory of about two windows
//!   that keeps rates comparable between flows and lets `H_di` of a flow that stopped being
//!   dropped return to 0. Halving, not resetting: a reset would make every flow "slow"
//!   (`H_ri < η`, `H_di = 0`) right after each window boundary.
//! - **Marks.** With `ecn = true` a `Signal` may become a mark instead of a drop; it is still
//!   counted in `H_di` (a congestion signal the flow should answer), so ECN does not let an
//!   unresponsive flow escape §2.3. With the paper's `ecn = false` nothing changes.
//! - **Order of tests.** Fast (and unresponsive) is tested before slow: a flow over its fair
//!   share is not protected even if young.
//! - **`k`** (slow-flow threshold raise) is not given in the paper; default `k = η = 10`
//!   packets, so a slow flow's first η packets fit in the reserved space.
//! - **`N`** is not given either; default 100 (more than the paper's largest experiment, 32
//!   flows). The list lookup is O(1) here (an index by flow id plus a doubly linked list),
//!   not the paper's linear search; the behaviour is the same.
//!
//! # Parameters
//! | key | unit | default | paper |
//! |---|---|---|---|
//! | `min_th`, `max_th` | packets | 5, 15 | 5, 15 (§3) |
//! | `max_p` | probability | 0.1 | 0.1 (§3) |
//! | `w_q` | weight | 0.002 | 0.002 (§3) |
//! | `mrul_size` | flows (N) | 100 | not given |
//! | `alpha` | fraction | 0.1 | 0.1 (§2.2) |
//! | `beta` | fraction | 0.1 | 0.1 (§2.3) |
//! | `eta` | packets | 10 | 10 (§2.4) |
//! | `k` | packets | 10 | not given |
//! | `window` | duration | 1s | not given |
//! | `ecn` | bool | false | drops |
//! | `fast_p` | raised \| printed | raised | printed: `T_f·max_p/T_i` (§2.2), prose: raised |
//!
//! Probes: `avg`, `fair_rate` (T_f, packets per window-memory), `n_flows`, `loss_rate` (L).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::red::{self, Average};
use super::red_core::{linear_pb, spaced, validate_red};
use super::{AlgorithmParams, Aqm, BuildContext, FifoArithmetic, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::FlowMap;
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Packets: RED minimum threshold.
    pub min_th: f64,
    /// Packets: RED maximum threshold (forced drop above).
    pub max_th: f64,
    /// RED maximum probability (fast flows: max_p T_i/T_f, capped at 1).
    pub max_p: f64,
    /// Weight of the queue average EWMA.
    pub w_q: f64,
    /// Flows: capacity N of the Most-Recently-Used List.
    pub mrul_size: u32,
    /// Fast if T_i > (1 + alpha) T_f (paper 0.1).
    pub alpha: f64,
    /// Unresponsive if fast and L_i > (1 + beta) L (paper 0.1).
    pub beta: f64,
    /// Packets: slow if H_ri < eta and no drops (paper 10).
    pub eta: u32,
    /// Packets: both thresholds raised by k for slow flows (not given in the paper).
    pub k: f64,
    /// Duration: every window all MRUL counters are halved (not given in the paper).
    pub window: SimDuration,
    /// Mark ECN-capable packets instead of dropping (early signals only).
    pub ecn: bool,
    /// raised (fast flows: max_p T_i/T_f, the prose) | printed (max_p T_f/T_i, the formula as
    /// printed).
    pub fast_p: FastP,
}

/// §2.2's fast-flow maximum probability: the reading that raises it (`max_p·T_i/T_f`, the
/// default, as the prose describes) or the formula as printed (`max_p·T_f/T_i`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FastP {
    /// `max_pd = min(1, max_p·T_i/T_f)`: a fast flow is dropped more (the prose).
    Raised,
    /// `max_pd = max_p·T_f/T_i`: the formula as printed (lowers a fast flow's probability).
    Printed,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            mrul_size: 100,
            alpha: 0.1,
            beta: 0.1,
            eta: 10,
            k: 10.0,
            window: SimDuration::from_secs(1),
            ecn: false,
            fast_p: FastP::Raised,
        }
    }
}

const NONE: u32 = u32::MAX;

#[derive(Copy, Clone, Debug)]
struct Entry {
    flow: FlowId,
    hr: u64,
    hd: u64,
    prev: u32,
    next: u32,
}

/// The Most-Recently-Used List: at most `cap` flows, head = most recently seen. Slots live in a
/// preallocated slab; `slot_of` finds a listed flow in O(1) and holds only the listed flows.
#[derive(Clone, Debug)]
pub struct Mrul {
    cap: usize,
    slots: Vec<Entry>,
    slot_of: FlowMap<u32>,
    head: u32,
    tail: u32,
    /// Aggregate received / dropped, always the sums over the listed flows.
    pub hr: u64,
    pub hd: u64,
}

impl Mrul {
    pub fn new(cap: usize) -> Mrul {
        Mrul {
            cap: cap.max(1),
            slots: Vec::with_capacity(cap.max(1)),
            slot_of: FlowMap::default(),
            head: NONE,
            tail: NONE,
            hr: 0,
            hd: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn unlink(&mut self, s: u32) {
        let Entry { prev, next, .. } = self.slots[s as usize];
        if prev != NONE {
            self.slots[prev as usize].next = next;
        } else {
            self.head = next;
        }
        if next != NONE {
            self.slots[next as usize].prev = prev;
        } else {
            self.tail = prev;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.slots[s as usize].prev = NONE;
        self.slots[s as usize].next = self.head;
        if self.head != NONE {
            self.slots[self.head as usize].prev = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }

    fn slot(&self, flow: FlowId) -> Option<u32> {
        self.slot_of.get(&flow).copied()
    }

    /// Counts one arrival of `flow` and moves it to the head (§2.1). Returns `(H_ri, H_di)`.
    pub fn arrival(&mut self, flow: FlowId) -> (u64, u64) {
        let s = match self.slot(flow) {
            Some(s) => {
                self.unlink(s);
                s
            }
            None => {
                let s = if self.slots.len() < self.cap {
                    self.slots.push(Entry {
                        flow,
                        hr: 0,
                        hd: 0,
                        prev: NONE,
                        next: NONE,
                    });
                    (self.slots.len() - 1) as u32
                } else {
                    // Full: evict the least recently seen flow (the tail).
                    let t = self.tail;
                    self.unlink(t);
                    let old = self.slots[t as usize];
                    self.hr -= old.hr;
                    self.hd -= old.hd;
                    self.slot_of.swap_remove(&old.flow);
                    self.slots[t as usize].hr = 0;
                    self.slots[t as usize].hd = 0;
                    self.slots[t as usize].flow = flow;
                    t
                };
                self.slot_of.insert(flow, s);
                s
            }
        };
        self.push_front(s);
        let e = &mut self.slots[s as usize];
        e.hr += 1;
        self.hr += 1;
        (e.hr, e.hd)
    }

    /// Counts a drop (or mark) of `flow` if it is listed.
    pub fn drop(&mut self, flow: FlowId) {
        if let Some(s) = self.slot(flow) {
            self.slots[s as usize].hd += 1;
            self.hd += 1;
        }
    }

    /// Halves every counter (integer halving) and recomputes the aggregates.
    pub fn decay(&mut self) {
        self.hr = 0;
        self.hd = 0;
        for e in &mut self.slots {
            e.hr >>= 1;
            e.hd >>= 1;
            self.hr += e.hr;
            self.hd += e.hd;
        }
    }

    /// `(H_ri, H_di)` of a listed flow.
    pub fn counts(&self, flow: FlowId) -> Option<(u64, u64)> {
        self.slot(flow)
            .map(|s| (self.slots[s as usize].hr, self.slots[s as usize].hd))
    }

    /// Flows from most to least recently seen (for tests and traces; allocates).
    pub fn order(&self) -> Vec<FlowId> {
        let mut v = Vec::with_capacity(self.slots.len());
        let mut s = self.head;
        while s != NONE {
            v.push(self.slots[s as usize].flow);
            s = self.slots[s as usize].next;
        }
        v
    }
}

/// How SFRED treats one packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Class {
    /// Fast and unresponsive: drop with probability 1 (§2.3).
    Unresponsive,
    /// Fast: RED with this maximum probability (§2.2).
    Fast {
        max_pd: f64,
    },
    /// Slow: RED with thresholds raised by k (§2.4).
    Slow,
    Normal,
}

/// §2.2–2.4 for a flow with counts `(hri, hdi)` in a list with aggregates `(hr, hd)` over `n`
/// flows. The flow's own arrival is already counted.
pub fn classify(hri: u64, hdi: u64, hr: u64, hd: u64, n: usize, p: &Params) -> Class {
    let n = n.max(1) as f64;
    let tf = (hr as f64 - hd as f64) / n;
    let ti = hri as f64;
    if ti > (1.0 + p.alpha) * tf {
        let li = if hri > 0 {
            hdi as f64 / hri as f64
        } else {
            0.0
        };
        let l = if hr > 0 { hd as f64 / hr as f64 } else { 0.0 };
        if li > (1.0 + p.beta) * l {
            return Class::Unresponsive;
        }
        let max_pd = if tf <= 0.0 {
            1.0
        } else if p.fast_p == FastP::Printed {
            p.max_p * tf / ti
        } else {
            (p.max_p * ti / tf).min(1.0)
        };
        return Class::Fast { max_pd };
    }
    if hri < p.eta as u64 && hdi == 0 {
        return Class::Slow;
    }
    Class::Normal
}

pub struct Sfred {
    p: Params,
    avg: Average,
    list: Mrul,
    count: i64,
    next_decay: Option<SimTime>,
}

impl Sfred {
    pub fn new(p: &Params, link_rate_bps: u64, mean_pkt_bytes: u32) -> Sfred {
        Sfred {
            p: p.clone(),
            avg: Average::new(p.w_q, red::ptc(link_rate_bps, mean_pkt_bytes.max(1))),
            list: Mrul::new(p.mrul_size as usize),
            count: -1,
            next_decay: None,
        }
    }

    fn red(&mut self, avg: f64, min_th: f64, max_th: f64, max_p: f64, rng: &mut SimRng) -> Verdict {
        if avg >= max_th {
            self.count = 0;
            return Verdict::Drop(Reason::Forced);
        }
        if avg < min_th {
            self.count = -1;
            return Verdict::Pass;
        }
        self.count += 1;
        let pa = spaced(linear_pb(avg, min_th, max_th, max_p), self.count);
        if pa > 0.0 && rng.uniform() < pa {
            self.count = 0;
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Pass
        }
    }
}

impl Aqm for Sfred {
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
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        match self.next_decay {
            None => self.next_decay = Some(now + self.p.window),
            Some(mut t) => {
                let mut halvings = 0;
                while now >= t && halvings < 64 {
                    self.list.decay();
                    t += self.p.window;
                    halvings += 1;
                }
                if now >= t {
                    t = now + self.p.window;
                }
                self.next_decay = Some(t);
            }
        }
        let avg = self.avg.update(now, q.len_pkts as f64);
        let (hri, hdi) = self.list.arrival(pkt.flow);
        let class = classify(
            hri,
            hdi,
            self.list.hr,
            self.list.hd,
            self.list.len(),
            &self.p,
        );
        let (min_th, max_th, max_p) = (self.p.min_th, self.p.max_th, self.p.max_p);
        let verdict = match class {
            Class::Unresponsive => Verdict::Drop(Reason::Policy),
            Class::Fast { max_pd } => self.red(avg, min_th, max_th, max_pd, rng),
            Class::Slow => self.red(avg, min_th + self.p.k, max_th + self.p.k, max_p, rng),
            Class::Normal => self.red(avg, min_th, max_th, max_p, rng),
        };
        if verdict != Verdict::Pass {
            self.list.drop(pkt.flow);
        }
        verdict
    }

    fn on_overflow(&mut self, _now: SimTime, pkt: &Packet, _q: &QueueView) {
        self.list.drop(pkt.flow);
    }

    fn on_dequeue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        // ns-3 RED: a dequeue that returns a packet ends an idle period.
        self.avg.busy();
        Verdict::Pass
    }

    fn on_empty(&mut self, now: SimTime) {
        self.avg.idle(now);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        let n = self.list.len().max(1) as f64;
        out("avg", self.avg.avg);
        out("fair_rate", (self.list.hr as f64 - self.list.hd as f64) / n);
        out("n_flows", self.list.len() as f64);
        out(
            "loss_rate",
            if self.list.hr > 0 {
                self.list.hd as f64 / self.list.hr as f64
            } else {
                0.0
            },
        );
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "sfred";
    const NAME: &'static str = "SFRED (Scalable Fair RED with a Most-Recently-Used List)";
    const SOURCE: &'static str = "papers/003_edfb7d1401f469aa.txt §2: T_f = (H_r - H_d)/n, fast if \
        H_ri > (1+alpha) T_f, unresponsive if also L_i > (1+beta) L, slow if H_ri < eta and H_di = 0";

    fn validate(&self) -> Result<(), ScenarioError> {
        validate_red(self.min_th, self.max_th, self.max_p, self.w_q)?;
        check(
            self.mrul_size >= 1 && self.mrul_size <= 1_000_000,
            "mrul_size",
            self.mrul_size,
            "flows, 1 ..= 1000000",
        )?;
        check(
            self.alpha.is_finite() && self.alpha >= 0.0,
            "alpha",
            self.alpha,
            ">= 0",
        )?;
        check(
            self.beta.is_finite() && self.beta >= 0.0,
            "beta",
            self.beta,
            ">= 0",
        )?;
        check(
            self.k.is_finite() && self.k >= 0.0,
            "k",
            self.k,
            "packets, >= 0",
        )?;
        check(
            self.window >= crate::time::MIN_TIMER_PERIOD,
            "window",
            self.window,
            "a duration of at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(
            self.ecn,
            Sfred::new(self, ctx.link_rate_bps, ctx.mean_pkt_bytes),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::AqmConfig;
    use crate::qdisc::{BufferLimit, Outcome};

    #[test]
    fn mrul_keeps_at_most_n_and_evicts_least_recent() {
        let mut l = Mrul::new(3);
        for f in [1, 2, 3] {
            l.arrival(f);
        }
        assert_eq!(l.order(), vec![3, 2, 1]);
        l.arrival(1); // 1 becomes most recent: 1, 3, 2
        l.arrival(1);
        l.drop(1);
        assert_eq!(l.order(), vec![1, 3, 2]);
        assert_eq!(l.counts(1), Some((3, 1)));
        assert_eq!((l.hr, l.hd), (5, 1));
        l.arrival(4); // full: evicts 2 (least recent)
        assert_eq!(l.order(), vec![4, 1, 3]);
        assert_eq!(l.len(), 3);
        assert_eq!(l.counts(2), None);
        assert_eq!((l.hr, l.hd), (5, 1), "2's one arrival left, 4's came");
        l.arrival(2); // evicts 3; 2 comes back fresh
        assert_eq!(l.order(), vec![2, 4, 1]);
        assert_eq!(l.counts(2), Some((1, 0)));
        assert_eq!((l.hr, l.hd), (5, 1));
        // Halving: 1 had (3, 1) → (1, 0); 4 and 2 had (1, 0) → (0, 0).
        l.decay();
        assert_eq!(l.counts(1), Some((1, 0)));
        assert_eq!((l.hr, l.hd), (1, 0));
        // A large flow id grows the index.
        l.arrival(1000);
        assert_eq!(l.order(), vec![1000, 2, 4]);
    }

    #[test]
    fn printed_fast_p_lowers_a_fast_flows_probability() {
        let p = Params {
            fast_p: FastP::Printed,
            ..Params::default()
        };
        // As below: T_f = 22.5, H_ri = 25 is fast; printed max_pd = 0.1·22.5/25 < max_p.
        match classify(25, 2, 100, 10, 4, &p) {
            Class::Fast { max_pd } => assert!((max_pd - 0.1 * 22.5 / 25.0).abs() < 1e-12),
            c => panic!("{c:?}"),
        }
        match classify(250, 0, 100, 10, 4, &p) {
            Class::Fast { max_pd } => assert!((max_pd - 0.1 * 22.5 / 250.0).abs() < 1e-12),
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn classification_follows_sections_2_2_to_2_4() {
        let p = Params::default();
        // Four flows, H_r = 100, H_d = 10: T_f = 90/4 = 22.5, (1+α)T_f = 24.75, L = 0.1.
        // H_ri = 25 > 24.75 with H_di = 2 (L_i = 0.08 ≤ 0.11): fast, max_pd = 0.1·25/22.5.
        match classify(25, 2, 100, 10, 4, &p) {
            Class::Fast { max_pd } => assert!((max_pd - 0.1 * 25.0 / 22.5).abs() < 1e-12),
            c => panic!("{c:?}"),
        }
        // Same rate, H_di = 3: L_i = 0.12 > 0.11 → unresponsive.
        assert_eq!(classify(25, 3, 100, 10, 4, &p), Class::Unresponsive);
        // H_ri = 24 ≤ 24.75: not fast; not slow (24 ≥ η) → normal, whatever its drops.
        assert_eq!(classify(24, 20, 100, 10, 4, &p), Class::Normal);
        // H_ri = 9 < η = 10 with no drops: slow; with one drop: normal; H_ri = 10: normal.
        assert_eq!(classify(9, 0, 100, 10, 4, &p), Class::Slow);
        assert_eq!(classify(9, 1, 100, 10, 4, &p), Class::Normal);
        assert_eq!(classify(10, 0, 100, 10, 4, &p), Class::Normal);
        // Very fast: max_pd capped at 1 (0.1·250/22.5 > 1).
        assert_eq!(
            classify(250, 0, 100, 10, 4, &p),
            Class::Fast { max_pd: 1.0 }
        );
        // Fast is tested before slow: one young flow among idle ones (T_f = 5/4 < 5/1.1).
        assert!(matches!(classify(5, 0, 5, 0, 4, &p), Class::Fast { .. }));
    }

    fn pkt(id: u64, flow: u32) -> Packet {
        Packet {
            id,
            flow,
            size_bytes: 1000,
            ..Default::default()
        }
    }

    fn ctx(limit: u32) -> BuildContext<'static> {
        BuildContext {
            limit: BufferLimit::Packets(limit),
            link_rate_bps: 10_000_000,
            mean_pkt_bytes: 1000,
            flows: &[],
            seed: 0,
        }
    }

    #[test]
    fn scripted_sequence_punishes_unresponsive_and_protects_slow() {
        // w_q = 1: avg = instantaneous queue. Queue held at 8 packets (between 5 and 15).
        let p = Params {
            w_q: 1.0,
            ..Params::default()
        };
        let mut aqm = Sfred::new(&p, 10_000_000, 1000);
        let view = |n: usize| QueueView {
            len_pkts: n,
            len_bytes: n as u64 * 1000,
            limit: BufferLimit::Packets(50),
            link_rate_bps: 10_000_000,
        };
        // Flows 0 and 1 each send 10 packets; uniform 0.999 is above every probability here.
        let mut rng = SimRng::scripted(vec![0.999; 1000]);
        let t = SimTime(1);
        for _ in 0..10 {
            for f in [0, 1] {
                assert_eq!(
                    aqm.on_enqueue(t, &pkt(0, f), &view(8), &mut rng),
                    Verdict::Pass
                );
            }
        }
        // Flow 2 is new: H_ri = 1 < η, no drops → slow: thresholds 15/25, avg = 14 → no drop
        // even though 14 is near max_th for the others (a normal flow would see p = 0.09).
        let mut zero = SimRng::scripted(vec![0.0; 10]);
        assert_eq!(
            aqm.on_enqueue(t, &pkt(0, 2), &view(14), &mut zero),
            Verdict::Pass
        );
        assert_eq!(
            zero.drawn(),
            0,
            "slow flow below its raised min_th: no draw"
        );
        // At avg = 16 a slow flow is inside its raised band (p_b = 0.1·1/10) but not forced,
        // while a normal flow would be forced.
        let v = aqm.on_enqueue(t, &pkt(0, 2), &view(16), &mut zero);
        assert_eq!(v, Verdict::Signal(Reason::Early), "uniform 0 < p");
        // Flow 3 blasts 40 packets: it becomes fast; early drops (uniform 0) raise its L_i above L
        // and it becomes unresponsive: every further packet is a policy drop.
        let mut drops = Vec::new();
        let mut rng0 = SimRng::scripted(vec![0.0; 1000]);
        for _ in 0..40 {
            drops.push(aqm.on_enqueue(t, &pkt(0, 3), &view(8), &mut rng0));
        }
        assert!(drops.contains(&Verdict::Signal(Reason::Early)));
        assert_eq!(*drops.last().unwrap(), Verdict::Drop(Reason::Policy));
        let (hr3, hd3) = aqm.list.counts(3).unwrap();
        assert_eq!(hr3, 40);
        let class = classify(hr3, hd3, aqm.list.hr, aqm.list.hd, aqm.list.len(), &p);
        assert_eq!(class, Class::Unresponsive);
    }

    #[test]
    fn counters_halve_every_window_and_conserve() {
        let p = Params::default();
        let mut q = p.build(&ctx(50));
        let mut rng = SimRng::new(0, 0);
        for i in 0..200u64 {
            q.enqueue(SimTime(i * 1_000_000), pkt(i, (i % 3) as u32), &mut rng);
            if i % 2 == 0 {
                q.dequeue(SimTime(i * 1_000_000), &mut rng, &mut |_, _| {});
            }
        }
        assert!(q.stats().conserved(q.len_pkts()));
        let mut n = 0.0;
        q.probe(&mut |k, v| {
            if k == "n_flows" {
                n = v
            }
        });
        assert_eq!(n, 3.0);
        // Direct check of the window: first packet at 0 arms the window (1 s);
        // a packet at 2.5 s triggers two halvings.
        let mut a = Sfred::new(&p, 10_000_000, 1000);
        let v = QueueView {
            len_pkts: 0,
            len_bytes: 0,
            limit: BufferLimit::Packets(50),
            link_rate_bps: 10_000_000,
        };
        for _ in 0..40 {
            a.on_enqueue(SimTime::ZERO, &pkt(0, 0), &v, &mut rng);
        }
        assert_eq!(a.list.counts(0), Some((40, 0)));
        a.on_enqueue(SimTime::from_secs_f64(2.5), &pkt(0, 0), &v, &mut rng);
        assert_eq!(a.list.counts(0), Some((40 / 4 + 1, 0)));
    }

    #[test]
    fn overflow_counts_as_a_drop_for_the_flow() {
        let mut q = Params::default().build(&ctx(2));
        let mut rng = SimRng::new(0, 0);
        for i in 0..3 {
            q.enqueue(SimTime(i), pkt(i, 7), &mut rng);
        }
        assert_eq!(q.stats().flow_counters(7).drops, 1);
        let mut loss = 0.0;
        q.probe(&mut |k, v| {
            if k == "loss_rate" {
                loss = v
            }
        });
        assert!((loss - 1.0 / 3.0).abs() < 1e-12);
        let out = q.enqueue(SimTime(5), pkt(9, 7), &mut rng);
        assert!(matches!(out, Outcome::Dropped(_)));
    }

    #[test]
    fn validation_and_misspelled_keys() {
        let bad = AqmConfig::from_table(toml::from_str("kind='sfred'\nmax_pp=0.1").unwrap());
        assert_eq!(bad.unwrap_err().path, "max_pp");
        let bad = AqmConfig::from_table(toml::from_str("kind='sfred'\nmrul_sise=5").unwrap());
        assert_eq!(bad.unwrap_err().path, "mrul_sise");
        let err = AqmConfig::from_table(toml::from_str("kind='sfred'\nmrul_size=0").unwrap())
            .unwrap_err();
        assert_eq!(err.path, "mrul_size");
        let err = AqmConfig::from_table(toml::from_str("kind='sfred'\nwindow='0s'").unwrap())
            .unwrap_err();
        assert_eq!(err.path, "window");
        assert!(
            AqmConfig::from_table(toml::from_str("kind='sfred'\nwindow='500ms'").unwrap()).is_ok()
        );
    }
}
