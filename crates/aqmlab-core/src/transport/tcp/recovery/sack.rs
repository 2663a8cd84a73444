//! SACK loss recovery: RFC 6675's conservative recovery over RFC 2018 blocks (pipe-based, like
//! ns-2's `Agent/TCP/Sack1` and ns-3's default `TcpSocketBase`).
//!
//! - A scoreboard of SACKed segments from `snd_una` (a ring of flags, empty without loss).
//!   A segment is lost (`IsLost`) when `dupack_threshold` SACKed segments lie above it.
//! - Recovery starts on the `dupack_threshold`-th duplicate ACK or as soon as `snd_una` is lost
//!   (§5 step 4), under the sender's `snd_una >= recover` gate: `cwnd = ssthresh` (no
//!   inflation), and `snd_una` is retransmitted.
//! - In recovery each ACK recomputes `pipe` (§4: unSACKed segments not lost, plus those
//!   retransmitted, i.e. below `HighRxt`) and sends while `cwnd − pipe ≥ 1`: first the lowest lost
//!   segment above `HighRxt` (NextSeg rule 1), else new data (rule 2). Rules 3 and 4 (rescue
//!   retransmissions) are left out. Recovery ends on an ACK `>= recover`, with `cwnd = ssthresh`.
//! - With `tcp.model = "ns2"` (the default) a hole is lost as soon as any segment above it is
//!   SACKed (ns-2 `Sack1`'s scoreboard), for `NextSeg` and `pipe` alike; `rfc` keeps `IsLost`.
//! - After a timeout the scoreboard is kept (§5.1 allows it; our receiver never reneges) and
//!   go-back-N resending skips SACKed segments; `HighRxt` is reset.
//! - With `tcp.model = "ns2"` the rest of ns-2 `Sack1` as well (`tcp-sack1.cc`): recovery starts
//!   on the `dupack_threshold`-th duplicate ACK only (no early entry on `IsLost(snd_una)`); a new
//!   ACK outside recovery clears the scoreboard (the duplicate ACKs that follow rebuild it); a
//!   timeout clears the scoreboard, so go-back-N resends SACKed segments too; and leaving
//!   recovery forgets `recover` (`recover_ = 0`), so the next duplicate ACKs or ECN-Echo are a
//!   new congestion signal whatever they acknowledge.
//! - With `tcp.model = "ns2"`, `pipe` is ns-2's counter `pipe_`, not `SetPipe`: on entry the
//!   segments outstanding less `dupack_threshold`, then one less for every ACK in recovery, a
//!   second one less for a partial ACK (`partial_ack_ = 0`), one more for every segment sent.
//!   A lost segment leaves it only through those ACKs, so a window that lost most of its
//!   segments may send nothing after its fast retransmission and wait for the timer, where
//!   `SetPipe` counts the lost segments out at once and repairs them all within a round trip
//!   (traced on the ECN RED dumbbell: flow 0 in ns-2 at 36.0 s, seven of a window's last
//!   eleven segments lost, one partial ACK, then the timeout). The window through recovery is
//!   ns-2's `cwnd_`: the response's fractional `W/2` (or what an ECN cut left), at least one.
//! - Under both models every partial ACK restarts the timer (RFC 6298 rule 5.3). ns-2's Sack1
//!   does too with its default `partial_ack_ = 0` (`newtimer` on each partial ACK); its
//!   `firstpartial_` rule belongs to `partial_ack_ = 1`. Traced on one 460 ms flow whose slow
//!   start overflows its access link (1,578 holes): ns-2 repairs them over six seconds of one
//!   recovery without a timeout.

use std::collections::VecDeque;

use crate::net::packet::Packet;
use crate::time::SimTime;

use super::super::sender::Conn;
use super::Recovery;

#[derive(Clone, Debug, Default)]
pub struct Sack {
    board: Scoreboard,
    /// One past the highest segment retransmitted in this recovery (RFC 6675 `HighRxt` + 1).
    high_rxt: u64,
    /// ns-2's `pipe_` counter (`SackBehaviour::pipe_counts_acks`), valid in recovery; ACKs
    /// may take it below zero.
    counted_pipe: i64,
}

/// Which segments from `snd_una` on the receiver has SACKed.
#[derive(Clone, Debug, Default)]
struct Scoreboard {
    /// `sacked[i]` for segment `snd_una + i`. Empty, or ends with `true`.
    sacked: VecDeque<bool>,
    /// `true` entries in `sacked`.
    count: u64,
}

impl Scoreboard {
    fn clear(&mut self) {
        self.sacked.clear();
        self.count = 0;
    }

    /// Marks the ACK's SACK blocks (clipped to `[snd_una, snd_max)`).
    fn record(&mut self, pkt: &Packet, snd_una: u64, snd_max: u64) {
        for (start, end) in pkt.sack.iter(pkt.ack) {
            let lo = start.max(snd_una);
            let hi = end.min(snd_max);
            if lo >= hi {
                continue;
            }
            let need = (hi - snd_una) as usize;
            if self.sacked.len() < need {
                self.sacked.resize(need, false);
            }
            for i in (lo - snd_una) as usize..need {
                if !self.sacked[i] {
                    self.sacked[i] = true;
                    self.count += 1;
                }
            }
        }
    }

    /// Drops the entries of the `n` segments just acknowledged cumulatively.
    fn pop(&mut self, n: u64) {
        if self.sacked.is_empty() {
            return;
        }
        let n = (n as usize).min(self.sacked.len());
        let gone = self.sacked.drain(..n).filter(|&b| b).count() as u64;
        self.count -= gone;
        if self.count == 0 {
            self.sacked.clear();
        }
    }

    fn is_sacked(&self, snd_una: u64, seq: u64) -> bool {
        seq >= snd_una
            && self
                .sacked
                .get((seq - snd_una) as usize)
                .copied()
                .unwrap_or(false)
    }

    /// Every unSACKed segment below the returned one is lost (RFC 6675 `IsLost`): it is the
    /// `threshold`-th highest SACKed segment (`snd_una` when fewer are SACKed).
    fn lost_limit(&self, snd_una: u64, threshold: u32) -> u64 {
        let mut above = 0;
        for (i, &b) in self.sacked.iter().enumerate().rev() {
            if b {
                above += 1;
                if above == threshold {
                    return snd_una + i as u64;
                }
            }
        }
        snd_una
    }
}

/// SACKed segments above a hole that make it lost: RFC 6675's `DupThresh`, or 1 with
/// `tcp.model = "ns2"`: ns-2's scoreboard (`ScoreBoard::GetNextRetran`) retransmits every
/// unSACKed segment below the highest SACKed one, and so does not leave the last holes of a
/// window to the retransmission timer as RFC 6675 without its rescue rule does (tracing both on
/// the demo dumbbell: 56 % more timeouts with `DupThresh`, within the seed spread with 1).
fn lost_threshold(conn: &Conn) -> u32 {
    if conn.behave.sack.lost_after_one_sacked {
        1
    } else {
        conn.dupack_threshold
    }
}

impl Sack {
    /// `pipe` now (tests check it never exceeds `cwnd` after a send).
    #[cfg(test)]
    pub(in super::super) fn current_pipe(&self, conn: &Conn) -> i64 {
        if conn.behave.sack.pipe_counts_acks {
            return self.counted_pipe;
        }
        self.pipe(
            conn,
            self.board.lost_limit(conn.snd_una, lost_threshold(conn)),
        ) as i64
    }

    /// RFC 6675 §4 `SetPipe`: segments in `[snd_una, snd_max)` that are not SACKed count once
    /// if not lost and once more if retransmitted in this recovery (below `HighRxt`).
    fn pipe(&self, conn: &Conn, lost_limit: u64) -> u64 {
        let mut pipe = 0;
        for seq in conn.snd_una..conn.snd_max {
            if self.board.is_sacked(conn.snd_una, seq) {
                continue;
            }
            pipe += u64::from(seq >= lost_limit) + u64::from(seq < self.high_rxt);
        }
        pipe
    }

    /// RFC 6675 §5 step (C): while `cwnd − pipe ≥ 1`, send `NextSeg()`: the lowest lost
    /// segment not yet retransmitted (rule 1), else new data within the receiver window (rule 2).
    /// `pipe` is `SetPipe` from the scoreboard, or ns-2's counter, which each send raises.
    fn send<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        let lost_limit = self.board.lost_limit(conn.snd_una, lost_threshold(conn));
        let counted = conn.behave.sack.pipe_counts_acks;
        let mut pipe = if counted {
            self.counted_pipe
        } else {
            self.pipe(conn, lost_limit) as i64
        };
        let cwnd = conn.win.cwnd.floor() as i64;
        let rwnd_end = if conn.max_window == 0 {
            u64::MAX
        } else {
            conn.snd_una + conn.max_window as u64
        };
        while pipe < cwnd {
            let mut seq = self.high_rxt.max(conn.snd_una);
            while seq < lost_limit && self.board.is_sacked(conn.snd_una, seq) {
                seq += 1;
            }
            if seq < lost_limit {
                self.high_rxt = seq + 1;
                conn.transmit(now, seq, emit);
            } else if conn.snd_nxt < conn.limit && conn.snd_nxt < rwnd_end {
                let seq = conn.snd_nxt;
                conn.snd_nxt += 1;
                conn.transmit(now, seq, emit);
            } else {
                break;
            }
            pipe += 1;
        }
        if counted {
            self.counted_pipe = pipe;
        }
    }
}

impl Recovery for Sack {
    fn on_ack_received(&mut self, conn: &Conn, pkt: &Packet) {
        self.board.record(pkt, conn.snd_una, conn.snd_max);
        if conn.in_recovery && conn.behave.sack.pipe_counts_acks {
            // ns-2 Sack1 `recv()` in fast recovery: `--pipe_` for every ACK, first of all.
            self.counted_pipe -= 1;
        }
    }

    fn on_cumulative_ack(&mut self, conn: &Conn, n: u64) {
        if conn.behave.sack.scoreboard_cleared && !conn.in_recovery {
            // ns-2 Sack1: a new ACK outside fast recovery clears the scoreboard (it does not
            // record this ACK's blocks).
            self.board.clear();
        } else {
            self.board.pop(n);
        }
    }

    fn is_sacked(&self, snd_una: u64, seq: u64) -> bool {
        self.board.is_sacked(snd_una, seq)
    }

    /// RFC 6675 §5 step 4: the `dupack_threshold`-th duplicate ACK, or earlier as soon as
    /// `IsLost(snd_una)` (`dupack_threshold` segments above it are SACKed).
    /// ns-2 Sack1 (`tcp.model = "ns2"`): the `dupack_threshold`-th duplicate ACK only.
    /// RFC 6675 §5.1: a new recovery may start once HighACK ≥ RecoveryPoint (HighData at the
    /// last response), that is once `snd_una` reaches `recover`: with SACK the scoreboard, not
    /// the cumulative ACK, tells a resent segment from a new loss.
    fn past_recovery_point(&self, conn: &Conn) -> bool {
        conn.snd_una >= conn.recover
    }

    fn loss_detected(&self, conn: &Conn) -> bool {
        conn.dupacks == conn.dupack_threshold
            || (conn.behave.sack.early_entry
                && conn.dupacks < conn.dupack_threshold
                && self.board.count >= conn.dupack_threshold as u64)
    }

    /// RFC 6675 §5 steps (4.2)-(4.3): `cwnd = ssthresh`, retransmit, then pipe-limited.
    /// ns-2 Sack1 (`dupack_action`): `cwnd_` is the fractional window of the response (W/2, or
    /// the window an ECN cut left), `pipe_ = maxseq_ − highest_ack_ − numdupacks_`, and only
    /// the retransmission goes out on this ACK.
    fn enter<F: FnMut(Packet) + ?Sized>(&mut self, conn: &mut Conn, now: SimTime, emit: &mut F) {
        if conn.behave.fractional_recovery_window {
            conn.recovery_cwnd = conn.recovery_cwnd.max(1.0);
            conn.win.cwnd = conn.recovery_cwnd;
        } else {
            conn.win.cwnd = conn.win.ssthresh as f64;
        }
        let seq = conn.snd_una;
        self.high_rxt = seq + 1;
        let counted = conn.behave.sack.pipe_counts_acks;
        if counted {
            self.counted_pipe =
                (conn.snd_max - conn.snd_una) as i64 - i64::from(conn.dupack_threshold);
        }
        conn.transmit(now, seq, emit);
        if !counted {
            self.send(conn, now, emit);
        }
    }

    fn on_dup_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        emit: &mut F,
    ) {
        self.send(conn, now, emit);
    }

    /// RFC 6675 §5 step (C): restart the timer (RFC 6298 rule 5.3; ns-2 Sack1 with
    /// `partial_ack_ = 0`) and send what the pipe allows.
    fn on_partial_ack<F: FnMut(Packet) + ?Sized>(
        &mut self,
        conn: &mut Conn,
        now: SimTime,
        _newly: u64,
        emit: &mut F,
    ) -> bool {
        conn.stats.partial_acks += 1;
        conn.arm_timer(now);
        if conn.behave.sack.pipe_counts_acks {
            // ns-2 Sack1 with `partial_ack_ = 0`: a second `--pipe_` (the retransmission this
            // ACK reports has left the network as well as the segment that triggered it).
            self.counted_pipe -= 1;
        }
        self.send(conn, now, emit);
        true
    }

    fn on_timeout(&mut self, conn: &Conn) {
        self.high_rxt = 0;
        if conn.behave.sack.scoreboard_cleared {
            // ns-2 Sack1 `timeout()`: `ClearScoreBoard()`.
            self.board.clear();
        }
    }
}
