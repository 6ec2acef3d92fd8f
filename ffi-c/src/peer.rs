//! Manual object peers (spec §2.3): a configured endpoint is only an intent
//! to connect; it becomes a peer through the descriptor a node published in
//! the Location Store, and the host's transport performs each replacement
//! with all four descriptor values.

use std::ffi::c_char;
use std::ptr::addr_of_mut;

use zlink_core::{Liveness, NodeRid, PeerDescriptor, PeerIntent, PeerReplacement};

use crate::frames::{zlink_bytes, zlink_decision};
use crate::runtime::{runtime_in, zlink_runtime};
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

/// An object-peer descriptor: the four values a transport handshake must
/// use for a replacement (`replacePeerConnection(endpoint, rid,
/// lifecycleGeneration, securityIdentity)`). The strings are UTF-8 bytes,
/// not NUL-terminated. Free with `zlink_peer_descriptor_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_peer_descriptor {
    /// Where the peer listens.
    pub endpoint: zlink_bytes,
    /// Its routing ID.
    pub rid: u64,
    /// Its lifecycle generation (a restart publishes a higher one).
    pub lifecycle_generation: u64,
    /// The identity its transport must present.
    pub security_identity: zlink_bytes,
}

impl From<PeerDescriptor> for zlink_peer_descriptor {
    fn from(d: PeerDescriptor) -> Self {
        zlink_peer_descriptor {
            endpoint: zlink_bytes::from_vec(d.endpoint.as_str().as_bytes().to_vec()),
            rid: d.rid.get(),
            lifecycle_generation: d.lifecycle_generation.get(),
            security_identity: zlink_bytes::from_vec(d.security_identity.into_bytes()),
        }
    }
}

impl From<PeerReplacement> for zlink_peer_descriptor {
    fn from(r: PeerReplacement) -> Self {
        r.descriptor.into()
    }
}

impl zlink_peer_descriptor {
    fn empty() -> Self {
        zlink_peer_descriptor {
            endpoint: zlink_bytes::empty(),
            rid: 0,
            lifecycle_generation: 0,
            security_identity: zlink_bytes::empty(),
        }
    }
}

/// Longest endpoint or security identity, in bytes.
pub const ZLINK_MAX_PEER_FIELD_BYTES: usize = 1024;

const _: () = assert!(ZLINK_MAX_PEER_FIELD_BYTES == zlink_core::MAX_PEER_FIELD_BYTES);

/// A manual intent's connection state as the transport reported it.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_liveness {
    /// Not connected yet (or reconnecting).
    Connecting = 1,
    /// Connected; the handshake showed `open_rid`.
    Open = 2,
    /// The transport confirmed it closed.
    Closed = 3,
}

/// One manual endpoint's state: the installed descriptor, the observed
/// routing ID and close state, and a replacement waiting for the close.
/// Free with `zlink_peer_intent_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_peer_intent {
    /// A descriptor is installed (`installed`); false for an endpoint-only
    /// intent, which is never placement evidence.
    pub has_installed: bool,
    /// The installed descriptor (empty unless `has_installed`).
    pub installed: zlink_peer_descriptor,
    /// The transport's view.
    pub liveness: zlink_liveness,
    /// With `ZLINK_LIVENESS_OPEN`: the routing ID the handshake showed.
    pub open_rid: u64,
    /// A newer descriptor waits for the installed intent to close.
    pub has_pending: bool,
    /// The waiting descriptor (empty unless `has_pending`).
    pub pending: zlink_peer_descriptor,
}

impl From<PeerIntent> for zlink_peer_intent {
    fn from(i: PeerIntent) -> Self {
        let (liveness, open_rid) = match i.liveness {
            Liveness::Connecting => (zlink_liveness::Connecting, 0),
            Liveness::Open(rid) => (zlink_liveness::Open, rid.get()),
            Liveness::Closed => (zlink_liveness::Closed, 0),
        };
        zlink_peer_intent {
            has_installed: i.installed.is_some(),
            installed: i
                .installed
                .map_or_else(zlink_peer_descriptor::empty, Into::into),
            liveness,
            open_rid,
            has_pending: i.pending.is_some(),
            pending: i
                .pending
                .map_or_else(zlink_peer_descriptor::empty, Into::into),
        }
    }
}

/// Frees the descriptors of an intent and zeroes their strings; a second
/// free is a no-op. NULL is a no-op.
///
/// # Safety
/// `intent` is NULL or an intent this library filled in.
///
/// Thread-safety: any thread; the intent is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_intent_free(intent: *mut zlink_peer_intent) {
    if intent.is_null() {
        return;
    }
    // SAFETY: a library-filled intent (the caller's contract).
    unsafe {
        zlink_peer_descriptor_free(addr_of_mut!((*intent).installed));
        zlink_peer_descriptor_free(addr_of_mut!((*intent).pending));
    }
}

/// Frees the strings of a descriptor and zeroes them; a second free is a
/// no-op. NULL is a no-op.
///
/// # Safety
/// `descriptor` is NULL or a descriptor this library filled in.
///
/// Thread-safety: any thread; the descriptor is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_descriptor_free(descriptor: *mut zlink_peer_descriptor) {
    if descriptor.is_null() {
        return;
    }
    // SAFETY: a library-filled descriptor (the caller's contract); each
    // string is released once and zeroed.
    unsafe {
        (*addr_of_mut!((*descriptor).endpoint)).release();
        (*addr_of_mut!((*descriptor).security_identity)).release();
    }
}

/// Replacements to perform: `count` descriptors at `items` (NULL when empty
/// or freed). Free with `zlink_peer_descriptor_list_free`.
#[repr(C)]
#[derive(Debug)]
pub struct zlink_peer_descriptor_list {
    /// The descriptors.
    pub items: *mut zlink_peer_descriptor,
    /// How many.
    pub count: usize,
}

/// Frees every descriptor of a list and zeroes `*list`. NULL, or a list
/// already freed, is a no-op.
///
/// # Safety
/// `list` is NULL or a list this library filled in (or zeroed).
///
/// Thread-safety: any thread; the list is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_descriptor_list_free(list: *mut zlink_peer_descriptor_list) {
    // SAFETY: NULL or a library-filled list (the caller's contract); its
    // array came from `Box::into_raw` of `count` entries, released once.
    unsafe {
        if list.is_null() {
            return;
        }
        let items = addr_of_mut!((*list).items).read();
        let count = addr_of_mut!((*list).count).read();
        if !items.is_null() {
            let mut boxed = Box::from_raw(std::ptr::slice_from_raw_parts_mut(items, count));
            for d in boxed.iter_mut() {
                zlink_peer_descriptor_free(d);
            }
        }
        addr_of_mut!((*list).items).write(std::ptr::null_mut());
        addr_of_mut!((*list).count).write(0);
    }
}

/// # Safety
/// `endpoint` is NULL or NUL-terminated.
unsafe fn endpoint_in<'a>(endpoint: *const c_char) -> FfiResult<&'a str> {
    // SAFETY: forwarded caller contract.
    unsafe { text_in(endpoint, "endpoint") }
}

/// Writes an optional replacement: `*found` always, `*out` only when found.
///
/// # Safety
/// `out` and `found` were checked non-NULL and are writable.
unsafe fn optional_out(
    replacement: Option<PeerReplacement>,
    out: *mut zlink_peer_descriptor,
    found: *mut bool,
) {
    let is = replacement.is_some();
    if let Some(r) = replacement {
        // SAFETY: checked by the caller.
        unsafe { out.write(r.into()) };
    }
    // SAFETY: checked by the caller.
    unsafe { found.write(is) };
}

/// Publishes this node's own object-peer descriptor to the Location Store
/// (at start): `endpoint` and `security_identity` (NUL-terminated UTF-8,
/// 1..=1024 bytes) with this runtime's RID and lifecycle generation.
/// Blocks on the store. `*out` (if not NULL) receives the descriptor.
///
/// # Safety
/// `endpoint` and `security_identity` are NUL-terminated; `out` is NULL or
/// writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_publish_descriptor(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    security_identity: *const c_char,
    out: *mut zlink_peer_descriptor,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        // SAFETY: NUL-terminated by contract.
        let identity = unsafe { text_in(security_identity, "security_identity") }?;
        let d = rt
            .core
            .publish_descriptor(endpoint, identity)
            .map_err(lifecycle_fail)?;
        if !out.is_null() {
            // SAFETY: non-NULL and writable by contract.
            unsafe { out.write(d.into()) };
        }
        Ok(())
    })
}

/// Registers a manually configured endpoint: an intent to connect only,
/// never placement evidence until its descriptor is found. Idempotent.
///
/// # Safety
/// `endpoint` is NUL-terminated; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_add_manual_peer(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        rt.core.add_manual_peer(endpoint).map_err(input_fail)
    })
}

/// `connectManualObjectPeers`: looks up the descriptor of every manual
/// endpoint (blocks on the store); `*out` receives the replacements to
/// perform now. Replacements of intents still open wait for their close
/// (`zlink_peer_closed` returns them).
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_connect_manual_peers(
    rt: *const zlink_runtime,
    out: *mut zlink_peer_descriptor_list,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        let now = rt
            .core
            .connect_manual_peers()
            .map_err(|e| Fail::new(zlink_result::StoreFailure, e.to_string()))?;
        let list = if now.is_empty() {
            zlink_peer_descriptor_list {
                items: std::ptr::null_mut(),
                count: 0,
            }
        } else {
            let items: Box<[zlink_peer_descriptor]> = now.into_iter().map(Into::into).collect();
            let count = items.len();
            zlink_peer_descriptor_list {
                items: Box::into_raw(items).cast(),
                count,
            }
        };
        // SAFETY: checked above.
        unsafe { out.write(list) };
        Ok(())
    })
}

/// `ensureManualObjectPeer` for one endpoint (registering it if needed;
/// blocks on the store). On OK, `*found` says whether a replacement is to
/// be performed now; `*out` is written only then.
///
/// # Safety
/// `endpoint` is NUL-terminated; `out` and `found` are writable; `error`
/// is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_ensure_manual_peer(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    out: *mut zlink_peer_descriptor,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        let r = rt
            .core
            .ensure_manual_peer(endpoint)
            .map_err(lifecycle_fail)?;
        // SAFETY: checked above.
        unsafe { optional_out(r, out, found) };
        Ok(())
    })
}

/// The transport connected `endpoint`; its handshake showed routing ID
/// `rid`. Frames on the connection are admitted (`zlink_on_peer_frame`)
/// only when `rid` is the installed descriptor's.
///
/// # Safety
/// `endpoint` is NUL-terminated; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_opened(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    rid: u64,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        rt.core
            .peer_opened(endpoint, NodeRid(rid))
            .map_err(input_fail)
    })
}

/// The transport confirmed `endpoint`'s connection closed. On OK, `*found`
/// says whether a waiting replacement was installed now; `*out` (written
/// only then) holds the four values to connect with.
///
/// # Safety
/// `endpoint` is NUL-terminated; `out` and `found` are writable; `error`
/// is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_closed(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    out: *mut zlink_peer_descriptor,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        let r = rt.core.peer_closed(endpoint).map_err(input_fail)?;
        // SAFETY: checked above.
        unsafe { optional_out(r, out, found) };
        Ok(())
    })
}

/// Where to reach node `rid`, only through an installed descriptor. On OK,
/// `*found` says whether there is one; `*out` (written only then) receives
/// the endpoint bytes, to free with `zlink_bytes_free`.
///
/// # Safety
/// `out` and `found` are writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_endpoint(
    rt: *const zlink_runtime,
    rid: u64,
    out: *mut zlink_bytes,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        let e = rt.core.peer_endpoint(NodeRid(rid));
        let is = e.is_some();
        if let Some(e) = e {
            // SAFETY: checked above.
            unsafe { out.write(zlink_bytes::from_vec(e.as_str().as_bytes().to_vec())) };
        }
        // SAFETY: checked above.
        unsafe { found.write(is) };
        Ok(())
    })
}

/// `zlink_on_frame` behind the admission fence of the manual peer
/// connection at `endpoint`: the connection must carry an installed
/// descriptor and be open with its routing ID, and an operation its sender
/// started must name the descriptor's lifecycle generation; otherwise the
/// decision is `ZLINK_DECISION_KIND_PEER_REFUSED`.
///
/// # Safety
/// `endpoint` is NUL-terminated; `bytes` points to `len` readable bytes
/// (NULL allowed when 0); `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_on_peer_frame(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    bytes: *const u8,
    len: usize,
    out: *mut zlink_decision,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        // SAFETY: the caller's contract on `bytes`; bounded as in `zlink_on_frame`.
        let bytes = unsafe {
            bytes_in(
                bytes,
                len,
                zlink_core::MAX_MESSAGE_BYTES + (1 << 20),
                "frame",
            )
        }?;
        let decision = zlink_decision::from_core(rt.core.on_peer_frame(endpoint, bytes));
        // SAFETY: checked above.
        unsafe { out.write(decision) };
        Ok(())
    })
}

/// The intent, observed routing ID and close state of a manual `endpoint`.
/// On OK, `*found` says whether the endpoint is registered; `*out` is
/// written only then (free it with `zlink_peer_intent_free`).
///
/// # Safety
/// `endpoint` is NUL-terminated; `out` and `found` are writable; `error`
/// is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_runtime_free` of the same runtime.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_peer_intent_get(
    rt: *const zlink_runtime,
    endpoint: *const c_char,
    out: *mut zlink_peer_intent,
    found: *mut bool,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let found = out_ptr(found, "found")?;
        let rt = runtime_in(rt)?;
        // SAFETY: NUL-terminated by contract.
        let endpoint = unsafe { endpoint_in(endpoint) }?;
        let intent = rt.core.peer_intent(endpoint);
        let is = intent.is_some();
        if let Some(i) = intent {
            // SAFETY: checked above.
            unsafe { out.write(i.into()) };
        }
        // SAFETY: checked above.
        unsafe { found.write(is) };
        Ok(())
    })
}
