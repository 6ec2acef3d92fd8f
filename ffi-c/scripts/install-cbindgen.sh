#!/usr/bin/env bash
# Installs the pinned cbindgen into target/tools (not on PATH, not global), so
# every machine generates include/zlink.h with the same generator. Prints the
# binary's path on stdout. Quick no-op when that version is already there.
set -euo pipefail

CBINDGEN_VERSION="0.29.4"
root="$(cd "$(dirname "$0")/../.." && pwd)"
tools="${CARGO_TARGET_DIR:-$root/target}/tools/cbindgen-$CBINDGEN_VERSION"
bin="$tools/bin/cbindgen"

if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -qx "cbindgen $CBINDGEN_VERSION"; then
    echo "$bin"
    exit 0
fi
echo "installing cbindgen $CBINDGEN_VERSION into $tools" >&2
"${CARGO:-cargo}" install cbindgen --version "$CBINDGEN_VERSION" --locked --root "$tools" >&2
echo "$bin"
