//! The Session owner (§3.1–§3.3): its Sessions, their verified binding
//! routes, seals and held messages, and their deadlines. It relays on the
//! stored route without any lookup; a route changes only by a bind's
//! terminal reply or a relocation's command 44.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::MonoTime;
use crate::ids::{NodeRid, ObjectGeneration, ObjectKey, OperationId, SessionGeneration, SessionId};
use crate::reason::UnavailableReason;
use crate::send::Outbound;
use crate::wire::{
    ActorRoute, BindRefusal, BindResult, Binding, NodeRef, RelayKind, SessionFrame, SessionRef,
};

use super::table::{Held, PendingBind, SessionState, SessionTimer, Sessions};
use super::{
    ActorRef, BindingRoute, Ctx, SessionError, SessionEvent, SessionSend, SessionStep, out,
};

/// Every Session this runtime owns.
#[derive(Debug, Default)]
pub(crate) struct SessionOwner {
    sessions: Mutex<Sessions>,
}

impl SessionOwner {
    pub(super) fn lock(&self) -> MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sessions, pending binds and deadline entries held.
    pub(crate) fn sizes(&self) -> (usize, usize, usize) {
        self.lock().sizes()
    }
    /// Opens a Session owned by `me`.
    pub(crate) fn open(
        &self,
        me: NodeRef,
        id: SessionId,
        generation: SessionGeneration,
    ) -> SessionRef {
        let session = SessionRef {
            owner: me,
            id,
            generation,
        };
        self.lock().map.insert(
            session.id,
            SessionState {
                session,
                next_sequence: 1,
                bindings: HashMap::new(),
                pending_binds: HashMap::new(),
                closing: None,
            },
        );
        session
    }

    /// Binds (or rebinds) `session` to the Actor `actor_ref` names, starting
    /// from that location (§3.1). The stored route changes only when the
    /// terminal reply arrives.
    pub(crate) fn bind(
        &self,
        ctx: &Ctx<'_>,
        session: SessionId,
        actor_ref: &ActorRef,
    ) -> Result<Outbound, SessionError> {
        let now = ctx.now;
        let mut sessions = self.lock();
        let state = sessions.open_mut(session)?;
        if state
            .bindings
            .get(&actor_ref.actor)
            .is_some_and(|b| b.seal.is_some())
        {
            // Its held messages belong to the sealed route: wait for 44.
            return Err(SessionError::Sealed {
                session,
                actor: actor_ref.actor.clone(),
            });
        }
        let operation_id = OperationId(ctx.ids.next());
        let previous = state
            .bindings
            .get(&actor_ref.actor)
            .map(|b| (b.route.owner, b.binding));
        state.pending_binds.insert(
            operation_id,
            PendingBind {
                actor: actor_ref.actor.clone(),
                previous: previous.map(|(_, b)| b),
                to: actor_ref.route.owner.rid,
                sent: now,
            },
        );
        let frame = SessionFrame::Bind {
            operation_id,
            session: state.session,
            actor: actor_ref.actor.clone(),
            route: ActorRoute {
                lease_remaining_ms: 0,
                ..actor_ref.route
            },
            previous,
        };
        let deadline = now.after(ctx.config.session_bind_timeout);
        sessions.schedule(deadline, SessionTimer::Bind(session, operation_id));
        Ok(out(ctx.me, actor_ref.route.owner, frame))
    }

    /// The stored binding route of `actor` in `session`.
    pub(crate) fn binding(&self, session: SessionId, actor: &ObjectKey) -> Option<BindingRoute> {
        self.lock().map.get(&session)?.bindings.get(actor).cloned()
    }

    /// Relays `payload` (a message or a disconnect, `kind`) from `session`
    /// to `actor` on the stored route: no lookup, stamped with the Session's
    /// next sequence; held while the Actor is sealed.
    pub(crate) fn relay(
        &self,
        ctx: &Ctx<'_>,
        session: SessionId,
        actor: &ObjectKey,
        kind: RelayKind,
        payload: &[u8],
    ) -> Result<SessionSend, SessionError> {
        let max = ctx.config.max_message_bytes;
        if payload.len() > max {
            return Err(SessionError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        let now = ctx.now;
        let mut sessions = self.lock();
        let state = sessions.open_mut(session)?;
        let sequence = state.next_sequence;
        let session_ref = state.session;
        let bound = state
            .bindings
            .get_mut(actor)
            .ok_or_else(|| SessionError::NotBound {
                session,
                actor: actor.clone(),
            })?;
        if now >= bound.admission_deadline {
            return Ok(SessionSend::Unavailable(
                UnavailableReason::AdmissionDeadlinePassed,
            ));
        }
        state.next_sequence += 1;
        let operation_id = OperationId(ctx.ids.next());
        if let Some(seal) = &mut bound.seal {
            seal.held.push(Held {
                operation_id,
                sequence,
                kind,
                payload: payload.to_vec(),
            });
            ctx.counters.sessions.held.incr();
            return Ok(SessionSend::Held {
                operation_id,
                sequence,
            });
        }
        ctx.counters.sessions.relays.incr();
        let frame = relay_frame(
            session_ref,
            bound,
            operation_id,
            sequence,
            kind,
            payload.to_vec(),
        );
        Ok(SessionSend::Sent {
            operation_id,
            sequence,
            outbound: out(ctx.me, bound.route.owner, frame),
        })
    }

    /// The Session's connection closed (`physical`) or the application ended
    /// it: a disconnect notification to every bound Actor on its stored
    /// route, then the Session and its bindings are gone.
    pub(crate) fn disconnect(
        &self,
        ctx: &Ctx<'_>,
        session: SessionId,
        physical: bool,
    ) -> Result<Vec<Outbound>, SessionError> {
        let kind = if physical {
            RelayKind::PhysicalDisconnect
        } else {
            RelayKind::LogicalDisconnect
        };
        let actors: Vec<ObjectKey> = {
            let sessions = self.lock();
            let state = sessions
                .map
                .get(&session)
                .ok_or(SessionError::UnknownSession(session))?;
            // In key order, not the map's: the same calls give the same
            // frames in the same order (a seeded simulation replays).
            let mut actors: Vec<ObjectKey> = state.bindings.keys().cloned().collect();
            actors.sort();
            actors
        };
        let mut frames = Vec::new();
        for actor in actors {
            // A sealed Actor's notification is held behind its held
            // messages and leaves with them on command 44.
            if let Ok(SessionSend::Sent { outbound, .. }) =
                self.relay(ctx, session, &actor, kind, &[])
            {
                frames.push(outbound);
            }
        }
        let mut sessions = self.lock();
        if let Some(state) = sessions.map.get_mut(&session) {
            if state.sealed() {
                state.closing = Some(kind);
            } else {
                sessions.map.remove(&session);
            }
        }
        Ok(frames)
    }

    /// The Session owner's earliest deadline: a seal timeout or a bind
    /// timeout still waiting.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        self.lock().next_deadline()
    }

    /// Runs the Session owner's deadlines due at `now`: Sessions whose seal
    /// passed `session_relocation_seal_timeout` without command 44 close
    /// (§3.3 step 8); binds without a terminal reply within
    /// `session_bind_timeout` end refused.
    pub(crate) fn on_timeout(&self, ctx: &Ctx<'_>, actions: &mut Vec<SessionStep>) {
        let (config, now) = (&ctx.config, ctx.now);
        let mut sessions = self.lock();
        while let Some(timer) = sessions.pop_due(now) {
            match timer {
                SessionTimer::Seal(id) => {
                    let timeout = config.session_relocation_seal_timeout;
                    let due = sessions.map.get(&id).and_then(|s| s.seal_deadline(timeout));
                    match due {
                        Some(at) if at <= now => {
                            if let Some(state) = sessions.map.remove(&id) {
                                close_on_seal_timeout(ctx, state, actions);
                            }
                        }
                        // The timeout grew since the seal: wake again then.
                        Some(at) => sessions.schedule(at, timer),
                        None => {}
                    }
                }
                SessionTimer::Bind(id, operation_id) => {
                    let Some(state) = sessions.map.get_mut(&id) else {
                        continue;
                    };
                    let Some(pending) = state.pending_binds.remove(&operation_id) else {
                        continue;
                    };
                    let at = pending.sent.after(config.session_bind_timeout);
                    if at > now {
                        // The timeout grew since the bind: wake again then.
                        state.pending_binds.insert(operation_id, pending);
                        sessions.schedule(at, timer);
                        continue;
                    }
                    ctx.counters.sessions.bind_timeouts.incr();
                    tracing::warn!(session = %id, actor = %pending.actor, "no terminal bind reply within the bind timeout");
                    // A rebind's previous binding may be tombstoned already by
                    // the new owner: it goes too, told to drop it as well, if
                    // it is still the one this bind named and not sealed.
                    let replaced = state
                        .bindings
                        .get(&pending.actor)
                        .is_some_and(|b| Some(b.binding) == pending.previous && b.seal.is_none());
                    if let Some(previous) = replaced
                        .then(|| state.bindings.remove(&pending.actor))
                        .flatten()
                    {
                        let frame = tombstone(
                            ctx,
                            previous.route.owner,
                            state.session,
                            &pending.actor,
                            previous.binding,
                        );
                        actions.push(SessionStep::Send(vec![frame]));
                    }
                    actions.push(SessionStep::Event(SessionEvent::BindRefused {
                        session: state.session,
                        actor: pending.actor,
                        reason: BindRefusal::Timeout,
                    }));
                }
            }
        }
    }
}

/// Tells `to` to drop its registration of exactly `binding` (of `session`
/// to `actor`): this Session owner does not hold it, or no longer trusts it.
fn tombstone(
    ctx: &Ctx<'_>,
    to: NodeRef,
    session: SessionRef,
    actor: &ObjectKey,
    binding: Binding,
) -> Outbound {
    let frame = SessionFrame::Tombstone {
        operation_id: OperationId(ctx.ids.next()),
        session,
        actor: actor.clone(),
        binding,
        by: ctx.me,
    };
    out(ctx.me, to, frame)
}

/// A Session closed by the seal timeout: binding, held and seal state go,
/// and every Actor not sealed is told on its stored route that the physical
/// Session closed.
fn close_on_seal_timeout(ctx: &Ctx<'_>, mut s: SessionState, actions: &mut Vec<SessionStep>) {
    ctx.counters.sessions.closed_by_seal_timeout.incr();
    tracing::warn!(session = %s.session.id, "no command 44 within the seal timeout: session closed");
    // Every Actor is told on its stored route while it is valid (§3.2); a
    // sealed one's notice goes on the previous route, where the source's
    // Message Follow route takes it to the target if the move went on, so
    // no owner keeps the registration. Unsealed Actors of a Session already
    // disconnected were told then.
    let (closing, now) = (s.closing, ctx.now);
    // The kind the host asked for when it disconnected, else the physical
    // close this timeout is.
    let kind = closing.unwrap_or(RelayKind::PhysicalDisconnect);
    // In Actor order, not the map's: sequences and frames come out the same
    // for the same calls (a seeded simulation replays).
    let mut told: Vec<&BindingRoute> = s
        .bindings
        .values()
        .filter(|b| (b.seal.is_some() || closing.is_none()) && now < b.admission_deadline)
        .collect();
    told.sort_by(|a, b| a.actor.cmp(&b.actor));
    let notifications: Vec<Outbound> = told
        .into_iter()
        .map(|b| {
            let sequence = s.next_sequence;
            s.next_sequence += 1;
            let op = OperationId(ctx.ids.next());
            let frame = relay_frame(s.session, b, op, sequence, kind, Vec::new());
            out(ctx.me, b.route.owner, frame)
        })
        .collect();
    actions.push(SessionStep::Event(SessionEvent::Closed {
        session: s.session,
    }));
    if !notifications.is_empty() {
        actions.push(SessionStep::Send(notifications));
    }
}

impl SessionOwner {
    /// The terminal reply of a bind: only now does the stored route change,
    /// atomically, to the verified one. A `Bound` reply no bind waits for
    /// any more (it timed out, or the Session closed) is answered with a
    /// tombstone, so its Actor owner does not keep a registration nobody
    /// holds.
    pub(crate) fn on_bind_reply(
        &self,
        ctx: &Ctx<'_>,
        from: NodeRid,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        result: BindResult,
    ) -> SessionStep {
        let unwanted = |why| match result {
            BindResult::Bound { route, binding } if route.owner.rid == from => {
                SessionStep::Send(vec![tombstone(ctx, route.owner, session, &actor, binding)])
            }
            _ => SessionStep::Event(SessionEvent::Ignored(why)),
        };
        let mut sessions = self.lock();
        let Some(state) = sessions
            .map
            .get_mut(&session.id)
            .filter(|s| s.session == session && s.closing.is_none())
        else {
            return unwanted("bind reply for an unknown or closing session");
        };
        let Some(pending) = state.pending_binds.get(&operation_id) else {
            // A copy of the reply that stored the binding in use: keep it.
            let in_use = matches!(result, BindResult::Bound { binding, .. }
                if state.bindings.get(&actor).is_some_and(|b| b.binding == binding));
            if in_use {
                return SessionStep::Event(SessionEvent::Ignored("a copy of a bind reply"));
            }
            return unwanted("bind reply for no pending bind");
        };
        if pending.actor != actor {
            return SessionStep::Event(SessionEvent::Ignored("bind reply for another actor"));
        }
        // Only the node the bind went to answers it, and a route it verified
        // is its own.
        let to = pending.to;
        let own = match result {
            BindResult::Bound { route, .. } => route.owner.rid == from,
            BindResult::Refused(_) => true,
        };
        if to != from || !own {
            drop(sessions);
            return SessionStep::Foreign(Some(to));
        }
        let Some(pending) = state.pending_binds.remove(&operation_id) else {
            return SessionStep::Event(SessionEvent::Ignored("bind reply for no pending bind"));
        };
        ctx.latencies.bind.record(ctx.now.since(pending.sent));
        match result {
            BindResult::Bound { route, binding } => {
                // Counted from when the bind was sent (errs early), and never
                // more than one owner lease, whatever the reply claims.
                let lease = Duration::from_millis(route.lease_remaining_ms)
                    .min(ctx.config.owner_lease_duration);
                // A seal on the route being replaced stays, with the messages
                // it holds: they were accepted for this Actor and still wait
                // for the relocation's command 44 (or the seal timeout,
                // which closes the Session): dropping them would lose them
                // without a word.
                let seal = state.bindings.get(&actor).and_then(|b| b.seal.clone());
                let stored = BindingRoute {
                    actor: actor.clone(),
                    route,
                    binding,
                    session,
                    admission_deadline: pending.sent.after(lease),
                    seal,
                };
                state.bindings.insert(actor.clone(), stored.clone());
                SessionStep::Event(SessionEvent::Bound {
                    session,
                    actor,
                    route: Box::new(stored),
                })
            }
            // A refusal keeps any previous route: the Session owner's own
            // bind deadline (which passes first, counted from the send)
            // is what drops a rebind's previous route.
            BindResult::Refused(reason) => SessionStep::Event(SessionEvent::BindRefused {
                session,
                actor,
                reason,
            }),
        }
    }

    /// A push from an Actor: surfaced only on a binding this Session holds,
    /// from the owner its stored route names.
    pub(crate) fn on_push(
        &self,
        from: NodeRid,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: ObjectGeneration,
        payload: Vec<u8>,
    ) -> SessionStep {
        let owner = {
            let sessions = self.lock();
            sessions
                .map
                .get(&session.id)
                .filter(|s| s.session == session)
                .and_then(|s| s.bindings.get(&actor))
                .filter(|b| b.binding == binding && b.route.object_generation == object_generation)
                .map(|b| b.route.owner.rid)
        };
        let Some(owner) = owner else {
            return SessionStep::Event(SessionEvent::Ignored(
                "push on a binding this session does not hold",
            ));
        };
        // Only the Actor's owner on the stored route pushes.
        if owner != from {
            return SessionStep::Foreign(Some(owner));
        }
        SessionStep::Event(SessionEvent::Pushed {
            session,
            actor,
            payload,
        })
    }
}

pub(super) fn relay_frame(
    session: SessionRef,
    bound: &BindingRoute,
    operation_id: OperationId,
    sequence: u64,
    kind: RelayKind,
    payload: Vec<u8>,
) -> SessionFrame {
    SessionFrame::Relay {
        operation_id,
        session,
        actor: bound.actor.clone(),
        binding: bound.binding,
        route: bound.route,
        sequence,
        hop_count: 0,
        relayer: None,
        kind,
        payload,
    }
}
