//! The native side of the JVM's near cache (`io.zlink.NearCache`, issue
//! 31): the memory it reads in place and the lookups that fill it.
//!
//! `nearMemory` boxes a [`NearMemory`] (the route cache's change epochs,
//! the host hit counter and, under a manual clock, the clock's word, kept
//! alive by the box after the runtime closes); `NearCache.buffer` wraps
//! each in a direct `ByteBuffer` the Java side reads with `VarHandle`s, and
//! `nearMemoryFree` drops the box once the Java holder (and so every
//! buffer, which never leaves it) is unreachable. The module doc of
//! `bridge::near` is the rule the Java side follows.
//!
//! The lookups take the fast path's form (`fast.rs`: no `with_env`, no
//! allocation, one `SetLongArrayRegion`) and answer, per ID, a status and
//! `NEAR_LONGS` numbers: the route's `ROUTE_LONGS`, then its expiry (ns,
//! the runtime clock's coarse reading), its shard and that shard's epoch.
//! KEEP: a hit the near cache may keep; HIT: a hit to serve once (its epoch
//! was odd: a change was under way; or the ID is too long for the near
//! table, so only `lookup_cached` has it); MISS; SLOW: the checked path
//! answers (a closed runtime, a bad or non-ASCII ID, a route into another
//! mesh, a panic).

use std::panic::{AssertUnwindSafe, catch_unwind};

use jni::EnvUnowned;
use jni::objects::{JClass, JLongArray, JObject, JString};
use jni::refs::Reference as _;
use jni::sys::{jint, jlong, jsize};
use zlink_bridge::core::{
    HOST_COUNTER_CELLS, HOST_COUNTER_STRIDE, INLINE_ID_BYTES, NEAR_SHARDS, NearHit, ObjectKind,
    ReadyRoute, Runtime as Core,
};
use zlink_bridge::near::NearMemory;

use crate::entry_points;
use crate::fast::{
    HIT, MISS, ROUTE_LONGS, SLOW, STRING_ID_BYTES, ascii_of, interned, longs, lookup_id,
};
use crate::handles::{RUNTIMES, pin};
use crate::throw::Fail;

/// A hit the near cache may keep.
const KEEP: jint = 2;

/// The numbers of one answer: the route's, its expiry, shard and epoch.
const NEAR_LONGS: usize = ROUTE_LONGS + 3;

/// One answer: its status and numbers (zero unless a hit).
type Answer = (jint, [jlong; NEAR_LONGS]);

/// A hit's numbers.
fn hit_longs(route: &ReadyRoute, hit: Option<&NearHit>) -> [jlong; NEAR_LONGS] {
    let mut out = [0; NEAR_LONGS];
    out[..ROUTE_LONGS].copy_from_slice(&longs(route));
    if let Some(h) = hit {
        out[ROUTE_LONGS] = h.expires_at.0 as jlong;
        out[ROUTE_LONGS + 1] = jlong::from(h.shard);
        out[ROUTE_LONGS + 2] = h.epoch as jlong;
    }
    out
}

/// The near answer of `(kind, id)` on `core`; None for the checked path.
fn near_of(core: &Core, kind: ObjectKind, id: &str) -> Option<Answer> {
    let hit = core.lookup_near(kind, id).ok()?;
    match hit {
        // The fast answer carries no mesh: Java fills in its own.
        Some(h) if h.route.route.mesh != core.identity().mesh => None,
        Some(h) => {
            let status = if h.epoch & 1 == 0 { KEEP } else { HIT };
            Some((status, hit_longs(&h.route, Some(&h))))
        }
        // A miss, or an ID the near table does not hold (too long):
        // `lookup_cached` has the last word, served once.
        None => Some(match lookup_id(core, kind, id)? {
            Some(route) => (HIT, hit_longs(&route, None)),
            None => (MISS, [0; NEAR_LONGS]),
        }),
    }
}

/// Writes `values` to `out` from element 0.
fn put(env: &EnvUnowned<'_>, out: &JLongArray<'_>, values: &[jlong]) {
    let raw = env.as_raw();
    // SAFETY: a valid JNIEnv for this call; Java makes `out` at least as
    // long as `values` (a shorter one makes the JVM throw, writing nothing).
    unsafe {
        ((**raw).v1_1.SetLongArrayRegion)(
            raw,
            out.as_raw(),
            0,
            values.len() as jsize,
            values.as_ptr(),
        );
    }
}

/// A single answer's status, its numbers written to `out` on a hit.
fn answer(
    env: &EnvUnowned<'_>,
    out: &JLongArray<'_>,
    found: std::thread::Result<Option<Answer>>,
) -> jint {
    match found {
        Ok(Some((status, values))) => {
            if status != MISS {
                put(env, out, &values);
            }
            status
        }
        _ => SLOW,
    }
}

/// Cache only, for the near cache, a String ID of ASCII characters read
/// straight from the String: 2 (a hit to keep) or 1 (a hit to serve once),
/// the numbers in `out` (10 longs: the route's 7, its expiry, shard and
/// epoch); 0 (not cached); or -1 (the checked path answers).
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupNear<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    kind: jint,
    id: JString<'local>,
    out: JLongArray<'local>,
) -> jint {
    let found = catch_unwind(AssertUnwindSafe(|| {
        let kind = zlink_bridge::codes::ObjectKind::from_code(kind as u32)?.into();
        let mut buf = [0u8; 3 * STRING_ID_BYTES + 1];
        let id = ascii_of(&env, &id, &mut buf)?;
        let pinned = RUNTIMES.get(rt as usize).ok()?;
        near_of(pinned.core().ok()?, kind, id)
    }));
    answer(&env, &out, found)
}

/// `lookupNear` for one interned key.
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupNearKey<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    key: jlong,
    out: JLongArray<'local>,
) -> jint {
    let found = catch_unwind(|| {
        let key = interned(key)?;
        let pinned = RUNTIMES.get(rt as usize).ok()?;
        near_of(pinned.core().ok()?, key.kind(), key.id())
    });
    answer(&env, &out, found)
}

/// `lookupNear` for `n` interned keys (`keys[0..n]`): per key, its status
/// then its 10 numbers, in `out` (`n * 11` longs). One JNI call for the
/// keys a batch did not find in the near cache.
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupNearKeys<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    keys: JLongArray<'local>,
    n: jint,
    out: JLongArray<'local>,
) {
    const STRIDE: usize = NEAR_LONGS + 1;
    let n = usize::try_from(n).unwrap_or(0);
    let raw = env.as_raw();
    let mut ks = vec![0 as jlong; n];
    let mut values = vec![0 as jlong; n * STRIDE];
    // SAFETY: a valid JNIEnv; Java passes arrays of at least n and n * 11
    // elements (an overrun makes the JVM throw, and nothing is written).
    unsafe {
        ((**raw).v1_1.GetLongArrayRegion)(raw, keys.as_raw(), 0, n as jsize, ks.as_mut_ptr());
    }
    let filled = catch_unwind(AssertUnwindSafe(|| {
        // One pin for the whole batch; a closed runtime leaves every
        // status SLOW.
        let Ok(pinned) = RUNTIMES.get(rt as usize) else {
            return false;
        };
        let Ok(core) = pinned.core() else {
            return false;
        };
        for (key, slot) in ks.iter().zip(values.chunks_exact_mut(STRIDE)) {
            let found = interned(*key).and_then(|k| near_of(core, k.kind(), k.id()));
            slot[0] = match found {
                Some((status, numbers)) => {
                    slot[1..].copy_from_slice(&numbers);
                    status.into()
                }
                None => SLOW.into(),
            };
        }
        true
    }));
    if !matches!(filled, Ok(true)) {
        values
            .iter_mut()
            .step_by(STRIDE)
            .for_each(|s| *s = SLOW.into());
    }
    put(&env, &out, &values);
}

/// The box `nearMemory` made.
fn memory<'m>(memory: jlong) -> Result<&'m NearMemory, Fail> {
    if memory == 0 {
        return Err(zlink_bridge::args::missing("near memory").into());
    }
    // SAFETY: `memory` is the pointer `nearMemory` made with Box::into_raw,
    // held by the io.zlink.NearCache calling, which keeps itself reachable
    // through the call; it is freed only by that object's cleaning.
    Ok(unsafe { &*(memory as *const NearMemory) })
}

entry_points! {
    /// The memory a near cache reads in place, boxed (freed by
    /// `nearMemoryFree`); `out` gets 8 numbers: the slack (ns), 1 if the
    /// runtime runs on a manual clock, the longest ID the near table holds
    /// (bytes), the epochs (words), the hit counter's cells and the words
    /// from one to the next, the route cache's capacity and the config's
    /// ID cap (bytes).
    fn Java_io_zlink_Native_nearMemory(env, rt: jlong, out: JLongArray<'local>) -> jlong {
        let runtime = pin(&RUNTIMES, rt, "ZlinkRuntime")?;
        let memory = runtime.near_memory()?;
        let config = runtime.config()?;
        let info = [
            memory.slack_ns(),
            u64::from(memory.manual_now().is_some()),
            INLINE_ID_BYTES as u64,
            NEAR_SHARDS as u64,
            HOST_COUNTER_CELLS as u64,
            HOST_COUNTER_STRIDE as u64,
            config.route_cache_capacity as u64,
            config.max_object_id_bytes as u64,
        ]
        .map(|v| v as jlong);
        out.set_region(env, 0, &info)?;
        Ok(Box::into_raw(Box::new(memory)) as jlong)
    }

    /// Frees what `nearMemory` made (its Java holder's cleaning, once).
    fn Java_io_zlink_Native_nearMemoryFree(_env, memory: jlong) -> () {
        if memory != 0 {
            // SAFETY: made by nearMemory and freed once (Cleanable runs
            // once), when no buffer over it can be read any more.
            drop(unsafe { Box::from_raw(memory as *mut NearMemory) });
        }
        Ok::<(), Fail>(())
    }

    // Declared by hand in NearCache.java, not in Native.java: its result is
    // a java.nio.ByteBuffer, a type zlink-schema does not map. No other
    // class calls it, and the buffers never leave their NearCache.
    /// A direct ByteBuffer over part of the near memory `memory`: 0 the
    /// epochs, 1 the hit counter, 2 the manual clock's word (null under
    /// the system clock). Valid while `memory` is.
    fn Java_io_zlink_NearCache_buffer(env, memory_ptr: jlong, which: jint) -> JObject<'local> {
        let m = memory(memory_ptr)?;
        let words: &[std::sync::atomic::AtomicU64] = match which {
            0 => m.epochs(),
            1 => m.hits(),
            2 => match m.manual_now() {
                Some(word) => std::slice::from_ref(word),
                None => return Ok(JObject::null()),
            },
            _ => {
                let e = zlink_bridge::Error::host(
                    zlink_bridge::ErrorKind::Panic,
                    format!("no near memory part {which}"),
                );
                return Err(e.into());
            }
        };
        // SAFETY: the words live as long as the box (`NearMemory` keeps the
        // runtime's state and clock alive), which Java frees only once the
        // NearCache holding this buffer is unreachable; atomics have the
        // layout of u64, and Java reads and adds to them atomically only.
        let buffer = unsafe {
            env.new_direct_byte_buffer(words.as_ptr() as *mut u8, std::mem::size_of_val(words))?
        };
        Ok(buffer.into())
    }
}
