//! `cargo fuzz run decode_frame`: raw bytes as one whole frame (header and body).
//! A decoded frame must re-encode to the same bytes (see `src/lib.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zlink_core_fuzz::decode_frame(data);
});
