//! The arrival/decision trace: every call the bottleneck made on its qdisc, with what the qdisc
//! decided, so that [`replay`](aqmlab_core::replay) can be fed the same calls and its decisions
//! compared one by one ([`check_parity`]).
//!
//! File format (`trace_path`): CSV with a header line, one row per qdisc call, in call order:
//!
//! | column | enqueue row | dequeue row |
//! |---|---|---|
//! | `t_ns` | arrival time, ns since the run started | transmitter's start time |
//! | `op` | `enq` | `deq` |
//! | `packet` | arrival index (the n-th enqueue is packet n) | arrival index of the packet sent; empty if none |
//! | `size` | IP length, bytes | empty |
//! | `flow` | flow id (4294967295: matched no flow) | empty |
//! | `ecn` | `not_ect`, `ect0`, `ect1` or `ce`, as read from the IP header | empty |
//! | `action` | `enqueued`, `marked` or `dropped` | `dequeued` or `empty` |
//! | `reason` | the reason key of a `marked` or `dropped` action | empty |
//! | `marked` | the reason key of a CE mark this call counted (also on an arrival marked, then refused for overflow) | the mark's reason if this dequeue marked the packet |
//! | `dropped` | queued packets pushed out, `id:reason` joined by `;` | packets dropped on the way out, likewise |
//!
//! Qdisc timers are not rows: `replay` fires them itself between calls, by the same rule the
//! bottleneck uses.

use std::io::{self, BufRead, Write};

use aqmlab_core::aqm::{AqmConfig, Reason};
use aqmlab_core::net::packet::{Ecn, FlowId};
use aqmlab_core::qdisc::BufferLimit;
use aqmlab_core::replay::{replay, Action, ReplayEvent};
use aqmlab_core::time::SimTime;
use aqmlab_core::ScenarioError;

/// One qdisc call.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Enqueue { size: u32, flow: FlowId, ecn: Ecn },
    Dequeue,
}

/// One qdisc call and what it did.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRecord {
    pub t_ns: u64,
    pub call: Call,
    pub action: Action,
    pub packet: Option<u64>,
    /// The mark this call made (at enqueue: the same reason as `Action::Marked`).
    pub marked: Option<Reason>,
    /// Queued packets dropped during the call, (arrival index, reason).
    pub dropped: Vec<(u64, Reason)>,
}

pub const HEADER: &str = "t_ns,op,packet,size,flow,ecn,action,reason,marked,dropped";

fn ecn_key(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "not_ect",
        Ecn::Ect => "ect0",
        Ecn::Ect1 => "ect1",
        Ecn::Ce => "ce",
    }
}

fn ecn_from(s: &str) -> Option<Ecn> {
    Some(match s {
        "not_ect" => Ecn::NotEct,
        "ect0" => Ecn::Ect,
        "ect1" => Ecn::Ect1,
        "ce" => Ecn::Ce,
        _ => return None,
    })
}

fn reason_from(s: &str) -> Option<Reason> {
    Reason::ALL.into_iter().find(|r| r.key() == s)
}

/// Writes `rec` as one CSV row.
pub fn write_row(w: &mut impl Write, rec: &TraceRecord) -> io::Result<()> {
    let packet = rec.packet.map(|p| p.to_string()).unwrap_or_default();
    let (op, size, flow, ecn) = match rec.call {
        Call::Enqueue { size, flow, ecn } => {
            ("enq", size.to_string(), flow.to_string(), ecn_key(ecn))
        }
        Call::Dequeue => ("deq", String::new(), String::new(), ""),
    };
    let (action, reason) = match rec.action {
        Action::Enqueued => ("enqueued", None),
        Action::Marked(r) => ("marked", Some(r)),
        Action::Dropped(r) => ("dropped", Some(r)),
        Action::Dequeued => ("dequeued", None),
        Action::Empty => ("empty", None),
        Action::Set => ("set", None),
    };
    let dropped: Vec<String> = rec
        .dropped
        .iter()
        .map(|(id, r)| format!("{id}:{}", r.key()))
        .collect();
    writeln!(
        w,
        "{},{op},{packet},{size},{flow},{ecn},{action},{},{},{}",
        rec.t_ns,
        reason.map_or("", |r| r.key()),
        rec.marked.map_or("", |r| r.key()),
        dropped.join(";")
    )
}

fn bad(line: usize, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("trace line {line}: {what}"),
    )
}

/// Reads a trace written by the bottleneck.
pub fn read(r: impl BufRead) -> io::Result<Vec<TraceRecord>> {
    let mut out = Vec::new();
    for (i, line) in r.lines().enumerate() {
        let line = line?;
        let n = i + 1;
        if i == 0 {
            if line != HEADER {
                return Err(bad(n, "not an aqmlab live trace (header differs)"));
            }
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 10 {
            return Err(bad(n, "expected 10 fields"));
        }
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad(n, "not a number"));
        let opt = |s: &str| {
            if s.is_empty() {
                Ok(None)
            } else {
                num(s).map(Some)
            }
        };
        let reason_at = |i: usize| -> io::Result<Option<Reason>> {
            if f[i].is_empty() {
                Ok(None)
            } else {
                reason_from(f[i])
                    .map(Some)
                    .ok_or_else(|| bad(n, "unknown reason"))
            }
        };
        let (reason, marked) = (reason_at(7)?, reason_at(8)?);
        let call = match f[1] {
            "enq" => Call::Enqueue {
                size: u32::try_from(num(f[3])?).map_err(|_| bad(n, "size"))?,
                flow: u32::try_from(num(f[4])?).map_err(|_| bad(n, "flow"))?,
                ecn: ecn_from(f[5]).ok_or_else(|| bad(n, "unknown ecn"))?,
            },
            "deq" => Call::Dequeue,
            _ => return Err(bad(n, "op is neither enq nor deq")),
        };
        let need = |r: Option<Reason>| r.ok_or_else(|| bad(n, "reason missing"));
        let action = match f[6] {
            "enqueued" => Action::Enqueued,
            "marked" => Action::Marked(need(reason)?),
            "dropped" => Action::Dropped(need(reason)?),
            "dequeued" => Action::Dequeued,
            "empty" => Action::Empty,
            _ => return Err(bad(n, "unknown action")),
        };
        let mut dropped = Vec::new();
        for d in f[9].split(';').filter(|s| !s.is_empty()) {
            let (id, r) = d.split_once(':').ok_or_else(|| bad(n, "dropped entry"))?;
            dropped.push((num(id)?, reason_from(r).ok_or_else(|| bad(n, "reason"))?));
        }
        out.push(TraceRecord {
            t_ns: num(f[0])?,
            call,
            action,
            packet: opt(f[2])?,
            marked,
            dropped,
        });
    }
    Ok(out)
}

/// The calls of a trace as a `replay` script.
pub fn to_replay_events(records: &[TraceRecord]) -> Vec<ReplayEvent> {
    records
        .iter()
        .map(|r| match r.call {
            Call::Enqueue { size, flow, ecn } => ReplayEvent::Enqueue {
                t: SimTime(r.t_ns),
                size_bytes: size,
                flow,
                ecn,
            },
            Call::Dequeue => ReplayEvent::Dequeue { t: SimTime(r.t_ns) },
        })
        .collect()
}

/// How far a live run's decisions and `replay`'s agree.
#[derive(Clone, Debug, PartialEq)]
pub struct Parity {
    pub events: usize,
    /// Events whose action, packet, mark or dropped packets differ.
    pub mismatches: usize,
    /// The first differing event: (index, live record, replay's).
    pub first_mismatch: Option<String>,
    /// Decisions compared that were not plain passes (marks, drops).
    pub signals: usize,
}

/// Replays the trace's calls through a fresh qdisc built from `cfg` with the same seed (the
/// stream `SimRng::new(seed, 0)`, as the bottleneck does) and compares every decision.
pub fn check_parity(
    cfg: &AqmConfig,
    limit: BufferLimit,
    seed: u64,
    rate_bps: u64,
    mean_pkt_bytes: u32,
    records: &[TraceRecord],
) -> Result<Parity, ScenarioError> {
    let events = to_replay_events(records);
    let replayed = replay(cfg, limit, &events, None, seed, rate_bps, mean_pkt_bytes)?;
    let mut p = Parity {
        events: records.len(),
        mismatches: 0,
        first_mismatch: None,
        signals: 0,
    };
    for (i, (live, rep)) in records.iter().zip(&replayed).enumerate() {
        let same = live.action == rep.action
            && live.packet == rep.packet
            && live.marked == rep.marked
            && live.dropped == rep.dropped;
        p.signals += usize::from(
            matches!(live.action, Action::Marked(_) | Action::Dropped(_))
                || live.marked.is_some()
                || !live.dropped.is_empty(),
        );
        if !same {
            p.mismatches += 1;
            if p.first_mismatch.is_none() {
                p.first_mismatch = Some(format!(
                    "event {i}: live {:?} packet {:?} marked {:?} dropped {:?}; replay {:?} packet {:?} marked {:?} dropped {:?}",
                    live.action, live.packet, live.marked, live.dropped,
                    rep.action, rep.packet, rep.marked, rep.dropped
                ));
            }
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip() {
        let recs = vec![
            TraceRecord {
                t_ns: 5,
                call: Call::Enqueue {
                    size: 1500,
                    flow: u32::MAX,
                    ecn: Ecn::Ect1,
                },
                action: Action::Marked(Reason::Early),
                packet: Some(0),
                marked: Some(Reason::Early),
                dropped: vec![(3, Reason::Overflow), (9, Reason::Policy)],
            },
            TraceRecord {
                t_ns: 7,
                call: Call::Dequeue,
                action: Action::Dequeued,
                packet: Some(0),
                marked: Some(Reason::Sojourn),
                dropped: vec![],
            },
            TraceRecord {
                t_ns: 9,
                call: Call::Dequeue,
                action: Action::Empty,
                packet: None,
                marked: None,
                dropped: vec![],
            },
        ];
        let mut buf = format!("{HEADER}\n").into_bytes();
        for r in &recs {
            write_row(&mut buf, r).unwrap();
        }
        assert_eq!(read(&buf[..]).unwrap(), recs);
        assert!(read(&b"t,op\n"[..]).is_err());
        let mut broken = format!("{HEADER}\n").into_bytes();
        broken.extend_from_slice(b"1,enq,0,10,0,ect9,enqueued,,,\n");
        assert!(read(&broken[..]).is_err());
    }
}
