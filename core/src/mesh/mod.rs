//! An in-process mesh: several runtimes on one `ManualClock` and one
//! embedded store, their frames carried by a network the harness controls
//! (drop, delay, reorder on demand). Tests and the demo drive it; a ledger
//! checks that no operation is lost, none runs twice, and each ends once.
//!
//! Modelled on quinn-proto's test `Pair`: the state machines are real, only
//! the wire is simulated.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::authority::{AuthorityRecord, OwnerClaim, WriteFence};
use crate::clock::{ManualClock, MonoTime};
use crate::config::RoutingConfig;
use crate::error::InputError;
use crate::ids::{KeyRef, ProposalId};
use crate::ids::{
    MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectKind, OwnerLeaseGeneration,
};
use crate::ids::{ObjectKey, SessionGeneration, SessionId};
use crate::inbound::{Delivery, Inbound, NoticeToken};
use crate::lifecycle::LifecycleError;
use crate::relocation::{
    Capture, RelocationAction, RelocationError, RelocationEvent, RelocationIdentity,
};
use crate::reply::{Completion, RequestOptions, Requested};
use crate::runtime::Runtime;
use crate::send::SendOptions;
use crate::send::{Outbound, Sent};
use crate::session::{ActorRef, SessionError, SessionEvent, SessionSend};
use crate::store::{FaultyStore, LocationStore, MemoryStore};
use crate::wire::{ActorRoute, ReplyResult, SessionRef};

mod diagram;
mod faults;
mod ledger;
mod moves;
pub use diagram::Diagram;
pub use faults::operations_in;
pub use ledger::Ledger;
use moves::AwaitingSeals;
pub use moves::RestoreMode;

/// What an envelope carries, for fault rules and counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Carried {
    /// An operation from its origin (hop 0).
    Operation,
    /// An operation relayed by Message Follow.
    Relayed,
    /// A rejection on its way to the origin.
    Rejection,
    /// A command 50 notification.
    Notice,
    /// A reply on its way to the requester.
    Reply,
    /// A session frame (bind, tombstone, relay, push, 42/43/44 …).
    Session,
    /// A relocation frame (commands 45–49) or an operation a relocation
    /// source relayed to its target.
    Relocation,
}

impl Carried {
    /// What a frame a relocation step produced carries, by its command.
    fn of(bytes: &[u8]) -> Carried {
        match bytes.get(3) {
            Some(1 | 2) => Carried::Relayed,
            Some(4) => Carried::Rejection,
            Some(10..=16 | 42..=44) => Carried::Session,
            _ => Carried::Relocation,
        }
    }
}

/// One frame in flight.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// Sending node.
    pub from: NodeRid,
    /// Receiving node.
    pub to: NodeRid,
    /// What it is.
    pub carried: Carried,
    /// The frame.
    pub bytes: Vec<u8>,
}

/// A fault rule: decides per envelope.
pub type Rule = Box<dyn FnMut(&Envelope) -> bool>;

/// The mesh.
pub struct Mesh {
    /// The one clock every runtime and the store read.
    pub clock: ManualClock,
    /// The shared embedded store, read and written directly (behind every
    /// fault): what the harness checks against.
    pub store: Arc<MemoryStore>,
    /// The same store as the runtimes reach it: failures and stalls are
    /// injected here.
    faulty: Arc<FaultyStore<Arc<MemoryStore>>>,
    /// What the store's replica holds while it is away (it stopped
    /// acknowledging writes): what a failover then keeps.
    replica: Option<crate::store::StoreReplica>,
    config: RoutingConfig,
    identities: Vec<NodeIdentity>,
    nodes: Vec<Runtime>,
    network: VecDeque<Envelope>,
    delayed: Vec<Envelope>,
    drop_rule: Option<Rule>,
    delay_rule: Option<Rule>,
    duplicate_rule: Option<Rule>,
    fail_notices: bool,
    answer_requests: bool,
    sequence: u64,
    restore: RestoreMode,
    parked: Vec<Envelope>,
    awaiting_seals: Vec<AwaitingSeals>,
    dead: Vec<NodeRid>,
    /// What happened to every operation.
    pub ledger: Ledger,
    /// Print every frame posted and every decision acted on (set
    /// `ZLINK_MESH_TRACE=1`): how a failing simulation seed is read.
    trace: bool,
    /// The run's picture, once asked for ([`Mesh::draw`]).
    diagram: Option<Diagram>,
}

impl Mesh {
    /// `n` nodes with RIDs 1..=n on mesh `mesh`, all on `config`.
    pub fn new(n: u64, config: RoutingConfig) -> Result<Mesh, crate::runtime::BuildError> {
        let clock = ManualClock::new();
        let store = Arc::new(MemoryStore::with_clock(Arc::new(clock.clone())));
        let faulty = Arc::new(FaultyStore::new(store.clone()));
        let identities: Vec<_> = (1..=n).map(Self::identity).collect();
        let nodes = identities
            .iter()
            .map(|me| Self::build_node(*me, &config, &clock, &faulty))
            .collect::<Result<_, _>>()?;
        Ok(Mesh {
            clock,
            store,
            faulty,
            replica: None,
            config,
            identities,
            nodes,
            network: VecDeque::new(),
            delayed: Vec::new(),
            drop_rule: None,
            delay_rule: None,
            duplicate_rule: None,
            fail_notices: false,
            answer_requests: true,
            sequence: 0,
            restore: RestoreMode::Ready,
            parked: Vec::new(),
            awaiting_seals: Vec::new(),
            dead: Vec::new(),
            ledger: Ledger::default(),
            trace: std::env::var_os("ZLINK_MESH_TRACE").is_some(),
            diagram: None,
        })
    }

    fn build_node(
        identity: NodeIdentity,
        config: &RoutingConfig,
        clock: &ManualClock,
        store: &Arc<FaultyStore<Arc<MemoryStore>>>,
    ) -> Result<Runtime, crate::runtime::BuildError> {
        Runtime::builder(identity)
            // IDs from the node's identity, not chance: a run of the mesh
            // replays exactly (the seeded simulation relies on it).
            .id_seed(identity.generation.0 << 32 | identity.rid.0)
            .config(config.clone())
            .clock(Arc::new(clock.clone()))
            .store(store.clone())
            .build()
    }

    /// The identity node `rid` starts with in every mesh (generation 1).
    pub fn identity(rid: u64) -> NodeIdentity {
        NodeIdentity {
            mesh: MeshName::new("mesh").expect("a valid mesh name"),
            rid: NodeRid(rid),
            generation: NodeGeneration(1),
            lease: OwnerLeaseGeneration(rid),
        }
    }

    /// Node `rid` (1-based).
    pub fn node(&self, rid: u64) -> &Runtime {
        &self.nodes[(rid - 1) as usize]
    }

    /// Drops every envelope `rule` says yes to (until replaced or cleared).
    pub fn drop_when(&mut self, rule: Option<Rule>) {
        self.drop_rule = rule;
    }

    /// Holds back every envelope `rule` says yes to until [`release`](Self::release).
    pub fn delay_when(&mut self, rule: Option<Rule>) {
        self.delay_rule = rule;
    }

    /// Puts the held envelopes back on the network, after what is there.
    pub fn release(&mut self) {
        self.network.extend(self.delayed.drain(..));
    }

    /// Makes every notification send fail at the relayer (transport refused).
    pub fn fail_notices(&mut self, fail: bool) {
        self.fail_notices = fail;
    }

    /// Whether delivered requests are answered (an echo of their payload).
    /// Off, they stay unanswered until their deadline.
    pub fn answer_requests(&mut self, answer: bool) {
        self.answer_requests = answer;
    }

    /// Reverses the order of what is in flight (a reordering transport).
    pub fn reorder(&mut self) {
        self.network.make_contiguous().reverse();
    }

    /// Frames in flight.
    pub fn in_flight(&self) -> usize {
        self.network.len()
    }

    /// Activates an object on node `rid`.
    pub fn activate(&self, rid: u64, kind: ObjectKind, id: &str) -> Result<(), LifecycleError> {
        self.node(rid).activate(kind, id).map(drop)
    }

    /// Node `from` sends a one-way message; the frame goes on the network.
    pub fn send(
        &mut self,
        from: u64,
        kind: ObjectKind,
        id: &str,
        payload: &[u8],
    ) -> Result<Sent, InputError> {
        let sent = self
            .node(from)
            .send(kind, id, payload, SendOptions::default())?;
        if let Sent::Submitted {
            operation_id,
            outbound,
        } = &sent
        {
            self.sequence += 1;
            self.ledger
                .sent
                .insert(*operation_id, (NodeRid(from), self.sequence));
            self.post(NodeRid(from), outbound.clone(), Carried::Operation);
        }
        Ok(sent)
    }

    /// Node `from` sends a request; the frame goes on the network.
    pub fn request(
        &mut self,
        from: u64,
        kind: ObjectKind,
        id: &str,
        payload: &[u8],
        options: RequestOptions,
    ) -> Result<Requested, InputError> {
        let requested = self.node(from).request(kind, id, payload, options)?;
        if let Requested::Submitted {
            operation_id,
            outbound,
            ..
        } = &requested
        {
            self.sequence += 1;
            self.ledger
                .sent
                .insert(*operation_id, (NodeRid(from), self.sequence));
            self.post(NodeRid(from), outbound.clone(), Carried::Operation);
        }
        Ok(requested)
    }

    /// Node `rid`'s caller cancels a pending request; its terminal result
    /// (if the cancellation came first) is recorded. True if it did.
    pub fn cancel(&mut self, rid: u64, correlation: crate::ids::CorrelationId) -> bool {
        match self.node(rid).cancel(correlation) {
            Some(c) => {
                self.record(c);
                true
            }
            None => false,
        }
    }

    /// Moves the clock by `d`, then runs every node's timers due now (time
    /// reaches the runtimes only through `on_timeout`).
    pub fn advance(&mut self, d: Duration) {
        self.clock.advance(d);
        self.fire_timers();
    }

    /// Draws the run from now on: every frame carried or lost, every
    /// decision and due timer, and the notes given to [`Mesh::note`].
    pub fn draw(&mut self) {
        self.diagram = Some(Diagram::new(self.nodes.len() as u64));
    }

    /// The run's picture so far, if [`Mesh::draw`] was called.
    pub fn diagram(&self) -> Option<&Diagram> {
        self.diagram.as_ref()
    }

    /// The run's picture, to add the harness's notes to.
    pub fn diagram_mut(&mut self) -> Option<&mut Diagram> {
        self.diagram.as_mut()
    }

    /// Runs `on_timeout` on every node whose `next_deadline` has come, and
    /// acts on what it returns.
    pub fn fire_timers(&mut self) {
        for rid in 1..=self.nodes.len() as u64 {
            self.fire_due(NodeRid(rid));
        }
    }

    /// Runs node `rid`'s `on_timeout` if its deadline has come.
    fn fire_due(&mut self, rid: NodeRid) {
        if self.dead.contains(&rid) {
            return;
        }
        let now = self.node(rid.get()).now();
        if self
            .node(rid.get())
            .next_deadline()
            .is_some_and(|at| at <= now)
        {
            if self.trace {
                eprintln!("  timers due at {rid} ({now:?})");
            }
            if let Some(d) = &mut self.diagram {
                d.timers(rid, now.as_millis());
            }
            let node = self.node(rid.get());
            let actions = node.on_timeout(now);
            node.store_io_settled();
            for action in actions {
                self.act(rid, action, Carried::Session);
            }
        }
    }

    /// The earliest deadline of any node.
    pub fn next_deadline(&self) -> Option<MonoTime> {
        (1..=self.nodes.len() as u64)
            .filter(|rid| !self.dead.contains(&NodeRid(*rid)))
            .filter_map(|rid| self.node(rid).next_deadline())
            .min()
    }

    fn record(&mut self, c: Completion) {
        self.ledger
            .completed
            .push((c.operation_id, c.outcome.kind()));
    }

    fn post(&mut self, from: NodeRid, outbound: Outbound, carried: Carried) {
        if self.trace {
            let frame = crate::wire::decode(&outbound.bytes, &faults::limits());
            eprintln!(
                "  post {from} -> {} {carried:?}: {frame:?}",
                outbound.to.rid
            );
        }
        let envelope = Envelope {
            from,
            to: outbound.to.rid,
            carried,
            bytes: outbound.bytes,
        };
        if self
            .duplicate_rule
            .as_mut()
            .is_some_and(|rule| rule(&envelope))
        {
            self.ledger.duplicated_frames += 1;
            self.network.push_back(envelope.clone());
        }
        if self.drop_rule.as_mut().is_some_and(|rule| rule(&envelope)) {
            self.lose(&envelope);
        } else if self.delay_rule.as_mut().is_some_and(|rule| rule(&envelope)) {
            self.delayed.push(envelope);
        } else {
            self.network.push_back(envelope);
        }
    }

    /// Carries one frame and acts on the receiver's decision. False when
    /// nothing is in flight.
    pub fn step(&mut self) -> bool {
        let Some(envelope) = self.network.pop_front() else {
            return false;
        };
        let to = envelope.to;
        let dead = self.dead.contains(&to) || self.dead.contains(&envelope.from);
        if dead
            || self
                .nodes
                .get((to.get() as usize).wrapping_sub(1))
                .is_none()
        {
            self.lose(&envelope);
            return true;
        }
        // Who may hold each operation now: if that process dies, the
        // operation may die with it.
        for op in operations_in(&envelope.bytes) {
            self.ledger.custody.entry(op).or_default().insert(to);
        }
        if envelope.carried == Carried::Notice {
            self.ledger
                .notices
                .extend(faults::notice_in(to, &envelope.bytes));
        }
        if let Some(d) = &mut self.diagram {
            d.frame(envelope.from, to, &envelope.bytes, false);
        }
        let node = &self.nodes[(to.get() - 1) as usize];
        let action = node.on_frame(envelope.from, &envelope.bytes);
        node.store_io_settled();
        self.act(to, action, envelope.carried);
        // A host re-reads `next_deadline` after every frame: work a frame
        // made due now (a relocation's owner CAS) runs at once.
        self.fire_due(to);
        true
    }

    /// Carries out what node `at` decided; `carried` is what caused it.
    fn act(&mut self, at: NodeRid, action: Inbound, carried: Carried) {
        if self.trace {
            eprintln!("  at {at}: {action:?}");
        }
        if let Some(d) = &mut self.diagram {
            d.decision(at, &action);
        }
        match action {
            Inbound::Completed(c) => self.record(c),
            Inbound::Send(frames) => frames
                .into_iter()
                .for_each(|f| self.post(at, f, Carried::Session)),
            Inbound::SessionDeliver(d) => {
                if !self.store_names_owner(at, d.actor.as_ref()) {
                    self.ledger
                        .unauthorized_deliveries
                        .push((d.operation_id, at));
                }
                self.ledger.session_delivered_ops.insert(d.operation_id);
                self.ledger.session_delivered.push((
                    d.session.id,
                    d.actor.id().to_owned(),
                    d.sequence,
                    at,
                ));
            }
            Inbound::Session(event) => {
                if let SessionEvent::Sealed { relocation, .. } = &event {
                    self.seal_answered(*relocation);
                }
                self.ledger.session_events.push(event)
            }
            Inbound::PeerRefused | Inbound::Dropped(_) | Inbound::ForeignSender { .. } => {
                self.ledger.dropped.push(carried)
            }
            Inbound::Late { .. } => self.ledger.late += 1,
            Inbound::Deliver(d) => self.deliver(at, d),
            Inbound::Held => self.ledger.held += 1,
            Inbound::Relocation(action) => self.relocation(at, action),
            Inbound::Relay { forward, notice } => {
                self.post(at, forward, Carried::Relayed);
                if let Some(notice) = notice {
                    self.send_notice(at, notice.outbound, &notice.token);
                }
            }
            Inbound::Reject(outbound) => self.post(at, outbound, Carried::Rejection),
            Inbound::Ended(ended) => self.ledger.ended.push((ended.operation_id, ended.failure)),
            Inbound::RouteRefreshed { invalidated } => {
                self.ledger.notices_applied += 1;
                self.ledger.notices_effective += u64::from(invalidated);
            }
            Inbound::OwnershipLost(lost) => self.ledger.ownerships_lost.push((at, lost)),
        }
    }

    fn deliver(&mut self, at: NodeRid, d: Delivery) {
        let op = &d.operation;
        if self.node(at.get()).owned(op.target.as_ref()).is_none() {
            self.ledger.two_owner_deliveries += 1;
        }
        if !self.store_names_owner(at, op.target.as_ref()) {
            self.ledger
                .unauthorized_deliveries
                .push((op.operation_id, at));
        }
        self.ledger
            .delivered
            .push((op.operation_id, at, op.hop_count));
        if self.answer_requests && op.reply_route.is_some() {
            let answer = ReplyResult::Ok(op.payload.clone());
            let reply = self
                .node(at.get())
                .reply(op, answer)
                .expect("a request has a reply route");
            self.post(at, reply, Carried::Reply);
        }
    }

    fn send_notice(&mut self, relayer: NodeRid, outbound: Outbound, token: &NoticeToken) {
        let sent = !self.fail_notices;
        if sent {
            self.post(relayer, outbound, Carried::Notice);
        }
        self.node(relayer.get()).notice_settled(token, sent);
    }

    /// Node `rid` opens Session `id` (lifecycle generation 1).
    pub fn open_session(&self, rid: u64, id: u64) -> SessionRef {
        self.node(rid)
            .open_session(SessionId(id), SessionGeneration(1))
    }

    /// The ActorRef of `actor` as its owner `owner` would hand it out.
    pub fn actor_ref(&self, owner: u64, actor: &str) -> Result<ActorRef, InputError> {
        let key = self.node(owner).key(ObjectKind::Actor, actor)?.to_owned();
        let end = self
            .node(owner)
            .owner_route_end(ObjectKind::Actor, actor)?
            .ok_or_else(|| InputError::NotOwned(format!("actor {actor:?} on node {owner}")))?;
        Ok(ActorRef {
            actor: key,
            route: ActorRoute {
                owner: end.node,
                object_generation: end.fence.object_generation,
                authority_owner_generation: end.fence.authority_owner_generation,
                owner_lease_generation: end.fence.owner_lease_generation,
                lease_remaining_ms: 0,
            },
        })
    }

    /// Session owner `rid` binds `session` to the Actor `actor_ref` names.
    pub fn bind(
        &mut self,
        rid: u64,
        session: u64,
        actor_ref: &ActorRef,
    ) -> Result<(), SessionError> {
        let frame = self.node(rid).bind(SessionId(session), actor_ref)?;
        self.post(NodeRid(rid), frame, Carried::Session);
        Ok(())
    }

    /// Session owner `rid` relays `payload` from `session` to `actor`.
    pub fn session_send(
        &mut self,
        rid: u64,
        session: u64,
        actor: &ObjectKey,
        payload: &[u8],
    ) -> Result<SessionSend, SessionError> {
        let sent = self
            .node(rid)
            .session_send(SessionId(session), actor, payload)?;
        if let SessionSend::Sent { outbound, .. } = &sent {
            self.post(NodeRid(rid), outbound.clone(), Carried::Session);
        }
        Ok(sent)
    }

    /// Actor owner `rid` pushes `payload` from `actor` to the bound
    /// `session`; false when no such binding is registered there.
    pub fn push(
        &mut self,
        rid: u64,
        actor: &ObjectKey,
        session: &SessionRef,
        payload: &[u8],
    ) -> Result<bool, InputError> {
        Ok(match self.node(rid).push(actor, session, payload)? {
            Some(frame) => {
                self.post(NodeRid(rid), frame, Carried::Session);
                true
            }
            None => false,
        })
    }

    /// Session owner `rid` disconnects `session`: notifications to every
    /// bound Actor on their stored routes.
    pub fn disconnect(
        &mut self,
        rid: u64,
        session: u64,
        physical: bool,
    ) -> Result<(), SessionError> {
        for frame in self
            .node(rid)
            .disconnect_session(SessionId(session), physical)?
        {
            self.post(NodeRid(rid), frame, Carried::Session);
        }
        Ok(())
    }

    /// Steps until nothing is in flight (held envelopes stay held).
    pub fn run(&mut self) {
        while self.step() {}
    }
}
