//! Session frames (spec §3): bind and rebind with tombstones, relays on the
//! stored binding route, Actor pushes, refusals, and the relocation commands
//! 42 (seal), 43 (sealed) and 44 (route commit / abort).

use super::NodeRef;
use crate::ids::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, ObjectGeneration, ObjectKey,
    OperationId, OwnerLeaseGeneration, RelocationId, SessionGeneration, SessionId,
};

/// A Session as the wire names it: the Session owner runtime, the session
/// and its lifecycle generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionRef {
    /// The runtime that owns the Session (its STREAM connection).
    pub owner: NodeRef,
    /// The session.
    pub id: SessionId,
    /// Its lifecycle generation.
    pub generation: SessionGeneration,
}

/// A binding's identity, issued by the Actor owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Its generation.
    pub generation: BindingGeneration,
    /// Its token.
    pub token: BindingToken,
}

/// An Actor route as a binding stores it (§3.1): where the Actor's owner is
/// and the fences that must still hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActorRoute {
    /// The owner node (mesh, RID, node generation).
    pub owner: NodeRef,
    /// The Actor's incarnation.
    pub object_generation: ObjectGeneration,
    /// The owner generation.
    pub authority_owner_generation: AuthorityOwnerGeneration,
    /// The owner lease.
    pub owner_lease_generation: OwnerLeaseGeneration,
    /// Lease time left at the owner when it answered (ms); 0 in a bind
    /// request (the caller's ActorRef has no lease view).
    pub lease_remaining_ms: u64,
}

/// Why an Actor owner refused a bind (§3.1 list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BindRefusal {
    /// This node does not own the Actor (or it is not Ready).
    NotOwner = 1,
    /// Another incarnation than the ActorRef names.
    ObjectGeneration = 2,
    /// Another node lifecycle than the ActorRef names.
    NodeGeneration = 3,
    /// Another authority owner generation.
    OwnerGeneration = 4,
    /// Another owner lease, or it has run out.
    OwnerLease = 5,
    /// No terminal answer within `session_bind_timeout` (the previous owner
    /// never ACKed the rebind's tombstone, or no reply came at all): the
    /// bind is not registered. When the Session owner's own bind deadline
    /// passes, it drops a rebind's previous route too (it may be tombstoned
    /// already) and tombstones it at its owner: bind again.
    Timeout = 6,
}

/// A bind's terminal answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindResult {
    /// Registered: store this verified route and binding.
    Bound {
        /// The verified route.
        route: ActorRoute,
        /// The registered binding.
        binding: Binding,
    },
    /// Refused; nothing registered.
    Refused(BindRefusal),
}

/// What a session relay carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RelayKind {
    /// An application message from the Session to the Actor.
    Message = 1,
    /// The physical connection closed.
    PhysicalDisconnect = 2,
    /// The application ended the session logically.
    LogicalDisconnect = 3,
}

/// Why an Actor owner refused a session relay or push target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SessionRefusal {
    /// No such binding here (never bound, tombstoned, or replaced).
    UnknownBinding = 1,
    /// The route is stale and no Message Follow route serves it.
    StaleRoute = 2,
    /// Another incarnation than the binding's.
    ObjectGeneration = 3,
}

/// What command 44 does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteChange {
    /// The relocation committed: switch to this route.
    Commit(ActorRoute),
    /// The relocation failed before relay-ready: keep the source route.
    Abort,
    /// Not a relocation: the owner renewed its lease; the same tenure's route
    /// with the lease time left now (the relocation id is 0).
    Refresh(ActorRoute),
}

/// A session frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionFrame {
    /// Command 10: Session owner → Actor owner (the ActorRef's location).
    Bind {
        /// The bind operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The ActorRef's location as the caller gave it.
        route: ActorRoute,
        /// For a rebind: the owner and binding being replaced.
        previous: Option<(NodeRef, Binding)>,
    },
    /// Command 11: Actor owner → Session owner, the terminal reply.
    BindReply {
        /// The bind operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Bound or refused.
        result: BindResult,
    },
    /// Command 12: new owner → previous owner, removing a replaced binding.
    Tombstone {
        /// The rebind it belongs to.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding to remove (and only that one).
        binding: Binding,
        /// Who asks (the new owner), to send the ACK to.
        by: NodeRef,
    },
    /// Command 13: previous owner → new owner.
    TombstoneAck {
        /// The rebind it belongs to.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding named.
        binding: Binding,
    },
    /// Command 14: Session owner → Actor owner on the stored route.
    Relay {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding it travels under.
        binding: Binding,
        /// The route it was sent on (its owner fence).
        route: ActorRoute,
        /// Order of the Session's messages.
        sequence: u64,
        /// Message Follow hops so far.
        hop_count: u8,
        /// The node that relayed this hop: `None` exactly at hop 0, where
        /// the Session owner sent it.
        relayer: Option<NodeRef>,
        /// Message or disconnect.
        kind: RelayKind,
        /// Opaque bytes (empty for disconnects).
        payload: Vec<u8>,
    },
    /// Command 15: Actor owner → Session owner on the binding.
    Push {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding it travels under.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// Opaque bytes.
        payload: Vec<u8>,
    },
    /// Command 16: Actor owner → Session owner, a relay it refused.
    Refused {
        /// The refused operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: SessionRefusal,
    },
    /// Command 42 sessionRelocationSeal: source → Session owner.
    Seal {
        /// The session.
        session: SessionRef,
        /// The Actor relocating.
        actor: ObjectKey,
        /// The binding sealed.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// The relocation.
        relocation: RelocationId,
        /// The source coordinator, to reply to.
        source: NodeRef,
    },
    /// Command 43: Session owner → source, the seal installed (or not).
    Sealed {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The relocation.
        relocation: RelocationId,
        /// Whether the seal was installed.
        sealed: bool,
    },
    /// Command 44 sessionRelocationRoute: one-way, no reply.
    Route {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// The relocation.
        relocation: RelocationId,
        /// Commit or abort.
        change: RouteChange,
    },
}

impl SessionFrame {
    /// The frame's command number.
    pub fn command(&self) -> u8 {
        match self {
            SessionFrame::Bind { .. } => 10,
            SessionFrame::BindReply { .. } => 11,
            SessionFrame::Tombstone { .. } => 12,
            SessionFrame::TombstoneAck { .. } => 13,
            SessionFrame::Relay { .. } => 14,
            SessionFrame::Push { .. } => 15,
            SessionFrame::Refused { .. } => 16,
            SessionFrame::Seal { .. } => 42,
            SessionFrame::Sealed { .. } => 43,
            SessionFrame::Route { .. } => 44,
        }
    }
}
