//! Routing configuration, its defaults and its rules (spec §2.2, §2.5).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::error::ConfigError;
use crate::ids::MAX_OBJECT_ID_BYTES;

/// Largest message bound a config may set (bytes): 1 GiB.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Default bound of the application state one relocation carries: 16 MiB.
pub const DEFAULT_MAX_RELOCATION_STATE_BYTES: usize = 16 << 20;

/// How far the route cache must stay below Message Follow (§2.5): the cache
/// must expire before the detour path closes.
pub const CACHE_FOLLOW_GAP: Duration = Duration::from_secs(5);

/// The runtime's routing settings. Durations of zero disable the feature
/// where the spec says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingConfig {
    /// Longest life of a positive route cache entry (§2.2). Default 15 s;
    /// zero turns the cache off. A change applies to new entries only.
    pub route_cache_max_age: Duration,
    /// How long a committed Message Follow route relays (§2.5). Default 30 s;
    /// zero turns Message Follow off. A change applies to new relocations only.
    pub message_follow_duration: Duration,
    /// Longest Message Follow chain (§2.5): 1..=8, default 8.
    pub max_follow_hops: u8,
    /// How long a Session owner waits for command 44 after sealing (§3.3).
    /// Default 10 s.
    pub session_relocation_seal_timeout: Duration,
    /// How long a bind may wait for its terminal reply (the Session owner)
    /// or a rebind for the previous owner's tombstone ACK (the Actor owner)
    /// before it ends with a `Timeout` bind refusal. Default 10 s.
    pub session_bind_timeout: Duration,
    /// Most entries the positive route cache holds; past it, it evicts.
    /// Default 1,000,000. Memory: routes of IDs up to 38 bytes take a
    /// 128-byte slot. The table grows by doubling while at most half full;
    /// its largest size holds the capacity in 7/8 of its slots: about 150
    /// bytes per route at capacity, up to 256 while it grows. Address space
    /// is reserved up to about four times 147 bytes × capacity, touched only
    /// as entries land.
    pub route_cache_capacity: usize,
    /// Owner lease length granted by create, transfer and renewal. Default 30 s.
    pub owner_lease_duration: Duration,
    /// Deadline of every single store call. Default 2 s.
    pub store_timeout: Duration,
    /// Store attempts a direct send makes before it ends `StoreFailure`
    /// (all within the operation's deadline). Default 3.
    pub store_attempts: u32,
    /// Longest accepted object ID in bytes: 1..=65535 (the wire carries a u16 length), default 1024.
    pub max_object_id_bytes: usize,
    /// The negotiated message bound: the largest application payload one
    /// operation may carry, in bytes (≥ 1). Default 1 MiB.
    pub max_message_bytes: usize,
    /// How long a relocation's source waits for relay-ready, and then for
    /// the target's commit, and how long a target waits for its host to
    /// restore; past it the move is abandoned (before relay-ready) or the
    /// source's side ends (after). Default 5 s.
    pub relocation_timeout: Duration,
    /// Largest application state one relocation may carry, in bytes:
    /// 1..=1 GiB, default 16 MiB.
    pub max_relocation_state_bytes: usize,
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            route_cache_max_age: Duration::from_secs(15),
            message_follow_duration: Duration::from_secs(30),
            max_follow_hops: 8,
            session_relocation_seal_timeout: Duration::from_secs(10),
            session_bind_timeout: Duration::from_secs(10),
            route_cache_capacity: 1_000_000,
            owner_lease_duration: Duration::from_secs(30),
            store_timeout: Duration::from_secs(2),
            store_attempts: 3,
            max_object_id_bytes: 1024,
            max_message_bytes: 1 << 20,
            relocation_timeout: Duration::from_secs(5),
            max_relocation_state_bytes: DEFAULT_MAX_RELOCATION_STATE_BYTES,
        }
    }
}

/// The bounds of the default config. Here, not in `wire`: the wire codec
/// takes its limits as an argument and knows nothing of configs.
impl Default for crate::wire::DecodeLimits {
    fn default() -> Self {
        let c = RoutingConfig::default();
        crate::wire::DecodeLimits {
            max_object_id_bytes: c.max_object_id_bytes,
            max_payload_bytes: c.max_message_bytes,
            max_state_bytes: c.max_relocation_state_bytes,
        }
    }
}

impl RoutingConfig {
    /// Checks every rule; an invalid config is an error, never silently fixed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let (cache, follow) = (self.route_cache_max_age, self.message_follow_duration);
        if !cache.is_zero() && !follow.is_zero() && cache + CACHE_FOLLOW_GAP > follow {
            return Err(ConfigError::CacheOutlivesFollow { cache, follow });
        }
        if !(1..=8).contains(&self.max_follow_hops) {
            return Err(ConfigError::FollowHops(self.max_follow_hops));
        }
        for (field, d) in [
            (
                "session_relocation_seal_timeout",
                self.session_relocation_seal_timeout,
            ),
            ("session_bind_timeout", self.session_bind_timeout),
            ("owner_lease_duration", self.owner_lease_duration),
            ("store_timeout", self.store_timeout),
            ("relocation_timeout", self.relocation_timeout),
        ] {
            if d.is_zero() {
                return Err(ConfigError::ZeroDuration { field });
            }
        }
        if self.route_cache_capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        if !(1..=MAX_OBJECT_ID_BYTES).contains(&self.max_object_id_bytes) {
            return Err(ConfigError::ObjectIdCap {
                got: self.max_object_id_bytes,
                max: MAX_OBJECT_ID_BYTES,
            });
        }
        if self.store_attempts == 0 {
            return Err(ConfigError::ZeroStoreAttempts);
        }
        if self.max_message_bytes == 0 || self.max_message_bytes > MAX_MESSAGE_BYTES {
            return Err(ConfigError::MessageBound {
                got: self.max_message_bytes,
                max: MAX_MESSAGE_BYTES,
            });
        }
        if self.max_relocation_state_bytes == 0
            || self.max_relocation_state_bytes > MAX_MESSAGE_BYTES
        {
            return Err(ConfigError::StateBound {
                got: self.max_relocation_state_bytes,
                max: MAX_MESSAGE_BYTES,
            });
        }
        Ok(())
    }

    /// Whether the positive route cache is on.
    pub fn cache_enabled(&self) -> bool {
        !self.route_cache_max_age.is_zero()
    }
}

/// The config in force for one runtime, replaceable while it runs.
///
/// The values the cache-hit and frame paths need (cache max age, ID cap,
/// message bound, follow hops) are mirrored in atomics so reading them takes
/// no lock; the rest is read under a lock on store paths only.
#[derive(Debug)]
pub(crate) struct LiveConfig {
    full: RwLock<Arc<RoutingConfig>>,
    cache_max_age_nanos: AtomicU64,
    max_id_bytes: AtomicU64,
    max_message_bytes: AtomicU64,
    max_follow_hops: AtomicU64,
    max_state_bytes: AtomicU64,
}

impl LiveConfig {
    pub(crate) fn new(config: RoutingConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let live = LiveConfig {
            cache_max_age_nanos: AtomicU64::new(0),
            max_id_bytes: AtomicU64::new(0),
            max_message_bytes: AtomicU64::new(0),
            max_follow_hops: AtomicU64::new(0),
            max_state_bytes: AtomicU64::new(0),
            full: RwLock::new(Arc::new(config.clone())),
        };
        live.mirror(&config);
        Ok(live)
    }

    /// Replaces the config after validating it. `apply` first sets what
    /// the config rules elsewhere (the cache's capacity), under the same
    /// lock, so concurrent replacements leave the config and what `apply`
    /// set agreeing; if it refuses (changing nothing), so does this.
    /// Existing cache entries keep the lifetime they were inserted with
    /// (§2.2).
    pub(crate) fn replace(
        &self,
        config: RoutingConfig,
        apply: impl FnOnce(&RoutingConfig) -> Result<(), ConfigError>,
    ) -> Result<(), ConfigError> {
        config.validate()?;
        let mut full = self.full.write().unwrap_or_else(|p| p.into_inner());
        apply(&config)?;
        self.mirror(&config);
        *full = Arc::new(config);
        Ok(())
    }

    fn mirror(&self, config: &RoutingConfig) {
        let nanos = u64::try_from(config.route_cache_max_age.as_nanos()).unwrap_or(u64::MAX);
        self.cache_max_age_nanos.store(nanos, Ordering::Relaxed);
        self.max_id_bytes
            .store(config.max_object_id_bytes as u64, Ordering::Relaxed);
        self.max_message_bytes
            .store(config.max_message_bytes as u64, Ordering::Relaxed);
        self.max_follow_hops
            .store(u64::from(config.max_follow_hops), Ordering::Relaxed);
        self.max_state_bytes
            .store(config.max_relocation_state_bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> Arc<RoutingConfig> {
        self.full.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn cache_max_age(&self) -> Duration {
        Duration::from_nanos(self.cache_max_age_nanos.load(Ordering::Relaxed))
    }

    pub(crate) fn max_id_bytes(&self) -> usize {
        self.max_id_bytes.load(Ordering::Relaxed) as usize
    }

    /// The negotiated message bound (a frame-path read: no lock).
    pub(crate) fn max_message_bytes(&self) -> usize {
        self.max_message_bytes.load(Ordering::Relaxed) as usize
    }

    /// The longest Message Follow chain (a frame-path read: no lock).
    pub(crate) fn max_follow_hops(&self) -> u8 {
        self.max_follow_hops.load(Ordering::Relaxed) as u8
    }

    /// The bound of one relocation's application state (no lock).
    pub(crate) fn max_state_bytes(&self) -> usize {
        self.max_state_bytes.load(Ordering::Relaxed) as usize
    }

    /// What an inbound frame is decoded against.
    pub(crate) fn decode_limits(&self) -> crate::wire::DecodeLimits {
        crate::wire::DecodeLimits {
            max_object_id_bytes: self.max_id_bytes(),
            max_payload_bytes: self.max_message_bytes(),
            max_state_bytes: self.max_state_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn defaults_are_the_specs() {
        let c = RoutingConfig::default();
        assert_eq!(c.route_cache_max_age, secs(15));
        assert_eq!(c.message_follow_duration, secs(30));
        assert_eq!(c.max_follow_hops, 8);
        assert_eq!(c.max_object_id_bytes, 1024);
        c.validate().expect("defaults are valid");
    }

    #[test]
    fn cache_must_be_five_seconds_shorter_than_follow_when_both_positive() {
        let mut c = RoutingConfig {
            route_cache_max_age: secs(26),
            ..RoutingConfig::default()
        };
        assert!(matches!(
            c.validate(),
            Err(ConfigError::CacheOutlivesFollow { .. })
        ));
        c.route_cache_max_age = secs(25);
        c.validate().expect("exactly 5 s shorter is allowed");
        c.message_follow_duration = Duration::ZERO;
        c.route_cache_max_age = secs(600);
        c.validate().expect("follow off: any cache age");
        c.message_follow_duration = secs(3);
        c.route_cache_max_age = Duration::ZERO;
        c.validate().expect("cache off: any follow duration");
    }

    #[test]
    fn other_rules_name_the_field() {
        let bad = [
            RoutingConfig {
                max_follow_hops: 9,
                ..Default::default()
            },
            RoutingConfig {
                max_follow_hops: 0,
                ..Default::default()
            },
            RoutingConfig {
                route_cache_capacity: 0,
                ..Default::default()
            },
            RoutingConfig {
                store_timeout: Duration::ZERO,
                ..Default::default()
            },
            RoutingConfig {
                max_object_id_bytes: 0,
                ..Default::default()
            },
            RoutingConfig {
                store_attempts: 0,
                ..Default::default()
            },
        ];
        for c in bad {
            let err = c.validate().expect_err("invalid config accepted");
            assert!(!err.to_string().is_empty());
        }
        let msg = RoutingConfig {
            owner_lease_duration: Duration::ZERO,
            ..Default::default()
        }
        .validate()
        .expect_err("zero lease accepted")
        .to_string();
        assert!(msg.contains("owner_lease_duration"), "{msg}");
    }

    #[test]
    fn live_config_rejects_invalid_replacement_and_keeps_the_old() {
        let live = LiveConfig::new(RoutingConfig::default()).expect("valid");
        let bad = RoutingConfig {
            route_cache_max_age: secs(29),
            ..Default::default()
        };
        assert!(live.replace(bad, |_| panic!("not applied")).is_err());
        assert_eq!(live.cache_max_age(), secs(15));
        let good = RoutingConfig {
            route_cache_max_age: secs(5),
            ..Default::default()
        };
        live.replace(good, |_| Ok(())).expect("valid");
        assert_eq!(live.cache_max_age(), secs(5));
        assert_eq!(live.get().route_cache_max_age, secs(5));
        let frames = RoutingConfig {
            max_message_bytes: 512,
            max_follow_hops: 3,
            max_object_id_bytes: 64,
            ..Default::default()
        };
        live.replace(frames, |_| Ok(())).expect("valid");
        assert_eq!((live.max_message_bytes(), live.max_follow_hops()), (512, 3));
        let limits = live.decode_limits();
        assert_eq!(
            (limits.max_object_id_bytes, limits.max_payload_bytes),
            (64, 512)
        );
    }
}
