//! Owners re-confirm what they own after a store recovery event (DESIGN §3,
//! docs/location-store.md "Failover and durability"). A failover can lose
//! writes the old primary acknowledged; an owner whose record was lost, or
//! whose object another node took since, must not go on admitting. So when
//! the store's epoch changes, every object this node owns is *unconfirmed*:
//! work that arrives for it is held, as during a move, until one batched
//! read finds its record still naming this node with the same incarnation,
//! authority owner generation and owner lease. A record that no longer does
//! ends that ownership ([`OwnershipLost`]).
//!
//! This machine keeps the state only; the runtime reads the store
//! (`runtime/reconfirm.rs`). An object stays here, its work held in arrival
//! order, from the recovery until the host takes its decision, so nothing
//! that arrives after the decision overtakes what was held before it.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::authority::{AuthorityRecord, StoreEpoch, StoreTime};
use crate::clock::MonoTime;
use crate::ids::{KeyRef, NodeIdentity, ObjectKey};
use crate::ownership::OwnedObject;
use crate::wire::Operation;

/// An ownership a store recovery event ended: the store's record no longer
/// names this node as the owner it believed it was. The object's work here
/// is over (held operations are refused, §4.2: no resubmit); its Actor
/// bindings and cached routes are gone as after a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnershipLost {
    /// The object.
    pub key: ObjectKey,
    /// What the store holds instead.
    pub reason: LostReason,
}

/// What the store held when an ownership was found lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LostReason {
    /// No record: the write that made this node owner was lost (or the
    /// object was released and may be re-created elsewhere).
    Missing,
    /// Another owner, owner generation or incarnation: the object was
    /// taken or re-created after the write this node acted on was lost.
    Replaced,
    /// This node's record, but its owner lease has ended on the store.
    LeaseEnded,
}

/// What became of one unconfirmed object, as the host takes it.
#[derive(Debug)]
pub(crate) enum Decided {
    /// Still ours: the held operations are admitted as if they just came.
    Confirmed(Vec<Operation>),
    /// Not ours any more: the held operations are refused.
    Lost(OwnershipLost, Vec<Operation>),
}

/// One unconfirmed object.
#[derive(Debug)]
struct Entry {
    /// What this node owned when the recovery was noticed: what the
    /// store's record is judged against (a later write of this node's own
    /// confirms the object by itself, [`Reconfirm::written`]).
    owned: OwnedObject,
    /// Operations held for it, in arrival order.
    held: Vec<Operation>,
    /// `Some` once decided (`Some(None)`: confirmed).
    verdict: Option<Option<LostReason>>,
}

#[derive(Debug, Default)]
struct State {
    /// Objects from the recovery until the host took their decision,
    /// ordered so every run decides them in the same order.
    entries: BTreeMap<ObjectKey, Entry>,
    /// Bumped by every recovery event: a check of an earlier round that
    /// ends late decides nothing.
    round: u64,
    /// Entries with a verdict (the host has decisions to take).
    decided: usize,
    /// A check attempt is reading the store.
    in_flight: bool,
    /// When to try again the objects an attempt could not read.
    retry_at: Option<MonoTime>,
}

/// The re-confirmation state of one runtime.
#[derive(Debug, Default)]
pub(crate) struct Reconfirm {
    /// The store epoch (plus one) owned objects were last confirmed under;
    /// 0 before the first look.
    epoch: AtomicU64,
    /// Whether any object is here: all the admission path reads while
    /// none is.
    active: AtomicBool,
    /// `State::round`, readable without the lock: what a write notes
    /// before it starts ([`written`](Self::written)).
    round: AtomicU64,
    state: Mutex<State>,
}

impl Reconfirm {
    /// The store now reports `epoch`. On a change (not the first look),
    /// every object in `owned` becomes unconfirmed. One atomic load when
    /// nothing changed.
    pub(crate) fn noticed(
        &self,
        epoch: StoreEpoch,
        owned: impl FnOnce() -> Vec<(ObjectKey, OwnedObject)>,
    ) {
        let seen = epoch.0.wrapping_add(1);
        if self.epoch.load(Ordering::Acquire) != seen {
            self.changed(seen, owned);
        }
    }

    /// The epoch changed: under the lock, the objects become unconfirmed
    /// (and `active` is set) *before* the new epoch is published, so a
    /// thread that sees the new epoch also sees them held.
    #[cold]
    fn changed(&self, seen: u64, owned: impl FnOnce() -> Vec<(ObjectKey, OwnedObject)>) {
        let mut state = self.lock();
        let before = self.epoch.load(Ordering::Acquire);
        if before == seen {
            return; // another thread handled it
        }
        if before != 0 {
            // Every recovery is a round, owned objects or not: a write in
            // flight across it is checked too (`written`).
            state.round += 1;
            self.round.store(state.round, Ordering::SeqCst);
            let owned = owned();
            if !owned.is_empty() {
                for (key, owned) in owned {
                    // An object an earlier round still holds stays held,
                    // its verdict to be made again.
                    let entry = state.entries.entry(key).or_insert(Entry {
                        owned,
                        held: Vec::new(),
                        verdict: None,
                    });
                    entry.owned = owned;
                    entry.verdict = None;
                }
                state.decided = state
                    .entries
                    .values()
                    .filter(|e| e.verdict.is_some())
                    .count();
                state.retry_at = None;
                self.active.store(true, Ordering::SeqCst);
                tracing::warn!(
                    owned = state.entries.len(),
                    "store recovery event: owners re-confirm their records before admitting again"
                );
            }
        }
        self.epoch.store(seen, Ordering::Release);
    }

    /// Whether any object awaits confirmation or its decision's delivery.
    pub(crate) fn active(&self) -> bool {
        self.active.load(Ordering::Acquire)
    }

    /// Whether `key` is here (unconfirmed, or decided but not yet taken).
    pub(crate) fn unconfirmed(&self, key: KeyRef<'_>) -> bool {
        self.active() && self.lock().entries.contains_key(&key.to_owned())
    }

    /// Holds `op` if its object is here; gives it back if not.
    pub(crate) fn hold(&self, op: Operation) -> Option<Operation> {
        if !self.active() {
            return Some(op);
        }
        let mut state = self.lock();
        match state.entries.get_mut(&op.target) {
            Some(entry) => {
                entry.held.push(op);
                None
            }
            None => Some(op),
        }
    }

    /// Starts an attempt at `now`: the round and the undecided objects with
    /// what this node owned of each, unless an attempt is in flight, a
    /// retry waits for a later instant, or nothing is undecided.
    pub(crate) fn start_attempt(
        &self,
        now: MonoTime,
    ) -> Option<(u64, Vec<(ObjectKey, OwnedObject)>)> {
        if !self.active() {
            return None;
        }
        let mut state = self.lock();
        if state.in_flight || state.retry_at.is_some_and(|at| at > now) {
            return None;
        }
        let undecided: Vec<_> = state
            .entries
            .iter()
            .filter(|(_, e)| e.verdict.is_none())
            .map(|(k, e)| (k.clone(), e.owned))
            .collect();
        if undecided.is_empty() {
            return None;
        }
        state.in_flight = true;
        state.retry_at = None;
        Some((state.round, undecided))
    }

    /// The attempt ended (however: its guard calls this); what it could
    /// not decide is tried again at `retry_at`.
    pub(crate) fn attempt_ended(&self, retry_at: MonoTime) {
        let mut state = self.lock();
        state.in_flight = false;
        if state.entries.len() > state.decided {
            state.retry_at = Some(retry_at);
        }
    }

    /// When the host must next call `on_timeout` for this machine: now if
    /// a decision waits, `poll` later while an attempt reads, the retry.
    pub(crate) fn deadline(&self, now: MonoTime, poll: std::time::Duration) -> Option<MonoTime> {
        if !self.active() {
            return None;
        }
        let state = self.lock();
        if state.decided > 0 {
            Some(now)
        } else if state.in_flight {
            Some(now.after(poll))
        } else {
            // A retry, or (none set) the first attempt, due now.
            Some(state.retry_at.unwrap_or(now))
        }
    }

    /// Whether an attempt is reading the store now.
    pub(crate) fn in_flight(&self) -> bool {
        self.active() && self.lock().in_flight
    }

    /// The current round: a write notes it before its first attempt.
    pub(crate) fn round(&self) -> u64 {
        self.round.load(Ordering::SeqCst)
    }

    /// This node's own write of `key`, started in round `since`, was just
    /// answered, leaving this node `owned`. If no recovery event came
    /// meanwhile, the record names it: nothing more to confirm. If one did,
    /// the write may have run on the primary that was lost (its answer
    /// dates from the old store): the object is checked like the others.
    pub(crate) fn written(&self, key: &ObjectKey, owned: OwnedObject, since: u64) {
        if !self.active() && self.round() == since {
            return;
        }
        let mut state = self.lock();
        if state.round != since {
            let entry = state.entries.entry(key.clone()).or_insert(Entry {
                owned,
                held: Vec::new(),
                verdict: None,
            });
            let was_decided = entry.verdict.take().is_some();
            entry.owned = owned;
            if was_decided {
                state.decided -= 1;
            }
            self.active.store(true, Ordering::SeqCst);
            return;
        }
        if let Some(entry) = state.entries.get_mut(key)
            && entry.verdict.is_none()
        {
            entry.verdict = Some(None);
            state.decided += 1;
        }
    }

    /// Whether round `round` may still decide `key` (undecided, same round).
    pub(crate) fn undecided(&self, round: u64, key: &ObjectKey) -> bool {
        let state = self.lock();
        state.round == round && state.entries.get(key).is_some_and(|e| e.verdict.is_none())
    }

    /// Round `round` decided `key`: confirmed (`lost` None) or lost.
    /// False when the round is over or the key was decided meanwhile.
    pub(crate) fn decide(&self, round: u64, key: &ObjectKey, lost: Option<LostReason>) -> bool {
        let mut state = self.lock();
        if state.round != round {
            return false;
        }
        match state.entries.get_mut(key) {
            Some(entry) if entry.verdict.is_none() => {
                entry.verdict = Some(lost);
                state.decided += 1;
                true
            }
            _ => false,
        }
    }

    /// The decisions made since the last call, in key order; their objects
    /// leave (work arriving from now on is admitted as usual).
    pub(crate) fn take_decided(&self) -> Vec<Decided> {
        if !self.active() {
            return Vec::new();
        }
        let mut state = self.lock();
        if state.decided == 0 {
            return Vec::new();
        }
        state.decided = 0;
        let decided: Vec<ObjectKey> = state
            .entries
            .iter()
            .filter(|(_, e)| e.verdict.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        let out = decided
            .into_iter()
            .filter_map(|key| {
                let entry = state.entries.remove(&key)?;
                Some(match entry.verdict.flatten() {
                    None => Decided::Confirmed(entry.held),
                    Some(reason) => Decided::Lost(OwnershipLost { key, reason }, entry.held),
                })
            })
            .collect();
        self.active
            .store(!state.entries.is_empty(), Ordering::SeqCst);
        out
    }

    // A poisoned lock only means a caller panicked mid-update; the map
    // stays consistent (every change is one insert, remove or field set).
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether the store's `record`, read at `store_now`, still names `me` as
/// the owner `owned` says this node was; if not, why.
pub(crate) fn verdict(
    me: NodeIdentity,
    owned: &OwnedObject,
    record: Option<&AuthorityRecord>,
    store_now: StoreTime,
) -> Option<LostReason> {
    let Some(record) = record else {
        return Some(LostReason::Missing);
    };
    let owner = &record.owner;
    let ours = owner.route.mesh == me.mesh
        && owner.route.node == me.rid
        && owner.node_generation == me.generation
        && record.object_generation == owned.object_generation
        && record.authority_owner_generation == owned.authority_owner_generation
        && owner.lease.generation == owned.lease_generation;
    if !ours {
        return Some(LostReason::Replaced);
    }
    if owner.lease.expires_at <= store_now {
        return Some(LostReason::LeaseEnded);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::AuthorityState;
    use crate::ids::{
        AuthorityOwnerGeneration, ObjectGeneration, ObjectKind, OwnerLeaseGeneration, StoreVersion,
    };

    fn owned() -> OwnedObject {
        OwnedObject {
            state: AuthorityState::Ready,
            object_generation: ObjectGeneration(1),
            authority_owner_generation: AuthorityOwnerGeneration(1),
            lease_generation: OwnerLeaseGeneration(1),
            store_version: StoreVersion(1),
            admission_deadline: MonoTime(u64::MAX),
        }
    }

    #[test]
    fn the_first_epoch_is_no_recovery_and_a_new_one_unconfirms_what_is_owned() {
        let r = Reconfirm::default();
        let key = ObjectKey::new(ObjectKind::Actor, "x").expect("valid");
        let all = || vec![(key.clone(), owned())];
        r.noticed(StoreEpoch(5), all);
        assert!(!r.active());
        r.noticed(StoreEpoch(5), all);
        assert!(!r.active());
        r.noticed(StoreEpoch(6), all);
        assert!(r.active() && r.unconfirmed(key.as_ref()));
        let now = MonoTime::default();
        let (round, keys) = r.start_attempt(now).expect("an attempt");
        assert_eq!(keys, vec![(key.clone(), owned())]);
        assert_eq!(r.start_attempt(now), None, "one attempt at a time");
        assert!(
            !r.decide(round + 1, &key, None),
            "a stale round decides nothing"
        );
        assert!(r.decide(round, &key, Some(LostReason::Missing)));
        assert!(!r.decide(round, &key, None), "decided once");
        assert!(r.unconfirmed(key.as_ref()), "held until the host takes it");
        assert_eq!(
            r.deadline(now, std::time::Duration::from_millis(10)),
            Some(now)
        );
        assert!(
            matches!(&r.take_decided()[..], [Decided::Lost(l, held)] if l.reason == LostReason::Missing && held.is_empty())
        );
        assert!(!r.active());
    }

    #[test]
    fn nothing_owned_costs_nothing() {
        let r = Reconfirm::default();
        r.noticed(StoreEpoch(1), Vec::new);
        r.noticed(StoreEpoch(2), Vec::new);
        assert!(!r.active(), "no object: no hold, no check");
        assert_eq!(r.start_attempt(MonoTime::default()), None);
    }
}
