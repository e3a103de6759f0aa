#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 8: the smoke inside `make test`;
# `make fuzz` runs long). Stable toolchain: `-s none` (no sanitizer; the sanitizers need
# nightly). Prints the executions per target; exits non-zero on any crash. FUZZ_JOBS
# targets run at once (default 1; each fuzzer is one process on one core).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

SECONDS_PER_TARGET="${1:-8}"
shift || true

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "[fuzz] installing cargo-fuzz (about 45 s)"
  cargo install cargo-fuzz
fi

TARGETS=("$@")
if [ "${#TARGETS[@]}" -eq 0 ]; then
  mapfile -t TARGETS < <(cargo fuzz list)
fi

echo "[fuzz] building ${#TARGETS[@]} targets (release, -s none)"
cargo fuzz build -s none -O

LOGDIR=$(mktemp -d)
trap 'rm -rf "$LOGDIR"' EXIT
printf '| target | seconds | executions | result |\n|---|---|---|---|\n' > "$LOGDIR/table"
# One target: its log and its result (ok or CRASH) in $LOGDIR.
fuzz_target() {
  local t=$1
  mkdir -p "fuzz/corpus/$t"
  local seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds=("fuzz/seeds/$t")
  if cargo fuzz run -s none -O "$t" "fuzz/corpus/$t" "${seeds[@]}" -- \
       -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 > "$LOGDIR/$t.log" 2>&1; then
    echo ok > "$LOGDIR/$t.result"
  else
    echo CRASH > "$LOGDIR/$t.result"
  fi
}
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-1}" ]; do wait -n || true; done
  fuzz_target "$t" &
done
wait
status=0
for t in "${TARGETS[@]}"; do
  result=$(cat "$LOGDIR/$t.result")
  if [ "$result" != ok ]; then
    status=1
    tail -n 40 "$LOGDIR/$t.log"
  fi
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$LOGDIR/$t.log" | grep -oE '[0-9]+$' | tail -n1 || true)
  printf '| %s | %s | %s | %s |\n' "$t" "$SECONDS_PER_TARGET" "${runs:-?}" "$result" >> "$LOGDIR/table"
done
cat "$LOGDIR/table"
exit "$status"
