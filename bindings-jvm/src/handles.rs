//! The objects Java holds, as `long` handles of the bridge's registries: a
//! handle of a closed object, of another type or never made here is an
//! `IllegalStateException` naming the Java class, never a use of freed
//! memory; closing waits for calls in flight.

use jni::sys::jlong;
use zlink_bridge::handles::{HandleError, Pinned, Registry};
use zlink_bridge::{Clock, Error, Result, Store};

pub(crate) static RUNTIMES: Registry<zlink_bridge::Runtime> = Registry::new(0x3);
pub(crate) static STORES: Registry<Store> = Registry::new(0x5);
pub(crate) static CLOCKS: Registry<Clock> = Registry::new(0x7);

/// The error for a handle that cannot be used, naming the Java class.
fn refused(e: HandleError, class: &str) -> Error {
    match e {
        HandleError::Invalid | HandleError::Null => Error::closed(class),
        HandleError::Exhausted => e.error(class),
    }
}

/// The live object behind `handle`, pinned for the call.
pub(crate) fn pin<T: Send + Sync>(
    registry: &'static Registry<T>,
    handle: jlong,
    class: &str,
) -> Result<Pinned<'static, T>> {
    registry.get(handle as usize).map_err(|e| refused(e, class))
}

/// Registers `object`; its handle for Java.
pub(crate) fn register<T: Send + Sync>(
    registry: &'static Registry<T>,
    object: T,
    class: &str,
) -> Result<jlong> {
    Ok(registry.register(object, class)? as jlong)
}

/// Unregisters `handle` after the calls in flight: the registry's reference
/// to the object (None if it was closed already: closing twice is allowed).
pub(crate) fn free<T: Send + Sync>(
    registry: &'static Registry<T>,
    handle: jlong,
) -> Option<std::sync::Arc<T>> {
    registry.remove(handle as usize).ok()
}
