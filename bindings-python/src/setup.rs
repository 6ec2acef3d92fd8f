//! What a Runtime is built from: identity, config, clock, store.

use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use zlink_bridge::codes::WriteAcksMode;
use zlink_bridge::core::{NodeIdentity, RoutingConfig};
use zlink_bridge::redis::WriteAcks;
use zlink_bridge::setup::RedisFields;
use zlink_bridge::{Clock, Store, config, setup};

use crate::errors::Raise;

record! {
    /// Who a runtime is: mesh, routing ID, node generation, owner lease generation.
    "NodeIdentity" PyNodeIdentity(NodeIdentity as me) [hash] {
        mesh: me.mesh.as_str(),
        rid: me.rid.get(),
        generation: me.generation.get(),
        lease: me.lease.get(),
    }
    {
        #[new]
        #[pyo3(signature = (mesh, rid, generation = 1, lease = 1))]
        fn new(mesh: &str, rid: u64, generation: u64, lease: u64) -> PyResult<Self> {
            setup::identity(mesh, rid, generation, lease).py().map(PyNodeIdentity)
        }
    }
}

/// The routing settings; durations in milliseconds. Validated on creation.
#[pyclass(name = "RoutingConfig", module = "zlink", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyRoutingConfig(pub(crate) RoutingConfig);

/// `RoutingConfig(...)` and its getters, one per field of the bridge's
/// `config::FIELDS`, in that order.
macro_rules! routing_config {
    ($($field:ident = $default:tt),* $(,)?) => {
        #[pymethods]
        impl PyRoutingConfig {
            #[new]
            #[pyo3(signature = (*, $($field = $default),*))]
            #[allow(clippy::too_many_arguments)]
            fn new($($field: i64),*) -> PyResult<Self> {
                config::from_values([$(i128::from($field)),*]).py().map(PyRoutingConfig)
            }

            $(
                #[getter]
                fn $field(&self) -> u64 {
                    let mut names = config::FIELDS.iter().map(|(name, _)| *name);
                    let i = names.position(|name| name == stringify!($field));
                    i.map_or(0, |i| config::values(&self.0)[i])
                }
            )*

            fn __repr__(&self) -> String {
                config::describe("RoutingConfig", &self.0)
            }

            /// A copy with the fields named changed (as `dataclasses.replace`):
            /// `rt.update_config(rt.config.replace(route_cache_max_age=5_000))`
            /// changes one setting and keeps the others in force. Validated
            /// as `RoutingConfig(...)` is; an unknown name is a `TypeError`.
            #[pyo3(signature = (**changes))]
            fn replace(&self, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut values = config::values(&self.0).map(i128::from);
                for (name, value) in changes.into_iter().flatten() {
                    let name: String = name.extract()?;
                    let i = config::FIELDS
                        .iter()
                        .position(|(field, _)| *field == name)
                        .ok_or_else(|| {
                            PyTypeError::new_err(format!(
                                "RoutingConfig.replace() got an unexpected keyword argument '{name}'"
                            ))
                        })?;
                    values[i] = i128::from(value.extract::<i64>()?);
                }
                config::from_values(values).py().map(PyRoutingConfig)
            }

            /// The core's default config: the defaults above must equal it
            /// (checked by the tests).
            #[staticmethod]
            fn _core_default() -> Self {
                PyRoutingConfig(RoutingConfig::default())
            }
        }
    };
}

routing_config!(
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
);

/// The operating system's monotonic clock.
#[pyclass(name = "SystemClock", module = "zlink", frozen)]
pub(crate) struct PySystemClock(pub(crate) Clock);

#[pymethods]
impl PySystemClock {
    #[new]
    fn new() -> Self {
        PySystemClock(Clock::system())
    }
    fn now_ms(&self) -> u64 {
        self.0.now_ns() / 1_000_000
    }
    fn __repr__(&self) -> &'static str {
        "SystemClock()"
    }
}

/// A clock that moves only when told to (tests). Share one between the
/// runtimes and the MemoryStore of a test.
#[pyclass(name = "ManualClock", module = "zlink", frozen)]
pub(crate) struct PyManualClock(pub(crate) Clock);

#[pymethods]
impl PyManualClock {
    #[new]
    fn new() -> Self {
        PyManualClock(Clock::manual())
    }
    /// Moves time forward by `ms` milliseconds.
    fn advance(&self, ms: u64) -> PyResult<()> {
        self.0.advance(ms).py()
    }
    fn now_ms(&self) -> u64 {
        self.0.now_ns() / 1_000_000
    }
    fn __repr__(&self) -> String {
        format!("ManualClock(now_ms={})", self.now_ms())
    }
}

/// A clock argument: either kind.
pub(crate) fn clock_of(obj: &Bound<'_, PyAny>) -> PyResult<Clock> {
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
pub(crate) struct PyMemoryStore(Store);

#[pymethods]
impl PyMemoryStore {
    #[new]
    #[pyo3(signature = (clock = None, *, tombstone_retention = None))]
    fn new(clock: Option<&Bound<'_, PyAny>>, tombstone_retention: Option<u64>) -> PyResult<Self> {
        let clock = clock.map(clock_of).transpose()?;
        let retention = tombstone_retention.map(Duration::from_millis);
        Ok(PyMemoryStore(Store::memory(clock.as_ref(), retention)))
    }
    fn __repr__(&self) -> &'static str {
        "MemoryStore()"
    }
}

/// A Location Store on Redis, a Redis Cluster or a Sentinel-managed Redis
/// (`redis+sentinel://h1:p1,h2:p2/master-name`). Connects on creation
/// (blocking, GIL released); timeouts in milliseconds.
#[pyclass(name = "RedisStore", module = "zlink", frozen)]
pub(crate) struct PyRedisStore {
    store: Store,
    url: String,
}

#[pymethods]
impl PyRedisStore {
    #[new]
    #[pyo3(signature = (url, *, prefix = None, connect_timeout = None, response_timeout = None, epoch_check_interval = None, tombstone_retention = None, thread_connections = None, write_acks = None, write_ack_timeout = None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option.
    fn new(
        py: Python<'_>,
        url: &str,
        prefix: Option<&str>,
        connect_timeout: Option<u64>,
        response_timeout: Option<u64>,
        epoch_check_interval: Option<u64>,
        tombstone_retention: Option<u64>,
        thread_connections: Option<usize>,
        write_acks: Option<&Bound<'_, PyAny>>,
        write_ack_timeout: Option<u64>,
    ) -> PyResult<Self> {
        let options = RedisFields {
            prefix,
            connect_timeout,
            response_timeout,
            epoch_check_interval,
            tombstone_retention,
            thread_connections,
            write_acks: write_acks.map(write_acks_of).transpose()?,
            write_ack_timeout,
        }
        .options();
        let store = py.detach(|| Store::redis(url, options)).py()?;
        Ok(PyRedisStore {
            store,
            url: url.to_owned(),
        })
    }
    fn __repr__(&self) -> String {
        format!("RedisStore({:?})", self.url)
    }
}

/// `write_acks=`: `"all_replicas"`, `"primary_only"` or an `int`, that many
/// replicas (the bridge checks the name and the count).
fn write_acks_of(value: &Bound<'_, PyAny>) -> PyResult<WriteAcks> {
    if let Ok(name) = value.cast::<PyString>() {
        return setup::write_acks(name.to_str()?, 0).py();
    }
    // A bool is an int to Python, but `write_acks=True` is no count.
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        return setup::write_acks(WriteAcksMode::Replicas, value.extract::<i64>()?).py();
    }
    Err(PyTypeError::new_err(format!(
        "write_acks must be \"all_replicas\", \"primary_only\" or an int (a number of \
         replicas), got {}",
        value.get_type().name()?
    )))
}

/// A store argument: either kind.
pub(crate) fn store_of(
    obj: &Bound<'_, PyAny>,
) -> PyResult<std::sync::Arc<dyn zlink_bridge::core::LocationStore>> {
    if let Ok(s) = obj.cast::<PyMemoryStore>() {
        return s.get().0.get().py();
    }
    if let Ok(s) = obj.cast::<PyRedisStore>() {
        return s.get().store.get().py();
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "store must be a zlink.MemoryStore or zlink.RedisStore",
    ))
}
