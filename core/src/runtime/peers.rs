//! Manual object peers (spec §2.3) as calls: descriptors read from and
//! published to the store, intents kept by the peer registry, and frames on a
//! manual peer connection checked against its admission fence.

use crate::ids::NodeRid;
use crate::inbound::Inbound;
use crate::lifecycle::LifecycleError;
use crate::peer::{Endpoint, PeerDescriptor, PeerIntent, PeerReplacement};
use crate::store::{StoreError, WriteError};
use crate::wire::{Frame, decode};

use super::Runtime;

impl Runtime {
    /// Publishes this node's own object-peer descriptor (at start). The RID
    /// and lifecycle generation are this runtime's identity: no caller can
    /// set them for a peer.
    pub fn publish_descriptor(
        &self,
        endpoint: &str,
        security_identity: &str,
    ) -> Result<PeerDescriptor, LifecycleError> {
        let me = self.identity();
        let descriptor = PeerDescriptor::new(
            Endpoint::new(endpoint)?,
            me.rid,
            me.generation,
            security_identity,
        )?;
        let inner = self.inner().clone();
        let stored = self.block_on(async move {
            let r = &inner.resolver;
            let result = r.timed(inner.store.put_descriptor(&descriptor)).await;
            if let Err(WriteError::Store(e)) = &result {
                r.observe(Err(e));
            }
            result
        })?;
        Ok(stored.value)
    }

    /// Registers a manually configured endpoint: an intent to connect only,
    /// never placement evidence until a descriptor is found for it.
    pub fn add_manual_peer(&self, endpoint: &str) -> Result<(), crate::InputError> {
        self.inner().peers.add_manual(Endpoint::new(endpoint)?);
        Ok(())
    }

    /// `connectManualObjectPeers`: looks up the descriptor of every manual
    /// endpoint; returns the replacements to perform now (each carries all
    /// four descriptor values for the handshake). Replacements of intents
    /// still open wait for their close ([`peer_closed`](Self::peer_closed)).
    pub fn connect_manual_peers(&self) -> Result<Vec<PeerReplacement>, StoreError> {
        let mut now = Vec::new();
        for endpoint in self.inner().peers.endpoints() {
            if let Some(replacement) = self.look_up_peer(endpoint)? {
                now.push(replacement);
            }
        }
        Ok(now)
    }

    /// `ensureManualObjectPeer` for one endpoint (registering it if needed).
    pub fn ensure_manual_peer(
        &self,
        endpoint: &str,
    ) -> Result<Option<PeerReplacement>, LifecycleError> {
        let endpoint = Endpoint::new(endpoint)?;
        self.inner().peers.add_manual(endpoint.clone());
        Ok(self.look_up_peer(endpoint).map_err(WriteError::Store)?)
    }

    fn look_up_peer(&self, endpoint: Endpoint) -> Result<Option<PeerReplacement>, StoreError> {
        let inner = self.inner().clone();
        let found = self.block_on(async move {
            let r = &inner.resolver;
            let result = r.timed(inner.store.read_descriptor(&endpoint)).await;
            let _ = r.observe(result.as_ref().map(|o| o.epoch));
            result
        })?;
        Ok(found.value.and_then(|d| self.inner().peers.found(d)))
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    pub fn peer_opened(&self, endpoint: &str, rid: NodeRid) -> Result<(), crate::InputError> {
        self.inner().peers.opened(&Endpoint::new(endpoint)?, rid);
        Ok(())
    }

    /// The transport confirmed `endpoint`'s intent closed (liveness close):
    /// a waiting replacement is installed now and returned.
    pub fn peer_closed(
        &self,
        endpoint: &str,
    ) -> Result<Option<PeerReplacement>, crate::InputError> {
        Ok(self.inner().peers.closed(&Endpoint::new(endpoint)?))
    }

    /// The intent, observed routing ID and close state of `endpoint`.
    pub fn peer_intent(&self, endpoint: &str) -> Option<PeerIntent> {
        self.inner().peers.intent(&Endpoint::new(endpoint).ok()?)
    }

    /// Where to reach node `rid`, only through an installed descriptor: an
    /// endpoint-only intent is never chosen.
    pub fn peer_endpoint(&self, rid: NodeRid) -> Option<Endpoint> {
        self.inner().peers.endpoint_of(rid)
    }

    /// [`on_frame`](Self::on_frame) behind the admission fence of a manual
    /// peer connection: the connection must carry an installed descriptor
    /// and be open with the descriptor's routing ID; an operation its sender
    /// started must name the descriptor's lifecycle generation.
    pub fn on_peer_frame(&self, endpoint: &str, bytes: &[u8]) -> Inbound {
        let Some(d) = Endpoint::new(endpoint)
            .ok()
            .and_then(|e| self.inner().peers.admitted(&e))
        else {
            return Inbound::PeerRefused;
        };
        let limits = self.inner().config.decode_limits();
        if let Ok(Frame::Message(op) | Frame::Request(op)) = decode(bytes, &limits)
            && op.hop_count == 0
            && op.origin.rid == d.rid
            && op.origin.generation != d.lifecycle_generation
        {
            return Inbound::PeerRefused;
        }
        self.on_frame(d.rid, bytes)
    }
}
