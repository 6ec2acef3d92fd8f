//! `zlink demo`: three MeshNode runtimes in one process, sharing one
//! embedded Location Store and one manual clock, walk through the routing
//! rules of spec §2: cold and warm resolution, a relocation met by a stale
//! cached route, Missing and Unavailable.
//!
//! Every scene checks the outcomes it narrates and fails the command when one
//! differs, so `zlink demo --json` doubles as the smoke test `make test` runs.

use std::error::Error;
use std::fmt::{self, Display};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use zlink_core::{
    Admission, Clock, DirectSend, InboundDirect, InvalidationReason, KeyRef, LocationStore,
    ManualClock, MemoryStore, MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectKind,
    OwnerLeaseGeneration, ReadyRoute, Rejection, Resolution, Runtime, SendOptions, Stats,
    UnavailableReason,
};

type DemoResult<T = ()> = Result<T, Box<dyn Error>>;

const MESH: &str = "demo-mesh";
const PLAYER: &str = "player-1";
const ROOM: &str = "room-7";
const GHOST: &str = "ghost-404";
const LOBBY: &str = "lobby-3";
const ARENA: &str = "arena-9";
const GUILD: &str = "guild-2";

/// A scene saw an outcome other than the one it demonstrates: the core's
/// behaviour no longer matches what the demo (and the spec) says.
#[derive(Debug)]
struct Unexpected(String);

impl Display for Unexpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unexpected outcome: {}", self.0)
    }
}

impl Error for Unexpected {}

/// Fails the current scene unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(Box::new(Unexpected(format!($($msg)+))));
        }
    };
}

/// Prints the narration, or nothing in `--json` mode so stdout stays one
/// JSON document.
struct Narrator {
    quiet: bool,
}

impl Narrator {
    fn scene(&self, title: &str) {
        if !self.quiet {
            println!("\n== {title}");
        }
    }

    fn say(&self, line: impl Display) {
        if !self.quiet {
            println!("  {line}");
        }
    }
}

struct Node {
    name: &'static str,
    rt: Runtime,
}

/// The demo's mesh: node-a, node-b, node-c (NodeRid 1, 2, 3).
struct Cluster {
    clock: ManualClock,
    a: Node,
    b: Node,
    c: Node,
}

impl Cluster {
    fn start() -> DemoResult<Cluster> {
        let clock = ManualClock::new();
        // One clock for the store and every runtime: lease expiry (store
        // clock) and cache expiry (local clock) then move together when the
        // demo advances time.
        let shared: Arc<dyn Clock> = Arc::new(clock.clone());
        let store: Arc<dyn LocationStore> = Arc::new(MemoryStore::with_clock(shared.clone()));
        let mesh = MeshName::new(MESH)?;
        let node = |name: &'static str, rid: u64| -> DemoResult<Node> {
            let identity = NodeIdentity {
                mesh,
                rid: NodeRid(rid),
                generation: NodeGeneration(1),
                lease: OwnerLeaseGeneration(1),
            };
            let rt = Runtime::builder(identity)
                .clock(shared.clone())
                .store(store.clone())
                .build()?;
            Ok(Node { name, rt })
        };
        Ok(Cluster {
            a: node("node-a", 1)?,
            b: node("node-b", 2)?,
            c: node("node-c", 3)?,
            clock,
        })
    }

    fn nodes(&self) -> [&Node; 3] {
        [&self.a, &self.b, &self.c]
    }

    /// The node a route points to: what a host's transport would dial.
    fn by_rid(&self, rid: NodeRid) -> DemoResult<&Node> {
        self.nodes()
            .into_iter()
            .find(|n| n.rt.identity().rid == rid)
            .ok_or_else(|| Unexpected(format!("a route points to unknown node {rid}")).into())
    }

    fn name_of(&self, rid: NodeRid) -> &'static str {
        self.by_rid(rid).map_or("an unknown node", |n| n.name)
    }

    fn describe(&self, resolution: &Resolution) -> String {
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

    fn seconds(&self) -> f64 {
        self.clock.now().as_millis() as f64 / 1000.0
    }
}

/// The route of a `ReadyRoute` pointing at `owner`, or the scene fails.
fn expect_route(resolution: Resolution, owner: &Node, what: &str) -> DemoResult<ReadyRoute> {
    match resolution {
        Resolution::ReadyRoute(r) if r.route.node == owner.rt.identity().rid => Ok(r),
        other => Err(Unexpected(format!(
            "{what}: wanted a ReadyRoute to {}, got {other:?}",
            owner.name
        ))
        .into()),
    }
}

type Scene = fn(&Cluster, &Narrator) -> DemoResult;

const SCENES: [(&str, Scene); 5] = [
    ("activate", activate),
    ("cold_then_warm", cold_then_warm),
    ("relocation", relocation),
    ("missing", missing),
    ("unavailable", unavailable),
];

/// Runs every scene in order; the first unexpected outcome stops the demo.
pub(crate) fn run(json: bool) -> DemoResult {
    let narrator = Narrator { quiet: json };
    let cluster = Cluster::start()?;
    narrator.say(format_args!(
        "mesh {MESH}: node-a, node-b, node-c share one embedded Location Store and one manual clock"
    ));
    for (name, scene) in SCENES {
        scene(&cluster, &narrator).map_err(|e| format!("scene {name}: {e}"))?;
    }
    if json {
        println!("{}", summary(&cluster));
    } else {
        let all: Vec<Stats> = cluster.nodes().iter().map(|n| n.rt.stats()).collect();
        narrator.scene("totals");
        narrator.say(format_args!(
            "{} scenes checked; cache hits {}, misses {}, store reads {}, stale-route invalidations {}",
            SCENES.len(),
            all.iter().map(|s| s.cache_hits).sum::<u64>(),
            all.iter().map(|s| s.cache_misses).sum::<u64>(),
            all.iter().map(|s| s.store_reads).sum::<u64>(),
            all.iter()
                .map(|s| s.invalidations_for(InvalidationReason::StaleRoute))
                .sum::<u64>(),
        ));
        narrator.say("(`zlink demo --json` prints every counter)");
    }
    Ok(())
}

/// a. node-a activates objects: create, then publish Ready.
fn activate(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("a. node-a activates objects");
    for (kind, id) in [(ObjectKind::Actor, PLAYER), (ObjectKind::Spot, ROOM)] {
        let owned = cl.a.rt.activate(kind, id)?;
        n.say(format_args!(
            "node-a activates {kind} {id}: {} (object gen {}, store version {})",
            owned.state.as_str(),
            owned.object_generation,
            owned.store_version,
        ));
    }
    ensure!(cl.a.rt.owned_count() == 2, "node-a should own 2 objects");
    Ok(())
}

/// b. node-c resolves twice: the first read goes to the store, the second is
/// answered by the positive route cache without touching it.
fn cold_then_warm(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("b. node-c resolves cold, then warm");
    let objects = [(ObjectKind::Actor, PLAYER), (ObjectKind::Spot, ROOM)];
    let before = cl.c.rt.stats();
    for (kind, id) in objects {
        let r = cl.c.rt.resolve(kind, id)?;
        n.say(format_args!("cold: {kind} {id} -> {}", cl.describe(&r)));
        expect_route(r, &cl.a, "cold resolve")?;
    }
    let cold = cl.c.rt.stats();
    n.say(format_args!(
        "store reads {} -> {}",
        before.store_reads, cold.store_reads
    ));
    ensure!(
        cold.store_reads == before.store_reads + 2,
        "two cold resolves should read the store twice, got {} reads",
        cold.store_reads - before.store_reads
    );
    for (kind, id) in objects {
        let r = cl.c.rt.resolve(kind, id)?;
        n.say(format_args!("warm: {kind} {id} -> {}", cl.describe(&r)));
        expect_route(r, &cl.a, "warm resolve")?;
    }
    let warm = cl.c.rt.stats();
    n.say(format_args!(
        "store reads still {}, cache hits {} -> {}",
        warm.store_reads, cold.cache_hits, warm.cache_hits
    ));
    ensure!(
        warm.store_reads == cold.store_reads,
        "warm resolves should not read the store"
    );
    ensure!(
        warm.cache_hits == cold.cache_hits + 2,
        "warm resolves should be two cache hits"
    );
    Ok(())
}

/// c. A relocation meets a stale cached route: the old owner rejects it, the
/// sender drops the entry and ends that operation; the next call re-resolves.
fn relocation(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("c. relocation: node-a -> node-b, node-c still caches node-a");
    let key = KeyRef {
        kind: ObjectKind::Actor,
        id: PLAYER,
    };
    let from =
        cl.a.rt
            .owned(key)
            .ok_or_else(|| Unexpected(format!("node-a should own {PLAYER}")))?
            .write_fence();
    let moved = cl.b.rt.commit_relocation(key.kind, PLAYER, from)?;
    n.say(format_args!(
        "node-b commits the relocation of actor {PLAYER}: owner gen {} -> {}",
        from.authority_owner_generation, moved.authority_owner_generation
    ));
    ensure!(
        moved.authority_owner_generation == from.authority_owner_generation.next(),
        "a relocation commit should bump the owner generation by one"
    );
    ensure!(
        cl.a.rt.relinquish(key.kind, PLAYER)?.is_some(),
        "node-a should have owned {PLAYER} until it relinquished it"
    );
    n.say("node-a relinquishes it");

    let reads = cl.c.rt.stats().store_reads;
    let old = expect_route(
        cl.c.rt.resolve(key.kind, PLAYER)?,
        &cl.a,
        "node-c's cached route",
    )?;
    ensure!(
        cl.c.rt.stats().store_reads == reads,
        "the stale route should come from node-c's cache"
    );
    n.say("node-c's cache still says node-a; it sends there");
    let sent = InboundDirect {
        target: key,
        to_node: old.route.node,
        fence: old.fence,
    };
    let rejection = match cl.by_rid(old.route.node)?.rt.admit(&sent) {
        Admission::Reject(r @ Rejection::StaleRoute { reason, .. }) => {
            n.say(format_args!("node-a rejects: StaleRoute({reason:?})"));
            r
        }
        other => {
            return Err(Unexpected(format!("node-a should reject as stale, got {other:?}")).into());
        }
    };

    let stale_before =
        cl.c.rt
            .stats()
            .invalidations_for(InvalidationReason::StaleRoute);
    let ended = cl.c.rt.on_rejection(key, &rejection);
    n.say(format_args!(
        "node-c: operation ends Unavailable({}), not resubmitted; cache entry dropped",
        ended.as_str()
    ));
    ensure!(
        ended == UnavailableReason::StaleRoute,
        "a stale-route rejection should end the operation Unavailable(StaleRoute)"
    );
    ensure!(
        cl.c.rt.lookup_cached(key.kind, PLAYER)?.is_none(),
        "the rejected entry should be gone from node-c's cache"
    );
    ensure!(
        cl.c.rt
            .stats()
            .invalidations_for(InvalidationReason::StaleRoute)
            == stale_before + 1,
        "the drop should count as one stale_route invalidation"
    );

    let fresh = cl.c.rt.resolve(key.kind, PLAYER)?;
    n.say(format_args!("next call: {}", cl.describe(&fresh)));
    let new = expect_route(fresh, &cl.b, "re-resolve after relocation")?;
    let sent = InboundDirect {
        target: key,
        to_node: new.route.node,
        fence: new.fence,
    };
    match cl.by_rid(new.route.node)?.rt.admit(&sent) {
        Admission::Accept { object_generation } => {
            n.say(format_args!(
                "node-b accepts (object gen {object_generation})"
            ));
            ensure!(
                object_generation == old.fence.object_generation,
                "a relocation keeps the incarnation"
            );
        }
        other => {
            return Err(Unexpected(format!("node-b should accept, got {other:?}")).into());
        }
    }
    Ok(())
}

/// d. No authority record: Missing is not cached, a plain direct call ends
/// NotFound, and only a Spot call with instance intent asks for creation.
fn missing(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("d. Missing");
    let c = &cl.c.rt;
    let r = c.resolve(ObjectKind::Actor, GHOST)?;
    n.say(format_args!(
        "node-c resolves actor {GHOST} -> {}",
        cl.describe(&r)
    ));
    ensure!(r == Resolution::Missing, "{GHOST} was never created");
    ensure!(
        c.lookup_cached(ObjectKind::Actor, GHOST)?.is_none(),
        "Missing must not be cached"
    );

    let send = c.send_direct(ObjectKind::Actor, GHOST, SendOptions::default())?;
    n.say(format_args!("send_direct actor {GHOST} -> {send:?}"));
    ensure!(
        send == DirectSend::NotFound,
        "a direct call without instance intent should not create"
    );

    let intent = SendOptions {
        instance_intent: true,
        ..SendOptions::default()
    };
    let send = c.send_direct(ObjectKind::Spot, LOBBY, intent)?;
    n.say(format_args!(
        "send_direct spot {LOBBY} with instance intent -> {send:?}"
    ));
    ensure!(
        send == DirectSend::ColdActivation,
        "instance intent on a Missing Spot should ask for cold activation"
    );
    // The demo plays the creation coordinator: activate, then call again.
    c.activate(ObjectKind::Spot, LOBBY)?;
    match c.send_direct(ObjectKind::Spot, LOBBY, intent)? {
        DirectSend::Submit(route) if route.route.node == cl.c.rt.identity().rid => {
            n.say("node-c cold-activates it; calling again -> Submit to node-c");
        }
        other => {
            return Err(Unexpected(format!(
                "after cold activation the call should submit to node-c, got {other:?}"
            ))
            .into());
        }
    }
    Ok(())
}

/// Resolves `id` on node-c and checks it is `Unavailable(want)`.
fn expect_unavailable(
    cl: &Cluster,
    n: &Narrator,
    kind: ObjectKind,
    id: &str,
    want: UnavailableReason,
) -> DemoResult {
    let r = cl.c.rt.resolve(kind, id)?;
    n.say(format_args!(
        "node-c resolves {kind} {id} -> {}",
        cl.describe(&r)
    ));
    ensure!(
        r == Resolution::Unavailable(want),
        "{kind} {id} should be Unavailable({})",
        want.as_str()
    );
    Ok(())
}

/// e. Authority exists but cannot be used: Creating, Releasing, and an
/// expired owner lease. None of these is cached, so the next call re-checks.
fn unavailable(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("e. Unavailable");
    cl.b.rt.create(ObjectKind::Spot, ARENA)?;
    n.say(format_args!("node-b creates spot {ARENA}, not yet Ready"));
    expect_unavailable(cl, n, ObjectKind::Spot, ARENA, UnavailableReason::Creating)?;
    let send =
        cl.c.rt
            .send_direct(ObjectKind::Spot, ARENA, SendOptions::default())?;
    ensure!(
        send == DirectSend::Unavailable(UnavailableReason::Creating),
        "a direct call to a Creating object should end Unavailable(Creating), got {send:?}"
    );
    cl.b.rt.publish_ready(ObjectKind::Spot, ARENA)?;
    let r = cl.c.rt.resolve(ObjectKind::Spot, ARENA)?;
    n.say(format_args!(
        "node-b publishes Ready; node-c -> {}",
        cl.describe(&r)
    ));
    expect_route(r, &cl.b, "resolve after publish")?;

    cl.a.rt.activate(ObjectKind::Actor, GUILD)?;
    cl.a.rt.begin_release(ObjectKind::Actor, GUILD)?;
    n.say(format_args!(
        "node-a activates actor {GUILD} and begins its release"
    ));
    expect_unavailable(
        cl,
        n,
        ObjectKind::Actor,
        GUILD,
        UnavailableReason::Releasing,
    )?;
    cl.a.rt.complete_release(ObjectKind::Actor, GUILD)?;
    let r = cl.c.rt.resolve(ObjectKind::Actor, GUILD)?;
    n.say(format_args!(
        "release completes; node-c -> {}",
        cl.describe(&r)
    ));
    ensure!(
        r == Resolution::Missing,
        "Missing only once release has completed"
    );

    // Leases last 30 s by default. node-b renews player-1 at t=20 s, node-a
    // never renews room-7, so at t=31 s only room-7's lease is over.
    cl.clock.advance(Duration::from_secs(20));
    cl.b.rt.renew_lease(ObjectKind::Actor, PLAYER)?;
    n.say(format_args!(
        "t={}s: node-b renews its lease on actor {PLAYER}",
        cl.seconds()
    ));
    cl.clock.advance(Duration::from_secs(11));
    n.say(format_args!(
        "t={}s: node-a never renewed spot {ROOM}",
        cl.seconds()
    ));
    expect_unavailable(
        cl,
        n,
        ObjectKind::Spot,
        ROOM,
        UnavailableReason::LeaseExpired,
    )?;
    let r = cl.c.rt.resolve(ObjectKind::Actor, PLAYER)?;
    n.say(format_args!(
        "node-c resolves actor {PLAYER} -> {}",
        cl.describe(&r)
    ));
    expect_route(r, &cl.b, "resolve of a renewed lease")?;
    Ok(())
}

/// Reads one counter out of a snapshot.
type Read = fn(&Stats) -> u64;

/// The counters of `stats`, summed: one runtime's, or the whole mesh's.
fn counters_json(stats: &[Stats]) -> Map<String, Value> {
    let sum = |f: Read| -> u64 { stats.iter().map(f).sum() };
    let invalidations: Map<String, Value> = InvalidationReason::ALL
        .iter()
        .map(|&r| {
            let total: u64 = stats.iter().map(|s| s.invalidations_for(r)).sum();
            (r.as_str().to_owned(), json!(total))
        })
        .collect();
    let mut map = Map::new();
    map.insert(
        "resolutions".into(),
        json!({
            "ReadyRoute": sum(|s| s.resolutions.ready_route),
            "Missing": sum(|s| s.resolutions.missing),
            "Unavailable": sum(|s| s.resolutions.unavailable),
            "StoreFailure": sum(|s| s.resolutions.store_failure),
        }),
    );
    let counters: [(&str, Read); 7] = [
        ("cache_hits", |s| s.cache_hits),
        ("cache_misses", |s| s.cache_misses),
        ("cache_entries", |s| s.cache_entries),
        ("cache_evictions", |s| s.cache_evictions),
        ("store_reads", |s| s.store_reads),
        ("store_failures", |s| s.store_failures),
        ("store_recoveries", |s| s.store_recoveries),
    ];
    for (name, f) in counters {
        map.insert(name.into(), json!(sum(f)));
    }
    map.insert("invalidations".into(), Value::Object(invalidations));
    map
}

/// The `--json` document: mesh totals at the top level, then per node.
fn summary(cl: &Cluster) -> Value {
    let all: Vec<Stats> = cl.nodes().iter().map(|n| n.rt.stats()).collect();
    let mut doc = counters_json(&all);
    let nodes: Map<String, Value> = cl
        .nodes()
        .iter()
        .zip(&all)
        .map(|(node, stats)| {
            let mut one = counters_json(std::slice::from_ref(stats));
            one.insert("rid".into(), json!(node.rt.identity().rid.get()));
            one.insert("owned".into(), json!(node.rt.owned_count()));
            (node.name.to_owned(), Value::Object(one))
        })
        .collect();
    doc.insert("mesh".into(), json!(MESH));
    doc.insert(
        "scenes".into(),
        json!(SCENES.iter().map(|(name, _)| *name).collect::<Vec<_>>()),
    );
    doc.insert("clock_ms".into(), json!(cl.clock.now().as_millis()));
    doc.insert("nodes".into(), Value::Object(nodes));
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_passes_and_the_summary_has_the_documented_keys() {
        let cluster = Cluster::start().expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary(&cluster);
        for key in [
            "resolutions",
            "cache_hits",
            "cache_misses",
            "store_reads",
            "invalidations",
            "scenes",
            "nodes",
        ] {
            assert!(doc.get(key).is_some(), "missing top-level key {key}");
        }
        for tag in ["ReadyRoute", "Missing", "Unavailable", "StoreFailure"] {
            assert!(doc["resolutions"][tag].is_u64(), "missing resolution {tag}");
        }
        assert_eq!(doc["invalidations"]["stale_route"], 1);
        assert_eq!(doc["resolutions"]["StoreFailure"], 0);
        assert_eq!(doc["nodes"]["node-c"]["rid"], 3);
    }
}
