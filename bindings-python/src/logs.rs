//! The core's `tracing` events for Python `logging`, without ever taking
//! the GIL on a core thread: a global subscriber, enabled only at or above
//! the level `zlink.forward_logs` set, formats each event into a bounded
//! queue (never blocking: a contended or full queue drops the record and
//! counts it); a Python daemon thread takes the records (`_log_take`) and
//! hands them to `logging` itself, holding no core lock. So a handler may
//! call back into the Runtime, and no lock order with the GIL exists.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, Once};
use std::time::Duration;

use pyo3::prelude::*;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// Records waiting for the Python thread; older ones stay, newer drop.
const CAPACITY: usize = 4096;

/// 0 = off, 1 = error … 5 = trace.
static MAX: AtomicU8 = AtomicU8::new(0);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static QUEUE: Mutex<VecDeque<(u8, &'static str, String)>> = Mutex::new(VecDeque::new());
static READY: Condvar = Condvar::new();
static INSTALL: Once = Once::new();

fn rank(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 1,
        Level::WARN => 2,
        Level::INFO => 3,
        Level::DEBUG => 4,
        Level::TRACE => 5,
    }
}

/// Python `logging` level of a rank.
fn py_level(rank: u8) -> u8 {
    match rank {
        1 => 40,
        2 => 30,
        3 => 20,
        4 => 10,
        _ => 5,
    }
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
        rank(metadata.level()) <= MAX.load(Ordering::Relaxed)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
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
        queue.push_back((rank(meta.level()), meta.target(), text.0));
        drop(queue);
        READY.notify_one();
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Forwards events at Python `logging` level `level` and above (0: all;
/// over 50: none). Installs the subscriber on first use.
#[pyfunction]
pub(crate) fn _log_level(level: i64) {
    INSTALL.call_once(|| {
        // In this extension's own copy of `tracing`: nothing else sets it.
        let _ = tracing::subscriber::set_global_default(Forward);
    });
    let max = match level {
        l if l > 50 => 0,
        l if l >= 40 => 1,
        l if l >= 30 => 2,
        l if l >= 20 => 3,
        l if l >= 10 => 4,
        _ => 5,
    };
    MAX.store(max, Ordering::Relaxed);
    tracing::callsite::rebuild_interest_cache();
}

/// Waits up to `timeout_ms` (GIL released) for records: a list of
/// `(logging level, target, message)`, and the count dropped since.
#[pyfunction]
pub(crate) fn _log_take(py: Python<'_>, timeout_ms: u64) -> (Vec<(u8, &'static str, String)>, u64) {
    let records = py.detach(|| {
        let queue = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
        let (mut queue, _) = READY
            .wait_timeout_while(queue, Duration::from_millis(timeout_ms), |q| q.is_empty())
            .unwrap_or_else(|p| p.into_inner());
        queue.drain(..).collect::<Vec<_>>()
    });
    let records = records
        .into_iter()
        .map(|(rank, target, text)| (py_level(rank), target, text))
        .collect();
    (records, DROPPED.swap(0, Ordering::Relaxed))
}
