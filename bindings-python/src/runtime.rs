//! `zlink.Runtime`: one MeshNode's routing core. Cache hits are answered
//! with the GIL held (they never block); anything that may reach the store
//! releases the GIL first.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use zlink_core::wire::{MAX_ERROR_MESSAGE_BYTES, ReplyError, ReplyErrorKind, ReplyResult};
use zlink_core::{
    AuthorityOwnerGeneration, CorrelationId, InputError, NodeRid, ObjectGeneration, ObjectKind,
    OwnerLeaseGeneration, RequestOptions, SendOptions, Stats, WriteFence,
};

use crate::errors;
use crate::fork::ForkBound;
use crate::results::{self, PyNoticeToken, PyOperation, PyOutbound, PyOwnedObject, PyRouteEnd};
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
    #[pyo3(signature = (kind, id, payload, *, timeout = 5_000, instance_intent = false, deadline = 5_000))]
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
    ) -> PyResult<Obj> {
        let kind = kind_of(kind)?;
        let options = RequestOptions {
            send: SendOptions {
                instance_intent,
                deadline: millis("deadline", deadline)?,
            },
            timeout: millis("timeout", timeout)?,
            origin: None,
        };
        let rt = self.rt()?;
        let requested = py
            .detach(|| rt.request(kind, id, payload, options))
            .map_err(|e| errors::input(&e))?;
        results::requested(py, requested)
    }

    /// Decides what to do with one inbound frame: Deliver | Relay | Reject |
    /// Ended | Completed | Late | RouteRefreshed | Dropped | Send |
    /// SessionInbound | PeerRefused. Never blocks.
    fn on_frame(&self, py: Python<'_>, frame: &[u8]) -> PyResult<Obj> {
        let inbound = self.rt()?.on_frame(frame);
        results::inbound(py, inbound)
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

    /// Times out every pending request past its deadline (runtime clock).
    fn expire_requests(&self, py: Python<'_>) -> PyResult<Vec<Obj>> {
        let done = self.rt()?.expire_requests();
        done.into_iter()
            .map(|c| results::completion(py, c))
            .collect()
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

    /// Relocation commit on the target: takes ownership by compare-and-set
    /// on `from_fence` (anything with `object_generation` and
    /// `authority_owner_generation`: a ReadyRoute, RouteFence, OwnedObject).
    fn commit_relocation(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        from_fence: &Bound<'_, PyAny>,
    ) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let fence = WriteFence {
            object_generation: ObjectGeneration(
                from_fence.getattr("object_generation")?.extract()?,
            ),
            authority_owner_generation: AuthorityOwnerGeneration(
                from_fence
                    .getattr("authority_owner_generation")?
                    .extract()?,
            ),
        };
        let rt = self.rt()?;
        py.detach(|| rt.commit_relocation(kind, id, fence))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// This node's tenure of an object it owns (give it to the source of a
    /// relocation after the commit), or None.
    fn owner_route_end(&self, kind: &str, id: &str) -> PyResult<Option<PyRouteEnd>> {
        let kind = kind_of(kind)?;
        self.rt()?
            .owner_route_end(kind, id)
            .map(|end| end.map(PyRouteEnd))
            .map_err(|e| errors::input(&e))
    }

    /// The source's side of a committed relocation with Message Follow.
    fn relinquish_to(
        &self,
        py: Python<'_>,
        kind: &str,
        id: &str,
        destination: &PyRouteEnd,
    ) -> PyResult<PyOwnedObject> {
        let kind = kind_of(kind)?;
        let rt = self.rt()?;
        let end = destination.0;
        py.detach(|| rt.relinquish_to(kind, id, end))
            .map(PyOwnedObject)
            .map_err(|e| errors::lifecycle(&e))
    }

    /// Stops owning locally without a Message Follow route.
    fn relinquish(&self, kind: &str, id: &str) -> PyResult<Option<PyOwnedObject>> {
        let kind = kind_of(kind)?;
        self.rt()?
            .relinquish(kind, id)
            .map(|o| o.map(PyOwnedObject))
            .map_err(|e| errors::input(&e))
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
    d.set_item("sessions", ss)?;
    Ok(d)
}
