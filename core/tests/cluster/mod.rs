//! A small test cluster: several runtimes sharing one store and one
//! `ManualClock`, the store wrapped so tests can count its calls and fail it.

#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;

use zlink_core::store::FaultyStore;
use zlink_core::*;

pub const MESH: &str = "test-mesh";

/// The node that sent `bytes`, as a host's connection would know it: the
/// sender the frame names, or for the session frames that name none, the
/// Actor owner their route names. Tests carrying such a frame without a
/// route pass the sender themselves.
pub fn sender(bytes: &[u8]) -> NodeRid {
    use zlink_core::wire::{BindResult, Frame, RouteChange, SessionFrame};
    // An undecodable frame is dropped before its sender matters, but for
    // a request whose reply route decodes (answered with an error, §4.3).
    let Ok(frame) = wire::decode(bytes, &wire::DecodeLimits::default()) else {
        return wire::salvage_request(bytes, &wire::DecodeLimits::default())
            .map_or(NodeRid(0), |r| r.sender);
    };
    if let Some(rid) = wire::last_sender(&frame) {
        return rid;
    }
    match frame {
        Frame::Session(SessionFrame::BindReply {
            result: BindResult::Bound { route, .. },
            ..
        })
        | Frame::Session(SessionFrame::Route {
            change: RouteChange::Commit(route),
            ..
        }) => route.owner.rid,
        other => panic!("{other:?} names no sender: pass it explicitly"),
    }
}

impl Cluster {
    /// [`sender`], except that a session frame naming no sender comes from
    /// the node that owns its Actor now (pushes, 44 abort and refresh,
    /// refusals): how the tests produce them.
    pub fn sender_of(&self, bytes: &[u8]) -> NodeRid {
        use zlink_core::wire::{BindResult, Frame, RouteChange, SessionFrame};
        let Ok(frame) = wire::decode(bytes, &wire::DecodeLimits::default()) else {
            return NodeRid(0);
        };
        if let Some(rid) = wire::last_sender(&frame) {
            return rid;
        }
        let actor = match frame {
            Frame::Session(
                SessionFrame::BindReply {
                    result: BindResult::Bound { route, .. },
                    ..
                }
                | SessionFrame::Route {
                    change: RouteChange::Commit(route),
                    ..
                },
            ) => return route.owner.rid,
            Frame::Session(
                SessionFrame::Push { actor, .. }
                | SessionFrame::Route { actor, .. }
                | SessionFrame::Refused { actor, .. }
                | SessionFrame::BindReply { actor, .. },
            ) => actor,
            other => panic!("{other:?}: pass its sender explicitly"),
        };
        self.nodes
            .iter()
            .find(|n| n.owned(actor.as_ref()).is_some())
            .map(|n| n.identity().rid)
            .unwrap_or(NodeRid(0))
    }
}

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

/// Runs `rt`'s timers due now and returns the requests they ended.
pub fn expired(rt: &Runtime) -> Vec<Completion> {
    rt.on_timeout(rt.now())
        .into_iter()
        .filter_map(|action| match action {
            Inbound::Completed(c) => Some(c),
            _ => None,
        })
        .collect()
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

    /// Node 1 owns Actor `id`; node 2 caches its route and sends it a
    /// message that is not carried yet; then `id` moves to node 3 with a
    /// Message Follow route on node 1. Returns node 2's (now stale) frame
    /// and the route node 2 cached.
    pub fn stale_after_move(&self, id: &str) -> (Outbound, ReadyRoute) {
        let kind = ObjectKind::Actor;
        self.node(1).activate(kind, id).expect("activation");
        let route = ready(self.node(2).resolve(kind, id).expect("valid id"));
        let stale = match self
            .node(2)
            .send(kind, id, b"m", SendOptions::default())
            .expect("valid input")
        {
            Sent::Submitted { outbound, .. } => outbound,
            other => panic!("not submitted: {other:?}"),
        };
        self.relocate(kind, id, 1, 3);
        (stale, route)
    }

    /// Moves `id` from node `from` to node `to` with the relocation
    /// protocol; see [`relocate`].
    pub fn relocate(&self, kind: ObjectKind, id: &str, from: u64, to: u64) -> Vec<Outbound> {
        relocate(self.node(from), self.node(to), kind, id)
    }

    /// The ActorRef of Actor `id` as its owner `owner` hands it out.
    pub fn actor_ref(&self, owner: u64, id: &str) -> ActorRef {
        let end = self
            .node(owner)
            .owner_route_end(ObjectKind::Actor, id)
            .expect("a valid id")
            .expect("the owner owns it");
        ActorRef {
            actor: ObjectKey::new(ObjectKind::Actor, id).expect("a valid id"),
            route: wire::ActorRoute {
                owner: end.node,
                object_generation: end.fence.object_generation,
                authority_owner_generation: end.fence.authority_owner_generation,
                owner_lease_generation: end.fence.owner_lease_generation,
                lease_remaining_ms: 0,
            },
        }
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

/// Moves `id` from `source` to `target` with the relocation protocol (an
/// empty capture; the target's host restores at once), carrying the frames
/// between the two runtimes until the move is done. Frames for other nodes
/// (command 42 to Session owners, command 44 …) are returned, in order,
/// uncarried.
#[allow(dead_code)]
pub fn relocate(source: &Runtime, target: &Runtime, kind: ObjectKind, id: &str) -> Vec<Outbound> {
    let started = source
        .begin_relocation(kind, id, target.node_ref(), Capture::default())
        .expect("the source owns it");
    let from = source.identity().rid;
    let frames = started.send.into_iter().map(|o| (from, o)).collect();
    carry_relocation(&[source, target], frames, kind, id)
}

/// Carries `frames` (each with its sender) among `nodes` until quiet,
/// answering a Restore of `id` at once (its host restores); returns the
/// frames for nodes not in `nodes`, in order, uncarried.
#[allow(dead_code)]
pub fn carry_relocation(
    nodes: &[&Runtime],
    frames: Vec<(NodeRid, Outbound)>,
    kind: ObjectKind,
    id: &str,
) -> Vec<Outbound> {
    let rt = |rid: NodeRid| nodes.iter().find(|r| r.identity().rid == rid);
    let mut queue: std::collections::VecDeque<(NodeRid, Outbound)> = frames.into();
    let mut others = Vec::new();
    while let Some((sender, out)) = queue.pop_front() {
        let Some(at) = rt(out.to.rid) else {
            others.push(out);
            continue;
        };
        let here = at.identity().rid;
        let mut actions = vec![at.on_frame(sender, &out.bytes)];
        // A host re-reads `next_deadline` after every frame: the owner CAS
        // a cutover made due runs now.
        if at.next_deadline().is_some_and(|d| d <= at.now()) {
            actions.extend(at.on_timeout(at.now()));
        }
        for action in actions {
            match action {
                Inbound::Relocation(action) => {
                    queue.extend(action.send.into_iter().map(|f| (here, f)));
                    if matches!(action.event, RelocationEvent::Restore { .. }) {
                        let ready = at.relocation_restored(kind, id).expect("restored");
                        queue.extend(ready.into_iter().map(|f| (here, f)));
                    }
                }
                Inbound::Send(frames) => others.extend(frames),
                _ => {}
            }
        }
    }
    others
}

/// The source's host gives up the move of `id` before relay-ready: the
/// Abort goes to `target`, which confirms; returns the source's final
/// action (its held work, command 44 abort to the Session owners …).
#[allow(dead_code)]
pub fn abort_relocation(
    source: &Runtime,
    target: &Runtime,
    kind: ObjectKind,
    id: &str,
) -> RelocationAction {
    let aborting = source.abort_relocation(kind, id).expect("sealed");
    let from = source.identity().rid;
    let to = target.identity().rid;
    for frame in aborting.send.iter().filter(|f| f.to.rid == to) {
        if let Inbound::Relocation(confirm) = target.on_frame(from, &frame.bytes) {
            for back in confirm.send.iter().filter(|f| f.to.rid == from) {
                if let Inbound::Relocation(done) = source.on_frame(to, &back.bytes) {
                    return done;
                }
            }
        }
    }
    panic!("the target did not confirm the abort")
}
