//! An opt-in per-packet event log of chosen links: what ns-2's `trace-all` lines or a pcap give
//! a user who wants to see why a result looks the way it does.
//!
//! A traced link (`trace.links` in a scenario) records one row per event at its egress queue:
//!
//! | event     | when                                                                         |
//! |-----------|------------------------------------------------------------------------------|
//! | `enqueue` | an arriving packet is queued (marked or not)                                 |
//! | `drop`    | a packet is dropped, with the reason; `queued` says it had been queued (pushed out by a later arrival, or dropped on its way out) rather than refused on arrival |
//! | `mark`    | a packet is CE-marked, with the reason; `queued` says at dequeue (CoDel-style) rather than at arrival |
//! | `dequeue` | a packet leaves the queue and starts its transmission                        |
//!
//! So on a traced link, over any interval: arrivals = `enqueue` + `drop` with `queued` false;
//! departures = `dequeue`; drops = `drop`; marks = `mark` — the link's counters, event by
//! event. Each event also names the packet: flow, kind (data or ACK), sequence number (the ACK
//! number for an ACK), size and ECN codepoint as it left.
//!
//! Tracing changes nothing in the run: a queued link logs from its qdisc calls; a DropTail link
//! in FIFO-arithmetic mode (see `net::link`) is made observed, logs arrivals as they come and
//! each departure when its cursor passes the packet, stamped with the start of its
//! transmission; the table is sorted by time. The log is bounded: each traced link records at
//! most `trace.max_events` events (default 1,000,000, about 30 MB in memory), then counts the
//! ones it leaves out (`dropped_events`), so a long run cannot exhaust memory.

use crate::metrics::recorder::role_name;
use crate::metrics::{Column, Table};
use crate::net::link::Link;
use crate::net::packet::Ecn;
use crate::net::topology::{LinkRole, LinkSpec};
use crate::scenario::TraceSpec;

pub use crate::net::packet_trace::{Event, PacketTrace, DEFAULT_MAX_EVENTS};

/// Whether `trace.links` names this link: `"bottleneck"` is the measured link, `"A->B"` a
/// topology link's direction.
pub fn traced(trace: &TraceSpec, link: &LinkSpec, measured: bool) -> bool {
    trace.links.iter().any(|name| {
        (measured && name == "bottleneck") || matches!(&link.role, LinkRole::Named(n) if n == name)
    })
}

fn ecn_key(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "not_ect",
        Ecn::Ect => "ect0",
        Ecn::Ect1 => "ect1",
        Ecn::Ce => "ce",
    }
}

/// What each traced link recorded: (link name, events recorded, events left out).
pub type TraceCounts = Vec<(String, u64, u64)>;

/// Takes every traced link's log into one table (link by link, each in event order): `link`,
/// `t_s`, `event`, `reason` (empty for enqueue/dequeue), `queued` (0/1), `flow`, `kind`
/// (`data`/`ack`), `seq`, `size_bytes`, `ecn`.
pub fn take_table(links: &mut [Link]) -> (Table, TraceCounts) {
    let mut traces = Vec::new();
    for l in links.iter_mut() {
        if let Some(mut tr) = l.trace.take() {
            tr.sort_by_time();
            traces.push((role_name(&l.role), *tr));
        }
    }
    let counts = traces
        .iter()
        .map(|(n, tr)| (n.clone(), tr.len() as u64, tr.dropped_events))
        .collect();
    let mut t = Table::new();
    if traces.is_empty() {
        return (t, counts);
    }
    let strs = |f: &dyn Fn(&PacketTrace, usize) -> String| {
        Column::Str(
            traces
                .iter()
                .flat_map(|(_, tr)| (0..tr.len()).map(move |i| (tr, i)))
                .map(|(tr, i)| f(tr, i))
                .collect(),
        )
    };
    let i64s = |f: &dyn Fn(&PacketTrace, usize) -> i64| {
        Column::I64(
            traces
                .iter()
                .flat_map(|(_, tr)| (0..tr.len()).map(move |i| f(tr, i)))
                .collect(),
        )
    };
    t.push(
        "link",
        Column::Str(
            traces
                .iter()
                .flat_map(|(n, tr)| std::iter::repeat_n(n.clone(), tr.len()))
                .collect(),
        ),
    );
    t.push(
        "t_s",
        Column::F64(
            traces
                .iter()
                .flat_map(|(_, tr)| tr.t_ns.iter().map(|&ns| ns as f64 / 1e9))
                .collect(),
        ),
    );
    t.push("event", strs(&|tr, i| tr.event[i].key().to_string()));
    t.push(
        "reason",
        strs(&|tr, i| tr.reason[i].map_or("", |r| r.key()).to_string()),
    );
    t.push("queued", i64s(&|tr, i| tr.queued[i] as i64));
    t.push("flow", i64s(&|tr, i| tr.flow[i] as i64));
    t.push(
        "kind",
        strs(&|tr, i| if tr.ack[i] { "ack" } else { "data" }.to_string()),
    );
    t.push("seq", i64s(&|tr, i| tr.seq[i] as i64));
    t.push("size_bytes", i64s(&|tr, i| tr.size[i] as i64));
    t.push("ecn", strs(&|tr, i| ecn_key(tr.ecn[i]).to_string()));
    (t, counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::droptail::DropTail;
    use crate::net::packet::Packet;
    use crate::qdisc::{BufferLimit, Reason, SingleQueue};
    use crate::rng::SimRng;
    use crate::time::SimTime;

    #[test]
    fn every_outcome_is_one_event_and_the_cap_holds() {
        let mut q = SingleQueue::new(
            BufferLimit::Packets(2),
            false,
            1_000_000,
            Box::new(DropTail),
        );
        let mut rng = SimRng::new(1, 1);
        let mut tr = PacketTrace::new(6);
        for seq in 0..4 {
            let p = Packet {
                flow: 7,
                seq,
                size_bytes: 1000,
                ..Packet::default()
            };
            tr.enqueue(&mut q, SimTime(seq), p, &mut rng);
        }
        while tr.dequeue(&mut q, SimTime(10), &mut rng).is_some() {}
        let kinds: Vec<_> = tr.event.iter().map(|e| e.key()).collect();
        assert_eq!(
            kinds,
            ["enqueue", "enqueue", "drop", "drop", "dequeue", "dequeue"]
        );
        assert_eq!(tr.seq, [0, 1, 2, 3, 0, 1]);
        assert_eq!(tr.reason[2], Some(Reason::Overflow));
        assert_eq!(tr.dropped_events, 0);
        let p = Packet::default();
        tr.enqueue(&mut q, SimTime(11), p, &mut rng);
        assert_eq!((tr.len(), tr.dropped_events), (6, 1));
    }
}
