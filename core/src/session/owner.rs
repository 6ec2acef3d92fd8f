//! The Session owner's binding table (§3.1): per Session, per bound Actor,
//! one verified binding route; the seals and held messages of Actors being
//! relocated (§3.3).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use crate::clock::MonoTime;
use crate::ids::{ObjectKey, OperationId, RelocationId, SessionId};
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
    pub(crate) sent: MonoTime,
}

#[derive(Debug)]
pub(crate) struct SessionState {
    pub(crate) session: SessionRef,
    pub(crate) next_sequence: u64,
    pub(crate) bindings: HashMap<ObjectKey, BindingRoute>,
    pub(crate) pending_binds: HashMap<OperationId, PendingBind>,
    /// Disconnected while an Actor was sealed: no new sends; the Session
    /// goes once the last seal is released (its held messages and
    /// disconnect notification delivered) or times out.
    pub(crate) closing: bool,
}

/// Every Session this runtime owns.
#[derive(Debug, Default)]
pub(crate) struct SessionTable {
    sessions: Mutex<HashMap<SessionId, SessionState>>,
}

impl SessionTable {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<SessionId, SessionState>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn open(&self, session: SessionRef) {
        self.lock().insert(
            session.id,
            SessionState {
                session,
                next_sequence: 1,
                bindings: HashMap::new(),
                pending_binds: HashMap::new(),
                closing: false,
            },
        );
    }
}
