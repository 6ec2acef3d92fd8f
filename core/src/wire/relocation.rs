//! The relocation handoff frames (§2.5 PerActor, §3.3 steps 2–4; commands
//! 45–49): what a source and a target runtime say to each other to move an
//! object without two owners. They travel on the one ordered connection
//! between the two nodes, with the relayed operations between them.

use crate::ids::{ObjectGeneration, ObjectKey, RelocationId};
use crate::route::RouteFence;

use super::{Binding, NodeRef, Operation, SessionRef};

/// Most saved operations one Restore may carry.
pub const MAX_SAVED_OPERATIONS: usize = 65_536;
/// Most Session registrations one Restore may carry.
pub const MAX_RESTORE_REGISTRATIONS: usize = 65_536;

/// Which relocation a frame belongs to: the relocation, the object it moves
/// and the incarnation of that object. Every control frame names it, so a
/// late frame of another relocation or incarnation changes nothing (§2.6
/// "Relocation and Message Follow").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RelocationIdentity {
    /// The relocation.
    pub relocation: RelocationId,
    /// The Spot or Actor being moved.
    pub key: ObjectKey,
    /// The incarnation being moved.
    pub object_generation: ObjectGeneration,
}

/// One Session bound to an Actor, as its owner registered it: carried to
/// the relocation target with the Actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    /// The Session.
    pub session: SessionRef,
    /// The binding issued.
    pub binding: Binding,
}

/// Command 45: the source's Restore request (§3.3 step 2), with everything
/// the target needs to take the object over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    /// The relocation.
    pub identity: RelocationIdentity,
    /// The source runtime (the object's owner until the target's CAS).
    pub source: NodeRef,
    /// The target runtime the Restore is for.
    pub target: NodeRef,
    /// The source's tenure: the authority the target's owner CAS expects.
    pub from: RouteFence,
    /// The saved work: already accepted, not yet run (previous queue then
    /// accepted journal), in order. Delivered first on the target.
    pub saved: Vec<Operation>,
    /// The Sessions bound to the Actor on the source.
    pub registrations: Vec<Registration>,
    /// The host's application state, opaque; covered by the frame's
    /// CRC-32C with everything before it.
    pub state: Vec<u8>,
}

/// Why a relocation was abandoned before relay-ready (command 49).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AbortReason {
    /// The source's host gave up the move.
    Requested = 1,
    /// The source heard no relay-ready in `relocation_timeout`, or the
    /// target's host did not restore in it.
    Timeout = 2,
    /// The target could not take the Restore (not the named target,
    /// already relocating the object here, already its owner).
    Refused = 3,
    /// The target's host could not restore the state.
    RestoreFailed = 4,
    /// The target's owner CAS was refused: the object moved or was released
    /// meanwhile. Sent after relay-ready; the source's side just ends.
    CommitFailed = 5,
}

impl AbortReason {
    /// The reason with wire code `code`.
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => AbortReason::Requested,
            2 => AbortReason::Timeout,
            3 => AbortReason::Refused,
            4 => AbortReason::RestoreFailed,
            5 => AbortReason::CommitFailed,
            _ => return None,
        })
    }

    /// Its stable name (docs, JSON, host languages).
    pub fn name(self) -> &'static str {
        match self {
            AbortReason::Requested => "Requested",
            AbortReason::Timeout => "Timeout",
            AbortReason::Refused => "Refused",
            AbortReason::RestoreFailed => "RestoreFailed",
            AbortReason::CommitFailed => "CommitFailed",
        }
    }
}

/// A relocation handoff frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelocationFrame {
    /// 45, source → target.
    Restore(Box<Restore>),
    /// 46, target → source: restored, ready to receive the relay span. From
    /// here on the move does not roll back.
    RelayReady {
        /// The relocation.
        identity: RelocationIdentity,
        /// The target.
        target: NodeRef,
        /// The tenure the target will hold after its owner CAS: what the
        /// source's relays carry, so they pass the target's admission.
        destination: RouteFence,
    },
    /// 47, source → target: the end of the pre-boundary relay span.
    Cutover {
        /// The relocation.
        identity: RelocationIdentity,
        /// The source.
        source: NodeRef,
        /// Operations relayed in the span before this frame.
        relayed: u64,
    },
    /// 48, target → source: the owner CAS succeeded; the source installs
    /// its Message Follow route to `destination`.
    Committed {
        /// The relocation.
        identity: RelocationIdentity,
        /// The target, now the owner.
        target: NodeRef,
        /// The target's tenure as the store recorded it.
        destination: RouteFence,
    },
    /// 49, either way: the relocation is abandoned.
    Abort {
        /// The relocation.
        identity: RelocationIdentity,
        /// The side that abandons it.
        by: NodeRef,
        /// Why.
        reason: AbortReason,
    },
}

impl RelocationFrame {
    /// The command number.
    pub fn command(&self) -> u8 {
        match self {
            RelocationFrame::Restore(_) => 45,
            RelocationFrame::RelayReady { .. } => 46,
            RelocationFrame::Cutover { .. } => 47,
            RelocationFrame::Committed { .. } => 48,
            RelocationFrame::Abort { .. } => 49,
        }
    }

    /// The relocation it belongs to.
    pub fn identity(&self) -> &RelocationIdentity {
        match self {
            RelocationFrame::Restore(r) => &r.identity,
            RelocationFrame::RelayReady { identity, .. }
            | RelocationFrame::Cutover { identity, .. }
            | RelocationFrame::Committed { identity, .. }
            | RelocationFrame::Abort { identity, .. } => identity,
        }
    }

    /// The runtime that sent it (every relocation frame names it).
    pub fn sender(&self) -> NodeRef {
        match self {
            RelocationFrame::Restore(r) => r.source,
            RelocationFrame::RelayReady { target, .. }
            | RelocationFrame::Committed { target, .. } => *target,
            RelocationFrame::Cutover { source, .. } => *source,
            RelocationFrame::Abort { by, .. } => *by,
        }
    }
}
