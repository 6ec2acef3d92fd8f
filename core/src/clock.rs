//! Time as the core sees it: a local monotonic clock, injectable so tests
//! drive time by hand and never sleep (DESIGN §3).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A local monotonic instant, in nanoseconds since the clock's origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MonoTime(pub u64);

impl MonoTime {
    /// The instant `d` later (saturating).
    pub fn after(self, d: Duration) -> MonoTime {
        MonoTime(self.0.saturating_add(duration_nanos(d)))
    }

    /// The instant `d` earlier (saturating at the origin).
    pub fn before(self, d: Duration) -> MonoTime {
        MonoTime(self.0.saturating_sub(duration_nanos(d)))
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: MonoTime) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }

    /// Whole milliseconds since the origin.
    pub fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
}

impl fmt::Display for MonoTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.as_millis())
    }
}

fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A source of local monotonic time.
pub trait Clock: Send + Sync + 'static {
    /// The current instant, precise. Used for deadlines that decide admission.
    fn now(&self) -> MonoTime;

    /// The current instant, possibly up to [`coarse_slack`](Self::coarse_slack)
    /// away from [`now`](Self::now) but much cheaper. Used only for
    /// cache-expiry checks on the hot path.
    fn now_coarse(&self) -> MonoTime {
        self.now()
    }

    /// How far [`now_coarse`](Self::now_coarse) may be from [`now`](Self::now).
    /// Deadlines checked with the coarse reading are pulled in by this much
    /// so they are never exceeded.
    fn coarse_slack(&self) -> Duration {
        Duration::ZERO
    }

    /// This clock, if it is the [`SystemClock`]: the route cache's hot path
    /// then reads it without a virtual call.
    fn as_system(&self) -> Option<&SystemClock> {
        None
    }
}

/// The slack of [`SystemClock`]'s coarse reading: its resolution is one
/// kernel tick (≤ 4 ms), taken twice (origin and now).
pub const COARSE_SLACK: Duration = Duration::from_millis(10);

/// The operating system's monotonic clock. The coarse reading is
/// `CLOCK_MONOTONIC_COARSE` (a few ns, ~4 ms resolution).
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: std::time::Instant,
    coarse_origin: coarsetime::Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        SystemClock {
            origin: std::time::Instant::now(),
            coarse_origin: coarsetime::Instant::now_without_cache_update(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> MonoTime {
        MonoTime(duration_nanos(self.origin.elapsed()))
    }

    fn now_coarse(&self) -> MonoTime {
        self.coarse_now()
    }

    fn coarse_slack(&self) -> Duration {
        COARSE_SLACK
    }

    fn as_system(&self) -> Option<&SystemClock> {
        Some(self)
    }
}

impl SystemClock {
    /// [`Clock::now_coarse`], inlined where the clock is known to be this
    /// one (the route cache's hot path).
    #[inline(always)]
    pub(crate) fn coarse_now(&self) -> MonoTime {
        // `now_without_cache_update`: the cached variant writes a shared
        // atomic on every call, which would bounce a cache line between readers.
        let now = coarsetime::Instant::now_without_cache_update().as_ticks();
        let ticks = now.saturating_sub(self.coarse_origin.as_ticks());
        // A tick is 2^-32 s: nanoseconds in one multiply, not through a
        // `Duration` and back.
        MonoTime(((u128::from(ticks) * 1_000_000_000) >> 32) as u64)
    }
}

/// A clock that moves only when told to. Clones share one time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A manual clock at its origin.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves time forward by `d`.
    pub fn advance(&self, d: Duration) {
        self.nanos.fetch_add(duration_nanos(d), Ordering::SeqCst);
    }

    /// The word that holds its time (ns), for a host that reads it in
    /// place (a near cache checking expiries without calling in).
    pub fn nanos_word(&self) -> &AtomicU64 {
        &self.nanos
    }
}

impl Clock for ManualClock {
    fn now(&self) -> MonoTime {
        MonoTime(self.nanos.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced_and_clones_share_time() {
        let clock = ManualClock::new();
        let other = clock.clone();
        assert_eq!(clock.now(), MonoTime(0));
        clock.advance(Duration::from_millis(1500));
        assert_eq!(other.now().as_millis(), 1500);
        assert_eq!(other.now_coarse(), other.now());
    }

    #[test]
    fn system_clock_coarse_reading_stays_close_to_precise() {
        let clock = SystemClock::new();
        // At the origin and later: a wrong scale shows only once time passed.
        for wait in [Duration::ZERO, Duration::from_millis(150)] {
            std::thread::sleep(wait);
            let precise = clock.now();
            let coarse = clock.now_coarse();
            let gap = if coarse > precise {
                coarse.since(precise)
            } else {
                precise.since(coarse)
            };
            assert!(
                gap <= COARSE_SLACK,
                "coarse clock off by {gap:?} at {precise:?}"
            );
        }
        assert_eq!(
            clock
                .as_system()
                .map(|c| c.coarse_now() <= clock.now_coarse()),
            Some(true)
        );
    }

    #[test]
    fn mono_time_arithmetic_saturates() {
        assert_eq!(MonoTime(5).before(Duration::from_secs(1)), MonoTime(0));
        assert_eq!(
            MonoTime(u64::MAX).after(Duration::from_secs(1)),
            MonoTime(u64::MAX)
        );
        assert_eq!(MonoTime(10).since(MonoTime(20)), Duration::ZERO);
    }
}
