//! The flattened form of every result a host matches on: one plain owned
//! struct per kind of call (`Resolved`, `Sent`, `SessionSent`) and one for
//! every decision about a frame or a timeout (`Decision`), whose `kind` and
//! sub-kind (`session_event`, `relocation_event`) say which fields mean
//! something; the others keep their zero value. The C ABI copies them field
//! by field; Python builds one class per case from them. What a host hands
//! back later (the delivered operation, the notification token, the work a
//! relocation step delivers) rides along in `attached`.

use zlink_core::wire::{NodeRef, Operation, ReplyErrorKind as CoreReplyErrorKind, SessionRef};
use zlink_core::{
    BindingRoute, Completion, Delivery, Inbound, NoticeToken, ObjectKey, Outbound,
    Outcome as CoreOutcome, ReadyRoute, RelocationAction, RelocationEvent as Event, RequestError,
    Requested, Resolution, Sent as CoreSent, SessionDelivery, SessionEvent as CoreSessionEvent,
    SessionSend, SpotExecution, StoreError as CoreStoreError, UnavailableReason as CoreReason,
};

use crate::codes::{
    AbortReason, BindRefusal, DecisionKind, Failure, LostReason, Outcome, RelayKind,
    RelocationEvent, RelocationRefusal, ReplyErrorKind, ResolutionTag, SentTag, SessionEvent,
    SessionRefusal, SessionSentTag, StoreError, UnavailableReason,
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

/// What a decision carries for the host to hand back: the delivered
/// operation (to reply to it or save it for a relocation), the notification
/// token (to settle it), the work a relocation step delivers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attached {
    /// Deliver: the operation.
    pub operation: Option<Operation>,
    /// Relay with a notice: its token.
    pub notice: Option<NoticeToken>,
    /// Relocation: operations for the object's queue, in order.
    pub deliver: Vec<Delivery>,
    /// Relocation: session relays for the Actor, in order.
    pub session: Vec<SessionDelivery>,
}

impl Attached {
    /// A relocation step's deliveries as decisions, in order: its
    /// operations (`Deliver`), then its session relays (`SessionDeliver`).
    pub fn deliveries(&self) -> Vec<Decision> {
        let ops = self.deliver.iter().cloned().map(Decision::deliver);
        ops.chain(self.session.iter().cloned().map(Decision::session_deliver))
            .collect()
    }
}

/// A decision about one inbound frame (or a timeout, a cancel, a
/// shutdown), flat: `kind` says which fields mean something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What to do.
    pub kind: DecisionKind,
    /// Deliver / SessionDeliver / Ended / Completed / RelayRefused: the
    /// operation.
    pub operation_id: u64,
    /// The operation's target (Relocation: the object moved; Session
    /// events: the Actor).
    pub target: Option<ObjectKey>,
    /// Deliver / SessionDeliver / Pushed: the application bytes; Completed:
    /// the reply; Restore: the application state.
    pub payload: Vec<u8>,
    /// Deliver: the incarnation that processes it; Relocation: the one
    /// being moved.
    pub object_generation: u64,
    /// Deliver: the operation is a request.
    pub is_request: bool,
    /// Frames to carry (Relay, Reject, Send, Relocation).
    pub frames: Vec<Outbound>,
    /// Relay: `frames[1]` is a command 50 notification for the sender.
    pub has_notice: bool,
    /// Ended / Completed(Error): how.
    pub failure: Failure,
    /// With `Failure::Unavailable`: why.
    pub reason: UnavailableReason,
    /// Completed / Late: the request's correlation.
    pub correlation: u64,
    /// Completed: the terminal result.
    pub outcome: Outcome,
    /// Completed: the Spot execution that started the request.
    pub origin: Option<SpotExecution>,
    /// Completed: that Spot was re-created since.
    pub origin_gone: bool,
    /// RouteRefreshed: a cached route was dropped.
    pub invalidated: bool,
    /// `Failure::Replied`: the application error code.
    pub error_code: u32,
    /// Dropped / ForeignSender / Ignored: why; `Failure::Replied`: the
    /// error message.
    pub detail: String,
    /// Dropped: the wire error's kind (docs/wire.md).
    pub wire_error: &'static str,
    /// `Failure::Replied`: what failed on the target.
    pub error_kind: ReplyErrorKind,
    /// SessionDeliver / Session: the Session.
    pub session: Option<SessionRef>,
    /// SessionDeliver: its place in the Session's order.
    pub sequence: u64,
    /// SessionDeliver: message or disconnect.
    pub relay_kind: RelayKind,
    /// Session: which event.
    pub session_event: SessionEvent,
    /// Bound: the stored route.
    pub binding_route: Option<BindingRoute>,
    /// BindRefused: why.
    pub bind_refusal: BindRefusal,
    /// RelayRefused: why.
    pub session_refusal: SessionRefusal,
    /// Sealed / Relocation: the relocation.
    pub relocation: u64,
    /// Sealed: whether the seal was installed.
    pub sealed: bool,
    /// Relocation: which step.
    pub relocation_event: RelocationEvent,
    /// Relocation: the other runtime of the move (source for Restore and
    /// Committed, target for HandedOff).
    pub peer: Option<NodeRef>,
    /// Aborting / Aborted / Failed: why.
    pub abort_reason: AbortReason,
    /// Relocation Ignored: why.
    pub relocation_refusal: RelocationRefusal,
    /// Cutover: operations relayed from the ingress hold.
    pub relayed: u64,
    /// ForeignSender: the node of the connection the frame came on.
    pub connection: u64,
    /// ForeignSender: the sender the frame names, if any.
    pub claimed: Option<u64>,
    /// OwnershipLost: what the store holds instead.
    pub lost_reason: LostReason,
    /// What the host hands back later.
    pub attached: Attached,
}

impl Decision {
    /// A decision of `kind` with every other field zero.
    pub fn new(kind: DecisionKind) -> Self {
        Decision {
            kind,
            operation_id: 0,
            target: None,
            payload: Vec::new(),
            object_generation: 0,
            is_request: false,
            frames: Vec::new(),
            has_notice: false,
            failure: Failure::None,
            reason: UnavailableReason::None,
            correlation: 0,
            outcome: Outcome::None,
            origin: None,
            origin_gone: false,
            invalidated: false,
            error_code: 0,
            detail: String::new(),
            wire_error: "",
            error_kind: ReplyErrorKind::None,
            session: None,
            sequence: 0,
            relay_kind: RelayKind::None,
            session_event: SessionEvent::None,
            binding_route: None,
            bind_refusal: BindRefusal::None,
            session_refusal: SessionRefusal::None,
            relocation: 0,
            sealed: false,
            relocation_event: RelocationEvent::None,
            peer: None,
            abort_reason: AbortReason::None,
            relocation_refusal: RelocationRefusal::None,
            relayed: 0,
            connection: 0,
            claimed: None,
            lost_reason: LostReason::None,
            attached: Attached::default(),
        }
    }

    /// A `Deliver` decision: the operation rides along.
    pub fn deliver(d: Delivery) -> Self {
        let op = d.operation;
        Decision {
            operation_id: op.operation_id.get(),
            target: Some(op.target.clone()),
            payload: op.payload.clone(),
            object_generation: d.object_generation.get(),
            is_request: op.reply_route.is_some(),
            attached: Attached {
                operation: Some(op),
                ..Attached::default()
            },
            ..Decision::new(DecisionKind::Deliver)
        }
    }

    /// A `SessionDeliver` decision.
    pub fn session_deliver(d: SessionDelivery) -> Self {
        Decision {
            operation_id: d.operation_id.get(),
            target: Some(d.actor),
            session: Some(d.session),
            sequence: d.sequence,
            relay_kind: d.kind.into(),
            payload: d.payload,
            ..Decision::new(DecisionKind::SessionDeliver)
        }
    }

    /// A `Completed` decision: a request's one terminal result.
    pub fn completed(c: Completion) -> Self {
        let mut out = Decision {
            operation_id: c.operation_id.get(),
            correlation: c.correlation.get(),
            origin_gone: c.origin_gone,
            origin: c.origin,
            target: Some(c.target),
            ..Decision::new(DecisionKind::Completed)
        };
        out.outcome = match c.outcome {
            CoreOutcome::Reply(payload) => {
                out.payload = payload;
                Outcome::Reply
            }
            CoreOutcome::Error(RequestError::Replied(r)) => {
                out.failure = Failure::Replied;
                out.error_code = r.code;
                out.error_kind = ReplyErrorKind::from(r.kind);
                out.detail = r.message;
                Outcome::Error
            }
            CoreOutcome::Error(RequestError::Unavailable(r)) => {
                out.failure = Failure::Unavailable;
                out.reason = r.into();
                Outcome::Error
            }
            CoreOutcome::Error(RequestError::InvalidOperation) => {
                out.failure = Failure::InvalidOperation;
                Outcome::Error
            }
            CoreOutcome::Timeout => Outcome::Timeout,
            CoreOutcome::Cancelled => Outcome::Cancelled,
            CoreOutcome::Shutdown => Outcome::Shutdown,
        };
        out
    }

    fn session_event(event: CoreSessionEvent) -> Self {
        let mut out = Decision::new(DecisionKind::Session);
        let (which, session, actor) = match event {
            CoreSessionEvent::Bound {
                session,
                actor,
                route,
            } => {
                out.binding_route = Some(*route);
                (SessionEvent::Bound, Some(session), Some(actor))
            }
            CoreSessionEvent::BindRefused {
                session,
                actor,
                reason,
            } => {
                out.bind_refusal = reason.into();
                (SessionEvent::BindRefused, Some(session), Some(actor))
            }
            CoreSessionEvent::Pushed {
                session,
                actor,
                payload,
            } => {
                out.payload = payload;
                (SessionEvent::Pushed, Some(session), Some(actor))
            }
            CoreSessionEvent::RelayRefused {
                operation_id,
                session,
                actor,
                reason,
            } => {
                out.operation_id = operation_id.get();
                out.session_refusal = reason.into();
                (SessionEvent::RelayRefused, Some(session), Some(actor))
            }
            CoreSessionEvent::Sealed {
                session,
                actor,
                relocation,
                sealed,
            } => {
                out.relocation = relocation.get();
                out.sealed = sealed;
                (SessionEvent::Sealed, Some(session), Some(actor))
            }
            CoreSessionEvent::Closed { session } => (SessionEvent::Closed, Some(session), None),
            CoreSessionEvent::Ignored(why) => {
                out.detail = why.to_owned();
                (SessionEvent::Ignored, None, None)
            }
        };
        out.session_event = which;
        out.session = session;
        out.target = actor;
        out
    }

    /// A `Relocation` decision: one step of a move.
    pub fn relocation(action: RelocationAction) -> Self {
        let mut out = Decision::new(DecisionKind::Relocation);
        let RelocationAction {
            event,
            deliver,
            session,
            send,
        } = action;
        let (which, identity) = match event {
            Event::Restore {
                identity,
                source,
                state,
            } => {
                out.peer = Some(source);
                out.payload = state;
                (RelocationEvent::Restore, identity)
            }
            Event::Cutover { identity, relayed } => {
                out.relayed = relayed;
                (RelocationEvent::Cutover, identity)
            }
            Event::Committed { identity, source } => {
                out.peer = Some(source);
                (RelocationEvent::Committed, identity)
            }
            Event::HandedOff { identity, target } => {
                out.peer = Some(target);
                (RelocationEvent::HandedOff, identity)
            }
            Event::Aborting { identity, reason } => {
                out.abort_reason = reason.into();
                (RelocationEvent::Aborting, identity)
            }
            Event::Aborted { identity, reason } => {
                out.abort_reason = reason.into();
                (RelocationEvent::Aborted, identity)
            }
            Event::Failed { identity, reason } => {
                out.abort_reason = reason.into();
                (RelocationEvent::Failed, identity)
            }
            Event::CommitRetry { identity } => (RelocationEvent::CommitRetry, identity),
            Event::CommitDue { identity } => (RelocationEvent::CommitDue, identity),
            Event::Ignored { identity, refusal } => {
                out.relocation_refusal = refusal.into();
                (RelocationEvent::Ignored, identity)
            }
        };
        out.relocation_event = which;
        out.relocation = identity.relocation.get();
        out.target = Some(identity.key);
        out.object_generation = identity.object_generation.get();
        out.frames = send;
        out.attached.deliver = deliver;
        out.attached.session = session;
        out
    }

    /// The target's kind and ID, if there is a target.
    pub fn target_parts(&self) -> Option<(crate::codes::ObjectKind, &str)> {
        self.target.as_ref().map(|t| (t.kind().into(), t.id()))
    }
}

impl From<Inbound> for Decision {
    fn from(inbound: Inbound) -> Self {
        use DecisionKind as K;
        match inbound {
            Inbound::Deliver(d) => Decision::deliver(d),
            Inbound::Relay { forward, notice } => {
                let mut out = Decision::new(K::Relay);
                out.frames.push(forward);
                if let Some(n) = notice {
                    out.frames.push(n.outbound);
                    out.has_notice = true;
                    out.attached.notice = Some(n.token);
                }
                out
            }
            Inbound::Reject(o) => Decision {
                frames: vec![o],
                ..Decision::new(K::Reject)
            },
            Inbound::Ended(e) => {
                let mut out = Decision {
                    operation_id: e.operation_id.get(),
                    target: Some(e.target),
                    ..Decision::new(K::Ended)
                };
                match e.failure {
                    zlink_core::Failure::Unavailable(r) => {
                        out.failure = Failure::Unavailable;
                        out.reason = r.into();
                    }
                    zlink_core::Failure::InvalidOperation => {
                        out.failure = Failure::InvalidOperation
                    }
                }
                out
            }
            Inbound::Completed(c) => Decision::completed(c),
            Inbound::Late { correlation } => Decision {
                correlation: correlation.get(),
                ..Decision::new(K::Late)
            },
            Inbound::RouteRefreshed { invalidated } => Decision {
                invalidated,
                ..Decision::new(K::RouteRefreshed)
            },
            Inbound::Dropped(e) => Decision {
                wire_error: zlink_core::wire::json::error_kind(&e),
                detail: e.to_string(),
                ..Decision::new(K::Dropped)
            },
            Inbound::Send(frames) => Decision {
                frames,
                ..Decision::new(K::Send)
            },
            Inbound::SessionDeliver(d) => Decision::session_deliver(d),
            Inbound::Session(e) => Decision::session_event(e),
            Inbound::PeerRefused => Decision::new(K::PeerRefused),
            Inbound::Held => Decision::new(K::Held),
            Inbound::Relocation(action) => Decision::relocation(action),
            Inbound::OwnershipLost(lost) => Decision {
                target: Some(lost.key),
                lost_reason: lost.reason.into(),
                ..Decision::new(K::OwnershipLost)
            },
            Inbound::ForeignSender {
                connection,
                claimed,
            } => {
                let named = claimed.map_or_else(|| "no sender".to_owned(), |c| c.to_string());
                Decision {
                    connection: connection.get(),
                    claimed: claimed.map(|c| c.get()),
                    detail: format!("frame on node {connection}'s connection names {named}"),
                    ..Decision::new(K::ForeignSender)
                }
            }
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
