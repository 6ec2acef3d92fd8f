//! A Redis Cluster of real `redis-server` nodes owned by a test.

use std::io;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::server::RedisServer;
use crate::sys;

/// How long the cluster may take to report `cluster_state:ok` on every node
/// after `redis-cli --cluster create` returned (usually well under a second).
const FORM_DEADLINE: Duration = Duration::from_secs(15);

/// A Redis Cluster of masters only (no replicas), every node on a loopback port
/// this crate picked. Dropping it stops every node and removes their dirs.
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
        if masters < 3 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("Redis Cluster needs at least 3 masters, got {masters}"),
            ));
        }
        let nodes = (0..masters)
            .map(|_| RedisServer::start_cluster_node())
            .collect::<io::Result<Vec<_>>>()?;
        // From here on an error drops `cluster`, which stops every node.
        let cluster = Self { nodes };
        cluster.create()?;
        cluster.wait_until_ok()?;
        Ok(cluster)
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
    fn create(&self) -> io::Result<()> {
        let mut cmd = Command::new(sys::find_program("redis-cli")?);
        cmd.args(["--cluster", "create"]);
        cmd.args(self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port())));
        // `--cluster-yes` accepts the proposed layout: there is no stdin in CI.
        cmd.args(["--cluster-replicas", "0", "--cluster-yes"]);
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
