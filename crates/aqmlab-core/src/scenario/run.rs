//! Running a scenario: build the network, drive the event loop, collect the results.
//!
//! One run is single-threaded and deterministic: the same scenario and seed give the same
//! `summary_json`, byte for byte (integer time, insertion-ordered ties, per-component streams,
//! sorted JSON keys, no wall-clock values in the summary).

use serde_json::{json, Map, Value};

use crate::aqm::BuildContext;
use crate::engine::queue::EventQueue;
use crate::error::ScenarioError;
use crate::metrics::{jain_index, mean_std, Column, DelayHistogram, Table};
use crate::net::link::{Link, LinkCounters, Next};
use crate::net::packet::{Packet, PacketKind};
use crate::net::topology::{LinkId, LinkRole};
use crate::qdisc::QdiscStats;
use crate::rng::{component, SimRng};
use crate::scenario::expand::{expand, Expanded};
use crate::scenario::FlowKind;
use crate::scenario::Scenario;
use crate::time::{SimDuration, SimTime};
use crate::traffic::{Sink, Source, Transfer};
use crate::transport::tcp::Receiver;

/// Everything one run produces.
pub struct RunOutput {
    /// The summary (DESIGN.md "Results" stable keys) as pretty JSON with sorted keys.
    pub summary_json: String,
    pub summary: Value,
    /// One row per flow.
    pub flows: Table,
    /// The bottleneck queue sampled every `sample_interval`, with the AQM's probes.
    pub queue: Table,
    /// Per-group goodput per `series_bin` (long format: t_s, group, goodput_mbps).
    pub groups: Table,
    /// One row per link: counters for conservation checks and utilisation.
    pub links: Table,
    /// One row per completed web transfer: flow, group, start_s, duration_s.
    pub transfers: Table,
    /// Events processed (for benchmarks; not part of the summary).
    pub events: u64,
}

/// Parses, validates and runs TOML text.
pub fn run_toml(text: &str) -> Result<RunOutput, ScenarioError> {
    Ok(run(&Scenario::from_toml_str(text)?))
}

#[derive(Copy, Clone, Debug)]
enum Ev {
    /// A link finished serialising its packet.
    TxDone(LinkId),
    /// The packet at the head of a link's pipe reaches the far end.
    Arrive(LinkId),
    QdiscTimer(LinkId),
    SenderTimer(u32),
    ReceiverTimer(u32),
    /// A flow enters an activity interval.
    On(u32),
    /// A flow leaves an activity interval.
    Off(u32),
    Sample,
    Bin,
    Warmup,
}

struct FlowRt {
    source: Source,
    sink: Sink,
    started: bool,
    sender_armed: Option<SimTime>,
    receiver_armed: Option<SimTime>,
}

/// What was counted when the measurement window opened.
#[derive(Default)]
struct Snapshot {
    delivered: Vec<u64>,
    sent: Vec<u64>,
    retransmits: Vec<u64>,
    timeouts: Vec<u64>,
    bottleneck: QdiscStats,
    /// Bits serialised by the bottleneck up to the window's opening (`Link::served_bits`).
    bottleneck_served_bits: u128,
    bottleneck_lost: u64,
    /// A `[topology]` scenario's own links (empty for the dumbbell).
    declared: Vec<LinkSnapshot>,
}

#[derive(Default)]
struct LinkSnapshot {
    stats: QdiscStats,
    served_bits: u128,
    lost: u64,
    queue_area: u128,
}

struct Series {
    probe_names: Vec<&'static str>,
    t: Vec<f64>,
    qlen_pkts: Vec<f64>,
    qlen_bytes: Vec<f64>,
    /// Time-average queue length over each sample interval (exact integral), packets.
    qlen_avg: Vec<f64>,
    last_area: u128,
    probes: Vec<Vec<f64>>,
    bin_t: Vec<f64>,
    bin_group: Vec<String>,
    bin_goodput: Vec<f64>,
    last_group_delivered: Vec<u64>,
}

pub struct Simulator {
    now: SimTime,
    end: SimTime,
    warmup: SimTime,
    events: EventQueue<Ev>,
    links: Vec<Link>,
    flows: Vec<FlowRt>,
    net: Expanded,
    scenario: Scenario,
    next_packet_id: u64,
    scratch: Vec<Packet>,
    qdisc_armed: Vec<Option<SimTime>>,
    /// Per link: queued mode (a qdisc whose timers must be polled after each packet event),
    /// as opposed to FIFO arithmetic.
    queued: Vec<bool>,
    snapshot: Snapshot,
    series: Series,
    /// Completed web transfers, in completion order.
    transfers: Vec<Transfer>,
    processed: u64,
}

fn arm(
    events: &mut EventQueue<Ev>,
    armed: &mut Option<SimTime>,
    next: Option<SimTime>,
    now: SimTime,
    ev: Ev,
) {
    // Keep at most one *useful* pending event per timer owner: push only when the deadline is
    // earlier than the one already pending. A later-moving deadline is found when that event fires.
    if let Some(t) = next {
        let t = t.max(now);
        if armed.is_none_or(|a| t < a) {
            events.push(t, ev);
            *armed = Some(t);
        }
    }
}

/// Engine options that do not change what is simulated, only how.
#[derive(Copy, Clone, Debug)]
pub struct EngineOptions {
    /// Model lossless DropTail links (all but the bottleneck) by FIFO arithmetic instead of
    /// queue + transmitter events. Same departures, fewer events; off only to cross-check.
    pub arithmetic_fifo: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            arithmetic_fifo: true,
        }
    }
}

impl Simulator {
    pub fn new(scenario: &Scenario) -> Simulator {
        Simulator::with_options(scenario, EngineOptions::default())
    }

    pub fn with_options(scenario: &Scenario, options: EngineOptions) -> Simulator {
        let net = expand(scenario);
        let f = &scenario.file;
        let infos: Vec<_> = net.flows.iter().map(|fl| fl.info.clone()).collect();
        let mean_pkt = net.flows.first().map_or(1000, |fl| fl.tcp.mss);
        let links: Vec<Link> = net
            .topology
            .links
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let ctx = BuildContext {
                    limit: spec.buffer,
                    link_rate_bps: spec.rate_bps,
                    mean_pkt_bytes: mean_pkt,
                    flows: &infos,
                    seed: f.seed,
                };
                // Host links (and the dumbbell's reverse bottleneck) are lossless DropTail FIFOs
                // nobody samples; the measured link and a topology's own links are queued, so
                // their queue integrals (and any qdisc timers) are tracked.
                let arithmetic = options.arithmetic_fifo
                    && i as LinkId != net.bottleneck
                    && i >= net.declared
                    && spec.qdisc.kind() == "droptail";
                let mut link = Link::new(
                    spec,
                    spec.qdisc.build(&ctx),
                    SimRng::new(f.seed, component::QDISC_BASE + i as u64),
                    SimRng::new(f.seed, component::LOSS_BASE + i as u64),
                    arithmetic,
                );
                if i as LinkId == net.bottleneck {
                    link.on_depart = Some(DelayHistogram::record_departure);
                }
                link
            })
            .collect();
        let flows = net
            .flows
            .iter()
            .enumerate()
            .map(|(i, fl)| {
                let id = i as u32;
                let udp_sink = || Sink::Udp {
                    packets: 0,
                    bytes: 0,
                };
                let (source, sink) = match fl.kind {
                    FlowKind::Tcp => {
                        let limit = (fl.packets > 0).then_some(fl.packets);
                        (
                            Source::tcp(id, &fl.tcp, limit),
                            Sink::Tcp(Receiver::new(id, &fl.tcp)),
                        )
                    }
                    FlowKind::Web => (
                        Source::web(id, &fl.tcp, fl.web.segments, fl.web.think_time),
                        Sink::Tcp(Receiver::new(id, &fl.tcp)),
                    ),
                    FlowKind::UdpCbr => (Source::cbr(id, &fl.cbr), udp_sink()),
                    FlowKind::ParetoOnoff => {
                        let rng = SimRng::new(f.seed, component::SOURCE_BASE + i as u64);
                        (Source::pareto(id, &fl.pareto, rng), udp_sink())
                    }
                };
                FlowRt {
                    source,
                    sink,
                    started: false,
                    sender_armed: None,
                    receiver_armed: None,
                }
            })
            .collect();
        let mut events = EventQueue::new();
        for (i, fl) in net.flows.iter().enumerate() {
            for &(on, off) in &fl.active {
                events.push(on, Ev::On(i as u32));
                if let Some(off) = off {
                    events.push(off, Ev::Off(i as u32));
                }
            }
        }
        events.push(SimTime::ZERO, Ev::Sample);
        events.push(SimTime::ZERO + f.series_bin, Ev::Bin);
        let warmup = SimTime::ZERO + f.warmup;
        events.push(warmup, Ev::Warmup);
        let queued = links.iter().map(|l| !l.is_arithmetic_fifo()).collect();
        let mut qdisc_armed = vec![None; links.len()];
        for (i, l) in links.iter().enumerate() {
            arm(
                &mut events,
                &mut qdisc_armed[i],
                l.qdisc.next_timer(),
                SimTime::ZERO,
                Ev::QdiscTimer(i as LinkId),
            );
        }
        let groups = net.group_names.len();
        Simulator {
            now: SimTime::ZERO,
            end: SimTime::ZERO + f.duration,
            warmup,
            events,
            links,
            flows,
            net,
            scenario: scenario.clone(),
            next_packet_id: 0,
            scratch: Vec::new(),
            qdisc_armed,
            queued,
            snapshot: Snapshot::default(),
            series: Series {
                probe_names: Vec::new(),
                t: Vec::new(),
                qlen_pkts: Vec::new(),
                qlen_bytes: Vec::new(),
                qlen_avg: Vec::new(),
                last_area: 0,
                probes: Vec::new(),
                bin_t: Vec::new(),
                bin_group: Vec::new(),
                bin_goodput: Vec::new(),
                last_group_delivered: vec![0; groups],
            },
            processed: 0,
            transfers: Vec::new(),
        }
    }

    /// Processes events up to and including `until` (capped at the scenario's duration).
    pub fn run_until(&mut self, until: SimTime) {
        let until = until.min(self.end);
        while self.events.peek_time().is_some_and(|t| t <= until) {
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.processed += 1;
            self.handle(ev);
        }
        self.now = until;
    }

    #[inline]
    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::TxDone(l) => {
                let (arrival, next_done) = self.links[l as usize].on_tx_done(self.now);
                self.schedule(l, arrival);
                self.schedule(l, next_done);
                if self.queued[l as usize] {
                    self.poll_qdisc_timer(l);
                }
            }
            Ev::Arrive(l) => {
                let Some((pkt, next)) = self.links[l as usize].take_arrival() else {
                    return;
                };
                if let Some(t) = next {
                    self.events.push(t, Ev::Arrive(l));
                }
                self.forward(pkt);
            }
            Ev::QdiscTimer(l) => {
                let li = l as usize;
                if self.qdisc_armed[li].is_some_and(|a| a <= self.now) {
                    self.qdisc_armed[li] = None;
                }
                let link = &mut self.links[li];
                if link.qdisc.next_timer().is_some_and(|t| t <= self.now) {
                    link.qdisc.on_timer(self.now, &mut link.rng);
                }
                self.poll_qdisc_timer(l);
            }
            Ev::SenderTimer(f) => {
                let fi = f as usize;
                if self.flows[fi].sender_armed.is_some_and(|a| a <= self.now) {
                    self.flows[fi].sender_armed = None;
                }
                if self.flows[fi]
                    .source
                    .next_timer()
                    .is_some_and(|t| t <= self.now)
                {
                    let now = self.now;
                    let mut out = std::mem::take(&mut self.scratch);
                    self.flows[fi].source.on_timer(now, &mut |p| out.push(p));
                    self.send_all(&mut out);
                    self.scratch = out;
                }
                self.arm_sender(f);
            }
            Ev::ReceiverTimer(f) => {
                let fi = f as usize;
                if self.flows[fi].receiver_armed.is_some_and(|a| a <= self.now) {
                    self.flows[fi].receiver_armed = None;
                }
                if self.flows[fi]
                    .sink
                    .next_timer()
                    .is_some_and(|t| t <= self.now)
                {
                    let now = self.now;
                    let mut out = std::mem::take(&mut self.scratch);
                    self.flows[fi].sink.on_timer(now, &mut |p| out.push(p));
                    self.send_all(&mut out);
                    self.scratch = out;
                }
                self.arm_receiver(f);
            }
            Ev::On(f) => {
                let fi = f as usize;
                let now = self.now;
                let first = !self.flows[fi].started;
                self.flows[fi].started = true;
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[fi].source.on(now, first, &mut |p| out.push(p));
                self.send_all(&mut out);
                self.scratch = out;
                self.arm_sender(f);
            }
            Ev::Off(f) => self.flows[f as usize].source.off(),
            Ev::Sample => {
                self.sample();
                let next = self.now + self.scenario.file.sample_interval;
                self.events.push(next, Ev::Sample);
            }
            Ev::Bin => {
                self.bin();
                let next = self.now + self.scenario.file.series_bin;
                self.events.push(next, Ev::Bin);
            }
            Ev::Warmup => self.open_window(),
        }
    }

    #[inline]
    fn schedule(&mut self, l: LinkId, next: Next) {
        match next {
            Next::Nothing => {}
            Next::TxDone(t) => self.events.push(t, Ev::TxDone(l)),
            Next::Arrive(t) => self.events.push(t, Ev::Arrive(l)),
        }
    }

    fn poll_qdisc_timer(&mut self, l: LinkId) {
        let li = l as usize;
        let next = self.links[li].qdisc.next_timer();
        arm(
            &mut self.events,
            &mut self.qdisc_armed[li],
            next,
            self.now,
            Ev::QdiscTimer(l),
        );
    }

    fn arm_sender(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        arm(
            &mut self.events,
            &mut fl.sender_armed,
            fl.source.next_timer(),
            self.now,
            Ev::SenderTimer(f),
        );
    }

    fn arm_receiver(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        arm(
            &mut self.events,
            &mut fl.receiver_armed,
            fl.sink.next_timer(),
            self.now,
            Ev::ReceiverTimer(f),
        );
    }

    /// Injects packets an endpoint emitted at the first link of their path.
    fn send_all(&mut self, out: &mut Vec<Packet>) {
        for mut pkt in out.drain(..) {
            pkt.id = self.next_packet_id;
            self.next_packet_id += 1;
            pkt.hop = 0;
            self.forward_from(pkt, 0);
        }
    }

    /// A packet reached the end of link `path[pkt.hop]`: move it on, or deliver it.
    #[inline]
    fn forward(&mut self, mut pkt: Packet) {
        pkt.hop += 1;
        let hop = pkt.hop as usize;
        self.forward_from(pkt, hop);
    }

    #[inline]
    fn forward_from(&mut self, pkt: Packet, hop: usize) {
        let fi = pkt.flow as usize;
        let spec = &self.net.flows[fi];
        let path = if pkt.kind == PacketKind::Data {
            &spec.forward
        } else {
            &spec.reverse
        };
        if let Some(&l) = path.get(hop) {
            let queued = self.queued[l as usize];
            let next = self.links[l as usize].offer(self.now, pkt);
            self.schedule(l, next);
            if queued {
                self.poll_qdisc_timer(l);
            }
            return;
        }
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        match pkt.kind {
            PacketKind::Data => {
                self.flows[fi].sink.on_data(now, &pkt, &mut |p| out.push(p));
                self.send_all(&mut out);
                self.arm_receiver(fi as u32);
            }
            PacketKind::Ack => {
                let done = self.flows[fi]
                    .source
                    .on_ack(now, &pkt, &mut |p| out.push(p));
                if let Some(t) = done {
                    self.transfers.push(t);
                }
                self.send_all(&mut out);
                self.arm_sender(fi as u32);
            }
        }
        self.scratch = out;
    }

    fn open_window(&mut self) {
        let b = &self.links[self.net.bottleneck as usize];
        self.snapshot = Snapshot {
            delivered: (0..self.flows.len())
                .map(|i| self.delivered_bytes(i))
                .collect(),
            sent: self.flows.iter().map(|f| f.source.packets_sent()).collect(),
            retransmits: self
                .flows
                .iter()
                .map(|f| f.source.tcp_stats().retransmits)
                .collect(),
            timeouts: self
                .flows
                .iter()
                .map(|f| f.source.tcp_stats().timeouts)
                .collect(),
            bottleneck: b.qdisc.stats().clone(),
            bottleneck_served_bits: b.served_bits(self.now),
            bottleneck_lost: b.lost_on_wire,
            declared: self.links[..self.net.declared]
                .iter()
                .map(|l| LinkSnapshot {
                    stats: l.stats().clone(),
                    served_bits: l.served_bits(self.now),
                    lost: l.lost_on_wire,
                    queue_area: l.queue_area(self.now),
                })
                .collect(),
        };
        self.links[self.net.bottleneck as usize].delay_hist.clear();
    }

    fn sample(&mut self) {
        let b = &self.links[self.net.bottleneck as usize];
        let s = &mut self.series;
        s.t.push(self.now.as_secs_f64());
        s.qlen_pkts.push(b.qdisc.len_pkts() as f64);
        s.qlen_bytes.push(b.qdisc.len_bytes() as f64);
        let area = b.queue_area(self.now);
        let interval = self.scenario.file.sample_interval.0 as f64;
        // The first sample (t = 0) has no interval behind it: the queue is empty then.
        s.qlen_avg.push(if s.t.len() == 1 {
            0.0
        } else {
            (area - s.last_area) as f64 / interval
        });
        s.last_area = area;
        let first = s.probe_names.is_empty() && s.t.len() == 1;
        let mut k = 0;
        b.qdisc.probe(&mut |name, v| {
            if first {
                s.probe_names.push(name);
                s.probes.push(Vec::new());
            }
            if let Some(col) = s.probes.get_mut(k) {
                col.push(v);
            }
            k += 1;
        });
        // An algorithm that probes fewer values at times still yields rectangular columns.
        let rows = s.t.len();
        for col in &mut s.probes {
            col.resize(rows, f64::NAN);
        }
    }

    fn bin(&mut self) {
        let width = self.scenario.file.series_bin.as_secs_f64();
        let mut per_group = vec![0u64; self.net.group_names.len()];
        for i in 0..self.flows.len() {
            per_group[self.net.flows[i].group] += self.delivered_bytes(i);
        }
        for (g, bytes) in per_group.into_iter().enumerate() {
            let delta = bytes - self.series.last_group_delivered[g];
            self.series.last_group_delivered[g] = bytes;
            self.series.bin_t.push(self.now.as_secs_f64());
            self.series.bin_group.push(self.net.group_names[g].clone());
            self.series
                .bin_goodput
                .push(delta as f64 * 8.0 / width / 1e6);
        }
    }

    /// Runs to the end and collects the results.
    pub fn finish(mut self) -> RunOutput {
        self.run_until(self.end);
        debug_assert!(self.links.iter().all(|l| {
            let c = l.counters(self.now);
            c.arrivals == c.dequeued + c.drops + c.backlog
        }));
        let summary = self.summary();
        let summary_json = serde_json::to_string_pretty(&summary).unwrap_or_default();
        RunOutput {
            summary_json,
            summary,
            flows: self.flow_table(),
            queue: self.queue_table(),
            groups: Table {
                columns: vec![
                    (
                        "t_s".into(),
                        Column::F64(std::mem::take(&mut self.series.bin_t)),
                    ),
                    (
                        "group".into(),
                        Column::Str(std::mem::take(&mut self.series.bin_group)),
                    ),
                    (
                        "goodput_mbps".into(),
                        Column::F64(std::mem::take(&mut self.series.bin_goodput)),
                    ),
                ],
            },
            links: self.link_table(),
            transfers: self.transfer_table(),
            events: self.processed,
        }
    }

    fn window_secs(&self) -> f64 {
        (self.end - self.warmup).as_secs_f64()
    }

    /// Unique data delivered to flow `i`'s application so far, bytes. TCP counts whole data
    /// packets (headers included), as ns-2 does with `packetSize_`.
    fn delivered_bytes(&self, i: usize) -> u64 {
        self.flows[i]
            .sink
            .delivered_bytes(self.net.flows[i].info.packet_bytes)
    }

    fn goodputs_mbps(&self) -> Vec<f64> {
        let w = self.window_secs();
        (0..self.flows.len())
            .map(|i| {
                let bytes =
                    self.delivered_bytes(i) - self.snapshot.delivered.get(i).copied().unwrap_or(0);
                bytes as f64 * 8.0 / w / 1e6
            })
            .collect()
    }

    /// Drops and marks of flow `i`'s packets in the measurement window: at the dumbbell's
    /// bottleneck, or on every declared link of a topology flow's data route.
    fn flow_drops_marks(&self, i: usize) -> (u64, u64) {
        if self.net.declared > 0 {
            let at = |st: &QdiscStats| st.per_flow.get(i).copied().unwrap_or_default();
            return self.net.flows[i]
                .forward
                .iter()
                .filter(|&&l| (l as usize) < self.net.declared)
                .fold((0, 0), |(d, m), &l| {
                    let now = at(self.links[l as usize].stats());
                    let then = self
                        .snapshot
                        .declared
                        .get(l as usize)
                        .map(|s| at(&s.stats))
                        .unwrap_or_default();
                    (d + now.drops - then.drops, m + now.marks - then.marks)
                });
        }
        let now = self.links[self.net.bottleneck as usize]
            .qdisc
            .stats()
            .per_flow
            .get(i)
            .copied()
            .unwrap_or_default();
        let then = self
            .snapshot
            .bottleneck
            .per_flow
            .get(i)
            .copied()
            .unwrap_or_default();
        (now.drops - then.drops, now.marks - then.marks)
    }

    fn summary(&self) -> Value {
        let f = &self.scenario.file;
        let b = &self.links[self.net.bottleneck as usize];
        let st = b.qdisc.stats();
        let s0 = &self.snapshot.bottleneck;
        let w = self.window_secs();
        let goodputs = self.goodputs_mbps();
        let arrivals = st.arrivals - s0.arrivals;
        let departures = st.dequeued - s0.dequeued;
        let lost = b.lost_on_wire - self.snapshot.bottleneck_lost;
        let mut drops = Map::new();
        let mut total_drops = 0u64;
        for r in crate::aqm::Reason::ALL {
            let n = st.dropped_before_enqueue[r as usize] + st.dropped_after_dequeue[r as usize]
                - s0.dropped_before_enqueue[r as usize]
                - s0.dropped_after_dequeue[r as usize];
            total_drops += n;
            drops.insert(r.key().into(), json!(n));
        }
        drops.insert("link_loss".into(), json!(lost));
        let marks = st.marks() - s0.marks();
        let utilisation = (b.served_bits(self.now) - self.snapshot.bottleneck_served_bits) as f64
            / (b.rate_bps as f64 * w);
        let in_window: Vec<f64> = self
            .series
            .t
            .iter()
            .zip(&self.series.qlen_pkts)
            .filter(|(t, _)| **t >= self.warmup.as_secs_f64())
            .map(|(_, q)| *q)
            .collect();
        let (q_mean, q_std) = mean_std(&in_window);
        let h = &b.delay_hist;
        let (g_min, g_max) = goodputs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &g| {
                (lo.min(g), hi.max(g))
            });
        let g_mean = goodputs.iter().sum::<f64>() / goodputs.len().max(1) as f64;

        let mut groups = Map::new();
        for (gi, name) in self.net.group_names.iter().enumerate() {
            let members: Vec<usize> = (0..self.flows.len())
                .filter(|&i| self.net.flows[i].group == gi)
                .collect();
            let gp: Vec<f64> = members.iter().map(|&i| goodputs[i]).collect();
            let (d, m) = members.iter().fold((0, 0), |(d, m), &i| {
                let (di, mi) = self.flow_drops_marks(i);
                (d + di, m + mi)
            });
            let mut entry = json!({
                "flows": members.len(),
                "goodput_mbps": gp.iter().sum::<f64>(),
                "mean_goodput_mbps": gp.iter().sum::<f64>() / gp.len().max(1) as f64,
                "jain_index": jain_index(&gp),
                "drops": d,
                "marks": m,
            });
            let transfers = self.window_transfers(gi);
            if !transfers.is_empty() {
                let (mean, std) = mean_std(&transfers);
                entry["transfers"] =
                    json!({ "count": transfers.len(), "mean_s": mean, "variance_s2": std * std });
            }
            groups.insert(name.clone(), entry);
        }
        let flows: Vec<Value> = (0..self.flows.len())
            .map(|i| {
                let (d, m) = self.flow_drops_marks(i);
                let st = self.flows[i].source.tcp_stats();
                json!({
                    "id": i,
                    "group": self.net.group_names[self.net.flows[i].group],
                    "rtt_ms": self.net.flows[i].info.base_rtt.as_millis_f64(),
                    "goodput_mbps": goodputs[i],
                    "drops": d,
                    "marks": m,
                    "retransmits": st.retransmits - self.snapshot.retransmits.get(i).copied().unwrap_or(0),
                    "timeouts": st.timeouts - self.snapshot.timeouts.get(i).copied().unwrap_or(0),
                })
            })
            .collect();
        let mut summary = json!({
            "scenario": f.name,
            "seed": f.seed,
            "qdisc": self.scenario.qdisc.kind(),
            "duration_s": f.duration.as_secs_f64(),
            "warmup_s": f.warmup.as_secs_f64(),
            "window_s": w,
            "utilisation": utilisation,
            "loss_rate": if arrivals == 0 { 0.0 } else { (total_drops + lost) as f64 / arrivals as f64 },
            "drops": drops,
            "marks": marks,
            "arrivals": arrivals,
            "departures": departures,
            "jain_index": jain_index(&goodputs),
            "goodput_mbps": { "min": if goodputs.is_empty() { 0.0 } else { g_min }, "max": g_max, "mean": g_mean },
            "queue_pkts": { "mean": q_mean, "std": q_std, "samples": in_window.len() },
            "delay_ms": { "mean": h.mean_ms(), "p50": h.quantile_ms(0.5), "p99": h.quantile_ms(0.99) },
            "groups": groups,
            "flows": flows,
        });
        if self.net.declared > 0 {
            summary["measured_link"] = json!(role_name(&b.role));
            summary["links"] = self.declared_link_summary();
        }
        summary
    }

    /// One entry per direction of each `[[topology.links]]` entry, over the measurement window.
    fn declared_link_summary(&self) -> Value {
        let w = self.window_secs();
        let rows: Vec<Value> = self.links[..self.net.declared]
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let zero = LinkSnapshot::default();
                let s0 = self.snapshot.declared.get(i).unwrap_or(&zero);
                let st = l.stats();
                let arrivals = st.arrivals - s0.stats.arrivals;
                let drops = st.drops() - s0.stats.drops();
                let lost = l.lost_on_wire - s0.lost;
                let area = l.queue_area(self.now) - s0.queue_area;
                json!({
                    "link": role_name(&l.role),
                    "qdisc": self.net.topology.links[i].qdisc.kind(),
                    "rate_bps": l.rate_bps,
                    "utilisation": (l.served_bits(self.now) - s0.served_bits) as f64 / (l.rate_bps as f64 * w),
                    "arrivals": arrivals,
                    "departures": st.dequeued - s0.stats.dequeued,
                    "drops": drops,
                    "marks": st.marks() - s0.stats.marks(),
                    "link_loss": lost,
                    "loss_rate": if arrivals == 0 { 0.0 } else { (drops + lost) as f64 / arrivals as f64 },
                    "queue_pkts_mean": area as f64 / (self.end - self.warmup).0 as f64,
                })
            })
            .collect();
        Value::Array(rows)
    }

    /// Transfers that started inside the measurement window, per group.
    fn window_transfers(&self, group: usize) -> Vec<f64> {
        self.transfers
            .iter()
            .filter(|t| t.start >= self.warmup && self.net.flows[t.flow as usize].group == group)
            .map(|t| t.duration.as_secs_f64())
            .collect()
    }

    fn transfer_table(&self) -> Table {
        let tr = &self.transfers;
        let mut t = Table::new();
        t.push(
            "flow",
            Column::I64(tr.iter().map(|x| x.flow as i64).collect()),
        );
        t.push(
            "group",
            Column::Str(
                tr.iter()
                    .map(|x| self.net.group_names[self.net.flows[x.flow as usize].group].clone())
                    .collect(),
            ),
        );
        t.push(
            "start_s",
            Column::F64(tr.iter().map(|x| x.start.as_secs_f64()).collect()),
        );
        t.push(
            "duration_s",
            Column::F64(tr.iter().map(|x| x.duration.as_secs_f64()).collect()),
        );
        t
    }

    fn flow_table(&self) -> Table {
        let n = self.flows.len();
        let goodputs = self.goodputs_mbps();
        let spec = &self.net.flows;
        let i64s = |f: &dyn Fn(usize) -> u64| Column::I64((0..n).map(|i| f(i) as i64).collect());
        let mut t = Table::new();
        t.push("id", Column::I64((0..n as i64).collect()));
        t.push(
            "group",
            Column::Str(
                (0..n)
                    .map(|i| self.net.group_names[spec[i].group].clone())
                    .collect(),
            ),
        );
        t.push(
            "rtt_ms",
            Column::F64(
                spec.iter()
                    .map(|s| s.info.base_rtt.as_millis_f64())
                    .collect(),
            ),
        );
        t.push(
            "idmaps_rtt_ms",
            Column::F64(
                spec.iter()
                    .map(|s| s.info.idmaps_rtt.as_millis_f64())
                    .collect(),
            ),
        );
        t.push(
            "start_s",
            Column::F64(spec.iter().map(|s| s.start.as_secs_f64()).collect()),
        );
        t.push("goodput_mbps", Column::F64(goodputs));
        t.push("delivered_bytes", i64s(&|i| self.delivered_bytes(i)));
        let snap = &self.snapshot;
        let since = |v: &Vec<u64>, i: usize, now: u64| now - v.get(i).copied().unwrap_or(0);
        t.push(
            "sent",
            i64s(&|i| since(&snap.sent, i, self.flows[i].source.packets_sent())),
        );
        t.push(
            "retransmits",
            i64s(&|i| {
                since(
                    &snap.retransmits,
                    i,
                    self.flows[i].source.tcp_stats().retransmits,
                )
            }),
        );
        t.push(
            "timeouts",
            i64s(&|i| since(&snap.timeouts, i, self.flows[i].source.tcp_stats().timeouts)),
        );
        t.push("drops", i64s(&|i| self.flow_drops_marks(i).0));
        t.push("marks", i64s(&|i| self.flow_drops_marks(i).1));
        t.push(
            "completion_s",
            Column::F64(
                (0..n)
                    .map(|i| {
                        self.flows[i]
                            .source
                            .tcp_stats()
                            .completed_at
                            .map_or(f64::NAN, |c| (c - spec[i].start).as_secs_f64())
                    })
                    .collect(),
            ),
        );
        t
    }

    fn queue_table(&mut self) -> Table {
        let s = &mut self.series;
        let mut t = Table::new();
        t.push("t_s", Column::F64(std::mem::take(&mut s.t)));
        t.push("qlen_pkts", Column::F64(std::mem::take(&mut s.qlen_pkts)));
        t.push("qlen_bytes", Column::F64(std::mem::take(&mut s.qlen_bytes)));
        t.push(
            "qlen_avg_pkts",
            Column::F64(std::mem::take(&mut s.qlen_avg)),
        );
        for (name, col) in s.probe_names.iter().zip(std::mem::take(&mut s.probes)) {
            t.push(name, Column::F64(col));
        }
        t
    }

    fn link_table(&self) -> Table {
        let dur = (self.end - SimTime::ZERO).as_secs_f64();
        let counters: Vec<_> = self.links.iter().map(|l| l.counters(self.now)).collect();
        let col = |f: &dyn Fn(&LinkCounters) -> u64| {
            Column::I64(counters.iter().map(|c| f(c) as i64).collect())
        };
        let mut t = Table::new();
        t.push("link", Column::I64((0..self.links.len() as i64).collect()));
        t.push(
            "role",
            Column::Str(self.links.iter().map(|l| role_name(&l.role)).collect()),
        );
        t.push(
            "rate_bps",
            Column::I64(self.links.iter().map(|l| l.rate_bps as i64).collect()),
        );
        t.push("arrivals", col(&|c| c.arrivals));
        t.push("enqueued", col(&|c| c.enqueued));
        t.push("dequeued", col(&|c| c.dequeued));
        t.push("drops", col(&|c| c.drops));
        t.push("marks", col(&|c| c.marks));
        t.push("backlog", col(&|c| c.backlog));
        t.push("in_flight", col(&|c| c.in_flight));
        t.push("tx_packets", col(&|c| c.tx_packets));
        t.push("tx_bytes", col(&|c| c.tx_bytes));
        t.push("lost_on_wire", col(&|c| c.lost_on_wire));
        t.push(
            "capacity_bytes",
            Column::I64(
                self.links
                    .iter()
                    .map(|l| (l.rate_bps as f64 * dur / 8.0).floor() as i64)
                    .collect(),
            ),
        );
        t
    }
}

fn role_name(r: &LinkRole) -> String {
    match r {
        LinkRole::Bottleneck => "bottleneck".into(),
        LinkRole::BottleneckReverse => "bottleneck_reverse".into(),
        LinkRole::Access { host } => format!("access.{host}"),
        LinkRole::AccessReverse { host } => format!("access_reverse.{host}"),
        LinkRole::Sink { host } => format!("sink.{host}"),
        LinkRole::SinkReverse { host } => format!("sink_reverse.{host}"),
        LinkRole::Named(name) => name.clone(),
        LinkRole::Other => "other".into(),
    }
}

/// Runs a validated scenario to the end.
pub fn run(s: &Scenario) -> RunOutput {
    Simulator::new(s).finish()
}

/// Convenience for benchmarks: total simulated duration of a scenario.
pub fn duration(s: &Scenario) -> SimDuration {
    s.file.duration
}
