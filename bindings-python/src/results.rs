//! The call results Python builds by hand around the generated classes
//! (`surface.rs`): the resolver's route (the core's value, so a cache hit
//! allocates nothing else), the unions of call results made from the
//! bridge's, the location a bind starts from, and the values not on the
//! surface schema yet (registrations, object peers).

use pyo3::prelude::*;
use zlink_bridge::codes::{Liveness, ResolutionTag};
use zlink_bridge::core::wire::ActorRoute;
use zlink_bridge::core::{PeerDescriptor, PeerIntent, PeerReplacement, ReadyRoute, Registration};
use zlink_bridge::surface;
use zlink_bridge::{Resolved, Sent, SessionSent};

use crate::errors::Raise;
use crate::hand::*;
use crate::values::{Obj, new, object};

record! {
    /// A confirmed Ready owner route: submit on it, carrying its fence
    /// (`admission_deadline_ms`: past it, on the runtime clock, the route is
    /// not used). The core's plain value: a cache hit allocates nothing else.
    "ReadyRoute" PyReadyRoute(ReadyRoute as r) [hash] {
        mesh: r.route.mesh.as_str(),
        node: r.route.node.get(),
        fence: PyRouteFence(surface::RouteFence::from(&r.fence)),
        admission_deadline_ms: r.admission_deadline.as_millis(),
        object_generation: r.fence.object_generation.get(),
        authority_owner_generation: r.fence.authority_owner_generation.get(),
    }
    match (mesh, node, fence)
}

/// ReadyRoute | Missing | Unavailable | StoreFailure.
pub(crate) fn resolved(py: Python<'_>, mut r: Resolved) -> PyResult<Obj> {
    if r.tag == ResolutionTag::ReadyRoute
        && let Some(route) = r.route.take()
    {
        return new(py, PyReadyRoute(route));
    }
    match surface::Resolution::from(&r) {
        surface::Resolution::Unavailable(v) => new(py, PyUnavailable(v)),
        surface::Resolution::StoreFailure(v) => new(py, PyStoreFailure(v)),
        _ => new(py, PyMissing),
    }
}

/// Submitted | NotFound | ColdActivation | Unavailable | StoreFailure.
pub(crate) fn sent(py: Python<'_>, s: Sent) -> PyResult<Obj> {
    object(py, surface::SendResult::from(&s))
}

/// SessionSent | SessionHeld | Unavailable.
pub(crate) fn session_sent(py: Python<'_>, s: SessionSent) -> PyResult<Obj> {
    object(py, surface::SessionSendResult::from(&s))
}

/// Frames to carry, as a list.
pub(crate) fn outbounds(frames: Vec<zlink_bridge::core::Outbound>) -> Vec<PyOutbound> {
    frames.into_iter().map(PyOutbound::from).collect()
}

/// The location a bind starts from: an ActorRoute, or a RouteEnd from
/// `owner_route_end`.
pub(crate) fn actor_route(location: &Bound<'_, PyAny>) -> PyResult<ActorRoute> {
    if let Ok(r) = location.cast::<PyActorRoute>() {
        return ActorRoute::try_from(&r.get().0).py();
    }
    if let Ok(end) = location.cast::<PyRouteEnd>() {
        let end = zlink_bridge::core::wire::RouteEnd::try_from(&end.get().0).py()?;
        return Ok(zlink_bridge::runtime::actor_route(&end));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "location must be a RouteEnd or an ActorRoute",
    ))
}

record! {
    /// One Session bound to an Actor on its owner (exported to and imported
    /// on a relocation target).
    "Registration" PyRegistration [hash] { session: PySessionRef, binding: PyBinding }
}

impl From<Registration> for PyRegistration {
    fn from(r: Registration) -> Self {
        let binding = surface::Binding::from(&r.binding);
        PyRegistration::of(PySessionRef((&r.session).into()), PyBinding(binding))
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
        PyReadyRoute PyRegistration PyPeerDescriptor PyPeerReplacement PyPeerIntent
    }
    Ok(())
}
