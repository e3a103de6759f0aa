#!/usr/bin/env bash
# Keeps the core's public Rust surface curated: the lines of rustdoc's
# all-items page for embedded-wallet-kit with its default features (every public struct,
# enum, trait, function, type and constant, plus the page's section headings, as the
# issue counted them) must stay within the budget (default 80), and no public item may be
# kept off that page with #[doc(hidden)]. The service, testing and fault-injection
# features only add items, for emulators and tests; they are not counted. Broken doc links
# fail too (RUSTDOCFLAGS=-D warnings), since curation is where they break.
#   scripts/public-items.sh [BUDGET]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

BUDGET="${1:-80}"

if grep -rn --include='*.rs' 'doc(hidden)' src; then
  echo "[public-items] #[doc(hidden)] in src/: make it private, or public and counted" >&2
  exit 1
fi

RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p embedded-wallet-kit --quiet
page=target/doc/embedded_wallet_kit/all.html
count=$(grep -o '<li><a href="[^"]*"' "$page" | wc -l)
if [ "$count" -gt "$BUDGET" ]; then
  echo "[public-items] ${count} entries on rustdoc's all-items page, budget ${BUDGET}:" >&2
  grep -o '<li><a href="[^#"][^"]*"' "$page" | sed 's/<li><a href="//; s/"$//' >&2
  exit 1
fi
echo "[public-items] ${count} entries on rustdoc's all-items page (budget ${BUDGET})"
