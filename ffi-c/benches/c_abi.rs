//! `make bench`: cache-hit resolve through the C ABI (`zlink_resolve`,
//! `zlink_lookup_cached`, called as a C host calls them) against the same
//! calls in-core, in the same run, over 100,000 cached 32-byte IDs.
//!
//! Prints medians and the ratio (target ≤ 1.2×); never fails on a timing.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zlink::*;
use zlink_core::{
    LocationStore, MemoryStore, MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectKind,
    OwnerLeaseGeneration, RoutingConfig, Runtime,
};

const IDS: usize = 100_000;
const SAMPLES: usize = 21;

fn ids() -> Vec<String> {
    (0..IDS)
        .map(|i| format!("actor-{:026}", (i * 7919) % IDS))
        .collect()
}

fn long_lease() -> RoutingConfig {
    RoutingConfig {
        owner_lease_duration: Duration::from_secs(3600),
        ..RoutingConfig::default()
    }
}

/// In-core: an owner with every ID active, a sender with every route cached.
fn core_sender(ids: &[String]) -> (Runtime, Runtime) {
    let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::new());
    let build = |rid| {
        Runtime::builder(NodeIdentity {
            mesh: MeshName::new("bench-mesh").expect("valid mesh"),
            rid: NodeRid(rid),
            generation: NodeGeneration(1),
            lease: OwnerLeaseGeneration(rid),
        })
        .config(long_lease())
        .store(store.clone())
        .build()
        .expect("valid runtime")
    };
    let (owner, sender) = (build(1), build(2));
    for id in ids {
        owner.activate(ObjectKind::Actor, id).expect("activation");
        sender.resolve(ObjectKind::Actor, id).expect("valid id");
    }
    (owner, sender)
}

fn ok(rc: zlink_result) {
    assert_eq!(rc, zlink_result::Ok);
}

/// The same through the C ABI.
fn ffi_sender(ids: &[String]) -> (*mut zlink_runtime, *mut zlink_runtime) {
    let mut store = std::ptr::null_mut();
    let mut config = std::mem::MaybeUninit::<zlink_config>::uninit();
    let mut owner = std::ptr::null_mut();
    let mut sender = std::ptr::null_mut();
    // SAFETY: every pointer below is valid for the call; handles come from
    // the library and the config is initialised before use.
    unsafe {
        ok(zlink_store_memory_new(
            std::ptr::null(),
            &mut store,
            std::ptr::null_mut(),
        ));
        ok(zlink_config_default(
            config.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        let mut config = config.assume_init();
        config.owner_lease_duration_ms = 3_600_000;
        for (rid, out) in [(1, &mut owner), (2, &mut sender)] {
            let identity = zlink_node_identity {
                mesh: c"bench-mesh".as_ptr(),
                rid,
                generation: 1,
                lease: rid,
            };
            ok(zlink_runtime_new(
                &identity,
                &config,
                store,
                std::ptr::null(),
                out,
                std::ptr::null_mut(),
            ));
        }
        ok(zlink_store_free(store, std::ptr::null_mut()));
        let mut r = std::mem::MaybeUninit::<zlink_resolution>::uninit();
        for id in ids {
            ok(zlink_activate(
                owner,
                zlink_object_kind::Actor as u32,
                id.as_ptr(),
                id.len(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            ));
            ok(zlink_resolve(
                sender,
                zlink_object_kind::Actor as u32,
                id.as_ptr(),
                id.len(),
                r.as_mut_ptr(),
                std::ptr::null_mut(),
            ));
        }
    }
    (owner, sender)
}

/// Nanoseconds per call of `f` over every ID, median of `SAMPLES` passes.
fn per_call(ids: &[String], mut f: impl FnMut(&str)) -> f64 {
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for id in ids {
                f(id);
            }
            start.elapsed().as_nanos() as f64 / ids.len() as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[SAMPLES / 2]
}

fn main() {
    let ids = ids();
    let (_core_owner, core) = core_sender(&ids);
    let (ffi_owner, ffi) = ffi_sender(&ids);
    let kind = zlink_object_kind::Actor as u32;

    let mut rows = Vec::new();
    for round in 0..2 {
        let core_resolve = per_call(&ids, |id| {
            black_box(
                core.resolve(ObjectKind::Actor, black_box(id))
                    .expect("valid id"),
            );
        });
        let ffi_resolve = per_call(&ids, |id| {
            let mut out = std::mem::MaybeUninit::<zlink_resolution>::uninit();
            // SAFETY: `id` is valid for `len` bytes, `out` is writable.
            let rc = unsafe {
                zlink_resolve(
                    ffi,
                    kind,
                    black_box(id).as_ptr(),
                    id.len(),
                    out.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(rc, zlink_result::Ok);
            black_box(out);
        });
        let core_lookup = per_call(&ids, |id| {
            black_box(
                core.lookup_cached(ObjectKind::Actor, black_box(id))
                    .expect("valid id"),
            );
        });
        let ffi_lookup = per_call(&ids, |id| {
            let mut route = std::mem::MaybeUninit::<zlink_ready_route>::uninit();
            let mut found = false;
            // SAFETY: `id` is valid for `len` bytes, outs are writable.
            let rc = unsafe {
                zlink_lookup_cached(
                    ffi,
                    kind,
                    black_box(id).as_ptr(),
                    id.len(),
                    route.as_mut_ptr(),
                    &mut found,
                    std::ptr::null_mut(),
                )
            };
            assert!(rc == zlink_result::Ok && found);
            black_box(route);
        });
        if round == 1 {
            rows.push(("resolve (cache hit)", core_resolve, ffi_resolve));
            rows.push(("lookup_cached (hit)", core_lookup, ffi_lookup));
        }
    }
    println!("C ABI vs in-core, {IDS} cached 32-byte IDs, median of {SAMPLES} passes");
    for (name, core_ns, ffi_ns) in rows {
        println!(
            "  {name:<22} in-core {core_ns:6.1} ns   C ABI {ffi_ns:6.1} ns   ratio {:.2}x (target <= 1.2x)",
            ffi_ns / core_ns
        );
    }
    // SAFETY: handles from `ffi_sender`, freed once.
    unsafe {
        ok(zlink_runtime_free(ffi, std::ptr::null_mut()));
        ok(zlink_runtime_free(ffi_owner, std::ptr::null_mut()));
    }
}
