//! The table of routes for short IDs: open addressing, read with loads only.
//!
//! Laid out as SwissTable (hashbrown) is: a key's hash picks a *group* of
//! eight slots and a 7-bit *tag*; each group has one tag word (a byte per
//! slot: empty, deleted, or full with its tag), so a lookup tests eight
//! slots with one load and a few ALU operations, and reads a slot only when
//! its tag matches (almost always the one it wants). Probing moves group by
//! group until a group with an empty slot.
//!
//! Each slot is two cache lines behind a seqlock (the Linux kernel's
//! seqcount, crossbeam's `SeqLock`): a writer makes the slot's sequence odd,
//! writes its words, makes it even again; a reader reads the sequence, the
//! words (relaxed atomic loads: plain `mov`s), then the sequence again, and
//! keeps what it read only if the sequence did not move. So a hit costs
//! loads only: no read-modify-write, no guard, nothing to reclaim. Tags only
//! filter: the reader compares the whole key it read. A reader that meets a
//! slot being written, or an entry being moved, takes a miss (the caller
//! reads the store, as after an eviction): a miss is always safe, a stale
//! hit never happens, because every write of a slot goes through its
//! sequence.
//!
//! Writers (store reads, invalidations) are serialised by one lock; they are
//! rare next to hits. The slot array doubles when half full, up to twice the
//! capacity; at that size, when deleted slots pile up, it is rebuilt into a
//! second array of the same size. Readers still on an old array find it
//! emptied (through the sequences) right after the switch; arrays are freed
//! only with the table, and the two largest are reused in turn, so nothing
//! is ever freed under a reader; a smaller array's pages go back to the
//! system when it is left for a bigger one (it reads as zeros, empty, after;
//! never reused, so its restarted sequences cannot fool a late reader).
//!
//! The arrays come from [`pages`](super::pages): zeroed memory touched only
//! where entries land, in huge pages where the system allows, because a
//! scattered lookup in 4 KiB pages misses the TLB on top of the cache.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};
use std::sync::{Mutex, OnceLock};

use super::pages::{Zeroed, prefetch};
use crate::clock::MonoTime;
use crate::ids::{
    AuthorityOwnerGeneration, KeyRef, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    OwnerLeaseGeneration, StoreVersion,
};
use crate::route::{OwnerRoute, ReadyRoute, RouteFence};

/// IDs up to this many bytes are kept here (with the kind and the length,
/// five words); longer ones in the cache's map.
pub const INLINE_ID_BYTES: usize = 38;

const KEY_BYTES: usize = INLINE_ID_BYTES + 2;
const KEY_WORDS: usize = KEY_BYTES / 8;
/// Distinct mesh names a table's entries may name at once (a slot names
/// its mesh by number; a number no entry uses is given to the next new
/// mesh).
pub(crate) const MESHES: usize = 256;
/// Slots per group: one tag byte each in one word.
const GROUP: usize = 8;
/// The first array's groups.
const FIRST_GROUPS: usize = 8;
/// Array sizes a table can grow through (each twice the last).
const LEVELS: usize = 40;
/// `current` when the spare array is in use.
const SPARE: usize = LEVELS;

// Tag bytes. A full slot's tag has its high bit set; empty and deleted
// ones do not, so "free" is one mask.
const EMPTY: u8 = 0x00;
const DELETED: u8 = 0x01;
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

// A slot's words.
const SEQ: usize = 0;
const KEY: usize = 1;
const NODE: usize = KEY + KEY_WORDS;
const FENCE: usize = NODE + 1;
const ADMISSION: usize = FENCE + 5;
const EXPIRES: usize = ADMISSION + 1;
const MESH: usize = EXPIRES + 1;
const WORDS: usize = 16;
const _: () = assert!(MESH < WORDS && KEY_BYTES == 40 && KEY_WORDS == 5);

/// A key as a slot holds it: kind, length, then the ID's bytes, zero-padded,
/// as little-endian words. Never all zero (a kind is never 0), so a cleared
/// slot matches no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotKey([u64; KEY_WORDS]);

impl SlotKey {
    /// The slot form of `key`, or None if its ID is too long for the table.
    ///
    /// The words are read straight from the ID (whole words where it has
    /// them): assembling the bytes in a buffer and reading it back as words
    /// stalls on store forwarding, which cost more than the rest of a hit.
    #[inline]
    pub(crate) fn new(key: KeyRef<'_>) -> Option<SlotKey> {
        let id = key.id.as_bytes();
        if id.len() > INLINE_ID_BYTES {
            return None;
        }
        let head = (key.kind as u64) | ((id.len() as u64) << 8);
        // Word by word, no loop: the words stay in registers. The first
        // holds six ID bytes after the kind and the length.
        Some(SlotKey([
            head | (id_word(id, 0) << 16),
            id_word(id, 6),
            id_word(id, 14),
            id_word(id, 22),
            id_word(id, 30),
        ]))
    }
}

impl SlotKey {
    /// The key held in a slot's words.
    fn from_words(words: &[u64; WORDS]) -> SlotKey {
        let mut key = [0u64; KEY_WORDS];
        key.copy_from_slice(&words[KEY..KEY + KEY_WORDS]);
        SlotKey(key)
    }
}

/// The little-endian word of `id[start..start + 8]`, zero past the end.
#[inline]
fn id_word(id: &[u8], start: usize) -> u64 {
    let len = id.len();
    if start >= len {
        return 0;
    }
    if let Some(whole) = id.get(start..start + 8) {
        return u64::from_le_bytes(whole.try_into().unwrap_or_default());
    }
    let rest = len - start;
    if len >= 8 {
        // The ID's last eight bytes, shifted down to the `rest` wanted.
        let last = u64::from_le_bytes(id[len - 8..].try_into().unwrap_or_default());
        return last >> (8 * (8 - rest));
    }
    id[start..]
        .iter()
        .rev()
        .fold(0, |word, byte| (word << 8) | u64::from(*byte))
}

/// A route and when its entry stops being served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) route: ReadyRoute,
    /// Earlier of the admission deadline (less the coarse-clock slack) and
    /// insert time + the max age in force at insert.
    pub(crate) expires_at: MonoTime,
}

/// Two cache lines. All zero is an empty slot.
#[repr(align(128))]
pub(crate) struct Slot([AtomicU64; WORDS]);

impl Slot {
    pub(crate) fn empty() -> Slot {
        Slot([const { AtomicU64::new(0) }; WORDS])
    }
}

/// One slot array and its tag words.
struct Array {
    tags: Box<[AtomicU64]>,
    slots: Zeroed<Slot>,
    /// Groups − 1 (a power of two less one).
    mask: usize,
}

impl Array {
    fn new(groups: usize) -> Array {
        Array {
            tags: (0..groups).map(|_| AtomicU64::new(0)).collect(),
            slots: Zeroed::new(groups * GROUP),
            mask: groups - 1,
        }
    }

    fn slot_count(&self) -> usize {
        self.tags.len() * GROUP
    }

    fn slot(&self, group: usize, lane: usize) -> &Slot {
        &self.slots[group * GROUP + lane]
    }

    /// The first empty or deleted slot on the probe run from `h`'s group
    /// (writers only; the table is never full, so there is one).
    fn free_slot(&self, h: usize) -> (usize, usize) {
        let mut group = h & self.mask;
        loop {
            let spaces = free(self.tags[group].load(Ordering::Relaxed));
            if spaces != 0 {
                return (group, first_lane(spaces));
            }
            group = (group + 1) & self.mask;
        }
    }

    /// Sets one tag byte (writers only: a plain read-modify-write is safe).
    fn set_tag(&self, group: usize, lane: usize, tag: u8) {
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
fn free(word: u64) -> u64 {
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

/// Counts kept under the writers' lock.
struct Counts {
    /// Slots holding an entry.
    live: usize,
    /// Slots holding an entry or a deleted mark (probes pass both).
    used: usize,
    /// Entries naming each mesh number: a number at 0 may name another
    /// mesh.
    mesh_uses: [u32; MESHES],
}

impl Counts {
    /// An entry naming mesh number `mesh` leaves its slot.
    fn forget_mesh(&mut self, mesh: u64) {
        if let Some(uses) = self.mesh_uses.get_mut(mesh as usize) {
            debug_assert!(*uses > 0, "mesh {mesh} forgotten more often than used");
            *uses = uses.saturating_sub(1);
        }
    }
}

/// The name a mesh number stands for, as [`MeshName::to_words`] (all zero:
/// none yet). A reader loads it with the slot's other words, before it
/// checks the slot's sequence, so a number given to another mesh since the
/// slot was read is caught as any other change of the slot is (see
/// [`Table::mesh_number`]). Aligned so that a name never straddles two
/// cache lines.
#[repr(align(32))]
struct MeshCell([AtomicU64; 3]);

impl MeshCell {
    fn load(&self) -> [u64; 3] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// The table.
pub(crate) struct Table {
    arrays: [OnceLock<Array>; LEVELS],
    /// A second array of the largest size, for rebuilds at that size.
    spare: OnceLock<Array>,
    /// The array readers use: an index of `arrays`, or [`SPARE`].
    current: AtomicUsize,
    meshes: [MeshCell; MESHES],
    /// The hash's random seeds (per table).
    seeds: [u64; 7],
    capacity: usize,
    /// Groups of the largest array (twice the capacity in slots).
    max_groups: usize,
    /// `Counts::live`, readable without the lock.
    live: AtomicUsize,
    /// Where [`evict_one`](Self::evict_one) looks next.
    evict_cursor: AtomicUsize,
    writing: Mutex<Counts>,
}

impl Table {
    /// A table for at most `capacity` routes.
    pub(crate) fn new(capacity: usize) -> Self {
        let max_groups = (capacity.max(1) * 2)
            .div_ceil(GROUP)
            .next_power_of_two()
            .max(FIRST_GROUPS);
        let random = foldhash::fast::RandomState::default();
        // Odd seeds: a zero factor would fold a word away.
        let seeds = std::array::from_fn(|i| random.hash_one(i) | 1);
        let table = Table {
            arrays: [const { OnceLock::new() }; LEVELS],
            spare: OnceLock::new(),
            current: AtomicUsize::new(0),
            meshes: std::array::from_fn(|_| MeshCell([const { AtomicU64::new(0) }; 3])),
            seeds,
            capacity,
            max_groups,
            live: AtomicUsize::new(0),
            evict_cursor: AtomicUsize::new(0),
            writing: Mutex::new(Counts {
                live: 0,
                used: 0,
                mesh_uses: [0; MESHES],
            }),
        };
        let _ = table.arrays[0].set(Array::new(FIRST_GROUPS.min(max_groups)));
        table
    }

    fn array(&self, at: usize) -> &Array {
        let cell = if at == SPARE {
            &self.spare
        } else {
            &self.arrays[at]
        };
        cell.get()
            .unwrap_or_else(|| unreachable!("an array is set before it is current"))
    }

    #[inline]
    fn current(&self) -> &Array {
        self.array(self.current.load(Ordering::Acquire))
    }

    /// The key's hash: the low bits pick the group, the top seven the tag.
    /// Folded multiplies (foldhash's mixing step) of seeded word pairs: three
    /// independent multiplies, inlined, where hashing the bytes through the
    /// `Hasher` interface costs a call and a longer dependency chain.
    #[inline]
    fn hash(&self, key: &SlotKey) -> (usize, u8) {
        let [w0, w1, w2, w3, w4] = key.0;
        let s = &self.seeds;
        let a = fold(w0 ^ s[0], w1 ^ s[1]);
        let b = fold(w2 ^ s[2], w3 ^ s[3]);
        let c = fold(w4 ^ s[4], s[5]);
        let h = fold(a ^ c, b ^ s[6]);
        (h as usize, (h >> 57) as u8 | 0x80)
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
    fn probe<T>(
        &self,
        array: &Array,
        key: &SlotKey,
        tag_order: Ordering,
        mut read: impl FnMut(&Slot, usize, usize) -> Read<T>,
    ) -> Option<T> {
        let (h, tag) = self.hash(key);
        let mut group = h & array.mask;
        for _ in 0..=array.mask {
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
            group = (group + 1) & array.mask;
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
        let group = h & array.mask;
        let found = matching(array.tags[group].load(Ordering::Relaxed), tag);
        let slot = array.slot(group, if found == 0 { 0 } else { first_lane(found) });
        prefetch(&slot.0[SEQ]);
        prefetch(&slot.0[WORDS - 1]);
    }

    /// Stores `entry` for `key` unless `keep(old)` says the entry there now
    /// stays. Returns whether it was stored and how many live entries (at
    /// `now`) were evicted to make room. A route of a mesh when entries
    /// already name [`MESHES`] others (the key's own older one aside) is
    /// not stored, and the key's older one goes.
    pub(crate) fn insert(
        &self,
        key: &SlotKey,
        entry: Entry,
        now: MonoTime,
        keep: impl Fn(&Entry) -> bool,
    ) -> (bool, usize) {
        let mut counts = self.lock();
        let mesh = match self.mesh_number(entry.route.route.mesh, &counts) {
            Some(mesh) => mesh,
            None => {
                // Every number is in use. The key's route there now stays
                // if `keep` says so; else it goes (an older route may not
                // stay), and the number it held may be free then.
                let Some((group, lane, old)) = self.find(key) else {
                    return (false, 0);
                };
                if keep(&old) {
                    return (false, 0);
                }
                self.remove_at(self.current(), group, lane, &mut counts);
                match self.mesh_number(entry.route.route.mesh, &counts) {
                    Some(mesh) => mesh,
                    None => return (false, 0),
                }
            }
        };
        if let Some((group, lane, old)) = self.find(key) {
            if keep(&old) {
                return (false, 0);
            }
            let slot = self.current().slot(group, lane);
            counts.forget_mesh(slot.0[MESH].load(Ordering::Relaxed));
            store(slot, &encode(key, &entry, mesh));
            counts.mesh_uses[mesh as usize] += 1;
            return (true, 0);
        }
        let mut evicted = 0;
        if counts.live >= self.capacity {
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
        counts.mesh_uses[mesh as usize] += 1;
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
        for group in 0..=array.mask {
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

    /// Live entries (expired ones not yet replaced included).
    pub(crate) fn len(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        // The counts are only ever changed whole; a panic elsewhere while the
        // lock was held leaves them as valid as before.
        self.writing.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The group, lane and entry of `key` (writers only: plain reads).
    fn find(&self, key: &SlotKey) -> Option<(usize, usize, Entry)> {
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
    fn remove_at(&self, array: &Array, group: usize, lane: usize, counts: &mut Counts) {
        let tags = array.tags[group].load(Ordering::Relaxed);
        let mark = if has_empty(tags) { EMPTY } else { DELETED };
        array.set_tag(group, lane, mark);
        let slot = array.slot(group, lane);
        counts.forget_mesh(slot.0[MESH].load(Ordering::Relaxed));
        store(slot, &[0; WORDS]);
        counts.live -= 1;
        counts.used -= usize::from(mark == EMPTY);
        self.live.store(counts.live, Ordering::Relaxed);
    }

    /// At capacity: of the entries in the first few groups with entries
    /// from `key`'s group on, the one that expires first goes (an expired
    /// one if there is one). True if a live entry went.
    fn evict_near(&self, key: &SlotKey, now: MonoTime, counts: &mut Counts) -> bool {
        self.evict_from(self.hash(key).0, now, counts)
    }

    /// Evicts one entry to make room for a route kept elsewhere (a long ID):
    /// as [`evict_near`](Self::evict_near), from a group that moves on with
    /// every call. True if a live entry went.
    pub(crate) fn evict_one(&self, now: MonoTime) -> bool {
        let mut counts = self.lock();
        let start = self.evict_cursor.fetch_add(1, Ordering::Relaxed);
        // Spread over the array: consecutive calls land far apart.
        self.evict_from(start.wrapping_mul(0x9e37_79b9), now, &mut counts)
    }

    fn evict_from(&self, h: usize, now: MonoTime, counts: &mut Counts) -> bool {
        /// Groups with entries looked at: enough to find an expired entry
        /// where there are some, few enough to keep an insert cheap.
        const LOOK: usize = 4;
        let array = self.current();
        let mut victim: Option<(u64, usize, usize)> = None;
        let mut looked = 0;
        for i in 0..=array.mask {
            let group = h.wrapping_add(i) & array.mask;
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

    /// Before an insert: doubles the array when it would be over half full
    /// or deleted marks fill a quarter of it, up to the largest size; at
    /// that size, rebuilds it into its twin (the spare, or back).
    fn make_room(&self, counts: &mut Counts, now: MonoTime) {
        let at = self.current.load(Ordering::Relaxed);
        let array = self.array(at);
        let slots = array.slot_count();
        let over_half = (counts.live + 1) * 2 > slots;
        let clogged = (counts.used + 1) * 4 > slots * 3;
        if !over_half && !clogged {
            return;
        }
        let groups = array.mask + 1;
        if at != SPARE && groups < self.max_groups && at + 1 < LEVELS {
            let bigger = self.arrays[at + 1].get_or_init(|| Array::new(groups * 2));
            self.move_to(at, at + 1, bigger, counts, now);
        } else if clogged {
            let (to, twin) = if at == SPARE {
                // The largest level array: the last one made.
                let level = (0..LEVELS)
                    .rev()
                    .find(|i| self.arrays[*i].get().is_some())
                    .unwrap_or(0);
                (level, self.array(level))
            } else {
                (SPARE, self.spare.get_or_init(|| Array::new(groups)))
            };
            self.move_to(at, to, twin, counts, now);
        }
    }

    /// Copies every live entry of array `from` into the empty array `to`,
    /// switches readers to it, then empties `from` through the slot
    /// sequences, so a reader still there misses instead of finding an entry
    /// a later write (after the switch) removed. Expired entries are dropped.
    fn move_to(&self, from: usize, to: usize, target: &Array, counts: &mut Counts, now: MonoTime) {
        let source = self.array(from);
        let mut live = 0;
        let mut mesh_uses = [0; MESHES];
        for group in 0..=source.mask {
            for lane in 0..GROUP {
                let words = snapshot(source.slot(group, lane));
                if words[KEY] == 0 || words[EXPIRES] <= now.0 {
                    continue;
                }
                let (h, tag) = self.hash(&SlotKey::from_words(&words));
                let (group, lane) = target.free_slot(h);
                store(target.slot(group, lane), &words);
                target.set_tag(group, lane, tag);
                mesh_uses[words[MESH] as usize] += 1;
                live += 1;
            }
        }
        self.current.store(to, Ordering::Release);
        for group in 0..=source.mask {
            let tags = source.tags[group].load(Ordering::Relaxed);
            for lane in (0..GROUP).filter(|l| (tags >> (l * 8)) & 0xff != 0) {
                source.set_tag(group, lane, EMPTY);
                store(source.slot(group, lane), &[0; WORDS]);
            }
        }
        // A smaller array left for a bigger one is never used again: its
        // pages can go back (it reads as zeros, empty, after). Not so the two
        // largest, which take turns: their sequences must keep counting up,
        // or a reader holding an old sequence could see it again over other
        // words (an ABA: another key's route, or a torn one, accepted).
        if to != SPARE && to == from + 1 {
            source.slots.discard();
        }
        counts.live = live;
        counts.used = live;
        counts.mesh_uses = mesh_uses;
        self.live.store(live, Ordering::Relaxed);
    }

    /// The number of `mesh` in this table: the one it has, else one no
    /// entry uses, given to it now (writers only); None if every number is
    /// in use.
    ///
    /// A number given again is safe for readers: every slot that named it
    /// was emptied or rewritten first (its sequence moved on), and the
    /// release fence below orders those writes before the new name's. A
    /// reader that loads any word of the new name for a slot it read
    /// before that (its acquire fence pairing with this one) then sees
    /// the slot's sequence moved, and takes a miss.
    fn mesh_number(&self, mesh: MeshName, counts: &Counts) -> Option<u64> {
        let words = mesh.to_words();
        let mut unused = None;
        for (i, cell) in self.meshes.iter().enumerate() {
            if cell.load() == words {
                return Some(i as u64);
            }
            if unused.is_none() && counts.mesh_uses[i] == 0 {
                unused = Some(i);
            }
        }
        let i = unused?;
        fence(Ordering::Release);
        for (cell, word) in self.meshes[i].0.iter().zip(words) {
            cell.store(word, Ordering::Relaxed);
        }
        Some(i as u64)
    }

    /// Reads a slot if it holds `key`. The key words are compared first, so
    /// a slot of another key costs six loads; the entry is then read field
    /// by field straight from the slot (a copy of the words first costs a
    /// round trip through the stack), and the sequence checked again (it
    /// covers the key words too).
    #[inline(always)]
    fn read_if(&self, slot: &Slot, key: &SlotKey, now: MonoTime) -> Read<ReadyRoute> {
        let w = &slot.0;
        let before = w[SEQ].load(Ordering::Acquire);
        let k = key.0;
        let same = (0..KEY_WORDS).fold(true, |same, i| {
            same & (w[KEY + i].load(Ordering::Relaxed) == k[i])
        });
        if !same {
            return Read::Other;
        }
        let mut e = [0u64; WORDS - NODE];
        for (word, cell) in e.iter_mut().zip(&w[NODE..]) {
            *word = cell.load(Ordering::Relaxed);
        }
        let at = |i: usize| e[i - NODE];
        // The name of the slot's mesh number, read before the sequence is
        // checked again: the check then covers it too (`mesh_number`).
        let Some(name) = self.meshes.get(at(MESH) as usize).map(MeshCell::load) else {
            return Read::Torn;
        };
        // Orders the loads above before the second look at the sequence.
        fence(Ordering::Acquire);
        if w[SEQ].load(Ordering::Relaxed) != before || before & 1 == 1 || now.0 >= at(EXPIRES) {
            return Read::Torn;
        }
        let Some(mesh) = MeshName::from_words(name) else {
            return Read::Torn;
        };
        // Built here, once, in its final shape, not through `entry` (measured:
        // a full word copy decoded by it costs 26 ns a hot hit instead of 19).
        Read::Hit(ReadyRoute {
            route: OwnerRoute {
                mesh,
                node: NodeRid(at(NODE)),
            },
            fence: RouteFence {
                object_generation: ObjectGeneration(at(FENCE)),
                authority_owner_generation: AuthorityOwnerGeneration(at(FENCE + 1)),
                owner_lease_generation: OwnerLeaseGeneration(at(FENCE + 2)),
                node_generation: NodeGeneration(at(FENCE + 3)),
                store_version: StoreVersion(at(FENCE + 4)),
            },
            admission_deadline: MonoTime(at(ADMISSION)),
        })
    }

    /// The entry of a slot's words (read consistently; the key words are
    /// not looked at).
    fn entry(&self, w: &[u64; WORDS]) -> Option<Entry> {
        let mesh = MeshName::from_words(self.meshes.get(w[MESH] as usize)?.load())?;
        let route = ReadyRoute {
            route: OwnerRoute {
                mesh,
                node: NodeRid(w[NODE]),
            },
            fence: RouteFence {
                object_generation: ObjectGeneration(w[FENCE]),
                authority_owner_generation: AuthorityOwnerGeneration(w[FENCE + 1]),
                owner_lease_generation: OwnerLeaseGeneration(w[FENCE + 2]),
                node_generation: NodeGeneration(w[FENCE + 3]),
                store_version: StoreVersion(w[FENCE + 4]),
            },
            admission_deadline: MonoTime(w[ADMISSION]),
        };
        Some(Entry {
            route,
            expires_at: MonoTime(w[EXPIRES]),
        })
    }
}

/// Whether a slot's words hold `key`: word by word, inlined (a slice
/// comparison calls `memcmp`).
#[inline]
fn same_key(words: &[u64; WORDS], key: &SlotKey) -> bool {
    let k = key.0;
    (0..KEY_WORDS).fold(true, |same, i| same & (words[KEY + i] == k[i]))
}

/// What a read of a slot on a probe run found.
enum Read<T> {
    /// The slot holds the key: what was read of it (for the hot path, its
    /// route, read consistently, not expired).
    Hit(T),
    /// Another key (or one being written: then a miss, which is safe).
    Other,
    /// The key, but the slot changed while it was read, or its entry has
    /// expired.
    Torn,
}

/// A slot's words as they are (writers only: no writer races them).
fn snapshot(slot: &Slot) -> [u64; WORDS] {
    let mut w = [0u64; WORDS];
    for (word, cell) in w.iter_mut().zip(&slot.0).skip(1) {
        *word = cell.load(Ordering::Relaxed);
    }
    w
}

/// The words of `entry` for `key`, its mesh numbered `mesh`.
fn encode(key: &SlotKey, entry: &Entry, mesh: u64) -> [u64; WORDS] {
    let r = &entry.route;
    let f = &r.fence;
    let mut w = [0u64; WORDS];
    w[KEY..KEY + KEY_WORDS].copy_from_slice(&key.0);
    w[NODE] = r.route.node.get();
    w[FENCE..FENCE + 5].copy_from_slice(&[
        f.object_generation.get(),
        f.authority_owner_generation.get(),
        f.owner_lease_generation.get(),
        f.node_generation.get(),
        f.store_version.get(),
    ]);
    w[ADMISSION] = r.admission_deadline.0;
    w[EXPIRES] = entry.expires_at.0;
    w[MESH] = mesh;
    w
}

/// The seqlock write of a slot's words (its sequence word excepted): odd
/// while they change, even again after.
fn store(slot: &Slot, w: &[u64; WORDS]) {
    let slot = &slot.0;
    let seq = slot[SEQ].load(Ordering::Relaxed);
    slot[SEQ].store(seq.wrapping_add(1), Ordering::Relaxed);
    // Orders the odd sequence before the words for any reader.
    fence(Ordering::Release);
    for (cell, word) in slot.iter().zip(w).skip(1) {
        cell.store(*word, Ordering::Relaxed);
    }
    slot[SEQ].store(seq.wrapping_add(2), Ordering::Release);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::ids::ObjectKind;

    fn entry_in(mesh: &str, node: u64, version: u64, expires: u64) -> Entry {
        Entry {
            route: ReadyRoute {
                route: OwnerRoute {
                    mesh: MeshName::new(mesh).expect("valid"),
                    node: NodeRid(node),
                },
                fence: RouteFence {
                    object_generation: ObjectGeneration(1),
                    authority_owner_generation: AuthorityOwnerGeneration(2),
                    owner_lease_generation: OwnerLeaseGeneration(3),
                    node_generation: NodeGeneration(4),
                    store_version: StoreVersion(version),
                },
                admission_deadline: MonoTime(77),
            },
            expires_at: MonoTime(expires),
        }
    }

    fn entry(node: u64, version: u64, expires: u64) -> Entry {
        entry_in("mesh-a", node, version, expires)
    }

    fn key(id: &str) -> SlotKey {
        SlotKey::new(KeyRef {
            kind: ObjectKind::Actor,
            id,
        })
        .expect("short")
    }

    impl Table {
        /// The entry of `key` as the hot path reads it.
        fn entry_of(&self, key: &SlotKey) -> Option<Entry> {
            let found = self.find(key).map(|(_, _, e)| e);
            let route = self.get(key, MonoTime(0));
            assert_eq!(route, found.filter(|e| e.expires_at.0 > 0).map(|e| e.route));
            found
        }
    }

    #[test]
    fn keys_differ_by_kind_length_and_bytes() {
        let spot = SlotKey::new(KeyRef {
            kind: ObjectKind::Spot,
            id: "a",
        });
        assert_ne!(spot, Some(key("a")));
        assert_ne!(key("a"), key("a\0"));
        assert_ne!(key(""), key("\0"));
        assert!(
            SlotKey::new(KeyRef {
                kind: ObjectKind::Actor,
                id: &"x".repeat(INLINE_ID_BYTES + 1)
            })
            .is_none()
        );
        let longest = "y".repeat(INLINE_ID_BYTES);
        let mut words = [0; WORDS];
        words[KEY..KEY + KEY_WORDS].copy_from_slice(&key(&longest).0);
        assert_eq!(SlotKey::from_words(&words), key(&longest));
    }

    #[test]
    fn key_words_are_the_padded_bytes_for_every_length() {
        let id: String = (0..INLINE_ID_BYTES as u8)
            .map(|i| char::from(b'a' + i % 26))
            .collect();
        for len in 0..=INLINE_ID_BYTES {
            let mut bytes = [0u8; KEY_BYTES];
            bytes[0] = ObjectKind::Spot as u8;
            bytes[1] = len as u8;
            bytes[2..2 + len].copy_from_slice(&id.as_bytes()[..len]);
            let expected: Vec<u64> = bytes
                .as_chunks::<8>()
                .0
                .iter()
                .map(|c| u64::from_le_bytes(*c))
                .collect();
            let got = SlotKey::new(KeyRef {
                kind: ObjectKind::Spot,
                id: &id[..len],
            })
            .expect("short");
            assert_eq!(got.0[..], expected[..], "length {len}");
        }
    }

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

    #[test]
    fn a_route_of_a_mesh_beyond_the_numbered_ones_is_not_kept_nor_its_older_one() {
        let t = Table::new(1000);
        // "x" shares its mesh with "y": its going frees no number.
        t.insert(&key("x"), entry(1, 1, 100), MonoTime(0), |_| false);
        t.insert(&key("y"), entry(1, 1, 100), MonoTime(0), |_| false);
        for i in 1..MESHES {
            let id = format!("m{i}");
            t.insert(&key(&id), entry_in(&id, 1, 1, 100), MonoTime(0), |_| false);
        }
        assert!(t.entry_of(&key("x")).is_some());
        assert!(t.entry_of(&key(&format!("m{}", MESHES - 1))).is_some());
        let stored = t.insert(&key("x"), entry_in("new", 2, 2, 100), MonoTime(0), |_| {
            false
        });
        assert_eq!(stored, (false, 0));
        assert_eq!(t.entry_of(&key("x")), None, "the older route went");
        assert_eq!(t.entry_of(&key("y")), Some(entry(1, 1, 100)));
    }

    #[test]
    fn a_keys_own_route_frees_the_number_its_new_route_needs() {
        // Every number is in use; "m5" alone names mesh m5.
        let t = Table::new(1000);
        for i in 0..MESHES {
            let id = format!("m{i}");
            t.insert(&key(&id), entry_in(&id, 1, 1, 100), MonoTime(0), |_| false);
        }
        let kept = entry_in("elsewhere", 2, 2, 100);
        // A route its older one outranks is not taken, and the older stays.
        assert_eq!(
            t.insert(&key("m5"), kept, MonoTime(0), |_| true),
            (false, 0)
        );
        assert_eq!(t.entry_of(&key("m5")), Some(entry_in("m5", 1, 1, 100)));
        // A newer one takes the number the older route gives up.
        assert_eq!(
            t.insert(&key("m5"), kept, MonoTime(0), |_| false),
            (true, 0)
        );
        assert_eq!(t.entry_of(&key("m5")), Some(kept));
        assert_eq!(t.entry_of(&key("m6")), Some(entry_in("m6", 1, 1, 100)));
    }

    #[test]
    fn a_mesh_number_no_entry_uses_goes_to_the_next_new_mesh() {
        let t = Table::new(2000);
        let first = |i: usize| entry_in(&format!("m{i}"), 1, 1, if i == 11 { 50 } else { 100 });
        for i in 0..MESHES {
            t.insert(&key(&format!("m{i}")), first(i), MonoTime(0), |_| false);
        }
        let late = entry_in("late", 2, 2, 100);
        assert_eq!(
            t.insert(&key("late"), late, MonoTime(0), |_| false),
            (false, 0)
        );
        // The one entry of mesh m7 is removed, m9's is replaced by a route
        // of a mesh already numbered, and m11's expires and is dropped when
        // the array moves on (it grows as more routes come): three numbers
        // are free.
        assert!(t.remove_if(&key("m7"), |_| true).is_some());
        let moved = entry_in("m0", 3, 3, 100);
        assert!(t.insert(&key("m9"), moved, MonoTime(0), |_| false).0);
        for f in 0..300 {
            let filler = entry_in("m0", 1, 1, 100);
            t.insert(&key(&format!("f{f}")), filler, MonoTime(60), |_| false);
        }
        assert_eq!(t.entry_of(&key("m11")), None, "dropped as expired");
        for (i, id) in ["late", "later", "latest"].into_iter().enumerate() {
            let e = entry_in(id, 10 + i as u64, 1, 100);
            assert_eq!(
                t.insert(&key(id), e, MonoTime(60), |_| false),
                (true, 0),
                "{id}"
            );
            assert_eq!(t.entry_of(&key(id)), Some(e));
        }
        // A fourth new mesh finds every number in use again.
        let e = entry_in("one-too-many", 1, 1, 100);
        assert_eq!(t.insert(&key("x"), e, MonoTime(60), |_| false), (false, 0));
        // Every other entry still reads back under its own mesh.
        for i in (0..MESHES).filter(|i| ![7, 9, 11].contains(i)) {
            assert_eq!(t.entry_of(&key(&format!("m{i}"))), Some(first(i)), "m{i}");
        }
        assert_eq!(t.entry_of(&key("m9")), Some(moved));
    }

    #[test]
    fn a_number_given_to_another_mesh_never_shows_under_an_older_entry() {
        // Every number but one is held for good; "x" (of mesh "mx") and "y"
        // (of a new mesh each time) take turns with the last one, so its
        // name changes all the time under readers of "x".
        let t = Arc::new(Table::new(1000));
        for i in 0..MESHES - 1 {
            let id = format!("m{i}");
            t.insert(
                &key(&id),
                entry_in(&id, 1, 1, u64::MAX),
                MonoTime(0),
                |_| false,
            );
        }
        let stop = Arc::new(AtomicBool::new(false));
        let readers = spawn_readers(&t, &stop, |t| {
            let route = t.get(&key("x"), MonoTime(0));
            route
                .inspect(|r| assert_eq!(r.route.mesh.as_str(), "mx"))
                .is_some() as u64
        });
        for n in 0..20_000u64 {
            let x = entry_in("mx", 1, n, u64::MAX);
            assert!(t.insert(&key("x"), x, MonoTime(0), |_| false).0);
            assert!(t.remove_if(&key("x"), |_| true).is_some());
            let y = entry_in(&format!("y{n}"), 1, n, u64::MAX);
            assert!(t.insert(&key("y"), y, MonoTime(0), |_| false).0, "{n}");
            assert!(t.remove_if(&key("y"), |_| true).is_some());
        }
        stop.store(true, Ordering::Relaxed);
        let seen: u64 = readers
            .into_iter()
            .map(|r| r.join().expect("never another mesh"))
            .sum();
        assert!(seen > 0, "the readers found x at least once");
    }

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

    #[test]
    fn readers_never_see_a_torn_route_while_writers_rewrite_it() {
        let t = Arc::new(Table::new(64));
        let stop = Arc::new(AtomicBool::new(false));
        let readers = spawn_readers(&t, &stop, |t| {
            let mut seen = 0;
            for id in ["hot", "k1", "k2"] {
                if let Some(route) = t.get(&key(id), MonoTime(0)) {
                    // Every field of one write carries the same n.
                    let n = route.route.node.get();
                    assert_eq!(route.fence.store_version.get(), n);
                    seen += 1;
                }
            }
            seen
        });
        for n in 1..20_000u64 {
            t.insert(&key("hot"), entry(n, n, n + 1000), MonoTime(0), |_| false);
            let other = format!("k{}", n % 50);
            t.insert(&key(&other), entry(n, n, n + 1000), MonoTime(0), |_| false);
            if n % 7 == 0 {
                t.remove_if(&key("hot"), |_| true);
                t.remove_if(&key(&other), |_| true);
            }
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().expect("no torn read");
        }
    }

    /// Two threads calling `read` (how many routes it found) until `stop`;
    /// each one's handle gives the routes it found in all.
    fn spawn_readers(
        t: &Arc<Table>,
        stop: &Arc<AtomicBool>,
        read: fn(&Table) -> u64,
    ) -> Vec<std::thread::JoinHandle<u64>> {
        (0..2)
            .map(|_| {
                let (t, stop) = (t.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut seen = 0;
                    while !stop.load(Ordering::Relaxed) {
                        seen += read(&t);
                    }
                    seen
                })
            })
            .collect()
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
            .filter(|k| t.hash(k).0 & 7 == home)
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
