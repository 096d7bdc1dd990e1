#!/usr/bin/env bash
# Install what is missing, build with warnings as errors, run every test with ctest, and check
# formatting. The README's test command; .ci/run runs it, then `--sanitize` and `--libcxx`.
# --sanitize: the ctest suite less the real-client tests on an ASan + UBSan build
# (build-sanitize/), then each fuzz target over its seeds and kept crash inputs plus a short
# fuzzing run (build-fuzz/, clang 16).
# --libcxx: the ctest suite less the real-client tests, built by clang 16 against LLVM's libc++
# (build-libcxx/, cmake/libcxx.cmake) with warnings as errors: a second compiler and standard
# library, as macOS has. The client_* tests drive the same executables through Claude Code, which
# a standard library does not change, and would add six minutes to the step's five.
# --arm64: the linux-arm64 cross-build (build-arm64/: the executables, the probe and the unit
# tests) under qemu-user-static: the link contract, the unit tests but those tagged [no-qemu]
# (docs/install.md#linux-arm64) and one end-to-end prompt run.
# Reported as SKIPPED when the cross toolchain cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = "--libcxx" ]; then
  scripts/setup.sh --libcxx
  cmake -S . -B build-libcxx -C cmake/libcxx.cmake >/dev/null
  cmake --build build-libcxx -j"$jobs"
  cd build-libcxx && exec ctest --output-on-failure -j2 -E '^client_'
fi
if [ "${1:-}" = "--arm64" ]; then
  if ! scripts/setup.sh --arm64; then
    echo "arm64: SKIPPED (the cross toolchain cannot be installed here)"
    exit 0
  fi
  # No -Werror: GCC 12 for aarch64 at -O3 reports -Wnull-dereference inside libstdc++ headers.
  scripts/build.sh --arm64
  cmake --build build-arm64 -j"$jobs" --target glibc_floor_probe unit_tests
  export MEM0_EXEC_WRAPPER="qemu-aarch64-static -L /usr/aarch64-linux-gnu"
  MEM0_BINUTILS_PREFIX=aarch64-linux-gnu- python3 tests/release/check_binaries.py \
    --probe build-arm64/bin/glibc_floor_probe build-arm64/bin
  $MEM0_EXEC_WRAPPER build-arm64/bin/unit_tests '~[no-qemu]' 2>/dev/null
  export MEM0_BIN_DIR=$PWD/build-arm64/bin
  cd tests/e2e && exec python3 test_on_user_prompt.py -v \
    OnUserPrompt.test_relevant_memory_is_injected_in_the_documented_format
fi
if [ "${1:-}" = "--windows" ]; then
  # docs/windows.md#testing-under-wine: the Windows build, its unit tests in one wine process (the
  # CTest entry unit_wine), then the end-to-end subset under wine, then the Windows packages (the
  # .zip, and the npm package installed by the real npm from a loopback registry).
  if ! scripts/setup.sh --windows; then
    echo "windows: SKIPPED (mingw-w64 or wine cannot be installed here)"
    exit 0
  fi
  scripts/build.sh --windows
  cmake --build build-windows -j"$jobs" --target unit_tests
  status=0
  scripts/wine-run.sh --warm # the prefix's services start now, not inside ctest's captured run
  ctest --test-dir build-windows --output-on-failure -R '^unit_wine$' || status=1
  for test in test_wine.py test_wine_npm.py; do
    (cd tests/windows && python3 "$test" -v) || case $? in
      77) if [ "$status" = 0 ]; then status=77; fi ;; # skipped; a failure still counts
      *) status=1 ;;
    esac
  done
  # The step leaves no wineserver behind (scripts/wine-run.sh keeps one running for its programs).
  WINEPREFIX=${WINEPREFIX:-$HOME/.cache/mem0-native-hooks/wine-prefix} wineserver -k 2>/dev/null || true
  [ "$status" = 77 ] && echo "windows: some cases SKIPPED (see above)" && status=0
  exit $status
fi
if [ "${1:-}" = "--sanitize" ]; then
  scripts/setup.sh --fuzz
  # Every report fails the program that made it, and so its test: leaks at exit included.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # -O1 with line tables: the sanitizers' usual level, and half the build time of -O2 -g.
  MEM0_BUILD_ALL=1 BUILD_DIR=build-sanitize scripts/build.sh -DMEM0_WERROR=ON -DMEM0_SANITIZE=address,undefined \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
  status=0
  # Less the real-client tests, as --libcxx: the e2e tests run the same sanitized executables,
  # and the clients would add five minutes.
  (cd build-sanitize && ctest --output-on-failure -j2 -E '^client_') || status=1
  cmake -S . -B build-fuzz -C tests/fuzz/fuzz.cmake >/dev/null
  cmake --build build-fuzz --target fuzzers -j"$jobs"
  (cd build-fuzz && ctest --output-on-failure -j2) || status=1
  exit $status
fi
scripts/setup.sh
MEM0_BUILD_ALL=1 BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh -DMEM0_WERROR=ON
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j2)
scripts/format.sh --check
echo "format: ok"
