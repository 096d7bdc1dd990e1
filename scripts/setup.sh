#!/usr/bin/env bash
# Install what building and testing need. Debian/Ubuntu: apt-get (as root or with sudo);
# macOS: prints the Homebrew line. Quick when everything is already there.
# --fuzz: also clang 16 with libFuzzer, for scripts/fuzz.sh and `scripts/test.sh --sanitize`.
# --libcxx: also clang 16 with LLVM's libc++, for `scripts/test.sh --libcxx`.
# --arm64: also the linux-arm64 cross toolchain, arm64 libcurl (multiarch) and qemu-user-static,
# for `scripts/build.sh --arm64` and `scripts/test.sh --arm64`.
# --windows: also mingw-w64 (the POSIX threads variant) and wine, for `scripts/build.sh --windows`
# and `scripts/test.sh --windows`.
set -euo pipefail

packages=(build-essential cmake pkg-config libcurl4-openssl-dev rapidjson-dev catch2 python3
          clang-format curl ca-certificates git time ccache)
# The HTTPS test bed (tests/tls), the benchmark's instruction counts and the trace of durable
# writes (tests/e2e/test_durability.py). Debian's nginx package has the ssl and http_v2 modules;
# the tests run it as the current user on loopback ports.
packages+=(nginx openssl valgrind strace)
# The memory console's HTTP server (Boost.Beast, header-only) and the browser of its test
# (tests/console; playwright-core comes from npm, pinned and cached, on first run).
packages+=(libboost-dev chromium)
for option in "$@"; do
  case "$option" in
  --fuzz) packages+=(clang-16 libclang-rt-16-dev llvm-16) ;; # llvm-16: the symbolizer for reports
  --libcxx) packages+=(clang-16 libc++-16-dev libc++abi-16-dev) ;;
  --arm64) packages+=(g++-aarch64-linux-gnu qemu-user-static libcurl4-openssl-dev:arm64) ;;
  --windows) packages+=(g++-mingw-w64-x86-64-posix wine wine64) ;;
  *) echo "setup: unknown option $option (known: --fuzz, --libcxx, --arm64, --windows)" >&2; exit 2 ;;
  esac
done

case "$(uname -s)" in
Darwin)
  # tl-expected: for an Xcode whose libc++ lacks std::expected (before Xcode 15).
  echo "macOS: brew install cmake curl rapidjson catch2 tl-expected clang-format python3 nginx openssl"
  exit 0
  ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: not a Debian/Ubuntu system; install: cmake, a C++23 compiler, libcurl (dev)," \
       "RapidJSON, Catch2, python3, clang-format" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
case " ${missing[*]}" in *:arm64*) "${sudo[@]}" dpkg --add-architecture arm64 ;; esac
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
