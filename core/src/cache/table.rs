//! The table of routes for short IDs: open addressing, read with loads only.
//!
//! This module holds the table itself (its slot arrays, the names its mesh
//! numbers stand for, its hash seeds, the writers' lock and the counts kept
//! under it) and what its parts share. What is done with it is split by
//! concern, one module each:
//!
//! - [`slot`](super::slot): a slot's words and the seqlock that lets a
//!   reader take them with loads only;
//! - [`probe`](super::probe): the groups and tag words a key's hash points
//!   into, and the walks over them: lookup, prefetch, insert, removal;
//! - [`growth`](super::growth): making room: eviction at capacity, the
//!   array doubling, rebuilds at the largest size;
//! - [`mesh_numbers`](super::mesh_numbers): the small numbers a slot names
//!   its route's mesh by.
//!
//! Writers (store reads, invalidations) are serialised by one lock; they are
//! rare next to hits.
//!
//! The arrays come from [`pages`](super::pages): zeroed memory touched only
//! where entries land, in huge pages where the system allows, because a
//! scattered lookup in 4 KiB pages misses the TLB on top of the cache.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use super::mesh_numbers::{MeshCells, MeshUses};
use super::near::Epochs;
use super::probe::Array;
use crate::clock::MonoTime;
use crate::route::ReadyRoute;

/// Slots per group: one tag byte each in one word.
pub(super) const GROUP: usize = 8;
/// The first array's groups.
const FIRST_GROUPS: usize = 8;
/// Array sizes a table can grow through (each twice the last).
pub(super) const LEVELS: usize = 40;
/// `current` when the spare array is in use.
pub(super) const SPARE: usize = LEVELS;

/// A route and when its entry stops being served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) route: ReadyRoute,
    /// Earlier of the admission deadline (less the coarse-clock slack) and
    /// insert time + the max age in force at insert.
    pub(crate) expires_at: MonoTime,
}

/// Counts kept under the writers' lock.
pub(super) struct Counts {
    /// Slots holding an entry.
    pub(super) live: usize,
    /// Slots holding an entry or a deleted mark (probes pass both).
    pub(super) used: usize,
    /// The mesh numbers given and the entries naming each.
    pub(super) meshes: MeshUses,
}

/// The table.
pub(crate) struct Table {
    pub(super) arrays: [OnceLock<Array>; LEVELS],
    /// A second array of the largest size, for rebuilds at that size.
    pub(super) spare: OnceLock<Array>,
    /// The array readers use: an index of `arrays`, or [`SPARE`].
    pub(super) current: AtomicUsize,
    pub(super) meshes: MeshCells,
    /// The change epochs near caches check (see [`near`](super::near)).
    pub(super) epochs: Epochs,
    /// The hash's random seeds (per table).
    pub(super) seeds: [u64; 7],
    /// The capacity the largest array is sized for (at construction).
    pub(super) built: usize,
    /// The most entries held: `built` or less ([`Table::set_capacity`]);
    /// changed under the writers' lock.
    pub(super) capacity: AtomicUsize,
    /// Groups of the largest array (8/7 of the capacity in slots, and more
    /// than it).
    pub(super) max_groups: usize,
    /// `Counts::live`, readable without the lock.
    pub(super) live: AtomicUsize,
    /// Where [`evict_one`](Self::evict_one) looks next.
    pub(super) evict_cursor: AtomicUsize,
    pub(super) writing: Mutex<Counts>,
}

impl Table {
    /// A table for at most `capacity` routes.
    pub(crate) fn new(capacity: usize) -> Self {
        // The capacity fills at most 7/8 of the largest array's slots.
        let max_groups = (capacity.max(1).saturating_mul(8) / 7 + 1)
            .div_ceil(GROUP)
            .max(FIRST_GROUPS);
        let random = foldhash::fast::RandomState::default();
        // Odd seeds: a zero factor would fold a word away.
        let seeds = std::array::from_fn(|i| random.hash_one(i) | 1);
        let table = Table {
            arrays: [const { OnceLock::new() }; LEVELS],
            spare: OnceLock::new(),
            current: AtomicUsize::new(0),
            // One number per slot at most: a number in use names a slot.
            meshes: MeshCells::new(max_groups * GROUP + 1),
            epochs: Epochs::new(),
            seeds,
            built: capacity,
            capacity: AtomicUsize::new(capacity),
            max_groups,
            live: AtomicUsize::new(0),
            evict_cursor: AtomicUsize::new(0),
            writing: Mutex::new(Counts {
                live: 0,
                used: 0,
                meshes: MeshUses::default(),
            }),
        };
        let _ = table.arrays[0].set(Array::new(FIRST_GROUPS.min(max_groups)));
        table
    }

    pub(super) fn array(&self, at: usize) -> &Array {
        let cell = if at == SPARE {
            &self.spare
        } else {
            &self.arrays[at]
        };
        cell.get()
            .unwrap_or_else(|| unreachable!("an array is set before it is current"))
    }

    #[inline]
    pub(super) fn current(&self) -> &Array {
        self.array(self.current.load(Ordering::Acquire))
    }

    /// The most entries held now.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity.load(Ordering::Relaxed)
    }

    /// The capacity at construction: the most [`set_capacity`](Self::set_capacity)
    /// takes.
    pub(crate) fn built(&self) -> usize {
        self.built
    }

    /// Live entries (expired ones not yet replaced included).
    pub(crate) fn len(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        // The counts are only ever changed whole; a panic elsewhere while the
        // lock was held leaves them as valid as before.
        self.writing.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the tests of the table's modules share.
#[cfg(test)]
pub(super) mod testing {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{Entry, Table};
    use crate::cache::slot::SlotKey;
    use crate::clock::MonoTime;
    use crate::ids::{
        AuthorityOwnerGeneration, KeyRef, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
        ObjectKind, OwnerLeaseGeneration, StoreVersion,
    };
    use crate::route::{OwnerRoute, ReadyRoute, RouteFence};

    pub(crate) fn entry_in(mesh: &str, node: u64, version: u64, expires: u64) -> Entry {
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

    pub(crate) fn entry(node: u64, version: u64, expires: u64) -> Entry {
        entry_in("mesh-a", node, version, expires)
    }

    pub(crate) fn key(id: &str) -> SlotKey {
        SlotKey::new(KeyRef {
            kind: ObjectKind::Actor,
            id,
        })
        .expect("short")
    }

    impl Table {
        /// The entry of `key` as the hot path reads it.
        pub(crate) fn entry_of(&self, key: &SlotKey) -> Option<Entry> {
            let found = self.find(key).map(|(_, _, e)| e);
            let route = self.get(key, MonoTime(0));
            assert_eq!(route, found.filter(|e| e.expires_at.0 > 0).map(|e| e.route));
            found
        }
    }

    /// Two threads calling `read` (how many routes it found) until `stop`;
    /// each one's handle gives the routes it found in all.
    pub(crate) fn spawn_readers(
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
}
