//! Store recovery events (DESIGN §5.3): the first successful store call
//! after a failure, or a change of the store's epoch (restart, failover).
//! Either way every cached route may be stale, so the cache is cleared.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::authority::StoreEpoch;

/// Tracks store health across every store call of a runtime.
#[derive(Debug, Default)]
pub(crate) struct StoreHealth {
    failing: AtomicBool,
    /// Last epoch seen, plus one; zero before the first answer.
    epoch: AtomicU64,
}

impl StoreHealth {
    /// A store call failed.
    pub(crate) fn failed(&self) {
        self.failing.store(true, Ordering::SeqCst);
    }

    /// A store call answered with `epoch`. True when this answer is a store
    /// recovery event.
    pub(crate) fn answered(&self, epoch: StoreEpoch) -> bool {
        let was_failing = self.failing.swap(false, Ordering::SeqCst);
        let seen = epoch.0.wrapping_add(1);
        let before = self.epoch.swap(seen, Ordering::SeqCst);
        was_failing || (before != 0 && before != seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_success_after_failure_and_epoch_change_are_recoveries() {
        let h = StoreHealth::default();
        assert!(!h.answered(StoreEpoch(7)), "first answer is not a recovery");
        assert!(!h.answered(StoreEpoch(7)));
        h.failed();
        h.failed();
        assert!(h.answered(StoreEpoch(7)));
        assert!(
            !h.answered(StoreEpoch(7)),
            "only the first success recovers"
        );
        assert!(h.answered(StoreEpoch(8)), "a new epoch is a restart");
    }
}
