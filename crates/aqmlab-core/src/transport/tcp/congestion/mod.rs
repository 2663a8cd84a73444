//! Congestion control: how the window grows on ACKs and how far it backs off on a congestion
//! signal (loss found by duplicate ACKs, ECN-Echo, retransmission timeout). One file per
//! controller, as smoltcp's `socket/tcp/congestion/`; the closed enum [`AnyController`]
//! dispatches without a box.
//!
//! What happens *during* loss recovery (which segments go out, inflation and deflation of `cwnd`
//! by the recovery variant) is `super::recovery`'s job. A controller sees only the signals, so
//! CUBIC (window growth as a function of time since the last reduction) and DCTCP (a reduction
//! scaled by the fraction of ECN-marked ACKs) fit as new files: the ACK hook gets the time, the
//! segments acknowledged and the ECN-Echo bit.
//!
//! Windows are counted in segments. `cwnd` is fractional (congestion avoidance adds `1/cwnd` per
//! ACK); the usable window is its integer part, as ns-2's `window()` = `int(cwnd_)`.

pub mod cubic;
pub mod dctcp;
pub mod reno;

pub use cubic::{Cubic, Friendliness};
pub use dctcp::Dctcp;
pub use reno::Reno;

use serde::{Deserialize, Serialize};

use crate::time::{SimDuration, SimTime};

/// The window a controller manages.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Window {
    /// Congestion window, segments (fractional).
    pub cwnd: f64,
    /// Slow-start threshold, segments; `u64::MAX` = unlimited.
    pub ssthresh: u64,
}

/// An ACK of new data, as a controller sees it.
#[derive(Copy, Clone, Debug)]
pub struct Ack {
    pub now: SimTime,
    /// Segments newly acknowledged cumulatively.
    pub newly_acked: u64,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// The lowest RTT sample so far (CUBIC's `t + RTT` look-ahead, as Linux's `delay_min`).
    pub min_rtt: Option<SimDuration>,
}

/// Every valid ACK as it arrives, before the sender reacts to it (DCTCP counts marked bytes
/// over every ACK, ECN-Echo, recovery and duplicate ACKs included).
#[derive(Copy, Clone, Debug)]
pub struct AckSeen {
    pub now: SimTime,
    /// Segments newly acknowledged cumulatively (0 for a duplicate ACK).
    pub newly_acked: u64,
    pub ece: bool,
    /// `snd_una` after this ACK.
    pub snd_una: u64,
    /// The next segment the sender will send.
    pub snd_nxt: u64,
}

/// A congestion controller: every hook is given the window to change.
pub trait Controller {
    /// Every valid ACK, first thing (DCTCP's marked-fraction estimate); no window change.
    fn on_ack_seen(&mut self, _ack: &AckSeen) {}

    /// An ACK of new data outside loss recovery that opens the window: RFC 3168 §6.1.2 keeps an
    /// ACK that carries ECN-Echo, or that just caused a reduction, from reaching here.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);

    /// Loss detected by duplicate ACKs (fast retransmit): set `ssthresh` from the flight size
    /// (RFC 5681 eq. 4). The recovery variant then sets `cwnd`.
    fn on_loss(&mut self, w: &mut Window, flight: u64);

    /// ECN-Echo (RFC 3168 §6.1.2), at most once per window: `window` is the window the
    /// reduction is taken from, in segments: the usable window `min(⌊cwnd⌋, max_window)`
    /// (RFC reading) or ns-2's fractional `windowd()` = `min(cwnd, max_window)` (ns-2 model).
    fn on_ecn(&mut self, w: &mut Window, window: f64);

    /// Retransmission timeout (RFC 5681 eq. 4 and §3.1: back to one segment).
    fn on_timeout(&mut self, w: &mut Window, flight: u64);

    /// The multiplicative decrease on a loss found by duplicate ACKs: the window after it is
    /// this fraction of the window before (Reno's halving; CUBIC's `β_cubic`). The ns-2 model
    /// keeps that window fractional through recovery (ns-2's `cwnd_`) and leaves recovery with
    /// it, so it must be the controller's, not a halving for all.
    fn decrease_factor(&self) -> f64 {
        0.5
    }
}

/// Which congestion controller a flow runs: the `tcp.cc` key. Independent of `tcp.variant`
/// (the loss recovery), so `variant = "sack", cc = "cubic"` is Linux's default pairing.
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// Reno AIMD (RFC 5681), ns-2's window arithmetic.
    #[default]
    Reno,
    /// CUBIC (RFC 9438), as Linux `tcp_cubic` and ns-3 `TcpCubic` without HyStart.
    Cubic,
    /// Data Center TCP (RFC 8257): reduction scaled by the fraction of marked bytes. Needs
    /// `ecn = true`; the receiver echoes CE per packet.
    Dctcp,
}

/// The controllers, one variant each (smoltcp's `AnyController`).
#[derive(Clone, Debug)]
pub enum AnyController {
    Reno(Reno),
    Cubic(Cubic),
    Dctcp(Dctcp),
}

impl AnyController {
    /// The controller for `tcp.cc` (`friendliness`: `tcp.cubic_friendly`); Reno, NewReno and SACK (`tcp.variant`) differ only in
    /// recovery.
    pub fn new(cc: CongestionControl, friendliness: Friendliness) -> AnyController {
        match cc {
            CongestionControl::Reno => AnyController::Reno(Reno),
            CongestionControl::Cubic => AnyController::Cubic(Cubic::new(friendliness)),
            CongestionControl::Dctcp => AnyController::Dctcp(Dctcp::default()),
        }
    }

    pub fn inner(&self) -> &dyn Controller {
        match self {
            AnyController::Reno(c) => c,
            AnyController::Cubic(c) => c,
            AnyController::Dctcp(c) => c,
        }
    }

    pub fn inner_mut(&mut self) -> &mut dyn Controller {
        match self {
            AnyController::Reno(c) => c,
            AnyController::Cubic(c) => c,
            AnyController::Dctcp(c) => c,
        }
    }

    /// Controller state for traces (CUBIC's `w_max`, `k_s`; DCTCP's `alpha`).
    pub fn probe(&self, f: &mut dyn FnMut(&'static str, f64)) {
        match self {
            AnyController::Reno(_) => {}
            AnyController::Cubic(c) => c.probe(f),
            AnyController::Dctcp(c) => c.probe(f),
        }
    }
}

/// The usable send window in segments: `min(⌊cwnd⌋, max_window)` (0 = no receiver cap), at
/// least 1.
pub fn usable_window(cwnd: f64, max_window: u32) -> u64 {
    let w = (cwnd.max(1.0)).floor() as u64;
    if max_window == 0 {
        w
    } else {
        w.min(max_window as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_window_is_integer_part_capped() {
        assert_eq!(usable_window(7.9, 0), 7);
        assert_eq!(usable_window(7.9, 5), 5);
        assert_eq!(usable_window(0.3, 0), 1);
        assert_eq!(usable_window(64.0, 64), 64);
    }
}
