//! Immutable values and call results (DESIGN §4): the resolver tags,
//! routes, frames to carry, sessions, peers, built from the bridge's flat
//! results.

use pyo3::prelude::*;
use zlink_bridge::codes::{AuthorityState, Liveness, ResolutionTag, SentTag, SessionSentTag};
use zlink_bridge::{Resolved, Sent, SessionSent};
use zlink_core::wire::{ActorRoute, Binding, NodeRef, RouteEnd, SessionRef};
use zlink_core::{
    BindingRoute, Outbound, OwnedObject, PeerDescriptor, PeerIntent, PeerReplacement, ReadyRoute,
    Registration, RouteFence, SpotExecution,
};

use crate::errors::Raise;
use crate::values::{Bytes, Obj, new};

record! {
    /// The fence values an owner checks on admission.
    "RouteFence" PyRouteFence(RouteFence as f) [hash] {
        object_generation: f.object_generation.get(),
        authority_owner_generation: f.authority_owner_generation.get(),
        owner_lease_generation: f.owner_lease_generation.get(),
        node_generation: f.node_generation.get(),
        store_version: f.store_version.get(),
    }
}

record! {
    /// A confirmed Ready owner route: submit on it, carrying its fence
    /// (`admission_deadline_ms`: past it, on the runtime clock, the route is
    /// not used). The core's plain value: a cache hit allocates nothing else.
    "ReadyRoute" PyReadyRoute(ReadyRoute as r) [hash] {
        mesh: r.route.mesh.as_str(),
        node: r.route.node.get(),
        fence: PyRouteFence(r.fence),
        admission_deadline_ms: r.admission_deadline.as_millis(),
        object_generation: r.fence.object_generation.get(),
        authority_owner_generation: r.fence.authority_owner_generation.get(),
    }
    match (mesh, node, fence)
}

unit! {
    /// No authority record exists (release completed): only the creation
    /// coordinator acts on this.
    "Missing" PyMissing
}

record! {
    /// Authority exists but its owner cannot be used now: the operation ends.
    "Unavailable" PyUnavailable [hash] { reason: &'static str }
}

record! {
    /// Whether authority exists could not be determined: retry later.
    /// `kind`: Timeout, Unreachable, Config or Protocol.
    "StoreFailure" PyStoreFailure [hash] { kind: &'static str, error: String }
}

/// ReadyRoute | Missing | Unavailable | StoreFailure.
pub(crate) fn resolved(py: Python<'_>, r: Resolved) -> PyResult<Obj> {
    match (r.tag, r.route) {
        (ResolutionTag::ReadyRoute, Some(route)) => new(py, PyReadyRoute(route)),
        (ResolutionTag::Unavailable, _) => new(py, PyUnavailable::of(r.reason.name())),
        (ResolutionTag::StoreFailure, _) => new(
            py,
            PyStoreFailure::of(r.store_error.name(), r.store_message),
        ),
        _ => new(py, PyMissing),
    }
}

record! {
    /// A runtime on the wire: mesh, routing ID, node generation.
    "NodeRef" PyNodeRef(NodeRef as n) [hash] {
        mesh: n.mesh.as_str(),
        rid: n.rid.get(),
        generation: n.generation.get(),
    }
}

record! {
    /// One end of a Message Follow route: a node and the fence of its tenure.
    "RouteEnd" PyRouteEnd(RouteEnd as e) [hash] {
        node: PyNodeRef(e.node),
        fence: PyRouteFence(e.fence),
    }
}

record! {
    /// An object this node owns, as its last authority write left it.
    /// `state`: "creating", "ready" or "releasing".
    "OwnedObject" PyOwnedObject(OwnedObject as o) {
        state: AuthorityState::from(o.state).name(),
        object_generation: o.object_generation.get(),
        authority_owner_generation: o.authority_owner_generation.get(),
        lease_generation: o.lease_generation.get(),
        store_version: o.store_version.get(),
        admission_deadline_ms: o.admission_deadline.as_millis(),
    }
    match (state, object_generation, authority_owner_generation)
}

record! {
    /// Bytes for the host to carry to a node.
    "Outbound" PyOutbound [hash] { to: PyNodeRef, bytes: Bytes }
}

impl From<Outbound> for PyOutbound {
    fn from(o: Outbound) -> Self {
        PyOutbound::of(PyNodeRef(o.to), Bytes(o.bytes))
    }
}

/// Frames to carry, as a list.
pub(crate) fn outbounds(frames: Vec<Outbound>) -> Vec<PyOutbound> {
    frames.into_iter().map(Into::into).collect()
}

record! {
    /// The operation is on its way: carry `outbound`. `correlation` is set
    /// for a request (its one terminal result comes as a `Completion`).
    "Submitted" PySubmitted [hash] {
        operation_id: u64,
        outbound: PyOutbound,
        correlation: Option<u64>,
    }
}

unit! {
    /// The object does not exist; nothing was sent. Terminal.
    "NotFound" PyNotFound
}

unit! {
    /// Missing Spot with instance intent: cold-activate it, then send again.
    "ColdActivation" PyColdActivation
}

/// Submitted | NotFound | ColdActivation | Unavailable | StoreFailure.
pub(crate) fn sent(py: Python<'_>, s: Sent) -> PyResult<Obj> {
    match (s.tag, s.outbound) {
        (SentTag::Submitted, Some(o)) => {
            new(py, PySubmitted::of(s.operation_id, o.into(), s.correlation))
        }
        (SentTag::ColdActivation, _) => new(py, PyColdActivation),
        (SentTag::Unavailable, _) => new(py, PyUnavailable::of(s.reason.name())),
        (SentTag::StoreFailure, _) => new(
            py,
            PyStoreFailure::of(s.store_error.name(), s.store_message),
        ),
        _ => new(py, PyNotFound),
    }
}

record! {
    /// A Session as the wire names it: its owner runtime, id and generation.
    "SessionRef" PySessionRef(SessionRef as s) [hash] {
        owner: PyNodeRef(s.owner),
        id: s.id.get(),
        generation: s.generation.get(),
    }
}

record! {
    /// A binding's identity, issued by the Actor owner.
    "Binding" PyBinding(Binding as b) [hash] {
        generation: b.generation.get(),
        token: b.token.get(),
    }
}

record! {
    /// An Actor route as a binding stores it: the owner and the fences that
    /// must still hold, with the lease time left when the owner answered.
    "ActorRoute" PyActorRoute(ActorRoute as r) [hash] {
        owner: PyNodeRef(r.owner),
        object_generation: r.object_generation.get(),
        authority_owner_generation: r.authority_owner_generation.get(),
        owner_lease_generation: r.owner_lease_generation.get(),
        lease_remaining_ms: r.lease_remaining_ms,
    }
    match (owner, object_generation, authority_owner_generation)
}

/// The location a bind starts from: an ActorRoute, or a RouteEnd from
/// `owner_route_end`.
pub(crate) fn actor_route(location: &Bound<'_, PyAny>) -> PyResult<ActorRoute> {
    if let Ok(r) = location.cast::<PyActorRoute>() {
        return Ok(r.get().0);
    }
    if let Ok(end) = location.cast::<PyRouteEnd>() {
        return Ok(zlink_bridge::runtime::actor_route(&end.get().0));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "location must be a RouteEnd or an ActorRoute",
    ))
}

record! {
    /// One bound Actor as the Session owner stores it (the verified route).
    "BindingRoute" PyBindingRoute(BindingRoute as b) {
        actor: b.actor.id(),
        route: PyActorRoute(b.route),
        binding: PyBinding(b.binding),
        session: PySessionRef(b.session),
        admission_deadline_ms: b.admission_deadline.as_millis(),
    }
    match (actor, route, binding)
}

record! {
    /// One Session bound to an Actor on its owner (exported to and imported
    /// on a relocation target).
    "Registration" PyRegistration [hash] { session: PySessionRef, binding: PyBinding }
}

impl From<Registration> for PyRegistration {
    fn from(r: Registration) -> Self {
        PyRegistration::of(PySessionRef(r.session), PyBinding(r.binding))
    }
}

record! {
    /// A session relay on its way: carry `outbound`.
    "SessionSent" PySessionSent [hash] { operation_id: u64, sequence: u64, outbound: PyOutbound }
}

record! {
    /// The Actor is relocating (sealed): the relay is held and leaves, in
    /// order, with the relocation's command 44.
    "SessionHeld" PySessionHeld [hash] { operation_id: u64, sequence: u64 }
}

/// SessionSent | SessionHeld | Unavailable.
pub(crate) fn session_sent(py: Python<'_>, s: SessionSent) -> PyResult<Obj> {
    let (operation_id, sequence) = (s.operation_id, s.sequence);
    match (s.tag, s.outbound) {
        (SessionSentTag::Sent, Some(o)) => {
            new(py, PySessionSent::of(operation_id, sequence, o.into()))
        }
        (SessionSentTag::Held, _) => new(py, PySessionHeld::of(operation_id, sequence)),
        _ => new(py, PyUnavailable::of(s.reason.name())),
    }
}

record! {
    /// The Spot execution that starts a request: `request(..., origin=...)`.
    "SpotExecution" PySpotExecution(SpotExecution as s) [hash] {
        spot: s.spot.id(),
        object_generation: s.object_generation.get(),
    }
    {
        #[new]
        fn new(spot: &str, object_generation: u64) -> PyResult<Self> {
            let s = zlink_bridge::runtime::spot_execution(spot, object_generation);
            s.py().map(PySpotExecution)
        }
    }
}

record! {
    /// What a node publishes about itself as an object peer (from the store).
    "PeerDescriptor" PyPeerDescriptor(PeerDescriptor as d) [hash] {
        endpoint: d.endpoint.as_str(),
        rid: d.rid.get(),
        lifecycle_generation: d.lifecycle_generation.get(),
        security_identity: d.security_identity.as_str(),
    }
}

record! {
    /// A connection replacement to perform now: the handshake uses all four
    /// values of `descriptor`.
    "PeerReplacement" PyPeerReplacement [hash] { descriptor: PyPeerDescriptor }
}

impl From<PeerReplacement> for PyPeerReplacement {
    fn from(r: PeerReplacement) -> Self {
        PyPeerReplacement::of(PyPeerDescriptor(r.descriptor))
    }
}

record! {
    /// One manual endpoint's intent, observed routing ID and close state.
    /// `liveness`: "connecting", "open" (with `observed_rid`) or "closed".
    "PeerIntent" PyPeerIntent(PeerIntent as i) {
        endpoint: i.endpoint.as_str(),
        installed: i.installed.clone().map(PyPeerDescriptor),
        liveness: Liveness::of(i.liveness).0.name(),
        observed_rid: Liveness::of(i.liveness).1,
        pending: i.pending.clone().map(PyPeerDescriptor),
    }
    match (endpoint, installed, liveness, pending)
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    classes! { m:
        PyRouteFence PyReadyRoute PyMissing PyUnavailable PyStoreFailure PyNodeRef PyRouteEnd
        PyOwnedObject PyOutbound PySubmitted PyNotFound PyColdActivation PySessionRef PyBinding
        PyActorRoute PyBindingRoute PyRegistration PySessionSent PySessionHeld PySpotExecution
        PyPeerDescriptor PyPeerReplacement PyPeerIntent
    }
    Ok(())
}
