#!/usr/bin/env bash
# Installs every artifact of `make dist` into a clean place, as a user
# would, with no Rust toolchain on PATH, and uses it: the wheel in a fresh
# venv; the two npm tarballs (the package, and the platform package with
# the addon) together in a fresh project, imported from CommonJS and from
# an ES module and compiled with tsc, and the package alone, which must
# refuse to load with a message naming the platform package; the jar alone
# on a class path; the C tarball through pkg-config. Fails on the first
# thing that does not work.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$root/dist"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# No cargo, rustc or rustup from here on.
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e cargo -e rustup | paste -sd:)"
export PATH
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
    echo "check-dist: a Rust toolchain is still on PATH" >&2
    exit 1
fi

echo "== Python: the wheel in a fresh venv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$dist"/zlink-"$version"-*.whl
(cd "$work" && "$work/venv/bin/python" - <<'PY'
import zlink
with zlink.Runtime(zlink.NodeIdentity("main", 1)) as rt:
    rt.activate("actor", "user-42")
    match rt.resolve("actor", "user-42"):
        case zlink.ReadyRoute(mesh, node, fence):
            assert node == 1, node
        case other:
            raise SystemExit(f"expected a ReadyRoute, got {other!r}")
    assert "zlink_store_write_duration_seconds_count 2" in rt.metrics_text()
print("python: the wheel resolves", zlink.__version__)
PY
)

echo "== Node: the two tarballs in a fresh project (CommonJS, ES module, tsc)"
npm_version="$(node -p "require('$root/bindings-node/package.json').version")"
npm_main="$dist/zlink-$npm_version.tgz"
npm_platform="$dist/zlink-linux-x64-gnu-$npm_version.tgz"
if tar tzf "$npm_main" | grep '\.node$' >&2; then
    echo "check-dist: $npm_main has an addon inside" >&2
    exit 1
fi
tar tzf "$npm_platform" | grep -qx 'package/zlink.linux-x64-gnu.node' ||
    { echo "check-dist: $npm_platform has no zlink.linux-x64-gnu.node" >&2; exit 1; }
mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
# Both tarballs at once, offline: the platform one is the main one's
# optional dependency, so no registry is asked.
npm install --offline --no-audit --no-fund --loglevel=error "$npm_platform" "$npm_main"
[[ -f node_modules/zlink-linux-x64-gnu/zlink.linux-x64-gnu.node ]] ||
    { echo "check-dist: npm did not install the platform package" >&2; exit 1; }
# A TypeScript service on Node has its types (@types/node) already.
npm install --no-audit --no-fund --loglevel=error "typescript@5" "@types/node@20"
cat > cjs.cjs <<'JS'
const z = require('zlink');
(async () => {
  const rt = new z.Runtime({ mesh: 'main', rid: 1 });
  await rt.activate('actor', 'user-42');
  const r = await rt.resolve('actor', 'user-42');
  if (r.kind !== 'ReadyRoute') throw new Error(`expected a ReadyRoute, got ${r.kind}`);
  rt.close();
  console.log('node (CommonJS): resolves');
})().catch((e) => { console.error(e); process.exit(1); });
JS
cat > esm.mjs <<'JS'
import { Runtime, InputError, ZlinkError, registerMetrics } from 'zlink';
const rt = new Runtime({ mesh: 'main', rid: 1 });
try {
  await rt.resolve('actor', '');
  throw new Error('an empty ID must be refused');
} catch (e) {
  if (!(e instanceof InputError) || !(e instanceof ZlinkError)) throw e;
}
if (typeof registerMetrics !== 'function') throw new Error('registerMetrics is not exported');
rt.close();
console.log('node (ES module): named imports work');
JS
cat > use.ts <<'TS'
import { Runtime, type Resolution } from 'zlink';
async function main(): Promise<void> {
  const rt = new Runtime({ mesh: 'main', rid: 1 });
  await rt.activate('actor', 'user-42');
  const r: Resolution = await rt.resolve('actor', 'user-42');
  if (r.kind === 'ReadyRoute') console.log('node (TypeScript): at node', r.node);
  console.log('store reads', rt.stats().store_reads);
  rt.close();
}
void main();
TS
node cjs.cjs
node esm.mjs
npx tsc --strict --module nodenext --moduleResolution nodenext --target es2022 --outDir out use.ts
node out/use.js
# The main tarball alone (its optional dependency not to be had offline):
# requiring it throws an Error naming the platform package.
mkdir "$work/alone"
cd "$work/alone"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund --loglevel=error "$npm_main"
[[ ! -e node_modules/zlink-linux-x64-gnu ]] ||
    { echo "check-dist: the platform package came from somewhere" >&2; exit 1; }
node - "zlink-linux-x64-gnu@$npm_version" <<'JS'
const wanted = `install the platform package ${process.argv[2]}`;
try {
  require('zlink');
} catch (e) {
  if (!(e instanceof Error) || !e.message.includes(wanted)) throw e;
  console.log(`node (no platform package): ${e.message}`);
  process.exit(0);
}
throw new Error('zlink loaded without its platform package');
JS

echo "== JVM: the jar alone on the class path"
mkdir -p "$work/jvm"
cat > "$work/jvm/Use.java" <<'JAVA'
import io.zlink.*;

public class Use {
    public static void main(String[] args) {
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
            rt.activate(ObjectKind.ACTOR, "user-42");
            if (!(rt.resolve(ObjectKind.ACTOR, "user-42") instanceof ReadyRoute route)) {
                throw new AssertionError("expected a ReadyRoute");
            }
            System.out.println("jvm: the jar resolves, node " + route.node());
        }
    }
}
JAVA
cp "$dist/zlink-$version.jar" "$work/jvm/"
(cd "$work/jvm" && javac -cp "zlink-$version.jar" Use.java &&
    java -Dzlink.library.dir="$work/jvm/cache" -cp "zlink-$version.jar:." Use)
for kind in sources javadoc; do
    listing="$(unzip -l "$dist/zlink-$version-$kind.jar")"
    [[ "$listing" == *io/zlink/ZlinkRuntime.* ]] ||
        { echo "check-dist: the $kind jar has no ZlinkRuntime" >&2; exit 1; }
done

echo "== C: the tarball through pkg-config"
mkdir -p "$work/c"
tar -C "$work/c" -xzf "$dist/zlink-c-$version-linux-x86_64.tar.gz"
prefix="$work/c/zlink-c-$version"
cat > "$work/c/use.c" <<'C'
#include <stdio.h>
#include <zlink.h>

int main(void) {
    zlink_node_identity me = { .mesh = "main", .rid = 1, .generation = 1, .lease = 1 };
    zlink_runtime *rt = NULL;
    zlink_resolution r;
    if (zlink_runtime_new(&me, NULL, NULL, NULL, &rt, NULL) != ZLINK_RESULT_OK) return 1;
    if (zlink_activate(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)"user-42", 7, NULL, NULL)) return 2;
    if (zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)"user-42", 7, &r, NULL)) return 3;
    if (r.tag != ZLINK_RESOLUTION_TAG_READY_ROUTE || r.route.node_rid != 1) return 4;
    zlink_runtime_free(rt, NULL);
    printf("c: libzlink resolves (ABI %u)\n", zlink_abi_version());
    return 0;
}
C
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -o "$work/c/use" "$work/c/use.c" $(pkg-config --cflags --libs zlink) -Wl,-rpath,"$prefix/lib"
"$work/c/use"
echo "check-dist: every artifact installs and runs without Rust"
