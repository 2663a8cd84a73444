//! Building a scenario's network for the engine: expand the scenario into links and flows
//! ([`expand`](super::expand)), build each link's qdisc, each flow's endpoints, routes and
//! activity, and hand the result to the engine as a [`World`].

use crate::aqm::BuildContext;
use crate::engine::{FlowRt, World};
use crate::metrics::recorder::observes;
use crate::net::link::Link;
use crate::net::pipe::PipeSlab;
use crate::rng::{component, SimRng};
use crate::scenario::expand::{expand, Expanded};
use crate::scenario::{FlowKind, Scenario};
use crate::time::SimTime;
use crate::traffic::{Sink, Source};
use crate::transport::tcp::Receiver;

/// Build options that do not change what is simulated, only how.
#[derive(Copy, Clone, Debug)]
pub struct EngineOptions {
    /// Model lossless DropTail links (the bottleneck too, when it is one) by FIFO arithmetic
    /// instead of queue + transmitter events. Same departures, fewer events; off only to
    /// cross-check.
    pub arithmetic_fifo: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            arithmetic_fifo: true,
        }
    }
}

/// The engine's world for `scenario`, and the expanded network it was built from (which the
/// recorder reads: groups, flows' routes and base RTTs, the declared links).
pub fn world(scenario: &Scenario, options: EngineOptions) -> (World, Expanded) {
    let net = expand(scenario);
    let f = &scenario.file;
    let links = build_links(&net, scenario, options);
    let mut flows = build_flows(&net, f.seed);
    for &id in &f.trace.flows {
        if let Some(s) = flows
            .get_mut(id as usize)
            .and_then(|fl| fl.source.sender_mut())
        {
            s.enable_trace();
        }
    }
    let world = World {
        now: SimTime::ZERO,
        end: SimTime::ZERO + f.duration,
        warmup: SimTime::ZERO + f.warmup,
        links,
        pipes: PipeSlab::new(),
        flows,
        bottleneck: net.bottleneck,
    };
    (world, net)
}

fn build_links(net: &Expanded, scenario: &Scenario, options: EngineOptions) -> Vec<Link> {
    let seed = scenario.file.seed;
    let infos: Vec<_> = net.flows.iter().map(|fl| fl.info.clone()).collect();
    let mean_pkt = mean_data_packet_bytes(net);
    net.topology
        .links
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let ctx = BuildContext {
                limit: spec.buffer,
                link_rate_bps: spec.rate_bps,
                mean_pkt_bytes: mean_pkt[i],
                flows: &infos,
                seed,
            };
            // A lossless link whose qdisc decides only at arrival (`Qdisc::arithmetic`) knows
            // each departure on arrival; a link the recorder observes (per-flow counters, and
            // a probe fed every departure) keeps them through the glue even as a plain FIFO.
            let qdisc = spec.qdisc.build(&ctx);
            Link::new(
                spec,
                qdisc,
                SimRng::new(seed, component::QDISC_BASE + i as u64),
                SimRng::new(seed, component::LOSS_BASE + i as u64),
                options.arithmetic_fifo,
                observes(scenario, net, i),
            )
        })
        .collect()
}

/// Each link's typical data packet size, bytes: the mean of the data packet sizes of the flows
/// whose data route crosses it (TCP's `mss`, a UDP source's `packet_bytes`), rounded to the
/// nearest byte; for a link no data route crosses (it carries ACKs only), the mean over every
/// flow; 1000 bytes (ns-2's default packet size) in a scenario without flows.
fn mean_data_packet_bytes(net: &Expanded) -> Vec<u32> {
    let mean = |sum: u64, n: u64| ((sum + n / 2) / n.max(1)) as u32;
    let n_all = net.flows.len() as u64;
    let sum_all: u64 = net.flows.iter().map(|f| f.info.packet_bytes as u64).sum();
    let fallback = if n_all == 0 {
        1000
    } else {
        mean(sum_all, n_all)
    };
    let mut per_link = vec![(0u64, 0u64); net.topology.links.len()];
    for fl in &net.flows {
        for &l in &fl.forward {
            let (sum, n) = &mut per_link[l as usize];
            *sum += fl.info.packet_bytes as u64;
            *n += 1;
        }
    }
    per_link
        .into_iter()
        .map(|(sum, n)| if n == 0 { fallback } else { mean(sum, n) })
        .collect()
}

fn build_flows(net: &Expanded, seed: u64) -> Vec<FlowRt> {
    net.flows
        .iter()
        .enumerate()
        .map(|(i, fl)| {
            let id = i as u32;
            let udp_sink = || Sink::Udp {
                packets: 0,
                bytes: 0,
            };
            let (source, sink) = match fl.kind {
                FlowKind::Tcp => {
                    let limit = (fl.packets > 0).then_some(fl.packets);
                    let rng = SimRng::new(seed, component::SOURCE_BASE + i as u64);
                    (
                        Source::tcp(id, &fl.tcp, limit, rng),
                        Sink::Tcp(Receiver::new(id, &fl.tcp)),
                    )
                }
                FlowKind::Web => (
                    Source::web(
                        id,
                        &fl.tcp,
                        fl.web.segments,
                        fl.web.think_time,
                        SimRng::new(seed, component::SOURCE_BASE + i as u64),
                    ),
                    Sink::Tcp(Receiver::new(id, &fl.tcp)),
                ),
                FlowKind::UdpCbr => (Source::cbr(id, &fl.cbr), udp_sink()),
                FlowKind::ParetoOnoff => {
                    let rng = SimRng::new(seed, component::SOURCE_BASE + i as u64);
                    (Source::pareto(id, &fl.pareto, rng), udp_sink())
                }
            };
            let mut rt = FlowRt::new(source, sink, fl.info.packet_bytes);
            rt.forward = fl.forward.clone();
            rt.reverse = fl.reverse.clone();
            rt.active = fl.active.clone();
            rt
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean is over the flows whose data crosses each link, whatever their transport: a
    /// UDP group listed first does not lend every link a TCP MSS it does not send.
    #[test]
    fn each_link_gets_the_mean_data_packet_of_its_flows() {
        let s = Scenario::from_toml_str(
            r#"
            duration = "1s"
            [bottleneck]
            rate = "10Mbps"
            delay = "5ms"
            buffer = 50
            qdisc = { kind = "red" }
            [[flows]]
            kind = "udp_cbr"
            count = 1
            cbr = { rate = "1Mbps", packet_bytes = 200 }
            [[flows]]
            count = 2
            tcp = { mss = 1000 }
            "#,
        )
        .expect("valid scenario");
        let net = expand(&s);
        let mean = mean_data_packet_bytes(&net);
        // (200 + 1000 + 1000) / 3, rounded.
        assert_eq!(mean[net.bottleneck as usize], 733);
        let udp_access = net.flows[0].forward[0] as usize;
        assert_eq!(mean[udp_access], 200);
        let tcp_access = net.flows[1].forward[0] as usize;
        assert_eq!(mean[tcp_access], 1000);
        // The reverse bottleneck carries ACKs only: the mean over every flow.
        let reverse = net.flows[1]
            .reverse
            .iter()
            .copied()
            .find(|&l| net.flows.iter().all(|f| !f.forward.contains(&l)));
        assert_eq!(reverse.map(|l| mean[l as usize]), Some(733));
    }
}
