//! The relay-notification dedup registry (spec §2.5, DESIGN §5.5).
//!
//! One registry per Message Follow route, so its entries leave with the
//! route (expiry or replacement) and it needs no timer of its own. A key
//! holds every field of both route fences and the runtime the notification
//! is addressed to: a marker for one sender or one route never suppresses a
//! notification another one needs.

use std::collections::HashMap;

use crate::route::RouteFence;
use crate::wire::NodeRef;

/// Who a notification goes to and which route it is about. (The route's
/// destination end is fixed per registry, so it is part of the key through
/// the registry itself.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DedupKey {
    /// The original sender.
    pub(crate) origin: NodeRef,
    /// The route fence the sender used (the source end as it saw it).
    pub(crate) source_fence: RouteFence,
    /// The destination end's fence.
    pub(crate) destination_fence: RouteFence,
}

/// A notification's state (spec §2.5 state diagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoticeState {
    /// May be sent.
    Idle,
    /// Being sent: no second send starts.
    InFlight,
    /// Sent: nothing more until the route goes.
    SentUntilExpiry,
}

/// The registry of one route.
#[derive(Debug, Default)]
pub(crate) struct DedupRegistry {
    entries: HashMap<DedupKey, NoticeState>,
}

impl DedupRegistry {
    /// Takes the right to send for `key` (idle → inFlight). False means
    /// suppressed: in flight or already sent.
    pub(crate) fn acquire(&mut self, key: DedupKey) -> bool {
        let state = self.entries.entry(key).or_insert(NoticeState::Idle);
        if *state == NoticeState::Idle {
            *state = NoticeState::InFlight;
            true
        } else {
            false
        }
    }

    /// The host reports the send: inFlight → sentUntilExpiry, or → idle so
    /// a later relay may try again. Reports for unknown keys (the route was
    /// replaced meanwhile) are ignored.
    pub(crate) fn settle(&mut self, key: &DedupKey, sent: bool) {
        if let Some(state) = self.entries.get_mut(key)
            && *state == NoticeState::InFlight
        {
            *state = if sent {
                NoticeState::SentUntilExpiry
            } else {
                NoticeState::Idle
            };
        }
    }

    /// Whether `key` has an entry.
    pub(crate) fn contains(&self, key: &DedupKey) -> bool {
        self.entries.contains_key(key)
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Drops one entry to make room (the registry is full). Losing one only
    /// means a later relay may notify that sender again: a notification is
    /// an optimisation, never needed for correctness (§2.2).
    pub(crate) fn evict_one(&mut self) -> bool {
        let Some(key) = self.entries.keys().next().copied() else {
            return false;
        };
        self.entries.remove(&key);
        true
    }

    #[cfg(test)]
    fn state(&self, key: &DedupKey) -> Option<NoticeState> {
        self.entries.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::*;

    fn key(origin: u64, aog: u64) -> DedupKey {
        let fence = |aog| RouteFence {
            object_generation: ObjectGeneration(1),
            authority_owner_generation: AuthorityOwnerGeneration(aog),
            owner_lease_generation: OwnerLeaseGeneration(1),
            node_generation: NodeGeneration(1),
            store_version: StoreVersion(1),
        };
        DedupKey {
            origin: NodeRef {
                mesh: MeshName::new("m").expect("valid"),
                rid: NodeRid(origin),
                generation: NodeGeneration(1),
            },
            source_fence: fence(aog),
            destination_fence: fence(aog + 1),
        }
    }

    #[test]
    fn idle_in_flight_sent_until_expiry() {
        let mut r = DedupRegistry::default();
        assert!(r.acquire(key(1, 1)));
        assert!(!r.acquire(key(1, 1)), "in flight: no second send");
        r.settle(&key(1, 1), true);
        assert_eq!(r.state(&key(1, 1)), Some(NoticeState::SentUntilExpiry));
        assert!(
            !r.acquire(key(1, 1)),
            "sent: suppressed until the route goes"
        );
    }

    #[test]
    fn a_failed_send_returns_to_idle() {
        let mut r = DedupRegistry::default();
        assert!(r.acquire(key(1, 1)));
        r.settle(&key(1, 1), false);
        assert_eq!(r.state(&key(1, 1)), Some(NoticeState::Idle));
        assert!(r.acquire(key(1, 1)), "retry allowed");
    }

    #[test]
    fn keys_differ_by_origin_and_by_every_fence_field() {
        let mut r = DedupRegistry::default();
        assert!(r.acquire(key(1, 1)));
        assert!(r.acquire(key(2, 1)), "another sender is not suppressed");
        assert!(
            r.acquire(key(1, 2)),
            "another route fence is not suppressed"
        );
        r.settle(&key(9, 9), true);
        assert_eq!(r.state(&key(9, 9)), None, "unknown keys are ignored");
    }
}
