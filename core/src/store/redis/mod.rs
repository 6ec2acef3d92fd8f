//! The Location Store on Redis or Redis Cluster (DESIGN §5.2–§5.3; key
//! layout in `docs/location-store.md`).
//!
//! One hash per object; every write is a Lua compare-and-set on that one
//! key, so it is atomic and runs on one cluster slot. Every answer carries
//! the server's `TIME`, so lease deadlines are computed on the store's
//! clock. The store's connection (a multiplexed connection that reconnects
//! by itself) and the watcher of the server's run id (a restart or failover
//! changes the reported epoch) run on a small I/O runtime of the store's
//! own ([`RedisStore::open`]), or on the host's runtime that connected it
//! ([`RedisStore::connect`]).

mod connection;
mod scripts;
mod thread_reads;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::Script;

use self::connection::{Conn, Target};
use self::scripts::{Claimed, RawReply, Reply, Scripts, decode};
use self::thread_reads::ThreadReads;
use super::{LocationStore, Observed, StoreError, StoreFuture, WriteError, WriteFuture};
use crate::authority::{AuthorityRecord, OwnerClaim, StoreEpoch, StoreTime, WriteFence};
use crate::ids::{KeyRef, OwnerLeaseGeneration, ProposalId};
use crate::peer::{Endpoint, PeerDescriptor};

/// Longest lease a store accepts, in ms (about 34 years): keeps `now + lease`
/// exact in Lua's doubles.
const MAX_LEASE_MILLIS: u64 = 1 << 40;

/// Where a store's connection, its watcher and its calls run.
enum Io {
    /// A runtime of the store's own, one I/O thread ([`RedisStore::open`]):
    /// stopped with the store.
    Own(tokio::runtime::Runtime),
    /// The host's runtime that connected the store
    /// ([`RedisStore::connect`]): the store's tasks there end with it.
    Host(tokio::runtime::Handle),
}

impl Io {
    fn handle(&self) -> &tokio::runtime::Handle {
        match self {
            Io::Own(rt) => rt.handle(),
            Io::Host(handle) => handle,
        }
    }
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
    /// How often the server's run id is checked for a restart or failover.
    /// Default 1 s.
    pub epoch_check_interval: Duration,
    /// How long a released object's tombstone (its last version and
    /// proposal) is kept before the key expires. Default
    /// [`DEFAULT_TOMBSTONE_RETENTION`](crate::store::DEFAULT_TOMBSTONE_RETENTION).
    pub tombstone_retention: Duration,
    /// How many host threads may keep a connection of their own for the
    /// reads of a blocking `resolve` (one server only; see
    /// docs/location-store.md, "Connection"). Past it, a blocked thread
    /// reads through the shared connection. A connection is given back
    /// when its thread ends. Default 64; 0: none.
    pub thread_connections: usize,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            prefix: "zlink".to_owned(),
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(2),
            epoch_check_interval: Duration::from_secs(1),
            tombstone_retention: super::DEFAULT_TOMBSTONE_RETENTION,
            thread_connections: 64,
        }
    }
}

/// The longest tombstone retention a Redis store applies, in ms (a year).
const MAX_RETENTION_MS: u64 = 365 * 24 * 3600 * 1000;

/// A Location Store on Redis (`redis://`, `rediss://` for TLS, user and
/// password for ACL) or on a Redis Cluster (`redis+cluster://` or
/// `rediss+cluster://` with comma-separated seed nodes).
pub struct RedisStore {
    conn: Conn,
    scripts: Arc<Scripts>,
    prefix: String,
    epoch: Arc<AtomicU64>,
    /// The client's response timeout: what a `Timeout` reports.
    response_timeout: Duration,
    /// Milliseconds a tombstone is kept (at least 1).
    retention_ms: u64,
    /// Reads on a blocked caller's own thread (one server only).
    thread_reads: Option<ThreadReads>,
    /// The epoch watcher's task, stopped with the store.
    watcher: tokio::task::AbortHandle,
    /// Where the store's I/O runs (a call awaited there runs inline);
    /// `None` only while starting, or dropped.
    io: Option<Io>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("cluster", &self.conn.is_cluster())
            .finish()
    }
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        // On a host's runtime the connection's own task ends once the last
        // call holding it does; the watcher would run on without this.
        self.watcher.abort();
        if let Some(Io::Own(io)) = self.io.take() {
            io.shutdown_background();
        }
    }
}

impl RedisStore {
    /// Connects with default options.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, RedisOptions::default())
    }

    /// Connects to `url`; fails if the server cannot be reached within
    /// `connect_timeout`. Blocking: call it outside any async runtime. The
    /// store runs its I/O on one thread of its own.
    pub fn open_with(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let target = checked(url, &options)?;
        let io = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("zlink-redis")
            .enable_all()
            .build()
            .map_err(|e| {
                StoreError::Unreachable(format!("cannot start the store's I/O thread: {e}").into())
            })?;
        let mut store = io.block_on(Self::start(target, options))?;
        store.io = Some(Io::Own(io));
        Ok(store)
    }

    /// Connects to `url` on the tokio runtime that awaits this: the store's
    /// connection, its watcher and its calls run there, not on a thread of
    /// the store's own. For Rust hosts whose tasks resolve on that runtime:
    /// their `resolve_async` then runs inline, with no hop to another
    /// thread and back (at 16 and 64 concurrent callers, about 1.2–1.5×
    /// the resolves per second of a store on its own thread; `make bench`).
    ///
    /// The runtime needs I/O and time enabled (`enable_all`), and must keep
    /// running while the store is used. A multi-thread runtime always does
    /// (a blocking call of a runtime on this store, made on one of its
    /// workers, hands that worker's other tasks to another thread while it
    /// waits). A current-thread one runs the store's work only inside its
    /// `block_on`: use such a store only from there, and only through async
    /// calls (a blocking call made there waits out `store_timeout`). Once
    /// the runtime shuts down, the store's calls fail (`Unreachable`).
    /// Dropping the store ends its tasks on the runtime. Awaited outside a
    /// tokio runtime, it fails (`Config`).
    pub async fn connect(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let host = tokio::runtime::Handle::try_current().map_err(|_| {
            StoreError::Config("RedisStore::connect must be awaited on a tokio runtime".into())
        })?;
        let target = checked(url, &options)?;
        let mut store = Self::start(target, options).await?;
        store.io = Some(Io::Host(host));
        Ok(store)
    }

    /// Connects, reads the servers' identity and starts the epoch watcher,
    /// on the runtime polling this; the caller then sets `io` to it.
    async fn start(target: Target, options: RedisOptions) -> Result<Self, StoreError> {
        let conn = Conn::connect(&target, &options).await?;
        let first = conn.clone().run_ids(options.response_timeout).await?;
        let epoch = Arc::new(AtomicU64::new(first.epoch));
        let servers = Arc::new(AtomicU64::new(first.servers));
        let thread_reads = match &target {
            Target::Single(url) => Some(
                ThreadReads::new(url, &options, servers.clone())
                    .map_err(|e| connection::store_error(e, options.connect_timeout))?,
            ),
            Target::Cluster(_) => None,
        };
        // Last: nothing fails after it, so no watcher outlives a failed start.
        let watcher = tokio::spawn(watch_epoch(
            conn.clone(),
            Watched {
                epoch: epoch.clone(),
                servers,
            },
            options.epoch_check_interval,
            options.response_timeout,
        ))
        .abort_handle();
        Ok(RedisStore {
            conn,
            thread_reads,
            scripts: Arc::new(Scripts::new()),
            prefix: options.prefix,
            epoch,
            response_timeout: options.response_timeout,
            // PEXPIRE refuses an expiry past what the server can add to its
            // clock: a year is more than any retention needs.
            retention_ms: u64::try_from(options.tombstone_retention.as_millis())
                .unwrap_or(u64::MAX)
                .clamp(1, MAX_RETENTION_MS),
            watcher,
            io: None,
        })
    }

    /// The Redis key of an object: `{prefix}:{kind:id}`. The braces make
    /// `kind:id` the hash tag, so an object's key has one slot.
    pub fn key_of(&self, key: KeyRef<'_>) -> String {
        format!("{}:{{{}:{}}}", self.prefix, key.kind.as_str(), key.id)
    }

    /// The Redis key of an endpoint's peer descriptor: `{prefix}:{peer:endpoint}`.
    pub fn descriptor_key(&self, endpoint: &Endpoint) -> String {
        format!("{}:{{peer:{}}}", self.prefix, endpoint.as_str())
    }

    fn observed<T>(&self, value: T, store_time: StoreTime) -> Observed<T> {
        Observed {
            value,
            store_time,
            epoch: StoreEpoch(self.epoch.load(Ordering::Relaxed)),
        }
    }

    /// Runs `script` on the object's key with `args` (see [`on_io`]).
    ///
    /// [`on_io`]: Self::on_io
    fn invoke(
        &self,
        script: fn(&Scripts) -> &Script,
        redis_key: String,
        args: Vec<String>,
        claimed: Claimed,
    ) -> impl Future<Output = Result<Reply, StoreError>> + Send + 'static {
        let scripts = self.scripts.clone();
        self.on_io(claimed, move |mut conn| async move {
            let mut call = script(&scripts).key(redis_key);
            for arg in args {
                call.arg(arg);
            }
            call.invoke_async::<RawReply>(&mut conn).await
        })
    }

    /// Reads the record with a plain `HMGET` and the server's `TIME` in one
    /// pipeline, answered in the scripts' shape: a script costs the server
    /// several times a plain command (measured here with redis-benchmark at
    /// 16 clients: 93k EVALSHA/s of the read script against 163k HMGET/s),
    /// and a read needs no atomicity beyond its one command. `TIME` runs
    /// after the read, so the store time is never earlier than the record
    /// it dates (a lease looks, if anything, nearer its end). In a cluster
    /// the pipeline goes to the key's node (`TIME` has no key).
    fn read_plain(
        &self,
        redis_key: String,
    ) -> impl Future<Output = Result<Reply, StoreError>> + Send + 'static {
        self.on_io(Claimed::default(), move |mut conn| async move {
            let answer = read_pipe(&redis_key).query_async(&mut conn).await?;
            Ok(plain_reply(answer))
        })
    }

    /// A read's answer as the store's callers take it.
    fn read_answer(&self, reply: Reply) -> Result<Observed<Option<AuthorityRecord>>, StoreError> {
        match reply {
            Reply::Record(record, now) => Ok(self.observed(Some(record), now)),
            Reply::Absent(now) => Ok(self.observed(None, now)),
            other => Err(unexpected(&other)),
        }
    }

    /// Runs a call on the store's own I/O runtime: a reconnection is driven
    /// by whoever awaits the call, and it must happen on the runtime that
    /// owns the connection (a caller's runtime may lack I/O, or be dropped
    /// while others still use the store). Already on it (a runtime using
    /// [`executor`]), it runs inline.
    ///
    /// [`executor`]: LocationStore::executor
    fn on_io<F, Fut>(
        &self,
        claimed: Claimed,
        call: F,
    ) -> impl Future<Output = Result<Reply, StoreError>> + Send + 'static
    where
        F: FnOnce(Conn) -> Fut,
        Fut: Future<Output = redis::RedisResult<RawReply>> + Send + 'static,
    {
        let call = call(self.conn.clone());
        let io = self
            .io
            .as_ref()
            .expect("the I/O runtime is only taken by Drop")
            .handle()
            .clone();
        let limit = self.response_timeout;
        async move {
            let raw = if super::runs_on(&io) {
                call.await
            } else {
                io.spawn(call)
                    .await
                    .map_err(|e| StoreError::Unreachable(format!("store task ended: {e}").into()))?
            };
            decode(
                &raw.map_err(|e| connection::store_error(e, limit))?,
                claimed,
            )
        }
    }

    fn write_record(
        &self,
        script: fn(&Scripts) -> &Script,
        key: KeyRef<'_>,
        args: Vec<String>,
        claimed: Claimed,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let call = self.invoke(script, self.key_of(key), args, claimed);
        Box::pin(async move {
            match call.await? {
                Reply::Record(record, now) => Ok(self.observed(record, now)),
                Reply::Refused(r) => Err(WriteError::Rejected(r)),
                other => Err(unexpected(&other).into()),
            }
        })
    }
}

/// `url`'s target, once `options` are found usable.
fn checked(url: &str, options: &RedisOptions) -> Result<Target, StoreError> {
    if options.prefix.is_empty() || options.prefix.contains(['{', '}']) {
        return Err(StoreError::Config(
            format!(
                "key prefix {:?} must be non-empty and without braces",
                options.prefix
            )
            .into(),
        ));
    }
    if options.connect_timeout.is_zero() || options.response_timeout.is_zero() {
        // A zero wait fails every connect or command at once (a socket
        // takes zero as "no timeout" at all).
        return Err(StoreError::Config(
            "connect_timeout and response_timeout must be more than 0".into(),
        ));
    }
    if options.epoch_check_interval.is_zero() {
        // A zero period would make the epoch watcher spin (tokio's
        // interval refuses it outright).
        return Err(StoreError::Config(
            "epoch_check_interval must be more than 0".into(),
        ));
    }
    Target::parse(url)
}

fn unexpected(reply: &Reply) -> StoreError {
    StoreError::Protocol(format!("unexpected script answer {reply:?}").into())
}

fn fence_args(f: WriteFence) -> [String; 2] {
    [
        f.object_generation.get().to_string(),
        f.authority_owner_generation.get().to_string(),
    ]
}

fn claim_args(c: &OwnerClaim) -> [String; 5] {
    [
        c.mesh.as_str().to_owned(),
        c.node.get().to_string(),
        c.node_generation.get().to_string(),
        c.lease_generation.get().to_string(),
        c.lease_millis.min(MAX_LEASE_MILLIS).to_string(),
    ]
}

fn fenced(f: WriteFence) -> Claimed {
    Claimed {
        fence: Some(f),
        lease: None,
    }
}

/// The read pipeline of [`RedisStore::read_plain`]: the record's fields,
/// then the server's `TIME`.
fn read_pipe(redis_key: &str) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    pipe.cmd("HMGET").arg(redis_key).arg(&scripts::FIELDS[..]);
    pipe.cmd("TIME");
    pipe
}

/// The read pipeline's answer in the scripts' shape (`ok`, the fields, the
/// time in ms; or `none` and the time).
fn plain_reply((mut fields, (secs, micros)): (RawReply, (u64, u64))) -> RawReply {
    let now = Some((secs * 1000 + micros / 1000).to_string());
    match fields.first() {
        Some(Some(_)) => {
            fields.insert(0, Some("ok".to_owned()));
            fields.push(now);
            fields
        }
        _ => vec![Some("none".to_owned()), now],
    }
}

/// What the epoch watcher keeps up to date.
struct Watched {
    /// The store's epoch, which every answer reports.
    epoch: Arc<AtomicU64>,
    /// The servers' run ids, hashed: what a thread's new read connection
    /// checks its server against ([`ThreadReads`]).
    servers: Arc<AtomicU64>,
}

/// Re-reads the server's run id(s) every `every`; a change is a new epoch.
async fn watch_epoch(conn: Conn, watched: Watched, every: Duration, limit: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        // An unreachable server is seen by the calls themselves; keep the
        // last epoch until the run id can be read again.
        if let Ok(now) = conn.clone().run_ids(limit).await {
            watched.servers.store(now.servers, Ordering::Relaxed);
            watched.epoch.store(now.epoch, Ordering::Relaxed);
        }
    }
}

impl LocationStore for RedisStore {
    fn read(&self, key: KeyRef<'_>) -> StoreFuture<'_, Observed<Option<AuthorityRecord>>> {
        let call = self.read_plain(self.key_of(key));
        Box::pin(async move { self.read_answer(call.await?) })
    }

    fn read_blocking(
        &self,
        key: KeyRef<'_>,
        limit: Duration,
    ) -> Option<Result<Observed<Option<AuthorityRecord>>, StoreError>> {
        let reads = self.thread_reads.as_ref()?;
        // What bounds a command on the shared connection bounds it here.
        let limit = limit.min(self.response_timeout);
        let answer = reads.query(&read_pipe(&self.key_of(key)), limit)?;
        Some(
            answer
                .and_then(|raw| decode(&plain_reply(raw), Claimed::default()))
                .and_then(|reply| self.read_answer(reply)),
        )
    }

    fn create(
        &self,
        key: KeyRef<'_>,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let mut args = claim_args(&claim).to_vec();
        args.push(proposal.get().to_string());
        self.write_record(|s| &s.create, key, args, Claimed::default())
    }

    fn publish_ready(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let mut args = fence_args(expect).to_vec();
        args.push(proposal.get().to_string());
        self.write_record(|s| &s.publish_ready, key, args, fenced(expect))
    }

    fn transfer_owner(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        claim: OwnerClaim,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let mut args = fence_args(expect).to_vec();
        args.extend(claim_args(&claim));
        args.push(proposal.get().to_string());
        self.write_record(|s| &s.transfer_owner, key, args, fenced(expect))
    }

    fn renew_lease(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        lease: OwnerLeaseGeneration,
        lease_millis: u64,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let mut args = fence_args(expect).to_vec();
        args.push(lease.get().to_string());
        args.push(lease_millis.min(MAX_LEASE_MILLIS).to_string());
        args.push(proposal.get().to_string());
        let claimed = Claimed {
            fence: Some(expect),
            lease: Some(lease),
        };
        self.write_record(|s| &s.renew_lease, key, args, claimed)
    }

    fn begin_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let mut args = fence_args(expect).to_vec();
        args.push(proposal.get().to_string());
        self.write_record(|s| &s.begin_release, key, args, fenced(expect))
    }

    fn executor(&self) -> Option<tokio::runtime::Handle> {
        self.io.as_ref().map(|io| io.handle().clone())
    }

    fn put_descriptor(&self, d: &PeerDescriptor) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        let args = vec![
            d.endpoint.as_str().to_owned(),
            d.rid.get().to_string(),
            d.lifecycle_generation.get().to_string(),
            d.security_identity.clone(),
        ];
        let call = self.invoke(
            |s| &s.put_descriptor,
            self.descriptor_key(&d.endpoint),
            args,
            Claimed::default(),
        );
        Box::pin(async move {
            match call.await? {
                Reply::Descriptor(stored, now) => Ok(self.observed(stored, now)),
                Reply::Refused(r) => Err(WriteError::Rejected(r)),
                other => Err(unexpected(&other).into()),
            }
        })
    }

    fn read_descriptor(
        &self,
        endpoint: &Endpoint,
    ) -> StoreFuture<'_, Observed<Option<PeerDescriptor>>> {
        let call = self.invoke(
            |s| &s.read_descriptor,
            self.descriptor_key(endpoint),
            Vec::new(),
            Claimed::default(),
        );
        Box::pin(async move {
            match call.await? {
                Reply::Descriptor(found, now) => Ok(self.observed(Some(found), now)),
                Reply::Absent(now) => Ok(self.observed(None, now)),
                other => Err(unexpected(&other)),
            }
        })
    }

    fn complete_release(
        &self,
        key: KeyRef<'_>,
        expect: WriteFence,
        proposal: ProposalId,
    ) -> WriteFuture<'_, Observed<()>> {
        let mut args = fence_args(expect).to_vec();
        args.push(proposal.get().to_string());
        args.push(self.retention_ms.to_string());
        let call = self.invoke(
            |s| &s.complete_release,
            self.key_of(key),
            args,
            fenced(expect),
        );
        Box::pin(async move {
            match call.await? {
                Reply::Released(now) => Ok(self.observed((), now)),
                Reply::Refused(r) => Err(WriteError::Rejected(r)),
                other => Err(unexpected(&other).into()),
            }
        })
    }
}
