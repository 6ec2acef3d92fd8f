//! Contract tests for spec §5 "Session Bind And Relay" and the §3 rules
//! behind them (issue 5, items 1-4 and 7): one test per bullet part, named
//! after it, all on a `ManualClock` through the public surface, no sleeps.
//!
//! Frames are carried by hand between the nodes of a `Cluster` (its store
//! can be taken down and counted), so each test sees every frame; the mesh
//! harness runs the longer scenarios (three bound Actors, one relocating
//! mid-stream; seal timeout; abort; rebind across owners).
//!
//! The PerActor bullet of "Move And Message Follow" is covered here for its
//! routing half (ToSpot on Spot authority, ToActor on the per-Actor owner);
//! the independence of the Spot and Actor temporary queues is tested with
//! the relocation queues themselves (`core/src/relocation/tests.rs`).

mod cluster;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use cluster::{Cluster, ready};
use zlink_core::mesh::{Carried, Envelope, Mesh};
use zlink_core::wire::{
    self, ActorRoute, BindRefusal, BindResult, Binding, DecodeLimits, Frame, NodeRef, RelayKind,
    RouteChange, SessionFrame, SessionRef, SessionRefusal,
};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
/// The Session every test binds; node 1 owns it.
const SESSION: SessionId = SessionId(7);
const SESSION_OWNER: u64 = 1;
/// The default owner lease, so the default local admission deadline.
const LEASE_MS: u64 = 30_000;
/// The default `session_relocation_seal_timeout`.
const SEAL_TIMEOUT_MS: u64 = 10_000;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn actor(id: &str) -> ObjectKey {
    ObjectKey::new(ACTOR, id).expect("a valid id")
}

fn decode(bytes: &[u8]) -> SessionFrame {
    match wire::decode(bytes, &DecodeLimits::default()).expect("a valid frame") {
        Frame::Session(f) => f,
        other => panic!("expected a session frame, got {other:?}"),
    }
}

/// A Session the seal timeout closed, and the disconnect notifications
/// `on_timeout` returned for its other Actors.
#[derive(Debug)]
struct Closed {
    session: SessionRef,
    notifications: Vec<Outbound>,
}

/// Runs `rt`'s timers due now and returns the Sessions they closed.
fn closed_sessions(rt: &Runtime) -> Vec<Closed> {
    let mut closed: Vec<Closed> = Vec::new();
    for action in rt.on_timeout(rt.now()) {
        match action {
            Inbound::Session(SessionEvent::Closed { session }) => closed.push(Closed {
                session,
                notifications: Vec::new(),
            }),
            Inbound::Send(frames) => closed
                .last_mut()
                .expect("notifications follow their Closed event")
                .notifications
                .extend(frames),
            other => panic!("unexpected timer action {other:?}"),
        }
    }
    closed
}

fn encode(frame: SessionFrame) -> Vec<u8> {
    wire::encode(&Frame::Session(frame))
}

fn name(frame: &SessionFrame) -> &'static str {
    match frame {
        SessionFrame::Bind { .. } => "Bind",
        SessionFrame::BindReply { .. } => "BindReply",
        SessionFrame::Tombstone { .. } => "Tombstone",
        SessionFrame::TombstoneAck { .. } => "TombstoneAck",
        SessionFrame::Relay { .. } => "Relay",
        SessionFrame::Push { .. } => "Push",
        SessionFrame::Refused { .. } => "Refused",
        SessionFrame::Seal { .. } => "Seal(42)",
        SessionFrame::Sealed { .. } => "Sealed(43)",
        SessionFrame::Route { .. } => "Route(44)",
    }
}

fn sends(inbound: Inbound) -> Vec<Outbound> {
    match inbound {
        Inbound::Send(frames) => frames,
        other => panic!("expected frames to send, got {other:?}"),
    }
}

/// The one frame a node answered with.
fn one(inbound: Inbound) -> Outbound {
    let mut frames = sends(inbound);
    assert_eq!(frames.len(), 1, "expected one frame, got {frames:?}");
    frames.remove(0)
}

fn sent(send: SessionSend) -> (OperationId, u64, Outbound) {
    match send {
        SessionSend::Sent {
            operation_id,
            sequence,
            outbound,
        } => (operation_id, sequence, outbound),
        other => panic!("expected Sent, got {other:?}"),
    }
}

fn held(send: SessionSend) -> (OperationId, u64) {
    match send {
        SessionSend::Held {
            operation_id,
            sequence,
        } => (operation_id, sequence),
        other => panic!("expected Held, got {other:?}"),
    }
}

/// What carrying frames between cluster nodes did.
#[derive(Debug, Default)]
struct Trace {
    /// Every frame carried, in carry order, with its receiving node.
    frames: Vec<(u64, SessionFrame)>,
    /// Relays admitted on Actor owners, in order, with the node.
    delivered: Vec<(u64, SessionDelivery)>,
    /// Session-side events, in order, with the node.
    events: Vec<(u64, SessionEvent)>,
}

impl Trace {
    fn names(&self) -> Vec<(&'static str, u64)> {
        self.frames.iter().map(|(to, f)| (name(f), *to)).collect()
    }

    /// (node, sequence, payload) of every delivery to `id`, in order.
    fn deliveries(&self, id: &str) -> Vec<(u64, u64, Vec<u8>)> {
        self.delivered
            .iter()
            .filter(|(_, d)| d.actor.id() == id)
            .map(|(node, d)| (*node, d.sequence, d.payload.clone()))
            .collect()
    }

    fn merge(&mut self, other: Trace) {
        self.frames.extend(other.frames);
        self.delivered.extend(other.delivered);
        self.events.extend(other.events);
    }
}

/// Carries `frames`, and every frame the receivers answer with, in FIFO
/// order until nothing is left.
fn carry(c: &Cluster, frames: impl IntoIterator<Item = Outbound>) -> Trace {
    let mut trace = Trace::default();
    let mut queue: VecDeque<(NodeRid, Outbound)> = frames
        .into_iter()
        .map(|f| (c.sender_of(&f.bytes), f))
        .collect();
    while let Some((from, frame)) = queue.pop_front() {
        let to = frame.to.rid.get();
        trace.frames.push((to, decode(&frame.bytes)));
        match c.node(to).on_frame(from, &frame.bytes) {
            Inbound::Send(more) => queue.extend(more.into_iter().map(|f| (NodeRid(to), f))),
            Inbound::SessionDeliver(d) => trace.delivered.push((to, d)),
            Inbound::Session(e) => trace.events.push((to, e)),
            other => panic!("unexpected {other:?} at node {to}"),
        }
    }
    trace
}

/// Node 1 binds Session 7 to what `r` names; the frames are carried.
fn bind(c: &Cluster, r: &ActorRef) -> Trace {
    let frame = c
        .node(SESSION_OWNER)
        .bind(SESSION, r)
        .expect("an open session");
    carry(c, [frame])
}

/// A bind that must succeed: the stored route.
fn bound(c: &Cluster, r: &ActorRef) -> BindingRoute {
    let trace = bind(c, r);
    match trace.events.as_slice() {
        [(1, SessionEvent::Bound { route, .. })] => {
            assert_eq!(binding(c, &r.actor).as_ref(), Some(route.as_ref()));
            *route.clone()
        }
        other => panic!("expected Bound, got {other:?}"),
    }
}

fn binding(c: &Cluster, key: &ObjectKey) -> Option<BindingRoute> {
    c.node(SESSION_OWNER).binding(SESSION, key)
}

fn session_send(c: &Cluster, id: &str, payload: &[u8]) -> SessionSend {
    c.node(SESSION_OWNER)
        .session_send(SESSION, &actor(id), payload)
        .expect("a bound actor")
}

/// Cluster of `n` nodes; node 1 owns Session 7; each `(id, node)` Actor is
/// activated there and bound.
fn bound_cluster(n: u64, config: RoutingConfig, actors: &[(&str, u64)]) -> (Cluster, SessionRef) {
    let c = Cluster::new(n, config);
    let session = c
        .node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(1));
    for (id, node) in actors {
        c.node(*node).activate(ACTOR, id).expect("activation");
        bound(&c, &c.actor_ref(*node, id));
    }
    (c, session)
}

/// Moves Actor `id` from `from` to `to` with a Message Follow route.
fn relocate(c: &Cluster, id: &str, from: u64, to: u64) {
    relocate_kind(c, ACTOR, id, from, to);
}

/// Moves `id` from `from` to `to` by the relocation protocol (owner CAS on
/// the target, a Message Follow route on the source); the command 42/44
/// frames for Session owners are not carried.
fn relocate_kind(c: &Cluster, kind: ObjectKind, id: &str, from: u64, to: u64) {
    c.relocate(kind, id, from, to);
}

thread_local! {
    /// Relocations begun by `seal`: the Actor, its parked Restore (with its
    /// sender) and the relocation's identity.
    static SEALED: std::cell::RefCell<Vec<(String, NodeRid, Outbound, RelocationId)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The relocation `seal` began for Actor `id`.
fn relocation_of(id: &str) -> RelocationId {
    SEALED.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .find(|(a, ..)| a == id)
            .map(|(.., r)| *r)
            .expect("sealed")
    })
}

/// §3.3 step 1 on the source: `begin_relocation` of Actor `id` toward node
/// 3; command 42 to every bound Session is carried (with the command 43
/// answers); the Restore is parked until `commit`.
fn seal(c: &Cluster, id: &str, from: u64, _relocation: u64) -> Trace {
    let started = c
        .node(from)
        .begin_relocation(ACTOR, id, c.node(3).node_ref(), Capture::default())
        .expect("the source owns it");
    let mut frames = started.send.into_iter();
    let restore = frames.next().expect("the Restore");
    SEALED.with(|s| {
        s.borrow_mut().push((
            id.to_owned(),
            NodeRid(from),
            restore,
            started.identity.relocation,
        ))
    });
    carry(c, frames)
}

/// The rest of §3.3 once sealed: the parked Restore goes to the target, the
/// protocol runs (relay-ready, cutover, owner CAS), and the target's command
/// 44 commit frames are returned, not yet carried.
fn commit(c: &Cluster, id: &str, from: u64, to: u64, _relocation: u64) -> Vec<Outbound> {
    let (sender, restore) = SEALED.with(|s| {
        let s = s.borrow();
        let i = s.iter().rposition(|(a, ..)| a == id).expect("sealed");
        let (_, sender, restore, _) = s[i].clone();
        (sender, restore)
    });
    cluster::carry_relocation(
        &[c.node(from), c.node(to)],
        vec![(sender, restore)],
        ACTOR,
        id,
    )
}

/// The source `rid` gives up its move on its relocation timeout (no
/// relay-ready came: the Restore was parked); everything it sends, command
/// 44 abort included, is lost.
fn abort_lost(c: &Cluster, rid: u64) {
    let node = c.node(rid);
    // Its Abort is lost too: it fences the store on its next deadline.
    for _ in 0..3 {
        let actions = node.on_timeout(node.now());
        let unsealed = actions.iter().any(|a| {
            matches!(
                a,
                Inbound::Relocation(RelocationAction {
                    event: RelocationEvent::Aborted { .. },
                    ..
                })
            )
        });
        if unsealed {
            return;
        }
        c.advance_ms(5_000);
    }
    panic!("the move was never abandoned");
}

/// Explicit failure before relay-ready on the source: the command 44 abort
/// frames for the Session owners, once the target (which never got the
/// parked Restore) confirmed.
fn abort(c: &Cluster, id: &str, from: u64) -> Vec<Outbound> {
    let action = cluster::abort_relocation(c.node(from), c.node(3), ACTOR, id);
    action
        .send
        .into_iter()
        .filter(|f| f.to.rid == NodeRid(SESSION_OWNER))
        .collect()
}

fn route_frame(frame: &Outbound) -> (Binding, ObjectGeneration, RelocationId, RouteChange) {
    match decode(&frame.bytes) {
        SessionFrame::Route {
            binding,
            object_generation,
            relocation,
            change,
            ..
        } => (binding, object_generation, relocation, change),
        other => panic!("expected command 44, got {other:?}"),
    }
}

fn store_reads(c: &Cluster, nodes: u64) -> Vec<u64> {
    (1..=nodes).map(|n| c.node(n).stats().store_reads).collect()
}

// Bullet 1: "Bind uses the caller's ActorRef location as the initial route,
// and only a verified route is stored in the Session owner binding." --------

#[test]
fn bind_uses_the_callers_actor_ref_location_as_the_initial_route() {
    let c = Cluster::with_defaults(3);
    c.node(2).activate(ACTOR, "a1").unwrap();
    let session = c
        .node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(1));
    let r = c.actor_ref(2, "a1");
    // No lookup can happen: the store is down for the whole bind.
    c.store.set_down(true);
    let (calls, reads) = (c.store.calls(), store_reads(&c, 3));

    let frame = c.node(SESSION_OWNER).bind(SESSION, &r).unwrap();
    assert_eq!(frame.to, r.route.owner, "sent where the ActorRef points");
    match decode(&frame.bytes) {
        SessionFrame::Bind {
            session: s,
            actor: a,
            route,
            previous,
            ..
        } => {
            assert_eq!((s, a, previous), (session, r.actor.clone(), None));
            assert_eq!(route, r.route, "the ActorRef's location and fences");
        }
        other => panic!("expected a bind, got {other:?}"),
    }
    let trace = carry(&c, [frame]);
    assert_eq!(trace.names(), [("Bind", 2), ("BindReply", 1)]);
    let stored = binding(&c, &r.actor).expect("bound");
    assert_eq!(stored.route.owner, r.route.owner);
    assert_eq!(c.store.calls(), calls, "nothing reached the store");
    assert_eq!(store_reads(&c, 3), reads, "no node read the store");
}

#[test]
fn bind_starts_from_a_stale_actor_ref_location_and_does_not_look_the_actor_up() {
    let c = Cluster::with_defaults(3);
    c.node(2).activate(ACTOR, "a1").unwrap();
    c.node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(1));
    let stale = c.actor_ref(2, "a1");
    relocate(&c, "a1", 2, 3);
    let reads = store_reads(&c, 3);

    let trace = bind(&c, &stale);
    assert_eq!(
        trace.names(),
        [("Bind", 2), ("BindReply", 1)],
        "the bind went to the ActorRef's node, not to the current owner"
    );
    assert!(matches!(
        trace.events.as_slice(),
        [(
            1,
            SessionEvent::BindRefused {
                reason: BindRefusal::NotOwner,
                ..
            }
        )]
    ));
    assert_eq!(binding(&c, &stale.actor), None, "nothing stored");
    assert!(c.node(3).bound_sessions(&stale.actor).is_empty());
    assert_eq!(store_reads(&c, 3), reads, "no lookup on any node");

    // The application binds again with a current ActorRef.
    let current = bound(&c, &c.actor_ref(3, "a1"));
    assert_eq!(current.route.owner.rid, NodeRid(3));
}

#[test]
fn only_a_verified_route_is_stored_in_the_session_owner_binding() {
    let c = Cluster::with_defaults(2);
    c.node(2).activate(ACTOR, "a1").unwrap();
    let session = c
        .node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(1));
    let r = c.actor_ref(2, "a1");
    let start = c.clock.now();

    let frame = c.node(SESSION_OWNER).bind(SESSION, &r).unwrap();
    // Until the terminal reply nothing is stored and nothing can be relayed.
    assert_eq!(binding(&c, &r.actor), None);
    assert_eq!(
        c.node(SESSION_OWNER).session_send(SESSION, &r.actor, b"x"),
        Err(SessionError::NotBound {
            session: SESSION,
            actor: r.actor.clone()
        })
    );
    let reply = one(c.node(2).on_frame(c.sender_of(&frame.bytes), &frame.bytes));
    assert_eq!(binding(&c, &r.actor), None, "still only the owner knows");
    // The owner registered the binding before its terminal reply.
    let registered = c.node(2).bound_sessions(&r.actor);
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0].session, session);
    let (verified, issued) = match decode(&reply.bytes) {
        SessionFrame::BindReply {
            result: BindResult::Bound { route, binding },
            ..
        } => (route, binding),
        other => panic!("expected Bound, got {other:?}"),
    };
    assert_eq!(issued, registered[0].binding);
    carry(&c, [reply]);

    // The §3.1 table: every field is the owner's verified view.
    let owned = c.node(2).owned(r.actor.as_ref()).unwrap();
    let stored = binding(&c, &r.actor).expect("bound");
    assert_eq!(stored.actor, r.actor);
    assert_eq!(stored.route, verified);
    assert_eq!(stored.route.owner, c.node(2).node_ref());
    assert_eq!(stored.route.object_generation, owned.object_generation);
    assert_eq!(
        stored.route.authority_owner_generation,
        owned.authority_owner_generation
    );
    assert_eq!(stored.route.owner_lease_generation, owned.lease_generation);
    assert_eq!(stored.route.lease_remaining_ms, LEASE_MS);
    assert_eq!(stored.binding, issued);
    assert_eq!(stored.session, session);
    assert_eq!(stored.admission_deadline, start.after(ms(LEASE_MS)));
}

#[test]
fn a_refused_bind_stores_nothing_and_keeps_the_previous_route() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let before = binding(&c, &key).unwrap();
    let registered = c.node(2).bound_sessions(&key);
    let good = c.actor_ref(2, "a1");

    let mut other_incarnation = good.clone();
    other_incarnation.route.object_generation = good.route.object_generation.next();
    let mut other_node_generation = good.clone();
    other_node_generation.route.owner.generation = good.route.owner.generation.next();
    let mut other_owner_generation = good.clone();
    other_owner_generation.route.authority_owner_generation =
        good.route.authority_owner_generation.next();
    let mut other_lease = good.clone();
    other_lease.route.owner_lease_generation = good.route.owner_lease_generation.next();
    let mut not_the_owner = good.clone();
    not_the_owner.route.owner = c.node(3).node_ref();

    for (forged, why) in [
        (other_incarnation, BindRefusal::ObjectGeneration),
        (other_node_generation, BindRefusal::NodeGeneration),
        (other_owner_generation, BindRefusal::OwnerGeneration),
        (other_lease, BindRefusal::OwnerLease),
        (not_the_owner, BindRefusal::NotOwner),
    ] {
        let trace = bind(&c, &forged);
        match trace.events.as_slice() {
            [(1, SessionEvent::BindRefused { reason, .. })] => assert_eq!(*reason, why),
            other => panic!("expected BindRefused({why:?}), got {other:?}"),
        }
        assert_eq!(
            binding(&c, &key).as_ref(),
            Some(&before),
            "{why:?} changed the stored route"
        );
        assert_eq!(
            c.node(2).bound_sessions(&key),
            registered,
            "{why:?} registered"
        );
        assert!(c.node(3).bound_sessions(&key).is_empty());
    }

    // The previous route still carries the Session's messages.
    let (_, _, frame) = sent(session_send(&c, "a1", b"still here"));
    let trace = carry(&c, [frame]);
    assert_eq!(trace.deliveries("a1"), [(2, 1, b"still here".to_vec())]);
}

#[test]
fn a_bind_after_the_owner_lease_ran_out_is_refused_and_stores_nothing() {
    let c = Cluster::with_defaults(2);
    c.node(2).activate(ACTOR, "a1").unwrap();
    c.node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(1));
    let r = c.actor_ref(2, "a1");
    c.advance_ms(LEASE_MS);
    let trace = bind(&c, &r);
    assert!(matches!(
        trace.events.as_slice(),
        [(
            1,
            SessionEvent::BindRefused {
                reason: BindRefusal::OwnerLease,
                ..
            }
        )]
    ));
    assert_eq!(binding(&c, &r.actor), None);
    assert!(c.node(2).bound_sessions(&r.actor).is_empty());
}

// Bullet 2: "Session relay, disconnect, and Actor push use the stored binding
// route without querying the Location Store per message." ------------------

#[test]
fn session_relay_uses_the_stored_binding_route_without_querying_the_location_store() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
    let stored = [
        binding(&c, &actor("a1")).unwrap(),
        binding(&c, &actor("a2")).unwrap(),
    ];
    c.store.set_down(true);
    let (calls, reads) = (c.store.calls(), store_reads(&c, 3));

    let mut frames = Vec::new();
    for i in 0..50u64 {
        let b = &stored[(i % 2) as usize];
        let (operation_id, sequence, frame) =
            sent(session_send(&c, b.actor.id(), &i.to_be_bytes()));
        assert_eq!(sequence, i + 1, "the Session's order");
        assert_eq!(frame.to, b.route.owner, "on the stored route");
        assert_eq!(
            decode(&frame.bytes),
            SessionFrame::Relay {
                operation_id,
                session,
                actor: b.actor.clone(),
                binding: b.binding,
                route: b.route,
                sequence,
                hop_count: 0,
                relayer: None,
                kind: RelayKind::Message,
                payload: i.to_be_bytes().to_vec(),
            }
        );
        frames.push(frame);
    }
    let trace = carry(&c, frames);
    let a1: Vec<u64> = trace.deliveries("a1").iter().map(|d| d.1).collect();
    let a2: Vec<u64> = trace.deliveries("a2").iter().map(|d| d.1).collect();
    assert_eq!(a1, (1..=50).step_by(2).collect::<Vec<_>>());
    assert_eq!(a2, (2..=50).step_by(2).collect::<Vec<_>>());
    assert!(trace.deliveries("a1").iter().all(|d| d.0 == 2));
    assert!(trace.deliveries("a2").iter().all(|d| d.0 == 3));
    assert_eq!(c.store.calls(), calls, "nothing reached the store");
    assert_eq!(store_reads(&c, 3), reads, "no node read the store");
    assert_eq!(c.node(SESSION_OWNER).stats().sessions.relays, 50);
}

#[test]
fn disconnect_uses_the_stored_binding_route_without_querying_the_location_store() {
    for (physical, kind) in [
        (true, RelayKind::PhysicalDisconnect),
        (false, RelayKind::LogicalDisconnect),
    ] {
        let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
        let routes = [
            binding(&c, &actor("a1")).unwrap(),
            binding(&c, &actor("a2")).unwrap(),
        ];
        c.store.set_down(true);
        let (calls, reads) = (c.store.calls(), store_reads(&c, 3));

        let frames = c
            .node(SESSION_OWNER)
            .disconnect_session(SESSION, physical)
            .unwrap();
        let mut to: Vec<NodeRef> = frames.iter().map(|f| f.to).collect();
        to.sort_by_key(|n| n.rid);
        assert_eq!(to, [routes[0].route.owner, routes[1].route.owner]);
        let trace = carry(&c, frames);
        let mut notified: Vec<(u64, &str, RelayKind, SessionRef)> = trace
            .delivered
            .iter()
            .map(|(n, d)| (*n, d.actor.id(), d.kind, d.session))
            .collect();
        notified.sort_by_key(|(n, id, _, _)| (*n, id.to_string()));
        assert_eq!(
            notified,
            [(2, "a1", kind, session), (3, "a2", kind, session)]
        );
        assert_eq!(c.store.calls(), calls, "nothing reached the store");
        assert_eq!(store_reads(&c, 3), reads, "no node read the store");
    }
}

#[test]
fn actor_push_uses_the_stored_binding_route_without_querying_the_location_store() {
    let (c, session) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    c.store.set_down(true);
    let (calls, reads) = (c.store.calls(), store_reads(&c, 2));

    let mut frames = Vec::new();
    for i in 0..10u8 {
        let frame = c
            .node(2)
            .push(&key, &session, &[i])
            .expect("within the bound")
            .expect("a binding");
        assert_eq!(frame.to, session.owner, "on the binding");
        frames.push(frame);
    }
    let trace = carry(&c, frames);
    let pushed: Vec<Vec<u8>> = trace
        .events
        .iter()
        .map(|(node, e)| match e {
            SessionEvent::Pushed {
                session: s,
                actor: a,
                payload,
            } if *node == 1 && *s == session && *a == key => payload.clone(),
            other => panic!("expected Pushed, got {other:?}"),
        })
        .collect();
    assert_eq!(pushed, (0..10u8).map(|i| vec![i]).collect::<Vec<_>>());
    assert_eq!(c.store.calls(), calls, "nothing reached the store");
    assert_eq!(store_reads(&c, 2), reads, "no node read the store");
}

#[test]
fn a_push_on_a_binding_the_session_no_longer_holds_is_ignored() {
    let (c, session) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let late = c.node(2).push(&key, &session, b"old").unwrap().unwrap();
    bound(&c, &c.actor_ref(2, "a1"));
    let trace = carry(&c, [late]);
    assert!(matches!(
        trace.events.as_slice(),
        [(1, SessionEvent::Ignored(_))]
    ));
}

// Bullet 3: "Actor relocation applies command 44 sessionRelocationRoute
// one-way for the same ObjectGeneration, changing only that Actor's binding
// route while keeping the route and physical STREAM connection of another
// Actor not included in the relocation." ------------------------------------

#[test]
fn actor_relocation_applies_command_44_one_way_for_the_same_object_generation() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let before = binding(&c, &key).unwrap();
    seal(&c, "a1", 2, 5);
    let frames = commit(&c, "a1", 2, 3, 5);
    assert_eq!(frames.len(), 1, "one command 44 per bound Session");
    assert_eq!(frames[0].to, session.owner);
    let (b, generation, relocation, change) = route_frame(&frames[0]);
    assert_eq!(b, before.binding);
    assert_eq!(generation, before.route.object_generation);
    assert_eq!(relocation, relocation_of("a1"));
    let RouteChange::Commit(new_route) = change else {
        panic!("expected a commit, got {change:?}");
    };
    assert_eq!(new_route.owner, c.node(3).node_ref());
    assert_eq!(new_route.object_generation, before.route.object_generation);
    assert!(new_route.authority_owner_generation > before.route.authority_owner_generation);

    let trace = carry(&c, frames);
    assert_eq!(
        trace.names(),
        [("Route(44)", 1)],
        "one-way: nothing answers"
    );
    let after = binding(&c, &key).unwrap();
    assert_eq!(after.route, new_route);
    assert_eq!(after.binding, before.binding, "the same binding");
    assert_eq!(after.session, before.session);
    let (_, _, frame) = sent(session_send(&c, "a1", b"there"));
    assert_eq!(
        carry(&c, [frame]).deliveries("a1"),
        [(3, 1, b"there".to_vec())]
    );
}

#[test]
fn command_44_changes_only_that_actors_binding_route_and_keeps_the_other_actor_and_the_session() {
    // a2 shares a1's owner, so only the binding tells them apart.
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 2)]);
    let other = binding(&c, &actor("a2")).unwrap();
    let other_registration = c.node(2).bound_sessions(&actor("a2"));

    seal(&c, "a1", 2, 5);
    // While a1 is sealed, a2 is not held.
    let (_, s1, f1) = sent(session_send(&c, "a2", b"during"));
    let (_, s2) = held(session_send(&c, "a1", b"held"));
    carry(&c, commit(&c, "a1", 2, 3, 5));
    let (_, s3, f3) = sent(session_send(&c, "a2", b"after"));
    let (_, s4, f4) = sent(session_send(&c, "a1", b"after"));
    assert!(s1 < s2 && s2 < s3 && s3 < s4, "one Session, one order");

    assert_eq!(
        binding(&c, &actor("a2")).as_ref(),
        Some(&other),
        "route, token, generation and deadline kept"
    );
    assert_eq!(c.node(2).bound_sessions(&actor("a2")), other_registration);
    assert_eq!(
        binding(&c, &actor("a1")).unwrap().route.owner.rid,
        NodeRid(3)
    );
    let trace = carry(&c, [f1, f3, f4]);
    assert_eq!(
        trace.deliveries("a2"),
        [(2, s1, b"during".to_vec()), (2, s3, b"after".to_vec())]
    );
    assert_eq!(trace.deliveries("a1"), [(3, s4, b"after".to_vec())]);
    assert!(trace.delivered.iter().all(|(_, d)| d.session == session));
}

// Bullet 4: "Command 44 has no response and isn't retried as a request.
// Target Actor processing doesn't wait for its application, and the source
// Message Follow route delivers a message arriving on the previous route for
// MessageFollowDuration." ---------------------------------------------------

#[test]
fn command_44_has_no_response() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let second = c
        .node(SESSION_OWNER)
        .open_session(SessionId(8), SessionGeneration(1));
    let r = c.actor_ref(2, "a1");
    carry(&c, [c.node(SESSION_OWNER).bind(second.id, &r).unwrap()]);

    seal(&c, "a1", 2, 5);
    let (h1, _) = held(session_send(&c, "a1", b"h1"));
    let (h2, _) = held(session_send(&c, "a1", b"h2"));
    let frames = commit(&c, "a1", 2, 3, 5);
    assert_eq!(frames.len(), 2);
    for frame in frames {
        let session = match decode(&frame.bytes) {
            SessionFrame::Route { session, .. } => session,
            other => panic!("expected command 44, got {other:?}"),
        };
        let answered = sends(
            c.node(SESSION_OWNER)
                .on_frame(c.sender_of(&frame.bytes), &frame.bytes),
        );
        if session.id == SESSION {
            // Only the held messages leave, for the Actor: no reply.
            let relays: Vec<OperationId> = answered
                .iter()
                .map(|f| match decode(&f.bytes) {
                    SessionFrame::Relay { operation_id, .. } => operation_id,
                    other => panic!("command 44 answered with {other:?}"),
                })
                .collect();
            assert_eq!(relays, [h1, h2]);
        } else {
            assert!(answered.is_empty(), "nothing held, nothing sent");
        }
    }
}

#[test]
fn command_44_is_not_retried_as_a_request() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(2, ACTOR, "a1").unwrap();
    m.open_session(1, 7);
    let r = m.actor_ref(2, "a1").unwrap();
    m.bind(1, 7, &r).unwrap();
    m.run();
    // Every command 44 is lost.
    let seen = tap(&mut m, |f| matches!(f, SessionFrame::Route { .. }));
    m.relocate(ACTOR, "a1", 2, 3).unwrap();
    m.run();
    let routes = || {
        seen.borrow()
            .iter()
            .filter(|(_, _, f)| matches!(f, SessionFrame::Route { .. }))
            .count()
    };
    assert_eq!(routes(), 1, "sent once");
    assert_eq!(m.ledger.dropped, [Carried::Session]);
    // Time passes, nobody sends it again: the target waits for no answer.
    m.clock.advance(ms(SEAL_TIMEOUT_MS - 1));
    m.run();
    assert_eq!(m.in_flight(), 0);
    assert_eq!(routes(), 1, "never re-sent");
    assert!(
        m.node(1).binding(SESSION, &r.actor).is_some(),
        "still sealed, within the seal timeout"
    );
}

#[test]
fn target_actor_processing_does_not_wait_for_command_44() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let (first, s1, early) = sent(session_send(&c, "a1", b"early"));
    seal(&c, "a1", 2, 5);
    let (_, s2) = held(session_send(&c, "a1", b"held"));
    let route_commands = commit(&c, "a1", 2, 3, 5);

    // Command 44 is still on its way; the target already processes what
    // reaches it.
    let trace = carry(&c, [early]);
    assert_eq!(trace.names(), [("Relay", 2), ("Relay", 3)]);
    assert_eq!(trace.deliveries("a1"), [(3, s1, b"early".to_vec())]);
    assert_eq!(trace.delivered[0].1.operation_id, first);
    assert!(
        matches!(session_send(&c, "a1", b"x"), SessionSend::Held { .. }),
        "the Session owner has not switched yet"
    );

    let trace = carry(&c, route_commands);
    let seqs: Vec<u64> = trace.deliveries("a1").iter().map(|d| d.1).collect();
    assert_eq!(seqs, [s2, s2 + 1]);
}

#[test]
fn a_message_arriving_on_the_previous_route_is_delivered_to_the_target_by_the_source_message_follow_route()
 {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let before = binding(&c, &actor("a1")).unwrap();
    let (operation_id, sequence, late) = sent(session_send(&c, "a1", b"late"));
    seal(&c, "a1", 2, 5);
    carry(&c, commit(&c, "a1", 2, 3, 5));
    c.store.set_down(true);
    let (calls, relays) = (c.store.calls(), c.node(2).stats().follow.relays);

    let forward = one(c.node(2).on_frame(c.sender_of(&late.bytes), &late.bytes));
    assert_eq!(forward.to, c.node(3).node_ref());
    match decode(&forward.bytes) {
        SessionFrame::Relay {
            operation_id: op,
            session: s,
            binding: b,
            sequence: seq,
            hop_count,
            kind,
            payload,
            ..
        } => {
            assert_eq!(
                (op, s, b, seq),
                (operation_id, session, before.binding, sequence)
            );
            assert_eq!(
                (hop_count, kind, payload),
                (1, RelayKind::Message, b"late".to_vec())
            );
        }
        other => panic!("expected a relay, got {other:?}"),
    }
    assert_eq!(c.node(2).stats().follow.relays, relays + 1);
    let trace = carry(&c, [forward]);
    assert_eq!(trace.delivered.len(), 1, "exactly once");
    let (node, d) = &trace.delivered[0];
    assert_eq!(
        (*node, d.operation_id, d.sequence),
        (3, operation_id, sequence)
    );
    assert_eq!(c.store.calls(), calls, "the relay read no store");
}

#[test]
fn the_source_message_follow_route_delivers_for_message_follow_duration_and_not_after() {
    let config = RoutingConfig {
        message_follow_duration: ms(10_000),
        route_cache_max_age: ms(5_000),
        ..RoutingConfig::default()
    };
    let (c, session) = bound_cluster(3, config, &[("a1", 2)]);
    let (_, s1, within) = sent(session_send(&c, "a1", b"within"));
    let (expired_id, _, expired) = sent(session_send(&c, "a1", b"expired"));
    seal(&c, "a1", 2, 5);
    carry(&c, commit(&c, "a1", 2, 3, 5));

    c.advance_ms(9_999);
    let trace = carry(&c, [within]);
    assert_eq!(trace.deliveries("a1"), [(3, s1, b"within".to_vec())]);
    c.advance_ms(1);
    let trace = carry(&c, [expired]);
    assert!(trace.delivered.is_empty());
    assert_eq!(
        trace.events,
        [(
            1,
            SessionEvent::RelayRefused {
                operation_id: expired_id,
                session,
                actor: actor("a1"),
                reason: SessionRefusal::StaleRoute,
            }
        )]
    );
}

// §5 "Move And Message Follow", PerActor bullet (the routing half; the
// independent temporary queues are the relocation module's): "In PerActor
// User Spot relocation, ToSpot uses Spot authority and ToActor uses the
// per-Actor current owner." ---------------------------------------------------

#[test]
fn in_per_actor_relocation_to_spot_uses_spot_authority_and_to_actor_uses_the_per_actor_owner() {
    let (c, _) = bound_cluster(4, RoutingConfig::default(), &[("a1", 2)]);
    c.node(2).activate(ObjectKind::Spot, "room").unwrap();
    // Node 4 holds direct routes to both.
    ready(c.node(4).resolve(ObjectKind::Spot, "room").unwrap());
    ready(c.node(4).resolve(ACTOR, "a1").unwrap());

    // The Spot moves; its Actor is still on the source.
    relocate_kind(&c, ObjectKind::Spot, "room", 2, 3);
    let fresh = c.node(1);
    let spot = ready(fresh.resolve(ObjectKind::Spot, "room").unwrap());
    let member = ready(fresh.resolve(ACTOR, "a1").unwrap());
    assert_eq!(spot.route.node, NodeRid(3), "ToSpot: Spot authority");
    assert_eq!(
        member.route.node,
        NodeRid(2),
        "ToActor: the Actor's own owner"
    );
    // The Actor keeps the source route, for direct sends and the Session.
    let Sent::Submitted { outbound, .. } = c
        .node(4)
        .send(ACTOR, "a1", b"direct", SendOptions::default())
        .unwrap()
    else {
        panic!("expected Submitted");
    };
    assert!(matches!(
        c.node(2)
            .on_frame(c.sender_of(&outbound.bytes), &outbound.bytes),
        Inbound::Deliver(_)
    ));
    let (_, s1, f) = sent(session_send(&c, "a1", b"bound"));
    assert_eq!(
        carry(&c, [f]).deliveries("a1"),
        [(2, s1, b"bound".to_vec())]
    );

    // Once the Actor's own owner CAS succeeds, the previous owner relays to
    // the target on that Actor's Message Follow route.
    let (_, s2, late) = sent(session_send(&c, "a1", b"late"));
    seal(&c, "a1", 2, 5);
    carry(&c, commit(&c, "a1", 2, 3, 5));
    let Sent::Submitted { outbound, .. } = c
        .node(4)
        .send(ACTOR, "a1", b"cached", SendOptions::default())
        .unwrap()
    else {
        panic!("expected Submitted");
    };
    assert_eq!(
        outbound.to.rid,
        NodeRid(2),
        "node 4 still has the old route"
    );
    let Inbound::Relay { forward, .. } = c
        .node(2)
        .on_frame(c.sender_of(&outbound.bytes), &outbound.bytes)
    else {
        panic!("expected a Message Follow relay");
    };
    assert_eq!(forward.to.rid, NodeRid(3));
    assert!(matches!(
        c.node(3)
            .on_frame(c.sender_of(&forward.bytes), &forward.bytes),
        Inbound::Deliver(_)
    ));
    assert_eq!(
        carry(&c, [late]).deliveries("a1"),
        [(3, s2, b"late".to_vec())]
    );
}

// §3.1: rebind, tombstones, late frames of a replaced binding ---------------

#[test]
fn rebind_to_another_owner_registers_tombstones_the_previous_owner_and_replies_only_after_the_ack()
{
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let old = binding(&c, &key).unwrap();
    // The Actor moved without the Session (its old owner kept the binding).
    relocate(&c, "a1", 2, 3);
    let new_ref = c.actor_ref(3, "a1");

    let bind_frame = c.node(SESSION_OWNER).bind(SESSION, &new_ref).unwrap();
    assert!(matches!(
        decode(&bind_frame.bytes),
        SessionFrame::Bind { previous: Some((owner, b)), .. } if owner == old.route.owner && b == old.binding
    ));
    // The new owner registers, then tombstones the previous owner; no reply.
    let tombstone = one(c
        .node(3)
        .on_frame(c.sender_of(&bind_frame.bytes), &bind_frame.bytes));
    assert_eq!(tombstone.to, old.route.owner);
    assert!(matches!(
        decode(&tombstone.bytes),
        SessionFrame::Tombstone { binding, .. } if binding == old.binding
    ));
    let registered = c.node(3).bound_sessions(&key);
    assert_eq!(registered.len(), 1, "registered before the reply");
    assert_eq!(registered[0].session, session);
    assert_eq!(binding(&c, &key).as_ref(), Some(&old));
    // The previous owner removes exactly that binding and ACKs.
    let ack = one(c
        .node(2)
        .on_frame(c.sender_of(&tombstone.bytes), &tombstone.bytes));
    assert_eq!(ack.to, c.node(3).node_ref());
    assert!(c.node(2).bound_sessions(&key).is_empty());
    assert_eq!(binding(&c, &key).as_ref(), Some(&old));
    // Only the ACK releases the terminal reply.
    let reply = one(c.node(3).on_frame(NodeRid(2), &ack.bytes));
    assert_eq!(reply.to, session.owner);
    assert!(matches!(
        decode(&reply.bytes),
        SessionFrame::BindReply { result: BindResult::Bound { binding, .. }, .. } if binding == registered[0].binding
    ));
    assert_eq!(binding(&c, &key).as_ref(), Some(&old));
    carry(&c, [reply]);
    let new = binding(&c, &key).unwrap();
    assert_eq!(new.route.owner, c.node(3).node_ref());
    assert_eq!(new.binding, registered[0].binding);
    assert_ne!(new.binding, old.binding);
}

#[test]
fn rebind_to_another_owner_is_not_answered_without_the_previous_owners_ack() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let old = binding(&c, &key).unwrap();
    relocate(&c, "a1", 2, 3);
    let bind_frame = c
        .node(SESSION_OWNER)
        .bind(SESSION, &c.actor_ref(3, "a1"))
        .unwrap();
    let tombstone = one(c
        .node(3)
        .on_frame(c.sender_of(&bind_frame.bytes), &bind_frame.bytes));
    let _lost_ack = one(c
        .node(2)
        .on_frame(c.sender_of(&tombstone.bytes), &tombstone.bytes));
    c.advance_ms(LEASE_MS - 1);
    assert_eq!(
        binding(&c, &key).as_ref(),
        Some(&old),
        "no terminal reply, no switch"
    );
}

#[test]
fn the_session_owner_keeps_the_old_route_until_the_terminal_reply_then_switches_atomically() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let old = binding(&c, &key).unwrap();
    relocate(&c, "a1", 2, 3);
    let bind_frame = c
        .node(SESSION_OWNER)
        .bind(SESSION, &c.actor_ref(3, "a1"))
        .unwrap();
    let tombstone = one(c
        .node(3)
        .on_frame(c.sender_of(&bind_frame.bytes), &bind_frame.bytes));
    let ack = one(c
        .node(2)
        .on_frame(c.sender_of(&tombstone.bytes), &tombstone.bytes));
    let reply = one(c.node(3).on_frame(NodeRid(2), &ack.bytes));

    // Every relay before the reply goes on the old route, old binding.
    let (_, _, before) = sent(session_send(&c, "a1", b"before"));
    assert_eq!(before.to, old.route.owner);
    assert!(matches!(
        decode(&before.bytes),
        SessionFrame::Relay { binding, route, .. } if binding == old.binding && route == old.route
    ));
    carry(&c, [reply]);
    let new = binding(&c, &key).unwrap();
    // After it, route and binding together are the new ones.
    let (_, _, after) = sent(session_send(&c, "a1", b"after"));
    assert_eq!(after.to, c.node(3).node_ref());
    assert!(matches!(
        decode(&after.bytes),
        SessionFrame::Relay { binding, route, .. } if binding == new.binding && route == new.route
    ));
    assert_eq!(carry(&c, [after]).deliveries("a1").len(), 1);
}

#[test]
fn a_same_owner_replacements_tombstone_never_removes_the_new_identity() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let old = binding(&c, &key).unwrap();
    // Atomic replacement on the same owner: no tombstone travels.
    let trace = bind(&c, &c.actor_ref(2, "a1"));
    assert_eq!(trace.names(), [("Bind", 2), ("BindReply", 1)]);
    let new = binding(&c, &key).unwrap();
    assert_ne!(new.binding, old.binding);

    // A tombstone naming the previous identity (late, duplicated, or from a
    // third owner) removes nothing.
    let late = encode(SessionFrame::Tombstone {
        operation_id: OperationId(1),
        session,
        actor: key.clone(),
        binding: old.binding,
        by: c.node(3).node_ref(),
    });
    let ack = one(c.node(2).on_frame(c.sender_of(&late), &late));
    assert!(matches!(
        decode(&ack.bytes),
        SessionFrame::TombstoneAck { .. }
    ));
    let registered = c.node(2).bound_sessions(&key);
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0].binding, new.binding);
    let (_, s, frame) = sent(session_send(&c, "a1", b"new"));
    assert_eq!(
        carry(&c, [frame]).deliveries("a1"),
        [(2, s, b"new".to_vec())]
    );
}

#[test]
fn a_late_relay_of_a_replaced_binding_or_a_previous_session_lifecycle_is_refused() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let (replaced_id, _, replaced) = sent(session_send(&c, "a1", b"replaced"));
    bound(&c, &c.actor_ref(2, "a1"));
    let (previous_id, _, previous_lifecycle) = sent(session_send(&c, "a1", b"previous"));
    // The connection ends and the Session comes back as a new lifecycle.
    carry(
        &c,
        c.node(SESSION_OWNER)
            .disconnect_session(SESSION, true)
            .unwrap(),
    );
    let reopened = c
        .node(SESSION_OWNER)
        .open_session(SESSION, SessionGeneration(2));
    bound(&c, &c.actor_ref(2, "a1"));

    let trace = carry(&c, [replaced, previous_lifecycle]);
    assert!(trace.delivered.is_empty());
    let refused: Vec<(OperationId, SessionRefusal)> = trace
        .events
        .iter()
        .map(|(_, e)| match e {
            SessionEvent::RelayRefused {
                operation_id,
                reason,
                ..
            } => (*operation_id, *reason),
            other => panic!("expected RelayRefused, got {other:?}"),
        })
        .collect();
    assert_eq!(
        refused,
        [
            (replaced_id, SessionRefusal::UnknownBinding),
            (previous_id, SessionRefusal::UnknownBinding)
        ]
    );
    let (_, s, frame) = sent(session_send(&c, "a1", b"current"));
    let trace = carry(&c, [frame]);
    assert_eq!(trace.deliveries("a1"), [(2, s, b"current".to_vec())]);
    assert_eq!(trace.delivered[0].1.session, reopened);
}

// §3.2: the route is valid only within the owner lease's admission deadline -

#[test]
fn the_stored_route_is_valid_only_within_the_owner_lease_local_admission_deadline() {
    let (c, _) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    c.advance_ms(LEASE_MS - 1);
    let (_, _, frame) = sent(session_send(&c, "a1", b"in time"));
    assert_eq!(carry(&c, [frame]).deliveries("a1").len(), 1);
    let relays = c.node(SESSION_OWNER).stats().sessions.relays;

    c.advance_ms(1);
    assert_eq!(
        session_send(&c, "a1", b"late"),
        SessionSend::Unavailable(UnavailableReason::AdmissionDeadlinePassed)
    );
    assert_eq!(
        c.node(SESSION_OWNER).stats().sessions.relays,
        relays,
        "nothing sent"
    );
    assert!(
        c.node(SESSION_OWNER)
            .disconnect_session(SESSION, true)
            .unwrap()
            .is_empty(),
        "no notification on an invalid route either"
    );
}

#[test]
fn a_store_outage_does_not_extend_the_admission_deadline() {
    let config = RoutingConfig {
        store_attempts: 1,
        ..RoutingConfig::default()
    };
    let (c, _) = bound_cluster(2, config, &[("a1", 2)]);
    c.store.set_down(true);
    // The owner cannot renew its lease while the store is down.
    assert!(c.node(2).renew_lease(ACTOR, "a1").is_err());
    c.advance_ms(LEASE_MS - 1);
    let (_, _, in_flight) = sent(session_send(&c, "a1", b"sent in time"));

    c.advance_ms(1);
    assert_eq!(
        session_send(&c, "a1", b"late"),
        SessionSend::Unavailable(UnavailableReason::AdmissionDeadlinePassed)
    );
    // Nor does the owner admit past its own deadline.
    let trace = carry(&c, [in_flight]);
    assert!(trace.delivered.is_empty());
    assert!(matches!(
        trace.events.as_slice(),
        [(
            1,
            SessionEvent::RelayRefused {
                reason: SessionRefusal::StaleRoute,
                ..
            }
        )]
    ));
    // The store coming back changes nothing on the Session owner.
    c.store.set_down(false);
    assert_eq!(
        session_send(&c, "a1", b"later"),
        SessionSend::Unavailable(UnavailableReason::AdmissionDeadlinePassed)
    );
}

// §3.1 / §3.3: session sequence across a relocation --------------------------

#[test]
fn session_sequence_keeps_the_order_of_one_sessions_messages_across_a_relocation() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let mut expected = Vec::new();
    let mut trace = Trace::default();
    for i in 0..3 {
        let (_, s, f) = sent(session_send(&c, "a1", format!("m{i}").as_bytes()));
        expected.push((2, s, format!("m{i}").into_bytes()));
        trace.merge(carry(&c, [f]));
    }
    seal(&c, "a1", 2, 5);
    let mut held_ops = Vec::new();
    for i in 3..6 {
        let (op, s) = held(session_send(&c, "a1", format!("m{i}").as_bytes()));
        held_ops.push(op);
        expected.push((3, s, format!("m{i}").into_bytes()));
    }
    let route_commands = commit(&c, "a1", 2, 3, 5);
    // Released by command 44, in order, before anything sent later.
    let released = sends(c.node(SESSION_OWNER).on_frame(
        c.sender_of(&route_commands[0].bytes),
        &route_commands[0].bytes,
    ));
    let mut later = Vec::new();
    for i in 6..9 {
        let (_, s, f) = sent(session_send(&c, "a1", format!("m{i}").as_bytes()));
        expected.push((3, s, format!("m{i}").into_bytes()));
        later.push(f);
    }
    let released_ops: Vec<OperationId> = released
        .iter()
        .map(|f| match decode(&f.bytes) {
            SessionFrame::Relay { operation_id, .. } => operation_id,
            other => panic!("expected a relay, got {other:?}"),
        })
        .collect();
    assert_eq!(released_ops, held_ops);
    trace.merge(carry(&c, released.into_iter().chain(later)));
    assert_eq!(trace.deliveries("a1"), expected);
    assert!(expected.windows(2).all(|w| w[0].1 < w[1].1));
}

// §3.3: commands 42, 43 and 44 -----------------------------------------------

#[test]
fn command_42_holds_messages_and_command_43_answers_the_source() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
    let key = actor("a1");
    let b = binding(&c, &key).unwrap();
    let trace = seal(&c, "a1", 2, 5);
    assert_eq!(trace.names(), [("Seal(42)", 1), ("Sealed(43)", 2)]);
    assert_eq!(
        trace.events,
        [(
            2,
            SessionEvent::Sealed {
                session,
                actor: key.clone(),
                relocation: relocation_of("a1"),
                sealed: true,
            }
        )]
    );
    for i in 0..3u64 {
        let (_, s) = held(session_send(&c, "a1", b"h"));
        assert_eq!(s, 1 + 2 * i);
        // The other Actor of the Session is not sealed.
        let (_, _, f) = sent(session_send(&c, "a2", b"free"));
        assert_eq!(carry(&c, [f]).deliveries("a2").len(), 1);
    }
    assert_eq!(c.node(SESSION_OWNER).stats().sessions.held, 3);
    assert_eq!(binding(&c, &key).unwrap().route, b.route, "route unchanged");
}

#[test]
fn command_42_for_another_binding_incarnation_or_session_lifecycle_installs_no_seal() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let b = binding(&c, &key).unwrap();
    let genuine = SessionFrame::Seal {
        session,
        actor: key.clone(),
        binding: b.binding,
        object_generation: b.route.object_generation,
        relocation: RelocationId(5),
        source: c.node(2).node_ref(),
    };
    let with = |edit: fn(&mut SessionFrame)| {
        let mut f = genuine.clone();
        edit(&mut f);
        f
    };
    for forged in [
        with(|f| {
            if let SessionFrame::Seal { binding, .. } = f {
                binding.generation = binding.generation.next();
            }
        }),
        with(|f| {
            if let SessionFrame::Seal { binding, .. } = f {
                binding.token = BindingToken(binding.token.get() ^ 1);
            }
        }),
        with(|f| {
            if let SessionFrame::Seal {
                object_generation, ..
            } = f
            {
                *object_generation = object_generation.next();
            }
        }),
        with(|f| {
            if let SessionFrame::Seal { session, .. } = f {
                session.generation = session.generation.next();
            }
        }),
    ] {
        let answer = one(c.node(SESSION_OWNER).on_frame(
            c.sender_of(&encode(forged.clone())),
            &encode(forged.clone()),
        ));
        assert!(
            matches!(
                decode(&answer.bytes),
                SessionFrame::Sealed { sealed: false, .. }
            ),
            "{forged:?} sealed"
        );
        let (_, _, f) = sent(session_send(&c, "a1", b"not held"));
        assert_eq!(carry(&c, [f]).deliveries("a1").len(), 1);
    }
    let answer = one(c
        .node(SESSION_OWNER)
        .on_frame(c.sender_of(&encode(genuine.clone())), &encode(genuine)));
    assert!(matches!(
        decode(&answer.bytes),
        SessionFrame::Sealed { sealed: true, .. }
    ));
}

#[test]
fn command_44_commit_releases_held_messages_to_the_target_in_order() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    seal(&c, "a1", 2, 5);
    let held: Vec<(OperationId, u64)> = (0..5u8)
        .map(|i| held(session_send(&c, "a1", &[i])))
        .collect();
    let trace = carry(&c, commit(&c, "a1", 2, 3, 5));
    let new_route = binding(&c, &actor("a1")).unwrap();
    assert_eq!(new_route.route.owner, c.node(3).node_ref());
    let released: Vec<(OperationId, u64, ActorRoute)> = trace
        .frames
        .iter()
        .filter_map(|(to, f)| match f {
            SessionFrame::Relay {
                operation_id,
                sequence,
                route,
                ..
            } => {
                assert_eq!(*to, 3, "to the target");
                Some((*operation_id, *sequence, *route))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        released,
        held.iter()
            .map(|(op, s)| (*op, *s, new_route.route))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        trace.deliveries("a1"),
        held.iter()
            .zip(0..5u8)
            .map(|((_, s), i)| (3, *s, vec![i]))
            .collect::<Vec<_>>()
    );
    assert!(trace.delivered.iter().all(|(_, d)| d.session == session));
    // The seal is released: the next one goes straight to the target.
    let (_, _, f) = sent(session_send(&c, "a1", b"next"));
    assert_eq!(f.to, c.node(3).node_ref());
}

#[test]
fn command_44_abort_releases_held_messages_to_the_source_and_only_the_matching_seal() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 2)]);
    let before = binding(&c, &actor("a1")).unwrap();
    seal(&c, "a1", 2, 5);
    seal(&c, "a2", 2, 6);
    let (_, s1) = held(session_send(&c, "a1", b"one"));
    let (_, s2) = held(session_send(&c, "a1", b"two"));
    held(session_send(&c, "a2", b"waits"));

    // Explicit failure before relay-ready: the source sends command 44 abort.
    let aborts = abort(&c, "a1", 2);
    assert_eq!(aborts.len(), 1);
    assert_eq!(route_frame(&aborts[0]).3, RouteChange::Abort);
    let trace = carry(&c, aborts);
    assert_eq!(
        trace.deliveries("a1"),
        [(2, s1, b"one".to_vec()), (2, s2, b"two".to_vec())],
        "to the source, in order"
    );
    assert!(trace.deliveries("a2").is_empty());
    assert_eq!(
        binding(&c, &actor("a1")).as_ref(),
        Some(&before),
        "route kept"
    );
    // a1's seal is gone; a2's (another relocation) is not.
    let (_, _, f) = sent(session_send(&c, "a1", b"three"));
    assert_eq!(f.to, before.route.owner);
    held(session_send(&c, "a2", b"still waits"));
    let trace = carry(&c, abort(&c, "a2", 2));
    assert_eq!(trace.deliveries("a2").len(), 2);
}

#[test]
fn command_44_for_another_session_binding_generation_or_relocation_is_ignored() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 2)]);
    let key = actor("a1");
    let b = binding(&c, &key).unwrap();
    let a2 = binding(&c, &actor("a2")).unwrap();
    seal(&c, "a1", 2, 5);
    let (_, _) = held(session_send(&c, "a1", b"held"));
    let sealed = binding(&c, &key).unwrap();
    let new_route = ActorRoute {
        owner: c.node(3).node_ref(),
        authority_owner_generation: b.route.authority_owner_generation.next(),
        ..b.route
    };
    let genuine = SessionFrame::Route {
        session,
        actor: key.clone(),
        binding: b.binding,
        object_generation: b.route.object_generation,
        relocation: relocation_of("a1"),
        change: RouteChange::Commit(new_route),
    };
    let with = |edit: fn(&mut SessionFrame)| {
        let mut f = genuine.clone();
        edit(&mut f);
        f
    };
    let forged = [
        with(|f| {
            if let SessionFrame::Route { session, .. } = f {
                session.id = SessionId(8);
            }
        }),
        with(|f| {
            if let SessionFrame::Route { session, .. } = f {
                session.generation = session.generation.next();
            }
        }),
        with(|f| {
            if let SessionFrame::Route { actor, .. } = f {
                *actor = ObjectKey::new(ObjectKind::Actor, "a2").unwrap();
            }
        }),
        with(|f| {
            if let SessionFrame::Route { binding, .. } = f {
                binding.generation = binding.generation.next();
            }
        }),
        with(|f| {
            if let SessionFrame::Route { binding, .. } = f {
                binding.token = BindingToken(binding.token.get() ^ 1);
            }
        }),
        with(|f| {
            if let SessionFrame::Route {
                object_generation, ..
            } = f
            {
                *object_generation = object_generation.next();
            }
        }),
        with(|f| {
            if let SessionFrame::Route { relocation, .. } = f {
                *relocation = RelocationId(6);
            }
        }),
        with(|f| {
            if let SessionFrame::Route {
                relocation, change, ..
            } = f
            {
                *relocation = RelocationId(6);
                *change = RouteChange::Abort;
            }
        }),
    ];
    for f in forged {
        assert!(
            matches!(
                c.node(SESSION_OWNER)
                    .on_frame(c.sender_of(&encode(f.clone())), &encode(f.clone())),
                Inbound::Session(SessionEvent::Ignored(_))
            ),
            "{f:?} was applied"
        );
        let now = binding(&c, &key).unwrap();
        assert_eq!(
            (now.route, now.binding, now.admission_deadline),
            (sealed.route, sealed.binding, sealed.admission_deadline)
        );
        assert!(matches!(
            session_send(&c, "a1", b"h"),
            SessionSend::Held { .. }
        ));
    }
    // a2 (not sealed) was never touched either.
    assert_eq!(binding(&c, &actor("a2")).unwrap(), a2);
    // The genuine one applies once; a duplicate is ignored.
    let released = sends(c.node(SESSION_OWNER).on_frame(
        c.sender_of(&encode(genuine.clone())),
        &encode(genuine.clone()),
    ));
    assert_eq!(released.len(), 1 + 8);
    assert_eq!(binding(&c, &key).unwrap().route, new_route);
    assert!(matches!(
        c.node(SESSION_OWNER)
            .on_frame(c.sender_of(&encode(genuine.clone())), &encode(genuine)),
        Inbound::Session(SessionEvent::Ignored(_))
    ));
}

#[test]
fn without_command_44_within_the_seal_timeout_the_session_is_closed_and_its_state_cleaned() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
    seal(&c, "a1", 2, 5);
    held(session_send(&c, "a1", b"held"));
    c.advance_ms(SEAL_TIMEOUT_MS - 1);
    assert!(closed_sessions(c.node(SESSION_OWNER)).is_empty());
    held(session_send(&c, "a1", b"held too"));
    let route_commands = commit(&c, "a1", 2, 3, 5);

    c.advance_ms(1);
    let closed = closed_sessions(c.node(SESSION_OWNER));
    assert_eq!(
        closed.iter().map(|c| c.session).collect::<Vec<_>>(),
        [session]
    );
    assert_eq!(
        c.node(SESSION_OWNER)
            .stats()
            .sessions
            .closed_by_seal_timeout,
        1
    );
    for id in ["a1", "a2"] {
        assert_eq!(binding(&c, &actor(id)), None, "binding state cleaned");
        assert_eq!(
            c.node(SESSION_OWNER)
                .session_send(SESSION, &actor(id), b"x"),
            Err(SessionError::UnknownSession(SESSION))
        );
    }
    // A late command 44 finds nothing: the held messages are gone.
    let trace = carry(&c, route_commands);
    assert!(trace.delivered.is_empty());
    assert!(matches!(
        trace.events.as_slice(),
        [(1, SessionEvent::Ignored(_))]
    ));
    assert!(closed_sessions(c.node(SESSION_OWNER)).is_empty());
}

// §2.6 / §3.3: a new incarnation never inherits a binding --------------------

#[test]
fn a_new_incarnation_never_inherits_a_binding() {
    let (c, session) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let old = binding(&c, &key).unwrap();
    c.node(2).begin_release(ACTOR, "a1").unwrap();
    c.node(2).complete_release(ACTOR, "a1").unwrap();
    let reborn = c.node(2).activate(ACTOR, "a1").unwrap();
    assert!(reborn.object_generation > old.route.object_generation);

    // The Session still holds the old binding, which is not switched.
    let (operation_id, _, frame) = sent(session_send(&c, "a1", b"old binding"));
    let trace = carry(&c, [frame]);
    assert!(trace.delivered.is_empty(), "the new incarnation got it");
    assert_eq!(
        trace.events,
        [(
            1,
            SessionEvent::RelayRefused {
                operation_id,
                session,
                actor: key.clone(),
                reason: SessionRefusal::ObjectGeneration,
            }
        )]
    );
    assert_eq!(binding(&c, &key).as_ref(), Some(&old));

    // The application binds again with the new ActorRef.
    let new = bound(&c, &c.actor_ref(2, "a1"));
    assert_eq!(new.route.object_generation, reborn.object_generation);
    assert_ne!(new.binding, old.binding);
    let (_, s, frame) = sent(session_send(&c, "a1", b"new binding"));
    assert_eq!(
        carry(&c, [frame]).deliveries("a1"),
        [(2, s, b"new binding".to_vec())]
    );
}

// §3.2: disconnect ends the bindings on the Actor owners ---------------------

#[test]
fn disconnect_notifies_every_bound_actor_and_ends_the_bindings_there() {
    let (c, session) = bound_cluster(
        3,
        RoutingConfig::default(),
        &[("a1", 2), ("a2", 2), ("a3", 3)],
    );
    let (_, _, replay) = sent(session_send(&c, "a3", b"replayed"));
    carry(&c, [replay.clone()]);
    let frames = c
        .node(SESSION_OWNER)
        .disconnect_session(SESSION, false)
        .unwrap();
    assert_eq!(frames.len(), 3);
    let trace = carry(&c, frames);
    let mut notified: Vec<(u64, &str)> = trace
        .delivered
        .iter()
        .map(|(n, d)| {
            assert_eq!(d.kind, RelayKind::LogicalDisconnect);
            (*n, d.actor.id())
        })
        .collect();
    notified.sort();
    assert_eq!(notified, [(2, "a1"), (2, "a2"), (3, "a3")]);
    for (id, node) in [("a1", 2), ("a2", 2), ("a3", 3)] {
        assert!(c.node(node).bound_sessions(&actor(id)).is_empty(), "{id}");
        assert_eq!(c.node(node).push(&actor(id), &session, b"x"), Ok(None));
    }
    assert_eq!(
        c.node(SESSION_OWNER)
            .session_send(SESSION, &actor("a1"), b"x"),
        Err(SessionError::UnknownSession(SESSION))
    );
    // A copy of an earlier relay is refused: the binding has ended.
    let trace = carry(&c, [replay]);
    assert!(matches!(
        trace.events.as_slice(),
        [(
            1,
            SessionEvent::RelayRefused {
                reason: SessionRefusal::UnknownBinding,
                ..
            }
        )]
    ));
}

/// Node 1 disconnects Session 7 while a1 (of a1, a2 on node 2) is sealed
/// with one held message: what reaches the Actors at once, and the held
/// message's sequence.
fn disconnect_while_sealed(c: &Cluster) -> (Trace, u64) {
    seal(c, "a1", 2, 5);
    let (_, s) = held(session_send(c, "a1", b"held"));
    let frames = c
        .node(SESSION_OWNER)
        .disconnect_session(SESSION, true)
        .expect("an open session");
    (carry(c, frames), s)
}

fn kinds(trace: &Trace, id: &str) -> Vec<(u64, RelayKind, Vec<u8>)> {
    trace
        .delivered
        .iter()
        .filter(|(_, d)| d.actor.id() == id)
        .map(|(n, d)| (*n, d.kind, d.payload.clone()))
        .collect()
}

#[test]
fn a_disconnect_during_a_seal_is_held_behind_the_held_messages_and_leaves_with_command_44() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 2)]);
    let (now, s) = disconnect_while_sealed(&c);
    // The unsealed Actor is notified at once; the sealed one waits.
    assert_eq!(
        kinds(&now, "a2"),
        [(2, RelayKind::PhysicalDisconnect, vec![])]
    );
    assert!(kinds(&now, "a1").is_empty());
    assert!(c.node(2).bound_sessions(&actor("a2")).is_empty());
    // The Session takes nothing new while it waits.
    for id in ["a1", "a2"] {
        assert_eq!(
            c.node(SESSION_OWNER)
                .session_send(SESSION, &actor(id), b"x"),
            Err(SessionError::Closing(SESSION))
        );
    }
    let trace = carry(&c, commit(&c, "a1", 2, 3, 5));
    assert_eq!(
        kinds(&trace, "a1"),
        [
            (3, RelayKind::Message, b"held".to_vec()),
            (3, RelayKind::PhysicalDisconnect, vec![])
        ],
        "the held message, then the notification, at the target"
    );
    assert_eq!(trace.deliveries("a1")[0].1, s);
    assert!(c.node(3).bound_sessions(&actor("a1")).is_empty());
    assert_eq!(binding(&c, &actor("a1")), None, "the Session is gone");
    assert_eq!(
        c.node(SESSION_OWNER)
            .session_send(SESSION, &actor("a1"), b"x"),
        Err(SessionError::UnknownSession(SESSION))
    );
}

#[test]
fn a_disconnect_during_a_seal_leaves_with_command_44_abort_to_the_source() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 2)]);
    disconnect_while_sealed(&c);
    let trace = carry(&c, abort(&c, "a1", 2));
    assert_eq!(
        kinds(&trace, "a1"),
        [
            (2, RelayKind::Message, b"held".to_vec()),
            (2, RelayKind::PhysicalDisconnect, vec![])
        ]
    );
    assert!(c.node(2).bound_sessions(&actor("a1")).is_empty());
    assert_eq!(binding(&c, &actor("a1")), None, "the Session is gone");
}

// Mesh scenarios (issue 5 item 7) --------------------------------------------

type Tapped = Rc<RefCell<Vec<(u64, u64, SessionFrame)>>>;

/// Records every session frame the mesh posts (from, to, frame), dropping
/// those `lose` says yes to.
fn tap(m: &mut Mesh, lose: fn(&SessionFrame) -> bool) -> Tapped {
    let seen = Tapped::default();
    let log = seen.clone();
    m.drop_when(Some(Box::new(move |e: &Envelope| {
        if e.carried != Carried::Session {
            return false;
        }
        let frame = decode(&e.bytes);
        let lost = lose(&frame);
        log.borrow_mut().push((e.from.get(), e.to.get(), frame));
        lost
    })));
    seen
}

fn mesh_with(actors: &[(&str, u64)]) -> Mesh {
    let mut m = Mesh::new(4, RoutingConfig::default()).expect("a valid config");
    m.open_session(1, SESSION.get());
    for (id, node) in actors {
        m.activate(*node, ACTOR, id).expect("activation");
        let r = m.actor_ref(*node, id).expect("the owner owns it");
        m.bind(1, SESSION.get(), &r).expect("an open session");
    }
    m.run();
    assert_eq!(m.ledger.session_events.len(), actors.len());
    m
}

/// (node, sequence) of each delivery to `id`, in arrival order.
fn mesh_deliveries(m: &Mesh, id: &str) -> Vec<(u64, u64)> {
    m.ledger
        .session_delivered
        .iter()
        .filter(|(s, a, _, _)| *s == SESSION && a == id)
        .map(|(_, _, seq, node)| (node.get(), *seq))
        .collect()
}

fn mesh_send(m: &mut Mesh, id: &str, payload: &[u8]) -> SessionSend {
    m.session_send(1, SESSION.get(), &actor(id), payload)
        .expect("a bound actor")
}

fn sequence_of(send: &SessionSend) -> u64 {
    match send {
        SessionSend::Sent { sequence, .. } | SessionSend::Held { sequence, .. } => *sequence,
        other => panic!("expected Sent or Held, got {other:?}"),
    }
}

#[test]
fn mesh_a_session_bound_to_three_actors_with_one_relocating_mid_stream_keeps_order_and_the_others_untouched()
 {
    let mut m = mesh_with(&[("a1", 2), ("a2", 2), ("a3", 3)]);
    let before: Vec<BindingRoute> = ["a1", "a2", "a3"]
        .iter()
        .map(|id| m.node(1).binding(SESSION, &actor(id)).unwrap())
        .collect();
    let mut sent: [Vec<u64>; 3] = Default::default();
    let mut committed = false;
    for i in 0..60 {
        for (n, id) in ["a1", "a2", "a3"].iter().enumerate() {
            let send = mesh_send(&mut m, id, format!("{id}-{i}").as_bytes());
            sent[n].push(sequence_of(&send));
        }
        m.step();
        m.step();
        if i == 10 {
            m.seal_bound("a1", 2, 3).unwrap();
        }
        // The source moves on once its Session answered command 43.
        let sealed = m
            .ledger
            .session_events
            .iter()
            .any(|e| matches!(e, SessionEvent::Sealed { sealed: true, .. }));
        if sealed && !committed {
            m.commit_bound();
            committed = true;
        }
    }
    m.run();
    assert!(committed);
    assert!(m.node(1).stats().sessions.held > 0, "some were held");

    for (n, id) in ["a1", "a2", "a3"].iter().enumerate() {
        let got: Vec<u64> = mesh_deliveries(&m, id).iter().map(|d| d.1).collect();
        assert_eq!(got, sent[n], "{id}: each once, in the Session's order");
    }
    let a1_nodes: Vec<u64> = mesh_deliveries(&m, "a1").iter().map(|d| d.0).collect();
    let moved = a1_nodes.iter().position(|n| *n == 3).expect("a1 moved");
    assert!(moved > 0 && a1_nodes[..moved].iter().all(|n| *n == 2));
    assert!(a1_nodes[moved..].iter().all(|n| *n == 3), "{a1_nodes:?}");
    assert!(mesh_deliveries(&m, "a2").iter().all(|d| d.0 == 2));
    assert!(mesh_deliveries(&m, "a3").iter().all(|d| d.0 == 3));

    assert_eq!(
        m.node(1).binding(SESSION, &actor("a2")).as_ref(),
        Some(&before[1])
    );
    assert_eq!(
        m.node(1).binding(SESSION, &actor("a3")).as_ref(),
        Some(&before[2])
    );
    let a1 = m.node(1).binding(SESSION, &actor("a1")).unwrap();
    assert_eq!(a1.route.owner.rid, NodeRid(3));
    assert_eq!(a1.binding, before[0].binding);
    assert_eq!(
        a1.route.object_generation,
        before[0].route.object_generation
    );
    assert!(m.ledger.session_events.iter().all(|e| matches!(
        e,
        SessionEvent::Bound { .. } | SessionEvent::Sealed { sealed: true, .. }
    )));
    assert!(m.ledger.dropped.is_empty());
}

#[test]
fn mesh_seal_timeout_closes_the_session_and_cleans_its_state() {
    let mut m = mesh_with(&[("a1", 2), ("a2", 3)]);
    // The relocation stalls after the seal: command 44 never comes in time.
    m.seal_bound("a1", 2, 3).unwrap();
    m.run();
    for i in 0..3u8 {
        assert!(matches!(
            mesh_send(&mut m, "a1", &[i]),
            SessionSend::Held { .. }
        ));
        assert!(matches!(
            mesh_send(&mut m, "a2", &[i]),
            SessionSend::Sent { .. }
        ));
    }
    m.run();
    m.clock.advance(ms(SEAL_TIMEOUT_MS));
    let closed = closed_sessions(m.node(1));
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].session.id, SESSION);
    assert_eq!(m.node(1).binding(SESSION, &actor("a1")), None);
    assert_eq!(m.node(1).binding(SESSION, &actor("a2")), None);
    assert_eq!(
        m.session_send(1, SESSION.get(), &actor("a2"), b"x"),
        Err(SessionError::UnknownSession(SESSION))
    );
    // The late commit changes nothing and releases nothing.
    m.commit_bound();
    m.run();
    assert!(mesh_deliveries(&m, "a1").is_empty());
    assert_eq!(mesh_deliveries(&m, "a2").len(), 3);
    assert!(matches!(
        m.ledger.session_events.last(),
        Some(SessionEvent::Ignored(_))
    ));
    assert_eq!(m.node(1).stats().sessions.closed_by_seal_timeout, 1);
}

#[test]
fn mesh_abort_releases_held_messages_to_the_source_in_order() {
    let mut m = mesh_with(&[("a1", 2), ("a2", 3)]);
    let before = m.node(1).binding(SESSION, &actor("a1")).unwrap();
    let mut sent = Vec::new();
    for i in 0..3u8 {
        sent.push(sequence_of(&mesh_send(&mut m, "a1", &[i])));
    }
    m.seal_bound("a1", 2, 3).unwrap();
    m.run();
    for i in 3..6u8 {
        let send = mesh_send(&mut m, "a1", &[i]);
        assert!(matches!(send, SessionSend::Held { .. }));
        sent.push(sequence_of(&send));
        mesh_send(&mut m, "a2", &[i]);
    }
    m.run();
    m.abort_bound("a1", 2).unwrap();
    for i in 6..9u8 {
        sent.push(sequence_of(&mesh_send(&mut m, "a1", &[i])));
    }
    m.run();
    assert_eq!(
        mesh_deliveries(&m, "a1"),
        sent.iter().map(|s| (2, *s)).collect::<Vec<_>>(),
        "all on the source, in order"
    );
    assert_eq!(mesh_deliveries(&m, "a2").len(), 3);
    assert_eq!(
        m.node(1).binding(SESSION, &actor("a1")).as_ref(),
        Some(&before)
    );
    assert!(
        m.node(2).owned(actor("a1").as_ref()).is_some(),
        "never moved"
    );
}

#[test]
fn mesh_rebind_across_owners_goes_bind_tombstone_ack_then_reply() {
    let mut m = mesh_with(&[("a1", 2)]);
    let old = m.node(1).binding(SESSION, &actor("a1")).unwrap();
    // The Session never hears of the move (commands 42 and 44 are lost):
    // its binding still names the old owner.
    m.drop_when(Some(Box::new(|e| e.carried == Carried::Session)));
    m.relocate(ACTOR, "a1", 2, 3).unwrap();
    m.drop_when(None);
    let seen = tap(&mut m, |_| false);
    let r = m.actor_ref(3, "a1").unwrap();
    m.bind(1, SESSION.get(), &r).unwrap();
    m.run();
    let order: Vec<(&str, u64, u64)> = seen
        .borrow()
        .iter()
        .map(|(from, to, f)| (name(f), *from, *to))
        .collect();
    assert_eq!(
        order,
        [
            ("Bind", 1, 3),
            ("Tombstone", 3, 2),
            ("TombstoneAck", 2, 3),
            ("BindReply", 3, 1)
        ]
    );
    let new = m.node(1).binding(SESSION, &actor("a1")).unwrap();
    assert_eq!(new.route.owner.rid, NodeRid(3));
    assert_ne!(new.binding, old.binding);
    assert!(m.node(2).bound_sessions(&actor("a1")).is_empty());
    let send = mesh_send(&mut m, "a1", b"x");
    m.run();
    assert_eq!(mesh_deliveries(&m, "a1"), [(3, sequence_of(&send))]);
}

#[test]
fn a_new_incarnation_does_not_inherit_the_previous_incarnations_registrations() {
    let (c, session) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    c.node(2).begin_release(ACTOR, "a1").unwrap();
    c.node(2).complete_release(ACTOR, "a1").unwrap();
    c.node(2).activate(ACTOR, "a1").unwrap();
    assert!(c.node(2).bound_sessions(&key).is_empty(), "inherited");
    assert_eq!(
        c.node(2)
            .push(&key, &session, b"from the new incarnation")
            .unwrap(),
        None
    );
}

#[test]
fn a_push_naming_another_incarnation_than_the_binding_is_ignored() {
    let (c, session) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let b = binding(&c, &actor("a1")).unwrap();
    let push = encode(SessionFrame::Push {
        operation_id: OperationId(1),
        session,
        actor: actor("a1"),
        binding: b.binding,
        object_generation: b.route.object_generation.next(),
        payload: b"x".to_vec(),
    });
    assert!(matches!(
        c.node(SESSION_OWNER).on_frame(c.sender_of(&push), &push),
        Inbound::Session(SessionEvent::Ignored(_))
    ));
}

#[test]
fn a_delayed_command_44_does_not_extend_the_route_past_the_owner_lease() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    seal(&c, "a1", 2, 5);
    let route_commands = commit(&c, "a1", 2, 3, 5);
    c.advance_ms(9_000);
    carry(&c, route_commands);
    c.advance_ms(LEASE_MS - 9_000);
    assert_eq!(
        session_send(&c, "a1", b"late"),
        SessionSend::Unavailable(UnavailableReason::AdmissionDeadlinePassed)
    );
}

#[test]
fn closing_a_session_on_the_seal_timeout_ends_every_actors_binding() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
    seal(&c, "a1", 2, 5);
    c.advance_ms(SEAL_TIMEOUT_MS);
    abort_lost(&c, 2);
    let closed = closed_sessions(c.node(SESSION_OWNER));
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].session, session);
    // a1 too, on its previous route: the relocation never committed, so its
    // source still holds the registration and drops it.
    assert_eq!(closed[0].notifications.len(), 2);
    carry(&c, closed[0].notifications.clone());
    assert!(
        c.node(3).bound_sessions(&actor("a2")).is_empty(),
        "a2 still bound"
    );
    assert!(
        c.node(2).bound_sessions(&actor("a1")).is_empty(),
        "a1 still bound at its source"
    );
}

#[test]
fn a_seal_timeout_after_the_move_reaches_the_target_through_the_follow_route() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    seal(&c, "a1", 2, 5);
    // The move commits but its command 44 is lost.
    let _lost = commit(&c, "a1", 2, 3, 5);
    assert_eq!(c.node(3).bound_sessions(&actor("a1")).len(), 1);
    c.advance_ms(SEAL_TIMEOUT_MS);
    let closed = closed_sessions(c.node(SESSION_OWNER));
    assert_eq!(closed[0].notifications.len(), 1);
    assert_eq!(
        closed[0].notifications[0].to.rid,
        NodeRid(2),
        "the previous route"
    );
    let trace = carry(&c, closed[0].notifications.clone());
    assert_eq!(trace.delivered.len(), 1, "delivered once, at the target");
    assert_eq!(trace.delivered[0].0, 3);
    assert!(c.node(3).bound_sessions(&actor("a1")).is_empty());
}

#[test]
fn a_rebind_during_a_seal_is_refused_and_the_held_messages_are_kept() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    seal(&c, "a1", 2, 5);
    let (op, _) = held(session_send(&c, "a1", b"accepted"));
    assert!(matches!(
        c.node(SESSION_OWNER).bind(SESSION, &c.actor_ref(2, "a1")),
        Err(SessionError::Sealed { .. })
    ));
    let trace = carry(&c, abort(&c, "a1", 2));
    assert!(
        trace.delivered.iter().any(|(_, d)| d.operation_id == op),
        "held message vanished"
    );
}

#[test]
fn command_44_whose_committed_route_names_another_incarnation_is_ignored() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let key = actor("a1");
    let b = binding(&c, &key).unwrap();
    seal(&c, "a1", 2, 5);
    let forged = SessionFrame::Route {
        session,
        actor: key.clone(),
        binding: b.binding,
        object_generation: b.route.object_generation,
        relocation: relocation_of("a1"),
        change: RouteChange::Commit(ActorRoute {
            owner: c.node(3).node_ref(),
            object_generation: b.route.object_generation.next(),
            ..b.route
        }),
    };
    assert!(matches!(
        c.node(SESSION_OWNER)
            .on_frame(c.sender_of(&encode(forged.clone())), &encode(forged)),
        Inbound::Session(SessionEvent::Ignored(_))
    ));
    assert_eq!(binding(&c, &key).unwrap().route, b.route);
}

#[test]
fn a_lease_renewal_refreshes_the_stored_route_deadline_and_nothing_else() {
    let (c, _) = bound_cluster(2, RoutingConfig::default(), &[("a1", 2)]);
    let before = binding(&c, &actor("a1")).unwrap();
    c.advance_ms(20_000);
    c.node(2).renew_lease(ACTOR, "a1").unwrap();
    carry(&c, c.node(2).refresh_session_routes(&actor("a1")));
    let after = binding(&c, &actor("a1")).unwrap();
    assert_eq!(
        (after.route.owner, after.binding),
        (before.route.owner, before.binding)
    );
    assert!(after.admission_deadline > before.admission_deadline);
    c.advance_ms(15_000);
    assert!(
        matches!(
            session_send(&c, "a1", b"still bound"),
            SessionSend::Sent { .. }
        ),
        "35 s after bind, within the renewed lease"
    );
}

#[test]
fn a_lease_refresh_for_another_tenure_changes_nothing() {
    let (c, session) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2)]);
    let b = binding(&c, &actor("a1")).unwrap();
    let forged = SessionFrame::Route {
        session,
        actor: actor("a1"),
        binding: b.binding,
        object_generation: b.route.object_generation,
        relocation: RelocationId(0),
        change: RouteChange::Refresh(ActorRoute {
            owner: c.node(3).node_ref(),
            lease_remaining_ms: 1_000_000,
            ..b.route
        }),
    };
    assert!(matches!(
        c.node(SESSION_OWNER)
            .on_frame(c.sender_of(&encode(forged.clone())), &encode(forged)),
        Inbound::Session(SessionEvent::Ignored(_))
    ));
    assert_eq!(binding(&c, &actor("a1")).unwrap(), b);
}

#[test]
fn a_seal_timeout_after_a_logical_disconnect_tells_only_the_sealed_actor_and_in_kind() {
    let (c, _) = bound_cluster(3, RoutingConfig::default(), &[("a1", 2), ("a2", 3)]);
    seal(&c, "a1", 2, 5);
    // a2 is told now; a1's notice waits behind its seal.
    let told = c
        .node(SESSION_OWNER)
        .disconnect_session(SESSION, false)
        .unwrap();
    assert_eq!(told.len(), 1);
    carry(&c, told);
    assert!(c.node(3).bound_sessions(&actor("a2")).is_empty());
    c.advance_ms(SEAL_TIMEOUT_MS);
    abort_lost(&c, 2);
    let closed = closed_sessions(c.node(SESSION_OWNER));
    assert_eq!(closed[0].notifications.len(), 1, "a2 is not told twice");
    let trace = carry(&c, closed[0].notifications.clone());
    assert_eq!(trace.delivered.len(), 1);
    assert_eq!(trace.delivered[0].1.actor, actor("a1"));
    assert_eq!(trace.delivered[0].1.kind, RelayKind::LogicalDisconnect);
    assert!(c.node(2).bound_sessions(&actor("a1")).is_empty());
}
