//! The run summary as typed data, and the registry of its metrics.
//!
//! [`Summary`] is what `summary.json` holds (DESIGN.md "Results" stable keys). It serialises
//! through `serde_json::Value`, whose maps sort their keys, so the JSON text is the same whatever
//! the field order here. [`METRICS`] describes the numbers readers compare across runs (key as a
//! dotted path into the summary, label, unit, which way is better); the Python layer takes its
//! tables, reports and plots from it (`aqmlab.metrics()`), so a new metric is one entry here plus
//! the code that computes it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::World;
use crate::metrics::recorder::{
    flow_delay, link_table, role_name, LinkMark, LinkSnapshot, Recorder,
};
use crate::metrics::{jain_index, mean_std, Column, Table};
use crate::net::topology::LinkId;

/// The measurement window of one run, summarised.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    /// The measured link's qdisc kind.
    pub qdisc: String,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub window_s: f64,
    pub utilisation: f64,
    pub loss_rate: f64,
    /// Drops by reason key, plus `link_loss` (lost on the wire).
    pub drops: BTreeMap<String, u64>,
    pub marks: u64,
    pub arrivals: u64,
    pub departures: u64,
    pub jain_index: f64,
    pub goodput_mbps: Goodput,
    pub queue_pkts: QueueStats,
    pub delay_ms: DelayStats,
    pub groups: BTreeMap<String, GroupSummary>,
    pub flows: Vec<FlowSummary>,
    /// A `[topology]` scenario's measured link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_link: Option<String>,
    /// A `[topology]` scenario's own links, one entry per direction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<LinkSummary>>,
    /// The scenario's extra `windows` at the measured link, in the scenario's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<WindowSummary>,
}

/// The measured link over one window `[start_s, end_s]`, counted as the summary counts its own
/// window (`utilisation`, `loss_rate`, `drops`, `marks`, `arrivals`, `departures`).
#[derive(Clone, Debug, Serialize)]
pub struct WindowSummary {
    pub start_s: f64,
    pub end_s: f64,
    pub utilisation: f64,
    pub loss_rate: f64,
    /// Drops by reason key, plus `link_loss` (lost on the wire).
    pub drops: BTreeMap<String, u64>,
    pub marks: u64,
    pub arrivals: u64,
    pub departures: u64,
}

/// The window `span` (its length `secs`) between two marks of a link serialising at `rate_bps`.
fn window_summary(
    start: &LinkMark,
    end: &LinkMark,
    rate_bps: u64,
    span: (f64, f64),
    secs: f64,
) -> WindowSummary {
    let mut drops = BTreeMap::new();
    let mut total_drops = 0u64;
    for r in crate::aqm::Reason::ALL.into_iter().filter(|r| r.can_drop()) {
        let n = end.dropped[r as usize] - start.dropped[r as usize];
        total_drops += n;
        drops.insert(r.key().to_string(), n);
    }
    let lost = end.lost - start.lost;
    drops.insert("link_loss".into(), lost);
    let arrivals = end.arrivals - start.arrivals;
    let (start_s, end_s) = span;
    WindowSummary {
        start_s,
        end_s,
        // Bits sent inside the window, partial packets at its edges included.
        utilisation: (end.served_bits - start.served_bits) as f64 / (rate_bps as f64 * secs),
        loss_rate: loss_rate(total_drops + lost, arrivals + start.present),
        drops,
        marks: end.marks - start.marks,
        arrivals,
        departures: end.departures - start.departures,
    }
}

/// Per-flow goodput over the window, Mbps.
#[derive(Clone, Debug, Serialize)]
pub struct Goodput {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// The bottleneck queue length sampled every `sample_interval` inside the window, packets.
#[derive(Clone, Debug, Serialize)]
pub struct QueueStats {
    pub mean: f64,
    pub std: f64,
    pub samples: usize,
}

/// Queueing delay of the packets that left the bottleneck in the window, ms.
#[derive(Clone, Debug, Serialize)]
pub struct DelayStats {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct GroupSummary {
    pub flows: usize,
    pub goodput_mbps: f64,
    pub mean_goodput_mbps: f64,
    pub jain_index: f64,
    pub drops: u64,
    pub marks: u64,
    /// Web transfers that started in the window (absent for groups without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfers: Option<TransferStats>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TransferStats {
    pub count: usize,
    pub mean_s: f64,
    pub variance_s2: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub id: usize,
    pub group: String,
    pub rtt_ms: f64,
    pub goodput_mbps: f64,
    pub drops: u64,
    pub marks: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Queueing delay of the flow's packets at the measured link, ms (null: none departed).
    pub delay_ms: FlowDelay,
    /// Mean |difference| of consecutive packets' queueing delays there, ms.
    pub jitter_ms: Option<f64>,
    /// Dropped over sent packets in the window (null: none sent).
    pub loss_rate: Option<f64>,
}

/// A flow's queueing-delay statistics in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct FlowDelay {
    pub mean: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    pub link: String,
    pub qdisc: String,
    pub rate_bps: u64,
    pub utilisation: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub marks: u64,
    pub link_loss: u64,
    pub loss_rate: f64,
    pub queue_pkts_mean: f64,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

/// Packets dropped or lost in the window over the packets that were at the link in it (the
/// window's arrivals and those present when it opened: a packet queued before the window may be
/// dropped inside it). Every packet lost is one of those, so this is a fraction.
fn loss_rate(lost: u64, present: u64) -> f64 {
    debug_assert!(
        lost <= present,
        "{lost} packets lost of {present} at the link in the window"
    );
    ratio(lost, present)
}

/// Everything a finished recorder yields.
pub struct Recorded {
    pub summary: Summary,
    pub flows: Table,
    pub queue: Table,
    pub groups: Table,
    pub links: Table,
    pub transfers: Table,
}

impl Recorder {
    /// The summary and the tables, from the world as the run left it.
    pub fn finish(mut self, world: &World) -> Recorded {
        let summary = Summary::build(world, &self);
        let flows = self.flow_table(world);
        let links = link_table(world);
        let transfers = self.transfer_table();
        let s = &mut self.series;
        let groups = Table {
            columns: vec![
                ("t_s".into(), Column::F64(std::mem::take(&mut s.bin_t))),
                (
                    "group".into(),
                    Column::Str(std::mem::take(&mut s.bin_group)),
                ),
                (
                    "goodput_mbps".into(),
                    Column::F64(std::mem::take(&mut s.bin_goodput)),
                ),
            ],
        };
        let queue = self.queue_table();
        Recorded {
            summary,
            flows,
            queue,
            groups,
            links,
            transfers,
        }
    }
}

impl Summary {
    /// The summary of a finished run.
    pub(crate) fn build(world: &World, rec: &Recorder) -> Summary {
        let f = &rec.scenario.file;
        let b = world.bottleneck();
        let snap = &rec.snapshot;
        let s0 = &snap.bottleneck;
        let w = world.window_secs();
        let goodputs = rec.goodputs_mbps(world);
        let now = LinkMark::of_bottleneck(world);
        let opened = LinkMark::new(
            s0,
            snap.bottleneck_served_bits,
            snap.bottleneck_lost,
            snap.bottleneck_present,
        );
        let span = (world.warmup.as_secs_f64(), world.end.as_secs_f64());
        let main = window_summary(&opened, &now, b.rate_bps, span, w);
        let windows = f
            .windows
            .iter()
            .map(|&(a, e)| {
                let at = |t: crate::time::SimDuration| {
                    let t = crate::time::SimTime::ZERO + t;
                    rec.marks
                        .iter()
                        .find(|(m, _)| *m == t)
                        .map_or(&now, |(_, m)| m)
                };
                let span = (a.as_secs_f64(), e.as_secs_f64());
                window_summary(at(a), at(e), b.rate_bps, span, (e - a).as_secs_f64())
            })
            .collect();
        let warmup_s = world.warmup.as_secs_f64();
        let in_window: Vec<f64> = rec
            .series
            .t
            .iter()
            .zip(&rec.series.qlen_pkts)
            .filter(|(t, _)| **t >= warmup_s)
            .map(|(_, q)| *q)
            .collect();
        let (q_mean, q_std) = mean_std(&in_window);
        let h = rec.delays(world);
        let (g_min, g_max) = goodputs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &g| {
                (lo.min(g), hi.max(g))
            });
        let declared = rec.net.declared > 0;
        Summary {
            scenario: f.name.clone(),
            seed: f.seed,
            qdisc: rec.scenario.qdisc.kind().to_string(),
            duration_s: f.duration.as_secs_f64(),
            warmup_s: f.warmup.as_secs_f64(),
            window_s: w,
            utilisation: main.utilisation,
            loss_rate: main.loss_rate,
            drops: main.drops,
            marks: main.marks,
            arrivals: main.arrivals,
            departures: main.departures,
            jain_index: jain_index(&goodputs),
            goodput_mbps: Goodput {
                min: if goodputs.is_empty() { 0.0 } else { g_min },
                max: g_max,
                mean: goodputs.iter().sum::<f64>() / goodputs.len().max(1) as f64,
            },
            queue_pkts: QueueStats {
                mean: q_mean,
                std: q_std,
                samples: in_window.len(),
            },
            delay_ms: DelayStats {
                mean: h.mean_ms(),
                p50: h.quantile_ms(0.5),
                p90: h.quantile_ms(0.9),
                p99: h.quantile_ms(0.99),
            },
            groups: group_summaries(world, rec, &goodputs),
            flows: flow_summaries(world, rec, &goodputs),
            measured_link: declared.then(|| role_name(&b.role)),
            links: declared.then(|| link_summaries(world, rec)),
            windows,
        }
    }

    /// The summary as a JSON value (maps with sorted keys).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a summary holds only strings, numbers and maps")
    }
}

fn group_summaries(
    world: &World,
    rec: &Recorder,
    goodputs: &[f64],
) -> BTreeMap<String, GroupSummary> {
    let n = world.flows.len();
    rec.net
        .group_names
        .iter()
        .enumerate()
        .map(|(gi, name)| {
            let members: Vec<usize> = (0..n).filter(|&i| rec.net.flows[i].group == gi).collect();
            let gp: Vec<f64> = members.iter().map(|&i| goodputs[i]).collect();
            let (drops, marks) = members.iter().fold((0, 0), |(d, m), &i| {
                let (di, mi) = rec.flow_drops_marks(world, i);
                (d + di, m + mi)
            });
            let transfers = rec.window_transfers(world, gi);
            let transfers = (!transfers.is_empty()).then(|| {
                let (mean, std) = mean_std(&transfers);
                TransferStats {
                    count: transfers.len(),
                    mean_s: mean,
                    variance_s2: std * std,
                }
            });
            let entry = GroupSummary {
                flows: members.len(),
                goodput_mbps: gp.iter().sum::<f64>(),
                mean_goodput_mbps: gp.iter().sum::<f64>() / gp.len().max(1) as f64,
                jain_index: jain_index(&gp),
                drops,
                marks,
                transfers,
            };
            (name.clone(), entry)
        })
        .collect()
}

fn flow_summaries(world: &World, rec: &Recorder, goodputs: &[f64]) -> Vec<FlowSummary> {
    let snap = &rec.snapshot;
    (0..world.flows.len())
        .map(|i| {
            let (drops, marks) = rec.flow_drops_marks(world, i);
            let delay = flow_delay(world, rec, i);
            let st = world.flows[i].source.tcp_stats();
            let spec = &rec.net.flows[i];
            FlowSummary {
                id: i,
                group: rec.net.group_names[spec.group].clone(),
                rtt_ms: spec.info.base_rtt.as_millis_f64(),
                goodput_mbps: goodputs[i],
                drops,
                marks,
                retransmits: st.retransmits - snap.retransmits.get(i).copied().unwrap_or(0),
                timeouts: st.timeouts - snap.timeouts.get(i).copied().unwrap_or(0),
                delay_ms: FlowDelay {
                    mean: finite(delay.mean_ms),
                    p99: finite(delay.p99_ms),
                },
                jitter_ms: finite(delay.jitter_ms),
                loss_rate: finite(rec.flow_loss_rate(world, i)),
            }
        })
        .collect()
}

/// One entry per direction of each `[[topology.links]]` entry, over the measurement window.
fn link_summaries(world: &World, rec: &Recorder) -> Vec<LinkSummary> {
    let w = world.window_secs();
    world.links[..rec.net.declared]
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let zero = LinkSnapshot::default();
            let s0 = rec.snapshot.declared.get(i).unwrap_or(&zero);
            let st = l.stats(world.now, &world.pipes);
            let arrivals = st.arrivals - s0.stats.arrivals;
            let drops = st.drops() - s0.stats.drops();
            let lost = l.lost_on_wire - s0.lost;
            let area = rec.queue_area(world, i as LinkId) - s0.queue_area;
            LinkSummary {
                link: role_name(&l.role),
                qdisc: rec.net.topology.links[i].qdisc.kind().to_string(),
                rate_bps: l.rate_bps,
                utilisation: (l.served_bits(world.now, &world.pipes) - s0.served_bits) as f64
                    / (l.rate_bps as f64 * w),
                arrivals,
                departures: st.dequeued - s0.stats.dequeued,
                drops,
                marks: st.marks() - s0.stats.marks(),
                link_loss: lost,
                loss_rate: loss_rate(drops + lost, arrivals + s0.present),
                queue_pkts_mean: area as f64 / (world.end - world.warmup).0 as f64,
            }
        })
        .collect()
}

/// Which way a metric is better, for readers and for highlighting in tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
    /// Neither: context (e.g. ECN marks, a spread of goodputs).
    Neither,
}

/// Where a metric's key points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A path into the summary's top level (`delay_ms.p99`).
    Run,
    /// A key of each entry of the summary's `links` (a `[topology]` scenario).
    Link,
}

/// One metric of the summary, described once for every table, report and plot.
#[derive(Copy, Clone, Debug, Serialize)]
pub struct Metric {
    /// Dotted path into the summary (or into a `links` entry, for [`Scope::Link`]).
    pub key: &'static str,
    pub scope: Scope,
    /// What it measures, without the statistic: entries sharing a key prefix (`delay_ms.*`)
    /// share the label and are shown on one line (`queueing delay (ms): mean / p50 / p99`).
    pub label: &'static str,
    /// A column header for narrow tables.
    pub short: &'static str,
    /// Unit as printed (empty for a plain number or a fraction).
    pub unit: &'static str,
    pub description: &'static str,
    pub better: Better,
    /// Shown in every run's report and in comparison tables.
    pub headline: bool,
    /// Plotted in comparisons and sweep reports.
    pub plot: bool,
    /// Python format spec for display (`.2%`, `.4f`; empty: general).
    pub format: &'static str,
}

const fn run(key: &'static str, label: &'static str, short: &'static str) -> Metric {
    Metric {
        key,
        scope: Scope::Run,
        label,
        short,
        unit: "",
        description: "",
        better: Better::Neither,
        headline: true,
        plot: false,
        format: "",
    }
}

impl Metric {
    const fn unit(mut self, unit: &'static str) -> Metric {
        self.unit = unit;
        self
    }
    const fn about(mut self, description: &'static str) -> Metric {
        self.description = description;
        self
    }
    const fn better(mut self, better: Better) -> Metric {
        self.better = better;
        self
    }
    const fn plotted(mut self) -> Metric {
        self.plot = true;
        self
    }
    const fn detail(mut self) -> Metric {
        self.headline = false;
        self
    }
    const fn format(mut self, format: &'static str) -> Metric {
        self.format = format;
        self
    }
    const fn link(mut self) -> Metric {
        self.scope = Scope::Link;
        self
    }
}

/// The registry, in display order. Every `Run` key is a path into every [`Summary`]; every
/// `Link` key is a field of [`LinkSummary`] (tests hold both).
pub const METRICS: &[Metric] = &[
    run("utilisation", "utilisation", "util")
        .about("Fraction of the measured link's capacity used in the window.")
        .better(Better::Higher)
        .plotted()
        .format(".2%"),
    run("loss_rate", "loss rate", "loss")
        .about("Drops and wire losses at the measured link in the window over the packets there in it (its arrivals and those queued when it opened).")
        .better(Better::Lower)
        .plotted()
        .format(".3%"),
    run("drops", "drops", "drops")
        .unit("packets")
        .about("Drops at the measured link in the window, by reason (tables show the total).")
        .better(Better::Lower),
    run("marks", "ECN marks", "marks")
        .unit("packets")
        .about("Packets ECN-marked at the measured link in the window."),
    run("jain_index", "Jain index", "jain")
        .about(
            "Jain's fairness index of the flows' goodputs: 1 equal shares, 1/n one flow takes all.",
        )
        .better(Better::Higher)
        .plotted()
        .format(".4f"),
    run("goodput_mbps.min", "goodput", "gp min")
        .unit("Mbps")
        .about("Goodput of the slowest flow in the window.")
        .better(Better::Higher),
    run("goodput_mbps.mean", "goodput", "gp mean")
        .unit("Mbps")
        .about("Mean goodput per flow in the window.")
        .better(Better::Higher),
    run("goodput_mbps.max", "goodput", "gp max")
        .unit("Mbps")
        .about("Goodput of the fastest flow in the window."),
    run("queue_pkts.mean", "queue", "queue")
        .unit("packets")
        .about("Mean of the measured queue's length, sampled every sample_interval in the window.")
        .better(Better::Lower)
        .plotted(),
    run("queue_pkts.std", "queue", "queue std")
        .unit("packets")
        .about("Standard deviation of the sampled queue length in the window.")
        .better(Better::Lower),
    run("delay_ms.mean", "queueing delay", "delay")
        .unit("ms")
        .about("Mean time packets leaving the measured link in the window spent queued.")
        .better(Better::Lower)
        .plotted(),
    run("delay_ms.p50", "queueing delay", "delay p50")
        .unit("ms")
        .about("Median queueing delay of packets leaving the measured link in the window.")
        .better(Better::Lower),
    run("delay_ms.p90", "queueing delay", "delay p90")
        .unit("ms")
        .about("90th percentile of the queueing delay in the window.")
        .better(Better::Lower),
    run("delay_ms.p99", "queueing delay", "delay p99")
        .unit("ms")
        .about("99th percentile of the queueing delay in the window.")
        .better(Better::Lower),
    run("arrivals", "arrivals", "arrivals")
        .unit("packets")
        .about("Packets offered to the measured link in the window.")
        .detail(),
    run("departures", "departures", "departures")
        .unit("packets")
        .about("Packets the measured link's qdisc released in the window.")
        .detail(),
    run("utilisation", "utilisation", "util")
        .link()
        .about("Fraction of this link's capacity used in the window.")
        .better(Better::Higher)
        .format(".2%"),
    run("arrivals", "arrivals", "arrivals")
        .link()
        .unit("packets")
        .about("Packets offered to this link in the window."),
    run("drops", "drops", "drops")
        .link()
        .unit("packets")
        .about("Packets this link's qdisc dropped in the window.")
        .better(Better::Lower),
    run("marks", "ECN marks", "marks")
        .link()
        .unit("packets")
        .about("Packets this link's qdisc ECN-marked in the window."),
    run("loss_rate", "loss rate", "loss")
        .link()
        .about("Drops and wire losses at this link in the window over its arrivals and the packets queued when it opened.")
        .better(Better::Lower)
        .format(".3%"),
    run("queue_pkts_mean", "queue", "queue")
        .link()
        .unit("packets")
        .about("Time-average queue length of this link in the window (exact integral).")
        .better(Better::Lower),
];

/// The summary's value at a dotted `key` (`delay_ms.p99`), if present.
pub fn lookup<'v>(value: &'v serde_json::Value, key: &str) -> Option<&'v serde_json::Value> {
    key.split('.').try_fold(value, |v, part| v.get(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_keys_are_unique_per_scope() {
        for (i, a) in METRICS.iter().enumerate() {
            assert!(!a.description.is_empty(), "{} has no description", a.key);
            for b in &METRICS[i + 1..] {
                assert!(a.key != b.key || a.scope != b.scope, "{} twice", a.key);
            }
        }
    }
}
