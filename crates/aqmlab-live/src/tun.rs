//! A TUN device: one fd on `/dev/net/tun`, bound to a new interface by `TUNSETIFF`.
//!
//! Flags: `IFF_TUN | IFF_NO_PI` only. Not `IFF_VNET_HDR`, and no `TUNSETOFFLOAD`: without
//! them the kernel hands the device only packets of at most its MTU (it segments GSO/TSO
//! super-packets before they reach a TUN that did not ask for them), so every packet the AQM
//! sees is one IP packet of a size real links carry. Not `IFF_PERSIST`: the interface
//! exists while the fd is open and vanishes when it closes, also when the process is killed,
//! whichever namespace it was moved to.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates the interface `name` (non-blocking fd). Errors say what was missing: the device
    /// node (no TUN support), the permission (needs root or CAP_NET_ADMIN), or the name (taken).
    pub fn create(name: &str) -> io::Result<Tun> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")
            .map_err(|e| {
                let why = match e.kind() {
                    io::ErrorKind::NotFound => "no TUN support on this machine",
                    io::ErrorKind::PermissionDenied => "needs root or CAP_NET_ADMIN",
                    _ => "cannot open it",
                };
                io::Error::new(e.kind(), format!("/dev/net/tun: {e} ({why})"))
            })?;
        // SAFETY: ifreq is plain old data, for which all-zero bytes are a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        if name.len() >= req.ifr_name.len() || name.bytes().any(|b| b == 0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name \"{name}\": at most 15 bytes, no NUL"),
            ));
        }
        for (dst, &b) in req.ifr_name.iter_mut().zip(name.as_bytes()) {
            *dst = b as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes one `struct ifreq`, which `req` is, and `file`
        // is an open fd of /dev/net/tun for the duration of the call.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            let why = match e.raw_os_error() {
                Some(libc::EPERM) | Some(libc::EACCES) => "needs root or CAP_NET_ADMIN",
                Some(libc::EBUSY) | Some(libc::EEXIST) => "an interface of that name exists",
                _ => "TUNSETIFF failed",
            };
            return Err(io::Error::new(
                e.kind(),
                format!("creating TUN device \"{name}\": {e} ({why})"),
            ));
        }
        Ok(Tun {
            file,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// Reads one packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match (&self.file).read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes one packet. `Ok(false)`: the kernel refused it for a passing reason (the
    /// interface is down or its queue full), which the caller counts as a loss. A TUN write
    /// takes the whole packet or nothing.
    pub fn send(&self, pkt: &[u8]) -> io::Result<bool> {
        match (&self.file).write(pkt) {
            Ok(n) => Ok(n == pkt.len()),
            Err(e) => match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EIO) | Some(libc::EINVAL) => {
                    Ok(false)
                }
                _ => Err(e),
            },
        }
    }
}

/// Waits until one of `fds` is readable or `timeout_ns` passed (nanosecond timeout: `ppoll`).
/// Returns which fds are readable.
pub fn wait_readable(fds: &[RawFd; 2], timeout_ns: u64) -> io::Result<[bool; 2]> {
    let mut p = fds.map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `p` is an array of two pollfd that lives across the call; `ts` is a valid
    // timespec; a null signal mask leaves the thread's mask unchanged.
    let rc = unsafe { libc::ppoll(p.as_mut_ptr(), 2, &ts, std::ptr::null()) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok([false, false]);
        }
        return Err(e);
    }
    for x in &p {
        if x.revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(io::Error::other(
                "a TUN device reported an error (removed?)",
            ));
        }
    }
    Ok(p.map(|x| x.revents & libc::POLLIN != 0))
}

/// CPU time this thread has used, seconds.
pub fn thread_cpu_s() -> f64 {
    // SAFETY: rusage is plain old data; getrusage fills it and cannot fail for RUSAGE_THREAD.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// Sets this thread's timer slack to `ns` (how late the kernel may wake a sleeping thread to
/// batch wake-ups; 50 µs by default) and returns the previous value.
pub fn set_timer_slack(ns: u64) -> u64 {
    // SAFETY: PR_GET/SET_TIMERSLACK take plain integers and affect only this thread.
    unsafe {
        let old = libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0);
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
        old.max(0) as u64
    }
}

/// The calling thread's scheduling policy and priority, to put back after a run.
pub struct Sched(libc::c_int, libc::sched_param);

/// Makes the calling thread SCHED_FIFO at `priority` (1..=99) and returns what it was, so the
/// packet loop is woken on time on a loaded machine. The kernel's real-time throttling (by
/// default 95 % of each second) still bounds what it can take from other threads, and the loop
/// sleeps whenever nothing is due.
pub fn set_realtime(priority: u8) -> io::Result<Sched> {
    // SAFETY: sched_param is plain old data; these calls read or set only this thread's policy
    // (pid 0 = the calling thread) through valid pointers.
    unsafe {
        let mut old_param: libc::sched_param = std::mem::zeroed();
        let old = libc::sched_getscheduler(0);
        libc::sched_getparam(0, &mut old_param);
        let param = libc::sched_param {
            sched_priority: priority as libc::c_int,
        };
        if libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) != 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("real-time priority {priority}: {e} (needs root or CAP_SYS_NICE)"),
            ));
        }
        Ok(Sched(old.max(0), old_param))
    }
}

/// Puts back the policy [`set_realtime`] replaced.
pub fn restore_sched(s: Sched) {
    // SAFETY: as in `set_realtime`.
    unsafe {
        libc::sched_setscheduler(0, s.0, &s.1);
    }
}
