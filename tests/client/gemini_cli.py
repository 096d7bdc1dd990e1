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

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

PACKAGE = "@google/gemini-cli"
# Pinned so the test sees the same client every run; MEM0_GEMINI_CLI_VERSION overrides.
GEMINI_CLI_VERSION = "0.61.0"
NODE_MAJOR_MIN = 20
INSTALL_TIMEOUT_S = 600


class Unavailable(Exception):
    """Gemini CLI cannot be installed here (no npm, no Node 20, no registry)."""


def version():
    return os.environ.get("MEM0_GEMINI_CLI_VERSION") or GEMINI_CLI_VERSION


def cache_dir():
    explicit = os.environ.get("MEM0_GEMINI_CLI_DIR")
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mem0-native-hooks", "gemini-cli")


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
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
           "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb",
           "GOOGLE_GEMINI_BASE_URL": gemini_url,
           "GEMINI_API_KEY": "gemini-test-key-0000",
           "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(extra)
    return env


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
    home = tempfile.mkdtemp(prefix="gemini-version-")
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=_quiet_env(home))
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return proc.returncode == 0 and proc.stdout.strip().startswith(want)


def find_gemini(prefix, want):
    """The `gemini` under an npm prefix when it runs and reports version `want`, else None."""
    exe = os.path.join(prefix, "node_modules", ".bin", "gemini")
    if os.path.isfile(exe) and os.access(exe, os.X_OK) and _reports_version(exe, want):
        return exe
    return None


def _installed_version(prefix):
    try:
        with open(os.path.join(prefix, "node_modules", "@google", "gemini-cli",
                               "package.json"), encoding="utf-8") as fh:
            return json.load(fh).get("version")
    except (OSError, ValueError):
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
    want = version()
    root = cache_dir()
    prefix = os.path.join(root, want)  # one npm prefix per version: switching back is free
    _check_node()
    if _installed_version(prefix) == want:
        exe = find_gemini(prefix, want)
        if exe:
            log(f"Gemini CLI {want}: reusing {exe}")
            return exe
    npm = shutil.which("npm")
    if not npm:
        raise Unavailable("npm is not installed")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent run installs once, the other reuses
        if _installed_version(prefix) == want:
            exe = find_gemini(prefix, want)
            if exe:
                return exe
        staging = tempfile.mkdtemp(prefix=f".{want}-", dir=root)
        try:
            log(f"Gemini CLI {want}: installing {PACKAGE}@{want} with npm into {prefix} ...")
            start = time.monotonic()
            cmd = [npm, "install", "--prefix", staging, "--no-audit", "--no-fund",
                   "--no-save", "--engine-strict=false", "--loglevel=error",
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
            log(f"Gemini CLI {want}: npm install took {time.monotonic() - start:.1f} s")
            if os.path.exists(prefix):
                shutil.rmtree(prefix)
            os.rename(staging, prefix)  # .bin/gemini is a relative link: it survives this
            staging = None
        finally:
            if staging:
                shutil.rmtree(staging, ignore_errors=True)
    exe = find_gemini(prefix, want)
    if not exe:
        raise Unavailable(f"{PACKAGE}@{want} installed under {prefix} but `gemini --version` "
                          f"does not report {want}")
    log(f"Gemini CLI {want}: {exe}")
    return exe


if __name__ == "__main__":  # manual use: print the path, installing first when needed
    try:
        print(ensure_gemini_cli(log=lambda m: print(m, flush=True)))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
