#!/usr/bin/env bash
# Release build into build-package/ (or $BUILD_DIR), then cpack: a .tar.gz and, on Linux, a .deb
# in <build dir>/packages/, each holding the stripped executables (bin/) and the Claude Code plugin
# that runs them (share/mem0-native-hooks/plugin/); then the npm packages of the same executables in
# <build dir>/npm/ (scripts/npm_package.py; docs/install.md#npm), with linux-arm64's too when
# build-arm64/bin holds them (scripts/build.sh --arm64), and win32-x64's, with a .zip of them, when
# build-windows/bin does (scripts/build.sh --windows). Extra arguments go to cmake's configure
# step.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-package}
case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DMEM0_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc 2>/dev/null || echo 2)"
cpack --config "$build_dir/CPackConfig.cmake" -B "$build_dir/packages" >/dev/null
ls -l "$build_dir"/packages/*.tar.gz "$build_dir"/packages/*.deb 2>/dev/null || true
python3 tests/release/check_binaries.py "$build_dir/bin" >/dev/null || [ $? = 77 ] # the link contract
case $(uname -sm) in
"Linux x86_64") platforms=(--platform "linux-x64=$build_dir/bin") ;;
"Linux aarch64") platforms=(--platform "linux-arm64=$build_dir/bin") ;;
"Darwin x86_64") platforms=(--platform "darwin-x64=$build_dir/bin") ;;
"Darwin arm64") platforms=(--platform "darwin-arm64=$build_dir/bin") ;;
*) echo "package.sh: no npm package for $(uname -sm)" >&2 && exit 0 ;;
esac
[ -x build-arm64/bin/on_user_prompt ] && [ "$(uname -sm)" = "Linux x86_64" ] &&
  platforms+=(--platform linux-arm64="$PWD/build-arm64/bin")
if [ -f build-windows/bin/on_user_prompt.exe ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
  platforms+=(--platform win32-x64="$PWD/build-windows/bin" --zip "$build_dir/packages")
fi
python3 scripts/npm_package.py --out "$build_dir/npm" --hooks-json "$build_dir/plugin/hooks.json" \
  "${platforms[@]}"
