//! Sending by global ID as calls: the direct send decision (a cache hit
//! decides on the caller's thread, a miss goes to the store on the
//! runtime's threads), and a call that becomes a frame and the node it goes
//! to (spec §2.1 steps 1–4). The host moves the bytes.

use crate::error::InputError;
use crate::ids::{ObjectKind, OperationId};
use crate::route::ReadyRoute;
use crate::send::{DirectSend, Outbound, SendOptions, Sent, check_send, send_direct};
use crate::wire::{Frame, NodeRef, Operation};

use super::Runtime;

impl Runtime {
    /// This runtime on the wire.
    pub fn node_ref(&self) -> NodeRef {
        let me = self.identity();
        NodeRef {
            mesh: me.mesh,
            rid: me.rid,
            generation: me.generation,
        }
    }

    /// Sends a one-way message to a Spot/Actor by global ID: resolves its
    /// owner (cache, then store) and encodes the frame for it.
    pub fn send(
        &self,
        kind: ObjectKind,
        id: &str,
        payload: &[u8],
        options: SendOptions,
    ) -> Result<Sent, InputError> {
        self.check_payload(payload.len())?;
        Ok(match self.send_direct(kind, id, options)? {
            DirectSend::Submit(route) => self.submit(kind, id, &route, payload)?,
            DirectSend::NotFound => Sent::NotFound,
            DirectSend::ColdActivation => Sent::ColdActivation,
            DirectSend::Unavailable(reason) => Sent::Unavailable(reason),
            DirectSend::StoreFailure(e) => Sent::StoreFailure(e),
        })
    }

    /// Refuses what [`send`](Self::send) refuses for its input, in the
    /// same order, without sending: for a host that answers later (a
    /// future) but refuses bad input at the call.
    pub fn check_send(
        &self,
        kind: ObjectKind,
        id: &str,
        payload_len: usize,
        options: SendOptions,
    ) -> Result<(), InputError> {
        self.check_payload(payload_len)?;
        check_send(kind, options)?;
        self.key(kind, id).map(drop)
    }

    /// A payload of `len` bytes within the message bound in force.
    pub(crate) fn check_payload(&self, len: usize) -> Result<(), InputError> {
        let max = self.inner().config.max_message_bytes();
        if len > max {
            return Err(InputError::PayloadTooLarge { len, max });
        }
        Ok(())
    }

    fn submit(
        &self,
        kind: ObjectKind,
        id: &str,
        route: &ReadyRoute,
        payload: &[u8],
    ) -> Result<Sent, InputError> {
        let operation_id = OperationId(self.inner().ids.next());
        let to = NodeRef {
            mesh: route.route.mesh,
            rid: route.route.node,
            generation: route.fence.node_generation,
        };
        let op = Operation {
            operation_id,
            target: self.key(kind, id)?.to_owned(),
            origin: self.node_ref(),
            to_node: to.rid,
            fence: route.fence,
            object_generation: route.fence.object_generation,
            hop_count: 0,
            relayer: None,
            reply_route: None,
            payload: payload.to_vec(),
        };
        let outbound = Outbound::frame(self.node_ref(), to, &Frame::Message(op));
        Ok(Sent::Submitted {
            operation_id,
            outbound,
        })
    }

    /// Decides a Spot/Actor direct call by global ID alone (§2.1): no owner,
    /// generation or reference is taken as a target. A cache hit decides
    /// without the store; a store failure is retried within the deadline.
    pub fn send_direct(
        &self,
        kind: ObjectKind,
        id: &str,
        options: SendOptions,
    ) -> Result<DirectSend, InputError> {
        check_send(kind, options)?;
        let key = self.key(kind, id)?;
        if let Some(route) = self.inner().resolver.lookup_cached(key) {
            return Ok(DirectSend::Submit(route));
        }
        let inner = self.inner().clone();
        let key = key.to_owned();
        Ok(self.block_on(async move {
            let attempts = inner.config.get().store_attempts;
            send_direct(
                &inner.resolver,
                &*inner.clock,
                attempts,
                key.as_ref(),
                options,
            )
            .await
        }))
    }
}
