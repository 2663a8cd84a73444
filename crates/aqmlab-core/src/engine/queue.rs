//! The event queue: a monotone radix heap ordered by (time, insertion sequence).
//!
//! Ties between events at the same instant are broken by insertion order (FIFO), so a run is a
//! pure function of its inputs (nexosim's `PriorityQueue`, Shadow's `EventQueue`). `push`
//! asserts that no event is scheduled before the last one popped, so time never goes backward.
//!
//! Why a radix heap and not a binary heap: a discrete-event simulator only ever schedules at or
//! after the last popped time, and a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) exploits
//! that. An event lives in the bucket named by the highest digit in which its time differs from
//! the last popped time and by its own value of that digit (`now`: the same instant). A push is
//! an append; a pop that finds `now` empty takes the lowest non-empty bucket, whose earliest
//! event (the first at its minimum time) becomes the new "last" and leaves at once, and whose
//! other events each move to a strictly lower digit or to `now` (the common case: the bucket
//! holds that one event and nothing moves). Digits are six bits wide, so an event moves at most
//! once per digit: two or three times for the 10 µs-200 ms horizons of the paper dumbbells,
//! where one-bit digits (the textbook radix heap) move each event up to fifteen times (the
//! measured difference is in docs/performance.md; wider digits, measured too, move less but
//! spread pushes over more buckets that are no longer in cache). Against a binary heap either
//! form saves two O(log n) sifts per event.
//!
//! Same-instant order needs no sequence numbers: every bucket, and `now`, holds its events in
//! insertion order. A bucket gets events by appends (pushes, in insertion order) and by the
//! redistribution of the bucket just emptied, which is done in that bucket's order into buckets
//! that are all empty at that moment (they are below the lowest occupied one, or `now`, which
//! has been used up), so everything a redistribution moves comes before anything pushed
//! afterwards, which was inserted later. By induction the pop order is exactly the
//! (time, insertion) order of a binary heap with sequence numbers, which
//! `matches_a_sorted_reference_with_ties` checks against a sorted reference; dropping the
//! number (and the sort of `now` after a redistribution) takes an entry from 24 to 16 bytes.

use crate::time::SimTime;

/// An event and its time. No sequence number: insertion order is kept by construction (see the
/// module comment), which leaves an entry 16 bytes for the simulator's 8-byte events.
#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    event: E,
}

/// Bits per digit: a bucket is (the highest digit in which an event's time differs from
/// `last`, that digit's value). Wider digits mean fewer moves per event (at most one per digit)
/// but more buckets to keep.
const DIGIT_BITS: u32 = 6;
/// Values of one digit; each level's occupancy fits one `u64`.
const RADIX: usize = 1 << DIGIT_BITS;
/// Digits in a 64-bit time.
const LEVELS: usize = 64_usize.div_ceil(DIGIT_BITS as usize);

pub struct EventQueue<E> {
    /// Events at the last popped instant, in insertion order; `head` is the next to pop.
    now: Vec<Entry<E>>,
    head: usize,
    /// `buckets[level * RADIX + d]` holds events whose time agrees with `last` above digit
    /// `level` and has digit value `d` (greater than `last`'s) there.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `d` of `occupied[level]` set: that bucket is non-empty.
    occupied: [u64; LEVELS],
    /// Bit `level` set: `occupied[level]` is non-zero.
    levels: u32,
    /// The last popped time (the radix heap's reference point).
    last: u64,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            head: 0,
            buckets: (0..LEVELS * RADIX).map(|_| Vec::new()).collect(),
            occupied: [0; LEVELS],
            levels: 0,
            last: 0,
            len: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Files `e` relative to `last`: into `now` when at `last`, else into its bucket.
    #[inline(always)]
    fn file(&mut self, e: Entry<E>) {
        let x = e.time ^ self.last;
        if x == 0 {
            if self.head == self.now.len() {
                // Every event of `now` has left (a lone event may leave from its bucket without
                // clearing `now`): start over rather than grow.
                self.now.clear();
                self.head = 0;
            }
            self.now.push(e);
            return;
        }
        let level = (63 - x.leading_zeros()) / DIGIT_BITS;
        let digit = (e.time >> (level * DIGIT_BITS)) as usize & (RADIX - 1);
        self.buckets[level as usize * RADIX + digit].push(e);
        self.occupied[level as usize] |= 1 << digit;
        self.levels |= 1 << level;
    }

    /// Schedules `event` at `time`, which must not be earlier than the last popped event.
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, event: E) {
        assert!(
            time.0 >= self.last,
            "event scheduled in the past: {time} < {}",
            SimTime(self.last)
        );
        self.len += 1;
        self.file(Entry {
            time: time.0,
            event,
        });
    }

    /// Marks bucket (`level`, `digit`) empty. Branch-free: whether the level empties with it
    /// depends on the data, and as a branch it was mispredicted at a third of all pops on the
    /// 400-flow RED dumbbell.
    #[inline]
    fn vacate(&mut self, level: usize, digit: usize) {
        let occ = self.occupied[level] & !(1 << digit);
        self.occupied[level] = occ;
        self.levels &= !(((occ == 0) as u32) << level);
    }

    /// Empties the lowest bucket (`level`, `digit`), whose earliest event is its entry `first`,
    /// and returns that event (the next to pop; its time becomes `last`). The others go, in the
    /// bucket's order, into `now` (the rest at its time) and lower buckets: every event of the
    /// bucket agrees with the earliest at and above this digit, so each moves to a strictly
    /// lower level (or to `now`). The earliest event itself leaves without a move.
    #[inline(never)]
    fn redistribute(&mut self, level: usize, digit: usize, first: usize) -> Entry<E>
    where
        E: Copy,
    {
        self.vacate(level, digit);
        let mut from = std::mem::take(&mut self.buckets[level * RADIX + digit]);
        self.last = from[first].time;
        self.now.clear();
        self.head = 0;
        for &e in &from[..first] {
            self.file(e);
        }
        for &e in &from[first + 1..] {
            self.file(e);
        }
        let taken = from[first];
        from.clear();
        // Keep the allocation for the next time this bucket fills.
        self.buckets[level * RADIX + digit] = from;
        taken
    }

    /// The lowest non-empty bucket (`level`, `digit`) and its earliest time, if any event is
    /// queued outside `now`: the lowest level holds the earliest events, and within it the
    /// lowest digit (every event there agrees with `last` above that digit and exceeds it there).
    #[inline]
    fn lowest(&self) -> Option<(usize, usize, (usize, u64))> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize;
        let digit = self.occupied[level].trailing_zeros() as usize;
        Some((level, digit, self.bucket_min(level, digit)))
    }

    /// The position in the non-empty bucket (`level`, `digit`) of its earliest event (the first
    /// one, in the bucket's insertion order, at the earliest time) and that time.
    #[inline]
    fn bucket_min(&self, level: usize, digit: usize) -> (usize, u64) {
        self.buckets[level * RADIX + digit]
            .iter()
            .enumerate()
            .map(|(i, e)| (i, e.time))
            .min_by_key(|&(_, t)| t)
            .expect("occupied bucket")
    }

    /// The earliest event, removed, if it is at or before `limit` (the simulator's main loop).
    /// An event beyond `limit` is left where it is and `last` stays put, so a caller that stops
    /// at `limit` may still schedule anything from then on.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)>
    where
        E: Copy,
    {
        if self.head < self.now.len() {
            if self.last > limit.0 {
                return None;
            }
            let e = self.now[self.head];
            self.head += 1;
            self.len -= 1;
            return Some((SimTime(e.time), e.event));
        }
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize;
        let digit = self.occupied[level].trailing_zeros() as usize;
        let bucket = &mut self.buckets[level * RADIX + digit];
        if let [e] = bucket[..] {
            // The common case on a busy network: the next event is alone in its bucket, and
            // leaves straight from it (nothing else is at its time: `now` is empty).
            if e.time > limit.0 {
                return None;
            }
            bucket.clear();
            self.vacate(level, digit);
            self.last = e.time;
            self.len -= 1;
            return Some((SimTime(e.time), e.event));
        }
        let (first, min) = self.bucket_min(level, digit);
        if min > limit.0 {
            return None;
        }
        let e = self.redistribute(level, digit, first);
        self.len -= 1;
        Some((SimTime(e.time), e.event))
    }

    /// The earliest event, removed.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)>
    where
        E: Copy,
    {
        self.pop_until(SimTime(u64::MAX))
    }

    /// The time of the earliest event (moving it to the front of `now`).
    pub fn peek_time(&mut self) -> Option<SimTime>
    where
        E: Copy,
    {
        if self.head < self.now.len() {
            return Some(SimTime(self.last));
        }
        let (level, digit, (first, min)) = self.lowest()?;
        let e = self.redistribute(level, digit, first);
        // Back at the front of `now`, before the later events at its time.
        self.now.insert(0, e);
        Some(SimTime(min))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'a');
        q.push(SimTime(3), 'b');
        q.push(SimTime(5), 'c');
        q.push(SimTime(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    /// Against a sorted reference under a simulator-like load: pushes at or after the last pop,
    /// many ties, pushes at the current instant between pops, wide and narrow time gaps.
    #[test]
    fn matches_a_sorted_reference_with_ties() {
        let mut rng = SimRng::new(7, 1);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let (mut seq, mut now) = (0u64, 0u64);
        for round in 0..20_000u64 {
            let pushes = (rng.uniform() * 3.0) as usize;
            for _ in 0..pushes {
                let u = rng.uniform();
                let dt = if u < 0.2 {
                    0
                } else if u < 0.6 {
                    (rng.uniform() * 16.0) as u64
                } else {
                    (rng.uniform() * 1e9) as u64 >> (round % 30)
                };
                q.push(SimTime(now + dt), seq);
                reference.push((now + dt, seq));
                seq += 1;
            }
            if rng.uniform() < 0.25 {
                // The main loop's form: pop only what is due by a limit.
                reference.sort_unstable();
                let limit = now + (rng.uniform() * 64.0) as u64;
                let want = reference
                    .first()
                    .copied()
                    .filter(|&(t, _)| t <= limit)
                    .inspect(|_| {
                        reference.remove(0);
                    });
                let got = q.pop_until(SimTime(limit)).map(|(t, e)| (t.0, e));
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            } else if rng.uniform() < 0.5 {
                reference.sort_unstable();
                let want = (!reference.is_empty()).then(|| reference.remove(0));
                assert_eq!(q.peek_time().map(|t| t.0), want.map(|w| w.0));
                let got = q.pop().map(|(t, e)| (t.0, e));
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        reference.sort_unstable();
        let rest: Vec<_> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(rest, reference);
        assert!(q.is_empty());
    }

    /// Insertion order among equal times survives redistributions at every level: events are
    /// pushed at a few shared instants spread over many digits while the clock moves towards
    /// them, so each instant collects events filed into buckets of different levels.
    #[test]
    fn equal_times_pop_in_insertion_order_across_levels() {
        let mut rng = SimRng::new(11, 2);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let instants = [
            1u64 << 40,
            (1 << 40) + (1 << 20),
            (1 << 40) + 4_000,
            (1 << 40) + 63,
        ];
        let mut now = 0u64;
        for seq in 0..20_000u64 {
            let at = instants[(rng.uniform() * 4.0) as usize].max(now);
            q.push(SimTime(at), seq);
            reference.push((at, seq));
            // Now and then move the clock: pop a near event pushed for the purpose.
            if rng.uniform() < 0.1 {
                let step = now + ((rng.uniform() * (1u64 << 41) as f64) as u64 >> (seq % 40));
                let step = step.min(1 << 40);
                q.push(SimTime(step), u64::MAX - seq);
                reference.push((step, u64::MAX - seq));
                reference
                    .sort_by_key(|&(t, s)| (t, if s > u64::MAX / 2 { u64::MAX - s } else { s }));
                let got = q.pop().map(|(t, e)| (t.0, e));
                let want = Some(reference.remove(0));
                assert_eq!(got, want);
                now = got.map_or(now, |(t, _)| t);
            }
        }
        reference.sort_by_key(|&(t, s)| (t, if s > u64::MAX / 2 { u64::MAX - s } else { s }));
        let rest: Vec<_> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(rest, reference);
    }
}
