//! Requests and replies (spec §4) as calls: a request is resolved like any
//! direct call and registered pending before its frame leaves; a reply goes
//! on the request's reply route with no lookup; exactly one terminal result.

use crate::clock::MonoTime;
use crate::direct::DirectSend;
use crate::error::InputError;
use crate::ids::{CorrelationId, KeyRef, ObjectKind, OperationId};
use crate::outbound::Outbound;
use crate::reply::*;
use crate::route::ReadyRoute;
use crate::wire::{Frame, NodeRef, Operation, ReplyFrame, ReplyResult, ReplyRoute, encode};

use super::Runtime;

impl Runtime {
    /// Sends a request to a Spot/Actor by global ID. Once `Submitted` it is
    /// pending until exactly one terminal result.
    pub fn request(
        &self,
        kind: ObjectKind,
        id: &str,
        payload: &[u8],
        options: RequestOptions,
    ) -> Result<Requested, InputError> {
        let max = self.inner().config.max_message_bytes();
        if payload.len() > max {
            return Err(InputError::PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        if options.timeout.is_zero() {
            return Err(InputError::ZeroDeadline);
        }
        Ok(match self.send_direct(kind, id, options.send)? {
            DirectSend::Submit(route) => {
                self.submit_request(self.key(kind, id)?, &route, payload, options)
            }
            DirectSend::NotFound => Requested::NotFound,
            DirectSend::ColdActivation => Requested::ColdActivation,
            DirectSend::Unavailable(reason) => Requested::Unavailable(reason),
            DirectSend::StoreFailure(e) => Requested::StoreFailure(e),
        })
    }

    fn submit_request(
        &self,
        key: KeyRef<'_>,
        route: &ReadyRoute,
        payload: &[u8],
        options: RequestOptions,
    ) -> Requested {
        let ids = &self.inner().ids;
        let (operation_id, correlation) = (OperationId(ids.next()), CorrelationId(ids.next()));
        let to = NodeRef {
            mesh: route.route.mesh,
            rid: route.route.node,
            generation: route.fence.node_generation,
        };
        let op = Operation {
            operation_id,
            target: key.to_owned(),
            origin: self.node_ref(),
            to_node: to.rid,
            fence: route.fence,
            object_generation: route.fence.object_generation,
            hop_count: 0,
            relayer: None,
            reply_route: Some(ReplyRoute {
                node: self.node_ref(),
                correlation,
            }),
            payload: payload.to_vec(),
        };
        let pending = PendingRequest {
            operation_id,
            target: key.to_owned(),
            deadline: self.clock().now().after(options.timeout),
            origin: options.origin,
        };
        // Registered before the frame leaves, so no answer can beat it.
        self.inner().pending.insert(correlation, pending);
        self.counters().requests.sent.incr();
        let bytes = encode(&Frame::Request(op));
        Requested::Submitted {
            correlation,
            operation_id,
            outbound: Outbound { to, bytes },
        }
    }

    /// Answers a delivered request on its reply route: no lookup of the
    /// requester, in cache or store. Request metadata is not copied.
    pub fn reply(
        &self,
        request: &Operation,
        result: ReplyResult,
    ) -> Result<Outbound, ReplyRouteError> {
        let route = request
            .reply_route
            .ok_or(ReplyRouteError::OneWay(request.operation_id))?;
        if let ReplyResult::Ok(payload) = &result {
            let max = self.inner().config.max_message_bytes();
            if payload.len() > max {
                return Err(ReplyRouteError::TooLarge {
                    len: payload.len(),
                    max,
                });
            }
        }
        let frame = ReplyFrame {
            correlation: route.correlation,
            operation_id: request.operation_id,
            replier: self.node_ref(),
            result,
        };
        Ok(Outbound {
            to: route.node,
            bytes: encode(&Frame::Reply(frame)),
        })
    }

    /// Cancels a pending request. `None` if it already has its result (the
    /// cancellation is late: dropped and counted).
    pub fn cancel(&self, correlation: CorrelationId) -> Option<Completion> {
        self.complete(correlation, Outcome::Cancelled, "cancel")
    }

    /// Times out every pending request whose deadline is at or before
    /// `now` (from [`Runtime::on_timeout`]).
    pub(crate) fn expire_requests(&self, now: MonoTime) -> Vec<Completion> {
        let due = self.inner().pending.take_expired(now);
        due.into_iter()
            .map(|(correlation, request)| self.completion(correlation, request, Outcome::Timeout))
            .collect()
    }

    /// Ends every pending request with `Shutdown` (the host is stopping).
    pub fn shutdown_requests(&self) -> Vec<Completion> {
        let all = self.inner().pending.take_all();
        all.into_iter()
            .map(|(correlation, request)| self.completion(correlation, request, Outcome::Shutdown))
            .collect()
    }

    /// Requests waiting for their result.
    pub fn pending_requests(&self) -> usize {
        self.inner().pending.len()
    }

    /// The one terminal result of `correlation`, if this is it.
    pub(crate) fn complete(
        &self,
        correlation: CorrelationId,
        outcome: Outcome,
        source: &'static str,
    ) -> Option<Completion> {
        match self.inner().pending.take(correlation) {
            Some(request) => Some(self.completion(correlation, request, outcome)),
            None => {
                self.counters().requests.late.incr();
                tracing::info!(%correlation, reason = source, outcome = outcome.kind(), "late result dropped: the request already ended");
                None
            }
        }
    }

    fn completion(
        &self,
        correlation: CorrelationId,
        request: PendingRequest,
        outcome: Outcome,
    ) -> Completion {
        outcome.count(&self.counters().requests);
        let origin_gone = request
            .origin
            .as_ref()
            .is_some_and(|o| self.incarnation_changed(o));
        Completion {
            correlation,
            operation_id: request.operation_id,
            target: request.target,
            outcome,
            origin: request.origin,
            origin_gone,
        }
    }

    /// Whether this node knows another incarnation of the origin Spot than
    /// the one that sent the request (a move alone is not a new incarnation).
    fn incarnation_changed(&self, origin: &SpotExecution) -> bool {
        self.owned(origin.spot.as_ref())
            .is_some_and(|owned| owned.object_generation != origin.object_generation)
    }
}
