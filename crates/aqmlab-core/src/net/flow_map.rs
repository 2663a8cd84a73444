//! Per-flow state sized by the flows a component actually sees.
//!
//! Flow ids are global to a scenario (and arbitrary `u32`s in a replay), but a link carries only
//! some of the flows: a dumbbell's access link one, its bottleneck all. State indexed by the
//! global id and grown up to it costs every link memory for every flow id below its own, which
//! is quadratic in flows over the network (4.7 GB for 10,000 TCP flows) and aborts on a flow id
//! near `u32::MAX`. A [`FlowMap`] holds one entry per flow seen: an insertion-ordered hash map
//! (iteration order is the order of first arrival, so results stay deterministic) with
//! rustc's Fx hash, which has no random seed. `get_index_of`/`insert_full` give a dense slot per
//! flow for state kept in a `Vec` beside it.

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

use super::packet::FlowId;

/// Per-flow values, in order of the flows' first appearance.
pub type FlowMap<V> = IndexMap<FlowId, V, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_by_flows_seen_and_ordered_by_first_arrival() {
        let mut m: FlowMap<u64> = FlowMap::default();
        for f in [u32::MAX, 7, u32::MAX, 0, 7, 7] {
            *m.entry(f).or_default() += 1;
        }
        assert_eq!(m.len(), 3);
        let order: Vec<_> = m.iter().map(|(&f, &n)| (f, n)).collect();
        assert_eq!(order, vec![(u32::MAX, 2), (7, 3), (0, 1)]);
        assert_eq!(m.get_index_of(&0), Some(2));
    }
}
