//! Frames: outbound operations (send, request, reply) become a destination
//! and bytes; inbound bytes become a decision (DESIGN §3). The host moves
//! the bytes. The decisions are the bridge's flat `Decision`, copied.

use std::ptr::{addr_of, addr_of_mut};
use std::time::Duration;

use zlink_bridge::args::{Arg, missing};
use zlink_bridge::codes::{
    AbortReason, BindRefusal, DecisionKind, Failure, LostReason, Outcome, RelayKind,
    RelocationEvent, RelocationRefusal, ReplyErrorKind, SentTag, SessionEvent, SessionRefusal,
    StoreError, UnavailableReason,
};
use zlink_bridge::{Attached, Decision, Sent};
use zlink_core::{Outbound, RequestOptions, SendOptions};

use crate::FfiResult;
use crate::runtime::{runtime_in, zlink_runtime};
use crate::session::{zlink_binding_route, zlink_session_ref};
use crate::types::*;

/// Bytes the library allocated: `len` bytes at `data` (NULL when empty and
/// freed). Free with `zlink_bytes_free`, which also zeroes the struct, so a
/// second free is harmless.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_bytes {
    /// The bytes.
    pub data: *mut u8,
    /// How many.
    pub len: usize,
}

impl Default for zlink_bytes {
    fn default() -> Self {
        zlink_bytes {
            data: std::ptr::null_mut(),
            len: 0,
        }
    }
}

impl From<Vec<u8>> for zlink_bytes {
    fn from(v: Vec<u8>) -> Self {
        let len = v.len();
        let data = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
        zlink_bytes { data, len }
    }
}

impl From<String> for zlink_bytes {
    fn from(s: String) -> Self {
        s.into_bytes().into()
    }
}

impl zlink_bytes {
    /// # Safety
    /// `self` is empty or came from `From<Vec<u8>>` and was not freed.
    pub(crate) unsafe fn release(&mut self) {
        if !self.data.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.data, self.len);
            // SAFETY: made by `Box::into_raw` of a boxed slice of `len`
            // bytes in `From<Vec<u8>>`, released once (zeroed below).
            drop(unsafe { Box::from_raw(slice) });
        }
        *self = zlink_bytes::default();
    }
}

exported! {
    /// Frees bytes the library allocated and zeroes `*bytes`. NULL, or bytes
    /// already freed, are a no-op.
    ///
    /// # Safety
    /// `bytes` is NULL or points to a `zlink_bytes` this library filled in (or
    /// one it zeroed), not copied elsewhere and freed there.
    ///
    /// Thread-safety: any thread; the bytes are not shared state.
    fn zlink_bytes_free(bytes: *mut zlink_bytes) {
        if !bytes.is_null() {
            // SAFETY: a library-filled struct (the caller's contract).
            unsafe { (*bytes).release() };
        }
    }
}

/// Bytes to carry to a node.
#[repr(C)]
#[derive(Debug, Default)]
pub struct zlink_outbound {
    /// The node they go to.
    pub to: zlink_node,
    /// One encoded frame; free with `zlink_bytes_free`.
    pub bytes: zlink_bytes,
}

impl From<Outbound> for zlink_outbound {
    fn from(o: Outbound) -> Self {
        zlink_outbound {
            to: (&o.to).into(),
            bytes: o.bytes.into(),
        }
    }
}

/// Frames to carry, each to its node: `count` entries at `items` (NULL
/// when empty or freed). Free with `zlink_outbound_list_free`, which frees
/// every frame's bytes and zeroes the struct, so a second free is harmless.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_outbound_list {
    /// The frames.
    pub items: *mut zlink_outbound,
    /// How many.
    pub count: usize,
}

/// A library-allocated array of `T` (NULL and 0 when empty).
pub(crate) fn array<T>(items: Vec<T>) -> (*mut T, usize) {
    if items.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let count = items.len();
    (Box::into_raw(items.into_boxed_slice()).cast::<T>(), count)
}

/// Frees an array from `array`, each item with `release`, and zeroes the
/// fields that held it.
///
/// # Safety
/// `items`/`count` point to the fields of a library-filled struct, NULL/0
/// or from `array` and not yet freed.
pub(crate) unsafe fn release_array<T>(
    items: *mut *mut T,
    count: *mut usize,
    release: impl Fn(*mut T),
) {
    // SAFETY: the fields are readable and writable (the caller's contract);
    // the array came from `Box::into_raw` of `count` items, released once.
    unsafe {
        let (p, n) = (items.read(), count.read());
        if !p.is_null() {
            let mut boxed = Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n));
            boxed.iter_mut().for_each(|item| release(item));
        }
        items.write(std::ptr::null_mut());
        count.write(0);
    }
}

list! {
    zlink_outbound_list of zlink_outbound, release_outbound,
    /// Frees every frame of a list and zeroes `*list`. NULL, or a list already
    /// freed, is a no-op.
    ///
    /// # Safety
    /// `list` is NULL or points to a list this library filled in (or zeroed),
    /// not copied elsewhere and freed there.
    ///
    /// Thread-safety: any thread; the list is not shared state.
    fn zlink_outbound_list_free
}

/// # Safety
/// `f` is a library-filled frame, not yet freed.
unsafe fn release_outbound(f: *mut zlink_outbound) {
    // SAFETY: its bytes came from `From<Vec<u8>>` (the caller's contract).
    unsafe { (*f).bytes.release() };
}

/// Options of a direct send or request. Pass NULL for the defaults
/// (no instance intent, 5000 ms deadline, 5000 ms request timeout).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zlink_send_options {
    /// A Spot call that may cold-activate a Missing Instance Spot.
    pub instance_intent: bool,
    /// How long the call may retry the store, in ms (> 0).
    pub deadline_ms: u64,
    /// Requests only: the request times out this long after it is sent (> 0).
    pub timeout_ms: u64,
}

/// The result of `zlink_send` / `zlink_request`. Free `outbound.bytes`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_sent {
    /// Which result.
    pub tag: SentTag,
    /// The operation's identity (Submitted).
    pub operation_id: u64,
    /// Requests: the correlation its completion will carry (Submitted).
    pub correlation: u64,
    /// The frame and its destination (Submitted; empty otherwise).
    pub outbound: zlink_outbound,
    /// Why (Unavailable).
    pub reason: UnavailableReason,
    /// Why (StoreFailure).
    pub store_error: StoreError,
}

impl From<Sent> for zlink_sent {
    fn from(s: Sent) -> Self {
        zlink_sent {
            tag: s.tag,
            operation_id: s.operation_id,
            correlation: s.correlation.unwrap_or(0),
            outbound: s.outbound.map(Into::into).unwrap_or_default(),
            reason: s.reason,
            store_error: s.store_error,
        }
    }
}

/// The Spot execution that starts a request (spec §4.2): its completion
/// carries it back (`has_origin`, `origin_*`), and says `origin_gone` when
/// that Spot was re-created since.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zlink_spot_execution {
    /// The Spot's global ID, `id_len` UTF-8 bytes.
    pub id: *const u8,
    /// Its length.
    pub id_len: usize,
    /// The Spot's incarnation (its `zlink_owned.fence.object_generation`).
    pub object_generation: u64,
}

/// Sends a one-way message (`origin` None) or a request.
///
/// # Safety
/// As `zlink_request_from`.
#[allow(clippy::too_many_arguments)]
unsafe fn send(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    options: *const zlink_send_options,
    origin: Option<*const zlink_spot_execution>,
) -> FfiResult<Sent> {
    let (id, payload) = (
        id_in!(id, id_len)?,
        bytes_in!(payload, payload_len, "payload")?,
    );
    let mut opts = RequestOptions::default();
    // SAFETY: NULL or initialised (the caller's contract).
    if let Some(o) = unsafe { options.as_ref() } {
        opts.send = SendOptions {
            instance_intent: o.instance_intent,
            deadline: Duration::from_millis(o.deadline_ms),
        };
        opts.timeout = Duration::from_millis(o.timeout_ms);
    }
    let rt = runtime_in(rt)?;
    let Some(origin) = origin else {
        return rt.send(kind, id, payload, opts.send);
    };
    // SAFETY: NULL or initialised, its `id` pointing to `id_len` bytes (the
    // caller's contract).
    if let Some(o) = unsafe { origin.as_ref() } {
        let spot = id_in!(o.id, o.id_len)?;
        opts.origin = Some(zlink_bridge::runtime::spot_execution(
            spot,
            o.object_generation,
        )?);
    }
    rt.request(kind, id, payload, opts)
}

entry! {
    /// Sends a one-way message to a Spot/Actor by global ID: resolves its owner
    /// (cache, then store, retried within the deadline) and encodes the frame.
    ///
    /// # Safety
    /// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
    /// allowed when 0); `options` is NULL or initialised; `out` is writable.
    fn zlink_send(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        payload: *const u8, payload_len: usize, options: *const zlink_send_options)
        -> out: *mut zlink_sent {
        // SAFETY: forwarded caller contract.
        unsafe { send(rt, kind, id, id_len, payload, payload_len, options, None) }?
    }

    /// Sends a request: like `zlink_send`, and once Submitted it is pending
    /// until exactly one terminal result, which arrives as a
    /// `ZLINK_DECISION_KIND_COMPLETED` decision carrying `out->correlation`
    /// (or from `zlink_cancel`).
    ///
    /// # Safety
    /// As `zlink_send`.
    fn zlink_request(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        payload: *const u8, payload_len: usize, options: *const zlink_send_options)
        -> out: *mut zlink_sent {
        let no_origin = Some(std::ptr::null());
        // SAFETY: forwarded caller contract.
        unsafe { send(rt, kind, id, id_len, payload, payload_len, options, no_origin) }?
    }

    /// `zlink_request` on behalf of a Spot execution `origin` (NULL: none).
    ///
    /// # Safety
    /// As `zlink_request`; `origin` is NULL or initialised, its `id` pointing
    /// to `id_len` bytes.
    fn zlink_request_from(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        payload: *const u8, payload_len: usize, options: *const zlink_send_options,
        origin: *const zlink_spot_execution) -> out: *mut zlink_sent {
        // SAFETY: forwarded caller contract.
        unsafe { send(rt, kind, id, id_len, payload, payload_len, options, Some(origin)) }?
    }
}

/// Library-private state of a decision (what the host hands back: the
/// delivered operation, the notification token, a relocation's work).
pub struct zlink_decision_private {
    kind: DecisionKind,
    attached: Attached,
}

/// A decision about one inbound frame; `kind` says which fields mean
/// something. Free with `zlink_decision_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_decision {
    /// What to do.
    pub kind: DecisionKind,
    /// Deliver / SessionDeliver / Ended / Completed: the operation.
    pub operation_id: u64,
    /// The operation's target kind (a `zlink_object_kind` value), 0 if none;
    /// Relocation: the kind of the object moved.
    pub target_kind: u32,
    /// The target's global ID (UTF-8, not NUL-terminated); Relocation: the
    /// ID of the object moved.
    pub target_id: zlink_bytes,
    /// Deliver / SessionDeliver: the application bytes; Completed: the
    /// reply; `ZLINK_RELOCATION_EVENT_RESTORE`: the application state the
    /// source captured, to build the object from.
    pub payload: zlink_bytes,
    /// Deliver: the incarnation that processes it; Relocation: the
    /// incarnation being moved.
    pub object_generation: u64,
    /// Deliver: the operation is a request (answer it with `zlink_reply`).
    pub is_request: bool,
    /// Frames to carry (Relay, Reject, Send, Relocation).
    pub frames: *mut zlink_outbound,
    /// How many.
    pub frame_count: usize,
    /// Relay: `frames[1]` is a command 50 notification for the sender;
    /// report whether it went with `zlink_notice_settled`.
    pub has_notice: bool,
    /// Ended / Completed(Error): how.
    pub failure: Failure,
    /// With `ZLINK_FAILURE_UNAVAILABLE`: why.
    pub reason: UnavailableReason,
    /// Completed / Late: the request's correlation.
    pub correlation: u64,
    /// Completed: the terminal result.
    pub outcome: Outcome,
    /// Completed: the Spot that started it was re-created since.
    pub origin_gone: bool,
    /// RouteRefreshed: a cached route was dropped.
    pub invalidated: bool,
    /// `ZLINK_FAILURE_REPLIED`: the application error code.
    pub error_code: u32,
    /// Dropped: why; `ZLINK_FAILURE_REPLIED`: the error message (UTF-8);
    /// `ZLINK_SESSION_EVENT_IGNORED`: why.
    pub detail: zlink_bytes,
    /// `ZLINK_FAILURE_REPLIED`: what failed on the target.
    pub error_kind: ReplyErrorKind,
    /// Completed: a Spot execution started the request (`origin_*`).
    pub has_origin: bool,
    /// Completed with `has_origin`: the Spot's global ID (UTF-8).
    pub origin_id: zlink_bytes,
    /// Completed with `has_origin`: the Spot's incarnation then.
    pub origin_object_generation: u64,
    /// SessionDeliver / Session: the Session (target_* is the Actor).
    pub session: zlink_session_ref,
    /// SessionDeliver: its place in the Session's order.
    pub sequence: u64,
    /// SessionDeliver: message or disconnect.
    pub relay_kind: RelayKind,
    /// Session: which event.
    pub session_event: SessionEvent,
    /// `ZLINK_SESSION_EVENT_BOUND`: the stored route.
    pub binding_route: zlink_binding_route,
    /// `ZLINK_SESSION_EVENT_BIND_REFUSED`: why.
    pub bind_refusal: BindRefusal,
    /// `ZLINK_SESSION_EVENT_RELAY_REFUSED`: why (`operation_id` ends).
    pub session_refusal: SessionRefusal,
    /// `ZLINK_SESSION_EVENT_SEALED` / Relocation: the relocation.
    pub relocation: u64,
    /// `ZLINK_SESSION_EVENT_SEALED`: whether the seal was installed.
    pub sealed: bool,
    /// Relocation: which step.
    pub relocation_event: RelocationEvent,
    /// Relocation: the other runtime of the move (its mesh is this
    /// runtime's): the source for `RESTORE` and `COMMITTED`, the target for
    /// `HANDED_OFF`; zeroed for the other events.
    pub peer: zlink_node,
    /// `ZLINK_RELOCATION_EVENT_ABORTING` / `ABORTED` / `FAILED`: why.
    pub abort_reason: AbortReason,
    /// `ZLINK_RELOCATION_EVENT_IGNORED`: why the control frame changed
    /// nothing.
    pub relocation_refusal: RelocationRefusal,
    /// `ZLINK_RELOCATION_EVENT_CUTOVER`: operations relayed from the
    /// source's ingress hold to the target.
    pub relayed: u64,
    /// Relocation: how many operations to put on the object's queue, in
    /// order (`COMMITTED` on the target, `ABORTED` on the source): the
    /// first `DELIVER` decisions of `zlink_relocation_deliveries`.
    pub delivery_count: usize,
    /// Relocation: how many session relays held while the Actor moved to
    /// hand to it, in order: the `SESSION_DELIVER` decisions that follow
    /// the operations in `zlink_relocation_deliveries`.
    pub session_delivery_count: usize,
    /// `ZLINK_DECISION_KIND_OWNERSHIP_LOST`: what the store holds instead
    /// (`target_*` is the object this node no longer owns).
    pub lost_reason: LostReason,
    /// Library-private; do not touch.
    pub private_: *mut zlink_decision_private,
}

/// A `zlink_decision` whose fields in `[...]` are `d`'s of the same name.
macro_rules! zlink_decision {
    ($d:ident [$($same:ident)*] { $($rest:tt)* }) => {
        zlink_decision { $($same: $d.$same,)* $($rest)* }
    };
}

impl From<zlink_bridge::core::Inbound> for zlink_decision {
    fn from(d: zlink_bridge::core::Inbound) -> Self {
        Decision::from(d).into()
    }
}

impl From<Decision> for zlink_decision {
    fn from(d: Decision) -> Self {
        let (target_kind, target_id) = d
            .target_parts()
            .map_or((0, zlink_bytes::default()), |(k, id)| {
                (k as u32, id.to_owned().into())
            });
        let (frames, frame_count) = array(d.frames.into_iter().map(Into::into).collect());
        // Decisions a host hands back keep what rides along.
        let private_ = match d.kind {
            DecisionKind::Deliver | DecisionKind::Relay | DecisionKind::Relocation => {
                let private = zlink_decision_private {
                    kind: d.kind,
                    attached: d.attached.clone(),
                };
                Box::into_raw(Box::new(private))
            }
            _ => std::ptr::null_mut(),
        };
        let origin = d.origin.as_ref();
        let origin_id = origin.map(|o| o.spot.id().to_owned().into());
        // The fields of the same name and plain value, then the others.
        zlink_decision! { d [kind operation_id object_generation is_request has_notice failure
            reason correlation outcome origin_gone invalidated error_code error_kind sequence
            relay_kind session_event bind_refusal session_refusal relocation sealed
            relocation_event abort_reason relocation_refusal relayed lost_reason] {
            target_kind,
            target_id,
            payload: d.payload.into(),
            frames,
            frame_count,
            detail: d.detail.into(),
            has_origin: origin.is_some(),
            origin_id: origin_id.unwrap_or_default(),
            origin_object_generation: origin.map_or(0, |o| o.object_generation.get()),
            session: d.session.as_ref().map(Into::into).unwrap_or_default(),
            binding_route: d.binding_route.as_ref().map(Into::into).unwrap_or_default(),
            peer: d.peer.as_ref().map(Into::into).unwrap_or_default(),
            delivery_count: d.attached.deliver.len(),
            session_delivery_count: d.attached.session.len(),
            private_,
        }}
    }
}

entry! {
    /// Decides what to do with one inbound frame of `len` bytes that arrived on
    /// the host's connection to node `from` (its routing ID). Reads local state
    /// only: never the store, never blocks. An undecodable frame is not an
    /// error: it is a `ZLINK_DECISION_KIND_DROPPED` decision; a frame whose
    /// sender is not `from` is a `ZLINK_DECISION_KIND_FOREIGN_SENDER` one.
    ///
    /// # Safety
    /// `bytes` points to `len` readable bytes (NULL allowed when 0); `out` is
    /// writable.
    fn zlink_on_frame(rt: *const zlink_runtime, from: u64, bytes: *const u8, len: usize)
        -> out: *mut zlink_decision {
        let bytes = bytes_in!(bytes, len, "frame")?;
        runtime_in(rt)?.on_frame(from, bytes)?
    }
}

exported! {
    /// Frees everything a decision holds and zeroes its pointers; a second
    /// free is a no-op. NULL is a no-op.
    ///
    /// # Safety
    /// `decision` is NULL or a decision this library filled in.
    ///
    /// Thread-safety: any thread; the decision is not shared state.
    fn zlink_decision_free(decision: *mut zlink_decision) {
        if decision.is_null() {
            return;
        }
        // Fields are reached one by one through the pointer, so that no enum
        // field the caller may have overwritten is ever read.
        // SAFETY: `decision` is a library-filled decision (the caller's
        // contract); each owned field is released once and then zeroed.
        unsafe {
            (*decision).target_id.release();
            (*decision).payload.release();
            (*decision).detail.release();
            (*decision).origin_id.release();
            let (frames, count) = (&raw mut (*decision).frames, &raw mut (*decision).frame_count);
            release_array(frames, count, |f| release_outbound(f));
            let private = addr_of_mut!((*decision).private_).read();
            if !private.is_null() {
                drop(Box::from_raw(private));
            }
            addr_of_mut!((*decision).private_).write(std::ptr::null_mut());
        }
    }
}

/// What a decision carries for the host to hand back, if it is of `kind`.
///
/// # Safety
/// `decision` is NULL or a library-filled decision not yet freed.
pub(crate) unsafe fn attached<'a>(
    decision: *const zlink_decision,
    kind: DecisionKind,
) -> FfiResult<Option<&'a Attached>> {
    if decision.is_null() {
        return Err(missing("decision"));
    }
    // SAFETY: a library-filled decision (the caller's contract); only the
    // private pointer is read, NULL or the box `From<Decision>` made, alive
    // until the decision is freed.
    let private = unsafe { addr_of!((*decision).private_).read().as_ref() };
    Ok(private.filter(|p| p.kind == kind).map(|p| &p.attached))
}

entry! {
    /// Reports whether the command 50 notification of a Relay decision
    /// (`has_notice`) was sent, so the relayer's dedup registry can let a later
    /// relay try again after a failure.
    ///
    /// # Safety
    /// `decision` is a decision this library filled in, not yet freed.
    fn zlink_notice_settled(rt: *const zlink_runtime, decision: *const zlink_decision, sent: bool) {
        // SAFETY: the caller's contract on `decision`.
        let attached = unsafe { attached(decision, DecisionKind::Relay) }?;
        let token = attached.and_then(|a| a.notice.as_ref());
        runtime_in(rt)?.notice_settled(token, sent)
    }
}

/// Longest message of an error reply, in bytes.
pub const ZLINK_MAX_ERROR_MESSAGE_BYTES: usize = 4096;

const _: () = assert!(ZLINK_MAX_ERROR_MESSAGE_BYTES == zlink_core::wire::MAX_ERROR_MESSAGE_BYTES);

entry! {
    /// Answers a delivered request (a Deliver decision with `is_request`) with
    /// `payload`, on the request's reply route: no lookup of the requester.
    /// `*out` receives the reply frame and its destination.
    ///
    /// # Safety
    /// `delivered` is a decision this library filled in, not yet freed;
    /// `payload` points to `payload_len` bytes (NULL allowed when 0); `out` is
    /// writable.
    fn zlink_reply(rt: *const zlink_runtime, delivered: *const zlink_decision, payload: *const u8,
        payload_len: usize) -> out: *mut zlink_outbound {
        // SAFETY: the caller's contract on `delivered`.
        let attached = unsafe { attached(delivered, DecisionKind::Deliver) }?;
        let payload = bytes_in!(payload, payload_len, "payload")?;
        let op = attached.and_then(|a| a.operation.as_ref());
        runtime_in(rt)?.reply(op, Some(payload), None::<(_, _, &str)>)?
    }

    /// Answers a delivered request with a structured error instead of a
    /// payload: `kind` (a `zlink_reply_error_kind`, not NONE), an application
    /// `code` and a UTF-8 `message` of at most `ZLINK_MAX_ERROR_MESSAGE_BYTES`
    /// (NULL allowed when 0). The requester completes with
    /// `ZLINK_OUTCOME_ERROR` / `ZLINK_FAILURE_REPLIED` carrying them.
    ///
    /// # Safety
    /// As `zlink_reply`, with `message` pointing to `message_len` bytes.
    fn zlink_reply_error(rt: *const zlink_runtime, delivered: *const zlink_decision, kind: u32,
        code: u32, message: *const u8, message_len: usize) -> out: *mut zlink_outbound {
        // SAFETY: the caller's contract on `delivered`.
        let attached = unsafe { attached(delivered, DecisionKind::Deliver) }?;
        let message = bytes_in!(message, message_len, "error message")?;
        let op = attached.and_then(|a| a.operation.as_ref());
        runtime_in(rt)?.reply(op, None, Some((kind.get()?, code, message)))?
    }
}

/// Decisions the library allocated: `count` at `items` (NULL when empty or
/// freed). Free with `zlink_decision_list_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_decision_list {
    /// The decisions.
    pub items: *mut zlink_decision,
    /// How many.
    pub count: usize,
}

list! {
    zlink_decision_list of zlink_decision, zlink_decision_free,
    /// Frees every decision of a list and zeroes `*list`. NULL, or a list
    /// already freed, is a no-op.
    ///
    /// # Safety
    /// `list` is NULL or a list this library filled in (or zeroed).
    ///
    /// Thread-safety: any thread; the list is not shared state.
    fn zlink_decision_list_free
}

entry! {
    /// Cancels a pending request. `*cancelled` (if not NULL) is true when this
    /// was its terminal result, false when it had already ended (counted late).
    ///
    /// # Safety
    /// `cancelled` is NULL or writable.
    fn zlink_cancel(rt: *const zlink_runtime, correlation: u64) -> optional cancelled: *mut bool {
        runtime_in(rt)?.cancel(correlation)?.is_some()
    }

    /// The runtime's clock now, in nanoseconds since its origin: the `now_ns`
    /// to give `zlink_on_timeout`.
    ///
    /// # Safety
    /// `out_ns` is writable.
    fn zlink_now(rt: *const zlink_runtime) -> out_ns: *mut u64 {
        runtime_in(rt)?.now()?
    }

    /// The earliest instant (runtime clock, nanoseconds) any of the runtime's
    /// machines needs waking at: a request deadline, a seal or bind timeout, a
    /// follow-route expiry, a relocation's timeout or commit. `*out_has` is
    /// false when nothing waits. Sleep until then (or the next frame or call)
    /// and call `zlink_on_timeout`.
    ///
    /// # Safety
    /// `out_ns` and `out_has` are writable.
    fn zlink_next_deadline(rt: *const zlink_runtime, out_ns: *mut u64, out_has: *mut bool) {
        let (out_ns, out_has) = (Out::new(out_ns, "out_ns")?, Out::new(out_has, "out_has")?);
        let next = runtime_in(rt)?.next_deadline()?;
        out_ns.put(next.unwrap_or(0));
        out_has.put(next.is_some());
        Ok(())
    }

    /// Runs every deadline due at `now_ns` (from `zlink_now`): `*out` receives
    /// the decisions, in the form `zlink_on_frame` uses: `COMPLETED`
    /// (`ZLINK_OUTCOME_TIMEOUT`) per request past its deadline, `SESSION`
    /// `CLOSED` per Session closed by the seal timeout followed by a `SEND` of
    /// its disconnect notifications, `SESSION` `BIND_REFUSED` (`TIMEOUT`) per
    /// bind past `session_bind_timeout_ms`, a `SEND` of the refusals an
    /// Actor owner gives parked rebinds, and a `RELOCATION` decision per
    /// relocation step due: on a source that heard no relay-ready `ABORTING`
    /// (`ZLINK_ABORT_REASON_TIMEOUT`, the target is told), and if the target
    /// does not confirm either, `ABORTED` once the store is fenced (the work
    /// to run again in `zlink_relocation_deliveries`); on a source that heard
    /// no commit `FAILED`; on a target whose host did not restore `ABORTED`;
    /// on a target 1000 ms after relay-ready the owner CAS (`COMMITTED`,
    /// `COMMIT_RETRY` or `FAILED`). Calling it early does nothing.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_on_timeout(rt: *const zlink_runtime, now_ns: u64) -> out: *mut zlink_decision_list {
        runtime_in(rt)?.on_timeout(Some(now_ns))?
    }

    /// Ends every pending request with `ZLINK_OUTCOME_SHUTDOWN` (the host is
    /// stopping): `*out` receives one `COMPLETED` decision per request.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_shutdown_requests(rt: *const zlink_runtime) -> out: *mut zlink_decision_list {
        runtime_in(rt)?.shutdown_requests()?
    }
}
