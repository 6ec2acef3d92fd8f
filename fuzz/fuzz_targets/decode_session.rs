//! `cargo fuzz run decode_session`: the first input byte picks a session command (10–16, 42–44), the rest is its body behind a valid header.
//! A decoded frame must re-encode to the same bytes (see `src/lib.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zlink_core_fuzz::decode_session(data);
});
