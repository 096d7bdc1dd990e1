#!/usr/bin/env bash
# Run one fuzz target over its seeds (corpus/TARGET) and kept crash inputs (regressions/TARGET):
# SECONDS 0 only replays them; otherwise it replays them, then fuzzes for SECONDS. New inputs go
# to WORK_DIR/corpus/TARGET, crashes to WORK_DIR/crashes/. Exits non-zero when any input crashes
# or breaks an invariant.
# Usage: run_fuzzer.sh FUZZER TARGET SECONDS WORK_DIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 FUZZER TARGET SECONDS WORK_DIR" >&2; exit 2; }
fuzzer=$1 target=$2 seconds=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)

inputs=("$here/corpus/$target")
[ -d "$here/regressions/$target" ] && inputs+=("$here/regressions/$target")
mkdir -p "$work/corpus/$target" "$work/crashes"
options=(-rss_limit_mb=2048 -max_len=65536 -timeout=10 -artifact_prefix="$work/crashes/$target-")

if [ "$seconds" -eq 0 ]; then
  echo "== $target: replaying ${inputs[*]}"
  exec "$fuzzer" "${options[@]}" -runs=0 "${inputs[@]}"
fi
echo "== $target: fuzzing for ${seconds}s"
exec "$fuzzer" "${options[@]}" -max_total_time="$seconds" "$work/corpus/$target" "${inputs[@]}"
