//! Manual object peers (spec §2.3): a configured endpoint is only an intent
//! to connect; it becomes a peer through the descriptor a node published in
//! the Location Store, and the host's transport performs each replacement
//! with all four descriptor values.

use std::ffi::c_char;
use std::ptr::addr_of_mut;

use zlink_bridge::codes::Liveness;
use zlink_bridge::core::{PeerDescriptor, PeerIntent, PeerReplacement};

use crate::decisions::zlink_decision;
use crate::frames::zlink_bytes;
use crate::runtime::{runtime_in, zlink_runtime};

/// An object-peer descriptor: the four values a transport handshake must
/// use for a replacement (`replacePeerConnection(endpoint, rid,
/// lifecycleGeneration, securityIdentity)`). The strings are UTF-8 bytes,
/// not NUL-terminated. Free with `zlink_peer_descriptor_free`.
#[repr(C)]
#[derive(Debug, Default)]
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
            endpoint: d.endpoint.as_str().to_owned().into(),
            rid: d.rid.get(),
            lifecycle_generation: d.lifecycle_generation.get(),
            security_identity: d.security_identity.into(),
        }
    }
}

impl From<PeerReplacement> for zlink_peer_descriptor {
    fn from(r: PeerReplacement) -> Self {
        r.descriptor.into()
    }
}

/// Longest endpoint or security identity, in bytes.
pub const ZLINK_MAX_PEER_FIELD_BYTES: usize = 1024;

const _: () = assert!(ZLINK_MAX_PEER_FIELD_BYTES == zlink_bridge::core::MAX_PEER_FIELD_BYTES);

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
    pub liveness: Liveness,
    /// With `ZLINK_LIVENESS_OPEN`: the routing ID the handshake showed.
    pub open_rid: u64,
    /// A newer descriptor waits for the installed intent to close.
    pub has_pending: bool,
    /// The waiting descriptor (empty unless `has_pending`).
    pub pending: zlink_peer_descriptor,
}

impl From<PeerIntent> for zlink_peer_intent {
    fn from(i: PeerIntent) -> Self {
        let (liveness, open_rid) = Liveness::of(i.liveness);
        zlink_peer_intent {
            has_installed: i.installed.is_some(),
            installed: i.installed.map(Into::into).unwrap_or_default(),
            liveness,
            open_rid: open_rid.unwrap_or(0),
            has_pending: i.pending.is_some(),
            pending: i.pending.map(Into::into).unwrap_or_default(),
        }
    }
}

exported! {
    /// Frees the descriptors of an intent and zeroes their strings; a second
    /// free is a no-op. NULL is a no-op.
    ///
    /// # Safety
    /// `intent` is NULL or an intent this library filled in.
    ///
    /// Thread-safety: any thread; the intent is not shared state.
    fn zlink_peer_intent_free(intent: *mut zlink_peer_intent) {
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
    fn zlink_peer_descriptor_free(descriptor: *mut zlink_peer_descriptor) {
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

list! {
    zlink_peer_descriptor_list of zlink_peer_descriptor, zlink_peer_descriptor_free,
    /// Frees every descriptor of a list and zeroes `*list`. NULL, or a list
    /// already freed, is a no-op.
    ///
    /// # Safety
    /// `list` is NULL or a list this library filled in (or zeroed).
    ///
    /// Thread-safety: any thread; the list is not shared state.
    fn zlink_peer_descriptor_list_free
}

entry! {
    /// Publishes this node's own object-peer descriptor to the Location Store
    /// (at start): `endpoint` and `security_identity` (NUL-terminated UTF-8,
    /// 1..=1024 bytes) with this runtime's RID and lifecycle generation.
    /// Blocks on the store. `*out` (if not NULL) receives the descriptor.
    ///
    /// # Safety
    /// `endpoint` and `security_identity` are NUL-terminated; `out` is NULL or
    /// writable.
    fn zlink_publish_descriptor(rt: *const zlink_runtime, endpoint: *const c_char,
        security_identity: *const c_char) -> optional out: *mut zlink_peer_descriptor {
        let endpoint = text_in!(endpoint, "endpoint")?;
        let identity = text_in!(security_identity, "security_identity")?;
        runtime_in(rt)?.publish_descriptor(endpoint, identity)?
    }

    /// Registers a manually configured endpoint: an intent to connect only,
    /// never placement evidence until its descriptor is found. Idempotent.
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated.
    fn zlink_add_manual_peer(rt: *const zlink_runtime, endpoint: *const c_char) {
        runtime_in(rt)?.add_manual_peer(text_in!(endpoint, "endpoint")?)
    }

    /// `connectManualObjectPeers`: looks up the descriptor of every manual
    /// endpoint (blocks on the store); `*out` receives the replacements to
    /// perform now. Replacements of intents still open wait for their close
    /// (`zlink_peer_closed` returns them).
    ///
    /// # Safety
    /// `out` is writable.
    fn zlink_connect_manual_peers(rt: *const zlink_runtime)
        -> out: *mut zlink_peer_descriptor_list {
        runtime_in(rt)?.connect_manual_peers()?
    }

    /// `ensureManualObjectPeer` for one endpoint (registering it if needed;
    /// blocks on the store). On OK, `*found` says whether a replacement is to
    /// be performed now; `*out` is written only then.
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated; `out` and `found` are writable.
    fn zlink_ensure_manual_peer(rt: *const zlink_runtime, endpoint: *const c_char)
        -> found(out: *mut zlink_peer_descriptor, found: *mut bool) {
        let endpoint = text_in!(endpoint, "endpoint")?;
        runtime_in(rt)?.ensure_manual_peer(endpoint)?
    }

    /// The transport connected `endpoint`; its handshake showed routing ID
    /// `rid`. Frames on the connection are admitted (`zlink_on_peer_frame`)
    /// only when `rid` is the installed descriptor's.
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated.
    fn zlink_peer_opened(rt: *const zlink_runtime, endpoint: *const c_char, rid: u64) {
        runtime_in(rt)?.peer_opened(text_in!(endpoint, "endpoint")?, rid)
    }

    /// The transport confirmed `endpoint`'s connection closed. On OK, `*found`
    /// says whether a waiting replacement was installed now; `*out` (written
    /// only then) holds the four values to connect with.
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated; `out` and `found` are writable.
    fn zlink_peer_closed(rt: *const zlink_runtime, endpoint: *const c_char)
        -> found(out: *mut zlink_peer_descriptor, found: *mut bool) {
        let endpoint = text_in!(endpoint, "endpoint")?;
        runtime_in(rt)?.peer_closed(endpoint)?
    }

    /// Where to reach node `rid`, only through an installed descriptor. On OK,
    /// `*found` says whether there is one; `*out` (written only then) receives
    /// the endpoint bytes, to free with `zlink_bytes_free`.
    ///
    /// # Safety
    /// `out` and `found` are writable.
    fn zlink_peer_endpoint(rt: *const zlink_runtime, rid: u64)
        -> found(out: *mut zlink_bytes, found: *mut bool) {
        runtime_in(rt)?.peer_endpoint(rid)?
    }

    /// `zlink_on_frame` behind the admission fence of the manual peer
    /// connection at `endpoint`: the connection must carry an installed
    /// descriptor and be open with its routing ID, and an operation its sender
    /// started must name the descriptor's lifecycle generation; otherwise the
    /// decision is `ZLINK_DECISION_PEER_REFUSED`.
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated; `bytes` points to `len` readable bytes
    /// (NULL allowed when 0); `out` is writable.
    fn zlink_on_peer_frame(rt: *const zlink_runtime, endpoint: *const c_char, bytes: *const u8,
        len: usize) -> out: *mut zlink_decision {
        let (endpoint, bytes) = (text_in!(endpoint, "endpoint")?, bytes_in!(bytes, len, "frame")?);
        runtime_in(rt)?.on_peer_frame(endpoint, bytes)?
    }

    /// The intent, observed routing ID and close state of a manual `endpoint`.
    /// On OK, `*found` says whether the endpoint is registered; `*out` is
    /// written only then (free it with `zlink_peer_intent_free`).
    ///
    /// # Safety
    /// `endpoint` is NUL-terminated; `out` and `found` are writable.
    fn zlink_peer_intent_get(rt: *const zlink_runtime, endpoint: *const c_char)
        -> found(out: *mut zlink_peer_intent, found: *mut bool) {
        let endpoint = text_in!(endpoint, "endpoint")?;
        runtime_in(rt)?.peer_intent(endpoint)?
    }
}
