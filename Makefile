# zlink: one command for the demo, one for every test, one for benchmarks.
CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

.PHONY: demo deps test bench lint fmt

demo:
	$(CARGO) run -q -p zlink-cli -- demo

# redis-server/redis-cli/redis-benchmark for the Redis store tests and bench;
# quick no-op when already installed. Tests start their own servers on free
# loopback ports (zlink-testkit), never the package's default one.
deps:
	bash scripts/install-deps.sh

test: deps lint
	$(CARGO) test --workspace --all-targets
	$(CARGO) run -q -p zlink-cli -- demo --json > /dev/null

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

bench: deps
	$(CARGO) bench -p zlink-core --bench resolve
	$(CARGO) bench -p zlink-core --bench redis

fmt:
	$(CARGO) fmt --all
