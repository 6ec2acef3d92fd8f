//! The C ABI of the zlink routing core (DESIGN §6): `libzlink.{so,a}` and
//! `include/zlink.h`, generated from this crate (and the enums of
//! zlink-bridge) by cbindgen. It is a thin translation of zlink-bridge:
//! every input rule, error kind, flattened result, counter name, the log
//! queue and the fork rule live there.
//!
//! Conventions, the same for every function:
//!
//! - Every call returns a `zlink_result`; its numbers never change.
//! - Out-parameters are written only when the call returns `ZLINK_RESULT_OK`.
//! - Every function takes an optional `zlink_error **error` last (NULL or
//!   writable: every function's safety contract includes it): when it is
//!   not NULL and the call fails, `*error` receives an error with the code, a
//!   stable kind name (`zlink_error_kind`) and a message, to be freed with
//!   `zlink_error_free`. No thread-local state.
//! - Handles (`zlink_runtime`, `zlink_store`, `zlink_clock`, `zlink_frame`)
//!   are opaque and checked: a freed, foreign or wrong-type handle is
//!   `ZLINK_RESULT_INVALID_HANDLE`, never a crash. In a child of `fork()`,
//!   runtimes, stores and clocks made before the fork are
//!   `ZLINK_RESULT_FORKED` (freeing them only forgets them).
//! - Everything the library allocates for the caller has one free function.
//! - No panic crosses the boundary: it becomes `ZLINK_RESULT_PANIC`.
//! - Strings: object IDs are `(const uint8_t *, size_t)` pairs of UTF-8
//!   (no NUL needed); names and URLs are NUL-terminated UTF-8.
//! - Thread-safety: unless a function says otherwise, it may be called from
//!   any thread, concurrently with every call but `zlink_runtime_free` of
//!   the same runtime.

#![allow(non_camel_case_types)]

/// Entry points of the C ABI, each written once as `fn name(args) { body }`:
/// it becomes `pub unsafe extern "C" fn name(args, error: *mut *mut
/// zlink_error) -> zlink_result`, exported unmangled, whose body (a
/// `FfiResult`) runs inside `boundary`: no panic crosses, a failure is the
/// returned code and, when `error` is not NULL, a rich error. cbindgen
/// reads the expanded entry points (`[parse.expand]` in cbindgen.toml).
macro_rules! entry {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block)*) => {$(
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            $($arg: $ty,)*
            error: *mut *mut $crate::zlink_error,
        ) -> zlink_bridge::Code {
            $crate::boundary(error, || $body)
        }
    )*};
}

/// Other exported functions (frees, accessors), written once: each is
/// exported unmangled as `pub unsafe extern "C" fn`.
macro_rules! exported {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? $body:block)*) => {$(
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? $body
    )*};
}

mod frames;
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
pub use zlink_bridge::Code as zlink_result;
/// The C names of the bridge's enums, for Rust users of this crate.
pub use zlink_bridge::codes::{
    AbortReason as zlink_abort_reason, AuthorityState as zlink_authority_state,
    BindRefusal as zlink_bind_refusal, DecisionKind as zlink_decision_kind,
    Failure as zlink_failure, Liveness as zlink_liveness, LogLevel as zlink_log_level,
    ObjectKind as zlink_object_kind, Outcome as zlink_outcome, RelayKind as zlink_relay_kind,
    RelocationEvent as zlink_relocation_event, RelocationRefusal as zlink_relocation_refusal,
    ReplyErrorKind as zlink_reply_error_kind, ResolutionTag as zlink_resolution_tag,
    SentTag as zlink_sent_tag, SessionEvent as zlink_session_event,
    SessionRefusal as zlink_session_refusal, SessionSentTag as zlink_session_sent_tag,
    StoreError as zlink_store_error, UnavailableReason as zlink_unavailable_reason,
};

use zlink_bridge::{Code, Error, ErrorKind};

/// Major version of this library (the header's `ZLINK_VERSION_MAJOR`).
pub const ZLINK_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const ZLINK_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const ZLINK_VERSION_PATCH: u32 = 0;

/// Longest text a NUL-terminated input (mesh name, store URL) may have, in
/// bytes; longer is `ZLINK_RESULT_TOO_LONG`.
pub const ZLINK_MAX_TEXT_BYTES: usize = 4096;
const _: () = assert!(ZLINK_MAX_TEXT_BYTES == zlink_bridge::args::MAX_TEXT_BYTES);

pub(crate) type FfiResult<T = ()> = Result<T, Error>;

/// A rich error: its code, its kind and a message. Free with
/// `zlink_error_free`.
pub struct zlink_error {
    code: Code,
    kind: CString,
    message: CString,
}

/// Runs one entry point: catches panics and reports failures through the
/// optional error out-parameter. Inlined into each entry point (the
/// failure path stays out of line in `report`): a call that succeeds costs
/// nothing more than its body.
#[inline]
pub(crate) fn boundary(error: *mut *mut zlink_error, f: impl FnOnce() -> FfiResult) -> Code {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Code::Ok,
        Ok(Err(fail)) => report(error, fail),
        Err(panic) => report(error, panicked(panic)),
    }
}

/// The error of a panic caught at the boundary.
#[cold]
fn panicked(panic: Box<dyn std::any::Any + Send>) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    Error::host(ErrorKind::Panic, format!("panic in libzlink: {what}"))
}

/// Hands a failure to the caller: its code, and the rich error when
/// `error` is not NULL.
#[cold]
fn report(error: *mut *mut zlink_error, fail: Error) -> Code {
    if !error.is_null() {
        let text = |s: &str| {
            CString::new(s.replace('\0', " "))
                .unwrap_or_else(|_| c"(message unavailable)".to_owned())
        };
        let boxed = Box::new(zlink_error {
            code: fail.code(),
            kind: text(fail.kind.name()),
            message: text(&fail.message),
        });
        // SAFETY: the caller passes either NULL (checked above) or a pointer
        // to writable storage for one `zlink_error *`.
        unsafe { error.write(Box::into_raw(boxed)) };
    }
    fail.code()
}

/// The library's version, `MAJOR.MINOR.PATCH`, as a static NUL-terminated
/// string (never freed).
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
#[unsafe(no_mangle)]
pub extern "C" fn zlink_result_text(code: u32) -> *const c_char {
    Code::from_code(code)
        .map_or(c"unknown zlink_result code", Code::text)
        .as_ptr()
}

exported! {
    /// The code of an error; `ZLINK_RESULT_NULL_POINTER` for a NULL error.
    ///
    /// # Safety
    /// `error` is NULL or an error from this library not yet freed.
    fn zlink_error_code(error: *const zlink_error) -> Code {
        // SAFETY: NULL or a live `zlink_error` (the caller's contract).
        unsafe { error.as_ref() }.map_or(Code::NullPointer, |e| e.code)
    }

    /// The message of an error, NUL-terminated, valid until `zlink_error_free`.
    /// NULL for a NULL error.
    ///
    /// # Safety
    /// `error` is NULL or an error from this library not yet freed.
    fn zlink_error_message(error: *const zlink_error) -> *const c_char {
        // SAFETY: NULL or a live `zlink_error` (the caller's contract).
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.message.as_ptr())
    }

    /// The kind of an error: the stable name of its precise cause,
    /// NUL-terminated, valid until `zlink_error_free` (docs/c.md lists them;
    /// the same names as Python's `ZlinkError.kind`). Within a code it tells
    /// the causes apart: for `ZLINK_RESULT_TOO_LONG` "ObjectIdTooLong",
    /// "PayloadTooLarge", …; for `ZLINK_RESULT_INVALID_CONFIG` the config
    /// rule ("CacheOutlivesFollow", "FollowHops", …); for
    /// `ZLINK_RESULT_WIRE_INVALID` the decode error's kind as docs/wire.md and
    /// the invalid golden vectors name it ("Truncated", "BadMagic", …). NULL
    /// for a NULL error.
    ///
    /// # Safety
    /// `error` is NULL or an error from this library not yet freed.
    fn zlink_error_kind(error: *const zlink_error) -> *const c_char {
        // SAFETY: NULL or a live `zlink_error` (the caller's contract).
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.kind.as_ptr())
    }

    /// Frees an error. NULL is a no-op.
    ///
    /// # Safety
    /// `error` is NULL or an error from this library, freed once.
    fn zlink_error_free(error: *mut zlink_error) {
        if !error.is_null() {
            // SAFETY: made by `Box::into_raw` in `boundary`, freed once.
            drop(unsafe { Box::from_raw(error) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_turns_failures_and_panics_into_codes_and_errors() {
        assert_eq!(boundary(std::ptr::null_mut(), || Ok(())), Code::Ok);
        let mut error: *mut zlink_error = std::ptr::null_mut();
        let code = boundary(&mut error, || Err(zlink_bridge::args::missing("out")));
        assert_eq!(code, Code::NullPointer);
        // SAFETY: `boundary` wrote an error made by `Box::into_raw`.
        let e = unsafe { Box::from_raw(error) };
        assert_eq!(e.message.to_str(), Ok("out is NULL"));
        let code = boundary(&mut error, || panic!("on purpose"));
        assert_eq!(code, Code::Panic);
        // SAFETY: as above.
        let e = unsafe { Box::from_raw(error) };
        assert_eq!(e.message.to_str(), Ok("panic in libzlink: on purpose"));
        assert_eq!(
            boundary(std::ptr::null_mut(), || panic!("no error out")),
            Code::Panic
        );
    }
}
