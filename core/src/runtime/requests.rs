//! Requests and replies (spec §4) as calls: a request is resolved like any
//! direct call and registered pending before its frame leaves; a reply goes
//! on the request's reply route with no lookup; exactly one terminal result.

use crate::clock::MonoTime;
use crate::error::InputError;
use crate::ids::{CorrelationId, KeyRef, ObjectGeneration, ObjectKey, ObjectKind};
use crate::reply::{Completion, Outcome, ReplyRouteError, RequestOptions, Requested, reply};
use crate::route::ReadyRoute;
use crate::send::DirectSend;
use crate::send::Outbound;
use crate::wire::{Operation, ReplyResult};

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
        self.check_payload(payload.len())?;
        check_timeout(&options)?;
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

    /// Refuses what [`request`](Self::request) refuses for its input, in
    /// the same order, without sending (see [`check_send`](Self::check_send)).
    pub fn check_request(
        &self,
        kind: ObjectKind,
        id: &str,
        payload_len: usize,
        options: &RequestOptions,
    ) -> Result<(), InputError> {
        self.check_payload(payload_len)?;
        check_timeout(options)?;
        self.check_send(kind, id, payload_len, options.send)
    }

    fn submit_request(
        &self,
        key: KeyRef<'_>,
        route: &ReadyRoute,
        payload: &[u8],
        options: RequestOptions,
    ) -> Requested {
        let inner = self.inner();
        inner.pending.submit(
            self.node_ref(),
            &inner.ids,
            self.clock().now(),
            &self.counters().requests,
            key,
            route,
            payload,
            options,
        )
    }

    /// Answers a delivered request on its reply route: no lookup of the
    /// requester, in cache or store. Request metadata is not copied.
    pub fn reply(
        &self,
        request: &Operation,
        result: ReplyResult,
    ) -> Result<Outbound, ReplyRouteError> {
        let max = self.inner().config.max_message_bytes();
        reply(self.node_ref(), max, request, result)
    }

    /// Cancels a pending request. `None` if it already has its result (the
    /// cancellation is late: dropped and counted).
    pub fn cancel(&self, correlation: CorrelationId) -> Option<Completion> {
        self.complete(correlation, Outcome::Cancelled, "cancel")
    }

    /// Times out every pending request whose deadline is at or before
    /// `now` (from [`Runtime::on_timeout`]).
    pub(crate) fn expire_requests(&self, now: MonoTime) -> Vec<Completion> {
        let counters = &self.counters().requests;
        self.inner()
            .pending
            .expire(counters, |spot| self.incarnation(spot), now)
    }

    /// Ends every pending request with `Shutdown` (the host is stopping).
    pub fn shutdown_requests(&self) -> Vec<Completion> {
        let counters = &self.counters().requests;
        self.inner()
            .pending
            .shutdown(counters, |spot| self.incarnation(spot))
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
        let counters = &self.counters().requests;
        self.inner().pending.complete(
            counters,
            |spot| self.incarnation(spot),
            correlation,
            outcome,
            source,
            (self.now(), &self.inner().latencies.request),
        )
    }

    /// The incarnation of `object` this node holds now, if any.
    fn incarnation(&self, object: &ObjectKey) -> Option<ObjectGeneration> {
        self.owned(object.as_ref()).map(|o| o.object_generation)
    }
}

/// A request's timeout must be positive.
fn check_timeout(options: &RequestOptions) -> Result<(), InputError> {
    if options.timeout.is_zero() {
        return Err(InputError::ZeroDeadline);
    }
    Ok(())
}
