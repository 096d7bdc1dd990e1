#!/usr/bin/env bash
# Configure and build what a user runs (the hooks and mem0-hooks) into build/ (or $BUILD_DIR).
# Extra arguments go to cmake's configure step. The build dependencies come first: run
# scripts/setup.sh once on a fresh machine. MEM0_BUILD_ALL=1 builds the tests too (scripts/test.sh).
# --arm64: cross-build for linux-arm64 into build-arm64/ (scripts/setup.sh --arm64 installs the
# toolchain; cmake/aarch64-linux-gnu.cmake).
# --windows: cross-build for Windows x64 into build-windows/bin/*.exe (scripts/setup.sh --windows
# installs mingw-w64 and wine; cmake/mingw-w64.cmake; docs/windows.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
if [ "${1:-}" = --arm64 ]; then
  shift
  build_dir=${BUILD_DIR:-build-arm64}
  set -- -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" -DCMAKE_BUILD_TYPE=Release "$@"
elif [ "${1:-}" = --windows ]; then
  shift
  build_dir=${BUILD_DIR:-build-windows}
  set -- -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64.cmake" -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake -S . -B "$build_dir" "$@" >/dev/null
target=(--target executables)
[ "${MEM0_BUILD_ALL:-}" = 1 ] && target=()
cmake --build "$build_dir" -j"$(nproc 2>/dev/null || echo 2)" "${target[@]}"
