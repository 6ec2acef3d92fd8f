//! When other Rust code in the process already set the global `tracing`
//! subscriber, the log callback is refused with its own code (a process of
//! its own: the global subscriber is set once per process).

use std::ffi::{CStr, c_char, c_void};

use zlink::{zlink_log_level, zlink_result, zlink_set_log_callback};

unsafe extern "C" fn never(_: zlink_log_level, _: *const c_char, _: *const c_char, _: *mut c_void) {
    panic!("no record is forwarded");
}

#[test]
fn a_subscriber_set_elsewhere_is_reported() {
    tracing::subscriber::set_global_default(tracing::subscriber::NoSubscriber::default())
        .expect("the first global subscriber");
    let mut error = std::ptr::null_mut();
    // SAFETY: a valid callback; `error` is writable.
    let rc = unsafe {
        zlink_set_log_callback(
            Some(never),
            std::ptr::null_mut(),
            zlink_log_level::Info as u32,
            &mut error,
        )
    };
    assert_eq!(rc, zlink_result::LogSubscriberTaken);
    // SAFETY: the error the failed call wrote.
    let message = unsafe { CStr::from_ptr(zlink::zlink_error_message(error)) };
    assert!(message.to_str().expect("utf-8").contains("already set"));
    // SAFETY: freed once.
    unsafe { zlink::zlink_error_free(error) };
    // Turning it off needs no subscriber and succeeds.
    // SAFETY: NULL callback, NULL error.
    let rc = unsafe {
        zlink_set_log_callback(
            None,
            std::ptr::null_mut(),
            zlink_log_level::Info as u32,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, zlink_result::Ok);
}
