//! Contract tests for spec §5 "Move And Message Follow" (every bullet but
//! the PerActor one, which belongs to the session work) and the §2.5 rules
//! behind them: one test per bullet part, named after it, all on a
//! `ManualClock` through the public surface. Frames are carried by hand
//! (`Runtime::send` → `on_frame` → …) so each test sees every byte; the
//! mesh harness is used where many frames make the point.

mod cluster;

use std::time::Duration;

use cluster::{Cluster, ready, sender};
use zlink_core::mesh::{Carried, Mesh};
use zlink_core::wire::{
    self, DecodeLimits, Frame, MessageFollowFrame, Operation, RejectionCode, ReplyRoute, RouteEnd,
};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// A committed relocation with Message Follow, by the relocation protocol:
/// the target's owner CAS, then the source's follow route to the target's
/// new tenure. Returns the route's (source, destination) ends.
fn relocate(c: &Cluster, id: &str, from: u64, to: u64) -> (RouteEnd, RouteEnd) {
    let source = c
        .node(from)
        .owner_route_end(ACTOR, id)
        .expect("a valid id")
        .expect("the source owns it");
    c.relocate(ACTOR, id, from, to);
    let destination = c
        .node(to)
        .owner_route_end(ACTOR, id)
        .expect("a valid id")
        .expect("the target owns it");
    (source, destination)
}

fn decode(bytes: &[u8]) -> Frame {
    wire::decode(bytes, &DecodeLimits::default()).expect("a valid frame")
}

fn operation(frame: Frame) -> Operation {
    match frame {
        Frame::Message(op) | Frame::Request(op) => op,
        other => panic!("expected an operation frame, got {other:?}"),
    }
}

fn follow_frame(bytes: &[u8]) -> MessageFollowFrame {
    match decode(bytes) {
        Frame::MessageFollow(f) => f,
        other => panic!("expected command 50, got {other:?}"),
    }
}

/// Node `from` sends a one-way message to actor `id`.
fn send(c: &Cluster, from: u64, id: &str, payload: &[u8]) -> (OperationId, Outbound) {
    match c
        .node(from)
        .send(ACTOR, id, payload, SendOptions::default())
        .expect("a valid send")
    {
        Sent::Submitted {
            operation_id,
            outbound,
        } => (operation_id, outbound),
        other => panic!("expected Submitted, got {other:?}"),
    }
}

fn relayed(inbound: Inbound) -> (Outbound, Option<Notice>) {
    match inbound {
        Inbound::Relay { forward, notice } => (forward, notice),
        other => panic!("expected Relay, got {other:?}"),
    }
}

fn rejected(inbound: Inbound) -> Outbound {
    match inbound {
        Inbound::Reject(outbound) => outbound,
        other => panic!("expected Reject, got {other:?}"),
    }
}

fn delivered(inbound: Inbound) -> Delivery {
    match inbound {
        Inbound::Deliver(d) => d,
        other => panic!("expected Deliver, got {other:?}"),
    }
}

fn ended(inbound: Inbound) -> Ended {
    match inbound {
        Inbound::Ended(e) => e,
        other => panic!("expected Ended, got {other:?}"),
    }
}

fn rejection_code(outbound: &Outbound) -> RejectionCode {
    match decode(&outbound.bytes) {
        Frame::Rejection(r) => r.code,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

/// A request built by hand, as a requester would put it on the wire: node
/// `from` asks actor `id` on `route`, with a reply route back to itself.
fn request(c: &Cluster, from: u64, id: &str, route: &ReadyRoute, payload: &[u8]) -> Operation {
    Operation {
        operation_id: OperationId(0x0123_4567_89ab_cdef),
        target: ObjectKey::new(ACTOR, id).expect("a valid id"),
        origin: c.node(from).node_ref(),
        to_node: route.route.node,
        fence: route.fence,
        object_generation: route.fence.object_generation,
        hop_count: 0,
        relayer: None,
        reply_route: Some(ReplyRoute {
            node: c.node(from).node_ref(),
            correlation: CorrelationId(42),
        }),
        payload: payload.to_vec(),
    }
}

/// Node 1 owns actor `id`; node 3 holds a cached route to it.
fn warmed(c: &Cluster, id: &str) -> ReadyRoute {
    c.node(1).activate(ACTOR, id).expect("activation");
    ready(c.node(3).resolve(ACTOR, id).expect("a valid id"))
}

// Bullet 1: "A Message Follow relay only uses a committed route, doesn't read
// the Store, and preserves operation ID, generation, payload, and reply
// route." --------------------------------------------------------------------

#[test]
fn a_message_follow_relay_only_uses_a_committed_route() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, stale_p) = send(&c, 3, "p", b"p");

    // Before the target commits there is no tenure to relay to.
    assert_eq!(c.node(2).owner_route_end(ACTOR, "p").unwrap(), None);

    // With the committed later tenure, the same kind of frame is relayed.
    let (_, destination) = relocate(&c, "p", 1, 2);
    let (forward, _) = relayed(c.node(1).on_frame(sender(&stale_p.bytes), &stale_p.bytes));
    assert_eq!(forward.to, destination.node);
    assert_eq!(c.node(1).stats().follow.relays, 1);
}

#[test]
fn a_message_follow_relay_does_not_read_the_store_or_run_a_handler() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let frames: Vec<_> = (0..20).map(|_| send(&c, 3, "p", b"x").1).collect();
    relocate(&c, "p", 1, 2);
    let (reads, calls) = (c.node(1).stats().store_reads, c.store.calls());
    for frame in &frames {
        let (forward, _) = relayed(c.node(1).on_frame(sender(&frame.bytes), &frame.bytes));
        delivered(c.node(2).on_frame(sender(&forward.bytes), &forward.bytes));
    }
    let relayer = c.node(1).stats();
    assert_eq!(relayer.store_reads, reads, "the relayer read no store");
    assert_eq!(c.store.calls(), calls, "no node reached the store");
    assert_eq!(relayer.follow.relays, 20);
    assert_eq!(relayer.follow.delivered, 0, "no handler ran on the relayer");
    assert_eq!(c.node(2).stats().follow.delivered, 20);
}

#[test]
fn a_message_follow_relay_works_with_the_store_down() {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    let (operation_id, stale) = send(&c, 3, "p", b"x");
    relocate(&c, "p", 1, 2);
    c.store.set_down(true);
    let calls = c.store.calls();
    let (forward, notice) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let delivery = delivered(c.node(2).on_frame(sender(&forward.bytes), &forward.bytes));
    assert_eq!(delivery.operation.operation_id, operation_id);
    // The notice lands too: the sender drops its route without the store.
    let notice = notice.expect("a notice is due");
    assert_eq!(
        c.node(3)
            .on_frame(sender(&notice.outbound.bytes), &notice.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: true }
    );
    assert_eq!(c.store.calls(), calls, "nothing reached the store");
    // The store really was down: the sender's own lookup fails until it is
    // back, and then finds the new owner.
    assert!(matches!(
        c.node(3).resolve(ACTOR, "p").unwrap(),
        Resolution::StoreFailure(_)
    ));
    c.store.set_down(false);
    let current = ready(c.node(3).resolve(ACTOR, "p").unwrap());
    assert_eq!(current.route.node, NodeRid(2));
    assert!(current.fence.authority_owner_generation > route.fence.authority_owner_generation);
}

#[test]
fn a_message_follow_relay_preserves_operation_id_generation_payload_and_reply_route() {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    let original = request(&c, 3, "p", &route, b"\x00payload\xff");
    let bytes = wire::encode(&Frame::Request(original.clone()));
    relocate(&c, "p", 1, 2);

    let (forward, _) = relayed(c.node(1).on_frame(sender(&bytes), &bytes));
    let frame = decode(&forward.bytes);
    assert!(
        matches!(frame, Frame::Request(_)),
        "a request stays a request"
    );
    let relayed_op = operation(frame);
    assert_eq!(relayed_op.operation_id, original.operation_id);
    assert_eq!(relayed_op.object_generation, original.object_generation);
    assert_eq!(relayed_op.payload, original.payload);
    assert_eq!(relayed_op.reply_route, original.reply_route);
    assert_eq!(relayed_op.origin, original.origin);
    assert_eq!(relayed_op.target, original.target);

    // And the new owner hands the application exactly that.
    let delivery = delivered(c.node(2).on_frame(sender(&forward.bytes), &forward.bytes));
    assert_eq!(delivery.operation.operation_id, original.operation_id);
    assert_eq!(delivery.operation.payload, original.payload);
    assert_eq!(delivery.operation.reply_route, original.reply_route);
    assert_eq!(delivery.object_generation, original.object_generation);
}

#[test]
fn a_relayed_one_way_message_stays_a_message_without_a_reply_route() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (operation_id, stale) = send(&c, 3, "p", b"one-way");
    relocate(&c, "p", 1, 2);
    let (forward, _) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    match decode(&forward.bytes) {
        Frame::Message(op) => {
            assert_eq!(op.operation_id, operation_id);
            assert_eq!(op.reply_route, None);
            assert_eq!(op.payload, b"one-way");
        }
        other => panic!("expected a Message, got {other:?}"),
    }
}

#[test]
fn a_relay_adds_one_hop_and_carries_the_destination_tenure_as_its_fence() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, stale) = send(&c, 3, "p", b"x");
    let before = operation(decode(&stale.bytes));
    let (_, destination) = relocate(&c, "p", 1, 2);
    let (forward, _) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let after = operation(decode(&forward.bytes));
    assert_eq!(after.hop_count, before.hop_count + 1);
    assert_eq!(after.fence, destination.fence);
    assert_eq!(after.to_node, destination.node.rid);
    assert_eq!(forward.to, destination.node);
}

#[test]
fn a_message_follow_notice_carries_both_route_fences_hop_count_accounting_and_the_operation() {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    let original = request(&c, 3, "p", &route, b"12345");
    let (source, destination) = relocate(&c, "p", 1, 2);
    let (_, notice) = relayed(c.node(1).on_frame(
        sender(&wire::encode(&Frame::Request(original.clone()))),
        &wire::encode(&Frame::Request(original.clone())),
    ));
    let notice = notice.expect("a notice is due");
    assert_eq!(notice.outbound.to, original.origin);
    let f = follow_frame(&notice.outbound.bytes);
    assert_eq!(f.target, original.target);
    assert_eq!(f.source, source);
    assert_eq!(f.destination, destination);
    assert_eq!(f.hop_count, 0);
    assert_eq!((f.relayed_messages, f.relayed_bytes), (1, 5));
    assert_eq!(f.operation_id, original.operation_id);
    assert_eq!(f.reply_route, original.reply_route);
}

// Bullet 2: "On receiving a valid messageFollow notification, it immediately
// invalidates the sending side's cache so the next lookup uses the new owner.
// If the notification is lost, the new owner is looked up only after the
// existing cache lifetime ends." ----------------------------------------------

#[test]
fn on_a_valid_message_follow_notification_the_sending_side_cache_is_invalidated_at_once() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, stale) = send(&c, 3, "p", b"x");
    relocate(&c, "p", 1, 2);
    let (_, notice) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let notice = notice.expect("a notice is due");
    assert_eq!(notice.outbound.to, c.node(3).node_ref());
    assert!(c.node(3).lookup_cached(ACTOR, "p").unwrap().is_some());
    assert_eq!(
        c.node(3)
            .on_frame(sender(&notice.outbound.bytes), &notice.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: true }
    );
    assert_eq!(
        c.node(3).lookup_cached(ACTOR, "p").unwrap(),
        None,
        "no time passed"
    );
    assert_eq!(
        c.node(3)
            .stats()
            .invalidations_for(InvalidationReason::RelayNotification),
        1
    );
}

#[test]
fn after_a_message_follow_notification_the_next_lookup_uses_the_new_owner() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, stale) = send(&c, 3, "p", b"x");
    let (_, destination) = relocate(&c, "p", 1, 2);
    let (_, notice) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let notice = notice.unwrap();
    c.node(3)
        .on_frame(sender(&notice.outbound.bytes), &notice.outbound.bytes);
    let reads = c.node(3).stats().store_reads;
    let (_, fresh) = send(&c, 3, "p", b"y");
    assert_eq!(c.node(3).stats().store_reads, reads + 1, "one lookup");
    assert_eq!(fresh.to, destination.node);
    let delivery = delivered(c.node(2).on_frame(sender(&fresh.bytes), &fresh.bytes));
    assert_eq!(delivery.operation.hop_count, 0, "no detour any more");
}

#[test]
fn a_message_follow_notification_naming_another_node_incarnation_or_owner_generation_clears_nothing()
 {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, stale) = send(&c, 3, "p", b"x");
    relocate(&c, "p", 1, 2);
    let (_, notice) = relayed(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let genuine = follow_frame(&notice.unwrap().outbound.bytes);
    let cached = c.node(3).lookup_cached(ACTOR, "p").unwrap();

    let mut other_node = genuine.clone();
    other_node.source.node.rid = NodeRid(2);
    let mut other_incarnation = genuine.clone();
    other_incarnation.source.fence.object_generation =
        genuine.source.fence.object_generation.next();
    let mut other_owner_generation = genuine.clone();
    other_owner_generation
        .source
        .fence
        .authority_owner_generation = genuine.source.fence.authority_owner_generation.next();
    for forged in [other_node, other_incarnation, other_owner_generation] {
        assert_eq!(
            c.node(3).on_frame(
                sender(&wire::encode(&Frame::MessageFollow(forged.clone()))),
                &wire::encode(&Frame::MessageFollow(forged.clone()))
            ),
            Inbound::RouteRefreshed { invalidated: false },
            "{forged:?} cleared the route"
        );
        assert_eq!(c.node(3).lookup_cached(ACTOR, "p").unwrap(), cached);
    }
    assert_eq!(
        c.node(3).on_frame(
            sender(&wire::encode(&Frame::MessageFollow(genuine.clone()))),
            &wire::encode(&Frame::MessageFollow(genuine))
        ),
        Inbound::RouteRefreshed { invalidated: true }
    );
}

#[test]
fn a_late_message_follow_notification_does_not_clear_a_newer_route() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let (_, first) = send(&c, 3, "p", b"1");
    relocate(&c, "p", 1, 2);
    let (_, notice) = relayed(c.node(1).on_frame(sender(&first.bytes), &first.bytes));
    let notice = notice.unwrap();
    c.node(3)
        .on_frame(sender(&notice.outbound.bytes), &notice.outbound.bytes);
    let newer = ready(c.node(3).resolve(ACTOR, "p").unwrap());
    assert_eq!(newer.route.node, NodeRid(2));
    // The same notice again (a duplicate or a late copy): the sender's entry
    // is already the new owner's, so nothing goes.
    assert_eq!(
        c.node(3)
            .on_frame(sender(&notice.outbound.bytes), &notice.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: false }
    );
    assert_eq!(c.node(3).lookup_cached(ACTOR, "p").unwrap(), Some(newer));
}

#[test]
fn if_the_notification_is_lost_the_new_owner_is_looked_up_only_after_the_cache_lifetime_ends() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    relocate(&c, "p", 1, 2);
    let reads = c.node(3).stats().store_reads;
    let mut now = 0;
    for at in [0, 5_000, 9_999, 14_999] {
        c.advance_ms(at - now);
        now = at;
        let (_, frame) = send(&c, 3, "p", b"x");
        assert_eq!(frame.to.rid, NodeRid(1), "still the cached old owner");
        let (forward, notice) = relayed(c.node(1).on_frame(sender(&frame.bytes), &frame.bytes));
        if let Some(notice) = notice {
            // Sent, then lost on the way: the sender never sees it.
            c.node(1).notice_settled(&notice.token, true);
        }
        delivered(c.node(2).on_frame(sender(&forward.bytes), &forward.bytes));
    }
    assert_eq!(c.node(3).stats().store_reads, reads, "no lookup meanwhile");
    c.advance_ms(1);
    let (_, frame) = send(&c, 3, "p", b"fresh");
    assert_eq!(frame.to.rid, NodeRid(2), "the cache lifetime ended");
    assert_eq!(
        c.node(3).stats().store_reads,
        reads + 1,
        "exactly one lookup"
    );
    delivered(c.node(2).on_frame(sender(&frame.bytes), &frame.bytes));
    for _ in 0..5 {
        assert_eq!(send(&c, 3, "p", b"y").1.to.rid, NodeRid(2));
    }
    assert_eq!(
        c.node(3).stats().store_reads,
        reads + 1,
        "then cached again"
    );
}

// Bullet 4: "A failed operation isn't automatically resubmitted to a fresh
// owner — only the next call re-resolves current authority." -----------------

fn follow_off() -> RoutingConfig {
    RoutingConfig {
        message_follow_duration: Duration::ZERO,
        ..RoutingConfig::default()
    }
}

#[test]
fn a_failed_operation_is_not_automatically_resubmitted_to_a_fresh_owner() {
    let c = Cluster::new(3, follow_off());
    warmed(&c, "p");
    let (operation_id, stale) = send(&c, 3, "p", b"x");
    relocate(&c, "p", 1, 2);
    let (reads, calls) = (c.node(3).stats().store_reads, c.store.calls());
    let refusal = rejected(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    assert_eq!(refusal.to, c.node(3).node_ref());
    // The sender's decision is an end: it carries no frame to send anywhere.
    let end = ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(end.operation_id, operation_id);
    assert_eq!(
        end.failure,
        Failure::Unavailable(UnavailableReason::StaleRoute)
    );
    assert_eq!(c.node(3).stats().store_reads, reads, "no lookup");
    assert_eq!(c.store.calls(), calls, "no store call at all");
    assert_eq!(c.node(2).stats().follow.delivered, 0);
    assert_eq!(c.node(1).stats().follow.relays, 0);
}

#[test]
fn only_the_next_call_re_resolves_current_authority() {
    let c = Cluster::new(3, follow_off());
    warmed(&c, "p");
    let (failed_id, stale) = send(&c, 3, "p", b"x");
    relocate(&c, "p", 1, 2);
    let refusal = rejected(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    let reads = c.node(3).stats().store_reads;
    c.advance_ms(1_000);
    assert_eq!(
        c.node(3).stats().store_reads,
        reads,
        "nothing happens until the application calls"
    );
    let (next_id, next) = send(&c, 3, "p", b"x");
    assert_ne!(next_id, failed_id, "a new operation, not a resubmit");
    assert_eq!(c.node(3).stats().store_reads, reads + 1);
    assert_eq!(next.to.rid, NodeRid(2));
    delivered(c.node(2).on_frame(sender(&next.bytes), &next.bytes));
}

#[test]
fn with_follow_disabled_a_stale_route_ends_unavailable_on_the_mesh_and_runs_nowhere() {
    let mut m = Mesh::new(3, follow_off()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"stale").unwrap();
    m.run();
    assert_eq!(m.ledger.delivered.len(), 1, "only the warm-up ran");
    assert_eq!(m.ledger.ended.len(), 1);
    assert_eq!(m.in_flight(), 0, "nothing was re-sent");
    assert_eq!(m.node(2).stats().follow.delivered, 0);
}

// §2.5: generation mismatch → InvalidOperation --------------------------------

#[test]
fn an_operation_whose_object_generation_differs_from_the_route_ends_invalid_operation() {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    relocate(&c, "p", 1, 2);
    let mut op = request(&c, 3, "p", &route, b"x");
    op.object_generation = op.object_generation.next();
    // A one-way message: its refusal ends it (a request's would complete
    // the pending request instead, and this one was never registered).
    op.reply_route = None;
    let refusal = rejected(c.node(1).on_frame(
        sender(&wire::encode(&Frame::Message(op.clone()))),
        &wire::encode(&Frame::Message(op.clone())),
    ));
    assert_eq!(rejection_code(&refusal), RejectionCode::InvalidOperation);
    let end = ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(
        (end.operation_id, end.failure),
        (op.operation_id, Failure::InvalidOperation)
    );
    assert_eq!(c.node(1).stats().follow.relays, 0);
}

#[test]
fn an_operation_whose_source_tenure_differs_from_the_route_ends_invalid_operation() {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    relocate(&c, "p", 1, 2);
    let mut op = request(&c, 3, "p", &route, b"x");
    op.fence.object_generation = op.fence.object_generation.next();
    let refusal = rejected(c.node(1).on_frame(
        sender(&wire::encode(&Frame::Request(op.clone()))),
        &wire::encode(&Frame::Request(op)),
    ));
    assert_eq!(rejection_code(&refusal), RejectionCode::InvalidOperation);
    assert_eq!(c.node(1).stats().follow.relays, 0);
}

#[test]
fn an_operation_on_another_owner_tenure_of_the_same_incarnation_finds_no_route_and_ends_unavailable()
 {
    let c = Cluster::with_defaults(3);
    let route = warmed(&c, "p");
    relocate(&c, "p", 1, 2);
    let changes: [fn(&mut RouteFence); 3] = [
        |f| f.authority_owner_generation = AuthorityOwnerGeneration(0),
        |f| f.authority_owner_generation = f.authority_owner_generation.next(),
        |f| f.owner_lease_generation = f.owner_lease_generation.next(),
    ];
    for change in changes {
        let mut op = request(&c, 3, "p", &route, b"x");
        change(&mut op.fence);
        let refusal = rejected(c.node(1).on_frame(
            sender(&wire::encode(&Frame::Request(op.clone()))),
            &wire::encode(&Frame::Request(op)),
        ));
        assert_eq!(
            rejection_code(&refusal),
            RejectionCode::StaleRoute(StaleReason::NotOwner)
        );
    }
    assert_eq!(c.node(1).stats().follow.relays, 0);
}

#[test]
fn after_an_invalid_operation_end_the_next_call_re_resolves_current_authority() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    c.node(1).begin_release(ACTOR, "p").unwrap();
    c.node(1).complete_release(ACTOR, "p").unwrap();
    c.node(1).activate(ACTOR, "p").unwrap();
    relocate(&c, "p", 1, 2);
    let (_, stale) = send(&c, 3, "p", b"x");
    let refusal = rejected(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let end = ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(end.failure, Failure::InvalidOperation);
    let (_, next) = send(&c, 3, "p", b"x");
    assert_eq!(next.to.rid, NodeRid(2), "the next call re-resolved");
}

#[test]
fn after_a_stale_tenure_is_refused_the_next_call_re_resolves_current_authority() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p"); // node 3 caches node 1's first tenure
    relocate(&c, "p", 1, 2);
    relocate(&c, "p", 2, 1);
    relocate(&c, "p", 1, 2);
    let (_, stale) = send(&c, 3, "p", b"x");
    let refusal = rejected(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    assert_eq!(
        ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes)).failure,
        Failure::Unavailable(UnavailableReason::StaleRoute)
    );
    let (_, next) = send(&c, 3, "p", b"x");
    assert_eq!(next.to.rid, NodeRid(2), "the next call re-resolved");
}

#[test]
fn a_message_for_a_previous_incarnation_reaching_the_next_incarnations_follow_route_ends_invalid_operation()
 {
    let c = Cluster::with_defaults(3);
    let old = warmed(&c, "p");
    // The same owner closes p and re-creates it, then the new incarnation
    // moves away; the sender still holds the previous incarnation's route.
    c.node(1).begin_release(ACTOR, "p").unwrap();
    c.node(1).complete_release(ACTOR, "p").unwrap();
    let reborn = c.node(1).activate(ACTOR, "p").unwrap();
    assert!(reborn.object_generation > old.fence.object_generation);
    relocate(&c, "p", 1, 2);
    let (operation_id, stale) = send(&c, 3, "p", b"x");
    let refusal = rejected(c.node(1).on_frame(sender(&stale.bytes), &stale.bytes));
    let end = ended(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(
        (end.operation_id, end.failure),
        (operation_id, Failure::InvalidOperation)
    );
    assert_eq!(c.node(2).stats().follow.delivered, 0);
}

// §2.5: at most max_follow_hops; owner generation increases per hop ---------

fn two_hops() -> RoutingConfig {
    RoutingConfig {
        max_follow_hops: 2,
        ..RoutingConfig::default()
    }
}

#[test]
fn a_chain_longer_than_max_follow_hops_ends_unavailable_follow_hop_limit() {
    let mut m = Mesh::new(5, two_hops()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(5, ACTOR, "p", b"warm").unwrap();
    m.run();
    for (from, to) in [(1, 2), (2, 3), (3, 4)] {
        m.relocate(ACTOR, "p", from, to).unwrap();
    }
    let reads = m.node(5).stats().store_reads;
    let Sent::Submitted { operation_id, .. } = m.send(5, ACTOR, "p", b"far").unwrap() else {
        panic!("expected Submitted");
    };
    m.run();
    assert_eq!(
        m.ledger.ended,
        vec![(
            operation_id,
            Failure::Unavailable(UnavailableReason::FollowHopLimit)
        )]
    );
    assert_eq!(m.ledger.delivered.len(), 1, "only the warm-up ran");
    assert_eq!(m.node(3).stats().follow.rejections_sent, 1);
    assert_eq!(m.node(4).stats().follow.delivered, 0);
    assert_eq!(m.node(5).stats().store_reads, reads, "not resubmitted");
}

#[test]
fn a_chain_of_exactly_max_follow_hops_is_delivered() {
    let mut m = Mesh::new(4, two_hops()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(4, ACTOR, "p", b"warm").unwrap();
    m.run();
    for (from, to) in [(1, 2), (2, 3)] {
        m.relocate(ACTOR, "p", from, to).unwrap();
    }
    m.send(4, ACTOR, "p", b"two hops").unwrap();
    m.run();
    assert!(m.ledger.ended.is_empty());
    let (_, node, hops) = *m.ledger.delivered.last().unwrap();
    assert_eq!((node, hops), (NodeRid(3), 2));
}

#[test]
fn owner_generation_increases_per_hop() {
    let c = Cluster::with_defaults(5);
    c.node(1).activate(ACTOR, "p").unwrap();
    ready(c.node(5).resolve(ACTOR, "p").unwrap());
    let (_, frame) = send(&c, 5, "p", b"x");
    for (from, to) in [(1, 2), (2, 3), (3, 4)] {
        relocate(&c, "p", from, to);
    }
    let mut bytes = frame.bytes;
    let mut at = frame.to.rid.get();
    let mut generations = vec![operation(decode(&bytes)).fence.authority_owner_generation];
    loop {
        match c.node(at).on_frame(sender(&bytes), &bytes) {
            Inbound::Relay { forward, .. } => {
                let op = operation(decode(&forward.bytes));
                assert!(
                    op.fence.authority_owner_generation > *generations.last().unwrap(),
                    "hop {} did not raise the owner generation",
                    op.hop_count
                );
                generations.push(op.fence.authority_owner_generation);
                at = forward.to.rid.get();
                bytes = forward.bytes;
            }
            Inbound::Deliver(d) => {
                assert_eq!((at, d.operation.hop_count), (4, 3));
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(generations.len(), 4);
}

// §2.5: a route's lifetime is the duration in force at install ---------------

fn follow_for(s: u64) -> RoutingConfig {
    RoutingConfig {
        message_follow_duration: secs(s),
        route_cache_max_age: secs(s.saturating_sub(5).max(1)),
        ..RoutingConfig::default()
    }
}

/// Stale frames for `ids`, captured from node 3 while node 1 owns them all.
fn stale_frames(c: &Cluster, ids: &[&str]) -> Vec<Outbound> {
    ids.iter()
        .map(|id| {
            warmed(c, id);
            send(c, 3, id, b"x").1
        })
        .collect()
}

fn relays(c: &Cluster, frame: &Outbound) -> bool {
    match c.node(1).on_frame(sender(&frame.bytes), &frame.bytes) {
        Inbound::Relay { .. } => true,
        Inbound::Reject(r) => {
            assert_eq!(
                rejection_code(&r),
                RejectionCode::StaleRoute(StaleReason::NotOwner)
            );
            false
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_follow_route_keeps_the_message_follow_duration_in_force_at_install_when_it_is_shortened() {
    let c = Cluster::new(3, follow_for(30));
    let frames = stale_frames(&c, &["old", "new"]);
    relocate(&c, "old", 1, 2);
    c.node(1).update_config(follow_for(10)).unwrap();
    relocate(&c, "new", 1, 2);
    c.advance_ms(9_999);
    assert!(relays(&c, &frames[0]) && relays(&c, &frames[1]));
    c.advance_ms(1);
    assert!(relays(&c, &frames[0]), "the old route keeps its 30 s");
    assert!(!relays(&c, &frames[1]), "the new route got 10 s");
    c.advance_ms(19_999);
    assert!(relays(&c, &frames[0]));
    c.advance_ms(1);
    assert!(!relays(&c, &frames[0]), "gone at 30 s");
}

#[test]
fn a_follow_route_keeps_the_message_follow_duration_in_force_at_install_when_it_is_lengthened() {
    let c = Cluster::new(3, follow_for(10));
    let frames = stale_frames(&c, &["old", "new"]);
    relocate(&c, "old", 1, 2);
    c.node(1).update_config(follow_for(30)).unwrap();
    relocate(&c, "new", 1, 2);
    c.advance_ms(9_999);
    assert!(relays(&c, &frames[0]) && relays(&c, &frames[1]));
    c.advance_ms(1);
    assert!(!relays(&c, &frames[0]), "not extended to 30 s");
    assert!(relays(&c, &frames[1]), "the new route got 30 s");
    c.advance_ms(19_999);
    assert!(relays(&c, &frames[1]));
    c.advance_ms(1);
    assert!(!relays(&c, &frames[1]));
}

#[test]
fn a_message_follow_duration_of_zero_installs_no_route() {
    let c = Cluster::new(3, follow_for(30));
    let frames = stale_frames(&c, &["on", "off"]);
    relocate(&c, "on", 1, 2);
    c.node(1).update_config(follow_off()).unwrap();
    relocate(&c, "off", 1, 2);
    assert!(!relays(&c, &frames[1]), "no route, not even for an instant");
    assert!(
        relays(&c, &frames[0]),
        "a route installed before keeps relaying"
    );
}

// §2.5: no count bound on a route's queue; each message within the bound ----

#[test]
fn a_route_has_no_bound_on_message_count_or_stored_size() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    // All sent before the notice can land: every one takes the route.
    let payload = vec![7u8; 1024];
    for _ in 0..10_000 {
        m.send(3, ACTOR, "p", &payload).unwrap();
    }
    m.run();
    assert_eq!(m.ledger.delivered.len(), 10_001);
    assert_eq!(m.ledger.detours(), 10_000);
    assert!(m.ledger.ended.is_empty() && m.ledger.dropped.is_empty());
    assert!(m.ledger.duplicated().is_empty());
    let follow = m.node(1).stats().follow;
    assert_eq!(follow.relays, 10_000);
    // 10 000 KiB through one route: far past one message's 1 MiB bound.
    assert!(10_000 * payload.len() > m.node(1).config().max_message_bytes);
    assert_eq!(follow.notifications_sent, 1);
    assert_eq!(follow.notifications_suppressed, 9_999);
}

#[test]
fn each_relayed_message_must_respect_the_negotiated_message_bound() {
    let config = RoutingConfig {
        max_message_bytes: 1024,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(3, config);
    let route = warmed(&c, "p");
    assert!(matches!(
        c.node(3)
            .send(ACTOR, "p", &[0; 1025], SendOptions::default()),
        Err(InputError::PayloadTooLarge {
            len: 1025,
            max: 1024
        })
    ));
    relocate(&c, "p", 1, 2);
    let at_bound = request(&c, 3, "p", &route, &[1; 1024]);
    let (forward, _) = relayed(c.node(1).on_frame(
        sender(&wire::encode(&Frame::Request(at_bound.clone()))),
        &wire::encode(&Frame::Request(at_bound)),
    ));
    delivered(c.node(2).on_frame(sender(&forward.bytes), &forward.bytes));

    let over = request(&c, 3, "p", &route, &[1; 1025]);
    // Not relayed: undecodable over the bound, and answered on its reply
    // route with a Decode error reply (§4.3).
    match c.node(1).on_frame(
        sender(&wire::encode(&Frame::Request(over.clone()))),
        &wire::encode(&Frame::Request(over)),
    ) {
        Inbound::Send(frames) => {
            let [reply] = frames.as_slice() else {
                panic!("one error reply, got {frames:?}")
            };
            assert_eq!(reply.to.rid, NodeRid(3), "the requester");
            match decode(&reply.bytes) {
                Frame::Reply(r) => assert!(matches!(
                    r.result,
                    wire::ReplyResult::Error(ref e) if e.kind == wire::ReplyErrorKind::Decode
                        && e.message.contains("payload is 1025 bytes, over the 1024-byte bound")
                )),
                other => panic!("expected a reply, got {other:?}"),
            }
        }
        other => panic!("expected the Decode error reply, got {other:?}"),
    }
    let follow = c.node(1).stats().follow;
    assert_eq!(follow.relays, 1, "the oversized one was not relayed");
    assert_eq!(follow.frames_dropped, 1);
    assert_eq!(c.node(1).stats().requests.undecodable_answered, 1);
}

// §2.5 / DESIGN §5.5: the notification dedup registry -------------------------

#[test]
fn the_dedup_registry_sends_one_notice_per_route_and_sender() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let frames: Vec<_> = (0..4).map(|_| send(&c, 3, "p", b"x").1).collect();
    relocate(&c, "p", 1, 2);
    let (_, first) = relayed(
        c.node(1)
            .on_frame(sender(&frames[0].bytes), &frames[0].bytes),
    );
    let first = first.expect("the first relay notifies");
    let (_, second) = relayed(
        c.node(1)
            .on_frame(sender(&frames[1].bytes), &frames[1].bytes),
    );
    assert!(second.is_none(), "in flight: no second send");
    c.node(1).notice_settled(&first.token, true);
    for frame in &frames[2..] {
        let (_, again) = relayed(c.node(1).on_frame(sender(&frame.bytes), &frame.bytes));
        assert!(again.is_none(), "sent: nothing more while the route lives");
    }
    let follow = c.node(1).stats().follow;
    assert_eq!(
        (
            follow.relays,
            follow.notifications_sent,
            follow.notifications_suppressed
        ),
        (4, 1, 3)
    );
}

#[test]
fn the_dedup_registry_gives_a_second_sender_its_own_notice() {
    let c = Cluster::with_defaults(4);
    warmed(&c, "p");
    ready(c.node(4).resolve(ACTOR, "p").unwrap());
    let (_, from_3) = send(&c, 3, "p", b"x");
    let (_, from_4) = send(&c, 4, "p", b"x");
    relocate(&c, "p", 1, 2);
    let (_, n3) = relayed(c.node(1).on_frame(sender(&from_3.bytes), &from_3.bytes));
    let n3 = n3.unwrap();
    c.node(1).notice_settled(&n3.token, true);
    let (_, n4) = relayed(c.node(1).on_frame(sender(&from_4.bytes), &from_4.bytes));
    let n4 = n4.expect("another sender is not suppressed");
    assert_eq!(n3.outbound.to, c.node(3).node_ref());
    assert_eq!(n4.outbound.to, c.node(4).node_ref());
    assert_eq!(
        c.node(4)
            .on_frame(sender(&n4.outbound.bytes), &n4.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: true }
    );
}

#[test]
fn after_a_failed_notice_send_the_next_relay_sends_again() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p");
    let frames: Vec<_> = (0..3).map(|_| send(&c, 3, "p", b"x").1).collect();
    relocate(&c, "p", 1, 2);
    let (_, first) = relayed(
        c.node(1)
            .on_frame(sender(&frames[0].bytes), &frames[0].bytes),
    );
    c.node(1).notice_settled(&first.unwrap().token, false);
    let (_, retry) = relayed(
        c.node(1)
            .on_frame(sender(&frames[1].bytes), &frames[1].bytes),
    );
    let retry = retry.expect("a failed send returns to idle");
    c.node(1).notice_settled(&retry.token, true);
    let (_, third) = relayed(
        c.node(1)
            .on_frame(sender(&frames[2].bytes), &frames[2].bytes),
    );
    assert!(third.is_none());
    let follow = c.node(1).stats().follow;
    assert_eq!(follow.notification_failures, 1);
    assert_eq!(follow.notifications_sent, 2);
    assert_eq!(
        c.node(3)
            .on_frame(sender(&retry.outbound.bytes), &retry.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: true }
    );
}

#[test]
fn after_notice_sends_fail_on_the_mesh_the_next_relay_sends_again() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.fail_notices(true);
    for _ in 0..3 {
        m.send(3, ACTOR, "p", b"x").unwrap();
        m.run();
    }
    assert_eq!(m.ledger.detours(), 3, "no notice got through");
    assert_eq!(m.node(1).stats().follow.notification_failures, 3);
    m.fail_notices(false);
    m.send(3, ACTOR, "p", b"x").unwrap();
    m.run();
    assert_eq!(m.ledger.notices_effective, 1);
    m.send(3, ACTOR, "p", b"direct").unwrap();
    m.run();
    assert_eq!(m.ledger.detours(), 4, "the refreshed sender goes direct");
    assert_eq!(m.node(1).stats().follow.notification_failures, 3);
}

#[test]
fn dedup_entries_leave_with_the_route_when_it_is_replaced() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(3, ACTOR, "p", b"warm").unwrap();
    m.run();
    // Away (1 → 2): node 1 notifies sender 3 once.
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"a").unwrap();
    m.run();
    assert_eq!(m.node(1).stats().follow.notifications_sent, 1);
    m.send(3, ACTOR, "p", b"a2").unwrap();
    m.run();
    let (_, node, hops) = *m.ledger.delivered.last().unwrap();
    assert_eq!(
        (node, hops),
        (NodeRid(2), 0),
        "sender 3 now routes to node 2"
    );
    // Back (2 → 1), sender 3 learns node 1 again through node 2's notice.
    m.relocate(ACTOR, "p", 2, 1).unwrap();
    m.send(3, ACTOR, "p", b"b").unwrap();
    m.run();
    assert_eq!(m.node(2).stats().follow.notifications_sent, 1);
    m.send(3, ACTOR, "p", b"c").unwrap();
    m.run();
    assert_eq!(m.ledger.delivered.last().unwrap().1, NodeRid(1));
    // Away again (1 → 2): node 1's route is replaced, and the same sender
    // gets a fresh notice from it.
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.send(3, ACTOR, "p", b"d").unwrap();
    m.run();
    let follow = m.node(1).stats().follow;
    assert_eq!(follow.notifications_sent, 2);
    assert_eq!(follow.notifications_suppressed, 0);
    assert_eq!(m.ledger.notices_effective, 3);
    assert!(m.ledger.dropped.iter().all(|c| *c != Carried::Notice));
    assert!(m.ledger.ended.is_empty() && m.ledger.duplicated().is_empty());
}

/// §2.2: a store answer that shows a higher StoreVersion removes an older
/// cached entry, the source's own route to the object it just gave away
/// included.
#[test]
fn the_source_drops_its_own_cached_route_to_what_it_gave_away() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "self").unwrap();
    let own = ready(c.node(1).resolve(ACTOR, "self").unwrap());
    assert_eq!(own.route.node, NodeRid(1));
    c.relocate(ACTOR, "self", 1, 2);
    assert_eq!(
        c.node(1).lookup_cached(ACTOR, "self").unwrap(),
        None,
        "the commit notice showed a higher version"
    );
    assert_eq!(
        ready(c.node(1).resolve(ACTOR, "self").unwrap()).route.node,
        NodeRid(2)
    );
}
