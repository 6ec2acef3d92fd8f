//! Immutable result objects: the resolver tags, routes, frames to carry,
//! inbound decisions and request outcomes (DESIGN §4). Each holds plain
//! Rust data and builds Python values only when a field is read, so
//! returning one costs one small allocation (DESIGN §8).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zlink_core::wire::{NodeRef, Operation, RouteEnd};
use zlink_core::{
    Completion, Failure, Inbound, NoticeToken, ObjectKey, Outcome, OwnedObject, ReadyRoute,
    RequestError, Resolution, RouteFence, StoreError,
};

use crate::errors;

type Obj = Py<PyAny>;

fn new<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
    py: Python<'_>,
    v: T,
) -> PyResult<Obj> {
    Ok(Bound::new(py, v)?.into_any().unbind())
}

fn opt_repr(v: Option<u64>) -> String {
    v.map_or_else(|| "None".to_owned(), |v| v.to_string())
}

// ---- routes -----------------------------------------------------------

/// The fence values an owner checks on admission.
#[pyclass(name = "RouteFence", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyRouteFence(pub(crate) RouteFence);

#[pymethods]
impl PyRouteFence {
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
    fn node_generation(&self) -> u64 {
        self.0.node_generation.get()
    }
    #[getter]
    fn store_version(&self) -> u64 {
        self.0.store_version.get()
    }
    #[classattr]
    fn __match_args__() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        (
            "object_generation",
            "authority_owner_generation",
            "owner_lease_generation",
            "node_generation",
            "store_version",
        )
    }
    fn __repr__(&self) -> String {
        let f = &self.0;
        format!(
            "RouteFence(object_generation={}, authority_owner_generation={}, owner_lease_generation={}, node_generation={}, store_version={})",
            f.object_generation,
            f.authority_owner_generation,
            f.owner_lease_generation,
            f.node_generation,
            f.store_version
        )
    }
}

/// A confirmed Ready owner route: submit on it, carrying its fence.
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
        PyRouteFence(self.0.fence)
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
            self.0.route.mesh.as_str(),
            self.0.route.node,
            PyRouteFence(self.0.fence).__repr__(),
            self.0.admission_deadline.as_millis()
        )
    }
}

/// No authority record exists (release completed): only the creation
/// coordinator acts on this.
#[pyclass(name = "Missing", module = "zlink", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyMissing;

#[pymethods]
impl PyMissing {
    #[new]
    fn new() -> Self {
        PyMissing
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> Bound<'_, pyo3::types::PyTuple> {
        pyo3::types::PyTuple::empty(py)
    }
    fn __repr__(&self) -> &'static str {
        "Missing()"
    }
}

/// Authority exists but its owner cannot be used now: the operation ends.
#[pyclass(name = "Unavailable", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyUnavailable {
    #[pyo3(get)]
    reason: &'static str,
}

#[pymethods]
impl PyUnavailable {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("reason",)
    }
    fn __repr__(&self) -> String {
        format!("Unavailable(reason={:?})", self.reason)
    }
}

/// Whether authority exists could not be determined: retry later.
#[pyclass(name = "StoreFailure", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyStoreFailure {
    /// The failure's kind: Timeout, Unreachable, Config or Protocol.
    #[pyo3(get)]
    kind: &'static str,
    /// Text for people.
    #[pyo3(get)]
    error: String,
}

#[pymethods]
impl PyStoreFailure {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("kind", "error")
    }
    fn __repr__(&self) -> String {
        format!("StoreFailure(kind={:?}, error={:?})", self.kind, self.error)
    }
}

pub(crate) fn unavailable(py: Python<'_>, reason: zlink_core::UnavailableReason) -> PyResult<Obj> {
    new(
        py,
        PyUnavailable {
            reason: reason.as_str(),
        },
    )
}

pub(crate) fn store_failure(py: Python<'_>, e: &StoreError) -> PyResult<Obj> {
    new(
        py,
        PyStoreFailure {
            kind: errors::store_kind(e),
            error: e.to_string(),
        },
    )
}

#[inline]
pub(crate) fn ready(py: Python<'_>, route: ReadyRoute) -> PyResult<Obj> {
    new(py, PyReadyRoute(route))
}

pub(crate) fn resolution(py: Python<'_>, r: Resolution) -> PyResult<Obj> {
    match r {
        Resolution::ReadyRoute(route) => ready(py, route),
        Resolution::Missing => new(py, PyMissing),
        Resolution::Unavailable(reason) => unavailable(py, reason),
        Resolution::StoreFailure(e) => store_failure(py, &e),
    }
}

/// A runtime on the wire: mesh, routing ID, node generation.
#[pyclass(name = "NodeRef", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyNodeRef(pub(crate) NodeRef);

#[pymethods]
impl PyNodeRef {
    #[getter]
    fn mesh(&self) -> &str {
        self.0.mesh.as_str()
    }
    #[getter]
    fn rid(&self) -> u64 {
        self.0.rid.get()
    }
    #[getter]
    fn generation(&self) -> u64 {
        self.0.generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("mesh", "rid", "generation")
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "NodeRef(mesh={:?}, rid={}, generation={})",
            self.0.mesh.as_str(),
            self.0.rid,
            self.0.generation
        )
    }
}

/// One end of a Message Follow route: a node and the fence of its tenure.
#[pyclass(name = "RouteEnd", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyRouteEnd(pub(crate) RouteEnd);

#[pymethods]
impl PyRouteEnd {
    #[getter]
    fn node(&self) -> PyNodeRef {
        PyNodeRef(self.0.node)
    }
    #[getter]
    fn fence(&self) -> PyRouteFence {
        PyRouteFence(self.0.fence)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("node", "fence")
    }
    fn __repr__(&self) -> String {
        format!(
            "RouteEnd(node={}, fence={})",
            PyNodeRef(self.0.node).__repr__(),
            PyRouteFence(self.0.fence).__repr__()
        )
    }
}

/// An object this node owns, as its last authority write left it.
#[pyclass(name = "OwnedObject", module = "zlink", frozen, eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct PyOwnedObject(pub(crate) OwnedObject);

#[pymethods]
impl PyOwnedObject {
    /// "creating", "ready" or "releasing".
    #[getter]
    fn state(&self) -> &'static str {
        self.0.state.as_str()
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
    fn lease_generation(&self) -> u64 {
        self.0.lease_generation.get()
    }
    #[getter]
    fn store_version(&self) -> u64 {
        self.0.store_version.get()
    }
    #[getter]
    fn admission_deadline_ms(&self) -> u64 {
        self.0.admission_deadline.as_millis()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("state", "object_generation", "authority_owner_generation")
    }
    fn __repr__(&self) -> String {
        format!(
            "OwnedObject(state={:?}, object_generation={}, authority_owner_generation={}, lease_generation={}, store_version={})",
            self.0.state.as_str(),
            self.0.object_generation,
            self.0.authority_owner_generation,
            self.0.lease_generation,
            self.0.store_version
        )
    }
}

// ---- frames to carry ----------------------------------------------------

/// Bytes for the host to carry to a node.
#[pyclass(name = "Outbound", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyOutbound {
    pub(crate) to: NodeRef,
    pub(crate) bytes: Vec<u8>,
}

impl From<zlink_core::Outbound> for PyOutbound {
    fn from(o: zlink_core::Outbound) -> Self {
        PyOutbound {
            to: o.to,
            bytes: o.bytes,
        }
    }
}

#[pymethods]
impl PyOutbound {
    /// The node the frame goes to.
    #[getter]
    fn to(&self) -> PyNodeRef {
        PyNodeRef(self.to)
    }
    /// One encoded frame.
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bytes)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("to", "bytes")
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "Outbound(to={}, bytes=<{} bytes>)",
            PyNodeRef(self.to).__repr__(),
            self.bytes.len()
        )
    }
}

/// The operation is on its way: carry `outbound`. `correlation` is set for
/// a request (its one terminal result comes as a `Completion`).
#[pyclass(name = "Submitted", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PySubmitted {
    #[pyo3(get)]
    operation_id: u64,
    #[pyo3(get)]
    correlation: Option<u64>,
    out: PyOutbound,
}

#[pymethods]
impl PySubmitted {
    #[getter]
    fn outbound(&self) -> PyOutbound {
        self.out.clone()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("operation_id", "outbound", "correlation")
    }
    fn __repr__(&self) -> String {
        format!(
            "Submitted(operation_id={}, outbound={}, correlation={})",
            self.operation_id,
            self.out.__repr__(),
            opt_repr(self.correlation)
        )
    }
}

/// The object does not exist; nothing was sent. Terminal.
#[pyclass(name = "NotFound", module = "zlink", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyNotFound;

#[pymethods]
impl PyNotFound {
    #[new]
    fn new() -> Self {
        PyNotFound
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> Bound<'_, pyo3::types::PyTuple> {
        pyo3::types::PyTuple::empty(py)
    }
    fn __repr__(&self) -> &'static str {
        "NotFound()"
    }
}

/// Missing Spot with instance intent: cold-activate it, then send again.
#[pyclass(name = "ColdActivation", module = "zlink", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyColdActivation;

#[pymethods]
impl PyColdActivation {
    #[new]
    fn new() -> Self {
        PyColdActivation
    }
    #[classattr]
    fn __match_args__(py: Python<'_>) -> Bound<'_, pyo3::types::PyTuple> {
        pyo3::types::PyTuple::empty(py)
    }
    fn __repr__(&self) -> &'static str {
        "ColdActivation()"
    }
}

pub(crate) fn sent(py: Python<'_>, s: zlink_core::Sent) -> PyResult<Obj> {
    use zlink_core::Sent;
    match s {
        Sent::Submitted {
            operation_id,
            outbound,
        } => new(
            py,
            PySubmitted {
                operation_id: operation_id.get(),
                correlation: None,
                out: outbound.into(),
            },
        ),
        Sent::NotFound => new(py, PyNotFound),
        Sent::ColdActivation => new(py, PyColdActivation),
        Sent::Unavailable(r) => unavailable(py, r),
        Sent::StoreFailure(e) => store_failure(py, &e),
    }
}

pub(crate) fn requested(py: Python<'_>, r: zlink_core::Requested) -> PyResult<Obj> {
    use zlink_core::Requested;
    match r {
        Requested::Submitted {
            correlation,
            operation_id,
            outbound,
        } => new(
            py,
            PySubmitted {
                operation_id: operation_id.get(),
                correlation: Some(correlation.get()),
                out: outbound.into(),
            },
        ),
        Requested::NotFound => new(py, PyNotFound),
        Requested::ColdActivation => new(py, PyColdActivation),
        Requested::Unavailable(r) => unavailable(py, r),
        Requested::StoreFailure(e) => store_failure(py, &e),
    }
}

// ---- inbound --------------------------------------------------------------

/// A Message or Request as it arrived: identity, target, payload, reply route.
#[pyclass(name = "Operation", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyOperation(pub(crate) Operation);

#[pymethods]
impl PyOperation {
    #[getter]
    fn operation_id(&self) -> u64 {
        self.0.operation_id.get()
    }
    /// "spot" or "actor".
    #[getter]
    fn kind(&self) -> &'static str {
        self.0.target.kind().as_str()
    }
    #[getter]
    fn id(&self) -> &str {
        self.0.target.id()
    }
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.payload)
    }
    #[getter]
    fn origin(&self) -> PyNodeRef {
        PyNodeRef(self.0.origin)
    }
    #[getter]
    fn fence(&self) -> PyRouteFence {
        PyRouteFence(self.0.fence)
    }
    #[getter]
    fn hop_count(&self) -> u8 {
        self.0.hop_count
    }
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.object_generation.get()
    }
    /// True for a request (it has a reply route).
    #[getter]
    fn is_request(&self) -> bool {
        self.0.reply_route.is_some()
    }
    /// The request's correlation, `None` for a one-way message.
    #[getter]
    fn correlation(&self) -> Option<u64> {
        self.0.reply_route.map(|r| r.correlation.get())
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("operation_id", "kind", "id", "payload")
    }
    fn __repr__(&self) -> String {
        format!(
            "Operation(operation_id={}, kind={:?}, id={:?}, payload=<{} bytes>, hop_count={}, correlation={})",
            self.0.operation_id,
            self.kind(),
            self.0.target.id(),
            self.0.payload.len(),
            self.0.hop_count,
            opt_repr(self.correlation())
        )
    }
}

/// Put `operation` on the local queue of the current Ready object.
#[pyclass(name = "Deliver", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyDeliver(pub(crate) zlink_core::Delivery);

#[pymethods]
impl PyDeliver {
    #[getter]
    fn operation(&self) -> PyOperation {
        PyOperation(self.0.operation.clone())
    }
    /// The incarnation that processes it.
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.object_generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("operation", "object_generation")
    }
    fn __repr__(&self) -> String {
        format!(
            "Deliver(operation={}, object_generation={})",
            self.operation().__repr__(),
            self.0.object_generation
        )
    }
}

/// Identifies a command 50 notification; give it to `Runtime.notice_settled`.
#[pyclass(name = "NoticeToken", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyNoticeToken(pub(crate) NoticeToken);

#[pymethods]
impl PyNoticeToken {
    fn __repr__(&self) -> &'static str {
        "NoticeToken(...)"
    }
}

/// A command 50 notification to send to the original sender.
#[pyclass(name = "Notice", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyNotice(zlink_core::Notice);

#[pymethods]
impl PyNotice {
    #[getter]
    fn outbound(&self) -> PyOutbound {
        self.0.outbound.clone().into()
    }
    #[getter]
    fn token(&self) -> PyNoticeToken {
        PyNoticeToken(self.0.token.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("outbound", "token")
    }
    fn __repr__(&self) -> String {
        format!("Notice(outbound={})", self.outbound().__repr__())
    }
}

/// Carry `forward` to the new owner; send `notice` (if any) and report it
/// with `Runtime.notice_settled`.
#[pyclass(name = "Relay", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRelay {
    forward: zlink_core::Outbound,
    notice: Option<zlink_core::Notice>,
}

#[pymethods]
impl PyRelay {
    #[getter]
    fn forward(&self) -> PyOutbound {
        self.forward.clone().into()
    }
    #[getter]
    fn notice(&self) -> Option<PyNotice> {
        self.notice.clone().map(PyNotice)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("forward", "notice")
    }
    fn __repr__(&self) -> String {
        format!(
            "Relay(forward={}, notice={})",
            self.forward().__repr__(),
            self.notice().map_or("None".to_owned(), |n| n.__repr__())
        )
    }
}

/// Carry this refusal back to the operation's origin.
#[pyclass(name = "Reject", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyReject(zlink_core::Outbound);

#[pymethods]
impl PyReject {
    #[getter]
    fn outbound(&self) -> PyOutbound {
        self.0.clone().into()
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("outbound",)
    }
    fn __repr__(&self) -> String {
        format!("Reject(outbound={})", self.outbound().__repr__())
    }
}

/// One of this runtime's one-way operations ended without delivery.
/// `failure` is "Unavailable" (with `reason`) or "InvalidOperation".
#[pyclass(name = "Ended", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyEnded {
    #[pyo3(get)]
    operation_id: u64,
    target: ObjectKey,
    #[pyo3(get)]
    failure: &'static str,
    #[pyo3(get)]
    reason: Option<&'static str>,
}

#[pymethods]
impl PyEnded {
    #[getter]
    fn kind(&self) -> &'static str {
        self.target.kind().as_str()
    }
    #[getter]
    fn id(&self) -> &str {
        self.target.id()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("operation_id", "failure", "reason")
    }
    fn __repr__(&self) -> String {
        format!(
            "Ended(operation_id={}, kind={:?}, id={:?}, failure={:?}, reason={:?})",
            self.operation_id,
            self.kind(),
            self.target.id(),
            self.failure,
            self.reason
        )
    }
}

// ---- outcomes -------------------------------------------------------------

/// The target's answer to a request.
#[pyclass(name = "Reply", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyReply(Vec<u8>);

#[pymethods]
impl PyReply {
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0)
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("payload",)
    }
    fn __repr__(&self) -> String {
        format!("Reply(payload=<{} bytes>)", self.0.len())
    }
}

/// An error reply or a route error. `kind`: "Handler" or "Decode" (the
/// target answered with an error; `code`, `message`), "Unavailable" (with
/// `reason`) or "InvalidOperation".
#[pyclass(name = "Error", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyError {
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    reason: Option<&'static str>,
    #[pyo3(get)]
    code: u32,
    #[pyo3(get)]
    message: String,
}

#[pymethods]
impl PyError {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("kind", "reason")
    }
    fn __repr__(&self) -> String {
        format!(
            "Error(kind={:?}, reason={:?}, code={}, message={:?})",
            self.kind, self.reason, self.code, self.message
        )
    }
}

macro_rules! unit_outcome {
    ($rust:ident, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(name = $name, module = "zlink", frozen, eq, hash)]
        #[derive(PartialEq, Eq, Hash)]
        pub(crate) struct $rust;

        #[pymethods]
        impl $rust {
            #[new]
            fn new() -> Self {
                $rust
            }
            #[classattr]
            fn __match_args__(py: Python<'_>) -> Bound<'_, pyo3::types::PyTuple> {
                pyo3::types::PyTuple::empty(py)
            }
            fn __repr__(&self) -> &'static str {
                concat!($name, "()")
            }
        }
    };
}

unit_outcome!(PyTimeout, "Timeout", "The request's deadline passed first.");
unit_outcome!(PyCancelled, "Cancelled", "The caller cancelled first.");
unit_outcome!(PyShutdown, "Shutdown", "The runtime shut down first.");
unit_outcome!(
    PyHeld,
    "Held",
    "The operation is held for a relocation of its object: nothing to do \
     now; it is delivered once, on the side that ends up owning the object \
     (in a `Relocation`'s `deliver`), or refused to its sender."
);
unit_outcome!(
    PyPeerRefused,
    "PeerRefused",
    "A frame on a manual peer connection failed the admission fence."
);

fn outcome(py: Python<'_>, o: &Outcome) -> PyResult<Obj> {
    match o {
        Outcome::Reply(p) => new(py, PyReply(p.clone())),
        Outcome::Error(e) => {
            let err = match e {
                RequestError::Replied(r) => PyError {
                    kind: match r.kind {
                        zlink_core::wire::ReplyErrorKind::Handler => "Handler",
                        zlink_core::wire::ReplyErrorKind::Decode => "Decode",
                    },
                    reason: None,
                    code: r.code,
                    message: r.message.clone(),
                },
                RequestError::Unavailable(reason) => PyError {
                    kind: "Unavailable",
                    reason: Some(reason.as_str()),
                    code: 0,
                    message: String::new(),
                },
                RequestError::InvalidOperation => PyError {
                    kind: "InvalidOperation",
                    reason: None,
                    code: 0,
                    message: String::new(),
                },
            };
            new(py, err)
        }
        Outcome::Timeout => new(py, PyTimeout),
        Outcome::Cancelled => new(py, PyCancelled),
        Outcome::Shutdown => new(py, PyShutdown),
    }
}

/// A request's one terminal result.
#[pyclass(name = "Completion", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyCompletion(Completion);

#[pymethods]
impl PyCompletion {
    #[getter]
    fn correlation(&self) -> u64 {
        self.0.correlation.get()
    }
    #[getter]
    fn operation_id(&self) -> u64 {
        self.0.operation_id.get()
    }
    #[getter]
    fn kind(&self) -> &'static str {
        self.0.target.kind().as_str()
    }
    #[getter]
    fn id(&self) -> &str {
        self.0.target.id()
    }
    /// Reply, Error, Timeout, Cancelled or Shutdown.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> PyResult<Obj> {
        outcome(py, &self.0.outcome)
    }
    /// The Spot execution that started it (`request(..., origin=...)`).
    #[getter]
    fn origin(&self) -> Option<crate::sessions::PySpotExecution> {
        self.0.origin.clone().map(crate::sessions::PySpotExecution)
    }
    /// True when the Spot that started it was re-created since: the outcome
    /// resumes the old execution only, never the new incarnation.
    #[getter]
    fn origin_gone(&self) -> bool {
        self.0.origin_gone
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("correlation", "outcome")
    }
    fn __repr__(&self) -> String {
        format!(
            "Completion(correlation={}, operation_id={}, kind={:?}, id={:?}, outcome={}, origin={}, origin_gone={})",
            self.0.correlation,
            self.0.operation_id,
            self.kind(),
            self.0.target.id(),
            self.0.outcome.kind(),
            self.origin().map_or("None".to_owned(), |o| o.__repr__()),
            if self.0.origin_gone { "True" } else { "False" }
        )
    }
}

pub(crate) fn completion(py: Python<'_>, c: Completion) -> PyResult<Obj> {
    new(py, PyCompletion(c))
}

/// One of this runtime's requests reached its terminal result.
#[pyclass(name = "Completed", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyCompleted(Completion);

#[pymethods]
impl PyCompleted {
    #[getter]
    fn completion(&self) -> PyCompletion {
        PyCompletion(self.0.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("completion",)
    }
    fn __repr__(&self) -> String {
        format!("Completed({})", self.completion().__repr__())
    }
}

/// A result after the terminal one: dropped and counted.
#[pyclass(name = "Late", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyLate {
    #[pyo3(get)]
    correlation: u64,
}

#[pymethods]
impl PyLate {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("correlation",)
    }
    fn __repr__(&self) -> String {
        format!("Late(correlation={})", self.correlation)
    }
}

/// A frame whose sender is not the node of the connection it came on:
/// refused and counted, nothing acted on. `claimed`: the sender it names.
#[pyclass(name = "ForeignSender", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyForeignSender {
    #[pyo3(get)]
    connection: u64,
    #[pyo3(get)]
    claimed: Option<u64>,
}

#[pymethods]
impl PyForeignSender {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("connection", "claimed")
    }
    fn __repr__(&self) -> String {
        format!(
            "ForeignSender(connection={}, claimed={})",
            self.connection,
            self.claimed
                .map_or_else(|| "None".to_owned(), |c| c.to_string())
        )
    }
}

/// A relay notification was applied; `invalidated`: whether an entry went.
#[pyclass(name = "RouteRefreshed", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRouteRefreshed {
    #[pyo3(get)]
    invalidated: bool,
}

#[pymethods]
impl PyRouteRefreshed {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("invalidated",)
    }
    fn __repr__(&self) -> String {
        format!(
            "RouteRefreshed(invalidated={})",
            if self.invalidated { "True" } else { "False" }
        )
    }
}

/// Not a valid frame: dropped. `kind` is the WireError kind.
#[pyclass(name = "Dropped", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyDropped {
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    error: String,
}

#[pymethods]
impl PyDropped {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("kind", "error")
    }
    fn __repr__(&self) -> String {
        format!("Dropped(kind={:?}, error={:?})", self.kind, self.error)
    }
}

/// Carry these frames (session protocol answers).
#[pyclass(name = "Send", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PySend(Vec<zlink_core::Outbound>);

#[pymethods]
impl PySend {
    #[getter]
    fn outbounds(&self) -> Vec<PyOutbound> {
        self.0.iter().cloned().map(Into::into).collect()
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("outbounds",)
    }
    fn __repr__(&self) -> String {
        format!("Send(<{} frames>)", self.0.len())
    }
}

pub(crate) fn inbound(py: Python<'_>, i: Inbound) -> PyResult<Obj> {
    match i {
        Inbound::Deliver(d) => new(py, PyDeliver(d)),
        Inbound::Relay { forward, notice } => new(py, PyRelay { forward, notice }),
        Inbound::Reject(o) => new(py, PyReject(o)),
        Inbound::Ended(e) => {
            let (failure, reason) = match e.failure {
                Failure::Unavailable(r) => ("Unavailable", Some(r.as_str())),
                Failure::InvalidOperation => ("InvalidOperation", None),
            };
            new(
                py,
                PyEnded {
                    operation_id: e.operation_id.get(),
                    target: e.target,
                    failure,
                    reason,
                },
            )
        }
        Inbound::Completed(c) => new(py, PyCompleted(c)),
        Inbound::Late { correlation } => new(
            py,
            PyLate {
                correlation: correlation.get(),
            },
        ),
        Inbound::RouteRefreshed { invalidated } => new(py, PyRouteRefreshed { invalidated }),
        Inbound::Dropped(e) => new(
            py,
            PyDropped {
                kind: zlink_core::wire::json::error_kind(&e),
                error: e.to_string(),
            },
        ),
        Inbound::Send(v) => new(py, PySend(v)),
        Inbound::SessionDeliver(d) => crate::sessions::session_deliver(py, d),
        Inbound::Session(ev) => crate::sessions::session_event(py, ev),
        Inbound::PeerRefused => new(py, PyPeerRefused),
        Inbound::Held => new(py, PyHeld),
        Inbound::Relocation(action) => crate::relocation::relocation(py, action),
        Inbound::ForeignSender {
            connection,
            claimed,
        } => new(
            py,
            PyForeignSender {
                connection: connection.get(),
                claimed: claimed.map(|c| c.get()),
            },
        ),
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
    m.add_class::<PyOperation>()?;
    m.add_class::<PyDeliver>()?;
    m.add_class::<PyNoticeToken>()?;
    m.add_class::<PyNotice>()?;
    m.add_class::<PyRelay>()?;
    m.add_class::<PyReject>()?;
    m.add_class::<PyEnded>()?;
    m.add_class::<PyReply>()?;
    m.add_class::<PyError>()?;
    m.add_class::<PyTimeout>()?;
    m.add_class::<PyCancelled>()?;
    m.add_class::<PyShutdown>()?;
    m.add_class::<PyPeerRefused>()?;
    m.add_class::<PyHeld>()?;
    m.add_class::<PyForeignSender>()?;
    m.add_class::<PyCompletion>()?;
    m.add_class::<PyCompleted>()?;
    m.add_class::<PyLate>()?;
    m.add_class::<PyRouteRefreshed>()?;
    m.add_class::<PyDropped>()?;
    m.add_class::<PySend>()?;
    Ok(())
}
