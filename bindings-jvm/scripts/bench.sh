#!/usr/bin/env bash
# make bench: the JVM cache-hit bench (JMH, bindings-jvm/bench) against the
# installed io.zlink:zlink jar (built and installed here first). Prints ns
# per lookup and the ratio to Caffeine; never fails on a timing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ZLINK_JVM_BUILD_ONLY=1 bash "$here/scripts/test.sh"
(cd "$here/bench" && mvn -B -q package dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" >/dev/null)
java -cp "$here/bench/target/classes:$(cat "$work/cp.txt")" bench.ResolveBench "$@"
