//! Session binding routes (spec §3): a Session owner verifies an Actor's
//! route once, at bind, and relays on it afterwards without any lookup;
//! the route changes only by a rebind's terminal reply or a relocation's
//! command 44.

mod actor;
mod owner;
mod route_change;
mod table;

use std::sync::Arc;

pub use crate::wire::Registration;
pub(crate) use actor::{ActorBindings, RelayIn, own_route};
pub(crate) use owner::SessionOwner;
pub use table::BindingRoute;

use crate::clock::MonoTime;
use crate::config::RoutingConfig;
use crate::ids::{NodeRid, ObjectKey, OperationId, RelocationId, SessionId, UniqueIds};
use crate::reason::UnavailableReason;
use crate::send::Outbound;
use crate::stats::Counters;
use crate::wire::{
    ActorRoute, BindRefusal, Frame, NodeRef, RelayKind, SessionFrame, SessionRef, SessionRefusal,
};

/// What the session machines need from their runtime for one call: time
/// is an argument, never read behind the caller's back.
pub(crate) struct Ctx<'a> {
    /// The runtime's clock now.
    pub(crate) now: MonoTime,
    /// This runtime on the wire.
    pub(crate) me: NodeRef,
    /// The config in force.
    pub(crate) config: Arc<RoutingConfig>,
    /// Operation IDs and binding tokens.
    pub(crate) ids: &'a UniqueIds,
    /// Where the machines count what they did.
    pub(crate) counters: &'a Counters,
    /// Where they record how long a bind took.
    pub(crate) latencies: &'a crate::latency::Latencies,
}

/// What a session machine decided; the runtime turns it into a host action.
#[derive(Debug)]
pub(crate) enum SessionStep {
    /// Carry these frames.
    Send(Vec<Outbound>),
    /// A Session-side event.
    Event(SessionEvent),
    /// A session relay admitted for a local Actor.
    Deliver(SessionDelivery),
    /// The frame did not come from the node the state names (that node, if
    /// known): refused, nothing changed.
    Foreign(Option<NodeRid>),
}

/// An ActorRef as a caller holds it: the Actor and the location it names.
/// Bind starts from this location; nothing is looked up before the bind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorRef {
    /// The Actor.
    pub actor: ObjectKey,
    /// Its location and fences as the reference names them.
    pub route: ActorRoute,
}

/// A session relay admitted on the Actor owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDelivery {
    /// The operation.
    pub operation_id: OperationId,
    /// The Session it came from.
    pub session: SessionRef,
    /// The Actor it is for.
    pub actor: ObjectKey,
    /// Its place in the Session's order.
    pub sequence: u64,
    /// Message or disconnect.
    pub kind: RelayKind,
    /// Opaque bytes.
    pub payload: Vec<u8>,
}

/// What became of a session relay on the Session owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionSend {
    /// Carry `outbound` on the stored route.
    Sent {
        /// The operation.
        operation_id: OperationId,
        /// Its place in the Session's order.
        sequence: u64,
        /// The frame and its destination.
        outbound: Outbound,
    },
    /// The Actor is relocating (sealed): held, sent in order by command 44.
    Held {
        /// The operation.
        operation_id: OperationId,
        /// Its place in the Session's order.
        sequence: u64,
    },
    /// The stored route is past the owner lease's local admission deadline:
    /// the operation ends, nothing is looked up.
    Unavailable(UnavailableReason),
}

/// Session calls on an unknown session or Actor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No such open Session on this runtime.
    #[error("no open session {0}")]
    UnknownSession(SessionId),
    /// The Session was disconnected; it only waits for its relocations.
    #[error("session {0} is disconnected")]
    Closing(SessionId),
    /// The binding is sealed for a relocation: rebind after its command 44.
    #[error("session {session}'s binding to {actor} is sealed for a relocation")]
    Sealed {
        /// The session.
        session: SessionId,
        /// The Actor.
        actor: ObjectKey,
    },
    /// The Session has no binding to that Actor.
    #[error("session {session} has no binding to {actor}")]
    NotBound {
        /// The session.
        session: SessionId,
        /// The Actor.
        actor: ObjectKey,
    },
    /// The payload is over the negotiated message bound: nothing was sent.
    #[error("payload is {len} bytes, over the {max}-byte message bound")]
    PayloadTooLarge {
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
}

/// A Session-side event `on_frame` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEvent {
    /// A bind (or rebind) reached its terminal reply: the route is stored.
    Bound {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The stored route.
        route: Box<BindingRoute>,
    },
    /// A bind was refused; any previous route is kept.
    BindRefused {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: BindRefusal,
    },
    /// The Actor pushed to the Session.
    Pushed {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Opaque bytes.
        payload: Vec<u8>,
    },
    /// A relay was refused by the Actor side: it ends Unavailable.
    RelayRefused {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: SessionRefusal,
    },
    /// The source coordinator learns whether a Session sealed (command 43).
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
    /// No command 44 came within the seal timeout: the Session is closed
    /// and its binding, held and seal state are gone (§3.3 step 8). The
    /// disconnect notifications to its other Actors follow as a `Send`.
    Closed {
        /// The session.
        session: SessionRef,
    },
    /// A frame that does not match current state (stale binding, unknown
    /// session, mismatched relocation) was ignored.
    Ignored(&'static str),
}

/// A session frame from `from` (this runtime) to `to`.
fn out(from: NodeRef, to: NodeRef, frame: SessionFrame) -> Outbound {
    Outbound::frame(from, to, &Frame::Session(frame))
}
