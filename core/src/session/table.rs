//! The Session owner's binding table (§3.1): per Session, per bound Actor,
//! one verified binding route; the seals and held messages of Actors being
//! relocated (§3.3); and the deadlines of seals and binds.

use std::collections::HashMap;

use crate::clock::MonoTime;
use crate::ids::{ObjectKey, OperationId, RelocationId, SessionId};
use crate::timer::Deadlines;

use super::SessionError;
use crate::wire::{ActorRoute, Binding, RelayKind, SessionRef};

/// A message held while its Actor's binding is sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Held {
    pub(crate) operation_id: OperationId,
    pub(crate) sequence: u64,
    pub(crate) kind: RelayKind,
    pub(crate) payload: Vec<u8>,
}

/// A seal installed by command 42.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seal {
    pub(crate) relocation: RelocationId,
    pub(crate) since: MonoTime,
    pub(crate) held: Vec<Held>,
}

/// One bound Actor, as the Session owner stores it (§3.1 table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingRoute {
    /// The Actor (ActorId) and, in `route`, its ObjectGeneration, owner
    /// MeshName/NodeRid/NodeGeneration, AuthorityOwnerGeneration and
    /// OwnerLeaseGeneration.
    pub actor: ObjectKey,
    /// The verified route.
    pub route: ActorRoute,
    /// The binding generation and token the owner issued.
    pub binding: Binding,
    /// The Session (owner RID and lifecycle generation, session id).
    pub session: SessionRef,
    /// Past this local instant the route is not used (the owner lease's
    /// local admission deadline; a store outage never extends it).
    pub admission_deadline: MonoTime,
    pub(crate) seal: Option<Seal>,
}

/// A bind waiting for its terminal reply.
#[derive(Debug, Clone)]
pub(crate) struct PendingBind {
    pub(crate) actor: ObjectKey,
    /// The binding this bind replaces, as the frame named it.
    pub(crate) previous: Option<Binding>,
    /// The node the bind went to: only it answers.
    pub(crate) to: crate::ids::NodeRid,
    pub(crate) sent: MonoTime,
}

#[derive(Debug)]
pub(crate) struct SessionState {
    pub(crate) session: SessionRef,
    pub(crate) next_sequence: u64,
    pub(crate) bindings: HashMap<ObjectKey, BindingRoute>,
    pub(crate) pending_binds: HashMap<OperationId, PendingBind>,
    /// Disconnected (with this kind of notice) while an Actor was sealed:
    /// no new sends; the Session goes once the last seal is released (its
    /// held messages and disconnect notification delivered) or times out.
    pub(crate) closing: Option<RelayKind>,
}

/// What a Session owner's deadline is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SessionTimer {
    /// A seal of this Session may pass the seal timeout (§3.3 step 8).
    Seal(SessionId),
    /// This bind may pass `session_bind_timeout` without its terminal reply.
    Bind(SessionId, OperationId),
}

/// The Sessions and their deadlines, under one lock.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    pub(crate) map: HashMap<SessionId, SessionState>,
    timers: Deadlines<SessionTimer>,
}

impl Sessions {
    /// Wakes `timer` at `at`.
    pub(crate) fn schedule(&mut self, at: MonoTime, timer: SessionTimer) {
        self.timers.schedule(at, timer);
        let map = &self.map;
        self.timers.shed(|t| waits(map, t));
    }

    /// The earliest deadline of a seal or bind still waiting.
    pub(crate) fn next_deadline(&mut self) -> Option<MonoTime> {
        let map = &self.map;
        self.timers.next_live(|t| waits(map, t))
    }

    /// An open Session that still takes new work: not unknown, not closing.
    pub(crate) fn open_mut(&mut self, id: SessionId) -> Result<&mut SessionState, SessionError> {
        let state = self
            .map
            .get_mut(&id)
            .ok_or(SessionError::UnknownSession(id))?;
        if state.closing.is_some() {
            return Err(SessionError::Closing(id));
        }
        Ok(state)
    }

    /// One deadline due at `now`.
    pub(crate) fn pop_due(&mut self, now: MonoTime) -> Option<SessionTimer> {
        self.timers.pop_due(now)
    }

    /// Sessions, pending binds and deadline entries held.
    pub(crate) fn sizes(&self) -> (usize, usize, usize) {
        let binds = self.map.values().map(|s| s.pending_binds.len()).sum();
        (self.map.len(), binds, self.timers.len())
    }
}

impl SessionState {
    /// Whether one of its Actors is sealed for a relocation.
    pub(crate) fn sealed(&self) -> bool {
        self.bindings.values().any(|b| b.seal.is_some())
    }

    /// When its oldest seal passes `timeout`, if it holds one.
    pub(crate) fn seal_deadline(&self, timeout: std::time::Duration) -> Option<MonoTime> {
        self.bindings
            .values()
            .filter_map(|b| b.seal.as_ref())
            .map(|seal| seal.since.after(timeout))
            .min()
    }
}

/// Whether the seal or bind `timer` wakes for still waits.
fn waits(map: &HashMap<SessionId, SessionState>, timer: &SessionTimer) -> bool {
    match timer {
        SessionTimer::Seal(id) => map.get(id).is_some_and(SessionState::sealed),
        SessionTimer::Bind(id, op) => map
            .get(id)
            .is_some_and(|s| s.pending_binds.contains_key(op)),
    }
}
