//! Raising the Python exceptions of `zlink._errors` (a pure-Python module,
//! so `ConfigError` can be both a `ZlinkError` and a `ValueError`) from the
//! bridge's errors: the class is the error's family, `.kind` its kind.

use pyo3::prelude::*;

/// A bridge result as a Python result.
pub(crate) trait Raise<T> {
    /// The value, or the error raised as its family's exception.
    fn py(self) -> PyResult<T>;
}

impl<T> Raise<T> for zlink_bridge::Result<T> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(raise)
    }
}

/// An instance of `zlink._errors.<family>(message, kind[, refusal])`.
pub(crate) fn raise(e: zlink_bridge::Error) -> PyErr {
    Python::attach(|py| {
        let class = py
            .import("zlink._errors")
            .and_then(|m| m.getattr(e.family.name()));
        let made = class.and_then(|cls| match e.family {
            zlink_bridge::Family::Relocation => cls.call1((&e.message, e.kind.name(), e.refusal)),
            _ => cls.call1((&e.message, e.kind.name())),
        });
        match made {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    })
}
