//! Writes the wire golden vectors: for each case a `.bin` (the exact frame
//! bytes) and a `.json` (a language-neutral description of it), valid frames
//! in the target directory and malformed ones in its `invalid/` folder.
//! Reference: `docs/wire.md`.
//!
//! ```text
//! cargo run -p zlink-core --example wire_vectors -- testdata/wire
//! ```
//!
//! Old `.bin`/`.json` files in both folders are removed first, so a case
//! dropped here disappears there. Every vector is decoded again before it is
//! written: a valid one must round-trip, an invalid one must fail with the
//! error kind its case names, or the program stops.

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use zlink_core::wire::{
    self, DecodeLimits, Frame, HEADER_LEN, MAX_ERROR_MESSAGE_BYTES, MessageFollowFrame, NodeRef,
    Operation, RejectionCode, RejectionFrame, ReplyError, ReplyErrorKind, ReplyFrame, ReplyResult,
    ReplyRoute, RouteEnd, WireError,
};
use zlink_core::{
    AuthorityOwnerGeneration, CorrelationId, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    ObjectKey, ObjectKind, OperationId, OwnerLeaseGeneration, RouteFence, StaleReason,
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
        let description = json!({
            "name": case.name,
            "note": case.note,
            "command": command_name(&case.frame),
            "command_number": bytes[3],
            "header": header_json(&bytes),
            "size": bytes.len(),
            "frame": frame_json(&case.frame),
        });
        write(&dir, case.name, &bytes, &description)?;
    }

    let invalid = invalid_cases()?;
    for case in &invalid {
        let limits = DecodeLimits::default();
        let error = match wire::decode(&case.bytes, &limits) {
            Ok(_) => return Err(format!("invalid/{}: decodes", case.name).into()),
            Err(e) => e,
        };
        if error_kind(&error) != case.kind {
            return Err(format!(
                "invalid/{}: expected {}, got {error:?}",
                case.name, case.kind
            )
            .into());
        }
        let description = json!({
            "name": case.name,
            "note": case.note,
            "size": case.bytes.len(),
            "limits": {
                "max_object_id_bytes": limits.max_object_id_bytes,
                "max_payload_bytes": limits.max_payload_bytes,
            },
            "error": error_json(&error),
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
    Ok(cases)
}

// --------------------------------------------------------------- invalid --

struct Invalid {
    name: &'static str,
    note: &'static str,
    kind: &'static str,
    bytes: Vec<u8>,
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

/// Body offset of a Reply's result tag when the replier's mesh name is
/// `mesh_len` bytes: correlation, operation id, then the replier node.
fn reply_tag_at(mesh_len: usize) -> usize {
    8 + 8 + 1 + mesh_len + 8 + 8
}

/// Body offset of a Rejection's class byte when its object ID is `id_len`
/// bytes and the rejecting node's mesh name `mesh_len`: operation id, target,
/// fence, then the rejecting node. The reason follows, then the reply route's
/// presence byte.
fn rejection_class_at(id_len: usize, mesh_len: usize) -> usize {
    8 + 3 + id_len + 40 + 17 + mesh_len
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
    let class_at = rejection_class_at(1, 4);
    let reply_ok = Frame::Reply(base_reply(ReplyResult::Ok(b"pong".to_vec()))?);
    let reply_err = Frame::Reply(base_reply(reply_error(
        ReplyErrorKind::Handler,
        500,
        "Zürich 🦀",
    ))?);
    // Both replies come from node "main": a 4-byte mesh name.
    let tag_at = reply_tag_at(4);
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
        "unsupported_version_2",
        "UnsupportedVersion",
        "Wire version 2: a future version is refused, not guessed at.",
        patch_header(&message, 2, 2),
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
        "Command 5, one past Rejection (4): commands 5..=49 are not defined.",
        patch_header(&message, 3, 5),
    );
    add(
        "unknown_command_42_reserved_session",
        "UnknownCommand",
        "Command 42 is reserved for session relocation, not spoken yet.",
        patch_header(&message, 3, 42),
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
            "invalid_unavailable_reason_8",
            "Unavailable reason 8: one past the table.",
            2,
            8,
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
    Ok(cases)
}

// ------------------------------------------------------------------ JSON --

fn command_name(frame: &Frame) -> &'static str {
    match frame {
        Frame::Message(_) => "Message",
        Frame::Request(_) => "Request",
        Frame::Reply(_) => "Reply",
        Frame::Rejection(_) => "Rejection",
        Frame::MessageFollow(_) => "MessageFollow",
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn header_json(bytes: &[u8]) -> Value {
    json!({
        "magic_hex": hex(&bytes[..2]),
        "version": bytes[2],
        "command": bytes[3],
        "flags": bytes[4],
        "reserved": bytes[5],
        "body_length": u32::from_be_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]),
    })
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

fn frame_json(frame: &Frame) -> Value {
    match frame {
        Frame::Message(op) | Frame::Request(op) => json!({
            "operation_id": n(op.operation_id.get()),
            "target": key_json(&op.target),
            "origin": node_json(&op.origin),
            "to_node": n(op.to_node.get()),
            "fence": fence_json(&op.fence),
            "object_generation": n(op.object_generation.get()),
            "hop_count": op.hop_count,
            "reply_route": reply_json(&op.reply_route),
            "payload_hex": hex(&op.payload),
        }),
        Frame::Reply(r) => {
            // The tag and kind numbers are read back from the encoded bytes
            // (after correlation, operation id and replier), so the JSON
            // states what is on the wire.
            let bytes = wire::encode(frame);
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
            let bytes = wire::encode(frame);
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
    }
}

fn error_kind(e: &WireError) -> &'static str {
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

/// The error's kind (normative) and the details this codec reports with it
/// (informative: another codec may word or count them differently).
fn error_json(e: &WireError) -> Value {
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
