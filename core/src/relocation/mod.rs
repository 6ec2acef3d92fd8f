//! Relocation handoff queues (spec §2.5 "PerActor User Spot relocation",
//! §3.3 steps 1-5): the routing-side queues that carry an object's work from
//! its source owner to its target owner without losing, duplicating or
//! reordering an operation.
//!
//! The application queue belongs to the host. The core keeps only what the
//! routing decision needs and decides the order:
//!
//! - on the source, a [`RelocationSource`]: sealed at capture, it keeps the
//!   saved work (previous queue and accepted journal) until the target is
//!   relay-ready, holds new arrivals in the *ingress hold*, then relays them,
//!   in order and unchanged, on the ordered relocation connection;
//! - on the target, a [`RelocationTarget`]: the *temporary queue*, registered
//!   before the object instance exists, collects arrivals until the owner CAS,
//!   and [`switch`](RelocationTarget::switch) yields the merge order (saved
//!   work first, then the temporary queue in arrival order);
//! - [`RelocationQueues`] keys both by the object (kind and ID), so a Spot's
//!   relocation and the relocation of an Actor inside that Spot never share a
//!   queue and each switches to dispatch on its own (§5, PerActor bullet).
//!
//! Everything here is synchronous and deterministic (DESIGN §3): time comes
//! in as a [`MonoTime`] argument, every call returns a closed result, and an
//! operation the module does not take is handed back, never dropped.

pub(crate) mod handoff;
mod host;
mod source;
mod target;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::clock::MonoTime;
use crate::ids::ObjectKey;
use crate::wire::Operation;
pub use crate::wire::RelocationIdentity;

pub use host::{Capture, RelocationAction, RelocationError, RelocationEvent, RelocationStarted};
pub use source::{RelocationSource, SourcePhase, SourceStep};
pub use target::{COMMIT_AFTER_RELAY_READY, RelocationTarget, TargetPhase, TargetStep};

impl RelocationIdentity {
    /// Whether a control call names this relocation; the most basic mismatch
    /// is reported first so the caller learns the real cause.
    fn check_control(&self, other: &RelocationIdentity) -> Result<(), Refusal> {
        if other.key != self.key {
            Err(Refusal::WrongTarget)
        } else if other.object_generation != self.object_generation {
            Err(Refusal::WrongIncarnation)
        } else if other.relocation != self.relocation {
            Err(Refusal::WrongRelocation)
        } else {
            Ok(())
        }
    }

    /// Whether an arriving operation belongs to the moving incarnation. Held
    /// and relayed work travels like a Message Follow relay, where another
    /// incarnation is InvalidOperation (§2.5), never silently retargeted.
    fn check_operation(&self, op: &Operation) -> Result<(), Refusal> {
        if op.target != self.key {
            Err(Refusal::WrongTarget)
        } else if op.object_generation != self.object_generation {
            Err(Refusal::WrongIncarnation)
        } else {
            Ok(())
        }
    }
}

/// Why a relocation queue refused a call. Nothing changed on a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// No relocation of this object is registered here: handle the call as
    /// if no relocation were running (an operation goes through normal
    /// admission).
    NotRelocating,
    /// A relocation of this object is already registered on this side;
    /// finish or fail it first.
    AlreadyRelocating,
    /// The call or operation is for another object than this relocation's.
    WrongTarget,
    /// The call or operation is for another incarnation of the object: end
    /// the operation InvalidOperation; ignore the control message.
    WrongIncarnation,
    /// The control message belongs to another relocation of the same
    /// incarnation (a late one): ignore it.
    WrongRelocation,
    /// The target has not restored the saved work yet: restore first.
    NotRestored,
    /// The saved work was already restored; it is set exactly once.
    AlreadyRestored,
    /// Relay-ready has not happened yet on this side: cutover, switch and
    /// finish wait for it.
    NotRelayReady,
    /// Relay-ready already happened on this side.
    AlreadyRelayReady,
    /// The source already sent its cutover (or the target already took it).
    AlreadyCutOver,
    /// A failure after relay-ready: the relocation is past the point of no
    /// return and does not roll back (§3.3); it goes on to the target.
    AfterRelayReady,
    /// This side of the relocation already ended (restored, finished,
    /// switched or discarded). A late cutover after a timer-driven switch
    /// lands here and is harmless.
    Ended,
    /// The source gave the move up and is fencing the store: the store's
    /// answer decides how the move ends (unsealed here, or handed off), so a
    /// control message from the target meanwhile changes nothing.
    Fencing,
}

/// A refused call: the reason, and every operation the call carried, given
/// back unchanged so the caller decides its fate (nothing is dropped here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Why.
    pub reason: Refusal,
    /// The operations the call carried, in the order given; empty for a
    /// control call.
    pub returned: Vec<Operation>,
}

impl Refused {
    fn control(reason: Refusal) -> Self {
        Refused {
            reason,
            returned: Vec::new(),
        }
    }

    fn operations(reason: Refusal, returned: Vec<Operation>) -> Self {
        Refused { reason, returned }
    }
}

/// The relocation queues of one node: at most one source entry and one
/// target entry per object key. The key carries the object kind, so a Spot
/// and an Actor are separate entries even under the same ID: a Spot
/// relocation (ToSpot, Spot authority) and an Actor relocation (ToActor, the
/// per-Actor owner) never share a queue, and each switches on its own.
///
/// An entry leaves when its side ends (restored, finished, switched or
/// discarded); from then on the object's operations get
/// [`NotRelocating`](SourceStep::NotRelocating) back and go through normal
/// admission.
#[derive(Debug, Default)]
pub struct RelocationQueues {
    sources: HashMap<ObjectKey, RelocationSource>,
    targets: HashMap<ObjectKey, RelocationTarget>,
}

impl RelocationQueues {
    /// No relocation registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// The source entry of `key`, if this node is sealing or relaying it.
    pub fn source(&self, key: &ObjectKey) -> Option<&RelocationSource> {
        self.sources.get(key)
    }

    /// The target entry of `key`, if this node holds its temporary queue.
    pub fn target(&self, key: &ObjectKey) -> Option<&RelocationTarget> {
        self.targets.get(key)
    }

    /// Whether no relocation is registered on either side.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.targets.is_empty()
    }

    /// Source, §3.3 step 1: seals the object with its captured saved work
    /// (previous queue then accepted journal, in order). Returns
    /// [`Sealed`](SourceStep::Sealed), or a refusal giving `captured` back
    /// when the object is already relocating from here.
    pub fn seal_source(
        &mut self,
        identity: RelocationIdentity,
        captured: Vec<Operation>,
    ) -> SourceStep {
        if self.sources.contains_key(&identity.key) {
            return SourceStep::Refused(Refused::operations(Refusal::AlreadyRelocating, captured));
        }
        let key = identity.key.clone();
        self.sources
            .insert(key, RelocationSource::seal(identity, captured));
        SourceStep::Sealed
    }

    /// Source: an operation for `op.target` arrived here. Without a source
    /// entry for that exact object (kind and ID) it is
    /// [`NotRelocating`](SourceStep::NotRelocating): an Actor still on the
    /// source keeps its route while its Spot moves.
    pub fn source_arrival(&mut self, op: Operation) -> SourceStep {
        match self.sources.get_mut(&op.target) {
            Some(source) => source.on_arrival(op),
            None => SourceStep::NotRelocating(op),
        }
    }

    /// Source: the target reported relay-ready; see
    /// [`RelocationSource::on_relay_ready`].
    pub fn source_relay_ready(&mut self, identity: &RelocationIdentity) -> SourceStep {
        self.on_source(identity, |s| s.on_relay_ready(identity))
    }

    /// Source: ends the relay span; see [`RelocationSource::cutover`].
    pub fn source_cutover(&mut self, identity: &RelocationIdentity) -> SourceStep {
        self.on_source(identity, |s| s.cutover(identity))
    }

    /// Source: explicit failure; on [`Restore`](SourceStep::Restore) the
    /// entry (and the seal) is released. See [`RelocationSource::fail`].
    pub fn source_fail(&mut self, identity: &RelocationIdentity) -> SourceStep {
        self.on_source(identity, |s| s.fail(identity))
    }

    /// Source: the target committed; the entry leaves and Message Follow
    /// takes over the previous route. See [`RelocationSource::finish`].
    pub fn source_finish(&mut self, identity: &RelocationIdentity) -> SourceStep {
        self.on_source(identity, |s| s.finish(identity))
    }

    fn on_source(
        &mut self,
        identity: &RelocationIdentity,
        call: impl FnOnce(&mut RelocationSource) -> SourceStep,
    ) -> SourceStep {
        let Some(source) = self.sources.get_mut(&identity.key) else {
            return SourceStep::Refused(Refused::control(Refusal::NotRelocating));
        };
        let step = call(source);
        if source.phase().is_ended() {
            self.sources.remove(&identity.key);
        }
        step
    }

    /// Target, §2.5 step 1: registers the temporary queue before the object
    /// instance exists. Returns [`Registered`](TargetStep::Registered), or a
    /// refusal when the object already has a temporary queue here.
    pub fn register_target(&mut self, identity: RelocationIdentity) -> TargetStep {
        if self.targets.contains_key(&identity.key) {
            return TargetStep::Refused(Refused::control(Refusal::AlreadyRelocating));
        }
        let key = identity.key.clone();
        self.targets
            .insert(key, RelocationTarget::register(identity));
        TargetStep::Registered
    }

    /// Target: the saved work the source transferred with Restore; see
    /// [`RelocationTarget::restore`]. A refusal gives `saved` back.
    pub fn target_restore(
        &mut self,
        identity: &RelocationIdentity,
        saved: Vec<Operation>,
    ) -> TargetStep {
        match self.targets.get_mut(&identity.key) {
            Some(target) => target.restore(identity, saved),
            None => TargetStep::Refused(Refused::operations(Refusal::NotRelocating, saved)),
        }
    }

    /// Target: Restore finished; see [`RelocationTarget::relay_ready`].
    pub fn target_relay_ready(
        &mut self,
        identity: &RelocationIdentity,
        now: MonoTime,
    ) -> TargetStep {
        self.on_target(identity, |t| t.relay_ready(identity, now))
    }

    /// Target: an operation for `op.target` arrived here (relayed from the
    /// source or sent directly). Without a temporary queue for that exact
    /// object it is [`NotRelocating`](TargetStep::NotRelocating).
    pub fn target_arrival(&mut self, op: Operation) -> TargetStep {
        match self.targets.get_mut(&op.target) {
            Some(target) => target.on_arrival(op),
            None => TargetStep::NotRelocating(op),
        }
    }

    /// Target: the source's cutover arrived; see
    /// [`RelocationTarget::on_cutover`].
    pub fn target_cutover(&mut self, identity: &RelocationIdentity) -> TargetStep {
        self.on_target(identity, |t| t.on_cutover(identity))
    }

    /// Target: the relocations whose owner CAS is due at `now` (cutover
    /// received, or [`COMMIT_AFTER_RELAY_READY`] past relay-ready), in key
    /// order so a host ticking this is deterministic.
    pub fn target_commits_due(&self, now: MonoTime) -> Vec<RelocationIdentity> {
        let mut due: Vec<RelocationIdentity> = self
            .targets
            .values()
            .filter(|t| t.commit_due(now))
            .map(|t| t.identity().clone())
            .collect();
        due.sort_by(|a, b| a.key.cmp(&b.key));
        due
    }

    /// Target, after the owner CAS: the merge order; the temporary queue
    /// registration is removed. See [`RelocationTarget::switch`].
    pub fn target_switch(&mut self, identity: &RelocationIdentity) -> TargetStep {
        self.on_target(identity, |t| t.switch(identity))
    }

    /// Target: the source withdrew; see [`RelocationTarget::withdraw`].
    pub fn target_withdraw(&mut self, identity: &RelocationIdentity) -> TargetStep {
        self.on_target(identity, |t| t.withdraw(identity))
    }

    /// Target: the owner CAS was refused; see [`RelocationTarget::abandon`].
    pub fn target_abandon(&mut self, identity: &RelocationIdentity) -> TargetStep {
        self.on_target(identity, |t| t.abandon(identity))
    }

    /// Target: explicit failure; on [`Discarded`](TargetStep::Discarded) the
    /// registration is removed. See [`RelocationTarget::fail`].
    pub fn target_fail(&mut self, identity: &RelocationIdentity) -> TargetStep {
        self.on_target(identity, |t| t.fail(identity))
    }

    fn on_target(
        &mut self,
        identity: &RelocationIdentity,
        call: impl FnOnce(&mut RelocationTarget) -> TargetStep,
    ) -> TargetStep {
        let Some(target) = self.targets.get_mut(&identity.key) else {
            return TargetStep::Refused(Refused::control(Refusal::NotRelocating));
        };
        let step = call(target);
        if target.phase().is_ended() {
            self.targets.remove(&identity.key);
        }
        step
    }
}
