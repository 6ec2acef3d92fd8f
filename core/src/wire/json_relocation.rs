//! The JSON description of the relocation handoff frames (commands 45–49),
//! in the style of the other frames' (`docs/wire.md`, "Golden vectors"). A
//! submodule of `json`, so behind the same `json` feature.

use serde_json::{Value, json};

use super::{binding_json, fence_json, hex, key_json, n, node_json, operation_json, session_json};
use crate::wire::{Frame, RelocationFrame, RelocationIdentity, Restore};

fn identity_json(id: &RelocationIdentity) -> Value {
    json!({
        "relocation": n(id.relocation.get()),
        "key": key_json(&id.key),
        "object_generation": n(id.object_generation.get()),
    })
}

/// Body offset of a Restore's saved-operation count (a `u32`): after the
/// identity (relocation, key, object generation), the source and target
/// nodes and the `from` fence. The first saved operation's kind byte
/// follows the count. The golden-vector generator builds its malformed
/// Restores with it.
pub fn restore_saved_at(r: &Restore) -> usize {
    let node = |m: usize| 17 + m;
    8 + 3
        + r.identity.key.id().len()
        + 8
        + node(r.source.mesh.as_str().len())
        + node(r.target.mesh.as_str().len())
        + 40
}

/// A relocation frame's fields. The Restore checksum and the abort reason
/// code are read back from the encoding (its last 4 bytes, its last byte),
/// so the JSON states what is on the wire.
pub(super) fn describe(frame: &Frame, f: &RelocationFrame) -> Value {
    let bytes = crate::wire::encode(frame);
    let end = bytes.len();
    match f {
        RelocationFrame::Restore(r) => {
            let checksum = u32::from_be_bytes([
                bytes[end - 4],
                bytes[end - 3],
                bytes[end - 2],
                bytes[end - 1],
            ]);
            let saved: Vec<Value> = r
                .saved
                .iter()
                .map(|op| {
                    json!({
                        "request": op.reply_route.is_some(),
                        "operation": operation_json(op),
                    })
                })
                .collect();
            let registrations: Vec<Value> = r
                .registrations
                .iter()
                .map(|reg| {
                    json!({
                        "session": session_json(&reg.session),
                        "binding": binding_json(&reg.binding),
                    })
                })
                .collect();
            json!({
                "identity": identity_json(&r.identity),
                "source": node_json(&r.source),
                "target": node_json(&r.target),
                "from": fence_json(&r.from),
                "saved": saved,
                "registrations": registrations,
                "state_hex": hex(&r.state),
                "checksum": checksum,
            })
        }
        RelocationFrame::RelayReady {
            identity,
            target,
            destination,
        }
        | RelocationFrame::Committed {
            identity,
            target,
            destination,
        } => json!({
            "identity": identity_json(identity),
            "target": node_json(target),
            "destination": fence_json(destination),
        }),
        RelocationFrame::Cutover {
            identity,
            source,
            relayed,
        } => json!({
            "identity": identity_json(identity),
            "source": node_json(source),
            "relayed": n(*relayed),
        }),
        RelocationFrame::Abort {
            identity,
            by,
            reason,
        } => json!({
            "identity": identity_json(identity),
            "by": node_json(by),
            "reason": reason.name(),
            "reason_code": bytes[end - 1],
        }),
    }
}
