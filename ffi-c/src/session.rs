//! Sessions (spec §3): the Session owner's side (open, bind, relay on the
//! stored route, disconnect, seal timeouts) and the Actor owner's side
//! (push, lease refreshes). A relocation's commands 42 and 44 and the
//! bindings it carries to the target are the runtime's own part of the
//! handoff (`zlink_begin_relocation`). Session frames are carried by the
//! host like every other frame; what arrives comes back from
//! `zlink_on_frame` as `SEND`, `SESSION_DELIVER` or `SESSION` decisions.

use zlink_core::wire::{ActorRoute, BindRefusal, Binding, RelayKind, SessionRef, SessionRefusal};
use zlink_core::{
    ActorRef, AuthorityOwnerGeneration, BindingRoute, ObjectGeneration, ObjectKey,
    OwnerLeaseGeneration, SessionError, SessionGeneration, SessionId, SessionSend,
};

use crate::frames::{zlink_outbound, zlink_outbound_list};
use crate::runtime::{RuntimeEntry, runtime_in, zlink_runtime};
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

/// A Session as the wire names it: its owner runtime, id and lifecycle
/// generation. Plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_binding {
    /// Its generation.
    pub generation: u64,
    /// Its token.
    pub token: u64,
}

/// One bound Actor as the Session owner stores it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// What a session relay carries.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_relay_kind {
    /// Not a session relay.
    None = 0,
    /// An application message from the Session to the Actor.
    Message = 1,
    /// The Session's physical connection closed.
    PhysicalDisconnect = 2,
    /// The application ended the Session.
    LogicalDisconnect = 3,
}

/// Which Session-side event a `ZLINK_DECISION_KIND_SESSION` decision is.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_session_event {
    /// Not a session event.
    None = 0,
    /// A bind reached its terminal reply: `binding_route` is stored.
    Bound = 1,
    /// A bind was refused (`bind_refusal`); any previous route is kept.
    BindRefused = 2,
    /// The Actor pushed `payload` to the Session.
    Pushed = 3,
    /// A relay (`operation_id`) was refused (`session_refusal`): it ends.
    RelayRefused = 4,
    /// The relocation coordinator learns whether the Session sealed
    /// (`relocation`, `sealed`).
    Sealed = 5,
    /// A frame that does not match current state was ignored (`detail`).
    Ignored = 6,
    /// No command 44 came within the seal timeout: the Session is closed
    /// (`session`); its disconnect notifications follow as a `SEND`.
    Closed = 7,
}

/// Why an Actor owner refused a bind.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_bind_refusal {
    /// Not a bind refusal.
    None = 0,
    /// The node does not own the Actor (or it is not Ready).
    NotOwner = 1,
    /// Another incarnation than the ActorRef names.
    ObjectGeneration = 2,
    /// Another node lifecycle than the ActorRef names.
    NodeGeneration = 3,
    /// Another authority owner generation.
    OwnerGeneration = 4,
    /// Another owner lease, or it has run out.
    OwnerLease = 5,
    /// No terminal answer within `session_bind_timeout_ms`.
    Timeout = 6,
}

/// Why an Actor owner refused a session relay.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_session_refusal {
    /// Not a relay refusal.
    None = 0,
    /// No such binding there (never bound, tombstoned or replaced).
    UnknownBinding = 1,
    /// The route is stale and no Message Follow route serves it.
    StaleRoute = 2,
    /// Another incarnation than the binding's.
    ObjectGeneration = 3,
}

/// What became of a session relay on the Session owner.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_session_sent_tag {
    /// Carry `outbound` (on the stored route).
    Sent = 1,
    /// The Actor is relocating: held, sent in order when its command 44
    /// arrives (a `SEND` decision of `zlink_on_frame`).
    Held = 2,
    /// The stored route is past its admission deadline (`reason`): the
    /// operation ends; nothing was looked up.
    Unavailable = 3,
}

/// The result of `zlink_session_send`. Free `outbound.bytes`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_session_sent {
    /// Which result.
    pub tag: zlink_session_sent_tag,
    /// The operation (Sent, Held).
    pub operation_id: u64,
    /// Its place in the Session's order (Sent, Held).
    pub sequence: u64,
    /// The frame and its destination (Sent; empty otherwise).
    pub outbound: zlink_outbound,
    /// Why (Unavailable).
    pub reason: zlink_unavailable_reason,
}

// ---------------------------------------------------------------- conversions

impl From<&SessionRef> for zlink_session_ref {
    fn from(s: &SessionRef) -> Self {
        zlink_session_ref {
            owner: (&s.owner).into(),
            id: s.id.get(),
            generation: s.generation.get(),
        }
    }
}

impl zlink_session_ref {
    pub(crate) fn zeroed() -> Self {
        zlink_session_ref {
            owner: zlink_node::zeroed(),
            id: 0,
            generation: 0,
        }
    }

    fn to_core(self) -> FfiResult<SessionRef> {
        Ok(SessionRef {
            owner: self.owner.to_core()?,
            id: SessionId(self.id),
            generation: SessionGeneration(self.generation),
        })
    }
}

impl From<&ActorRoute> for zlink_actor_route {
    fn from(r: &ActorRoute) -> Self {
        zlink_actor_route {
            owner: (&r.owner).into(),
            object_generation: r.object_generation.get(),
            authority_owner_generation: r.authority_owner_generation.get(),
            owner_lease_generation: r.owner_lease_generation.get(),
            lease_remaining_ms: r.lease_remaining_ms,
        }
    }
}

impl zlink_actor_route {
    fn to_core(self) -> FfiResult<ActorRoute> {
        Ok(ActorRoute {
            owner: self.owner.to_core()?,
            object_generation: ObjectGeneration(self.object_generation),
            authority_owner_generation: AuthorityOwnerGeneration(self.authority_owner_generation),
            owner_lease_generation: OwnerLeaseGeneration(self.owner_lease_generation),
            lease_remaining_ms: self.lease_remaining_ms,
        })
    }
}

impl From<&Binding> for zlink_binding {
    fn from(b: &Binding) -> Self {
        zlink_binding {
            generation: b.generation.get(),
            token: b.token.get(),
        }
    }
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

impl zlink_binding_route {
    pub(crate) fn zeroed() -> Self {
        zlink_binding_route {
            route: zlink_actor_route {
                owner: zlink_node::zeroed(),
                object_generation: 0,
                authority_owner_generation: 0,
                owner_lease_generation: 0,
                lease_remaining_ms: 0,
            },
            binding: zlink_binding {
                generation: 0,
                token: 0,
            },
            session: zlink_session_ref::zeroed(),
            admission_deadline_ns: 0,
        }
    }
}

pub(crate) fn relay_kind_out(k: RelayKind) -> zlink_relay_kind {
    match k {
        RelayKind::Message => zlink_relay_kind::Message,
        RelayKind::PhysicalDisconnect => zlink_relay_kind::PhysicalDisconnect,
        RelayKind::LogicalDisconnect => zlink_relay_kind::LogicalDisconnect,
    }
}

pub(crate) fn bind_refusal_out(r: BindRefusal) -> zlink_bind_refusal {
    match r {
        BindRefusal::NotOwner => zlink_bind_refusal::NotOwner,
        BindRefusal::ObjectGeneration => zlink_bind_refusal::ObjectGeneration,
        BindRefusal::NodeGeneration => zlink_bind_refusal::NodeGeneration,
        BindRefusal::OwnerGeneration => zlink_bind_refusal::OwnerGeneration,
        BindRefusal::OwnerLease => zlink_bind_refusal::OwnerLease,
        BindRefusal::Timeout => zlink_bind_refusal::Timeout,
    }
}

pub(crate) fn session_refusal_out(r: SessionRefusal) -> zlink_session_refusal {
    match r {
        SessionRefusal::UnknownBinding => zlink_session_refusal::UnknownBinding,
        SessionRefusal::StaleRoute => zlink_session_refusal::StaleRoute,
        SessionRefusal::ObjectGeneration => zlink_session_refusal::ObjectGeneration,
    }
}

fn session_fail(e: SessionError) -> Fail {
    let code = match &e {
        SessionError::UnknownSession(_) => zlink_result::UnknownSession,
        SessionError::Closing(_) => zlink_result::SessionClosing,
        SessionError::Sealed { .. } => zlink_result::BindingSealed,
        SessionError::NotBound { .. } => zlink_result::NotBound,
        SessionError::PayloadTooLarge { .. } => zlink_result::TooLong,
    };
    Fail::new(code, e.to_string())
}

/// # Safety
/// `id` points to `id_len` readable bytes (the callers' contract).
unsafe fn actor_in(
    rt: &RuntimeEntry,
    kind: u32,
    id: *const u8,
    id_len: usize,
) -> FfiResult<ObjectKey> {
    // SAFETY: forwarded caller contract.
    let id = unsafe { id_in(id, id_len) }?;
    let key = rt.core.key(kind_in(kind)?, id).map_err(input_fail)?;
    ObjectKey::new(key.kind, key.id).map_err(input_fail)
}

/// # Safety
/// `out` was checked non-NULL and is writable.
unsafe fn write<T>(out: *mut T, value: T) {
    // SAFETY: the caller checked `out` and C passes writable storage.
    unsafe { out.write(value) }
}

/// Runs an Actor-side call that yields frames into `*out`.
///
/// # Safety
/// `id` points to `id_len` bytes; `out` is writable; `error` NULL or writable.
unsafe fn frames_call(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_outbound_list,
    error: *mut *mut zlink_error,
    f: impl FnOnce(&RuntimeEntry, &ObjectKey) -> Vec<zlink_core::Outbound>,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: forwarded caller contract.
        let actor = unsafe { actor_in(&rt, kind, id, id_len) }?;
        let frames = f(&rt, &actor);
        // SAFETY: checked above.
        unsafe { write(out, zlink_outbound_list::from_core(frames)) };
        Ok(())
    })
}

// ---------------------------------------------------------------- Session owner

/// Opens a Session owned by this runtime; `*out` (if not NULL) receives how
/// the wire names it. Opening an id again starts it afresh.
///
/// # Safety
/// `out` is NULL or writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_open_session(
    rt: *const zlink_runtime,
    session: u64,
    generation: u64,
    out: *mut zlink_session_ref,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        let s = rt
            .core
            .open_session(SessionId(session), SessionGeneration(generation));
        if !out.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { write(out, (&s).into()) };
        }
        Ok(())
    })
}

/// Binds (or rebinds) `session` to the Actor `(kind, id)` at the location
/// `actor_ref` names, without any lookup. `*out` receives the bind frame
/// for the Actor owner; the route is stored when the terminal reply comes
/// back (a `ZLINK_SESSION_EVENT_BOUND` decision).
/// `ZLINK_RESULT_UNKNOWN_SESSION`, or `ZLINK_RESULT_BINDING_SEALED` while
/// the binding waits for its command 44.
///
/// # Safety
/// `id` points to `id_len` bytes; `actor_ref` to an initialised struct;
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_bind(
    rt: *const zlink_runtime,
    session: u64,
    kind: u32,
    id: *const u8,
    id_len: usize,
    actor_ref: *const zlink_actor_route,
    out: *mut zlink_outbound,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id`.
        let actor = unsafe { actor_in(&rt, kind, id, id_len) }?;
        // SAFETY: NULL or initialised (the caller's contract).
        let route = unsafe { actor_ref.as_ref() }.ok_or_else(|| null("actor_ref"))?;
        let actor_ref = ActorRef {
            actor,
            route: route.to_core()?,
        };
        let frame = rt
            .core
            .bind(SessionId(session), &actor_ref)
            .map_err(session_fail)?;
        // SAFETY: checked above.
        unsafe { write(out, zlink_outbound::from_core(frame)) };
        Ok(())
    })
}

/// The stored binding route of the Actor in `session`. On OK, `*found`
/// says whether there is one; `*out` is written only when there is.
///
/// # Safety
/// `id` points to `id_len` bytes; `out` and `found` are writable; `error`
/// is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_binding_get(
    rt: *const zlink_runtime,
    session: u64,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_binding_route,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id`.
        let actor = unsafe { actor_in(&rt, kind, id, id_len) }?;
        let b = rt.core.binding(SessionId(session), &actor);
        if let Some(b) = &b {
            // SAFETY: checked above.
            unsafe { write(out, b.into()) };
        }
        // SAFETY: checked above.
        unsafe { write(found, b.is_some()) };
        Ok(())
    })
}

/// Relays `payload` from `session` to the bound Actor on the stored route:
/// no lookup, stamped with the Session's next sequence. `SENT`: carry
/// `out->outbound`; `HELD`: the Actor is relocating, the message leaves in
/// order with its command 44; `UNAVAILABLE`: the route's admission deadline
/// passed. Errors: `ZLINK_RESULT_UNKNOWN_SESSION`,
/// `ZLINK_RESULT_SESSION_CLOSING`, `ZLINK_RESULT_NOT_BOUND`.
///
/// # Safety
/// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
/// allowed when 0); `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_session_send(
    rt: *const zlink_runtime,
    session: u64,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    out: *mut zlink_session_sent,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id` and `payload`.
        let (actor, payload) = unsafe {
            (
                actor_in(&rt, kind, id, id_len)?,
                bytes_in(
                    payload,
                    payload_len,
                    rt.core.config().max_message_bytes,
                    "payload",
                )?,
            )
        };
        let sent = rt
            .core
            .session_send(SessionId(session), &actor, payload)
            .map_err(session_fail)?;
        let mut result = zlink_session_sent {
            tag: zlink_session_sent_tag::Unavailable,
            operation_id: 0,
            sequence: 0,
            outbound: zlink_outbound::empty(),
            reason: zlink_unavailable_reason::None,
        };
        match sent {
            SessionSend::Sent {
                operation_id,
                sequence,
                outbound,
            } => {
                result.tag = zlink_session_sent_tag::Sent;
                result.operation_id = operation_id.get();
                result.sequence = sequence;
                result.outbound = zlink_outbound::from_core(outbound);
            }
            SessionSend::Held {
                operation_id,
                sequence,
            } => {
                result.tag = zlink_session_sent_tag::Held;
                result.operation_id = operation_id.get();
                result.sequence = sequence;
            }
            SessionSend::Unavailable(r) => result.reason = reason_out(r),
        }
        // SAFETY: checked above.
        unsafe { write(out, result) };
        Ok(())
    })
}

/// The Session's connection closed (`physical`) or the application ended
/// it: `*out` receives a disconnect notification for every bound Actor on
/// its stored route (a sealed Actor's leaves with its command 44). The
/// Session is then gone (or closing until its relocations settle).
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_disconnect_session(
    rt: *const zlink_runtime,
    session: u64,
    physical: bool,
    out: *mut zlink_outbound_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        let frames = rt
            .core
            .disconnect_session(SessionId(session), physical)
            .map_err(session_fail)?;
        // SAFETY: checked above.
        unsafe { write(out, zlink_outbound_list::from_core(frames)) };
        Ok(())
    })
}

// ---------------------------------------------------------------- Actor owner

/// Pushes `payload` from the local Actor to the bound Session `session` on
/// its binding (no lookup). On OK, `*pushed` says whether such a binding is
/// registered here (and the Actor owned); `*out` is written only then.
///
/// # Safety
/// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
/// allowed when 0); `session` to an initialised struct; `out` and `pushed`
/// are writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_push(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    session: *const zlink_session_ref,
    payload: *const u8,
    payload_len: usize,
    out: *mut zlink_outbound,
    pushed: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let pushed = out_ptr(pushed, "pushed")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id` and `payload`.
        let (actor, payload) = unsafe {
            (
                actor_in(&rt, kind, id, id_len)?,
                bytes_in(
                    payload,
                    payload_len,
                    rt.core.config().max_message_bytes,
                    "payload",
                )?,
            )
        };
        // SAFETY: NULL or initialised (the caller's contract).
        let session = unsafe { session.as_ref() }
            .ok_or_else(|| null("session"))?
            .to_core()?;
        let frame = rt
            .core
            .push(&actor, &session, payload)
            .map_err(input_fail)?;
        let done = frame.is_some();
        if let Some(frame) = frame {
            // SAFETY: checked above.
            unsafe { write(out, zlink_outbound::from_core(frame)) };
        }
        // SAFETY: checked above.
        unsafe { write(pushed, done) };
        Ok(())
    })
}

/// After `zlink_renew_lease`: a command 44 refresh (relocation id 0) to
/// every bound Session, so their stored routes carry the lease time left.
///
/// # Safety
/// `id` points to `id_len` bytes; `out` is writable; `error` is NULL or
/// writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_refresh_session_routes(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_outbound_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe {
        frames_call(rt, kind, id, id_len, out, error, |rt, a| {
            rt.core.refresh_session_routes(a)
        })
    }
}

/// Drops every binding of the Actor here (the Actor was removed: a new
/// incarnation never inherits one). A relocation moves the bindings itself.
///
/// # Safety
/// `id` points to `id_len` bytes; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_forget_bindings(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id`.
        let actor = unsafe { actor_in(&rt, kind, id, id_len) }?;
        rt.core.forget_bindings(&actor);
        Ok(())
    })
}
