//! The native half of the `zlink` npm package: a thin napi-rs v3 translation
//! of zlink-bridge. Calls take kinds as codes, IDs as strings, payloads as
//! `Buffer`s; results leave as `bridge::encode` bytes that `lib/decode.js`
//! turns into plain objects (one `Buffer` crosses instead of one napi object
//! per field). Calls that may reach the store run on the runtime's own
//! threads (never libuv's pool) and return Promises; cache-only calls are
//! synchronous, the hottest ones plain napi functions (`fast`). Errors are the
//! objects `lib/errors.js` builds (an `Error` subclass per family, with a
//! stable `code`), thrown or rejected as they are.
//!
//! A runtime is a `Closable` (the JavaScript thread is the host lock): a
//! synchronous call checks one flag; a job on its threads pins it; `close()` never
//! waits on the JavaScript thread: the stop runs on a thread of its own.

mod fast;
mod near;
mod ops;

use std::cell::RefCell;
use std::sync::Arc;

use napi::JsDeferred;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use zlink_bridge::encode::Encode;
use zlink_bridge::lifecycle::Closable;
use zlink_bridge::{Clock, Options, Store, Write, config, setup};

/// `(message, code, family) => Error`, from lib/errors.js.
type ErrorFactory = FunctionRef<FnArgs<(String, String, String)>, Unknown<'static>>;

thread_local! {
    /// The error factory, registered by lib/errors.js.
    static MAKE_ERROR: RefCell<Option<ErrorFactory>> = const { RefCell::new(None) };
}

/// Registers the function that builds the error objects (called once by
/// lib/errors.js).
#[napi(catch_unwind)]
pub fn set_error_factory(make: ErrorFactory) {
    MAKE_ERROR.with(|m| *m.borrow_mut() = Some(make));
}

/// The factory registered on this thread, if any (a later copy of
/// lib/errors.js takes its classes from it).
#[napi(catch_unwind, ts_return_type = "Function | null")]
pub fn registered_error_factory(env: &Env) -> Result<Option<Unknown<'_>>> {
    MAKE_ERROR.with(|m| match &*m.borrow() {
        Some(make) => Ok(Some(make.borrow_back(env)?.to_unknown())),
        None => Ok(None),
    })
}

/// A bridge error as the JavaScript error its family names.
fn js_error(env: &Env, e: &zlink_bridge::Error) -> napi::Error {
    let made = MAKE_ERROR.with(|m| -> Result<Option<napi::Error>> {
        match &*m.borrow() {
            Some(make) => {
                let make = make.borrow_back(env)?;
                let args = (
                    e.message.clone(),
                    e.kind.name().to_owned(),
                    e.family.name().to_owned(),
                );
                Ok(Some(napi::Error::from(make.call(FnArgs::from(args))?)))
            }
            None => Ok(None),
        }
    });
    match made {
        Ok(Some(error)) => error,
        _ => napi::Error::new(
            Status::GenericFailure,
            format!("{}: {}", e.kind.name(), e.message),
        ),
    }
}

fn bytes(v: &(impl Encode + ?Sized)) -> Buffer {
    v.to_bytes().into()
}

/// A manual or system clock.
#[napi]
pub struct NativeClock(Clock);

#[napi]
impl NativeClock {
    #[napi(constructor, catch_unwind)]
    pub fn new(manual: bool) -> Self {
        NativeClock(if manual {
            Clock::manual()
        } else {
            Clock::system()
        })
    }

    /// Moves a manual clock forward by `ms`.
    #[napi(catch_unwind)]
    pub fn advance(&self, env: Env, ms: f64) -> Result<()> {
        let ms = zlink_bridge::args::millis("ms", ms as i64).map_err(|e| js_error(&env, &e))?;
        let ms = u64::try_from(ms.as_millis()).unwrap_or(u64::MAX);
        self.0.advance(ms).map_err(|e| js_error(&env, &e))
    }

    /// Now, in milliseconds.
    #[napi(catch_unwind)]
    pub fn now_ms(&self) -> f64 {
        (self.0.now_ns() / 1_000_000) as f64
    }
}

/// A Location Store (memory or Redis).
#[napi]
pub struct NativeStore(Store);

#[napi]
impl NativeStore {
    /// The embedded store on `clock` (or the system's), with the default
    /// tombstone retention unless `retentionMs` is given.
    #[napi(factory, catch_unwind)]
    pub fn memory(clock: Option<&NativeClock>, retention_ms: Option<f64>) -> Self {
        let retention = retention_ms.map(|ms| std::time::Duration::from_millis(ms.max(0.0) as u64));
        NativeStore(Store::memory(clock.map(|c| &c.0), retention))
    }
}

/// Options of a Redis store; each not given keeps the core's default.
#[napi(object)]
pub struct RedisOptions {
    pub prefix: Option<String>,
    pub connect_timeout_ms: Option<f64>,
    pub response_timeout_ms: Option<f64>,
    pub epoch_check_interval_ms: Option<f64>,
    pub tombstone_retention_ms: Option<f64>,
    /// The bridge's write acknowledgement mode number (lib/index.js
    /// translates `writeAcks`); its count with it, read only for
    /// `Replicas`.
    pub write_acks_mode: Option<u32>,
    pub write_acks_replicas: Option<f64>,
    pub write_ack_timeout_ms: Option<f64>,
}

/// Connects to Redis, a Redis Cluster or a Sentinel-managed Redis on a
/// thread of its own (connecting blocks until connected or timed out;
/// libuv's four threads stay free): a Promise of the store.
#[napi(catch_unwind, ts_return_type = "Promise<NativeStore>")]
pub fn connect_redis<'env>(
    env: &'env Env,
    url: String,
    options: Option<RedisOptions>,
) -> Result<Object<'env>> {
    let ms = |v: Option<f64>, what: &str| -> Result<Option<u64>> {
        match v {
            None => Ok(None),
            Some(v) if v >= 0.0 && v.is_finite() => Ok(Some(v as u64)),
            Some(v) => {
                let e = zlink_bridge::Error::input(
                    zlink_bridge::ErrorKind::Negative,
                    format!("{what} must be >= 0 ms, got {v}"),
                );
                Err(js_error(env, &e))
            }
        }
    };
    let o = options.unwrap_or(RedisOptions {
        prefix: None,
        connect_timeout_ms: None,
        response_timeout_ms: None,
        epoch_check_interval_ms: None,
        tombstone_retention_ms: None,
        write_acks_mode: None,
        write_acks_replicas: None,
        write_ack_timeout_ms: None,
    });
    let write_acks = o
        .write_acks_mode
        .map(|mode| {
            // A whole number (lib/index.js); past i64 it saturates, and
            // the bridge refuses the count.
            let replicas = o.write_acks_replicas.unwrap_or(0.0) as i64;
            zlink_bridge::setup::write_acks(mode, replicas)
        })
        .transpose()
        .map_err(|e| js_error(env, &e))?;
    let fields = zlink_bridge::setup::RedisFields {
        prefix: o.prefix.as_deref(),
        connect_timeout: ms(o.connect_timeout_ms, "connectTimeoutMs")?,
        response_timeout: ms(o.response_timeout_ms, "responseTimeoutMs")?,
        epoch_check_interval: ms(o.epoch_check_interval_ms, "epochCheckIntervalMs")?,
        tombstone_retention: ms(o.tombstone_retention_ms, "tombstoneRetentionMs")?,
        // No Node call blocks a thread on a store read (misses are awaited
        // on the pool): the per-thread connections are never used here.
        thread_connections: None,
        write_acks,
        write_ack_timeout: ms(o.write_ack_timeout_ms, "writeAckTimeoutMs")?,
    };
    let options = fields.options();
    let (settle, promise) = Settle::<NativeStore>::new(env)?;
    let connect = move || {
        let open = std::panic::AssertUnwindSafe(|| Store::redis(&url, options));
        let store = std::panic::catch_unwind(open).unwrap_or_else(|_| {
            Err(zlink_bridge::Error::host(
                zlink_bridge::ErrorKind::Panic,
                "zlink bug (please report): a panic",
            ))
        });
        settle.done(store.map(NativeStore));
    };
    // Refused only when the OS has no thread left: then `Settle` rejects.
    let _ = std::thread::Builder::new()
        .name("zlink-connect".into())
        .spawn(connect);
    Ok(promise)
}

/// The default config's numbers.
#[napi(catch_unwind)]
pub fn config_default() -> Vec<f64> {
    config::values(&zlink_bridge::core::RoutingConfig::default())
        .map(|v| v as f64)
        .to_vec()
}

/// Checks 13 numbers as a config: the config's numbers.
#[napi(catch_unwind)]
pub fn config_check(env: Env, values: Vec<f64>) -> Result<Vec<f64>> {
    let c = config_of(&values).map_err(|e| js_error(&env, &e))?;
    Ok(config::values(&c).map(|v| v as f64).to_vec())
}

/// The config field names, in order.
#[napi(catch_unwind)]
pub fn config_fields() -> Vec<String> {
    config::FIELDS
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect()
}

fn config_of(values: &[f64]) -> zlink_bridge::Result<zlink_bridge::core::RoutingConfig> {
    let mut v = [0i128; 13];
    if values.len() != v.len() {
        return Err(zlink_bridge::Error::new(
            zlink_bridge::Family::Config,
            zlink_bridge::ErrorKind::ConfigSize,
            "a config is 13 numbers",
        ));
    }
    for (slot, x) in v.iter_mut().zip(values) {
        if x.fract() != 0.0 || !x.is_finite() {
            return Err(zlink_bridge::Error::new(
                zlink_bridge::Family::Config,
                zlink_bridge::ErrorKind::OutOfRange,
                format!("{x} is not an integer"),
            ));
        }
        *slot = *x as i128;
    }
    config::from_values(v)
}

/// One MeshNode's routing core.
#[napi]
pub struct NativeRuntime {
    rt: Arc<Closable<zlink_bridge::Runtime>>,
    /// Its number for the cache-hit functions (`fast`).
    number: f64,
}

impl Drop for NativeRuntime {
    fn drop(&mut self) {
        fast::unregister(self.number);
    }
}

/// What a runtime is built from; each part not given keeps its default.
#[napi(object)]
pub struct RuntimeParts {
    pub mesh: String,
    pub rid: BigInt,
    pub generation: Option<BigInt>,
    pub lease: Option<BigInt>,
    pub config: Option<Vec<f64>>,
    pub worker_threads: Option<u32>,
}

fn u64_of(env: &Env, v: &BigInt, what: &str) -> Result<u64> {
    let (negative, value, lossless) = v.get_u64();
    if negative || !lossless {
        let e = zlink_bridge::Error::input(
            zlink_bridge::ErrorKind::OutOfRange,
            format!("{what} must be a bigint in 0..2^64"),
        );
        return Err(js_error(env, &e));
    }
    Ok(value)
}

/// How a Promise another thread made is settled, on the JavaScript
/// thread: the value or the error's object.
type Settler<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

/// A Promise a thread of ours settles (the runtime's completion pool, a
/// connecting thread). Dropped unsettled (a job the pool dropped unrun
/// because the runtime stopped), it rejects with `Closed`, so no Promise is
/// left pending, and none keeps the process alive.
struct Settle<T: ToNapiValue + Send + 'static>(Option<JsDeferred<T, Settler<T>>>);

impl<T: ToNapiValue + Send + 'static> Settle<T> {
    /// A Promise and what settles it.
    fn new(env: &Env) -> Result<(Settle<T>, Object<'_>)> {
        let (deferred, promise) = env.create_deferred::<T, Settler<T>>()?;
        Ok((Settle(Some(deferred)), promise))
    }

    fn done(mut self, out: zlink_bridge::Result<T>) {
        if let Some(deferred) = self.0.take() {
            deferred.resolve(Box::new(move |env| out.map_err(|e| js_error(&env, &e))));
        }
    }
}

impl<T: ToNapiValue + Send + 'static> Drop for Settle<T> {
    fn drop(&mut self) {
        if let Some(deferred) = self.0.take() {
            let closed = zlink_bridge::Error::closed("Runtime");
            deferred.resolve(Box::new(move |env| Err(js_error(&env, &closed))));
        }
    }
}

impl NativeRuntime {
    fn get(&self, env: &Env) -> Result<&zlink_bridge::Runtime> {
        self.rt.get().map_err(|e| js_error(env, &e))
    }

    /// Runs a blocking bridge call on the runtime's completion pool (its
    /// own threads, never libuv's four, which a stalled store would
    /// fill): a Promise of its bytes. A closed runtime throws at once.
    fn call<'env>(
        &self,
        env: &'env Env,
        work: impl FnOnce(&zlink_bridge::Runtime) -> zlink_bridge::Result<Vec<u8>> + Send + 'static,
    ) -> Result<Object<'env>> {
        let runtime = self.get(env)?;
        let (settle, promise) = Settle::<Buffer>::new(env)?;
        let rt = self.rt.clone();
        // Refused only by a runtime stopped since `get`: then the job is
        // dropped and `Settle` rejects with `Closed`.
        let _ =
            runtime.spawn(move || settle.done(rt.pin().and_then(|rt| work(&rt)).map(Buffer::from)));
        Ok(promise)
    }
}

#[napi]
impl NativeRuntime {
    /// Starts a runtime.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        parts: RuntimeParts,
        store: Option<&NativeStore>,
        clock: Option<&NativeClock>,
    ) -> Result<Self> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let rid = u64_of(&env, &parts.rid, "rid")?;
        let generation = parts
            .generation
            .as_ref()
            .map(|g| u64_of(&env, g, "generation"))
            .transpose()?;
        let lease = parts
            .lease
            .as_ref()
            .map(|g| u64_of(&env, g, "lease"))
            .transpose()?;
        let identity = setup::identity(
            parts.mesh.as_str(),
            rid,
            generation.unwrap_or(1),
            lease.unwrap_or(1),
        )
        .map_err(fail)?;
        let config = parts
            .config
            .as_deref()
            .map(config_of)
            .transpose()
            .map_err(fail)?;
        let store = store.map(|s| s.0.get()).transpose().map_err(fail)?;
        let options = Options {
            config,
            store,
            clock: clock.map(|c| c.0.clone()),
            worker_threads: parts.worker_threads.map(|n| n as usize),
        };
        let rt = zlink_bridge::Runtime::new(identity, options).map_err(fail)?;
        let rt = Arc::new(Closable::new(rt, "Runtime"));
        Ok(NativeRuntime {
            number: fast::register(&rt),
            rt,
        })
    }

    /// Its number for `lookupRoute` and `lookupRoutes` (this thread only).
    #[napi(getter, catch_unwind)]
    pub fn number(&self) -> f64 {
        self.number
    }

    /// Refuses later calls; calls on the pool finish and the runtime stops
    /// on a thread of its own (the event loop never waits).
    #[napi(catch_unwind)]
    pub fn close(&self) {
        if self.rt.refuse() {
            let rt = self.rt.clone();
            std::thread::spawn(move || rt.drain().stop());
        }
    }

    /// Whether `close()` was called.
    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.rt.is_closed()
    }

    /// The identity's bytes.
    #[napi(catch_unwind)]
    pub fn identity(&self, env: Env) -> Result<Buffer> {
        let me = self.get(&env)?.identity().map_err(|e| js_error(&env, &e))?;
        Ok(bytes(&me))
    }

    /// The config in force, as its numbers.
    #[napi(catch_unwind)]
    pub fn config(&self, env: Env) -> Result<Vec<f64>> {
        let c = self.get(&env)?.config().map_err(|e| js_error(&env, &e))?;
        Ok(config::values(&c).map(|v| v as f64).to_vec())
    }

    /// Replaces the config in force with 13 checked numbers.
    #[napi(catch_unwind)]
    pub fn update_config(&self, env: Env, values: Vec<f64>) -> Result<()> {
        let fail = |e: zlink_bridge::Error| js_error(&env, &e);
        let config = config_of(&values).map_err(fail)?;
        self.get(&env)?.update_config(config).map_err(fail)
    }

    /// Resolves on the runtime's own threads (the core's asynchronous
    /// resolution: concurrent misses of one ID share one store read): a
    /// Promise of the resolution's bytes. Bad input throws at once.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn resolve<'env>(&self, env: &'env Env, kind: u32, id: String) -> Result<Object<'env>> {
        let runtime = self.get(env)?;
        // The same checks, in the same order, as the resolution's own, so
        // nothing after the Promise exists can fail but a stop.
        runtime
            .lookup_cached(kind, id.as_str())
            .map_err(|e| js_error(env, &e))?;
        let (settle, promise) = Settle::<Buffer>::new(env)?;
        let _ = runtime.resolve_async(kind, id.as_str(), move |resolved| {
            settle.done(Ok(resolved.to_bytes().into()))
        });
        Ok(promise)
    }

    /// One lifecycle write on the pool (1 create, 2 publishReady,
    /// 3 activate, 4 renewLease, 5 beginRelease): the owned object's bytes.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn write<'env>(
        &self,
        env: &'env Env,
        op: u32,
        kind: u32,
        id: String,
    ) -> Result<Object<'env>> {
        self.call(env, move |rt| {
            let write = match op {
                1 => Write::Create,
                2 => Write::PublishReady,
                3 => Write::Activate,
                4 => Write::RenewLease,
                _ => Write::BeginRelease,
            };
            Ok(rt.write(kind, id.as_str(), write)?.to_bytes())
        })
    }

    /// Completes a release on the pool.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn complete_release<'env>(
        &self,
        env: &'env Env,
        kind: u32,
        id: String,
    ) -> Result<Object<'env>> {
        self.call(env, move |rt| {
            rt.complete_release(kind, id.as_str()).map(|()| Vec::new())
        })
    }

    /// How many objects this node owns.
    #[napi(catch_unwind)]
    pub fn owned_count(&self, env: Env) -> Result<u32> {
        let core = self.get(&env)?.core().map_err(|e| js_error(&env, &e))?;
        Ok(core.owned_count() as u32)
    }

    /// Every counter's bytes.
    #[napi(catch_unwind)]
    pub fn stats(&self, env: Env) -> Result<Buffer> {
        let counters = self.get(&env)?.stats().map_err(|e| js_error(&env, &e))?;
        Ok(bytes(&counters[..]))
    }
}

/// Log records waiting for the event loop at most.
const LOG_QUEUE: usize = 1024;

/// `(level, target, message) => void`.
type LogCallback<'a> = Function<'a, FnArgs<(String, String, String)>, ()>;

/// Sends the core's log records at `level` (1 error ..= 5 trace) and more
/// severe to `callback(level, target, message)` on the JavaScript thread,
/// through a thread-safe function that never blocks the core (a full queue
/// drops records) and never keeps the process alive. `null` stops.
#[napi(catch_unwind)]
pub fn set_log_callback(env: Env, callback: Option<LogCallback<'_>>, level: u32) -> Result<()> {
    use napi::threadsafe_function::ThreadsafeFunctionCallMode;
    let fail = |e: zlink_bridge::Error| js_error(&env, &e);
    let Some(callback) = callback else {
        return zlink_bridge::logs::set_sink(None, zlink_bridge::codes::LogLevel::Error)
            .map_err(fail);
    };
    let level = zlink_bridge::args::Arg::get(level).map_err(fail)?;
    let tsfn = callback
        .build_threadsafe_function::<(String, String, String)>()
        .weak::<true>()
        .callee_handled::<false>()
        // Records past this many waiting for the event loop are dropped
        // (a NonBlocking call on a full queue fails), never buffered.
        .max_queue_size::<LOG_QUEUE>()
        .build_callback(|ctx| Ok(FnArgs::from(ctx.value)))?;
    let sink: zlink_bridge::logs::Sink = Box::new(move |level, target, message| {
        let record = (
            level.name().to_owned(),
            target.to_owned(),
            message.to_owned(),
        );
        tsfn.call(record, ThreadsafeFunctionCallMode::NonBlocking);
    });
    zlink_bridge::logs::set_sink(Some(sink), level).map_err(fail)
}

/// Decodes one frame strictly (docs/wire.md): its command's name, its
/// description (the golden vectors' JSON) and its bytes encoded again, as
/// `bridge::encode` bytes; limits not given are the defaults.
#[napi(catch_unwind)]
pub fn wire_decode(
    env: Env,
    data: Buffer,
    max_object_id_bytes: Option<f64>,
    max_payload_bytes: Option<f64>,
    max_state_bytes: Option<f64>,
) -> Result<Buffer> {
    let mut limits = zlink_bridge::core::wire::DecodeLimits::default();
    for (field, v) in [
        (&mut limits.max_object_id_bytes, max_object_id_bytes),
        (&mut limits.max_payload_bytes, max_payload_bytes),
        (&mut limits.max_state_bytes, max_state_bytes),
    ] {
        if let Some(v) = v {
            *field = v.max(0.0) as usize;
        }
    }
    let frame = zlink_bridge::core::wire::decode(&data, &limits)
        .map_err(|e| js_error(&env, &zlink_bridge::Error::from(e)))?;
    let mut w = zlink_bridge::encode::Writer::new();
    w.str(zlink_bridge::core::wire::json::command_name(&frame))
        .str(&zlink_bridge::core::wire::json::describe(&frame).to_string())
        .bytes(&zlink_bridge::core::wire::encode(&frame));
    Ok(w.finish().into())
}
