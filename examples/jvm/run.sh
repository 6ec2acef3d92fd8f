#!/usr/bin/env bash
# The JVM delegation example: builds examples/jvm against the installed
# io.zlink:zlink jar (bindings-jvm/scripts/test.sh installs it), starts a
# redis-server on a free loopback port, runs two JVM processes
# (example.Demo and its child) and prints their tally. Fails unless nothing
# was lost or duplicated and every request ended once. Then, on the same
# redis-server (its own key prefix), two JVM processes again for manual
# object peers (example.PeersDemo, spec §2.3): an endpoint-only intent, the
# descriptor found later, a replacement installed only after the old intent
# closes, frames refused by the admission fence before that. Each step is
# checked; a check that fails makes the run fail.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
redis_pid=""
trap '[[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT

(cd "$here" && mvn -B -q package dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null)
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
done
cp="$here/target/classes:$(cat "$work/cp.txt")"
java -cp "$cp" example.Demo "redis://127.0.0.1:$port"
echo
echo "manual object peers (examples/jvm PeersDemo):"
java -cp "$cp" example.PeersDemo "redis://127.0.0.1:$port"
