#!/usr/bin/env bash
# The constant-time check (`make test-ct`): builds tests/ct natively (release settings,
# with debug info and without LTO, so that memcheck can name inlined frames for
# accepted.supp), then under `valgrind --error-exitcode=9`:
#   - ct-check (key generation, bundle open, stamp; secrets marked undefined) must pass,
#     with only the reports accepted by name in accepted.supp, the secrets seen to reach
#     all three operations;
#   - each control (a secret-dependent branch, a secret-indexed read) must fail, with
#     memcheck's report of that kind: the check is seen able to fail, every run.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"

export CARGO_PROFILE_CT_INHERITS=release CARGO_PROFILE_CT_DEBUG=2 CARGO_PROFILE_CT_LTO=false
cargo build --profile ct -p ewk-ct
BIN=target/ct
VALGRIND=(valgrind -q --error-exitcode=9 --num-callers=40 --suppressions=tests/ct/accepted.supp)

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
status=0

if "${VALGRIND[@]}" -s "$BIN/ct-check" 2>"$LOG"; then
  echo "[ct] ct-check: no secret-dependent branch or address outside accepted.supp"
  # Not vacuous: ct-check asserts that the secrets reach the public keys; here, that they
  # reach the signature (memcheck met, and accepted, the DER encoding's branches on it).
  if ! grep -q "used_suppression: .* the signature's DER (public)" "$LOG"; then
    echo "[ct] ct-check FAILED: the session key did not reach the signature" >&2
    status=1
  fi
else
  cat "$LOG" >&2
  echo "[ct] ct-check FAILED: memcheck reported the above (a finding, or a check to accept by name with its reason)" >&2
  status=1
fi

for control in "branch:Conditional jump or move depends on uninitialised value" \
                "index:Use of uninitialised value of size 8"; do
  name=${control%%:*}
  report=${control#*:}
  rc=0
  "${VALGRIND[@]}" "$BIN/ct-control" "$name" >/dev/null 2>"$LOG" || rc=$?
  if [ "$rc" -eq 9 ] && grep -q "$report" "$LOG"; then
    echo "[ct] control '$name': failed as it must (exit 9, \"$report\")"
  else
    cat "$LOG" >&2
    echo "[ct] control '$name' FAILED: expected exit 9 with \"$report\", got exit $rc" >&2
    status=1
  fi
done
exit "$status"
