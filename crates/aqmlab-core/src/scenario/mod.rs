//! The scenario schema (TOML), owned here and only here: Python hands the text over and never
//! re-implements validation, so the CLI and the library cannot disagree.
//!
//! ```toml
//! name = "30 flows, RTT 20-310 ms, RED"
//! seed = 1
//! duration = "150s"
//! warmup = "30s"                 # metrics are measured over [warmup, duration]
//!
//! [bottleneck]
//! rate = "10Mbps"
//! delay = "5ms"
//! buffer = 100                   # packets, or a size string such as "150KB"
//! loss = 0.0                     # random (Bernoulli) loss on this link
//! qdisc = { kind = "red", min_th = 20, max_th = 80, max_p = 0.1, w_q = 0.002, ecn = true }
//!
//! [sink]                         # optional; defaults 1 Gbps, 0 ms
//!
//! [[flows]]
//! kind = "tcp"
//! count = 30
//! access_rate = "100Mbps"
//! access_delay = { linear = ["5ms", "150ms"] }
//! start = { uniform = ["0s", "1s"] }
//! tcp = { variant = "reno", mss = 1000, ecn = true, rtt_label = "min" }
//! group = "ftp"
//! ```
//!
//! Instead of `[bottleneck]`, a scenario may give a general graph (`[topology]`: named nodes,
//! two-way links with a qdisc per direction, flow groups with `src`/`dst`/`path`); see
//! [`topology`].
//!
//! Every error names the key path (`flows.0.access_delay`), the bad value and what is allowed.

pub mod build;
pub mod expand;
pub mod model_id;
pub mod run;

/// Most flows a scenario may have in all: each costs about 10 KB of memory (its sender,
/// receiver, hosts and links), so the largest scenario stays near 1 GiB (docs/robustness.md,
/// "Memory bounds").
pub const MAX_FLOWS: u64 = 100_000;
/// Most segments all flows may send in their first window together (`count x initial_window`
/// summed over groups): each is a packet in memory until a queue takes or drops it.
pub const MAX_INITIAL_BURST: u64 = 10_000_000;
pub mod spread;
pub mod topology;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::aqm::AqmConfig;
use crate::error::{check, from_serde, join_path, ScenarioError};
use crate::qdisc::BufferLimit;
use crate::time::{Rate, SimDuration};
use crate::transport::tcp::TcpConfig;
use crate::transport::udp::{CbrConfig, ParetoConfig};
pub use spread::Spread;

fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> SimDuration {
    SimDuration::from_millis(20)
}
fn default_series_bin() -> SimDuration {
    SimDuration::from_millis(250)
}
fn default_count() -> u32 {
    1
}
fn default_access_rate() -> Rate {
    Rate(100_000_000)
}
fn default_access_buffer() -> Buffer {
    Buffer::Packets(1000)
}
fn default_access_delay() -> Spread<SimDuration> {
    Spread::Fixed(SimDuration::from_millis(1))
}
fn default_start() -> Spread<SimDuration> {
    Spread::Fixed(SimDuration::ZERO)
}
pub(crate) fn default_buffer() -> Buffer {
    Buffer::Packets(100)
}
pub(crate) fn default_qdisc() -> toml::Table {
    let mut t = toml::Table::new();
    t.insert("kind".into(), toml::Value::String("droptail".into()));
    t
}

/// A buffer size: an integer number of packets, or a size string ("150KB").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    Packets(i64),
    Bytes(u64),
}

impl<'de> Deserialize<'de> for Buffer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Buffer;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of packets (integer) or a size string such as \"150KB\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Buffer, E> {
                Ok(Buffer::Packets(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Buffer, E> {
                Ok(Buffer::Packets(v.min(i64::MAX as u64) as i64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Buffer, E> {
                crate::time::parse_size(v)
                    .map(Buffer::Bytes)
                    .map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Buffer {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Buffer".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "title": "packets or size",
            "anyOf": [
                { "type": "integer", "minimum": 1 },
                { "type": "string", "pattern": crate::time::size_pattern(), "examples": ["150KB"] },
            ],
        })
    }
}

impl Serialize for Buffer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Buffer::Packets(n) => s.serialize_i64(*n),
            Buffer::Bytes(b) => s.serialize_str(&format!("{b}B")),
        }
    }
}

impl Buffer {
    pub fn limit(self) -> BufferLimit {
        match self {
            Buffer::Packets(n) => BufferLimit::Packets(n.clamp(0, u32::MAX as i64) as u32),
            Buffer::Bytes(b) => BufferLimit::Bytes(b),
        }
    }
}

/// The dumbbell's shared link (router → sink side). The reverse direction (ACKs) has the same
/// rate and delay and a DropTail queue of the same size.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bottleneck {
    /// Link rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Packets (integer ≥ 1), or bytes as a size string (`"150KB"`).
    #[serde(default = "default_buffer")]
    pub buffer: Buffer,
    /// Probability that a packet is lost on this link (Bernoulli, independent), in [0, 1); e.g. to
    /// check TCP against loss models.
    #[serde(default)]
    pub loss: f64,
    /// The queue discipline: `kind` plus that algorithm's parameters (see Queue disciplines).
    #[schemars(schema_with = "crate::aqm::qdisc_schema")]
    #[serde(default = "default_qdisc")]
    pub qdisc: toml::Table,
}

/// The links from the far router to the receivers.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sink {
    /// Rate of each receiver link.
    #[serde(default = "Sink::default_rate")]
    pub rate: Rate,
    /// Its one-way delay.
    #[serde(default)]
    pub delay: SimDuration,
}

impl Sink {
    fn default_rate() -> Rate {
        Rate(1_000_000_000)
    }
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            rate: Sink::default_rate(),
            delay: SimDuration::ZERO,
        }
    }
}

/// What a flow group sends (see `traffic` for each kind's behaviour).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// Bulk (FTP-like) or finite (`packets`) TCP transfers.
    #[default]
    Tcp,
    /// Web-like TCP: repeated fetches of `web.segments` segments, each from slow start.
    Web,
    /// Constant-bit-rate UDP (`cbr = { rate, packet_bytes }`).
    UdpCbr,
    /// Pareto on/off UDP (`pareto = { rate, packet_bytes, burst_time, idle_time, shape }`).
    ParetoOnoff,
}

/// The `web = { … }` table of a `kind = "web"` group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// Segments per fetch (paper 003's D_w).
    pub segments: u64,
    /// Pause between the end of one fetch and the next (0: fetch again at once, as paper 003).
    pub think_time: SimDuration,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            segments: 10,
            think_time: SimDuration::ZERO,
        }
    }
}

/// One group of flows (`[[flows]]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    /// What the group sends: `tcp` (bulk or finite TCP), `web` (repeated fetches), `udp_cbr`,
    /// `pareto_onoff`.
    #[serde(default)]
    pub kind: FlowKind,
    /// Flows in the group, at least 1.
    #[schemars(range(min = 1))]
    #[serde(default = "default_count")]
    pub count: u32,
    /// Name used in per-group metrics; empty (the default): `g<index>`.
    #[serde(default)]
    pub group: String,
    /// Source hosts the flows are spread over round robin, each with its own access link; 0 = one
    /// host per flow.
    #[serde(default)]
    pub hosts: u32,
    /// Rate of each source host's access link.
    #[serde(default = "default_access_rate")]
    pub access_rate: Rate,
    /// DropTail buffer of each access link (both directions), packets or a size string; matters
    /// only where the access link is narrower than what its flows send (56 kbps hosts, many flows
    /// per host).
    #[serde(default = "default_access_buffer")]
    pub access_buffer: Buffer,
    /// One-way delay of each access link (one value per host).
    #[serde(default = "default_access_delay")]
    pub access_delay: Spread<SimDuration>,
    /// Start time of each flow.
    #[serde(default = "default_start")]
    pub start: Spread<SimDuration>,
    /// Each flow stops sending new data this long after its start (sessions); default: it sends to
    /// the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Spread<SimDuration>>,
    /// Explicit activity intervals `[[on, off], …]` (absolute times), e.g. `[["0s", "40s"], ["80s",
    /// "120s"]]`; the first begins at the later of its `on` and the flow's `start`. Leaving an
    /// interval stops new data (TCP still retransmits what is outstanding); entering the next
    /// resumes, TCP from slow start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<[SimDuration; 2]>,
    /// `tcp` only: finite transfer size in segments; 0 = unlimited (FTP-like bulk).
    #[serde(default)]
    pub packets: u64,
    /// TCP configuration (kinds `tcp` and `web`).
    #[serde(default)]
    pub tcp: TcpConfig,
    /// `web` only: fetch `segments` segments, then (after `think_time`) reset to slow start and
    /// fetch again; each fetch's transfer delay is recorded (paper 003's web-like flows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<WebConfig>,
    /// `udp_cbr` only: constant bit rate, unresponsive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cbr: Option<CbrConfig>,
    /// `pareto_onoff` only: ns-2's Pareto on/off source (exponent `shape`, mean burst and idle
    /// times, rate while on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pareto: Option<ParetoConfig>,
    /// `[topology]` scenarios only (required there): the node the group's source hosts attach to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// `[topology]` scenarios only (required there): the node the group's receivers attach to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    /// `[topology]` scenarios only: the nodes the data cross, from `src` to `dst` (default: the
    /// least-delay route; ACKs then take the least-delay route back, else the same nodes
    /// backwards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<String>,
}

impl FlowGroup {
    /// Size of this group's data packets on the wire, bytes.
    pub fn packet_bytes(&self) -> u32 {
        match self.kind {
            FlowKind::Tcp | FlowKind::Web => self.tcp.mss,
            FlowKind::UdpCbr => self.cbr.clone().unwrap_or_default().packet_bytes,
            FlowKind::ParetoOnoff => self.pareto.clone().unwrap_or_default().packet_bytes,
        }
    }
}

/// A scenario file as written (defaults filled in), before validation.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Label shown in reports.
    #[serde(default)]
    pub name: String,
    /// Seed of every random stream; same scenario + seed = same results, bit for bit.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time.
    pub duration: SimDuration,
    /// Metrics are measured over `[warmup, duration]`; must be less than `duration`.
    #[serde(default)]
    pub warmup: SimDuration,
    /// Queue-length sampling period (`queue` table, `queue_pkts`; 20 ms as in paper 000); at most
    /// 10 million samples per run.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: SimDuration,
    /// Bin width of the per-group goodput time series (`groups` table; 250 ms as in paper 002); at
    /// most 10 million bins × groups.
    #[serde(default = "default_series_bin")]
    pub series_bin: SimDuration,
    /// The dumbbell form: its one shared link. Exactly one of `bottleneck` and `topology`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<Bottleneck>,
    /// The links from the far router (in a topology: each group's `dst`) to the receivers.
    #[serde(default)]
    pub sink: Sink,
    /// The general form: named nodes and two-way links. Exactly one of `bottleneck` and `topology`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<topology::Spec>,
    /// Flow groups (`[[flows]]`), at least one.
    pub flows: Vec<FlowGroup>,
    /// Per-flow TCP traces on demand (`trace = { flows = [0, 5] }`); off when empty.
    #[serde(default, skip_serializing_if = "TraceSpec::is_off")]
    pub trace: TraceSpec,
    /// Extra measurement windows `[[start, end], ...]` of the measured link, each summarised
    /// on its own (the summary's `windows`: utilisation, loss rate, drops, marks), so one run
    /// measures several phases; independent of `warmup`. Each within `[0, duration]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<(SimDuration, SimDuration)>,
}

/// `trace = { flows = [...], links = [...] }`: the flow ids whose TCP sender records a
/// per-event trace (`tcp_trace` table; flow ids count from 0 across the groups in order, as in
/// `flows`), and the links whose egress queue records every packet event (`packet_trace`
/// table: enqueue, drop, mark, dequeue; see `metrics::packet_trace`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSpec {
    /// Flow ids to trace, e.g. `[0, 5]`.
    pub flows: Vec<u32>,
    /// Links whose packets to log: `"bottleneck"` (the measured link) or a topology link as
    /// `"FROM->TO"` (either direction of a `[[topology.links]]` entry), e.g. `["R0->R1"]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// Most events each traced link records (then it counts the rest in the summary's
    /// `packet_trace.<link>.dropped_events`): about 30 bytes of memory each.
    #[serde(skip_serializing_if = "is_default_max_events")]
    pub max_events: u64,
}

/// Events per traced link unless `trace.max_events` says otherwise.
pub const DEFAULT_MAX_EVENTS: u64 = 1_000_000;

fn is_default_max_events(n: &u64) -> bool {
    *n == DEFAULT_MAX_EVENTS
}

impl Default for TraceSpec {
    fn default() -> TraceSpec {
        TraceSpec {
            flows: Vec::new(),
            links: Vec::new(),
            max_events: DEFAULT_MAX_EVENTS,
        }
    }
}

/// The most `trace.max_events` may be: 10⁸ events are about 3 GB of memory.
pub const MAX_TRACE_EVENTS: u64 = 100_000_000;

impl TraceSpec {
    pub fn is_off(&self) -> bool {
        self.flows.is_empty() && self.links.is_empty() && is_default_max_events(&self.max_events)
    }
}

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub file: ScenarioFile,
    /// The qdisc of the measured link: the dumbbell's bottleneck, or a topology's measured link.
    pub qdisc: AqmConfig,
    /// The validated `[topology]`, when the scenario uses the general form.
    pub topology: Option<topology::Resolved>,
}

/// The most rows a time series (queue samples, group goodput bins) may have in one run.
pub const MAX_SERIES_ROWS: u64 = 10_000_000;

/// The most `windows` a scenario may ask for (each is one snapshot at either edge).
pub const MAX_WINDOWS: usize = 10_000;

pub(crate) fn finite_in(v: f64, lo: f64, hi_exclusive: f64) -> bool {
    v.is_finite() && v >= lo && v < hi_exclusive
}

impl Scenario {
    /// Parses and validates TOML text.
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let value: toml::Table = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            ScenarioError::new(
                "",
                format!("TOML syntax error: {}", msg.trim()),
                "valid TOML",
            )
        })?;
        Scenario::from_table(value)
    }

    /// Validates an already parsed table.
    pub fn from_table(table: toml::Table) -> Result<Scenario, ScenarioError> {
        let raw = toml::Value::Table(table.clone());
        let scenario = Scenario::from_table_unchecked(table)?;
        if let Ok(resolved) = toml::Value::try_from(&scenario.file) {
            crate::shape::reject_positional(&raw, &resolved, "")?;
        }
        Ok(scenario)
    }

    fn from_table_unchecked(table: toml::Table) -> Result<Scenario, ScenarioError> {
        let file: ScenarioFile =
            serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(from_serde)?;
        file.validate()?;
        let mut file = file;
        if let Some(b) = &mut file.bottleneck {
            let qdisc = AqmConfig::from_table(b.qdisc.clone())
                .map_err(|e| e.prefixed("bottleneck.qdisc"))?;
            // Store the qdisc with every default filled in, so the resolved scenario is explicit.
            b.qdisc = qdisc.to_table();
            return Ok(Scenario {
                file,
                qdisc,
                topology: None,
            });
        }
        let Some(spec) = &mut file.topology else {
            unreachable!("validate() requires [bottleneck] or [topology]");
        };
        let resolved = spec.resolve(&file.flows)?;
        let qdisc = resolved.graph.links[resolved.measured as usize]
            .qdisc
            .clone();
        Ok(Scenario {
            file,
            qdisc,
            topology: Some(resolved),
        })
    }

    /// The scenario with every default written out, as TOML: what was actually run, and the key
    /// results are cached under.
    pub fn resolved_toml(&self) -> String {
        toml::to_string(&self.file).unwrap_or_default()
    }
}

impl ScenarioFile {
    /// `trace.links` names links that exist; `trace.max_events` is bounded.
    fn check_trace_links(&self) -> Result<(), ScenarioError> {
        let mut names = vec!["bottleneck".to_string()];
        if let Some(t) = &self.topology {
            for l in &t.links {
                names.push(format!("{}->{}", l.from, l.to));
                names.push(format!("{}->{}", l.to, l.from));
            }
        }
        for (k, name) in self.trace.links.iter().enumerate() {
            check(
                names.contains(name),
                &format!("trace.links.{k}"),
                format!("{name:?}"),
                &format!("one of {}", names.join(", ")),
            )?;
        }
        check(
            (1..=MAX_TRACE_EVENTS).contains(&self.trace.max_events),
            "trace.max_events",
            self.trace.max_events,
            &format!("an integer in [1, {MAX_TRACE_EVENTS}]"),
        )
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.duration.0 > 0,
            "duration",
            self.duration,
            "greater than 0",
        )?;
        check(
            self.warmup < self.duration,
            "warmup",
            self.warmup,
            "less than duration",
        )?;
        check(
            self.sample_interval.0 > 0,
            "sample_interval",
            self.sample_interval,
            "greater than 0",
        )?;
        check(
            self.series_bin.0 > 0,
            "series_bin",
            self.series_bin,
            "greater than 0",
        )?;
        // Time series are kept in memory: bound their length so a typo ("1ns") is an error, not
        // an allocation of billions of rows.
        let samples = self.duration.0 / self.sample_interval.0;
        check(
            samples <= MAX_SERIES_ROWS,
            "sample_interval",
            self.sample_interval,
            &format!(
                "at least duration / {MAX_SERIES_ROWS} (at most {MAX_SERIES_ROWS} queue samples)"
            ),
        )?;
        for (i, (a, b)) in self.windows.iter().enumerate() {
            check(
                a < b && *b <= self.duration,
                &format!("windows.{i}"),
                format!("[{a}, {b}]"),
                "[start, end] with start < end <= duration",
            )?;
        }
        check(
            self.windows.len() <= MAX_WINDOWS,
            "windows",
            self.windows.len(),
            &format!("at most {MAX_WINDOWS} windows"),
        )?;
        let rows = (self.duration.0 / self.series_bin.0).saturating_mul(self.flows.len() as u64);
        check(
            rows <= MAX_SERIES_ROWS,
            "series_bin",
            self.series_bin,
            &format!("long enough that bins x groups <= {MAX_SERIES_ROWS}"),
        )?;
        match (&self.bottleneck, &self.topology) {
            (None, None) => {
                return Err(ScenarioError::new(
                    "bottleneck",
                    "missing",
                    "a [bottleneck] table (dumbbell) or a [topology] table (general graph)",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    "topology",
                    "given with [bottleneck]",
                    "one of [bottleneck] (dumbbell) or [topology] (general graph)",
                ))
            }
            _ => {}
        }
        if let Some(b) = &self.bottleneck {
            match b.buffer {
                Buffer::Packets(n) => check(
                    (1..=10_000_000).contains(&n),
                    "bottleneck.buffer",
                    n,
                    "at least 1 packet",
                )?,
                Buffer::Bytes(n) => check(
                    n >= 64,
                    "bottleneck.buffer",
                    format!("{n}B"),
                    "at least 64 bytes",
                )?,
            }
            check(
                finite_in(b.loss, 0.0, 1.0),
                "bottleneck.loss",
                b.loss,
                "a probability in [0, 1)",
            )?;
        }
        let total: u64 = self.flows.iter().map(|g| g.count as u64).sum();
        for (k, &id) in self.trace.flows.iter().enumerate() {
            check(
                (id as u64) < total,
                &format!("trace.flows.{k}"),
                id,
                &format!("a flow id below {total} (ids count from 0 across the groups)"),
            )?;
        }
        self.check_trace_links()?;
        check(
            !self.flows.is_empty(),
            "flows",
            "[]",
            "at least one [[flows]] group",
        )?;
        let mut total = 0u64;
        for (i, g) in self.flows.iter().enumerate() {
            let at = |k: &str| join_path(&format!("flows.{i}"), k);
            let n = g.count as usize;
            check(g.count >= 1, &at("count"), g.count, "at least 1")?;
            total += g.count as u64;
            let hosts = if g.hosts == 0 { n } else { g.hosts as usize };
            match g.access_buffer {
                Buffer::Packets(p) => check(p >= 1, &at("access_buffer"), p, "at least 1 packet")?,
                Buffer::Bytes(b) => check(
                    b >= g.tcp.mss as u64,
                    &at("access_buffer"),
                    format!("{b}B"),
                    "at least one data packet (mss)",
                )?,
            }
            check(
                hosts <= n,
                &at("hosts"),
                g.hosts,
                "at most count (0 = one host per flow)",
            )?;
            g.access_delay
                .check(hosts)
                .map_err(|m| ScenarioError::new(at("access_delay"), m, "one value per host"))?;
            g.start
                .check(n)
                .map_err(|m| ScenarioError::new(at("start"), m, "one value per flow"))?;
            g.tcp.validate().map_err(|e| e.prefixed(&at("tcp")))?;
            let kind_name = toml::Value::try_from(g.kind)
                .map(|v| v.to_string())
                .unwrap_or_default();
            let wrong_kind = |key: &str, wants: &str| {
                ScenarioError::new(
                    at(key),
                    format!("given for kind = {kind_name}"),
                    format!("only with kind = \"{wants}\""),
                )
            };
            match (&g.web, g.kind) {
                (Some(w), FlowKind::Web) => check(
                    w.segments >= 1,
                    &at("web.segments"),
                    w.segments,
                    "at least 1",
                )?,
                (Some(_), _) => return Err(wrong_kind("web", "web")),
                _ => {}
            }
            match (&g.cbr, g.kind) {
                (Some(c), FlowKind::UdpCbr) => c.validate().map_err(|e| e.prefixed(&at("cbr")))?,
                (Some(_), _) => return Err(wrong_kind("cbr", "udp_cbr")),
                _ => {}
            }
            match (&g.pareto, g.kind) {
                (Some(p), FlowKind::ParetoOnoff) => {
                    p.validate().map_err(|e| e.prefixed(&at("pareto")))?
                }
                (Some(_), _) => return Err(wrong_kind("pareto", "pareto_onoff")),
                _ => {}
            }
            if g.packets > 0 && g.kind != FlowKind::Tcp {
                return Err(wrong_kind("packets", "tcp"));
            }
            if let Some(d) = &g.duration {
                d.check(n)
                    .map_err(|m| ScenarioError::new(at("duration"), m, "one value per flow"))?;
                check(
                    g.active.is_empty(),
                    &at("duration"),
                    "given with `active`",
                    "one of duration or active",
                )?;
            }
            let mut last_end = SimDuration::ZERO;
            for (k, [on, off]) in g.active.iter().enumerate() {
                let key = at(&format!("active.{k}"));
                check(
                    on < off,
                    &key,
                    format!("[{on}, {off}]"),
                    "[on, off] with on < off",
                )?;
                check(
                    k == 0 || *on >= last_end,
                    &key,
                    format!("[{on}, {off}]"),
                    "intervals in time order, not overlapping",
                )?;
                last_end = *off;
            }
            if let Some(b) = &self.bottleneck {
                if let Buffer::Bytes(bytes) = b.buffer {
                    check(
                        bytes >= g.tcp.mss as u64,
                        "bottleneck.buffer",
                        format!("{bytes}B"),
                        "at least one data packet (mss)",
                    )?;
                }
                for (key, given) in [
                    ("src", g.src.is_some()),
                    ("dst", g.dst.is_some()),
                    ("path", !g.path.is_empty()),
                ] {
                    check(
                        !given,
                        &at(key),
                        "given in a [bottleneck] scenario",
                        "only in a [topology] scenario (dumbbell flows cross the bottleneck)",
                    )?;
                }
            }
        }
        check(
            total <= MAX_FLOWS,
            "flows",
            total,
            &format!("at most {MAX_FLOWS} flows in all (about 10 KB of memory each)"),
        )?;
        let burst: u64 = self
            .flows
            .iter()
            .map(|g| g.count as u64 * g.tcp.initial_window as u64)
            .sum();
        check(
            burst <= MAX_INITIAL_BURST,
            "flows",
            format!("{burst} segments in the flows' initial windows (count x initial_window)"),
            &format!("at most {MAX_INITIAL_BURST} segments in all"),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
        duration = "10s"
        [bottleneck]
        rate = "10Mbps"
        delay = "5ms"
        [[flows]]
        count = 2
    "#;

    fn err(text: &str) -> ScenarioError {
        Scenario::from_toml_str(text).expect_err("should be rejected")
    }

    #[test]
    fn minimal_scenario_gets_defaults() {
        let s = Scenario::from_toml_str(OK).unwrap();
        assert_eq!(s.file.seed, 1);
        assert_eq!(s.qdisc.kind(), "droptail");
        assert_eq!(
            s.file.bottleneck.as_ref().map(|b| b.buffer),
            Some(Buffer::Packets(100))
        );
        // The resolved form parses back to the same thing.
        let again = Scenario::from_toml_str(&s.resolved_toml()).unwrap();
        assert_eq!(again.resolved_toml(), s.resolved_toml());
    }

    #[test]
    fn errors_name_the_key_path() {
        assert_eq!(
            err(&OK.replace("count = 2", "count = 2\ncolour = 1")).path,
            "flows.0.colour"
        );
        assert_eq!(
            err(&OK.replace("\"10Mbps\"", "\"-3Mbps\"")).path,
            "bottleneck.rate"
        );
        assert_eq!(
            err(&OK.replace("\"10Mbps\"", "\"10 furlongs\"")).path,
            "bottleneck.rate"
        );
        assert_eq!(
            err(&OK.replace("count = 2", "count = \"two\"")).path,
            "flows.0.count"
        );
        assert_eq!(
            err(&OK.replace("count = 2", "count = 0")).path,
            "flows.0.count"
        );
        assert_eq!(
            err(&OK.replace("delay = \"5ms\"", "delay = \"5ms\"\nloss = nan")).path,
            "bottleneck.loss"
        );
        assert_eq!(
            err(&OK.replace("delay = \"5ms\"", "delay = \"5ms\"\nbuffer = 0")).path,
            "bottleneck.buffer"
        );
        assert_eq!(
            err(&OK.replace(
                "delay = \"5ms\"",
                "delay = \"5ms\"\nqdisc = { kind = \"magic\" }"
            ))
            .path,
            "bottleneck.qdisc.kind"
        );
        assert_eq!(
            err(&OK.replace("count = 2", "count = 2\ntcp = { mss = 1 }")).path,
            "flows.0.tcp.mss"
        );
        let no_flows = OK.split("[[flows]]").next().unwrap().to_string();
        assert_eq!(err(&no_flows).path, "flows");
        assert_eq!(err(&OK.replace("duration = \"10s\"", "")).path, "duration");
        let tiny = OK.replace(
            "duration = \"10s\"",
            "duration = \"10s\"\nsample_interval = \"1ns\"",
        );
        assert_eq!(err(&tiny).path, "sample_interval");
        let tiny = OK.replace(
            "duration = \"10s\"",
            "duration = \"10s\"\nseries_bin = \"10ns\"",
        );
        assert_eq!(err(&tiny).path, "series_bin");
    }

    #[test]
    fn flows_and_initial_windows_are_bounded_for_memory() {
        let with = |count: u64, iw: u64| {
            Scenario::from_toml_str(&format!(
                "duration = \"1s\"\n[bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
                 [[flows]]\ncount = {count}\ntcp = {{ initial_window = {iw} }}\n"
            ))
        };
        assert!(with(MAX_FLOWS, 2).is_ok());
        let e = with(MAX_FLOWS + 1, 2).expect_err("too many flows");
        assert_eq!(e.path, "flows");
        assert!(with(1_000_000, 2).is_err());
        assert!(with(1, 65_535).is_ok());
        let e = with(1, 65_536).expect_err("window beyond 65535");
        assert_eq!(e.path, "flows.0.tcp.initial_window");
        let e = with(1, 100_000_000).expect_err("window of 10^8");
        assert_eq!(e.path, "flows.0.tcp.initial_window");
        // Together: 152 x 65535 = 9,961,320 segments is the largest burst under the bound.
        assert!(with(152, 65_535).is_ok());
        let e = with(153, 65_535).expect_err("burst beyond 10^7");
        assert!(e.value.contains("10026855 segments"), "{}", e.value);
    }
}
