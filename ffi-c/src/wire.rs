//! The strict frame codec (docs/wire.md) for hosts and tests: decode bytes
//! into an opaque `zlink_frame`, encode it back to its exact bytes, and
//! describe it in the language-neutral JSON of the golden vectors
//! (`testdata/wire/`). The runtime decodes its own inbound frames
//! (`zlink_on_frame`); these calls are for tools, tests and hosts that look
//! at frames themselves.

use std::ffi::{CString, c_char};
use std::sync::Arc;

use zlink_core::wire::{self, DecodeLimits, Frame, json};

use crate::frames::zlink_bytes;
use crate::handle::{Pinned, Registry};
use crate::runtime::{handle_fail, handle_out};
use crate::types::*;
use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

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

impl From<&DecodeLimits> for zlink_decode_limits {
    fn from(l: &DecodeLimits) -> Self {
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
    FRAMES
        .get(frame as usize)
        .map_err(|e| handle_fail(e, "frame"))
}

/// Writes the default decode limits to `out`: the bounds a runtime with
/// the default config applies.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_decode_limits_default(
    out: *mut zlink_decode_limits,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: checked above; C passes writable storage.
        unsafe { out.write((&DecodeLimits::default()).into()) };
        Ok(())
    })
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
/// is NULL or readable; `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_wire_decode(
    bytes: *const u8,
    len: usize,
    limits: *const zlink_decode_limits,
    out: *mut *mut zlink_frame,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: the caller's contract on `bytes`. The decoder bounds
        // every field and allocates nothing beyond the frame's own size, so
        // the length needs no bound of its own here.
        let bytes = unsafe { bytes_in(bytes, len, usize::MAX, "bytes") }?;
        // SAFETY: NULL or a readable `zlink_decode_limits` (the caller's
        // contract); copied out before use.
        let limits = match unsafe { limits.as_ref() } {
            Some(l) => l.to_core(),
            None => DecodeLimits::default(),
        };
        let frame = wire::decode(bytes, &limits).map_err(|e| {
            Fail::new(zlink_result::WireInvalid, e.to_string()).with_kind(json::error_kind(&e))
        })?;
        let command = CString::new(json::command_name(&frame))
            .map_err(|_| Fail::new(zlink_result::Panic, "a command name holds a NUL"))?;
        let h = FRAMES
            .insert(Arc::new(FrameEntry { frame, command }))
            .map_err(|e| handle_fail(e, "frame"))?;
        // SAFETY: checked above; C passes writable storage.
        unsafe { out.write(handle_out(h)) };
        Ok(())
    })
}

/// Encodes a frame to its exact wire bytes into `*out` (free with
/// `zlink_bytes_free`). A decoded frame encodes to the bytes it was decoded
/// from.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_frame_free` of the same frame.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_frame_encode(
    frame: *const zlink_frame,
    out: *mut zlink_bytes,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let entry = frame_in(frame)?;
        let bytes = zlink_bytes::from_vec(wire::encode(&entry.frame));
        // SAFETY: checked above; C passes writable storage.
        unsafe { out.write(bytes) };
        Ok(())
    })
}

/// Describes a frame in the language-neutral JSON of the golden vectors:
/// the `frame` field of a valid vector's JSON in `testdata/wire/`
/// (docs/wire.md). One compact JSON object, UTF-8, keys in byte order,
/// u64s as decimal strings; not NUL-terminated (`out_json->len` bytes).
/// Free with `zlink_bytes_free`.
///
/// # Safety
/// `out_json` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_frame_free` of the same frame.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_frame_describe(
    frame: *const zlink_frame,
    out_json: *mut zlink_bytes,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out_json, "out_json")?;
        let entry = frame_in(frame)?;
        let text = json::describe(&entry.frame).to_string();
        // SAFETY: checked above; C passes writable storage.
        unsafe { out.write(zlink_bytes::from_vec(text.into_bytes())) };
        Ok(())
    })
}

/// The frame's command name into `*out`, as the golden vectors' `command`
/// field states it ("Message", "Request", "Reply", "Rejection",
/// "MessageFollow", "SessionBind", …, "RelocationRestore", …):
/// NUL-terminated, owned by the frame, valid until `zlink_frame_free`.
///
/// # Safety
/// `out` is writable; `error` is NULL or writable.
///
/// Thread-safety: any thread, concurrently with every call but
/// `zlink_frame_free` of the same frame.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_frame_command_name(
    frame: *const zlink_frame,
    out: *mut *const c_char,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        let out = out_ptr(out, "out")?;
        let entry = frame_in(frame)?;
        // The string lives in the entry, which the registry keeps until
        // `zlink_frame_free`: the pointer outlives this pin.
        let name = entry.command.as_ptr();
        // SAFETY: checked above; C passes writable storage.
        unsafe { out.write(name) };
        Ok(())
    })
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
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_frame_free(
    frame: *mut zlink_frame,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || {
        if frame.is_null() {
            return Ok(());
        }
        drop(
            FRAMES
                .remove(frame as usize)
                .map_err(|e| handle_fail(e, "frame"))?,
        );
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::CStr;

    use super::*;
    use crate::{zlink_bytes_free, zlink_error_code, zlink_error_free, zlink_error_kind};

    fn vector(name: &str) -> Vec<u8> {
        let path = format!("{}/../testdata/wire/{name}.bin", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn decode(bytes: &[u8], limits: Option<&zlink_decode_limits>) -> Result<usize, (u32, String)> {
        let mut out: *mut zlink_frame = std::ptr::null_mut();
        let mut err: *mut zlink_error = std::ptr::null_mut();
        let limits = limits.map_or(std::ptr::null(), |l| l as *const _);
        // SAFETY: a live slice, writable outs.
        let rc =
            unsafe { zlink_wire_decode(bytes.as_ptr(), bytes.len(), limits, &mut out, &mut err) };
        if rc == zlink_result::Ok {
            assert!(err.is_null());
            return Ok(out as usize);
        }
        assert!(out.is_null(), "out written on failure");
        // SAFETY: a live error from the call above, freed once.
        unsafe {
            assert_eq!(zlink_error_code(err), rc);
            let kind = zlink_error_kind(err);
            let kind = if kind.is_null() {
                String::new()
            } else {
                CStr::from_ptr(kind).to_str().expect("ASCII").to_owned()
            };
            zlink_error_free(err);
            Err((rc as u32, kind))
        }
    }

    #[test]
    fn a_vector_round_trips_and_is_described() {
        let bytes = vector("request_with_reply_route");
        let h = decode(&bytes, None).expect("decodes") as *mut zlink_frame;
        let mut encoded = zlink_bytes::empty();
        let mut text = zlink_bytes::empty();
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: a live handle and writable outs; each allocation freed once.
        unsafe {
            assert_eq!(
                zlink_frame_encode(h, &mut encoded, std::ptr::null_mut()),
                zlink_result::Ok
            );
            assert_eq!(
                std::slice::from_raw_parts(encoded.data, encoded.len),
                &bytes[..]
            );
            assert_eq!(
                zlink_frame_describe(h, &mut text, std::ptr::null_mut()),
                zlink_result::Ok
            );
            let text_str = std::str::from_utf8(std::slice::from_raw_parts(text.data, text.len))
                .expect("UTF-8");
            assert!(text_str.starts_with("{\"fence\":{"), "{text_str}");
            assert_eq!(
                zlink_frame_command_name(h, &mut name, std::ptr::null_mut()),
                zlink_result::Ok
            );
            assert_eq!(CStr::from_ptr(name).to_str(), Ok("Request"));
            zlink_bytes_free(&mut encoded);
            zlink_bytes_free(&mut text);
            assert_eq!(zlink_frame_free(h, std::ptr::null_mut()), zlink_result::Ok);
            assert_eq!(
                zlink_frame_encode(h, &mut encoded, std::ptr::null_mut()),
                zlink_result::InvalidHandle
            );
            assert!(encoded.data.is_null());
            assert_eq!(
                zlink_frame_free(h, std::ptr::null_mut()),
                zlink_result::InvalidHandle
            );
            assert_eq!(
                zlink_frame_free(std::ptr::null_mut(), std::ptr::null_mut()),
                zlink_result::Ok
            );
        }
    }

    #[test]
    fn decode_errors_carry_their_kind_and_limits_apply() {
        assert_eq!(
            decode(&[], None),
            Err((zlink_result::WireInvalid as u32, "Truncated".to_owned()))
        );
        assert_eq!(
            decode(b"ZM\x02\x01\0\0\0\0\0\0", None),
            Err((zlink_result::WireInvalid as u32, "BadMagic".to_owned()))
        );
        let bytes = vector("request_with_reply_route");
        let tight = zlink_decode_limits {
            max_payload_bytes: 2,
            ..(&DecodeLimits::default()).into()
        };
        assert_eq!(
            decode(&bytes, Some(&tight)),
            Err((zlink_result::WireInvalid as u32, "TooLong".to_owned()))
        );
        let roomy = zlink_decode_limits {
            max_payload_bytes: u64::MAX,
            ..tight
        };
        let h = decode(&bytes, Some(&roomy)).expect("decodes") as *mut zlink_frame;
        // SAFETY: a live handle, freed once.
        let freed = unsafe { zlink_frame_free(h, std::ptr::null_mut()) };
        assert_eq!(freed, zlink_result::Ok);
        // Errors of other codes have no kind.
        let mut out: *mut zlink_frame = std::ptr::null_mut();
        let mut err: *mut zlink_error = std::ptr::null_mut();
        // SAFETY: a NULL pointer with a non-zero length is refused unread;
        // the error is read, then freed once.
        unsafe {
            let r = zlink_wire_decode(std::ptr::null(), 3, std::ptr::null(), &mut out, &mut err);
            assert_eq!(r, zlink_result::NullPointer);
            assert!(out.is_null());
            assert_eq!(zlink_error_code(err), zlink_result::NullPointer);
            assert!(zlink_error_kind(err).is_null());
            zlink_error_free(err);
        }
        assert_eq!(
            decode(&[], Some(&roomy)).map_err(|(_, k)| k),
            Err("Truncated".to_owned())
        );
    }

    #[test]
    fn default_limits_are_the_core_defaults() {
        let mut l = zlink_decode_limits {
            max_object_id_bytes: 0,
            max_payload_bytes: 0,
            max_state_bytes: 0,
        };
        // SAFETY: a writable struct.
        let r = unsafe { zlink_decode_limits_default(&mut l, std::ptr::null_mut()) };
        assert_eq!(r, zlink_result::Ok);
        assert_eq!(l.to_core(), DecodeLimits::default());
        assert_eq!(
            (
                l.max_object_id_bytes,
                l.max_payload_bytes,
                l.max_state_bytes
            ),
            (1024, 1 << 20, 16 << 20)
        );
    }
}
