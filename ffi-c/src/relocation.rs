//! The relocation handoff (spec §2.5 PerActor, §3.3): the runtimes run it
//! between themselves with frames (commands 45–49) the host carries like
//! every other frame. The host only captures the object on the source
//! (`zlink_begin_relocation`), restores it on the target
//! (`zlink_relocation_restored`) or gives up before relay-ready
//! (`zlink_abort_relocation`); every step comes back as a
//! `ZLINK_DECISION_KIND_RELOCATION` decision from `zlink_on_frame` or
//! `zlink_on_timeout`.

use zlink_core::relocation::Refusal;
use zlink_core::wire::{AbortReason, MAX_SAVED_OPERATIONS, NodeRef, Operation};
use zlink_core::{
    Capture, Delivery, NodeGeneration, NodeRid, RelocationAction, RelocationError, RelocationEvent,
    SessionDelivery,
};

use crate::frames::{
    decision_list, private_of, zlink_bytes, zlink_decision, zlink_decision_kind,
    zlink_decision_list, zlink_outbound_list,
};
use crate::runtime::{runtime_in, zlink_runtime};
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

/// Which step of a relocation a `ZLINK_DECISION_KIND_RELOCATION` decision is.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_relocation_event {
    /// Not a relocation decision.
    None = 0,
    /// Target: a Restore arrived (from `peer`). Build the object from
    /// `payload` (the state), then call `zlink_relocation_restored` (or
    /// `zlink_abort_relocation` if it cannot be built). Run nothing for it
    /// yet.
    Restore = 1,
    /// Source: the target is relay-ready; carry `frames` (the held work
    /// relayed, `relayed` operations, then the cutover). The object no
    /// longer runs here, whatever follows.
    Cutover = 2,
    /// Target: the owner CAS succeeded (the move from `peer` is done): carry
    /// `frames` and deliver the `delivery_count` operations in order; the
    /// object runs here from now on.
    Committed = 3,
    /// Source: the target (`peer`) committed; what still arrives here
    /// follows the object on a Message Follow route. Drop the local
    /// instance.
    HandedOff = 4,
    /// Either side, before relay-ready: the move is abandoned
    /// (`abort_reason`). On the source the object runs here again: deliver
    /// what `zlink_relocation_deliveries` returns (the saved work, then the
    /// held work) in order; on the target drop what was restored.
    Aborted = 5,
    /// After relay-ready the move could not complete (`abort_reason`): the
    /// object runs on neither side; drop the local instance.
    Failed = 6,
    /// The store could not be asked (the target's owner CAS, or an aborting
    /// source's fence); a later `zlink_on_timeout` retries it.
    CommitRetry = 7,
    /// A relocation frame that changed nothing (`relocation_refusal`):
    /// refused and counted; carry `frames` if any.
    Ignored = 8,
    /// Source: the move is being given up (`abort_reason`: the host asked,
    /// or no relay-ready came in `relocation_timeout_ms`): carry `frames`
    /// (the target is told). The object stays sealed until the target
    /// confirms (then `ABORTED`) or it turns out the target already
    /// committed (then `HANDED_OFF`).
    Aborting = 9,
    /// Target: the cutover arrived; the owner CAS is due now and runs on
    /// the next `zlink_on_timeout` (`zlink_next_deadline` says now), so no
    /// frame handler waits on the store.
    CommitDue = 10,
}

/// Why a relocation was abandoned or failed (the command 49 codes).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_abort_reason {
    /// Not an abort or failure.
    None = 0,
    /// The source's host gave up the move.
    Requested = 1,
    /// A side waited longer than `relocation_timeout_ms`.
    Timeout = 2,
    /// The target could not take the Restore.
    Refused = 3,
    /// The target's host could not restore the state.
    RestoreFailed = 4,
    /// The target's owner CAS was refused: the object moved or was
    /// released meanwhile.
    CommitFailed = 5,
}

/// Why a relocation frame changed nothing (`ZLINK_RELOCATION_EVENT_IGNORED`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_relocation_refusal {
    /// Not a refusal.
    None = 0,
    /// No relocation of the object runs here.
    NotRelocating = 1,
    /// A relocation of the object already runs on this side.
    AlreadyRelocating = 2,
    /// The frame is for another object, or this node is not its target.
    WrongTarget = 3,
    /// The frame is for another incarnation of the object.
    WrongIncarnation = 4,
    /// The frame belongs to another relocation of the same incarnation.
    WrongRelocation = 5,
    /// The target has not restored the saved work yet.
    NotRestored = 6,
    /// The saved work was already restored.
    AlreadyRestored = 7,
    /// Relay-ready has not happened yet on this side.
    NotRelayReady = 8,
    /// Relay-ready already happened on this side.
    AlreadyRelayReady = 9,
    /// The cutover was already sent or taken.
    AlreadyCutOver = 10,
    /// Past relay-ready: the relocation does not roll back.
    AfterRelayReady = 11,
    /// This side of the relocation already ended.
    Ended = 12,
}

/// A relocation begun on the source by `zlink_begin_relocation`. Free
/// `frames` with `zlink_outbound_list_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_relocation_started {
    /// The relocation: every `RELOCATION` decision of this move carries it.
    pub relocation: u64,
    /// The incarnation being moved.
    pub object_generation: u64,
    /// Frames to carry: the Restore to the target first, then command 42
    /// to every bound Session's owner.
    pub frames: zlink_outbound_list,
}

/// What a relocation decision hands the object, kept until
/// `zlink_relocation_deliveries` copies it out.
pub(crate) struct RelocationWork {
    deliver: Vec<Delivery>,
    session: Vec<SessionDelivery>,
}

fn abort_reason_out(r: AbortReason) -> zlink_abort_reason {
    match r {
        AbortReason::Requested => zlink_abort_reason::Requested,
        AbortReason::Timeout => zlink_abort_reason::Timeout,
        AbortReason::Refused => zlink_abort_reason::Refused,
        AbortReason::RestoreFailed => zlink_abort_reason::RestoreFailed,
        AbortReason::CommitFailed => zlink_abort_reason::CommitFailed,
    }
}

fn refusal_out(r: Refusal) -> zlink_relocation_refusal {
    use zlink_relocation_refusal as R;
    match r {
        Refusal::NotRelocating => R::NotRelocating,
        Refusal::AlreadyRelocating => R::AlreadyRelocating,
        Refusal::WrongTarget => R::WrongTarget,
        Refusal::WrongIncarnation => R::WrongIncarnation,
        Refusal::WrongRelocation => R::WrongRelocation,
        Refusal::NotRestored => R::NotRestored,
        Refusal::AlreadyRestored => R::AlreadyRestored,
        Refusal::NotRelayReady => R::NotRelayReady,
        Refusal::AlreadyRelayReady => R::AlreadyRelayReady,
        Refusal::AlreadyCutOver => R::AlreadyCutOver,
        Refusal::AfterRelayReady => R::AfterRelayReady,
        Refusal::Ended => R::Ended,
    }
}

fn relocation_fail(e: RelocationError) -> Fail {
    let code = match &e {
        RelocationError::Input(i) => return input_fail(i.clone()),
        RelocationError::NotOwned(_) => zlink_result::NotOwned,
        RelocationError::TargetIsSelf | RelocationError::ForeignOperation(_) => {
            zlink_result::InvalidArgument
        }
        RelocationError::AlreadyRelocating(_) => zlink_result::AlreadyRelocating,
        RelocationError::StateTooLarge { .. } => zlink_result::StateTooLarge,
        RelocationError::TooManySaved { .. } => zlink_result::TooLong,
        RelocationError::NotRelocating(_) => zlink_result::NotRelocating,
        RelocationError::AfterRelayReady => zlink_result::AfterRelayReady,
        RelocationError::Refused(_) => zlink_result::RelocationRefused,
    };
    Fail::new(code, e.to_string())
}

/// Flattens one relocation step into a `RELOCATION` decision; its
/// operations to deliver stay private until `zlink_relocation_deliveries`.
pub(crate) fn relocation_decision(action: RelocationAction) -> zlink_decision {
    use zlink_relocation_event as E;
    let mut out = zlink_decision::new(zlink_decision_kind::Relocation);
    let RelocationAction {
        event,
        deliver,
        session,
        send,
    } = action;
    let identity = match event {
        RelocationEvent::Restore {
            identity,
            source,
            state,
        } => {
            out.relocation_event = E::Restore;
            out.peer = (&source).into();
            out.payload = zlink_bytes::from_vec(state);
            identity
        }
        RelocationEvent::Cutover { identity, relayed } => {
            out.relocation_event = E::Cutover;
            out.relayed = relayed;
            identity
        }
        RelocationEvent::Committed { identity, source } => {
            out.relocation_event = E::Committed;
            out.peer = (&source).into();
            identity
        }
        RelocationEvent::HandedOff { identity, target } => {
            out.relocation_event = E::HandedOff;
            out.peer = (&target).into();
            identity
        }
        RelocationEvent::Aborting { identity, reason } => {
            out.relocation_event = E::Aborting;
            out.abort_reason = abort_reason_out(reason);
            identity
        }
        RelocationEvent::Aborted { identity, reason } => {
            out.relocation_event = E::Aborted;
            out.abort_reason = abort_reason_out(reason);
            identity
        }
        RelocationEvent::Failed { identity, reason } => {
            out.relocation_event = E::Failed;
            out.abort_reason = abort_reason_out(reason);
            identity
        }
        RelocationEvent::CommitRetry { identity } => {
            out.relocation_event = E::CommitRetry;
            identity
        }
        RelocationEvent::CommitDue { identity } => {
            out.relocation_event = E::CommitDue;
            identity
        }
        RelocationEvent::Ignored { identity, refusal } => {
            out.relocation_event = E::Ignored;
            out.relocation_refusal = refusal_out(refusal);
            identity
        }
    };
    out.relocation = identity.relocation.get();
    out.target(&identity.key);
    out.object_generation = identity.object_generation.get();
    out.frames(send);
    out.delivery_count = deliver.len();
    out.session_delivery_count = session.len();
    out.private(None, None, Some(RelocationWork { deliver, session }));
    out
}

/// The operations of `count` DELIVER decisions at `saved`.
///
/// # Safety
/// `saved` is NULL (only when `count` is 0) or points to `count` pointers,
/// each NULL or a library-filled decision not yet freed.
unsafe fn saved_in(saved: *const *const zlink_decision, count: usize) -> FfiResult<Vec<Operation>> {
    if count > MAX_SAVED_OPERATIONS {
        return Err(relocation_fail(RelocationError::TooManySaved {
            len: count,
            max: MAX_SAVED_OPERATIONS,
        }));
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    if saved.is_null() {
        return Err(null("saved"));
    }
    // SAFETY: `count` readable pointers (the caller's contract), at most
    // MAX_SAVED_OPERATIONS of them.
    let decisions = unsafe { std::slice::from_raw_parts(saved, count) };
    decisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if d.is_null() {
                return Err(null(&format!("saved[{i}]")));
            }
            // SAFETY: a library-filled decision (the caller's contract).
            let private = unsafe { private_of(*d) }.ok();
            private.and_then(|p| p.operation.clone()).ok_or_else(|| {
                Fail::new(
                    zlink_result::InvalidArgument,
                    format!("saved[{i}] is not a DELIVER decision (or was freed)"),
                )
            })
        })
        .collect()
}

/// Source, §3.3 step 1: starts moving the object `(kind, id)` this runtime
/// owns (Ready) to the runtime `target_rid` / `target_generation` of this
/// runtime's mesh, after the host's current handler for it ended. From this
/// call on nothing for the object is delivered here: arrivals are `HELD`,
/// then relayed to the target.
///
/// The host hands over what it captured and no longer runs it: `saved`, the
/// `saved_count` DELIVER decisions (from `zlink_on_frame`, or from
/// `zlink_relocation_deliveries`) it accepted and has not run, in queue
/// order (NULL allowed when 0; the decisions stay the caller's to free), and
/// `state`, `state_len` bytes of the object's application state (NULL
/// allowed when 0; at most the config's `max_relocation_state_bytes`). If
/// the move is abandoned before relay-ready, both come back: the saved
/// work as deliveries of the `ABORTED` decision.
///
/// `*out` receives the relocation and the frames to carry. Errors:
/// `ZLINK_RESULT_NOT_OWNED`, `ZLINK_RESULT_ALREADY_RELOCATING`,
/// `ZLINK_RESULT_STATE_TOO_LARGE`, `ZLINK_RESULT_INVALID_ARGUMENT` (the
/// target is this runtime, a saved decision is not a DELIVER decision or is
/// for another object), `ZLINK_RESULT_TOO_LONG` (over 65536 saved
/// operations, or a saved payload over `max_message_bytes`).
///
/// # Safety
/// `id` points to `id_len` readable bytes; `saved` to `saved_count`
/// pointers, each to a decision this library filled in and not yet freed;
/// `state` to `state_len` readable bytes; `out` is writable; `error` is
/// NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_begin_relocation(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    target_rid: u64,
    target_generation: u64,
    saved: *const *const zlink_decision,
    saved_count: usize,
    state: *const u8,
    state_len: usize,
    out: *mut zlink_relocation_started,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let kind = kind_in(kind)?;
        // SAFETY: the caller's contract on `saved`.
        let saved = unsafe { saved_in(saved, saved_count) }?;
        // Checked before the bytes are read, with the core's own error.
        let max = rt.core.config().max_relocation_state_bytes;
        if state_len > max {
            return Err(relocation_fail(RelocationError::StateTooLarge {
                len: state_len,
                max,
            }));
        }
        // SAFETY: `state_len` readable bytes (the caller's contract).
        let state = unsafe { bytes_in(state, state_len, max, "state") }?.to_vec();
        let target = NodeRef {
            mesh: rt.core.identity().mesh,
            rid: NodeRid(target_rid),
            generation: NodeGeneration(target_generation),
        };
        let started = rt
            .core
            .begin_relocation(kind, id, target, Capture { saved, state })
            .map_err(relocation_fail)?;
        let result = zlink_relocation_started {
            relocation: started.identity.relocation.get(),
            object_generation: started.identity.object_generation.get(),
            frames: zlink_outbound_list::from_core(started.send),
        };
        // SAFETY: checked above.
        unsafe { out.write(result) };
        Ok(())
    })
}

/// Target, §3.3 step 2: the host built the object `(kind, id)` from the
/// state of its `RESTORE` decision. `*out` receives relay-ready for the
/// source: the point of no return. The owner CAS follows on the source's
/// cutover (or 1000 ms later, from `zlink_on_timeout`). Errors:
/// `ZLINK_RESULT_NOT_RELOCATING` (no Restore for the object here),
/// `ZLINK_RESULT_RELOCATION_REFUSED` (already restored, or withdrawn).
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is writable; `error` is
/// NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_relocation_restored(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_outbound_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let frames = rt
            .core
            .relocation_restored(kind_in(kind)?, id)
            .map_err(relocation_fail)?;
        // SAFETY: checked above.
        unsafe { out.write(zlink_outbound_list::from_core(frames)) };
        Ok(())
    })
}

/// Abandons the relocation of `(kind, id)` before relay-ready, on either
/// side. `*out` receives a `RELOCATION` decision; carry its frames and free
/// it with `zlink_decision_free`:
///
/// - on the source (the host gives the move up) it is `ABORTING`: the
///   target is told, and the object stays sealed until the target confirms.
///   Then `zlink_on_frame` gives `ABORTED`, with the work to run here again
///   (`zlink_relocation_deliveries`), or `HANDED_OFF` if the target had
///   already committed;
/// - on the target (the host could not restore the state) it is `ABORTED`
///   at once, and the source is told.
///
/// Errors: `ZLINK_RESULT_NOT_RELOCATING`, `ZLINK_RESULT_AFTER_RELAY_READY`
/// (the move does not roll back).
///
/// # Safety
/// `id` points to `id_len` readable bytes; `out` is writable; `error` is
/// NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_abort_relocation(
    rt: *const zlink_runtime,
    kind: u32,
    id: *const u8,
    id_len: usize,
    out: *mut zlink_decision,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: `id_len` readable bytes (the caller's contract).
        let id = unsafe { id_in(id, id_len) }?;
        let action = rt
            .core
            .abort_relocation(kind_in(kind)?, id)
            .map_err(relocation_fail)?;
        // SAFETY: checked above.
        unsafe { out.write(relocation_decision(action)) };
        Ok(())
    })
}

/// What a `RELOCATION` decision asks the host to hand the object, in
/// order: `*out` receives its `delivery_count` operations as `DELIVER`
/// decisions, then its `session_delivery_count` session relays as
/// `SESSION_DELIVER` decisions, each usable like one from `zlink_on_frame`
/// (a `DELIVER` with `zlink_reply`, or saved again by
/// `zlink_begin_relocation`). They are copies: free the list with
/// `zlink_decision_list_free` and the relocation decision with
/// `zlink_decision_free`, in any order. `ZLINK_RESULT_INVALID_ARGUMENT`
/// for another kind of decision.
///
/// # Safety
/// `decision` is a decision this library filled in, not yet freed; `out`
/// is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread; the decision is only read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_relocation_deliveries(
    decision: *const zlink_decision,
    out: *mut zlink_decision_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        if decision.is_null() {
            return Err(null("decision"));
        }
        // SAFETY: a library-filled decision (the caller's contract).
        let private = unsafe { private_of(decision) }.ok();
        let work = private.and_then(|p| p.relocation.as_ref()).ok_or_else(|| {
            Fail::new(
                zlink_result::InvalidArgument,
                "the decision is not a RELOCATION decision (or was freed)",
            )
        })?;
        let operations = work.deliver.iter().cloned().map(zlink_decision::deliver);
        let relays = work
            .session
            .iter()
            .cloned()
            .map(zlink_decision::session_deliver);
        let list = decision_list(operations.chain(relays).collect());
        // SAFETY: checked above.
        unsafe { out.write(list) };
        Ok(())
    })
}
