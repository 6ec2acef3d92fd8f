//! Sessions (spec §3) as calls and frames: the Session owner and Actor
//! bindings machines, given the time, this node, the config and what this
//! node owns; their steps become host actions.

use crate::clock::MonoTime;
use crate::error::InputError;
use crate::ids::{NodeRid, ObjectKey, RelocationId, SessionGeneration, SessionId};
use crate::inbound::Inbound;
use crate::send::Outbound;
use crate::session::{
    ActorRef, BindingRoute, Ctx, Registration, RelayIn, SessionError, SessionEvent, SessionSend,
    SessionStep, own_route,
};
use crate::wire::{ActorRoute, RelayKind, RouteChange, SessionFrame, SessionRef};

use super::Runtime;

impl Runtime {
    /// What the session machines need for one call, at `now`.
    fn ctx_at(&self, now: MonoTime) -> Ctx<'_> {
        Ctx {
            now,
            me: self.node_ref(),
            config: self.inner().config.get(),
            ids: &self.inner().ids,
            counters: self.counters(),
            latencies: &self.inner().latencies,
        }
    }

    pub(super) fn ctx(&self) -> Ctx<'_> {
        self.ctx_at(self.clock().now())
    }

    /// A session machine's step as a host action; `from` is the connection
    /// the frame came on.
    fn act(&self, from: NodeRid, step: SessionStep) -> Inbound {
        match step {
            SessionStep::Send(frames) => Inbound::Send(frames),
            SessionStep::Event(e) => Inbound::Session(e),
            SessionStep::Deliver(d) => Inbound::SessionDeliver(d),
            SessionStep::Foreign(claimed) => self.foreign(from, claimed),
        }
    }

    /// Opens a Session owned by this runtime.
    pub fn open_session(&self, id: SessionId, generation: SessionGeneration) -> SessionRef {
        self.inner().sessions.open(self.node_ref(), id, generation)
    }

    /// Binds (or rebinds) `session` to the Actor `actor_ref` names, starting
    /// from that location (§3.1). The stored route changes only when the
    /// terminal reply arrives (or the bind ends refused at
    /// `session_bind_timeout`).
    pub fn bind(&self, session: SessionId, actor_ref: &ActorRef) -> Result<Outbound, SessionError> {
        self.inner().sessions.bind(&self.ctx(), session, actor_ref)
    }

    /// The stored binding route of `actor` in `session`.
    pub fn binding(&self, session: SessionId, actor: &ObjectKey) -> Option<BindingRoute> {
        self.inner().sessions.binding(session, actor)
    }

    /// Relays `payload` from `session` to `actor` on the stored route: no
    /// lookup, stamped with the Session's next sequence.
    pub fn session_send(
        &self,
        session: SessionId,
        actor: &ObjectKey,
        payload: &[u8],
    ) -> Result<SessionSend, SessionError> {
        self.inner()
            .sessions
            .relay(&self.ctx(), session, actor, RelayKind::Message, payload)
    }

    /// The Session's connection closed (`physical`) or the application ended
    /// it: a disconnect notification to every bound Actor on its stored
    /// route, then the Session and its bindings are gone.
    pub fn disconnect_session(
        &self,
        session: SessionId,
        physical: bool,
    ) -> Result<Vec<Outbound>, SessionError> {
        self.inner()
            .sessions
            .disconnect(&self.ctx(), session, physical)
    }

    /// The session machines' deadlines due at `now`, as host actions.
    pub(crate) fn session_timeouts(&self, now: MonoTime, actions: &mut Vec<Inbound>) {
        let mut steps = Vec::new();
        self.inner()
            .sessions
            .on_timeout(&self.ctx_at(now), &mut steps);
        actions.extend(steps.into_iter().map(|s| self.act(self.identity().rid, s)));
        let refusals = self.inner().bindings.expire_parked(self.node_ref(), now);
        if !refusals.is_empty() {
            actions.push(Inbound::Send(refusals));
        }
    }

    /// Sessions bound to `actor` here (to seal, push to, or hand over).
    pub fn bound_sessions(&self, actor: &ObjectKey) -> Vec<Registration> {
        self.inner().bindings.bound_sessions(actor)
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
        let max = self.inner().config.max_message_bytes();
        if payload.len() > max {
            return Err(InputError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        let owned = self.admitting(actor.as_ref());
        Ok(self
            .inner()
            .bindings
            .push(&self.ctx(), owned, actor, session, payload))
    }

    /// Source coordinator, relocation step 1: command 42 to every Session
    /// bound to `actor`.
    pub(crate) fn seal_sessions(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        let owned = self.owned(actor.as_ref());
        self.inner()
            .bindings
            .seal(&self.ctx(), owned, actor, relocation)
    }

    /// Target, relocation step 7: command 44 commit (one-way) to every
    /// bound Session, carrying this node's new route.
    pub(crate) fn commit_session_routes(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        self.own_route_change(actor, relocation, RouteChange::Commit)
    }

    /// After renewing its lease, tells every bound Session the lease time it
    /// has now (a command 44 refresh, relocation id 0), so their stored
    /// routes stay usable; nothing else about the route changes.
    pub fn refresh_session_routes(&self, actor: &ObjectKey) -> Vec<Outbound> {
        self.own_route_change(actor, RelocationId(0), RouteChange::Refresh)
    }

    fn own_route_change(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
        change: fn(ActorRoute) -> RouteChange,
    ) -> Vec<Outbound> {
        let Some(route) = own_route(&self.ctx(), self.owned(actor.as_ref())) else {
            return Vec::new();
        };
        self.inner().bindings.route_change(
            self.node_ref(),
            actor,
            relocation,
            change(route),
            route.object_generation,
        )
    }

    /// Source, failure before relay-ready: command 44 abort to every bound
    /// Session, so held messages go to this (source) route again.
    pub(crate) fn abort_session_routes(
        &self,
        actor: &ObjectKey,
        relocation: RelocationId,
    ) -> Vec<Outbound> {
        let Some(owned) = self.owned(actor.as_ref()) else {
            return Vec::new();
        };
        self.inner().bindings.route_change(
            self.node_ref(),
            actor,
            relocation,
            RouteChange::Abort,
            owned.object_generation,
        )
    }

    /// Drops every binding of `actor` here (the Actor was removed: a new
    /// incarnation never inherits a binding).
    pub fn forget_bindings(&self, actor: &ObjectKey) {
        self.inner().bindings.forget(actor);
    }

    /// A session frame that came on the connection of `from` (from
    /// `on_frame`, which checked the frames that name their sender): the
    /// Session owner's frames to it, the Actor owner's to the bindings.
    pub(crate) fn on_session_frame(&self, from: NodeRid, frame: SessionFrame) -> Inbound {
        let sessions = &self.inner().sessions;
        let bindings = &self.inner().bindings;
        let step = match frame {
            SessionFrame::Bind {
                operation_id,
                session,
                actor,
                route,
                previous,
            } => {
                let owned = self.admitting(actor.as_ref());
                bindings.on_bind(
                    &self.ctx(),
                    owned,
                    operation_id,
                    session,
                    actor,
                    route,
                    previous,
                )
            }
            SessionFrame::Tombstone {
                operation_id,
                session,
                actor,
                binding,
                by,
            } => bindings.on_tombstone(self.node_ref(), operation_id, session, actor, binding, by),
            SessionFrame::TombstoneAck { operation_id, .. } => {
                bindings.on_tombstone_ack(self.node_ref(), from, operation_id)
            }
            SessionFrame::Relay {
                operation_id,
                session,
                actor,
                binding,
                route,
                sequence,
                hop_count,
                kind,
                payload,
                ..
            } => {
                let owned = self.admitting(actor.as_ref());
                let relay = RelayIn {
                    operation_id,
                    session,
                    actor,
                    binding,
                    route,
                    sequence,
                    hop_count,
                    kind,
                    payload,
                };
                // A relocating Actor's relays are held or carried to the
                // target, never run by a node that is not its owner.
                let relay = match self.relocating_relay(relay) {
                    Ok(decided) => return decided,
                    Err(relay) => relay,
                };
                let ctx = self.ctx();
                let actor = relay.actor.clone();
                let follow =
                    |route: &ActorRoute, hops| self.follow_destination(&actor, route, hops);
                bindings.on_relay(&ctx, owned, follow, relay)
            }
            SessionFrame::BindReply {
                operation_id,
                session,
                actor,
                result,
            } => sessions.on_bind_reply(&self.ctx(), from, operation_id, session, actor, result),
            SessionFrame::Push {
                session,
                actor,
                binding,
                object_generation,
                payload,
                ..
            } => sessions.on_push(from, session, actor, binding, object_generation, payload),
            SessionFrame::Refused {
                operation_id,
                session,
                actor,
                reason,
            } => {
                // It changes no state: the host ends the relay it names. Any
                // node a relay went to may refuse it, the route's owner then
                // or a relayer on its follow chain, so no sender is checked.
                SessionStep::Event(SessionEvent::RelayRefused {
                    operation_id,
                    session,
                    actor,
                    reason,
                })
            }
            SessionFrame::Seal {
                session,
                actor,
                binding,
                object_generation,
                relocation,
                source,
            } => sessions.on_seal(
                &self.ctx(),
                session,
                actor,
                binding,
                object_generation,
                relocation,
                source,
            ),
            SessionFrame::Sealed {
                session,
                actor,
                relocation,
                sealed,
            } => SessionStep::Event(SessionEvent::Sealed {
                session,
                actor,
                relocation,
                sealed,
            }),
            SessionFrame::Route {
                session,
                actor,
                binding,
                object_generation,
                relocation,
                change,
            } => sessions.on_route_change(
                &self.ctx(),
                from,
                session,
                actor,
                binding,
                object_generation,
                relocation,
                change,
            ),
        };
        self.act(from, step)
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
        let max_hops = self.inner().config.max_follow_hops();
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
}
