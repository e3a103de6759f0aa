# embedded-wallet-kit — every command installs what it needs first (scripts/setup.sh is
# idempotent and quick when everything is present).
#
#   make demo    build, then serve the demo wallet page on http://localhost:8787
#   make test    every test: lint, native, wasm32 (Node + headless Chromium), the built
#                package through both entries, interop with the npm peers, size budget,
#                npm pack smoke, Vite end to end
#   make build   the npm package in pkg/ (then `npm pack ./pkg`)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)

NODE_TESTS := $(wildcard tests/js/*.test.mjs) $(wildcard tests/interop/*.test.mjs)
DEMO_PORT ?= 8787

.PHONY: setup build lint lint-rust lint-js test test-native test-wasm test-js size pack e2e demo bench fuzz clean

setup:
	@bash scripts/setup.sh

build: setup
	bash scripts/build-pkg.sh

lint: lint-rust lint-js

lint-rust: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --all-targets --features passkey -- -D warnings

lint-js: setup
	node_modules/.bin/eslint --max-warnings=0 .

test-native: setup
	cargo test --workspace

# No -q here: the wasm-bindgen test runner rejects the --quiet that cargo passes on.
# Run twice: as configured (tests without a configure macro run in Node), then with
# WASM_BINDGEN_USE_BROWSER=1, which runs the same tests in headless Chromium
# (ChromeDriver, capabilities from webdriver.json).
WASM_TEST_ENV := CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120

test-wasm: setup
	$(WASM_TEST_ENV) cargo test --target wasm32-unknown-unknown
	$(WASM_TEST_ENV) WASM_BINDGEN_USE_BROWSER=1 cargo test --target wasm32-unknown-unknown

test-js: build
	node --test --test-reporter=spec $(NODE_TESTS)

size: build
	node scripts/size.mjs pkg

pack: build
	node scripts/pack-smoke.mjs

e2e: pack
	node tests/vite/run.mjs

# The end-to-end run comes last, so its "N passed, N failed" closes the output.
test: setup build lint test-native test-wasm test-js size pack e2e

demo: build
	@echo "demo: http://localhost:$(DEMO_PORT)/  (Ctrl-C to stop)"
	node scripts/serve.mjs --port $(DEMO_PORT) /=examples/wallet /pkg/=pkg

bench:
	@echo "make bench: not yet implemented" >&2
	@exit 1

fuzz:
	@echo "make fuzz: not yet implemented" >&2
	@exit 1

clean:
	rm -rf pkg dist tests/vite/dist tests/vite/node_modules
