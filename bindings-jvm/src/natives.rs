//! The entry points of `io.zlink.Native`, one per operation, in the order
//! of `docs/runtime.md`. Kinds arrive as their codes (`int`), IDs as UTF-8
//! `byte[]`, durations as milliseconds; results leave as primitives or as
//! `bridge::encode` bytes.

use jni::objects::{JByteArray, JLongArray, JObject, JObjectArray, JString};

// The Java types of the object parameters, by name: zlink-schema writes
// Native.java's declarations from these functions' signatures.
/// A `CompletableFuture<byte[]>` the call completes.
type JFuture<'l> = JObject<'l>;
/// A `Runnable` run on the runtime's completion pool.
type JRunnable<'l> = JObject<'l>;
/// A `byte[][]`.
type JByteArrays<'l> = JObjectArray<'l>;
use jni::refs::Global;
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, JValue, JavaVM, jni_sig, jni_str};
use zlink_bridge::args::{Arg, request_options};
use zlink_bridge::decode;
use zlink_bridge::encode::{self, Encode};
use zlink_bridge::setup::RedisFields;
use zlink_bridge::surface;
use zlink_bridge::{Clock, Error, ErrorKind, Options, Resolved, Store, Write, config, setup};
use zlink_core::wire::{ActorRoute, NodeRef, Operation, SessionRef};

use crate::entry_points;
use crate::handles::{CLOCKS, RUNTIMES, STORES, free, pin, register};
use crate::throw::Fail;

type Result<T> = std::result::Result<T, Fail>;

/// `io.zlink.ZlinkException`, for failing a future from a Rust thread
/// (whose class loader would not find it).
static ZLINK_EXCEPTION: std::sync::OnceLock<Global<jni::objects::JClass<'static>>> =
    std::sync::OnceLock::new();

/// Keeps the classes Rust threads use, resolved by the loading thread.
pub(crate) fn on_load(env: &mut Env<'_>) -> jni::errors::Result<()> {
    let class = env.find_class(jni_str!("io/zlink/ZlinkException"))?;
    let _ = ZLINK_EXCEPTION.set(env.new_global_ref(&class)?);
    Ok(())
}

fn bytes(env: &mut Env<'_>, array: &JByteArray<'_>) -> Result<Vec<u8>> {
    Ok(env.convert_byte_array(array)?)
}

fn text(env: &mut Env<'_>, s: &JString<'_>) -> Result<String> {
    Ok(s.try_to_string(env)?)
}

fn encoded<'l>(env: &mut Env<'l>, v: &(impl Encode + ?Sized)) -> Result<JByteArray<'l>> {
    Ok(env.byte_array_from_slice(&v.to_bytes())?)
}

fn encoded_opt<'l>(env: &mut Env<'l>, v: Option<impl Encode>) -> Result<JByteArray<'l>> {
    match v {
        Some(v) => encoded(env, &v),
        None => Ok(JByteArray::null()),
    }
}

/// A node of this runtime's mesh, from Java's numbers.
fn node_ref(mesh: &str, rid: jlong, generation: jlong) -> Result<NodeRef> {
    Ok(NodeRef {
        mesh: zlink_core::MeshName::new(mesh).map_err(Error::from)?,
        rid: zlink_core::NodeRid(rid as u64),
        generation: zlink_core::NodeGeneration(generation as u64),
    })
}

/// An ActorRoute from Java's mesh and numbers (owner rid, owner generation,
/// object generation, authority owner generation, owner lease generation,
/// lease time left).
fn actor_route(env: &mut Env<'_>, mesh: &str, numbers: &JLongArray<'_>) -> Result<ActorRoute> {
    let mut v = [0 as jlong; 6];
    if numbers.len(env)? != v.len() {
        return Err(Error::host(ErrorKind::Panic, "an actor route is 6 numbers").into());
    }
    numbers.get_region(env, 0, &mut v)?;
    Ok(ActorRoute {
        owner: node_ref(mesh, v[0], v[1])?,
        object_generation: zlink_core::ObjectGeneration(v[2] as u64),
        authority_owner_generation: zlink_core::AuthorityOwnerGeneration(v[3] as u64),
        owner_lease_generation: zlink_core::OwnerLeaseGeneration(v[4] as u64),
        lease_remaining_ms: v[5] as u64,
    })
}

/// The operations a host saved for a relocation, from their frames.
fn saved_operations(env: &mut Env<'_>, frames: &JObjectArray<'_>) -> Result<Vec<Operation>> {
    if frames.is_null() {
        return Ok(Vec::new());
    }
    let n = frames.len(env)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // One local frame per element: thousands of saved operations must
        // not exhaust the JVM's local references.
        let frame = env.with_local_frame(2, |env| -> Result<Vec<u8>> {
            let element = frames.get_element(env, i)?;
            let array = env.cast_local::<JByteArray<'_>>(element)?;
            bytes(env, &array)
        })?;
        out.push(decode::operation(&frame)?);
    }
    Ok(out)
}

fn string_or_null<'l>(env: &mut Env<'l>, s: Option<String>) -> Result<JString<'l>> {
    match s {
        Some(s) => Ok(env.new_string(s)?),
        None => Ok(JString::null()),
    }
}

fn longs<'l>(env: &mut Env<'l>, values: &[u64]) -> Result<JLongArray<'l>> {
    let out = env.new_long_array(values.len())?;
    let signed: Vec<jlong> = values.iter().map(|v| *v as jlong).collect();
    out.set_region(env, 0, &signed)?;
    Ok(out)
}

/// A config from Java's 13 numbers (`RoutingConfig`), checked.
fn config_of(env: &mut Env<'_>, values: &JLongArray<'_>) -> Result<zlink_core::RoutingConfig> {
    let mut v = [0 as jlong; 13];
    if values.len(env)? != v.len() {
        let e = Error::host(ErrorKind::ConfigSize, "a config is 13 numbers");
        return Err(e.into());
    }
    values.get_region(env, 0, &mut v)?;
    Ok(config::from_values(v.map(i128::from))?)
}

/// `-1` (Java's "not given") as None.
fn given(v: jlong) -> Option<u64> {
    u64::try_from(v).ok()
}

/// `-1` as None; another negative value is refused, naming `field`.
fn given_checked(v: jlong, field: &str) -> Result<Option<u64>> {
    match v {
        -1 => Ok(None),
        v => Ok(Some(
            zlink_bridge::args::millis(field, v)?.as_millis() as u64
        )),
    }
}

/// `-1` as None, any other value as given (a negative one is refused by
/// the bridge, naming the field).
fn optional(v: jlong) -> Option<i64> {
    (v != -1).then_some(v)
}

fn write_of(op: jint) -> Result<Write> {
    Ok(match op {
        1 => Write::Create,
        2 => Write::PublishReady,
        3 => Write::Activate,
        4 => Write::RenewLease,
        5 => Write::BeginRelease,
        _ => return Err(Error::host(ErrorKind::Panic, format!("no write {op}")).into()),
    })
}

const RUNTIME: &str = "ZlinkRuntime";

/// Completes `future` with `value`'s bytes, on a Rust thread.
fn complete(vm: &JavaVM, future: &Global<JObject<'static>>, value: &impl Encode) {
    let done = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
        let bytes = env.byte_array_from_slice(&value.to_bytes())?;
        env.call_method(
            future,
            jni_str!("complete"),
            jni_sig!((value: JObject) -> jboolean),
            &[JValue::Object(&bytes)],
        )?;
        Ok(())
    });
    if let Err(e) = done {
        // The future must not hang: fail it with what went wrong.
        let failed = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
            let error = Error::host(ErrorKind::Panic, format!("completing a future failed: {e}"));
            let message = env.new_string(&error.message)?;
            let kind = env.new_string(error.kind.name())?;
            let class = ZLINK_EXCEPTION
                .get()
                .ok_or(jni::errors::Error::NullPtr("ZlinkException"))?;
            let exception = env.new_object(
                class,
                jni_sig!((message: JString, kind: JString, refusal: JString) -> void),
                &[
                    JValue::Object(&message),
                    JValue::Object(&kind),
                    JValue::Object(&JObject::null()),
                ],
            )?;
            env.call_method(
                future,
                jni_str!("completeExceptionally"),
                jni_sig!((ex: java.lang.Throwable) -> jboolean),
                &[JValue::Object(&exception)],
            )?;
            Ok(())
        });
        if let Err(e) = failed {
            eprintln!("zlink: a CompletableFuture could not be completed: {e}");
        }
    }
}

entry_points! {
    // ---- config, clocks, stores ----------------------------------------

    /// The default config as its 13 numbers.
    fn Java_io_zlink_Native_configDefault(env) -> JLongArray<'local> {
        longs(env, &config::values(&zlink_core::RoutingConfig::default()))
    }

    /// Checks 13 numbers as a config; the config's numbers.
    fn Java_io_zlink_Native_configCheck(env, values: JLongArray<'local>) -> JLongArray<'local> {
        let c = config_of(env, &values)?;
        longs(env, &config::values(&c))
    }

    /// The config's field names, in order, comma-separated.
    fn Java_io_zlink_Native_configFields(env) -> JString<'local> {
        let names: Vec<&str> = config::FIELDS.iter().map(|(name, _)| *name).collect();
        Ok(env.new_string(names.join(","))?)
    }

    /// A clock: the system's (`manual` false) or a manual one.
    fn Java_io_zlink_Native_clockNew(_env, manual: jboolean) -> jlong {
        let clock = if manual { Clock::manual() } else { Clock::system() };
        Ok(register(&CLOCKS, clock, "Clock")?)
    }

    /// Moves a manual clock forward.
    fn Java_io_zlink_Native_clockAdvance(_env, clock: jlong, ms: jlong) -> () {
        let ms = zlink_bridge::args::millis("ms", ms)?;
        let ms = u64::try_from(ms.as_millis()).unwrap_or(u64::MAX);
        Ok(pin(&CLOCKS, clock, "Clock")?.advance(ms)?)
    }

    /// The clock's now, in nanoseconds.
    fn Java_io_zlink_Native_clockNow(_env, clock: jlong) -> jlong {
        Ok(pin(&CLOCKS, clock, "Clock")?.now_ns() as jlong)
    }

    /// Frees a clock (runtimes and stores using it keep it alive).
    fn Java_io_zlink_Native_clockFree(_env, clock: jlong) -> () {
        free(&CLOCKS, clock);
        Ok(())
    }

    /// The embedded store; `clock` 0 for the system's, `retention_ms` -1
    /// for the default.
    fn Java_io_zlink_Native_storeMemory(_env, clock: jlong, retention_ms: jlong) -> jlong {
        let retention = given_checked(retention_ms, "tombstone retention")?;
        let retention = retention.map(std::time::Duration::from_millis);
        let store = if clock == 0 {
            Store::memory(None, retention)
        } else {
            Store::memory(Some(&*pin(&CLOCKS, clock, "Clock")?), retention)
        };
        Ok(register(&STORES, store, "MemoryStore")?)
    }

    /// Connects to Redis; -1 / null for the defaults (a negative thread
    /// connection count is refused in Java; the bridge checks the write
    /// acknowledgement mode and count, the count read only for its mode).
    /// Blocks.
    fn Java_io_zlink_Native_storeRedis(
        env,
        url: JString<'local>,
        prefix: JString<'local>,
        connect_ms: jlong,
        response_ms: jlong,
        epoch_ms: jlong,
        retention_ms: jlong,
        thread_connections: jint,
        write_acks_mode: jint,
        write_acks_replicas: jint,
        write_ack_timeout_ms: jlong,
    ) -> jlong {
        let url = text(env, &url)?;
        let prefix = if prefix.is_null() { None } else { Some(text(env, &prefix)?) };
        let fields = RedisFields {
            prefix: prefix.as_deref(),
            connect_timeout: given_checked(connect_ms, "connect timeout")?,
            response_timeout: given_checked(response_ms, "response timeout")?,
            epoch_check_interval: given_checked(epoch_ms, "epoch check interval")?,
            tombstone_retention: given_checked(retention_ms, "tombstone retention")?,
            thread_connections: usize::try_from(thread_connections).ok(),
            write_acks: match write_acks_mode {
                -1 => None,
                mode => Some(setup::write_acks(
                    u32::try_from(mode).unwrap_or(0),
                    i64::from(write_acks_replicas),
                )?),
            },
            write_ack_timeout: given_checked(write_ack_timeout_ms, "write ack timeout")?,
        };
        let store = Store::redis(&url, fields.options())?;
        Ok(register(&STORES, store, "RedisStore")?)
    }

    /// Frees a store (runtimes using it keep it alive).
    fn Java_io_zlink_Native_storeFree(_env, store: jlong) -> () {
        free(&STORES, store);
        Ok(())
    }

    // ---- 1-3: the runtime ---------------------------------------------

    /// Starts a runtime. `config` may be null (defaults), `store` and
    /// `clock` 0 (a private MemoryStore, the system clock), `workers` 0.
    fn Java_io_zlink_Native_runtimeNew(
        env,
        mesh: JString<'local>,
        rid: jlong,
        generation: jlong,
        lease: jlong,
        config: JLongArray<'local>,
        store: jlong,
        clock: jlong,
        workers: jint,
    ) -> jlong {
        let mesh = text(env, &mesh)?;
        let identity = setup::identity(mesh.as_str(), rid as u64, generation as u64, lease as u64)?;
        let config = if config.is_null() { None } else { Some(config_of(env, &config)?) };
        let store = match store {
            0 => None,
            s => Some(pin(&STORES, s, "LocationStore")?.get()?),
        };
        let clock = match clock {
            0 => None,
            c => Some((*pin(&CLOCKS, c, "Clock")?).clone()),
        };
        let worker_threads = usize::try_from(workers).ok().filter(|n| *n > 0);
        let options = Options { config, store, clock, worker_threads };
        let rt = zlink_bridge::Runtime::new(identity, options)?;
        Ok(register(&RUNTIMES, rt, RUNTIME)?)
    }

    /// Refuses (WrongThread) inside one of the runtime's own completions:
    /// `close` asks before it gives up its handle.
    fn Java_io_zlink_Native_runtimeMayClose(_env, rt: jlong) -> () {
        if let Ok(live) = crate::handles::RUNTIMES.get(rt as usize) {
            live.may_close("ZlinkRuntime.close")?;
        }
        Ok(())
    }

    /// Closes a runtime: waits for calls in flight and pending completions.
    fn Java_io_zlink_Native_runtimeFree(_env, rt: jlong) -> () {
        // Unregistered first (waiting for calls in flight), so a job still
        // queued finds the runtime closed; then its jobs and completions end.
        if let Some(rt) = free(&RUNTIMES, rt) {
            rt.stop();
        }
        Ok(())
    }

    /// The runtime's identity.
    fn Java_io_zlink_Native_identity(env, rt: jlong) -> JByteArray<'local> {
        let me = pin(&RUNTIMES, rt, RUNTIME)?.identity()?;
        encoded(env, &me)
    }

    /// The config in force.
    fn Java_io_zlink_Native_config(env, rt: jlong) -> JLongArray<'local> {
        let c = pin(&RUNTIMES, rt, RUNTIME)?.config()?;
        longs(env, &config::values(&c))
    }

    /// Replaces the config.
    fn Java_io_zlink_Native_updateConfig(env, rt: jlong, values: JLongArray<'local>) -> () {
        let c = config_of(env, &values)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.update_config(c)?)
    }

    // ---- 4-6: resolution -----------------------------------------------

    /// Resolves an ID (blocks on the store on a miss).
    fn Java_io_zlink_Native_resolve(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let resolved = pin(&RUNTIMES, rt, RUNTIME)?.resolve(kind as u32, &id[..])?;
        encoded(env, &resolved)
    }

    /// Resolves many IDs of one kind in one call (a miss reads the store,
    /// blocking): the results' bytes, a list in order. `ids` holds the IDs'
    /// UTF-8 one after another; `ends[i]` is where ID `i` ends.
    fn Java_io_zlink_Native_resolveMany(
        env,
        rt: jlong,
        kind: jint,
        ids: JByteArray<'local>,
        ends: JLongArray<'local>,
    ) -> JByteArray<'local> {
        let all = bytes(env, &ids)?;
        let mut at = vec![0 as jlong; ends.len(env)?];
        ends.get_region(env, 0, &mut at)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let mut out = Vec::with_capacity(at.len());
        let mut start = 0;
        for end in at {
            let end = usize::try_from(end)
                .ok()
                .filter(|e| (start..=all.len()).contains(e))
                .ok_or_else(|| Error::input(ErrorKind::OutOfRange, "an ID's end is out of order"))?;
            out.push(rt.resolve(kind as u32, &all[start..end])?);
            start = end;
        }
        encoded(env, &out[..])
    }

    /// Resolves an ID without blocking: completes `future` with the
    /// result's bytes from a runtime thread.
    fn Java_io_zlink_Native_resolveAsync(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        future: JFuture<'local>,
    ) -> () {
        let id = bytes(env, &id)?;
        let future = env.new_global_ref(&future)?;
        let vm = env.get_java_vm()?;
        let done = move |resolved: Resolved| complete(&vm, &future, &resolved);
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.resolve_async(kind as u32, &id[..], done)?)
    }

    /// Runs the Java `job` (a Runnable) on a runtime thread: the async form
    /// of every blocking call. `close` waits for it.
    fn Java_io_zlink_Native_spawn(env, rt: jlong, job: JRunnable<'local>) -> () {
        let job = env.new_global_ref(&job)?;
        let vm = env.get_java_vm()?;
        let run = move || {
            let ran = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
                env.call_method(&job, jni_str!("run"), jni_sig!(() -> void), &[])?;
                Ok(())
            });
            if let Err(e) = ran {
                eprintln!("zlink: an asynchronous call failed outside its future: {e}");
            }
        };
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.spawn(run)?)
    }

    /// Cache only: the route's bytes, or null.
    fn Java_io_zlink_Native_lookupCached(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let hit = pin(&RUNTIMES, rt, RUNTIME)?.lookup_cached(kind as u32, &id[..])?;
        encoded_opt(env, hit)
    }

    // ---- 7-13: operations, frames, replies, timers ----------------------

    /// Sends a one-way message; `deadline_ms` -1 for the default.
    fn Java_io_zlink_Native_send(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
    ) -> JByteArray<'local> {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let options = request_options(instance_intent, optional(deadline_ms), None)?;
        let sent = pin(&RUNTIMES, rt, RUNTIME)?.send(kind as u32, &id[..], &payload, options.send)?;
        encoded(env, &sent)
    }

    /// Sends a request; -1 for the defaults; `origin` null or a Spot's ID.
    fn Java_io_zlink_Native_request(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
        timeout_ms: jlong,
        origin: JByteArray<'local>,
        origin_generation: jlong,
    ) -> JByteArray<'local> {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let mut options =
            request_options(instance_intent, optional(deadline_ms), optional(timeout_ms))?;
        if !origin.is_null() {
            let spot = bytes(env, &origin)?;
            let spot = zlink_bridge::runtime::spot_execution(&spot[..], origin_generation as u64)?;
            options.origin = Some(spot);
        }
        let sent = pin(&RUNTIMES, rt, RUNTIME)?.request(kind as u32, &id[..], &payload, options)?;
        encoded(env, &sent)
    }

    /// What to do with one frame from node `from`.
    fn Java_io_zlink_Native_onFrame(env, rt: jlong, from: jlong, frame: JByteArray<'local>) -> JByteArray<'local> {
        let frame = bytes(env, &frame)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.on_frame(from as u64, &frame)?;
        encoded(env, &surface::Inbound::from(d))
    }

    /// Answers a delivered request: `payload`, or (payload null) an error
    /// of kind `error_kind` (1 Handler, 2 Decode) with `code`, `message`.
    fn Java_io_zlink_Native_reply(
        env,
        rt: jlong,
        operation: JByteArray<'local>,
        payload: JByteArray<'local>,
        error_kind: jint,
        code: jint,
        message: JString<'local>,
    ) -> JByteArray<'local> {
        let operation = decode::operation(&bytes(env, &operation)?)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = if payload.is_null() {
            let kind = Arg::get(error_kind as u32)?;
            let message = text(env, &message)?;
            rt.reply(Some(&operation), None, Some((kind, code as u32, message.as_str())))?
        } else {
            let payload = bytes(env, &payload)?;
            rt.reply(Some(&operation), Some(&payload), None::<(_, _, &str)>)?
        };
        encoded(env, &out)
    }

    /// Reports whether a Relay's notification was sent.
    fn Java_io_zlink_Native_noticeSettled(env, rt: jlong, token: JByteArray<'local>, sent: jboolean) -> () {
        let token = decode::notice_token(&bytes(env, &token)?)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.notice_settled(Some(&token), sent)?)
    }

    /// Cancels a pending request: its Completed decision, or null.
    fn Java_io_zlink_Native_cancel(env, rt: jlong, correlation: jlong) -> JByteArray<'local> {
        let done = pin(&RUNTIMES, rt, RUNTIME)?.cancel(correlation as u64)?;
        encoded_opt(env, done.map(surface::Inbound::from))
    }

    /// Ends every pending request with Shutdown: their decisions.
    fn Java_io_zlink_Native_shutdownRequests(env, rt: jlong) -> JByteArray<'local> {
        let done = pin(&RUNTIMES, rt, RUNTIME)?.shutdown_requests()?;
        encoded(env, &surface::decisions(done)[..])
    }

    /// Requests waiting for their result.
    fn Java_io_zlink_Native_pendingRequests(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.pending_requests()? as jlong)
    }

    /// The runtime clock now (ns).
    fn Java_io_zlink_Native_now(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.now()? as jlong)
    }

    /// The earliest deadline (ns), or -1.
    fn Java_io_zlink_Native_nextDeadline(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.next_deadline()?.map_or(-1, |t| t as jlong))
    }

    /// Runs the deadlines due at `now_ns` (-1: the clock's now).
    fn Java_io_zlink_Native_onTimeout(env, rt: jlong, now_ns: jlong) -> JByteArray<'local> {
        let ds = pin(&RUNTIMES, rt, RUNTIME)?.on_timeout(given(now_ns))?;
        encoded(env, &surface::decisions(ds)[..])
    }

    // ---- 14-17: the lifecycle writes -----------------------------------

    /// One lifecycle write (1 create, 2 publishReady, 3 activate,
    /// 4 renewLease, 5 beginRelease): the owned object.
    fn Java_io_zlink_Native_write(env, rt: jlong, op: jint, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let owned = pin(&RUNTIMES, rt, RUNTIME)?.write(kind as u32, &id[..], write_of(op)?)?;
        encoded(env, &owned)
    }

    /// Completes a release: the ID resolves Missing.
    fn Java_io_zlink_Native_completeRelease(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> () {
        let id = bytes(env, &id)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.complete_release(kind as u32, &id[..])?)
    }

    /// What this node owns for the ID, or null.
    fn Java_io_zlink_Native_owned(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let owned = pin(&RUNTIMES, rt, RUNTIME)?.owned(kind as u32, &id[..])?;
        encoded_opt(env, owned)
    }

    /// How many objects this node owns.
    fn Java_io_zlink_Native_ownedCount(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.core()?.owned_count() as jlong)
    }

    /// This node's tenure of an object it owns, or null.
    fn Java_io_zlink_Native_ownerRouteEnd(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let end = pin(&RUNTIMES, rt, RUNTIME)?.owner_route_end(kind as u32, &id[..])?;
        encoded_opt(env, end)
    }

    // ---- 18-20: relocation ----------------------------------------------

    /// Source: starts moving an object to runtime `target_rid` of this
    /// mesh, with the operations saved (their frames) and the state.
    fn Java_io_zlink_Native_beginRelocation(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        target_rid: jlong,
        target_generation: jlong,
        saved: JByteArrays<'local>,
        state: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let operations = saved_operations(env, &saved)?;
        let state = bytes(env, &state)?;
        let count = operations.len();
        let started = pin(&RUNTIMES, rt, RUNTIME)?.begin_relocation(
            kind as u32,
            &id[..],
            target_rid as u64,
            target_generation as u64,
            count,
            move || Ok(operations),
            &state,
        )?;
        encoded(env, &started)
    }

    /// Target: the object was rebuilt; relay-ready's frames.
    fn Java_io_zlink_Native_relocationRestored(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let send = pin(&RUNTIMES, rt, RUNTIME)?.relocation_restored(kind as u32, &id[..])?;
        encoded(env, &send[..])
    }

    /// Abandons a relocation before relay-ready: its Relocation decision.
    fn Java_io_zlink_Native_abortRelocation(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.abort_relocation(kind as u32, &id[..])?;
        encoded(env, &surface::Inbound::from(d))
    }

    // ---- 21-26: sessions -----------------------------------------------

    /// Opens a Session owned by this runtime.
    fn Java_io_zlink_Native_openSession(env, rt: jlong, session: jlong, generation: jlong) -> JByteArray<'local> {
        let s = pin(&RUNTIMES, rt, RUNTIME)?.open_session(session as u64, generation as u64)?;
        encoded(env, &s)
    }

    /// Binds `session` to an Actor at the route `mesh` + `route` names.
    fn Java_io_zlink_Native_bind(
        env,
        rt: jlong,
        session: jlong,
        actor: JByteArray<'local>,
        mesh: JString<'local>,
        route: JLongArray<'local>,
    ) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let mesh = text(env, &mesh)?;
        let route = actor_route(env, &mesh, &route)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.bind(session as u64, zlink_core::ObjectKind::Actor, &actor[..], route)?;
        encoded(env, &out)
    }

    /// The stored binding route of an Actor in a Session, or null.
    fn Java_io_zlink_Native_binding(env, rt: jlong, session: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let b = rt.binding(session as u64, zlink_core::ObjectKind::Actor, &actor[..])?;
        encoded_opt(env, b)
    }

    /// Relays `payload` from a Session to a bound Actor.
    fn Java_io_zlink_Native_sessionSend(
        env,
        rt: jlong,
        session: jlong,
        actor: JByteArray<'local>,
        payload: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let (actor, payload) = (bytes(env, &actor)?, bytes(env, &payload)?);
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let sent = rt.session_send(session as u64, zlink_core::ObjectKind::Actor, &actor[..], &payload)?;
        encoded(env, &sent)
    }

    /// The Session disconnected: the notifications to carry.
    fn Java_io_zlink_Native_disconnectSession(env, rt: jlong, session: jlong, physical: jboolean) -> JByteArray<'local> {
        let out = pin(&RUNTIMES, rt, RUNTIME)?.disconnect_session(session as u64, physical)?;
        encoded(env, &out[..])
    }

    /// Pushes `payload` from an Actor to a bound Session, or null.
    fn Java_io_zlink_Native_push(
        env,
        rt: jlong,
        actor: JByteArray<'local>,
        mesh: JString<'local>,
        owner_rid: jlong,
        owner_generation: jlong,
        session: jlong,
        session_generation: jlong,
        payload: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let (actor, payload) = (bytes(env, &actor)?, bytes(env, &payload)?);
        let mesh = text(env, &mesh)?;
        let session = SessionRef {
            owner: node_ref(&mesh, owner_rid, owner_generation)?,
            id: zlink_core::SessionId(session as u64),
            generation: zlink_core::SessionGeneration(session_generation as u64),
        };
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.push(zlink_core::ObjectKind::Actor, &actor[..], &session, &payload)?;
        encoded_opt(env, out)
    }

    /// The Sessions bound to an Actor here.
    fn Java_io_zlink_Native_boundSessions(env, rt: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let bound = pin(&RUNTIMES, rt, RUNTIME)?.bound_sessions(zlink_core::ObjectKind::Actor, &actor[..])?;
        encoded(env, &bound[..])
    }

    /// After a lease renewal: a refresh to every bound Session.
    fn Java_io_zlink_Native_refreshSessionRoutes(env, rt: jlong, actor: JByteArray<'local>) -> JByteArray<'local> {
        let actor = bytes(env, &actor)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = rt.refresh_session_routes(zlink_core::ObjectKind::Actor, &actor[..])?;
        encoded(env, &out[..])
    }

    /// Drops every binding of an Actor here.
    fn Java_io_zlink_Native_forgetBindings(env, rt: jlong, actor: JByteArray<'local>) -> () {
        let actor = bytes(env, &actor)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.forget_bindings(zlink_core::ObjectKind::Actor, &actor[..])?)
    }

    // ---- 27-30: manual object peers ------------------------------------

    /// Publishes this node's object-peer descriptor (writes the store).
    fn Java_io_zlink_Native_publishDescriptor(env, rt: jlong, endpoint: JString<'local>, identity: JString<'local>) -> JByteArray<'local> {
        let (endpoint, identity) = (text(env, &endpoint)?, text(env, &identity)?);
        let d = pin(&RUNTIMES, rt, RUNTIME)?.publish_descriptor(&endpoint, &identity)?;
        encoded(env, &d)
    }

    /// Registers a manually configured endpoint.
    fn Java_io_zlink_Native_addManualPeer(env, rt: jlong, endpoint: JString<'local>) -> () {
        let endpoint = text(env, &endpoint)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.add_manual_peer(&endpoint)?)
    }

    /// Looks up every manual endpoint's descriptor: the replacements.
    fn Java_io_zlink_Native_connectManualPeers(env, rt: jlong) -> JByteArray<'local> {
        let now = pin(&RUNTIMES, rt, RUNTIME)?.connect_manual_peers()?;
        encoded(env, &now[..])
    }

    /// Registers `endpoint` if needed and looks it up: a replacement or null.
    fn Java_io_zlink_Native_ensureManualPeer(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let r = pin(&RUNTIMES, rt, RUNTIME)?.ensure_manual_peer(&endpoint)?;
        encoded_opt(env, r)
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    fn Java_io_zlink_Native_peerOpened(env, rt: jlong, endpoint: JString<'local>, rid: jlong) -> () {
        let endpoint = text(env, &endpoint)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.peer_opened(&endpoint, rid as u64)?)
    }

    /// The transport closed `endpoint`: a waiting replacement, or null.
    fn Java_io_zlink_Native_peerClosed(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let r = pin(&RUNTIMES, rt, RUNTIME)?.peer_closed(&endpoint)?;
        encoded_opt(env, r)
    }

    /// The intent of `endpoint`, or null.
    fn Java_io_zlink_Native_peerIntent(env, rt: jlong, endpoint: JString<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let i = pin(&RUNTIMES, rt, RUNTIME)?.peer_intent(&endpoint)?;
        encoded_opt(env, i)
    }

    /// Where to reach node `rid`, or null.
    fn Java_io_zlink_Native_peerEndpoint(env, rt: jlong, rid: jlong) -> JString<'local> {
        let e = pin(&RUNTIMES, rt, RUNTIME)?.peer_endpoint(rid as u64)?;
        string_or_null(env, e)
    }

    /// `onFrame` behind a manual peer connection's admission fence.
    fn Java_io_zlink_Native_onPeerFrame(env, rt: jlong, endpoint: JString<'local>, frame: JByteArray<'local>) -> JByteArray<'local> {
        let endpoint = text(env, &endpoint)?;
        let frame = bytes(env, &frame)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.on_peer_frame(&endpoint, &frame)?;
        encoded(env, &surface::Inbound::from(d))
    }

    /// Live handles of every type (the leak check of the tests).
    fn Java_io_zlink_Native_liveHandles(_env) -> jlong {
        Ok((RUNTIMES.live() + STORES.live() + CLOCKS.live()) as jlong)
    }

    // ---- logs ----------------------------------------------------------

    /// Forwards the core's records at `level` (1 error ..= 5 trace) and
    /// more severe into the log queue; 0 forwards nothing.
    fn Java_io_zlink_Native_logLevel(_env, level: jint) -> () {
        let level = match level {
            0 => None,
            l => Some(Arg::get(l as u32)?),
        };
        Ok(zlink_bridge::logs::set_level(level)?)
    }

    /// Waits up to `timeout_ms` for records: each as its level's code,
    /// target and message, then the count dropped since the last call.
    fn Java_io_zlink_Native_logTake(env, timeout_ms: jlong) -> JByteArray<'local> {
        let timeout = std::time::Duration::from_millis(given(timeout_ms).unwrap_or(0));
        let (records, dropped) = zlink_bridge::logs::take(timeout);
        let mut w = encode::Writer::new();
        w.list(&records, |w, (level, target, message)| {
            w.u8(*level as u8).str(target).str(message);
        });
        w.u64(dropped);
        Ok(env.byte_array_from_slice(&w.finish())?)
    }

    // ---- the wire codec ------------------------------------------------

    /// Decodes one frame strictly: its command's name, its description
    /// (the golden vectors' JSON) and its bytes encoded again.
    fn Java_io_zlink_Native_wireDecode(
        env,
        data: JByteArray<'local>,
        max_object_id_bytes: jlong,
        max_payload_bytes: jlong,
        max_state_bytes: jlong,
    ) -> JByteArray<'local> {
        let data = bytes(env, &data)?;
        // -1: the default limit.
        let mut limits = zlink_core::wire::DecodeLimits::default();
        for (field, v, name) in [
            (&mut limits.max_object_id_bytes, max_object_id_bytes, "max object id bytes"),
            (&mut limits.max_payload_bytes, max_payload_bytes, "max payload bytes"),
            (&mut limits.max_state_bytes, max_state_bytes, "max state bytes"),
        ] {
            if let Some(v) = given_checked(v, name)? {
                *field = usize::try_from(v).unwrap_or(usize::MAX);
            }
        }
        let frame = zlink_core::wire::decode(&data, &limits).map_err(Error::from)?;
        let mut w = encode::Writer::new();
        w.str(zlink_core::wire::json::command_name(&frame))
            .str(&zlink_core::wire::json::describe(&frame).to_string())
            .bytes(&zlink_core::wire::encode(&frame));
        Ok(env.byte_array_from_slice(&w.finish())?)
    }

    // ---- 31-32: invalidation events, counters --------------------------

    /// The lifecycle `lease` of node `node` ended: cached routes dropped.
    fn Java_io_zlink_Native_onOwnerLeaseInvalidated(_env, rt: jlong, node: jlong, lease: jlong) -> jlong {
        let n = pin(&RUNTIMES, rt, RUNTIME)?.on_owner_lease_invalidated(node as u64, lease as u64)?;
        Ok(n as jlong)
    }

    /// A store recovery event: the cache is cleared.
    fn Java_io_zlink_Native_onStoreRecovery(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.on_store_recovery()? as jlong)
    }

    /// Every counter: group, name, value.
    fn Java_io_zlink_Native_stats(env, rt: jlong) -> JByteArray<'local> {
        let counters = pin(&RUNTIMES, rt, RUNTIME)?.stats()?;
        encoded(env, &counters[..])
    }
}
