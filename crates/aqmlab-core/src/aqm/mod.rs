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

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{from_serde, ScenarioError};
use crate::key_docs::{self, KeyDoc};
use crate::qdisc::{BufferLimit, Qdisc};
use crate::time::SimDuration;

pub use crate::qdisc::{Aqm, FifoArithmetic, QueueView, Reason, Verdict};
pub use non_ect::NonEct;

pub mod non_ect;
pub(crate) mod red_core;
#[cfg(test)]
mod test_support;

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
    /// Typical data packet size on this link (bytes), for byte/packet conversions: the mean
    /// data packet size of the flows whose data crosses it (`scenario::build`).
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
    let keys = key_docs::keys_of::<P>();
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
    // A nested parameter table given as an array (see shape.rs).
    if let Ok(resolved) = toml::Value::try_from(&params) {
        crate::shape::reject_positional(&raw, &resolved, "")?;
    }
    Ok(params)
}

/// The qdisc union: one alternative per `kind`, each closed (`additionalProperties: false`).
/// Used with `#[schemars(schema_with = "crate::aqm::qdisc_schema")]` on `qdisc` tables.
pub fn qdisc_schema(gen: &mut SchemaGenerator) -> Schema {
    const NAME: &str = "qdisc";
    if !gen.definitions().contains_key(NAME) {
        let def = serde_json::json!({
            "description": "A queue discipline: `kind` plus that algorithm's parameters.",
            "type": "object",
            "required": ["kind"],
            "properties": {
                "kind": { "description": "The algorithm.", "enum": AqmConfig::KINDS },
            },
            "oneOf": AqmConfig::kind_schemas(gen),
        });
        gen.definitions_mut().insert(NAME.into(), def);
    }
    let path = gen
        .settings()
        .definitions_path
        .trim_end_matches('/')
        .to_string();
    Schema::new_ref(format!("#{}/{NAME}", path.trim_start_matches('#')))
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

            /// The JSON Schema of each kind's table, in registry order (see [`qdisc_schema`]).
            pub fn kind_schemas(gen: &mut SchemaGenerator) -> Vec<serde_json::Value> {
                vec![$({
                    type P = $module::Params;
                    key_docs::kind_schema::<P>(gen, P::KIND, P::NAME, P::SOURCE)
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
