//! DropTail: a FIFO that drops arrivals when the buffer is full.
//!
//! The baseline of every paper (000 §4, 001 §4, 003 §4, 004 §2). No parameters besides the
//! buffer size, which belongs to the link (`buffer = 100` packets or `"150KB"`), and no
//! congestion signal: losses are all `overflow`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AlgorithmParams, Aqm, BuildContext, FifoArithmetic, QueueView, Verdict};
use crate::error::ScenarioError;
use crate::net::packet::Packet;
use crate::qdisc::Qdisc;
use crate::rng::SimRng;
use crate::time::SimTime;

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {}

/// Tail drop has no state: the glue's overflow check is the whole algorithm.
pub struct DropTail;

impl Aqm for DropTail {
    fn on_enqueue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        _q: &QueueView,
        _rng: &mut SimRng,
    ) -> Verdict {
        Verdict::Pass
    }
    fn fifo_arithmetic(&self) -> FifoArithmetic {
        FifoArithmetic::Plain
    }
    fn timed(&self) -> bool {
        false
    }
}

impl AlgorithmParams for Params {
    const KIND: &'static str = "droptail";
    const NAME: &'static str = "DropTail (tail-drop FIFO)";
    const SOURCE: &'static str = "baseline in every paper; drops only when the buffer is full";
    fn validate(&self) -> Result<(), ScenarioError> {
        Ok(())
    }
    fn build(&self, ctx: &BuildContext) -> Box<dyn Qdisc> {
        ctx.single_queue(false, DropTail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{test_support, AqmConfig, Reason};
    use crate::qdisc::{BufferLimit, Outcome};

    fn pkt(id: u64) -> Packet {
        test_support::pkt(id, 0, 1000)
    }

    #[test]
    fn drops_only_when_full_and_conserves() {
        let ctx = test_support::ctx(BufferLimit::Packets(3), 1_000_000);
        let mut q = Params::default().build(&ctx);
        let mut rng = SimRng::new(0, 0);
        let outcomes: Vec<Outcome> = (0..5)
            .map(|i| q.enqueue(SimTime(i), pkt(i), &mut rng))
            .collect();
        assert_eq!(&outcomes[..3], &[Outcome::Enqueued; 3]);
        assert_eq!(&outcomes[3..], &[Outcome::Dropped(Reason::Overflow); 2]);
        let first = q
            .dequeue(SimTime(10), &mut rng, &mut |_, _| {
                panic!("no drop on dequeue")
            })
            .unwrap();
        assert_eq!(first.id, 0, "FIFO order");
        assert!(q.stats().conserved(q.len_pkts()));
        assert_eq!(q.stats().arrivals, 5);
        assert_eq!(q.stats().drops(), 2);
    }

    /// The link picks FIFO arithmetic by the qdisc's capability, and skips the glue only for
    /// a plain FIFO: DropTail is the one algorithm that decides nothing.
    #[test]
    fn only_droptail_is_a_plain_fifo() {
        let ctx = test_support::ctx(BufferLimit::Packets(50), 10_000_000);
        for kind in AqmConfig::KINDS {
            let mut t = toml::Table::new();
            t.insert("kind".into(), (*kind).into());
            let mut q = AqmConfig::from_table(t).expect("defaults are valid").build(&ctx);
            let plain = q.arithmetic().is_some_and(|a| a.plain());
            assert_eq!(plain, *kind == "droptail", "{kind}");
        }
    }
}
