//! Plain C structs and enums, and the checked conversions of C inputs.

use std::ffi::c_char;
use std::time::Duration;

use zlink_core::store::WriteError;
use zlink_core::wire::{NodeRef, RouteEnd};
use zlink_core::{
    AuthorityOwnerGeneration, AuthorityState, InputError, LifecycleError, MAX_MESH_NAME_BYTES,
    MAX_OBJECT_ID_BYTES, MeshName, NodeGeneration, NodeRid, ObjectGeneration, ObjectKind,
    OwnedObject, OwnerLeaseGeneration, ReadyRoute, Resolution, RouteFence, RoutingConfig,
    StoreError, StoreVersion, UnavailableReason,
};

use crate::{Fail, FfiResult, ZLINK_MAX_TEXT_BYTES, zlink_result};

/// Bytes of a mesh-name field: up to 23 bytes of UTF-8 and a NUL.
pub const ZLINK_MESH_NAME_CAPACITY: usize = 24;
const _: () = assert!(ZLINK_MESH_NAME_CAPACITY == MAX_MESH_NAME_BYTES + 1);

/// Which kind of logical object a global ID names. Functions take it as a
/// `uint32_t` so that an out-of-range value is an error code, not UB.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_object_kind {
    /// A Spot.
    Spot = 1,
    /// An Actor.
    Actor = 2,
}

/// The resolver's four closed results (spec §2.2).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_resolution_tag {
    /// A Ready owner route: `route` holds it. Submit on it.
    ReadyRoute = 1,
    /// No authority record exists: only the creation coordinator acts.
    Missing = 2,
    /// Authority exists but cannot be used now: `reason` says why.
    Unavailable = 3,
    /// Whether authority exists is unknown: `store_error` says why. Retry.
    StoreFailure = 4,
}

/// Why an object cannot take messages now (`ZLINK_UNAVAILABLE_REASON_NONE`
/// when the result is not Unavailable).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_unavailable_reason {
    /// Not an Unavailable result.
    None = 0,
    /// Still being created.
    Creating = 1,
    /// Being released.
    Releasing = 2,
    /// The owner lease expired on the store's clock.
    LeaseExpired = 3,
    /// The owner lease was invalidated.
    OwnerNotLive = 4,
    /// The owner rejected the route as stale.
    StaleRoute = 5,
    /// The owner's admission deadline passed.
    AdmissionDeadlinePassed = 6,
    /// A Message Follow chain reached its hop limit.
    FollowHopLimit = 7,
    /// The object's relocation failed while the operation was held for it:
    /// no owner ran it, and it is not resubmitted.
    RelocationFailed = 8,
}

/// Why a store call failed (`ZLINK_STORE_ERROR_NONE` when it did not).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_store_error {
    /// Not a store failure.
    None = 0,
    /// The call timed out. Retry later.
    Timeout = 1,
    /// The store could not be reached. Retry later.
    Unreachable = 2,
    /// The store is configured wrongly. Fix the configuration.
    Config = 3,
    /// The store answered something unusable. Report it.
    Protocol = 4,
}

/// An authority record's lifecycle state.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_authority_state {
    /// Created, not yet Ready.
    Creating = 1,
    /// Ready: takes messages.
    Ready = 2,
    /// Being released.
    Releasing = 3,
}

/// The routing settings, durations in milliseconds (DESIGN §4). Start from
/// `zlink_config_default` (which sets `size`) and change what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_config {
    /// `sizeof(zlink_config)` as the caller compiled it: lets later
    /// versions append fields. Set by `zlink_config_default`; any other
    /// value than this library's size is `ZLINK_RESULT_INVALID_CONFIG`.
    pub size: usize,
    /// Longest life of a cached route; 0 turns the cache off. Default 15000.
    pub route_cache_max_age_ms: u64,
    /// How long a committed Message Follow route relays; 0 = off. Default 30000.
    pub message_follow_duration_ms: u64,
    /// Longest Message Follow chain, 1..=8. Default 8.
    pub max_follow_hops: u8,
    /// How long a Session owner waits for command 44. Default 10000.
    pub session_relocation_seal_timeout_ms: u64,
    /// How long a bind waits for its terminal reply (or a rebind for the
    /// previous owner's tombstone ACK) before it is refused. Default 10000.
    pub session_bind_timeout_ms: u64,
    /// Most entries of the route cache. Default 1000000.
    pub route_cache_capacity: u64,
    /// Owner lease length. Default 30000.
    pub owner_lease_duration_ms: u64,
    /// Deadline of one store call. Default 2000.
    pub store_timeout_ms: u64,
    /// Store attempts of a direct send. Default 3.
    pub store_attempts: u32,
    /// Longest object ID, 1..=65535 bytes. Default 1024.
    pub max_object_id_bytes: u64,
    /// Largest payload of one operation, in bytes. Default 1048576.
    pub max_message_bytes: u64,
    /// How long a relocation's source waits for relay-ready and then for
    /// the target's commit, and how long a target waits for its host to
    /// restore (> 0). Default 5000.
    pub relocation_timeout_ms: u64,
    /// Largest application state one relocation carries, in bytes,
    /// 1..=1073741824. Default 16777216.
    pub max_relocation_state_bytes: u64,
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl From<&RoutingConfig> for zlink_config {
    fn from(c: &RoutingConfig) -> Self {
        zlink_config {
            size: std::mem::size_of::<zlink_config>(),
            route_cache_max_age_ms: ms(c.route_cache_max_age),
            message_follow_duration_ms: ms(c.message_follow_duration),
            max_follow_hops: c.max_follow_hops,
            session_relocation_seal_timeout_ms: ms(c.session_relocation_seal_timeout),
            session_bind_timeout_ms: ms(c.session_bind_timeout),
            route_cache_capacity: c.route_cache_capacity as u64,
            owner_lease_duration_ms: ms(c.owner_lease_duration),
            store_timeout_ms: ms(c.store_timeout),
            store_attempts: c.store_attempts,
            max_object_id_bytes: c.max_object_id_bytes as u64,
            max_message_bytes: c.max_message_bytes as u64,
            relocation_timeout_ms: ms(c.relocation_timeout),
            max_relocation_state_bytes: c.max_relocation_state_bytes as u64,
        }
    }
}

impl zlink_config {
    pub(crate) fn to_core(self) -> FfiResult<RoutingConfig> {
        let size = |v: u64, field: &str| {
            usize::try_from(v).map_err(|_| {
                Fail::new(zlink_result::InvalidConfig, format!("{field} is too large"))
            })
        };
        let config = RoutingConfig {
            route_cache_max_age: Duration::from_millis(self.route_cache_max_age_ms),
            message_follow_duration: Duration::from_millis(self.message_follow_duration_ms),
            max_follow_hops: self.max_follow_hops,
            session_relocation_seal_timeout: Duration::from_millis(
                self.session_relocation_seal_timeout_ms,
            ),
            session_bind_timeout: Duration::from_millis(self.session_bind_timeout_ms),
            route_cache_capacity: size(self.route_cache_capacity, "route_cache_capacity")?,
            owner_lease_duration: Duration::from_millis(self.owner_lease_duration_ms),
            store_timeout: Duration::from_millis(self.store_timeout_ms),
            store_attempts: self.store_attempts,
            max_object_id_bytes: size(self.max_object_id_bytes, "max_object_id_bytes")?,
            max_message_bytes: size(self.max_message_bytes, "max_message_bytes")?,
            relocation_timeout: Duration::from_millis(self.relocation_timeout_ms),
            max_relocation_state_bytes: size(
                self.max_relocation_state_bytes,
                "max_relocation_state_bytes",
            )?,
        };
        config
            .validate()
            .map_err(|e| Fail::new(zlink_result::InvalidConfig, e.to_string()))?;
        Ok(config)
    }
}

/// Who a runtime is. `mesh` is NUL-terminated UTF-8, 1..=23 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct zlink_node_identity {
    /// The mesh (connection group) name.
    pub mesh: *const c_char,
    /// The node's routing ID.
    pub rid: u64,
    /// The node's lifecycle generation (a restarted node has a higher one).
    pub generation: u64,
    /// The owner lease generation of this process lifecycle.
    pub lease: u64,
}

/// A node on the wire: mesh name (NUL-terminated), routing ID, generation.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_node {
    /// The mesh name, NUL-terminated.
    pub mesh: [c_char; ZLINK_MESH_NAME_CAPACITY],
    /// The node's routing ID.
    pub rid: u64,
    /// The node's lifecycle generation.
    pub generation: u64,
}

/// The fence values that let an owner recognise a stale route.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_route_fence {
    /// The incarnation.
    pub object_generation: u64,
    /// The owner generation within the incarnation.
    pub authority_owner_generation: u64,
    /// The owner lease.
    pub owner_lease_generation: u64,
    /// The owner node's lifecycle generation.
    pub node_generation: u64,
    /// The authority record version the route was read from.
    pub store_version: u64,
}

/// A confirmed Ready owner route: plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_ready_route {
    /// The owner's mesh name, NUL-terminated.
    pub mesh: [c_char; ZLINK_MESH_NAME_CAPACITY],
    /// The owner's routing ID.
    pub node_rid: u64,
    /// What the owner checks on admission.
    pub fence: zlink_route_fence,
    /// The owner lease's local admission deadline, in nanoseconds on the
    /// runtime's clock: past it the route is not used.
    pub admission_deadline_ns: u64,
}

/// A resolver result: `tag` says which fields mean something.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_resolution {
    /// Which of the four results.
    pub tag: zlink_resolution_tag,
    /// The route, when `tag` is `ZLINK_RESOLUTION_TAG_READY_ROUTE` (zeroed otherwise).
    pub route: zlink_ready_route,
    /// Why, when `tag` is `ZLINK_RESOLUTION_TAG_UNAVAILABLE`.
    pub reason: zlink_unavailable_reason,
    /// Why, when `tag` is `ZLINK_RESOLUTION_TAG_STORE_FAILURE`.
    pub store_error: zlink_store_error,
}

/// The fence an authority write names: incarnation and owner generation.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_write_fence {
    /// The incarnation.
    pub object_generation: u64,
    /// The owner generation.
    pub authority_owner_generation: u64,
}

/// An object this node owns, as its own write left it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_owned {
    /// Lifecycle state as last written.
    pub state: zlink_authority_state,
    /// The incarnation and owner generation (what a relocation commit names).
    pub fence: zlink_write_fence,
    /// The owner lease it holds under.
    pub lease_generation: u64,
    /// The record version last written.
    pub store_version: u64,
    /// Past this instant (ns, runtime clock) the lease may have ended.
    pub admission_deadline_ns: u64,
}

/// One end of a Message Follow route: an owner's tenure of an object.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_route_end {
    /// The owner.
    pub node: zlink_node,
    /// Its authority fence.
    pub fence: zlink_route_fence,
}

pub(crate) fn mesh_out(mesh: &MeshName) -> [c_char; ZLINK_MESH_NAME_CAPACITY] {
    let mut out = [0 as c_char; ZLINK_MESH_NAME_CAPACITY];
    for (o, b) in out.iter_mut().zip(mesh.as_str().bytes()) {
        *o = b as c_char;
    }
    out
}

pub(crate) fn mesh_in(mesh: &[c_char; ZLINK_MESH_NAME_CAPACITY]) -> FfiResult<MeshName> {
    let bytes: Vec<u8> = mesh.iter().map(|c| *c as u8).collect();
    let len = bytes.iter().position(|b| *b == 0).ok_or_else(|| {
        Fail::new(
            zlink_result::TooLong,
            "mesh name field has no NUL within its 24 bytes",
        )
    })?;
    let name = std::str::from_utf8(&bytes[..len])
        .map_err(|_| Fail::new(zlink_result::InvalidUtf8, "mesh name is not UTF-8"))?;
    MeshName::new(name).map_err(input_fail)
}

impl From<&RouteFence> for zlink_route_fence {
    fn from(f: &RouteFence) -> Self {
        zlink_route_fence {
            object_generation: f.object_generation.get(),
            authority_owner_generation: f.authority_owner_generation.get(),
            owner_lease_generation: f.owner_lease_generation.get(),
            node_generation: f.node_generation.get(),
            store_version: f.store_version.get(),
        }
    }
}

impl zlink_route_fence {
    pub(crate) fn to_core(self) -> RouteFence {
        RouteFence {
            object_generation: ObjectGeneration(self.object_generation),
            authority_owner_generation: AuthorityOwnerGeneration(self.authority_owner_generation),
            owner_lease_generation: OwnerLeaseGeneration(self.owner_lease_generation),
            node_generation: NodeGeneration(self.node_generation),
            store_version: StoreVersion(self.store_version),
        }
    }
}

impl From<&NodeRef> for zlink_node {
    fn from(n: &NodeRef) -> Self {
        zlink_node {
            mesh: mesh_out(&n.mesh),
            rid: n.rid.get(),
            generation: n.generation.get(),
        }
    }
}

impl zlink_node {
    pub(crate) fn to_core(self) -> FfiResult<NodeRef> {
        Ok(NodeRef {
            mesh: mesh_in(&self.mesh)?,
            rid: NodeRid(self.rid),
            generation: NodeGeneration(self.generation),
        })
    }

    pub(crate) fn zeroed() -> Self {
        zlink_node {
            mesh: [0; ZLINK_MESH_NAME_CAPACITY],
            rid: 0,
            generation: 0,
        }
    }
}

impl From<&RouteEnd> for zlink_route_end {
    fn from(e: &RouteEnd) -> Self {
        zlink_route_end {
            node: (&e.node).into(),
            fence: (&e.fence).into(),
        }
    }
}

impl zlink_route_end {
    pub(crate) fn to_core(self) -> FfiResult<RouteEnd> {
        Ok(RouteEnd {
            node: self.node.to_core()?,
            fence: self.fence.to_core(),
        })
    }
}

impl From<&ReadyRoute> for zlink_ready_route {
    #[inline]
    fn from(r: &ReadyRoute) -> Self {
        zlink_ready_route {
            mesh: mesh_out(&r.route.mesh),
            node_rid: r.route.node.get(),
            fence: (&r.fence).into(),
            admission_deadline_ns: r.admission_deadline.0,
        }
    }
}

impl zlink_ready_route {
    fn zeroed() -> Self {
        zlink_ready_route {
            mesh: [0; ZLINK_MESH_NAME_CAPACITY],
            node_rid: 0,
            fence: zlink_route_fence {
                object_generation: 0,
                authority_owner_generation: 0,
                owner_lease_generation: 0,
                node_generation: 0,
                store_version: 0,
            },
            admission_deadline_ns: 0,
        }
    }
}

pub(crate) fn reason_out(r: UnavailableReason) -> zlink_unavailable_reason {
    match r {
        UnavailableReason::Creating => zlink_unavailable_reason::Creating,
        UnavailableReason::Releasing => zlink_unavailable_reason::Releasing,
        UnavailableReason::LeaseExpired => zlink_unavailable_reason::LeaseExpired,
        UnavailableReason::OwnerNotLive => zlink_unavailable_reason::OwnerNotLive,
        UnavailableReason::StaleRoute => zlink_unavailable_reason::StaleRoute,
        UnavailableReason::AdmissionDeadlinePassed => {
            zlink_unavailable_reason::AdmissionDeadlinePassed
        }
        UnavailableReason::FollowHopLimit => zlink_unavailable_reason::FollowHopLimit,
        UnavailableReason::RelocationFailed => zlink_unavailable_reason::RelocationFailed,
    }
}

pub(crate) fn store_error_out(e: &StoreError) -> zlink_store_error {
    match e {
        StoreError::Timeout { .. } => zlink_store_error::Timeout,
        StoreError::Unreachable(_) => zlink_store_error::Unreachable,
        StoreError::Config(_) => zlink_store_error::Config,
        StoreError::Protocol(_) => zlink_store_error::Protocol,
    }
}

impl From<&Resolution> for zlink_resolution {
    #[inline]
    fn from(r: &Resolution) -> Self {
        let mut out = zlink_resolution {
            tag: zlink_resolution_tag::Missing,
            route: zlink_ready_route::zeroed(),
            reason: zlink_unavailable_reason::None,
            store_error: zlink_store_error::None,
        };
        match r {
            Resolution::ReadyRoute(route) => {
                out.tag = zlink_resolution_tag::ReadyRoute;
                out.route = route.into();
            }
            Resolution::Missing => {}
            Resolution::Unavailable(reason) => {
                out.tag = zlink_resolution_tag::Unavailable;
                out.reason = reason_out(*reason);
            }
            Resolution::StoreFailure(e) => {
                out.tag = zlink_resolution_tag::StoreFailure;
                out.store_error = store_error_out(e);
            }
        }
        out
    }
}

impl From<&OwnedObject> for zlink_owned {
    fn from(o: &OwnedObject) -> Self {
        zlink_owned {
            state: match o.state {
                AuthorityState::Creating => zlink_authority_state::Creating,
                AuthorityState::Ready => zlink_authority_state::Ready,
                AuthorityState::Releasing => zlink_authority_state::Releasing,
            },
            fence: zlink_write_fence {
                object_generation: o.object_generation.get(),
                authority_owner_generation: o.authority_owner_generation.get(),
            },
            lease_generation: o.lease_generation.get(),
            store_version: o.store_version.get(),
            admission_deadline_ns: o.admission_deadline.0,
        }
    }
}

pub(crate) fn input_fail(e: InputError) -> Fail {
    let code = match &e {
        InputError::ObjectIdTooLong { .. }
        | InputError::MeshNameTooLong { .. }
        | InputError::PayloadTooLarge { .. }
        | InputError::BadPeerField { .. } => zlink_result::TooLong,
        InputError::NotOwned(_) => zlink_result::NotOwned,
        InputError::NotACommittedMove(_) => zlink_result::NotCommitted,
        _ => zlink_result::InvalidArgument,
    };
    Fail::new(code, e.to_string())
}

pub(crate) fn lifecycle_fail(e: LifecycleError) -> Fail {
    match e {
        LifecycleError::Input(i) => input_fail(i),
        LifecycleError::NotOwned { .. } => Fail::new(zlink_result::NotOwned, e.to_string()),
        LifecycleError::Write(WriteError::Rejected(_)) => {
            Fail::new(zlink_result::WriteRejected, e.to_string())
        }
        LifecycleError::Write(WriteError::Store(_)) => {
            Fail::new(zlink_result::StoreFailure, e.to_string())
        }
    }
}

pub(crate) fn kind_in(kind: u32) -> FfiResult<ObjectKind> {
    match kind {
        1 => Ok(ObjectKind::Spot),
        2 => Ok(ObjectKind::Actor),
        other => Err(Fail::new(
            zlink_result::InvalidArgument,
            format!(
                "object kind {other} is neither ZLINK_OBJECT_KIND_SPOT (1) nor ZLINK_OBJECT_KIND_ACTOR (2)"
            ),
        )),
    }
}

pub(crate) fn null(what: &str) -> Fail {
    Fail::new(zlink_result::NullPointer, format!("{what} is NULL"))
}

/// Borrows `(ptr, len)` bytes; `ptr` may be NULL only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` points to `len` readable bytes that live and do not
/// change for `'a`.
pub(crate) unsafe fn bytes_in<'a>(
    ptr: *const u8,
    len: usize,
    max: usize,
    what: &str,
) -> FfiResult<&'a [u8]> {
    if len > max || len > isize::MAX as usize {
        return Err(Fail::new(
            zlink_result::TooLong,
            format!("{what} is {len} bytes, over the {max}-byte bound"),
        ));
    }
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(what)) };
    }
    // SAFETY: non-NULL, `len` bytes readable for `'a` (the caller's contract),
    // and `len` ≤ isize::MAX.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows an object ID given as `(ptr, len)` UTF-8 bytes.
///
/// # Safety
/// As [`bytes_in`].
pub(crate) unsafe fn id_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a str> {
    if ptr.is_null() {
        return Err(null("object id"));
    }
    // SAFETY: forwarded caller contract.
    let bytes = unsafe { bytes_in(ptr, len, MAX_OBJECT_ID_BYTES, "object id") }?;
    std::str::from_utf8(bytes)
        .map_err(|e| Fail::new(zlink_result::InvalidUtf8, format!("object id: {e}")))
}

/// Borrows a NUL-terminated UTF-8 string of at most [`ZLINK_MAX_TEXT_BYTES`].
///
/// # Safety
/// A non-NULL `ptr` points to a NUL-terminated string, or to at least
/// `ZLINK_MAX_TEXT_BYTES + 1` readable bytes, alive for `'a`.
pub(crate) unsafe fn text_in<'a>(ptr: *const c_char, what: &str) -> FfiResult<&'a str> {
    if ptr.is_null() {
        return Err(null(what));
    }
    let mut len = 0;
    // SAFETY: reads stop at the first NUL or past the bound, within what the
    // caller guarantees readable.
    while unsafe { *ptr.add(len) } != 0 {
        len += 1;
        if len > ZLINK_MAX_TEXT_BYTES {
            return Err(Fail::new(
                zlink_result::TooLong,
                format!("{what} is over {ZLINK_MAX_TEXT_BYTES} bytes"),
            ));
        }
    }
    // SAFETY: `len` bytes before the NUL were just read.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes)
        .map_err(|e| Fail::new(zlink_result::InvalidUtf8, format!("{what}: {e}")))
}

/// Checks an out-parameter before any work is done.
pub(crate) fn out_ptr<T>(ptr: *mut T, what: &str) -> FfiResult<*mut T> {
    if ptr.is_null() {
        Err(null(what))
    } else {
        Ok(ptr)
    }
}
