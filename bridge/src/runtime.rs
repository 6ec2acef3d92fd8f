//! The runtime as every host calls it: each operation takes a host's
//! arguments (kinds, IDs, bytes), checks them in one order (kind, then ID,
//! then bounds, then the core's own rules), calls the core and returns the
//! flat results of `decision` or an `Error` with its kind. A binding only
//! reads its language's arguments and builds its language's values.
//!
//! The runtime is bound to the process that made it (`Forked` after a
//! fork) and owns the thread that completes asynchronous resolutions
//! (`resolve_async`), made on first use. `close` waits for completions
//! still running, then stops it.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use zlink_core::wire::{
    ActorRoute, MAX_ERROR_MESSAGE_BYTES, MAX_SAVED_OPERATIONS, NodeRef, Operation, ReplyError,
    ReplyErrorKind as CoreReplyErrorKind, ReplyResult, RouteEnd, SessionRef,
};
use zlink_core::{
    ActorRef, BindingRoute, Capture, CorrelationId, Inbound, KeyRef, MonoTime, NodeGeneration,
    NodeIdentity, NodeRid, NoticeToken, ObjectKey, ObjectKind, OwnedObject, OwnerLeaseGeneration,
    PeerDescriptor, PeerIntent, PeerReplacement, ReadyRoute, Registration, RelocationError,
    RelocationStarted, ReplyRouteError, RequestOptions, RoutingConfig, SendOptions,
    SessionGeneration, SessionId, SpotExecution,
};

use crate::args::{self, Arg, MAX_FRAME_BYTES, Text};
use crate::decision::{Resolved, Sent, SessionSent};
use crate::error::{Error, ErrorKind, Result};
use crate::lifecycle::ForkBound;
use crate::setup::Clock;
use crate::stats::{Counter, counters};

thread_local! {
    /// On a thread of a runtime's completion pool: which runtime (the
    /// address of its pending count); 0 elsewhere.
    static COMPLETION_POOL_OF: Cell<usize> = const { Cell::new(0) };
}

/// What a host runs when a completion pool thread starts and stops (the
/// JVM attaches it as a daemon thread and detaches it).
struct ThreadHooks {
    start: fn(),
    stop: fn(),
}

/// The host's thread hooks, set once.
static THREAD_HOOKS: OnceLock<ThreadHooks> = OnceLock::new();

/// Sets the hooks every completion pool thread runs first (`start`) and
/// last (`stop`). Only the first call counts.
pub fn set_thread_hooks(start: fn(), stop: fn()) {
    let _ = THREAD_HOOKS.set(ThreadHooks { start, stop });
}

/// The most store I/O threads a host may ask a runtime for.
pub const MAX_WORKER_THREADS: usize = 64;

/// At most this many threads run blocking jobs (`spawn`) per runtime.
const MAX_BLOCKING_THREADS: usize = 64;

struct Inner {
    core: Arc<zlink_core::Runtime>,
    /// The runtime's clock when it is a manual one (near caches read it).
    manual: Option<zlink_core::ManualClock>,
    /// Runs the completions of asynchronous calls (made on first use; None
    /// once stopped).
    completions: Mutex<Completions>,
    /// Asynchronous calls whose completion has not returned yet.
    pending: Arc<AtomicUsize>,
}

#[derive(Default)]
enum Completions {
    #[default]
    NotStarted,
    Running(tokio::runtime::Runtime),
    Stopped,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Never waits: a host may drop the last reference anywhere (even
        // on a completion thread, or holding a lock a completion takes).
        let completions = self
            .completions
            .get_mut()
            .unwrap_or_else(|p| p.into_inner());
        if let Completions::Running(c) = std::mem::replace(completions, Completions::Stopped) {
            c.shutdown_background();
        }
    }
}

/// One counted completion: `run` calls the host's code (a panic in it is
/// reported, never unwound into the pool); dropping it, run or not (a
/// task dropped with its pool), uncounts it.
struct Pending(Arc<AtomicUsize>);

impl Pending {
    fn run(self, f: impl FnOnce()) {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
            eprintln!("zlink: a panic unwound out of a completion");
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One MeshNode's routing core, as hosts call it. Thread-safe.
pub struct Runtime {
    inner: ForkBound<Inner>,
}

/// The fields a host may give to start a runtime.
#[derive(Default)]
pub struct Options {
    /// The routing config (default: the defaults).
    pub config: Option<RoutingConfig>,
    /// The store shared with other runtimes (default: a private one).
    pub store: Option<Arc<dyn zlink_core::LocationStore>>,
    /// The clock (default: the system's).
    pub clock: Option<Clock>,
    /// Threads of the store I/O pool (default 1).
    pub worker_threads: Option<usize>,
}

impl Runtime {
    /// Refuses to close this runtime from one of its own completion
    /// callbacks (`call` names the host's call): closing waits for those
    /// callbacks, so it would wait for itself. Closing another runtime
    /// there is allowed.
    pub fn may_close(&self, call: &str) -> Result<()> {
        let Ok(inner) = self.inner() else {
            return Ok(());
        };
        if COMPLETION_POOL_OF.get() == Arc::as_ptr(&inner.pending) as usize {
            return Err(Error::host(
                ErrorKind::WrongThread,
                format!("{call} cannot run inside one of this runtime's completion callbacks"),
            ));
        }
        Ok(())
    }

    /// Starts the runtime of one node.
    pub fn new(identity: NodeIdentity, options: Options) -> Result<Self> {
        let mut builder = zlink_core::Runtime::builder(identity);
        if let Some(c) = options.config {
            builder = builder.config(c);
        }
        if let Some(s) = options.store {
            builder = builder.store(s);
        }
        let manual = options
            .clock
            .as_ref()
            .and_then(|c| c.manual_clock().cloned());
        if let Some(c) = options.clock {
            builder = builder.clock(c.core());
        }
        if let Some(n) = options.worker_threads {
            if !(1..=MAX_WORKER_THREADS).contains(&n) {
                return Err(Error::input(
                    ErrorKind::OutOfRange,
                    format!("worker threads must be in 1..={MAX_WORKER_THREADS}, got {n}"),
                ));
            }
            builder = builder.worker_threads(n);
        }
        let core = Arc::new(builder.build()?);
        Ok(Runtime {
            inner: ForkBound::new(Inner {
                core,
                manual,
                completions: Mutex::new(Completions::NotStarted),
                pending: Arc::new(AtomicUsize::new(0)),
            }),
        })
    }

    #[inline]
    fn inner(&self) -> Result<&Inner> {
        self.inner.get()
    }

    /// The runtime's clock when it is a manual one.
    pub(crate) fn manual_clock(&self) -> Result<Option<zlink_core::ManualClock>> {
        Ok(self.inner()?.manual.clone())
    }

    /// The core runtime, or `Forked`.
    #[inline]
    pub fn core(&self) -> Result<&Arc<zlink_core::Runtime>> {
        Ok(&self.inner()?.core)
    }

    /// Stops the runtime: waits until every completion still running has
    /// returned, then stops their thread. In a forked child it only forgets
    /// the runtime.
    pub fn close(self) {
        self.stop();
    }

    /// `close` for a host that frees the runtime later: later
    /// `resolve_async` calls are refused (`Closed`), completions still
    /// running return first, then their thread and the core's store I/O
    /// threads stop. The host refuses other calls (`lifecycle::Closable`);
    /// one it let through would still run, its store call on a thread of
    /// its own.
    pub fn stop(&self) {
        let Ok(inner) = self.inner() else { return };
        let running = {
            let mut c = inner.completions.lock().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *c, Completions::Stopped)
        };
        while inner.pending.load(Ordering::SeqCst) != 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        if let Completions::Running(c) = running {
            c.shutdown_timeout(Duration::from_secs(5));
        }
        // The core's store I/O threads go now, not when the host's object
        // is collected.
        inner.core.shutdown();
    }

    fn key<'a>(&self, kind: impl Arg<ObjectKind>, id: impl Text<'a>) -> Result<KeyRef<'a>> {
        let kind = kind.get()?;
        let id = args::id(id)?;
        Ok(self.core()?.key(kind, id)?)
    }

    fn actor<'a>(&self, kind: impl Arg<ObjectKind>, id: impl Text<'a>) -> Result<ObjectKey> {
        let kind = kind.get()?;
        Ok(ObjectKey::new(kind, args::id(id)?)?)
    }

    /// This node.
    pub fn identity(&self) -> Result<NodeIdentity> {
        Ok(self.core()?.identity())
    }

    /// The config in force.
    pub fn config(&self) -> Result<RoutingConfig> {
        Ok(self.core()?.config())
    }

    /// Replaces the config (validated; the cache capacity may go down, or
    /// back up to the one at build).
    pub fn update_config(&self, config: RoutingConfig) -> Result<()> {
        Ok(self.core()?.update_config(config)?)
    }

    /// Cache only: a recent ReadyRoute or None. Never blocks.
    #[inline]
    pub fn lookup_cached<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Option<ReadyRoute>> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.lookup_cached(kind, id)?)
    }

    /// Resolves an ID: the cache, then the store (blocking).
    pub fn resolve<'a>(&self, kind: impl Arg<ObjectKind>, id: impl Text<'a>) -> Result<Resolved> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.resolve(kind, id)?.into())
    }

    /// Resolves an ID without blocking: `done` is called once, on the
    /// runtime's completion thread (never the caller's), cache hits too.
    pub fn resolve_async<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        done: impl FnOnce(Resolved) + Send + 'static,
    ) -> Result<()> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        let future = self.inner()?.core.resolve_async(kind, id)?;
        self.on_completion_thread(|runtime, finished| {
            let blocking = runtime.handle().clone();
            runtime.spawn(async move {
                let resolved = Resolved::from(future.await);
                // The host's code runs on a blocking thread, never on the
                // pool's async worker: a callback that waits for another
                // resolution must not stop the worker that completes it.
                blocking.spawn_blocking(move || finished.run(|| done(resolved)));
            });
        })
    }

    /// `lookup_cached` for IDs of one kind (checked by `args::ids`), under
    /// one handle check: `hit(i, route)` for each in order. The runtime's
    /// own cap is checked for every ID before any lookup, so a batch with
    /// a bad ID does nothing.
    #[inline]
    pub fn lookup_cached_many(
        &self,
        kind: impl Arg<ObjectKind>,
        ids: &[&str],
        mut hit: impl FnMut(usize, Option<&ReadyRoute>),
    ) -> Result<()> {
        let (kind, core) = (kind.get()?, self.core()?);
        fit(core, kind, ids)?;
        for (i, id) in ids.iter().enumerate() {
            prefetch_ahead(core, kind, ids, i);
            hit(i, core.lookup_cached(kind, id)?.as_ref());
        }
        Ok(())
    }

    /// `resolve` for IDs of one kind (checked by `args::ids`), checked as
    /// `lookup_cached_many` checks them: `done(i, answer)` for each, the
    /// hits at once and in order, then the misses. The misses' store reads
    /// all start before the call waits for them, so a batch of misses
    /// costs about one store round trip, not one per ID.
    #[inline]
    pub fn resolve_many(
        &self,
        kind: impl Arg<ObjectKind>,
        ids: &[&str],
        mut done: impl FnMut(usize, Answer<'_>),
    ) -> Result<()> {
        let (kind, core) = (kind.get()?, self.core()?);
        fit(core, kind, ids)?;
        let mut misses = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            prefetch_ahead(core, kind, ids, i);
            match core.lookup_cached(kind, id)? {
                Some(route) => done(i, Answer::Hit(&route)),
                None => misses.push((i, core.resolve_async(kind, id)?)),
            }
        }
        for (i, read) in misses {
            done(i, Answer::Read(wait(read).into()));
        }
        Ok(())
    }

    /// Runs `job` on a thread of the runtime's completion pool (never the
    /// caller's): how a host without futures of its own makes any blocking
    /// call asynchronous. `close` waits for it like for a completion.
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) -> Result<()> {
        self.on_completion_thread(|runtime, finished| {
            runtime.spawn_blocking(move || finished.run(job));
        })
    }

    /// Hands the completion pool (made on first use) and a pending count
    /// to `start`, or refuses once the runtime is stopped.
    fn on_completion_thread(
        &self,
        start: impl FnOnce(&tokio::runtime::Runtime, Pending),
    ) -> Result<()> {
        let inner = self.inner()?;
        let mut completions = inner.completions.lock().unwrap_or_else(|p| p.into_inner());
        if let Completions::NotStarted = *completions {
            let pool = Arc::as_ptr(&inner.pending) as usize;
            let made = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .max_blocking_threads(MAX_BLOCKING_THREADS)
                .thread_name("zlink-callback")
                .on_thread_start(move || {
                    COMPLETION_POOL_OF.set(pool);
                    if let Some(hooks) = THREAD_HOOKS.get() {
                        (hooks.start)();
                    }
                })
                .on_thread_stop(|| {
                    if let Some(hooks) = THREAD_HOOKS.get() {
                        (hooks.stop)();
                    }
                })
                .enable_time()
                .build()
                .map_err(|e| {
                    Error::host(ErrorKind::Threads, format!("cannot start a thread: {e}"))
                })?;
            *completions = Completions::Running(made);
        }
        let Completions::Running(runtime) = &*completions else {
            return Err(Error::closed("runtime"));
        };
        // Counted under the lock, so `stop` (which swaps the state under it
        // first) never misses a completion it must wait for.
        inner.pending.fetch_add(1, Ordering::SeqCst);
        start(runtime, Pending(inner.pending.clone()));
        Ok(())
    }

    /// The lifecycle `lease` of node `rid` ended: drops its cached routes.
    pub fn on_owner_lease_invalidated(&self, rid: u64, lease: u64) -> Result<usize> {
        Ok(self
            .core()?
            .on_owner_lease_invalidated(NodeRid(rid), OwnerLeaseGeneration(lease)))
    }

    /// A store recovery event: clears the route cache.
    pub fn on_store_recovery(&self) -> Result<usize> {
        Ok(self.core()?.on_store_recovery())
    }

    /// A relay notification given directly: drops the ID's cached route
    /// only if it routes to `source`.
    pub fn on_relay_notification<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        source: &RouteEnd,
    ) -> Result<bool> {
        let key = self.key(kind, id)?;
        Ok(self.core()?.on_relay_notification(key, source))
    }

    /// One of the lifecycle writes (`Runtime::create`, `activate`, …).
    pub fn write<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        write: Write,
    ) -> Result<OwnedObject> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        let rt = self.core()?;
        Ok(match write {
            Write::Create => rt.create(kind, id),
            Write::PublishReady => rt.publish_ready(kind, id),
            Write::Activate => rt.activate(kind, id),
            Write::RenewLease => rt.renew_lease(kind, id),
            Write::BeginRelease => rt.begin_release(kind, id),
        }?)
    }

    /// Completes a release: the record is removed, the ID resolves Missing.
    pub fn complete_release<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<()> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.complete_release(kind, id)?)
    }

    /// This node's tenure of an object it owns, if it owns it.
    pub fn owner_route_end<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Option<RouteEnd>> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.owner_route_end(kind, id)?)
    }

    /// What this node owns for the ID, if anything.
    pub fn owned<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Option<OwnedObject>> {
        let key = self.key(kind, id)?;
        Ok(self.core()?.owned(key))
    }

    /// How many objects this node owns.
    pub fn owned_count(&self) -> Result<usize> {
        Ok(self.core()?.owned_count())
    }

    /// Sends a one-way message by global ID.
    pub fn send<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        payload: &[u8],
        options: SendOptions,
    ) -> Result<Sent> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.send(kind, id, payload, options)?.into())
    }

    /// Sends a request (on behalf of a Spot execution `options.origin`).
    pub fn request<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        payload: &[u8],
        options: RequestOptions,
    ) -> Result<Sent> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.request(kind, id, payload, options)?.into())
    }

    /// Refuses what `send` refuses for this input, in the same order,
    /// without sending: a host that answers later (a future) refuses bad
    /// input at the call with it.
    pub fn check_send<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        payload_len: usize,
        options: SendOptions,
    ) -> Result<()> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.check_send(kind, id, payload_len, options)?)
    }

    /// Refuses what `request` refuses for this input, without sending.
    pub fn check_request<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        payload_len: usize,
        options: &RequestOptions,
    ) -> Result<()> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.check_request(kind, id, payload_len, options)?)
    }

    /// Cancels a pending request: its `Completed` decision, or None if it
    /// had already ended.
    pub fn cancel(&self, correlation: u64) -> Result<Option<Inbound>> {
        Ok(self
            .core()?
            .cancel(CorrelationId(correlation))
            .map(Inbound::Completed))
    }

    /// Ends every pending request with Shutdown: one `Completed` each.
    pub fn shutdown_requests(&self) -> Result<Vec<Inbound>> {
        let done = self.core()?.shutdown_requests();
        Ok(done.into_iter().map(Inbound::Completed).collect())
    }

    /// Requests waiting for their result.
    pub fn pending_requests(&self) -> Result<usize> {
        Ok(self.core()?.pending_requests())
    }

    /// What to do with one frame from the connection to node `from`.
    pub fn on_frame(&self, from: u64, bytes: &[u8]) -> Result<Inbound> {
        check_frame(bytes.len())?;
        Ok(self.core()?.on_frame(NodeRid(from), bytes))
    }

    /// `on_frame` behind a manual peer connection's admission fence.
    pub fn on_peer_frame(&self, endpoint: &str, bytes: &[u8]) -> Result<Inbound> {
        check_frame(bytes.len())?;
        Ok(self.core()?.on_peer_frame(endpoint, bytes))
    }

    /// Reports whether a Relay's notification was sent.
    pub fn notice_settled(&self, token: Option<&NoticeToken>, sent: bool) -> Result<()> {
        let token = token
            .ok_or_else(|| Error::input(ErrorKind::NoNotice, "the decision has no notification"))?;
        self.core()?.notice_settled(token, sent);
        Ok(())
    }

    /// Answers a delivered request on its reply route: exactly one of a
    /// `payload` or an `error` (kind, application code, message).
    pub fn reply<'a>(
        &self,
        operation: Option<&Operation>,
        payload: Option<&[u8]>,
        error: Option<(CoreReplyErrorKind, u32, impl Text<'a>)>,
    ) -> Result<zlink_core::Outbound> {
        let operation = operation.ok_or_else(|| {
            Error::input(
                ErrorKind::NotADelivery,
                "the decision is not a delivered operation",
            )
        })?;
        let rt = self.core()?;
        let max = rt.config().max_message_bytes;
        let result = match (payload, error) {
            (Some(p), None) => {
                // Bounded before it is copied, with the core's error.
                if p.len() > max {
                    return Err(ReplyRouteError::TooLarge { len: p.len(), max }.into());
                }
                ReplyResult::Ok(p.to_vec())
            }
            (None, Some((kind, code, message))) => {
                // Bounded before it is read.
                if message.byte_len() > MAX_ERROR_MESSAGE_BYTES {
                    let e = format!(
                        "error message is {} bytes, over {MAX_ERROR_MESSAGE_BYTES}",
                        message.byte_len()
                    );
                    return Err(Error::new(
                        crate::error::Family::ReplyRoute,
                        ErrorKind::TooLarge,
                        e,
                    ));
                }
                ReplyResult::Error(ReplyError {
                    kind,
                    code,
                    message: message.text("error message")?.to_owned(),
                })
            }
            _ => {
                return Err(Error::input(
                    ErrorKind::ReplyShape,
                    "give exactly one of payload or error_kind",
                ));
            }
        };
        Ok(rt.reply(operation, result)?)
    }

    /// The runtime's clock now (ns).
    pub fn now(&self) -> Result<u64> {
        Ok(self.core()?.now().0)
    }

    /// The earliest instant (ns) a deadline needs waking at, if any.
    pub fn next_deadline(&self) -> Result<Option<u64>> {
        Ok(self.core()?.next_deadline().map(|t| t.0))
    }

    /// Runs every deadline due at `now_ns` (None: the clock's now).
    pub fn on_timeout(&self, now_ns: Option<u64>) -> Result<Vec<Inbound>> {
        let rt = self.core()?;
        let now = now_ns.map_or_else(|| rt.now(), MonoTime);
        Ok(rt.on_timeout(now))
    }

    /// Every metric family now: the counters, then the latency histograms.
    pub fn metrics(&self) -> Result<Vec<crate::surface::MetricFamily>> {
        Ok(crate::metrics::families(&self.core()?.stats()))
    }

    /// Every metric in the Prometheus text exposition format (what a
    /// scrape of `/metrics` answers).
    pub fn metrics_text(&self) -> Result<String> {
        Ok(crate::metrics::prometheus_text(&self.metrics()?))
    }

    /// Every counter, read now, in the list's order.
    pub fn stats(&self) -> Result<Vec<Counter>> {
        Ok(counters(&self.core()?.stats()))
    }

    // ---- sessions (spec §3) -------------------------------------------

    /// Opens a Session owned by this runtime.
    pub fn open_session(&self, id: u64, generation: u64) -> Result<SessionRef> {
        Ok(self
            .core()?
            .open_session(SessionId(id), SessionGeneration(generation)))
    }

    /// Binds (or rebinds) `session` to the Actor at `location`.
    pub fn bind<'a>(
        &self,
        session: u64,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        location: ActorRoute,
    ) -> Result<zlink_core::Outbound> {
        let actor_ref = ActorRef {
            actor: self.actor(kind, id)?,
            route: location,
        };
        Ok(self.core()?.bind(SessionId(session), &actor_ref)?)
    }

    /// The stored binding route of an Actor in `session`.
    pub fn binding<'a>(
        &self,
        session: u64,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Option<BindingRoute>> {
        let actor = self.actor(kind, id)?;
        Ok(self.core()?.binding(SessionId(session), &actor))
    }

    /// Relays `payload` from `session` to the bound Actor.
    pub fn session_send<'a>(
        &self,
        session: u64,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        payload: &[u8],
    ) -> Result<SessionSent> {
        let actor = self.actor(kind, id)?;
        Ok(self
            .core()?
            .session_send(SessionId(session), &actor, payload)?
            .into())
    }

    /// The Session's connection closed or the application ended it.
    pub fn disconnect_session(
        &self,
        session: u64,
        physical: bool,
    ) -> Result<Vec<zlink_core::Outbound>> {
        Ok(self
            .core()?
            .disconnect_session(SessionId(session), physical)?)
    }

    /// Pushes `payload` from a local Actor to the bound `session`.
    pub fn push<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        session: &SessionRef,
        payload: &[u8],
    ) -> Result<Option<zlink_core::Outbound>> {
        let actor = self.actor(kind, id)?;
        Ok(self.core()?.push(&actor, session, payload)?)
    }

    /// Sessions bound to a local Actor.
    pub fn bound_sessions<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Vec<Registration>> {
        let actor = self.actor(kind, id)?;
        Ok(self.core()?.bound_sessions(&actor))
    }

    /// After a lease renewal: a command 44 refresh to every bound Session.
    pub fn refresh_session_routes<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Vec<zlink_core::Outbound>> {
        let actor = self.actor(kind, id)?;
        Ok(self.core()?.refresh_session_routes(&actor))
    }

    /// Drops every binding of a local Actor.
    pub fn forget_bindings<'a>(&self, kind: impl Arg<ObjectKind>, id: impl Text<'a>) -> Result<()> {
        let actor = self.actor(kind, id)?;
        self.core()?.forget_bindings(&actor);
        Ok(())
    }

    // ---- relocation (spec §3.3) -----------------------------------------

    /// Source: starts moving an object this runtime owns to the runtime
    /// `target_rid`/`target_generation` of its mesh. The checks run in the
    /// core's order (the ID, then the state's size, then the saved work),
    /// and before the host's bytes are read: `saved` is asked for the
    /// `saved_count` saved operations only when their count is allowed.
    #[allow(clippy::too_many_arguments)]
    pub fn begin_relocation<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
        target_rid: u64,
        target_generation: u64,
        saved_count: usize,
        saved: impl FnOnce() -> Result<Vec<Operation>>,
        state: &[u8],
    ) -> Result<RelocationStarted> {
        let key = self.key(kind, id)?.to_owned();
        let rt = self.core()?;
        let max = rt.config().max_relocation_state_bytes;
        if state.len() > max {
            let len = state.len();
            return Err(RelocationError::StateTooLarge { len, max }.into());
        }
        if saved_count > MAX_SAVED_OPERATIONS {
            let (len, max) = (saved_count, MAX_SAVED_OPERATIONS);
            return Err(RelocationError::TooManySaved { len, max }.into());
        }
        let target = NodeRef {
            mesh: rt.identity().mesh,
            rid: NodeRid(target_rid),
            generation: NodeGeneration(target_generation),
        };
        let capture = Capture {
            saved: saved()?,
            state: state.to_vec(),
        };
        Ok(rt.begin_relocation(key.kind(), key.id(), target, capture)?)
    }

    /// Target: the host built the object from the Restore's state.
    pub fn relocation_restored<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Vec<zlink_core::Outbound>> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.relocation_restored(kind, id)?)
    }

    /// Abandons a relocation before relay-ready, on either side.
    pub fn abort_relocation<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Inbound> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(Inbound::Relocation(
            self.core()?.abort_relocation(kind, id)?,
        ))
    }

    // ---- manual object peers (spec §2.3) --------------------------------

    /// Publishes this node's own object-peer descriptor.
    pub fn publish_descriptor(
        &self,
        endpoint: &str,
        security_identity: &str,
    ) -> Result<PeerDescriptor> {
        Ok(self
            .core()?
            .publish_descriptor(endpoint, security_identity)?)
    }

    /// Registers a manually configured endpoint (an intent only).
    pub fn add_manual_peer(&self, endpoint: &str) -> Result<()> {
        Ok(self.core()?.add_manual_peer(endpoint)?)
    }

    /// Looks up every manual endpoint's descriptor: replacements to do now.
    pub fn connect_manual_peers(&self) -> Result<Vec<PeerReplacement>> {
        Ok(self.core()?.connect_manual_peers()?)
    }

    /// Registers `endpoint` if needed and looks its descriptor up.
    pub fn ensure_manual_peer(&self, endpoint: &str) -> Result<Option<PeerReplacement>> {
        Ok(self.core()?.ensure_manual_peer(endpoint)?)
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    pub fn peer_opened(&self, endpoint: &str, rid: u64) -> Result<()> {
        Ok(self.core()?.peer_opened(endpoint, NodeRid(rid))?)
    }

    /// The transport confirmed `endpoint` closed.
    pub fn peer_closed(&self, endpoint: &str) -> Result<Option<PeerReplacement>> {
        Ok(self.core()?.peer_closed(endpoint)?)
    }

    /// The intent, observed routing ID and close state of `endpoint`.
    pub fn peer_intent(&self, endpoint: &str) -> Result<Option<PeerIntent>> {
        Ok(self.core()?.peer_intent(endpoint))
    }

    /// Where to reach node `rid`, only through an installed descriptor.
    pub fn peer_endpoint(&self, rid: u64) -> Result<Option<String>> {
        Ok(self
            .core()?
            .peer_endpoint(NodeRid(rid))
            .map(|e| e.as_str().to_owned()))
    }
}

/// The lifecycle writes `Runtime::write` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// A new incarnation owned by this node, in Creating.
    Create,
    /// This node's Creating object becomes Ready.
    PublishReady,
    /// Create, then publish Ready.
    Activate,
    /// Extends this node's owner lease.
    RenewLease,
    /// Starts releasing: the ID resolves Unavailable(Releasing).
    BeginRelease,
}

/// One answer of [`Runtime::resolve_many`].
pub enum Answer<'r> {
    /// A cache hit: the route as the cache gave it (no flat copy).
    Hit(&'r ReadyRoute),
    /// A miss, read from the store.
    Read(Resolved),
}

/// How many IDs ahead a batch prefetches the cache entries it will read,
/// so the CPU cache misses of consecutive lookups overlap.
const PREFETCH_AHEAD: usize = 4;

/// The runtime's own cap, checked for every ID of a batch before any is
/// used (the error names the first bad one's index).
fn fit(core: &zlink_core::Runtime, kind: ObjectKind, ids: &[&str]) -> Result<()> {
    for (i, id) in ids.iter().enumerate() {
        core.key(kind, id).map_err(|e| args::at(i, e.into()))?;
    }
    Ok(())
}

#[inline]
fn prefetch_ahead(core: &zlink_core::Runtime, kind: ObjectKind, ids: &[&str], i: usize) {
    if let Some(ahead) = ids.get(i + PREFETCH_AHEAD) {
        core.prefetch_cached(kind, ahead);
    }
}

/// Waits on the calling thread for a future that other threads drive (a
/// store read spawned on the runtime's pool). A condition variable, not
/// `thread::park`: a thread handle would be allocated for a host's thread
/// (a C thread) and never freed.
fn wait<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Condvar;
    use std::task::{Context, Poll, Wake, Waker};
    #[derive(Default)]
    struct Signal {
        woken: Mutex<bool>,
        cv: Condvar,
    }
    impl Wake for Signal {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            *self.woken.lock().unwrap_or_else(|p| p.into_inner()) = true;
            self.cv.notify_one();
        }
    }
    let signal = Arc::new(Signal::default());
    let waker = Waker::from(signal.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        let mut woken = signal.woken.lock().unwrap_or_else(|p| p.into_inner());
        while !*woken {
            woken = signal.cv.wait(woken).unwrap_or_else(|p| p.into_inner());
        }
        *woken = false;
    }
}

/// Refuses a frame of `len` bytes that `on_frame` refuses by its length
/// alone (longer than the largest payload plus headers), before it is read:
/// a host that hands frames on later refuses it at the call.
pub fn check_frame(len: usize) -> Result<()> {
    if len > MAX_FRAME_BYTES {
        return Err(Error::input(
            ErrorKind::FrameTooLong,
            format!("frame is {len} bytes, over the {MAX_FRAME_BYTES}-byte bound"),
        ));
    }
    Ok(())
}

/// A request's origin: the Spot execution that starts it.
pub fn spot_execution<'a>(spot: impl Text<'a>, generation: u64) -> Result<SpotExecution> {
    Ok(SpotExecution {
        spot: ObjectKey::new(ObjectKind::Spot, args::id(spot)?)?,
        object_generation: zlink_core::ObjectGeneration(generation),
    })
}

/// The route a bind starts from when the host has the owner's tenure (a
/// `RouteEnd`, as `owner_route_end` hands it out).
pub fn actor_route(end: &RouteEnd) -> ActorRoute {
    ActorRoute {
        owner: end.node,
        object_generation: end.fence.object_generation,
        authority_owner_generation: end.fence.authority_owner_generation,
        owner_lease_generation: end.fence.owner_lease_generation,
        lease_remaining_ms: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::ResolutionTag;
    use crate::setup::{Store, identity};

    fn runtime(rid: u64, store: &Store) -> Runtime {
        let options = Options {
            store: Some(store.get().expect("store")),
            ..Options::default()
        };
        Runtime::new(identity("m", rid, 1, rid).expect("identity"), options).expect("runtime")
    }

    #[test]
    fn batches_answer_every_id_in_place_and_refuse_a_bad_one_whole() {
        let store = Store::memory(None, None);
        let (owner, sender) = (runtime(1, &store), runtime(2, &store));
        owner
            .write(ObjectKind::Actor, "a", Write::Activate)
            .expect("a");
        owner
            .write(ObjectKind::Actor, "c", Write::Activate)
            .expect("c");
        let ids = args::ids(["a", "b", "c"].map(Ok)).expect("ids");

        let mut tags = Vec::new();
        let read = |i, answer: Answer<'_>| match answer {
            Answer::Hit(_) => tags.push((i, "hit")),
            Answer::Read(r) => tags.push((
                i,
                if r.tag == ResolutionTag::ReadyRoute {
                    "read"
                } else {
                    "missing"
                },
            )),
        };
        sender
            .resolve_many(ObjectKind::Actor, &ids, read)
            .expect("resolve_many");
        tags.sort();
        assert_eq!(tags, [(0, "read"), (1, "missing"), (2, "read")]);

        let mut found = Vec::new();
        let hit = |i, route: Option<&ReadyRoute>| found.push((i, route.is_some()));
        sender
            .lookup_cached_many(ObjectKind::Actor, &ids, hit)
            .expect("lookup_cached_many");
        assert_eq!(found, [(0, true), (1, false), (2, true)]);

        let e = args::ids([Ok("a"), Err(args::missing("object id"))]).expect_err("NULL");
        assert_eq!(e.message, "ids[1]: object id is NULL");
        let mut config = sender.config().expect("config");
        config.max_object_id_bytes = 1;
        sender.update_config(config).expect("config");
        let e = sender
            .lookup_cached_many(ObjectKind::Actor, &["a", "bb"], |_, _| panic!("looked up"))
            .expect_err("over the cap");
        assert!(e.message.starts_with("ids[1]: "), "{}", e.message);
    }
}
