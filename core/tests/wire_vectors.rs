//! The wire golden vectors (`testdata/wire/`) against the codec, and the
//! codec's own properties: round trips, truncations, limits, the rules a
//! decoder enforces beyond field layout.
//!
//! Each `.json` is read here on its own terms (not through the program that
//! wrote it, `core/examples/wire_vectors.rs`): the expected `Frame` is built
//! from the JSON, so these tests check the bytes against a description any
//! other language can read too.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use zlink_core::wire::{
    self, AbortReason, ActorRoute, BindRefusal, BindResult, Binding, DecodeLimits, Frame,
    HEADER_LEN, MAX_ERROR_MESSAGE_BYTES, MAX_RESTORE_REGISTRATIONS, MAX_SAVED_OPERATIONS,
    MessageFollowFrame, NodeRef, Operation, Registration, RejectionCode, RejectionFrame, RelayKind,
    RelocationFrame, RelocationIdentity, ReplyError, ReplyErrorKind, ReplyFrame, ReplyResult,
    ReplyRoute, Restore, RouteChange, RouteEnd, SessionFrame, SessionRef, SessionRefusal,
    WireError,
};
use zlink_core::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, CorrelationId, MeshName,
    NodeGeneration, NodeRid, ObjectGeneration, ObjectKey, ObjectKind, OperationId,
    OwnerLeaseGeneration, RelocationId, RouteFence, SessionGeneration, SessionId, StaleReason,
    StoreVersion, UnavailableReason,
};

// ------------------------------------------------------------- vectors --

fn vector_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/wire")
}

struct Vector {
    name: String,
    bytes: Vec<u8>,
    json: Value,
}

/// Every `.json` in `dir` with its `.bin`, sorted by name.
fn load(dir: &Path) -> Vec<Vector> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .expect("a UTF-8 name")
                .to_owned()
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = fs::read(dir.join(format!("{name}.bin")))
                .unwrap_or_else(|e| panic!("{name}.bin: {e}"));
            let text = fs::read_to_string(dir.join(format!("{name}.json"))).expect("readable JSON");
            let json: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}.json: {e}"));
            assert_eq!(json["name"], name.as_str(), "{name}: name field");
            assert!(
                json["note"].as_str().is_some_and(|n| !n.is_empty()),
                "{name}: a note"
            );
            assert_eq!(
                json["size"].as_u64(),
                Some(bytes.len() as u64),
                "{name}: size"
            );
            Vector { name, bytes, json }
        })
        .collect()
}

fn valid_vectors() -> Vec<Vector> {
    let v = load(&vector_dir());
    assert!(v.len() >= 15, "golden vectors missing: {}", v.len());
    v
}

fn invalid_vectors() -> Vec<Vector> {
    let v = load(&vector_dir().join("invalid"));
    assert!(v.len() >= 20, "invalid vectors missing: {}", v.len());
    v
}

// ------------------------------------------------- JSON → expected frame --

fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    v.get(name)
        .unwrap_or_else(|| panic!("missing field {name:?} in {v}"))
}

/// A u64 is a decimal string (exact in every language), never a JSON number.
fn u64_of(v: &Value, name: &str) -> u64 {
    let s = field(v, name)
        .as_str()
        .unwrap_or_else(|| panic!("{name} must be a decimal string: {v}"));
    assert!(
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
        "{name}: {s:?}"
    );
    s.parse()
        .unwrap_or_else(|e| panic!("{name}: {s:?} is not a u64: {e}"))
}

fn u8_of(v: &Value, name: &str) -> u8 {
    let n = field(v, name)
        .as_u64()
        .unwrap_or_else(|| panic!("{name} must be a number: {v}"));
    u8::try_from(n).unwrap_or_else(|_| panic!("{name}: {n} is not a u8"))
}

fn str_of<'a>(v: &'a Value, name: &str) -> &'a str {
    field(v, name)
        .as_str()
        .unwrap_or_else(|| panic!("{name} must be a string: {v}"))
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length: {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digits"))
        .collect()
}

fn key_of(v: &Value) -> ObjectKey {
    let (kind, code) = match str_of(v, "kind") {
        "spot" => (ObjectKind::Spot, 1),
        "actor" => (ObjectKind::Actor, 2),
        other => panic!("unknown kind {other:?}"),
    };
    assert_eq!(u8_of(v, "kind_code"), code);
    let id = str_of(v, "id");
    assert_eq!(
        unhex(str_of(v, "id_utf8_hex")),
        id.as_bytes(),
        "id and id_utf8_hex disagree"
    );
    ObjectKey::new(kind, id).expect("a valid object ID")
}

fn node_of(v: &Value) -> NodeRef {
    NodeRef {
        mesh: MeshName::new(str_of(v, "mesh")).expect("a valid mesh name"),
        rid: NodeRid(u64_of(v, "rid")),
        generation: NodeGeneration(u64_of(v, "generation")),
    }
}

fn fence_of(v: &Value) -> RouteFence {
    RouteFence {
        object_generation: ObjectGeneration(u64_of(v, "object_generation")),
        authority_owner_generation: AuthorityOwnerGeneration(u64_of(
            v,
            "authority_owner_generation",
        )),
        owner_lease_generation: OwnerLeaseGeneration(u64_of(v, "owner_lease_generation")),
        node_generation: NodeGeneration(u64_of(v, "node_generation")),
        store_version: StoreVersion(u64_of(v, "store_version")),
    }
}

fn reply_of(v: &Value) -> Option<ReplyRoute> {
    match field(v, "reply_route") {
        Value::Null => None,
        r => Some(ReplyRoute {
            node: node_of(field(r, "node")),
            correlation: CorrelationId(u64_of(r, "correlation")),
        }),
    }
}

fn relayer_of(v: &Value) -> Option<NodeRef> {
    match field(v, "relayer") {
        Value::Null => None,
        r => Some(node_of(r)),
    }
}

fn operation_of(v: &Value) -> Operation {
    Operation {
        operation_id: OperationId(u64_of(v, "operation_id")),
        target: key_of(field(v, "target")),
        origin: node_of(field(v, "origin")),
        to_node: NodeRid(u64_of(v, "to_node")),
        fence: fence_of(field(v, "fence")),
        object_generation: ObjectGeneration(u64_of(v, "object_generation")),
        hop_count: u8_of(v, "hop_count"),
        relayer: relayer_of(v),
        reply_route: reply_of(v),
        payload: unhex(str_of(v, "payload_hex")),
    }
}

/// Class and reason by name, with their wire numbers (docs/wire.md tables).
fn code_of(v: &Value) -> RejectionCode {
    let reason = field(v, "reason");
    let (code, class_code, reason_code) = match str_of(v, "class") {
        "StaleRoute" => {
            let (r, n) = match reason.as_str().expect("a reason name") {
                "NotOwner" => (StaleReason::NotOwner, 1),
                "NodeMismatch" => (StaleReason::NodeMismatch, 2),
                "OwnerGenerationMismatch" => (StaleReason::OwnerGenerationMismatch, 3),
                "LeaseMismatch" => (StaleReason::LeaseMismatch, 4),
                other => panic!("unknown stale reason {other:?}"),
            };
            (RejectionCode::StaleRoute(r), 1, n)
        }
        "Unavailable" => {
            let (r, n) = match reason.as_str().expect("a reason name") {
                "Creating" => (UnavailableReason::Creating, 1),
                "Releasing" => (UnavailableReason::Releasing, 2),
                "LeaseExpired" => (UnavailableReason::LeaseExpired, 3),
                "OwnerNotLive" => (UnavailableReason::OwnerNotLive, 4),
                "StaleRoute" => (UnavailableReason::StaleRoute, 5),
                "AdmissionDeadlinePassed" => (UnavailableReason::AdmissionDeadlinePassed, 6),
                "FollowHopLimit" => (UnavailableReason::FollowHopLimit, 7),
                "RelocationFailed" => (UnavailableReason::RelocationFailed, 8),
                other => panic!("unknown unavailable reason {other:?}"),
            };
            (RejectionCode::Unavailable(r), 2, n)
        }
        "InvalidOperation" => {
            assert!(reason.is_null(), "InvalidOperation has no reason");
            (RejectionCode::InvalidOperation, 3, 0)
        }
        other => panic!("unknown rejection class {other:?}"),
    };
    assert_eq!(u8_of(v, "class_code"), class_code, "class_code");
    assert_eq!(u8_of(v, "reason_code"), reason_code, "reason_code");
    code
}

fn u32_of(v: &Value, name: &str) -> u32 {
    let n = field(v, name)
        .as_u64()
        .unwrap_or_else(|| panic!("{name} must be a number: {v}"));
    u32::try_from(n).unwrap_or_else(|_| panic!("{name}: {n} is not a u32"))
}

/// A reply's result: status Ok (1) with a payload, or Error (2) with a kind
/// (Handler 1, Decode 2), a code and a message (docs/wire.md tables).
fn reply_result_of(v: &Value) -> ReplyResult {
    match str_of(v, "status") {
        "Ok" => {
            assert_eq!(u8_of(v, "status_code"), 1, "status_code");
            assert!(v.get("error").is_none(), "an Ok result has no error: {v}");
            ReplyResult::Ok(unhex(str_of(v, "payload_hex")))
        }
        "Error" => {
            assert_eq!(u8_of(v, "status_code"), 2, "status_code");
            assert!(
                v.get("payload_hex").is_none(),
                "an Error result has no payload: {v}"
            );
            let e = field(v, "error");
            let (kind, code) = match str_of(e, "kind") {
                "Handler" => (ReplyErrorKind::Handler, 1),
                "Decode" => (ReplyErrorKind::Decode, 2),
                other => panic!("unknown reply error kind {other:?}"),
            };
            assert_eq!(u8_of(e, "kind_code"), code, "kind_code");
            let message = str_of(e, "message");
            assert_eq!(
                unhex(str_of(e, "message_utf8_hex")),
                message.as_bytes(),
                "message and message_utf8_hex disagree"
            );
            assert!(message.len() <= MAX_ERROR_MESSAGE_BYTES, "message too long");
            ReplyResult::Error(ReplyError {
                kind,
                code: u32_of(e, "code"),
                message: message.to_owned(),
            })
        }
        other => panic!("unknown reply status {other:?}"),
    }
}

fn route_end_of(v: &Value) -> RouteEnd {
    RouteEnd {
        node: node_of(field(v, "node")),
        fence: fence_of(field(v, "fence")),
    }
}

fn session_of(v: &Value) -> SessionRef {
    SessionRef {
        owner: node_of(field(v, "owner")),
        id: SessionId(u64_of(v, "id")),
        generation: SessionGeneration(u64_of(v, "generation")),
    }
}

fn binding_of(v: &Value) -> Binding {
    Binding {
        generation: BindingGeneration(u64_of(v, "generation")),
        token: BindingToken(u64_of(v, "token")),
    }
}

fn actor_route_of(v: &Value) -> ActorRoute {
    ActorRoute {
        owner: node_of(field(v, "owner")),
        object_generation: ObjectGeneration(u64_of(v, "object_generation")),
        authority_owner_generation: AuthorityOwnerGeneration(u64_of(
            v,
            "authority_owner_generation",
        )),
        owner_lease_generation: OwnerLeaseGeneration(u64_of(v, "owner_lease_generation")),
        lease_remaining_ms: u64_of(v, "lease_remaining_ms"),
    }
}

/// A bind reply's result: Bound (0) with route and binding, or Refused with
/// its reason, whose code is the result byte (docs/wire.md table).
fn bind_result_of(v: &Value) -> BindResult {
    match str_of(v, "status") {
        "Bound" => {
            assert_eq!(u8_of(v, "status_code"), 0, "status_code");
            assert!(v.get("reason").is_none(), "Bound has no reason: {v}");
            BindResult::Bound {
                route: actor_route_of(field(v, "route")),
                binding: binding_of(field(v, "binding")),
            }
        }
        "Refused" => {
            assert!(v.get("route").is_none(), "Refused has no route: {v}");
            let (why, code) = match str_of(v, "reason") {
                "NotOwner" => (BindRefusal::NotOwner, 1),
                "ObjectGeneration" => (BindRefusal::ObjectGeneration, 2),
                "NodeGeneration" => (BindRefusal::NodeGeneration, 3),
                "OwnerGeneration" => (BindRefusal::OwnerGeneration, 4),
                "OwnerLease" => (BindRefusal::OwnerLease, 5),
                "Timeout" => (BindRefusal::Timeout, 6),
                other => panic!("unknown bind refusal {other:?}"),
            };
            assert_eq!(u8_of(v, "status_code"), code, "status_code");
            BindResult::Refused(why)
        }
        other => panic!("unknown bind status {other:?}"),
    }
}

fn relay_kind_of(v: &Value) -> RelayKind {
    let (kind, code) = match str_of(v, "kind") {
        "Message" => (RelayKind::Message, 1),
        "PhysicalDisconnect" => (RelayKind::PhysicalDisconnect, 2),
        "LogicalDisconnect" => (RelayKind::LogicalDisconnect, 3),
        other => panic!("unknown relay kind {other:?}"),
    };
    assert_eq!(u8_of(v, "kind_code"), code, "kind_code");
    kind
}

fn session_refusal_of(v: &Value) -> SessionRefusal {
    let (reason, code) = match str_of(v, "reason") {
        "UnknownBinding" => (SessionRefusal::UnknownBinding, 1),
        "StaleRoute" => (SessionRefusal::StaleRoute, 2),
        "ObjectGeneration" => (SessionRefusal::ObjectGeneration, 3),
        other => panic!("unknown session refusal {other:?}"),
    };
    assert_eq!(u8_of(v, "reason_code"), code, "reason_code");
    reason
}

fn route_change_of(v: &Value) -> RouteChange {
    match str_of(v, "action") {
        "Commit" => {
            assert_eq!(u8_of(v, "action_code"), 1, "action_code");
            RouteChange::Commit(actor_route_of(field(v, "route")))
        }
        "Abort" => {
            assert_eq!(u8_of(v, "action_code"), 2, "action_code");
            assert!(v.get("route").is_none(), "an abort has no route: {v}");
            RouteChange::Abort
        }
        "Refresh" => {
            assert_eq!(u8_of(v, "action_code"), 3, "action_code");
            RouteChange::Refresh(actor_route_of(field(v, "route")))
        }
        other => panic!("unknown route change {other:?}"),
    }
}

fn previous_of(v: &Value) -> Option<(NodeRef, Binding)> {
    match field(v, "previous") {
        Value::Null => None,
        p => Some((node_of(field(p, "owner")), binding_of(field(p, "binding")))),
    }
}

fn bool_of(v: &Value, name: &str) -> bool {
    field(v, name)
        .as_bool()
        .unwrap_or_else(|| panic!("{name} must be a boolean: {v}"))
}

/// The session frame a vector's `frame` describes for `command`, and its
/// number (docs/wire.md command table).
fn session_frame_of(command: &str, f: &Value) -> Option<(SessionFrame, u8)> {
    let op = || OperationId(u64_of(f, "operation_id"));
    let session = || session_of(field(f, "session"));
    let actor = || key_of(field(f, "actor"));
    let binding = || binding_of(field(f, "binding"));
    let object_generation = || ObjectGeneration(u64_of(f, "object_generation"));
    let relocation = || RelocationId(u64_of(f, "relocation"));
    Some(match command {
        "SessionBind" => (
            SessionFrame::Bind {
                operation_id: op(),
                session: session(),
                actor: actor(),
                route: actor_route_of(field(f, "route")),
                previous: previous_of(f),
            },
            10,
        ),
        "SessionBindReply" => (
            SessionFrame::BindReply {
                operation_id: op(),
                session: session(),
                actor: actor(),
                result: bind_result_of(field(f, "result")),
            },
            11,
        ),
        "SessionTombstone" => (
            SessionFrame::Tombstone {
                operation_id: op(),
                session: session(),
                actor: actor(),
                binding: binding(),
                by: node_of(field(f, "by")),
            },
            12,
        ),
        "SessionTombstoneAck" => (
            SessionFrame::TombstoneAck {
                operation_id: op(),
                session: session(),
                actor: actor(),
                binding: binding(),
            },
            13,
        ),
        "SessionRelay" => (
            SessionFrame::Relay {
                operation_id: op(),
                session: session(),
                actor: actor(),
                binding: binding(),
                route: actor_route_of(field(f, "route")),
                sequence: u64_of(f, "sequence"),
                hop_count: u8_of(f, "hop_count"),
                relayer: relayer_of(f),
                kind: relay_kind_of(f),
                payload: unhex(str_of(f, "payload_hex")),
            },
            14,
        ),
        "SessionPush" => (
            SessionFrame::Push {
                operation_id: op(),
                session: session(),
                actor: actor(),
                binding: binding(),
                object_generation: object_generation(),
                payload: unhex(str_of(f, "payload_hex")),
            },
            15,
        ),
        "SessionRefused" => (
            SessionFrame::Refused {
                operation_id: op(),
                session: session(),
                actor: actor(),
                reason: session_refusal_of(f),
            },
            16,
        ),
        "SessionRelocationSeal" => (
            SessionFrame::Seal {
                session: session(),
                actor: actor(),
                binding: binding(),
                object_generation: object_generation(),
                relocation: relocation(),
                source: node_of(field(f, "source")),
            },
            42,
        ),
        "SessionRelocationSealed" => (
            SessionFrame::Sealed {
                session: session(),
                actor: actor(),
                relocation: relocation(),
                sealed: bool_of(f, "sealed"),
            },
            43,
        ),
        "SessionRelocationRoute" => (
            SessionFrame::Route {
                session: session(),
                actor: actor(),
                binding: binding(),
                object_generation: object_generation(),
                relocation: relocation(),
                change: route_change_of(field(f, "change")),
            },
            44,
        ),
        _ => return None,
    })
}

fn identity_of(v: &Value) -> RelocationIdentity {
    RelocationIdentity {
        relocation: RelocationId(u64_of(v, "relocation")),
        key: key_of(field(v, "key")),
        object_generation: ObjectGeneration(u64_of(v, "object_generation")),
    }
}

/// A Restore's saved operation: `request` names its kind byte (0 message,
/// 1 request), `operation` is described as a Message or Request body.
fn saved_of(v: &Value) -> Operation {
    let op = operation_of(field(v, "operation"));
    assert_eq!(
        bool_of(v, "request"),
        op.reply_route.is_some(),
        "a saved request, and only it, has a reply route: {v}"
    );
    op
}

fn registration_of(v: &Value) -> Registration {
    Registration {
        session: session_of(field(v, "session")),
        binding: binding_of(field(v, "binding")),
    }
}

fn abort_reason_of(v: &Value) -> AbortReason {
    let (reason, code) = match str_of(v, "reason") {
        "Requested" => (AbortReason::Requested, 1),
        "Timeout" => (AbortReason::Timeout, 2),
        "Refused" => (AbortReason::Refused, 3),
        "RestoreFailed" => (AbortReason::RestoreFailed, 4),
        "CommitFailed" => (AbortReason::CommitFailed, 5),
        other => panic!("unknown abort reason {other:?}"),
    };
    assert_eq!(u8_of(v, "reason_code"), code, "reason_code");
    reason
}

fn list_of<'a>(v: &'a Value, name: &str) -> &'a Vec<Value> {
    field(v, name)
        .as_array()
        .unwrap_or_else(|| panic!("{name} must be a list: {v}"))
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit: the
/// checksum docs/wire.md specifies, computed here without the codec's.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The relocation frame a vector's `frame` describes for `command`, and its
/// number (docs/wire.md command table). A Restore's `checksum` is checked
/// against the vector's bytes by the caller: it is not a field of the frame.
fn relocation_frame_of(command: &str, f: &Value) -> Option<(RelocationFrame, u8)> {
    let identity = || identity_of(field(f, "identity"));
    Some(match command {
        "RelocationRestore" => (
            RelocationFrame::Restore(Box::new(Restore {
                identity: identity(),
                source: node_of(field(f, "source")),
                target: node_of(field(f, "target")),
                from: fence_of(field(f, "from")),
                saved: list_of(f, "saved").iter().map(saved_of).collect(),
                registrations: list_of(f, "registrations")
                    .iter()
                    .map(registration_of)
                    .collect(),
                state: unhex(str_of(f, "state_hex")),
            })),
            45,
        ),
        "RelocationRelayReady" => (
            RelocationFrame::RelayReady {
                identity: identity(),
                target: node_of(field(f, "target")),
                destination: fence_of(field(f, "destination")),
            },
            46,
        ),
        "RelocationCutover" => (
            RelocationFrame::Cutover {
                identity: identity(),
                source: node_of(field(f, "source")),
                relayed: u64_of(f, "relayed"),
            },
            47,
        ),
        "RelocationCommitted" => (
            RelocationFrame::Committed {
                identity: identity(),
                target: node_of(field(f, "target")),
                destination: fence_of(field(f, "destination")),
            },
            48,
        ),
        "RelocationAbort" => (
            RelocationFrame::Abort {
                identity: identity(),
                by: node_of(field(f, "by")),
                reason: abort_reason_of(f),
            },
            49,
        ),
        _ => return None,
    })
}

/// The frame a valid vector's JSON describes, and its command number.
fn expected_frame(json: &Value) -> (Frame, u8) {
    let f = field(json, "frame");
    let (frame, number) = match str_of(json, "command") {
        "Message" => (Frame::Message(operation_of(f)), 1),
        "Request" => (Frame::Request(operation_of(f)), 2),
        "Reply" => (
            Frame::Reply(ReplyFrame {
                correlation: CorrelationId(u64_of(f, "correlation")),
                operation_id: OperationId(u64_of(f, "operation_id")),
                replier: node_of(field(f, "replier")),
                result: reply_result_of(field(f, "result")),
            }),
            3,
        ),
        "Rejection" => (
            Frame::Rejection(RejectionFrame {
                operation_id: OperationId(u64_of(f, "operation_id")),
                target: key_of(field(f, "target")),
                fence: fence_of(field(f, "fence")),
                rejected_by: node_of(field(f, "rejected_by")),
                code: code_of(field(f, "code")),
                reply_route: reply_of(f),
            }),
            4,
        ),
        "MessageFollow" => (
            Frame::MessageFollow(MessageFollowFrame {
                target: key_of(field(f, "target")),
                source: route_end_of(field(f, "source")),
                destination: route_end_of(field(f, "destination")),
                hop_count: u8_of(f, "hop_count"),
                relayed_messages: u64_of(f, "relayed_messages"),
                relayed_bytes: u64_of(f, "relayed_bytes"),
                operation_id: OperationId(u64_of(f, "operation_id")),
                reply_route: reply_of(f),
            }),
            50,
        ),
        other => match (session_frame_of(other, f), relocation_frame_of(other, f)) {
            (Some((frame, number)), _) => (Frame::Session(frame), number),
            (None, Some((frame, number))) => (Frame::Relocation(frame), number),
            (None, None) => panic!("unknown command {other:?}"),
        },
    };
    assert_eq!(u8_of(json, "command_number"), number, "command_number");
    (frame, number)
}

fn kind_of(e: &WireError) -> &'static str {
    match e {
        WireError::Truncated { .. } => "Truncated",
        WireError::BadMagic => "BadMagic",
        WireError::UnsupportedVersion(_) => "UnsupportedVersion",
        WireError::UnknownCommand(_) => "UnknownCommand",
        WireError::FlagsNotAllowed { .. } => "FlagsNotAllowed",
        WireError::LengthMismatch { .. } => "LengthMismatch",
        WireError::TooLong { .. } => "TooLong",
        WireError::Invalid { .. } => "Invalid",
        WireError::TrailingBytes(_) => "TrailingBytes",
    }
}

/// An invalid vector's `limits`. `max_state_bytes` is optional (the
/// Restore vectors state it): absent, it is the default.
fn limits_of(json: &Value) -> DecodeLimits {
    let number = |l: &Value, name: &str| {
        l.get(name).map(|v| {
            v.as_u64()
                .unwrap_or_else(|| panic!("{name} must be a number: {l}")) as usize
        })
    };
    match json.get("limits") {
        None => DecodeLimits::default(),
        Some(l) => DecodeLimits {
            max_object_id_bytes: number(l, "max_object_id_bytes").expect("max_object_id_bytes"),
            max_payload_bytes: number(l, "max_payload_bytes").expect("max_payload_bytes"),
            max_state_bytes: number(l, "max_state_bytes")
                .unwrap_or(DecodeLimits::default().max_state_bytes),
        },
    }
}

// ----------------------------------------------------- golden vectors --

#[test]
fn valid_vectors_decode_to_the_frame_their_json_describes() {
    for v in valid_vectors() {
        let (expected, number) = expected_frame(&v.json);
        let header = field(&v.json, "header");
        assert_eq!(&v.bytes[..2], b"ZL", "{}", v.name);
        assert_eq!(str_of(header, "magic_hex"), "5a4c", "{}", v.name);
        assert_eq!(u8_of(header, "version"), v.bytes[2], "{}", v.name);
        assert_eq!(v.bytes[2], wire::WIRE_VERSION, "{}", v.name);
        assert_eq!(u8_of(header, "command"), number, "{}", v.name);
        assert_eq!(v.bytes[3], number, "{}", v.name);
        assert_eq!((v.bytes[4], v.bytes[5]), (0, 0), "{}", v.name);
        assert_eq!(
            field(header, "body_length").as_u64(),
            Some((v.bytes.len() - HEADER_LEN) as u64),
            "{}",
            v.name
        );
        let decoded = wire::decode(&v.bytes, &DecodeLimits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(decoded, expected, "{}", v.name);
        if number == 45 {
            // The checksum: the last 4 bytes, the CRC-32C of every body
            // byte before them.
            let (covered, sum) = v.bytes[HEADER_LEN..].split_at(v.bytes.len() - HEADER_LEN - 4);
            let sum = u32::from_be_bytes(sum.try_into().expect("4 bytes"));
            assert_eq!(crc32c(covered), sum, "{}: checksum", v.name);
            let described = field(field(&v.json, "frame"), "checksum").as_u64();
            assert_eq!(described, Some(u64::from(sum)), "{}: checksum", v.name);
        }
    }
}

#[test]
fn valid_vectors_are_the_exact_encoding_of_their_json() {
    for v in valid_vectors() {
        let (expected, _) = expected_frame(&v.json);
        let encoded = wire::encode(&expected);
        assert!(
            encoded == v.bytes,
            "{}: encode differs\n  got  {}\n  file {}",
            v.name,
            hex(&encoded),
            hex(&v.bytes)
        );
    }
}

#[test]
fn invalid_vectors_fail_with_the_named_error() {
    for v in invalid_vectors() {
        let want = field(&v.json, "error");
        let err = match wire::decode(&v.bytes, &limits_of(&v.json)) {
            Ok(frame) => panic!("{}: decoded to {frame:?}", v.name),
            Err(e) => e,
        };
        assert_eq!(kind_of(&err), str_of(want, "kind"), "{}: {err}", v.name);
        // The details this codec reports (informative for other codecs).
        let detail = |name: &str| want.get(name).and_then(Value::as_u64).map(|n| n as usize);
        match &err {
            WireError::Truncated { field: f, needed } => {
                assert_eq!(str_of(want, "field"), *f, "{}", v.name);
                assert_eq!(detail("needed"), Some(*needed), "{}", v.name);
            }
            WireError::UnsupportedVersion(n) => {
                assert_eq!(detail("version"), Some(*n as usize), "{}", v.name)
            }
            WireError::UnknownCommand(n) => {
                assert_eq!(detail("command"), Some(*n as usize), "{}", v.name)
            }
            WireError::FlagsNotAllowed { command, flags } => {
                assert_eq!(detail("command"), Some(*command as usize), "{}", v.name);
                assert_eq!(detail("flags"), Some(*flags as usize), "{}", v.name);
            }
            WireError::LengthMismatch { declared, actual } => {
                assert_eq!(detail("declared"), Some(*declared), "{}", v.name);
                assert_eq!(detail("actual"), Some(*actual), "{}", v.name);
            }
            WireError::TooLong { field: f, len, max } => {
                assert_eq!(str_of(want, "field"), *f, "{}", v.name);
                assert_eq!(detail("len"), Some(*len), "{}", v.name);
                assert_eq!(detail("max"), Some(*max), "{}", v.name);
            }
            WireError::Invalid { field: f, .. } => {
                assert_eq!(str_of(want, "field"), *f, "{}", v.name)
            }
            WireError::TrailingBytes(n) => {
                assert_eq!(detail("count"), Some(*n), "{}", v.name)
            }
            WireError::BadMagic => {}
        }
    }
}

#[test]
fn vectors_cover_every_command_rejection_code_and_error_kind() {
    let valid = valid_vectors();
    let mut commands: Vec<String> = valid
        .iter()
        .map(|v| str_of(&v.json, "command").to_owned())
        .collect();
    commands.sort();
    commands.dedup();
    assert_eq!(
        commands,
        [
            "Message",
            "MessageFollow",
            "Rejection",
            "RelocationAbort",
            "RelocationCommitted",
            "RelocationCutover",
            "RelocationRelayReady",
            "RelocationRestore",
            "Reply",
            "Request",
            "SessionBind",
            "SessionBindReply",
            "SessionPush",
            "SessionRefused",
            "SessionRelay",
            "SessionRelocationRoute",
            "SessionRelocationSeal",
            "SessionRelocationSealed",
            "SessionTombstone",
            "SessionTombstoneAck",
        ]
    );
    let mut numbers: Vec<u8> = valid
        .iter()
        .map(|v| u8_of(&v.json, "command_number"))
        .collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(
        numbers,
        [
            1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 16, 42, 43, 44, 45, 46, 47, 48, 49, 50
        ]
    );

    // Rejections: every class/reason code once without a reply route (a
    // refused message), and refused requests carrying theirs.
    let rejections: Vec<((u8, u8), bool)> = valid
        .iter()
        .filter(|v| str_of(&v.json, "command") == "Rejection")
        .map(|v| {
            let frame = field(&v.json, "frame");
            let code = field(frame, "code");
            (
                (u8_of(code, "class_code"), u8_of(code, "reason_code")),
                !field(frame, "reply_route").is_null(),
            )
        })
        .collect();
    let mut codes: Vec<(u8, u8)> = rejections
        .iter()
        .filter(|(_, reply)| !reply)
        .map(|(code, _)| *code)
        .collect();
    codes.sort();
    let all: Vec<(u8, u8)> = (1..=4)
        .map(|r| (1, r))
        .chain((1..=8).map(|r| (2, r)))
        .chain([(3, 0)])
        .collect();
    assert_eq!(codes, all, "one rejection vector per class/reason code");
    let mut with_reply: Vec<u8> = rejections
        .iter()
        .filter(|(_, reply)| *reply)
        .map(|((class, _), _)| *class)
        .collect();
    with_reply.sort();
    with_reply.dedup();
    assert_eq!(
        with_reply,
        [1, 3],
        "a StaleRoute and an InvalidOperation rejection with a reply route"
    );

    let follows: Vec<bool> = valid
        .iter()
        .filter(|v| str_of(&v.json, "command") == "MessageFollow")
        .map(|v| !field(field(&v.json, "frame"), "reply_route").is_null())
        .collect();
    assert!(follows.contains(&true) && follows.contains(&false));

    // Replies: both statuses, both error kinds, an empty and a non-empty
    // payload, a message at the 4096-byte bound.
    let results: Vec<&Value> = valid
        .iter()
        .filter(|v| str_of(&v.json, "command") == "Reply")
        .map(|v| field(field(&v.json, "frame"), "result"))
        .collect();
    let mut statuses: Vec<&str> = results.iter().map(|r| str_of(r, "status")).collect();
    statuses.sort();
    statuses.dedup();
    assert_eq!(statuses, ["Error", "Ok"]);
    let mut error_kinds: Vec<(u8, &str)> = results
        .iter()
        .filter_map(|r| r.get("error"))
        .map(|e| (u8_of(e, "kind_code"), str_of(e, "kind")))
        .collect();
    error_kinds.sort();
    error_kinds.dedup();
    assert_eq!(error_kinds, [(1, "Handler"), (2, "Decode")]);
    let payload_lens: Vec<usize> = results
        .iter()
        .filter_map(|r| r.get("payload_hex"))
        .map(|p| p.as_str().expect("hex").len() / 2)
        .collect();
    assert!(payload_lens.contains(&0) && payload_lens.iter().any(|l| *l > 0));
    assert!(
        results
            .iter()
            .filter_map(|r| r.get("error"))
            .any(|e| str_of(e, "message").len() == MAX_ERROR_MESSAGE_BYTES),
        "a reply error message at MAX_ERROR_MESSAGE_BYTES"
    );

    let mut kinds: Vec<String> = invalid_vectors()
        .iter()
        .map(|v| str_of(field(&v.json, "error"), "kind").to_owned())
        .collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "BadMagic",
            "FlagsNotAllowed",
            "Invalid",
            "LengthMismatch",
            "TooLong",
            "TrailingBytes",
            "Truncated",
            "UnknownCommand",
            "UnsupportedVersion",
        ]
    );
}

/// The session vectors cover every session command and every code of
/// every session table (docs/wire.md), each on its own vector.
#[test]
fn vectors_cover_every_session_command_and_code() {
    let valid = valid_vectors();
    let frames = |command: &str| -> Vec<&Value> {
        valid
            .iter()
            .filter(|v| str_of(&v.json, "command") == command)
            .map(|v| field(&v.json, "frame"))
            .collect()
    };
    let sorted = |mut codes: Vec<u8>| {
        codes.sort();
        codes.dedup();
        codes
    };

    // Bind with and without a previous binding.
    let binds = frames("SessionBind");
    assert!(binds.iter().any(|f| field(f, "previous").is_null()));
    assert!(binds.iter().any(|f| !field(f, "previous").is_null()));

    // Bind reply: Bound (0) and every refusal (1..=6).
    let results = sorted(
        frames("SessionBindReply")
            .iter()
            .map(|f| u8_of(field(f, "result"), "status_code"))
            .collect(),
    );
    assert_eq!(results, [0, 1, 2, 3, 4, 5, 6], "bind results");

    // Relay: every kind, a message with a payload, one after a follow hop.
    let relays = frames("SessionRelay");
    let kinds = sorted(relays.iter().map(|f| u8_of(f, "kind_code")).collect());
    assert_eq!(kinds, [1, 2, 3], "relay kinds");
    assert!(
        relays
            .iter()
            .any(|f| { str_of(f, "kind") == "Message" && !str_of(f, "payload_hex").is_empty() })
    );
    assert!(relays.iter().any(|f| u8_of(f, "hop_count") == 1));

    let refusals = sorted(
        frames("SessionRefused")
            .iter()
            .map(|f| u8_of(f, "reason_code"))
            .collect(),
    );
    assert_eq!(refusals, [1, 2, 3], "session refusals");

    let routes = frames("SessionRelocationRoute");
    let changes = sorted(
        routes
            .iter()
            .map(|f| u8_of(field(f, "change"), "action_code"))
            .collect(),
    );
    assert_eq!(changes, [1, 2, 3], "route changes");
    // A refresh is not a relocation: it travels with relocation id 0.
    for f in &routes {
        if str_of(field(f, "change"), "action") == "Refresh" {
            assert_eq!(u64_of(f, "relocation"), 0, "a refresh's relocation: {f}");
        }
    }

    let mut sealed: Vec<bool> = frames("SessionRelocationSealed")
        .iter()
        .map(|f| bool_of(f, "sealed"))
        .collect();
    sealed.sort();
    sealed.dedup();
    assert_eq!(sealed, [false, true], "sealed flags");

    // Edge values: some session vector holds 2^53+1 and u64::MAX, as
    // decimal strings.
    let session_text: String = valid
        .iter()
        .filter(|v| str_of(&v.json, "command").starts_with("Session"))
        .map(|v| v.json.to_string())
        .collect();
    for n in ["9007199254740993", "18446744073709551615"] {
        assert!(
            session_text.contains(&format!("\"{n}\"")),
            "{n} as a string"
        );
    }

    // Invalid session vectors: every code byte outside its table, a
    // presence/flag byte not 0/1, truncations and trailing bytes.
    let invalid = invalid_vectors();
    let fields: Vec<&str> = invalid
        .iter()
        .filter(|v| v.name.contains("session"))
        .filter_map(|v| field(&v.json, "error").get("field").and_then(Value::as_str))
        .collect();
    for f in [
        "bind result",
        "relay kind",
        "session refusal",
        "route change",
        "previous binding presence",
        "sealed",
    ] {
        assert!(fields.contains(&f), "an invalid session vector for {f}");
    }
    for kind in ["Truncated", "TrailingBytes", "TooLong", "FlagsNotAllowed"] {
        assert!(
            invalid
                .iter()
                .any(|v| v.name.contains("session")
                    && str_of(field(&v.json, "error"), "kind") == kind),
            "a {kind} session vector"
        );
    }
}

#[test]
fn session_u64_fields_around_2p53_and_max_are_exact() {
    let vectors = load(&vector_dir());
    let frame_of = |name: &str| {
        let v = vectors
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("vector {name}"));
        match wire::decode(&v.bytes, &DecodeLimits::default()) {
            Ok(Frame::Session(f)) => f,
            other => panic!("{name}: {other:?}"),
        }
    };
    match frame_of("session_relay_around_2p53") {
        SessionFrame::Relay {
            session,
            sequence,
            binding,
            route,
            ..
        } => {
            assert_eq!(session.id, SessionId((1 << 53) + 1));
            assert_eq!(sequence, (1 << 53) + 1);
            assert_eq!(binding.token, BindingToken((1 << 53) + 1));
            assert_eq!(route.lease_remaining_ms, (1 << 53) + 1);
        }
        other => panic!("{other:?}"),
    }
    match frame_of("session_relocation_route_commit_all_u64_max") {
        SessionFrame::Route {
            relocation,
            change: RouteChange::Commit(route),
            ..
        } => {
            assert_eq!(relocation, RelocationId(u64::MAX));
            assert_eq!(route.lease_remaining_ms, u64::MAX);
        }
        other => panic!("{other:?}"),
    }
    match frame_of("session_relocation_route_refresh_around_2p53") {
        SessionFrame::Route {
            session,
            binding,
            object_generation,
            relocation,
            change: RouteChange::Refresh(route),
            ..
        } => {
            assert_eq!(session.id, SessionId((1 << 53) + 1));
            assert_eq!(binding.token, BindingToken((1 << 53) + 1));
            assert_eq!(object_generation, ObjectGeneration((1 << 53) - 1));
            assert_eq!(relocation, RelocationId(0));
            assert_eq!(route.object_generation, object_generation);
            assert_eq!(
                route.authority_owner_generation,
                AuthorityOwnerGeneration((1 << 53) + 1)
            );
            assert_eq!(route.lease_remaining_ms, u64::MAX);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn u64_fields_past_2p53_are_strings_in_the_json() {
    let v = load(&vector_dir())
        .into_iter()
        .find(|v| v.name == "request_generations_around_2p53")
        .expect("the 2^53 vector");
    let text = v.json.to_string();
    for n in ["9007199254740991", "9007199254740992", "9007199254740993"] {
        assert!(text.contains(&format!("\"{n}\"")), "{n} as a string");
    }
}

#[test]
fn reply_correlation_and_operation_id_past_2p53_are_exact() {
    let vectors = load(&vector_dir());
    let frame_of = |name: &str| {
        let v = vectors
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("vector {name}"));
        match wire::decode(&v.bytes, &DecodeLimits::default()) {
            Ok(Frame::Reply(r)) => r,
            other => panic!("{name}: {other:?}"),
        }
    };
    let r = frame_of("reply_ok_around_2p53");
    assert_eq!(r.correlation, CorrelationId((1 << 53) + 1));
    assert_eq!(r.operation_id, OperationId((1 << 53) - 1));
    let r = frame_of("reply_error_all_u64_max");
    assert_eq!(r.correlation, CorrelationId(u64::MAX));
    assert_eq!(r.operation_id, OperationId(u64::MAX));
    let r = frame_of("reply_ok_correlation_u64_max_minus_1");
    assert_eq!(r.correlation, CorrelationId(u64::MAX - 1));
    assert_eq!(r.operation_id, OperationId(1 << 53));
}

// ------------------------------------------------------ codec properties --

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// Mostly edge values: 0, 1, around 2^32, 2^53 and u64::MAX.
    fn u64(&mut self) -> u64 {
        const EDGES: [u64; 9] = [
            0,
            1,
            2,
            u32::MAX as u64,
            (1 << 53) - 1,
            1 << 53,
            (1 << 53) + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        if self.bool() {
            EDGES[self.below(EDGES.len() as u64) as usize]
        } else {
            self.next() >> self.below(64)
        }
    }

    fn text(&mut self, min: usize, max_bytes: usize) -> String {
        const CHARS: [char; 10] = ['a', 'Z', '0', '/', ':', 'é', 'ß', 'ユ', '🦀', '\u{0}'];
        let mut s = String::new();
        let target = min + self.below((max_bytes - min + 1) as u64) as usize;
        while s.len() < target.max(min) {
            let c = CHARS[self.below(CHARS.len() as u64) as usize];
            if s.len() + c.len_utf8() > max_bytes {
                break;
            }
            s.push(c);
        }
        if s.is_empty() {
            s.push('x');
        }
        s
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let len = self.below(max as u64 + 1) as usize;
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn random_key(rng: &mut Rng) -> ObjectKey {
    let kind = if rng.bool() {
        ObjectKind::Spot
    } else {
        ObjectKind::Actor
    };
    ObjectKey::new(kind, &rng.text(1, 64)).expect("1..=64 bytes")
}

fn random_node(rng: &mut Rng) -> NodeRef {
    NodeRef {
        mesh: MeshName::new(&rng.text(1, 23)).expect("1..=23 bytes"),
        rid: NodeRid(rng.u64()),
        generation: NodeGeneration(rng.u64()),
    }
}

fn random_fence(rng: &mut Rng) -> RouteFence {
    RouteFence {
        object_generation: ObjectGeneration(rng.u64()),
        authority_owner_generation: AuthorityOwnerGeneration(rng.u64()),
        owner_lease_generation: OwnerLeaseGeneration(rng.u64()),
        node_generation: NodeGeneration(rng.u64()),
        store_version: StoreVersion(rng.u64()),
    }
}

fn random_reply(rng: &mut Rng) -> ReplyRoute {
    ReplyRoute {
        node: random_node(rng),
        correlation: CorrelationId(rng.u64()),
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

fn random_reply_frame(rng: &mut Rng) -> ReplyFrame {
    let result = if rng.bool() {
        ReplyResult::Ok(rng.bytes(300))
    } else {
        let kind = if rng.bool() {
            ReplyErrorKind::Handler
        } else {
            ReplyErrorKind::Decode
        };
        let message = match rng.below(8) {
            0 => String::new(),
            1 => rng.text(MAX_ERROR_MESSAGE_BYTES - 8, MAX_ERROR_MESSAGE_BYTES),
            _ => rng.text(1, 200),
        };
        ReplyResult::Error(ReplyError {
            kind,
            code: rng.next() as u32,
            message,
        })
    };
    ReplyFrame {
        correlation: CorrelationId(rng.u64()),
        operation_id: OperationId(rng.u64()),
        replier: random_node(rng),
        result,
    }
}

fn random_session(rng: &mut Rng) -> SessionRef {
    SessionRef {
        owner: random_node(rng),
        id: SessionId(rng.u64()),
        generation: SessionGeneration(rng.u64()),
    }
}

fn random_binding(rng: &mut Rng) -> Binding {
    Binding {
        generation: BindingGeneration(rng.u64()),
        token: BindingToken(rng.u64()),
    }
}

fn random_actor_route(rng: &mut Rng) -> ActorRoute {
    ActorRoute {
        owner: random_node(rng),
        object_generation: ObjectGeneration(rng.u64()),
        authority_owner_generation: AuthorityOwnerGeneration(rng.u64()),
        owner_lease_generation: OwnerLeaseGeneration(rng.u64()),
        lease_remaining_ms: rng.u64(),
    }
}

const BIND_REFUSALS: [BindRefusal; 5] = [
    BindRefusal::NotOwner,
    BindRefusal::ObjectGeneration,
    BindRefusal::NodeGeneration,
    BindRefusal::OwnerGeneration,
    BindRefusal::OwnerLease,
];
const RELAY_KINDS: [RelayKind; 3] = [
    RelayKind::Message,
    RelayKind::PhysicalDisconnect,
    RelayKind::LogicalDisconnect,
];
const SESSION_REFUSALS: [SessionRefusal; 3] = [
    SessionRefusal::UnknownBinding,
    SessionRefusal::StaleRoute,
    SessionRefusal::ObjectGeneration,
];

/// A random frame of each session command in turn (`which` % 10).
fn random_session_frame(rng: &mut Rng, which: u64) -> SessionFrame {
    let operation_id = OperationId(rng.u64());
    let session = random_session(rng);
    let actor = random_key(rng);
    match which % 10 {
        0 => SessionFrame::Bind {
            operation_id,
            session,
            actor,
            route: random_actor_route(rng),
            previous: rng.bool().then(|| (random_node(rng), random_binding(rng))),
        },
        1 => SessionFrame::BindReply {
            operation_id,
            session,
            actor,
            result: match rng.below(6) {
                0 => BindResult::Bound {
                    route: random_actor_route(rng),
                    binding: random_binding(rng),
                },
                n => BindResult::Refused(BIND_REFUSALS[n as usize - 1]),
            },
        },
        2 => SessionFrame::Tombstone {
            operation_id,
            session,
            actor,
            binding: random_binding(rng),
            by: random_node(rng),
        },
        3 => SessionFrame::TombstoneAck {
            operation_id,
            session,
            actor,
            binding: random_binding(rng),
        },
        4 => {
            let hop_count = rng.next() as u8;
            SessionFrame::Relay {
                operation_id,
                session,
                actor,
                binding: random_binding(rng),
                route: random_actor_route(rng),
                sequence: rng.u64(),
                hop_count,
                relayer: (hop_count > 0).then(|| random_node(rng)),
                kind: RELAY_KINDS[rng.below(3) as usize],
                payload: rng.bytes(300),
            }
        }
        5 => SessionFrame::Push {
            operation_id,
            session,
            actor,
            binding: random_binding(rng),
            object_generation: ObjectGeneration(rng.u64()),
            payload: rng.bytes(300),
        },
        6 => SessionFrame::Refused {
            operation_id,
            session,
            actor,
            reason: SESSION_REFUSALS[rng.below(3) as usize],
        },
        7 => SessionFrame::Seal {
            session,
            actor,
            binding: random_binding(rng),
            object_generation: ObjectGeneration(rng.u64()),
            relocation: RelocationId(rng.u64()),
            source: random_node(rng),
        },
        8 => SessionFrame::Sealed {
            session,
            actor,
            relocation: RelocationId(rng.u64()),
            sealed: rng.bool(),
        },
        _ => SessionFrame::Route {
            session,
            actor,
            binding: random_binding(rng),
            object_generation: ObjectGeneration(rng.u64()),
            relocation: RelocationId(rng.u64()),
            change: match rng.below(3) {
                0 => RouteChange::Commit(random_actor_route(rng)),
                1 => RouteChange::Abort,
                _ => RouteChange::Refresh(random_actor_route(rng)),
            },
        },
    }
}

fn random_frame(rng: &mut Rng) -> Frame {
    match rng.below(7) {
        5 | 6 => {
            let which = rng.below(10);
            Frame::Session(random_session_frame(rng, which))
        }
        0 | 1 => {
            let request = rng.bool();
            let hop_count = rng.next() as u8;
            let op = Operation {
                operation_id: OperationId(rng.u64()),
                target: random_key(rng),
                origin: random_node(rng),
                to_node: NodeRid(rng.u64()),
                fence: random_fence(rng),
                object_generation: ObjectGeneration(rng.u64()),
                hop_count,
                relayer: (hop_count > 0).then(|| random_node(rng)),
                reply_route: request.then(|| random_reply(rng)),
                payload: rng.bytes(300),
            };
            if request {
                Frame::Request(op)
            } else {
                Frame::Message(op)
            }
        }
        2 => {
            let code = match rng.below(3) {
                0 => RejectionCode::StaleRoute(STALE[rng.below(4) as usize]),
                1 => RejectionCode::Unavailable(
                    UNAVAILABLE[rng.below(UNAVAILABLE.len() as u64) as usize],
                ),
                _ => RejectionCode::InvalidOperation,
            };
            Frame::Rejection(RejectionFrame {
                operation_id: OperationId(rng.u64()),
                target: random_key(rng),
                fence: random_fence(rng),
                rejected_by: random_node(rng),
                code,
                reply_route: rng.bool().then(|| random_reply(rng)),
            })
        }
        3 => Frame::Reply(random_reply_frame(rng)),
        _ => Frame::MessageFollow(MessageFollowFrame {
            target: random_key(rng),
            source: RouteEnd {
                node: random_node(rng),
                fence: random_fence(rng),
            },
            destination: RouteEnd {
                node: random_node(rng),
                fence: random_fence(rng),
            },
            hop_count: rng.next() as u8,
            relayed_messages: rng.u64(),
            relayed_bytes: rng.u64(),
            operation_id: OperationId(rng.u64()),
            reply_route: rng.bool().then(|| random_reply(rng)),
        }),
    }
}

#[test]
fn generated_frames_round_trip() {
    let mut rng = Rng(0x5eed_0f2a_11c0_de01);
    let limits = DecodeLimits::default();
    for i in 0..5000 {
        let frame = random_frame(&mut rng);
        let bytes = wire::encode(&frame);
        let back = wire::decode(&bytes, &limits).unwrap_or_else(|e| panic!("#{i}: {e}"));
        assert_eq!(back, frame, "#{i}");
        assert_eq!(wire::encode(&back), bytes, "#{i}");
    }
}

#[test]
fn generated_session_frames_of_every_command_round_trip() {
    let mut rng = Rng(0x5e55_10f2_a11c_0de4);
    let limits = DecodeLimits::default();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..3000 {
        let frame = random_session_frame(&mut rng, i);
        let bytes = wire::encode(&Frame::Session(frame.clone()));
        assert_eq!(bytes[3], frame.command(), "#{i}");
        seen.insert(bytes[3]);
        let back = wire::decode(&bytes, &limits).unwrap_or_else(|e| panic!("#{i}: {e}"));
        assert_eq!(back, Frame::Session(frame), "#{i}");
        assert_eq!(wire::encode(&back), bytes, "#{i}");
        // Every cut of the body runs out: never Invalid, never a panic.
        if i < 200 {
            for body_len in 0..bytes.len() - HEADER_LEN {
                let err = wire::decode(&cut_body(&bytes, body_len), &limits)
                    .expect_err("a cut body fails");
                assert_eq!(kind_of(&err), "Truncated", "#{i} cut to {body_len}: {err}");
            }
        }
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        [10, 11, 12, 13, 14, 15, 16, 42, 43, 44]
    );
}

fn session_ref() -> SessionRef {
    SessionRef {
        owner: message("x", Vec::new()).origin,
        id: SessionId(7),
        generation: SessionGeneration(2),
    }
}

fn actor_key(id: &str) -> ObjectKey {
    ObjectKey::new(ObjectKind::Actor, id).expect("a valid ID")
}

fn a_route() -> ActorRoute {
    ActorRoute {
        owner: message("x", Vec::new()).origin,
        object_generation: ObjectGeneration(4),
        authority_owner_generation: AuthorityOwnerGeneration(2),
        owner_lease_generation: OwnerLeaseGeneration(9),
        lease_remaining_ms: 0,
    }
}

fn a_binding() -> Binding {
    Binding {
        generation: BindingGeneration(1),
        token: BindingToken(9001),
    }
}

/// Sets body byte `at` (counted from the end of the frame: 1 is the last
/// byte) to every value: the table's values decode (or, when they need
/// more bytes, run out), every other one is Invalid with `field`.
fn check_code_byte(
    frame: SessionFrame,
    from_end: usize,
    field_name: &str,
    defined: &[u8],
    needs_more: &[u8],
) {
    let bytes = wire::encode(&Frame::Session(frame));
    let at = bytes.len() - from_end;
    for value in 0..=u8::MAX {
        let mut edited = bytes.clone();
        edited[at] = value;
        let result = wire::decode(&edited, &DecodeLimits::default());
        if needs_more.contains(&value) {
            assert!(
                matches!(result, Err(WireError::Truncated { .. })),
                "{field_name} {value}: {result:?}"
            );
        } else if defined.contains(&value) {
            let frame = result.unwrap_or_else(|e| panic!("{field_name} {value}: {e}"));
            assert_eq!(wire::encode(&frame), edited, "{field_name} {value}");
        } else {
            match result {
                Err(WireError::Invalid { field, .. }) => {
                    assert_eq!(field, field_name, "{field_name} {value}")
                }
                other => panic!("{field_name} {value}: {other:?}"),
            }
        }
    }
}

#[test]
fn session_codes_outside_their_tables_are_invalid() {
    let (op, session, actor) = (OperationId(1), session_ref(), actor_key("a"));
    check_code_byte(
        SessionFrame::Bind {
            operation_id: op,
            session,
            actor: actor.clone(),
            route: a_route(),
            previous: None,
        },
        1,
        "previous binding presence",
        &[0],
        &[1],
    );
    check_code_byte(
        SessionFrame::BindReply {
            operation_id: op,
            session,
            actor: actor.clone(),
            result: BindResult::Refused(BindRefusal::OwnerLease),
        },
        1,
        "bind result",
        &[1, 2, 3, 4, 5, 6],
        &[0],
    );
    check_code_byte(
        SessionFrame::Relay {
            operation_id: op,
            session,
            actor: actor.clone(),
            binding: a_binding(),
            route: a_route(),
            sequence: 1,
            hop_count: 0,
            relayer: None,
            kind: RelayKind::Message,
            payload: Vec::new(),
        },
        // kind, then the 4-byte payload length of an empty payload.
        5,
        "relay kind",
        &[1, 2, 3],
        &[],
    );
    check_code_byte(
        SessionFrame::Refused {
            operation_id: op,
            session,
            actor: actor.clone(),
            reason: SessionRefusal::UnknownBinding,
        },
        1,
        "session refusal",
        &[1, 2, 3],
        &[],
    );
    check_code_byte(
        SessionFrame::Sealed {
            session,
            actor: actor.clone(),
            relocation: RelocationId(61),
            sealed: false,
        },
        1,
        "sealed",
        &[0, 1],
        &[],
    );
    check_code_byte(
        SessionFrame::Route {
            session,
            actor,
            binding: a_binding(),
            object_generation: ObjectGeneration(4),
            relocation: RelocationId(61),
            change: RouteChange::Abort,
        },
        1,
        "route change",
        &[2],
        // Commit and refresh: a route follows.
        &[1, 3],
    );
}

#[test]
fn every_session_code_round_trips_to_its_documented_number() {
    let (op, session, actor) = (OperationId(1), session_ref(), actor_key("a"));
    let last = |f: SessionFrame| *wire::encode(&Frame::Session(f)).last().expect("a body");
    for (i, why) in BIND_REFUSALS.into_iter().enumerate() {
        let f = SessionFrame::BindReply {
            operation_id: op,
            session,
            actor: actor.clone(),
            result: BindResult::Refused(why),
        };
        assert_eq!(last(f) as usize, i + 1, "{why:?}");
    }
    for (i, reason) in SESSION_REFUSALS.into_iter().enumerate() {
        let f = SessionFrame::Refused {
            operation_id: op,
            session,
            actor: actor.clone(),
            reason,
        };
        assert_eq!(last(f) as usize, i + 1, "{reason:?}");
    }
    for (i, kind) in RELAY_KINDS.into_iter().enumerate() {
        let bytes = wire::encode(&Frame::Session(SessionFrame::Relay {
            operation_id: op,
            session,
            actor: actor.clone(),
            binding: a_binding(),
            route: a_route(),
            sequence: 1,
            hop_count: 0,
            relayer: None,
            kind,
            payload: Vec::new(),
        }));
        assert_eq!(bytes[bytes.len() - 5] as usize, i + 1, "{kind:?}");
    }
    for (sealed, byte) in [(false, 0), (true, 1)] {
        let f = SessionFrame::Sealed {
            session,
            actor: actor.clone(),
            relocation: RelocationId(1),
            sealed,
        };
        assert_eq!(last(f), byte);
    }
    // The change byte ends an abort; a commit or refresh puts its route
    // after it.
    let route_frame = |change| {
        wire::encode(&Frame::Session(SessionFrame::Route {
            session,
            actor: actor.clone(),
            binding: a_binding(),
            object_generation: ObjectGeneration(4),
            relocation: RelocationId(0),
            change,
        }))
    };
    let at = route_frame(RouteChange::Abort).len() - 1;
    for (change, byte) in [
        (RouteChange::Commit(a_route()), 1),
        (RouteChange::Abort, 2),
        (RouteChange::Refresh(a_route()), 3),
    ] {
        assert_eq!(route_frame(change)[at], byte, "{change:?}");
    }
}

#[test]
fn decode_limits_bound_session_ids_and_payloads() {
    let limits = DecodeLimits {
        max_object_id_bytes: 8,
        max_payload_bytes: 16,
        ..DecodeLimits::default()
    };
    let relay = |id: &str, payload: usize| {
        Frame::Session(SessionFrame::Relay {
            operation_id: OperationId(1),
            session: session_ref(),
            actor: actor_key(id),
            binding: a_binding(),
            route: a_route(),
            sequence: 1,
            hop_count: 0,
            relayer: None,
            kind: RelayKind::Message,
            payload: vec![7; payload],
        })
    };
    let push = |payload: usize| {
        Frame::Session(SessionFrame::Push {
            operation_id: OperationId(1),
            session: session_ref(),
            actor: actor_key("a"),
            binding: a_binding(),
            object_generation: ObjectGeneration(4),
            payload: vec![7; payload],
        })
    };
    assert!(wire::decode(&wire::encode(&relay("12345678", 16)), &limits).is_ok());
    assert!(wire::decode(&wire::encode(&push(16)), &limits).is_ok());
    assert_eq!(
        wire::decode(&wire::encode(&relay("123456789", 0)), &limits),
        Err(WireError::TooLong {
            field: "object id",
            len: 9,
            max: 8
        })
    );
    for frame in [relay("a", 17), push(17)] {
        let bytes = wire::encode(&frame);
        assert!(wire::decode(&bytes, &DecodeLimits::default()).is_ok());
        assert_eq!(
            wire::decode(&bytes, &limits),
            Err(WireError::TooLong {
                field: "payload",
                len: 17,
                max: 16
            })
        );
    }
}

#[test]
fn session_commands_take_no_flags() {
    let frame = Frame::Session(SessionFrame::Sealed {
        session: session_ref(),
        actor: actor_key("a"),
        relocation: RelocationId(1),
        sealed: true,
    });
    let bytes = wire::encode(&frame);
    for command in [10, 11, 12, 13, 14, 15, 16, 42, 43, 44] {
        for flags in [1, 0x80] {
            let mut flagged = with_command(bytes.clone(), command);
            flagged[4] = flags;
            assert_eq!(
                wire::decode(&flagged, &DecodeLimits::default()),
                Err(WireError::FlagsNotAllowed { command, flags }),
                "command {command}"
            );
        }
    }
    // The commands around the session ranges stay unknown (45..=49 are
    // the relocation commands).
    for command in [5, 9, 17, 41, 51, 255] {
        assert_eq!(
            wire::decode(
                &with_command(bytes.clone(), command),
                &DecodeLimits::default()
            ),
            Err(WireError::UnknownCommand(command))
        );
    }
}

#[test]
fn every_rejection_code_round_trips() {
    let mut rng = Rng(7);
    let codes = STALE
        .map(RejectionCode::StaleRoute)
        .into_iter()
        .chain(UNAVAILABLE.map(RejectionCode::Unavailable))
        .chain([RejectionCode::InvalidOperation]);
    for code in codes {
        // A refused message (no reply route) and a refused request (its
        // reply route): any code goes with either.
        for reply in [false, true] {
            let frame = Frame::Rejection(RejectionFrame {
                operation_id: OperationId(1),
                target: random_key(&mut rng),
                fence: random_fence(&mut rng),
                rejected_by: random_node(&mut rng),
                code,
                reply_route: reply.then(|| random_reply(&mut rng)),
            });
            let bytes = wire::encode(&frame);
            assert_eq!(
                wire::decode(&bytes, &DecodeLimits::default()),
                Ok(frame),
                "{code:?}, reply route {reply}"
            );
        }
    }
}

/// The reply route comes last in a Rejection body, after class and reason:
/// its presence byte is read as such, never as part of the code.
#[test]
fn a_rejection_carries_its_reply_route_after_class_and_reason() {
    let mut frame = RejectionFrame {
        operation_id: OperationId(2),
        target: ObjectKey::new(ObjectKind::Spot, "s").expect("a valid ID"),
        fence: message("x", Vec::new()).fence,
        rejected_by: message("x", Vec::new()).origin,
        code: RejectionCode::StaleRoute(StaleReason::NodeMismatch),
        reply_route: None,
    };
    let without = wire::encode(&Frame::Rejection(frame.clone()));
    // operation id, target ("s"), fence, rejecting node ("main").
    let class_at = HEADER_LEN + 8 + 3 + 1 + 40 + 17 + 4;
    assert_eq!(&without[class_at..], &[1, 2, 0]);
    for presence in 2..=u8::MAX {
        let mut bytes = without.clone();
        bytes[class_at + 2] = presence;
        assert!(
            matches!(
                wire::decode(&bytes, &DecodeLimits::default()),
                Err(WireError::Invalid {
                    field: "reply route presence",
                    ..
                })
            ),
            "presence {presence}"
        );
    }

    let route = ReplyRoute {
        node: frame.rejected_by,
        correlation: CorrelationId(77),
    };
    frame.reply_route = Some(route);
    let with = wire::encode(&Frame::Rejection(frame.clone()));
    assert_eq!(with.len(), without.len() + 25 + 4);
    // The same body up to the reason byte, then presence 1, node and
    // correlation.
    assert_eq!(
        with[HEADER_LEN..class_at + 2],
        without[HEADER_LEN..class_at + 2]
    );
    assert_eq!(with[class_at + 2], 1);
    assert_eq!(&with[with.len() - 8..], &77u64.to_be_bytes());
    assert_eq!(
        wire::decode(&with, &DecodeLimits::default()),
        Ok(Frame::Rejection(frame))
    );
}

/// Cut `bytes` to `len`, with the header's body length left as it was.
fn cut(bytes: &[u8], len: usize) -> Vec<u8> {
    bytes[..len].to_vec()
}

/// Cut the body to `body_len` and make the header agree, so the body
/// decoder itself meets the end.
fn cut_body(bytes: &[u8], body_len: usize) -> Vec<u8> {
    let mut out = bytes[..HEADER_LEN + body_len].to_vec();
    out[6..10].copy_from_slice(&(body_len as u32).to_be_bytes());
    out
}

#[test]
fn every_truncation_of_every_valid_vector_is_an_error() {
    let limits = DecodeLimits::default();
    for v in valid_vectors() {
        for len in 0..v.bytes.len() {
            let err = wire::decode(&cut(&v.bytes, len), &limits)
                .expect_err(&format!("{} cut to {len}", v.name));
            let want = if len < HEADER_LEN {
                "Truncated"
            } else {
                "LengthMismatch"
            };
            assert_eq!(kind_of(&err), want, "{} cut to {len}: {err}", v.name);
        }
        for body_len in 0..v.bytes.len() - HEADER_LEN {
            let err = wire::decode(&cut_body(&v.bytes, body_len), &limits)
                .expect_err(&format!("{} body cut to {body_len}", v.name));
            // Every field is read before it is judged, so a prefix of a
            // valid body always runs out first: never Invalid, never a panic.
            assert_eq!(
                kind_of(&err),
                "Truncated",
                "{} body cut to {body_len}: {err}",
                v.name
            );
        }
    }
}

fn message(id: &str, payload: Vec<u8>) -> Operation {
    Operation {
        operation_id: OperationId(9),
        target: ObjectKey::new(ObjectKind::Actor, id).expect("a valid ID"),
        origin: NodeRef {
            mesh: MeshName::new("main").expect("a valid mesh name"),
            rid: NodeRid(1),
            generation: NodeGeneration(1),
        },
        to_node: NodeRid(2),
        fence: RouteFence {
            object_generation: ObjectGeneration(1),
            authority_owner_generation: AuthorityOwnerGeneration(1),
            owner_lease_generation: OwnerLeaseGeneration(1),
            node_generation: NodeGeneration(1),
            store_version: StoreVersion(1),
        },
        object_generation: ObjectGeneration(1),
        hop_count: 0,
        relayer: None,
        reply_route: None,
        payload,
    }
}

fn follow(id: &str) -> MessageFollowFrame {
    let end = RouteEnd {
        node: NodeRef {
            mesh: MeshName::new("main").expect("a valid mesh name"),
            rid: NodeRid(2),
            generation: NodeGeneration(1),
        },
        fence: message("x", Vec::new()).fence,
    };
    MessageFollowFrame {
        target: ObjectKey::new(ObjectKind::Spot, id).expect("a valid ID"),
        source: end,
        destination: end,
        hop_count: 1,
        relayed_messages: 1,
        relayed_bytes: 0,
        operation_id: OperationId(9),
        reply_route: None,
    }
}

#[test]
fn decode_limits_bound_the_object_id() {
    let limits = DecodeLimits {
        max_object_id_bytes: 8,
        max_payload_bytes: 1 << 20,
        ..DecodeLimits::default()
    };
    let at_limit = wire::encode(&Frame::Message(message("12345678", Vec::new())));
    assert!(wire::decode(&at_limit, &limits).is_ok());
    for frame in [
        Frame::Message(message("123456789", Vec::new())),
        Frame::Rejection(RejectionFrame {
            operation_id: OperationId(1),
            target: ObjectKey::new(ObjectKind::Spot, "123456789").unwrap(),
            fence: message("x", Vec::new()).fence,
            rejected_by: message("x", Vec::new()).origin,
            code: RejectionCode::InvalidOperation,
            reply_route: Some(ReplyRoute {
                node: message("x", Vec::new()).origin,
                correlation: CorrelationId(5),
            }),
        }),
        Frame::MessageFollow(follow("123456789")),
    ] {
        let bytes = wire::encode(&frame);
        assert!(wire::decode(&bytes, &DecodeLimits::default()).is_ok());
        assert_eq!(
            wire::decode(&bytes, &limits),
            Err(WireError::TooLong {
                field: "object id",
                len: 9,
                max: 8
            })
        );
    }
}

#[test]
fn decode_limits_bound_the_payload() {
    let limits = DecodeLimits {
        max_object_id_bytes: 1024,
        max_payload_bytes: 16,
        ..DecodeLimits::default()
    };
    let ok = wire::encode(&Frame::Message(message("a", vec![7; 16])));
    assert!(wire::decode(&ok, &limits).is_ok());
    let over = wire::encode(&Frame::Message(message("a", vec![7; 17])));
    assert_eq!(
        wire::decode(&over, &limits),
        Err(WireError::TooLong {
            field: "payload",
            len: 17,
            max: 16
        })
    );
    let mut request = message("a", vec![7; 17]);
    request.reply_route = Some(ReplyRoute {
        node: request.origin,
        correlation: CorrelationId(3),
    });
    let over = wire::encode(&Frame::Request(request));
    assert!(matches!(
        wire::decode(&over, &limits),
        Err(WireError::TooLong {
            field: "payload",
            ..
        })
    ));
    // A zero bound admits only empty payloads.
    let zero = DecodeLimits {
        max_payload_bytes: 0,
        ..limits
    };
    assert!(wire::decode(&wire::encode(&Frame::Message(message("a", vec![]))), &zero).is_ok());
    assert!(wire::decode(&wire::encode(&Frame::Message(message("a", vec![0]))), &zero).is_err());
}

/// Sets the command byte and leaves everything else as it was.
fn with_command(mut bytes: Vec<u8>, command: u8) -> Vec<u8> {
    bytes[3] = command;
    bytes
}

#[test]
fn a_reply_route_on_a_message_is_refused() {
    let mut op = message("a", b"x".to_vec());
    op.reply_route = Some(ReplyRoute {
        node: op.origin,
        correlation: CorrelationId(1),
    });
    let request = wire::encode(&Frame::Request(op.clone()));
    assert!(wire::decode(&request, &DecodeLimits::default()).is_ok());
    let err = wire::decode(&with_command(request, 1), &DecodeLimits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            WireError::Invalid {
                field: "reply route",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_request_without_a_reply_route_is_refused() {
    let message = wire::encode(&Frame::Message(message("a", b"x".to_vec())));
    assert!(wire::decode(&message, &DecodeLimits::default()).is_ok());
    let err = wire::decode(&with_command(message, 2), &DecodeLimits::default()).unwrap_err();
    assert!(
        matches!(
            err,
            WireError::Invalid {
                field: "reply route",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn command_50_with_any_flag_bit_is_refused() {
    for reply in [false, true] {
        let mut frame = follow("s");
        if reply {
            frame.reply_route = Some(ReplyRoute {
                node: frame.source.node,
                correlation: CorrelationId(4),
            });
        }
        let bytes = wire::encode(&Frame::MessageFollow(frame));
        assert_eq!(bytes[3], 50);
        assert!(wire::decode(&bytes, &DecodeLimits::default()).is_ok());
        for flags in 1..=u8::MAX {
            let mut flagged = bytes.clone();
            flagged[4] = flags;
            assert_eq!(
                wire::decode(&flagged, &DecodeLimits::default()),
                Err(WireError::FlagsNotAllowed { command: 50, flags }),
                "flags {flags:#04x}"
            );
        }
        for reserved in 1..=u8::MAX {
            let mut flagged = bytes.clone();
            flagged[5] = reserved;
            assert!(
                matches!(
                    wire::decode(&flagged, &DecodeLimits::default()),
                    Err(WireError::FlagsNotAllowed { command: 50, .. })
                ),
                "reserved {reserved:#04x}"
            );
        }
    }
}

#[test]
fn encode_writes_the_header_the_docs_describe() {
    let frame = Frame::MessageFollow(follow("s"));
    let bytes = wire::encode(&frame);
    assert_eq!(&bytes[..2], &wire::MAGIC);
    assert_eq!(bytes[2], wire::WIRE_VERSION);
    assert_eq!(bytes[3], wire::Command::MessageFollow as u8);
    assert_eq!(&bytes[4..6], &[0, 0]);
    let body_len = u32::from_be_bytes(bytes[6..10].try_into().unwrap()) as usize;
    assert_eq!(body_len, bytes.len() - HEADER_LEN);
}

fn reply(result: ReplyResult) -> ReplyFrame {
    ReplyFrame {
        correlation: CorrelationId(11),
        operation_id: OperationId(9),
        replier: message("x", Vec::new()).origin,
        result,
    }
}

fn reply_error(kind: ReplyErrorKind, message: &str) -> ReplyResult {
    ReplyResult::Error(ReplyError {
        kind,
        code: 7,
        message: message.to_owned(),
    })
}

#[test]
fn decode_limits_bound_the_reply_payload() {
    let limits = DecodeLimits {
        max_object_id_bytes: 1024,
        max_payload_bytes: 16,
        ..DecodeLimits::default()
    };
    let ok = wire::encode(&Frame::Reply(reply(ReplyResult::Ok(vec![7; 16]))));
    assert!(wire::decode(&ok, &limits).is_ok());
    let over = wire::encode(&Frame::Reply(reply(ReplyResult::Ok(vec![7; 17]))));
    assert!(wire::decode(&over, &DecodeLimits::default()).is_ok());
    assert_eq!(
        wire::decode(&over, &limits),
        Err(WireError::TooLong {
            field: "payload",
            len: 17,
            max: 16
        })
    );
    // The message bound does not follow the payload limit: it is fixed.
    let long = wire::encode(&Frame::Reply(reply(reply_error(
        ReplyErrorKind::Handler,
        &"m".repeat(MAX_ERROR_MESSAGE_BYTES),
    ))));
    let zero = DecodeLimits {
        max_payload_bytes: 0,
        ..limits
    };
    assert!(wire::decode(&long, &zero).is_ok());
    let empty = wire::encode(&Frame::Reply(reply(ReplyResult::Ok(Vec::new()))));
    assert!(wire::decode(&empty, &zero).is_ok());
}

#[test]
fn reply_error_messages_are_bounded_at_4096_bytes() {
    for kind in [ReplyErrorKind::Handler, ReplyErrorKind::Decode] {
        let at = reply(reply_error(kind, &"a".repeat(MAX_ERROR_MESSAGE_BYTES)));
        let bytes = wire::encode(&Frame::Reply(at.clone()));
        assert_eq!(
            wire::decode(&bytes, &DecodeLimits::default()),
            Ok(Frame::Reply(at))
        );
        // One byte over, length and bytes both present.
        let mut over = bytes.clone();
        let len_at = over.len() - MAX_ERROR_MESSAGE_BYTES - 2;
        over[len_at..len_at + 2].copy_from_slice(&4097u16.to_be_bytes());
        over.push(b'a');
        let body_len = (over.len() - HEADER_LEN) as u32;
        over[6..10].copy_from_slice(&body_len.to_be_bytes());
        assert_eq!(
            wire::decode(&over, &DecodeLimits::default()),
            Err(WireError::TooLong {
                field: "reply error message",
                len: 4097,
                max: MAX_ERROR_MESSAGE_BYTES
            })
        );
    }
}

/// The encoder never fails on a long message: it keeps the longest prefix
/// within MAX_ERROR_MESSAGE_BYTES that ends on a character boundary.
#[test]
fn encoding_cuts_a_long_reply_error_message_at_a_char_boundary() {
    // 4095 ASCII bytes then a 4-byte character: the character would end at
    // 4099, so it is dropped whole.
    let text = "a".repeat(MAX_ERROR_MESSAGE_BYTES - 1) + "🦀" + "tail";
    let bytes = wire::encode(&Frame::Reply(reply(reply_error(
        ReplyErrorKind::Decode,
        &text,
    ))));
    match wire::decode(&bytes, &DecodeLimits::default()) {
        Ok(Frame::Reply(ReplyFrame {
            result: ReplyResult::Error(e),
            ..
        })) => {
            assert_eq!(e.message, "a".repeat(MAX_ERROR_MESSAGE_BYTES - 1));
            assert_eq!(e.kind, ReplyErrorKind::Decode);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reply_tags_and_kinds_outside_their_tables_are_invalid() {
    let ok = wire::encode(&Frame::Reply(reply(ReplyResult::Ok(b"x".to_vec()))));
    let err = wire::encode(&Frame::Reply(reply(reply_error(
        ReplyErrorKind::Handler,
        "e",
    ))));
    // "main": a 4-byte mesh name; the tag follows correlation, operation id
    // and the replier node.
    let tag_at = HEADER_LEN + 8 + 8 + 1 + 4 + 8 + 8;
    assert_eq!((ok[tag_at], err[tag_at], err[tag_at + 1]), (1, 2, 1));
    for tag in (0..=u8::MAX).filter(|t| !matches!(t, 1 | 2)) {
        let mut bytes = ok.clone();
        bytes[tag_at] = tag;
        assert!(
            matches!(
                wire::decode(&bytes, &DecodeLimits::default()),
                Err(WireError::Invalid {
                    field: "reply result",
                    ..
                })
            ),
            "tag {tag}"
        );
    }
    for kind in (0..=u8::MAX).filter(|k| !matches!(k, 1 | 2)) {
        let mut bytes = err.clone();
        bytes[tag_at + 1] = kind;
        assert!(
            matches!(
                wire::decode(&bytes, &DecodeLimits::default()),
                Err(WireError::Invalid {
                    field: "reply error kind",
                    ..
                })
            ),
            "kind {kind}"
        );
    }
    let mut decode_kind = err.clone();
    decode_kind[tag_at + 1] = 2;
    assert!(matches!(
        wire::decode(&decode_kind, &DecodeLimits::default()),
        Ok(Frame::Reply(ReplyFrame {
            result: ReplyResult::Error(ReplyError {
                kind: ReplyErrorKind::Decode,
                ..
            }),
            ..
        }))
    ));
}

// ------------------------------------------------------------ relocation --

/// The relocation vectors cover every command 45–49, every abort reason on
/// its own vector, a Restore with saved messages, requests and
/// registrations and one with nothing, and the relocation faults.
#[test]
fn vectors_cover_every_relocation_command_and_reason() {
    let valid = valid_vectors();
    let frames = |command: &str| -> Vec<&Value> {
        valid
            .iter()
            .filter(|v| str_of(&v.json, "command") == command)
            .map(|v| field(&v.json, "frame"))
            .collect()
    };

    let mut reasons: Vec<u8> = frames("RelocationAbort")
        .iter()
        .map(|f| u8_of(f, "reason_code"))
        .collect();
    reasons.sort();
    assert_eq!(reasons, [1, 2, 3, 4, 5], "one abort vector per reason");

    let restores = frames("RelocationRestore");
    let kinds: Vec<bool> = restores
        .iter()
        .flat_map(|f| list_of(f, "saved"))
        .map(|s| bool_of(s, "request"))
        .collect();
    assert!(
        kinds.contains(&false) && kinds.contains(&true),
        "saved kinds"
    );
    assert!(
        restores
            .iter()
            .any(|f| !list_of(f, "registrations").is_empty())
    );
    assert!(restores.iter().any(|f| {
        list_of(f, "saved").is_empty()
            && list_of(f, "registrations").is_empty()
            && str_of(f, "state_hex").is_empty()
    }));
    for command in [
        "RelocationRelayReady",
        "RelocationCutover",
        "RelocationCommitted",
    ] {
        assert!(!frames(command).is_empty(), "a {command} vector");
    }

    let invalid = invalid_vectors();
    let relocation: Vec<&Vector> = invalid
        .iter()
        .filter(|v| v.name.contains("relocation") && !v.name.contains("session"))
        .collect();
    let fields: Vec<&str> = relocation
        .iter()
        .filter_map(|v| field(&v.json, "error").get("field").and_then(Value::as_str))
        .collect();
    for f in [
        "restore checksum",
        "saved operation kind",
        "saved operation",
        "abort reason",
        "relocation state",
        "saved operations",
        "registrations",
    ] {
        assert!(fields.contains(&f), "an invalid relocation vector for {f}");
    }
    for kind in ["Truncated", "TrailingBytes", "TooLong", "FlagsNotAllowed"] {
        assert!(
            relocation
                .iter()
                .any(|v| str_of(field(&v.json, "error"), "kind") == kind),
            "a {kind} relocation vector"
        );
    }
    // One vector is decoded under a state bound of its own.
    assert!(relocation.iter().any(|v| {
        limits_of(&v.json).max_state_bytes < DecodeLimits::default().max_state_bytes
            && str_of(field(&v.json, "error"), "kind") == "TooLong"
    }));
    // The commands the relocation commands took stay unknown around them.
    assert!(invalid.iter().any(|v| v.name == "unknown_command_51"));
    assert!(!invalid.iter().any(|v| v.name == "unknown_command_45"));
}

fn relocation_identity() -> RelocationIdentity {
    RelocationIdentity {
        relocation: RelocationId(61),
        key: actor_key("a"),
        object_generation: ObjectGeneration(4),
    }
}

fn node_ref(rid: u64) -> NodeRef {
    NodeRef {
        mesh: MeshName::new("main").expect("a valid mesh name"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
    }
}

/// A Restore of Actor "a" from node 2 to node 3 with `saved` copies of a
/// saved message, `registrations` registrations and `state`.
fn restore(saved: usize, registrations: usize, state: Vec<u8>) -> Restore {
    Restore {
        identity: relocation_identity(),
        source: node_ref(2),
        target: node_ref(3),
        from: message("a", Vec::new()).fence,
        saved: vec![message("a", b"m".to_vec()); saved],
        registrations: vec![
            Registration {
                session: session_ref(),
                binding: a_binding(),
            };
            registrations
        ],
        state,
    }
}

fn restore_bytes(r: Restore) -> Vec<u8> {
    wire::encode(&Frame::Relocation(RelocationFrame::Restore(Box::new(r))))
}

/// One frame of each relocation command.
fn relocation_frames() -> Vec<RelocationFrame> {
    let mut request = message("a", b"q".to_vec());
    request.reply_route = Some(ReplyRoute {
        node: request.origin,
        correlation: CorrelationId(8),
    });
    let mut r = restore(1, 1, vec![0, 0xff]);
    r.saved.push(request);
    vec![
        RelocationFrame::Restore(Box::new(r)),
        RelocationFrame::RelayReady {
            identity: relocation_identity(),
            target: node_ref(3),
            destination: message("a", Vec::new()).fence,
        },
        RelocationFrame::Cutover {
            identity: relocation_identity(),
            source: node_ref(2),
            relayed: 5,
        },
        RelocationFrame::Committed {
            identity: relocation_identity(),
            target: node_ref(3),
            destination: message("a", Vec::new()).fence,
        },
        RelocationFrame::Abort {
            identity: relocation_identity(),
            by: node_ref(2),
            reason: AbortReason::Requested,
        },
    ]
}

#[test]
fn relocation_commands_take_no_flags() {
    let frames = relocation_frames();
    let mut commands = Vec::new();
    for frame in frames {
        let bytes = wire::encode(&Frame::Relocation(frame.clone()));
        let command = frame.command();
        assert_eq!(bytes[3], command);
        commands.push(command);
        assert_eq!(
            wire::decode(&bytes, &DecodeLimits::default()),
            Ok(Frame::Relocation(frame))
        );
        for flags in 1..=u8::MAX {
            let mut flagged = bytes.clone();
            flagged[4] = flags;
            assert_eq!(
                wire::decode(&flagged, &DecodeLimits::default()),
                Err(WireError::FlagsNotAllowed { command, flags }),
                "command {command}, flags {flags:#04x}"
            );
        }
        let mut reserved = bytes.clone();
        reserved[5] = 0x01;
        assert_eq!(
            wire::decode(&reserved, &DecodeLimits::default()),
            Err(WireError::FlagsNotAllowed { command, flags: 1 }),
            "command {command}, reserved byte"
        );
    }
    assert_eq!(commands, [45, 46, 47, 48, 49]);
}

/// The node each relocation frame names as its sender: a Restore's and a
/// cutover's source, a relay-ready's and a committed's target, an abort's
/// `by` (docs/wire.md).
#[test]
fn relocation_frames_name_their_last_sender() {
    let senders: Vec<Option<NodeRid>> = relocation_frames()
        .into_iter()
        .map(|f| wire::last_sender(&Frame::Relocation(f)))
        .collect();
    let (source, target) = (Some(NodeRid(2)), Some(NodeRid(3)));
    assert_eq!(senders, [source, target, source, target, source]);
    let by_target = Frame::Relocation(RelocationFrame::Abort {
        identity: relocation_identity(),
        by: node_ref(3),
        reason: AbortReason::RestoreFailed,
    });
    assert_eq!(wire::last_sender(&by_target), target);
}

#[test]
fn every_abort_reason_round_trips_and_others_are_invalid() {
    let abort = |reason| {
        wire::encode(&Frame::Relocation(RelocationFrame::Abort {
            identity: relocation_identity(),
            by: node_ref(2),
            reason,
        }))
    };
    let reasons = [
        AbortReason::Requested,
        AbortReason::Timeout,
        AbortReason::Refused,
        AbortReason::RestoreFailed,
        AbortReason::CommitFailed,
    ];
    for (i, reason) in reasons.into_iter().enumerate() {
        assert_eq!(*abort(reason).last().expect("a body") as usize, i + 1);
        assert_eq!(AbortReason::from_code(i as u8 + 1), Some(reason));
    }
    let bytes = abort(AbortReason::Requested);
    let last = bytes.len() - 1;
    for code in 0..=u8::MAX {
        let mut edited = bytes.clone();
        edited[last] = code;
        match wire::decode(&edited, &DecodeLimits::default()) {
            Ok(frame) if (1..=5).contains(&code) => assert_eq!(wire::encode(&frame), edited),
            Err(WireError::Invalid {
                field: "abort reason",
                ..
            }) if !(1..=5).contains(&code) => {}
            other => panic!("reason {code}: {other:?}"),
        }
    }
}

/// A Restore ends with the CRC-32C of every body byte before it: the
/// codec's checksum is that one, and no single-bit change anywhere in the
/// body (checksum included) decodes.
#[test]
fn every_bit_flip_in_a_restore_body_is_refused() {
    let bytes = restore_bytes(restore(1, 1, vec![0x5a, 0x4c, 0, 0xff]));
    let body = &bytes[HEADER_LEN..];
    let (covered, sum) = body.split_at(body.len() - 4);
    assert_eq!(
        crc32c(covered),
        u32::from_be_bytes(sum.try_into().expect("4 bytes"))
    );
    assert_eq!(wire::crc32c(covered), crc32c(covered));
    for at in HEADER_LEN..bytes.len() {
        for bit in 0..8 {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << bit;
            assert!(
                wire::decode(&flipped, &DecodeLimits::default()).is_err(),
                "byte {at} bit {bit} decodes"
            );
        }
    }
    // A body byte changed and the checksum recomputed: the frame decodes,
    // to the changed frame.
    let mut resealed = bytes.clone();
    let state_byte = resealed.len() - 4 - 1;
    resealed[state_byte] = 0x00;
    let end = resealed.len() - 4;
    let sum = crc32c(&resealed[HEADER_LEN..end]);
    resealed[end..].copy_from_slice(&sum.to_be_bytes());
    match wire::decode(&resealed, &DecodeLimits::default()) {
        Ok(Frame::Relocation(RelocationFrame::Restore(r))) => {
            assert_eq!(r.state, [0x5a, 0x4c, 0, 0])
        }
        other => panic!("{other:?}"),
    }
}

/// Body offset of a Restore's saved-operation count, for identity key "a"
/// and "main" source and target: relocation id, key, object generation,
/// two nodes, the fence.
const RESTORE_SAVED_AT: usize = 8 + 4 + 8 + 21 + 21 + 40;

#[test]
fn restore_counts_are_bounded() {
    // Over MAX_SAVED_OPERATIONS / MAX_RESTORE_REGISTRATIONS: refused from
    // the count, before anything after it is read.
    let bytes = restore_bytes(restore(0, 0, Vec::new()));
    let over = |at: usize, max: usize, field: &'static str| {
        let mut body = bytes[HEADER_LEN..HEADER_LEN + at + 4].to_vec();
        body[at..].copy_from_slice(&(max as u32 + 1).to_be_bytes());
        let mut frame = bytes[..6].to_vec();
        frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
        frame.extend_from_slice(&body);
        assert_eq!(
            wire::decode(&frame, &DecodeLimits::default()),
            Err(WireError::TooLong {
                field,
                len: max + 1,
                max
            })
        );
    };
    over(RESTORE_SAVED_AT, MAX_SAVED_OPERATIONS, "saved operations");
    over(
        RESTORE_SAVED_AT + 4,
        MAX_RESTORE_REGISTRATIONS,
        "registrations",
    );
    assert_eq!(
        &bytes[HEADER_LEN + RESTORE_SAVED_AT..HEADER_LEN + RESTORE_SAVED_AT + 12],
        &[0; 12],
        "saved count, registration count and state length of an empty Restore"
    );

    // At the bounds, whole frames: accepted; one more: TooLong.
    let at_max = restore(0, MAX_RESTORE_REGISTRATIONS, Vec::new());
    let bytes = restore_bytes(at_max.clone());
    assert_eq!(
        wire::decode(&bytes, &DecodeLimits::default()),
        Ok(Frame::Relocation(RelocationFrame::Restore(Box::new(
            at_max
        ))))
    );
    let bytes = restore_bytes(restore(0, MAX_RESTORE_REGISTRATIONS + 1, Vec::new()));
    assert!(matches!(
        wire::decode(&bytes, &DecodeLimits::default()),
        Err(WireError::TooLong {
            field: "registrations",
            ..
        })
    ));
    let at_max = restore(MAX_SAVED_OPERATIONS, 0, Vec::new());
    let bytes = restore_bytes(at_max.clone());
    assert_eq!(
        wire::decode(&bytes, &DecodeLimits::default()),
        Ok(Frame::Relocation(RelocationFrame::Restore(Box::new(
            at_max
        ))))
    );
    let bytes = restore_bytes(restore(MAX_SAVED_OPERATIONS + 1, 0, Vec::new()));
    assert!(matches!(
        wire::decode(&bytes, &DecodeLimits::default()),
        Err(WireError::TooLong {
            field: "saved operations",
            ..
        })
    ));
}

/// The state has its own bound, `max_state_bytes`; a saved operation's
/// payload is bounded by `max_payload_bytes` like any operation's.
#[test]
fn decode_limits_bound_the_restore_state_and_saved_payloads() {
    let limits = DecodeLimits {
        max_state_bytes: 16,
        max_payload_bytes: 4,
        ..DecodeLimits::default()
    };
    let ok = restore_bytes(restore(1, 0, vec![7; 16]));
    assert!(wire::decode(&ok, &limits).is_ok());
    let over = restore_bytes(restore(1, 0, vec![7; 17]));
    assert!(wire::decode(&over, &DecodeLimits::default()).is_ok());
    assert_eq!(
        wire::decode(&over, &limits),
        Err(WireError::TooLong {
            field: "relocation state",
            len: 17,
            max: 16
        })
    );
    // The state bound is not the payload bound: 16 state bytes pass a
    // 4-byte payload bound, a 5-byte saved payload does not.
    let mut r = restore(1, 0, vec![7; 16]);
    r.saved[0].payload = vec![1; 5];
    assert_eq!(
        wire::decode(&restore_bytes(r), &limits),
        Err(WireError::TooLong {
            field: "payload",
            len: 5,
            max: 4
        })
    );
    let zero = DecodeLimits {
        max_state_bytes: 0,
        ..DecodeLimits::default()
    };
    assert!(wire::decode(&restore_bytes(restore(0, 0, Vec::new())), &zero).is_ok());
    assert!(wire::decode(&restore_bytes(restore(0, 0, vec![0])), &zero).is_err());
}

fn random_relocation_frame(rng: &mut Rng, which: u64) -> RelocationFrame {
    let identity = RelocationIdentity {
        relocation: RelocationId(rng.u64()),
        key: random_key(rng),
        object_generation: ObjectGeneration(rng.u64()),
    };
    match which % 5 {
        0 => {
            let saved = (0..rng.below(4))
                .map(|_| {
                    let hop_count = rng.next() as u8;
                    Operation {
                        operation_id: OperationId(rng.u64()),
                        target: identity.key.clone(),
                        origin: random_node(rng),
                        to_node: NodeRid(rng.u64()),
                        fence: random_fence(rng),
                        object_generation: ObjectGeneration(rng.u64()),
                        hop_count,
                        relayer: (hop_count > 0).then(|| random_node(rng)),
                        reply_route: rng.bool().then(|| random_reply(rng)),
                        payload: rng.bytes(64),
                    }
                })
                .collect();
            let registrations = (0..rng.below(4))
                .map(|_| Registration {
                    session: random_session(rng),
                    binding: random_binding(rng),
                })
                .collect();
            RelocationFrame::Restore(Box::new(Restore {
                identity,
                source: random_node(rng),
                target: random_node(rng),
                from: random_fence(rng),
                saved,
                registrations,
                state: rng.bytes(300),
            }))
        }
        1 => RelocationFrame::RelayReady {
            identity,
            target: random_node(rng),
            destination: random_fence(rng),
        },
        2 => RelocationFrame::Cutover {
            identity,
            source: random_node(rng),
            relayed: rng.u64(),
        },
        3 => RelocationFrame::Committed {
            identity,
            target: random_node(rng),
            destination: random_fence(rng),
        },
        _ => RelocationFrame::Abort {
            identity,
            by: random_node(rng),
            reason: AbortReason::from_code(rng.below(5) as u8 + 1).expect("1..=5"),
        },
    }
}

#[test]
fn generated_relocation_frames_of_every_command_round_trip() {
    let mut rng = Rng(0x2e10_ca71_0a45_0049);
    let limits = DecodeLimits::default();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..1500 {
        let frame = random_relocation_frame(&mut rng, i);
        let bytes = wire::encode(&Frame::Relocation(frame.clone()));
        assert_eq!(bytes[3], frame.command(), "#{i}");
        seen.insert(bytes[3]);
        let back = wire::decode(&bytes, &limits).unwrap_or_else(|e| panic!("#{i}: {e}"));
        assert_eq!(back, Frame::Relocation(frame), "#{i}");
        assert_eq!(wire::encode(&back), bytes, "#{i}");
        // Every cut of the body runs out: never Invalid, never a panic.
        if i < 100 {
            for body_len in 0..bytes.len() - HEADER_LEN {
                let err = wire::decode(&cut_body(&bytes, body_len), &limits)
                    .expect_err("a cut body fails");
                assert_eq!(kind_of(&err), "Truncated", "#{i} cut to {body_len}: {err}");
            }
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), [45, 46, 47, 48, 49]);
}
