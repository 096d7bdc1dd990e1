"""Install a pinned Claude Code from npm into a cache directory and find its `claude` binary.

The npm package `@anthropic-ai/claude-code` is a thin wrapper: the real client is a native
executable shipped in a per-platform optional dependency (`@anthropic-ai/claude-code-linux-x64`
and friends). Its postinstall script copies that binary over the wrapper's `bin/claude.exe`
placeholder; when npm runs no install scripts (`ignore-scripts`, or a newer npm that asks
for approval first) the placeholder stays, so the platform package's binary is tried first.

    claude = ensure_claude_code()   # path of a working `claude`, or raises Unavailable
"""

import os

import npmcache

PACKAGE = "@anthropic-ai/claude-code"
# Pinned so the test sees the same client every run; MEM0_CLAUDE_CODE_VERSION overrides.
CLAUDE_CODE_VERSION = "2.1.332"


Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_CLAUDE_CODE_VERSION") or CLAUDE_CODE_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_CLAUDE_CODE_DIR", "claude-code")


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
    proc = npmcache.version_run(exe, lambda _home: _quiet_env())
    return proc is not None and proc.stdout.strip().startswith(want)


def _quiet_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    return env


def find_claude(prefix, want):
    """The first candidate binary under an npm prefix that runs and reports version `want`."""
    return next((exe for exe in _candidates(prefix) if _reports_version(exe, want)), None)


def ensure_claude_code(log=print):
    """Return the path of a working `claude` of the pinned version, installing it if needed."""
    return npmcache.ensure("Claude Code", PACKAGE, version(), cache_dir(), find_claude,
                           npm_args=("--include=optional", "--loglevel=warn"), log=log)