//! The fuzz targets' bodies: one per decoder entry. They live here, apart
//! from `fuzz_targets/`, so that `core/tests/wire_fuzz_smoke.rs` runs the very
//! same code on stable (it includes this file with `#[path]`).
//!
//! Each decodes its input under the default limits and under tight ones and
//! panics if the decoder breaks a property: a frame that decodes re-encodes
//! to exactly its bytes, and tighter limits never accept what looser refuse.

use zlink_core::wire::{
    self, Command, DecodeLimits, Frame, HEADER_LEN, MAGIC, WIRE_VERSION, WireError,
};

/// Raw bytes as one whole frame.
pub fn decode_frame(data: &[u8]) -> Result<Frame, WireError> {
    check(data)
}

/// `body` behind a valid Message (command 1) header.
pub fn decode_message(body: &[u8]) -> Result<Frame, WireError> {
    check(&framed(Command::Message, body))
}

/// `body` behind a valid Request (command 2) header.
pub fn decode_request(body: &[u8]) -> Result<Frame, WireError> {
    check(&framed(Command::Request, body))
}

/// `body` behind a valid Reply (command 3) header.
pub fn decode_reply(body: &[u8]) -> Result<Frame, WireError> {
    check(&framed(Command::Reply, body))
}

/// `body` behind a valid Rejection (command 4) header.
pub fn decode_rejection(body: &[u8]) -> Result<Frame, WireError> {
    check(&framed(Command::Rejection, body))
}

/// `body` behind a valid messageFollow (command 50) header.
pub fn decode_message_follow(body: &[u8]) -> Result<Frame, WireError> {
    check(&framed(Command::MessageFollow, body))
}

/// The session commands (`Frame::Session`): bind 10, bind reply 11,
/// tombstone 12, tombstone ACK 13, relay 14, push 15, refused 16,
/// sessionRelocationSeal 42, sealed 43, sessionRelocationRoute 44.
pub const SESSION_COMMANDS: [u8; 10] = [10, 11, 12, 13, 14, 15, 16, 42, 43, 44];

/// The session command `selector` picks: itself when it is one, else
/// `SESSION_COMMANDS[selector % 10]`, so every byte picks one.
pub fn session_command(selector: u8) -> u8 {
    if SESSION_COMMANDS.contains(&selector) {
        selector
    } else {
        SESSION_COMMANDS[usize::from(selector) % SESSION_COMMANDS.len()]
    }
}

/// A session frame: the input's first byte picks the command (see
/// [`session_command`]; a seed is the command byte of a session vector then
/// its body), the rest is the body behind a valid header. Empty input: an
/// empty bind body.
pub fn decode_session(data: &[u8]) -> Result<Frame, WireError> {
    let (selector, body) = data.split_first().map_or((10, data), |(s, b)| (*s, b));
    check(&framed_command(session_command(selector), body))
}

/// A header for `command` whose body length is `body`'s, then `body`.
pub fn framed(command: Command, body: &[u8]) -> Vec<u8> {
    framed_command(command as u8, body)
}

/// [`framed`] for a command number, including those `Command` does not
/// name (the session commands).
pub fn framed_command(command: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[WIRE_VERSION, command, 0, 0]);
    // Fuzz inputs stay far below 4 GiB; saturating keeps this total anyway.
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(body);
    out
}

fn check(bytes: &[u8]) -> Result<Frame, WireError> {
    let result = wire::decode(bytes, &DecodeLimits::default());
    if let Ok(frame) = &result {
        let again = wire::encode(frame);
        assert!(
            again == bytes,
            "a decoded frame re-encodes to other bytes: {frame:?}"
        );
    }
    let tight = DecodeLimits {
        max_object_id_bytes: 4,
        max_payload_bytes: 4,
        ..DecodeLimits::default()
    };
    if let Ok(frame) = wire::decode(bytes, &tight) {
        assert!(
            result.as_ref() == Ok(&frame),
            "tight limits accepted what the defaults refused: {result:?}"
        );
    }
    result
}
