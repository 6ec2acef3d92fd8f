//! The core's `tracing` events for a host's logger, without ever calling
//! host code on a core thread: the core may log while holding its own
//! locks, so host code that called back into the runtime from inside the
//! event could deadlock (or, in Python, wait for the GIL). A global
//! subscriber, enabled only at or above the level the host chose, formats
//! each event into one bounded queue, never waiting on the host: a full
//! queue drops the record and counts it. (The queue's lock is a leaf, held
//! only to push or to take the records out, never while calling anything,
//! so a logging thread waits out a moment's hold: dropping a record
//! because a reader held the lock lost records the host asked for. It
//! gives up, and drops, only on a lock held far longer, as one held across
//! a `fork`.) A host takes the records on a thread of its own, holding no
//! core lock, in one of two ways:
//!
//! - `take`: the host's thread polls (Python's daemon thread);
//! - `set_sink`: one library thread hands each record to a host closure
//!   (the C callback), then the count of dropped records as a warning.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, TryLockError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanRecord};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

use crate::codes::LogLevel;
use crate::error::{Error, ErrorKind, Result};

/// Records waiting for the host; older ones stay, newer drop.
pub const CAPACITY: usize = 4096;

/// Target of the library's own "records dropped" warning.
pub const DROP_TARGET: &str = "zlink::log";

/// One log record: its level, its target (the Rust module that logged,
/// e.g. `zlink_core::runtime`) and its message followed by its structured
/// fields as ` key=value` text.
pub type Record = (LogLevel, &'static str, String);

/// A host's receiver of records: level, target, message.
pub type Sink = Box<dyn Fn(LogLevel, &str, &str) + Send + Sync>;

/// The most verbose level forwarded: 0 = off, else a `LogLevel`.
static MAX: AtomicU8 = AtomicU8::new(0);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static QUEUE: Mutex<VecDeque<Record>> = Mutex::new(VecDeque::new());
static READY: Condvar = Condvar::new();
/// Bumped whenever the current sink thread must stop; each thread knows its
/// own epoch and ends when it changes.
static EPOCH: AtomicU64 = AtomicU64::new(0);
/// Whether this library's subscriber is the process's global one (decided
/// on the first call that installs it).
static INSTALLED: OnceLock<bool> = OnceLock::new();
static STATE: Mutex<State> = Mutex::new(State {
    sink: None,
    calling: false,
    thread: None,
});
/// Signalled when a sink call returns (`calling` becomes false).
static IDLE: Condvar = Condvar::new();

struct State {
    sink: Option<std::sync::Arc<Sink>>,
    /// The sink thread is inside the sink.
    calling: bool,
    thread: Option<JoinHandle<()>>,
}

thread_local! {
    /// This thread is a sink thread (so a `set_sink` from the sink must not
    /// wait for the sink to return).
    static ON_SINK_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The queue's lock for a logging thread: waits out the short holds (a
/// push, the reader's drain), but gives up after a while, so a lock that
/// is never released (held at a `fork` by a thread the child does not
/// have, or a logging allocator re-entered under it) drops the record
/// instead of hanging a core thread.
fn lock_briefly<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    /// Tries, with a yield between them: far longer than a drain of a full
    /// queue takes.
    const TRIES: usize = 1000;
    for _ in 0..TRIES {
        match m.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => std::thread::yield_now(),
        }
    }
    None
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
        LogLevel::of(metadata.level()) as u8 <= MAX.load(Ordering::Relaxed)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &SpanRecord<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        // Runs on whatever thread logged, maybe holding core locks: format,
        // then queue without ever waiting.
        let meta = event.metadata();
        let mut text = Text(String::new());
        event.record(&mut text);
        let Some(mut queue) = lock_briefly(&QUEUE) else {
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if queue.len() >= CAPACITY {
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        queue.push_back((LogLevel::of(meta.level()), meta.target(), text.0));
        drop(queue);
        READY.notify_one();
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Installs the subscriber as the process's global one (once per process);
/// `LogSubscriberTaken` when other Rust code in the process set one first.
fn install() -> Result<()> {
    if *INSTALLED.get_or_init(|| tracing::subscriber::set_global_default(Forward).is_ok()) {
        Ok(())
    } else {
        Err(Error::host(
            ErrorKind::LogSubscriberTaken,
            "a global tracing subscriber is already set in this process (by other Rust \
             code linked with this library): the log records cannot be forwarded",
        ))
    }
}

fn set_max(level: Option<LogLevel>) {
    MAX.store(level.map_or(0, |l| l as u8), Ordering::Relaxed);
    tracing::callsite::rebuild_interest_cache();
}

/// Forwards records at `level` and more severe into the queue (installing
/// the subscriber on first use); `None` forwards nothing.
pub fn set_level(level: Option<LogLevel>) -> Result<()> {
    if level.is_some() {
        install()?;
    }
    set_max(level);
    Ok(())
}

/// Waits up to `timeout` for records: the records queued, and the count
/// dropped since the last call.
pub fn take(timeout: Duration) -> (Vec<Record>, u64) {
    let queue = lock(&QUEUE);
    let (mut queue, _) = READY
        .wait_timeout_while(queue, timeout, |q| q.is_empty())
        .unwrap_or_else(|p| p.into_inner());
    let records = queue.drain(..).collect();
    drop(queue);
    (records, DROPPED.swap(0, Ordering::Relaxed))
}

/// Calls the current sink with one record; false when this thread must
/// stop (its epoch ended).
fn deliver(epoch: u64, level: LogLevel, target: &str, message: &str) -> bool {
    // One sink call at a time, also across an old and a new sink thread.
    let mut state = IDLE
        .wait_while(lock(&STATE), |s| s.calling)
        .unwrap_or_else(|p| p.into_inner());
    if EPOCH.load(Ordering::SeqCst) != epoch {
        return false;
    }
    let Some(sink) = state.sink.clone() else {
        return true;
    };
    state.calling = true;
    drop(state);
    let call = || sink(level, target, message);
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).is_err() {
        eprintln!("zlink: a panic unwound out of the log sink");
    }
    lock(&STATE).calling = false;
    IDLE.notify_all();
    true
}

/// The sink thread of one epoch: takes queued records and hands them over.
fn drain(epoch: u64) {
    ON_SINK_THREAD.set(true);
    loop {
        let batch: Vec<Record> = {
            let queue = READY
                .wait_while(lock(&QUEUE), |q| {
                    q.is_empty() && EPOCH.load(Ordering::SeqCst) == epoch
                })
                .unwrap_or_else(|p| p.into_inner());
            if EPOCH.load(Ordering::SeqCst) != epoch {
                return;
            }
            let mut queue = queue;
            queue.drain(..).collect()
        };
        for (level, target, text) in batch {
            if !deliver(epoch, level, target, &text) {
                return;
            }
        }
        let dropped = DROPPED.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let message = format!("{dropped} log record(s) dropped: the log queue was full");
            if !deliver(epoch, LogLevel::Warn, DROP_TARGET, &message) {
                return;
            }
        }
    }
}

/// Hands records at `level` and more severe to `sink`, called on one
/// library thread, one record at a time, holding no library lock (so it may
/// call back into the library, this function included); `None` turns
/// forwarding off and stops the thread. Once this returns on another thread
/// than the sink's, the previous sink is not running and is never called
/// again. (It waits for a running sink call to return.)
pub fn set_sink(sink: Option<Sink>, level: LogLevel) -> Result<()> {
    if sink.is_some() {
        install()?;
    }
    let mut state = lock(&STATE);
    let on_sink_thread = ON_SINK_THREAD.get();
    if !on_sink_thread {
        state = IDLE
            .wait_while(state, |s| s.calling)
            .unwrap_or_else(|p| p.into_inner());
    }
    match sink {
        Some(sink) => {
            state.sink = Some(std::sync::Arc::new(sink));
            set_max(Some(level));
            if state.thread.is_none() {
                let epoch = EPOCH.fetch_add(1, Ordering::SeqCst) + 1;
                let handle = std::thread::Builder::new()
                    .name("zlink-log".to_owned())
                    .spawn(move || drain(epoch))
                    .map_err(|e| {
                        state.sink = None;
                        set_max(None);
                        Error::host(
                            ErrorKind::Threads,
                            format!("could not start the log thread: {e}"),
                        )
                    })?;
                state.thread = Some(handle);
            }
        }
        None => {
            state.sink = None;
            set_max(None);
            let thread = state.thread.take();
            // Stop the sink thread (still under STATE, so a concurrent call
            // that starts a new thread bumps the epoch after this one):
            // records still queued were for the sink just removed.
            EPOCH.fetch_add(1, Ordering::SeqCst);
            lock(&QUEUE).clear();
            DROPPED.store(0, Ordering::Relaxed);
            READY.notify_all();
            drop(state);
            if let Some(handle) = thread {
                if on_sink_thread {
                    // Called from the sink: the thread ends when it returns
                    // (it cannot join itself).
                    drop(handle);
                } else if handle.join().is_err() {
                    eprintln!("zlink: the log thread panicked");
                }
            }
        }
    }
    Ok(())
}
