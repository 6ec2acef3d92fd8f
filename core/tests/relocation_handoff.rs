//! The relocation handoff run by the runtimes (spec §2.5 PerActor, §3.3
//! steps 1–8) on the in-process mesh: one call on the source, frames
//! between the runtimes, never two owners. Each test checks the ledger:
//! every accepted operation delivered exactly once by exactly one node, no
//! delivery on the source after `begin_relocation`, one terminal result per
//! request.

use std::time::Duration;

use zlink_core::mesh::{Carried, Envelope, Mesh, RestoreMode};
use zlink_core::relocation::Refusal;
use zlink_core::wire::{self, AbortReason, DecodeLimits, Frame, RelocationFrame};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const SPOT: ObjectKind = ObjectKind::Spot;

fn mesh(n: u64) -> Mesh {
    Mesh::new(n, RoutingConfig::default()).expect("valid mesh")
}

fn command(e: &Envelope) -> u8 {
    e.bytes[3]
}

fn relocation_frame(e: &Envelope) -> Option<RelocationFrame> {
    match wire::decode(&e.bytes, &DecodeLimits::default()) {
        Ok(Frame::Relocation(f)) => Some(f),
        _ => None,
    }
}

/// Nothing lost, nothing run twice, one terminal result each, never two
/// owners.
fn assert_exactly_once(m: &Mesh) {
    let l = &m.ledger;
    assert!(l.duplicated().is_empty(), "run twice: {:?}", l.duplicated());
    assert!(
        l.delivered_and_ended().is_empty(),
        "two terminal results: {:?}",
        l.delivered_and_ended()
    );
    assert!(l.double_completions().is_empty(), "two results");
    assert!(l.unresolved().is_empty(), "lost: {:?}", l.unresolved());
    assert_eq!(l.two_owner_deliveries, 0, "delivered by a non-owner");
}

/// Every sender's operations were delivered in the order it sent them
/// (one move at a time: the hold, the relay span and the temporary queue
/// keep order; a later Message Follow detour may be overtaken by the direct
/// route, which the spec allows: "in the order the queue accepted them").
fn assert_sender_order(m: &Mesh) {
    let mut last: std::collections::BTreeMap<NodeRid, u64> = Default::default();
    for (op, _, _) in &m.ledger.delivered {
        let (origin, seq) = m.ledger.sent[op];
        let prev = last.insert(origin, seq).unwrap_or(0);
        assert!(
            prev < seq,
            "sender {origin} out of order: {prev} then {seq}"
        );
    }
}

fn delivered_on(m: &Mesh, node: u64) -> usize {
    m.ledger
        .delivered
        .iter()
        .filter(|(_, at, _)| *at == NodeRid(node))
        .count()
}

fn events(m: &Mesh, node: u64) -> Vec<&RelocationEvent> {
    m.ledger
        .relocation_events
        .iter()
        .filter(|(at, _)| *at == NodeRid(node))
        .map(|(_, e)| e)
        .collect()
}

fn has_event(m: &Mesh, node: u64, f: impl Fn(&RelocationEvent) -> bool) -> bool {
    events(m, node).into_iter().any(f)
}

/// Warms the caches of `senders` for `id`.
fn warm(m: &mut Mesh, senders: &[u64], kind: ObjectKind, id: &str) {
    for s in senders {
        assert!(matches!(
            m.node(*s).resolve(kind, id).expect("a valid id"),
            Resolution::ReadyRoute(_)
        ));
    }
}

// §3.3 step 1: "blocks new Actor application dispatch" -----------------------

#[test]
fn from_begin_relocation_on_nothing_is_delivered_on_the_source_and_all_of_it_on_the_target_once() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3, 4], ACTOR, "p");
    for i in 0..5 {
        m.send(3, ACTOR, "p", format!("before-{i}").as_bytes())
            .unwrap();
    }
    m.run();
    assert_eq!(delivered_on(&m, 1), 5);
    // The Restore is held in the network: the source stays sealed.
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    for i in 0..10 {
        m.send(3, ACTOR, "p", format!("a-{i}").as_bytes()).unwrap();
        m.request(4, ACTOR, "p", b"q", RequestOptions::default())
            .unwrap();
    }
    m.run();
    assert_eq!(delivered_on(&m, 1), 5, "nothing after the seal");
    assert_eq!(m.ledger.held, 20);
    assert_eq!(m.node(1).stats().relocation.held, 20);
    m.delay_when(None);
    m.release();
    m.run();
    assert_eq!(delivered_on(&m, 2), 20, "all of it on the target");
    assert_exactly_once(&m);
    assert_sender_order(&m);
    assert_eq!(m.ledger.completed.len(), 10);
    assert!(m.ledger.completed.iter().all(|(_, k)| *k == "Reply"));
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::HandedOff { .. }
    )));
    assert!(has_event(&m, 2, |e| matches!(
        e,
        RelocationEvent::Committed { .. }
    )));
    assert!(m.node(1).owned(key("p")).is_none());
    assert!(m.node(2).owned(key("p")).is_some());
}

fn key(id: &str) -> KeyRef<'_> {
    KeyRef { kind: ACTOR, id }
}

// §3.3 steps 2–5: the merge order ----------------------------------------------

#[test]
fn the_target_delivers_saved_work_then_the_pre_boundary_relay_then_later_arrivals() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    // The host accepted two operations and has not run them: it captures
    // them (what `Deliver` gave it) with the state.
    m.send(3, ACTOR, "p", b"saved-1").unwrap();
    m.send(3, ACTOR, "p", b"saved-2").unwrap();
    let saved: Vec<_> = (0..2)
        .map(|_| {
            let e = m.take_next().expect("in flight");
            match m.node(1).on_frame(e.from, &e.bytes) {
                Inbound::Deliver(d) => d.operation,
                other => panic!("expected Deliver, got {other:?}"),
            }
        })
        .collect();
    let saved_ids: Vec<_> = saved.iter().map(|op| op.operation_id).collect();
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    let capture = Capture {
        saved,
        state: b"counter=2".to_vec(),
    };
    m.begin_move_with(ACTOR, "p", 1, 2, capture).unwrap();
    m.send(3, ACTOR, "p", b"held").unwrap();
    m.run();
    m.delay_when(None);
    m.release();
    m.run();
    let on_target: Vec<_> = m
        .ledger
        .delivered
        .iter()
        .filter(|(_, at, _)| *at == NodeRid(2))
        .map(|(op, _, _)| *op)
        .collect();
    assert_eq!(on_target.len(), 3);
    assert_eq!(on_target[..2], saved_ids[..], "saved work first, in order");
    let restored = events(&m, 2)
        .into_iter()
        .find_map(|e| match e {
            RelocationEvent::Restore { state, .. } => Some(state.clone()),
            _ => None,
        })
        .expect("the target restored");
    assert_eq!(restored, b"counter=2");
}

// §3.3 "explicit relocation failure before relay-ready" -----------------------

#[test]
fn an_abort_before_relay_ready_unseals_the_source_which_delivers_its_held_work_in_order() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    for i in 0..6 {
        m.send(3, ACTOR, "p", format!("m{i}").as_bytes()).unwrap();
    }
    m.run();
    assert_eq!(delivered_on(&m, 1), 0);
    let reads = m.node(1).stats().store_reads;
    m.abort_move(ACTOR, "p", 1).unwrap();
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Aborting { .. }
    )));
    assert_eq!(delivered_on(&m, 1), 0, "sealed until the target confirms");
    m.run();
    assert_eq!(delivered_on(&m, 1), 6, "held work delivered once confirmed");
    assert_eq!(m.node(1).stats().store_reads, reads, "no store read");
    // The late Restore and the Abort reach the target: it discards.
    m.delay_when(None);
    m.release();
    m.run();
    assert_eq!(delivered_on(&m, 2), 0);
    assert!(m.node(1).owned(key("p")).is_some(), "the source still owns");
    assert!(m.node(2).owned(key("p")).is_none());
    assert!(has_event(&m, 2, |e| matches!(
        e,
        RelocationEvent::Ignored {
            refusal: Refusal::Ended,
            ..
        }
    )));
    assert_exactly_once(&m);
    assert_sender_order(&m);
    // A move after the abort works.
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"after").unwrap();
    m.run();
    assert_eq!(delivered_on(&m, 2), 1);
    assert_exactly_once(&m);
}

#[test]
fn a_target_whose_host_cannot_restore_aborts_and_the_source_runs_its_work() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.restore_mode(RestoreMode::Fail);
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    for _ in 0..3 {
        m.send(3, ACTOR, "p", b"x").unwrap();
    }
    m.run();
    m.delay_when(None);
    m.release();
    m.run();
    assert_eq!(delivered_on(&m, 1), 3);
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Aborted {
            reason: AbortReason::RestoreFailed,
            ..
        }
    )));
    assert_exactly_once(&m);
}

#[test]
fn no_relay_ready_within_the_relocation_timeout_unseals_the_source_and_the_target_discards() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.restore_mode(RestoreMode::Ignore);
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.request(3, ACTOR, "p", b"q", RequestOptions::default())
        .unwrap();
    m.run();
    assert_eq!(delivered_on(&m, 1), 0);
    m.advance(Duration::from_millis(4_999));
    assert_eq!(delivered_on(&m, 1), 0, "not before the timeout");
    m.advance(Duration::from_millis(1));
    m.run();
    assert_eq!(delivered_on(&m, 1), 2);
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Aborted {
            reason: AbortReason::Timeout,
            ..
        }
    )));
    assert!(has_event(&m, 2, |e| matches!(
        e,
        RelocationEvent::Aborted { .. }
    )));
    assert_eq!(m.node(2).stats().tables.relocation_targets, 0);
    assert_eq!(m.node(1).stats().tables.relocation_sources, 0);
    assert_exactly_once(&m);
}

#[test]
fn a_relay_ready_that_crosses_the_sources_abort_is_withdrawn_and_never_commits() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    // The relay-ready is slow: the source's host gives up first.
    m.delay_when(Some(Box::new(|e| command(e) == 46)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    m.abort_move(ACTOR, "p", 1).unwrap();
    m.run();
    assert_eq!(delivered_on(&m, 1), 1, "confirmed: delivered on the source");
    m.delay_when(None);
    m.release();
    m.run();
    m.advance(Duration::from_secs(2));
    m.run();
    assert!(
        m.node(2).owned(key("p")).is_none(),
        "the target never commits"
    );
    assert!(m.node(1).owned(key("p")).is_some());
    assert_exactly_once(&m);
}

#[test]
fn a_source_that_gives_up_after_the_target_committed_on_its_timer_hands_off_instead() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    // Relay-ready never reaches the source; the target commits 1,000 ms
    // after it, and the source's abort finds it committed.
    m.drop_when(Some(Box::new(|e| command(e) == 46)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    m.advance(Duration::from_secs(5));
    m.run();
    assert!(m.node(2).owned(key("p")).is_some());
    assert!(m.node(1).owned(key("p")).is_none());
    assert_eq!(delivered_on(&m, 2), 1, "the held work followed the object");
    assert_eq!(delivered_on(&m, 1), 0);
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::HandedOff { .. }
    )));
    assert_exactly_once(&m);
}

#[test]
fn a_source_whose_target_never_answers_its_abort_fences_the_store_before_it_unseals() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    let before = m.node(1).owned(key("p")).unwrap();
    m.restore_mode(RestoreMode::Ignore);
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run();
    m.kill(2);
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    m.advance(Duration::from_secs(5));
    m.run();
    assert_eq!(delivered_on(&m, 1), 0, "aborting: still sealed");
    m.advance(Duration::from_secs(5));
    m.run();
    assert_eq!(delivered_on(&m, 1), 1, "fenced, then unsealed");
    let after = m.node(1).owned(key("p")).unwrap();
    assert_eq!(
        after.authority_owner_generation,
        before.authority_owner_generation.next(),
        "a new tenure no old CAS can take"
    );
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Aborted {
            reason: AbortReason::Timeout,
            ..
        }
    )));
    assert_exactly_once(&m);
}

// §3.3 step 4: "on cutover or 1,000 ms after relay-ready" ---------------------

#[test]
fn a_lost_cutover_commits_1000_ms_after_relay_ready() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.drop_when(Some(Box::new(|e| command(e) == 47)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    assert_eq!(m.ledger.delivered.len(), 0);
    m.advance(Duration::from_millis(999));
    m.run();
    assert!(m.node(2).owned(key("p")).is_none());
    m.advance(Duration::from_millis(1));
    m.run();
    assert!(
        m.node(2).owned(key("p")).is_some(),
        "committed by the timer"
    );
    assert_eq!(delivered_on(&m, 2), 1);
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::HandedOff { .. }
    )));
    assert_exactly_once(&m);
}

// "The owner CAS fails (object moved or released meanwhile)" -------------------

#[test]
fn a_refused_owner_cas_ends_the_held_work_unavailable_and_runs_it_nowhere() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.delay_when(Some(Box::new(|e| command(e) == 47)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run();
    // Relay-ready accepted: the source relays what comes, behind the
    // (delayed) cutover.
    for _ in 0..3 {
        m.send(3, ACTOR, "p", b"x").unwrap();
        m.request(3, ACTOR, "p", b"q", RequestOptions::default())
            .unwrap();
    }
    m.run();
    // Meanwhile the object is taken by another node behind the target's
    // back: the target's CAS will find another authority.
    let owned = m.store_record(ACTOR, "p").expect("a record");
    m.force_transfer(ACTOR, "p", owned, 4);
    m.delay_when(None);
    m.release();
    m.run();
    assert_eq!(m.ledger.delivered.len(), 0, "run nowhere");
    assert_eq!(m.ledger.ended.len(), 3);
    assert!(
        m.ledger
            .ended
            .iter()
            .all(|(_, f)| *f == Failure::Unavailable(UnavailableReason::RelocationFailed))
    );
    assert_eq!(
        m.ledger
            .completed
            .iter()
            .filter(|(_, k)| *k == "Error")
            .count(),
        3
    );
    assert!(has_event(&m, 2, |e| matches!(
        e,
        RelocationEvent::Failed {
            reason: AbortReason::CommitFailed,
            ..
        }
    )));
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Failed { .. }
    )));
    assert_exactly_once(&m);
}

// "A target process that dies after relay-ready" ------------------------------

#[test]
fn a_target_that_dies_after_relay_ready_leaves_work_ended_never_run_twice() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    // Node 2 dies right after it sent relay-ready: the cutover never
    // reaches it and it never commits.
    m.drop_when(Some(Box::new(|e| command(e) == 47)));
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run();
    m.kill(2);
    let timeout = RequestOptions {
        timeout: Duration::from_secs(2),
        ..RequestOptions::default()
    };
    m.request(3, ACTOR, "p", b"q", timeout.clone()).unwrap();
    m.run();
    m.advance(Duration::from_secs(2));
    m.run();
    assert_eq!(m.ledger.completed, [(m.ledger.completed[0].0, "Timeout")]);
    // The source hears no commit (it waits longer than the target could
    // retry its CAS): its side ends; what comes next is refused.
    m.advance(Duration::from_secs(8));
    assert!(!has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Failed { .. }
    )));
    m.advance(Duration::from_secs(1));
    m.run();
    assert!(has_event(&m, 1, |e| matches!(
        e,
        RelocationEvent::Failed {
            reason: AbortReason::Timeout,
            ..
        }
    )));
    m.request(3, ACTOR, "p", b"q", timeout).unwrap();
    m.run();
    assert_eq!(m.ledger.completed.len(), 2);
    assert_eq!(m.ledger.completed[1].1, "Error");
    assert_eq!(m.ledger.delivered.len(), 0);
    assert_exactly_once(&m);
}

// §4 of the issue: invariants under load --------------------------------------

/// Sends from `senders` to `id`, `rounds` times, a one-way message and a
/// request each, stepping the network `steps` frames between rounds.
fn traffic(m: &mut Mesh, senders: &[u64], kind: ObjectKind, id: &str, rounds: usize, steps: usize) {
    for _ in 0..rounds {
        for s in senders {
            m.send(*s, kind, id, b"m").expect("valid input");
            m.request(*s, kind, id, b"r", RequestOptions::default())
                .expect("valid input");
        }
        for _ in 0..steps {
            m.step();
        }
    }
}

#[test]
fn moves_back_and_forth_under_load_deliver_everything_once_in_sender_order() {
    let mut m = mesh(6);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[4, 5, 6], ACTOR, "p");
    for (from, to) in [(1, 2), (2, 1), (1, 3)] {
        traffic(&mut m, &[4, 5, 6], ACTOR, "p", 5, 3);
        m.begin_move(ACTOR, "p", from, to).unwrap();
        traffic(&mut m, &[4, 5, 6], ACTOR, "p", 10, 2);
        m.run();
        traffic(&mut m, &[4, 5, 6], ACTOR, "p", 5, 4);
    }
    m.run();
    m.advance(Duration::from_secs(31));
    m.run();
    assert!(m.node(3).owned(key("p")).is_some());
    assert_exactly_once(&m);
    // Order holds on every path (same hops); a Message Follow detour of
    // an earlier move may be overtaken by the direct route (§2.5).
    assert!(
        m.ledger.order_violations().is_empty(),
        "{:?}",
        m.ledger.order_violations()
    );
    let requests = 3 * 3 * 20;
    assert_eq!(m.ledger.completed.len(), requests);
    assert_eq!(
        m.ledger.delivered.len() + m.ledger.ended.len(),
        2 * requests
            - m.ledger
                .completed
                .iter()
                .filter(|(_, k)| *k != "Reply")
                .count()
    );
}

#[test]
fn two_objects_moving_at_once_keep_their_own_queues() {
    let mut m = mesh(5);
    m.activate(1, ACTOR, "p").unwrap();
    m.activate(2, ACTOR, "q").unwrap();
    warm(&mut m, &[4, 5], ACTOR, "p");
    warm(&mut m, &[4, 5], ACTOR, "q");
    m.begin_move(ACTOR, "p", 1, 3).unwrap();
    m.begin_move(ACTOR, "q", 2, 3).unwrap();
    traffic(&mut m, &[4, 5], ACTOR, "p", 8, 2);
    traffic(&mut m, &[4, 5], ACTOR, "q", 8, 2);
    m.run();
    assert!(m.node(3).owned(key("p")).is_some());
    assert!(m.node(3).owned(key("q")).is_some());
    assert_exactly_once(&m);
    assert_sender_order(&m);
}

#[test]
fn per_actor_a_spot_moving_while_an_actor_of_the_same_id_moves_elsewhere_keeps_each_route() {
    // §5 PerActor: ToSpot uses Spot authority and ToActor the per-Actor
    // owner; their temporary queues are registered and switched on their
    // own, even under one ID.
    let mut m = mesh(5);
    m.activate(1, SPOT, "room").unwrap();
    m.activate(1, ACTOR, "room").unwrap();
    warm(&mut m, &[4, 5], SPOT, "room");
    warm(&mut m, &[4, 5], ACTOR, "room");
    m.delay_when(Some(Box::new(|e| {
        relocation_frame(e).is_some_and(|f| f.identity().key.kind() == ObjectKind::Actor)
    })));
    m.begin_move(ACTOR, "room", 1, 3).unwrap();
    m.begin_move(SPOT, "room", 1, 2).unwrap();
    traffic(&mut m, &[4, 5], SPOT, "room", 4, 2);
    traffic(&mut m, &[4, 5], ACTOR, "room", 4, 2);
    m.run();
    // The Spot moved; the Actor is still sealed on the source.
    assert!(
        m.node(2)
            .owned(KeyRef {
                kind: SPOT,
                id: "room"
            })
            .is_some()
    );
    assert!(m.node(1).owned(key("room")).is_some());
    let actor_deliveries = m
        .ledger
        .delivered
        .iter()
        .filter(|(op, _, _)| m.ledger.sent.contains_key(op))
        .count();
    assert_eq!(actor_deliveries, 16, "only the Spot's work ran so far");
    m.delay_when(None);
    m.release();
    m.run();
    assert!(m.node(3).owned(key("room")).is_some());
    assert_eq!(m.ledger.delivered.len(), 32);
    assert_exactly_once(&m);
    assert_sender_order(&m);
}

#[test]
fn a_move_with_lost_and_reordered_notifications_still_delivers_everything_once() {
    let mut m = mesh(5);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[4, 5], ACTOR, "p");
    m.drop_when(Some(Box::new(|e| e.carried == Carried::Notice)));
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    for round in 0..6 {
        traffic(&mut m, &[4, 5], ACTOR, "p", 2, 1);
        if round == 3 {
            m.begin_move(ACTOR, "p", 2, 3).unwrap();
        }
        m.reorder();
    }
    m.run();
    m.advance(Duration::from_secs(31));
    m.run();
    assert_exactly_once(&m);
    assert!(m.node(3).owned(key("p")).is_some());
}

// Bad input -------------------------------------------------------------------

#[test]
fn a_second_begin_of_the_same_object_is_a_typed_error_and_changes_nothing() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    let first = m.begin_move(ACTOR, "p", 1, 2).unwrap();
    assert!(matches!(
        m.begin_move(ACTOR, "p", 1, 3),
        Err(RelocationError::AlreadyRelocating(_))
    ));
    assert!(matches!(
        m.begin_move(ACTOR, "p", 1, 1),
        Err(RelocationError::TargetIsSelf)
    ));
    assert!(matches!(
        m.begin_move(ACTOR, "nobody", 1, 2),
        Err(RelocationError::NotOwned(_))
    ));
    m.delay_when(None);
    m.release();
    m.run();
    assert!(m.node(2).owned(key("p")).is_some());
    assert!(has_event(&m, 2, |e| matches!(
        e,
        RelocationEvent::Committed { identity, .. } if *identity == first
    )));
}

#[test]
fn a_state_over_the_bound_is_refused_before_anything_is_sealed() {
    let config = RoutingConfig {
        max_relocation_state_bytes: 8,
        ..RoutingConfig::default()
    };
    let mut m = Mesh::new(2, config).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    let capture = Capture {
        saved: Vec::new(),
        state: vec![0; 9],
    };
    assert_eq!(
        m.begin_move_with(ACTOR, "p", 1, 2, capture),
        Err(RelocationError::StateTooLarge { len: 9, max: 8 })
    );
    m.send(1, ACTOR, "p", b"x").unwrap();
    m.run();
    assert_eq!(delivered_on(&m, 1), 1, "not sealed");
}

#[test]
fn a_restore_with_a_corrupted_checksum_is_dropped_and_the_source_unseals_on_its_timeout() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.delay_when(Some(Box::new(|e| command(e) == 45)));
    let capture = Capture {
        saved: Vec::new(),
        state: b"state".to_vec(),
    };
    m.begin_move_with(ACTOR, "p", 1, 2, capture).unwrap();
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    m.delay_when(None);
    m.corrupt_delayed(|bytes| {
        let last = bytes.len() - 5;
        bytes[last] ^= 0xff; // a state byte: the checksum no longer matches
    });
    m.release();
    m.run();
    assert_eq!(m.node(2).stats().follow.frames_dropped, 1);
    assert!(m.node(2).owned(key("p")).is_none());
    m.advance(Duration::from_secs(5));
    m.run();
    assert_eq!(delivered_on(&m, 1), 1, "nothing lost");
    assert_exactly_once(&m);
}

#[test]
fn cutover_before_relay_ready_duplicated_and_foreign_control_frames_change_nothing() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], ACTOR, "p");
    m.restore_mode(RestoreMode::Ignore);
    let identity = m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run();
    let source = m.node(1).node_ref();
    let target = m.node(2).node_ref();
    let to_target = |f: RelocationFrame| wire::encode(&Frame::Relocation(f));
    // A cutover before relay-ready: refused, counted.
    let early = to_target(RelocationFrame::Cutover {
        identity: identity.clone(),
        source,
        relayed: 0,
    });
    let refused = |inbound: Inbound, want: Refusal| match inbound {
        Inbound::Relocation(RelocationAction {
            event: RelocationEvent::Ignored { refusal, .. },
            ..
        }) => assert_eq!(refusal, want),
        other => panic!("expected Ignored({want:?}), got {other:?}"),
    };
    refused(
        m.node(2).on_frame(NodeRid(1), &early),
        Refusal::NotRelayReady,
    );
    // Another relocation of the same object: refused.
    let mut other = identity.clone();
    other.relocation = RelocationId(identity.relocation.get() ^ 2);
    let foreign = to_target(RelocationFrame::Cutover {
        identity: other.clone(),
        source,
        relayed: 0,
    });
    refused(
        m.node(2).on_frame(NodeRid(1), &foreign),
        Refusal::WrongRelocation,
    );
    // From the wrong node: refused before it touches anything.
    assert!(matches!(
        m.node(2).on_frame(NodeRid(3), &early),
        Inbound::ForeignSender { .. }
    ));
    // A commit notice no target sent: the source ignores it.
    let fake = wire::encode(&Frame::Relocation(RelocationFrame::Committed {
        identity: identity.clone(),
        target: m.node(3).node_ref(),
        destination: m
            .node(1)
            .owner_route_end(ACTOR, "p")
            .unwrap()
            .unwrap()
            .fence,
    }));
    refused(
        m.node(1).on_frame(NodeRid(3), &fake),
        Refusal::NotRelocating,
    );
    // The real one goes on.
    let ready = m.node(2).relocation_restored(ACTOR, "p").unwrap();
    // A duplicated relay-ready: the second is refused.
    let first = m.node(1).on_frame(NodeRid(2), &ready[0].bytes);
    assert!(matches!(
        first,
        Inbound::Relocation(RelocationAction {
            event: RelocationEvent::Cutover { .. },
            ..
        })
    ));
    refused(
        m.node(1).on_frame(NodeRid(2), &ready[0].bytes),
        Refusal::AlreadyRelayReady,
    );
    assert!(m.node(1).stats().relocation.control_refused >= 2);
    assert!(m.node(2).stats().relocation.control_refused >= 2);
    let _ = target;
}
