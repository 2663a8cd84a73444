//! The readings a sender follows where ns-2.35's agents and the RFCs differ, as named choices.
//!
//! `tcp.model` selects one bundle once, when the sender is built ([`Behaviour::of`]); the sender,
//! its loss-recovery variants and its RTT estimator then ask for the choice they need by name
//! instead of testing the model. Each choice was found by tracing both simulators on the same
//! dumbbell to their first divergence (`docs/validation.md`, "Beside ns-2").
//!
//! Which data packets are ECN-capable: RFC 3168 §6.1.5 says a sender MUST NOT set ECT on
//! retransmitted data packets, so a marking queue drops a resend it picks rather than marks
//! it. Linux (`tcp_ecn_send()` in `net/ipv4/tcp_output.c`) clears ECT on a segment below `snd_nxt` unless
//! `tcp_ca_needs_ecn()` (DCTCP, and the L4S senders, keep it); ns-3.44
//! (`TcpSocketBase::SendDataPacket` asks `IsEct(RE_XMT)`, which `ECN_RESTRICTION_MAP` answers
//! `false` for `ClassicEcn` and `true` for `DctcpEcn`) does the same. ns-2.35's
//! `TcpAgent::output()` sets ECT on every data packet it sends, resends included, except the
//! connection's packet 0 and its resends (`first_segment_not_ect`).

use super::TcpModel;

/// Which reading the sender takes at each point where the sources differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Behaviour {
    /// RTT samples rounded to clock ticks and a truncated RTO (ns-2 `rtt_update`), instead of
    /// RFC 6298 arithmetic on exact samples.
    pub ns2_rtt_arithmetic: bool,
    /// No RTT sample from a partial ACK (ns-2 NewReno `partialnewack` and Sack1 bypass
    /// `newack()`), instead of a sample from every ACK of new data.
    pub no_rtt_sample_on_partial_ack: bool,
    /// `ssthresh` on a fast retransmit or a timeout from the usable window (ns-2 `window()`),
    /// instead of the flight size (RFC 5681 eq. 4).
    pub loss_basis_is_window: bool,
    /// The window through recovery is ns-2's fractional `cwnd_` (the controller's decrease of W,
    /// kept through recovery and left with; Reno/NewReno open it once on the exiting ACK),
    /// instead of `cwnd = ssthresh` (+ inflation) and `cwnd = ssthresh` on leaving.
    pub fractional_recovery_window: bool,
    /// Fast-retransmit gate: ns-2's `highest_ack_ > recover_` for every variant (with its
    /// `bugfix_ss_` exception for segment 1), instead of the variant's own rule
    /// (`Recovery::past_recovery_point`: RFC 6582 for Reno/NewReno, RFC 6675 for SACK).
    pub strict_recover_gate: bool,
    /// ECN halves the fractional window `windowd()` (ns-2 `slowdown`), instead of the usable one.
    pub ecn_halves_fractional_window: bool,
    /// The first ECN-Echo after a timeout reduces whatever it acknowledges (ns-2 `ecn()` after
    /// `CWND_ACTION_TIMEOUT`), instead of only one acknowledging data sent after `recover`.
    pub ecn_after_timeout_reduces: bool,
    /// An ECN-Echo finds the window at one segment (and so backs the timer off when repeated)
    /// when the fractional `cwnd_ <= 1.0` (ns-2 `ecn()`), instead of when the usable window
    /// `⌊cwnd⌋` is one segment (RFC 3168 §6.1.2). From `1 < cwnd < 2` ns-2 clears the backoff
    /// state; new data is held either way, as ns-2's halved `cwnd_` is then below one.
    pub ecn_one_segment_is_fractional: bool,
    /// A timeout whose previous response was an ECN cut closes the window to one segment and
    /// keeps `ssthresh` (ns-2 `timeout()`, `CWND_ACTION_ECN`), instead of a full timeout response.
    pub timeout_after_ecn_keeps_ssthresh: bool,
    /// ns-2: the ECN hold is the retransmission timer, whose expiry runs `timeout()`.
    pub hold_ends_as_timeout: bool,
    /// A retransmitted data segment leaves not ECN-capable (RFC 3168 §6.1.5, Linux, ns-3)
    /// unless the congestion control needs ECN (`cc = "dctcp"` or an `ect1` sender); ns-2.35
    /// sets ECT on resends as on new data.
    pub retransmission_not_ect: bool,
    /// Segment 0 and its retransmissions leave not ECN-capable (ns-2.35 `output()`: the
    /// `seqno == 0` branch, the connection's first packet, sets `ect() = 0` whether or not
    /// `syn_` is on), so an ECN queue drops it where it would mark it; instead of ECT on every
    /// data segment when ECN is on.
    pub first_segment_not_ect: bool,
    /// SACK loss recovery as ns-2's `Agent/TCP/Sack1` (`recovery/sack.rs`), instead of RFC 6675.
    pub sack: SackBehaviour,
}

/// The choices of SACK loss recovery (`recovery/sack.rs`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct SackBehaviour {
    /// A hole is lost once any segment above it is SACKed (ns-2's scoreboard), instead of
    /// `DupThresh` segments (RFC 6675 `IsLost`).
    pub lost_after_one_sacked: bool,
    /// Recovery may start before the `dupack_threshold`-th duplicate ACK once `IsLost(snd_una)`
    /// (RFC 6675 §5 step 4); ns-2 waits for the duplicate ACKs.
    pub early_entry: bool,
    /// A new ACK outside recovery and a timeout clear the scoreboard (ns-2 `ClearScoreBoard`),
    /// so go-back-N resends SACKed segments, instead of keeping it (RFC 6675 §5.1).
    pub scoreboard_cleared: bool,
    /// Leaving recovery forgets `recover` (ns-2 `recover_ = 0`).
    pub forget_recover_on_exit: bool,
    /// `pipe` is ns-2's counter `pipe_`: the segments outstanding less `dupack_threshold` on
    /// entry, one less per ACK in recovery and a second one less for a partial ACK, one more
    /// per segment sent, so a lost segment stays in it; instead of RFC 6675 `SetPipe` from the
    /// scoreboard, which takes lost segments out at once. No send on entry beyond the fast
    /// retransmission.
    pub pipe_counts_acks: bool,
}

impl Behaviour {
    /// The bundle of `tcp.model`.
    pub fn of(model: TcpModel) -> Behaviour {
        let ns2 = model == TcpModel::Ns2;
        Behaviour {
            ns2_rtt_arithmetic: ns2,
            no_rtt_sample_on_partial_ack: ns2,
            loss_basis_is_window: ns2,
            fractional_recovery_window: ns2,
            strict_recover_gate: ns2,
            ecn_halves_fractional_window: ns2,
            ecn_after_timeout_reduces: ns2,
            ecn_one_segment_is_fractional: ns2,
            timeout_after_ecn_keeps_ssthresh: ns2,
            hold_ends_as_timeout: ns2,
            retransmission_not_ect: !ns2,
            first_segment_not_ect: ns2,
            sack: SackBehaviour {
                lost_after_one_sacked: ns2,
                early_entry: !ns2,
                scoreboard_cleared: ns2,
                forget_recover_on_exit: ns2,
                pipe_counts_acks: ns2,
            },
        }
    }
}
