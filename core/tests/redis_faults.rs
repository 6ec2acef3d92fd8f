//! What routing does when a real Redis stalls, dies, restarts or holds
//! values past 2^53. Each test starts its own `redis-server` (it faults it).

use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore};
use zlink_testkit::{RedisCluster, RedisServer};

const ACTOR: ObjectKind = ObjectKind::Actor;

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("redis-mesh").expect("valid"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

fn quick_options() -> RedisOptions {
    RedisOptions {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(500),
        epoch_check_interval: Duration::from_millis(100),
        ..RedisOptions::default()
    }
}

/// An owner and a sender on one store, with a short `store_timeout`.
fn pair(store: Arc<dyn LocationStore>) -> (Runtime, Runtime) {
    let config = RoutingConfig {
        store_timeout: Duration::from_millis(300),
        ..RoutingConfig::default()
    };
    let build = |rid| {
        Runtime::builder(identity(rid))
            .config(config.clone())
            .store(store.clone())
            .build()
            .expect("valid runtime")
    };
    (build(1), build(2))
}

fn is_ready(r: &Resolution) -> bool {
    matches!(r, Resolution::ReadyRoute(_))
}

/// Resolves until the store answers (the client reconnects by itself).
fn resolve_until_answered(rt: &Runtime, id: &str) -> Resolution {
    let give_up = Instant::now() + Duration::from_secs(15);
    loop {
        let r = rt.resolve(ACTOR, id).expect("valid id");
        if !matches!(r, Resolution::StoreFailure(_)) || Instant::now() > give_up {
            return r;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A server, a store on it with `options`, an owner of actor "a" and a
/// sender that cached the route to it (this thread read it).
fn a_cached(options: RedisOptions) -> (RedisServer, Runtime, Runtime) {
    let server = RedisServer::start().expect("redis-server starts");
    let store = Arc::new(RedisStore::open_with(&server.url(), options).expect("connects"));
    let (owner, sender) = pair(store);
    owner.activate(ACTOR, "a").expect("activation");
    assert!(is_ready(&sender.resolve(ACTOR, "a").expect("valid id")));
    (server, owner, sender)
}

/// `a_cached`, and the owner also has actor "b" (not cached).
fn a_cached_and_b_cold() -> (RedisServer, Runtime, Runtime) {
    let (server, owner, sender) = a_cached(quick_options());
    owner.activate(ACTOR, "b").expect("activation");
    (server, owner, sender)
}

#[test]
fn a_pause_shorter_than_the_store_timeout_is_only_a_slow_answer() {
    let (server, _owner, sender) = a_cached_and_b_cold();

    server.pause().unwrap();
    let started = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            server.resume().unwrap();
        });
        assert!(is_ready(&sender.resolve(ACTOR, "b").unwrap()));
    });
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert!(
        sender.lookup_cached(ACTOR, "a").unwrap().is_some(),
        "a slow answer clears nothing"
    );
    assert_eq!(sender.stats().store_recoveries, 0);
}

#[test]
fn a_pause_longer_than_the_store_timeout_fails_in_time_and_flushes_nothing() {
    let (server, _owner, sender) = a_cached_and_b_cold();

    server.pause().unwrap();
    let started = Instant::now();
    let outcome = sender.resolve(ACTOR, "b").unwrap();
    let took = started.elapsed();
    assert!(
        matches!(
            outcome,
            Resolution::StoreFailure(StoreError::Timeout { .. })
        ),
        "{outcome:?}"
    );
    assert!(
        took < Duration::from_millis(550),
        "bounded by store_timeout (300 ms): {took:?}"
    );
    assert!(
        sender.lookup_cached(ACTOR, "a").unwrap().is_some(),
        "an outage alone clears nothing"
    );

    server.resume().unwrap();
    assert!(is_ready(&resolve_until_answered(&sender, "b")));
    // The connection held and the server's epoch is the same: nothing can
    // have changed unseen, so the cache stays and nobody stampedes.
    assert!(
        sender.lookup_cached(ACTOR, "a").unwrap().is_some(),
        "no recovery event: the cache stays"
    );
    assert_eq!(sender.stats().store_recoveries, 0);
}

#[test]
fn a_killed_and_restarted_server_is_reconnected_by_itself_and_no_cached_route_survives() {
    let (server, owner, sender) = a_cached(quick_options());

    server.kill().unwrap();
    assert!(matches!(
        sender.resolve(ACTOR, "b").unwrap(),
        Resolution::StoreFailure(_)
    ));
    server.restart().unwrap();
    // The restarted server is empty (no persistence): the first answer is a
    // recovery, so the cached route to "a" must be gone, not served stale.
    assert_eq!(resolve_until_answered(&sender, "b"), Resolution::Missing);
    assert_eq!(sender.lookup_cached(ACTOR, "a").unwrap(), None);
    assert!(sender.stats().store_recoveries >= 1);
    assert_eq!(sender.resolve(ACTOR, "a").unwrap(), Resolution::Missing);
    owner.activate(ACTOR, "a").unwrap();
    assert!(is_ready(&sender.resolve(ACTOR, "a").unwrap()));
}

#[test]
fn a_restarted_server_reports_a_new_epoch() {
    let server = RedisServer::start().expect("redis-server starts");
    let store = RedisStore::open_with(&server.url(), quick_options()).expect("connects");
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let key = KeyRef {
        kind: ACTOR,
        id: "epoch",
    };
    let before = executor.block_on(store.read(key)).expect("answers").epoch;
    server.restart().unwrap();
    let give_up = Instant::now() + Duration::from_secs(10);
    let after = loop {
        if let Ok(o) = executor.block_on(store.read(key))
            && (o.epoch != before || Instant::now() > give_up)
        {
            break o.epoch;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_ne!(after, before, "the run id changed, so the epoch did");
}

#[test]
fn generations_and_versions_past_2_pow_53_are_exact() {
    let server = RedisServer::start().expect("redis-server starts");
    let store = Arc::new(RedisStore::open_with(&server.url(), quick_options()).expect("connects"));
    let key = KeyRef {
        kind: ACTOR,
        id: "big",
    };
    // Seed a record whose numbers a double cannot hold exactly.
    let big = "9007199254740993"; // 2^53 + 1
    let redis_key = store.key_of(key);
    let seeded = server
        .cli(&[
            "HSET",
            &redis_key,
            "st",
            "ready",
            "og",
            big,
            "last_og",
            big,
            "aog",
            "9007199254740991",
            "mesh",
            "m",
            "rid",
            "1",
            "ngen",
            "1",
            "lgen",
            "1",
            "lexp",
            "99999999999999",
            "ver",
            "9007199254740992",
            "prop",
            "7",
        ])
        .unwrap();
    assert_eq!(seeded.trim(), "11");
    let (owner, _) = pair(store.clone());
    let from = WriteFence {
        object_generation: ObjectGeneration(9_007_199_254_740_993),
        authority_owner_generation: AuthorityOwnerGeneration(9_007_199_254_740_991),
    };
    let me = owner.identity();
    let claim = OwnerClaim {
        mesh: me.mesh,
        node: me.rid,
        node_generation: me.generation,
        lease_generation: me.lease,
        lease_millis: 30_000,
    };
    let key = KeyRef {
        kind: ACTOR,
        id: "big",
    };
    let exec = store.executor().expect("the redis store runs its own I/O");
    let cas = |from: WriteFence, proposal: u64| {
        exec.block_on(store.transfer_owner(key, from, claim, ProposalId(proposal)))
    };
    let moved = cas(from, 1).expect("exact compare of 2^53 + 1").value;
    assert_eq!(
        moved.object_generation,
        ObjectGeneration(9_007_199_254_740_993)
    );
    assert_eq!(
        moved.authority_owner_generation,
        AuthorityOwnerGeneration(9_007_199_254_740_992)
    );
    assert_eq!(moved.store_version, StoreVersion(9_007_199_254_740_993));
    let off_by_one = WriteFence {
        authority_owner_generation: AuthorityOwnerGeneration(9_007_199_254_740_993),
        ..from
    };
    assert!(cas(off_by_one, 2).is_err(), "2^53 + 1 is not 2^53");
    assert_eq!(
        server.cli(&["HGET", &redis_key, "aog"]).unwrap().trim(),
        "9007199254740992"
    );
}

#[test]
fn a_paused_cluster_yields_store_failure_in_time_and_recovers() {
    let cluster = RedisCluster::start(3).expect("a 3-master cluster forms");
    let hosts: Vec<String> = cluster
        .urls()
        .iter()
        .map(|u| u.trim_start_matches("redis://").to_owned())
        .collect();
    let url = format!("redis+cluster://{}", hosts.join(","));
    let store = Arc::new(RedisStore::open_with(&url, quick_options()).expect("connects"));
    let (owner, sender) = pair(store);
    for id in ["a", "b", "c"] {
        owner.activate(ACTOR, id).unwrap();
    }
    assert!(is_ready(&sender.resolve(ACTOR, "a").unwrap()));
    // Shorter than the cluster node timeout (2 s), so no node is failed.
    cluster.nodes().iter().for_each(|n| n.pause().unwrap());
    let started = Instant::now();
    let outcome = sender.resolve(ACTOR, "b").unwrap();
    let took = started.elapsed();
    cluster.nodes().iter().for_each(|n| n.resume().unwrap());
    assert!(
        matches!(outcome, Resolution::StoreFailure(_)),
        "{outcome:?}"
    );
    assert!(
        took < Duration::from_millis(550),
        "bounded by store_timeout (300 ms): {took:?}"
    );
    assert!(is_ready(&resolve_until_answered(&sender, "c")));
    assert!(
        sender.lookup_cached(ACTOR, "a").unwrap().is_some(),
        "a pause is no recovery event: the cache stays"
    );
}

#[test]
fn a_released_objects_tombstone_expires_and_its_id_never_reuses_a_generation() {
    let server = RedisServer::start().expect("redis-server starts");
    let options = RedisOptions {
        tombstone_retention: Duration::from_millis(300),
        ..quick_options()
    };
    let store = Arc::new(RedisStore::open_with(&server.url(), options).expect("connects"));
    let redis_key = store.key_of(KeyRef {
        kind: ACTOR,
        id: "churn",
    });
    let (owner, _) = pair(store);
    let first = owner.activate(ACTOR, "churn").unwrap().object_generation;
    owner.begin_release(ACTOR, "churn").unwrap();
    owner.complete_release(ACTOR, "churn").unwrap();
    let ttl: i64 = server
        .cli(&["PTTL", &redis_key])
        .unwrap()
        .trim()
        .parse()
        .expect("a TTL");
    assert!(
        (1..=300).contains(&ttl),
        "the tombstone expires: PTTL {ttl}"
    );
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(server.cli(&["EXISTS", &redis_key]).unwrap().trim(), "0");
    let again = owner.activate(ACTOR, "churn").unwrap();
    assert!(
        again.object_generation > first,
        "{:?} after {first:?}",
        again.object_generation
    );
    assert_eq!(
        server.cli(&["PTTL", &redis_key]).unwrap().trim(),
        "-1",
        "a live object's key does not expire"
    );
}

#[test]
fn a_connection_the_client_had_to_re_establish_is_a_recovery_event() {
    let (server, _owner, sender) = a_cached_and_b_cold();
    // The server drops every client connection (as a network cut would),
    // and no data call fails on it: only the epoch watcher meets the dead
    // connection, and the client re-establishes it. What others wrote
    // meanwhile was not seen, so nothing cached may survive.
    server.cli(&["CLIENT", "KILL", "TYPE", "normal"]).unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert!(is_ready(&resolve_until_answered(&sender, "b")));
    assert!(sender.stats().store_recoveries >= 1);
    assert_eq!(sender.lookup_cached(ACTOR, "a").unwrap(), None);
}

/// Client connections the server has open now (`redis-cli`'s own included).
fn connections(server: &RedisServer) -> usize {
    let list = server.cli(&["CLIENT", "LIST"]).expect("CLIENT LIST");
    list.lines().filter(|l| l.starts_with("id=")).count()
}

/// Polls until the server has `n` connections (a closed one is dropped by
/// the server a moment later); returns the last count.
fn connections_become(server: &RedisServer, n: usize) -> usize {
    let give_up = Instant::now() + Duration::from_secs(5);
    loop {
        let now = connections(server);
        if now == n || Instant::now() > give_up {
            return now;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A job for a [`Worker`]: runs on its thread, says whether it went well.
type Job<'a> = Box<dyn FnOnce() -> bool + Send + 'a>;

/// A thread that keeps running until dropped, running what it is sent: a
/// test can look at the server while the thread (and so its connection)
/// lives. Dropping the worker ends the thread, even after a failed assert.
struct Worker<'a> {
    jobs: std::sync::mpsc::Sender<Job<'a>>,
    done: std::sync::mpsc::Receiver<bool>,
}

impl<'a> Worker<'a> {
    fn start<'s>(s: &'s std::thread::Scope<'s, 'a>) -> Self {
        let (jobs, inbox) = std::sync::mpsc::channel::<Job<'a>>();
        let (report, done) = std::sync::mpsc::channel();
        s.spawn(move || {
            for job in inbox {
                let _ = report.send(job());
            }
        });
        Worker { jobs, done }
    }

    /// Runs `job` on the worker's thread and waits for it.
    fn run(&self, job: impl FnOnce() -> bool + Send + 'a) -> bool {
        self.jobs.send(Box::new(job)).expect("the worker runs");
        self.done.recv().expect("the job ends")
    }
}

#[test]
fn a_blocked_thread_reads_on_a_connection_of_its_own_that_ends_with_it() {
    let (server, owner, sender) = a_cached_and_b_cold();
    for id in ["t0", "t1", "t2", "task"] {
        owner.activate(ACTOR, id).unwrap();
    }
    let before = connections(&server);
    std::thread::scope(|s| {
        let workers: Vec<Worker<'_>> = (0..3).map(|_| Worker::start(s)).collect();
        for (worker, id) in workers.iter().zip(["t0", "t1", "t2"]) {
            let sender = &sender;
            assert!(worker.run(move || is_ready(&sender.resolve(ACTOR, id).unwrap())));
        }
        assert_eq!(
            connections(&server),
            before + 3,
            "each blocked thread read on its own connection"
        );
    });
    assert_eq!(
        connections_become(&server, before),
        before,
        "a thread's connection ends with the thread"
    );
    // A task's read goes through the shared connection: none is added.
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let resolution = executor.block_on(sender.resolve_async(ACTOR, "task").unwrap());
    assert!(is_ready(&resolution));
    assert_eq!(connections(&server), before);
    assert_eq!(sender.stats().store_reads, 5, "one store read per miss");
}

#[test]
fn past_its_thread_connections_a_blocked_thread_reads_through_the_shared_one() {
    let server = RedisServer::start().expect("redis-server starts");
    let options = RedisOptions {
        thread_connections: 2,
        ..quick_options()
    };
    let store = Arc::new(RedisStore::open_with(&server.url(), options).expect("connects"));
    let (owner, sender) = pair(store);
    let ids = ["t0", "t1", "t2", "t2-again", "t2-last"];
    for id in ids {
        owner.activate(ACTOR, id).unwrap();
    }
    let before = connections(&server);
    std::thread::scope(|s| {
        let workers: Vec<Worker<'_>> = (0..3).map(|_| Worker::start(s)).collect();
        let sender = &sender;
        for (worker, id) in workers.iter().zip(ids) {
            assert!(worker.run(move || is_ready(&sender.resolve(ACTOR, id).unwrap())));
        }
        assert_eq!(
            connections(&server),
            before + 2,
            "two threads have their own; the third read through the shared one"
        );
        let [first, _second, third] =
            <[Worker<'_>; 3]>::try_from(workers).unwrap_or_else(|_| unreachable!("three workers"));
        drop(first);
        assert_eq!(connections_become(&server, before + 1), before + 1);
        // The first thread ended and gave its seat back: the third now
        // takes it.
        assert!(third.run(move || is_ready(&sender.resolve(ACTOR, "t2-again").unwrap())));
        assert_eq!(connections(&server), before + 2);
        assert!(third.run(move || is_ready(&sender.resolve(ACTOR, "t2-last").unwrap())));
        assert_eq!(connections(&server), before + 2, "it keeps its own");
    });
    assert_eq!(sender.stats().store_reads, 5, "one store read per miss");
}

#[test]
fn a_threads_connection_to_a_dropped_store_is_closed_when_it_next_connects() {
    let server = RedisServer::start().expect("redis-server starts");
    let open =
        || Arc::new(RedisStore::open_with(&server.url(), quick_options()).expect("connects"));
    let base = connections(&server);
    let first = Arc::new(pair(open()));
    // The store's own: the shared one and its writers.
    let per_store = connections(&server) - base;
    let second = pair(open());
    first.0.activate(ACTOR, "x").unwrap();
    let before = connections(&server);
    std::thread::scope(|s| {
        let worker = Worker::start(s);
        let job = first.clone();
        assert!(worker.run(move || is_ready(&job.1.resolve(ACTOR, "x").unwrap())));
        assert_eq!(connections(&server), before + 1, "the thread's own");
        assert_eq!(Arc::strong_count(&first), 1, "the job is over");
        drop(first);
        // The first store and its connections are gone; the thread's
        // connection to it stays until the thread connects again.
        let without_first = before - per_store;
        assert_eq!(
            connections_become(&server, without_first + 1),
            without_first + 1
        );
        let sender = &second.1;
        assert!(worker.run(move || is_ready(&sender.resolve(ACTOR, "x").unwrap())));
        assert_eq!(
            connections_become(&server, without_first + 1),
            without_first + 1,
            "one connection to the second store, none left to the first"
        );
    });
}

/// A server whose restart the epoch watcher has not seen yet (it looks
/// every 5 s here).
fn slow_watcher() -> RedisOptions {
    RedisOptions {
        epoch_check_interval: Duration::from_secs(5),
        ..quick_options()
    }
}

#[test]
fn a_restart_seen_first_by_a_threads_kept_connection_clears_the_cache() {
    let (server, _owner, sender) = a_cached(slow_watcher());
    server.restart().unwrap();
    // This thread's connection was lost: its first read fails as a lost
    // shared connection's would, and the answer after it is a recovery.
    assert_eq!(resolve_until_answered(&sender, "b"), Resolution::Missing);
    assert_eq!(
        sender.lookup_cached(ACTOR, "a").unwrap(),
        None,
        "no route of the old server survives its restart"
    );
    assert!(sender.stats().store_recoveries >= 1);
}

#[test]
fn a_restart_met_by_a_threads_new_connection_clears_the_cache() {
    let (server, _owner, sender) = a_cached(slow_watcher());
    server.restart().unwrap();
    // A thread that never read connects now: its server is not the one
    // the watcher last saw, so its first read fails and the next answer
    // is a recovery.
    let first = std::thread::scope(|s| s.spawn(|| sender.resolve(ACTOR, "b").unwrap()).join());
    assert!(
        matches!(
            first,
            Ok(Resolution::StoreFailure(StoreError::Unreachable(_)))
        ),
        "{first:?}"
    );
    let answered = std::thread::scope(|s| s.spawn(|| resolve_until_answered(&sender, "b")).join());
    assert_eq!(answered.unwrap(), Resolution::Missing);
    assert_eq!(sender.lookup_cached(ACTOR, "a").unwrap(), None);
    assert!(sender.stats().store_recoveries >= 1);
}

#[test]
fn a_new_threads_read_of_a_paused_server_fails_in_time() {
    let (server, _owner, sender) = a_cached_and_b_cold();
    server.pause().unwrap();
    let started = Instant::now();
    // Connecting, checking the server and reading share one deadline.
    let outcome = std::thread::scope(|s| s.spawn(|| sender.resolve(ACTOR, "b").unwrap()).join());
    let took = started.elapsed();
    server.resume().unwrap();
    assert!(
        matches!(
            outcome,
            Ok(Resolution::StoreFailure(StoreError::Timeout { .. }))
        ),
        "{outcome:?}"
    );
    assert!(
        took < Duration::from_millis(550),
        "bounded by store_timeout (300 ms): {took:?}"
    );
}

#[test]
fn a_server_error_keeps_the_threads_connection() {
    let (server, _owner, sender) = a_cached_and_b_cold();
    // "b"'s key holds a string: HMGET answers WRONGTYPE, a clean reply.
    server
        .cli(&["SET", "zlink:{actor:b}", "not-a-hash"])
        .unwrap();
    let before = connections(&server);
    for _ in 0..5 {
        let outcome = sender.resolve(ACTOR, "b").unwrap();
        assert!(
            matches!(outcome, Resolution::StoreFailure(StoreError::Protocol(_))),
            "{outcome:?}"
        );
    }
    assert_eq!(connections(&server), before, "no connection was replaced");
}

/// A runtime of the host's, as a Rust service runs its tasks on.
fn host_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a host runtime")
}

#[test]
fn a_store_on_the_hosts_runtime_resolves_there_and_ends_its_tasks_with_it() {
    let server = RedisServer::start().expect("redis-server starts");
    let host = host_runtime();
    let before = connections(&server);
    // No epoch check while tasks are counted: its periodic task would
    // come and go on the host's runtime between the two counts.
    let options = RedisOptions {
        epoch_check_interval: Duration::from_secs(3600),
        ..quick_options()
    };
    let store = host
        .block_on(RedisStore::connect(&server.url(), options))
        .expect("connects");
    let (owner, sender) = pair(Arc::new(store));
    owner.activate(ACTOR, "a").expect("activation");
    // Awaited on the host's runtime: the read runs in the caller's task.
    let resolved = host.block_on(async {
        let tasks = tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks();
        let resolve = sender.resolve_async(ACTOR, "a").expect("valid id");
        let mut resolve = std::pin::pin!(resolve);
        // The first poll starts the read in this task; a server on loopback
        // may even answer within it, so both Ready and Pending are fine.
        let first = std::future::poll_fn(|cx| Poll::Ready(resolve.as_mut().poll(cx))).await;
        assert_eq!(
            tokio::runtime::Handle::current()
                .metrics()
                .num_alive_tasks(),
            tasks,
            "no task was spawned for the read"
        );
        match first {
            Poll::Ready(answer) => answer,
            Poll::Pending => resolve.await,
        }
    });
    assert!(is_ready(&resolved), "{resolved:?}");
    assert_eq!(
        sender.stats().store_reads,
        1,
        "a cold ID is read from the store"
    );
    // Awaited elsewhere, it is sent to the host's runtime, as before.
    owner.activate(ACTOR, "b").expect("activation");
    let elsewhere = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("an executor without I/O or timers");
    let b = elsewhere.block_on(sender.resolve_async(ACTOR, "b").expect("valid id"));
    assert!(is_ready(&b), "{b:?}");
    assert!(connections(&server) > before);
    // The host's runtime lives on; the store's connection and watcher end
    // with the store.
    drop((owner, sender));
    assert_eq!(connections_become(&server, before), before);
}

/// A server, a host's runtime, and an owner and a sender on a store
/// connected on that runtime.
fn a_pair_on_a_host_runtime() -> (RedisServer, tokio::runtime::Runtime, Runtime, Runtime) {
    let server = RedisServer::start().expect("redis-server starts");
    let host = host_runtime();
    let store = host
        .block_on(RedisStore::connect(&server.url(), quick_options()))
        .expect("connects");
    let (owner, sender) = pair(Arc::new(store));
    (server, host, owner, sender)
}

#[test]
fn a_blocking_call_from_a_hosts_task_does_not_starve_the_store_on_its_runtime() {
    let (_server, host, owner, sender) = a_pair_on_a_host_runtime();
    let (owner, sender) = (Arc::new(owner), Arc::new(sender));
    // On the host's one worker: the store's calls need that worker too.
    let task = host.spawn(async move {
        let started = Instant::now();
        owner.activate(ACTOR, "a").expect("activation");
        let resolved = sender.resolve(ACTOR, "a").expect("valid id");
        (started.elapsed(), resolved)
    });
    let (took, resolved) = host.block_on(task).expect("the task ran");
    assert!(is_ready(&resolved), "{resolved:?}");
    assert!(
        took < Duration::from_millis(300),
        "{took:?}: waited for itself"
    );
}

#[test]
fn a_store_whose_host_runtime_shut_down_fails_its_calls_in_time() {
    let (_server, host, owner, sender) = a_pair_on_a_host_runtime();
    owner.activate(ACTOR, "a").expect("activation");
    drop(host);
    let started = Instant::now();
    assert!(
        owner.activate(ACTOR, "b").is_err(),
        "a write after the host's runtime ended fails"
    );
    let elsewhere = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("an executor");
    let a = elsewhere.block_on(sender.resolve_async(ACTOR, "a").expect("valid id"));
    assert!(matches!(a, Resolution::StoreFailure(_)), "{a:?}");
    assert!(
        started.elapsed() < Duration::from_millis(550),
        "{:?}",
        started.elapsed()
    );
}
