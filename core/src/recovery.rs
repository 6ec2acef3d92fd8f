//! Store recovery events (DESIGN §5.3): a change of the store's epoch
//! (restart, failover), or the first answer after the connection to the
//! store was lost. Either way every cached route may be stale, so the cache
//! is cleared. A call that only timed out (a slow answer, a paused server)
//! is a failure of that call alone: flushing a full cache on it would send
//! every caller to the store at once, and the store cannot have changed
//! unseen while the connection held.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::authority::StoreEpoch;
use crate::store::StoreError;

/// Tracks store health across every store call of a runtime.
#[derive(Debug, Default)]
pub(crate) struct StoreHealth {
    /// The connection was lost (the store was unreachable) since the last
    /// answer.
    lost: AtomicBool,
    /// Last epoch seen, plus one; zero before the first answer.
    epoch: AtomicU64,
}

impl StoreHealth {
    /// A store call failed with `error`. Only a lost connection can make
    /// the next answer a recovery.
    pub(crate) fn failed(&self, error: &StoreError) {
        if matches!(error, StoreError::Unreachable(_)) {
            self.lost.store(true, Ordering::SeqCst);
        }
    }

    /// A store call answered with `epoch`. True when this answer is a store
    /// recovery event.
    pub(crate) fn answered(&self, epoch: StoreEpoch) -> bool {
        let reconnected = self.lost.swap(false, Ordering::SeqCst);
        let seen = epoch.0.wrapping_add(1);
        let before = self.epoch.swap(seen, Ordering::SeqCst);
        reconnected || (before != 0 && before != seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reconnection_and_an_epoch_change_are_recoveries_a_timeout_is_not() {
        let h = StoreHealth::default();
        assert!(!h.answered(StoreEpoch(7)), "first answer is not a recovery");
        assert!(!h.answered(StoreEpoch(7)));
        h.failed(&StoreError::Timeout { millis: 1 });
        assert!(
            !h.answered(StoreEpoch(7)),
            "a slow answer is not a recovery"
        );
        h.failed(&StoreError::Unreachable("gone".into()));
        h.failed(&StoreError::Timeout { millis: 1 });
        assert!(h.answered(StoreEpoch(7)), "the connection came back");
        assert!(
            !h.answered(StoreEpoch(7)),
            "only the first success recovers"
        );
        assert!(h.answered(StoreEpoch(8)), "a new epoch is a restart");
    }
}
