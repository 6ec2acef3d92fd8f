//! h. The relocation handoff under load (spec §2.5 PerActor, §3.3): an
//! actor moves three times while senders keep sending one-way messages and
//! requests. Each move is one call on the source (`begin_relocation`); the
//! runtimes run the rest between themselves in frames. The scene counts
//! what was held on the source after its seal, what was relayed into the
//! target, and checks that nothing was lost, nothing ran twice and no node
//! ran the actor after it gave it up (`two_owner_deliveries`).
//!
//! Like scene f. it runs on the core's in-process mesh (its own manual
//! clock and embedded store), so it is the same under `--store`.

use serde_json::{Map, Value, json};
use zlink_core::mesh::{Diagram, Mesh};
use zlink_core::{Capture, NodeRid, ObjectKind, RequestOptions, RoutingConfig};

use super::cluster::Cluster;
use super::{DemoResult, Narrator, Unexpected};

const KIND: ObjectKind = ObjectKind::Actor;
const ACTOR: &str = "cart-9";
/// node-a .. node-f: owners a, b, c; senders d, e, f.
const NODES: u64 = 6;
const SENDERS: [u64; 3] = [4, 5, 6];
/// Where the actor goes: a -> b -> c -> a.
const PATH: [u64; 4] = [1, 2, 3, 1];
/// Traffic rounds around each move: before it, while it runs, after it.
const ROUNDS: usize = 6;
/// Network frames carried between two rounds: the move's frames travel
/// with the traffic, so it completes while messages keep arriving.
const STEPS_PER_ROUND: usize = 4;

/// What the scene measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Handoff {
    pub(super) relocations: u64,
    pub(super) messages_sent: u64,
    pub(super) requests_sent: u64,
    /// Operations held on a source after its seal (every move).
    pub(super) held: u64,
    /// The most held on one source in one move.
    pub(super) held_most: u64,
    /// Operations the sources relayed into their targets after capture.
    pub(super) relayed_after_capture: u64,
    pub(super) delivered: u64,
    pub(super) lost: u64,
    pub(super) duplicated: u64,
    pub(super) two_owner_deliveries: u64,
    /// Requests with a reply.
    pub(super) replies: u64,
    /// Network frames from `begin_relocation` to the target's first
    /// delivery, the most over the moves.
    pub(super) frames_to_first_delivery: u64,
    /// The scene drawn (`zlink demo --trace`).
    pub(super) diagram: Option<Diagram>,
}

impl Handoff {
    /// The keys the scene adds at the top of `--json` (its `delivered`,
    /// `lost` and `duplicated` are in `handoff`: the top-level ones are the
    /// cliff scene's).
    pub(super) fn json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, value) in [
            ("relocations", self.relocations),
            ("held", self.held),
            ("held_most", self.held_most),
            ("relayed_after_capture", self.relayed_after_capture),
            ("two_owner_deliveries", self.two_owner_deliveries),
        ] {
            map.insert(key.into(), json!(value));
        }
        map
    }

    /// The `handoff` object of `--json`: every figure of the scene.
    pub(super) fn detail_json(&self) -> Value {
        let mut map = self.json();
        map.insert("delivered".into(), json!(self.delivered));
        map.insert("lost".into(), json!(self.lost));
        map.insert("duplicated".into(), json!(self.duplicated));
        map.insert("messages_sent".into(), json!(self.messages_sent));
        map.insert("requests_sent".into(), json!(self.requests_sent));
        map.insert("replies".into(), json!(self.replies));
        map.insert(
            "frames_to_first_delivery".into(),
            json!(self.frames_to_first_delivery),
        );
        Value::Object(map)
    }
}

fn traffic(m: &mut Mesh, h: &mut Handoff) -> DemoResult {
    for s in SENDERS {
        m.send(s, KIND, ACTOR, b"add item")?;
        m.request(s, KIND, ACTOR, b"total?", RequestOptions::default())?;
        h.messages_sent += 1;
        h.requests_sent += 1;
    }
    for _ in 0..STEPS_PER_ROUND {
        m.step();
    }
    Ok(())
}

/// Runs the three moves and counts; fails if anything was lost, ran twice
/// or ran on a node that no longer owned the actor.
pub(super) fn run() -> DemoResult<Handoff> {
    let mut m = Mesh::new(NODES, RoutingConfig::default())?;
    m.draw();
    m.activate(PATH[0], KIND, ACTOR)?;
    let mut h = Handoff::default();
    for _ in 0..ROUNDS {
        traffic(&mut m, &mut h)?;
    }
    for hop in PATH.windows(2) {
        let (from, to) = (hop[0], hop[1]);
        let held_before = m.node(from).stats().relocation.held;
        let delivered_before = m.ledger.delivered.len();
        if let Some(d) = m.diagram_mut() {
            d.note(&format!(
                "begin_relocation of {ACTOR} from node {from} to node {to}"
            ));
        }
        m.begin_move_with(KIND, ACTOR, from, to, Capture::default())?;
        h.relocations += 1;
        let mut frames = 0u64;
        while m.ledger.delivered[delivered_before..]
            .iter()
            .all(|(_, at, _)| *at != NodeRid(to))
        {
            if frames.is_multiple_of(STEPS_PER_ROUND as u64) {
                for s in SENDERS {
                    m.send(s, KIND, ACTOR, b"add item")?;
                    h.messages_sent += 1;
                }
            }
            if !m.step() {
                break;
            }
            frames += 1;
        }
        h.frames_to_first_delivery = h.frames_to_first_delivery.max(frames);
        for _ in 0..ROUNDS {
            traffic(&mut m, &mut h)?;
        }
        m.run();
        let held = m.node(from).stats().relocation.held - held_before;
        h.held += held;
        h.held_most = h.held_most.max(held);
    }
    m.run();
    let l = &m.ledger;
    h.relayed_after_capture = (1..=NODES)
        .map(|n| m.node(n).stats().relocation.relayed)
        .sum();
    h.delivered = l.delivered.len() as u64;
    h.lost = l.unresolved().len() as u64;
    h.duplicated = l.duplicated().len() as u64;
    h.two_owner_deliveries = l.two_owner_deliveries;
    h.replies = l.completed.iter().filter(|(_, k)| *k == "Reply").count() as u64;
    h.diagram = m.diagram().cloned();
    ensure!(h.lost == 0, "operations lost: {h:?}");
    ensure!(h.duplicated == 0, "operations run twice: {h:?}");
    ensure!(
        h.two_owner_deliveries == 0,
        "a node ran the actor after it gave it up: {h:?}"
    );
    ensure!(
        m.node(PATH[PATH.len() - 1])
            .owned(zlink_core::KeyRef {
                kind: KIND,
                id: ACTOR
            })
            .is_some(),
        "the actor should end where its path ends"
    );
    Ok(h)
}

/// h. The relocation handoff: three moves under load.
pub(super) fn scene(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("h. relocation handoff: an actor moves a -> b -> c -> a under load");
    n.say(format_args!(
        "a separate in-process mesh of {NODES} nodes; node-d, node-e, node-f send one-way messages and requests to actor {ACTOR} all along"
    ));
    let h = run()?;
    n.say(format_args!(
        "each move is one begin_relocation on the source: it seals at once; Restore, relay-ready, the relay span, cutover and the owner CAS run as frames between the runtimes"
    ));
    n.say(format_args!(
        "{} moves: {} operations held on the sources after their seals (at most {} in one move), {} relayed into the targets after capture",
        h.relocations, h.held, h.held_most, h.relayed_after_capture
    ));
    n.say(format_args!(
        "{} messages and {} requests sent: {} delivered, {} replies, lost {}, run twice {}, run by a node that no longer owned the actor {}",
        h.messages_sent, h.requests_sent, h.delivered, h.replies, h.lost, h.duplicated, h.two_owner_deliveries
    ));
    n.say(format_args!(
        "from begin_relocation to the target's first delivery: at most {} network frames",
        h.frames_to_first_delivery
    ));
    cl.handoff
        .set(h)
        .map_err(|_| Unexpected("the handoff scene ran twice".into()))?;
    Ok(())
}
