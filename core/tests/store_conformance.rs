//! The Location Store conformance suite (`common/conformance.rs`) run
//! against the embedded `MemoryStore` on a manual store clock, and again
//! through a `FaultyStore` that stays up (the wrapper must be transparent).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::conformance::{Backend, StoreEnv, store_conformance_tests};
use zlink_core::store::FaultyStore;
use zlink_core::{ManualClock, MemoryStore};

/// A manual clock away from its origin, so a store that ignored its clock
/// (or counted from zero) would show.
fn started_clock() -> ManualClock {
    let clock = ManualClock::new();
    clock.advance(Duration::from_millis(86_400_123));
    clock
}

fn env(clock: ManualClock) -> StoreEnv {
    StoreEnv {
        clock: Arc::new(clock),
        ns: "conformance/".to_owned(),
        short_lease_millis: 1_000,
    }
}

fn memory() -> Backend {
    let clock = started_clock();
    Backend {
        store: Arc::new(MemoryStore::with_clock(Arc::new(clock.clone()))),
        env: env(clock),
    }
}

fn faulty_memory() -> Backend {
    let clock = started_clock();
    let inner = MemoryStore::with_clock(Arc::new(clock.clone()));
    Backend {
        store: Arc::new(FaultyStore::new(inner)),
        env: env(clock),
    }
}

store_conformance_tests!(memory);

mod faulty_up {
    crate::common::conformance::store_conformance_tests!(super::faulty_memory);
}
