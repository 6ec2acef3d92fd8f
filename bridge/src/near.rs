//! What a managed host's near cache reads in place (issue 31): the route
//! cache's change epochs and, under a manual clock, the clock's word.
//!
//! A host (the JVM, Node) keeps the routes `lookup_near` gave it in its own
//! map and serves one again without calling in while the epoch of its
//! shard still holds the value the hit carried and the clock, less
//! [`NearMemory::slack_ns`], has not reached its expiry (the core module
//! `cache::near` says why that never serves a route the core would
//! refuse). A hit whose epoch is odd is served once, not kept.
//!
//! The clock: under a manual clock the host reads its word; under the
//! system's, the host's own monotonic clock (CLOCK_MONOTONIC, as the
//! core's) less an offset it measures once against [`Runtime::now`], with
//! the slack covering the core's coarse reading.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use zlink_core::{ManualClock, NearHit, ObjectKind};

use crate::args::{self, Arg, Text};
use crate::error::Result;
use crate::runtime::Runtime;

/// The memory a near cache reads, kept alive as long as this value lives
/// (after the runtime was closed too: the host frees it when its last
/// reader is gone).
pub struct NearMemory {
    core: Arc<zlink_core::Runtime>,
    manual: Option<ManualClock>,
}

impl NearMemory {
    /// The change epochs, [`NEAR_SHARDS`](zlink_core::NEAR_SHARDS) words.
    pub fn epochs(&self) -> &[AtomicU64] {
        self.core.near_epochs()
    }

    /// Where the near cache counts the hits it serves, so that
    /// `stats().cache_hits` counts them: add 1 to word
    /// `HOST_COUNTER_STRIDE * (thread % HOST_COUNTER_CELLS)` with an
    /// atomic add.
    pub fn hits(&self) -> &[AtomicU64] {
        self.core.near_hit_counter()
    }

    /// The manual clock's word (ns), if the runtime runs on one.
    pub fn manual_now(&self) -> Option<&AtomicU64> {
        self.manual.as_ref().map(ManualClock::nanos_word)
    }

    /// How much earlier than its expiry a host reading its own clock stops
    /// serving a near entry: the core's coarse-clock slack under the
    /// system clock, 0 under a manual one.
    pub fn slack_ns(&self) -> u64 {
        match self.manual {
            Some(_) => 0,
            None => u64::try_from(zlink_core::COARSE_SLACK.as_nanos()).unwrap_or(u64::MAX),
        }
    }
}

impl Runtime {
    /// The memory a near cache of this runtime reads in place.
    pub fn near_memory(&self) -> Result<NearMemory> {
        Ok(NearMemory {
            core: self.core()?.clone(),
            manual: self.manual_clock()?,
        })
    }

    /// A cache hit of the ID as a near cache keeps it; None on a miss or
    /// for an ID too long for the near cache (use `lookup_cached`).
    pub fn lookup_near<'a>(
        &self,
        kind: impl Arg<ObjectKind>,
        id: impl Text<'a>,
    ) -> Result<Option<NearHit>> {
        let (kind, id) = (kind.get()?, args::id(id)?);
        Ok(self.core()?.lookup_near(kind, id)?)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::runtime::Options;
    use crate::setup::{Clock, Store, identity};

    #[test]
    fn a_near_hit_is_read_back_through_the_shared_memory() {
        let clock = Clock::manual();
        let store = Store::memory(Some(&clock), None);
        let open = |rid| {
            let options = Options {
                store: Some(store.get().expect("store")),
                clock: Some(clock.clone()),
                ..Options::default()
            };
            Runtime::new(identity("m", rid, 1, 1).expect("valid"), options).expect("a runtime")
        };
        let (owner, sender) = (open(1), open(2));
        let core = owner.core().expect("open");
        core.activate(ObjectKind::Actor, "a").expect("activated");
        assert!(sender.lookup_near("actor", "a").expect("valid").is_none());
        sender.resolve("actor", "a").expect("resolved");
        let hit = sender
            .lookup_near("actor", "a")
            .expect("valid")
            .expect("a hit");
        let memory = sender.near_memory().expect("open");
        assert_eq!(
            memory.epochs()[hit.shard as usize].load(Ordering::SeqCst),
            hit.epoch
        );
        assert_eq!(memory.slack_ns(), 0);
        let hits = sender.core().expect("open").stats().cache_hits;
        memory.hits()[zlink_core::HOST_COUNTER_STRIDE].fetch_add(2, Ordering::Relaxed);
        assert_eq!(
            sender.core().expect("open").stats().cache_hits,
            hits + 2,
            "near hits count"
        );
        let word = memory.manual_now().expect("a manual clock");
        clock.advance(5).expect("manual");
        assert_eq!(word.load(Ordering::SeqCst), 5_000_000);
        sender.close();
        // The memory outlives the runtime.
        assert_eq!(memory.epochs().len(), zlink_core::NEAR_SHARDS);
    }
}
