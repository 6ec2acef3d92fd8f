//! The surface types from the core's values and the bridge's flat results:
//! the one hand-written step between a core change and `make schema`.

use zlink_core as core;
use zlink_core::wire::{
    ActorRoute as CoreActorRoute, NodeRef as CoreNodeRef, RouteEnd as CoreRouteEnd,
    SessionRef as CoreSessionRef,
};
use zlink_core::{
    Outbound as CoreOutbound, OwnedObject as CoreOwned, ReadyRoute as CoreReadyRoute,
    RouteFence as CoreFence,
};

use super::*;
use crate::codes::{RequestErrorKind, ResolutionTag, SentTag, SessionSentTag};
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
            sender: NodeRef::from(&o.sender),
            to: NodeRef::from(&o.to),
            command: FrameCommand::of(&o.bytes),
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

// ---- decisions: from the core's values, moved (frames and payloads are
// not copied) ---------------------------------------------------------

impl From<CoreOutbound> for Outbound {
    fn from(o: CoreOutbound) -> Self {
        Outbound {
            sender: NodeRef::from(&o.sender),
            to: NodeRef::from(&o.to),
            command: FrameCommand::of(&o.bytes),
            bytes: o.bytes,
        }
    }
}

fn outbounds(frames: Vec<CoreOutbound>) -> Vec<Outbound> {
    frames.into_iter().map(Outbound::from).collect()
}

impl From<&core::SpotExecution> for SpotExecution {
    fn from(e: &core::SpotExecution) -> Self {
        SpotExecution {
            spot: e.spot.id().to_owned(),
            object_generation: e.object_generation.get(),
        }
    }
}

impl From<&core::wire::Binding> for Binding {
    fn from(b: &core::wire::Binding) -> Self {
        Binding {
            generation: b.generation.get(),
            token: b.token.get(),
        }
    }
}

impl From<&core::BindingRoute> for BindingRoute {
    fn from(b: &core::BindingRoute) -> Self {
        BindingRoute {
            actor: b.actor.id().to_owned(),
            route: ActorRoute::from(&b.route),
            binding: Binding::from(&b.binding),
            session: SessionRef::from(&b.session),
            admission_deadline_ms: b.admission_deadline.as_millis(),
        }
    }
}

impl From<&core::RelocationIdentity> for RelocationIdentity {
    fn from(i: &core::RelocationIdentity) -> Self {
        RelocationIdentity {
            relocation: i.relocation.get(),
            kind: i.key.kind().into(),
            id: i.key.id().to_owned(),
            object_generation: i.object_generation.get(),
        }
    }
}

impl From<core::Outcome> for Outcome {
    fn from(o: core::Outcome) -> Self {
        let error = |kind, reason, code, message| {
            Outcome::Error(outcome::Error {
                kind,
                reason,
                code,
                message,
            })
        };
        match o {
            core::Outcome::Reply(payload) => Outcome::Reply(outcome::Reply { payload }),
            core::Outcome::Error(core::RequestError::Replied(r)) => {
                let kind = match r.kind {
                    core::wire::ReplyErrorKind::Handler => RequestErrorKind::Handler,
                    core::wire::ReplyErrorKind::Decode => RequestErrorKind::Decode,
                };
                error(kind, None, r.code, r.message)
            }
            core::Outcome::Error(core::RequestError::Unavailable(r)) => error(
                RequestErrorKind::Unavailable,
                Some(r.into()),
                0,
                String::new(),
            ),
            core::Outcome::Error(core::RequestError::InvalidOperation) => {
                error(RequestErrorKind::InvalidOperation, None, 0, String::new())
            }
            core::Outcome::Timeout => Outcome::Timeout(outcome::Timeout {}),
            core::Outcome::Cancelled => Outcome::Cancelled(outcome::Cancelled {}),
            core::Outcome::Shutdown => Outcome::Shutdown(outcome::Shutdown {}),
        }
    }
}

impl From<core::Completion> for Completion {
    fn from(c: core::Completion) -> Self {
        Completion {
            correlation: c.correlation.get(),
            operation_id: c.operation_id.get(),
            kind: c.target.kind().into(),
            id: c.target.id().to_owned(),
            outcome: c.outcome.into(),
            origin: c.origin.as_ref().map(SpotExecution::from),
            origin_gone: c.origin_gone,
        }
    }
}

impl From<core::Delivery> for Deliver {
    fn from(d: core::Delivery) -> Self {
        Deliver {
            object_generation: d.object_generation.get(),
            operation: d.operation,
        }
    }
}

impl From<core::SessionDelivery> for SessionDeliver {
    fn from(d: core::SessionDelivery) -> Self {
        SessionDeliver {
            operation_id: d.operation_id.get(),
            session: SessionRef::from(&d.session),
            actor: d.actor.id().to_owned(),
            sequence: d.sequence,
            relay_kind: d.kind.into(),
            payload: d.payload,
        }
    }
}

impl From<core::Ended> for Ended {
    fn from(e: core::Ended) -> Self {
        let (failure, reason) = match e.failure {
            core::Failure::Unavailable(r) => (Failure::Unavailable, Some(r.into())),
            core::Failure::InvalidOperation => (Failure::InvalidOperation, None),
        };
        Ended {
            operation_id: e.operation_id.get(),
            kind: e.target.kind().into(),
            id: e.target.id().to_owned(),
            failure,
            reason,
        }
    }
}

impl From<core::SessionEvent> for Inbound {
    fn from(event: core::SessionEvent) -> Self {
        use core::SessionEvent as E;
        let actor = |k: &core::ObjectKey| k.id().to_owned();
        match event {
            E::Bound {
                session,
                actor: a,
                route,
            } => Inbound::Bound(Bound {
                session: SessionRef::from(&session),
                actor: actor(&a),
                route: BindingRoute::from(route.as_ref()),
            }),
            E::BindRefused {
                session,
                actor: a,
                reason,
            } => Inbound::BindRefused(BindRefused {
                session: SessionRef::from(&session),
                actor: actor(&a),
                reason: reason.into(),
            }),
            E::Pushed {
                session,
                actor: a,
                payload,
            } => Inbound::Pushed(Pushed {
                session: SessionRef::from(&session),
                actor: actor(&a),
                payload,
            }),
            E::RelayRefused {
                operation_id,
                session,
                actor: a,
                reason,
            } => Inbound::RelayRefused(RelayRefused {
                operation_id: operation_id.get(),
                session: SessionRef::from(&session),
                actor: actor(&a),
                reason: reason.into(),
            }),
            E::Sealed {
                session,
                actor: a,
                relocation,
                sealed,
            } => Inbound::Sealed(Sealed {
                session: SessionRef::from(&session),
                actor: actor(&a),
                relocation: relocation.get(),
                sealed,
            }),
            E::Closed { session } => Inbound::SessionClosed(SessionClosed {
                session: SessionRef::from(&session),
            }),
            E::Ignored(why) => Inbound::Ignored(Ignored {
                reason: why.to_owned(),
            }),
        }
    }
}

impl From<core::RelocationEvent> for RelocationEvent {
    fn from(event: core::RelocationEvent) -> Self {
        use core::RelocationEvent as E;
        use relocation_event as r;
        let id = RelocationIdentity::from;
        match event {
            E::Restore {
                identity,
                source,
                state,
            } => RelocationEvent::Restore(r::Restore {
                identity: id(&identity),
                source_rid: source.rid.get(),
                source_generation: source.generation.get(),
                state,
            }),
            E::Cutover { identity, relayed } => RelocationEvent::Cutover(r::Cutover {
                identity: id(&identity),
                relayed,
            }),
            E::Committed { identity, source } => RelocationEvent::Committed(r::Committed {
                identity: id(&identity),
                source_rid: source.rid.get(),
                source_generation: source.generation.get(),
            }),
            E::HandedOff { identity, target } => RelocationEvent::HandedOff(r::HandedOff {
                identity: id(&identity),
                target_rid: target.rid.get(),
                target_generation: target.generation.get(),
            }),
            E::Aborting { identity, reason } => RelocationEvent::Aborting(r::Aborting {
                identity: id(&identity),
                reason: reason.into(),
            }),
            E::Aborted { identity, reason } => RelocationEvent::Aborted(r::Aborted {
                identity: id(&identity),
                reason: reason.into(),
            }),
            E::Failed { identity, reason } => RelocationEvent::Failed(r::Failed {
                identity: id(&identity),
                reason: reason.into(),
            }),
            E::CommitRetry { identity } => RelocationEvent::CommitRetry(r::CommitRetry {
                identity: id(&identity),
            }),
            E::CommitDue { identity } => RelocationEvent::CommitDue(r::CommitDue {
                identity: id(&identity),
            }),
            E::Ignored { identity, refusal } => RelocationEvent::Ignored(r::Ignored {
                identity: id(&identity),
                refusal: refusal.into(),
            }),
        }
    }
}

impl From<core::RelocationAction> for Relocation {
    fn from(a: core::RelocationAction) -> Self {
        Relocation {
            event: a.event.into(),
            deliver: a.deliver.into_iter().map(Deliver::from).collect(),
            send: outbounds(a.send),
            session: a.session.into_iter().map(SessionDeliver::from).collect(),
        }
    }
}

impl From<core::Inbound> for Inbound {
    fn from(inbound: core::Inbound) -> Self {
        use core::Inbound as I;
        match inbound {
            I::Deliver(d) => Inbound::Deliver(d.into()),
            I::Relay { forward, notice } => Inbound::Relay(Relay {
                forward: forward.into(),
                notice: notice.map(|n| Notice {
                    outbound: n.outbound.into(),
                    token: n.token,
                }),
            }),
            I::Reject(o) => Inbound::Reject(Reject { outbound: o.into() }),
            I::Ended(e) => Inbound::Ended(e.into()),
            I::Completed(c) => Inbound::Completed(Completed {
                completion: c.into(),
            }),
            I::Late { correlation } => Inbound::Late(Late {
                correlation: correlation.get(),
            }),
            I::RouteRefreshed { invalidated } => {
                Inbound::RouteRefreshed(RouteRefreshed { invalidated })
            }
            I::Dropped(e) => Inbound::Dropped(Dropped {
                kind: (&e).into(),
                error: e.to_string(),
            }),
            I::Send(frames) => Inbound::Send(Send {
                outbounds: outbounds(frames),
            }),
            I::SessionDeliver(d) => Inbound::SessionDeliver(d.into()),
            I::Session(e) => e.into(),
            I::PeerRefused => Inbound::PeerRefused(PeerRefused {}),
            I::Held => Inbound::Held(Held {}),
            I::Relocation(a) => Inbound::Relocation(a.into()),
            I::OwnershipLost(lost) => Inbound::OwnershipLost(OwnershipLost {
                kind: lost.key.kind().into(),
                id: lost.key.id().to_owned(),
                reason: lost.reason.into(),
            }),
            I::ForeignSender {
                connection,
                claimed,
            } => Inbound::ForeignSender(ForeignSender {
                connection: connection.get(),
                claimed: claimed.map(|c| c.get()),
            }),
        }
    }
}

// ---- what hosts give back: the core's values again -------------------

impl TryFrom<&NodeRef> for CoreNodeRef {
    type Error = crate::Error;

    fn try_from(n: &NodeRef) -> crate::Result<Self> {
        Ok(CoreNodeRef {
            mesh: core::MeshName::new(&n.mesh)?,
            rid: core::NodeRid(n.rid),
            generation: core::NodeGeneration(n.generation),
        })
    }
}

impl From<&RouteFence> for CoreFence {
    fn from(f: &RouteFence) -> Self {
        CoreFence {
            object_generation: core::ObjectGeneration(f.object_generation),
            authority_owner_generation: core::AuthorityOwnerGeneration(
                f.authority_owner_generation,
            ),
            owner_lease_generation: core::OwnerLeaseGeneration(f.owner_lease_generation),
            node_generation: core::NodeGeneration(f.node_generation),
            store_version: core::StoreVersion(f.store_version),
        }
    }
}

impl TryFrom<&RouteEnd> for CoreRouteEnd {
    type Error = crate::Error;

    fn try_from(e: &RouteEnd) -> crate::Result<Self> {
        Ok(CoreRouteEnd {
            node: CoreNodeRef::try_from(&e.node)?,
            fence: CoreFence::from(&e.fence),
        })
    }
}

impl TryFrom<&SessionRef> for CoreSessionRef {
    type Error = crate::Error;

    fn try_from(s: &SessionRef) -> crate::Result<Self> {
        Ok(CoreSessionRef {
            owner: CoreNodeRef::try_from(&s.owner)?,
            id: core::SessionId(s.id),
            generation: core::SessionGeneration(s.generation),
        })
    }
}

impl TryFrom<&ActorRoute> for CoreActorRoute {
    type Error = crate::Error;

    fn try_from(r: &ActorRoute) -> crate::Result<Self> {
        Ok(CoreActorRoute {
            owner: CoreNodeRef::try_from(&r.owner)?,
            object_generation: core::ObjectGeneration(r.object_generation),
            authority_owner_generation: core::AuthorityOwnerGeneration(
                r.authority_owner_generation,
            ),
            owner_lease_generation: core::OwnerLeaseGeneration(r.owner_lease_generation),
            lease_remaining_ms: r.lease_remaining_ms,
        })
    }
}

impl TryFrom<&SpotExecution> for core::SpotExecution {
    type Error = crate::Error;

    fn try_from(e: &SpotExecution) -> crate::Result<Self> {
        crate::runtime::spot_execution(e.spot.as_str(), e.object_generation)
    }
}
