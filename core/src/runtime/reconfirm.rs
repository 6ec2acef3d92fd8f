//! The runtime's side of re-confirmation (`crate::reconfirm`): it looks at
//! the store's epoch where admission is decided and whenever the host
//! polls, reads the unconfirmed records in batches on the store's I/O (never
//! on the host's thread), ends the ownerships those records no longer
//! support, and hands the outcome to the host through `on_timeout`.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use crate::admission::StaleReason;
use crate::authority::{AuthorityRecord, StoreEpoch};
use crate::clock::MonoTime;
use crate::ids::{KeyRef, ObjectKey};
use crate::inbound::Inbound;
use crate::ownership::OwnedObject;
use crate::reconfirm::{Decided, verdict};
use crate::store::{Observed, StoreError};
use crate::wire::RejectionCode;

use super::{Inner, Runtime};

/// Reads in flight at once per attempt: pipelined on the store's
/// connection, bounded so a node owning 100,000 objects does not queue
/// them all at once.
const BATCH: usize = 1024;

/// While an attempt reads, how often the host is asked to look for its
/// outcome (`next_deadline`): the host learns of it without a callback.
const POLL: Duration = Duration::from_millis(10);

/// A failed attempt is tried again after this long.
const RETRY: Duration = Duration::from_millis(100);

/// One record read by an attempt: the object, what this node owned of it,
/// when the read was sent, and the answer.
type Read = (
    ObjectKey,
    OwnedObject,
    MonoTime,
    Result<Observed<Option<AuthorityRecord>>, StoreError>,
);

impl Runtime {
    /// Looks at the store's epoch: after a store recovery event what this
    /// node owns becomes unconfirmed. A dyn call and an atomic load when
    /// nothing changed. It starts no check: admission holds its operation
    /// first, so no check decides the object before it is held, and
    /// `on_timeout` takes what was decided before it starts the next.
    pub(crate) fn note_store_epoch(&self) {
        let inner = self.inner();
        if let Some(epoch) = inner.store.epoch() {
            inner.note_epoch(epoch);
        }
    }

    /// Starts a check attempt if one is due.
    pub(crate) fn resume_reconfirm(&self) {
        if self.inner().reconfirm.active() {
            self.start_reconfirm_attempt(self.now());
        }
    }

    /// What this node owns for `key` as admission may use it: nothing while
    /// a store recovery event left it unconfirmed (session relays, binds,
    /// pushes and moves are refused then, as for a node that is not the
    /// owner; §3.2 lets a relay end `Unavailable`).
    pub(crate) fn admitting(&self, key: KeyRef<'_>) -> Option<OwnedObject> {
        // The check itself starts from `on_frame` or `on_timeout` (which
        // `next_deadline` makes due now): never behind a call's back.
        self.note_store_epoch();
        if self.inner().reconfirm.unconfirmed(key) {
            return None;
        }
        // A target runs the object only from its switch: its owner CAS may
        // have written the ownership already (on the store's I/O) before
        // the host's `on_timeout` takes the answer and switches.
        if self.inner().handoffs.arriving(key) {
            return None;
        }
        self.owned(key)
    }

    /// Starts reading the undecided records, unless an attempt is in
    /// flight or waits to be retried, or none is left.
    fn start_reconfirm_attempt(&self, now: MonoTime) {
        let Some((round, objects)) = self.inner().reconfirm.start_attempt(now) else {
            return;
        };
        let inner = self.inner().clone();
        let Some(io) = inner.store.executor().or_else(|| self.tokio()) else {
            // Shut down: nothing can be read; the objects stay held.
            inner.reconfirm.attempt_ended(now.after(RETRY));
            return;
        };
        io.spawn(async move {
            // Ends the attempt however the task ends (done, panicked, or
            // dropped with its runtime): never an attempt in flight for ever.
            let _ended = AttemptEnded(inner.clone());
            inner.reconfirm_owned(round, objects).await;
        });
    }

    /// When the host must next call `on_timeout` for re-confirmation.
    pub(crate) fn reconfirm_deadline(&self) -> Option<MonoTime> {
        let r = &self.inner().reconfirm;
        if !r.active() {
            return None;
        }
        r.deadline(self.now(), POLL)
    }

    /// The outcome of re-confirmation so far: held operations admitted
    /// again in arrival order (or refused, for a lost ownership) and every
    /// ownership lost.
    pub(crate) fn reconfirm_timeouts(&self, now: MonoTime, actions: &mut Vec<Inbound>) {
        let r = &self.inner().reconfirm;
        if !r.active() {
            return;
        }
        // What was decided before this call, then the next attempt: one
        // started first could decide objects during this call, at a moment
        // no host (or simulation) can repeat.
        let decided = r.take_decided();
        let max_hops = self.inner().config.max_follow_hops();
        for decided in decided {
            match decided {
                Decided::Confirmed(held) => {
                    actions.extend(held.into_iter().map(|op| self.on_operation(op, max_hops)))
                }
                Decided::Lost(lost, held) => {
                    self.counters().ownerships_lost.incr();
                    // Not the owner any more: no Message Follow route leads
                    // on from here (it was never moved), so each is refused
                    // and its sender ends it Unavailable (§4.2).
                    let not_owner = RejectionCode::StaleRoute(StaleReason::NotOwner);
                    actions.extend(held.iter().map(|op| self.reject(op, not_owner)));
                    actions.push(Inbound::OwnershipLost(lost));
                }
            }
        }
        self.start_reconfirm_attempt(now);
    }
}

/// Ends an attempt when dropped.
struct AttemptEnded(Arc<Inner>);

impl Drop for AttemptEnded {
    fn drop(&mut self) {
        let retry = self.0.clock.now().after(RETRY);
        self.0.reconfirm.attempt_ended(retry);
    }
}

impl Inner {
    /// The store reports `epoch` (polled, or in a write's answer): on a
    /// change, what this node owns becomes unconfirmed.
    pub(super) fn note_epoch(&self, epoch: StoreEpoch) {
        self.reconfirm.noticed(epoch, || self.ownership.entries());
    }

    /// One attempt of round `round`: reads the objects in batches, then
    /// decides each batch in key order (the same order every run). The
    /// first failed read ends the attempt: the store is away, and the rest
    /// would fail the same way (it is retried after `RETRY`).
    async fn reconfirm_owned(self: &Arc<Self>, round: u64, objects: Vec<(ObjectKey, OwnedObject)>) {
        for chunk in objects.chunks(BATCH) {
            let mut reads = JoinSet::new();
            for (i, (key, owned)) in chunk.iter().cloned().enumerate() {
                let inner = self.clone();
                reads.spawn(async move {
                    let sent = inner.clock.now();
                    let answer = inner.resolver.timed(inner.store.read(key.as_ref())).await;
                    (i, (key, owned, sent, answer))
                });
            }
            let mut answers: Vec<Option<Read>> = (0..chunk.len()).map(|_| None).collect();
            while let Some(joined) = reads.join_next().await {
                if let Ok((i, read)) = joined {
                    answers[i] = Some(read);
                }
            }
            for (key, owned, sent, answer) in answers.into_iter().flatten() {
                match answer {
                    Ok(observed) => self.reconfirmed(round, &key, &owned, sent, &observed),
                    Err(e) => {
                        _ = self.resolver.observe(Err(&e));
                        return;
                    }
                }
            }
        }
    }

    /// Decides `key` from its record, read at `sent`, against `owned`:
    /// what this node owned when the recovery was noticed.
    fn reconfirmed(
        &self,
        round: u64,
        key: &ObjectKey,
        owned: &OwnedObject,
        sent: MonoTime,
        observed: &Observed<Option<AuthorityRecord>>,
    ) {
        if self.relocating(key) {
            // Moving: its owner CAS or abort fence writes the record, and a
            // later attempt decides it once the move has ended (until then
            // what the move would run here is refused).
            return;
        }
        let record = observed.value.as_ref();
        match verdict(self.identity, owned, record, observed.store_time) {
            None => {
                // The store's lease, not a renewal it lost, bounds admission.
                if let Some(r) = record {
                    let left = r
                        .owner
                        .lease
                        .expires_at
                        .0
                        .saturating_sub(observed.store_time.0);
                    self.ownership
                        .lower_deadline(key.as_ref(), sent.after(Duration::from_millis(left)));
                }
                self.reconfirm.decide(round, key, None);
            }
            Some(reason) => {
                // Only the tenure that was judged goes, and only if nothing
                // decided it meanwhile: a later write of this node's own
                // confirms by itself and keeps its tenure.
                if !self.reconfirm.undecided(round, key)
                    || !self.ownership.remove_if_same(key.as_ref(), owned)
                {
                    return;
                }
                if self.reconfirm.decide(round, key, Some(reason)) {
                    tracing::warn!(kind = %key.kind(), id = key.id(), ?reason, "ownership lost in a store failover");
                    self.resolver.forget(key.as_ref());
                    self.bindings.forget(key);
                }
            }
        }
    }

    /// Whether `key` is moving from or to this node now.
    fn relocating(&self, key: &ObjectKey) -> bool {
        if !self.handoffs.active() {
            return false;
        }
        let h = self.handoffs.lock();
        h.source_phase(key).is_some() || h.target_phase(key).is_some()
    }
}
