//! A store wrapper that fails on demand: how tests and the demo show what a
//! store outage or a store restart does to routing, on any backend.

use std::future::ready;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::watch;

use super::{LocationStore, Observed, StoreError, StoreFuture, WriteError, WriteFuture};
use crate::authority::{AuthorityRecord, OwnerClaim, StoreEpoch, WriteFence};
use crate::ids::{KeyRef, OwnerLeaseGeneration, ProposalId};
use crate::peer::{Endpoint, PeerDescriptor};

/// Wraps a real store. While `down`, every call fails `Unreachable` without
/// reaching the inner store; while `stalled`, calls reach the store but their
/// answers are held back (a paused server); while `unreplicated`, writes
/// apply but a successful one answers `NotReplicated` (a replica that does
/// not acknowledge them); `restart` changes the epoch it reports, as a
/// restarted or failed-over server would.
pub struct FaultyStore<S> {
    inner: S,
    down: AtomicBool,
    unreplicated: AtomicBool,
    stalled: watch::Sender<bool>,
    epoch_shift: AtomicU64,
    calls: AtomicU64,
}

impl<S: LocationStore> FaultyStore<S> {
    /// Wraps `inner`, initially up.
    pub fn new(inner: S) -> Self {
        FaultyStore {
            inner,
            down: AtomicBool::new(false),
            unreplicated: AtomicBool::new(false),
            stalled: watch::Sender::new(false),
            epoch_shift: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        }
    }

    /// Starts or ends an outage.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// Starts or ends a stall: answers wait until it ends.
    pub fn set_stalled(&self, stalled: bool) {
        self.stalled.send_replace(stalled);
    }

    /// Starts or ends a time when no replica acknowledges a write: each
    /// applies, and a successful one answers `NotReplicated` (its outcome
    /// unknown to the writer), as a Redis store with durable writes does.
    pub fn set_unreplicated(&self, unreplicated: bool) {
        self.unreplicated.store(unreplicated, Ordering::SeqCst);
    }

    /// Makes the store report a new epoch from now on.
    pub fn restart(&self) {
        self.epoch_shift.fetch_add(1, Ordering::SeqCst);
    }

    /// Calls that reached this wrapper (failed ones included).
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn gate(&self) -> Result<(), StoreError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.down.load(Ordering::SeqCst) {
            Err(StoreError::Unreachable(Arc::from(
                "store is down (injected outage)",
            )))
        } else {
            Ok(())
        }
    }

    /// Holds an answer back while stalled, then stamps the epoch.
    async fn answer<T, E>(&self, result: Result<Observed<T>, E>) -> Result<Observed<T>, E> {
        let mut stall = self.stalled.subscribe();
        // The sender lives in `self`, so this only ends when the stall does.
        let _ = stall.wait_for(|stalled| !*stalled).await;
        result.map(|o| self.shift(o))
    }

    fn shift<T>(&self, mut observed: Observed<T>) -> Observed<T> {
        observed.epoch = StoreEpoch(observed.epoch.0 + self.epoch_shift.load(Ordering::SeqCst));
        observed
    }

    /// Fails at once while down; otherwise starts `call` (the inner store may
    /// act as soon as it is called, so the gate comes first).
    fn write<'a, T: Send + 'a>(
        &'a self,
        call: impl FnOnce() -> WriteFuture<'a, Observed<T>>,
    ) -> WriteFuture<'a, Observed<T>> {
        if let Err(e) = self.gate() {
            return Box::pin(ready(Err(WriteError::Store(e))));
        }
        let unreplicated = self.unreplicated.load(Ordering::SeqCst);
        let call = call();
        Box::pin(async move {
            match self.answer(call.await).await {
                // A refusal wrote nothing: it is answered as it is.
                Ok(_) if unreplicated => Err(WriteError::Store(StoreError::NotReplicated {
                    acknowledged: 0,
                    wanted: 1,
                })),
                answer => answer,
            }
        })
    }
}

impl<S: LocationStore> LocationStore for FaultyStore<S> {
    fn executor(&self) -> Option<tokio::runtime::Handle> {
        self.inner.executor()
    }

    fn epoch(&self) -> Option<StoreEpoch> {
        let inner = self.inner.epoch()?;
        Some(StoreEpoch(
            inner.0 + self.epoch_shift.load(Ordering::SeqCst),
        ))
    }

    fn put_descriptor(
        &self,
        descriptor: &PeerDescriptor,
    ) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        self.write(|| self.inner.put_descriptor(descriptor))
    }

    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>> {
        if let Err(e) = self.gate() {
            return Box::pin(ready(Err(e)));
        }
        let call = self.inner.read_descriptor(endpoint);
        Box::pin(async move { self.answer(call.await).await })
    }

    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>> {
        if let Err(e) = self.gate() {
            return Box::pin(ready(Err(e)));
        }
        let call = self.inner.read(key);
        Box::pin(async move { self.answer(call.await).await })
    }

    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(|| self.inner.create(key, claim, proposal))
    }

    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(|| self.inner.publish_ready(key, expect, proposal))
    }

    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(|| self.inner.transfer_owner(key, expect, claim, proposal))
    }

    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(|| {
            self.inner
                .renew_lease(key, expect, lease, lease_millis, proposal)
        })
    }

    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(|| self.inner.begin_release(key, expect, proposal))
    }

    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>> {
        self.write(|| self.inner.complete_release(key, expect, proposal))
    }
}
