//! Session binding routes (spec §3), Spot request origins (§4.2) and
//! manual object peers (§2.3) as immutable result objects: what the
//! session, peer and `request(origin=...)` calls of `Runtime` return, and
//! the typed session decisions of `on_frame`.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zlink_core::wire::{ActorRoute, Binding, SessionRef};
use zlink_core::{
    BindingRoute, ObjectKey, ObjectKind, PeerDescriptor, PeerIntent, PeerReplacement, Registration,
    SessionDelivery, SessionEvent, SessionSend, SpotExecution,
};

use crate::errors;
use crate::results::{PyNodeRef, PyOutbound};
use zlink_core::wire::json::{bind_refusal_name, relay_kind_name, session_refusal_name};

type Obj = Py<PyAny>;

fn new<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
    py: Python<'_>,
    v: T,
) -> PyResult<Obj> {
    Ok(Bound::new(py, v)?.into_any().unbind())
}

fn py_bool(v: bool) -> &'static str {
    if v { "True" } else { "False" }
}

/// The Actor key of an Actor ID (sessions bind Actors).
pub(crate) fn actor_key(id: &str) -> PyResult<ObjectKey> {
    ObjectKey::new(ObjectKind::Actor, id).map_err(|e| errors::input(&e))
}

// ---- session values -------------------------------------------------------

/// A Session as the wire names it: its owner runtime, id and generation.
#[pyclass(name = "SessionRef", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PySessionRef(pub(crate) SessionRef);

#[pymethods]
impl PySessionRef {
    #[getter]
    fn owner(&self) -> PyNodeRef {
        PyNodeRef(self.0.owner)
    }
    #[getter]
    fn id(&self) -> u64 {
        self.0.id.get()
    }
    #[getter]
    fn generation(&self) -> u64 {
        self.0.generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("owner", "id", "generation")
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "SessionRef(owner={}, id={}, generation={})",
            PyNodeRef(self.0.owner).__repr__(),
            self.0.id,
            self.0.generation
        )
    }
}

/// A binding's identity, issued by the Actor owner.
#[pyclass(name = "Binding", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyBinding(pub(crate) Binding);

#[pymethods]
impl PyBinding {
    #[getter]
    fn generation(&self) -> u64 {
        self.0.generation.get()
    }
    #[getter]
    fn token(&self) -> u64 {
        self.0.token.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("generation", "token")
    }
    fn __repr__(&self) -> String {
        format!(
            "Binding(generation={}, token={})",
            self.0.generation, self.0.token
        )
    }
}

/// An Actor route as a binding stores it: the owner and the fences that
/// must still hold, with the lease time left when the owner answered.
#[pyclass(name = "ActorRoute", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyActorRoute(pub(crate) ActorRoute);

#[pymethods]
impl PyActorRoute {
    #[getter]
    fn owner(&self) -> PyNodeRef {
        PyNodeRef(self.0.owner)
    }
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.object_generation.get()
    }
    #[getter]
    fn authority_owner_generation(&self) -> u64 {
        self.0.authority_owner_generation.get()
    }
    #[getter]
    fn owner_lease_generation(&self) -> u64 {
        self.0.owner_lease_generation.get()
    }
    #[getter]
    fn lease_remaining_ms(&self) -> u64 {
        self.0.lease_remaining_ms
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("owner", "object_generation", "authority_owner_generation")
    }
    fn __repr__(&self) -> String {
        let r = &self.0;
        format!(
            "ActorRoute(owner={}, object_generation={}, authority_owner_generation={}, owner_lease_generation={}, lease_remaining_ms={})",
            PyNodeRef(r.owner).__repr__(),
            r.object_generation,
            r.authority_owner_generation,
            r.owner_lease_generation,
            r.lease_remaining_ms
        )
    }
}

/// One bound Actor as the Session owner stores it (the verified route).
#[pyclass(name = "BindingRoute", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyBindingRoute(pub(crate) BindingRoute);

#[pymethods]
impl PyBindingRoute {
    /// The Actor ID.
    #[getter]
    fn actor(&self) -> &str {
        self.0.actor.id()
    }
    #[getter]
    fn route(&self) -> PyActorRoute {
        PyActorRoute(self.0.route)
    }
    #[getter]
    fn binding(&self) -> PyBinding {
        PyBinding(self.0.binding)
    }
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.0.session)
    }
    /// Past this instant (runtime clock, ms) the route is not used.
    #[getter]
    fn admission_deadline_ms(&self) -> u64 {
        self.0.admission_deadline.as_millis()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("actor", "route", "binding")
    }
    fn __repr__(&self) -> String {
        format!(
            "BindingRoute(actor={:?}, route={}, binding={}, session={}, admission_deadline_ms={})",
            self.actor(),
            self.route().__repr__(),
            self.binding().__repr__(),
            self.session().__repr__(),
            self.admission_deadline_ms()
        )
    }
}

/// One Session bound to an Actor on its owner (exported to and imported on
/// a relocation target).
#[pyclass(name = "Registration", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct PyRegistration(pub(crate) Registration);

impl std::hash::Hash for PyRegistration {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.session.hash(state);
        self.0.binding.hash(state);
    }
}

#[pymethods]
impl PyRegistration {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.0.session)
    }
    #[getter]
    fn binding(&self) -> PyBinding {
        PyBinding(self.0.binding)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("session", "binding")
    }
    fn __repr__(&self) -> String {
        format!(
            "Registration(session={}, binding={})",
            self.session().__repr__(),
            self.binding().__repr__()
        )
    }
}

/// A session relay on its way: carry `outbound`.
#[pyclass(name = "SessionSent", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySessionSent {
    #[pyo3(get)]
    operation_id: u64,
    #[pyo3(get)]
    sequence: u64,
    out: PyOutbound,
}

#[pymethods]
impl PySessionSent {
    #[getter]
    fn outbound(&self) -> PyOutbound {
        self.out.clone()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("operation_id", "sequence", "outbound")
    }
    fn __repr__(&self) -> String {
        format!(
            "SessionSent(operation_id={}, sequence={}, outbound={})",
            self.operation_id,
            self.sequence,
            self.out.__repr__()
        )
    }
}

/// The Actor is relocating (sealed): the relay is held and leaves, in
/// order, with the relocation's command 44.
#[pyclass(name = "SessionHeld", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySessionHeld {
    #[pyo3(get)]
    operation_id: u64,
    #[pyo3(get)]
    sequence: u64,
}

#[pymethods]
impl PySessionHeld {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("operation_id", "sequence")
    }
    fn __repr__(&self) -> String {
        format!(
            "SessionHeld(operation_id={}, sequence={})",
            self.operation_id, self.sequence
        )
    }
}

pub(crate) fn session_send(py: Python<'_>, s: SessionSend) -> PyResult<Obj> {
    match s {
        SessionSend::Sent {
            operation_id,
            sequence,
            outbound,
        } => new(
            py,
            PySessionSent {
                operation_id: operation_id.get(),
                sequence,
                out: outbound.into(),
            },
        ),
        SessionSend::Held {
            operation_id,
            sequence,
        } => new(
            py,
            PySessionHeld {
                operation_id: operation_id.get(),
                sequence,
            },
        ),
        SessionSend::Unavailable(reason) => crate::results::unavailable(py, reason),
    }
}

// ---- session decisions of on_frame ----------------------------------------

/// A session relay admitted on this Actor owner: hand `payload` (or the
/// disconnect `relay_kind` names) to the Actor, in `sequence` order.
#[pyclass(name = "SessionDeliver", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PySessionDeliver(pub(crate) SessionDelivery);

#[pymethods]
impl PySessionDeliver {
    #[getter]
    fn operation_id(&self) -> u64 {
        self.0.operation_id.get()
    }
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.0.session)
    }
    /// The Actor ID.
    #[getter]
    fn actor(&self) -> &str {
        self.0.actor.id()
    }
    #[getter]
    fn sequence(&self) -> u64 {
        self.0.sequence
    }
    /// "Message", "PhysicalDisconnect" or "LogicalDisconnect".
    #[getter]
    fn relay_kind(&self) -> &'static str {
        relay_kind_name(self.0.kind)
    }
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.payload)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("session", "actor", "sequence", "payload")
    }
    fn __repr__(&self) -> String {
        format!(
            "SessionDeliver(operation_id={}, session={}, actor={:?}, sequence={}, relay_kind={:?}, payload=<{} bytes>)",
            self.0.operation_id,
            self.session().__repr__(),
            self.actor(),
            self.0.sequence,
            self.relay_kind(),
            self.0.payload.len()
        )
    }
}

/// A bind (or rebind) reached its terminal reply: `route` is stored.
#[pyclass(name = "Bound", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyBound {
    session: SessionRef,
    route: BindingRoute,
}

#[pymethods]
impl PyBound {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[getter]
    fn actor(&self) -> &str {
        self.route.actor.id()
    }
    #[getter]
    fn route(&self) -> PyBindingRoute {
        PyBindingRoute(self.route.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("session", "actor", "route")
    }
    fn __repr__(&self) -> String {
        format!(
            "Bound(session={}, actor={:?}, route={})",
            self.session().__repr__(),
            self.actor(),
            self.route().__repr__()
        )
    }
}

/// A bind was refused; any previous route is kept. `reason`: NotOwner,
/// ObjectGeneration, NodeGeneration, OwnerGeneration or OwnerLease.
#[pyclass(name = "BindRefused", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyBindRefused {
    session: SessionRef,
    actor: ObjectKey,
    #[pyo3(get)]
    reason: &'static str,
}

#[pymethods]
impl PyBindRefused {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[getter]
    fn actor(&self) -> &str {
        self.actor.id()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("session", "actor", "reason")
    }
    fn __repr__(&self) -> String {
        format!(
            "BindRefused(session={}, actor={:?}, reason={:?})",
            self.session().__repr__(),
            self.actor(),
            self.reason
        )
    }
}

/// The Actor pushed `payload` to the Session.
#[pyclass(name = "Pushed", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyPushed {
    session: SessionRef,
    actor: ObjectKey,
    payload: Vec<u8>,
}

#[pymethods]
impl PyPushed {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[getter]
    fn actor(&self) -> &str {
        self.actor.id()
    }
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.payload)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("session", "actor", "payload")
    }
    fn __repr__(&self) -> String {
        format!(
            "Pushed(session={}, actor={:?}, payload=<{} bytes>)",
            self.session().__repr__(),
            self.actor(),
            self.payload.len()
        )
    }
}

/// The Actor side refused a session relay: the operation ends Unavailable.
/// `reason`: UnknownBinding, StaleRoute or ObjectGeneration.
#[pyclass(name = "RelayRefused", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelayRefused {
    #[pyo3(get)]
    operation_id: u64,
    session: SessionRef,
    actor: ObjectKey,
    #[pyo3(get)]
    reason: &'static str,
}

#[pymethods]
impl PyRelayRefused {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[getter]
    fn actor(&self) -> &str {
        self.actor.id()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("operation_id", "session", "actor", "reason")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelayRefused(operation_id={}, session={}, actor={:?}, reason={:?})",
            self.operation_id,
            self.session().__repr__(),
            self.actor(),
            self.reason
        )
    }
}

/// The relocation source learns whether a Session sealed (command 43).
#[pyclass(name = "Sealed", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySealed {
    session: SessionRef,
    actor: ObjectKey,
    #[pyo3(get)]
    relocation: u64,
    #[pyo3(get)]
    sealed: bool,
}

#[pymethods]
impl PySealed {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[getter]
    fn actor(&self) -> &str {
        self.actor.id()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("session", "actor", "relocation", "sealed")
    }
    fn __repr__(&self) -> String {
        format!(
            "Sealed(session={}, actor={:?}, relocation={}, sealed={})",
            self.session().__repr__(),
            self.actor(),
            self.relocation,
            py_bool(self.sealed)
        )
    }
}

/// No command 44 came within the seal timeout: the Session is closed and
/// its binding, held and seal state are gone (§3.3 step 8). Its disconnect
/// notifications follow as a Send.
#[pyclass(name = "SessionClosed", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySessionClosed {
    session: SessionRef,
}

#[pymethods]
impl PySessionClosed {
    #[getter]
    fn session(&self) -> PySessionRef {
        PySessionRef(self.session)
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("session",)
    }
    fn __repr__(&self) -> String {
        format!("SessionClosed(session={})", self.session().__repr__())
    }
}

/// A session frame that does not match current state was ignored.
#[pyclass(name = "Ignored", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyIgnored {
    #[pyo3(get)]
    reason: &'static str,
}

#[pymethods]
impl PyIgnored {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("reason",)
    }
    fn __repr__(&self) -> String {
        format!("Ignored(reason={:?})", self.reason)
    }
}

pub(crate) fn session_deliver(py: Python<'_>, d: SessionDelivery) -> PyResult<Obj> {
    new(py, PySessionDeliver(d))
}

pub(crate) fn session_event(py: Python<'_>, ev: SessionEvent) -> PyResult<Obj> {
    match ev {
        SessionEvent::Bound { session, route, .. } => new(
            py,
            PyBound {
                session,
                route: *route,
            },
        ),
        SessionEvent::BindRefused {
            session,
            actor,
            reason,
        } => new(
            py,
            PyBindRefused {
                session,
                actor,
                reason: bind_refusal_name(reason),
            },
        ),
        SessionEvent::Pushed {
            session,
            actor,
            payload,
        } => new(
            py,
            PyPushed {
                session,
                actor,
                payload,
            },
        ),
        SessionEvent::RelayRefused {
            operation_id,
            session,
            actor,
            reason,
        } => new(
            py,
            PyRelayRefused {
                operation_id: operation_id.get(),
                session,
                actor,
                reason: session_refusal_name(reason),
            },
        ),
        SessionEvent::Sealed {
            session,
            actor,
            relocation,
            sealed,
        } => new(
            py,
            PySealed {
                session,
                actor,
                relocation: relocation.get(),
                sealed,
            },
        ),
        SessionEvent::Closed { session } => new(py, PySessionClosed { session }),
        SessionEvent::Ignored(reason) => new(py, PyIgnored { reason }),
    }
}

// ---- Spot request origins -------------------------------------------------

/// The Spot execution that starts a request: `request(..., origin=...)`.
#[pyclass(name = "SpotExecution", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySpotExecution(pub(crate) SpotExecution);

#[pymethods]
impl PySpotExecution {
    #[new]
    fn new(spot: &str, object_generation: u64) -> PyResult<Self> {
        Ok(PySpotExecution(SpotExecution {
            spot: ObjectKey::new(ObjectKind::Spot, spot).map_err(|e| errors::input(&e))?,
            object_generation: zlink_core::ObjectGeneration(object_generation),
        }))
    }
    /// The Spot ID.
    #[getter]
    fn spot(&self) -> &str {
        self.0.spot.id()
    }
    /// Its incarnation when it sent the request.
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.object_generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("spot", "object_generation")
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "SpotExecution(spot={:?}, object_generation={})",
            self.spot(),
            self.0.object_generation
        )
    }
}

// ---- manual peers ---------------------------------------------------------

/// What a node publishes about itself as an object peer (from the store).
#[pyclass(name = "PeerDescriptor", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyPeerDescriptor(pub(crate) PeerDescriptor);

#[pymethods]
impl PyPeerDescriptor {
    #[getter]
    fn endpoint(&self) -> &str {
        self.0.endpoint.as_str()
    }
    #[getter]
    fn rid(&self) -> u64 {
        self.0.rid.get()
    }
    #[getter]
    fn lifecycle_generation(&self) -> u64 {
        self.0.lifecycle_generation.get()
    }
    #[getter]
    fn security_identity(&self) -> &str {
        &self.0.security_identity
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        (
            "endpoint",
            "rid",
            "lifecycle_generation",
            "security_identity",
        )
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "PeerDescriptor(endpoint={:?}, rid={}, lifecycle_generation={}, security_identity={:?})",
            self.endpoint(),
            self.0.rid,
            self.0.lifecycle_generation,
            self.0.security_identity
        )
    }
}

/// A connection replacement to perform now: the handshake uses all four
/// values of `descriptor`.
#[pyclass(name = "PeerReplacement", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyPeerReplacement(pub(crate) PeerDescriptor);

impl From<PeerReplacement> for PyPeerReplacement {
    fn from(r: PeerReplacement) -> Self {
        PyPeerReplacement(r.descriptor)
    }
}

#[pymethods]
impl PyPeerReplacement {
    #[getter]
    fn descriptor(&self) -> PyPeerDescriptor {
        PyPeerDescriptor(self.0.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("descriptor",)
    }
    fn __repr__(&self) -> String {
        format!(
            "PeerReplacement(descriptor={})",
            self.descriptor().__repr__()
        )
    }
}

/// One manual endpoint's intent, observed routing ID and close state.
/// `liveness`: "connecting", "open" (with `observed_rid`) or "closed".
#[pyclass(name = "PeerIntent", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyPeerIntent(pub(crate) PeerIntent);

#[pymethods]
impl PyPeerIntent {
    #[getter]
    fn endpoint(&self) -> &str {
        self.0.endpoint.as_str()
    }
    /// The descriptor installed; None for an endpoint-only intent.
    #[getter]
    fn installed(&self) -> Option<PyPeerDescriptor> {
        self.0.installed.clone().map(PyPeerDescriptor)
    }
    #[getter]
    fn liveness(&self) -> &'static str {
        match self.0.liveness {
            zlink_core::Liveness::Connecting => "connecting",
            zlink_core::Liveness::Open(_) => "open",
            zlink_core::Liveness::Closed => "closed",
        }
    }
    /// The routing ID the handshake showed, while open.
    #[getter]
    fn observed_rid(&self) -> Option<u64> {
        match self.0.liveness {
            zlink_core::Liveness::Open(rid) => Some(rid.get()),
            _ => None,
        }
    }
    /// A newer descriptor waiting for the installed intent to close.
    #[getter]
    fn pending(&self) -> Option<PyPeerDescriptor> {
        self.0.pending.clone().map(PyPeerDescriptor)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("endpoint", "installed", "liveness", "pending")
    }
    fn __repr__(&self) -> String {
        let opt = |d: Option<PyPeerDescriptor>| d.map_or("None".to_owned(), |d| d.__repr__());
        format!(
            "PeerIntent(endpoint={:?}, installed={}, liveness={:?}, observed_rid={}, pending={})",
            self.endpoint(),
            opt(self.installed()),
            self.liveness(),
            self.observed_rid()
                .map_or("None".to_owned(), |r| r.to_string()),
            opt(self.pending())
        )
    }
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySessionRef>()?;
    m.add_class::<PyBinding>()?;
    m.add_class::<PyActorRoute>()?;
    m.add_class::<PyBindingRoute>()?;
    m.add_class::<PyRegistration>()?;
    m.add_class::<PySessionSent>()?;
    m.add_class::<PySessionHeld>()?;
    m.add_class::<PySessionClosed>()?;
    m.add_class::<PySessionDeliver>()?;
    m.add_class::<PyBound>()?;
    m.add_class::<PyBindRefused>()?;
    m.add_class::<PyPushed>()?;
    m.add_class::<PyRelayRefused>()?;
    m.add_class::<PySealed>()?;
    m.add_class::<PyIgnored>()?;
    m.add_class::<PySpotExecution>()?;
    m.add_class::<PyPeerDescriptor>()?;
    m.add_class::<PyPeerReplacement>()?;
    m.add_class::<PyPeerIntent>()?;
    Ok(())
}
