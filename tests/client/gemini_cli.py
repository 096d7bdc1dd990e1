"""Install a pinned Gemini CLI from npm into a cache directory and find its `gemini` script.

The npm package `@google/gemini-cli` is a bundled Node.js program (`bundle/gemini.js`, Node 20
or newer); its optional native dependencies (keytar, node-pty) are not needed headless, so npm
may skip their install scripts.

    gemini = ensure_gemini_cli()   # path of a working `gemini`, or raises Unavailable
    write_settings(home, hooks)    # $HOME/.gemini/settings.json: API-key auth, quiet, hooks
    proc = run(gemini, prompt, cwd, client_env(home, api.url, MEM0_BASE_URL=...))

Running Gemini CLI 0.61.0 headless against a loopback stand-in (docs/agents.md#gemini-cli):
- `GOOGLE_GEMINI_BASE_URL` points every model call at the stand-in, but only with
  `security.auth.selectedType: "gemini-api-key"` in the settings and `GEMINI_API_KEY` set;
- `GEMINI_CLI_TRUST_WORKSPACE=true` runs in a folder not yet trusted (else `-p` refuses);
- `privacy.usageStatisticsEnabled: false` keeps it off the network: with it, the only
  connections it opens are to the stand-in (seen with strace); without it, it looks up the
  usage-statistics host. `telemetry.enabled` and the update check are off too.
"""

import json
import os
import re
import shutil
import subprocess

import npmcache

PACKAGE = "@google/gemini-cli"
# Pinned so the test sees the same client every run; MEM0_GEMINI_CLI_VERSION overrides.
GEMINI_CLI_VERSION = "0.61.0"
NODE_MAJOR_MIN = 20


Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_GEMINI_CLI_VERSION") or GEMINI_CLI_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_GEMINI_CLI_DIR", "gemini-cli")


def settings(hooks=None):
    """The settings of a test run: API-key auth, nothing sent elsewhere, and `hooks`."""
    out = {"security": {"auth": {"selectedType": "gemini-api-key"}},
           "privacy": {"usageStatisticsEnabled": False},
           "telemetry": {"enabled": False},
           "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}}
    if hooks is not None:
        out["hooks"] = hooks
    return out


def write_settings(home, hooks=None):
    """Write $HOME/.gemini/settings.json for a test run; returns its path."""
    path = os.path.join(home, ".gemini", "settings.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(settings(hooks), fh, indent=2)
    return path


def client_env(home, gemini_url, **extra):
    """The whole environment of a `gemini` run, built from scratch (none of the caller's
    GEMINI_* / GOOGLE_* / XDG_*): the stand-in's URL, a test API key, a trusted workspace.
    `extra` adds to it (MEM0_BASE_URL, MEM0_API_KEY, ...)."""
    return npmcache.scratch_env(home, {"TERM": "dumb", "GOOGLE_GEMINI_BASE_URL": gemini_url,
                                       "GEMINI_API_KEY": "gemini-test-key-0000",
                                       "GEMINI_CLI_TRUST_WORKSPACE": "true"}, extra)


def run(exe, prompt, cwd, env, args=(), timeout=180):
    """`gemini -p <prompt> [args]` in cwd; the subprocess.CompletedProcess (text)."""
    return subprocess.run([exe, "-p", prompt, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _quiet_env(home):
    """An environment without the caller's GEMINI_* / GOOGLE_* and with a scratch HOME, so that
    asking the version neither reads nor writes the user's ~/.gemini."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env["HOME"] = home
    return env


def _reports_version(exe, want):
    proc = npmcache.version_run(exe, _quiet_env)
    return proc is not None and proc.stdout.strip().startswith(want)


def find_gemini(prefix, want):
    """The `gemini` under an npm prefix when it runs and reports version `want`, else None."""
    exe = os.path.join(prefix, "node_modules", ".bin", "gemini")
    if os.path.isfile(exe) and os.access(exe, os.X_OK) and _reports_version(exe, want):
        return exe
    return None


def _check_node():
    node = shutil.which("node")
    if not node:
        raise Unavailable("node is not installed")
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"node --version failed: {exc}")
    match = re.match(r"v(\d+)\.", out.strip())
    if not match or int(match.group(1)) < NODE_MAJOR_MIN:
        raise Unavailable(f"{PACKAGE} needs Node {NODE_MAJOR_MIN} or newer, found {out.strip()!r}")


def ensure_gemini_cli(log=print):
    """Return the path of a working `gemini` of the pinned version, installing it if needed."""
    _check_node()
    return npmcache.ensure("Gemini CLI", PACKAGE, version(), cache_dir(), find_gemini,
                           npm_args=("--loglevel=error",), log=log)


if __name__ == "__main__":  # manual use: print the path, installing first when needed
    try:
        print(ensure_gemini_cli(log=lambda m: print(m, flush=True)))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
