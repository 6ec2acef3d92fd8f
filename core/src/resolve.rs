//! The resolver (§2.1, §2.2): global ID → one of four closed results.
//!
//! A hit is answered from the positive route cache without touching the
//! store or the async runtime. A miss reads the store once per group of
//! concurrent misses for the same ID (single flight), classifies the
//! authority record, and caches only `ReadyRoute`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OnceCell;

use crate::authority::{AuthorityRecord, AuthorityState};
use crate::cache::RouteCache;
use crate::clock::{Clock, MonoTime, SystemClock};
use crate::config::LiveConfig;
use crate::ids::{KeyRef, NodeRid, ObjectKey, OwnerLeaseGeneration, StoreVersion};
use crate::liveness::OwnerLiveness;
pub use crate::reason::UnavailableReason;
use crate::recovery::StoreHealth;
use crate::route::{ReadyRoute, RouteFence};
use crate::stats::{Counters, InvalidationReason};
use crate::store::{LocationStore, Observed, StoreError};
use crate::wire::RouteEnd;

/// The resolver's closed result (§2.2). Each tag has exactly one receiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A Ready owner route with its fences: submit on it.
    ReadyRoute(ReadyRoute),
    /// No authority record exists (release has completed): only the creation
    /// coordinator acts on this.
    Missing,
    /// Authority exists but its owner cannot be used now: the operation ends.
    Unavailable(UnavailableReason),
    /// Whether authority exists could not be determined: retry the store.
    StoreFailure(StoreError),
}

impl Resolution {
    /// The tag name, as every host language spells it.
    pub fn tag(&self) -> &'static str {
        match self {
            Resolution::ReadyRoute(_) => "ReadyRoute",
            Resolution::Missing => "Missing",
            Resolution::Unavailable(_) => "Unavailable",
            Resolution::StoreFailure(_) => "StoreFailure",
        }
    }
}

type ReadResult = Result<Observed<Option<AuthorityRecord>>, StoreError>;

/// Who waits for a resolve's store read, which decides where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// A task: the read is awaited.
    Task,
    /// A thread blocked in this call outside any async runtime (a host
    /// thread's `resolve`): the store may do the read on that thread
    /// ([`LocationStore::read_blocking`]), saving the hop to its I/O thread
    /// and back.
    Thread,
}

/// One store read shared by every concurrent miss of an ID.
struct Flight {
    /// When the read was sent: the base of the admission deadline, which is
    /// therefore never later than the lease allows.
    started: MonoTime,
    /// Mass-invalidation sequence when the read was sent (moved up when
    /// this read's own answer is the store recovery event: it is newer than
    /// the invalidation it caused).
    seq: AtomicU64,
    /// An invalidation of this ID came while the read was in flight: its
    /// answer may be older than that news, so it is not cached. Other IDs'
    /// invalidations leave this read alone.
    invalidated: AtomicBool,
    result: OnceCell<ReadResult>,
}

/// A caller's part in a flight, settled when dropped. The caller that read
/// leaves the flight once its answer is cached. A caller dropped before
/// any answer (an async caller may give up mid-read) removes the flight
/// only if nobody else holds it: a joiner still waiting takes the read
/// over, and the flight must stay in the map for an invalidation in the
/// meantime to mark it; nobody waiting, a later miss reads anew instead of
/// joining a flight nobody reads for. It holds the caller's reference to
/// the flight, so that such a caller lets go of it under the map's lock:
/// of two callers given up at once, the second sees the first gone.
struct Reader<'a> {
    resolver: &'a Resolver,
    key: KeyRef<'a>,
    /// `None` only once dropped.
    flight: Option<Arc<Flight>>,
    /// This caller ran the read (it is the flight's reader).
    read: AtomicBool,
}

impl Reader<'_> {
    fn flight(&self) -> &Arc<Flight> {
        self.flight
            .as_ref()
            .unwrap_or_else(|| unreachable!("taken only by Drop"))
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        let Some(flight) = self.flight.take() else {
            return;
        };
        if !flight.result.initialized() {
            self.resolver.abandon_flight(self.key, flight);
        } else if self.read.load(Ordering::Relaxed) {
            self.resolver.leave_flight(self.key, &flight);
        }
    }
}

/// Turns global IDs into resolutions; owns the cache and its invalidations.
pub(crate) struct Resolver {
    cache: RouteCache,
    counters: Counters,
    health: StoreHealth,
    liveness: OwnerLiveness,
    store: Arc<dyn LocationStore>,
    clock: Arc<dyn Clock>,
    /// `clock`, when it is the system's: read without a virtual call.
    system_clock: Option<SystemClock>,
    config: Arc<LiveConfig>,
    flights: Mutex<HashMap<ObjectKey, Arc<Flight>>>,
}

impl Resolver {
    pub(crate) fn new(
        store: Arc<dyn LocationStore>,
        clock: Arc<dyn Clock>,
        config: Arc<LiveConfig>,
    ) -> Self {
        Resolver {
            cache: RouteCache::new(config.get().route_cache_capacity),
            counters: Counters::default(),
            health: StoreHealth::default(),
            liveness: OwnerLiveness::default(),
            store,
            system_clock: clock.as_system().copied(),
            clock,
            config,
            flights: Mutex::new(HashMap::new()),
        }
    }

    /// The cache-only lookup: the hot path. Never allocates, locks or awaits.
    /// Inlined into the caller so the route is built once where the caller
    /// wants it (a copy of a just-built route stalls on store forwarding).
    #[inline(always)]
    pub(crate) fn lookup_cached(&self, key: KeyRef<'_>) -> Option<ReadyRoute> {
        let now = match &self.system_clock {
            Some(clock) => clock.coarse_now(),
            None => self.clock.now_coarse(),
        };
        let hit = self.cache.get(key, now);
        if hit.is_some() {
            self.counters.cache_hits.incr();
        }
        hit
    }

    /// A cache hit of `key` as a host's near cache keeps it (counted as a
    /// hit); None on a miss or for a long ID.
    pub(crate) fn lookup_near(&self, key: KeyRef<'_>) -> Option<crate::cache::NearHit> {
        let hit = self.cache.near_get(key, self.clock.now_coarse());
        if hit.is_some() {
            self.counters.cache_hits.incr();
        }
        hit
    }

    /// Applies a new route cache capacity (refused above the one at build).
    pub(crate) fn set_cache_capacity(
        &self,
        capacity: usize,
        now: MonoTime,
    ) -> Result<(), crate::error::ConfigError> {
        self.cache.set_capacity(capacity, now)
    }

    /// The change epochs near caches check.
    pub(crate) fn near_epochs(&self) -> &[std::sync::atomic::AtomicU64] {
        self.cache.near_epochs()
    }

    /// Starts fetching the cache entry of `key` (a hint for batches).
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: KeyRef<'_>) {
        self.cache.prefetch(key);
    }

    /// Resolves from the store after a miss. The cache is looked at again
    /// first: a caller queued behind a read that has since completed finds
    /// its route there instead of reading anew.
    pub(crate) async fn resolve_from_store(&self, key: KeyRef<'_>, caller: Caller) -> Resolution {
        if let Some(route) = self.lookup_cached(key) {
            return Resolution::ReadyRoute(route);
        }
        let reader = Reader {
            resolver: self,
            key,
            flight: Some(self.join_flight(key)),
            read: AtomicBool::new(false),
        };
        // Counted after joining, so "n misses counted" implies "n joined".
        self.counters.cache_misses.incr();
        // Only the caller that read caches the answer, before the flight is
        // left: an invalidation that comes after it left finds the route in
        // the cache (and removes it), never a joiner about to insert it.
        let flight = reader.flight();
        let read = flight
            .result
            .get_or_init(|| {
                reader.read.store(true, Ordering::Relaxed);
                self.read_once(key, flight, caller)
            })
            .await
            .clone();
        let resolution = match read {
            Ok(observed) => {
                self.classify(key, observed, flight, reader.read.load(Ordering::Relaxed))
            }
            Err(e) => Resolution::StoreFailure(e),
        };
        // Left only by the reader, once the route is cached: a caller
        // arriving in between joins this answer rather than reading anew,
        // and an invalidation in between still finds the flight to mark.
        drop(reader);
        self.count(&resolution);
        resolution
    }

    /// The runtime's counters (every machine counts here).
    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Every counter, with the cache's size now.
    pub(crate) fn snapshot(&self) -> crate::stats::Stats {
        self.counters.snapshot(self.cache.len())
    }

    /// A stale-route result for `target`: its entry goes only if it still
    /// holds `fence`, so a newer route stays.
    pub(crate) fn invalidate_fenced(
        &self,
        target: KeyRef<'_>,
        fence: &RouteFence,
        reason: InvalidationReason,
    ) -> bool {
        self.invalidate_key(target);
        let removed = self.cache.remove_if_fence(target, fence, self.clock.now());
        if removed {
            self.counters.invalidated(reason, 1);
            tracing::debug!(kind = %target.kind, id = target.id, reason = reason.as_str(), "route cache entry removed");
        }
        removed
    }

    /// A stale-route or generation refusal by `node`: the entry of `target`
    /// goes only if it routes to `node` and still holds `fence`.
    pub(crate) fn invalidate_rejected(
        &self,
        target: KeyRef<'_>,
        node: NodeRid,
        fence: &RouteFence,
    ) -> bool {
        self.invalidate_key(target);
        let removed = self
            .cache
            .remove_if_rejected(target, node, fence, self.clock.now());
        if removed {
            self.counters.invalidated(InvalidationReason::StaleRoute, 1);
        }
        removed
    }

    /// A relay notification (§2.2, §2.5): the entry of `target` goes only if
    /// it routes to the relay's source node for the same object and
    /// authority generation, so a newer route is never cleared.
    pub(crate) fn invalidate_relayed(&self, target: KeyRef<'_>, source: &RouteEnd) -> bool {
        self.invalidate_key(target);
        let removed =
            self.cache
                .remove_if_routed(target, source.node.rid, &source.fence, self.clock.now());
        if removed {
            self.counters
                .invalidated(InvalidationReason::RelayNotification, 1);
        }
        removed
    }

    /// This node's own write confirmed `version` for `key`: an entry read
    /// from an older version goes.
    pub(crate) fn confirmed_version(&self, key: KeyRef<'_>, version: StoreVersion) {
        // A read of it in flight may predate this write.
        self.invalidate_key(key);
        if self.cache.remove_older_than(key, version, self.clock.now()) {
            self.counters
                .invalidated(InvalidationReason::HigherStoreVersion, 1);
        }
    }

    /// The object was released: nothing cached for it can be current.
    pub(crate) fn forget(&self, key: KeyRef<'_>) {
        self.invalidate_key(key);
        self.cache.remove(key);
    }

    /// Owner-lease invalidation: every cached route under `lease` of `node`
    /// goes, and records still naming it resolve `Unavailable(OwnerNotLive)`.
    pub(crate) fn owner_lease_ended(&self, node: NodeRid, lease: OwnerLeaseGeneration) -> usize {
        self.liveness.end(node, lease);
        self.cache.note_invalidation();
        let removed = self.cache.remove_owner_lease(node, lease);
        self.counters
            .invalidated(InvalidationReason::OwnerLeaseInvalidated, removed as u64);
        tracing::info!(%node, %lease, removed, "owner lease invalidated");
        removed
    }

    /// Store reads in flight now.
    pub(crate) fn flights_in_progress(&self) -> usize {
        self.flights.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn join_flight(&self, key: KeyRef<'_>) -> Arc<Flight> {
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        flights
            .entry(key.to_owned())
            .or_insert_with(|| {
                Arc::new(Flight {
                    started: self.clock.now(),
                    seq: AtomicU64::new(self.cache.invalidation_seq()),
                    invalidated: AtomicBool::new(false),
                    result: OnceCell::new(),
                })
            })
            .clone()
    }

    /// An invalidation of `key` (stale route, relay notification): a read
    /// of it in flight will not cache its answer. Call it before removing
    /// the cache entry, so a read that caches in between is taken back.
    pub(crate) fn invalidate_key(&self, key: KeyRef<'_>) {
        let flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(flight) = flights.get(&key.to_owned()) {
            flight.invalidated.store(true, Ordering::SeqCst);
        }
    }

    /// Whether nothing invalidated `flight`'s read since it started.
    fn current(&self, flight: &Flight) -> bool {
        self.cache.invalidation_seq() == flight.seq.load(Ordering::SeqCst)
            && !flight.invalidated.load(Ordering::SeqCst)
    }

    /// Removes a flight without an answer whose last caller gave up (the
    /// map's reference and that caller's are all there are). Callers join
    /// under the lock, so none can be on its way in.
    fn abandon_flight(&self, key: KeyRef<'_>, flight: Arc<Flight>) {
        let key = key.to_owned();
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        // Let go first, under the lock: every caller giving up does, so the
        // last one finds the map's reference alone. (Still alive there, so
        // no other flight can have its address before the lock is left.)
        let ours = Arc::as_ptr(&flight);
        drop(flight);
        let abandoned = flights.get(&key).is_some_and(|f| {
            std::ptr::eq(Arc::as_ptr(f), ours)
                && Arc::strong_count(f) == 1
                && !f.result.initialized()
        });
        if abandoned {
            flights.remove(&key);
        }
    }

    /// The reader removes the flight once its answer is cached, so a later
    /// miss reads anew.
    fn leave_flight(&self, key: KeyRef<'_>, flight: &Arc<Flight>) {
        let key = key.to_owned();
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        if flights.get(&key).is_some_and(|f| Arc::ptr_eq(f, flight)) {
            flights.remove(&key);
        }
    }

    async fn read_once(&self, key: KeyRef<'_>, flight: &Flight, caller: Caller) -> ReadResult {
        self.counters.store_reads.incr();
        let on_thread = match caller {
            Caller::Thread => self
                .store
                .read_blocking(key, self.config.get().store_timeout),
            Caller::Task => None,
        };
        let result = match on_thread {
            Some(result) => result,
            None => self.timed(self.store.read(key)).await,
        };
        if self.observe(result.as_ref().map(|o| o.epoch)) {
            flight
                .seq
                .store(self.cache.invalidation_seq(), Ordering::SeqCst);
        }
        result
    }

    /// Bounds a store call by `store_timeout`: a stalled store yields
    /// `StoreFailure` in time, never a hang.
    pub(crate) async fn timed<T, E: From<StoreError>>(
        &self,
        call: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        let limit = self.config.get().store_timeout;
        match tokio::time::timeout(limit, call).await {
            Ok(result) => result,
            Err(_) => Err(StoreError::Timeout {
                millis: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            }
            .into()),
        }
    }

    /// Feeds a store call's outcome to the health tracker; on a recovery
    /// event every cached route goes (DESIGN §5.3). True on a recovery.
    pub(crate) fn observe(
        &self,
        outcome: Result<crate::authority::StoreEpoch, &StoreError>,
    ) -> bool {
        match outcome {
            Err(e) => {
                self.counters.store_failures.incr();
                tracing::warn!(error = %e, "location store call failed");
                self.health.failed(e);
                false
            }
            Ok(epoch) => {
                let recovered = self.health.answered(epoch);
                if recovered {
                    self.store_recovered();
                }
                recovered
            }
        }
    }

    /// A store recovery event: clears the whole cache.
    pub(crate) fn store_recovered(&self) -> usize {
        self.cache.note_invalidation();
        let removed = self.cache.clear();
        self.counters.store_recoveries.incr();
        self.counters
            .invalidated(InvalidationReason::StoreRecovery, removed as u64);
        tracing::info!(removed, "location store recovered; route cache cleared");
        removed
    }

    fn classify(
        &self,
        key: KeyRef<'_>,
        observed: Observed<Option<AuthorityRecord>>,
        flight: &Flight,
        cache: bool,
    ) -> Resolution {
        let Some(record) = observed.value else {
            // Release completed: nothing cached for this ID can be current.
            self.cache.remove(key);
            return Resolution::Missing;
        };
        if self
            .cache
            .remove_older_than(key, record.store_version, self.clock.now())
        {
            self.counters
                .invalidated(InvalidationReason::HigherStoreVersion, 1);
        }
        match record.state {
            AuthorityState::Creating => {
                return Resolution::Unavailable(UnavailableReason::Creating);
            }
            AuthorityState::Releasing => {
                return Resolution::Unavailable(UnavailableReason::Releasing);
            }
            AuthorityState::Ready => {}
        }
        let lease = record.owner.lease;
        if lease.expires_at <= observed.store_time {
            return Resolution::Unavailable(UnavailableReason::LeaseExpired);
        }
        if !self
            .liveness
            .is_live(record.owner.route.node, lease.generation)
        {
            return Resolution::Unavailable(UnavailableReason::OwnerNotLive);
        }
        let remaining = Duration::from_millis(lease.expires_at.0 - observed.store_time.0);
        let ready = ReadyRoute {
            route: record.owner.route,
            fence: record.fence(),
            admission_deadline: flight.started.after(remaining),
        };
        if cache {
            self.cache_ready(key, ready, flight);
        }
        Resolution::ReadyRoute(ready)
    }

    /// Caches a fresh route until the earlier of its admission deadline and
    /// the max age in force now (§2.2).
    fn cache_ready(&self, key: KeyRef<'_>, ready: ReadyRoute, flight: &Flight) {
        let max_age = self.config.cache_max_age();
        if max_age.is_zero() {
            return;
        }
        let expires_at = ready
            .admission_deadline
            .min(flight.started.after(max_age))
            .before(self.clock.coarse_slack());
        let now = self.clock.now();
        let (_, evicted) = self
            .cache
            .insert_read(key, ready, expires_at, now, || self.current(flight));
        self.counters.evictions.add(evicted as u64);
    }

    fn count(&self, resolution: &Resolution) {
        let c = &self.counters;
        match resolution {
            Resolution::ReadyRoute(_) => c.ready_from_store.incr(),
            Resolution::Missing => c.missing.incr(),
            Resolution::Unavailable(_) => c.unavailable.incr(),
            Resolution::StoreFailure(_) => c.store_failure_results.incr(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;
    use crate::authority::OwnerClaim;
    use crate::clock::ManualClock;
    use crate::config::RoutingConfig;
    use crate::ids::{
        MeshName, NodeGeneration, NodeRid, ObjectKind, OwnerLeaseGeneration, ProposalId,
    };
    use crate::store::{FaultyStore, MemoryStore};

    /// A resolver on a store that can stall, with the Ready record of
    /// actor `a` in it, and the executor its calls need (entered).
    fn resolver_with_a() -> (
        Resolver,
        Arc<FaultyStore<MemoryStore>>,
        tokio::runtime::Runtime,
    ) {
        let clock = ManualClock::new();
        let store = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
            clock.clone(),
        ))));
        let config = Arc::new(LiveConfig::new(RoutingConfig::default()).expect("valid"));
        let resolver = Resolver::new(store.clone(), Arc::new(clock.clone()), config);
        let claim = OwnerClaim {
            mesh: MeshName::new("m").expect("valid"),
            node: NodeRid(1),
            node_generation: NodeGeneration(1),
            lease_generation: OwnerLeaseGeneration(1),
            lease_millis: 60_000,
        };
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("an executor");
        let created = tokio
            .block_on(store.create(A, claim, ProposalId(1)))
            .expect("create")
            .value;
        tokio
            .block_on(store.publish_ready(A, created.write_fence(), ProposalId(2)))
            .expect("publish");
        (resolver, store, tokio)
    }

    const A: KeyRef<'static> = KeyRef {
        kind: ObjectKind::Actor,
        id: "a",
    };

    /// A caller that joined a store read must not cache its answer after
    /// the caller that read it cached, left, and an invalidation removed it.
    #[test]
    fn a_joiner_never_caches_a_route_invalidated_after_the_reader_left() {
        let (resolver, store, tokio) = resolver_with_a();
        let _entered = tokio.enter();
        let key = A;
        store.set_stalled(true);
        let mut cx = Context::from_waker(Waker::noop());
        let mut reader = pin!(resolver.resolve_from_store(key, Caller::Task));
        let mut joiner = pin!(resolver.resolve_from_store(key, Caller::Task));
        assert!(reader.as_mut().poll(&mut cx).is_pending());
        assert!(joiner.as_mut().poll(&mut cx).is_pending());
        store.set_stalled(false);
        let Poll::Ready(Resolution::ReadyRoute(route)) = reader.as_mut().poll(&mut cx) else {
            panic!("the reader's answer")
        };
        assert_eq!(resolver.flights_in_progress(), 0, "the reader left");
        assert!(resolver.invalidate_fenced(key, &route.fence, InvalidationReason::StaleRoute));
        assert!(matches!(
            joiner.as_mut().poll(&mut cx),
            Poll::Ready(Resolution::ReadyRoute(_))
        ));
        assert!(
            resolver.lookup_cached(key).is_none(),
            "the invalidated route came back into the cache"
        );
    }

    /// A reader that gives up while a joiner waits: the joiner reads
    /// instead, and an invalidation during its read still stops the answer
    /// from being cached (the flight stayed where invalidations find it).
    #[test]
    fn a_joiner_takes_over_from_a_dropped_reader_and_its_read_still_sees_invalidations() {
        let (resolver, store, tokio) = resolver_with_a();
        let _entered = tokio.enter();
        store.set_stalled(true);
        let mut cx = Context::from_waker(Waker::noop());
        let mut joiner = pin!(resolver.resolve_from_store(A, Caller::Task));
        {
            let mut reader = pin!(resolver.resolve_from_store(A, Caller::Task));
            assert!(reader.as_mut().poll(&mut cx).is_pending());
            assert!(joiner.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(resolver.flights_in_progress(), 1, "the joiner still waits");
        assert!(joiner.as_mut().poll(&mut cx).is_pending(), "it reads now");
        resolver.invalidate_key(A);
        store.set_stalled(false);
        let answer = tokio.block_on(joiner.as_mut());
        assert!(matches!(answer, Resolution::ReadyRoute(_)), "{answer:?}");
        assert!(
            resolver.lookup_cached(A).is_none(),
            "a read older than an invalidation is not cached"
        );
        assert_eq!(resolver.flights_in_progress(), 0);
        assert_eq!(resolver.counters().snapshot(0).store_reads, 2);
    }

    /// A reader and its joiner both giving up: the flight goes with the
    /// last of them, whichever order they go in.
    #[test]
    fn a_flight_goes_with_the_last_caller_that_gives_up() {
        let (resolver, store, tokio) = resolver_with_a();
        let _entered = tokio.enter();
        store.set_stalled(true);
        let mut cx = Context::from_waker(Waker::noop());
        for reader_first in [true, false] {
            let mut reader = Box::pin(resolver.resolve_from_store(A, Caller::Task));
            let mut joiner = Box::pin(resolver.resolve_from_store(A, Caller::Task));
            assert!(reader.as_mut().poll(&mut cx).is_pending());
            assert!(joiner.as_mut().poll(&mut cx).is_pending());
            let (first, last) = if reader_first {
                (reader, joiner)
            } else {
                (joiner, reader)
            };
            drop(first);
            assert_eq!(
                resolver.flights_in_progress(),
                1,
                "one caller still holds it"
            );
            drop(last);
            assert_eq!(resolver.flights_in_progress(), 0, "the last caller took it");
        }
    }

    /// An async caller that gives up while reading for a flight leaves it:
    /// the next miss reads anew instead of joining a flight nobody reads
    /// for, and the flight map does not keep it.
    #[test]
    fn a_reader_dropped_mid_read_leaves_its_flight() {
        let (resolver, store, tokio) = resolver_with_a();
        let _entered = tokio.enter();
        store.set_stalled(true);
        let mut cx = Context::from_waker(Waker::noop());
        {
            let mut reader = pin!(resolver.resolve_from_store(A, Caller::Task));
            assert!(reader.as_mut().poll(&mut cx).is_pending());
            assert_eq!(resolver.flights_in_progress(), 1);
        }
        assert_eq!(resolver.flights_in_progress(), 0, "the dropped reader left");
        store.set_stalled(false);
        let reads = resolver.counters().snapshot(0).store_reads;
        let again = tokio.block_on(resolver.resolve_from_store(A, Caller::Task));
        assert!(matches!(again, Resolution::ReadyRoute(_)), "{again:?}");
        assert_eq!(resolver.counters().snapshot(0).store_reads, reads + 1);
        assert_eq!(resolver.flights_in_progress(), 0);
    }
}
