//! Which owner leases this runtime knows to be over.
//!
//! An owner-lease invalidation (§2.2) says a host-process lifecycle of a node
//! has ended: its entries leave the cache, and an authority record still
//! naming that lease resolves `Unavailable(OwnerNotLive)` instead of being
//! cached again. Lease generations grow per node, so one number per node
//! (the highest ended generation) is all that is kept.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ids::{NodeRid, OwnerLeaseGeneration};

/// Ended owner leases, per node. Read on store reads only (never on a hit).
#[derive(Debug, Default)]
pub(crate) struct OwnerLiveness {
    ended: Mutex<HashMap<NodeRid, OwnerLeaseGeneration>>,
}

impl OwnerLiveness {
    /// Records that `lease` of `node`, and every earlier one, has ended.
    pub(crate) fn end(&self, node: NodeRid, lease: OwnerLeaseGeneration) {
        let mut ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        let mark = ended.entry(node).or_default();
        *mark = (*mark).max(lease);
    }

    /// Whether `lease` of `node` may still be live.
    pub(crate) fn is_live(&self, node: NodeRid, lease: OwnerLeaseGeneration) -> bool {
        let ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        ended.get(&node).is_none_or(|mark| lease > *mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ending_a_lease_ends_the_earlier_ones_of_that_node_only() {
        let l = OwnerLiveness::default();
        l.end(NodeRid(1), OwnerLeaseGeneration(3));
        l.end(NodeRid(1), OwnerLeaseGeneration(2));
        assert!(!l.is_live(NodeRid(1), OwnerLeaseGeneration(3)));
        assert!(!l.is_live(NodeRid(1), OwnerLeaseGeneration(1)));
        assert!(l.is_live(NodeRid(1), OwnerLeaseGeneration(4)));
        assert!(l.is_live(NodeRid(2), OwnerLeaseGeneration(1)));
    }
}
