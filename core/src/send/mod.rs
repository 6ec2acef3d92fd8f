//! Sending by global ID (spec §2.1 steps 1–4, §2.2, §2.4): the direct send
//! decision ([`direct`]) and the frame a call becomes, with the node it goes
//! to. The host moves the bytes.

mod direct;

pub use direct::{DirectSend, SendOptions};
pub(crate) use direct::{check_send, send_direct};

use crate::ids::OperationId;
use crate::resolve::UnavailableReason;
use crate::store::StoreError;
use crate::wire::{Frame, NodeRef, encode};

/// Bytes for the host to carry to a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    /// The node that made them (this runtime): the receiver's `on_frame`
    /// takes its routing ID as `from`, so a host need not remember who
    /// produced each frame.
    pub sender: NodeRef,
    /// The node they go to.
    pub to: NodeRef,
    /// The frame's command ([`Frame::command_name`]), for logs and hosts
    /// that dispatch on it without decoding.
    pub command: &'static str,
    /// One encoded frame.
    pub bytes: Vec<u8>,
}

impl Outbound {
    /// `frame`, encoded, from `sender` to `to`.
    pub(crate) fn frame(sender: NodeRef, to: NodeRef, frame: &Frame) -> Outbound {
        Outbound {
            sender,
            to,
            command: frame.command_name(),
            bytes: encode(frame),
        }
    }
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
