#!/usr/bin/env bash
# Builds the `zlink` wheel with maturin (release), installs it into a fresh
# virtualenv, and runs the pytest suite, mypy --strict on the typed example
# and the stub check. Tools live in a project-local venv (.venv-zlink); the
# wheel is tested in another one (.venv-zlink-test) holding only the wheel
# and the test tools, so `import zlink` is proven from the wheel alone.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
python="${PYTHON:-python3}"
tools="$root/.venv-zlink"
testenv="$root/.venv-zlink-test"
wheels="$root/target/wheels-zlink"

if [[ ! -x "$tools/bin/maturin" ]]; then
    "$python" -m venv "$tools"
    "$tools/bin/pip" install -q --upgrade pip
    "$tools/bin/pip" install -q "maturin>=1.9,<2"
fi

rm -rf "$wheels"
# The workspace target dir is reused, so a rebuild only compiles what changed.
# The wheel is for this machine only: no manylinux repair or check. The
# extension links only the C runtime (TLS is rustls, no OpenSSL);
# scripts/check-self-contained.sh checks it after this script.
(cd "$here" && PATH="$tools/bin:$PATH" CARGO_TARGET_DIR="$root/target" "$tools/bin/maturin" build --release \
    --quiet --auditwheel skip --interpreter "$python" --out "$wheels")

rm -rf "$testenv"
"$python" -m venv "$testenv"
"$testenv/bin/pip" install -q --upgrade pip
"$testenv/bin/pip" install -q pytest mypy prometheus_client
"$testenv/bin/pip" install -q "$wheels"/zlink-*.whl

if [[ "${ZLINK_BUILD_ONLY:-}" == 1 ]]; then
    exit 0
fi

# tests/test_failover.py drives a real Sentinel group and Cluster through
# the testkit's failover kit (a dev binary, debug build).
cargo build -q -p zlink-testkit --bin zlink-failover
export ZLINK_FAILOVER_KIT="${CARGO_TARGET_DIR:-$root/target}/debug/zlink-failover"

cd "$here"
# Run from the tests folder so `import zlink` finds the installed wheel,
# not the source tree.
"$testenv/bin/python" -c 'import zlink, sys; print("zlink", zlink.__version__, "from", zlink.__file__)'
(cd tests && "$testenv/bin/python" -m pytest -q -p no:cacheprovider "$@")
"$testenv/bin/python" -m mypy --strict --no-incremental examples/typed_usage.py
"$testenv/bin/python" -m mypy.stubtest zlink --allowlist scripts/stubtest-allowlist.txt
