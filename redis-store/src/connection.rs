//! Reaching Redis: the URL forms, the one connection (single server or
//! cluster) every call shares, the server lifetime (run id) and the mapping
//! of client errors to `StoreError`.

use std::hash::BuildHasher;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo};
use redis::{Cmd, Pipeline, RedisError, RedisFuture, Value};

use super::RedisOptions;
use super::sentinel::SentinelLink;
use zlink_core::store::StoreError;

/// Where the store lives, from its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// One server: `redis://` or `rediss://`.
    Single(String),
    /// A cluster, from seed nodes: `redis+cluster://[auth@]h1:p1,h2:p2`.
    Cluster(Vec<String>),
    /// The primary Sentinel names, followed through failovers:
    /// `redis+sentinel://[auth@]s1:p1,s2:p2/master-name`.
    Sentinel(SentinelTarget),
}

/// Where the Sentinels are and what they watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SentinelTarget {
    /// `redis://host:port` (or `rediss://`) of each Sentinel.
    pub(super) sentinels: Vec<String>,
    /// The master name the Sentinels monitor.
    pub(super) master: String,
    /// `redis://[auth@]` (or `rediss://`): the primary's URL before its
    /// `host:port`.
    pub(super) primary_prefix: String,
}

impl Target {
    pub(super) fn parse(url: &str) -> Result<Target, StoreError> {
        let shown = redacted(url);
        let bad = |why: &str| StoreError::Config(format!("store URL {shown:?}: {why}").into());
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad("expected scheme://"))?;
        let target = match scheme {
            "redis" | "rediss" => Target::Single(url.to_owned()),
            "redis+cluster" | "rediss+cluster" => {
                let plain = scheme.trim_end_matches("+cluster");
                let (auth, hosts) = split_auth(rest);
                let seeds = hosts_of(hosts.trim_end_matches('/'), plain, &auth);
                if seeds.is_empty() {
                    return Err(bad("no cluster seed node"));
                }
                Target::Cluster(seeds)
            }
            "redis+sentinel" | "rediss+sentinel" => {
                let plain = scheme.trim_end_matches("+sentinel");
                let (auth, rest) = split_auth(rest);
                let (hosts, master) = rest
                    .split_once('/')
                    .ok_or_else(|| bad("no master name (…/master-name)"))?;
                let master = master.trim_end_matches('/');
                if master.is_empty() || master.contains(['/', '?', '#']) {
                    return Err(bad("no master name (…/master-name)"));
                }
                // The credentials are the primary's; Sentinels take none.
                let sentinels = hosts_of(hosts, plain, "");
                if sentinels.is_empty() {
                    return Err(bad("no Sentinel address"));
                }
                Target::Sentinel(SentinelTarget {
                    sentinels,
                    master: master.to_owned(),
                    primary_prefix: format!("{plain}://{auth}"),
                })
            }
            _ => {
                return Err(bad(
                    "scheme must be redis, rediss, redis+cluster, rediss+cluster, \
                     redis+sentinel or rediss+sentinel",
                ));
            }
        };
        // Let the client check each URL now, so a typo is a clear error.
        for one in target.urls() {
            redis::Client::open(one.as_str()).map_err(|e| bad(&e.to_string()))?;
        }
        Ok(target)
    }

    fn urls(&self) -> Vec<&String> {
        match self {
            Target::Single(url) => vec![url],
            Target::Cluster(seeds) => seeds.iter().collect(),
            Target::Sentinel(s) => s.sentinels.iter().collect(),
        }
    }
}

/// `auth@rest` → (`auth@`, `rest`); no `@` → (``, `rest`).
fn split_auth(rest: &str) -> (String, &str) {
    match rest.rsplit_once('@') {
        Some((auth, hosts)) => (format!("{auth}@"), hosts),
        None => (String::new(), rest),
    }
}

/// `h1:p1,h2:p2` → `scheme://auth h1:p1`, …
fn hosts_of(hosts: &str, scheme: &str, auth: &str) -> Vec<String> {
    hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(|h| format!("{scheme}://{auth}{h}"))
        .collect()
}

/// Installs ring as rustls's process-wide crypto provider, once, before the
/// store's first connection (`RedisStore::start`): the client builds its TLS configuration (on every
/// `rediss://` connect and reconnect) from that default, and rustls cannot
/// pick one by itself when a build enables more than one provider. When the
/// process (a Rust host linking zlink-redis) already installed one, that one
/// is kept. TLS is rustls, so no library built on the core links OpenSSL.
pub(crate) fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only means a provider is already installed: it stays in use.
        let _already = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `url` with any credentials replaced by `***`, for error messages.
fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, hosts)) => format!("{scheme}://***@{hosts}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// How many connections carry authority writes, besides the shared one
/// that carries reads: a write's `WAIT` holds its connection until the
/// replicas answer, and must not hold up the reads behind it (nor, beyond
/// this many at once, other writes).
const WRITERS: usize = 2;

/// The store's connections to one deployment.
pub(super) struct Conns {
    /// Reads and the epoch watcher.
    pub(super) shared: Conn,
    /// Authority writes, in turn.
    writers: Vec<Conn>,
    next: AtomicUsize,
}

impl Conns {
    /// Connects to one server or a cluster.
    pub(super) async fn open(target: &Target, options: &RedisOptions) -> Result<Conns, StoreError> {
        let shared = Conn::connect(target, options).await?;
        let mut writers = Vec::with_capacity(WRITERS);
        for _ in 0..WRITERS {
            writers.push(Conn::connect(target, options).await?);
        }
        Ok(Conns {
            shared,
            writers,
            next: AtomicUsize::new(0),
        })
    }

    /// The connection for the next authority write.
    pub(super) fn writer(&self) -> Conn {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.writers.len();
        self.writers[i].clone()
    }
}

/// The store's way to its connections: fixed (one server, a cluster), or
/// to whichever primary the Sentinels name.
pub(super) enum Link {
    Fixed(Arc<Conns>),
    Sentinel(Box<SentinelLink>),
}

impl Link {
    pub(super) async fn open(target: &Target, options: &RedisOptions) -> Result<Link, StoreError> {
        Ok(match target {
            Target::Sentinel(s) => {
                Link::Sentinel(Box::new(SentinelLink::open(s.clone(), options).await?))
            }
            fixed => Link::Fixed(Arc::new(Conns::open(fixed, options).await?)),
        })
    }

    /// The connections to use now.
    pub(super) fn conns(&self) -> Arc<Conns> {
        match self {
            Link::Fixed(conns) => conns.clone(),
            Link::Sentinel(link) => link.conns(),
        }
    }

    /// The replicas the Sentinels list as promotable for the primary;
    /// `None` for a fixed target (the deployment itself says).
    pub(super) fn listed_replicas(&self) -> Option<u32> {
        match self {
            Link::Fixed(_) => None,
            Link::Sentinel(link) => Some(link.listed_replicas()),
        }
    }

    /// Follows a Sentinel failover (a no-op for a fixed target).
    pub(super) async fn follow(&self) -> Result<(), StoreError> {
        match self {
            Link::Fixed(_) => Ok(()),
            Link::Sentinel(link) => link.follow().await,
        }
    }
}

/// One connection; clones are cheap handles to it.
#[derive(Clone)]
pub(super) enum Conn {
    /// Multiplexed, reconnects by itself.
    Single(ConnectionManager),
    /// Follows slot moves and failovers by itself.
    Cluster(ClusterConnection),
}

impl Conn {
    pub(super) async fn connect(
        target: &Target,
        options: &RedisOptions,
    ) -> Result<Conn, StoreError> {
        let fail = |e| store_error(e, options.connect_timeout);
        let connect = async {
            match target {
                Target::Single(url) => {
                    let client = redis::Client::open(url.as_str()).map_err(fail)?;
                    let config = ConnectionManagerConfig::new()
                        .set_connection_timeout(Some(options.connect_timeout))
                        .set_response_timeout(Some(options.response_timeout))
                        .set_number_of_retries(2);
                    let conn = client.get_connection_manager_with_config(config).await;
                    conn.map(Conn::Single).map_err(fail)
                }
                Target::Sentinel(_) => Err(StoreError::Config(
                    "a Sentinel target connects through its Sentinels".into(),
                )),
                Target::Cluster(seeds) => {
                    let client = ClusterClientBuilder::new(seeds.iter().map(String::as_str))
                        .connection_timeout(options.connect_timeout)
                        .response_timeout(options.response_timeout)
                        .retries(2)
                        .build()
                        .map_err(fail)?;
                    client
                        .get_async_connection()
                        .await
                        .map(Conn::Cluster)
                        .map_err(fail)
                }
            }
        };
        // The client's own timeouts apply per attempt; bound the whole.
        let limit = options.connect_timeout * 3;
        match tokio::time::timeout(limit, connect).await {
            Ok(conn) => conn,
            Err(_) => Err(StoreError::Timeout {
                millis: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            }),
        }
    }

    pub(super) fn is_cluster(&self) -> bool {
        matches!(self, Conn::Cluster(_))
    }

    /// The store's epoch (a number that changes when any primary restarts
    /// or fails over, or when the client re-established a connection it
    /// lost: the store may have changed unseen meanwhile; a hash of every
    /// primary's `run_id` and of this client's connection IDs), and the
    /// hash of the run ids alone ([`servers_of`]).
    pub(super) async fn run_ids(mut self, limit: Duration) -> Result<Identity, StoreError> {
        let mut info = redis::cmd("INFO");
        info.arg("server");
        let answer = self.on_every_primary(info).await;
        let answer = answer.map_err(|e| store_error(e, limit))?;
        let mut text = String::new();
        collect_text(&answer, &mut text);
        let servers = servers_of(&text)?;
        let mut numbers = Vec::new();
        match self
            .on_every_primary(redis::cmd("CLIENT").arg("ID").clone())
            .await
        {
            Ok(connections) => collect_numbers(&connections, &mut numbers),
            // A server or user without CLIENT ID (an ACL without
            // `+client|id`, a proxy): restarts are still seen by run id;
            // a lost connection then only by the calls that failed on it.
            Err(e)
                if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoPerm)
                    || e.to_string().contains("unknown") =>
            {
                tracing::debug!(error = %e, "CLIENT ID unavailable: reconnections are seen by failed calls only");
            }
            Err(e) => return Err(store_error(e, limit)),
        }
        numbers.sort_unstable();
        Ok(Identity {
            epoch: hash((servers, numbers)),
            servers,
        })
    }

    /// What the deployment says of its replicas: `INFO replication` of
    /// one server, `CLUSTER NODES` of a cluster (from any of its nodes).
    pub(super) async fn replication(mut self, limit: Duration) -> Result<Replication, StoreError> {
        let (cmd, cluster) = match self {
            Conn::Single(_) => (redis::cmd("INFO").arg("replication").clone(), false),
            Conn::Cluster(_) => (redis::cmd("CLUSTER").arg("NODES").clone(), true),
        };
        let answer: Value = cmd
            .query_async(&mut self)
            .await
            .map_err(|e| store_error(e, limit))?;
        let mut text = String::new();
        collect_text(&answer, &mut text);
        Ok(if cluster {
            Replication::Cluster(text)
        } else {
            Replication::Primary(text)
        })
    }

    /// Runs `cmd` on the server, or on every primary of a cluster.
    async fn on_every_primary(&mut self, cmd: Cmd) -> redis::RedisResult<Value> {
        match self {
            Conn::Single(c) => cmd.query_async::<Value>(c).await,
            Conn::Cluster(c) => {
                let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                // One primary's error comes back inside the answer map: make
                // it the call's error, as a single server's would be, so it
                // never changes the epoch.
                c.route_command(cmd, all)
                    .await
                    .and_then(Value::extract_error)
            }
        }
    }
}

/// What [`Conn::replication`] read.
pub(super) enum Replication {
    /// One primary's `INFO replication`.
    Primary(String),
    /// A cluster's `CLUSTER NODES`.
    Cluster(String),
}

/// What the epoch watcher reads of the servers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Identity {
    /// The store's epoch.
    pub(super) epoch: u64,
    /// The servers' run ids, hashed.
    pub(super) servers: u64,
}

/// The `run_id`s in `INFO server` text (one server's, or every primary's),
/// sorted and hashed: changes when any of them restarts or fails over.
pub(super) fn servers_of(info: &str) -> Result<u64, StoreError> {
    let mut ids: Vec<&str> = info
        .split(['\r', '\n'])
        .filter_map(|line| line.strip_prefix("run_id:"))
        .collect();
    if ids.is_empty() {
        return Err(StoreError::Protocol("INFO server has no run_id".into()));
    }
    ids.sort_unstable();
    Ok(hash(ids))
}

fn hash(value: impl std::hash::Hash) -> u64 {
    foldhash::fast::FixedState::with_seed(0).hash_one(value)
}

/// Every integer in an answer (one server's, or a cluster's node → value).
fn collect_numbers(value: &Value, out: &mut Vec<i64>) {
    match value {
        Value::Int(n) => out.push(*n),
        Value::Array(items) | Value::Set(items) => {
            items.iter().for_each(|v| collect_numbers(v, out))
        }
        Value::Map(pairs) => pairs.iter().for_each(|(_, v)| collect_numbers(v, out)),
        _ => {}
    }
}

/// Every piece of text in an answer, whatever its shape (one server's
/// string, or a map of node → string from a cluster).
fn collect_text(value: &Value, out: &mut String) {
    match value {
        Value::BulkString(bytes) => out.push_str(&String::from_utf8_lossy(bytes)),
        Value::SimpleString(s) => out.push_str(s),
        Value::VerbatimString { text, .. } => out.push_str(text),
        Value::Array(items) | Value::Set(items) => items.iter().for_each(|v| collect_text(v, out)),
        Value::Map(pairs) => pairs.iter().for_each(|(k, v)| {
            collect_text(k, out);
            out.push('\n');
            collect_text(v, out);
        }),
        _ => {}
    }
    out.push('\n');
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// A response that did not come in time is `Timeout` (the connection held:
/// a slow or paused server). Transient trouble (the server is away, busy,
/// loading, failing over) is `Unreachable`: retry later. Anything else is
/// `Protocol`.
pub(super) fn store_error(e: RedisError, limit: Duration) -> StoreError {
    let text: Arc<str> = e.to_string().into();
    if e.is_timeout() {
        return StoreError::Timeout {
            millis: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
        };
    }
    let transient = [
        "LOADING",
        "BUSY",
        "TRYAGAIN",
        "CLUSTERDOWN",
        "MASTERDOWN",
        "MOVED",
        "ASK",
        // A primary demoted by a failover, until the store follows.
        "READONLY",
    ];
    if e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_cluster_error()
        || transient.iter().any(|code| text.contains(code))
    {
        StoreError::Unreachable(text)
    } else {
        StoreError::Protocol(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_one_server_or_cluster_seeds() {
        assert_eq!(
            Target::parse("redis://127.0.0.1:6390").expect("valid"),
            Target::Single("redis://127.0.0.1:6390".into())
        );
        assert_eq!(
            Target::parse("redis+cluster://u:p@127.0.0.1:7000,127.0.0.1:7001").expect("valid"),
            Target::Cluster(vec![
                "redis://u:p@127.0.0.1:7000".into(),
                "redis://u:p@127.0.0.1:7001".into()
            ])
        );
        assert!(matches!(
            Target::parse("rediss+cluster://h:1").expect("valid"),
            Target::Cluster(seeds) if seeds == ["rediss://h:1"]
        ));
        for bad in [
            "",
            "127.0.0.1:6379",
            "http://x",
            "redis+cluster://",
            "redis://host:notaport",
        ] {
            assert!(
                matches!(Target::parse(bad), Err(StoreError::Config(_))),
                "{bad:?}"
            );
        }
    }
}
