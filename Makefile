# zlink: one command for the demo, one for every test, one for benchmarks.
CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

.PHONY: demo test bench lint fmt

demo:
	$(CARGO) run -q -p zlink-cli -- demo

test: lint
	$(CARGO) test --workspace --all-targets
	$(CARGO) run -q -p zlink-cli -- demo --json > /dev/null

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

bench:
	$(CARGO) bench -p zlink-core --bench resolve

fmt:
	$(CARGO) fmt --all
