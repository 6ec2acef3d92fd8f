//! Request/reply (spec §4): a request carries a reply route (this runtime +
//! a correlation); the target answers on it without looking the requester
//! up; the request completes exactly once — reply, error, timeout,
//! cancellation or shutdown, whichever is confirmed first.

mod pending;
mod requests;

use std::time::Duration;

pub use pending::{PendingRequest, SpotExecution};
pub(crate) use requests::{Requests, reply};

use crate::ids::{CorrelationId, ObjectKey, OperationId};
use crate::resolve::UnavailableReason;
use crate::send::Outbound;
use crate::send::SendOptions;
use crate::store::StoreError;
use crate::wire::ReplyError;

/// Options of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestOptions {
    /// Store retry budget and instance intent, as for a one-way send.
    pub send: SendOptions,
    /// The request times out this long after it is sent (runtime clock).
    pub timeout: Duration,
    /// The Spot execution starting it, if a Spot does (§4.2).
    pub origin: Option<SpotExecution>,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            send: SendOptions::default(),
            timeout: Duration::from_secs(5),
            origin: None,
        }
    }
}

/// What became of a request call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requested {
    /// Sent and pending: carry `outbound`; its one terminal result comes as
    /// a [`Completion`].
    Submitted {
        /// Completes it.
        correlation: CorrelationId,
        /// Its operation.
        operation_id: OperationId,
        /// The frame and its destination.
        outbound: Outbound,
    },
    /// The object does not exist. Terminal; nothing pending.
    NotFound,
    /// Missing Spot with instance intent: cold-activate it, then call again.
    ColdActivation,
    /// Authority exists but cannot be used. Terminal; nothing pending.
    Unavailable(UnavailableReason),
    /// The store could not be read in time. Terminal; nothing pending.
    StoreFailure(StoreError),
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// The target answered with a structured error.
    Replied(ReplyError),
    /// The route could not be used (refused on the way); not resubmitted.
    Unavailable(UnavailableReason),
    /// A Message Follow route belonged to another incarnation.
    InvalidOperation,
}

/// A request's one terminal result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The target's answer.
    Reply(Vec<u8>),
    /// An error reply or a route error.
    Error(RequestError),
    /// The deadline passed first.
    Timeout,
    /// The caller cancelled first.
    Cancelled,
    /// The runtime shut down first.
    Shutdown,
}

impl Outcome {
    /// The kind's name, as every host spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Reply(_) => "Reply",
            Outcome::Error(_) => "Error",
            Outcome::Timeout => "Timeout",
            Outcome::Cancelled => "Cancelled",
            Outcome::Shutdown => "Shutdown",
        }
    }

    /// Whether the target answered: a reply or an error reply (not a
    /// route error, a timeout, a cancel or a shutdown).
    pub(crate) fn is_answer(&self) -> bool {
        matches!(
            self,
            Outcome::Reply(_) | Outcome::Error(RequestError::Replied(_))
        )
    }

    pub(crate) fn count(&self, counters: &crate::stats::RequestCounters) {
        match self {
            Outcome::Reply(_) => counters.replied(),
            Outcome::Error(_) => counters.errored(),
            Outcome::Timeout => counters.timed_out(),
            Outcome::Cancelled => counters.cancelled(),
            Outcome::Shutdown => counters.shut_down(),
        }
    }
}

/// A request that completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Which request.
    pub correlation: CorrelationId,
    /// Its operation.
    pub operation_id: OperationId,
    /// Its target.
    pub target: ObjectKey,
    /// How it ended.
    pub outcome: Outcome,
    /// The Spot execution it resumes, if a Spot started it.
    pub origin: Option<SpotExecution>,
    /// True when that Spot has been re-created since: the outcome resumes
    /// the old execution only and is never delivered to the new incarnation
    /// as an application message (§4.2).
    pub origin_gone: bool,
}

/// Why [`Runtime::reply`](crate::Runtime::reply) cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyRouteError {
    /// The operation was a one-way message: it has no reply route.
    #[error("operation {0} is a one-way message: it has no reply route")]
    OneWay(OperationId),
    /// The answer is over the negotiated message bound.
    #[error("reply payload is {len} bytes, over the {max}-byte message bound")]
    TooLarge {
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
}
