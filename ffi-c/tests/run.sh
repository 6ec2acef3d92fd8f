#!/usr/bin/env bash
# make test-c: the C tests of libzlink. Builds the debug library, installs
# it into a temporary PREFIX, compiles every tests/c/*.c with
# -std=c11 -Wall -Wextra -Werror against the installed header (through
# pkg-config), links each once against libzlink.so and once against
# libzlink.a, and runs both under valgrind (memcheck, leaks are errors).
# wire_vectors.c gets the golden vectors' directory, testdata/wire;
# scenarios.c the scenario suite's, testdata/scenarios. failover/failover.c
# runs apart (see below).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
prefix="$(mktemp -d)"
redis_pid=""
cleanup() {
    if [[ -n "$redis_pid" ]]; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
    rm -rf "$prefix"
}
trap cleanup EXIT

# The Redis store tests' server (ZLINK_TEST_REDIS_URL): a redis-server of
# this script's own on a free loopback port, never the package's default
# one. Without redis-server (make deps installs it) those tests skip their
# live part.
if command -v redis-server >/dev/null; then
    redis_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$prefix" >"$prefix/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 200); do
        redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
        sleep 0.05
    done
    export ZLINK_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
fi

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
# Issue 27's failover scenario on a real Sentinel group and Cluster, driven
# by the testkit's failover kit; shared library only and without valgrind,
# as it depends on store timeouts of a few hundred milliseconds.
if command -v redis-server >/dev/null; then
    cargo build -q -p zlink-testkit --bin zlink-failover
    "$CC" "${cflags[@]}" "$here/failover/failover.c" -o "$prefix/failover" \
        $(pkg-config --libs zlink) -Wl,-rpath,"$prefix/lib"
    echo "== failover (shared)"
    "$prefix/failover" "${CARGO_TARGET_DIR:-$root/target}/debug/zlink-failover" \
        || { echo "FAILED: failover"; status=1; }
fi
# The example host must keep building and running.
"$CC" "${cflags[@]}" "$root/examples/c/host.c" -o "$prefix/host" \
    $(pkg-config --libs zlink) -Wl,-rpath,"$prefix/lib"
echo "== examples/c/host.c (valgrind)"
valgrind_run "$prefix/host" >/dev/null || { echo "FAILED: examples/c/host.c"; status=1; }
exit $status
