//! The packet loop: two TUN devices around one [`Bottleneck`].
//!
//! One iteration: read the monotonic clock, let the bottleneck run everything due (writing the
//! packets it hands back), sleep in `ppoll` on both fds until the next deadline (at most
//! [`CHECK_NS`], so a stop request is seen within that), read the clock once, then read every
//! waiting packet from both devices (up to [`BATCH`] each) and stamp them all with that time.
//! Nothing sleeps per packet: departure times are computed by the bottleneck, the loop only
//! wakes for the earliest of them.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Instant;

use crate::bottleneck::{Bottleneck, Dir, LoopStats};
use crate::config::Config;
use crate::trace;
use crate::tun::{self, Tun};

/// Packets read from one device per wake-up at most, so that one side cannot starve the other
/// or the writes.
pub const BATCH: usize = 256;
/// The longest sleep: how often a stop request and the end of the run are checked.
pub const CHECK_NS: u64 = 5_000_000;

/// The two devices of a bottleneck.
pub struct Devices {
    pub a: Tun,
    pub b: Tun,
}

impl Devices {
    /// Creates both TUN devices the configuration names.
    pub fn create(cfg: &Config) -> io::Result<Devices> {
        let a = Tun::create(&cfg.dev_a)?;
        let b = Tun::create(&cfg.dev_b)?;
        Ok(Devices { a, b })
    }
}

/// Runs the bottleneck for `seconds` (or until `stop()` returns true; it is asked at least every
/// [`CHECK_NS`]) and returns its results. The trace, if configured, is written to
/// `trace_path.partial` and renamed to `trace_path` only when the run ended without error.
pub fn run(
    cfg: &Config,
    dev: &Devices,
    seconds: f64,
    stop: &mut dyn FnMut() -> bool,
) -> io::Result<serde_json::Value> {
    let end_ns = (seconds.max(0.0) * 1e9) as u64;
    let mut trace_out = match &cfg.trace_path {
        Some(p) => {
            let f = File::create(format!("{p}.partial"))?;
            let mut w = BufWriter::with_capacity(1 << 20, f);
            writeln!(w, "{}", trace::HEADER)?;
            Some(w)
        }
        None => None,
    };
    let mut b = Bottleneck::new(cfg, trace_out.is_some());
    let old_sched = match cfg.realtime_priority {
        Some(p) => Some(tun::set_realtime(p)?),
        None => None,
    };
    let old_slack = tun::set_timer_slack(1);
    let cpu0 = tun::thread_cpu_s();
    let start = Instant::now();
    let clock = || start.elapsed().as_nanos() as u64;
    let mut lp = LoopStats::default();
    let mut late_sum: u128 = 0;
    let mut writes: u64 = 0;
    let mut buf = vec![0u8; 65_536];
    let fds = [dev.a.fd(), dev.b.fd()];
    let result = (|| -> io::Result<u64> {
        let mut now = clock();
        loop {
            let mut failed = None;
            let deadline = b.poll(now, &mut |dir, pkt, due| {
                let out = match dir {
                    Dir::AtoB => &dev.b,
                    Dir::BtoA => &dev.a,
                };
                match out.send(pkt) {
                    Ok(true) => {}
                    Ok(false) => lp.write_errors += 1,
                    Err(e) => failed = Some(e),
                }
                let late = now - due;
                lp.max_late_ns = lp.max_late_ns.max(late);
                late_sum += late as u128;
                writes += 1;
            });
            if let Some(e) = failed {
                return Err(e);
            }
            if let Some(w) = trace_out.as_mut() {
                for rec in b.drain_trace() {
                    trace::write_row(w, &rec)?;
                }
            }
            if now >= end_ns || stop() {
                return Ok(now);
            }
            let wait = deadline.min(end_ns).saturating_sub(now).min(CHECK_NS);
            let ready = if wait > 0 {
                tun::wait_readable(&fds, wait)?
            } else {
                [true, true]
            };
            now = clock();
            for (i, (dev, dir)) in [(&dev.a, Dir::AtoB), (&dev.b, Dir::BtoA)]
                .into_iter()
                .enumerate()
            {
                if !ready[i] {
                    continue;
                }
                for _ in 0..BATCH {
                    let Some(n) = dev.recv(&mut buf)? else { break };
                    b.arrive(now, dir, &buf[..n]);
                    match dir {
                        Dir::AtoB => lp.packets_ab += 1,
                        Dir::BtoA => lp.packets_ba += 1,
                    }
                }
            }
        }
    })();
    tun::set_timer_slack(old_slack);
    if let Some(s) = old_sched {
        tun::restore_sched(s);
    }
    let now = result?;
    lp.cpu_s = tun::thread_cpu_s() - cpu0;
    lp.mean_late_ns = if writes > 0 {
        late_sum as f64 / writes as f64
    } else {
        0.0
    };
    let out = b.result(now, &lp, cfg.trace_path.as_deref());
    if let (Some(mut w), Some(p)) = (trace_out, &cfg.trace_path) {
        for rec in b.drain_trace() {
            trace::write_row(&mut w, &rec)?;
        }
        w.flush()?;
        drop(w);
        std::fs::rename(format!("{p}.partial"), p)?;
    }
    Ok(out)
}
