//! The demo's mesh: node-a, node-b, node-c (NodeRid 1, 2, 3) on one
//! Location Store, and the time they share.
//!
//! On the embedded store one manual clock drives the store and every
//! runtime, so the demo moves time instantly. A Redis lease expires on the
//! server's clock, which no manual clock can move: on Redis the runtimes use
//! the system clock, leases are short, and the demo really waits.

use std::cell::OnceCell;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use zlink_core::{
    Clock, LocationStore, ManualClock, MemoryStore, MeshName, MonoTime, NodeGeneration,
    NodeIdentity, NodeRid, OwnerLeaseGeneration, ReadyRoute, Resolution, RoutingConfig, Runtime,
    SystemClock,
};

use super::cliff::Cliff;
use super::handoff::Handoff;
use super::requests::Tally;
use super::session::SessionRun;
use super::{DemoResult, Unexpected};
use crate::store;

pub(super) const MESH: &str = "demo-mesh";

/// Owner lease (and longest cache life) on Redis: short, so the lease scene
/// waits about one lease of real time, yet long enough that the scenes
/// before it finish well inside the first lease on a loaded machine.
const REDIS_LEASE: Duration = Duration::from_millis(1500);

/// Extra real time waited past a lease end before checking it has expired:
/// covers the store clock's millisecond rounding and the call's travel time.
const REAL_TIME_MARGIN: Duration = Duration::from_millis(100);

/// Which Location Store the demo runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Backend {
    /// The embedded in-memory store (the default; `make demo`).
    Embedded,
    /// A Redis deployment; every key of this run lies under `prefix`.
    Redis {
        /// The `--store` URL.
        url: String,
        /// Fresh per run, so runs never collide and never touch other data.
        prefix: String,
    },
}

impl Backend {
    /// The store `--store` names: embedded without it, Redis with a fresh
    /// key prefix otherwise.
    pub(crate) fn from_arg(url: Option<&str>) -> Backend {
        match url {
            None => Backend::Embedded,
            Some(url) => Backend::Redis {
                url: url.to_owned(),
                prefix: fresh_prefix(),
            },
        }
    }
}

/// `zlink-demo-{pid}-{unix millis}`: two runs differ by process or by time.
fn fresh_prefix() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("zlink-demo-{}-{millis}", std::process::id())
}

/// How time moves in the demo.
pub(super) enum Time {
    /// Shared by the embedded store and every runtime: advancing it moves
    /// lease expiry (store clock) and cache expiry (local clock) together.
    Manual(ManualClock),
    /// Real time: the Redis server's clock decides lease expiry.
    Real(SystemClock),
}

impl Time {
    fn clock(&self) -> Arc<dyn Clock> {
        match self {
            Time::Manual(c) => Arc::new(c.clone()),
            Time::Real(c) => Arc::new(*c),
        }
    }

    pub(super) fn now(&self) -> MonoTime {
        match self {
            Time::Manual(c) => c.now(),
            Time::Real(c) => c.now(),
        }
    }

    /// Lets `d` pass: instantly on the manual clock, by sleeping otherwise.
    pub(super) fn advance(&self, d: Duration) {
        match self {
            Time::Manual(c) => c.advance(d),
            Time::Real(_) => thread::sleep(d),
        }
    }

    /// How long past a lease end to wait before expecting it expired.
    pub(super) fn margin(&self) -> Duration {
        match self {
            Time::Manual(_) => Duration::ZERO,
            Time::Real(_) => REAL_TIME_MARGIN,
        }
    }

    /// `t=20s` on the manual clock; real time is rarely a whole second.
    pub(super) fn stamp(&self) -> String {
        let seconds = self.now().as_millis() as f64 / 1000.0;
        match self {
            Time::Manual(_) => format!("t={seconds}s"),
            Time::Real(_) => format!("t={seconds:.2}s"),
        }
    }
}

pub(super) struct Node {
    pub(super) name: &'static str,
    pub(super) rt: Runtime,
}

/// The demo's mesh and the store it runs on.
pub(super) struct Cluster {
    pub(super) backend: Backend,
    pub(super) time: Time,
    /// The owner lease every node asks for.
    pub(super) lease: Duration,
    pub(super) a: Node,
    pub(super) b: Node,
    pub(super) c: Node,
    /// What scene f. measured on its own in-process mesh, once it has run.
    pub(super) cliff: OnceCell<Cliff>,
    /// What the relocation handoff scene measured, once it has run.
    pub(super) handoff: OnceCell<Handoff>,
    /// What scene g. saw at the requester, once it has run.
    pub(super) requests: OnceCell<Tally>,
    /// What scene i. did on its own in-process mesh, once it has run.
    pub(super) session: OnceCell<SessionRun>,
}

impl Cluster {
    pub(super) fn start(backend: Backend) -> DemoResult<Cluster> {
        let (time, store, config): (Time, Arc<dyn LocationStore>, RoutingConfig) = match &backend {
            Backend::Embedded => {
                let time = Time::Manual(ManualClock::new());
                let store = Arc::new(MemoryStore::with_clock(time.clock()));
                (time, store, RoutingConfig::default())
            }
            Backend::Redis { url, prefix } => {
                let store = Arc::new(store::open_redis(url, prefix)?);
                // The cache must not outlive the lease it was read under, and
                // stays 5 s below Message Follow (30 s) as the config demands.
                let config = RoutingConfig {
                    owner_lease_duration: REDIS_LEASE,
                    route_cache_max_age: REDIS_LEASE,
                    ..RoutingConfig::default()
                };
                (Time::Real(SystemClock::new()), store, config)
            }
        };
        let lease = config.owner_lease_duration;
        let mesh = MeshName::new(MESH)?;
        let clock = time.clock();
        let node = |name: &'static str, rid: u64| -> DemoResult<Node> {
            let identity = NodeIdentity {
                mesh,
                rid: NodeRid(rid),
                generation: NodeGeneration(1),
                lease: OwnerLeaseGeneration(1),
            };
            let rt = Runtime::builder(identity)
                .config(config.clone())
                .clock(clock.clone())
                .store(store.clone())
                .build()?;
            Ok(Node { name, rt })
        };
        Ok(Cluster {
            a: node("node-a", 1)?,
            b: node("node-b", 2)?,
            c: node("node-c", 3)?,
            cliff: OnceCell::new(),
            handoff: OnceCell::new(),
            requests: OnceCell::new(),
            session: OnceCell::new(),
            backend,
            time,
            lease,
        })
    }

    pub(super) fn nodes(&self) -> [&Node; 3] {
        [&self.a, &self.b, &self.c]
    }

    /// The node a route points to: what a host's transport would dial.
    pub(super) fn by_rid(&self, rid: NodeRid) -> DemoResult<&Node> {
        self.nodes()
            .into_iter()
            .find(|n| n.rt.identity().rid == rid)
            .ok_or_else(|| Unexpected(format!("a route points to unknown node {rid}")).into())
    }

    fn name_of(&self, rid: NodeRid) -> &'static str {
        self.by_rid(rid).map_or("an unknown node", |n| n.name)
    }

    pub(super) fn describe(&self, resolution: &Resolution) -> String {
        match resolution {
            Resolution::ReadyRoute(r) => format!(
                "ReadyRoute -> {} (object gen {}, owner gen {}, store version {})",
                self.name_of(r.route.node),
                r.fence.object_generation,
                r.fence.authority_owner_generation,
                r.fence.store_version,
            ),
            Resolution::Unavailable(reason) => format!("Unavailable({})", reason.as_str()),
            Resolution::StoreFailure(e) => format!("StoreFailure({e})"),
            Resolution::Missing => "Missing".to_owned(),
        }
    }

    /// The opening lines of the narration: who shares what.
    pub(super) fn intro(&self) -> Vec<String> {
        match &self.backend {
            Backend::Embedded => vec![format!(
                "mesh {MESH}: node-a, node-b, node-c share one embedded Location Store and one manual clock"
            )],
            Backend::Redis { url, prefix } => vec![
                format!(
                    "mesh {MESH}: node-a, node-b, node-c share one Redis Location Store at {} and the system clock",
                    store::masked(url),
                ),
                format!(
                    "key prefix {prefix}; owner leases last {:?} on the server's clock, so scene e waits about that long",
                    self.lease,
                ),
            ],
        }
    }
}

/// The route of a `ReadyRoute` pointing at `owner`, or the scene fails.
pub(super) fn expect_route(
    resolution: Resolution,
    owner: &Node,
    what: &str,
) -> DemoResult<ReadyRoute> {
    match resolution {
        Resolution::ReadyRoute(r) if r.route.node == owner.rt.identity().rid => Ok(r),
        other => Err(Unexpected(format!(
            "{what}: wanted a ReadyRoute to {}, got {other:?}",
            owner.name
        ))
        .into()),
    }
}
