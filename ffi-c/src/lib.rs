//! The C ABI of the zlink routing core (DESIGN §6): `libzlink.{so,a}` and
//! `include/zlink.h`, generated from this crate by cbindgen.
//!
//! Conventions, the same for every function:
//!
//! - Every call returns a `zlink_result`; its numbers never change.
//! - Out-parameters are written only when the call returns `ZLINK_RESULT_OK`.
//! - Every function takes an optional `zlink_error **error` last: when it is
//!   not NULL and the call fails, `*error` receives an error with the code and
//!   a message, to be freed with `zlink_error_free`. No thread-local state.
//! - Handles (`zlink_runtime`, `zlink_store`, `zlink_clock`, `zlink_frame`)
//!   are opaque and checked: a freed, foreign or wrong-type handle is
//!   `ZLINK_RESULT_INVALID_HANDLE`, never a crash.
//! - Everything the library allocates for the caller has one free function.
//! - No panic crosses the boundary: it becomes `ZLINK_RESULT_PANIC`.
//! - Strings: object IDs are `(const uint8_t *, size_t)` pairs of UTF-8
//!   (no NUL needed); names and URLs are NUL-terminated UTF-8.

#![allow(non_camel_case_types)]

mod frames;
mod handle;
mod log;
mod peer;
mod relocation;
mod runtime;
mod session;
mod types;
mod wire;

use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

pub use frames::*;
pub use log::*;
pub use peer::*;
pub use relocation::*;
pub use runtime::*;
pub use session::*;
pub use types::*;
pub use wire::*;

/// Major version of this library (the header's `ZLINK_VERSION_MAJOR`).
pub const ZLINK_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const ZLINK_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const ZLINK_VERSION_PATCH: u32 = 0;

/// Longest text a NUL-terminated input (mesh name, store URL) may have, in
/// bytes; longer is `ZLINK_RESULT_TOO_LONG`.
pub const ZLINK_MAX_TEXT_BYTES: usize = 4096;

/// What a call did. The numbers are stable: new codes are only appended.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum zlink_result {
    /// Success; out-parameters were written.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// A handle was freed, of another type, or not made by this library.
    InvalidHandle = 2,
    /// A string argument is not valid UTF-8.
    InvalidUtf8 = 3,
    /// An input is longer than its bound (object ID, mesh name, payload, URL).
    TooLong = 4,
    /// An input is out of range or malformed (empty ID, unknown kind, zero
    /// deadline, instance intent on an Actor, …). Fix the input.
    InvalidArgument = 5,
    /// The config breaks a rule (see the message); nothing was changed.
    InvalidConfig = 6,
    /// The Location Store could not be reached or answered badly. Retry.
    StoreFailure = 7,
    /// The store refused an authority write (compare-and-set); re-read.
    WriteRejected = 8,
    /// This node does not own the object.
    NotOwned = 9,
    /// A relocation hand-over named a destination that is not committed.
    NotCommitted = 10,
    /// The operation was a one-way message: it has no reply route.
    NoReplyRoute = 11,
    /// The library could not start its threads.
    Threads = 12,
    /// Too many live handles.
    Exhausted = 13,
    /// Not allowed from this thread (e.g. freeing a runtime from one of its
    /// own callbacks).
    WrongThread = 14,
    /// A bug in the library: a panic was caught at the boundary.
    Panic = 15,
    /// No such open Session on this runtime.
    UnknownSession = 16,
    /// The Session was disconnected; it only waits for its relocations.
    SessionClosing = 17,
    /// The binding is sealed for a relocation: rebind after its command 44.
    BindingSealed = 18,
    /// The Session has no binding to that Actor.
    NotBound = 19,
    /// Other Rust code in the process already set the global `tracing`
    /// subscriber: the log callback cannot be installed.
    LogSubscriberTaken = 20,
    /// The object is already relocating on this runtime (as source or
    /// target): finish or abort that relocation first.
    AlreadyRelocating = 21,
    /// No relocation of the object runs on this runtime.
    NotRelocating = 22,
    /// The relocation is past relay-ready: it does not roll back.
    AfterRelayReady = 23,
    /// The relocation state is over the config's
    /// `max_relocation_state_bytes`.
    StateTooLarge = 24,
    /// The relocation is not in the phase the call needs (see the message).
    RelocationRefused = 25,
    /// The bytes are not a valid wire frame: `zlink_error_kind` names why
    /// (the error kinds of docs/wire.md: "Truncated", "BadMagic", …).
    WireInvalid = 26,
}

impl zlink_result {
    fn text(self) -> &'static CStr {
        match self {
            zlink_result::Ok => c"ok",
            zlink_result::NullPointer => c"a required pointer argument is NULL",
            zlink_result::InvalidHandle => c"the handle is freed, foreign or of another type",
            zlink_result::InvalidUtf8 => c"a string argument is not valid UTF-8",
            zlink_result::TooLong => c"an input is longer than its bound",
            zlink_result::InvalidArgument => c"an input is out of range or malformed",
            zlink_result::InvalidConfig => c"the config breaks a rule",
            zlink_result::StoreFailure => c"the location store failed",
            zlink_result::WriteRejected => c"the store refused the authority write",
            zlink_result::NotOwned => c"this node does not own the object",
            zlink_result::NotCommitted => c"the hand-over destination is not committed",
            zlink_result::NoReplyRoute => c"the operation has no reply route",
            zlink_result::Threads => c"the library could not start its threads",
            zlink_result::Exhausted => c"too many live handles",
            zlink_result::WrongThread => c"not allowed from this thread",
            zlink_result::Panic => c"internal error (a panic was caught)",
            zlink_result::UnknownSession => c"no such open session",
            zlink_result::SessionClosing => c"the session is disconnected",
            zlink_result::BindingSealed => c"the binding is sealed for a relocation",
            zlink_result::NotBound => c"the session has no binding to that actor",
            zlink_result::LogSubscriberTaken => {
                c"a global tracing subscriber is already set in this process"
            }
            zlink_result::AlreadyRelocating => c"the object is already relocating",
            zlink_result::NotRelocating => c"the object is not relocating here",
            zlink_result::AfterRelayReady => c"the relocation is past relay-ready",
            zlink_result::StateTooLarge => c"the relocation state is over its bound",
            zlink_result::RelocationRefused => c"the relocation refused the call in its phase",
            zlink_result::WireInvalid => c"the bytes are not a valid wire frame",
        }
    }

    const ALL: [zlink_result; 27] = [
        zlink_result::Ok,
        zlink_result::NullPointer,
        zlink_result::InvalidHandle,
        zlink_result::InvalidUtf8,
        zlink_result::TooLong,
        zlink_result::InvalidArgument,
        zlink_result::InvalidConfig,
        zlink_result::StoreFailure,
        zlink_result::WriteRejected,
        zlink_result::NotOwned,
        zlink_result::NotCommitted,
        zlink_result::NoReplyRoute,
        zlink_result::Threads,
        zlink_result::Exhausted,
        zlink_result::WrongThread,
        zlink_result::Panic,
        zlink_result::UnknownSession,
        zlink_result::SessionClosing,
        zlink_result::BindingSealed,
        zlink_result::NotBound,
        zlink_result::LogSubscriberTaken,
        zlink_result::AlreadyRelocating,
        zlink_result::NotRelocating,
        zlink_result::AfterRelayReady,
        zlink_result::StateTooLarge,
        zlink_result::RelocationRefused,
        zlink_result::WireInvalid,
    ];
}

/// A failure with its message, as the boundary reports it.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) code: zlink_result,
    pub(crate) message: String,
    /// A machine-readable kind within the code (a wire decode error's kind).
    pub(crate) kind: Option<&'static str>,
}

impl Fail {
    pub(crate) fn new(code: zlink_result, message: impl Into<String>) -> Self {
        Fail {
            code,
            message: message.into(),
            kind: None,
        }
    }

    /// The same failure with a kind, read back by `zlink_error_kind`.
    pub(crate) fn with_kind(mut self, kind: &'static str) -> Self {
        self.kind = Some(kind);
        self
    }
}

pub(crate) type FfiResult<T = ()> = Result<T, Fail>;

/// A rich error: its code, a message and, for some codes, a kind. Free
/// with `zlink_error_free`.
pub struct zlink_error {
    code: zlink_result,
    message: CString,
    kind: Option<CString>,
}

/// Runs one entry point: catches panics and reports failures through the
/// optional error out-parameter.
pub(crate) fn boundary(
    error: *mut *mut zlink_error,
    f: impl FnOnce() -> FfiResult,
) -> zlink_result {
    let fail = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return zlink_result::Ok,
        Ok(Err(fail)) => fail,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Fail::new(zlink_result::Panic, format!("panic in libzlink: {what}"))
        }
    };
    if !error.is_null() {
        let message = CString::new(fail.message.replace('\0', " "))
            .unwrap_or_else(|_| c"(message unavailable)".to_owned());
        let boxed = Box::new(zlink_error {
            code: fail.code,
            message,
            // Kinds are core names (ASCII identifiers): never a NUL.
            kind: fail.kind.and_then(|k| CString::new(k).ok()),
        });
        // SAFETY: the caller passes either NULL (checked above) or a pointer
        // to writable storage for one `zlink_error *`.
        unsafe { error.write(Box::into_raw(boxed)) };
    }
    fail.code
}

/// The library's version, `MAJOR.MINOR.PATCH`, as a static NUL-terminated
/// string (never freed).
///
/// Thread-safety: any thread, any time.
#[unsafe(no_mangle)]
pub extern "C" fn zlink_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the package version has no NUL"),
        };
    VERSION.as_ptr()
}

/// A static NUL-terminated description of a `zlink_result` code (never
/// freed); unknown codes get "unknown zlink_result code".
///
/// Thread-safety: any thread, any time.
#[unsafe(no_mangle)]
pub extern "C" fn zlink_result_text(code: u32) -> *const c_char {
    zlink_result::ALL
        .iter()
        .find(|r| **r as u32 == code)
        .map_or(c"unknown zlink_result code", |r| r.text())
        .as_ptr()
}

/// The code of an error; `ZLINK_RESULT_NULL_POINTER` for a NULL error.
///
/// # Safety
/// `error` is NULL or an error from this library not yet freed.
///
/// Thread-safety: any thread; the error is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_error_code(error: *const zlink_error) -> zlink_result {
    // SAFETY: NULL or a live `zlink_error` (the caller's contract).
    match unsafe { error.as_ref() } {
        Some(e) => e.code,
        None => zlink_result::NullPointer,
    }
}

/// The message of an error, NUL-terminated, valid until `zlink_error_free`.
/// NULL for a NULL error.
///
/// # Safety
/// `error` is NULL or an error from this library not yet freed.
///
/// Thread-safety: any thread; the error is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_error_message(error: *const zlink_error) -> *const c_char {
    // SAFETY: NULL or a live `zlink_error` (the caller's contract).
    match unsafe { error.as_ref() } {
        Some(e) => e.message.as_ptr(),
        None => std::ptr::null(),
    }
}

/// The kind of an error, NUL-terminated, valid until `zlink_error_free`:
/// for `ZLINK_RESULT_WIRE_INVALID`, the decode error's kind as docs/wire.md
/// and the invalid golden vectors name it ("Truncated", "BadMagic",
/// "UnsupportedVersion", "UnknownCommand", "FlagsNotAllowed",
/// "LengthMismatch", "TooLong", "Invalid", "TrailingBytes"). NULL for a
/// NULL error and for an error whose code has no kinds.
///
/// # Safety
/// `error` is NULL or an error from this library not yet freed.
///
/// Thread-safety: any thread; the error is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_error_kind(error: *const zlink_error) -> *const c_char {
    // SAFETY: NULL or a live `zlink_error` (the caller's contract).
    match unsafe { error.as_ref() }.and_then(|e| e.kind.as_ref()) {
        Some(kind) => kind.as_ptr(),
        None => std::ptr::null(),
    }
}

/// Frees an error. NULL is a no-op.
///
/// # Safety
/// `error` is NULL or an error from this library, freed once.
///
/// Thread-safety: any thread; the error is not shared state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_error_free(error: *mut zlink_error) {
    if !error.is_null() {
        // SAFETY: made by `Box::into_raw` in `boundary`, freed once.
        drop(unsafe { Box::from_raw(error) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constants_follow_the_package_version() {
        let parse = |s: &str| s.parse::<u32>().expect("numeric version");
        assert_eq!(ZLINK_VERSION_MAJOR, parse(env!("CARGO_PKG_VERSION_MAJOR")));
        assert_eq!(ZLINK_VERSION_MINOR, parse(env!("CARGO_PKG_VERSION_MINOR")));
        assert_eq!(ZLINK_VERSION_PATCH, parse(env!("CARGO_PKG_VERSION_PATCH")));
        // SAFETY: `zlink_version` returns a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(zlink_version()) };
        assert_eq!(v.to_str().expect("utf-8"), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn result_codes_are_numbered_densely_and_have_text() {
        for (i, r) in zlink_result::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
        // SAFETY: static NUL-terminated strings.
        let unknown = unsafe { CStr::from_ptr(zlink_result_text(999)) };
        assert_eq!(
            unknown.to_str().expect("utf-8"),
            "unknown zlink_result code"
        );
    }
}
