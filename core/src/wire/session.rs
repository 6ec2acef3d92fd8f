//! Session frames (spec §3): bind and rebind with tombstones, relays on the
//! stored binding route, Actor pushes, refusals, and the relocation commands
//! 42 (seal), 43 (sealed) and 44 (route commit / abort).

use super::codec::{Reader, Writer, invalid};
use super::{NodeRef, WireError};
use crate::ids::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, ObjectGeneration, ObjectKey,
    OperationId, OwnerLeaseGeneration, RelocationId, SessionGeneration, SessionId,
};

/// A Session as the wire names it: the Session owner runtime, the session
/// and its lifecycle generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionRef {
    /// The runtime that owns the Session (its STREAM connection).
    pub owner: NodeRef,
    /// The session.
    pub id: SessionId,
    /// Its lifecycle generation.
    pub generation: SessionGeneration,
}

/// A binding's identity, issued by the Actor owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Its generation.
    pub generation: BindingGeneration,
    /// Its token.
    pub token: BindingToken,
}

/// An Actor route as a binding stores it (§3.1): where the Actor's owner is
/// and the fences that must still hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActorRoute {
    /// The owner node (mesh, RID, node generation).
    pub owner: NodeRef,
    /// The Actor's incarnation.
    pub object_generation: ObjectGeneration,
    /// The owner generation.
    pub authority_owner_generation: AuthorityOwnerGeneration,
    /// The owner lease.
    pub owner_lease_generation: OwnerLeaseGeneration,
    /// Lease time left at the owner when it answered (ms); 0 in a bind
    /// request (the caller's ActorRef has no lease view).
    pub lease_remaining_ms: u64,
}

/// Why an Actor owner refused a bind (§3.1 list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BindRefusal {
    /// This node does not own the Actor (or it is not Ready).
    NotOwner = 1,
    /// Another incarnation than the ActorRef names.
    ObjectGeneration = 2,
    /// Another node lifecycle than the ActorRef names.
    NodeGeneration = 3,
    /// Another authority owner generation.
    OwnerGeneration = 4,
    /// Another owner lease, or it has run out.
    OwnerLease = 5,
    /// No terminal answer within `session_bind_timeout` (the previous owner
    /// never ACKed the rebind's tombstone, or no reply came at all): the
    /// bind is not registered; any previous route is kept.
    Timeout = 6,
}

/// A bind's terminal answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindResult {
    /// Registered: store this verified route and binding.
    Bound {
        /// The verified route.
        route: ActorRoute,
        /// The registered binding.
        binding: Binding,
    },
    /// Refused; nothing registered.
    Refused(BindRefusal),
}

/// What a session relay carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RelayKind {
    /// An application message from the Session to the Actor.
    Message = 1,
    /// The physical connection closed.
    PhysicalDisconnect = 2,
    /// The application ended the session logically.
    LogicalDisconnect = 3,
}

/// Why an Actor owner refused a session relay or push target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SessionRefusal {
    /// No such binding here (never bound, tombstoned, or replaced).
    UnknownBinding = 1,
    /// The route is stale and no Message Follow route serves it.
    StaleRoute = 2,
    /// Another incarnation than the binding's.
    ObjectGeneration = 3,
}

/// What command 44 does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteChange {
    /// The relocation committed: switch to this route.
    Commit(ActorRoute),
    /// The relocation failed before relay-ready: keep the source route.
    Abort,
    /// Not a relocation: the owner renewed its lease; the same tenure's route
    /// with the lease time left now (the relocation id is 0).
    Refresh(ActorRoute),
}

/// A session frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionFrame {
    /// Command 10: Session owner → Actor owner (the ActorRef's location).
    Bind {
        /// The bind operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The ActorRef's location as the caller gave it.
        route: ActorRoute,
        /// For a rebind: the owner and binding being replaced.
        previous: Option<(NodeRef, Binding)>,
    },
    /// Command 11: Actor owner → Session owner, the terminal reply.
    BindReply {
        /// The bind operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Bound or refused.
        result: BindResult,
    },
    /// Command 12: new owner → previous owner, removing a replaced binding.
    Tombstone {
        /// The rebind it belongs to.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding to remove (and only that one).
        binding: Binding,
        /// Who asks (the new owner), to send the ACK to.
        by: NodeRef,
    },
    /// Command 13: previous owner → new owner.
    TombstoneAck {
        /// The rebind it belongs to.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding named.
        binding: Binding,
    },
    /// Command 14: Session owner → Actor owner on the stored route.
    Relay {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding it travels under.
        binding: Binding,
        /// The route it was sent on (its owner fence).
        route: ActorRoute,
        /// Order of the Session's messages.
        sequence: u64,
        /// Message Follow hops so far.
        hop_count: u8,
        /// The node that relayed this hop: `None` exactly at hop 0, where
        /// the Session owner sent it.
        relayer: Option<NodeRef>,
        /// Message or disconnect.
        kind: RelayKind,
        /// Opaque bytes (empty for disconnects).
        payload: Vec<u8>,
    },
    /// Command 15: Actor owner → Session owner on the binding.
    Push {
        /// The operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding it travels under.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// Opaque bytes.
        payload: Vec<u8>,
    },
    /// Command 16: Actor owner → Session owner, a relay it refused.
    Refused {
        /// The refused operation.
        operation_id: OperationId,
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// Why.
        reason: SessionRefusal,
    },
    /// Command 42 sessionRelocationSeal: source → Session owner.
    Seal {
        /// The session.
        session: SessionRef,
        /// The Actor relocating.
        actor: ObjectKey,
        /// The binding sealed.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// The relocation.
        relocation: RelocationId,
        /// The source coordinator, to reply to.
        source: NodeRef,
    },
    /// Command 43: Session owner → source, the seal installed (or not).
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
    /// Command 44 sessionRelocationRoute: one-way, no reply.
    Route {
        /// The session.
        session: SessionRef,
        /// The Actor.
        actor: ObjectKey,
        /// The binding.
        binding: Binding,
        /// The Actor's incarnation.
        object_generation: ObjectGeneration,
        /// The relocation.
        relocation: RelocationId,
        /// Commit or abort.
        change: RouteChange,
    },
}

impl SessionFrame {
    /// The frame's command number.
    pub fn command(&self) -> u8 {
        match self {
            SessionFrame::Bind { .. } => 10,
            SessionFrame::BindReply { .. } => 11,
            SessionFrame::Tombstone { .. } => 12,
            SessionFrame::TombstoneAck { .. } => 13,
            SessionFrame::Relay { .. } => 14,
            SessionFrame::Push { .. } => 15,
            SessionFrame::Refused { .. } => 16,
            SessionFrame::Seal { .. } => 42,
            SessionFrame::Sealed { .. } => 43,
            SessionFrame::Route { .. } => 44,
        }
    }
}

impl Writer {
    fn session(&mut self, s: &SessionRef) {
        self.node(&s.owner);
        self.u64(s.id.get());
        self.u64(s.generation.get());
    }

    fn binding(&mut self, b: &Binding) {
        self.u64(b.generation.get());
        self.u64(b.token.get());
    }

    fn actor_route(&mut self, r: &ActorRoute) {
        self.node(&r.owner);
        self.u64(r.object_generation.get());
        self.u64(r.authority_owner_generation.get());
        self.u64(r.owner_lease_generation.get());
        self.u64(r.lease_remaining_ms);
    }

    pub(super) fn session_frame(&mut self, f: &SessionFrame) {
        match f {
            SessionFrame::Bind {
                operation_id,
                session,
                actor,
                route,
                previous,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.actor_route(route);
                match previous {
                    None => self.u8(0),
                    Some((owner, binding)) => {
                        self.u8(1);
                        self.node(owner);
                        self.binding(binding);
                    }
                }
            }
            SessionFrame::BindReply {
                operation_id,
                session,
                actor,
                result,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                match result {
                    BindResult::Bound { route, binding } => {
                        self.u8(0);
                        self.actor_route(route);
                        self.binding(binding);
                    }
                    BindResult::Refused(why) => self.u8(*why as u8),
                }
            }
            SessionFrame::Tombstone {
                operation_id,
                session,
                actor,
                binding,
                by,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.binding(binding);
                self.node(by);
            }
            SessionFrame::TombstoneAck {
                operation_id,
                session,
                actor,
                binding,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.binding(binding);
            }
            SessionFrame::Relay {
                operation_id,
                session,
                actor,
                binding,
                route,
                sequence,
                hop_count,
                relayer,
                kind,
                payload,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.binding(binding);
                self.actor_route(route);
                self.u64(*sequence);
                self.u8(*hop_count);
                self.relayer(relayer);
                self.u8(*kind as u8);
                self.payload(payload);
            }
            SessionFrame::Push {
                operation_id,
                session,
                actor,
                binding,
                object_generation,
                payload,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.binding(binding);
                self.u64(object_generation.get());
                self.payload(payload);
            }
            SessionFrame::Refused {
                operation_id,
                session,
                actor,
                reason,
            } => {
                self.u64(operation_id.get());
                self.session(session);
                self.key(actor);
                self.u8(*reason as u8);
            }
            SessionFrame::Seal {
                session,
                actor,
                binding,
                object_generation,
                relocation,
                source,
            } => {
                self.session(session);
                self.key(actor);
                self.binding(binding);
                self.u64(object_generation.get());
                self.u64(relocation.get());
                self.node(source);
            }
            SessionFrame::Sealed {
                session,
                actor,
                relocation,
                sealed,
            } => {
                self.session(session);
                self.key(actor);
                self.u64(relocation.get());
                self.u8(u8::from(*sealed));
            }
            SessionFrame::Route {
                session,
                actor,
                binding,
                object_generation,
                relocation,
                change,
            } => {
                self.session(session);
                self.key(actor);
                self.binding(binding);
                self.u64(object_generation.get());
                self.u64(relocation.get());
                match change {
                    RouteChange::Commit(route) => {
                        self.u8(1);
                        self.actor_route(route);
                    }
                    RouteChange::Abort => self.u8(2),
                    RouteChange::Refresh(route) => {
                        self.u8(3);
                        self.actor_route(route);
                    }
                }
            }
        }
    }
}

impl Reader<'_> {
    fn session(&mut self) -> Result<SessionRef, WireError> {
        Ok(SessionRef {
            owner: self.node()?,
            id: SessionId(self.u64("session id")?),
            generation: SessionGeneration(self.u64("session generation")?),
        })
    }

    fn binding(&mut self) -> Result<Binding, WireError> {
        Ok(Binding {
            generation: BindingGeneration(self.u64("binding generation")?),
            token: BindingToken(self.u64("binding token")?),
        })
    }

    fn actor_route(&mut self) -> Result<ActorRoute, WireError> {
        Ok(ActorRoute {
            owner: self.node()?,
            object_generation: ObjectGeneration(self.u64("object generation")?),
            authority_owner_generation: AuthorityOwnerGeneration(
                self.u64("authority owner generation")?,
            ),
            owner_lease_generation: OwnerLeaseGeneration(self.u64("owner lease generation")?),
            lease_remaining_ms: self.u64("lease remaining")?,
        })
    }

    fn operation_id(&mut self) -> Result<OperationId, WireError> {
        Ok(OperationId(self.u64("operation id")?))
    }

    fn flag(&mut self, field: &'static str) -> Result<bool, WireError> {
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(invalid(field, format!("{other} is neither 0 nor 1"))),
        }
    }

    /// Decodes the body of session command `command`.
    pub(super) fn session_frame(&mut self, command: u8) -> Result<SessionFrame, WireError> {
        Ok(match command {
            10 => SessionFrame::Bind {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                route: self.actor_route()?,
                previous: if self.flag("previous binding presence")? {
                    Some((self.node()?, self.binding()?))
                } else {
                    None
                },
            },
            11 => SessionFrame::BindReply {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                result: match self.u8("bind result")? {
                    0 => BindResult::Bound {
                        route: self.actor_route()?,
                        binding: self.binding()?,
                    },
                    1 => BindResult::Refused(BindRefusal::NotOwner),
                    2 => BindResult::Refused(BindRefusal::ObjectGeneration),
                    3 => BindResult::Refused(BindRefusal::NodeGeneration),
                    4 => BindResult::Refused(BindRefusal::OwnerGeneration),
                    5 => BindResult::Refused(BindRefusal::OwnerLease),
                    6 => BindResult::Refused(BindRefusal::Timeout),
                    other => return Err(invalid("bind result", format!("{other} is not defined"))),
                },
            },
            12 => SessionFrame::Tombstone {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                binding: self.binding()?,
                by: self.node()?,
            },
            13 => SessionFrame::TombstoneAck {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                binding: self.binding()?,
            },
            14 => {
                let operation_id = self.operation_id()?;
                let session = self.session()?;
                let actor = self.key()?;
                let binding = self.binding()?;
                let route = self.actor_route()?;
                let sequence = self.u64("session sequence")?;
                let hop_count = self.u8("hop count")?;
                let relayer = self.relayer(hop_count)?;
                let kind = match self.u8("relay kind")? {
                    1 => RelayKind::Message,
                    2 => RelayKind::PhysicalDisconnect,
                    3 => RelayKind::LogicalDisconnect,
                    other => return Err(invalid("relay kind", format!("{other} is not defined"))),
                };
                SessionFrame::Relay {
                    operation_id,
                    session,
                    actor,
                    binding,
                    route,
                    sequence,
                    hop_count,
                    relayer,
                    kind,
                    payload: self.payload()?,
                }
            }
            15 => SessionFrame::Push {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                binding: self.binding()?,
                object_generation: ObjectGeneration(self.u64("object generation")?),
                payload: self.payload()?,
            },
            16 => SessionFrame::Refused {
                operation_id: self.operation_id()?,
                session: self.session()?,
                actor: self.key()?,
                reason: match self.u8("session refusal")? {
                    1 => SessionRefusal::UnknownBinding,
                    2 => SessionRefusal::StaleRoute,
                    3 => SessionRefusal::ObjectGeneration,
                    other => {
                        return Err(invalid(
                            "session refusal",
                            format!("{other} is not defined"),
                        ));
                    }
                },
            },
            42 => SessionFrame::Seal {
                session: self.session()?,
                actor: self.key()?,
                binding: self.binding()?,
                object_generation: ObjectGeneration(self.u64("object generation")?),
                relocation: RelocationId(self.u64("relocation id")?),
                source: self.node()?,
            },
            43 => SessionFrame::Sealed {
                session: self.session()?,
                actor: self.key()?,
                relocation: RelocationId(self.u64("relocation id")?),
                sealed: self.flag("sealed")?,
            },
            44 => SessionFrame::Route {
                session: self.session()?,
                actor: self.key()?,
                binding: self.binding()?,
                object_generation: ObjectGeneration(self.u64("object generation")?),
                relocation: RelocationId(self.u64("relocation id")?),
                change: match self.u8("route change")? {
                    1 => RouteChange::Commit(self.actor_route()?),
                    2 => RouteChange::Abort,
                    3 => RouteChange::Refresh(self.actor_route()?),
                    other => {
                        return Err(invalid(
                            "route change",
                            format!("{other} is not 1 (commit), 2 (abort) or 3 (refresh)"),
                        ));
                    }
                },
            },
            other => return Err(WireError::UnknownCommand(other)),
        })
    }
}
