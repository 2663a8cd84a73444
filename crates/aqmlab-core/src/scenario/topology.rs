//! The general topology form of a scenario (`[topology]`): named nodes, two-way links with a
//! qdisc per direction, and flow groups that name their source and destination nodes.
//!
//! ```toml
//! [topology]
//! nodes = ["R0", "R1", "R2", "R3"]      # optional: else the nodes the links name, in order
//! [[topology.links]]
//! from = "R0"
//! to = "R1"
//! rate = "10Mbps"
//! delay = "10ms"
//! buffer = 100                          # default 100 packets
//! qdisc = { kind = "red" }              # default droptail
//! measure = true                        # the link the scalar summary describes (default: the first)
//! reverse = { rate = "10Mbps", buffer = 1000 }   # the to -> from direction (defaults below)
//!
//! [[flows]]
//! src = "R0"                            # the group's hosts attach here through access links
//! dst = "R3"                            # and their receivers here through sink links
//! path = ["R0", "R1", "R2", "R3"]       # optional; default: the least-delay route
//! ```
//!
//! Every `[[topology.links]]` entry is a pair of one-way links: `from -> to` with the entry's
//! rate, delay, buffer, loss and qdisc, and `to -> from` with `reverse`'s, which default to the
//! same rate and delay, a DropTail queue of [`UNCONGESTED_BUFFER`] packets and no loss. Flows
//! attach exactly as in the dumbbell: each source host reaches `src` over its own access link
//! (`access_rate`, `access_delay`, `access_buffer`), and each receiver hangs off `dst` behind a
//! `[sink]` link. Data follow `path` (or the least-delay route, ties to fewer hops, then to
//! earlier links); ACKs follow the same nodes backwards when `path` is given, else the
//! least-delay route back.
//!
//! Validation happens here, once, so expansion cannot fail: names resolve to node ids, each
//! entry's two directions become link ids `2k` and `2k + 1` of the expanded graph, and every
//! group gets its routes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::aqm::AqmConfig;
use crate::error::{check, ScenarioError};
use crate::net::topology::{LinkId, LinkRole, LinkSpec, NodeId, Topology};
use crate::scenario::{default_buffer, default_qdisc, finite_in, Buffer, FlowGroup};
use crate::time::{Rate, SimDuration};

/// Buffer of every non-bottleneck link (packets).
pub const UNCONGESTED_BUFFER: u32 = 10_000;

fn default_reverse_buffer() -> Buffer {
    Buffer::Packets(UNCONGESTED_BUFFER as i64)
}

/// The `[topology]` table.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Node names; optional (default: every name the links use, in order of appearance). When
    /// given, links and flows may use only these names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// The two-way links (`[[topology.links]]`), at most one per pair of nodes.
    pub links: Vec<LinkEntry>,
}

/// One `[[topology.links]]` entry: a two-way link between `from` and `to`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    /// One end of the link (a node name).
    pub from: String,
    /// The other end, a different node.
    pub to: String,
    /// Rate of the `from -> to` direction.
    pub rate: Rate,
    /// One-way propagation delay of the `from -> to` direction.
    pub delay: SimDuration,
    /// Buffer of the `from -> to` direction, as `bottleneck.buffer`.
    #[serde(default = "default_buffer")]
    pub buffer: Buffer,
    /// Probability that a packet is lost on the wire in the `from -> to` direction, in [0, 1).
    #[serde(default)]
    pub loss: f64,
    /// The `from -> to` queue discipline, any `kind` (its own instance, timers and random stream).
    #[schemars(schema_with = "crate::aqm::qdisc_schema")]
    #[serde(default = "default_qdisc")]
    pub qdisc: toml::Table,
    /// The scalar summary (utilisation, loss_rate, drops, queue, delay) describes this link's `from
    /// -> to` direction. At most one link; none: the first entry.
    #[serde(default)]
    pub measure: bool,
    /// The `to -> from` direction.
    #[serde(default)]
    pub reverse: Reverse,
}

/// The `to -> from` direction of a link entry.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reverse {
    /// Rate; default: the entry's `rate` (written out in the resolved scenario).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way delay; default: the entry's `delay` (written out in the resolved scenario).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    /// Buffer, packets or a size string (default: uncongested).
    #[serde(default = "default_reverse_buffer")]
    pub buffer: Buffer,
    /// Random loss on the wire, in [0, 1).
    #[serde(default)]
    pub loss: f64,
    /// The `to -> from` queue discipline.
    #[schemars(schema_with = "crate::aqm::qdisc_schema")]
    #[serde(default = "default_qdisc")]
    pub qdisc: toml::Table,
}

impl Default for Reverse {
    fn default() -> Self {
        Reverse {
            rate: None,
            delay: None,
            buffer: default_reverse_buffer(),
            loss: 0.0,
            qdisc: default_qdisc(),
        }
    }
}

/// A flow group's attachment points and routes through the declared links.
#[derive(Clone, Debug)]
pub struct Route {
    pub src: NodeId,
    pub dst: NodeId,
    pub forward: Vec<LinkId>,
    pub reverse: Vec<LinkId>,
}

/// A validated `[topology]`: the declared graph (node `i` is `nodes[i]`; entry `k`'s directions
/// are links `2k` and `2k + 1`), the measured link, and one route per flow group.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub nodes: Vec<String>,
    pub graph: Topology,
    pub measured: LinkId,
    pub routes: Vec<Route>,
}

impl Resolved {
    /// Number of declared one-way links (the first links of the expanded graph).
    pub fn declared_links(&self) -> usize {
        self.graph.links.len()
    }
}

fn check_buffer(buffer: Buffer, key: &str, mss: u32) -> Result<(), ScenarioError> {
    match buffer {
        Buffer::Packets(n) => check((1..=10_000_000).contains(&n), key, n, "at least 1 packet"),
        Buffer::Bytes(n) => check(
            n >= (mss as u64).max(64),
            key,
            format!("{n}B"),
            "at least one data packet (the largest mss of the flow groups)",
        ),
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Spec {
    /// Validates the table and the flow groups' `src`/`dst`/`path`, fills in the defaults of
    /// each link (qdisc parameters, reverse rate and delay) and resolves names to ids.
    pub fn resolve(&mut self, flows: &[FlowGroup]) -> Result<Resolved, ScenarioError> {
        check(
            !self.links.is_empty(),
            "topology.links",
            "[]",
            "at least one [[topology.links]] entry",
        )?;
        let mut nodes: Vec<String> = Vec::new();
        for (k, n) in self.nodes.iter().enumerate() {
            let key = format!("topology.nodes.{k}");
            check(!n.is_empty(), &key, "\"\"", "a non-empty node name")?;
            check(
                !nodes.contains(n),
                &key,
                format!("\"{n}\""),
                "a name not already in topology.nodes",
            )?;
            nodes.push(n.clone());
        }
        let declared = !nodes.is_empty();
        let mss = flows.iter().map(|g| g.tcp.mss).max().unwrap_or(0);
        let mut graph = Topology::default();
        let mut measured: Option<(usize, LinkId)> = None;
        let mut ends: Vec<(NodeId, NodeId)> = Vec::new();
        // Resolve every name first, so node ids follow `nodes` or the order of appearance.
        for (k, l) in self.links.iter().enumerate() {
            for (end, name) in [("from", &l.from), ("to", &l.to)] {
                let key = format!("topology.links.{k}.{end}");
                check(!name.is_empty(), &key, "\"\"", "a non-empty node name")?;
                if !nodes.contains(name) {
                    check(
                        !declared,
                        &key,
                        format!("\"{name}\""),
                        &format!("a node of topology.nodes: {}", quoted(&self.nodes)),
                    )?;
                    nodes.push(name.clone());
                }
            }
        }
        for _ in &nodes {
            graph.add_node();
        }
        let id = |name: &str| nodes.iter().position(|n| n == name).map(|i| i as NodeId);
        for (k, l) in self.links.iter_mut().enumerate() {
            let at = |key: &str| format!("topology.links.{k}.{key}");
            let (from, to) = (id(&l.from).unwrap_or(0), id(&l.to).unwrap_or(0));
            check(
                from != to,
                &at("to"),
                format!("\"{}\"", l.to),
                &format!("a node other than from (\"{}\")", l.from),
            )?;
            if let Some(j) = ends
                .iter()
                .position(|&(a, b)| (a, b) == (from, to) || (a, b) == (to, from))
            {
                return Err(ScenarioError::new(
                    format!("topology.links.{k}"),
                    format!("a second link between \"{}\" and \"{}\"", l.from, l.to),
                    format!(
                        "one entry per pair of nodes (topology.links.{j} already connects them \
                         both ways; its `reverse` sets the other direction)"
                    ),
                ));
            }
            ends.push((from, to));
            check_buffer(l.buffer, &at("buffer"), mss)?;
            check_buffer(l.reverse.buffer, &at("reverse.buffer"), mss)?;
            check(
                finite_in(l.loss, 0.0, 1.0),
                &at("loss"),
                l.loss,
                "a probability in [0, 1)",
            )?;
            check(
                finite_in(l.reverse.loss, 0.0, 1.0),
                &at("reverse.loss"),
                l.reverse.loss,
                "a probability in [0, 1)",
            )?;
            let qdisc =
                AqmConfig::from_table(l.qdisc.clone()).map_err(|e| e.prefixed(&at("qdisc")))?;
            let rev_qdisc = AqmConfig::from_table(l.reverse.qdisc.clone())
                .map_err(|e| e.prefixed(&at("reverse.qdisc")))?;
            l.qdisc = qdisc.to_table();
            l.reverse.qdisc = rev_qdisc.to_table();
            let rev_rate = *l.reverse.rate.get_or_insert(l.rate);
            let rev_delay = *l.reverse.delay.get_or_insert(l.delay);
            let fwd = graph.add_link(LinkSpec {
                from,
                to,
                rate_bps: l.rate.bps(),
                delay: l.delay,
                buffer: l.buffer.limit(),
                qdisc,
                loss: l.loss,
                role: LinkRole::Named(format!("{}->{}", l.from, l.to)),
            });
            graph.add_link(LinkSpec {
                from: to,
                to: from,
                rate_bps: rev_rate.bps(),
                delay: rev_delay,
                buffer: l.reverse.buffer.limit(),
                qdisc: rev_qdisc,
                loss: l.reverse.loss,
                role: LinkRole::Named(format!("{}->{}", l.to, l.from)),
            });
            if l.measure {
                if let Some((j, _)) = measured {
                    return Err(ScenarioError::new(
                        at("measure"),
                        "true",
                        format!("at most one link with measure = true (topology.links.{j} has it)"),
                    ));
                }
                measured = Some((k, fwd));
            }
        }
        let routes = flows
            .iter()
            .enumerate()
            .map(|(i, g)| route(&graph, &nodes, g, i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Resolved {
            measured: measured.map_or(0, |(_, l)| l),
            nodes,
            graph,
            routes,
        })
    }
}

/// Resolves one group's `src`, `dst` and `path` into node ids and link routes.
fn route(
    graph: &Topology,
    nodes: &[String],
    g: &FlowGroup,
    i: usize,
) -> Result<Route, ScenarioError> {
    let at = |k: &str| format!("flows.{i}.{k}");
    let node = |key: &str, name: &Option<String>| -> Result<NodeId, ScenarioError> {
        let name = name.as_ref().ok_or_else(|| {
            ScenarioError::new(
                at(key),
                "missing",
                "a node of the topology (required in a [topology] scenario)",
            )
        })?;
        nodes
            .iter()
            .position(|n| n == name)
            .map(|p| p as NodeId)
            .ok_or_else(|| {
                ScenarioError::new(
                    at(key),
                    format!("\"{name}\""),
                    format!("a node of the topology: {}", quoted(nodes)),
                )
            })
    };
    let src = node("src", &g.src)?;
    let dst = node("dst", &g.dst)?;
    check(
        src != dst,
        &at("dst"),
        format!("\"{}\"", nodes[dst as usize]),
        "a node other than src",
    )?;
    if g.path.is_empty() {
        let (Some(forward), Some(reverse)) =
            (graph.shortest_path(src, dst), graph.shortest_path(dst, src))
        else {
            return Err(ScenarioError::new(
                at("dst"),
                format!("\"{}\"", nodes[dst as usize]),
                format!(
                    "a node reachable from src (\"{}\") over topology.links",
                    nodes[src as usize]
                ),
            ));
        };
        return Ok(Route {
            src,
            dst,
            forward,
            reverse,
        });
    }
    let mut hops: Vec<NodeId> = Vec::new();
    for (k, name) in g.path.iter().enumerate() {
        let key = format!("path.{k}");
        let n = node(&key, &Some(name.clone()))?;
        check(
            !hops.contains(&n),
            &at(&key),
            format!("\"{name}\""),
            "a node not already on the path (no loops)",
        )?;
        hops.push(n);
    }
    let last = g.path.len() - 1;
    check(
        hops[0] == src,
        &at("path.0"),
        format!("\"{}\"", g.path[0]),
        &format!("the group's src (\"{}\")", nodes[src as usize]),
    )?;
    check(
        hops[last] == dst,
        &at(&format!("path.{last}")),
        format!("\"{}\"", g.path[last]),
        &format!("the group's dst (\"{}\")", nodes[dst as usize]),
    )?;
    let mut forward = Vec::new();
    let mut reverse = Vec::new();
    for (k, w) in hops.windows(2).enumerate() {
        let find = |a: NodeId, b: NodeId| {
            graph
                .links
                .iter()
                .position(|l| l.from == a && l.to == b)
                .map(|p| p as LinkId)
        };
        let (Some(f), Some(r)) = (find(w[0], w[1]), find(w[1], w[0])) else {
            return Err(ScenarioError::new(
                at(&format!("path.{}", k + 1)),
                format!("\"{}\"", g.path[k + 1]),
                format!(
                    "a neighbour of \"{}\" (a [[topology.links]] entry between them)",
                    g.path[k]
                ),
            ));
        };
        forward.push(f);
        reverse.push(r);
    }
    reverse.reverse();
    Ok(Route {
        src,
        dst,
        forward,
        reverse,
    })
}

#[cfg(test)]
mod tests {
    use crate::error::ScenarioError;
    use crate::scenario::Scenario;

    const OK: &str = r#"
        duration = "10s"
        [topology]
        [[topology.links]]
        from = "R0"
        to = "R1"
        rate = "10Mbps"
        delay = "10ms"
        [[topology.links]]
        from = "R1"
        to = "R2"
        rate = "10Mbps"
        delay = "10ms"
        [[flows]]
        src = "R0"
        dst = "R2"
    "#;

    fn err(text: &str) -> ScenarioError {
        Scenario::from_toml_str(text).expect_err("should be rejected")
    }

    #[test]
    fn resolves_defaults_and_round_trips() {
        let s = Scenario::from_toml_str(OK).unwrap();
        let net = s.topology.as_ref().unwrap();
        assert_eq!(net.nodes, ["R0", "R1", "R2"]);
        assert_eq!(net.graph.links.len(), 4);
        assert_eq!(net.measured, 0);
        assert_eq!(net.routes[0].forward, [0, 2]);
        assert_eq!(net.routes[0].reverse, [3, 1]);
        let text = s.resolved_toml();
        assert!(text.contains("kind = \"droptail\""), "{text}");
        // The reverse direction's defaults are written out.
        let link = &s.file.topology.as_ref().unwrap().links[0];
        assert_eq!(link.reverse.rate, Some(link.rate));
        assert_eq!(link.reverse.delay, Some(link.delay));
        let again = Scenario::from_toml_str(&text).unwrap();
        assert_eq!(again.resolved_toml(), text);
    }

    fn check(text: &str, path: &str, value_has: &str) {
        let e = err(text);
        assert_eq!(e.path, path, "{e}");
        assert!(e.value.contains(value_has), "{e}");
        assert!(!e.allowed.is_empty(), "{e}");
    }

    #[test]
    fn errors_name_the_key_path() {
        // Unknown node names, in a flow and (with `nodes` given) in a link.
        check(
            &OK.replace("dst = \"R2\"", "dst = \"R9\""),
            "flows.0.dst",
            "R9",
        );
        let e = err(&OK.replace("src = \"R0\"", "src = \"X\""));
        assert_eq!(e.path, "flows.0.src");
        assert!(e.allowed.contains("\"R0\", \"R1\", \"R2\""), "{e}");
        check(
            &OK.replace("[topology]", "[topology]\nnodes = [\"R0\", \"R1\"]"),
            "topology.links.1.to",
            "R2",
        );
        check(
            &OK.replace("[topology]", "[topology]\nnodes = [\"R0\", \"R0\"]"),
            "topology.nodes.1",
            "R0",
        );
        // A link to itself.
        check(
            &OK.replacen("to = \"R1\"", "to = \"R0\"", 1),
            "topology.links.0.to",
            "R0",
        );
        // The same pair twice, in either direction.
        check(
            &OK.replace(
                "from = \"R1\"\n        to = \"R2\"",
                "from = \"R1\"\n        to = \"R0\"",
            ),
            "topology.links.1",
            "a second link between \"R1\" and \"R0\"",
        );
        // Unreachable: R2 sits on a separate island.
        let island = OK.replace(
            "from = \"R1\"\n        to = \"R2\"",
            "from = \"R2\"\n        to = \"R3\"",
        );
        check(&island, "flows.0.dst", "R2");
        // Missing, misplaced and malformed flow endpoints.
        check(&OK.replace("dst = \"R2\"", ""), "flows.0.dst", "missing");
        check(
            &OK.replace("dst = \"R2\"", "dst = \"R0\""),
            "flows.0.dst",
            "R0",
        );
        check(
            &OK.replace("dst = \"R2\"", "dst = \"R2\"\npath = [\"R0\", \"R2\"]"),
            "flows.0.path.1",
            "R2",
        );
        check(
            &OK.replace("dst = \"R2\"", "dst = \"R2\"\npath = [\"R1\", \"R2\"]"),
            "flows.0.path.0",
            "R1",
        );
        check(
            &OK.replace(
                "dst = \"R2\"",
                "dst = \"R2\"\npath = [\"R0\", \"R1\", \"R0\", \"R2\"]",
            ),
            "flows.0.path.2",
            "R0",
        );
        // Per-link parameters.
        check(
            &OK.replacen("delay = \"10ms\"", "delay = \"10ms\"\nbuffer = 0", 1),
            "topology.links.0.buffer",
            "0",
        );
        check(
            &OK.replacen("delay = \"10ms\"", "delay = \"10ms\"\nloss = 1.5", 1),
            "topology.links.0.loss",
            "1.5",
        );
        check(
            &OK.replacen(
                "delay = \"10ms\"",
                "delay = \"10ms\"\nqdisc = { kind = \"red\", max_p = 2.0 }",
                2,
            ),
            "topology.links.0.qdisc.max_p",
            "2",
        );
        check(
            &OK.replacen(
                "delay = \"10ms\"",
                "delay = \"10ms\"\nreverse = { qdisc = { kind = \"magic\" } }",
                1,
            ),
            "topology.links.0.reverse.qdisc.kind",
            "magic",
        );
        check(
            &OK.replacen("delay = \"10ms\"", "delay = \"10ms\"\nmeasure = true", 2),
            "topology.links.1.measure",
            "true",
        );
        // Unknown keys are rejected at every level.
        check(
            &OK.replacen("delay = \"10ms\"", "delay = \"10ms\"\ncolour = 1", 1),
            "topology.links.0.colour",
            "unknown key",
        );
        check(
            &OK.replacen(
                "delay = \"10ms\"",
                "delay = \"10ms\"\nreverse = { colour = 1 }",
                1,
            ),
            "topology.links.0.reverse.colour",
            "unknown key",
        );
        check(
            &OK.replace("[topology]", "[topology]\ncolour = 1"),
            "topology.colour",
            "unknown key",
        );
        // The two forms do not mix.
        let both = OK.replace(
            "[topology]",
            "[bottleneck]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[topology]",
        );
        check(&both, "topology", "given with [bottleneck]");
        let neither = OK.split("[topology]").next().unwrap().to_string() + "[[flows]]\ncount = 1\n";
        check(&neither, "bottleneck", "missing");
        let dumbbell = "duration = \"1s\"\n[bottleneck]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                        [[flows]]\nsrc = \"R0\"\n";
        check(dumbbell, "flows.0.src", "given in a [bottleneck] scenario");
        check(
            &OK.split("[[topology.links]]").next().unwrap().replace(
                "[topology]",
                "[[flows]]\nsrc = \"R0\"\ndst = \"R2\"\n[topology]\nlinks = []",
            ),
            "topology.links",
            "[]",
        );
    }
}
