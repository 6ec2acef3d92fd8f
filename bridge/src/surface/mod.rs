//! The host surface's result types, written once: each record with its
//! fields in order, each union with its members and their stable tags.
//! `zlink-schema` reads this file as source and generates the bytes'
//! encoder (`encode.rs` beside it) and every language's types: the JVM's
//! records, sealed interfaces and `Surface.java`; Node's `lib/surface.js`
//! and `lib/surface.d.ts`; Python's pyo3 classes and stubs; C's structs
//! (`ffi-c/src/decisions.rs`). Adding a field is one edit here, one in the
//! conversion (`from.rs`), and `make schema`.
//!
//! What a field's type becomes: `u64` a 64-bit number (Java `long`, JS
//! `bigint`), `u32` a 32-bit unsigned one (Java `long`, JS `number`),
//! `bool`, `String` text, [`Bytes`] bytes (Java `byte[]`, JS `Buffer`),
//! [`Millis`] milliseconds (JS `number`), a closed set of [`crate::codes`]
//! (its code; Java's enum, JS's name), a [`Name`] of one (its name: Java
//! `String`, JS the name), an `Option` (Java `Optional`/`OptionalLong`, JS
//! `null`), a `Vec` (a list), another record, or a value each host reads
//! by hand (a `pub type` alias of a core type: the host's class of that
//! name, its reader written beside the decoder).
//!
//! A union's member is the record of its name; its tag is the variant's
//! number (JS: the record's `kind` is its name). The members of a union
//! whose records live in a module named after it (`outcome::Reply` for
//! `Outcome`) belong to it alone: the JVM nests them (`Outcome.Reply`), as
//! does TypeScript (a namespace). A field every member of a union has is
//! the union's too (the JVM declares it on the interface).
mod encode;
mod from;
pub mod operations;

use crate::codes::{
    AbortReason, AuthorityState, BindRefusal, Failure, FrameCommand, LostReason, MetricKind,
    ObjectKind, RelayKind, RelocationRefusal, RequestErrorKind, SessionRefusal, StoreError,
    UnavailableReason, WireErrorKind,
};

/// Bytes (a frame, a payload).
pub type Bytes = Vec<u8>;

/// Milliseconds on the runtime's clock.
pub type Millis = u64;

/// A closed set's value that hosts see by its name (a rarer set: a
/// refusal, an abort reason, a relay kind).
pub type Name<T> = T;

/// A delivered Message or Request, as the core has it: each host reads it
/// by hand (it carries its own frame, to give back to `reply`).
pub type Operation = zlink_core::wire::Operation;

/// Identifies a command 50 notification (opaque to hosts): give it back
/// when the notification is settled.
pub type NoticeToken = zlink_core::NoticeToken;

/// The fence values an owner checks on admission.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RouteFence {
    /// The object's incarnation.
    pub object_generation: u64,
    /// The authority owner generation.
    pub authority_owner_generation: u64,
    /// The owner lease generation.
    pub owner_lease_generation: u64,
    /// The owner node's generation.
    pub node_generation: u64,
    /// The store version of the record.
    pub store_version: u64,
}

/// A confirmed Ready owner route: submit on it, carrying its fence. Past
/// `admission_deadline_ms` (on the runtime clock) the route is not used.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadyRoute {
    /// The owner's mesh.
    pub mesh: String,
    /// The owner's routing ID.
    pub node: u64,
    /// The fence to carry.
    pub fence: RouteFence,
    /// Past it the route is not used.
    pub admission_deadline_ms: Millis,
}

/// No authority record exists (release completed): only the creation
/// coordinator acts on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Missing {}

/// Authority exists but its owner cannot be used now: the operation ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unavailable {
    /// Why.
    pub reason: UnavailableReason,
}

/// Whether authority exists could not be determined: retry later.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoreFailure {
    /// Why (JS: `error`).
    pub kind: StoreError,
    /// The store's text.
    pub message: String,
}

/// A runtime on the wire: mesh, routing ID, node generation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeRef {
    /// Its mesh.
    pub mesh: String,
    /// Its routing ID.
    pub rid: u64,
    /// Its node generation.
    pub generation: u64,
}

/// One encoded frame for the host to carry to node `to`; the receiver
/// passes `sender`'s routing ID as the `from` of `on_frame`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Outbound {
    /// The node that made it (this runtime).
    pub sender: NodeRef,
    /// The node it goes to.
    pub to: NodeRef,
    /// The frame's command.
    pub command: FrameCommand,
    /// The frame.
    pub bytes: Bytes,
}

/// The operation is on its way: carry `outbound`. A request has a
/// `correlation`: its one terminal result comes as a completion.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Submitted {
    /// The operation.
    pub operation_id: u64,
    /// The frame and the node it goes to.
    pub outbound: Outbound,
    /// A request's correlation.
    pub correlation: Option<u64>,
}

/// The object does not exist; nothing was sent. Terminal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NotFound {}

/// A Missing Spot with instance intent: cold-activate it, then send again.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ColdActivation {}

/// A session relay on its way: carry `outbound`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionSent {
    /// The relay's operation.
    pub operation_id: u64,
    /// Its sequence in the Session's order.
    pub sequence: u64,
    /// The frame and the node it goes to.
    pub outbound: Outbound,
}

/// The Actor is relocating (sealed): the relay is held and leaves, in
/// order, with its command 44.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionHeld {
    /// The relay's operation.
    pub operation_id: u64,
    /// Its sequence in the Session's order.
    pub sequence: u64,
}

/// An object this node owns, as its last authority write left it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnedObject {
    /// Its lifecycle state.
    pub state: AuthorityState,
    /// Its incarnation.
    pub object_generation: u64,
    /// The authority owner generation this node holds.
    pub authority_owner_generation: u64,
    /// This node's owner lease generation.
    pub lease_generation: u64,
    /// The store version of the record.
    pub store_version: u64,
    /// Past it (ms on the runtime clock) this node admits nothing for it.
    pub admission_deadline_ms: Millis,
}

/// One end of a Message Follow route: a node and the fence of its tenure.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RouteEnd {
    /// The node.
    pub node: NodeRef,
    /// The fence of its tenure.
    pub fence: RouteFence,
}

/// A Session as the wire names it: its owner runtime, id and generation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionRef {
    /// The Session owner's runtime.
    pub owner: NodeRef,
    /// The Session's ID.
    pub id: u64,
    /// Its generation.
    pub generation: u64,
}

/// An Actor route as a binding stores it: the owner and the fences that
/// must still hold, with the lease time left when the owner answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActorRoute {
    /// The Actor's owner.
    pub owner: NodeRef,
    /// The Actor's incarnation.
    pub object_generation: u64,
    /// The owner's authority owner generation.
    pub authority_owner_generation: u64,
    /// The owner's lease generation.
    pub owner_lease_generation: u64,
    /// The lease time left when the owner answered.
    pub lease_remaining_ms: Millis,
}

/// The resolver's four closed results (spec §2.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Resolution {
    /// A route.
    ReadyRoute(ReadyRoute) = 1,
    /// No record.
    Missing(Missing) = 2,
    /// A record whose owner cannot be used.
    Unavailable(Unavailable) = 3,
    /// The store could not be read.
    StoreFailure(StoreFailure) = 4,
}

/// What became of a send or a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SendResult {
    /// On its way.
    Submitted(Submitted) = 1,
    /// No such object.
    NotFound(NotFound) = 2,
    /// Cold-activate it first.
    ColdActivation(ColdActivation) = 3,
    /// Its owner cannot be used.
    Unavailable(Unavailable) = 4,
    /// The store could not be read.
    StoreFailure(StoreFailure) = 5,
}

/// What became of a session relay.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SessionSendResult {
    /// On its way.
    SessionSent(SessionSent) = 1,
    /// Held while the Actor relocates.
    SessionHeld(SessionHeld) = 2,
    /// The binding cannot be used.
    Unavailable(Unavailable) = 3,
}

// ---- what `on_frame` and `on_timeout` decide --------------------------

/// The Spot execution that starts a request: its completion names it, and
/// says `origin_gone` when that Spot was re-created since.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpotExecution {
    /// The Spot's ID.
    pub spot: String,
    /// Its incarnation.
    pub object_generation: u64,
}

/// A binding's identity, issued by the Actor owner.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Binding {
    /// The binding generation.
    pub generation: u64,
    /// The binding token.
    pub token: u64,
}

/// One bound Actor as the Session owner stores it (the verified route).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BindingRoute {
    /// The Actor's ID.
    pub actor: String,
    /// The Actor's owner and the fences that must still hold.
    pub route: ActorRoute,
    /// The binding.
    pub binding: Binding,
    /// The Session.
    pub session: SessionRef,
    /// Past it (ms on the runtime clock) the route is re-verified first.
    pub admission_deadline_ms: Millis,
}

/// Which relocation: its id, the object it moves and that object's
/// incarnation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RelocationIdentity {
    /// The relocation's id.
    pub relocation: u64,
    /// The object's kind (JS: `objectKind`).
    pub kind: ObjectKind,
    /// The object's ID.
    pub id: String,
    /// The object's incarnation being moved.
    pub object_generation: u64,
}

/// A request's one terminal result: its correlation and operation, its
/// target, the outcome, and the Spot execution that started it
/// (`origin_gone`: that Spot was re-created since; resume the old
/// execution only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Completion {
    /// The request's correlation.
    pub correlation: u64,
    /// The request's operation.
    pub operation_id: u64,
    /// The target's kind (JS: `objectKind`).
    pub kind: ObjectKind,
    /// The target's ID.
    pub id: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The Spot execution that started it.
    pub origin: Option<SpotExecution>,
    /// That Spot was re-created since.
    pub origin_gone: bool,
}

/// A request's terminal results.
pub mod outcome {
    use super::*;

    /// The target's answer.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Reply {
        /// The reply's bytes.
        pub payload: Bytes,
    }

    /// An error reply or a route error. `kind`: Handler or Decode (the
    /// target answered with an error: `code`, `message`), Unavailable
    /// (with `reason`) or InvalidOperation.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Error {
        /// What failed (JS: `errorKind`).
        pub kind: Name<RequestErrorKind>,
        /// Unavailable: why.
        pub reason: Option<UnavailableReason>,
        /// The application's error code.
        pub code: u32,
        /// The error's message.
        pub message: String,
    }

    /// The request's deadline passed first.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Timeout {}

    /// The caller cancelled first.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Cancelled {}

    /// The runtime shut down first.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Shutdown {}
}

/// A request's terminal result: Reply, Error, Timeout, Cancelled or
/// Shutdown.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Outcome {
    /// The answer.
    Reply(outcome::Reply) = 1,
    /// An error.
    Error(outcome::Error) = 2,
    /// Timed out.
    Timeout(outcome::Timeout) = 3,
    /// Cancelled.
    Cancelled(outcome::Cancelled) = 4,
    /// Shut down.
    Shutdown(outcome::Shutdown) = 5,
}

/// What a relocation step reports.
pub mod relocation_event {
    use super::*;

    /// Target: a Restore arrived. Build the object from `state`, then say
    /// it is restored (or abort if it cannot be built). Run nothing for it
    /// yet.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Restore {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// The source's routing ID.
        pub source_rid: u64,
        /// The source's node generation.
        pub source_generation: u64,
        /// The application state.
        pub state: Bytes,
    }

    /// Source: the target is relay-ready; held work relayed; the object
    /// no longer runs here.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Cutover {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// Operations relayed from the ingress hold.
        pub relayed: u64,
    }

    /// Target: the owner CAS succeeded; the object runs here from now on.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Committed {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// The source's routing ID.
        pub source_rid: u64,
        /// The source's node generation.
        pub source_generation: u64,
    }

    /// Source: the target committed; drop the local instance.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct HandedOff {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// The target's routing ID.
        pub target_rid: u64,
        /// The target's node generation.
        pub target_generation: u64,
    }

    /// Either side, before relay-ready: the move is abandoned.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Aborted {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// Why: Requested, Timeout, Refused, RestoreFailed, CommitFailed.
        pub reason: Name<AbortReason>,
    }

    /// After relay-ready the move could not complete: the object runs on
    /// neither side.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Failed {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// Why.
        pub reason: Name<AbortReason>,
    }

    /// The store could not answer; retried on a later timeout.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct CommitRetry {
        /// Which relocation.
        pub identity: RelocationIdentity,
    }

    /// A relocation frame that changes nothing: refused and counted.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Ignored {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// Why: NotRelocating, WrongTarget, ...
        pub refusal: Name<RelocationRefusal>,
    }

    /// Source: the move is being given up; the object stays sealed until
    /// the target confirms.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Aborting {
        /// Which relocation.
        pub identity: RelocationIdentity,
        /// Why.
        pub reason: Name<AbortReason>,
    }

    /// Target: the cutover arrived; the next timeout call starts the owner
    /// CAS on the store's I/O (never waiting for it); that call or a later
    /// one (the next deadline says when) reports Committed.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct CommitDue {
        /// Which relocation.
        pub identity: RelocationIdentity,
    }
}

/// What a relocation step reports.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RelocationEvent {
    /// State to restore.
    Restore(relocation_event::Restore) = 1,
    /// The source cut over.
    Cutover(relocation_event::Cutover) = 2,
    /// The target committed.
    Committed(relocation_event::Committed) = 3,
    /// The source handed off.
    HandedOff(relocation_event::HandedOff) = 4,
    /// Abandoned.
    Aborted(relocation_event::Aborted) = 5,
    /// Failed after relay-ready.
    Failed(relocation_event::Failed) = 6,
    /// The commit is retried.
    CommitRetry(relocation_event::CommitRetry) = 7,
    /// A frame ignored.
    Ignored(relocation_event::Ignored) = 8,
    /// Being abandoned.
    Aborting(relocation_event::Aborting) = 9,
    /// The commit is due.
    CommitDue(relocation_event::CommitDue) = 10,
}

/// Put `operation` on the local queue of the current Ready object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deliver {
    /// The operation (give it back to reply, or save it for a relocation).
    pub operation: Operation,
    /// The incarnation that processes it.
    pub object_generation: u64,
}

/// A command 50 notification to send to the original sender; report it
/// settled with `token`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The notification and its destination.
    pub outbound: Outbound,
    /// What to report it settled with.
    pub token: NoticeToken,
}

/// Carry `forward` to the new owner; send the `notice` (if any) and report
/// it settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relay {
    /// The operation, to the new owner.
    pub forward: Outbound,
    /// The notification for the sender.
    pub notice: Option<Notice>,
}

/// Carry this refusal back to the operation's origin.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reject {
    /// The refusal and its destination.
    pub outbound: Outbound,
}

/// One of this runtime's one-way operations ended without delivery:
/// `failure` is "Unavailable" (with `reason`) or "InvalidOperation".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ended {
    /// The operation.
    pub operation_id: u64,
    /// The target's kind (JS: `objectKind`).
    pub kind: ObjectKind,
    /// The target's ID.
    pub id: String,
    /// How it ended.
    pub failure: Name<Failure>,
    /// Unavailable: why.
    pub reason: Option<UnavailableReason>,
}

/// One of this runtime's requests reached its terminal result.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Completed {
    /// The result.
    pub completion: Completion,
}

/// A result after the terminal one: dropped and counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Late {
    /// The request's correlation.
    pub correlation: u64,
}

/// A relay notification was applied; `invalidated`: whether a cached
/// route went.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RouteRefreshed {
    /// A cached route was dropped.
    pub invalidated: bool,
}

/// Not a valid frame: dropped. `kind` is the wire error's kind
/// (docs/wire.md).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dropped {
    /// The wire error's kind (JS: `error`).
    pub kind: Name<WireErrorKind>,
    /// Its text (JS: `message`).
    pub error: String,
}

/// Carry these frames (session protocol answers, notifications).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Send {
    /// The frames, in order.
    pub outbounds: Vec<Outbound>,
}

/// A session relay admitted on this Actor owner: hand `payload` (or the
/// disconnect `relay_kind` names: Message, PhysicalDisconnect,
/// LogicalDisconnect) to the Actor, in `sequence` order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionDeliver {
    /// The relay's operation.
    pub operation_id: u64,
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// Its place in the Session's order.
    pub sequence: u64,
    /// Message or a disconnect.
    pub relay_kind: Name<RelayKind>,
    /// The application bytes.
    pub payload: Bytes,
}

/// A bind (or rebind) reached its terminal reply: `route` is stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bound {
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// The stored route.
    pub route: BindingRoute,
}

/// A bind was refused; any previous route is kept. `reason`: NotOwner,
/// ObjectGeneration, NodeGeneration, OwnerGeneration, OwnerLease or
/// Timeout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BindRefused {
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// Why.
    pub reason: Name<BindRefusal>,
}

/// The Actor pushed `payload` to the Session.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pushed {
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// The application bytes.
    pub payload: Bytes,
}

/// The Actor side refused a session relay: the operation ends
/// Unavailable. `reason`: UnknownBinding, StaleRoute or ObjectGeneration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RelayRefused {
    /// The relay's operation.
    pub operation_id: u64,
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// Why.
    pub reason: Name<SessionRefusal>,
}

/// The relocation source learns whether a Session sealed (command 43).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sealed {
    /// The Session.
    pub session: SessionRef,
    /// The Actor's ID.
    pub actor: String,
    /// The relocation.
    pub relocation: u64,
    /// Whether the seal was installed.
    pub sealed: bool,
}

/// No command 44 came within the seal timeout: the Session is closed and
/// its binding, held and seal state are gone. Its disconnect
/// notifications follow as a Send.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionClosed {
    /// The Session.
    pub session: SessionRef,
}

/// A session frame that does not match current state was ignored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ignored {
    /// Why.
    pub reason: String,
}

/// A frame on a manual peer connection failed the admission fence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PeerRefused {}

/// A frame whose sender is not the node of the connection it came on:
/// refused and counted. `claimed`: the sender it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ForeignSender {
    /// The node of the connection it came on.
    pub connection: u64,
    /// The sender the frame names, if any.
    pub claimed: Option<u64>,
}

/// The operation is held for a relocation of its object (or, after a store
/// recovery event, until its record is re-read): nothing to do now; it is
/// delivered once, on the side that ends up owning the object (in a
/// Relocation's `deliver`, or from a timeout call), or refused to its
/// sender.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Held {}

/// A relocation step: `event` says what happened; put every `deliver` on
/// the object's application queue in order (each answered like any
/// other), hand every `session` relay to the Actor in order, and carry
/// every frame of `send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocation {
    /// What happened.
    pub event: RelocationEvent,
    /// Operations for the object's queue, in order.
    pub deliver: Vec<Deliver>,
    /// Frames to carry.
    pub send: Vec<Outbound>,
    /// Session relays for the Actor, in order.
    pub session: Vec<SessionDeliver>,
}

/// After a store recovery event (a Redis failover or restart), the store
/// no longer names this node as the owner of the object: stop running it
/// here. Work held for it while its record was re-read was refused to its
/// senders (in Reject decisions of the same timeout call). `reason` says
/// what the store holds instead.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnershipLost {
    /// The object's kind (JS: `objectKind`).
    pub kind: ObjectKind,
    /// The object's ID.
    pub id: String,
    /// What the store holds instead.
    pub reason: LostReason,
}

/// What to do with one inbound frame or one due deadline (`on_frame`,
/// `on_timeout`): deliver, relay, reject, end, complete, carry frames, or
/// one of the session and relocation events. Closed: match every case.
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(u8)]
pub enum Inbound {
    /// Deliver locally.
    Deliver(Deliver) = 1,
    /// Relay to the new owner.
    Relay(Relay) = 2,
    /// Refuse to the origin.
    Reject(Reject) = 3,
    /// A one-way operation ended.
    Ended(Ended) = 4,
    /// A request completed.
    Completed(Completed) = 5,
    /// A late result.
    Late(Late) = 6,
    /// A notification applied.
    RouteRefreshed(RouteRefreshed) = 7,
    /// Not a frame.
    Dropped(Dropped) = 8,
    /// Frames to carry.
    Send(Send) = 9,
    /// A session relay to hand over.
    SessionDeliver(SessionDeliver) = 10,
    /// A bind ended well.
    Bound(Bound) = 11,
    /// A bind was refused.
    BindRefused(BindRefused) = 12,
    /// The Actor pushed.
    Pushed(Pushed) = 13,
    /// A relay was refused.
    RelayRefused(RelayRefused) = 14,
    /// A seal answer.
    Sealed(Sealed) = 15,
    /// A Session closed.
    SessionClosed(SessionClosed) = 16,
    /// A session frame ignored.
    Ignored(Ignored) = 17,
    /// A peer frame refused.
    PeerRefused(PeerRefused) = 18,
    /// A frame from the wrong node.
    ForeignSender(ForeignSender) = 19,
    /// Held for later.
    Held(Held) = 20,
    /// A relocation step.
    Relocation(Relocation) = 21,
    /// Ownership lost.
    OwnershipLost(OwnershipLost) = 22,
}

/// One metric family, read now: its names in Prometheus and
/// OpenTelemetry, what it measures and its samples. Every host hands these
/// to its ecosystem's metrics library (`crate::metrics`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricFamily {
    /// The Prometheus name (`zlink_store_read_duration_seconds`).
    pub name: String,
    /// The OpenTelemetry name (`zlink.store.read.duration`).
    pub otel_name: String,
    /// What it measures, in one sentence.
    pub help: String,
    /// Its unit, as OpenTelemetry writes it (`s`, or `1` for a count).
    pub unit: String,
    /// A counter, a gauge or a histogram.
    pub kind: Name<MetricKind>,
    /// The name of the one label its samples differ by (`reason`), or
    /// empty when it has one sample.
    pub label: String,
    /// A histogram's bucket upper bounds, in nanoseconds (the last bucket,
    /// +Inf, has none); empty for a counter or a gauge.
    pub bounds_ns: Vec<u64>,
    /// Its samples, one per value of `label`.
    pub samples: Vec<MetricSample>,
}

/// One sample of a metric family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricSample {
    /// The value of the family's `label` (empty when it has none).
    pub label_value: String,
    /// A counter's total, a gauge's level, or a histogram's count of
    /// observations.
    pub value: u64,
    /// A histogram's cumulative counts: `buckets[i]` observations were at
    /// most `bounds_ns[i]`; empty for a counter or a gauge.
    pub buckets: Vec<u64>,
    /// A histogram's sum of observations, in nanoseconds; 0 otherwise.
    pub sum_ns: u64,
}

/// Decisions in their surface form, in order.
pub fn decisions(all: Vec<zlink_core::Inbound>) -> Vec<Inbound> {
    all.into_iter().map(Inbound::from).collect()
}
