#!/usr/bin/env bash
# The native libraries a host loads must depend on the C runtime alone: no
# libssl/libcrypto (the Redis client's TLS is rustls, built in), nothing a
# host's own OpenSSL (Node, the JVM's tooling, Python's `ssl`) could clash
# with, nothing that ties a wheel to one distribution. For each library this
# prints what `ldd` resolves and fails, naming the library and the offending
# dependency, when anything else is linked.
#
# With no arguments it checks what `make test` built: the debug libzlink.so
# (ffi-c/tests/run.sh), the Python extension installed in the test venv
# (bindings-python/scripts/test.sh) and the JNI library the jar carries
# (bindings-jvm/scripts/test.sh) and the Node addon
# (bindings-node/scripts/test.sh). Arguments: other libraries to check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"

libraries=("$@")
if [[ ${#libraries[@]} -eq 0 ]]; then
    libraries=("$target/debug/libzlink.so")
    shopt -s nullglob
    extension=("$root"/.venv-zlink-test/lib/python3*/site-packages/zlink/_zlink*.so)
    shopt -u nullglob
    if [[ ${#extension[@]} -eq 0 ]]; then
        echo "self-contained: no Python extension in .venv-zlink-test (run bindings-python/scripts/test.sh first)" >&2
        exit 1
    fi
    libraries+=("${extension[@]}" "$target/jni/libzlink_jni.so" "$root/bindings-node/zlink.linux-x64-gnu.node")
fi

# The C runtime (glibc and the GCC unwinder), the dynamic loader, the vDSO.
allowed='^(libc|libm|libdl|libpthread|librt|libutil|libgcc_s)\.so(\.[0-9]+)*$|^ld-linux[-a-z0-9_.]*\.so(\.[0-9]+)*$|^linux-(vdso|gate)\.so(\.[0-9]+)*$'

status=0
for lib in "${libraries[@]}"; do
    name="${lib#"$root"/}"
    if [[ ! -f "$lib" ]]; then
        echo "self-contained: FAILED: $name: not built" >&2
        status=1
        continue
    fi
    if ! out="$(ldd "$lib" 2>&1)"; then
        echo "self-contained: FAILED: $name: ldd: $out" >&2
        status=1
        continue
    fi
    echo "== $name links:"
    printf '%s\n' "$out"
    bad=()
    while read -r dep rest; do
        [[ -z "$dep" ]] && continue
        if [[ "$rest" == *"not found"* ]]; then
            bad+=("$dep (not found)")
            continue
        fi
        base="$(basename "$dep")"
        [[ "$base" =~ $allowed ]] || bad+=("$base")
    done <<<"$out"
    if [[ ${#bad[@]} -gt 0 ]]; then
        echo "self-contained: FAILED: $name links beyond the C runtime: ${bad[*]}" >&2
        case " ${bad[*]}" in
            *" libssl"* | *" libcrypto"*)
                echo "self-contained: $name links OpenSSL: the Redis TLS must stay on rustls (no native-tls/openssl-sys; cargo tree -i openssl-sys)" >&2
                ;;
        esac
        status=1
    fi
done
if [[ $status -eq 0 ]]; then
    echo "self-contained: ok (${#libraries[@]} libraries link only the C runtime)"
fi
exit $status
