//! Target-side admission of an inbound direct message (§2.1 step 5, §2.6;
//! DESIGN §5.4), and what the sender does with a rejection.

use crate::authority::AuthorityState;
use crate::clock::MonoTime;
use crate::ids::{KeyRef, NodeIdentity, NodeRid, ObjectGeneration};
use crate::ownership::OwnedObject;
pub use crate::reason::StaleReason;
use crate::reason::UnavailableReason;
use crate::route::RouteFence;

/// What an owner needs from an inbound direct message to admit it: the
/// logical target, the node it was sent to, and the sender's route fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboundDirect<'a> {
    /// The global ID the message is for.
    pub target: KeyRef<'a>,
    /// The node the sender routed to.
    pub to_node: NodeRid,
    /// The fence of the route the sender used.
    pub fence: RouteFence,
}

/// An admission refusal, sent back to the sender with the fence it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// The sender's route is stale; it drops that route if it still holds it
    /// and ends the operation `Unavailable` (no resubmit).
    StaleRoute {
        /// Why.
        reason: StaleReason,
        /// The fence the sender routed with.
        fence: RouteFence,
    },
    /// This node is the owner but cannot admit now.
    Unavailable {
        /// Why.
        reason: UnavailableReason,
        /// The fence the sender routed with.
        fence: RouteFence,
    },
}

/// The admission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Put the message on the current Ready object's application queue.
    Accept {
        /// The incarnation that will process it (it may differ from the
        /// sender's: ObjectGeneration is not a target condition, §2.6).
        object_generation: ObjectGeneration,
    },
    /// Refuse it.
    Reject(Rejection),
}

/// Admits or rejects `msg` on node `me`, which holds `owned` for its target
/// (if anything), at `now`. Reads nothing else.
pub(crate) fn admit(
    me: NodeIdentity,
    owned: Option<OwnedObject>,
    msg: &InboundDirect<'_>,
    now: MonoTime,
) -> Admission {
    let stale = |reason| {
        Admission::Reject(Rejection::StaleRoute {
            reason,
            fence: msg.fence,
        })
    };
    // Routed to another node or an earlier lifecycle of this one: no state
    // of this lifecycle (ownership, follow routes) applies.
    if msg.to_node != me.rid || msg.fence.node_generation != me.generation {
        return stale(StaleReason::NodeMismatch);
    }
    let Some(owned) = owned.filter(|o| o.state == AuthorityState::Ready) else {
        return stale(StaleReason::NotOwner);
    };
    if msg.fence.object_generation == owned.object_generation {
        if msg.fence.authority_owner_generation != owned.authority_owner_generation {
            return stale(StaleReason::OwnerGenerationMismatch);
        }
        if msg.fence.owner_lease_generation != owned.lease_generation {
            return stale(StaleReason::LeaseMismatch);
        }
    }
    // A different incarnation re-created by this owner is accepted by the
    // current Ready object (§2.6); only the lease limits admission now.
    if now >= owned.admission_deadline {
        return Admission::Reject(Rejection::Unavailable {
            reason: UnavailableReason::AdmissionDeadlinePassed,
            fence: msg.fence,
        });
    }
    Admission::Accept {
        object_generation: owned.object_generation,
    }
}
