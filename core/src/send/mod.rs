//! Sending by global ID (spec §2.1 steps 1–4, §2.2, §2.4): the direct send
//! decision ([`direct`]) and the frame a call becomes, with the node it goes
//! to. The host moves the bytes.

mod direct;

pub use direct::{DirectSend, SendOptions};
pub(crate) use direct::{check_send, send_direct};

use crate::ids::OperationId;
use crate::resolve::UnavailableReason;
use crate::store::StoreError;
use crate::wire::NodeRef;

/// Bytes for the host to carry to a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    /// The node they go to.
    pub to: NodeRef,
    /// One encoded frame.
    pub bytes: Vec<u8>,
}

/// What became of a direct send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// The operation is on its way: carry `outbound`.
    Submitted {
        /// The operation's identity (kept across relays).
        operation_id: OperationId,
        /// The frame and its destination.
        outbound: Outbound,
    },
    /// The object does not exist; nothing was sent. Terminal.
    NotFound,
    /// Missing Spot with instance intent: cold-activate it, then send again.
    ColdActivation,
    /// Authority exists but cannot be used. Terminal.
    Unavailable(UnavailableReason),
    /// The store could not be read in time.
    StoreFailure(StoreError),
}
