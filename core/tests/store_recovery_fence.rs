//! Owners fence themselves on a store recovery event (issue 27; DESIGN §3,
//! docs/location-store.md "Failover and durability"): after the store's
//! epoch changes, an owner holds the work that arrives for what it owns
//! until one batched read confirms each record still names it; a record
//! that does not ends that ownership (`Inbound::OwnershipLost`), and the
//! held work is refused to its sender, which ends it `Unavailable`.
//!
//! The failover is the embedded store's: a replica taken before node 1's
//! last writes is promoted, as a Redis failover with durability off
//! (`WriteAcks::PrimaryOnly`) loses acknowledged writes.

mod cluster;

use std::time::{Duration, Instant};

use cluster::Cluster;
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn key(id: &str) -> KeyRef<'_> {
    KeyRef { kind: ACTOR, id }
}

/// Node 2's frame to `id`, not carried yet.
fn frame_to(c: &Cluster, id: &str) -> Outbound {
    match c
        .node(2)
        .send(ACTOR, id, b"m", SendOptions::default())
        .expect("valid")
    {
        Sent::Submitted { outbound, .. } => outbound,
        other => panic!("{other:?}"),
    }
}

/// Calls `on_timeout` on `rt` whenever its deadline comes (re-confirmation
/// reads on the runtime's own threads) until `done` says so; returns every
/// action.
fn drive_until(rt: &Runtime, done: impl Fn(&[Inbound]) -> bool) -> Vec<Inbound> {
    let give_up = Instant::now() + Duration::from_secs(10);
    let mut actions = Vec::new();
    while !done(&actions) {
        assert!(Instant::now() < give_up, "nothing decided: {actions:?}");
        if rt.next_deadline().is_some_and(|at| at <= rt.now()) {
            actions.extend(rt.on_timeout(rt.now()));
        }
        // A host sleeps until its deadline; the check reads meanwhile.
        std::thread::sleep(Duration::from_millis(1));
    }
    actions
}

fn lost(actions: &[Inbound]) -> Vec<OwnershipLost> {
    actions
        .iter()
        .filter_map(|a| match a {
            Inbound::OwnershipLost(l) => Some(l.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_owner_whose_record_a_failover_lost_holds_its_work_then_gives_the_object_up() {
    let c = Cluster::with_defaults(3);
    let (a, d) = (c.node(1), c.node(2));
    a.activate(ACTOR, "kept").unwrap();
    let replica = c.store.inner().replica();
    a.activate(ACTOR, "x").unwrap();
    let to_x = frame_to(&c, "x");
    let to_kept = frame_to(&c, "kept");
    // The primary dies; the replica it fails over to never had x.
    c.store.inner().promote(replica);
    c.store.restart();

    let first = a.on_frame(NodeRid(2), &to_x.bytes);
    assert!(matches!(first, Inbound::Held), "{first:?}");
    assert!(matches!(
        a.on_frame(NodeRid(2), &to_kept.bytes),
        Inbound::Held
    ));
    let actions = drive_until(a, |acts| !lost(acts).is_empty() && acts.len() >= 3);
    assert_eq!(
        lost(&actions),
        vec![OwnershipLost {
            key: key("x").to_owned(),
            reason: LostReason::Missing
        }]
    );
    assert_eq!(a.stats().ownerships_lost, 1);
    assert_eq!(a.owned(key("x")), None);
    assert!(
        a.owned(key("kept")).is_some(),
        "its record still names node 1"
    );
    let delivered = actions
        .iter()
        .filter(|a| matches!(a, Inbound::Deliver(d) if d.operation.target.id() == "kept"))
        .count();
    assert_eq!(
        delivered, 1,
        "the confirmed object's held work: {actions:?}"
    );
    let refusal = actions
        .iter()
        .find_map(|a| match a {
            Inbound::Reject(out) => Some(out.clone()),
            _ => None,
        })
        .expect("x's held work is refused");
    assert!(matches!(
        d.on_frame(NodeRid(1), &refusal.bytes),
        Inbound::Ended(Ended {
            failure: Failure::Unavailable(_),
            ..
        })
    ));
    // Another node may take x now; node 1 no longer admits it.
    c.node(3).activate(ACTOR, "x").unwrap();
    let again = frame_to(&c, "x");
    assert_eq!(again.to.rid, NodeRid(3));
    // Node 3 learnt of the recovery from its own write's answer, so that
    // write is checked too before node 3 admits.
    let first = c.node(3).on_frame(NodeRid(2), &again.bytes);
    let delivered = match first {
        Inbound::Deliver(_) => vec![first],
        Inbound::Held => drive_until(c.node(3), |acts| !acts.is_empty()),
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(&delivered[..], [Inbound::Deliver(_)]),
        "{delivered:?}"
    );
}

#[test]
fn a_record_that_names_another_owner_or_a_lapsed_lease_ends_the_ownership() {
    let c = Cluster::with_defaults(3);
    let a = c.node(1);
    a.activate(ACTOR, "lapsed").unwrap();
    c.clock.advance(Duration::from_secs(20));
    let replica = c.store.inner().replica();
    // Lost in the failover: this renewal (the replica keeps the lease that
    // ends 30 s after activation) and the activation of "taken".
    a.renew_lease(ACTOR, "lapsed").unwrap();
    a.activate(ACTOR, "taken").unwrap();
    let (to_taken, to_lapsed) = (frame_to(&c, "taken"), frame_to(&c, "lapsed"));
    c.store.inner().promote(replica);
    c.store.restart();
    // On the new primary node 3 finds "taken" Missing and activates it.
    c.node(3).activate(ACTOR, "taken").unwrap();
    c.clock.advance(Duration::from_secs(15));
    // The store's lease of "lapsed" ended 5 s ago; node 1's own deadline
    // (from the lost renewal) is 15 s away: without the check it admits.
    assert!(a.owned(key("lapsed")).unwrap().admission_deadline > a.now());
    let first = a.on_frame(NodeRid(2), &to_taken.bytes);
    assert!(matches!(first, Inbound::Held), "{first:?}");
    assert!(matches!(
        a.on_frame(NodeRid(2), &to_lapsed.bytes),
        Inbound::Held
    ));
    let actions = drive_until(a, |acts| lost(acts).len() == 2);
    let mut reasons: Vec<(String, LostReason)> = lost(&actions)
        .into_iter()
        .map(|l| (l.key.id().to_owned(), l.reason))
        .collect();
    reasons.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(
        reasons,
        vec![
            ("lapsed".to_owned(), LostReason::LeaseEnded),
            ("taken".to_owned(), LostReason::Replaced)
        ]
    );
    assert!(!actions.iter().any(|a| matches!(a, Inbound::Deliver(_))));
    assert_eq!(a.owned_count(), 0);
}

#[test]
fn a_node_that_owns_nothing_pays_nothing_and_a_plain_restart_keeps_every_owner() {
    let c = Cluster::with_defaults(2);
    c.store.restart();
    // Nothing owned: the recovery holds nothing.
    assert_eq!(c.node(2).next_deadline(), None);
    c.node(1).activate(ACTOR, "x").unwrap();
    let to_x = frame_to(&c, "x");
    c.store.restart();
    // Nothing was lost: the record confirms node 1 and the work goes on.
    assert!(matches!(
        c.node(1).on_frame(NodeRid(2), &to_x.bytes),
        Inbound::Held
    ));
    let actions = drive_until(c.node(1), |acts| !acts.is_empty());
    assert!(matches!(&actions[..], [Inbound::Deliver(_)]), "{actions:?}");
    assert!(lost(&actions).is_empty());
    // Confirmed: the next frame is admitted at once.
    let next = frame_to(&c, "x");
    assert!(matches!(
        c.node(1).on_frame(NodeRid(2), &next.bytes),
        Inbound::Deliver(_)
    ));
}

#[test]
fn re_checking_100_000_owned_objects_takes_bounded_time() {
    let c = Cluster::with_defaults(2);
    let a = c.node(1);
    for i in 0..100_000 {
        a.create(ACTOR, &format!("o-{i}")).unwrap();
    }
    a.activate(ACTOR, "x").unwrap();
    let to_x = frame_to(&c, "x");
    c.store.restart();
    let started = Instant::now();
    assert!(matches!(a.on_frame(NodeRid(2), &to_x.bytes), Inbound::Held));
    let actions = drive_until(a, |acts| !acts.is_empty());
    let took = started.elapsed();
    eprintln!("re-confirmed 100,001 owned objects in {took:?}");
    assert!(matches!(&actions[..], [Inbound::Deliver(_)]));
    assert_eq!(a.owned_count(), 100_001, "all confirmed");
}

#[test]
fn a_write_answered_across_a_recovery_is_checked_like_what_was_owned_before() {
    // Node 1's create of y is applied by the primary, whose answer is held
    // back (a stall); the primary then fails over to a replica taken before
    // y existed, and the answer arrives from the new epoch. The write may
    // have run on the lost primary: y is checked, found Missing and given
    // up, though the create was answered as done.
    let c = Cluster::with_defaults(2);
    let a = c.node(1);
    a.activate(ACTOR, "x").unwrap();
    let replica = c.store.inner().replica();
    c.store.set_stalled(true);
    std::thread::scope(|s| {
        let creating = s.spawn(|| a.create(ACTOR, "y"));
        // The write has reached the store (it applies at once); its answer waits.
        std::thread::sleep(Duration::from_millis(50));
        c.store.inner().promote(replica);
        c.store.restart();
        c.store.set_stalled(false);
        creating.join().unwrap().expect("answered as done");
    });
    let actions = drive_until(a, |acts| !lost(acts).is_empty());
    assert_eq!(
        lost(&actions),
        vec![OwnershipLost {
            key: key("y").to_owned(),
            reason: LostReason::Missing
        }]
    );
    assert_eq!(a.owned(key("y")), None);
    assert!(a.owned(key("x")).is_some(), "x's record still names node 1");
}
