#!/usr/bin/env bash
# `make bench`: the Python cache-hit benchmark against the installed wheel
# (built by scripts/test.sh when the test venv does not have it yet).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
py="$root/.venv-zlink-test/bin/python"
if ! [[ -x "$py" ]] || ! (cd / && "$py" -c 'import zlink' 2>/dev/null); then
    ZLINK_BUILD_ONLY=1 bash "$here/scripts/test.sh"
fi
cd "$here/bench" && "$py" bench_resolve.py
