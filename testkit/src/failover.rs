//! A failover drill (issue 27; docs/location-store.md, "Failover and
//! durability"): a deployment with replicas whose primary for one key is
//! cut off from its replica, killed, and replaced by that stale replica.
//! Used by the Rust failover tests and, through the `zlink-failover`
//! binary, by every language's.

use std::io;
use std::time::Instant;

use crate::{RedisCluster, RedisSentinels, RedisServer};

/// Which deployment a [`FailoverDrill`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deployment {
    /// One primary, one replica and three Sentinels (`redis+sentinel://`).
    Sentinel,
    /// A Cluster of three primaries with one replica each
    /// (`redis+cluster://`).
    Cluster,
}

impl Deployment {
    /// `sentinel` or `cluster`, as the `zlink-failover` binary names them.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "sentinel" => Some(Deployment::Sentinel),
            "cluster" => Some(Deployment::Cluster),
            _ => None,
        }
    }
}

#[derive(Debug)]
enum Servers {
    Sentinel(RedisSentinels),
    Cluster(RedisCluster),
}

/// A running deployment, the primary that serves one key and the replica
/// that will replace it. Dropping it stops every process.
#[derive(Debug)]
pub struct FailoverDrill {
    servers: Servers,
    /// Indexes of the key's primary and its replica among the servers.
    primary: usize,
    replica: usize,
}

impl FailoverDrill {
    /// Starts `deployment` and picks the primary serving `key` (a Redis key,
    /// e.g. `zlink:{actor:x}`; on Sentinel there is only one primary).
    pub fn start(deployment: Deployment, key: &str) -> io::Result<Self> {
        match deployment {
            Deployment::Sentinel => Ok(FailoverDrill {
                servers: Servers::Sentinel(RedisSentinels::start(1)?),
                primary: 0,
                replica: 1,
            }),
            Deployment::Cluster => {
                let cluster = RedisCluster::start_with_replicas(3, 1)?;
                let index = |server: &RedisServer| {
                    cluster
                        .nodes()
                        .iter()
                        .position(|n| n.port() == server.port())
                };
                let primary = cluster.master_of(key)?;
                let replica = cluster.replica_of(primary)?;
                let (primary, replica) = (index(primary), index(replica));
                let (Some(primary), Some(replica)) = (primary, replica) else {
                    return Err(io::Error::other("the key's nodes are not the cluster's"));
                };
                Ok(FailoverDrill {
                    servers: Servers::Cluster(cluster),
                    primary,
                    replica,
                })
            }
        }
    }

    /// The store URL: `redis+sentinel://…/zlink-primary` or
    /// `redis+cluster://` with every node as a seed.
    pub fn url(&self) -> String {
        match &self.servers {
            Servers::Sentinel(group) => group.url(),
            Servers::Cluster(cluster) => {
                let seeds: Vec<String> = cluster
                    .nodes()
                    .iter()
                    .map(|n| format!("127.0.0.1:{}", n.port()))
                    .collect();
                format!("redis+cluster://{}", seeds.join(","))
            }
        }
    }

    /// The key's primary (until [`fail_over`](Self::fail_over)).
    pub fn primary(&self) -> &RedisServer {
        self.server(self.primary)
    }

    /// The replica that replaces it.
    pub fn replica(&self) -> &RedisServer {
        self.server(self.replica)
    }

    fn server(&self, i: usize) -> &RedisServer {
        match &self.servers {
            Servers::Sentinel(group) => group.server(i),
            Servers::Cluster(cluster) => cluster.node(i),
        }
    }

    /// Cuts the replica off: it stops reading (SIGSTOP) and the primary
    /// drops its replication link, so what the primary writes next stays
    /// on the primary alone.
    pub fn cut_off(&self) -> io::Result<()> {
        self.replica().pause()?;
        self.primary().cli(&["CLIENT", "KILL", "TYPE", "replica"])?;
        Ok(())
    }

    /// Kills the primary (SIGKILL), lets the stale replica run again and
    /// waits (up to 30 s) until it serves as the primary. Returns when the
    /// primary died.
    pub fn fail_over(&self) -> io::Result<Instant> {
        self.primary().kill()?;
        let died = Instant::now();
        self.replica().resume()?;
        match &self.servers {
            Servers::Sentinel(group) => {
                let now = group.wait_for_failover(self.primary())?;
                if now.port() != self.replica().port() {
                    return Err(io::Error::other(format!(
                        "the Sentinels promoted 127.0.0.1:{}, not the replica",
                        now.port()
                    )));
                }
            }
            Servers::Cluster(_) => self.replica().wait_for_info("role:master")?,
        }
        Ok(died)
    }
}
