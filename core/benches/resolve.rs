//! `make bench`: cache-hit resolve on 1 and 2 threads over 100,000 cached IDs
//! of 32 bytes, a miss on the embedded store, a plain
//! `RwLock<HashMap<String, _>>`, and the memory floor: a bare
//! single-threaded lookup of the same IDs in the same order in an
//! open-addressing table (hashbrown, the 32-byte key inline, a small value),
//! all measured in the same run; then the same on a hot set of 1,000 IDs.
//!
//! Prints medians and ratios; never fails on a timing.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Arc, Barrier, RwLock};
use std::time::{Duration, Instant};

use zlink_core::*;

mod common;
use common::{Figure, record};

const IDS: usize = 100_000;
const BATCH: usize = 100_000;
const SAMPLES: usize = 31;
/// The hot set: IDs that stay in the CPU caches.
const HOT: usize = 1_000;
const THREAD_RUN: Duration = Duration::from_millis(1500);

fn ids() -> Vec<String> {
    // 32-byte IDs, visited in a scattered order so lookups miss the CPU cache
    // as real traffic would.
    (0..IDS)
        .map(|i| format!("actor-{:026}", (i * 7919) % IDS))
        .collect()
}

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("bench-mesh").expect("valid mesh"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

/// An owner with every ID activated and a sender with every route cached.
fn warm_pair(ids: &[String], config: RoutingConfig) -> (Runtime, Runtime) {
    let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::new());
    let long_lease = RoutingConfig {
        owner_lease_duration: Duration::from_secs(3600),
        ..config
    };
    let build = |rid| {
        Runtime::builder(identity(rid))
            .config(long_lease.clone())
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

/// The floor's key: the 32-byte ID inline.
fn key32(id: &str) -> [u8; 32] {
    id.as_bytes().try_into().expect("32-byte IDs")
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median ns per call over `SAMPLES` batches of `BATCH` calls. Each batch
/// starts at another offset and walks the IDs in order (no division in the
/// measured loop).
fn ns_per_op(ids: &[String], mut op: impl FnMut(&str)) -> f64 {
    let samples = (0..SAMPLES)
        .map(|s| {
            let start = (s * 7_919) % ids.len();
            let (tail, head) = ids.split_at(start);
            let order = head.iter().chain(tail).cycle().take(BATCH);
            let began = Instant::now();
            for id in order {
                op(id);
            }
            began.elapsed().as_nanos() as f64 / BATCH as f64
        })
        .collect();
    median(samples)
}

/// Calls per second, summed over `threads` threads running together.
fn throughput(threads: usize, ids: &Arc<Vec<String>>, sender: &Arc<Runtime>) -> f64 {
    let start = Arc::new(Barrier::new(threads));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (ids, sender, start) = (ids.clone(), sender.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let began = Instant::now();
                let mut ops = 0u64;
                let mut order = ids.iter().cycle().skip(t * 50_021);
                while began.elapsed() < THREAD_RUN {
                    for id in order.by_ref().take(1024) {
                        let hit = sender.lookup_cached(ObjectKind::Actor, id);
                        black_box(hit.expect("valid id").expect("cached"));
                    }
                    ops += 1024;
                }
                ops as f64 / began.elapsed().as_secs_f64()
            })
        })
        .collect();
    workers
        .into_iter()
        .map(|w| w.join().expect("worker ran"))
        .sum()
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter we ignore.
    let ids = Arc::new(ids());
    eprintln!("warming {IDS} routes…");
    let (_owner, sender) = warm_pair(&ids, RoutingConfig::default());
    let sender = Arc::new(sender);
    assert_eq!(
        sender.stats().cache_entries as usize,
        IDS,
        "every route cached"
    );

    let hit_resolve = ns_per_op(&ids, |id| {
        black_box(
            sender
                .resolve(ObjectKind::Actor, black_box(id))
                .expect("valid id"),
        );
    });
    let hit_lookup = ns_per_op(&ids, |id| {
        black_box(
            sender
                .lookup_cached(ObjectKind::Actor, black_box(id))
                .expect("valid id"),
        );
    });

    let baseline: RwLock<HashMap<String, ReadyRoute>> = RwLock::new(
        ids.iter()
            .map(|id| {
                let route = sender
                    .lookup_cached(ObjectKind::Actor, id)
                    .expect("valid id")
                    .expect("cached");
                (id.clone(), route)
            })
            .collect(),
    );
    let rwlock_map = ns_per_op(&ids, |id| {
        black_box(
            baseline
                .read()
                .expect("not poisoned")
                .get(black_box(id))
                .copied(),
        );
    });

    let floor_map: HashMap<[u8; 32], u64, foldhash::fast::RandomState> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (key32(id), i as u64))
        .collect();
    let floor = ns_per_op(&ids, |id| {
        black_box(floor_map.get(&key32(black_box(id))).copied());
    });
    let hot = &ids[..HOT];
    let hot_resolve = ns_per_op(hot, |id| {
        black_box(
            sender
                .resolve(ObjectKind::Actor, black_box(id))
                .expect("valid id"),
        );
    });
    let hot_floor = ns_per_op(hot, |id| {
        black_box(floor_map.get(&key32(black_box(id))).copied());
    });

    let huge_pages = std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("AnonHugePages:"))
                .map(str::to_owned)
        });
    let one = throughput(1, &ids, &sender);
    let two = throughput(2, &ids, &sender);

    let uncached = RoutingConfig {
        route_cache_max_age: Duration::ZERO,
        ..RoutingConfig::default()
    };
    let (_owner2, cold) = warm_pair(&ids[..10_000], uncached);
    let miss = ns_per_op(&ids[..10_000], |id| {
        black_box(
            cold.resolve(ObjectKind::Actor, black_box(id))
                .expect("valid id"),
        );
    });

    let figure = |figure, value, unit, ratio: Option<(f64, &str)>, target, met| {
        record(&Figure {
            bench: "core",
            figure,
            value,
            unit,
            ratio: ratio.map(|r| r.0),
            vs: ratio.map(|r| r.1),
            target,
            met,
        })
    };
    let per_floor = hit_resolve / floor;
    figure(
        "cache-hit resolve, 100k scattered IDs",
        hit_resolve,
        "ns",
        Some((per_floor, "hashbrown floor")),
        Some("<= 1.25x"),
        Some(per_floor <= 1.25),
    );
    figure(
        "cache-only lookup, 100k scattered IDs",
        hit_lookup,
        "ns",
        None,
        None,
        None,
    );
    figure(
        "cache-hit resolve, 1,000 hot IDs",
        hot_resolve,
        "ns",
        Some((hot_resolve / hot_floor, "hashbrown floor")),
        Some("<= 20 ns"),
        Some(hot_resolve <= 20.0),
    );
    figure(
        "hit throughput, 2 threads",
        two / 1e6,
        "M ops/s",
        Some((two / one, "1 thread")),
        Some(">= 1.7x"),
        Some(two / one >= 1.7),
    );
    figure("miss on the memory store", miss, "ns", None, None, None);

    println!(
        "zlink-core resolve benchmark ({IDS} cached ids of 32 bytes, median of {SAMPLES} batches)"
    );
    println!("  cache-hit resolve, 1 thread        {hit_resolve:8.1} ns/op");
    println!("  cache-only lookup, 1 thread        {hit_lookup:8.1} ns/op");
    println!("  RwLock<HashMap<String,_>> get      {rwlock_map:8.1} ns/op   (baseline, same run)");
    if let Some(line) = &huge_pages {
        println!(
            "  route table memory in huge pages:  {}",
            line.trim_start_matches("AnonHugePages:").trim()
        );
    }
    println!("  floor: hashbrown [u8;32] get       {floor:8.1} ns/op   (same IDs, same order)");
    println!("  cache-hit resolve, 1,000 hot IDs   {hot_resolve:8.1} ns/op   (target <= 20 ns)");
    println!("  floor on the 1,000 hot IDs         {hot_floor:8.1} ns/op");
    println!("  miss on memory store (cache off)   {miss:8.1} ns/op");
    println!(
        "  hit throughput, 1 thread           {:8.2} M ops/s",
        one / 1e6
    );
    println!(
        "  hit throughput, 2 threads          {:8.2} M ops/s",
        two / 1e6
    );
    println!("ratios");
    println!(
        "  2 threads / 1 thread throughput    {:8.2}x   (target >= 1.7x)",
        two / one
    );
    println!(
        "  hit / RwLock<HashMap> baseline     {:8.2}x",
        hit_resolve / rwlock_map
    );
    println!(
        "  hit / memory floor                 {:8.2}x   (target <= 1.25x)",
        hit_resolve / floor
    );
    println!(
        "  hot hit / hot floor                {:8.2}x",
        hot_resolve / hot_floor
    );
    println!(
        "  miss / hit                         {:8.1}x",
        miss / hit_resolve
    );
}
