//! h. A Session bound to three Actors, one relocating mid-stream (spec §3).
//!
//! node-a owns session 8 (its STREAM connection); node-b owns actors
//! chat-8, quest-8 and wallet-8. node-a binds the session to each starting
//! from the ActorRef node-b handed out, and stores the route the bind reply
//! verified: no Location Store lookup, before the bind or per message. While
//! node-a streams messages to all three, quest-8 moves to node-c with the
//! §3.3 sequence: command 42 seals its binding (43 answers), its messages
//! are Held on node-a while the other two keep flowing, node-c commits and
//! sends command 44, and node-a switches that one route and releases the
//! held messages to node-c in order. Then quest-8 pushes to the session, and
//! the connection closes with a disconnect notification to every bound
//! Actor on its stored route.
//!
//! Like the cliff scene, it runs on `zlink_core::mesh::Mesh`: in-process by
//! design (its own manual clock and embedded store, frames carried by the
//! harness), so the scene is the same under `--store`. The mesh has no
//! helper for a push or a disconnect, so the scene carries those frames to
//! the node they name itself.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use zlink_core::mesh::Mesh;
use zlink_core::wire::{ActorRoute, RelayKind, SessionRef};
use zlink_core::{
    ActorRef, BindingRoute, Inbound, NodeRid, ObjectKind, RoutingConfig, SessionError,
    SessionEvent, SessionId, SessionSend, Stats,
};

use super::cluster::{Backend, Cluster};
use super::{DemoResult, Narrator, Unexpected};

/// The mesh: node-a .. node-c (NodeRid 1..=3).
const NODES: u64 = 3;
/// node-a: the Session owner.
const OWNER: u64 = 1;
/// node-b: owns the three Actors at first.
const HOME: u64 = 2;
/// node-c: where the relocating Actor goes.
const TARGET: u64 = 3;
/// The session node-a opens (lifecycle generation 1).
const SESSION: u64 = 8;
/// The Actors it binds, in the order each round sends to them.
const ACTORS: [&str; 3] = ["chat-8", "quest-8", "wallet-8"];
/// The one that relocates mid-stream (index in `ACTORS`).
const MOVER: usize = 1;
/// Rounds 1..=4 before the seal, 5..=8 sealed, 9..=12 after command 44.
const SEAL_AFTER: u64 = 4;
const COMMIT_AFTER: u64 = 8;
const ROUNDS: u64 = 12;
/// What quest-8 pushes to the session.
const PUSH: &str = "quest complete";

/// One delivery to an Actor: (session, actor id, session sequence, node),
/// as the mesh ledger's `session_delivered` records it.
type Delivered = (SessionId, String, u64, NodeRid);

/// What the scene did, for `--json` and its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SessionRun {
    /// Messages the scene asked node-a to relay.
    pub(super) messages_sent: u64,
    /// Messages delivered to an Actor (the ledger's `session_delivered`).
    pub(super) delivered: u64,
    /// Relays the Session owner sent at once on a stored route, disconnect
    /// notifications included (`SessionStats::relays`, summed).
    pub(super) relays: u64,
    /// Messages held while the relocating Actor's binding was sealed
    /// (`SessionStats::held`, summed); command 44 released them.
    pub(super) held: u64,
    /// Held messages command 44 released to the target.
    pub(super) held_released: u64,
    /// Disconnect notifications delivered, one per bound Actor.
    pub(super) disconnect_notifications: u64,
    /// Pushes from an Actor that reached the session.
    pub(super) pushes: u64,
    /// Deliveries whose session sequence was not above the previous one
    /// delivered to the same Actor from the same session.
    pub(super) order_violations: u64,
    /// Location Store reads and route cache lookups on the Session owner.
    pub(super) owner_lookups: u64,
}

impl SessionRun {
    /// The top-level `--json` keys.
    pub(super) fn json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("session_relays".into(), json!(self.relays));
        map.insert("session_held".into(), json!(self.held));
        map.insert(
            "session_order_violations".into(),
            json!(self.order_violations),
        );
        map
    }

    /// The `session` object of the `--json` summary.
    pub(super) fn detail_json(&self) -> Value {
        json!({
            "actors": ACTORS.len(),
            "rounds": ROUNDS,
            "messages_sent": self.messages_sent,
            "delivered": self.delivered,
            "held_released": self.held_released,
            "disconnect_notifications": self.disconnect_notifications,
            "pushes": self.pushes,
            "session_owner_lookups": self.owner_lookups,
        })
    }
}

/// `node-a` for NodeRid 1, and so on.
fn node_name(rid: NodeRid) -> String {
    let letter = u8::try_from(rid.get().wrapping_sub(1))
        .ok()
        .filter(|i| *i < 26)
        .map_or('?', |i| char::from(b'a' + i));
    format!("node-{letter}")
}

/// Deliveries to an Actor whose session sequence is not above the previous
/// one delivered to it from the same session (duplicates included).
pub(super) fn order_violations(deliveries: &[Delivered]) -> u64 {
    let mut last: BTreeMap<(SessionId, &str), u64> = BTreeMap::new();
    let mut bad = 0;
    for (session, actor, sequence, _) in deliveries {
        if let Some(prev) = last.insert((*session, actor.as_str()), *sequence)
            && prev >= *sequence
        {
            bad += 1;
        }
    }
    bad
}

/// Store reads and cache lookups of one runtime.
fn lookups(stats: &Stats) -> u64 {
    stats.store_reads + stats.cache_hits + stats.cache_misses
}

/// The scene's state: the mesh, the session, the Actors' references and
/// what was sent to each.
struct Play {
    m: Mesh,
    session: SessionRef,
    refs: Vec<ActorRef>,
    /// Per Actor (index in `ACTORS`), the sequences sent to it, in order.
    sent: Vec<Vec<u64>>,
    /// Sequences held for the relocating Actor, in order.
    held: Vec<u64>,
}

impl Play {
    fn id() -> SessionId {
        SessionId(SESSION)
    }

    /// node-a's stored route to Actor `i`.
    fn route(&self, i: usize) -> DemoResult<BindingRoute> {
        self.m
            .node(OWNER)
            .binding(Self::id(), &self.refs[i].actor)
            .ok_or_else(|| Unexpected(format!("node-a has no binding to {}", ACTORS[i])).into())
    }

    /// This session's deliveries to Actor `i` so far: (sequence, node).
    fn delivered_to(&self, i: usize) -> Vec<(u64, NodeRid)> {
        self.m
            .ledger
            .session_delivered
            .iter()
            .filter(|(s, actor, _, _)| *s == Self::id() && actor == ACTORS[i])
            .map(|&(_, _, seq, node)| (seq, node))
            .collect()
    }

    /// Rounds `rounds`: node-a relays one message to each Actor, then the
    /// network runs. Only the relocating Actor's are Held, and only while
    /// `sealed`.
    fn stream(&mut self, rounds: std::ops::RangeInclusive<u64>, sealed: bool) -> DemoResult {
        for round in rounds {
            for (i, id) in ACTORS.iter().enumerate() {
                let payload = format!("round {round} to {id}");
                let actor = self.refs[i].actor.clone();
                let sent = self
                    .m
                    .session_send(OWNER, SESSION, &actor, payload.as_bytes())?;
                let hold = sealed && i == MOVER;
                match sent {
                    SessionSend::Sent { sequence, .. } if !hold => self.sent[i].push(sequence),
                    SessionSend::Held { sequence, .. } if hold => {
                        self.sent[i].push(sequence);
                        self.held.push(sequence);
                    }
                    other => {
                        let want = if hold { "Held" } else { "Sent" };
                        return Err(Unexpected(format!(
                            "round {round}: the relay to {id} should be {want}, got {other:?}"
                        ))
                        .into());
                    }
                }
            }
            self.m.run();
        }
        Ok(())
    }

    /// Fails unless every Actor got exactly the sequences sent to it, in
    /// order, all on node-b, except that the relocating Actor's still held
    /// ones (`holding`) have not arrived and its `k`-th delivery arrived on
    /// `mover_at[k]` when given.
    fn expect_delivered(&self, when: &str, holding: bool, mover_at: &[NodeRid]) -> DemoResult {
        for (i, id) in ACTORS.iter().enumerate() {
            let got = self.delivered_to(i);
            let seqs: Vec<u64> = got.iter().map(|(s, _)| *s).collect();
            let want: Vec<u64> = self.sent[i]
                .iter()
                .copied()
                .filter(|s| !(holding && i == MOVER && self.held.contains(s)))
                .collect();
            ensure!(
                seqs == want,
                "{when}: {id} should have got sequences {want:?}, got {seqs:?}"
            );
            for (k, (seq, node)) in got.iter().enumerate() {
                let expected = match mover_at.get(k) {
                    Some(at) if i == MOVER => *at,
                    _ => NodeRid(HOME),
                };
                ensure!(
                    *node == expected,
                    "{when}: {id}'s sequence {seq} reached {}, not {}",
                    node_name(*node),
                    node_name(expected)
                );
            }
        }
        Ok(())
    }
}

/// h. The session scene: bind, stream, relocate one bound Actor, push,
/// disconnect; every outcome checked.
pub(super) fn scene(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("i. a session bound to three actors, one relocating mid-stream");
    let where_ = match cl.backend {
        Backend::Embedded => "",
        Backend::Redis { .. } => " (not Redis: the mesh harness is in-process by design)",
    };
    n.say(format_args!(
        "a separate in-process mesh of {NODES} nodes (node-a..node-c) with its own manual clock and embedded store{where_}"
    ));
    let run = play(n)?;
    cl.session
        .set(run)
        .map_err(|_| Unexpected("the session scene ran twice".into()))?;
    Ok(())
}

/// `14, 17, 20, 23`.
fn list(seqs: &[u64]) -> String {
    seqs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The scene proper, on a fresh mesh.
pub(super) fn play(n: &Narrator) -> DemoResult<SessionRun> {
    let m = Mesh::new(NODES, RoutingConfig::default())?;
    for id in ACTORS {
        m.activate(HOME, ObjectKind::Actor, id)?;
    }
    let session = m.open_session(OWNER, SESSION);
    let refs = ACTORS
        .iter()
        .map(|id| m.actor_ref(HOME, id))
        .collect::<Result<Vec<_>, _>>()?;
    let mut play = Play {
        m,
        session,
        refs,
        sent: vec![Vec::new(); ACTORS.len()],
        held: Vec::new(),
    };
    let bound = play.bind(n)?;

    play.stream(1..=SEAL_AFTER, false)?;
    play.expect_delivered("before the seal", false, &[])?;
    n.say(format_args!(
        "rounds 1-{SEAL_AFTER}: node-a relays one message per round to each actor on its stored route -> {} delivered on node-b",
        play.m.ledger.session_delivered.len()
    ));
    play.seal(n, &bound)?;

    play.stream(SEAL_AFTER + 1..=COMMIT_AFTER, true)?;
    play.expect_delivered("while sealed", true, &[])?;
    n.say(format_args!(
        "rounds {}-{COMMIT_AFTER}: {} and {} keep receiving on node-b; {}'s {} messages (seq {}) are Held on node-a",
        SEAL_AFTER + 1,
        ACTORS[0],
        ACTORS[2],
        ACTORS[MOVER],
        play.held.len(),
        list(&play.held),
    ));
    let released = play.commit(n, &bound)?;

    play.stream(COMMIT_AFTER + 1..=ROUNDS, false)?;
    let mover_at: Vec<NodeRid> = (0..play.sent[MOVER].len())
        .map(|k| {
            NodeRid(if k < SEAL_AFTER as usize {
                HOME
            } else {
                TARGET
            })
        })
        .collect();
    play.expect_delivered("after command 44", false, &mover_at)?;
    n.say(format_args!(
        "rounds {}-{ROUNDS}: all three again, {} now on node-c",
        COMMIT_AFTER + 1,
        ACTORS[MOVER]
    ));
    play.show_routes(n, &bound)?;

    // Order, per (session, actor), from the ledger.
    let delivered = play.m.ledger.session_delivered.clone();
    let messages_sent: u64 = play.sent.iter().map(|s| s.len() as u64).sum();
    let violations = order_violations(&delivered);
    ensure!(
        violations == 0,
        "{violations} deliveries out of session order"
    );
    ensure!(
        delivered.len() as u64 == messages_sent
            && play.m.in_flight() == 0
            && play.m.ledger.dropped.is_empty(),
        "{} of {messages_sent} messages delivered, {} frames in flight, {} dropped",
        delivered.len(),
        play.m.in_flight(),
        play.m.ledger.dropped.len()
    );
    n.say(format_args!(
        "{messages_sent} messages, {} delivered, each once; the session sequence rose on every delivery to each actor: {violations} order violations",
        delivered.len()
    ));

    play.push(n)?;
    let notified = play.disconnect(n)?;
    let mut all = delivered.clone();
    all.extend(notified);
    let violations = order_violations(&all);
    ensure!(
        violations == 0,
        "{violations} deliveries, disconnects included, out of session order"
    );
    let (relays, held, owner_lookups) = play.counters(n, messages_sent)?;
    Ok(SessionRun {
        messages_sent,
        delivered: delivered.len() as u64,
        relays,
        held,
        held_released: released,
        disconnect_notifications: ACTORS.len() as u64,
        pushes: 1,
        order_violations: violations,
        owner_lookups,
    })
}

impl Play {
    /// node-a binds the session to each Actor, starting from the ActorRef
    /// node-b handed out, and stores the route each bind reply verified.
    /// Returns the stored routes.
    fn bind(&mut self, n: &Narrator) -> DemoResult<Vec<BindingRoute>> {
        for r in &self.refs {
            ensure!(
                r.route.owner.rid == NodeRid(HOME) && r.route.lease_remaining_ms == 0,
                "node-b's ActorRef should name node-b and carry no lease view: {r:?}"
            );
            self.m.bind(OWNER, SESSION, r)?;
        }
        self.m.run();
        let mut bound = Vec::new();
        for (i, r) in self.refs.iter().enumerate() {
            let replies: Vec<&BindingRoute> = self
                .m
                .ledger
                .session_events
                .iter()
                .filter_map(|e| match e {
                    SessionEvent::Bound {
                        session,
                        actor,
                        route,
                    } if *session == self.session && *actor == r.actor => Some(&**route),
                    _ => None,
                })
                .collect();
            let [reply] = replies[..] else {
                return Err(Unexpected(format!(
                    "{} should get one bind reply, got {}",
                    ACTORS[i],
                    replies.len()
                ))
                .into());
            };
            let stored = self.route(i)?;
            ensure!(
                stored == *reply,
                "node-a should store {}'s route as its bind reply gave it: stored {stored:?}, reply {reply:?}",
                ACTORS[i]
            );
            let (asked, got) = (r.route, stored.route);
            ensure!(
                got.owner == asked.owner
                    && got.object_generation == asked.object_generation
                    && got.authority_owner_generation == asked.authority_owner_generation
                    && got.owner_lease_generation == asked.owner_lease_generation
                    && got.lease_remaining_ms > 0,
                "{}'s verified route should be the ActorRef's location with the owner's lease view: {got:?}",
                ACTORS[i]
            );
            bound.push(stored);
        }
        ensure!(
            self.m.ledger.session_events.len() == ACTORS.len(),
            "only the three bind replies should reach node-a: {:?}",
            self.m.ledger.session_events
        );
        let owner_lookups = lookups(&self.m.node(OWNER).stats());
        ensure!(
            owner_lookups == 0,
            "node-a should bind without any store read or cache lookup ({owner_lookups})"
        );
        let first = bound[0].route;
        // Each actor is its own incarnation (one store-wide generation
        // counter); they share the owner, its tenure and its lease.
        let tenure = |r: &ActorRoute| {
            (
                r.owner,
                r.authority_owner_generation,
                r.owner_lease_generation,
            )
        };
        ensure!(
            bound.iter().all(|b| tenure(&b.route) == tenure(&first)),
            "the three actors share one owner and its fences: {bound:?}"
        );
        n.say(format_args!(
            "node-b activates actors {}; node-a opens session {SESSION} and binds it to each, starting from the ActorRef node-b handed out",
            ACTORS.join(", ")
        ));
        n.say(format_args!(
            "node-a stores each route as its bind reply verified it: node-b, object gens {}, owner gen {}, lease gen {}, {}ms of lease left (an ActorRef carries none); no store read, no cache lookup",
            bound
                .iter()
                .map(|b| b.route.object_generation.to_string())
                .collect::<Vec<_>>()
                .join("/"),
            first.authority_owner_generation,
            first.owner_lease_generation,
            first.lease_remaining_ms,
        ));
        Ok(bound)
    }

    /// Relocation step 1: node-b seals the mover's binding by command 42;
    /// node-a answers 43 and keeps the route until command 44.
    fn seal(&mut self, n: &Narrator, bound: &[BindingRoute]) -> DemoResult {
        let mover = ACTORS[MOVER];
        let moving = self.m.seal_bound(mover, HOME, TARGET)?;
        self.m.run();
        let events = &self.m.ledger.session_events;
        ensure!(
            matches!(
                &events[ACTORS.len()..],
                [SessionEvent::Sealed { session, actor, relocation, sealed: true }]
                    if *session == self.session
                        && *actor == self.refs[MOVER].actor
                        && *relocation == moving.relocation
            ),
            "node-b should learn by command 43 that node-a sealed {mover}: {events:?}"
        );
        let now = self.route(MOVER)?;
        ensure!(
            now.route == bound[MOVER].route && now.binding == bound[MOVER].binding,
            "a seal should keep {mover}'s route until command 44: {now:?}"
        );
        n.say(format_args!(
            "{mover} starts moving to node-c: node-b sends command 42, node-a seals {mover}'s binding and answers 43"
        ));
        Ok(())
    }

    /// Relocation to the end: node-c commits and sends command 44 (one-way);
    /// node-a switches the mover's route and releases the held messages to
    /// node-c in order. Returns how many it released.
    fn commit(&mut self, n: &Narrator, bound: &[BindingRoute]) -> DemoResult<u64> {
        let mover = ACTORS[MOVER];
        let events = self.m.ledger.session_events.len();
        let before = self.m.ledger.session_delivered.len();
        self.m.commit_bound();
        ensure!(
            self.m.ledger.session_events.len() == events,
            "command 44 has no reply: {:?}",
            &self.m.ledger.session_events[events..]
        );
        let released: Vec<u64> = self.m.ledger.session_delivered[before..]
            .iter()
            .map(|(s, actor, seq, node)| -> DemoResult<u64> {
                ensure!(
                    *s == Self::id() && actor == mover && *node == NodeRid(TARGET),
                    "command 44 should release only {mover}'s held messages, to node-c: {actor} {seq} reached {}",
                    node_name(*node)
                );
                Ok(*seq)
            })
            .collect::<DemoResult<_>>()?;
        ensure!(
            released == self.held,
            "command 44 should release seq {:?} in order, released {released:?}",
            self.held
        );
        let moved = self.route(MOVER)?;
        let was = bound[MOVER].route;
        ensure!(
            moved.route.owner.rid == NodeRid(TARGET)
                && moved.route.object_generation == was.object_generation
                && moved.route.authority_owner_generation == was.authority_owner_generation.next()
                && moved.binding == bound[MOVER].binding
                && moved.session == self.session,
            "{mover}'s route should now name node-c, same incarnation and binding, next owner gen: {moved:?}"
        );
        n.say(format_args!(
            "node-c commits {mover} (owner gen {} -> {}) and sends command 44, one-way: node-a switches {mover}'s route to node-c and releases the held messages there, in order: seq {}",
            was.authority_owner_generation,
            moved.route.authority_owner_generation,
            list(&released),
        ));
        Ok(released.len() as u64)
    }

    /// One line per Actor: its stored route now. The two not relocated must
    /// be exactly as bound (route, token, generations).
    fn show_routes(&self, n: &Narrator, bound: &[BindingRoute]) -> DemoResult {
        for (i, id) in ACTORS.iter().enumerate() {
            let now = self.route(i)?;
            let verdict = if i == MOVER {
                "moved: same object gen, binding gen and token"
            } else {
                ensure!(
                    now == bound[i],
                    "{id} is not relocating: its route, token and generations must not change: {now:?}, was {:?}",
                    bound[i]
                );
                "unchanged since bind"
            };
            let r = now.route;
            n.say(format_args!(
                "  {id:<9} {}  object gen {}  owner gen {}  lease gen {}  binding gen {}  token {:016x}  {verdict}",
                node_name(r.owner.rid),
                r.object_generation,
                r.authority_owner_generation,
                r.owner_lease_generation,
                now.binding.generation,
                now.binding.token.get(),
            ));
        }
        Ok(())
    }

    /// The moved Actor pushes to the session on its binding: no lookup on
    /// node-c, and node-a takes it. The mesh has no push helper, so the
    /// scene carries the frame.
    fn push(&self, n: &Narrator) -> DemoResult {
        let mover = ACTORS[MOVER];
        let c = self.m.node(TARGET);
        let before = lookups(&c.stats());
        let push = c
            .push(&self.refs[MOVER].actor, &self.session, PUSH.as_bytes())?
            .ok_or_else(|| Unexpected(format!("node-c should hold {mover}'s binding")))?;
        ensure!(
            push.to == self.session.owner && lookups(&c.stats()) == before,
            "{mover}'s push should go to node-a on its binding, without a lookup"
        );
        match self.m.node(OWNER).on_frame(NodeRid(TARGET), &push.bytes) {
            Inbound::Session(SessionEvent::Pushed {
                session,
                actor,
                payload,
            }) if session == self.session
                && actor == self.refs[MOVER].actor
                && payload == PUSH.as_bytes() => {}
            other => {
                return Err(Unexpected(format!(
                    "node-a should take {mover}'s push, got {other:?}"
                ))
                .into());
            }
        }
        n.say(format_args!(
            "{mover} on node-c pushes {PUSH:?} to session {SESSION} on its binding, no lookup: node-a takes it"
        ));
        Ok(())
    }

    /// The connection closes: one disconnect notification per bound Actor
    /// on its stored route (carried by the scene: the mesh has no helper),
    /// then no binding is left anywhere. Returns the notifications as
    /// delivered.
    fn disconnect(&self, n: &Narrator) -> DemoResult<Vec<Delivered>> {
        let routes = (0..ACTORS.len())
            .map(|i| self.route(i))
            .collect::<DemoResult<Vec<_>>>()?;
        let owner = self.m.node(OWNER);
        let frames = owner.disconnect_session(Self::id(), true)?;
        ensure!(
            frames.len() == ACTORS.len(),
            "a disconnect should notify all {} bound actors, sent {}",
            ACTORS.len(),
            frames.len()
        );
        let mut notified = Vec::new();
        for frame in frames {
            let at = frame.to.rid;
            let d = match self.m.node(at.get()).on_frame(NodeRid(OWNER), &frame.bytes) {
                Inbound::SessionDeliver(d) => d,
                other => {
                    return Err(Unexpected(format!(
                        "{} should take the disconnect notification, got {other:?}",
                        node_name(at)
                    ))
                    .into());
                }
            };
            let i = ACTORS
                .iter()
                .position(|id| *id == d.actor.id())
                .ok_or_else(|| Unexpected(format!("a notification for {}", d.actor.id())))?;
            ensure!(
                d.kind == RelayKind::PhysicalDisconnect
                    && d.session == self.session
                    && frame.to == routes[i].route.owner,
                "{}'s disconnect notification should come on its stored route: {d:?} at {}",
                ACTORS[i],
                node_name(at)
            );
            notified.push((d.session.id, d.actor.id().to_owned(), d.sequence, at));
        }
        for (i, id) in ACTORS.iter().enumerate() {
            let actor = &self.refs[i].actor;
            let at = routes[i].route.owner.rid;
            ensure!(
                owner.binding(Self::id(), actor).is_none()
                    && self.m.node(at.get()).bound_sessions(actor).is_empty(),
                "after the disconnect {id}'s binding should be gone on node-a and {}",
                node_name(at)
            );
        }
        ensure!(
            matches!(
                owner.session_send(Self::id(), &self.refs[0].actor, b"late"),
                Err(SessionError::UnknownSession(_))
            ),
            "session {SESSION} should be closed"
        );
        n.say(format_args!(
            "the connection closes: node-a notifies {} and {} on node-b and {} on node-c on their stored routes, each after its last message; every binding is gone",
            ACTORS[0], ACTORS[2], ACTORS[MOVER]
        ));
        Ok(notified)
    }

    /// The runtimes' session counters agree with what the scene did:
    /// (relays, held, lookups on the Session owner).
    fn counters(&self, n: &Narrator, messages_sent: u64) -> DemoResult<(u64, u64, u64)> {
        let stats: Vec<Stats> = (1..=NODES).map(|rid| self.m.node(rid).stats()).collect();
        let relays: u64 = stats.iter().map(|s| s.sessions.relays).sum();
        let held: u64 = stats.iter().map(|s| s.sessions.held).sum();
        let owner = &stats[(OWNER - 1) as usize];
        let at_once = messages_sent - self.held.len() as u64;
        let direct = at_once + ACTORS.len() as u64;
        ensure!(
            owner.sessions.relays == relays && relays == direct,
            "node-a should count {direct} relays sent on a stored route (messages not held, and the disconnects), counted {}",
            owner.sessions.relays
        );
        ensure!(
            owner.sessions.held == held && held == self.held.len() as u64,
            "node-a should count {} held messages, counted {}",
            self.held.len(),
            owner.sessions.held
        );
        let owner_lookups = lookups(owner);
        ensure!(
            owner_lookups == 0,
            "node-a read the store or its cache {owner_lookups} times"
        );
        n.say(format_args!(
            "node-a sent {relays} relays on stored routes ({at_once} messages and {} disconnects) and held {held}, released by command 44; node-a never read the store or a cache",
            ACTORS.len(),
        ));
        Ok((relays, held, owner_lookups))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(actor: &str, seq: u64) -> Delivered {
        (SessionId(SESSION), actor.to_owned(), seq, NodeRid(HOME))
    }

    #[test]
    fn order_is_per_session_and_actor() {
        // Interleaved actors, each rising: no violation.
        let fine = [d("a", 1), d("b", 2), d("a", 3), d("b", 4)];
        assert_eq!(order_violations(&fine), 0);
        // A repeat and a step back, each counted once.
        let bad = [d("a", 1), d("a", 1), d("b", 5), d("b", 3), d("a", 2)];
        assert_eq!(order_violations(&bad), 2);
        // Another session's sequence is its own.
        let other = (SessionId(9), "a".to_owned(), 1, NodeRid(HOME));
        assert_eq!(order_violations(&[d("a", 5), other]), 0);
    }

    #[test]
    fn the_scene_relays_holds_and_keeps_order() {
        let run = play(&Narrator { quiet: true }).expect("the scene passes");
        assert_eq!(run.messages_sent, 36);
        assert_eq!(run.delivered, 36);
        assert_eq!(run.held, 4);
        assert_eq!(run.held_released, 4);
        // 32 messages sent at once, and three disconnect notifications.
        assert_eq!(run.relays, 35);
        assert_eq!(run.order_violations, 0);
        assert_eq!(run.pushes, 1);
        assert_eq!(run.owner_lookups, 0);
        let json = Value::Object(run.json());
        assert_eq!(
            json,
            json!({"session_relays": 35, "session_held": 4, "session_order_violations": 0})
        );
    }
}
