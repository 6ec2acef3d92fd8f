//! DESIGN §5.10: a frame's sender is its connection's node. A frame whose
//! last sender (origin at hop 0, relayer after) is not the node of the
//! connection it came on is refused, counted, and changes nothing; the
//! session frames that name no sender are checked against the state they
//! would change. One test per frame kind that touches the cache, a Session
//! or a request.

mod cluster;

use std::time::Duration;

use cluster::{Cluster, ready};
use zlink_core::wire::{self, ActorRoute, Frame, NodeRef, RouteChange, SessionFrame, SessionRef};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const SESSION: SessionId = SessionId(7);

fn rid(n: u64) -> NodeRid {
    NodeRid(n)
}

fn refused(inbound: Inbound) {
    assert!(
        matches!(inbound, Inbound::ForeignSender { .. }),
        "expected ForeignSender, got {inbound:?}"
    );
}

fn foreign_count(c: &Cluster, node: u64) -> u64 {
    c.node(node).stats().follow.frames_foreign_sender
}

fn actor(id: &str) -> ObjectKey {
    ObjectKey::new(ACTOR, id).expect("a valid id")
}

fn decode(bytes: &[u8]) -> Frame {
    wire::decode(bytes, &wire::DecodeLimits::default()).expect("a valid frame")
}

#[test]
fn an_operation_is_refused_on_another_nodes_connection_and_a_relayed_one_on_its_relayers() {
    let c = Cluster::with_defaults(4);
    let (stale, _) = c.stale_after_move("a");
    // Hop 0: its origin (node 2) is its sender.
    refused(c.node(1).on_frame(rid(4), &stale.bytes));
    assert_eq!(c.node(1).stats().follow.relays, 0, "nothing relayed");
    let Inbound::Relay { forward, notice } = c.node(1).on_frame(rid(2), &stale.bytes) else {
        panic!("the old owner relays on its follow route")
    };
    // Hop 1: the relayer (node 1) is its sender, not the origin.
    refused(c.node(3).on_frame(rid(2), &forward.bytes));
    assert_eq!(c.node(3).stats().follow.delivered, 0);
    assert!(matches!(
        c.node(3).on_frame(rid(1), &forward.bytes),
        Inbound::Deliver(_)
    ));
    let notice = notice.expect("the sender is notified");
    c.node(1).notice_settled(&notice.token, true);
    assert_eq!(foreign_count(&c, 1), 1);
    assert_eq!(foreign_count(&c, 3), 1);
}

#[test]
fn a_forged_command_50_does_not_touch_the_cache() {
    let c = Cluster::with_defaults(4);
    let (stale, _) = c.stale_after_move("a");
    let Inbound::Relay { notice, .. } = c.node(1).on_frame(rid(2), &stale.bytes) else {
        panic!("relayed")
    };
    let notice = notice.expect("a notification is due");
    // Node 4 replays the relayer's notification on its own connection.
    refused(c.node(2).on_frame(rid(4), &notice.outbound.bytes));
    assert!(
        c.node(2)
            .lookup_cached(ACTOR, "a")
            .expect("valid")
            .is_some(),
        "the cached route stays"
    );
    assert_eq!(
        c.node(2).on_frame(rid(1), &notice.outbound.bytes),
        Inbound::RouteRefreshed { invalidated: true }
    );
    assert!(
        c.node(2)
            .lookup_cached(ACTOR, "a")
            .expect("valid")
            .is_none()
    );
}

#[test]
fn a_forged_rejection_does_not_touch_the_cache_or_the_request() {
    let c = Cluster::new(
        3,
        RoutingConfig {
            message_follow_duration: Duration::ZERO,
            ..RoutingConfig::default()
        },
    );
    c.node(1).activate(ACTOR, "a").expect("activation");
    let route = ready(c.node(2).resolve(ACTOR, "a").expect("valid id"));
    let Requested::Submitted {
        correlation,
        outbound,
        ..
    } = c
        .node(2)
        .request(ACTOR, "a", b"q", RequestOptions::default())
        .expect("valid")
    else {
        panic!("submitted")
    };
    // Node 1 no longer owns it: it refuses the stale route.
    c.relocate(ACTOR, "a", 1, 3);
    let Inbound::Reject(refusal) = c.node(1).on_frame(rid(2), &outbound.bytes) else {
        panic!("refused")
    };
    refused(c.node(2).on_frame(rid(3), &refusal.bytes));
    assert_eq!(
        c.node(2).pending_requests(),
        1,
        "the request is still pending"
    );
    assert_eq!(
        c.node(2).lookup_cached(ACTOR, "a").expect("valid"),
        Some(route),
        "the cached route stays"
    );
    match c.node(2).on_frame(rid(1), &refusal.bytes) {
        Inbound::Completed(done) => assert_eq!(done.correlation, correlation),
        other => panic!("the genuine refusal ends the request: {other:?}"),
    }
    assert!(
        c.node(2)
            .lookup_cached(ACTOR, "a")
            .expect("valid")
            .is_none()
    );
}

#[test]
fn a_forged_reply_does_not_end_the_request() {
    let c = Cluster::with_defaults(3);
    c.node(1).activate(ACTOR, "a").expect("activation");
    let Requested::Submitted { outbound, .. } = c
        .node(2)
        .request(ACTOR, "a", b"q", RequestOptions::default())
        .expect("valid")
    else {
        panic!("submitted")
    };
    let Inbound::Deliver(d) = c.node(1).on_frame(rid(2), &outbound.bytes) else {
        panic!("delivered")
    };
    let reply = c
        .node(1)
        .reply(&d.operation, wire::ReplyResult::Ok(b"r".to_vec()))
        .expect("a request");
    refused(c.node(2).on_frame(rid(3), &reply.bytes));
    assert_eq!(c.node(2).pending_requests(), 1);
    assert_eq!(c.node(2).stats().requests.replies, 0);
    assert!(matches!(
        c.node(2).on_frame(rid(1), &reply.bytes),
        Inbound::Completed(_)
    ));
}

// ---- sessions ---------------------------------------------------------------

/// Node 1 owns Session 7 bound to Actor `a` on node 2.
fn bound_session(n: u64, config: RoutingConfig) -> (Cluster, SessionRef, BindingRoute) {
    let c = Cluster::new(n, config);
    let session = c.node(1).open_session(SESSION, SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let bind = c.node(1).bind(SESSION, &c.actor_ref(2, "a")).expect("open");
    let reply = sends(c.node(2).on_frame(rid(1), &bind.bytes));
    match c.node(1).on_frame(rid(2), &reply[0].bytes) {
        Inbound::Session(SessionEvent::Bound { route, .. }) => (c, session, *route),
        other => panic!("expected Bound, got {other:?}"),
    }
}

fn sends(inbound: Inbound) -> Vec<Outbound> {
    match inbound {
        Inbound::Send(frames) => frames,
        other => panic!("expected Send, got {other:?}"),
    }
}

fn binding(c: &Cluster) -> BindingRoute {
    c.node(1).binding(SESSION, &actor("a")).expect("bound")
}

#[test]
fn a_bind_reply_from_another_node_than_the_binds_target_is_refused() {
    let c = Cluster::with_defaults(3);
    c.node(1).open_session(SESSION, SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let bind = c.node(1).bind(SESSION, &c.actor_ref(2, "a")).expect("open");
    let reply = sends(c.node(2).on_frame(rid(1), &bind.bytes));
    // Node 3 carries node 2's answer: the pending bind stays, nothing stored.
    refused(c.node(1).on_frame(rid(3), &reply[0].bytes));
    assert_eq!(c.node(1).binding(SESSION, &actor("a")), None);
    assert_eq!(c.node(1).stats().tables.pending_binds, 1);
    assert!(matches!(
        c.node(1).on_frame(rid(2), &reply[0].bytes),
        Inbound::Session(SessionEvent::Bound { .. })
    ));
    assert_eq!(c.node(1).stats().tables.pending_binds, 0);
}

#[test]
fn a_forged_command_42_installs_no_seal() {
    let (c, session, bound) = bound_session(3, RoutingConfig::default());
    let seal = |source: NodeRef| {
        wire::encode(&Frame::Session(SessionFrame::Seal {
            session,
            actor: actor("a"),
            binding: bound.binding,
            object_generation: bound.route.object_generation,
            relocation: RelocationId(5),
            source,
        }))
    };
    // Naming the real source on node 3's connection: refused.
    refused(c.node(1).on_frame(rid(3), &seal(bound.route.owner)));
    // Naming itself: not the owner the stored route names, so no seal.
    let answer = sends(c.node(1).on_frame(rid(3), &seal(c.node(3).node_ref())));
    assert!(matches!(
        decode(&answer[0].bytes),
        Frame::Session(SessionFrame::Sealed { sealed: false, .. })
    ));
    assert!(
        matches!(
            c.node(1).session_send(SESSION, &actor("a"), b"x"),
            Ok(SessionSend::Sent { .. })
        ),
        "not sealed: relays still leave"
    );
}

#[test]
fn a_forged_command_43_is_refused() {
    let (c, session, _) = bound_session(3, RoutingConfig::default());
    let sealed = wire::encode(&Frame::Session(SessionFrame::Sealed {
        session,
        actor: actor("a"),
        relocation: RelocationId(5),
        sealed: true,
    }));
    refused(c.node(2).on_frame(rid(3), &sealed));
    assert!(matches!(
        c.node(2).on_frame(rid(1), &sealed),
        Inbound::Session(SessionEvent::Sealed { sealed: true, .. })
    ));
}

/// Moves `a` from node 2 to node 3 with the relocation protocol, carrying
/// command 42 to the Session owner (node 1) and its answer back; returns the
/// target's command 44 commit frame (not carried).
fn sealed_and_moved(c: &Cluster) -> Outbound {
    let mut others = c.relocate(ACTOR, "a", 2, 3).into_iter();
    let seal = others.next().expect("command 42 to the Session owner");
    let answer = sends(c.node(1).on_frame(rid(2), &seal.bytes));
    c.node(2).on_frame(rid(1), &answer[0].bytes);
    others
        .next()
        .expect("command 44 commit to the Session owner")
}

#[test]
fn a_command_44_commit_on_another_connection_than_its_targets_changes_nothing() {
    let (c, _, before) = bound_session(4, RoutingConfig::default());
    let commit = sealed_and_moved(&c);
    refused(c.node(1).on_frame(rid(4), &commit.bytes));
    assert_eq!(binding(&c).route, before.route, "the route is unchanged");
    assert!(
        matches!(
            c.node(1).session_send(SESSION, &actor("a"), b"x"),
            Ok(SessionSend::Held { .. })
        ),
        "still sealed"
    );
    sends(c.node(1).on_frame(rid(3), &commit.bytes));
    assert_eq!(binding(&c).route.owner.rid, rid(3));
}

#[test]
fn a_command_44_abort_from_another_node_than_the_routes_owner_keeps_the_seal() {
    let (c, _, _) = bound_session(3, RoutingConfig::default());
    let started = c
        .node(2)
        .begin_relocation(ACTOR, "a", c.node(3).node_ref(), Capture::default())
        .expect("owned");
    sends(c.node(1).on_frame(rid(2), &started.send[1].bytes));
    let aborted = cluster::abort_relocation(c.node(2), c.node(3), ACTOR, "a");
    let aborts: Vec<_> = aborted
        .send
        .into_iter()
        .filter(|f| f.to.rid == rid(1))
        .collect();
    refused(c.node(1).on_frame(rid(3), &aborts[0].bytes));
    assert!(matches!(
        c.node(1).session_send(SESSION, &actor("a"), b"x"),
        Ok(SessionSend::Held { .. })
    ));
    sends(c.node(1).on_frame(rid(2), &aborts[0].bytes));
    assert!(matches!(
        c.node(1).session_send(SESSION, &actor("a"), b"y"),
        Ok(SessionSend::Sent { .. })
    ));
}

#[test]
fn a_refresh_is_refused_on_another_connection_and_extends_at_most_one_owner_lease() {
    let config = RoutingConfig::default();
    let lease = config.owner_lease_duration;
    let (c, session, bound) = bound_session(3, config);
    let refresh = |lease_remaining_ms| {
        wire::encode(&Frame::Session(SessionFrame::Route {
            session,
            actor: actor("a"),
            binding: bound.binding,
            object_generation: bound.route.object_generation,
            relocation: RelocationId(0),
            change: RouteChange::Refresh(ActorRoute {
                lease_remaining_ms,
                ..bound.route
            }),
        }))
    };
    c.advance_ms(10_000);
    refused(c.node(1).on_frame(rid(3), &refresh(u64::MAX)));
    assert_eq!(binding(&c).admission_deadline, bound.admission_deadline);
    // The owner itself claims an endless lease: capped at one lease from now.
    sends(c.node(1).on_frame(rid(2), &refresh(u64::MAX)));
    let now = c.node(1).now();
    assert_eq!(binding(&c).admission_deadline, now.after(lease));
}

#[test]
fn a_push_from_another_node_than_the_actor_owner_is_refused() {
    let (c, session, _) = bound_session(3, RoutingConfig::default());
    let push = c
        .node(2)
        .push(&actor("a"), &session, b"hi")
        .expect("within the bound")
        .expect("bound");
    refused(c.node(1).on_frame(rid(3), &push.bytes));
    assert!(matches!(
        c.node(1).on_frame(rid(2), &push.bytes),
        Inbound::Session(SessionEvent::Pushed { .. })
    ));
}

#[test]
fn a_tombstone_ack_from_another_node_than_the_previous_owner_releases_nothing() {
    let (c, _, _) = bound_session(4, RoutingConfig::default());
    // The Actor moved; its command 44 never reached the Session owner, whose
    // route still names the old owner.
    c.relocate(ACTOR, "a", 2, 3);
    let rebind = c.node(1).bind(SESSION, &c.actor_ref(3, "a")).expect("open");
    let tombstone = sends(c.node(3).on_frame(rid(1), &rebind.bytes));
    let ack = sends(c.node(2).on_frame(rid(3), &tombstone[0].bytes));
    refused(c.node(3).on_frame(rid(4), &ack[0].bytes));
    assert_eq!(c.node(3).stats().tables.parked_binds, 1, "still parked");
    let reply = sends(c.node(3).on_frame(rid(2), &ack[0].bytes));
    assert!(matches!(
        decode(&reply[0].bytes),
        Frame::Session(SessionFrame::BindReply { .. })
    ));
    assert_eq!(c.node(3).stats().tables.parked_binds, 0);
}

#[test]
fn a_refusal_from_a_third_node_leaves_a_cached_route_to_another_node() {
    let c = Cluster::with_defaults(3);
    c.node(2).activate(ACTOR, "a").expect("activation");
    let route = ready(c.node(1).resolve(ACTOR, "a").expect("valid id"));
    for code in [
        wire::RejectionCode::StaleRoute(StaleReason::NotOwner),
        wire::RejectionCode::InvalidOperation,
    ] {
        // Node 3, on its own connection, names node 2's fence.
        let forged = wire::RejectionFrame {
            operation_id: OperationId(1),
            target: actor("a"),
            fence: route.fence,
            rejected_by: c.node(3).node_ref(),
            code,
            reply_route: None,
        };
        c.node(1)
            .on_frame(rid(3), &wire::encode(&Frame::Rejection(forged)));
        assert_eq!(
            c.node(1).lookup_cached(ACTOR, "a").expect("valid"),
            Some(route),
            "{code:?} from node 3 cleared a route to node 2"
        );
    }
}

#[test]
fn a_bound_reply_is_capped_at_one_owner_lease_and_must_name_its_sender() {
    let config = RoutingConfig::default();
    let lease = config.owner_lease_duration;
    let c = Cluster::new(3, config);
    c.node(1).open_session(SESSION, SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let bind = c.node(1).bind(SESSION, &c.actor_ref(2, "a")).expect("open");
    let reply = sends(c.node(2).on_frame(rid(1), &bind.bytes));
    let Frame::Session(SessionFrame::BindReply {
        operation_id,
        session,
        actor: a,
        result: wire::BindResult::Bound { route, binding },
    }) = decode(&reply[0].bytes)
    else {
        panic!("bound")
    };
    let forged = |route: ActorRoute| {
        wire::encode(&Frame::Session(SessionFrame::BindReply {
            operation_id,
            session,
            actor: a.clone(),
            result: wire::BindResult::Bound { route, binding },
        }))
    };
    // A route naming another node than the reply's sender is refused.
    let elsewhere = ActorRoute {
        owner: c.node(3).node_ref(),
        ..route
    };
    refused(c.node(1).on_frame(rid(2), &forged(elsewhere)));
    assert_eq!(c.node(1).binding(SESSION, &actor("a")), None);
    // An endless lease is stored as one owner lease from the bind.
    let sent_at = c.node(1).now();
    let endless = ActorRoute {
        lease_remaining_ms: u64::MAX,
        ..route
    };
    assert!(matches!(
        c.node(1).on_frame(rid(2), &forged(endless)),
        Inbound::Session(SessionEvent::Bound { .. })
    ));
    let stored = c.node(1).binding(SESSION, &actor("a")).expect("bound");
    assert_eq!(stored.admission_deadline, sent_at.after(lease));
}
