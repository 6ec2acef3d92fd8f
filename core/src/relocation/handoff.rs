//! The relocations running on this node as the runtime drives them: the
//! queues of [`RelocationQueues`] plus what each side must remember about
//! the other (its node, the source's tenure, the tenure the target will
//! hold) and the one deadline each side waits on (§3.3 steps 2–4).
//!
//! Each link's fields are private: the runtime reads them, and changes
//! them only through the named steps here (the abort fence starting and
//! ending, the owner CAS beginning, answered or refused, a withdrawal while
//! it may be in the store).
//!
//! Thread-safe: one lock, taken only when a relocation runs. An operation's
//! frame path first reads [`Handoffs::active`] (one relaxed load) and takes
//! the lock only if some relocation is registered here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::clock::MonoTime;
use crate::ids::{ObjectKey, ProposalId};
use crate::route::RouteFence;
use crate::session::RelayIn;
use crate::timer::Deadlines;
use crate::wire::{AbortReason, NodeRef, Registration};

use super::{RelocationIdentity, RelocationQueues, SourcePhase, TargetPhase};

/// What a source remembers of its relocation.
#[derive(Debug, Clone)]
pub(crate) struct SourceLink {
    /// The relocation.
    identity: RelocationIdentity,
    /// The target runtime.
    target: NodeRef,
    /// This node's tenure when the move began (the follow route's source).
    tenure: RouteFence,
    /// The tenure the target will hold, from its relay-ready: what relays
    /// carry so they pass the target's admission after its switch.
    destination: Option<RouteFence>,
    /// Relay-ready (sealed) or the commit (relaying) is due by then.
    deadline: MonoTime,
    /// The source gave the move up before relay-ready and waits for the
    /// target to confirm it discarded (or for the store fence).
    aborting: Option<AbortReason>,
    /// The proposal of the abort's store fence, reused by every attempt.
    proposal: ProposalId,
    /// The abort's store fence is in flight on the store's I/O: only its
    /// answer decides how the move ends (the link stays until then, so no
    /// new move of the object begins and no stale answer meets another).
    fencing: bool,
    /// When the move began (its duration's start).
    began: MonoTime,
}

/// What a target remembers of its relocation.
#[derive(Debug, Clone)]
pub(crate) struct TargetLink {
    /// The source runtime.
    source: NodeRef,
    /// The source's tenure: what the owner CAS expects.
    from: RouteFence,
    /// Sessions bound on the source, registered here at the switch.
    registrations: Vec<Registration>,
    /// The host's restore (before relay-ready) or the owner CAS (after) is
    /// due by then.
    deadline: MonoTime,
    /// The owner CAS's proposal: every attempt reuses it, so an attempt
    /// applied whose answer was lost is recognised, never written twice.
    proposal: ProposalId,
    /// A CAS is running (outside the lock).
    committing: bool,
    /// A CAS attempt was sent: its outcome may be in the store even if its
    /// answer was lost, so only the store decides from here.
    cas_sent: bool,
    /// The source asked to withdraw while a CAS was in flight or its outcome
    /// unknown: answered once the store has decided.
    withdrawn: Option<AbortReason>,
    /// When the Restore came: from then on the object's work is held here.
    began: MonoTime,
}

impl SourceLink {
    /// A source's link when its move is sealed at `began`: the target,
    /// this node's tenure, the deadline of relay-ready and the abort
    /// fence's proposal.
    pub(crate) fn new(
        identity: RelocationIdentity,
        target: NodeRef,
        tenure: RouteFence,
        (began, deadline): (MonoTime, MonoTime),
        proposal: ProposalId,
    ) -> Self {
        SourceLink {
            identity,
            target,
            tenure,
            destination: None,
            deadline,
            aborting: None,
            proposal,
            fencing: false,
            began,
        }
    }

    /// When the move began.
    pub(crate) fn began(&self) -> MonoTime {
        self.began
    }

    /// The relocation.
    pub(crate) fn identity(&self) -> &RelocationIdentity {
        &self.identity
    }

    /// The target runtime.
    pub(crate) fn target(&self) -> NodeRef {
        self.target
    }

    /// This node's tenure when the move began.
    pub(crate) fn tenure(&self) -> RouteFence {
        self.tenure
    }

    /// The tenure the target will hold, once it is relay-ready.
    pub(crate) fn destination(&self) -> Option<RouteFence> {
        self.destination
    }

    /// Whether the source gave the move up before relay-ready (and why).
    pub(crate) fn aborting(&self) -> Option<AbortReason> {
        self.aborting
    }

    /// The abort fence's proposal.
    pub(crate) fn proposal(&self) -> ProposalId {
        self.proposal
    }

    /// The link once the target is relay-ready with `destination`.
    pub(crate) fn relaying(self, destination: RouteFence) -> Self {
        SourceLink {
            destination: Some(destination),
            ..self
        }
    }
}

impl TargetLink {
    /// A target's link when a Restore registers it at `began`: the
    /// source, its tenure, the Sessions bound there, the restore's deadline
    /// and the owner CAS's proposal.
    pub(crate) fn new(
        source: NodeRef,
        from: RouteFence,
        registrations: Vec<Registration>,
        (began, deadline): (MonoTime, MonoTime),
        proposal: ProposalId,
    ) -> Self {
        TargetLink {
            source,
            from,
            registrations,
            deadline,
            proposal,
            committing: false,
            cas_sent: false,
            withdrawn: None,
            began,
        }
    }

    /// When the Restore came.
    pub(crate) fn began(&self) -> MonoTime {
        self.began
    }

    /// The source runtime.
    pub(crate) fn source(&self) -> NodeRef {
        self.source
    }

    /// The source's tenure (what the owner CAS expects).
    pub(crate) fn from(&self) -> RouteFence {
        self.from
    }

    /// The Sessions bound on the source.
    pub(crate) fn registrations(&self) -> &[Registration] {
        &self.registrations
    }

    /// Whether the store may hold this target's owner CAS (one is in
    /// flight, or one was sent whose outcome is unknown).
    pub(crate) fn cas_pending(&self) -> bool {
        self.committing || self.cas_sent
    }
}

/// Whether a source's abort fence may start.
#[derive(Debug)]
pub(crate) enum FenceStart {
    /// It started: the link as it stands.
    Started(SourceLink),
    /// One is in flight already: its answer decides.
    InFlight,
    /// No link of this relocation.
    NoLink,
}

/// Which side a deadline belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Side {
    /// This node is the source.
    Source,
    /// This node is the target.
    Target,
}

/// The relocations of one node.
#[derive(Debug, Default)]
pub(crate) struct Handoffs {
    state: Mutex<State>,
    active: AtomicUsize,
}

/// The guarded state; the runtime works on it through [`Handoffs::lock`].
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The queues and phases.
    pub(crate) queues: RelocationQueues,
    sources: HashMap<ObjectKey, SourceLink>,
    targets: HashMap<ObjectKey, TargetLink>,
    timers: Deadlines<(Side, ObjectKey)>,
    /// Session relays held for a relocating Actor (either side), in
    /// arrival order.
    relays: HashMap<ObjectKey, Vec<RelayIn>>,
    /// Relocations a target confirmed abandoned, newest last: a Restore of
    /// one of them that arrives late is refused, so it can never commit.
    aborted: std::collections::VecDeque<RelocationIdentity>,
    /// Relocations this node was the source of and that ended, newest
    /// last: a late Abort of one of them is not answered.
    ended_sources: std::collections::VecDeque<RelocationIdentity>,
}

/// How many abandoned relocations a target remembers.
const ABORTED_KEPT: usize = 4096;

impl Handoffs {
    /// Whether any relocation is registered here (no lock).
    pub(crate) fn active(&self) -> bool {
        self.active.load(Ordering::Acquire) > 0
    }

    /// Whether `key` is arriving here (this node is a relocation's
    /// target, before its switch). One relaxed load when nothing relocates.
    pub(crate) fn arriving(&self, key: crate::ids::KeyRef<'_>) -> bool {
        self.active() && self.lock().target(&key.to_owned()).is_some()
    }

    /// The state, locked; the active count follows it when the guard drops.
    pub(crate) fn lock(&self) -> Guard<'_> {
        Guard {
            state: self.state.lock().unwrap_or_else(|p| p.into_inner()),
            active: &self.active,
        }
    }

    /// The earliest deadline of a relocation still linked here.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        if !self.active() {
            return None;
        }
        let mut h = self.lock();
        let State {
            sources,
            targets,
            timers,
            ..
        } = &mut *h;
        timers.next_live(|(side, k)| match side {
            Side::Source => sources.contains_key(k),
            Side::Target => targets.contains_key(k),
        })
    }

    /// Table sizes: sources, targets, deadline entries.
    pub(crate) fn sizes(&self) -> (usize, usize, usize) {
        let s = self.lock();
        (s.sources.len(), s.targets.len(), s.timers.len())
    }
}

/// A locked [`State`]; on drop, publishes whether anything is registered.
pub(crate) struct Guard<'a> {
    state: MutexGuard<'a, State>,
    active: &'a AtomicUsize,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let n = self.state.sources.len() + self.state.targets.len();
        self.active.store(n, Ordering::Release);
    }
}

impl std::ops::Deref for Guard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.state
    }
}

impl std::ops::DerefMut for Guard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

impl State {
    /// The source link of `key`.
    pub(crate) fn source(&self, key: &ObjectKey) -> Option<&SourceLink> {
        self.sources.get(key)
    }

    /// The target link of `key`.
    pub(crate) fn target(&self, key: &ObjectKey) -> Option<&TargetLink> {
        self.targets.get(key)
    }

    /// Source: starts the abort fence of `identity`, one at a time.
    pub(crate) fn start_fence(
        &mut self,
        key: &ObjectKey,
        identity: &RelocationIdentity,
    ) -> FenceStart {
        match self.sources.get_mut(key) {
            Some(l) if l.fencing => FenceStart::InFlight,
            Some(l) if l.identity == *identity => {
                l.fencing = true;
                FenceStart::Started(l.clone())
            }
            _ => FenceStart::NoLink,
        }
    }

    /// Source: the abort fence is no longer in flight.
    pub(crate) fn end_fence(&mut self, key: &ObjectKey) {
        if let Some(l) = self.sources.get_mut(key) {
            l.fencing = false;
        }
    }

    /// Whether `key`'s source link waits on its abort fence's answer.
    pub(crate) fn fencing(&self, key: &ObjectKey) -> bool {
        self.sources.get(key).is_some_and(|l| l.fencing)
    }

    /// Target: starts the owner CAS (none running): the source's tenure,
    /// the proposal and the source; None if no link or one runs.
    pub(crate) fn begin_cas(
        &mut self,
        key: &ObjectKey,
    ) -> Option<(RouteFence, ProposalId, NodeRef)> {
        let link = self.targets.get_mut(key).filter(|l| !l.committing)?;
        link.committing = true;
        link.cas_sent = true;
        Some((link.from, link.proposal, link.source))
    }

    /// Target: the owner CAS answered (it no longer runs).
    pub(crate) fn cas_answered(&mut self, key: &ObjectKey) {
        if let Some(link) = self.targets.get_mut(key) {
            link.committing = false;
        }
    }

    /// Target: the store refused the owner CAS, so none of its attempts can
    /// still land; the source's withdrawal heard meanwhile, if any.
    pub(crate) fn cas_refused(&mut self, key: &ObjectKey) -> Option<AbortReason> {
        let link = self.targets.get_mut(key)?;
        link.cas_sent = false;
        link.withdrawn
    }

    /// Target: the source asks to withdraw while the store may hold the
    /// owner CAS: remembered (answered once the store decides); false when
    /// no CAS is pending, so the withdrawal can happen now.
    pub(crate) fn withdraw_during_cas(&mut self, key: &ObjectKey, reason: AbortReason) -> bool {
        match self.targets.get_mut(key).filter(|l| l.cas_pending()) {
            Some(link) => {
                link.withdrawn = Some(reason);
                true
            }
            None => false,
        }
    }

    /// Remembers the source side of a relocation just sealed.
    pub(crate) fn link_source(&mut self, key: ObjectKey, link: SourceLink) {
        self.timers
            .schedule(link.deadline, (Side::Source, key.clone()));
        self.sources.insert(key, link);
    }

    /// Remembers the target side of a relocation just registered.
    pub(crate) fn link_target(&mut self, key: ObjectKey, link: TargetLink) {
        self.timers
            .schedule(link.deadline, (Side::Target, key.clone()));
        self.targets.insert(key, link);
    }

    /// Moves the source's deadline and records the target's tenure.
    pub(crate) fn source_relaying(
        &mut self,
        key: &ObjectKey,
        destination: RouteFence,
        deadline: MonoTime,
    ) {
        if let Some(link) = self.sources.get_mut(key) {
            link.destination = Some(destination);
            link.deadline = deadline;
            self.timers.schedule(deadline, (Side::Source, key.clone()));
        }
    }

    /// The source gave the move up: it waits for the target's answer until
    /// `deadline`, then fences the store.
    pub(crate) fn source_aborting(
        &mut self,
        key: &ObjectKey,
        reason: AbortReason,
        deadline: MonoTime,
    ) {
        if let Some(link) = self.sources.get_mut(key) {
            link.aborting = Some(reason);
            link.deadline = deadline;
            self.timers.schedule(deadline, (Side::Source, key.clone()));
        }
    }

    /// Moves the source's deadline (a store fence to retry).
    pub(crate) fn source_deadline(&mut self, key: &ObjectKey, deadline: MonoTime) {
        if let Some(link) = self.sources.get_mut(key) {
            link.deadline = deadline;
            self.timers.schedule(deadline, (Side::Source, key.clone()));
        }
    }

    /// Remembers that `identity` was abandoned (target side).
    pub(crate) fn remember_aborted(&mut self, identity: RelocationIdentity) {
        if self.aborted.contains(&identity) {
            return;
        }
        if self.aborted.len() == ABORTED_KEPT {
            self.aborted.pop_front();
        }
        self.aborted.push_back(identity);
    }

    /// Whether this node was the source of `identity` and that side ended.
    pub(crate) fn source_ended(&self, identity: &RelocationIdentity) -> bool {
        self.ended_sources.contains(identity)
    }

    /// Whether `identity` was abandoned here.
    pub(crate) fn was_aborted(&self, identity: &RelocationIdentity) -> bool {
        self.aborted.contains(identity)
    }

    /// Moves the target's deadline.
    pub(crate) fn target_deadline(&mut self, key: &ObjectKey, deadline: MonoTime) {
        if let Some(link) = self.targets.get_mut(key) {
            link.deadline = deadline;
            self.timers.schedule(deadline, (Side::Target, key.clone()));
        }
    }

    /// Drops the links whose queue side ended (the queues remove an ended
    /// side themselves); returns the source link dropped, if any.
    pub(crate) fn unlink_ended(
        &mut self,
        key: &ObjectKey,
    ) -> (Option<SourceLink>, Option<TargetLink>) {
        let source = match self.queues.source(key) {
            Some(_) => None,
            None => self.sources.remove(key),
        };
        if let Some(link) = &source {
            if self.ended_sources.len() == ABORTED_KEPT {
                self.ended_sources.pop_front();
            }
            self.ended_sources.push_back(link.identity.clone());
        }
        let target = match self.queues.target(key) {
            Some(_) => None,
            None => self.targets.remove(key),
        };
        let (sources, targets) = (&self.sources, &self.targets);
        self.timers.shed(|(side, k)| match side {
            Side::Source => sources.contains_key(k),
            Side::Target => targets.contains_key(k),
        });
        (source, target)
    }

    /// Holds a session relay for a relocating Actor.
    pub(crate) fn hold_relay(&mut self, relay: RelayIn) {
        self.relays
            .entry(relay.actor.clone())
            .or_default()
            .push(relay);
    }

    /// The session relays held for `key`, in arrival order.
    pub(crate) fn take_relays(&mut self, key: &ObjectKey) -> Vec<RelayIn> {
        self.relays.remove(key).unwrap_or_default()
    }

    /// Pops one side whose deadline has come at `now`.
    pub(crate) fn pop_due(&mut self, now: MonoTime) -> Option<(Side, ObjectKey)> {
        while let Some((side, key)) = self.timers.pop_due(now) {
            let due = match side {
                Side::Source => self.sources.get(&key).is_some_and(|l| l.deadline <= now),
                Side::Target => self
                    .targets
                    .get(&key)
                    .is_some_and(|l| l.deadline <= now && !l.committing),
            };
            if due {
                return Some((side, key));
            }
        }
        None
    }

    /// The source phase of `key`, if it relocates from here.
    pub(crate) fn source_phase(&self, key: &ObjectKey) -> Option<SourcePhase> {
        self.queues.source(key).map(|s| s.phase())
    }

    /// The target phase of `key`, if it relocates to here.
    pub(crate) fn target_phase(&self, key: &ObjectKey) -> Option<TargetPhase> {
        self.queues.target(key).map(|t| t.phase())
    }

    /// The identity of the relocation of `key` on either side.
    pub(crate) fn identity(&self, key: &ObjectKey) -> Option<RelocationIdentity> {
        self.queues
            .source(key)
            .map(|s| s.identity().clone())
            .or_else(|| self.queues.target(key).map(|t| t.identity().clone()))
    }
}
