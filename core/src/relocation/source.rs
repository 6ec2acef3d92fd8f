//! The source side of a relocation handoff: seal, saved work, ingress hold,
//! relay until cutover, restore on an early failure (§2.5, §3.3 steps 1-3).

use std::mem;

use super::{Refusal, Refused, RelocationIdentity};
use crate::wire::Operation;

/// Where a source is in its relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourcePhase {
    /// Sealed at capture: no new dispatch; arrivals go to the ingress hold.
    Sealed,
    /// The target is relay-ready: the hold was relayed and arrivals are
    /// relayed as they come, on the same ordered connection.
    Relaying,
    /// The cutover marker was sent after the relay prefix. Arrivals are still
    /// relayed behind it to the target's temporary queue until the target
    /// switches (§2.5 step 3), so nothing falls into a gap before the
    /// Message Follow route exists.
    CutOver,
    /// Failed before relay-ready: the work went back to local dispatch and
    /// the seal is released.
    Restored,
    /// The target committed; Message Follow owns the previous route now.
    Finished,
}

impl SourcePhase {
    /// Whether this side of the relocation is over.
    pub fn is_ended(self) -> bool {
        matches!(self, SourcePhase::Restored | SourcePhase::Finished)
    }
}

/// What the source host does after a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "every step carries work or a refusal the host must act on"]
// An operation given back is moved once, by value: boxing it would cost an
// allocation per operation to save stack bytes.
#[allow(clippy::large_enum_variant)]
pub enum SourceStep {
    /// The object is sealed: stop dispatching it; the saved work is kept
    /// here (send it with the Restore request, see
    /// [`RelocationSource::saved_work`]).
    Sealed,
    /// The operation is in the ingress hold.
    Held,
    /// Send these to the target, in this order, on the ordered relocation
    /// connection. They are exactly the operations that arrived (identity,
    /// generation, payload and reply route unchanged).
    Relay(Vec<Operation>),
    /// Send the cutover marker now: every relay returned so far precedes it.
    Cutover,
    /// Failed before relay-ready: dispatch these locally in this order (the
    /// saved work, then the ingress hold); the seal is released.
    Restore(Vec<Operation>),
    /// The relocation is over on this side.
    Finished,
    /// This relocation does not cover the operation (none running, or this
    /// side already ended): admit it normally, unchanged.
    NotRelocating(Operation),
    /// Refused: nothing changed; any operation is given back.
    Refused(Refused),
}

/// The source of one relocation: saved work and the ingress hold.
#[derive(Debug)]
pub struct RelocationSource {
    identity: RelocationIdentity,
    phase: SourcePhase,
    /// Previous queue then accepted journal, as captured. Kept until
    /// relay-ready because an earlier failure dispatches it here again.
    saved: Vec<Operation>,
    /// Arrivals after the seal, in arrival order.
    hold: Vec<Operation>,
    relayed: u64,
}

impl RelocationSource {
    /// §3.3 step 1: seals the object at capture. `captured` is the work
    /// accepted before the seal (previous queue, then accepted journal), in
    /// dispatch order; the host hands it over and no longer dispatches it.
    ///
    /// The captured work is not checked against the incarnation: the
    /// current Ready object already accepted it (§2.6).
    pub fn seal(identity: RelocationIdentity, captured: Vec<Operation>) -> Self {
        RelocationSource {
            identity,
            phase: SourcePhase::Sealed,
            saved: captured,
            hold: Vec::new(),
            relayed: 0,
        }
    }

    /// The relocation this source belongs to.
    pub fn identity(&self) -> &RelocationIdentity {
        &self.identity
    }

    /// Where it is.
    pub fn phase(&self) -> SourcePhase {
        self.phase
    }

    /// The saved work to transfer with the Restore request (§3.3 step 2).
    /// The source keeps its own copy until relay-ready, when it is handed
    /// off for good (empty from then on).
    pub fn saved_work(&self) -> &[Operation] {
        &self.saved
    }

    /// The ingress hold, in arrival order.
    pub fn held(&self) -> &[Operation] {
        &self.hold
    }

    /// How many operations were relayed to the target so far.
    pub fn relayed(&self) -> u64 {
        self.relayed
    }

    /// An operation for the object arrived at the source.
    ///
    /// Sealed: [`Held`](SourceStep::Held). Relay-ready or cut over:
    /// [`Relay`](SourceStep::Relay) of just this operation. Another object
    /// or incarnation: [`Refused`](SourceStep::Refused) with the operation.
    /// Ended: [`NotRelocating`](SourceStep::NotRelocating).
    pub fn on_arrival(&mut self, op: Operation) -> SourceStep {
        if self.phase.is_ended() {
            return SourceStep::NotRelocating(op);
        }
        if let Err(reason) = self.identity.check_operation(&op) {
            return SourceStep::Refused(Refused::operations(reason, vec![op]));
        }
        match self.phase {
            SourcePhase::Sealed => {
                self.hold.push(op);
                SourceStep::Held
            }
            SourcePhase::Relaying | SourcePhase::CutOver => {
                self.relayed += 1;
                SourceStep::Relay(vec![op])
            }
            SourcePhase::Restored | SourcePhase::Finished => SourceStep::NotRelocating(op),
        }
    }

    /// The target reported relay-ready (§3.3 step 2): the ingress hold is
    /// relayed in arrival order, and the saved work is handed off (the
    /// target restored it; no rollback from here).
    pub fn on_relay_ready(&mut self, identity: &RelocationIdentity) -> SourceStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            SourcePhase::Sealed => {
                self.phase = SourcePhase::Relaying;
                self.saved.clear();
                let held = mem::take(&mut self.hold);
                self.relayed += held.len() as u64;
                SourceStep::Relay(held)
            }
            _ => refuse(Refusal::AlreadyRelayReady),
        }
    }

    /// §3.3 step 3: ends the relay span after the current relay prefix;
    /// returns [`Cutover`](SourceStep::Cutover) for the host to send.
    pub fn cutover(&mut self, identity: &RelocationIdentity) -> SourceStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            SourcePhase::Sealed => refuse(Refusal::NotRelayReady),
            SourcePhase::Relaying => {
                self.phase = SourcePhase::CutOver;
                SourceStep::Cutover
            }
            _ => refuse(Refusal::AlreadyCutOver),
        }
    }

    /// Explicit relocation failure. Before relay-ready the source is
    /// restored: [`Restore`](SourceStep::Restore) with the saved work then
    /// the hold, in order, and the seal is released. After relay-ready the
    /// failure is refused with [`AfterRelayReady`](Refusal::AfterRelayReady):
    /// the target may already run the work, so rolling back could run it
    /// twice.
    ///
    /// A coordinator should fail the target first and restore the source
    /// only once the target has discarded its queue: a relay-ready still in
    /// flight would otherwise let both sides run the saved work.
    pub fn fail(&mut self, identity: &RelocationIdentity) -> SourceStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            SourcePhase::Sealed => {
                self.phase = SourcePhase::Restored;
                let mut work = mem::take(&mut self.saved);
                work.append(&mut self.hold);
                SourceStep::Restore(work)
            }
            _ => refuse(Refusal::AfterRelayReady),
        }
    }

    /// The target committed and switched: this side is over, and an
    /// operation still arriving on the previous route goes through the
    /// object's Message Follow route.
    pub fn finish(&mut self, identity: &RelocationIdentity) -> SourceStep {
        if let Err(reason) = self.check(identity) {
            return refuse(reason);
        }
        match self.phase {
            SourcePhase::Sealed => refuse(Refusal::NotRelayReady),
            _ => {
                self.phase = SourcePhase::Finished;
                SourceStep::Finished
            }
        }
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

fn refuse(reason: Refusal) -> SourceStep {
    SourceStep::Refused(Refused::control(reason))
}
