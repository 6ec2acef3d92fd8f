//! The closed sets a host matches on, each with a stable number and a stable
//! name: the C ABI uses the numbers (the header's `zlink_*` enums, generated
//! from these by cbindgen), Python, the JVM and Node the names (their copies
//! are generated from this file by `zlink-schema`: `make schema`). A
//! number never changes; new values are only appended. `None` (0) marks "not
//! this kind of result" in the flat forms of `decision`.

use zlink_core::relocation::Refusal;
use zlink_core::wire::{
    AbortReason as CoreAbort, BindRefusal as CoreBindRefusal, RelayKind as CoreRelayKind,
    ReplyErrorKind as CoreReplyErrorKind, SessionRefusal as CoreSessionRefusal,
};
use zlink_core::{
    AuthorityState as CoreState, Liveness as CoreLiveness, LostReason as CoreLostReason,
    ObjectKind as CoreKind, StoreError as CoreStoreError, UnavailableReason as CoreReason,
};

/// `name()`, `ALL` and `from_code()` of a code enum; a variant's name is
/// its own unless given (`Variant = "name"`).
macro_rules! named {
    ($t:ident { $($v:ident $(= $name:literal)?),* $(,)? }) => {
        impl $t {
            /// Every value, in number order.
            pub const ALL: &'static [$t] = &[$($t::$v),*];

            /// The stable name hosts use.
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => named!(@name $v $($name)?)),*
                }
            }

            /// The value with the stable number `code`, if any.
            pub fn from_code(code: u32) -> Option<$t> {
                Self::ALL.iter().copied().find(|v| *v as u32 == code)
            }
        }
    };
    (@name $v:ident) => { stringify!($v) };
    (@name $v:ident $name:literal) => { $name };
}

/// `From<core enum>` for a code enum whose variants have the core's names.
macro_rules! from_core {
    ($core:ident => $t:ident { $($v:ident),* $(,)? }) => {
        impl From<$core> for $t {
            fn from(v: $core) -> Self {
                match v {
                    $($core::$v => $t::$v),*
                }
            }
        }
    };
}

/// Which kind of logical object a global ID names.
///
/// C functions take it as a `uint32_t` so that an out-of-range value is an
/// error code, not UB.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// A Spot.
    Spot = 1,
    /// An Actor.
    Actor = 2,
}
named!(ObjectKind { Spot = "spot", Actor = "actor" });
from_core!(CoreKind => ObjectKind { Spot, Actor });

impl From<ObjectKind> for CoreKind {
    fn from(k: ObjectKind) -> Self {
        match k {
            ObjectKind::Spot => CoreKind::Spot,
            ObjectKind::Actor => CoreKind::Actor,
        }
    }
}

/// The resolver's four closed results (spec §2.2).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResolutionTag {
    /// A Ready owner route: `route` holds it. Submit on it.
    ReadyRoute = 1,
    /// No authority record exists: only the creation coordinator acts.
    Missing = 2,
    /// Authority exists but cannot be used now: `reason` says why.
    Unavailable = 3,
    /// Whether authority exists is unknown: `store_error` says why. Retry.
    StoreFailure = 4,
}
named!(ResolutionTag {
    ReadyRoute,
    Missing,
    Unavailable,
    StoreFailure
});

/// Why an object cannot take messages now.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnavailableReason {
    /// Not an Unavailable result (the C ABI's flat forms).
    None = 0,
    /// Still being created.
    Creating = 1,
    /// Being released.
    Releasing = 2,
    /// The owner lease expired on the store's clock.
    LeaseExpired = 3,
    /// The owner lease was invalidated.
    OwnerNotLive = 4,
    /// The owner rejected the route as stale.
    StaleRoute = 5,
    /// The owner's admission deadline passed.
    AdmissionDeadlinePassed = 6,
    /// A Message Follow chain reached its hop limit.
    FollowHopLimit = 7,
    /// The object's relocation failed while the operation was held for it:
    /// no owner ran it, and it is not resubmitted.
    RelocationFailed = 8,
}
named!(UnavailableReason {
    None,
    Creating,
    Releasing,
    LeaseExpired,
    OwnerNotLive,
    StaleRoute,
    AdmissionDeadlinePassed,
    FollowHopLimit,
    RelocationFailed
});
from_core!(CoreReason => UnavailableReason {
    Creating,
    Releasing,
    LeaseExpired,
    OwnerNotLive,
    StaleRoute,
    AdmissionDeadlinePassed,
    FollowHopLimit,
    RelocationFailed
});

/// Why a store call failed.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreError {
    /// Not a store failure (the C ABI's flat forms).
    None = 0,
    /// The call timed out. Retry later.
    Timeout = 1,
    /// The store could not be reached. Retry later.
    Unreachable = 2,
    /// The store is configured wrongly. Fix the configuration.
    Config = 3,
    /// The store answered something unusable. Report it.
    Protocol = 4,
}
named!(StoreError {
    None,
    Timeout,
    Unreachable,
    Config,
    Protocol
});

impl From<&CoreStoreError> for StoreError {
    fn from(e: &CoreStoreError) -> Self {
        match e {
            // Both leave a write's outcome unknown: retry the same intent.
            CoreStoreError::Timeout { .. } | CoreStoreError::NotReplicated { .. } => {
                StoreError::Timeout
            }
            CoreStoreError::Unreachable(_) => StoreError::Unreachable,
            CoreStoreError::Config(_) => StoreError::Config,
            CoreStoreError::Protocol(_) => StoreError::Protocol,
        }
    }
}

/// An authority record's lifecycle state.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthorityState {
    /// Created, not yet Ready.
    Creating = 1,
    /// Ready: takes messages.
    Ready = 2,
    /// Being released.
    Releasing = 3,
}
named!(AuthorityState {
    Creating = "creating",
    Ready = "ready",
    Releasing = "releasing"
});
from_core!(CoreState => AuthorityState { Creating, Ready, Releasing });

/// What became of a send or request.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SentTag {
    /// On its way: carry `outbound.bytes` to `outbound.to`.
    Submitted = 1,
    /// The object does not exist; nothing was sent. Terminal.
    NotFound = 2,
    /// Missing Spot with instance intent: cold-activate it, then send again.
    ColdActivation = 3,
    /// Authority exists but cannot be used (`reason`). Terminal.
    Unavailable = 4,
    /// The store could not be read in time (`store_error`).
    StoreFailure = 5,
}
named!(SentTag {
    Submitted,
    NotFound,
    ColdActivation,
    Unavailable,
    StoreFailure
});

/// What the store held when an ownership was found lost (an
/// `OwnershipLost` decision).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LostReason {
    /// Not an `OWNERSHIP_LOST` decision.
    None = 0,
    /// No record: the write this node acted on was lost in a failover.
    Missing = 1,
    /// Another owner, owner generation or incarnation.
    Replaced = 2,
    /// This node's record, whose owner lease has ended on the store.
    LeaseEnded = 3,
}
named!(LostReason {
    None,
    Missing,
    Replaced,
    LeaseEnded
});
from_core!(CoreLostReason => LostReason { Missing, Replaced, LeaseEnded });

/// How an operation ended without delivery.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Failure {
    /// Not a failure.
    None = 0,
    /// The route or owner could not be used (`reason`).
    Unavailable = 1,
    /// A Message Follow route belonged to another incarnation or tenure.
    InvalidOperation = 2,
    /// Requests: the target replied with an error (`error_code`, `detail`).
    Replied = 3,
}
named!(Failure {
    None,
    Unavailable,
    InvalidOperation,
    Replied
});

/// What failed on the target, in an error reply.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplyErrorKind {
    /// Not an error reply.
    None = 0,
    /// The application handler failed.
    Handler = 1,
    /// The application could not decode the request.
    Decode = 2,
}
named!(ReplyErrorKind {
    None,
    Handler,
    Decode
});
from_core!(CoreReplyErrorKind => ReplyErrorKind { Handler, Decode });

impl ReplyErrorKind {
    /// The core's kind; `None` for `NONE`.
    pub fn to_core(self) -> Option<CoreReplyErrorKind> {
        match self {
            ReplyErrorKind::None => None,
            ReplyErrorKind::Handler => Some(CoreReplyErrorKind::Handler),
            ReplyErrorKind::Decode => Some(CoreReplyErrorKind::Decode),
        }
    }
}

/// How a request ended in error: the target answered with an error
/// (`Handler`, `Decode`), its route could not be used (`Unavailable`), or
/// its Message Follow route belonged to another incarnation
/// (`InvalidOperation`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestErrorKind {
    /// The application handler failed (the target replied).
    Handler = 1,
    /// The application could not decode the request (the target replied).
    Decode = 2,
    /// The route or owner could not be used (`reason`).
    Unavailable = 3,
    /// A Message Follow route belonged to another incarnation or tenure.
    InvalidOperation = 4,
}
named!(RequestErrorKind {
    Handler,
    Decode,
    Unavailable,
    InvalidOperation
});

/// Why bytes are not a frame (docs/wire.md's decode errors).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireErrorKind {
    /// Fewer bytes than a field needs.
    Truncated = 1,
    /// Not the frame magic.
    BadMagic = 2,
    /// A wire version this codec does not speak.
    UnsupportedVersion = 3,
    /// A command number no frame has.
    UnknownCommand = 4,
    /// Flags the command does not allow.
    FlagsNotAllowed = 5,
    /// The declared length is not the body's.
    LengthMismatch = 6,
    /// A field over its bound.
    TooLong = 7,
    /// A field's value is not valid.
    Invalid = 8,
    /// Bytes after the frame.
    TrailingBytes = 9,
}
named!(WireErrorKind {
    Truncated,
    BadMagic,
    UnsupportedVersion,
    UnknownCommand,
    FlagsNotAllowed,
    LengthMismatch,
    TooLong,
    Invalid,
    TrailingBytes
});

impl From<&zlink_core::wire::WireError> for WireErrorKind {
    fn from(e: &zlink_core::wire::WireError) -> Self {
        use zlink_core::wire::WireError as E;
        match e {
            E::Truncated { .. } => WireErrorKind::Truncated,
            E::BadMagic => WireErrorKind::BadMagic,
            E::UnsupportedVersion(_) => WireErrorKind::UnsupportedVersion,
            E::UnknownCommand(_) => WireErrorKind::UnknownCommand,
            E::FlagsNotAllowed { .. } => WireErrorKind::FlagsNotAllowed,
            E::LengthMismatch { .. } => WireErrorKind::LengthMismatch,
            E::TooLong { .. } => WireErrorKind::TooLong,
            E::Invalid { .. } => WireErrorKind::Invalid,
            E::TrailingBytes(_) => WireErrorKind::TrailingBytes,
        }
    }
}

/// What a session relay carries.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelayKind {
    /// Not a session relay.
    None = 0,
    /// An application message from the Session to the Actor.
    Message = 1,
    /// The Session's physical connection closed.
    PhysicalDisconnect = 2,
    /// The application ended the Session.
    LogicalDisconnect = 3,
}
named!(RelayKind {
    None,
    Message,
    PhysicalDisconnect,
    LogicalDisconnect
});
from_core!(CoreRelayKind => RelayKind { Message, PhysicalDisconnect, LogicalDisconnect });

/// Why an Actor owner refused a bind.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BindRefusal {
    /// Not a bind refusal.
    None = 0,
    /// The node does not own the Actor (or it is not Ready).
    NotOwner = 1,
    /// Another incarnation than the ActorRef names.
    ObjectGeneration = 2,
    /// Another node lifecycle than the ActorRef names.
    NodeGeneration = 3,
    /// Another authority owner generation.
    OwnerGeneration = 4,
    /// Another owner lease, or it has run out.
    OwnerLease = 5,
    /// No terminal answer within `session_bind_timeout_ms`.
    Timeout = 6,
}
named!(BindRefusal {
    None,
    NotOwner,
    ObjectGeneration,
    NodeGeneration,
    OwnerGeneration,
    OwnerLease,
    Timeout
});
from_core!(CoreBindRefusal => BindRefusal {
    NotOwner,
    ObjectGeneration,
    NodeGeneration,
    OwnerGeneration,
    OwnerLease,
    Timeout
});

/// Why an Actor owner refused a session relay.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionRefusal {
    /// Not a relay refusal.
    None = 0,
    /// No such binding there (never bound, tombstoned or replaced).
    UnknownBinding = 1,
    /// The route is stale and no Message Follow route serves it.
    StaleRoute = 2,
    /// Another incarnation than the binding's.
    ObjectGeneration = 3,
}
named!(SessionRefusal {
    None,
    UnknownBinding,
    StaleRoute,
    ObjectGeneration
});
from_core!(CoreSessionRefusal => SessionRefusal { UnknownBinding, StaleRoute, ObjectGeneration });

/// What became of a session relay on the Session owner.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionSentTag {
    /// Carry `outbound` (on the stored route).
    Sent = 1,
    /// The Actor is relocating: held, sent in order when its command 44
    /// arrives (a `SEND` decision).
    Held = 2,
    /// The stored route is past its admission deadline (`reason`): the
    /// operation ends; nothing was looked up.
    Unavailable = 3,
}
named!(SessionSentTag {
    Sent,
    Held,
    Unavailable
});

/// Why a relocation was abandoned or failed (the command 49 codes).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AbortReason {
    /// Not an abort or failure.
    None = 0,
    /// The source's host gave up the move.
    Requested = 1,
    /// A side waited longer than `relocation_timeout_ms`.
    Timeout = 2,
    /// The target could not take the Restore.
    Refused = 3,
    /// The target's host could not restore the state.
    RestoreFailed = 4,
    /// The target's owner CAS was refused: the object moved or was
    /// released meanwhile.
    CommitFailed = 5,
}
named!(AbortReason {
    None,
    Requested,
    Timeout,
    Refused,
    RestoreFailed,
    CommitFailed
});
from_core!(CoreAbort => AbortReason { Requested, Timeout, Refused, RestoreFailed, CommitFailed });

/// Why a relocation frame changed nothing (`RELOCATION_EVENT_IGNORED`), or
/// why a relocation call was refused in its phase.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelocationRefusal {
    /// Not a refusal.
    None = 0,
    /// No relocation of the object runs here.
    NotRelocating = 1,
    /// A relocation of the object already runs on this side.
    AlreadyRelocating = 2,
    /// The frame is for another object, or this node is not its target.
    WrongTarget = 3,
    /// The frame is for another incarnation of the object.
    WrongIncarnation = 4,
    /// The frame belongs to another relocation of the same incarnation.
    WrongRelocation = 5,
    /// The target has not restored the saved work yet.
    NotRestored = 6,
    /// The saved work was already restored.
    AlreadyRestored = 7,
    /// Relay-ready has not happened yet on this side.
    NotRelayReady = 8,
    /// Relay-ready already happened on this side.
    AlreadyRelayReady = 9,
    /// The cutover was already sent or taken.
    AlreadyCutOver = 10,
    /// Past relay-ready: the relocation does not roll back.
    AfterRelayReady = 11,
    /// This side of the relocation already ended.
    Ended = 12,
    /// The source is fencing the store after giving the move up: the
    /// store's answer decides, not this control message.
    Fencing = 13,
}
named!(RelocationRefusal {
    None,
    NotRelocating,
    AlreadyRelocating,
    WrongTarget,
    WrongIncarnation,
    WrongRelocation,
    NotRestored,
    AlreadyRestored,
    NotRelayReady,
    AlreadyRelayReady,
    AlreadyCutOver,
    AfterRelayReady,
    Ended,
    Fencing
});
from_core!(Refusal => RelocationRefusal {
    NotRelocating,
    AlreadyRelocating,
    WrongTarget,
    WrongIncarnation,
    WrongRelocation,
    NotRestored,
    AlreadyRestored,
    NotRelayReady,
    AlreadyRelayReady,
    AlreadyCutOver,
    AfterRelayReady,
    Ended,
    Fencing
});

/// A manual intent's connection state as the transport reported it.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Liveness {
    /// Not connected yet (or reconnecting).
    Connecting = 1,
    /// Connected; the handshake showed `open_rid`.
    Open = 2,
    /// The transport confirmed it closed.
    Closed = 3,
}
named!(Liveness {
    Connecting = "connecting",
    Open = "open",
    Closed = "closed"
});

impl Liveness {
    /// The state and, while open, the routing ID the handshake showed.
    pub fn of(l: CoreLiveness) -> (Liveness, Option<u64>) {
        match l {
            CoreLiveness::Connecting => (Liveness::Connecting, None),
            CoreLiveness::Open(rid) => (Liveness::Open, Some(rid.get())),
            CoreLiveness::Closed => (Liveness::Closed, None),
        }
    }
}

/// Severity of a log record. The numbers are stable; a lower number is more
/// severe.
///
/// C functions take it as a `uint32_t` so that an out-of-range value is an
/// error code, not UB.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Something failed.
    Error = 1,
    /// Something unexpected the library handled.
    Warn = 2,
    /// A notable event (lease invalidations, store recovery, …).
    Info = 3,
    /// Detail for debugging.
    Debug = 4,
    /// Everything.
    Trace = 5,
}
named!(LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace
});

impl LogLevel {
    /// The level of a `tracing` event.
    pub fn of(level: &tracing::Level) -> Self {
        match *level {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warn,
            tracing::Level::INFO => LogLevel::Info,
            tracing::Level::DEBUG => LogLevel::Debug,
            tracing::Level::TRACE => LogLevel::Trace,
        }
    }
}

/// Which replicas must acknowledge each authority write of a Redis store
/// before the store reports it done (docs/location-store.md, "Failover and
/// durability"). `Replicas` takes its count apart.
///
/// C: the count is `zlink_redis_options.write_acks_replicas`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteAcksMode {
    /// Every replica the deployment is known to have (the default; a
    /// primary without replicas waits for none).
    AllReplicas = 1,
    /// At least the given number (>= 1) of replicas.
    Replicas = 2,
    /// None: the primary's answer is the acknowledgement (a failover can
    /// lose a write the store reported done).
    PrimaryOnly = 3,
}
named!(WriteAcksMode {
    AllReplicas = "all_replicas",
    Replicas = "replicas",
    PrimaryOnly = "primary_only"
});

impl WriteAcksMode {
    /// The mode of `acks` and its replica count (0 but for `Replicas`):
    /// what `setup::write_acks` turns back into `acks`.
    pub fn of(acks: zlink_redis::WriteAcks) -> (WriteAcksMode, u32) {
        match acks {
            zlink_redis::WriteAcks::AllReplicas => (WriteAcksMode::AllReplicas, 0),
            zlink_redis::WriteAcks::Replicas(n) => (WriteAcksMode::Replicas, n),
            zlink_redis::WriteAcks::PrimaryOnly => (WriteAcksMode::PrimaryOnly, 0),
        }
    }
}

/// What a metric family is: a running total, a level that goes up and
/// down, or a latency histogram.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetricKind {
    /// A running total (Prometheus `counter`, OpenTelemetry `Sum`).
    Counter = 1,
    /// A level now (Prometheus and OpenTelemetry `gauge`).
    Gauge = 2,
    /// Observations in buckets (Prometheus and OpenTelemetry `histogram`).
    Histogram = 3,
}
named!(MetricKind {
    Counter = "counter",
    Gauge = "gauge",
    Histogram = "histogram"
});

/// The command of a frame a runtime made (an `Outbound`'s), named as the
/// wire names it (`Frame::command_name`). Its number is this set's own,
/// not the command byte of the frame's header.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameCommand {
    /// A one-way direct message.
    Message = 1,
    /// A direct request.
    Request = 2,
    /// A request's terminal reply.
    Reply = 3,
    /// A target's refusal of an operation.
    Rejection = 4,
    /// A bind of a Session to an Actor.
    SessionBind = 5,
    /// The Actor owner's answer to a bind.
    SessionBindReply = 6,
    /// Drop a registration the Session owner does not hold.
    SessionTombstone = 7,
    /// The tombstone was applied.
    SessionTombstoneAck = 8,
    /// A session relay to the bound Actor.
    SessionRelay = 9,
    /// A push from the Actor to the Session.
    SessionPush = 10,
    /// A session relay refused.
    SessionRefused = 11,
    /// Command 42: the Actor is moving; seal the binding.
    SessionRelocationSeal = 12,
    /// Command 43: the binding is sealed.
    SessionRelocationSealed = 13,
    /// Command 44: the binding's new (or restored) route.
    SessionRelocationRoute = 14,
    /// Command 45: the object's state, to the relocation target.
    RelocationRestore = 15,
    /// Command 46: the target rebuilt the object.
    RelocationRelayReady = 16,
    /// Command 47: the source relays from now on.
    RelocationCutover = 17,
    /// Command 48: the target owns the object.
    RelocationCommitted = 18,
    /// Command 49: the relocation is abandoned.
    RelocationAbort = 19,
    /// Command 50 messageFollow: an operation was relayed to a new owner.
    MessageFollow = 20,
}
named!(FrameCommand {
    Message,
    Request,
    Reply,
    Rejection,
    SessionBind,
    SessionBindReply,
    SessionTombstone,
    SessionTombstoneAck,
    SessionRelay,
    SessionPush,
    SessionRefused,
    SessionRelocationSeal,
    SessionRelocationSealed,
    SessionRelocationRoute,
    RelocationRestore,
    RelocationRelayReady,
    RelocationCutover,
    RelocationCommitted,
    RelocationAbort,
    MessageFollow
});

impl FrameCommand {
    /// The command byte of its frames' header.
    pub fn wire(self) -> u8 {
        match self {
            FrameCommand::Message => 1,
            FrameCommand::Request => 2,
            FrameCommand::Reply => 3,
            FrameCommand::Rejection => 4,
            FrameCommand::SessionBind => 10,
            FrameCommand::SessionBindReply => 11,
            FrameCommand::SessionTombstone => 12,
            FrameCommand::SessionTombstoneAck => 13,
            FrameCommand::SessionRelay => 14,
            FrameCommand::SessionPush => 15,
            FrameCommand::SessionRefused => 16,
            FrameCommand::SessionRelocationSeal => 42,
            FrameCommand::SessionRelocationSealed => 43,
            FrameCommand::SessionRelocationRoute => 44,
            FrameCommand::RelocationRestore => 45,
            FrameCommand::RelocationRelayReady => 46,
            FrameCommand::RelocationCutover => 47,
            FrameCommand::RelocationCommitted => 48,
            FrameCommand::RelocationAbort => 49,
            FrameCommand::MessageFollow => 50,
        }
    }

    /// The command of an encoded frame (`frame`, as the core made it), by
    /// its header's command byte.
    pub fn of(frame: &[u8]) -> FrameCommand {
        let byte = frame.get(COMMAND_BYTE).copied();
        // Every frame a runtime makes has a known command, so the fallback
        // is never taken (a test walks every frame the wire vectors hold).
        Self::ALL
            .iter()
            .copied()
            .find(|c| Some(c.wire()) == byte)
            .unwrap_or(FrameCommand::Message)
    }
}

/// Where a frame's header keeps its command: after the magic and version.
const COMMAND_BYTE: usize = zlink_core::wire::MAGIC.len() + 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_cores_and_numbers_round_trip() {
        for r in [CoreReason::Creating, CoreReason::RelocationFailed] {
            assert_eq!(UnavailableReason::from(r).name(), r.as_str());
        }
        for a in [CoreAbort::Requested, CoreAbort::CommitFailed] {
            assert_eq!(AbortReason::from(a).name(), a.name());
        }
        for s in [CoreState::Creating, CoreState::Releasing] {
            assert_eq!(AuthorityState::from(s).name(), s.as_str());
        }
        for k in [CoreKind::Spot, CoreKind::Actor] {
            assert_eq!(ObjectKind::from(k).name(), k.as_str());
        }
        for r in RelocationRefusal::ALL {
            assert_eq!(RelocationRefusal::from_code(*r as u32), Some(*r));
        }
    }

    #[test]
    fn a_frame_command_is_the_headers_byte_and_the_wires_name_for_every_vector() {
        use zlink_core::wire::{DecodeLimits, decode};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/wire");
        let mut seen = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(dir).expect("the wire vectors") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "bin") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("a vector");
            let frame = decode(&bytes, &DecodeLimits::default()).expect("a valid vector");
            let command = FrameCommand::of(&bytes);
            assert_eq!(command.name(), frame.command_name(), "{}", path.display());
            seen.insert(command as u32);
        }
        let all: std::collections::BTreeSet<u32> =
            FrameCommand::ALL.iter().map(|c| *c as u32).collect();
        assert_eq!(seen, all, "every command has a vector");
    }

    #[test]
    fn a_wire_error_kind_is_named_as_the_wire_vectors_name_it() {
        use zlink_core::wire::WireError as E;
        let all = [
            E::BadMagic,
            E::UnsupportedVersion(9),
            E::UnknownCommand(99),
            E::TrailingBytes(1),
        ];
        for e in &all {
            assert_eq!(
                WireErrorKind::from(e).name(),
                zlink_core::wire::json::error_kind(e)
            );
        }
    }
}
