//! The runtime's side of re-confirmation (`crate::reconfirm`): it looks at
//! the store's epoch where admission is decided and whenever the host
//! polls, reads the unconfirmed records in batches on the store's I/O (never
//! on the host's thread), ends the ownerships those records no longer
//! support, and hands the outcome to the host through `on_timeout`.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use crate::clock::MonoTime;
use crate::ids::ObjectKey;
use crate::inbound::Inbound;
use crate::reconfirm::{Decided, verdict};
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

impl Runtime {
    /// Looks at the store's epoch: after a store recovery event, what this
    /// node owns is unconfirmed (its work held) and a check starts. Two
    /// atomic loads when nothing changed; nothing at all owned, nothing
    /// held or read.
    pub(crate) fn look_at_store_epoch(&self) {
        self.note_store_epoch();
        self.resume_reconfirm();
    }

    /// [`look_at_store_epoch`](Self::look_at_store_epoch) without starting
    /// the check: admission holds the operation first, so the check cannot
    /// decide its object before it is held.
    pub(crate) fn note_store_epoch(&self) {
        let inner = self.inner();
        if let Some(epoch) = inner.store.epoch() {
            inner.note_epoch(epoch);
        }
    }

    /// Starts a check attempt if one is due (nothing to do, one atomic
    /// load, when no recovery is being handled).
    pub(crate) fn resume_reconfirm(&self) {
        if self.inner().reconfirm.active() {
            self.start_reconfirm_attempt(self.now());
        }
    }

    /// What this node owns for `key` as admission may use it: nothing while
    /// a store recovery event left it unconfirmed (session relays, binds and
    /// pushes are refused then, as for a node that is not the owner; §3.2
    /// lets a relay end `Unavailable`).
    pub(crate) fn admitting(&self, key: crate::ids::KeyRef<'_>) -> Option<crate::OwnedObject> {
        self.look_at_store_epoch();
        if self.inner().reconfirm.unconfirmed(key) {
            return None;
        }
        self.owned(key)
    }

    /// Starts reading the unconfirmed records, unless an attempt is in
    /// flight or waits to be retried, or none is left.
    fn start_reconfirm_attempt(&self, now: MonoTime) {
        let Some((round, keys)) = self.inner().reconfirm.start_attempt(now) else {
            return;
        };
        let inner = self.inner().clone();
        let Some(io) = inner.store.executor().or_else(|| self.tokio()) else {
            // Shut down: nothing can be read; the objects stay held.
            inner.reconfirm.attempt_ended(now.after(RETRY));
            return;
        };
        io.spawn(async move {
            inner.reconfirm_owned(round, keys).await;
            inner
                .reconfirm
                .attempt_ended(inner.clock.now().after(RETRY));
        });
    }

    /// When the host must next call `on_timeout` for re-confirmation.
    pub(crate) fn reconfirm_deadline(&self) -> Option<MonoTime> {
        let r = &self.inner().reconfirm;
        if !r.active() {
            return None;
        }
        let now = self.now();
        if r.due() {
            return Some(now);
        }
        if r.in_flight() {
            return Some(now.after(POLL));
        }
        r.retry_at()
    }

    /// The outcome of re-confirmation so far: held operations admitted
    /// again (or refused, for a lost ownership) and every ownership lost.
    pub(crate) fn reconfirm_timeouts(&self, now: MonoTime, actions: &mut Vec<Inbound>) {
        let r = &self.inner().reconfirm;
        if !r.active() {
            return;
        }
        self.start_reconfirm_attempt(now);
        let max_hops = self.inner().config.max_follow_hops();
        for decided in r.take_decided() {
            match decided {
                Decided::Confirmed(held) => {
                    actions.extend(held.into_iter().map(|op| self.on_operation(op, max_hops)))
                }
                Decided::Lost(lost, held) => {
                    // Not the owner any more: no Message Follow route leads
                    // on from here (it was never moved), so each is refused
                    // and its sender ends it Unavailable (§4.2).
                    actions.extend(held.iter().map(|op| {
                        self.reject(
                            op,
                            RejectionCode::StaleRoute(crate::admission::StaleReason::NotOwner),
                        )
                    }));
                    actions.push(Inbound::OwnershipLost(lost));
                }
            }
        }
    }

    /// Waits until no re-confirmation attempt reads the store (the mesh
    /// harness, which must stay deterministic: the attempt's reads then
    /// never interleave with its next step).
    pub(crate) fn reconfirm_settled(&self) {
        while self.inner().reconfirm.in_flight() {
            std::thread::yield_now();
        }
    }
}

impl Inner {
    /// The store reports `epoch` (polled, or in a write's answer): on a
    /// change, what this node owns becomes unconfirmed.
    pub(super) fn note_epoch(&self, epoch: crate::authority::StoreEpoch) {
        if self
            .reconfirm
            .noticed(epoch, || self.ownership.keys())
            .is_some()
        {
            tracing::warn!(
                owned = self.ownership.len(),
                "store recovery event: owners re-confirm their records before admitting again"
            );
        }
    }

    /// One attempt of round `round`: reads `keys` in batches and decides
    /// each record that could be read.
    async fn reconfirm_owned(self: &Arc<Self>, round: u64, keys: Vec<ObjectKey>) {
        for chunk in keys.chunks(BATCH) {
            let mut reads = JoinSet::new();
            for key in chunk {
                let (inner, key) = (self.clone(), key.clone());
                reads.spawn(async move {
                    let sent = inner.clock.now();
                    let answer = inner.resolver.timed(inner.store.read(key.as_ref())).await;
                    (key, sent, answer)
                });
            }
            while let Some(joined) = reads.join_next().await {
                let Ok((key, sent, answer)) = joined else {
                    continue;
                };
                match answer {
                    Ok(observed) => self.reconfirmed(round, &key, sent, &observed),
                    Err(e) => {
                        _ = self.resolver.observe(Err(&e));
                    }
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

    /// Decides `key` from the record read (sent at `sent`).
    fn reconfirmed(
        &self,
        round: u64,
        key: &ObjectKey,
        sent: MonoTime,
        observed: &crate::store::Observed<Option<crate::authority::AuthorityRecord>>,
    ) {
        let Some(mut owned) = self.ownership.get(key.as_ref()) else {
            // Released meanwhile: nothing left to confirm or lose.
            self.reconfirm.decide(round, key, None);
            return;
        };
        if self.relocating(key) {
            // A move in progress: its record may already name the target,
            // and its owner CAS or abort fence will write it. Decided by a
            // later attempt, once the move has ended one way or the other
            // (until then what the move would run here is refused).
            return;
        }
        let record = observed.value.as_ref();
        match verdict(self.identity, &owned, record, observed.store_time) {
            None => {
                // The store's lease, not a renewal it lost, bounds admission.
                if let Some(r) = record {
                    let left = r
                        .owner
                        .lease
                        .expires_at
                        .0
                        .saturating_sub(observed.store_time.0);
                    let deadline = sent.after(Duration::from_millis(left));
                    if deadline < owned.admission_deadline {
                        owned.admission_deadline = deadline;
                        self.ownership.set(key.as_ref(), owned);
                    }
                }
                self.reconfirm.decide(round, key, None);
            }
            Some(reason) => {
                tracing::warn!(kind = %key.kind(), id = key.id(), ?reason, "ownership lost in a store failover");
                self.ownership.remove(key.as_ref());
                self.resolver.forget(key.as_ref());
                self.bindings.forget(key);
                self.reconfirm.decide(round, key, Some(reason));
            }
        }
    }
}
