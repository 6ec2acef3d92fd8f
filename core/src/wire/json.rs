//! The language-neutral JSON description of wire frames: the format of the
//! golden vectors in `testdata/wire/*.json` (reference: `docs/wire.md`).
//!
//! One implementation for every reader of that format: the vector generator
//! (`core/examples/wire_vectors.rs`) writes its files with it, and the Python
//! package's `zlink.wire.Frame.to_dict()` returns it. Behind the `json`
//! feature (not a default one).

use serde_json::{Value, json};

use super::{
    ActorRoute, BindRefusal, BindResult, Binding, Frame, HEADER_LEN, NodeRef, Operation,
    RejectionCode, RelayKind, ReplyErrorKind, ReplyResult, ReplyRoute, RouteChange, RouteEnd,
    SessionFrame, SessionRef, SessionRefusal, WireError,
};
use crate::{ObjectKey, RouteFence, StaleReason};

// The relocation frames' descriptions (commands 45–49), beside this file.
#[path = "json_relocation.rs"]
mod relocation;
pub use relocation::restore_saved_at;

/// The command's name as the vectors' `command` field states it: "Message",
/// "Request", "Reply", "Rejection", "MessageFollow", "SessionBind", ...,
/// "RelocationRestore", ... ([`Frame::command_name`]).
pub fn command_name(frame: &Frame) -> &'static str {
    frame.command_name()
}

/// The description of a frame header (its first [`HEADER_LEN`] bytes): a
/// valid vector's `header` field.
pub fn describe_header(header: &[u8; HEADER_LEN]) -> Value {
    json!({
        "magic_hex": hex(&header[..2]),
        "version": header[2],
        "command": header[3],
        "flags": header[4],
        "reserved": header[5],
        "body_length": u32::from_be_bytes([header[6], header[7], header[8], header[9]]),
    })
}

/// Bytes as lowercase hex, two digits each.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A u64 as a decimal string: JSON numbers lose precision past 2^53 in
/// JavaScript and other double-based readers.
fn n(v: u64) -> Value {
    Value::String(v.to_string())
}

fn key_json(key: &ObjectKey) -> Value {
    json!({
        "kind": key.kind().as_str(),
        "kind_code": key.kind() as u8,
        "id": key.id(),
        "id_utf8_hex": hex(key.id().as_bytes()),
    })
}

fn node_json(node: &NodeRef) -> Value {
    json!({
        "mesh": node.mesh.as_str(),
        "rid": n(node.rid.get()),
        "generation": n(node.generation.get()),
    })
}

fn fence_json(f: &RouteFence) -> Value {
    json!({
        "object_generation": n(f.object_generation.get()),
        "authority_owner_generation": n(f.authority_owner_generation.get()),
        "owner_lease_generation": n(f.owner_lease_generation.get()),
        "node_generation": n(f.node_generation.get()),
        "store_version": n(f.store_version.get()),
    })
}

fn reply_json(route: &Option<ReplyRoute>) -> Value {
    match route {
        None => Value::Null,
        Some(r) => json!({
            "node": node_json(&r.node),
            "correlation": n(r.correlation.get()),
        }),
    }
}

fn stale_name(reason: StaleReason) -> &'static str {
    match reason {
        StaleReason::NotOwner => "NotOwner",
        StaleReason::NodeMismatch => "NodeMismatch",
        StaleReason::OwnerGenerationMismatch => "OwnerGenerationMismatch",
        StaleReason::LeaseMismatch => "LeaseMismatch",
    }
}

/// The language-neutral description of `frame`: the `frame` field of the
/// golden vectors (`testdata/wire/*.json`). u64s are decimal strings; code
/// bytes (reply status, rejection class, session codes) are read back from
/// the frame's encoding, so the description states what is on the wire.
pub fn describe(frame: &Frame) -> Value {
    match frame {
        Frame::Message(op) | Frame::Request(op) => operation_json(op),
        Frame::Reply(r) => {
            // The tag and kind numbers are read back from the encoded bytes
            // (after correlation, operation id and replier), so the JSON
            // states what is on the wire.
            let bytes = super::encode(frame);
            let tag_at = HEADER_LEN + reply_tag_at(r.replier.mesh.as_str().len());
            let result = match &r.result {
                ReplyResult::Ok(payload) => json!({
                    "status": "Ok",
                    "status_code": bytes[tag_at],
                    "payload_hex": hex(payload),
                }),
                ReplyResult::Error(e) => json!({
                    "status": "Error",
                    "status_code": bytes[tag_at],
                    "error": {
                        "kind": match e.kind {
                            ReplyErrorKind::Handler => "Handler",
                            ReplyErrorKind::Decode => "Decode",
                        },
                        "kind_code": bytes[tag_at + 1],
                        "code": e.code,
                        "message": e.message,
                        "message_utf8_hex": hex(e.message.as_bytes()),
                    },
                }),
            };
            json!({
                "correlation": n(r.correlation.get()),
                "operation_id": n(r.operation_id.get()),
                "replier": node_json(&r.replier),
                "result": result,
            })
        }
        Frame::Rejection(r) => {
            // The class/reason numbers are read back from the encoded bytes
            // (after operation id, target, fence and rejecting node; the
            // reply route follows them), so the JSON states what is on the
            // wire.
            let bytes = super::encode(frame);
            let class_at = HEADER_LEN
                + rejection_class_at(r.target.id().len(), r.rejected_by.mesh.as_str().len());
            let (class_code, reason_code) = (bytes[class_at], bytes[class_at + 1]);
            let (class, reason) = match r.code {
                RejectionCode::StaleRoute(s) => ("StaleRoute", Value::from(stale_name(s))),
                RejectionCode::Unavailable(u) => ("Unavailable", Value::from(u.as_str())),
                RejectionCode::InvalidOperation => ("InvalidOperation", Value::Null),
            };
            json!({
                "operation_id": n(r.operation_id.get()),
                "target": key_json(&r.target),
                "fence": fence_json(&r.fence),
                "rejected_by": node_json(&r.rejected_by),
                "code": {
                    "class": class,
                    "class_code": class_code,
                    "reason": reason,
                    "reason_code": reason_code,
                },
                "reply_route": reply_json(&r.reply_route),
            })
        }
        Frame::MessageFollow(f) => {
            let end =
                |e: &RouteEnd| json!({"node": node_json(&e.node), "fence": fence_json(&e.fence)});
            json!({
                "target": key_json(&f.target),
                "source": end(&f.source),
                "destination": end(&f.destination),
                "hop_count": f.hop_count,
                "relayed_messages": n(f.relayed_messages),
                "relayed_bytes": n(f.relayed_bytes),
                "operation_id": n(f.operation_id.get()),
                "reply_route": reply_json(&f.reply_route),
            })
        }
        Frame::Session(f) => session_frame_json(frame, f),
        Frame::Relocation(f) => relocation::describe(frame, f),
    }
}

/// A Message or Request body (also a Restore's saved operation).
fn operation_json(op: &Operation) -> Value {
    json!({
        "operation_id": n(op.operation_id.get()),
        "target": key_json(&op.target),
        "origin": node_json(&op.origin),
        "to_node": n(op.to_node.get()),
        "fence": fence_json(&op.fence),
        "object_generation": n(op.object_generation.get()),
        "hop_count": op.hop_count,
        "relayer": op.relayer.as_ref().map(node_json),
        "reply_route": reply_json(&op.reply_route),
        "payload_hex": hex(&op.payload),
    })
}

fn session_json(s: &SessionRef) -> Value {
    json!({
        "owner": node_json(&s.owner),
        "id": n(s.id.get()),
        "generation": n(s.generation.get()),
    })
}

fn binding_json(b: &Binding) -> Value {
    json!({
        "generation": n(b.generation.get()),
        "token": n(b.token.get()),
    })
}

fn actor_route_json(r: &ActorRoute) -> Value {
    json!({
        "owner": node_json(&r.owner),
        "object_generation": n(r.object_generation.get()),
        "authority_owner_generation": n(r.authority_owner_generation.get()),
        "owner_lease_generation": n(r.owner_lease_generation.get()),
        "lease_remaining_ms": n(r.lease_remaining_ms),
    })
}

/// A bind refusal's name, as in a SessionBindReply's `result.reason`.
pub fn bind_refusal_name(why: BindRefusal) -> &'static str {
    match why {
        BindRefusal::NotOwner => "NotOwner",
        BindRefusal::ObjectGeneration => "ObjectGeneration",
        BindRefusal::NodeGeneration => "NodeGeneration",
        BindRefusal::OwnerGeneration => "OwnerGeneration",
        BindRefusal::OwnerLease => "OwnerLease",
        BindRefusal::Timeout => "Timeout",
    }
}

/// A relay kind's name, as in a SessionRelay's `kind`.
pub fn relay_kind_name(kind: RelayKind) -> &'static str {
    match kind {
        RelayKind::Message => "Message",
        RelayKind::PhysicalDisconnect => "PhysicalDisconnect",
        RelayKind::LogicalDisconnect => "LogicalDisconnect",
    }
}

/// A session refusal's name, as in a SessionRefused's `reason`.
pub fn session_refusal_name(reason: SessionRefusal) -> &'static str {
    match reason {
        SessionRefusal::UnknownBinding => "UnknownBinding",
        SessionRefusal::StaleRoute => "StaleRoute",
        SessionRefusal::ObjectGeneration => "ObjectGeneration",
    }
}

/// A session frame's fields. Its one code byte (bind result, relay kind,
/// refusal, route change) is read back from the encoded bytes, so the JSON
/// states what is on the wire.
fn session_frame_json(frame: &Frame, f: &SessionFrame) -> Value {
    let bytes = super::encode(frame);
    let code = session_code_at(f).map(|at| bytes[HEADER_LEN + at]);
    match f {
        SessionFrame::Bind {
            operation_id,
            session,
            actor,
            route,
            previous,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "route": actor_route_json(route),
            "previous": match previous {
                None => Value::Null,
                Some((owner, binding)) => json!({
                    "owner": node_json(owner),
                    "binding": binding_json(binding),
                }),
            },
        }),
        SessionFrame::BindReply {
            operation_id,
            session,
            actor,
            result,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "result": match result {
                BindResult::Bound { route, binding } => json!({
                    "status": "Bound",
                    "status_code": code,
                    "route": actor_route_json(route),
                    "binding": binding_json(binding),
                }),
                BindResult::Refused(why) => json!({
                    "status": "Refused",
                    "status_code": code,
                    "reason": bind_refusal_name(*why),
                }),
            },
        }),
        SessionFrame::Tombstone {
            operation_id,
            session,
            actor,
            binding,
            by,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
            "by": node_json(by),
        }),
        SessionFrame::TombstoneAck {
            operation_id,
            session,
            actor,
            binding,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
        }),
        SessionFrame::Relay {
            operation_id,
            session,
            actor,
            binding,
            route,
            sequence,
            hop_count,
            relayer,
            kind,
            payload,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
            "route": actor_route_json(route),
            "sequence": n(*sequence),
            "hop_count": hop_count,
            "relayer": relayer.as_ref().map(node_json),
            "kind": relay_kind_name(*kind),
            "kind_code": code,
            "payload_hex": hex(payload),
        }),
        SessionFrame::Push {
            operation_id,
            session,
            actor,
            binding,
            object_generation,
            payload,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
            "object_generation": n(object_generation.get()),
            "payload_hex": hex(payload),
        }),
        SessionFrame::Refused {
            operation_id,
            session,
            actor,
            reason,
        } => json!({
            "operation_id": n(operation_id.get()),
            "session": session_json(session),
            "actor": key_json(actor),
            "reason": session_refusal_name(*reason),
            "reason_code": code,
        }),
        SessionFrame::Seal {
            session,
            actor,
            binding,
            object_generation,
            relocation,
            source,
        } => json!({
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
            "object_generation": n(object_generation.get()),
            "relocation": n(relocation.get()),
            "source": node_json(source),
        }),
        SessionFrame::Sealed {
            session,
            actor,
            relocation,
            sealed,
        } => json!({
            "session": session_json(session),
            "actor": key_json(actor),
            "relocation": n(relocation.get()),
            "sealed": sealed,
        }),
        SessionFrame::Route {
            session,
            actor,
            binding,
            object_generation,
            relocation,
            change,
        } => json!({
            "session": session_json(session),
            "actor": key_json(actor),
            "binding": binding_json(binding),
            "object_generation": n(object_generation.get()),
            "relocation": n(relocation.get()),
            "change": match change {
                RouteChange::Commit(route) => json!({
                    "action": "Commit",
                    "action_code": code,
                    "route": actor_route_json(route),
                }),
                RouteChange::Abort => json!({"action": "Abort", "action_code": code}),
                RouteChange::Refresh(route) => json!({
                    "action": "Refresh",
                    "action_code": code,
                    "route": actor_route_json(route),
                }),
            },
        }),
    }
}

/// A decode error's kind, as in an invalid vector's `error.kind` (normative).
pub fn error_kind(e: &WireError) -> &'static str {
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

/// The description of a decode error: an invalid vector's `error` field.
/// Its kind is normative; the details this codec reports with it are
/// informative (another codec may word or count them differently).
pub fn describe_error(e: &WireError) -> Value {
    let kind = error_kind(e);
    match e {
        WireError::Truncated { field, needed } => {
            json!({"kind": kind, "field": field, "needed": needed})
        }
        WireError::BadMagic => json!({"kind": kind}),
        WireError::UnsupportedVersion(v) => json!({"kind": kind, "version": v}),
        WireError::UnknownCommand(c) => json!({"kind": kind, "command": c}),
        WireError::FlagsNotAllowed { command, flags } => {
            json!({"kind": kind, "command": command, "flags": flags})
        }
        WireError::LengthMismatch { declared, actual } => {
            json!({"kind": kind, "declared": declared, "actual": actual})
        }
        WireError::TooLong { field, len, max } => {
            json!({"kind": kind, "field": field, "len": len, "max": max})
        }
        WireError::Invalid { field, .. } => json!({"kind": kind, "field": field}),
        WireError::TrailingBytes(count) => json!({"kind": kind, "count": count}),
    }
}

// Body offsets of the code bytes the descriptions read back from the
// encoding (docs/wire.md). The golden-vector generator also uses them to
// build its malformed cases.

/// Body offset of a Reply's result tag when the replier's mesh name is
/// `mesh_len` bytes: correlation, operation id, then the replier node.
pub fn reply_tag_at(mesh_len: usize) -> usize {
    8 + 8 + 1 + mesh_len + 8 + 8
}

/// Body offset of a Rejection's class byte when its object ID is `id_len`
/// bytes and the rejecting node's mesh name `mesh_len`: operation id, target,
/// fence, then the rejecting node. The reason follows, then the reply route's
/// presence byte.
pub fn rejection_class_at(id_len: usize, mesh_len: usize) -> usize {
    8 + 3 + id_len + 40 + 17 + mesh_len
}

/// Sizes of the session body parts (docs/wire.md): a SessionRef is a node
/// then id and generation; an ActorRoute a node then four u64s.
fn session_ref_len(s: &SessionRef) -> usize {
    17 + s.owner.mesh.as_str().len() + 16
}

fn key_len(k: &ObjectKey) -> usize {
    3 + k.id().len()
}

fn actor_route_len(r: &ActorRoute) -> usize {
    17 + r.owner.mesh.as_str().len() + 32
}

/// Body offset of the byte after a session frame's session and Actor key
/// (plus the operation id for commands 10–16).
fn after_actor(f: &SessionFrame) -> usize {
    let (op, session, actor) = match f {
        SessionFrame::Bind { session, actor, .. }
        | SessionFrame::BindReply { session, actor, .. }
        | SessionFrame::Tombstone { session, actor, .. }
        | SessionFrame::TombstoneAck { session, actor, .. }
        | SessionFrame::Relay { session, actor, .. }
        | SessionFrame::Push { session, actor, .. }
        | SessionFrame::Refused { session, actor, .. } => (8, session, actor),
        SessionFrame::Seal { session, actor, .. }
        | SessionFrame::Sealed { session, actor, .. }
        | SessionFrame::Route { session, actor, .. } => (0, session, actor),
    };
    op + session_ref_len(session) + key_len(actor)
}

/// Body offset of a session frame's one code or presence byte: the
/// previous-binding presence (10), bind result (11), relay kind (14),
/// refusal (16), sealed flag (43), route change (44); `None` for the others.
pub fn session_code_at(f: &SessionFrame) -> Option<usize> {
    let at = after_actor(f);
    match f {
        SessionFrame::Bind { route, .. } => Some(at + actor_route_len(route)),
        SessionFrame::BindReply { .. } | SessionFrame::Refused { .. } => Some(at),
        // binding, route, sequence, hop count, relayer (presence + node).
        SessionFrame::Relay { route, relayer, .. } => {
            let relayer_len = relayer.map_or(0, |n| 17 + n.mesh.as_str().len());
            Some(at + 16 + actor_route_len(route) + 8 + 1 + 1 + relayer_len)
        }
        // relocation.
        SessionFrame::Sealed { .. } => Some(at + 8),
        // binding, object generation, relocation.
        SessionFrame::Route { .. } => Some(at + 16 + 8 + 8),
        SessionFrame::Tombstone { .. }
        | SessionFrame::TombstoneAck { .. }
        | SessionFrame::Push { .. }
        | SessionFrame::Seal { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::wire::{DecodeLimits, decode};

    fn vectors(dir: &Path) -> Vec<(PathBuf, Value)> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).expect("testdata/wire") {
            let path = entry.expect("entry").path();
            if path.extension().and_then(|e| e.to_str()) == Some("json") {
                let text = fs::read_to_string(&path).expect("vector json");
                out.push((path, serde_json::from_str(&text).expect("vector json")));
            }
        }
        assert!(!out.is_empty(), "no vectors in {}", dir.display());
        out
    }

    /// An invalid vector's `limits`; `max_state_bytes` is optional (given
    /// on the Restore vectors), the default when absent.
    fn limits(l: &Value) -> DecodeLimits {
        let get = |name: &str| l[name].as_u64().map(|v| v as usize);
        let default = DecodeLimits::default();
        DecodeLimits {
            max_object_id_bytes: get("max_object_id_bytes").expect("max_object_id_bytes"),
            max_payload_bytes: get("max_payload_bytes").expect("max_payload_bytes"),
            max_state_bytes: get("max_state_bytes").unwrap_or(default.max_state_bytes),
        }
    }

    #[test]
    fn descriptions_are_the_golden_vectors() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/wire");
        for (path, json) in vectors(&dir) {
            let bytes = fs::read(path.with_extension("bin")).expect("vector bin");
            let frame = decode(&bytes, &DecodeLimits::default()).expect("valid vector");
            let header: &[u8; HEADER_LEN] = bytes[..HEADER_LEN].try_into().expect("header");
            assert_eq!(describe(&frame), json["frame"], "{}", path.display());
            assert_eq!(
                describe_header(header),
                json["header"],
                "{}",
                path.display()
            );
            assert_eq!(command_name(&frame), json["command"], "{}", path.display());
        }
        for (path, json) in vectors(&dir.join("invalid")) {
            let bytes = fs::read(path.with_extension("bin")).expect("vector bin");
            let Err(e) = decode(&bytes, &limits(&json["limits"])) else {
                panic!("{} decodes", path.display());
            };
            assert_eq!(describe_error(&e), json["error"], "{}", path.display());
        }
    }
}
