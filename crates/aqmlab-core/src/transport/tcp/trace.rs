//! Per-flow TCP traces on demand (`trace = { flows = [...] }`): one row per ACK (new or
//! duplicate) and per retransmission timeout, recorded by the sender after it has acted, so a
//! run can be set beside ns-2's variable traces (`Agent/TCP trace cwnd_` ...) and followed to
//! the first event where they part. Off (a `None` the sender checks) unless asked for.

use crate::time::SimTime;

use super::rtt::RttEstimator;
use super::sender::SenderStats;

/// What the row records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    Ack,
    DupAck,
    Timeout,
}

impl TraceEvent {
    pub fn name(self) -> &'static str {
        match self {
            TraceEvent::Ack => "ack",
            TraceEvent::DupAck => "dupack",
            TraceEvent::Timeout => "timeout",
        }
    }
}

/// Columns of one sender's trace.
#[derive(Clone, Debug, Default)]
pub struct TcpTrace {
    pub t_s: Vec<f64>,
    pub event: Vec<TraceEvent>,
    pub cwnd: Vec<f64>,
    /// Segments; 0 while unlimited (ns-2's convention).
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
    /// The timeout the sender would arm now (backoff included).
    pub rto_s: Vec<f64>,
    pub backoff: Vec<u32>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub snd_una: Vec<u64>,
    pub in_recovery: Vec<bool>,
}

impl TcpTrace {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        now: SimTime,
        event: TraceEvent,
        cwnd: f64,
        ssthresh: u64,
        rtt: &RttEstimator,
        stats: &SenderStats,
        snd_una: u64,
        in_recovery: bool,
    ) {
        self.t_s.push(now.as_secs_f64());
        self.event.push(event);
        self.cwnd.push(cwnd);
        self.ssthresh.push(if ssthresh == u64::MAX {
            0.0
        } else {
            ssthresh as f64
        });
        self.srtt_s
            .push(rtt.srtt().map_or(0.0, |d| d.as_secs_f64()));
        self.rto_s.push(rtt.rto().as_secs_f64());
        self.backoff.push(rtt.backoff());
        self.retransmits.push(stats.retransmits);
        self.timeouts.push(stats.timeouts);
        self.snd_una.push(snd_una);
        self.in_recovery.push(in_recovery);
    }

    pub fn len(&self) -> usize {
        self.t_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_s.is_empty()
    }
}
