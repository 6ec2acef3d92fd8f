//! The flat form of the three call results whose hit path the C ABI
//! copies field by field (`Resolved`, `Sent`, `SessionSent`): a tag says
//! which fields mean something, the others keep their zero value. Every
//! other result and every decision is a sum type of [`crate::surface`].

use zlink_core::wire::ReplyErrorKind as CoreReplyErrorKind;
use zlink_core::{
    Outbound, ReadyRoute, Requested, Resolution, Sent as CoreSent, SessionSend,
    StoreError as CoreStoreError, UnavailableReason as CoreReason,
};

use crate::codes::{
    ReplyErrorKind, ResolutionTag, SentTag, SessionSentTag, StoreError, UnavailableReason,
};

/// A resolver result, flat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Which of the four results.
    pub tag: ResolutionTag,
    /// ReadyRoute: the route.
    pub route: Option<ReadyRoute>,
    /// Unavailable: why.
    pub reason: UnavailableReason,
    /// StoreFailure: why, and the store's text.
    pub store_error: StoreError,
    /// StoreFailure: the store's text.
    pub store_message: String,
}

impl From<Resolution> for Resolved {
    fn from(r: Resolution) -> Self {
        let mut out = Resolved {
            tag: ResolutionTag::Missing,
            route: None,
            reason: UnavailableReason::None,
            store_error: StoreError::None,
            store_message: String::new(),
        };
        match r {
            Resolution::ReadyRoute(route) => {
                out.tag = ResolutionTag::ReadyRoute;
                out.route = Some(route);
            }
            Resolution::Missing => {}
            Resolution::Unavailable(reason) => {
                out.tag = ResolutionTag::Unavailable;
                out.reason = reason.into();
            }
            Resolution::StoreFailure(e) => {
                out.tag = ResolutionTag::StoreFailure;
                out.store_error = (&e).into();
                out.store_message = e.to_string();
            }
        }
        out
    }
}

/// What became of a send or a request, flat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Which result.
    pub tag: SentTag,
    /// Submitted: the operation.
    pub operation_id: u64,
    /// Submitted requests: the correlation its completion carries.
    pub correlation: Option<u64>,
    /// Submitted: the frame and its destination.
    pub outbound: Option<Outbound>,
    /// Unavailable: why.
    pub reason: UnavailableReason,
    /// StoreFailure: why.
    pub store_error: StoreError,
    /// StoreFailure: the store's text.
    pub store_message: String,
}

impl Sent {
    fn of(tag: SentTag) -> Self {
        Sent {
            tag,
            operation_id: 0,
            correlation: None,
            outbound: None,
            reason: UnavailableReason::None,
            store_error: StoreError::None,
            store_message: String::new(),
        }
    }

    fn unavailable(r: CoreReason) -> Self {
        Sent {
            reason: r.into(),
            ..Sent::of(SentTag::Unavailable)
        }
    }

    fn store_failure(e: &CoreStoreError) -> Self {
        Sent {
            store_error: e.into(),
            store_message: e.to_string(),
            ..Sent::of(SentTag::StoreFailure)
        }
    }
}

impl From<CoreSent> for Sent {
    fn from(s: CoreSent) -> Self {
        match s {
            CoreSent::Submitted {
                operation_id,
                outbound,
            } => Sent {
                operation_id: operation_id.get(),
                outbound: Some(outbound),
                ..Sent::of(SentTag::Submitted)
            },
            CoreSent::NotFound => Sent::of(SentTag::NotFound),
            CoreSent::ColdActivation => Sent::of(SentTag::ColdActivation),
            CoreSent::Unavailable(r) => Sent::unavailable(r),
            CoreSent::StoreFailure(e) => Sent::store_failure(&e),
        }
    }
}

impl From<Requested> for Sent {
    fn from(r: Requested) -> Self {
        match r {
            Requested::Submitted {
                correlation,
                operation_id,
                outbound,
            } => Sent {
                operation_id: operation_id.get(),
                correlation: Some(correlation.get()),
                outbound: Some(outbound),
                ..Sent::of(SentTag::Submitted)
            },
            Requested::NotFound => Sent::of(SentTag::NotFound),
            Requested::ColdActivation => Sent::of(SentTag::ColdActivation),
            Requested::Unavailable(r) => Sent::unavailable(r),
            Requested::StoreFailure(e) => Sent::store_failure(&e),
        }
    }
}

/// What became of a session relay on the Session owner, flat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSent {
    /// Which result.
    pub tag: SessionSentTag,
    /// Sent, Held: the operation.
    pub operation_id: u64,
    /// Sent, Held: its place in the Session's order.
    pub sequence: u64,
    /// Sent: the frame and its destination.
    pub outbound: Option<Outbound>,
    /// Unavailable: why.
    pub reason: UnavailableReason,
}

impl From<SessionSend> for SessionSent {
    fn from(s: SessionSend) -> Self {
        let (tag, operation_id, sequence, outbound, reason) = match s {
            SessionSend::Sent {
                operation_id,
                sequence,
                outbound,
            } => (
                SessionSentTag::Sent,
                operation_id.get(),
                sequence,
                Some(outbound),
                UnavailableReason::None,
            ),
            SessionSend::Held {
                operation_id,
                sequence,
            } => (
                SessionSentTag::Held,
                operation_id.get(),
                sequence,
                None,
                UnavailableReason::None,
            ),
            SessionSend::Unavailable(r) => (SessionSentTag::Unavailable, 0, 0, None, r.into()),
        };
        SessionSent {
            tag,
            operation_id,
            sequence,
            outbound,
            reason,
        }
    }
}

/// A reply error kind as a host names it: "Handler" or "Decode".
pub fn reply_error_kind(name: &str) -> Option<CoreReplyErrorKind> {
    ReplyErrorKind::ALL
        .iter()
        .find(|k| k.name() == name)
        .and_then(|k| k.to_core())
}
