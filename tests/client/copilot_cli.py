"""Install a pinned GitHub Copilot CLI from npm into a cache directory and find its native
`copilot`.

The npm package `@github/copilot` is a Node launcher (`npm-loader.js`); the client is a native
executable in a per-platform optional dependency (`@github/copilot-linux-x64/copilot`), run
directly here. Its first start unpacks about 235 MB into `$XDG_CACHE_HOME/copilot/pkg`
(default ~/.cache): client_env points XDG_CACHE_HOME into this cache, so that is paid once.

    copilot = ensure_copilot()   # path of a working native `copilot`, or raises Unavailable
    proc = run(copilot, prompt, cwd, client_env(home, model_url, MEM0_BASE_URL=...))

Headless: `copilot -p <prompt> --allow-all-tools -s` with the model provider named by
COPILOT_PROVIDER_* (here the Responses API of tests/client/fake_openai.py), offline and without
updates; hooks in `$COPILOT_HOME/hooks/*.json` run without a trust step
(docs/agents.md#github-copilot-cli).
"""

import os
import subprocess

import npmcache

PACKAGE = "@github/copilot"
# Pinned so the test sees the same client every run; MEM0_COPILOT_VERSION overrides.
COPILOT_VERSION = "1.0.102"
MODEL = "gpt-4.1"

Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_COPILOT_VERSION") or COPILOT_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_COPILOT_DIR", "copilot")


def _candidates(prefix):
    scope = os.path.join(prefix, "node_modules", "@github")
    found = []
    if os.path.isdir(scope):
        for name in sorted(os.listdir(scope)):
            if name.startswith("copilot-"):
                found.append(os.path.join(scope, name, "copilot"))
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def client_env(home, model_url, **extra):
    """The whole environment of a `copilot` run, built from scratch (none of the caller's
    COPILOT_* or GITHUB_*): HOME, COPILOT_HOME under it, the model stand-in at `model_url` and
    the shared unpack cache. `extra` adds to it (MEM0_BASE_URL, ...)."""
    return npmcache.scratch_env(home, {
        "COPILOT_HOME": os.path.join(home, ".copilot"),
        "XDG_CACHE_HOME": os.path.join(cache_dir(), "xdg-cache"),
        "COPILOT_PROVIDER_BASE_URL": model_url + "/v1",
        "COPILOT_PROVIDER_WIRE_API": "responses", "COPILOT_PROVIDER_API_KEY": "sk-test-0000",
        "COPILOT_MODEL": MODEL, "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}, extra)


def run(exe, prompt, cwd, env, timeout=180):
    """`copilot -p <prompt> --allow-all-tools -s` in cwd; the subprocess.CompletedProcess."""
    return subprocess.run([exe, "-p", prompt, "--allow-all-tools", "-s"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _reports_version(exe, want):
    proc = npmcache.version_run(exe, lambda home: {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                   "HOME": home, "COPILOT_AUTO_UPDATE": "false"})
    return proc is not None and f" {want}." in proc.stdout  # "GitHub Copilot CLI 1.0.102."


def find_copilot(prefix, want):
    """The first native binary under an npm prefix that runs and reports version `want`."""
    return next((exe for exe in _candidates(prefix) if _reports_version(exe, want)), None)


def ensure_copilot(log=print):
    """Return the path of a working native `copilot` of the pinned version, installing it if
    needed."""
    return npmcache.ensure("GitHub Copilot CLI", PACKAGE, version(), cache_dir(), find_copilot,
                           npm_args=("--include=optional", "--loglevel=warn"), log=log)


if __name__ == "__main__":  # manual use: python3 copilot_cli.py  -> prints the binary's path
    try:
        print(ensure_copilot(log=lambda m: None))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
