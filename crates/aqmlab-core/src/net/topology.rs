//! A network as a graph of nodes and one-way links, and static shortest-path routes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::aqm::AqmConfig;
use crate::qdisc::BufferLimit;
use crate::time::SimDuration;

pub type NodeId = u32;
pub type LinkId = u32;

/// What a link is for; used in names and metrics. `Named` is a link of a `[topology]`
/// scenario, named `from->to` by its nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkRole {
    Bottleneck,
    BottleneckReverse,
    Access { host: u32 },
    AccessReverse { host: u32 },
    Sink { host: u32 },
    SinkReverse { host: u32 },
    Named(String),
    Other,
}

/// One one-way link: rate, propagation delay, an egress qdisc and optional random loss.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub buffer: BufferLimit,
    pub qdisc: AqmConfig,
    /// Probability that a transmitted packet is lost on the wire.
    pub loss: f64,
    pub role: LinkRole,
}

#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: u32,
    pub links: Vec<LinkSpec>,
}

impl Topology {
    pub fn add_node(&mut self) -> NodeId {
        self.nodes += 1;
        self.nodes - 1
    }

    pub fn add_link(&mut self, spec: LinkSpec) -> LinkId {
        debug_assert!(spec.from < self.nodes && spec.to < self.nodes);
        self.links.push(spec);
        (self.links.len() - 1) as LinkId
    }

    /// The least-delay path from `from` to `to` (ties: fewer hops, then lower link ids), as a
    /// list of links; `None` if unreachable. Dijkstra over link delays.
    pub fn shortest_path(&self, from: NodeId, to: NodeId) -> Option<Vec<LinkId>> {
        let n = self.nodes as usize;
        let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            out[l.from as usize].push(i as LinkId);
        }
        let mut best: Vec<Option<(u64, u32)>> = vec![None; n];
        let mut via: Vec<Option<LinkId>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        best[from as usize] = Some((0, 0));
        heap.push(Reverse((0u64, 0u32, from)));
        while let Some(Reverse((d, hops, u))) = heap.pop() {
            if best[u as usize] != Some((d, hops)) {
                continue;
            }
            if u == to {
                break;
            }
            for &l in &out[u as usize] {
                let link = &self.links[l as usize];
                let cand = (d + link.delay.0, hops + 1);
                let v = link.to as usize;
                if best[v].is_none_or(|b| cand < b) {
                    best[v] = Some(cand);
                    via[v] = Some(l);
                    heap.push(Reverse((cand.0, cand.1, link.to)));
                }
            }
        }
        best[to as usize]?;
        let mut path = Vec::new();
        let mut at = to;
        while at != from {
            let l = via[at as usize]?;
            path.push(l);
            at = self.links[l as usize].from;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::droptail;

    fn link(from: NodeId, to: NodeId, ms: u64) -> LinkSpec {
        LinkSpec {
            from,
            to,
            rate_bps: 1_000_000,
            delay: SimDuration::from_millis(ms),
            buffer: BufferLimit::Packets(10),
            qdisc: AqmConfig::DropTail(droptail::Params {}),
            loss: 0.0,
            role: LinkRole::Other,
        }
    }

    #[test]
    fn picks_least_delay_path() {
        let mut t = Topology::default();
        for _ in 0..4 {
            t.add_node();
        }
        let direct = t.add_link(link(0, 3, 50));
        let a = t.add_link(link(0, 1, 10));
        let b = t.add_link(link(1, 2, 10));
        let c = t.add_link(link(2, 3, 10));
        assert_eq!(t.shortest_path(0, 3), Some(vec![a, b, c]));
        assert_ne!(t.shortest_path(0, 3), Some(vec![direct]));
        assert_eq!(t.shortest_path(3, 0), None);
    }
}
