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
//! The lookups take the fast path's form and JNI shells (`fast.rs`: no
//! `with_env`, no allocation, one `SetLongArrayRegion`) and answer, per
//! ID, a status and `NEAR_LONGS` numbers: the route's `ROUTE_LONGS`, then
//! its expiry (ns, the runtime clock's coarse reading), its shard and that
//! shard's epoch.
//! KEEP: a hit the near cache may keep; HIT: a hit to serve once (its epoch
//! was odd: a change was under way; or the ID is too long for the near
//! table, so only `lookup_cached` has it); MISS; SLOW: the checked path
//! answers (a closed runtime, a bad or non-ASCII ID, a route into another
//! mesh, a panic).

use jni::EnvUnowned;
use jni::objects::{JByteBuffer, JClass, JLongArray, JString};
use jni::sys::{jint, jlong};
use zlink_bridge::core::{
    HOST_COUNTER_CELLS, HOST_COUNTER_STRIDE, INLINE_ID_BYTES, NEAR_SHARDS, NearHit, ObjectKind,
    ReadyRoute, Runtime as Core,
};
use zlink_bridge::near::NearMemory;

use crate::entry_points;
use crate::fast::{Answer, HIT, MISS, ROUTE_LONGS, by_key, by_keys, by_string, longs, lookup_id};
use crate::handles::{RUNTIMES, pin};
use crate::throw::Fail;

/// A hit the near cache may keep.
const KEEP: jint = 2;

/// The numbers of one answer: the route's, its expiry, shard and epoch.
const NEAR_LONGS: usize = ROUTE_LONGS + 3;

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
fn near_of(core: &Core, kind: ObjectKind, id: &str) -> Answer<NEAR_LONGS> {
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
    by_string(&env, rt, kind, &id, &out, near_of)
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
    by_key(&env, rt, key, &out, near_of)
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
    by_keys(&env, rt, &keys, n, &out, near_of);
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

    /// A direct ByteBuffer over part of the near memory `memory`: 0 the
    /// epochs, 1 the hit counter, 2 the manual clock's word (null under
    /// the system clock). Valid while `memory` is; only NearCache calls
    /// it, and the buffers never leave it.
    fn Java_io_zlink_Native_nearBuffer(env, memory_ptr: jlong, which: jint) -> JByteBuffer<'local> {
        let m = memory(memory_ptr)?;
        let words: &[std::sync::atomic::AtomicU64] = match which {
            0 => m.epochs(),
            1 => m.hits(),
            2 => match m.manual_now() {
                Some(word) => std::slice::from_ref(word),
                None => return Ok(JByteBuffer::null()),
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
        Ok(buffer)
    }
}
