//! What a runtime is built from, as hosts make it: an identity from a mesh
//! name and three numbers, a system or manual clock, a memory or Redis
//! store. Clocks and stores are bound to the process that made them.

use std::sync::Arc;
use std::time::Duration;

use zlink_core::{
    Clock as CoreClock, LocationStore, ManualClock, MeshName, NodeGeneration, NodeIdentity,
    NodeRid, OwnerLeaseGeneration, RedisOptions, SystemClock,
};

use crate::args::Text;
use crate::error::{Error, ErrorKind, Result};
use crate::lifecycle::ForkBound;

/// A node identity from a host's mesh name and numbers.
pub fn identity<'a>(
    mesh: impl Text<'a>,
    rid: u64,
    generation: u64,
    lease: u64,
) -> Result<NodeIdentity> {
    Ok(NodeIdentity {
        mesh: MeshName::new(mesh.text("mesh name")?)?,
        rid: NodeRid(rid),
        generation: NodeGeneration(generation),
        lease: OwnerLeaseGeneration(lease),
    })
}

/// A clock: the system's, or a manual one that moves only when advanced.
#[derive(Clone)]
pub struct Clock {
    clock: Arc<dyn CoreClock>,
    manual: Option<ManualClock>,
}

impl Clock {
    /// The system's monotonic clock.
    pub fn system() -> Self {
        Clock {
            clock: Arc::new(SystemClock::new()),
            manual: None,
        }
    }

    /// A manual clock at 0 (tests drive time with it and never sleep).
    pub fn manual() -> Self {
        let manual = ManualClock::new();
        Clock {
            clock: Arc::new(manual.clone()),
            manual: Some(manual),
        }
    }

    /// Whether it is a manual clock.
    pub fn is_manual(&self) -> bool {
        self.manual.is_some()
    }

    /// Moves a manual clock forward; `NotManualClock` for the system's.
    pub fn advance(&self, millis: u64) -> Result<()> {
        let manual = self.manual.as_ref().ok_or_else(|| {
            Error::input(
                ErrorKind::NotManualClock,
                "a system clock cannot be advanced",
            )
        })?;
        manual.advance(Duration::from_millis(millis));
        Ok(())
    }

    /// Now, in nanoseconds since the clock's origin.
    pub fn now_ns(&self) -> u64 {
        self.clock.now().0
    }

    /// The core's clock.
    pub fn core(&self) -> Arc<dyn CoreClock> {
        self.clock.clone()
    }
}

/// The Redis store's options a host may give; each one not given keeps
/// the core's default (`RedisOptions::default()`), so no binding repeats a
/// default. Durations in milliseconds.
#[derive(Debug, Clone, Default)]
pub struct RedisFields<'a> {
    /// The key prefix.
    pub prefix: Option<&'a str>,
    /// How long a connection may take.
    pub connect_timeout: Option<u64>,
    /// How long one command may take.
    pub response_timeout: Option<u64>,
    /// How often the store's epoch is checked.
    pub epoch_check_interval: Option<u64>,
    /// How long a released object's tombstone is kept.
    pub tombstone_retention: Option<u64>,
    /// How many host threads may keep a connection of their own for the
    /// reads of a blocking `resolve` (0: none).
    pub thread_connections: Option<usize>,
}

impl RedisFields<'_> {
    /// The options, defaults filled in.
    pub fn options(&self) -> RedisOptions {
        let mut o = RedisOptions::default();
        if let Some(p) = self.prefix {
            o.prefix = p.to_owned();
        }
        for (field, value) in [
            (&mut o.connect_timeout, self.connect_timeout),
            (&mut o.response_timeout, self.response_timeout),
            (&mut o.epoch_check_interval, self.epoch_check_interval),
            (&mut o.tombstone_retention, self.tombstone_retention),
        ] {
            if let Some(ms) = value {
                *field = Duration::from_millis(ms);
            }
        }
        if let Some(n) = self.thread_connections {
            o.thread_connections = n;
        }
        o
    }
}

/// A Location Store runtimes share, usable only in the process that made
/// it.
pub struct Store(ForkBound<Arc<dyn LocationStore>>);

impl Store {
    /// The embedded in-memory store, its leases on `clock` (None: the
    /// system's), keeping released objects' tombstones for `retention`
    /// (None: the store's default).
    pub fn memory(clock: Option<&Clock>, retention: Option<Duration>) -> Self {
        let store = match clock {
            Some(c) => zlink_core::MemoryStore::with_clock(c.core()),
            None => zlink_core::MemoryStore::new(),
        };
        let store = match retention {
            Some(r) => store.with_retention(r),
            None => store,
        };
        Store(ForkBound::new(Arc::new(store)))
    }

    /// Connects to Redis (`redis://`, `rediss://`) or a Redis Cluster
    /// (`redis+cluster://h1:p1,h2:p2`); blocks until connected or timed out.
    pub fn redis(url: &str, options: RedisOptions) -> Result<Self> {
        let store = zlink_core::RedisStore::open_with(url, options)?;
        Ok(Store(ForkBound::new(Arc::new(store))))
    }

    /// The store, or `Forked`.
    pub fn get(&self) -> Result<Arc<dyn LocationStore>> {
        self.0.get().cloned()
    }
}
