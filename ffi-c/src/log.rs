//! The core's `tracing` events for a C log callback (DESIGN §6), through
//! the bridge's one log queue: records are formatted where the core logs,
//! queued without ever blocking it, and handed to the callback on one
//! library thread that holds no core lock.

use std::ffi::{c_char, c_void};

use zlink_bridge::args::Arg;
use zlink_bridge::codes::LogLevel;
use zlink_bridge::logs;

use crate::{Userdata, c_text};

/// Called on the library's log thread with one record: its level, its
/// target (the Rust module that logged, e.g. `zlink_core::runtime`) and its
/// message followed by its structured fields as ` key=value` text. Both
/// strings are NUL-terminated UTF-8, valid only during the call.
pub type zlink_log_callback = Option<
    unsafe extern "C" fn(
        level: LogLevel,
        target: *const c_char,
        message: *const c_char,
        userdata: *mut c_void,
    ),
>;

entry! {
    /// Hands the core's log records to `callback(level, target, message,
    /// userdata)`, for records at `min_level` (a `zlink_log_level`) and more
    /// severe; a NULL `callback` turns forwarding off (`min_level` must still be
    /// a valid level). Calling it again replaces the callback, its userdata and
    /// the level.
    ///
    /// Records are formatted where the core logs and put into a bounded queue
    /// that never waits on the host: when it is full the record is
    /// dropped, counted, and the count is reported later by a
    /// `ZLINK_LOG_LEVEL_WARN` record with target `zlink::log`.
    ///
    /// The first call with a callback installs the library's `tracing`
    /// subscriber as the process's global one, once per process. If other Rust
    /// code in the process already set a global `tracing` subscriber, the call
    /// returns `ZLINK_RESULT_LOG_SUBSCRIBER_TAKEN` and nothing is forwarded.
    ///
    /// Thread-safety: any thread. The callback runs on the library's log thread
    /// (one at a time, never on a core thread and never holding a library
    /// lock), so it may call any zlink function, including this one. Once this
    /// function returns on another thread than the log thread, the previous
    /// callback is not running and is never called again: its userdata may be
    /// freed. (It waits for a running callback to return: do not call it while
    /// holding a lock your callback takes.) Setting NULL stops and joins the
    /// log thread.
    ///
    /// # Safety
    /// `callback` is NULL or a function that may be called with `userdata` from
    /// the library's log thread until this function is next called.
    fn zlink_set_log_callback(callback: zlink_log_callback, userdata: *mut c_void, min_level: u32) {
        let level: LogLevel = min_level.get()?;
        let userdata = Userdata(userdata);
        let sink = callback.map(|f| -> logs::Sink {
            Box::new(move |level, target, message| {
                let (target, message) = (c_text(target), c_text(message));
                // SAFETY: the host gave a valid callback and userdata for it;
                // both strings live across the call.
                unsafe { f(level, target.as_ptr(), message.as_ptr(), userdata.get()) }
            })
        });
        logs::set_sink(sink, level)
    }
}
