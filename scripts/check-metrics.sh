#!/usr/bin/env bash
# Checks the metrics as a scraper would read them: `zlink demo --metrics`
# prints each node's Prometheus text exposition; each is checked by
# promtool (Debian's prometheus package, from scripts/install-deps.sh),
# the Prometheus project's own linter and parser, and must show the store
# latency a scrape is for. Fails on any problem promtool reports.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build -q -p zlink-cli
"$target/debug/zlink" demo --metrics > "$work/demo.txt"

# One file per node: the lines after its "== metrics of NODE" heading.
awk -v dir="$work" '
    /^== metrics of / { file = dir "/" $4 ".prom"; next }
    /^== / { file = "" }
    file != "" { print > file }
' "$work/demo.txt"

nodes=0
reads=0
for prom in "$work"/*.prom; do
    nodes=$((nodes + 1))
    if ! problems="$(promtool check metrics < "$prom" 2>&1)"; then
        echo "metrics: promtool refuses $(basename "$prom" .prom):" >&2
        echo "$problems" >&2
        exit 1
    fi
    count="$(awk '$1 == "zlink_store_read_duration_seconds_count" { print $2 }' "$prom")"
    reads=$((reads + ${count:-0}))
done
if [[ "$nodes" -ne 3 ]]; then
    echo "metrics: expected 3 nodes' metrics, found $nodes" >&2
    exit 1
fi
if [[ "$reads" -eq 0 ]]; then
    echo "metrics: no store read was timed over the demo" >&2
    exit 1
fi
echo "metrics: promtool accepts the 3 nodes' text; $reads store reads timed"
