//! Reno fast recovery (RFC 5681 §3.2; ns-2 `Agent/TCP/Reno`): on the `dupack_threshold`-th
//! duplicate ACK retransmit `snd_una` and set `cwnd = ssthresh + dupack_threshold`; each further
//! duplicate ACK inflates `cwnd` by one segment (step 4); the first new ACK leaves recovery with
//! `cwnd = ssthresh` (step 6, done by the sender).
//!
//! With `tcp.model = "ns2"` the window is ns-2's `int(cwnd_) + dupwnd_`: `cwnd_` = W/2
//! (fractional, `Conn::recovery_cwnd`), `dupwnd_` = the duplicate ACKs (`Conn::dupwnd`); the
//! sender leaves recovery with `cwnd = cwnd_` opened once (`opencwnd()` on that ACK).

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::sender::Conn;
use super::Recovery;

#[derive(Copy, Clone, Debug, Default)]
pub struct Reno;

impl Recovery for Reno {
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        enter_inflated(conn, now, emit);
    }

    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        emit: &mut F,
    ) {
        inflate(conn, now, emit);
    }
}

/// RFC 5681 §3.2 steps 2-3 after `ssthresh` is set: `cwnd = ssthresh + dupack_threshold` (the
/// segments that left the network), retransmit `snd_una`, send what the window allows.
pub(super) fn enter_inflated<F: FnMut(Packet) + ?Sized>(
    conn: &mut Conn,
    now: SimTime,
    emit: &mut F,
) {
    conn.dupwnd = conn.dupack_threshold as u64;
    conn.win.cwnd = if conn.behave.fractional_recovery_window {
        conn.recovery_cwnd.floor() + conn.dupwnd as f64
    } else {
        (conn.win.ssthresh + conn.dupwnd) as f64
    };
    let seq = conn.snd_una;
    conn.transmit(now, seq, emit);
    conn.send_much(now, &|_, _| false, emit);
}

/// RFC 5681 §3.2 step 4: each duplicate ACK beyond the threshold inflates `cwnd` by one.
pub(super) fn inflate<F: FnMut(Packet) + ?Sized>(conn: &mut Conn, now: SimTime, emit: &mut F) {
    if conn.dupacks > conn.dupack_threshold {
        conn.win.cwnd += 1.0;
        conn.dupwnd += 1;
        conn.send_much(now, &|_, _| false, emit);
    }
}
