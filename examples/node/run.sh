#!/usr/bin/env bash
# The Node example: starts a redis-server on a free loopback port and runs
# two Node processes (demo.js and its child) against the zlink package
# (bindings-node, built by its test script). Fails unless nothing was lost
# or duplicated and every request ended once.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
redis_pid=""
trap '[[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
done
NODE_PATH="$work/modules" bash -c "mkdir -p '$work/modules' && ln -s '$root/bindings-node' '$work/modules/zlink' && node '$here/demo.js' 'redis://127.0.0.1:$port'"
