//! The core's log records for Python `logging`, from the bridge's one log
//! queue: a Python daemon thread (`zlink.forward_logs`) takes the records
//! with `_log_take` and logs them itself, holding no core lock, so a
//! handler may call back into the Runtime and no lock order with the GIL
//! exists.

use std::time::Duration;

use pyo3::prelude::*;
use zlink_bridge::codes::LogLevel;
use zlink_bridge::logs;

use crate::errors::Raise;

/// Forwards records at Python `logging` level `level` and above (0: all;
/// over 50: none).
#[pyfunction]
pub(crate) fn _log_level(level: i64) -> PyResult<()> {
    let level = match level {
        l if l > 50 => None,
        l if l >= 40 => Some(LogLevel::Error),
        l if l >= 30 => Some(LogLevel::Warn),
        l if l >= 20 => Some(LogLevel::Info),
        l if l >= 10 => Some(LogLevel::Debug),
        _ => Some(LogLevel::Trace),
    };
    logs::set_level(level).py()
}

/// Waits up to `timeout_ms` (GIL released) for records: a list of
/// `(logging level, target, message)`, and the count dropped since.
#[pyfunction]
pub(crate) fn _log_take(py: Python<'_>, timeout_ms: u64) -> (Vec<(u8, &'static str, String)>, u64) {
    let (records, dropped) = py.detach(|| logs::take(Duration::from_millis(timeout_ms)));
    let level = |l: LogLevel| match l {
        LogLevel::Error => 40,
        LogLevel::Warn => 30,
        LogLevel::Info => 20,
        LogLevel::Debug => 10,
        LogLevel::Trace => 5,
    };
    let records = records
        .into_iter()
        .map(|(l, t, m)| (level(l), t, m))
        .collect();
    (records, dropped)
}

/// Called by `os.register_at_fork(after_in_child=...)`: objects made before
/// the fork refuse to run in the child (the bridge's fork rule).
#[pyfunction]
pub(crate) fn _after_fork_in_child() {
    zlink_bridge::lifecycle::after_fork_in_child();
}
