//! TCP in the style of ns-2's one-way agents (the papers' simulator): a sender (`Agent/TCP`,
//! i.e. Tahoe, `Agent/TCP/Reno`, `Agent/TCP/Newreno`) and a receiver (`Agent/TCPSink`,
//! optionally `DelAck`), sequence numbers counted in segments, every data packet the same size.
//!
//! Sans-IO, like smoltcp: the simulator passes `now` in, the endpoints emit packets through a
//! closure and report their next deadline with `next_timer()`. Nothing here knows about links.
//!
//! THE INTERFACE THE SIMULATOR USES (do not change without changing `scenario::sim`):
//! ```text
//! let mut s = Sender::new(flow_id, &cfg);
//! s.start(now, Some(n_segments) /* None = unlimited bulk */, &mut |pkt| ...);
//! s.add_segments(now, n, &mut emit);      // finite transfers that fetch again (web-like)
//! s.on_ack(now, &ack_pkt, &mut emit);
//! s.on_timer(now, &mut emit);             // called when now >= s.next_timer()
//! s.next_timer() -> Option<SimTime>;
//! s.stats() -> &SenderStats; s.is_complete() -> bool; s.probe(&mut |name, v| ...)
//!
//! let mut r = Receiver::new(flow_id, &cfg);
//! r.on_data(now, &data_pkt, &mut emit);   // emits ACKs (maybe delayed)
//! r.on_timer(now, &mut emit); r.next_timer();
//! r.delivered_segments() -> u64           // unique in-order segments delivered so far
//! ```
//! Emitted packets need only the TCP fields filled (flow, kind, seq/ack, size, ecn/ece/cwr,
//! ts/ts_echo, created, rtt_label); the network assigns `id` and routes them.

mod behaviour;
pub mod congestion;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod trace;
#[cfg(test)]
mod wire;

pub use congestion::CongestionControl;
pub use receiver::{Receiver, ReceiverStats};
pub use rtt::RttEstimator;
pub use sender::{Sender, SenderStats};
pub use trace::{TcpTrace, TraceEvent};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{check, ScenarioError};
use crate::time::SimDuration;

/// Which loss-recovery algorithm the sender runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// RFC 5681 fast retransmit / fast recovery; leaves recovery on the first new ACK.
    #[default]
    Reno,
    /// RFC 6582: stays in recovery until the whole window outstanding at the loss is acked.
    NewReno,
    /// RFC 2018 SACK blocks from the receiver and RFC 6675 loss recovery at the sender
    /// (pipe-based, like ns-2's `Agent/TCP/Sack1` and ns-3's default `TcpSocketBase`).
    Sack,
    /// ns-2's base `Agent/TCP`: after a fast retransmit, `cwnd = 1` and slow start (no fast
    /// recovery).
    Tahoe,
}

/// Which ECN-capable codepoint data packets carry when `ecn = true`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum EcnCodepoint {
    /// ECT(0), RFC 3168's classic ECN.
    #[default]
    Ect0,
    /// ECT(1): an L4S (scalable) sender, RFC 9331; a DualPI2 queue classifies it as L4S.
    Ect1,
}

/// Which reading the sender follows where ns-2's agents and the RFCs differ (see
/// `docs/validation.md`, "Beside ns-2"). Each difference was found by tracing both simulators
/// on the same dumbbell to their first divergence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum TcpModel {
    /// ns-2.35's `Agent/TCP` (the papers' simulator): `ssthresh = ⌊W/2⌋` from the window
    /// (`precisionReduce_`), `cwnd = W/2` kept fractional through recovery and opened once on
    /// the ACK that ends it, the fast-retransmit gate `highest_ack_ > recover_`, RTT samples in
    /// clock ticks with a truncated RTO (`rtt_update`), no sample from a partial ACK, and SACK
    /// recovery as `Agent/TCP/Sack1` (`recovery/sack.rs`). The choices are named in
    /// `behaviour.rs`.
    Ns2,
    /// The RFC readings: `ssthresh = FlightSize/2` (RFC 5681 eq. 4), `cwnd = ssthresh` after
    /// recovery, the gate `snd_una > recover` (RFC 6582; `>=` with SACK, RFC 6675), RFC 6298
    /// arithmetic on exact samples with the RTO rounded up to ticks, a sample from every ACK of
    /// new data. The default until the reproductions and ns-3 comparisons are re-measured under
    /// `ns2`.
    #[default]
    Rfc,
}

/// What the sender writes into each data packet's RTT label (for GREEN-Embedded and Chablis).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum RttLabel {
    /// No label (unmodified senders).
    #[default]
    None,
    /// The current smoothed RTT estimate (GREEN-Embedded, paper 000).
    Srtt,
    /// The lowest RTT sample seen so far (Chablis, paper 002).
    Min,
}

/// Largest initial window, segments: each segment of a window is a packet built at once.
pub const MAX_INITIAL_WINDOW: u32 = 65_535;

/// TCP configuration: the `tcp = { … }` table of a flow group. Defaults follow ns-2's
/// `Agent/TCP` (ns-default.tcl) except where noted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Loss recovery: `reno`, `newreno`, `sack` (RFC 2018 blocks, RFC 6675 pipe-based recovery;
    /// ns-2 `Sack1`, ns-3's default) or `tahoe` (ns-2's base `Agent/TCP`: `cwnd = 1` and slow
    /// start after a fast retransmit).
    pub variant: Variant,
    /// Data packet size on the wire, bytes (ns-2 `packetSize_` = 1000).
    pub mss: u32,
    /// ACK size on the wire, bytes (40).
    pub ack_size: u32,
    /// Receiver-window cap in segments (ns-2 `window_`); 0 = unlimited (the default here, unlike
    /// ns-2's 20, so that large bandwidth-delay products can be filled unless a paper says so).
    pub max_window: u32,
    /// Initial congestion window, segments (ns-2 `windowInit_` = 2).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments; 0 = unlimited (ns-2 `ssthresh_` = 0 means none).
    pub initial_ssthresh: u32,
    /// Minimum retransmission timeout (ns-2 `minrto_` = 200 ms).
    pub min_rto: SimDuration,
    /// Maximum retransmission timeout (ns-2 `maxrto_` = 60 s).
    pub max_rto: SimDuration,
    /// RTO before any RTT sample (ns-2 `rtxcur_init_` = 3 s).
    pub initial_rto: SimDuration,
    /// Timer granularity: RTO arithmetic is done in ticks of this size (ns-2 `tcpTick_` = 10 ms).
    pub clock_granularity: SimDuration,
    /// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_` = 3).
    pub dupack_threshold: u32,
    /// Receiver delays ACKs (ns-2 `Agent/TCPSink/DelAck`): one ACK per two segments or after
    /// `delack_interval`.
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (ns-2 `interval_` = 100 ms).
    pub delack_interval: SimDuration,
    /// ECN-capable (RFC 3168): data packets are ECT, the window is halved at most once per RTT
    /// on ECE, CWR tells the receiver.
    pub ecn: bool,
    /// ns-2's `ecn_backoff_`: repeated ECN-Echoes at a window of one segment double the
    /// retransmit timer, so the holds of RFC 3168 §6.1.2 grow 1, 2, 4, … RTOs. `false` holds
    /// for one RTO each time (RFC 3168 alone).
    pub ecn_backoff: bool,
    /// ect0 | ect1: the codepoint of ECN-capable data packets (ect1 for L4S senders).
    pub ecn_codepoint: EcnCodepoint,
    /// What the sender writes into each data packet's RTT label: `srtt` for GREEN-Embedded
    /// (paper 000), `min` for Chablis (paper 002).
    pub rtt_label: RttLabel,
    /// ns2 | rfc: where ns-2's agents and the RFCs differ, which one the sender follows.
    pub model: TcpModel,
    /// ns-2's `overhead_`: a send triggered by an ACK or a timeout waits a uniform random time
    /// in `[0, overhead)` drawn from the flow's own random stream (0 = send at once). The
    /// deliberate answer to equal-time ties: with 0, packets of different flows can reach a
    /// DropTail queue at the same nanosecond, are taken in the order their events were
    /// scheduled (deterministic, FIFO), and that order decides who is dropped (phase effects;
    /// DropTail demo Jain 0.72 here, 0.26 in ns-2). About one bottleneck packet time (0.8 ms
    /// at 10 Mbps) breaks ties at random as ns-2 users do (Jain 0.756 here, 0.758 in ns-2).
    /// Retransmissions on duplicate and partial ACKs are not delayed, as in ns-2.
    pub overhead: SimDuration,
    /// Congestion control: reno | cubic | dctcp (`dctcp` needs `ecn = true`). Declared last so
    /// the fields' order (which a positional array would follow) predates it; arrays are rejected.
    pub cc: CongestionControl,
    /// rfc | linux: CUBIC's Reno-friendly estimate. `rfc` (RFC 9438 §4.3) grows it by 1 segment
    /// per RTT once it reaches the window before the last reduction; `linux` keeps 0.53 per RTT
    /// throughout, as Linux and ns-3's TcpCubic. Used only with `cc = "cubic"`.
    pub cubic_friendly: congestion::Friendliness,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::Reno,
            cc: CongestionControl::Reno,
            mss: 1000,
            ack_size: 40,
            max_window: 0,
            initial_window: 2,
            initial_ssthresh: 0,
            min_rto: SimDuration::from_millis(200),
            max_rto: SimDuration::from_secs(60),
            initial_rto: SimDuration::from_secs(3),
            clock_granularity: SimDuration::from_millis(10),
            dupack_threshold: 3,
            delayed_ack: false,
            delack_interval: SimDuration::from_millis(100),
            ecn: false,
            ecn_backoff: true,
            ecn_codepoint: EcnCodepoint::Ect0,
            rtt_label: RttLabel::None,
            model: TcpModel::Rfc,
            overhead: SimDuration::ZERO,
            cubic_friendly: congestion::Friendliness::Rfc,
        }
    }
}

impl TcpConfig {
    /// Checks ranges; paths are relative to the `tcp` table.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.mss >= 40 && self.mss <= 65_535,
            "mss",
            self.mss,
            "bytes in [40, 65535]",
        )?;
        check(
            self.ack_size >= 1 && self.ack_size <= 1500,
            "ack_size",
            self.ack_size,
            "bytes in [1, 1500]",
        )?;
        check(
            (1..=MAX_INITIAL_WINDOW).contains(&self.initial_window),
            "initial_window",
            self.initial_window,
            "segments in [1, 65535] (the largest unscaled TCP window)",
        )?;
        check(
            self.dupack_threshold >= 1,
            "dupack_threshold",
            self.dupack_threshold,
            "at least 1",
        )?;
        check(
            self.min_rto <= self.max_rto,
            "min_rto",
            self.min_rto,
            "at most max_rto",
        )?;
        check(
            self.clock_granularity >= crate::time::MIN_TIMER_PERIOD,
            "clock_granularity",
            self.clock_granularity,
            "at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        // The retransmission timer's bounds: an RTO of nanoseconds fires thousands of times per
        // round trip, each a spurious retransmission (RFC 6298 (2.4) asks for 1 s; Linux 200 ms).
        check(
            self.initial_rto >= crate::time::MIN_TIMER_PERIOD,
            "initial_rto",
            self.initial_rto,
            "at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        check(
            self.max_rto >= crate::time::MIN_TIMER_PERIOD,
            "max_rto",
            self.max_rto,
            "at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        check(
            self.cc != CongestionControl::Dctcp || self.ecn,
            "ecn",
            self.ecn,
            "true when cc = \"dctcp\" (DCTCP reacts to ECN marks)",
        )?;
        check(
            self.overhead <= SimDuration::from_secs(1),
            "overhead",
            self.overhead,
            "at most 1s (ns-2 users pick about one bottleneck packet time)",
        )?;
        check(
            self.delack_interval >= crate::time::MIN_TIMER_PERIOD,
            "delack_interval",
            self.delack_interval,
            "at least 1us (time::MIN_TIMER_PERIOD)",
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::from_serde;

    fn parse(src: &str) -> Result<TcpConfig, ScenarioError> {
        let table: toml::Table = toml::from_str(src).unwrap();
        let cfg: TcpConfig =
            serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(from_serde)?;
        cfg.validate()?;
        Ok(cfg)
    }

    #[test]
    fn config_parses_units_and_validates() {
        let cfg = parse(
            "variant = \"newreno\"\nmin_rto = \"1s\"\nclock_granularity = \"500ms\"\n\
             rtt_label = \"min\"\necn = true",
        )
        .unwrap();
        assert_eq!(cfg.variant, Variant::NewReno);
        assert_eq!(cfg.min_rto, SimDuration::from_secs(1));
        assert_eq!(cfg.clock_granularity, SimDuration::from_millis(500));
        assert_eq!(cfg.rtt_label, RttLabel::Min);
        assert_eq!(cfg.mss, 1000, "unset keys keep ns-2's defaults");
        assert_eq!(
            parse("dupack_threshold = 0").unwrap_err().path,
            "dupack_threshold"
        );
        assert_eq!(
            parse("min_rto = \"90s\"").unwrap_err().path,
            "min_rto",
            "min_rto above max_rto"
        );
        let e = parse("variant = \"cubic\"").unwrap_err();
        assert_eq!(e.path, "variant");
        let cfg = parse("cc = \"cubic\"\nvariant = \"sack\"").unwrap();
        assert_eq!(
            (cfg.cc, cfg.variant),
            (CongestionControl::Cubic, Variant::Sack)
        );
        let e = parse("cc = \"dctcp\"").unwrap_err();
        assert_eq!(e.path, "ecn", "DCTCP without ECN is refused");
        let cfg = parse("cc = \"dctcp\"\necn = true\necn_codepoint = \"ect1\"").unwrap();
        assert_eq!(cfg.ecn_codepoint, EcnCodepoint::Ect1);
        assert_eq!(parse("cc = \"bbr\"").unwrap_err().path, "cc");
        // A misspelled key is rejected and named (see udp.rs on the doubled path).
        let e = parse("mms = 1500").unwrap_err();
        assert_eq!(e.path.rsplit('.').next(), Some("mms"));
    }
}
