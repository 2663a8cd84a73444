//! Helpers the algorithms' unit tests share: a packet and a build context.

use super::{BuildContext, FlowInfo};
use crate::net::packet::{FlowId, Packet};
use crate::qdisc::BufferLimit;

/// A data packet `id` of `flow`, `size` bytes, Not-ECT, no labels.
pub(crate) fn pkt(id: u64, flow: FlowId, size: u32) -> Packet {
    Packet {
        id,
        flow,
        size_bytes: size,
        ..Default::default()
    }
}

/// The build context of a link of `limit` at `link_rate_bps`: 1000-byte packets, no per-flow
/// facts, seed 0.
pub(crate) fn ctx(limit: BufferLimit, link_rate_bps: u64) -> BuildContext<'static> {
    BuildContext {
        limit,
        link_rate_bps,
        mean_pkt_bytes: 1000,
        flows: &[] as &[FlowInfo],
        seed: 0,
    }
}
