//! The positive route cache (§2.2): recent Ready owner routes with their
//! fences, by global ID.
//!
//! Reads are lock-free (papaya) and copy a plain-data route out: a hit does
//! not allocate, lock, or touch the async runtime. Keys up to
//! [`INLINE_ID_BYTES`] are stored inline. Only `ReadyRoute`s ever enter;
//! every removal path is fence- or version-checked so a newer route is never
//! cleared by news about an older one.

use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use papaya::{Equivalent, HashMap, Operation};

use crate::clock::MonoTime;
use crate::ids::{KeyRef, NodeRid, ObjectKind, OwnerLeaseGeneration, StoreVersion};
use crate::route::{ReadyRoute, RouteFence};

/// IDs up to this many bytes are kept inline in the cache key.
pub const INLINE_ID_BYTES: usize = 38;

/// Evicting sweeps remove at least this share of a full cache, so a sweep
/// happens at most once per `capacity / EVICT_FRACTION` inserts.
const EVICT_FRACTION: usize = 8;

#[derive(Clone, PartialEq, Eq)]
enum IdBytes {
    Inline(u8, [u8; INLINE_ID_BYTES]),
    Heap(Box<[u8]>),
}

/// An owned cache key: kind + ID bytes, inline when short.
#[derive(Clone, PartialEq, Eq)]
struct CacheKey {
    kind: ObjectKind,
    id: IdBytes,
}

impl CacheKey {
    fn new(key: KeyRef<'_>) -> Self {
        let bytes = key.id.as_bytes();
        let id = if bytes.len() <= INLINE_ID_BYTES {
            let mut buf = [0u8; INLINE_ID_BYTES];
            buf[..bytes.len()].copy_from_slice(bytes);
            IdBytes::Inline(bytes.len() as u8, buf)
        } else {
            IdBytes::Heap(bytes.into())
        };
        CacheKey { kind: key.kind, id }
    }

    fn id_bytes(&self) -> &[u8] {
        match &self.id {
            IdBytes::Inline(len, buf) => &buf[..*len as usize],
            IdBytes::Heap(b) => b,
        }
    }
}

// Must hash exactly as `KeyRef` does so borrowed lookups find owned keys.
impl Hash for CacheKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.kind as u8);
        state.write(self.id_bytes());
    }
}

impl Equivalent<CacheKey> for KeyRef<'_> {
    #[inline]
    fn equivalent(&self, key: &CacheKey) -> bool {
        self.kind == key.kind && same_bytes(self.id.as_bytes(), key.id_bytes())
    }
}

/// Byte equality compared eight bytes at a time, inlined: short IDs are the
/// common case and a `memcmp` call costs more than the comparison.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (a8, a_rest) = a.as_chunks::<8>();
    let (b8, b_rest) = b.as_chunks::<8>();
    a8.iter()
        .zip(b8)
        .all(|(x, y)| u64::from_ne_bytes(*x) == u64::from_ne_bytes(*y))
        && a_rest == b_rest
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    route: ReadyRoute,
    /// Earlier of the admission deadline (less the coarse-clock slack) and
    /// insert time + the max age in force at insert.
    expires_at: MonoTime,
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
    map: HashMap<CacheKey, Entry, foldhash::fast::RandomState>,
    capacity: usize,
    evicting: Mutex<()>,
    /// Bumped by every invalidation, so a store read that started before
    /// one never leaves its (possibly stale) route behind.
    invalidations: AtomicU64,
}

impl RouteCache {
    pub(crate) fn new(capacity: usize) -> Self {
        let map = HashMap::builder()
            .hasher(foldhash::fast::RandomState::default())
            .capacity(capacity.min(1 << 16))
            .build();
        RouteCache {
            map,
            capacity,
            evicting: Mutex::new(()),
            invalidations: AtomicU64::new(0),
        }
    }

    /// The cached route of `key` if it has not expired at `now`. The hot path.
    #[inline]
    pub(crate) fn get(&self, key: KeyRef<'_>, now: MonoTime) -> Option<ReadyRoute> {
        let map = self.map.pin();
        let entry = map.get(&key)?;
        (now < entry.expires_at).then_some(entry.route)
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
        let evicted = if self.map.len() >= self.capacity {
            self.evict(now)
        } else {
            0
        };
        let version = route.fence.store_version;
        let new = Entry { route, expires_at };
        let map = self.map.pin();
        let done = map.compute(CacheKey::new(key), |existing| match existing {
            Some((_, old)) if old.route.fence.store_version > version && now < old.expires_at => {
                Operation::Abort(())
            }
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
        self.map.pin().remove(&key);
    }

    fn remove_live_if(
        &self,
        key: KeyRef<'_>,
        now: MonoTime,
        pred: impl Fn(&Entry) -> bool,
    ) -> bool {
        match self.map.pin().remove_if(&key, |_, e| pred(e)) {
            Ok(Some((_, removed))) => now < removed.expires_at,
            _ => false,
        }
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
        let mut removed = 0;
        self.map.pin().retain(|_, e| {
            let gone = pred(e);
            removed += usize::from(gone);
            !gone
        });
        removed
    }

    /// Entries held now (expired ones not yet swept included).
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Makes room: drops expired entries, then, if that freed too little,
    /// arbitrary ones. An evicted entry is simply a miss (DESIGN §5.6).
    fn evict(&self, now: MonoTime) -> usize {
        // One sweeper at a time; others insert over the limit briefly.
        let Ok(_sweeping) = self.evicting.try_lock() else {
            return 0;
        };
        let mut removed = self.remove_where(|e| now >= e.expires_at);
        let target = (self.capacity / EVICT_FRACTION).max(1);
        if removed < target {
            let map = self.map.pin();
            let victims: Vec<CacheKey> = map.keys().take(target - removed).cloned().collect();
            for key in &victims {
                removed += usize::from(map.remove(key).is_some());
            }
        }
        removed
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
    fn bytes_compare_equal_only_when_equal() {
        for (a, b, eq) in [
            ("", "", true),
            ("abcdefgh", "abcdefgh", true),
            ("abcdefgh1", "abcdefgh2", false),
            ("abcdefgX", "abcdefgh", false),
            ("abc", "abcd", false),
        ] {
            assert_eq!(same_bytes(a.as_bytes(), b.as_bytes()), eq, "{a:?} {b:?}");
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
}
