#!/usr/bin/env bash
# Release build, then the benchmark table (scripts/bench.py). Usage: scripts/bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh # also GNU time (peak RSS), nginx and valgrind (HTTPS and instruction rows)
BUILD_DIR=build-release scripts/build.sh -DCMAKE_BUILD_TYPE=Release -DMEM0_BUILD_TESTS=OFF >/dev/null
python3 scripts/bench.py "$PWD/build-release/bin" "${1:-30}"
