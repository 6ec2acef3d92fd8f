//! The classes Python writes by hand around the generated ones
//! (`surface.rs`): the values a host gives back (a delivered operation, a
//! notification token, a relocation begun), the checked constructor of a
//! Spot execution, and a decision (or its completion) made into its class.

use pyo3::prelude::*;
use zlink_bridge::core::wire::Operation;
use zlink_bridge::core::{NoticeToken, RelocationStarted};
use zlink_bridge::surface;

use crate::errors::Raise;
use crate::values::{Bytes, Obj, Tuple, Value};

pub(crate) use crate::surface::*;

record! {
    /// A Message or Request as it arrived: identity, target, payload, reply
    /// route (`correlation` is None for a one-way message). Give it back to
    /// `Runtime.reply` or `begin_relocation(saved=...)`.
    "Operation" PyOperation(Operation as o) {
        operation_id: o.operation_id.get(),
        kind: o.target.kind().as_str(),
        id: o.target.id(),
        payload: Bytes(o.payload.clone()),
        origin: PyNodeRef(surface::NodeRef::from(&o.origin)),
        fence: PyRouteFence(surface::RouteFence::from(&o.fence)),
        hop_count: o.hop_count,
        object_generation: o.object_generation.get(),
        is_request: o.reply_route.is_some(),
        correlation: o.reply_route.map(|r| r.correlation.get()),
    }
    match (operation_id, kind, id, payload)
}

/// Identifies a command 50 notification; give it to `Runtime.notice_settled`.
#[pyclass(name = "NoticeToken", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyNoticeToken(pub(crate) NoticeToken);

impl From<NoticeToken> for PyNoticeToken {
    fn from(t: NoticeToken) -> Self {
        PyNoticeToken(t)
    }
}

#[pymethods]
impl PyNoticeToken {
    fn __repr__(&self) -> &'static str {
        "NoticeToken(...)"
    }
}

impl Value for PyNoticeToken {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(Bound::new(py, self.clone())?.into_any())
    }
    fn repr(&self) -> String {
        "NoticeToken(...)".to_owned()
    }
}

record! {
    /// A relocation begun on the source: carry every frame of `send` (the
    /// Restore to the target first, then command 42 to every bound Session).
    "RelocationStarted" PyRelocationStarted(RelocationStarted as s) {
        identity: PyRelocationIdentity(surface::RelocationIdentity::from(&s.identity)),
        send: Tuple(s.send.iter().map(|o| PyOutbound(surface::Outbound::from(o))).collect()),
    }
}

/// `SpotExecution(spot, object_generation)`: the Spot's ID checked as the
/// bridge checks it.
pub(crate) fn new_spot_execution(
    spot: &str,
    object_generation: u64,
) -> PyResult<surface::SpotExecution> {
    let checked = zlink_bridge::runtime::spot_execution(spot, object_generation).py()?;
    Ok(surface::SpotExecution::from(&checked))
}

/// A decision (`on_frame`, `on_timeout`, ...) as its class.
pub(crate) fn decision(py: Python<'_>, d: zlink_bridge::core::Inbound) -> PyResult<Obj> {
    crate::values::object(py, surface::Inbound::from(d))
}

/// The Completion a `Completed` decision carries (`cancel`,
/// `shutdown_requests`).
pub(crate) fn completion(d: zlink_bridge::core::Inbound) -> Option<PyCompletion> {
    match d {
        zlink_bridge::core::Inbound::Completed(c) => Some(PyCompletion(c.into())),
        _ => None,
    }
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    classes! { m: PyOperation PyNoticeToken PyRelocationStarted }
    Ok(())
}

/// The generated classes from the core's values the calls return.
macro_rules! from_core {
    ($($class:ident($core:ty)),* $(,)?) => {$(
        impl From<$core> for $class {
            fn from(v: $core) -> Self {
                $class((&v).into())
            }
        }
    )*};
}
from_core!(
    PyOwnedObject(zlink_bridge::core::OwnedObject),
    PySessionRef(zlink_bridge::core::wire::SessionRef),
    PyRouteEnd(zlink_bridge::core::wire::RouteEnd),
    PyBindingRoute(zlink_bridge::core::BindingRoute),
);

impl From<zlink_bridge::core::Outbound> for PyOutbound {
    fn from(o: zlink_bridge::core::Outbound) -> Self {
        PyOutbound(o.into())
    }
}
