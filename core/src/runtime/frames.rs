//! Frames in, decisions out (DESIGN §3): what this runtime does with every
//! frame that reaches it, composed from admission, Message Follow, the
//! requests and the session machines: admit an operation, relay it on a
//! Message Follow route (and notify its sender), refuse it, end one of its
//! own operations, or refresh a route after a relay notification.

use crate::admission::{Admission, InboundDirect, Rejection, StaleReason};
use crate::follow::{FollowCheck, RelayPlan};
use crate::ids::NodeRid;
use crate::inbound::{Delivery, Ended, Failure, Inbound, Notice, NoticeToken};
use crate::reply::{Outcome, RequestError};
use crate::resolve::UnavailableReason;
use crate::send::Outbound;
use crate::wire::{
    Command, Frame, MAX_ERROR_MESSAGE_BYTES, MessageFollowFrame, Operation, RejectionCode,
    RejectionFrame, ReplyError, ReplyErrorKind, ReplyFrame, ReplyResult, ReplyRoute,
    SalvagedRequest, WireError, decode, last_sender, salvage_request,
};

use super::Runtime;

impl Runtime {
    /// Decides what to do with one inbound frame that arrived on the host's
    /// connection to node `from`. Reads local state only: never the store,
    /// never an application handler (store work a frame makes due, such as
    /// a relocation's owner CAS, runs on the next `on_timeout`). A frame
    /// whose last sender is not `from` is refused
    /// ([`Inbound::ForeignSender`]) and changes nothing.
    pub fn on_frame(&self, from: NodeRid, bytes: &[u8]) -> Inbound {
        let config = &self.inner().config;
        let frame = match decode(bytes, &config.decode_limits()) {
            Ok(frame) => frame,
            Err(e) => return self.undecodable(from, bytes, e),
        };
        if let Some(claimed) = last_sender(&frame)
            && claimed != from
        {
            return self.foreign(from, Some(claimed));
        }
        match frame {
            Frame::Message(op) | Frame::Request(op) => {
                self.on_operation(op, config.max_follow_hops())
            }
            Frame::Reply(r) => self.on_reply_frame(r),
            Frame::Rejection(r) => self.on_rejection_frame(r),
            Frame::MessageFollow(f) => Inbound::RouteRefreshed {
                invalidated: self.on_follow_frame(&f),
            },
            Frame::Session(f) => self.on_session_frame(from, f),
            Frame::Relocation(f) => self.on_relocation_frame(f),
        }
    }

    /// A frame that names another sender than its connection's node, or
    /// that the state it would touch says came from elsewhere.
    pub(crate) fn foreign(&self, connection: NodeRid, claimed: Option<NodeRid>) -> Inbound {
        self.counters().follow.foreign_frames.incr();
        tracing::warn!(%connection, claimed = ?claimed, "frame refused: its sender is not its connection's node");
        Inbound::ForeignSender {
            connection,
            claimed,
        }
    }

    /// A frame that does not decode is dropped, unless it is a request
    /// whose reply route still decodes: that one is answered with a
    /// structured `Decode` error reply on its route (§4.3), its requester
    /// never looked up.
    #[cold]
    fn undecodable(&self, from: NodeRid, bytes: &[u8], e: WireError) -> Inbound {
        self.counters().follow.frames_dropped.incr();
        let limits = self.inner().config.decode_limits();
        match salvage_request(bytes, &limits) {
            Some(request) if request.sender == from => {
                return self.answer_undecodable(request, &e);
            }
            _ if bytes.get(3) == Some(&(Command::Request as u8)) => {
                // Its reply route cannot be restored (or it names another
                // sender than its connection's): no error reply is possible,
                // and the requester is never looked up (§4.3).
                self.counters().requests.unroutable.incr();
            }
            _ => {}
        }
        tracing::warn!(error = %e, "undecodable frame dropped");
        Inbound::Dropped(e)
    }

    /// The `Decode` error reply to an undecodable request, on its route.
    fn answer_undecodable(&self, request: SalvagedRequest, e: &WireError) -> Inbound {
        self.counters().requests.undecodable_answered.incr();
        tracing::warn!(error = %e, operation = %request.operation_id, "undecodable request answered with a Decode error reply");
        let mut message = format!("the request could not be decoded: {e}");
        while message.len() > MAX_ERROR_MESSAGE_BYTES {
            message.pop();
        }
        let frame = ReplyFrame {
            correlation: request.reply_route.correlation,
            operation_id: request.operation_id,
            replier: self.node_ref(),
            result: ReplyResult::Error(ReplyError {
                kind: ReplyErrorKind::Decode,
                code: 0,
                message,
            }),
        };
        Inbound::Send(vec![Outbound::frame(
            self.node_ref(),
            request.reply_route.node,
            &Frame::Reply(frame),
        )])
    }

    /// The host's report on a notification it was given: sent, or failed
    /// (the registry then lets a later relay try again).
    pub fn notice_settled(&self, token: &NoticeToken, sent: bool) {
        if !sent {
            self.counters().follow.notices_failed.incr();
        }
        self.inner().follow.settle(&token.target, &token.key, sent);
    }

    pub(crate) fn on_operation(&self, op: Operation, max_hops: u8) -> Inbound {
        let op = match self.relocating_operation(op) {
            Ok(decided) => return decided,
            Err(op) => op,
        };
        // After a store recovery event, an owned object's work waits until
        // its record is re-confirmed (`reconfirm`).
        self.note_store_epoch();
        let held = self.inner().reconfirm.hold(op);
        self.resume_reconfirm();
        let Some(op) = held else {
            return Inbound::Held;
        };
        let msg = InboundDirect {
            target: op.target.as_ref(),
            to_node: op.to_node,
            fence: op.fence,
        };
        match self.admit(&msg) {
            Admission::Accept { object_generation } => {
                self.counters().follow.delivered.incr();
                Inbound::Deliver(Delivery {
                    operation: op,
                    object_generation,
                })
            }
            Admission::Reject(Rejection::StaleRoute {
                reason: StaleReason::NotOwner,
                ..
            }) => self.follow(op, max_hops),
            Admission::Reject(Rejection::StaleRoute { reason, .. }) => {
                self.reject(&op, RejectionCode::StaleRoute(reason))
            }
            Admission::Reject(Rejection::Unavailable { reason, .. }) => {
                self.reject(&op, RejectionCode::Unavailable(reason))
            }
        }
    }

    /// Not the owner: relay through a live Message Follow route, else refuse.
    fn follow(&self, op: Operation, max_hops: u8) -> Inbound {
        let now = self.clock().now();
        match self.inner().follow.check(&op, now, max_hops) {
            FollowCheck::NoRoute => {
                self.reject(&op, RejectionCode::StaleRoute(StaleReason::NotOwner))
            }
            FollowCheck::GenerationMismatch => self.reject(&op, RejectionCode::InvalidOperation),
            FollowCheck::HopLimit => self.reject(
                &op,
                RejectionCode::Unavailable(UnavailableReason::FollowHopLimit),
            ),
            FollowCheck::Relay(plan) => self.relay(op, *plan),
        }
    }

    fn relay(&self, op: Operation, plan: RelayPlan) -> Inbound {
        let counters = &self.counters().follow;
        counters.relays.incr();
        if plan.suppressed {
            counters.notices_suppressed.incr();
        }
        let notice = plan.notify.map(|key| {
            counters.notices_sent.incr();
            let frame = MessageFollowFrame {
                target: op.target.clone(),
                source: plan.source,
                destination: plan.destination,
                hop_count: op.hop_count,
                relayed_messages: plan.relayed_messages,
                relayed_bytes: plan.relayed_bytes,
                operation_id: op.operation_id,
                reply_route: op.reply_route,
            };
            Notice {
                outbound: Outbound::frame(self.node_ref(), op.origin, &Frame::MessageFollow(frame)),
                token: NoticeToken {
                    target: op.target.clone(),
                    key,
                },
            }
        });
        let destination = plan.destination;
        Inbound::Relay {
            forward: op.relayed_to(destination.node, destination.fence, self.node_ref()),
            notice,
        }
    }

    pub(crate) fn reject(&self, op: &Operation, code: RejectionCode) -> Inbound {
        self.counters().follow.rejections_sent.incr();
        let frame = RejectionFrame {
            operation_id: op.operation_id,
            target: op.target.clone(),
            fence: op.fence,
            rejected_by: self.node_ref(),
            code,
            reply_route: op.reply_route,
        };
        Inbound::Reject(Outbound::frame(
            self.node_ref(),
            op.origin,
            &Frame::Rejection(frame),
        ))
    }

    /// A reply completes its pending request, unless that already ended.
    fn on_reply_frame(&self, r: ReplyFrame) -> Inbound {
        let outcome = match r.result {
            ReplyResult::Ok(payload) => Outcome::Reply(payload),
            ReplyResult::Error(e) => Outcome::Error(RequestError::Replied(e)),
        };
        match self.complete(r.correlation, outcome, "reply") {
            Some(done) => Inbound::Completed(done),
            None => Inbound::Late {
                correlation: r.correlation,
            },
        }
    }

    /// One of our operations was refused: a stale route is dropped if the
    /// cache still holds that fence; the operation ends, never resubmitted
    /// (a request completes with the route error).
    fn on_rejection_frame(&self, r: RejectionFrame) -> Inbound {
        let reply_route = r.reply_route;
        let ended = self.refused(r);
        let Some(ReplyRoute { correlation, .. }) = reply_route else {
            return Inbound::Ended(ended);
        };
        let error = match ended.failure {
            Failure::Unavailable(reason) => RequestError::Unavailable(reason),
            Failure::InvalidOperation => RequestError::InvalidOperation,
        };
        match self.complete(correlation, Outcome::Error(error), "rejection") {
            Some(done) => Inbound::Completed(done),
            None => Inbound::Late { correlation },
        }
    }

    fn refused(&self, r: RejectionFrame) -> Ended {
        // Only the node a route leads to can call it stale: a rejection
        // drops a cached route to its refuser, never one to another node.
        let stale = || {
            self.inner().resolver.invalidate_rejected(
                r.target.as_ref(),
                r.rejected_by.rid,
                &r.fence,
            )
        };
        let failure = match r.code {
            RejectionCode::StaleRoute(_) => {
                stale();
                Failure::Unavailable(UnavailableReason::StaleRoute)
            }
            RejectionCode::Unavailable(reason) => Failure::Unavailable(reason),
            RejectionCode::InvalidOperation => {
                // The route led to a move of another incarnation: it is stale
                // too, or the next call would end the same way.
                stale();
                Failure::InvalidOperation
            }
        };
        Ended {
            operation_id: r.operation_id,
            target: r.target,
            failure,
        }
    }

    /// Command 50: drop the cached route only if it is the one the relay
    /// names (same object generation, authority generation and node).
    fn on_follow_frame(&self, f: &MessageFollowFrame) -> bool {
        self.invalidate_relayed(f.target.as_ref(), &f.source)
    }
}
