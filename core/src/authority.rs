//! The authority record: what the Location Store says about one global
//! object — its state, incarnation, current owner and owner lease (§2.1).

use std::fmt;

use crate::ids::{
    AuthorityOwnerGeneration, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    OwnerLeaseGeneration, ProposalId, StoreVersion,
};
use crate::route::{OwnerRoute, RouteFence};

/// A time on the Location Store's own clock, in milliseconds. Lease expiry
/// is kept on this clock so local clock skew never extends a lease
/// (DESIGN §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StoreTime(pub u64);

impl fmt::Display for StoreTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

/// Identifies one lifetime of the store server: it changes when the store
/// restarts or fails over, which is a store recovery event (DESIGN §5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StoreEpoch(pub u64);

/// The lifecycle state of an authority record. A record that does not exist
/// is `Missing`, which is not a state of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthorityState {
    /// Created, not yet initialised: it cannot take messages.
    Creating,
    /// Creation, initialisation and the store record are done.
    Ready,
    /// Release has begun; the record is still there until release completes.
    Releasing,
}

impl AuthorityState {
    /// The lower-case name used in logs and store encodings.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorityState::Creating => "creating",
            AuthorityState::Ready => "ready",
            AuthorityState::Releasing => "releasing",
        }
    }
}

/// The owner lease an authority record carries: which owner-process
/// lifecycle holds it, and until when (store clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwnerLease {
    /// The owner's lease generation.
    pub generation: OwnerLeaseGeneration,
    /// When the lease ends, on the store's clock.
    pub expires_at: StoreTime,
}

/// The current owner as recorded by authority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Owner {
    /// Where the owner is reached.
    pub route: OwnerRoute,
    /// The owner node's lifecycle generation.
    pub node_generation: NodeGeneration,
    /// The owner lease.
    pub lease: OwnerLease,
}

/// One object's authority record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AuthorityRecord {
    /// Lifecycle state.
    pub state: AuthorityState,
    /// The incarnation.
    pub object_generation: ObjectGeneration,
    /// Order of owner changes within this incarnation.
    pub authority_owner_generation: AuthorityOwnerGeneration,
    /// The current owner.
    pub owner: Owner,
    /// Per-object version; bumped by every write.
    pub store_version: StoreVersion,
    /// The proposal of the write that produced this record.
    pub last_proposal: ProposalId,
}

impl AuthorityRecord {
    /// The fence a sender carries when it routes on this record.
    pub fn fence(&self) -> RouteFence {
        RouteFence {
            object_generation: self.object_generation,
            authority_owner_generation: self.authority_owner_generation,
            owner_lease_generation: self.owner.lease.generation,
            node_generation: self.owner.node_generation,
            store_version: self.store_version,
        }
    }

    /// What a writer names to say which authority it believes is current.
    pub fn write_fence(&self) -> WriteFence {
        WriteFence {
            object_generation: self.object_generation,
            authority_owner_generation: self.authority_owner_generation,
        }
    }
}

/// The compare part of an authority compare-and-set: the incarnation and
/// owner generation the writer read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteFence {
    /// The incarnation the writer acts on.
    pub object_generation: ObjectGeneration,
    /// The owner generation the writer read.
    pub authority_owner_generation: AuthorityOwnerGeneration,
}

/// A node's claim to own an object: who it is and for how long it asks to
/// hold the lease (the store computes the expiry on its own clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwnerClaim {
    /// The claimant's mesh.
    pub mesh: MeshName,
    /// The claimant's routing ID.
    pub node: NodeRid,
    /// The claimant's lifecycle generation.
    pub node_generation: NodeGeneration,
    /// The claimant's owner lease generation.
    pub lease_generation: OwnerLeaseGeneration,
    /// Requested lease length in milliseconds.
    pub lease_millis: u64,
}

impl OwnerClaim {
    /// Whether `owner` is what this claim was granted as (the same node,
    /// lifecycle and lease generation): the claimant's own earlier write.
    pub fn granted_as(&self, owner: &Owner) -> bool {
        owner.route.mesh == self.mesh
            && owner.route.node == self.node
            && owner.node_generation == self.node_generation
            && owner.lease.generation == self.lease_generation
    }

    /// The owner record this claim becomes when the store grants it at `now`.
    pub fn granted_at(&self, now: StoreTime) -> Owner {
        Owner {
            route: OwnerRoute {
                mesh: self.mesh,
                node: self.node,
            },
            node_generation: self.node_generation,
            lease: OwnerLease {
                generation: self.lease_generation,
                expires_at: StoreTime(now.0.saturating_add(self.lease_millis)),
            },
        }
    }
}
