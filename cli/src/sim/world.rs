//! One simulated cluster: the mesh harness (real runtimes, one manual
//! clock, one embedded store, a simulated network) and what the simulation
//! remembers about it to check the invariants: every operation it started,
//! every request, every session relay, every move's commit time, every
//! invalidation a node was told about.
//!
//! Everything here is kept in vectors in the order things happened, never
//! iterated out of a hash map: the seed alone decides a run.

use std::collections::BTreeSet;
use std::time::Duration;

use zlink_core::mesh::Mesh;
use zlink_core::wire::SessionRef;
use zlink_core::{
    Clock, CorrelationId, MonoTime, NodeGeneration, NodeRid, ObjectKey, ObjectKind, OperationId,
    OwnerLeaseGeneration, RoutingConfig,
};

use super::rng::Rng;

/// How big a run is, and which faults beyond the default set it may use.
#[derive(Debug, Clone)]
pub(crate) struct Params {
    pub(crate) nodes: u64,
    pub(crate) objects: usize,
    pub(crate) steps: usize,
    /// Links that deliver a frame twice (off by default: see `faults`).
    pub(crate) duplicate: bool,
    /// A transport that reorders frames within one link.
    pub(crate) unordered: bool,
    /// Also check that a Session's relays arrive in order (see
    /// `checks::session_order` for why it is not a default).
    pub(crate) session_order: bool,
    /// A deliberately broken run, to show the checks can fail.
    pub(crate) inject: Option<Inject>,
}

/// Bugs the simulation can plant in its own run (hidden flag), so a test
/// can show that a broken invariant is caught.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Inject {
    /// Every operation frame reaches its owner twice.
    DuplicateDelivery,
}

pub(crate) const KIND: ObjectKind = ObjectKind::Actor;

/// A request the simulation started.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) origin: u64,
    pub(crate) generation: NodeGeneration,
    pub(crate) correlation: CorrelationId,
    pub(crate) operation: OperationId,
}

/// A one-way or request operation the simulation started.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) operation: OperationId,
    pub(crate) object: usize,
    pub(crate) at: MonoTime,
}

/// An open session.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) id: u64,
    pub(crate) owner: u64,
    pub(crate) handle: SessionRef,
    /// Objects a bind was sent for (bound or not).
    pub(crate) actors: Vec<usize>,
    /// Disconnected by the simulation, or closed by the runtime.
    pub(crate) ended: bool,
}

/// A session relay the simulation started.
#[derive(Debug, Clone)]
pub(crate) struct Relay {
    pub(crate) session: u64,
    pub(crate) object: usize,
    pub(crate) sequence: u64,
    pub(crate) operation: OperationId,
}

/// What a node was told invalidates cached routes; checked against what its
/// cache holds after every step.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Invalidated {
    /// A relay notification named this source tenure of `object`.
    Tenure {
        object: ObjectKey,
        node: NodeRid,
        node_generation: NodeGeneration,
        object_generation: u64,
        authority_generation: u64,
    },
    /// The owner lease `lease` of `node` ended.
    Lease {
        node: NodeRid,
        lease: OwnerLeaseGeneration,
    },
}

/// The cluster and the simulation's memory of it.
pub(crate) struct World {
    pub(crate) mesh: Mesh,
    pub(crate) rng: Rng,
    pub(crate) params: Params,
    /// Object IDs in activation order (objects are never forgotten).
    pub(crate) objects: Vec<String>,
    pub(crate) sent: Vec<Sent>,
    pub(crate) requests: Vec<Request>,
    pub(crate) sessions: Vec<Session>,
    pub(crate) relays: Vec<Relay>,
    /// (object id, clock after the step) of every relocation commit.
    pub(crate) commits: Vec<(String, MonoTime)>,
    /// Per node (index rid-1): its generation when told, and what it was told.
    pub(crate) invalidated: Vec<BTreeSet<(NodeGeneration, Invalidated)>>,
    /// The longest route cache lifetime any config of the run allowed.
    pub(crate) max_cache_age: Duration,
    pub(crate) next_session: u64,
    pub(crate) next_object: usize,
    /// How many relocation events and notices were already looked at.
    pub(crate) seen_relocation_events: usize,
    pub(crate) seen_notices: usize,
    /// A rolling digest of the run, to check that a seed replays exactly.
    pub(crate) digest: u64,
    /// The faults in force now.
    pub(crate) faults: Faults,
    /// Steps of each kind (in `steps::STEPS` order) that did something.
    pub(crate) steps_run: Vec<u64>,
}

/// The faults in force, as the steps toggled them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Faults {
    pub(crate) store_down: bool,
    pub(crate) store_stalled: bool,
    /// The store's replica acknowledges no write (until back or promoted).
    pub(crate) replica_away: bool,
    /// Percent of frames the network drops.
    pub(crate) drop_percent: u64,
    /// Every command 50 notification is lost.
    pub(crate) notices_lost: bool,
    /// Every frame on this link is held back until released.
    pub(crate) delayed_link: Option<(NodeRid, NodeRid)>,
}

/// The config a run starts with: short store timeouts and one attempt, so a
/// failing or stalled store costs (almost) no wall time; the rest default.
pub(crate) fn base_config() -> RoutingConfig {
    RoutingConfig {
        store_timeout: Duration::from_millis(1),
        store_attempts: 1,
        ..RoutingConfig::default()
    }
}

impl World {
    pub(crate) fn new(seed: u64, params: Params) -> Result<World, String> {
        let config = base_config();
        let max_cache_age = config.route_cache_max_age;
        let mesh = Mesh::new(params.nodes, config).map_err(|e| e.to_string())?;
        let mut world = World {
            mesh,
            rng: Rng::new(seed),
            invalidated: vec![BTreeSet::new(); params.nodes as usize],
            params,
            objects: Vec::new(),
            sent: Vec::new(),
            requests: Vec::new(),
            sessions: Vec::new(),
            relays: Vec::new(),
            commits: Vec::new(),
            max_cache_age,
            next_session: 1,
            next_object: 0,
            seen_relocation_events: 0,
            seen_notices: 0,
            digest: 0xcbf2_9ce4_8422_2325,
            faults: Faults::default(),
            steps_run: vec![0; super::steps::STEPS.len()],
        };
        for _ in 0..world.params.objects {
            let at = world.rng.range(1, world.params.nodes);
            world.activate(at);
        }
        super::steps::install_rules(&mut world);
        Ok(world)
    }

    /// Folds `what` into the run's digest (FNV-1a).
    pub(crate) fn note(&mut self, what: &str) {
        for b in what.bytes() {
            self.digest ^= u64::from(b);
            self.digest = self.digest.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Activates a new object on node `at`; false if the node is dead or
    /// the store refused.
    pub(crate) fn activate(&mut self, at: u64) -> bool {
        let id = format!("a{}", self.next_object);
        self.next_object += 1;
        if self.mesh.is_dead(at) || self.mesh.activate(at, KIND, &id).is_err() {
            return false;
        }
        self.objects.push(id);
        true
    }

    pub(crate) fn live_nodes(&self) -> Vec<u64> {
        (1..=self.params.nodes)
            .filter(|rid| !self.mesh.is_dead(*rid))
            .collect()
    }

    pub(crate) fn key(&self, object: usize) -> ObjectKey {
        ObjectKey::new(KIND, &self.objects[object]).expect("simulation IDs are valid")
    }

    /// The live node whose runtime believes it owns `object`, if any.
    pub(crate) fn owner(&self, object: usize) -> Option<u64> {
        let key = self.key(object);
        self.live_nodes()
            .into_iter()
            .find(|rid| self.mesh.node(*rid).owned(key.as_ref()).is_some())
    }

    pub(crate) fn random_live(&mut self) -> Option<u64> {
        let live = self.live_nodes();
        self.rng.pick(&live).copied()
    }

    pub(crate) fn random_object(&mut self) -> Option<usize> {
        let n = self.objects.len() as u64;
        (n > 0).then(|| self.rng.below(n) as usize)
    }

    /// Records a move's commit and each notice a node applied, as the
    /// ledger reports them after a step.
    pub(crate) fn absorb_events(&mut self) -> String {
        let now = self.mesh.clock.now();
        let events = &self.mesh.ledger.relocation_events[self.seen_relocation_events..];
        let told: Vec<String> = events
            .iter()
            .map(|(at, e)| format!("node {at} {}", describe(e)))
            .collect();
        let committed: Vec<String> = events
            .iter()
            .filter_map(|(_, e)| match e {
                zlink_core::RelocationEvent::Committed { identity, .. } => {
                    Some(identity.key.id().to_owned())
                }
                _ => None,
            })
            .collect();
        self.seen_relocation_events = self.mesh.ledger.relocation_events.len();
        for id in committed {
            self.note(&format!("commit {id}"));
            self.commits.push((id, now));
        }
        let notices = self.mesh.ledger.notices[self.seen_notices..].to_vec();
        self.seen_notices = self.mesh.ledger.notices.len();
        for (at, object, source) in notices {
            let generation = self.mesh.node_identity(at.get()).generation;
            self.invalidated[(at.get() - 1) as usize].insert((
                generation,
                Invalidated::Tenure {
                    object,
                    node: source.node.rid,
                    node_generation: source.node.generation,
                    object_generation: source.fence.object_generation.0,
                    authority_generation: source.fence.authority_owner_generation.0,
                },
            ));
        }
        if told.is_empty() {
            String::new()
        } else {
            format!(" [{}]", told.join(", "))
        }
    }
}

/// A relocation event as the trace shows it.
/// Relocation IDs are random per process: never print one (the trace is
/// part of the run's digest).
fn describe(e: &zlink_core::RelocationEvent) -> String {
    use zlink_core::RelocationEvent as E;
    match e {
        E::Restore { identity, .. } => format!("restores {}", identity.key.id()),
        E::Cutover { identity, .. } => format!("cuts {} over", identity.key.id()),
        E::Committed { identity, .. } => format!("commits {}", identity.key.id()),
        E::HandedOff { identity, .. } => format!("hands {} off", identity.key.id()),
        E::Aborting { identity, reason } => {
            format!("aborting {} ({reason:?})", identity.key.id())
        }
        E::Aborted { identity, reason } => format!("aborted {} ({reason:?})", identity.key.id()),
        E::Failed { identity, reason } => format!("failed {} ({reason:?})", identity.key.id()),
        E::CommitDue { identity } => format!("owner CAS due for {}", identity.key.id()),
        E::CommitRetry { identity } => format!("retries the CAS of {}", identity.key.id()),
        E::Ignored { identity, refusal } => {
            format!("ignores a frame of {} ({refusal:?})", identity.key.id())
        }
    }
}
