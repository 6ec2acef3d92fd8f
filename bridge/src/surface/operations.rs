//! The operations every host's runtime offers, written once: each one's
//! name, parameters and result in the surface's types, and its doc.
//! `zlink-schema` reads this file as source and writes from it the
//! runtime's declarations in Python's stubs and Node's types, checks that
//! the JVM's `ZlinkRuntime`, Node's `Runtime`, Python's `Runtime` and the C
//! header each offer every operation (or say why not), and writes the
//! table of `docs/operations.md`. No type implements the trait: each
//! binding translates the bridge's [`crate::Runtime`] in its own idiom;
//! compiling it proves every type it names exists.
//!
//! What a signature says: an `async fn` may wait on the store (Node returns
//! a Promise, the JVM adds an `…Async` form running on a runtime thread,
//! Python releases the GIL while it waits); a plain `fn` never waits. A
//! trailing `Option` parameter may be left out; a count is a `u32` (a JS
//! `number`). The host classes named
//! below (`pub type` aliases) are each host's own class of that name.
#![allow(async_fn_in_trait)]

use super::{
    ActorRoute, BindingRoute, Bytes, Completion, Inbound, MetricFamily, Name, NoticeToken,
    Operation, Outbound, OwnedObject, ReadyRoute, Relocation, Resolution, RouteEnd, SendResult,
    SessionRef, SessionSendResult,
};
use crate::codes::{ObjectKind, ReplyErrorKind};

/// This node's identity: its RouteMesh, routing ID, generation and lease.
pub type NodeIdentity = zlink_core::NodeIdentity;
/// The routing settings.
pub type RoutingConfig = zlink_core::RoutingConfig;
/// A send's options: instance intent, admission deadline, and for a
/// request its timeout and the Spot execution it is sent from.
pub type SendOptions = zlink_core::RequestOptions;
/// A relocation begun: its identity and the frames to carry.
pub type RelocationStarted = zlink_core::RelocationStarted;
/// A Session bound to an Actor here, with its binding.
pub type Registration = zlink_core::Registration;
/// A node's object-peer descriptor.
pub type PeerDescriptor = zlink_core::PeerDescriptor;
/// A peer connection to replace now.
pub type PeerReplacement = zlink_core::PeerReplacement;
/// A manual endpoint's intent, observed routing ID and close state.
pub type PeerIntent = zlink_core::PeerIntent;
/// Every counter, by name.
pub type Stats = Vec<crate::stats::Counter>;

/// The host surface's operations, in the order the docs list them.
pub trait Operations {
    // ---- the runtime ----------------------------------------------------

    /// Stops the runtime: later calls fail as closed; calls running finish
    /// first. Closing twice is allowed.
    fn close(&self);
    /// This node.
    fn identity(&self) -> NodeIdentity;
    /// The config in force.
    fn config(&self) -> RoutingConfig;
    /// Replaces the config in force; a broken rule fails and changes
    /// nothing. A lower cache capacity evicts at once; it can go back up
    /// to the capacity at build, not above (`CapacityAboveBuilt`).
    fn update_config(&self, config: RoutingConfig);
    /// Every counter, read now (`store_reads`, `resolutions.ready_route`, ...).
    fn stats(&self) -> Stats;
    /// Every metric family, read now (the counters, then the latency
    /// histograms), for the host's metrics library.
    fn metrics(&self) -> Vec<MetricFamily>;
    /// Every metric in the Prometheus text exposition format: what a scrape
    /// of `/metrics` answers.
    fn metrics_text(&self) -> String;

    // ---- resolving (spec §2.1, §2.2) ------------------------------------

    /// Cache only: a recent route, never blocking, never reading the store.
    fn lookup_cached(&self, kind: Name<ObjectKind>, id: String) -> Option<ReadyRoute>;
    /// Cache only, for many IDs of one kind: each one's route or nothing,
    /// in order. Never blocks.
    fn lookup_cached_many(
        &self,
        kind: Name<ObjectKind>,
        ids: Vec<String>,
    ) -> Vec<Option<ReadyRoute>>;
    /// Resolves a global ID: a recent cached route, else the store (bounded
    /// by the store timeout). Never fails for a routing outcome.
    async fn resolve(&self, kind: Name<ObjectKind>, id: String) -> Resolution;
    /// `resolve` for many IDs of one kind: the hits at once, the misses
    /// read from the store; in order.
    async fn resolve_many(&self, kind: Name<ObjectKind>, ids: Vec<String>) -> Vec<Resolution>;

    // ---- the owner's lifecycle (spec §2.1, §2.4) ------------------------

    /// Creates a new incarnation owned by this node, in Creating.
    async fn create(&self, kind: Name<ObjectKind>, id: String) -> OwnedObject;
    /// Publishes this node's Creating object as Ready.
    async fn publish_ready(&self, kind: Name<ObjectKind>, id: String) -> OwnedObject;
    /// Creates, then publishes Ready.
    async fn activate(&self, kind: Name<ObjectKind>, id: String) -> OwnedObject;
    /// Extends this node's owner lease on the object.
    async fn renew_lease(&self, kind: Name<ObjectKind>, id: String) -> OwnedObject;
    /// Starts releasing: the ID resolves Unavailable (Releasing).
    async fn begin_release(&self, kind: Name<ObjectKind>, id: String) -> OwnedObject;
    /// Completes the release: the ID resolves Missing.
    async fn complete_release(&self, kind: Name<ObjectKind>, id: String);
    /// What this node owns for the ID, if anything.
    fn owned(&self, kind: Name<ObjectKind>, id: String) -> Option<OwnedObject>;
    /// How many objects this node owns.
    fn owned_count(&self) -> u32;
    /// This node's tenure of an object it owns (what a Message Follow route
    /// names, where an ActorRef points), if it owns it.
    fn owner_route_end(&self, kind: Name<ObjectKind>, id: String) -> Option<RouteEnd>;

    // ---- messages and requests (spec §2, §4) ----------------------------

    /// Sends a one-way message by global ID; a cache miss reads the store.
    async fn send(
        &self,
        kind: Name<ObjectKind>,
        id: String,
        payload: Bytes,
        options: Option<SendOptions>,
    ) -> SendResult;
    /// Sends a request: as `send`, and its `Submitted` carries the
    /// correlation its one terminal `Completion` will carry.
    async fn request(
        &self,
        kind: Name<ObjectKind>,
        id: String,
        payload: Bytes,
        options: Option<SendOptions>,
    ) -> SendResult;
    /// Decides what to do with one frame that arrived on the connection to
    /// node `from_node` (its routing ID). Never waits on the store: a
    /// relocation's store write runs on the store's I/O and its outcome
    /// comes from a later `on_timeout`.
    async fn on_frame(&self, from_node: u64, frame: Bytes) -> Inbound;
    /// Answers a delivered request with `payload`: the frame to carry back.
    fn reply(&self, operation: Operation, payload: Bytes) -> Outbound;
    /// Answers a delivered request with an error: `error_kind` Handler or
    /// Decode, an application `code` (0 if left out) and `message`.
    fn reply_error(
        &self,
        operation: Operation,
        error_kind: Name<ReplyErrorKind>,
        code: Option<u32>,
        message: Option<String>,
    ) -> Outbound;
    /// Reports whether a Relay's notification was sent (every Notice's
    /// token comes back here once).
    fn notice_settled(&self, token: NoticeToken, sent: bool);
    /// Cancels a pending request: its Completion, or nothing if it had
    /// already ended.
    fn cancel(&self, correlation: u64) -> Option<Completion>;
    /// Ends every pending request with Shutdown: their Completions.
    fn shutdown_requests(&self) -> Vec<Completion>;
    /// Requests waiting for their result.
    fn pending_requests(&self) -> u32;

    // ---- timers ---------------------------------------------------------

    /// The runtime's clock now, in nanoseconds: the `now` of `on_timeout`.
    fn now(&self) -> u64;
    /// The earliest instant (runtime clock, ns) a deadline needs waking
    /// at, if any.
    fn next_deadline(&self) -> Option<u64>;
    /// Runs every deadline due at `now` (ns; the clock's now if left out):
    /// their decisions, in order. Never waits on the store.
    async fn on_timeout(&self, now: Option<u64>) -> Vec<Inbound>;

    // ---- relocation (spec §2.5, §3.3) -----------------------------------

    /// Source: starts moving an object this node owns (Ready) to runtime
    /// `target_rid` of this mesh, with the operations the host accepted
    /// and has not run (`saved`, in queue order) and its `state`.
    fn begin_relocation(
        &self,
        kind: Name<ObjectKind>,
        id: String,
        target_rid: u64,
        target_generation: u64,
        saved: Vec<Operation>,
        state: Bytes,
    ) -> RelocationStarted;
    /// Target: the host built the object from the Restore's state; the
    /// relay-ready frames for the source (the point of no return).
    fn relocation_restored(&self, kind: Name<ObjectKind>, id: String) -> Vec<Outbound>;
    /// Abandons a relocation before relay-ready, on the source (its held
    /// work comes back) or on the target.
    fn abort_relocation(&self, kind: Name<ObjectKind>, id: String) -> Relocation;

    // ---- sessions (spec §3) ---------------------------------------------

    /// Opens a Session owned by this runtime.
    fn open_session(&self, session: u64, generation: u64) -> SessionRef;
    /// Binds (or rebinds) `session` to Actor `actor` at `route`: the frame
    /// to carry; the route is stored only by its terminal reply.
    fn bind(&self, session: u64, actor: String, route: ActorRoute) -> Outbound;
    /// The stored binding route of Actor `actor` in `session`, if any.
    fn binding(&self, session: u64, actor: String) -> Option<BindingRoute>;
    /// Relays `payload` from `session` to Actor `actor` on the stored
    /// route (no lookup).
    fn session_send(&self, session: u64, actor: String, payload: Bytes) -> SessionSendResult;
    /// The Session's connection closed (`physical`) or the application
    /// ended it: the disconnect notifications to carry.
    fn disconnect_session(&self, session: u64, physical: bool) -> Vec<Outbound>;
    /// Pushes `payload` from Actor `actor` to the bound `session`, if it is
    /// registered here.
    fn push(&self, actor: String, session: SessionRef, payload: Bytes) -> Option<Outbound>;
    /// The Sessions bound to Actor `actor` here.
    fn bound_sessions(&self, actor: String) -> Vec<Registration>;
    /// After a lease renewal: a route refresh to every bound Session.
    fn refresh_session_routes(&self, actor: String) -> Vec<Outbound>;
    /// Drops every binding of Actor `actor` here.
    fn forget_bindings(&self, actor: String);

    // ---- manual object peers (spec §2.3) --------------------------------

    /// Publishes this node's own object-peer descriptor (writes the store).
    async fn publish_descriptor(
        &self,
        endpoint: String,
        security_identity: String,
    ) -> PeerDescriptor;
    /// Registers a manually configured endpoint (an intent only).
    fn add_manual_peer(&self, endpoint: String);
    /// Looks up every manual endpoint's descriptor (reads the store): the
    /// replacements to perform now.
    async fn connect_manual_peers(&self) -> Vec<PeerReplacement>;
    /// Registers `endpoint` if needed and looks its descriptor up: a
    /// replacement to perform now, if any.
    async fn ensure_manual_peer(&self, endpoint: String) -> Option<PeerReplacement>;
    /// The transport connected `endpoint`; its handshake showed `rid`.
    fn peer_opened(&self, endpoint: String, rid: u64);
    /// The transport confirmed `endpoint` closed: a waiting replacement is
    /// installed and returned.
    fn peer_closed(&self, endpoint: String) -> Option<PeerReplacement>;
    /// The intent, observed routing ID and close state of `endpoint`.
    fn peer_intent(&self, endpoint: String) -> Option<PeerIntent>;
    /// Where to reach node `rid`, only through an installed descriptor.
    fn peer_endpoint(&self, rid: u64) -> Option<String>;
    /// `on_frame` behind a manual peer connection's admission fence.
    async fn on_peer_frame(&self, endpoint: String, frame: Bytes) -> Inbound;

    // ---- invalidation (spec §2.2) ---------------------------------------

    /// The lifecycle `lease` of node `node` ended: drops its cached routes;
    /// how many.
    fn on_owner_lease_invalidated(&self, node: u64, lease: u64) -> u32;
    /// A store recovery the host observed: clears the route cache; how many
    /// routes it dropped.
    fn on_store_recovery(&self) -> u32;
}
