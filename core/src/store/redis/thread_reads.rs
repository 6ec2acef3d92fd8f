//! Reads on the caller's own thread, for callers blocked on the answer (a
//! host thread in the blocking `resolve`): each such thread keeps its own
//! plain connection to the server and does the round trip itself. Through
//! the store's I/O thread the same read costs two thread wake-ups (there and
//! back), and one I/O thread serving dozens of blocked threads becomes the
//! bottleneck (measured: 64 threads got 0.4× `redis-benchmark` that way; a
//! connection per thread reaches 0.85×).
//!
//! One server only: a cluster's reads go through the shared connection,
//! which follows slot moves.

use std::cell::RefCell;
use std::sync::{Arc, Weak};
use std::time::Duration;

use redis::{FromRedisValue, Pipeline, RedisResult};

/// How many stores' connections one thread keeps; past it the oldest goes.
/// A process has one store or a few.
const MAX_PER_THREAD: usize = 4;

/// A store's side: how to connect, and a token whose address names the
/// store in every thread's list (held weakly there, so a thread sees when
/// the store is gone and closes its connection to it).
pub(super) struct ThreadReads {
    client: redis::Client,
    connect_timeout: Duration,
    token: Arc<()>,
}

/// One thread's connection to one store.
struct Held {
    store: Weak<()>,
    conn: redis::Connection,
    /// The socket timeouts last set, so an unchanged limit costs no syscall.
    limit: Duration,
}

thread_local! {
    static HELD: RefCell<Vec<Held>> = const { RefCell::new(Vec::new()) };
}

impl ThreadReads {
    pub(super) fn new(url: &str, connect_timeout: Duration) -> RedisResult<Self> {
        Ok(ThreadReads {
            client: redis::Client::open(url)?,
            connect_timeout,
            token: Arc::new(()),
        })
    }

    /// Runs `pipe` (a read: safe to send twice) on this thread's connection
    /// to the store, each socket wait bounded by `limit`. A connection kept
    /// from an earlier call that fails is replaced and the read sent once
    /// more, so a server that dropped idle connections costs no failure
    /// (a timeout is not retried).
    /// `None` when this thread is exiting (its list is gone).
    pub(super) fn query<T: FromRedisValue>(
        &self,
        pipe: &Pipeline,
        limit: Duration,
    ) -> Option<RedisResult<T>> {
        HELD.try_with(|held| {
            let mut held = held.borrow_mut();
            let kept = self.position(&held);
            if let Some(i) = kept {
                match run(&mut held[i], pipe, limit) {
                    Ok(answer) => return Ok(answer),
                    Err(e) => {
                        // Its state is unknown (a reply may still come): it
                        // goes. A slow server is not asked again (that
                        // would double the wait); a broken link is.
                        held.remove(i);
                        if e.is_timeout() {
                            return Err(e);
                        }
                    }
                }
            }
            let mut fresh = Held {
                store: Arc::downgrade(&self.token),
                conn: self
                    .client
                    .get_connection_with_timeout(self.connect_timeout.min(limit))?,
                limit: Duration::ZERO,
            };
            let answer = run(&mut fresh, pipe, limit)?;
            keep(&mut held, fresh);
            Ok(answer)
        })
        .ok()
    }

    fn position(&self, held: &[Held]) -> Option<usize> {
        // A live `Weak` keeps its allocation, so no other store's token can
        // have this address while the entry exists.
        held.iter()
            .position(|h| std::ptr::eq(h.store.as_ptr(), Arc::as_ptr(&self.token)))
    }
}

/// Adds a working connection to the thread's list, first dropping those of
/// stores that are gone and, when full, the oldest.
fn keep(held: &mut Vec<Held>, fresh: Held) {
    held.retain(|h| h.store.strong_count() > 0);
    if held.len() >= MAX_PER_THREAD {
        held.remove(0);
    }
    held.push(fresh);
}

fn run<T: FromRedisValue>(held: &mut Held, pipe: &Pipeline, limit: Duration) -> RedisResult<T> {
    // A zero timeout means "none" to the socket: at least a millisecond.
    let limit = limit.max(Duration::from_millis(1));
    if held.limit != limit {
        held.conn.set_read_timeout(Some(limit))?;
        held.conn.set_write_timeout(Some(limit))?;
        held.limit = limit;
    }
    pipe.query(&mut held.conn)
}
