//! The cache-hit fast path: interned keys (`io.zlink.ObjectKey`, a boxed
//! core `ObjectKey` owned by its Java object) and lookups that skip
//! `with_env`, copy no `byte[]`, allocate nothing and write the route's
//! numbers into a Java `long[]` with one JNI call. Anything unusual (a
//! closed runtime, an ID over this runtime's cap, a route into another mesh,
//! a panic) answers `SLOW`: Java then makes the same call on the checked
//! path, which throws the right exception or builds the full value.
//!
//! The near cache's lookups (`near.rs`) answer other numbers through the
//! same JNI shells: [`by_string`], [`by_key`] and [`by_keys`] read the
//! arguments, pin the runtime, catch panics and write the answer, around
//! the lookup each is given.

use std::panic::{AssertUnwindSafe, catch_unwind};

use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass, JLongArray, JString};
use jni::refs::Reference as _;
use jni::sys::{jint, jlong, jsize};
use zlink_bridge::core::{ObjectKey, ObjectKind, ReadyRoute, Runtime as Core};

use crate::handles::RUNTIMES;
use crate::throw::Fail;

/// The route's numbers in the `long[]`: node, object generation, authority
/// owner generation, owner lease generation, node generation, store
/// version, admission deadline (ms).
pub(crate) const ROUTE_LONGS: usize = 7;

pub(crate) const HIT: jint = 1;
pub(crate) const MISS: jint = 0;
const SLOW: jint = -1;

pub(crate) fn longs(route: &ReadyRoute) -> [jlong; ROUTE_LONGS] {
    let f = &route.fence;
    [
        route.route.node.get() as jlong,
        f.object_generation.get() as jlong,
        f.authority_owner_generation.get() as jlong,
        f.owner_lease_generation.get() as jlong,
        f.node_generation.get() as jlong,
        f.store_version.get() as jlong,
        route.admission_deadline.as_millis() as jlong,
    ]
}

/// The interned key behind `key` (None for 0).
fn interned<'k>(key: jlong) -> Option<&'k ObjectKey> {
    if key == 0 {
        return None;
    }
    // SAFETY: `key` is the pointer `Native.keyNew` made with Box::into_raw,
    // held by the io.zlink.ObjectKey the caller holds and keeps reachable
    // through the call; it is freed only by that object's cleaning.
    Some(unsafe { &*(key as *const ObjectKey) })
}

/// The cached route of `(kind, id)`: `Some(None)` for a miss, `None` for
/// an ID the checked path must refuse or a route into another mesh (the
/// fast answer carries no mesh: Java fills in the runtime's own).
pub(crate) fn lookup_id(core: &Core, kind: ObjectKind, id: &str) -> Option<Option<ReadyRoute>> {
    let hit = core.lookup_cached(kind, id).ok()?;
    match hit {
        Some(route) if route.route.mesh == core.identity().mesh => Some(Some(route)),
        Some(_) => None,
        None => Some(None),
    }
}

/// One answer of a cache-only lookup: its status (HIT, MISS or a caller's
/// own) and `N` numbers, written to Java unless a MISS (zero then); None:
/// SLOW, the checked path answers.
pub(crate) type Answer<const N: usize> = Option<(jint, [jlong; N])>;

/// The fast answer of `(kind, id)` on `core`: HIT and the route's numbers,
/// MISS, or None.
fn route_of(core: &Core, kind: ObjectKind, id: &str) -> Answer<ROUTE_LONGS> {
    Some(match lookup_id(core, kind, id)? {
        Some(route) => (HIT, longs(&route)),
        None => (MISS, [0; ROUTE_LONGS]),
    })
}

/// Writes `values` to `out` from element 0, with one JNI call.
fn put(env: &EnvUnowned<'_>, out: &JLongArray<'_>, values: &[jlong]) {
    let raw = env.as_raw();
    // SAFETY: a valid JNIEnv for this call; Java makes `out` at least as
    // long as `values` (a shorter one makes the JVM throw
    // ArrayIndexOutOfBoundsException itself, writing nothing).
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

/// A single lookup's status, its numbers written to `out` unless a miss;
/// a panic or anything unusual is SLOW.
#[inline(always)]
fn answer<const N: usize>(
    env: &EnvUnowned<'_>,
    out: &JLongArray<'_>,
    found: std::thread::Result<Answer<N>>,
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

/// The shell of a single lookup by String ID of ASCII characters, read
/// straight from the String (no `byte[]`): `lookup` answers on the pinned
/// runtime's core; another kind code, a non-ASCII, empty or long ID, a
/// closed runtime or a panic is SLOW (Java then takes the checked path).
#[inline(always)]
pub(crate) fn by_string<const N: usize>(
    env: &EnvUnowned<'_>,
    rt: jlong,
    kind: jint,
    id: &JString<'_>,
    out: &JLongArray<'_>,
    lookup: impl FnOnce(&Core, ObjectKind, &str) -> Answer<N>,
) -> jint {
    let found = catch_unwind(AssertUnwindSafe(|| {
        let kind = zlink_bridge::codes::ObjectKind::from_code(kind as u32)?.into();
        let mut buf = [0u8; 3 * STRING_ID_BYTES + 1];
        let id = ascii_of(env, id, &mut buf)?;
        let pinned = RUNTIMES.get(rt as usize).ok()?;
        lookup(pinned.core().ok()?, kind, id)
    }));
    answer(env, out, found)
}

/// The shell of a single lookup by interned key: as [`by_string`].
#[inline(always)]
pub(crate) fn by_key<const N: usize>(
    env: &EnvUnowned<'_>,
    rt: jlong,
    key: jlong,
    out: &JLongArray<'_>,
    lookup: impl FnOnce(&Core, ObjectKind, &str) -> Answer<N>,
) -> jint {
    let found = catch_unwind(AssertUnwindSafe(|| {
        let key = interned(key)?;
        let pinned = RUNTIMES.get(rt as usize).ok()?;
        lookup(pinned.core().ok()?, key.kind(), key.id())
    }));
    answer(env, out, found)
}

/// The shell of a lookup of `n` interned keys (`keys[0..n]`): per key, its
/// status then its `N` numbers, in `out` (`n * (N + 1)` longs). One JNI
/// call for many IDs.
pub(crate) fn by_keys<const N: usize>(
    env: &EnvUnowned<'_>,
    rt: jlong,
    keys: &JLongArray<'_>,
    n: jint,
    out: &JLongArray<'_>,
    lookup: impl Fn(&Core, ObjectKind, &str) -> Answer<N>,
) {
    let stride = N + 1;
    let n = usize::try_from(n).unwrap_or(0);
    let raw = env.as_raw();
    let mut ks = vec![0 as jlong; n];
    let mut values = vec![0 as jlong; n * stride];
    // SAFETY: a valid JNIEnv; Java passes arrays of at least n and
    // n * (N + 1) elements (an overrun makes the JVM throw, and nothing is
    // written).
    unsafe {
        ((**raw).v1_1.GetLongArrayRegion)(raw, keys.as_raw(), 0, n as jsize, ks.as_mut_ptr());
    }
    let filled = catch_unwind(AssertUnwindSafe(|| {
        // One pin for the whole batch; a closed runtime leaves every
        // status SLOW (0 = MISS is never left unset: see below).
        let Ok(pinned) = RUNTIMES.get(rt as usize) else {
            return false;
        };
        let Ok(core) = pinned.core() else {
            return false;
        };
        for (key, slot) in ks.iter().zip(values.chunks_exact_mut(stride)) {
            let found = interned(*key).and_then(|k| lookup(core, k.kind(), k.id()));
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
            .step_by(stride)
            .for_each(|s| *s = SLOW.into());
    }
    put(env, out, &values);
}

/// Cache only, for one interned key: HIT (the route's numbers in `out`),
/// MISS, or SLOW.
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupKey<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    key: jlong,
    out: JLongArray<'local>,
) -> jint {
    by_key(&env, rt, key, &out, route_of)
}

/// Cache only, for `n` interned keys (`keys[0..n]`): per key, its status
/// (HIT, MISS or SLOW) then the route's numbers, in `out` (`n * 8`
/// longs). One JNI call for many IDs.
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupKeys<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    keys: JLongArray<'local>,
    n: jint,
    out: JLongArray<'local>,
) {
    by_keys(&env, rt, &keys, n, &out, route_of);
}

/// Longest String ID the fast path reads (on the stack); longer ones take
/// the checked path.
const STRING_ID_BYTES: usize = 128;

/// Cache only, for a String ID of ASCII characters (read straight from the
/// String, no `byte[]`): HIT (the route's numbers in `out`), MISS, or SLOW
/// (anything else: another kind code, a non-ASCII, empty or long ID, a
/// closed runtime; Java then takes the checked path).
#[unsafe(no_mangle)]
extern "system" fn Java_io_zlink_Native_lookupString<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rt: jlong,
    kind: jint,
    id: JString<'local>,
    out: JLongArray<'local>,
) -> jint {
    by_string(&env, rt, kind, &id, &out, route_of)
}

/// The characters of `id` as text in `buf` (zeroed, 3 bytes a character
/// and one more), if there are 1 to `STRING_ID_BYTES` of them, all ASCII
/// but NUL. JNI copies out modified UTF-8 (1 to 3 bytes a character, NUL as
/// two non-zero bytes) and may not terminate it, so the copy ends at the
/// first zero byte of the zeroed buffer; as many bytes as characters means
/// every character was one ASCII byte, which is plain UTF-8.
fn ascii_of<'b>(env: &EnvUnowned<'_>, id: &JString<'_>, buf: &'b mut [u8]) -> Option<&'b str> {
    if id.is_null() {
        return None;
    }
    let raw = env.as_raw();
    // SAFETY: a valid JNIEnv and a live, non-null String reference.
    let chars = unsafe { ((**raw).v1_1.GetStringLength)(raw, id.as_raw()) };
    let len = usize::try_from(chars).ok()?;
    if len == 0 || len > STRING_ID_BYTES || buf.len() <= 3 * len {
        return None;
    }
    // SAFETY: as above; the region is within the String, and `buf` holds
    // the at most 3 bytes per character it copies.
    unsafe {
        ((**raw).v1_2.GetStringUTFRegion)(raw, id.as_raw(), 0, chars, buf.as_mut_ptr().cast());
    }
    let copied = buf.iter().position(|b| *b == 0)?;
    if copied != len {
        return None;
    }
    let text = std::str::from_utf8(&buf[..len]).ok()?;
    text.is_ascii().then_some(text)
}

crate::entry_points! {
    /// Interns a key: a boxed core ObjectKey, freed by `keyFree`. The ID
    /// is checked as a runtime whose cap is `cap` (-1: the default
    /// config's) checks it, with the runtime's errors: over the global cap
    /// or not UTF-8 (the bridge), empty, then over `cap` (the core).
    fn Java_io_zlink_Native_keyNew(env, kind: jint, id: JByteArray<'local>, cap: jlong) -> jlong {
        let id = env.convert_byte_array(&id)?;
        let kind: zlink_bridge::core::ObjectKind = zlink_bridge::args::Arg::get(kind as u32)?;
        let id = zlink_bridge::args::id(&id[..])?;
        let key = ObjectKey::new(kind, id).map_err(zlink_bridge::Error::from)?;
        let cap = usize::try_from(cap)
            .unwrap_or(zlink_bridge::core::RoutingConfig::default().max_object_id_bytes);
        // The core's rule against a cap with no runtime: its check
        // (`ids::check_object_id`) is crate-private and `Runtime::key` needs
        // a runtime, so only the comparison is here; the error is the core's.
        if id.len() > cap {
            let e = zlink_bridge::core::InputError::ObjectIdTooLong { len: id.len(), max: cap };
            return Err(zlink_bridge::Error::from(e).into());
        }
        Ok(Box::into_raw(Box::new(key)) as jlong)
    }

    /// Frees an interned key (its Java object's cleaning, once).
    fn Java_io_zlink_Native_keyFree(_env, key: jlong) -> () {
        if key != 0 {
            // SAFETY: made by keyNew and freed once (Cleanable runs once).
            drop(unsafe { Box::from_raw(key as *mut ObjectKey) });
        }
        Ok::<(), Fail>(())
    }
}
