//! One `redis-server` process owned by a test.

use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::sys;

/// How long a server may take to answer its first PING. Startup is ~10 ms on
/// an idle machine; the margin is for a loaded 2-core CI box.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// Attempts when another process grabs our port between probe and bind.
const PORT_ATTEMPTS: usize = 5;

/// Log lines quoted in startup errors.
const LOG_TAIL_LINES: usize = 20;

/// Flags that turn a server into a Redis Cluster node. Node timeout 2 s keeps
/// failure detection fast enough for fault tests. A replica may fail over
/// however long it was cut off from its primary (validity factor 0), as in
/// the failover tests: a stale replica is promoted.
const CLUSTER_ARGS: &[&str] = &[
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    "nodes.conf",
    "--cluster-node-timeout",
    "2000",
    "--cluster-replica-validity-factor",
    "0",
];

/// The master name [`RedisServer::start_sentinel`] monitors.
pub const SENTINEL_MASTER: &str = "zlink-primary";

/// What kind of server a [`RedisServer`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    ClusterNode,
    /// A replica of the primary on this loopback port.
    Replica(u16),
    /// A Sentinel monitoring the primary on this loopback port.
    Sentinel(u16),
}

/// A real `redis-server` on `127.0.0.1:port()`, killed and cleaned up on drop.
///
/// Every method takes `&self` (the process handle sits behind a mutex), so a
/// server can be shared with `Arc` and faulted from another thread, and a
/// cluster node borrowed with [`crate::RedisCluster::node`] can be killed too.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    password: Option<String>,
    dir: PathBuf,
    server_bin: PathBuf,
    role: Role,
    /// A second, TLS-only port (test CA and server certificate in `dir`).
    tls_port: Option<u16>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// `None` after [`RedisServer::kill`] until the next restart.
    child: Option<Child>,
    /// Set by `pause`, so `Drop` knows to send SIGCONT first.
    paused: bool,
    /// Kills the server if this test process dies without dropping it (a
    /// server held in a `static`, a test binary killed): no server outlives
    /// the tests that started it.
    watchdog: Option<Child>,
}

impl RedisServer {
    /// Starts a server on a free loopback port and waits until it answers PING.
    ///
    /// Persistence is off (`--save ""`, `--appendonly no`): tests want a clean
    /// store on every start, including [`restart`](Self::restart).
    pub fn start() -> io::Result<Self> {
        Self::launch(None, Role::Plain, false)
    }

    /// A replica of `primary` (`--replicaof`), once its replication link is
    /// up and it holds the primary's data.
    pub fn start_replica_of(primary: &RedisServer) -> io::Result<Self> {
        let replica = Self::launch(None, Role::Replica(primary.port), false)?;
        replica.wait_for_info("master_link_status:up")?;
        Ok(replica)
    }

    /// A Redis Sentinel (`redis-server sentinel.conf --sentinel`) that
    /// monitors `primary` as [`SENTINEL_MASTER`] with quorum 2 and fast
    /// timings: the primary is down after 1 s without an answer, a failover
    /// may be retried after 3 s.
    pub fn start_sentinel(primary: &RedisServer) -> io::Result<Self> {
        Self::launch(None, Role::Sentinel(primary.port), false)
    }

    /// Like [`start`](Self::start), also listening with TLS on a second port,
    /// under a certificate for 127.0.0.1 signed by a throwaway test CA (both
    /// made with `openssl` in the server's directory). [`tls_url`](Self::tls_url)
    /// reaches it without verifying; [`tls_verified_url`](Self::tls_verified_url)
    /// with verification, for a client that trusts [`tls_ca_file`](Self::tls_ca_file).
    pub fn start_tls() -> io::Result<Self> {
        Self::launch(None, Role::Plain, true)
    }

    /// Like [`start`](Self::start), with `--requirepass password`; [`url`](Self::url)
    /// and [`cli`](Self::cli) carry the password.
    pub fn start_with_password(password: &str) -> io::Result<Self> {
        Self::launch(Some(password.to_owned()), Role::Plain, false)
    }

    /// A cluster-enabled node (not yet part of any cluster).
    pub(crate) fn start_cluster_node() -> io::Result<Self> {
        Self::launch(None, Role::ClusterNode, false)
    }

    /// Tries a few ports: a fresh one (and a fresh directory) per attempt when
    /// the previous one was taken by someone else before the server bound it.
    fn launch(password: Option<String>, role: Role, tls: bool) -> io::Result<Self> {
        let server_bin = sys::find_program("redis-server")?;
        let mut last_err = None;
        for _ in 0..PORT_ATTEMPTS {
            let port = if role == Role::ClusterNode {
                sys::free_cluster_port()?
            } else {
                sys::free_port()?
            };
            let dir = sys::unique_temp_dir()?;
            let tls_port = if tls {
                sys::test_ca_and_certificate(&dir)?;
                Some(sys::free_port()?)
            } else {
                None
            };
            let server = Self {
                port,
                password: password.clone(),
                dir,
                server_bin: server_bin.clone(),
                role,
                tls_port,
                state: Mutex::new(State {
                    child: None,
                    paused: false,
                    watchdog: None,
                }),
            };
            let booted = server.boot(&mut server.lock());
            match booted {
                Ok(()) => return Ok(server),
                // `server` drops here: the process is reaped, the dir removed.
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => last_err = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_err.unwrap_or_else(|| io::Error::other("redis-server did not start")))
    }

    /// The loopback port the server listens on (stable across restarts).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:P`, or `redis://:PASSWORD@127.0.0.1:P` (password
    /// percent-encoded) for a server started with a password.
    pub fn url(&self) -> String {
        match &self.password {
            Some(pw) => format!("redis://:{}@127.0.0.1:{}", percent_encode(pw), self.port),
            None => format!("redis://127.0.0.1:{}", self.port),
        }
    }

    /// `rediss://127.0.0.1:Q/#insecure` for a server started with
    /// [`start_tls`](Self::start_tls) (its CA is in no trust store, so the
    /// client is told not to verify the certificate); `None` otherwise.
    pub fn tls_url(&self) -> Option<String> {
        self.tls_port
            .map(|q| format!("rediss://127.0.0.1:{q}/#insecure"))
    }

    /// `rediss://127.0.0.1:Q`: the TLS port with certificate verification,
    /// which succeeds only for a client that trusts
    /// [`tls_ca_file`](Self::tls_ca_file); `None` without TLS.
    pub fn tls_verified_url(&self) -> Option<String> {
        self.tls_port.map(|q| format!("rediss://127.0.0.1:{q}"))
    }

    /// The PEM file of the test CA that signed the TLS certificate (e.g. for
    /// `SSL_CERT_FILE`); `None` without TLS.
    pub fn tls_ca_file(&self) -> Option<PathBuf> {
        self.tls_port.map(|_| self.dir.join(sys::CA_FILE))
    }

    /// Process id of the running server; `None` after [`kill`](Self::kill).
    /// Changes on every [`restart`](Self::restart).
    pub fn pid(&self) -> Option<u32> {
        self.lock().child.as_ref().map(Child::id)
    }

    /// The server's private directory: `redis.log` (stdout and stderr of
    /// every run) and, for cluster nodes, `nodes.conf`. Removed on drop.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the process is alive (a paused process is alive).
    pub fn is_running(&self) -> bool {
        let mut state = self.lock();
        state
            .child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    /// Freezes the server with SIGSTOP: connections are still accepted by the
    /// kernel but nothing is answered, like a stalled server, until
    /// [`resume`](Self::resume).
    pub fn pause(&self) -> io::Result<()> {
        let mut state = self.lock();
        sys::send_signal(running_pid(&state)?, "STOP")?;
        state.paused = true;
        Ok(())
    }

    /// Undoes [`pause`](Self::pause) with SIGCONT.
    pub fn resume(&self) -> io::Result<()> {
        let mut state = self.lock();
        sys::send_signal(running_pid(&state)?, "CONT")?;
        state.paused = false;
        Ok(())
    }

    /// Kills the server with SIGKILL (no shutdown, no goodbye to clients) and
    /// waits for it to exit. Does nothing if it is already killed.
    pub fn kill(&self) -> io::Result<()> {
        stop(&mut self.lock())
    }

    /// Starts the server again on the same port and directory (a cluster node
    /// keeps its identity from `nodes.conf`) and waits until it answers PING.
    /// A server still running is killed first. Data is gone: persistence is off.
    pub fn restart(&self) -> io::Result<()> {
        let mut state = self.lock();
        stop(&mut state)?;
        self.boot(&mut state)
    }

    /// Sends PING over a raw TCP connection and waits at most `timeout` for
    /// `+PONG`. A paused server yields `ErrorKind::TimedOut`; a killed one
    /// usually `ConnectionRefused`.
    pub fn ping(&self, timeout: Duration) -> io::Result<()> {
        sys::raw_ping(self.port, self.password.as_deref(), timeout)
    }

    /// Runs `redis-cli -h 127.0.0.1 -p PORT [-a PW --no-auth-warning] ARGS...`
    /// and returns its stdout (errors if redis-cli exits non-zero).
    ///
    /// Output is redis-cli's raw (non-tty) format. Redis *error replies*
    /// (`ERR ...`, `MOVED ...`, `CLUSTERDOWN ...`) come back as `Ok(text)`:
    /// redis-cli exits 0 for them. Pass `-c` first to follow cluster redirects.
    ///
    /// Meant for setup and inspection in tests (`cli(&["cluster", "info"])`),
    /// not for the code under test, which uses its own client.
    pub fn cli(&self, args: &[&str]) -> io::Result<String> {
        let mut cmd = Command::new(sys::find_program("redis-cli")?);
        cmd.args(["-h", "127.0.0.1", "-p", &self.port.to_string()]);
        if let Some(pw) = &self.password {
            cmd.args(["-a", pw, "--no-auth-warning"]);
        }
        cmd.args(args);
        sys::run_capture(cmd)
    }

    /// Polls `INFO` until it contains `line` (e.g. `role:master`), for up
    /// to 30 s.
    pub fn wait_for_info(&self, line: &str) -> io::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let info = self.cli(&["info"]);
            if info
                .as_deref()
                .is_ok_and(|i| i.lines().any(|l| l.trim() == line))
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "127.0.0.1:{} never said {line:?}; last INFO: {info:?}",
                        self.port
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("redis.log")
    }

    /// Spawns the process into `state` and waits for its first PONG.
    fn boot(&self, state: &mut State) -> io::Result<()> {
        let child = self.spawn()?;
        state.watchdog = Some(watchdog(child.id())?);
        state.child = Some(child);
        state.paused = false;
        self.wait_ready(state)
    }

    fn spawn(&self) -> io::Result<Child> {
        // Append, so the log of a run before `restart` is kept for debugging.
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())?;
        let mut cmd = Command::new(&self.server_bin);
        if let Role::Sentinel(primary) = self.role {
            // A Sentinel rewrites its config file: it must be the first
            // argument, in the server's own directory.
            let conf = self.dir.join("sentinel.conf");
            if !conf.exists() {
                fs::write(&conf, sentinel_conf(primary))?;
            }
            cmd.arg(conf).arg("--sentinel");
        }
        cmd.args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--daemonize", "no"])
            .arg("--dir")
            .arg(&self.dir);
        if !matches!(self.role, Role::Sentinel(_)) {
            cmd.args(["--save", "", "--appendonly", "no"]);
        }
        match self.role {
            Role::ClusterNode => _ = cmd.args(CLUSTER_ARGS),
            Role::Replica(primary) => {
                _ = cmd.args(["--replicaof", "127.0.0.1", &primary.to_string()]);
            }
            Role::Plain | Role::Sentinel(_) => {}
        }
        if let Some(pw) = &self.password {
            cmd.args(["--requirepass", pw]);
        }
        if let Some(q) = self.tls_port {
            let file = |name: &str| self.dir.join(name);
            cmd.args(["--tls-port", &q.to_string(), "--tls-auth-clients", "no"])
                .arg("--tls-cert-file")
                .arg(file(sys::CERT_FILE))
                .arg("--tls-key-file")
                .arg(file(sys::KEY_FILE))
                .arg("--tls-ca-cert-file")
                .arg(file(sys::CA_FILE));
        }
        cmd.stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        cmd.spawn()
    }

    /// Polls PING until it answers, the process dies, or the deadline passes.
    /// A port lost to another process is reported as `AddrInUse` so `launch`
    /// can retry; every error quotes the log tail.
    fn wait_ready(&self, state: &mut State) -> io::Result<()> {
        let deadline = Instant::now() + START_DEADLINE;
        loop {
            if let Some(status) = exit_status(state)? {
                let tail = sys::log_tail(&self.log_path(), LOG_TAIL_LINES);
                let kind = if tail.contains("Address already in use") {
                    io::ErrorKind::AddrInUse
                } else {
                    io::ErrorKind::Other
                };
                return Err(self.startup_error(kind, &format!("exited ({status})"), &tail));
            }
            let attempt = sys::raw_ping(
                self.port,
                self.password.as_deref(),
                Duration::from_millis(250),
            );
            if attempt.is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let tail = sys::log_tail(&self.log_path(), LOG_TAIL_LINES);
                let why = format!("did not answer PING within {START_DEADLINE:?} ({attempt:?})");
                return Err(self.startup_error(io::ErrorKind::TimedOut, &why, &tail));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn startup_error(&self, kind: io::ErrorKind, why: &str, tail: &str) -> io::Error {
        io::Error::new(
            kind,
            format!(
                "redis-server on 127.0.0.1:{} {why}; last lines of {}:\n{tail}",
                self.port,
                self.log_path().display()
            ),
        )
    }

    /// A poisoned lock only means another test thread panicked mid-call; the
    /// state (a child handle and a flag) is still usable, and `Drop` must run.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let _ = stop(state);
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A Sentinel's configuration: it watches the primary on `primary` and
/// acts fast (down after 1 s, failovers retried after 3 s).
fn sentinel_conf(primary: u16) -> String {
    format!(
        "sentinel monitor {SENTINEL_MASTER} 127.0.0.1 {primary} 2\n\
         sentinel down-after-milliseconds {SENTINEL_MASTER} 1000\n\
         sentinel failover-timeout {SENTINEL_MASTER} 3000\n\
         sentinel parallel-syncs {SENTINEL_MASTER} 1\n"
    )
}

/// The pid of a live (possibly paused) process, or an error saying why not.
fn running_pid(state: &State) -> io::Result<u32> {
    state.child.as_ref().map(Child::id).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotConnected,
            "redis-server is not running (killed)",
        )
    })
}

/// `Some(status)` if the child has exited; reaps it so no zombie remains.
fn exit_status(state: &mut State) -> io::Result<Option<std::process::ExitStatus>> {
    match state.child.as_mut() {
        Some(child) => child.try_wait(),
        None => Err(io::Error::other("redis-server was not spawned")),
    }
}

/// SIGKILL and reap. SIGCONT first if paused: Linux does kill a stopped
/// process, but continuing it first means no frozen process can outlive the
/// test even where that is not the case.
fn stop(state: &mut State) -> io::Result<()> {
    if let Some(mut dog) = state.watchdog.take() {
        let _ = dog.kill();
        let _ = dog.wait();
    }
    let Some(mut child) = state.child.take() else {
        return Ok(());
    };
    if state.paused {
        let _ = sys::send_signal(child.id(), "CONT");
        state.paused = false;
    }
    // `kill` fails only if the child was already reaped; `wait` still works.
    let _ = child.kill();
    child.wait().map(drop)
}

/// A shell that waits for this test process to end, then kills `server`.
fn watchdog(server: u32) -> io::Result<Child> {
    let script = r#"while kill -0 "$1" 2>/dev/null; do sleep 0.2; done; kill -s CONT "$2" 2>/dev/null; kill -s KILL "$2" 2>/dev/null"#;
    Command::new("sh")
        .args(["-c", script, "zlink-testkit-watchdog"])
        .arg(std::process::id().to_string())
        .arg(server.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so any
/// password fits in the userinfo part of a URL.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The port-race path: a server whose port is taken fails with
    /// `AddrInUse` (so `launch` retries) and quotes its log.
    #[test]
    fn taken_port_is_addr_in_use_with_the_log_tail() {
        let squatter = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let server = RedisServer {
            port: squatter.local_addr().unwrap().port(),
            password: None,
            dir: sys::unique_temp_dir().unwrap(),
            server_bin: sys::find_program("redis-server").unwrap(),
            role: Role::Plain,
            tls_port: None,
            state: Mutex::new(State {
                child: None,
                paused: false,
                watchdog: None,
            }),
        };
        let err = server.boot(&mut server.lock()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse, "{err}");
        assert!(err.to_string().contains("redis.log"), "{err}");
        assert!(err.to_string().contains("Address already in use"), "{err}");
        let dir = server.dir.clone();
        drop(server);
        assert!(!dir.exists());
    }

    #[test]
    fn url_password_is_percent_encoded() {
        assert_eq!(percent_encode("s3cret"), "s3cret");
        assert_eq!(percent_encode("a b@c:d/é"), "a%20b%40c%3Ad%2F%C3%A9");
    }
}
