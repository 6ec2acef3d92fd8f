//! Bugs the seeded simulation (`zlink sim`) found, each replayed as a
//! small mesh scenario: the seed that found it is named in the test.

use std::time::Duration;

use zlink_core::mesh::{Carried, Ledger, Mesh, RestoreMode};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn mesh(n: u64) -> Mesh {
    Mesh::new(n, RoutingConfig::default()).expect("valid mesh")
}

/// How a piece of work ends when its node's lease ran out first.
const LEASE_LAPSED: Failure = Failure::Unavailable(UnavailableReason::AdmissionDeadlinePassed);

/// The failures every ended operation was reported with, in order.
fn failures(l: &Ledger) -> Vec<Failure> {
    l.ended.iter().map(|(_, f)| *f).collect()
}

/// A config under which a stalled store call fails fast in wall time, one
/// attempt per call.
fn fail_fast() -> RoutingConfig {
    RoutingConfig {
        store_timeout: Duration::from_millis(5),
        store_attempts: 1,
        ..RoutingConfig::default()
    }
}

/// Three nodes on `fail_fast`: node 1 owns "a", node 3 has its route
/// cached, and "a" has begun moving to node 2.
fn moving_from_1_to_2() -> Mesh {
    let mut m = Mesh::new(3, fail_fast()).expect("valid mesh");
    m.activate(1, ACTOR, "a").expect("activates");
    m.send(3, ACTOR, "a", b"warm").expect("sends");
    m.run();
    m.begin_move(ACTOR, "a", 1, 2).expect("the move begins");
    m
}

/// Seed 107: a move abandoned after the owner lease lapsed unsealed the
/// source and ran the work it had held, with no lease (another owner may
/// hold the object by then). That work must end Unavailable instead.
#[test]
fn an_abort_after_the_lease_lapsed_does_not_run_the_held_work() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "a").unwrap();
    // The target's host never restores: the move can only be abandoned.
    m.restore_mode(RestoreMode::Ignore);
    m.begin_move(ACTOR, "a", 1, 2).unwrap();
    m.run();
    m.send(3, ACTOR, "a", b"held").unwrap();
    m.run();
    assert!(m.ledger.delivered.is_empty(), "sealed: the message is held");
    // Past the 30 s lease: the relocation deadlines fire only now.
    m.advance(Duration::from_secs(31));
    m.run();
    m.advance(Duration::from_secs(6));
    m.run();
    let l = &m.ledger;
    assert!(
        l.delivered.is_empty(),
        "run without a lease: {:?}",
        l.delivered
    );
    assert!(l.unauthorized_deliveries.is_empty());
    assert_eq!(
        failures(l),
        [LEASE_LAPSED],
        "the held message ends at its sender"
    );
}

/// Seed 712: the target committed (its relay-ready and commit never
/// reached the source), then crashed and came back as a new process. The
/// source gave the move up and took the new process's "never heard of it"
/// as a confirmed abort: it unsealed and ran held work while the store named
/// the target as owner. A confirmation counts only from the target's own
/// lifecycle; otherwise the store fence decides (here: the target's commit).
#[test]
fn a_restarted_target_cannot_confirm_an_abort_its_previous_process_committed() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "a").unwrap();
    m.send(3, ACTOR, "a", b"warm").unwrap();
    m.run();
    // Every relocation frame from the target to the source is lost.
    m.drop_when(Some(Box::new(|e| {
        e.from == NodeRid(2) && e.to == NodeRid(1) && e.carried == Carried::Relocation
    })));
    m.begin_move(ACTOR, "a", 1, 2).unwrap();
    m.run();
    // 1 s after relay-ready the target commits on its own.
    m.advance(Duration::from_millis(1_100));
    m.run();
    let record = m.store_record(ACTOR, "a").expect("a record");
    assert_eq!(record.owner.route.node, NodeRid(2), "the target committed");
    m.kill(2);
    m.restart(2).unwrap();
    m.drop_when(None);
    // Node 3's cached route still names node 1: held there, sealed.
    m.send(3, ACTOR, "a", b"held").unwrap();
    m.run();
    // The source's relay-ready wait ends; it asks the (new) target to
    // confirm the abort, then fences the store.
    for _ in 0..4 {
        m.advance(Duration::from_secs(5));
        m.run();
    }
    let l = &m.ledger;
    assert!(
        l.unauthorized_deliveries.is_empty(),
        "run by a node the store does not name: {:?}",
        l.unauthorized_deliveries
    );
    assert_eq!(l.two_owner_deliveries, 0);
    assert_eq!(l.delivered.len(), 1, "only the warm-up message ran");
    assert!(
        l.relocation_events
            .iter()
            .all(|(at, e)| !(*at == NodeRid(1) && matches!(e, RelocationEvent::Aborted { .. }))),
        "the source never unsealed: {:?}",
        l.relocation_events
    );
}

/// Seed 5014 (6 nodes, 12 objects): the target's owner CAS reached the
/// store while it stalled (applied, answer lost); its retry, after the
/// lease it had been granted ran out, was answered with that record (same
/// proposal: nothing written twice), and the target ran the relayed work
/// with no lease left. That work must end Unavailable instead.
#[test]
fn a_commit_answered_after_its_lease_lapsed_does_not_run_the_waiting_work() {
    let mut m = moving_from_1_to_2();
    // Restore and relay-ready pass; the held message is relayed to the
    // target's temporary queue; the owner CAS reaches a stalled store.
    m.send(3, ACTOR, "a", b"waiting").unwrap();
    m.store_stalled(true);
    m.run();
    m.advance(Duration::from_millis(1_100));
    m.run();
    let record = m.store_record(ACTOR, "a").expect("a record");
    assert_eq!(record.owner.route.node, NodeRid(2), "the CAS was applied");
    assert_eq!(m.ledger.delivered.len(), 1, "only the warm-up ran so far");
    // The store answers again only once the lease the CAS granted ran
    // out; the retry's deadline fires then.
    m.store_stalled(false);
    m.advance(Duration::from_secs(31));
    m.run();
    let l = &m.ledger;
    assert!(
        l.relocation_events
            .iter()
            .any(|(at, e)| *at == NodeRid(2) && matches!(e, RelocationEvent::Committed { .. })),
        "the retried CAS committed: {:?}",
        l.relocation_events
    );
    assert!(
        l.unauthorized_deliveries.is_empty(),
        "{:?}",
        l.unauthorized_deliveries
    );
    assert_eq!(l.delivered.len(), 1, "nothing ran without a lease");
    assert_eq!(
        failures(l),
        [LEASE_LAPSED],
        "the waiting message ends at its sender"
    );
}

/// Seed 20067 (`--steps 600`): a lease renewal under a shorter configured
/// lease reached a stalled store (applied, answer lost). The store's lease
/// now ended before the deadline the owner still admitted by, so the owner
/// ran work the store no longer allowed it (another node could have taken
/// the object over). A renewal of unknown outcome now brings the local
/// deadline down to what an applied one would leave.
#[test]
fn a_lost_renewal_answer_never_leaves_the_owner_admitting_past_the_store_lease() {
    let config = fail_fast();
    let mut m = Mesh::new(2, config.clone()).expect("valid mesh");
    m.activate(1, ACTOR, "a").unwrap(); // lease until 30 s
    m.advance(Duration::from_secs(20));
    // A message on its way to the owner, resolved while the lease held.
    m.delay_when(Some(Box::new(|e| e.carried == Carried::Operation)));
    m.send(2, ACTOR, "a", b"late").unwrap();
    m.delay_when(None);
    // Leases are now 5 s; the renewal applies (until 25 s) unanswered.
    m.set_config(RoutingConfig {
        owner_lease_duration: Duration::from_secs(5),
        ..config
    })
    .unwrap();
    m.store_stalled(true);
    assert!(m.node(1).renew_lease(ACTOR, "a").is_err(), "no answer");
    m.store_stalled(false);
    let record = m.store_record(ACTOR, "a").expect("a record");
    assert_eq!(record.owner.lease.expires_at, StoreTime(25_000), "applied");
    m.advance(Duration::from_secs(6));
    m.release();
    m.run();
    let l = &m.ledger;
    assert!(
        l.unauthorized_deliveries.is_empty(),
        "{:?}",
        l.unauthorized_deliveries
    );
    assert!(l.delivered.is_empty());
    assert_eq!(failures(l), [LEASE_LAPSED]);
}

/// Seed 100717: the source's abort fence had reached a stalled store
/// (applied, answer lost) and it unsealed on the old target's word, then
/// moved the object again on the tenure it still believed in. The new
/// target's owner CAS was refused, the store showed the source's later
/// tenure, and the target went to withdraw; but, its CAS once sent, it only
/// marked itself withdrawn and waited for a CAS outcome it already had: the
/// work in its temporary queue was never run nor refused. A refused CAS now
/// withdraws at once and the waiting work ends Unavailable at its senders.
#[test]
fn a_refused_owner_cas_against_a_fenced_source_refuses_the_waiting_work() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "a").unwrap();
    m.send(3, ACTOR, "a", b"warm").unwrap();
    m.run();
    m.begin_move(ACTOR, "a", 1, 2).unwrap();
    // The Restore reaches the target, which answers relay-ready.
    assert!(m.step());
    // From now on the source's cutover never reaches the target: the owner
    // CAS comes on the target's own timer.
    m.delay_when(Some(Box::new(|e| {
        e.from == NodeRid(1) && e.carried == Carried::Relocation
    })));
    m.run();
    // A message on the cached route: relayed into the temporary queue.
    m.send(3, ACTOR, "a", b"waiting").unwrap();
    m.run();
    // The source's tenure moves on in the store (its fence).
    let record = m.store_record(ACTOR, "a").expect("a record");
    m.force_transfer(ACTOR, "a", record, 1);
    m.advance(Duration::from_millis(1_100));
    m.run();
    let l = &m.ledger;
    assert!(l.unauthorized_deliveries.is_empty());
    assert_eq!(l.delivered.len(), 1, "only the warm-up ran");
    assert_eq!(
        l.ended.len(),
        1,
        "the waiting message ends at its sender, not stuck: {:?}",
        l.relocation_events
    );
    assert!(l.unresolved().is_empty());
}

/// Seed 102229: a Session rebound its Actor while the Actor was sealed for
/// a move; the bind reply replaced the stored route and with it the seal,
/// dropping the relay the seal held: never delivered, never refused. The
/// seal (and what it holds) now stays until its command 44 or timeout.
#[test]
fn a_rebind_completing_under_a_seal_keeps_the_held_relays() {
    let mut m = mesh(3);
    m.activate(2, ACTOR, "a").unwrap();
    let session = m.open_session(1, 1);
    let actor_ref = m.actor_ref(2, "a").unwrap();
    m.bind(1, 1, &actor_ref).unwrap();
    m.run();
    // The target never restores: the move will be given up.
    m.restore_mode(RestoreMode::Ignore);
    m.begin_move(ACTOR, "a", 2, 3).unwrap();
    // A rebind on the (sealed) owner, sent behind the seal.
    let again = m.actor_ref(2, "a").unwrap();
    m.bind(1, 1, &again).unwrap();
    assert!(m.step(), "the Restore reaches the target");
    assert!(m.step(), "the seal (42) reaches the Session owner");
    let key = ObjectKey::new(ACTOR, "a").unwrap();
    let held = m.session_send(1, 1, &key, b"held").unwrap();
    assert!(matches!(held, SessionSend::Held { .. }), "{held:?}");
    m.run();
    // The source gives the move up; command 44 abort releases the seal.
    for _ in 0..3 {
        m.advance(Duration::from_secs(6));
        m.run();
    }
    let l = &m.ledger;
    let delivered = l
        .session_delivered
        .iter()
        .any(|(s, a, _, _)| *s == session.id && a == "a");
    let reported = l.session_events.iter().any(|e| {
        matches!(
            e,
            SessionEvent::RelayRefused { .. } | SessionEvent::Closed { .. }
        )
    });
    assert!(
        delivered || reported,
        "the held relay vanished: {:?}",
        l.session_events
    );
    assert!(delivered, "released by the abort on the kept seal");
}

/// Seed 102946: the target's owner CAS reached a stalled store (applied,
/// answer lost) and, past its give-up time, the target abandoned the move
/// as if refused, then confirmed the source's abort; the source unsealed
/// and ran held work while the store named the target. An unanswered CAS is
/// now retried until the store answers; the source stays sealed and its
/// fence finds the target's commit.
#[test]
fn an_unanswered_owner_cas_is_never_abandoned_as_refused() {
    let mut m = moving_from_1_to_2();
    // Nothing of the move reaches the source from the target.
    m.drop_when(Some(Box::new(|e| {
        e.from == NodeRid(2) && e.to == NodeRid(1) && e.carried == Carried::Relocation
    })));
    m.store_stalled(true);
    m.run();
    // 1 s after relay-ready the target's CAS goes to the stalled store.
    m.advance(Duration::from_millis(1_100));
    m.run();
    assert_eq!(
        m.store_record(ACTOR, "a")
            .expect("a record")
            .owner
            .route
            .node,
        NodeRid(2),
        "applied, unanswered"
    );
    // Held at the sealed source.
    m.send(3, ACTOR, "a", b"held").unwrap();
    m.run();
    // The source gives up; the target is past its old give-up time.
    m.advance(Duration::from_secs(6));
    m.drop_when(None);
    m.run();
    m.store_stalled(false);
    for _ in 0..4 {
        m.advance(Duration::from_secs(1));
        m.run();
    }
    let l = &m.ledger;
    assert!(
        l.unauthorized_deliveries.is_empty(),
        "run by a node the store does not name: {:?}",
        l.unauthorized_deliveries
    );
    assert_eq!(l.two_owner_deliveries, 0);
    assert!(l.unresolved().is_empty(), "{:?}", l.relocation_events);
}

/// Seed 147: a source gave a move up under a shorter configured lease; its
/// abort fence (re-taking its own object, with a lease from the store's
/// now) reached a stalled store (applied, answer lost), then the target's
/// confirmation unsealed it. The store's lease now ended before the
/// deadline the source still admitted by, and it ran a Session's relays
/// past that end. A fence of unknown outcome now brings the local deadline
/// down to what an applied one would leave, as a lost renewal does.
#[test]
fn a_lost_abort_fence_answer_never_leaves_the_source_admitting_past_the_store_lease() {
    let config = fail_fast();
    let mut m = Mesh::new(2, config.clone()).expect("valid mesh");
    m.activate(1, ACTOR, "a").unwrap(); // lease until 30 s
    m.set_config(RoutingConfig {
        owner_lease_duration: Duration::from_secs(5),
        ..config
    })
    .unwrap();
    // The target never restores, and its answers reach the source late.
    m.restore_mode(RestoreMode::Ignore);
    m.delay_when(Some(Box::new(|e| {
        e.from == NodeRid(2) && e.to == NodeRid(1) && e.carried == Carried::Relocation
    })));
    m.begin_move(ACTOR, "a", 1, 2).unwrap();
    m.run();
    // The source gives up, then fences the store: applied, unanswered.
    m.store_stalled(true);
    m.advance(Duration::from_secs(6));
    m.run();
    m.advance(Duration::from_secs(6));
    m.run();
    m.store_stalled(false);
    let record = m.store_record(ACTOR, "a").expect("a record");
    assert_eq!(
        record.authority_owner_generation,
        AuthorityOwnerGeneration(2),
        "the fence applied"
    );
    let expires = record.owner.lease.expires_at;
    assert_eq!(expires, StoreTime(17_000), "a 5 s lease from the fence");
    // The target's confirmation unseals the source.
    m.delay_when(None);
    m.release();
    m.run();
    // Later, a Session binds the Actor on the tenure the source believes
    // in (its owner counts at most one 5 s lease from the bind).
    m.advance(Duration::from_secs(3));
    m.run();
    m.open_session(2, 1);
    let actor_ref = m.actor_ref(1, "a").unwrap();
    m.bind(2, 1, &actor_ref).unwrap();
    m.run();
    // Past the store's lease, within the one the source had before.
    m.advance(Duration::from_secs(3));
    m.session_send(2, 1, &actor_ref.actor, b"late").unwrap();
    m.run();
    let l = &m.ledger;
    assert!(
        l.unauthorized_deliveries.is_empty(),
        "run past the store's lease: {:?}",
        l.unauthorized_deliveries
    );
    assert!(l.session_delivered.is_empty());
}
