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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

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

/// The use-after-close rule for hosts that hold an object itself (a Python
/// or Node object) rather than a number (C and the JVM use
/// `handles::Registry`, which gives the same rule): after `close`, every
/// call is refused with `Closed`.
///
/// Such hosts run their calls under one host lock (Python's GIL, Node's
/// JavaScript thread), so the common call needs no lock of ours: `get` is
/// one flag load. A call that runs without the host lock (a store read
/// with the GIL released) takes `pin`, and `close` waits for those. The
/// value stays allocated until the `Closable` is dropped (with the host
/// object), so a call that passed the flag an instant before `close`
/// still runs on valid memory; `close` only stops what the value runs
/// (`Runtime::stop`).
pub struct Closable<T> {
    value: T,
    closed: AtomicBool,
    /// Read-held by calls running without the host lock.
    calls: RwLock<()>,
    what: &'static str,
}

/// A pinned use of a [`Closable`] value: `close` waits for it.
pub struct Open<'a, T> {
    value: &'a T,
    _pin: RwLockReadGuard<'a, ()>,
}

impl<T> std::ops::Deref for Open<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> Closable<T> {
    /// An open `value`; `what` names it in the `Closed` error.
    pub fn new(value: T, what: &'static str) -> Self {
        Closable {
            value,
            closed: AtomicBool::new(false),
            calls: RwLock::new(()),
            what,
        }
    }

    /// The value for a call made under the host lock, or `Closed`.
    #[inline]
    pub fn get(&self) -> Result<&T> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::closed(self.what));
        }
        Ok(&self.value)
    }

    /// The value for a call that may run without the host lock, or
    /// `Closed`: `close` waits until the returned pin is dropped.
    pub fn pin(&self) -> Result<Open<'_, T>> {
        let pin = self.calls.read().unwrap_or_else(|p| p.into_inner());
        self.get().map(|value| Open { value, _pin: pin })
    }

    /// Refuses every later call, waits for the pinned calls in flight,
    /// then returns the value for the host to stop (None if it was already
    /// closed: closing twice is allowed). A call that passed the flag an
    /// instant before still ends normally: to the host it came first. Run
    /// it with the host lock released (pinned calls may be waiting to
    /// finish), never on a thread holding a pin of the same value.
    pub fn close(&self) -> Option<&T> {
        self.refuse().then(|| self.drain())
    }

    /// The first half of `close`, for a host whose thread must not wait:
    /// refuses every later call at once; true the first time.
    pub fn refuse(&self) -> bool {
        !self.closed.swap(true, Ordering::AcqRel)
    }

    /// The second half of `close`: waits for the pinned calls in flight,
    /// then hands the value back to be stopped.
    pub fn drain(&self) -> &T {
        drop(self.calls.write().unwrap_or_else(|p| p.into_inner()));
        &self.value
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn calls_after_close_are_refused_and_close_twice_is_allowed() {
        let c = Closable::new(5u32, "runtime");
        assert_eq!(*c.pin().expect("open"), 5);
        assert_eq!(c.get().copied(), Ok(5));
        assert_eq!(c.close(), Some(&5));
        assert_eq!(c.get().err().map(|e| e.kind), Some(ErrorKind::Closed));
        let e = c.pin().err().expect("closed");
        assert_eq!(e.kind, ErrorKind::Closed);
        assert_eq!(e.message, "this runtime is closed");
        assert_eq!(c.close(), None);
        assert!(c.is_closed());
    }

    #[test]
    fn close_waits_for_the_calls_in_flight() {
        let c = std::sync::Arc::new(Closable::new(1u32, "runtime"));
        let pin = c.pin().expect("open");
        let closer = {
            let c = c.clone();
            std::thread::spawn(move || c.close().copied())
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!closer.is_finished(), "close waits for the pin");
        assert_eq!(*pin, 1);
        drop(pin);
        assert_eq!(closer.join().expect("no panic"), Some(1));
    }
}
