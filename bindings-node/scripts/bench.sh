#!/usr/bin/env bash
# make bench: the Node cache-hit bench (bindings-node/bench, tinybench)
# against lru-cache, on the addon built here first (release). Prints median
# ns per lookup and the ratios; never fails on a timing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --target-dir "${CARGO_TARGET_DIR:-$root/target}" --strip >/dev/null
cd bench
npm ci --no-audit --no-fund --loglevel=error
node bench.js
