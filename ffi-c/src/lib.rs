//! The C ABI of the zlink routing core (DESIGN §6): `libzlink.{so,a}` and
//! `include/zlink.h`, generated from this crate (and the enums of
//! zlink-bridge) by cbindgen. It is a thin translation of zlink-bridge:
//! every input rule, error kind, result, counter name, the log queue and
//! the fork rule live there; the decisions' C structs (`decisions.rs`) are
//! generated from its surface schema by `zlink-schema`.
//!
//! The conventions every function follows (the result code, out-parameters
//! written only on success, the optional error out-parameter, checked
//! handles, one free function per allocation, no panic across, strings,
//! threads) are docs/c.md's "Conventions"; `entry!` below applies them.

#![allow(non_camel_case_types)]

/// Entry points of the C ABI, each written once as `fn name(args) { body }`:
/// it becomes `pub unsafe extern "C" fn name(args, error: *mut *mut
/// zlink_error) -> zlink_result`, exported unmangled, whose body (a
/// `FfiResult`) runs inside `boundary`: no panic crosses, a failure is the
/// returned code and, when `error` is not NULL, a rich error. cbindgen
/// reads the expanded entry points (`[parse.expand]` in cbindgen.toml).
///
/// Out-parameters that come last may be written after `->`, the body being
/// their value (see `Out::written`, `Out::optional`, `Out::found`):
/// `-> out: *mut T`, `-> optional out: *mut T` (may be NULL) or
/// `-> found(out: *mut T, found: *mut bool)` (the body is an `Option`).
macro_rules! entry {
    () => {};
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?)
        -> optional $out:ident: $oty:ty $body:block $($rest:tt)*) => {
        entry! { $(#[$doc])* fn $name($($arg: $ty,)* $out: $oty) {
            $crate::types::Out::optional($out, || Ok($body))
        } $($rest)* }
    };
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?)
        -> found($out:ident: $oty:ty, $found:ident: $fty:ty) $body:block $($rest:tt)*) => {
        entry! { $(#[$doc])* fn $name($($arg: $ty,)* $out: $oty, $found: $fty) {
            $crate::types::Out::found(($out, stringify!($out)), ($found, stringify!($found)), || Ok($body))
        } $($rest)* }
    };
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?)
        -> $out:ident: $oty:ty $body:block $($rest:tt)*) => {
        entry! { $(#[$doc])* fn $name($($arg: $ty,)* $out: $oty) {
            $crate::types::Out::written($out, stringify!($out), || Ok($body))
        } $($rest)* }
    };
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block $($rest:tt)*) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            $($arg: $ty,)*
            error: *mut *mut $crate::zlink_error,
        ) -> zlink_bridge::Code {
            $crate::boundary(error, || $body)
        }
        entry! { $($rest)* }
    };
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

/// A list of library-allocated items (`items`, `count`): `From` a `Vec`
/// of anything that converts to an item, and the exported free function
/// (`$(#[doc])* fn name`) that frees each item with `$release` (an unsafe
/// fn of the item's pointer) and zeroes the list.
macro_rules! list {
    ($list:ident of $item:ty, $release:path, $(#[$doc:meta])* fn $free:ident) => {
        impl<T: Into<$item>> From<Vec<T>> for $list {
            fn from(items: Vec<T>) -> Self {
                let (items, count) = $crate::frames::array(items.into_iter().map(Into::into).collect());
                $list { items, count }
            }
        }

        exported! {
            $(#[$doc])*
            fn $free(list: *mut $list) {
                if !list.is_null() {
                    // SAFETY: a library-filled list (the caller's contract)
                    // of library-filled items, each freed once by `$release`.
                    unsafe {
                        let (items, count) = (&raw mut (*list).items, &raw mut (*list).count);
                        $crate::frames::release_array(items, count, |item| $release(item));
                    }
                }
            }
        }
    };
}

/// A C struct whose fields are a core struct's, of the same names, each a
/// `Field`: `From<&core>`, `to_core()`, and a `Field` itself, to nest.
macro_rules! c_struct {
    ($($c:ident = $core:ident { $($field:ident)* })*) => {$(
        impl $crate::types::Field<$c> for $core {
            fn to_c(&self) -> $c {
                $c { $($field: $crate::types::Field::to_c(&self.$field)),* }
            }
            fn from_c(c: $c) -> $crate::FfiResult<Self> {
                Ok($core { $($field: $crate::types::Field::from_c(c.$field)?),* })
            }
        }

        impl From<&$core> for $c {
            fn from(v: &$core) -> Self {
                $crate::types::Field::to_c(v)
            }
        }
    )*};
}

/// Borrows pointer arguments as the `# Safety` section of the function
/// using it promises them (an entry point's, or a helper's that forwards
/// it): `id_in!(id, id_len)` an object ID's bytes, `bytes_in!(payload,
/// payload_len, "payload")` bytes that may be NULL when empty,
/// `text_in!(url, "url")` a NUL-terminated string. Each is an `FfiResult`.
macro_rules! id_in {
    ($ptr:expr, $len:expr) => {
        // SAFETY: the caller's contract (its `# Safety`): `$ptr` points to
        // `$len` readable bytes, alive and unchanged during the call.
        unsafe { $crate::types::id_in($ptr, $len) }
    };
}

/// See `id_in!`.
macro_rules! bytes_in {
    ($ptr:expr, $len:expr, $what:expr) => {
        // SAFETY: the caller's contract (its `# Safety`): `$ptr` is NULL
        // with `$len` 0, or points to `$len` readable bytes, alive and
        // unchanged during the call.
        unsafe { $crate::types::bytes_in($ptr, $len, $what) }
    };
}

/// See `id_in!`.
macro_rules! text_in {
    ($ptr:expr, $what:expr) => {
        // SAFETY: the caller's contract (its `# Safety`): `$ptr` is
        // NUL-terminated.
        unsafe { $crate::types::text_in($ptr, $what) }
    };
}

mod decisions;
mod frames;
mod log;
mod peer;
mod relocation;
mod runtime;
mod session;
mod types;
mod wire;

use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

pub use decisions::*;
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
    BindRefusal as zlink_bind_refusal, Failure as zlink_failure,
    FrameCommand as zlink_frame_command, Liveness as zlink_liveness, LogLevel as zlink_log_level,
    ObjectKind as zlink_object_kind, RelayKind as zlink_relay_kind,
    RelocationRefusal as zlink_relocation_refusal, ReplyErrorKind as zlink_reply_error_kind,
    RequestErrorKind as zlink_request_error_kind, ResolutionTag as zlink_resolution_tag,
    SentTag as zlink_sent_tag, SessionRefusal as zlink_session_refusal,
    SessionSentTag as zlink_session_sent_tag, StoreError as zlink_store_error,
    UnavailableReason as zlink_unavailable_reason, WireErrorKind as zlink_wire_error_kind,
};

use zlink_bridge::{Code, Error};

/// Major version of this library (the header's `ZLINK_VERSION_MAJOR`).
pub const ZLINK_VERSION_MAJOR: u32 = 0;
/// Minor version of this library.
pub const ZLINK_VERSION_MINOR: u32 = 1;
/// Patch version of this library.
pub const ZLINK_VERSION_PATCH: u32 = 0;

/// The version of the C ABI this header describes: it changes with every
/// change a C host must be rebuilt for (docs/c.md lists them). A host
/// compares it with `zlink_abi_version()`, the loaded library's.
pub const ZLINK_ABI_VERSION: u32 = 2;

/// Longest text a NUL-terminated input (mesh name, store URL) may have, in
/// bytes; longer is `ZLINK_RESULT_TOO_LONG`.
pub const ZLINK_MAX_TEXT_BYTES: usize = 4096;
const _: () = assert!(ZLINK_MAX_TEXT_BYTES == zlink_bridge::args::MAX_TEXT_BYTES);

pub(crate) type FfiResult<T = ()> = Result<T, Error>;

/// A host's `userdata` pointer, handed back to its callback on another
/// thread.
pub(crate) struct Userdata(pub(crate) *mut c_void);

impl Userdata {
    /// The pointer; a closure that calls this captures the whole
    /// `Userdata` (so it is `Send`), not only its field.
    pub(crate) fn get(&self) -> *mut c_void {
        self.0
    }
}
// SAFETY: whoever installs a callback with `userdata` (`zlink_resolve_async`,
// `zlink_set_log_callback`) promises it may be used from the thread that
// callback runs on (documented on each); it is only passed back to it.
unsafe impl Send for Userdata {}
// SAFETY: as above; never used from two threads at once.
unsafe impl Sync for Userdata {}

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
        Err(panic) => report(error, Error::panicked(&*panic, "panic in libzlink")),
    }
}

/// Hands a failure to the caller: its code, and the rich error when
/// `error` is not NULL.
#[cold]
fn report(error: *mut *mut zlink_error, fail: Error) -> Code {
    if !error.is_null() {
        let boxed = Box::new(zlink_error {
            code: fail.code(),
            kind: c_text(fail.kind.name()),
            message: c_text(&fail.message),
        });
        // SAFETY: the caller passes either NULL (checked above) or a pointer
        // to writable storage for one `zlink_error *`.
        unsafe { error.write(Box::into_raw(boxed)) };
    }
    fail.code()
}

/// `s` as a C string (a NUL inside becomes a space).
pub(crate) fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
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

/// The `ZLINK_ABI_VERSION` the loaded library was built with: a host built
/// against another header must not use it.
#[unsafe(no_mangle)]
pub extern "C" fn zlink_abi_version() -> u32 {
    ZLINK_ABI_VERSION
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
