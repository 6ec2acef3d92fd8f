//! Message Follow (spec §2.5): after a committed relocation the old owner
//! relays operations that still arrive on its route to the new owner,
//! without reading the store or running a handler, and tells the original
//! sender once so it refreshes its route.

mod dedup;

use std::collections::HashMap;
use std::sync::Mutex;

pub(crate) use dedup::DedupKey;
use dedup::DedupRegistry;

use crate::clock::MonoTime;
use crate::ids::{ObjectGeneration, ObjectKey};
use crate::route::RouteFence;
use crate::timer::Deadlines;
use crate::wire::{ActorRoute, Operation, RouteEnd};

/// Most notification dedup entries one follow route keeps (DESIGN §5.5).
pub(crate) const MAX_NOTICES_PER_ROUTE: usize = 4096;
/// Most notification dedup entries all follow routes of a runtime keep.
pub(crate) const MAX_NOTICES: usize = 65_536;

/// A committed source → destination route for one object, on the source.
#[derive(Debug)]
pub(crate) struct FollowRoute {
    /// The incarnation that moved.
    pub(crate) object_generation: ObjectGeneration,
    /// This node's tenure that ended.
    pub(crate) source: RouteEnd,
    /// The tenure the object moved to (a higher owner generation).
    pub(crate) destination: RouteEnd,
    /// The Message Follow duration in force at install, from then.
    pub(crate) expires_at: MonoTime,
    relayed_messages: u64,
    relayed_bytes: u64,
    notices: DedupRegistry,
}

impl FollowRoute {
    pub(crate) fn new(source: RouteEnd, destination: RouteEnd, expires_at: MonoTime) -> Self {
        FollowRoute {
            object_generation: source.fence.object_generation,
            source,
            destination,
            expires_at,
            relayed_messages: 0,
            relayed_bytes: 0,
            notices: DedupRegistry::default(),
        }
    }
}

/// What to do with an operation that reached this node, which does not own
/// its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FollowCheck {
    /// No live route (never installed, expired, or Message Follow off).
    NoRoute,
    /// The operation belongs to another incarnation than the route: it ends
    /// InvalidOperation.
    GenerationMismatch,
    /// One more hop would pass `max_follow_hops`.
    HopLimit,
    /// Relay it to `destination`.
    Relay(Box<RelayPlan>),
}

/// A decided relay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelayPlan {
    pub(crate) source: RouteEnd,
    pub(crate) destination: RouteEnd,
    /// Queue accounting after this relay.
    pub(crate) relayed_messages: u64,
    pub(crate) relayed_bytes: u64,
    /// Notify the original sender under this key (it holds the send right).
    pub(crate) notify: Option<DedupKey>,
    /// A notification was due but suppressed by the registry.
    pub(crate) suppressed: bool,
}

/// Whether `fence` names the tenure `end` (the store version may differ:
/// lease renewals bump it within one tenure).
fn same_tenure(fence: &RouteFence, end: &RouteEnd) -> bool {
    let f = &end.fence;
    fence.object_generation == f.object_generation
        && fence.authority_owner_generation == f.authority_owner_generation
        && fence.owner_lease_generation == f.owner_lease_generation
        && fence.node_generation == f.node_generation
}

/// This node's follow routes. Touched only by misrouted operations and
/// relocations, never by a cache hit, so one mutex is enough.
#[derive(Debug, Default)]
pub(crate) struct FollowRoutes {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    routes: HashMap<ObjectKey, FollowRoute>,
    /// Route expiries, swept by the runtime's timer.
    expiries: Deadlines<ObjectKey>,
    /// Dedup entries over every route.
    notices: usize,
    /// Dedup entries dropped to keep within the bounds.
    evictions: u64,
}

impl State {
    fn remove(&mut self, key: &ObjectKey) {
        if let Some(route) = self.routes.remove(key) {
            self.notices -= route.notices.len();
        }
    }

    /// Takes the notification right for `key` on `target`'s route, keeping
    /// the registry within its per-route and overall bounds.
    fn acquire(&mut self, target: &ObjectKey, key: DedupKey) -> bool {
        let Some(route) = self.routes.get_mut(target) else {
            return false;
        };
        if !route.notices.contains(&key) {
            let full = route.notices.len() >= MAX_NOTICES_PER_ROUTE || self.notices >= MAX_NOTICES;
            if full && route.notices.evict_one() {
                self.notices -= 1;
                self.evictions += 1;
            }
            if self.notices >= MAX_NOTICES {
                // Every entry is another route's: notify without a marker.
                self.evictions += 1;
                return true;
            }
            self.notices += 1;
        }
        route.notices.acquire(key)
    }
}

/// Sizes of the follow tables, for `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FollowSizes {
    pub(crate) routes: usize,
    pub(crate) expiries: usize,
    pub(crate) notices: usize,
    pub(crate) evictions: u64,
}

impl FollowRoutes {
    /// Installs (or replaces) the route of `key`; a replaced route takes its
    /// dedup entries with it. It leaves at its expiry, swept by the timer.
    pub(crate) fn install(&self, key: ObjectKey, route: FollowRoute) {
        let mut state = self.lock();
        state.remove(&key);
        state.expiries.schedule(route.expires_at, key.clone());
        state.routes.insert(key, route);
        let State {
            routes, expiries, ..
        } = &mut *state;
        expiries.shed(|k| routes.contains_key(k));
    }

    /// The earliest expiry of a route held.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        let mut state = self.lock();
        let State {
            routes, expiries, ..
        } = &mut *state;
        expiries.next_live(|k| routes.contains_key(k))
    }

    /// Removes every route expired at `now`, with its dedup entries.
    pub(crate) fn expire(&self, now: MonoTime) {
        let mut state = self.lock();
        while let Some(key) = state.expiries.pop_due(now) {
            if state.routes.get(&key).is_some_and(|r| r.expires_at <= now) {
                state.remove(&key);
            }
        }
    }

    /// Table sizes now.
    pub(crate) fn sizes(&self) -> FollowSizes {
        let state = self.lock();
        FollowSizes {
            routes: state.routes.len(),
            expiries: state.expiries.len(),
            notices: state.notices,
            evictions: state.evictions,
        }
    }

    /// Decides the relay of `op`, which reached this node for an object it
    /// does not own.
    pub(crate) fn check(&self, op: &Operation, now: MonoTime, max_hops: u8) -> FollowCheck {
        let mut state = self.lock();
        let Some(route) = state.routes.get_mut(&op.target) else {
            return FollowCheck::NoRoute;
        };
        if now >= route.expires_at {
            state.remove(&op.target);
            return FollowCheck::NoRoute;
        }
        // Another incarnation: this route is not about the operation's
        // object at all (§2.5: generation mismatch is InvalidOperation).
        let incarnation = route.object_generation;
        if op.object_generation != incarnation || op.fence.object_generation != incarnation {
            return FollowCheck::GenerationMismatch;
        }
        // Same incarnation, another owner tenure than the one this route
        // left: no route serves that stale route.
        if !same_tenure(&op.fence, &route.source) {
            return FollowCheck::NoRoute;
        }
        if op.hop_count >= max_hops {
            return FollowCheck::HopLimit;
        }
        route.relayed_messages += 1;
        route.relayed_bytes += op.payload.len() as u64;
        // Only the first hop's relayer shares the sender's cached route, so
        // only its notice can match (and refresh) the sender's entry.
        let due = op.hop_count == 0;
        let key = DedupKey {
            origin: op.origin,
            source_fence: op.fence,
            destination_fence: route.destination.fence,
        };
        let (source, destination) = (route.source, route.destination);
        let (relayed_messages, relayed_bytes) = (route.relayed_messages, route.relayed_bytes);
        let notify = (due && state.acquire(&op.target, key)).then_some(key);
        FollowCheck::Relay(Box::new(RelayPlan {
            source,
            destination,
            relayed_messages,
            relayed_bytes,
            suppressed: due && notify.is_none(),
            notify,
        }))
    }

    /// Where a live route of `key` sends work that used the source tenure
    /// `route` (a session relay): checked like [`check`](Self::check), with
    /// no notification (the Session owner learns by command 44).
    pub(crate) fn destination(
        &self,
        key: &ObjectKey,
        route: &ActorRoute,
        now: MonoTime,
        max_hops: u8,
        hop_count: u8,
    ) -> Option<RouteEnd> {
        let mut state = self.lock();
        let live = state.routes.get_mut(key).filter(|r| now < r.expires_at)?;
        let source = &live.source;
        let same = route.object_generation == live.object_generation
            && route.authority_owner_generation == source.fence.authority_owner_generation
            && route.owner_lease_generation == source.fence.owner_lease_generation
            && route.owner == source.node;
        if !same || hop_count >= max_hops {
            return None;
        }
        live.relayed_messages += 1;
        Some(live.destination)
    }

    /// The host's report on a notification send.
    pub(crate) fn settle(&self, target: &ObjectKey, key: &DedupKey, sent: bool) {
        if let Some(route) = self.lock().routes.get_mut(target) {
            route.notices.settle(key, sent);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::*;
    use crate::wire::NodeRef;

    fn end(rid: u64, aog: u64) -> RouteEnd {
        RouteEnd {
            node: NodeRef {
                mesh: MeshName::new("m").expect("valid"),
                rid: NodeRid(rid),
                generation: NodeGeneration(1),
            },
            fence: RouteFence {
                object_generation: ObjectGeneration(1),
                authority_owner_generation: AuthorityOwnerGeneration(aog),
                owner_lease_generation: OwnerLeaseGeneration(1),
                node_generation: NodeGeneration(1),
                store_version: StoreVersion(1),
            },
        }
    }

    #[test]
    fn a_million_relocations_keep_only_the_routes_of_one_follow_duration() {
        let routes = FollowRoutes::default();
        let duration = 30_000; // ms, the default Message Follow duration
        let mut most = FollowSizes::default();
        for i in 0..1_000_000u64 {
            // One relocation per ms, each of another object.
            let now = MonoTime(i * 1_000_000);
            let key = ObjectKey::new(ObjectKind::Actor, &format!("a{i}")).expect("valid");
            let expires = MonoTime((i + duration) * 1_000_000);
            routes.install(key, FollowRoute::new(end(1, 1), end(2, 2), expires));
            routes.expire(now);
            let s = routes.sizes();
            most.routes = most.routes.max(s.routes);
            most.expiries = most.expiries.max(s.expiries);
        }
        assert!(most.routes <= 30_001, "{most:?}");
        assert!(most.expiries <= 2 * 30_001 + 64, "{most:?}");
        routes.expire(MonoTime(u64::MAX));
        assert_eq!(routes.sizes().routes, 0);
        assert_eq!(routes.next_deadline(), None);
    }
}
