//! Active queue management algorithms behind one interface.
//!
//! An algorithm *decides*; the qdisc glue ([`crate::qdisc`]) *acts*. Each algorithm lives in one
//! file with three parts, as Linux splits `red_parms` / `red_vars` / `red_stats`:
//! - `Params`: the configuration, deserialised from a scenario's `qdisc = { kind = "…", … }` table
//!   with the paper's defaults, validated once by [`AlgorithmParams::validate`];
//! - the state (a struct implementing [`Aqm`], or a whole [`Qdisc`] for multi-queue schedulers);
//! - unit tests of its control law against the paper's equations.
//!
//! Adding an algorithm = one file, one line in the `algorithms!` registry at the bottom, its
//! tests (steps: `docs/architecture.md`, "Adding an algorithm"). Its parameters are documented
//! by the doc comments on its `Params` fields, and nowhere else.

use schemars::{JsonSchema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{from_serde, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::{BufferLimit, Qdisc};
use crate::rng::SimRng;
use crate::schema::{self, KeyDoc};
use crate::time::{SimDuration, SimTime};

pub(crate) mod red_core;

/// Why a packet was dropped or marked. `Display` gives ns-3-style strings; `key()` the stable
/// snake_case name used in results (`drops = { early = 12, overflow = 3 }`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The buffer was full.
    Overflow = 0,
    /// Probabilistic (unforced) decision: RED's early drop, BLUE/GREEN/REM/PIE probability.
    Early = 1,
    /// Forced: RED's average above `max_th` (or `2·max_th` when gentle).
    Forced = 2,
    /// Policy: a flow singled out as unresponsive or over its share (SFRED, FRED, SFB, CSFQ).
    Policy = 3,
    /// Sojourn-time control on dequeue (CoDel "target exceeded").
    Sojourn = 4,
    /// Mark only: sojourn time above CoDel's CE threshold (ns-3 "CE threshold exceeded mark").
    CeThreshold = 5,
}

impl Reason {
    pub const COUNT: usize = 6;
    pub const ALL: [Reason; Reason::COUNT] = [
        Reason::Overflow,
        Reason::Early,
        Reason::Forced,
        Reason::Policy,
        Reason::Sojourn,
        Reason::CeThreshold,
    ];

    /// Whether this reason can drop a packet (false: it only ever marks, and summaries leave it out
    /// of their drop maps).
    pub fn can_drop(self) -> bool {
        !matches!(self, Reason::CeThreshold)
    }

    pub fn key(self) -> &'static str {
        match self {
            Reason::Overflow => "overflow",
            Reason::Early => "early",
            Reason::Forced => "forced",
            Reason::Policy => "policy",
            Reason::Sojourn => "sojourn",
            Reason::CeThreshold => "ce_threshold",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reason::Overflow => "Queue overflow",
            Reason::Early => "Unforced drop",
            Reason::Forced => "Forced drop",
            Reason::Policy => "Policy drop",
            Reason::Sojourn => "Target exceeded drop",
            Reason::CeThreshold => "CE threshold exceeded mark",
        })
    }
}

/// An algorithm's decision about one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Congestion signal: the glue marks the packet if it is ECN-capable and the qdisc has ECN
    /// enabled, and drops it otherwise.
    Signal(Reason),
    /// Drop regardless of ECN.
    Drop(Reason),
}

/// What an algorithm may see of its queue (the state *before* the arriving packet is added, or
/// *after* the departing packet was removed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub len_pkts: usize,
    pub len_bytes: u64,
    pub limit: BufferLimit,
    pub link_rate_bps: u64,
}

/// The decision-making part of a single-queue qdisc.
pub trait Aqm {
    /// Called for each arriving packet before it is queued.
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut SimRng,
    ) -> Verdict;
    /// The packet passed `on_enqueue` and the buffer has room: the one chance to rewrite header
    /// labels that routers further along the path read (CSFQ's relabelling). Called just before
    /// `on_enqueued`.
    fn relabel(&mut self, _pkt: &mut Packet) {}
    /// The packet passed `on_enqueue` (possibly marked) and is now in the queue.
    fn on_enqueued(&mut self, _now: SimTime, _pkt: &Packet) {}
    /// The packet passed `on_enqueue` but the buffer was full, so the glue dropped it.
    fn on_overflow(&mut self, _now: SimTime, _pkt: &Packet, _q: &QueueView) {}
    /// Called for each packet leaving the head of the queue (already removed: `q` excludes it).
    /// A `Drop` or unmarkable `Signal` drops it and the glue asks again with the next packet.
    fn on_dequeue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        Verdict::Pass
    }
    /// The link asked for a packet and the queue was empty: an idle period starts now.
    fn on_empty(&mut self, _now: SimTime) {}
    /// The next instant for `on_timer` (periodic control laws), if any.
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    fn on_timer(&mut self, _now: SimTime, _q: &QueueView) {}
    /// Internal variables for traces, e.g. `out("avg", self.avg)`.
    fn probe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// Test hook, reached only through `replay`'s `Set` event: overwrite the internal variable
    /// `name` with `value`, as ns-3's test suites write a queue disc's private members between
    /// calls. Returns false when the algorithm lets no script set `name`.
    fn set_state(&mut self, _name: &str, _value: f64) -> bool {
        false
    }
}

/// Per-flow facts a qdisc may need at build time (the GREEN-IDMaps RTT service, ideal RTTs).
#[derive(Clone, Debug, Default)]
pub struct FlowInfo {
    /// Base (propagation) round-trip time of the flow.
    pub base_rtt: SimDuration,
    /// What an IDMaps-like RTT estimation service answers for this flow: base RTT times a
    /// per-flow factor drawn uniformly in [0.5, 2] at scenario expansion.
    pub idmaps_rtt: SimDuration,
    /// Data packet size of the flow, bytes.
    pub packet_bytes: u32,
}

/// Everything an algorithm needs to build its qdisc for one link.
#[derive(Clone, Debug)]
pub struct BuildContext<'a> {
    pub limit: BufferLimit,
    pub link_rate_bps: u64,
    /// Typical data packet size on this link (bytes), for byte/packet conversions.
    pub mean_pkt_bytes: u32,
    /// Indexed by `FlowId`.
    pub flows: &'a [FlowInfo],
    /// Scenario seed (for algorithms that salt hashes, e.g. SFB).
    pub seed: u64,
}

impl BuildContext<'_> {
    /// The usual qdisc: one FIFO buffer of this link's limit, driven by `aqm`; `ecn` lets the
    /// algorithm's `Signal` verdicts mark ECN-capable packets instead of dropping them.
    pub fn single_queue(&self, ecn: bool, aqm: impl Aqm + 'static) -> Box<dyn Qdisc> {
        Box::new(crate::qdisc::SingleQueue::new(
            self.limit,
            ecn,
            self.link_rate_bps,
            Box::new(aqm),
        ))
    }
}

/// What each algorithm's `Params` provides. The parameters themselves are documented once, by
/// the doc comments on the `Params` fields: [`crate::schema`] turns them (with the defaults of
/// `Default`) into `aqmlab algorithms`, the reference in `docs/scenarios.md` and the JSON Schema.
pub trait AlgorithmParams:
    Sized + Default + Serialize + DeserializeOwned + JsonSchema + Clone + std::fmt::Debug
{
    /// The scenario `kind`.
    const KIND: &'static str;
    /// One line: the algorithm's name.
    const NAME: &'static str;
    /// Where it comes from: paper file in `papers/` with equations, or RFC / article.
    const SOURCE: &'static str;
    /// Checks ranges and relations; errors name the key (without the `bottleneck.qdisc` prefix).
    fn validate(&self) -> Result<(), ScenarioError>;
    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc>;
}

/// Documentation of one algorithm, for listings.
pub struct AlgorithmDoc {
    pub kind: &'static str,
    pub name: &'static str,
    pub source: &'static str,
    /// Every parameter, in the order `Params` declares them.
    pub keys: Vec<KeyDoc>,
    /// (key, default rendered as TOML or `(none)`, help): what `aqmlab algorithms` prints.
    pub params: Vec<(String, String, String)>,
}

fn doc_of<P: AlgorithmParams>() -> AlgorithmDoc {
    let keys = schema::keys_of::<P>();
    let params = keys
        .iter()
        .map(|k| {
            let default = k.default.clone().unwrap_or_else(|| "(none)".into());
            (k.key.clone(), default, k.help.clone())
        })
        .collect();
    AlgorithmDoc {
        kind: P::KIND,
        name: P::NAME,
        source: P::SOURCE,
        keys,
        params,
    }
}

fn parse_params<P: AlgorithmParams>(table: toml::Table) -> Result<P, ScenarioError> {
    let raw = toml::Value::Table(table);
    let params: P = serde_path_to_error::deserialize(raw.clone()).map_err(from_serde)?;
    params.validate()?;
    // A nested parameter table given as an array (see scenario/shape.rs).
    if let Ok(resolved) = toml::Value::try_from(&params) {
        crate::scenario::shape::reject_positional(&raw, &resolved, "")?;
    }
    Ok(params)
}

/// The registry: each line names an algorithm's `AqmConfig` variant and its file in this
/// folder, which the macro declares as a module (`pub mod <file>;`).
macro_rules! algorithms {
    ($($variant:ident($module:ident)),* $(,)?) => {
        $(pub mod $module;)*

        /// A validated qdisc configuration: `kind` plus that algorithm's parameters.
        #[derive(Clone, Debug)]
        pub enum AqmConfig {
            $($variant($module::Params),)*
        }

        impl AqmConfig {
            /// Every `kind` a scenario may name.
            pub const KINDS: &'static [&'static str] = &[$(<$module::Params as AlgorithmParams>::KIND,)*];

            /// Parses a `{ kind = "…", … }` table. Errors carry paths relative to the table.
            pub fn from_table(mut table: toml::Table) -> Result<AqmConfig, ScenarioError> {
                let kind = match table.remove("kind") {
                    Some(toml::Value::String(k)) => k,
                    Some(other) => return Err(ScenarioError::new("kind", other.to_string(),
                        format!("a string, one of: {}", Self::KINDS.join(", ")))),
                    None => return Err(ScenarioError::new("kind", "missing",
                        format!("one of: {}", Self::KINDS.join(", ")))),
                };
                $(if kind == <$module::Params as AlgorithmParams>::KIND {
                    return parse_params::<$module::Params>(table).map(AqmConfig::$variant);
                })*
                Err(ScenarioError::new("kind", format!("\"{kind}\""), format!("one of: {}", Self::KINDS.join(", "))))
            }

            pub fn kind(&self) -> &'static str {
                match self { $(AqmConfig::$variant(_) => <$module::Params as AlgorithmParams>::KIND,)* }
            }

            pub fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
                match self { $(AqmConfig::$variant(p) => p.build(ctx),)* }
            }

            /// The parameters as a TOML table (with `kind`), defaults filled in.
            pub fn to_table(&self) -> toml::Table {
                let mut t = match self {
                    $(AqmConfig::$variant(p) => toml::Table::try_from(p).unwrap_or_default(),)*
                };
                t.insert("kind".into(), toml::Value::String(self.kind().into()));
                t
            }

            /// Documentation of every algorithm, in registry order.
            pub fn docs() -> Vec<AlgorithmDoc> {
                vec![$(doc_of::<$module::Params>(),)*]
            }

            /// The JSON Schema of each kind's table, in registry order (see [`schema::qdisc`]).
            pub fn kind_schemas(gen: &mut SchemaGenerator) -> Vec<serde_json::Value> {
                vec![$({
                    type P = $module::Params;
                    schema::kind_schema::<P>(gen, P::KIND, P::NAME, P::SOURCE)
                },)*]
            }
        }
    };
}

algorithms! {
    DropTail(droptail),
    Red(red),
    Nlred(nlred),
    SelfConfigRed(self_config_red),
    Ared(ared),
    Chablis(chablis),
    Sfred(sfred),
    Fred(fred),
    Csfq(csfq),
    Choke(choke),
    GreenTcp(green_tcp),
    GreenRate(green_rate),
    Blue(blue),
    Sfb(sfb),
    Rem(rem),
    CoDel(codel),
    Pie(pie),
    FqCoDel(fq_codel),
    Drr(drr),
    Pi(pi),
    Avq(avq),
    DualPi2(dualpi2),
}
