//! zlink-core: the routing core of the zlink virtual-actor framework.
//!
//! A Spot or Actor is a logical object with a global ID whose owning node can
//! change. This crate decides how a message sent to that ID finds its current
//! owner (spec §2): the [`Runtime`] resolves IDs through a positive route
//! cache backed by a shared [`LocationStore`], and admits inbound messages on
//! the owner side. Hosts move the bytes; the core never opens a socket.

#![warn(missing_docs)]

mod admission;
mod authority;
mod cache;
mod clock;
mod config;
mod error;
mod follow;
mod ids;
mod inbound;
mod latency;
mod lifecycle;
mod liveness;
pub mod mesh;
mod ownership;
mod peer;
mod reason;
mod reconfirm;
mod recovery;
pub mod relocation;
mod reply;
mod resolve;
mod retry;
mod route;
mod runtime;
mod send;
mod session;
mod stats;
pub mod store;
mod timer;
pub mod wire;

pub use admission::{Admission, InboundDirect, Rejection, StaleReason};
pub use authority::{
    AuthorityRecord, AuthorityState, Owner, OwnerClaim, OwnerLease, StoreEpoch, StoreTime,
    WriteFence,
};
pub use cache::{INLINE_ID_BYTES, NEAR_SHARDS, NearHit};
pub use clock::{COARSE_SLACK, Clock, ManualClock, MonoTime, SystemClock};
pub use config::{
    CACHE_FOLLOW_GAP, DEFAULT_MAX_RELOCATION_STATE_BYTES, MAX_MESSAGE_BYTES, RoutingConfig,
};
pub use error::{ConfigError, InputError};
pub use ids::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, CorrelationId, KeyRef,
    MAX_MESH_NAME_BYTES, MAX_OBJECT_ID_BYTES, MeshName, NodeGeneration, NodeIdentity, NodeRid,
    ObjectGeneration, ObjectKey, ObjectKind, OperationId, OwnerLeaseGeneration, ProposalId,
    RelocationId, SessionGeneration, SessionId, StoreVersion,
};
pub use inbound::{Delivery, Ended, Failure, Inbound, Notice, NoticeParts, NoticeToken};
pub use latency::{BUCKET_BOUNDS_NS, HistogramStats, LatencyStats};
pub use lifecycle::LifecycleError;
pub use ownership::OwnedObject;
pub use peer::{
    Endpoint, Liveness, MAX_PEER_FIELD_BYTES, PeerDescriptor, PeerIntent, PeerReplacement,
};
pub use reconfirm::{LostReason, OwnershipLost};
pub use relocation::{
    Capture, RelocationAction, RelocationError, RelocationEvent, RelocationStarted,
};
pub use reply::{
    Completion, Outcome, PendingRequest, ReplyRouteError, RequestError, RequestOptions, Requested,
    SpotExecution,
};
pub use resolve::{Resolution, UnavailableReason};
pub use route::{OwnerRoute, ReadyRoute, RouteFence};
pub use runtime::{BuildError, Runtime, RuntimeBuilder};
pub use send::{DirectSend, SendOptions};
pub use send::{Outbound, Sent};
pub use session::{
    ActorRef, BindingRoute, Registration, SessionDelivery, SessionError, SessionEvent, SessionSend,
};
pub use stats::{
    FollowStats, HOST_COUNTER_CELLS, HOST_COUNTER_STRIDE, InvalidationReason, RelocationStats,
    RequestStats, ResolutionCounts, SessionStats, Stats, TableStats,
};
pub use store::{LocationStore, MemoryStore, StoreError};
pub use wire::{AbortReason, RelocationIdentity};
