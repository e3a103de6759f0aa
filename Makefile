# embedded-wallet-kit. Every target installs what it needs first (scripts/setup.sh).
#   make demo    the demo wallet against the local emulator, http://localhost:8787
#   make test    every test (what CI runs)
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

.PHONY: setup build check lint lint-rust lint-js test test-native test-ct test-wasm test-js size pack e2e-passkey e2e-store e2e-crosstab e2e-points e2e-isolate e2e-emulator test-csp e2e e2e-react fuzz-smoke demo bench fuzz clean

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

# Fast, and installs nothing: formatting, the native clippy pass, the native tests.
check:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	cargo test --features fault-injection --test signing_fault

lint-js: setup
	node_modules/.bin/eslint --max-warnings=0 .
	node scripts/check-imports.mjs
	node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tests/types/tsconfig.json

# The test-only fault injection (never in a shipped build) in its own test binary.
test-native: setup
	cargo test --workspace
	cargo test --features fault-injection --test signing_fault

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

test-js: build
	node --test --test-reporter=spec $(NODE_TESTS)

size: build
	node scripts/size.mjs pkg

pack: build
	node scripts/pack-smoke.mjs

# Passkeys through pkg/browser.js, verified by @simplewebauthn/server: headless Chromium
# (CDP virtual authenticator) and Firefox ESR (WebDriver virtual authenticator); in
# WebKitGTK (no WebAuthn) the unsupported path.
e2e-passkey: build
	node tests/passkey/run.mjs

# The session store through pkg/browser.js in headless Chromium, Firefox ESR and WebKitGTK:
# sessions and an OAUTH client key kept in IndexedDB (non-extractable CryptoKeys) across a
# page reload, stamps verified in Node.
e2e-store: build
	node tests/store/run.mjs

# One StoredSession kept by two tabs of one origin (tests/crosstab), served by the strict
# emulator with a short session TTL, in headless Chromium, Firefox ESR and WebKitGTK: one
# refresh for both tabs (Web Locks, then the IndexedDB lease), the other tab adopts it;
# logout in one tab ends the other's keeper; a clock jump caught up on visibilitychange.
e2e-crosstab: build
	cargo build --release -p emulator
	node tests/crosstab/run.mjs

# The shipped modules' encapsulated-key decoding against independent peers (tests/points):
# bundles sealed by @turnkey/crypto open to the sealed key, and a key decodes exactly when
# @noble/curves finds it on P-256, for both entries, in fresh pages and a warm one, in
# headless Chromium, Firefox ESR and WebKitGTK.
e2e-points: build
	node tests/points/run.mjs

# The isolated signer, init({ isolate: 'worker' }), through pkg/browser.js in headless
# Chromium, Firefox ESR and WebKitGTK: stamps verified in Node as same-thread ones are, the same
# errors, no session scalar in any wasm memory page script can reach, the channel not
# interceptable by later script; prints the extra latency per stamp.
e2e-isolate: build
	node tests/isolate/run.mjs

# The demo page against the local emulator, strict and sandbox, in headless Chromium,
# Firefox ESR and WebKitGTK (no WebAuthn there: the passkey step shows PASSKEY_UNSUPPORTED
# and the rest of the flow runs with the OTP session).
e2e-emulator: build
	cargo build --release -p emulator
	node tests/e2e/run.mjs

# The demo under the emulator's strict Content-Security-Policy in headless Chromium, Firefox
# ESR and WebKitGTK: no violation reported while init(), a key and a session run; the
# isolated signer under worker-src; controls (no 'wasm-unsafe-eval', worker-src 'none')
# that must fail and be seen failing in each engine.
test-csp: build
	cargo build --release -p emulator
	node tests/csp/run.mjs

# The packed tarball in a Vite app (built once), its page in headless Chromium, Firefox ESR
# and WebKitGTK.
e2e: pack
	node tests/vite/run.mjs

# embedded-wallet-kit/react from the packed tarball in a Vite + React app under StrictMode,
# served by the strict emulator with a short session TTL: EMAIL_OTP login from an effect
# (one verify despite the double effect), a signed quote, a keeper refresh, a quote signed
# with the refreshed session, logout; in headless Chromium, Firefox ESR and WebKitGTK.
e2e-react: pack
	cargo build --release -p emulator
	node tests/react/run.mjs

# A few seconds of every fuzz target (stable toolchain, no sanitizer); `make fuzz` runs long.
fuzz-smoke: setup
	bash scripts/fuzz.sh 8

# The Vite end-to-end run comes last, so its "N passed, N failed" closes the output.
test: setup build lint test-native test-ct test-wasm test-js size pack fuzz-smoke e2e-passkey e2e-store e2e-crosstab e2e-points e2e-isolate e2e-emulator test-csp e2e-react e2e

demo: build
	cargo build --release -p emulator
	@echo "demo: http://localhost:$(DEMO_PORT)/  (mode: $(MODE); MODE=sandbox for the spec's sandbox; Ctrl-C to stop)"
	target/release/emulator --mode $(MODE) --port $(DEMO_PORT) --static-dir examples/wallet --pkg-dir pkg --strict-csp

# Speed and size against @turnkey/crypto + @turnkey/api-key-stamper and WebCrypto, in Node,
# headless Chromium, Firefox ESR and WebKitGTK, with issue 16's targets MET / NOT MET per
# engine: bench/results.md and bench/latency.png (a few minutes; run it on an idle machine,
# e.g. make bench BENCH_ARGS="--max-load 1"; BENCH_ARGS="--engine chromium" for one engine).
BENCH_ARGS ?=
bench: build
	node bench/run.mjs $(BENCH_ARGS)

# Long fuzz runs: FUZZ_SECONDS per target (default 300).
fuzz: setup
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf pkg dist tests/vite/dist tests/vite/node_modules tests/react/dist tests/react/node_modules
