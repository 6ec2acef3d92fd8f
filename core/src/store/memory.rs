//! The embedded Location Store: the default when no Redis is configured, and
//! the store every in-process runtime of a mesh shares.

use std::collections::{HashMap, VecDeque};
use std::future::ready;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{LocationStore, Observed, StoreFuture, WriteError, WriteFuture, WriteRejection};
use crate::authority::{
    AuthorityRecord, AuthorityState, OwnerClaim, StoreEpoch, StoreTime, WriteFence,
};
use crate::clock::{Clock, SystemClock};
use crate::ids::{
    AuthorityOwnerGeneration, KeyRef, ObjectGeneration, ObjectKey, OwnerLeaseGeneration,
    ProposalId, StoreVersion,
};
use crate::peer::{Endpoint, PeerDescriptor};

/// What the store keeps per ID. After a release the slot is a tombstone:
/// its version and proposal outlive the record for the retention, so a
/// replayed release is recognised and versions keep rising.
#[derive(Debug, Clone, Default)]
struct Slot {
    record: Option<AuthorityRecord>,
    last_object_generation: ObjectGeneration,
    last_version: StoreVersion,
    /// The proposal of the last applied write, kept after a release too.
    last_proposal: ProposalId,
    /// When the record was released (the slot is a tombstone since).
    released_at: Option<StoreTime>,
}

/// Every slot, the store-wide generation counter and the tombstones in the
/// order they expire.
#[derive(Debug, Clone, Default)]
struct Slots {
    map: HashMap<ObjectKey, Slot>,
    /// The last ObjectGeneration handed out, by any ID: drawn from one
    /// counter, a generation never repeats, even for an ID whose tombstone
    /// is gone.
    last_generation: ObjectGeneration,
    /// (release time, ID), oldest first: one retention apart from expiry.
    tombstones: VecDeque<(StoreTime, ObjectKey)>,
}

impl Slots {
    /// Drops the tombstones released at or before `before`.
    fn sweep(&mut self, before: StoreTime) {
        while let Some((at, _)) = self.tombstones.front()
            && *at <= before
        {
            let Some((at, key)) = self.tombstones.pop_front() else {
                break;
            };
            // Re-created (or released again later) since: not this tombstone.
            if self
                .map
                .get(&key)
                .is_some_and(|s| s.released_at == Some(at))
            {
                self.map.remove(&key);
            }
        }
    }
}

/// A [`MemoryStore`]'s records at one moment ([`MemoryStore::replica`]).
#[derive(Debug, Clone)]
pub struct StoreReplica(Slots);

/// An in-memory Location Store, safe to share between runtimes and threads.
/// Its clock is the store clock lease expiries are measured on.
pub struct MemoryStore {
    slots: Mutex<Slots>,
    descriptors: Mutex<HashMap<Endpoint, PeerDescriptor>>,
    clock: Arc<dyn Clock>,
    epoch: StoreEpoch,
    retention: Duration,
}

impl MemoryStore {
    /// A store on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock::new()))
    }

    /// A store whose lease clock is `clock` (share a `ManualClock` with the
    /// runtimes in tests).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryStore {
            slots: Mutex::new(Slots::default()),
            descriptors: Mutex::new(HashMap::new()),
            clock,
            epoch: StoreEpoch(1),
            retention: super::DEFAULT_TOMBSTONE_RETENTION,
        }
    }

    /// Keeps a released object's tombstone for `retention` (default
    /// [`DEFAULT_TOMBSTONE_RETENTION`](super::DEFAULT_TOMBSTONE_RETENTION))
    /// instead.
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// The records as they are now: what a replica that stops receiving
    /// writes from here on keeps (fault injection, with
    /// [`promote`](Self::promote)).
    pub fn replica(&self) -> StoreReplica {
        StoreReplica(self.lock().clone())
    }

    /// Fails over to `replica`: every write applied since it was taken is
    /// lost, as when a primary dies and a replica that missed its last
    /// writes is promoted. Generations issued since are not issued again
    /// (a Redis store draws them from the server's clock too).
    pub fn promote(&self, replica: StoreReplica) {
        let mut slots = self.lock();
        let issued = slots.last_generation;
        *slots = replica.0;
        slots.last_generation = slots.last_generation.max(issued);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// IDs the store holds now: records and tombstones not yet expired.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether the store holds no ID at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn now(&self) -> StoreTime {
        StoreTime(self.clock.now().as_millis())
    }

    fn observed<T>(&self, value: T) -> Observed<T> {
        Observed {
            value,
            store_time: self.now(),
            epoch: self.epoch,
        }
    }

    /// Runs one atomic write on the slot of `key` and wraps the answer.
    fn write<T>(
        &self,
        key: KeyRef<'_>,
        apply: impl FnOnce(&mut Slot, &mut ObjectGeneration, StoreTime) -> Result<T, WriteRejection>,
    ) -> WriteFuture<'_, Observed<T>>
    where
        T: Send + 'static,
    {
        let now = self.now();
        let retention = u64::try_from(self.retention.as_millis()).unwrap_or(u64::MAX);
        let result = {
            let mut slots = self.lock();
            slots.sweep(StoreTime(now.0.saturating_sub(retention)));
            let Slots {
                map,
                last_generation,
                tombstones,
            } = &mut *slots;
            let owned = key.to_owned();
            let slot = map.entry(owned.clone()).or_default();
            let was_tombstone = slot.released_at;
            let result = apply(slot, last_generation, now);
            if slot.last_version == StoreVersion::default() {
                // A refused write to an ID never written: keep no empty slot.
                map.remove(&owned);
            } else if slot.released_at != was_tombstone
                && let Some(at) = slot.released_at
            {
                tombstones.push_back((at, owned));
            }
            result
        };
        let answer = result
            .map(|value| Observed {
                value,
                store_time: now,
                epoch: self.epoch,
            })
            .map_err(WriteError::from);
        Box::pin(ready(answer))
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("epoch", &self.epoch)
            .finish()
    }
}

/// The current record, if it matches what the writer read.
fn checked(slot: &mut Slot, expect: WriteFence) -> Result<&mut AuthorityRecord, WriteRejection> {
    let record = slot.record.as_mut().ok_or(WriteRejection::NotFound)?;
    let current = record.write_fence();
    if current != expect {
        return Err(WriteRejection::StaleGeneration {
            expected: expect,
            current,
        });
    }
    Ok(record)
}

fn in_state(record: &AuthorityRecord, allowed: &[AuthorityState]) -> Result<(), WriteRejection> {
    if allowed.contains(&record.state) {
        Ok(())
    } else {
        Err(WriteRejection::WrongState {
            state: record.state,
        })
    }
}

/// Stamps a changed record with the next version and the write's proposal.
fn stamp(slot: &mut Slot, proposal: ProposalId) -> AuthorityRecord {
    slot.last_version = slot.last_version.next();
    slot.last_proposal = proposal;
    let record = slot.record.as_mut().expect("a checked write has a record");
    record.store_version = slot.last_version;
    record.last_proposal = proposal;
    *record
}

impl MemoryStore {
    /// A write that leaves a record: replays an applied proposal, otherwise
    /// runs `change` and stamps the result.
    fn write_record(
        &self,
        key: KeyRef<'_>,
        proposal: ProposalId,
        change: impl FnOnce(&mut Slot, &mut ObjectGeneration, StoreTime) -> Result<(), WriteRejection>,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write(key, move |slot, generations, now| {
            if let Some(applied) = slot.record.filter(|r| r.last_proposal == proposal) {
                return Ok(applied);
            }
            change(slot, generations, now)?;
            Ok(stamp(slot, proposal))
        })
    }
}

impl LocationStore for MemoryStore {
    fn epoch(&self) -> Option<StoreEpoch> {
        Some(self.epoch)
    }

    fn put_descriptor(
        &self,
        descriptor: &PeerDescriptor,
    ) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        let answer = {
            let mut all = self.descriptors.lock().unwrap_or_else(|p| p.into_inner());
            match all.get(&descriptor.endpoint) {
                Some(stored)
                    if stored.rid == descriptor.rid
                        && stored.lifecycle_generation > descriptor.lifecycle_generation =>
                {
                    Err(WriteError::Rejected(WriteRejection::StaleDescriptor {
                        current: stored.lifecycle_generation,
                    }))
                }
                _ => {
                    all.insert(descriptor.endpoint.clone(), descriptor.clone());
                    Ok(self.observed(descriptor.clone()))
                }
            }
        };
        Box::pin(ready(answer))
    }

    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>> {
        let found = self
            .descriptors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(endpoint)
            .cloned();
        Box::pin(ready(Ok(self.observed(found))))
    }

    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>> {
        let record = {
            let slots = self.lock();
            slots.map.get(&key.to_owned()).and_then(|slot| slot.record)
        };
        Box::pin(ready(Ok(self.observed(record))))
    }

    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write_record(key, proposal, move |slot, generations, now| {
            if let Some(existing) = &slot.record {
                if existing.state == AuthorityState::Creating && claim.granted_as(&existing.owner) {
                    // The claimant's own earlier create, its answer lost.
                    return Ok(());
                }
                return Err(WriteRejection::AlreadyExists {
                    state: existing.state,
                    current: existing.write_fence(),
                });
            }
            *generations = generations.next();
            slot.last_object_generation = *generations;
            slot.released_at = None;
            slot.record = Some(AuthorityRecord {
                state: AuthorityState::Creating,
                object_generation: slot.last_object_generation,
                authority_owner_generation: AuthorityOwnerGeneration(1),
                owner: claim.granted_at(now),
                store_version: slot.last_version,
                last_proposal: proposal,
            });
            Ok(())
        })
    }

    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write_record(key, proposal, move |slot, _, _| {
            let record = checked(slot, expect)?;
            in_state(record, &[AuthorityState::Creating])?;
            record.state = AuthorityState::Ready;
            Ok(())
        })
    }

    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write_record(key, proposal, move |slot, _, now| {
            let record = checked(slot, expect)?;
            in_state(record, &[AuthorityState::Ready])?;
            record.owner = claim.granted_at(now);
            record.authority_owner_generation = record.authority_owner_generation.next();
            Ok(())
        })
    }

    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write_record(key, proposal, move |slot, _, now| {
            let record = checked(slot, expect)?;
            in_state(record, &[AuthorityState::Creating, AuthorityState::Ready])?;
            let held = record.owner.lease;
            if held.generation != lease {
                return Err(WriteRejection::NotLeaseHolder {
                    holder: held.generation,
                    claimed: lease,
                });
            }
            if held.expires_at <= now {
                return Err(WriteRejection::LeaseExpired);
            }
            record.owner.lease.expires_at = StoreTime(now.0.saturating_add(lease_millis));
            Ok(())
        })
    }

    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        self.write_record(key, proposal, move |slot, _, _| {
            let record = checked(slot, expect)?;
            in_state(record, &[AuthorityState::Creating, AuthorityState::Ready])?;
            record.state = AuthorityState::Releasing;
            Ok(())
        })
    }

    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>> {
        self.write(key, move |slot, _, now| {
            if slot.record.is_none()
                && slot.last_proposal == proposal
                && slot.last_version > StoreVersion(0)
            {
                return Ok(()); // this release was applied before
            }
            let record = checked(slot, expect)?;
            in_state(record, &[AuthorityState::Releasing])?;
            slot.record = None;
            slot.released_at = Some(now);
            slot.last_version = slot.last_version.next();
            slot.last_proposal = proposal;
            Ok(())
        })
    }
}
