//! The surface types from the core's values and the bridge's flat results:
//! the one hand-written step between a core change and `make schema`.

use zlink_core::wire::{
    ActorRoute as CoreActorRoute, NodeRef as CoreNodeRef, RouteEnd as CoreRouteEnd,
    SessionRef as CoreSessionRef,
};
use zlink_core::{
    Outbound as CoreOutbound, OwnedObject as CoreOwned, ReadyRoute as CoreReadyRoute,
    RouteFence as CoreFence,
};

use super::*;
use crate::codes::{ResolutionTag, SentTag, SessionSentTag};
use crate::decision::{Resolved, Sent, SessionSent as FlatSessionSent};

impl From<&CoreFence> for RouteFence {
    fn from(f: &CoreFence) -> Self {
        RouteFence {
            object_generation: f.object_generation.get(),
            authority_owner_generation: f.authority_owner_generation.get(),
            owner_lease_generation: f.owner_lease_generation.get(),
            node_generation: f.node_generation.get(),
            store_version: f.store_version.get(),
        }
    }
}

impl From<&CoreReadyRoute> for ReadyRoute {
    fn from(r: &CoreReadyRoute) -> Self {
        ReadyRoute {
            mesh: r.route.mesh.as_str().to_owned(),
            node: r.route.node.get(),
            fence: RouteFence::from(&r.fence),
            admission_deadline_ms: r.admission_deadline.as_millis(),
        }
    }
}

impl From<&CoreNodeRef> for NodeRef {
    fn from(n: &CoreNodeRef) -> Self {
        NodeRef {
            mesh: n.mesh.as_str().to_owned(),
            rid: n.rid.get(),
            generation: n.generation.get(),
        }
    }
}

impl From<&CoreOutbound> for Outbound {
    fn from(o: &CoreOutbound) -> Self {
        Outbound {
            to: NodeRef::from(&o.to),
            bytes: o.bytes.clone(),
        }
    }
}

impl From<&CoreOwned> for OwnedObject {
    fn from(o: &CoreOwned) -> Self {
        OwnedObject {
            state: o.state.into(),
            object_generation: o.object_generation.get(),
            authority_owner_generation: o.authority_owner_generation.get(),
            lease_generation: o.lease_generation.get(),
            store_version: o.store_version.get(),
            admission_deadline_ms: o.admission_deadline.as_millis(),
        }
    }
}

impl From<&CoreRouteEnd> for RouteEnd {
    fn from(e: &CoreRouteEnd) -> Self {
        RouteEnd {
            node: NodeRef::from(&e.node),
            fence: RouteFence::from(&e.fence),
        }
    }
}

impl From<&CoreSessionRef> for SessionRef {
    fn from(s: &CoreSessionRef) -> Self {
        SessionRef {
            owner: NodeRef::from(&s.owner),
            id: s.id.get(),
            generation: s.generation.get(),
        }
    }
}

impl From<&CoreActorRoute> for ActorRoute {
    fn from(r: &CoreActorRoute) -> Self {
        ActorRoute {
            owner: NodeRef::from(&r.owner),
            object_generation: r.object_generation.get(),
            authority_owner_generation: r.authority_owner_generation.get(),
            owner_lease_generation: r.owner_lease_generation.get(),
            lease_remaining_ms: r.lease_remaining_ms,
        }
    }
}

fn unavailable(reason: crate::codes::UnavailableReason) -> Unavailable {
    Unavailable { reason }
}

fn store_failure(kind: crate::codes::StoreError, message: &str) -> StoreFailure {
    StoreFailure {
        kind,
        message: message.to_owned(),
    }
}

impl From<&Resolved> for Resolution {
    fn from(r: &Resolved) -> Self {
        match (r.tag, &r.route) {
            (ResolutionTag::ReadyRoute, Some(route)) => {
                Resolution::ReadyRoute(ReadyRoute::from(route))
            }
            (ResolutionTag::Unavailable, _) => Resolution::Unavailable(unavailable(r.reason)),
            (ResolutionTag::StoreFailure, _) => {
                Resolution::StoreFailure(store_failure(r.store_error, &r.store_message))
            }
            // `Resolved` has a route exactly when it is a ReadyRoute.
            _ => Resolution::Missing(Missing {}),
        }
    }
}

impl From<&Sent> for SendResult {
    fn from(s: &Sent) -> Self {
        match (s.tag, &s.outbound) {
            (SentTag::Submitted, Some(o)) => SendResult::Submitted(Submitted {
                operation_id: s.operation_id,
                outbound: Outbound::from(o),
                correlation: s.correlation,
            }),
            (SentTag::ColdActivation, _) => SendResult::ColdActivation(ColdActivation {}),
            (SentTag::Unavailable, _) => SendResult::Unavailable(unavailable(s.reason)),
            (SentTag::StoreFailure, _) => {
                SendResult::StoreFailure(store_failure(s.store_error, &s.store_message))
            }
            // `Sent` has an outbound exactly when it is Submitted.
            _ => SendResult::NotFound(NotFound {}),
        }
    }
}

impl From<&FlatSessionSent> for SessionSendResult {
    fn from(s: &FlatSessionSent) -> Self {
        match (s.tag, &s.outbound) {
            (SessionSentTag::Sent, Some(o)) => SessionSendResult::SessionSent(SessionSent {
                operation_id: s.operation_id,
                sequence: s.sequence,
                outbound: Outbound::from(o),
            }),
            (SessionSentTag::Held, _) => SessionSendResult::SessionHeld(SessionHeld {
                operation_id: s.operation_id,
                sequence: s.sequence,
            }),
            _ => SessionSendResult::Unavailable(unavailable(s.reason)),
        }
    }
}
