//! What a host gives and gets when it moves an object (§3.3): the capture
//! it hands over, the actions each side's runtime returns, and the errors
//! of the relocation calls.

use crate::error::InputError;
use crate::inbound::Delivery;
use crate::send::Outbound;
use crate::session::SessionDelivery;
use crate::wire::{AbortReason, NodeRef, Operation, RelocationIdentity};

use super::Refusal;

/// What the source's host captured after its current handler ended: the
/// work it had accepted but not run (its queue, in order; each operation as
/// a `Deliver` gave it) and the object's application state. The host hands
/// both over and no longer runs them; if the move is abandoned before
/// relay-ready they come back as `Deliver`s, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// Accepted, not yet run, in order.
    pub saved: Vec<Operation>,
    /// The object's state, opaque (at most `max_relocation_state_bytes`).
    pub state: Vec<u8>,
}

/// A relocation begun on the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelocationStarted {
    /// The relocation.
    pub identity: RelocationIdentity,
    /// Frames to carry: the Restore to the target first, then command 42
    /// to every bound Session's owner.
    pub send: Vec<Outbound>,
}

/// What a relocation step asks of the host: its event, the operations to
/// put on the object's application queue (in this order), and the frames
/// to carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelocationAction {
    /// What happened.
    pub event: RelocationEvent,
    /// Put these on the object's application queue, in order.
    pub deliver: Vec<Delivery>,
    /// Session relays to hand to the Actor, in order (held while it moved).
    pub session: Vec<SessionDelivery>,
    /// Carry these frames.
    pub send: Vec<Outbound>,
}

/// What happened to a relocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelocationEvent {
    /// Target: a Restore arrived and the temporary queue is registered.
    /// Build the object from `state`, then call
    /// [`Runtime::relocation_restored`](crate::Runtime::relocation_restored)
    /// (or [`Runtime::abort_relocation`](crate::Runtime::abort_relocation)
    /// if it cannot be built). Run nothing for it yet.
    Restore {
        /// The relocation.
        identity: RelocationIdentity,
        /// The source runtime.
        source: NodeRef,
        /// The application state the source captured.
        state: Vec<u8>,
    },
    /// Source: the target is relay-ready; the held work was relayed and the
    /// cutover sent. The object no longer runs here, whatever follows.
    Cutover {
        /// The relocation.
        identity: RelocationIdentity,
        /// Operations relayed from the ingress hold.
        relayed: u64,
    },
    /// Target: the owner CAS succeeded. `deliver` is the merge order (saved
    /// work, the pre-boundary relay, the temporary queue); the object runs
    /// here from now on.
    Committed {
        /// The relocation.
        identity: RelocationIdentity,
        /// The source runtime.
        source: NodeRef,
    },
    /// Source: the target committed; operations still arriving here follow
    /// the object on a Message Follow route. Drop the local instance.
    HandedOff {
        /// The relocation.
        identity: RelocationIdentity,
        /// The new owner.
        target: NodeRef,
    },
    /// Source: the host gave the move up (or no relay-ready came in
    /// `relocation_timeout`): the target is told and the object stays
    /// sealed until it confirms (then `Aborted`), or until the store is
    /// fenced, or until it turns out the target already committed (then
    /// `HandedOff`).
    Aborting {
        /// The relocation.
        identity: RelocationIdentity,
        /// Why.
        reason: AbortReason,
    },
    /// Either side, before relay-ready: the move is abandoned. On the
    /// source the object runs here again and `deliver` holds the saved
    /// work then the held work, in order; on the target drop what was
    /// restored.
    Aborted {
        /// The relocation.
        identity: RelocationIdentity,
        /// Why.
        reason: AbortReason,
    },
    /// After relay-ready the move could not complete: the target's owner
    /// CAS was refused (`CommitFailed`; the held work was refused to its
    /// senders as Unavailable), or the source heard no commit within
    /// `relocation_timeout` (`Timeout`). The object runs on neither side;
    /// drop the local instance.
    Failed {
        /// The relocation.
        identity: RelocationIdentity,
        /// Why.
        reason: AbortReason,
    },
    /// Target: the cutover arrived; the owner CAS is due now. The next
    /// [`Runtime::on_timeout`](crate::Runtime::on_timeout) starts it on the
    /// store's I/O (`next_deadline()` says now); that call (a store that
    /// answers at once) or a later one returns `Committed`. No handler
    /// waits on the store.
    CommitDue {
        /// The relocation.
        identity: RelocationIdentity,
    },
    /// The store could not be asked (the target's owner CAS, or the
    /// source's abort fence); it is retried on a later `on_timeout` with
    /// the same proposal.
    CommitRetry {
        /// The relocation.
        identity: RelocationIdentity,
    },
    /// A control frame that changes nothing (another relocation or
    /// incarnation, a duplicate, out of order, from the wrong node):
    /// refused and counted.
    Ignored {
        /// The relocation the frame named.
        identity: RelocationIdentity,
        /// Why.
        refusal: Refusal,
    },
}

impl RelocationAction {
    pub(crate) fn event(event: RelocationEvent) -> Self {
        RelocationAction {
            event,
            deliver: Vec::new(),
            session: Vec::new(),
            send: Vec::new(),
        }
    }
}

/// Why a relocation call was refused. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelocationError {
    /// A bad ID, or a saved operation over the message bound.
    #[error(transparent)]
    Input(#[from] InputError),
    /// This node does not own the object as Ready: only its owner moves it.
    #[error("this node does not own {0} as Ready")]
    NotOwned(String),
    /// The target is this node.
    #[error("the target of a relocation must be another node")]
    TargetIsSelf,
    /// The object is already relocating on this node: finish or abort that
    /// relocation first.
    #[error("{0} is already relocating")]
    AlreadyRelocating(String),
    /// The state is over `max_relocation_state_bytes`.
    #[error("relocation state is {len} bytes, over the {max}-byte bound")]
    StateTooLarge {
        /// The state's length.
        len: usize,
        /// The bound in force.
        max: usize,
    },
    /// More saved operations than one Restore carries.
    #[error("{len} saved operations, over the {max} one relocation carries")]
    TooManySaved {
        /// How many were given.
        len: usize,
        /// The bound.
        max: usize,
    },
    /// A saved operation is for another object.
    #[error("a saved operation is for {0}, not the object being moved")]
    ForeignOperation(String),
    /// No relocation of the object runs here.
    #[error("{0} is not relocating here")]
    NotRelocating(String),
    /// The relocation is past relay-ready: it does not roll back (§3.3).
    #[error("the relocation is past relay-ready and does not roll back")]
    AfterRelayReady,
    /// The relocation is not in the phase this call needs.
    #[error("relocation refused the call: {0:?}")]
    Refused(Refusal),
}
