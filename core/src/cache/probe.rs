//! Probing: where a key's slot is, and the walks that find, fill and empty it.
//!
//! Laid out as SwissTable (hashbrown) is: a key's hash picks a *group* of
//! eight slots and a 7-bit *tag*; each group has one tag word (a byte per
//! slot: empty, deleted, or full with its tag), so a lookup tests eight
//! slots with one load and a few ALU operations, and reads a slot only when
//! its tag matches (almost always the one it wants). Probing moves group by
//! group until a group with an empty slot.
//!
//! The hot path's walk ([`Table::get`], and [`Table::prefetch`] ahead of it
//! in batches) reads tag words and slots with loads only; the writers'
//! walks ([`Table::insert`], [`Table::remove_if`], [`Table::remove_where`])
//! run under the table's lock. Both walk the same layout, kept here apart
//! from the slot's words (`slot`) and from resizing (`growth`).

use std::sync::atomic::{AtomicU64, Ordering};

use super::pages::{Zeroed, prefetch};
use super::slot::{KEY, MESH, SEQ, Slot, SlotKey, WORDS, encode, same_key, snapshot, store};
use super::table::{Counts, Entry, GROUP, Table};
use crate::clock::MonoTime;
use crate::route::ReadyRoute;

// Tag bytes. A full slot's tag has its high bit set; empty and deleted
// ones do not, so "free" is one mask.
pub(super) const EMPTY: u8 = 0x00;
const DELETED: u8 = 0x01;
const LO: u64 = 0x0101_0101_0101_0101;
pub(super) const HI: u64 = 0x8080_8080_8080_8080;

/// One slot array and its tag words.
pub(super) struct Array {
    pub(super) tags: Box<[AtomicU64]>,
    pub(super) slots: Zeroed<Slot>,
    /// How many groups (any number: a hash is mapped onto them by a
    /// multiply, not a mask, so the largest array fits the capacity).
    pub(super) groups: usize,
    /// Above every sequence this array's slots ever held, once its pages
    /// were given back ([`retire`](Self::retire)); 0 before. Writers only.
    pub(super) floor: AtomicU64,
}

impl Array {
    pub(super) fn new(groups: usize) -> Array {
        Array {
            tags: (0..groups).map(|_| AtomicU64::new(0)).collect(),
            slots: Zeroed::new(groups * GROUP),
            groups,
            floor: AtomicU64::new(0),
        }
    }

    /// Gives back the pages of a twin just emptied and left for the other
    /// (writers only). Its sequences then read 0, and would count up from
    /// 0 again when it is reused: a late reader holding a sequence from
    /// before could see it again over other words. So the highest
    /// sequence it held is noted first, and [`revive`](Self::revive)
    /// starts every slot above it.
    pub(super) fn retire(&self) {
        let top = self
            .slots
            .iter()
            .map(|slot| slot.0[SEQ].load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        self.floor.store((top | 1) + 1, Ordering::Relaxed);
        self.slots.discard();
    }

    /// Before a retired twin takes entries again (writers only, before
    /// readers are switched to it): every slot's sequence set to the floor,
    /// even and above any a reader may hold, so no read that began before
    /// the retirement can end on an equal sequence.
    pub(super) fn revive(&self) {
        let floor = self.floor.load(Ordering::Relaxed);
        if floor == 0 {
            return;
        }
        for slot in self.slots.iter() {
            slot.0[SEQ].store(floor, Ordering::Relaxed);
        }
    }

    /// The group a probe run for hash `h` starts at: the high half of
    /// `h × groups` (Lemire's range reduction), so any group count is
    /// uniform. The tag takes the hash's low bits, apart from these.
    #[inline(always)]
    pub(super) fn start(&self, h: u64) -> usize {
        ((u128::from(h) * self.groups as u128) >> 64) as usize
    }

    /// Every group once, from `first` on, wrapping at the end.
    pub(super) fn run(&self, first: usize) -> impl Iterator<Item = usize> + use<> {
        let groups = self.groups;
        (first..groups).chain(0..first)
    }

    /// The group after `group` on a probe run, wrapping at the end.
    #[inline(always)]
    pub(super) fn next(&self, group: usize) -> usize {
        if group + 1 == self.groups {
            0
        } else {
            group + 1
        }
    }

    pub(super) fn slot_count(&self) -> usize {
        self.tags.len() * GROUP
    }

    pub(super) fn slot(&self, group: usize, lane: usize) -> &Slot {
        &self.slots[group * GROUP + lane]
    }

    /// The first empty or deleted slot on the probe run from `h`'s group
    /// (writers only; the table is never full, so there is one).
    pub(super) fn free_slot(&self, h: u64) -> (usize, usize) {
        let mut group = self.start(h);
        loop {
            let spaces = free(self.tags[group].load(Ordering::Relaxed));
            if spaces != 0 {
                return (group, first_lane(spaces));
            }
            group = self.next(group);
        }
    }

    /// Sets one tag byte (writers only: a plain read-modify-write is safe).
    pub(super) fn set_tag(&self, group: usize, lane: usize, tag: u8) {
        let word = self.tags[group].load(Ordering::Relaxed);
        let shift = lane * 8;
        let word = (word & !(0xff << shift)) | (u64::from(tag) << shift);
        self.tags[group].store(word, Ordering::Release);
    }
}

/// The folded multiply: the 128-bit product's halves xored.
#[inline]
fn fold(x: u64, y: u64) -> u64 {
    let full = u128::from(x) * u128::from(y);
    (full as u64) ^ ((full >> 64) as u64)
}

/// Lanes whose tag byte equals `tag` (the lowest match is exact; a lane
/// above a match may be a false one, which the key comparison rejects).
#[inline]
fn matching(word: u64, tag: u8) -> u64 {
    let x = word ^ (u64::from(tag) * LO);
    x.wrapping_sub(LO) & !x & HI
}

/// Lanes that are empty or deleted.
#[inline]
pub(super) fn free(word: u64) -> u64 {
    !word & HI
}

/// Whether some lane is empty (exactly 0: a deleted lane does not count).
#[inline]
fn has_empty(word: u64) -> bool {
    word.wrapping_sub(LO) & !word & HI != 0
}

/// The lane of the lowest set high bit.
#[inline]
fn first_lane(bits: u64) -> usize {
    bits.trailing_zeros() as usize / 8
}

impl Table {
    /// The key's hash: the high bits pick the group ([`Array::start`]),
    /// the low seven the tag.
    /// Folded multiplies (foldhash's mixing step) of seeded word pairs: three
    /// independent multiplies, inlined, where hashing the bytes through the
    /// `Hasher` interface costs a call and a longer dependency chain.
    #[inline]
    pub(super) fn hash(&self, key: &SlotKey) -> (u64, u8) {
        let [w0, w1, w2, w3, w4] = key.0;
        let s = &self.seeds;
        let a = fold(w0 ^ s[0], w1 ^ s[1]);
        let b = fold(w2 ^ s[2], w3 ^ s[3]);
        let c = fold(w4 ^ s[4], s[5]);
        let h = fold(a ^ c, b ^ s[6]);
        (h, h as u8 | 0x80)
    }

    /// The route of `key`, if there is one and it has not expired at `now`.
    /// Loads only.
    #[inline(always)]
    pub(crate) fn get(&self, key: &SlotKey, now: MonoTime) -> Option<ReadyRoute> {
        self.probe(self.current(), key, Ordering::Acquire, |slot, _, _| {
            self.read_if(slot, key, now)
        })
    }

    /// Walks `key`'s probe run in `array`, reading each slot whose tag
    /// matches with `read` (given the slot, its group and lane), until one
    /// holds the key (its answer), a read was torn (a miss), or a group with
    /// an empty slot ends the run (a miss).
    #[inline(always)]
    pub(super) fn probe<T>(
        &self,
        array: &Array,
        key: &SlotKey,
        tag_order: Ordering,
        mut read: impl FnMut(&Slot, usize, usize) -> Read<T>,
    ) -> Option<T> {
        let (h, tag) = self.hash(key);
        let mut group = array.start(h);
        for _ in 0..array.groups {
            let tags = array.tags[group].load(tag_order);
            let mut found = matching(tags, tag);
            while found != 0 {
                let lane = first_lane(found);
                match read(array.slot(group, lane), group, lane) {
                    Read::Hit(answer) => return Some(answer),
                    Read::Torn => return None,
                    Read::Other => found &= found - 1,
                }
            }
            if has_empty(tags) {
                return None;
            }
            group = array.next(group);
        }
        None
    }

    /// Starts fetching what [`get`](Self::get) of `key` will read: the tag
    /// word is read now (it is small and mostly cached), the slot it points
    /// to is prefetched. For batches: a few keys ahead of the lookups, so
    /// their cache misses overlap.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: &SlotKey) {
        let array = self.current();
        let (h, tag) = self.hash(key);
        let group = array.start(h);
        let found = matching(array.tags[group].load(Ordering::Relaxed), tag);
        let slot = array.slot(group, if found == 0 { 0 } else { first_lane(found) });
        prefetch(&slot.0[SEQ]);
        prefetch(&slot.0[WORDS - 1]);
    }

    /// Stores `entry` for `key` unless `keep(old)` says the entry there now
    /// stays. Returns whether it was stored and how many live entries (at
    /// `now`) were evicted to make room. Any number of meshes is kept
    /// (see [`mesh_numbers`](super::mesh_numbers)).
    pub(crate) fn insert(
        &self,
        key: &SlotKey,
        entry: Entry,
        now: MonoTime,
        keep: impl Fn(&Entry) -> bool,
    ) -> (bool, usize) {
        let mut counts = self.lock();
        let Some(mesh) = self.mesh_number(entry.route.route.mesh, &mut counts.meshes) else {
            // Unreachable: there are cells for one number per slot.
            return (false, 0);
        };
        if let Some((group, lane, old)) = self.find(key) {
            if keep(&old) {
                return (false, 0);
            }
            let slot = self.current().slot(group, lane);
            counts.meshes.forget(slot.0[MESH].load(Ordering::Relaxed));
            let words = encode(key, &entry, mesh);
            self.epochs.change(self.shard(key), || store(slot, &words));
            counts.meshes.add(mesh);
            return (true, 0);
        }
        let mut evicted = 0;
        if counts.live >= self.capacity.load(Ordering::Relaxed) {
            evicted += usize::from(self.evict_near(key, now, &mut counts));
        }
        self.make_room(&mut counts, now);
        let array = self.current();
        let (h, tag) = self.hash(key);
        let (group, lane) = array.free_slot(h);
        let was = (array.tags[group].load(Ordering::Relaxed) >> (lane * 8)) as u8;
        // The slot first, then its tag: a reader that sees the tag finds
        // the words (and checks them anyway).
        store(array.slot(group, lane), &encode(key, &entry, mesh));
        array.set_tag(group, lane, tag);
        counts.meshes.add(mesh);
        counts.live += 1;
        counts.used += usize::from(was == EMPTY);
        self.live.store(counts.live, Ordering::Relaxed);
        (true, evicted)
    }

    /// Removes the entry of `key` if `pred` holds for it: the entry removed.
    pub(crate) fn remove_if(&self, key: &SlotKey, pred: impl Fn(&Entry) -> bool) -> Option<Entry> {
        let mut counts = self.lock();
        let (group, lane, old) = self.find(key)?;
        if !pred(&old) {
            return None;
        }
        self.remove_at(self.current(), group, lane, &mut counts);
        Some(old)
    }

    /// Removes every entry for which `pred` holds: how many.
    pub(crate) fn remove_where(&self, pred: impl Fn(&Entry) -> bool) -> usize {
        let mut counts = self.lock();
        let array = self.current();
        let mut removed = 0;
        for group in 0..array.groups {
            for lane in 0..GROUP {
                let words = snapshot(array.slot(group, lane));
                if words[KEY] != 0 && self.entry(&words).is_some_and(|e| pred(&e)) {
                    self.remove_at(array, group, lane, &mut counts);
                    removed += 1;
                }
            }
        }
        removed
    }

    /// The group, lane and entry of `key` (writers only: plain reads).
    pub(super) fn find(&self, key: &SlotKey) -> Option<(usize, usize, Entry)> {
        self.probe(
            self.current(),
            key,
            Ordering::Relaxed,
            |slot, group, lane| {
                let words = snapshot(slot);
                match same_key(&words, key).then(|| self.entry(&words)).flatten() {
                    Some(e) => Read::Hit((group, lane, e)),
                    None => Read::Other,
                }
            },
        )
    }

    /// Empties one slot. Its tag becomes empty when its group still has an
    /// empty slot (then no probe ever went past this group), deleted
    /// otherwise (a probe may have, and must still).
    pub(super) fn remove_at(&self, array: &Array, group: usize, lane: usize, counts: &mut Counts) {
        let tags = array.tags[group].load(Ordering::Relaxed);
        let mark = if has_empty(tags) { EMPTY } else { DELETED };
        let slot = array.slot(group, lane);
        let words = snapshot(slot);
        counts.meshes.forget(words[MESH]);
        let shard = self.shard(&SlotKey::from_words(&words));
        // The tag too inside the change: a core read that misses on it
        // already sees the shard's epoch moved.
        self.epochs.change(shard, || {
            array.set_tag(group, lane, mark);
            store(slot, &[0; WORDS]);
        });
        counts.live -= 1;
        counts.used -= usize::from(mark == EMPTY);
        self.live.store(counts.live, Ordering::Relaxed);
    }
}

/// What a read of a slot on a probe run found.
pub(super) enum Read<T> {
    /// The slot holds the key: what was read of it (for the hot path, its
    /// route, read consistently, not expired).
    Hit(T),
    /// Another key (or one being written: then a miss, which is safe).
    Other,
    /// The key, but the slot changed while it was read, or its entry has
    /// expired.
    Torn,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::table::testing::{entry, key};
    use crate::ids::NodeRid;

    #[test]
    fn tag_words_match_exactly_on_the_lowest_lane() {
        let word = u64::from_le_bytes([0x80, 0x81, 0, 0x81, DELETED, 0xff, 0x81, 0x80]);
        assert_eq!(first_lane(matching(word, 0x81)), 1);
        assert_eq!(first_lane(matching(word, 0xff)), 5);
        assert_eq!(matching(word, 0x90), 0);
        assert_eq!(first_lane(free(word)), 2);
        assert!(has_empty(word));
        let no_empty = u64::from_le_bytes([0x80, DELETED, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86]);
        assert!(!has_empty(no_empty));
        assert_eq!(first_lane(free(no_empty)), 1);
    }

    #[test]
    fn a_route_reads_back_whole() {
        let t = Table::new(100);
        assert_eq!(t.entry_of(&key("a")), None);
        t.insert(&key("a"), entry(7, 9, 100), MonoTime(0), |_| false);
        assert_eq!(t.entry_of(&key("a")), Some(entry(7, 9, 100)));
        assert_eq!(t.len(), 1);
        t.insert(&key("a"), entry(8, 10, 100), MonoTime(0), |_| false);
        assert_eq!(t.entry_of(&key("a")), Some(entry(8, 10, 100)), "in place");
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.insert(&key("a"), entry(9, 1, 100), MonoTime(0), |_| true),
            (false, 0)
        );
        assert_eq!(
            t.remove_if(&key("a"), |e| e.route.route.node == NodeRid(1)),
            None
        );
        assert!(t.remove_if(&key("a"), |_| true).is_some());
        assert_eq!(t.entry_of(&key("a")), None);
        assert_eq!(t.len(), 0);
    }
}
