//! Authority lifecycle through the public `Runtime` API: two runtimes
//! sharing one `MemoryStore` and one `ManualClock`, plus what a store outage
//! (`FaultyStore`) does to writes.

mod cluster;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use zlink_core::store::{FaultyStore, WriteError, WriteRejection};
use zlink_core::{
    AuthorityOwnerGeneration, AuthorityRecord, AuthorityState, BuildError, Capture, Clock,
    ConfigError, InputError, KeyRef, LifecycleError, LocationStore, MAX_OBJECT_ID_BYTES,
    ManualClock, MemoryStore, MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectGeneration,
    ObjectKind, OwnedObject, OwnerClaim, OwnerLeaseGeneration, ProposalId, RelocationError,
    Resolution, RoutingConfig, Runtime, StoreError, UnavailableReason,
};

const KIND: ObjectKind = ObjectKind::Spot;

fn identity(rid: u64, lease: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("lifecycle-mesh").expect("a valid mesh name"),
        rid: NodeRid(rid),
        generation: NodeGeneration(rid * 10),
        lease: OwnerLeaseGeneration(lease),
    }
}

/// A manual clock away from its origin, so deadlines computed from zero show.
fn started_clock() -> ManualClock {
    let clock = ManualClock::new();
    clock.advance(Duration::from_millis(3_600_777));
    clock
}

fn node(
    rid: u64,
    lease: u64,
    clock: &ManualClock,
    store: Arc<dyn LocationStore>,
    config: RoutingConfig,
) -> Runtime {
    Runtime::builder(identity(rid, lease))
        .config(config)
        .clock(Arc::new(clock.clone()))
        .store(store)
        .build()
        .expect("a valid config builds")
}

/// Two nodes, A (rid 1, lease 11) and B (rid 2, lease 22), on one store and
/// one clock.
struct Cluster {
    clock: ManualClock,
    store: Arc<MemoryStore>,
    a: Runtime,
    b: Runtime,
}

fn cluster() -> Cluster {
    let clock = started_clock();
    let store = Arc::new(MemoryStore::with_clock(Arc::new(clock.clone())));
    let a = node(1, 11, &clock, store.clone(), RoutingConfig::default());
    let b = node(2, 22, &clock, store.clone(), RoutingConfig::default());
    Cluster { clock, store, a, b }
}

impl Cluster {
    fn record(&self, id: &str) -> Option<AuthorityRecord> {
        block_on(self.store.read(key(id)))
            .expect("the memory store answers")
            .value
    }
}

fn key(id: &str) -> KeyRef<'_> {
    KeyRef { kind: KIND, id }
}

fn lease() -> Duration {
    RoutingConfig::default().owner_lease_duration
}

fn block_on<F: Future>(fut: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime starts")
        .block_on(fut)
}

/// The store's refusal inside a lifecycle error.
fn rejection<T: std::fmt::Debug>(result: Result<T, LifecycleError>, what: &str) -> WriteRejection {
    match result {
        Err(LifecycleError::Write(WriteError::Rejected(r))) => r,
        other => panic!("{what}: expected a refused store write, got {other:?}"),
    }
}

fn ready_route(resolution: Result<Resolution, InputError>) -> zlink_core::ReadyRoute {
    match resolution {
        Ok(Resolution::ReadyRoute(r)) => r,
        other => panic!("expected a ReadyRoute, got {other:?}"),
    }
}

fn assert_unreachable<T: std::fmt::Debug>(result: Result<T, LifecycleError>, what: &str) {
    match result {
        Err(LifecycleError::Write(WriteError::Store(StoreError::Unreachable(_)))) => {}
        other => panic!("{what} during an outage: expected Unreachable, got {other:?}"),
    }
}

#[test]
fn activate_owns_a_ready_object_with_a_deadline_one_lease_ahead() {
    let c = cluster();
    let now = c.clock.now();
    let owned = c.a.activate(KIND, "room-1").expect("activate");
    assert_eq!(owned.state, AuthorityState::Ready);
    assert_eq!(owned.object_generation, ObjectGeneration(1));
    assert_eq!(
        owned.authority_owner_generation,
        AuthorityOwnerGeneration(1)
    );
    assert_eq!(owned.lease_generation, c.a.identity().lease);
    assert_eq!(
        owned.admission_deadline,
        now.after(lease()),
        "admission is allowed for exactly one lease from the write"
    );
    assert_eq!(c.a.owned(key("room-1")), Some(owned));
    assert_eq!(c.a.owned_count(), 1);
    assert_eq!(c.b.owned(key("room-1")), None, "only the creator owns it");

    let record = c.record("room-1").expect("the record exists");
    assert_eq!(record.state, AuthorityState::Ready);
    assert_eq!(record.owner.route.node, NodeRid(1));
    assert_eq!(record.store_version, owned.store_version);

    let route = ready_route(c.b.resolve(KIND, "room-1"));
    assert_eq!(route.route.node, NodeRid(1));
    assert_eq!(route.route.mesh, c.a.identity().mesh);
    assert_eq!(route.fence, record.fence());
    assert_eq!(route.admission_deadline, owned.admission_deadline);
}

#[test]
fn create_then_publish_ready_goes_from_creating_to_ready() {
    let c = cluster();
    let created = c.a.create(KIND, "room-2").expect("create");
    assert_eq!(created.state, AuthorityState::Creating);
    assert_eq!(c.a.owned(key("room-2")), Some(created));
    assert_eq!(
        c.b.resolve(KIND, "room-2"),
        Ok(Resolution::Unavailable(UnavailableReason::Creating))
    );
    let published = c.a.publish_ready(KIND, "room-2").expect("publish");
    assert_eq!(published.state, AuthorityState::Ready);
    assert_eq!(published.write_fence(), created.write_fence());
    assert!(published.store_version > created.store_version);
    // `Creating` was not cached: the next resolve reads the store again.
    assert_eq!(
        ready_route(c.b.resolve(KIND, "room-2")).route.node,
        NodeRid(1)
    );
    assert_eq!(
        rejection(c.a.create(KIND, "room-2"), "create on an existing object"),
        WriteRejection::AlreadyExists {
            state: AuthorityState::Ready,
            current: published.write_fence(),
        }
    );
}

#[test]
fn publish_on_a_not_owned_object_is_not_owned() {
    let c = cluster();
    let created = c.a.create(KIND, "room").expect("create");
    let err =
        c.b.publish_ready(KIND, "room")
            .expect_err("B does not own it");
    assert_eq!(
        err,
        LifecycleError::NotOwned {
            kind: KIND,
            id: "room".to_owned(),
        }
    );
    let msg = err.to_string();
    assert!(msg.contains("room") && msg.contains("spot"), "{msg}");
    assert!(matches!(
        c.b.publish_ready(KIND, "never-created"),
        Err(LifecycleError::NotOwned { .. })
    ));
    assert!(matches!(
        c.b.renew_lease(KIND, "room"),
        Err(LifecycleError::NotOwned { .. })
    ));
    assert!(matches!(
        c.b.begin_release(KIND, "room"),
        Err(LifecycleError::NotOwned { .. })
    ));
    assert!(matches!(
        c.b.complete_release(KIND, "room"),
        Err(LifecycleError::NotOwned { .. })
    ));
    let record = c.record("room").expect("the record exists");
    assert_eq!(
        record.state,
        AuthorityState::Creating,
        "nothing was written"
    );
    assert_eq!(record.store_version, created.store_version);
}

#[test]
fn a_relocation_commits_by_an_owner_cas_and_a_second_cas_from_the_old_fence_is_refused() {
    let c = cluster();
    let from = c.a.activate(KIND, "room").expect("activate").write_fence();
    c.clock.advance(Duration::from_secs(3));
    cluster::relocate(&c.a, &c.b, KIND, "room");
    let moved = c.b.owned(key("room")).expect("the target owns it");
    assert_eq!(moved.state, AuthorityState::Ready);
    assert_eq!(moved.object_generation, from.object_generation);
    assert_eq!(
        moved.authority_owner_generation,
        from.authority_owner_generation.next()
    );
    assert_eq!(moved.lease_generation, c.b.identity().lease);
    assert_eq!(moved.admission_deadline, c.clock.now().after(lease()));

    // A second owner CAS from the authority the first one replaced is stale.
    let claim = OwnerClaim {
        mesh: c.a.identity().mesh,
        node: c.a.identity().rid,
        node_generation: c.a.identity().generation,
        lease_generation: c.a.identity().lease,
        lease_millis: 30_000,
    };
    let again = block_on(
        c.store
            .transfer_owner(key("room"), from, claim, ProposalId(77)),
    );
    assert!(matches!(
        again,
        Err(WriteError::Rejected(WriteRejection::StaleGeneration { expected, current }))
            if expected == from && current == moved.write_fence()
    ));
    let record = c.record("room").expect("the record exists");
    assert_eq!(record.owner.route.node, NodeRid(2), "B still owns it");
    assert_eq!(record.store_version, moved.store_version, "nothing written");

    // The source gave the object up at relay-ready: it owns nothing.
    assert_eq!(c.a.owned(key("room")), None);
    assert!(matches!(
        c.a.renew_lease(KIND, "room"),
        Err(LifecycleError::NotOwned { .. })
    ));
    assert_eq!(
        ready_route(c.a.resolve(KIND, "room")).route.node,
        NodeRid(2)
    );
}

#[test]
fn renew_lease_moves_the_admission_deadline_forward() {
    let c = cluster();
    let first = c.a.activate(KIND, "room").expect("activate");
    c.clock.advance(Duration::from_secs(10));
    let renewed = c.a.renew_lease(KIND, "room").expect("renew");
    assert_eq!(renewed.admission_deadline, c.clock.now().after(lease()));
    assert_eq!(
        renewed.admission_deadline.since(first.admission_deadline),
        Duration::from_secs(10)
    );
    assert_eq!(renewed.state, AuthorityState::Ready);
    assert_eq!(renewed.write_fence(), first.write_fence());
    assert!(renewed.store_version > first.store_version);
    assert_eq!(c.a.owned(key("room")), Some(renewed));
    assert_eq!(
        ready_route(c.b.resolve(KIND, "room")).admission_deadline,
        renewed.admission_deadline,
        "other nodes see the renewed lease"
    );

    // Past the lease end, renewal is refused and the local view stays.
    c.clock.advance(lease());
    assert_eq!(
        rejection(c.a.renew_lease(KIND, "room"), "renew after expiry"),
        WriteRejection::LeaseExpired
    );
    assert_eq!(c.a.owned(key("room")), Some(renewed));
    assert_eq!(
        c.b.resolve(KIND, "room"),
        Ok(Resolution::Unavailable(UnavailableReason::LeaseExpired)),
        "the route B cached ended with the lease"
    );
}

#[test]
fn release_resolves_releasing_then_missing() {
    let c = cluster();
    let owned = c.a.activate(KIND, "room").expect("activate");
    // A caches its route; its own release write must not be hidden by it.
    ready_route(c.a.resolve(KIND, "room"));

    let releasing = c.a.begin_release(KIND, "room").expect("begin_release");
    assert_eq!(releasing.state, AuthorityState::Releasing);
    assert!(releasing.store_version > owned.store_version);
    assert_eq!(c.a.owned(key("room")), Some(releasing));
    for (who, rt) in [("A", &c.a), ("B", &c.b)] {
        assert_eq!(
            rt.resolve(KIND, "room"),
            Ok(Resolution::Unavailable(UnavailableReason::Releasing)),
            "{who}"
        );
    }

    c.a.complete_release(KIND, "room")
        .expect("complete_release");
    assert_eq!(c.a.owned(key("room")), None);
    assert_eq!(c.a.owned_count(), 0);
    assert_eq!(c.record("room"), None);
    for (who, rt) in [("A", &c.a), ("B", &c.b)] {
        assert_eq!(rt.resolve(KIND, "room"), Ok(Resolution::Missing), "{who}");
    }

    // Missing is not cached either; the next incarnation is generation 2.
    let again = c.b.activate(KIND, "room").expect("re-activate");
    assert_eq!(again.object_generation, ObjectGeneration(2));
    assert!(again.store_version > releasing.store_version);
    let route = ready_route(c.a.resolve(KIND, "room"));
    assert_eq!(route.route.node, NodeRid(2));
    assert_eq!(route.fence.object_generation, ObjectGeneration(2));
}

#[test]
fn bad_ids_are_input_errors_naming_the_problem() {
    let clock = started_clock();
    let faulty = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
        clock.clone(),
    ))));
    let config = RoutingConfig {
        max_object_id_bytes: 16,
        ..RoutingConfig::default()
    };
    let rt = node(1, 11, &clock, faulty.clone(), config);
    let too_long = "x".repeat(17);
    // Nine characters, eighteen bytes: the cap counts bytes.
    let multibyte = "é".repeat(9);
    let cases: [(&str, InputError, &[&str]); 3] = [
        ("", InputError::EmptyObjectId, &["empty"]),
        (
            &too_long,
            InputError::ObjectIdTooLong { len: 17, max: 16 },
            &["17", "16"],
        ),
        (
            &multibyte,
            InputError::ObjectIdTooLong { len: 18, max: 16 },
            &["18", "16"],
        ),
    ];
    for (id, expected, words) in cases {
        let results: [(&str, Result<(), LifecycleError>); 6] = [
            ("create", rt.create(KIND, id).map(drop)),
            ("publish_ready", rt.publish_ready(KIND, id).map(drop)),
            ("activate", rt.activate(KIND, id).map(drop)),
            ("renew_lease", rt.renew_lease(KIND, id).map(drop)),
            ("begin_release", rt.begin_release(KIND, id).map(drop)),
            ("complete_release", rt.complete_release(KIND, id)),
        ];
        for (op, result) in results {
            let err = result.expect_err("a bad id is refused");
            assert_eq!(err, LifecycleError::Input(expected.clone()), "{op}({id:?})");
            let msg = err.to_string();
            for word in words {
                assert!(
                    msg.contains(word),
                    "{op}({id:?}): {msg:?} does not name {word:?}"
                );
            }
        }
        assert_eq!(rt.resolve(KIND, id), Err(expected.clone()));
        assert_eq!(rt.lookup_cached(KIND, id), Err(expected.clone()));
        assert_eq!(
            rt.begin_relocation(KIND, id, rt.node_ref(), Capture::default()),
            Err(RelocationError::Input(expected.clone()))
        );
    }
    assert_eq!(faulty.calls(), 0, "a bad id never reaches the store");

    let at_cap = "x".repeat(16);
    rt.activate(KIND, &at_cap)
        .expect("an id of exactly the cap is valid");
    let multibyte_at_cap = "é".repeat(8);
    rt.activate(KIND, &multibyte_at_cap)
        .expect("sixteen bytes of UTF-8 are valid");
}

#[test]
fn invalid_config_is_a_build_error() {
    let secs = Duration::from_secs;
    let cases = [
        (
            RoutingConfig {
                route_cache_max_age: secs(26),
                ..RoutingConfig::default()
            },
            ConfigError::CacheOutlivesFollow {
                cache: secs(26),
                follow: secs(30),
            },
            "route_cache_max_age",
        ),
        (
            RoutingConfig {
                max_object_id_bytes: 0,
                ..RoutingConfig::default()
            },
            ConfigError::ObjectIdCap {
                got: 0,
                max: MAX_OBJECT_ID_BYTES,
            },
            "max_object_id_bytes",
        ),
        (
            RoutingConfig {
                max_object_id_bytes: MAX_OBJECT_ID_BYTES + 1,
                ..RoutingConfig::default()
            },
            ConfigError::ObjectIdCap {
                got: MAX_OBJECT_ID_BYTES + 1,
                max: MAX_OBJECT_ID_BYTES,
            },
            "max_object_id_bytes",
        ),
        (
            RoutingConfig {
                owner_lease_duration: Duration::ZERO,
                ..RoutingConfig::default()
            },
            ConfigError::ZeroDuration {
                field: "owner_lease_duration",
            },
            "owner_lease_duration",
        ),
        (
            RoutingConfig {
                max_follow_hops: 9,
                ..RoutingConfig::default()
            },
            ConfigError::FollowHops(9),
            "max_follow_hops",
        ),
        (
            RoutingConfig {
                route_cache_capacity: 0,
                ..RoutingConfig::default()
            },
            ConfigError::ZeroCapacity,
            "route_cache_capacity",
        ),
        (
            RoutingConfig {
                store_attempts: 0,
                ..RoutingConfig::default()
            },
            ConfigError::ZeroStoreAttempts,
            "store_attempts",
        ),
    ];
    let clock = started_clock();
    let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::with_clock(Arc::new(clock.clone())));
    let running = node(9, 99, &clock, store.clone(), RoutingConfig::default());
    for (config, expected, field) in cases {
        let err = Runtime::builder(identity(1, 11))
            .config(config.clone())
            .clock(Arc::new(clock.clone()))
            .store(store.clone())
            .build()
            .expect_err("an invalid config is refused");
        assert_eq!(err, BuildError::Config(expected.clone()), "{field}");
        let msg = err.to_string();
        assert!(msg.contains(field), "{msg:?} does not name {field}");

        assert_eq!(running.update_config(config), Err(expected), "{field}");
        assert_eq!(running.config(), RoutingConfig::default(), "kept as it was");
    }
}

/// The route cache capacity changes at runtime: lower, the entries past it
/// go at once; back up to the capacity at build, room again; above it,
/// refused (the table is sized at build), the config kept.
#[test]
fn a_route_cache_capacity_update_applies_at_once_up_to_the_built_one() {
    let clock = started_clock();
    let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::with_clock(Arc::new(clock.clone())));
    let built = RoutingConfig {
        route_cache_capacity: 64,
        ..RoutingConfig::default()
    };
    let owner = node(1, 11, &clock, store.clone(), RoutingConfig::default());
    let sender = node(2, 22, &clock, store, built.clone());
    let ids: Vec<String> = (0..64).map(|i| format!("cap-{i}")).collect();
    for id in &ids {
        owner.activate(ObjectKind::Actor, id).expect("activation");
        sender.resolve(ObjectKind::Actor, id).expect("valid id");
    }
    assert_eq!(sender.stats().cache_entries, 64);

    let lower = RoutingConfig {
        route_cache_capacity: 8,
        ..built.clone()
    };
    sender
        .update_config(lower.clone())
        .expect("a lower capacity");
    assert!(sender.stats().cache_entries <= 8);
    for id in &ids {
        sender.resolve(ObjectKind::Actor, id).expect("valid id");
    }
    assert!(sender.stats().cache_entries <= 8);

    sender
        .update_config(built.clone())
        .expect("back to the built capacity");
    for id in &ids {
        sender.resolve(ObjectKind::Actor, id).expect("valid id");
    }
    assert_eq!(sender.stats().cache_entries, 64);

    let above = RoutingConfig {
        route_cache_capacity: 65,
        ..built.clone()
    };
    let err = sender
        .update_config(above)
        .expect_err("above the built capacity");
    assert_eq!(err, ConfigError::CapacityAboveBuilt { got: 65, built: 64 });
    assert!(err.to_string().contains("route_cache_capacity"));
    assert_eq!(sender.config(), built, "kept as it was");
}

#[test]
fn faulty_store_outage_refuses_writes_without_reaching_the_store() {
    let clock = started_clock();
    let faulty = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
        clock.clone(),
    ))));
    let a = node(1, 11, &clock, faulty.clone(), RoutingConfig::default());
    let b = node(2, 22, &clock, faulty.clone(), RoutingConfig::default());
    let owned = a.activate(KIND, "room").expect("activate");
    let inner_read = |id: &str| {
        block_on(faulty.inner().read(key(id)))
            .expect("the inner store answers")
            .value
    };
    let before = inner_read("room").expect("the record exists");

    faulty.set_down(true);
    clock.advance(Duration::from_secs(1));
    let calls = faulty.calls();
    assert_unreachable(a.renew_lease(KIND, "room"), "renew_lease");
    assert_unreachable(a.begin_release(KIND, "room"), "begin_release");
    assert_unreachable(a.complete_release(KIND, "room"), "complete_release");
    assert_unreachable(b.create(KIND, "other"), "create");
    assert_unreachable(b.activate(KIND, "other"), "activate");
    assert!(faulty.calls() > calls, "the writes were attempted");
    assert!(matches!(
        b.resolve(KIND, "room"),
        Ok(Resolution::StoreFailure(StoreError::Unreachable(_)))
    ));
    assert_eq!(
        a.owned(key("room")),
        Some(owned),
        "a failed write changes nothing locally"
    );
    assert_eq!(b.owned(key("room")), None);
    assert_eq!(b.owned(key("other")), None);

    faulty.set_down(false);
    assert_eq!(
        inner_read("room"),
        Some(before),
        "no write reached the store"
    );
    assert_eq!(inner_read("other"), None);
    let renewed = a.renew_lease(KIND, "room").expect("writes work again");
    assert!(renewed.store_version > before.store_version);
    // Generations come from one store-wide counter: "room" took 1, so the
    // refused create, had it reached the store, would have taken 2.
    assert_eq!(
        b.activate(KIND, "other")
            .expect("create works again")
            .object_generation,
        ObjectGeneration(2)
    );
}

#[test]
fn faulty_store_write_while_down_does_not_reach_the_inner_store() {
    let clock = started_clock();
    let faulty = FaultyStore::new(MemoryStore::with_clock(Arc::new(clock.clone())));
    let claim = OwnerClaim {
        mesh: MeshName::new("lifecycle-mesh").expect("a valid mesh name"),
        node: NodeRid(1),
        node_generation: NodeGeneration(10),
        lease_generation: OwnerLeaseGeneration(11),
        lease_millis: 30_000,
    };
    block_on(async {
        let created = faulty
            .create(key("room"), claim, ProposalId(1))
            .await
            .expect("create");
        let published = faulty
            .publish_ready(key("room"), created.value.write_fence(), ProposalId(2))
            .await
            .expect("publish")
            .value;
        let fence = published.write_fence();

        faulty.set_down(true);
        let writes: [(&str, Result<(), WriteError>); 6] = [
            (
                "create",
                faulty
                    .create(key("fresh"), claim, ProposalId(3))
                    .await
                    .map(drop),
            ),
            (
                "publish_ready",
                faulty
                    .publish_ready(key("room"), fence, ProposalId(4))
                    .await
                    .map(drop),
            ),
            (
                "transfer_owner",
                faulty
                    .transfer_owner(key("room"), fence, claim, ProposalId(5))
                    .await
                    .map(drop),
            ),
            (
                "renew_lease",
                faulty
                    .renew_lease(
                        key("room"),
                        fence,
                        claim.lease_generation,
                        30_000,
                        ProposalId(6),
                    )
                    .await
                    .map(drop),
            ),
            (
                "begin_release",
                faulty
                    .begin_release(key("room"), fence, ProposalId(7))
                    .await
                    .map(drop),
            ),
            (
                "complete_release",
                faulty
                    .complete_release(key("room"), fence, ProposalId(8))
                    .await
                    .map(drop),
            ),
        ];
        for (what, result) in writes {
            assert!(
                matches!(result, Err(WriteError::Store(StoreError::Unreachable(_)))),
                "{what} while down: {result:?}"
            );
        }
        assert!(matches!(
            faulty.read(key("room")).await,
            Err(StoreError::Unreachable(_))
        ));

        faulty.set_down(false);
        let inner = faulty.inner();
        assert_eq!(
            inner.read(key("room")).await.expect("read").value,
            Some(published),
            "the record is as before the outage"
        );
        assert_eq!(inner.read(key("fresh")).await.expect("read").value, None);
        // Generations come from one store-wide counter and "room" took 1:
        // had the refused create reached the store, this would be 3.
        let fresh = faulty
            .create(key("fresh"), claim, ProposalId(9))
            .await
            .expect("create");
        assert_eq!(fresh.value.object_generation, ObjectGeneration(2));
        let moved = faulty
            .transfer_owner(key("room"), fence, claim, ProposalId(10))
            .await
            .expect("transfer after the outage")
            .value;
        assert_eq!(
            moved.authority_owner_generation,
            AuthorityOwnerGeneration(2),
            "the refused transfer did not count"
        );
    });
}

/// Lease deadlines come from the lease left on the store's clock, turned
/// into local time: a node whose clock reads differently gets a deadline no
/// later than the store's lease allows (DESIGN §5.2).
#[test]
fn admission_deadline_is_the_store_lease_left_in_local_time() {
    let store_clock = started_clock();
    let store = Arc::new(MemoryStore::with_clock(Arc::new(store_clock.clone())));
    let a_clock = ManualClock::new();
    a_clock.advance(Duration::from_secs(5));
    let b_clock = ManualClock::new();
    b_clock.advance(Duration::from_secs(7_777));
    let a = node(1, 11, &a_clock, store.clone(), RoutingConfig::default());
    let b = node(2, 22, &b_clock, store.clone(), RoutingConfig::default());

    let owned = a.activate(KIND, "room").expect("activate");
    assert_eq!(owned.admission_deadline, a_clock.now().after(lease()));

    // 20 s pass on the store only: the lease has 10 s left, whatever B's
    // own clock says.
    store_clock.advance(Duration::from_secs(20));
    let route = ready_route(b.resolve(KIND, "room"));
    assert_eq!(
        route.admission_deadline,
        b_clock.now().after(lease() - Duration::from_secs(20))
    );
    let renewed: OwnedObject = a.renew_lease(KIND, "room").expect("renew");
    assert_eq!(renewed.admission_deadline, a_clock.now().after(lease()));
}
