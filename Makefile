# embedded-wallet-kit. Every target installs what it needs first (scripts/setup.sh).
#   make demo    the demo wallet against the local emulator, http://localhost:8787
#   make test    every test (what CI runs)
#   make test-browser  the browser suites, one run, one report (BROWSER_ARGS="store --engine firefox")
#   make build   the npm package in pkg/
#   make check   fast: fmt, native clippy and tests (installs nothing)
#   make bench   speed and size against the peers -> bench/results.md
#   make fuzz    long fuzz runs (FUZZ_SECONDS per target)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)

NODE_TESTS := $(wildcard tests/js/*.test.mjs) $(wildcard tests/interop/*.test.mjs)
DEMO_PORT ?= 8787
MODE ?= strict
FUZZ_SECONDS ?= 300
# The crates that build for wasm32: the core and the binding crates (bindings/), not the
# emulator (native only).
WASM_CRATES := -p embedded-wallet-kit -p ewk-common -p ewk-signing -p ewk-wallet -p ewk-testing

.PHONY: setup build check lint lint-rust lint-js test test-native test-ct test-wasm test-js size pack test-browser fuzz-smoke demo bench fuzz clean

setup:
	@bash scripts/setup.sh

build: setup
	bash scripts/build-pkg.sh

lint: lint-rust lint-js

# Features only add, so three clippy passes cover every build: native (the binding crates
# are empty there), wasm32 (the core and every binding crate, with ewk-wallet's `enclave`,
# tests included; the tests link std) and the shipped modules' wasm32 libraries (the core
# without std, no_std bindings with the trapping panic handler).
lint-rust: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown $(WASM_CRATES) --features ewk-wallet/enclave --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown $(WASM_CRATES) --lib --no-default-features --features ewk-common/trap-panics -- -D warnings
	bash scripts/public-items.sh

# Fast, and installs nothing: formatting, the native clippy pass, the native tests.
check:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	cargo test --features fault-injection --test signing_fault --test ecdh_fault

lint-js: setup
	node_modules/.bin/eslint --max-warnings=0 .
	node scripts/check-imports.mjs
	node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tests/types/tsconfig.json

# The test-only fault injection (never in a shipped build) in its own test binaries.
test-native: setup
	cargo test --workspace
	cargo test --features fault-injection --test signing_fault --test ecdh_fault

# Constant time, checked natively under valgrind (tests/ct/run.sh says how).
test-ct: setup
	bash tests/ct/run.sh

# No -q: the wasm-bindgen test runner rejects cargo's --quiet. Node first, then every
# test in each browser (WASM_BINDGEN_USE_BROWSER=1; the runner takes the one driver
# variable set). WebKit runs with JavaScriptCore's concurrent JIT off: with it on, its
# background compiler races and a few runs fail inside pure arithmetic (tests/points
# keeps the default and measures that).
WASM_TEST_ENV := CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner WASM_BINDGEN_TEST_TIMEOUT=120
WASM_TEST := cargo test --target wasm32-unknown-unknown $(WASM_CRATES) --features ewk-wallet/enclave

test-wasm: setup
	$(WASM_TEST_ENV) CHROMEDRIVER=/usr/bin/chromedriver $(WASM_TEST)
	$(WASM_TEST_ENV) WASM_BINDGEN_USE_BROWSER=1 CHROMEDRIVER=/usr/bin/chromedriver $(WASM_TEST)
	$(WASM_TEST_ENV) WASM_BINDGEN_USE_BROWSER=1 GECKODRIVER=$(HOME)/.cargo/bin/geckodriver $(WASM_TEST)
	$(WASM_TEST_ENV) JSC_useConcurrentJIT=0 WASM_BINDGEN_USE_BROWSER=1 SAFARIDRIVER=/usr/bin/WebKitWebDriver xvfb-run -a $(WASM_TEST)

# The emulator is built first: tests start target/release/emulator, which must match the tree.
# Three test files at a time (node's default on 2 cores is one): the longest ones mostly
# wait on real timers and the emulator.
test-js: build
	cargo build --release -p emulator
	node --test --test-concurrency=3 --test-reporter=spec $(NODE_TESTS)

size: build
	node scripts/size.mjs pkg

pack: build
	node scripts/pack-smoke.mjs

# Every browser suite (tests/browser.mjs; each suite's run.mjs says what it checks), each
# engine's browser launched once and shared, one report. BROWSER_ARGS picks suites and
# engines, e.g. BROWSER_ARGS="store isolate --engine firefox"; --parallel runs the three
# engines side by side.
BROWSER_ARGS ?=
test-browser: pack
	cargo build --release -p emulator
	node tests/browser.mjs $(BROWSER_ARGS)

# A few seconds of every fuzz target (stable toolchain, no sanitizer), one per core at a
# time; `make fuzz` runs long.
fuzz-smoke: setup
	FUZZ_JOBS=$$(nproc) bash scripts/fuzz.sh 8

# The browser suites come last, so their report and "N passed, N failed" close the output.
test: setup build lint test-native test-ct test-wasm test-js size pack fuzz-smoke test-browser

demo: build
	cargo build --release -p emulator
	@echo "demo: http://localhost:$(DEMO_PORT)/  (mode: $(MODE); MODE=sandbox for the spec's sandbox; Ctrl-C to stop)"
	target/release/emulator --mode $(MODE) --port $(DEMO_PORT) --static-dir examples/wallet --pkg-dir pkg --strict-csp

# Speed and size against @turnkey/crypto + @turnkey/api-key-stamper and WebCrypto, in Node,
# headless Chromium, Firefox ESR and WebKitGTK, with the targets MET / NOT MET per
# engine: bench/results.md and bench/latency.png (a few minutes; run it on an idle machine,
# e.g. make bench BENCH_ARGS="--max-load 1"; BENCH_ARGS="--engine chromium" for one engine).
BENCH_ARGS ?=
bench: build
	node bench/run.mjs $(BENCH_ARGS)

# Long fuzz runs: FUZZ_SECONDS per target (default 300).
fuzz: setup
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf pkg dist tests/vite/dist tests/vite/node_modules tests/react/dist tests/react/node_modules tests/frameworks/out tests/frameworks/node_modules
