#!/usr/bin/env bash
# make test-c: the C tests of libzlink. Builds the debug library, installs
# it into a temporary PREFIX, compiles every tests/c/*.c with
# -std=c11 -Wall -Wextra -Werror against the installed header (through
# pkg-config), links each once against libzlink.so and once against
# libzlink.a, and runs both under valgrind (memcheck, leaks are errors).
# wire_vectors.c gets the golden vectors' directory, testdata/wire;
# scenarios.c the scenario suite's, testdata/scenarios.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT

PROFILE=debug bash "$root/ffi-c/scripts/install.sh" "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags=(-std=c11 -Wall -Wextra -Werror -g $(pkg-config --cflags zlink))
CC="${CC:-cc}"

valgrind_run() {
    valgrind --quiet --error-exitcode=1 --leak-check=full --show-leak-kinds=definite,possible \
        --errors-for-leak-kinds=definite,possible --suppressions="$here/valgrind.supp" "$@"
}

status=0
for src in "$here"/c/*.c; do
    name="$(basename "$src" .c)"
    "$CC" "${cflags[@]}" "$src" -o "$prefix/$name-shared" \
        $(pkg-config --libs zlink) -Wl,-rpath,"$prefix/lib" -pthread
    "$CC" "${cflags[@]}" "$src" -o "$prefix/$name-static" \
        "$prefix/lib/libzlink.a" $(pkg-config --libs-only-l --static zlink | sed 's/-lzlink//') -pthread
    # Runners of the repository's test data get its directory.
    args=()
    case "$name" in
        wire_vectors) args=("$root/testdata/wire") ;;
        scenarios) args=("$root/testdata/scenarios") ;;
    esac
    for variant in shared static; do
        echo "== $name ($variant, valgrind)"
        if ! valgrind_run "$prefix/$name-$variant" "${args[@]}"; then
            echo "FAILED: $name ($variant)"
            status=1
        fi
    done
done
# The example host must keep building and running.
"$CC" "${cflags[@]}" "$root/examples/c/host.c" -o "$prefix/host" \
    $(pkg-config --libs zlink) -Wl,-rpath,"$prefix/lib"
echo "== examples/c/host.c (valgrind)"
valgrind_run "$prefix/host" >/dev/null || { echo "FAILED: examples/c/host.c"; status=1; }
exit $status
