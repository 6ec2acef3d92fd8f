//! This node's authority writes (§2.2, §2.4; the lifecycle documents own the
//! full flows): create, publish Ready, relocation commit, lease renewal and
//! release. Each is a store compare-and-set; on success the local ownership
//! table, the route cache and the Actor bindings follow the record the store
//! returned.

use std::time::Duration;

use crate::authority::{AuthorityRecord, OwnerClaim, WriteFence};
use crate::clock::MonoTime;
use crate::error::InputError;
use crate::ids::{KeyRef, ObjectKind, ProposalId};
use crate::lifecycle::LifecycleError;
use crate::ownership::OwnedObject;
use crate::retry::backoff;
use crate::route::RouteFence;
use crate::store::{Observed, WriteError, WriteFuture};
use crate::wire::RouteEnd;

use super::{Inner, Runtime};

pub(super) enum Write {
    Create,
    PublishReady,
    TakeOwnership(WriteFence),
    RenewLease,
    BeginRelease,
}

impl Inner {
    fn claim(&self) -> OwnerClaim {
        let me = self.identity;
        OwnerClaim {
            mesh: me.mesh,
            node: me.rid,
            node_generation: me.generation,
            lease_generation: me.lease,
            lease_millis: lease_millis(self.config.get().owner_lease_duration),
        }
    }

    fn owned_fence(&self, key: KeyRef<'_>) -> Result<WriteFence, LifecycleError> {
        self.ownership
            .get(key)
            .map(|o| o.write_fence())
            .ok_or_else(|| LifecycleError::NotOwned {
                kind: key.kind,
                id: key.id.to_owned(),
            })
    }

    fn start_write(
        &self,
        key: KeyRef<'_>,
        write: &Write,
        proposal: ProposalId,
    ) -> Result<WriteFuture<'_, Observed<AuthorityRecord>>, LifecycleError> {
        let store = &*self.store;
        Ok(match write {
            Write::Create => store.create(key, self.claim(), proposal),
            Write::PublishReady => store.publish_ready(key, self.owned_fence(key)?, proposal),
            Write::TakeOwnership(from) => store.transfer_owner(key, *from, self.claim(), proposal),
            Write::RenewLease => {
                let millis = self.claim().lease_millis;
                store.renew_lease(
                    key,
                    self.owned_fence(key)?,
                    self.identity.lease,
                    millis,
                    proposal,
                )
            }
            Write::BeginRelease => store.begin_release(key, self.owned_fence(key)?, proposal),
        })
    }

    /// Runs one authority write and makes this node's view follow it.
    async fn write(&self, key: KeyRef<'_>, write: Write) -> Result<OwnedObject, LifecycleError> {
        self.write_as(key, write, ProposalId(self.ids.next())).await
    }

    /// [`write`](Self::write) under a proposal the caller keeps, so a later
    /// retry of the same intent is recognised by the store.
    pub(super) async fn write_as(
        &self,
        key: KeyRef<'_>,
        write: Write,
        proposal: ProposalId,
    ) -> Result<OwnedObject, LifecycleError> {
        let (first_sent, lease) = (self.clock.now(), self.config.get().owner_lease_duration);
        // The recovery events known before the write: one its answer brings
        // (the write was in flight across it) has it checked like the rest.
        if let Some(epoch) = self.store.epoch() {
            self.note_epoch(epoch);
        }
        let round = self.reconfirm.round();
        let (observed, started) = match self
            .retried(|| self.start_write(key, &write, proposal))
            .await
        {
            Err(e @ LifecycleError::Write(WriteError::Store(_))) => {
                // Both grant a lease from the store's now (an abort fence
                // re-takes this node's own object: seed 147).
                if let Write::RenewLease | Write::TakeOwnership(_) = write {
                    self.renewal_unknown(key, first_sent.after(lease));
                }
                return Err(e);
            }
            result => result?,
        };
        let record = observed.value;
        let remaining = record
            .owner
            .lease
            .expires_at
            .0
            .saturating_sub(observed.store_time.0);
        let owned =
            OwnedObject::from_record(&record, started.after(Duration::from_millis(remaining)));
        // A new epoch in the answer unconfirms what else this node owns;
        // this record, just written, names it.
        self.note_epoch(observed.epoch);
        self.ownership.set(key, owned);
        self.reconfirm.written(&key.to_owned(), owned, round);
        self.forget_older_routes(key, &record);
        Ok(owned)
    }

    /// A renewal whose answer was lost may still have been applied, and a
    /// renewal sets the lease to run from the store's now: with a shorter
    /// lease configured it can end the lease before the deadline this node
    /// admits by. So the local deadline drops to what an applied renewal
    /// would leave (`at_least`: its first attempt's start plus the lease),
    /// never below; otherwise two owners could run the object once another
    /// node takes it over at the store's earlier expiry. The same holds for
    /// a source's abort fence (it re-takes its own object under a lease
    /// from the store's now): a caller retrying one proposal over several
    /// calls lowers the deadline on each, so the earliest attempt bounds it.
    fn renewal_unknown(&self, key: KeyRef<'_>, at_least: MonoTime) {
        self.ownership.lower_deadline(key, at_least);
    }

    async fn complete_release(&self, key: KeyRef<'_>) -> Result<(), LifecycleError> {
        let (fence, proposal) = (self.owned_fence(key)?, ProposalId(self.ids.next()));
        let store = &*self.store;
        self.retried(|| Ok(store.complete_release(key, fence, proposal)))
            .await?;
        self.ownership.remove(key);
        self.resolver.forget(key);
        // The Actor is gone: a new incarnation never inherits a binding.
        self.bindings.forget(&key.to_owned());
        Ok(())
    }

    /// Runs a write started by `start`, retrying a store failure (within
    /// `store_attempts`) with the same proposal, so an attempt that was
    /// applied but whose answer was lost is recognised, not written twice.
    /// Returns the answer and when its attempt was sent.
    async fn retried<'a, T>(
        &'a self,
        start: impl Fn() -> Result<WriteFuture<'a, Observed<T>>, LifecycleError>,
    ) -> Result<(Observed<T>, MonoTime), LifecycleError> {
        let attempts = self.config.get().store_attempts;
        let mut attempt = 1;
        loop {
            // Taken before the store can act, so a lease deadline errs early.
            let sent = self.clock.now();
            match self.checked(self.resolver.timed(start()?).await) {
                Err(LifecycleError::Write(WriteError::Store(e))) if attempt < attempts => {
                    tracing::info!(error = %e, attempt, "authority write failed; retrying the same proposal");
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                }
                outcome => return outcome.map(|o| (o, sent)),
            }
        }
    }

    /// Reports the outcome to store-health tracking and maps it.
    fn checked<T>(
        &self,
        result: Result<Observed<T>, WriteError>,
    ) -> Result<Observed<T>, LifecycleError> {
        match &result {
            Ok(o) => _ = self.resolver.observe(Ok(o.epoch)),
            Err(WriteError::Store(e)) => {
                if matches!(e, crate::store::StoreError::NotReplicated { .. }) {
                    self.resolver.counters().store_writes_unreplicated.incr();
                }
                _ = self.resolver.observe(Err(e));
            }
            Err(WriteError::Rejected(r)) => {
                tracing::info!(rejection = %r, "authority write refused")
            }
        }
        Ok(result?)
    }

    /// This node's own write confirmed a higher store version.
    fn forget_older_routes(&self, key: KeyRef<'_>, record: &AuthorityRecord) {
        self.resolver.confirmed_version(key, record.store_version);
    }
}

fn lease_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Runtime {
    fn run_write(
        &self,
        kind: ObjectKind,
        id: &str,
        write: Write,
    ) -> Result<OwnedObject, LifecycleError> {
        let key = self.key(kind, id)?.to_owned();
        let inner = self.inner().clone();
        self.block_on(async move { inner.write(key.as_ref(), write).await })
    }

    /// Creates a new incarnation owned by this node, in `Creating`.
    pub fn create(&self, kind: ObjectKind, id: &str) -> Result<OwnedObject, LifecycleError> {
        self.run_write(kind, id, Write::Create)
    }

    /// Publishes this node's `Creating` object as `Ready`.
    pub fn publish_ready(&self, kind: ObjectKind, id: &str) -> Result<OwnedObject, LifecycleError> {
        self.run_write(kind, id, Write::PublishReady)
    }

    /// Create then publish Ready: the activation an application sees.
    pub fn activate(&self, kind: ObjectKind, id: &str) -> Result<OwnedObject, LifecycleError> {
        self.create(kind, id)?;
        self.publish_ready(kind, id)
    }

    /// This node's tenure of an object it owns, as the other end of a
    /// Message Follow route names it: the target of a relocation gives this
    /// to the source after its commit.
    pub fn owner_route_end(
        &self,
        kind: ObjectKind,
        id: &str,
    ) -> Result<Option<RouteEnd>, InputError> {
        let key = self.key(kind, id)?;
        let me = self.identity();
        Ok(self.ownership().get(key).map(|owned| RouteEnd {
            node: self.node_ref(),
            fence: RouteFence {
                object_generation: owned.object_generation,
                authority_owner_generation: owned.authority_owner_generation,
                owner_lease_generation: owned.lease_generation,
                node_generation: me.generation,
                store_version: owned.store_version,
            },
        }))
    }

    /// Extends this node's owner lease on the object.
    pub fn renew_lease(&self, kind: ObjectKind, id: &str) -> Result<OwnedObject, LifecycleError> {
        self.run_write(kind, id, Write::RenewLease)
    }

    /// Starts releasing the object: it resolves `Unavailable(Releasing)`.
    pub fn begin_release(&self, kind: ObjectKind, id: &str) -> Result<OwnedObject, LifecycleError> {
        self.run_write(kind, id, Write::BeginRelease)
    }

    /// Completes the release: the record is gone and the ID resolves `Missing`.
    pub fn complete_release(&self, kind: ObjectKind, id: &str) -> Result<(), LifecycleError> {
        let key = self.key(kind, id)?.to_owned();
        let inner = self.inner().clone();
        self.block_on(async move { inner.complete_release(key.as_ref()).await })
    }
}
