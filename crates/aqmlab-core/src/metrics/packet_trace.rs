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

use crate::metrics::{Column, Table};
use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::net::topology::{LinkRole, LinkSpec};
use crate::qdisc::Reason;
use crate::scenario::TraceSpec;
use crate::time::SimTime;

pub use crate::net::link_hook::Event;

/// One traced link's events, column by column.
#[derive(Clone, Debug, Default)]
pub struct PacketTrace {
    max_events: u64,
    /// Events past `max_events`, not recorded.
    pub dropped_events: u64,
    pub t_ns: Vec<u64>,
    pub event: Vec<Event>,
    /// The drop's or mark's reason (`None` for enqueue and dequeue).
    pub reason: Vec<Option<Reason>>,
    /// A drop of a packet that had been queued, or a mark at dequeue.
    pub queued: Vec<bool>,
    pub flow: Vec<u32>,
    pub ack: Vec<bool>,
    pub seq: Vec<u64>,
    pub size: Vec<u32>,
    pub ecn: Vec<Ecn>,
}

impl PacketTrace {
    pub fn new(max_events: u64) -> PacketTrace {
        PacketTrace {
            max_events,
            ..PacketTrace::default()
        }
    }

    /// Events recorded.
    pub fn len(&self) -> usize {
        self.t_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }

    /// Logs one event (or counts it as left out past the cap).
    pub fn record(
        &mut self,
        now: SimTime,
        event: Event,
        reason: Option<Reason>,
        queued: bool,
        p: &Packet,
    ) {
        if self.t_ns.len() as u64 >= self.max_events {
            self.dropped_events += 1;
            return;
        }
        let ack = p.kind == PacketKind::Ack;
        self.t_ns.push(now.0);
        self.event.push(event);
        self.reason.push(reason);
        self.queued.push(queued);
        self.flow.push(p.flow);
        self.ack.push(ack);
        self.seq.push(if ack { p.ack } else { p.seq });
        self.size.push(p.size_bytes);
        self.ecn.push(p.ecn);
    }

    /// The events in time order (a FIFO-arithmetic link logs departures late); events at the
    /// same instant keep the order they were logged in.
    pub(crate) fn sort_by_time(&mut self) {
        if self.t_ns.is_sorted() {
            return;
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by_key(|&i| self.t_ns[i]);
        fn permute<T: Copy>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&i| v[i]).collect();
        }
        permute(&mut self.t_ns, &order);
        permute(&mut self.event, &order);
        permute(&mut self.reason, &order);
        permute(&mut self.queued, &order);
        permute(&mut self.flow, &order);
        permute(&mut self.ack, &order);
        permute(&mut self.seq, &order);
        permute(&mut self.size, &order);
        permute(&mut self.ecn, &order);
    }
}

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

/// Every traced link's log (link name, log) in one table (link by link, each in event order): `link`,
/// `t_s`, `event`, `reason` (empty for enqueue/dequeue), `queued` (0/1), `flow`, `kind`
/// (`data`/`ack`), `seq`, `size_bytes`, `ecn`.
pub fn take_table(mut traces: Vec<(String, PacketTrace)>) -> (Table, TraceCounts) {
    for (_, tr) in &mut traces {
        tr.sort_by_time();
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
    use crate::metrics::LinkProbe;
    use crate::net::link_hook::LinkHook;
    use crate::net::link_hook::{dequeue, enqueue};
    use crate::qdisc::{BufferLimit, SingleQueue};
    use crate::rng::SimRng;

    #[test]
    fn every_outcome_is_one_event_and_the_cap_holds() {
        let mut q = SingleQueue::new(
            BufferLimit::Packets(2),
            false,
            1_000_000,
            Box::new(DropTail),
        );
        let mut rng = SimRng::new(1, 1);
        let mut probe = LinkProbe::new(false, Some(6));
        for seq in 0..4 {
            let p = Packet {
                flow: 7,
                seq,
                size_bytes: 1000,
                ..Packet::default()
            };
            enqueue(&mut probe, &mut q, SimTime(seq), p, &mut rng);
        }
        while let Some(p) = dequeue(&mut probe, &mut q, SimTime(10), &mut rng) {
            probe.departure(SimTime(10), &p);
        }
        let tr = probe.trace.as_deref().expect("traced");
        let kinds: Vec<_> = tr.event.iter().map(|e| e.key()).collect();
        assert_eq!(
            kinds,
            ["enqueue", "enqueue", "drop", "drop", "dequeue", "dequeue"]
        );
        assert_eq!(tr.seq, [0, 1, 2, 3, 0, 1]);
        assert_eq!(tr.reason[2], Some(Reason::Overflow));
        assert_eq!(tr.dropped_events, 0);
        let p = Packet::default();
        enqueue(&mut probe, &mut q, SimTime(11), p, &mut rng);
        let tr = probe.trace.as_deref().expect("traced");
        assert_eq!((tr.len(), tr.dropped_events), (6, 1));
    }
}
