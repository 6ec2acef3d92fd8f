//! libzlink_jni: the JNI entry points of `io.zlink.Native` (java/), a thin
//! translation of zlink-bridge. Each entry point reads Java arguments
//! (handles as `long`, kinds as `int`, IDs and payloads as `byte[]`), calls
//! the bridge and returns a primitive or the result's bytes
//! (`bridge::encode`), which `io.zlink.Decoder` turns into Java records. A
//! bridge error becomes the Java exception of its family (`throw`); a panic
//! becomes a `ZlinkException` of kind `Panic`; nothing unwinds into the JVM.
//!
//! Objects Java holds are handles of `bridge::handles::Registry` (`handles`):
//! a closed or foreign handle is an `IllegalStateException`, and closing
//! waits for the calls in flight on other threads.

mod fast;
mod handles;
mod natives;
mod near;
mod throw;

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicPtr, Ordering};

use jni::JavaVM;
use jni::sys::jint;

/// Declares `Java_io_zlink_Native_<name>` entry points: each body runs in
/// `with_env` (panics caught) and its `Err` is thrown by [`throw::Throw`].
macro_rules! entry_points {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($env:ident $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty $body:block
    )*) => {$(
        $(#[$doc])*
        // Exported by `no_mangle`: the JVM finds it by name, no Rust caller.
        #[unsafe(no_mangle)]
        extern "system" fn $name<'local>(
            mut unowned: jni::EnvUnowned<'local>,
            _class: jni::objects::JClass<'local>,
            $($arg: $ty),*
        ) -> $ret {
            unowned
                .with_env(|$env: &mut jni::Env<'local>| -> std::result::Result<$ret, crate::throw::Fail> {
                    $body
                })
                .resolve::<crate::throw::Throw>()
        }
    )*};
}
pub(crate) use entry_points;

/// The JVM, for the completion pool's thread hooks.
static VM: AtomicPtr<jni::sys::JavaVM> = AtomicPtr::new(std::ptr::null_mut());

/// A completion pool thread starts: it joins the JVM as a daemon thread
/// named `zlink-callback`, so a runtime never closed cannot keep the JVM
/// from exiting.
fn attach_as_daemon() {
    let vm = VM.load(Ordering::Acquire);
    if vm.is_null() {
        return;
    }
    let mut env: *mut c_void = std::ptr::null_mut();
    let mut args = jni::sys::JavaVMAttachArgs {
        version: jni::sys::JNI_VERSION_1_8,
        name: c"zlink-callback".as_ptr() as *mut c_char,
        group: std::ptr::null_mut(),
    };
    // SAFETY: `vm` is the JVM of JNI_OnLoad, alive while the library is;
    // the arguments are valid for the call.
    unsafe {
        ((**vm).v1_4.AttachCurrentThreadAsDaemon)(vm, &mut env, (&raw mut args).cast());
    }
}

/// A completion pool thread ends: it leaves the JVM.
fn detach() {
    let vm = VM.load(Ordering::Acquire);
    if !vm.is_null() {
        // SAFETY: as above; detaching an unattached thread is a no-op.
        unsafe {
            ((**vm).v1_1.DetachCurrentThread)(vm);
        }
    }
}

/// Keeps the classes Rust threads use (a thread the JVM did not start
/// finds classes only through the system class loader, so they are
/// resolved here, on the thread that loads the library), and makes the
/// completion pool's threads daemon threads of this JVM.
///
/// # Safety
/// Called by the JVM only, with its own valid `JavaVM` pointer.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn JNI_OnLoad(
    raw: *mut jni::sys::JavaVM,
    _reserved: *mut c_void,
) -> jint {
    VM.store(raw, Ordering::Release);
    zlink_bridge::runtime::set_thread_hooks(attach_as_daemon, detach);
    // SAFETY: the JVM passes its own valid pointer.
    let vm = unsafe { JavaVM::from_raw(raw) };
    match vm.attach_current_thread(natives::on_load) {
        Ok(()) => jni::sys::JNI_VERSION_1_8,
        Err(e) => {
            eprintln!("zlink: JNI_OnLoad failed: {e}");
            jni::sys::JNI_ERR
        }
    }
}
