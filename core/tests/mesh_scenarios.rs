//! Message Follow scenarios on the in-process mesh (spec §2.5): each checks
//! that every operation is delivered exactly once or ends once, nothing is
//! lost or run twice, and order holds on every link.
//! Request scenarios (spec §4) check that each request ends exactly once,
//! whatever the network loses or reorders.

use std::time::Duration;

use zlink_core::mesh::{Carried, Mesh};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn mesh(n: u64) -> Mesh {
    Mesh::new(n, RoutingConfig::default()).expect("valid mesh")
}

/// Nothing lost, nothing run twice, one terminal result each.
fn assert_exactly_once(m: &Mesh) {
    let l = &m.ledger;
    assert!(l.duplicated().is_empty(), "run twice: {:?}", l.duplicated());
    assert!(
        l.delivered_and_ended().is_empty(),
        "two terminal results: {:?}",
        l.delivered_and_ended()
    );
    assert!(l.unresolved().is_empty(), "lost: {:?}", l.unresolved());
}

/// Exactly once, and in order on every link the transport kept in order.
fn assert_clean(m: &Mesh) {
    assert_exactly_once(m);
    let l = &m.ledger;
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

/// Node `rid` has a cached route to `id` (its warm-up message ran).
fn warm(m: &mut Mesh, rid: u64, id: &str) {
    m.send(rid, ACTOR, id, b"warm").expect("a valid id");
    m.run();
}

fn operation_id(sent: Sent) -> OperationId {
    match sent {
        Sent::Submitted { operation_id, .. } => operation_id,
        other => panic!("expected Submitted, got {other:?}"),
    }
}

#[test]
fn several_senders_during_a_relocation_each_get_exactly_one_effective_notice() {
    let mut m = mesh(5);
    m.activate(1, ACTOR, "p").unwrap();
    for sender in 3..=5 {
        warm(&mut m, sender, "p");
    }
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    // Interleaved, all on the network before the first relay happens.
    for _ in 0..4 {
        for sender in 3..=5 {
            m.send(sender, ACTOR, "p", b"during").unwrap();
        }
    }
    m.run();
    for _ in 0..2 {
        for sender in 3..=5 {
            m.send(sender, ACTOR, "p", b"after").unwrap();
        }
    }
    m.run();
    assert_clean(&m);
    assert_eq!(m.ledger.delivered.len(), 3 + 12 + 6);
    assert_eq!(m.ledger.detours(), 12, "only the in-flight ones detour");
    let follow = m.node(1).stats().follow;
    assert_eq!(follow.notifications_sent, 3, "one per sender");
    assert_eq!(follow.notifications_suppressed, 9);
    assert_eq!(
        (m.ledger.notices_applied, m.ledger.notices_effective),
        (3, 3)
    );
    for sender in 3..=5 {
        assert_eq!(
            m.node(sender)
                .stats()
                .invalidations_for(InvalidationReason::RelayNotification),
            1,
            "sender {sender}"
        );
    }
}

#[test]
fn a_reordering_network_loses_nothing_and_runs_nothing_twice() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 3, "p");
    warm(&mut m, 4, "p");
    for round in 0..6 {
        for sender in [3, 4] {
            for _ in 0..3 {
                m.send(sender, ACTOR, "p", b"x").unwrap();
            }
        }
        if round == 2 {
            m.relocate(ACTOR, "p", 1, 2).unwrap();
        }
        m.reorder();
        for _ in 0..4 {
            m.step();
        }
        m.reorder();
    }
    m.run();
    assert_exactly_once(&m);
    assert_eq!(m.ledger.delivered.len(), 2 + 36);
    assert!(m.ledger.ended.is_empty(), "every route was still relayable");
    assert!(m.ledger.detours() > 0);
    assert!(
        !m.ledger.order_violations().is_empty(),
        "the network did reorder"
    );
    assert_eq!(m.ledger.notices_effective, 2, "one per sender");
}

#[test]
fn a_move_while_frames_are_in_flight_loses_nothing() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 4, "p");
    for _ in 0..6 {
        m.send(4, ACTOR, "p", b"a").unwrap();
    }
    m.step();
    m.step();
    // Four operations still on their way to node 1.
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.step();
    m.step();
    for _ in 0..3 {
        m.send(4, ACTOR, "p", b"b").unwrap();
    }
    // Relays to node 2 and fresh sends are on the network: move again.
    assert!(m.in_flight() > 0);
    m.relocate(ACTOR, "p", 2, 3).unwrap();
    m.run();
    for _ in 0..3 {
        m.send(4, ACTOR, "p", b"c").unwrap();
    }
    m.run();
    assert_clean(&m);
    assert!(m.ledger.ended.is_empty());
    assert_eq!(m.ledger.delivered.len(), 1 + 6 + 3 + 3);
    assert!(
        m.ledger.delivered.iter().any(|(_, _, hops)| *hops == 2),
        "a relayed frame caught by the second move is relayed again"
    );
    let (_, node, hops) = *m.ledger.delivered.last().unwrap();
    assert_eq!((node, hops), (NodeRid(3), 0), "the sender caught up");
}

#[test]
fn relocation_back_to_the_original_owner_with_stale_routes_to_both() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 3, "p"); // node 3 caches node 1's first tenure
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    warm(&mut m, 4, "p"); // node 4 caches node 2's tenure
    m.relocate(ACTOR, "p", 2, 1).unwrap();

    // To node 2's ended tenure: relayed back to node 1.
    let via_2 = operation_id(m.send(4, ACTOR, "p", b"via 2").unwrap());
    // To node 1's earlier tenure: node 1 owns p again, under a later owner
    // generation, so the route is stale and the operation ends (not run).
    let old_1 = operation_id(m.send(3, ACTOR, "p", b"old 1").unwrap());
    m.run();
    assert_clean(&m);
    assert!(m.ledger.delivered.contains(&(via_2, NodeRid(1), 1)));
    assert_eq!(
        m.ledger.ended,
        vec![(old_1, Failure::Unavailable(UnavailableReason::StaleRoute))]
    );
    // Both senders' next calls reach node 1 directly.
    let next_3 = operation_id(m.send(3, ACTOR, "p", b"next").unwrap());
    let next_4 = operation_id(m.send(4, ACTOR, "p", b"next").unwrap());
    m.run();
    assert_clean(&m);
    assert!(m.ledger.delivered.contains(&(next_3, NodeRid(1), 0)));
    assert!(m.ledger.delivered.contains(&(next_4, NodeRid(1), 0)));
}

#[test]
fn notifications_failing_at_the_relayer_then_succeeding() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 3, "p");
    warm(&mut m, 4, "p");
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.fail_notices(true);
    for _ in 0..3 {
        for sender in [3, 4] {
            m.send(sender, ACTOR, "p", b"x").unwrap();
        }
        m.run();
    }
    assert_eq!(m.ledger.detours(), 6, "the senders were never told");
    assert_eq!(m.ledger.notices_applied, 0);
    let follow = m.node(1).stats().follow;
    assert_eq!(follow.notification_failures, 6, "each relay tried again");
    assert_eq!(follow.notifications_suppressed, 0);

    m.fail_notices(false);
    for _ in 0..3 {
        for sender in [3, 4] {
            m.send(sender, ACTOR, "p", b"y").unwrap();
        }
        m.run();
    }
    assert_clean(&m);
    assert_eq!(m.ledger.detours(), 8, "one more detour each, then direct");
    assert_eq!(m.ledger.notices_effective, 2);
    assert_eq!(m.node(1).stats().follow.notification_failures, 6);
    assert!(m.ledger.ended.is_empty());
}

// Requests (spec §4, issue 6): each request ends exactly once -----------------

/// Every request in `asked` has exactly one terminal result, none is left
/// pending on any of the `nodes`, none was reported as a one-way end, and
/// every late result was counted.
fn assert_each_request_ends_once(m: &Mesh, nodes: u64, asked: &[OperationId]) {
    let l = &m.ledger;
    assert!(
        l.double_completions().is_empty(),
        "completed twice: {:?}",
        l.double_completions()
    );
    for op in asked {
        let results = l.completed.iter().filter(|(c, _)| c == op).count();
        assert_eq!(results, 1, "{op:?} has {results} terminal results");
        assert!(
            l.ended.iter().all(|(e, _)| e != op),
            "{op:?} also ended as a one-way operation"
        );
    }
    assert_eq!(l.completed.len(), asked.len());
    assert!(l.unresolved().is_empty(), "lost: {:?}", l.unresolved());
    assert!(l.duplicated().is_empty(), "run twice: {:?}", l.duplicated());
    let mut late = 0;
    for rid in 1..=nodes {
        let node = m.node(rid);
        assert_eq!(node.pending_requests(), 0, "node {rid} still waits");
        late += node.stats().requests.late_results;
    }
    assert_eq!(late, l.late, "every late result counted where it landed");
}

fn requested(requested: Requested) -> OperationId {
    match requested {
        Requested::Submitted { operation_id, .. } => operation_id,
        other => panic!("expected Submitted, got {other:?}"),
    }
}

fn timeout(ms: u64) -> RequestOptions {
    RequestOptions {
        timeout: Duration::from_millis(ms),
        ..RequestOptions::default()
    }
}

#[test]
fn requests_under_relocation_with_lost_and_reordered_frames_each_end_exactly_once() {
    let mut m = mesh(5);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 4, "p");
    warm(&mut m, 5, "p");
    // Every seventh frame of any kind is lost: requests, relays, replies,
    // rejections and notices alike.
    let mut seen = 0u64;
    m.drop_when(Some(Box::new(move |_| {
        seen += 1;
        seen.is_multiple_of(7)
    })));
    let mut asked = Vec::new();
    for round in 0..8 {
        for requester in [4, 5] {
            for _ in 0..3 {
                asked.push(requested(
                    m.request(requester, ACTOR, "p", b"q", timeout(2_000))
                        .unwrap(),
                ));
            }
        }
        match round {
            2 => _ = m.relocate(ACTOR, "p", 1, 2).unwrap(),
            5 => _ = m.relocate(ACTOR, "p", 2, 3).unwrap(),
            _ => {}
        }
        m.reorder();
        for _ in 0..5 {
            m.step();
        }
        m.reorder();
        m.clock.advance(Duration::from_millis(100));
    }
    m.run();
    // Past every deadline: whatever is still waiting times out.
    m.advance(Duration::from_secs(3));
    m.run();
    assert_each_request_ends_once(&m, 5, &asked);
    let kinds = |kind| {
        m.ledger
            .completed
            .iter()
            .filter(|(_, k)| *k == kind)
            .count()
    };
    assert!(
        kinds("Reply") > 0 && kinds("Timeout") > 0,
        "{:?}",
        m.ledger.completed
    );
    assert!(m.ledger.dropped.contains(&Carried::Reply));
    assert!(m.ledger.detours() > 0, "some requests were relayed");
    for requester in [4, 5] {
        let s = m.node(requester).stats().requests;
        assert_eq!(s.sent, 24);
        assert_eq!(s.replies + s.errors + s.timeouts, 24);
    }
}

#[test]
fn replies_held_past_their_deadline_are_late_and_each_request_still_ends_once() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 3, "p");
    warm(&mut m, 4, "p");
    m.delay_when(Some(Box::new(|e| e.carried == Carried::Reply)));
    let mut asked = Vec::new();
    for requester in [3, 4] {
        for _ in 0..5 {
            asked.push(requested(
                m.request(requester, ACTOR, "p", b"q", timeout(1_000))
                    .unwrap(),
            ));
        }
    }
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.run();
    assert_eq!(m.ledger.detours(), 10, "all relayed, all answered");
    m.advance(Duration::from_secs(1));
    m.delay_when(None);
    m.release();
    m.run();
    assert_each_request_ends_once(&m, 4, &asked);
    assert!(
        m.ledger
            .completed
            .iter()
            .all(|(_, kind)| *kind == "Timeout")
    );
    assert_eq!(m.ledger.late, 10, "every reply arrived after the end");
}

#[test]
fn requests_racing_a_move_and_back_with_follow_off_end_once_each() {
    let config = RoutingConfig {
        message_follow_duration: Duration::ZERO,
        ..RoutingConfig::default()
    };
    let mut m = Mesh::new(4, config).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, 3, "p");
    warm(&mut m, 4, "p");
    let mut asked = Vec::new();
    for requester in [3, 4, 3, 4] {
        asked.push(requested(
            m.request(requester, ACTOR, "p", b"q", timeout(1_000))
                .unwrap(),
        ));
    }
    m.step();
    // One request already reached node 1; the other three arrive after the
    // seal: held, relayed in the relay span, answered by the new owner
    // (no Message Follow route is needed for them).
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.run();
    let kinds: Vec<_> = m.ledger.completed.iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "Reply").count(), 4);
    // Held twice each: in the source's ingress hold, then in the target's
    // temporary queue until its owner CAS.
    assert_eq!(m.ledger.held, 6);
    assert_eq!(m.ledger.two_owner_deliveries, 0);
    // The next calls re-resolve and reach the new owner.
    for requester in [3, 4] {
        asked.push(requested(
            m.request(requester, ACTOR, "p", b"again", timeout(1_000))
                .unwrap(),
        ));
    }
    m.run();
    m.advance(Duration::from_secs(1));
    assert_each_request_ends_once(&m, 4, &asked);
    assert!(m.ledger.ended.is_empty());
    assert_eq!(m.ledger.two_owner_deliveries, 0);
}
