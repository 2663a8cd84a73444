//! The TCP sender, sans-IO: a one-way agent in ns-2's manner whose loss recovery (Tahoe, Reno,
//! NewReno, SACK: `recovery/`), congestion controller (Reno, CUBIC, DCTCP: `congestion/`) and
//! model-specific rules (`behaviour.rs`: the `rfc` and `ns2` bundles) are given to it. The
//! behaviour below is the Reno/NewReno path; SACK's differences are in `recovery/sack.rs`.
//!
//! Sources: RFC 5681 (slow start, congestion avoidance, fast retransmit/fast recovery), RFC 6582
//! (NewReno), RFC 6298 (timer, see `rtt.rs`), RFC 3168 (ECN), and ns-2 `tcp.cc`, `tcp-reno.cc`,
//! `tcp-newreno.cc` (the simulator the papers used) for everything the RFCs leave open.
//!
//! Sequence numbers count segments from 0. `snd_una` is the first unacknowledged segment (the
//! cumulative ACK field = the next segment the receiver expects), `snd_nxt` the next segment to
//! send, `snd_max` one past the highest segment ever sent.
//!
//! Behaviour:
//! - Window `W = min(⌊cwnd⌋, max_window)` (0 = no cap); segments are sent while
//!   `snd_nxt < snd_una + W` and data remains. `cwnd` starts at `initial_window`, `ssthresh` at
//!   `initial_ssthresh` (0 = unlimited). `cwnd` itself is not capped by `max_window` (as in ns-2).
//! - New ACK outside recovery: slow start `cwnd += 1` while `cwnd < ssthresh`, else
//!   `cwnd += 1/cwnd` (per ACK, not per segment acknowledged).
//! - `dupack_threshold` duplicate ACKs (same cumulative ACK, data outstanding), when
//!   `snd_una > recover` (the ACK covers more than the last recovery point; `>=` with SACK,
//!   RFC 6675 §5.1): fast retransmit of `snd_una`, `ssthresh = max(flight/2, 2)` with
//!   `flight = snd_nxt − snd_una`, `cwnd = ssthresh + dupack_threshold`, `recover = snd_max`;
//!   each further duplicate ACK inflates `cwnd` by 1.
//!   If `snd_una <= recover` (the duplicate ACKs belong to a window already reduced for), no
//!   second fast retransmit: ns-2's `bug_fix_` (RFC 6582 §4.1). Exception as in ns-2: if the
//!   last reduction was an ECN response, the segment is retransmitted and recovery entered
//!   without reducing again (under `tcp.model = "ns2"` with the window the ECN cut left, which
//!   that recovery also leaves with).
//! - Reno leaves recovery on the first new ACK with `cwnd = ssthresh`. NewReno leaves only on
//!   an ACK `>= recover` ("full ACK", `cwnd = ssthresh`, RFC 6582 option 2, as ns-2);
//!   a partial ACK retransmits the next hole, deflates `cwnd` by the amount acknowledged and
//!   adds one back (ns-2 `partial_window_deflation_ = 1`), and re-arms the timer only on the
//!   first partial ACK of a recovery (RFC 6582 "Impatient" variant, ns-2
//!   `newreno_changes1_ = 1`; both are ns-2's defaults since 2003).
//! - Timeout: `ssthresh = max(flight/2, 2)`, `cwnd = 1`, `recover = snd_max`, RTO backs off
//!   (doubles), and sending restarts from `snd_una` (go-back-N: `snd_nxt = snd_una`, ns-2
//!   `t_seqno_ = highest_ack_ + 1`). ACKs that cover segments already re-sent move `snd_nxt`
//!   forward. With `tcp.model = "ns2"`, a timeout whose previous congestion response was an
//!   ECN reduction only closes the window to one segment and keeps `ssthresh` (ns-2
//!   `timeout()`, `CWND_ACTION_ECN`); either way such timeouts are also counted in
//!   `timeouts_after_ecn`, since ns-2's `nrexmit_` leaves them out.
//! - One retransmission timer (`next_timer()`): armed when a segment is sent and none is
//!   pending, restarted on every new ACK while data is outstanding (cancelled otherwise), on a
//!   fast retransmit and on the first partial ACK.
//! - RTT: sampled on each ACK of new data from its `ts_echo` (ns-2 samples in `newack()`; with
//!   timestamps retransmissions need no Karn rule); the backoff resets on every ACK of new data.
//! - ECN (RFC 3168 §6.1.2): with `ecn`, data packets are ECT; under `tcp.model = "rfc"` a
//!   retransmission is not (RFC 3168 §6.1.5, as Linux and ns-3) unless the congestion control
//!   needs ECN (DCTCP, an `ect1` sender), while ns-2 marks resends ECT too but sends segment 0
//!   and its resends not ECN-capable (`behaviour.rs`).
//!   An ACK with ECE whose cumulative ACK is beyond `recover` (strictly: it acknowledges a
//!   segment sent after the last reduction, so the ECE echoes of the old window are ignored —
//!   ns-2's `seq > recover_`), and not in fast recovery, sets `ssthresh = max(⌊W⌋/2, 2)`,
//!   `cwnd = min(cwnd, max(⌊W⌋/2, 1))` (the window may fall to one segment),
//!   `recover = snd_max`, and the next data packet carries CWR, as does the first packet
//!   after a fast retransmit or a timeout (any window reduction, RFC 3168 §6.1.2; ns-2
//!   `cong_action_`, Linux). With `tcp.model = "ns2"` the halving is of ns-2's fractional
//!   `windowd()` (cwnd 3.9 keeps 1.95, not 1), and the first ECE after a timeout reduces
//!   whatever it acknowledges (ns-2 `ecn()` after `CWND_ACTION_TIMEOUT`). The window is not
//!   opened on any ACK carrying ECE (RFC 3168 §6.1.2, ns-2). An ECE when `W` is already one
//!   segment also holds new data until one current RTO has passed (`ecn_hold`; the retransmit
//!   timer is moved to the same instant), so flows sharing a small pipe can send less than one
//!   packet per RTT. As ns-2's `ecn_backoff_`: the second and later
//!   ECEs in a row at one segment double the RTO first (so the holds grow 1, 2, 4, … RTOs), and
//!   that backoff is not cleared by ACKs carrying ECE, only by one without it. With
//!   `tcp.model = "ns2"` "at one segment" for that backoff is ns-2's fractional `cwnd_ <= 1.0`
//!   (from `1 < cwnd < 2` the hold comes without it); otherwise the usable window `W`. Under
//!   `ns2` the hold is ns-2's retransmission timer: its end is a timeout when data is
//!   outstanding (resending `snd_una` once, not new data first), and otherwise sends one new
//!   segment with the last congestion response set to a timeout (ns-2 `timeout()` with nothing
//!   outstanding: no backoff, `ssthresh` kept).
//! - RTT label: `srtt` or `min_rtt` per `rtt_label`, `None` before the first RTT sample.
//! - Finite transfers: `start(now, Some(n))`; `is_complete()` once all `n` are acknowledged
//!   (`stats.completed_at`); `add_segments` appends more; `restart_slow_start` resets `cwnd`
//!   to `initial_window` and `ssthresh` to `initial_ssthresh` and leaves recovery (the RTT
//!   estimate is kept — a persistent connection restarting after idle, RFC 5681 §4.1; ns-2's
//!   web model instead takes a fresh agent per object, which also forgets the RTT estimate).
//!
//! Readings where sources differ (and why):
//! - Fast-retransmit gate `snd_una > recover` (RFC 6582 §3.2: the ACK "covers more than
//!   recover", the highest segment sent, `recover − 1` here; an ACK of `recover` is the full
//!   ACK of step 4, and its duplicates are the needless resends of §4), as ns-2's
//!   `highest_ack_ > recover_` and Linux; before any congestion response it is open (RFC 6582
//!   initialises recover to the ISN; ns-2 needed `bugfix_ss_` for it). SACK: RFC 6675's
//!   `snd_una >= recover`, since the scoreboard tells resent segments apart.
//! - `ssthresh` after a loss from the flight size (RFC 5681 eq. 4, as the brief says); ns-2 uses
//!   `window()` = `min(⌊cwnd⌋, wnd)`. They agree for a window-limited bulk sender.
//! - Leaving Reno recovery sets `cwnd = ssthresh` (RFC 5681 step 6); ns-2 also applies one
//!   `opencwnd()` on that ACK (a 1/cwnd difference).
//! - Not modelled: limited transmit (RFC 3042, ns-2 `singledup_`, whose default changed over
//!   ns-2's history), maxburst and D-SACK. ns-2 tests `cwnd_ <= 1.0` for its ECN backoff; we
//!   test the usable window `⌊cwnd⌋ <= 1`, because our window never falls below one segment
//!   (ns-2's falls to 0.5 and stalls until the timer: the same hold).
//!
//! Tahoe (`variant = "tahoe"`, ns-2's base `Agent/TCP`): the same fast-retransmit gate and
//! `ssthresh`, then `cwnd = 1` and a go-back-N restart from `snd_una` in slow start, with no
//! fast recovery; see `recovery/tahoe.rs`.
//!
//! SACK (`variant = "sack"`): RFC 6675's conservative loss recovery over RFC 2018 blocks; see
//! `recovery/sack.rs`.
//!
//! Layout: this module keeps what every variant shares ([`Conn`]: sequence space, window, timers,
//! ECN, counters) and the order of events on an ACK; `ecn.rs` holds the response to ECN-Echo,
//! `timer.rs` the retransmission timeout and the other timers, `tests.rs` the unit tests
//! against a scripted wire (`wire.rs`). The window arithmetic is a
//! congestion controller (`congestion/`, Reno-style AIMD), the loss recovery a variant of its
//! own (`recovery/{tahoe,reno,newreno,sack}.rs`); both are closed enums, so nothing is boxed. Where
//! ns-2 and the RFCs differ, the sender asks the bundle `tcp.model` selects (`behaviour.rs`).

use crate::net::packet::{Ecn, FlowId, Packet, PacketKind};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

use super::behaviour::Behaviour;
use super::congestion::{self, Ack, AckSeen, AnyController, Window};
use super::recovery::{AnyRecovery, Recovery};
use super::rtt::RttEstimator;
use super::trace::{TcpTrace, TraceEvent};
use super::{CongestionControl, EcnCodepoint, RttLabel, TcpConfig};

mod ecn;
mod timer;

/// Counters of one sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Data packets emitted, retransmissions included.
    pub segments_sent: u64,
    /// Data packets emitted with a sequence number sent before (fast, partial-ACK, go-back-N).
    pub retransmits: u64,
    /// Retransmission-timer expiries with data outstanding.
    pub timeouts: u64,
    /// Of `timeouts`, those whose previous congestion response was an ECN reduction (the ones
    /// ns-2's `nrexmit_` leaves out).
    pub timeouts_after_ecn: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// NewReno and SACK partial ACKs (ACKs of new data below `recover` in recovery).
    pub partial_acks: u64,
    /// Window reductions in response to ECE.
    pub ecn_reductions: u64,
    /// Valid ACKs received (new and duplicate).
    pub acks_received: u64,
    /// Duplicate ACKs received.
    pub dup_acks: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// When the current finite transfer was fully acknowledged (None while incomplete or bulk).
    pub completed_at: Option<SimTime>,
    /// How many finite transfers (start + each `add_segments`) completed.
    pub completions: u64,
}

/// The last congestion response of a sender (ns-2's `last_cwnd_action_`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Response {
    None,
    Ecn,
    FastRetransmit,
    Timeout,
}

/// A Tahoe, Reno, NewReno or SACK sender.
pub struct Sender {
    conn: Conn,
    cc: AnyController,
    recovery: AnyRecovery,
}

/// The state every congestion controller and recovery variant shares.
pub(super) struct Conn {
    // ** Configured
    pub(super) flow: FlowId,
    pub(super) mss: u32,
    pub(super) max_window: u32,
    pub(super) initial_window: u32,
    /// `u64::MAX` = unlimited.
    pub(super) initial_ssthresh: u64,
    pub(super) dupack_threshold: u32,
    /// Whether repeated ECEs at one segment back the timer off (`TcpConfig::ecn_backoff`).
    pub(super) ecn_backoff_enabled: bool,
    pub(super) ecn: bool,
    /// The codepoint of data packets when `ecn`.
    pub(super) ect: Ecn,
    /// The codepoint of retransmitted data packets when `ecn`: `NotEct` under
    /// `Behaviour::retransmission_not_ect` unless the congestion control needs ECN (DCTCP, an
    /// `ect1` sender), else `ect`.
    pub(super) ect_resent: Ecn,
    pub(super) rtt_label: RttLabel,
    // ** Maintained
    pub(super) started: bool,
    /// The application stopped offering data (`stop_new_data`): no completion is recorded.
    pub(super) stopped: bool,
    /// Segments to send in total (`u64::MAX` = unlimited bulk).
    pub(super) limit: u64,
    pub(super) snd_una: u64,
    pub(super) snd_nxt: u64,
    pub(super) snd_max: u64,
    pub(super) win: Window,
    pub(super) dupacks: u32,
    pub(super) in_recovery: bool,
    /// `snd_max` at the last congestion response (ns-2 `recover_`, exclusive bound here).
    pub(super) recover: u64,
    /// The last congestion response (ns-2 `last_cwnd_action_`).
    pub(super) last_response: Response,
    /// The next data packet carries CWR.
    pub(super) cwr_pending: bool,
    pub(super) rtt: RttEstimator,
    pub(super) rto_deadline: Option<SimTime>,
    /// RFC 3168 §6.1.2: an ECN-Echo arrived while the window was already one segment, so no new
    /// data goes out until this instant (the retransmit timer "reset" on that ECE).
    pub(super) ecn_hold: Option<SimTime>,
    /// ns-2 `ecn_backoff_`: the last ECN response found the window at one segment already.
    pub(super) ecn_backoff: bool,
    pub(super) stats: SenderStats,
    /// ns-2's agents or the RFCs where they differ: the bundle `TcpConfig::model` selects.
    pub(super) behave: Behaviour,
    /// ns-2's `cwnd_` during fast recovery (`fractional_recovery_window`): half the window at the loss,
    /// fractional, deflated by NewReno partial ACKs beyond `dupwnd`.
    pub(super) recovery_cwnd: f64,
    /// ns-2's `dupwnd_`: the inflation of a Reno/NewReno window in recovery, in segments.
    pub(super) dupwnd: u64,
    /// `TcpConfig::overhead` (0 = sends are not delayed).
    overhead: SimDuration,
    /// The flow's own random stream for the send delays (`with_rng`).
    jitter: Option<SimRng>,
    /// A delayed send is due then (ns-2's `delsnd_timer_`).
    send_due: Option<SimTime>,
    /// Sending from the delayed-send timer: nothing is delayed again (ns-2 `force`).
    forcing: bool,
    /// Per-event trace of this sender (`enable_trace`), None when off.
    trace: Option<Box<TcpTrace>>,
}

impl Sender {
    pub fn new(flow: FlowId, cfg: &TcpConfig) -> Sender {
        let initial_ssthresh = if cfg.initial_ssthresh == 0 {
            u64::MAX
        } else {
            cfg.initial_ssthresh as u64
        };
        let behave = Behaviour::of(cfg.model);
        let ect = match cfg.ecn_codepoint {
            EcnCodepoint::Ect0 => Ecn::Ect,
            EcnCodepoint::Ect1 => Ecn::Ect1,
        };
        // Linux `tcp_ca_needs_ecn()`, ns-3 `DctcpEcn`: these keep ECT on resends.
        let cc_needs_ecn = cfg.cc == CongestionControl::Dctcp || ect == Ecn::Ect1;
        let conn = Conn {
            flow,
            mss: cfg.mss,
            max_window: cfg.max_window,
            initial_window: cfg.initial_window,
            initial_ssthresh,
            dupack_threshold: cfg.dupack_threshold.max(1),
            ecn_backoff_enabled: cfg.ecn_backoff,
            ecn: cfg.ecn,
            ect,
            ect_resent: if behave.retransmission_not_ect && !cc_needs_ecn {
                Ecn::NotEct
            } else {
                ect
            },
            rtt_label: cfg.rtt_label,
            started: false,
            stopped: false,
            limit: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            win: Window {
                cwnd: cfg.initial_window.max(1) as f64,
                ssthresh: initial_ssthresh,
            },
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            last_response: Response::None,
            cwr_pending: false,
            rtt: if behave.ns2_rtt_arithmetic {
                RttEstimator::ns2(
                    cfg.min_rto,
                    cfg.max_rto,
                    cfg.initial_rto,
                    cfg.clock_granularity,
                )
            } else {
                RttEstimator::new(
                    cfg.min_rto,
                    cfg.max_rto,
                    cfg.initial_rto,
                    cfg.clock_granularity,
                )
            },
            rto_deadline: None,
            ecn_hold: None,
            ecn_backoff: false,
            stats: SenderStats::default(),
            behave,
            recovery_cwnd: 0.0,
            dupwnd: 0,
            overhead: cfg.overhead,
            jitter: None,
            send_due: None,
            forcing: false,
            trace: None,
        };
        Sender {
            conn,
            cc: AnyController::new(cfg.cc, cfg.cubic_friendly),
            recovery: AnyRecovery::new(cfg.variant),
        }
    }

    /// Gives the sender its own random stream, for the send delays of `TcpConfig::overhead`.
    pub fn with_rng(mut self, rng: SimRng) -> Sender {
        self.conn.jitter = Some(rng);
        self
    }

    /// Records one row per ACK and timeout from now on (`take_trace`).
    pub fn enable_trace(&mut self) {
        self.conn.trace = Some(Box::default());
    }

    /// The trace recorded so far (None unless `enable_trace`).
    pub fn take_trace(&mut self) -> Option<TcpTrace> {
        self.conn.trace.take().map(|b| *b)
    }

    fn record(&mut self, now: SimTime, event: TraceEvent) {
        let c = &mut self.conn;
        if let Some(t) = c.trace.as_mut() {
            t.push(
                now,
                event,
                c.win.cwnd,
                c.win.ssthresh,
                &c.rtt,
                &c.stats,
                c.snd_una,
                c.in_recovery,
            );
        }
    }

    /// Starts sending: `Some(n)` segments in total, or `None` for an unlimited (bulk) transfer.
    pub fn start<F: FnMut(Packet) + ?Sized>(
        &mut self,
        now: SimTime,
        segments: Option<u64>,
        emit: &mut F,
    ) {
        self.conn.started = true;
        self.conn.limit = segments.unwrap_or(u64::MAX);
        self.conn.stats.completed_at = None;
        self.conn.check_complete(now);
        self.send_much(now, emit);
    }

    /// Appends `n` segments to the transfer (web-like repeated fetches). Starts the sender if
    /// it was not started. Clears `completed_at` until the new data is acknowledged.
    pub fn add_segments<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, n: u64, emit: &mut F) {
        let c = &mut self.conn;
        if !c.started {
            c.started = true;
            c.limit = 0;
        }
        c.stopped = false;
        if n == 0 {
            return;
        }
        c.limit = c.limit.saturating_add(n);
        c.stats.completed_at = None;
        self.send_much(now, emit);
    }

    /// The application stops offering data: nothing beyond what was already sent goes out
    /// (outstanding data is still retransmitted as needed). Not recorded as a completion.
    pub fn stop_new_data(&mut self) {
        self.conn.stopped = true;
        self.conn.limit = self.conn.snd_max.max(self.conn.snd_una);
    }

    /// The application offers unlimited data again after `stop_new_data`.
    pub fn resume_unlimited<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        self.conn.started = true;
        self.conn.stopped = false;
        self.conn.limit = u64::MAX;
        self.send_much(now, emit);
    }

    /// Whether `stop_new_data` is in force.
    pub fn is_stopped(&self) -> bool {
        self.conn.stopped
    }

    /// Back to slow start: `cwnd = initial_window`, `ssthresh = initial_ssthresh`, out of
    /// recovery. Call between fetches (before `add_segments`), when nothing is outstanding.
    pub fn restart_slow_start(&mut self) {
        let c = &mut self.conn;
        c.win.cwnd = c.initial_window.max(1) as f64;
        c.win.ssthresh = c.initial_ssthresh;
        c.dupacks = 0;
        c.in_recovery = false;
        c.last_response = Response::None;
    }

    /// Processes an ACK. Old ACKs (below `snd_una`) and ACKs of data never sent are ignored.
    pub fn on_ack<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, pkt: &Packet, emit: &mut F) {
        let c = &mut self.conn;
        if !c.started || pkt.kind != PacketKind::Ack {
            return;
        }
        let ack = pkt.ack;
        if ack < c.snd_una || ack > c.snd_max {
            return;
        }
        c.stats.acks_received += 1;
        self.cc.inner_mut().on_ack_seen(&AckSeen {
            now,
            newly_acked: ack - c.snd_una,
            ece: c.ecn && pkt.ece,
            snd_una: ack,
            snd_nxt: c.snd_nxt.max(ack),
        });
        self.recovery.on_ack_received(c, pkt);

        let reduced = self.respond_to_ece(now, pkt);
        let c = &self.conn;
        if ack > c.snd_una {
            self.on_new_ack(now, pkt, reduced, emit);
            if self.conn.trace.is_some() {
                self.record(now, TraceEvent::Ack);
            }
        } else if c.snd_una < c.snd_max {
            self.on_dup_ack(now, emit);
            if self.conn.trace.is_some() {
                self.record(now, TraceEvent::DupAck);
            }
        }
    }

    fn on_new_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        reduced: bool,
        emit: &mut F,
    ) {
        let c = &mut self.conn;
        let ack = pkt.ack;
        let newly = ack - c.snd_una;
        self.recovery.on_cumulative_ack(c, newly);
        c.snd_una = ack;
        if c.snd_nxt < ack {
            c.snd_nxt = ack;
        }
        // ns-2 takes no sample from a partial ACK (NewReno `partialnewack`, Sack1): it does
        // not go through `newack()`. Reno leaves recovery on it, so it is a new ACK there.
        let partial =
            c.in_recovery && ack < c.recover && !matches!(self.recovery, AnyRecovery::Reno(_));
        if !(c.behave.no_rtt_sample_on_partial_ack && partial) {
            c.rtt.sample(now.since(pkt.ts_echo));
            c.stats.rtt_samples += 1;
        }
        // ns-2 `newack()`: the backoff ends on new data, except while ECN-Echo keeps arriving at
        // a window of one segment; an ACK without ECE ends that state (`recv_newack_helper`).
        if !(c.ecn_backoff && pkt.ece) {
            c.rtt.reset_backoff();
        }
        if !pkt.ece {
            c.ecn_backoff = false;
        }

        if c.in_recovery {
            if ack < c.recover && self.recovery.on_partial_ack(c, now, newly, emit) {
                return;
            }
            // Reno: any new ACK; NewReno and SACK: a full ACK (RFC 5681 §3.2 step 6).
            c.in_recovery = false;
            c.dupacks = 0;
            c.dupwnd = 0;
            c.win.cwnd = match (c.behave.fractional_recovery_window, &self.recovery) {
                (false, _) => c.win.ssthresh as f64,
                // ns-2 Sack1 leaves through `newack()` alone: cwnd_ stays W/2.
                (true, AnyRecovery::Sack(_)) => c.recovery_cwnd,
                // ns-2 Reno/Newreno: dupwnd_ = 0, then `opencwnd()` on this ACK.
                (true, _) => {
                    let mut w = Window {
                        cwnd: c.recovery_cwnd.max(1.0),
                        ssthresh: c.win.ssthresh,
                    };
                    let info = Ack {
                        now,
                        newly_acked: newly,
                        ece: pkt.ece,
                        min_rtt: c.rtt.min_rtt(),
                    };
                    self.cc.inner_mut().on_ack(&mut w, &info);
                    w.cwnd
                }
            };
            if c.behave.sack.forget_recover_on_exit && matches!(self.recovery, AnyRecovery::Sack(_))
            {
                // ns-2 Sack1 forgets the recovery point on leaving (`recover_ = 0`): the next
                // duplicate ACKs or ECN-Echo are a new signal whatever they acknowledge.
                c.recover = 0;
            }
        } else {
            c.dupacks = 0;
            // RFC 3168 §6.1.2: "SHOULD NOT increase the congestion window in response to the
            // receipt of an ECN-Echo ACK" (ns-2 opens cwnd only on ACKs without ECN-Echo).
            if !reduced && (!c.ecn || !pkt.ece) {
                let info = Ack {
                    now,
                    newly_acked: newly,
                    ece: pkt.ece,
                    min_rtt: c.rtt.min_rtt(),
                };
                self.cc.inner_mut().on_ack(&mut c.win, &info);
            }
        }

        c.check_complete(now);
        if c.snd_una < c.snd_max {
            c.arm_timer(now);
        } else {
            c.rto_deadline = None;
        }
        self.send_much(now, emit);
    }

    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        let c = &mut self.conn;
        c.stats.dup_acks += 1;
        c.dupacks = c.dupacks.saturating_add(1);
        if c.in_recovery {
            self.recovery.on_dup_ack(c, now, emit);
        } else if self.recovery.loss_detected(c) {
            // A new loss, not one of a window already responded to: RFC 6582 `snd_una >
            // recover` (RFC 6675 `>=` with SACK, see `past_recovery_point`), or ns-2's
            // `highest_ack_ > recover_` with its exception for a loss of the first segment
            // after the first (`bugfix_ss_`). Either keeps the duplicate ACKs of a go-back-N
            // resend from starting a recovery.
            let new_loss = if c.behave.strict_recover_gate {
                c.snd_una > c.recover || c.snd_una == 1
            } else {
                self.recovery.past_recovery_point(c)
            };
            if new_loss {
                // RFC 5681 §3.2 steps 2-3: ssthresh from the flight size; ns-2 `slowdown`
                // (precisionReduce_): from the window, cwnd_ = W/2 kept fractional (W·β_cubic
                // for CUBIC: the controller's decrease, under either model).
                let basis = if c.behave.loss_basis_is_window {
                    congestion::usable_window(c.win.cwnd, c.max_window)
                } else {
                    c.snd_nxt - c.snd_una
                };
                c.recovery_cwnd = c.capped_cwnd() * self.cc.inner().decrease_factor();
                self.cc.inner_mut().on_loss(&mut c.win, basis);
                c.recover = c.snd_max;
                self.enter_recovery(now, emit);
            } else if c.last_response == Response::Ecn {
                // Already reduced for this window by ECN: retransmit, no second reduction.
                // ns-2's `dupack_action` keeps `cwnd_` as the ECN cut left it, so that is the
                // window through this recovery and the one it leaves with.
                c.recovery_cwnd = c.capped_cwnd();
                self.enter_recovery(now, emit);
            }
            // Otherwise: duplicate ACKs from a window already responded to (ns-2 bug_fix_).
        }
    }

    fn enter_recovery<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        let c = &mut self.conn;
        c.in_recovery = true;
        c.last_response = Response::FastRetransmit;
        // RFC 3168 §6.1.2: CWR on the first packet after any window reduction, the fast
        // retransmission included (ns-2 `slowdown` sets `cong_action_`, sent on retransmissions
        // too with `SetCWRonRetransmit_`, its default; Linux `tcp_ecn_queue_cwr`). Otherwise the
        // receiver goes on echoing an old mark and the sender cuts again one window later.
        c.cwr_pending = c.ecn;
        c.stats.fast_retransmits += 1;
        c.arm_timer(now);
        self.recovery.enter(c, now, emit);
    }

    pub fn stats(&self) -> &SenderStats {
        &self.conn.stats
    }

    /// True when a finite transfer has been fully acknowledged (never for bulk transfers).
    pub fn is_complete(&self) -> bool {
        let c = &self.conn;
        c.started && c.limit != u64::MAX && c.snd_una >= c.limit
    }

    /// Reports `cwnd` and `ssthresh` (segments; `ssthresh` 0 while unlimited, ns-2's
    /// convention), `srtt_ms` and `rto_ms` (0 before the first RTT sample / the current timeout
    /// with backoff), and `flight` (segments sent and not acknowledged).
    pub fn probe(&self, f: &mut dyn FnMut(&'static str, f64)) {
        let c = &self.conn;
        f("cwnd", c.win.cwnd);
        f(
            "ssthresh",
            if c.win.ssthresh == u64::MAX {
                0.0
            } else {
                c.win.ssthresh as f64
            },
        );
        f(
            "srtt_ms",
            c.rtt.srtt().map_or(0.0, SimDuration::as_millis_f64),
        );
        f("rto_ms", c.rtt.rto().as_millis_f64());
        f("flight", (c.snd_max - c.snd_una) as f64);
        self.cc.probe(f);
    }

    pub fn cwnd(&self) -> f64 {
        self.conn.win.cwnd
    }
    /// None while unlimited.
    pub fn ssthresh(&self) -> Option<u64> {
        let s = self.conn.win.ssthresh;
        (s != u64::MAX).then_some(s)
    }
    pub fn snd_una(&self) -> u64 {
        self.conn.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.conn.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.conn.snd_max
    }
    pub fn in_recovery(&self) -> bool {
        self.conn.in_recovery
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.conn.rtt
    }
    pub fn flow(&self) -> FlowId {
        self.conn.flow
    }

    /// RFC 6675 `pipe` of a SACK sender (None for the other variants).
    #[cfg(test)]
    fn sack_pipe(&self) -> Option<i64> {
        match &self.recovery {
            AnyRecovery::Sack(s) => Some(s.current_pipe(&self.conn)),
            _ => None,
        }
    }

    /// Sends what the window allows; resending after a timeout skips what the receiver has
    /// SACKed.
    fn send_much<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        let recovery = &self.recovery;
        self.conn
            .send_much(now, &|una, seq| recovery.is_sacked(una, seq), emit);
    }
}

impl Conn {
    fn check_complete(&mut self, now: SimTime) {
        if !self.stopped
            && self.limit != u64::MAX
            && self.snd_una >= self.limit
            && self.stats.completed_at.is_none()
        {
            self.stats.completed_at = Some(now);
            self.stats.completions += 1;
        }
    }

    /// `min(cwnd, max_window)`, fractional (ns-2 `windowd()` outside recovery).
    pub(super) fn capped_cwnd(&self) -> f64 {
        if self.max_window == 0 {
            self.win.cwnd
        } else {
            self.win.cwnd.min(self.max_window as f64)
        }
    }

    pub(super) fn arm_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Sends new (or, after a timeout, resent) segments up to `snd_una + W`, skipping those
    /// `sacked(snd_una, seq)` says the receiver holds.
    pub(super) fn send_much<S, F>(&mut self, now: SimTime, sacked: &S, emit: &mut F)
    where
        S: Fn(u64, u64) -> bool + ?Sized,
        F: FnMut(Packet) + ?Sized,
    {
        if !self.started || self.ecn_hold.is_some() {
            return;
        }
        let win = congestion::usable_window(self.win.cwnd, self.max_window);
        let end = self.snd_una.saturating_add(win).min(self.limit);
        if self.overhead.0 > 0 && !self.forcing && self.snd_nxt < end {
            // ns-2 `overhead_`: wait a uniform random time before sending (one pending delay
            // at a time; the delayed send then sends all the window allows).
            if self.send_due.is_none() {
                let u = self.jitter.as_mut().map_or(0.5, SimRng::uniform);
                let wait = (self.overhead.0 as f64 * u) as u64;
                self.send_due = Some(now + SimDuration(wait));
            }
            return;
        }
        while self.snd_nxt < end {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            if !sacked(self.snd_una, seq) {
                self.transmit(now, seq, emit);
            }
        }
    }

    fn rtt_label(&self) -> Option<SimDuration> {
        match self.rtt_label {
            RttLabel::None => None,
            RttLabel::Srtt => self.rtt.srtt(),
            RttLabel::Min => self.rtt.min_rtt(),
        }
    }

    /// Emits segment `seq` (new or retransmitted) and arms the timer if none is pending.
    pub(super) fn transmit<F: FnMut(Packet) + ?Sized>(
        &mut self,
        now: SimTime,
        seq: u64,
        emit: &mut F,
    ) {
        self.stats.segments_sent += 1;
        let resent = seq < self.snd_max;
        if resent {
            self.stats.retransmits += 1;
        } else {
            self.snd_max = seq + 1;
        }
        let ect = if seq == 0 && self.behave.first_segment_not_ect {
            Ecn::NotEct
        } else if resent {
            self.ect_resent
        } else {
            self.ect
        };
        let cwr = std::mem::take(&mut self.cwr_pending);
        let pkt = Packet {
            flow: self.flow,
            kind: PacketKind::Data,
            seq,
            size_bytes: self.mss,
            ecn: if self.ecn { ect } else { Ecn::NotEct },
            cwr,
            ts: now,
            created: now,
            rtt_label: self.rtt_label().unwrap_or(SimDuration::ZERO),
            ..Packet::default()
        };
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
        emit(pkt);
    }
}

#[cfg(test)]
mod tests;
