//! Packets in flight on every link, in one slab.
//!
//! Each link's propagation pipe is a FIFO, singly linked through one slab shared by all links;
//! a link keeps only its head, tail and length. Why not one ring per link: a ring cycles through
//! all of its capacity, which grows to the link's peak occupancy, so the memory a run touches is
//! the sum of every link's peak, and each push writes a line last touched a whole cycle ago.
//! With thousands of packets in flight over a thousand links that is well over an L2 cache,
//! and pushes into cold ring slots dominated the run's last-level write misses (the
//! measurements are in docs/performance.md). The slab reuses the
//! most recently freed node first, which is the node whose packet was just delivered and is
//! still in cache, so a push writes a hot line; and its size is the largest number of packets
//! ever in flight at once, not the sum of per-link peaks.
//!
//! Nodes are 128 bytes, aligned to cache lines, so a packet in flight costs two lines. A node
//! also holds the arrival time of the node after it, written when that one is appended (the
//! tail is usually still in cache then): taking the head yields the next arrival to schedule
//! without reading a second, cold node.

use crate::net::packet::Packet;
use crate::time::SimTime;

/// "No node": the end of a list.
const NIL: u32 = u32::MAX;

#[repr(align(64))]
struct Node {
    /// When the packet reaches the far end of its link.
    arrival: SimTime,
    /// When the packet of `next` arrives (meaningful when `next` is a node of the same pipe).
    next_arrival: SimTime,
    /// The next node of the same pipe (or of the free list), `NIL` at the end.
    next: u32,
    pkt: Packet,
}

/// Asks the CPU to start loading `node` (its two lines), which the next arrival event of its
/// pipe will read. A busy link's next packet arrives a transmission time later, long enough
/// for the load to finish; without this a deep pipe (10 Gbps) is a chain of dependent misses
/// through nodes in no particular order, where a ring would have been read sequentially.
#[inline(always)]
fn prefetch(node: &Node) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = node as *const Node as *const i8;
        // SAFETY: prefetching is a hint with no effect on memory; `p` and `p + 64` lie inside
        // `node`, a 128-byte live allocation.
        unsafe {
            _mm_prefetch(p, _MM_HINT_T0);
            _mm_prefetch(p.add(64), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
}

/// One link's pipe: a FIFO of slab nodes.
#[derive(Clone, Debug)]
pub struct Pipe {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl Pipe {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A handle on one node of a pipe, for walking the pipe from a remembered position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NodeRef(u32);

impl NodeRef {
    pub const NONE: NodeRef = NodeRef(NIL);
}

/// The nodes of every link's pipe.
#[derive(Default)]
pub struct PipeSlab {
    nodes: Vec<Node>,
    /// Head of the free list (LIFO: the last freed node is reused first, while it is hot).
    free: u32,
    /// Nodes in use.
    used: usize,
}

impl PipeSlab {
    pub fn new() -> Self {
        PipeSlab {
            nodes: Vec::new(),
            free: NIL,
            used: 0,
        }
    }

    /// Appends `pkt`, arriving at `arrival`, to the tail of `pipe`; returns its node.
    #[inline]
    pub fn push_back(&mut self, pipe: &mut Pipe, arrival: SimTime, pkt: Packet) -> NodeRef {
        let idx = self.alloc(arrival, pkt);
        self.link_back(pipe, idx, arrival);
        NodeRef(idx)
    }

    /// A node holding `pkt` in no pipe yet (a transmitter's packet): `append` puts it in one
    /// when its transmission ends, `free` drops it.
    #[inline]
    pub fn hold(&mut self, pkt: Packet) -> NodeRef {
        NodeRef(self.alloc(SimTime::ZERO, pkt))
    }

    /// A node (the last freed one if any, still hot) holding `pkt`, in no pipe.
    #[inline]
    fn alloc(&mut self, arrival: SimTime, pkt: Packet) -> u32 {
        let node = Node {
            arrival,
            next_arrival: SimTime::ZERO,
            next: NIL,
            pkt,
        };
        let idx = if self.free != NIL {
            let idx = self.free;
            self.free = self.nodes[idx as usize].next;
            self.nodes[idx as usize] = node;
            idx
        } else {
            let idx = u32::try_from(self.nodes.len())
                .ok()
                .filter(|&i| i != NIL)
                .expect("fewer than 2^32 - 1 packets in flight");
            self.nodes.push(node);
            idx
        };
        self.used += 1;
        idx
    }

    /// Appends a node already holding its packet (taken from another pipe by `unlink_front`)
    /// to the tail of `pipe`, arriving at `arrival`: a packet moves from one link to the next
    /// without being copied out of the slab and back.
    #[inline]
    pub fn append(&mut self, pipe: &mut Pipe, at: NodeRef, arrival: SimTime) {
        let node = &mut self.nodes[at.0 as usize];
        node.arrival = arrival;
        node.next = NIL;
        self.link_back(pipe, at.0, arrival);
    }

    #[inline]
    fn link_back(&mut self, pipe: &mut Pipe, idx: u32, arrival: SimTime) {
        if pipe.tail == NIL {
            pipe.head = idx;
        } else {
            let tail = &mut self.nodes[pipe.tail as usize];
            tail.next = idx;
            tail.next_arrival = arrival;
        }
        pipe.tail = idx;
        pipe.len += 1;
    }

    /// Detaches the head of `pipe` without freeing it: the node and the arrival time of the new
    /// head. The caller hands the node on (`append`) or gives it back (`release`, `free`).
    #[inline]
    pub fn unlink_front(&mut self, pipe: &mut Pipe) -> Option<(NodeRef, Option<SimTime>)> {
        if pipe.head == NIL {
            return None;
        }
        let idx = pipe.head;
        let node = &self.nodes[idx as usize];
        let (next, next_arrival) = (node.next, node.next_arrival);
        pipe.head = next;
        pipe.len -= 1;
        if next == NIL {
            pipe.tail = NIL;
            return Some((NodeRef(idx), None));
        }
        prefetch(&self.nodes[next as usize]);
        Some((NodeRef(idx), Some(next_arrival)))
    }

    /// The packet of a detached node, for the caller to update before handing it on.
    #[inline]
    pub fn packet_mut(&mut self, at: NodeRef) -> &mut Packet {
        &mut self.nodes[at.0 as usize].pkt
    }

    /// Frees a detached node and returns its packet.
    #[inline]
    pub fn release(&mut self, at: NodeRef) -> Packet {
        // Copied out field by field (all are `Copy`), not `mem::take`n: the node goes to the
        // free list, so writing a default packet back into it would be 104 bytes of stores
        // for nothing.
        let pkt = Packet {
            ..self.nodes[at.0 as usize].pkt
        };
        self.free(at);
        pkt
    }

    /// Frees a detached node (its packet is dropped).
    #[inline]
    pub fn free(&mut self, at: NodeRef) {
        self.nodes[at.0 as usize].next = self.free;
        self.free = at.0;
        self.used -= 1;
    }

    /// The head of `pipe`.
    pub fn front(&self, pipe: &Pipe) -> NodeRef {
        NodeRef(pipe.head)
    }

    /// The node after `at` in its pipe (`NodeRef::NONE` at the tail).
    #[inline]
    pub fn next(&self, at: NodeRef) -> NodeRef {
        NodeRef(self.nodes[at.0 as usize].next)
    }

    /// Arrival time and packet of a node in use.
    #[inline]
    pub fn get(&self, at: NodeRef) -> (SimTime, &Packet) {
        let n = &self.nodes[at.0 as usize];
        (n.arrival, &n.pkt)
    }

    /// The packets of `pipe` from `from` (a node of it) to its tail, in order.
    pub fn iter_from(&self, from: NodeRef) -> impl Iterator<Item = (SimTime, &Packet)> + '_ {
        let mut at = from;
        std::iter::from_fn(move || {
            if at == NodeRef::NONE {
                return None;
            }
            let n = &self.nodes[at.0 as usize];
            at = NodeRef(n.next);
            Some((n.arrival, &n.pkt))
        })
    }

    /// The packets of `pipe`, head first.
    pub fn iter<'a>(&'a self, pipe: &Pipe) -> impl Iterator<Item = (SimTime, &'a Packet)> + 'a {
        self.iter_from(NodeRef(pipe.head))
    }

    /// Nodes in use (packets in flight on all links).
    pub fn in_use(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    use crate::rng::SimRng;

    fn pkt(id: u64) -> Packet {
        Packet {
            id,
            ..Packet::default()
        }
    }

    /// An empty slab, `n` empty pipes on it, their reference FIFOs of (arrival, id), and a
    /// random stream for the operations.
    #[allow(clippy::type_complexity)]
    fn fixture(
        n: usize,
        (seed, component): (u64, u64),
    ) -> (PipeSlab, Vec<Pipe>, Vec<VecDeque<(u64, u64)>>, SimRng) {
        (
            PipeSlab::new(),
            vec![Pipe::default(); n],
            vec![VecDeque::new(); n],
            SimRng::new(seed, component),
        )
    }

    /// Many pipes sharing the slab behave each like its own FIFO, and freed nodes are reused.
    #[test]
    fn pipes_sharing_a_slab_are_independent_fifos() {
        let (mut slab, mut pipes, mut reference, mut rng) = fixture(5, (3, 1));
        let mut peak = 0;
        for id in 0..20_000u64 {
            let p = (rng.uniform() * 5.0) as usize;
            if rng.uniform() < 0.52 {
                slab.push_back(&mut pipes[p], SimTime(id), pkt(id));
                reference[p].push_back((id, id));
            } else {
                let got = slab
                    .unlink_front(&mut pipes[p])
                    .map(|(at, next)| (slab.release(at).id, next));
                let want = reference[p]
                    .pop_front()
                    .map(|(_, id)| (id, reference[p].front().map(|&(t, _)| SimTime(t))));
                assert_eq!(got, want);
            }
            assert_eq!(pipes[p].len(), reference[p].len());
            let walked: Vec<u64> = slab.iter(&pipes[p]).map(|(_, k)| k.id).collect();
            let want: Vec<u64> = reference[p].iter().map(|&(_, id)| id).collect();
            assert_eq!(walked, want);
            let total: usize = reference.iter().map(VecDeque::len).sum();
            assert_eq!(slab.in_use(), total);
            peak = peak.max(total);
        }
        // The slab never holds more nodes than were ever in flight at once.
        assert_eq!(slab.nodes.len(), peak);
    }

    /// Nodes handed from one pipe to another (`unlink_front` + `append`) keep their packets,
    /// take their new arrival times, and leave both pipes FIFOs; freed nodes are reused.
    #[test]
    fn nodes_handed_between_pipes_keep_their_packets() {
        let (mut slab, mut pipes, mut reference, mut rng) = fixture(4, (9, 4));
        for step in 0..20_000u64 {
            let (p, q) = (
                (rng.uniform() * 4.0) as usize,
                (rng.uniform() * 4.0) as usize,
            );
            let u = rng.uniform();
            if u < 0.4 {
                slab.push_back(&mut pipes[p], SimTime(step), pkt(step));
                reference[p].push_back((step, step));
            } else if u < 0.8 {
                let got = slab.unlink_front(&mut pipes[p]);
                let want = reference[p].pop_front();
                assert_eq!(got.is_some(), want.is_some());
                if let (Some((node, next)), Some((_, id))) = (got, want) {
                    assert_eq!(next, reference[p].front().map(|&(t, _)| SimTime(t)));
                    assert_eq!(slab.packet_mut(node).id, id);
                    slab.append(&mut pipes[q], node, SimTime(step));
                    reference[q].push_back((step, id));
                }
            } else if let Some((node, _)) = slab.unlink_front(&mut pipes[p]) {
                let (_, id) = reference[p].pop_front().expect("reference has it");
                if rng.uniform() < 0.5 {
                    assert_eq!(slab.release(node).id, id);
                } else {
                    slab.free(node);
                }
            }
            for (pipe, want) in pipes.iter().zip(&reference) {
                let walked: Vec<(SimTime, u64)> = slab.iter(pipe).map(|(t, k)| (t, k.id)).collect();
                let want: Vec<(SimTime, u64)> =
                    want.iter().map(|&(t, id)| (SimTime(t), id)).collect();
                assert_eq!(walked, want);
            }
            assert_eq!(
                slab.in_use(),
                reference.iter().map(VecDeque::len).sum::<usize>()
            );
        }
    }

    #[test]
    fn nodes_are_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Node>(), 128);
    }
}
