//! The objects this node owns, as its own authority writes left them: what
//! target-side admission checks against (§2.1 step 5).

use papaya::HashMap;

use crate::authority::{AuthorityRecord, AuthorityState, WriteFence};
use crate::clock::MonoTime;
use crate::ids::{
    AuthorityOwnerGeneration, KeyRef, ObjectGeneration, ObjectKey, OwnerLeaseGeneration,
    StoreVersion,
};

/// One object this node owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedObject {
    /// Lifecycle state as last written.
    pub state: AuthorityState,
    /// The current incarnation.
    pub object_generation: ObjectGeneration,
    /// The owner generation this node holds.
    pub authority_owner_generation: AuthorityOwnerGeneration,
    /// The owner lease it holds under.
    pub lease_generation: OwnerLeaseGeneration,
    /// The record version last written.
    pub store_version: StoreVersion,
    /// Past this local instant the lease may have ended: admit nothing.
    pub admission_deadline: MonoTime,
}

impl OwnedObject {
    /// The local view of a record this node just wrote, read at `started`.
    pub(crate) fn from_record(record: &AuthorityRecord, admission_deadline: MonoTime) -> Self {
        OwnedObject {
            state: record.state,
            object_generation: record.object_generation,
            authority_owner_generation: record.authority_owner_generation,
            lease_generation: record.owner.lease.generation,
            store_version: record.store_version,
            admission_deadline,
        }
    }

    /// The fence this node names when it writes this object's authority.
    pub fn write_fence(&self) -> WriteFence {
        WriteFence {
            object_generation: self.object_generation,
            authority_owner_generation: self.authority_owner_generation,
        }
    }
}

/// Local ownership table; lock-free reads for admission.
#[derive(Default)]
pub(crate) struct Ownership {
    objects: HashMap<ObjectKey, OwnedObject, foldhash::fast::RandomState>,
}

impl Ownership {
    pub(crate) fn get(&self, key: KeyRef<'_>) -> Option<OwnedObject> {
        self.objects.pin().get(&key).copied()
    }

    pub(crate) fn set(&self, key: KeyRef<'_>, object: OwnedObject) {
        self.objects.pin().insert(key.to_owned(), object);
    }

    pub(crate) fn remove(&self, key: KeyRef<'_>) -> Option<OwnedObject> {
        self.objects.pin().remove(&key).copied()
    }

    /// Every object owned now, with what this node owns of it.
    pub(crate) fn entries(&self) -> Vec<(ObjectKey, OwnedObject)> {
        let objects = self.objects.pin();
        objects.iter().map(|(k, o)| (k.clone(), *o)).collect()
    }

    /// Lowers the admission deadline of `key` to `at` if that is earlier;
    /// never raises it (a concurrent write's later deadline stays).
    pub(crate) fn lower_deadline(&self, key: KeyRef<'_>, at: MonoTime) {
        self.objects.pin().update(key.to_owned(), |o| OwnedObject {
            admission_deadline: o.admission_deadline.min(at),
            ..*o
        });
    }

    /// Removes `key` if this node still owns it as `judged` says (same
    /// incarnation, owner and lease generation, record version): a tenure a
    /// later write replaced stays. True if removed.
    pub(crate) fn remove_if_same(&self, key: KeyRef<'_>, judged: &OwnedObject) -> bool {
        let same = |o: &OwnedObject| {
            o.object_generation == judged.object_generation
                && o.authority_owner_generation == judged.authority_owner_generation
                && o.lease_generation == judged.lease_generation
                && o.store_version == judged.store_version
        };
        matches!(
            self.objects.pin().remove_if(&key, |_, o| same(o)),
            Ok(Some(_))
        )
    }

    pub(crate) fn len(&self) -> usize {
        self.objects.len()
    }
}
