//! Runtimes, stores and clocks: creation, resolution, invalidation, the
//! lifecycle writes and counters.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Once};

use zlink_bridge::args::Arg;
use zlink_bridge::args::missing;
use zlink_bridge::stats::C_COUNTERS;
use zlink_bridge::{Clock, Code, Error, ErrorKind, Options, Store, Write, setup};
use zlink_core::{MAX_OBJECT_ID_BYTES, ObjectKind, RedisOptions, RoutingConfig};

use crate::FfiResult;
use crate::types::*;
use zlink_bridge::handles::{Pinned, Registry};

/// A runtime: the routing core of one MeshNode. Opaque; made by
/// `zlink_runtime_new`, freed by `zlink_runtime_free`.
pub struct zlink_runtime {
    _opaque: [u8; 0],
}

/// A Location Store that runtimes share: memory (one process) or Redis.
/// Opaque; freed by `zlink_store_free` (runtimes using it keep it alive).
pub struct zlink_store {
    _opaque: [u8; 0],
}

/// A clock: the system's, or a manual one that moves only when advanced.
/// Opaque; freed by `zlink_clock_free` (runtimes and stores keep it alive).
pub struct zlink_clock {
    _opaque: [u8; 0],
}

static RUNTIMES: Registry<zlink_bridge::Runtime> = Registry::new(0x3);
static STORES: Registry<Store> = Registry::new(0x5);
static CLOCKS: Registry<Clock> = Registry::new(0x7);

#[inline]
pub(crate) fn runtime_in(
    rt: *const zlink_runtime,
) -> FfiResult<Pinned<'static, zlink_bridge::Runtime>> {
    RUNTIMES.pin(rt as usize, "runtime")
}

/// An object kind: the two known codes at once, else the bridge's check
/// and error.
#[inline]
fn kind_in(kind: u32) -> FfiResult<ObjectKind> {
    const SPOT: u32 = zlink_bridge::codes::ObjectKind::Spot as u32;
    const ACTOR: u32 = zlink_bridge::codes::ObjectKind::Actor as u32;
    match kind {
        SPOT => Ok(ObjectKind::Spot),
        ACTOR => Ok(ObjectKind::Actor),
        other => Arg::get(other),
    }
}

/// An object ID's bytes as text, with the bridge's checks and errors
/// (`args::id`), but the common ID (ASCII, at most the absolute maximum
/// length) is recognised with one word-at-a-time pass instead of a full
/// UTF-8 decode: the cache-hit calls are a few tens of nanoseconds.
#[inline]
fn id_text(id: &[u8]) -> FfiResult<&str> {
    if id.len() <= MAX_OBJECT_ID_BYTES && id.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(id) });
    }
    zlink_bridge::args::id(id)
}

/// Registers `value` and writes its handle to `out`.
pub(crate) fn handle_out<T: Send + Sync, H>(
    registry: &Registry<T>,
    value: T,
    out: Out<*mut H>,
    what: &str,
) -> FfiResult {
    let h = registry.register(value, what)?;
    // Handles are not addresses: C only compares and passes them back.
    out.put(std::ptr::without_provenance_mut(h));
    Ok(())
}

/// The bridge's fork rule for C hosts: a child of `fork()` learns it here.
fn watch_forks() {
    unsafe extern "C" {
        fn pthread_atfork(
            prepare: Option<unsafe extern "C" fn()>,
            parent: Option<unsafe extern "C" fn()>,
            child: Option<unsafe extern "C" fn()>,
        ) -> std::ffi::c_int;
    }
    unsafe extern "C" fn child() {
        zlink_bridge::lifecycle::after_fork_in_child();
    }
    static ONCE: Once = Once::new();
    // SAFETY: registers a handler that only bumps an atomic counter, which
    // is async-signal-safe, as a child handler must be.
    ONCE.call_once(|| unsafe {
        pthread_atfork(None, None, Some(child));
    });
}

fn clock_in(clock: *const zlink_clock) -> FfiResult<Pinned<'static, Clock>> {
    CLOCKS.pin(clock as usize, "clock")
}

/// The clock of a handle; NULL: the system clock.
fn clock_of(clock: *const zlink_clock) -> FfiResult<Clock> {
    if clock.is_null() {
        return Ok(Clock::system());
    }
    Ok(clock_in(clock)?.clone())
}

// ---------------------------------------------------------------- clocks

entry! {
    /// Makes a handle on the system's monotonic clock.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_clock_system_new(out: *mut *mut zlink_clock) {
        handle_out(&CLOCKS, Clock::system(), Out::new(out, "out")?, "clock")
    }

    /// Makes a manual clock at time 0: it moves only by
    /// `zlink_manual_clock_advance`. Tests drive time with it and never sleep.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_clock_manual_new(out: *mut *mut zlink_clock) {
        handle_out(&CLOCKS, Clock::manual(), Out::new(out, "out")?, "clock")
    }

    /// Moves a manual clock forward by `millis`. `ZLINK_RESULT_INVALID_ARGUMENT`
    /// for a system clock.
    ///
    /// # Safety
    /// `error` is NULL or writable. `clock` may be anything: it is checked.
    ///
    /// Thread-safety: any thread, concurrently with every other call.
    fn zlink_manual_clock_advance(clock: *const zlink_clock, millis: u64) {
        clock_in(clock)?.advance(millis)
    }

    /// The clock's current time in nanoseconds since its origin (the unit of
    /// every `*_deadline_ns` field).
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_clock_now_ns(clock: *const zlink_clock, out: *mut u64) {
        let out = Out::new(out, "out")?;
        out.put(clock_in(clock)?.now_ns());
        Ok(())
    }

    /// Frees a clock handle. Runtimes and stores made with it keep the clock.
    /// A freed or foreign handle is `ZLINK_RESULT_INVALID_HANDLE`; NULL is a
    /// no-op returning `ZLINK_RESULT_OK`.
    ///
    /// # Safety
    /// `error` is NULL or writable.
    ///
    /// Thread-safety: any thread; later uses of the handle fail.
    fn zlink_clock_free(clock: *mut zlink_clock) {
        CLOCKS.free(clock as usize, "clock").map(drop)
    }
}

// ---------------------------------------------------------------- stores

entry! {
    /// Makes an embedded in-memory Location Store, shared by every runtime of
    /// this process given the handle. Its time (leases) comes from `clock`
    /// (NULL: the system clock); give it the runtimes' manual clock in tests.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_store_memory_new(clock: *const zlink_clock, out: *mut *mut zlink_store) {
        let out = Out::new(out, "out")?;
        watch_forks();
        let store = Store::memory(Some(&clock_of(clock)?), None);
        handle_out(&STORES, store, out, "store")
    }

    /// Connects to a Redis (`redis://`, `rediss://`), Redis Cluster
    /// (`redis+cluster://h1:p1,h2:p2`) or Sentinel-managed
    /// (`redis+sentinel://h1:p1,h2:p2/master-name`, `rediss+sentinel://`)
    /// Location Store. `key_prefix` may be NULL (default `zlink`). Blocks
    /// until connected or the connect timeout (2 s).
    ///
    /// # Safety
    /// `url` and a non-NULL `key_prefix` are NUL-terminated; `out` is writable.
    fn zlink_store_redis_open(url: *const c_char, key_prefix: *const c_char,
        out: *mut *mut zlink_store) {
        // SAFETY: forwarded contract; NULL options are the defaults.
        unsafe { redis_open(url, key_prefix, std::ptr::null(), out) }
    }

    /// Writes the default Redis store options to `out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_redis_options_default(out: *mut zlink_redis_options) {
        Out::new(out, "out")?.put((&RedisOptions::default()).into());
        Ok(())
    }

    /// `zlink_store_redis_open` with `options` (NULL: the defaults), from
    /// `zlink_redis_options_default`. A struct of another size is
    /// `ZLINK_RESULT_INVALID_CONFIG`; a zero timeout or check interval, an
    /// unknown `write_acks_mode`, a `write_acks_replicas` of 0, or more
    /// replicas than a primary of the deployment has is
    /// `ZLINK_RESULT_INVALID_ARGUMENT` of kind `Config`, as a bad URL is.
    ///
    /// # Safety
    /// `url` and a non-NULL `key_prefix` are NUL-terminated; a non-NULL
    /// `options` points to at least a `size` field, and to a whole
    /// `zlink_redis_options` when that field says so; `out` is writable.
    fn zlink_store_redis_open_with(url: *const c_char, key_prefix: *const c_char,
        options: *const zlink_redis_options, out: *mut *mut zlink_store) {
        // SAFETY: forwarded contract.
        unsafe { redis_open(url, key_prefix, options, out) }
    }

    /// Frees a store handle; runtimes using the store keep it until they are
    /// freed. NULL is a no-op; a freed or foreign handle is an error.
    ///
    /// # Safety
    /// `error` is NULL or writable.
    ///
    /// Thread-safety: any thread; later uses of the handle fail.
    fn zlink_store_free(store: *mut zlink_store) {
        STORES.free(store as usize, "store").map(drop)
    }
}

/// Opens a Redis store for the two entry points.
///
/// # Safety
/// As `zlink_store_redis_open_with`.
unsafe fn redis_open(
    url: *const c_char,
    key_prefix: *const c_char,
    options: *const zlink_redis_options,
    out: *mut *mut zlink_store,
) -> FfiResult {
    let out = Out::new(out, "out")?;
    // SAFETY: NUL-terminated by contract.
    let url = unsafe { text_in(url, "url") }?;
    let prefix = if key_prefix.is_null() {
        None
    } else {
        // SAFETY: NUL-terminated by contract.
        Some(unsafe { text_in(key_prefix, "key_prefix") }?)
    };
    let options = if options.is_null() {
        zlink_redis_options::from(&RedisOptions::default())
    } else {
        // SAFETY: the caller's contract, size checked first.
        unsafe {
            sized_in(
                options,
                "zlink_redis_options",
                "zlink_redis_options_default",
            )
        }?
    };
    watch_forks();
    handle_out(
        &STORES,
        Store::redis(url, options.to_core(prefix)?)?,
        out,
        "store",
    )
}

// ---------------------------------------------------------------- runtime

entry! {
    /// Writes the default config to `out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_config_default(out: *mut zlink_config) {
        Out::new(out, "out")?.put((&RoutingConfig::default()).into());
        Ok(())
    }
}

/// Reads a caller's config: its `size` first, so a struct of another size
/// is refused before the rest is read.
///
/// # Safety
/// `config` is NULL or points to at least a `size` field, and to a whole
/// initialised `zlink_config` when that field says so.
unsafe fn config_in(config: *const zlink_config) -> FfiResult<RoutingConfig> {
    if config.is_null() {
        return Err(missing("config"));
    }
    // SAFETY: the caller's contract.
    unsafe { sized_in(config, "zlink_config", "zlink_config_default") }?.to_core()
}

/// A struct whose first field is its `size` (set by `default`): read once
/// that size is found to be this library's.
///
/// # Safety
/// `value` is non-NULL and points to at least a `usize` `size` field, and
/// to a whole `T` when that field says so.
unsafe fn sized_in<T: Copy>(value: *const T, name: &str, default: &str) -> FfiResult<T> {
    // SAFETY: the caller's contract: the leading `size` is readable.
    let size = unsafe { value.cast::<usize>().read_unaligned() };
    let ours = std::mem::size_of::<T>();
    if size != ours {
        return Err(Error::new(
            zlink_bridge::Family::Config,
            ErrorKind::ConfigSize,
            format!("{name} size is {size}, not sizeof({name}) = {ours}: start from {default}"),
        ));
    }
    // SAFETY: a whole `T`, as its size says.
    Ok(unsafe { value.read_unaligned() })
}

entry! {
    /// Replaces the config of a running runtime (validated first; nothing is
    /// changed on `ZLINK_RESULT_INVALID_CONFIG`). Existing cache entries and
    /// Message Follow routes keep the lifetime they were given; the cache
    /// capacity is fixed at creation (`route_cache_capacity` is ignored here).
    ///
    /// # Safety
    /// `config` points to a `zlink_config` from `zlink_config_default` or
    /// `zlink_config_get`.
    fn zlink_update_config(rt: *const zlink_runtime, config: *const zlink_config) {
        // SAFETY: NULL or an initialised struct (the caller's contract).
        let config = unsafe { config_in(config) }?;
        runtime_in(rt)?.update_config(config)
    }

    /// Writes the config in force to `*out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_config_get(rt: *const zlink_runtime, out: *mut zlink_config) {
        let out = Out::new(out, "out")?;
        out.put((&runtime_in(rt)?.config()?).into());
        Ok(())
    }

    /// Starts the runtime of one node.
    ///
    /// - `identity`: required; `identity->mesh` NUL-terminated, 1..=23 bytes.
    /// - `config`: NULL for the defaults; validated (`ZLINK_RESULT_INVALID_CONFIG`).
    /// - `store`: NULL for a private in-memory store; share one store handle
    ///   between runtimes to let them see each other's objects.
    /// - `clock`: NULL for the system clock.
    ///
    /// # Safety
    /// `identity`, `config` (if not NULL) point to initialised structs; `out` is
    /// writable.
    ///
    /// Thread-safety: any thread. The runtime itself may be used from any
    /// number of threads at once.
    fn zlink_runtime_new(identity: *const zlink_node_identity, config: *const zlink_config,
        store: *const zlink_store, clock: *const zlink_clock, out: *mut *mut zlink_runtime) {
        let out = Out::new(out, "out")?;
        // SAFETY: NULL or an initialised struct (the caller's contract).
        let id = unsafe { identity.as_ref() }.ok_or_else(|| missing("identity"))?;
        // SAFETY: as above.
        let mesh = unsafe { text_in(id.mesh, "identity.mesh") }?;
        let identity = setup::identity(mesh, id.rid, id.generation, id.lease)?;
        let mut options = Options {
            clock: Some(clock_of(clock)?),
            ..Options::default()
        };
        if !config.is_null() {
            // SAFETY: an initialised struct (the caller's contract).
            options.config = Some(unsafe { config_in(config) }?);
        }
        if !store.is_null() {
            let s = STORES.pin(store as usize, "store")?;
            options.store = Some(s.get()?);
        }
        watch_forks();
        let rt = zlink_bridge::Runtime::new(identity, options)?;
        handle_out(&RUNTIMES, rt, out, "runtime")
    }

    /// Stops and frees a runtime. Calls in progress on other threads finish
    /// first; asynchronous resolutions still pending complete (their callbacks
    /// run) before this returns. Later uses of the handle return
    /// `ZLINK_RESULT_INVALID_HANDLE`. NULL is a no-op.
    ///
    /// # Safety
    /// `error` is NULL or writable.
    ///
    /// Thread-safety: any thread except one of this runtime's completion
    /// callbacks (`ZLINK_RESULT_WRONG_THREAD`).
    fn zlink_runtime_free(rt: *mut zlink_runtime) {
        if let Ok(live) = RUNTIMES.get(rt as usize) {
            live.may_close("zlink_runtime_free")?;
        }
        if let Some(entry) = RUNTIMES.free(rt as usize, "runtime")? {
            // Only the registry holds runtimes: this is the last reference.
            if let Ok(rt) = Arc::try_unwrap(entry) {
                rt.close();
            }
        }
        Ok(())
    }

    /// Resolves a global ID, blocking on the store on a cache miss (bounded by
    /// the config's `store_timeout_ms`). A cache hit never touches the store.
    /// `id` is `id_len` bytes of UTF-8 (1..=max_object_id_bytes).
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is writable.
    fn zlink_resolve(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_resolution) {
        let out = Out::new(out, "out")?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let rt = runtime_in(rt)?;
        let (kind, id) = (kind_in(kind)?, id_text(id)?);
        // A hit is written from the route itself: no flat `Resolved` copy.
        let resolution = match cached(rt.core()?, kind, id)? {
            Some(route) => zlink_resolution::ready(&route),
            None => (&rt.resolve(kind, id)?).into(),
        };
        out.put(resolution);
        Ok(())
    }

    /// The cache-only lookup: never blocks, never reads the store. On
    /// `ZLINK_RESULT_OK`, `*found` says whether a route was cached, and
    /// `*route` is written only when it was.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `route` and `found` are writable.
    fn zlink_lookup_cached(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        route: *mut zlink_ready_route, found: *mut bool) {
        let (route, found) = (Out::new(route, "route")?, Out::new(found, "found")?);
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let rt = runtime_in(rt)?;
        let (kind, id) = (kind_in(kind)?, id_text(id)?);
        match cached(rt.core()?, kind, id)? {
            Some(hit) => {
                route.put((&hit).into());
                found.put(true);
            }
            None => found.put(false),
        }
        Ok(())
    }
}

/// The core's cache lookup, kept out of line (as it was before the core's
/// lookup was inlined into its callers): inlined whole into a single-call
/// entry point, a hit cost 96 ns instead of 65-70 (measured; the route built
/// by the lookup and read back for its C form stalls on store forwarding).
#[inline(never)]
fn cached(
    core: &zlink_core::Runtime,
    kind: ObjectKind,
    id: &str,
) -> Result<Option<zlink_core::ReadyRoute>, zlink_core::InputError> {
    core.lookup_cached(kind, id)
}

/// How many IDs ahead a batch prefetches the cache entries it will read,
/// so the cache misses of consecutive lookups overlap.
const PREFETCH_AHEAD: usize = 4;

/// One object ID of a batch: `len` bytes of UTF-8 at `ptr` (no NUL
/// needed), as the single calls take `(id, id_len)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zlink_str {
    /// The bytes.
    pub ptr: *const u8,
    /// How many.
    pub len: usize,
}

/// Borrows the `n` IDs of a batch and checks each (NULL, length, UTF-8)
/// before anything is looked up, so a batch with a bad ID writes nothing;
/// the error names the first bad ID's index.
///
/// # Safety
/// `ids` is NULL (only when `n` is 0) or points to `n` readable
/// `zlink_str`s, each pointing to `len` readable bytes; none changes
/// during the call.
unsafe fn ids_in<'a>(ids: *const zlink_str, n: usize) -> FfiResult<Vec<&'a str>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if ids.is_null() {
        return Err(missing("ids"));
    }
    // SAFETY: `n` readable `zlink_str`s (the caller's contract).
    let ids = unsafe { std::slice::from_raw_parts(ids, n) };
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            // SAFETY: `len` readable bytes (the caller's contract).
            unsafe { id_in(id.ptr, id.len) }
                .and_then(id_text)
                .map_err(|mut e| {
                    e.message = format!("ids[{i}]: {}", e.message);
                    e
                })
        })
        .collect()
}

/// The runtime's own check of every ID of a batch (its configured
/// maximum length), before anything is written.
fn ids_fit(core: &zlink_core::Runtime, kind: ObjectKind, ids: &[&str]) -> FfiResult {
    for (i, id) in ids.iter().enumerate() {
        core.key(kind, id).map_err(|e| {
            let mut e = Error::from(e);
            e.message = format!("ids[{i}]: {}", e.message);
            e
        })?;
    }
    Ok(())
}

/// `n` writable out-parameters of a batch (NULL only when `n` is 0).
fn outs_in<T>(out: *mut T, n: usize, what: &str) -> FfiResult<*mut T> {
    if out.is_null() && n > 0 {
        return Err(missing(what));
    }
    Ok(out)
}

/// Waits on the calling thread for a future that other threads drive (a
/// store read spawned on the runtime's pool). A condition variable, not
/// `thread::park`: a thread handle would be allocated for a C thread and
/// never freed.
fn wait<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::{Condvar, Mutex};
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
    // Boxed, not `pin!`: cbindgen's parser reads this crate expanded, and
    // `pin!` expands to syntax it does not know. One box per store read.
    let mut future = Box::pin(future);
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

entry! {
    /// `zlink_lookup_cached` for `n` IDs of one kind, under one handle
    /// check: never blocks, never reads the store. On `ZLINK_RESULT_OK`,
    /// `found[i]` says whether `ids[i]` had a cached route, and `routes[i]`
    /// is written only when it had. Every ID is checked first: a NULL, too
    /// long or non-UTF-8 ID fails the whole call (the error names its index)
    /// and writes nothing. `n` may be 0 (then the arrays may be NULL).
    ///
    /// # Safety
    /// `ids` points to `n` readable `zlink_str`s, each to `len` readable
    /// bytes; `routes` and `found` to `n` writable elements each.
    fn zlink_lookup_cached_many(rt: *const zlink_runtime, kind: u32, ids: *const zlink_str,
        n: usize, routes: *mut zlink_ready_route, found: *mut bool) {
        let (routes, found) = (outs_in(routes, n, "routes")?, outs_in(found, n, "found")?);
        let kind = kind_in(kind)?;
        // SAFETY: the caller's contract on `ids`.
        let ids = unsafe { ids_in(ids, n) }?;
        let rt = runtime_in(rt)?;
        let core = rt.core()?;
        ids_fit(core, kind, &ids)?;
        for (i, id) in ids.iter().enumerate() {
            if let Some(ahead) = ids.get(i + PREFETCH_AHEAD) {
                core.prefetch_cached(kind, ahead);
            }
            let hit = core.lookup_cached(kind, id)?;
            // SAFETY: `i < n`, and both arrays hold `n` writable elements.
            unsafe {
                if let Some(route) = &hit {
                    routes.add(i).write(route.into());
                }
                found.add(i).write(hit.is_some());
            }
        }
        Ok(())
    }

    /// `zlink_resolve` for `n` IDs of one kind: `out[i]` receives the
    /// resolution of `ids[i]`. Cache hits are answered at once; the misses'
    /// store reads all start before the call waits for them, so a batch of
    /// misses costs about one store round trip, not `n` (each bounded by
    /// the config's `store_timeout_ms`). Every ID is checked first: a NULL,
    /// too long or non-UTF-8 ID fails the whole call (the error names its
    /// index) and writes nothing. `n` may be 0 (then the arrays may be NULL).
    ///
    /// # Safety
    /// `ids` points to `n` readable `zlink_str`s, each to `len` readable
    /// bytes; `out` to `n` writable `zlink_resolution`s.
    fn zlink_resolve_many(rt: *const zlink_runtime, kind: u32, ids: *const zlink_str, n: usize,
        out: *mut zlink_resolution) {
        let out = outs_in(out, n, "out")?;
        let kind = kind_in(kind)?;
        // SAFETY: the caller's contract on `ids`.
        let ids = unsafe { ids_in(ids, n) }?;
        let rt = runtime_in(rt)?;
        let core = rt.core()?;
        ids_fit(core, kind, &ids)?;
        let mut misses = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if let Some(ahead) = ids.get(i + PREFETCH_AHEAD) {
                core.prefetch_cached(kind, ahead);
            }
            match core.lookup_cached(kind, id)? {
                // SAFETY: `i < n`, and `out` holds `n` writable elements.
                Some(route) => unsafe { out.add(i).write(zlink_resolution::ready(&route)) },
                None => misses.push((i, core.resolve_async(kind, id)?)),
            }
        }
        for (i, read) in misses {
            let resolved = zlink_bridge::Resolved::from(wait(read));
            // SAFETY: `i < n`, and `out` holds `n` writable elements.
            unsafe { out.add(i).write((&resolved).into()) };
        }
        Ok(())
    }
}

/// Called once with the result of `zlink_resolve_async`, on a runtime
/// thread. `result` is `ZLINK_RESULT_OK` and `resolution` non-NULL on
/// success; `resolution` is valid only during the call. The callback must
/// not call `zlink_runtime_free`.
pub type zlink_resolve_callback = Option<
    unsafe extern "C" fn(userdata: *mut c_void, result: Code, resolution: *const zlink_resolution),
>;

struct Userdata(*mut c_void);
// SAFETY: the caller of `zlink_resolve_async` promises `userdata` may be
// used from the runtime's callback thread (documented on the function).
unsafe impl Send for Userdata {}

entry! {
    /// Resolves a global ID without blocking the caller: `callback(userdata,
    /// result, resolution)` is called exactly once, on a runtime thread (never
    /// on the calling thread), also for a cache hit. Input errors are returned
    /// here and the callback is then not called.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `callback` is not NULL;
    /// `userdata` may be used on another thread until the callback returns.
    ///
    /// Thread-safety: any thread, concurrently with every call but
    /// `zlink_runtime_free` of the same runtime (which waits for pending
    /// callbacks).
    fn zlink_resolve_async(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        callback: zlink_resolve_callback, userdata: *mut c_void) {
        let callback = callback.ok_or_else(|| missing("callback"))?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let userdata = Userdata(userdata);
        runtime_in(rt)?.resolve_async(kind, id, move |resolved| {
            let userdata = userdata;
            let resolution = zlink_resolution::from(&resolved);
            // SAFETY: the caller gave a valid callback and userdata for it;
            // `resolution` lives across the call.
            unsafe { callback(userdata.0, Code::Ok, &resolution) };
        })
    }

    /// Owner-lease invalidation: the lifecycle `lease` of node `node_rid` ended
    /// (the host's transport saw it). Every cached route under it is removed;
    /// `*removed` (if not NULL) gets how many.
    ///
    /// # Safety
    /// `removed` is NULL or writable.
    fn zlink_on_owner_lease_invalidated(rt: *const zlink_runtime, node_rid: u64, lease: u64,
        removed: *mut usize) {
        let n = runtime_in(rt)?.on_owner_lease_invalidated(node_rid, lease)?;
        put_opt(removed, || n);
        Ok(())
    }

    /// A store recovery event reported by the host: clears the route cache.
    /// `*removed` (if not NULL) gets how many entries went.
    ///
    /// # Safety
    /// `removed` is NULL or writable.
    fn zlink_on_store_recovery(rt: *const zlink_runtime, removed: *mut usize) {
        let n = runtime_in(rt)?.on_store_recovery()?;
        put_opt(removed, || n);
        Ok(())
    }

    /// A relay notification given directly (command 50 frames reach the same
    /// rule through `zlink_on_frame`): removes the cached route of the ID only
    /// if it routes to `source` (same node and generations). `*invalidated` (if
    /// not NULL) says whether it did.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `source` to an initialised
    /// struct; `invalidated` is NULL or writable.
    fn zlink_on_relay_notification(rt: *const zlink_runtime, kind: u32, id: *const u8,
        id_len: usize, source: *const zlink_route_end, invalidated: *mut bool) {
        // SAFETY: the caller's contract on `id` and `source`.
        let (id, source) = unsafe { (id_in(id, id_len)?, source.as_ref()) };
        let source = source.ok_or_else(|| missing("source"))?.to_core()?;
        let done = runtime_in(rt)?.on_relay_notification(kind, id, &source)?;
        put_opt(invalidated, || done);
        Ok(())
    }
}

// ---------------------------------------------------------------- lifecycle

/// # Safety
/// As the lifecycle entry points below.
unsafe fn lifecycle(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    write: Write,
) -> FfiResult {
    // SAFETY: `id_len` readable bytes (the caller's contract).
    let id = unsafe { id_in(id, id_len) }?;
    let owned = runtime_in(rt)?.write(kind, id, write)?;
    put_opt(out, || (&owned).into());
    Ok(())
}

entry! {
    /// Creates a new incarnation owned by this node, in Creating.
    ///
    /// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
    /// may be NULL; when not, it receives the object as written.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is NULL or writable.
    fn zlink_create(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_owned) {
        // SAFETY: forwarded caller contract.
        unsafe { lifecycle(rt, kind, id, id_len, out, Write::Create) }
    }

    /// Publishes this node's Creating object as Ready.
    ///
    /// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
    /// may be NULL; when not, it receives the object as written.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is NULL or writable.
    fn zlink_publish_ready(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_owned) {
        // SAFETY: forwarded caller contract.
        unsafe { lifecycle(rt, kind, id, id_len, out, Write::PublishReady) }
    }

    /// Create then publish Ready: the activation an application sees.
    ///
    /// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
    /// may be NULL; when not, it receives the object as written.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is NULL or writable.
    fn zlink_activate(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_owned) {
        // SAFETY: forwarded caller contract.
        unsafe { lifecycle(rt, kind, id, id_len, out, Write::Activate) }
    }

    /// Extends this node's owner lease on the object.
    ///
    /// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
    /// may be NULL; when not, it receives the object as written.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is NULL or writable.
    fn zlink_renew_lease(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_owned) {
        // SAFETY: forwarded caller contract.
        unsafe { lifecycle(rt, kind, id, id_len, out, Write::RenewLease) }
    }

    /// Starts releasing the object: it then resolves Unavailable(Releasing).
    ///
    /// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
    /// may be NULL; when not, it receives the object as written.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is NULL or writable.
    fn zlink_begin_release(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_owned) {
        // SAFETY: forwarded caller contract.
        unsafe { lifecycle(rt, kind, id, id_len, out, Write::BeginRelease) }
    }

    /// Completes the release: the record is removed and the ID resolves Missing.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes.
    fn zlink_complete_release(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize) {
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        runtime_in(rt)?.complete_release(kind, id)
    }

    /// This node's tenure of an object it owns, as a Message Follow route names
    /// it (and as an ActorRef hands out its location). On OK, `*found` says
    /// whether this node owns the object; `*out` is written only when it does.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` and `found` are writable.
    fn zlink_owner_route_end(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        out: *mut zlink_route_end, found: *mut bool) {
        let (out, found) = (Out::new(out, "out")?, Out::new(found, "found")?);
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let end = runtime_in(rt)?.owner_route_end(kind, id)?;
        put_found(out, found, end, |e| (&e).into());
        Ok(())
    }
}

// ---------------------------------------------------------------- counters

/// One snapshot of the runtime's counters: the first counters of the
/// library's one list (docs/runtime.md), in its order, by their flat names.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_stats {
    /// Resolutions answered by the route cache.
    pub cache_hits: u64,
    /// Resolutions that asked the store.
    pub cache_misses: u64,
    /// Entries in the route cache now.
    pub cache_entries: u64,
    /// Entries evicted because the cache was full.
    pub cache_evictions: u64,
    /// Store reads issued.
    pub store_reads: u64,
    /// Store calls that failed.
    pub store_failures: u64,
    /// Store recovery events seen.
    pub store_recoveries: u64,
    /// Resolutions that ended ReadyRoute (cache hits included).
    pub resolutions_ready_route: u64,
    /// Resolutions that ended Missing.
    pub resolutions_missing: u64,
    /// Resolutions that ended Unavailable.
    pub resolutions_unavailable: u64,
    /// Resolutions that ended StoreFailure.
    pub resolutions_store_failure: u64,
    /// Entries removed: a read saw a higher store version.
    pub invalidations_higher_store_version: u64,
    /// Entries removed: a stale-route rejection.
    pub invalidations_stale_route: u64,
    /// Entries removed: a store recovery.
    pub invalidations_store_recovery: u64,
    /// Entries removed: an owner lease was invalidated.
    pub invalidations_owner_lease_invalidated: u64,
    /// Entries removed: a relay notification.
    pub invalidations_relay_notification: u64,
    /// Operations admitted to a local queue.
    pub delivered: u64,
    /// Operations relayed on a Message Follow route.
    pub relays: u64,
    /// Command 50 notifications handed to the host.
    pub notifications_sent: u64,
    /// Notifications the dedup registry suppressed.
    pub notifications_suppressed: u64,
    /// Notification sends the host reported failed.
    pub notification_failures: u64,
    /// Rejections sent back to an operation's origin.
    pub rejections_sent: u64,
    /// Frames dropped as undecodable.
    pub frames_dropped: u64,
    /// Requests sent.
    pub requests_sent: u64,
    /// Requests ended with a reply.
    pub requests_replies: u64,
    /// Requests ended with an error.
    pub requests_errors: u64,
    /// Requests ended by their deadline.
    pub requests_timeouts: u64,
    /// Requests cancelled.
    pub requests_cancelled: u64,
    /// Requests ended by shutdown.
    pub requests_shutdown: u64,
    /// Results that arrived after their request had ended.
    pub requests_late_results: u64,
    /// Requests dropped: reply route unrecoverable.
    pub requests_unroutable: u64,
    /// Frames refused: their sender was not their connection's node.
    pub frames_foreign_sender: u64,
    /// Binds refused by the bind timeout.
    pub bind_timeouts: u64,
    /// Relocations begun here (source).
    pub relocation_begun: u64,
    /// Restore requests taken (target).
    pub relocation_restores: u64,
    /// Relocation owner CASes that succeeded here (target).
    pub relocation_committed: u64,
    /// Relocations this source handed off to a committed target.
    pub relocation_handed_off: u64,
    /// Relocations abandoned before relay-ready (either side).
    pub relocation_aborted: u64,
    /// Relocations that failed after relay-ready.
    pub relocation_failed: u64,
    /// Operations held for a relocation (source ingress hold or target
    /// temporary queue).
    pub relocation_held: u64,
    /// Operations a relocation source relayed to its target.
    pub relocation_relayed: u64,
    /// Relocation control frames refused (another relocation or
    /// incarnation, a duplicate, out of order, or from the wrong node).
    pub relocation_control_refused: u64,
    /// Table sizes now (each bounded): pending requests.
    pub table_pending_requests: u64,
    /// Request deadline entries.
    pub table_request_deadlines: u64,
    /// Sessions owned.
    pub table_sessions: u64,
    /// Binds waiting for their terminal reply.
    pub table_pending_binds: u64,
    /// Seal and bind deadline entries.
    pub table_session_deadlines: u64,
    /// Session registrations of local Actors.
    pub table_registrations: u64,
    /// Rebind replies parked for a tombstone ACK.
    pub table_parked_binds: u64,
    /// Parked-reply deadline entries.
    pub table_parked_deadlines: u64,
    /// Message Follow routes.
    pub table_follow_routes: u64,
    /// Follow-route expiry entries.
    pub table_follow_deadlines: u64,
    /// Relay-notification dedup entries.
    pub table_dedup_entries: u64,
    /// Dedup entries evicted to stay within bounds.
    pub table_dedup_evictions: u64,
    /// Store reads in flight.
    pub table_store_flights: u64,
    /// Relocations running here as source.
    pub table_relocation_sources: u64,
    /// Relocations running here as target.
    pub table_relocation_targets: u64,
    /// Relocation deadline entries (dead ones included).
    pub table_relocation_deadlines: u64,
}

// The struct is the list's first counters, all u64, in order.
const _: () = assert!(std::mem::size_of::<zlink_stats>() == C_COUNTERS * 8);

entry! {
    /// Reads every counter now into `*out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_stats_get(rt: *const zlink_runtime, out: *mut zlink_stats) {
        let out = Out::new(out, "out")?;
        let list = runtime_in(rt)?.stats()?;
        let mut values = [0u64; C_COUNTERS];
        for (v, c) in values.iter_mut().zip(&list) {
            *v = c.value;
        }
        // SAFETY: `zlink_stats` is repr(C) with exactly `C_COUNTERS` u64
        // fields (asserted above), so it has the layout of the array.
        out.put(unsafe { std::mem::transmute::<[u64; C_COUNTERS], zlink_stats>(values) });
        Ok(())
    }
}
