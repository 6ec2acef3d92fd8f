//! Rules of the relocation handoff queues (§2.5, §3.3), one test per rule,
//! and a property-style run over many interleavings.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use super::*;
use crate::clock::{Clock, ManualClock};
use crate::ids::{
    AuthorityOwnerGeneration, CorrelationId, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    ObjectKind, OperationId, OwnerLeaseGeneration, RelocationId, StoreVersion,
};
use crate::route::RouteFence;
use crate::wire::{NodeRef, ReplyRoute};

const GEN: ObjectGeneration = ObjectGeneration(3);

fn key(kind: ObjectKind, id: &str) -> ObjectKey {
    ObjectKey::new(kind, id).expect("valid id")
}

fn actor() -> ObjectKey {
    key(ObjectKind::Actor, "actor-1")
}

fn spot() -> ObjectKey {
    key(ObjectKind::Spot, "room-1")
}

fn identity(key: ObjectKey) -> RelocationIdentity {
    RelocationIdentity {
        relocation: RelocationId(7),
        key,
        object_generation: GEN,
    }
}

fn node(rid: u64) -> NodeRef {
    NodeRef {
        mesh: MeshName::new("m").expect("valid mesh"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
    }
}

/// An operation for `target` of incarnation `generation`; odd ids are
/// requests (with a reply route), even ids one-way messages.
fn op_for(target: &ObjectKey, id: u64, generation: ObjectGeneration) -> Operation {
    Operation {
        operation_id: OperationId(id),
        target: target.clone(),
        origin: node(100 + id % 3),
        to_node: NodeRid(1),
        fence: RouteFence {
            object_generation: generation,
            authority_owner_generation: AuthorityOwnerGeneration(4),
            owner_lease_generation: OwnerLeaseGeneration(5),
            node_generation: NodeGeneration(1),
            store_version: StoreVersion(9),
        },
        object_generation: generation,
        hop_count: 0,
        relayer: None,
        reply_route: (id % 2 == 1).then(|| ReplyRoute {
            node: node(100 + id % 3),
            correlation: CorrelationId(1000 + id),
        }),
        payload: id.to_be_bytes().to_vec(),
    }
}

fn op(id: u64) -> Operation {
    op_for(&actor(), id, GEN)
}

fn ids(ops: &[Operation]) -> Vec<u64> {
    ops.iter().map(|o| o.operation_id.get()).collect()
}

fn dispatched(step: TargetStep) -> Vec<Operation> {
    match step {
        TargetStep::Dispatch(ops) => ops,
        other => panic!("expected Dispatch, got {other:?}"),
    }
}

fn relayed(step: SourceStep) -> Vec<Operation> {
    match step {
        SourceStep::Relay(ops) => ops,
        other => panic!("expected Relay, got {other:?}"),
    }
}

fn refusal_of_source(step: SourceStep) -> Refused {
    match step {
        SourceStep::Refused(r) => r,
        other => panic!("expected Refused, got {other:?}"),
    }
}

fn refusal_of_target(step: TargetStep) -> Refused {
    match step {
        TargetStep::Refused(r) => r,
        other => panic!("expected Refused, got {other:?}"),
    }
}

/// A target taken to relay-ready with `saved` restored.
fn ready_target(saved: Vec<Operation>, now: MonoTime) -> RelocationTarget {
    let id = identity(actor());
    let mut target = RelocationTarget::register(id.clone());
    assert_eq!(target.restore(&id, saved), TargetStep::Restored);
    assert_eq!(target.relay_ready(&id, now), TargetStep::RelayReady);
    target
}

#[test]
fn merge_puts_saved_work_before_the_temporary_queue_each_in_arrival_order() {
    let id = identity(actor());
    let mut target = RelocationTarget::register(id.clone());
    // The queue exists before the instance: an arrival before Restore is
    // kept, not refused.
    assert_eq!(target.on_arrival(op(10)), TargetStep::Queued);
    assert_eq!(
        target.restore(&id, vec![op(1), op(2), op(3)]),
        TargetStep::Restored
    );
    assert_eq!(target.relay_ready(&id, MonoTime(0)), TargetStep::RelayReady);
    for n in [11, 12, 13] {
        assert_eq!(target.on_arrival(op(n)), TargetStep::Queued);
    }
    assert_eq!(ids(target.temporary()), [10, 11, 12, 13]);
    let merged = dispatched(target.switch(&id));
    assert_eq!(ids(&merged), [1, 2, 3, 10, 11, 12, 13]);
    assert_eq!(target.phase(), TargetPhase::Dispatching);
    assert!(target.temporary().is_empty() && target.saved_work().is_empty());
    // Normal dispatch from now on: one arrival, dispatched directly.
    assert_eq!(ids(&dispatched(target.on_arrival(op(14)))), [14]);
}

#[test]
fn temporary_queue_is_registered_before_the_instance_and_removed_by_the_switch() {
    let mut queues = RelocationQueues::new();
    let id = identity(actor());
    // No registration yet: the operation is not the relocation's business.
    assert_eq!(
        queues.target_arrival(op(1)),
        TargetStep::NotRelocating(op(1))
    );
    assert_eq!(queues.register_target(id.clone()), TargetStep::Registered);
    assert_eq!(queues.target_arrival(op(2)), TargetStep::Queued);
    assert_eq!(
        queues.target_restore(&id, vec![op(0)]),
        TargetStep::Restored
    );
    assert_eq!(
        queues.target_relay_ready(&id, MonoTime(0)),
        TargetStep::RelayReady
    );
    assert_eq!(ids(&dispatched(queues.target_switch(&id))), [0, 2]);
    assert!(queues.target(&id.key).is_none(), "registration removed");
    assert_eq!(
        queues.target_arrival(op(3)),
        TargetStep::NotRelocating(op(3))
    );
    assert!(queues.is_empty());
}

#[test]
fn relay_keeps_operation_identity_generation_payload_and_reply_route() {
    let id = identity(actor());
    let mut source = RelocationSource::seal(id.clone(), vec![op(1)]);
    let (a, b, c) = (op(3), op(4), op(5));
    assert!(a.reply_route.is_some() && b.reply_route.is_none());
    assert_eq!(source.on_arrival(a.clone()), SourceStep::Held);
    assert_eq!(source.on_arrival(b.clone()), SourceStep::Held);
    assert_eq!(source.held(), [a.clone(), b.clone()]);
    // The hold is relayed unchanged, in arrival order.
    assert_eq!(
        relayed(source.on_relay_ready(&id)),
        vec![a.clone(), b.clone()]
    );
    // Later arrivals are relayed one by one, unchanged.
    assert_eq!(relayed(source.on_arrival(c.clone())), vec![c.clone()]);
    assert_eq!(source.relayed(), 3);
    // The saved work was handed off with Restore; none is left to restore.
    assert!(source.saved_work().is_empty());

    let mut target = ready_target(vec![op(1)], MonoTime(0));
    for o in [a.clone(), b.clone(), c.clone()] {
        assert_eq!(target.on_arrival(o), TargetStep::Queued);
    }
    assert_eq!(dispatched(target.switch(&id)), vec![op(1), a, b, c]);
}

#[test]
fn failure_before_relay_ready_restores_the_source_in_order_and_releases_the_seal() {
    let mut queues = RelocationQueues::new();
    let id = identity(actor());
    assert_eq!(
        queues.seal_source(id.clone(), vec![op(1), op(2)]),
        SourceStep::Sealed
    );
    assert_eq!(queues.source_arrival(op(3)), SourceStep::Held);
    assert_eq!(queues.source_arrival(op(4)), SourceStep::Held);
    match queues.source_fail(&id) {
        SourceStep::Restore(work) => assert_eq!(ids(&work), [1, 2, 3, 4]),
        other => panic!("expected Restore, got {other:?}"),
    }
    // The seal is gone: the next operation is dispatched normally.
    assert!(queues.source(&id.key).is_none());
    assert_eq!(
        queues.source_arrival(op(5)),
        SourceStep::NotRelocating(op(5))
    );
    // A late relay-ready of the failed relocation changes nothing.
    assert_eq!(
        refusal_of_source(queues.source_relay_ready(&id)).reason,
        Refusal::NotRelocating
    );
}

#[test]
fn failure_before_relay_ready_discards_the_temporary_queue_and_hands_its_work_back() {
    let id = identity(actor());
    let mut target = RelocationTarget::register(id.clone());
    assert_eq!(target.on_arrival(op(8)), TargetStep::Queued);
    assert_eq!(target.restore(&id, vec![op(1)]), TargetStep::Restored);
    assert_eq!(target.fail(&id), TargetStep::Discarded(vec![op(8)]));
    assert_eq!(target.phase(), TargetPhase::Discarded);
    assert!(
        target.saved_work().is_empty(),
        "the source restores the original"
    );
    assert_eq!(target.on_arrival(op(9)), TargetStep::NotRelocating(op(9)));
    assert_eq!(
        refusal_of_target(target.relay_ready(&id, MonoTime(0))).reason,
        Refusal::Ended
    );
}

#[test]
fn no_rollback_after_relay_ready_on_either_side() {
    let id = identity(actor());
    let mut source = RelocationSource::seal(id.clone(), vec![op(1)]);
    assert_eq!(source.on_arrival(op(2)), SourceStep::Held);
    let _ = relayed(source.on_relay_ready(&id));
    let refused = refusal_of_source(source.fail(&id));
    assert_eq!(refused.reason, Refusal::AfterRelayReady);
    assert!(refused.returned.is_empty());
    assert_eq!(source.phase(), SourcePhase::Relaying, "nothing changed");
    assert_eq!(source.cutover(&id), SourceStep::Cutover);
    assert_eq!(
        refusal_of_source(source.fail(&id)).reason,
        Refusal::AfterRelayReady
    );
    // After cutover, arrivals keep going to the target, never back home.
    assert_eq!(ids(&relayed(source.on_arrival(op(3)))), [3]);

    let mut target = ready_target(vec![op(1)], MonoTime(0));
    assert_eq!(target.on_arrival(op(2)), TargetStep::Queued);
    assert_eq!(
        refusal_of_target(target.fail(&id)).reason,
        Refusal::AfterRelayReady
    );
    assert_eq!(target.phase(), TargetPhase::RelayReady);
    assert_eq!(ids(target.temporary()), [2], "temporary queue kept");
    let _ = dispatched(target.switch(&id));
    assert_eq!(refusal_of_target(target.fail(&id)).reason, Refusal::Ended);
}

#[test]
fn commit_is_due_on_cutover() {
    let clock = ManualClock::new();
    let id = identity(actor());
    let mut target = ready_target(Vec::new(), clock.now());
    assert!(!target.commit_due(clock.now()));
    assert_eq!(target.on_cutover(&id), TargetStep::CommitDue);
    assert!(target.commit_due(clock.now()), "due at once, no waiting");
    assert_eq!(
        refusal_of_target(target.on_cutover(&id)).reason,
        Refusal::AlreadyCutOver
    );
    let _ = dispatched(target.switch(&id));
    assert!(!target.commit_due(clock.now()), "committed already");
    // A cutover after a switch is a harmless late marker.
    assert_eq!(
        refusal_of_target(target.on_cutover(&id)).reason,
        Refusal::Ended
    );
}

#[test]
fn commit_is_due_1000_ms_after_relay_ready_without_cutover() {
    assert_eq!(COMMIT_AFTER_RELAY_READY, Duration::from_millis(1_000));
    let clock = ManualClock::new();
    clock.advance(Duration::from_millis(250));
    let mut queues = RelocationQueues::new();
    let id = identity(actor());
    let _ = queues.register_target(id.clone());
    let _ = queues.target_restore(&id, Vec::new());
    // Not relay-ready: never due, however long it waits.
    clock.advance(Duration::from_secs(5));
    assert!(queues.target_commits_due(clock.now()).is_empty());
    assert_eq!(
        queues.target_relay_ready(&id, clock.now()),
        TargetStep::RelayReady
    );
    clock.advance(Duration::from_millis(999));
    assert!(queues.target_commits_due(clock.now()).is_empty());
    clock.advance(Duration::from_millis(1));
    assert_eq!(queues.target_commits_due(clock.now()), vec![id.clone()]);
    let _ = dispatched(queues.target_switch(&id));
    assert!(queues.target_commits_due(clock.now()).is_empty());
}

#[test]
fn spot_and_actor_queues_are_independent_and_switch_on_their_own() {
    let spot_id = identity(spot());
    let actor_id = RelocationIdentity {
        relocation: RelocationId(8),
        ..identity(actor())
    };
    let spot_op = |n| op_for(&spot(), n, GEN);

    // Source: the Spot moves; its Actor is not moving yet and keeps its
    // per-Actor route (ToActor), while ToSpot work is held.
    let mut source = RelocationQueues::new();
    assert_eq!(
        source.seal_source(spot_id.clone(), vec![spot_op(1)]),
        SourceStep::Sealed
    );
    assert_eq!(source.source_arrival(spot_op(2)), SourceStep::Held);
    assert_eq!(
        source.source_arrival(op(50)),
        SourceStep::NotRelocating(op(50))
    );
    // Then the Actor moves on its own relocation: its own seal and hold.
    assert_eq!(
        source.seal_source(actor_id.clone(), vec![op(51)]),
        SourceStep::Sealed
    );
    assert_eq!(source.source_arrival(op(52)), SourceStep::Held);
    assert_eq!(ids(source.source(&spot()).expect("spot").held()), [2]);
    assert_eq!(ids(source.source(&actor()).expect("actor").held()), [52]);

    // Target: two temporary queues, registered and filled independently.
    let mut target = RelocationQueues::new();
    let clock = ManualClock::new();
    for id in [&spot_id, &actor_id] {
        assert_eq!(target.register_target(id.clone()), TargetStep::Registered);
    }
    let _ = target.target_restore(&spot_id, vec![spot_op(1)]);
    let _ = target.target_restore(&actor_id, vec![op(51)]);
    let _ = target.target_relay_ready(&spot_id, clock.now());
    let _ = target.target_relay_ready(&actor_id, clock.now());
    for o in relayed(source.source_relay_ready(&spot_id)) {
        assert_eq!(target.target_arrival(o), TargetStep::Queued);
    }
    for o in relayed(source.source_relay_ready(&actor_id)) {
        assert_eq!(target.target_arrival(o), TargetStep::Queued);
    }
    assert_eq!(target.target_arrival(spot_op(3)), TargetStep::Queued);
    assert_eq!(target.target_arrival(op(53)), TargetStep::Queued);

    // The Spot's cutover makes only the Spot due; its switch leaves the
    // Actor's queue untouched and still collecting.
    assert_eq!(target.target_cutover(&spot_id), TargetStep::CommitDue);
    assert_eq!(
        target.target_commits_due(clock.now()),
        vec![spot_id.clone()]
    );
    assert_eq!(ids(&dispatched(target.target_switch(&spot_id))), [1, 2, 3]);
    assert_eq!(
        target.target_arrival(spot_op(4)),
        TargetStep::NotRelocating(spot_op(4))
    );
    assert_eq!(target.target_arrival(op(54)), TargetStep::Queued);
    assert_eq!(
        ids(target.target(&actor()).expect("actor queue").temporary()),
        [52, 53, 54]
    );
    // A Spot failure cannot touch the Actor, and the Spot's control does not
    // apply to the Actor's relocation.
    assert_eq!(
        refusal_of_target(target.target_fail(&spot_id)).reason,
        Refusal::NotRelocating
    );
    let mut spot_named_for_actor = spot_id.clone();
    spot_named_for_actor.key = actor();
    assert_eq!(
        refusal_of_target(target.target_switch(&spot_named_for_actor)).reason,
        Refusal::WrongRelocation
    );
    assert_eq!(
        ids(&dispatched(target.target_switch(&actor_id))),
        [51, 52, 53, 54]
    );
    assert!(target.is_empty());
}

#[test]
fn another_incarnation_is_refused_with_the_operation_given_back() {
    let id = identity(actor());
    let mut source = RelocationSource::seal(id.clone(), Vec::new());
    let stale = op_for(&actor(), 1, ObjectGeneration(2));
    let refused = refusal_of_source(source.on_arrival(stale.clone()));
    assert_eq!(refused.reason, Refusal::WrongIncarnation);
    assert_eq!(refused.returned, vec![stale.clone()]);
    assert!(source.held().is_empty());
    let other = op_for(&spot(), 2, GEN);
    assert_eq!(
        refusal_of_source(source.on_arrival(other)).reason,
        Refusal::WrongTarget
    );

    let mut target = RelocationTarget::register(id.clone());
    let refused = refusal_of_target(target.on_arrival(stale.clone()));
    assert_eq!(refused.reason, Refusal::WrongIncarnation);
    assert_eq!(refused.returned, vec![stale]);
    assert!(target.temporary().is_empty());

    // Control of another incarnation or relocation changes nothing.
    let new_incarnation = RelocationIdentity {
        object_generation: ObjectGeneration(4),
        ..id.clone()
    };
    let other_relocation = RelocationIdentity {
        relocation: RelocationId(99),
        ..id.clone()
    };
    assert_eq!(
        refusal_of_source(source.fail(&new_incarnation)).reason,
        Refusal::WrongIncarnation
    );
    assert_eq!(
        refusal_of_source(source.on_relay_ready(&other_relocation)).reason,
        Refusal::WrongRelocation
    );
    assert_eq!(source.phase(), SourcePhase::Sealed);
    let refused = refusal_of_target(target.restore(&new_incarnation, vec![op(1)]));
    assert_eq!(refused.reason, Refusal::WrongIncarnation);
    assert_eq!(ids(&refused.returned), [1], "saved work given back");
    assert_eq!(
        refusal_of_target(target.fail(&other_relocation)).reason,
        Refusal::WrongRelocation
    );
    assert_eq!(target.phase(), TargetPhase::Registered);
}

#[test]
fn saved_work_is_restored_once_and_calls_out_of_order_are_refused() {
    let id = identity(actor());
    let mut target = RelocationTarget::register(id.clone());
    assert_eq!(
        refusal_of_target(target.relay_ready(&id, MonoTime(0))).reason,
        Refusal::NotRestored
    );
    assert_eq!(
        refusal_of_target(target.switch(&id)).reason,
        Refusal::NotRestored
    );
    assert_eq!(target.restore(&id, vec![op(1)]), TargetStep::Restored);
    let again = refusal_of_target(target.restore(&id, vec![op(2)]));
    assert_eq!(again.reason, Refusal::AlreadyRestored);
    assert_eq!(ids(&again.returned), [2]);
    assert_eq!(ids(target.saved_work()), [1]);
    assert_eq!(
        refusal_of_target(target.on_cutover(&id)).reason,
        Refusal::NotRelayReady
    );
    assert_eq!(
        refusal_of_target(target.switch(&id)).reason,
        Refusal::NotRelayReady
    );
    assert_eq!(target.relay_ready(&id, MonoTime(0)), TargetStep::RelayReady);
    assert_eq!(
        refusal_of_target(target.relay_ready(&id, MonoTime(0))).reason,
        Refusal::AlreadyRelayReady
    );

    let mut source = RelocationSource::seal(id.clone(), Vec::new());
    assert_eq!(
        refusal_of_source(source.cutover(&id)).reason,
        Refusal::NotRelayReady
    );
    assert_eq!(
        refusal_of_source(source.finish(&id)).reason,
        Refusal::NotRelayReady
    );
    assert_eq!(relayed(source.on_relay_ready(&id)), Vec::new());
    assert_eq!(
        refusal_of_source(source.on_relay_ready(&id)).reason,
        Refusal::AlreadyRelayReady
    );
    assert_eq!(source.cutover(&id), SourceStep::Cutover);
    assert_eq!(
        refusal_of_source(source.cutover(&id)).reason,
        Refusal::AlreadyCutOver
    );
    assert_eq!(source.finish(&id), SourceStep::Finished);
    assert_eq!(source.on_arrival(op(3)), SourceStep::NotRelocating(op(3)));
    assert_eq!(refusal_of_source(source.finish(&id)).reason, Refusal::Ended);
}

#[test]
fn a_second_relocation_of_the_same_object_is_refused_and_its_work_given_back() {
    let mut queues = RelocationQueues::new();
    let id = identity(actor());
    assert_eq!(
        queues.seal_source(id.clone(), vec![op(1)]),
        SourceStep::Sealed
    );
    let refused = refusal_of_source(queues.seal_source(id.clone(), vec![op(2)]));
    assert_eq!(refused.reason, Refusal::AlreadyRelocating);
    assert_eq!(ids(&refused.returned), [2]);
    assert_eq!(ids(queues.source(&id.key).expect("kept").saved_work()), [1]);
    assert_eq!(queues.register_target(id.clone()), TargetStep::Registered);
    assert_eq!(
        refusal_of_target(queues.register_target(id)).reason,
        Refusal::AlreadyRelocating
    );
}

/// The randomised end-to-end run of both queues.
mod sim;
