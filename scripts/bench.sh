#!/usr/bin/env bash
# Release build, then the benchmark table (scripts/bench.py). Usage: scripts/bench.sh [RUNS]
# --wine [RUNS]: the Windows build's hooks under wine next to the Linux build's, and the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
wine=()
if [ "${1:-}" = --wine ]; then
  shift
  scripts/setup.sh --windows
  scripts/build.sh --windows >/dev/null
  wine=(--wine="$PWD/build-windows/bin")
fi
scripts/setup.sh # also GNU time (peak RSS), nginx and valgrind (HTTPS and instruction rows)
BUILD_DIR=build-release scripts/build.sh -DCMAKE_BUILD_TYPE=Release -DMEM0_BUILD_TESTS=OFF >/dev/null
python3 scripts/bench.py "$PWD/build-release/bin" "${1:-30}" "${wine[@]}"
