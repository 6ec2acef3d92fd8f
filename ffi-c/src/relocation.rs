//! The relocation handoff (spec §2.5 PerActor, §3.3): the runtimes run it
//! between themselves with frames (commands 45–49) the host carries like
//! every other frame. The host only captures the object on the source
//! (`zlink_begin_relocation`), restores it on the target
//! (`zlink_relocation_restored`) or gives up before relay-ready
//! (`zlink_abort_relocation`); every step comes back as a
//! `ZLINK_DECISION_RELOCATION` decision from `zlink_on_frame` or
//! `zlink_on_timeout`.

use zlink_bridge::args::missing;
use zlink_bridge::core::wire::Operation;
use zlink_bridge::{Error, ErrorKind};

use crate::FfiResult;
use crate::decisions::zlink_decision;
use crate::frames::{delivered, relocation_work, zlink_decision_list, zlink_outbound_list};
use crate::runtime::{runtime_in, zlink_runtime};

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

/// The operations of `count` DELIVER decisions at `saved`.
///
/// # Safety
/// `saved` is NULL (only when `count` is 0) or points to `count` pointers,
/// each NULL or a library-filled decision not yet freed.
unsafe fn saved_in(saved: *const *const zlink_decision, count: usize) -> FfiResult<Vec<Operation>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if saved.is_null() {
        return Err(missing("saved"));
    }
    // SAFETY: `count` readable pointers (the caller's contract); the bridge
    // asks only for an allowed count.
    let decisions = unsafe { std::slice::from_raw_parts(saved, count) };
    let one = |(i, d): (usize, &*const zlink_decision)| {
        if d.is_null() {
            return Err(missing(&format!("saved[{i}]")));
        }
        // SAFETY: a library-filled decision (the caller's contract).
        let op = unsafe { delivered(*d) }?;
        op.cloned().ok_or_else(|| {
            Error::input(
                ErrorKind::NotADelivery,
                format!("saved[{i}] is not a DELIVER decision (or was freed)"),
            )
        })
    };
    decisions.iter().enumerate().map(one).collect()
}

entry! {
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
    /// `*out` receives the relocation and the frames to carry. Errors, checked
    /// in this order: the ID's (`ZLINK_RESULT_INVALID_ARGUMENT`,
    /// `ZLINK_RESULT_TOO_LONG`), `ZLINK_RESULT_STATE_TOO_LARGE`,
    /// `ZLINK_RESULT_TOO_LONG` (over 65536 saved operations, or a saved
    /// payload over `max_message_bytes`), `ZLINK_RESULT_INVALID_ARGUMENT` (the
    /// target is this runtime, a saved decision is not a DELIVER decision or
    /// is for another object), `ZLINK_RESULT_NOT_OWNED`,
    /// `ZLINK_RESULT_ALREADY_RELOCATING`.
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `saved` to `saved_count`
    /// pointers, each to a decision this library filled in and not yet freed;
    /// `state` to `state_len` readable bytes; `out` is writable.
    fn zlink_begin_relocation(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize,
        target_rid: u64, target_generation: u64, saved: *const *const zlink_decision,
        saved_count: usize, state: *const u8, state_len: usize)
        -> out: *mut zlink_relocation_started {
        // The bridge bounds `state` before it reads it.
        let (id, state) = (id_in!(id, id_len)?, bytes_in!(state, state_len, "state")?);
        let started = runtime_in(rt)?.begin_relocation(
            kind,
            id,
            target_rid,
            target_generation,
            saved_count,
            // SAFETY: the caller's contract on `saved`.
            || unsafe { saved_in(saved, saved_count) },
            state,
        )?;
        zlink_relocation_started {
            relocation: started.identity.relocation.get(),
            object_generation: started.identity.object_generation.get(),
            frames: started.send.into(),
        }
    }

    /// Target, §3.3 step 2: the host built the object `(kind, id)` from the
    /// state of its `RESTORE` decision. `*out` receives relay-ready for the
    /// source: the point of no return. The owner CAS follows on the source's
    /// cutover (or 1000 ms later, from `zlink_on_timeout`). Errors:
    /// `ZLINK_RESULT_NOT_RELOCATING` (no Restore for the object here),
    /// `ZLINK_RESULT_RELOCATION_REFUSED` (already restored, or withdrawn).
    ///
    /// # Safety
    /// `id` points to `id_len` readable bytes; `out` is writable.
    fn zlink_relocation_restored(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize)
        -> out: *mut zlink_outbound_list {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.relocation_restored(kind, id)?
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
    /// `id` points to `id_len` readable bytes; `out` is writable.
    fn zlink_abort_relocation(rt: *const zlink_runtime, kind: u32, id: *const u8, id_len: usize)
        -> out: *mut zlink_decision {
        let id = id_in!(id, id_len)?;
        runtime_in(rt)?.abort_relocation(kind, id)?
    }

    /// What a `RELOCATION` decision asks the host to hand the object, in
    /// order, as decisions of their own: `*out` receives its `deliver`
    /// operations as `DELIVER` decisions, then its `session` relays as
    /// `SESSION_DELIVER` decisions, each usable like one from `zlink_on_frame`
    /// (a `DELIVER` with `zlink_reply`, or saved again by
    /// `zlink_begin_relocation`). They are copies: free the list with
    /// `zlink_decision_list_free` and the relocation decision with
    /// `zlink_decision_free`, in any order. `ZLINK_RESULT_INVALID_ARGUMENT`
    /// for another kind of decision (or a freed one).
    ///
    /// # Safety
    /// `decision` is a decision this library filled in, not yet freed; `out`
    /// is writable.
    ///
    /// Thread-safety: any thread; the decision is only read.
    fn zlink_relocation_deliveries(decision: *const zlink_decision)
        -> out: *mut zlink_decision_list {
        // SAFETY: a library-filled decision (the caller's contract).
        unsafe { relocation_work(decision) }?
    }
}
