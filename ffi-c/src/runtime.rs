//! Runtimes, stores and clocks: creation, resolution, invalidation, the
//! lifecycle writes and counters.

use std::cell::Cell;
use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use zlink_core::{
    Clock, InvalidationReason, KeyRef, LocationStore, ManualClock, MemoryStore, MeshName,
    NodeGeneration, NodeIdentity, NodeRid, OwnedObject, OwnerLeaseGeneration, RedisOptions,
    RedisStore, Runtime, SystemClock,
};

use crate::handle::{HandleError, Pinned, Registry};
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

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

pub(crate) struct RuntimeEntry {
    pub(crate) core: Runtime,
    /// Runs completion callbacks of asynchronous calls.
    callbacks: tokio::runtime::Runtime,
    /// Asynchronous calls whose callback has not returned yet.
    pending: Arc<AtomicUsize>,
}

struct StoreEntry {
    store: Arc<dyn LocationStore>,
}

struct ClockEntry {
    clock: Arc<dyn Clock>,
    manual: Option<ManualClock>,
}

static RUNTIMES: Registry<RuntimeEntry> = Registry::new(0x3);
static STORES: Registry<StoreEntry> = Registry::new(0x5);
static CLOCKS: Registry<ClockEntry> = Registry::new(0x7);

thread_local! {
    /// Set while a completion callback runs on this thread.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

pub(crate) fn handle_fail(e: HandleError, what: &str) -> Fail {
    match e {
        HandleError::Null => crate::types::null(what),
        HandleError::Invalid => Fail::new(
            zlink_result::InvalidHandle,
            format!("{what} is freed, foreign or not a {what}"),
        ),
        HandleError::Exhausted => Fail::new(zlink_result::Exhausted, "too many live handles"),
    }
}

#[inline]
pub(crate) fn runtime_in(rt: *const zlink_runtime) -> FfiResult<Pinned<'static, RuntimeEntry>> {
    RUNTIMES
        .get(rt as usize)
        .map_err(|e| handle_fail(e, "runtime"))
}

pub(crate) fn handle_out<T>(value: usize) -> *mut T {
    // Handles are not addresses: C only compares and passes them back.
    std::ptr::without_provenance_mut(value)
}

/// # Safety
/// `out` was checked non-NULL and is writable.
unsafe fn write<T>(out: *mut T, value: T) {
    // SAFETY: the caller checked `out` and C passes writable storage.
    unsafe { out.write(value) }
}

fn key<'a>(rt: &RuntimeEntry, kind: u32, id: &'a str) -> FfiResult<KeyRef<'a>> {
    rt.core.key(kind_in(kind)?, id).map_err(input_fail)
}

// ---------------------------------------------------------------- clocks

/// Makes a handle on the system's monotonic clock.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_clock_system_new(
    out: *mut *mut zlink_clock,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let entry = ClockEntry {
            clock: Arc::new(SystemClock::new()),
            manual: None,
        };
        let h = CLOCKS
            .insert(Arc::new(entry))
            .map_err(|e| handle_fail(e, "clock"))?;
        // SAFETY: checked above.
        unsafe { write(out, handle_out(h)) };
        Ok(())
    })
}

/// Makes a manual clock at time 0: it moves only by
/// `zlink_manual_clock_advance`. Tests drive time with it and never sleep.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_clock_manual_new(
    out: *mut *mut zlink_clock,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let manual = ManualClock::new();
        let entry = ClockEntry {
            clock: Arc::new(manual.clone()),
            manual: Some(manual),
        };
        let h = CLOCKS
            .insert(Arc::new(entry))
            .map_err(|e| handle_fail(e, "clock"))?;
        // SAFETY: checked above.
        unsafe { write(out, handle_out(h)) };
        Ok(())
    })
}

/// Moves a manual clock forward by `millis`. `ZLINK_RESULT_INVALID_ARGUMENT`
/// for a system clock.
///
/// # Safety
/// `error` is NULL or writable. `clock` may be anything: it is checked.
///
/// Thread-safety: any thread, concurrently with every other call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_manual_clock_advance(
    clock: *const zlink_clock,
    millis: u64,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let c = CLOCKS
            .get(clock as usize)
            .map_err(|e| handle_fail(e, "clock"))?;
        let manual = c.manual.as_ref().ok_or_else(|| {
            Fail::new(
                zlink_result::InvalidArgument,
                "a system clock cannot be advanced",
            )
        })?;
        manual.advance(Duration::from_millis(millis));
        Ok(())
    })
}

/// The clock's current time in nanoseconds since its origin (the unit of
/// every `*_deadline_ns` field).
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_clock_now_ns(
    clock: *const zlink_clock,
    out: *mut u64,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let c = CLOCKS
            .get(clock as usize)
            .map_err(|e| handle_fail(e, "clock"))?;
        // SAFETY: checked above.
        unsafe { write(out, c.clock.now().0) };
        Ok(())
    })
}

/// Frees a clock handle. Runtimes and stores made with it keep the clock.
/// A freed or foreign handle is `ZLINK_RESULT_INVALID_HANDLE`; NULL is a
/// no-op returning `ZLINK_RESULT_OK`.
///
/// # Safety
/// `error` is NULL or writable.
///
/// Thread-safety: any thread; later uses of the handle fail.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_clock_free(
    clock: *mut zlink_clock,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        if clock.is_null() {
            return Ok(());
        }
        drop(
            CLOCKS
                .remove(clock as usize)
                .map_err(|e| handle_fail(e, "clock"))?,
        );
        Ok(())
    })
}

fn clock_of(clock: *const zlink_clock) -> FfiResult<Arc<dyn Clock>> {
    if clock.is_null() {
        return Ok(Arc::new(SystemClock::new()));
    }
    Ok(CLOCKS
        .get(clock as usize)
        .map_err(|e| handle_fail(e, "clock"))?
        .clock
        .clone())
}

// ---------------------------------------------------------------- stores

/// Makes an embedded in-memory Location Store, shared by every runtime of
/// this process given the handle. Its time (leases) comes from `clock`
/// (NULL: the system clock); give it the runtimes' manual clock in tests.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_store_memory_new(
    clock: *const zlink_clock,
    out: *mut *mut zlink_store,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let store = MemoryStore::with_clock(clock_of(clock)?);
        let h = STORES
            .insert(Arc::new(StoreEntry {
                store: Arc::new(store),
            }))
            .map_err(|e| handle_fail(e, "store"))?;
        // SAFETY: checked above.
        unsafe { write(out, handle_out(h)) };
        Ok(())
    })
}

/// Connects to a Redis (`redis://`, `rediss://`) or Redis Cluster
/// (`redis+cluster://h1:p1,h2:p2`) Location Store. `key_prefix` may be NULL
/// (default `zlink`). Blocks until connected or the connect timeout (2 s).
///
/// # Safety
/// `url` and a non-NULL `key_prefix` are NUL-terminated; `out` is writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_store_redis_open(
    url: *const c_char,
    key_prefix: *const c_char,
    out: *mut *mut zlink_store,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: NUL-terminated by contract.
        let url = unsafe { text_in(url, "url") }?;
        let mut options = RedisOptions::default();
        if !key_prefix.is_null() {
            // SAFETY: NUL-terminated by contract.
            options.prefix = unsafe { text_in(key_prefix, "key_prefix") }?.to_owned();
        }
        let store = RedisStore::open_with(url, options).map_err(|e| {
            let code = match e {
                zlink_core::StoreError::Config(_) => zlink_result::InvalidArgument,
                _ => zlink_result::StoreFailure,
            };
            Fail::new(code, e.to_string())
        })?;
        let h = STORES
            .insert(Arc::new(StoreEntry {
                store: Arc::new(store),
            }))
            .map_err(|e| handle_fail(e, "store"))?;
        // SAFETY: checked above.
        unsafe { write(out, handle_out(h)) };
        Ok(())
    })
}

/// Frees a store handle; runtimes using the store keep it until they are
/// freed. NULL is a no-op; a freed or foreign handle is an error.
///
/// # Safety
/// `error` is NULL or writable.
///
/// Thread-safety: any thread; later uses of the handle fail.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_store_free(
    store: *mut zlink_store,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        if store.is_null() {
            return Ok(());
        }
        drop(
            STORES
                .remove(store as usize)
                .map_err(|e| handle_fail(e, "store"))?,
        );
        Ok(())
    })
}

// ---------------------------------------------------------------- runtime

/// Writes the default config to `out`.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_config_default(
    out: *mut zlink_config,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: checked above.
        unsafe { write(out, (&zlink_core::RoutingConfig::default()).into()) };
        Ok(())
    })
}

/// Reads a caller's config: its `size` first, so a struct of another size
/// is refused before the rest is read.
///
/// # Safety
/// `config` is non-NULL and points to at least a `size` field, and to a
/// whole initialised `zlink_config` when that field says so.
unsafe fn config_in(config: *const zlink_config) -> FfiResult<zlink_core::RoutingConfig> {
    // SAFETY: the caller's contract: `size` is readable.
    let size = unsafe { std::ptr::addr_of!((*config).size).read_unaligned() };
    if size != std::mem::size_of::<zlink_config>() {
        return Err(Fail::new(
            zlink_result::InvalidConfig,
            format!(
                "config size is {size}, not sizeof(zlink_config) = {}: start from zlink_config_default",
                std::mem::size_of::<zlink_config>()
            ),
        ));
    }
    // SAFETY: a whole `zlink_config`, as its size says.
    unsafe { config.read() }.to_core()
}

/// Replaces the config of a running runtime (validated first; nothing is
/// changed on `ZLINK_RESULT_INVALID_CONFIG`). Existing cache entries and
/// Message Follow routes keep the lifetime they were given; the cache
/// capacity is fixed at creation (`route_cache_capacity` is ignored here).
///
/// # Safety
/// `config` points to a `zlink_config` from `zlink_config_default` or
/// `zlink_config_get`; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_update_config(
    rt: *const zlink_runtime,
    config: *const zlink_config,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        if config.is_null() {
            return Err(null("config"));
        }
        let rt = runtime_in(rt)?;
        // SAFETY: an initialised struct (the caller's contract).
        let config = unsafe { config_in(config) }?;
        rt.core
            .update_config(config)
            .map_err(|e| Fail::new(zlink_result::InvalidConfig, e.to_string()))
    })
}

/// Writes the config in force to `*out`.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_config_get(
    rt: *const zlink_runtime,
    out: *mut zlink_config,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: checked above.
        unsafe { write(out, (&rt.core.config()).into()) };
        Ok(())
    })
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
/// writable; `error` is NULL or writable.
///
/// Thread-safety: any thread. The runtime itself may be used from any
/// number of threads at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_runtime_new(
    identity: *const zlink_node_identity,
    config: *const zlink_config,
    store: *const zlink_store,
    clock: *const zlink_clock,
    out: *mut *mut zlink_runtime,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: NULL or an initialised struct (the caller's contract).
        let identity = unsafe { identity.as_ref() }.ok_or_else(|| null("identity"))?;
        // SAFETY: as above.
        let mesh = unsafe { text_in(identity.mesh, "identity.mesh") }?;
        let identity = NodeIdentity {
            mesh: MeshName::new(mesh).map_err(input_fail)?,
            rid: NodeRid(identity.rid),
            generation: NodeGeneration(identity.generation),
            lease: OwnerLeaseGeneration(identity.lease),
        };
        let clock = clock_of(clock)?;
        let mut builder = Runtime::builder(identity).clock(clock.clone());
        if !config.is_null() {
            // SAFETY: an initialised struct (the caller's contract).
            builder = builder.config(unsafe { config_in(config) }?);
        }
        if !store.is_null() {
            let s = STORES
                .get(store as usize)
                .map_err(|e| handle_fail(e, "store"))?;
            builder = builder.store(s.store.clone());
        } else {
            builder = builder.store(Arc::new(MemoryStore::with_clock(clock)));
        }
        let core = builder.build().map_err(|e| match e {
            zlink_core::BuildError::Config(c) => {
                Fail::new(zlink_result::InvalidConfig, c.to_string())
            }
            other => Fail::new(zlink_result::Threads, other.to_string()),
        })?;
        let callbacks = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("zlink-callback")
            .on_thread_start(|| IN_CALLBACK.set(true))
            .enable_time()
            .build()
            .map_err(|e| Fail::new(zlink_result::Threads, e.to_string()))?;
        let entry = RuntimeEntry {
            core,
            callbacks,
            pending: Arc::new(AtomicUsize::new(0)),
        };
        let h = RUNTIMES
            .insert(Arc::new(entry))
            .map_err(|e| handle_fail(e, "runtime"))?;
        // SAFETY: checked above.
        unsafe { write(out, handle_out(h)) };
        Ok(())
    })
}

/// Stops and frees a runtime. Calls in progress on other threads finish
/// first; asynchronous resolutions still pending complete (their callbacks
/// run) before this returns. Later uses of the handle return
/// `ZLINK_RESULT_INVALID_HANDLE`. NULL is a no-op.
///
/// # Safety
/// `error` is NULL or writable.
///
/// Thread-safety: any thread except a completion callback's
/// (`ZLINK_RESULT_WRONG_THREAD`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_runtime_free(
    rt: *mut zlink_runtime,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        if rt.is_null() {
            return Ok(());
        }
        if IN_CALLBACK.get() {
            return Err(Fail::new(
                zlink_result::WrongThread,
                "zlink_runtime_free cannot run inside a completion callback",
            ));
        }
        let entry = RUNTIMES
            .remove(rt as usize)
            .map_err(|e| handle_fail(e, "runtime"))?;
        while entry.pending.load(Ordering::SeqCst) != 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        match Arc::try_unwrap(entry) {
            Ok(entry) => {
                entry.callbacks.shutdown_timeout(Duration::from_secs(5));
                drop(entry.core);
            }
            // Unreachable: only the registry holds runtime entries.
            Err(entry) => drop(entry),
        }
        Ok(())
    })
}

/// Resolves a global ID, blocking on the store on a cache miss (bounded by
/// the config's `store_timeout_ms`). A cache hit never touches the store.
/// `id` is `id_len` bytes of UTF-8 (1..=max_object_id_bytes).
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is writable; `error` is
/// NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_resolve(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_resolution,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let resolution = rt.core.resolve(kind_in(kind)?, id).map_err(input_fail)?;
        // SAFETY: checked above.
        unsafe { write(out, (&resolution).into()) };
        Ok(())
    })
}

/// The cache-only lookup: never blocks, never reads the store. On
/// `ZLINK_RESULT_OK`, `*found` says whether a route was cached, and
/// `*route` is written only when it was.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `route` and `found` are writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_lookup_cached(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    route: *mut zlink_ready_route,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let route = out_ptr(route, "route")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let hit = rt
            .core
            .lookup_cached(kind_in(kind)?, id)
            .map_err(input_fail)?;
        if let Some(hit) = &hit {
            // SAFETY: checked above.
            unsafe { write(route, hit.into()) };
        }
        // SAFETY: checked above.
        unsafe { write(found, hit.is_some()) };
        Ok(())
    })
}

/// Called once with the result of `zlink_resolve_async`, on a runtime
/// thread. `result` is `ZLINK_RESULT_OK` and `resolution` non-NULL on
/// success; `resolution` is valid only during the call. The callback must
/// not call `zlink_runtime_free`.
pub type zlink_resolve_callback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        result: zlink_result,
        resolution: *const zlink_resolution,
    ),
>;

struct Userdata(*mut c_void);
// SAFETY: the caller of `zlink_resolve_async` promises `userdata` may be
// used from the runtime's callback thread (documented on the function).
unsafe impl Send for Userdata {}

/// Resolves a global ID without blocking the caller: `callback(userdata,
/// result, resolution)` is called exactly once, on a runtime thread (never
/// on the calling thread), also for a cache hit. Input errors are returned
/// here and the callback is then not called.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `callback` is not NULL;
/// `userdata` may be used on another thread until the callback returns;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime (which waits for pending
/// callbacks).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_resolve_async(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    callback: zlink_resolve_callback,
    userdata: *mut c_void,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let callback = callback.ok_or_else(|| null("callback"))?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let future = rt
            .core
            .resolve_async(kind_in(kind)?, id)
            .map_err(input_fail)?;
        let userdata = Userdata(userdata);
        let pending = rt.pending.clone();
        pending.fetch_add(1, Ordering::SeqCst);
        rt.callbacks.spawn(async move {
            let userdata = userdata;
            let resolution = zlink_resolution::from(&future.await);
            // SAFETY: the caller gave a valid callback and userdata for it;
            // `resolution` lives across the call.
            let call = || unsafe { callback(userdata.0, zlink_result::Ok, &resolution) };
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).is_err() {
                eprintln!("libzlink: a panic unwound out of a resolve callback");
            }
            pending.fetch_sub(1, Ordering::SeqCst);
        });
        Ok(())
    })
}

/// Owner-lease invalidation: the lifecycle `lease` of node `node_rid` ended
/// (the host's transport saw it). Every cached route under it is removed;
/// `*removed` (if not NULL) gets how many.
///
/// # Safety
/// `removed` is NULL or writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_owner_lease_invalidated(
    rt: *const zlink_runtime,
    node_rid: u64,
    lease: u64,
    removed: *mut usize,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        let n = rt
            .core
            .on_owner_lease_invalidated(NodeRid(node_rid), OwnerLeaseGeneration(lease));
        if !removed.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { write(removed, n) };
        }
        Ok(())
    })
}

/// A store recovery event reported by the host: clears the route cache.
/// `*removed` (if not NULL) gets how many entries went.
///
/// # Safety
/// `removed` is NULL or writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_store_recovery(
    rt: *const zlink_runtime,
    removed: *mut usize,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        let n = rt.core.on_store_recovery();
        if !removed.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { write(removed, n) };
        }
        Ok(())
    })
}

/// A relay notification given directly (command 50 frames reach the same
/// rule through `zlink_on_frame`): removes the cached route of the ID only
/// if it routes to `source` (same node and generations). `*invalidated` (if
/// not NULL) says whether it did.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `source` to an initialised
/// struct; `invalidated` is NULL or writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_relay_notification(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    source: *const zlink_route_end,
    invalidated: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        // SAFETY: NULL or initialised (the caller's contract).
        let source = unsafe { source.as_ref() }.ok_or_else(|| null("source"))?;
        let source = source.to_core()?;
        let done = rt.core.on_relay_notification(key(&rt, kind, id)?, &source);
        if !invalidated.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { write(invalidated, done) };
        }
        Ok(())
    })
}

// ---------------------------------------------------------------- lifecycle

type Write =
    fn(&Runtime, zlink_core::ObjectKind, &str) -> Result<OwnedObject, zlink_core::LifecycleError>;

/// # Safety
/// As the lifecycle entry points below.
unsafe fn lifecycle(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
    write_fn: Write,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let owned = write_fn(&rt.core, kind_in(kind)?, id).map_err(lifecycle_fail)?;
        if !out.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { write(out, (&owned).into()) };
        }
        Ok(())
    })
}

/// Creates a new incarnation owned by this node, in Creating.
///
/// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
/// may be NULL; when not, it receives the object as written.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is NULL or writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_create(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe { lifecycle(rt, kind, id, id_len, out, error, Runtime::create) }
}

/// Publishes this node's Creating object as Ready.
///
/// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
/// may be NULL; when not, it receives the object as written.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is NULL or writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_publish_ready(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe { lifecycle(rt, kind, id, id_len, out, error, Runtime::publish_ready) }
}

/// Create then publish Ready: the activation an application sees.
///
/// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
/// may be NULL; when not, it receives the object as written.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is NULL or writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_activate(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe { lifecycle(rt, kind, id, id_len, out, error, Runtime::activate) }
}

/// Extends this node's owner lease on the object.
///
/// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
/// may be NULL; when not, it receives the object as written.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is NULL or writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_renew_lease(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe { lifecycle(rt, kind, id, id_len, out, error, Runtime::renew_lease) }
}

/// Starts releasing the object: it then resolves Unavailable(Releasing).
///
/// Blocks on the store (bounded by `store_timeout_ms` per attempt). `out`
/// may be NULL; when not, it receives the object as written.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is NULL or writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_begin_release(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_owned,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe { lifecycle(rt, kind, id, id_len, out, error, Runtime::begin_release) }
}

/// Completes the release: the record is removed and the ID resolves Missing.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_complete_release(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        rt.core
            .complete_release(kind_in(kind)?, id)
            .map_err(lifecycle_fail)
    })
}

/// This node's tenure of an object it owns, as a Message Follow route names
/// it (and as an ActorRef hands out its location). On OK, `*found` says
/// whether this node owns the object; `*out` is written only when it does.
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` and `found` are writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_owner_route_end(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_route_end,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let end = rt
            .core
            .owner_route_end(kind_in(kind)?, id)
            .map_err(input_fail)?;
        if let Some(end) = &end {
            // SAFETY: checked above.
            unsafe { write(out, end.into()) };
        }
        // SAFETY: checked above.
        unsafe { write(found, end.is_some()) };
        Ok(())
    })
}

// ---------------------------------------------------------------- counters

/// One snapshot of the runtime's counters.
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

/// Reads every counter now into `*out`.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_stats_get(
    rt: *const zlink_runtime,
    out: *mut zlink_stats,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        let s = rt.core.stats();
        let inv = |r| s.invalidations_for(r);
        let stats = zlink_stats {
            cache_hits: s.cache_hits,
            cache_misses: s.cache_misses,
            cache_entries: s.cache_entries,
            cache_evictions: s.cache_evictions,
            store_reads: s.store_reads,
            store_failures: s.store_failures,
            store_recoveries: s.store_recoveries,
            resolutions_ready_route: s.resolutions.ready_route,
            resolutions_missing: s.resolutions.missing,
            resolutions_unavailable: s.resolutions.unavailable,
            resolutions_store_failure: s.resolutions.store_failure,
            invalidations_higher_store_version: inv(InvalidationReason::HigherStoreVersion),
            invalidations_stale_route: inv(InvalidationReason::StaleRoute),
            invalidations_store_recovery: inv(InvalidationReason::StoreRecovery),
            invalidations_owner_lease_invalidated: inv(InvalidationReason::OwnerLeaseInvalidated),
            invalidations_relay_notification: inv(InvalidationReason::RelayNotification),
            delivered: s.follow.delivered,
            relays: s.follow.relays,
            notifications_sent: s.follow.notifications_sent,
            notifications_suppressed: s.follow.notifications_suppressed,
            notification_failures: s.follow.notification_failures,
            rejections_sent: s.follow.rejections_sent,
            frames_dropped: s.follow.frames_dropped,
            requests_sent: s.requests.sent,
            requests_replies: s.requests.replies,
            requests_errors: s.requests.errors,
            requests_timeouts: s.requests.timeouts,
            requests_cancelled: s.requests.cancelled,
            requests_shutdown: s.requests.shutdown,
            requests_late_results: s.requests.late_results,
            requests_unroutable: s.requests.unroutable,
            frames_foreign_sender: s.follow.frames_foreign_sender,
            bind_timeouts: s.sessions.bind_timeouts,
            relocation_begun: s.relocation.begun,
            relocation_restores: s.relocation.restores,
            relocation_committed: s.relocation.committed,
            relocation_handed_off: s.relocation.handed_off,
            relocation_aborted: s.relocation.aborted,
            relocation_failed: s.relocation.failed,
            relocation_held: s.relocation.held,
            relocation_relayed: s.relocation.relayed,
            relocation_control_refused: s.relocation.control_refused,
            table_pending_requests: s.tables.pending_requests,
            table_request_deadlines: s.tables.request_deadlines,
            table_sessions: s.tables.sessions,
            table_pending_binds: s.tables.pending_binds,
            table_session_deadlines: s.tables.session_deadlines,
            table_registrations: s.tables.registrations,
            table_parked_binds: s.tables.parked_binds,
            table_parked_deadlines: s.tables.parked_deadlines,
            table_follow_routes: s.tables.follow_routes,
            table_follow_deadlines: s.tables.follow_deadlines,
            table_dedup_entries: s.tables.dedup_entries,
            table_dedup_evictions: s.tables.dedup_evictions,
            table_store_flights: s.tables.store_flights,
            table_relocation_sources: s.tables.relocation_sources,
            table_relocation_targets: s.tables.relocation_targets,
            table_relocation_deadlines: s.tables.relocation_deadlines,
        };
        // SAFETY: checked above.
        unsafe { write(out, stats) };
        Ok(())
    })
}
