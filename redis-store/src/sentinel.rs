//! Redis Sentinel: the primary a group of Sentinels names for a master
//! name, followed through failovers. The epoch watcher asks the Sentinels
//! on every tick; when they name another primary, the store's connections
//! move to it (its run id differs, so the epoch changes with it). The
//! Sentinels also say which replicas a failover could promote: authority
//! writes wait for them (docs/location-store.md, "Failover and durability").

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use redis::AsyncConnectionConfig;

use super::RedisOptions;
use super::connection::{Conns, SentinelTarget, Target, store_error};
use zlink_core::store::StoreError;

/// The connections to the primary the Sentinels last named.
pub(super) struct SentinelLink {
    target: SentinelTarget,
    options: RedisOptions,
    primary: RwLock<Primary>,
    /// The replicas of the primary the Sentinels last listed as promotable.
    replicas: AtomicU32,
}

/// What the Sentinels say of the master: where its primary is and how many
/// of its replicas a failover could promote.
struct Named {
    /// `host:port`, as the Sentinels gave it.
    addr: String,
    replicas: u32,
}

struct Primary {
    /// `host:port`, as the Sentinels gave it.
    addr: String,
    conns: Arc<Conns>,
}

impl SentinelLink {
    /// Asks the Sentinels for the primary and connects to it. A master name
    /// no Sentinel knows is a configuration error.
    pub(super) async fn open(
        target: SentinelTarget,
        options: &RedisOptions,
    ) -> Result<Self, StoreError> {
        let named = ask(&target, options.connect_timeout)
            .await?
            .ok_or_else(|| {
                StoreError::Config(
                    format!(
                        "no Sentinel at {:?} monitors a master named {:?}",
                        target.sentinels, target.master
                    )
                    .into(),
                )
            })?;
        let conns = Arc::new(connect(&target, &named.addr, options).await?);
        Ok(SentinelLink {
            target,
            options: options.clone(),
            primary: RwLock::new(Primary {
                addr: named.addr,
                conns,
            }),
            replicas: AtomicU32::new(named.replicas),
        })
    }

    /// The replicas the Sentinels last listed as promotable for the
    /// current primary (those not down, with a priority other than 0).
    pub(super) fn listed_replicas(&self) -> u32 {
        self.replicas.load(Ordering::Relaxed)
    }

    /// The connections to the current primary.
    pub(super) fn conns(&self) -> Arc<Conns> {
        self.lock_read().conns.clone()
    }

    /// Asks the Sentinels where the primary is; when it moved, connects to
    /// the new one and makes it current. Unreachable Sentinels leave the
    /// current primary in place.
    pub(super) async fn follow(&self) -> Result<(), StoreError> {
        let Some(Named { addr, replicas }) =
            ask(&self.target, self.options.connect_timeout).await?
        else {
            return Ok(());
        };
        if self.lock_read().addr == addr {
            self.replicas.store(replicas, Ordering::Relaxed);
            return Ok(());
        }
        let conns = Arc::new(connect(&self.target, &addr, &self.options).await?);
        tracing::warn!(primary = %addr, master = %self.target.master, "Sentinel names a new primary: following it");
        *self.primary.write().unwrap_or_else(|e| e.into_inner()) = Primary { addr, conns };
        self.replicas.store(replicas, Ordering::Relaxed);
        Ok(())
    }

    // A poisoned lock only means a tick panicked mid-swap; the value is
    // whole (it is replaced, never edited in place).
    fn lock_read(&self) -> std::sync::RwLockReadGuard<'_, Primary> {
        self.primary.read().unwrap_or_else(|e| e.into_inner())
    }
}

async fn connect(
    target: &SentinelTarget,
    addr: &str,
    options: &RedisOptions,
) -> Result<Conns, StoreError> {
    let url = format!("{}{addr}", target.primary_prefix);
    Conns::open(&Target::Single(url), options).await
}

/// The master as the first Sentinel that answers names it; `None` when the
/// Sentinels that answered know no such master.
async fn ask(target: &SentinelTarget, limit: Duration) -> Result<Option<Named>, StoreError> {
    let mut last = None;
    for url in &target.sentinels {
        match ask_one(url, &target.master, limit).await {
            Ok(Some(named)) => return Ok(Some(named)),
            Ok(None) => last = Some(Ok(None)),
            Err(e) => {
                tracing::debug!(sentinel = %url, error = %e, "Sentinel did not answer");
                last.get_or_insert(Err(e));
            }
        }
    }
    last.unwrap_or(Ok(None))
}

async fn ask_one(url: &str, master: &str, limit: Duration) -> Result<Option<Named>, StoreError> {
    let fail = |e| store_error(e, limit);
    let client = redis::Client::open(url).map_err(fail)?;
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(limit))
        .set_response_timeout(Some(limit));
    let mut conn = client
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(fail)?;
    let addr: Option<(String, u16)> = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg(master)
        .query_async(&mut conn)
        .await
        .map_err(fail)?;
    let Some((host, port)) = addr else {
        return Ok(None);
    };
    let replicas: Vec<HashMap<String, String>> = redis::cmd("SENTINEL")
        .arg("replicas")
        .arg(master)
        .query_async(&mut conn)
        .await
        .map_err(fail)?;
    Ok(Some(Named {
        addr: format!("{host}:{port}"),
        replicas: promotable(&replicas),
    }))
}

/// How many of the replicas `SENTINEL REPLICAS` lists a failover could
/// promote now: not down (`s_down`, `o_down`, `disconnected`) and with a
/// `slave-priority` other than 0. A replica that is down is counted again
/// once it is back; meanwhile the epoch watcher's high-water mark of the
/// primary's own replicas still counts it ([`super::durability`]).
fn promotable(replicas: &[HashMap<String, String>]) -> u32 {
    let up = |r: &&HashMap<String, String>| {
        let flags = r.get("flags").map_or("", String::as_str);
        let down = flags
            .split(',')
            .any(|f| matches!(f, "s_down" | "o_down" | "disconnected"));
        let never = r.get("slave-priority").is_some_and(|p| p == "0");
        !down && !never
    };
    u32::try_from(replicas.iter().filter(up).count()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(flags: &str, priority: &str) -> HashMap<String, String> {
        HashMap::from([
            ("flags".to_owned(), flags.to_owned()),
            ("slave-priority".to_owned(), priority.to_owned()),
        ])
    }

    #[test]
    fn a_failover_could_promote_replicas_that_are_up_with_a_priority() {
        let listed = [
            replica("slave", "100"),
            replica("s_down,slave,disconnected", "100"), // the old primary, dead
            replica("slave", "0"),                       // never promoted
            replica("slave", "1"),
        ];
        assert_eq!(promotable(&listed), 2);
        assert_eq!(promotable(&[]), 0);
    }
}
