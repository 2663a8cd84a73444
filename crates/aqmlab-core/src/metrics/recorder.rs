//! The run's measurement: an [`Observer`] with three timers of its own.
//!
//! - warm-up: at `warmup`, snapshot every counter the summary reports, so the summary covers
//!   only the measurement window, and clear the bottleneck's delay histogram;
//! - sample: every `sample_interval` from t = 0, the bottleneck queue (instantaneous and
//!   time-averaged) and the AQM's probes;
//! - bin: every `series_bin`, per-group goodput over the bin;
//! - window edge: at each edge of the scenario's extra `windows`, the measured link's counters
//!   ([`LinkMark`]), from which the summary's `windows` are differences.
//!
//! Then `Recorder::finish` (`summary.rs`) turns the snapshot, the series and the world's final
//! counters into the typed summary and the result tables.

use crate::engine::{Observer, TimerId, World};
use crate::metrics::packet_trace::{self, PacketTrace};
use crate::metrics::{Column, DelayHistogram, FlowDelayStats, LinkProbe, Table};
use crate::net::link::LinkCounters;
use crate::net::packet::FlowId;
use crate::net::topology::{LinkId, LinkRole};
use crate::qdisc::QdiscStats;
use crate::scenario::expand::Expanded;
use crate::scenario::Scenario;
use crate::time::{SimDuration, SimTime};
use crate::traffic::Transfer;

const SAMPLE: TimerId = 0;
const BIN: TimerId = 1;
const WARMUP: TimerId = 2;
const EDGE: TimerId = 3;

/// The measured link's counters at one instant: a measurement window is the difference of the
/// marks at its two edges (`summary::window_summary`).
#[derive(Clone, Default)]
pub(crate) struct LinkMark {
    pub arrivals: u64,
    pub departures: u64,
    /// Drops by reason (before enqueue and after dequeue together), by `Reason as usize`.
    pub dropped: [u64; crate::aqm::Reason::COUNT],
    pub marks: u64,
    /// Bits serialised so far (`Link::served_bits`).
    pub served_bits: u128,
    pub lost: u64,
    /// Packets at the link that it may still drop or lose (`present_at`).
    pub present: u64,
}

impl LinkMark {
    pub(crate) fn new(st: &QdiscStats, served_bits: u128, lost: u64, present: u64) -> LinkMark {
        let mut dropped = [0; crate::aqm::Reason::COUNT];
        for (i, d) in dropped.iter_mut().enumerate() {
            *d = st.dropped_before_enqueue[i] + st.dropped_after_dequeue[i];
        }
        LinkMark {
            arrivals: st.arrivals,
            departures: st.dequeued,
            dropped,
            marks: st.marks(),
            served_bits,
            lost,
            present,
        }
    }

    /// The measured link's mark now (after `settle_links`).
    pub(crate) fn of_bottleneck(world: &World) -> LinkMark {
        let b = world.bottleneck();
        LinkMark::new(
            &b.stats(world.now, &world.pipes),
            b.served_bits(world.now, &world.pipes),
            b.lost_on_wire,
            present_at(b, world),
        )
    }
}

/// What was counted when the measurement window opened.
#[derive(Default)]
pub(crate) struct Snapshot {
    pub delivered: Vec<u64>,
    pub sent: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub timeouts_after_ecn: Vec<u64>,
    pub bottleneck: QdiscStats,
    /// Bits serialised by the bottleneck up to the window's opening (`Link::served_bits`).
    pub bottleneck_served_bits: u128,
    pub bottleneck_lost: u64,
    /// Packets at the bottleneck when the window opened (waiting or being sent): drops and
    /// losses in the window are of these or of the window's arrivals (`present_at`).
    pub bottleneck_present: u64,
    /// A `[topology]` scenario's own links (empty for the dumbbell).
    pub declared: Vec<LinkSnapshot>,
}

#[derive(Default)]
pub(crate) struct LinkSnapshot {
    pub stats: QdiscStats,
    pub served_bits: u128,
    pub lost: u64,
    pub queue_area: u128,
    pub present: u64,
}

/// Packets at a link at `now` that it may still drop or lose: waiting in its queue, or being
/// serialised (dequeued, transmission not finished).
pub(crate) fn present_at(link: &crate::net::link::Link, world: &World) -> u64 {
    let c = link.counters(world.now, &world.pipes);
    c.backlog + (c.dequeued - c.tx_packets)
}

#[derive(Default)]
pub(crate) struct Series {
    pub probe_names: Vec<&'static str>,
    pub t: Vec<f64>,
    pub qlen_pkts: Vec<f64>,
    pub qlen_bytes: Vec<f64>,
    /// Time-average queue length over each sample interval (exact integral), packets.
    pub qlen_avg: Vec<f64>,
    pub last_area: u128,
    pub probes: Vec<Vec<f64>>,
    pub bin_t: Vec<f64>,
    pub bin_group: Vec<String>,
    pub bin_goodput: Vec<f64>,
    pub last_group_delivered: Vec<u64>,
}

/// Measures one run: see the module docs.
pub struct Recorder {
    /// The scenario and the network it expanded into: groups, flows' routes and base RTTs,
    /// the declared links.
    pub(crate) scenario: Scenario,
    pub(crate) net: Expanded,
    sample_interval: SimDuration,
    series_bin: SimDuration,
    pub(crate) snapshot: Snapshot,
    pub(crate) series: Series,
    /// Completed web transfers, in completion order.
    pub(crate) transfers: Vec<Transfer>,
    /// What each link the results read measures (`observes`), by link id.
    probes: Vec<Option<Box<LinkProbe>>>,
    /// Edges of the scenario's `windows` before the end of the run, ascending, and the marks
    /// taken at those already passed (an edge at the end is the final state, `Summary::build`).
    edges: Vec<SimTime>,
    pub(crate) marks: Vec<(SimTime, LinkMark)>,
}

/// Whether the results read link `i` of `net` beyond its counters (so the recorder keeps a
/// probe on it, and the link reports every departure): the measured link, a topology's own
/// links, a traced link.
pub fn observes(scenario: &Scenario, net: &Expanded, i: usize) -> bool {
    let measured = i == net.bottleneck as usize;
    measured
        || i < net.declared
        || packet_trace::traced(&scenario.file.trace, &net.topology.links[i], measured)
}

impl Observer for Recorder {
    type Hook = LinkProbe;

    #[inline]
    fn link_hook(&mut self, link: LinkId) -> Option<&mut LinkProbe> {
        self.probes.get_mut(link as usize)?.as_deref_mut()
    }

    fn start(&mut self, world: &World) -> Vec<(SimTime, TimerId)> {
        self.series.last_group_delivered = vec![0; self.net.group_names.len()];
        let mut timers = vec![
            (SimTime::ZERO, SAMPLE),
            (SimTime::ZERO + self.series_bin, BIN),
            (world.warmup, WARMUP),
        ];
        if let Some(&first) = self.edges.first() {
            timers.push((first, EDGE));
        }
        timers
    }

    fn on_timer(&mut self, timer: TimerId, world: &mut World) -> Option<SimTime> {
        match timer {
            SAMPLE => {
                // The algorithm's probes after every departure up to now (FIFO arithmetic).
                let b = world.bottleneck;
                world.settle_link(b, self.link_hook(b));
                self.sample(world);
                Some(world.now + self.sample_interval)
            }
            BIN => {
                self.bin(world);
                Some(world.now + self.series_bin)
            }
            EDGE => {
                let b = world.bottleneck;
                world.settle_link(b, self.link_hook(b));
                self.marks.push((world.now, LinkMark::of_bottleneck(world)));
                self.edges.get(self.marks.len()).copied()
            }
            _ => {
                debug_assert_eq!(timer, WARMUP);
                self.open_window(world);
                None
            }
        }
    }

    fn on_transfer(&mut self, transfer: Transfer) {
        self.transfers.push(transfer);
    }
}

impl Recorder {
    /// A recorder for `scenario`, built into `net` (`scenario::build::world`), at the
    /// scenario's sample interval and goodput bin.
    pub fn new(scenario: &Scenario, net: Expanded) -> Recorder {
        let probes = (0..net.topology.links.len())
            .map(|i| {
                observes(scenario, &net, i).then(|| {
                    let spec = &net.topology.links[i];
                    let measured = i == net.bottleneck as usize;
                    let trace = &scenario.file.trace;
                    let traced = packet_trace::traced(trace, spec, measured);
                    Box::new(LinkProbe::new(measured, traced.then_some(trace.max_events)))
                })
            })
            .collect();
        let f = &scenario.file;
        let end = SimTime::ZERO + f.duration;
        let mut edges: Vec<SimTime> = f
            .windows
            .iter()
            .flat_map(|&(a, b)| [SimTime::ZERO + a, SimTime::ZERO + b])
            .filter(|&t| t < end)
            .collect();
        edges.sort_unstable();
        edges.dedup();
        Recorder {
            probes,
            edges,
            marks: Vec::new(),
            sample_interval: scenario.file.sample_interval,
            series_bin: scenario.file.series_bin,
            scenario: scenario.clone(),
            net,
            snapshot: Snapshot::default(),
            series: Series::default(),
            transfers: Vec::new(),
        }
    }

    /// Brings every link's glue and probe up to `world.now` (`World::settle_link`).
    pub fn settle_links(&mut self, world: &mut World) {
        for l in 0..world.links.len() as LinkId {
            world.settle_link(l, self.link_hook(l));
        }
    }

    /// The measured link's probe (the one with the sojourn histogram).
    pub fn measured_probe(&mut self, world: &World) -> &mut LinkProbe {
        self.link_hook(world.bottleneck)
            .expect("the recorder measures the measured link")
    }

    /// Time integral of link `l`'s queue length up to `world.now` (zero for a link the
    /// recorder does not measure); exact after `settle_links`.
    pub(crate) fn queue_area(&self, world: &World, l: LinkId) -> u128 {
        self.probes
            .get(l as usize)
            .and_then(|p| p.as_deref())
            .map_or(0, |p| p.area(world.now))
    }

    /// The measured link's sojourn histogram.
    pub(crate) fn delays(&self, world: &World) -> &DelayHistogram {
        self.probes[world.bottleneck as usize]
            .as_deref()
            .and_then(LinkProbe::delays)
            .expect("the measured link records sojourns")
    }

    /// Takes every traced link's log, with the link's name, in link order.
    pub fn take_traces(&mut self, world: &World) -> Vec<(String, PacketTrace)> {
        let mut out = Vec::new();
        for (l, p) in world.links.iter().zip(&mut self.probes) {
            if let Some(tr) = p.as_deref_mut().and_then(|p| p.trace.take()) {
                out.push((role_name(&l.role), *tr));
            }
        }
        out
    }

    fn open_window(&mut self, world: &mut World) {
        self.settle_links(world);
        let b = world.bottleneck();
        self.snapshot = Snapshot {
            delivered: (0..world.flows.len())
                .map(|i| world.delivered_bytes(i))
                .collect(),
            sent: world
                .flows
                .iter()
                .map(|f| f.source.packets_sent())
                .collect(),
            retransmits: world
                .flows
                .iter()
                .map(|f| f.source.tcp_stats().retransmits)
                .collect(),
            timeouts: world
                .flows
                .iter()
                .map(|f| f.source.tcp_stats().timeouts)
                .collect(),
            timeouts_after_ecn: world
                .flows
                .iter()
                .map(|f| f.source.tcp_stats().timeouts_after_ecn)
                .collect(),
            bottleneck: b.stats(world.now, &world.pipes).into_owned(),
            bottleneck_served_bits: b.served_bits(world.now, &world.pipes),
            bottleneck_lost: b.lost_on_wire,
            bottleneck_present: present_at(b, world),
            declared: world.links[..self.net.declared]
                .iter()
                .enumerate()
                .map(|(i, l)| LinkSnapshot {
                    stats: l.stats(world.now, &world.pipes).into_owned(),
                    served_bits: l.served_bits(world.now, &world.pipes),
                    lost: l.lost_on_wire,
                    queue_area: self.queue_area(world, i as LinkId),
                    present: present_at(l, world),
                })
                .collect(),
        };
        if let Some((h, _)) = &mut self.measured_probe(world).sojourns {
            h.clear();
        }
    }

    fn sample(&mut self, world: &World) {
        let b = world.bottleneck();
        let area = self.queue_area(world, world.bottleneck);
        let s = &mut self.series;
        s.t.push(world.now.as_secs_f64());
        let q = b.queue_at(world.now, &world.pipes);
        s.qlen_pkts.push(q.waiting as f64);
        s.qlen_bytes.push(q.waiting_bytes as f64);
        let interval = self.sample_interval.0 as f64;
        // The first sample (t = 0) has no interval behind it: the queue is empty then.
        s.qlen_avg.push(if s.t.len() == 1 {
            0.0
        } else {
            (area - s.last_area) as f64 / interval
        });
        s.last_area = area;
        let first = s.probe_names.is_empty() && s.t.len() == 1;
        let mut k = 0;
        b.probe(&mut |name, v| {
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

    fn bin(&mut self, world: &World) {
        let width = self.series_bin.as_secs_f64();
        let mut per_group = vec![0u64; self.net.group_names.len()];
        for i in 0..world.flows.len() {
            per_group[self.net.flows[i].group] += world.delivered_bytes(i);
        }
        let s = &mut self.series;
        for (g, bytes) in per_group.into_iter().enumerate() {
            let delta = bytes - s.last_group_delivered[g];
            s.last_group_delivered[g] = bytes;
            s.bin_t.push(world.now.as_secs_f64());
            s.bin_group.push(self.net.group_names[g].clone());
            s.bin_goodput.push(delta as f64 * 8.0 / width / 1e6);
        }
    }

    /// Goodput of every flow over the measurement window, Mbps.
    pub(crate) fn goodputs_mbps(&self, world: &World) -> Vec<f64> {
        let w = world.window_secs();
        (0..world.flows.len())
            .map(|i| {
                let bytes =
                    world.delivered_bytes(i) - self.snapshot.delivered.get(i).copied().unwrap_or(0);
                bytes as f64 * 8.0 / w / 1e6
            })
            .collect()
    }

    /// Drops and marks of flow `i`'s packets in the measurement window: at the dumbbell's
    /// bottleneck, or on every declared link of a topology flow's data route.
    pub(crate) fn flow_drops_marks(&self, world: &World, i: usize) -> (u64, u64) {
        if self.net.declared > 0 {
            let at = |st: &QdiscStats| st.flow_counters(i as FlowId);
            return self.net.flows[i]
                .forward
                .iter()
                .filter(|&&l| (l as usize) < self.net.declared)
                .fold((0, 0), |(d, m), &l| {
                    let now = world.links[l as usize].flow_counters(i as FlowId);
                    let then = self
                        .snapshot
                        .declared
                        .get(l as usize)
                        .map(|s| at(&s.stats))
                        .unwrap_or_default();
                    (d + now.drops - then.drops, m + now.marks - then.marks)
                });
        }
        let now = world.bottleneck().flow_counters(i as FlowId);
        let then = self.snapshot.bottleneck.flow_counters(i as FlowId);
        (now.drops - then.drops, now.marks - then.marks)
    }

    /// The fraction of flow `i`'s packets sent in the measurement window that were dropped
    /// (its `drops` over its `sent`, as FlowMonitor's lost over transmitted packets); NaN when it
    /// sent none. At most 1 (a packet sent before the window may be dropped inside it).
    pub(crate) fn flow_loss_rate(&self, world: &World, i: usize) -> f64 {
        let sent =
            world.flows[i].source.packets_sent() - self.snapshot.sent.get(i).copied().unwrap_or(0);
        let drops = self.flow_drops_marks(world, i).0;
        if sent == 0 {
            f64::NAN
        } else {
            (drops as f64 / sent as f64).min(1.0)
        }
    }

    /// Durations of the transfers that started inside the measurement window, per group.
    pub(crate) fn window_transfers(&self, world: &World, group: usize) -> Vec<f64> {
        self.transfers
            .iter()
            .filter(|t| t.start >= world.warmup && self.net.flows[t.flow as usize].group == group)
            .map(|t| t.duration.as_secs_f64())
            .collect()
    }

    pub(crate) fn transfer_table(&self) -> Table {
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

    pub(crate) fn flow_table(&self, world: &World) -> Table {
        let n = world.flows.len();
        let goodputs = self.goodputs_mbps(world);
        let spec = &self.net.flows;
        let flows = &world.flows;
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
        t.push("delivered_bytes", i64s(&|i| world.delivered_bytes(i)));
        let snap = &self.snapshot;
        let since = |v: &Vec<u64>, i: usize, now: u64| now - v.get(i).copied().unwrap_or(0);
        t.push(
            "sent",
            i64s(&|i| since(&snap.sent, i, flows[i].source.packets_sent())),
        );
        t.push(
            "retransmits",
            i64s(&|i| {
                since(
                    &snap.retransmits,
                    i,
                    flows[i].source.tcp_stats().retransmits,
                )
            }),
        );
        t.push(
            "timeouts",
            i64s(&|i| since(&snap.timeouts, i, flows[i].source.tcp_stats().timeouts)),
        );
        // The timeouts whose previous congestion response was ECN (ns-2's `nrexmit_` leaves them out).
        t.push(
            "timeouts_after_ecn",
            i64s(&|i| {
                let now = flows[i].source.tcp_stats().timeouts_after_ecn;
                since(&snap.timeouts_after_ecn, i, now)
            }),
        );
        t.push("drops", i64s(&|i| self.flow_drops_marks(world, i).0));
        t.push("marks", i64s(&|i| self.flow_drops_marks(world, i).1));
        let delays: Vec<_> = (0..n).map(|i| flow_delay(world, self, i)).collect();
        t.push(
            "delay_mean_ms",
            Column::F64(delays.iter().map(|d| d.mean_ms).collect()),
        );
        t.push(
            "delay_p99_ms",
            Column::F64(delays.iter().map(|d| d.p99_ms).collect()),
        );
        t.push(
            "jitter_ms",
            Column::F64(delays.iter().map(|d| d.jitter_ms).collect()),
        );
        t.push(
            "loss_rate",
            Column::F64((0..n).map(|i| self.flow_loss_rate(world, i)).collect()),
        );
        t.push(
            "completion_s",
            Column::F64(
                (0..n)
                    .map(|i| {
                        flows[i]
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

    pub(crate) fn queue_table(&mut self) -> Table {
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
}

/// Flow `i`'s queueing delay at the measured link over the measurement window.
pub(crate) fn flow_delay(world: &World, rec: &Recorder, i: usize) -> FlowDelayStats {
    rec.delays(world).per_flow.stats(i as FlowId)
}

pub(crate) fn link_table(world: &World) -> Table {
    let links = &world.links;
    let dur = (world.end - SimTime::ZERO).as_secs_f64();
    let counters: Vec<_> = links
        .iter()
        .map(|l| l.counters(world.now, &world.pipes))
        .collect();
    let col = |f: &dyn Fn(&LinkCounters) -> u64| {
        Column::I64(counters.iter().map(|c| f(c) as i64).collect())
    };
    let mut t = Table::new();
    t.push("link", Column::I64((0..links.len() as i64).collect()));
    t.push(
        "role",
        Column::Str(links.iter().map(|l| role_name(&l.role)).collect()),
    );
    t.push(
        "rate_bps",
        Column::I64(links.iter().map(|l| l.rate_bps as i64).collect()),
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
            links
                .iter()
                .map(|l| (l.rate_bps as f64 * dur / 8.0).floor() as i64)
                .collect(),
        ),
    );
    t
}

/// A link's name in tables and the summary.
pub(crate) fn role_name(r: &LinkRole) -> String {
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
