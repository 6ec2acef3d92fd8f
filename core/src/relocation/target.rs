//! The target side of a relocation handoff: the temporary queue, restored
//! saved work, the commit trigger and the merge order (§2.5 steps 1-5,
//! §3.3 steps 2-5).

use std::mem;
use std::time::Duration;

use super::{Refusal, Refused, RelocationIdentity};
use crate::clock::MonoTime;
use crate::wire::Operation;

/// How long after relay-ready the target commits without waiting for the
/// source's cutover (§3.3 step 4): a lost cutover must not stall the move.
pub const COMMIT_AFTER_RELAY_READY: Duration = Duration::from_millis(1_000);

/// Where a target is in its relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetPhase {
    /// The temporary queue is registered; no object instance yet.
    Registered,
    /// The saved work is restored; relay-ready not yet sent.
    Restored,
    /// Relay-ready was sent: the source relays, and the owner CAS follows on
    /// cutover or [`COMMIT_AFTER_RELAY_READY`] later.
    RelayReady,
    /// Switched after the owner CAS: arrivals are dispatched directly.
    Dispatching,
    /// Failed before relay-ready: the temporary queue was discarded.
    Discarded,
}

impl TargetPhase {
    /// Whether this side of the relocation is over (its temporary queue is
    /// gone).
    pub fn is_ended(self) -> bool {
        matches!(self, TargetPhase::Dispatching | TargetPhase::Discarded)
    }
}

/// What the target host does after a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "every step carries work or a refusal the host must act on"]
// An operation given back is moved once, by value: boxing it would cost an
// allocation per operation to save stack bytes.
#[allow(clippy::large_enum_variant)]
pub enum TargetStep {
    /// The temporary queue is registered: create the object instance now.
    Registered,
    /// The saved work is restored (kept here until the switch).
    Restored,
    /// Send the relay-ready reply to the source.
    RelayReady,
    /// The operation was appended to the temporary queue.
    Queued,
    /// The cutover arrived: run the owner CAS now.
    CommitDue,
    /// Put these on the object's application queue, in this order. From
    /// [`switch`](RelocationTarget::switch): the merge order; after it: the
    /// one arriving operation.
    Dispatch(Vec<Operation>),
    /// Failed before relay-ready: these were in the temporary queue and no
    /// owner accepted them; end each Unavailable (never resubmit).
    Discarded(Vec<Operation>),
    /// This relocation does not cover the operation (none running, or it
    /// was discarded): admit it normally, unchanged.
    NotRelocating(Operation),
    /// Refused: nothing changed; any operation is given back.
    Refused(Refused),
}

/// The target of one relocation: the temporary queue and the saved work.
#[derive(Debug)]
pub struct RelocationTarget {
    identity: RelocationIdentity,
    phase: TargetPhase,
    /// The source's previous queue and accepted journal, as transferred.
    saved: Vec<Operation>,
    /// Arrivals before the switch, in arrival order (relays and direct).
    temporary: Vec<Operation>,
    relay_ready_at: Option<MonoTime>,
    cutover: bool,
}

impl RelocationTarget {
    /// §2.5 step 1: registers the temporary queue on receiving the Restore
    /// request, before the object instance exists, so no arrival finds the
    /// object missing while it is being built.
    pub fn register(identity: RelocationIdentity) -> Self {
        RelocationTarget {
            identity,
            phase: TargetPhase::Registered,
            saved: Vec::new(),
            temporary: Vec::new(),
            relay_ready_at: None,
            cutover: false,
        }
    }

    /// The relocation this target belongs to.
    pub fn identity(&self) -> &RelocationIdentity {
        &self.identity
    }

    /// Where it is.
    pub fn phase(&self) -> TargetPhase {
        self.phase
    }

    /// The restored saved work, in order (empty after the switch).
    pub fn saved_work(&self) -> &[Operation] {
        &self.saved
    }

    /// The temporary queue, in arrival order (empty after the switch).
    pub fn temporary(&self) -> &[Operation] {
        &self.temporary
    }

    /// §3.3 step 2: the saved work the source transferred with Restore
    /// (previous queue then accepted journal). Set exactly once; a refusal
    /// gives `saved` back.
    pub fn restore(&mut self, identity: &RelocationIdentity, saved: Vec<Operation>) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return TargetStep::Refused(Refused::operations(reason, saved));
        }
        match self.phase {
            TargetPhase::Registered => {
                self.saved = saved;
                self.phase = TargetPhase::Restored;
                TargetStep::Restored
            }
            _ => TargetStep::Refused(Refused::operations(Refusal::AlreadyRestored, saved)),
        }
    }

    /// Restore finished: the target is ready to receive relays. Returns
    /// [`RelayReady`](TargetStep::RelayReady) for the host to reply with;
    /// `now` starts the [`COMMIT_AFTER_RELAY_READY`] clock. From here on the
    /// relocation does not roll back.
    pub fn relay_ready(&mut self, identity: &RelocationIdentity, now: MonoTime) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            TargetPhase::Registered => refuse(Refusal::NotRestored),
            TargetPhase::Restored => {
                self.phase = TargetPhase::RelayReady;
                self.relay_ready_at = Some(now);
                TargetStep::RelayReady
            }
            _ => refuse(Refusal::AlreadyRelayReady),
        }
    }

    /// An operation for the object arrived at the target, relayed from the
    /// source or sent directly. Before the switch it is appended to the
    /// temporary queue ([`Queued`](TargetStep::Queued)); after it,
    /// [`Dispatch`](TargetStep::Dispatch)ed directly; after a discard,
    /// [`NotRelocating`](TargetStep::NotRelocating). Another object or
    /// incarnation is refused with the operation.
    pub fn on_arrival(&mut self, op: Operation) -> TargetStep {
        if self.phase == TargetPhase::Discarded {
            return TargetStep::NotRelocating(op);
        }
        if let Err(reason) = self.identity.check_operation(&op) {
            return TargetStep::Refused(Refused::operations(reason, vec![op]));
        }
        if self.phase == TargetPhase::Dispatching {
            return TargetStep::Dispatch(vec![op]);
        }
        self.temporary.push(op);
        TargetStep::Queued
    }

    /// The source's cutover arrived (after every relay of the relay span, on
    /// the same ordered connection): the owner CAS is due.
    pub fn on_cutover(&mut self, identity: &RelocationIdentity) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            TargetPhase::Registered | TargetPhase::Restored => refuse(Refusal::NotRelayReady),
            TargetPhase::RelayReady if self.cutover => refuse(Refusal::AlreadyCutOver),
            _ => {
                self.cutover = true;
                TargetStep::CommitDue
            }
        }
    }

    /// §3.3 step 4: whether the owner CAS is due at `now`: relay-ready was
    /// sent and either the cutover arrived or [`COMMIT_AFTER_RELAY_READY`]
    /// has passed since.
    pub fn commit_due(&self, now: MonoTime) -> bool {
        if self.phase != TargetPhase::RelayReady {
            return false;
        }
        self.cutover
            || self
                .relay_ready_at
                .is_some_and(|at| now >= at.after(COMMIT_AFTER_RELAY_READY))
    }

    /// §2.5 steps 4-5, §3.3 step 5: after the owner CAS succeeded, yields the
    /// merge order as [`Dispatch`](TargetStep::Dispatch): the saved work
    /// (previous queue, then accepted journal) first, then the temporary
    /// queue in arrival order. The temporary queue is gone from then on and
    /// arrivals are dispatched directly. The host calls this only after its
    /// CAS, which it runs when [`commit_due`](Self::commit_due) says so.
    pub fn switch(&mut self, identity: &RelocationIdentity) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            TargetPhase::Registered => refuse(Refusal::NotRestored),
            TargetPhase::Restored => refuse(Refusal::NotRelayReady),
            _ => {
                self.phase = TargetPhase::Dispatching;
                let mut merged = mem::take(&mut self.saved);
                merged.append(&mut self.temporary);
                TargetStep::Dispatch(merged)
            }
        }
    }

    /// Explicit relocation failure. Before relay-ready the temporary queue
    /// is discarded: [`Discarded`](TargetStep::Discarded) with the
    /// operations it held, for the host to end Unavailable; the restored
    /// copy of the saved work is dropped because the source restores the
    /// original. After relay-ready: refused with
    /// [`AfterRelayReady`](Refusal::AfterRelayReady), no rollback.
    pub fn fail(&mut self, identity: &RelocationIdentity) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            TargetPhase::Registered | TargetPhase::Restored => {
                self.phase = TargetPhase::Discarded;
                self.saved.clear();
                TargetStep::Discarded(mem::take(&mut self.temporary))
            }
            _ => refuse(Refusal::AfterRelayReady),
        }
    }

    /// The source abandoned the relocation before it accepted relay-ready
    /// (its abort crossed our relay-ready, or came before it): the source
    /// runs the saved work itself, so the restored copy is dropped and the
    /// temporary queue is [`Discarded`](TargetStep::Discarded). Allowed in
    /// every phase before the switch: the source's abort proves it never
    /// relayed, so nothing of the relay span can be lost.
    pub fn withdraw(&mut self, identity: &RelocationIdentity) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        self.phase = TargetPhase::Discarded;
        self.saved.clear();
        TargetStep::Discarded(mem::take(&mut self.temporary))
    }

    /// The owner CAS was refused after relay-ready (the object moved or was
    /// released meanwhile): no owner will run this work, so everything held
    /// here, saved work first, is [`Discarded`](TargetStep::Discarded) for
    /// the host to end Unavailable, never run.
    pub fn abandon(&mut self, identity: &RelocationIdentity) -> TargetStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        self.phase = TargetPhase::Discarded;
        let mut all = mem::take(&mut self.saved);
        all.append(&mut self.temporary);
        TargetStep::Discarded(all)
    }

    /// Refuses a control call of another relocation, or on an ended side.
    fn check(&self, identity: &RelocationIdentity) -> Result<(), Refusal> {
        self.identity.check_control(identity)?;
        if self.phase.is_ended() {
            return Err(Refusal::Ended);
        }
        Ok(())
    }
}

fn refuse(reason: Refusal) -> TargetStep {
    TargetStep::Refused(Refused::control(reason))
}
