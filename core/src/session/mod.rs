//! Session binding routes (spec §3): a Session owner verifies an Actor's
//! route once, at bind, and relays on it afterwards without any lookup;
//! the route changes only by a rebind's terminal reply or a relocation's
//! command 44.

mod actor;
mod owner;

use std::time::Duration;

use crate::clock::MonoTime;

pub(crate) use actor::ActorBindings;
pub use actor::Registration;
pub use owner::BindingRoute;
pub(crate) use owner::SessionTable;

use owner::{Held, PendingBind, Seal, SessionState, SessionTimer};

use crate::ids::{NodeRid, ObjectKey, OperationId, RelocationId, SessionGeneration, SessionId};
use crate::inbound::Inbound;
use crate::outbound::Outbound;
use crate::resolve::UnavailableReason;
use crate::runtime::Runtime;
use crate::wire::{
    ActorRoute, BindRefusal, BindResult, Binding, Frame, RelayKind, RouteChange, SessionFrame,
    SessionRef, SessionRefusal, encode,
};

/// An ActorRef as a caller holds it: the Actor and the location it names.
/// Bind starts from this location; nothing is looked up before the bind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorRef {
    /// The Actor.
    pub actor: ObjectKey,
    /// Its location and fences as the reference names them.
    pub route: ActorRoute,
}

/// A session relay admitted on the Actor owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDelivery {
    /// The operation.
    pub operation_id: OperationId,
    /// The Session it came from.
    pub session: SessionRef,
    /// The Actor it is for.
    pub actor: ObjectKey,
    /// Its place in the Session's order.
    pub sequence: u64,
    /// Message or disconnect.
    pub kind: RelayKind,
    /// Opaque bytes.
    pub payload: Vec<u8>,
}

/// What became of a session relay on the Session owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionSend {
    /// Carry `outbound` on the stored route.
    Sent {
        /// The operation.
        operation_id: OperationId,
        /// Its place in the Session's order.
        sequence: u64,
        /// The frame and its destination.
        outbound: Outbound,
    },
    /// The Actor is relocating (sealed): held, sent in order by command 44.
    Held {
        /// The operation.
        operation_id: OperationId,
        /// Its place in the Session's order.
        sequence: u64,
    },
    /// The stored route is past the owner lease's local admission deadline:
    /// the operation ends, nothing is looked up.
    Unavailable(UnavailableReason),
}

/// Session calls on an unknown session or Actor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No such open Session on this runtime.
    #[error("no open session {0}")]
    UnknownSession(SessionId),
    /// The Session was disconnected; it only waits for its relocations.
    #[error("session {0} is disconnected")]
    Closing(SessionId),
    /// The binding is sealed for a relocation: rebind after its command 44.
    #[error("session {session}'s binding to {actor} is sealed for a relocation")]
    Sealed {
        /// The session.
        session: SessionId,
        /// The Actor.
        actor: ObjectKey,
    },
    /// The Session has no binding to that Actor.
    #[error("session {session} has no binding to {actor}")]
    NotBound {
        /// The session.
        session: SessionId,
        /// The Actor.
        actor: ObjectKey,
    },
    /// The payload is over the negotiated message bound: nothing was sent.
    #[error("payload is {len} bytes, over the {max}-byte message bound")]
    PayloadTooLarge {
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
}

/// A Session-side event `on_frame` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEvent {
    /// A bind (or rebind) reached its terminal reply: the route is stored.
    Bound {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The stored route.
        route: Box<BindingRoute>,
    },
    /// A bind was refused; any previous route is kept.
    BindRefused {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: BindRefusal,
    },
    /// The Actor pushed to the Session.
    Pushed {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Opaque bytes.
        payload: Vec<u8>,
    },
    /// A relay was refused by the Actor side: it ends Unavailable.
    RelayRefused {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: SessionRefusal,
    },
    /// The source coordinator learns whether a Session sealed (command 43).
    Sealed {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The relocation.
        relocation: RelocationId,
        /// Whether the seal was installed.
        sealed: bool,
    },
    /// No command 44 came within the seal timeout: the Session is closed
    /// and its binding, held and seal state are gone (§3.3 step 8). The
    /// disconnect notifications to its other Actors follow as a `Send`.
    Closed {
        /// The session.
        session: SessionRef,
    },
    /// A frame that does not match current state (stale binding, unknown
    /// session, mismatched relocation) was ignored.
    Ignored(&'static str),
}

fn out(to: crate::wire::NodeRef, frame: SessionFrame) -> Outbound {
    Outbound {
        to,
        bytes: encode(&Frame::Session(frame)),
    }
}

impl Runtime {
    /// Opens a Session owned by this runtime.
    pub fn open_session(&self, id: SessionId, generation: SessionGeneration) -> SessionRef {
        let session = SessionRef {
            owner: self.node_ref(),
            id,
            generation,
        };
        self.inner().sessions.open(session);
        session
    }

    /// Binds (or rebinds) `session` to the Actor `actor_ref` names, starting
    /// from that location (§3.1). The stored route changes only when the
    /// terminal reply arrives.
    pub fn bind(&self, session: SessionId, actor_ref: &ActorRef) -> Result<Outbound, SessionError> {
        let now = self.clock().now();
        let mut sessions = self.inner().sessions.lock();
        let state = sessions
            .map
            .get_mut(&session)
            .ok_or(SessionError::UnknownSession(session))?;
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
        let operation_id = OperationId(self.inner().ids.next());
        let previous = state
            .bindings
            .get(&actor_ref.actor)
            .map(|b| (b.route.owner, b.binding));
        state.pending_binds.insert(
            operation_id,
            PendingBind {
                actor: actor_ref.actor.clone(),
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
        let deadline = now.after(self.config().session_bind_timeout);
        sessions.schedule(deadline, SessionTimer::Bind(session, operation_id));
        Ok(out(actor_ref.route.owner, frame))
    }

    /// The stored binding route of `actor` in `session`.
    pub fn binding(&self, session: SessionId, actor: &ObjectKey) -> Option<BindingRoute> {
        self.inner()
            .sessions
            .lock()
            .map
            .get(&session)?
            .bindings
            .get(actor)
            .cloned()
    }

    /// Relays `payload` from `session` to `actor` on the stored route: no
    /// lookup, stamped with the Session's next sequence.
    pub fn session_send(
        &self,
        session: SessionId,
        actor: &ObjectKey,
        payload: &[u8],
    ) -> Result<SessionSend, SessionError> {
        self.session_relay(session, actor, RelayKind::Message, payload)
    }

    fn session_relay(
        &self,
        session: SessionId,
        actor: &ObjectKey,
        kind: RelayKind,
        payload: &[u8],
    ) -> Result<SessionSend, SessionError> {
        let max = self.inner().resolver.config.max_message_bytes();
        if payload.len() > max {
            return Err(SessionError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        let now = self.clock().now();
        let mut sessions = self.inner().sessions.lock();
        let state = sessions
            .map
            .get_mut(&session)
            .ok_or(SessionError::UnknownSession(session))?;
        if state.closing {
            return Err(SessionError::Closing(session));
        }
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
        let operation_id = OperationId(self.inner().ids.next());
        if let Some(seal) = &mut bound.seal {
            seal.held.push(Held {
                operation_id,
                sequence,
                kind,
                payload: payload.to_vec(),
            });
            self.counters().sessions.held.incr();
            return Ok(SessionSend::Held {
                operation_id,
                sequence,
            });
        }
        self.counters().sessions.relays.incr();
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
            outbound: out(bound.route.owner, frame),
        })
    }

    /// The Session's connection closed (`physical`) or the application ended
    /// it: a disconnect notification to every bound Actor on its stored
    /// route, then the Session and its bindings are gone.
    pub fn disconnect_session(
        &self,
        session: SessionId,
        physical: bool,
    ) -> Result<Vec<Outbound>, SessionError> {
        let kind = if physical {
            RelayKind::PhysicalDisconnect
        } else {
            RelayKind::LogicalDisconnect
        };
        let actors: Vec<ObjectKey> = {
            let sessions = self.inner().sessions.lock();
            let state = sessions
                .map
                .get(&session)
                .ok_or(SessionError::UnknownSession(session))?;
            state.bindings.keys().cloned().collect()
        };
        let mut frames = Vec::new();
        for actor in actors {
            // A sealed Actor's notification is held behind its held
            // messages and leaves with them on command 44.
            if let Ok(SessionSend::Sent { outbound, .. }) =
                self.session_relay(session, &actor, kind, &[])
            {
                frames.push(outbound);
            }
        }
        let mut sessions = self.inner().sessions.lock();
        if let Some(state) = sessions.map.get_mut(&session) {
            if state.sealed() {
                state.closing = true;
            } else {
                sessions.map.remove(&session);
            }
        }
        Ok(frames)
    }

    /// The Session owner's earliest deadline: a seal timeout or a bind
    /// timeout (possibly of one that already ended).
    pub(crate) fn session_deadline(&self) -> Option<MonoTime> {
        self.inner().sessions.lock().next_deadline()
    }

    /// Runs the Session owner's deadlines due at `now`: Sessions whose seal
    /// passed `session_relocation_seal_timeout` without command 44 close
    /// (§3.3 step 8); binds without a terminal reply within
    /// `session_bind_timeout` end refused.
    pub(crate) fn session_timeouts(&self, now: MonoTime, actions: &mut Vec<Inbound>) {
        let config = self.config();
        let mut sessions = self.inner().sessions.lock();
        while let Some(timer) = sessions.pop_due(now) {
            match timer {
                SessionTimer::Seal(id) => {
                    let timeout = config.session_relocation_seal_timeout;
                    let due = sessions.map.get(&id).and_then(|s| s.seal_deadline(timeout));
                    match due {
                        Some(at) if at <= now => {
                            if let Some(state) = sessions.map.remove(&id) {
                                self.close_on_seal_timeout(state, now, actions);
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
                    self.counters().sessions.bind_timeouts.incr();
                    tracing::warn!(session = %id, actor = %pending.actor, "no terminal bind reply within the bind timeout");
                    actions.push(Inbound::Session(SessionEvent::BindRefused {
                        session: state.session,
                        actor: pending.actor,
                        reason: BindRefusal::Timeout,
                    }));
                }
            }
        }
    }

    /// A Session closed by the seal timeout: binding, held and seal state go,
    /// and every Actor not sealed is told on its stored route that the
    /// physical Session closed.
    fn close_on_seal_timeout(
        &self,
        mut s: SessionState,
        now: MonoTime,
        actions: &mut Vec<Inbound>,
    ) {
        self.counters().sessions.closed_by_seal_timeout.incr();
        tracing::warn!(session = %s.session.id, "no command 44 within the seal timeout: session closed");
        let notifications: Vec<Outbound> = s
            .bindings
            .values()
            .filter(|b| b.seal.is_none() && now < b.admission_deadline)
            .map(|b| {
                let sequence = s.next_sequence;
                s.next_sequence += 1;
                let op = OperationId(self.inner().ids.next());
                let frame = relay_frame(
                    s.session,
                    b,
                    op,
                    sequence,
                    RelayKind::PhysicalDisconnect,
                    Vec::new(),
                );
                out(b.route.owner, frame)
            })
            .collect();
        actions.push(Inbound::Session(SessionEvent::Closed {
            session: s.session,
        }));
        if !notifications.is_empty() {
            actions.push(Inbound::Send(notifications));
        }
    }

    /// Dispatches a session frame that came on the connection of `from`
    /// (from `on_frame`, which checked the frames that name their sender).
    pub(crate) fn on_session_frame(&self, from: NodeRid, frame: SessionFrame) -> Inbound {
        match frame {
            SessionFrame::Bind {
                operation_id,
                session,
                actor,
                route,
                previous,
            } => self.on_bind(operation_id, session, actor, route, previous),
            SessionFrame::Tombstone {
                operation_id,
                session,
                actor,
                binding,
                by,
            } => self.on_tombstone(operation_id, session, actor, binding, by),
            SessionFrame::TombstoneAck { operation_id, .. } => {
                self.on_tombstone_ack(from, operation_id)
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
            } => self.on_session_relay(
                operation_id,
                session,
                actor,
                binding,
                route,
                sequence,
                hop_count,
                kind,
                payload,
            ),
            SessionFrame::BindReply {
                operation_id,
                session,
                actor,
                result,
            } => self.on_bind_reply(from, operation_id, session, actor, result),
            SessionFrame::Push {
                session,
                actor,
                binding,
                object_generation,
                payload,
                ..
            } => self.on_push(from, session, actor, binding, object_generation, payload),
            SessionFrame::Refused {
                operation_id,
                session,
                actor,
                reason,
            } => {
                // It changes no state: the host ends the relay it names. Any
                // node a relay went to may refuse it, the route's owner then
                // or a relayer on its follow chain, so no sender is checked.
                Inbound::Session(SessionEvent::RelayRefused {
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
            } => self.on_seal(
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
            } => Inbound::Session(SessionEvent::Sealed {
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
            } => self.on_route_change(
                from,
                session,
                actor,
                binding,
                object_generation,
                relocation,
                change,
            ),
        }
    }

    /// The terminal reply of a bind: only now does the stored route change,
    /// atomically, to the verified one.
    fn on_bind_reply(
        &self,
        from: NodeRid,
        operation_id: OperationId,
        session: SessionRef,
        actor: ObjectKey,
        result: BindResult,
    ) -> Inbound {
        let mut sessions = self.inner().sessions.lock();
        let Some(state) = sessions
            .map
            .get_mut(&session.id)
            .filter(|s| s.session == session)
        else {
            return Inbound::Session(SessionEvent::Ignored("bind reply for an unknown session"));
        };
        let Some(pending) = state.pending_binds.get(&operation_id) else {
            return Inbound::Session(SessionEvent::Ignored("bind reply for no pending bind"));
        };
        if pending.actor != actor {
            return Inbound::Session(SessionEvent::Ignored("bind reply for another actor"));
        }
        // Only the node the bind went to answers it.
        let to = pending.to;
        if to != from {
            drop(sessions);
            return self.foreign(from, Some(to));
        }
        let Some(pending) = state.pending_binds.remove(&operation_id) else {
            return Inbound::Session(SessionEvent::Ignored("bind reply for no pending bind"));
        };
        match result {
            BindResult::Bound { route, binding } => {
                let stored = BindingRoute {
                    actor: actor.clone(),
                    route,
                    binding,
                    session,
                    // Counted from when the bind was sent: errs early.
                    admission_deadline: pending
                        .sent
                        .after(Duration::from_millis(route.lease_remaining_ms)),
                    seal: None,
                };
                state.bindings.insert(actor.clone(), stored.clone());
                Inbound::Session(SessionEvent::Bound {
                    session,
                    actor,
                    route: Box::new(stored),
                })
            }
            BindResult::Refused(reason) => Inbound::Session(SessionEvent::BindRefused {
                session,
                actor,
                reason,
            }),
        }
    }

    fn on_push(
        &self,
        from: NodeRid,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: crate::ids::ObjectGeneration,
        payload: Vec<u8>,
    ) -> Inbound {
        let owner = {
            let sessions = self.inner().sessions.lock();
            sessions
                .map
                .get(&session.id)
                .filter(|s| s.session == session)
                .and_then(|s| s.bindings.get(&actor))
                .filter(|b| b.binding == binding && b.route.object_generation == object_generation)
                .map(|b| b.route.owner.rid)
        };
        let Some(owner) = owner else {
            return Inbound::Session(SessionEvent::Ignored(
                "push on a binding this session does not hold",
            ));
        };
        // Only the Actor's owner on the stored route pushes.
        if owner != from {
            return self.foreign(from, Some(owner));
        }
        Inbound::Session(SessionEvent::Pushed {
            session,
            actor,
            payload,
        })
    }

    /// Command 42: hold this Actor's messages and answer with command 43.
    fn on_seal(
        &self,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: crate::ids::ObjectGeneration,
        relocation: RelocationId,
        source: crate::wire::NodeRef,
    ) -> Inbound {
        let now = self.clock().now();
        let sealed = {
            let mut sessions = self.inner().sessions.lock();
            let bound = bound_matching(
                &mut sessions.map,
                &session,
                &actor,
                binding,
                object_generation,
            )
            // Only the owner the stored route names seals it.
            .filter(|b| b.route.owner == source);
            match bound {
                Some(bound) if bound.seal.is_none() => {
                    bound.seal = Some(Seal {
                        relocation,
                        since: now,
                        held: Vec::new(),
                    });
                    let deadline = now.after(self.config().session_relocation_seal_timeout);
                    sessions.schedule(deadline, SessionTimer::Seal(session.id));
                    true
                }
                Some(bound) => bound
                    .seal
                    .as_ref()
                    .is_some_and(|s| s.relocation == relocation),
                None => false,
            }
        };
        let reply = SessionFrame::Sealed {
            session,
            actor,
            relocation,
            sealed,
        };
        Inbound::Send(vec![out(source, reply)])
    }

    /// Command 44 (one-way): on commit switch the route atomically and send
    /// the held messages to the target; on abort send them to the source.
    /// Validated against Session, binding, Actor generation and relocation.
    #[allow(clippy::too_many_arguments)]
    fn on_route_change(
        &self,
        from: NodeRid,
        session: SessionRef,
        actor: ObjectKey,
        binding: Binding,
        object_generation: crate::ids::ObjectGeneration,
        relocation: RelocationId,
        change: RouteChange,
    ) -> Inbound {
        let mut sessions = self.inner().sessions.lock();
        let Some(bound) = bound_matching(
            &mut sessions.map,
            &session,
            &actor,
            binding,
            object_generation,
        ) else {
            return Inbound::Session(SessionEvent::Ignored(
                "command 44 for another session, binding or incarnation",
            ));
        };
        // A commit comes from the target it names; a refresh or an abort
        // from the owner the stored route names.
        let sender = match change {
            RouteChange::Commit(route) => route.owner.rid,
            RouteChange::Refresh(_) | RouteChange::Abort => bound.route.owner.rid,
        };
        if sender != from {
            drop(sessions);
            return self.foreign(from, Some(sender));
        }
        if let RouteChange::Refresh(route) = change {
            let lease = self.config().owner_lease_duration;
            return refresh(bound, route, self.clock().now(), lease);
        }
        if bound
            .seal
            .as_ref()
            .is_none_or(|s| s.relocation != relocation)
        {
            return Inbound::Session(SessionEvent::Ignored("command 44 for another relocation"));
        }
        if let RouteChange::Commit(route) = change
            && route.object_generation != object_generation
        {
            return Inbound::Session(SessionEvent::Ignored(
                "command 44 commits another incarnation",
            ));
        }
        let seal = bound.seal.take().expect("checked above");
        if let RouteChange::Commit(route) = change {
            bound.route = route;
            // Counted from the seal, installed before the target committed:
            // a delayed 44 cannot stretch the route past the target's lease.
            bound.admission_deadline = seal
                .since
                .after(Duration::from_millis(route.lease_remaining_ms));
        }
        let frames = seal
            .held
            .into_iter()
            .map(|h| {
                out(
                    bound.route.owner,
                    relay_frame(
                        session,
                        bound,
                        h.operation_id,
                        h.sequence,
                        h.kind,
                        h.payload,
                    ),
                )
            })
            .collect();
        // A disconnected Session goes once its last seal is released.
        let closed = sessions
            .map
            .get(&session.id)
            .is_some_and(|s| s.closing && !s.sealed());
        if closed {
            sessions.map.remove(&session.id);
        }
        Inbound::Send(frames)
    }
}

/// A lease renewal on the same owner tenure: the route's deadline follows
/// the renewed lease (only ever forward, and by at most one owner lease
/// from now, whatever the frame claims); any other route is ignored.
fn refresh(bound: &mut BindingRoute, route: ActorRoute, now: MonoTime, lease: Duration) -> Inbound {
    let same_tenure = route.owner == bound.route.owner
        && route.object_generation == bound.route.object_generation
        && route.authority_owner_generation == bound.route.authority_owner_generation
        && route.owner_lease_generation == bound.route.owner_lease_generation;
    if !same_tenure {
        return Inbound::Session(SessionEvent::Ignored(
            "lease refresh for another owner tenure",
        ));
    }
    let renewed = now.after(Duration::from_millis(route.lease_remaining_ms).min(lease));
    bound.admission_deadline = bound.admission_deadline.max(renewed);
    Inbound::Send(Vec::new())
}

/// The binding of `actor` in `session`, if it is the one named.
fn bound_matching<'a>(
    sessions: &'a mut std::collections::HashMap<SessionId, SessionState>,
    session: &SessionRef,
    actor: &ObjectKey,
    binding: Binding,
    object_generation: crate::ids::ObjectGeneration,
) -> Option<&'a mut BindingRoute> {
    sessions
        .get_mut(&session.id)
        .filter(|s| s.session == *session)?
        .bindings
        .get_mut(actor)
        .filter(|b| b.binding == binding && b.route.object_generation == object_generation)
}

fn relay_frame(
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
