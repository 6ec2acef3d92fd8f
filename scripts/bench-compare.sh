#!/usr/bin/env bash
# make bench-compare BASE=<git rev>: the core's resolve benchmark of BASE and
# of the working tree, built side by side and run alternately in one run on
# this machine (base, this, base, this), so a change is judged against the
# figures it replaces, not against numbers from another day. Never fails on
# a timing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: bench-compare.sh <git rev>}"
work="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$root" worktree add --detach -f "$work/base" "$base" >/dev/null
bench_bin() { # $1: source dir, $2: target dir
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench -q -p zlink-core --bench resolve --no-run \
        --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1
}
before="$(bench_bin "$work/base" "${BASE_TARGET_DIR:-$work/target}")"
after="$(bench_bin "$root" "$root/target")"
for round in 1 2; do
    echo "=== base $base (round $round)"
    (cd "$work/base" && "$before" --bench | grep -vE '^warming')
    echo "=== working tree (round $round)"
    (cd "$root" && "$after" --bench | grep -vE '^warming')
done
