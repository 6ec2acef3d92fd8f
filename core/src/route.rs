//! Routes and fences: where to submit a message, and the values the owner
//! needs to judge whether that route is still current (§2.1 step 3, §2.2).

use crate::clock::MonoTime;
use crate::ids::{
    AuthorityOwnerGeneration, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    OwnerLeaseGeneration, StoreVersion,
};

/// Where the current owner is reached: its mesh and routing ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwnerRoute {
    /// The owner's connection group.
    pub mesh: MeshName,
    /// The owner's routing ID.
    pub node: NodeRid,
}

/// The fence values kept with a route so that a stale owner is recognised
/// instead of silently used (§2.2 "Reason it's kept").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RouteFence {
    /// The incarnation the route was resolved for.
    pub object_generation: ObjectGeneration,
    /// The owner generation within that incarnation.
    pub authority_owner_generation: AuthorityOwnerGeneration,
    /// The owner lease (owner-process lifecycle).
    pub owner_lease_generation: OwnerLeaseGeneration,
    /// The owner node's lifecycle generation.
    pub node_generation: NodeGeneration,
    /// The authority record version the route was read from.
    pub store_version: StoreVersion,
}

/// A confirmed Ready owner route: plain data, copied out of the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadyRoute {
    /// Where to submit.
    pub route: OwnerRoute,
    /// What the owner checks on admission.
    pub fence: RouteFence,
    /// The owner lease's local admission deadline: past it the route is not
    /// used, whatever the cache says.
    pub admission_deadline: MonoTime,
}
