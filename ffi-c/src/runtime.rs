//! Runtimes, stores and clocks: creation, resolution, invalidation, the
//! lifecycle writes and counters.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Once};

use zlink_bridge::args::{self, Arg, missing};
use zlink_bridge::core::{MAX_OBJECT_ID_BYTES, ObjectKind, RoutingConfig};
use zlink_bridge::handles::{Pinned, Registry};
use zlink_bridge::redis::RedisOptions;
use zlink_bridge::stats::C_COUNTERS;
use zlink_bridge::{Answer, Clock, Code, Error, ErrorKind, Options, Store, Write, setup};

use crate::types::*;
use crate::{FfiResult, Userdata, zlink_bytes};

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

/// The core runtime behind a C runtime handle, for the C ABI bench (Rust
/// only, not in the C ABI): it times the in-core call on the very table the
/// C call reads, so the two differ only by the crossing, not by where two
/// tables' pages landed.
#[doc(hidden)]
pub fn core_of(rt: *const zlink_runtime) -> Option<Arc<zlink_bridge::core::Runtime>> {
    runtime_in(rt).ok()?.core().ok().cloned()
}

/// An object ID's bytes as text, with the bridge's checks and errors
/// (`args::id`), but the common ID (ASCII, at most the absolute maximum
/// length) is recognised with one word-at-a-time pass instead of a full
/// UTF-8 decode, on the cache-hit path.
#[inline]
fn id_text(id: &[u8]) -> FfiResult<&str> {
    if id.len() <= MAX_OBJECT_ID_BYTES && id.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(id) });
    }
    args::id(id)
}

/// Registers `value`: its handle, as C holds it.
pub(crate) fn handle<T: Send + Sync, H>(
    registry: &Registry<T>,
    value: T,
    what: &str,
) -> FfiResult<*mut H> {
    let h = registry.register(value, what)?;
    // Handles are not addresses: C only compares and passes them back.
    Ok(std::ptr::without_provenance_mut(h))
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
    fn zlink_clock_system_new() -> out: *mut *mut zlink_clock {
        handle(&CLOCKS, Clock::system(), "clock")?
    }

    /// Makes a manual clock at time 0: it moves only by
    /// `zlink_manual_clock_advance`. Tests drive time with it and never sleep.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_clock_manual_new() -> out: *mut *mut zlink_clock {
        handle(&CLOCKS, Clock::manual(), "clock")?
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
    fn zlink_clock_now_ns(clock: *const zlink_clock) -> out: *mut u64 {
        clock_in(clock)?.now_ns()
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
    fn zlink_store_memory_new(clock: *const zlink_clock) -> out: *mut *mut zlink_store {
        watch_forks();
        handle(&STORES, Store::memory(Some(&clock_of(clock)?), None), "store")?
    }

    /// Connects to a Redis (`redis://`, `rediss://`), Redis Cluster
    /// (`redis+cluster://h1:p1,h2:p2`) or Sentinel-managed
    /// (`redis+sentinel://h1:p1,h2:p2/master-name`, `rediss+sentinel://`)
    /// Location Store. `key_prefix` may be NULL (default `zlink`). Blocks
    /// until connected or the connect timeout (2 s).
    ///
    /// # Safety
    /// `url` and a non-NULL `key_prefix` are NUL-terminated; `out` is writable.
    fn zlink_store_redis_open(url: *const c_char, key_prefix: *const c_char)
        -> out: *mut *mut zlink_store {
        // SAFETY: forwarded contract; NULL options are the defaults.
        unsafe { redis_open(url, key_prefix, std::ptr::null()) }?
    }

    /// Writes the default Redis store options to `out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_redis_options_default() -> out: *mut zlink_redis_options {
        RedisOptions::default()
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
        options: *const zlink_redis_options) -> out: *mut *mut zlink_store {
        // SAFETY: forwarded contract.
        unsafe { redis_open(url, key_prefix, options) }?
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
) -> FfiResult<*mut zlink_store> {
    let url = text_in!(url, "url")?;
    let prefix = (!key_prefix.is_null()).then(|| text_in!(key_prefix, "key_prefix"));
    let prefix = prefix.transpose()?;
    let options = if options.is_null() {
        zlink_redis_options::from(RedisOptions::default())
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
    let store = Store::redis(url, options.to_core(prefix)?)?;
    handle(&STORES, store, "store")
}

// ---------------------------------------------------------------- runtime

entry! {
    /// Writes the default config to `out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_config_default() -> out: *mut zlink_config {
        RoutingConfig::default()
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
    fn zlink_config_get(rt: *const zlink_runtime) -> out: *mut zlink_config {
        runtime_in(rt)?.config()?
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
        store: *const zlink_store, clock: *const zlink_clock) -> out: *mut *mut zlink_runtime {
        // SAFETY: NULL or an initialised struct (the caller's contract).
        let id = unsafe { identity.as_ref() }.ok_or_else(|| missing("identity"))?;
        let mesh = text_in!(id.mesh, "identity.mesh")?;
        let identity = setup::identity(mesh, id.rid, id.generation, id.lease)?;
        let mut options = Options { clock: Some(clock_of(clock)?), ..Options::default() };
        if !config.is_null() {
            // SAFETY: an initialised struct (the caller's contract).
            options.config = Some(unsafe { config_in(config) }?);
        }
        if !store.is_null() {
            options.store = Some(STORES.pin(store as usize, "store")?.get()?);
        }
        watch_forks();
        handle(&RUNTIMES, zlink_bridge::Runtime::new(identity, options)?, "runtime")?
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
        let id = id_in!(id, id_len)?;
        let rt = runtime_in(rt)?;
        let (kind, id) = (kind.get()?, id_text(id)?);
        // A hit is written from the route itself: no flat `Resolved` copy.
        if !cached(rt.core()?, kind, id, out, zlink_resolution::ready)? {
            out.put((&rt.resolve(kind, id)?).into());
        }
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
        let id = id_in!(id, id_len)?;
        let rt = runtime_in(rt)?;
        let (kind, id) = (kind.get()?, id_text(id)?);
        found.put(cached(rt.core()?, kind, id, route, |r| r.into())?);
        Ok(())
    }
}

/// The core's cache lookup, kept out of line, writing a hit's C form
/// (`c_form` of the route) to `out` itself; whether it hit. The route is
/// built where the lookup reads it and its C form stored from there: a
/// route returned by value, then converted, is stored to the stack and
/// read back in wider loads, which stall on store forwarding (measured on
/// one runtime: 1.24–1.33× in-core against 1.44–1.49×).
#[inline(never)]
fn cached<T>(
    core: &zlink_bridge::core::Runtime,
    kind: ObjectKind,
    id: &str,
    out: Out<T>,
    c_form: impl FnOnce(&zlink_bridge::core::ReadyRoute) -> T,
) -> Result<bool, zlink_bridge::core::InputError> {
    let Some(route) = core.lookup_cached(kind, id)? else {
        return Ok(false);
    };
    out.put(c_form(&route));
    Ok(true)
}

/// Bytes lent, `len` at `ptr` (no NUL needed): one object ID of a batch,
/// as the single calls take `(id, id_len)`, or the ID and payload a
/// delivered `zlink_operation` lends.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zlink_str {
    /// The bytes.
    pub ptr: *const u8,
    /// How many.
    pub len: usize,
}

/// Borrows the `n` IDs of a batch and checks each (NULL, length, UTF-8,
/// with `args::ids`) before anything is looked up.
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
    let read = |id: &zlink_str| id_in!(id.ptr, id.len).and_then(id_text);
    args::ids(ids.iter().map(read))
}

/// `n` writable out-parameters of a batch (NULL only when `n` is 0).
fn outs_in<T>(out: *mut T, n: usize, what: &str) -> FfiResult<*mut T> {
    if out.is_null() && n > 0 {
        return Err(missing(what));
    }
    Ok(out)
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
        let kind: ObjectKind = kind.get()?;
        // SAFETY: the caller's contract on `ids`.
        let ids = unsafe { ids_in(ids, n) }?;
        runtime_in(rt)?.lookup_cached_many(kind, &ids, |i, hit| {
            // SAFETY: `i < n`, and both arrays hold `n` writable elements.
            unsafe {
                if let Some(route) = hit {
                    routes.add(i).write(route.into());
                }
                found.add(i).write(hit.is_some());
            }
        })
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
        let kind: ObjectKind = kind.get()?;
        // SAFETY: the caller's contract on `ids`.
        let ids = unsafe { ids_in(ids, n) }?;
        runtime_in(rt)?.resolve_many(kind, &ids, |i, answer| {
            let resolution = match answer {
                Answer::Hit(route) => zlink_resolution::ready(route),
                Answer::Read(resolved) => (&resolved).into(),
            };
            // SAFETY: `i < n`, and `out` holds `n` writable elements.
            unsafe { out.add(i).write(resolution) };
        })
    }
}

/// Called once with the result of `zlink_resolve_async`, on a runtime
/// thread. `result` is `ZLINK_RESULT_OK` and `resolution` non-NULL on
/// success; `resolution` is valid only during the call. The callback must
/// not call `zlink_runtime_free`.
pub type zlink_resolve_callback = Option<
    unsafe extern "C" fn(userdata: *mut c_void, result: Code, resolution: *const zlink_resolution),
>;

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
        let (id, userdata) = (id_in!(id, id_len)?, Userdata(userdata));
        runtime_in(rt)?.resolve_async(kind, id, move |resolved| {
            let resolution = zlink_resolution::from(&resolved);
            // SAFETY: the caller gave a valid callback and userdata for it;
            // `resolution` lives across the call.
            unsafe { callback(userdata.get(), Code::Ok, &resolution) };
        })
    }

    /// Owner-lease invalidation: the lifecycle `lease` of node `node_rid` ended
    /// (the host's transport saw it). Every cached route under it is removed;
    /// `*removed` (if not NULL) gets how many.
    ///
    /// # Safety
    /// `removed` is NULL or writable.
    fn zlink_on_owner_lease_invalidated(rt: *const zlink_runtime, node_rid: u64, lease: u64)
        -> optional removed: *mut usize {
        runtime_in(rt)?.on_owner_lease_invalidated(node_rid, lease)?
    }

    /// A store recovery event reported by the host: clears the route cache.
    /// `*removed` (if not NULL) gets how many entries went.
    ///
    /// # Safety
    /// `removed` is NULL or writable.
    fn zlink_on_store_recovery(rt: *const zlink_runtime) -> optional removed: *mut usize {
        runtime_in(rt)?.on_store_recovery()?
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
        id_len: usize, source: *const zlink_route_end) -> optional invalidated: *mut bool {
        // SAFETY: the caller's contract on `source`.
        let (id, source) = (id_in!(id, id_len)?, unsafe { source.as_ref() });
        let source = source.ok_or_else(|| missing("source"))?.to_core()?;
        runtime_in(rt)?.on_relay_notification(kind, id, &source)?
    }
}

// ---------------------------------------------------------------- lifecycle

/// The lifecycle writes: one entry point each, with one contract.
macro_rules! lifecycle {
    ($($(#[$doc:meta])* fn $name:ident = $write:ident;)*) => { entry! { $(
        $(#[$doc])*
        #[doc = ""]
        #[doc = " Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`"]
        #[doc = " may be NULL; when not, it receives the object as written."]
        #[doc = ""]
        #[doc = " # Safety"]
        #[doc = " `id` points to `id_len` readable bytes; `out` is NULL or writable."]
        fn $name(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize)
            -> optional out: *mut zlink_owned {
            let id = id_in!(id, id_len)?;
            zlink_owned::from(&runtime_in(rt)?.write(kind, id, Write::$write)?)
        }
    )* } };
}

lifecycle! {
    /// Creates a new incarnation owned by this node, in Creating.
    fn zlink_create = Create;
    /// Publishes this node's Creating object as Ready.
    fn zlink_publish_ready = PublishReady;
    /// Create then publish Ready: the activation an application sees.
    fn zlink_activate = Activate;
    /// Extends this node's owner lease on the object.
    fn zlink_renew_lease = RenewLease;
    /// Starts releasing the object: it then resolves Unavailable(Releasing).
    fn zlink_begin_release = BeginRelease;
}

entry! {
    /// Completes the release: the record is removed and the ID resolves Missing.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes.
    fn zlink_complete_release(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize) {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.complete_release(kind, id)
    }

    /// This node's tenure of an object it owns, as a Message Follow route names
    /// it (and as an ActorRef hands out its location). On OK, `*found` says
    /// whether this node owns the object; `*out` is written only when it does.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` and `found` are writable.
    fn zlink_owner_route_end(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize)
        -> found(out: *mut zlink_route_end, found: *mut bool) {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.owner_route_end(kind, id)?.as_ref().map(zlink_route_end::from)
    }

    /// What this node owns for the ID. On OK, `*found` says whether it owns
    /// the object; `*out` is written only when it does.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` and `found` are writable.
    fn zlink_owned_get(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize)
        -> found(out: *mut zlink_owned, found: *mut bool) {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.owned(kind, id)?.as_ref().map(zlink_owned::from)
    }

    /// How many objects this node owns.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_owned_count(rt: *const zlink_runtime) -> out: *mut u64 {
        runtime_in(rt)?.owned_count()? as u64
    }
}

// ---------------------------------------------------------------- counters

/// `zlink_stats`, one `u64` per counter: `field: "doc line" …,`.
macro_rules! stats {
    ($(#[$doc:meta])* pub struct $name:ident { $($field:ident: $($line:literal)+,)* }) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name { $($(#[doc = concat!(" ", $line)])+ pub $field: u64,)* }
    };
}

stats! {
    /// One snapshot of the runtime's counters: the first counters of the
    /// library's one list (docs/runtime.md), in its order, by their flat names.
    pub struct zlink_stats {
        cache_hits: "Resolutions answered by the route cache.",
        cache_misses: "Resolutions that asked the store.",
        cache_entries: "Entries in the route cache now.",
        cache_evictions: "Entries evicted because the cache was full.",
        store_reads: "Store reads issued.",
        store_failures: "Store calls that failed.",
        store_recoveries: "Store recovery events seen.",
        resolutions_ready_route: "Resolutions that ended ReadyRoute (cache hits included).",
        resolutions_missing: "Resolutions that ended Missing.",
        resolutions_unavailable: "Resolutions that ended Unavailable.",
        resolutions_store_failure: "Resolutions that ended StoreFailure.",
        invalidations_higher_store_version: "Entries removed: a read saw a higher store version.",
        invalidations_stale_route: "Entries removed: a stale-route rejection.",
        invalidations_store_recovery: "Entries removed: a store recovery.",
        invalidations_owner_lease_invalidated: "Entries removed: an owner lease was invalidated.",
        invalidations_relay_notification: "Entries removed: a relay notification.",
        delivered: "Operations admitted to a local queue.",
        relays: "Operations relayed on a Message Follow route.",
        notifications_sent: "Command 50 notifications handed to the host.",
        notifications_suppressed: "Notifications the dedup registry suppressed.",
        notification_failures: "Notification sends the host reported failed.",
        rejections_sent: "Rejections sent back to an operation's origin.",
        frames_dropped: "Frames dropped as undecodable.",
        requests_sent: "Requests sent.",
        requests_replies: "Requests ended with a reply.",
        requests_errors: "Requests ended with an error.",
        requests_timeouts: "Requests ended by their deadline.",
        requests_cancelled: "Requests cancelled.",
        requests_shutdown: "Requests ended by shutdown.",
        requests_late_results: "Results that arrived after their request had ended.",
        requests_unroutable: "Requests dropped: reply route unrecoverable.",
        frames_foreign_sender: "Frames refused: their sender was not their connection's node.",
        bind_timeouts: "Binds refused by the bind timeout.",
        relocation_begun: "Relocations begun here (source).",
        relocation_restores: "Restore requests taken (target).",
        relocation_committed: "Relocation owner CASes that succeeded here (target).",
        relocation_handed_off: "Relocations this source handed off to a committed target.",
        relocation_aborted: "Relocations abandoned before relay-ready (either side).",
        relocation_failed: "Relocations that failed after relay-ready.",
        relocation_held: "Operations held for a relocation (source ingress hold or target"
            "temporary queue).",
        relocation_relayed: "Operations a relocation source relayed to its target.",
        relocation_control_refused: "Relocation control frames refused (another relocation or"
            "incarnation, a duplicate, out of order, or from the wrong node).",
        table_pending_requests: "Table sizes now (each bounded): pending requests.",
        table_request_deadlines: "Request deadline entries.",
        table_sessions: "Sessions owned.",
        table_pending_binds: "Binds waiting for their terminal reply.",
        table_session_deadlines: "Seal and bind deadline entries.",
        table_registrations: "Session registrations of local Actors.",
        table_parked_binds: "Rebind replies parked for a tombstone ACK.",
        table_parked_deadlines: "Parked-reply deadline entries.",
        table_follow_routes: "Message Follow routes.",
        table_follow_deadlines: "Follow-route expiry entries.",
        table_dedup_entries: "Relay-notification dedup entries.",
        table_dedup_evictions: "Dedup entries evicted to stay within bounds.",
        table_store_flights: "Store reads in flight.",
        table_relocation_sources: "Relocations running here as source.",
        table_relocation_targets: "Relocations running here as target.",
        table_relocation_deadlines: "Relocation deadline entries (dead ones included).",
    }
}

// The struct is the list's first counters, all u64, in order.
const _: () = assert!(std::mem::size_of::<zlink_stats>() == C_COUNTERS * 8);

entry! {
    /// Reads every counter now into `*out`.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_stats_get(rt: *const zlink_runtime) -> out: *mut zlink_stats {
        let mut values = [0u64; C_COUNTERS];
        for (v, c) in values.iter_mut().zip(&runtime_in(rt)?.stats()?) {
            *v = c.value;
        }
        // SAFETY: `zlink_stats` is repr(C) with exactly `C_COUNTERS` u64
        // fields (asserted above), so it has the layout of the array.
        unsafe { std::mem::transmute::<[u64; C_COUNTERS], zlink_stats>(values) }
    }

    /// Every metric, read now, in the Prometheus text exposition format
    /// (version 0.0.4): what a scrape of `/metrics` answers. The counters of
    /// `zlink_stats` and more, and the latency histograms (store reads and
    /// writes, moves, held work, requests, binds; docs/metrics.md). UTF-8,
    /// not NUL-terminated (`out_text->len` bytes). Free with
    /// `zlink_bytes_free`.
    ///
    /// # Safety
    /// `out_text` is writable.
    fn zlink_metrics_text(rt: *const zlink_runtime) -> out_text: *mut zlink_bytes {
        runtime_in(rt)?.metrics_text()?
    }
}
