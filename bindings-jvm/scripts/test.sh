#!/usr/bin/env bash
# The JVM binding's tests: builds libzlink_jni (release, the workspace's
# target dir), strips it into target/jni/ (what the jar carries: no debug
# info and no symbol table, only the dynamic symbols JNI binds; 7 MB, not
# 40; LoaderTest checks), runs `mvn verify` on java/ (JUnit 5 under -Xcheck:jni; the
# library loads from the jar), installs the jar into the local Maven
# repository, runs consumer/, a separate project that depends on
# io.zlink:zlink and uses it with no path settings at all, and runs the
# delegation example (examples/jvm: two JVM processes on a real
# redis-server, TCP between them). FailoverTest drives a real Sentinel
# group and Cluster through the testkit's failover kit (zlink-failover, a
# dev binary, debug build), built here.
#
# ZLINK_JVM_BUILD_ONLY=1: build and install the jar, run no tests.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"

cargo build -q --release -p zlink-jvm
mkdir -p "$target/jni"
strip --strip-unneeded -o "$target/jni/libzlink_jni.so" "$target/release/libzlink_jni.so"

mvn=(mvn -B -q -Dzlink.native.dir="$target/jni")
if [[ "${ZLINK_JVM_BUILD_ONLY:-}" == 1 ]]; then
    (cd "$here/java" && "${mvn[@]}" -DskipTests install)
    exit 0
fi
cargo build -q -p zlink-testkit --bin zlink-failover
(cd "$here/java" && "${mvn[@]}" -Dzlink.failover.kit="$target/debug/zlink-failover" install)
(cd "$here/consumer" && "${mvn[@]}" verify)
bash "$root/examples/jvm/run.sh"
echo "jvm: io.zlink tests, the consumer project and the example passed"
