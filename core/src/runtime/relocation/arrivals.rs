//! What arrives for an object while it relocates: operations and session
//! relays are held, relayed or refused before admission, never run by a
//! node that is not the object's owner.

use super::*;

impl Runtime {
    /// An operation for an object relocating here or from here, before
    /// admission: held, relayed or refused; `Err` gives it back to normal
    /// admission. One relaxed load when no relocation runs.
    // The operation is handed back by move, once: boxing it would cost an
    // allocation per inbound operation while no relocation runs.
    #[allow(clippy::result_large_err)]
    pub(crate) fn relocating_operation(&self, op: Operation) -> Result<Inbound, Operation> {
        let handoffs = &self.inner().handoffs;
        if !handoffs.active() {
            return Err(op);
        }
        let mut h = handoffs.lock();
        let op = match h.queues.source_arrival(op) {
            SourceStep::NotRelocating(op) => op,
            SourceStep::Held => {
                self.counters().relocation.held.incr();
                return Ok(Inbound::Held);
            }
            SourceStep::Relay(mut ops) => {
                let link = h.source(&ops[0].target).cloned();
                drop(h);
                let (Some(link), Some(op)) = (link, ops.pop()) else {
                    return Ok(Inbound::Held);
                };
                self.counters().relocation.relayed.incr();
                return Ok(Inbound::Relay {
                    forward: self.relay_to(op, &link),
                    notice: None,
                });
            }
            SourceStep::Refused(r) => return Ok(self.refuse_held(r.returned)),
            _ => return Ok(Inbound::Held),
        };
        match h.queues.target_arrival(op) {
            TargetStep::NotRelocating(op) => Err(op),
            TargetStep::Queued => {
                self.counters().relocation.held.incr();
                Ok(Inbound::Held)
            }
            TargetStep::Refused(r) => Ok(self.refuse_held(r.returned)),
            // The switch removes the registration: arrivals after it never
            // reach the queue.
            _ => Ok(Inbound::Held),
        }
    }

    /// An operation of another incarnation met a relocation: it ends
    /// InvalidOperation (§2.5), never retargeted.
    pub(super) fn refuse_held(&self, returned: Vec<Operation>) -> Inbound {
        match returned.into_iter().next() {
            Some(op) => self.reject(&op, RejectionCode::InvalidOperation),
            None => Inbound::Held,
        }
    }

    /// The operation as the source relays it to the target: identity,
    /// origin, payload and reply route kept; the fence is the tenure the
    /// target will hold, so it passes admission there after the switch.
    pub(super) fn relay_to(&self, op: Operation, link: &SourceLink) -> Outbound {
        let fence = link.destination().unwrap_or(link.tenure());
        op.relayed_to(link.target(), fence, self.node_ref())
    }

    /// A session relay for an Actor relocating here or from here: held
    /// while the source is sealed or the target has not switched, carried
    /// to the target once the source is relaying; `Err` gives it back.
    #[allow(clippy::result_large_err)] // handed back by move, as above
    pub(crate) fn relocating_relay(&self, relay: RelayIn) -> Result<Inbound, RelayIn> {
        let handoffs = &self.inner().handoffs;
        if !handoffs.active() {
            return Err(relay);
        }
        let mut h = handoffs.lock();
        let key = relay.actor.clone();
        match (h.source_phase(&key), h.target_phase(&key)) {
            (Some(SourcePhase::Sealed), _) | (None, Some(_)) => {
                h.hold_relay(relay);
                drop(h);
                self.counters().relocation.held.incr();
                Ok(Inbound::Held)
            }
            (Some(_), _) => {
                let Some(link) = h.source(&key).cloned() else {
                    return Err(relay);
                };
                drop(h);
                Ok(Inbound::Send(self.forward_relays(&link, vec![relay])))
            }
            _ => Err(relay),
        }
    }

    /// Session relays the source carries to the target, on the tenure the
    /// target will hold (as a Message Follow relay would).
    pub(super) fn forward_relays(&self, link: &SourceLink, relays: Vec<RelayIn>) -> Vec<Outbound> {
        let fence = link.destination().unwrap_or(link.tenure());
        let route = ActorRoute {
            owner: link.target(),
            object_generation: fence.object_generation,
            authority_owner_generation: fence.authority_owner_generation,
            owner_lease_generation: fence.owner_lease_generation,
            lease_remaining_ms: 0,
        };
        let ctx = self.ctx();
        let bindings = &self.inner().bindings;
        let max_hops = self.inner().config.max_follow_hops();
        // Within the follow chain's bound, like any Message Follow relay.
        let next = |_: &ActorRoute, hops: u8| (hops < max_hops).then_some(route);
        relays
            .into_iter()
            .flat_map(|r| match bindings.on_relay(&ctx, None, next, r) {
                SessionStep::Send(frames) => frames,
                _ => Vec::new(),
            })
            .collect()
    }

    /// The session relays held for `key`, settled by this node holding the
    /// Actor as `owned`: delivered under a live binding, else refused to
    /// their Session owner (nothing is silently dropped).
    pub(super) fn settle_relays(
        &self,
        key: &ObjectKey,
        owned: Option<OwnedObject>,
    ) -> (Vec<SessionDelivery>, Vec<Outbound>) {
        let relays = self.inner().handoffs.lock().take_relays(key);
        let ctx = self.ctx();
        let (mut delivered, mut send) = (Vec::new(), Vec::new());
        for r in relays {
            match self.inner().bindings.on_relay(&ctx, owned, |_, _| None, r) {
                SessionStep::Deliver(d) => delivered.push(d),
                SessionStep::Send(frames) => send.extend(frames),
                _ => {}
            }
        }
        (delivered, send)
    }
}
