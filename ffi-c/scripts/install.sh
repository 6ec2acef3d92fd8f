#!/usr/bin/env bash
# make install PREFIX=...: builds libzlink and lays out
#   $PREFIX/lib/libzlink.so, $PREFIX/lib/libzlink.a,
#   $PREFIX/include/zlink.h, $PREFIX/lib/pkgconfig/zlink.pc
# PROFILE=debug installs the debug build (the C tests use it); default release.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="${1:?usage: install.sh PREFIX}"
profile="${PROFILE:-release}"
cd "$root"
if [[ "$profile" == "release" ]]; then
    "${CARGO:-cargo}" build -q --release -p zlink-ffi
else
    "${CARGO:-cargo}" build -q -p zlink-ffi
fi
target="${CARGO_TARGET_DIR:-$root/target}/$profile"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
prefix="$(cd "$prefix" && pwd)"
install -m 0755 "$target/libzlink.so" "$prefix/lib/libzlink.so"
install -m 0644 "$target/libzlink.a" "$prefix/lib/libzlink.a"
install -m 0644 include/zlink.h "$prefix/include/zlink.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" ffi-c/zlink.pc.in \
    > "$prefix/lib/pkgconfig/zlink.pc"
echo "installed libzlink $version ($profile) into $prefix"
