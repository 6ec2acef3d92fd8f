//! The relocation handoff as the runtimes run it between themselves (§2.5
//! PerActor, §3.3 steps 1–8): `begin_relocation` seals the object on the
//! source; Restore, relay-ready, the relay span, cutover, the target's owner
//! CAS and the commit notice travel as frames (commands 45–49); the host
//! only captures and restores the application state.
//!
//! Never two owners: from `begin_relocation` the source delivers nothing
//! for the object (arrivals go to the ingress hold, then to the target); the
//! target delivers nothing before its owner CAS succeeded. Relay-ready is
//! the point of no return: before it, any failure restores the source
//! without reading the store; after it, the source never runs the object
//! again. A source that abandons the move tells the target (Abort), and an
//! Abort from the source withdraws the target even after its relay-ready
//! (the source never accepted it). The one window left is an Abort that
//! reaches the target more than 1,000 ms after its relay-ready, i.e. a round
//! trip on the ordered connection slower than the spec's commit delay.

use std::time::Duration;

use crate::authority::{AuthorityState, WriteFence};
use crate::follow::FollowRoute;
use crate::ids::{ObjectKey, ProposalId, RelocationId};
use crate::inbound::{Delivery, Inbound};
use crate::lifecycle::LifecycleError;
use crate::reason::UnavailableReason;
use crate::relocation::handoff::{FenceStart, Side, SourceLink, TargetLink};
use crate::relocation::{
    COMMIT_AFTER_RELAY_READY, Capture, Refusal, RelocationAction, RelocationError, RelocationEvent,
    RelocationIdentity, RelocationStarted, SourcePhase, SourceStep, TargetPhase, TargetStep,
};
use crate::route::RouteFence;
use crate::send::Outbound;
use crate::store::WriteError;
use crate::wire::{
    AbortReason, Frame, MAX_SAVED_OPERATIONS, NodeRef, Operation, RejectionCode, RelocationFrame,
    Restore, RouteEnd,
};

use super::Runtime;
use super::lifecycle::Write;
use crate::ownership::OwnedObject;
use crate::session::{RelayIn, SessionDelivery, SessionStep};
use crate::wire::ActorRoute;

mod abort;
mod arrivals;
mod source;
mod store_step;
mod target;

pub(super) use abort::Unseal;
pub(crate) use store_step::StoreSteps;
use store_step::{RecordRead, Step};

/// How long a target waits before it asks the store again when the owner
/// CAS could not be answered.
const COMMIT_RETRY: Duration = Duration::from_millis(200);

impl Runtime {
    /// A relocation frame from this runtime to `to`.
    fn frame_to(&self, to: NodeRef, frame: RelocationFrame) -> Outbound {
        Outbound::frame(self.node_ref(), to, &Frame::Relocation(frame))
    }

    /// Source, §3.3 step 1: starts moving the object this node owns to
    /// `target`, after the host's current handler ended. From this call on
    /// nothing for the object is delivered here: arrivals are held, then
    /// relayed to the target. `capture` is what the host hands over (its
    /// accepted, not yet run work and the object's state). Returns the
    /// Restore frame for the target and command 42 for every bound Session.
    pub fn begin_relocation(
        &self,
        kind: crate::ids::ObjectKind,
        id: &str,
        target: NodeRef,
        capture: Capture,
    ) -> Result<RelocationStarted, RelocationError> {
        let key = self.key(kind, id)?.to_owned();
        self.check_capture(&key, &capture)?;
        let me = self.node_ref();
        if target.rid == me.rid {
            return Err(RelocationError::TargetIsSelf);
        }
        // Not while a store recovery event left the record unconfirmed:
        // the work held for it would come out after the move's.
        let owned = self
            .admitting(key.as_ref())
            .filter(|o| o.state == AuthorityState::Ready)
            .ok_or_else(|| RelocationError::NotOwned(key.to_string()))?;
        let tenure = RouteFence {
            object_generation: owned.object_generation,
            authority_owner_generation: owned.authority_owner_generation,
            owner_lease_generation: owned.lease_generation,
            node_generation: me.generation,
            store_version: owned.store_version,
        };
        let identity = RelocationIdentity {
            relocation: RelocationId(self.inner().ids.next()),
            key: key.clone(),
            object_generation: owned.object_generation,
        };
        {
            let mut h = self.inner().handoffs.lock();
            let busy = || RelocationError::AlreadyRelocating(key.to_string());
            if h.target(&key).is_some() {
                return Err(busy());
            }
            match h
                .queues
                .seal_source(identity.clone(), capture.saved.clone())
            {
                SourceStep::Sealed => {}
                _ => return Err(busy()),
            }
            let now = self.now();
            let times = (now, now.after(self.config_now().relocation_timeout));
            let proposal = ProposalId(self.inner().ids.next());
            let link = SourceLink::new(identity.clone(), target, tenure, times, proposal);
            h.link_source(key.clone(), link);
        }
        self.counters().relocation.begun.incr();
        let registrations = self.inner().bindings.bound_sessions(&key);
        let restore = Restore {
            identity: identity.clone(),
            source: me,
            target,
            from: tenure,
            saved: capture.saved,
            registrations,
            state: capture.state,
        };
        let mut send = vec![self.frame_to(target, RelocationFrame::Restore(Box::new(restore)))];
        send.extend(self.seal_sessions(&key, identity.relocation));
        tracing::info!(object = %key, relocation = %identity.relocation, target = %target.rid, "relocation begun: sealed");
        Ok(RelocationStarted { identity, send })
    }

    fn config_now(&self) -> std::sync::Arc<crate::config::RoutingConfig> {
        self.inner().config.get()
    }

    pub(super) fn check_capture(
        &self,
        key: &ObjectKey,
        capture: &Capture,
    ) -> Result<(), RelocationError> {
        let max = self.inner().config.max_state_bytes();
        if capture.state.len() > max {
            return Err(RelocationError::StateTooLarge {
                len: capture.state.len(),
                max,
            });
        }
        if capture.saved.len() > MAX_SAVED_OPERATIONS {
            return Err(RelocationError::TooManySaved {
                len: capture.saved.len(),
                max: MAX_SAVED_OPERATIONS,
            });
        }
        let max = self.inner().config.max_message_bytes();
        for op in &capture.saved {
            if op.target != *key {
                return Err(RelocationError::ForeignOperation(op.target.to_string()));
            }
            if op.payload.len() > max {
                let len = op.payload.len();
                return Err(crate::error::InputError::PayloadTooLarge { len, max }.into());
            }
        }
        Ok(())
    }

    /// Target: the host built the object from the Restore's state; answers
    /// relay-ready to the source (the point of no return, §3.3 step 2). The
    /// owner CAS follows on the source's cutover or 1,000 ms later.
    pub fn relocation_restored(
        &self,
        kind: crate::ids::ObjectKind,
        id: &str,
    ) -> Result<Vec<Outbound>, RelocationError> {
        let key = self.key(kind, id)?.to_owned();
        let me = self.identity();
        let now = self.now();
        let mut h = self.inner().handoffs.lock();
        let (Some(link), Some(identity)) = (h.target(&key).cloned(), h.identity(&key)) else {
            return Err(RelocationError::NotRelocating(key.to_string()));
        };
        match h.queues.target_relay_ready(&identity, now) {
            TargetStep::RelayReady => {}
            TargetStep::Refused(r) => return Err(RelocationError::Refused(r.reason)),
            _ => return Err(RelocationError::Refused(Refusal::AlreadyRelayReady)),
        }
        let commit_at = now.after(COMMIT_AFTER_RELAY_READY);
        h.target_deadline(&key, commit_at);
        drop(h);
        let destination = RouteFence {
            object_generation: identity.object_generation,
            authority_owner_generation: link.from().authority_owner_generation.next(),
            owner_lease_generation: me.lease,
            node_generation: me.generation,
            store_version: crate::ids::StoreVersion(0),
        };
        let ready = RelocationFrame::RelayReady {
            identity,
            target: self.node_ref(),
            destination,
        };
        Ok(vec![self.frame_to(link.source(), ready)])
    }

    /// Abandons a relocation before relay-ready. On the target (the host
    /// could not restore the state) at once: the temporary queue is
    /// discarded and the source told. On the source (the host gives the
    /// move up) the target is told first (`Aborting`); once it confirms,
    /// the object runs here again and its held work comes back in
    /// `deliver` (`Aborted`). After relay-ready it is refused: the move
    /// does not roll back.
    pub fn abort_relocation(
        &self,
        kind: crate::ids::ObjectKind,
        id: &str,
    ) -> Result<RelocationAction, RelocationError> {
        let key = self.key(kind, id)?.to_owned();
        let h = self.inner().handoffs.lock();
        let Some(identity) = h.identity(&key) else {
            return Err(RelocationError::NotRelocating(key.to_string()));
        };
        match (h.source_phase(&key), h.target_phase(&key)) {
            (Some(SourcePhase::Sealed), _) => {
                drop(h);
                Ok(self.start_abort(&key, &identity, AbortReason::Requested))
            }
            (_, Some(TargetPhase::Registered | TargetPhase::Restored)) => {
                drop(h);
                Ok(self.discard_target(&key, &identity, AbortReason::RestoreFailed, true))
            }
            _ => Err(RelocationError::AfterRelayReady),
        }
    }

    /// A relocation frame that came on the connection of `from` (whose
    /// node `on_frame` already checked against the frame's sender).
    pub(crate) fn on_relocation_frame(&self, frame: RelocationFrame) -> Inbound {
        let action = match frame {
            RelocationFrame::Restore(r) => self.on_restore(*r),
            RelocationFrame::RelayReady {
                identity,
                target,
                destination,
            } => self.on_relay_ready(identity, target, destination),
            RelocationFrame::Cutover {
                identity, source, ..
            } => self.on_cutover(identity, source),
            RelocationFrame::Committed {
                identity,
                target,
                destination,
            } => self.on_committed(identity, target, destination),
            RelocationFrame::Abort {
                identity,
                by,
                reason,
            } => self.on_abort(identity, by, reason),
        };
        Inbound::Relocation(action)
    }

    /// The links of a move that ended (as `unlink_ended` gives them),
    /// their time recorded: a source's whole move, a target's held time.
    /// The target's link, for what follows.
    pub(super) fn ended(
        &self,
        (source, target): (Option<SourceLink>, Option<TargetLink>),
    ) -> Option<TargetLink> {
        let now = self.now();
        let latencies = &self.inner().latencies;
        if let Some(link) = source {
            latencies.relocation.record(now.since(link.began()));
        }
        if let Some(link) = &target {
            latencies.relocation_held.record(now.since(link.began()));
        }
        target
    }

    pub(super) fn ignored(
        &self,
        identity: RelocationIdentity,
        refusal: Refusal,
    ) -> RelocationAction {
        self.counters().relocation.refused.incr();
        tracing::info!(object = %identity.key, relocation = %identity.relocation, ?refusal, "relocation frame refused");
        RelocationAction::event(RelocationEvent::Ignored { identity, refusal })
    }

    /// Command 49 from the other side of a relocation. On the target, an
    /// Abort from the source (before the switch) discards and is confirmed;
    /// one for a relocation not (or no longer) registered here is confirmed
    /// too, or answered with the commit if this node already took the
    /// object. On the source, an Abort from the target unseals (before
    /// relay-ready) or ends the source's side (a refused owner CAS).
    pub(super) fn on_abort(
        &self,
        identity: RelocationIdentity,
        by: NodeRef,
        reason: AbortReason,
    ) -> RelocationAction {
        let key = identity.key.clone();
        let h = self.inner().handoffs.lock();
        let same = h.identity(&key).as_ref() == Some(&identity);
        // The peer's lifecycle generation must match too: a restarted
        // target knows nothing of the move and confirms any Abort, though
        // its previous process may have committed (two owners if the source
        // unsealed on that word); the fence decides instead.
        let from_target = h.source(&key).is_some_and(|l| l.target() == by);
        // While the abort's fence is in flight the store decides: a
        // confirmation (or a refused CAS) from the target is not acted on.
        let fencing = h.fencing(&key);
        let from_source = h.target(&key).is_some_and(|l| l.source() == by);
        let (source_phase, target_phase) = (h.source_phase(&key), h.target_phase(&key));
        // Known here once ended (either side): a late Abort of it is not
        // answered, so two nodes never answer each other's answers.
        let unknown = source_phase.is_none()
            && target_phase.is_none()
            && !h.source_ended(&identity)
            && !h.was_aborted(&identity);
        drop(h);
        match (same, from_source, from_target, source_phase) {
            (true, true, _, _) => self.withdraw_target(&key, &identity, by, reason),
            (true, _, true, Some(SourcePhase::Sealed)) if fencing => {
                self.ignored(identity, Refusal::Fencing)
            }
            (true, _, true, Some(SourcePhase::Sealed)) if reason == AbortReason::CommitFailed => {
                self.fail_sealed_source(&key, &identity, reason, true)
            }
            (true, _, true, Some(SourcePhase::Sealed)) => {
                self.unseal(&key, &identity, reason, Unseal::Confirmed)
            }
            (true, _, true, Some(_)) => self.end_source(&key, &identity, reason),
            (false, ..) if unknown => self.answer_unknown_abort(identity, by, reason),
            _ => self.ignored(identity, Refusal::NotRelocating),
        }
    }

    /// Every relocation deadline due at `now`: a source still sealed
    /// (unsealed: Timeout), a source that heard no commit (its side ends),
    /// a target whose host did not restore (discarded), a target whose
    /// commit is due (the owner CAS, §3.3 step 4) or must be retried.
    pub(crate) fn relocation_timeouts(&self, now: crate::clock::MonoTime, out: &mut Vec<Inbound>) {
        self.store_steps_answered(out);
        loop {
            let mut h = self.inner().handoffs.lock();
            let Some((side, key)) = h.pop_due(now) else {
                return;
            };
            let Some(identity) = h.identity(&key) else {
                continue;
            };
            let (source, target) = (h.source_phase(&key), h.target_phase(&key));
            drop(h);
            let action = match (side, source, target) {
                (Side::Source, Some(SourcePhase::Sealed), _) => {
                    let aborting = self
                        .inner()
                        .handoffs
                        .lock()
                        .source(&key)
                        .and_then(|l| l.aborting());
                    match aborting {
                        None => self.start_abort(&key, &identity, AbortReason::Timeout),
                        Some(reason) => match self.fence_abort(&key, &identity, reason) {
                            Some(action) => action,
                            None => continue,
                        },
                    }
                }
                (Side::Source, Some(_), _) => {
                    self.end_source(&key, &identity, AbortReason::Timeout)
                }
                (Side::Target, _, Some(TargetPhase::RelayReady)) => {
                    match self.commit(&key, &identity) {
                        Some(action) => action,
                        None => continue,
                    }
                }
                (Side::Target, _, Some(_)) => {
                    self.discard_target(&key, &identity, AbortReason::Timeout, true)
                }
                _ => continue,
            };
            out.push(Inbound::Relocation(action));
        }
    }
}
