//! `zlink.Runtime`: one MeshNode's routing core. Cache hits are answered
//! with the GIL held (they never block); anything that may reach the store
//! releases the GIL first.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zlink_core::wire::{
    ActorRoute, MAX_ERROR_MESSAGE_BYTES, NodeRef, ReplyError, ReplyErrorKind, ReplyResult,
};
use zlink_core::{
    Capture, CorrelationId, InputError, NodeGeneration, NodeRid, ObjectKind, OwnerLeaseGeneration,
    RequestOptions, SendOptions, SessionGeneration, SessionId, Stats,
};

use crate::errors;
use crate::fork::ForkBound;
use crate::relocation::{self, PyRelocationStarted};
use crate::results::{self, PyNoticeToken, PyOperation, PyOutbound, PyOwnedObject, PyRouteEnd};
use crate::sessions::{
    self, PyActorRoute, PyBindingRoute, PyPeerDescriptor, PyPeerIntent, PyPeerReplacement,
    PyRegistration, PySessionRef, PySpotExecution, actor_key,
};
use crate::setup::{PyNodeIdentity, PyRoutingConfig, clock_of, store_of};

type Obj = Py<PyAny>;

#[inline]
fn kind_of(kind: &str) -> PyResult<ObjectKind> {
    match kind {
        "spot" => Ok(ObjectKind::Spot),
        "actor" => Ok(ObjectKind::Actor),
        other => Err(errors::input(&InputError::UnknownObjectKind(
            other.to_owned(),
        ))),
    }
}

fn millis(field: &str, v: i64) -> PyResult<Duration> {
    u64::try_from(v).map(Duration::from_millis).map_err(|_| {
        errors::raise(
            "InputError",
            "Negative",
            format!("{field} must be >= 0 ms, got {v}"),
        )
    })
}

/// The thread that drives `resolve_async` store reads for asyncio callers:
/// one per process (made again after a fork).
static ASYNC_IO: Mutex<Option<ForkBound<tokio::runtime::Runtime>>> = Mutex::new(None);

fn async_io() -> PyResult<tokio::runtime::Handle> {
    let mut slot = ASYNC_IO.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(rt) = slot.as_ref()
        && let Ok(rt) = rt.get()
    {
        return Ok(rt.handle().clone());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("zlink-asyncio")
        .build()
        .map_err(|e| {
            errors::raise(
                "ZlinkError",
                "Threads",
                format!("cannot start a thread: {e}"),
            )
        })?;
    let handle = rt.handle().clone();
    // A runtime made before a fork is forgotten here, never shut down.
    *slot = Some(ForkBound::new(rt));
    Ok(handle)
}

/// The routing core of one MeshNode. Thread-safe: share one per process.
#[pyclass(name = "Runtime", module = "zlink", frozen, subclass)]
pub(crate) struct PyRuntime {
    rt: ForkBound<Arc<zlink_core::Runtime>>,
}

impl PyRuntime {
    #[inline]
    fn rt(&self) -> PyResult<&Arc<zlink_core::Runtime>> {
        self.rt.get()
    }
}

#[pymethods]
impl PyRuntime {
    #[new]
    #[pyo3(signature = (identity, *, config = None, store = None, clock = None, worker_threads = 1))]
    fn new(
        py: Python<'_>,
        identity: &PyNodeIdentity,
        config: Option<&PyRoutingConfig>,
        store: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
        worker_threads: usize,
    ) -> PyResult<Self> {
        let mut builder = zlink_core::Runtime::builder(identity.0).worker_threads(worker_threads);
        if let Some(c) = config {
            builder = builder.config(c.0.clone());
        }
        if let Some(s) = store {
            builder = builder.store(store_of(s)?);
        }
        if let Some(c) = clock {
            builder = builder.clock(clock_of(c)?);
        }
        let rt = py.detach(move || builder.build()).map_err(|e| match e {
            zlink_core::BuildError::Config(c) => errors::config(&c),
            other => errors::raise("ZlinkError", "Threads", other),
        })?;
        Ok(PyRuntime {
            rt: ForkBound::new(Arc::new(rt)),
        })
    }

    /// This node.
    #[getter]
    fn identity(&self) -> PyResult<PyNodeIdentity> {
        Ok(PyNodeIdentity(self.rt()?.identity()))
    }

    /// The config in force.
    #[getter]
    fn config(&self) -> PyResult<PyRoutingConfig> {
        Ok(PyRoutingConfig(self.rt()?.config()))
    }

    /// Replaces the config (validated; the cache capacity is fixed).
    fn update_config(&self, config: &PyRoutingConfig) -> PyResult<()> {
        self.rt()?
            .update_config(config.0.clone())
            .map_err(|e| errors::config(&e))
    }

    /// Cache only: a recent ReadyRoute or None. Never blocks.
    fn lookup_cached(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<Option<Obj>> {
        let kind = kind_of(kind)?;
        match self.rt()?.lookup_cached(kind, id) {
            Ok(Some(route)) => results::ready(py, route).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(errors::input(&e)),
        }
    }

    /// ReadyRoute | Missing | Unavailable | StoreFailure. A cache hit
    /// returns at once; a miss reads the store with the GIL released.
    fn resolve(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<Obj> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        match rt.lookup_cached(kind, id) {
            Ok(Some(route)) => results::ready(py, route),
            Ok(None) => {
                let r = py
                    .detach(|| rt.resolve(kind, id))
                    .map_err(|e| errors::input(&e))?;
                results::resolution(py, r)
            }
            Err(e) => Err(errors::input(&e)),
        }
    }

    /// `resolve` for many ids of one kind: a list of results, in order.
    fn resolve_many<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        let one = |id: &Bound<'py, PyAny>| -> PyResult<Obj> {
            let id: &str = id.extract()?;
            match rt.lookup_cached(kind, id) {
                Ok(Some(route)) => results::ready(py, route),
                Ok(None) => {
                    let r = py
                        .detach(|| rt.resolve(kind, id))
                        .map_err(|e| errors::input(&e))?;
                    results::resolution(py, r)
                }
                Err(e) => Err(errors::input(&e)),
            }
        };
        let mut out = Vec::with_capacity(ids.len().unwrap_or(0));
        if let Ok(list) = ids.cast::<PyList>() {
            for id in list.iter() {
                out.push(one(&id)?);
            }
        } else {
            for id in ids.try_iter()? {
                out.push(one(&id?)?);
            }
        }
        PyList::new(py, out)
    }

    /// Starts an async resolve: returns the result on a cache hit, else
    /// None and later calls `callback(result, None)` (or `(None, error)`)
    /// from a runtime thread. `Runtime.resolve_async` wraps this.
    fn _resolve_start(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        callback: Obj,
    ) -> PyResult<Option<Obj>> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        if let Some(route) = rt.lookup_cached(kind, id).map_err(|e| errors::input(&e))? {
            return results::ready(py, route).map(Some);
        }
        let future = rt.resolve_async(kind, id).map_err(|e| errors::input(&e))?;
        let io = async_io()?;
        io.spawn(async move {
            let resolution = future.await;
            Python::attach(|py| {
                let called = match results::resolution(py, resolution) {
                    Ok(value) => callback.call1(py, (value, py.None())),
                    Err(e) => callback.call1(py, (py.None(), e.into_value(py))),
                };
                if let Err(e) = called {
                    e.write_unraisable(py, None);
                }
            });
        });
        Ok(None)
    }

    /// Sends a one-way message by global ID: Submitted | NotFound |
    /// ColdActivation | Unavailable | StoreFailure.
    #[pyo3(signature = (kind, id, payload, *, instance_intent = false, deadline = 5_000))]
    fn send(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        payload: &[u8],
        instance_intent: bool,
        deadline: i64,
    ) -> PyResult<Obj> {
        let kind = kind_of(kind)?;
        let options = SendOptions {
            instance_intent,
            deadline: millis("deadline", deadline)?,
        };
        let rt = self.rt()?;
        let sent = py
            .detach(|| rt.send(kind, id, payload, options))
            .map_err(|e| errors::input(&e))?;
        results::sent(py, sent)
    }

    /// Sends a request: Submitted (with `correlation`) | NotFound | ... Its
    /// one terminal result comes as a Completion (on_frame, cancel,
    /// expire_requests, shutdown_requests).
    #[pyo3(signature = (kind, id, payload, *, timeout = 5_000, instance_intent = false, deadline = 5_000, origin = None))]
    #[allow(clippy::too_many_arguments)]
    fn request(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        payload: &[u8],
        timeout: i64,
        instance_intent: bool,
        deadline: i64,
        origin: Option<&PySpotExecution>,
    ) -> PyResult<Obj> {
        let kind = kind_of(kind)?;
        let options = RequestOptions {
            send: SendOptions {
                instance_intent,
                deadline: millis("deadline", deadline)?,
            },
            timeout: millis("timeout", timeout)?,
            origin: origin.map(|o| o.0.clone()),
        };
        let rt = self.rt()?;
        let requested = py
            .detach(|| rt.request(kind, id, payload, options))
            .map_err(|e| errors::input(&e))?;
        results::requested(py, requested)
    }

    /// Decides what to do with one inbound frame that arrived on the
    /// connection to node `from_node` (its routing ID): Deliver | Relay |
    /// Reject | Ended | Completed | Late | RouteRefreshed | Dropped | Send |
    /// SessionDeliver | Bound | BindRefused | Pushed | RelayRefused | Sealed |
    /// SessionClosed | Ignored | PeerRefused | ForeignSender | Held |
    /// Relocation. A relocation's cutover runs the owner CAS on the store:
    /// the GIL is released for the call.
    fn on_frame(&self, py: Python<'_>, from_node: u64, frame: &[u8]) -> PyResult<Obj> {
        let rt = self.rt()?;
        let inbound = py.detach(|| rt.on_frame(NodeRid(from_node), frame));
        results::inbound(py, inbound)
    }

    /// The runtime's clock now, in nanoseconds: the `now` for `on_timeout`.
    fn now(&self) -> PyResult<u64> {
        Ok(self.rt()?.now().0)
    }

    /// The earliest instant (runtime clock, ns) any deadline needs waking
    /// at: a request deadline, a seal or bind timeout, a follow-route
    /// expiry. None when nothing waits.
    fn next_deadline(&self) -> PyResult<Option<u64>> {
        Ok(self.rt()?.next_deadline().map(|t| t.0))
    }

    /// Runs every deadline due at `now` (ns, default: the runtime's clock
    /// now) and returns the decisions, as `on_frame` does: Completed
    /// (Timeout), SessionClosed then Send, BindRefused ("Timeout"), Send,
    /// Relocation. A due relocation commit writes the store: the GIL is
    /// released for the call.
    #[pyo3(signature = (now = None))]
    fn on_timeout(&self, py: Python<'_>, now: Option<u64>) -> PyResult<Vec<Obj>> {
        let rt = self.rt()?;
        let now = now.map_or_else(|| rt.now(), zlink_core::MonoTime);
        py.detach(|| rt.on_timeout(now))
            .into_iter()
            .map(|a| results::inbound(py, a))
            .collect()
    }

    /// Reports whether a notification from a Relay was sent.
    fn notice_settled(&self, token: &PyNoticeToken, sent: bool) -> PyResult<()> {
        self.rt()?.notice_settled(&token.0, sent);
        Ok(())
    }

    /// Answers a delivered request on its reply route: `payload` for a
    /// reply, or `error_kind` ("Handler" | "Decode") with `code`/`message`.
    #[pyo3(signature = (operation, payload = None, *, error_kind = None, code = 0, message = ""))]
    fn reply(
        &self,
        operation: &PyOperation,
        payload: Option<&[u8]>,
        error_kind: Option<&str>,
        code: u32,
        message: &str,
    ) -> PyResult<PyOutbound> {
        let result = match (payload, error_kind) {
            (Some(p), None) => ReplyResult::Ok(p.to_vec()),
            (None, Some(k)) => {
                let kind = match k {
                    "Handler" => ReplyErrorKind::Handler,
                    "Decode" => ReplyErrorKind::Decode,
                    other => {
                        return Err(errors::raise(
                            "InputError",
                            "UnknownErrorKind",
                            format!("error_kind must be \"Handler\" or \"Decode\", got {other:?}"),
                        ));
                    }
                };
                if message.len() > MAX_ERROR_MESSAGE_BYTES {
                    return Err(errors::raise(
                        "ReplyRouteError",
                        "TooLarge",
                        format!(
                            "error message is {} bytes, over {MAX_ERROR_MESSAGE_BYTES}",
                            message.len()
                        ),
                    ));
                }
                ReplyResult::Error(ReplyError {
                    kind,
                    code,
                    message: message.to_owned(),
                })
            }
            _ => {
                return Err(errors::raise(
                    "InputError",
                    "ReplyShape",
                    "give exactly one of payload or error_kind",
                ));
            }
        };
        let out = self
            .rt()?
            .reply(&operation.0, result)
            .map_err(|e| match e {
                zlink_core::ReplyRouteError::OneWay(_) => {
                    errors::raise("ReplyRouteError", "OneWay", e)
                }
                zlink_core::ReplyRouteError::TooLarge { .. } => {
                    errors::raise("ReplyRouteError", "TooLarge", e)
                }
            })?;
        Ok(out.into())
    }

    /// Cancels a pending request: its Completion, or None if it had
    /// already ended (the cancellation is late).
    fn cancel(&self, py: Python<'_>, correlation: u64) -> PyResult<Option<Obj>> {
        match self.rt()?.cancel(CorrelationId(correlation)) {
            Some(c) => results::completion(py, c).map(Some),
            None => Ok(None),
        }
    }

    /// Ends every pending request with Shutdown.
    fn shutdown_requests(&self, py: Python<'_>) -> PyResult<Vec<Obj>> {
        let done = self.rt()?.shutdown_requests();
        done.into_iter()
            .map(|c| results::completion(py, c))
            .collect()
    }

    /// Requests waiting for their result.
    fn pending_requests(&self) -> PyResult<usize> {
        Ok(self.rt()?.pending_requests())
    }

    /// Creates a new incarnation owned by this node, in Creating.
    fn create(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.create(kind, id))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Publishes this node's Creating object as Ready.
    fn publish_ready(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.publish_ready(kind, id))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Create then publish Ready.
    fn activate(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.activate(kind, id))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Extends this node's owner lease on the object.
    fn renew_lease(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.renew_lease(kind, id))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Starts releasing: the ID resolves Unavailable("Releasing").
    fn begin_release(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.begin_release(kind, id))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Completes the release: the ID resolves Missing.
    fn complete_release(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<()> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        py.detach(|| rt.complete_release(kind, id))
            .map_err(|e| errors::lifecycle(&e))
    }

    /// This node's tenure of an object it owns (what an ActorRef carries
    /// as its location), or None.
    fn owner_route_end(&self, kind: &str, id: &str) -> PyResult<Option<PyRouteEnd>> {
        let kind = kind_of(kind)?;
        self.rt()?
            .owner_route_end(kind, id)
            .map(|end| end.map(PyRouteEnd))
            .map_err(|e| errors::input(&e))
    }

    // ---- relocation (spec §3.3) -----------------------------------------

    /// Source: starts moving the object this node owns (Ready) to the
    /// runtime `target_rid` / `target_generation` of this mesh, after the
    /// host's current handler ended. `saved`: the Operations (from Deliver
    /// results) accepted but not run, in order; `state`: the object's
    /// application state. From now on nothing for the object is delivered
    /// here. Carry every frame of the result's `send`.
    #[pyo3(signature = (kind, id, target_rid, target_generation = 1, *, saved = None, state = <&[u8]>::default()))]
    #[allow(clippy::too_many_arguments)]
    fn begin_relocation(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        target_rid: u64,
        target_generation: u64,
        saved: Option<&Bound<'_, PyAny>>,
        state: &[u8],
    ) -> PyResult<PyRelocationStarted> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        let mut operations = Vec::new();
        if let Some(saved) = saved {
            for op in saved.try_iter()? {
                operations.push(op?.cast::<PyOperation>()?.get().0.clone());
            }
        }
        let target = NodeRef {
            mesh: rt.identity().mesh,
            rid: NodeRid(target_rid),
            generation: NodeGeneration(target_generation),
        };
        let capture = Capture {
            saved: operations,
            state: state.to_vec(),
        };
        // Encoding the Restore copies and checksums the whole state.
        py.detach(|| rt.begin_relocation(kind, id, target, capture))
            .map(PyRelocationStarted)
            .map_err(|e| errors::relocation(&e))
    }

    /// Target: the host built the object from the RelocationRestore's
    /// state. Returns relay-ready for the source (the point of no return);
    /// the object runs here once a later Relocation says Committed.
    fn relocation_restored(&self, kind: &str, id: &str) -> PyResult<Vec<PyOutbound>> {
        let kind = kind_of(kind)?;
        self.rt()?
            .relocation_restored(kind, id)
            .map(outbounds)
            .map_err(|e| errors::relocation(&e))
    }

    /// Abandons a relocation before relay-ready, on the source (its held
    /// work comes back in `deliver`) or on the target (the state could not
    /// be restored). RelocationError("AfterRelayReady") after it.
    fn abort_relocation(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<Obj> {
        let kind = kind_of(kind)?;
        let action = self
            .rt()?
            .abort_relocation(kind, id)
            .map_err(|e| errors::relocation(&e))?;
        relocation::relocation(py, action)
    }

    /// What this node owns for the ID, if anything.
    fn owned(&self, kind: &str, id: &str) -> PyResult<Option<PyOwnedObject>> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        let key = rt.key(kind, id).map_err(|e| errors::input(&e))?;
        Ok(rt.owned(key).map(PyOwnedObject))
    }

    /// Number of objects this node owns.
    fn owned_count(&self) -> PyResult<usize> {
        Ok(self.rt()?.owned_count())
    }

    /// The lifecycle `lease` of `node` ended: drops its cached routes.
    /// Returns the entries removed.
    fn on_owner_lease_invalidated(&self, node: u64, lease: u64) -> PyResult<usize> {
        Ok(self
            .rt()?
            .on_owner_lease_invalidated(NodeRid(node), OwnerLeaseGeneration(lease)))
    }

    /// A store recovery event reported by the host: clears the cache.
    fn on_store_recovery(&self) -> PyResult<usize> {
        Ok(self.rt()?.on_store_recovery())
    }

    // ---- sessions (spec §3) -------------------------------------------

    /// Opens a Session owned by this runtime.
    fn open_session(&self, id: u64, generation: u64) -> PyResult<PySessionRef> {
        Ok(PySessionRef(self.rt()?.open_session(
            SessionId(id),
            SessionGeneration(generation),
        )))
    }

    /// Binds (or rebinds) `session` to Actor `actor` at `location` (the
    /// ActorRef's: a RouteEnd from `owner_route_end`, or an ActorRoute).
    /// Carry the Outbound; the route is stored only by its terminal reply
    /// (`on_frame` -> Bound | BindRefused).
    fn bind(&self, session: u64, actor: &str, location: &Bound<'_, PyAny>) -> PyResult<PyOutbound> {
        let route = if let Ok(r) = location.cast::<PyActorRoute>() {
            r.get().0
        } else if let Ok(end) = location.cast::<PyRouteEnd>() {
            let end = end.get().0;
            ActorRoute {
                owner: end.node,
                object_generation: end.fence.object_generation,
                authority_owner_generation: end.fence.authority_owner_generation,
                owner_lease_generation: end.fence.owner_lease_generation,
                lease_remaining_ms: 0,
            }
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "location must be a RouteEnd or an ActorRoute",
            ));
        };
        let actor_ref = zlink_core::ActorRef {
            actor: actor_key(actor)?,
            route,
        };
        self.rt()?
            .bind(SessionId(session), &actor_ref)
            .map(Into::into)
            .map_err(|e| errors::session(&e))
    }

    /// The stored binding route of Actor `actor` in `session`, or None.
    fn binding(&self, session: u64, actor: &str) -> PyResult<Option<PyBindingRoute>> {
        let key = actor_key(actor)?;
        Ok(self
            .rt()?
            .binding(SessionId(session), &key)
            .map(PyBindingRoute))
    }

    /// Relays `payload` from `session` to Actor `actor` on the stored
    /// route (no lookup): SessionSent | SessionHeld | Unavailable.
    fn session_send(
        &self,
        py: Python<'_>,
        session: u64,
        actor: &str,
        payload: &[u8],
    ) -> PyResult<Obj> {
        let key = actor_key(actor)?;
        let sent = self
            .rt()?
            .session_send(SessionId(session), &key, payload)
            .map_err(|e| errors::session(&e))?;
        sessions::session_send(py, sent)
    }

    /// The Session's connection closed (`physical`) or the application
    /// ended it: the disconnect notifications to carry.
    #[pyo3(signature = (session, *, physical = true))]
    fn disconnect_session(&self, session: u64, physical: bool) -> PyResult<Vec<PyOutbound>> {
        let frames = self
            .rt()?
            .disconnect_session(SessionId(session), physical)
            .map_err(|e| errors::session(&e))?;
        Ok(frames.into_iter().map(Into::into).collect())
    }

    /// Pushes `payload` from Actor `actor` to the bound `session`; None if
    /// no such binding is registered here.
    fn push(
        &self,
        actor: &str,
        session: &PySessionRef,
        payload: &[u8],
    ) -> PyResult<Option<PyOutbound>> {
        let key = actor_key(actor)?;
        let pushed = self
            .rt()?
            .push(&key, &session.0, payload)
            .map_err(|e| errors::input(&e))?;
        Ok(pushed.map(Into::into))
    }

    /// Sessions bound to Actor `actor` here.
    fn bound_sessions(&self, actor: &str) -> PyResult<Vec<PyRegistration>> {
        let key = actor_key(actor)?;
        Ok(self
            .rt()?
            .bound_sessions(&key)
            .into_iter()
            .map(PyRegistration)
            .collect())
    }

    /// Drops every binding of Actor `actor` here.
    fn forget_bindings(&self, actor: &str) -> PyResult<()> {
        let key = actor_key(actor)?;
        self.rt()?.forget_bindings(&key);
        Ok(())
    }

    /// After a lease renewal: a command 44 refresh to every bound Session.
    fn refresh_session_routes(&self, actor: &str) -> PyResult<Vec<PyOutbound>> {
        let key = actor_key(actor)?;
        Ok(outbounds(self.rt()?.refresh_session_routes(&key)))
    }

    // ---- manual object peers (spec §2.3) --------------------------------

    /// Publishes this node's own object-peer descriptor (writes the store:
    /// the GIL is released).
    fn publish_descriptor(
        &self,
        py: Python<'_>,
        endpoint: &str,
        security_identity: &str,
    ) -> PyResult<PyPeerDescriptor> {
        let rt = self.rt()?;
        py.detach(|| rt.publish_descriptor(endpoint, security_identity))
            .map(PyPeerDescriptor)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Registers a manually configured endpoint (an intent only).
    fn add_manual_peer(&self, endpoint: &str) -> PyResult<()> {
        self.rt()?
            .add_manual_peer(endpoint)
            .map_err(|e| errors::input(&e))
    }

    /// Looks up every manual endpoint's descriptor (GIL released): the
    /// replacements to perform now.
    fn connect_manual_peers(&self, py: Python<'_>) -> PyResult<Vec<PyPeerReplacement>> {
        let rt = self.rt()?;
        let now = py
            .detach(|| rt.connect_manual_peers())
            .map_err(|e| errors::store(&e))?;
        Ok(now.into_iter().map(Into::into).collect())
    }

    /// Registers `endpoint` if needed and looks its descriptor up (GIL
    /// released): a replacement to perform now, or None.
    fn ensure_manual_peer(
        &self,
        py: Python<'_>,
        endpoint: &str,
    ) -> PyResult<Option<PyPeerReplacement>> {
        let rt = self.rt()?;
        py.detach(|| rt.ensure_manual_peer(endpoint))
            .map(|r| r.map(Into::into))
            .map_err(|e| errors::lifecycle(&e))
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    fn peer_opened(&self, endpoint: &str, rid: u64) -> PyResult<()> {
        self.rt()?
            .peer_opened(endpoint, NodeRid(rid))
            .map_err(|e| errors::input(&e))
    }

    /// The transport confirmed `endpoint` closed: a waiting replacement is
    /// installed now and returned.
    fn peer_closed(&self, endpoint: &str) -> PyResult<Option<PyPeerReplacement>> {
        self.rt()?
            .peer_closed(endpoint)
            .map(|r| r.map(Into::into))
            .map_err(|e| errors::input(&e))
    }

    /// The intent, observed routing ID and close state of `endpoint`.
    fn peer_intent(&self, endpoint: &str) -> PyResult<Option<PyPeerIntent>> {
        Ok(self.rt()?.peer_intent(endpoint).map(PyPeerIntent))
    }

    /// Where to reach node `rid`, only through an installed descriptor.
    fn peer_endpoint(&self, rid: u64) -> PyResult<Option<String>> {
        Ok(self
            .rt()?
            .peer_endpoint(NodeRid(rid))
            .map(|e| e.as_str().to_owned()))
    }

    /// `on_frame` behind a manual peer connection's admission fence:
    /// PeerRefused unless the connection carries an installed descriptor,
    /// is open with its routing ID, and the sender's lifecycle matches.
    fn on_peer_frame(&self, py: Python<'_>, endpoint: &str, frame: &[u8]) -> PyResult<Obj> {
        let rt = self.rt()?;
        let inbound = py.detach(|| rt.on_peer_frame(endpoint, frame));
        results::inbound(py, inbound)
    }

    /// Every counter, read now, as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.rt()?.stats())
    }

    fn __repr__(&self) -> PyResult<String> {
        let me = self.rt()?.identity();
        Ok(format!(
            "Runtime(mesh={:?}, rid={}, generation={})",
            me.mesh.as_str(),
            me.rid,
            me.generation
        ))
    }
}

fn outbounds(frames: Vec<zlink_core::Outbound>) -> Vec<PyOutbound> {
    frames.into_iter().map(Into::into).collect()
}

fn stats_dict<'py>(py: Python<'py>, s: &Stats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cache_hits", s.cache_hits)?;
    d.set_item("cache_misses", s.cache_misses)?;
    d.set_item("cache_entries", s.cache_entries)?;
    d.set_item("cache_evictions", s.cache_evictions)?;
    d.set_item("store_reads", s.store_reads)?;
    d.set_item("store_failures", s.store_failures)?;
    d.set_item("store_recoveries", s.store_recoveries)?;
    let r = PyDict::new(py);
    r.set_item("ready_route", s.resolutions.ready_route)?;
    r.set_item("missing", s.resolutions.missing)?;
    r.set_item("unavailable", s.resolutions.unavailable)?;
    r.set_item("store_failure", s.resolutions.store_failure)?;
    d.set_item("resolutions", r)?;
    let inv = PyDict::new(py);
    for (reason, n) in s.invalidations {
        inv.set_item(reason.as_str(), n)?;
    }
    d.set_item("invalidations", inv)?;
    let f = PyDict::new(py);
    f.set_item("delivered", s.follow.delivered)?;
    f.set_item("relays", s.follow.relays)?;
    f.set_item("notifications_sent", s.follow.notifications_sent)?;
    f.set_item(
        "notifications_suppressed",
        s.follow.notifications_suppressed,
    )?;
    f.set_item("notification_failures", s.follow.notification_failures)?;
    f.set_item("rejections_sent", s.follow.rejections_sent)?;
    f.set_item("frames_dropped", s.follow.frames_dropped)?;
    f.set_item("frames_foreign_sender", s.follow.frames_foreign_sender)?;
    d.set_item("follow", f)?;
    let q = PyDict::new(py);
    q.set_item("sent", s.requests.sent)?;
    q.set_item("replies", s.requests.replies)?;
    q.set_item("errors", s.requests.errors)?;
    q.set_item("timeouts", s.requests.timeouts)?;
    q.set_item("cancelled", s.requests.cancelled)?;
    q.set_item("shutdown", s.requests.shutdown)?;
    q.set_item("late_results", s.requests.late_results)?;
    q.set_item("unroutable", s.requests.unroutable)?;
    d.set_item("requests", q)?;
    let ss = PyDict::new(py);
    ss.set_item("relays", s.sessions.relays)?;
    ss.set_item("held", s.sessions.held)?;
    ss.set_item("closed_by_seal_timeout", s.sessions.closed_by_seal_timeout)?;
    ss.set_item("bind_timeouts", s.sessions.bind_timeouts)?;
    d.set_item("sessions", ss)?;
    let rel = PyDict::new(py);
    let r = &s.relocation;
    for (name, value) in [
        ("begun", r.begun),
        ("restores", r.restores),
        ("committed", r.committed),
        ("handed_off", r.handed_off),
        ("aborted", r.aborted),
        ("failed", r.failed),
        ("held", r.held),
        ("relayed", r.relayed),
        ("control_refused", r.control_refused),
    ] {
        rel.set_item(name, value)?;
    }
    d.set_item("relocation", rel)?;
    let t = PyDict::new(py);
    let tables = &s.tables;
    for (name, value) in [
        ("pending_requests", tables.pending_requests),
        ("request_deadlines", tables.request_deadlines),
        ("sessions", tables.sessions),
        ("pending_binds", tables.pending_binds),
        ("session_deadlines", tables.session_deadlines),
        ("registrations", tables.registrations),
        ("parked_binds", tables.parked_binds),
        ("parked_deadlines", tables.parked_deadlines),
        ("follow_routes", tables.follow_routes),
        ("follow_deadlines", tables.follow_deadlines),
        ("dedup_entries", tables.dedup_entries),
        ("dedup_evictions", tables.dedup_evictions),
        ("store_flights", tables.store_flights),
        ("relocation_sources", tables.relocation_sources),
        ("relocation_targets", tables.relocation_targets),
        ("relocation_deadlines", tables.relocation_deadlines),
    ] {
        t.set_item(name, value)?;
    }
    d.set_item("tables", t)?;
    Ok(d)
}
