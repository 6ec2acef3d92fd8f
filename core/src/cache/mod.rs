//! The positive route cache (§2.2): recent Ready owner routes with their
//! fences, by global ID.
//!
//! A hit does not allocate, lock, write shared memory or touch the async
//! runtime: IDs up to [`INLINE_ID_BYTES`] (nearly all) live in `table`, a
//! seqlock table read with loads only; longer ones in a lock-free map
//! (papaya). Only `ReadyRoute`s ever enter; every removal path is fence- or
//! version-checked so a newer route is never cleared by news about an older
//! one.

mod growth;
mod mesh_numbers;
mod near;
mod pages;
mod probe;
mod slot;
mod table;

use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use papaya::{Equivalent, HashMap, Operation};

use crate::clock::MonoTime;
use crate::error::ConfigError;
use crate::ids::{KeyRef, NodeRid, ObjectKind, OwnerLeaseGeneration, StoreVersion};
use crate::route::{ReadyRoute, RouteFence};
use slot::SlotKey;
use table::{Entry, Table};

pub use near::{NEAR_SHARDS, NearHit};
pub use slot::INLINE_ID_BYTES;

/// A long ID's key in the map.
#[derive(Clone, PartialEq, Eq)]
struct LongKey {
    kind: ObjectKind,
    id: Box<[u8]>,
}

// Must hash exactly as `KeyRef` does so borrowed lookups find owned keys.
impl Hash for LongKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.kind as u8);
        state.write(&self.id);
    }
}

impl Equivalent<LongKey> for KeyRef<'_> {
    #[inline]
    fn equivalent(&self, key: &LongKey) -> bool {
        self.kind == key.kind && *self.id.as_bytes() == *key.id
    }
}

/// What [`RouteCache::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// The route is cached.
    Stored,
    /// The cache already holds a route from a higher store version.
    KeptNewer,
    /// An invalidation happened while the route was being read.
    Superseded,
}

/// The positive route cache.
pub(crate) struct RouteCache {
    table: Table,
    long: HashMap<LongKey, Entry, foldhash::fast::RandomState>,
    evicting: Mutex<()>,
    /// Bumped by every invalidation, so a store read that started before
    /// one never leaves its (possibly stale) route behind.
    invalidations: AtomicU64,
}

impl RouteCache {
    pub(crate) fn new(capacity: usize) -> Self {
        let long = HashMap::builder()
            .hasher(foldhash::fast::RandomState::default())
            .capacity(0)
            .build();
        RouteCache {
            table: Table::new(capacity),
            long,
            evicting: Mutex::new(()),
            invalidations: AtomicU64::new(0),
        }
    }

    /// The cached route of `key` if it has not expired at `now`. The hot path.
    #[inline(always)]
    pub(crate) fn get(&self, key: KeyRef<'_>, now: MonoTime) -> Option<ReadyRoute> {
        match SlotKey::new(key) {
            Some(words) => self.table.get(&words, now),
            None => {
                let map = self.long.pin();
                let entry = map.get(&key)?;
                (now < entry.expires_at).then_some(entry.route)
            }
        }
    }

    /// The cached route of `key` live at `now`, as a host's near cache
    /// keeps it (see [`near`]); None for a long ID, which near caches do
    /// not keep.
    pub(crate) fn near_get(&self, key: KeyRef<'_>, now: MonoTime) -> Option<NearHit> {
        self.table.near_get(&SlotKey::new(key)?, now)
    }

    /// The change epochs a near cache checks, [`NEAR_SHARDS`] words.
    pub(crate) fn near_epochs(&self) -> &[std::sync::atomic::AtomicU64] {
        self.table.near_epochs()
    }

    /// Starts fetching the entry of `key` (see [`Table::prefetch`]); long IDs
    /// are not prefetched.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: KeyRef<'_>) {
        if let Some(words) = SlotKey::new(key) {
            self.table.prefetch(&words);
        }
    }

    /// The mass-invalidation sequence (a clear, an owner lease's entries):
    /// read it before a store read, check it with the read's own state in
    /// [`insert_read`](Self::insert_read) after.
    pub(crate) fn invalidation_seq(&self) -> u64 {
        self.invalidations.load(Ordering::SeqCst)
    }

    /// Marks a mass invalidation: reads in flight will not cache their
    /// result. (An invalidation of one ID marks only that ID's read.)
    pub(crate) fn note_invalidation(&self) {
        self.invalidations.fetch_add(1, Ordering::SeqCst);
    }

    /// Caches a route read from the store while `current()` says no
    /// invalidation has touched that read since it started; checked again
    /// after the insert, so an invalidation racing it takes the route back.
    pub(crate) fn insert_read(
        &self,
        key: KeyRef<'_>,
        route: ReadyRoute,
        expires_at: MonoTime,
        now: MonoTime,
        current: impl Fn() -> bool,
    ) -> (Inserted, usize) {
        if !current() {
            return (Inserted::Superseded, 0);
        }
        let done = self.insert(key, route, expires_at, now);
        if !current() {
            // An invalidation raced the insert: take back what we put in.
            self.remove_if_fence(key, &route.fence, now);
            return (Inserted::Superseded, done.1);
        }
        done
    }

    /// Caches `route` until `expires_at`, unless a route from a higher store
    /// version is already there. Returns what was done and how many entries
    /// were evicted to make room.
    pub(crate) fn insert(
        &self,
        key: KeyRef<'_>,
        route: ReadyRoute,
        expires_at: MonoTime,
        now: MonoTime,
    ) -> (Inserted, usize) {
        let version = route.fence.store_version;
        let new = Entry { route, expires_at };
        let newer = |old: &Entry| old.route.fence.store_version > version && now < old.expires_at;
        let short = SlotKey::new(key);
        // The table alone keeps itself within the capacity (and knows when
        // the key is already there); with long IDs beside it, they share it.
        let evicted = if short.is_none() || !self.long.is_empty() {
            self.make_room(now)
        } else {
            0
        };
        if let Some(words) = short {
            let (stored, more) = self.table.insert(&words, new, now, newer);
            let done = if stored {
                Inserted::Stored
            } else {
                Inserted::KeptNewer
            };
            return (done, evicted + more);
        }
        let map = self.long.pin();
        let owned = LongKey {
            kind: key.kind,
            id: key.id.as_bytes().into(),
        };
        let done = map.compute(owned, |existing| match existing {
            Some((_, old)) if newer(old) => Operation::Abort(()),
            _ => Operation::Insert(new),
        });
        let inserted = match done {
            papaya::Compute::Aborted(()) => Inserted::KeptNewer,
            _ => Inserted::Stored,
        };
        (inserted, evicted)
    }

    /// Removes the entry of `key` if it was read from an older version than
    /// `version` (a higher StoreVersion was confirmed). True if a live entry
    /// went (an expired one is dropped too, but that is not an invalidation).
    pub(crate) fn remove_older_than(
        &self,
        key: KeyRef<'_>,
        version: StoreVersion,
        now: MonoTime,
    ) -> bool {
        self.remove_live_if(key, now, |e| e.route.fence.store_version < version)
    }

    /// Removes the entry of `key` only if it still holds `fence` (stale-route
    /// result, relay notification): a newer route stays. True if a live
    /// entry went.
    pub(crate) fn remove_if_fence(
        &self,
        key: KeyRef<'_>,
        fence: &RouteFence,
        now: MonoTime,
    ) -> bool {
        self.remove_live_if(key, now, |e| e.route.fence == *fence)
    }

    /// Removes the entry of `key` if it routes to `node` and holds `fence`
    /// (a refusal by that node). True if a live entry went.
    pub(crate) fn remove_if_rejected(
        &self,
        key: KeyRef<'_>,
        node: NodeRid,
        fence: &RouteFence,
        now: MonoTime,
    ) -> bool {
        self.remove_live_if(key, now, |e| {
            e.route.route.node == node && e.route.fence == *fence
        })
    }

    /// Removes the entry of `key` if it routes to `node` for the incarnation
    /// and owner generation of `fence` (a relay notification names these).
    /// True if a live entry went.
    pub(crate) fn remove_if_routed(
        &self,
        key: KeyRef<'_>,
        node: NodeRid,
        fence: &RouteFence,
        now: MonoTime,
    ) -> bool {
        self.remove_live_if(key, now, |e| {
            let cached = &e.route.fence;
            e.route.route.node == node
                && cached.object_generation == fence.object_generation
                && cached.authority_owner_generation == fence.authority_owner_generation
        })
    }

    /// Removes the entry of `key` whatever it holds.
    pub(crate) fn remove(&self, key: KeyRef<'_>) {
        match SlotKey::new(key) {
            Some(words) => {
                self.table.remove_if(&words, |_| true);
            }
            None => {
                self.long.pin().remove(&key);
            }
        }
    }

    fn remove_live_if(
        &self,
        key: KeyRef<'_>,
        now: MonoTime,
        pred: impl Fn(&Entry) -> bool,
    ) -> bool {
        let removed = match SlotKey::new(key) {
            Some(words) => self.table.remove_if(&words, pred),
            None => match self.long.pin().remove_if(&key, |_, e| pred(e)) {
                Ok(Some((_, removed))) => Some(*removed),
                _ => None,
            },
        };
        removed.is_some_and(|e| now < e.expires_at)
    }

    /// Removes every entry routed under the owner lease `lease` of `node`.
    pub(crate) fn remove_owner_lease(&self, node: NodeRid, lease: OwnerLeaseGeneration) -> usize {
        self.remove_where(|e| {
            e.route.route.node == node && e.route.fence.owner_lease_generation == lease
        })
    }

    /// Removes every entry (store recovery).
    pub(crate) fn clear(&self) -> usize {
        self.remove_where(|_| true)
    }

    fn remove_where(&self, pred: impl Fn(&Entry) -> bool) -> usize {
        let mut removed = self.table.remove_where(&pred);
        self.long.pin().retain(|_, e| {
            let gone = pred(e);
            removed += usize::from(gone);
            !gone
        });
        removed
    }

    /// Sets the capacity, short and long IDs together (the table's), and
    /// evicts what is past it, so the cache holds at most `capacity`
    /// entries once this returns (inserts racing with it may briefly add
    /// one each, as at any capacity). Above the capacity at build it is
    /// refused, and nothing changes: the table was sized then.
    pub(crate) fn set_capacity(&self, capacity: usize, now: MonoTime) -> Result<(), ConfigError> {
        let built = self.table.built();
        if capacity > built {
            return Err(ConfigError::CapacityAboveBuilt {
                got: capacity,
                built,
            });
        }
        self.table.set_capacity(capacity, now);
        // Long IDs: the side holding more gives one up each time. Waits for
        // a sweep already running (an insert's) instead of skipping, so the
        // loop ends under the capacity, unless nothing more can go.
        let _sweeping = self.evicting.lock().unwrap_or_else(|p| p.into_inner());
        while self.len() > capacity {
            let before = self.len();
            if !self.long.is_empty() && self.long.len() >= self.table.len() {
                self.sweep_long(now);
            } else {
                self.table.evict_one(now);
            }
            if self.len() >= before {
                break;
            }
        }
        Ok(())
    }

    /// Entries held now (expired ones not yet swept included).
    pub(crate) fn len(&self) -> usize {
        self.table.len() + self.long.len()
    }

    /// At capacity, before an insert of either kind: the side holding more
    /// entries (the table of short IDs, or the long IDs' map) gives one up,
    /// so the two share the capacity and neither starves the other. Returns
    /// the live entries evicted. (The table also keeps itself within the
    /// capacity on its own.)
    fn make_room(&self, now: MonoTime) -> usize {
        if self.len() < self.table.capacity() {
            return 0;
        }
        let (short, long) = (self.table.len(), self.long.len());
        if long > 0 && long >= short {
            self.evict_long(now)
        } else {
            usize::from(self.table.evict_one(now))
        }
    }

    /// Makes room among long IDs: drops the expired ones, or, if none had
    /// expired, one arbitrary entry. An evicted entry is simply a miss
    /// (DESIGN §5.6). Returns the live entries evicted.
    fn evict_long(&self, now: MonoTime) -> usize {
        // One sweeper at a time; others insert over the limit briefly.
        let Ok(_sweeping) = self.evicting.try_lock() else {
            return 0;
        };
        self.sweep_long(now)
    }

    /// `evict_long`'s sweep, by the holder of `evicting`.
    fn sweep_long(&self, now: MonoTime) -> usize {
        let map = self.long.pin();
        let mut expired = 0;
        map.retain(|_, e| {
            let gone = now >= e.expires_at;
            expired += usize::from(gone);
            !gone
        });
        if expired > 0 {
            return 0;
        }
        let victim = map.keys().next().cloned();
        victim.map_or(0, |key| usize::from(map.remove(&key).is_some()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::*;
    use crate::route::OwnerRoute;

    fn route(node: u64, version: u64) -> ReadyRoute {
        ReadyRoute {
            route: OwnerRoute {
                mesh: MeshName::new("m").expect("valid"),
                node: NodeRid(node),
            },
            fence: RouteFence {
                object_generation: ObjectGeneration(1),
                authority_owner_generation: AuthorityOwnerGeneration(1),
                owner_lease_generation: OwnerLeaseGeneration(node),
                node_generation: NodeGeneration(1),
                store_version: StoreVersion(version),
            },
            admission_deadline: MonoTime(u64::MAX),
        }
    }

    fn key(id: &str) -> KeyRef<'_> {
        KeyRef {
            kind: ObjectKind::Actor,
            id,
        }
    }

    #[test]
    fn entries_expire_at_their_deadline() {
        let cache = RouteCache::new(10);
        cache.insert(key("a"), route(1, 1), MonoTime(100), MonoTime(0));
        assert!(cache.get(key("a"), MonoTime(99)).is_some());
        assert!(cache.get(key("a"), MonoTime(100)).is_none());
        assert!(
            cache
                .get(
                    KeyRef {
                        kind: ObjectKind::Spot,
                        id: "a"
                    },
                    MonoTime(0)
                )
                .is_none()
        );
    }

    #[test]
    fn long_ids_work_like_short_ones() {
        let cache = RouteCache::new(10);
        let long = "L".repeat(INLINE_ID_BYTES + 10);
        cache.insert(key(&long), route(1, 1), MonoTime(100), MonoTime(0));
        assert_eq!(cache.get(key(&long), MonoTime(0)), Some(route(1, 1)));
        assert!(
            cache
                .get(key(&long[..INLINE_ID_BYTES]), MonoTime(0))
                .is_none()
        );
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_live_entry() {
        let cache = RouteCache::new(10);
        cache.insert(key("a"), route(2, 5), MonoTime(100), MonoTime(0));
        let (done, _) = cache.insert(key("a"), route(1, 4), MonoTime(100), MonoTime(0));
        assert_eq!(done, Inserted::KeptNewer);
        assert_eq!(cache.get(key("a"), MonoTime(0)), Some(route(2, 5)));
    }

    #[test]
    fn fence_checked_removal_keeps_a_newer_route() {
        let cache = RouteCache::new(10);
        cache.insert(key("a"), route(2, 5), MonoTime(100), MonoTime(0));
        assert!(!cache.remove_if_fence(key("a"), &route(1, 4).fence, MonoTime(0)));
        assert!(cache.remove_if_fence(key("a"), &route(2, 5).fence, MonoTime(0)));
        assert!(cache.get(key("a"), MonoTime(0)).is_none());
    }

    #[test]
    fn version_removal_only_drops_older_entries() {
        let cache = RouteCache::new(10);
        cache.insert(key("a"), route(1, 5), MonoTime(100), MonoTime(0));
        assert!(!cache.remove_older_than(key("a"), StoreVersion(5), MonoTime(0)));
        assert!(cache.remove_older_than(key("a"), StoreVersion(6), MonoTime(0)));
        cache.insert(key("b"), route(1, 5), MonoTime(100), MonoTime(0));
        assert!(
            !cache.remove_older_than(key("b"), StoreVersion(6), MonoTime(100)),
            "an expired entry is dropped but not counted"
        );
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn owner_lease_removal_takes_every_entry_of_that_lease_only() {
        let cache = RouteCache::new(10);
        cache.insert(key("a"), route(1, 1), MonoTime(100), MonoTime(0));
        cache.insert(key("b"), route(1, 1), MonoTime(100), MonoTime(0));
        cache.insert(key("c"), route(2, 1), MonoTime(100), MonoTime(0));
        assert_eq!(
            cache.remove_owner_lease(NodeRid(1), OwnerLeaseGeneration(1)),
            2
        );
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.clear(), 1);
    }

    #[test]
    fn a_read_that_raced_an_invalidation_is_not_cached() {
        let cache = RouteCache::new(10);
        let seq = cache.invalidation_seq();
        cache.note_invalidation();
        let current = || cache.invalidation_seq() == seq;
        let (done, _) =
            cache.insert_read(key("a"), route(1, 1), MonoTime(100), MonoTime(0), current);
        assert_eq!(done, Inserted::Superseded);
        assert!(cache.get(key("a"), MonoTime(0)).is_none());
        let seq = cache.invalidation_seq();
        let current = || cache.invalidation_seq() == seq;
        let (done, _) =
            cache.insert_read(key("a"), route(1, 1), MonoTime(100), MonoTime(0), current);
        assert_eq!(done, Inserted::Stored);
    }

    #[test]
    fn prefetching_is_only_a_hint() {
        let cache = RouteCache::new(16);
        fill_short(&cache, 4);
        let long = "L".repeat(INLINE_ID_BYTES + 1);
        for id in ["id-1", "absent", "", long.as_str()] {
            cache.prefetch(key(id));
        }
        assert!(cache.get(key("id-1"), MonoTime(0)).is_some());
        assert!(cache.get(key("absent"), MonoTime(0)).is_none());
        assert_eq!(cache.len(), 4);
    }

    /// Caches `n` short IDs, `id-0` on.
    fn fill_short(cache: &RouteCache, n: usize) {
        for i in 0..n {
            cache.insert(
                key(&format!("id-{i}")),
                route(1, 1),
                MonoTime(100),
                MonoTime(0),
            );
        }
    }

    #[test]
    fn capacity_is_enforced_by_eviction() {
        let cache = RouteCache::new(16);
        for i in 0..100 {
            cache.insert(
                key(&format!("id-{i}")),
                route(1, 1),
                MonoTime(100),
                MonoTime(0),
            );
            assert!(cache.len() <= 16, "cache grew to {}", cache.len());
        }
        assert!(cache.get(key("id-99"), MonoTime(0)).is_some());
    }

    /// A lower capacity evicts at once, short and long IDs alike; raised
    /// again (up to the capacity at build), the cache fills up to it.
    #[test]
    fn a_capacity_set_at_runtime_holds_at_once() {
        let cache = RouteCache::new(100);
        let long = |i: usize| format!("{i}{}", "L".repeat(INLINE_ID_BYTES));
        for i in 0..30 {
            cache.insert(key(&long(i)), route(1, 1), MonoTime(100), MonoTime(0));
        }
        fill_short(&cache, 70);
        assert_eq!(cache.len(), 100);
        cache.set_capacity(10, MonoTime(0)).expect("below");
        assert!(cache.len() <= 10, "kept {}", cache.len());
        fill_short(&cache, 70);
        assert!(cache.len() <= 10, "grew to {}", cache.len());
        assert_eq!(
            cache.set_capacity(101, MonoTime(0)),
            Err(ConfigError::CapacityAboveBuilt {
                got: 101,
                built: 100
            })
        );
        assert!(cache.len() <= 10, "a refused capacity changes nothing");
        cache
            .set_capacity(100, MonoTime(0))
            .expect("the one at build");
        fill_short(&cache, 90);
        let short = (0..90)
            .filter(|i| cache.get(key(&format!("id-{i}")), MonoTime(0)).is_some())
            .count();
        assert_eq!(short, 90, "room again up to the capacity at build");
        assert!(cache.len() <= 100);
    }

    /// The capacity bounds short and long IDs together (as it did when one
    /// map held both): long entries are not a second cache beside the table.
    #[test]
    fn short_and_long_ids_share_the_capacity() {
        let cache = RouteCache::new(16);
        let long = |i: usize| format!("{i}{}", "L".repeat(INLINE_ID_BYTES));
        for i in 0..15 {
            cache.insert(key(&long(i)), route(1, 1), MonoTime(100), MonoTime(0));
        }
        fill_short(&cache, 16);
        assert!(cache.len() <= 16, "cache grew to {}", cache.len());
    }

    /// When short IDs fill the cache, long IDs' routes are still kept: an
    /// insert evicts among all entries, not only among the long ones.
    #[test]
    fn a_full_table_does_not_starve_long_ids() {
        let cache = RouteCache::new(16);
        fill_short(&cache, 16);
        let long = |i: usize| format!("{i}{}", "L".repeat(INLINE_ID_BYTES));
        for i in 0..8 {
            cache.insert(key(&long(i)), route(1, 1), MonoTime(100), MonoTime(0));
        }
        let kept = (0..8)
            .filter(|i| cache.get(key(&long(*i)), MonoTime(0)).is_some())
            .count();
        assert!(kept >= 4, "of the 8 long routes just inserted, {kept} kept");
    }
}
