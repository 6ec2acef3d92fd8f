#!/usr/bin/env bash
# The Node binding's tests: installs @napi-rs/cli (npm ci), builds the addon
# (release, the workspace's target dir; the loader index.js and index.d.ts
# are generated) and the zlink-failover kit, runs the node:test suite (with
# test/failover.test.js: issue 27's failover on a real Sentinel group and
# Cluster), type-checks lib/index.d.ts and a usage file (tsc --strict),
# then packs the package and installs the tarball into a fresh project that
# uses it (require, ESM named imports, and TypeScript through the exports
# map from an .mts and a .cts file), then runs the example (examples/node:
# two Node processes on a real redis-server, TCP between them).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$here"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --target-dir "$target" --strip >/dev/null
# test/failover.test.js drives a Sentinel group and a Cluster through the
# zlink-failover kit.
(cd "$root" && cargo build -q -p zlink-testkit --bin zlink-failover)
export ZLINK_FAILOVER_KIT="$target/debug/zlink-failover"
node --test test/
npx tsc --noEmit --strict lib/index.d.ts
npx tsc --noEmit --strict --target es2022 --module commonjs --types node test-types/usage.ts
npm pack --silent --pack-destination "$work" >/dev/null
mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$work"/zlink-*.tgz
node -e '
const z = require("zlink");
(async () => {
  const store = new z.MemoryStore();
  const owner = new z.Runtime({ mesh: "main", rid: 1 }, { store });
  const sender = new z.Runtime({ mesh: "main", rid: 2 }, { store });
  await owner.activate("actor", "a");
  const r = await sender.resolve("actor", "a");
  if (r.kind !== "ReadyRoute" || r.node !== 1n) throw new Error("unexpected " + r.kind);
  owner.close(); sender.close();
  console.log("node: the packed zlink package works in a fresh project");
})().catch((e) => { console.error(e); process.exit(1); });'
node --input-type=module -e '
import { Runtime, MemoryStore, InputError, ZlinkError, registerMetrics } from "zlink";
const rt = new Runtime({ mesh: "main", rid: 1 }, { store: new MemoryStore() });
try { rt.lookupCached("actor", ""); } catch (e) { if (!(e instanceof InputError && e instanceof ZlinkError)) throw e; }
if (typeof registerMetrics !== "function") throw new Error("registerMetrics");
rt.close();
console.log("node: ESM named imports of the packed package work");'
cat >check.mts <<'EOF'
import { Runtime, MemoryStore, AbortError, toJSON, type Stats } from 'zlink';
const rt = new Runtime({ mesh: 'main', rid: 1 }, { store: new MemoryStore() });
const stats: Stats = rt.stats();
const relays: number = stats.follow.relays;
const rid: string = toJSON(rt.identity()).rid;
const e: AbortError | null = null;
void relays; void rid; void e;
EOF
cat >check.cts <<'EOF'
import z = require('zlink');
const sessions: number = new z.Runtime({ mesh: 'main', rid: 1 }).stats().tables.sessions;
void sessions;
EOF
"$here/node_modules/.bin/tsc" --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
  --typeRoots "$here/node_modules/@types" --types node check.mts check.cts
bash "$root/examples/node/run.sh"
