//! `Runtime`: the routing core of one MeshNode (DESIGN §3). It composes the
//! machines, each of which owns its state and rules: the resolver with the
//! positive route cache (`resolve`, `cache`), admission, Message Follow
//! routes and their notification dedup (`follow`), the requests (`reply`),
//! the Session owner and the Actor bindings (`session`), the manual peers
//! (`peer`) and this node's ownership; this module routes calls, frames and
//! timeouts to them and turns their outputs into host actions. No machine
//! names the runtime or another machine's fields.
//!
//! Cache hits are answered on the caller's thread. Store calls run on a
//! small tokio runtime the `Runtime` owns; blocking variants wait for them,
//! async variants can be awaited from any executor.

use std::future::Future;
use std::sync::Arc;

mod admission;
mod frames;
mod lifecycle;
mod peers;
mod reconfirm;
mod relocation;
mod requests;
mod send;
mod sessions;

use crate::clock::{Clock, MonoTime, SystemClock};
use crate::config::{LiveConfig, RoutingConfig};
use crate::error::{ConfigError, InputError};
use crate::follow::FollowRoutes;
use crate::ids::UniqueIds;
use crate::ids::{
    KeyRef, NodeIdentity, NodeRid, ObjectKind, OwnerLeaseGeneration, check_object_id,
};
use crate::inbound::Inbound;
use crate::latency::Latencies;
use crate::ownership::{OwnedObject, Ownership};
use crate::peer::PeerRegistry;
use crate::reconfirm::Reconfirm;
use crate::relocation::handoff::Handoffs;
use crate::reply::Requests;
use crate::resolve::{Caller, Resolution, Resolver};
use crate::route::{ReadyRoute, RouteFence};
use crate::session::{ActorBindings, SessionOwner};
use crate::stats::{InvalidationReason, Stats, TableStats};
use crate::store::{LocationStore, MemoryStore, StoreError, Timed, runs_on};
use crate::timer::earliest;
use crate::wire::RouteEnd;

/// Builds a [`Runtime`]. Defaults: default config, system clock, a private
/// embedded store.
pub struct RuntimeBuilder {
    identity: NodeIdentity,
    config: RoutingConfig,
    clock: Option<Arc<dyn Clock>>,
    store: Option<Arc<dyn LocationStore>>,
    worker_threads: usize,
    id_seed: Option<u64>,
}

impl RuntimeBuilder {
    /// Sets the routing config (validated by [`build`](Self::build)).
    pub fn config(mut self, config: RoutingConfig) -> Self {
        self.config = config;
        self
    }

    /// Sets the clock (a `ManualClock` in tests).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Sets the Location Store shared with the other nodes.
    pub fn store(mut self, store: Arc<dyn LocationStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Threads of the runtime's store I/O pool (default 1).
    pub fn worker_threads(mut self, n: usize) -> Self {
        self.worker_threads = n.max(1);
        self
    }

    /// Draws operation, correlation, proposal and relocation IDs from
    /// `seed` instead of a random one: the same calls then give the same
    /// IDs, so a seeded simulation replays exactly. Unique only as long as
    /// no two runtimes of one cluster share a seed; never set it in
    /// production.
    pub fn id_seed(mut self, seed: u64) -> Self {
        self.id_seed = Some(seed);
        self
    }

    /// Validates the config and starts the runtime.
    pub fn build(self) -> Result<Runtime, BuildError> {
        let config = Arc::new(LiveConfig::new(self.config)?);
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock::new()));
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(MemoryStore::with_clock(clock.clone())));
        let latencies = Arc::new(Latencies::default());
        let store: Arc<dyn LocationStore> = Arc::new(Timed::new(store, latencies.clone()));
        let tokio = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.worker_threads)
            .thread_name("zlink-store")
            .enable_time()
            .build()
            .map_err(|e| BuildError::Threads(e.to_string()))?;
        let reconfirm = Reconfirm::default();
        if let Some(epoch) = store.epoch() {
            // The epoch this node's ownership starts under: a change of it
            // is a recovery event even if the node admits nothing before.
            reconfirm.noticed(epoch, Vec::new);
        }
        Ok(Runtime {
            inner: Arc::new(Inner {
                identity: self.identity,
                resolver: Resolver::new(store.clone(), clock.clone(), config.clone()),
                store,
                clock,
                config,
                ownership: Ownership::default(),
                ids: self.id_seed.map_or_else(UniqueIds::new, UniqueIds::seeded),
                follow: FollowRoutes::default(),
                pending: Requests::default(),
                sessions: SessionOwner::default(),
                bindings: ActorBindings::default(),
                peers: PeerRegistry::default(),
                handoffs: Handoffs::default(),
                reconfirm,
                store_steps: relocation::StoreSteps::default(),
                latencies,
            }),
            tokio: std::sync::Mutex::new(Some(tokio)),
        })
    }
}

/// Why a runtime could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The config breaks a rule; fix it.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The OS refused the runtime's threads.
    #[error("cannot start the runtime's threads: {0}")]
    Threads(String),
}

/// One runtime's machines, and the store, clock and config they share.
pub(crate) struct Inner {
    pub(crate) identity: NodeIdentity,
    pub(crate) store: Arc<dyn LocationStore>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) config: Arc<LiveConfig>,
    pub(crate) resolver: Resolver,
    pub(crate) ownership: Ownership,
    pub(crate) ids: UniqueIds,
    pub(crate) follow: FollowRoutes,
    pub(crate) pending: Requests,
    pub(crate) sessions: SessionOwner,
    pub(crate) bindings: ActorBindings,
    pub(crate) peers: PeerRegistry,
    pub(crate) handoffs: Handoffs,
    pub(crate) reconfirm: Reconfirm,
    pub(crate) store_steps: relocation::StoreSteps,
    /// The latency histograms (the store's timed by [`Timed`]).
    pub(crate) latencies: Arc<Latencies>,
}

/// The routing core of one MeshNode. `Send + Sync`: share it behind an `Arc`.
///
/// Its methods come in four kinds (after quinn-proto's `Connection`):
///
/// - **getters** read state and never change it: [`identity`](Self::identity),
///   [`config`](Self::config), [`lookup_cached`](Self::lookup_cached),
///   [`binding`](Self::binding), [`owned`](Self::owned), [`stats`](Self::stats),
///   [`now`](Self::now), [`next_deadline`](Self::next_deadline) …;
/// - **handlers** take what happened and return what the host must do:
///   [`on_frame`](Self::on_frame) for a frame from a connection,
///   [`on_timeout`](Self::on_timeout) for the passing of time,
///   [`notice_settled`](Self::notice_settled), the invalidation inputs;
/// - **calls** start work and return the frame to carry: `send`, `request`,
///   `reply`, `bind`, `session_send`, `push`, the lifecycle writes …;
/// - nothing is **polled** behind the host's back: every frame to send comes
///   out of the call or handler that produced it.
///
/// The host's loop: carry every frame it is given; feed every frame that
/// arrives to `on_frame` with the node of its connection; sleep until
/// `next_deadline()` (re-read after every call and frame, which may move it
/// earlier) and then call `on_timeout(now())`. Time reaches the core only
/// through `on_timeout` and the clock it was built with.
pub struct Runtime {
    inner: Arc<Inner>,
    // Kept outside `Inner` so that tasks holding `Inner` never own (and so
    // never drop) the tokio runtime from one of its own threads. None once
    // shut down (`shutdown`, or Drop).
    tokio: std::sync::Mutex<Option<tokio::runtime::Runtime>>,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Drives `fut` on a runtime made for this call (only after `shutdown`).
fn block_on_own<F>(fut: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let run = move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map(|rt| rt.block_on(fut))
    };
    // On a thread of its own: the caller may be inside another runtime.
    match std::thread::spawn(run).join() {
        Ok(Ok(out)) => out,
        _ => panic!("cannot start a thread to finish a call after shutdown"),
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("identity", &self.inner.identity)
            .finish()
    }
}

impl Runtime {
    /// Starts building the runtime of the node `identity`.
    pub fn builder(identity: NodeIdentity) -> RuntimeBuilder {
        RuntimeBuilder {
            identity,
            config: RoutingConfig::default(),
            clock: None,
            store: None,
            worker_threads: 1,
            id_seed: None,
        }
    }

    /// This node.
    pub fn identity(&self) -> NodeIdentity {
        self.inner.identity
    }

    /// The config in force.
    pub fn config(&self) -> RoutingConfig {
        (*self.inner.config.get()).clone()
    }

    /// Replaces the config. Existing cache entries keep the lifetime they
    /// were given; Message Follow routes keep theirs (§2.2, §2.5). The route
    /// cache capacity may go down (entries past it are evicted at once) or
    /// back up, but not above the capacity at build
    /// ([`ConfigError::CapacityAboveBuilt`]).
    pub fn update_config(&self, config: RoutingConfig) -> Result<(), ConfigError> {
        let resolver = &self.inner.resolver;
        let now = self.inner.clock.now();
        self.inner.config.replace(config, |c| {
            resolver.set_cache_capacity(c.route_cache_capacity, now)
        })
    }

    pub(crate) fn clock(&self) -> &dyn Clock {
        &*self.inner.clock
    }

    pub(crate) fn ownership(&self) -> &Ownership {
        &self.inner.ownership
    }

    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }

    /// Checks a caller's global ID against the configured cap.
    #[inline]
    pub fn key<'a>(&self, kind: ObjectKind, id: &'a str) -> Result<KeyRef<'a>, InputError> {
        check_object_id(id, self.inner.config.max_id_bytes())?;
        Ok(KeyRef { kind, id })
    }

    /// The cache-only lookup: a recent Ready route, or `None`. Never reads
    /// the store, allocates, locks or blocks. Inlined whole into the caller:
    /// the route is then written once, where the caller keeps it.
    #[inline(always)]
    pub fn lookup_cached(
        &self,
        kind: ObjectKind,
        id: &str,
    ) -> Result<Option<ReadyRoute>, InputError> {
        let key = self.key(kind, id)?;
        Ok(self.inner.resolver.lookup_cached(key))
    }

    /// A cache hit as a host's near cache keeps it: the route with its
    /// expiry (on [`Clock::now_coarse`](crate::Clock::now_coarse)), its
    /// shard and that shard's epoch. A near cache serves it again without
    /// calling in while `near_epochs()[shard]` still holds `epoch` and the
    /// clock has not reached `expires_at`; the core serves the same route
    /// until then. None on a miss or for an ID longer than
    /// [`INLINE_ID_BYTES`](crate::INLINE_ID_BYTES).
    pub fn lookup_near(
        &self,
        kind: ObjectKind,
        id: &str,
    ) -> Result<Option<crate::cache::NearHit>, InputError> {
        let key = self.key(kind, id)?;
        Ok(self.inner.resolver.lookup_near(key))
    }

    /// The change epochs of the route cache, [`NEAR_SHARDS`](crate::NEAR_SHARDS)
    /// words that live as long as the runtime's state (see
    /// [`lookup_near`](Self::lookup_near)).
    pub fn near_epochs(&self) -> &[std::sync::atomic::AtomicU64] {
        self.inner.resolver.near_epochs()
    }

    /// Where a host's near cache counts the hits it serves without calling
    /// in, so that `stats().cache_hits` counts them too: add 1 (an atomic
    /// add) to word [`HOST_COUNTER_STRIDE`](crate::HOST_COUNTER_STRIDE)` *
    /// (thread % `[`HOST_COUNTER_CELLS`](crate::HOST_COUNTER_CELLS)`)`.
    pub fn near_hit_counter(&self) -> &[std::sync::atomic::AtomicU64] {
        self.counters().near_hits.words()
    }

    /// A hint for batch loops: starts bringing the cache entry of `id` into
    /// the CPU cache, so a [`lookup_cached`](Self::lookup_cached) or
    /// [`resolve`](Self::resolve) of it a few calls later does not wait on
    /// memory. Call it some IDs ahead (4 to 8) of the lookups. Reads
    /// nothing for the caller; an invalid ID is ignored.
    #[inline]
    pub fn prefetch_cached(&self, kind: ObjectKind, id: &str) {
        if let Ok(key) = self.key(kind, id) {
            self.inner.resolver.prefetch(key);
        }
    }

    /// Resolves a global ID, blocking on the store on a miss (bounded by
    /// `store_timeout`). A hit returns without touching the async runtime.
    #[inline(always)]
    pub fn resolve(&self, kind: ObjectKind, id: &str) -> Result<Resolution, InputError> {
        let key = self.key(kind, id)?;
        match self.inner.resolver.lookup_cached(key) {
            Some(route) => Ok(Resolution::ReadyRoute(route)),
            None => Ok(self.resolve_miss(key)),
        }
    }

    #[cold]
    fn resolve_miss(&self, key: KeyRef<'_>) -> Resolution {
        let inner = self.inner.clone();
        let key = key.to_owned();
        self.block_on_as(|caller| async move {
            inner
                .resolver
                .resolve_from_store(key.as_ref(), caller)
                .await
        })
    }

    /// Resolves a global ID; the future may be awaited on any executor.
    ///
    /// A miss's store read starts at once, as a task on the store's runtime;
    /// called on that runtime itself (a store made with
    /// `zlink_redis::RedisStore::connect` on the caller's
    /// runtime), it runs in the caller's task instead, when first polled:
    /// there, await many at once (`join`) to read them concurrently.
    pub fn resolve_async(
        &self,
        kind: ObjectKind,
        id: &str,
    ) -> Result<impl Future<Output = Resolution> + Send + 'static, InputError> {
        let key = self.key(kind, id)?;
        let hit = self.inner.resolver.lookup_cached(key);
        let inner = self.inner.clone();
        let key = key.to_owned();
        let read = match hit {
            Some(route) => Err(route),
            None => Ok(self.on_store_runtime(async move {
                inner
                    .resolver
                    .resolve_from_store(key.as_ref(), Caller::Task)
                    .await
            })),
        };
        Ok(async move {
            match read {
                Err(route) => Resolution::ReadyRoute(route),
                Ok(task) => task.await.unwrap_or_else(|| {
                    Resolution::StoreFailure(StoreError::Unreachable(
                        "the runtime shut down".into(),
                    ))
                }),
            }
        })
    }

    /// A stale-route result or relay notification for `target`: the entry is
    /// removed only if it still holds `fence`, so a newer route stays.
    pub(crate) fn invalidate_fenced(
        &self,
        target: KeyRef<'_>,
        fence: &RouteFence,
        reason: InvalidationReason,
    ) -> bool {
        self.inner.resolver.invalidate_fenced(target, fence, reason)
    }

    /// A relay notification (§2.2, §2.5): removes the entry of `target`
    /// only if it routes to the relay's source node for the same object
    /// generation and authority generation, so a newer route is never
    /// cleared. Command 50 frames reach this through [`Runtime::on_frame`].
    pub fn on_relay_notification(&self, target: KeyRef<'_>, source: &RouteEnd) -> bool {
        self.invalidate_relayed(target, source)
    }

    pub(crate) fn invalidate_relayed(&self, target: KeyRef<'_>, source: &RouteEnd) -> bool {
        self.inner.resolver.invalidate_relayed(target, source)
    }

    pub(crate) fn counters(&self) -> &crate::stats::Counters {
        self.inner.resolver.counters()
    }

    /// Owner-lease invalidation: the lifecycle `lease` of `node` ended. Every
    /// cached route under it is removed, and records still naming it resolve
    /// `Unavailable(OwnerNotLive)`. Returns the entries removed.
    pub fn on_owner_lease_invalidated(&self, node: NodeRid, lease: OwnerLeaseGeneration) -> usize {
        // Sessions owned by that process ended with it.
        let dropped = self.inner.bindings.forget_sessions_of(node);
        if dropped > 0 {
            tracing::info!(%node, dropped, "registrations of the ended node's sessions dropped");
        }
        self.inner.resolver.owner_lease_ended(node, lease)
    }

    /// A store recovery event reported by the host: clears the whole cache.
    /// (Recoveries the runtime sees itself are handled without this call.)
    pub fn on_store_recovery(&self) -> usize {
        self.inner.resolver.store_recovered()
    }

    /// Every counter and table size, read now.
    pub fn stats(&self) -> Stats {
        let mut stats = self.inner.resolver.snapshot();
        stats.tables = self.table_stats();
        stats.latencies = self.inner.latencies.snapshot();
        stats
    }

    fn table_stats(&self) -> TableStats {
        let inner = &self.inner;
        let (sessions, pending_binds, session_deadlines) = inner.sessions.sizes();
        let (registrations, parked_binds, parked_deadlines) = inner.bindings.sizes();
        let follow = inner.follow.sizes();
        let (sources, targets, relocation_deadlines) = inner.handoffs.sizes();
        let n = |v: usize| v as u64;
        TableStats {
            pending_requests: n(inner.pending.len()),
            request_deadlines: n(inner.pending.deadlines_held()),
            sessions: n(sessions),
            pending_binds: n(pending_binds),
            session_deadlines: n(session_deadlines),
            registrations: n(registrations),
            parked_binds: n(parked_binds),
            parked_deadlines: n(parked_deadlines),
            follow_routes: n(follow.routes),
            follow_deadlines: n(follow.expiries),
            dedup_entries: n(follow.notices),
            dedup_evictions: follow.evictions,
            store_flights: n(inner.resolver.flights_in_progress()),
            relocation_sources: n(sources),
            relocation_targets: n(targets),
            relocation_deadlines: n(relocation_deadlines),
        }
    }

    /// The runtime's clock, read now: the `now` to give
    /// [`on_timeout`](Self::on_timeout).
    pub fn now(&self) -> MonoTime {
        self.inner.clock.now()
    }

    /// The earliest instant any of the runtime's machines needs waking at
    /// (a request deadline, a seal or bind timeout, a follow-route expiry),
    /// or `None` when nothing waits. The host sleeps until then (or until a
    /// frame or call comes) and calls [`on_timeout`](Self::on_timeout). A
    /// wake-up may find the work already ended: that is a no-op.
    pub fn next_deadline(&self) -> Option<MonoTime> {
        let inner = &self.inner;
        [
            inner.pending.next_deadline(),
            inner.sessions.next_deadline(),
            inner.bindings.next_deadline(),
            inner.follow.next_deadline(),
            inner.handoffs.next_deadline(),
            inner.store_steps.deadline(self.now()),
            self.reconfirm_deadline(),
        ]
        .into_iter()
        .fold(None, earliest)
    }

    /// Runs every deadline due at `now` and returns what the host must do,
    /// in the same form [`on_frame`](Self::on_frame) uses: requests ended
    /// by their deadline (`Completed` with `Outcome::Timeout`), Sessions
    /// closed by the seal timeout (`Session(Closed)` then the disconnect
    /// notifications as `Send`), binds refused by the bind timeout
    /// (`Session(BindRefused)` on the Session owner, the refusal frame as
    /// `Send` on the Actor owner); after a store recovery event, the work
    /// held while owned records were re-read (admitted, or refused as
    /// `Reject`) and every `OwnershipLost`. Expired follow routes and their
    /// dedup entries are dropped. Calling it early only returns the answers
    /// of a relocation's store steps that came meanwhile, if any.
    pub fn on_timeout(&self, now: MonoTime) -> Vec<Inbound> {
        let mut actions: Vec<Inbound> = self
            .expire_requests(now)
            .into_iter()
            .map(Inbound::Completed)
            .collect();
        self.session_timeouts(now, &mut actions);
        self.relocation_timeouts(now, &mut actions);
        self.inner.follow.expire(now);
        self.note_store_epoch();
        self.reconfirm_timeouts(now, &mut actions);
        actions
    }

    /// What this node owns for `target`, if anything.
    pub fn owned(&self, target: KeyRef<'_>) -> Option<OwnedObject> {
        self.inner.ownership.get(target)
    }

    /// Number of objects this node owns.
    pub fn owned_count(&self) -> usize {
        self.inner.ownership.len()
    }

    /// Runs `fut` on the store's runtime (or this runtime's); `None` if that
    /// runtime shut down before it finished (the Runtime or store was dropped
    /// or shut down while the caller still awaited).
    ///
    /// Called and awaited on that very runtime (a host whose store lives on
    /// its own runtime, `zlink_redis::RedisStore::connect`),
    /// `fut` runs inline, in the caller's task: a spawned task and its
    /// wake-up cost about as much as the store read they wrap (measured
    /// with 16 callers running on a store's own one-thread runtime against
    /// a local Redis: 72-82k resolves/s through a spawn, 135-141k/s
    /// inline). Otherwise it is spawned there at once, as a task
    /// that runs under the timers and I/O it needs whatever executor awaits
    /// the answer.
    pub(crate) fn on_store_runtime<F>(
        &self,
        fut: F,
    ) -> impl Future<Output = Option<F::Output>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // On the store's own runtime when it has one: no hop per store call.
        let handle = self.inner.store.executor().or_else(|| self.tokio());
        let run = match handle {
            Some(h) if runs_on(&h) => Ok((h, fut)),
            Some(h) => Err(Some(h.spawn(fut))),
            None => Err(None),
        };
        async move {
            let task = match run {
                // Still there when first polled (a future may be moved to
                // another executor before): inline; else spawned then.
                Ok((h, fut)) if runs_on(&h) => return Some(fut.await),
                Ok((h, fut)) => h.spawn(fut),
                Err(task) => task?,
            };
            task.await.ok()
        }
    }

    /// Runs `fut` on the runtime's threads and waits for it. Works from a
    /// plain thread and from inside another async runtime alike; after
    /// `shutdown`, on a runtime of the call's own.
    pub(crate) fn block_on<F>(&self, fut: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.block_on_as(|_| fut)
    }

    /// [`block_on`](Self::block_on) of the future `make` builds, told
    /// whether it will run on this thread outside any async runtime
    /// ([`Caller::Thread`]: it may block the thread) or as a task.
    pub(crate) fn block_on_as<F, M>(&self, make: M) -> F::Output
    where
        M: FnOnce(Caller) -> F,
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let Some(ours) = self.tokio() else {
            return block_on_own(make(Caller::Task));
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return ours.block_on(make(Caller::Thread));
        }
        let fut = make(Caller::Task);
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        ours.spawn(async move {
            // The receiver waits below until it gets this.
            let _ = tx.send(fut.await);
        });
        let answer = if self.blocks_a_store_worker() {
            // The store's calls run on this very runtime: its other tasks
            // go to another thread while this one waits, or the call could
            // wait for itself until `store_timeout`.
            tokio::task::block_in_place(|| rx.recv())
        } else {
            rx.recv()
        };
        match answer {
            Ok(out) => out,
            // The runtime shut down with the task unfinished: run it anew
            // would repeat its effects, so this only happens for a call
            // racing `shutdown`, which hosts refuse first.
            Err(_) => panic!("the runtime shut down under a blocking call"),
        }
    }

    /// Whether this thread runs (or drives) a multi-thread runtime that is
    /// also the store's (a store connected on the host's runtime): blocking
    /// it blocks the store's work. A current-thread runtime cannot hand its
    /// work over; a blocking call there waits out `store_timeout` (see
    /// `zlink_redis::RedisStore::connect`).
    fn blocks_a_store_worker(&self) -> bool {
        self.inner.store.executor().is_some_and(|store| {
            runs_on(&store) && store.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
        })
    }

    /// Stops the runtime's store I/O threads now (hosts call it on close;
    /// Drop does it too). Later store calls fail as after a shutdown.
    pub fn shutdown(&self) {
        let taken = self.tokio.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(rt) = taken {
            rt.shutdown_background();
        }
    }

    /// A handle on the runtime's threads, or None once shut down.
    fn tokio(&self) -> Option<tokio::runtime::Handle> {
        let rt = self.tokio.lock().unwrap_or_else(|p| p.into_inner());
        rt.as_ref().map(|rt| rt.handle().clone())
    }
}
