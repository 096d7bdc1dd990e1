"""Install a pinned Claude Code from npm into a cache directory and find its `claude` binary.

The npm package `@anthropic-ai/claude-code` is a thin wrapper: the real client is a native
executable shipped in a per-platform optional dependency (`@anthropic-ai/claude-code-linux-x64`
and friends). Its postinstall script copies that binary over the wrapper's `bin/claude.exe`
placeholder; when npm runs no install scripts (`ignore-scripts`, or a newer npm that asks
for approval first) the placeholder stays, so the platform package's binary is tried first.

    claude = ensure_claude_code()   # path of a working `claude`, or raises Unavailable
"""

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

PACKAGE = "@anthropic-ai/claude-code"
# Pinned so the test sees the same client every run; MEM0_CLAUDE_CODE_VERSION overrides.
CLAUDE_CODE_VERSION = "2.1.332"
INSTALL_TIMEOUT_S = 600


class Unavailable(Exception):
    """Claude Code cannot be installed here (no npm, no registry, no binary for this platform)."""


def version():
    return os.environ.get("MEM0_CLAUDE_CODE_VERSION") or CLAUDE_CODE_VERSION


def cache_dir():
    explicit = os.environ.get("MEM0_CLAUDE_CODE_DIR")
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mem0-native-hooks", "claude-code")


def _candidates(prefix):
    scope = os.path.join(prefix, "node_modules", "@anthropic-ai")
    found = []
    if os.path.isdir(scope):
        for name in sorted(os.listdir(scope)):
            if name.startswith("claude-code-"):
                for exe in ("claude", "claude.exe"):
                    found.append(os.path.join(scope, name, exe))
    found.append(os.path.join(scope, "claude-code", "bin", "claude.exe"))
    found.append(os.path.join(prefix, "node_modules", ".bin", "claude"))
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def _reports_version(exe, want):
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=_quiet_env())
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.strip().startswith(want)


def _quiet_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def find_claude(prefix, want):
    """The first candidate binary under an npm prefix that runs and reports version `want`."""
    for exe in _candidates(prefix):
        if _reports_version(exe, want):
            return exe
    return None


def _installed_version(prefix):
    try:
        with open(os.path.join(prefix, "node_modules", "@anthropic-ai", "claude-code",
                               "package.json"), encoding="utf-8") as fh:
            return json.load(fh).get("version")
    except (OSError, ValueError):
        return None


def ensure_claude_code(log=print):
    """Return the path of a working `claude` of the pinned version, installing it if needed."""
    want = version()
    root = cache_dir()
    prefix = os.path.join(root, want)  # one npm prefix per version: switching back is free
    if _installed_version(prefix) == want:
        exe = find_claude(prefix, want)
        if exe:
            log(f"Claude Code {want}: reusing {exe}")
            return exe
    npm = shutil.which("npm")
    if not npm:
        raise Unavailable("npm is not installed")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent run installs once, the other reuses
        if _installed_version(prefix) == want:
            exe = find_claude(prefix, want)
            if exe:
                return exe
        staging = tempfile.mkdtemp(prefix=f".{want}-", dir=root)
        try:
            log(f"Claude Code {want}: installing {PACKAGE}@{want} with npm into {prefix} ...")
            start = time.monotonic()
            cmd = [npm, "install", "--prefix", staging, "--no-audit", "--no-fund",
                   "--no-save", "--include=optional", "--engine-strict=false",
                   "--loglevel=warn",
                   # Fail within minutes, not npm's default 5-minute timeout per attempt,
                   # when the registry cannot be reached (the test then reports SKIPPED).
                   "--fetch-timeout=60000", "--fetch-retries=2",
                   "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000",
                   f"{PACKAGE}@{want}"]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, cwd=staging,
                                      timeout=INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                raise Unavailable(f"npm install did not finish in {INSTALL_TIMEOUT_S} s")
            if proc.returncode != 0:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
                raise Unavailable(f"npm install failed (exit {proc.returncode}):\n{tail}")
            log(f"Claude Code {want}: npm install took {time.monotonic() - start:.1f} s")
            if not find_claude(staging, want):
                raise Unavailable(f"{PACKAGE}@{want} installed but no working native `claude` "
                                  f"binary for this platform was found")
            if os.path.exists(prefix):
                shutil.rmtree(prefix)
            os.rename(staging, prefix)
            staging = None
        finally:
            if staging:
                shutil.rmtree(staging, ignore_errors=True)
    exe = find_claude(prefix, want)  # look again: absolute paths changed with the rename
    if not exe:
        raise Unavailable(f"no working `claude` under {prefix}")
    log(f"Claude Code {want}: {exe}")
    return exe
