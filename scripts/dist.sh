#!/usr/bin/env bash
# make dist: every artifact a user installs, in dist/ (built here; using
# them needs no Rust toolchain; scripts/check-dist.sh proves it):
#   zlink-VERSION-cp311-abi3-manylinux_2_17_x86_64.whl  Python (maturin with
#       zig, linked against glibc 2.17 symbols; auditwheel checks the tag)
#   zlink-VERSION.tgz                                   npm: the package, no addon;
#       its optional dependency zlink-linux-x64-gnu@VERSION carries it
#   zlink-linux-x64-gnu-VERSION.tgz                     npm: the addon (os linux,
#       cpu x64, libc glibc), napi-rs's platform-package layout
#   zlink-VERSION.jar, -sources.jar, -javadoc.jar       JVM (native library inside)
#   zlink-c-VERSION-linux-x86_64.tar.gz                 C: lib/, include/, lib/pkgconfig
#       (zlink.pc finds its prefix from its own place, so the tree may move)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
dist="$root/dist"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$dist"
mkdir -p "$dist"

# Python: the build tools live in the project's tool venv.
tools="$root/.venv-zlink"
if [[ ! -x "$tools/bin/maturin" ]]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q --upgrade pip
    "$tools/bin/pip" install -q "maturin>=1.9,<2"
fi
"$tools/bin/pip" install -q "ziglang>=0.13,<0.18" "auditwheel>=6"
# Its own target dir: zig as the linker would otherwise rebuild the shared one.
(cd "$root/bindings-python" && PATH="$tools/bin:$PATH" CARGO_TARGET_DIR="$target/dist-wheel" \
    "$tools/bin/maturin" build --release --strip --zig --compatibility manylinux2014 \
    --interpreter python3 --out "$work/wheel" --quiet)
wheel="$(ls "$work"/wheel/zlink-*.whl)"
"$tools/bin/auditwheel" show "$wheel" > "$work/auditwheel.txt"
if ! grep -q '"manylinux_2_17_x86_64"' "$work/auditwheel.txt"; then
    cat "$work/auditwheel.txt" >&2
    echo "dist: the wheel is not manylinux_2_17" >&2
    exit 1
fi
cp "$wheel" "$dist/"

# Node: the addon built and stripped, then two packages packed from a
# staging copy in $target/npm-dist (bindings-node/ stays as it is): the
# platform packages napi's create-npm-dirs writes from package.json's
# "napi" targets (npm/<platform>/, the addon copied in), and the main
# package without the addon, naming each as an optional dependency of the
# same version (napi pre-publish's rule; the loader index.js requires them).
(cd "$root/bindings-node" && npm ci --no-audit --no-fund --loglevel=error &&
    npx napi build --platform --release --target-dir "$target" --strip >/dev/null)
npm_stage="$target/npm-dist/zlink"
rm -rf "$target/npm-dist"
mkdir -p "$npm_stage"
node - "$root/bindings-node" "$npm_stage" <<'JS'
const fs = require('fs');
const path = require('path');
const [from, to] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
pkg.files = pkg.files.filter((f) => !f.endsWith('.node'));
for (const f of pkg.files) fs.cpSync(path.join(from, f), path.join(to, f), { recursive: true });
fs.writeFileSync(path.join(to, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
JS
if ! out="$("$root/bindings-node/node_modules/.bin/napi" create-npm-dirs --cwd "$npm_stage" --npm-dir npm 2>&1)"; then
    printf '%s\n' "$out" >&2
    exit 1
fi
node - "$root/bindings-node" "$npm_stage" <<'JS'
const fs = require('fs');
const path = require('path');
const [from, to] = process.argv.slice(2);
const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const main = read(path.join(to, 'package.json'));
main.optionalDependencies = {};
for (const dir of fs.readdirSync(path.join(to, 'npm'))) {
  const platform = read(path.join(to, 'npm', dir, 'package.json'));
  if (platform.version !== main.version) throw new Error(`${platform.name} is ${platform.version}`);
  fs.copyFileSync(path.join(from, platform.main), path.join(to, 'npm', dir, platform.main));
  main.optionalDependencies[platform.name] = platform.version;
}
fs.writeFileSync(path.join(to, 'package.json'), JSON.stringify(main, null, 2) + '\n');
JS
for pkg in "$npm_stage" "$npm_stage"/npm/*/; do
    (cd "$pkg" && npm pack --silent --pack-destination "$dist" >/dev/null)
done

# JVM: the jar with the library inside, and its sources and javadoc jars.
ZLINK_JVM_BUILD_ONLY=1 bash "$root/bindings-jvm/scripts/test.sh"
for kind in "" -sources -javadoc; do
    cp "$root/bindings-jvm/java/target/zlink-$version$kind.jar" "$dist/"
done

# C: installed into a staging tree, the shared library stripped, the
# pkg-config file made relative to its own place.
stage="$work/zlink-c-$version"
bash "$root/ffi-c/scripts/install.sh" "$stage" >/dev/null
strip --strip-unneeded "$stage/lib/libzlink.so"
strip --strip-debug "$stage/lib/libzlink.a"
sed -i 's|^prefix=.*|prefix=${pcfiledir}/../..|' "$stage/lib/pkgconfig/zlink.pc"
tar -C "$work" -czf "$dist/zlink-c-$version-linux-x86_64.tar.gz" "zlink-c-$version"

echo "dist: built into dist/:"
(cd "$dist" && ls -l | awk 'NR > 1 { printf "  %-62s %6.1f MB\n", $9, $5 / 1048576 }')
