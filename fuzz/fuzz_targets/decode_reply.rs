//! `cargo fuzz run decode_reply`: the input as the body of a Reply (command 3) behind a valid header.
//! A decoded frame must re-encode to the same bytes (see `src/lib.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zlink_core_fuzz::decode_reply(data);
});
