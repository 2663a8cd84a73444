//! Tahoe (ns-2.35's base `Agent/TCP`, `tcp.cc`; RFC 5681 §3.2 without fast recovery): on the
//! `dupack_threshold`-th duplicate ACK the sender resends the lost segment and slow-starts again
//! from a window of one segment. There is no fast recovery and no window inflation.
//!
//! ns-2 `TcpAgent::recv()` calls `dupack_action()` once per loss, when `++dupacks_ ==
//! numdupacks_`. Its `tahoe_action` path does the following:
//! - `recover_ = maxseq_`.
//! - `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_ONE)`: `ssthresh = max(⌊W/2⌋, 2)` and
//!   `cwnd = 1`. `W` is `windowd()` with `precisionReduce_`; here it is the sender's usual
//!   loss basis, which the congestion controller halves.
//! - `reset_rtx_timer(0, 0)`: it restarts the timer without a backoff and sets
//!   `t_seqno_ = highest_ack_ + 1`. That is a go-back-N restart from the hole, the same as the
//!   one after a timeout.
//!
//! The `send_much()` at the end of `recv()` then sends the lost segment (the window is one
//! segment). Each later ACK opens the window in slow start. Segments the receiver already holds
//! are skipped as the cumulative ACK passes them (`newack()`: `t_seqno_ = last_ack_ + 1`), and
//! the ones it does not hold go out again.
//!
//! Duplicate ACKs that come back from those resends, or from the rest of the window that was
//! lost, do not cut the window again. Their cumulative ACK is at or below `recover`, so the
//! sender's gate (`highest_ack_ > recover_`, ns-2's `bug_fix_`) stops them. A window with
//! several losses is therefore repaired by one cut and slow start, with no timeout. The
//! sender's gate also covers the ECN exception (`last_cwnd_action_ == CWND_ACTION_ECN`): ns-2
//! then closes the window to one segment and restarts as here, without a second cut of
//! `ssthresh`.
//!
//! The sender never marks a Tahoe connection as being in recovery. Each ACK of new data is an
//! ordinary ACK: it gives an RTT sample and opens `cwnd`.
//!
//! Not modelled: ns-2's limited transmit (`singledup_`), as for the other variants.

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::sender::Conn;
use super::Recovery;

#[derive(Copy, Clone, Debug, Default)]
pub struct Tahoe;

impl Recovery for Tahoe {
    /// ns-2 `tahoe_action` after `slowdown`: `cwnd = 1`, go back to `snd_una`, send.
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        conn.in_recovery = false;
        conn.win.cwnd = 1.0;
        conn.snd_nxt = conn.snd_una;
        conn.send_much(now, &|_, _| false, emit);
    }

    /// Never called: a Tahoe sender is never in recovery. Later duplicate ACKs do nothing in
    /// ns-2 either (`++dupacks_ == numdupacks_` holds once).
    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        _conn: &mut Conn,
        _now: SimTime,
        _emit: &mut F,
    ) {
    }
}
