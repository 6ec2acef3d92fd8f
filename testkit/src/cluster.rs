//! A Redis Cluster of real `redis-server` nodes owned by a test.

use std::io;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::server::RedisServer;
use crate::sys;

/// How long the cluster may take to report `cluster_state:ok` on every node
/// after `redis-cli --cluster create` returned (usually well under a second).
const FORM_DEADLINE: Duration = Duration::from_secs(15);

/// A Redis Cluster, every node on a loopback port this crate picked: masters
/// only ([`RedisCluster::start`]) or with replicas
/// ([`RedisCluster::start_with_replicas`]). Dropping it stops every node and
/// removes their dirs.
///
/// Timing facts for fault tests (node timeout 2 s, Redis 7.0):
/// - forming takes ~2 s: a fresh master waits 2 s before it reports
///   `cluster_state:ok`; a restarted node waits the same 2 s again;
/// - a master paused or killed for longer than the node timeout is marked
///   failed after ~2–4 s, and then *every* node answers `CLUSTERDOWN` (full
///   slot coverage is required and there are no replicas to fail over to);
/// - after it comes back, the cluster reports ok again only after ~4 s
///   (twice the node timeout); [`RedisCluster::wait_until_ok`] waits for that.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts `masters` cluster-enabled servers, joins them with
    /// `redis-cli --cluster create ... --cluster-replicas 0`, and waits until
    /// every node reports `cluster_state:ok` (all 16384 slots served).
    ///
    /// Redis Cluster needs at least 3 masters; fewer is `InvalidInput`.
    pub fn start(masters: usize) -> io::Result<Self> {
        Self::start_with_replicas(masters, 0)
    }

    /// Like [`start`](Self::start), with `replicas` replicas per master
    /// (`--cluster-replicas`); a replica may be promoted however long it was
    /// cut off from its master (`cluster-replica-validity-factor 0`).
    pub fn start_with_replicas(masters: usize, replicas: usize) -> io::Result<Self> {
        if masters < 3 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("Redis Cluster needs at least 3 masters, got {masters}"),
            ));
        }
        let nodes = (0..masters * (1 + replicas))
            .map(|_| RedisServer::start_cluster_node())
            .collect::<io::Result<Vec<_>>>()?;
        // From here on an error drops `cluster`, which stops every node.
        let cluster = Self { nodes };
        cluster.create(replicas)?;
        cluster.wait_until_ok()?;
        if replicas > 0 {
            for node in &cluster.nodes {
                if node.cli(&["info", "replication"])?.contains("role:slave") {
                    node.wait_for_info("master_link_status:up")?;
                }
            }
        }
        Ok(cluster)
    }

    /// The node serving `key`'s slot as master now.
    pub fn master_of(&self, key: &str) -> io::Result<&RedisServer> {
        let slot: u16 = self.nodes[0]
            .cli(&["cluster", "keyslot", key])?
            .trim()
            .parse()
            .map_err(|e| io::Error::other(format!("CLUSTER KEYSLOT: {e}")))?;
        let nodes = self.topology()?;
        let port = nodes
            .iter()
            .find(|n| n.master.is_none() && n.slots.iter().any(|r| r.contains(&slot)))
            .map(|n| n.port)
            .ok_or_else(|| io::Error::other(format!("no master serves slot {slot}")))?;
        self.by_port(port)
    }

    /// A replica of `master`.
    pub fn replica_of(&self, master: &RedisServer) -> io::Result<&RedisServer> {
        let nodes = self.topology()?;
        let id = nodes
            .iter()
            .find(|n| n.port == master.port())
            .map(|n| n.id.clone())
            .ok_or_else(|| io::Error::other("master not in CLUSTER NODES"))?;
        let port = nodes
            .iter()
            .find(|n| n.master.as_deref() == Some(id.as_str()))
            .map(|n| n.port)
            .ok_or_else(|| io::Error::other(format!("no replica of node {id}")))?;
        self.by_port(port)
    }

    fn by_port(&self, port: u16) -> io::Result<&RedisServer> {
        self.nodes
            .iter()
            .find(|n| n.port() == port)
            .ok_or_else(|| io::Error::other(format!("no node on port {port}")))
    }

    /// `CLUSTER NODES` from the first node that answers.
    fn topology(&self) -> io::Result<Vec<NodeLine>> {
        let text = self
            .nodes
            .iter()
            .find_map(|n| n.cli(&["cluster", "nodes"]).ok())
            .ok_or_else(|| io::Error::other("no node answers CLUSTER NODES"))?;
        Ok(text.lines().filter_map(NodeLine::parse).collect())
    }

    /// `redis://127.0.0.1:P` of every node, in node order: the seed list for a
    /// cluster client.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// Node `i` (0-based), e.g. to pause or kill it.
    ///
    /// # Panics
    /// If `i >= self.nodes().len()`, like slice indexing.
    pub fn node(&self, i: usize) -> &RedisServer {
        &self.nodes[i]
    }

    /// All nodes, in start order.
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }

    /// Assigns the slots: one `redis-cli --cluster create` over all nodes.
    fn create(&self, replicas: usize) -> io::Result<()> {
        let mut cmd = Command::new(sys::find_program("redis-cli")?);
        cmd.args(["--cluster", "create"]);
        cmd.args(self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port())));
        // `--cluster-yes` accepts the proposed layout: there is no stdin in CI.
        cmd.args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"]);
        sys::run_capture(cmd).map(drop)
    }

    /// Polls `cluster info` on every node until all say `cluster_state:ok`,
    /// for up to 15 s: after forming, and after a test faulted a node.
    pub fn wait_until_ok(&self) -> io::Result<()> {
        let deadline = Instant::now() + FORM_DEADLINE;
        loop {
            let not_ready =
                self.nodes
                    .iter()
                    .find_map(|node| match node.cli(&["cluster", "info"]) {
                        Ok(info) if info.contains("cluster_state:ok") => None,
                        other => Some((node.port(), other)),
                    });
            let Some((port, last)) = not_ready else {
                return Ok(());
            };
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "cluster not ok within {FORM_DEADLINE:?}; node 127.0.0.1:{port} says {last:?}"
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// One line of `CLUSTER NODES`.
struct NodeLine {
    id: String,
    port: u16,
    /// The master's id, for a replica.
    master: Option<String>,
    slots: Vec<std::ops::RangeInclusive<u16>>,
}

impl NodeLine {
    fn parse(line: &str) -> Option<NodeLine> {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 8 {
            return None;
        }
        let port = f[1]
            .split(['@', ','])
            .next()?
            .rsplit(':')
            .next()?
            .parse()
            .ok()?;
        let master = (f[3] != "-").then(|| f[3].to_owned());
        let slots = f[8..]
            .iter()
            .filter(|s| !s.starts_with('['))
            .filter_map(|s| {
                let (a, b) = s.split_once('-').unwrap_or((s, s));
                Some(a.parse().ok()?..=b.parse().ok()?)
            })
            .collect();
        Some(NodeLine {
            id: f[0].to_owned(),
            port,
            master,
            slots,
        })
    }
}
