//! The cache-hit path, built for the cost of a napi call. napi-rs's own
//! calls cost more than the lookup before any work (a class method
//! registers its `&self` borrow in a global map; every argument goes
//! through a scope; docs/performance.md has the figures), so
//! the three hot functions are plain napi callbacks: the runtime is a number
//! (a slot in this thread's table), the ID is copied with one napi call into
//! a per-thread buffer, and a hit is written as a record into the
//! `ArrayBuffer` the caller passes (lib/routes.js keeps one per copy of the
//! module and reads it through typed-array views): no object, string or
//! `Buffer` per call. The buffer is looked up on every call, so one that
//! was detached (transferred) is refused, never written. The near cache's
//! lookups and shared memory (`near`) are plain napi functions too, made
//! the same way and exported with these.
//!
//! A route record is `RECORD` bytes, 8-aligned (lib/routes.js reads the
//! same layout): node and the five fence numbers (u64 each), the admission
//! deadline in ms (f64), a u32 state (0 miss, 1 hit), the u32 number of the
//! route's mesh on this thread (numbers are given once and never change, so
//! a reader decodes each mesh name once), then the mesh name's length (a
//! byte) and bytes.

// napi-derive leaves out its registrations under cfg(test), so there
// `fast_exports` and everything it reaches look unused.
#![cfg_attr(test, allow(dead_code))]

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::{JsError, sys};
use napi_derive::napi;
use zlink_bridge::core::{MeshName, ReadyRoute};
use zlink_bridge::lifecycle::Closable;

use crate::js_error;

/// Bytes of one route record (a mesh name is at most 23 bytes).
pub(crate) const RECORD: usize = 88;
/// The most IDs one batch call takes (lib/routes.js splits bigger ones).
pub(crate) const BATCH: usize = 64;
/// The scratch's size: `BATCH` records.
pub(crate) const SCRATCH_BYTES: usize = BATCH * RECORD;
/// IDs up to this many UTF-8 bytes are copied into the per-thread buffer;
/// longer ones are converted whole.
const ID_BYTES: usize = 4096;
/// A runtime's number: its slot, and the slot's generation above bit 24
/// (so a number kept after its runtime went never reaches another).
const SLOT_BITS: u32 = 24;

/// A record's state.
const MISS: u32 = 0;
const HIT: u32 = 1;

pub(crate) type Shared = Arc<Closable<zlink_bridge::Runtime>>;

#[derive(Default)]
pub(crate) struct Slot {
    generation: u32,
    runtime: Option<Shared>,
}

struct Thread {
    /// The mesh names of this thread's routes, by number.
    meshes: Vec<MeshName>,
    /// The number of the last mesh written.
    last_mesh: usize,
}

thread_local! {
    static THREAD: RefCell<Thread> = const { RefCell::new(Thread {
        meshes: Vec::new(),
        last_mesh: 0,
    }) };
    /// Where an ID's UTF-8 is copied.
    static ID: RefCell<Vec<u8>> = RefCell::new(vec![0; ID_BYTES]);
    /// The runtimes made on this thread, by number: borrowed (never
    /// cloned, no shared write) by each call.
    pub(crate) static RUNTIMES: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
    /// Numbers whose runtime went while `RUNTIMES` was borrowed (a
    /// finalizer running inside a call): freed at the next `register`.
    static GONE: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

fn slot_of(number: f64) -> usize {
    (number as u64 & ((1 << SLOT_BITS) - 1)) as usize
}

/// Gives a runtime its number on this thread.
pub(crate) fn register(runtime: &Shared) -> f64 {
    RUNTIMES.with(|r| {
        let mut slots = r.borrow_mut();
        for gone in GONE.with(|g| std::mem::take(&mut *g.borrow_mut())) {
            if let Some(slot) = slots.get_mut(slot_of(gone)) {
                slot.runtime = None;
            }
        }
        let at = match slots.iter().position(|s| s.runtime.is_none()) {
            Some(at) => at,
            None => {
                slots.push(Slot::default());
                slots.len() - 1
            }
        };
        let slot = &mut slots[at];
        slot.generation = (slot.generation + 1) % (1 << (53 - SLOT_BITS));
        slot.runtime = Some(runtime.clone());
        ((u64::from(slot.generation) << SLOT_BITS) | at as u64) as f64
    })
}

/// Frees a runtime's number (its JavaScript object is gone).
pub(crate) fn unregister(number: f64) {
    // At exit the thread's table may be gone already: nothing to free.
    let _ = RUNTIMES.try_with(|r| match r.try_borrow_mut() {
        Ok(mut slots) => {
            if let Some(slot) = slots.get_mut(slot_of(number)) {
                slot.runtime = None;
            }
        }
        Err(_) => GONE.with(|g| g.borrow_mut().push(number)),
    });
}

/// The runtime a number names: `InvalidHandle` for a number that is not
/// one of this thread's live runtimes.
pub(crate) fn runtime<'a>(
    env: &Env,
    slots: &'a [Slot],
    number: sys::napi_value,
) -> Result<&'a Shared> {
    let mut n = 0f64;
    check(
        // SAFETY: live env and value; napi checks it is a number.
        unsafe { sys::napi_get_value_double(env.raw(), number, &mut n) },
        "expected a runtime",
    )?;
    let bits = n as u64;
    let slot = slots
        .get(slot_of(n))
        .filter(|s| n.fract() == 0.0 && u64::from(s.generation) == bits >> SLOT_BITS);
    slot.and_then(|s| s.runtime.as_ref()).ok_or_else(|| {
        let e = zlink_bridge::Error::host(
            zlink_bridge::ErrorKind::InvalidHandle,
            "not a runtime of this thread",
        );
        js_error(env, &e)
    })
}

/// The sizes lib/routes.js checks its layout against: `[record, batch]`.
#[napi(catch_unwind)]
pub(crate) fn route_layout() -> Vec<u32> {
    [RECORD, BATCH].map(|n| n as u32).to_vec()
}

/// Adds the plain napi functions to the module's exports.
#[napi(module_exports)]
pub(crate) fn fast_exports(exports: Object<'_>, env: Env) -> Result<()> {
    let functions: [(&std::ffi::CStr, sys::napi_callback); 6] = [
        (c"lookupRoute", Some(lookup_route)),
        (c"lookupRoutes", Some(lookup_routes)),
        (c"emptyCall", Some(empty_call)),
        (c"lookupNear", Some(crate::near::lookup_near)),
        (c"lookupNearMany", Some(crate::near::lookup_near_many)),
        (c"nearMemory", Some(crate::near::near_memory)),
    ];
    for (name, callback) in functions {
        let mut f = ptr::null_mut();
        // SAFETY: a live env, a NUL-terminated name, a callback of the
        // right type; `f` receives the function.
        let made = unsafe {
            sys::napi_create_function(
                env.raw(),
                name.as_ptr(),
                name.count_bytes() as isize,
                callback,
                ptr::null_mut(),
                &mut f,
            )
        };
        // SAFETY: as above; `exports` is this module's object.
        let set =
            unsafe { sys::napi_set_named_property(env.raw(), exports.raw(), name.as_ptr(), f) };
        if made != sys::Status::napi_ok || set != sys::Status::napi_ok {
            return Err(napi::Error::from_reason(
                "cannot export the cache-hit functions",
            ));
        }
    }
    Ok(())
}

/// `lookupRoute(runtime, kind, id, scratch)`: record 0 of `scratch` is the
/// ID's route or a miss. Cache only: never blocks.
unsafe extern "C" fn lookup_route(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    lookup_call(env, info, |env, rt, kind, id, scratch| {
        with_id(env, id, |id| lookup(env, rt, scratch, 0, kind, id))
    })
}

/// `lookupRoutes(runtime, kind, ids, scratch)`, at most `BATCH` IDs:
/// record i is `ids[i]`'s route or a miss. Cache only: never blocks.
unsafe extern "C" fn lookup_routes(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    lookup_call(env, info, |env, rt, kind, ids, scratch| {
        for_each_id(env, ids, |i, id| lookup(env, rt, scratch, i, kind, id))
    })
}

/// For bench/bench.js only: takes what `lookupRoute` takes, reads the ID
/// and the scratch the same way, and does nothing.
unsafe extern "C" fn empty_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    lookup_call(env, info, |env, _, _, id, _| with_id(env, id, |_| Ok(())))
}

/// The arguments every lookup takes, read in one order: the runtime (by
/// number), the kind, the ID or IDs (given to `body` as they are), the
/// scratch.
fn lookup_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Env, &Shared, u32, sys::napi_value, &mut [u8]) -> Result<()>,
) -> sys::napi_value {
    call::<4>(env, info, |env, [number, kind, ids, scratch]| {
        with_lookup_args(env, number, kind, scratch, |rt, kind, scratch| {
            body(env, rt, kind, ids, scratch)
        })
    })
}

/// Runs `body` with what every lookup (this module's and the near
/// cache's) reads first, in this order: the runtime its number names, the
/// kind, the scratch. The runtime is borrowed from this thread's table
/// for the call, never cloned.
pub(crate) fn with_lookup_args<R>(
    env: &Env,
    number: sys::napi_value,
    kind: sys::napi_value,
    scratch: sys::napi_value,
    body: impl FnOnce(&Shared, u32, &mut [u8]) -> Result<R>,
) -> Result<R> {
    RUNTIMES.with(|r| {
        let slots = r.borrow();
        let (rt, kind) = (runtime(env, &slots, number)?, read_u32(env, kind)?);
        body(rt, kind, scratch_of(env, scratch)?)
    })
}

/// Runs `f` with each ID of the array `ids` (at most `BATCH`) and its
/// index, in order, stopping at the first error.
pub(crate) fn for_each_id(
    env: &Env,
    ids: sys::napi_value,
    mut f: impl FnMut(usize, &str) -> Result<()>,
) -> Result<()> {
    let mut n = 0u32;
    check(
        // SAFETY: live env and value; napi checks it is an array.
        unsafe { sys::napi_get_array_length(env.raw(), ids, &mut n) },
        "ids must be an array",
    )?;
    if n as usize > BATCH {
        return Err(napi::Error::from_reason(format!(
            "at most {BATCH} IDs per call"
        )));
    }
    (0..n).try_for_each(|i| {
        let mut id = ptr::null_mut();
        check(
            // SAFETY: live env and array; `id` receives the element.
            unsafe { sys::napi_get_element(env.raw(), ids, i, &mut id) },
            "no such ID",
        )?;
        with_id(env, id, |text| f(i as usize, text))
    })
}

/// The caller's scratch: an `ArrayBuffer` of exactly `SCRATCH_BYTES`,
/// 8-aligned (a detached one has no bytes and is refused).
pub(crate) fn scratch_of<'a>(env: &Env, value: sys::napi_value) -> Result<&'a mut [u8]> {
    buffer_of(env, value, SCRATCH_BYTES, "the scratch")
}

/// The bytes of `what`, an `ArrayBuffer` argument of this call that must
/// hold exactly `bytes` bytes, 8-aligned (a detached one has no bytes and
/// is refused). A call takes at most one buffer of each size: the route
/// scratch and the near scratch differ in size (near.rs asserts it), so
/// one buffer is never both.
pub(crate) fn buffer_of<'a>(
    env: &Env,
    value: sys::napi_value,
    bytes: usize,
    what: &str,
) -> Result<&'a mut [u8]> {
    let (mut data, mut len) = (ptr::null_mut(), 0usize);
    // SAFETY: live env and value; napi checks it is an ArrayBuffer and
    // gives its bytes' address and length.
    let status = unsafe { sys::napi_get_arraybuffer_info(env.raw(), value, &mut data, &mut len) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(format!(
            "{what} must be an ArrayBuffer"
        )));
    }
    if len != bytes || data.is_null() || !(data as usize).is_multiple_of(8) {
        return Err(napi::Error::from_reason(format!(
            "{what} must be {bytes} aligned bytes"
        )));
    }
    // SAFETY: the ArrayBuffer is this call's argument, so it lives through
    // the call; no JavaScript that could detach it runs before the call
    // returns; nothing else in this call holds its bytes (the call's other
    // buffer, if any, has another size, so is another buffer).
    Ok(unsafe { std::slice::from_raw_parts_mut(data.cast::<u8>(), len) })
}

/// Runs `f` with the ID's text: copied into the thread's buffer with one
/// napi call, or converted whole when it may not have fit.
pub(crate) fn with_id<R>(
    env: &Env,
    id: sys::napi_value,
    f: impl FnOnce(&str) -> Result<R>,
) -> Result<R> {
    ID.with(|buf| {
        let mut buf = buf.borrow_mut();
        let mut len = 0usize;
        // SAFETY: napi writes at most buf.len() bytes (NUL included) and
        // their count (NUL excluded) to len.
        let read = unsafe {
            sys::napi_get_value_string_utf8(
                env.raw(),
                id,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut len,
            )
        };
        check(read, "an ID must be a string")?;
        // napi never writes half a character: a read that stopped within
        // 4 bytes of the end may have been cut short.
        if len + 4 < buf.len() {
            return match std::str::from_utf8(&buf[..len]) {
                Ok(text) => f(text),
                Err(_) => Err(napi::Error::from_reason("an ID is not UTF-8")),
            };
        }
        // SAFETY: env and the value are this call's own, both live.
        let whole = unsafe { String::from_napi_value(env.raw(), id) }?;
        f(&whole)
    })
}

/// Looks one ID up and writes its record into `scratch`.
fn lookup(
    env: &Env,
    rt: &Shared,
    scratch: &mut [u8],
    slot: usize,
    kind: u32,
    id: &str,
) -> Result<()> {
    let rt = rt.get().map_err(|e| js_error(env, &e))?;
    let hit = rt.lookup_cached(kind, id).map_err(|e| js_error(env, &e))?;
    write_route(scratch, slot, hit.as_ref());
    Ok(())
}

/// Writes record `slot` of `scratch`: the route, or a miss.
pub(crate) fn write_route(scratch: &mut [u8], slot: usize, route: Option<&ReadyRoute>) {
    let record = &mut scratch[slot * RECORD..(slot + 1) * RECORD];
    match route {
        Some(route) => THREAD.with(|t| t.borrow_mut().write(record, route)),
        None => record[56..60].copy_from_slice(&MISS.to_le_bytes()),
    }
}

/// For bench/bench.js only: an empty call taking a kind and an ID as
/// napi-rs's `String`, the usual way.
#[napi(catch_unwind)]
pub(crate) fn empty_string_call(_kind: u32, _id: String) {}

/// Runs a plain napi callback's body with its `N` arguments: an error
/// (or a panic, caught here) is thrown as the JavaScript error; the call
/// returns undefined.
pub(crate) fn call<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Env, [sys::napi_value; N]) -> Result<()>,
) -> sys::napi_value {
    call_returning(env, info, |env, argv| {
        body(env, argv).map(|()| ptr::null_mut())
    })
}

/// [`call`] for a body that returns a value (null: undefined).
pub(crate) fn call_returning<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Env, [sys::napi_value; N]) -> Result<sys::napi_value>,
) -> sys::napi_value {
    let mut argc = N;
    let mut argv = [ptr::null_mut(); N];
    // SAFETY: napi's own env and info; argv has room for argc values.
    let got = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut::<*mut c_void>(),
        )
    };
    let js = Env::from(env);
    let out = if got != sys::Status::napi_ok || argc < N {
        Err(napi::Error::from_reason(format!("expected {N} arguments")))
    } else {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&js, argv))).unwrap_or_else(
            |_| {
                let e = zlink_bridge::Error::host(
                    zlink_bridge::ErrorKind::Panic,
                    "zlink bug (please report): a panic",
                );
                Err(js_error(&js, &e))
            },
        )
    };
    match out {
        Ok(value) => value,
        Err(e) => {
            // SAFETY: the env of this call, on its thread.
            unsafe { JsError::from(e).throw_into(env) };
            ptr::null_mut()
        }
    }
}

pub(crate) fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(what.to_owned()))
    }
}

pub(crate) fn read_u32(env: &Env, value: sys::napi_value) -> Result<u32> {
    let mut v = 0u32;
    check(
        // SAFETY: live env and value; napi checks it is a number.
        unsafe { sys::napi_get_value_uint32(env.raw(), value, &mut v) },
        "expected a number",
    )?;
    Ok(v)
}

impl Thread {
    /// The number of `mesh` on this thread (given on first sight).
    fn mesh_number(&mut self, mesh: MeshName) -> usize {
        if self.meshes.get(self.last_mesh) != Some(&mesh) {
            self.last_mesh = match self.meshes.iter().position(|m| *m == mesh) {
                Some(at) => at,
                None => {
                    self.meshes.push(mesh);
                    self.meshes.len() - 1
                }
            };
        }
        self.last_mesh
    }

    /// Writes `route` as `record`.
    fn write(&mut self, record: &mut [u8], route: &ReadyRoute) {
        let f = &route.fence;
        let numbers = [
            route.route.node.get(),
            f.object_generation.get(),
            f.authority_owner_generation.get(),
            f.owner_lease_generation.get(),
            f.node_generation.get(),
            f.store_version.get(),
        ];
        for (at, n) in numbers.iter().enumerate() {
            record[at * 8..at * 8 + 8].copy_from_slice(&n.to_le_bytes());
        }
        let deadline = route.admission_deadline.as_millis() as f64;
        record[48..56].copy_from_slice(&deadline.to_le_bytes());
        record[56..60].copy_from_slice(&HIT.to_le_bytes());
        let number = self.mesh_number(route.route.mesh) as u32;
        record[60..64].copy_from_slice(&number.to_le_bytes());
        let mesh = route.route.mesh.as_str().as_bytes();
        record[64] = mesh.len() as u8;
        record[65..65 + mesh.len()].copy_from_slice(mesh);
    }
}
