//! What a runtime is built from, as hosts make it: an identity from a mesh
//! name and three numbers, a system or manual clock, a memory or Redis
//! store. Clocks and stores are bound to the process that made them.

use std::sync::Arc;
use std::time::Duration;

use zlink_core::{
    Clock as CoreClock, LocationStore, ManualClock, MeshName, NodeGeneration, NodeIdentity,
    NodeRid, OwnerLeaseGeneration, SystemClock,
};
use zlink_redis::{RedisOptions, WriteAcks};

use crate::args::{Arg, Text, store_config};
use crate::codes::WriteAcksMode;
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

    /// The manual clock, if it is one.
    pub(crate) fn manual_clock(&self) -> Option<&ManualClock> {
        self.manual.as_ref()
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
    /// Which replicas must acknowledge an authority write (from
    /// [`write_acks`]).
    pub write_acks: Option<WriteAcks>,
    /// How long an authority write waits for its replicas' acknowledgement.
    pub write_ack_timeout: Option<u64>,
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
            (&mut o.write_ack_timeout, self.write_ack_timeout),
        ] {
            if let Some(ms) = value {
                *field = Duration::from_millis(ms);
            }
        }
        if let Some(n) = self.thread_connections {
            o.thread_connections = n;
        }
        if let Some(acks) = self.write_acks {
            o.write_acks = acks;
        }
        o
    }
}

/// A Redis store's `write_acks` as a host names it: a mode (C's and the
/// JVM's number, Python's name) and, read only for `Replicas`, how many
/// (1 ..= 2^32 - 1). A mode or count the store cannot use is the store's
/// `Config` kind, as the core's own option checks are.
pub fn write_acks(mode: impl Arg<WriteAcksMode>, replicas: i64) -> Result<WriteAcks> {
    Ok(match mode.get()? {
        WriteAcksMode::AllReplicas => WriteAcks::AllReplicas,
        WriteAcksMode::PrimaryOnly => WriteAcks::PrimaryOnly,
        WriteAcksMode::Replicas => match u32::try_from(replicas) {
            Ok(n) if n >= 1 => WriteAcks::Replicas(n),
            _ if replicas < 1 => {
                return Err(store_config(format!(
                    "write_acks asks for {replicas} replicas: at least 1 (the primary-only \
                     mode waits for none)"
                )));
            }
            _ => {
                return Err(store_config(format!(
                    "write_acks asks for {replicas} replicas: at most {}",
                    u32::MAX
                )));
            }
        },
    })
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

    /// Connects to Redis (`redis://`, `rediss://`), a Redis Cluster
    /// (`redis+cluster://h1:p1,h2:p2`) or the primary a group of Sentinels
    /// names (`redis+sentinel://h1:p1,h2:p2/master-name`, `rediss+sentinel://`);
    /// blocks until connected or timed out.
    pub fn redis(url: &str, options: RedisOptions) -> Result<Self> {
        let store = zlink_redis::RedisStore::open_with(url, options)?;
        Ok(Store(ForkBound::new(Arc::new(store))))
    }

    /// The store, or `Forked`.
    pub fn get(&self) -> Result<Arc<dyn LocationStore>> {
        self.0.get().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::error::Family;

    #[test]
    fn write_acks_from_a_hosts_mode_and_count() {
        assert_eq!(write_acks(1u32, 7), Ok(WriteAcks::AllReplicas));
        assert_eq!(write_acks(2u32, 2), Ok(WriteAcks::Replicas(2)));
        assert_eq!(write_acks(3u32, 0), Ok(WriteAcks::PrimaryOnly));
        assert_eq!(write_acks("all_replicas", 0), Ok(WriteAcks::AllReplicas));
        assert_eq!(write_acks("primary_only", 0), Ok(WriteAcks::PrimaryOnly));
        assert_eq!(
            write_acks("replicas", i64::from(u32::MAX)),
            Ok(WriteAcks::Replicas(u32::MAX))
        );
        for acks in [
            WriteAcks::AllReplicas,
            WriteAcks::Replicas(3),
            WriteAcks::PrimaryOnly,
        ] {
            let (mode, n) = WriteAcksMode::of(acks);
            assert_eq!(write_acks(mode as u32, i64::from(n)), Ok(acks));
        }
        for (bad, says) in [
            (write_acks(0u32, 1), "is not ALL_REPLICAS (1)"),
            (write_acks(4u32, 1), "is not ALL_REPLICAS (1)"),
            (write_acks("allReplicas", 1), "got \"allReplicas\""),
            (write_acks("replicas", 0), "at least 1"),
            (write_acks(2u32, -3), "asks for -3 replicas: at least 1"),
            (write_acks(2u32, 1 << 32), "at most 4294967295"),
        ] {
            let e = bad.unwrap_err();
            assert_eq!((e.family, e.kind), (Family::Store, ErrorKind::Config));
            assert!(e.message.contains(says), "{e}");
        }
    }

    #[test]
    fn redis_fields_keep_the_defaults_of_what_is_not_given() {
        let given = RedisFields {
            write_acks: Some(WriteAcks::PrimaryOnly),
            write_ack_timeout: Some(250),
            ..RedisFields::default()
        }
        .options();
        assert_eq!(given.write_acks, WriteAcks::PrimaryOnly);
        assert_eq!(given.write_ack_timeout, Duration::from_millis(250));
        assert_eq!(RedisFields::default().options(), RedisOptions::default());
    }
}
