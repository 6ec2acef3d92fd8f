//! The native module `zlink._zlink` behind the Python package `zlink`
//! (DESIGN §6): pyo3 over zlink-bridge, Rust to Rust. Every rule lives in
//! the bridge; this crate reads Python arguments and builds Python values.
//! The pure-Python package (`python/zlink/`) re-exports it, adds
//! `resolve_async` and the exception classes, and ships the typed stubs.

#[macro_use]
mod values;
mod errors;
mod hand;
mod logs;
mod results;
mod runtime;
mod setup;
mod surface;
mod wire;

use pyo3::prelude::*;

#[pymodule]
fn _zlink(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(logs::_after_fork_in_child, m)?)?;
    m.add_function(wrap_pyfunction!(logs::_log_level, m)?)?;
    m.add_function(wrap_pyfunction!(logs::_log_take, m)?)?;
    m.add_class::<setup::PyNodeIdentity>()?;
    m.add_class::<setup::PyRoutingConfig>()?;
    m.add_class::<setup::PySystemClock>()?;
    m.add_class::<setup::PyManualClock>()?;
    m.add_class::<setup::PyMemoryStore>()?;
    m.add_class::<setup::PyRedisStore>()?;
    m.add_class::<runtime::PyRuntime>()?;
    surface::register(m)?;
    hand::register(m)?;
    results::register(m)?;
    wire::register(m)?;
    Ok(())
}
