#!/usr/bin/env bash
# Installs what the build, tests and benchmarks need beyond Rust:
# redis-server, redis-cli, redis-benchmark (Debian redis-server + redis-tools),
# redis-sentinel (for the failover tests' Sentinel groups, which
# zlink-testkit starts as `redis-server sentinel.conf --sentinel`),
# the openssl program (zlink-testkit makes the TLS tests' certificates with
# it), pkg-config (the C tests build against zlink.pc), and a JDK 17 with
# Maven and binutils' strip for the JVM binding, and promtool (Debian's
# prometheus package) to check the metrics' text exposition
# (scripts/check-metrics.sh), and Chromium, headless, to render the run
# diagrams (scripts/check-diagrams.sh). No OpenSSL headers
# or libraries: the Redis client's TLS is rustls, built into the libraries.
#
# Idempotent and quick: when everything is there it only says so.
# Non-interactive (CI has no stdin). Runs apt-get as root, or through sudo.
#
# The packages' own services (a Redis on 6379, a Prometheus on 9090) are
# neither needed nor used: zlink-testkit starts its own servers on free
# loopback ports. The install keeps them from starting (a policy-rc.d that
# refuses, while it runs, unless the machine has its own).
set -euo pipefail

programs=(redis-server redis-cli redis-benchmark redis-sentinel openssl pkg-config javac mvn strip promtool chromium)

missing_programs() {
    local p
    for p in "${programs[@]}"; do
        command -v "$p" >/dev/null 2>&1 || printf '%s ' "$p"
    done
}

packages=(redis-server redis-tools redis-sentinel openssl pkg-config openjdk-17-jdk-headless maven binutils prometheus chromium)

missing="$(missing_programs)"
if [[ -z "$missing" ]]; then
    echo "deps: redis (server, tools, sentinel), openssl, pkg-config, a JDK, Maven, promtool and Chromium already installed ($(redis-server --version | cut -d' ' -f1-3)); nothing to do"
    exit 0
fi
echo "deps: missing: ${missing% }"

if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: apt-get not found; install redis-server, redis-tools (redis-cli, redis-benchmark), redis-sentinel, openssl, pkg-config, a JDK 17, Maven and binutils by hand" >&2
    exit 1
fi

# Root runs apt-get directly; anyone else needs non-interactive sudo.
if [[ "$(id -u)" -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo -n)
else
    echo "deps: not root and no sudo; cannot install redis" >&2
    exit 1
fi

apt_env=(env DEBIAN_FRONTEND=noninteractive)

# No package's service starts during the install (Debian's invoke-rc.d
# asks policy-rc.d; 101 is "not allowed").
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${as_root[@]}" chmod 755 /usr/sbin/policy-rc.d
    trap '"${as_root[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi

apt_update() {
    echo "deps: apt-get update ($1)"
    "${as_root[@]}" "${apt_env[@]}" apt-get update -q </dev/null
}

apt_install() {
    echo "deps: apt-get install -y ${packages[*]}"
    "${as_root[@]}" "${apt_env[@]}" apt-get install -y -q --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        "${packages[@]}" </dev/null
}

# Refresh the package lists only when needed, since the update is the slow
# part: when they do not know the packages (fresh image, empty lists), or when
# an install from them fails (stale lists pointing at removed versions).
if ! apt-cache show "${packages[@]}" >/dev/null 2>&1; then
    apt_update "package lists do not know redis yet"
fi
if ! apt_install; then
    apt_update "install failed; package lists may be stale"
    apt_install
fi

missing="$(missing_programs)"
if [[ -n "$missing" ]]; then
    echo "deps: still missing after install: ${missing% }" >&2
    exit 1
fi
echo "deps: installed $(redis-server --version | cut -d' ' -f1-3)"
