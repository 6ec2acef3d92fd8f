//! Making room for an insert: eviction at capacity, growth of the slot array.
//!
//! At capacity an insert first evicts an entry near its own group: of the
//! first few groups with entries, the entry that expires first (an expired
//! one if there is one). A route kept outside the table (a long ID) evicts
//! one the same way, from a group that moves on with every call.
//!
//! The slot array doubles when half full, up to the largest size, which
//! the capacity fills to 7/8 (the bytes a route costs are mostly its slot
//! over the load factor); at that size, when deleted slots pile up, it is
//! rebuilt into a second array of the same size (its twin). Readers still
//! on an old array find it emptied (through the sequences) right after the
//! switch; arrays are freed only with the table, and the two largest are
//! reused in turn, so nothing is ever freed under a reader.
//!
//! An array left behind gives its pages back to the system (it reads as
//! zeros, empty, after): a smaller one left for a bigger one is never
//! reused, so its restarted sequences cannot fool a late reader; a twin is
//! reused, so before its pages go it notes the highest sequence it held,
//! and when reused its slots start above it (`Array::retire`, `revive`).
//! So a full table keeps one array's pages, not two. Kept apart from
//! probing: a move between arrays carries its own argument for readers,
//! of what is emptied, given back or reused, and when.

use std::sync::atomic::Ordering;

use super::probe::{Array, EMPTY, HI, free};
use super::slot::{EXPIRES, KEY, MESH, SlotKey, WORDS, snapshot, store};
use super::table::{Counts, GROUP, LEVELS, SPARE, Table};
use crate::clock::MonoTime;

impl Table {
    /// At capacity: of the entries in the first few groups with entries
    /// from `key`'s group on, the one that expires first goes (an expired
    /// one if there is one). True if a live entry went.
    pub(super) fn evict_near(&self, key: &SlotKey, now: MonoTime, counts: &mut Counts) -> bool {
        self.evict_from(self.hash(key).0, now, counts)
    }

    /// Evicts one entry to make room for a route kept elsewhere (a long ID):
    /// as [`evict_near`](Self::evict_near), from a group that moves on with
    /// every call. True if a live entry went.
    pub(crate) fn evict_one(&self, now: MonoTime) -> bool {
        self.evict_spread(now, &mut self.lock())
    }

    /// As [`evict_one`](Self::evict_one), under the lock already held.
    fn evict_spread(&self, now: MonoTime, counts: &mut Counts) -> bool {
        let start = self.evict_cursor.fetch_add(1, Ordering::Relaxed) as u64;
        // Spread over the array: consecutive calls land far apart.
        self.evict_from(start.wrapping_mul(0x9e37_79b9_7f4a_7c15), now, counts)
    }

    /// Sets the most entries held (at most the capacity at construction:
    /// the arrays are sized for that; the cache checks) and evicts down to
    /// it at once.
    pub(crate) fn set_capacity(&self, capacity: usize, now: MonoTime) {
        let mut counts = self.lock();
        let capacity = capacity.clamp(1, self.built);
        self.capacity.store(capacity, Ordering::Relaxed);
        while counts.live > capacity {
            let before = counts.live;
            self.evict_spread(now, &mut counts);
            if counts.live == before {
                // Nothing left to evict (the count and the tags disagree,
                // which a write never leaves): stop rather than spin.
                break;
            }
        }
    }

    /// Evicts from the groups from the one hash `h` starts at on.
    fn evict_from(&self, h: u64, now: MonoTime, counts: &mut Counts) -> bool {
        /// Groups with entries looked at: enough to find an expired entry
        /// where there are some, few enough to keep an insert cheap.
        const LOOK: usize = 4;
        let array = self.current();
        let mut victim: Option<(u64, usize, usize)> = None;
        let mut looked = 0;
        for group in array.run(array.start(h)) {
            let full = !free(array.tags[group].load(Ordering::Relaxed)) & HI;
            if full == 0 {
                continue;
            }
            for lane in (0..GROUP).filter(|l| full & (0x80 << (l * 8)) != 0) {
                let expires = snapshot(array.slot(group, lane))[EXPIRES];
                if victim.is_none_or(|(soonest, _, _)| expires < soonest) {
                    victim = Some((expires, group, lane));
                }
            }
            looked += 1;
            if looked == LOOK {
                break;
            }
        }
        let Some((expires, group, lane)) = victim else {
            return false;
        };
        self.remove_at(array, group, lane, counts);
        now.0 < expires
    }

    /// Before an insert: below the largest size, doubles the array when it
    /// would be over half full or deleted marks fill a quarter of it (a
    /// sparse array keeps probe runs short while the table fills); at the
    /// largest size, which the capacity fills to 7/8, rebuilds it into its
    /// twin (the spare, or back) once deleted marks fill half the rest.
    pub(super) fn make_room(&self, counts: &mut Counts, now: MonoTime) {
        let at = self.current.load(Ordering::Relaxed);
        let array = self.array(at);
        let slots = array.slot_count();
        let largest = at == SPARE || array.groups >= self.max_groups || at + 1 == LEVELS;
        if !largest {
            let over_half = (counts.live + 1) * 2 > slots;
            let clogged = (counts.used + 1) * 4 > slots * 3;
            if over_half || clogged {
                let groups = (array.groups * 2).min(self.max_groups);
                let bigger = self.arrays[at + 1].get_or_init(|| Array::new(groups));
                self.move_to(at, at + 1, bigger, counts, now);
            }
            return;
        }
        if (counts.used + 1) * 2 <= self.built + slots {
            return;
        }
        let (to, twin) = if at == SPARE {
            // The largest level array: the last one made.
            let level = (0..LEVELS)
                .rev()
                .find(|i| self.arrays[*i].get().is_some())
                .unwrap_or(0);
            (level, self.array(level))
        } else {
            (SPARE, self.spare.get_or_init(|| Array::new(array.groups)))
        };
        self.move_to(at, to, twin, counts, now);
    }

    /// Copies every live entry of array `from` into the empty array `to`,
    /// switches readers to it, then empties `from` through the slot
    /// sequences, so a reader still there misses instead of finding an entry
    /// a later write (after the switch) removed. Expired entries are dropped.
    fn move_to(&self, from: usize, to: usize, target: &Array, counts: &mut Counts, now: MonoTime) {
        let source = self.array(from);
        let mut live = 0;
        target.revive();
        counts.meshes.recount();
        for group in 0..source.groups {
            for lane in 0..GROUP {
                let words = snapshot(source.slot(group, lane));
                if words[KEY] == 0 || words[EXPIRES] <= now.0 {
                    continue;
                }
                let (h, tag) = self.hash(&SlotKey::from_words(&words));
                let (group, lane) = target.free_slot(h);
                store(target.slot(group, lane), &words);
                target.set_tag(group, lane, tag);
                counts.meshes.add(words[MESH]);
                live += 1;
            }
        }
        self.current.store(to, Ordering::Release);
        for group in 0..source.groups {
            let tags = source.tags[group].load(Ordering::Relaxed);
            for lane in (0..GROUP).filter(|l| (tags >> (l * 8)) & 0xff != 0) {
                source.set_tag(group, lane, EMPTY);
                store(source.slot(group, lane), &[0; WORDS]);
            }
        }
        // A smaller array left for a bigger one is never used again: its
        // pages can go back (it reads as zeros, empty, after). Not so simply
        // the two largest, which take turns: their sequences must keep
        // counting up across the turns, or a reader holding an old sequence
        // could see it again over other words (an ABA: another key's route,
        // or a torn one, accepted); `retire` keeps them counting up.
        if to != SPARE && to == from + 1 {
            source.slots.discard();
        } else {
            source.retire();
        }
        counts.live = live;
        counts.used = live;
        counts.meshes.recounted();
        self.live.store(live, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, fence};

    use super::*;
    use crate::cache::slot::{KEY_WORDS, NODE, SEQ};
    use crate::cache::table::Entry;
    use crate::cache::table::testing::{entry, key};
    use crate::ids::{NodeGeneration, ObjectGeneration};

    #[test]
    fn the_table_never_holds_more_than_its_capacity() {
        for capacity in [1, 5, 8, 9, 100] {
            let t = Table::new(capacity);
            for i in 0..1000 {
                let id = format!("id-{i}");
                t.insert(&key(&id), entry(1, 1, 100 + i), MonoTime(0), |_| false);
                assert!(t.len() <= capacity, "{capacity}: {}", t.len());
                assert!(t.entry_of(&key(&id)).is_some(), "the newest route is kept");
            }
            let held = t.len();
            assert_eq!(t.remove_where(|_| true), held);
            assert_eq!(t.len(), 0);
        }
    }

    #[test]
    fn eviction_prefers_an_expired_entry() {
        let t = Table::new(2);
        t.insert(&key("old"), entry(1, 1, 10), MonoTime(0), |_| false);
        t.insert(&key("live"), entry(1, 1, 1000), MonoTime(0), |_| false);
        // Both are among the groups looked at; the expired one goes.
        let (_, evicted) = t.insert(&key("new"), entry(1, 1, 1000), MonoTime(20), |_| false);
        assert_eq!(evicted, 0, "an expired entry is not a live eviction");
        assert!(t.entry_of(&key("live")).is_some());
        assert!(t.entry_of(&key("old")).is_none());
    }

    /// Inserts, removals and sweeps against a plain map, over `ids` keys in
    /// a table of `capacity`: grows through every size, fills groups with
    /// deleted marks and rebuilds at the largest size.
    fn agree_with_a_plain_map(capacity: usize, ids: u64, steps: u64) {
        let t = Table::new(capacity);
        let mut model = std::collections::HashMap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for step in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = format!("k{}", x % ids);
            match x % 11 {
                0..=5 if model.len() < capacity || model.contains_key(&id) => {
                    t.insert(&key(&id), entry(step, 1, 100), MonoTime(0), |_| false);
                    model.insert(id, step);
                }
                0..=9 => {
                    let gone = t
                        .remove_if(&key(&id), |_| true)
                        .map(|e| e.route.route.node.get());
                    assert_eq!(gone, model.remove(&id), "{id}");
                }
                _ => {
                    let odd = |e: &Entry| e.route.route.node.get() % 2 == 1;
                    let removed = t.remove_where(odd);
                    let before = model.len();
                    model.retain(|_, n| *n % 2 == 0);
                    assert_eq!(removed, before - model.len());
                }
            }
            assert_eq!(t.len(), model.len());
            if step % 101 == 0 {
                for i in 0..ids {
                    let id = format!("k{i}");
                    let got = t.entry_of(&key(&id)).map(|e| e.route.route.node.get());
                    assert_eq!(got, model.get(&id).copied(), "{id} at step {step}");
                }
            }
        }
    }

    #[test]
    fn inserts_and_removals_agree_with_a_plain_map() {
        agree_with_a_plain_map(10_000, 300, 40_000);
        // Small: at the largest size soon, deleted marks pile up and the
        // array is rebuilt into its twin, back and forth.
        agree_with_a_plain_map(40, 60, 60_000);
        // A largest array of 143 groups (not a power of two), filled to
        // the capacity: 7/8 of its slots.
        agree_with_a_plain_map(1000, 1500, 60_000);
    }

    #[test]
    fn the_largest_array_fits_the_capacity() {
        let t = Table::new(1000);
        for i in 0..3000 {
            t.insert(
                &key(&format!("id-{i}")),
                entry(i, 1, 100),
                MonoTime(0),
                |_| false,
            );
        }
        assert_eq!(t.len(), 1000);
        assert_eq!((t.max_groups, t.current().groups), (143, 143));
        assert!(t.current().slot_count() * 7 >= 1000 * 8);
        let kept = (0..3000)
            .filter(|i| t.entry_of(&key(&format!("id-{i}"))).is_some())
            .count();
        assert_eq!(kept, 1000, "every route the table counts is found");
    }

    #[test]
    fn an_array_left_behind_is_emptied() {
        let t = Table::new(1000);
        for i in 0..200 {
            t.insert(
                &key(&format!("id-{i}")),
                entry(i, 1, 100),
                MonoTime(0),
                |_| false,
            );
        }
        let at = t.current.load(Ordering::Relaxed);
        assert!(at > 0, "grew");
        for old in 0..at {
            let array = t.array(old);
            assert!(array.tags.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            assert!(array.slots.iter().all(|s| snapshot(s) == [0; WORDS]));
        }
        for i in 0..200 {
            assert!(t.entry_of(&key(&format!("id-{i}"))).is_some());
        }
    }

    #[test]
    fn expired_entries_are_dropped_when_the_array_moves() {
        let t = Table::new(1000);
        for i in 0..64u64 {
            let expires = if i % 2 == 0 { 5 } else { 100 };
            t.insert(
                &key(&format!("id-{i}")),
                entry(i, 1, expires),
                MonoTime(10),
                |_| false,
            );
        }
        assert!(t.len() < 64, "the move at 32 dropped the expired ones");
    }

    /// An entry whose fields name key `k` (its ID's bytes, up to six, as
    /// the node number) and write `n`.
    fn entry_of_write(k: &SlotKey, n: u64) -> Entry {
        let i = k.0[0] >> 16;
        let mut e = entry(i, n, u64::MAX);
        e.route.fence.object_generation = ObjectGeneration(n);
        e.route.fence.node_generation = NodeGeneration(i);
        e
    }

    /// The ID a node number of [`entry_of_write`] names.
    fn id_of(node: u64) -> String {
        String::from_utf8_lossy(&node.to_le_bytes())
            .trim_end_matches('\0')
            .to_string()
    }

    /// `count` keys whose home is group `home` of an eight-group array.
    fn keys_homed_at(t: &Table, home: usize, count: usize, prefix: &str) -> Vec<SlotKey> {
        (0..)
            .map(|i| key(&format!("{prefix}{i}")))
            .filter(|k| t.array(0).start(t.hash(k).0) == home)
            .take(count)
            .collect()
    }

    /// Fills groups 0-2 and 4-6 of an eight-group array and empties them
    /// again: 48 deleted marks, so the next insert rebuilds into the twin.
    fn clog(t: &Table, h0: &[SlotKey], h4: &[SlotKey], n: &mut u64) {
        for run in [h0, h4] {
            for k in run {
                *n += 1;
                t.insert(k, entry_of_write(k, *n), MonoTime(0), |_| false);
            }
            for k in run {
                t.remove_if(k, |_| true);
            }
        }
    }

    /// A full table keeps one array's pages, not two: the twin left by a
    /// rebuild gives its pages back, and when reused its sequences restart
    /// above every one it held before.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_twin_left_behind_gives_its_pages_back_and_restarts_above_its_sequences() {
        let t = Table::new(32);
        let h0 = keys_homed_at(&t, 0, 24, "a");
        let h4 = keys_homed_at(&t, 4, 24, "b");
        let seqs = |a: &Array| -> Vec<u64> {
            a.slots
                .iter()
                .map(|s| s.0[SEQ].load(Ordering::Relaxed))
                .collect()
        };
        let mut n = 0;
        clog(&t, &h0, &h4, &mut n);
        let held = *seqs(t.array(0)).iter().max().expect("slots");
        assert!(held > 0);
        t.insert(&h0[0], entry_of_write(&h0[0], 1), MonoTime(0), |_| false);
        assert_eq!(t.current.load(Ordering::Relaxed), SPARE);
        assert!(
            seqs(t.array(0)).iter().all(|s| *s == 0),
            "its pages went back"
        );
        let floor = t.array(0).floor.load(Ordering::Relaxed);
        assert!(floor > held && floor.is_multiple_of(2));
        t.remove_if(&h0[0], |_| true);
        clog(&t, &h0, &h4, &mut n);
        t.insert(&h0[1], entry_of_write(&h0[1], 2), MonoTime(0), |_| false);
        assert_eq!(t.current.load(Ordering::Relaxed), 0);
        assert!(
            seqs(t.array(0)).iter().all(|s| *s >= floor),
            "restarted above"
        );
        assert!(
            seqs(t.array(SPARE)).iter().all(|s| *s == 0),
            "the spare's went back"
        );
        assert!(t.entry_of(&h0[1]).is_some());
    }

    /// A slot's sequence must never come back to a value a reader may hold
    /// with other words behind it. Given back with MADV_DONTNEED, the left
    /// array's sequences restart at zero, and the twin is reused: here a
    /// reader's loads (as `read_if` does them) straddle two rebuilds and
    /// accept key A's words with key B's route.
    #[test]
    fn a_reader_straddling_two_rebuilds_never_accepts_another_keys_route() {
        let t = Table::new(32);
        let h0 = keys_homed_at(&t, 0, 26, "a");
        let h4 = keys_homed_at(&t, 4, 24, "b");
        let (a, b, h0) = (h0[0], h0[1], &h0[2..]);
        let mut n = 0;
        t.insert(&a, entry_of_write(&a, 1), MonoTime(0), |_| false);
        assert_eq!(t.find(&a).map(|(g, l, _)| (g, l)), Some((0, 0)));
        let slot = &t.array(0).slots[0].0;
        // The reader: the sequence, then the key words (A's)...
        let before = slot[SEQ].load(Ordering::Acquire);
        let key_words: Vec<u64> = (0..KEY_WORDS)
            .map(|i| slot[KEY + i].load(Ordering::Relaxed))
            .collect();
        assert_eq!(key_words[..], a.0[..]);
        // ...is preempted; A goes, the array moves to the spare and back.
        t.remove_if(&a, |_| true);
        clog(&t, h0, &h4, &mut n);
        t.insert(&b, entry_of_write(&b, 2), MonoTime(0), |_| false);
        assert_eq!(t.current.load(Ordering::Relaxed), SPARE);
        t.remove_if(&b, |_| true);
        clog(&t, h0, &h4, &mut n);
        t.insert(&b, entry_of_write(&b, 3), MonoTime(0), |_| false);
        assert_eq!(t.current.load(Ordering::Relaxed), 0);
        // ...and resumes: the route words, then the sequence again.
        let node = slot[NODE].load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let after = slot[SEQ].load(Ordering::Relaxed);
        let accepted = after == before && before & 1 == 0;
        assert!(
            !accepted,
            "sequence {before} then {after}: a read of key {} accepted with the route of {}",
            id_of(entry_of_write(&a, 0).route.route.node.get()),
            id_of(node)
        );
    }

    #[test]
    fn readers_never_get_another_keys_route_across_twin_rebuilds() {
        let t = Arc::new(Table::new(32));
        let h0 = keys_homed_at(&t, 0, 24, "a");
        let h4 = keys_homed_at(&t, 4, 24, "b");
        let stop = Arc::new(AtomicBool::new(false));
        let bad = Arc::new(std::sync::Mutex::new(None));
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let (t, stop, bad, h0) = (t.clone(), stop.clone(), bad.clone(), h0.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        for k in &h0 {
                            let Some(r) = t.get(k, MonoTime(0)) else {
                                continue;
                            };
                            let (want, f) = (entry_of_write(k, 0).route.route.node, r.fence);
                            if r.route.node != want
                                || f.node_generation.get() != want.get()
                                || f.object_generation.get() != f.store_version.get()
                            {
                                let got = (
                                    id_of(r.route.node.get()),
                                    id_of(f.node_generation.get()),
                                    f.object_generation.get(),
                                    f.store_version.get(),
                                );
                                *bad.lock().expect("lock") = Some((id_of(want.get()), got));
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        let (mut n, mut cycles) = (0, 0);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut h0 = h0;
        while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < deadline {
            // Each cycle in another order (a refilled slot gets another key)
            // and ending in a rebuild into the twin.
            for j in (1..h0.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                h0.swap(j, (x % (j as u64 + 1)) as usize);
            }
            clog(&t, &h0, &h4, &mut n);
            cycles += 1;
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().expect("reader");
        }
        let bad = bad.lock().expect("lock").take();
        assert!(
            bad.is_none(),
            "after {cycles} cycles: a read of key {:?} returned (node of, node generation of, write, write) {:?}",
            bad.as_ref().map(|b| &b.0),
            bad.as_ref().map(|b| &b.1)
        );
    }
}
