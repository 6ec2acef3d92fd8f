//! Message Follow scenarios on the in-process mesh (spec §2.5): each checks
//! that every operation is delivered exactly once or ends once, nothing is
//! lost or run twice, and order holds on every link.

use std::time::Duration;

use zlink_core::mesh::{Carried, Mesh};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn mesh(n: u64) -> Mesh {
    Mesh::new(n, RoutingConfig::default()).expect("valid mesh")
}

fn assert_clean(m: &Mesh) {
    let l = &m.ledger;
    assert!(l.duplicated().is_empty(), "run twice: {:?}", l.duplicated());
    assert!(
        l.delivered_and_ended().is_empty(),
        "two terminal results: {:?}",
        l.delivered_and_ended()
    );
    assert!(l.unresolved().is_empty(), "lost: {:?}", l.unresolved());
    assert!(
        l.order_violations().is_empty(),
        "out of order: {:?}",
        l.order_violations()
    );
}

#[test]
fn relocation_under_steady_traffic_loses_nothing_and_detours_briefly() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    for _ in 0..10 {
        m.send(3, ACTOR, "p", b"before").unwrap();
        m.step();
    }
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    for _ in 0..20 {
        m.send(3, ACTOR, "p", b"after").unwrap();
        m.step();
    }
    m.run();
    assert_clean(&m);
    assert_eq!(m.ledger.delivered.len(), 30);
    // Messages sent while the notification is on its way still detour
    // (here the network is three steps deep); none after it lands.
    let detours = m.ledger.detours();
    assert!((1..=3).contains(&detours), "detours {detours}");
    assert!(
        m.ledger.delivered[20..]
            .iter()
            .all(|(_, _, hops)| *hops == 0)
    );
    assert_eq!(m.node(1).stats().follow.notifications_sent, 1);
    assert_eq!(m.ledger.notices_effective, 1);
}

#[test]
fn chained_moves_relay_through_every_hop_with_increasing_owner_generation() {
    let mut m = mesh(5);
    m.activate(1, ACTOR, "p").unwrap();
    m.send(5, ACTOR, "p", b"warm").unwrap();
    m.run();
    for (from, to) in [(1, 2), (2, 3), (3, 4)] {
        m.relocate(ACTOR, "p", from, to).unwrap();
    }
    m.send(5, ACTOR, "p", b"stale").unwrap();
    m.run();
    assert_clean(&m);
    let (_, node, hops) = *m.ledger.delivered.last().unwrap();
    assert_eq!((node, hops), (NodeRid(4), 3));
}

#[test]
fn lost_notifications_only_prolong_the_detour_until_the_cache_expires() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.drop_when(Some(Box::new(|e| e.carried == Carried::Notice)));
    for _ in 0..5 {
        m.send(3, ACTOR, "p", b"x").unwrap();
        m.run();
    }
    assert_eq!(
        m.ledger.detours(),
        5,
        "every message detours while the route is cached"
    );
    m.clock.advance(Duration::from_secs(15));
    m.send(3, ACTOR, "p", b"fresh").unwrap();
    m.run();
    assert_eq!(
        m.ledger.detours(),
        5,
        "after the cache lifetime the new owner is used"
    );
    assert_clean(&m);
}

#[test]
fn with_follow_disabled_a_stale_route_ends_unavailable() {
    let config = RoutingConfig {
        message_follow_duration: Duration::ZERO,
        ..RoutingConfig::default()
    };
    let mut m = Mesh::new(3, config).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"stale").unwrap();
    m.run();
    assert_clean(&m);
    assert_eq!(m.ledger.ended.len(), 1);
    assert_eq!(
        m.ledger.ended[0].1,
        Failure::Unavailable(UnavailableReason::StaleRoute)
    );
}

#[test]
fn a_frame_arriving_after_the_follow_route_expired_ends_unavailable() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    // A frame stuck in the network past the 30 s Message Follow duration.
    m.delay_when(Some(Box::new(|e| e.carried == Carried::Operation)));
    m.send(3, ACTOR, "p", b"late").unwrap();
    m.delay_when(None);
    m.clock.advance(Duration::from_secs(30));
    m.release();
    m.run();
    assert_clean(&m);
    assert_eq!(m.ledger.detours(), 0);
    assert_eq!(m.ledger.ended.len(), 1);
    assert_eq!(
        m.ledger.ended[0].1,
        Failure::Unavailable(UnavailableReason::StaleRoute)
    );
}
