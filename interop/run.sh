#!/usr/bin/env bash
# make interop: one redis-server on a free loopback port and one host process
# per language (Java, Python, Node, C, Rust, in that routing-ID order), driven
# by interop/coordinator.py: an Actor activated on the Java host moves
# Java -> Python -> Node -> C -> Rust while every host sends it messages and
# requests and the Node host relays a bound Session's messages to it. Prints a
# table per language; exits non-zero if anything was lost or duplicated, a
# request did not end exactly once, or a host failed. docs/interop.md.
#
# What it needs built, and builds when missing (make test builds all of it
# before, so then nothing is rebuilt here but the two cargo targets, which
# are up to date):
#   - cargo build -p zlink-ffi -p zlink-cli (debug): libzlink.so for the C
#     host (compiled here with gcc) and the Rust host; always run (no-op when
#     fresh);
#   - the Python wheel in target/wheels-zlink (bindings-python/scripts/test.sh
#     with ZLINK_BUILD_ONLY=1), installed into target/interop/venv;
#   - the Node addon bindings-node/zlink.linux-x64-gnu.node (npx napi build,
#     as bindings-node/scripts/test.sh does); INTEROP_NODE_PACKAGE names
#     another built copy of the package to use instead (the working tree's
#     lib/ and addon must match);
#   - the jar io.zlink:zlink:0.1.0 in ~/.m2 (bindings-jvm/scripts/test.sh
#     with ZLINK_JVM_BUILD_ONLY=1); interop/java is packaged by Maven.
# INTEROP_TIMEOUT (seconds, default 120) bounds the run itself.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
redis_pid=""
cleanup() {
    if [[ -n "$redis_pid" ]]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "interop: $*" >&2; }

# -- build what is missing ------------------------------------------------------
log "building the Rust host and libzlink (cargo, debug)"
cargo build -q -p zlink-ffi -p zlink-cli
gcc -std=c11 -O1 -Wall -Wextra -Werror -I"$root/include" "$here/c/host.c" \
    -L"$target/debug" -lzlink -Wl,-rpath,"$target/debug" -o "$work/c-host"

shopt -s nullglob
wheels=("$target"/wheels-zlink/zlink-*.whl)
if (( ${#wheels[@]} == 0 )); then
    log "no Python wheel yet: building it (bindings-python/scripts/test.sh, build only)"
    ZLINK_BUILD_ONLY=1 bash "$root/bindings-python/scripts/test.sh"
    wheels=("$target"/wheels-zlink/zlink-*.whl)
fi
venv="$target/interop/venv"
if [[ ! -x "$venv/bin/python" ]]; then python3 -m venv "$venv"; fi
stamp="$(stat -c '%Y %s' "${wheels[0]}")"
if [[ "$(cat "$venv/wheel-stamp" 2>/dev/null)" != "$stamp" ]]; then
    "$venv/bin/pip" install -q --no-deps --force-reinstall "${wheels[0]}"
    echo "$stamp" > "$venv/wheel-stamp"
fi

if [[ ! -f "$root/bindings-node/zlink.linux-x64-gnu.node" ]]; then
    log "no Node addon yet: building it (npx napi build, as bindings-node/scripts/test.sh)"
    (cd "$root/bindings-node" && npm ci --no-audit --no-fund --loglevel=error \
        && npx napi build --platform --release --target-dir "$target" --strip >/dev/null)
fi
mkdir -p "$work/node_modules"
ln -s "${INTEROP_NODE_PACKAGE:-$root/bindings-node}" "$work/node_modules/zlink"

if [[ ! -f "$HOME/.m2/repository/io/zlink/zlink/0.1.0/zlink-0.1.0.jar" ]]; then
    log "no io.zlink jar yet: building it (bindings-jvm/scripts/test.sh, build only)"
    ZLINK_JVM_BUILD_ONLY=1 bash "$root/bindings-jvm/scripts/test.sh"
fi
if ! (cd "$here/java" && mvn -B -q -Dstyle.color=never package dependency:build-classpath \
        -Dmdep.outputFile="$work/cp.txt" >"$work/mvn.log" 2>&1); then
    cat "$work/mvn.log" >&2
    exit 1
fi

# -- one redis-server -----------------------------------------------------------
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
done
redis-cli -p "$port" ping >/dev/null || { log "redis-server did not start"; cat "$work/redis.log" >&2; exit 1; }

# -- the run: the coordinator starts the hosts (ROUTING IDs 1..5 in this order) --
# timeout(1) ends the coordinator (and, through it, the hosts) if anything hangs.
timeout --kill-after=5 "${INTEROP_TIMEOUT:-120}" "$venv/bin/python" "$here/coordinator.py" "redis://127.0.0.1:$port" \
    "java=java -cp $here/java/target/classes:$(cat "$work/cp.txt") interop.Host" \
    "python=$venv/bin/python $here/python/host.py" \
    "node=env NODE_PATH=$work/node_modules node $here/node/host.js" \
    "c=$work/c-host" \
    "rust=$target/debug/zlink host"
