//! # aqmlab-py
//!
//! The Python extension module `aqmlab._core`. It only converts and delegates: TOML text goes
//! into [`aqmlab_core`], which owns the one scenario schema and does all validation; results come
//! back as a JSON string (written to `summary.json` byte for byte by Python) and columnar tables
//! (numeric columns as numpy arrays, string columns as lists). Errors are mapped in [`error`].
//!
//! The GIL is released while the core works, so Python threads can run simulations side by side.
//! Every function runs inside [`error::entry`], so a panic anywhere is a `RuntimeError`. A run
//! given a [`RunControl`] can be cancelled from another Python thread (a signal handler) and
//! reports the simulated time it reached.

mod error;
#[cfg(target_os = "linux")]
mod live;

use aqmlab_core::aqm::AqmConfig;
use aqmlab_core::metrics::{Column, Table, METRICS};
use aqmlab_core::net::packet::Ecn;
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::replay::{self as core_replay, Action, ReplayEvent};
use aqmlab_core::scenario::{run as core_run, Scenario};
use aqmlab_core::time::{parse_rate, parse_size, SimTime};
use aqmlab_core::ScenarioError as CoreScenarioError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use std::sync::Arc;

use aqmlab_core::replay::ReplayOptions;
use aqmlab_core::scenario::run::Control;

use crate::error::{entry, guarded, CoreError};

/// The version of the aqmlab core this module was built from.
#[pyfunction]
fn version() -> PyResult<&'static str> {
    entry(|| Ok(env!("CARGO_PKG_VERSION")))
}

/// Which behaviour of the model this build has as a whole (16 hex digits; changes whenever any
/// run's results may change, unlike the version).
#[pyfunction]
fn model_id() -> PyResult<String> {
    entry(|| Ok(format!("{:016x}", aqmlab_core::MODEL_ID)))
}

/// The model identity one scenario's results depend on (16 hex digits): it follows only the
/// qdisc kinds the scenario runs, so adding an algorithm leaves it unchanged. The run cache's
/// key includes it. Raises `ScenarioError` for an invalid scenario.
#[pyfunction]
fn scenario_model_id(py: Python<'_>, toml_text: &str) -> PyResult<String> {
    py.detach(|| {
        guarded(|| {
            let scenario = Scenario::from_toml_str(toml_text)?;
            Ok(format!(
                "{:016x}",
                aqmlab_core::scenario::model_id::of(&scenario)
            ))
        })
    })
    .map_err(|e| e.into_pyerr(py))
}

/// Jain's fairness index of `values`, as the summary computes it (1 for no values or all
/// zero).
#[pyfunction]
fn jain_index(values: Vec<f64>) -> f64 {
    aqmlab_core::metrics::jain_index(&values)
}

/// Validates scenario TOML text and returns it resolved: every default written out.
/// Raises `ScenarioError` naming the offending key.
#[pyfunction]
fn validate(py: Python<'_>, toml_text: &str) -> PyResult<String> {
    entry(|| {
        py.detach(|| {
            guarded(|| {
                let scenario = Scenario::from_toml_str(toml_text)?;
                Ok(scenario.resolved_toml())
            })
        })
        .map_err(|e| e.into_pyerr(py))
    })
}

/// A handle on a running simulation, shared with another Python thread: `cancel()` stops the
/// run at its next check (every few thousand events; `run` then raises `Cancelled`), and
/// `sim_time_ns` is how far in simulated time it has got (for progress).
#[pyclass(frozen)]
struct RunControl {
    inner: Arc<Control>,
}

#[pymethods]
impl RunControl {
    #[new]
    fn new() -> Self {
        RunControl {
            inner: Arc::new(Control::default()),
        }
    }

    fn cancel(&self) {
        self.inner.cancel();
    }

    #[getter]
    fn cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    #[getter]
    fn sim_time_ns(&self) -> u64 {
        self.inner.now().as_nanos()
    }
}

/// Test hook: panics inside the core's work (`inside`, the GIL released) or in the binding
/// itself, to show that either becomes a `RuntimeError` and the interpreter carries on.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, inside: bool) -> PyResult<()> {
    entry(|| {
        if inside {
            py.detach(|| guarded(|| -> Result<(), CoreError> { panic!("deliberate, inside") }))
                .map_err(|e| e.into_pyerr(py))
        } else {
            panic!("deliberate, in the binding")
        }
    })
}

/// Validates and runs a scenario. Returns `{"summary_json": str, "scenario_toml": str,
/// "tables": {name: {column: numpy array | list[str]}}}` with tables `flows`, `queue`,
/// `groups`, `links`, `transfers`, `tcp_trace` and `packet_trace`.
/// With `control`, the run can be cancelled from another thread (raises `Cancelled`).
#[pyfunction]
#[pyo3(signature = (toml_text, control=None))]
fn run<'py>(
    py: Python<'py>,
    toml_text: &str,
    control: Option<&RunControl>,
) -> PyResult<Bound<'py, PyDict>> {
    entry(|| run_entry(py, toml_text, control))
}

fn run_entry<'py>(
    py: Python<'py>,
    toml_text: &str,
    control: Option<&RunControl>,
) -> PyResult<Bound<'py, PyDict>> {
    let control = control.map(|c| c.inner.clone());
    let (resolved, out) = py
        .detach(|| {
            guarded(|| {
                let scenario = Scenario::from_toml_str(toml_text)?;
                let resolved = scenario.resolved_toml();
                let out = match control {
                    Some(c) => {
                        core_run::run_controlled(&scenario, &c).ok_or(CoreError::Cancelled)?
                    }
                    None => core_run::run(&scenario),
                };
                Ok::<_, CoreError>((resolved, out))
            })
        })
        .map_err(|e| e.into_pyerr(py))?;
    let tables = PyDict::new(py);
    for (name, table) in [
        ("flows", &out.flows),
        ("queue", &out.queue),
        ("groups", &out.groups),
        ("links", &out.links),
        ("transfers", &out.transfers),
        ("tcp_trace", &out.tcp_trace),
        ("packet_trace", &out.packet_trace),
    ] {
        tables.set_item(name, table_to_dict(py, table)?)?;
    }
    let result = PyDict::new(py);
    result.set_item("summary_json", &out.summary_json)?;
    result.set_item("scenario_toml", resolved)?;
    result.set_item("tables", tables)?;
    Ok(result)
}

/// Every algorithm: `[{"kind", "name", "source", "params": [{"key", "default", "help"}]}]`.
/// `default` is rendered as a TOML value (`0.1`, `"5ms"`, `true`).
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    entry(|| algorithms_list(py))
}

fn algorithms_list(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for doc in AqmConfig::docs() {
        let d = PyDict::new(py);
        d.set_item("kind", doc.kind)?;
        d.set_item("name", doc.name)?;
        d.set_item("source", doc.source)?;
        let params = PyList::empty(py);
        for (key, default, help) in &doc.params {
            let p = PyDict::new(py);
            p.set_item("key", key)?;
            p.set_item("default", default)?;
            p.set_item("help", help)?;
            params.append(p)?;
        }
        d.set_item("params", params)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The metric registry (`aqmlab_core::metrics::METRICS`), in display order:
/// `[{"key", "scope", "label", "short", "unit", "description", "better", "headline", "plot",
/// "format"}]`. `scope` is "run" (a dotted path into the summary) or "link" (a key of each
/// `links` entry); `better` is "higher", "lower" or "neither".
#[pyfunction]
fn metrics(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    entry(|| metrics_list(py))
}

fn metrics_list(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for m in METRICS {
        // Through serde, so that a field added to `Metric` reaches Python without a line here.
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(m) else {
            let msg = format!("metric {} does not serialise to an object", m.key);
            return Err(pyo3::exceptions::PyRuntimeError::new_err(msg));
        };
        let d = PyDict::new(py);
        for (key, value) in fields {
            match value {
                serde_json::Value::Bool(b) => d.set_item(key, b)?,
                serde_json::Value::String(s) => d.set_item(key, s)?,
                other => d.set_item(key, other.to_string())?,
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The JSON Schema of a scenario file (draft 7), as pretty-printed JSON text: what
/// `schema/aqmlab-scenario.schema.json` holds.
#[pyfunction]
fn schema_json() -> PyResult<String> {
    entry(|| Ok(aqmlab_core::schema::schema_json()))
}

/// The generated reference tables of `docs/scenarios.md` (every table's keys and every
/// algorithm's parameters), as markdown between their markers.
#[pyfunction]
fn schema_markdown() -> PyResult<String> {
    entry(|| Ok(aqmlab_core::schema::markdown()))
}

/// A buffer as Python gives it: packets (int) or a size string ("150KB").
#[derive(FromPyObject)]
enum BufferArg {
    Packets(i64),
    Size(String),
}

/// A rate as Python gives it: bit/s (int) or a rate string ("10Mbps").
#[derive(FromPyObject)]
enum RateArg {
    Bps(i64),
    Text(String),
}

/// Drives one qdisc by script (see `aqmlab_core::replay`). Events are columns of equal length:
/// `op[i]` is 0 for a dequeue, 1 for an enqueue (with `size_bytes`, `flow` and `ecn`: 0 not
/// ECN-capable, 1 ECT(0), 2 ECT(1)) and 2 for a `set` of the algorithm's variable
/// `set_name[i]` to `set_value[i]`; `t_ns` is the event time in integer nanoseconds.
/// `qdisc_toml` is the qdisc table as TOML (`kind = "red"` ...). Returns one dict per event; `queues` holds the sub-queues the event
/// changed, or every one with `full_queues`.
#[pyfunction]
#[pyo3(signature = (qdisc_toml, op, t_ns, size_bytes, flow, ecn, set_name, set_value, buffer,
    link_rate, uniforms=None, seed=0, mean_pkt_bytes=1000, full_queues=false))]
#[allow(clippy::too_many_arguments)]
fn replay<'py>(
    py: Python<'py>,
    qdisc_toml: &str,
    op: Vec<u8>,
    t_ns: Vec<u64>,
    size_bytes: Vec<u32>,
    flow: Vec<u32>,
    ecn: Vec<u8>,
    set_name: Vec<String>,
    set_value: Vec<f64>,
    buffer: BufferArg,
    link_rate: RateArg,
    uniforms: Option<Vec<f64>>,
    seed: u64,
    mean_pkt_bytes: u32,
    full_queues: bool,
) -> PyResult<Bound<'py, PyList>> {
    let events = EventColumns {
        op,
        t_ns,
        size_bytes,
        flow,
        ecn,
        set_name,
        set_value,
    };
    let link = (buffer, link_rate, mean_pkt_bytes);
    entry(|| replay_entry(py, qdisc_toml, events, link, uniforms, seed, full_queues))
}

/// The event columns of [`replay`], as Python passed them.
struct EventColumns {
    op: Vec<u8>,
    t_ns: Vec<u64>,
    size_bytes: Vec<u32>,
    flow: Vec<u32>,
    ecn: Vec<u8>,
    set_name: Vec<String>,
    set_value: Vec<f64>,
}

fn replay_entry<'py>(
    py: Python<'py>,
    qdisc_toml: &str,
    EventColumns {
        op,
        t_ns,
        size_bytes,
        flow,
        ecn,
        set_name,
        set_value,
    }: EventColumns,
    (buffer, link_rate, mean_pkt_bytes): (BufferArg, RateArg, u32),
    uniforms: Option<Vec<f64>>,
    seed: u64,
    full_queues: bool,
) -> PyResult<Bound<'py, PyList>> {
    let records = py
        .detach(|| {
            guarded(|| {
                let n = op.len();
                let lens = [
                    t_ns.len(),
                    size_bytes.len(),
                    flow.len(),
                    ecn.len(),
                    set_name.len(),
                    set_value.len(),
                ];
                if lens.iter().any(|&l| l != n) {
                    return Err(CoreScenarioError::new(
                        "events",
                        format!("columns of lengths {n}, {lens:?}"),
                        "columns of equal length",
                    )
                    .into());
                }
                let table: toml::Table = toml::from_str(qdisc_toml).map_err(|e| {
                    CoreScenarioError::new("qdisc", e.message().trim().to_string(), "valid TOML")
                })?;
                let cfg = AqmConfig::from_table(table).map_err(|e| e.prefixed("qdisc"))?;
                let limit = match buffer {
                    BufferArg::Packets(p) if (1..=u32::MAX as i64).contains(&p) => {
                        BufferLimit::Packets(p as u32)
                    }
                    BufferArg::Packets(p) => {
                        return Err(CoreScenarioError::new(
                            "buffer",
                            p.to_string(),
                            "at least 1 packet",
                        )
                        .into())
                    }
                    BufferArg::Size(s) => BufferLimit::Bytes(
                        parse_size(&s)
                            .map_err(|m| CoreScenarioError::new("buffer", format!("\"{s}\""), m))?,
                    ),
                };
                let rate = match link_rate {
                    RateArg::Bps(b) if b > 0 => b as u64,
                    RateArg::Bps(b) => {
                        return Err(CoreScenarioError::new(
                            "link_rate",
                            b.to_string(),
                            "a positive rate in bit/s",
                        )
                        .into())
                    }
                    RateArg::Text(s) => parse_rate(&s)
                        .map_err(|m| CoreScenarioError::new("link_rate", format!("\"{s}\""), m))?,
                };
                let events = (0..n)
                    .map(|i| {
                        let t = SimTime(t_ns[i]);
                        let codepoint = match ecn[i] {
                            0 => Ecn::NotEct,
                            1 => Ecn::Ect,
                            2 => Ecn::Ect1,
                            e => {
                                return Err(CoreScenarioError::new(
                                    format!("events.{i}.ecn"),
                                    e.to_string(),
                                    "0 (not ECN-capable), 1 (ECT(0)) or 2 (ECT(1))",
                                ))
                            }
                        };
                        Ok(match op[i] {
                            0 => ReplayEvent::Dequeue { t },
                            1 => ReplayEvent::Enqueue {
                                t,
                                size_bytes: size_bytes[i],
                                flow: flow[i],
                                ecn: codepoint,
                            },
                            2 => ReplayEvent::Set {
                                t,
                                name: set_name[i].clone(),
                                value: set_value[i],
                            },
                            o => {
                                return Err(CoreScenarioError::new(
                                    format!("events.{i}.op"),
                                    o.to_string(),
                                    "0 (dequeue), 1 (enqueue) or 2 (set)",
                                ))
                            }
                        })
                    })
                    .collect::<Result<Vec<ReplayEvent>, CoreScenarioError>>()?;
                Ok(core_replay::replay_with(
                    &cfg,
                    limit,
                    &events,
                    uniforms,
                    seed,
                    rate,
                    mean_pkt_bytes,
                    ReplayOptions { full_queues },
                )?)
            })
        })
        .map_err(|e| e.into_pyerr(py))?;
    let list = PyList::empty(py);
    for r in &records {
        let d = PyDict::new(py);
        let (action, reason) = match r.action {
            Action::Enqueued => ("enqueued", None),
            Action::Marked(why) => ("marked", Some(why.key())),
            Action::Dropped(why) => ("dropped", Some(why.key())),
            Action::Dequeued => ("dequeued", None),
            Action::Empty => ("empty", None),
            Action::Set => ("set", None),
        };
        d.set_item("event", r.event)?;
        d.set_item("t_ns", r.t.as_nanos())?;
        d.set_item("action", action)?;
        d.set_item("reason", reason)?;
        d.set_item("packet", r.packet)?;
        d.set_item("qlen_pkts_before", r.qlen_pkts_before)?;
        d.set_item("qlen_bytes_before", r.qlen_bytes_before)?;
        let dropped: Vec<(u64, &str)> = r.dropped.iter().map(|(p, why)| (*p, why.key())).collect();
        d.set_item("dropped", dropped)?;
        d.set_item("marked", r.marked.map(|why| why.key()))?;
        let probes = PyDict::new(py);
        for (name, value) in &r.probes {
            probes.set_item(*name, *value)?;
        }
        d.set_item("probes", probes)?;
        d.set_item("sub_queue", r.sub_queue)?;
        let queues = PyList::empty(py);
        for s in &r.queues {
            let q = PyDict::new(py);
            q.set_item("index", s.index)?;
            q.set_item("pkts", s.pkts)?;
            q.set_item("bytes", s.bytes)?;
            q.set_item("status", s.status.key())?;
            q.set_item("deficit", s.deficit)?;
            queues.append(q)?;
        }
        d.set_item("queues", queues)?;
        d.set_item("draws", r.draws)?;
        list.append(d)?;
    }
    Ok(list)
}

/// `{column: values}`: f64 and i64 columns become numpy arrays (one copy, via a bytes buffer in
/// little-endian order), string columns lists of `str`.
fn table_to_dict<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let frombuffer = py.import("numpy")?.getattr("frombuffer")?;
    let d = PyDict::new(py);
    for (name, col) in &table.columns {
        let value = match col {
            Column::F64(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                frombuffer.call1((PyBytes::new(py, &bytes), "<f8"))?
            }
            Column::I64(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                frombuffer.call1((PyBytes::new(py, &bytes), "<i8"))?
            }
            Column::Str(v) => PyList::new(py, v)?.into_any(),
        };
        d.set_item(name, value)?;
    }
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(model_id, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_model_id, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(metrics, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(schema_json, m)?)?;
    m.add_function(wrap_pyfunction!(schema_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_class::<RunControl>()?;
    #[cfg(target_os = "linux")]
    {
        m.add_class::<live::LiveBottleneck>()?;
        m.add_function(wrap_pyfunction!(live::live_trace_parity, m)?)?;
    }
    m.add("ScenarioError", m.py().get_type::<error::ScenarioError>())?;
    m.add("Cancelled", m.py().get_type::<error::Cancelled>())?;
    Ok(())
}
