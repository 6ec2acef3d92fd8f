//! Frames: outbound operations (send, request, reply) become a destination
//! and bytes; inbound bytes become a decision (DESIGN §3). The host moves
//! the bytes. A decision is one struct per kind (`decisions.rs`, generated
//! from the bridge's surface schema); what the host hands back (the
//! delivered operation, the notification token) stays in the
//! library-private part of the struct that shows it.

use std::mem::MaybeUninit;
use std::ops::RangeInclusive;
use std::time::Duration;

use zlink_bridge::args::{Arg, missing};
use zlink_bridge::codes::{
    FrameCommand as zlink_frame_command, ObjectKind, SentTag, StoreError, UnavailableReason,
};
use zlink_bridge::core::wire::Operation;
use zlink_bridge::core::{NoticeToken, Outbound, RequestOptions, SendOptions};
use zlink_bridge::{Error, ErrorKind, Sent, surface};

use crate::FfiResult;
use crate::decisions::zlink_decision;
use crate::runtime::{runtime_in, zlink_runtime, zlink_str};
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

    /// A copy in memory of its own.
    pub(crate) fn dup(&self) -> zlink_bytes {
        if self.data.is_null() {
            return zlink_bytes::default();
        }
        // SAFETY: `len` bytes at `data`, from `From<Vec<u8>>` and not freed
        // (a library-filled struct).
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
            .to_vec()
            .into()
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
#[derive(Debug)]
pub struct zlink_outbound {
    /// The node that made them (this runtime): the receiver passes its
    /// `rid` as `from` to `zlink_on_frame`.
    pub sender: zlink_node,
    /// The node they go to.
    pub to: zlink_node,
    /// The frame's command.
    pub command: zlink_frame_command,
    /// One encoded frame; free with `zlink_bytes_free`.
    pub bytes: zlink_bytes,
}

impl Default for zlink_outbound {
    fn default() -> Self {
        zlink_outbound {
            sender: zlink_node::default(),
            to: zlink_node::default(),
            command: zlink_frame_command::Message,
            bytes: zlink_bytes::default(),
        }
    }
}

impl From<Outbound> for zlink_outbound {
    fn from(o: Outbound) -> Self {
        zlink_outbound {
            sender: (&o.sender).into(),
            to: (&o.to).into(),
            command: zlink_frame_command::of(&o.bytes),
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

/// A C value the library filled in that owns memory.
pub(crate) trait Owned {
    /// Frees what `this` owns and zeroes those fields, so a second release
    /// is a no-op.
    ///
    /// # Safety
    /// `this` points to a value this library filled in (or released), not
    /// copied elsewhere and released there.
    unsafe fn release(this: *mut Self);
}

/// A tagged union of the C ABI (a `#[repr(C, u32)]` enum): the tags this
/// library writes. A C host may hand back any bits, so the tag is read
/// as a number before the value is.
pub(crate) trait Tagged: Sized {
    /// The tags of its members.
    const TAGS: RangeInclusive<u32>;

    /// The value at `this`, if it is not NULL and its tag is one of
    /// `TAGS` (a freed decision's is 0).
    ///
    /// # Safety
    /// `this` is NULL or points to a readable value, valid if its tag is
    /// one of `TAGS`, that lives for `'a`.
    unsafe fn checked<'a>(this: *const Self) -> Option<&'a Self> {
        if this.is_null() {
            return None;
        }
        // SAFETY: readable (the caller's contract); the tag comes first.
        let tag = unsafe { this.cast::<u32>().read() };
        // SAFETY: a known tag, so a valid value (the caller's contract).
        Self::TAGS.contains(&tag).then(|| unsafe { &*this })
    }
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
    // the array came from `Box::into_raw` of `count` items, released once
    // (as `MaybeUninit`: a released item need not be a valid `T`).
    unsafe {
        let (p, n) = (items.read(), count.read());
        if !p.is_null() {
            let slice = std::ptr::slice_from_raw_parts_mut(p.cast::<MaybeUninit<T>>(), n);
            let mut boxed = Box::from_raw(slice);
            boxed.iter_mut().for_each(|item| release(item.as_mut_ptr()));
        }
        items.write(std::ptr::null_mut());
        count.write(0);
    }
}

/// A library-allocated `C` of `v`, NULL for None.
pub(crate) fn boxed<T, C: From<T>>(v: Option<T>) -> *mut C {
    v.map_or(std::ptr::null_mut(), |v| {
        Box::into_raw(Box::new(C::from(v)))
    })
}

/// Frees what `boxed` allocated, with `release` first, and zeroes the
/// field that held it.
///
/// # Safety
/// `field` points to the field of a library-filled struct, NULL or from
/// `boxed` and not yet freed.
pub(crate) unsafe fn release_box<T>(field: *mut *mut T, release: impl Fn(*mut T)) {
    // SAFETY: the field is readable and writable (the caller's contract);
    // the value came from `Box::into_raw`, released once.
    unsafe {
        let p = field.read();
        if !p.is_null() {
            release(p);
            drop(Box::from_raw(p));
        }
        field.write(std::ptr::null_mut());
    }
}

list! {
    zlink_outbound_list of zlink_outbound, zlink_outbound::release,
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

impl Owned for zlink_outbound {
    unsafe fn release(this: *mut Self) {
        // SAFETY: its bytes came from `From<Vec<u8>>` (the caller's contract).
        unsafe { (*this).bytes.release() };
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
    /// `ZLINK_DECISION_COMPLETED` decision carrying `out->correlation`
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

/// A delivered Message or Request, as a `DELIVER` decision shows it:
/// answer a request with `zlink_reply` (or `zlink_reply_error`), or hand
/// the decision to `zlink_begin_relocation` unrun. `id` and `payload` are
/// the library's bytes, valid until the decision is freed (never freed on
/// their own).
#[repr(C)]
#[derive(Debug)]
pub struct zlink_operation {
    /// The operation's identity.
    pub operation_id: u64,
    /// The target's kind.
    pub kind: ObjectKind,
    /// The target's global ID (UTF-8, not NUL-terminated).
    pub id: zlink_str,
    /// The application bytes.
    pub payload: zlink_str,
    /// A request: answer it.
    pub is_request: bool,
    /// Library-private; do not touch.
    pub private_: *mut zlink_operation_private,
}

/// The operation itself (library-private).
pub struct zlink_operation_private(Operation);

/// `len` bytes at `ptr`, borrowed.
fn view(bytes: &[u8]) -> zlink_str {
    zlink_str {
        ptr: bytes.as_ptr(),
        len: bytes.len(),
    }
}

impl From<Operation> for zlink_operation {
    fn from(op: Operation) -> Self {
        let private_ = Box::into_raw(Box::new(zlink_operation_private(op)));
        // SAFETY: just made; the views point into it, which lives (and is
        // not changed) until `release`.
        let op = unsafe { &(*private_).0 };
        zlink_operation {
            operation_id: op.operation_id.get(),
            kind: op.target.kind().into(),
            id: view(op.target.id().as_bytes()),
            payload: view(&op.payload),
            is_request: op.reply_route.is_some(),
            private_,
        }
    }
}

impl zlink_operation {
    /// The operation, unless released.
    fn get(&self) -> Option<&Operation> {
        // SAFETY: NULL or the box `From<Operation>` made, alive until
        // `release` (a library-filled struct).
        unsafe { self.private_.as_ref() }.map(|p| &p.0)
    }

    /// A copy of its own.
    pub(crate) fn dup(&self) -> Self {
        self.get().map_or_else(
            || zlink_operation {
                id: view(&[]),
                payload: view(&[]),
                private_: std::ptr::null_mut(),
                ..*self
            },
            |op| op.clone().into(),
        )
    }
}

impl Owned for zlink_operation {
    unsafe fn release(this: *mut Self) {
        // SAFETY: NULL or the box `From<Operation>` made, released once (the
        // caller's contract); the views into it go with it.
        unsafe {
            release_box(&raw mut (*this).private_, |_| {});
            (*this).id = view(&[]);
            (*this).payload = view(&[]);
        }
    }
}

/// What identifies a `RELAY`'s notification, for `zlink_notice_settled`
/// (through the decision that holds it). Library-private; do not touch.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_notice_token {
    /// Library-private; do not touch.
    pub private_: *mut zlink_notice_token_private,
}

/// The token itself (library-private).
pub struct zlink_notice_token_private(NoticeToken);

impl From<NoticeToken> for zlink_notice_token {
    fn from(token: NoticeToken) -> Self {
        let private_ = Box::into_raw(Box::new(zlink_notice_token_private(token)));
        zlink_notice_token { private_ }
    }
}

impl Owned for zlink_notice_token {
    unsafe fn release(this: *mut Self) {
        // SAFETY: NULL or the box `From<NoticeToken>` made, released once
        // (the caller's contract).
        unsafe { release_box(&raw mut (*this).private_, |_| {}) }
    }
}

impl From<zlink_bridge::core::Inbound> for zlink_decision {
    fn from(d: zlink_bridge::core::Inbound) -> Self {
        surface::Inbound::from(d).into()
    }
}

/// The `n` items at `p`.
///
/// # Safety
/// `p` is NULL (then `n` is 0) or points to `n` items that live for `'a`.
unsafe fn items<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// The decision at `d`, if this library filled it in and has not freed it.
///
/// # Safety
/// `d` is NULL (an error) or a library-filled decision.
unsafe fn decision<'a>(d: *const zlink_decision) -> FfiResult<Option<&'a zlink_decision>> {
    if d.is_null() {
        return Err(missing("decision"));
    }
    // SAFETY: a library-filled decision (the caller's contract).
    Ok(unsafe { zlink_decision::checked(d) })
}

/// The operation of a `DELIVER` decision not yet freed, if `d` is one.
///
/// # Safety
/// As [`decision`].
pub(crate) unsafe fn delivered<'a>(d: *const zlink_decision) -> FfiResult<Option<&'a Operation>> {
    // SAFETY: the caller's contract.
    Ok(match unsafe { decision(d) }? {
        Some(zlink_decision::Deliver(x)) => x.operation.get(),
        _ => None,
    })
}

/// A `RELOCATION` decision's work, in order: its operations as `DELIVER`
/// decisions, then its session relays as `SESSION_DELIVER` ones (copies).
///
/// # Safety
/// As [`decision`].
pub(crate) unsafe fn relocation_work(d: *const zlink_decision) -> FfiResult<Vec<zlink_decision>> {
    // SAFETY: the caller's contract.
    let Some(zlink_decision::Relocation(r)) = unsafe { decision(d) }? else {
        return Err(Error::input(
            ErrorKind::NotARelocation,
            "the decision is not a RELOCATION decision (or was freed)",
        ));
    };
    // SAFETY: arrays from `array`, alive until the decision is freed.
    let (ops, relays) = unsafe {
        (
            items(r.deliver, r.deliver_count),
            items(r.session, r.session_count),
        )
    };
    let ops = ops.iter().map(|x| zlink_decision::Deliver(x.dup()));
    let relays = relays
        .iter()
        .map(|x| zlink_decision::SessionDeliver(x.dup()));
    Ok(ops.chain(relays).collect())
}

entry! {
    /// Decides what to do with one inbound frame of `len` bytes that arrived on
    /// the host's connection to node `from` (its routing ID). Reads local state
    /// only: never the store, never blocks. An undecodable frame is not an
    /// error: it is a `ZLINK_DECISION_DROPPED` decision; a frame whose
    /// sender is not `from` is a `ZLINK_DECISION_FOREIGN_SENDER` one.
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
    /// Frees everything a decision holds and sets its `tag` to 0; a second
    /// free is a no-op, as is NULL or a zeroed decision.
    ///
    /// # Safety
    /// `decision` is NULL, zeroed or a decision this library filled in.
    ///
    /// Thread-safety: any thread; the decision is not shared state.
    fn zlink_decision_free(decision: *mut zlink_decision) {
        if decision.is_null() {
            return;
        }
        // SAFETY: a library-filled decision (the caller's contract): its
        // member is released once, then its tag is no kind's.
        unsafe {
            zlink_decision::release(decision);
            decision.cast::<u32>().write(0);
        }
    }
}

entry! {
    /// Reports whether the command 50 notification of a `RELAY` decision
    /// (`relay.notice`) was sent, so the relayer's dedup registry can let a
    /// later relay try again after a failure.
    ///
    /// # Safety
    /// `decision` is a decision this library filled in, not yet freed.
    fn zlink_notice_settled(rt: *const zlink_runtime, decision: *const zlink_decision, sent: bool) {
        // SAFETY: the caller's contract on `decision`.
        let token = match unsafe { self::decision(decision) }? {
            // SAFETY: NULL or the box `boxed` made, alive until the
            // decision is freed.
            Some(zlink_decision::Relay(r)) => unsafe { r.notice.as_ref() }
                // SAFETY: as above, for the token's box.
                .and_then(|n| unsafe { n.token.private_.as_ref() })
                .map(|t| &t.0),
            _ => None,
        };
        runtime_in(rt)?.notice_settled(token, sent)
    }
}

/// Longest message of an error reply, in bytes.
pub const ZLINK_MAX_ERROR_MESSAGE_BYTES: usize = 4096;

const _: () =
    assert!(ZLINK_MAX_ERROR_MESSAGE_BYTES == zlink_bridge::core::wire::MAX_ERROR_MESSAGE_BYTES);

entry! {
    /// Answers a delivered request (a `DELIVER` decision whose
    /// `deliver.operation.is_request`) with
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
        let op = unsafe { self::delivered(delivered) }?;
        let payload = bytes_in!(payload, payload_len, "payload")?;
        runtime_in(rt)?.reply(op, Some(payload), None::<(_, _, &str)>)?
    }

    /// Answers a delivered request with a structured error instead of a
    /// payload: `kind` (a `zlink_reply_error_kind`, not NONE), an application
    /// `code` and a UTF-8 `message` of at most `ZLINK_MAX_ERROR_MESSAGE_BYTES`
    /// (NULL allowed when 0). The requester completes with a
    /// `ZLINK_OUTCOME_ERROR` outcome carrying them (its `kind` the error
    /// kind's name, "Handler" or "Decode").
    ///
    /// # Safety
    /// As `zlink_reply`, with `message` pointing to `message_len` bytes.
    fn zlink_reply_error(rt: *const zlink_runtime, delivered: *const zlink_decision, kind: u32,
        code: u32, message: *const u8, message_len: usize) -> out: *mut zlink_outbound {
        // SAFETY: the caller's contract on `delivered`.
        let op = unsafe { self::delivered(delivered) }?;
        let message = bytes_in!(message, message_len, "error message")?;
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

    /// How many requests wait for their result.
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_pending_requests(rt: *const zlink_runtime) -> out: *mut u64 {
        runtime_in(rt)?.pending_requests()? as u64
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
    /// (`ZLINK_OUTCOME_TIMEOUT`) per request past its deadline,
    /// `SESSION_CLOSED` per Session closed by the seal timeout followed by a
    /// `SEND` of its disconnect notifications, `BIND_REFUSED`
    /// (`ZLINK_BIND_REFUSAL_TIMEOUT`) per bind past
    /// `session_bind_timeout_ms`, a `SEND` of the refusals an
    /// Actor owner gives parked rebinds, and a `RELOCATION` decision per
    /// relocation step due: on a source that heard no relay-ready `ABORTING`
    /// (`ZLINK_ABORT_REASON_TIMEOUT`, the target is told), and if the target
    /// does not confirm either, `ABORTED` once the store is fenced (the work
    /// to run again in its `deliver`); on a source that heard
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
