//! Issue 12 point 6: every call that produces a frame checks the message
//! bound in the core and returns a typed error; nothing is sent, nothing
//! changes, and nothing panics.

mod cluster;

use cluster::Cluster;
use zlink_core::wire::{ActorRoute, ReplyResult};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const BOUND: usize = 64;

fn small() -> Cluster {
    Cluster::new(
        2,
        RoutingConfig {
            max_message_bytes: BOUND,
            ..RoutingConfig::default()
        },
    )
}

fn too_large(len: usize) -> InputError {
    InputError::PayloadTooLarge { len, max: BOUND }
}

#[test]
fn send_and_request_refuse_a_payload_over_the_bound() {
    let c = small();
    c.node(1).activate(ACTOR, "a").unwrap();
    let over = vec![0u8; BOUND + 1];
    assert_eq!(
        c.node(2)
            .send(ACTOR, "a", &over, SendOptions::default())
            .unwrap_err(),
        too_large(BOUND + 1)
    );
    assert_eq!(
        c.node(2)
            .request(ACTOR, "a", &over, RequestOptions::default())
            .unwrap_err(),
        too_large(BOUND + 1)
    );
    assert_eq!(c.node(2).pending_requests(), 0, "nothing registered");
    assert!(matches!(
        c.node(2)
            .send(ACTOR, "a", &over[..BOUND], SendOptions::default()),
        Ok(Sent::Submitted { .. })
    ));
}

#[test]
fn a_reply_over_the_bound_is_a_typed_error() {
    let c = small();
    c.node(1).activate(ACTOR, "a").unwrap();
    let Requested::Submitted { outbound, .. } = c
        .node(2)
        .request(ACTOR, "a", b"q", RequestOptions::default())
        .unwrap()
    else {
        panic!("submitted")
    };
    let Inbound::Deliver(d) = c.node(1).on_frame(NodeRid(2), &outbound.bytes) else {
        panic!("delivered")
    };
    assert_eq!(
        c.node(1)
            .reply(&d.operation, ReplyResult::Ok(vec![0; BOUND + 1])),
        Err(ReplyRouteError::TooLarge {
            len: BOUND + 1,
            max: BOUND
        })
    );
}

#[test]
fn session_send_and_push_refuse_a_payload_over_the_bound() {
    let c = small();
    let session = c.node(1).open_session(SessionId(7), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").unwrap();
    let end = c.node(2).owner_route_end(ACTOR, "a").unwrap().unwrap();
    let actor = ObjectKey::new(ACTOR, "a").unwrap();
    let r = ActorRef {
        actor: actor.clone(),
        route: ActorRoute {
            owner: end.node,
            object_generation: end.fence.object_generation,
            authority_owner_generation: end.fence.authority_owner_generation,
            owner_lease_generation: end.fence.owner_lease_generation,
            lease_remaining_ms: 0,
        },
    };
    let bind = c.node(1).bind(SessionId(7), &r).unwrap();
    let Inbound::Send(reply) = c.node(2).on_frame(NodeRid(1), &bind.bytes) else {
        panic!("answered")
    };
    c.node(1).on_frame(NodeRid(2), &reply[0].bytes);
    let over = vec![1u8; BOUND + 1];
    assert_eq!(
        c.node(1).session_send(SessionId(7), &actor, &over),
        Err(SessionError::PayloadTooLarge {
            len: BOUND + 1,
            max: BOUND
        })
    );
    assert_eq!(
        c.node(2).push(&actor, &session, &over),
        Err(too_large(BOUND + 1))
    );
    // Nothing was sent: the Session's order has no gap.
    match c.node(1).session_send(SessionId(7), &actor, b"ok").unwrap() {
        SessionSend::Sent { sequence, .. } => assert_eq!(sequence, 1),
        other => panic!("{other:?}"),
    }
}
