//! A runtime freed while many threads call it: every call either runs on
//! the live runtime or returns `INVALID_HANDLE`, the free returns once the
//! calls in flight are done, and a handle of a freed runtime never reaches
//! the runtime that reuses its slot.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use zlink::*;

const THREADS: usize = 8;
const ROUNDS: usize = 20;

fn ok(rc: zlink_result) {
    assert_eq!(rc, zlink_result::Ok);
}

/// A runtime with "racer" cached (a route owned by a second runtime), on
/// a store of their own.
fn runtime(clock: *mut zlink_clock) -> [*mut zlink_runtime; 2] {
    let mut store = std::ptr::null_mut();
    // SAFETY: a live clock handle, a writable out.
    ok(unsafe { zlink_store_memory_new(clock, &mut store, std::ptr::null_mut()) });
    let mut rts = [std::ptr::null_mut(); 2];
    for (rid, out) in [1u64, 2].into_iter().zip(rts.iter_mut()) {
        let identity = zlink_node_identity {
            mesh: c"race-mesh".as_ptr(),
            rid,
            generation: 1,
            lease: rid,
        };
        // SAFETY: valid identity, handles from this library, writable out.
        ok(unsafe {
            zlink_runtime_new(
                &identity,
                std::ptr::null(),
                store,
                clock,
                out,
                std::ptr::null_mut(),
            )
        });
    }
    // SAFETY: the runtimes keep the store; the handle is freed once.
    ok(unsafe { zlink_store_free(store, std::ptr::null_mut()) });
    let id = b"racer";
    let mut r = std::mem::MaybeUninit::<zlink_resolution>::uninit();
    // SAFETY: `id` is valid for its length; outs are writable or NULL.
    unsafe {
        ok(zlink_activate(
            rts[0],
            zlink_object_kind::Actor as u32,
            id.as_ptr(),
            id.len(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ));
        ok(zlink_resolve(
            rts[1],
            zlink_object_kind::Actor as u32,
            id.as_ptr(),
            id.len(),
            r.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
    }
    rts
}

/// One thread's calls on `rt` until it is refused: (hits, other codes).
fn call_until_refused(rt: usize, started: &AtomicUsize) -> (usize, usize) {
    let rt = rt as *const zlink_runtime;
    let id = b"racer";
    let ids = [zlink_str {
        ptr: id.as_ptr(),
        len: id.len(),
    }];
    let (mut hits, mut others) = (0, 0);
    started.fetch_add(1, Ordering::SeqCst);
    for i in 0usize.. {
        let mut route = std::mem::MaybeUninit::<zlink_ready_route>::uninit();
        let mut found = false;
        let mut many = std::mem::MaybeUninit::<zlink_resolution>::uninit();
        let mut stats = std::mem::MaybeUninit::<zlink_stats>::uninit();
        // SAFETY: `id` and `ids` are valid; outs are writable.
        let rc = unsafe {
            match i % 3 {
                0 => zlink_lookup_cached(
                    rt,
                    zlink_object_kind::Actor as u32,
                    id.as_ptr(),
                    id.len(),
                    route.as_mut_ptr(),
                    &mut found,
                    std::ptr::null_mut(),
                ),
                1 => zlink_resolve_many(
                    rt,
                    zlink_object_kind::Actor as u32,
                    ids.as_ptr(),
                    1,
                    many.as_mut_ptr(),
                    std::ptr::null_mut(),
                ),
                _ => zlink_stats_get(rt, stats.as_mut_ptr(), std::ptr::null_mut()),
            }
        };
        match rc {
            zlink_result::Ok => hits += usize::from(found),
            zlink_result::InvalidHandle => break,
            _ => others += 1,
        }
    }
    (hits, others)
}

#[test]
fn frees_racing_many_threads_calls_end_them_with_invalid_handle() {
    let mut clock = std::ptr::null_mut();
    let mut store = std::ptr::null_mut();
    // SAFETY: writable outs; the clock handle is live.
    unsafe {
        ok(zlink_clock_manual_new(&mut clock, std::ptr::null_mut()));
        ok(zlink_store_memory_new(
            clock,
            &mut store,
            std::ptr::null_mut(),
        ));
    }
    let (mut freed, mut hits) = (Vec::new(), 0);
    for _ in 0..ROUNDS {
        let [owner, rt] = runtime(clock);
        let started = Arc::new(AtomicUsize::new(0));
        let callers: Vec<_> = (0..THREADS)
            .map(|_| {
                let (started, rt) = (started.clone(), rt as usize);
                std::thread::spawn(move || call_until_refused(rt, &started))
            })
            .collect();
        while started.load(Ordering::SeqCst) < THREADS {
            std::thread::yield_now();
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
        // SAFETY: handles from this library, each freed once.
        unsafe {
            ok(zlink_runtime_free(rt, std::ptr::null_mut()));
            ok(zlink_runtime_free(owner, std::ptr::null_mut()));
        }
        for caller in callers {
            let (h, others) = caller.join().expect("no caller panicked");
            hits += h;
            assert_eq!(others, 0, "every call either ran or was refused");
        }
        freed.push(rt);
    }
    assert!(hits > 0, "the calls ran on the live runtimes too");
    // Every freed handle stays refused, though their slots were reused.
    let done = AtomicBool::new(true);
    for rt in freed {
        let mut stats = std::mem::MaybeUninit::<zlink_stats>::uninit();
        // SAFETY: a freed handle is checked, `stats` is writable.
        let rc = unsafe { zlink_stats_get(rt, stats.as_mut_ptr(), std::ptr::null_mut()) };
        done.fetch_and(rc == zlink_result::InvalidHandle, Ordering::Relaxed);
    }
    assert!(done.load(Ordering::Relaxed));
    // SAFETY: a handle from this library, freed once.
    ok(unsafe { zlink_clock_free(clock, std::ptr::null_mut()) });
}
