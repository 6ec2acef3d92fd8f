//! The strict frame codec (docs/wire.md) for hosts and tests: decode bytes
//! into an opaque `zlink_frame`, encode it back to its exact bytes, and
//! describe it in the language-neutral JSON of the golden vectors
//! (`testdata/wire/`). The runtime decodes its own inbound frames
//! (`zlink_on_frame`); these calls are for tools, tests and hosts that look
//! at frames themselves.

use std::ffi::{CString, c_char};

use zlink_bridge::core::wire::{self, DecodeLimits, Frame, json};

use zlink_bridge::{Error, ErrorKind};

use crate::FfiResult;
use crate::frames::zlink_bytes;
use crate::runtime::handle;
use zlink_bridge::handles::{Pinned, Registry};

/// One decoded wire frame. Opaque; made by `zlink_wire_decode`, freed by
/// `zlink_frame_free`. Immutable: any thread may read it.
pub struct zlink_frame {
    _opaque: [u8; 0],
}

/// The bounds a decode applies (docs/wire.md, "Limits"); a field over its
/// bound is a `TooLong` decode error. Start from
/// `zlink_decode_limits_default`, or pass NULL for the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct zlink_decode_limits {
    /// Longest object ID accepted, in bytes. Default 1024.
    pub max_object_id_bytes: u64,
    /// Longest payload accepted (an operation's, a reply's, a saved
    /// operation's), in bytes. Default 1048576.
    pub max_payload_bytes: u64,
    /// Longest relocation state a Restore (command 45) may carry, in bytes.
    /// Default 16777216.
    pub max_state_bytes: u64,
}

impl From<DecodeLimits> for zlink_decode_limits {
    fn from(l: DecodeLimits) -> Self {
        zlink_decode_limits {
            max_object_id_bytes: l.max_object_id_bytes as u64,
            max_payload_bytes: l.max_payload_bytes as u64,
            max_state_bytes: l.max_state_bytes as u64,
        }
    }
}

impl zlink_decode_limits {
    fn to_core(self) -> DecodeLimits {
        // A bound past the address space bounds nothing more than the
        // address space does: saturate rather than refuse.
        let size = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        DecodeLimits {
            max_object_id_bytes: size(self.max_object_id_bytes),
            max_payload_bytes: size(self.max_payload_bytes),
            max_state_bytes: size(self.max_state_bytes),
        }
    }
}

struct FrameEntry {
    frame: Frame,
    /// `json::command_name`, NUL-terminated for `zlink_frame_command_name`.
    command: CString,
}

static FRAMES: Registry<FrameEntry> = Registry::new(0x9);

fn frame_in(frame: *const zlink_frame) -> FfiResult<Pinned<'static, FrameEntry>> {
    FRAMES.pin(frame as usize, "frame")
}

entry! {
    /// Writes the default decode limits to `out`: the bounds a runtime with
    /// the default config applies.
    ///
    /// # Safety
    /// `out` is writable.
    ///
    fn zlink_decode_limits_default() -> out: *mut zlink_decode_limits {
        DecodeLimits::default()
    }

    /// Decodes `len` bytes as exactly one frame, strictly (docs/wire.md): on
    /// success `*out` is a new frame handle. Bytes that are not a valid frame
    /// are `ZLINK_RESULT_WIRE_INVALID`, and `*error` (when asked for) carries
    /// the decode error's kind (`zlink_error_kind`: "Truncated", "BadMagic",
    /// "TooLong", …, the kinds of the invalid golden vectors) and a message
    /// naming the field. `limits` NULL means `zlink_decode_limits_default`.
    ///
    /// # Safety
    /// `bytes` points to `len` readable bytes (NULL allowed when 0); `limits`
    /// is NULL or readable; `out` is writable.
    ///
    fn zlink_wire_decode(bytes: *const u8, len: usize, limits: *const zlink_decode_limits)
        -> out: *mut *mut zlink_frame {
        // The decoder bounds every field and allocates nothing beyond the
        // frame's own size, so the length needs no bound of its own here.
        let bytes = bytes_in!(bytes, len, "bytes")?;
        // SAFETY: NULL or a readable `zlink_decode_limits` (the caller's
        // contract); copied out before use.
        let limits = match unsafe { limits.as_ref() } {
            Some(l) => l.to_core(),
            None => DecodeLimits::default(),
        };
        let frame = wire::decode(bytes, &limits).map_err(Error::from)?;
        let command = CString::new(json::command_name(&frame))
            .map_err(|_| Error::host(ErrorKind::Panic, "a command name holds a NUL"))?;
        handle(&FRAMES, FrameEntry { frame, command }, "frame")?
    }

    /// Encodes a frame to its exact wire bytes into `*out` (free with
    /// `zlink_bytes_free`). A decoded frame encodes to the bytes it was decoded
    /// from.
    ///
    /// # Safety
    /// `out` is writable.
    ///
    /// Thread-safety: any thread, concurrently with every call but
    /// `zlink_frame_free` of the same frame.
    fn zlink_frame_encode(frame: *const zlink_frame) -> out: *mut zlink_bytes {
        wire::encode(&frame_in(frame)?.frame)
    }

    /// Describes a frame in the language-neutral JSON of the golden vectors:
    /// the `frame` field of a valid vector's JSON in `testdata/wire/`
    /// (docs/wire.md). One compact JSON object, UTF-8, keys in byte order,
    /// u64s as decimal strings; not NUL-terminated (`out_json->len` bytes).
    /// Free with `zlink_bytes_free`.
    ///
    /// # Safety
    /// `out_json` is writable.
    ///
    /// Thread-safety: any thread, concurrently with every call but
    /// `zlink_frame_free` of the same frame.
    fn zlink_frame_describe(frame: *const zlink_frame) -> out_json: *mut zlink_bytes {
        json::describe(&frame_in(frame)?.frame).to_string()
    }

    /// The frame's command name into `*out`, as the golden vectors' `command`
    /// field states it ("Message", "Request", "Reply", "Rejection",
    /// "MessageFollow", "SessionBind", …, "RelocationRestore", …):
    /// NUL-terminated, owned by the frame, valid until `zlink_frame_free`.
    ///
    /// # Safety
    /// `out` is writable.
    ///
    /// Thread-safety: any thread, concurrently with every call but
    /// `zlink_frame_free` of the same frame.
    fn zlink_frame_command_name(frame: *const zlink_frame) -> out: *mut *const c_char {
        // The string lives in the entry, which the registry keeps until
        // `zlink_frame_free`: the pointer outlives this pin.
        frame_in(frame)?.command.as_ptr()
    }

    /// Frees a frame handle. A freed or foreign handle is
    /// `ZLINK_RESULT_INVALID_HANDLE`; NULL is a no-op returning
    /// `ZLINK_RESULT_OK`. Command names it handed out become invalid.
    ///
    /// # Safety
    /// `error` is NULL or writable.
    ///
    /// Thread-safety: any thread; calls in progress on the frame finish first,
    /// later uses of the handle fail.
    fn zlink_frame_free(frame: *mut zlink_frame) {
        FRAMES.free(frame as usize, "frame").map(drop)
    }
}
