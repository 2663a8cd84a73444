//! Unresponsive senders, sans-IO like the TCP agents: a constant-bit-rate source and a Pareto
//! on/off source. They ignore congestion (no ACKs, no ECN: packets are Not-ECT), which is what
//! the papers use them for (misbehaving flows against fair-queueing AQMs, bursty background).
//!
//! Driving them: `start(now, emit)` once, then `on_timer(now, emit)` whenever
//! `now >= next_send()`; `stop()` ends the flow. Packets are `Data` with increasing `seq`,
//! `packet_bytes` on the wire, `ts = created = now`; the network assigns `id`.
//!
//! - `Cbr` (ns-2 `Application/Traffic/CBR` with `random_ = 0`): the k-th packet leaves at
//!   `start + ⌊k·8·packet_bytes·10⁹ / rate_bps⌋` ns, computed from the start each time so
//!   integer rounding does not accumulate and the long-run rate is exact. The first packet
//!   leaves at `start`.
//! - `ParetoOnOff` (ns-2 `Application/Traffic/Pareto`, `POO_Traffic` in `pareto.cc`): while on,
//!   packets leave every `interval = 8·packet_bytes / rate` s. Each burst holds
//!   `max(1, round(Pareto(mean = N, shape)))` packets with `N = max(1, round(burst_time /
//!   interval))`; after a burst's last packet the gap is `interval + Pareto(mean = idle_time,
//!   shape)`. As in ns-2 the source starts with an idle period (its first packet leaves at
//!   `start + interval + idle`). Long-run average rate ≈ `rate · N·interval / (N·interval +
//!   idle_time)` (on time counts the interval after each packet). Pareto draws:
//!   `SimRng::pareto(mean, shape)` = `scale / U^(1/shape)`, `scale = mean·(shape−1)/shape`, as
//!   ns-2's `RNG::pareto(scale, shape)` with that scale.
//!
//! Parameters (config tables): `rate` (bit/s while on; "1Mbps"), `packet_bytes` (ns-2
//! `packetSize_` = 210 for CBR, 210 for Pareto; here 1000 to match TCP's default segment),
//! `burst_time` (ns-2 `burst_time_` = 500 ms), `idle_time` (ns-2 `idle_time_` = 500 ms),
//! `shape` (ns-2 `shape_` = 1.5; must be > 1 for a finite mean).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{check, ScenarioError};
use crate::net::packet::{FlowId, Packet, PacketKind};
use crate::rng::SimRng;
use crate::time::{Rate, SimDuration, SimTime, NS_PER_SEC};

/// Counters of an unresponsive sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UdpStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Bursts started (Pareto on/off only).
    pub bursts: u64,
}

/// `udp_cbr` flows: the `cbr = { … }` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CbrConfig {
    /// Sending rate ("1Mbps").
    pub rate: Rate,
    /// Packet size on the wire, bytes.
    pub packet_bytes: u32,
}

impl Default for CbrConfig {
    fn default() -> Self {
        CbrConfig {
            rate: Rate(1_000_000),
            packet_bytes: 1000,
        }
    }
}

impl CbrConfig {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        check(self.rate.0 >= 1, "rate", self.rate, "at least 1bps")?;
        check(
            (1..=65_535).contains(&self.packet_bytes),
            "packet_bytes",
            self.packet_bytes,
            "bytes in [1, 65535]",
        )
    }
}

/// `pareto_onoff` flows: the `pareto = { … }` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ParetoConfig {
    /// Sending rate while on ("1Mbps").
    pub rate: Rate,
    /// Packet size on the wire, bytes.
    pub packet_bytes: u32,
    /// Mean burst (on) time (ns-2 `burst_time_` = 500 ms).
    pub burst_time: SimDuration,
    /// Mean idle (off) time (ns-2 `idle_time_` = 500 ms).
    pub idle_time: SimDuration,
    /// Pareto shape (ns-2 `shape_` = 1.5), > 1.
    pub shape: f64,
}

impl Default for ParetoConfig {
    fn default() -> Self {
        ParetoConfig {
            rate: Rate(1_000_000),
            packet_bytes: 1000,
            burst_time: SimDuration::from_millis(500),
            idle_time: SimDuration::from_millis(500),
            shape: 1.5,
        }
    }
}

impl ParetoConfig {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        check(self.rate.0 >= 1, "rate", self.rate, "at least 1bps")?;
        check(
            (1..=65_535).contains(&self.packet_bytes),
            "packet_bytes",
            self.packet_bytes,
            "bytes in [1, 65535]",
        )?;
        check(
            self.burst_time.0 > 0,
            "burst_time",
            self.burst_time,
            "greater than 0",
        )?;
        check(
            self.shape.is_finite() && self.shape > 1.0,
            "shape",
            self.shape,
            "a number > 1 (the mean is infinite otherwise)",
        )
    }
}

fn make_packet(flow: FlowId, seq: u64, size: u32, now: SimTime) -> Packet {
    Packet {
        flow,
        kind: PacketKind::Data,
        seq,
        size_bytes: size,
        ts: now,
        created: now,
        ..Packet::default()
    }
}

/// Constant-bit-rate sender.
pub struct Cbr {
    flow: FlowId,
    rate_bps: u64,
    packet_bytes: u32,
    started_at: SimTime,
    /// Packets sent since `start` (the index of the next one).
    k: u64,
    next: Option<SimTime>,
    stats: UdpStats,
}

impl Cbr {
    pub fn new(flow: FlowId, cfg: &CbrConfig) -> Cbr {
        Cbr {
            flow,
            rate_bps: cfg.rate.0.max(1),
            packet_bytes: cfg.packet_bytes,
            started_at: SimTime::ZERO,
            k: 0,
            next: None,
            stats: UdpStats::default(),
        }
    }

    /// Departure time of packet `k` after the start (exact, no accumulated rounding).
    fn departure(&self, k: u64) -> SimTime {
        let bits = k as u128 * 8 * self.packet_bytes as u128;
        let ns = bits * NS_PER_SEC as u128 / self.rate_bps as u128;
        self.started_at + SimDuration(ns.min(u64::MAX as u128) as u64)
    }

    /// Starts (or restarts) the flow; the first packet leaves now.
    pub fn start<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        self.started_at = now;
        self.k = 0;
        self.next = Some(now);
        self.on_timer(now, emit);
    }

    /// Stops sending (no more timers).
    pub fn stop(&mut self) {
        self.next = None;
    }

    /// Sends every packet due by `now`.
    pub fn on_timer<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        while let Some(t) = self.next {
            if t > now {
                break;
            }
            let seq = self.stats.packets_sent;
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += self.packet_bytes as u64;
            emit(make_packet(self.flow, seq, self.packet_bytes, t.max(now)));
            self.k += 1;
            self.next = Some(self.departure(self.k));
        }
    }

    pub fn next_send(&self) -> Option<SimTime> {
        self.next
    }

    pub fn stats(&self) -> &UdpStats {
        &self.stats
    }
}

/// Pareto on/off sender (ns-2 `Application/Traffic/Pareto`).
pub struct ParetoOnOff {
    flow: FlowId,
    packet_bytes: u32,
    /// Packet spacing while on.
    interval: SimDuration,
    /// Mean burst length in packets (ns-2 `burstlen_`).
    burst_packets: f64,
    idle_mean_s: f64,
    shape: f64,
    rng: SimRng,
    /// Packets left in the current burst (ns-2 `rem_`).
    rem: u64,
    next: Option<SimTime>,
    stats: UdpStats,
}

impl ParetoOnOff {
    /// `rng` is the flow's own stream (`rng::component::SOURCE_BASE + flow`).
    pub fn new(flow: FlowId, cfg: &ParetoConfig, rng: SimRng) -> ParetoOnOff {
        let interval_s = 8.0 * cfg.packet_bytes as f64 / cfg.rate.0.max(1) as f64;
        let burst_packets = (cfg.burst_time.as_secs_f64() / interval_s).round().max(1.0);
        ParetoOnOff {
            flow,
            packet_bytes: cfg.packet_bytes,
            interval: SimDuration::from_secs_f64(interval_s),
            burst_packets,
            idle_mean_s: cfg.idle_time.as_secs_f64(),
            shape: cfg.shape,
            rng,
            rem: 0,
            next: None,
            stats: UdpStats::default(),
        }
    }

    /// The time to the next packet (ns-2 `POO_Traffic::next_interval`): one interval, plus an
    /// idle period when the burst is over (then a new burst length is drawn).
    fn next_interval(&mut self) -> SimDuration {
        let mut t = self.interval;
        if self.rem == 0 {
            let n = self.rng.pareto(self.burst_packets, self.shape).round();
            self.rem = if n >= 1.0 { n as u64 } else { 1 };
            self.stats.bursts += 1;
            if self.idle_mean_s > 0.0 {
                t = t + SimDuration::from_secs_f64(self.rng.pareto(self.idle_mean_s, self.shape));
            }
        }
        self.rem -= 1;
        t
    }

    /// Starts the flow: it begins with an idle period, as ns-2's.
    pub fn start<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        self.rem = 0;
        let d = self.next_interval();
        self.next = Some(now + d);
        self.on_timer(now, emit);
    }

    pub fn stop(&mut self) {
        self.next = None;
    }

    /// Sends every packet due by `now`.
    pub fn on_timer<F: FnMut(Packet) + ?Sized>(&mut self, now: SimTime, emit: &mut F) {
        while let Some(t) = self.next {
            if t > now {
                break;
            }
            let seq = self.stats.packets_sent;
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += self.packet_bytes as u64;
            emit(make_packet(self.flow, seq, self.packet_bytes, t.max(now)));
            let d = self.next_interval();
            self.next = Some(t + d);
        }
    }

    pub fn next_send(&self) -> Option<SimTime> {
        self.next
    }

    pub fn stats(&self) -> &UdpStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive_cbr(c: &mut Cbr, until: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        c.start(SimTime::ZERO, &mut |p| out.push(p));
        while let Some(t) = c.next_send() {
            if t > until {
                break;
            }
            c.on_timer(t, &mut |p| out.push(p));
        }
        out
    }

    #[test]
    fn cbr_spacing_and_exact_long_run_rate() {
        // 1000 B at 3 Mbps: 8000/3e6 s = 2.666… ms; not a whole number of ns.
        let cfg = CbrConfig {
            rate: Rate(3_000_000),
            packet_bytes: 1000,
        };
        let mut c = Cbr::new(4, &cfg);
        let pkts = drive_cbr(&mut c, SimTime(10 * NS_PER_SEC));
        // Packets at k·8/3 ms for k = 0..=3750 (the last at exactly 10 s).
        assert_eq!(pkts.len(), 3751);
        assert_eq!(pkts[1].created, SimTime(2_666_666));
        assert_eq!(pkts[3].created, SimTime(8_000_000));
        assert_eq!(pkts[3750].created, SimTime(10 * NS_PER_SEC));
        assert!(pkts.windows(2).all(|w| w[1].seq == w[0].seq + 1));
        let p = &pkts[7];
        assert_eq!((p.flow, p.size_bytes, p.kind), (4, 1000, PacketKind::Data));
        assert_eq!(p.ecn, crate::net::packet::Ecn::NotEct);
        assert_eq!(c.stats().bytes_sent, 3751 * 1000);
        c.stop();
        assert_eq!(c.next_send(), None);
    }

    #[test]
    fn cbr_catches_up_when_polled_late() {
        let mut c = Cbr::new(0, &CbrConfig::default()); // 1 Mbps, 1000 B: every 8 ms
        let mut n = 0;
        c.start(SimTime::ZERO, &mut |_| n += 1);
        c.on_timer(SimTime(40_000_000), &mut |_| n += 1);
        assert_eq!(n, 6); // t = 0, 8, 16, 24, 32, 40 ms
        assert_eq!(c.next_send(), Some(SimTime(48_000_000)));
    }

    #[test]
    fn pareto_onoff_long_run_rate_and_burst_mean() {
        // 1 Mbps, 125 B: interval 1 ms; bursts of mean 10 packets, idle mean 10 ms.
        let cfg = ParetoConfig {
            rate: Rate(1_000_000),
            packet_bytes: 125,
            burst_time: SimDuration::from_millis(10),
            idle_time: SimDuration::from_millis(10),
            shape: 1.5,
        };
        let mut s = ParetoOnOff::new(0, &cfg, SimRng::new(5, 9));
        let mut last = SimTime::ZERO;
        let mut n = 0u64;
        s.start(SimTime::ZERO, &mut |_| n += 1);
        let end = SimTime(2_000 * NS_PER_SEC);
        while let Some(t) = s.next_send() {
            if t > end {
                break;
            }
            s.on_timer(t, &mut |p| {
                assert!(p.created >= last);
                last = p.created;
                n += 1;
            });
        }
        let st = s.stats();
        // Mean burst: E[round(Pareto(10, 1.5))] ≈ 10 packets (shape 1.5 converges slowly).
        let mean_burst = st.packets_sent as f64 / st.bursts as f64;
        assert!((mean_burst - 10.0).abs() < 1.0, "{mean_burst}");
        // Long-run rate ≈ 1 Mbps · 10 ms / (10 ms + 10 ms) = 500 kbps.
        let rate = st.bytes_sent as f64 * 8.0 / 2_000.0;
        assert!((rate / 500_000.0 - 1.0).abs() < 0.1, "{rate}");
        assert_eq!(n, st.packets_sent);
    }

    #[test]
    fn pareto_starts_idle_and_spaces_bursts_by_interval() {
        let cfg = ParetoConfig {
            rate: Rate(8_000_000),
            packet_bytes: 1000, // 1 ms
            ..ParetoConfig::default()
        };
        let mut s = ParetoOnOff::new(0, &cfg, SimRng::new(1, 2));
        let mut out = Vec::new();
        s.start(SimTime::ZERO, &mut |p| out.push(p));
        assert!(out.is_empty(), "begins with an idle period");
        // Pareto idle times are at least the scale: 500 ms · (1.5 − 1)/1.5 = 166.7 ms.
        assert!(s.next_send().unwrap() >= SimTime(1_000_000 + 166_666_666));
        while out.len() < 2_000 {
            let t = s.next_send().unwrap();
            s.on_timer(t, &mut |p| out.push(p));
        }
        // Gaps are either one interval (within a burst) or longer (an idle period).
        let gaps: Vec<u64> = out
            .windows(2)
            .map(|w| (w[1].created - w[0].created).0)
            .collect();
        assert!(gaps.iter().all(|&g| g >= 1_000_000));
        let in_burst = gaps.iter().filter(|&&g| g == 1_000_000).count();
        assert!(in_burst > gaps.len() / 2);
    }

    #[test]
    fn configs_validate_and_reject_unknown_keys() {
        assert!(CbrConfig::default().validate().is_ok());
        assert!(ParetoConfig::default().validate().is_ok());
        let e = ParetoConfig {
            shape: 1.0,
            ..ParetoConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.path, "shape");
        let e = CbrConfig {
            packet_bytes: 0,
            ..CbrConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.path, "packet_bytes");
        let c: CbrConfig = toml::from_str("rate = \"10Mbps\"\npacket_bytes = 500").unwrap();
        assert_eq!(c.rate, Rate(10_000_000));
        let p: ParetoConfig = toml::from_str("burst_time = \"200ms\"").unwrap();
        assert_eq!(p.burst_time, SimDuration::from_millis(200));
        assert_eq!(p.shape, 1.5);
        let table: toml::Table = toml::from_str("rate = \"1Mbps\"\npackt_bytes = 5").unwrap();
        let err = serde_path_to_error::deserialize::<_, CbrConfig>(toml::Value::Table(table))
            .unwrap_err();
        // The error names the misspelled key. (Shared `error::from_serde` currently reports
        // "packt_bytes.packt_bytes": serde_path_to_error already puts the unknown field in the
        // path and `from_serde` appends it again — reported, not fixed here.)
        let e = crate::error::from_serde(err);
        assert_eq!(e.path.rsplit('.').next(), Some("packt_bytes"));
        assert_eq!(e.value, "unknown key");
    }
}
