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
//! (`runtime/reconfirm.rs`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::authority::{AuthorityRecord, StoreEpoch};
use crate::clock::MonoTime;
use crate::ids::{NodeIdentity, ObjectKey};
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

/// What became of one unconfirmed object.
#[derive(Debug)]
pub(crate) enum Decided {
    /// Still ours: the held operations are admitted as if they just came.
    Confirmed(Vec<Operation>),
    /// Not ours any more: the held operations are refused.
    Lost(OwnershipLost, Vec<Operation>),
}

#[derive(Debug, Default)]
struct State {
    /// Owned objects not confirmed since the last recovery event, with the
    /// operations held for them, in arrival order.
    unconfirmed: HashMap<ObjectKey, Vec<Operation>>,
    /// Decided since the host last took them.
    decided: Vec<Decided>,
    /// Bumped by every recovery event: a check of an earlier round that
    /// ends late decides nothing.
    round: u64,
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
    /// Whether anything is unconfirmed or decided: all the admission path
    /// reads while nothing is.
    active: AtomicBool,
    state: Mutex<State>,
}

impl Reconfirm {
    /// The store now reports `epoch`. On a change (not the first look),
    /// every object in `owned` becomes unconfirmed; returns the round of
    /// the check to start then.
    pub(crate) fn noticed(
        &self,
        epoch: StoreEpoch,
        owned: impl FnOnce() -> Vec<ObjectKey>,
    ) -> Option<u64> {
        let seen = epoch.0.wrapping_add(1);
        let before = self.epoch.swap(seen, Ordering::SeqCst);
        if before == seen || before == 0 {
            return None;
        }
        let owned = owned();
        let mut state = self.lock();
        if owned.is_empty() && state.unconfirmed.is_empty() {
            // Nothing owned: nothing to hold or read.
            return None;
        }
        state.round += 1;
        // What an earlier round still held stays held: this round decides it.
        for key in owned {
            state.unconfirmed.entry(key).or_default();
        }
        self.active.store(
            !state.unconfirmed.is_empty() || !state.decided.is_empty(),
            Ordering::SeqCst,
        );
        Some(state.round)
    }

    /// Whether a recovery's check or its decisions are pending.
    pub(crate) fn active(&self) -> bool {
        self.active.load(Ordering::SeqCst)
    }

    /// Whether `key` awaits confirmation.
    pub(crate) fn unconfirmed(&self, key: crate::ids::KeyRef<'_>) -> bool {
        self.active() && self.lock().unconfirmed.contains_key(&key.to_owned())
    }

    /// Holds `op` if its object awaits confirmation; gives it back if not.
    pub(crate) fn hold(&self, op: Operation) -> Option<Operation> {
        if !self.active() {
            return Some(op);
        }
        let mut state = self.lock();
        match state.unconfirmed.get_mut(&op.target) {
            Some(held) => {
                held.push(op);
                None
            }
            None => Some(op),
        }
    }

    /// Starts an attempt at `now`: the current round and the objects it
    /// must read, unless an attempt is in flight, a retry waits for a later
    /// instant, or nothing is unconfirmed.
    pub(crate) fn start_attempt(&self, now: MonoTime) -> Option<(u64, Vec<ObjectKey>)> {
        if !self.active() {
            return None;
        }
        let mut state = self.lock();
        if state.in_flight
            || state.unconfirmed.is_empty()
            || state.retry_at.is_some_and(|at| at > now)
        {
            return None;
        }
        state.in_flight = true;
        state.retry_at = None;
        Some((state.round, state.unconfirmed.keys().cloned().collect()))
    }

    /// The attempt ended; what it could not read is tried again at
    /// `retry_at`.
    pub(crate) fn attempt_ended(&self, retry_at: MonoTime) {
        let mut state = self.lock();
        state.in_flight = false;
        if !state.unconfirmed.is_empty() {
            state.retry_at = Some(retry_at);
        }
    }

    /// When the next attempt is due, if one waits.
    pub(crate) fn retry_at(&self) -> Option<MonoTime> {
        if !self.active() {
            return None;
        }
        let state = self.lock();
        state.retry_at.filter(|_| !state.in_flight)
    }

    /// Whether an attempt is reading the store now.
    pub(crate) fn in_flight(&self) -> bool {
        self.active() && self.lock().in_flight
    }

    /// This node's own write of `key` was just answered: the record names
    /// it, so nothing more to confirm there.
    pub(crate) fn written(&self, key: &ObjectKey) {
        if self.active() {
            let round = self.lock().round;
            self.decide(round, key, None);
        }
    }

    /// Round `round` decided `key`: confirmed (`lost` None) or lost.
    pub(crate) fn decide(&self, round: u64, key: &ObjectKey, lost: Option<LostReason>) {
        let mut state = self.lock();
        if state.round != round {
            return;
        }
        let Some(held) = state.unconfirmed.remove(key) else {
            return;
        };
        let decided = match lost {
            None => Decided::Confirmed(held),
            Some(reason) => Decided::Lost(
                OwnershipLost {
                    key: key.clone(),
                    reason,
                },
                held,
            ),
        };
        state.decided.push(decided);
    }

    /// Whether decisions wait for the host (`on_timeout` is due).
    pub(crate) fn due(&self) -> bool {
        self.active() && !self.lock().decided.is_empty()
    }

    /// Whether objects still await confirmation.
    #[cfg(test)]
    fn checking(&self) -> bool {
        self.active() && !self.lock().unconfirmed.is_empty()
    }

    /// The decisions made since the last call.
    pub(crate) fn take_decided(&self) -> Vec<Decided> {
        let mut state = self.lock();
        let decided = std::mem::take(&mut state.decided);
        self.active
            .store(!state.unconfirmed.is_empty(), Ordering::SeqCst);
        decided
    }

    // A poisoned lock only means a caller panicked mid-update; the maps
    // stay consistent (every change is one insert or remove).
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether the store's `record` for `key`, read now, still names `me` as
/// the owner `owned` says this node is; if not, why.
pub(crate) fn verdict(
    me: NodeIdentity,
    owned: &OwnedObject,
    record: Option<&AuthorityRecord>,
    store_now: crate::authority::StoreTime,
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

    #[test]
    fn the_first_epoch_is_no_recovery_and_a_new_one_unconfirms_what_is_owned() {
        let r = Reconfirm::default();
        let key = ObjectKey::new(crate::ids::ObjectKind::Actor, "x").expect("valid");
        assert_eq!(r.noticed(StoreEpoch(5), || vec![key.clone()]), None);
        assert!(!r.active());
        assert_eq!(r.noticed(StoreEpoch(5), || vec![key.clone()]), None);
        let round = r
            .noticed(StoreEpoch(6), || vec![key.clone()])
            .expect("a recovery");
        assert!(r.active() && r.checking() && !r.due());
        let now = MonoTime::default();
        assert_eq!(r.start_attempt(now), Some((round, vec![key.clone()])));
        assert_eq!(r.start_attempt(now), None, "one attempt at a time");
        r.decide(round + 1, &key, None);
        assert!(r.checking(), "a stale round decides nothing");
        r.decide(round, &key, Some(LostReason::Missing));
        assert!(r.due() && !r.checking());
        assert!(
            matches!(&r.take_decided()[..], [Decided::Lost(l, held)] if l.reason == LostReason::Missing && held.is_empty())
        );
        assert!(!r.active());
    }

    #[test]
    fn nothing_owned_costs_nothing() {
        let r = Reconfirm::default();
        r.noticed(StoreEpoch(1), Vec::new);
        assert_eq!(
            r.noticed(StoreEpoch(2), Vec::new),
            None,
            "no object: no check"
        );
        assert!(!r.active());
    }
}
