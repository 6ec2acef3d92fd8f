//! Manual object peers (spec §2.3): a manually configured endpoint is only
//! an intent to connect. It becomes a peer only through an object-peer
//! descriptor from the Location Store (endpoint, RID, lifecycle generation,
//! security identity), all four handed to the transport handshake, and a
//! replacement is installed only after the previous intent is closed.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use crate::error::InputError;
use crate::ids::{NodeGeneration, NodeRid};

/// Longest endpoint or security identity, in bytes.
pub const MAX_PEER_FIELD_BYTES: usize = 1024;

fn checked(field: &'static str, value: &str) -> Result<(), InputError> {
    if value.is_empty() || value.len() > MAX_PEER_FIELD_BYTES {
        return Err(InputError::BadPeerField {
            field,
            len: value.len(),
            max: MAX_PEER_FIELD_BYTES,
        });
    }
    Ok(())
}

/// A transport endpoint (e.g. `10.0.0.7:7400`), opaque to the core.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint(String);

impl Endpoint {
    /// Checks and wraps an endpoint: 1..=1024 bytes.
    pub fn new(endpoint: &str) -> Result<Self, InputError> {
        checked("endpoint", endpoint)?;
        Ok(Endpoint(endpoint.to_owned()))
    }

    /// The endpoint text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a node publishes about itself as an object peer. Only the Location
/// Store hands these out: no API lets a caller make up a generation or a
/// security identity for a peer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PeerDescriptor {
    /// Where it listens.
    pub endpoint: Endpoint,
    /// Its routing ID.
    pub rid: NodeRid,
    /// Its lifecycle generation (a restart publishes a higher one).
    pub lifecycle_generation: NodeGeneration,
    /// The identity its transport must present (certificate subject, key id …).
    pub security_identity: String,
}

impl PeerDescriptor {
    /// A node's own descriptor, as it publishes it at start.
    pub fn new(
        endpoint: Endpoint,
        rid: NodeRid,
        lifecycle_generation: NodeGeneration,
        security_identity: &str,
    ) -> Result<Self, InputError> {
        checked("security identity", security_identity)?;
        Ok(PeerDescriptor {
            endpoint,
            rid,
            lifecycle_generation,
            security_identity: security_identity.to_owned(),
        })
    }
}

/// The replacement a host performs with `replacePeerConnection(endpoint,
/// rid, lifecycleGeneration, securityIdentity)`: all four descriptor values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerReplacement {
    /// The descriptor whose values the handshake must use.
    pub descriptor: PeerDescriptor,
}

/// An intent's liveness as the transport reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    /// Not connected yet (or reconnecting).
    Connecting,
    /// Connected; the handshake showed this peer routing ID.
    Open(NodeRid),
    /// The transport confirmed it closed.
    Closed,
}

/// One manual endpoint's state: intent, observed peer routing ID and close
/// state kept together (§2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerIntent {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The descriptor installed for it; `None` for an endpoint-only intent,
    /// which is never placement evidence.
    pub installed: Option<PeerDescriptor>,
    /// The transport's view.
    pub liveness: Liveness,
    /// A newer descriptor waiting for the installed intent to close.
    pub pending: Option<PeerDescriptor>,
}

/// The registry of manual peer intents of one runtime.
#[derive(Debug, Default)]
pub(crate) struct PeerRegistry {
    intents: Mutex<HashMap<Endpoint, PeerIntent>>,
}

impl PeerRegistry {
    fn lock(&self) -> MutexGuard<'_, HashMap<Endpoint, PeerIntent>> {
        self.intents.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers an endpoint-only intent (at start). Idempotent.
    pub(crate) fn add_manual(&self, endpoint: Endpoint) {
        self.lock().entry(endpoint.clone()).or_insert(PeerIntent {
            endpoint,
            installed: None,
            liveness: Liveness::Connecting,
            pending: None,
        });
    }

    pub(crate) fn endpoints(&self) -> Vec<Endpoint> {
        self.lock().keys().cloned().collect()
    }

    /// A descriptor was found for `endpoint`. Returns the replacement to
    /// perform now, if nothing is installed or the installed intent is
    /// already closed; otherwise it waits for the close.
    pub(crate) fn found(&self, descriptor: PeerDescriptor) -> Option<PeerReplacement> {
        let mut intents = self.lock();
        let intent = intents.get_mut(&descriptor.endpoint)?;
        if intent.installed.as_ref() == Some(&descriptor)
            || intent.pending.as_ref() == Some(&descriptor)
        {
            return None;
        }
        // An older lifecycle than the one installed is never taken.
        if intent.installed.as_ref().is_some_and(|d| {
            d.rid == descriptor.rid && d.lifecycle_generation > descriptor.lifecycle_generation
        }) {
            return None;
        }
        match (&intent.installed, intent.liveness) {
            (None, _) | (_, Liveness::Closed) => Some(install(intent, descriptor)),
            _ => {
                intent.pending = Some(descriptor);
                None
            }
        }
    }

    /// The transport connected `endpoint` and the handshake showed `rid`.
    pub(crate) fn opened(&self, endpoint: &Endpoint, rid: NodeRid) {
        if let Some(intent) = self.lock().get_mut(endpoint) {
            intent.liveness = Liveness::Open(rid);
        }
    }

    /// The transport confirmed `endpoint` closed: a pending replacement is
    /// installed now and returned.
    pub(crate) fn closed(&self, endpoint: &Endpoint) -> Option<PeerReplacement> {
        let mut intents = self.lock();
        let intent = intents.get_mut(endpoint)?;
        intent.liveness = Liveness::Closed;
        let pending = intent.pending.take()?;
        Some(install(intent, pending))
    }

    /// The descriptor a frame from the connection at `endpoint` is admitted
    /// under: only a descriptor-backed intent that is open with the
    /// descriptor's routing ID (the admission fence).
    pub(crate) fn admitted(&self, endpoint: &Endpoint) -> Option<PeerDescriptor> {
        let intents = self.lock();
        let intent = intents.get(endpoint)?;
        intent
            .installed
            .clone()
            .filter(|d| intent.liveness == Liveness::Open(d.rid))
    }

    /// The endpoint to reach `rid` at, only through an installed descriptor.
    pub(crate) fn endpoint_of(&self, rid: NodeRid) -> Option<Endpoint> {
        self.lock()
            .values()
            .find(|i| i.installed.as_ref().is_some_and(|d| d.rid == rid))
            .map(|i| i.endpoint.clone())
    }

    pub(crate) fn intent(&self, endpoint: &Endpoint) -> Option<PeerIntent> {
        self.lock().get(endpoint).cloned()
    }
}

fn install(intent: &mut PeerIntent, descriptor: PeerDescriptor) -> PeerReplacement {
    intent.installed = Some(descriptor.clone());
    intent.liveness = Liveness::Connecting;
    intent.pending = None;
    PeerReplacement { descriptor }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> Endpoint {
        Endpoint::new("10.0.0.7:7400").expect("valid")
    }

    fn descriptor(generation: u64) -> PeerDescriptor {
        PeerDescriptor::new(
            endpoint(),
            NodeRid(7),
            NodeGeneration(generation),
            "node-7.mesh",
        )
        .expect("valid")
    }

    #[test]
    fn an_endpoint_only_intent_is_never_placement_evidence() {
        let r = PeerRegistry::default();
        r.add_manual(endpoint());
        r.opened(&endpoint(), NodeRid(7));
        assert_eq!(r.endpoint_of(NodeRid(7)), None);
        assert_eq!(r.admitted(&endpoint()), None);
    }

    #[test]
    fn a_descriptor_yields_a_replacement_with_all_four_values() {
        let r = PeerRegistry::default();
        r.add_manual(endpoint());
        let replacement = r.found(descriptor(1)).expect("nothing installed yet");
        assert_eq!(replacement.descriptor, descriptor(1));
        assert_eq!(
            r.found(descriptor(1)),
            None,
            "the same descriptor twice is one replacement"
        );
        r.opened(&endpoint(), NodeRid(7));
        assert_eq!(r.endpoint_of(NodeRid(7)), Some(endpoint()));
        assert_eq!(r.admitted(&endpoint()), Some(descriptor(1)));
    }

    #[test]
    fn a_replacement_waits_for_the_previous_intent_to_close() {
        let r = PeerRegistry::default();
        r.add_manual(endpoint());
        r.found(descriptor(1));
        r.opened(&endpoint(), NodeRid(7));
        assert_eq!(
            r.found(descriptor(2)),
            None,
            "held until the old intent closes"
        );
        assert_eq!(
            r.admitted(&endpoint()),
            Some(descriptor(1)),
            "old intent still installed"
        );
        let replacement = r.closed(&endpoint()).expect("installed on close");
        assert_eq!(
            replacement.descriptor.lifecycle_generation,
            NodeGeneration(2)
        );
        r.opened(&endpoint(), NodeRid(7));
        assert_eq!(
            r.admitted(&endpoint()),
            Some(descriptor(2)),
            "only the new generation is admitted"
        );
        assert_eq!(
            r.found(descriptor(1)),
            None,
            "an older lifecycle is never taken"
        );
    }

    #[test]
    fn fields_are_bounded() {
        assert!(Endpoint::new("").is_err());
        assert!(Endpoint::new(&"e".repeat(MAX_PEER_FIELD_BYTES + 1)).is_err());
        assert!(PeerDescriptor::new(endpoint(), NodeRid(1), NodeGeneration(1), "").is_err());
    }
}
