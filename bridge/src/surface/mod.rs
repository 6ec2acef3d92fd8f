//! The host surface's result types, written once: each record with its
//! fields in order, each union with its members and their stable tags.
//! `zlink-schema` reads this file as source and generates the bytes'
//! encoder (`encode.rs` beside it) and each managed language's types and
//! decoder (the JVM's records, sealed interfaces and `Surface.java`; Node's
//! `lib/surface.js` and `lib/surface.d.ts`), so adding a field is one edit
//! here, one in the conversion (`from.rs`), and `make schema`.
//!
//! What a field's type becomes: `u64` a 64-bit number (Java `long`, JS
//! `bigint`), `u32` a 32-bit one, `bool`, `String` text, [`Bytes`] bytes
//! (Java `byte[]`, JS `Buffer`), [`Millis`] milliseconds (JS `number`), an
//! `Option` of `u64` (Java `OptionalLong`, JS `null`), a closed set of
//! [`crate::codes`] (its code; Java's enum, JS's name), or another record.
//! A union's member is the record of its name; its tag is the variant's
//! number (JS: the record's `kind` is its name).

mod encode;
mod from;

use crate::codes::{AuthorityState, StoreError, UnavailableReason};

/// Bytes (a frame, a payload).
pub type Bytes = Vec<u8>;

/// Milliseconds on the runtime's clock.
pub type Millis = u64;

/// The fence values an owner checks on admission.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {}

/// Authority exists but its owner cannot be used now: the operation ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// Why.
    pub reason: UnavailableReason,
}

/// Whether authority exists could not be determined: retry later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFailure {
    /// Why (JS: `error`).
    pub kind: StoreError,
    /// The store's text.
    pub message: String,
}

/// A runtime on the wire: mesh, routing ID, node generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// Its mesh.
    pub mesh: String,
    /// Its routing ID.
    pub rid: u64,
    /// Its node generation.
    pub generation: u64,
}

/// One encoded frame for the host to carry to node `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    /// The node it goes to.
    pub to: NodeRef,
    /// The frame.
    pub bytes: Bytes,
}

/// The operation is on its way: carry `outbound`. A request has a
/// `correlation`: its one terminal result comes as a completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// The operation.
    pub operation_id: u64,
    /// The frame and the node it goes to.
    pub outbound: Outbound,
    /// A request's correlation.
    pub correlation: Option<u64>,
}

/// The object does not exist; nothing was sent. Terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {}

/// A Missing Spot with instance intent: cold-activate it, then send again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColdActivation {}

/// A session relay on its way: carry `outbound`.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionHeld {
    /// The relay's operation.
    pub operation_id: u64,
    /// Its sequence in the Session's order.
    pub sequence: u64,
}

/// An object this node owns, as its last authority write left it.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteEnd {
    /// The node.
    pub node: NodeRef,
    /// The fence of its tenure.
    pub fence: RouteFence,
}

/// A Session as the wire names it: its owner runtime, id and generation.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(u8)]
pub enum SessionSendResult {
    /// On its way.
    SessionSent(SessionSent) = 1,
    /// Held while the Actor relocates.
    SessionHeld(SessionHeld) = 2,
    /// The binding cannot be used.
    Unavailable(Unavailable) = 3,
}
