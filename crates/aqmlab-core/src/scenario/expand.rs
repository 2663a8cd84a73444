//! Expansion of the dumbbell shorthand into a graph of nodes and links plus a list of flows.
//!
//! ```text
//!  src host h ──access h──►            ──sink h──► dst host h
//!                          R1 ══bottleneck══► R2
//!  src host h ◄─access h rev─  ◄═reverse═      ◄─sink h rev── dst host h
//! ```
//! Each group's flows are spread round robin over its source hosts (`hosts`, default one per
//! flow); each source host has a matching destination host behind its own sink link. A flow's
//! base RTT is 2 × (access delay + bottleneck delay + sink delay). Only the bottleneck has the
//! scenario's qdisc; every other link (access, sink, and the reverse path the ACKs take) has a
//! DropTail queue of 10 000 packets, so that, as in the papers' topologies, only the bottleneck
//! drops.

use crate::aqm::{droptail, AqmConfig, FlowInfo};
use crate::net::topology::{LinkId, LinkRole, LinkSpec, NodeId, Topology};
use crate::qdisc::BufferLimit;
use crate::rng::SimRng;
use crate::scenario::{FlowKind, Scenario};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpConfig;

/// Buffer of every non-bottleneck link (packets).
pub const UNCONGESTED_BUFFER: u32 = 10_000;

/// Random-stream component ids used by expansion: one per (group, purpose).
fn stream(group: usize, purpose: u64) -> u64 {
    crate::rng::component::SCENARIO + ((group as u64) << 8) + purpose
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub group: usize,
    pub kind: FlowKind,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    /// Finite transfer size in segments (0 = unlimited).
    pub packets: u64,
    pub tcp: TcpConfig,
    pub info: FlowInfo,
    pub forward: Vec<LinkId>,
    pub reverse: Vec<LinkId>,
}

#[derive(Clone, Debug)]
pub struct Expanded {
    pub topology: Topology,
    pub flows: Vec<FlowSpec>,
    pub bottleneck: LinkId,
    pub group_names: Vec<String>,
}

fn link(from: NodeId, to: NodeId, rate_bps: u64, delay: SimDuration, role: LinkRole) -> LinkSpec {
    LinkSpec {
        from,
        to,
        rate_bps,
        delay,
        buffer: BufferLimit::Packets(UNCONGESTED_BUFFER),
        qdisc: AqmConfig::DropTail(droptail::Params {}),
        loss: 0.0,
        role,
    }
}

pub fn expand(s: &Scenario) -> Expanded {
    let f = &s.file;
    let b = &f.bottleneck;
    let mut t = Topology::default();
    let r1 = t.add_node();
    let r2 = t.add_node();
    let bottleneck = t.add_link(LinkSpec {
        buffer: b.buffer.limit(),
        qdisc: s.qdisc.clone(),
        loss: b.loss,
        ..link(r1, r2, b.rate.bps(), b.delay, LinkRole::Bottleneck)
    });
    t.add_link(link(
        r2,
        r1,
        b.rate.bps(),
        b.delay,
        LinkRole::BottleneckReverse,
    ));

    let mut flows = Vec::new();
    let mut group_names = Vec::new();
    let mut host_index = 0u32;
    for (gi, g) in f.flows.iter().enumerate() {
        group_names.push(if g.group.is_empty() {
            format!("g{gi}")
        } else {
            g.group.clone()
        });
        let n = g.count as usize;
        let hosts = if g.hosts == 0 { n } else { g.hosts as usize };
        let delays = g
            .access_delay
            .values(hosts, &mut SimRng::new(f.seed, stream(gi, 1)));
        let starts = g.start.values(n, &mut SimRng::new(f.seed, stream(gi, 2)));
        let mut idmaps_rng = SimRng::new(f.seed, stream(gi, 3));
        // (src, dst, one-way propagation delay) per host of this group.
        let mut host_nodes = Vec::with_capacity(hosts);
        for &d in &delays {
            let h = host_index;
            host_index += 1;
            let src = t.add_node();
            let dst = t.add_node();
            t.add_link(link(
                src,
                r1,
                g.access_rate.bps(),
                d,
                LinkRole::Access { host: h },
            ));
            t.add_link(link(
                r1,
                src,
                g.access_rate.bps(),
                d,
                LinkRole::AccessReverse { host: h },
            ));
            t.add_link(link(
                r2,
                dst,
                f.sink.rate.bps(),
                f.sink.delay,
                LinkRole::Sink { host: h },
            ));
            t.add_link(link(
                dst,
                r2,
                f.sink.rate.bps(),
                f.sink.delay,
                LinkRole::SinkReverse { host: h },
            ));
            host_nodes.push((src, dst, d + b.delay + f.sink.delay));
        }
        for (i, &start) in starts.iter().enumerate() {
            let (src, dst, one_way) = host_nodes[i % hosts];
            let base_rtt = SimDuration(2 * one_way.0);
            let factor = idmaps_rng.uniform_range(0.5, 2.0);
            flows.push(FlowSpec {
                group: gi,
                kind: g.kind,
                src,
                dst,
                start: SimTime::ZERO + start,
                packets: g.packets,
                tcp: g.tcp.clone(),
                info: FlowInfo {
                    base_rtt,
                    idmaps_rtt: SimDuration::from_secs_f64(base_rtt.as_secs_f64() * factor),
                    packet_bytes: g.tcp.mss,
                },
                forward: Vec::new(),
                reverse: Vec::new(),
            });
        }
    }
    for fl in &mut flows {
        // Every dumbbell host reaches every other by construction, so routes always exist.
        fl.forward = t.shortest_path(fl.src, fl.dst).unwrap_or_default();
        fl.reverse = t.shortest_path(fl.dst, fl.src).unwrap_or_default();
    }
    Expanded {
        topology: t,
        flows,
        bottleneck,
        group_names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let s = Scenario::from_toml_str(
            r#"
            duration = "1s"
            [bottleneck]
            rate = "10Mbps"
            delay = "5ms"
            [[flows]]
            count = 4
            hosts = 2
            access_delay = { list = ["10ms", "20ms"] }
            "#,
        )
        .unwrap();
        let e = expand(&s);
        assert_eq!(e.flows.len(), 4);
        for (i, fl) in e.flows.iter().enumerate() {
            assert_eq!(fl.forward.len(), 3);
            assert_eq!(fl.forward[1], e.bottleneck);
            assert_eq!(fl.reverse.len(), 3);
            let one_way = if i % 2 == 0 { 15 } else { 25 };
            assert_eq!(fl.info.base_rtt, SimDuration::from_millis(2 * one_way));
            let f = fl.info.idmaps_rtt.as_secs_f64() / fl.info.base_rtt.as_secs_f64();
            assert!((0.5..=2.0).contains(&f));
        }
        // Flows 0 and 2 share host 0's access link.
        assert_eq!(e.flows[0].forward[0], e.flows[2].forward[0]);
    }
}
