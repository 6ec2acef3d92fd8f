//! The host's store, timed: every call's latency, from the call to its
//! answer, goes to the runtime's read or write histogram. The runtime
//! wraps whichever store it was given, so every backend is measured the
//! same way and none has to know.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{LocationStore, Observed, StoreError, StoreFuture, WriteFuture};
use crate::authority::{AuthorityRecord, OwnerClaim, StoreEpoch, WriteFence};
use crate::ids::{KeyRef, OwnerLeaseGeneration, ProposalId};
use crate::latency::{Histogram, Latencies};
use crate::peer::{Endpoint, PeerDescriptor};

/// A store whose calls are timed.
pub(crate) struct Timed {
    inner: Arc<dyn LocationStore>,
    latencies: Arc<Latencies>,
}

impl Timed {
    pub(crate) fn new(inner: Arc<dyn LocationStore>, latencies: Arc<Latencies>) -> Self {
        Timed { inner, latencies }
    }

    /// `call`'s future, recording its latency in the histogram `pick`
    /// chooses once it answers (wall time: the store's I/O is real time
    /// whatever the runtime's clock).
    fn time<'a, T: Send + 'a>(
        &self,
        pick: fn(&Latencies) -> &Histogram,
        call: impl Future<Output = T> + Send + 'a,
    ) -> std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>> {
        let latencies = self.latencies.clone();
        let start = Instant::now();
        Box::pin(async move {
            let answer = call.await;
            pick(&latencies).record(start.elapsed());
            answer
        })
    }
}

fn read(l: &Latencies) -> &Histogram {
    &l.store_read
}

fn write(l: &Latencies) -> &Histogram {
    &l.store_write
}

impl LocationStore for Timed {
    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>> {
        self.time(read, self.inner.read(key))
    }

    fn read_blocking(
        &self,
        key: KeyRef<'_>,
        limit: Duration,
    ) -> Option<Result<Observed<Option<AuthorityRecord>>, StoreError>> {
        let start = Instant::now();
        let answer = self.inner.read_blocking(key, limit)?;
        self.latencies.store_read.record(start.elapsed());
        Some(answer)
    }

    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.time(write, self.inner.create(key, claim, proposal))
    }

    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.time(write, self.inner.publish_ready(key, expect, proposal))
    }

    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let call = self.inner.transfer_owner(key, expect, claim, proposal);
        self.time(write, call)
    }

    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let call = self
            .inner
            .renew_lease(key, expect, lease, lease_millis, proposal);
        self.time(write, call)
    }

    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.time(write, self.inner.begin_release(key, expect, proposal))
    }

    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>> {
        self.time(write, self.inner.complete_release(key, expect, proposal))
    }

    fn put_descriptor(
        &self,
        descriptor: &PeerDescriptor,
    ) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        self.time(write, self.inner.put_descriptor(descriptor))
    }

    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>> {
        self.time(read, self.inner.read_descriptor(endpoint))
    }

    fn executor(&self) -> Option<tokio::runtime::Handle> {
        self.inner.executor()
    }

    fn epoch(&self) -> Option<StoreEpoch> {
        self.inner.epoch()
    }
}
