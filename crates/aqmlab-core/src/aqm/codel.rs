//! CoDel: Controlled Delay active queue management.
//!
//! Source: RFC 8289 (Nichols, Jacobson, McGregor, Iyengar, "Controlled Delay Active Queue
//! Management", 2018) and the ACM Queue article it formalises; not one of the five papers in
//! `papers/` (it is one of "today's AQMs" the lab compares against). The code follows ns-3.44's
//! `CoDelQueueDisc` (`src/traffic-control/model/codel-queue-disc.cc`), itself a port of Linux
//! `include/net/codel_impl.h`, decision for decision, and is checked against ns-3 by
//! `tests/codel_vectors.rs` (every Enqueue/Dequeue call of a 7.5 s run, with CoDel's state after
//! each call).
//!
//! # What is implemented
//! - Time is kept in *CoDel units* as ns-3/Linux do: `u32(ns >> 10)` (1 unit = 1024 ns), and
//!   sojourn times are `u32((now − enqueue_time)_ns >> 10)`. Comparisons are ns-3's
//!   `CoDelTimeAfter/Before` (`i64(a) − i64(b)`, compared with 0).
//! - `ok_to_drop` (RFC 8289 §5.4 `dodequeue`): a packet may be dropped once the sojourn time has
//!   stayed at or above `target` for at least `interval` (`first_above_time`), and only while the
//!   queue (after popping the packet) still holds at least `min_bytes`.
//! - Control law (RFC 8289 §5.5): `drop_next = t + interval / sqrt(count)`, computed as Linux does:
//!   `t + ((interval · (rec_inv_sqrt << 16)) >> 32)` where `rec_inv_sqrt ≈ 2^16 / sqrt(count)` is
//!   kept in 16-bit fixed point and refreshed by one Newton step per change of `count`:
//!   `y' = y · (3 − count · y²) / 2` ([`newton_step`]).
//! - Dequeue (RFC 8289 §5.5): in the dropping state, drop (loop) while `now ≥ drop_next`,
//!   scheduling `drop_next = control_law(drop_next)` after each drop; leave the state when a packet
//!   is not `ok_to_drop`. Entering the state drops the head packet and sets `count` with the
//!   re-entry rule: if `count − last_count > 1` and `now − drop_next < 16·interval`, then
//!   `count = count − last_count` (Newton step) else `count = 1`, `rec_inv_sqrt = 0xFFFF`;
//!   `last_count = count`, `drop_next = control_law(now)`. An empty queue leaves the state.
//! - ECN (`ecn = true`): an ECN-capable packet is CE-marked instead of dropped and delivered; as in
//!   ns-3, a mark in the dropping loop reschedules `drop_next = control_law(now)` (Linux uses the
//!   old `drop_next`) and ends the loop.
//! - CE threshold (`ce_threshold`, ns-3 `CeThreshold`, Linux `ce_threshold`): a packet that leaves
//!   unmarked with ECN on, ECN-capable, and a sojourn time (CoDel units) strictly above the
//!   threshold is CE-marked, counted as `Reason::CeThreshold` ("CE threshold exceeded mark"). As
//!   ns-3, a packet the control law just marked is not counted twice, and a packet already CE is
//!   marked (and counted) again.
//! - L4S mode (`l4s`, ns-3 `UseL4s`): the first packet popped by a dequeue call, if ECT(1) or CE,
//!   bypasses the control law entirely (no `ok_to_drop`, no state change): it is marked when its
//!   sojourn exceeds `ce_threshold` (even with `ecn` off) and sent. Other packets get the classic
//!   control law, and no CE-threshold marking (ns-3 applies it only when `UseL4s` is false).
//! - Enqueue: tail drop when the buffer is full (ns-3 `OVERLIMIT_DROP`, our `Reason::Overflow`).
//!   Dequeue-time drops are `Reason::Sojourn` ("Target exceeded drop").
//!
//! # Parameters
//! | key | unit | default | RFC 8289 / ns-3 recommendation |
//! |---|---|---|---|
//! | `target` | duration | `"5ms"` | 5 ms (5–10 % of `interval`) |
//! | `interval` | duration | `"100ms"` | 100 ms (a worst-case RTT) |
//! | `min_bytes` | bytes | 1500 | one MTU (ns-3 `MinBytes`, Linux `mtu`) |
//! | `ecn` | bool | false | ns-3 `UseEcn` default false |
//! | `ce_threshold` | duration or none | none | ns-3 `CeThreshold` (default `Time::Max()`: off) |
//! | `l4s` | bool | false | ns-3 `UseL4s` default false |
//!
//! The buffer limit is the link's `buffer` (ns-3's `MaxSize`, default 1500 packets there).
//!
//! # Readings and differences
//! - ns-3 checks `backlog < MinBytes`; Linux checks `backlog <= mtu`. We follow ns-3 (it is what the
//!   vectors pin down).
//! - ns-3 and Linux drop several packets inside one dequeue call, deciding on each with state that
//!   spans the call. Here the glue pops and asks one packet at a time ([`Aqm::on_dequeue`], then
//!   [`Aqm::on_empty`] if the queue runs out), so [`Vars`] remembers where the call stands
//!   ([`Step`]) and [`Vars::on_head`] replays ns-3's `DoDequeue` decision for decision. The buffer
//!   and counters are the shared `SingleQueue`; FQ-CoDel (`fq_codel.rs`) runs the same
//!   [`Vars::on_head`] on each flow queue of the shared `FlowQueues`, as Linux shares
//!   `codel_dequeue` between `sch_codel.c` and `sch_fq_codel.c`.
//! - CoDel units wrap after 2^32 · 1024 ns ≈ 73 minutes of simulated time; ns-3's comparisons are
//!   not wrap-safe either (they widen to `i64`), and we reproduce them as they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::{Ecn, Packet};
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// log2 of the CoDel time unit in ns (Linux `CODEL_SHIFT`).
pub const CODEL_SHIFT: u32 = 10;
/// Fixed-point shift of `rec_inv_sqrt` (Linux `REC_INV_SQRT_SHIFT`).
pub const REC_INV_SQRT_SHIFT: u32 = 16;
/// `rec_inv_sqrt` for `count = 1` (`~0U >> REC_INV_SQRT_SHIFT`).
pub const REC_INV_SQRT_ONE: u16 = 0xFFFF;

/// Nanoseconds to CoDel units: `u32(ns >> 10)` (ns-3 `Time2CoDel`).
#[inline]
pub fn to_codel(ns: u64) -> u32 {
    (ns >> CODEL_SHIFT) as u32
}

#[inline]
fn after(a: u32, b: u32) -> bool {
    a as i64 - b as i64 > 0
}
#[inline]
fn after_eq(a: u32, b: u32) -> bool {
    a as i64 - b as i64 >= 0
}
#[inline]
fn before(a: u32, b: u32) -> bool {
    (a as i64) - (b as i64) < 0
}

/// One Newton iteration of `y = 1/sqrt(count)` in Q0.16 fixed point:
/// `y' = y · (3 − count · y²) / 2` (ns-3 `CoDelQueueDisc::NewtonStep`, Linux `codel_Newton_step`).
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2; // avoid overflow in the multiply below
    val = val.wrapping_mul(invsqrt as u64) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// `t + interval / sqrt(count)` with `1/sqrt(count)` given as `rec_inv_sqrt` (Q0.16), all in
/// CoDel units (ns-3 `ControlLaw`, Linux `codel_control_law` with `reciprocal_scale`).
pub fn control_law(t: u32, interval: u32, rec_inv_sqrt: u16) -> u32 {
    let r = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    t.wrapping_add(((interval as u64 * r as u64) >> 32) as u32)
}

/// CoDel's configuration, precomputed in CoDel units (Linux `struct codel_params`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Target sojourn time, CoDel units.
    pub target: u32,
    /// Interval, CoDel units.
    pub interval: u32,
    /// Below this backlog (bytes, after popping the head) no packet is dropped.
    pub min_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// CE-mark packets whose sojourn time exceeds this, CoDel units (`None`: off).
    pub ce_threshold: Option<u32>,
    /// L4S mode: ECT(1)/CE packets are marked by the CE threshold only.
    pub l4s: bool,
}

impl Config {
    /// Whether a sojourn of `sojourn_ns` is above the CE threshold (ns-3
    /// `CoDelTimeAfter(ldelay, Time2CoDel(m_ceThreshold))`).
    fn above_ce_threshold(&self, sojourn_ns: u64) -> bool {
        self.ce_threshold
            .is_some_and(|th| after(to_codel(sojourn_ns), th))
    }
}

/// CoDel's per-queue state (Linux `struct codel_vars`; ns-3's members of the same names).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Vars {
    /// Packets dropped since entering the dropping state (with the re-entry rule).
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub last_count: u32,
    pub dropping: bool,
    /// `2^16 / sqrt(count)`, Q0.16.
    pub rec_inv_sqrt: u16,
    /// When the sojourn time will have been above target for an interval (0: below target).
    pub first_above_time: u32,
    /// Next scheduled drop, CoDel units.
    pub drop_next: u32,
    /// Sojourn time of the last packet delivered (ns), for probes.
    pub last_sojourn_ns: u64,
    /// Position within the current dequeue call.
    pub step: Step,
}

impl Default for Vars {
    fn default() -> Self {
        Vars {
            count: 0,
            last_count: 0,
            dropping: false,
            rec_inv_sqrt: REC_INV_SQRT_ONE,
            first_above_time: 0,
            drop_next: 0,
            last_sojourn_ns: 0,
            step: Step::First,
        }
    }
}

impl Vars {
    /// Probes shared by CoDel and FQ-CoDel.
    pub fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("count", self.count as f64);
        out("last_count", self.last_count as f64);
        out("dropping", if self.dropping { 1.0 } else { 0.0 });
        out("drop_next", self.drop_next as f64);
        out("first_above_time", self.first_above_time as f64);
        out("rec_inv_sqrt", self.rec_inv_sqrt as f64);
        out("sojourn_ms", self.last_sojourn_ns as f64 / 1e6);
    }
}

/// Where CoDel's dequeue stands between two packets of one call (ns-3 `DoDequeue` pops and
/// decides several packets in one call; the glue hands them over one at a time).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Step {
    /// The next packet is the first of a dequeue call.
    #[default]
    First,
    /// The head was dropped on entering the dropping state: the next packet goes out after the
    /// sojourn check (`ok_to_drop`).
    AfterEntryDrop,
    /// A packet was dropped in the dropping loop: the next one is checked again.
    InLoop,
}

/// ns-3 `OkToDrop`: updates `first_above_time`; true once the sojourn time has been at or above
/// target for an interval with at least `min_bytes` still queued.
fn ok_to_drop(
    now: SimTime,
    now_c: u32,
    cfg: &Config,
    v: &mut Vars,
    item: Option<&Packet>,
    backlog: u64,
) -> bool {
    let Some(p) = item else {
        v.first_above_time = 0;
        return false;
    };
    let sojourn = to_codel(now.0.saturating_sub(p.enqueued.0));
    if before(sojourn, cfg.target) || backlog < cfg.min_bytes {
        v.first_above_time = 0;
        return false;
    }
    if v.first_above_time == 0 {
        v.first_above_time = now_c.wrapping_add(cfg.interval);
        false
    } else {
        after(now_c, v.first_above_time)
    }
}

impl Vars {
    /// CoDel's dequeue (ns-3 `CoDelQueueDisc::DoDequeue`, Linux `codel_dequeue`), one packet at
    /// a time: `pkt` was just popped from the head and `backlog` bytes remain behind it. `Pass`
    /// sends it; `Drop` drops it and the caller pops the next and asks again within the same
    /// dequeue; `Signal` is a mark (returned only when the packet can be marked: ECN on and the
    /// packet ECN-capable) and sends it. When the queue runs out the caller calls
    /// [`on_empty`](Vars::on_empty).
    pub fn on_head(&mut self, now: SimTime, cfg: &Config, pkt: &Packet, backlog: u64) -> Verdict {
        let now_c = to_codel(now.0);
        match self.step {
            Step::First if cfg.l4s && matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce) => {
                // L4S: only the CE threshold applies; CoDel's state is left alone.
                self.step = Step::First;
                let sojourn_ns = now.0.saturating_sub(pkt.enqueued.0);
                self.last_sojourn_ns = sojourn_ns;
                if cfg.above_ce_threshold(sojourn_ns) {
                    Verdict::Signal(Reason::CeThreshold)
                } else {
                    Verdict::Pass
                }
            }
            Step::First => {
                let ok = ok_to_drop(now, now_c, cfg, self, Some(pkt), backlog);
                if self.dropping {
                    if !ok {
                        // Sojourn time fell below target: leave the dropping state.
                        self.dropping = false;
                    } else if after_eq(now_c, self.drop_next) {
                        return self.drop_in_loop(now, now_c, cfg, pkt);
                    }
                    self.send(now, cfg, pkt, Verdict::Pass)
                } else if ok {
                    self.enter_dropping(now, now_c, cfg, pkt)
                } else {
                    self.send(now, cfg, pkt, Verdict::Pass)
                }
            }
            Step::AfterEntryDrop => {
                ok_to_drop(now, now_c, cfg, self, Some(pkt), backlog);
                self.send(now, cfg, pkt, Verdict::Pass)
            }
            Step::InLoop => {
                if !ok_to_drop(now, now_c, cfg, self, Some(pkt), backlog) {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, cfg.interval, self.rec_inv_sqrt);
                    if after_eq(now_c, self.drop_next) {
                        return self.drop_in_loop(now, now_c, cfg, pkt);
                    }
                }
                self.send(now, cfg, pkt, Verdict::Pass)
            }
        }
    }

    /// The queue ran out during a dequeue call (or was empty at its start).
    pub fn on_empty(&mut self) {
        match self.step {
            // Leave the dropping state when the queue is empty.
            Step::First => self.dropping = false,
            Step::AfterEntryDrop => self.first_above_time = 0,
            Step::InLoop => {
                self.first_above_time = 0;
                self.dropping = false;
            }
        }
        self.step = Step::First;
    }

    /// One turn of the dropping loop (`now ≥ drop_next` while dropping).
    fn drop_in_loop(&mut self, now: SimTime, now_c: u32, cfg: &Config, pkt: &Packet) -> Verdict {
        self.count = self.count.wrapping_add(1);
        self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        if cfg.ecn && pkt.is_ecn_capable() {
            // As ns-3: a mark reschedules from now (Linux keeps the old drop_next) and ends the loop.
            self.drop_next = control_law(now_c, cfg.interval, self.rec_inv_sqrt);
            return self.send(now, cfg, pkt, Verdict::Signal(Reason::Sojourn));
        }
        self.step = Step::InLoop;
        Verdict::Drop(Reason::Sojourn)
    }

    /// Enters the dropping state on `pkt` (marked, or dropped and the next packet sent).
    fn enter_dropping(&mut self, now: SimTime, now_c: u32, cfg: &Config, pkt: &Packet) -> Verdict {
        self.dropping = true;
        // If we went above target soon after leaving the state, resume near the old drop rate.
        let delta = self.count.wrapping_sub(self.last_count) as i32;
        if delta > 1
            && before(
                now_c.wrapping_sub(self.drop_next),
                16u32.wrapping_mul(cfg.interval),
            )
        {
            self.count = delta as u32;
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        } else {
            self.count = 1;
            self.rec_inv_sqrt = REC_INV_SQRT_ONE;
        }
        self.last_count = self.count;
        self.drop_next = control_law(now_c, cfg.interval, self.rec_inv_sqrt);
        if cfg.ecn && pkt.is_ecn_capable() {
            self.send(now, cfg, pkt, Verdict::Signal(Reason::Sojourn))
        } else {
            self.step = Step::AfterEntryDrop;
            Verdict::Drop(Reason::Sojourn)
        }
    }

    /// `pkt` leaves (possibly marked): the call is over. A packet the control law did not mark
    /// may still be marked by the CE threshold (classic mode only, as ns-3).
    fn send(&mut self, now: SimTime, cfg: &Config, pkt: &Packet, verdict: Verdict) -> Verdict {
        self.step = Step::First;
        let sojourn_ns = now.0.saturating_sub(pkt.enqueued.0);
        self.last_sojourn_ns = sojourn_ns;
        if verdict == Verdict::Pass
            && !cfg.l4s
            && cfg.ecn
            && pkt.is_ecn_capable()
            && cfg.above_ce_threshold(sojourn_ns)
        {
            return Verdict::Signal(Reason::CeThreshold);
        }
        verdict
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Acceptable standing sojourn time (RFC 8289: 5 ms, 5-10 % of `interval`).
    pub target: SimDuration,
    /// Time the sojourn must stay above target before dropping; a worst-case RTT (RFC 8289: 100 ms).
    pub interval: SimDuration,
    /// No drop while fewer than this many bytes stay queued, bytes (one MTU).
    pub min_bytes: u32,
    /// CE-mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// CE-mark ECN-capable packets that leave with a sojourn time above this (ns-3 `CeThreshold`,
    /// Linux `ce_threshold`); needs `ecn`, except for ECT(1) packets in `l4s` mode. Unset: off.
    pub ce_threshold: Option<SimDuration>,
    /// L4S mode (ns-3 `UseL4s`): ECT(1) and CE packets skip the drop/mark control law and are
    /// marked only by `ce_threshold`; other packets get classic CoDel without the CE threshold.
    pub l4s: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            min_bytes: 1500,
            ecn: false,
            ce_threshold: None,
            l4s: false,
        }
    }
}

/// Longest interval whose `16·interval` still fits CoDel's 32-bit clock (≈ 275 s); we allow 60 s.
const MAX_INTERVAL: SimDuration = SimDuration::from_secs(60);

impl Params {
    /// Checks shared with FQ-CoDel.
    pub fn validate_codel(target: SimDuration, interval: SimDuration) -> Result<(), ScenarioError> {
        check(
            target.as_nanos() >= 1 << CODEL_SHIFT,
            "target",
            target,
            "a duration of at least 1.024us (CoDel's time unit)",
        )?;
        check(
            interval > target && interval <= MAX_INTERVAL,
            "interval",
            interval,
            "a duration greater than target and at most 60s",
        )
    }

    pub fn config(&self) -> Config {
        Config {
            target: to_codel(self.target.as_nanos()),
            interval: to_codel(self.interval.as_nanos()),
            min_bytes: self.min_bytes as u64,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold.map(|d| to_codel(d.as_nanos())),
            l4s: self.l4s,
        }
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "codel";
    const NAME: &'static str = "CoDel (Controlled Delay)";
    const SOURCE: &'static str =
        "RFC 8289; ns-3.44 CoDelQueueDisc / Linux codel_impl.h (drop_next = t + interval/sqrt(count))";

    fn validate(&self) -> Result<(), ScenarioError> {
        Params::validate_codel(self.target, self.interval)
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        // L4S marks ECT(1) packets even with `ecn` off (ns-3's L4S branch does not check UseEcn).
        ctx.single_queue(self.ecn || self.l4s, CoDel::new(self.config()))
    }
}

/// CoDel's decisions for one FIFO (the buffer and counters are the glue's `SingleQueue`).
pub struct CoDel {
    cfg: Config,
    vars: Vars,
}

impl CoDel {
    pub fn new(cfg: Config) -> CoDel {
        CoDel {
            cfg,
            vars: Vars::default(),
        }
    }

    pub fn vars(&self) -> &Vars {
        &self.vars
    }
}

impl Aqm for CoDel {
    /// Tail drop only (the glue's buffer limit): CoDel decides at dequeue.
    fn on_enqueue(&mut self, _: SimTime, _: &Packet, _: &QueueView, _: &mut SimRng) -> Verdict {
        Verdict::Pass
    }
    fn on_dequeue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        self.vars.on_head(now, &self.cfg, pkt, q.len_bytes)
    }
    fn on_empty(&mut self, _now: SimTime) {
        self.vars.on_empty();
    }
    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.vars.probe(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_support;
    use crate::aqm::AqmConfig;
    use crate::net::packet::Ecn;
    use crate::qdisc::{BufferLimit, Outcome, SingleQueue};

    /// CoDel on the glue's FIFO with a large buffer.
    fn codel_queue(cfg: Config) -> SingleQueue {
        SingleQueue::new(
            BufferLimit::Packets(100_000),
            cfg.ecn,
            10_000_000,
            Box::new(CoDel::new(cfg)),
        )
    }

    fn pkt(id: u64, size: u32) -> Packet {
        test_support::pkt(id, 0, size)
    }

    fn ctx(limit: BufferLimit) -> BuildContext<'static> {
        test_support::ctx(limit, 10_000_000)
    }

    /// The fixed-point step follows the real-valued Newton recurrence y' = y·(3 − c·y²)/2
    /// (computed here in f64, starting from y = 1 as CoDel does on entering the dropping state),
    /// and iterating it at a fixed count converges to the exact 2^16/sqrt(count).
    #[test]
    fn newton_step_against_exact_inverse_sqrt() {
        // By hand: y = 1 (0xFFFF), count 2: 1·(3 − 2)/2 = 0.5 → 0x8000; Linux's truncations give
        // 0x8001 (val = (3·2^32 − 2·0xFFFE0001) >> 2 = 2^30 + 2^16 − 1, · 0xFFFF0000 >> 47).
        assert_eq!(newton_step(0xFFFF, 2), 0x8001);
        let (mut y, mut f) = (REC_INV_SQRT_ONE, 1.0f64);
        for count in 2u32..5000 {
            y = newton_step(y, count);
            f = f * (3.0 - count as f64 * f * f) / 2.0;
            assert!(
                (y as f64 - f * 65536.0).abs() <= 2.0,
                "count {count}: {y} vs {}",
                f * 65536.0
            );
            // One step per increment tracks 1/sqrt(count) closely once count is not tiny.
            let exact = 65536.0 / (count as f64).sqrt();
            if count >= 16 {
                assert!((y as f64 - exact).abs() / exact < 0.002, "count {count}");
            }
        }
        for count in [3u32, 10, 100, 1000, 10_000, 100_000] {
            let exact = 65536.0 / (count as f64).sqrt();
            let mut y = (exact * 1.1) as u16;
            for _ in 0..6 {
                y = newton_step(y, count);
            }
            assert!(
                (y as f64 - exact).abs() <= 1.0,
                "count {count}: {y} vs {exact}"
            );
        }
    }

    /// drop_next − t = interval / sqrt(count): spacing shrinks as 1/sqrt(count).
    #[test]
    fn control_law_spacing_shrinks_as_inverse_sqrt() {
        let interval = to_codel(100_000_000); // 97656 units
        assert_eq!(interval, 97656);
        // count = 1: rec_inv_sqrt = 0xFFFF, spacing = interval · 0xFFFF0000 / 2^32 = interval − 2.
        assert_eq!(control_law(1000, interval, REC_INV_SQRT_ONE), 1000 + 97654);
        for count in [4u32, 16, 100, 400] {
            let y = (65536.0 / (count as f64).sqrt()).min(65535.0) as u16;
            let spacing = control_law(0, interval, y) as f64;
            let exact = interval as f64 / (count as f64).sqrt();
            assert!(
                (spacing - exact).abs() <= 2.0,
                "count {count}: {spacing} vs {exact}"
            );
        }
        // Wraps like u32 arithmetic.
        assert_eq!(control_law(u32::MAX, interval, 0x8000), interval / 2 - 1);
    }

    /// Sojourn below target: no drop, however long the run.
    #[test]
    fn no_drops_when_sojourn_below_target() {
        let mut q = Params::default().build(&ctx(BufferLimit::Packets(1000)));
        let mut rng = SimRng::new(0, 0);
        // 1000 B every 1 ms, dequeued 4 ms after arrival with 4 packets queued: sojourn 4 ms < 5 ms.
        let mut delivered = 0;
        for k in 0..3000u64 {
            q.enqueue(SimTime(k * 1_000_000), pkt(k, 1000), &mut rng);
            if k >= 4 {
                let p = q
                    .dequeue(SimTime(k * 1_000_000 + 1), &mut rng, &mut |_, _| {
                        panic!("dropped below target")
                    })
                    .unwrap();
                assert_eq!(p.id, delivered);
                delivered += 1;
            }
        }
        assert_eq!(q.stats().drops(), 0);
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// A standing queue above target: the first drop comes one interval after the sojourn first
    /// exceeded target; later drops come at interval/sqrt(count) spacing.
    #[test]
    fn drops_follow_control_law() {
        let p = Params::default();
        let cfg = p.config();
        let mut q = codel_queue(cfg);
        let mut rng = SimRng::new(0, 0);
        // Fill 200 packets at t = 0, then dequeue one every 1 ms: sojourn ≥ 1 ms grows by 1 ms/ms
        // minus nothing (all arrived at 0), so it passes 5 ms at t = 5 ms.
        for k in 0..2000u64 {
            q.enqueue(SimTime(0), pkt(k, 1500), &mut rng);
        }
        let mut drop_times = Vec::new();
        for ms in 1..=1200u64 {
            let t = SimTime(ms * 1_000_000);
            q.dequeue(t, &mut rng, &mut |_, _| drop_times.push(ms));
        }
        // Sojourn = t (all packets arrived at 0). It reaches target at the dequeue at 5 ms
        // (to_codel(5 ms) = 4882 = target), so first_above_time = 4882 + 97656 = 102538; the
        // first dequeue strictly after it is at 105 ms (to_codel(105 ms) = 102539).
        assert_eq!(drop_times[0], 105);
        // Drop i comes interval·y_i after drop i−1, where y_i ≈ 1/sqrt(i) is CoDel's Newton
        // estimate when count was i (y_1 = 1, y_i = y_{i−1}·(3 − i·y_{i−1}²)/2, in f64), seen on
        // the 1 ms dequeue clock: 100, 50, 54.7, 47.5, ... ms.
        let mut prev = drop_times[0] as f64;
        let mut y = 1.0f64;
        for (i, &t) in drop_times.iter().enumerate().skip(1).take(30) {
            if i >= 2 {
                y = y * (3.0 - i as f64 * y * y) / 2.0;
            }
            let gap = t as f64 - prev;
            let expect = 97.656 * 1.024 * y;
            assert!(
                gap >= expect - 1.0 && gap <= expect + 1.0,
                "drop {i}: gap {gap} vs {expect}"
            );
            prev = t as f64;
        }
        assert!(q.stats().conserved(q.len_pkts()));
        assert_eq!(
            q.stats().dropped_after_dequeue[Reason::Sojourn as usize],
            drop_times.len() as u64
        );
    }

    /// With ECN, ECN-capable packets are marked (and delivered) instead of dropped.
    #[test]
    fn ecn_marks_instead_of_dropping() {
        let p = Params {
            ecn: true,
            ..Params::default()
        };
        let mut q = codel_queue(p.config());
        let mut rng = SimRng::new(0, 0);
        for k in 0..500u64 {
            let mut x = pkt(k, 1500);
            x.ecn = Ecn::Ect;
            q.enqueue(SimTime(0), x, &mut rng);
        }
        let mut ce = 0;
        for ms in 1..=300u64 {
            let got = q
                .dequeue(SimTime(ms * 1_000_000), &mut rng, &mut |_, _| {
                    panic!("ECN-capable packet dropped")
                })
                .unwrap();
            ce += (got.ecn == Ecn::Ce) as u64;
        }
        // Marks at 105 ms (entry), then interval/1 and interval·0.5 later: 205 and 255 ms.
        assert_eq!(ce, 3);
        assert_eq!(q.stats().marks(), ce);
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// L4S mode with `ecn` off (built as the scenario builds it): ECT(1) packets skip CoDel and are
    /// CE-marked once their sojourn passes the 2 ms threshold; interleaved Not-ECT packets get
    /// classic CoDel (drops once the standing queue has lasted an interval) and no threshold mark.
    #[test]
    fn l4s_marks_ect1_by_threshold_only() {
        let p = Params {
            ce_threshold: Some(SimDuration::from_millis(2)),
            l4s: true,
            ..Params::default()
        };
        let mut q = p.build(&ctx(BufferLimit::Packets(100_000)));
        let mut rng = SimRng::new(0, 0);
        for k in 0..600u64 {
            let mut x = pkt(k, 1500);
            x.ecn = if k % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct };
            q.enqueue(SimTime(0), x, &mut rng);
        }
        let (mut ect1_marked, mut ect1_after_drop, mut drops) = (0, 0, 0);
        // From 3 ms on, every packet has waited longer than the threshold.
        for ms in 3..=250u64 {
            let now = SimTime(ms * 1_000_000);
            let mut dropped_now = 0;
            let got = q
                .dequeue(now, &mut rng, &mut |_, r| {
                    assert_eq!(r, Reason::Sojourn);
                    dropped_now += 1;
                })
                .unwrap();
            drops += dropped_now;
            match (got.id % 2 == 0, dropped_now) {
                // First packet of the call, ECT(1): waited > 2 ms, so marked by the threshold.
                (true, 0) => {
                    assert_eq!(got.ecn, Ecn::Ce, "ECT(1) packet {} at {ms} ms", got.id);
                    ect1_marked += 1;
                }
                // As ns-3: an ECT(1) packet popped after a drop in the same call goes through
                // classic CoDel, which (ECN off) did not drop it here, and gets no threshold mark.
                (true, _) => {
                    assert_eq!(got.ecn, Ecn::Ect1);
                    ect1_after_drop += 1;
                }
                (false, _) => assert_eq!(got.ecn, Ecn::NotEct),
            }
        }
        assert!(ect1_marked > 100, "{ect1_marked} ECT(1) marks");
        let _ = ect1_after_drop;
        assert!(drops > 0, "Not-ECT packets still get CoDel's drops");
        assert_eq!(
            q.stats().marked[Reason::CeThreshold as usize],
            ect1_marked as u64
        );
        assert_eq!(q.stats().marked[Reason::Sojourn as usize], 0);
        assert!(q.stats().conserved(q.len_pkts()));
    }

    /// Classic mode: with ECN, a packet the control law did not mark is CE-marked once its sojourn
    /// exceeds the threshold; a Not-ECT packet never is.
    #[test]
    fn ce_threshold_marks_only_ecn_capable_packets() {
        let p = Params {
            ecn: true,
            ce_threshold: Some(SimDuration::from_millis(2)),
            ..Params::default()
        };
        let mut q = codel_queue(p.config());
        let mut rng = SimRng::new(0, 0);
        for k in 0..4u64 {
            let mut x = pkt(k, 1500);
            x.ecn = if k < 2 { Ecn::Ect } else { Ecn::NotEct };
            q.enqueue(SimTime(0), x, &mut rng);
        }
        let mut none = |_: Packet, _: Reason| panic!("no drop expected");
        let ecn_at = |q: &mut SingleQueue, ms: u64, rng: &mut SimRng, d: &mut dyn FnMut(Packet, Reason)| {
            q.dequeue(SimTime(ms * 1_000_000), rng, d).unwrap().ecn
        };
        assert_eq!(ecn_at(&mut q, 1, &mut rng, &mut none), Ecn::Ect, "1 ms: below threshold");
        assert_eq!(ecn_at(&mut q, 3, &mut rng, &mut none), Ecn::Ce, "3 ms: above");
        assert_eq!(ecn_at(&mut q, 4, &mut rng, &mut none), Ecn::NotEct, "Not-ECT");
        assert_eq!(q.stats().marked[Reason::CeThreshold as usize], 1);
    }

    #[test]
    fn overflow_drops_on_enqueue() {
        let mut q = Params::default().build(&ctx(BufferLimit::Packets(2)));
        let mut rng = SimRng::new(0, 0);
        let o: Vec<_> = (0..3)
            .map(|k| q.enqueue(SimTime(0), pkt(k, 100), &mut rng))
            .collect();
        assert_eq!(o[2], Outcome::Dropped(Reason::Overflow));
        assert!(q.stats().conserved(2));
    }

    #[test]
    fn validation_and_unknown_keys() {
        let t = |s: &str| AqmConfig::from_table(toml::from_str(s).unwrap());
        assert!(matches!(t("kind='codel'").unwrap(), AqmConfig::CoDel(_)));
        let ok = t("kind='codel'\ntarget='10ms'\ninterval='200ms'\necn=true").unwrap();
        let AqmConfig::CoDel(p) = ok else { panic!() };
        assert_eq!(p.target, SimDuration::from_millis(10));
        assert!(p.ecn);
        assert_eq!(t("kind='codel'\ntargte='5ms'").unwrap_err().path, "targte");
        assert_eq!(t("kind='codel'\ntarget='0ms'").unwrap_err().path, "target");
        assert_eq!(
            t("kind='codel'\ntarget='50ms'\ninterval='10ms'")
                .unwrap_err()
                .path,
            "interval"
        );
    }
}
