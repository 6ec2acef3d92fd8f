//! zlink-bridge: the host surface of the routing core, once (DESIGN §2,
//! §6). Every binding (the C ABI in `ffi-c`, Python in `bindings-python`,
//! the JVM in `bindings-jvm`, Node in `bindings-node`) is a thin
//! translation of this crate: it reads its language's arguments, calls
//! [`Runtime`], and builds its language's values from its results (the
//! [`surface`] types: encoded by [`encode`] for the JVM and Node, pyo3
//! classes for Python, C structs; the flat [`decision`] results on C's
//! cache-hit path) or reports an [`Error`] by its [`ErrorKind`]. No input rule, error mapping, decision
//! flattening, counter naming, log queue or lifecycle rule is written in a
//! binding.
//!
//! - [`codes`]: the closed sets hosts match on, with stable numbers and
//!   names (the C header's enums are generated from them);
//! - [`error`]: every error's kind, family and C result code;
//! - [`surface`]: every result and decision as the hosts see it (records
//!   and unions, written once; `zlink-schema` generates each managed
//!   language's types and decoder from it);
//! - [`decision`]: the flat form of the three call results C copies;
//! - [`encode`]: those results as bytes, for hosts that decode them in
//!   their own language (the JVM, Node); [`decode`]: what those hosts give
//!   back (an operation, a notification token), read again;
//! - [`args`]: host arguments and their checks;
//! - [`config`], [`stats`]: the config as numbers, the counters as a list;
//! - [`logs`]: the one log queue;
//! - [`lifecycle`]: the fork rule and use after close for hosts that hold
//!   objects; [`handles`]: the same for hosts that hold them by number; [`setup`]: clocks, stores, identities;
//! - [`runtime`]: every operation.

pub mod args;
pub mod codes;
pub mod config;
pub mod decision;
pub mod decode;
pub mod encode;
pub mod error;
pub mod handles;
pub mod lifecycle;
pub mod logs;
pub mod metrics;
pub mod near;
pub mod runtime;
pub mod setup;
pub mod stats;
pub mod surface;

pub use decision::{Resolved, Sent, SessionSent};
pub use error::{Code, Error, ErrorKind, Family, Result};
pub use runtime::{Answer, Options, Runtime, Write};
pub use setup::{Clock, Store};
/// The core and the Redis store, as the bindings reach them: every binding
/// depends on this crate alone.
pub use zlink_core as core;
/// The Redis Location Store (`zlink-redis`).
pub use zlink_redis as redis;
