//! The bottleneck without I/O: packets in with their arrival time, packets out with the time
//! they are due, every decision made by the core's own qdisc.
//!
//! a→b (data): classify → the qdisc (the simulator's `Qdisc`, built as `replay` builds it) →
//! the transmitter at `rate_bps` → the flow's forward delay → out to b. b→a (ACKs): the flow's
//! reverse delay only, behind an optional serialiser at `reverse_rate_bps`, no queue.
//!
//! Time is whatever the caller says (ns since the run started, never decreasing). The
//! transmitter is the simulator's queued link: when it finishes a packet at `d` it asks the
//! qdisc for the next one at `d` (an empty queue sees `on_empty` there, as in the simulator),
//! and an arrival to an idle transmitter is dequeued at once. Finishing times are computed
//! (`start + size·8/rate`), so the serialiser keeps its rate however late the caller comes:
//! the caller only has to come (`poll`) by the deadline it is given.
//!
//! The qdisc's random stream is `SimRng::new(seed, 0)` and it is built without per-flow
//! information, exactly as [`replay`](aqmlab_core::replay::replay) does, and its timers fire by
//! replay's rule (before a call at `t`, every timer due before `t`; the first timer also at
//! `t`), so a trace of the calls replays to the same decisions (`trace::check_parity`).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use aqmlab_core::aqm::{BuildContext, FlowInfo, Reason};
use aqmlab_core::metrics::DelayHistogram;
use aqmlab_core::net::packet::{Ecn, FlowId, Packet};
use aqmlab_core::qdisc::{Outcome, Qdisc, QdiscStats};
use aqmlab_core::replay::Action;
use aqmlab_core::rng::SimRng;
use aqmlab_core::time::{SimDuration, SimTime};
use serde_json::{json, Map, Value};

use crate::config::Config;
use crate::ip;
use crate::trace::{Call, TraceRecord};

/// The flow id of packets that match no configured flow (ICMP, strays).
pub const OTHER: FlowId = u32::MAX;

/// Which device a packet was read from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dir {
    /// Read from dev_a (senders' side), to be written to dev_b.
    AtoB,
    /// Read from dev_b (receivers' side), to be written to dev_a.
    BtoA,
}

/// Counters kept per configured flow (index into `Config::flows`) and for "other".
#[derive(Copy, Clone, Debug, Default)]
struct FlowIo {
    /// Packets and bytes written to b (delivered a→b).
    pkts_ab: u64,
    bytes_ab: u64,
    /// Packets read from b (b→a).
    pkts_ba: u64,
}

/// A packet waiting to be written: (due, sequence number for FIFO order at equal times, slot,
/// direction, flow index or `OTHER`).
type Pending = (u64, u64, u32, Dir, u32);

/// The loop's own figures, added to the result by the I/O layer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopStats {
    pub packets_ab: u64,
    pub packets_ba: u64,
    pub max_late_ns: u64,
    pub mean_late_ns: f64,
    pub cpu_s: f64,
    pub write_errors: u64,
}

/// What the qdisc and this bottleneck had counted when the measurement window opened.
struct Snapshot {
    stats: QdiscStats,
    busy_ns: u64,
}

pub struct Bottleneck {
    q: Box<dyn Qdisc>,
    rng: SimRng,
    first_timer: bool,
    rate_bps: u64,
    reverse_rate_bps: Option<u64>,
    flows: Vec<crate::config::FlowSpec>,
    by_ab: HashMap<(u8, u16, u16), usize>,
    by_ba: HashMap<(u8, u16, u16), usize>,
    default_delay: (u64, u64),
    /// Packet bytes, by slot; a queued packet carries its slot in `Packet::seq` and its flow's
    /// index in `Packet::ack` (transport fields, which no qdisc reads).
    slab: Vec<Vec<u8>>,
    free: Vec<u32>,
    /// When the transmitter finishes its packet (None: idle).
    tx_done: Option<u64>,
    rev_busy_until: u64,
    out: BinaryHeap<Reverse<Pending>>,
    out_seq: u64,
    arrivals: u64,
    // Measurement.
    warmup_ns: u64,
    snapshot: Option<Snapshot>,
    busy_ns: u64,
    io: Vec<FlowIo>,
    other_io: FlowIo,
    hist: DelayHistogram,
    q_area: u128,
    q_last_t: u64,
    q_last_bytes: u64,
    sample_interval_ns: u64,
    next_sample: u64,
    sample_t: Vec<f64>,
    sample_pkts: Vec<f64>,
    sample_bytes: Vec<f64>,
    probes: BTreeMap<&'static str, Vec<f64>>,
    trace: Option<Vec<TraceRecord>>,
}

fn delay_of(flows: &[crate::config::FlowSpec], idx: u32, default: u64, ab: bool) -> u64 {
    match flows.get(idx as usize) {
        Some(f) if ab => f.delay_ab_ns,
        Some(f) => f.delay_ba_ns,
        None => default,
    }
}

impl Bottleneck {
    /// A bottleneck as `cfg` describes it; `trace`: keep a record of every qdisc call
    /// (`drain_trace`).
    pub fn new(cfg: &Config, trace: bool) -> Bottleneck {
        let flows: [FlowInfo; 0] = [];
        let ctx = BuildContext {
            limit: cfg.buffer,
            link_rate_bps: cfg.rate_bps,
            mean_pkt_bytes: cfg.mean_pkt_bytes,
            flows: &flows,
            seed: cfg.seed,
        };
        let mut by_ab = HashMap::new();
        let mut by_ba = HashMap::new();
        for (i, f) in cfg.flows.iter().enumerate() {
            by_ab.insert((f.proto, f.a_port, f.b_port), i);
            by_ba.insert((f.proto, f.b_port, f.a_port), i);
        }
        Bottleneck {
            q: cfg.qdisc.build(&ctx),
            rng: SimRng::new(cfg.seed, 0),
            first_timer: true,
            rate_bps: cfg.rate_bps,
            reverse_rate_bps: cfg.reverse_rate_bps,
            flows: cfg.flows.clone(),
            by_ab,
            by_ba,
            default_delay: (cfg.default_delay_ab_ns, cfg.default_delay_ba_ns),
            slab: Vec::new(),
            free: Vec::new(),
            tx_done: None,
            rev_busy_until: 0,
            out: BinaryHeap::new(),
            out_seq: 0,
            arrivals: 0,
            warmup_ns: cfg.warmup_ns,
            snapshot: None,
            busy_ns: 0,
            io: vec![FlowIo::default(); cfg.flows.len()],
            other_io: FlowIo::default(),
            hist: DelayHistogram::default(),
            q_area: 0,
            q_last_t: 0,
            q_last_bytes: 0,
            sample_interval_ns: cfg.sample_interval_ns,
            next_sample: 0,
            sample_t: Vec::new(),
            sample_pkts: Vec::new(),
            sample_bytes: Vec::new(),
            probes: BTreeMap::new(),
            trace: trace.then(Vec::new),
        }
    }

    fn alloc(&mut self, bytes: &[u8]) -> u32 {
        match self.free.pop() {
            Some(s) => {
                let b = &mut self.slab[s as usize];
                b.clear();
                b.extend_from_slice(bytes);
                s
            }
            None => {
                self.slab.push(bytes.to_vec());
                (self.slab.len() - 1) as u32
            }
        }
    }

    /// Packets held: queued in the qdisc, being sent, or waiting in a delay line.
    pub fn packets_held(&self) -> usize {
        self.slab.len() - self.free.len()
    }

    fn flow_index(&self, dir: Dir, h: &ip::Header) -> u32 {
        let map = match dir {
            Dir::AtoB => &self.by_ab,
            Dir::BtoA => &self.by_ba,
        };
        h.ports
            .and_then(|k| map.get(&k))
            .map_or(OTHER, |&i| i as u32)
    }

    fn io_mut(&mut self, idx: u32) -> &mut FlowIo {
        match self.io.get_mut(idx as usize) {
            Some(c) => c,
            None => &mut self.other_io,
        }
    }

    /// Fires the qdisc's timers due before `t` (and its first timer also at `t`): `replay`'s
    /// rule, so that a replay of the calls sees the same control-law state.
    fn fire_timers(&mut self, t: u64) {
        while let Some(due) = self.q.next_timer() {
            if due.0 > t || (due.0 == t && !self.first_timer) {
                break;
            }
            self.first_timer = false;
            self.q.on_timer(due, &mut self.rng);
            if self.q.next_timer().is_some_and(|n| n <= due) {
                break; // a timer that does not advance would spin; replay rejects it too
            }
        }
    }

    fn integrate(&mut self, t: u64) {
        self.q_area += self.q_last_bytes as u128 * (t - self.q_last_t) as u128;
        self.q_last_t = t;
    }

    fn record(&mut self, rec: TraceRecord) {
        if let Some(tr) = &mut self.trace {
            tr.push(rec);
        }
    }

    /// A packet was read at `now` from the side `dir`.
    pub fn arrive(&mut self, now: u64, dir: Dir, bytes: &[u8]) {
        self.advance(now);
        let h = ip::parse(bytes);
        let idx = self.flow_index(dir, &h);
        let slot = self.alloc(bytes);
        match dir {
            Dir::AtoB => self.enqueue(now, idx, &h, slot),
            Dir::BtoA => {
                self.io_mut(idx).pkts_ba += 1;
                let delay = delay_of(&self.flows, idx, self.default_delay.1, false);
                let sent = match self.reverse_rate_bps {
                    Some(r) => {
                        let start = now.max(self.rev_busy_until);
                        self.rev_busy_until = start + SimDuration::transmission(h.size as u64, r).0;
                        self.rev_busy_until
                    }
                    None => now,
                };
                self.push_out(sent + delay, slot, Dir::BtoA, idx);
            }
        }
    }

    fn push_out(&mut self, due: u64, slot: u32, dir: Dir, idx: u32) {
        self.out.push(Reverse((due, self.out_seq, slot, dir, idx)));
        self.out_seq += 1;
    }

    fn enqueue(&mut self, now: u64, idx: u32, h: &ip::Header, slot: u32) {
        let flow = self.flows.get(idx as usize).map_or(OTHER, |f| f.id);
        let ecn = if h.ip { h.ecn } else { Ecn::NotEct };
        let id = self.arrivals;
        self.arrivals += 1;
        let pkt = Packet {
            id,
            flow,
            size_bytes: h.size,
            ecn,
            seq: slot as u64,
            ack: idx as u64,
            created: SimTime(now),
            ts: SimTime(now),
            ..Packet::default()
        };
        self.fire_timers(now);
        self.integrate(now);
        let marks_before = self.q.stats().marked;
        let mut pushed = Vec::new();
        let outcome = self
            .q
            .enqueue_reporting(SimTime(now), pkt, &mut self.rng, &mut |p, r| {
                pushed.push((p.id, r, p.seq as u32))
            });
        for &(_, _, s) in &pushed {
            self.free.push(s);
        }
        let action = match outcome {
            Outcome::Enqueued => Action::Enqueued,
            Outcome::Marked(r) => Action::Marked(r),
            Outcome::Dropped(r) => {
                self.free.push(slot);
                Action::Dropped(r)
            }
        };
        let marked = self.mark_since(&marks_before);
        self.q_last_bytes = self.q.len_bytes();
        self.record(TraceRecord {
            t_ns: now,
            call: Call::Enqueue {
                size: h.size,
                flow,
                ecn,
            },
            action,
            packet: Some(id),
            marked,
            dropped: pushed.iter().map(|&(id, r, _)| (id, r)).collect(),
        });
        if self.tx_done.is_none() {
            self.start_next(now);
        }
    }

    /// Which reason's mark counter moved since `before` (a call marks one packet at most; an
    /// arrival may be marked and then refused for overflow, which still counts its mark).
    fn mark_since(&self, before: &[u64; Reason::COUNT]) -> Option<Reason> {
        Reason::ALL
            .into_iter()
            .find(|&r| self.q.stats().marked[r as usize] > before[r as usize])
    }

    /// The transmitter is free at `t`: ask the qdisc for the next packet.
    fn start_next(&mut self, t: u64) {
        self.fire_timers(t);
        self.integrate(t);
        let marks_before = self.q.stats().marked;
        let mut dropped = Vec::new();
        let got = self.q.dequeue(SimTime(t), &mut self.rng, &mut |p, r| {
            dropped.push((p.id, r, p.seq as u32))
        });
        for &(_, _, s) in &dropped {
            self.free.push(s);
        }
        let marked = self.mark_since(&marks_before);
        let (action, packet) = match got {
            Some(p) => {
                let slot = p.seq as u32;
                let tx = SimDuration::transmission(p.size_bytes as u64, self.rate_bps).0;
                self.tx_done = Some(t + tx);
                self.busy_ns += tx;
                if t >= self.warmup_ns {
                    DelayHistogram::record_departure(&mut self.hist, SimTime(t), &p);
                }
                if p.ecn == Ecn::Ce {
                    let buf = &mut self.slab[slot as usize];
                    if ip::parse(buf).ecn != Ecn::Ce {
                        ip::set_ce(buf);
                    }
                }
                let idx = p.ack as u32;
                let delay = delay_of(&self.flows, idx, self.default_delay.0, true);
                self.push_out(t + tx + delay, slot, Dir::AtoB, idx);
                (Action::Dequeued, Some(p.id))
            }
            None => {
                self.tx_done = None;
                (Action::Empty, None)
            }
        };
        self.q_last_bytes = self.q.len_bytes();
        self.record(TraceRecord {
            t_ns: t,
            call: Call::Dequeue,
            action,
            packet,
            marked,
            dropped: dropped.iter().map(|&(id, r, _)| (id, r)).collect(),
        });
    }

    fn sample(&mut self, t: u64) {
        self.fire_timers(t);
        let n = self.sample_t.len();
        self.sample_t.push(t as f64 / 1e9);
        self.sample_pkts.push(self.q.len_pkts() as f64);
        self.sample_bytes.push(self.q.len_bytes() as f64);
        let probes = &mut self.probes;
        self.q.probe(&mut |k, v| {
            let col = probes.entry(k).or_insert_with(|| vec![f64::NAN; n]);
            col.resize(n, f64::NAN);
            col.push(v);
        });
        self.next_sample = t + self.sample_interval_ns;
    }

    fn open_window(&mut self, t: u64) {
        self.integrate(t);
        // The part of the packet being sent that lies before the window is not the window's.
        let overhang = self.tx_done.map_or(0, |d| d.saturating_sub(t));
        self.snapshot = Some(Snapshot {
            stats: self.q.stats().clone(),
            busy_ns: self.busy_ns - overhang,
        });
        self.q_area = 0;
        self.hist.clear();
        self.io.iter_mut().for_each(|c| *c = FlowIo::default());
        self.other_io = FlowIo::default();
    }

    /// Runs everything due at or before `now`, in time order: transmissions finishing, queue
    /// samples, the opening of the measurement window, the qdisc's timers.
    fn advance(&mut self, now: u64) {
        loop {
            let warm = (self.snapshot.is_none() && self.warmup_ns <= now).then_some(self.warmup_ns);
            let smp = (self.next_sample <= now).then_some(self.next_sample);
            let tx = self.tx_done.filter(|&d| d <= now);
            let first = [warm, smp, tx].into_iter().flatten().min();
            match first {
                None => break,
                Some(t) if warm == Some(t) => self.open_window(t),
                Some(t) if smp == Some(t) => self.sample(t),
                Some(t) => self.start_next(t),
            }
        }
        self.fire_timers(now);
    }

    /// Brings the bottleneck to `now`, hands every packet due by then to `write` (direction,
    /// bytes, the time it was due) and returns the next instant at which something is due.
    pub fn poll(&mut self, now: u64, write: &mut dyn FnMut(Dir, &[u8], u64)) -> u64 {
        self.advance(now);
        while let Some(&Reverse((due, _, slot, dir, idx))) = self.out.peek() {
            if due > now {
                break;
            }
            self.out.pop();
            let buf = &self.slab[slot as usize];
            write(dir, buf, due);
            if dir == Dir::AtoB && due >= self.warmup_ns {
                let len = buf.len() as u64;
                let c = self.io_mut(idx);
                c.pkts_ab += 1;
                c.bytes_ab += len;
            }
            self.free.push(slot);
        }
        let timer = self
            .q
            .next_timer()
            .map(|t| if t.0 <= now { now + 1 } else { t.0 });
        let warm = self.snapshot.is_none().then_some(self.warmup_ns);
        let head = self.out.peek().map(|r| r.0 .0);
        [Some(self.next_sample), self.tx_done, timer, warm, head]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(u64::MAX)
            .max(now + 1)
    }

    /// Takes the trace records made so far (empty when tracing is off).
    pub fn drain_trace(&mut self) -> Vec<TraceRecord> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The qdisc's counters now (for tests and checks).
    pub fn stats(&self) -> &QdiscStats {
        self.q.stats()
    }

    /// Packets waiting in the qdisc.
    pub fn backlog(&self) -> usize {
        self.q.len_pkts()
    }

    /// The results at `now` (the run's end): the contract's `result()` dict as JSON.
    pub fn result(&mut self, now: u64, lp: &LoopStats, trace_path: Option<&str>) -> Value {
        self.advance(now);
        self.integrate(now);
        let zero = QdiscStats::default();
        let (base, busy0) = match &self.snapshot {
            Some(s) => (&s.stats, s.busy_ns),
            None => (&zero, self.busy_ns),
        };
        let st = self.q.stats();
        let by_reason = |f: &dyn Fn(&QdiscStats, usize) -> u64| -> Map<String, Value> {
            Reason::ALL
                .into_iter()
                .map(|r| (r, f(st, r as usize) - f(base, r as usize)))
                .filter(|&(_, n)| n > 0)
                .map(|(r, n)| (r.key().to_string(), json!(n)))
                .collect()
        };
        let drops = by_reason(&|s, i| s.dropped_before_enqueue[i] + s.dropped_after_dequeue[i]);
        let marks = by_reason(&|s, i| s.marked[i]);
        let overhang = self.tx_done.map_or(0, |d| d.saturating_sub(now));
        let busy_ns = (self.busy_ns - overhang).saturating_sub(busy0);
        let window_ns = now.saturating_sub(self.warmup_ns);
        let per_flow = |flow: FlowId| {
            let a = st.flow_counters(flow);
            let b = base.flow_counters(flow);
            (
                a.arrivals - b.arrivals,
                a.drops - b.drops,
                a.marks - b.marks,
            )
        };
        let mut flows: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (f, c) in self.flows.iter().zip(&self.io) {
            let (arr, drp, mrk) = per_flow(f.id);
            for (k, v) in [
                ("id", f.id as u64),
                ("arrivals", arr),
                ("drops", drp),
                ("marks", mrk),
                ("bytes_ab", c.bytes_ab),
                ("pkts_ab", c.pkts_ab),
                ("pkts_ba", c.pkts_ba),
            ] {
                flows.entry(k).or_default().push(v);
            }
        }
        if self.flows.is_empty() {
            for k in [
                "id", "arrivals", "drops", "marks", "bytes_ab", "pkts_ab", "pkts_ba",
            ] {
                flows.insert(k, Vec::new());
            }
        }
        let (oa, od, om) = per_flow(OTHER);
        let mut queue = Map::new();
        queue.insert("t_s".into(), json!(self.sample_t));
        queue.insert("pkts".into(), json!(self.sample_pkts));
        queue.insert("bytes".into(), json!(self.sample_bytes));
        let n = self.sample_t.len();
        for (k, v) in &self.probes {
            let mut col = v.clone();
            col.resize(n, f64::NAN);
            // JSON has no NaN: a probe not yet reported is null.
            let col: Vec<Value> = col
                .into_iter()
                .map(|x| if x.is_finite() { json!(x) } else { Value::Null })
                .collect();
            queue.insert((*k).to_string(), Value::Array(col));
        }
        let mean_queue_bytes = if window_ns > 0 {
            self.q_area as f64 / window_ns as f64
        } else {
            0.0
        };
        json!({
            "elapsed_ns": now,
            "warmup_ns": self.warmup_ns,
            "link": {
                "arrivals": st.arrivals - base.arrivals,
                "arrival_bytes": st.arrival_bytes - base.arrival_bytes,
                "enqueued": st.enqueued - base.enqueued,
                "departures": st.dequeued - base.dequeued,
                "departure_bytes": st.dequeued_bytes - base.dequeued_bytes,
                "drops": drops,
                "marks": marks,
                "backlog_pkts": self.q.len_pkts(),
                "busy_ns": busy_ns,
                "utilisation": if window_ns > 0 { busy_ns as f64 / window_ns as f64 } else { 0.0 },
            },
            "flows": flows,
            "other": {"arrivals": oa, "drops": od, "marks": om,
                      "pkts_ab": self.other_io.pkts_ab, "bytes_ab": self.other_io.bytes_ab,
                      "pkts_ba": self.other_io.pkts_ba},
            "queue": queue,
            "sojourn_ms": {
                "mean": self.hist.mean_ms(),
                "p50": self.hist.quantile_ms(0.5),
                "p99": self.hist.quantile_ms(0.99),
                "n": self.hist.count(),
            },
            "sojourn_check": {
                "mean_sojourn_ms": self.hist.mean_ms(),
                "mean_queue_bytes_over_rate_ms": mean_queue_bytes * 8.0 / self.rate_bps as f64 * 1e3,
            },
            "loop": {
                "packets_ab": lp.packets_ab,
                "packets_ba": lp.packets_ba,
                "max_late_ns": lp.max_late_ns,
                "mean_late_ns": lp.mean_late_ns,
                "cpu_s": lp.cpu_s,
                "write_errors": lp.write_errors,
            },
            "trace_path": trace_path,
        })
    }
}
