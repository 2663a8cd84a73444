//! FRED: Flow Random Early Drop.
//!
//! Source: D. Lin and R. Morris, "Dynamics of Random Early Detection", ACM SIGCOMM 1997 (not in
//! `papers/`; it is the FRED baseline of paper 002 §3 and paper 000). We follow the paper's
//! pseudocode (its Fig. 16 / appendix), from which ns-2's contributed FRED was written.
//!
//! # State
//! Global: `avg` (RED EWMA of the queue in packets), `count`, `nactive` (flows with packets
//! queued), `avgcq = max(1, avg/nactive)` (`avg` when no flow is active). Per flow with state:
//! `qlen_i` (its packets in the queue) and `strike_i`. State is created at a flow's first arrival
//! and deleted (strike reset) when its last queued packet departs.
//!
//! # Arrival of a packet of flow i
//! 1. Update `avg` (with ns-3 RED's idle-time decay after an empty period, `red::Average`) and `avgcq`.
//! 2. Per-flow limit: `maxq = min_th`.
//! 3. Non-adaptive flows → drop (`policy`), `strike_i += 1`, if
//!    `qlen_i ≥ maxq`, or `avg ≥ max_th and qlen_i > 2·avgcq`, or `qlen_i ≥ avgcq and strike_i > 1`.
//! 4. `min_th ≤ avg < max_th`: `count += 1`; only if `qlen_i ≥ max(min_q, avgcq)` (a "robust"
//!    flow) drop with `p_a = p_b/(1 − count·p_b)`, `p_b = max_p·(avg − min_th)/(max_th − min_th)`
//!    (`early`; `count = 0` after a drop). Flows with fewer packets queued are never dropped
//!    here: FRED's protection of fragile flows.
//! 5. `avg < min_th`: `count = −1`, accept. `avg ≥ max_th`: `count = 0`, drop (`forced`).
//! 6. Accepted: `qlen_i += 1` (when the glue actually queues it, `on_enqueued`), `nactive += 1`
//!    if it was 0.
//!
//! # Departure
//! `avg` is also updated at each departure (FRED averages on both arrival and departure), then
//! `qlen_i −= 1`; at 0, `nactive −= 1` and the flow's state (strikes) is deleted.
//!
//! # Readings and defaults
//! - Defaults are ns-2's RED defaults (`min_th = 5`, `max_th = 15`, `max_p = 0.1`,
//!   `w_q = 0.002`), the settings paper 002 used for all its AQMs where not listed (its Fig. 7
//!   is lost in the text copy). Lin & Morris used `max_p = 0.02` in some runs; set it if needed.
//! - `min_q = 2` (the paper: 2, or 4 for large buffers).
//! - `maxq = min_th` throughout. Some descriptions of FRED also lower `maxq` to 2 while
//!   `avg ≥ max_th` (the paper's many-flows discussion); that would make the
//!   `qlen_i > 2·avgcq` test redundant (`avgcq ≥ 1`), so we read it as a variant and leave it out.
//! - Early drops are `Signal`s (marked with `ecn = true`); per-flow policy and forced drops are
//!   drops.
//!
//! # Parameters
//! | key | unit | default | source |
//! |---|---|---|---|
//! | `min_th`, `max_th` | packets | 5, 15 | ns-2 RED defaults |
//! | `max_p` | probability | 0.1 | ns-2 RED default |
//! | `w_q` | weight | 0.002 | Lin & Morris, ns-2 |
//! | `min_q` | packets | 2 | Lin & Morris (4 for large buffers) |
//! | `ecn` | bool | false | |
//!
//! Probes: `avg`, `avgcq`, `nactive`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::red::{self, Average};
use super::red_core::{linear_pb, spaced, validate_red};
use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::flow_map::DenseFlowMap;
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::SimTime;

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Packets: RED minimum threshold; also the per-flow limit maxq.
    pub min_th: f64,
    /// Packets: above it arrivals are dropped (forced).
    pub max_th: f64,
    /// RED maximum early-drop probability.
    pub max_p: f64,
    /// Weight of the queue average EWMA (updated on arrival and departure).
    pub w_q: f64,
    /// Packets: flows with fewer queued are never randomly dropped (2; 4 for large buffers).
    pub min_q: f64,
    /// Mark ECN-capable packets instead of early drops.
    pub ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            min_q: 2.0,
            ecn: false,
        }
    }
}

/// What FRED does with an arrival, given the flow's state and the averages.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Decision {
    /// Step 3: per-flow limit exceeded.
    Policy,
    /// `avg ≥ max_th`.
    Forced,
    /// Random drop with this probability (before the uniform draw).
    Random(f64),
    Accept,
}

/// Steps 2–5 as a pure function. `count` is the RED count *after* its increment for this
/// packet (used only in the random-drop band).
pub fn decide(p: &Params, avg: f64, avgcq: f64, qlen: u32, strike: u32, count: i64) -> Decision {
    let qlen = qlen as f64;
    let maxq = p.min_th;
    if qlen >= maxq || (avg >= p.max_th && qlen > 2.0 * avgcq) || (qlen >= avgcq && strike > 1) {
        return Decision::Policy;
    }
    if avg >= p.max_th {
        return Decision::Forced;
    }
    if avg >= p.min_th && qlen >= p.min_q.max(avgcq) {
        return Decision::Random(spaced(linear_pb(avg, p.min_th, p.max_th, p.max_p), count));
    }
    Decision::Accept
}

pub struct Fred {
    p: Params,
    avg: Average,
    count: i64,
    nactive: u32,
    /// Per-flow state of the flows seen (FRED's `qlen_i`, `strike_i`), looked up by id at
    /// every arrival and departure.
    flows: DenseFlowMap<FlowState>,
}

#[derive(Copy, Clone, Debug, Default)]
struct FlowState {
    /// Packets of the flow in the queue.
    qlen: u32,
    strike: u32,
}

impl Fred {
    pub fn new(p: &Params, link_rate_bps: u64, mean_pkt_bytes: u32) -> Fred {
        Fred {
            p: p.clone(),
            avg: Average::new(p.w_q, red::ptc(link_rate_bps, mean_pkt_bytes.max(1))),
            count: -1,
            nactive: 0,
            flows: DenseFlowMap::default(),
        }
    }

    fn avgcq(&self) -> f64 {
        let a = if self.nactive > 0 {
            self.avg.avg / self.nactive as f64
        } else {
            self.avg.avg
        };
        a.max(1.0)
    }

    /// Packets of `flow` currently queued.
    pub fn qlen(&self, flow: FlowId) -> u32 {
        self.flows.get(flow).map_or(0, |s| s.qlen)
    }
}

impl Aqm for Fred {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict {
        let avg = self.avg.update(now, q.len_pkts as f64);
        let avgcq = self.avgcq();
        let flow = self.flows.entry(pkt.flow);
        let in_band = avg >= self.p.min_th && avg < self.p.max_th;
        let count = if in_band { self.count + 1 } else { self.count };
        let decision = decide(&self.p, avg, avgcq, flow.qlen, flow.strike, count);
        if decision == Decision::Policy {
            flow.strike += 1;
            return Verdict::Drop(Reason::Policy);
        }
        if in_band {
            self.count = count;
        } else if avg < self.p.min_th {
            self.count = -1;
        }
        match decision {
            Decision::Forced => {
                self.count = 0;
                Verdict::Drop(Reason::Forced)
            }
            Decision::Random(pa) if pa > 0.0 && rng.uniform() < pa => {
                self.count = 0;
                Verdict::Signal(Reason::Early)
            }
            _ => Verdict::Pass,
        }
    }

    fn on_enqueued(&mut self, _now: SimTime, pkt: &Packet) {
        let flow = self.flows.entry(pkt.flow);
        if flow.qlen == 0 {
            self.nactive += 1;
        }
        flow.qlen += 1;
    }

    fn on_dequeue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        self.avg.update(now, q.len_pkts as f64);
        let flow = self.flows.entry(pkt.flow);
        debug_assert!(
            flow.qlen > 0,
            "FRED: departure of a flow with no queued packet"
        );
        flow.qlen = flow.qlen.saturating_sub(1);
        if flow.qlen == 0 {
            self.nactive = self.nactive.saturating_sub(1);
            flow.strike = 0;
        }
        Verdict::Pass
    }

    fn on_empty(&mut self, now: SimTime) {
        self.avg.idle(now);
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("avg", self.avg.avg);
        out("avgcq", self.avgcq());
        out("nactive", self.nactive as f64);
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "fred";
    const NAME: &'static str = "FRED (Flow Random Early Drop)";
    const SOURCE: &'static str = "Lin & Morris, Dynamics of Random Early Detection, SIGCOMM 1997 \
        (pseudocode): per-flow qlen/strike, maxq = min_th, avgcq = avg/nactive";

    fn validate(&self) -> Result<(), ScenarioError> {
        validate_red(self.min_th, self.max_th, self.max_p, self.w_q)?;
        check(
            self.min_q.is_finite() && self.min_q >= 0.0,
            "min_q",
            self.min_q,
            "packets, >= 0",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(
            self.ecn,
            Fred::new(self, ctx.link_rate_bps, ctx.mean_pkt_bytes),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support;
    use crate::aqm::AqmConfig;
    use crate::qdisc::{BufferLimit, Outcome};

    #[test]
    fn decision_rules_by_hand() {
        let p = Params::default(); // min_th 5, max_th 15, max_p 0.1, min_q 2
        let random = |d: Decision| match d {
            Decision::Random(pa) => pa,
            d => panic!("{d:?}"),
        };
        // Per-flow limit maxq = min_th = 5.
        assert_eq!(decide(&p, 3.0, 1.0, 5, 0, -1), Decision::Policy);
        assert_eq!(decide(&p, 3.0, 1.0, 4, 0, -1), Decision::Accept);
        // avg ≥ max_th and qlen > 2·avgcq: avgcq 1 → qlen 3 is policy, qlen 2 only forced.
        assert_eq!(decide(&p, 16.0, 1.0, 3, 0, 0), Decision::Policy);
        assert_eq!(decide(&p, 16.0, 1.0, 2, 0, 0), Decision::Forced);
        assert_eq!(decide(&p, 16.0, 2.0, 4, 0, 0), Decision::Forced);
        // qlen ≥ avgcq and strike > 1.
        assert_eq!(decide(&p, 8.0, 2.0, 2, 2, 0), Decision::Policy);
        assert_eq!(
            decide(&p, 8.0, 3.0, 2, 2, 0),
            Decision::Accept,
            "qlen < avgcq"
        );
        // One strike is not enough: random band, p_b = 0.1·(8−5)/(15−5) = 0.03, count 1:
        // p_a = 0.03/(1 − 0.03) = 0.0309278…
        let pa = random(decide(&p, 8.0, 2.0, 2, 1, 1));
        assert!((pa - 0.030_927_835).abs() < 1e-8, "{pa}");
        // Random drops only for qlen ≥ max(min_q, avgcq).
        assert_eq!(
            decide(&p, 8.0, 1.0, 1, 0, 0),
            Decision::Accept,
            "qlen < min_q"
        );
        assert_eq!(
            decide(&p, 8.0, 3.5, 3, 0, 0),
            Decision::Accept,
            "qlen < avgcq"
        );
        let pa = random(decide(&p, 8.0, 3.0, 3, 0, 0));
        assert!((pa - 0.03).abs() < 1e-12, "{pa}");
        // min_q = 4 (large buffers) protects a flow with 3 queued.
        let p4 = Params {
            min_q: 4.0,
            ..Params::default()
        };
        assert_eq!(decide(&p4, 8.0, 1.0, 3, 0, 0), Decision::Accept);
    }

    fn pkt(id: u64, flow: u32) -> Packet {
        test_support::pkt(id, flow, 1000)
    }

    fn ctx(limit: u32) -> BuildContext<'static> {
        test_support::ctx(BufferLimit::Packets(limit), 10_000_000)
    }

    #[test]
    fn per_flow_limit_in_a_queue_and_state_follows_departures() {
        let mut f = Fred::new(&Params::default(), 10_000_000, 1000);
        let mut q = SingleQueueHarness::new();
        let mut rng = SimRng::new(0, 0);
        // One flow alone, avg ≈ 0: it may queue min_th = 5 packets; the 6th is a policy drop.
        let mut out = Vec::new();
        for i in 0..6 {
            out.push(q.offer(&mut f, SimTime(i), pkt(i, 1), &mut rng));
        }
        assert_eq!(&out[..5], &[Verdict::Pass; 5]);
        assert_eq!(out[5], Verdict::Drop(Reason::Policy));
        assert_eq!(f.qlen(1), 5);
        assert_eq!(f.flows.get(1).unwrap().strike, 1);
        // Another flow is not affected by flow 1's limit.
        assert_eq!(
            q.offer(&mut f, SimTime(7), pkt(7, 2), &mut rng),
            Verdict::Pass
        );
        assert_eq!(f.nactive, 2);
        // Departures: flow 1's strike survives until its last packet leaves.
        for _ in 0..5 {
            q.depart(&mut f, SimTime(10), &mut rng);
        }
        assert_eq!(f.qlen(1), 0);
        assert_eq!(f.flows.get(1).unwrap().strike, 0, "state deleted with the last packet");
        assert_eq!(f.nactive, 1);
        q.depart(&mut f, SimTime(11), &mut rng);
        assert_eq!(f.nactive, 0);
    }

    /// A minimal FIFO to drive `Fred` directly (so the test can read its fields).
    struct SingleQueueHarness {
        buf: std::collections::VecDeque<Packet>,
    }
    impl SingleQueueHarness {
        fn new() -> Self {
            SingleQueueHarness {
                buf: Default::default(),
            }
        }
        fn view(&self) -> QueueView {
            QueueView {
                len_pkts: self.buf.len(),
                len_bytes: self.buf.len() as u64 * 1000,
                limit: BufferLimit::Packets(100),
                link_rate_bps: 10_000_000,
            }
        }
        fn offer(&mut self, f: &mut Fred, now: SimTime, p: Packet, rng: &mut SimRng) -> Verdict {
            let v = f.on_enqueue(now, &p, &self.view(), rng);
            if v == Verdict::Pass {
                f.on_enqueued(now, &p);
                self.buf.push_back(p);
            }
            v
        }
        fn depart(&mut self, f: &mut Fred, now: SimTime, rng: &mut SimRng) {
            let p = self.buf.pop_front().unwrap();
            let view = self.view();
            f.on_dequeue(now, &p, &view, rng);
        }
    }

    #[test]
    fn strikes_punish_a_flow_that_keeps_exceeding_its_share() {
        // Two strikes, then any arrival with qlen ≥ avgcq (≥ 1) is dropped.
        let mut f = Fred::new(&Params::default(), 10_000_000, 1000);
        let mut h = SingleQueueHarness::new();
        let mut rng = SimRng::new(0, 0);
        for i in 0..7 {
            h.offer(&mut f, SimTime(i), pkt(i, 1), &mut rng);
        }
        assert_eq!(f.flows.get(1).unwrap().strike, 2);
        // Drain three: qlen 2 < maxq 5, but strike 2 > 1 and qlen 2 ≥ avgcq (1) → policy.
        for _ in 0..3 {
            h.depart(&mut f, SimTime(8), &mut rng);
        }
        assert_eq!(
            h.offer(&mut f, SimTime(9), pkt(9, 1), &mut rng),
            Verdict::Drop(Reason::Policy)
        );
        // A fresh flow with one packet queued and no strikes is accepted.
        assert_eq!(
            h.offer(&mut f, SimTime(9), pkt(10, 3), &mut rng),
            Verdict::Pass
        );
    }

    #[test]
    fn conservation_through_the_glue() {
        let mut q = Params::default().build(&ctx(20));
        let mut rng = SimRng::new(5, 0);
        for i in 0..500u64 {
            let o = q.enqueue(SimTime(i * 100_000), pkt(i, (i % 4) as u32), &mut rng);
            if let Outcome::Dropped(r) = o {
                assert!(matches!(
                    r,
                    Reason::Policy | Reason::Early | Reason::Forced | Reason::Overflow
                ));
            }
            if i % 3 == 0 {
                q.dequeue(SimTime(i * 100_000), &mut rng, &mut |_, _| {});
            }
            assert!(q.stats().conserved(q.len_pkts()));
        }
        // Per-flow limit keeps each of the 4 flows at ≤ min_th = 5 packets: ≤ 20 in total.
        assert!(q.len_pkts() <= 20);
        assert!(q.stats().dropped_before_enqueue[Reason::Policy as usize] > 0);
    }

    #[test]
    fn validation_and_misspelled_keys() {
        let bad = AqmConfig::from_table(toml::from_str("kind='fred'\nmax_pp=0.1").unwrap());
        assert_eq!(bad.unwrap_err().path, "max_pp");
        let err =
            AqmConfig::from_table(toml::from_str("kind='fred'\nmin_q=-1.0").unwrap()).unwrap_err();
        assert_eq!(err.path, "min_q");
        let err =
            AqmConfig::from_table(toml::from_str("kind='fred'\nmax_p=1.5").unwrap()).unwrap_err();
        assert_eq!(err.path, "max_p");
    }
}
