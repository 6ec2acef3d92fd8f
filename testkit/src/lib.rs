//! Dev-only test kit: starts and controls **real** `redis-server` processes.
//!
//! zlink's Location Store is tested against real Redis and Redis Cluster, never
//! a mock (DESIGN §7). This crate gives tests servers they own:
//!
//! - every server listens on `127.0.0.1` on a port this crate picked, so a test
//!   never touches a server it did not start (including a packaged default
//!   server on 6379, if the distribution started one);
//! - every server has its own temporary directory (log, `nodes.conf`), removed
//!   when the handle is dropped;
//! - faults are real: [`RedisServer::pause`] freezes the process with SIGSTOP,
//!   [`RedisServer::kill`] sends SIGKILL, [`RedisServer::restart`] brings it
//!   back on the same port.
//!
//! `redis-server` and `redis-cli` must be on `PATH`; `make deps` installs them.
//!
//! ```no_run
//! use zlink_testkit::RedisServer;
//!
//! let redis = RedisServer::start()?;
//! assert_eq!(redis.cli(&["ping"])?.trim(), "PONG");
//! redis.pause()?; // the store should now time out, not hang
//! redis.resume()?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod cluster;
mod failover;
mod sentinel;
mod server;
mod sys;

pub use cluster::RedisCluster;
pub use failover::{Deployment, FailoverDrill};
pub use sentinel::RedisSentinels;
pub use server::{RedisServer, SENTINEL_MASTER};
