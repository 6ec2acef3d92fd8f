//! Redis Sentinel: the primary a group of Sentinels names for a master
//! name, followed through failovers. The epoch watcher asks the Sentinels
//! on every tick; when they name another primary, the store's connections
//! move to it (its run id differs, so the epoch changes with it).

use std::sync::{Arc, RwLock};
use std::time::Duration;

use redis::AsyncConnectionConfig;

use super::RedisOptions;
use super::connection::{Conns, SentinelTarget, Target, store_error};
use crate::store::StoreError;

/// The connections to the primary the Sentinels last named.
pub(super) struct SentinelLink {
    target: SentinelTarget,
    options: RedisOptions,
    primary: RwLock<Primary>,
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
        let addr = ask(&target, options.connect_timeout)
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
        let conns = Arc::new(connect(&target, &addr, options).await?);
        Ok(SentinelLink {
            target,
            options: options.clone(),
            primary: RwLock::new(Primary { addr, conns }),
        })
    }

    /// The connections to the current primary.
    pub(super) fn conns(&self) -> Arc<Conns> {
        self.lock_read().conns.clone()
    }

    /// Asks the Sentinels where the primary is; when it moved, connects to
    /// the new one and makes it current. Unreachable Sentinels leave the
    /// current primary in place.
    pub(super) async fn follow(&self) -> Result<(), StoreError> {
        let Some(addr) = ask(&self.target, self.options.connect_timeout).await? else {
            return Ok(());
        };
        if self.lock_read().addr == addr {
            return Ok(());
        }
        let conns = Arc::new(connect(&self.target, &addr, &self.options).await?);
        tracing::warn!(primary = %addr, master = %self.target.master, "Sentinel names a new primary: following it");
        *self.primary.write().unwrap_or_else(|e| e.into_inner()) = Primary { addr, conns };
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

/// The primary's `host:port` from the first Sentinel that answers; `None`
/// when the Sentinels that answered know no such master.
async fn ask(target: &SentinelTarget, limit: Duration) -> Result<Option<String>, StoreError> {
    let mut last = None;
    for url in &target.sentinels {
        match ask_one(url, &target.master, limit).await {
            Ok(Some((host, port))) => return Ok(Some(format!("{host}:{port}"))),
            Ok(None) => last = Some(Ok(None)),
            Err(e) => {
                tracing::debug!(sentinel = %url, error = %e, "Sentinel did not answer");
                last.get_or_insert(Err(e));
            }
        }
    }
    last.unwrap_or(Ok(None))
}

async fn ask_one(
    url: &str,
    master: &str,
    limit: Duration,
) -> Result<Option<(String, u16)>, StoreError> {
    let fail = |e| store_error(e, limit);
    let client = redis::Client::open(url).map_err(fail)?;
    let config = AsyncConnectionConfig::new()
        .set_connection_timeout(Some(limit))
        .set_response_timeout(Some(limit));
    let mut conn = client
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(fail)?;
    redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg(master)
        .query_async(&mut conn)
        .await
        .map_err(fail)
}
