//! Starting an operation: a direct call by global ID becomes a frame and the
//! node it goes to (spec §2.1 steps 1–4). The host moves the bytes.

use crate::direct::{DirectSend, SendOptions};
use crate::error::InputError;
use crate::ids::{ObjectKind, OperationId};
use crate::outbound::{Outbound, Sent};
use crate::route::ReadyRoute;
use crate::wire::{Frame, NodeRef, Operation, encode};

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
        let max = self.inner().config.max_message_bytes();
        if payload.len() > max {
            return Err(InputError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        Ok(match self.send_direct(kind, id, options)? {
            DirectSend::Submit(route) => self.submit(kind, id, &route, payload)?,
            DirectSend::NotFound => Sent::NotFound,
            DirectSend::ColdActivation => Sent::ColdActivation,
            DirectSend::Unavailable(reason) => Sent::Unavailable(reason),
            DirectSend::StoreFailure(e) => Sent::StoreFailure(e),
        })
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
        let outbound = Outbound {
            to,
            bytes: encode(&Frame::Message(op)),
        };
        Ok(Sent::Submitted {
            operation_id,
            outbound,
        })
    }
}
