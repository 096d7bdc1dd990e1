#!/usr/bin/env bash
# Build the libFuzzer targets (tests/fuzz, clang + ASan + UBSan) into build-fuzz/ and run each
# for SECONDS_PER_TARGET (default 60), all targets unless some are named (hook_input,
# api_response, format, redact_detect, git_remote). Prints each target's executions; exits
# non-zero when any target crashes, leaving the input in build-fuzz/crashes/.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
scripts/setup.sh --fuzz
build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
cmake -S . -B "$build_dir" -C tests/fuzz/fuzz.cmake >/dev/null
cmake --build "$build_dir" --target fuzzers -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for bin in "$build_dir"/bin/fuzz_*; do targets+=("${bin##*/fuzz_}"); done
fi
mkdir -p "$build_dir/logs"
failed=()
for target in "${targets[@]}"; do
  log=$build_dir/logs/$target.log
  if tests/fuzz/run_fuzzer.sh "$build_dir/bin/fuzz_$target" "$target" "$seconds" "$build_dir" \
    >"$log" 2>&1; then
    echo "fuzz $target: ok, $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1)"
  else
    failed+=("$target")
    echo "fuzz $target: FAILED (log: $log)"
    grep -E 'ERROR:|runtime error|invariant violated|Test unit written to' "$log" | sed 's/^/  /' || true
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: crashes in ${failed[*]}" >&2; exit 1; }
