#!/usr/bin/env bash
# Checks that a run's picture opens in a real browser: `zlink sim --trace`
# (a fixed seed, whose Mermaid text cli/tests/sim.rs holds as a golden
# file) and `zlink demo --trace` write their pages; headless Chromium
# (Debian's chromium, from scripts/install-deps.sh) renders each to a PNG,
# and the PNG must show the drawing (scripts/png-ink.py: at least 5 % of
# its pixels drawn; a page that failed to render is white).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build -q -p zlink-cli
"$target/debug/zlink" sim --seed 3 --steps 30 --nodes 3 --objects 2 --trace "$work/sim.mmd" > /dev/null
"$target/debug/zlink" demo --trace "$work/demo.mmd" > /dev/null

for page in sim demo; do
    # Chromium's own chatter (no D-Bus in a container) goes to stderr.
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$work/profile" --window-size=1000,1400 \
        --screenshot="$work/$page.png" "file://$work/$page.html" 2> "$work/$page.log" || {
        cat "$work/$page.log" >&2
        echo "diagrams: chromium could not render $page.html" >&2
        exit 1
    }
    python3 "$root/scripts/png-ink.py" "$work/$page.png" 0.05
done
echo "diagrams: chromium renders the sim's and the demo's pages"
