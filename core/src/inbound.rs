//! Frames in, decisions out (DESIGN §3): what this runtime does with every
//! frame that reaches it: admit an operation, relay it on a Message Follow
//! route (and notify its sender), refuse it, end one of its own operations,
//! or refresh a route after a relay notification.

use crate::follow::DedupKey;
use crate::ids::{CorrelationId, NodeRid, ObjectGeneration, ObjectKey, OperationId};
use crate::relocation::RelocationAction;
use crate::reply::Completion;
use crate::resolve::UnavailableReason;
use crate::route::RouteFence;
use crate::send::Outbound;
use crate::session::{SessionDelivery, SessionEvent};
use crate::wire::{NodeRef, Operation, WireError};

/// What to do with an inbound frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// Put the operation on the local application queue of the current
    /// Ready object.
    Deliver(Delivery),
    /// Carry `forward` to the new owner; send `notice` to the original sender
    /// if present and report its fate with [`Runtime::notice_settled`](crate::Runtime::notice_settled).
    Relay {
        /// The relayed operation, for the new owner.
        forward: Outbound,
        /// Command 50 for the original sender, when one is due.
        notice: Option<Notice>,
    },
    /// Carry this rejection back to the operation's origin.
    Reject(Outbound),
    /// One of this runtime's one-way operations ended without delivery.
    Ended(Ended),
    /// One of this runtime's requests reached its one terminal result.
    Completed(Completion),
    /// A reply or refusal for a request that already ended: dropped and
    /// counted (the request's result is not changed).
    Late {
        /// The request it was for.
        correlation: CorrelationId,
    },
    /// A relay notification was applied; `invalidated` says whether a
    /// cached route matched and was dropped.
    RouteRefreshed {
        /// Whether an entry was removed.
        invalidated: bool,
    },
    /// Not a valid frame: dropped, nothing acted on.
    Dropped(WireError),
    /// Carry these frames (session protocol answers: bind replies,
    /// tombstones and ACKs, command 43, relays released by command 44, …).
    Send(Vec<Outbound>),
    /// A session relay admitted on this Actor owner: hand it to the Actor.
    SessionDeliver(SessionDelivery),
    /// A Session-side event on this Session owner.
    Session(SessionEvent),
    /// A frame on a manual peer connection that fails the admission fence
    /// (no descriptor installed, not open, another routing ID or lifecycle
    /// generation): dropped, nothing acted on.
    PeerRefused,
    /// The operation is held for a relocation (the source's ingress hold or
    /// the target's temporary queue): nothing to do now; it is delivered
    /// once, on the side that ends up owning the object, or refused.
    Held,
    /// A relocation step (§3.3): an event, operations to deliver in order,
    /// frames to carry.
    Relocation(RelocationAction),
    /// After a store recovery event, the store's record no longer names
    /// this node as the owner it was (a failover lost the write it acted
    /// on, and another node may own the object now): stop running the
    /// object here. Work held for it was refused (from `on_timeout`).
    OwnershipLost(crate::reconfirm::OwnershipLost),
    /// A frame whose last sender is not the node of the connection it came
    /// on (DESIGN §5.10): refused and counted, nothing acted on.
    ForeignSender {
        /// The node of the connection it came on.
        connection: NodeRid,
        /// The node the frame names as its sender, when it names one.
        claimed: Option<NodeRid>,
    },
}

/// An admitted operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The operation as it arrived (identity, payload, reply route intact).
    pub operation: Operation,
    /// The incarnation that processes it (may differ from the operation's:
    /// ObjectGeneration is not a target condition, §2.6).
    pub object_generation: ObjectGeneration,
}

/// A command 50 notification to send, and the token to report its fate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The notification and the sender it goes to.
    pub outbound: Outbound,
    /// Give it back to [`Runtime::notice_settled`](crate::Runtime::notice_settled) once sent or failed.
    pub token: NoticeToken,
}

/// Identifies a notification in the dedup registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeToken {
    pub(crate) target: ObjectKey,
    pub(crate) key: DedupKey,
}

/// A [`NoticeToken`]'s values, for hosts that keep the token as plain data
/// (a managed language's value) and give it back later. A token rebuilt
/// from other values names no notification: settling it does nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeParts {
    /// The object the route is about.
    pub target: ObjectKey,
    /// The sender the notification goes to.
    pub origin: NodeRef,
    /// The route fence that sender used.
    pub source_fence: RouteFence,
    /// The fence of the route's destination end.
    pub destination_fence: RouteFence,
}

impl From<&NoticeToken> for NoticeParts {
    fn from(t: &NoticeToken) -> Self {
        NoticeParts {
            target: t.target.clone(),
            origin: t.key.origin,
            source_fence: t.key.source_fence,
            destination_fence: t.key.destination_fence,
        }
    }
}

impl From<NoticeParts> for NoticeToken {
    fn from(p: NoticeParts) -> Self {
        NoticeToken {
            target: p.target,
            key: DedupKey {
                origin: p.origin,
                source_fence: p.source_fence,
                destination_fence: p.destination_fence,
            },
        }
    }
}

/// How an operation ended without delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The route or owner could not be used; not resubmitted.
    Unavailable(UnavailableReason),
    /// A Message Follow route belonged to another incarnation or tenure.
    InvalidOperation,
}

/// An operation of this runtime that ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// Which operation.
    pub operation_id: OperationId,
    /// Its target.
    pub target: ObjectKey,
    /// How it ended.
    pub failure: Failure,
}
