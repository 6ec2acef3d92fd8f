//! The C ABI seen from Rust: versions, result texts, the wire codec, the
//! decisions' tagged union, and the counters' struct against the bridge's
//! one list.

use std::ffi::{CStr, c_char};

use zlink::*;
use zlink_bridge::core::wire::DecodeLimits;

#[test]
fn version_constants_follow_the_package_version() {
    let parse = |s: &str| s.parse::<u32>().expect("numeric version");
    assert_eq!(ZLINK_VERSION_MAJOR, parse(env!("CARGO_PKG_VERSION_MAJOR")));
    assert_eq!(ZLINK_VERSION_MINOR, parse(env!("CARGO_PKG_VERSION_MINOR")));
    assert_eq!(ZLINK_VERSION_PATCH, parse(env!("CARGO_PKG_VERSION_PATCH")));
    // SAFETY: `zlink_version` returns a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(zlink_version()) };
    assert_eq!(v.to_str().expect("utf-8"), env!("CARGO_PKG_VERSION"));
}

#[test]
fn the_abi_version_is_the_headers() {
    assert_eq!(zlink_abi_version(), ZLINK_ABI_VERSION);
    let header = include_str!("../../include/zlink.h");
    let line = format!("#define ZLINK_ABI_VERSION {ZLINK_ABI_VERSION}\n");
    assert!(header.contains(&line), "{line}");
}

#[test]
fn a_decision_is_a_tagged_union_freed_once() {
    let identity = zlink_node_identity {
        mesh: c"m".as_ptr(),
        rid: 1,
        generation: 1,
        lease: 1,
    };
    let none = std::ptr::null_mut::<*mut zlink_error>();
    let mut rt: *mut zlink_runtime = std::ptr::null_mut();
    let mut d = std::mem::MaybeUninit::<zlink_decision>::uninit();
    // SAFETY: a valid identity, NULL for the defaults, writable outs; the
    // decision is read once written, freed twice (the second a no-op),
    // then only its tag read; the runtime is freed once.
    unsafe {
        let (config, store, clock) = (std::ptr::null(), std::ptr::null(), std::ptr::null());
        let made = zlink_runtime_new(&identity, config, store, clock, &mut rt, none);
        assert_eq!(made, zlink_result::Ok);
        let frame = b"garbage";
        let r = zlink_on_frame(rt, 2, frame.as_ptr(), frame.len(), d.as_mut_ptr(), none);
        assert_eq!(r, zlink_result::Ok);
        let dropped = match d.assume_init_ref() {
            zlink_decision::Dropped(x) => x,
            other => panic!("{other:?}"),
        };
        assert_eq!(dropped.kind, zlink_wire_error_kind::BadMagic);
        assert_eq!(d.as_ptr().cast::<u32>().read(), 8); // the tag comes first
        let member = std::ptr::from_ref(dropped).cast::<u8>();
        assert_eq!(member.offset_from(d.as_ptr().cast::<u8>()), 8); // then the union
        zlink_decision_free(d.as_mut_ptr());
        assert_eq!(d.as_ptr().cast::<u32>().read(), 0);
        zlink_decision_free(d.as_mut_ptr());
        assert_eq!(zlink_runtime_free(rt, none), zlink_result::Ok);
    }
}

#[test]
fn every_result_code_has_text() {
    for code in 0..28 {
        // SAFETY: static NUL-terminated strings.
        let text = unsafe { CStr::from_ptr(zlink_result_text(code)) };
        assert_ne!(text.to_str(), Ok("unknown zlink_result code"), "{code}");
    }
    // SAFETY: as above.
    let unknown = unsafe { CStr::from_ptr(zlink_result_text(999)) };
    assert_eq!(
        unknown.to_str().expect("utf-8"),
        "unknown zlink_result code"
    );
}

#[test]
fn the_stats_struct_is_the_lists_first_counters_in_order() {
    let header =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../include/zlink.h"))
            .expect("header readable");
    let body = header
        .split("} zlink_stats;")
        .next()
        .and_then(|s| s.rsplit("typedef struct {").next())
        .expect("zlink_stats in the header");
    let fields: Vec<&str> = body
        .lines()
        .filter_map(|l| l.trim().strip_prefix("uint64_t "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    let identity = zlink_bridge::setup::identity("m", 1, 1, 1).expect("identity");
    let rt = zlink_bridge::Runtime::new(identity, Default::default()).expect("runtime");
    let names: Vec<String> = rt
        .stats()
        .expect("stats")
        .iter()
        .map(|c| c.flat_name())
        .collect();
    assert_eq!(fields, names[..zlink_bridge::stats::C_COUNTERS]);
}

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/../testdata/wire/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn decode(bytes: &[u8], limits: Option<&zlink_decode_limits>) -> Result<usize, (u32, String)> {
    let mut out: *mut zlink_frame = std::ptr::null_mut();
    let mut err: *mut zlink_error = std::ptr::null_mut();
    let limits = limits.map_or(std::ptr::null(), |l| l as *const _);
    // SAFETY: a live slice, writable outs.
    let rc = unsafe { zlink_wire_decode(bytes.as_ptr(), bytes.len(), limits, &mut out, &mut err) };
    if rc == zlink_result::Ok {
        assert!(err.is_null());
        return Ok(out as usize);
    }
    assert!(out.is_null(), "out written on failure");
    // SAFETY: a live error from the call above, freed once.
    unsafe {
        assert_eq!(zlink_error_code(err), rc);
        let kind = zlink_error_kind(err);
        let kind = if kind.is_null() {
            String::new()
        } else {
            CStr::from_ptr(kind).to_str().expect("ASCII").to_owned()
        };
        zlink_error_free(err);
        Err((rc as u32, kind))
    }
}

#[test]
fn a_vector_round_trips_and_is_described() {
    let bytes = vector("request_with_reply_route");
    let h = decode(&bytes, None).expect("decodes") as *mut zlink_frame;
    let mut encoded = zlink_bytes::default();
    let mut text = zlink_bytes::default();
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: a live handle and writable outs; each allocation freed once.
    unsafe {
        assert_eq!(
            zlink_frame_encode(h, &mut encoded, std::ptr::null_mut()),
            zlink_result::Ok
        );
        assert_eq!(
            std::slice::from_raw_parts(encoded.data, encoded.len),
            &bytes[..]
        );
        assert_eq!(
            zlink_frame_describe(h, &mut text, std::ptr::null_mut()),
            zlink_result::Ok
        );
        let text_str =
            std::str::from_utf8(std::slice::from_raw_parts(text.data, text.len)).expect("UTF-8");
        assert!(text_str.starts_with("{\"fence\":{"), "{text_str}");
        assert_eq!(
            zlink_frame_command_name(h, &mut name, std::ptr::null_mut()),
            zlink_result::Ok
        );
        assert_eq!(CStr::from_ptr(name).to_str(), Ok("Request"));
        zlink_bytes_free(&mut encoded);
        zlink_bytes_free(&mut text);
        assert_eq!(zlink_frame_free(h, std::ptr::null_mut()), zlink_result::Ok);
        assert_eq!(
            zlink_frame_encode(h, &mut encoded, std::ptr::null_mut()),
            zlink_result::InvalidHandle
        );
        assert!(encoded.data.is_null());
        assert_eq!(
            zlink_frame_free(h, std::ptr::null_mut()),
            zlink_result::InvalidHandle
        );
        assert_eq!(
            zlink_frame_free(std::ptr::null_mut(), std::ptr::null_mut()),
            zlink_result::Ok
        );
    }
}

#[test]
fn decode_errors_carry_their_kind_and_limits_apply() {
    assert_eq!(
        decode(&[], None),
        Err((zlink_result::WireInvalid as u32, "Truncated".to_owned()))
    );
    assert_eq!(
        decode(b"ZM\x02\x01\0\0\0\0\0\0", None),
        Err((zlink_result::WireInvalid as u32, "BadMagic".to_owned()))
    );
    let bytes = vector("request_with_reply_route");
    let tight = zlink_decode_limits {
        max_payload_bytes: 2,
        ..DecodeLimits::default().into()
    };
    assert_eq!(
        decode(&bytes, Some(&tight)),
        Err((zlink_result::WireInvalid as u32, "TooLong".to_owned()))
    );
    let roomy = zlink_decode_limits {
        max_payload_bytes: u64::MAX,
        ..tight
    };
    let h = decode(&bytes, Some(&roomy)).expect("decodes") as *mut zlink_frame;
    // SAFETY: a live handle, freed once.
    let freed = unsafe { zlink_frame_free(h, std::ptr::null_mut()) };
    assert_eq!(freed, zlink_result::Ok);
    // Errors of other codes have their own kinds.
    let mut out: *mut zlink_frame = std::ptr::null_mut();
    let mut err: *mut zlink_error = std::ptr::null_mut();
    // SAFETY: a NULL pointer with a non-zero length is refused unread;
    // the error is read, then freed once.
    unsafe {
        let r = zlink_wire_decode(std::ptr::null(), 3, std::ptr::null(), &mut out, &mut err);
        assert_eq!(r, zlink_result::NullPointer);
        assert!(out.is_null());
        assert_eq!(zlink_error_code(err), zlink_result::NullPointer);
        assert_eq!(
            CStr::from_ptr(zlink_error_kind(err)).to_str(),
            Ok("NullPointer")
        );
        zlink_error_free(err);
    }
    assert_eq!(
        decode(&[], Some(&roomy)).map_err(|(_, k)| k),
        Err("Truncated".to_owned())
    );
}

#[test]
fn default_limits_are_the_core_defaults() {
    let mut l = zlink_decode_limits {
        max_object_id_bytes: 0,
        max_payload_bytes: 0,
        max_state_bytes: 0,
    };
    // SAFETY: a writable struct.
    let r = unsafe { zlink_decode_limits_default(&mut l, std::ptr::null_mut()) };
    assert_eq!(r, zlink_result::Ok);
    let d = DecodeLimits::default();
    assert_eq!(
        (
            l.max_object_id_bytes,
            l.max_payload_bytes,
            l.max_state_bytes
        ),
        (
            d.max_object_id_bytes as u64,
            d.max_payload_bytes as u64,
            d.max_state_bytes as u64
        )
    );
    assert_eq!(
        (
            l.max_object_id_bytes,
            l.max_payload_bytes,
            l.max_state_bytes
        ),
        (1024, 1 << 20, 16 << 20)
    );
}
