//! The decisions `on_frame` / `on_timeout` / `abort_relocation` return and
//! the request outcomes, one class per case, built from the bridge's flat
//! `Decision`.

use pyo3::prelude::*;
use zlink_bridge::Decision;
use zlink_bridge::codes::{
    DecisionKind as K, Failure, Outcome, RelocationEvent as E, SessionEvent as S,
};
use zlink_core::wire::{Operation, RelocationIdentity};
use zlink_core::{NoticeToken, ObjectGeneration, ObjectKey, RelocationId, RelocationStarted};

use crate::results::{
    PyBindingRoute, PyNodeRef, PyOutbound, PyRouteFence, PySessionRef, PySpotExecution,
};
use crate::values::{Bytes, Obj, Tuple, Value, new};

record! {
    /// A Message or Request as it arrived: identity, target, payload, reply
    /// route (`correlation` is None for a one-way message). Give it back to
    /// `Runtime.reply` or `begin_relocation(saved=...)`.
    "Operation" PyOperation(Operation as o) {
        operation_id: o.operation_id.get(),
        kind: o.target.kind().as_str(),
        id: o.target.id(),
        payload: Bytes(o.payload.clone()),
        origin: PyNodeRef(o.origin),
        fence: PyRouteFence(o.fence),
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
    /// Put `operation` on the local queue of the current Ready object.
    "Deliver" PyDeliver { operation: PyOperation, object_generation: u64 }
}

record! {
    /// A command 50 notification to send to the original sender.
    "Notice" PyNotice { outbound: PyOutbound, token: PyNoticeToken }
}

record! {
    /// Carry `forward` to the new owner; send `notice` (if any) and report
    /// it with `Runtime.notice_settled`.
    "Relay" PyRelay { forward: PyOutbound, notice: Option<PyNotice> }
}

record! {
    /// Carry this refusal back to the operation's origin.
    "Reject" PyReject { outbound: PyOutbound }
}

record! {
    /// One of this runtime's one-way operations ended without delivery.
    /// `failure` is "Unavailable" (with `reason`) or "InvalidOperation".
    "Ended" PyEnded [hash] {
        operation_id: u64,
        kind: &'static str,
        id: String,
        failure: &'static str,
        reason: Option<&'static str>,
    }
    match (operation_id, failure, reason)
}

record! {
    /// After a store recovery event, the store no longer names this node as
    /// the owner of the object (`reason`: "Missing", "Replaced" or
    /// "LeaseEnded"): stop running it here. Work held for it was refused.
    "OwnershipLost" PyOwnershipLost [hash] {
        kind: &'static str,
        id: String,
        reason: &'static str,
    }
    match (kind, id, reason)
}

record! {
    /// The target's answer to a request.
    "Reply" PyReply [hash] { payload: Bytes }
}

record! {
    /// An error reply or a route error. `kind`: "Handler" or "Decode" (the
    /// target answered with an error; `code`, `message`), "Unavailable"
    /// (with `reason`) or "InvalidOperation".
    "Error" PyError [hash] {
        kind: &'static str,
        reason: Option<&'static str>,
        code: u32,
        message: String,
    }
    match (kind, reason)
}

unit! {
    /// The request's deadline passed first.
    "Timeout" PyTimeout
}
unit! {
    /// The caller cancelled first.
    "Cancelled" PyCancelled
}
unit! {
    /// The runtime shut down first.
    "Shutdown" PyShutdown
}
unit! {
    /// The operation is held for a relocation of its object (or, after a
    /// store recovery event, until its record is re-read): nothing to do
    /// now; it is delivered once, on the side that ends up owning the object
    /// (in a `Relocation`'s `deliver`, or from `on_timeout`), or refused.
    "Held" PyHeld
}
unit! {
    /// A frame on a manual peer connection failed the admission fence.
    "PeerRefused" PyPeerRefused
}

/// A request's terminal result: Reply, Error, Timeout, Cancelled, Shutdown.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum PyOutcome {
    Reply(PyReply),
    Error(PyError),
    Timeout,
    Cancelled,
    Shutdown,
}

impl Value for PyOutcome {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            PyOutcome::Reply(r) => r.to_py(py),
            PyOutcome::Error(e) => e.to_py(py),
            PyOutcome::Timeout => PyTimeout.to_py(py),
            PyOutcome::Cancelled => PyCancelled.to_py(py),
            PyOutcome::Shutdown => PyShutdown.to_py(py),
        }
    }
    fn repr(&self) -> String {
        match self {
            PyOutcome::Reply(_) => "Reply",
            PyOutcome::Error(_) => "Error",
            PyOutcome::Timeout => "Timeout",
            PyOutcome::Cancelled => "Cancelled",
            PyOutcome::Shutdown => "Shutdown",
        }
        .to_owned()
    }
}

record! {
    /// A request's one terminal result.
    "Completion" PyCompletion {
        correlation: u64,
        operation_id: u64,
        kind: &'static str,
        id: String,
        outcome: PyOutcome,
        origin: Option<PySpotExecution>,
        origin_gone: bool,
    }
    match (correlation, outcome)
}

/// The Completion a `Completed` decision carries.
pub(crate) fn completion(d: &Decision) -> PyCompletion {
    let (kind, id) = target(d.target.as_ref());
    let outcome = match d.outcome {
        Outcome::Reply => PyOutcome::Reply(PyReply::of(Bytes(d.payload.clone()))),
        Outcome::Timeout => PyOutcome::Timeout,
        Outcome::Cancelled => PyOutcome::Cancelled,
        Outcome::Shutdown => PyOutcome::Shutdown,
        _ => {
            let kind = match d.failure {
                Failure::Replied => d.error_kind.name(),
                f => f.name(),
            };
            let message = d.detail.clone();
            PyOutcome::Error(PyError::of(kind, reason(d), d.error_code, message))
        }
    };
    let origin = d.origin.clone().map(PySpotExecution);
    let (correlation, operation_id) = (d.correlation, d.operation_id);
    PyCompletion::of(
        correlation,
        operation_id,
        kind,
        id,
        outcome,
        origin,
        d.origin_gone,
    )
}

record! {
    /// One of this runtime's requests reached its terminal result.
    "Completed" PyCompleted { completion: PyCompletion }
}

record! {
    /// A result after the terminal one: dropped and counted.
    "Late" PyLate [hash] { correlation: u64 }
}

record! {
    /// A frame whose sender is not the node of the connection it came on:
    /// refused and counted, nothing acted on. `claimed`: the sender it names.
    "ForeignSender" PyForeignSender [hash] { connection: u64, claimed: Option<u64> }
}

record! {
    /// A relay notification was applied; `invalidated`: whether an entry went.
    "RouteRefreshed" PyRouteRefreshed [hash] { invalidated: bool }
}

record! {
    /// Not a valid frame: dropped. `kind` is the WireError kind.
    "Dropped" PyDropped [hash] { kind: &'static str, error: String }
}

record! {
    /// Carry these frames (session protocol answers).
    "Send" PySend { outbounds: Vec<PyOutbound> }
}

record! {
    /// A session relay admitted on this Actor owner: hand `payload` (or the
    /// disconnect `relay_kind` names) to the Actor, in `sequence` order.
    "SessionDeliver" PySessionDeliver {
        operation_id: u64,
        session: PySessionRef,
        actor: String,
        sequence: u64,
        relay_kind: &'static str,
        payload: Bytes,
    }
    match (session, actor, sequence, payload)
}

record! {
    /// A bind (or rebind) reached its terminal reply: `route` is stored.
    "Bound" PyBound { session: PySessionRef, actor: String, route: PyBindingRoute }
}

record! {
    /// A bind was refused; any previous route is kept. `reason`: NotOwner,
    /// ObjectGeneration, NodeGeneration, OwnerGeneration, OwnerLease or
    /// Timeout.
    "BindRefused" PyBindRefused [hash] { session: PySessionRef, actor: String, reason: &'static str }
}

record! {
    /// The Actor pushed `payload` to the Session.
    "Pushed" PyPushed [hash] { session: PySessionRef, actor: String, payload: Bytes }
}

record! {
    /// The Actor side refused a session relay: the operation ends
    /// Unavailable. `reason`: UnknownBinding, StaleRoute or ObjectGeneration.
    "RelayRefused" PyRelayRefused [hash] {
        operation_id: u64,
        session: PySessionRef,
        actor: String,
        reason: &'static str,
    }
}

record! {
    /// The relocation source learns whether a Session sealed (command 43).
    "Sealed" PySealed [hash] { session: PySessionRef, actor: String, relocation: u64, sealed: bool }
}

record! {
    /// No command 44 came within the seal timeout: the Session is closed
    /// and its binding, held and seal state are gone (§3.3 step 8). Its
    /// disconnect notifications follow as a Send.
    "SessionClosed" PySessionClosed [hash] { session: PySessionRef }
}

record! {
    /// A session frame that does not match current state was ignored.
    "Ignored" PyIgnored [hash] { reason: String }
}

record! {
    /// Which relocation: its id, the object it moves and that object's
    /// incarnation. Every event of one move carries the same identity.
    "RelocationIdentity" PyRelocationIdentity(RelocationIdentity as i) [hash] {
        relocation: i.relocation.get(),
        kind: i.key.kind().as_str(),
        id: i.key.id(),
        object_generation: i.object_generation.get(),
    }
}

record! {
    /// A relocation begun on the source: carry every frame of `send` (the
    /// Restore to the target first, then command 42 to every bound Session).
    "RelocationStarted" PyRelocationStarted(RelocationStarted as s) {
        identity: PyRelocationIdentity(s.identity.clone()),
        send: Tuple(s.send.iter().cloned().map(PyOutbound::from).collect()),
    }
}

record! {
    /// Target: a Restore arrived. Build the object from `state`, then call
    /// `Runtime.relocation_restored` (or `abort_relocation` if it cannot be
    /// built). Run nothing for it yet.
    "RelocationRestore" PyRelocationRestore [hash] {
        identity: PyRelocationIdentity,
        source_rid: u64,
        source_generation: u64,
        state: Bytes,
    }
}

record! {
    /// Source: the target is relay-ready; the held work was relayed
    /// (`relayed` operations) and the cutover sent. The object no longer
    /// runs here.
    "RelocationCutover" PyRelocationCutover [hash] { identity: PyRelocationIdentity, relayed: u64 }
}

record! {
    /// Target: the owner CAS succeeded; the object runs here from now on,
    /// and `Relocation.deliver` is its merge order (saved work, relayed,
    /// queued).
    "RelocationCommitted" PyRelocationCommitted [hash] {
        identity: PyRelocationIdentity,
        source_rid: u64,
        source_generation: u64,
    }
}

record! {
    /// Source: the target committed; what still arrives here follows the
    /// object on a Message Follow route. Drop the local instance.
    "RelocationHandedOff" PyRelocationHandedOff [hash] {
        identity: PyRelocationIdentity,
        target_rid: u64,
        target_generation: u64,
    }
}

record! {
    /// Source: the move is being given up (`reason`: Requested, or Timeout
    /// when no relay-ready came). The target is told; the object stays
    /// sealed until it confirms (then RelocationAborted, with the held work)
    /// or the store is fenced, or until it turns out the target already
    /// committed (then RelocationHandedOff).
    "RelocationAborting" PyRelocationAborting [hash] { identity: PyRelocationIdentity, reason: &'static str }
}

record! {
    /// Either side, before relay-ready: the move is abandoned (`reason`:
    /// Requested, Timeout, Refused, RestoreFailed). On the source the object
    /// runs here again and `Relocation.deliver` holds its saved then held
    /// work, in order; on the target drop what was restored.
    "RelocationAborted" PyRelocationAborted [hash] { identity: PyRelocationIdentity, reason: &'static str }
}

record! {
    /// After relay-ready the move could not complete (`reason`: CommitFailed
    /// or Timeout): the object runs on neither side; drop the local instance.
    "RelocationFailed" PyRelocationFailed [hash] { identity: PyRelocationIdentity, reason: &'static str }
}

record! {
    /// The store could not answer (the target's owner CAS, or the source's
    /// abort fence); it is retried on a later `on_timeout`.
    "RelocationCommitRetry" PyRelocationCommitRetry [hash] { identity: PyRelocationIdentity }
}

record! {
    /// Target: the cutover arrived; the owner CAS is due now and runs on the
    /// next `on_timeout` (`next_deadline()` says now).
    "RelocationCommitDue" PyRelocationCommitDue [hash] { identity: PyRelocationIdentity }
}

record! {
    /// A relocation frame that changes nothing (another relocation or
    /// incarnation, a duplicate, out of order, the wrong node): refused and
    /// counted. `refusal` names why (NotRelocating, WrongTarget, ...).
    "RelocationIgnored" PyRelocationIgnored [hash] { identity: PyRelocationIdentity, refusal: &'static str }
}

/// One relocation step's event, made from its decision when read.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRelocationEvent(RelocationIdentity, Decision);

impl PyRelocationEvent {
    fn with<R>(&self, f: impl FnOnce(&dyn Value) -> R) -> R {
        let (identity, d) = (PyRelocationIdentity(self.0.clone()), &self.1);
        let (rid, generation) = d.peer.map_or((0, 0), |p| (p.rid.get(), p.generation.get()));
        let reason = d.abort_reason.name();
        let state = || Bytes(d.payload.clone());
        match d.relocation_event {
            E::Restore => f(&PyRelocationRestore::of(identity, rid, generation, state())),
            E::Cutover => f(&PyRelocationCutover::of(identity, d.relayed)),
            E::Committed => f(&PyRelocationCommitted::of(identity, rid, generation)),
            E::HandedOff => f(&PyRelocationHandedOff::of(identity, rid, generation)),
            E::Aborting => f(&PyRelocationAborting::of(identity, reason)),
            E::Aborted => f(&PyRelocationAborted::of(identity, reason)),
            E::Failed => f(&PyRelocationFailed::of(identity, reason)),
            E::CommitRetry => f(&PyRelocationCommitRetry::of(identity)),
            E::CommitDue => f(&PyRelocationCommitDue::of(identity)),
            _ => f(&PyRelocationIgnored::of(
                identity,
                d.relocation_refusal.name(),
            )),
        }
    }
}

impl Value for PyRelocationEvent {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.with(|e| e.to_py(py))
    }
    fn repr(&self) -> String {
        self.with(|e| e.repr())
    }
}

record! {
    /// A relocation step: `event` says what happened; put every `deliver` on
    /// the object's application queue in order (each a `Deliver`, answered
    /// with `Runtime.reply` like any other), hand every `session` relay to
    /// the Actor in order, and carry every frame of `send`.
    "Relocation" PyRelocation {
        event: PyRelocationEvent,
        deliver: Tuple<PyDeliver>,
        send: Tuple<PyOutbound>,
        session: Tuple<PySessionDeliver>,
    }
}

fn target(key: Option<&ObjectKey>) -> (&'static str, String) {
    key.map_or(("actor", String::new()), |k| {
        (k.kind().as_str(), k.id().to_owned())
    })
}

fn reason(d: &Decision) -> Option<&'static str> {
    (d.failure == Failure::Unavailable).then(|| d.reason.name())
}

fn session(d: &Decision) -> PyResult<(PySessionRef, String)> {
    let session = d.session.map(PySessionRef).ok_or_else(missing)?;
    Ok((session, target(d.target.as_ref()).1))
}

fn deliver(d: Decision) -> Option<PyDeliver> {
    let op = PyOperation(d.attached.operation?);
    Some(PyDeliver::of(op, d.object_generation))
}

fn session_deliver(d: Decision) -> PyResult<PySessionDeliver> {
    let (session, actor) = session(&d)?;
    let (id, sequence, kind, payload) = (d.operation_id, d.sequence, d.relay_kind, d.payload);
    let deliver = PySessionDeliver::of(id, session, actor, sequence, kind.name(), Bytes(payload));
    Ok(deliver)
}

fn missing() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err("a decision without its parts")
}

/// The class of one decision.
pub(crate) fn decision(py: Python<'_>, d: impl Into<Decision>) -> PyResult<Obj> {
    let mut d: Decision = d.into();
    let mut frames = d.frames.iter().cloned().map(PyOutbound::from);
    match d.kind {
        K::Deliver => new(py, deliver(d).ok_or_else(missing)?),
        K::Relay => {
            let forward = frames.next().ok_or_else(missing)?;
            let notice = frames.next().zip(d.attached.notice.clone());
            let notice = notice.map(|(o, t)| PyNotice::of(o, PyNoticeToken(t)));
            new(py, PyRelay::of(forward, notice))
        }
        K::Reject => new(py, PyReject::of(frames.next().ok_or_else(missing)?)),
        K::Ended => {
            let (kind, id) = target(d.target.as_ref());
            let ended = PyEnded::of(d.operation_id, kind, id, d.failure.name(), reason(&d));
            new(py, ended)
        }
        K::Completed => new(py, PyCompleted::of(completion(&d))),
        K::Late => new(py, PyLate::of(d.correlation)),
        K::RouteRefreshed => new(py, PyRouteRefreshed::of(d.invalidated)),
        K::Dropped => new(py, PyDropped::of(d.wire_error, d.detail)),
        K::Send => new(py, PySend::of(frames.collect())),
        K::SessionDeliver => new(py, session_deliver(d)?),
        K::PeerRefused => new(py, PyPeerRefused),
        K::Held => new(py, PyHeld),
        K::OwnershipLost => {
            let (kind, id) = target(d.target.as_ref());
            new(py, PyOwnershipLost::of(kind, id, d.lost_reason.name()))
        }
        K::ForeignSender => new(py, PyForeignSender::of(d.connection, d.claimed)),
        K::Relocation => {
            let deliveries = std::mem::take(&mut d.attached).deliveries();
            let (ops, relays): (Vec<_>, Vec<_>) =
                deliveries.into_iter().partition(|x| x.kind == K::Deliver);
            let send = Tuple(frames.collect());
            let ops = Tuple(ops.into_iter().filter_map(deliver).collect());
            let relays = relays.into_iter().map(session_deliver);
            let relays = Tuple(relays.collect::<PyResult<_>>()?);
            let identity = RelocationIdentity {
                relocation: RelocationId(d.relocation),
                key: d.target.clone().ok_or_else(missing)?,
                object_generation: ObjectGeneration(d.object_generation),
            };
            d.frames.clear();
            let event = PyRelocationEvent(identity, d);
            new(py, PyRelocation::of(event, ops, send, relays))
        }
        K::Session if d.session_event == S::Ignored => new(py, PyIgnored::of(d.detail)),
        K::Session => {
            let (session, actor) = session(&d)?;
            match d.session_event {
                S::Bound => {
                    let route = d.binding_route.map(PyBindingRoute).ok_or_else(missing)?;
                    new(py, PyBound::of(session, actor, route))
                }
                S::BindRefused => {
                    let reason = d.bind_refusal.name();
                    new(py, PyBindRefused::of(session, actor, reason))
                }
                S::Pushed => new(py, PyPushed::of(session, actor, Bytes(d.payload))),
                S::RelayRefused => {
                    let (id, reason) = (d.operation_id, d.session_refusal.name());
                    new(py, PyRelayRefused::of(id, session, actor, reason))
                }
                S::Sealed => new(py, PySealed::of(session, actor, d.relocation, d.sealed)),
                _ => new(py, PySessionClosed::of(session)),
            }
        }
    }
}

/// Registers every class of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    classes! { m:
        PyOperation PyDeliver PyNoticeToken PyNotice PyRelay PyReject PyEnded PyOwnershipLost
        PyReply PyError
        PyTimeout PyCancelled PyShutdown PyPeerRefused PyHeld PyForeignSender PyCompletion
        PyCompleted PyLate PyRouteRefreshed PyDropped PySend PySessionDeliver PyBound
        PyBindRefused PyPushed PyRelayRefused PySealed PySessionClosed PyIgnored
        PyRelocationIdentity PyRelocationStarted PyRelocation PyRelocationRestore
        PyRelocationCutover PyRelocationCommitted PyRelocationHandedOff PyRelocationAborting
        PyRelocationAborted PyRelocationFailed PyRelocationCommitRetry PyRelocationCommitDue
        PyRelocationIgnored
    }
    Ok(())
}
