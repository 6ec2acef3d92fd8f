//! What a Runtime is built from: identity, config, clock, store.

use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use zlink_core::{
    Clock, LocationStore, MeshName, NodeGeneration, NodeIdentity, NodeRid, OwnerLeaseGeneration,
    RedisOptions, RoutingConfig,
};

use crate::errors;
use crate::fork::ForkBound;

/// Who a runtime is: mesh, routing ID, node generation, owner lease generation.
#[pyclass(name = "NodeIdentity", module = "zlink", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PyNodeIdentity(pub(crate) NodeIdentity);

#[pymethods]
impl PyNodeIdentity {
    #[new]
    #[pyo3(signature = (mesh, rid, generation = 1, lease = 1))]
    fn new(mesh: &str, rid: u64, generation: u64, lease: u64) -> PyResult<Self> {
        let mesh = MeshName::new(mesh).map_err(|e| errors::input(&e))?;
        Ok(PyNodeIdentity(NodeIdentity {
            mesh,
            rid: NodeRid(rid),
            generation: NodeGeneration(generation),
            lease: OwnerLeaseGeneration(lease),
        }))
    }

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
    #[getter]
    fn lease(&self) -> u64 {
        self.0.lease.get()
    }
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("mesh", "rid", "generation", "lease")
    }
    fn __repr__(&self) -> String {
        format!(
            "NodeIdentity(mesh={:?}, rid={}, generation={}, lease={})",
            self.0.mesh.as_str(),
            self.0.rid,
            self.0.generation,
            self.0.lease
        )
    }
}

fn ms(field: &str, v: i64) -> PyResult<Duration> {
    u64::try_from(v).map(Duration::from_millis).map_err(|_| {
        errors::raise(
            "ConfigError",
            "Negative",
            format!("{field} must be >= 0 milliseconds, got {v}"),
        )
    })
}

fn count<T: TryFrom<i64>>(field: &str, v: i64) -> PyResult<T> {
    T::try_from(v).map_err(|_| {
        errors::raise(
            "ConfigError",
            "OutOfRange",
            format!("{field} is out of range: {v}"),
        )
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The routing settings; durations in milliseconds. Validated on creation.
#[pyclass(name = "RoutingConfig", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRoutingConfig(pub(crate) RoutingConfig);

#[pymethods]
impl PyRoutingConfig {
    #[new]
    #[pyo3(signature = (
        *,
        route_cache_max_age = 15_000,
        message_follow_duration = 30_000,
        max_follow_hops = 8,
        session_relocation_seal_timeout = 10_000,
        session_bind_timeout = 10_000,
        route_cache_capacity = 1_000_000,
        owner_lease_duration = 30_000,
        store_timeout = 2_000,
        store_attempts = 3,
        max_object_id_bytes = 1024,
        max_message_bytes = 1_048_576,
        relocation_timeout = 5_000,
        max_relocation_state_bytes = 16_777_216,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        route_cache_max_age: i64,
        message_follow_duration: i64,
        max_follow_hops: i64,
        session_relocation_seal_timeout: i64,
        session_bind_timeout: i64,
        route_cache_capacity: i64,
        owner_lease_duration: i64,
        store_timeout: i64,
        store_attempts: i64,
        max_object_id_bytes: i64,
        max_message_bytes: i64,
        relocation_timeout: i64,
        max_relocation_state_bytes: i64,
    ) -> PyResult<Self> {
        let config = RoutingConfig {
            route_cache_max_age: ms("route_cache_max_age", route_cache_max_age)?,
            message_follow_duration: ms("message_follow_duration", message_follow_duration)?,
            max_follow_hops: count("max_follow_hops", max_follow_hops)?,
            session_relocation_seal_timeout: ms(
                "session_relocation_seal_timeout",
                session_relocation_seal_timeout,
            )?,
            session_bind_timeout: ms("session_bind_timeout", session_bind_timeout)?,
            route_cache_capacity: count("route_cache_capacity", route_cache_capacity)?,
            owner_lease_duration: ms("owner_lease_duration", owner_lease_duration)?,
            store_timeout: ms("store_timeout", store_timeout)?,
            store_attempts: count("store_attempts", store_attempts)?,
            max_object_id_bytes: count("max_object_id_bytes", max_object_id_bytes)?,
            max_message_bytes: count("max_message_bytes", max_message_bytes)?,
            relocation_timeout: ms("relocation_timeout", relocation_timeout)?,
            max_relocation_state_bytes: count(
                "max_relocation_state_bytes",
                max_relocation_state_bytes,
            )?,
        };
        config.validate().map_err(|e| errors::config(&e))?;
        Ok(PyRoutingConfig(config))
    }

    #[getter]
    fn route_cache_max_age(&self) -> u64 {
        millis(self.0.route_cache_max_age)
    }
    #[getter]
    fn message_follow_duration(&self) -> u64 {
        millis(self.0.message_follow_duration)
    }
    #[getter]
    fn max_follow_hops(&self) -> u8 {
        self.0.max_follow_hops
    }
    #[getter]
    fn session_relocation_seal_timeout(&self) -> u64 {
        millis(self.0.session_relocation_seal_timeout)
    }
    #[getter]
    fn session_bind_timeout(&self) -> u64 {
        millis(self.0.session_bind_timeout)
    }
    #[getter]
    fn route_cache_capacity(&self) -> usize {
        self.0.route_cache_capacity
    }
    #[getter]
    fn owner_lease_duration(&self) -> u64 {
        millis(self.0.owner_lease_duration)
    }
    #[getter]
    fn store_timeout(&self) -> u64 {
        millis(self.0.store_timeout)
    }
    #[getter]
    fn store_attempts(&self) -> u32 {
        self.0.store_attempts
    }
    #[getter]
    fn max_object_id_bytes(&self) -> usize {
        self.0.max_object_id_bytes
    }
    #[getter]
    fn max_message_bytes(&self) -> usize {
        self.0.max_message_bytes
    }
    #[getter]
    fn relocation_timeout(&self) -> u64 {
        millis(self.0.relocation_timeout)
    }
    #[getter]
    fn max_relocation_state_bytes(&self) -> usize {
        self.0.max_relocation_state_bytes
    }
    fn __repr__(&self) -> String {
        let c = &self.0;
        format!(
            "RoutingConfig(route_cache_max_age={}, message_follow_duration={}, max_follow_hops={}, \
             session_relocation_seal_timeout={}, session_bind_timeout={}, route_cache_capacity={}, \
             owner_lease_duration={}, \
             store_timeout={}, store_attempts={}, max_object_id_bytes={}, max_message_bytes={}, \
             relocation_timeout={}, max_relocation_state_bytes={})",
            millis(c.route_cache_max_age),
            millis(c.message_follow_duration),
            c.max_follow_hops,
            millis(c.session_relocation_seal_timeout),
            millis(c.session_bind_timeout),
            c.route_cache_capacity,
            millis(c.owner_lease_duration),
            millis(c.store_timeout),
            c.store_attempts,
            c.max_object_id_bytes,
            c.max_message_bytes,
            millis(c.relocation_timeout),
            c.max_relocation_state_bytes
        )
    }
}

/// The operating system's monotonic clock.
#[pyclass(name = "SystemClock", module = "zlink", frozen)]
pub(crate) struct PySystemClock(pub(crate) Arc<zlink_core::SystemClock>);

#[pymethods]
impl PySystemClock {
    #[new]
    fn new() -> Self {
        PySystemClock(Arc::new(zlink_core::SystemClock::new()))
    }
    fn now_ms(&self) -> u64 {
        self.0.now().as_millis()
    }
    fn __repr__(&self) -> String {
        "SystemClock()".to_owned()
    }
}

/// A clock that moves only when told to (tests). Share one between the
/// runtimes and the MemoryStore of a test.
#[pyclass(name = "ManualClock", module = "zlink", frozen)]
pub(crate) struct PyManualClock(pub(crate) Arc<zlink_core::ManualClock>);

#[pymethods]
impl PyManualClock {
    #[new]
    fn new() -> Self {
        PyManualClock(Arc::new(zlink_core::ManualClock::new()))
    }
    /// Moves time forward by `ms` milliseconds.
    fn advance(&self, ms: u64) {
        self.0.advance(Duration::from_millis(ms));
    }
    fn now_ms(&self) -> u64 {
        self.0.now().as_millis()
    }
    fn __repr__(&self) -> String {
        format!("ManualClock(now_ms={})", self.0.now().as_millis())
    }
}

/// A clock argument: either kind.
pub(crate) fn clock_of(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn Clock>> {
    if let Ok(c) = obj.cast::<PyManualClock>() {
        return Ok(c.get().0.clone());
    }
    if let Ok(c) = obj.cast::<PySystemClock>() {
        return Ok(c.get().0.clone());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "clock must be a zlink.SystemClock or zlink.ManualClock",
    ))
}

/// The embedded in-memory Location Store; share one between runtimes.
#[pyclass(name = "MemoryStore", module = "zlink", frozen)]
pub(crate) struct PyMemoryStore(pub(crate) ForkBound<Arc<dyn LocationStore>>);

#[pymethods]
impl PyMemoryStore {
    #[new]
    #[pyo3(signature = (clock = None, *, tombstone_retention = 3_600_000))]
    fn new(clock: Option<&Bound<'_, PyAny>>, tombstone_retention: u64) -> PyResult<Self> {
        let store = match clock {
            Some(c) => zlink_core::MemoryStore::with_clock(clock_of(c)?),
            None => zlink_core::MemoryStore::new(),
        };
        let retention = Duration::from_millis(tombstone_retention);
        let store: Arc<dyn LocationStore> = Arc::new(store.with_retention(retention));
        Ok(PyMemoryStore(ForkBound::new(store)))
    }
    fn __repr__(&self) -> String {
        "MemoryStore()".to_owned()
    }
}

/// A Location Store on Redis or a Redis Cluster. Connects on creation
/// (blocking, GIL released); timeouts in milliseconds.
#[pyclass(name = "RedisStore", module = "zlink", frozen)]
pub(crate) struct PyRedisStore {
    pub(crate) store: ForkBound<Arc<dyn LocationStore>>,
    url: String,
}

#[pymethods]
impl PyRedisStore {
    #[new]
    #[pyo3(signature = (url, *, prefix = "zlink", connect_timeout = 2_000, response_timeout = 2_000, epoch_check_interval = 1_000, tombstone_retention = 3_600_000))]
    fn new(
        py: Python<'_>,
        url: &str,
        prefix: &str,
        connect_timeout: u64,
        response_timeout: u64,
        epoch_check_interval: u64,
        tombstone_retention: u64,
    ) -> PyResult<Self> {
        let options = RedisOptions {
            prefix: prefix.to_owned(),
            connect_timeout: Duration::from_millis(connect_timeout),
            response_timeout: Duration::from_millis(response_timeout),
            epoch_check_interval: Duration::from_millis(epoch_check_interval),
            tombstone_retention: Duration::from_millis(tombstone_retention),
        };
        let owned = url.to_owned();
        let store = py
            .detach(move || zlink_core::RedisStore::open_with(&owned, options))
            .map_err(|e| errors::store(&e))?;
        Ok(PyRedisStore {
            store: ForkBound::new(Arc::new(store)),
            url: url.to_owned(),
        })
    }
    fn __repr__(&self) -> String {
        format!("RedisStore({:?})", self.url)
    }
}

/// A store argument: either kind.
pub(crate) fn store_of(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn LocationStore>> {
    if let Ok(s) = obj.cast::<PyMemoryStore>() {
        return s.get().0.get().cloned();
    }
    if let Ok(s) = obj.cast::<PyRedisStore>() {
        return s.get().store.get().cloned();
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "store must be a zlink.MemoryStore or zlink.RedisStore",
    ))
}
