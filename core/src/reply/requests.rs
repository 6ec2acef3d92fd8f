//! The requests machine (spec §4): a request is registered pending before
//! its frame leaves and ends with exactly one terminal result, whichever of
//! reply, error, timeout, cancellation or shutdown is confirmed first; any
//! later one is dropped and counted. A reply goes on the request's reply
//! route: no lookup of the requester.

use crate::clock::MonoTime;
use crate::ids::{CorrelationId, KeyRef, ObjectGeneration, ObjectKey, OperationId, UniqueIds};
use crate::latency::Histogram;
use crate::route::ReadyRoute;
use crate::send::Outbound;
use crate::stats::RequestCounters;
use crate::wire::{Frame, NodeRef, Operation, ReplyFrame, ReplyResult, ReplyRoute};

use super::pending::PendingRequests;
use super::{
    Completion, Outcome, PendingRequest, ReplyRouteError, RequestOptions, Requested, SpotExecution,
};

/// Every request this runtime sent that has not ended, and its rules.
#[derive(Default)]
pub(crate) struct Requests {
    pending: PendingRequests,
}

impl Requests {
    /// Registers a request to `key` on `route` from `me` and encodes it:
    /// registered before the frame leaves, so no answer can beat it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn submit(
        &self,
        me: NodeRef,
        ids: &UniqueIds,
        now: MonoTime,
        counters: &RequestCounters,
        key: KeyRef<'_>,
        route: &ReadyRoute,
        payload: &[u8],
        options: RequestOptions,
    ) -> Requested {
        let (operation_id, correlation) = (OperationId(ids.next()), CorrelationId(ids.next()));
        let to = NodeRef {
            mesh: route.route.mesh,
            rid: route.route.node,
            generation: route.fence.node_generation,
        };
        let op = Operation {
            operation_id,
            target: key.to_owned(),
            origin: me,
            to_node: to.rid,
            fence: route.fence,
            object_generation: route.fence.object_generation,
            hop_count: 0,
            relayer: None,
            reply_route: Some(ReplyRoute {
                node: me,
                correlation,
            }),
            payload: payload.to_vec(),
        };
        let pending = PendingRequest {
            operation_id,
            target: key.to_owned(),
            sent: now,
            deadline: now.after(options.timeout),
            origin: options.origin,
        };
        self.pending.insert(correlation, pending);
        counters.sent.incr();
        Requested::Submitted {
            correlation,
            operation_id,
            outbound: Outbound::frame(me, to, &Frame::Request(op)),
        }
    }

    /// The one terminal result of `correlation`, if this is it (`source`
    /// names what brought it, for the log of a late one). `incarnation`
    /// tells which incarnation of a Spot this node holds now. An answer
    /// (a reply or an error reply) records its round trip, up to `now`, in
    /// `round_trip`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn complete(
        &self,
        counters: &RequestCounters,
        incarnation: impl Fn(&ObjectKey) -> Option<ObjectGeneration>,
        correlation: CorrelationId,
        outcome: Outcome,
        source: &'static str,
        (now, round_trip): (MonoTime, &Histogram),
    ) -> Option<Completion> {
        match self.pending.take(correlation) {
            Some(request) => {
                if outcome.is_answer() {
                    round_trip.record(now.since(request.sent));
                }
                Some(completion(
                    counters,
                    &incarnation,
                    correlation,
                    request,
                    outcome,
                ))
            }
            None => {
                counters.late.incr();
                tracing::info!(%correlation, reason = source, outcome = outcome.kind(), "late result dropped: the request already ended");
                None
            }
        }
    }

    /// Ends every request whose deadline is at or before `now`: Timeout.
    pub(crate) fn expire(
        &self,
        counters: &RequestCounters,
        incarnation: impl Fn(&ObjectKey) -> Option<ObjectGeneration>,
        now: MonoTime,
    ) -> Vec<Completion> {
        let due = self.pending.take_expired(now);
        due.into_iter()
            .map(|(c, r)| completion(counters, &incarnation, c, r, Outcome::Timeout))
            .collect()
    }

    /// Ends every pending request: Shutdown.
    pub(crate) fn shutdown(
        &self,
        counters: &RequestCounters,
        incarnation: impl Fn(&ObjectKey) -> Option<ObjectGeneration>,
    ) -> Vec<Completion> {
        let all = self.pending.take_all();
        all.into_iter()
            .map(|(c, r)| completion(counters, &incarnation, c, r, Outcome::Shutdown))
            .collect()
    }

    /// Requests waiting now.
    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    /// The earliest deadline held.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        self.pending.next_deadline()
    }

    /// Deadline entries held.
    pub(crate) fn deadlines_held(&self) -> usize {
        self.pending.deadlines_held()
    }
}

/// A request's terminal result: counted once; `origin_gone` when this node
/// now holds another incarnation of the Spot that sent it (a move alone is
/// not a new incarnation).
fn completion(
    counters: &RequestCounters,
    incarnation: &impl Fn(&ObjectKey) -> Option<ObjectGeneration>,
    correlation: CorrelationId,
    request: PendingRequest,
    outcome: Outcome,
) -> Completion {
    outcome.count(counters);
    let origin_gone = request.origin.as_ref().is_some_and(|o: &SpotExecution| {
        incarnation(&o.spot).is_some_and(|g| g != o.object_generation)
    });
    Completion {
        correlation,
        operation_id: request.operation_id,
        target: request.target,
        outcome,
        origin: request.origin,
        origin_gone,
    }
}

/// The answer to `request`, from `me`, on its reply route: no lookup of
/// the requester, in cache or store; request metadata is not copied.
pub(crate) fn reply(
    me: NodeRef,
    max_message_bytes: usize,
    request: &Operation,
    result: ReplyResult,
) -> Result<Outbound, ReplyRouteError> {
    let route = request
        .reply_route
        .ok_or(ReplyRouteError::OneWay(request.operation_id))?;
    if let ReplyResult::Ok(payload) = &result
        && payload.len() > max_message_bytes
    {
        return Err(ReplyRouteError::TooLarge {
            len: payload.len(),
            max: max_message_bytes,
        });
    }
    let frame = ReplyFrame {
        correlation: route.correlation,
        operation_id: request.operation_id,
        replier: me,
        result,
    };
    Ok(Outbound::frame(me, route.node, &Frame::Reply(frame)))
}
