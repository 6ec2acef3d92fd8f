//! `zlink.Runtime`: one MeshNode's routing core, over the bridge's runtime.
//! Cache hits are answered with the GIL held (they never block); anything
//! that may reach the store releases the GIL first.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zlink_bridge::args::{Arg, request_options};
use zlink_bridge::core::ObjectKind;
use zlink_bridge::lifecycle::Closable;
use zlink_bridge::{Options, Write};

use crate::errors::{Raise, raise};
use crate::hand::{self, *};
use crate::results::{self, *};
use crate::setup::{PyNodeIdentity, PyRoutingConfig, clock_of, store_of};
use crate::surface::PyMetricFamily;
use crate::values::{Obj, new};

/// The routing core of one MeshNode. Thread-safe: share one per process.
#[pyclass(name = "Runtime", module = "zlink", frozen, subclass)]
pub(crate) struct PyRuntime {
    rt: Closable<zlink_bridge::Runtime>,
}

const ACTOR: ObjectKind = ObjectKind::Actor;

impl PyRuntime {
    /// The runtime for a call that holds the GIL throughout, or
    /// `ClosedError`.
    #[inline]
    fn rt(&self) -> PyResult<&zlink_bridge::Runtime> {
        self.rt.get().py()
    }

    /// Runs `call` with the GIL released (it may block on the store), the
    /// runtime pinned: `close` waits for it.
    fn off<T: Send>(
        &self,
        py: Python<'_>,
        call: impl FnOnce(&zlink_bridge::Runtime) -> zlink_bridge::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| call(&*self.rt.pin()?)).py()
    }

    /// `resolve` of one ID: a cache hit with the GIL held, else the store
    /// without it. The hit's route goes straight into its Python object
    /// (matching the whole result once, not through `?`, saves copies).
    #[inline]
    fn resolve_one(&self, py: Python<'_>, kind: ObjectKind, id: &str) -> PyResult<Obj> {
        match self.rt()?.lookup_cached(kind, id) {
            Ok(Some(route)) => new(py, PyReadyRoute(route)),
            Ok(None) => self.resolve_miss(py, kind, id),
            Err(e) => Err(raise(e)),
        }
    }

    #[cold]
    fn resolve_miss(&self, py: Python<'_>, kind: ObjectKind, id: &str) -> PyResult<Obj> {
        let r = self.off(py, |rt| rt.resolve(kind, id))?;
        results::resolved(py, r)
    }

    fn write(&self, py: Python<'_>, kind: &str, id: &str, write: Write) -> PyResult<PyOwnedObject> {
        let owned = self.off(py, |rt| rt.write(kind, id, write))?;
        Ok(owned.into())
    }
}

#[pymethods]
impl PyRuntime {
    #[new]
    #[pyo3(signature = (identity, *, config = None, store = None, clock = None, worker_threads = None))]
    fn new(
        py: Python<'_>,
        identity: &PyNodeIdentity,
        config: Option<&PyRoutingConfig>,
        store: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
        worker_threads: Option<usize>,
    ) -> PyResult<Self> {
        let options = Options {
            config: config.map(|c| c.0.clone()),
            store: store.map(store_of).transpose()?,
            clock: clock.map(clock_of).transpose()?,
            worker_threads,
        };
        let rt = py
            .detach(move || zlink_bridge::Runtime::new(identity.0, options))
            .py()?;
        Ok(PyRuntime {
            rt: Closable::new(rt, "Runtime"),
        })
    }

    /// Stops the runtime: later calls raise ClosedError; calls running on
    /// other threads finish first, then pending ``resolve_async`` callbacks,
    /// then its threads stop. Closing twice is allowed. Also the end of a
    /// ``with Runtime(...) as rt:`` block (``zlink.Runtime``).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if let Ok(rt) = self.rt.get() {
            rt.may_close("Runtime.close").py()?;
        }
        // Under the GIL the flag is set at once; the waits run without it.
        py.detach(|| {
            if let Some(rt) = self.rt.close() {
                rt.stop();
            }
        });
        Ok(())
    }

    /// Whether ``close()`` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.rt.is_closed()
    }

    /// This node.
    #[getter]
    fn identity(&self) -> PyResult<PyNodeIdentity> {
        self.rt()?.identity().py().map(PyNodeIdentity)
    }

    /// The config in force.
    #[getter]
    fn config(&self) -> PyResult<PyRoutingConfig> {
        self.rt()?.config().py().map(PyRoutingConfig)
    }

    /// Replaces the config (validated; the cache capacity is fixed).
    fn update_config(&self, config: &PyRoutingConfig) -> PyResult<()> {
        self.rt()?.update_config(config.0.clone()).py()
    }

    /// Cache only: a recent ReadyRoute or None. Never blocks.
    fn lookup_cached(&self, kind: &str, id: &str) -> PyResult<Option<PyReadyRoute>> {
        Ok(self.rt()?.lookup_cached(kind, id).py()?.map(PyReadyRoute))
    }

    /// `lookup_cached` for many ids of one kind: a list of ReadyRoute or
    /// None, in order. Never blocks.
    fn lookup_cached_many<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let kind: ObjectKind = Arg::get(kind).py()?;
        let rt = self.rt()?;
        let one = |id: &str| -> PyResult<Obj> {
            match rt.lookup_cached(kind, id).py()? {
                Some(route) => new(py, PyReadyRoute(route)),
                None => Ok(py.None()),
            }
        };
        let mut out = Vec::with_capacity(ids.len().unwrap_or(0));
        if let Ok(list) = ids.cast::<PyList>() {
            for id in list.iter() {
                out.push(one(id.extract()?)?);
            }
        } else {
            for id in ids.try_iter()? {
                out.push(one(id?.extract()?)?);
            }
        }
        PyList::new(py, out)
    }

    /// ReadyRoute | Missing | Unavailable | StoreFailure. A cache hit
    /// returns at once; a miss reads the store with the GIL released.
    fn resolve(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<Obj> {
        self.resolve_one(py, Arg::get(kind).py()?, id)
    }

    /// `resolve` for many ids of one kind: a list of results, in order.
    fn resolve_many<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let kind = Arg::get(kind).py()?;
        let mut out = Vec::with_capacity(ids.len().unwrap_or(0));
        if let Ok(list) = ids.cast::<PyList>() {
            for id in list.iter() {
                out.push(self.resolve_one(py, kind, id.extract()?)?);
            }
        } else {
            for id in ids.try_iter()? {
                out.push(self.resolve_one(py, kind, id?.extract()?)?);
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
        let hit = self.rt()?.lookup_cached(kind, id).py()?;
        if let Some(route) = hit {
            return new(py, PyReadyRoute(route)).map(Some);
        }
        let done = move |resolved| {
            Python::attach(|py| {
                let called = match results::resolved(py, resolved) {
                    Ok(value) => callback.call1(py, (value, py.None())),
                    Err(e) => callback.call1(py, (py.None(), e.into_value(py))),
                };
                if let Err(e) = called {
                    e.write_unraisable(py, None);
                }
            });
        };
        self.rt()?.resolve_async(kind, id, done).py()?;
        Ok(None)
    }

    /// Sends a one-way message by global ID: Submitted | NotFound |
    /// ColdActivation | Unavailable | StoreFailure.
    /// `deadline` (ms): how long the call may retry the store (default: the
    /// core's, 5000).
    #[pyo3(signature = (kind, id, payload, *, instance_intent = false, deadline = None))]
    fn send(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        payload: &[u8],
        instance_intent: bool,
        deadline: Option<i64>,
    ) -> PyResult<Obj> {
        let options = request_options(instance_intent, deadline, None).py()?;
        let sent = self.off(py, |rt| rt.send(kind, id, payload, options.send))?;
        results::sent(py, sent)
    }

    /// Sends a request: Submitted (with `correlation`) | NotFound | ... Its
    /// one terminal result comes as a Completion (on_frame, cancel,
    /// on_timeout, shutdown_requests). `timeout` (ms, default: the core's,
    /// 5000): the request ends Timeout this long after it is sent.
    #[pyo3(signature = (kind, id, payload, *, timeout = None, instance_intent = false, deadline = None, origin = None))]
    #[allow(clippy::too_many_arguments)]
    fn request(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        payload: &[u8],
        timeout: Option<i64>,
        instance_intent: bool,
        deadline: Option<i64>,
        origin: Option<&PySpotExecution>,
    ) -> PyResult<Obj> {
        let mut options = request_options(instance_intent, deadline, timeout).py()?;
        options.origin = origin.map(|o| (&o.0).try_into()).transpose().py()?;
        let sent = self.off(py, |rt| rt.request(kind, id, payload, options))?;
        results::sent(py, sent)
    }

    /// Decides what to do with one inbound frame that arrived on the
    /// connection to node `from_node` (its routing ID): Deliver | Relay |
    /// Reject | Ended | Completed | Late | RouteRefreshed | Dropped | Send |
    /// SessionDeliver | Bound | BindRefused | Pushed | RelayRefused | Sealed |
    /// SessionClosed | Ignored | PeerRefused | ForeignSender | Held |
    /// Relocation | OwnershipLost. It never waits on the store (a
    /// relocation's store write runs on the store's I/O; a later
    /// `on_timeout` returns its outcome); the GIL is released for the call.
    fn on_frame(&self, py: Python<'_>, from_node: u64, frame: &[u8]) -> PyResult<Obj> {
        let d = self.off(py, |rt| rt.on_frame(from_node, frame))?;
        hand::decision(py, d)
    }

    /// The runtime's clock now, in nanoseconds: the `now` for `on_timeout`.
    fn now(&self) -> PyResult<u64> {
        self.rt()?.now().py()
    }

    /// The earliest instant (runtime clock, ns) any deadline needs waking
    /// at: a request deadline, a seal or bind timeout, a follow-route
    /// expiry. None when nothing waits.
    fn next_deadline(&self) -> PyResult<Option<u64>> {
        self.rt()?.next_deadline().py()
    }

    /// Runs every deadline due at `now` (ns, default: the runtime's clock
    /// now) and returns the decisions, as `on_frame` does: Completed
    /// (Timeout), SessionClosed then Send, BindRefused ("Timeout"), Send,
    /// Relocation. It never waits on the store (a relocation's owner CAS
    /// or abort fence runs on the store's I/O; a later call returns its
    /// outcome); the GIL is released for the call.
    #[pyo3(signature = (now = None))]
    fn on_timeout(&self, py: Python<'_>, now: Option<u64>) -> PyResult<Vec<Obj>> {
        let ds = self.off(py, |rt| rt.on_timeout(now))?;
        ds.into_iter().map(|d| hand::decision(py, d)).collect()
    }

    /// Reports whether a notification from a Relay was sent.
    fn notice_settled(&self, token: &PyNoticeToken, sent: bool) -> PyResult<()> {
        self.rt()?.notice_settled(Some(&token.0), sent).py()
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
        let error = match error_kind {
            Some(kind) => Some((Arg::get(kind).py()?, code, message)),
            None => None,
        };
        let out = self.rt()?.reply(Some(&operation.0), payload, error).py()?;
        Ok(out.into())
    }

    /// Cancels a pending request: its Completion, or None if it had
    /// already ended (the cancellation is late).
    fn cancel(&self, correlation: u64) -> PyResult<Option<PyCompletion>> {
        let done = self.rt()?.cancel(correlation).py()?;
        Ok(done.and_then(hand::completion))
    }

    /// Ends every pending request with Shutdown.
    fn shutdown_requests(&self) -> PyResult<Vec<PyCompletion>> {
        let done = self.rt()?.shutdown_requests().py()?;
        Ok(done.into_iter().filter_map(hand::completion).collect())
    }

    /// Every metric family, read now (the counters, then the latency
    /// histograms): what `zlink.metrics.ZlinkCollector` hands to
    /// prometheus_client.
    fn metrics(&self) -> PyResult<Vec<PyMetricFamily>> {
        let all = self.rt()?.metrics().py()?;
        Ok(all.into_iter().map(PyMetricFamily).collect())
    }

    /// Every metric in the Prometheus text exposition format.
    fn metrics_text(&self) -> PyResult<String> {
        self.rt()?.metrics_text().py()
    }

    /// Requests waiting for their result.
    fn pending_requests(&self) -> PyResult<usize> {
        self.rt()?.pending_requests().py()
    }

    /// Creates a new incarnation owned by this node, in Creating.
    fn create(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        self.write(py, kind, id, Write::Create)
    }

    /// Publishes this node's Creating object as Ready.
    fn publish_ready(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        self.write(py, kind, id, Write::PublishReady)
    }

    /// Create then publish Ready.
    fn activate(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        self.write(py, kind, id, Write::Activate)
    }

    /// Extends this node's owner lease on the object.
    fn renew_lease(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        self.write(py, kind, id, Write::RenewLease)
    }

    /// Starts releasing: the ID resolves Unavailable("Releasing").
    fn begin_release(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<PyOwnedObject> {
        self.write(py, kind, id, Write::BeginRelease)
    }

    /// Completes the release: the ID resolves Missing.
    fn complete_release(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<()> {
        self.off(py, |rt| rt.complete_release(kind, id))
    }

    /// This node's tenure of an object it owns (what a Message Follow route
    /// names, and where an ActorRef points); None if it does not own it.
    fn owner_route_end(&self, kind: &str, id: &str) -> PyResult<Option<PyRouteEnd>> {
        Ok(self
            .rt()?
            .owner_route_end(kind, id)
            .py()?
            .map(PyRouteEnd::from))
    }

    /// Source: starts moving an object this node owns (Ready) to runtime
    /// `target_rid` of this mesh, after the current handler for it ended.
    /// `saved`: the Operations the host accepted and has not run, in queue
    /// order; `state`: the object's application state. From now on nothing
    /// for it is delivered here. Carry every frame of the result's `send`.
    #[pyo3(signature = (kind, id, target_rid, target_generation, *, saved = None, state = <&[u8]>::default()))]
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
        let mut operations = Vec::new();
        if let Some(saved) = saved {
            for op in saved.try_iter()? {
                operations.push(op?.cast::<PyOperation>()?.get().0.clone());
            }
        }
        let count = operations.len();
        // Encoding the Restore copies and checksums the whole state.
        let (target, saved) = ((target_rid, target_generation), move || Ok(operations));
        let started = self.off(py, |rt| {
            rt.begin_relocation(kind, id, target.0, target.1, count, saved, state)
        })?;
        Ok(started.into())
    }

    /// Target: the host built the object from the RelocationRestore's
    /// state. Returns relay-ready for the source (the point of no return);
    /// the object runs here once a later Relocation says Committed.
    fn relocation_restored(&self, kind: &str, id: &str) -> PyResult<Vec<PyOutbound>> {
        self.rt()?.relocation_restored(kind, id).py().map(outbounds)
    }

    /// Abandons a relocation before relay-ready, on the source (its held
    /// work comes back in `deliver`) or on the target (the state could not
    /// be restored). RelocationError("AfterRelayReady") after it.
    fn abort_relocation(&self, py: Python<'_>, kind: &str, id: &str) -> PyResult<Obj> {
        let d = self.rt()?.abort_relocation(kind, id).py()?;
        hand::decision(py, d)
    }

    /// What this node owns for the ID, if anything.
    fn owned(&self, kind: &str, id: &str) -> PyResult<Option<PyOwnedObject>> {
        Ok(self.rt()?.owned(kind, id).py()?.map(Into::into))
    }

    /// Number of objects this node owns.
    fn owned_count(&self) -> PyResult<usize> {
        Ok(self.rt()?.core().py()?.owned_count())
    }

    /// The lifecycle `lease` of `node` ended: drops its cached routes.
    /// Returns the entries removed.
    fn on_owner_lease_invalidated(&self, node: u64, lease: u64) -> PyResult<usize> {
        self.rt()?.on_owner_lease_invalidated(node, lease).py()
    }

    /// A store recovery event reported by the host: clears the cache.
    fn on_store_recovery(&self) -> PyResult<usize> {
        self.rt()?.on_store_recovery().py()
    }

    // ---- sessions (spec §3) -------------------------------------------

    /// Opens a Session owned by this runtime.
    fn open_session(&self, session: u64, generation: u64) -> PyResult<PySessionRef> {
        self.rt()?
            .open_session(session, generation)
            .py()
            .map(PySessionRef::from)
    }

    /// Binds (or rebinds) `session` to Actor `actor` at `location` (the
    /// ActorRef's: a RouteEnd from `owner_route_end`, or an ActorRoute).
    /// Carry the Outbound; the route is stored only by its terminal reply
    /// (`on_frame` -> Bound | BindRefused).
    fn bind(&self, session: u64, actor: &str, location: &Bound<'_, PyAny>) -> PyResult<PyOutbound> {
        let route = actor_route(location)?;
        Ok(self.rt()?.bind(session, ACTOR, actor, route).py()?.into())
    }

    /// The stored binding route of Actor `actor` in `session`, or None.
    fn binding(&self, session: u64, actor: &str) -> PyResult<Option<PyBindingRoute>> {
        let b = self.rt()?.binding(session, ACTOR, actor).py()?;
        Ok(b.map(PyBindingRoute::from))
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
        let sent = self
            .rt()?
            .session_send(session, ACTOR, actor, payload)
            .py()?;
        results::session_sent(py, sent)
    }

    /// The Session's connection closed (`physical`) or the application
    /// ended it: the disconnect notifications to carry.
    #[pyo3(signature = (session, *, physical = true))]
    fn disconnect_session(&self, session: u64, physical: bool) -> PyResult<Vec<PyOutbound>> {
        self.rt()?
            .disconnect_session(session, physical)
            .py()
            .map(outbounds)
    }

    /// Pushes `payload` from Actor `actor` to the bound `session`; None if
    /// no such binding is registered here.
    fn push(
        &self,
        actor: &str,
        session: &PySessionRef,
        payload: &[u8],
    ) -> PyResult<Option<PyOutbound>> {
        let session = (&session.0).try_into().py()?;
        let pushed = self.rt()?.push(ACTOR, actor, &session, payload).py()?;
        Ok(pushed.map(Into::into))
    }

    /// Sessions bound to Actor `actor` here.
    fn bound_sessions(&self, actor: &str) -> PyResult<Vec<PyRegistration>> {
        let bound = self.rt()?.bound_sessions(ACTOR, actor).py()?;
        Ok(bound.into_iter().map(Into::into).collect())
    }

    /// Drops every binding of Actor `actor` here.
    fn forget_bindings(&self, actor: &str) -> PyResult<()> {
        self.rt()?.forget_bindings(ACTOR, actor).py()
    }

    /// After a lease renewal: a command 44 refresh to every bound Session.
    fn refresh_session_routes(&self, actor: &str) -> PyResult<Vec<PyOutbound>> {
        self.rt()?
            .refresh_session_routes(ACTOR, actor)
            .py()
            .map(outbounds)
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
        let d = self.off(py, |rt| rt.publish_descriptor(endpoint, security_identity))?;
        Ok(d.into())
    }

    /// Registers a manually configured endpoint (an intent only).
    fn add_manual_peer(&self, endpoint: &str) -> PyResult<()> {
        self.rt()?.add_manual_peer(endpoint).py()
    }

    /// Looks up every manual endpoint's descriptor (GIL released): the
    /// replacements to perform now.
    fn connect_manual_peers(&self, py: Python<'_>) -> PyResult<Vec<PyPeerReplacement>> {
        let now = self.off(py, |rt| rt.connect_manual_peers())?;
        Ok(now.into_iter().map(Into::into).collect())
    }

    /// Registers `endpoint` if needed and looks its descriptor up (GIL
    /// released): a replacement to perform now, or None.
    fn ensure_manual_peer(
        &self,
        py: Python<'_>,
        endpoint: &str,
    ) -> PyResult<Option<PyPeerReplacement>> {
        let r = self.off(py, |rt| rt.ensure_manual_peer(endpoint))?;
        Ok(r.map(Into::into))
    }

    /// The transport connected `endpoint`; its handshake showed `rid`.
    fn peer_opened(&self, endpoint: &str, rid: u64) -> PyResult<()> {
        self.rt()?.peer_opened(endpoint, rid).py()
    }

    /// The transport confirmed `endpoint` closed: a waiting replacement is
    /// installed now and returned.
    fn peer_closed(&self, endpoint: &str) -> PyResult<Option<PyPeerReplacement>> {
        Ok(self.rt()?.peer_closed(endpoint).py()?.map(Into::into))
    }

    /// The intent, observed routing ID and close state of `endpoint`.
    fn peer_intent(&self, endpoint: &str) -> PyResult<Option<PyPeerIntent>> {
        Ok(self.rt()?.peer_intent(endpoint).py()?.map(Into::into))
    }

    /// Where to reach node `rid`, only through an installed descriptor.
    fn peer_endpoint(&self, rid: u64) -> PyResult<Option<String>> {
        self.rt()?.peer_endpoint(rid).py()
    }

    /// `on_frame` behind a manual peer connection's admission fence:
    /// PeerRefused unless the connection carries an installed descriptor,
    /// is open with its routing ID, and the sender's lifecycle matches.
    fn on_peer_frame(&self, py: Python<'_>, endpoint: &str, frame: &[u8]) -> PyResult<Obj> {
        let d = self.off(py, |rt| rt.on_peer_frame(endpoint, frame))?;
        hand::decision(py, d)
    }

    /// Every counter, read now, as a dict of the bridge's one list: the
    /// top-level counters, then one dict per group.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let counters = self.rt()?.stats().py()?;
        for c in counters {
            if c.group.is_empty() {
                d.set_item(c.name, c.value)?;
                continue;
            }
            let group = match d.get_item(c.group)? {
                Some(g) => g.cast_into::<PyDict>()?,
                None => {
                    let g = PyDict::new(py);
                    d.set_item(c.group, &g)?;
                    g
                }
            };
            group.set_item(c.name, c.value)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let me = self.rt()?.identity().py()?;
        Ok(format!(
            "Runtime(mesh={:?}, rid={}, generation={})",
            me.mesh.as_str(),
            me.rid,
            me.generation
        ))
    }
}
