//! Reads on the caller's own thread, for callers blocked on the answer (a
//! host thread in the blocking `resolve`): each such thread keeps its own
//! plain connection to the server and does the round trip itself. Through
//! the store's I/O thread the same read costs two thread wake-ups (there and
//! back), and one I/O thread serving dozens of blocked threads becomes the
//! bottleneck (the figures are in docs/performance.md, "Threads that block
//! in `resolve`").
//!
//! What a read on the shared connection reports, a read here reports too:
//! a lost connection is an `Unreachable` failure (never retried unseen, so
//! the next answer is a store recovery event), and a new connection whose
//! server is not the one the epoch watcher last saw (a restart it has not
//! noticed yet) fails its first read the same way. One deadline bounds a
//! whole read, connecting included.
//!
//! At most `RedisOptions::thread_connections` threads of a store hold one
//! at a time; other threads' reads go through the shared connection, as
//! they would without this (a thread-per-request host would otherwise open
//! one connection per thread).
//!
//! One server only: a cluster's reads go through the shared connection,
//! which follows slot moves.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use redis::{FromRedisValue, IntoConnectionInfo, Pipeline, RedisResult, Value};

use super::RedisOptions;
use super::connection::{servers_of, store_error};
use zlink_core::store::StoreError;

/// How many stores' connections one thread keeps; past it the oldest goes.
/// A process has one store or a few.
const MAX_PER_THREAD: usize = 4;

/// A store's side: how to connect, the run ids its epoch watcher last saw,
/// and a token whose address names the store in every thread's list (held
/// weakly there, so a thread sees when the store is gone and closes its
/// connection to it).
pub(super) struct ThreadReads {
    client: redis::Client,
    connect_timeout: Duration,
    servers: Arc<AtomicU64>,
    token: Arc<()>,
    /// How many threads may hold a connection at once.
    seats: usize,
    /// How many do, in which process: the pid in the high half, the count
    /// in the low one. A child made by `fork` inherits its parent's count,
    /// but not the threads that would give those seats back: its first
    /// seat starts the count anew.
    taken: Arc<AtomicU64>,
}

/// One of a store's `thread_connections`, given back when dropped (in the
/// process that took it).
struct Seat {
    taken: Arc<AtomicU64>,
    pid: u32,
}

impl Drop for Seat {
    fn drop(&mut self) {
        let _ = self
            .taken
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |word| {
                let (pid, n) = unpack(word);
                (pid == self.pid && n > 0).then(|| pack(pid, n - 1))
            });
    }
}

fn pack(pid: u32, n: u32) -> u64 {
    (u64::from(pid) << 32) | u64::from(n)
}

fn unpack(word: u64) -> (u32, u32) {
    ((word >> 32) as u32, word as u32)
}

/// One thread's connection to one store.
struct Held {
    store: Weak<()>,
    conn: redis::Connection,
    /// Its seat, taken by the process that connected (`seat.pid`): a child
    /// made by `fork` inherits the thread's list, but the socket is its
    /// parent's.
    seat: Seat,
    /// The socket timeout last set, so an unchanged one costs no syscall.
    timeout: Option<Duration>,
}

thread_local! {
    static HELD: RefCell<Vec<Held>> = const { RefCell::new(Vec::new()) };
}

impl ThreadReads {
    pub(super) fn new(
        url: &str,
        options: &RedisOptions,
        servers: Arc<AtomicU64>,
    ) -> RedisResult<Self> {
        // No `CLIENT SETINFO` round trips when connecting: fewer waits
        // before the read, all under the read's deadline anyway.
        let info = url.into_connection_info()?;
        let settings = info.redis_settings().clone().set_skip_set_lib_name();
        Ok(ThreadReads {
            client: redis::Client::open(info.set_redis_settings(settings))?,
            connect_timeout: options.connect_timeout,
            servers,
            token: Arc::new(()),
            seats: options.thread_connections,
            taken: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Sends `pipe` (a read) on this thread's connection to the store and
    /// reads its answer, all within `limit`. `None` when this thread has no
    /// connection and may not open one (every seat is taken), or is exiting
    /// (its list is gone): the caller reads another way.
    pub(super) fn query<T: FromRedisValue>(
        &self,
        pipe: &Pipeline,
        limit: Duration,
    ) -> Option<Result<T, StoreError>> {
        let deadline = Instant::now() + limit;
        let fail = |e| store_error(e, limit);
        HELD.try_with(|held| {
            let mut held = held.borrow_mut();
            let pid = std::process::id();
            // The parent's sockets are only closed here (no shutdown).
            held.retain(|h| h.seat.pid == pid);
            let i = match self.position(&held) {
                Some(i) => i,
                None => {
                    // Those of stores that are gone give their seats back.
                    held.retain(|h| h.store.strong_count() > 0);
                    let seat = self.seat(pid)?;
                    let fresh = match self.connect(deadline, seat) {
                        Ok(fresh) => fresh,
                        Err(e) => return Some(Err(fail(e))),
                    };
                    let i = keep(&mut held, fresh);
                    match self.same_server(&mut held[i], deadline) {
                        Ok(true) => i,
                        // Kept: the failure is reported once.
                        Ok(false) => return Some(Err(restarted())),
                        Err(e) => {
                            held.remove(i);
                            return Some(Err(fail(e)));
                        }
                    }
                }
            };
            let packed = pipe.get_packed_pipeline();
            Some(
                match exchange(&mut held[i], &packed, pipe.len(), deadline) {
                    Ok(values) => T::from_redis_value(Value::Array(values))
                        .map_err(|e| StoreError::Protocol(e.to_string().into())),
                    Err(e) => {
                        // A reply may still come on it: it goes. The next read
                        // connects anew, this one fails as on the shared link.
                        held.remove(i);
                        Err(fail(e))
                    }
                },
            )
        })
        .ok()
        .flatten()
    }

    /// One of the store's seats for a thread of process `pid`, if one is
    /// free.
    fn seat(&self, pid: u32) -> Option<Seat> {
        let seats = u32::try_from(self.seats).unwrap_or(u32::MAX);
        self.taken
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |word| {
                let (owner, n) = unpack(word);
                let n = if owner == pid { n } else { 0 };
                (n < seats).then(|| pack(pid, n + 1))
            })
            .ok()
            .map(|_| Seat {
                taken: self.taken.clone(),
                pid,
            })
    }

    fn position(&self, held: &[Held]) -> Option<usize> {
        // A live `Weak` keeps its allocation, so no other store's token can
        // have this address while the entry exists.
        held.iter()
            .position(|h| std::ptr::eq(h.store.as_ptr(), Arc::as_ptr(&self.token)))
    }

    fn connect(&self, deadline: Instant, seat: Seat) -> RedisResult<Held> {
        let left = remaining(deadline)?;
        Ok(Held {
            store: Arc::downgrade(&self.token),
            conn: self
                .client
                .get_connection_with_timeout(self.connect_timeout.min(left))?,
            seat,
            timeout: None,
        })
    }

    /// Whether a new connection's server is the one the epoch watcher
    /// last saw. If it restarted unnoticed, the read fails as on a lost
    /// connection (once: the connection stays), so the next answer clears
    /// the route cache instead of mixing it with the new server's records.
    fn same_server(&self, held: &mut Held, deadline: Instant) -> RedisResult<bool> {
        let info = redis::cmd("INFO").arg("server").get_packed_command();
        let answer = exchange(held, &info, 1, deadline)?
            .pop()
            .unwrap_or(Value::Nil);
        let text = String::from_redis_value(answer)?;
        Ok(match servers_of(&text) {
            Ok(servers) => servers == self.servers.load(Ordering::Relaxed),
            // A text without a run id (a proxy) names no server.
            Err(_) => true,
        })
    }
}

fn restarted() -> StoreError {
    StoreError::Unreachable(
        "the server's run id changed (a restart or failover): its next answer is a store recovery"
            .into(),
    )
}

/// Adds a connection to the thread's list, first dropping, when full, the
/// oldest; returns its index.
fn keep(held: &mut Vec<Held>, fresh: Held) -> usize {
    if held.len() >= MAX_PER_THREAD {
        held.remove(0);
    }
    held.push(fresh);
    held.len() - 1
}

/// Sends `packed` and reads `replies` answers, each socket wait bounded by
/// what is left until `deadline`. A server's error reply is an answer (the
/// connection stays in step); only I/O errors and timeouts are errors.
fn exchange(
    held: &mut Held,
    packed: &[u8],
    replies: usize,
    deadline: Instant,
) -> RedisResult<Vec<Value>> {
    set_timeout(held, remaining(deadline)?, false)?;
    held.conn.send_packed_command(packed)?;
    let mut values = Vec::with_capacity(replies);
    for _ in 0..replies {
        set_timeout(held, remaining(deadline)?, true)?;
        values.push(held.conn.recv_response()?);
    }
    Ok(values)
}

/// Sets the socket timeouts to `left`, in whole milliseconds rounded up,
/// when they differ: a read with the same limit as the last one sets
/// nothing. Within a read (`tighten`) the timeout is lowered only once
/// steps took a tenth of it, so a read under load costs no syscalls for
/// it, and a read ends at most a tenth of its limit past its deadline.
fn set_timeout(held: &mut Held, left: Duration, tighten: bool) -> RedisResult<()> {
    let timeout = Duration::from_millis(u64::try_from(left.as_millis()).unwrap_or(u64::MAX) + 1);
    let change = match held.timeout {
        Some(now) if tighten => timeout + now / 10 < now,
        Some(now) => timeout != now,
        None => true,
    };
    if change {
        held.conn.set_read_timeout(Some(timeout))?;
        held.conn.set_write_timeout(Some(timeout))?;
        held.timeout = Some(timeout);
    }
    Ok(())
}

/// Time left until `deadline`, or a timeout error when none is.
fn remaining(deadline: Instant) -> RedisResult<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(std::io::Error::from(std::io::ErrorKind::TimedOut).into());
    }
    Ok(left)
}
