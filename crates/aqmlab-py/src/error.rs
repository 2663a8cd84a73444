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
//!   message, instead of aborting the interpreter: [`guarded`] catches it inside the core's work
//!   (where the GIL is released), [`entry`] around the whole of every function Python calls
//!   (argument and result conversion included), so none reaches pyo3's `PanicException` (a
//!   `BaseException` that `except Exception` lets through) or leaves the interpreter waiting.
//! - A cancelled run (see `RunControl`) becomes `aqmlab._core.Cancelled`.

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

pyo3::create_exception!(
    aqmlab,
    Cancelled,
    pyo3::exceptions::PyException,
    "A run was cancelled through its `RunControl` before it finished; nothing was collected."
);

/// What can go wrong inside a call into the core, before the GIL is taken back.
#[derive(Debug)]
pub enum CoreError {
    Scenario(aqmlab_core::ScenarioError),
    Io(std::io::Error),
    /// A call out of order on a stateful object (message for the user).
    State(String),
    Panic(String),
    Cancelled,
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
            CoreError::Panic(msg) => panic_error(&msg),
            CoreError::Cancelled => Cancelled::new_err("the run was cancelled"),
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

/// Every function Python calls runs inside this: a panic anywhere in `f` (converting arguments
/// or results, or a core call outside [`guarded`]) becomes the same `RuntimeError`.
pub fn entry<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    entry_with(f, |msg| panic_error(&msg))
}

/// [`entry`] with the panic's error made by `on_panic` from its message.
fn entry_with<T, E>(
    f: impl FnOnce() -> Result<T, E>,
    on_panic: impl FnOnce(String) -> E,
) -> Result<T, E> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(on_panic(panic_message(payload.as_ref()))),
    }
}

fn panic_error(msg: &str) -> PyErr {
    PyRuntimeError::new_err(format!("internal error in aqmlab (a bug): {msg}"))
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
    fn entry_turns_a_panic_anywhere_into_an_error() {
        // (The binding's tests do not link Python: the error here is the panic's message.)
        let r: Result<(), String> = entry_with(|| panic!("in conversion {}", 7), |m| m);
        assert_eq!(r, Err("in conversion 7".to_string()));
        let r: Result<u8, String> = entry_with(|| Ok(5), |m| m);
        assert_eq!(r, Ok(5));
    }

    #[test]
    fn scenario_errors_pass_through() {
        let e = aqmlab_core::ScenarioError::new("a.b", "3", "less than 2");
        let r: Result<(), CoreError> = guarded(|| Err(e.clone().into()));
        assert!(matches!(r, Err(CoreError::Scenario(got)) if got == e));
    }
}
