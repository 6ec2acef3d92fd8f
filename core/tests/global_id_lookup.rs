//! Contract tests for spec §5 "Global ID Lookup": one test per bullet, named
//! after it (some bullets have several parts, each its own test), all on a
//! `ManualClock` through the public `Runtime` surface.

mod cluster;

use std::time::Duration;

use cluster::{Cluster, MESH, inbound, key, ready};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const SPOT: ObjectKind = ObjectKind::Spot;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn rejection(admission: Admission) -> Rejection {
    match admission {
        Admission::Reject(r) => r,
        Admission::Accept { .. } => panic!("expected a rejection, got {admission:?}"),
    }
}

/// Moves `id` from node `from` to node `to` with the relocation protocol.
fn relocate(c: &Cluster, kind: ObjectKind, id: &str, from: u64, to: u64) {
    c.relocate(kind, id, from, to);
}

// §5 bullet 1 -----------------------------------------------------------------

#[test]
fn direct_starter_takes_only_a_global_id_not_owner_rid_generation_or_ref() {
    let c = Cluster::with_defaults(2);
    c.node(2).activate(SPOT, "room-1").unwrap();
    c.node(2).activate(ACTOR, "player-1").unwrap();
    for (kind, id) in [(SPOT, "room-1"), (ACTOR, "player-1")] {
        // The call names kind + global ID only; the owner comes from authority.
        match c
            .node(1)
            .send_direct(kind, id, SendOptions::default())
            .unwrap()
        {
            DirectSend::Submit(route) => {
                assert_eq!(route.route.node, NodeRid(2));
                assert_eq!(route.route.mesh.as_str(), MESH);
            }
            other => panic!("expected Submit, got {other:?}"),
        }
    }
}

// §5 bullet 2 -----------------------------------------------------------------

#[test]
fn on_a_cache_hit_the_store_is_not_read_and_after_a_miss_or_invalidation_current_authority_is_read()
{
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "p1").unwrap();
    let sender = c.node(3);
    let calls = c.store.calls();
    let first = ready(sender.resolve(ACTOR, "p1").unwrap());
    assert_eq!(c.store.calls(), calls + 1, "a miss reads the store");
    for _ in 0..100 {
        assert_eq!(ready(sender.resolve(ACTOR, "p1").unwrap()), first);
        assert_eq!(sender.lookup_cached(ACTOR, "p1").unwrap(), Some(first));
    }
    assert_eq!(c.store.calls(), calls + 1, "hits never read the store");
    assert_eq!(sender.stats().cache_hits, 200);
    assert_eq!(sender.stats().cache_misses, 1);

    relocate(&c, ACTOR, "p1", 1, 2);
    // The cached route is still used: nothing told the sender yet.
    assert_eq!(
        ready(sender.resolve(ACTOR, "p1").unwrap()).route.node,
        NodeRid(1)
    );
    let stale = rejection(c.node(1).admit(&inbound(key(ACTOR, "p1"), &first)));
    assert_eq!(
        sender.on_rejection(key(ACTOR, "p1"), &stale),
        UnavailableReason::StaleRoute
    );
    let calls = c.store.calls();
    let current = ready(sender.resolve(ACTOR, "p1").unwrap());
    assert_eq!(
        c.store.calls(),
        calls + 1,
        "after invalidation the store is read"
    );
    assert_eq!(current.route.node, NodeRid(2));
    assert!(current.fence.authority_owner_generation > first.fence.authority_owner_generation);
}

// §5 bullet 3 -----------------------------------------------------------------

#[test]
fn missing_creating_and_store_failure_are_not_negative_cached() {
    let c = Cluster::with_defaults(2);
    let (owner, sender) = (c.node(1), c.node(2));
    assert_eq!(sender.resolve(SPOT, "late").unwrap(), Resolution::Missing);
    owner.create(SPOT, "late").unwrap();
    // No time passes: a cached Missing would still answer here.
    assert_eq!(
        sender.resolve(SPOT, "late").unwrap(),
        Resolution::Unavailable(UnavailableReason::Creating)
    );
    owner.publish_ready(SPOT, "late").unwrap();
    assert_eq!(
        ready(sender.resolve(SPOT, "late").unwrap()).route.node,
        NodeRid(1)
    );
    assert_eq!(
        sender.stats().cache_entries,
        1,
        "only the Ready route was cached"
    );

    owner.activate(SPOT, "flaky").unwrap();
    c.store.set_down(true);
    assert!(matches!(
        sender.resolve(SPOT, "flaky").unwrap(),
        Resolution::StoreFailure(_)
    ));
    c.store.set_down(false);
    assert_eq!(
        ready(sender.resolve(SPOT, "flaky").unwrap()).route.node,
        NodeRid(1)
    );
    assert!(sender.lookup_cached(SPOT, "flaky").unwrap().is_some());
}

// §5 bullet 4: lifetime ------------------------------------------------------

#[test]
fn positive_cache_does_not_exceed_route_cache_max_age() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").unwrap();
    ready(c.node(2).resolve(ACTOR, "a").unwrap());
    c.advance_ms(14_999);
    assert!(c.node(2).lookup_cached(ACTOR, "a").unwrap().is_some());
    c.advance_ms(1);
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "a").unwrap(),
        None,
        "gone at 15 s"
    );
}

#[test]
fn positive_cache_does_not_exceed_the_owner_admission_deadline() {
    let config = RoutingConfig {
        owner_lease_duration: secs(4),
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config);
    c.node(1).activate(ACTOR, "a").unwrap();
    c.advance_ms(1_000);
    let route = ready(c.node(2).resolve(ACTOR, "a").unwrap());
    assert_eq!(
        route.admission_deadline,
        MonoTime(0).after(secs(4)),
        "lease end, on the store clock"
    );
    c.advance_ms(2_999);
    assert!(c.node(2).lookup_cached(ACTOR, "a").unwrap().is_some());
    c.advance_ms(1);
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "a").unwrap(),
        None,
        "gone at the lease end, before max age"
    );
    assert_eq!(
        c.node(2).resolve(ACTOR, "a").unwrap(),
        Resolution::Unavailable(UnavailableReason::LeaseExpired)
    );
}

#[test]
fn a_changed_route_cache_max_age_applies_to_new_entries_only() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "old").unwrap();
    c.node(1).activate(ACTOR, "new").unwrap();
    ready(c.node(2).resolve(ACTOR, "old").unwrap());
    let mut config = c.node(2).config();
    config.route_cache_max_age = secs(2);
    c.node(2).update_config(config.clone()).unwrap();
    ready(c.node(2).resolve(ACTOR, "new").unwrap());
    c.advance_ms(2_000);
    assert_eq!(c.node(2).lookup_cached(ACTOR, "new").unwrap(), None);
    assert!(
        c.node(2).lookup_cached(ACTOR, "old").unwrap().is_some(),
        "old entry keeps 15 s"
    );
    config.route_cache_max_age = secs(25);
    c.node(2).update_config(config).unwrap();
    c.advance_ms(13_000);
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "old").unwrap(),
        None,
        "not extended to 25 s"
    );
}

// §5 bullet 4: immediate removal ----------------------------------------------

#[test]
fn positive_cache_entry_is_removed_at_once_on_a_higher_store_version() {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "a").unwrap();
    let old = ready(c.node(3).resolve(ACTOR, "a").unwrap());
    // Node 3 itself is the relocation's target: its own owner CAS confirms
    // a higher StoreVersion than the one its cached route was read from.
    c.relocate(ACTOR, "a", 1, 3);
    let owned = c.node(3).owned(key(ACTOR, "a")).unwrap();
    assert!(owned.store_version > old.fence.store_version);
    assert_eq!(c.node(3).lookup_cached(ACTOR, "a").unwrap(), None);
    assert_eq!(
        c.node(3)
            .stats()
            .invalidations_for(InvalidationReason::HigherStoreVersion),
        1
    );
    assert_eq!(
        ready(c.node(3).resolve(ACTOR, "a").unwrap()).route.node,
        NodeRid(3)
    );
}

#[test]
fn positive_cache_entry_is_removed_at_once_on_a_stale_route_result_only_if_it_still_holds_that_fence()
 {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "a").unwrap();
    let cached = ready(c.node(3).resolve(ACTOR, "a").unwrap());
    let mut older = cached.fence;
    older.store_version = StoreVersion(older.store_version.get() - 1);
    let late = Rejection::StaleRoute {
        reason: StaleReason::NotOwner,
        fence: older,
    };
    assert_eq!(
        c.node(3).on_rejection(key(ACTOR, "a"), &late),
        UnavailableReason::StaleRoute
    );
    assert_eq!(
        c.node(3).lookup_cached(ACTOR, "a").unwrap(),
        Some(cached),
        "newer route kept"
    );

    relocate(&c, ACTOR, "a", 1, 2);
    let stale = rejection(c.node(1).admit(&inbound(key(ACTOR, "a"), &cached)));
    c.node(3).on_rejection(key(ACTOR, "a"), &stale);
    assert_eq!(c.node(3).lookup_cached(ACTOR, "a").unwrap(), None);
    assert_eq!(
        c.node(3)
            .stats()
            .invalidations_for(InvalidationReason::StaleRoute),
        1
    );
}

#[test]
fn positive_cache_is_cleared_at_once_on_a_store_recovery_event() {
    let c = Cluster::with_defaults(2);
    for id in ["a", "b", "c"] {
        c.node(1).activate(ACTOR, id).unwrap();
    }
    ready(c.node(2).resolve(ACTOR, "a").unwrap());
    ready(c.node(2).resolve(ACTOR, "b").unwrap());
    c.store.set_down(true);
    assert!(matches!(
        c.node(2).resolve(ACTOR, "c").unwrap(),
        Resolution::StoreFailure(_)
    ));
    assert!(
        c.node(2).lookup_cached(ACTOR, "a").unwrap().is_some(),
        "an outage alone clears nothing"
    );
    c.store.set_down(false);
    ready(c.node(2).resolve(ACTOR, "c").unwrap());
    assert_eq!(c.node(2).lookup_cached(ACTOR, "a").unwrap(), None);
    assert_eq!(c.node(2).lookup_cached(ACTOR, "b").unwrap(), None);
    let stats = c.node(2).stats();
    assert_eq!(stats.store_recoveries, 1);
    assert_eq!(
        stats.invalidations_for(InvalidationReason::StoreRecovery),
        2
    );

    // A restarted (or failed-over) store is a recovery event too.
    ready(c.node(2).resolve(ACTOR, "a").unwrap());
    c.store.restart();
    ready(c.node(2).resolve(ACTOR, "b").unwrap());
    assert_eq!(c.node(2).lookup_cached(ACTOR, "a").unwrap(), None);
    assert_eq!(c.node(2).stats().store_recoveries, 2);
}

#[test]
fn positive_cache_entries_of_an_owner_lease_are_removed_at_once_on_its_invalidation() {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "a").unwrap();
    c.node(1).activate(ACTOR, "b").unwrap();
    c.node(2).activate(ACTOR, "c").unwrap();
    for id in ["a", "b", "c"] {
        ready(c.node(3).resolve(ACTOR, id).unwrap());
    }
    let lease = cluster::identity(1).lease;
    assert_eq!(c.node(3).on_owner_lease_invalidated(NodeRid(1), lease), 2);
    assert_eq!(c.node(3).lookup_cached(ACTOR, "a").unwrap(), None);
    assert!(
        c.node(3).lookup_cached(ACTOR, "c").unwrap().is_some(),
        "other owners keep theirs"
    );
    assert_eq!(
        c.node(3).resolve(ACTOR, "a").unwrap(),
        Resolution::Unavailable(UnavailableReason::OwnerNotLive),
        "the ended lease is not cached again"
    );
    assert_eq!(c.node(3).stats().cache_entries, 1);
}

#[test]
fn positive_cache_entry_is_removed_by_a_matching_relay_notification_only() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(SPOT, "s").unwrap();
    let cached = ready(c.node(2).resolve(SPOT, "s").unwrap());
    let source = c
        .node(1)
        .owner_route_end(SPOT, "s")
        .unwrap()
        .expect("node 1 owns it");
    let mut newer_tenure = source;
    newer_tenure.fence.authority_owner_generation = cached.fence.authority_owner_generation.next();
    assert!(
        !c.node(2)
            .on_relay_notification(key(SPOT, "s"), &newer_tenure)
    );
    let mut other_node = source;
    other_node.node.rid = NodeRid(9);
    assert!(!c.node(2).on_relay_notification(key(SPOT, "s"), &other_node));
    assert!(
        c.node(2).lookup_cached(SPOT, "s").unwrap().is_some(),
        "a newer route is never cleared"
    );
    // The store version may differ (lease renewals): only generation,
    // authority generation and node are matched.
    let mut renewed = source;
    renewed.fence.store_version = renewed.fence.store_version.next();
    assert!(c.node(2).on_relay_notification(key(SPOT, "s"), &renewed));
    assert_eq!(c.node(2).lookup_cached(SPOT, "s").unwrap(), None);
    assert_eq!(
        c.node(2)
            .stats()
            .invalidations_for(InvalidationReason::RelayNotification),
        1
    );
}

// §5 bullet 5 -----------------------------------------------------------------

#[test]
fn missing_and_unavailable_are_distinct_tags_missing_goes_only_to_creation_and_unavailable_only_to_completion()
 {
    let c = Cluster::with_defaults(2);
    let sender = c.node(2);
    let intent = SendOptions {
        instance_intent: true,
        ..SendOptions::default()
    };
    assert_eq!(sender.resolve(SPOT, "nobody").unwrap(), Resolution::Missing);
    assert_eq!(
        sender
            .send_direct(ACTOR, "nobody", SendOptions::default())
            .unwrap(),
        DirectSend::NotFound
    );
    assert_eq!(
        sender
            .send_direct(SPOT, "nobody", SendOptions::default())
            .unwrap(),
        DirectSend::NotFound
    );
    assert_eq!(
        sender.send_direct(SPOT, "nobody", intent).unwrap(),
        DirectSend::ColdActivation
    );
    assert_eq!(
        sender.send_direct(ACTOR, "nobody", intent),
        Err(InputError::InstanceIntentOnActor)
    );

    c.node(1).create(SPOT, "booting").unwrap();
    let unavailable = sender.resolve(SPOT, "booting").unwrap();
    assert_eq!(
        unavailable,
        Resolution::Unavailable(UnavailableReason::Creating)
    );
    assert_ne!(unavailable.tag(), Resolution::Missing.tag());
    assert_eq!(
        sender.send_direct(SPOT, "booting", intent).unwrap(),
        DirectSend::Unavailable(UnavailableReason::Creating),
        "Unavailable never reaches the creation coordinator"
    );
    c.node(1).publish_ready(SPOT, "booting").unwrap();
    c.node(1).begin_release(SPOT, "booting").unwrap();
    assert_eq!(
        sender.send_direct(SPOT, "booting", intent).unwrap(),
        DirectSend::Unavailable(UnavailableReason::Releasing),
        "Missing only after release completes"
    );
    c.node(1).complete_release(SPOT, "booting").unwrap();
    assert_eq!(
        sender.send_direct(SPOT, "booting", intent).unwrap(),
        DirectSend::ColdActivation
    );
}

// §5 bullet 6 -----------------------------------------------------------------

#[test]
fn positive_route_cache_lifetime_does_not_exceed_message_follow_duration() {
    let too_long = RoutingConfig {
        route_cache_max_age: secs(26),
        message_follow_duration: secs(30),
        ..RoutingConfig::default()
    };
    assert!(matches!(
        Runtime::builder(cluster::identity(1))
            .config(too_long)
            .build(),
        Err(BuildError::Config(ConfigError::CacheOutlivesFollow { .. }))
    ));
    let config = RoutingConfig {
        route_cache_max_age: secs(25),
        message_follow_duration: secs(30),
        owner_lease_duration: secs(60),
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config.clone());
    c.node(1).activate(ACTOR, "a").unwrap();
    ready(c.node(2).resolve(ACTOR, "a").unwrap());
    c.advance_ms(25_000);
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "a").unwrap(),
        None,
        "gone 5 s before follow closes"
    );
    let shorter_follow = RoutingConfig {
        message_follow_duration: secs(20),
        ..config
    };
    assert!(c.node(2).update_config(shorter_follow).is_err());
    assert_eq!(c.node(2).config().message_follow_duration, secs(30));
}

// §5 bullet 7 -----------------------------------------------------------------

#[test]
fn target_admission_verifies_authority_owner_generation_and_lease_fence() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").unwrap();
    let route = ready(c.node(2).resolve(ACTOR, "a").unwrap());
    let target = key(ACTOR, "a");
    let owner = c.node(1);
    assert!(matches!(
        owner.admit(&inbound(target, &route)),
        Admission::Accept { .. }
    ));

    let mut msg = inbound(target, &route);
    msg.fence.authority_owner_generation = msg.fence.authority_owner_generation.next();
    assert_eq!(
        rejection(owner.admit(&msg)),
        Rejection::StaleRoute {
            reason: StaleReason::OwnerGenerationMismatch,
            fence: msg.fence
        }
    );
    let mut msg = inbound(target, &route);
    msg.fence.owner_lease_generation = msg.fence.owner_lease_generation.next();
    assert!(matches!(
        rejection(owner.admit(&msg)),
        Rejection::StaleRoute {
            reason: StaleReason::LeaseMismatch,
            ..
        }
    ));
    let mut msg = inbound(target, &route);
    msg.fence.node_generation = msg.fence.node_generation.next();
    assert!(matches!(
        rejection(owner.admit(&msg)),
        Rejection::StaleRoute {
            reason: StaleReason::NodeMismatch,
            ..
        }
    ));
    let mut msg = inbound(target, &route);
    msg.to_node = NodeRid(2);
    assert!(matches!(
        rejection(owner.admit(&msg)),
        Rejection::StaleRoute {
            reason: StaleReason::NodeMismatch,
            ..
        }
    ));
}

#[test]
fn target_admission_excludes_a_direct_message_object_generation_from_the_target_judgment() {
    let c = Cluster::with_defaults(2);
    let owner = c.node(1);
    owner.activate(ACTOR, "a").unwrap();
    let old = ready(c.node(2).resolve(ACTOR, "a").unwrap());
    // Same owner closes the object and creates a new incarnation.
    owner.begin_release(ACTOR, "a").unwrap();
    owner.complete_release(ACTOR, "a").unwrap();
    let reborn = owner.activate(ACTOR, "a").unwrap();
    assert!(reborn.object_generation > old.fence.object_generation);
    assert_eq!(
        owner.admit(&inbound(key(ACTOR, "a"), &old)),
        Admission::Accept {
            object_generation: reborn.object_generation
        },
        "the current Ready object takes a message routed for the previous incarnation"
    );
}

#[test]
fn target_admission_does_not_retarget_to_a_new_owner_and_the_operation_ends_unavailable_without_resubmit()
 {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "a").unwrap();
    let route = ready(c.node(3).resolve(ACTOR, "a").unwrap());
    relocate(&c, ACTOR, "a", 1, 2);
    let decision = c.node(1).admit(&inbound(key(ACTOR, "a"), &route));
    assert!(matches!(
        decision,
        Admission::Reject(Rejection::StaleRoute {
            reason: StaleReason::NotOwner,
            ..
        })
    ));
    let calls = c.store.calls();
    assert_eq!(
        c.node(3)
            .on_rejection(key(ACTOR, "a"), &rejection(decision)),
        UnavailableReason::StaleRoute
    );
    assert_eq!(
        c.store.calls(),
        calls,
        "no lookup and no resubmit on a rejection"
    );
    // Only the application's next call re-resolves the current owner.
    assert_eq!(
        ready(c.node(3).resolve(ACTOR, "a").unwrap()).route.node,
        NodeRid(2)
    );
}

#[test]
fn target_admission_ends_unavailable_past_the_local_admission_deadline() {
    let config = RoutingConfig {
        owner_lease_duration: secs(4),
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config);
    c.node(1).activate(ACTOR, "a").unwrap();
    let route = ready(c.node(2).resolve(ACTOR, "a").unwrap());
    c.advance_ms(3_000);
    c.node(1).renew_lease(ACTOR, "a").unwrap();
    c.advance_ms(3_000);
    assert!(
        matches!(
            c.node(1).admit(&inbound(key(ACTOR, "a"), &route)),
            Admission::Accept { .. }
        ),
        "renewal moved the deadline to 7 s"
    );
    c.advance_ms(1_000);
    assert_eq!(
        rejection(c.node(1).admit(&inbound(key(ACTOR, "a"), &route))),
        Rejection::Unavailable {
            reason: UnavailableReason::AdmissionDeadlinePassed,
            fence: route.fence
        }
    );
}

// A host's near cache (issue 31) ----------------------------------------------

/// The epoch a near hit keeps, as the host reads it.
fn epoch_of(rt: &Runtime, hit: &NearHit) -> u64 {
    rt.near_epochs()[hit.shard as usize].load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn a_near_hit_holds_while_the_core_serves_its_route_and_fails_once_the_core_changed_it() {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "p1").unwrap();
    let sender = c.node(3);
    assert_eq!(sender.lookup_near(ACTOR, "p1").unwrap(), None, "a miss");
    let first = ready(sender.resolve(ACTOR, "p1").unwrap());
    let hit = sender.lookup_near(ACTOR, "p1").unwrap().expect("a hit");
    assert_eq!((hit.route, hit.epoch % 2), (first, 0));
    assert_eq!(sender.near_epochs().len(), NEAR_SHARDS);
    assert!(hit.expires_at > c.clock.now());
    assert_eq!(epoch_of(sender, &hit), hit.epoch, "nothing changed");

    // The core changes the route (a rejection after a move): the epoch moves.
    relocate(&c, ACTOR, "p1", 1, 2);
    let stale = rejection(c.node(1).admit(&inbound(key(ACTOR, "p1"), &first)));
    sender.on_rejection(key(ACTOR, "p1"), &stale);
    assert_ne!(epoch_of(sender, &hit), hit.epoch);
    assert_eq!(sender.lookup_near(ACTOR, "p1").unwrap(), None);
    // Long IDs are not offered to near caches.
    let long = "x".repeat(INLINE_ID_BYTES + 1);
    c.node(1).activate(ACTOR, &long).unwrap();
    ready(sender.resolve(ACTOR, &long).unwrap());
    assert!(sender.lookup_cached(ACTOR, &long).unwrap().is_some());
    assert_eq!(sender.lookup_near(ACTOR, &long).unwrap(), None);
}
