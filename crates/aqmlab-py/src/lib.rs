//! # aqmlab-py
//!
//! The Python extension module `aqmlab._core`. It only converts and delegates: TOML text goes
//! into [`aqmlab_core`], which owns the one scenario schema and does all validation; results come
//! back as a JSON string (written to `summary.json` byte for byte by Python) and columnar tables
//! (numeric columns as numpy arrays, string columns as lists). Errors are mapped in [`error`].
//!
//! The GIL is released while the core works, so Python threads can run simulations side by side.

mod error;

use aqmlab_core::aqm::AqmConfig;
use aqmlab_core::metrics::{Column, Table};
use aqmlab_core::scenario::{run as core_run, Scenario};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::error::{guarded, CoreError};

/// The version of the aqmlab core this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Validates scenario TOML text and returns it resolved: every default written out.
/// Raises `ScenarioError` naming the offending key.
#[pyfunction]
fn validate(py: Python<'_>, toml_text: &str) -> PyResult<String> {
    py.detach(|| {
        guarded(|| {
            let scenario = Scenario::from_toml_str(toml_text)?;
            Ok(scenario.resolved_toml())
        })
    })
    .map_err(|e| e.into_pyerr(py))
}

/// Validates and runs a scenario. Returns `{"summary_json": str, "scenario_toml": str,
/// "tables": {name: {column: numpy array | list[str]}}}` with tables `flows`, `queue`,
/// `groups` and `links`.
#[pyfunction]
fn run<'py>(py: Python<'py>, toml_text: &str) -> PyResult<Bound<'py, PyDict>> {
    let (resolved, out) = py
        .detach(|| {
            guarded(|| {
                let scenario = Scenario::from_toml_str(toml_text)?;
                let resolved = scenario.resolved_toml();
                Ok::<_, CoreError>((resolved, core_run::run(&scenario)))
            })
        })
        .map_err(|e| e.into_pyerr(py))?;
    let tables = PyDict::new(py);
    for (name, table) in [
        ("flows", &out.flows),
        ("queue", &out.queue),
        ("groups", &out.groups),
        ("links", &out.links),
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
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add("ScenarioError", m.py().get_type::<error::ScenarioError>())?;
    Ok(())
}
