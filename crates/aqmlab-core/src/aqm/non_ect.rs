//! What a marking queue does with a packet that is not ECN-capable when its law picks it for a
//! congestion signal: the key `non_ect` of `rem`, `blue` and `green_rate`.
//!
//! RFC 3168 §5 ("if the ECT codepoint is not set, the router drops the packet") and every other
//! kind here drop it (`Verdict::Signal` on a Not-ECT packet becomes a drop in the glue), as do
//! ns-2.35's `REDQueue::drop_early` (`queue/red.cc`: "DROP or MARK", a drop unless `setbit_` and
//! `hf->ect()`), Linux and ns-3. ns-2.35's REM does not: with `markpkts_` (ECN) on,
//! `REMQueue::deque` (`queue/rem.cc`) sets CE on a picked packet only `if (hf->ect() == 1)` and
//! otherwise sends it on unmarked, and `REMQueue::enque` drops nothing early, so a Not-ECT packet
//! (ns-2's segment 0, a non-ECN flow) never sees REM's signal. `"pass"` follows it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Reason, Verdict};
use crate::net::packet::Packet;

/// The fate of a Not-ECT packet picked for a congestion signal while the queue marks (`ecn` on).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NonEct {
    /// Dropped (RFC 3168 §5, ns-2's RED, Linux, ns-3).
    #[default]
    Drop,
    /// Sent on unmarked (ns-2.35's `rem.cc` with `markpkts_`).
    Pass,
}

impl NonEct {
    /// The default, left out of a resolved scenario (so scenarios written without the key
    /// resolve and hash as before it existed).
    pub fn is_drop(&self) -> bool {
        *self == NonEct::Drop
    }

    /// The verdict on `pkt`, picked for a signal by a queue whose ECN switch is `ecn`: a
    /// `Signal` (mark if ECN-capable, else drop), or `Pass` for a Not-ECT packet under `"pass"`.
    /// With `ecn` off every signal is a drop, as `rem.cc` drops on enqueue without `markpkts_`.
    #[inline]
    pub fn verdict(self, ecn: bool, pkt: &Packet, reason: Reason) -> Verdict {
        if ecn && self == NonEct::Pass && !pkt.is_ecn_capable() {
            Verdict::Pass
        } else {
            Verdict::Signal(reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;

    #[test]
    fn pass_spares_only_not_ect_packets_of_a_marking_queue() {
        let pkt = |ecn| Packet {
            ecn,
            ..Packet::default()
        };
        let early = Verdict::Signal(Reason::Early);
        for ecn in [Ecn::Ect, Ecn::Ect1] {
            assert_eq!(NonEct::Pass.verdict(true, &pkt(ecn), Reason::Early), early);
        }
        assert_eq!(
            NonEct::Pass.verdict(true, &pkt(Ecn::NotEct), Reason::Early),
            Verdict::Pass
        );
        assert_eq!(
            NonEct::Drop.verdict(true, &pkt(Ecn::NotEct), Reason::Early),
            early
        );
        // A dropping queue drops whatever it picks.
        assert_eq!(
            NonEct::Pass.verdict(false, &pkt(Ecn::NotEct), Reason::Early),
            early
        );
    }
}
