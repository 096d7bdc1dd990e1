#!/usr/bin/env bash
# Release build into build-package/ (or $BUILD_DIR), then cpack: a .tar.gz and, on Linux, a .deb
# in <build dir>/packages/, each holding the stripped executables (bin/) and the Claude Code plugin
# that runs them (share/mem0-native-hooks/plugin/). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-package}
case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DMEM0_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc 2>/dev/null || echo 2)"
cpack --config "$build_dir/CPackConfig.cmake" -B "$build_dir/packages" >/dev/null
ls -l "$build_dir"/packages/*.tar.gz "$build_dir"/packages/*.deb 2>/dev/null || true
