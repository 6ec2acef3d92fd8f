//! The entry points of `io.zlink.Native`, one per operation, a file per
//! area of `docs/runtime.md` (zlink-schema writes Native.java from them,
//! in the order of the modules below); here, what they share. Kinds arrive as their
//! codes (`int`), IDs as UTF-8 `byte[]`, durations as milliseconds; results
//! leave as primitives or as `bridge::encode` bytes.

mod diagnostics;
mod objects;
mod operations;
mod peers;
mod runtime;
mod sessions;
mod stores;

use jni::objects::{JByteArray, JLongArray, JObject, JObjectArray, JString};
use jni::refs::Global;
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, JValue, JavaVM, jni_sig, jni_str};
use zlink_bridge::args::{Arg, request_options};
use zlink_bridge::core::wire::{ActorRoute, NodeRef, Operation, SessionRef};
use zlink_bridge::core::{Endpoint, ObjectKind, PeerDescriptor};
use zlink_bridge::decode;
use zlink_bridge::encode::{self, Encode};
use zlink_bridge::runtime::check_frame;
use zlink_bridge::setup::RedisFields;
use zlink_bridge::surface;
use zlink_bridge::{Clock, Error, ErrorKind, Options, Resolved, Store, Write, config, setup};

use crate::entry_points;
use crate::handles::{CLOCKS, RUNTIMES, STORES, free, pin, register};
use crate::throw::Fail;

type Result<T> = std::result::Result<T, Fail>;

// The Java types of the object parameters, by name: zlink-schema writes
// Native.java's declarations from these functions' signatures.
/// A `CompletableFuture<byte[]>` the call completes.
type JFuture<'l> = JObject<'l>;
/// A `Runnable` run on the runtime's completion pool.
type JRunnable<'l> = JObject<'l>;
/// A `byte[][]`.
type JByteArrays<'l> = JObjectArray<'l>;

/// Resolves what Rust threads need (the exception classes), on the thread
/// that loads the library.
pub(crate) fn on_load(env: &mut Env<'_>) -> jni::errors::Result<()> {
    crate::throw::on_load(env)
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
        mesh: zlink_bridge::core::MeshName::new(mesh).map_err(Error::from)?,
        rid: zlink_bridge::core::NodeRid(rid as u64),
        generation: zlink_bridge::core::NodeGeneration(generation as u64),
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
        object_generation: zlink_bridge::core::ObjectGeneration(v[2] as u64),
        authority_owner_generation: zlink_bridge::core::AuthorityOwnerGeneration(v[3] as u64),
        owner_lease_generation: zlink_bridge::core::OwnerLeaseGeneration(v[4] as u64),
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
fn config_of(
    env: &mut Env<'_>,
    values: &JLongArray<'_>,
) -> Result<zlink_bridge::core::RoutingConfig> {
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

/// An instant of the runtime clock (ns) as Java gives it, a signed `long`:
/// a negative one is refused (`Negative`), as `args::millis` refuses a
/// negative duration.
fn nanos(v: jlong) -> Result<u64> {
    u64::try_from(v).map_err(|_| {
        let e = Error::input(ErrorKind::Negative, format!("now must be >= 0 ns, got {v}"));
        e.into()
    })
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
    settle(vm, future, Ok(Some(value.to_bytes())));
}

/// Settles `future` on a Rust thread: completes it with the bytes (None:
/// with null), or completes it exceptionally with the error's Java
/// exception, as the blocking call would have thrown it.
fn settle(
    vm: &JavaVM,
    future: &Global<JObject<'static>>,
    result: zlink_bridge::Result<Option<Vec<u8>>>,
) {
    let done = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
        match &result {
            Ok(bytes) => {
                let value = match bytes {
                    Some(b) => JObject::from(env.byte_array_from_slice(b)?),
                    None => JObject::null(),
                };
                env.call_method(
                    future,
                    jni_str!("complete"),
                    jni_sig!((value: JObject) -> jboolean),
                    &[JValue::Object(&value)],
                )?;
            }
            Err(e) => fail(env, future, e)?,
        }
        Ok(())
    });
    if let Err(e) = done {
        // The future must not hang: fail it with what went wrong.
        let failed = vm.attach_current_thread(|env| {
            let error = Error::host(ErrorKind::Panic, format!("completing a future failed: {e}"));
            fail(env, future, &error)
        });
        if let Err(e) = failed {
            eprintln!("zlink: a CompletableFuture could not be completed: {e}");
        }
    }
}

/// Completes `future` exceptionally with `e`'s Java exception.
fn fail(
    env: &mut Env<'_>,
    future: &Global<JObject<'static>>,
    e: &Error,
) -> jni::errors::Result<()> {
    let exception = crate::throw::exception(env, e)?;
    env.call_method(
        future,
        jni_str!("completeExceptionally"),
        jni_sig!((ex: java.lang.Throwable) -> jboolean),
        &[JValue::Object(&exception)],
    )?;
    Ok(())
}

/// The asynchronous form of a blocking call whose arguments the entry point
/// has read and checked: `work` runs on a thread of `runtime`'s completion
/// pool (`bridge::Runtime::spawn`; `close` waits for it), on the runtime of
/// handle `rt` then (closed by then: `ZlinkClosedException`), and settles
/// `future` with its result's bytes or its error, a panic included.
fn settle_later(
    env: &mut Env<'_>,
    runtime: &zlink_bridge::Runtime,
    rt: jlong,
    future: &JFuture<'_>,
    work: impl FnOnce(&zlink_bridge::Runtime) -> zlink_bridge::Result<Option<Vec<u8>>> + Send + 'static,
) -> Result<()> {
    let future = env.new_global_ref(future)?;
    let vm = env.get_java_vm()?;
    let job = move || {
        let run = || pin(&RUNTIMES, rt, RUNTIME).and_then(|rt| work(&rt));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
            .unwrap_or_else(|panic| Err(crate::throw::panicked(&*panic)));
        settle(&vm, &future, result);
    };
    Ok(runtime.spawn(job)?)
}

/// A result's bytes, for `settle_later`.
fn bytes_of(value: &(impl Encode + ?Sized)) -> Option<Vec<u8>> {
    Some(value.to_bytes())
}

/// The kind and ID of a call, checked as `runtime` checks them before it
/// starts the work: the kind, the ID against the global cap and as UTF-8
/// (`args::id`), then against this runtime's cap (`core::Runtime::key`).
fn checked_kind(runtime: &zlink_bridge::Runtime, kind: jint, id: &[u8]) -> Result<ObjectKind> {
    let kind: ObjectKind = Arg::get(kind as u32)?;
    let id = zlink_bridge::args::id(id)?;
    runtime.core()?.key(kind, id).map_err(Error::from)?;
    Ok(kind)
}

/// A send's or request's options from Java's numbers (-1: each default)
/// and origin (null or a Spot's ID, with its generation), checked by the
/// bridge (`args::request_options`, `runtime::spot_execution`).
fn request_args(
    env: &mut Env<'_>,
    instance_intent: jboolean,
    deadline_ms: jlong,
    timeout_ms: jlong,
    origin: &JByteArray<'_>,
    origin_generation: jlong,
) -> Result<zlink_bridge::core::RequestOptions> {
    let mut options =
        request_options(instance_intent, optional(deadline_ms), optional(timeout_ms))?;
    if !origin.is_null() {
        let spot = bytes(env, origin)?;
        let spot = zlink_bridge::runtime::spot_execution(&spot[..], origin_generation as u64)?;
        options.origin = Some(spot);
    }
    Ok(options)
}

/// A peer endpoint, checked by the core's rule (1..=1024 bytes).
fn endpoint_of(endpoint: &str) -> Result<Endpoint> {
    Ok(Endpoint::new(endpoint).map_err(Error::from)?)
}
