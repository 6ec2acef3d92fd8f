//! A Redis Sentinel group of real processes owned by a test: one primary,
//! its replicas, and three Sentinels (quorum 2) that fail it over.

use std::io;
use std::time::{Duration, Instant};

use crate::server::{RedisServer, SENTINEL_MASTER};

/// How long the Sentinels may take to know each other and the replicas.
const DISCOVERY_DEADLINE: Duration = Duration::from_secs(20);

/// A primary, `replicas` replicas of it and three Sentinels watching it
/// (down after 1 s, quorum 2). Dropping it stops every process.
///
/// Timing facts for failover tests (Redis 7.0): after the primary dies, the
/// Sentinels agree it is down ~1–2 s later and promote a replica within
/// another ~1 s; [`RedisSentinels::wait_for_failover`] waits for that.
#[derive(Debug)]
pub struct RedisSentinels {
    /// The primary first, then the replicas, in start order.
    servers: Vec<RedisServer>,
    sentinels: Vec<RedisServer>,
}

impl RedisSentinels {
    /// Starts the group and waits until every Sentinel knows the replicas
    /// and the other Sentinels (a failover needs both).
    pub fn start(replicas: usize) -> io::Result<Self> {
        let primary = RedisServer::start()?;
        let mut servers = vec![primary];
        for _ in 0..replicas {
            servers.push(RedisServer::start_replica_of(&servers[0])?);
        }
        let sentinels = (0..3)
            .map(|_| RedisServer::start_sentinel(&servers[0]))
            .collect::<io::Result<Vec<_>>>()?;
        let group = RedisSentinels { servers, sentinels };
        group.wait_for_discovery(replicas)?;
        Ok(group)
    }

    /// `redis+sentinel://127.0.0.1:S1,…/zlink-primary`: the store URL.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.port()))
            .collect();
        format!("redis+sentinel://{}/{SENTINEL_MASTER}", hosts.join(","))
    }

    /// Server `i`: 0 is the first primary, then the replicas.
    pub fn server(&self, i: usize) -> &RedisServer {
        &self.servers[i]
    }

    /// The server the Sentinels name as primary now.
    pub fn primary(&self) -> io::Result<&RedisServer> {
        let port = self.primary_port()?;
        self.servers
            .iter()
            .find(|s| s.port() == port)
            .ok_or_else(|| io::Error::other(format!("the Sentinels name unknown port {port}")))
    }

    /// Waits (up to 30 s) until the Sentinels name a primary other than
    /// `old` and that server answers as a primary; returns it.
    pub fn wait_for_failover(&self, old: &RedisServer) -> io::Result<&RedisServer> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(now) = self.primary()
                && now.port() != old.port()
                && now.wait_for_info("role:master").is_ok()
            {
                return Ok(now);
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no failover from 127.0.0.1:{} within 30 s", old.port()),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn primary_port(&self) -> io::Result<u16> {
        let mut last = None;
        for sentinel in &self.sentinels {
            match sentinel.cli(&["sentinel", "get-master-addr-by-name", SENTINEL_MASTER]) {
                Ok(text) => {
                    if let Some(port) = text.lines().nth(1).and_then(|p| p.trim().parse().ok()) {
                        return Ok(port);
                    }
                    last = Some(io::Error::other(format!("no primary in {text:?}")));
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no Sentinel")))
    }

    fn wait_for_discovery(&self, replicas: usize) -> io::Result<()> {
        let deadline = Instant::now() + DISCOVERY_DEADLINE;
        let wanted = [
            ("num-slaves", replicas),
            ("num-other-sentinels", self.sentinels.len() - 1),
        ];
        loop {
            let pending = self.sentinels.iter().find_map(|s| {
                let text = s.cli(&["sentinel", "master", SENTINEL_MASTER]).ok()?;
                let fields: Vec<&str> = text.lines().map(str::trim).collect();
                let value = |name: &str| {
                    let at = fields.iter().position(|f| *f == name)?;
                    fields.get(at + 1)?.parse::<usize>().ok()
                };
                wanted
                    .iter()
                    .any(|(name, n)| value(name) != Some(*n))
                    .then(|| (s.port(), text))
            });
            let Some((port, text)) = pending else {
                return Ok(());
            };
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("Sentinel 127.0.0.1:{port} did not discover the group: {text:?}"),
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
