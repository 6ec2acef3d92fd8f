//! Encoding and strict decoding of the session frames (commands 10–16 and
//! 42/43/44), in the layout `docs/wire.md` gives.

use super::WireError;
use super::codec::{Reader, Writer, invalid};
use super::session::*;
use crate::ids::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, ObjectGeneration, OperationId,
    OwnerLeaseGeneration, RelocationId, SessionGeneration, SessionId,
};

impl Writer {
    pub(super) fn session(&mut self, s: &SessionRef) {
        self.node(&s.owner);
        self.u64(s.id.get());
        self.u64(s.generation.get());
    }

    pub(super) fn binding(&mut self, b: &Binding) {
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
    pub(super) fn session(&mut self) -> Result<SessionRef, WireError> {
        Ok(SessionRef {
            owner: self.node()?,
            id: SessionId(self.u64("session id")?),
            generation: SessionGeneration(self.u64("session generation")?),
        })
    }

    pub(super) fn binding(&mut self) -> Result<Binding, WireError> {
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
