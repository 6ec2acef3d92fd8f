//! Errors at the API edge: bad input and invalid configuration.
//!
//! Routing outcomes (Missing, Unavailable, StoreFailure …) are not errors;
//! they are closed result enums the caller matches (DESIGN §3).

use std::time::Duration;

/// Input a caller gave that the core refuses. Fix the input; retrying the
/// same call cannot succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// An object ID must have at least one byte.
    #[error("object id is empty; give the global Spot/Actor ID")]
    EmptyObjectId,
    /// The object ID is longer than the configured cap.
    #[error("object id is {len} bytes, over the {max}-byte cap")]
    ObjectIdTooLong {
        /// Length of the ID given, in bytes.
        len: usize,
        /// The cap in force.
        max: usize,
    },
    /// A mesh name must have at least one byte.
    #[error("mesh name is empty")]
    EmptyMeshName,
    /// The mesh name is longer than the fixed cap.
    #[error("mesh name is {len} bytes, over the {max}-byte cap")]
    MeshNameTooLong {
        /// Length of the name given, in bytes.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// Object kinds are `spot` and `actor`.
    #[error("unknown object kind {0:?}; expected \"spot\" or \"actor\"")]
    UnknownObjectKind(String),
    /// Instance intent (cold activation) exists only on Spot calls (§2.4).
    #[error("instance intent is only valid on a Spot direct call, not on an Actor")]
    InstanceIntentOnActor,
    /// The payload is over the negotiated message bound.
    #[error("payload is {len} bytes, over the {max}-byte message bound")]
    PayloadTooLarge {
        /// The payload's length.
        len: usize,
        /// The bound in force.
        max: usize,
    },
    /// A Message Follow hand-over named a destination that is not a later
    /// tenure of the same incarnation (so no committed relocation).
    #[error("hand-over destination is not a committed later tenure: {0}")]
    NotACommittedMove(String),
    /// The object is not owned by this node.
    #[error("this node does not own {0}")]
    NotOwned(String),
    /// A peer endpoint or security identity is empty or too long.
    #[error("peer {field} is {len} bytes; it must be 1..={max}")]
    BadPeerField {
        /// Which field.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
    /// A blocking call was made with a zero deadline.
    #[error("operation deadline must be positive")]
    ZeroDeadline,
}

/// A [`RoutingConfig`](crate::RoutingConfig) that breaks a rule; nothing is
/// changed when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// §2.5: the cache must expire before the Message Follow detour closes.
    #[error(
        "route_cache_max_age ({cache:?}) must be at least 5 s shorter than \
         message_follow_duration ({follow:?}) when both are positive"
    )]
    CacheOutlivesFollow {
        /// The cache max age given.
        cache: Duration,
        /// The Message Follow duration given.
        follow: Duration,
    },
    /// §2.5: a Message Follow chain is at most 8 hops.
    #[error("max_follow_hops must be 1..=8, got {0}")]
    FollowHops(u8),
    /// A duration that has no meaning at zero.
    #[error("{field} must be positive")]
    ZeroDuration {
        /// The field's name.
        field: &'static str,
    },
    /// The route cache needs room for at least one entry.
    #[error("route_cache_capacity must be at least 1")]
    ZeroCapacity,
    /// The object-ID cap is out of range.
    #[error("max_object_id_bytes must be 1..={max}, got {got}")]
    ObjectIdCap {
        /// The cap given.
        got: usize,
        /// The largest cap allowed.
        max: usize,
    },
    /// The message bound is out of range.
    #[error("max_message_bytes must be 1..={max}, got {got}")]
    MessageBound {
        /// The bound given.
        got: usize,
        /// The largest bound allowed.
        max: usize,
    },
    /// At least one store attempt must be allowed.
    #[error("store_attempts must be at least 1")]
    ZeroStoreAttempts,
    /// The relocation state bound is out of range.
    #[error("max_relocation_state_bytes must be 1..={max}, got {got}")]
    StateBound {
        /// The bound given.
        got: usize,
        /// The largest bound allowed.
        max: usize,
    },
    /// A running runtime's route cache can shrink, or grow back, but not
    /// past the capacity it was built with (its table is sized then): build
    /// a new runtime for a larger cache.
    #[error(
        "route_cache_capacity can be changed at runtime up to the {built} \
         the runtime was built with, got {got}"
    )]
    CapacityAboveBuilt {
        /// The capacity given.
        got: usize,
        /// The capacity the runtime was built with.
        built: usize,
    },
}
