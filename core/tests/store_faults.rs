//! What the resolver does when the store is slow, stalled or down:
//! single flight, `store_timeout`, bounded retries, recovery.

mod cluster;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cluster::{Cluster, ready};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < give_up, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

#[test]
fn concurrent_misses_for_one_id_share_one_store_read() {
    let c = Arc::new(Cluster::with_defaults(2));
    c.node(1).activate(ACTOR, "hot").unwrap();
    c.store.set_stalled(true);
    let calls = c.store.calls();
    let callers: Vec<_> = (0..8)
        .map(|_| {
            let c = c.clone();
            std::thread::spawn(move || c.node(2).resolve(ACTOR, "hot").unwrap())
        })
        .collect();
    wait_until("8 misses", || c.node(2).stats().cache_misses == 8);
    c.store.set_stalled(false);
    let routes: Vec<_> = callers
        .into_iter()
        .map(|t| ready(t.join().unwrap()))
        .collect();
    assert!(routes.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(c.store.calls(), calls + 1, "one store read for all eight");
    assert_eq!(c.node(2).stats().store_reads, 1);
    assert_eq!(c.node(2).stats().resolutions.ready_route, 8);
}

#[test]
fn a_stalled_store_yields_store_failure_within_store_timeout_and_its_slow_answer_flushes_nothing() {
    let config = RoutingConfig {
        store_timeout: Duration::from_millis(200),
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config);
    c.node(1).activate(ACTOR, "a").unwrap();
    c.node(1).activate(ACTOR, "b").unwrap();
    ready(c.node(2).resolve(ACTOR, "a").unwrap());
    c.store.set_stalled(true);
    let started = Instant::now();
    let outcome = c.node(2).resolve(ACTOR, "b").unwrap();
    let took = started.elapsed();
    assert_eq!(
        outcome,
        Resolution::StoreFailure(StoreError::Timeout { millis: 200 })
    );
    assert!(
        took >= Duration::from_millis(200),
        "gave up early: {took:?}"
    );
    assert!(took < Duration::from_secs(2), "no hang: {took:?}");
    c.store.set_stalled(false);
    ready(c.node(2).resolve(ACTOR, "b").unwrap());
    // A timeout is not a lost connection: the cache stays (DESIGN §5.3),
    // so one slow answer does not send every caller to the store.
    assert!(c.node(2).lookup_cached(ACTOR, "a").unwrap().is_some());
    assert_eq!(c.node(2).stats().store_recoveries, 0);
}

#[test]
fn an_invalidation_of_one_id_does_not_stop_a_concurrent_read_of_another_from_being_cached() {
    let c = Cluster::with_defaults(3);
    for id in ["a", "b"] {
        c.node(1).activate(ACTOR, id).unwrap();
    }
    let cached = ready(c.node(2).resolve(ACTOR, "a").unwrap());
    // A read of "b" is in flight (the store holds its answer back) ...
    c.store.set_stalled(true);
    let read_b = c.node(2).resolve_async(ACTOR, "b").unwrap();
    let read_a = {
        let rt = c.node(2);
        // ... and so is one of "a", once its entry is gone.
        rt.on_relay_notification(
            KeyRef {
                kind: ACTOR,
                id: "a",
            },
            &zlink_core::wire::RouteEnd {
                node: c.node(1).node_ref(),
                fence: cached.fence,
            },
        );
        rt.resolve_async(ACTOR, "a").unwrap()
    };
    std::thread::sleep(Duration::from_millis(50));
    // Meanwhile "a" is invalidated again (a stale-route result).
    c.node(2).on_rejection(
        KeyRef {
            kind: ACTOR,
            id: "a",
        },
        &Rejection::StaleRoute {
            reason: StaleReason::NotOwner,
            fence: cached.fence,
        },
    );
    c.store.set_stalled(false);
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    ready(executor.block_on(read_b));
    ready(executor.block_on(read_a));
    assert!(
        c.node(2).lookup_cached(ACTOR, "b").unwrap().is_some(),
        "b's read is untouched by a's invalidation"
    );
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "a").unwrap(),
        None,
        "a's read, older than a's invalidation, is not cached"
    );
}

#[test]
fn a_direct_send_retries_a_failing_store_within_its_budget_then_ends_store_failure() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").unwrap();
    c.store.set_down(true);
    let calls = c.store.calls();
    let decision = c
        .node(2)
        .send_direct(ACTOR, "a", SendOptions::default())
        .unwrap();
    assert!(matches!(
        decision,
        DirectSend::StoreFailure(StoreError::Unreachable(_))
    ));
    assert_eq!(c.store.calls(), calls + 3, "store_attempts = 3");
    c.store.set_down(false);
    assert!(matches!(
        c.node(2)
            .send_direct(ACTOR, "a", SendOptions::default())
            .unwrap(),
        DirectSend::Submit(_)
    ));
}

#[test]
fn async_resolution_completes_on_any_executor() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").unwrap();
    let miss = c.node(2).resolve_async(ACTOR, "a").unwrap();
    let executor = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let route = ready(executor.block_on(miss));
    let hit = c.node(2).resolve_async(ACTOR, "a").unwrap();
    assert_eq!(ready(executor.block_on(hit)), route);
    assert_eq!(c.node(2).stats().store_reads, 1);
    // A blocking call from inside an async context does not panic.
    let inside = executor.block_on(async { c.node(2).resolve(ACTOR, "unknown").unwrap() });
    assert_eq!(inside, Resolution::Missing);
}

#[test]
fn bad_ids_are_typed_errors_at_every_entry() {
    let config = RoutingConfig {
        max_object_id_bytes: 8,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(1, config);
    let n = c.node(1);
    assert_eq!(n.resolve(ACTOR, "").unwrap_err(), InputError::EmptyObjectId);
    assert_eq!(
        n.lookup_cached(ACTOR, "123456789").unwrap_err(),
        InputError::ObjectIdTooLong { len: 9, max: 8 }
    );
    assert!(n.resolve_async(ACTOR, "").is_err());
    assert!(n.send_direct(ACTOR, "", SendOptions::default()).is_err());
    let zero = SendOptions {
        deadline: Duration::ZERO,
        ..SendOptions::default()
    };
    assert_eq!(
        n.send_direct(ACTOR, "a", zero),
        Err(InputError::ZeroDeadline)
    );
    assert!(matches!(
        n.activate(ACTOR, ""),
        Err(LifecycleError::Input(InputError::EmptyObjectId))
    ));
    assert!(matches!(
        n.begin_relocation(ACTOR, "", n.node_ref(), Capture::default()),
        Err(RelocationError::Input(InputError::EmptyObjectId))
    ));
    assert!(
        InputError::ObjectIdTooLong { len: 9, max: 8 }
            .to_string()
            .contains("8-byte cap")
    );
}

#[test]
fn a_write_whose_answer_was_lost_is_retried_and_recognised_not_repeated() {
    let config = RoutingConfig {
        store_timeout: Duration::from_millis(100),
        ..RoutingConfig::default()
    };
    let c = Arc::new(Cluster::new(2, config));
    c.store.set_stalled(true);
    let writer = {
        let c = c.clone();
        std::thread::spawn(move || c.node(1).create(ACTOR, "ambiguous"))
    };
    // The first attempt reaches the store, then its answer is held past
    // store_timeout; the retry (same proposal) is answered once released.
    std::thread::sleep(Duration::from_millis(150));
    c.store.set_stalled(false);
    let created = writer
        .join()
        .unwrap()
        .expect("the retry recognises its own applied create");
    assert_eq!(created.object_generation, ObjectGeneration(1));
    assert!(
        c.node(1).stats().store_failures >= 1,
        "the first attempt timed out"
    );
    assert_eq!(created.store_version, StoreVersion(1), "written once");
    let published = c.node(1).publish_ready(ACTOR, "ambiguous").unwrap();
    assert_eq!(published.store_version, StoreVersion(2));
}

#[test]
fn dropping_the_runtime_while_an_async_resolve_waits_ends_it_store_failure_not_a_panic() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").unwrap();
    c.store.set_stalled(true);
    let runtime = Runtime::builder(cluster::identity(9))
        .clock(Arc::new(c.clock.clone()))
        .store(c.store.clone())
        .build()
        .unwrap();
    let pending = runtime.resolve_async(ACTOR, "a").unwrap();
    drop(runtime);
    let executor = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = executor.block_on(pending);
    c.store.set_stalled(false);
    assert!(
        matches!(outcome, Resolution::StoreFailure(_)),
        "{outcome:?}"
    );
}
