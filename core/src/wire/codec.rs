//! Encoding and strict decoding of every frame. Integers are big-endian;
//! an object ID is a kind byte and a u16-length UTF-8 string; a mesh name a
//! u8-length string; an optional value a presence byte (0 or 1) then the
//! value; a payload a u32 length then the bytes.

use super::*;
use crate::ids::{AuthorityOwnerGeneration, ObjectKind, OwnerLeaseGeneration, StoreVersion};

/// Encodes `frame` with its header.
pub fn encode(frame: &Frame) -> Vec<u8> {
    let mut body = Writer::default();
    let command = match frame {
        Frame::Message(op) => {
            body.operation(op);
            Command::Message as u8
        }
        Frame::Request(op) => {
            body.operation(op);
            Command::Request as u8
        }
        Frame::Reply(r) => {
            body.reply(r);
            Command::Reply as u8
        }
        Frame::Rejection(r) => {
            body.rejection(r);
            Command::Rejection as u8
        }
        Frame::MessageFollow(f) => {
            body.follow(f);
            Command::MessageFollow as u8
        }
        Frame::Session(f) => {
            body.session_frame(f);
            f.command()
        }
        Frame::Relocation(f) => {
            body.relocation_frame(f);
            f.command()
        }
    };
    let body = body.0;
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[WIRE_VERSION, command, 0, 0]);
    out.extend_from_slice(&len_u32(body.len()).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// A length as a u32 field: saturates instead of panicking (callers bound
/// every length far below it, and a decoder refuses a frame whose lengths
/// disagree).
pub(super) fn len_u32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// Decodes one whole frame. Anything but exactly one valid frame is an error.
pub fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<Frame, WireError> {
    let mut r = Reader { bytes, limits };
    let (command, declared) = r.header()?;
    if declared != r.bytes.len() {
        return Err(WireError::LengthMismatch {
            declared,
            actual: r.bytes.len(),
        });
    }
    let frame = match command {
        1 => Frame::Message(r.operation(false)?),
        2 => Frame::Request(r.operation(true)?),
        3 => Frame::Reply(r.reply()?),
        4 => Frame::Rejection(r.rejection()?),
        50 => Frame::MessageFollow(r.follow()?),
        10..=16 | 42..=44 => Frame::Session(r.session_frame(command)?),
        45..=49 => Frame::Relocation(r.relocation_frame(command)?),
        other => return Err(WireError::UnknownCommand(other)),
    };
    match r.bytes.len() {
        0 => Ok(frame),
        n => Err(WireError::TrailingBytes(n)),
    }
}

/// What an undecodable request still tells, when it tells it (spec §4.3):
/// the frame is a request (command 2) whose fields up to its reply route
/// decode, whatever follows (a payload cut short or over the bound,
/// trailing bytes, a body length that disagrees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SalvagedRequest {
    /// The request's operation.
    pub operation_id: OperationId,
    /// The node it names as its last sender (its origin, or its relayer).
    pub sender: NodeRid,
    /// Where its answer goes.
    pub reply_route: ReplyRoute,
}

/// The reply route of a request [`decode`] refused, if it can be restored.
pub fn salvage_request(bytes: &[u8], limits: &DecodeLimits) -> Option<SalvagedRequest> {
    let mut r = Reader { bytes, limits };
    let (command, _declared) = r.header().ok()?;
    if command != Command::Request as u8 {
        return None;
    }
    let head = r.operation_head().ok()?;
    Some(SalvagedRequest {
        operation_id: head.operation_id,
        sender: head.relayer.unwrap_or(head.origin).rid,
        reply_route: head.reply_route?,
    })
}

/// An operation's fields before its payload.
pub(super) struct OperationHead {
    operation_id: OperationId,
    target: ObjectKey,
    origin: NodeRef,
    to_node: NodeRid,
    fence: RouteFence,
    object_generation: ObjectGeneration,
    hop_count: u8,
    relayer: Option<NodeRef>,
    reply_route: Option<ReplyRoute>,
}

#[derive(Default)]
pub(super) struct Writer(Vec<u8>);

impl Writer {
    pub(super) fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }

    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }

    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }

    pub(super) fn key(&mut self, key: &ObjectKey) {
        self.u8(key.kind() as u8);
        // An ObjectKey is at most MAX_OBJECT_ID_BYTES (u16::MAX) long.
        let id = &key.id().as_bytes()[..key.id().len().min(usize::from(u16::MAX))];
        self.0.extend_from_slice(&(id.len() as u16).to_be_bytes());
        self.0.extend_from_slice(id);
    }

    pub(super) fn node(&mut self, node: &NodeRef) {
        let mesh = node.mesh.as_str().as_bytes();
        self.u8(mesh.len() as u8);
        self.0.extend_from_slice(mesh);
        self.u64(node.rid.get());
        self.u64(node.generation.get());
    }

    pub(super) fn fence(&mut self, f: &RouteFence) {
        self.u64(f.object_generation.get());
        self.u64(f.authority_owner_generation.get());
        self.u64(f.owner_lease_generation.get());
        self.u64(f.node_generation.get());
        self.u64(f.store_version.get());
    }

    fn reply_route(&mut self, route: &Option<ReplyRoute>) {
        match route {
            None => self.u8(0),
            Some(route) => {
                self.u8(1);
                self.node(&route.node);
                self.u64(route.correlation.get());
            }
        }
    }

    pub(super) fn operation(&mut self, op: &Operation) {
        self.u64(op.operation_id.get());
        self.key(&op.target);
        self.node(&op.origin);
        self.u64(op.to_node.get());
        self.fence(&op.fence);
        self.u64(op.object_generation.get());
        self.u8(op.hop_count);
        self.relayer(&op.relayer);
        self.reply_route(&op.reply_route);
        self.payload(&op.payload);
    }

    pub(super) fn relayer(&mut self, relayer: &Option<NodeRef>) {
        match relayer {
            None => self.u8(0),
            Some(node) => {
                self.u8(1);
                self.node(node);
            }
        }
    }

    /// Every call that produces a frame checks the message bound first, so
    /// a payload here is far below 4 GiB; the length never panics anyway.
    pub(super) fn payload(&mut self, payload: &[u8]) {
        self.0
            .extend_from_slice(&len_u32(payload.len()).to_be_bytes());
        self.0.extend_from_slice(payload);
    }

    fn reply(&mut self, r: &ReplyFrame) {
        self.u64(r.correlation.get());
        self.u64(r.operation_id.get());
        self.node(&r.replier);
        match &r.result {
            ReplyResult::Ok(payload) => {
                self.u8(1);
                self.payload(payload);
            }
            ReplyResult::Error(e) => {
                self.u8(2);
                self.u8(e.kind as u8);
                self.0.extend_from_slice(&e.code.to_be_bytes());
                // Cut at a char boundary within the bound, so encoding never fails.
                let mut end = e.message.len().min(MAX_ERROR_MESSAGE_BYTES);
                while !e.message.is_char_boundary(end) {
                    end -= 1;
                }
                self.0.extend_from_slice(&(end as u16).to_be_bytes());
                self.0.extend_from_slice(&e.message.as_bytes()[..end]);
            }
        }
    }

    fn rejection(&mut self, r: &RejectionFrame) {
        self.u64(r.operation_id.get());
        self.key(&r.target);
        self.fence(&r.fence);
        self.node(&r.rejected_by);
        let (class, reason) = rejection_code(r.code);
        self.u8(class);
        self.u8(reason);
        self.reply_route(&r.reply_route);
    }

    fn follow(&mut self, f: &MessageFollowFrame) {
        self.key(&f.target);
        for end in [&f.source, &f.destination] {
            self.node(&end.node);
            self.fence(&end.fence);
        }
        self.u8(f.hop_count);
        self.u64(f.relayed_messages);
        self.u64(f.relayed_bytes);
        self.u64(f.operation_id.get());
        self.reply_route(&f.reply_route);
    }
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    limits: &'a DecodeLimits,
}

pub(super) fn invalid(field: &'static str, why: impl Into<String>) -> WireError {
    WireError::Invalid {
        field,
        why: why.into(),
    }
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(WireError::Truncated {
                field,
                needed: n - self.bytes.len(),
            });
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], WireError> {
        // `take` returns exactly N bytes; no length is trusted with a panic.
        self.take(N, field)?
            .try_into()
            .map_err(|_| WireError::Truncated { field, needed: N })
    }

    pub(super) fn u8(&mut self, field: &'static str) -> Result<u8, WireError> {
        Ok(self.array::<1>(field)?[0])
    }

    fn u16(&mut self, field: &'static str) -> Result<u16, WireError> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }

    pub(super) fn u32(&mut self, field: &'static str) -> Result<u32, WireError> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }

    pub(super) fn u64(&mut self, field: &'static str) -> Result<u64, WireError> {
        Ok(u64::from_be_bytes(self.array(field)?))
    }

    fn text(&mut self, len: usize, field: &'static str) -> Result<&'a str, WireError> {
        std::str::from_utf8(self.take(len, field)?).map_err(|_| invalid(field, "not UTF-8"))
    }

    pub(super) fn key(&mut self) -> Result<ObjectKey, WireError> {
        let kind = match self.u8("object kind")? {
            1 => ObjectKind::Spot,
            2 => ObjectKind::Actor,
            other => {
                return Err(invalid(
                    "object kind",
                    format!("{other} is neither 1 (spot) nor 2 (actor)"),
                ));
            }
        };
        let len = self.u16("object id length")? as usize;
        if len > self.limits.max_object_id_bytes {
            return Err(WireError::TooLong {
                field: "object id",
                len,
                max: self.limits.max_object_id_bytes,
            });
        }
        let id = self.text(len, "object id")?;
        ObjectKey::new(kind, id).map_err(|e| invalid("object id", e.to_string()))
    }

    pub(super) fn node(&mut self) -> Result<NodeRef, WireError> {
        let len = self.u8("mesh name length")? as usize;
        let mesh = MeshName::new(self.text(len, "mesh name")?)
            .map_err(|e| invalid("mesh name", e.to_string()))?;
        Ok(NodeRef {
            mesh,
            rid: NodeRid(self.u64("node rid")?),
            generation: NodeGeneration(self.u64("node generation")?),
        })
    }

    pub(super) fn fence(&mut self) -> Result<RouteFence, WireError> {
        Ok(RouteFence {
            object_generation: ObjectGeneration(self.u64("fence object generation")?),
            authority_owner_generation: AuthorityOwnerGeneration(
                self.u64("fence authority owner generation")?,
            ),
            owner_lease_generation: OwnerLeaseGeneration(self.u64("fence owner lease generation")?),
            node_generation: NodeGeneration(self.u64("fence node generation")?),
            store_version: StoreVersion(self.u64("fence store version")?),
        })
    }

    fn reply_route(&mut self) -> Result<Option<ReplyRoute>, WireError> {
        match self.u8("reply route presence")? {
            0 => Ok(None),
            1 => Ok(Some(ReplyRoute {
                node: self.node()?,
                correlation: CorrelationId(self.u64("correlation")?),
            })),
            other => Err(invalid(
                "reply route presence",
                format!("{other} is neither 0 nor 1"),
            )),
        }
    }

    /// The frame header: its command and declared body length.
    fn header(&mut self) -> Result<(u8, usize), WireError> {
        if self.take(2, "magic")? != MAGIC {
            return Err(WireError::BadMagic);
        }
        let version = self.u8("version")?;
        if version != WIRE_VERSION {
            return Err(WireError::UnsupportedVersion(version));
        }
        let command = self.u8("command")?;
        let (flags, reserved) = (self.u8("flags")?, self.u8("reserved")?);
        if flags != 0 || reserved != 0 {
            return Err(WireError::FlagsNotAllowed {
                command,
                flags: flags | reserved,
            });
        }
        Ok((command, self.u32("body length")? as usize))
    }

    fn operation_head(&mut self) -> Result<OperationHead, WireError> {
        let operation_id = OperationId(self.u64("operation id")?);
        let target = self.key()?;
        let origin = self.node()?;
        let to_node = NodeRid(self.u64("to node")?);
        let fence = self.fence()?;
        let object_generation = ObjectGeneration(self.u64("object generation")?);
        let hop_count = self.u8("hop count")?;
        let relayer = self.relayer(hop_count)?;
        let reply_route = self.reply_route()?;
        Ok(OperationHead {
            operation_id,
            target,
            origin,
            to_node,
            fence,
            object_generation,
            hop_count,
            relayer,
            reply_route,
        })
    }

    pub(super) fn operation(&mut self, request: bool) -> Result<Operation, WireError> {
        let OperationHead {
            operation_id,
            target,
            origin,
            to_node,
            fence,
            object_generation,
            hop_count,
            relayer,
            reply_route,
        } = self.operation_head()?;
        if reply_route.is_some() != request {
            let why = if request {
                "a request needs one"
            } else {
                "a one-way message has none"
            };
            return Err(invalid("reply route", why));
        }
        let payload = self.payload()?;
        Ok(Operation {
            operation_id,
            target,
            origin,
            to_node,
            fence,
            object_generation,
            hop_count,
            relayer,
            reply_route,
            payload,
        })
    }

    /// The relaying node: present exactly when the hop count is above 0.
    pub(super) fn relayer(&mut self, hop_count: u8) -> Result<Option<NodeRef>, WireError> {
        let relayer = match self.u8("relayer presence")? {
            0 => None,
            1 => Some(self.node()?),
            other => {
                return Err(invalid(
                    "relayer presence",
                    format!("{other} is neither 0 nor 1"),
                ));
            }
        };
        if relayer.is_some() != (hop_count > 0) {
            return Err(invalid(
                "relayer",
                "present exactly on a relayed hop (hop count above 0)",
            ));
        }
        Ok(relayer)
    }

    pub(super) fn payload(&mut self) -> Result<Vec<u8>, WireError> {
        self.bounded_bytes("payload", self.limits.max_payload_bytes)
    }

    /// A relocation's application state, within its own bound.
    pub(super) fn state(&mut self) -> Result<Vec<u8>, WireError> {
        self.bounded_bytes("relocation state", self.limits.max_state_bytes)
    }

    fn bounded_bytes(&mut self, field: &'static str, max: usize) -> Result<Vec<u8>, WireError> {
        let len = self.u32("payload length")? as usize;
        if len > max {
            return Err(WireError::TooLong { field, len, max });
        }
        Ok(self.take(len, field)?.to_vec())
    }

    /// The bytes not read yet.
    pub(super) fn remaining(&self) -> &'a [u8] {
        self.bytes
    }

    fn reply(&mut self) -> Result<ReplyFrame, WireError> {
        let correlation = CorrelationId(self.u64("correlation")?);
        let operation_id = OperationId(self.u64("operation id")?);
        let replier = self.node()?;
        let result = match self.u8("reply result")? {
            1 => ReplyResult::Ok(self.payload()?),
            2 => {
                let kind = match self.u8("reply error kind")? {
                    1 => ReplyErrorKind::Handler,
                    2 => ReplyErrorKind::Decode,
                    other => {
                        return Err(invalid(
                            "reply error kind",
                            format!("{other} is neither 1 (handler) nor 2 (decode)"),
                        ));
                    }
                };
                let code = self.u32("reply error code")?;
                let len = self.u16("reply error message length")? as usize;
                if len > MAX_ERROR_MESSAGE_BYTES {
                    return Err(WireError::TooLong {
                        field: "reply error message",
                        len,
                        max: MAX_ERROR_MESSAGE_BYTES,
                    });
                }
                let message = self.text(len, "reply error message")?.to_owned();
                ReplyResult::Error(ReplyError {
                    kind,
                    code,
                    message,
                })
            }
            other => {
                return Err(invalid(
                    "reply result",
                    format!("{other} is neither 1 (ok) nor 2 (error)"),
                ));
            }
        };
        Ok(ReplyFrame {
            correlation,
            operation_id,
            replier,
            result,
        })
    }

    fn rejection(&mut self) -> Result<RejectionFrame, WireError> {
        Ok(RejectionFrame {
            operation_id: OperationId(self.u64("operation id")?),
            target: self.key()?,
            fence: self.fence()?,
            rejected_by: self.node()?,
            code: rejection_from(self.u8("rejection class")?, self.u8("rejection reason")?)?,
            reply_route: self.reply_route()?,
        })
    }

    fn follow(&mut self) -> Result<MessageFollowFrame, WireError> {
        let target = self.key()?;
        let source = RouteEnd {
            node: self.node()?,
            fence: self.fence()?,
        };
        let destination = RouteEnd {
            node: self.node()?,
            fence: self.fence()?,
        };
        Ok(MessageFollowFrame {
            target,
            source,
            destination,
            hop_count: self.u8("hop count")?,
            relayed_messages: self.u64("relayed messages")?,
            relayed_bytes: self.u64("relayed bytes")?,
            operation_id: OperationId(self.u64("operation id")?),
            reply_route: self.reply_route()?,
        })
    }
}

const STALE: [StaleReason; 4] = [
    StaleReason::NotOwner,
    StaleReason::NodeMismatch,
    StaleReason::OwnerGenerationMismatch,
    StaleReason::LeaseMismatch,
];

const UNAVAILABLE: [UnavailableReason; 8] = [
    UnavailableReason::Creating,
    UnavailableReason::Releasing,
    UnavailableReason::LeaseExpired,
    UnavailableReason::OwnerNotLive,
    UnavailableReason::StaleRoute,
    UnavailableReason::AdmissionDeadlinePassed,
    UnavailableReason::FollowHopLimit,
    UnavailableReason::RelocationFailed,
];

/// (class, reason): class 1 stale route, 2 unavailable, 3 invalid
/// operation; reason is the 1-based index in the tables above (0 for 3).
fn rejection_code(code: RejectionCode) -> (u8, u8) {
    let index = |found: Option<usize>| found.map_or(0, |i| i as u8 + 1);
    match code {
        RejectionCode::StaleRoute(r) => (1, index(STALE.iter().position(|s| *s == r))),
        RejectionCode::Unavailable(r) => (2, index(UNAVAILABLE.iter().position(|u| *u == r))),
        RejectionCode::InvalidOperation => (3, 0),
    }
}

fn rejection_from(class: u8, reason: u8) -> Result<RejectionCode, WireError> {
    let pick = |table_len: usize| (reason as usize).checked_sub(1).filter(|i| *i < table_len);
    let code = match class {
        1 => pick(STALE.len()).map(|i| RejectionCode::StaleRoute(STALE[i])),
        2 => pick(UNAVAILABLE.len()).map(|i| RejectionCode::Unavailable(UNAVAILABLE[i])),
        3 if reason == 0 => Some(RejectionCode::InvalidOperation),
        _ => None,
    };
    code.ok_or_else(|| {
        invalid(
            "rejection code",
            format!("class {class} reason {reason} is not defined"),
        )
    })
}
