#!/usr/bin/env bash
# Install what is missing, build with warnings as errors, run every test with ctest, and check
# formatting. The README's test command; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh -DMEM0_WERROR=ON
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j2)
scripts/format.sh --check
echo "format: ok"
