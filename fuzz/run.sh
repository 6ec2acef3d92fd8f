#!/usr/bin/env bash
# Runs every wire fuzz target for SECONDS each (default 60), its corpus
# seeded from testdata/wire. Needs a nightly toolchain; uses `cargo fuzz`
# when installed, else builds the targets itself with the same
# sanitizer-coverage flags (no sanitizer, dev profile).
#   bash fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode_frame decode_message decode_request decode_reply decode_rejection decode_message_follow decode_session)

# Seed: whole frames for decode_frame, bodies of the command's vectors for the
# others; for decode_session the command byte then the body of every session
# vector (commands 10-16, 42-44).
seed() {
    local target=$1 command=$2 f c
    mkdir -p "corpus/$target"
    for f in ../testdata/wire/*.bin ../testdata/wire/invalid/*.bin; do
        [ "$(stat -c %s "$f")" -ge 10 ] || { [ "$command" = 0 ] && cp "$f" "corpus/$target/"; continue; }
        c=$(od -An -tu1 -j3 -N1 "$f" | tr -d ' ')
        if [ "$command" = 0 ]; then
            cp "$f" "corpus/$target/"
        elif [ "$command" = session ]; then
            case $c in
                10|11|12|13|14|15|16|42|43|44)
                    { printf "\\$(printf %03o "$c")"; tail -c +11 "$f"; } > "corpus/$target/$(basename "$f")" ;;
            esac
        elif [ "$c" = "$command" ]; then
            tail -c +11 "$f" > "corpus/$target/$(basename "$f")"
        fi
    done
}
command_of() {
    case $1 in
        decode_frame) echo 0 ;; decode_message) echo 1 ;; decode_request) echo 2 ;; decode_reply) echo 3 ;;
        decode_rejection) echo 4 ;; decode_message_follow) echo 50 ;; decode_session) echo session ;;
        *) echo "unknown target $1" >&2; exit 2 ;;
    esac
}
for t in "${targets[@]}"; do seed "$t" "$(command_of "$t")"; done

if cargo +nightly fuzz --version >/dev/null 2>&1; then
    for t in "${targets[@]}"; do
        cargo +nightly fuzz run --dev "$t" "corpus/$t" -- -max_total_time="$secs"
    done
else
    triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
    RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
        cargo +nightly build --target "$triple" --bins
    mkdir -p artifacts
    for t in "${targets[@]}"; do
        "target/$triple/debug/$t" "corpus/$t" -max_total_time="$secs" -artifact_prefix="artifacts/$t-"
    done
fi
