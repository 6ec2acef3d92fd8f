//! The Rust host of the interop run (docs/interop.md).

fn main() {}
