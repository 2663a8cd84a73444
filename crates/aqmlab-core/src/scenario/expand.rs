//! Expansion of a scenario into a graph of nodes and links plus a list of flows.
//!
//! The dumbbell shorthand:
//!
//! ```text
//!  src host h ──access h──►            ──sink h──► dst host h
//!                          R1 ══bottleneck══► R2
//!  src host h ◄─access h rev─  ◄═reverse═      ◄─sink h rev── dst host h
//! ```
//! Each group's flows are spread round robin over its source hosts (`hosts`, default one per
//! flow); each source host has a matching destination host behind its own sink link. A flow's
//! base RTT is 2 × (access delay + bottleneck delay + sink delay). Only the bottleneck has the
//! scenario's qdisc; every other link is DropTail: access links with the group's `access_buffer`
//! (default 1000 packets), sink links and the reverse bottleneck with 10 000 packets, so that,
//! as in the papers' topologies, only the bottleneck drops unless a scenario makes an access
//! link the narrower one.
//!
//! A `[topology]` scenario replaces `R1 ══ R2` by its declared graph (validated and routed in
//! [`topology`](crate::scenario::topology); its links come first, entry `k` as links `2k` and
//! `2k + 1`), and each group attaches its source hosts to its `src` node and its receivers to
//! its `dst` node in the same way. A flow's route is its access link, the group's route through
//! the declared graph, and its sink link; its base RTT is the sum of the delays along the data
//! route and the ACK route.

use crate::aqm::{droptail, AqmConfig, FlowInfo};
use crate::net::topology::{LinkId, LinkRole, LinkSpec, NodeId, Topology};
use crate::qdisc::BufferLimit;
use crate::rng::SimRng;
use crate::scenario::topology::{Route, UNCONGESTED_BUFFER};
use crate::scenario::{Bottleneck, FlowKind, Scenario, WebConfig};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpConfig;
use crate::transport::udp::{CbrConfig, ParetoConfig};

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
    /// Activity intervals `[on, off)` in time order; `None` = until the end of the run.
    pub active: Vec<(SimTime, Option<SimTime>)>,
    /// Finite transfer size in segments (0 = unlimited).
    pub packets: u64,
    pub tcp: TcpConfig,
    pub web: WebConfig,
    pub cbr: CbrConfig,
    pub pareto: ParetoConfig,
    pub info: FlowInfo,
    pub forward: Vec<LinkId>,
    pub reverse: Vec<LinkId>,
}

#[derive(Clone, Debug)]
pub struct Expanded {
    pub topology: Topology,
    pub flows: Vec<FlowSpec>,
    /// The measured link: the dumbbell's bottleneck, or a topology's `measure = true` link.
    pub bottleneck: LinkId,
    /// Links `0..declared` are a `[topology]` scenario's own links (0 for the dumbbell).
    pub declared: usize,
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

/// The dumbbell's core: R1 → R2 (the bottleneck) and back, and the one route every group takes.
fn dumbbell(s: &Scenario, b: &Bottleneck) -> (Topology, LinkId, Route) {
    let mut t = Topology::default();
    let r1 = t.add_node();
    let r2 = t.add_node();
    let bottleneck = t.add_link(LinkSpec {
        buffer: b.buffer.limit(),
        qdisc: s.qdisc.clone(),
        loss: b.loss,
        ..link(r1, r2, b.rate.bps(), b.delay, LinkRole::Bottleneck)
    });
    let back = t.add_link(link(
        r2,
        r1,
        b.rate.bps(),
        b.delay,
        LinkRole::BottleneckReverse,
    ));
    let route = Route {
        src: r1,
        dst: r2,
        forward: vec![bottleneck],
        reverse: vec![back],
    };
    (t, bottleneck, route)
}

pub fn expand(s: &Scenario) -> Expanded {
    let f = &s.file;
    let (mut t, bottleneck, declared, routes) = match (&s.topology, &f.bottleneck) {
        (Some(net), _) => (
            net.graph.clone(),
            net.measured,
            net.declared_links(),
            net.routes.clone(),
        ),
        (None, Some(b)) => {
            let (t, bottleneck, route) = dumbbell(s, b);
            (t, bottleneck, 0, vec![route; f.flows.len()])
        }
        (None, None) => unreachable!("a validated scenario has [bottleneck] or [topology]"),
    };
    let delay = |t: &Topology, links: &[LinkId]| {
        links
            .iter()
            .fold(SimDuration::ZERO, |d, &l| d + t.links[l as usize].delay)
    };

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
        let durations = g
            .duration
            .as_ref()
            .map(|d| d.values(n, &mut SimRng::new(f.seed, stream(gi, 4))));
        let route = &routes[gi];
        let (core_fwd, core_rev) = (delay(&t, &route.forward), delay(&t, &route.reverse));
        // Per host of this group: its two nodes, its data and ACK routes, base RTT.
        let mut host_nodes = Vec::with_capacity(hosts);
        for &d in &delays {
            let h = host_index;
            host_index += 1;
            let src = t.add_node();
            let dst = t.add_node();
            let access = |from, to, role| LinkSpec {
                buffer: g.access_buffer.limit(),
                ..link(from, to, g.access_rate.bps(), d, role)
            };
            let up = t.add_link(access(src, route.src, LinkRole::Access { host: h }));
            let down = t.add_link(access(route.src, src, LinkRole::AccessReverse { host: h }));
            let sink = t.add_link(link(
                route.dst,
                dst,
                f.sink.rate.bps(),
                f.sink.delay,
                LinkRole::Sink { host: h },
            ));
            let sink_back = t.add_link(link(
                dst,
                route.dst,
                f.sink.rate.bps(),
                f.sink.delay,
                LinkRole::SinkReverse { host: h },
            ));
            let forward: Vec<LinkId> = std::iter::once(up)
                .chain(route.forward.iter().copied())
                .chain(std::iter::once(sink))
                .collect();
            let reverse: Vec<LinkId> = std::iter::once(sink_back)
                .chain(route.reverse.iter().copied())
                .chain(std::iter::once(down))
                .collect();
            let rtt = d + core_fwd + f.sink.delay + f.sink.delay + core_rev + d;
            host_nodes.push((src, dst, forward, reverse, rtt));
        }
        for (i, &start) in starts.iter().enumerate() {
            let (src, dst, ref forward, ref reverse, base_rtt) = host_nodes[i % hosts];
            let factor = idmaps_rng.uniform_range(0.5, 2.0);
            let start = SimTime::ZERO + start;
            let active = if g.active.is_empty() {
                vec![(start, durations.as_ref().map(|d| start + d[i]))]
            } else {
                g.active
                    .iter()
                    .enumerate()
                    .map(|(k, [on, off])| {
                        let on = SimTime::ZERO + *on;
                        (
                            if k == 0 { on.max(start) } else { on },
                            Some(SimTime::ZERO + *off),
                        )
                    })
                    .filter(|(on, off)| off.is_none_or(|off| *on < off))
                    .collect()
            };
            flows.push(FlowSpec {
                group: gi,
                kind: g.kind,
                src,
                dst,
                start,
                active,
                packets: g.packets,
                tcp: g.tcp.clone(),
                web: g.web.clone().unwrap_or_default(),
                cbr: g.cbr.clone().unwrap_or_default(),
                pareto: g.pareto.clone().unwrap_or_default(),
                info: FlowInfo {
                    base_rtt,
                    idmaps_rtt: SimDuration::from_secs_f64(base_rtt.as_secs_f64() * factor),
                    packet_bytes: g.packet_bytes(),
                },
                forward: forward.clone(),
                reverse: reverse.clone(),
            });
        }
    }
    Expanded {
        topology: t,
        flows,
        bottleneck,
        declared,
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
