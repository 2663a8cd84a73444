//! TCP-model GREEN: drop each arrival with the probability that holds a TCP flow to its fair share.
//!
//! Source: `papers/000_18b337451fd23142.txt` (practical GREEN, Kapadia/Feng line of work), §2
//! (algorithm and pseudocode), §5 (RTT estimation: GREEN-Embedded, GREEN-IDMaps), §6 (setup).
//!
//! # Equations
//! Mathis et al.: `BW = MSS·c / (RTT·√p)` (eq. 1). With the fair share `L/N` for `BW` and the
//! utilisation correction α(t) (eq. 3):
//!
//! ```text
//! p = ( N · MSS · c / (α(t) · L · RTT) )²          clamped to [0, 1]
//! ```
//! with `L` the link rate in bytes/s (`QueueView::link_rate_bps / 8`), `MSS` the arriving
//! packet's size in bytes (what a router sees; the paper used 1 KB packets), `RTT` in seconds
//! and `N` the number of flows seen in the previous window. An arrival is dropped (or marked,
//! `ecn = true`) when a uniform `u < p`; a uniform is drawn only when `0 < p < 1`.
//!
//! α(t) controller, once per window (§2, pseudocode `update`):
//! ```text
//! if overflow drops in the window > 0:   α ← 0.95 · α
//! else if U < 0.98:                      α ← α · (1 + U) / (2U)
//! U = bytes dequeued in the window / (L · window)
//! ```
//! `adapt_alpha = false` keeps α = 1 (the original GREEN of Feng et al.).
//!
//! # Parameters
//! | key | unit | default | paper / reading |
//! |---|---|---|---|
//! | `c` | dimensionless | 1.31 | §6 "we fix the value of c at 1.31" (random loss, ACK per packet) |
//! | `window` | duration | "1s" | §2/§6 "we use window = 1sec" |
//! | `adapt_alpha` | bool | true | the paper's contribution (false = original GREEN, α ≡ 1) |
//! | `alpha_decrease` | factor | 0.95 | §2 |
//! | `target_utilisation` | fraction, 0..1 | 0.98 | §2 |
//! | `rtt_source` | `"label"`, `"idmaps"` or `"true"` | "label" | below |
//! | `idmaps_draw` | `"flow"` or `"lookup"` | "flow" | below |
//! | `default_rtt` | duration | "100ms" | our choice (the paper has none), below |
//! | `unlabelled_rtt` | `"default"` or `"base"` | "default" | below |
//! | `flow_count` | `"exact"` or `"bitmap"` | "exact" | below |
//! | `bitmap_bits` | count | 4096 | 512 bytes; only with `flow_count = "bitmap"` |
//! | `ecn` | bool | false | the paper evaluates a packet-*dropping* model with TCP Reno (§4); with `ecn = true` ECN-capable packets are marked instead |
//!
//! - `rtt_source`: "label" is GREEN-Embedded: the packet's `rtt_label` (the sender's current
//!   RTT estimate, §5.1). "idmaps" is GREEN-IDMaps: the estimate service's answer for the flow,
//!   base RTT × U[0.5, 2] (§5.2, §6). "true" is the ideal GREEN of Feng et al. with global
//!   knowledge: the flow's *base* (propagation) RTT, which excludes queueing delay (so it is
//!   smaller than what the sender measures).
//! - `idmaps_draw`: when GREEN-IDMaps' factor U[0.5, 2] is drawn. §6 estimates "each RTT to be
//!   a uniformly random number between one-half and two times the actual RTT": "flow" draws it
//!   once per flow (a lookup database answers the same for the same destination; the factor is
//!   drawn at scenario expansion), "lookup" draws it afresh at every packet's lookup (from the
//!   qdisc's random stream, base RTT x U[0.5, 2]). Since E[1/U^2] = 1 on [0.5, 2], per-lookup
//!   draws leave each flow's expected drop probability that of its base RTT.
//! - `default_rtt`: used when the chosen source has no answer: a packet without an RTT label
//!   (unmodified senders, ACKs), or a flow unknown to the build context. A real router does not
//!   know a flow's ideal RTT, so the fallback is a configured constant rather than the true RTT.
//! - `unlabelled_rtt`: with `rtt_source = "label"`, what a packet without a label gets.
//!   "default" is `default_rtt`; "base" is the flow's base RTT, as GREEN-IDMaps would look it up
//!   (unknown flows still get `default_rtt`). §2 applies p "to all arriving packets" and §5.1
//!   never says which RTT a sender without labels (a UDP source) carries: the two readings.
//! - `flow_count`: "exact" keeps, per flow seen on the link, the number of the last window in
//!   which the flow was seen (a `DenseFlowMap<u32>`, one entry per flow): N is exact. "bitmap" is the
//!   bounded-memory estimator the paper's "no per-flow state" asks for (§8 says N "can be easily
//!   estimated"): linear counting (Whang, Vander-Zanden and Taylor 1990) over a bitmap of
//!   `bitmap_bits` bits; each arrival sets bit `hash(flow) mod m`, and at the window's end
//!   `N̂ = −m · ln(V)` with `V` the fraction of zero bits (`N̂ = m · ln m` if no bit is zero).
//!   Chosen because it is one bit per slot, one hash per packet, unbiased for N ≪ m·ln m, and
//!   its error is about `√(m(e^t − t − 1))/N` for `t = N/m` (under 2 % for 400 flows in 4096
//!   bits).
//!
//! # Readings where the paper is ambiguous
//! - Which N: the pseudocode updates N once per window, so p uses the count of the *previous
//!   completed* window. During the first window N = 0, so GREEN drops nothing early until the
//!   first window completes (only overflow drops).
//! - Flows "seen" = flows with at least one *arrival* in the window (dropped arrivals count).
//! - Bounds on α(t) (ours; the paper's law is unbounded). The law multiplies α by (1+U)/(2U)
//!   per window while U < target, so on a lightly loaded link α explodes (U = 10⁻⁵ gives ×5·10⁴
//!   per window, f64 overflow after ~70 windows; an infinite α then made every arrival a drop,
//!   and with nothing leaving the link U stayed 0 and α never moved again: a dead link for the
//!   rest of the run). We bound it by what α means:
//!   ```text
//!   α ← min(α_law, max(N, 1))      N: flows seen in the window just closed (N = 0: α unchanged)
//!   α ← max(α, 1e-6)
//!   ```
//!   α·L/N is the rate GREEN grants each flow. At α = N that grant is the whole link L, so a
//!   larger α cannot let any flow send faster; it only winds the controller up, so that it takes
//!   ln(α/N)/ln(1/0.95) windows of overflow drops to come back once load arrives. The floor keeps
//!   α positive and finite so the multiplicative law can always recover (0.95ᵏ underflows to 0
//!   after ~14,500 windows of overflow drops; 0·(1+U)/(2U) would stay 0).
//! - U = 0 (nothing left the link in a window): with flows present (N > 0) the law's factor is
//!   unbounded, so α goes to the cap N (a link that carried nothing while N flows arrived grants
//!   them the most it can); with no arrivals (N = 0, an idle link) α is left unchanged, as an
//!   idle link says nothing about how to scale flows that are not there. Even bounded, α settles
//!   only if windows with overflow drops are common enough: a share
//!   `f = ln((1+U)/2U) / (ln((1+U)/2U) − ln 0.95)` of them at utilisation U elsewhere (51 % at
//!   U = 0.90, 23 % at U = 0.97); otherwise it sits at the cap. The paper-000 reproduction shows
//!   where TCP Reno's utilisation makes it climb and SACK senders do not.
//! - Windows are closed by the timer (`next_timer`/`on_timer`) at `k·window`, exactly. Hooks that
//!   see `now` past a boundary close the due windows first (the same result, in case the driver
//!   lets an arrival at the boundary run before the timer).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, FifoArithmetic, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::DenseFlowMap;
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// Where the router gets a flow's RTT.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// GREEN-Embedded: the packet's RTT label.
    Label,
    /// GREEN-IDMaps: the estimate service (base RTT × U[0.5, 2]).
    Idmaps,
    /// Ideal GREEN: the flow's base (propagation) RTT.
    True,
}

/// When GREEN-IDMaps' estimate factor U[0.5, 2] is drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IdmapsDraw {
    /// Once per flow (the same answer at every lookup).
    Flow,
    /// Afresh at every packet's lookup.
    Lookup,
}

impl IdmapsDraw {
    fn is_flow(&self) -> bool {
        *self == IdmapsDraw::Flow
    }
}

/// GREEN-Embedded: the RTT of a packet without an RTT label.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnlabelledRtt {
    /// `default_rtt`.
    #[default]
    Default,
    /// The flow's base (propagation) RTT.
    Base,
}

impl UnlabelledRtt {
    fn is_default(&self) -> bool {
        *self == UnlabelledRtt::Default
    }
}

/// How the number of active flows is counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FlowCount {
    /// Exact, from dense flow ids.
    Exact,
    /// Linear counting over a bitmap (bounded memory, no per-flow state).
    Bitmap,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Mathis constant (dimensionless); paper: 1.31 (random loss, ACK every packet).
    pub c: f64,
    /// Duration of the flow-count / utilisation window; paper: 1s.
    pub window: SimDuration,
    /// Adapt alpha(t) to utilisation and overflows (false: alpha = 1, original GREEN).
    pub adapt_alpha: bool,
    /// Factor on alpha after a window with overflow drops, in (0, 1); paper: 0.95.
    pub alpha_decrease: f64,
    /// Alpha grows by (1+U)/(2U) while utilisation U is below this, in (0, 1]; paper: 0.98.
    pub target_utilisation: f64,
    /// "label" (GREEN-Embedded: packet's RTT label), "idmaps" (estimate service, base RTT x
    /// U[0.5,2]) or "true" (base propagation RTT, ideal GREEN).
    pub rtt_source: RttSource,
    /// With rtt_source = "idmaps": "flow" (factor drawn once per flow) or "lookup" (drawn
    /// afresh at every packet). The default "flow" is left out of a resolved scenario, so a
    /// scenario without the key resolves (and hashes) the same as one that gives it.
    // The schema states the default itself: serde skips it when serialising `Default`.
    #[serde(skip_serializing_if = "IdmapsDraw::is_flow")]
    #[schemars(extend("default" = "flow"))]
    pub idmaps_draw: IdmapsDraw,
    /// Duration used when the RTT source has no answer (unlabelled packet, unknown flow).
    pub default_rtt: SimDuration,
    /// With rtt_source = "label": "default" (an unlabelled packet gets `default_rtt`) or
    /// "base" (the flow's base RTT). "default" is left out of a resolved scenario, so
    /// scenarios written before this key existed resolve (and hash) as they did.
    #[serde(skip_serializing_if = "UnlabelledRtt::is_default")]
    pub unlabelled_rtt: UnlabelledRtt,
    /// "exact" (per flow id) or "bitmap" (linear counting, bounded memory).
    pub flow_count: FlowCount,
    /// Bits of the linear-counting bitmap (flow_count = "bitmap"), 64..=2^24.
    pub bitmap_bits: u32,
    /// Mark ECN-capable packets instead of dropping them; paper: false (dropping).
    pub ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            c: 1.31,
            window: SimDuration::from_secs(1),
            adapt_alpha: true,
            alpha_decrease: 0.95,
            target_utilisation: 0.98,
            rtt_source: RttSource::Label,
            idmaps_draw: IdmapsDraw::Flow,
            default_rtt: SimDuration::from_millis(100),
            unlabelled_rtt: UnlabelledRtt::Default,
            flow_count: FlowCount::Exact,
            bitmap_bits: 4096,
            ecn: false,
        }
    }
}

/// Equation (3): `(N·MSS·c / (α·L·RTT))²`, clamped to [0, 1]. `link_bytes_per_s` = L in bytes/s.
/// No flows gives 0; a non-positive RTT, α or L (with flows present) gives 1.
pub fn drop_probability(
    n_flows: f64,
    mss_bytes: f64,
    c: f64,
    alpha: f64,
    link_bytes_per_s: f64,
    rtt_s: f64,
) -> f64 {
    if n_flows <= 0.0 || mss_bytes <= 0.0 {
        return 0.0;
    }
    let denom = alpha * link_bytes_per_s * rtt_s;
    if denom.is_nan() || denom <= 0.0 {
        return 1.0;
    }
    // An infinite denominator gives x = 0, p = 0 (no early drops), never p = 1.
    let x = n_flows * mss_bytes * c / denom;
    (x * x).min(1.0)
}

/// Numerical floor of α(t) (see the module header, "Bounds on α(t)").
pub const ALPHA_MIN: f64 = 1e-6;

/// One α(t) step at the end of a window: `decrease·α` after overflow drops, else
/// `α·(1+U)/(2U)` when `U < target`; unchanged otherwise. The result is bounded to
/// `[ALPHA_MIN, max(n_flows, 1)]` when flows were seen (`n_flows > 0`); with `n_flows = 0` (an idle
/// window) α is unchanged.
pub fn alpha_step(
    alpha: f64,
    utilisation: f64,
    overflow_drops: u64,
    decrease: f64,
    target: f64,
    n_flows: f64,
) -> f64 {
    if n_flows.is_nan() || n_flows <= 0.0 {
        return alpha;
    }
    let cap = n_flows.max(1.0);
    let next = if overflow_drops > 0 {
        alpha * decrease
    } else if utilisation <= 0.0 {
        cap // the law's factor (1+U)/(2U) is unbounded at U = 0
    } else if utilisation < target {
        alpha * (1.0 + utilisation) / (2.0 * utilisation)
    } else {
        alpha
    };
    next.clamp(ALPHA_MIN, cap)
}

/// Linear counting: the number of distinct items hashed into `m` bits, `zero_bits` of which are
/// still zero. Saturated bitmaps (no zero bit) give `m·ln m`.
pub fn linear_count(m: u32, zero_bits: u32) -> f64 {
    let m = m as f64;
    let z = (zero_bits as f64).max(1.0);
    -m * (z / m).ln()
}

/// SplitMix64 finaliser: a fast, well-mixed 64-bit hash.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Active-flow counter for the current window.
enum Counter {
    /// `last_seen[flow]` = 1 + number of the last window in which the flow arrived (absent:
    /// never); one entry per flow seen on this link, looked up by id at every arrival.
    Exact {
        last_seen: DenseFlowMap<u32>,
        window_no: u32,
        count: u32,
    },
    Bitmap {
        words: Vec<u64>,
        m: u32,
        salt: u64,
    },
}

impl Counter {
    #[inline]
    fn see(&mut self, flow: FlowId) {
        match self {
            Counter::Exact {
                last_seen,
                window_no,
                count,
            } => {
                let tag = *window_no + 1;
                let seen = last_seen.entry(flow);
                if *seen != tag {
                    *seen = tag;
                    *count += 1;
                }
            }
            Counter::Bitmap { words, m, salt } => {
                let bit = (mix64(flow as u64 ^ *salt) % *m as u64) as usize;
                words[bit / 64] |= 1 << (bit % 64);
            }
        }
    }

    /// The count (or estimate) of the window just ended; starts a new window.
    fn finish(&mut self) -> f64 {
        match self {
            Counter::Exact {
                window_no, count, ..
            } => {
                let n = *count as f64;
                *count = 0;
                *window_no += 1;
                n
            }
            Counter::Bitmap { words, m, .. } => {
                let ones: u32 = words.iter().map(|w| w.count_ones()).sum();
                let n = if ones == 0 {
                    0.0
                } else {
                    linear_count(*m, *m - ones)
                };
                words.iter_mut().for_each(|w| *w = 0);
                n
            }
        }
    }
}

/// GREEN's state.
pub struct GreenTcp {
    // configured
    c: f64,
    window: SimDuration,
    adapt_alpha: bool,
    alpha_decrease: f64,
    target_utilisation: f64,
    rtt_source: RttSource,
    /// GREEN-IDMaps with `idmaps_draw = "lookup"`: `flow_rtt_s` holds base RTTs and each lookup
    /// multiplies by a fresh U[0.5, 2].
    draw_per_lookup: bool,
    default_rtt_s: f64,
    /// Per-flow RTT (seconds) for `idmaps`/`true`, and for `label` the RTT of an unlabelled
    /// packet (`unlabelled_rtt = "base"`), precomputed at build; 0 = unknown.
    flow_rtt_s: Vec<f64>,
    // maintained
    counter: Counter,
    link_rate_bps: u64,
    window_end: SimTime,
    n_flows: f64,
    alpha: f64,
    bytes_out: u64,
    overflows: u64,
    utilisation: f64,
    p_last: f64,
}

impl GreenTcp {
    pub fn new(p: &Params, ctx: &BuildContext) -> GreenTcp {
        let counter = match p.flow_count {
            FlowCount::Exact => Counter::Exact {
                last_seen: DenseFlowMap::default(),
                window_no: 0,
                count: 0,
            },
            FlowCount::Bitmap => Counter::Bitmap {
                words: vec![0; (p.bitmap_bits as usize).div_ceil(64)],
                m: p.bitmap_bits,
                salt: mix64(ctx.seed ^ 0x6752_4545_4e00_0000),
            },
        };
        let draw_per_lookup =
            p.rtt_source == RttSource::Idmaps && p.idmaps_draw == IdmapsDraw::Lookup;
        let flow_rtt_s = ctx
            .flows
            .iter()
            .map(|f| match p.rtt_source {
                RttSource::Idmaps if draw_per_lookup => f.base_rtt.as_secs_f64(),
                RttSource::Idmaps => f.idmaps_rtt.as_secs_f64(),
                RttSource::True => f.base_rtt.as_secs_f64(),
                RttSource::Label if p.unlabelled_rtt == UnlabelledRtt::Base => {
                    f.base_rtt.as_secs_f64()
                }
                RttSource::Label => 0.0,
            })
            .collect();
        GreenTcp {
            c: p.c,
            window: p.window,
            adapt_alpha: p.adapt_alpha,
            alpha_decrease: p.alpha_decrease,
            target_utilisation: p.target_utilisation,
            rtt_source: p.rtt_source,
            draw_per_lookup,
            default_rtt_s: p.default_rtt.as_secs_f64(),
            flow_rtt_s,
            counter,
            link_rate_bps: ctx.link_rate_bps,
            window_end: SimTime::ZERO + p.window,
            n_flows: 0.0,
            alpha: 1.0,
            bytes_out: 0,
            overflows: 0,
            utilisation: 0.0,
            p_last: 0.0,
        }
    }

    /// The RTT (seconds) GREEN uses for this packet.
    #[inline]
    fn rtt_s(&self, pkt: &Packet) -> f64 {
        let rtt = match self.rtt_source {
            RttSource::Label if pkt.rtt_label > SimDuration::ZERO => pkt.rtt_label.as_secs_f64(),
            // Unlabelled: the flow's base RTT with unlabelled_rtt = "base", else 0 (default_rtt).
            RttSource::Label | RttSource::Idmaps | RttSource::True => self
                .flow_rtt_s
                .get(pkt.flow as usize)
                .copied()
                .unwrap_or(0.0),
        };
        if rtt > 0.0 {
            rtt
        } else {
            self.default_rtt_s
        }
    }

    /// GREEN-IDMaps with `idmaps_draw = "lookup"`: the flow's base RTT times a fresh U[0.5, 2]
    /// (`default_rtt`, undrawn, for a flow the build context does not know).
    fn lookup_rtt_s(&self, pkt: &Packet, rng: &mut SimRng) -> f64 {
        match self.flow_rtt_s.get(pkt.flow as usize).copied() {
            Some(base) if base > 0.0 => base * rng.uniform_range(0.5, 2.0),
            _ => self.default_rtt_s,
        }
    }

    /// Closes every window that ended at or before `now` (inlined: at every arrival and
    /// departure, and a window closes once in hundreds of packets).
    #[inline(always)]
    fn advance(&mut self, now: SimTime) {
        if now >= self.window_end {
            self.close_windows(now);
        }
    }

    #[inline(never)]
    fn close_windows(&mut self, now: SimTime) {
        while now >= self.window_end {
            self.close_window();
            self.window_end += self.window;
        }
    }

    fn close_window(&mut self) {
        self.n_flows = self.counter.finish();
        let capacity_bits = self.link_rate_bps as f64 * self.window.as_secs_f64();
        self.utilisation = if capacity_bits > 0.0 {
            self.bytes_out as f64 * 8.0 / capacity_bits
        } else {
            0.0
        };
        if self.adapt_alpha {
            self.alpha = alpha_step(
                self.alpha,
                self.utilisation,
                self.overflows,
                self.alpha_decrease,
                self.target_utilisation,
                self.n_flows,
            );
        }
        self.bytes_out = 0;
        self.overflows = 0;
    }
}

impl Aqm for GreenTcp {
    /// Decides at arrival only; departures and idle periods are bookkeeping.
    fn fifo_arithmetic(&self) -> FifoArithmetic {
        FifoArithmetic::Decides
    }

    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now);
        self.counter.see(pkt.flow);
        // No flows counted yet: p is 0 whatever the RTT, so no factor is drawn.
        let rtt_s = if self.draw_per_lookup && self.n_flows > 0.0 {
            self.lookup_rtt_s(pkt, rng)
        } else {
            self.rtt_s(pkt)
        };
        let p = drop_probability(
            self.n_flows,
            pkt.size_bytes as f64,
            self.c,
            self.alpha,
            q.link_rate_bps as f64 / 8.0,
            rtt_s,
        );
        self.p_last = p;
        let hit = if p >= 1.0 {
            true
        } else if p > 0.0 {
            rng.uniform() < p
        } else {
            false
        };
        if hit {
            Verdict::Signal(Reason::Early)
        } else {
            Verdict::Pass
        }
    }

    fn on_overflow(&mut self, now: SimTime, _pkt: &Packet, _q: &QueueView) {
        self.advance(now);
        self.overflows += 1;
    }

    fn on_dequeue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now);
        self.bytes_out += pkt.size_bytes as u64;
        Verdict::Pass
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.window_end)
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        self.link_rate_bps = q.link_rate_bps;
        self.advance(now);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_last", self.p_last);
        out("alpha", self.alpha);
        out("n_flows", self.n_flows);
        out("utilisation", self.utilisation);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "green_tcp";
    const NAME: &'static str = "GREEN, TCP-model (practical GREEN with alpha(t))";
    const SOURCE: &'static str =
        "papers/000_18b337451fd23142.txt, eq. (3) p = (N*MSS*c/(alpha*L*RTT))^2, \
         alpha(t) controller of section 2, RTT sources of section 5";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.c.is_finite() && self.c > 0.0,
            "c",
            self.c,
            "a positive number (paper: 1.31)",
        )?;
        check(
            self.window >= crate::time::MIN_TIMER_PERIOD,
            "window",
            self.window,
            "a duration of at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        check(
            self.alpha_decrease > 0.0 && self.alpha_decrease < 1.0,
            "alpha_decrease",
            self.alpha_decrease,
            "in (0, 1)",
        )?;
        check(
            self.target_utilisation > 0.0 && self.target_utilisation <= 1.0,
            "target_utilisation",
            self.target_utilisation,
            "in (0, 1]",
        )?;
        check(
            self.default_rtt > SimDuration::ZERO,
            "default_rtt",
            self.default_rtt,
            "a positive duration such as \"100ms\"",
        )?;
        check(
            (64..=1 << 24).contains(&self.bitmap_bits),
            "bitmap_bits",
            self.bitmap_bits,
            "an integer in 64..=16777216",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, GreenTcp::new(self, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{AqmConfig, FlowInfo};
    use crate::qdisc::BufferLimit;

    const RATE: u64 = 10_000_000; // 10 Mbit/s = 1.25e6 bytes/s

    fn view(len: usize) -> QueueView {
        QueueView {
            len_pkts: len,
            len_bytes: len as u64 * 1000,
            limit: BufferLimit::Packets(100),
            link_rate_bps: RATE,
        }
    }

    fn pkt(flow: FlowId, rtt_ms: Option<u64>) -> Packet {
        Packet {
            flow,
            size_bytes: 1000,
            rtt_label: rtt_ms.map_or(SimDuration::ZERO, SimDuration::from_millis),
            ..Default::default()
        }
    }

    fn ctx(flows: &[FlowInfo]) -> BuildContext<'_> {
        BuildContext {
            limit: BufferLimit::Packets(100),
            link_rate_bps: RATE,
            mean_pkt_bytes: 1000,
            flows,
            seed: 7,
        }
    }

    #[test]
    fn probability_matches_equation_3_by_hand() {
        // N=10, MSS=1000 B, c=1.31, alpha=1, L=1.25e6 B/s, RTT=0.1 s:
        // x = 10*1000*1.31 / (1.25e6*0.1) = 13100/125000 = 0.1048; p = 0.01098304.
        let p = drop_probability(10.0, 1000.0, 1.31, 1.0, 1.25e6, 0.1);
        assert!((p - 0.01098304).abs() < 1e-12, "{p}");
        // alpha = 2 halves x, quarters p.
        let p2 = drop_probability(10.0, 1000.0, 1.31, 2.0, 1.25e6, 0.1);
        assert!((p2 - 0.01098304 / 4.0).abs() < 1e-12, "{p2}");
        // Paper's setup: N=100, 155 Mbit/s (19.375e6 B/s), RTT 0.072 s:
        // x = 100*1000*1.31/(19.375e6*0.072) = 131000/1395000 = 0.0939068..; p = 0.00881849..
        let p3 = drop_probability(100.0, 1000.0, 1.31, 1.0, 19.375e6, 0.072);
        let x: f64 = 131000.0 / 1395000.0;
        assert!((p3 - x * x).abs() < 1e-15);
        assert!((p3 - 0.0088185).abs() < 1e-6);
        // Clamp and guards.
        assert_eq!(
            drop_probability(1000.0, 1000.0, 1.31, 1.0, 1.25e6, 0.01),
            1.0
        );
        assert_eq!(drop_probability(0.0, 1000.0, 1.31, 1.0, 1.25e6, 0.1), 0.0);
        assert_eq!(drop_probability(5.0, 1000.0, 1.31, 1.0, 1.25e6, 0.0), 1.0);
    }

    #[test]
    fn alpha_controller_steps() {
        // Overflow wins over low utilisation.
        assert!((alpha_step(2.0, 0.5, 3, 0.95, 0.98, 10.0) - 1.9).abs() < 1e-15);
        // U = 0.5 -> factor 1.5 (the paper's own example: target 75 %).
        assert!((alpha_step(1.0, 0.5, 0, 0.95, 0.98, 10.0) - 1.5).abs() < 1e-15);
        // U = 0.8 -> 1.8/1.6 = 1.125.
        assert!((alpha_step(1.0, 0.8, 0, 0.95, 0.98, 10.0) - 1.125).abs() < 1e-15);
        // At or above target, no overflow: unchanged.
        assert_eq!(alpha_step(1.3, 0.98, 0, 0.95, 0.98, 10.0), 1.3);
        // Idle window (no flows seen): unchanged, whatever U.
        assert_eq!(alpha_step(1.3, 0.0, 0, 0.95, 0.98, 0.0), 1.3);
        // U = 0 with flows present: straight to the cap N.
        assert_eq!(alpha_step(1.3, 0.0, 0, 0.95, 0.98, 4.0), 4.0);
    }

    #[test]
    fn alpha_is_bounded_by_the_flow_count_and_a_floor() {
        // A light link (U = 1e-5) multiplies alpha by ~5e4 per window in the paper's law; the cap
        // holds it at N (here 2 flows), and 100 such windows leave it finite.
        let mut a = 1.0;
        for _ in 0..100 {
            a = alpha_step(a, 1e-5, 0, 0.95, 0.98, 2.0);
        }
        assert_eq!(a, 2.0);
        // A single flow still gets the cap 1.
        assert_eq!(alpha_step(1.0, 1e-5, 0, 0.95, 0.98, 1.0), 1.0);
        // 20,000 windows of overflow drops: 0.95^20000 underflows to 0; the floor keeps it.
        let mut b = 1.0;
        for _ in 0..20_000 {
            b = alpha_step(b, 0.99, 1, 0.95, 0.98, 3.0);
        }
        assert_eq!(b, ALPHA_MIN);
        // ... and the law recovers from the floor.
        assert!(alpha_step(b, 0.5, 0, 0.95, 0.98, 3.0) > b);
        // An infinite alpha (which the law cannot reach) would mean no early drop, not p = 1.
        assert_eq!(
            drop_probability(5.0, 1000.0, 1.31, f64::INFINITY, 1.25e6, 0.1),
            0.0
        );
    }

    /// Scripted windows: 1 s windows on a 10 Mbit/s link (capacity 1.25e6 bytes per window).
    #[test]
    fn alpha_follows_scripted_windows() {
        let p = Params::default();
        let mut g = GreenTcp::new(&p, &ctx(&[]));
        let mut rng = SimRng::new(0, 0);
        let q = view(0);
        let sec = |s: f64| SimTime::from_secs_f64(s);
        // Two flows arrive in each of windows 1-3 (alpha's cap is then N = 2).
        let arrive = |g: &mut GreenTcp, t: f64, rng: &mut SimRng| {
            for f in 0..2 {
                g.on_enqueue(sec(t), &pkt(f, None), &q, rng);
            }
        };
        // Window 1: 625 packets of 1000 B leave -> U = 0.5 -> alpha 1.5.
        arrive(&mut g, 0.0, &mut rng);
        for i in 0..625 {
            g.on_dequeue(sec(0.001 * i as f64), &pkt(0, None), &q, &mut rng);
        }
        assert_eq!(g.next_timer(), Some(sec(1.0)));
        g.on_timer(sec(1.0), &q);
        assert!((g.utilisation - 0.5).abs() < 1e-12);
        assert!((g.alpha - 1.5).abs() < 1e-12, "{}", g.alpha);
        // Window 2: U = 0.8 but one overflow -> alpha 1.5*0.95.
        arrive(&mut g, 1.0, &mut rng);
        for i in 0..1000 {
            g.on_dequeue(sec(1.0 + 0.0009 * i as f64), &pkt(0, None), &q, &mut rng);
        }
        g.on_overflow(sec(1.5), &pkt(0, None), &q);
        g.on_timer(sec(2.0), &q);
        assert!((g.utilisation - 0.8).abs() < 1e-12);
        assert!((g.alpha - 1.425).abs() < 1e-12, "{}", g.alpha);
        // Window 3: full utilisation -> unchanged. Window 4 (caught up lazily): idle -> unchanged.
        arrive(&mut g, 2.0, &mut rng);
        for i in 0..1250 {
            g.on_dequeue(sec(2.0 + 0.0007 * i as f64), &pkt(0, None), &q, &mut rng);
        }
        g.on_timer(sec(4.0), &q);
        assert_eq!(g.utilisation, 0.0);
        assert!((g.alpha - 1.425).abs() < 1e-12);
        assert_eq!(g.next_timer(), Some(sec(5.0)));

        // adapt_alpha = false keeps alpha at 1.
        let fixed = Params {
            adapt_alpha: false,
            ..Params::default()
        };
        let mut g = GreenTcp::new(&fixed, &ctx(&[]));
        g.on_dequeue(sec(0.5), &pkt(0, None), &q, &mut rng);
        g.on_timer(sec(1.0), &q);
        assert_eq!(g.alpha, 1.0);
    }

    #[test]
    fn flow_count_from_previous_window_and_p_applied() {
        // alpha fixed at 1 (nothing leaves this queue, so adapt_alpha would take alpha to N).
        let p = Params {
            adapt_alpha: false,
            ..Params::default()
        };
        let mut g = GreenTcp::new(&p, &ctx(&[]));
        let q = view(0);
        // Scripted uniforms: 0.0 would be a drop at any p > 0.
        let mut rng = SimRng::scripted(vec![0.0; 100]);
        // First window: N = 0, so no early drop and no uniform drawn.
        for f in 0..10 {
            let v = g.on_enqueue(
                SimTime::from_secs_f64(0.1),
                &pkt(f, Some(100)),
                &q,
                &mut rng,
            );
            assert_eq!(v, Verdict::Pass);
        }
        assert_eq!(rng.drawn(), 0);
        // Second window: N = 10 (flows 0..9, each seen once or more).
        let t = SimTime::from_secs_f64(1.2);
        let v = g.on_enqueue(t, &pkt(3, Some(100)), &q, &mut rng);
        assert_eq!(g.n_flows, 10.0);
        assert!((g.p_last - 0.01098304).abs() < 1e-12, "{}", g.p_last);
        assert_eq!(v, Verdict::Signal(Reason::Early));
        assert_eq!(rng.drawn(), 1);
        // A uniform above p passes.
        let mut hi = SimRng::scripted(vec![0.011]);
        assert_eq!(
            g.on_enqueue(t, &pkt(3, Some(100)), &q, &mut hi),
            Verdict::Pass
        );
        // Unlabelled packet: default_rtt (100 ms) gives the same p.
        g.on_enqueue(t, &pkt(3, None), &q, &mut hi);
        assert!((g.p_last - 0.01098304).abs() < 1e-12);
        // Third window: only flow 3 was seen in window 2.
        g.on_timer(SimTime::from_secs_f64(2.0), &q);
        assert_eq!(g.n_flows, 1.0);
    }

    #[test]
    fn idmaps_draw_per_flow_or_per_lookup() {
        // Ten flows of base RTT 100 ms whose per-flow IDMaps answer is 80 ms.
        let flows = vec![
            FlowInfo {
                base_rtt: SimDuration::from_millis(100),
                idmaps_rtt: SimDuration::from_millis(80),
                packet_bytes: 1000,
            };
            10
        ];
        let q = view(0);
        let p_at = |rtt_ms: f64| drop_probability(10.0, 1000.0, 1.31, 1.0, RATE as f64 / 8.0, rtt_ms / 1e3);
        for (draw, script, want) in [
            // Per flow: the 80 ms answer, one uniform (the drop decision) per packet.
            (IdmapsDraw::Flow, vec![0.99], vec![p_at(80.0)]),
            // Per lookup: base x (0.5 + 1.5 u) for u = 0 and u = 1, then the decision.
            (
                IdmapsDraw::Lookup,
                vec![0.0, 0.99, 1.0, 0.99],
                vec![p_at(50.0), p_at(200.0)],
            ),
        ] {
            let p = Params {
                rtt_source: RttSource::Idmaps,
                idmaps_draw: draw,
                adapt_alpha: false,
                ..Params::default()
            };
            let mut g = GreenTcp::new(&p, &ctx(&flows));
            let mut none = SimRng::scripted(vec![]);
            for f in 0..10 {
                g.on_enqueue(SimTime::from_secs_f64(0.1), &pkt(f, None), &q, &mut none);
            }
            assert_eq!(none.drawn(), 0, "{draw:?}: first window, N = 0");
            let mut rng = SimRng::scripted(script.clone());
            for w in &want {
                g.on_enqueue(SimTime::from_secs_f64(1.2), &pkt(3, None), &q, &mut rng);
                assert!((g.p_last - w).abs() < 1e-12, "{draw:?}: {} vs {w}", g.p_last);
            }
            assert_eq!(rng.drawn(), script.len() as u64, "{draw:?}");
        }
        // A flow the build context does not know: default_rtt, no factor drawn.
        let p = Params {
            rtt_source: RttSource::Idmaps,
            idmaps_draw: IdmapsDraw::Lookup,
            ..Params::default()
        };
        let g = GreenTcp::new(&p, &ctx(&flows));
        let mut rng = SimRng::scripted(vec![]);
        assert_eq!(g.lookup_rtt_s(&pkt(99, None), &mut rng), 0.1);
        assert_eq!(rng.drawn(), 0);
    }

    #[test]
    fn rtt_sources() {
        let flows = vec![
            FlowInfo {
                base_rtt: SimDuration::from_millis(50),
                idmaps_rtt: SimDuration::from_millis(80),
                packet_bytes: 1000,
            };
            2
        ];
        let labelled = pkt(1, Some(200));
        for (src, want_ms) in [
            (RttSource::Label, 200.0),
            (RttSource::Idmaps, 80.0),
            (RttSource::True, 50.0),
        ] {
            let p = Params {
                rtt_source: src,
                ..Params::default()
            };
            let g = GreenTcp::new(&p, &ctx(&flows));
            assert!((g.rtt_s(&labelled) * 1e3 - want_ms).abs() < 1e-9, "{src:?}");
            // Unknown flow -> default_rtt.
            assert!((g.rtt_s(&pkt(9, None)) - 0.1).abs() < 1e-12, "{src:?}");
        }
    }

    #[test]
    fn unlabelled_packets_get_default_or_base_rtt() {
        let flows = vec![
            FlowInfo {
                base_rtt: SimDuration::from_millis(50),
                idmaps_rtt: SimDuration::from_millis(80),
                packet_bytes: 1000,
            };
            2
        ];
        for (unlabelled, want_ms) in [(UnlabelledRtt::Default, 100.0), (UnlabelledRtt::Base, 50.0)]
        {
            let p = Params {
                unlabelled_rtt: unlabelled,
                ..Params::default()
            };
            let g = GreenTcp::new(&p, &ctx(&flows));
            assert!((g.rtt_s(&pkt(1, None)) * 1e3 - want_ms).abs() < 1e-9, "{unlabelled:?}");
            // A label wins; an unknown flow falls back to default_rtt.
            assert!((g.rtt_s(&pkt(1, Some(200))) - 0.2).abs() < 1e-12);
            assert!((g.rtt_s(&pkt(9, None)) - 0.1).abs() < 1e-12);
        }
        // "default" is left out of the resolved table; "base" is written.
        let base = Params {
            unlabelled_rtt: UnlabelledRtt::Base,
            ..Params::default()
        };
        let text = toml::to_string(&Params::default()).unwrap();
        assert!(!text.contains("unlabelled_rtt"), "{text}");
        assert!(toml::to_string(&base)
            .unwrap()
            .contains("unlabelled_rtt = \"base\""));
    }

    #[test]
    fn bitmap_counter_estimates_flow_count() {
        // Linear counting by hand: m = 64, 32 zero bits -> -64 ln(1/2) = 44.36.
        assert!((linear_count(64, 32) - 64.0 * 2f64.ln()).abs() < 1e-12);
        assert!((linear_count(64, 0) - 64.0 * 64f64.ln()).abs() < 1e-12);
        let p = Params {
            flow_count: FlowCount::Bitmap,
            ..Params::default()
        };
        let mut g = GreenTcp::new(&p, &ctx(&[]));
        let q = view(0);
        let mut rng = SimRng::new(1, 1);
        for rep in 0..3 {
            for f in 0..400 {
                g.on_enqueue(SimTime(rep * 1000 + f as u64), &pkt(f, None), &q, &mut rng);
            }
        }
        g.on_timer(SimTime::from_secs_f64(1.0), &q);
        // Standard error for N=400, m=4096 is about 1.6 %; allow 8 %.
        assert!((g.n_flows - 400.0).abs() < 32.0, "{}", g.n_flows);
        // Window 2 saw nothing: estimate 0.
        g.on_timer(SimTime::from_secs_f64(2.0), &q);
        assert_eq!(g.n_flows, 0.0);
    }

    #[test]
    fn qdisc_conserves_and_drops_early() {
        let flows = vec![FlowInfo::default(); 50];
        let p = Params {
            rtt_source: RttSource::True,
            default_rtt: SimDuration::from_millis(10),
            ..Params::default()
        };
        let mut q = p.build(&ctx(&flows));
        let mut rng = SimRng::new(3, 3);
        // 50 flows for 2 s, one arrival per ms, dequeue every ms.
        for i in 0..2000u64 {
            let t = SimTime(i * 1_000_000);
            if let Some(next) = q.next_timer() {
                if next <= t {
                    q.on_timer(t, &mut rng);
                }
            }
            q.enqueue(t, pkt((i % 50) as u32, None), &mut rng);
            q.dequeue(t, &mut rng, &mut |_, _| {});
            assert!(q.stats().conserved(q.len_pkts()));
        }
        // N = 50 at 10 ms on 10 Mbit/s: x = 50*1000*1.31/(1.25e6*0.01) = 5.24 -> p = 1 in window 2.
        assert!(q.stats().dropped_before_enqueue[Reason::Early as usize] >= 999);
        let mut probes = Vec::new();
        q.probe(&mut |k, v| probes.push((k, v)));
        assert!(probes.contains(&("n_flows", 50.0)));
        assert!(probes.contains(&("p_last", 1.0)));
    }

    #[test]
    fn validation_and_unknown_keys() {
        let parse = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        let cfg =
            parse("kind='green_tcp'\nrtt_source='idmaps'\nwindow='500ms'\nflow_count='bitmap'")
                .unwrap();
        assert_eq!(cfg.kind(), "green_tcp");
        assert_eq!(
            parse("kind='green_tcp'\nmax_pp=0.1").unwrap_err().path,
            "max_pp"
        );
        assert_eq!(
            parse("kind='green_tcp'\nrtt_source='guess'")
                .unwrap_err()
                .path,
            "rtt_source"
        );
        assert_eq!(parse("kind='green_tcp'\nc=0").unwrap_err().path, "c");
        assert_eq!(
            parse("kind='green_tcp'\nwindow='0s'").unwrap_err().path,
            "window"
        );
        assert_eq!(
            parse("kind='green_tcp'\nalpha_decrease=1.0")
                .unwrap_err()
                .path,
            "alpha_decrease"
        );
        assert_eq!(
            parse("kind='green_tcp'\nbitmap_bits=8").unwrap_err().path,
            "bitmap_bits"
        );
        assert_eq!(
            parse("kind='green_tcp'\nunlabelled_rtt='true'")
                .unwrap_err()
                .path,
            "unlabelled_rtt"
        );
        assert_eq!(
            parse("kind='green_tcp'\ndefault_rtt='0ms'")
                .unwrap_err()
                .path,
            "default_rtt"
        );
    }
}
