//! The Actor owner's side of bindings (§3.1–§3.3): checking a bind against
//! the §3.1 list, registering binding generations, tombstones on rebind,
//! admitting session relays, pushing to bound Sessions, and the relocation
//! commands a source (42) and target (44) send.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use crate::authority::AuthorityState;
use crate::clock::MonoTime;
use crate::ids::{
    BindingGeneration, BindingToken, NodeRid, ObjectGeneration, ObjectKey, OperationId,
    RelocationId, SessionId,
};
use crate::ownership::OwnedObject;
use crate::send::Outbound;
use crate::timer::Deadlines;
use crate::wire::{
    ActorRoute, BindRefusal, BindResult, Binding, NodeRef, Registration, RelayKind, RouteChange,
    SessionFrame, SessionRef, SessionRefusal,
};

use super::{Ctx, SessionDelivery, SessionStep, out};

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
        let mut state = self.lock();
        let State { parked, timers, .. } = &mut *state;
        timers.next_live(|op| parked.contains_key(op))
    }

    /// Refuses every parked rebind whose previous owner did not ACK its
    /// tombstone by `now`: the registration goes and the Session owner gets
    /// a terminal refusal.
    pub(crate) fn expire_parked(&self, me: NodeRef, now: MonoTime) -> Vec<Outbound> {
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
            refusals.push(out(me, parked.reply_to, refused));
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

/// This node's verified route to an Actor it owns (Ready), as a bind
/// stores it.
pub(crate) fn own_route(ctx: &Ctx<'_>, owned: Option<OwnedObject>) -> Option<ActorRoute> {
    let owned = owned.filter(|o| o.state == AuthorityState::Ready)?;
    Some(ActorRoute {
        owner: ctx.me,
        object_generation: owned.object_generation,
        authority_owner_generation: owned.authority_owner_generation,
        owner_lease_generation: owned.lease_generation,
        lease_remaining_ms: owned.admission_deadline.since(ctx.now).as_millis() as u64,
    })
}

/// The §3.1 checks of a bind (or a relay) against what this node owns.
fn check_route(
    ctx: &Ctx<'_>,
    owned: Option<OwnedObject>,
    asked: &ActorRoute,
) -> Result<ActorRoute, BindRefusal> {
    let mine = own_route(ctx, owned).ok_or(BindRefusal::NotOwner)?;
    if asked.object_generation != mine.object_generation {
        return Err(BindRefusal::ObjectGeneration);
    }
    if asked.owner != mine.owner {
        return Err(BindRefusal::NodeGeneration);
    }
    if asked.authority_owner_generation != mine.authority_owner_generation {
        return Err(BindRefusal::OwnerGeneration);
    }
    if asked.owner_lease_generation != mine.owner_lease_generation || mine.lease_remaining_ms == 0 {
        return Err(BindRefusal::OwnerLease);
    }
    Ok(mine)
}

/// A session relay as it reached this node.
#[derive(Debug)]
pub(crate) struct RelayIn {
    pub(crate) operation_id: OperationId,
    pub(crate) session: SessionRef,
    pub(crate) actor: ObjectKey,
    pub(crate) binding: Binding,
    pub(crate) route: ActorRoute,
    pub(crate) sequence: u64,
    pub(crate) hop_count: u8,
    pub(crate) kind: RelayKind,
    pub(crate) payload: Vec<u8>,
}

impl ActorBindings {
    /// A bind (command 10) for `actor`, which this node holds as `owned`:
    /// checked against §3.1, registered, answered (after the previous
    /// owner's tombstone ACK on a rebind from another owner).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_bind(
        &self,
        ctx: &Ctx<'_>,
        owned: Option<OwnedObject>,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        asked: ActorRoute,
        previous: Option<(NodeRef, Binding)>,
    ) -> SessionStep {
        let route = match check_route(ctx, owned, &asked) {
            Ok(route) => route,
            Err(why) => {
                let refused = SessionFrame::BindReply {
                    operation_id,
                    session,
                    actor,
                    result: BindResult::Refused(why),
                };
                return SessionStep::Send(vec![out(ctx.me, session.owner, refused)]);
            }
        };
        let mut state = self.lock();
        state.next_generation += 1;
        let binding = Binding {
            generation: BindingGeneration(state.next_generation),
            token: BindingToken(ctx.ids.next()),
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
            Some((old_owner, old)) if old_owner != ctx.me => {
                let deadline = ctx.now.after(ctx.config.session_bind_timeout);
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
                    by: ctx.me,
                };
                SessionStep::Send(vec![out(ctx.me, old_owner, tombstone)])
            }
            _ => SessionStep::Send(vec![out(ctx.me, session.owner, reply)]),
        }
    }

    /// The previous owner removes exactly the named binding (never a newer
    /// identity of the same Session) and ACKs to `by`.
    pub(crate) fn on_tombstone(
        &self,
        me: NodeRef,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        by: NodeRef,
    ) -> SessionStep {
        self.lock()
            .unregister(&actor, &Registration { session, binding });
        let ack = SessionFrame::TombstoneAck {
            operation_id,
            session,
            actor,
            binding,
        };
        SessionStep::Send(vec![out(me, by, ack)])
    }

    /// The ACK that releases a parked bind reply; only the node the
    /// tombstone went to ACKs.
    pub(crate) fn on_tombstone_ack(
        &self,
        me: NodeRef,
        from: NodeRid,
        operation_id: OperationId,
    ) -> SessionStep {
        let mut state = self.lock();
        if let Some(p) = state.parked.get(&operation_id)
            && p.tombstoned_at != from
        {
            return SessionStep::Foreign(Some(p.tombstoned_at));
        }
        let parked = state.parked.remove(&operation_id);
        let State {
            parked: left,
            timers,
            ..
        } = &mut *state;
        timers.shed(|op| left.contains_key(op));
        match parked {
            Some(parked) => SessionStep::Send(vec![out(me, parked.reply_to, parked.frame)]),
            None => SessionStep::Send(Vec::new()),
        }
    }

    /// A session relay at this node, which holds its Actor as `owned`:
    /// delivered under a live binding, relayed on the Message Follow route
    /// `follow` finds (the next tenure) if the Actor moved, else refused.
    pub(crate) fn on_relay(
        &self,
        ctx: &Ctx<'_>,
        owned: Option<OwnedObject>,
        follow: impl FnOnce(&ActorRoute, u8) -> Option<ActorRoute>,
        r: RelayIn,
    ) -> SessionStep {
        let refuse = |reason| {
            SessionStep::Send(vec![out(
                ctx.me,
                r.session.owner,
                SessionFrame::Refused {
                    operation_id: r.operation_id,
                    session: r.session,
                    actor: r.actor.clone(),
                    reason,
                },
            )])
        };
        match check_route(ctx, owned, &r.route) {
            Ok(_) => {}
            Err(BindRefusal::NotOwner) => {
                return match follow(&r.route, r.hop_count) {
                    Some(next) => {
                        let forward = SessionFrame::Relay {
                            operation_id: r.operation_id,
                            session: r.session,
                            actor: r.actor,
                            binding: r.binding,
                            route: next,
                            sequence: r.sequence,
                            hop_count: r.hop_count.saturating_add(1),
                            relayer: Some(ctx.me),
                            kind: r.kind,
                            payload: r.payload,
                        };
                        ctx.counters.follow.relays.incr();
                        SessionStep::Send(vec![out(ctx.me, next.owner, forward)])
                    }
                    None => refuse(SessionRefusal::StaleRoute),
                };
            }
            Err(BindRefusal::ObjectGeneration) => return refuse(SessionRefusal::ObjectGeneration),
            // A disconnect ends the binding it names on this node's own
            // later tenure too (a relocation it gave up re-took its
            // authority), within that tenure's lease: the registration must
            // not outlive the Session.
            Err(BindRefusal::OwnerGeneration)
                if r.kind != RelayKind::Message
                    && own_route(ctx, owned).is_some_and(|mine| {
                        mine.lease_remaining_ms > 0
                            && mine.authority_owner_generation > r.route.authority_owner_generation
                    }) => {}
            // Same incarnation here but another tenure than the binding
            // names: that binding's route is stale.
            Err(_) => return refuse(SessionRefusal::StaleRoute),
        }
        let reg = Registration {
            session: r.session,
            binding: r.binding,
        };
        let mut state = self.lock();
        let live = state
            .registrations
            .get(&r.actor)
            .and_then(|regs| regs.get(&(r.session.owner, r.session.id)))
            .is_some_and(|found| *found == reg);
        if !live {
            drop(state);
            return refuse(SessionRefusal::UnknownBinding);
        }
        if r.kind != RelayKind::Message {
            // A disconnect ends the binding here.
            state.unregister(&r.actor, &reg);
        }
        SessionStep::Deliver(SessionDelivery {
            operation_id: r.operation_id,
            session: r.session,
            actor: r.actor,
            sequence: r.sequence,
            kind: r.kind,
            payload: r.payload,
        })
    }

    /// Sessions bound to `actor` here (to seal, push to, or hand over).
    pub(crate) fn bound_sessions(&self, actor: &ObjectKey) -> Vec<Registration> {
        self.lock()
            .registrations
            .get(actor)
            .map(|regs| {
                // In session order, not the map's: the seals and pushes a
                // move sends come out the same for the same calls.
                let mut regs: Vec<Registration> = regs.values().copied().collect();
                regs.sort_by_key(|r| (r.session.owner.rid, r.session.id, r.session.generation));
                regs
            })
            .unwrap_or_default()
    }

    /// A push (command 15) from `actor`, held here as `owned`, to the bound
    /// `session` on its binding; `None` if no such binding is registered.
    pub(crate) fn push(
        &self,
        ctx: &Ctx<'_>,
        owned: Option<OwnedObject>,
        actor: &ObjectKey,
        session: &SessionRef,
        payload: &[u8],
    ) -> Option<Outbound> {
        let owned = owned?;
        let reg = self
            .bound_sessions(actor)
            .into_iter()
            .find(|r| r.session == *session)?;
        let frame = SessionFrame::Push {
            operation_id: OperationId(ctx.ids.next()),
            session: *session,
            actor: actor.clone(),
            binding: reg.binding,
            object_generation: owned.object_generation,
            payload: payload.to_vec(),
        };
        Some(out(ctx.me, session.owner, frame))
    }

    /// Source coordinator, relocation step 1: command 42 to every Session
    /// bound to `actor` (held here as `owned`).
    pub(crate) fn seal(
        &self,
        ctx: &Ctx<'_>,
        owned: Option<OwnedObject>,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        let Some(owned) = owned else {
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
                    source: ctx.me,
                };
                out(ctx.me, reg.session.owner, seal)
            })
            .collect()
    }

    /// Target: registers the bindings carried from the source.
    pub(crate) fn import(&self, actor: &ObjectKey, registrations: &[Registration]) {
        let mut state = self.lock();
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

    /// Command 44 (`change`, for incarnation `object_generation`) to every
    /// Session bound to `actor`.
    pub(crate) fn route_change(
        &self,
        me: NodeRef,
        actor: &ObjectKey,
        relocation: RelocationId,
        change: RouteChange,
        object_generation: ObjectGeneration,
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
                out(me, reg.session.owner, frame)
            })
            .collect()
    }
}
