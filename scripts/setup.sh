#!/usr/bin/env bash
# Installs what building and testing need, idempotently; fast when everything is there.
#   - the wasm32-unknown-unknown Rust target, rustfmt and clippy
#   - wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock
#   - Debian chromium + chromium-driver (headless browser tests)
#   - Debian valgrind (the constant-time check, tests/ct)
#   - Debian firefox-esr, webkit2gtk-driver (WebKitGTK's MiniBrowser) and xvfb, and
#     geckodriver 0.37.1 (cargo install --locked, cached in ~/.cargo/bin)
#   - the npm dev dependencies (npm ci) when node_modules is missing or stale
# Never installs Debian's `binaryen`: its wasm-opt (108) silently writes broken modules.
# wasm-opt comes from the npm package binaryen@132.0.0 (node_modules/.bin/wasm-opt).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '[setup] %s\n' "$*"; }

# --- Rust target and components -------------------------------------------------------
if ! rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for comp in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^${comp}"; then
    say "adding rust component ${comp}"
    rustup component add "${comp}"
  fi
done

# --- wasm-bindgen-cli pinned to Cargo.lock --------------------------------------------
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock missing: generating it"
  cargo generate-lockfile
fi
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "${WB_VERSION}" ]; then
  echo "[setup] could not find the wasm-bindgen version in Cargo.lock" >&2
  exit 1
fi
HAVE_WB=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
HAVE_RUNNER=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}' || true)
if [ "${HAVE_WB}" != "${WB_VERSION}" ] || [ "${HAVE_RUNNER}" != "${WB_VERSION}" ]; then
  say "installing wasm-bindgen-cli ${WB_VERSION} (have '${HAVE_WB:-none}'); takes ~2 min on 2 cores"
  # No --locked: the registry mirror lacks a crate version the upstream lockfile pins.
  cargo install wasm-bindgen-cli --version "${WB_VERSION}" --force
fi

# --- Chromium + ChromeDriver (Debian) --------------------------------------------------
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "installing Debian chromium + chromium-driver"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # NOT binaryen: Debian's wasm-opt 108 corrupts wasm-bindgen output.
  $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# --- Firefox ESR + WebKitGTK's WebDriver + Xvfb (Debian) ------------------------------
# The browser suites also run in Gecko (Firefox ESR through geckodriver) and WebKit
# (WebKitGTK's MiniBrowser through WebKitWebDriver, which needs an X display: Xvfb).
WEBKIT_DIR=/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1
if ! command -v firefox-esr >/dev/null 2>&1 || ! command -v WebKitWebDriver >/dev/null 2>&1 \
   || [ ! -x "${WEBKIT_DIR}/MiniBrowser" ] || ! command -v Xvfb >/dev/null 2>&1; then
  say "installing Debian firefox-esr + webkit2gtk-driver + xvfb"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends firefox-esr webkit2gtk-driver xvfb >/dev/null
fi

# --- valgrind (Debian): the constant-time check, tests/ct (memcheck and its header) -----
if ! command -v valgrind >/dev/null 2>&1 || [ ! -f /usr/include/valgrind/memcheck.h ]; then
  say "installing Debian valgrind"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi

# --- geckodriver (not packaged by Debian 12), pinned, built once into ~/.cargo/bin -------
GECKODRIVER_VERSION=0.37.1
HAVE_GECKODRIVER=$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }' || true)
if [ "${HAVE_GECKODRIVER}" != "${GECKODRIVER_VERSION}" ]; then
  say "installing geckodriver ${GECKODRIVER_VERSION} (have '${HAVE_GECKODRIVER:-none}'); takes ~3 min on 2 cores"
  cargo install --locked geckodriver --version "${GECKODRIVER_VERSION}" --force
fi

# --- npm dev dependencies ---------------------------------------------------------------
# node_modules/.package-lock.json is npm's record of what is installed; it is newer than
# package-lock.json after a successful `npm ci`/`npm install`.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
   || [ package.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

WASM_OPT_VERSION=$(node_modules/.bin/wasm-opt --version 2>/dev/null || true)
case "${WASM_OPT_VERSION}" in
  *"version 132"*) ;;
  *) echo "[setup] node_modules/.bin/wasm-opt is not binaryen 132: '${WASM_OPT_VERSION}'" >&2; exit 1 ;;
esac
say "ok: wasm-bindgen ${WB_VERSION}, ${WASM_OPT_VERSION}, $(chromium --version 2>/dev/null | tail -n1), $(firefox-esr --version 2>/dev/null | tail -n1), geckodriver ${GECKODRIVER_VERSION}, $(valgrind --version), WebKitGTK $(dpkg-query -W -f '${Version}' libwebkit2gtk-4.1-0 2>/dev/null || echo '?'), node $(node --version)"
