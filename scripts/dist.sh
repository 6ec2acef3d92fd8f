#!/usr/bin/env bash
# make dist: every artifact a user installs, in dist/ (built here; using
# them needs no Rust toolchain; scripts/check-dist.sh proves it):
#   zlink-VERSION-cp311-abi3-manylinux_2_17_x86_64.whl  Python (maturin with
#       zig, linked against glibc 2.17 symbols; auditwheel checks the tag)
#   zlink-VERSION.tgz                                   npm (the addon inside)
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

# Node: the addon built and stripped, then the package packed.
(cd "$root/bindings-node" && npm ci --no-audit --no-fund --loglevel=error &&
    npx napi build --platform --release --target-dir "$target" --strip >/dev/null &&
    npm pack --silent --pack-destination "$dist" >/dev/null)

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
