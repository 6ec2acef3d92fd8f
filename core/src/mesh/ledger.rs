//! The mesh's ledger: what happened to every operation, and the checks a
//! test runs on it (nothing lost, nothing run twice, each ended once, order
//! kept per link).

use std::collections::{BTreeMap, BTreeSet};

use super::Carried;
use crate::ids::{NodeRid, ObjectKey, OperationId, SessionId};
use crate::inbound::Failure;
use crate::relocation::RelocationEvent;
use crate::session::SessionEvent;
use crate::wire::RouteEnd;

/// Every operation's fate.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    /// Operation → (origin, send sequence).
    pub sent: BTreeMap<OperationId, (NodeRid, u64)>,
    /// Deliveries in arrival order: (operation, node, hops taken).
    pub delivered: Vec<(OperationId, NodeRid, u8)>,
    /// Operations that ended without delivery.
    pub ended: Vec<(OperationId, Failure)>,
    /// Frames the network dropped, by kind.
    pub dropped: Vec<Carried>,
    /// Requests' terminal results, in order: (operation, outcome kind).
    pub completed: Vec<(OperationId, &'static str)>,
    /// Results that arrived after a request had ended (dropped).
    pub late: u64,
    /// Session relays delivered to Actors, in arrival order:
    /// (session, actor id, sequence, node).
    pub session_delivered: Vec<(SessionId, String, u64, NodeRid)>,
    /// Session-side events (bound, refused, pushed, sealed, ignored …).
    pub session_events: Vec<SessionEvent>,
    /// Command 50 notifications applied at senders, and how many matched.
    pub notices_applied: u64,
    /// Notifications that invalidated a cached route.
    pub notices_effective: u64,
    /// Operations held for a relocation when they arrived.
    pub held: u64,
    /// Ownerships a store recovery event ended, by node.
    pub ownerships_lost: Vec<(NodeRid, crate::reconfirm::OwnershipLost)>,
    /// Deliveries by a node that did not own the object at that moment
    /// (must be 0: never two owners).
    pub two_owner_deliveries: u64,
    /// Relocation events, in order, with the node they happened on.
    pub relocation_events: Vec<(NodeRid, RelocationEvent)>,
    /// Deliveries (direct and session) by a node the store did not name as
    /// the object's live owner at that moment (must be empty).
    pub unauthorized_deliveries: Vec<(OperationId, NodeRid)>,
    /// Operations a frame the harness lost carried (dropped by a rule, or
    /// to or from a dead node): excused from "nothing silently lost".
    pub lost_with_frames: BTreeSet<OperationId>,
    /// Frames a duplicating link sent twice.
    pub duplicated_frames: u64,
    /// Session relays delivered, by operation.
    pub session_delivered_ops: BTreeSet<OperationId>,
    /// Nodes each operation's frames reached (it may sit in their queues).
    pub custody: BTreeMap<OperationId, BTreeSet<NodeRid>>,
    /// Command 50 notifications carried, in order: (the node it reached,
    /// the object, the relaying source's route end). After it, that node
    /// must never serve a cached route to that source tenure again.
    pub notices: Vec<(NodeRid, ObjectKey, RouteEnd)>,
    /// Operations still unresolved when a process that started or held
    /// them died: they ended with it, and nobody is left to report them.
    pub lost_with_process: BTreeSet<OperationId>,
}

impl Ledger {
    /// Node `rid`'s process died: whatever it started or held and was not
    /// resolved yet is gone with it.
    pub fn process_died(&mut self, rid: NodeRid) {
        let gone: Vec<OperationId> = self
            .unresolved()
            .into_iter()
            .filter(|op| {
                self.sent.get(op).is_some_and(|(origin, _)| *origin == rid)
                    || self.custody.get(op).is_some_and(|at| at.contains(&rid))
            })
            .collect();
        self.lost_with_process.extend(gone);
        // Session relays (not in `sent`) it held and had not delivered.
        let relays: Vec<OperationId> = self
            .custody
            .iter()
            .filter(|(op, at)| {
                at.contains(&rid)
                    && !self.sent.contains_key(op)
                    && !self.session_delivered_ops.contains(op)
            })
            .map(|(op, _)| *op)
            .collect();
        self.lost_with_process.extend(relays);
    }

    /// Operations delivered more than once (must be empty).
    pub fn duplicated(&self) -> Vec<OperationId> {
        let mut seen = BTreeMap::new();
        for (op, _, _) in &self.delivered {
            *seen.entry(*op).or_insert(0u32) += 1;
        }
        seen.into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(op, _)| op)
            .collect()
    }

    /// Operations with neither a delivery nor an end (must be empty once the
    /// network is drained, unless the harness dropped their frames).
    pub fn unresolved(&self) -> Vec<OperationId> {
        self.sent
            .keys()
            .filter(|op| {
                let delivered = self.delivered.iter().any(|(d, _, _)| d == *op);
                let ended = self.ended.iter().any(|(e, _)| e == *op);
                // A request that ended without a reply (timeout, route error)
                // is resolved too: its sender has its terminal result.
                let completed = self
                    .completed
                    .iter()
                    .any(|(c, kind)| c == *op && *kind != "Reply");
                !delivered && !ended && !completed
            })
            .copied()
            .collect()
    }

    /// Requests with more than one terminal result (must be empty).
    pub fn double_completions(&self) -> Vec<OperationId> {
        let mut seen = BTreeMap::new();
        for (op, _) in &self.completed {
            *seen.entry(*op).or_insert(0u32) += 1;
        }
        seen.into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(op, _)| op)
            .collect()
    }

    /// Operations that both were delivered and ended (must be empty: one
    /// terminal result each).
    pub fn delivered_and_ended(&self) -> Vec<OperationId> {
        self.ended
            .iter()
            .filter(|(op, _)| self.delivered.iter().any(|(d, _, _)| d == op))
            .map(|(op, _)| *op)
            .collect()
    }

    /// Pairs of one sender's operations that took the same number of hops
    /// (so the same links, each in order) but arrived out of send order.
    pub fn order_violations(&self) -> Vec<(OperationId, OperationId)> {
        let mut last: BTreeMap<(NodeRid, u8), (u64, OperationId)> = BTreeMap::new();
        let mut bad = Vec::new();
        for (op, _, hops) in &self.delivered {
            let Some(&(origin, seq)) = self.sent.get(op) else {
                continue;
            };
            if let Some(&(prev_seq, prev)) = last.get(&(origin, *hops))
                && prev_seq > seq
            {
                bad.push((prev, *op));
            }
            last.insert((origin, *hops), (seq, *op));
        }
        bad
    }

    /// Deliveries that took at least one Message Follow hop.
    pub fn detours(&self) -> usize {
        self.delivered
            .iter()
            .filter(|(_, _, hops)| *hops > 0)
            .count()
    }
}
