#!/usr/bin/env bash
# Builds the npm package into pkg/: the three wasm modules (wallet, signing, testing; the
# wallet module twice, with and without the enclave exports), each cargo -> wasm-bindgen ->
# wasm-opt, the checks on what was generated, then the JS, the declarations and the package
# files. README.md ("How the package is built") says what each step does and why.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

OUT=pkg
NAME=embedded_wallet_kit
SIGNING_NAME=embedded_wallet_kit_signing
TESTING_NAME=embedded_wallet_kit_testing
WASM_OPT="$PWD/node_modules/.bin/wasm-opt"

say() { printf '[build] %s\n' "$*"; }

WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
HAVE_WB=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "${HAVE_WB}" != "${WB_VERSION}" ]; then
  echo "[build] wasm-bindgen ${HAVE_WB:-missing} != ${WB_VERSION} (Cargo.lock); run scripts/setup.sh" >&2
  exit 1
fi
if ! "${WASM_OPT}" --version 2>/dev/null | grep -q 'version 132'; then
  echo "[build] ${WASM_OPT} is not binaryen 132; run scripts/setup.sh (never use Debian's binaryen)" >&2
  exit 1
fi

# What the tools generate (wasm-bindgen's glue, declarations and .wasm) goes here; pkg/ is
# written from it by wasm-opt and esbuild, and nothing is edited in place.
GEN=target/wasm-bindgen
rm -rf "${OUT}" "${GEN}"
mkdir -p "${OUT}" "${GEN}"

# build_module <out-name> <crate> <features> <bindgen-dir> <wasm-out>: one cargo invocation
# per crate, so that no crate's features reach another's module; wasm-bindgen writes into
# <bindgen-dir>, wasm-opt writes <wasm-out>. Each module is no_std with the trapping
# panic handler, built as a cdylib alone so that LTO sees the whole module. The inlining
# settings (-inline-threshold=0 on the final crate; wasm-opt keeping single-caller
# functions out of line, so that V8 still inlines the hot calls) are smaller and faster:
# bench/results.md, "Measured by hand"; tests/js/v8-small-functions.test.mjs guards the
# second. The generated declarations are compared with their copies in tests/types/glue/
# and do not ship: the package's declarations are npm/*.d.ts.
# getrandom's custom backend, for the shipped modules only (the wasm32 tests keep its
# wasm_js backend): every random byte comes from the crypto.getRandomValues that
# npm/platform.js captured (bindings/common defines the backend).
RANDOM_BACKEND=(--config 'target.wasm32-unknown-unknown.rustflags=["--cfg", "getrandom_backend=\"custom\""]')

build_module() {
  local name=$1 crate=$2 gen=$4 wasm_out=$5
  local wasm_in="target/wasm32-unknown-unknown/release/${crate//-/_}.wasm"
  local features=ewk-common/trap-panics${3:+,$3}
  local codegen=(-C llvm-args=-inline-threshold=0)
  # The core's test-only `fault-injection` feature (it corrupts signatures) never ships,
  # whichever crate might switch it on; nor does `service` (the emulator's side).
  if cargo tree -p "${crate}" --target wasm32-unknown-unknown -e features,no-dev --features "${features}" \
      -i embedded-wallet-kit | grep -E 'embedded-wallet-kit feature "(fault-injection|service)"' >/dev/null; then
    echo "[build] ${crate} would build with the core's test-only fault-injection or service feature; refusing" >&2
    exit 1
  fi
  say "cargo rustc --lib --crate-type cdylib --release --target wasm32-unknown-unknown -p ${crate} --features ${features} ${RANDOM_BACKEND[*]} -- ${codegen[*]}"
  cargo rustc --lib --crate-type cdylib --release --target wasm32-unknown-unknown -p "${crate}" --features "${features}" \
    "${RANDOM_BACKEND[@]}" -- "${codegen[@]}"

  say "wasm-bindgen --target web --out-name ${name} ${wasm_in} -> ${gen}"
  wasm-bindgen --target web --remove-name-section --remove-producers-section \
    --out-dir "${gen}" --out-name "${name}" "${wasm_in}"

  say "wasm-opt -Oz --converge --one-caller-inline-max-function-size 0 -> ${wasm_out} ($("${WASM_OPT}" --version))"
  "${WASM_OPT}" -Oz --converge --one-caller-inline-max-function-size 0 "${gen}/${name}_bg.wasm" -o "${wasm_out}"
}

# The wallet module without the enclave exports: only its .wasm ships, driven by the glue
# of the build with them, which check-no-enclave allows.
build_module "${NAME}" ewk-wallet "" "${GEN}/no-enclave" "${OUT}/${NAME}_no_enclave_bg.wasm"
build_module "${NAME}" ewk-wallet ewk-wallet/enclave "${GEN}" "${OUT}/${NAME}_bg.wasm"
node scripts/check-no-enclave.mjs "${OUT}/${NAME}_bg.wasm" "${OUT}/${NAME}_no_enclave_bg.wasm"
build_module "${SIGNING_NAME}" ewk-signing "" "${GEN}" "${OUT}/${SIGNING_NAME}_bg.wasm"
build_module "${TESTING_NAME}" ewk-testing "" "${GEN}" "${OUT}/${TESTING_NAME}_bg.wasm"
GLUES=()
for name in "${NAME}" "${SIGNING_NAME}" "${TESTING_NAME}"; do
  GLUES+=("${GEN}/${name}.js")
  node scripts/check-glue-types.mjs "${GEN}/${name}.d.ts" "tests/types/glue/${name}.d.ts"
done

# The glues import KitError (all three) and the page's WebCrypto and Date.now as captured
# (the two that hold keys) from ./platform.js, the kit's own npm/platform.js shipped next to
# them (bindings/common imports it by that name in the shipped build): the entries import
# the very same module, so there is one KitError class for instanceof and one capture,
# made when the kit's modules are evaluated. Nothing under snippets/.
if [ -n "$(find "${GEN}" -name snippets)" ]; then
  echo "[build] wasm-bindgen wrote a snippets/ directory: bindings/common must import npm/platform.js by raw_module in the shipped build" >&2
  exit 1
fi
for glue in "${GLUES[@]}"; do
  if ! grep -qE "from ?['\"]\./platform\.js['\"]" "${glue}"; then
    echo "[build] the glue ${glue} does not import ./platform.js" >&2
    exit 1
  fi
done

# The isolated signer's Worker instantiates only the module it ships with: the build
# defines its SHA-256 in npm/signer-worker.js (esbuild's `define`), and the Worker checks
# the bytes against it before compiling them.
SIGNER_SHA256=$(sha256sum "${OUT}/${NAME}_bg.wasm" | cut -d' ' -f1)
say "signer-worker.js pins ${NAME}_bg.wasm: sha256 ${SIGNER_SHA256}"
# Every module in npm/ ships, minified with a source map to the code as written (the
# documentation is in the .d.ts files and the README); the glues minified without one
# (wasm-bindgen generates them from the Rust bindings).
say "esbuild: npm/*.js and the glues -> ${OUT}/"
node scripts/minify.mjs --out "${OUT}" --map --define "SIGNER_MODULE_SHA256=${SIGNER_SHA256}" npm/*.js
node scripts/minify.mjs --out "${OUT}" "${GLUES[@]}"
cp npm/*.d.ts "${OUT}/"
cp npm/package.json npm/README.md npm/LICENSE "${OUT}/"

say "done: $(cd "${OUT}" && find . -type f | sort | tr '\n' ' ')"
ls -l "${OUT}/${NAME}_bg.wasm" "${OUT}/${NAME}_no_enclave_bg.wasm" "${OUT}/${NAME}.js" "${OUT}/${SIGNING_NAME}_bg.wasm" "${OUT}/${SIGNING_NAME}.js" \
  "${OUT}/${TESTING_NAME}_bg.wasm" "${OUT}/${TESTING_NAME}.js"
