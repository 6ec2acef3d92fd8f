#!/usr/bin/env bash
# The cache-hit cost a C host sees: installs the release libzlink into a
# temporary PREFIX, builds ffi-c/benches/c_host.c against it (shared and
# static, -O2) and runs both. Never fails on a timing.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
bash "$root/ffi-c/scripts/install.sh" "$prefix" >/dev/null
CC="${CC:-cc}"
src="$root/ffi-c/benches/c_host.c"
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -I"$prefix/include" "$src" -o "$prefix/c_host-shared" \
    -L"$prefix/lib" -lzlink -Wl,-rpath,"$prefix/lib" -pthread
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -I"$prefix/include" "$src" -o "$prefix/c_host-static" \
    "$prefix/lib/libzlink.a" -pthread -ldl -lm
echo "C host through the installed libzlink (release profile)"
"$prefix/c_host-shared" shared
"$prefix/c_host-static" static
