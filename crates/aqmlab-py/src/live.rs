//! `LiveBottleneck`: the live bottleneck (`aqmlab_live`) as a Python object. Linux only.
//!
//! The packet loop runs on the calling thread with the GIL released; `stop()` from another
//! thread sets a flag the loop reads at least every 5 ms. When `run()` is called from the main
//! thread, Ctrl-C is seen too: every 50 ms the loop takes the GIL to run Python's signal
//! handlers, and a `KeyboardInterrupt` stops the loop and is raised from `run()`. (Taking the
//! GIL waits while another Python thread runs Python code, up to its switch interval, 5 ms;
//! called from any other thread, the loop never takes the GIL.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use aqmlab_live::run::{self as live_run, Devices};
use aqmlab_live::trace;
use aqmlab_live::Config;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{guarded, CoreError};

/// The user-space bottleneck between two TUN devices (see `aqmlab_live`).
#[pyclass(module = "aqmlab._core")]
pub struct LiveBottleneck {
    config: Config,
    names: (String, String),
    devices: Mutex<Option<Devices>>,
    stop: AtomicBool,
    ran: AtomicBool,
    result: Mutex<Option<String>>,
}

/// `json.loads(text)`.
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

#[pymethods]
impl LiveBottleneck {
    /// Validates the configuration and creates the two TUN devices.
    #[new]
    fn new(py: Python<'_>, config_json: &str) -> PyResult<Self> {
        let (config, devices) = py
            .detach(|| {
                guarded(|| {
                    let config = Config::from_json(config_json)?;
                    let devices = Devices::create(&config)?;
                    Ok((config, devices))
                })
            })
            .map_err(|e| e.into_pyerr(py))?;
        Ok(LiveBottleneck {
            names: (config.dev_a.clone(), config.dev_b.clone()),
            config,
            devices: Mutex::new(Some(devices)),
            stop: AtomicBool::new(false),
            ran: AtomicBool::new(false),
            result: Mutex::new(None),
        })
    }

    /// The two devices' names, (dev_a, dev_b).
    fn devices(&self) -> (String, String) {
        self.names.clone()
    }

    /// Runs the packet loop for `seconds`, or until `stop()`. Once per object.
    fn run(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let threading = py.import("threading")?;
        let main_ident = threading.call_method0("main_thread")?.getattr("ident")?;
        let on_main = threading.call_method0("get_ident")?.eq(main_ident)?;
        // A Python exception raised by a signal handler while the loop ran (KeyboardInterrupt).
        // Kept apart from `CoreError`, which holds no Python object (the binding's unit tests
        // link without libpython).
        let mut signal: Option<PyErr> = None;
        let out = py.detach(|| {
            guarded(|| {
                if !seconds.is_finite() || seconds < 0.0 {
                    return Err(aqmlab_core::ScenarioError::new(
                        "seconds",
                        seconds.to_string(),
                        "a finite number of seconds, at least 0",
                    )
                    .into());
                }
                if self.ran.swap(true, Ordering::SeqCst) {
                    return Err(CoreError::State(
                        "run() was already called on this LiveBottleneck (make a new one)".into(),
                    ));
                }
                let guard = self.devices.lock().unwrap_or_else(|p| p.into_inner());
                let Some(dev) = guard.as_ref() else {
                    return Err(CoreError::State("the LiveBottleneck is closed".into()));
                };
                let mut checks = 0u32;
                let mut stop = || {
                    if self.stop.load(Ordering::Relaxed) {
                        return true;
                    }
                    checks += 1;
                    // Every 10th check (at most 50 ms apart), on the main thread: signals.
                    if on_main && checks.is_multiple_of(10) {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            signal = Some(e);
                            return true;
                        }
                    }
                    false
                };
                let result = live_run::run(&self.config, dev, seconds, &mut stop)?;
                Ok(result.to_string())
            })
        });
        if let Some(e) = signal {
            return Err(e);
        }
        let text = out.map_err(|e| e.into_pyerr(py))?;
        *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(text);
        Ok(())
    }

    /// Asks a running `run()` to return (thread-safe; also before `run()`, which then returns
    /// at once).
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The run's results (see `LIVE` in `aqmlab._core`'s stub).
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self
            .result
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match text {
            Some(t) => json_loads(py, &t),
            None => Err(CoreError::State("result() before run() returned".into()).into_pyerr(py)),
        }
    }

    /// Closes both devices (they vanish); waits for a running `run()`. Idempotent.
    fn close(&self, py: Python<'_>) {
        let devices = py.detach(|| {
            self.devices
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
        });
        drop(devices);
    }
}

/// Replays the trace a live run wrote (`trace_path`) through a fresh qdisc built from the
/// same configuration and seed, and compares every decision:
/// `{"events", "mismatches", "signals", "first_mismatch"}`.
#[pyfunction]
pub fn live_trace_parity<'py>(
    py: Python<'py>,
    config_json: &str,
    trace_path: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let p = py
        .detach(|| {
            guarded(|| {
                let cfg = Config::from_json(config_json)?;
                let file = std::fs::File::open(trace_path)?;
                let records = trace::read(std::io::BufReader::new(file))?;
                Ok(trace::check_parity(
                    &cfg.qdisc,
                    cfg.buffer,
                    cfg.seed,
                    cfg.rate_bps,
                    cfg.mean_pkt_bytes,
                    &records,
                )?)
            })
        })
        .map_err(|e| e.into_pyerr(py))?;
    let d = PyDict::new(py);
    d.set_item("events", p.events)?;
    d.set_item("mismatches", p.mismatches)?;
    d.set_item("signals", p.signals)?;
    d.set_item("first_mismatch", p.first_mismatch)?;
    Ok(d)
}
