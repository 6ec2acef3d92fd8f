//! zlink-redis: the Location Store on Redis, Redis Cluster or the primary
//! Redis Sentinel names (DESIGN §5.2–§5.3; key layout and failover in
//! `docs/location-store.md`), apart from `zlink-core` as quinn stands apart
//! from quinn-proto: the core holds the `LocationStore` trait, the embedded
//! store and every routing rule, and builds without redis or rustls; a host
//! that wants Redis adds this crate and hands `zlink_core` a `RedisStore`.
//!
//! One hash per object; every write is a Lua compare-and-set on that one
//! key, so it is atomic and runs on one cluster slot, and is answered once
//! the replicas `write_acks` names have it (`WAIT`, `durability`). Every
//! answer carries the server's `TIME`, so lease deadlines are computed on
//! the store's clock. The store's connections (a shared multiplexed one for
//! reads, writer ones for authority writes; each reconnects by itself) and
//! the watcher of the server's run id (a restart or failover changes the
//! reported epoch; under Sentinel it also follows the primary) run on a
//! small I/O runtime of the store's own ([`RedisStore::open`]), or on the
//! host's runtime that connected it ([`RedisStore::connect`]).

mod connection;
mod durability;
mod options;
mod scripts;
mod sentinel;
mod thread_reads;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::Script;

use self::connection::{Conn, Link, Target};
use self::durability::Durability;
use self::options::checked;
pub use self::options::{RedisOptions, WriteAcks};
use self::scripts::{Claimed, RawReply, Reply, Scripts, decode};
use self::thread_reads::ThreadReads;
use zlink_core::store::{
    LocationStore, Observed, StoreError, StoreFuture, WriteError, WriteFuture, runs_on,
};
use zlink_core::{AuthorityRecord, OwnerClaim, StoreEpoch, StoreTime, WriteFence};
use zlink_core::{Endpoint, PeerDescriptor};
use zlink_core::{KeyRef, OwnerLeaseGeneration, ProposalId};

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

/// The longest tombstone retention a Redis store applies, in ms (a year).
const MAX_RETENTION_MS: u64 = 365 * 24 * 3600 * 1000;

/// A Location Store on Redis (`redis://`, `rediss://` for TLS, user and
/// password for ACL), on a Redis Cluster (`redis+cluster://` or
/// `rediss+cluster://` with comma-separated seed nodes) or on the primary
/// Redis Sentinel names (`redis+sentinel://s1:p1,s2:p2/master-name`, or
/// `rediss+sentinel://`; credentials, if any, are the primary's).
///
/// Authority writes are durable as [`RedisOptions::write_acks`] says:
/// each is answered only once the replicas acknowledged it (`WAIT`).
pub struct RedisStore {
    link: Arc<Link>,
    durability: Arc<Durability>,
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
            .field("cluster", &self.link.conns().shared.is_cluster())
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
    /// thread and back (docs/performance.md has the figures).
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

    /// Connects, reads the servers' identity and replicas and starts the
    /// epoch watcher, on the runtime polling this; the caller then sets
    /// `io` to it.
    async fn start(target: Target, options: RedisOptions) -> Result<Self, StoreError> {
        // Before any connection, a Sentinel's included.
        connection::install_tls_provider();
        let link = Link::open(&target, &options).await?;
        let limit = options.response_timeout;
        let shared = link.conns().shared.clone();
        let first = shared.clone().run_ids(limit).await?;
        let durability = Arc::new(Durability::new(
            options.write_acks,
            options.write_ack_timeout.min(limit / 2),
        ));
        durability.learn(
            first.servers,
            &shared.clone().replication(limit).await?,
            link.listed_replicas(),
        );
        durability.check()?;
        if durability.may_wait() {
            allows_wait(link.conns().writer(), limit).await?;
        }
        let epoch = Arc::new(AtomicU64::new(first.epoch));
        let servers = Arc::new(AtomicU64::new(first.servers));
        let thread_reads = match &target {
            Target::Single(url) => Some(
                ThreadReads::new(url, &options, servers.clone())
                    .map_err(|e| connection::store_error(e, options.connect_timeout))?,
            ),
            // A cluster spreads reads over its nodes already; a Sentinel's
            // primary moves.
            Target::Cluster(_) | Target::Sentinel(_) => None,
        };
        let link = Arc::new(link);
        // Last: nothing fails after it, so no watcher outlives a failed start.
        let watcher = tokio::spawn(watch_epoch(
            link.clone(),
            Watched {
                epoch: epoch.clone(),
                servers,
                durability: durability.clone(),
            },
            options.epoch_check_interval,
            limit,
        ))
        .abort_handle();
        Ok(RedisStore {
            link,
            durability,
            thread_reads,
            scripts: Arc::new(Scripts::new()),
            prefix: options.prefix,
            epoch,
            response_timeout: limit,
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

    /// Runs `script` on `redis_key` with `args` on the shared connection:
    /// a script that writes nothing (see [`on_io`]).
    ///
    /// [`on_io`]: Self::on_io
    fn invoke(
        &self,
        script: fn(&Scripts) -> &Script,
        redis_key: String,
        args: Vec<String>,
    ) -> impl Future<Output = Result<Reply, StoreError>> + Send + 'static {
        let (scripts, mut conn, limit) = (
            self.scripts.clone(),
            self.link.conns().shared.clone(),
            self.response_timeout,
        );
        self.on_io(async move {
            let mut call = script(&scripts).key(redis_key);
            for arg in args {
                call.arg(arg);
            }
            let raw = call.invoke_async::<RawReply>(&mut conn).await;
            decode(
                &raw.map_err(|e| connection::store_error(e, limit))?,
                Claimed::default(),
            )
        })
    }

    /// Runs the authority write `script` on `redis_key` with `args`, on a
    /// writer connection, and answers once the replicas
    /// [`write_acks`](RedisOptions::write_acks) asks for have it: `WAIT`
    /// follows the script on the same connection, so it waits for this
    /// write (and what the connection wrote before). A write the replicas
    /// did not all acknowledge in time is `NotReplicated`; a refusal wrote
    /// nothing and is answered as it is.
    fn write(
        &self,
        script: fn(&Scripts) -> &Script,
        redis_key: String,
        args: Vec<String>,
        claimed: Claimed,
    ) -> impl Future<Output = Result<Reply, StoreError>> + Send + 'static {
        let wait = self.durability.wait_for(&redis_key);
        let (scripts, mut conn, limit) = (
            self.scripts.clone(),
            self.link.conns().writer(),
            self.response_timeout,
        );
        self.on_io(async move {
            let script = script(&scripts);
            let mut pipe = redis::pipe();
            pipe.cmd("EVALSHA")
                .arg(script.get_hash())
                .arg(1)
                .arg(&redis_key)
                .arg(&args);
            if let Some((replicas, millis)) = wait {
                pipe.cmd("WAIT").arg(replicas).arg(millis);
            }
            let fail = |e| connection::store_error(e, limit);
            let answer: Vec<redis::Value> = match pipe.query_async(&mut conn).await {
                Err(e)
                    if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) =>
                {
                    // The WAIT ran too, after a script that wrote nothing.
                    script.load_async(&mut conn).await.map_err(fail)?;
                    pipe.query_async(&mut conn).await
                }
                other => other,
            }
            .map_err(fail)?;
            let mut answer = answer.into_iter();
            let raw: RawReply = parsed(answer.next())?;
            let reply = decode(&raw, claimed)?;
            if let (Some((wanted, _)), false) = (wait, matches!(reply, Reply::Refused(_))) {
                Durability::outcome(parsed(answer.next())?, wanted)?;
            }
            Ok(reply)
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
        let (mut conn, limit) = (self.link.conns().shared.clone(), self.response_timeout);
        self.on_io(async move {
            let answer = read_pipe(&redis_key).query_async(&mut conn).await;
            let answer = answer.map_err(|e| connection::store_error(e, limit))?;
            decode(&plain_reply(answer), Claimed::default())
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
    fn on_io<T: Send + 'static>(
        &self,
        call: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let io = self
            .io
            .as_ref()
            .expect("the I/O runtime is only taken by Drop")
            .handle()
            .clone();
        async move {
            if runs_on(&io) {
                call.await
            } else {
                io.spawn(call)
                    .await
                    .map_err(|e| StoreError::Unreachable(format!("store task ended: {e}").into()))?
            }
        }
    }

    fn write_record(
        &self,
        script: fn(&Scripts) -> &Script,
        key: KeyRef<'_>,
        args: Vec<String>,
        claimed: Claimed,
    ) -> WriteFuture<'_, Observed<AuthorityRecord>> {
        let call = self.write(script, self.key_of(key), args, claimed);
        Box::pin(async move {
            match call.await? {
                Reply::Record(record, now) => Ok(self.observed(record, now)),
                Reply::Refused(r) => Err(WriteError::Rejected(r)),
                other => Err(unexpected(&other).into()),
            }
        })
    }
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
    /// The replicas authority writes wait for.
    durability: Arc<Durability>,
}

/// Every `every`: follows a Sentinel failover, re-reads the server's run
/// id(s) (a change is a new epoch) and learns the replicas.
async fn watch_epoch(link: Arc<Link>, watched: Watched, every: Duration, limit: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        // An unreachable server (or Sentinel) is seen by the calls
        // themselves; keep the last epoch until it can be read again.
        if let Err(e) = link.follow().await {
            tracing::debug!(error = %e, "Sentinels not asked this tick");
        }
        let conn = link.conns().shared.clone();
        if let Ok(now) = conn.clone().run_ids(limit).await {
            watched.servers.store(now.servers, Ordering::Relaxed);
            watched.epoch.store(now.epoch, Ordering::Relaxed);
            if let Ok(replication) = conn.replication(limit).await {
                watched
                    .durability
                    .learn(now.servers, &replication, link.listed_replicas());
            }
        }
    }
}

/// At connect: a server (or ACL) that refuses `WAIT` would fail every
/// authority write; say so now, as a configuration error.
async fn allows_wait(mut conn: Conn, limit: Duration) -> Result<(), StoreError> {
    let answer: redis::RedisResult<redis::Value> = redis::cmd("WAIT")
        .arg(0)
        .arg(0)
        .query_async(&mut conn)
        .await;
    match answer {
        Ok(_) => Ok(()),
        Err(e) if e.is_timeout() || e.is_io_error() || e.is_connection_dropped() => {
            Err(connection::store_error(e, limit))
        }
        Err(e) => Err(StoreError::Config(
            format!(
                "the server refuses WAIT ({e}), which durable authority writes need: \
                 allow it, or set write_acks to PrimaryOnly"
            )
            .into(),
        )),
    }
}

/// The `Value` of one command of a pipeline as `T`.
fn parsed<T: redis::FromRedisValue>(value: Option<redis::Value>) -> Result<T, StoreError> {
    let value = value.ok_or_else(|| StoreError::Protocol("a pipeline answer is missing".into()))?;
    redis::from_redis_value(value).map_err(|e| StoreError::Protocol(e.to_string().into()))
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

    fn epoch(&self) -> Option<StoreEpoch> {
        Some(StoreEpoch(self.epoch.load(Ordering::Relaxed)))
    }

    fn put_descriptor(&self, d: &PeerDescriptor) -> WriteFuture<'_, Observed<PeerDescriptor>> {
        let args = vec![
            d.endpoint.as_str().to_owned(),
            d.rid.get().to_string(),
            d.lifecycle_generation.get().to_string(),
            d.security_identity.clone(),
        ];
        let call = self.write(
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
        let call = self.write(
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
