#!/usr/bin/env bash
# Configure and build what a user runs (the hooks and mem0-hooks) into build/ (or $BUILD_DIR).
# Extra arguments go to cmake's configure step. The build dependencies come first: run
# scripts/setup.sh once on a fresh machine. MEM0_BUILD_ALL=1 builds the tests too (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" "$@" >/dev/null
target=(--target executables)
[ "${MEM0_BUILD_ALL:-}" = 1 ] && target=()
cmake --build "$build_dir" -j"$(nproc 2>/dev/null || echo 2)" "${target[@]}"
