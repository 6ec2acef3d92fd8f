//! Identities of objects and nodes, and the generation numbers that fence them.
//!
//! Object IDs are opaque (spec §2.1): the core never parses one to find a node.
//! Every generation is its own newtype so a node generation can never be
//! passed where an object generation is expected.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::error::InputError;

/// Largest object-ID cap a config may set (bytes). The default cap is 1024.
pub const MAX_OBJECT_ID_BYTES: usize = u16::MAX as usize;

/// Longest mesh name, in bytes. Mesh names are short configuration names, kept
/// inline so a route is plain data that can be copied out of the cache.
pub const MAX_MESH_NAME_BYTES: usize = 23;

/// Which kind of logical object a global ID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ObjectKind {
    /// A Spot: a logical instance addressed by a global SpotId.
    Spot = 1,
    /// An Actor: a logical instance addressed by a global ActorId.
    Actor = 2,
}

impl ObjectKind {
    /// The lower-case name used in logs, keys and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Spot => "spot",
            ObjectKind::Actor => "actor",
        }
    }

    /// Parses `spot` or `actor`.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "spot" => Ok(ObjectKind::Spot),
            "actor" => Ok(ObjectKind::Actor),
            other => Err(InputError::UnknownObjectKind(other.to_owned())),
        }
    }
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Checks an object ID against the cap in force: 1..=`max_bytes` bytes.
pub(crate) fn check_object_id(id: &str, max_bytes: usize) -> Result<(), InputError> {
    if id.is_empty() {
        return Err(InputError::EmptyObjectId);
    }
    if id.len() > max_bytes {
        return Err(InputError::ObjectIdTooLong {
            len: id.len(),
            max: max_bytes,
        });
    }
    Ok(())
}

/// A global Spot or Actor ID together with its kind: the logical address of
/// a message target. Owned; the hot path borrows a [`KeyRef`] instead.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectKey {
    kind: ObjectKind,
    id: Box<str>,
}

impl ObjectKey {
    /// Builds a key, checking the ID against the largest cap any config allows.
    /// The runtime checks its own (smaller) configured cap at its API edge.
    pub fn new(kind: ObjectKind, id: &str) -> Result<Self, InputError> {
        check_object_id(id, MAX_OBJECT_ID_BYTES)?;
        Ok(ObjectKey {
            kind,
            id: id.into(),
        })
    }

    /// The object's kind.
    pub fn kind(&self) -> ObjectKind {
        self.kind
    }

    /// The global ID, exactly as the caller gave it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A borrowed view of this key.
    pub fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            kind: self.kind,
            id: &self.id,
        }
    }
}

impl Hash for ObjectKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_ref().hash(state)
    }
}

impl fmt::Debug for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:?}", self.kind, self.id)
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind, self.id)
    }
}

impl papaya::Equivalent<ObjectKey> for KeyRef<'_> {
    fn equivalent(&self, key: &ObjectKey) -> bool {
        *self == key.as_ref()
    }
}

/// A borrowed object key: what the hot path hashes and compares, so a cache
/// lookup never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// The object's kind.
    pub kind: ObjectKind,
    /// The global ID.
    pub id: &'a str,
}

impl KeyRef<'_> {
    /// An owned copy of this key.
    pub fn to_owned(self) -> ObjectKey {
        ObjectKey {
            kind: self.kind,
            id: self.id.into(),
        }
    }
}

// Every owned key type hashes through this one function, so a borrowed
// `KeyRef` finds the owned entry it equals.
impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.kind as u8);
        state.write(self.id.as_bytes());
    }
}

/// The name of a RouteMesh connection group. 1..=23 bytes of UTF-8, stored
/// inline so routes stay `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)] // `len` then `bytes`, 24 bytes: `to_c_bytes` reads three words.
pub struct MeshName {
    len: u8,
    bytes: [u8; MAX_MESH_NAME_BYTES],
}

impl MeshName {
    /// Checks and stores a mesh name.
    pub fn new(name: &str) -> Result<Self, InputError> {
        if name.is_empty() {
            return Err(InputError::EmptyMeshName);
        }
        if name.len() > MAX_MESH_NAME_BYTES {
            return Err(InputError::MeshNameTooLong {
                len: name.len(),
                max: MAX_MESH_NAME_BYTES,
            });
        }
        let mut bytes = [0u8; MAX_MESH_NAME_BYTES];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(MeshName {
            len: name.len() as u8,
            bytes,
        })
    }

    /// The name NUL-terminated in a fixed-size array (zero-padded), as C
    /// hosts receive it: a copy of fixed size, without a UTF-8 decode.
    #[inline]
    pub fn to_c_bytes(&self) -> [u8; MAX_MESH_NAME_BYTES + 1] {
        // The whole struct as three words, read from its start, then
        // shifted down one byte (dropping `len`, a zero byte entering at
        // the top: the NUL, as `new` leaves the bytes past `len` zero). A
        // route was usually just copied to the stack: reading `bytes` at
        // offset 1 would straddle that copy's stores and stall the CPU.
        const _: () = assert!(MAX_MESH_NAME_BYTES + 1 == 24);
        let mut raw = [0u8; MAX_MESH_NAME_BYTES + 1];
        raw[0] = self.len;
        raw[1..].copy_from_slice(&self.bytes);
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&raw[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let (w0, w1, w2) = (word(0), word(1), word(2));
        let words = [(w0 >> 8) | (w1 << 56), (w1 >> 8) | (w2 << 56), w2 >> 8];
        let mut out = [0u8; MAX_MESH_NAME_BYTES + 1];
        for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// The name as three little-endian words: `len`, then the bytes. How
    /// the route cache's table keeps a name, in atomics a reader loads.
    pub(crate) fn to_words(self) -> [u64; 3] {
        let mut raw = [0u8; 24];
        raw[0] = self.len;
        raw[1..].copy_from_slice(&self.bytes);
        std::array::from_fn(|i| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&raw[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        })
    }

    /// The name whose [`to_words`](Self::to_words) are `words`; None if
    /// their length is not a name's (all zero, say). Only words `to_words`
    /// made may be given: the bytes are not checked again.
    #[inline]
    pub(crate) fn from_words(words: [u64; 3]) -> Option<MeshName> {
        let len = words[0] as u8;
        if len == 0 || usize::from(len) > MAX_MESH_NAME_BYTES {
            return None;
        }
        let mut raw = [0u8; 24];
        for (chunk, w) in raw.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        let mut bytes = [0u8; MAX_MESH_NAME_BYTES];
        bytes.copy_from_slice(&raw[1..]);
        Some(MeshName { len, bytes })
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize])
            .expect("MeshName is built only from a &str, cut at its own length")
    }
}

impl fmt::Debug for MeshName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MeshName({:?})", self.as_str())
    }
}

impl fmt::Display for MeshName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! number_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub u64);

        impl $name {
            /// The raw number (for wire codecs and host bindings).
            pub const fn get(self) -> u64 {
                self.0
            }

            /// The next value in this sequence.
            pub const fn next(self) -> Self {
                $name(self.0 + 1)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

number_newtype!(
    /// The routing ID of a MeshNode within its mesh.
    NodeRid
);
number_newtype!(
    /// The lifecycle generation of a MeshNode: a restarted node has a higher one.
    NodeGeneration
);
number_newtype!(
    /// Distinguishes incarnations of one logical ID (a re-created object gets a
    /// higher one).
    ObjectGeneration
);
number_newtype!(
    /// Orders owner changes within one incarnation; bumped by each relocation
    /// commit.
    AuthorityOwnerGeneration
);
number_newtype!(
    /// Identifies the owner lease: the host-process lifecycle the current owner
    /// belongs to.
    OwnerLeaseGeneration
);
number_newtype!(
    /// Per-object version of the authority record; every successful write bumps
    /// it, and it never goes back, even across incarnations.
    StoreVersion
);

number_newtype!(
    /// Identifies one authority write attempt. A retry of the same write
    /// (after an ambiguous timeout) reuses it, so the store recognises the
    /// caller's own applied write instead of reporting a conflict.
    ProposalId
);

number_newtype!(
    /// Identifies one application operation (message or request) from its
    /// start to its terminal result; kept unchanged across relays.
    OperationId
);
number_newtype!(
    /// Links a reply to the pending request it completes, on the requester.
    CorrelationId
);

number_newtype!(
    /// Identifies one Session on its Session owner.
    SessionId
);
number_newtype!(
    /// The lifecycle generation of a Session: a reconnected session is a new one.
    SessionGeneration
);
number_newtype!(
    /// Orders the bindings of one Session to one Actor: a rebind registers a
    /// higher one, and a tombstone names the one it removes.
    BindingGeneration
);
number_newtype!(
    /// The secret-free token an Actor owner issues with a binding; a late
    /// message of a replaced or terminated binding carries a stale one.
    BindingToken
);
number_newtype!(
    /// Identifies one relocation of one object, from seal to commit or abort.
    RelocationId
);

/// Unique 64-bit numbers for proposals and operations: a random seed per
/// runtime hashed with a sequence, so they are unique with overwhelming
/// probability across nodes and restarts without coordination. Never zero.
#[derive(Debug)]
pub(crate) struct UniqueIds {
    seed: u64,
    sequence: std::sync::atomic::AtomicU64,
}

impl UniqueIds {
    pub(crate) fn new() -> Self {
        use std::hash::BuildHasher;
        Self::seeded(std::hash::RandomState::new().hash_one(std::time::SystemTime::now()))
    }

    /// The same numbers for the same seed: for a seeded simulation, where a
    /// run must replay exactly.
    pub(crate) fn seeded(seed: u64) -> Self {
        // Numbers are the seed-keyed hash of a counter, which mixes the two
        // little: seeds a few bits apart (1, 2, 3 …) would hand out each
        // other's numbers. Spreading the seed first (splitmix64's finalizer)
        // keeps nearby seeds as far apart as random ones.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        UniqueIds {
            seed: z ^ (z >> 31),
            sequence: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub(crate) fn next(&self) -> u64 {
        use std::hash::BuildHasher;
        let n = self
            .sequence
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        foldhash::fast::FixedState::with_seed(self.seed).hash_one(n) | 1
    }
}

/// Who a runtime is: its mesh, routing ID, node lifecycle generation and the
/// owner lease generation under which it owns objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeIdentity {
    /// The connection group this node belongs to.
    pub mesh: MeshName,
    /// The node's routing ID.
    pub rid: NodeRid,
    /// The node's lifecycle generation.
    pub generation: NodeGeneration,
    /// The owner lease this process lifecycle holds for the objects it owns.
    pub lease: OwnerLeaseGeneration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mesh_name_as_c_bytes_is_its_bytes_then_zeros() {
        for name in ["m", "bench-mesh", "exactly-23-bytes-long-n", "héllo"] {
            let c = MeshName::new(name).expect("valid").to_c_bytes();
            assert_eq!(&c[..name.len()], name.as_bytes());
            assert!(c[name.len()..].iter().all(|b| *b == 0), "{name}: {c:?}");
        }
    }

    #[test]
    fn nearby_seeds_never_hand_out_each_others_numbers() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 1..=8u64 {
            let ids = UniqueIds::seeded(1 << 32 | seed);
            for _ in 0..10_000 {
                assert!(seen.insert(ids.next()), "seed {seed} repeated a number");
            }
        }
        let (a, b) = (UniqueIds::seeded(7), UniqueIds::seeded(7));
        assert!((0..100).all(|_| a.next() == b.next()), "a seed replays");
    }

    #[test]
    fn object_ids_are_checked_for_length() {
        assert_eq!(
            ObjectKey::new(ObjectKind::Spot, ""),
            Err(InputError::EmptyObjectId)
        );
        let long = "x".repeat(MAX_OBJECT_ID_BYTES + 1);
        assert!(matches!(
            ObjectKey::new(ObjectKind::Actor, &long),
            Err(InputError::ObjectIdTooLong { .. })
        ));
        assert!(check_object_id("abcd", 3).is_err());
        assert!(check_object_id("abc", 3).is_ok());
    }

    #[test]
    fn ids_are_opaque_and_kept_verbatim() {
        let key = ObjectKey::new(ObjectKind::Actor, "node-7/actor:42").expect("valid id");
        assert_eq!(key.id(), "node-7/actor:42");
        assert_eq!(key.to_string(), "actor:node-7/actor:42");
    }

    #[test]
    fn borrowed_and_owned_keys_hash_alike() {
        use std::hash::BuildHasher;
        let s = foldhash::fast::FixedState::with_seed(7);
        let key = ObjectKey::new(ObjectKind::Spot, "room-1").expect("valid id");
        assert_eq!(s.hash_one(&key), s.hash_one(key.as_ref()));
        let other = ObjectKey::new(ObjectKind::Actor, "room-1").expect("valid id");
        assert_ne!(s.hash_one(&key), s.hash_one(&other));
    }

    #[test]
    fn mesh_names_are_bounded() {
        assert_eq!(MeshName::new(""), Err(InputError::EmptyMeshName));
        assert!(MeshName::new(&"m".repeat(MAX_MESH_NAME_BYTES + 1)).is_err());
        assert_eq!(
            MeshName::new("game-mesh").expect("valid").as_str(),
            "game-mesh"
        );
    }
}
