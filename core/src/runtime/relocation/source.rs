//! The source's side of a relocation after `begin_relocation`: relay-ready
//! accepted (relay span, cutover), the commit notice (Message Follow), and
//! the ways it ends early (unseal before relay-ready, no commit after).

use super::*;

impl Runtime {
    /// Source, §3.3 step 3: the target is relay-ready. The ingress hold is
    /// relayed in order, then the cutover; the object no longer runs here.
    /// A relay-ready this source cannot accept (it gave the move up) is
    /// answered with an Abort, so the target never commits it.
    pub(super) fn on_relay_ready(
        &self,
        identity: RelocationIdentity,
        target: NodeRef,
        destination: RouteFence,
    ) -> RelocationAction {
        let key = identity.key.clone();
        let h = self.inner().handoffs.lock();
        let link = h
            .source(&key)
            .filter(|l| l.target().rid == target.rid && l.aborting().is_none())
            .cloned();
        let current = h.identity(&key).as_ref() == Some(&identity);
        drop(h);
        let Some(link) = link.filter(|_| current) else {
            let abort = RelocationFrame::Abort {
                identity: identity.clone(),
                by: self.node_ref(),
                reason: AbortReason::Timeout,
            };
            let mut action = self.ignored(identity, Refusal::NotRelocating);
            action.send.push(self.frame_to(target, abort));
            return action;
        };
        let Some((mut send, relayed)) = self.pass_relay_ready(&key, &identity, link, destination)
        else {
            return self.ignored(identity, Refusal::AlreadyRelayReady);
        };
        let cutover = RelocationFrame::Cutover {
            identity: identity.clone(),
            source: self.node_ref(),
            relayed,
        };
        send.push(self.frame_to(target, cutover));
        RelocationAction {
            event: RelocationEvent::Cutover { identity, relayed },
            deliver: Vec::new(),
            session: Vec::new(),
            send,
        }
    }

    /// The point of no return: the held operations and session relays go
    /// to the target in arrival order, and this node stops owning the
    /// object. `None` if relay-ready was already passed.
    fn pass_relay_ready(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        link: SourceLink,
        destination: RouteFence,
    ) -> Option<(Vec<Outbound>, u64)> {
        let mut h = self.inner().handoffs.lock();
        let SourceStep::Relay(held) = h.queues.source_relay_ready(identity) else {
            return None;
        };
        let _ = h.queues.source_cutover(identity);
        // The target may retry its CAS until 1,000 ms plus one timeout past
        // its relay-ready: wait longer than that for its commit notice.
        let timeout = self.config_now().relocation_timeout;
        let deadline = self
            .now()
            .after(COMMIT_AFTER_RELAY_READY + timeout + timeout);
        h.source_relaying(key, destination, deadline);
        let relays = h.take_relays(key);
        drop(h);
        // This node never runs the object again.
        self.ownership().remove(key.as_ref());
        self.inner().bindings.forget(key);
        let link = link.relaying(destination);
        let relayed = held.len() as u64;
        self.counters().relocation.relayed.add(relayed);
        let mut send: Vec<Outbound> = held
            .into_iter()
            .map(|op| self.relay_to(op, &link))
            .collect();
        send.extend(self.forward_relays(&link, relays));
        Some((send, relayed))
    }

    /// Source, after relay-ready: the move ended without a commit here
    /// (the target's CAS was refused, or no commit came in time). The
    /// object runs on neither side; no Message Follow route is installed.
    pub(super) fn end_source(
        &self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
        reason: AbortReason,
    ) -> RelocationAction {
        let mut h = self.inner().handoffs.lock();
        if let SourceStep::Refused(r) = h.queues.source_finish(identity) {
            drop(h);
            return self.ignored(identity.clone(), r.reason);
        }
        let ended = h.unlink_ended(key);
        drop(h);
        self.ended(ended);
        self.counters().relocation.failed.incr();
        tracing::warn!(object = %key, relocation = %identity.relocation, ?reason, "relocation failed after relay-ready");
        RelocationAction::event(RelocationEvent::Failed {
            identity: identity.clone(),
            reason,
        })
    }

    /// Source, §3.3 step 8: the target committed. The source's route to
    /// the object is dropped from the cache (a larger StoreVersion, §2.2)
    /// and a Message Follow route carries what still arrives here.
    pub(super) fn on_committed(
        &self,
        identity: RelocationIdentity,
        target: NodeRef,
        destination: RouteFence,
    ) -> RelocationAction {
        let key = identity.key.clone();
        let mut h = self.inner().handoffs.lock();
        let link = h
            .source(&key)
            .filter(|l| l.target().rid == target.rid)
            .cloned();
        let valid = link.as_ref().is_some_and(|l| {
            destination.object_generation == l.tenure().object_generation
                && destination.authority_owner_generation > l.tenure().authority_owner_generation
        });
        let (Some(link), true) = (link, valid) else {
            drop(h);
            return self.ignored(identity, Refusal::NotRelocating);
        };
        // Still sealed: the target committed on its own timer (our cutover
        // or our abort was late). The held work follows it first.
        let mut send = Vec::new();
        if h.source_phase(&key) == Some(SourcePhase::Sealed) {
            drop(h);
            let passed = self.pass_relay_ready(&key, &identity, link.clone(), destination);
            send = passed.map(|(frames, _)| frames).unwrap_or_default();
            h = self.inner().handoffs.lock();
        }
        if let SourceStep::Refused(r) = h.queues.source_finish(&identity) {
            drop(h);
            return self.ignored(identity, r.reason);
        }
        let ended = h.unlink_ended(&key);
        drop(h);
        self.ended(ended);
        self.inner()
            .resolver
            .confirmed_version(key.as_ref(), destination.store_version);
        let duration = self.config_now().message_follow_duration;
        if !duration.is_zero() {
            let source = RouteEnd {
                node: self.node_ref(),
                fence: link.tenure(),
            };
            let destination = RouteEnd {
                node: target,
                fence: destination,
            };
            let route = FollowRoute::new(source, destination, self.now().after(duration));
            self.inner().follow.install(key.clone(), route);
        }
        self.counters().relocation.handed_off.incr();
        tracing::info!(object = %key, relocation = %identity.relocation, target = %target.rid, "relocation handed off");
        let mut action = RelocationAction::event(RelocationEvent::HandedOff { identity, target });
        action.send = send;
        action
    }
}
