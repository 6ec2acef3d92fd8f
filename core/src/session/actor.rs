//! The Actor owner's side of bindings (§3.1–§3.3): checking a bind against
//! the §3.1 list, registering binding generations, tombstones on rebind,
//! admitting session relays, pushing to bound Sessions, and the relocation
//! commands a source (42) and target (44) send.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use crate::authority::AuthorityState;
use crate::clock::MonoTime;
use crate::error::InputError;
use crate::ids::{
    BindingGeneration, BindingToken, NodeRid, ObjectKey, OperationId, RelocationId, SessionId,
};
use crate::inbound::Inbound;
use crate::outbound::Outbound;
use crate::runtime::Runtime;
use crate::session::SessionDelivery;
use crate::timer::Deadlines;
use crate::wire::{
    ActorRoute, BindRefusal, BindResult, Binding, Frame, NodeRef, RelayKind, RouteChange,
    SessionFrame, SessionRef, SessionRefusal, encode,
};

/// One Session bound to an Actor here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    /// The Session.
    pub session: SessionRef,
    /// The binding issued.
    pub binding: Binding,
}

/// A rebind's reply, parked until the previous owner ACKs its tombstone
/// (or `session_bind_timeout` passes: then the bind is refused).
#[derive(Debug, Clone)]
struct ParkedReply {
    reply_to: NodeRef,
    frame: SessionFrame,
    /// The previous owner the tombstone went to: only it ACKs.
    tombstoned_at: NodeRid,
    /// The registration the bind made, taken back if it times out.
    actor: ObjectKey,
    registration: Registration,
    deadline: MonoTime,
}

/// Bindings registered on this node, per Actor and Session.
#[derive(Debug, Default)]
pub(crate) struct ActorBindings {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    registrations: HashMap<ObjectKey, HashMap<(NodeRef, SessionId), Registration>>,
    next_generation: u64,
    parked: HashMap<OperationId, ParkedReply>,
    timers: Deadlines<OperationId>,
}

impl State {
    /// Removes the registration of `reg`'s Session to `actor` if it is still
    /// that binding (a newer identity of the same Session stays).
    fn unregister(&mut self, actor: &ObjectKey, reg: &Registration) {
        let slot = (reg.session.owner, reg.session.id);
        if let Some(regs) = self.registrations.get_mut(actor) {
            if regs.get(&slot).is_some_and(|r| r.binding == reg.binding) {
                regs.remove(&slot);
            }
            if regs.is_empty() {
                self.registrations.remove(actor);
            }
        }
    }
}

impl ActorBindings {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops every registration of `actor` here.
    pub(crate) fn forget(&self, actor: &ObjectKey) {
        self.lock().registrations.remove(actor);
    }

    /// Drops every registration of Sessions owned by `node` (its owner
    /// lease ended: those Sessions are gone with it). Returns how many.
    pub(crate) fn forget_sessions_of(&self, node: crate::ids::NodeRid) -> usize {
        let mut state = self.lock();
        let mut removed = 0;
        state.registrations.retain(|_, regs| {
            let before = regs.len();
            regs.retain(|(owner, _), _| owner.rid != node);
            removed += before - regs.len();
            !regs.is_empty()
        });
        removed
    }

    /// The earliest parked-reply deadline.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        self.lock().timers.next()
    }

    /// Refuses every parked rebind whose previous owner did not ACK its
    /// tombstone by `now`: the registration goes and the Session owner gets
    /// a terminal refusal.
    pub(crate) fn expire_parked(&self, now: MonoTime) -> Vec<Outbound> {
        let mut state = self.lock();
        let mut refusals = Vec::new();
        while let Some(operation_id) = state.timers.pop_due(now) {
            let due = state
                .parked
                .get(&operation_id)
                .is_some_and(|p| p.deadline <= now);
            let Some(parked) = due.then(|| state.parked.remove(&operation_id)).flatten() else {
                continue;
            };
            state.unregister(&parked.actor, &parked.registration);
            let session = parked.registration.session;
            let refused = SessionFrame::BindReply {
                operation_id,
                session,
                actor: parked.actor,
                result: BindResult::Refused(BindRefusal::Timeout),
            };
            refusals.push(send(parked.reply_to, refused));
        }
        refusals
    }

    /// Table sizes: registrations, parked replies, deadline entries.
    pub(crate) fn sizes(&self) -> (usize, usize, usize) {
        let state = self.lock();
        let regs = state.registrations.values().map(HashMap::len).sum();
        (regs, state.parked.len(), state.timers.len())
    }
}

fn send(to: NodeRef, frame: SessionFrame) -> Outbound {
    Outbound {
        to,
        bytes: encode(&Frame::Session(frame)),
    }
}

impl Runtime {
    /// This node's verified route to an Actor it owns, as a bind stores it.
    fn own_actor_route(&self, actor: &ObjectKey) -> Option<ActorRoute> {
        let owned = self.owned(actor.as_ref())?;
        if owned.state != AuthorityState::Ready {
            return None;
        }
        let now = self.clock().now();
        Some(ActorRoute {
            owner: self.node_ref(),
            object_generation: owned.object_generation,
            authority_owner_generation: owned.authority_owner_generation,
            owner_lease_generation: owned.lease_generation,
            lease_remaining_ms: owned.admission_deadline.since(now).as_millis() as u64,
        })
    }

    /// The §3.1 checks of a bind (or a relay) against this node's state.
    fn check_route(
        &self,
        actor: &ObjectKey,
        asked: &ActorRoute,
    ) -> Result<ActorRoute, BindRefusal> {
        let mine = self.own_actor_route(actor).ok_or(BindRefusal::NotOwner)?;
        if asked.object_generation != mine.object_generation {
            return Err(BindRefusal::ObjectGeneration);
        }
        if asked.owner != mine.owner {
            return Err(BindRefusal::NodeGeneration);
        }
        if asked.authority_owner_generation != mine.authority_owner_generation {
            return Err(BindRefusal::OwnerGeneration);
        }
        if asked.owner_lease_generation != mine.owner_lease_generation
            || mine.lease_remaining_ms == 0
        {
            return Err(BindRefusal::OwnerLease);
        }
        Ok(mine)
    }

    pub(crate) fn on_bind(
        &self,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        asked: ActorRoute,
        previous: Option<(NodeRef, Binding)>,
    ) -> Inbound {
        let route = match self.check_route(&actor, &asked) {
            Ok(route) => route,
            Err(why) => {
                let refused = SessionFrame::BindReply {
                    operation_id,
                    session,
                    actor,
                    result: BindResult::Refused(why),
                };
                return Inbound::Send(vec![send(session.owner, refused)]);
            }
        };
        let mut state = self.inner().bindings.lock();
        state.next_generation += 1;
        let binding = Binding {
            generation: BindingGeneration(state.next_generation),
            token: BindingToken(self.inner().ids.next()),
        };
        // Registered before the terminal reply (§3.1); a same-owner
        // replacement overwrites the old identity here at once.
        let regs = state.registrations.entry(actor.clone()).or_default();
        regs.insert(
            (session.owner, session.id),
            Registration { session, binding },
        );
        let reply = SessionFrame::BindReply {
            operation_id,
            session,
            actor: actor.clone(),
            result: BindResult::Bound { route, binding },
        };
        match previous {
            // Another owner held the previous binding: tombstone it there,
            // reply only after its ACK (or refuse at the bind timeout).
            Some((old_owner, old)) if old_owner != self.node_ref() => {
                let deadline = self.clock().now().after(self.config().session_bind_timeout);
                state.parked.insert(
                    operation_id,
                    ParkedReply {
                        reply_to: session.owner,
                        frame: reply,
                        tombstoned_at: old_owner.rid,
                        actor: actor.clone(),
                        registration: Registration { session, binding },
                        deadline,
                    },
                );
                let State { parked, timers, .. } = &mut *state;
                timers.schedule(deadline, operation_id);
                timers.shed(|op| parked.contains_key(op));
                let tombstone = SessionFrame::Tombstone {
                    operation_id,
                    session,
                    actor,
                    binding: old,
                    by: self.node_ref(),
                };
                Inbound::Send(vec![send(old_owner, tombstone)])
            }
            _ => Inbound::Send(vec![send(session.owner, reply)]),
        }
    }

    /// The previous owner removes exactly the named binding (never a newer
    /// identity of the same Session) and ACKs.
    pub(crate) fn on_tombstone(
        &self,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        by: NodeRef,
    ) -> Inbound {
        let mut state = self.inner().bindings.lock();
        if let Some(regs) = state.registrations.get_mut(&actor) {
            let slot = (session.owner, session.id);
            if regs.get(&slot).is_some_and(|r| r.binding == binding) {
                regs.remove(&slot);
            }
        }
        let ack = SessionFrame::TombstoneAck {
            operation_id,
            session,
            actor,
            binding,
        };
        Inbound::Send(vec![send(by, ack)])
    }

    pub(crate) fn on_tombstone_ack(&self, from: NodeRid, operation_id: OperationId) -> Inbound {
        let parked = {
            let mut state = self.inner().bindings.lock();
            if let Some(p) = state.parked.get(&operation_id)
                && p.tombstoned_at != from
            {
                let expected = p.tombstoned_at;
                drop(state);
                return self.foreign(from, Some(expected));
            }
            let parked = state.parked.remove(&operation_id);
            let State {
                parked: left,
                timers,
                ..
            } = &mut *state;
            timers.shed(|op| left.contains_key(op));
            parked
        };
        match parked {
            Some(parked) => Inbound::Send(vec![send(parked.reply_to, parked.frame)]),
            None => Inbound::Send(Vec::new()),
        }
    }

    /// A session relay at this node: delivered under a live binding, relayed
    /// on a Message Follow route if the Actor moved, else refused.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_session_relay(
        &self,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        route: ActorRoute,
        sequence: u64,
        hop_count: u8,
        kind: RelayKind,
        payload: Vec<u8>,
    ) -> Inbound {
        let refuse = |reason| {
            Inbound::Send(vec![send(
                session.owner,
                SessionFrame::Refused {
                    operation_id,
                    session,
                    actor: actor.clone(),
                    reason,
                },
            )])
        };
        match self.check_route(&actor, &route) {
            Ok(_) => {}
            Err(BindRefusal::NotOwner) => {
                return match self.follow_destination(&actor, &route, hop_count) {
                    Some(next) => {
                        let forward = SessionFrame::Relay {
                            operation_id,
                            session,
                            actor,
                            binding,
                            route: next,
                            sequence,
                            hop_count: hop_count + 1,
                            relayer: Some(self.node_ref()),
                            kind,
                            payload,
                        };
                        self.counters().follow.relays.incr();
                        Inbound::Send(vec![send(next.owner, forward)])
                    }
                    None => refuse(SessionRefusal::StaleRoute),
                };
            }
            Err(BindRefusal::ObjectGeneration) => return refuse(SessionRefusal::ObjectGeneration),
            // Same incarnation here but another tenure than the binding
            // names: that binding's route is stale.
            Err(_) => return refuse(SessionRefusal::StaleRoute),
        }
        let live = self
            .inner()
            .bindings
            .lock()
            .registrations
            .get(&actor)
            .and_then(|regs| regs.get(&(session.owner, session.id)))
            .is_some_and(|r| r.binding == binding && r.session == session);
        if !live {
            return refuse(SessionRefusal::UnknownBinding);
        }
        if kind != RelayKind::Message {
            // A disconnect ends the binding here.
            let reg = Registration { session, binding };
            self.inner().bindings.lock().unregister(&actor, &reg);
        }
        Inbound::SessionDeliver(SessionDelivery {
            operation_id,
            session,
            actor,
            sequence,
            kind,
            payload,
        })
    }

    /// Where a Message Follow route sends a session relay for `actor`'s
    /// tenure `route`, if one is live (checked like any follow relay).
    fn follow_destination(
        &self,
        actor: &ObjectKey,
        route: &ActorRoute,
        hop_count: u8,
    ) -> Option<ActorRoute> {
        let now = self.clock().now();
        let max_hops = self.inner().resolver.config.max_follow_hops();
        let destination = self
            .inner()
            .follow
            .destination(actor, route, now, max_hops, hop_count)?;
        Some(ActorRoute {
            owner: destination.node,
            object_generation: destination.fence.object_generation,
            authority_owner_generation: destination.fence.authority_owner_generation,
            owner_lease_generation: destination.fence.owner_lease_generation,
            lease_remaining_ms: 0,
        })
    }

    /// Sessions bound to `actor` here (to seal, push to, or hand over).
    pub fn bound_sessions(&self, actor: &ObjectKey) -> Vec<Registration> {
        let state = self.inner().bindings.lock();
        state
            .registrations
            .get(actor)
            .map(|regs| regs.values().copied().collect())
            .unwrap_or_default()
    }

    /// Pushes `payload` from `actor` to the bound Session `session` on the
    /// binding (no lookup). `None` if no such binding is registered here;
    /// an error if the payload is over the message bound.
    pub fn push(
        &self,
        actor: &ObjectKey,
        session: &SessionRef,
        payload: &[u8],
    ) -> Result<Option<Outbound>, InputError> {
        let max = self.inner().resolver.config.max_message_bytes();
        if payload.len() > max {
            return Err(InputError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        Ok(self.push_bound(actor, session, payload))
    }

    fn push_bound(
        &self,
        actor: &ObjectKey,
        session: &SessionRef,
        payload: &[u8],
    ) -> Option<Outbound> {
        let reg = self
            .bound_sessions(actor)
            .into_iter()
            .find(|r| r.session == *session)?;
        let owned = self.owned(actor.as_ref())?;
        let frame = SessionFrame::Push {
            operation_id: OperationId(self.inner().ids.next()),
            session: *session,
            actor: actor.clone(),
            binding: reg.binding,
            object_generation: owned.object_generation,
            payload: payload.to_vec(),
        };
        Some(send(session.owner, frame))
    }

    /// Source coordinator, relocation step 1: command 42 to every Session
    /// bound to `actor`.
    pub fn seal_sessions(&self, actor: &ObjectKey, relocation: RelocationId) -> Vec<Outbound> {
        let Some(owned) = self.owned(actor.as_ref()) else {
            return Vec::new();
        };
        self.bound_sessions(actor)
            .into_iter()
            .map(|reg| {
                let seal = SessionFrame::Seal {
                    session: reg.session,
                    actor: actor.clone(),
                    binding: reg.binding,
                    object_generation: owned.object_generation,
                    relocation,
                    source: self.node_ref(),
                };
                send(reg.session.owner, seal)
            })
            .collect()
    }

    /// The registrations to carry to the relocation target with the Actor's
    /// state (the Session owner keeps its route until command 44).
    pub fn export_bindings(&self, actor: &ObjectKey) -> Vec<Registration> {
        self.bound_sessions(actor)
    }

    /// Target: registers the bindings carried from the source.
    pub fn import_bindings(&self, actor: &ObjectKey, registrations: &[Registration]) {
        let mut state = self.inner().bindings.lock();
        let regs = state.registrations.entry(actor.clone()).or_default();
        for r in registrations {
            regs.insert((r.session.owner, r.session.id), *r);
        }
        let highest = registrations
            .iter()
            .map(|r| r.binding.generation.get())
            .max()
            .unwrap_or(0);
        state.next_generation = state.next_generation.max(highest);
    }

    /// Target, relocation step 7: command 44 commit (one-way) to every
    /// bound Session, carrying this node's new route.
    pub fn commit_session_routes(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        let Some(route) = self.own_actor_route(actor) else {
            return Vec::new();
        };
        self.route_change(
            actor,
            relocation,
            RouteChange::Commit(route),
            route.object_generation,
        )
    }

    /// After renewing its lease, tells every bound Session the lease time it
    /// has now (a command 44 refresh, relocation id 0), so their stored
    /// routes stay usable; nothing else about the route changes.
    pub fn refresh_session_routes(&self, actor: &ObjectKey) -> Vec<Outbound> {
        let Some(route) = self.own_actor_route(actor) else {
            return Vec::new();
        };
        self.route_change(
            actor,
            RelocationId(0),
            RouteChange::Refresh(route),
            route.object_generation,
        )
    }

    /// Source, failure before relay-ready: command 44 abort to every bound
    /// Session, so held messages go to this (source) route again.
    pub fn abort_session_routes(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        let Some(owned) = self.owned(actor.as_ref()) else {
            return Vec::new();
        };
        self.route_change(
            actor,
            relocation,
            RouteChange::Abort,
            owned.object_generation,
        )
    }

    fn route_change(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
        change: RouteChange,
        object_generation: crate::ids::ObjectGeneration,
    ) -> Vec<Outbound> {
        self.bound_sessions(actor)
            .into_iter()
            .map(|reg| {
                let frame = SessionFrame::Route {
                    session: reg.session,
                    actor: actor.clone(),
                    binding: reg.binding,
                    object_generation,
                    relocation,
                    change,
                };
                send(reg.session.owner, frame)
            })
            .collect()
    }

    /// Drops every binding of `actor` here (the Actor was removed: a new
    /// incarnation never inherits a binding).
    pub fn forget_bindings(&self, actor: &ObjectKey) {
        self.inner().bindings.forget(actor);
    }
}
