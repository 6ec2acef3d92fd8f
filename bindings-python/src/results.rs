//! Immutable values and call results (DESIGN §4): the resolver tags,
//! routes, frames to carry, sessions, peers, built from the bridge's flat
//! results.

use pyo3::prelude::*;
use zlink_bridge::codes::{AuthorityState, Liveness, ResolutionTag, SentTag, SessionSentTag};
use zlink_bridge::{Resolved, Sent, SessionSent};
use zlink_core::wire::{ActorRoute, Binding, NodeRef, RouteEnd, SessionRef};
use zlink_core::{
    AuthorityOwnerGeneration, BindingRoute, MeshName, NodeGeneration, NodeRid, ObjectGeneration,
    Outbound, OwnedObject, OwnerLeaseGeneration, PeerDescriptor, PeerIntent, PeerReplacement,
    ReadyRoute, Registration, RouteFence, SpotExecution,
};

use crate::errors::Raise;
use crate::values::{Bytes, Obj, Value, new};

record! {
    /// The fence values an owner checks on admission.
    "RouteFence" PyRouteFence [hash] {
        object_generation: u64,
        authority_owner_generation: u64,
        owner_lease_generation: u64,
        node_generation: u64,
        store_version: u64,
    }
}

impl From<&RouteFence> for PyRouteFence {
    fn from(f: &RouteFence) -> Self {
        PyRouteFence {
            object_generation: f.object_generation.get(),
            authority_owner_generation: f.authority_owner_generation.get(),
            owner_lease_generation: f.owner_lease_generation.get(),
            node_generation: f.node_generation.get(),
            store_version: f.store_version.get(),
        }
    }
}

/// A confirmed Ready owner route: submit on it, carrying its fence. Kept
/// as the core's plain value (a cache hit returns one without allocating
/// anything else).
#[pyclass(name = "ReadyRoute", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyReadyRoute(pub(crate) ReadyRoute);

#[pymethods]
impl PyReadyRoute {
    /// The owner's mesh.
    #[getter]
    fn mesh(&self) -> &str {
        self.0.route.mesh.as_str()
    }
    /// The owner's routing ID.
    #[getter]
    fn node(&self) -> u64 {
        self.0.route.node.get()
    }
    #[getter]
    fn fence(&self) -> PyRouteFence {
        (&self.0.fence).into()
    }
    /// The owner lease's local admission deadline (runtime clock, ms).
    #[getter]
    fn admission_deadline_ms(&self) -> u64 {
        self.0.admission_deadline.as_millis()
    }
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.fence.object_generation.get()
    }
    #[getter]
    fn authority_owner_generation(&self) -> u64 {
        self.0.fence.authority_owner_generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("mesh", "node", "fence")
    }
    fn __repr__(&self) -> String {
        format!(
            "ReadyRoute(mesh={:?}, node={}, fence={}, admission_deadline_ms={})",
            self.mesh(),
            self.node(),
            self.fence().repr(),
            self.admission_deadline_ms()
        )
    }
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
        (ResolutionTag::Unavailable, _) => new(py, unavailable(r.reason)),
        (ResolutionTag::StoreFailure, _) => new(py, store_failure(r.store_error, r.store_message)),
        _ => new(py, PyMissing),
    }
}

fn unavailable(reason: zlink_bridge::codes::UnavailableReason) -> PyUnavailable {
    PyUnavailable {
        reason: reason.name(),
    }
}

fn store_failure(kind: zlink_bridge::codes::StoreError, error: String) -> PyStoreFailure {
    PyStoreFailure {
        kind: kind.name(),
        error,
    }
}

record! {
    /// A runtime on the wire: mesh, routing ID, node generation.
    "NodeRef" PyNodeRef [hash] { mesh: String, rid: u64, generation: u64 }
}

impl From<&NodeRef> for PyNodeRef {
    fn from(n: &NodeRef) -> Self {
        PyNodeRef {
            mesh: n.mesh.as_str().to_owned(),
            rid: n.rid.get(),
            generation: n.generation.get(),
        }
    }
}

impl PyNodeRef {
    fn to_core(&self) -> PyResult<NodeRef> {
        Ok(NodeRef {
            mesh: MeshName::new(&self.mesh)
                .map_err(zlink_bridge::Error::from)
                .py()?,
            rid: NodeRid(self.rid),
            generation: NodeGeneration(self.generation),
        })
    }
}

record! {
    /// One end of a Message Follow route: a node and the fence of its tenure.
    "RouteEnd" PyRouteEnd [hash] { node: PyNodeRef, fence: PyRouteFence }
}

impl From<&RouteEnd> for PyRouteEnd {
    fn from(e: &RouteEnd) -> Self {
        PyRouteEnd {
            node: (&e.node).into(),
            fence: (&e.fence).into(),
        }
    }
}

record! {
    /// An object this node owns, as its last authority write left it.
    /// `state`: "creating", "ready" or "releasing".
    "OwnedObject" PyOwnedObject {
        state: &'static str,
        object_generation: u64,
        authority_owner_generation: u64,
        lease_generation: u64,
        store_version: u64,
        admission_deadline_ms: u64,
    }
    match (state, object_generation, authority_owner_generation)
}

impl From<OwnedObject> for PyOwnedObject {
    fn from(o: OwnedObject) -> Self {
        PyOwnedObject {
            state: AuthorityState::from(o.state).name(),
            object_generation: o.object_generation.get(),
            authority_owner_generation: o.authority_owner_generation.get(),
            lease_generation: o.lease_generation.get(),
            store_version: o.store_version.get(),
            admission_deadline_ms: o.admission_deadline.as_millis(),
        }
    }
}

record! {
    /// Bytes for the host to carry to a node.
    "Outbound" PyOutbound [hash] { to: PyNodeRef, bytes: Bytes }
}

impl From<Outbound> for PyOutbound {
    fn from(o: Outbound) -> Self {
        PyOutbound {
            to: (&o.to).into(),
            bytes: Bytes(o.bytes),
        }
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
        (SentTag::Submitted, Some(outbound)) => new(
            py,
            PySubmitted {
                operation_id: s.operation_id,
                outbound: outbound.into(),
                correlation: s.correlation,
            },
        ),
        (SentTag::ColdActivation, _) => new(py, PyColdActivation),
        (SentTag::Unavailable, _) => new(py, unavailable(s.reason)),
        (SentTag::StoreFailure, _) => new(py, store_failure(s.store_error, s.store_message)),
        _ => new(py, PyNotFound),
    }
}

record! {
    /// A Session as the wire names it: its owner runtime, id and generation.
    "SessionRef" PySessionRef [hash] { owner: PyNodeRef, id: u64, generation: u64 }
}

impl From<&SessionRef> for PySessionRef {
    fn from(s: &SessionRef) -> Self {
        PySessionRef {
            owner: (&s.owner).into(),
            id: s.id.get(),
            generation: s.generation.get(),
        }
    }
}

impl PySessionRef {
    pub(crate) fn to_core(&self) -> PyResult<SessionRef> {
        Ok(SessionRef {
            owner: self.owner.to_core()?,
            id: zlink_core::SessionId(self.id),
            generation: zlink_core::SessionGeneration(self.generation),
        })
    }
}

record! {
    /// A binding's identity, issued by the Actor owner.
    "Binding" PyBinding [hash] { generation: u64, token: u64 }
}

impl From<&Binding> for PyBinding {
    fn from(b: &Binding) -> Self {
        PyBinding {
            generation: b.generation.get(),
            token: b.token.get(),
        }
    }
}

record! {
    /// An Actor route as a binding stores it: the owner and the fences that
    /// must still hold, with the lease time left when the owner answered.
    "ActorRoute" PyActorRoute [hash] {
        owner: PyNodeRef,
        object_generation: u64,
        authority_owner_generation: u64,
        owner_lease_generation: u64,
        lease_remaining_ms: u64,
    }
    match (owner, object_generation, authority_owner_generation)
}

impl From<&ActorRoute> for PyActorRoute {
    fn from(r: &ActorRoute) -> Self {
        PyActorRoute {
            owner: (&r.owner).into(),
            object_generation: r.object_generation.get(),
            authority_owner_generation: r.authority_owner_generation.get(),
            owner_lease_generation: r.owner_lease_generation.get(),
            lease_remaining_ms: r.lease_remaining_ms,
        }
    }
}

/// The location a bind starts from: an ActorRoute, or a RouteEnd from
/// `owner_route_end`.
pub(crate) fn actor_route(location: &Bound<'_, PyAny>) -> PyResult<ActorRoute> {
    if let Ok(r) = location.cast::<PyActorRoute>() {
        let r = r.get();
        return Ok(ActorRoute {
            owner: r.owner.to_core()?,
            object_generation: ObjectGeneration(r.object_generation),
            authority_owner_generation: AuthorityOwnerGeneration(r.authority_owner_generation),
            owner_lease_generation: OwnerLeaseGeneration(r.owner_lease_generation),
            lease_remaining_ms: r.lease_remaining_ms,
        });
    }
    if let Ok(end) = location.cast::<PyRouteEnd>() {
        let e = end.get();
        return Ok(ActorRoute {
            owner: e.node.to_core()?,
            object_generation: ObjectGeneration(e.fence.object_generation),
            authority_owner_generation: AuthorityOwnerGeneration(
                e.fence.authority_owner_generation,
            ),
            owner_lease_generation: OwnerLeaseGeneration(e.fence.owner_lease_generation),
            lease_remaining_ms: 0,
        });
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "location must be a RouteEnd or an ActorRoute",
    ))
}

record! {
    /// One bound Actor as the Session owner stores it (the verified route).
    "BindingRoute" PyBindingRoute {
        actor: String,
        route: PyActorRoute,
        binding: PyBinding,
        session: PySessionRef,
        admission_deadline_ms: u64,
    }
    match (actor, route, binding)
}

impl From<&BindingRoute> for PyBindingRoute {
    fn from(b: &BindingRoute) -> Self {
        PyBindingRoute {
            actor: b.actor.id().to_owned(),
            route: (&b.route).into(),
            binding: (&b.binding).into(),
            session: (&b.session).into(),
            admission_deadline_ms: b.admission_deadline.as_millis(),
        }
    }
}

record! {
    /// One Session bound to an Actor on its owner (exported to and imported
    /// on a relocation target).
    "Registration" PyRegistration [hash] { session: PySessionRef, binding: PyBinding }
}

impl From<Registration> for PyRegistration {
    fn from(r: Registration) -> Self {
        PyRegistration {
            session: (&r.session).into(),
            binding: (&r.binding).into(),
        }
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
        (SessionSentTag::Sent, Some(o)) => new(
            py,
            PySessionSent {
                operation_id,
                sequence,
                outbound: o.into(),
            },
        ),
        (SessionSentTag::Held, _) => new(
            py,
            PySessionHeld {
                operation_id,
                sequence,
            },
        ),
        _ => new(py, unavailable(s.reason)),
    }
}

record! {
    /// The Spot execution that starts a request: `request(..., origin=...)`.
    "SpotExecution" PySpotExecution [hash] { spot: String, object_generation: u64 }
    {
        #[new]
        fn new(spot: &str, object_generation: u64) -> PyResult<Self> {
            zlink_bridge::runtime::spot_execution(spot, object_generation).py()?;
            Ok(PySpotExecution {
                spot: spot.to_owned(),
                object_generation,
            })
        }
    }
}

impl From<&SpotExecution> for PySpotExecution {
    fn from(s: &SpotExecution) -> Self {
        PySpotExecution {
            spot: s.spot.id().to_owned(),
            object_generation: s.object_generation.get(),
        }
    }
}

record! {
    /// What a node publishes about itself as an object peer (from the store).
    "PeerDescriptor" PyPeerDescriptor [hash] {
        endpoint: String,
        rid: u64,
        lifecycle_generation: u64,
        security_identity: String,
    }
}

impl From<PeerDescriptor> for PyPeerDescriptor {
    fn from(d: PeerDescriptor) -> Self {
        PyPeerDescriptor {
            endpoint: d.endpoint.as_str().to_owned(),
            rid: d.rid.get(),
            lifecycle_generation: d.lifecycle_generation.get(),
            security_identity: d.security_identity,
        }
    }
}

record! {
    /// A connection replacement to perform now: the handshake uses all four
    /// values of `descriptor`.
    "PeerReplacement" PyPeerReplacement [hash] { descriptor: PyPeerDescriptor }
}

impl From<PeerReplacement> for PyPeerReplacement {
    fn from(r: PeerReplacement) -> Self {
        PyPeerReplacement {
            descriptor: r.descriptor.into(),
        }
    }
}

record! {
    /// One manual endpoint's intent, observed routing ID and close state.
    /// `liveness`: "connecting", "open" (with `observed_rid`) or "closed".
    "PeerIntent" PyPeerIntent {
        endpoint: String,
        installed: Option<PyPeerDescriptor>,
        liveness: &'static str,
        observed_rid: Option<u64>,
        pending: Option<PyPeerDescriptor>,
    }
    match (endpoint, installed, liveness, pending)
}

impl From<PeerIntent> for PyPeerIntent {
    fn from(i: PeerIntent) -> Self {
        let (liveness, observed_rid) = Liveness::of(i.liveness);
        PyPeerIntent {
            endpoint: i.endpoint.as_str().to_owned(),
            installed: i.installed.map(Into::into),
            liveness: liveness.name(),
            observed_rid,
            pending: i.pending.map(Into::into),
        }
    }
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRouteFence>()?;
    m.add_class::<PyReadyRoute>()?;
    m.add_class::<PyMissing>()?;
    m.add_class::<PyUnavailable>()?;
    m.add_class::<PyStoreFailure>()?;
    m.add_class::<PyNodeRef>()?;
    m.add_class::<PyRouteEnd>()?;
    m.add_class::<PyOwnedObject>()?;
    m.add_class::<PyOutbound>()?;
    m.add_class::<PySubmitted>()?;
    m.add_class::<PyNotFound>()?;
    m.add_class::<PyColdActivation>()?;
    m.add_class::<PySessionRef>()?;
    m.add_class::<PyBinding>()?;
    m.add_class::<PyActorRoute>()?;
    m.add_class::<PyBindingRoute>()?;
    m.add_class::<PyRegistration>()?;
    m.add_class::<PySessionSent>()?;
    m.add_class::<PySessionHeld>()?;
    m.add_class::<PySpotExecution>()?;
    m.add_class::<PyPeerDescriptor>()?;
    m.add_class::<PyPeerReplacement>()?;
    m.add_class::<PyPeerIntent>()?;
    Ok(())
}
