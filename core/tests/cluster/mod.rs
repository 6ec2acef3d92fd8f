//! A small test cluster: several runtimes sharing one store and one
//! `ManualClock`, the store wrapped so tests can count its calls and fail it.

#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use zlink_core::store::FaultyStore;
use zlink_core::*;

pub const MESH: &str = "test-mesh";

pub struct Cluster {
    pub clock: ManualClock,
    pub store: Arc<FaultyStore<MemoryStore>>,
    pub nodes: Vec<Runtime>,
}

pub fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new(MESH).expect("valid mesh name"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(100 + rid),
    }
}

impl Cluster {
    /// `n` nodes with RIDs 1..=n, all on `config`.
    pub fn new(n: u64, config: RoutingConfig) -> Cluster {
        let clock = ManualClock::new();
        let store = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
            clock.clone(),
        ))));
        let nodes = (1..=n)
            .map(|rid| {
                Runtime::builder(identity(rid))
                    .config(config.clone())
                    .clock(Arc::new(clock.clone()))
                    .store(store.clone())
                    .build()
                    .expect("valid runtime")
            })
            .collect();
        Cluster {
            clock,
            store,
            nodes,
        }
    }

    pub fn with_defaults(n: u64) -> Cluster {
        Cluster::new(n, RoutingConfig::default())
    }

    /// Node with routing ID `rid`.
    pub fn node(&self, rid: u64) -> &Runtime {
        &self.nodes[(rid - 1) as usize]
    }

    pub fn advance_ms(&self, ms: u64) {
        self.clock.advance(std::time::Duration::from_millis(ms));
    }
}

pub fn key(kind: ObjectKind, id: &str) -> KeyRef<'_> {
    KeyRef { kind, id }
}

/// The Ready route of a resolution, or a panic naming what came instead.
pub fn ready(resolution: Resolution) -> ReadyRoute {
    match resolution {
        Resolution::ReadyRoute(route) => route,
        other => panic!("expected ReadyRoute, got {other:?}"),
    }
}

/// A direct message to `target` on `route`, as the sender would submit it.
pub fn inbound<'a>(target: KeyRef<'a>, route: &ReadyRoute) -> InboundDirect<'a> {
    InboundDirect {
        target,
        to_node: route.route.node,
        fence: route.fence,
    }
}
