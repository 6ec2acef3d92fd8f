//! A slot: one route's words behind a seqlock, and the key as those words.
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
//! Here are the slot's word layout, a key in slot form, an entry's words
//! and back, and both halves of the seqlock: the write ([`store`]) and the
//! hot path's read ([`Table::read_if`]). They are one module because a
//! reader's safety rests on all of them together: every write goes through
//! the sequence, and every read checks it around every word it keeps.

use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::mesh_numbers::MeshCell;
use super::probe::Read;
use super::table::{Entry, Table};
use crate::clock::MonoTime;
use crate::ids::{
    AuthorityOwnerGeneration, KeyRef, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    OwnerLeaseGeneration, StoreVersion,
};
use crate::route::{OwnerRoute, ReadyRoute, RouteFence};

/// IDs up to this many bytes are kept in the table (with the kind and the
/// length, five words); longer ones in the cache's map.
pub const INLINE_ID_BYTES: usize = 38;

const KEY_BYTES: usize = INLINE_ID_BYTES + 2;
pub(super) const KEY_WORDS: usize = KEY_BYTES / 8;

// A slot's words.
pub(super) const SEQ: usize = 0;
pub(super) const KEY: usize = 1;
pub(super) const NODE: usize = KEY + KEY_WORDS;
pub(super) const FENCE: usize = NODE + 1;
pub(super) const ADMISSION: usize = FENCE + 5;
pub(super) const EXPIRES: usize = ADMISSION + 1;
pub(super) const MESH: usize = EXPIRES + 1;
pub(super) const WORDS: usize = 16;
const _: () = assert!(MESH < WORDS && KEY_BYTES == 40 && KEY_WORDS == 5);

/// A key as a slot holds it: kind, length, then the ID's bytes, zero-padded,
/// as little-endian words. Never all zero (a kind is never 0), so a cleared
/// slot matches no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotKey(pub(super) [u64; KEY_WORDS]);

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
    pub(super) fn from_words(words: &[u64; WORDS]) -> SlotKey {
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

/// Two cache lines. All zero is an empty slot.
#[repr(align(128))]
pub(crate) struct Slot(pub(super) [AtomicU64; WORDS]);

impl Slot {
    pub(crate) fn empty() -> Slot {
        Slot([const { AtomicU64::new(0) }; WORDS])
    }
}

impl Table {
    /// Reads a slot if it holds `key`. The key words are compared first, so
    /// a slot of another key costs six loads; the entry is then read field
    /// by field straight from the slot (a copy of the words first costs a
    /// round trip through the stack), and the sequence checked again (it
    /// covers the key words too).
    #[inline(always)]
    pub(super) fn read_if(&self, slot: &Slot, key: &SlotKey, now: MonoTime) -> Read<ReadyRoute> {
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
        let Some(name) = self.meshes.get(at(MESH)).map(MeshCell::load) else {
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
        // Built here, once, in its final shape, not through `entry`: a full
        // word copy decoded by it made a hot hit markedly slower (measured:
        // docs/performance.md, "The targets not met").
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

    /// The entry of a slot holding `key` and live at `now`, read as the
    /// hot path reads (the sequence checked around every word kept, the
    /// mesh's name included), with its expiry: for a host's near cache,
    /// which keeps both. Not the hot path: it copies the words first.
    pub(super) fn read_entry_if(&self, slot: &Slot, key: &SlotKey, now: MonoTime) -> Read<Entry> {
        let w = &slot.0;
        let before = w[SEQ].load(Ordering::Acquire);
        let words: [u64; WORDS] = std::array::from_fn(|i| w[i].load(Ordering::Relaxed));
        if !same_key(&words, key) {
            return Read::Other;
        }
        let name = self.meshes.get(words[MESH]).map(MeshCell::load);
        fence(Ordering::Acquire);
        if w[SEQ].load(Ordering::Relaxed) != before || before & 1 == 1 || now.0 >= words[EXPIRES] {
            return Read::Torn;
        }
        match name.and_then(MeshName::from_words) {
            Some(mesh) => Read::Hit(entry_in(&words, mesh)),
            None => Read::Torn,
        }
    }

    /// The entry of a slot's words (read consistently; the key words are
    /// not looked at).
    pub(super) fn entry(&self, w: &[u64; WORDS]) -> Option<Entry> {
        let mesh = MeshName::from_words(self.meshes.get(w[MESH])?.load())?;
        Some(entry_in(w, mesh))
    }
}

/// The entry of a slot's words, its mesh being `mesh`.
fn entry_in(w: &[u64; WORDS], mesh: MeshName) -> Entry {
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
    Entry {
        route,
        expires_at: MonoTime(w[EXPIRES]),
    }
}

/// Whether a slot's words hold `key`: word by word, inlined (a slice
/// comparison calls `memcmp`).
#[inline]
pub(super) fn same_key(words: &[u64; WORDS], key: &SlotKey) -> bool {
    let k = key.0;
    (0..KEY_WORDS).fold(true, |same, i| same & (words[KEY + i] == k[i]))
}

/// A slot's words as they are (writers only: no writer races them).
pub(super) fn snapshot(slot: &Slot) -> [u64; WORDS] {
    let mut w = [0u64; WORDS];
    for (word, cell) in w.iter_mut().zip(&slot.0).skip(1) {
        *word = cell.load(Ordering::Relaxed);
    }
    w
}

/// The words of `entry` for `key`, its mesh numbered `mesh`.
pub(super) fn encode(key: &SlotKey, entry: &Entry, mesh: u64) -> [u64; WORDS] {
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
pub(super) fn store(slot: &Slot, w: &[u64; WORDS]) {
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
    use std::sync::atomic::AtomicBool;
    use std::sync::{Arc, atomic::Ordering};

    use super::*;
    use crate::cache::table::testing::{entry, key, spawn_readers};
    use crate::ids::ObjectKind;

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
}
