//! The wire format: a versioned binary frame header and one codec per frame
//! the core produces or consumes (DESIGN §5.8; reference: `docs/wire.md`;
//! golden vectors: `testdata/wire/`).
//!
//! The host moves the bytes; the core encodes what it sends and decodes,
//! strictly, what arrives. Decoding never panics: every length is bounded,
//! every enum value checked, trailing bytes refused.

mod checksum;
mod codec;
#[cfg(feature = "json")]
pub mod json;
mod relocation;
mod relocation_codec;
mod session;
mod session_codec;

pub use checksum::crc32c;
pub use codec::{SalvagedRequest, decode, encode, salvage_request};
pub use relocation::{
    AbortReason, MAX_RESTORE_REGISTRATIONS, MAX_SAVED_OPERATIONS, Registration, RelocationFrame,
    RelocationIdentity, Restore,
};
pub use session::{
    ActorRoute, BindRefusal, BindResult, Binding, RelayKind, RouteChange, SessionFrame, SessionRef,
    SessionRefusal,
};

use crate::ids::{
    CorrelationId, MeshName, NodeGeneration, NodeRid, ObjectGeneration, ObjectKey, OperationId,
};
use crate::reason::StaleReason;
use crate::reason::UnavailableReason;
use crate::route::RouteFence;

/// The first two bytes of every frame: "ZL".
pub const MAGIC: [u8; 2] = *b"ZL";
/// The wire version this core speaks; any other is refused. Version 2 added
/// the relaying node to relayed operations and session relays, so every
/// frame names its last sender (DESIGN §5.10).
pub const WIRE_VERSION: u8 = 2;
/// Bytes of the frame header: magic, version, command, flags, reserved,
/// body length (u32, big-endian).
pub const HEADER_LEN: usize = 10;

/// Frame commands. Numbers are stable. Session frames (10–16 and the
/// relocation commands 42/43/44) are numbered by [`SessionFrame::command`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Command {
    /// A one-way direct message to a Spot/Actor.
    Message = 1,
    /// A direct request: a message with a reply route.
    Request = 2,
    /// The terminal reply to a request, sent on its reply route.
    Reply = 3,
    /// A target's refusal of an operation, sent back to its origin.
    Rejection = 4,
    /// Command 50 messageFollow: the old owner tells the original sender it
    /// relayed an operation to the new owner.
    MessageFollow = 50,
}

/// A runtime on the wire: where it is and which lifecycle of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeRef {
    /// Its mesh.
    pub mesh: MeshName,
    /// Its routing ID.
    pub rid: NodeRid,
    /// Its node lifecycle generation.
    pub generation: NodeGeneration,
}

/// Where a reply goes: the requesting runtime and the correlation that
/// completes the pending request there. Not application metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplyRoute {
    /// The requesting runtime.
    pub node: NodeRef,
    /// The pending request it completes.
    pub correlation: CorrelationId,
}

/// The body of a Message or Request frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The operation's identity, unchanged across relays.
    pub operation_id: OperationId,
    /// The global ID it is for.
    pub target: ObjectKey,
    /// The runtime that started it (relays keep it, so the old owner knows
    /// whom to notify and a rejection knows where to go).
    pub origin: NodeRef,
    /// The node this hop was routed to.
    pub to_node: NodeRid,
    /// The fence of the route this hop used.
    pub fence: RouteFence,
    /// The ObjectGeneration the operation was started for, unchanged across
    /// relays.
    pub object_generation: ObjectGeneration,
    /// Message Follow hops taken so far (0 from the origin).
    pub hop_count: u8,
    /// The node that relayed this hop: `None` exactly at hop 0, where the
    /// origin sent it itself.
    pub relayer: Option<NodeRef>,
    /// Where the reply goes: `Some` exactly for a Request.
    pub reply_route: Option<ReplyRoute>,
    /// Opaque application bytes, within the negotiated message bound.
    pub payload: Vec<u8>,
}

impl Operation {
    /// The node that sent this hop: the origin at hop 0, the relayer after.
    pub fn sender(&self) -> NodeRef {
        self.relayer.unwrap_or(self.origin)
    }

    /// This operation relayed by `relayer` to `to` on `fence`, one hop
    /// further: identity, origin, payload and reply route unchanged, and
    /// encoded as the Message or Request it is.
    pub fn relayed_to(
        self,
        to: NodeRef,
        fence: RouteFence,
        relayer: NodeRef,
    ) -> crate::send::Outbound {
        let forwarded = Operation {
            to_node: to.rid,
            fence,
            hop_count: self.hop_count.saturating_add(1),
            relayer: Some(relayer),
            ..self
        };
        let frame = if forwarded.reply_route.is_some() {
            Frame::Request(forwarded)
        } else {
            Frame::Message(forwarded)
        };
        crate::send::Outbound::frame(relayer, to, &frame)
    }
}

/// Why a target refused an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectionCode {
    /// The route is stale: the origin drops it (fence-checked) and the
    /// operation ends Unavailable.
    StaleRoute(StaleReason),
    /// The object cannot take it now: the operation ends Unavailable.
    Unavailable(UnavailableReason),
    /// A Message Follow route belongs to another incarnation or owner tenure
    /// than the operation: it ends InvalidOperation.
    InvalidOperation,
}

/// The body of a Rejection frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectionFrame {
    /// The refused operation.
    pub operation_id: OperationId,
    /// Its target.
    pub target: ObjectKey,
    /// The fence the refused hop carried.
    pub fence: RouteFence,
    /// The runtime that refused it.
    pub rejected_by: NodeRef,
    /// Why.
    pub code: RejectionCode,
    /// The refused operation's reply route, if it was a request: the
    /// refusal is then that request's terminal error, matched by its
    /// correlation (and late if the request already ended).
    pub reply_route: Option<ReplyRoute>,
}

/// One end of a Message Follow route: a node and the fence of its tenure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RouteEnd {
    /// The owner at that end.
    pub node: NodeRef,
    /// The authority fence of that owner's tenure.
    pub fence: RouteFence,
}

/// The body of command 50 messageFollow (spec §2.5): no flags, no payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageFollowFrame {
    /// The object that moved.
    pub target: ObjectKey,
    /// The route the sender used (the old owner's tenure).
    pub source: RouteEnd,
    /// Where it was relayed (the new owner's tenure).
    pub destination: RouteEnd,
    /// Hops the relayed operation had taken when relayed.
    pub hop_count: u8,
    /// Messages relayed on this route so far (queue accounting).
    pub relayed_messages: u64,
    /// Payload bytes relayed on this route so far.
    pub relayed_bytes: u64,
    /// The relayed operation.
    pub operation_id: OperationId,
    /// Its reply route, if it was a request.
    pub reply_route: Option<ReplyRoute>,
}

/// Longest error message a reply may carry, in bytes.
pub const MAX_ERROR_MESSAGE_BYTES: usize = 4096;

/// The body of a Reply frame: the one terminal answer to a request, sent on
/// the request's reply route. It carries no application metadata: request
/// metadata is never copied to a reply (§4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyFrame {
    /// Completes the pending request with this correlation.
    pub correlation: CorrelationId,
    /// The request's operation.
    pub operation_id: OperationId,
    /// The runtime that answered.
    pub replier: NodeRef,
    /// The answer.
    pub result: ReplyResult,
}

/// A reply's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyResult {
    /// The handler's answer: opaque bytes within the message bound.
    Ok(Vec<u8>),
    /// A structured error.
    Error(ReplyError),
}

/// A structured error reply (§4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyError {
    /// What failed.
    pub kind: ReplyErrorKind,
    /// An application-defined code.
    pub code: u32,
    /// Text for people, at most [`MAX_ERROR_MESSAGE_BYTES`].
    pub message: String,
}

/// What failed on the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ReplyErrorKind {
    /// The application handler failed.
    Handler = 1,
    /// The request could not be decoded by the application.
    Decode = 2,
}

/// Every frame the core speaks so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Command 1.
    Message(Operation),
    /// Command 2.
    Request(Operation),
    /// Command 3.
    Reply(ReplyFrame),
    /// Command 4.
    Rejection(RejectionFrame),
    /// Command 50.
    MessageFollow(MessageFollowFrame),
    /// Session commands 10–16 and 42/43/44.
    Session(SessionFrame),
    /// Relocation handoff commands 45–49.
    Relocation(RelocationFrame),
}

impl Frame {
    /// The command's name, as the golden vectors' `command` field and
    /// docs/wire.md state it: "Message", "Request", "Reply", "Rejection",
    /// "MessageFollow", "SessionBind", ..., "RelocationRestore", ...
    pub fn command_name(&self) -> &'static str {
        match self {
            Frame::Message(_) => "Message",
            Frame::Request(_) => "Request",
            Frame::Reply(_) => "Reply",
            Frame::Rejection(_) => "Rejection",
            Frame::MessageFollow(_) => "MessageFollow",
            Frame::Session(f) => match f {
                SessionFrame::Bind { .. } => "SessionBind",
                SessionFrame::BindReply { .. } => "SessionBindReply",
                SessionFrame::Tombstone { .. } => "SessionTombstone",
                SessionFrame::TombstoneAck { .. } => "SessionTombstoneAck",
                SessionFrame::Relay { .. } => "SessionRelay",
                SessionFrame::Push { .. } => "SessionPush",
                SessionFrame::Refused { .. } => "SessionRefused",
                SessionFrame::Seal { .. } => "SessionRelocationSeal",
                SessionFrame::Sealed { .. } => "SessionRelocationSealed",
                SessionFrame::Route { .. } => "SessionRelocationRoute",
            },
            Frame::Relocation(f) => match f {
                RelocationFrame::Restore(_) => "RelocationRestore",
                RelocationFrame::RelayReady { .. } => "RelocationRelayReady",
                RelocationFrame::Cutover { .. } => "RelocationCutover",
                RelocationFrame::Committed { .. } => "RelocationCommitted",
                RelocationFrame::Abort { .. } => "RelocationAbort",
            },
        }
    }
}

/// The node a frame names as its last sender, for frames that name one: an
/// operation's origin at hop 0 and its relayer after, a reply's replier, a
/// rejection's refuser, command 50's relaying (source) owner, and the
/// session frames that carry their sender (bind, 43, tombstone, relay, 42).
/// `None` for the session frames that do not (bind reply, tombstone ACK,
/// push, relay refusal, 44): a runtime checks those against the state they
/// touch (DESIGN §5.10).
pub fn last_sender(frame: &Frame) -> Option<NodeRid> {
    let node = match frame {
        Frame::Message(op) | Frame::Request(op) => op.sender(),
        Frame::Reply(r) => r.replier,
        Frame::Rejection(r) => r.rejected_by,
        Frame::MessageFollow(f) => f.source.node,
        Frame::Session(f) => match f {
            SessionFrame::Bind { session, .. } | SessionFrame::Sealed { session, .. } => {
                session.owner
            }
            SessionFrame::Tombstone { by, .. } => *by,
            SessionFrame::Relay {
                session, relayer, ..
            } => relayer.unwrap_or(session.owner),
            SessionFrame::Seal { source, .. } => *source,
            SessionFrame::BindReply { .. }
            | SessionFrame::TombstoneAck { .. }
            | SessionFrame::Push { .. }
            | SessionFrame::Refused { .. }
            | SessionFrame::Route { .. } => return None,
        },
        Frame::Relocation(f) => f.sender(),
    };
    Some(node.rid)
}

/// Bounds a decoder enforces (the negotiated message bound among them).
/// `default()` is the default config's (`crate::config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Longest object ID accepted.
    pub max_object_id_bytes: usize,
    /// Longest payload accepted (the negotiated message bound).
    pub max_payload_bytes: usize,
    /// Longest relocation state a Restore may carry.
    pub max_state_bytes: usize,
}

/// Why bytes are not a valid frame. The frame is dropped; nothing of it is
/// acted on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The bytes end before the frame does.
    #[error("frame truncated: needed {needed} more bytes for {field}")]
    Truncated {
        /// What was being read.
        field: &'static str,
        /// How many bytes were missing.
        needed: usize,
    },
    /// The frame does not start with "ZL".
    #[error("not a zlink frame (bad magic)")]
    BadMagic,
    /// Another wire version.
    #[error("wire version {0} is not supported (this core speaks {WIRE_VERSION})")]
    UnsupportedVersion(u8),
    /// A command number this core does not know.
    #[error("unknown command {0}")]
    UnknownCommand(u8),
    /// Flags or reserved bits set where none are defined (command 50 allows
    /// no flags at all).
    #[error("flags {flags:#04x} not allowed on command {command}")]
    FlagsNotAllowed {
        /// The command.
        command: u8,
        /// The flags byte.
        flags: u8,
    },
    /// The header's body length disagrees with the bytes given.
    #[error("body length {declared} does not match the {actual} bytes present")]
    LengthMismatch {
        /// What the header says.
        declared: usize,
        /// What is there.
        actual: usize,
    },
    /// A length field over its bound.
    #[error("{field} is {len} bytes, over the {max}-byte bound")]
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
    /// A field with a value outside its domain (kind, enum code, empty ID,
    /// bad UTF-8, a presence byte other than 0/1, a reply route on a Message …).
    #[error("invalid {field}: {why}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is wrong.
        why: String,
    },
    /// Bytes left after the body.
    #[error("{0} trailing bytes after the body")]
    TrailingBytes(usize),
}
