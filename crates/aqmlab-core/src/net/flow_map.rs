//! Per-flow state sized by the flows a component actually sees.
//!
//! Flow ids are global to a scenario (and arbitrary `u32`s in a replay), but a link carries only
//! some of the flows: a dumbbell's access link one, its bottleneck all. State indexed by the
//! global id and grown up to it costs every link memory for every flow id below its own, which
//! is quadratic in flows over the network (4.7 GB for 10,000 TCP flows) and aborts on a flow id
//! near `u32::MAX`. A [`FlowMap`] holds one entry per flow seen: an insertion-ordered hash map
//! (iteration order is the order of first arrival, so results stay deterministic) with
//! rustc's Fx hash, which has no random seed. `get_index_of`/`insert_full` give a dense slot per
//! flow for state kept in a `Vec` beside it. A [`DenseFlowMap`] is for lookups by id on a
//! per-packet path where order does not matter: a vector slot per id for ids within a bound
//! that grows with the flows seen (so memory stays linear), a [`FlowMap`] for the rest.

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

use super::packet::FlowId;

/// Per-flow values, in order of the flows' first appearance.
pub type FlowMap<V> = IndexMap<FlowId, V, FxBuildHasher>;

/// Per-flow values looked up by id on a per-packet path (a measured link's counters), without
/// order. Ids below a bound that grows with the flows seen are slots of a vector indexed by the
/// id; the rest (a replay's arbitrary ids, or an id seen when few others had been) sit in a
/// [`FlowMap`] until the vector grows past them. Memory stays linear in the flows seen, as with
/// a [`FlowMap`], while the common case (a scenario's dense ids) costs one indexed load instead
/// of a hash probe (measured in docs/performance.md).
#[derive(Clone, Debug, Default)]
pub struct DenseFlowMap<V> {
    dense: Vec<Option<V>>,
    sparse: FlowMap<V>,
    /// Flows seen (entries in `dense` and `sparse`).
    len: usize,
}

impl<V: Default> DenseFlowMap<V> {
    /// Ids the vector may cover with `len` flows seen: twice as many plus a few, so a dense
    /// range of ids moves into it as it fills whatever order they first appear in.
    fn dense_bound(len: usize) -> usize {
        2 * len + 64
    }

    /// The value of `flow`, inserted as `V::default()` if absent.
    #[inline]
    pub fn entry(&mut self, flow: FlowId) -> &mut V {
        let i = flow as usize;
        if i < self.dense.len() {
            let slot = &mut self.dense[i];
            if slot.is_none() {
                self.len += 1;
            }
            return slot.get_or_insert_with(V::default);
        }
        self.entry_slow(flow)
    }

    #[cold]
    fn entry_slow(&mut self, flow: FlowId) -> &mut V {
        let i = flow as usize;
        if !self.sparse.contains_key(&flow) {
            self.len += 1;
        }
        if i < Self::dense_bound(self.len) {
            // Grow the vector past `flow` and move in every sparse id it now covers.
            let new_len = (i + 1)
                .max(2 * self.dense.len())
                .min(Self::dense_bound(self.len));
            self.dense.resize_with(new_len, || None);
            let moved: Vec<FlowId> = self
                .sparse
                .keys()
                .copied()
                .filter(|&f| (f as usize) < new_len)
                .collect();
            for f in moved {
                self.dense[f as usize] = self.sparse.swap_remove(&f);
            }
            return self.dense[i].get_or_insert_with(V::default);
        }
        self.sparse.entry(flow).or_default()
    }

    /// The value of `flow`, if it was ever inserted.
    #[inline]
    pub fn get(&self, flow: FlowId) -> Option<&V> {
        match self.dense.get(flow as usize) {
            Some(slot) => slot.as_ref(),
            None => self.sparse.get(&flow),
        }
    }

    /// Flows seen.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// (flow, value) for every flow seen, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (FlowId, &V)> {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter_map(|(f, v)| v.as_ref().map(|v| (f as FlowId, v)));
        dense.chain(self.sparse.iter().map(|(&f, v)| (f, v)))
    }
}

/// Equal when they hold the same values for the same flows, however each stores them.
impl<V: Default + PartialEq> PartialEq for DenseFlowMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().all(|(f, v)| other.get(f) == Some(v))
    }
}

impl<V: Default + Eq> Eq for DenseFlowMap<V> {}

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

    /// Same contents as a plain map under any order of first appearance, including ids that
    /// arrive before the vector covers them and ids far beyond it; memory stays linear.
    #[test]
    fn dense_map_agrees_with_a_hash_map() {
        use crate::rng::SimRng;
        use std::collections::HashMap;
        let mut rng = SimRng::new(5, 3);
        let mut m: DenseFlowMap<u64> = DenseFlowMap::default();
        let mut want: HashMap<FlowId, u64> = HashMap::new();
        for step in 0..50_000u32 {
            let u = rng.uniform();
            let f = if u < 0.01 {
                u32::MAX - (rng.uniform() * 10.0) as u32
            } else if u < 0.05 {
                1_000_000 + (rng.uniform() * 5.0) as u32
            } else {
                (rng.uniform() * 3_000.0) as u32
            };
            *m.entry(f) += u64::from(step % 7 + 1);
            *want.entry(f).or_default() += u64::from(step % 7 + 1);
            if step % 97 == 0 {
                let probe = (rng.uniform() * 4_000.0) as u32;
                assert_eq!(m.get(probe), want.get(&probe));
            }
        }
        assert_eq!(m.len(), want.len());
        for (&f, v) in &want {
            assert_eq!(m.get(f), Some(v));
        }
        let mut seen: Vec<_> = m.iter().map(|(f, &v)| (f, v)).collect();
        seen.sort_unstable();
        let mut all: Vec<_> = want.into_iter().collect();
        all.sort_unstable();
        assert_eq!(seen, all);
        assert!(m.dense.len() <= DenseFlowMap::<u64>::dense_bound(m.len()));
        // The dense ids all moved into the vector; only the far ones stay hashed.
        assert!(m.sparse.keys().all(|&f| f >= 1_000_000));
    }

    /// One flow with a large id (a host link in a 10,000-flow run) costs one entry, not a
    /// vector up to its id.
    #[test]
    fn a_lone_large_id_stays_hashed() {
        let mut m: DenseFlowMap<u64> = DenseFlowMap::default();
        *m.entry(9_999) += 1;
        *m.entry(9_999) += 1;
        assert_eq!(m.get(9_999), Some(&2));
        assert!(m.dense.len() <= 64);
        assert_eq!(m.len(), 1);
        let mut other: DenseFlowMap<u64> = DenseFlowMap::default();
        *other.entry(9_999) += 2;
        assert_eq!(m, other);
        *other.entry(3) += 1;
        assert_ne!(m, other);
    }
}
