//! Rules about an object's life that every host shares: an object made
//! before a `fork()` cannot run in the child (none of its threads exist
//! there), so using it is a `Forked` error and dropping it forgets it
//! instead of touching locks or threads that are gone. A new object in the
//! child works.
//!
//! Each host tells the bridge about a fork in the child
//! (`after_fork_in_child`: Python through `os.register_at_fork`, C through
//! `pthread_atfork`); each object remembers the fork generation it was made
//! in, so the check is one relaxed load per call, cheaper than `getpid()`.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

static FORKS: AtomicU64 = AtomicU64::new(0);

/// Called in the child process right after a fork.
pub fn after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// A value usable only in the process that made it.
#[derive(Debug)]
pub struct ForkBound<T> {
    value: Option<T>,
    generation: u64,
}

impl<T> ForkBound<T> {
    /// Binds `value` to this process.
    pub fn new(value: T) -> Self {
        ForkBound {
            value: Some(value),
            generation: FORKS.load(Ordering::Relaxed),
        }
    }

    /// The value, or `Forked` in a child of the process that made it.
    #[inline]
    pub fn get(&self) -> Result<&T> {
        match &self.value {
            Some(v) if self.generation == FORKS.load(Ordering::Relaxed) => Ok(v),
            _ => Err(Error::forked()),
        }
    }

    /// The value to change, or `Forked`.
    pub fn get_mut(&mut self) -> Result<&mut T> {
        let forked = self.forked();
        match &mut self.value {
            Some(v) if !forked => Ok(v),
            _ => Err(Error::forked()),
        }
    }

    /// Whether the value was made before a fork of this process.
    pub fn forked(&self) -> bool {
        self.generation != FORKS.load(Ordering::Relaxed)
    }
}

impl<T> Drop for ForkBound<T> {
    fn drop(&mut self) {
        if self.forked() {
            // Its threads died with the fork; its locks may be held forever.
            std::mem::forget(self.value.take());
        }
    }
}
