//! AVQ: the Adaptive Virtual Queue of Kunniyur and Srikant.
//!
//! Source: S. Kunniyur, R. Srikant, "Analysis and Design of an Adaptive Virtual Queue (AVQ)
//! Algorithm for Active Queue Management", ACM SIGCOMM 2001 (not in `papers/`), as ns-2
//! implements it (`queue/vq.cc`, `Queue/Vq`, written by the authors).
//!
//! # Equations
//! A virtual queue with the real queue's arrivals and buffer but a smaller service rate
//! `C̃ ≤ C` is kept beside the real FIFO. On each arrival at time `t` (sizes in bytes with
//! `queue_in_bytes`, else 1 per packet; `C` in the same unit per second):
//! ```text
//! VQ = max(VQ − C̃·(t − t_vq), 0) + size;  t_vq = t
//! if VQ > buflim · B:  VQ −= size; drop (or mark) the arrival          (the VQ overflows)
//! else:                C̃ = clamp(C̃ + α·(γ·C·(t − t_a) − size), 0, C);  t_a = t
//! ```
//! with `B` the real buffer in the same unit. The adaptation drives the arrival rate to `γ·C`
//! (the desired utilisation): `dC̃/dt = α·(γ·C − λ)`. `C̃` starts at `ecnlim·C`.
//!
//! # Parameters (ns-2 `ns-default.tcl`)
//! | key | unit | default | ns-2 |
//! |---|---|---|---|
//! | `gamma` | fraction | 0.98 | `gamma_` (desired utilisation) |
//! | `alpha` | — | 0.15 | `alpha2` (hard-coded damping factor) |
//! | `ecnlim` | fraction | 0.8 | `ecnlim_` (initial `C̃ / C`) |
//! | `buflim` | fraction | 1.0 | `buflim_` (virtual buffer / real buffer) |
//! | `queue_in_bytes` | bool | true | `queue_in_bytes_` |
//! | `mean_pktsize` | bytes | 1000 | `mean_pktsize_` (packet-mode unit conversions) |
//! | `ecn` | bool | false | `markpkts_` |
//!
//! # Readings
//! - As ns-2, the adaptation is skipped for an arrival the virtual queue drops (the accepted
//!   rate, not the offered rate, drives `C̃`), and `t_a` is then not advanced; a marked arrival
//!   counts as accepted.
//! - ns-2 with `markpkts_` leaves a non-ECN-capable packet untouched when the virtual queue
//!   overflows (it neither marks nor drops it); so does this file: with `ecn = true` a
//!   Not-ECT arrival passes.
//! - Mark/drop-front (`markfront_`, `drop_front_`) are not modelled (ns-2's defaults are off).
//! - The real buffer tail-drops after the virtual queue's decision, as ns-2 checks it last.
//! - In packet mode `C` is the link rate over `8·mean_pktsize` (ns-2 converts the same way).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, QueueView, Reason, Verdict};
use crate::error::{check, ScenarioError};
use crate::net::packet::Packet;
use crate::qdisc::{BufferLimit, Qdisc};
use crate::rng::SimRng;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Desired utilisation γ: the virtual capacity adapts so arrivals approach γ·C.
    pub gamma: f64,
    /// Damping α of the virtual-capacity adaptation (ns-2 alpha2 = 0.15).
    pub alpha: f64,
    /// Initial virtual capacity as a fraction of the link rate (ns-2 ecnlim_).
    pub ecnlim: f64,
    /// Virtual buffer as a fraction of the real buffer (ns-2 buflim_).
    pub buflim: f64,
    /// Count the virtual queue in bytes (else packets of mean_pktsize).
    pub queue_in_bytes: bool,
    /// Bytes per packet for packet-mode conversions.
    pub mean_pktsize: u32,
    /// Mark ECN-capable arrivals instead of dropping (ns-2 markpkts_); others pass.
    pub ecn: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            gamma: 0.98,
            alpha: 0.15,
            ecnlim: 0.8,
            buflim: 1.0,
            queue_in_bytes: true,
            mean_pktsize: 1000,
            ecn: false,
        }
    }
}

/// AVQ's state.
pub struct Avq {
    params: Params,
    /// Link capacity `C`, units (bytes or packets) per second.
    c: f64,
    /// Virtual capacity `C̃`, same unit.
    c_tilde: f64,
    /// Virtual queue length, units.
    vq: f64,
    t_vq: Option<SimTime>,
    t_adapt: SimTime,
}

impl Avq {
    pub fn new(params: Params, link_rate_bps: u64) -> Avq {
        let c = if params.queue_in_bytes {
            link_rate_bps as f64 / 8.0
        } else {
            link_rate_bps as f64 / (8.0 * params.mean_pktsize as f64)
        };
        Avq {
            c_tilde: c * params.ecnlim,
            c,
            vq: 0.0,
            t_vq: None,
            t_adapt: SimTime::ZERO,
            params,
        }
    }

    fn unit(&self, pkt: &Packet) -> f64 {
        if self.params.queue_in_bytes {
            pkt.size_bytes as f64
        } else {
            1.0
        }
    }

    /// The real buffer in the virtual queue's unit.
    fn buffer(&self, limit: BufferLimit) -> f64 {
        let m = self.params.mean_pktsize as f64;
        match (limit, self.params.queue_in_bytes) {
            (BufferLimit::Packets(n), true) => n as f64 * m,
            (BufferLimit::Packets(n), false) => n as f64,
            (BufferLimit::Bytes(b), true) => b as f64,
            (BufferLimit::Bytes(b), false) => b as f64 / m,
        }
    }
}

impl Aqm for Avq {
    fn on_enqueue(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        let t_vq = *self.t_vq.get_or_insert_with(|| {
            self.t_adapt = now;
            now
        });
        let size = self.unit(pkt);
        self.vq = (self.vq - self.c_tilde * now.since(t_vq).as_secs_f64()).max(0.0) + size;
        self.t_vq = Some(now);
        if self.vq > self.params.buflim * self.buffer(q.limit) {
            self.vq = (self.vq - size).max(0.0);
            if self.params.ecn {
                // ns-2 markPacketForECN: only ECN-capable packets are touched; the arrival is
                // accepted, so the adaptation below runs.
                if !pkt.is_ecn_capable() {
                    self.adapt(now, size);
                    return Verdict::Pass;
                }
                self.adapt(now, size);
                return Verdict::Signal(Reason::Early);
            }
            return Verdict::Drop(Reason::Early);
        }
        self.adapt(now, size);
        Verdict::Pass
    }

    fn probe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("c_tilde_ratio", self.c_tilde / self.c);
        out("vq", self.vq);
    }
}

impl Avq {
    fn adapt(&mut self, now: SimTime, size: f64) {
        let dt = now.since(self.t_adapt).as_secs_f64();
        self.c_tilde = (self.c_tilde
            + self.params.alpha * (self.params.gamma * self.c * dt - size))
            .clamp(0.0, self.c);
        self.t_adapt = now;
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "avq";
    const NAME: &'static str = "AVQ, Adaptive Virtual Queue (Kunniyur & Srikant 2001)";
    const SOURCE: &'static str =
        "Kunniyur & Srikant, SIGCOMM 2001; ns-2 queue/vq.cc (Queue/Vq) and its ns-default.tcl values";

    fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.gamma > 0.0 && self.gamma <= 1.0,
            "gamma",
            self.gamma,
            "a fraction in (0, 1]",
        )?;
        check(
            self.alpha.is_finite() && self.alpha > 0.0,
            "alpha",
            self.alpha,
            "a number > 0",
        )?;
        check(
            self.ecnlim > 0.0 && self.ecnlim <= 1.0,
            "ecnlim",
            self.ecnlim,
            "a fraction in (0, 1]",
        )?;
        check(
            self.buflim > 0.0 && self.buflim <= 1.0,
            "buflim",
            self.buflim,
            "a fraction in (0, 1]",
        )?;
        check(
            self.mean_pktsize >= 1,
            "mean_pktsize",
            self.mean_pktsize,
            "bytes ≥ 1",
        )?;
        Ok(())
    }

    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(self.ecn, Avq::new(self.clone(), ctx.link_rate_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::time::SimDuration;

    fn view() -> QueueView {
        QueueView {
            len_pkts: 0,
            len_bytes: 0,
            limit: BufferLimit::Packets(10),
            link_rate_bps: 8_000_000, // 1 MB/s
        }
    }

    fn pkt() -> Packet {
        crate::aqm::test_support::pkt(0, 0, 1000)
    }

    /// A back-to-back burst at t = 0 fills the 10 000-byte virtual buffer after ten packets;
    /// the eleventh is dropped and does not adapt C̃. Each accepted packet lowers C̃ by α·size.
    #[test]
    fn virtual_queue_overflow_drops_and_adaptation_by_hand() {
        let mut a = Avq::new(Params::default(), 8_000_000);
        let mut rng = SimRng::new(0, 0);
        let t0 = SimTime::ZERO;
        let v: Vec<Verdict> = (0..11)
            .map(|_| a.on_enqueue(t0, &pkt(), &view(), &mut rng))
            .collect();
        assert!(v[..10].iter().all(|&x| x == Verdict::Pass));
        assert_eq!(v[10], Verdict::Drop(Reason::Early));
        assert_eq!(a.vq, 10_000.0);
        // C̃ = 0.8·1e6 − 10·0.15·1000.
        assert!((a.c_tilde - (800_000.0 - 1_500.0)).abs() < 1e-6);
        // 5 ms later the VQ drained C̃·0.005 bytes; the adaptation integrates γ·C over 5 ms.
        let t1 = t0 + SimDuration::from_millis(5);
        let ct = a.c_tilde;
        assert_eq!(a.on_enqueue(t1, &pkt(), &view(), &mut rng), Verdict::Pass);
        assert!((a.vq - (10_000.0 - ct * 0.005 + 1000.0)).abs() < 1e-6);
        let expect = ct + 0.15 * (0.98 * 1e6 * 0.005 - 1000.0);
        assert!((a.c_tilde - expect).abs() < 1e-6);
    }

    /// Arrivals at exactly γ·C leave C̃ where it is; faster arrivals shrink it, slower grow it
    /// (up to C).
    #[test]
    fn capacity_adapts_towards_gamma_c() {
        let run = |gap_us: u64| {
            let mut a = Avq::new(Params::default(), 8_000_000);
            let mut rng = SimRng::new(0, 0);
            let big = QueueView {
                limit: BufferLimit::Packets(1_000_000),
                ..view()
            };
            let mut t = SimTime::ZERO;
            for _ in 0..2000 {
                a.on_enqueue(t, &pkt(), &big, &mut rng);
                t += SimDuration::from_micros(gap_us);
            }
            a.c_tilde / a.c
        };
        let at_gamma = run(1020); // 1000 bytes every 1.0204 ms ≈ 0.98 MB/s
        assert!((at_gamma - 0.8).abs() < 0.01, "{at_gamma}");
        // 1000 bytes every 0.9 ms: C̃ falls by α·(882 − 1000) bytes/s per packet.
        assert!((run(900) - (0.8 - 2000.0 * 0.15 * 118.0 / 1e6)).abs() < 0.001);
        assert_eq!(run(2000), 1.0);
    }

    #[test]
    fn marking_mode_marks_ect_and_passes_not_ect() {
        let mut a = Avq::new(
            Params {
                ecn: true,
                ..Params::default()
            },
            8_000_000,
        );
        let mut rng = SimRng::new(0, 0);
        for _ in 0..10 {
            a.on_enqueue(SimTime::ZERO, &pkt(), &view(), &mut rng);
        }
        let mut ect = pkt();
        ect.ecn = Ecn::Ect;
        assert_eq!(
            a.on_enqueue(SimTime::ZERO, &pkt(), &view(), &mut rng),
            Verdict::Pass
        );
        assert_eq!(
            a.on_enqueue(SimTime::ZERO, &ect, &view(), &mut rng),
            Verdict::Signal(Reason::Early)
        );
    }
}
