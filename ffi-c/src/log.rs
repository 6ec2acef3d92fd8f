//! The core's `tracing` events for a C log callback (DESIGN §6), without
//! ever calling host code on a core thread: the core may log while holding
//! its own locks, so a callback that called back into the runtime from
//! inside the event could deadlock. Instead a global subscriber, enabled
//! only at or above the level the host chose, formats each event into a
//! bounded queue (never blocking: a contended or full queue drops the record
//! and counts it), and one library thread takes the records and calls the
//! host's callback holding no core lock. The count of dropped records is
//! reported by a later warning on the same callback.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::{CString, c_char, c_void};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

use crate::{Fail, FfiResult, boundary, zlink_error, zlink_result};

/// Severity of a log record. The numbers are stable; a lower number is more
/// severe. Functions take it as a `uint32_t` so that an out-of-range value
/// is an error code, not UB.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum zlink_log_level {
    /// Something failed.
    Error = 1,
    /// Something unexpected the library handled.
    Warn = 2,
    /// A notable event (lease invalidations, store recovery, …).
    Info = 3,
    /// Detail for debugging.
    Debug = 4,
    /// Everything.
    Trace = 5,
}

impl zlink_log_level {
    fn of(level: &Level) -> Self {
        match *level {
            Level::ERROR => zlink_log_level::Error,
            Level::WARN => zlink_log_level::Warn,
            Level::INFO => zlink_log_level::Info,
            Level::DEBUG => zlink_log_level::Debug,
            Level::TRACE => zlink_log_level::Trace,
        }
    }

    fn from_u32(v: u32) -> Option<Self> {
        [
            zlink_log_level::Error,
            zlink_log_level::Warn,
            zlink_log_level::Info,
            zlink_log_level::Debug,
            zlink_log_level::Trace,
        ]
        .into_iter()
        .find(|l| *l as u32 == v)
    }
}

/// Called on the library's log thread with one record: its level, its
/// target (the Rust module that logged, e.g. `zlink_core::runtime`) and its
/// message followed by its structured fields as ` key=value` text. Both
/// strings are NUL-terminated UTF-8, valid only during the call.
pub type zlink_log_callback = Option<
    unsafe extern "C" fn(
        level: zlink_log_level,
        target: *const c_char,
        message: *const c_char,
        userdata: *mut c_void,
    ),
>;

/// Records waiting for the log thread; older ones stay, newer drop.
const CAPACITY: usize = 4096;

/// Target of the library's own "records dropped" warning.
const DROP_TARGET: &std::ffi::CStr = c"zlink::log";

/// The most verbose level forwarded: 0 = off, else a `zlink_log_level`.
static MAX: AtomicU8 = AtomicU8::new(0);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static QUEUE: Mutex<VecDeque<(zlink_log_level, &'static str, String)>> =
    Mutex::new(VecDeque::new());
static READY: Condvar = Condvar::new();
/// Bumped whenever the current log thread must stop; each thread knows its
/// own epoch and ends when it changes.
static EPOCH: AtomicU64 = AtomicU64::new(0);
/// Whether this library's subscriber is the process's global one (decided
/// on the first call that sets a callback).
static INSTALLED: OnceLock<bool> = OnceLock::new();
static STATE: Mutex<State> = Mutex::new(State {
    callback: None,
    calling: false,
    thread: None,
});
/// Signalled when a callback call returns (`calling` becomes false).
static IDLE: Condvar = Condvar::new();

struct Callback {
    f: unsafe extern "C" fn(zlink_log_level, *const c_char, *const c_char, *mut c_void),
    userdata: *mut c_void,
}

// SAFETY: the caller of `zlink_set_log_callback` promises `userdata` may be
// used from the library's log thread (documented on the function).
unsafe impl Send for Callback {}

struct State {
    callback: Option<Callback>,
    /// The log thread is inside the callback.
    calling: bool,
    thread: Option<JoinHandle<()>>,
}

thread_local! {
    /// This thread is a log thread (so a `zlink_set_log_callback` from the
    /// callback must not wait for the callback to return).
    static ON_LOG_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

struct Text(String);

impl Visit for Text {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.insert_str(0, value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.insert_str(0, &format!("{value:?}"));
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

struct Forward;

impl Subscriber for Forward {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked every time: the level can change at run time.
        Interest::sometimes()
    }
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        zlink_log_level::of(metadata.level()) as u8 <= MAX.load(Ordering::Relaxed)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        // Runs on whatever thread logged, maybe holding core locks: format,
        // then queue without ever waiting.
        let meta = event.metadata();
        let mut text = Text(String::new());
        event.record(&mut text);
        let Ok(mut queue) = QUEUE.try_lock() else {
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if queue.len() >= CAPACITY {
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        queue.push_back((zlink_log_level::of(meta.level()), meta.target(), text.0));
        drop(queue);
        READY.notify_one();
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// Calls the current callback with one record; false when this thread must
/// stop (its epoch ended).
fn deliver(epoch: u64, level: zlink_log_level, target: &CString, message: &CString) -> bool {
    // One callback call at a time, also across an old and a new log thread.
    let mut state = IDLE
        .wait_while(lock(&STATE), |s| s.calling)
        .unwrap_or_else(|p| p.into_inner());
    if EPOCH.load(Ordering::SeqCst) != epoch {
        return false;
    }
    let Some(Callback { f, userdata }) = state.callback.as_ref().map(|c| Callback {
        f: c.f,
        userdata: c.userdata,
    }) else {
        return true;
    };
    state.calling = true;
    drop(state);
    // SAFETY: the host gave a valid callback and userdata for it; both
    // strings live across the call.
    let call = || unsafe { f(level, target.as_ptr(), message.as_ptr(), userdata) };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).is_err() {
        eprintln!("libzlink: a panic unwound out of the log callback");
    }
    lock(&STATE).calling = false;
    IDLE.notify_all();
    true
}

/// The log thread of one epoch: takes queued records and hands them over.
fn drain(epoch: u64) {
    ON_LOG_THREAD.set(true);
    loop {
        let batch: Vec<_> = {
            let queue = lock(&QUEUE);
            let mut queue = READY
                .wait_while(queue, |q| {
                    q.is_empty() && EPOCH.load(Ordering::SeqCst) == epoch
                })
                .unwrap_or_else(|p| p.into_inner());
            if EPOCH.load(Ordering::SeqCst) != epoch {
                return;
            }
            queue.drain(..).collect()
        };
        for (level, target, text) in batch {
            if !deliver(epoch, level, &c_text(target), &c_text(&text)) {
                return;
            }
        }
        let dropped = DROPPED.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let message = c_text(&format!(
                "{dropped} log record(s) dropped: the log queue was full or busy"
            ));
            if !deliver(
                epoch,
                zlink_log_level::Warn,
                &DROP_TARGET.to_owned(),
                &message,
            ) {
                return;
            }
        }
    }
}

fn set(callback: zlink_log_callback, userdata: *mut c_void, min_level: u32) -> FfiResult {
    let Some(level) = zlink_log_level::from_u32(min_level) else {
        return Err(Fail::new(
            zlink_result::InvalidArgument,
            format!("min_level {min_level} is not a zlink_log_level (1..=5)"),
        ));
    };
    if callback.is_some() {
        let ours =
            *INSTALLED.get_or_init(|| tracing::subscriber::set_global_default(Forward).is_ok());
        if !ours {
            return Err(Fail::new(
                zlink_result::LogSubscriberTaken,
                "a global tracing subscriber is already set in this process (by other Rust \
                 code linked with libzlink): the log callback cannot be installed",
            ));
        }
    }
    let mut state = lock(&STATE);
    let on_log_thread = ON_LOG_THREAD.get();
    if !on_log_thread {
        // Once this returns, the previous callback is never called again.
        state = IDLE
            .wait_while(state, |s| s.calling)
            .unwrap_or_else(|p| p.into_inner());
    }
    match callback {
        Some(f) => {
            state.callback = Some(Callback { f, userdata });
            MAX.store(level as u8, Ordering::Relaxed);
            if state.thread.is_none() {
                let epoch = EPOCH.fetch_add(1, Ordering::SeqCst) + 1;
                let handle = std::thread::Builder::new()
                    .name("zlink-log".to_owned())
                    .spawn(move || drain(epoch))
                    .map_err(|e| {
                        state.callback = None;
                        MAX.store(0, Ordering::Relaxed);
                        Fail::new(
                            zlink_result::Threads,
                            format!("could not start the log thread: {e}"),
                        )
                    })?;
                state.thread = Some(handle);
            }
            drop(state);
        }
        None => {
            state.callback = None;
            MAX.store(0, Ordering::Relaxed);
            let thread = state.thread.take();
            // Stop the log thread (still under STATE, so a concurrent call
            // that starts a new thread bumps the epoch after this one):
            // records still queued were for the callback just removed.
            EPOCH.fetch_add(1, Ordering::SeqCst);
            {
                let mut queue = lock(&QUEUE);
                queue.clear();
                DROPPED.store(0, Ordering::Relaxed);
            }
            READY.notify_all();
            drop(state);
            if let Some(handle) = thread {
                if on_log_thread {
                    // Called from the callback: the thread ends when it
                    // returns (it cannot join itself).
                    drop(handle);
                } else if handle.join().is_err() {
                    eprintln!("libzlink: the log thread panicked");
                }
            }
        }
    }
    tracing::callsite::rebuild_interest_cache();
    Ok(())
}

/// Hands the core's log records to `callback(level, target, message,
/// userdata)`, for records at `min_level` (a `zlink_log_level`) and more
/// severe; a NULL `callback` turns forwarding off (`min_level` must still be
/// a valid level). Calling it again replaces the callback, its userdata and
/// the level.
///
/// Records are formatted where the core logs and put into a bounded queue
/// that never blocks the core: when it is full or busy the record is
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
/// the library's log thread until this function is next called;
/// `error` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zlink_set_log_callback(
    callback: zlink_log_callback,
    userdata: *mut c_void,
    min_level: u32,
    error: *mut *mut zlink_error,
) -> zlink_result {
    boundary(error, || set(callback, userdata, min_level))
}
