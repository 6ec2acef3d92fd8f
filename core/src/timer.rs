//! Deadlines of one machine (DESIGN §3 "One clock surface"): a min-heap of
//! `(instant, key)` the machine reports its earliest live entry from and
//! pops due entries off. Entries are not removed when their work ends: the
//! machine checks a popped key against its own state, the dead entries at
//! the top are dropped when it reports its deadline, and the heap is rebuilt
//! from the live keys each time it doubles since the last rebuild, so it
//! stays within twice the machine's live state (DESIGN §5.9) at an
//! amortised O(1) per entry.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::clock::MonoTime;

/// Below this many entries a heap is never rebuilt: rebuilding costs more
/// than the memory it frees.
const SHED_FLOOR: usize = 64;

/// A lazily pruned deadline heap.
#[derive(Debug)]
pub(crate) struct Deadlines<K: Ord> {
    heap: BinaryHeap<Reverse<(MonoTime, K)>>,
    /// The length at which the next rebuild runs.
    shed_at: usize,
}

impl<K: Ord> Default for Deadlines<K> {
    fn default() -> Self {
        Deadlines {
            heap: BinaryHeap::new(),
            shed_at: SHED_FLOOR,
        }
    }
}

impl<K: Ord + Clone> Deadlines<K> {
    /// Wakes `key` at `at`.
    pub(crate) fn schedule(&mut self, at: MonoTime, key: K) {
        self.heap.push(Reverse((at, key)));
    }

    /// The earliest entry whose key `live` keeps: the dead ones before it
    /// are dropped (each once), so a machine with no live work reports no
    /// deadline and its host sleeps. A live key's entry may still be an
    /// earlier one of the same key: a wake-up there finds nothing to do,
    /// never misses something.
    pub(crate) fn next_live(&mut self, live: impl Fn(&K) -> bool) -> Option<MonoTime> {
        while let Some(Reverse((at, key))) = self.heap.peek() {
            if live(key) {
                return Some(*at);
            }
            self.heap.pop();
        }
        None
    }

    /// Pops one entry due at `now`.
    pub(crate) fn pop_due(&mut self, now: MonoTime) -> Option<K> {
        match self.heap.peek() {
            Some(Reverse((at, _))) if *at <= now => self.heap.pop().map(|Reverse((_, k))| k),
            _ => None,
        }
    }

    /// Entries held (dead ones included): what `stats` reports.
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Rebuilds the heap from the entries `live` keeps, once it has
    /// doubled since the last rebuild. Call it after scheduling or ending
    /// work; it is a length check unless a rebuild is due.
    pub(crate) fn shed(&mut self, live: impl Fn(&K) -> bool) {
        if self.heap.len() < self.shed_at {
            return;
        }
        let kept: Vec<_> = std::mem::take(&mut self.heap)
            .into_vec()
            .into_iter()
            .filter(|Reverse((_, k))| live(k))
            .collect();
        self.heap = BinaryHeap::from(kept);
        self.shed_at = SHED_FLOOR.max(self.heap.len().saturating_mul(2));
    }

    /// Drops every entry.
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
    }
}

/// The earlier of two optional instants.
pub(crate) fn earliest(a: Option<MonoTime>, b: Option<MonoTime>) -> Option<MonoTime> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_deadline_order_only_when_due() {
        let mut d = Deadlines::default();
        d.schedule(MonoTime(30), 'c');
        d.schedule(MonoTime(10), 'a');
        d.schedule(MonoTime(20), 'b');
        assert_eq!(d.next_live(|_| true), Some(MonoTime(10)));
        assert_eq!(d.pop_due(MonoTime(5)), None, "nothing due yet");
        assert_eq!(d.pop_due(MonoTime(20)), Some('a'));
        assert_eq!(d.pop_due(MonoTime(20)), Some('b'));
        assert_eq!(d.pop_due(MonoTime(20)), None);
        assert_eq!(d.next_live(|_| true), Some(MonoTime(30)));
    }

    #[test]
    fn the_earliest_live_entry_is_reported_and_dead_ones_before_it_go() {
        let mut d = Deadlines::default();
        d.schedule(MonoTime(10), 'a');
        d.schedule(MonoTime(20), 'b');
        d.schedule(MonoTime(30), 'c');
        assert_eq!(d.next_live(|k| *k != 'a'), Some(MonoTime(20)));
        assert_eq!(d.len(), 2, "the dead top went, once");
        assert_eq!(d.next_live(|_| false), None, "nothing live: no deadline");
        assert_eq!(d.len(), 0);
    }

    #[test]
    fn shedding_keeps_live_entries_and_bounds_dead_ones() {
        let mut d = Deadlines::default();
        for i in 0..1_000_000u64 {
            d.schedule(MonoTime(i), i);
            // Only the ten newest keys are live.
            d.shed(|k| *k + 10 > i);
            assert!(d.len() <= SHED_FLOOR, "grew to {}", d.len());
        }
        let mut left = Vec::new();
        while let Some(k) = d.pop_due(MonoTime(u64::MAX)) {
            left.push(k);
        }
        assert!(left.ends_with(&(999_990..1_000_000).collect::<Vec<_>>()));
    }

    #[test]
    fn earliest_of_two() {
        assert_eq!(earliest(None, None), None);
        assert_eq!(earliest(Some(MonoTime(3)), None), Some(MonoTime(3)));
        assert_eq!(
            earliest(Some(MonoTime(3)), Some(MonoTime(2))),
            Some(MonoTime(2))
        );
    }
}
