//! Every error a host sees, once: a stable kind name (the core's variant
//! name where there is one), the family it belongs to (Python's exception
//! class, the other languages' error type) and the coarse result code of
//! the C ABI. Conversions from every core error live here, so no binding
//! maps an error itself.

use std::ffi::CStr;
use std::fmt::Display;

use zlink_core::store::{WriteError, WriteRejection};
use zlink_core::wire::WireError;
use zlink_core::{
    BuildError, ConfigError, InputError, LifecycleError, RelocationError, ReplyRouteError,
    SessionError, StoreError,
};

use crate::codes::RelocationRefusal;

/// What a call did, coarsely: the C ABI's `zlink_result`. The numbers are
/// stable: new codes are only appended. The error's kind
/// (`zlink_error_kind`) names the precise cause within a code.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// Success; out-parameters were written.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// A handle was freed, of another type, or not made by this library.
    InvalidHandle = 2,
    /// A string argument is not valid UTF-8.
    InvalidUtf8 = 3,
    /// An input is longer than its bound (object ID, mesh name, payload, URL).
    TooLong = 4,
    /// An input is out of range or malformed (empty ID, unknown kind, zero
    /// deadline, instance intent on an Actor, …). Fix the input.
    InvalidArgument = 5,
    /// The config breaks a rule (see the message); nothing was changed.
    InvalidConfig = 6,
    /// The Location Store could not be reached or answered badly. Retry.
    StoreFailure = 7,
    /// The store refused an authority write (compare-and-set); re-read.
    WriteRejected = 8,
    /// This node does not own the object.
    NotOwned = 9,
    /// A relocation hand-over named a destination that is not committed.
    NotCommitted = 10,
    /// The operation was a one-way message: it has no reply route.
    NoReplyRoute = 11,
    /// The library could not start its threads.
    Threads = 12,
    /// Too many live handles.
    Exhausted = 13,
    /// Not allowed from this thread (e.g. freeing a runtime from one of its
    /// own callbacks).
    WrongThread = 14,
    /// A bug in the library: a panic was caught at the boundary.
    Panic = 15,
    /// No such open Session on this runtime.
    UnknownSession = 16,
    /// The Session was disconnected; it only waits for its relocations.
    SessionClosing = 17,
    /// The binding is sealed for a relocation: rebind after its command 44.
    BindingSealed = 18,
    /// The Session has no binding to that Actor.
    NotBound = 19,
    /// Other Rust code in the process already set the global `tracing`
    /// subscriber: the log callback cannot be installed.
    LogSubscriberTaken = 20,
    /// The object is already relocating on this runtime (as source or
    /// target): finish or abort that relocation first.
    AlreadyRelocating = 21,
    /// No relocation of the object runs on this runtime.
    NotRelocating = 22,
    /// The relocation is past relay-ready: it does not roll back.
    AfterRelayReady = 23,
    /// The relocation state is over the config's
    /// `max_relocation_state_bytes`.
    StateTooLarge = 24,
    /// The relocation is not in the phase the call needs (see the message).
    RelocationRefused = 25,
    /// The bytes are not a valid wire frame: the kind names why (the error
    /// kinds of docs/wire.md: "Truncated", "BadMagic", …).
    WireInvalid = 26,
    /// The object was made before this process forked from its parent: its
    /// threads do not exist here. Make a new one in this process (freeing
    /// the old one only forgets it).
    Forked = 27,
}

impl Code {
    /// The code numbered `code`, if any.
    pub fn from_code(code: u32) -> Option<Code> {
        // Inside a function: cbindgen exports a type's associated consts.
        const ALL: [Code; 28] = [
            Code::Ok,
            Code::NullPointer,
            Code::InvalidHandle,
            Code::InvalidUtf8,
            Code::TooLong,
            Code::InvalidArgument,
            Code::InvalidConfig,
            Code::StoreFailure,
            Code::WriteRejected,
            Code::NotOwned,
            Code::NotCommitted,
            Code::NoReplyRoute,
            Code::Threads,
            Code::Exhausted,
            Code::WrongThread,
            Code::Panic,
            Code::UnknownSession,
            Code::SessionClosing,
            Code::BindingSealed,
            Code::NotBound,
            Code::LogSubscriberTaken,
            Code::AlreadyRelocating,
            Code::NotRelocating,
            Code::AfterRelayReady,
            Code::StateTooLarge,
            Code::RelocationRefused,
            Code::WireInvalid,
            Code::Forked,
        ];
        ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// A short description, NUL-terminated for C.
    pub fn text(self) -> &'static CStr {
        match self {
            Code::Ok => c"ok",
            Code::NullPointer => c"a required pointer argument is NULL",
            Code::InvalidHandle => c"the handle is freed, foreign or of another type",
            Code::InvalidUtf8 => c"a string argument is not valid UTF-8",
            Code::TooLong => c"an input is longer than its bound",
            Code::InvalidArgument => c"an input is out of range or malformed",
            Code::InvalidConfig => c"the config breaks a rule",
            Code::StoreFailure => c"the location store failed",
            Code::WriteRejected => c"the store refused the authority write",
            Code::NotOwned => c"this node does not own the object",
            Code::NotCommitted => c"the hand-over destination is not committed",
            Code::NoReplyRoute => c"the operation has no reply route",
            Code::Threads => c"the library could not start its threads",
            Code::Exhausted => c"too many live handles",
            Code::WrongThread => c"not allowed from this thread",
            Code::Panic => c"internal error (a panic was caught)",
            Code::UnknownSession => c"no such open session",
            Code::SessionClosing => c"the session is disconnected",
            Code::BindingSealed => c"the binding is sealed for a relocation",
            Code::NotBound => c"the session has no binding to that actor",
            Code::LogSubscriberTaken => {
                c"a global tracing subscriber is already set in this process"
            }
            Code::AlreadyRelocating => c"the object is already relocating",
            Code::NotRelocating => c"the object is not relocating here",
            Code::AfterRelayReady => c"the relocation is past relay-ready",
            Code::StateTooLarge => c"the relocation state is over its bound",
            Code::RelocationRefused => c"the relocation refused the call in its phase",
            Code::WireInvalid => c"the bytes are not a valid wire frame",
            Code::Forked => c"the object was made before this process forked",
        }
    }
}

/// Which family an error belongs to: the host language's error type
/// (Python's exception class of that name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// An argument the core refuses. Fix the input.
    Input,
    /// A config breaks a rule. Nothing was changed.
    Config,
    /// The Location Store could not be opened or asked.
    Store,
    /// An authority write did not happen. Re-read and decide again.
    Lifecycle,
    /// Bytes that are not a valid frame.
    Wire,
    /// A reply on a one-way message, or over the message bound.
    ReplyRoute,
    /// A session call refused.
    Session,
    /// A relocation call refused; nothing changed.
    Relocation,
    /// The object was made before this process forked.
    Forked,
    /// The object was closed.
    Closed,
    /// The library itself: threads, handles, panics, the log subscriber.
    Host,
}

impl Family {
    /// The error type's name in the host languages.
    pub fn name(self) -> &'static str {
        match self {
            Family::Input => "InputError",
            Family::Config => "ConfigError",
            Family::Store => "StoreError",
            Family::Lifecycle => "LifecycleError",
            Family::Wire => "WireError",
            Family::ReplyRoute => "ReplyRouteError",
            Family::Session => "SessionError",
            Family::Relocation => "RelocationError",
            Family::Forked => "ForkedRuntimeError",
            Family::Closed => "ClosedError",
            Family::Host => "ZlinkError",
        }
    }
}

/// The kind list: each kind's stable number and its code (the family's
/// code wins for Config and Wire errors).
macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $n:literal => $code:ident,)*) => {
        /// The precise cause of an error. Numbers and names are stable; new
        /// kinds are only appended.
        #[repr(u32)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $($(#[$doc])* $name = $n,)*
        }

        impl ErrorKind {
            /// Every kind, in number order.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$name,)*];

            /// The stable name (`zlink_error_kind`, Python's `.kind`).
            pub fn name(self) -> &'static str {
                match self {
                    $(ErrorKind::$name => stringify!($name),)*
                }
            }

            fn code(self) -> Code {
                match self {
                    $(ErrorKind::$name => Code::$code,)*
                }
            }
        }
    };
}

kinds! {
    /// A required pointer argument was NULL (C).
    NullPointer = 1 => NullPointer,
    /// A handle was freed, of another type, or never made here.
    InvalidHandle = 2 => InvalidHandle,
    /// A string argument is not UTF-8 (C).
    InvalidUtf8 = 3 => InvalidUtf8,
    /// The library could not start its threads.
    Threads = 4 => Threads,
    /// Too many live handles.
    Exhausted = 5 => Exhausted,
    /// Not allowed from this thread.
    WrongThread = 6 => WrongThread,
    /// A panic was caught at the boundary.
    Panic = 7 => Panic,
    /// Another global `tracing` subscriber is set.
    LogSubscriberTaken = 8 => LogSubscriberTaken,
    /// The object was made before a fork.
    Forked = 9 => Forked,
    /// The object ID is empty.
    EmptyObjectId = 10 => InvalidArgument,
    /// The object ID is over its cap.
    ObjectIdTooLong = 11 => TooLong,
    /// The mesh name is empty.
    EmptyMeshName = 12 => InvalidArgument,
    /// The mesh name is over 23 bytes.
    MeshNameTooLong = 13 => TooLong,
    /// Neither spot nor actor.
    UnknownObjectKind = 14 => InvalidArgument,
    /// Instance intent given for an Actor.
    InstanceIntentOnActor = 15 => InvalidArgument,
    /// A payload over the message bound.
    PayloadTooLarge = 16 => TooLong,
    /// A hand-over destination that is not a committed later tenure.
    NotACommittedMove = 17 => NotCommitted,
    /// This node does not own the object.
    NotOwned = 18 => NotOwned,
    /// A peer endpoint or security identity out of 1..=1024 bytes.
    BadPeerField = 19 => TooLong,
    /// A zero operation deadline.
    ZeroDeadline = 20 => InvalidArgument,
    /// A negative number of milliseconds.
    Negative = 21 => InvalidArgument,
    /// A reply error kind that is neither Handler nor Decode.
    UnknownErrorKind = 22 => InvalidArgument,
    /// A reply with both or neither of a payload and an error.
    ReplyShape = 23 => InvalidArgument,
    /// A NUL-terminated text over 4096 bytes (C).
    TextTooLong = 24 => TooLong,
    /// A frame longer than the largest payload plus its headers.
    FrameTooLong = 25 => TooLong,
    /// Only a manual clock can be advanced.
    NotManualClock = 26 => InvalidArgument,
    /// A log level out of 1..=5.
    UnknownLogLevel = 27 => InvalidArgument,
    /// The decision is not a delivered operation.
    NotADelivery = 28 => InvalidArgument,
    /// The decision has no notification.
    NoNotice = 29 => InvalidArgument,
    /// The decision is not a relocation step.
    NotARelocation = 30 => InvalidArgument,
    /// The route cache must expire at least 5 s before Message Follow.
    CacheOutlivesFollow = 31 => InvalidConfig,
    /// max_follow_hops out of 1..=8.
    FollowHops = 32 => InvalidConfig,
    /// A duration that must be positive is zero.
    ZeroDuration = 33 => InvalidConfig,
    /// route_cache_capacity is zero.
    ZeroCapacity = 34 => InvalidConfig,
    /// max_object_id_bytes out of range.
    ObjectIdCap = 35 => InvalidConfig,
    /// max_message_bytes out of range.
    MessageBound = 36 => InvalidConfig,
    /// store_attempts is zero.
    ZeroStoreAttempts = 37 => InvalidConfig,
    /// max_relocation_state_bytes out of range.
    StateBound = 38 => InvalidConfig,
    /// A config number does not fit its field.
    OutOfRange = 39 => InvalidConfig,
    /// A config struct of another size than this library's (C).
    ConfigSize = 40 => InvalidConfig,
    /// A store call timed out.
    Timeout = 41 => StoreFailure,
    /// The store could not be reached.
    Unreachable = 42 => StoreFailure,
    /// The store is configured wrongly (a bad URL).
    Config = 43 => InvalidArgument,
    /// The store answered something unusable.
    Protocol = 44 => StoreFailure,
    /// An authority write failed on the store.
    Store = 45 => StoreFailure,
    /// Create found a record.
    AlreadyExists = 46 => WriteRejected,
    /// The write found no record.
    NotFound = 47 => WriteRejected,
    /// The write named an older fence.
    StaleGeneration = 48 => WriteRejected,
    /// The record is in another state.
    WrongState = 49 => WriteRejected,
    /// Another lease holds the record.
    NotLeaseHolder = 50 => WriteRejected,
    /// The lease ran out.
    LeaseExpired = 51 => WriteRejected,
    /// A newer peer descriptor is published.
    StaleDescriptor = 52 => WriteRejected,
    /// The bytes end early.
    Truncated = 53 => WireInvalid,
    /// Not a zlink frame.
    BadMagic = 54 => WireInvalid,
    /// A wire version this library does not speak.
    UnsupportedVersion = 55 => WireInvalid,
    /// An unknown command.
    UnknownCommand = 56 => WireInvalid,
    /// Flags the command does not allow.
    FlagsNotAllowed = 57 => WireInvalid,
    /// A length that disagrees with the frame.
    LengthMismatch = 58 => WireInvalid,
    /// A field over its decode limit.
    TooLong = 59 => WireInvalid,
    /// A field value that is not allowed.
    Invalid = 60 => WireInvalid,
    /// Bytes after the frame.
    TrailingBytes = 61 => WireInvalid,
    /// A reply to a one-way message.
    OneWay = 62 => NoReplyRoute,
    /// A reply (or its error message) over its bound.
    TooLarge = 63 => TooLong,
    /// No such open Session.
    UnknownSession = 64 => UnknownSession,
    /// The Session is disconnected.
    Closing = 65 => SessionClosing,
    /// The binding is sealed for a relocation.
    Sealed = 66 => BindingSealed,
    /// No binding to that Actor.
    NotBound = 67 => NotBound,
    /// A relocation to this node itself.
    TargetIsSelf = 68 => InvalidArgument,
    /// The object is already relocating.
    AlreadyRelocating = 69 => AlreadyRelocating,
    /// The relocation state is over its bound.
    StateTooLarge = 70 => StateTooLarge,
    /// Over 65536 saved operations.
    TooManySaved = 71 => TooLong,
    /// A saved operation for another object.
    ForeignOperation = 72 => InvalidArgument,
    /// No relocation of the object runs here.
    NotRelocating = 73 => NotRelocating,
    /// The relocation is past relay-ready.
    AfterRelayReady = 74 => AfterRelayReady,
    /// The relocation is not in the phase the call needs.
    Refused = 75 => RelocationRefused,
    /// The object was closed: calls after `close()` are refused.
    Closed = 76 => InvalidHandle,
    /// Bytes given back as a notice token that this library did not make.
    NotANoticeToken = 77 => InvalidArgument,
    /// route_cache_capacity raised above the one the runtime was built with.
    CapacityAboveBuilt = 78 => InvalidConfig,
}

impl ErrorKind {
    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// An error as every binding reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The precise cause.
    pub kind: ErrorKind,
    /// The host error type it belongs to.
    pub family: Family,
    /// Text for people (the core error's own text where there is one).
    pub message: String,
    /// A refused relocation call: why (a `RelocationRefusal` name).
    pub refusal: Option<&'static str>,
}

/// What bridge calls return.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` in `family`.
    pub fn new(family: Family, kind: ErrorKind, message: impl Display) -> Self {
        Error {
            kind,
            family,
            message: message.to_string(),
            refusal: None,
        }
    }

    /// An input error of `kind`.
    pub fn input(kind: ErrorKind, message: impl Display) -> Self {
        Error::new(Family::Input, kind, message)
    }

    /// A library error of `kind` (threads, handles, panics, logs).
    pub fn host(kind: ErrorKind, message: impl Display) -> Self {
        Error::new(Family::Host, kind, message)
    }

    /// Use of an object made before a fork.
    pub fn forked() -> Self {
        Error::new(
            Family::Forked,
            ErrorKind::Forked,
            "this object was created before fork(); create a new one in this process",
        )
    }

    /// Use of an object after its `close()` (`what` names it).
    pub fn closed(what: &str) -> Self {
        Error::new(
            Family::Closed,
            ErrorKind::Closed,
            format!("this {what} is closed"),
        )
    }

    /// A panic a host caught at its boundary: `{context}: {the panic's
    /// message}`.
    #[cold]
    pub fn panicked(payload: &(dyn std::any::Any + Send), context: &str) -> Self {
        let what = (payload.downcast_ref::<&str>().copied())
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("unknown panic");
        Error::host(ErrorKind::Panic, format!("{context}: {what}"))
    }

    /// The C ABI's result code.
    pub fn code(&self) -> Code {
        match self.family {
            Family::Config => Code::InvalidConfig,
            Family::Wire => Code::WireInvalid,
            _ => self.kind.code(),
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        let kind = match &e {
            InputError::EmptyObjectId => ErrorKind::EmptyObjectId,
            InputError::ObjectIdTooLong { .. } => ErrorKind::ObjectIdTooLong,
            InputError::EmptyMeshName => ErrorKind::EmptyMeshName,
            InputError::MeshNameTooLong { .. } => ErrorKind::MeshNameTooLong,
            InputError::UnknownObjectKind(_) => ErrorKind::UnknownObjectKind,
            InputError::InstanceIntentOnActor => ErrorKind::InstanceIntentOnActor,
            InputError::PayloadTooLarge { .. } => ErrorKind::PayloadTooLarge,
            InputError::NotACommittedMove(_) => ErrorKind::NotACommittedMove,
            InputError::NotOwned(_) => ErrorKind::NotOwned,
            InputError::BadPeerField { .. } => ErrorKind::BadPeerField,
            InputError::ZeroDeadline => ErrorKind::ZeroDeadline,
        };
        Error::input(kind, e)
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        let kind = match &e {
            ConfigError::CacheOutlivesFollow { .. } => ErrorKind::CacheOutlivesFollow,
            ConfigError::FollowHops(_) => ErrorKind::FollowHops,
            ConfigError::ZeroDuration { .. } => ErrorKind::ZeroDuration,
            ConfigError::ZeroCapacity => ErrorKind::ZeroCapacity,
            ConfigError::ObjectIdCap { .. } => ErrorKind::ObjectIdCap,
            ConfigError::MessageBound { .. } => ErrorKind::MessageBound,
            ConfigError::ZeroStoreAttempts => ErrorKind::ZeroStoreAttempts,
            ConfigError::StateBound { .. } => ErrorKind::StateBound,
            ConfigError::CapacityAboveBuilt { .. } => ErrorKind::CapacityAboveBuilt,
        };
        Error::new(Family::Config, kind, e)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        let kind = match &e {
            StoreError::Timeout { .. } | StoreError::NotReplicated { .. } => ErrorKind::Timeout,
            StoreError::Unreachable(_) => ErrorKind::Unreachable,
            StoreError::Config(_) => ErrorKind::Config,
            StoreError::Protocol(_) => ErrorKind::Protocol,
        };
        Error::new(Family::Store, kind, e)
    }
}

impl From<LifecycleError> for Error {
    fn from(e: LifecycleError) -> Self {
        let kind = match &e {
            // An ownership mistake is the write's refusal; other input
            // mistakes stay input errors: the caller fixes the arguments.
            LifecycleError::Input(InputError::NotOwned(_)) | LifecycleError::NotOwned { .. } => {
                ErrorKind::NotOwned
            }
            LifecycleError::Input(InputError::NotACommittedMove(_)) => ErrorKind::NotACommittedMove,
            LifecycleError::Input(i) => return i.clone().into(),
            LifecycleError::Write(WriteError::Store(_)) => ErrorKind::Store,
            LifecycleError::Write(WriteError::Rejected(r)) => match r {
                WriteRejection::AlreadyExists { .. } => ErrorKind::AlreadyExists,
                WriteRejection::NotFound => ErrorKind::NotFound,
                WriteRejection::StaleGeneration { .. } => ErrorKind::StaleGeneration,
                WriteRejection::WrongState { .. } => ErrorKind::WrongState,
                WriteRejection::NotLeaseHolder { .. } => ErrorKind::NotLeaseHolder,
                WriteRejection::LeaseExpired => ErrorKind::LeaseExpired,
                WriteRejection::StaleDescriptor { .. } => ErrorKind::StaleDescriptor,
            },
        };
        Error::new(Family::Lifecycle, kind, e)
    }
}

impl From<RelocationError> for Error {
    fn from(e: RelocationError) -> Self {
        let kind = match &e {
            RelocationError::Input(i) => return i.clone().into(),
            RelocationError::NotOwned(_) => ErrorKind::NotOwned,
            RelocationError::TargetIsSelf => ErrorKind::TargetIsSelf,
            RelocationError::AlreadyRelocating(_) => ErrorKind::AlreadyRelocating,
            RelocationError::StateTooLarge { .. } => ErrorKind::StateTooLarge,
            RelocationError::TooManySaved { .. } => ErrorKind::TooManySaved,
            RelocationError::ForeignOperation(_) => ErrorKind::ForeignOperation,
            RelocationError::NotRelocating(_) => ErrorKind::NotRelocating,
            RelocationError::AfterRelayReady => ErrorKind::AfterRelayReady,
            RelocationError::Refused(_) => ErrorKind::Refused,
        };
        let mut out = Error::new(Family::Relocation, kind, &e);
        if let RelocationError::Refused(r) = e {
            out.refusal = Some(RelocationRefusal::from(r).name());
        }
        out
    }
}

impl From<SessionError> for Error {
    fn from(e: SessionError) -> Self {
        let kind = match &e {
            SessionError::UnknownSession(_) => ErrorKind::UnknownSession,
            SessionError::Closing(_) => ErrorKind::Closing,
            SessionError::Sealed { .. } => ErrorKind::Sealed,
            SessionError::NotBound { .. } => ErrorKind::NotBound,
            SessionError::PayloadTooLarge { .. } => ErrorKind::PayloadTooLarge,
        };
        Error::new(Family::Session, kind, e)
    }
}

impl From<ReplyRouteError> for Error {
    fn from(e: ReplyRouteError) -> Self {
        let kind = match &e {
            ReplyRouteError::OneWay(_) => ErrorKind::OneWay,
            ReplyRouteError::TooLarge { .. } => ErrorKind::TooLarge,
        };
        Error::new(Family::ReplyRoute, kind, e)
    }
}

impl From<WireError> for Error {
    fn from(e: WireError) -> Self {
        let kind = ErrorKind::from_name(crate::codes::WireErrorKind::from(&e).name())
            .unwrap_or(ErrorKind::Invalid);
        Error::new(Family::Wire, kind, e)
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::Config(c) => c.into(),
            other => Error::host(ErrorKind::Threads, other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_dense_and_names_unique() {
        for i in 0..28 {
            assert_eq!(Code::from_code(i).map(|c| c as u32), Some(i));
        }
        assert_eq!(Code::from_code(28), None);
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i + 1);
            assert_eq!(ErrorKind::from_name(k.name()), Some(*k));
        }
    }

    #[test]
    fn a_family_decides_the_code_of_config_and_wire_errors() {
        let e = Error::new(Family::Config, ErrorKind::Negative, "x");
        assert_eq!(e.code(), Code::InvalidConfig);
        assert_eq!(
            Error::input(ErrorKind::Negative, "x").code(),
            Code::InvalidArgument
        );
        let wire = zlink_core::wire::decode(&[], &Default::default()).expect_err("empty");
        let e = Error::from(wire);
        assert_eq!(
            (e.kind, e.code()),
            (ErrorKind::Truncated, Code::WireInvalid)
        );
    }
}
