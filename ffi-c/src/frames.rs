//! Frames: outbound operations (send, request, reply) become a destination
//! and bytes; inbound bytes become a decision (DESIGN §3). The host moves
//! the bytes.

use std::ptr::{addr_of, addr_of_mut};
use std::time::Duration;

use zlink_core::wire::{Operation, ReplyError, ReplyErrorKind, ReplyResult};
use zlink_core::{
    Completion, CorrelationId, Delivery, Failure, Inbound, NodeRid, NoticeToken, ObjectGeneration,
    ObjectKey, ObjectKind, Outbound, Outcome, RequestError, RequestOptions, Requested, SendOptions,
    Sent, SessionDelivery, SessionEvent, SpotExecution,
};

use crate::relocation::{
    RelocationWork, relocation_decision, zlink_abort_reason, zlink_relocation_event,
    zlink_relocation_refusal,
};
use crate::runtime::{runtime_in, zlink_runtime};
use crate::session::*;
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

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

impl zlink_bytes {
    pub(crate) fn empty() -> Self {
        zlink_bytes {
            data: std::ptr::null_mut(),
            len: 0,
        }
    }

    pub(crate) fn from_vec(v: Vec<u8>) -> Self {
        let len = v.len();
        let data = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
        zlink_bytes { data, len }
    }

    /// # Safety
    /// `self` is empty or came from `from_vec` and was not freed.
    pub(crate) unsafe fn release(&mut self) {
        if !self.data.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(self.data, self.len);
            // SAFETY: made by `Box::into_raw` of a boxed slice of `len`
            // bytes in `from_vec`, released once (zeroed below).
            drop(unsafe { Box::from_raw(slice) });
        }
        *self = zlink_bytes::empty();
    }
}

/// Frees bytes the library allocated and zeroes `*bytes`. NULL, or bytes
/// already freed, are a no-op.
///
/// # Safety
/// `bytes` is NULL or points to a `zlink_bytes` this library filled in (or
/// one it zeroed), not copied elsewhere and freed there.
///
/// Thread-safety: any thread; the bytes are not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_bytes_free(bytes: *mut zlink_bytes) {
    // SAFETY: NULL or a library-filled struct (the caller's contract).
    if let Some(b) = unsafe { bytes.as_mut() } {
        // SAFETY: as above.
        unsafe { b.release() };
    }
}

/// Bytes to carry to a node.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_outbound {
    /// The node they go to.
    pub to: zlink_node,
    /// One encoded frame; free with `zlink_bytes_free`.
    pub bytes: zlink_bytes,
}

impl zlink_outbound {
    pub(crate) fn from_core(o: Outbound) -> Self {
        zlink_outbound {
            to: (&o.to).into(),
            bytes: zlink_bytes::from_vec(o.bytes),
        }
    }

    pub(crate) fn empty() -> Self {
        zlink_outbound {
            to: zlink_node::zeroed(),
            bytes: zlink_bytes::empty(),
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

impl zlink_outbound_list {
    pub(crate) fn from_core(frames: Vec<Outbound>) -> Self {
        let (items, count) = outbound_array(frames);
        zlink_outbound_list { items, count }
    }
}

pub(crate) fn outbound_array(frames: Vec<Outbound>) -> (*mut zlink_outbound, usize) {
    if frames.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let frames: Box<[zlink_outbound]> = frames.into_iter().map(zlink_outbound::from_core).collect();
    let count = frames.len();
    (Box::into_raw(frames).cast::<zlink_outbound>(), count)
}

/// # Safety
/// `items`/`count` are NULL/0 or came from `outbound_array`, not yet freed.
pub(crate) unsafe fn release_outbound_array(items: *mut zlink_outbound, count: usize) {
    if !items.is_null() {
        // SAFETY: made by `Box::into_raw` of a boxed slice of `count` frames
        // in `outbound_array`, released once.
        let mut boxed = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(items, count)) };
        for f in boxed.iter_mut() {
            // SAFETY: each frame's bytes came from `zlink_bytes::from_vec`.
            unsafe { f.bytes.release() };
        }
    }
}

/// Frees every frame of a list and zeroes `*list`. NULL, or a list already
/// freed, is a no-op.
///
/// # Safety
/// `list` is NULL or points to a list this library filled in (or zeroed),
/// not copied elsewhere and freed there.
///
/// Thread-safety: any thread; the list is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_outbound_list_free(list: *mut zlink_outbound_list) {
    // SAFETY: NULL or a library-filled list (the caller's contract); fields
    // are reached by raw pointer and zeroed after release.
    unsafe {
        if list.is_null() {
            return;
        }
        let items = addr_of_mut!((*list).items).read();
        let count = addr_of_mut!((*list).count).read();
        release_outbound_array(items, count);
        addr_of_mut!((*list).items).write(std::ptr::null_mut());
        addr_of_mut!((*list).count).write(0);
    }
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

/// What became of a send or request.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_sent_tag {
    /// On its way: carry `outbound.bytes` to `outbound.to`.
    Submitted = 1,
    /// The object does not exist; nothing was sent. Terminal.
    NotFound = 2,
    /// Missing Spot with instance intent: cold-activate it, then send again.
    ColdActivation = 3,
    /// Authority exists but cannot be used (`reason`). Terminal.
    Unavailable = 4,
    /// The store could not be read in time (`store_error`).
    StoreFailure = 5,
}

/// The result of `zlink_send` / `zlink_request`. Free `outbound.bytes`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_sent {
    /// Which result.
    pub tag: zlink_sent_tag,
    /// The operation's identity (Submitted).
    pub operation_id: u64,
    /// Requests: the correlation its completion will carry (Submitted).
    pub correlation: u64,
    /// The frame and its destination (Submitted; empty otherwise).
    pub outbound: zlink_outbound,
    /// Why (Unavailable).
    pub reason: zlink_unavailable_reason,
    /// Why (StoreFailure).
    pub store_error: zlink_store_error,
}

impl zlink_sent {
    fn with_tag(tag: zlink_sent_tag) -> Self {
        zlink_sent {
            tag,
            operation_id: 0,
            correlation: 0,
            outbound: zlink_outbound::empty(),
            reason: zlink_unavailable_reason::None,
            store_error: zlink_store_error::None,
        }
    }
}

fn send_options(opts: *const zlink_send_options) -> FfiResult<(SendOptions, Duration)> {
    // SAFETY: NULL or initialised (the callers' contract).
    let Some(o) = (unsafe { opts.as_ref() }) else {
        return Ok((SendOptions::default(), RequestOptions::default().timeout));
    };
    Ok((
        SendOptions {
            instance_intent: o.instance_intent,
            deadline: Duration::from_millis(o.deadline_ms),
        },
        Duration::from_millis(o.timeout_ms),
    ))
}

/// Sends a one-way message to a Spot/Actor by global ID: resolves its owner
/// (cache, then store, retried within the deadline) and encodes the frame.
///
/// # Safety
/// `id` points to `id_len` bytes, `payload` to `payload_len` bytes (NULL
/// allowed when 0); `options` is NULL or initialised; `out` is writable;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_send(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    options: *const zlink_send_options,
    out: *mut zlink_sent,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id` and `payload`.
        let (id, payload) = unsafe { (id_in(id, id_len)?, payload_in(payload, payload_len)?) };
        let (opts, _) = send_options(options)?;
        let sent = rt
            .core
            .send(kind_in(kind)?, id, payload, opts)
            .map_err(input_fail)?;
        let result = match sent {
            Sent::Submitted {
                operation_id,
                outbound,
            } => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::Submitted);
                s.operation_id = operation_id.get();
                s.outbound = zlink_outbound::from_core(outbound);
                s
            }
            Sent::NotFound => zlink_sent::with_tag(zlink_sent_tag::NotFound),
            Sent::ColdActivation => zlink_sent::with_tag(zlink_sent_tag::ColdActivation),
            Sent::Unavailable(r) => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::Unavailable);
                s.reason = reason_out(r);
                s
            }
            Sent::StoreFailure(e) => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::StoreFailure);
                s.store_error = store_error_out(&e);
                s
            }
        };
        // SAFETY: checked above.
        unsafe { out.write(result) };
        Ok(())
    })
}

/// # Safety
/// As `bytes_in`.
unsafe fn payload_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a [u8]> {
    // SAFETY: forwarded; the runtime checks its own (smaller) bound.
    unsafe { bytes_in(ptr, len, zlink_core::MAX_MESSAGE_BYTES, "payload") }
}

/// Sends a request: like `zlink_send`, and once Submitted it is pending
/// until exactly one terminal result, which arrives as a
/// `ZLINK_DECISION_KIND_COMPLETED` decision carrying `out->correlation`
/// (or from `zlink_cancel`).
///
/// # Safety
/// As `zlink_send`.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_request(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    options: *const zlink_send_options,
    out: *mut zlink_sent,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe {
        request(
            rt,
            kind,
            id,
            id_len,
            payload,
            payload_len,
            options,
            std::ptr::null(),
            out,
            error,
        )
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

/// `zlink_request` on behalf of a Spot execution `origin` (NULL: none).
///
/// # Safety
/// As `zlink_request`; `origin` is NULL or initialised, its `id` pointing
/// to `id_len` bytes.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_request_from(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    options: *const zlink_send_options,
    origin: *const zlink_spot_execution,
    out: *mut zlink_sent,
    error: *mut *mut zlink_error,
) -> zlink_result {
    // SAFETY: forwarded caller contract.
    unsafe {
        request(
            rt,
            kind,
            id,
            id_len,
            payload,
            payload_len,
            options,
            origin,
            out,
            error,
        )
    }
}

/// # Safety
/// As `zlink_request_from`.
#[allow(clippy::too_many_arguments)]
unsafe fn request(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    payload: *const u8,
    payload_len: usize,
    options: *const zlink_send_options,
    origin: *const zlink_spot_execution,
    out: *mut zlink_sent,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `id` and `payload`.
        let (id, payload) = unsafe { (id_in(id, id_len)?, payload_in(payload, payload_len)?) };
        let (send, timeout) = send_options(options)?;
        // SAFETY: NULL or initialised (the caller's contract).
        let origin = match unsafe { origin.as_ref() } {
            None => None,
            Some(o) => {
                // SAFETY: `id_len` readable bytes (the caller's contract).
                let spot = unsafe { id_in(o.id, o.id_len) }?;
                Some(SpotExecution {
                    spot: ObjectKey::new(ObjectKind::Spot, spot).map_err(input_fail)?,
                    object_generation: ObjectGeneration(o.object_generation),
                })
            }
        };
        let opts = RequestOptions {
            send,
            timeout,
            origin,
        };
        let requested = rt
            .core
            .request(kind_in(kind)?, id, payload, opts)
            .map_err(input_fail)?;
        let result = match requested {
            Requested::Submitted {
                correlation,
                operation_id,
                outbound,
            } => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::Submitted);
                s.operation_id = operation_id.get();
                s.correlation = correlation.get();
                s.outbound = zlink_outbound::from_core(outbound);
                s
            }
            Requested::NotFound => zlink_sent::with_tag(zlink_sent_tag::NotFound),
            Requested::ColdActivation => zlink_sent::with_tag(zlink_sent_tag::ColdActivation),
            Requested::Unavailable(r) => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::Unavailable);
                s.reason = reason_out(r);
                s
            }
            Requested::StoreFailure(e) => {
                let mut s = zlink_sent::with_tag(zlink_sent_tag::StoreFailure);
                s.store_error = store_error_out(&e);
                s
            }
        };
        // SAFETY: checked above.
        unsafe { out.write(result) };
        Ok(())
    })
}

/// Cancels a pending request. `*cancelled` (if not NULL) is true when this
/// was its terminal result, false when it had already ended (counted late).
///
/// # Safety
/// `cancelled` is NULL or writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_cancel(
    rt: *const zlink_runtime,
    correlation: u64,
    cancelled: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        let done = rt.core.cancel(CorrelationId(correlation)).is_some();
        if !cancelled.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { cancelled.write(done) };
        }
        Ok(())
    })
}

/// What to do with an inbound frame.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_decision_kind {
    /// Put the operation (`operation_id`, `target_*`, `payload`) on the
    /// current Ready object's queue; answer requests with `zlink_reply`.
    Deliver = 1,
    /// Carry `frames[0]` to the new owner; when `has_notice`, send
    /// `frames[1]` (command 50) to the sender and report with
    /// `zlink_notice_settled`.
    Relay = 2,
    /// Carry the refusal `frames[0]` back to the operation's origin.
    Reject = 3,
    /// One of this runtime's one-way operations ended (`failure`, `reason`).
    Ended = 4,
    /// A request's one terminal result (`correlation`, `outcome`, ...).
    Completed = 5,
    /// A result after the terminal one (`correlation`): dropped, counted.
    Late = 6,
    /// A relay notification was applied (`invalidated`).
    RouteRefreshed = 7,
    /// Not a valid frame (`detail`): nothing acted on.
    Dropped = 8,
    /// Carry every frame of `frames` (session protocol answers).
    Send = 9,
    /// A session relay for a local Actor: put it on the Actor's queue
    /// (`operation_id`, `target_*`, `session`, `sequence`, `relay_kind`,
    /// `payload`).
    SessionDeliver = 10,
    /// A Session-side event: `session_event` says which, and which fields
    /// mean something.
    Session = 11,
    /// A frame on a manual peer connection failed its admission fence.
    PeerRefused = 12,
    /// A frame whose sender is not the node of the connection it came on
    /// (`detail`): refused and counted, nothing acted on.
    ForeignSender = 13,
    /// The operation (or session relay) is held for a relocation of its
    /// target (the source's ingress hold or the target's temporary queue):
    /// nothing to do now. It is delivered once, on the side that ends up
    /// owning the object (in a `RELOCATION` decision), or refused to its
    /// sender.
    Held = 14,
    /// A relocation step: `relocation_event` says which, and which fields
    /// mean something. Carry every frame of `frames`, then hand the object
    /// what `zlink_relocation_deliveries` returns, in order
    /// (`delivery_count` operations, then `session_delivery_count` session
    /// relays).
    Relocation = 15,
}

/// How an operation ended without delivery.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_failure {
    /// Not a failure.
    None = 0,
    /// The route or owner could not be used (`reason`).
    Unavailable = 1,
    /// A Message Follow route belonged to another incarnation or tenure.
    InvalidOperation = 2,
    /// Requests: the target replied with an error (`error_code`, `detail`).
    Replied = 3,
}

/// A request's terminal result.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_outcome {
    /// Not a completion.
    None = 0,
    /// The target's answer (`payload`).
    Reply = 1,
    /// An error reply or a route error (`failure`).
    Error = 2,
    /// The deadline passed first.
    Timeout = 3,
    /// Cancelled first.
    Cancelled = 4,
    /// The runtime shut down first.
    Shutdown = 5,
}

/// Library-private state of a decision (the delivered operation, the
/// notification token, a relocation's operations to deliver).
pub struct zlink_decision_private {
    pub(crate) operation: Option<Operation>,
    pub(crate) notice: Option<NoticeToken>,
    /// Relocation decisions only (`None` marks every other kind).
    pub(crate) relocation: Option<RelocationWork>,
}

/// A decision about one inbound frame; `kind` says which fields mean
/// something. Free with `zlink_decision_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_decision {
    /// What to do.
    pub kind: zlink_decision_kind,
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
    /// Relay: `frames[1]` is a command 50 notification for the sender.
    pub has_notice: bool,
    /// Ended / Completed(Error): how.
    pub failure: zlink_failure,
    /// With `ZLINK_FAILURE_UNAVAILABLE`: why.
    pub reason: zlink_unavailable_reason,
    /// Completed / Late: the request's correlation.
    pub correlation: u64,
    /// Completed: the terminal result.
    pub outcome: zlink_outcome,
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
    pub error_kind: zlink_reply_error_kind,
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
    pub relay_kind: zlink_relay_kind,
    /// Session: which event.
    pub session_event: zlink_session_event,
    /// `ZLINK_SESSION_EVENT_BOUND`: the stored route.
    pub binding_route: zlink_binding_route,
    /// `ZLINK_SESSION_EVENT_BIND_REFUSED`: why.
    pub bind_refusal: zlink_bind_refusal,
    /// `ZLINK_SESSION_EVENT_RELAY_REFUSED`: why (`operation_id` ends).
    pub session_refusal: zlink_session_refusal,
    /// `ZLINK_SESSION_EVENT_SEALED` / Relocation: the relocation.
    pub relocation: u64,
    /// `ZLINK_SESSION_EVENT_SEALED`: whether the seal was installed.
    pub sealed: bool,
    /// Relocation: which step.
    pub relocation_event: zlink_relocation_event,
    /// Relocation: the other runtime of the move (its mesh is this
    /// runtime's): the source for `RESTORE` and `COMMITTED`, the target for
    /// `HANDED_OFF`; zeroed for the other events.
    pub peer: zlink_node,
    /// `ZLINK_RELOCATION_EVENT_ABORTING` / `ABORTED` / `FAILED`: why.
    pub abort_reason: zlink_abort_reason,
    /// `ZLINK_RELOCATION_EVENT_IGNORED`: why the control frame changed
    /// nothing.
    pub relocation_refusal: zlink_relocation_refusal,
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
    /// Library-private; do not touch.
    pub private_: *mut zlink_decision_private,
}

fn kind_code(kind: ObjectKind) -> u32 {
    match kind {
        ObjectKind::Spot => zlink_object_kind::Spot as u32,
        ObjectKind::Actor => zlink_object_kind::Actor as u32,
    }
}

impl zlink_decision {
    pub(crate) fn new(kind: zlink_decision_kind) -> Self {
        zlink_decision {
            kind,
            operation_id: 0,
            target_kind: 0,
            target_id: zlink_bytes::empty(),
            payload: zlink_bytes::empty(),
            object_generation: 0,
            is_request: false,
            frames: std::ptr::null_mut(),
            frame_count: 0,
            has_notice: false,
            failure: zlink_failure::None,
            reason: zlink_unavailable_reason::None,
            correlation: 0,
            outcome: zlink_outcome::None,
            origin_gone: false,
            invalidated: false,
            error_code: 0,
            detail: zlink_bytes::empty(),
            error_kind: zlink_reply_error_kind::None,
            has_origin: false,
            origin_id: zlink_bytes::empty(),
            origin_object_generation: 0,
            session: zlink_session_ref::zeroed(),
            sequence: 0,
            relay_kind: zlink_relay_kind::None,
            session_event: zlink_session_event::None,
            binding_route: zlink_binding_route::zeroed(),
            bind_refusal: zlink_bind_refusal::None,
            session_refusal: zlink_session_refusal::None,
            relocation: 0,
            sealed: false,
            relocation_event: zlink_relocation_event::None,
            peer: zlink_node::zeroed(),
            abort_reason: zlink_abort_reason::None,
            relocation_refusal: zlink_relocation_refusal::None,
            relayed: 0,
            delivery_count: 0,
            session_delivery_count: 0,
            private_: std::ptr::null_mut(),
        }
    }

    pub(crate) fn target(&mut self, key: &ObjectKey) {
        self.target_kind = kind_code(key.kind());
        self.target_id = zlink_bytes::from_vec(key.id().as_bytes().to_vec());
    }

    pub(crate) fn frames(&mut self, frames: Vec<Outbound>) {
        (self.frames, self.frame_count) = outbound_array(frames);
    }

    pub(crate) fn private(
        &mut self,
        operation: Option<Operation>,
        notice: Option<NoticeToken>,
        relocation: Option<RelocationWork>,
    ) {
        self.private_ = Box::into_raw(Box::new(zlink_decision_private {
            operation,
            notice,
            relocation,
        }));
    }

    /// A `SESSION_DELIVER` decision.
    pub(crate) fn session_deliver(d: SessionDelivery) -> Self {
        let mut out = zlink_decision::new(zlink_decision_kind::SessionDeliver);
        out.operation_id = d.operation_id.get();
        out.target(&d.actor);
        out.session = (&d.session).into();
        out.sequence = d.sequence;
        out.relay_kind = relay_kind_out(d.kind);
        out.payload = zlink_bytes::from_vec(d.payload);
        out
    }

    /// A `DELIVER` decision: the operation is kept privately for
    /// `zlink_reply` and `zlink_begin_relocation`.
    pub(crate) fn deliver(d: Delivery) -> Self {
        let mut out = zlink_decision::new(zlink_decision_kind::Deliver);
        let op = d.operation;
        out.operation_id = op.operation_id.get();
        out.target(&op.target);
        out.payload = zlink_bytes::from_vec(op.payload.clone());
        out.object_generation = d.object_generation.get();
        out.is_request = op.reply_route.is_some();
        out.private(Some(op), None, None);
        out
    }

    fn completed(c: Completion) -> Self {
        let mut out = zlink_decision::new(zlink_decision_kind::Completed);
        out.operation_id = c.operation_id.get();
        if let Some(origin) = &c.origin {
            out.has_origin = true;
            out.origin_id = zlink_bytes::from_vec(origin.spot.id().as_bytes().to_vec());
            out.origin_object_generation = origin.object_generation.get();
        }
        out.correlation = c.correlation.get();
        out.origin_gone = c.origin_gone;
        out.target(&c.target);
        out.outcome = match c.outcome {
            Outcome::Reply(payload) => {
                out.payload = zlink_bytes::from_vec(payload);
                zlink_outcome::Reply
            }
            Outcome::Error(e) => {
                match e {
                    RequestError::Replied(r) => {
                        out.failure = zlink_failure::Replied;
                        out.error_code = r.code;
                        out.error_kind = match r.kind {
                            ReplyErrorKind::Handler => zlink_reply_error_kind::Handler,
                            ReplyErrorKind::Decode => zlink_reply_error_kind::Decode,
                        };
                        out.detail = zlink_bytes::from_vec(r.message.into_bytes());
                    }
                    RequestError::Unavailable(r) => {
                        out.failure = zlink_failure::Unavailable;
                        out.reason = reason_out(r);
                    }
                    RequestError::InvalidOperation => {
                        out.failure = zlink_failure::InvalidOperation;
                    }
                }
                zlink_outcome::Error
            }
            Outcome::Timeout => zlink_outcome::Timeout,
            Outcome::Cancelled => zlink_outcome::Cancelled,
            Outcome::Shutdown => zlink_outcome::Shutdown,
        };
        out
    }

    fn session(event: SessionEvent) -> Self {
        use zlink_session_event as E;
        let mut out = zlink_decision::new(zlink_decision_kind::Session);
        match event {
            SessionEvent::Bound {
                session,
                actor,
                route,
            } => {
                out.session_event = E::Bound;
                out.session = (&session).into();
                out.target(&actor);
                out.binding_route = route.as_ref().into();
            }
            SessionEvent::BindRefused {
                session,
                actor,
                reason,
            } => {
                out.session_event = E::BindRefused;
                out.session = (&session).into();
                out.target(&actor);
                out.bind_refusal = bind_refusal_out(reason);
            }
            SessionEvent::Pushed {
                session,
                actor,
                payload,
            } => {
                out.session_event = E::Pushed;
                out.session = (&session).into();
                out.target(&actor);
                out.payload = zlink_bytes::from_vec(payload);
            }
            SessionEvent::RelayRefused {
                operation_id,
                session,
                actor,
                reason,
            } => {
                out.session_event = E::RelayRefused;
                out.operation_id = operation_id.get();
                out.session = (&session).into();
                out.target(&actor);
                out.session_refusal = session_refusal_out(reason);
            }
            SessionEvent::Sealed {
                session,
                actor,
                relocation,
                sealed,
            } => {
                out.session_event = E::Sealed;
                out.session = (&session).into();
                out.target(&actor);
                out.relocation = relocation.get();
                out.sealed = sealed;
            }
            SessionEvent::Closed { session } => {
                out.session_event = E::Closed;
                out.session = (&session).into();
            }
            SessionEvent::Ignored(why) => {
                out.session_event = E::Ignored;
                out.detail = zlink_bytes::from_vec(why.as_bytes().to_vec());
            }
        }
        out
    }

    pub(crate) fn from_core(inbound: Inbound) -> Self {
        use zlink_decision_kind as K;
        match inbound {
            Inbound::Deliver(d) => zlink_decision::deliver(d),
            Inbound::Relay { forward, notice } => {
                let mut out = zlink_decision::new(K::Relay);
                let mut frames = vec![forward];
                let token = notice.map(|n| {
                    frames.push(n.outbound);
                    n.token
                });
                out.has_notice = token.is_some();
                out.frames(frames);
                out.private(None, token, None);
                out
            }
            Inbound::Reject(o) => {
                let mut out = zlink_decision::new(K::Reject);
                out.frames(vec![o]);
                out
            }
            Inbound::Ended(e) => {
                let mut out = zlink_decision::new(K::Ended);
                out.operation_id = e.operation_id.get();
                out.target(&e.target);
                match e.failure {
                    Failure::Unavailable(r) => {
                        out.failure = zlink_failure::Unavailable;
                        out.reason = reason_out(r);
                    }
                    Failure::InvalidOperation => out.failure = zlink_failure::InvalidOperation,
                }
                out
            }
            Inbound::Completed(c) => zlink_decision::completed(c),
            Inbound::Late { correlation } => {
                let mut out = zlink_decision::new(K::Late);
                out.correlation = correlation.get();
                out
            }
            Inbound::RouteRefreshed { invalidated } => {
                let mut out = zlink_decision::new(K::RouteRefreshed);
                out.invalidated = invalidated;
                out
            }
            Inbound::Dropped(e) => {
                let mut out = zlink_decision::new(K::Dropped);
                out.detail = zlink_bytes::from_vec(e.to_string().into_bytes());
                out
            }
            Inbound::Send(frames) => {
                let mut out = zlink_decision::new(K::Send);
                out.frames(frames);
                out
            }
            Inbound::SessionDeliver(d) => zlink_decision::session_deliver(d),
            Inbound::Session(e) => zlink_decision::session(e),
            Inbound::PeerRefused => zlink_decision::new(K::PeerRefused),
            Inbound::Held => zlink_decision::new(K::Held),
            Inbound::Relocation(action) => relocation_decision(action),
            Inbound::ForeignSender {
                connection,
                claimed,
            } => {
                let mut out = zlink_decision::new(K::ForeignSender);
                let claimed = claimed.map_or_else(|| "no sender".to_owned(), |c| c.to_string());
                let why = format!("frame on node {connection}'s connection names {claimed}");
                out.detail = zlink_bytes::from_vec(why.into_bytes());
                out
            }
        }
    }
}

/// Decides what to do with one inbound frame of `len` bytes that arrived on
/// the host's connection to node `from` (its routing ID). Reads local state
/// only: never the store, never blocks. An undecodable frame is not an
/// error: it is a `ZLINK_DECISION_KIND_DROPPED` decision; a frame whose
/// sender is not `from` is a `ZLINK_DECISION_KIND_FOREIGN_SENDER` one.
///
/// # Safety
/// `bytes` points to `len` readable bytes (NULL allowed when 0); `out` is
/// writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_frame(
    rt: *const zlink_runtime,
    from: u64,
    bytes: *const u8,
    len: usize,
    out: *mut zlink_decision,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `bytes`; frames are bounded by the
        // largest payload plus headers, longer ones are refused here.
        let bytes = unsafe {
            bytes_in(
                bytes,
                len,
                zlink_core::MAX_MESSAGE_BYTES + (1 << 20),
                "frame",
            )
        }?;
        let decision = zlink_decision::from_core(rt.core.on_frame(NodeRid(from), bytes));
        // SAFETY: checked above.
        unsafe { out.write(decision) };
        Ok(())
    })
}

/// Frees everything a decision holds and zeroes its pointers; a second
/// free is a no-op. NULL is a no-op.
///
/// # Safety
/// `decision` is NULL or a decision this library filled in.
///
/// Thread-safety: any thread; the decision is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_decision_free(decision: *mut zlink_decision) {
    if decision.is_null() {
        return;
    }
    // Fields are reached by raw pointer so that no enum field the caller
    // may have overwritten is ever read.
    // SAFETY: `decision` is a library-filled decision (the caller's
    // contract); each owned field is released once and then zeroed.
    unsafe {
        (*addr_of_mut!((*decision).target_id)).release();
        (*addr_of_mut!((*decision).payload)).release();
        (*addr_of_mut!((*decision).detail)).release();
        (*addr_of_mut!((*decision).origin_id)).release();
        let frames = addr_of_mut!((*decision).frames).read();
        let count = addr_of_mut!((*decision).frame_count).read();
        release_outbound_array(frames, count);
        addr_of_mut!((*decision).frames).write(std::ptr::null_mut());
        addr_of_mut!((*decision).frame_count).write(0);
        let private = addr_of_mut!((*decision).private_).read();
        if !private.is_null() {
            drop(Box::from_raw(private));
        }
        addr_of_mut!((*decision).private_).write(std::ptr::null_mut());
    }
}

/// # Safety
/// `decision` is NULL or a library-filled decision not yet freed.
pub(crate) unsafe fn private_of<'a>(
    decision: *const zlink_decision,
) -> FfiResult<&'a zlink_decision_private> {
    if decision.is_null() {
        return Err(null("decision"));
    }
    // SAFETY: a library-filled decision (the caller's contract); only the
    // private pointer is read.
    let private = unsafe { addr_of!((*decision).private_).read() };
    // SAFETY: NULL or the box `private` made, alive until the decision is freed.
    unsafe { private.as_ref() }.ok_or_else(|| {
        Fail::new(
            zlink_result::InvalidArgument,
            "the decision carries no operation or notification (or was freed)",
        )
    })
}

/// Reports whether the command 50 notification of a Relay decision
/// (`has_notice`) was sent, so the relayer's dedup registry can let a later
/// relay try again after a failure.
///
/// # Safety
/// `decision` is a decision this library filled in, not yet freed;
/// `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_notice_settled(
    rt: *const zlink_runtime,
    decision: *const zlink_decision,
    sent: bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: the caller's contract on `decision`.
        let private = unsafe { private_of(decision) }?;
        let token = private.notice.as_ref().ok_or_else(|| {
            Fail::new(
                zlink_result::InvalidArgument,
                "the decision has no notification",
            )
        })?;
        rt.core.notice_settled(token, sent);
        Ok(())
    })
}

/// What failed on the target, in an error reply.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_reply_error_kind {
    /// Not an error reply.
    None = 0,
    /// The application handler failed.
    Handler = 1,
    /// The application could not decode the request.
    Decode = 2,
}

/// Longest message of an error reply, in bytes.
pub const ZLINK_MAX_ERROR_MESSAGE_BYTES: usize = 4096;

const _: () = assert!(ZLINK_MAX_ERROR_MESSAGE_BYTES == zlink_core::wire::MAX_ERROR_MESSAGE_BYTES);

/// # Safety
/// `delivered` is a library-filled decision not yet freed; `out` checked.
unsafe fn reply_with(
    rt: *const zlink_runtime,
    delivered: *const zlink_decision,
    out: *mut zlink_outbound,
    result: impl FnOnce() -> FfiResult<ReplyResult>,
) -> FfiResult {
    let out = out_ptr(out, "out")?;
    let rt = runtime_in(rt)?;
    // SAFETY: the caller's contract on `delivered`.
    let private = unsafe { private_of(delivered) }?;
    let op = private.operation.as_ref().ok_or_else(|| {
        Fail::new(
            zlink_result::InvalidArgument,
            "the decision is not a delivered operation",
        )
    })?;
    let reply = rt.core.reply(op, result()?).map_err(|e| match e {
        zlink_core::ReplyRouteError::OneWay(_) => {
            Fail::new(zlink_result::NoReplyRoute, e.to_string())
        }
        zlink_core::ReplyRouteError::TooLarge { .. } => {
            Fail::new(zlink_result::TooLong, e.to_string())
        }
    })?;
    // SAFETY: checked above.
    unsafe { out.write(zlink_outbound::from_core(reply)) };
    Ok(())
}

/// Answers a delivered request (a Deliver decision with `is_request`) with
/// `payload`, on the request's reply route: no lookup of the requester.
/// `*out` receives the reply frame and its destination.
///
/// # Safety
/// `delivered` is a decision this library filled in, not yet freed;
/// `payload` points to `payload_len` bytes (NULL allowed when 0); `out` is
/// writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_reply(
    rt: *const zlink_runtime,
    delivered: *const zlink_decision,
    payload: *const u8,
    payload_len: usize,
    out: *mut zlink_outbound,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        // SAFETY: the caller's contract on `delivered`, `payload` and `out`.
        unsafe {
            reply_with(rt, delivered, out, || {
                Ok(ReplyResult::Ok(payload_in(payload, payload_len)?.to_vec()))
            })
        }
    })
}

/// Answers a delivered request with a structured error instead of a
/// payload: `kind` (a `zlink_reply_error_kind`, not NONE), an application
/// `code` and a UTF-8 `message` of at most `ZLINK_MAX_ERROR_MESSAGE_BYTES`
/// (NULL allowed when 0). The requester completes with
/// `ZLINK_OUTCOME_ERROR` / `ZLINK_FAILURE_REPLIED` carrying them.
///
/// # Safety
/// As `zlink_reply`, with `message` pointing to `message_len` bytes.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_reply_error(
    rt: *const zlink_runtime,
    delivered: *const zlink_decision,
    kind: u32,
    code: u32,
    message: *const u8,
    message_len: usize,
    out: *mut zlink_outbound,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        // SAFETY: the caller's contract on `delivered`, `message` and `out`.
        unsafe {
            reply_with(rt, delivered, out, || {
                let kind = match kind {
                    1 => ReplyErrorKind::Handler,
                    2 => ReplyErrorKind::Decode,
                    other => {
                        return Err(Fail::new(
                            zlink_result::InvalidArgument,
                            format!(
                                "error kind {other} is neither ZLINK_REPLY_ERROR_KIND_HANDLER (1) nor ZLINK_REPLY_ERROR_KIND_DECODE (2)"
                            ),
                        ));
                    }
                };
                let bytes = bytes_in(
                    message,
                    message_len,
                    ZLINK_MAX_ERROR_MESSAGE_BYTES,
                    "error message",
                )?;
                let message = std::str::from_utf8(bytes).map_err(|e| {
                    Fail::new(zlink_result::InvalidUtf8, format!("error message: {e}"))
                })?;
                Ok(ReplyResult::Error(ReplyError {
                    kind,
                    code,
                    message: message.to_owned(),
                }))
            })
        }
    })
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

fn completion_list(completions: Vec<Completion>) -> zlink_decision_list {
    decision_list(
        completions
            .into_iter()
            .map(zlink_decision::completed)
            .collect(),
    )
}

pub(crate) fn decision_list(decisions: Vec<zlink_decision>) -> zlink_decision_list {
    if decisions.is_empty() {
        return zlink_decision_list {
            items: std::ptr::null_mut(),
            count: 0,
        };
    }
    let items: Box<[zlink_decision]> = decisions.into_boxed_slice();
    let count = items.len();
    zlink_decision_list {
        items: Box::into_raw(items).cast(),
        count,
    }
}

/// Frees every decision of a list and zeroes `*list`. NULL, or a list
/// already freed, is a no-op.
///
/// # Safety
/// `list` is NULL or a list this library filled in (or zeroed).
///
/// Thread-safety: any thread; the list is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_decision_list_free(list: *mut zlink_decision_list) {
    // SAFETY: NULL or a library-filled list (the caller's contract); its
    // array came from `Box::into_raw` of `count` decisions, released once.
    unsafe {
        if list.is_null() {
            return;
        }
        let items = addr_of_mut!((*list).items).read();
        let count = addr_of_mut!((*list).count).read();
        if !items.is_null() {
            let mut boxed = Box::from_raw(std::ptr::slice_from_raw_parts_mut(items, count));
            for d in boxed.iter_mut() {
                zlink_decision_free(d);
            }
        }
        addr_of_mut!((*list).items).write(std::ptr::null_mut());
        addr_of_mut!((*list).count).write(0);
    }
}

/// The runtime's clock now, in nanoseconds since its origin: the `now_ns`
/// to give `zlink_on_timeout`.
///
/// # Safety
/// `out_ns` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_now(
    rt: *const zlink_runtime,
    out_ns: *mut u64,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out_ns, "out_ns")?;
        let rt = runtime_in(rt)?;
        // SAFETY: checked above.
        unsafe { out.write(rt.core.now().0) };
        Ok(())
    })
}

/// The earliest instant (runtime clock, nanoseconds) any of the runtime's
/// machines needs waking at: a request deadline, a seal or bind timeout, a
/// follow-route expiry, a relocation's timeout or commit. `*out_has` is
/// false when nothing waits. Sleep until then (or the next frame or call)
/// and call `zlink_on_timeout`.
///
/// # Safety
/// `out_ns` and `out_has` are writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_next_deadline(
    rt: *const zlink_runtime,
    out_ns: *mut u64,
    out_has: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out_ns = out_ptr(out_ns, "out_ns")?;
        let out_has = out_ptr(out_has, "out_has")?;
        let rt = runtime_in(rt)?;
        let next = rt.core.next_deadline();
        // SAFETY: checked above.
        unsafe {
            out_ns.write(next.map_or(0, |t| t.0));
            out_has.write(next.is_some());
        }
        Ok(())
    })
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
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_timeout(
    rt: *const zlink_runtime,
    now_ns: u64,
    out: *mut zlink_decision_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        let actions = rt.core.on_timeout(zlink_core::MonoTime(now_ns));
        let list = decision_list(actions.into_iter().map(zlink_decision::from_core).collect());
        // SAFETY: checked above.
        unsafe { out.write(list) };
        Ok(())
    })
}

/// Ends every pending request with `ZLINK_OUTCOME_SHUTDOWN` (the host is
/// stopping): `*out` receives one `COMPLETED` decision per request.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_shutdown_requests(
    rt: *const zlink_runtime,
    out: *mut zlink_decision_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        let list = completion_list(rt.core.shutdown_requests());
        // SAFETY: checked above.
        unsafe { out.write(list) };
        Ok(())
    })
}
