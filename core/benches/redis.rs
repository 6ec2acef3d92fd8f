//! `make bench` (Redis part): miss-path resolves per second against a local
//! `redis-server` at 1, 16 and 64 concurrent callers, beside
//! `redis-benchmark -t get` at the same concurrency on the same server in the
//! same run (`resolve_async` with the store on its own I/O thread and with
//! the store on the callers' runtime, `RedisStore::connect`; the blocking
//! `resolve` from threads); and a hot-key burst of 1,000 concurrent resolves of one cold ID,
//! which must read the store once.
//!
//! Prints figures and ratios; never fails on a timing.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod common;
use common::{Figure, record};
use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore};
use zlink_testkit::RedisServer;

const IDS_PER_CALLER: usize = 16;
const RUN: Duration = Duration::from_secs(2);
const BURST: usize = 1_000;

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("bench-mesh").expect("valid"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

fn runtime(store: Arc<dyn LocationStore>, config: RoutingConfig) -> Arc<Runtime> {
    let config = RoutingConfig {
        owner_lease_duration: Duration::from_secs(3600),
        ..config
    };
    let rt = Runtime::builder(identity(1))
        .config(config)
        .store(store)
        .build();
    Arc::new(rt.expect("valid runtime"))
}

/// `redis-benchmark -t get` requests per second at `clients` connections.
fn redis_benchmark_get(server: &RedisServer, clients: usize) -> f64 {
    let out = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &server.port().to_string()])
        .args([
            "-t",
            "get",
            "-q",
            "-n",
            "200000",
            "-c",
            &clients.to_string(),
        ])
        .output()
        .expect("redis-benchmark runs (make deps)");
    let text = String::from_utf8_lossy(&out.stdout);
    // Its last line: "GET: 123456.79 requests per second, p50=0.111 msec".
    text.rsplit("GET: ")
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read redis-benchmark output: {text:?}"))
}

/// Store-read resolves per second with `callers` concurrent callers, each on
/// its own IDs (so single flight does not merge them) and the cache off,
/// as tasks of `driver` (the host's runtime).
fn miss_path(rt: &Arc<Runtime>, callers: usize, driver: &tokio::runtime::Runtime) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    driver.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|c| {
                let (rt, done) = (rt.clone(), done.clone());
                tokio::spawn(async move {
                    let mut i = 0;
                    while started.elapsed() < RUN {
                        let id = format!("actor-{c}-{}", i % IDS_PER_CALLER);
                        let resolution = rt
                            .resolve_async(ObjectKind::Actor, &id)
                            .expect("valid id")
                            .await;
                        assert!(
                            matches!(resolution, Resolution::ReadyRoute(_)),
                            "{resolution:?}"
                        );
                        done.fetch_add(1, Ordering::Relaxed);
                        i += 1;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("caller ran");
        }
    });
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// The same with `callers` threads calling the blocking `resolve` (how a
/// JVM or Python host thread calls it): no hop to the runtime's own thread.
fn miss_path_blocking(rt: &Arc<Runtime>, callers: usize) -> f64 {
    let started = Instant::now();
    let threads: Vec<_> = (0..callers)
        .map(|c| {
            let rt = rt.clone();
            std::thread::spawn(move || {
                let mut done = 0u64;
                while started.elapsed() < RUN {
                    let id = format!("actor-{c}-{}", done as usize % IDS_PER_CALLER);
                    let resolution = rt.resolve(ObjectKind::Actor, &id).expect("valid id");
                    assert!(
                        matches!(resolution, Resolution::ReadyRoute(_)),
                        "{resolution:?}"
                    );
                    done += 1;
                }
                done
            })
        })
        .collect();
    let done: u64 = threads
        .into_iter()
        .map(|t| t.join().expect("caller ran"))
        .sum();
    done as f64 / started.elapsed().as_secs_f64()
}

/// 1,000 concurrent resolves of one cold ID; returns the store reads it took.
fn hot_key_burst(rt: &Arc<Runtime>) -> u64 {
    rt.activate(ObjectKind::Spot, "hot-spot")
        .expect("activates");
    let before = rt.stats().store_reads;
    let driver = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    driver.block_on(async {
        let resolves: Vec<_> = (0..BURST)
            .map(|_| {
                tokio::spawn(
                    rt.resolve_async(ObjectKind::Spot, "hot-spot")
                        .expect("valid id"),
                )
            })
            .collect();
        for r in resolves {
            assert!(matches!(
                r.await.expect("resolved"),
                Resolution::ReadyRoute(_)
            ));
        }
    });
    rt.stats().store_reads - before
}

fn main() {
    let server = RedisServer::start().expect("redis-server starts (make deps)");
    let open = || -> Arc<dyn LocationStore> {
        Arc::new(RedisStore::open(&server.url()).expect("connects"))
    };
    let no_cache = RoutingConfig {
        route_cache_max_age: Duration::ZERO,
        ..RoutingConfig::default()
    };
    let rt = runtime(open(), no_cache.clone());
    // A Rust host's runtime, and a store connected on it (`connect`): its
    // callers' reads run in their own tasks, no hop to a store thread.
    let host = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let on_host = host
        .block_on(RedisStore::connect(&server.url(), RedisOptions::default()))
        .expect("connects");
    let rt_on_host = runtime(Arc::new(on_host), no_cache);
    // Callers of the store on its own thread: a current-thread runtime.
    let driver = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for c in 0..64 {
        for i in 0..IDS_PER_CALLER {
            rt.activate(ObjectKind::Actor, &format!("actor-{c}-{i}"))
                .expect("activates");
        }
    }

    println!(
        "zlink-core Redis benchmark (redis-server {} on loopback, {RUN:?} per run)",
        server.port()
    );
    println!(
        "  callers   redis-benchmark GET/s   resolve_async/s  ratio   on the host's runtime/s  ratio   blocking resolve/s  ratio"
    );
    for callers in [1, 16, 64] {
        let theirs = redis_benchmark_get(&server, callers);
        let ours = miss_path(&rt, callers, &driver);
        let hosted = miss_path(&rt_on_host, callers, &host);
        let blocking = miss_path_blocking(&rt, callers);
        println!(
            "  {callers:>7}   {theirs:>21.0}   {ours:>15.0}  {:>5.2}x   {hosted:>23.0}  {:>5.2}x   {blocking:>18.0}  {:>5.2}x",
            ours / theirs,
            hosted / theirs,
            blocking / theirs
        );
        for (how, value, target) in [
            ("resolve_async", ours, 0.8),
            ("resolve_async (host rt)", hosted, 0.8),
            ("blocking resolve", blocking, 0.7),
        ] {
            let ratio = value / theirs;
            record(&Figure {
                bench: "redis",
                figure: &format!("miss path, {how}, {callers} callers"),
                value,
                unit: "ops/s",
                ratio: Some(ratio),
                vs: Some("redis-benchmark GET"),
                target: Some(&format!(">= {target}x")),
                met: Some(ratio >= target),
            });
        }
    }
    println!(
        "  (targets: resolve_async >= 0.8x, blocking resolve >= 0.7x of redis-benchmark GET at the same concurrency;"
    );
    println!(
        "   \"host rt\" / \"on the host's runtime\": a store opened with RedisStore::connect on the callers' runtime)"
    );
    let cached = runtime(open(), RoutingConfig::default());
    let reads = hot_key_burst(&cached);
    println!(
        "hot-key burst: {BURST} concurrent resolves of one cold ID -> {reads} store read(s) (must be 1)"
    );
}
