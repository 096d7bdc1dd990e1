#!/usr/bin/env bash
# Run a Windows program under wine for the tests (cmake/mingw-w64.cmake's
# CMAKE_CROSSCOMPILING_EMULATOR, tests/windows): a prefix of our own, made once and kept in
# ~/.cache/mem0-native-hooks/wine-prefix (WINEPREFIX overrides), and a wineserver kept running
# (-p), so that each program starts in about 0.05 s instead of 2.4 s. wine's first program starts
# its services, which inherit that program's stdio: the prefix is warmed here with all output
# thrown away, before any output of ours is captured (docs/windows.md#testing-under-wine).
set -euo pipefail
export WINEPREFIX=${WINEPREFIX:-$HOME/.cache/mem0-native-hooks/wine-prefix}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=} # no Mono or Gecko installer dialog
wine=$(command -v wine64 || command -v wine)
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$WINEPREFIX"
  wineboot -i </dev/null >/dev/null 2>&1
fi
# A second wineserver for the same prefix exits at once: this starts one only when none runs.
wineserver -p </dev/null >/dev/null 2>&1 || true
# A new prefix says Windows 7; the hooks are for Windows 10 and later, as is Node.js 20, which
# the npm package's launcher runs on (tests/windows/test_wine_npm.py). Set once (the mark: wine
# writes its registry files only now and then), output thrown away (it may be the first program).
if [ ! -f "$WINEPREFIX/.mem0-win10" ]; then
  "$wine" reg add 'HKCU\Software\Wine' /v Version /d win10 /f </dev/null >/dev/null 2>&1 &&
    touch "$WINEPREFIX/.mem0-win10"
fi
if [ "${1:-}" = --warm ]; then
  "$wine" cmd /c exit </dev/null >/dev/null 2>&1 || true
  exit 0
fi
exec "$wine" "$@"
