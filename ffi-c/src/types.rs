//! Plain C structs, their conversions, and the reading of C arguments
//! (pointers, lengths, NUL-terminated text); every rule on what they hold
//! is the bridge's.

use std::ffi::c_char;

use zlink_bridge::args::{MAX_TEXT_BYTES, Text, missing, text_too_long};
use zlink_bridge::codes::{
    AuthorityState, ResolutionTag, StoreError, UnavailableReason, WriteAcksMode,
};
use zlink_bridge::core::wire::{NodeRef, RouteEnd};
use zlink_bridge::core::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, InputError, MAX_MESH_NAME_BYTES,
    MeshName, NodeGeneration, NodeRid, ObjectGeneration, OwnedObject, OwnerLeaseGeneration,
    ReadyRoute, RouteFence, RoutingConfig, SessionGeneration, SessionId, StoreVersion,
};
use zlink_bridge::redis::RedisOptions;
use zlink_bridge::{Error, ErrorKind, Resolved, config};

use crate::FfiResult;

/// Bytes of a mesh-name field: up to 23 bytes of UTF-8 and a NUL.
pub const ZLINK_MESH_NAME_CAPACITY: usize = 24;
const _: () = assert!(ZLINK_MESH_NAME_CAPACITY == MAX_MESH_NAME_BYTES + 1);

/// `zlink_config` and its conversions: its fields after `size` are the
/// bridge's `config::FIELDS`, in order.
macro_rules! config {
    ($(#[$doc:meta])* pub struct $name:ident {
        $(#[$size_doc:meta])* pub size: usize,
        $($(#[$field_doc:meta])* pub $field:ident: $ty:ty,)*
    }) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name {
            $(#[$size_doc])* pub size: usize,
            $($(#[$field_doc])* pub $field: $ty,)*
        }

        impl From<RoutingConfig> for $name {
            fn from(c: RoutingConfig) -> Self {
                let mut v = config::values(&c).into_iter();
                let size = std::mem::size_of::<$name>();
                let mut next = || v.next().unwrap_or(0);
                $name { size, $($field: <$ty>::try_from(next()).unwrap_or(<$ty>::MAX)),* }
            }
        }

        impl $name {
            pub(crate) fn to_core(self) -> FfiResult<RoutingConfig> {
                config::from_values([$(i128::from(self.$field)),*])
            }
        }
    };
}

config! {
    /// The routing settings, durations in milliseconds (DESIGN §4). Start from
    /// `zlink_config_default` (which sets `size`) and change what you need.
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
}

/// Options of a Redis store, durations in milliseconds. Start from
/// `zlink_redis_options_default` (which sets `size`) and change what you
/// need; the key prefix is an argument of its own.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_redis_options {
    /// `sizeof(zlink_redis_options)` as the caller compiled it: lets later
    /// versions append fields. Set by `zlink_redis_options_default`; any
    /// other value than this library's size is `ZLINK_RESULT_INVALID_CONFIG`.
    pub size: usize,
    /// Deadline for (re)connecting, > 0. Default 2000.
    pub connect_timeout_ms: u64,
    /// Deadline for one command's answer, > 0. Default 2000.
    pub response_timeout_ms: u64,
    /// How often the server's run id is checked for a restart or failover,
    /// > 0. Default 1000.
    pub epoch_check_interval_ms: u64,
    /// How long a released object's tombstone is kept. Default 3600000.
    pub tombstone_retention_ms: u64,
    /// How many threads blocked in `zlink_resolve` may read one server on a
    /// connection of their own at a time (0: none); the others read through
    /// the store's shared connection. Default 64.
    pub thread_connections: u64,
    /// Which replicas must acknowledge each authority write (Redis `WAIT`)
    /// before the store reports it done: a `zlink_write_acks_mode`.
    /// `ZLINK_WRITE_ACKS_MODE_ALL_REPLICAS` (the default): every replica
    /// the deployment is known to have (none on a server without
    /// replicas); `REPLICAS`: at least `write_acks_replicas`;
    /// `PRIMARY_ONLY`: none (a failover can then lose a write the store
    /// reported done). Another value is `ZLINK_RESULT_INVALID_ARGUMENT` of
    /// kind `Config`.
    pub write_acks_mode: u32,
    /// With `ZLINK_WRITE_ACKS_MODE_REPLICAS`: how many replicas, >= 1 (0
    /// is kind `Config`; so is more than a primary of the deployment has,
    /// when connecting); read for no other mode. Default 0.
    pub write_acks_replicas: u32,
    /// How long an authority write waits for its replicas'
    /// acknowledgement, more than 0 unless `PRIMARY_ONLY`; at most half of
    /// `response_timeout_ms` is used. A write not acknowledged in time
    /// fails with the store Timeout kind (a `STORE_FAILURE` result's
    /// `ZLINK_STORE_ERROR_TIMEOUT`; from an authority write call,
    /// `ZLINK_RESULT_STORE_FAILURE` of kind `Store`): its outcome is
    /// unknown, retry it. Default 1000.
    pub write_ack_timeout_ms: u64,
}

impl From<RedisOptions> for zlink_redis_options {
    fn from(o: RedisOptions) -> Self {
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let (mode, replicas) = WriteAcksMode::of(o.write_acks);
        zlink_redis_options {
            size: std::mem::size_of::<zlink_redis_options>(),
            connect_timeout_ms: ms(o.connect_timeout),
            response_timeout_ms: ms(o.response_timeout),
            epoch_check_interval_ms: ms(o.epoch_check_interval),
            tombstone_retention_ms: ms(o.tombstone_retention),
            thread_connections: o.thread_connections as u64,
            write_acks_mode: mode as u32,
            write_acks_replicas: replicas,
            write_ack_timeout_ms: ms(o.write_ack_timeout),
        }
    }
}

impl zlink_redis_options {
    /// The core's options, with `prefix` (None: the default); an unknown
    /// write acknowledgement mode or replica count is the store's `Config`.
    pub(crate) fn to_core(self, prefix: Option<&str>) -> FfiResult<RedisOptions> {
        let write_acks = zlink_bridge::setup::write_acks(
            self.write_acks_mode,
            i64::from(self.write_acks_replicas),
        )?;
        Ok(zlink_bridge::setup::RedisFields {
            prefix,
            connect_timeout: Some(self.connect_timeout_ms),
            response_timeout: Some(self.response_timeout_ms),
            epoch_check_interval: Some(self.epoch_check_interval_ms),
            tombstone_retention: Some(self.tombstone_retention_ms),
            thread_connections: Some(
                usize::try_from(self.thread_connections).unwrap_or(usize::MAX),
            ),
            write_acks: Some(write_acks),
            write_ack_timeout: Some(self.write_ack_timeout_ms),
        }
        .options())
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    pub tag: ResolutionTag,
    /// The route, when `tag` is `ZLINK_RESOLUTION_TAG_READY_ROUTE` (zeroed otherwise).
    pub route: zlink_ready_route,
    /// Why, when `tag` is `ZLINK_RESOLUTION_TAG_UNAVAILABLE`.
    pub reason: UnavailableReason,
    /// Why, when `tag` is `ZLINK_RESOLUTION_TAG_STORE_FAILURE`.
    pub store_error: StoreError,
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
    pub state: AuthorityState,
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct zlink_route_end {
    /// The owner.
    pub node: zlink_node,
    /// Its authority fence.
    pub fence: zlink_route_fence,
}

#[inline]
pub(crate) fn mesh_out(mesh: &MeshName) -> [c_char; ZLINK_MESH_NAME_CAPACITY] {
    // A fixed-size copy, no UTF-8 decode: this is on the cache-hit path.
    mesh.to_c_bytes().map(|b| b as c_char)
}

/// A mesh-name field: NUL-terminated (none in the field: too long).
pub(crate) fn mesh_in(mesh: &[c_char; ZLINK_MESH_NAME_CAPACITY]) -> FfiResult<MeshName> {
    let bytes = mesh.map(|c| c as u8);
    let Some(len) = bytes.iter().position(|b| *b == 0) else {
        let (len, max) = (bytes.len(), MAX_MESH_NAME_BYTES);
        return Err(InputError::MeshNameTooLong { len, max }.into());
    };
    Ok(MeshName::new(bytes[..len].text("mesh name")?)?)
}

/// A core value's C form, and back (which may fail: a mesh name).
pub(crate) trait Field<C>: Sized {
    fn to_c(&self) -> C;
    fn from_c(c: C) -> FfiResult<Self>;
}

/// `c.to_core()` of any C form a `Field` reads back.
pub(crate) trait ToCore<T> {
    fn to_core(self) -> FfiResult<T>;
}

impl<C: Copy, T: Field<C>> ToCore<T> for &C {
    fn to_core(self) -> FfiResult<T> {
        T::from_c(*self)
    }
}

/// `Field<u64>` of the core's numbers.
macro_rules! numbers {
    ($($t:ident)*) => {$(
        impl Field<u64> for $t {
            fn to_c(&self) -> u64 {
                self.get()
            }
            fn from_c(c: u64) -> FfiResult<Self> {
                Ok($t(c))
            }
        }
    )*};
}

numbers!(NodeRid NodeGeneration ObjectGeneration AuthorityOwnerGeneration OwnerLeaseGeneration
    StoreVersion SessionId SessionGeneration BindingGeneration BindingToken);

impl Field<u64> for u64 {
    fn to_c(&self) -> u64 {
        *self
    }
    fn from_c(c: u64) -> FfiResult<Self> {
        Ok(c)
    }
}

impl Field<[c_char; ZLINK_MESH_NAME_CAPACITY]> for MeshName {
    fn to_c(&self) -> [c_char; ZLINK_MESH_NAME_CAPACITY] {
        mesh_out(self)
    }
    fn from_c(c: [c_char; ZLINK_MESH_NAME_CAPACITY]) -> FfiResult<Self> {
        mesh_in(&c)
    }
}

c_struct! {
    zlink_route_fence = RouteFence { object_generation authority_owner_generation
        owner_lease_generation node_generation store_version }
    zlink_node = NodeRef { mesh rid generation }
    zlink_route_end = RouteEnd { node fence }
}

impl From<zlink_bridge::surface::NodeRef> for zlink_node {
    fn from(n: zlink_bridge::surface::NodeRef) -> Self {
        // A mesh name has at most 23 bytes; the rest stays NUL.
        let mut mesh = [0; ZLINK_MESH_NAME_CAPACITY];
        let name = n.mesh.bytes().take(MAX_MESH_NAME_BYTES);
        mesh.iter_mut()
            .zip(name)
            .for_each(|(c, b)| *c = b as c_char);
        zlink_node {
            mesh,
            rid: n.rid,
            generation: n.generation,
        }
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

impl zlink_resolution {
    /// A ReadyRoute result.
    #[inline]
    pub(crate) fn ready(route: &ReadyRoute) -> Self {
        zlink_resolution {
            tag: ResolutionTag::ReadyRoute,
            route: route.into(),
            reason: UnavailableReason::None,
            store_error: StoreError::None,
        }
    }
}

impl From<&Resolved> for zlink_resolution {
    #[inline]
    fn from(r: &Resolved) -> Self {
        zlink_resolution {
            tag: r.tag,
            route: r.route.as_ref().map(Into::into).unwrap_or_default(),
            reason: r.reason,
            store_error: r.store_error,
        }
    }
}

impl From<&OwnedObject> for zlink_owned {
    fn from(o: &OwnedObject) -> Self {
        zlink_owned {
            state: o.state.into(),
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

/// An out-parameter, checked non-NULL before any work is done.
#[derive(Clone, Copy)]
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    pub(crate) fn new(ptr: *mut T, what: &str) -> FfiResult<Self> {
        if ptr.is_null() {
            Err(missing(what))
        } else {
            Ok(Out(ptr))
        }
    }

    /// Writes the call's result.
    pub(crate) fn put(self, value: T) {
        // SAFETY: non-NULL (checked by `new`), and every entry point's
        // contract is that its out-parameters point to writable storage.
        unsafe { self.0.write(value) }
    }

    /// `-> out` of `entry!`: `ptr` (named `what`) is checked before `body`
    /// runs, and receives its value.
    #[inline]
    pub(crate) fn written<V: Into<T>>(
        ptr: *mut T,
        what: &str,
        body: impl FnOnce() -> FfiResult<V>,
    ) -> FfiResult {
        let out = Out::new(ptr, what)?;
        out.put(body()?.into());
        Ok(())
    }

    /// `-> optional out` of `entry!`: `body` runs, and its value is written
    /// unless `ptr` is NULL.
    pub(crate) fn optional<V: Into<T>>(
        ptr: *mut T,
        body: impl FnOnce() -> FfiResult<V>,
    ) -> FfiResult {
        let value = body()?;
        if !ptr.is_null() {
            Out(ptr).put(value.into());
        }
        Ok(())
    }

    /// `-> found(out, found)` of `entry!`: both are checked before `body`
    /// runs; `*found` says whether it gave a value, `*out` receives it.
    #[inline]
    pub(crate) fn found<V: Into<T>>(
        (ptr, what): (*mut T, &str),
        (found, found_what): (*mut bool, &str),
        body: impl FnOnce() -> FfiResult<Option<V>>,
    ) -> FfiResult {
        let (out, found) = (Out::new(ptr, what)?, Out::new(found, found_what)?);
        let value = body()?;
        let is = value.is_some();
        if let Some(v) = value {
            out.put(v.into());
        }
        found.put(is);
        Ok(())
    }
}

/// Borrows `(ptr, len)` bytes; `ptr` may be NULL only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` points to `len` readable bytes that live and do not
/// change for `'a`.
#[inline]
pub(crate) unsafe fn bytes_in<'a>(ptr: *const u8, len: usize, what: &str) -> FfiResult<&'a [u8]> {
    if len > isize::MAX as usize {
        return Err(Error::input(
            ErrorKind::PayloadTooLarge,
            format!("{what} is {len} bytes, more than any memory holds"),
        ));
    }
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(missing(what))
        };
    }
    // SAFETY: non-NULL, `len` bytes readable for `'a` (the caller's contract),
    // and `len` ≤ isize::MAX.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows an object ID given as `(ptr, len)` bytes (never NULL); the
/// bridge checks its length and UTF-8.
///
/// # Safety
/// As [`bytes_in`].
#[inline]
pub(crate) unsafe fn id_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a [u8]> {
    if ptr.is_null() {
        return Err(missing("object id"));
    }
    // SAFETY: forwarded caller contract.
    unsafe { bytes_in(ptr, len, "object id") }
}

/// Borrows a NUL-terminated UTF-8 string of at most [`MAX_TEXT_BYTES`].
///
/// # Safety
/// A non-NULL `ptr` points to a NUL-terminated string, or to at least
/// `MAX_TEXT_BYTES + 1` readable bytes, alive for `'a`.
pub(crate) unsafe fn text_in<'a>(ptr: *const c_char, what: &str) -> FfiResult<&'a str> {
    if ptr.is_null() {
        return Err(missing(what));
    }
    let mut len = 0;
    // SAFETY: reads stop at the first NUL or past the bound, within what the
    // caller guarantees readable.
    while unsafe { *ptr.add(len) } != 0 {
        len += 1;
        if len > MAX_TEXT_BYTES {
            return Err(text_too_long(what));
        }
    }
    // SAFETY: `len` bytes before the NUL were just read.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    bytes.text(what)
}
