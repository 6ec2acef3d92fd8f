//! Helpers shared by integration tests. A test file includes them with
//! `mod common;`.

pub(crate) mod conformance;
