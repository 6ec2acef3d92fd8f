//! The relocation handoff (spec §3.3, DESIGN §3) as immutable result
//! objects: the `Relocation` decision `on_frame` / `on_timeout` /
//! `abort_relocation` return (an event, operations to deliver in order,
//! frames to carry), its event classes, and what `begin_relocation` returns.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use zlink_core::wire::{NodeRef, RelocationIdentity};
use zlink_core::{RelocationAction, RelocationEvent, RelocationStarted};

use crate::results::{PyDeliver, PyOutbound};
use crate::sessions::PySessionDeliver;

type Obj = Py<PyAny>;

fn new<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
    py: Python<'_>,
    v: T,
) -> PyResult<Obj> {
    Ok(Bound::new(py, v)?.into_any().unbind())
}

fn outbound_tuple<'py>(
    py: Python<'py>,
    frames: &[zlink_core::Outbound],
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, frames.iter().cloned().map(PyOutbound::from))
}

/// Which relocation: its id, the object it moves and that object's
/// incarnation. Every event of one move carries the same identity.
#[pyclass(name = "RelocationIdentity", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationIdentity(pub(crate) RelocationIdentity);

#[pymethods]
impl PyRelocationIdentity {
    /// The relocation's id (the number Sealed events carry).
    #[getter]
    fn relocation(&self) -> u64 {
        self.0.relocation.get()
    }
    /// "spot" or "actor".
    #[getter]
    fn kind(&self) -> &'static str {
        self.0.key.kind().as_str()
    }
    #[getter]
    fn id(&self) -> &str {
        self.0.key.id()
    }
    /// The incarnation being moved.
    #[getter]
    fn object_generation(&self) -> u64 {
        self.0.object_generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("relocation", "kind", "id", "object_generation")
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "RelocationIdentity(relocation={}, kind={:?}, id={:?}, object_generation={})",
            self.0.relocation,
            self.kind(),
            self.0.key.id(),
            self.0.object_generation
        )
    }
}

/// A relocation begun on the source: carry every frame of `send` (the
/// Restore to the target first, then command 42 to every bound Session).
#[pyclass(name = "RelocationStarted", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRelocationStarted(pub(crate) RelocationStarted);

#[pymethods]
impl PyRelocationStarted {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.0.identity.clone())
    }
    /// Frames to carry, in order.
    #[getter]
    fn send<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        outbound_tuple(py, &self.0.send)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("identity", "send")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationStarted(identity={}, send=<{} frames>)",
            self.identity().__repr__(),
            self.0.send.len()
        )
    }
}

/// A relocation step: `event` says what happened; put every `deliver` on
/// the object's application queue in order (each a `Deliver`, answered
/// with `Runtime.reply` like any other), hand every `session` relay to the
/// Actor in order, and carry every frame of `send`.
#[pyclass(name = "Relocation", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRelocation(pub(crate) RelocationAction);

#[pymethods]
impl PyRelocation {
    /// RelocationRestore | RelocationCutover | RelocationCommitted |
    /// RelocationHandedOff | RelocationAborting | RelocationAborted |
    /// RelocationFailed | RelocationCommitRetry | RelocationCommitDue |
    /// RelocationIgnored.
    #[getter]
    fn event(&self, py: Python<'_>) -> PyResult<Obj> {
        event(py, &self.0.event)
    }
    /// Operations for the object's application queue, in this order.
    #[getter]
    fn deliver<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.deliver.iter().cloned().map(PyDeliver))
    }
    /// Frames to carry, in order.
    #[getter]
    fn send<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        outbound_tuple(py, &self.0.send)
    }
    /// Session relays for the Actor (each a `SessionDeliver`), in order:
    /// those that waited for the move's outcome.
    #[getter]
    fn session<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.session.iter().cloned().map(PySessionDeliver))
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("event", "deliver", "send", "session")
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let event = self.event(py)?.into_bound(py).repr()?;
        Ok(format!(
            "Relocation(event={event}, deliver=<{} operations>, send=<{} frames>, session=<{} relays>)",
            self.0.deliver.len(),
            self.0.send.len(),
            self.0.session.len()
        ))
    }
}

/// Target: a Restore arrived. Build the object from `state`, then call
/// `Runtime.relocation_restored` (or `abort_relocation` if it cannot be
/// built). Run nothing for it yet.
#[pyclass(name = "RelocationRestore", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationRestore {
    identity: RelocationIdentity,
    source: NodeRef,
    state: Vec<u8>,
}

#[pymethods]
impl PyRelocationRestore {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    /// The source runtime's routing ID.
    #[getter]
    fn source_rid(&self) -> u64 {
        self.source.rid.get()
    }
    /// The source runtime's node generation.
    #[getter]
    fn source_generation(&self) -> u64 {
        self.source.generation.get()
    }
    /// The application state the source captured.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.state)
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("identity", "source_rid", "source_generation", "state")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationRestore(identity={}, source_rid={}, source_generation={}, state=<{} bytes>)",
            self.identity().__repr__(),
            self.source.rid,
            self.source.generation,
            self.state.len()
        )
    }
}

/// Source: the target is relay-ready; the held work was relayed (`relayed`
/// operations) and the cutover sent. The object no longer runs here.
#[pyclass(name = "RelocationCutover", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationCutover {
    identity: RelocationIdentity,
    #[pyo3(get)]
    relayed: u64,
}

#[pymethods]
impl PyRelocationCutover {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("identity", "relayed")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationCutover(identity={}, relayed={})",
            self.identity().__repr__(),
            self.relayed
        )
    }
}

/// Target: the owner CAS succeeded; the object runs here from now on, and
/// `Relocation.deliver` is its merge order (saved work, relayed, queued).
#[pyclass(name = "RelocationCommitted", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationCommitted {
    identity: RelocationIdentity,
    source: NodeRef,
}

#[pymethods]
impl PyRelocationCommitted {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    /// The source runtime's routing ID.
    #[getter]
    fn source_rid(&self) -> u64 {
        self.source.rid.get()
    }
    /// The source runtime's node generation.
    #[getter]
    fn source_generation(&self) -> u64 {
        self.source.generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("identity", "source_rid", "source_generation")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationCommitted(identity={}, source_rid={}, source_generation={})",
            self.identity().__repr__(),
            self.source.rid,
            self.source.generation
        )
    }
}

/// Source: the target committed; what still arrives here follows the
/// object on a Message Follow route. Drop the local instance.
#[pyclass(name = "RelocationHandedOff", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationHandedOff {
    identity: RelocationIdentity,
    target: NodeRef,
}

#[pymethods]
impl PyRelocationHandedOff {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    /// The new owner's routing ID.
    #[getter]
    fn target_rid(&self) -> u64 {
        self.target.rid.get()
    }
    /// The new owner's node generation.
    #[getter]
    fn target_generation(&self) -> u64 {
        self.target.generation.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("identity", "target_rid", "target_generation")
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationHandedOff(identity={}, target_rid={}, target_generation={})",
            self.identity().__repr__(),
            self.target.rid,
            self.target.generation
        )
    }
}

/// An identity and a name: the shape of Aborted, Failed and Ignored.
macro_rules! named_event {
    ($rust:ident, $name:literal, $field:ident, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(name = $name, module = "zlink", frozen, eq, hash)]
        #[derive(Clone, PartialEq, Eq, Hash)]
        pub(crate) struct $rust {
            identity: RelocationIdentity,
            #[pyo3(get)]
            $field: String,
        }

        #[pymethods]
        impl $rust {
            #[getter]
            fn identity(&self) -> PyRelocationIdentity {
                PyRelocationIdentity(self.identity.clone())
            }
            #[classattr]
            fn __match_args__() -> (&'static str, &'static str) {
                ("identity", stringify!($field))
            }
            fn __repr__(&self) -> String {
                format!(
                    concat!($name, "(identity={}, ", stringify!($field), "={:?})"),
                    self.identity().__repr__(),
                    self.$field
                )
            }
        }
    };
}

named_event!(
    PyRelocationAborting,
    "RelocationAborting",
    reason,
    "Source: the move is being given up (`reason`: Requested, or Timeout \
     when no relay-ready came). The target is told; the object stays sealed \
     until it confirms (then RelocationAborted, with the held work) or the \
     store is fenced, or until it turns out the target already committed \
     (then RelocationHandedOff)."
);
named_event!(
    PyRelocationAborted,
    "RelocationAborted",
    reason,
    "Either side, before relay-ready: the move is abandoned (`reason`: \
     Requested, Timeout, Refused, RestoreFailed). On the source the object \
     runs here again and `Relocation.deliver` holds its saved then held \
     work, in order; on the target drop what was restored."
);
named_event!(
    PyRelocationFailed,
    "RelocationFailed",
    reason,
    "After relay-ready the move could not complete (`reason`: CommitFailed \
     or Timeout): the object runs on neither side; drop the local instance."
);
named_event!(
    PyRelocationIgnored,
    "RelocationIgnored",
    refusal,
    "A relocation frame that changes nothing (another relocation or \
     incarnation, a duplicate, out of order, the wrong node): refused and \
     counted. `refusal` names why (NotRelocating, WrongTarget, ...)."
);

/// The store could not answer (the target's owner CAS, or the source's
/// abort fence); it is retried on a later `on_timeout`.
#[pyclass(name = "RelocationCommitRetry", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationCommitRetry {
    identity: RelocationIdentity,
}

#[pymethods]
impl PyRelocationCommitRetry {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("identity",)
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationCommitRetry(identity={})",
            self.identity().__repr__()
        )
    }
}

/// Target: the cutover arrived; the owner CAS is due now and runs on the
/// next `on_timeout` (`next_deadline()` says now).
#[pyclass(name = "RelocationCommitDue", module = "zlink", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyRelocationCommitDue {
    identity: RelocationIdentity,
}

#[pymethods]
impl PyRelocationCommitDue {
    #[getter]
    fn identity(&self) -> PyRelocationIdentity {
        PyRelocationIdentity(self.identity.clone())
    }
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("identity",)
    }
    fn __repr__(&self) -> String {
        format!(
            "RelocationCommitDue(identity={})",
            self.identity().__repr__()
        )
    }
}

fn event(py: Python<'_>, ev: &RelocationEvent) -> PyResult<Obj> {
    match ev.clone() {
        RelocationEvent::Restore {
            identity,
            source,
            state,
        } => new(
            py,
            PyRelocationRestore {
                identity,
                source,
                state,
            },
        ),
        RelocationEvent::Cutover { identity, relayed } => {
            new(py, PyRelocationCutover { identity, relayed })
        }
        RelocationEvent::Committed { identity, source } => {
            new(py, PyRelocationCommitted { identity, source })
        }
        RelocationEvent::HandedOff { identity, target } => {
            new(py, PyRelocationHandedOff { identity, target })
        }
        RelocationEvent::Aborting { identity, reason } => new(
            py,
            PyRelocationAborting {
                identity,
                reason: reason.name().to_owned(),
            },
        ),
        RelocationEvent::Aborted { identity, reason } => new(
            py,
            PyRelocationAborted {
                identity,
                reason: reason.name().to_owned(),
            },
        ),
        RelocationEvent::Failed { identity, reason } => new(
            py,
            PyRelocationFailed {
                identity,
                reason: reason.name().to_owned(),
            },
        ),
        RelocationEvent::CommitRetry { identity } => new(py, PyRelocationCommitRetry { identity }),
        RelocationEvent::CommitDue { identity } => new(py, PyRelocationCommitDue { identity }),
        RelocationEvent::Ignored { identity, refusal } => new(
            py,
            PyRelocationIgnored {
                identity,
                refusal: format!("{refusal:?}"),
            },
        ),
    }
}

pub(crate) fn relocation(py: Python<'_>, action: RelocationAction) -> PyResult<Obj> {
    new(py, PyRelocation(action))
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRelocationIdentity>()?;
    m.add_class::<PyRelocationStarted>()?;
    m.add_class::<PyRelocation>()?;
    m.add_class::<PyRelocationRestore>()?;
    m.add_class::<PyRelocationCutover>()?;
    m.add_class::<PyRelocationCommitted>()?;
    m.add_class::<PyRelocationHandedOff>()?;
    m.add_class::<PyRelocationAborting>()?;
    m.add_class::<PyRelocationAborted>()?;
    m.add_class::<PyRelocationFailed>()?;
    m.add_class::<PyRelocationCommitRetry>()?;
    m.add_class::<PyRelocationCommitDue>()?;
    m.add_class::<PyRelocationIgnored>()?;
    Ok(())
}
