//! What a host sets about a Redis deployment ([`RedisOptions`]), and the
//! checks that make a bad setting a clear error at connect time.

use std::time::Duration;

use super::connection::Target;
use zlink_core::store::StoreError;

/// How many replicas must hold an authority write before the store
/// reports it done (docs/location-store.md, "Failover and durability").
///
/// Redis replicates asynchronously: a primary that fails over to a replica
/// the write had not reached loses it, though it answered. An authority
/// write acknowledged before the replicas have it can so be undone after
/// its writer acted on it, and two nodes can own one object. A write that
/// fewer replicas acknowledge than asked within
/// [`RedisOptions::write_ack_timeout`] ends
/// [`StoreError::NotReplicated`]: its outcome is unknown, and the writer
/// does not act on it (a retry of the same proposal decides it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteAcks {
    /// Every replica the deployment is known to have: on a Cluster, every
    /// replica `CLUSTER NODES` lists for the primary of the object's slot
    /// (a disconnected one included, as it may still be promoted); on one
    /// server or under Sentinel, the most replicas the current primary was
    /// seen with (`INFO replication`). A primary without replicas waits for
    /// none, so one server alone costs nothing. The default: no failover
    /// can lose a write the store reported done.
    #[default]
    AllReplicas,
    /// At least this many replicas. A failover to a replica outside them
    /// can still lose a write: safe only where the failover picks the most
    /// up-to-date replica. More than the deployment has is a `Config` error
    /// at connect time.
    Replicas(u32),
    /// None: the primary's answer is the acknowledgement (the behaviour
    /// before durable writes; a failover can lose acknowledged writes).
    PrimaryOnly,
}

/// How to reach and use a Redis deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// Prefix of every key (`{prefix}:{kind:id}`); no braces. Default `zlink`.
    pub prefix: String,
    /// Deadline for (re)connecting. Default 2 s.
    pub connect_timeout: Duration,
    /// Deadline for one command's answer. Default 2 s; the runtime's
    /// `store_timeout` bounds every call as well.
    pub response_timeout: Duration,
    /// How often the server's run id is checked for a restart or failover
    /// (and the replicas and, under Sentinel, the primary are looked up).
    /// Default 1 s.
    pub epoch_check_interval: Duration,
    /// How long a released object's tombstone (its last version and
    /// proposal) is kept before the key expires. Default
    /// [`DEFAULT_TOMBSTONE_RETENTION`](zlink_core::store::DEFAULT_TOMBSTONE_RETENTION).
    pub tombstone_retention: Duration,
    /// How many host threads may keep a connection of their own for the
    /// reads of a blocking `resolve` (one server only; see
    /// docs/location-store.md, "Connection"). Past it, a blocked thread
    /// reads through the shared connection. A connection is given back
    /// when its thread ends. Default 64; 0: none.
    pub thread_connections: usize,
    /// Which replicas must acknowledge an authority write (`WAIT`).
    /// Default [`WriteAcks::AllReplicas`].
    pub write_acks: WriteAcks,
    /// How long an authority write waits for its replicas' acknowledgement
    /// before its outcome is reported unknown. Default 1 s; at most half
    /// of `response_timeout` is used, so the write's answer, which comes
    /// after the wait, is never taken for a lost one.
    pub write_ack_timeout: Duration,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            prefix: "zlink".to_owned(),
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(2),
            epoch_check_interval: Duration::from_secs(1),
            tombstone_retention: zlink_core::store::DEFAULT_TOMBSTONE_RETENTION,
            thread_connections: 64,
            write_acks: WriteAcks::AllReplicas,
            write_ack_timeout: Duration::from_secs(1),
        }
    }
}

/// `url`'s target, once `options` are found usable.
pub(super) fn checked(url: &str, options: &RedisOptions) -> Result<Target, StoreError> {
    let config = |why: String| Err(StoreError::Config(why.into()));
    if options.prefix.is_empty() || options.prefix.contains(['{', '}']) {
        return config(format!(
            "key prefix {:?} must be non-empty and without braces",
            options.prefix
        ));
    }
    if options.connect_timeout.is_zero() || options.response_timeout.is_zero() {
        // A zero wait fails every connect or command at once (a socket
        // takes zero as "no timeout" at all).
        return config("connect_timeout and response_timeout must be more than 0".into());
    }
    if options.epoch_check_interval.is_zero() {
        // A zero period would make the epoch watcher spin (tokio's
        // interval refuses it outright).
        return config("epoch_check_interval must be more than 0".into());
    }
    if options.write_acks != WriteAcks::PrimaryOnly && options.write_ack_timeout.is_zero() {
        // WAIT 0 blocks for ever.
        return config("write_ack_timeout must be more than 0".into());
    }
    if options.write_acks == WriteAcks::Replicas(0) {
        return config("write_acks Replicas(0): use PrimaryOnly to wait for no replica".into());
    }
    Target::parse(url)
}
