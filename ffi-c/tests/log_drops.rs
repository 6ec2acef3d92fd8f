//! A full log queue drops records without blocking the logging thread, and
//! the count arrives later as a warning (a process of its own: the log
//! callback is process-global).

use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use zlink::{zlink_log_level, zlink_result, zlink_set_log_callback};

static ENTERED: AtomicBool = AtomicBool::new(false);
static RELEASE: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());
static LINES: Mutex<Vec<(zlink_log_level, String, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn collect(
    level: zlink_log_level,
    target: *const c_char,
    message: *const c_char,
    _: *mut c_void,
) {
    // SAFETY: NUL-terminated strings valid during the call.
    let (target, message) = unsafe { (CStr::from_ptr(target), CStr::from_ptr(message)) };
    let line = (
        level,
        target.to_string_lossy().into_owned(),
        message.to_string_lossy().into_owned(),
    );
    LINES.lock().expect("lines").push(line);
    if !ENTERED.swap(true, Ordering::SeqCst) {
        // Hold the log thread in the first call until the queue overflowed.
        let (lock, cv) = &RELEASE;
        let released = lock.lock().expect("release");
        drop(cv.wait_while(released, |r| !*r).expect("release"));
    }
}

fn set(callback: zlink::zlink_log_callback, level: zlink_log_level) -> zlink_result {
    // SAFETY: a valid callback or NULL; no userdata; NULL error.
    unsafe {
        zlink_set_log_callback(
            callback,
            std::ptr::null_mut(),
            level as u32,
            std::ptr::null_mut(),
        )
    }
}

#[test]
fn a_full_queue_drops_and_reports_the_count() {
    assert_eq!(set(Some(collect), zlink_log_level::Debug), zlink_result::Ok);
    tracing::warn!(n = 0, "first");
    let start = Instant::now();
    while !ENTERED.load(Ordering::SeqCst) {
        assert!(start.elapsed() < Duration::from_secs(5), "the callback ran");
        std::thread::sleep(Duration::from_millis(1));
    }
    // The log thread is held: 4096 records fit in the queue, the rest drop.
    for n in 1..=5000 {
        tracing::debug!(n, "more");
    }
    tracing::trace!("below the level: never queued");
    {
        let (lock, cv) = &RELEASE;
        *lock.lock().expect("release") = true;
        cv.notify_all();
    }
    let start = Instant::now();
    while LINES.lock().expect("lines").len() < 1 + 1 + 4096 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "every queued record arrived"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(set(None, zlink_log_level::Debug), zlink_result::Ok);
    let lines = LINES.lock().expect("lines");
    assert_eq!(lines.len(), 1 + 1 + 4096);
    assert_eq!(lines[0].0, zlink_log_level::Warn);
    assert!(lines[0].1.starts_with("log_drops"), "{:?}", lines[0]);
    assert_eq!(lines[0].2, "first n=0");
    assert_eq!(
        lines[1],
        (
            zlink_log_level::Warn,
            "zlink::log".to_owned(),
            "904 log record(s) dropped: the log queue was full".to_owned()
        )
    );
    assert_eq!(lines[2].2, "more n=1");
    assert_eq!(lines[4097].2, "more n=4096");
}
