//! Writes the wire golden vectors: for each case a `.bin` (the exact frame
//! bytes) and a `.json` (a language-neutral description of it), valid frames
//! in the target directory and malformed ones in its `invalid/` folder.
//! Reference: `docs/wire.md`.
//!
//! ```text
//! cargo run -p zlink-core --features json --example wire_vectors -- testdata/wire
//! ```
//!
//! Old `.bin`/`.json` files in both folders are removed first, so a case
//! dropped here disappears there. Every vector is decoded again before it is
//! written: a valid one must round-trip, an invalid one must fail with the
//! error kind its case names, or the program stops. The descriptions are
//! `zlink_core::wire::json`'s (feature `json`).

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use zlink_core::wire::{
    self, AbortReason, ActorRoute, BindRefusal, BindResult, Binding, DecodeLimits, Frame,
    HEADER_LEN, MAX_ERROR_MESSAGE_BYTES, MAX_RESTORE_REGISTRATIONS, MAX_SAVED_OPERATIONS,
    MessageFollowFrame, NodeRef, Operation, Registration, RejectionCode, RejectionFrame, RelayKind,
    RelocationFrame, RelocationIdentity, ReplyError, ReplyErrorKind, ReplyFrame, ReplyResult,
    ReplyRoute, Restore, RouteChange, RouteEnd, SessionFrame, SessionRef, SessionRefusal, crc32c,
    json,
};
use zlink_core::{
    AuthorityOwnerGeneration, BindingGeneration, BindingToken, CorrelationId, MeshName,
    NodeGeneration, NodeRid, ObjectGeneration, ObjectKey, ObjectKind, OperationId,
    OwnerLeaseGeneration, RelocationId, RouteFence, SessionGeneration, SessionId, StaleReason,
    StoreVersion, UnavailableReason,
};

type Res<T> = Result<T, Box<dyn Error>>;

/// 2^53: the first integer a JavaScript number cannot tell from its successor.
const P53: u64 = 1 << 53;

fn main() -> Res<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("testdata/wire"));
    let invalid_dir = dir.join("invalid");
    fs::create_dir_all(&invalid_dir)?;
    clear(&dir)?;
    clear(&invalid_dir)?;

    let valid = valid_cases()?;
    for case in &valid {
        let bytes = wire::encode(&case.frame);
        let back = wire::decode(&bytes, &DecodeLimits::default())
            .map_err(|e| format!("{}: does not decode: {e}", case.name))?;
        if back != case.frame {
            return Err(format!("{}: decodes to another frame", case.name).into());
        }
        let header = bytes[..HEADER_LEN].try_into()?;
        let description = json!({
            "name": case.name,
            "note": case.note,
            "command": json::command_name(&case.frame),
            "command_number": bytes[3],
            "header": json::describe_header(header),
            "size": bytes.len(),
            "frame": json::describe(&case.frame),
        });
        write(&dir, case.name, &bytes, &description)?;
    }

    let invalid = invalid_cases()?;
    for case in &invalid {
        let limits = case.limits;
        let error = match wire::decode(&case.bytes, &limits) {
            Ok(_) => return Err(format!("invalid/{}: decodes", case.name).into()),
            Err(e) => e,
        };
        if json::error_kind(&error) != case.kind {
            return Err(format!(
                "invalid/{}: expected {}, got {error:?}",
                case.name, case.kind
            )
            .into());
        }
        let mut limits_json = json!({
            "max_object_id_bytes": limits.max_object_id_bytes,
            "max_payload_bytes": limits.max_payload_bytes,
        });
        // The state bound is stated on the Restores (command 45), the one
        // frame it bounds, and wherever it is not the default; absent, a
        // reader takes the default.
        if case.bytes.get(3) == Some(&45)
            || limits.max_state_bytes != DecodeLimits::default().max_state_bytes
        {
            limits_json["max_state_bytes"] = json!(limits.max_state_bytes);
        }
        let description = json!({
            "name": case.name,
            "note": case.note,
            "size": case.bytes.len(),
            "limits": limits_json,
            "error": json::describe_error(&error),
        });
        write(&invalid_dir, case.name, &case.bytes, &description)?;
    }
    println!(
        "wrote {} valid and {} invalid vectors to {}",
        valid.len(),
        invalid.len(),
        dir.display()
    );
    Ok(())
}

fn clear(dir: &Path) -> Res<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let ext = path.extension().and_then(|e| e.to_str());
        if path.is_file() && matches!(ext, Some("bin" | "json")) {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

fn write(dir: &Path, name: &str, bytes: &[u8], description: &Value) -> Res<()> {
    fs::write(dir.join(format!("{name}.bin")), bytes)?;
    let mut text = serde_json::to_string_pretty(description)?;
    text.push('\n');
    fs::write(dir.join(format!("{name}.json")), text)?;
    Ok(())
}

// ---------------------------------------------------------------- values --

fn mesh(name: &str) -> Res<MeshName> {
    Ok(MeshName::new(name)?)
}

fn node(mesh_name: &str, rid: u64, generation: u64) -> Res<NodeRef> {
    Ok(NodeRef {
        mesh: mesh(mesh_name)?,
        rid: NodeRid(rid),
        generation: NodeGeneration(generation),
    })
}

fn fence(object: u64, owner: u64, lease: u64, node: u64, version: u64) -> RouteFence {
    RouteFence {
        object_generation: ObjectGeneration(object),
        authority_owner_generation: AuthorityOwnerGeneration(owner),
        owner_lease_generation: OwnerLeaseGeneration(lease),
        node_generation: NodeGeneration(node),
        store_version: StoreVersion(version),
    }
}

fn spot(id: &str) -> Res<ObjectKey> {
    Ok(ObjectKey::new(ObjectKind::Spot, id)?)
}

fn actor(id: &str) -> Res<ObjectKey> {
    Ok(ObjectKey::new(ObjectKind::Actor, id)?)
}

/// The origin of most cases: node 1 of mesh "main", lifecycle 3.
fn origin() -> Res<NodeRef> {
    node("main", 1, 3)
}

/// A plain one-way message from `origin()` to node 2 (lifecycle 5) for
/// incarnation 4 of spot "s".
fn base_operation() -> Res<Operation> {
    Ok(Operation {
        operation_id: OperationId(1),
        target: spot("s")?,
        origin: origin()?,
        to_node: NodeRid(2),
        fence: fence(4, 2, 9, 5, 17),
        object_generation: ObjectGeneration(4),
        hop_count: 0,
        relayer: None,
        reply_route: None,
        payload: Vec::new(),
    })
}

fn reply_to_origin(correlation: u64) -> Res<ReplyRoute> {
    Ok(ReplyRoute {
        node: origin()?,
        correlation: CorrelationId(correlation),
    })
}

fn base_rejection(code: RejectionCode) -> Res<RejectionFrame> {
    Ok(RejectionFrame {
        operation_id: OperationId(7),
        target: spot("s")?,
        fence: fence(4, 2, 9, 5, 17),
        rejected_by: node("main", 2, 5)?,
        code,
        reply_route: None,
    })
}

fn base_follow(reply_route: Option<ReplyRoute>) -> Res<MessageFollowFrame> {
    Ok(MessageFollowFrame {
        target: actor("user-42")?,
        source: RouteEnd {
            node: node("main", 2, 5)?,
            fence: fence(4, 2, 9, 5, 17),
        },
        destination: RouteEnd {
            node: node("main", 3, 8)?,
            fence: fence(4, 3, 11, 8, 18),
        },
        hop_count: 1,
        relayed_messages: 3,
        relayed_bytes: 96,
        operation_id: OperationId(21),
        reply_route,
    })
}

/// The reply to `request_with_reply_route`: correlation 77, operation 2,
/// answered by node 2 of mesh "main" (lifecycle 5).
fn base_reply(result: ReplyResult) -> Res<ReplyFrame> {
    Ok(ReplyFrame {
        correlation: CorrelationId(77),
        operation_id: OperationId(2),
        replier: node("main", 2, 5)?,
        result,
    })
}

fn reply_error(kind: ReplyErrorKind, code: u32, message: &str) -> ReplyResult {
    ReplyResult::Error(ReplyError {
        kind,
        code,
        message: message.to_owned(),
    })
}

// ----------------------------------------------------------------- valid --

struct Valid {
    name: &'static str,
    note: &'static str,
    frame: Frame,
}

fn valid_cases() -> Res<Vec<Valid>> {
    let mut cases = Vec::new();
    let mut add = |name, note, frame| cases.push(Valid { name, note, frame });

    add(
        "message_oneway_short_spot",
        "One-way Message to a one-byte Spot ID, first hop, empty payload: the smallest operation frame.",
        Frame::Message(base_operation()?),
    );

    let mut op = base_operation()?;
    op.operation_id = OperationId(1001);
    op.target = actor("Zürich/ユーザー/🦀")?;
    op.to_node = NodeRid(3);
    op.fence = fence(6, 4, 12, 8, 40);
    op.object_generation = ObjectGeneration(6);
    op.hop_count = 2;
    op.relayer = Some(node("main", 7, 3)?);
    op.payload = vec![0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, 0x5a, 0x4c, 0x01, 0x00];
    add(
        "message_after_two_follow_hops_utf8_actor",
        "Message relayed twice (hop count 2) to a non-ASCII Actor ID (UTF-8, 2-, 3- and 4-byte characters), with a binary payload holding 0x00 and 0xff. The fence is the last hop's; origin and object generation are the sender's, unchanged by relays.",
        Frame::Message(op),
    );

    let mut op = base_operation()?;
    op.operation_id = OperationId(2);
    op.target = spot("cart/9")?;
    op.reply_route = Some(reply_to_origin(77)?);
    op.payload = b"get".to_vec();
    add(
        "request_with_reply_route",
        "Request (command 2): the reply goes back to the origin node under correlation 77.",
        Frame::Request(op),
    );

    let mut op = base_operation()?;
    op.operation_id = OperationId(P53 - 1);
    op.to_node = NodeRid(P53);
    op.fence = fence(P53 + 1, P53 - 1, P53, P53 + 1, P53 - 1);
    op.object_generation = ObjectGeneration(P53 + 1);
    op.origin = node("main", P53, P53 + 1)?;
    op.reply_route = Some(ReplyRoute {
        node: node("main", P53 + 1, P53 - 1)?,
        correlation: CorrelationId(P53),
    });
    add(
        "request_generations_around_2p53",
        "u64 fields at 2^53-1 (9007199254740991), 2^53 and 2^53+1 (9007199254740993): a reader that parses them as IEEE doubles gets 2^53+1 wrong. Values are decimal strings in this JSON for that reason.",
        Frame::Request(op),
    );

    let max = u64::MAX;
    let mut op = base_operation()?;
    op.operation_id = OperationId(max);
    op.target = spot("max")?;
    op.origin = node("mesh-name-of-23-bytes-x", max, max)?;
    op.to_node = NodeRid(max);
    op.fence = fence(max, max, max, max, max);
    op.object_generation = ObjectGeneration(max);
    op.hop_count = u8::MAX;
    op.relayer = Some(node("mesh-name-of-23-bytes-x", max, max)?);
    op.reply_route = Some(ReplyRoute {
        node: node("mesh-name-of-23-bytes-x", max, max)?,
        correlation: CorrelationId(max),
    });
    op.payload = vec![0xff; 4];
    add(
        "request_all_u64_max",
        "Every u64 at u64::MAX (18446744073709551615), the hop count at 255 and a mesh name at its 23-byte maximum: the codec itself bounds neither (admission enforces max_follow_hops).",
        Frame::Request(op),
    );

    let mut op = base_operation()?;
    op.operation_id = OperationId(3);
    op.target = spot(&"i".repeat(1024))?;
    add(
        "message_object_id_1024_bytes",
        "An object ID of exactly 1024 bytes: the default max_object_id_bytes, still accepted (invalid/too_long_object_id_1025 is one byte over).",
        Frame::Message(op),
    );

    for (name, note, reason) in [
        (
            "rejection_stale_route_not_owner",
            "StaleRoute/NotOwner (class 1, reason 1): the target does not own the ID.",
            StaleReason::NotOwner,
        ),
        (
            "rejection_stale_route_node_mismatch",
            "StaleRoute/NodeMismatch (class 1, reason 2): routed to another node or node lifecycle.",
            StaleReason::NodeMismatch,
        ),
        (
            "rejection_stale_route_owner_generation_mismatch",
            "StaleRoute/OwnerGenerationMismatch (class 1, reason 3): same incarnation, another authority owner generation.",
            StaleReason::OwnerGenerationMismatch,
        ),
        (
            "rejection_stale_route_lease_mismatch",
            "StaleRoute/LeaseMismatch (class 1, reason 4): same incarnation, another owner lease.",
            StaleReason::LeaseMismatch,
        ),
    ] {
        add(
            name,
            note,
            Frame::Rejection(base_rejection(RejectionCode::StaleRoute(reason))?),
        );
    }
    for (name, note, reason) in [
        (
            "rejection_unavailable_creating",
            "Unavailable/Creating (class 2, reason 1).",
            UnavailableReason::Creating,
        ),
        (
            "rejection_unavailable_releasing",
            "Unavailable/Releasing (class 2, reason 2).",
            UnavailableReason::Releasing,
        ),
        (
            "rejection_unavailable_lease_expired",
            "Unavailable/LeaseExpired (class 2, reason 3).",
            UnavailableReason::LeaseExpired,
        ),
        (
            "rejection_unavailable_owner_not_live",
            "Unavailable/OwnerNotLive (class 2, reason 4).",
            UnavailableReason::OwnerNotLive,
        ),
        (
            "rejection_unavailable_stale_route",
            "Unavailable/StaleRoute (class 2, reason 5).",
            UnavailableReason::StaleRoute,
        ),
        (
            "rejection_unavailable_admission_deadline_passed",
            "Unavailable/AdmissionDeadlinePassed (class 2, reason 6).",
            UnavailableReason::AdmissionDeadlinePassed,
        ),
        (
            "rejection_unavailable_follow_hop_limit",
            "Unavailable/FollowHopLimit (class 2, reason 7): a Message Follow chain hit max_follow_hops or looped.",
            UnavailableReason::FollowHopLimit,
        ),
        (
            "rejection_unavailable_relocation_failed",
            "Unavailable/RelocationFailed (class 2, reason 8): the object's relocation failed while the operation was held for it (the owner CAS was refused, or the move was abandoned); no owner ran it.",
            UnavailableReason::RelocationFailed,
        ),
    ] {
        add(
            name,
            note,
            Frame::Rejection(base_rejection(RejectionCode::Unavailable(reason))?),
        );
    }
    let mut rejection = base_rejection(RejectionCode::InvalidOperation)?;
    rejection.target = actor("user-42")?;
    rejection.rejected_by = node("main", 3, 8)?;
    add(
        "rejection_invalid_operation",
        "InvalidOperation (class 3, reason 0): a Message Follow route of another incarnation or owner tenure than the operation.",
        Frame::Rejection(rejection),
    );

    let mut rejection = base_rejection(RejectionCode::StaleRoute(StaleReason::NodeMismatch))?;
    rejection.operation_id = OperationId(2);
    rejection.target = spot("cart/9")?;
    rejection.reply_route = Some(reply_to_origin(77)?);
    add(
        "rejection_stale_route_request_with_reply_route",
        "StaleRoute/NodeMismatch refusing request_with_reply_route (operation 2, spot \"cart/9\"): a refused request's Rejection carries its reply route (presence 1, node, correlation 77) after class and reason, and completes that request by correlation (Late if it already ended).",
        Frame::Rejection(rejection),
    );
    let mut rejection = base_rejection(RejectionCode::InvalidOperation)?;
    rejection.operation_id = OperationId(22);
    rejection.target = actor("user-42")?;
    rejection.rejected_by = node("main", 3, 8)?;
    rejection.reply_route = Some(ReplyRoute {
        node: node("main", 1, P53 + 1)?,
        correlation: CorrelationId(u64::MAX),
    });
    add(
        "rejection_invalid_operation_with_reply_route",
        "InvalidOperation (class 3, reason 0) refusing a relayed request (operation 22): carries the request's reply route, node generation 2^53+1 (9007199254740993) and correlation u64::MAX (18446744073709551615).",
        Frame::Rejection(rejection),
    );

    add(
        "message_follow_without_reply_route",
        "Command 50 messageFollow after relaying a one-way message: source is the old owner's tenure, destination the new owner's; no reply route.",
        Frame::MessageFollow(base_follow(None)?),
    );
    let mut follow = base_follow(Some(reply_to_origin(5150)?))?;
    follow.hop_count = 2;
    follow.relayed_messages = P53 + 1;
    follow.relayed_bytes = u64::MAX;
    follow.operation_id = OperationId(22);
    add(
        "message_follow_with_reply_route",
        "Command 50 messageFollow after relaying a request: carries the request's reply route; queue counters at 2^53+1 and u64::MAX.",
        Frame::MessageFollow(follow),
    );

    add(
        "reply_ok_empty_payload",
        "Reply (command 3) to request_with_reply_route (correlation 77, operation 2) from node 2: result Ok (tag 1) with an empty payload, the smallest reply.",
        Frame::Reply(base_reply(ReplyResult::Ok(Vec::new()))?),
    );
    let mut reply = base_reply(ReplyResult::Ok(vec![
        0x00, 0xff, 0x5a, 0x4c, 0x01, 0x03, 0x00, 0x00, 0x80, 0x7f, 0x02, 0x01,
    ]))?;
    reply.correlation = CorrelationId(78);
    reply.operation_id = OperationId(1002);
    add(
        "reply_ok_binary_payload",
        "Reply Ok with a binary payload holding 0x00, 0xff, a frame-header look-alike (\"ZL\", 1, 3) and bytes equal to the result and error-kind tags: the payload is opaque.",
        Frame::Reply(reply),
    );
    let mut reply = base_reply(reply_error(
        ReplyErrorKind::Handler,
        500,
        "handler failed: Zürich/ユーザー/🦀 not found",
    ))?;
    reply.correlation = CorrelationId(79);
    reply.operation_id = OperationId(1003);
    add(
        "reply_error_handler_utf8_message",
        "Reply Error (tag 2), kind Handler (1), code 500, a UTF-8 message with 2-, 3- and 4-byte characters (the length counts bytes, not characters).",
        Frame::Reply(reply),
    );
    let mut reply = base_reply(reply_error(
        ReplyErrorKind::Decode,
        400,
        "cannot decode request: champ « quantité » manquant — ≠ 🦀",
    ))?;
    reply.correlation = CorrelationId(80);
    reply.operation_id = OperationId(1004);
    add(
        "reply_error_decode_utf8_message",
        "Reply Error, kind Decode (2): the application could not decode the request; code 400 and a UTF-8 message.",
        Frame::Reply(reply),
    );
    let mut reply = base_reply(reply_error(ReplyErrorKind::Handler, 0, ""))?;
    reply.correlation = CorrelationId(81);
    reply.operation_id = OperationId(1005);
    add(
        "reply_error_handler_empty_message",
        "Reply Error, kind Handler, code 0 and an empty message (length 0): both are allowed.",
        Frame::Reply(reply),
    );
    let long = "é".repeat(MAX_ERROR_MESSAGE_BYTES / 2 - 2) + "🦀";
    assert_eq!(long.len(), MAX_ERROR_MESSAGE_BYTES);
    let mut reply = base_reply(reply_error(ReplyErrorKind::Decode, 422, &long))?;
    reply.correlation = CorrelationId(82);
    reply.operation_id = OperationId(1006);
    add(
        "reply_error_message_4096_bytes",
        "Reply Error with a message of exactly 4096 bytes (2046 'é' then one 4-byte '🦀'): MAX_ERROR_MESSAGE_BYTES, still accepted (invalid/too_long_reply_error_message_4097 is one byte over).",
        Frame::Reply(reply),
    );
    let mut reply = base_reply(ReplyResult::Ok(b"ok".to_vec()))?;
    reply.correlation = CorrelationId(P53 + 1);
    reply.operation_id = OperationId(P53 - 1);
    reply.replier = node("main", P53, P53 + 1)?;
    add(
        "reply_ok_around_2p53",
        "Reply Ok with correlation 2^53+1 (9007199254740993), operation id 2^53-1 (9007199254740991), replier rid 2^53 and generation 2^53+1: decimal strings in this JSON.",
        Frame::Reply(reply),
    );
    let max = u64::MAX;
    let mut reply = base_reply(reply_error(ReplyErrorKind::Decode, u32::MAX, "max"))?;
    reply.correlation = CorrelationId(max);
    reply.operation_id = OperationId(max);
    reply.replier = node("mesh-name-of-23-bytes-x", max, max)?;
    add(
        "reply_error_all_u64_max",
        "Reply Error with correlation, operation id, replier rid and generation at u64::MAX (18446744073709551615), the error code at u32::MAX (4294967295) and a 23-byte mesh name.",
        Frame::Reply(reply),
    );
    let mut reply = base_reply(ReplyResult::Ok(vec![0xff; 4]))?;
    reply.correlation = CorrelationId(max - 1);
    reply.operation_id = OperationId(P53);
    add(
        "reply_ok_correlation_u64_max_minus_1",
        "Reply Ok with correlation u64::MAX-1 (18446744073709551614) and operation id 2^53 (9007199254740992).",
        Frame::Reply(reply),
    );
    cases.extend(session_valid_cases()?);
    cases.extend(relocation_valid_cases()?);
    Ok(cases)
}

// --------------------------------------------------------------- invalid --

struct Invalid {
    name: &'static str,
    note: &'static str,
    kind: &'static str,
    bytes: Vec<u8>,
    /// The limits it is decoded under (and that its JSON states).
    limits: DecodeLimits,
}

/// The bytes of `frame` with its body changed by `edit` and the header's
/// body length recomputed, so the edit is what the decoder trips on.
fn edit_body(frame: &Frame, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = wire::encode(frame);
    let mut body = bytes[HEADER_LEN..].to_vec();
    edit(&mut body);
    let mut out = bytes[..6].to_vec();
    let len = u32::try_from(body.len()).expect("test bodies are small");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// The bytes of `frame` with header byte `at` set to `value`.
fn patch_header(frame: &Frame, at: usize, value: u8) -> Vec<u8> {
    patch(wire::encode(frame), at, value)
}

fn patch(mut bytes: Vec<u8>, at: usize, value: u8) -> Vec<u8> {
    bytes[at] = value;
    bytes
}

/// Body offset of the object kind byte in a Message/Request body (after the
/// operation id).
const OP_KIND_AT: usize = 8;

/// Body offset of the origin's mesh-name length in a Message/Request body
/// whose object ID is `id_len` bytes.
fn op_mesh_at(id_len: usize) -> usize {
    OP_KIND_AT + 1 + 2 + id_len
}

fn invalid_cases() -> Res<Vec<Invalid>> {
    let message = Frame::Message(base_operation()?);
    let mut op = base_operation()?;
    op.reply_route = Some(reply_to_origin(77)?);
    op.payload = b"get".to_vec();
    let request = Frame::Request(op);
    let follow = Frame::MessageFollow(base_follow(None)?);
    let follow_reply = Frame::MessageFollow(base_follow(Some(reply_to_origin(5150)?))?);
    let rejection = Frame::Rejection(base_rejection(RejectionCode::StaleRoute(
        StaleReason::NotOwner,
    ))?);
    let mut refused_request = base_rejection(RejectionCode::StaleRoute(StaleReason::NotOwner))?;
    refused_request.reply_route = Some(reply_to_origin(77)?);
    let rejection_reply = Frame::Rejection(refused_request);
    // Both rejections: spot "s" (1-byte ID) refused by node "main" (4 bytes).
    let class_at = json::rejection_class_at(1, 4);
    let reply_ok = Frame::Reply(base_reply(ReplyResult::Ok(b"pong".to_vec()))?);
    let reply_err = Frame::Reply(base_reply(reply_error(
        ReplyErrorKind::Handler,
        500,
        "Zürich 🦀",
    ))?);
    // Both replies come from node "main": a 4-byte mesh name.
    let tag_at = json::reply_tag_at(4);
    let message_bytes = wire::encode(&message);
    // In `message`: 1-byte ID, no reply route, empty payload.
    let msg_presence_at = message_bytes.len() - HEADER_LEN - 4 - 1;
    let msg_mesh_at = op_mesh_at(1);

    let mut cases = Vec::new();
    let mut add = |name, kind, note, bytes| {
        cases.push(Invalid {
            name,
            note,
            kind,
            bytes,
            limits: DecodeLimits::default(),
        })
    };

    // Header.
    add(
        "truncated_empty",
        "Truncated",
        "No bytes at all.",
        Vec::new(),
    );
    add(
        "truncated_header",
        "Truncated",
        "Five bytes: the header stops before its reserved byte.",
        message_bytes[..5].to_vec(),
    );
    add(
        "truncated_body_length",
        "Truncated",
        "The header stops inside its 4-byte body length.",
        message_bytes[..8].to_vec(),
    );
    add(
        "bad_magic",
        "BadMagic",
        "Starts with \"ZM\" instead of \"ZL\".",
        patch_header(&message, 1, b'M'),
    );
    add(
        "bad_magic_lowercase",
        "BadMagic",
        "Starts with \"zl\": the magic is case-sensitive.",
        patch(patch_header(&message, 0, b'z'), 1, b'l'),
    );
    add(
        "unsupported_version_0",
        "UnsupportedVersion",
        "Wire version 0.",
        patch_header(&message, 2, 0),
    );
    add(
        "unsupported_version_1",
        "UnsupportedVersion",
        "Wire version 1: it named no relayer, so a relayed frame's sender could not be checked.",
        patch_header(&message, 2, 1),
    );
    add(
        "unsupported_version_3",
        "UnsupportedVersion",
        "Wire version 3: a future version is refused, not guessed at.",
        patch_header(&message, 2, 3),
    );
    let mut relayed_at_hop_0 = base_operation()?;
    relayed_at_hop_0.relayer = Some(node("main", 7, 3)?);
    add(
        "relayer_at_hop_0",
        "Invalid",
        "A relayer on an operation at hop 0: only a relayed hop names one.",
        wire::encode(&Frame::Message(relayed_at_hop_0)),
    );
    let mut relayed_without_relayer = base_operation()?;
    relayed_without_relayer.hop_count = 1;
    add(
        "no_relayer_after_a_hop",
        "Invalid",
        "An operation at hop 1 that names no relayer: its sender could not be checked.",
        wire::encode(&Frame::Message(relayed_without_relayer)),
    );
    add(
        "unknown_command_0",
        "UnknownCommand",
        "Command 0 is not defined.",
        patch_header(&message, 3, 0),
    );
    add(
        "unknown_command_5",
        "UnknownCommand",
        "Command 5, one past Rejection (4): commands 5..=9, 17..=41 and 51..=255 are not defined.",
        patch_header(&message, 3, 5),
    );
    add(
        "unknown_command_255",
        "UnknownCommand",
        "Command 255.",
        patch_header(&message, 3, 255),
    );
    add(
        "flags_on_message_follow",
        "FlagsNotAllowed",
        "Command 50 with flag bit 0x01: messageFollow allows no flags at all.",
        patch_header(&follow, 4, 0x01),
    );
    add(
        "flags_high_bit_on_message_follow",
        "FlagsNotAllowed",
        "Command 50 with flag bit 0x80.",
        patch_header(&follow, 4, 0x80),
    );
    add(
        "flags_on_request",
        "FlagsNotAllowed",
        "No flag is defined on any command yet.",
        patch_header(&request, 4, 0x02),
    );
    add(
        "reserved_byte_set",
        "FlagsNotAllowed",
        "The reserved header byte must be 0.",
        patch_header(&message, 5, 0x01),
    );
    let mut bytes = message_bytes.clone();
    bytes.pop();
    add(
        "length_mismatch_body_cut",
        "LengthMismatch",
        "The last body byte is missing; the header still declares the full body.",
        bytes,
    );
    let mut bytes = message_bytes.clone();
    bytes.push(0);
    add(
        "length_mismatch_extra_byte",
        "LengthMismatch",
        "One byte more than the declared body length.",
        bytes,
    );
    add(
        "length_mismatch_header_only",
        "LengthMismatch",
        "A whole header declaring a body, and no body.",
        message_bytes[..HEADER_LEN].to_vec(),
    );

    // Body truncated, header consistent with it.
    add(
        "truncated_in_fence",
        "Truncated",
        "Body length matches the bytes present, but the body ends inside the route fence.",
        edit_body(&message, |b| b.truncate(msg_mesh_at + 1 + 4 + 16 + 8 + 12)),
    );
    add(
        "truncated_payload",
        "Truncated",
        "The payload length says 10 bytes; 4 follow.",
        edit_body(&message, |b| {
            let at = b.len() - 4;
            b[at..].copy_from_slice(&10u32.to_be_bytes());
            b.extend_from_slice(&[1, 2, 3, 4]);
        }),
    );
    add(
        "truncated_follow_before_reply_route",
        "Truncated",
        "A messageFollow body that stops before its reply-route presence byte.",
        edit_body(&follow, |b| {
            b.pop();
        }),
    );
    add(
        "truncated_empty_body",
        "Truncated",
        "A Rejection header declaring an empty body.",
        edit_body(&rejection, Vec::clear),
    );
    add(
        "truncated_rejection_before_reply_route",
        "Truncated",
        "A Rejection body that stops after class and reason, before its reply-route presence byte: the layout before the reply route was added.",
        edit_body(&rejection, |b| b.truncate(class_at + 2)),
    );
    add(
        "truncated_rejection_in_reply_route",
        "Truncated",
        "A Rejection with a reply route whose body stops 4 bytes into the route's 8-byte correlation.",
        edit_body(&rejection_reply, |b| {
            let len = b.len() - 4;
            b.truncate(len);
        }),
    );

    // Bounds.
    let mut op = base_operation()?;
    op.target = spot(&"i".repeat(1025))?;
    add(
        "too_long_object_id_1025",
        "TooLong",
        "An object ID of 1025 bytes, one over the default max_object_id_bytes (1024).",
        wire::encode(&Frame::Message(op)),
    );
    add(
        "too_long_payload",
        "TooLong",
        "A payload length of 1 MiB + 1, over the default max_payload_bytes (1048576); refused from the length alone, before any payload byte is read.",
        edit_body(&message, |b| {
            let at = b.len() - 4;
            b[at..].copy_from_slice(&((1u32 << 20) + 1).to_be_bytes());
        }),
    );

    // Field values.
    add(
        "invalid_object_kind_0",
        "Invalid",
        "Object kind 0: only 1 (spot) and 2 (actor) exist.",
        edit_body(&message, |b| b[OP_KIND_AT] = 0),
    );
    add(
        "invalid_object_kind_3",
        "Invalid",
        "Object kind 3.",
        edit_body(&message, |b| b[OP_KIND_AT] = 3),
    );
    add(
        "invalid_empty_object_id",
        "Invalid",
        "An object ID of 0 bytes.",
        edit_body(&message, |b| {
            b[OP_KIND_AT + 1..OP_KIND_AT + 3].copy_from_slice(&0u16.to_be_bytes());
            b.remove(OP_KIND_AT + 3);
        }),
    );
    add(
        "invalid_object_id_not_utf8",
        "Invalid",
        "An object ID byte 0xff: IDs are UTF-8.",
        edit_body(&message, |b| b[OP_KIND_AT + 3] = 0xff),
    );
    add(
        "invalid_object_id_overlong_utf8",
        "Invalid",
        "An object ID of 0xc0 0xaf, an overlong encoding of '/': not UTF-8.",
        edit_body(&message, |b| {
            b[OP_KIND_AT + 1..OP_KIND_AT + 3].copy_from_slice(&2u16.to_be_bytes());
            b[OP_KIND_AT + 3] = 0xc0;
            b.insert(OP_KIND_AT + 4, 0xaf);
        }),
    );
    add(
        "invalid_empty_mesh_name",
        "Invalid",
        "An origin mesh name of 0 bytes.",
        edit_body(&message, |b| {
            b[msg_mesh_at] = 0;
            b.drain(msg_mesh_at + 1..msg_mesh_at + 5);
        }),
    );
    add(
        "invalid_mesh_name_24_bytes",
        "Invalid",
        "An origin mesh name of 24 bytes, over MAX_MESH_NAME_BYTES (23).",
        edit_body(&message, |b| {
            b[msg_mesh_at] = 24;
            let extra = b"-twenty-bytes-more--";
            for (i, byte) in extra.iter().enumerate() {
                b.insert(msg_mesh_at + 5 + i, *byte);
            }
        }),
    );
    add(
        "invalid_reply_route_presence_2",
        "Invalid",
        "A reply-route presence byte of 2: only 0 and 1 exist.",
        edit_body(&message, |b| b[msg_presence_at] = 2),
    );
    add(
        "invalid_message_with_reply_route",
        "Invalid",
        "A Message (command 1) carrying a reply route: only a Request has one.",
        patch_header(&request, 3, 1),
    );
    add(
        "invalid_request_without_reply_route",
        "Invalid",
        "A Request (command 2) with no reply route.",
        patch_header(&message, 3, 2),
    );
    for (name, note, class, reason) in [
        (
            "invalid_rejection_class_0",
            "Rejection class 0 is not defined.",
            0,
            1,
        ),
        (
            "invalid_rejection_class_4",
            "Rejection class 4 is not defined.",
            4,
            1,
        ),
        (
            "invalid_stale_route_reason_0",
            "StaleRoute reason 0: reasons count from 1.",
            1,
            0,
        ),
        (
            "invalid_stale_route_reason_5",
            "StaleRoute reason 5: one past the table.",
            1,
            5,
        ),
        (
            "invalid_unavailable_reason_9",
            "Unavailable reason 9: one past the table.",
            2,
            9,
        ),
        (
            "invalid_invalid_operation_reason_1",
            "InvalidOperation takes reason 0 only.",
            3,
            1,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&rejection, |b| {
                b[class_at] = class;
                b[class_at + 1] = reason;
            }),
        );
    }
    add(
        "invalid_rejection_reply_route_presence_2",
        "Invalid",
        "A Rejection whose reply-route presence byte (right after class and reason) is 2: only 0 and 1 exist.",
        edit_body(&rejection, |b| b[class_at + 2] = 2),
    );
    add(
        "invalid_follow_reply_route_presence_2",
        "Invalid",
        "A messageFollow reply-route presence byte of 2.",
        edit_body(&follow, |b| {
            let last = b.len() - 1;
            b[last] = 2;
        }),
    );

    // Reply (command 3).
    add(
        "flags_on_reply",
        "FlagsNotAllowed",
        "A Reply with flag bit 0x01: no flag is defined on any command yet.",
        patch_header(&reply_ok, 4, 0x01),
    );
    add(
        "invalid_reply_result_0",
        "Invalid",
        "Reply result tag 0: only 1 (ok) and 2 (error) exist.",
        edit_body(&reply_ok, |b| b[tag_at] = 0),
    );
    add(
        "invalid_reply_result_3",
        "Invalid",
        "Reply result tag 3.",
        edit_body(&reply_ok, |b| b[tag_at] = 3),
    );
    add(
        "invalid_reply_error_kind_0",
        "Invalid",
        "Reply error kind 0: only 1 (handler) and 2 (decode) exist.",
        edit_body(&reply_err, |b| b[tag_at + 1] = 0),
    );
    add(
        "invalid_reply_error_kind_3",
        "Invalid",
        "Reply error kind 3.",
        edit_body(&reply_err, |b| b[tag_at + 1] = 3),
    );
    add(
        "invalid_reply_error_message_not_utf8",
        "Invalid",
        "A reply error message whose first byte is 0xff: messages are UTF-8.",
        edit_body(&reply_err, |b| b[tag_at + 8] = 0xff),
    );
    add(
        "invalid_reply_error_message_cut_utf8",
        "Invalid",
        "A reply error message that ends inside a character: its last 2 bytes (of the 4-byte 🦀) are cut and its length says so; the bytes present are not UTF-8.",
        edit_body(&reply_err, |b| {
            let len = u16::from_be_bytes([b[tag_at + 6], b[tag_at + 7]]) - 2;
            b[tag_at + 6..tag_at + 8].copy_from_slice(&len.to_be_bytes());
            b.truncate(b.len() - 2);
        }),
    );
    add(
        "invalid_reply_replier_empty_mesh_name",
        "Invalid",
        "A Reply whose replier mesh name is 0 bytes.",
        edit_body(&reply_ok, |b| {
            b[16] = 0;
            b.drain(17..21);
        }),
    );
    let mut too_long = reply_error(ReplyErrorKind::Handler, 1, "");
    if let ReplyResult::Error(e) = &mut too_long {
        e.message = "m".repeat(MAX_ERROR_MESSAGE_BYTES);
    }
    add(
        "too_long_reply_error_message_4097",
        "TooLong",
        "A reply error message length of 4097, one over MAX_ERROR_MESSAGE_BYTES (4096), with all 4097 bytes present (ASCII).",
        edit_body(&Frame::Reply(base_reply(too_long)?), |b| {
            b[tag_at + 6..tag_at + 8].copy_from_slice(&4097u16.to_be_bytes());
            b.push(b'm');
        }),
    );
    add(
        "too_long_reply_error_message_65535",
        "TooLong",
        "A reply error message length of 65535 and no message bytes: refused from the length alone, before any byte is read.",
        edit_body(&reply_err, |b| {
            b[tag_at + 6..tag_at + 8].copy_from_slice(&u16::MAX.to_be_bytes());
            b.truncate(tag_at + 8);
        }),
    );
    add(
        "too_long_reply_payload",
        "TooLong",
        "A Reply Ok payload length of 1 MiB + 1, over the default max_payload_bytes (1048576), with no payload bytes: refused from the length alone.",
        edit_body(&reply_ok, |b| {
            b[tag_at + 1..tag_at + 5].copy_from_slice(&((1u32 << 20) + 1).to_be_bytes());
            b.truncate(tag_at + 5);
        }),
    );
    add(
        "truncated_reply_in_operation_id",
        "Truncated",
        "A Reply body that stops 4 bytes into its operation id.",
        edit_body(&reply_ok, |b| b.truncate(12)),
    );
    add(
        "truncated_reply_before_result",
        "Truncated",
        "A Reply body that stops after the replier node, before its result tag.",
        edit_body(&reply_ok, |b| b.truncate(tag_at)),
    );
    add(
        "truncated_reply_payload",
        "Truncated",
        "A Reply Ok whose payload length says 10 bytes; 4 follow.",
        edit_body(&reply_ok, |b| {
            b[tag_at + 1..tag_at + 5].copy_from_slice(&10u32.to_be_bytes());
        }),
    );
    add(
        "truncated_reply_in_error_code",
        "Truncated",
        "A Reply Error body that stops inside its 4-byte error code.",
        edit_body(&reply_err, |b| b.truncate(tag_at + 4)),
    );
    add(
        "truncated_reply_error_message",
        "Truncated",
        "A Reply Error whose message length says 3 bytes more than follow.",
        edit_body(&reply_err, |b| {
            let len = u16::from_be_bytes([b[tag_at + 6], b[tag_at + 7]]) + 3;
            b[tag_at + 6..tag_at + 8].copy_from_slice(&len.to_be_bytes());
        }),
    );

    // Trailing bytes.
    add(
        "trailing_bytes_after_message",
        "TrailingBytes",
        "A whole Message body, then one byte more, all within the declared body length.",
        edit_body(&message, |b| b.push(0)),
    );
    add(
        "trailing_bytes_after_message_follow",
        "TrailingBytes",
        "A whole messageFollow body with a reply route, then 3 bytes more.",
        edit_body(&follow_reply, |b| b.extend_from_slice(b"ZL\x01")),
    );
    add(
        "trailing_bytes_after_reply_error",
        "TrailingBytes",
        "A whole Reply Error body, then 2 bytes more: the message length, not the body length, ends the message.",
        edit_body(&reply_err, |b| b.extend_from_slice(b"!!")),
    );
    cases.extend(session_invalid_cases()?);
    cases.extend(relocation_invalid_cases()?);
    Ok(cases)
}

// -------------------------------------------------------------- session --

/// The Session of most session cases: session 7, lifecycle 2, owned by
/// `origin()` (node 1 of mesh "main", lifecycle 3).
fn base_session() -> Res<SessionRef> {
    Ok(SessionRef {
        owner: origin()?,
        id: SessionId(7),
        generation: SessionGeneration(2),
    })
}

fn binding(generation: u64, token: u64) -> Binding {
    Binding {
        generation: BindingGeneration(generation),
        token: BindingToken(token),
    }
}

fn actor_route(
    owner: NodeRef,
    object: u64,
    owner_generation: u64,
    lease: u64,
    remaining_ms: u64,
) -> ActorRoute {
    ActorRoute {
        owner,
        object_generation: ObjectGeneration(object),
        authority_owner_generation: AuthorityOwnerGeneration(owner_generation),
        owner_lease_generation: OwnerLeaseGeneration(lease),
        lease_remaining_ms: remaining_ms,
    }
}

/// Actor "user-42" (incarnation 4) at its first owner: node 2 of mesh
/// "main" (lifecycle 5), owner generation 2, lease 9.
fn source_route(remaining_ms: u64) -> Res<ActorRoute> {
    Ok(actor_route(node("main", 2, 5)?, 4, 2, 9, remaining_ms))
}

/// The same incarnation after a move: node 3 (lifecycle 8), owner
/// generation 3, lease 11.
fn target_route(remaining_ms: u64) -> Res<ActorRoute> {
    Ok(actor_route(node("main", 3, 8)?, 4, 3, 11, remaining_ms))
}

/// The binding the first owner issued: generation 1, token 9001.
fn first_binding() -> Binding {
    binding(1, 9001)
}

fn bind(route: ActorRoute, previous: Option<(NodeRef, Binding)>) -> Res<SessionFrame> {
    Ok(SessionFrame::Bind {
        operation_id: OperationId(31),
        session: base_session()?,
        actor: actor("user-42")?,
        route,
        previous,
    })
}

fn bind_reply(result: BindResult) -> Res<SessionFrame> {
    Ok(SessionFrame::BindReply {
        operation_id: OperationId(31),
        session: base_session()?,
        actor: actor("user-42")?,
        result,
    })
}

fn relay(
    operation: u64,
    route: ActorRoute,
    sequence: u64,
    hop_count: u8,
    kind: RelayKind,
    payload: &[u8],
) -> Res<SessionFrame> {
    Ok(SessionFrame::Relay {
        operation_id: OperationId(operation),
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        route,
        sequence,
        hop_count,
        // The old owner relays a followed hop.
        relayer: if hop_count > 0 {
            Some(node("main", 2, 5)?)
        } else {
            None
        },
        kind,
        payload: payload.to_vec(),
    })
}

fn session_refused(reason: SessionRefusal) -> Res<SessionFrame> {
    Ok(SessionFrame::Refused {
        operation_id: OperationId(41),
        session: base_session()?,
        actor: actor("user-42")?,
        reason,
    })
}

fn seal() -> Res<SessionFrame> {
    Ok(SessionFrame::Seal {
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        object_generation: ObjectGeneration(4),
        relocation: RelocationId(61),
        source: node("main", 2, 5)?,
    })
}

fn sealed(sealed: bool) -> Res<SessionFrame> {
    Ok(SessionFrame::Sealed {
        session: base_session()?,
        actor: actor("user-42")?,
        relocation: RelocationId(61),
        sealed,
    })
}

fn route_change(change: RouteChange) -> Res<SessionFrame> {
    Ok(SessionFrame::Route {
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        object_generation: ObjectGeneration(4),
        relocation: RelocationId(61),
        change,
    })
}

/// Command 44 refresh: the Actor owner renewed its lease. Not a relocation,
/// so the relocation id is 0.
fn route_refresh(route: ActorRoute) -> Res<SessionFrame> {
    Ok(SessionFrame::Route {
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        object_generation: ObjectGeneration(4),
        relocation: RelocationId(0),
        change: RouteChange::Refresh(route),
    })
}

fn tombstone() -> Res<SessionFrame> {
    Ok(SessionFrame::Tombstone {
        operation_id: OperationId(32),
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        by: node("main", 3, 8)?,
    })
}

fn tombstone_ack() -> Res<SessionFrame> {
    Ok(SessionFrame::TombstoneAck {
        operation_id: OperationId(32),
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
    })
}

fn push(payload: &[u8]) -> Res<SessionFrame> {
    Ok(SessionFrame::Push {
        operation_id: OperationId(51),
        session: base_session()?,
        actor: actor("user-42")?,
        binding: first_binding(),
        object_generation: ObjectGeneration(4),
        payload: payload.to_vec(),
    })
}

/// A payload that holds 0x00, 0xff, a frame-header look-alike ("ZL", 1, 14)
/// and bytes equal to every session code: opaque to the codec.
const SESSION_PAYLOAD: [u8; 12] = [
    0x00, 0xff, 0x5a, 0x4c, 0x01, 0x0e, 0x00, 0x00, 0x01, 0x02, 0x03, 0x2c,
];

fn session_valid_cases() -> Res<Vec<Valid>> {
    let mut cases = Vec::new();
    let mut add = |name, note, frame| {
        cases.push(Valid {
            name,
            note,
            frame: Frame::Session(frame),
        })
    };
    let max = u64::MAX;

    // Command 10: bind and rebind.
    add(
        "session_bind_first",
        "Command 10 bind of session 7 (lifecycle 2, owner node 1) to Actor \"user-42\", sent to the location the caller's ActorRef names (node 2, incarnation 4, owner generation 2, lease 9; lease_remaining_ms 0: a bind request has no lease view). No previous binding: presence byte 0, nothing after it.",
        bind(source_route(0)?, None)?,
    );
    let mut frame = bind(
        target_route(0)?,
        Some((node("main", 2, 5)?, first_binding())),
    )?;
    if let SessionFrame::Bind { operation_id, .. } = &mut frame {
        *operation_id = OperationId(32);
    }
    add(
        "session_bind_rebind_with_previous",
        "Command 10 rebind to another owner (node 3): presence byte 1, then the previous owner (node 2, lifecycle 5) and the binding it replaces (generation 1, token 9001), which the new owner tombstones (command 12) and waits the ACK of before it replies.",
        frame,
    );
    let mut session = base_session()?;
    session.id = SessionId(P53);
    session.generation = SessionGeneration(P53 + 1);
    add(
        "session_bind_rebind_around_2p53",
        "Command 10 rebind with u64 fields at 2^53-1 (9007199254740991), 2^53 and 2^53+1 (9007199254740993): operation id, session id and generation, the route's generations and the previous node and binding. Decimal strings in this JSON.",
        SessionFrame::Bind {
            operation_id: OperationId(P53 - 1),
            session,
            actor: actor("user-42")?,
            route: actor_route(node("main", P53, P53 + 1)?, P53 + 1, P53 - 1, P53, 0),
            previous: Some((node("main", P53 - 1, P53)?, binding(P53 + 1, P53))),
        },
    );
    let wide = "mesh-name-of-23-bytes-x";
    add(
        "session_bind_rebind_all_u64_max",
        "Command 10 rebind with every u64 at u64::MAX (18446744073709551615), lease_remaining_ms included, and every mesh name at its 23-byte maximum.",
        SessionFrame::Bind {
            operation_id: OperationId(max),
            session: SessionRef {
                owner: node(wide, max, max)?,
                id: SessionId(max),
                generation: SessionGeneration(max),
            },
            actor: actor("max")?,
            route: actor_route(node(wide, max, max)?, max, max, max, max),
            previous: Some((node(wide, max, max)?, binding(max, max))),
        },
    );

    // Command 11: the terminal reply.
    add(
        "session_bind_reply_bound",
        "Command 11 terminal reply Bound (result 0): the verified route (node 2, incarnation 4, owner generation 2, lease 9, 2500 ms of lease left at the owner) and the registered binding (generation 1, token 9001), which the Session owner stores.",
        bind_reply(BindResult::Bound {
            route: source_route(2500)?,
            binding: first_binding(),
        })?,
    );
    for (name, note, why) in [
        (
            "session_bind_reply_refused_not_owner",
            "Command 11 Refused NotOwner (result 1): the node does not own the Actor (or it is not Ready); nothing follows the result byte.",
            BindRefusal::NotOwner,
        ),
        (
            "session_bind_reply_refused_object_generation",
            "Command 11 Refused ObjectGeneration (result 2): another incarnation than the ActorRef names.",
            BindRefusal::ObjectGeneration,
        ),
        (
            "session_bind_reply_refused_node_generation",
            "Command 11 Refused NodeGeneration (result 3): another node lifecycle than the ActorRef names.",
            BindRefusal::NodeGeneration,
        ),
        (
            "session_bind_reply_refused_owner_generation",
            "Command 11 Refused OwnerGeneration (result 4): another authority owner generation.",
            BindRefusal::OwnerGeneration,
        ),
        (
            "session_bind_reply_refused_owner_lease",
            "Command 11 Refused OwnerLease (result 5): another owner lease, or it has run out.",
            BindRefusal::OwnerLease,
        ),
        (
            "session_bind_reply_refused_timeout",
            "Command 11 Refused Timeout (result 6): the previous owner never ACKed the rebind's tombstone within the bind timeout.",
            BindRefusal::Timeout,
        ),
    ] {
        add(name, note, bind_reply(BindResult::Refused(why))?);
    }

    // Commands 12 and 13: tombstone and its ACK.
    add(
        "session_tombstone",
        "Command 12 from the new owner (node 3, lifecycle 8, the `by` node the ACK goes to) to the previous one, in rebind operation 32: remove binding generation 1, token 9001, and only that one.",
        tombstone()?,
    );
    add(
        "session_tombstone_ack",
        "Command 13, the previous owner's ACK of session_tombstone: the same operation, session, Actor and binding; no node.",
        tombstone_ack()?,
    );

    // Command 14: relays.
    add(
        "session_relay_message",
        "Command 14 relay of an application Message (kind 1) on the stored route (node 2, 2500 ms of lease left when bound) under binding 1/9001, session sequence 1, no Message Follow hop, with a binary payload holding 0x00, 0xff, a frame-header look-alike and bytes equal to the session codes.",
        relay(
            41,
            source_route(2500)?,
            1,
            0,
            RelayKind::Message,
            &SESSION_PAYLOAD,
        )?,
    );
    add(
        "session_relay_message_after_follow_hop",
        "Command 14 as the previous owner relays it on its Message Follow route: hop count 1, the route now the destination's (node 3, lifecycle 8, owner generation 3, lease 11, lease_remaining_ms 0), operation id, session, binding and sequence 2 unchanged.",
        relay(
            42,
            target_route(0)?,
            2,
            1,
            RelayKind::Message,
            b"after the move",
        )?,
    );
    add(
        "session_relay_physical_disconnect",
        "Command 14 kind PhysicalDisconnect (2): the Session's connection closed. Sequence 3, empty payload (a disconnect carries none; the codec does not judge the payload).",
        relay(
            43,
            source_route(2500)?,
            3,
            0,
            RelayKind::PhysicalDisconnect,
            &[],
        )?,
    );
    add(
        "session_relay_logical_disconnect",
        "Command 14 kind LogicalDisconnect (3): the application ended the session. Sequence 3, empty payload.",
        relay(
            44,
            source_route(2500)?,
            3,
            0,
            RelayKind::LogicalDisconnect,
            &[],
        )?,
    );
    let mut session = base_session()?;
    session.owner = node("main", P53 + 1, P53)?;
    session.id = SessionId(P53 + 1);
    session.generation = SessionGeneration(P53 - 1);
    add(
        "session_relay_around_2p53",
        "Command 14 Message with the session id, sequence, binding token, lease_remaining_ms and generations at 2^53-1 (9007199254740991), 2^53 and 2^53+1 (9007199254740993), after one follow hop.",
        SessionFrame::Relay {
            operation_id: OperationId(P53),
            session,
            actor: actor("user-42")?,
            binding: binding(P53 - 1, P53 + 1),
            route: actor_route(node("main", P53, P53 - 1)?, P53 + 1, P53, P53 - 1, P53 + 1),
            sequence: P53 + 1,
            hop_count: 1,
            relayer: Some(node("main", P53 + 1, P53)?),
            kind: RelayKind::Message,
            payload: b"2^53".to_vec(),
        },
    );
    add(
        "session_relay_all_u64_max",
        "Command 14 with every u64 at u64::MAX (18446744073709551615), the hop count at 255 (the codec does not bound it; admission enforces max_follow_hops) and 23-byte mesh names.",
        SessionFrame::Relay {
            operation_id: OperationId(max),
            session: SessionRef {
                owner: node(wide, max, max)?,
                id: SessionId(max),
                generation: SessionGeneration(max),
            },
            actor: actor("max")?,
            binding: binding(max, max),
            route: actor_route(node(wide, max, max)?, max, max, max, max),
            sequence: max,
            hop_count: u8::MAX,
            relayer: Some(node(wide, max, max)?),
            kind: RelayKind::LogicalDisconnect,
            payload: Vec::new(),
        },
    );

    // Command 15: push.
    let mut frame = push(&SESSION_PAYLOAD)?;
    if let SessionFrame::Push { actor: a, .. } = &mut frame {
        *a = actor("Zürich/ユーザー/🦀")?;
    }
    add(
        "session_push_utf8_actor",
        "Command 15 push from a non-ASCII Actor (UTF-8, 2-, 3- and 4-byte characters) to its bound Session under binding 1/9001, incarnation 4, with a binary payload.",
        frame,
    );
    add(
        "session_push_empty_payload",
        "Command 15 push with an empty payload: the smallest push.",
        push(&[])?,
    );

    // Command 16: refusals.
    for (name, note, reason) in [
        (
            "session_refused_unknown_binding",
            "Command 16 Refused UnknownBinding (1): no such binding at the Actor owner (never bound, tombstoned or replaced).",
            SessionRefusal::UnknownBinding,
        ),
        (
            "session_refused_stale_route",
            "Command 16 Refused StaleRoute (2): the route is stale and no Message Follow route serves it.",
            SessionRefusal::StaleRoute,
        ),
        (
            "session_refused_object_generation",
            "Command 16 Refused ObjectGeneration (3): another incarnation than the binding's.",
            SessionRefusal::ObjectGeneration,
        ),
    ] {
        add(name, note, session_refused(reason)?);
    }

    // Commands 42, 43, 44: relocation.
    add(
        "session_relocation_seal",
        "Command 42 sessionRelocationSeal from the source coordinator (node 2, lifecycle 5, where the reply goes) to the Session owner: seal binding 1/9001 of incarnation 4 for relocation 61.",
        seal()?,
    );
    add(
        "session_relocation_sealed_true",
        "Command 43 reply to session_relocation_seal: the seal is installed (sealed byte 1).",
        sealed(true)?,
    );
    add(
        "session_relocation_sealed_false",
        "Command 43 reply: no seal installed (sealed byte 0), e.g. the binding named is not the Session owner's.",
        sealed(false)?,
    );
    add(
        "session_relocation_route_commit",
        "Command 44 sessionRelocationRoute commit (change 1), one-way: relocation 61 of incarnation 4 under binding 1/9001 committed; switch to the target route (node 3, lifecycle 8, owner generation 3, lease 11, 3000 ms left) and release the held messages to it.",
        route_change(RouteChange::Commit(target_route(3000)?))?,
    );
    add(
        "session_relocation_route_abort",
        "Command 44 abort (change 2), one-way: relocation 61 failed before relay-ready; release the matching seal and the held messages to the source route. Nothing follows the change byte.",
        route_change(RouteChange::Abort)?,
    );
    add(
        "session_relocation_route_commit_all_u64_max",
        "Command 44 commit with every u64 at u64::MAX (18446744073709551615) and 23-byte mesh names.",
        SessionFrame::Route {
            session: SessionRef {
                owner: node(wide, max, max)?,
                id: SessionId(max),
                generation: SessionGeneration(max),
            },
            actor: actor("max")?,
            binding: binding(max, max),
            object_generation: ObjectGeneration(max),
            relocation: RelocationId(max),
            change: RouteChange::Commit(actor_route(node(wide, max, max)?, max, max, max, max)),
        },
    );
    add(
        "session_relocation_route_refresh",
        "Command 44 refresh (change 3), one-way, relocation id 0: not a relocation; the first owner (node 2, lifecycle 5, owner generation 2, lease 9) renewed its lease and has 5000 ms of it left. The route follows the change byte as in a commit; the Session owner only extends the stored route's deadline (same tenure only) and touches no seal or held message.",
        route_refresh(source_route(5000)?)?,
    );
    add(
        "session_relocation_route_refresh_around_2p53",
        "Command 44 refresh (relocation id 0) with session id, binding, incarnation and the route's generations at 2^53-1 (9007199254740991), 2^53 and 2^53+1 (9007199254740993), and lease_remaining_ms at u64::MAX (18446744073709551615).",
        SessionFrame::Route {
            session: SessionRef {
                owner: origin()?,
                id: SessionId(P53 + 1),
                generation: SessionGeneration(P53),
            },
            actor: actor("user-42")?,
            binding: binding(P53, P53 + 1),
            object_generation: ObjectGeneration(P53 - 1),
            relocation: RelocationId(0),
            change: RouteChange::Refresh(actor_route(
                node("main", P53, P53 + 1)?,
                P53 - 1,
                P53 + 1,
                P53,
                max,
            )),
        },
    );
    add(
        "session_relocation_seal_around_2p53",
        "Command 42 with session id, binding, incarnation and relocation id at 2^53-1 (9007199254740991), 2^53 and 2^53+1 (9007199254740993).",
        SessionFrame::Seal {
            session: SessionRef {
                owner: origin()?,
                id: SessionId(P53 + 1),
                generation: SessionGeneration(P53),
            },
            actor: actor("user-42")?,
            binding: binding(P53, P53 + 1),
            object_generation: ObjectGeneration(P53 - 1),
            relocation: RelocationId(P53 + 1),
            source: node("main", P53 - 1, P53 + 1)?,
        },
    );
    Ok(cases)
}

fn session_invalid_cases() -> Res<Vec<Invalid>> {
    let bind_first = bind(source_route(0)?, None)?;
    let rebind = bind(
        target_route(0)?,
        Some((node("main", 2, 5)?, first_binding())),
    )?;
    let bound = bind_reply(BindResult::Bound {
        route: source_route(2500)?,
        binding: first_binding(),
    })?;
    let refused_bind = bind_reply(BindResult::Refused(BindRefusal::NotOwner))?;
    let relay_message = relay(
        41,
        source_route(2500)?,
        1,
        0,
        RelayKind::Message,
        &SESSION_PAYLOAD,
    )?;
    let push_frame = push(&SESSION_PAYLOAD)?;
    let refused = session_refused(SessionRefusal::StaleRoute)?;
    let seal_frame = seal()?;
    let sealed_frame = sealed(true)?;
    let commit = route_change(RouteChange::Commit(target_route(3000)?))?;
    let abort = route_change(RouteChange::Abort)?;
    let refresh = route_refresh(source_route(5000)?)?;
    let tombstone_frame = tombstone()?;
    let ack = tombstone_ack()?;
    let code_at = |f: &SessionFrame| json::session_code_at(f).expect("a frame with a code byte");
    let s = |f: &SessionFrame| Frame::Session(f.clone());
    let message = Frame::Message(base_operation()?);

    let mut cases = Vec::new();
    let mut add = |name, kind, note, bytes| {
        cases.push(Invalid {
            name,
            note,
            kind,
            bytes,
            limits: DecodeLimits::default(),
        })
    };

    // Header: the commands around the session ranges stay unknown.
    for (name, note, command) in [
        (
            "unknown_command_9",
            "Command 9, one below session bind (10): not defined.",
            9,
        ),
        (
            "unknown_command_17",
            "Command 17, one past session refused (16): not defined.",
            17,
        ),
        (
            "unknown_command_41",
            "Command 41, one below sessionRelocationSeal (42): not defined.",
            41,
        ),
        (
            "unknown_command_51",
            "Command 51, one past messageFollow (50): not defined (45..=49 are the relocation commands).",
            51,
        ),
    ] {
        add(
            name,
            "UnknownCommand",
            note,
            patch_header(&s(&sealed_frame), 3, command),
        );
    }
    add(
        "invalid_message_body_as_session_seal",
        "Invalid",
        "A Message body (message_oneway_short_spot) under command 42: the seal's session owner mesh-name length is read from the operation id's first byte (0), an empty mesh name. Command 42 is no longer an unknown command.",
        patch_header(&message, 3, 42),
    );
    add(
        "flags_on_session_relocation_route",
        "FlagsNotAllowed",
        "Command 44 with flag bit 0x01: no session command takes a flag.",
        patch_header(&s(&commit), 4, 0x01),
    );
    add(
        "reserved_byte_set_on_session_bind",
        "FlagsNotAllowed",
        "Command 10 with its reserved header byte set.",
        patch_header(&s(&bind_first), 5, 0x80),
    );

    // Command 10.
    let at = code_at(&bind_first);
    for (name, note, value) in [
        (
            "invalid_session_bind_previous_presence_2",
            "A bind whose previous-binding presence byte is 2: only 0 and 1 exist.",
            2,
        ),
        (
            "invalid_session_bind_previous_presence_255",
            "A bind whose previous-binding presence byte is 255.",
            255,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&bind_first), |b| b[at] = value),
        );
    }
    add(
        "invalid_session_bind_actor_kind_0",
        "Invalid",
        "A bind whose Actor key kind byte is 0: only 1 (spot) and 2 (actor) exist.",
        edit_body(&s(&bind_first), |b| b[8 + 33 + 4] = 0),
    );
    let mut frame = bind_first.clone();
    if let SessionFrame::Bind { actor: a, .. } = &mut frame {
        *a = actor(&"a".repeat(1025))?;
    }
    add(
        "too_long_session_bind_actor_id_1025",
        "TooLong",
        "A bind to an Actor ID of 1025 bytes, one over the default max_object_id_bytes (1024).",
        wire::encode(&s(&frame)),
    );
    add(
        "truncated_session_bind_before_previous",
        "Truncated",
        "A bind body that stops after the route, before its previous-binding presence byte.",
        edit_body(&s(&bind_first), |b| b.truncate(at)),
    );
    add(
        "truncated_session_bind_previous_present_nothing_after",
        "Truncated",
        "A bind whose presence byte says 1 but no previous owner and binding follow.",
        edit_body(&s(&bind_first), |b| b[at] = 1),
    );
    add(
        "truncated_session_bind_in_previous_binding",
        "Truncated",
        "A rebind body that stops 4 bytes into the previous binding's token.",
        edit_body(&s(&rebind), |b| {
            let len = b.len() - 4;
            b.truncate(len);
        }),
    );
    let rebind_at = code_at(&rebind);
    add(
        "trailing_bytes_after_session_bind_previous_absent",
        "TrailingBytes",
        "A rebind body with its presence byte set to 0: the previous owner and binding (37 bytes) are then left over.",
        edit_body(&s(&rebind), |b| b[rebind_at] = 0),
    );

    // Command 11.
    let at = code_at(&refused_bind);
    for (name, note, value) in [
        (
            "invalid_session_bind_result_7",
            "A bind reply result of 7, one past the refusals (1..=6): not defined.",
            7,
        ),
        (
            "invalid_session_bind_result_255",
            "A bind reply result of 255.",
            255,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&refused_bind), |b| b[at] = value),
        );
    }
    add(
        "truncated_session_bind_reply_bound_nothing_after",
        "Truncated",
        "A bind reply with result 0 (Bound) and no route or binding after it: a refusal's length with a Bound result.",
        edit_body(&s(&refused_bind), |b| b[at] = 0),
    );
    add(
        "truncated_session_bind_reply_in_route",
        "Truncated",
        "A Bound bind reply that stops inside the route's lease_remaining_ms.",
        edit_body(&s(&bound), |b| {
            let len = b.len() - 16 - 3;
            b.truncate(len);
        }),
    );
    add(
        "trailing_bytes_after_session_bind_reply_refused",
        "TrailingBytes",
        "A Bound bind reply with its result byte set to 1 (NotOwner): the route and binding (69 bytes) are then left over.",
        edit_body(&s(&bound), |b| b[at] = 1),
    );

    // Commands 12 and 13.
    add(
        "truncated_session_tombstone_in_by",
        "Truncated",
        "A tombstone body that stops inside the `by` node's generation.",
        edit_body(&s(&tombstone_frame), |b| {
            let len = b.len() - 5;
            b.truncate(len);
        }),
    );
    add(
        "trailing_bytes_after_session_tombstone_ack",
        "TrailingBytes",
        "A tombstone body (command 12) under command 13: the ACK has no `by` node, so its 21 bytes are left over.",
        patch_header(&s(&tombstone_frame), 3, 13),
    );
    add(
        "truncated_session_tombstone_ack_in_binding",
        "Truncated",
        "A tombstone ACK body that stops 4 bytes into the binding's 8-byte token.",
        edit_body(&s(&ack), |b| {
            let len = b.len() - 4;
            b.truncate(len);
        }),
    );
    add(
        "truncated_session_tombstone_as_ack",
        "Truncated",
        "A tombstone ACK body (command 13) under command 12: it ends where the `by` node should start.",
        patch_header(&s(&ack), 3, 12),
    );

    // Command 14.
    let at = code_at(&relay_message);
    for (name, note, value) in [
        (
            "invalid_session_relay_kind_0",
            "A relay kind of 0: only 1 (message), 2 (physical disconnect) and 3 (logical disconnect) exist.",
            0,
        ),
        (
            "invalid_session_relay_kind_4",
            "A relay kind of 4, one past the table.",
            4,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&relay_message), |b| b[at] = value),
        );
    }
    add(
        "truncated_session_relay_payload",
        "Truncated",
        "A relay whose payload length says 20 bytes; 12 follow.",
        edit_body(&s(&relay_message), |b| {
            b[at + 1..at + 5].copy_from_slice(&20u32.to_be_bytes());
        }),
    );
    add(
        "truncated_session_relay_before_kind",
        "Truncated",
        "A relay body that stops after the hop count, before its kind byte.",
        edit_body(&s(&relay_message), |b| b.truncate(at)),
    );
    add(
        "too_long_session_relay_payload",
        "TooLong",
        "A relay payload length of 1 MiB + 1, over the default max_payload_bytes (1048576), with no payload bytes: refused from the length alone.",
        edit_body(&s(&relay_message), |b| {
            b[at + 1..at + 5].copy_from_slice(&((1u32 << 20) + 1).to_be_bytes());
            b.truncate(at + 5);
        }),
    );
    add(
        "trailing_bytes_after_session_relay",
        "TrailingBytes",
        "A whole relay body, then 2 bytes more: the payload length, not the body length, ends the payload.",
        edit_body(&s(&relay_message), |b| b.extend_from_slice(b"ZL")),
    );

    // Command 15.
    add(
        "too_long_session_push_payload",
        "TooLong",
        "A push payload length of 1 MiB + 1 with no payload bytes.",
        edit_body(&s(&push_frame), |b| {
            let at = b.len() - SESSION_PAYLOAD.len() - 4;
            b[at..at + 4].copy_from_slice(&((1u32 << 20) + 1).to_be_bytes());
            b.truncate(at + 4);
        }),
    );
    add(
        "truncated_session_push_in_payload_length",
        "Truncated",
        "A push body that stops 2 bytes into its payload length.",
        edit_body(&s(&push_frame), |b| {
            let len = b.len() - SESSION_PAYLOAD.len() - 2;
            b.truncate(len);
        }),
    );

    // Command 16.
    let at = code_at(&refused);
    for (name, note, value) in [
        (
            "invalid_session_refusal_0",
            "A session refusal of 0: reasons count from 1.",
            0,
        ),
        (
            "invalid_session_refusal_4",
            "A session refusal of 4, one past the table (1..=3).",
            4,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&refused), |b| b[at] = value),
        );
    }
    add(
        "truncated_session_refused_before_reason",
        "Truncated",
        "A session refusal body that stops before its reason byte.",
        edit_body(&s(&refused), |b| b.truncate(at)),
    );

    // Command 42.
    add(
        "truncated_session_relocation_seal_in_source",
        "Truncated",
        "A seal body that stops 4 bytes into the source node's generation.",
        edit_body(&s(&seal_frame), |b| {
            let len = b.len() - 4;
            b.truncate(len);
        }),
    );
    add(
        "invalid_session_relocation_seal_source_empty_mesh_name",
        "Invalid",
        "A seal whose source node mesh name is 0 bytes.",
        edit_body(&s(&seal_frame), |b| {
            let at = b.len() - 17 - 4;
            b[at] = 0;
            b.drain(at + 1..at + 5);
        }),
    );

    // Command 43.
    let at = code_at(&sealed_frame);
    for (name, note, value) in [
        (
            "invalid_session_relocation_sealed_flag_2",
            "A sealed byte of 2: only 0 (not sealed) and 1 (sealed) exist.",
            2,
        ),
        (
            "invalid_session_relocation_sealed_flag_255",
            "A sealed byte of 255: not read as \"true\".",
            255,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&sealed_frame), |b| b[at] = value),
        );
    }
    add(
        "truncated_session_relocation_sealed_before_flag",
        "Truncated",
        "A sealed body that stops before its sealed byte.",
        edit_body(&s(&sealed_frame), |b| b.truncate(at)),
    );
    add(
        "trailing_bytes_after_session_relocation_sealed",
        "TrailingBytes",
        "A whole sealed body, then one byte more.",
        edit_body(&s(&sealed_frame), |b| b.push(1)),
    );

    // Command 44.
    let at = code_at(&abort);
    for (name, note, value) in [
        (
            "invalid_session_route_change_0",
            "A route change of 0: only 1 (commit), 2 (abort) and 3 (refresh) exist.",
            0,
        ),
        (
            "invalid_session_route_change_4",
            "A route change of 4: one past the table (3, refresh, is defined).",
            4,
        ),
    ] {
        add(
            name,
            "Invalid",
            note,
            edit_body(&s(&abort), |b| b[at] = value),
        );
    }
    add(
        "truncated_session_route_commit_nothing_after",
        "Truncated",
        "A route change of 1 (commit) with no route after it: an abort's length with a commit.",
        edit_body(&s(&abort), |b| b[at] = 1),
    );
    add(
        "truncated_session_route_refresh_nothing_after",
        "Truncated",
        "A route change of 3 (refresh) with no route after it: an abort's length with a refresh.",
        edit_body(&s(&abort), |b| b[at] = 3),
    );
    add(
        "truncated_session_route_refresh_in_route",
        "Truncated",
        "A refresh body that stops 3 bytes into the route's lease_remaining_ms.",
        edit_body(&s(&refresh), |b| {
            let len = b.len() - 5;
            b.truncate(len);
        }),
    );
    add(
        "truncated_session_route_commit_in_route",
        "Truncated",
        "A commit body that stops 3 bytes into the route's lease_remaining_ms.",
        edit_body(&s(&commit), |b| {
            let len = b.len() - 5;
            b.truncate(len);
        }),
    );
    add(
        "trailing_bytes_after_session_route_abort",
        "TrailingBytes",
        "A commit body with its change byte set to 2 (abort): the route (53 bytes) is then left over.",
        edit_body(&s(&commit), |b| b[at] = 2),
    );
    add(
        "truncated_session_route_empty_body",
        "Truncated",
        "A command 44 header declaring an empty body.",
        edit_body(&s(&abort), Vec::clear),
    );
    Ok(cases)
}

// ------------------------------------------------------------ relocation --

/// Relocation 61 of Actor "user-42", incarnation 4: the relocation the
/// session seal vectors (42–44) belong to.
fn relocation_identity() -> Res<RelocationIdentity> {
    Ok(RelocationIdentity {
        relocation: RelocationId(61),
        key: actor("user-42")?,
        object_generation: ObjectGeneration(4),
    })
}

/// The source: the Actor's owner, node 2 of mesh "main" (lifecycle 5).
fn relocation_source() -> Res<NodeRef> {
    node("main", 2, 5)
}

/// The target: node 3 (lifecycle 8).
fn relocation_target() -> Res<NodeRef> {
    node("main", 3, 8)
}

/// The source's tenure (owner generation 2, lease 9, store version 17).
fn source_fence() -> RouteFence {
    fence(4, 2, 9, 5, 17)
}

/// The target's tenure after its owner CAS (owner generation 3, lease 11,
/// store version 18).
fn target_fence() -> RouteFence {
    fence(4, 3, 11, 8, 18)
}

/// Application state holding 0x00, 0xff, a frame-header look-alike ("ZL",
/// 2, 45, no flags, body 0) and bytes equal to the saved-operation kinds (0,
/// 1) and the abort reasons: opaque to the codec.
const RESTORE_STATE: [u8; 16] = [
    0x00, 0xff, 0x5a, 0x4c, 0x02, 0x2d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x05, 0x80, 0x7f,
];

/// Two saved operations (a one-way message sent straight to the source,
/// and a request the source got relayed by a previous owner), one Session
/// registration and `RESTORE_STATE`.
fn full_restore() -> Res<Restore> {
    let message = Operation {
        operation_id: OperationId(71),
        target: actor("user-42")?,
        origin: origin()?,
        to_node: NodeRid(2),
        fence: source_fence(),
        object_generation: ObjectGeneration(4),
        hop_count: 0,
        relayer: None,
        reply_route: None,
        payload: b"saved".to_vec(),
    };
    let request = Operation {
        operation_id: OperationId(72),
        target: actor("user-42")?,
        origin: node("main", 4, 2)?,
        to_node: NodeRid(2),
        fence: source_fence(),
        object_generation: ObjectGeneration(4),
        hop_count: 1,
        relayer: Some(node("main", 7, 3)?),
        reply_route: Some(ReplyRoute {
            node: node("main", 4, 2)?,
            correlation: CorrelationId(5150),
        }),
        payload: vec![0x00, 0x01, 0xff],
    };
    Ok(Restore {
        identity: relocation_identity()?,
        source: relocation_source()?,
        target: relocation_target()?,
        from: source_fence(),
        saved: vec![message, request],
        registrations: vec![Registration {
            session: base_session()?,
            binding: first_binding(),
        }],
        state: RESTORE_STATE.to_vec(),
    })
}

/// A Spot's Restore with nothing saved, no registration and empty state.
fn empty_restore() -> Res<Restore> {
    Ok(Restore {
        identity: RelocationIdentity {
            relocation: RelocationId(62),
            key: spot("cart/9")?,
            object_generation: ObjectGeneration(1),
        },
        source: relocation_source()?,
        target: relocation_target()?,
        from: fence(1, 2, 9, 5, 17),
        saved: Vec::new(),
        registrations: Vec::new(),
        state: Vec::new(),
    })
}

fn relay_ready() -> Res<RelocationFrame> {
    Ok(RelocationFrame::RelayReady {
        identity: relocation_identity()?,
        target: relocation_target()?,
        destination: target_fence(),
    })
}

fn cutover() -> Res<RelocationFrame> {
    Ok(RelocationFrame::Cutover {
        identity: relocation_identity()?,
        source: relocation_source()?,
        relayed: 2,
    })
}

fn committed() -> Res<RelocationFrame> {
    Ok(RelocationFrame::Committed {
        identity: relocation_identity()?,
        target: relocation_target()?,
        destination: target_fence(),
    })
}

fn abort(by: NodeRef, reason: AbortReason) -> Res<RelocationFrame> {
    Ok(RelocationFrame::Abort {
        identity: relocation_identity()?,
        by,
        reason,
    })
}

fn relocation_valid_cases() -> Res<Vec<Valid>> {
    let mut cases = Vec::new();
    let mut add = |name, note, frame| {
        cases.push(Valid {
            name,
            note,
            frame: Frame::Relocation(frame),
        })
    };

    add(
        "relocation_restore_saved_operations_and_registration",
        "Command 45 Restore, source (node 2) → target (node 3), relocation 61 of Actor \"user-42\" incarnation 4, from the source's tenure (owner generation 2, lease 9). Two saved operations in order: a one-way message (kind byte 0, then a Message body) and a request relayed once to the source (kind byte 1, then a Request body: relayer node 7, reply route to node 4, correlation 5150); one Session registration (session 7 of node 1, binding 1/9001); 16 bytes of state holding 0x00, 0xff and a frame-header look-alike. The last 4 bytes are the CRC-32C of every body byte before them.",
        RelocationFrame::Restore(Box::new(full_restore()?)),
    );
    add(
        "relocation_restore_nothing_saved_empty_state",
        "Command 45 Restore of Spot \"cart/9\" (relocation 62, incarnation 1) with no saved operation (count 0), no registration (count 0) and empty state (length 0): the smallest Restore, still closed by its CRC-32C.",
        RelocationFrame::Restore(Box::new(empty_restore()?)),
    );
    add(
        "relocation_relay_ready",
        "Command 46 relay-ready, target (node 3) → source: restored; the destination is the tenure the target will hold after its owner CAS (owner generation 3, lease 11), which the source's relays carry. From here the move does not roll back.",
        relay_ready()?,
    );
    add(
        "relocation_cutover",
        "Command 47 cutover, source (node 2) → target: the end of the pre-boundary relay span, after 2 relayed operations.",
        cutover()?,
    );
    add(
        "relocation_cutover_around_2p53",
        "Command 47 with the relocation id at 2^53+1 (9007199254740993), the object generation at 2^53-1 (9007199254740991), the source's rid at 2^53 and the relayed count at u64::MAX (18446744073709551615): decimal strings in this JSON.",
        RelocationFrame::Cutover {
            identity: RelocationIdentity {
                relocation: RelocationId(P53 + 1),
                key: actor("user-42")?,
                object_generation: ObjectGeneration(P53 - 1),
            },
            source: node("main", P53, P53 + 1)?,
            relayed: u64::MAX,
        },
    );
    add(
        "relocation_committed",
        "Command 48 committed, target (node 3, now the owner) → source: the owner CAS succeeded with the tenure the store recorded (owner generation 3, lease 11, store version 18); the source installs its Message Follow route to it.",
        committed()?,
    );
    for (name, note, by_source, reason) in [
        (
            "relocation_abort_requested",
            "Command 49 abort Requested (reason 1), by the source (node 2): its host gave up the move.",
            true,
            AbortReason::Requested,
        ),
        (
            "relocation_abort_timeout",
            "Command 49 abort Timeout (reason 2), by the source: no relay-ready within relocation_timeout (a target whose host did not restore in it sends the same reason).",
            true,
            AbortReason::Timeout,
        ),
        (
            "relocation_abort_refused",
            "Command 49 abort Refused (reason 3), by the target (node 3): not the named target, already relocating the object here, or already its owner.",
            false,
            AbortReason::Refused,
        ),
        (
            "relocation_abort_restore_failed",
            "Command 49 abort RestoreFailed (reason 4), by the target: its host could not restore the state.",
            false,
            AbortReason::RestoreFailed,
        ),
        (
            "relocation_abort_commit_failed",
            "Command 49 abort CommitFailed (reason 5), by the target after relay-ready: its owner CAS was refused (the object moved or was released meanwhile).",
            false,
            AbortReason::CommitFailed,
        ),
    ] {
        let by = if by_source {
            relocation_source()?
        } else {
            relocation_target()?
        };
        add(name, note, abort(by, reason)?);
    }
    Ok(cases)
}

/// Writes the CRC-32C of every body byte but the last 4 into those 4, so a
/// malformed Restore fails on the field it was built to break, not on its
/// checksum.
fn reseal(body: &mut [u8]) {
    let end = body.len() - 4;
    let sum = crc32c(&body[..end]);
    body[end..].copy_from_slice(&sum.to_be_bytes());
}

fn relocation_invalid_cases() -> Res<Vec<Invalid>> {
    let full = full_restore()?;
    let saved_at = json::restore_saved_at(&full);
    let restore = Frame::Relocation(RelocationFrame::Restore(Box::new(full.clone())));
    // Body offset of the state length: the state and the checksum follow.
    let state_at = wire::encode(&restore).len() - HEADER_LEN - 4 - RESTORE_STATE.len() - 4;
    let empty = empty_restore()?;
    let empty_saved_at = json::restore_saved_at(&empty);
    let empty_restore = Frame::Relocation(RelocationFrame::Restore(Box::new(empty)));
    let abort_frame = Frame::Relocation(abort(relocation_target()?, AbortReason::Refused)?);
    let r = |f: RelocationFrame| Frame::Relocation(f);

    let mut cases = Vec::new();
    let mut add_under = |name, kind, note, bytes, limits| {
        cases.push(Invalid {
            name,
            note,
            kind,
            bytes,
            limits,
        })
    };
    let default = DecodeLimits::default();

    // Header.
    add_under(
        "flags_on_relocation_restore",
        "FlagsNotAllowed",
        "Command 45 with flag bit 0x01: no relocation command takes a flag.",
        patch_header(&restore, 4, 0x01),
        default,
    );
    add_under(
        "flags_high_bit_on_relocation_abort",
        "FlagsNotAllowed",
        "Command 49 with flag bit 0x80.",
        patch_header(&abort_frame, 4, 0x80),
        default,
    );
    add_under(
        "reserved_byte_set_on_relocation_cutover",
        "FlagsNotAllowed",
        "Command 47 with its reserved header byte set.",
        patch_header(&r(cutover()?), 5, 0x01),
        default,
    );

    // Command 45: the checksum.
    add_under(
        "invalid_relocation_restore_checksum_bit_flipped",
        "Invalid",
        "relocation_restore_saved_operations_and_registration with the lowest bit of its checksum's last byte flipped: the CRC-32C no longer matches the body, and the whole frame is refused.",
        edit_body(&restore, |b| {
            let last = b.len() - 1;
            b[last] ^= 0x01;
        }),
        default,
    );
    add_under(
        "invalid_relocation_restore_state_byte_flipped",
        "Invalid",
        "relocation_restore_saved_operations_and_registration with its third state byte changed from 0x5a to 0x5b and the checksum left as it was: every field still reads, but the CRC-32C over the body does not match.",
        edit_body(&restore, |b| b[state_at + 4 + 2] ^= 0x01),
        default,
    );
    add_under(
        "invalid_relocation_restore_checksum_of_state_only",
        "Invalid",
        "relocation_restore_saved_operations_and_registration whose checksum is the CRC-32C of the state bytes alone: the checksum covers every body byte before it, from the relocation id on.",
        edit_body(&restore, |b| {
            let end = b.len() - 4;
            let sum = crc32c(&RESTORE_STATE);
            b[end..].copy_from_slice(&sum.to_be_bytes());
        }),
        default,
    );

    // Command 45: saved operations.
    add_under(
        "invalid_relocation_restore_saved_kind_2",
        "Invalid",
        "A Restore whose first saved operation's kind byte is 2: only 0 (message) and 1 (request) exist. The checksum is recomputed over the edited body, so the kind byte is the only fault.",
        edit_body(&restore, |b| {
            b[saved_at + 4] = 2;
            reseal(b);
        }),
        default,
    );
    add_under(
        "invalid_relocation_restore_saved_kind_1_without_reply_route",
        "Invalid",
        "A Restore whose first saved operation (a message, no reply route) is marked 1 (request): a saved request needs a reply route, as a Request does. Checksum recomputed.",
        edit_body(&restore, |b| {
            b[saved_at + 4] = 1;
            reseal(b);
        }),
        default,
    );
    let mut other = full.clone();
    other.saved[0].target = spot("s")?;
    add_under(
        "invalid_relocation_restore_saved_operation_for_another_object",
        "Invalid",
        "A Restore of Actor \"user-42\" whose first saved operation targets Spot \"s\": a Restore carries only the moved object's operations. Its checksum is right.",
        wire::encode(&r(RelocationFrame::Restore(Box::new(other)))),
        default,
    );

    // Command 45: bounds.
    let over = |n: usize| u32::try_from(n + 1).expect("a u32 bound").to_be_bytes();
    add_under(
        "too_long_relocation_restore_saved_count",
        "TooLong",
        "A Restore whose saved-operation count is 65537, one over MAX_SAVED_OPERATIONS (65536), with nothing after it: refused from the count alone, before any operation is read.",
        edit_body(&empty_restore, |b| {
            b[empty_saved_at..empty_saved_at + 4].copy_from_slice(&over(MAX_SAVED_OPERATIONS));
            b.truncate(empty_saved_at + 4);
        }),
        default,
    );
    add_under(
        "too_long_relocation_restore_registration_count",
        "TooLong",
        "A Restore with no saved operation whose registration count is 65537, one over MAX_RESTORE_REGISTRATIONS (65536), with nothing after it: refused from the count alone.",
        edit_body(&empty_restore, |b| {
            let at = empty_saved_at + 4;
            b[at..at + 4].copy_from_slice(&over(MAX_RESTORE_REGISTRATIONS));
            b.truncate(at + 4);
        }),
        default,
    );
    add_under(
        "too_long_relocation_restore_state",
        "TooLong",
        "A Restore whose state length is 16 MiB + 1 (16777217), over the default max_state_bytes (16777216), with no state bytes or checksum: refused from the length alone.",
        edit_body(&empty_restore, |b| {
            let at = empty_saved_at + 8;
            b[at..at + 4].copy_from_slice(&over(default.max_state_bytes));
            b.truncate(at + 4);
        }),
        default,
    );
    add_under(
        "too_long_relocation_restore_state_over_limit_8",
        "TooLong",
        "relocation_restore_saved_operations_and_registration, unchanged (its 16 bytes of state and its checksum are all there), decoded under limits.max_state_bytes 8: the state bound is the decoder's, not the frame's.",
        wire::encode(&restore),
        DecodeLimits {
            max_state_bytes: 8,
            ..default
        },
    );

    // Command 45: truncations and trailing bytes.
    add_under(
        "truncated_relocation_restore_in_checksum",
        "Truncated",
        "A Restore body that stops 2 bytes into its 4-byte checksum.",
        edit_body(&restore, |b| {
            let len = b.len() - 2;
            b.truncate(len);
        }),
        default,
    );
    add_under(
        "truncated_relocation_restore_in_saved_operation",
        "Truncated",
        "A Restore body that stops 10 bytes into its first saved operation (inside the operation's target key).",
        edit_body(&restore, |b| b.truncate(saved_at + 4 + 1 + 10)),
        default,
    );
    add_under(
        "truncated_relocation_restore_state",
        "Truncated",
        "A Restore whose state length says 20 bytes: the 16 state bytes and the 4 checksum bytes are read as state, and the checksum is missing.",
        edit_body(&restore, |b| {
            b[state_at..state_at + 4].copy_from_slice(&20u32.to_be_bytes());
        }),
        default,
    );
    add_under(
        "trailing_bytes_after_relocation_restore_checksum",
        "TrailingBytes",
        "A whole Restore body, checksum included, then 2 bytes more: the checksum ends the body.",
        edit_body(&restore, |b| b.extend_from_slice(&[0, 0])),
        default,
    );

    // Commands 46–49.
    add_under(
        "truncated_relocation_relay_ready_in_destination",
        "Truncated",
        "A relay-ready body that stops 3 bytes into the destination fence's store version.",
        edit_body(&r(relay_ready()?), |b| {
            let len = b.len() - 5;
            b.truncate(len);
        }),
        default,
    );
    add_under(
        "truncated_relocation_cutover_in_relayed",
        "Truncated",
        "A cutover body that stops 4 bytes into its relayed count.",
        edit_body(&r(cutover()?), |b| {
            let len = b.len() - 4;
            b.truncate(len);
        }),
        default,
    );
    add_under(
        "trailing_bytes_after_relocation_committed",
        "TrailingBytes",
        "A whole committed body, then one byte more.",
        edit_body(&r(committed()?), |b| b.push(0)),
        default,
    );
    for (name, note, reason) in [
        (
            "invalid_relocation_abort_reason_0",
            "An abort reason of 0: reasons count from 1.",
            0,
        ),
        (
            "invalid_relocation_abort_reason_6",
            "An abort reason of 6, one past the table (1..=5).",
            6,
        ),
    ] {
        add_under(
            name,
            "Invalid",
            note,
            edit_body(&abort_frame, |b| {
                let last = b.len() - 1;
                b[last] = reason;
            }),
            default,
        );
    }
    add_under(
        "truncated_relocation_abort_before_reason",
        "Truncated",
        "An abort body that stops after the `by` node, before its reason byte.",
        edit_body(&abort_frame, |b| {
            b.pop();
        }),
        default,
    );
    Ok(cases)
}
