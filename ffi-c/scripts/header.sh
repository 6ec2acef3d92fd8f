#!/usr/bin/env bash
# Regenerates include/zlink.h with the pinned cbindgen. With --check, fails
# (and shows the diff) when the checked-in header differs from what the
# sources generate, and leaves the header alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cbindgen="$(bash ffi-c/scripts/install-cbindgen.sh)"
fresh="$(mktemp)"
trap 'rm -f "$fresh"' EXIT
# cbindgen reads the crate macro-expanded (rustc -Zunpretty=expanded, which
# stable rustc allows under RUSTC_BOOTSTRAP=1, set for this command only),
# in a target directory of its own so the builds' artifacts stay as they are.
RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}/cbindgen-expand" \
    "$cbindgen" --quiet --config ffi-c/cbindgen.toml --crate zlink-ffi --output "$fresh" ffi-c
if [[ "${1:-}" == "--check" ]]; then
    if ! diff -u include/zlink.h "$fresh"; then
        echo "include/zlink.h is stale: run 'make header' and commit it" >&2
        exit 1
    fi
    echo "header: include/zlink.h is up to date"
else
    cp "$fresh" include/zlink.h
    echo "header: wrote include/zlink.h"
fi
