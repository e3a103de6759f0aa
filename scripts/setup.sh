#!/usr/bin/env bash
# Installs what building and testing need, idempotently; fast when everything is there.
#   - the wasm32-unknown-unknown Rust target, rustfmt and clippy
#   - with `cargo install` (in ~/.cargo/bin): wasm-bindgen-cli at exactly the wasm-bindgen
#     version in Cargo.lock, geckodriver 0.37.1 (--locked), cargo-fuzz
#   - Debian chromium + chromium-driver (headless browser tests)
#   - Debian valgrind (the constant-time check, tests/ct)
#   - Debian firefox-esr, webkit2gtk-driver (WebKitGTK's MiniBrowser) and xvfb
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

# --- Tools built with `cargo install`, in the background ---------------------------------
# wasm-bindgen-cli (pinned to Cargo.lock), geckodriver (Debian 12 has none) and cargo-fuzz
# compile for minutes on a fresh machine while apt and npm mostly wait on the network:
# they build side by side with those (cargo runs each install in its own target dir), and
# setup waits for them at the end. Each one's log is shown only if it fails. geckodriver
# (a proxy between WebDriver's HTTP and Firefox) and cargo-fuzz (a command line) are built
# without optimisation, which halves their build; wasm-bindgen's work on every build and
# test run wants it.
NO_OPT=(--config profile.release.opt-level=0)
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock missing: generating it"
  cargo generate-lockfile
fi
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "${WB_VERSION}" ]; then
  echo "[setup] could not find the wasm-bindgen version in Cargo.lock" >&2
  exit 1
fi
GECKODRIVER_VERSION=0.37.1
INSTALL_LOGS=$(mktemp -d)
# On a failure elsewhere the installs still running are stopped.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$INSTALL_LOGS"' EXIT
INSTALLS=()
# Starts `cargo install ARGS...` in the background, logged under the name $1.
cargo_install() {
  local name=$1
  shift
  cargo install "$@" >"${INSTALL_LOGS}/${name}.log" 2>&1 &
  INSTALLS+=("${name}:$!")
}
HAVE_WB=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
HAVE_RUNNER=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}' || true)
if [ "${HAVE_WB}" != "${WB_VERSION}" ] || [ "${HAVE_RUNNER}" != "${WB_VERSION}" ]; then
  say "installing wasm-bindgen-cli ${WB_VERSION} (have '${HAVE_WB:-none}'), in the background"
  # No --locked: the registry mirror lacks a crate version the upstream lockfile pins.
  cargo_install wasm-bindgen-cli wasm-bindgen-cli --version "${WB_VERSION}" --force
fi
HAVE_GECKODRIVER=$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }' || true)
if [ "${HAVE_GECKODRIVER}" != "${GECKODRIVER_VERSION}" ]; then
  say "installing geckodriver ${GECKODRIVER_VERSION} (have '${HAVE_GECKODRIVER:-none}'), in the background"
  cargo_install geckodriver "${NO_OPT[@]}" --locked geckodriver --version "${GECKODRIVER_VERSION}" --force
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz, in the background"
  cargo_install cargo-fuzz "${NO_OPT[@]}" cargo-fuzz
fi

# --- Debian packages: one apt-get update for whatever is missing -----------------------
# Chromium + ChromeDriver (with their recommends, as always) for the headless browser
# tests; Firefox ESR, WebKitGTK's WebDriver and Xvfb for the browser suites in Gecko
# (through geckodriver) and WebKit (WebKitGTK's MiniBrowser through WebKitWebDriver, which
# needs an X display: Xvfb); valgrind for the constant-time check, tests/ct (memcheck and
# its header). NOT binaryen: Debian's wasm-opt 108 corrupts wasm-bindgen output.
WEBKIT_DIR=/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1
APT_CHROMIUM=()
APT_OTHERS=()
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  APT_CHROMIUM=(chromium chromium-driver)
fi
if ! command -v firefox-esr >/dev/null 2>&1 || ! command -v WebKitWebDriver >/dev/null 2>&1 \
   || [ ! -x "${WEBKIT_DIR}/MiniBrowser" ] || ! command -v Xvfb >/dev/null 2>&1; then
  APT_OTHERS+=(firefox-esr webkit2gtk-driver xvfb)
fi
if ! command -v valgrind >/dev/null 2>&1 || [ ! -f /usr/include/valgrind/memcheck.h ]; then
  APT_OTHERS+=(valgrind)
fi
if [ "${#APT_CHROMIUM[@]}" -gt 0 ] || [ "${#APT_OTHERS[@]}" -gt 0 ]; then
  say "installing Debian ${APT_CHROMIUM[*]} ${APT_OTHERS[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  if [ "${#APT_CHROMIUM[@]}" -gt 0 ]; then $SUDO apt-get install -y -qq "${APT_CHROMIUM[@]}" >/dev/null; fi
  if [ "${#APT_OTHERS[@]}" -gt 0 ]; then $SUDO apt-get install -y -qq --no-install-recommends "${APT_OTHERS[@]}" >/dev/null; fi
fi

# --- npm dev dependencies ---------------------------------------------------------------
# node_modules/.package-lock.json is npm's record of what is installed; it is newer than
# package-lock.json after a successful `npm ci`/`npm install`.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
   || [ package.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

for install in "${INSTALLS[@]}"; do
  name=${install%%:*}
  if ! wait "${install#*:}"; then
    cat "${INSTALL_LOGS}/${name}.log" >&2
    echo "[setup] cargo install ${name} failed (its log above)" >&2
    exit 1
  fi
  say "installed ${name}"
done

WASM_OPT_VERSION=$(node_modules/.bin/wasm-opt --version 2>/dev/null || true)
case "${WASM_OPT_VERSION}" in
  *"version 132"*) ;;
  *) echo "[setup] node_modules/.bin/wasm-opt is not binaryen 132: '${WASM_OPT_VERSION}'" >&2; exit 1 ;;
esac
say "ok: wasm-bindgen ${WB_VERSION}, ${WASM_OPT_VERSION}, $(chromium --version 2>/dev/null | tail -n1), $(firefox-esr --version 2>/dev/null | tail -n1), geckodriver ${GECKODRIVER_VERSION}, $(valgrind --version), WebKitGTK $(dpkg-query -W -f '${Version}' libwebkit2gtk-4.1-0 2>/dev/null || echo '?'), node $(node --version)"
