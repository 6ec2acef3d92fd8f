//! The Location Store: the shared authority every node of a cluster reads
//! and writes (§2.1). The only I/O in the core (DESIGN §3).
//!
//! Every write is a compare-and-set on the authority the writer read
//! ([`WriteFence`]) and bumps the per-object [`StoreVersion`](crate::StoreVersion). Every answer
//! carries the store's own time and epoch ([`Observed`]), so lease deadlines
//! are computed on the store's clock and a store restart is noticed.

mod faulty;
mod memory;
mod timed;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use faulty::FaultyStore;
pub use memory::{MemoryStore, StoreReplica};
pub(crate) use timed::Timed;

use crate::authority::{
    AuthorityRecord, AuthorityState, OwnerClaim, StoreEpoch, StoreTime, WriteFence,
};
use crate::ids::{KeyRef, NodeGeneration, OwnerLeaseGeneration, ProposalId};
use crate::peer::{Endpoint, PeerDescriptor};

/// How long a released object's tombstone is kept by default: far longer
/// than any cache entry (`route_cache_max_age`), Message Follow route
/// (`message_follow_duration`) or in-flight frame of the old incarnation can
/// live, so nothing of it can meet a re-created object, yet churn of unique
/// IDs does not grow the store forever.
pub const DEFAULT_TOMBSTONE_RETENTION: std::time::Duration = std::time::Duration::from_secs(3600);

/// The future every store call returns: boxed so the trait can be used as
/// `Arc<dyn LocationStore>`, whichever backend a host picks at run time.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A store answer with the store's time and epoch at the moment it answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed<T> {
    /// The answer.
    pub value: T,
    /// The store's clock when it answered.
    pub store_time: StoreTime,
    /// The store server's lifetime identity.
    pub epoch: StoreEpoch,
}

/// Why a store call did not complete. The authority's presence is unknown:
/// callers map this to `StoreFailure`, never to Missing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The call did not finish within `store_timeout`. Retry later.
    #[error("location store call timed out after {millis} ms")]
    Timeout {
        /// The deadline that passed.
        millis: u64,
    },
    /// The store could not be reached. Retry later; the client reconnects.
    #[error("location store unreachable: {0}")]
    Unreachable(Arc<str>),
    /// The store is configured wrongly (URL, key prefix). Fix the
    /// configuration; retrying cannot succeed.
    #[error("location store configuration: {0}")]
    Config(Arc<str>),
    /// The store answered something the core cannot use (corrupt record,
    /// protocol error). Report it; retrying will likely fail the same way.
    #[error("location store answered badly: {0}")]
    Protocol(Arc<str>),
    /// The primary applied an authority write, but fewer replicas than
    /// asked (`RedisOptions::write_acks`) acknowledged it in time: a
    /// failover may still lose it, so its outcome is unknown and the
    /// writer does not act on it. Retry the same intent (its proposal
    /// decides it); a replica that stays away makes writes fail so until
    /// it is back or removed.
    #[error(
        "authority write not acknowledged by enough replicas ({acknowledged} of {wanted}): outcome unknown"
    )]
    NotReplicated {
        /// Replicas that acknowledged the write.
        acknowledged: u32,
        /// Replicas the write waited for.
        wanted: u32,
    },
}

/// Why the store refused an authority write. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteRejection {
    /// `create` on an ID whose record still exists (release not complete).
    #[error("authority record already exists (state {state:?}, generation {current:?})")]
    AlreadyExists {
        /// The existing record's state.
        state: AuthorityState,
        /// The existing record's fence.
        current: WriteFence,
    },
    /// No authority record exists for the ID.
    #[error("no authority record exists")]
    NotFound,
    /// The record's incarnation or owner generation is not the one the
    /// writer read: re-read and decide again.
    #[error("stale write: expected {expected:?}, store holds {current:?}")]
    StaleGeneration {
        /// What the writer named.
        expected: WriteFence,
        /// What the store holds.
        current: WriteFence,
    },
    /// The record is in a state this write does not apply to.
    #[error("write not allowed in state {state:?}")]
    WrongState {
        /// The record's state.
        state: AuthorityState,
    },
    /// Lease renewal by a lease generation that does not hold the lease.
    #[error("lease held by generation {holder}, not {claimed}")]
    NotLeaseHolder {
        /// The generation holding the lease.
        holder: OwnerLeaseGeneration,
        /// The generation that tried to renew.
        claimed: OwnerLeaseGeneration,
    },
    /// Lease renewal after the lease ended: the owner lost it.
    #[error("owner lease already expired")]
    LeaseExpired,
    /// A peer descriptor older than the one stored for that endpoint and
    /// node (a restarted node publishes a higher lifecycle generation).
    #[error("a newer descriptor (lifecycle generation {current}) is stored for this endpoint")]
    StaleDescriptor {
        /// The lifecycle generation stored.
        current: NodeGeneration,
    },
}

/// The result of an authority write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The store refused the compare-and-set.
    #[error(transparent)]
    Rejected(#[from] WriteRejection),
    /// The store could not be asked; whether the write happened is unknown
    /// only if the call timed out after sending.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The future of an authority write.
pub type WriteFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, WriteError>> + Send + 'a>>;

/// A Location Store backend. Implementations must be safe under concurrent
/// use from many tasks and threads; every write is atomic on the server.
///
/// Every write carries a [`ProposalId`] that the store keeps with the record
/// (and after a release). A write whose proposal is the one the record
/// already carries was applied before, typically by an attempt whose answer
/// was lost to a timeout: the store answers it as a success with the current
/// record instead of a conflict, and writes nothing twice.
pub trait LocationStore: Send + Sync + 'static {
    /// Reads the authority record of `key`; `None` when no record exists.
    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>>;

    /// [`read`](Self::read) on the calling thread, which it blocks for about
    /// `limit` at most (then `StoreError::Timeout`). The resolver calls it
    /// for a caller blocked on the answer anyway (a host thread in the
    /// blocking `resolve`): a store with its own I/O thread saves the hop
    /// there and back, two thread wake-ups per read. `None`: this store has
    /// no such read, and the caller awaits `read`.
    fn read_blocking(
        &self,
        key: KeyRef<'_>,
        limit: std::time::Duration,
    ) -> Option<Result<Observed<Option<AuthorityRecord>>, StoreError>> {
        let _ = (key, limit);
        None
    }

    /// Creates a record in `Creating` for a new incarnation owned by
    /// `claim`. The object generation is higher than any earlier incarnation
    /// of the ID. Refused when a record exists.
    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>>;

    /// `Creating` → `Ready` for the incarnation and owner named by `expect`.
    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>>;

    /// Relocation commit: a `Ready` record moves to `claim`'s node and its
    /// authority owner generation increases by one.
    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>>;

    /// Extends the owner lease to `lease_millis` from the store's now, if
    /// `lease` still holds it and it has not expired.
    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>>;

    /// `Creating`/`Ready` → `Releasing`.
    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>>;

    /// Publishes a node's object-peer descriptor (a node writes its own at
    /// start). Refused if the store holds a higher lifecycle generation of
    /// the same node for that endpoint. Answers with what is stored.
    fn put_descriptor(
        &self,
        descriptor: &PeerDescriptor,
    ) -> WriteFuture<'_, Observed<PeerDescriptor>>;

    /// The object-peer descriptor published for `endpoint`, if any.
    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>>;

    /// The async runtime this store's I/O lives on, if it has one. A runtime
    /// runs its store work there, so a call needs no hop between threads.
    fn executor(&self) -> Option<tokio::runtime::Handle> {
        None
    }

    /// The epoch the store would report now, without a call (a Redis
    /// store's watcher keeps it): how an owner that makes no store call
    /// still notices a failover before it admits. `None`: only answers
    /// carry it.
    fn epoch(&self) -> Option<StoreEpoch> {
        None
    }

    /// Removes a `Releasing` record; from then on the ID resolves `Missing`.
    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>>;
}

/// A shared store is a store: lets one `MemoryStore` sit inside a wrapper
/// (a [`FaultyStore`] in the simulation) while the harness keeps reading it
/// directly, behind the faults.
impl<S: LocationStore + ?Sized> LocationStore for Arc<S> {
    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>> {
        (**self).read(key)
    }

    fn read_blocking(
        &self,
        key: KeyRef<'_>,
        limit: std::time::Duration,
    ) -> Option<Result<Observed<Option<AuthorityRecord>>, StoreError>> {
        (**self).read_blocking(key, limit)
    }

    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        (**self).create(key, claim, proposal)
    }

    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        (**self).publish_ready(key, expect, proposal)
    }

    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        (**self).transfer_owner(key, expect, claim, proposal)
    }

    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        (**self).renew_lease(key, expect, lease, lease_millis, proposal)
    }

    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        (**self).begin_release(key, expect, proposal)
    }

    fn put_descriptor(
        &self,
        descriptor: &PeerDescriptor,
    ) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        (**self).put_descriptor(descriptor)
    }

    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>> {
        (**self).read_descriptor(endpoint)
    }

    fn executor(&self) -> Option<tokio::runtime::Handle> {
        (**self).executor()
    }

    fn epoch(&self) -> Option<StoreEpoch> {
        (**self).epoch()
    }

    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>> {
        (**self).complete_release(key, expect, proposal)
    }
}

/// Whether the caller runs on `executor`'s runtime (a store's: its work may
/// then run inline, with no hop between threads). For store
/// implementations (the Redis store's calls use it); not for hosts.
pub fn runs_on(executor: &tokio::runtime::Handle) -> bool {
    tokio::runtime::Handle::try_current().is_ok_and(|current| current.id() == executor.id())
}
