//! Faults beyond a lossy link, for the seeded simulation (`zlink sim`) and
//! tests: a store that fails or stalls, a process that crashes and comes
//! back as a new lifecycle generation, a link that delivers a frame twice.
//! Also what the ledger needs to tell a loss the harness caused from one the
//! runtimes caused: which operations a lost frame carried.

use super::*;
use crate::ids::{NodeGeneration, OperationId};
use std::collections::BTreeMap;

use crate::wire::{DecodeLimits, Frame, RouteEnd, SessionFrame, decode};

impl Mesh {
    /// The store as the runtimes reach it: while down every call fails at
    /// once (`Unreachable`). The harness's own reads are unaffected.
    pub fn store_down(&self, down: bool) {
        self.faulty.set_down(down);
    }

    /// While stalled, store calls reach the store (writes apply) but their
    /// answers are held back, so each runtime call ends at its
    /// `store_timeout`: the "applied, answer lost" case.
    pub fn store_stalled(&self, stalled: bool) {
        self.faulty.set_stalled(stalled);
    }

    /// The store reports a new epoch from now on (a restarted or failed-over
    /// server): each runtime sees a recovery event at its next store call.
    pub fn store_restart(&self) {
        self.faulty.restart();
    }

    /// The store's replica stops acknowledging writes: each write applies
    /// on the primary and answers `NotReplicated` (outcome unknown), until
    /// [`store_replica_back`](Self::store_replica_back) or
    /// [`store_fail_over`](Self::store_fail_over).
    pub fn store_replica_away(&mut self) {
        self.store_replica_behind(true);
    }

    /// The store's replica falls behind: writes from now on are lost if
    /// the store fails over before it is back. `durable` (writes wait for
    /// the replica, `WriteAcks::AllReplicas`): each answers `NotReplicated`.
    /// Not durable (`PrimaryOnly`): each is acknowledged as done, and a
    /// failover loses acknowledged writes.
    pub fn store_replica_behind(&mut self, durable: bool) {
        if self.replica.is_none() {
            self.replica = Some(self.store.replica());
        }
        self.faulty.set_unreplicated(durable);
    }

    /// The replica catches up: nothing is lost.
    pub fn store_replica_back(&mut self) {
        self.replica = None;
        self.faulty.set_unreplicated(false);
    }

    /// The primary dies and the replica is promoted: every write since
    /// the replica went away is lost (none of them was acknowledged), and
    /// the store reports a new epoch.
    pub fn store_fail_over(&mut self) {
        if let Some(replica) = self.replica.take() {
            self.store.promote(replica);
        }
        self.faulty.set_unreplicated(false);
        self.faulty.restart();
    }

    /// Calls the runtimes made to the store (failed ones included).
    pub fn store_calls(&self) -> u64 {
        self.faulty.calls()
    }

    /// Sends a second copy of every envelope `rule` says yes to (a link
    /// that duplicates). Both copies meet the drop and delay rules.
    pub fn duplicate_when(&mut self, rule: Option<Rule>) {
        self.duplicate_rule = rule;
    }

    /// Whether node `rid`'s process is dead (killed, not restarted).
    pub fn is_dead(&self, rid: u64) -> bool {
        self.dead.contains(&NodeRid(rid))
    }

    /// The identity node `rid` runs under now (its generation grows with
    /// every restart).
    pub fn node_identity(&self, rid: u64) -> NodeIdentity {
        self.identities[(rid - 1) as usize]
    }

    /// Node `rid` comes back as a new process: a fresh runtime (nothing
    /// owned, no cache, no sessions) under the next node generation and a
    /// new owner lease generation. Its connections were reset, so every
    /// frame in flight from or to it is lost. Returns the old identity, whose
    /// lease the other nodes may be told has ended.
    pub fn restart(&mut self, rid: u64) -> Result<NodeIdentity, crate::runtime::BuildError> {
        let at = NodeRid(rid);
        self.cut(at);
        let old = self.identities[(rid - 1) as usize];
        let generation = NodeGeneration(old.generation.0 + 1);
        // Lease generations stay unique across nodes and restarts.
        let lease = OwnerLeaseGeneration(generation.0 * 1_000 + rid);
        let new = NodeIdentity {
            generation,
            lease,
            ..old
        };
        let node = Self::build_node(new, &self.config, &self.clock, &self.faulty)?;
        self.nodes[(rid - 1) as usize] = node;
        self.identities[(rid - 1) as usize] = new;
        self.dead.retain(|d| *d != at);
        Ok(old)
    }

    /// Every frame in flight (or held back) from or to `rid` is lost: its
    /// connections closed.
    pub fn cut(&mut self, rid: NodeRid) {
        let touches = |e: &Envelope| e.from == rid || e.to == rid;
        let lost: Vec<Envelope> = self
            .network
            .iter()
            .chain(&self.delayed)
            .filter(|e| touches(e))
            .cloned()
            .collect();
        self.network.retain(|e| !touches(e));
        self.delayed.retain(|e| !touches(e));
        lost.iter().for_each(|e| self.lose(e));
    }

    /// Interleaves the frames in flight anew while each link keeps its
    /// order (a transport with independent connections: what one link
    /// carries never overtakes itself). `pick(n)` chooses one of `n` links
    /// with frames left, in the order of their (from, to) pairs.
    pub fn interleave(&mut self, mut pick: impl FnMut(usize) -> usize) {
        let mut links: BTreeMap<(NodeRid, NodeRid), VecDeque<Envelope>> = BTreeMap::new();
        for e in self.network.drain(..) {
            links.entry((e.from, e.to)).or_default().push_back(e);
        }
        while !links.is_empty() {
            let i = pick(links.len()).min(links.len() - 1);
            let key = *links.keys().nth(i).expect("i is below the number of links");
            let queue = links.get_mut(&key).expect("the key was just listed");
            if let Some(e) = queue.pop_front() {
                self.network.push_back(e);
            }
            if queue.is_empty() {
                links.remove(&key);
            }
        }
    }

    /// The config every node runs, and that a restarted node starts with.
    pub fn set_config(&mut self, config: RoutingConfig) -> Result<(), crate::error::ConfigError> {
        for (i, node) in self.nodes.iter().enumerate() {
            if !self.dead.contains(&NodeRid(i as u64 + 1)) {
                node.update_config(config.clone())?;
            }
        }
        self.config = config;
        Ok(())
    }

    /// Counts a frame the harness lost, and remembers the operations it
    /// carried: their fate is the harness's doing, not the runtimes'.
    pub(super) fn lose(&mut self, envelope: &Envelope) {
        if let Some(d) = &mut self.diagram {
            d.frame(envelope.from, envelope.to, &envelope.bytes, true);
        }
        self.ledger.dropped.push(envelope.carried);
        self.ledger
            .lost_with_frames
            .extend(operations_in(&envelope.bytes));
    }

    /// Whether the store, read now, names node `at` in its current
    /// generation as `target`'s owner under a lease that has not expired:
    /// the only node that may run an operation on it.
    pub(super) fn store_names_owner(&self, at: NodeRid, target: KeyRef<'_>) -> bool {
        let me = self.identities[(at.get() - 1) as usize];
        let Ok(observed) = moves::store_answer(self.store.read(target)) else {
            return false;
        };
        observed.value.is_some_and(|r| {
            r.owner.route.node == at
                && r.owner.node_generation == me.generation
                && r.owner.lease.expires_at.0 > observed.store_time.0
        })
    }
}

pub(super) fn limits() -> DecodeLimits {
    DecodeLimits {
        max_object_id_bytes: crate::ids::MAX_OBJECT_ID_BYTES,
        max_payload_bytes: crate::config::MAX_MESSAGE_BYTES,
        max_state_bytes: crate::config::MAX_MESSAGE_BYTES,
    }
}

/// A command 50 frame's object and relaying source, as reaching `at`.
pub(super) fn notice_in(at: NodeRid, bytes: &[u8]) -> Option<(NodeRid, ObjectKey, RouteEnd)> {
    match decode(bytes, &limits()) {
        Ok(Frame::MessageFollow(f)) => Some((at, f.target, f.source)),
        _ => None,
    }
}

/// The operations a frame carries (an operation, its reply or rejection, a
/// session relay), found by decoding it; none for control frames.
pub fn operations_in(bytes: &[u8]) -> Vec<OperationId> {
    match decode(bytes, &limits()) {
        Ok(Frame::Message(op) | Frame::Request(op)) => vec![op.operation_id],
        Ok(Frame::Reply(r)) => vec![r.operation_id],
        Ok(Frame::Rejection(r)) => vec![r.operation_id],
        Ok(Frame::Session(
            SessionFrame::Relay { operation_id, .. } | SessionFrame::Refused { operation_id, .. },
        )) => vec![operation_id],
        _ => Vec::new(),
    }
}
