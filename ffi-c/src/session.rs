//! Sessions (spec §3): the Session owner's side (open, bind, relay on the
//! stored route, disconnect, seal timeouts) and the Actor owner's side
//! (push, lease refreshes). A relocation's commands 42 and 44 and the
//! bindings it carries to the target are the runtime's own part of the
//! handoff (`zlink_begin_relocation`). Session frames are carried by the
//! host like every other frame; what arrives comes back from
//! `zlink_on_frame` as `SEND`, `SESSION_DELIVER` or Session-event decisions
//! (`BOUND`, `BIND_REFUSED`, `PUSHED`, `RELAY_REFUSED`, `SEALED`,
//! `SESSION_CLOSED`, `IGNORED`).

use zlink_bridge::SessionSent;
use zlink_bridge::args::missing;
use zlink_bridge::codes::{SessionSentTag, UnavailableReason};
use zlink_bridge::core::BindingRoute;
use zlink_bridge::core::wire::{ActorRoute, Binding, SessionRef};

use crate::frames::{zlink_outbound, zlink_outbound_list};
use crate::runtime::{runtime_in, zlink_runtime};
use crate::types::*;

/// A Session as the wire names it: its owner runtime, id and lifecycle
/// generation. Plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_session_ref {
    /// The runtime that owns the Session.
    pub owner: zlink_node,
    /// The session id.
    pub id: u64,
    /// Its lifecycle generation (a reconnected session is a new one).
    pub generation: u64,
}

/// Where an Actor's owner is and the fences that must still hold: the
/// location an ActorRef names (for `zlink_bind`) or a verified binding
/// route. Plain data. Fill it from `zlink_owner_route_end` on the owner:
/// `owner = end.node`, the three generations from `end.fence`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_actor_route {
    /// The owner node (mesh, RID, node generation).
    pub owner: zlink_node,
    /// The Actor's incarnation.
    pub object_generation: u64,
    /// The owner generation.
    pub authority_owner_generation: u64,
    /// The owner lease.
    pub owner_lease_generation: u64,
    /// Lease time left at the owner when it answered (ms); ignored by
    /// `zlink_bind`.
    pub lease_remaining_ms: u64,
}

/// A binding's identity, issued by the Actor owner.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_binding {
    /// Its generation.
    pub generation: u64,
    /// Its token.
    pub token: u64,
}

/// One bound Actor as the Session owner stores it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_binding_route {
    /// The verified route.
    pub route: zlink_actor_route,
    /// The binding the owner issued.
    pub binding: zlink_binding,
    /// The Session.
    pub session: zlink_session_ref,
    /// Past this instant (ns, runtime clock) the route is not used.
    pub admission_deadline_ns: u64,
}

/// The result of `zlink_session_send`. Free `outbound.bytes`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_session_sent {
    /// Which result.
    pub tag: SessionSentTag,
    /// The operation (Sent, Held).
    pub operation_id: u64,
    /// Its place in the Session's order (Sent, Held).
    pub sequence: u64,
    /// The frame and its destination (Sent; empty otherwise).
    pub outbound: zlink_outbound,
    /// Why (Unavailable).
    pub reason: UnavailableReason,
}

c_struct! {
    zlink_session_ref = SessionRef { owner id generation }
    zlink_actor_route = ActorRoute { owner object_generation authority_owner_generation
        owner_lease_generation lease_remaining_ms }
    zlink_binding = Binding { generation token }
}

impl From<&BindingRoute> for zlink_binding_route {
    fn from(b: &BindingRoute) -> Self {
        zlink_binding_route {
            route: (&b.route).into(),
            binding: (&b.binding).into(),
            session: (&b.session).into(),
            admission_deadline_ns: b.admission_deadline.0,
        }
    }
}

impl From<SessionSent> for zlink_session_sent {
    fn from(s: SessionSent) -> Self {
        zlink_session_sent {
            tag: s.tag,
            operation_id: s.operation_id,
            sequence: s.sequence,
            outbound: s.outbound.map(Into::into).unwrap_or_default(),
            reason: s.reason,
        }
    }
}

// ---------------------------------------------------------------- Session owner

entry! {
    /// Opens a Session owned by this runtime; `*out` (if not NULL) receives how
    /// the wire names it. Opening an id again starts it afresh.
    ///
    /// # Safety
    /// `out` is NULL or writable.
    fn zlink_open_session(rt: *const zlink_runtime, session: u64, generation: u64)
        -> optional out: *mut zlink_session_ref {
        zlink_session_ref::from(&runtime_in(rt)?.open_session(session, generation)?)
    }

    /// Binds (or rebinds) `session` to the Actor `(kind, id)` at the location
    /// `actor_ref` names, without any lookup. `*out` receives the bind frame
    /// for the Actor owner; the route is stored when the terminal reply comes
    /// back (a `ZLINK_DECISION_BOUND` decision).
    /// `ZLINK_RESULT_UNKNOWN_SESSION`, or `ZLINK_RESULT_BINDING_SEALED` while
    /// the binding waits for its command 44.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes; `actor_ref` to an initialised struct;
    /// `out` is writable.
    fn zlink_bind(rt: *const zlink_runtime, session: u64, kind: u32, id: *const u8, id_len: usize,
        actor_ref: *const zlink_actor_route) -> out: *mut zlink_outbound {
        // SAFETY: the caller's contract on `actor_ref`.
        let (id, route) = (id_in!(id, id_len)?, unsafe { actor_ref.as_ref() });
        let route = route.ok_or_else(|| missing("actor_ref"))?.to_core()?;
        runtime_in(rt)?.bind(session, kind, id, route)?
    }

    /// The stored binding route of the Actor in `session`. On OK, `*found`
    /// says whether there is one; `*out` is written only when there is.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes; `out` and `found` are writable.
    fn zlink_binding_get(rt: *const zlink_runtime, session: u64, kind: u32, id: *const u8,
        id_len: usize) -> found(out: *mut zlink_binding_route, found: *mut bool) {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.binding(session, kind, id)?.as_ref().map(zlink_binding_route::from)
    }

    /// Relays `payload` from `session` to the bound Actor on the stored route:
    /// no lookup, stamped with the Session's next sequence. `SENT`: carry
    /// `out->outbound`; `HELD`: the Actor is relocating, the message leaves in
    /// order with its command 44; `UNAVAILABLE`: the route's admission deadline
    /// passed. Errors: `ZLINK_RESULT_UNKNOWN_SESSION`,
    /// `ZLINK_RESULT_SESSION_CLOSING`, `ZLINK_RESULT_NOT_BOUND`,
    /// `ZLINK_RESULT_TOO_LONG` (a payload over `max_message_bytes`).
    ///
    /// # Safety
    /// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
    /// allowed when 0); `out` is writable.
    fn zlink_session_send(rt: *const zlink_runtime, session: u64, kind: u32, id: *const u8,
        id_len: usize, payload: *const u8, payload_len: usize) -> out: *mut zlink_session_sent {
        let (id, payload) = (id_in!(id, id_len)?, bytes_in!(payload, payload_len, "payload")?);
        runtime_in(rt)?.session_send(session, kind, id, payload)?
    }

    /// The Session's connection closed (`physical`) or the application ended
    /// it: `*out` receives a disconnect notification for every bound Actor on
    /// its stored route (a sealed Actor's leaves with its command 44). The
    /// Session is then gone (or closing until its relocations settle).
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_disconnect_session(rt: *const zlink_runtime, session: u64, physical: bool)
        -> out: *mut zlink_outbound_list {
        runtime_in(rt)?.disconnect_session(session, physical)?
    }
}

// ---------------------------------------------------------------- Actor owner

entry! {
    /// Pushes `payload` from the local Actor to the bound Session `session` on
    /// its binding (no lookup). On OK, `*pushed` says whether such a binding is
    /// registered here (and the Actor owned); `*out` is written only then.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
    /// allowed when 0); `session` to an initialised struct; `out` and `pushed`
    /// are writable.
    fn zlink_push(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        session: *const zlink_session_ref, payload: *const u8, payload_len: usize)
        -> found(out: *mut zlink_outbound, pushed: *mut bool) {
        // SAFETY: the caller's contract on `session`.
        let (id, session) = (id_in!(id, id_len)?, unsafe { session.as_ref() });
        let payload = bytes_in!(payload, payload_len, "payload")?;
        let session = session.ok_or_else(|| missing("session"))?.to_core()?;
        runtime_in(rt)?.push(kind, id, &session, payload)?
    }
}

entry! {
    /// After `zlink_renew_lease`: a command 44 refresh (relocation id 0) to
    /// every bound Session, so their stored routes carry the lease time left.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes; `out` is writable.
    fn zlink_refresh_session_routes(rt: *const zlink_runtime, kind: u32, id: *const u8,
        id_len: usize) -> out: *mut zlink_outbound_list {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.refresh_session_routes(kind, id)?
    }

    /// Drops every binding of the Actor here (the Actor was removed: a new
    /// incarnation never inherits one). A relocation moves the bindings itself.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes.
    fn zlink_forget_bindings(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize) {
        runtime_in(rt)?.forget_bindings(kind, id_in!(id, id_len)?)
    }
}
