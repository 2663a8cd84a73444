//! Every error that crosses into Python is made here, and only here.
//!
//! - [`aqmlab_core::ScenarioError`] (something the user wrote) becomes `aqmlab.ScenarioError`, a
//!   subclass of `ValueError` carrying `.path`, `.value` and `.allowed`; `str(e)` is the core's
//!   one-line `path: value (allowed)`.
//! - An I/O error of the live bottleneck (no TUN device, no permission, a device that vanished)
//!   becomes the matching `OSError` subclass (`PermissionError`, `FileNotFoundError`, …) with a
//!   message saying what was missing.
//! - A misuse of a live bottleneck's life cycle (`run()` twice, `result()` before a run, a
//!   closed bottleneck) becomes `RuntimeError`.
//! - A Rust panic (a bug in aqmlab, never the user's fault) becomes `RuntimeError` with the panic
//!   message, instead of aborting the interpreter.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    aqmlab,
    ScenarioError,
    PyValueError,
    "A scenario was rejected. `.path` is the dotted key (e.g. `bottleneck.qdisc.max_p`), `.value` \
     the bad value and `.allowed` what would have been accepted."
);

/// What can go wrong inside a call into the core, before the GIL is taken back.
#[derive(Debug)]
pub enum CoreError {
    Scenario(aqmlab_core::ScenarioError),
    Io(std::io::Error),
    /// A call out of order on a stateful object (message for the user).
    State(String),
    Panic(String),
}

impl From<std::io::Error> for CoreError {
    fn from(e: std::io::Error) -> Self {
        CoreError::Io(e)
    }
}

impl From<aqmlab_core::ScenarioError> for CoreError {
    fn from(e: aqmlab_core::ScenarioError) -> Self {
        CoreError::Scenario(e)
    }
}

impl CoreError {
    /// Converts to the Python exception (needs the GIL to set the attributes).
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            CoreError::Scenario(e) => scenario_error(py, &e),
            CoreError::Io(e) => PyErr::from(e),
            CoreError::State(msg) => PyRuntimeError::new_err(msg),
            CoreError::Panic(msg) => {
                PyRuntimeError::new_err(format!("internal error in aqmlab (a bug): {msg}"))
            }
        }
    }
}

/// Builds an `aqmlab.ScenarioError` instance with `.path`, `.value`, `.allowed` set.
pub fn scenario_error(py: Python<'_>, e: &aqmlab_core::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value(py);
    let attrs = [
        ("path", e.path.as_str()),
        ("value", e.value.as_str()),
        ("allowed", e.allowed.as_str()),
    ];
    for (name, v) in attrs {
        if let Err(set_failed) = value.setattr(name, v) {
            return set_failed;
        }
    }
    err
}

/// Runs `f`, turning a panic into [`CoreError::Panic`] with its message.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, CoreError>) -> Result<T, CoreError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(CoreError::Panic(panic_message(payload.as_ref()))),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors_with_their_message() {
        let r: Result<(), CoreError> = guarded(|| panic!("boom {}", 42));
        match r {
            Err(CoreError::Panic(m)) => assert_eq!(m, "boom 42"),
            other => panic!("expected a caught panic, got {other:?}"),
        }
        let r: Result<(), CoreError> = guarded(|| panic!("static"));
        assert!(matches!(r, Err(CoreError::Panic(m)) if m == "static"));
    }

    #[test]
    fn scenario_errors_pass_through() {
        let e = aqmlab_core::ScenarioError::new("a.b", "3", "less than 2");
        let r: Result<(), CoreError> = guarded(|| Err(e.clone().into()));
        assert!(matches!(r, Err(CoreError::Scenario(got)) if got == e));
    }
}
