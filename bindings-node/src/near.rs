//! What lib/near.js's near cache reads (issue 31; the rule is the bridge's
//! `near` module doc): a cache hit of `lookupCached` is answered in
//! JavaScript from the routes this module handed out, without a native
//! call, while the shard's change epoch still holds the value the hit
//! carried and the clock has not reached its expiry.
//!
//! - `nearMemory(runtime)`: `{ epochs, hits, manual, slackNs }`, external
//!   `ArrayBuffer`s over the core's own words (the change epochs, the
//!   near-hit counter cells, the manual clock's word or null), read and
//!   added to with `Atomics` in place. Each buffer's finalizer drops the
//!   `NearMemory` that keeps its words alive, so they outlive a closed
//!   runtime until JavaScript lets go of them. Null where the engine
//!   allows no external buffers (a copy would never see a change: no near
//!   cache then).
//! - `lookupNear(runtime, kind, id, scratch, near)`: `lookupRoute` plus
//!   near record 0 of `near`; `lookupNearMany(runtime, kind, ids, scratch,
//!   near)` is `lookupRoutes` with near record i for `ids[i]`.
//!
//! A near record is `NEAR_RECORD` bytes, little-endian: the expiry (u64
//! ns on the runtime clock's coarse reading), the epoch (u64), the shard
//! (u32), whether to keep it (u32: 1 keep; 0 for a miss, an ID too long
//! for the near cache, or an odd epoch, which is served once).

// napi-derive leaves out its registrations under cfg(test), so the
// callbacks `fast_exports` registers look unused there.
#![cfg_attr(test, allow(dead_code))]

use std::ffi::c_void;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use zlink_bridge::core::{INLINE_ID_BYTES, NearHit};
use zlink_bridge::near::NearMemory;

use crate::fast::{
    BATCH, RUNTIMES, SCRATCH_BYTES, Shared, buffer_of, call, call_returning, check, for_each_id,
    runtime, with_id, with_lookup_args, write_route,
};
use crate::js_error;

/// Bytes of one near record.
const NEAR_RECORD: usize = 24;
/// The near scratch's size: `BATCH` near records (never the route
/// scratch's size, so one buffer is never both: `buffer_of` counts on it).
const NEAR_BYTES: usize = BATCH * NEAR_RECORD;
const _: () = assert!(NEAR_BYTES != SCRATCH_BYTES);

/// The sizes lib/near.js checks its layout against: `[near record, batch]`.
#[napi_derive::napi(catch_unwind)]
pub(crate) fn near_layout() -> Vec<u32> {
    [NEAR_RECORD, BATCH].map(|n| n as u32).to_vec()
}

/// `lookupNear(runtime, kind, id, scratch, near)`: record 0 of `scratch`
/// is the ID's route or a miss, near record 0 of `near` what the near
/// cache keeps of it. Cache only: never blocks.
pub(crate) unsafe extern "C" fn lookup_near(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    near_call(env, info, |env, rt, kind, id, scratch, near| {
        with_id(env, id, |id| lookup(env, rt, scratch, near, 0, kind, id))
    })
}

/// `lookupNearMany(runtime, kind, ids, scratch, near)`, at most `BATCH`
/// IDs: record i and near record i are `ids[i]`'s. Cache only.
pub(crate) unsafe extern "C" fn lookup_near_many(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    near_call(env, info, |env, rt, kind, ids, scratch, near| {
        for_each_id(env, ids, |i, id| {
            lookup(env, rt, scratch, near, i, kind, id)
        })
    })
}

/// The arguments of the near lookups: those of `lookupRoute` /
/// `lookupRoutes`, then the near scratch.
fn near_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Env, &Shared, u32, sys::napi_value, &mut [u8], &mut [u8]) -> Result<()>,
) -> sys::napi_value {
    call::<5>(env, info, |env, [number, kind, ids, scratch, near]| {
        with_lookup_args(env, number, kind, scratch, |rt, kind, scratch| {
            // Two slices of one buffer are impossible: the two sizes differ.
            body(
                env,
                rt,
                kind,
                ids,
                scratch,
                buffer_of(env, near, NEAR_BYTES, "the near scratch")?,
            )
        })
    })
}

/// Looks one ID up: its route into record `slot` of `scratch`, what the
/// near cache keeps into near record `slot`. An ID too long for the near
/// cache is looked up as `lookupRoute` does, and not kept.
fn lookup(
    env: &Env,
    rt: &Shared,
    scratch: &mut [u8],
    near: &mut [u8],
    slot: usize,
    kind: u32,
    id: &str,
) -> Result<()> {
    let rt = rt.get().map_err(|e| js_error(env, &e))?;
    let fail = |e: zlink_bridge::Error| js_error(env, &e);
    let (route, hit) = if id.len() > INLINE_ID_BYTES {
        (rt.lookup_cached(kind, id).map_err(fail)?, None)
    } else {
        let hit = rt.lookup_near(kind, id).map_err(fail)?;
        (hit.map(|h| h.route), hit)
    };
    write_route(scratch, slot, route.as_ref());
    write_near(
        &mut near[slot * NEAR_RECORD..(slot + 1) * NEAR_RECORD],
        hit.as_ref(),
    );
    Ok(())
}

/// Writes near record `record`: keep only an even epoch's hit.
fn write_near(record: &mut [u8], hit: Option<&NearHit>) {
    match hit {
        Some(h) if h.epoch & 1 == 0 => {
            record[0..8].copy_from_slice(&h.expires_at.0.to_le_bytes());
            record[8..16].copy_from_slice(&h.epoch.to_le_bytes());
            record[16..20].copy_from_slice(&h.shard.to_le_bytes());
            record[20..24].copy_from_slice(&1u32.to_le_bytes());
        }
        _ => record[20..24].copy_from_slice(&0u32.to_le_bytes()),
    }
}

/// `nearMemory(runtime)`: `{ epochs, hits, manual, slackNs }` (see the
/// module doc), or null where external buffers are not allowed.
pub(crate) unsafe extern "C" fn near_memory(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    call_returning::<1>(env, info, |env, [number]| {
        // One `NearMemory` per buffer, each dropped by its buffer's finalizer.
        let memory = || {
            RUNTIMES.with(|r| {
                let slots = r.borrow();
                let rt = runtime(env, &slots, number)?;
                let rt = rt.get().map_err(|e| js_error(env, &e))?;
                rt.near_memory().map_err(|e| js_error(env, &e))
            })
        };
        let (mut parts, mut slack) = (Vec::with_capacity(4), 0.0);
        for name in [c"epochs", c"hits", c"manual"] {
            let memory = memory()?;
            slack = memory.slack_ns() as f64;
            let words = match name.to_bytes() {
                b"epochs" => memory.epochs(),
                b"hits" => memory.hits(),
                _ => match memory.manual_now() {
                    Some(word) => std::slice::from_ref(word),
                    None => {
                        parts.push((name, null(env)?));
                        continue;
                    }
                },
            };
            let (data, len) = (
                words.as_ptr().cast_mut().cast::<c_void>(),
                size_of_val(words),
            );
            match external(env, data, len, memory)? {
                Some(buffer) => parts.push((name, buffer)),
                None => return null(env),
            }
        }
        let mut slack_value = ptr::null_mut();
        check(
            // SAFETY: a live env; `slack_value` receives the number.
            unsafe { sys::napi_create_double(env.raw(), slack, &mut slack_value) },
            "cannot make a number",
        )?;
        parts.push((c"slackNs", slack_value));
        let mut object = ptr::null_mut();
        check(
            // SAFETY: a live env; `object` receives the object.
            unsafe { sys::napi_create_object(env.raw(), &mut object) },
            "cannot make an object",
        )?;
        for (name, value) in parts {
            check(
                // SAFETY: a live env, the object made above, a
                // NUL-terminated name and a value of this call.
                unsafe { sys::napi_set_named_property(env.raw(), object, name.as_ptr(), value) },
                "cannot set a property",
            )?;
        }
        Ok(object)
    })
}

fn null(env: &Env) -> Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    check(
        // SAFETY: a live env; `value` receives null.
        unsafe { sys::napi_get_null(env.raw(), &mut value) },
        "cannot get null",
    )?;
    Ok(value)
}

/// An `ArrayBuffer` over `len` bytes at `data` (words `memory` keeps
/// alive), owning `memory`: its finalizer drops it. None where the engine
/// allows no external buffers.
fn external(
    env: &Env,
    data: *mut c_void,
    len: usize,
    memory: NearMemory,
) -> Result<Option<sys::napi_value>> {
    let owner = Box::into_raw(Box::new(memory));
    let mut buffer = ptr::null_mut();
    // SAFETY: `data` is `len` bytes of atomic words that `owner` keeps
    // alive until the finalizer drops it (after the engine let go of the
    // buffer); JavaScript reaches them only with `Atomics`, so every access
    // is atomic; `buffer` receives the ArrayBuffer.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            env.raw(),
            data,
            len,
            Some(finalize),
            owner.cast(),
            &mut buffer,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: napi did not take `owner` (no buffer was made), so it is
        // still this call's own.
        drop(unsafe { Box::from_raw(owner) });
        if status == sys::Status::napi_no_external_buffers_allowed {
            return Ok(None);
        }
        return Err(napi::Error::from_reason(
            "cannot share the near-cache memory",
        ));
    }
    Ok(Some(buffer))
}

/// Drops the `NearMemory` an external buffer owned.
unsafe extern "C" fn finalize(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the `Box<NearMemory>` `external` gave this buffer;
    // napi calls the finalizer once.
    drop(unsafe { Box::from_raw(hint.cast::<NearMemory>()) });
}
