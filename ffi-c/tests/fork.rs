//! The bridge's fork rule through the C ABI (a process of its own): in a
//! child of `fork()`, runtimes, stores and clocks made before the fork are
//! `ZLINK_RESULT_FORKED` (kind "Forked"), freeing them only forgets them,
//! and new ones work.

use std::ffi::{CStr, c_int};

use zlink::*;

unsafe extern "C" {
    fn fork() -> c_int;
    fn waitpid(pid: c_int, status: *mut c_int, options: c_int) -> c_int;
    fn _exit(status: c_int) -> !;
}

fn identity(rid: u64) -> zlink_node_identity {
    zlink_node_identity {
        mesh: c"fork-mesh".as_ptr(),
        rid,
        generation: 1,
        lease: rid,
    }
}

/// What the child checks; 0 when all hold.
fn child(rt: *mut zlink_runtime, store: *mut zlink_store) -> c_int {
    let mut now = 0u64;
    let mut err: *mut zlink_error = std::ptr::null_mut();
    // SAFETY: a handle made before the fork, writable outs; the error is
    // read, then freed once.
    let forked = unsafe {
        let rc = zlink_now(rt, &mut now, &mut err);
        let kind = CStr::from_ptr(zlink_error_kind(err)).to_str() == Ok("Forked");
        zlink_error_free(err);
        rc == zlink_result::Forked && kind
    };
    if !forked {
        return 1;
    }
    let mut fresh: *mut zlink_runtime = std::ptr::null_mut();
    let id = identity(2);
    // SAFETY: initialised identity, writable out; NULL config, clock.
    let with_old_store = unsafe {
        zlink_runtime_new(
            &id,
            std::ptr::null(),
            store,
            std::ptr::null(),
            &mut fresh,
            std::ptr::null_mut(),
        )
    };
    if with_old_store != zlink_result::Forked {
        return 2;
    }
    // SAFETY: as above, with a private store.
    let made = unsafe {
        zlink_runtime_new(
            &id,
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            &mut fresh,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: live handles; the old one is only forgotten.
    let works = unsafe {
        made == zlink_result::Ok
            && zlink_now(fresh, &mut now, std::ptr::null_mut()) == zlink_result::Ok
            && zlink_runtime_free(fresh, std::ptr::null_mut()) == zlink_result::Ok
            && zlink_runtime_free(rt, std::ptr::null_mut()) == zlink_result::Ok
    };
    if works { 0 } else { 3 }
}

#[test]
fn objects_made_before_a_fork_refuse_in_the_child() {
    let mut store: *mut zlink_store = std::ptr::null_mut();
    let mut rt: *mut zlink_runtime = std::ptr::null_mut();
    let id = identity(1);
    // SAFETY: writable outs, an initialised identity, NULL config and clock.
    unsafe {
        assert_eq!(
            zlink_store_memory_new(std::ptr::null(), &mut store, std::ptr::null_mut()),
            zlink_result::Ok
        );
        assert_eq!(
            zlink_runtime_new(
                &id,
                std::ptr::null(),
                store,
                std::ptr::null(),
                &mut rt,
                std::ptr::null_mut()
            ),
            zlink_result::Ok
        );
    }
    // SAFETY: the child only calls the library and `_exit`s.
    let pid = unsafe { fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let code = child(rt, store);
        // SAFETY: leaves the child at once, running no test harness code.
        unsafe { _exit(code) };
    }
    let mut status: c_int = -1;
    // SAFETY: our child; a writable status.
    assert_eq!(unsafe { waitpid(pid, &mut status, 0) }, pid);
    assert_eq!(status, 0, "the child's checks (exit code {})", status >> 8);
    let mut now = 0u64;
    // SAFETY: live handles in the parent, writable out.
    unsafe {
        assert_eq!(
            zlink_now(rt, &mut now, std::ptr::null_mut()),
            zlink_result::Ok
        );
        assert_eq!(
            zlink_runtime_free(rt, std::ptr::null_mut()),
            zlink_result::Ok
        );
        assert_eq!(
            zlink_store_free(store, std::ptr::null_mut()),
            zlink_result::Ok
        );
    }
}
