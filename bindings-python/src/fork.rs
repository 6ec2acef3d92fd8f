//! fork() safety. A child process has none of its parent's threads, so a
//! Runtime or store made before the fork cannot run there: using it raises
//! `ForkedRuntimeError`, and dropping it leaks it instead of touching locks
//! or threads that no longer exist. A new Runtime in the child works.
//!
//! `zlink/__init__.py` registers `_after_fork_in_child` with
//! `os.register_at_fork`, which bumps the fork generation; each object
//! remembers the generation it was made in (one relaxed load per call,
//! cheaper than `getpid()`, which is a system call).

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;

static FORKS: AtomicU64 = AtomicU64::new(0);

/// Called by `os.register_at_fork(after_in_child=...)`.
#[pyfunction]
pub(crate) fn _after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// A value usable only in the process that made it.
pub(crate) struct ForkBound<T> {
    value: Option<T>,
    generation: u64,
}

impl<T> ForkBound<T> {
    pub(crate) fn new(value: T) -> Self {
        ForkBound {
            value: Some(value),
            generation: FORKS.load(Ordering::Relaxed),
        }
    }

    #[inline]
    pub(crate) fn get(&self) -> PyResult<&T> {
        match &self.value {
            Some(v) if self.generation == FORKS.load(Ordering::Relaxed) => Ok(v),
            _ => Err(crate::errors::forked()),
        }
    }
}

impl<T> Drop for ForkBound<T> {
    fn drop(&mut self) {
        if self.generation != FORKS.load(Ordering::Relaxed) {
            // Its threads died with the fork; its locks may be held forever.
            std::mem::forget(self.value.take());
        }
    }
}
