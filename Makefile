# zlink: one command for the demo, one for every test, one for benchmarks.
CARGO ?= cargo
export CARGO_TERM_COLOR ?= never

.PHONY: demo deps dist test bench bench-compare lint fmt header header-check install test-c interop sim schema

demo:
	$(CARGO) run -q -p zlink-cli -- demo

# redis-server/redis-cli/redis-benchmark for the Redis store tests and bench;
# quick no-op when already installed. Tests start their own servers on free
# loopback ports (zlink-testkit), never the package's default one.
deps:
	bash scripts/install-deps.sh

# bindings-python/scripts/test.sh: builds the `zlink` wheel (maturin, release),
# installs it into a fresh venv and runs pytest, mypy --strict and stubtest.
# bindings-jvm/scripts/test.sh: builds libzlink_jni (release), runs the
# io.zlink JUnit suite under -Xcheck:jni (Maven), installs the jar and runs a
# separate consumer project against it.
# bindings-node/scripts/test.sh: builds the napi addon (release), runs the
# node:test suite, packs the package and uses it from a fresh project.
# interop/run.sh: the five-language cluster (see `make interop`), after the
# binding scripts above rebuilt what it uses.
# scripts/check-self-contained.sh: ldd on the libzlink.so, the Python
# extension and the JNI library just built; fails if one links more than the
# C runtime.
test: deps lint header-check
	$(CARGO) test --workspace --lib --bins --tests --examples
	bash ffi-c/tests/run.sh
	bash bindings-python/scripts/test.sh
	bash bindings-jvm/scripts/test.sh
	bash bindings-node/scripts/test.sh
	bash scripts/check-self-contained.sh
	bash interop/run.sh
	$(CARGO) run -q -p zlink-cli -- demo --json > /dev/null
	bash scripts/check-metrics.sh
	bash scripts/check-diagrams.sh
	bash scripts/dist.sh
	bash scripts/check-dist.sh

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) run -q -p zlink-schema -- --check
	python3 scripts/perf-doc.py --check

# schema/ (zlink-schema): every binding's copy of the closed sets (Java
# enums, Node's codes.js/codes.d.ts, Python's zlink/_codes.py, from
# bridge/src/codes.rs) and of the result types (bridge/src/surface/: the
# bridge's encoder, the JVM's records and Surface.java, Node's surface.js
# and surface.d.ts, Python's pyo3 classes in src/surface.rs and their stubs
# in the marked region of _zlink.pyi, the C ABI's decision structs in
# ffi-c/src/decisions.rs), and the operations (bridge/src/surface/operations.rs:
# the Runtime declarations of _zlink.pyi and lib/index.d.ts, docs/operations.md,
# and a check that every binding offers each one) are generated and checked in; `make lint` fails
# when one is stale.
schema:
	$(CARGO) run -q -p zlink-schema

# Every bench appends its figures to $(BENCH_RECORDS); bench-summary.py
# prints them as one table and writes target/bench-summary.json, and
# perf-doc.py rewrites the generated table of docs/performance.md from it.
BENCH_RECORDS := $(CURDIR)/target/bench-records.jsonl
bench: deps
	mkdir -p target && rm -f $(BENCH_RECORDS)
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) $(CARGO) bench -p zlink-core --bench resolve
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) $(CARGO) bench -p zlink-core --bench peers
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) $(CARGO) bench -p zlink-core --bench redis
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) $(CARGO) bench -p zlink-core --bench durability
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) $(CARGO) bench -p zlink-ffi --bench c_abi
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) bash bindings-python/scripts/bench.sh
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) bash bindings-jvm/scripts/bench.sh
	ZLINK_BENCH_OUT=$(BENCH_RECORDS) bash bindings-node/scripts/bench.sh
	python3 scripts/bench-summary.py $(BENCH_RECORDS) target/bench-summary.json
	python3 scripts/perf-doc.py

# interop/run.sh (docs/interop.md): one redis-server and one host process per
# language (Java, Python, Node, C, Rust); an Actor moves across all five under
# traffic, with requests and a bound Session; fails on anything lost,
# duplicated or not ended once. Uses the bindings as last built (builds only
# what is missing); bounded by INTEROP_TIMEOUT (120 s).
interop: deps
	bash interop/run.sh

# zlink sim (cli/src/sim): the seeded whole-cluster simulation. make test runs
# 1,000 seeds of 160 steps (cli/tests/sim.rs); make sim runs many more on the
# release binary (~6 minutes), four cluster shapes. A failing seed prints the
# one-line command that replays it. SIM_SEED picks the first seed.
sim:
	$(CARGO) build --release -p zlink-cli
	./target/release/zlink sim --seed $${SIM_SEED:-1} --seeds 100000 --steps 300 --max-seconds 180
	./target/release/zlink sim --seed 5000000 --seeds 100000 --steps 400 --nodes 6 --objects 12 --max-seconds 90
	./target/release/zlink sim --seed 8000000 --seeds 100000 --steps 300 --nodes 2 --objects 2 --max-seconds 45
	./target/release/zlink sim --seed 9000000 --seeds 100000 --steps 300 --unordered --max-seconds 45

# The core's resolve benchmark of BASE (a git rev) and of the working tree,
# run alternately in one run: `make bench-compare BASE=main~3`.
BASE ?= HEAD
bench-compare:
	bash scripts/bench-compare.sh $(BASE)

fmt:
	$(CARGO) fmt --all

# The C ABI (ffi-c/): include/zlink.h is generated by a pinned cbindgen and
# checked in; `make test` fails when it is stale.
header:
	bash ffi-c/scripts/header.sh

header-check:
	bash ffi-c/scripts/header.sh --check

# libzlink.{so,a}, zlink.h and zlink.pc under PREFIX/{lib,include,lib/pkgconfig}.
PREFIX ?= /usr/local
install:
	bash ffi-c/scripts/install.sh $(PREFIX)

# Every artifact a user installs, in dist/: the manylinux wheel, the npm
# tarball, the jar with its sources and javadoc jars, the C tarball
# (scripts/dist.sh); scripts/check-dist.sh installs each in a clean place
# with no Rust toolchain and uses it (make test runs both).
dist:
	bash scripts/dist.sh

# The C tests alone (debug library, shared and static, under valgrind).
test-c:
	bash ffi-c/tests/run.sh
