"""Install a pinned OpenCode from npm into a cache directory and find its native `opencode`.

The npm package `opencode-ai` is a Node launcher; the client is a native executable in a
per-platform optional dependency (`opencode-linux-x64/bin/opencode`, and a `-baseline` build
for older CPUs). Its postinstall script only links that binary: it is not needed, the native
binary is run directly.

    opencode = ensure_opencode()
    write_config(home, api.url)                 # a provider at the stand-in, headless settings
    proc = run(opencode, prompt, cwd, client_env(home, MEM0_BASE_URL=...))

OpenCode installs `@opencode-ai/plugin` from the registry into each of its configuration
directories at start unless it finds them installed (node_modules/ and a package-lock.json
that lists it, docs/agents.md#opencode): settle_config_dir writes both, so a run never waits for
the registry. Its provider for an OpenAI-compatible API (`@ai-sdk/openai-compatible`) is
bundled in the binary.
"""

import json
import os
import subprocess

import npmcache

PACKAGE = "opencode-ai"
# Pinned so the test sees the same client every run; MEM0_OPENCODE_VERSION overrides.
OPENCODE_VERSION = "1.18.33"
PROVIDER_ID = "mem0fake"
MODEL_ID = "fake-chat-1"

Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_OPENCODE_VERSION") or OPENCODE_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_OPENCODE_DIR", "opencode")


def config_dir(home):
    return os.path.join(home, ".config", "opencode")


def client_env(home, **extra):
    """The whole environment of an `opencode` run, built from scratch: HOME, OpenCode kept off
    the network (no update check, no models.dev fetch, no LSP download, no built-in plugins,
    no Claude Code files). `extra` adds to it."""
    return npmcache.scratch_env(home, {
        "TERM": "dumb", "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1"}, extra)


def settle_config_dir(path):
    """Make OpenCode find its plugin package installed in the configuration directory `path`."""
    os.makedirs(os.path.join(path, "node_modules"), exist_ok=True)
    lock = os.path.join(path, "package-lock.json")
    if not os.path.exists(lock):
        with open(lock, "w", encoding="utf-8") as fh:
            json.dump({"packages": {"": {"dependencies": {"@opencode-ai/plugin": version()}}}}, fh)


def write_config(home, api_url, context_limit=None):
    """Merge the headless settings into ~/.config/opencode/opencode.json (what install wrote
    stays): the stand-in as the one provider and model, read and bash allowed. `context_limit`
    gives the model that context window (and 100 output tokens): OpenCode compacts the session
    once a step reports more tokens used than the window less the output."""
    path = os.path.join(config_dir(home), "opencode.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    settle_config_dir(os.path.dirname(path))
    try:
        with open(path, encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError):
        config = {}
    model = {"name": MODEL_ID}
    if context_limit:
        model["limit"] = {"context": context_limit, "output": 100}
    config.update({
        "autoupdate": False, "share": "disabled",
        "provider": {PROVIDER_ID: {"npm": "@ai-sdk/openai-compatible", "name": "mem0 stand-in",
                                   "options": {"baseURL": api_url + "/v1", "apiKey": "sk-test"},
                                   "models": {MODEL_ID: model}}},
        "model": f"{PROVIDER_ID}/{MODEL_ID}", "small_model": f"{PROVIDER_ID}/{MODEL_ID}",
        "permission": {"read": "allow", "bash": "allow", "edit": "allow",
                       "external_directory": "allow"}})
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(config, fh, indent=2)


def run(exe, prompt, cwd, env, timeout=120, command=None):
    """`opencode run <prompt>` in cwd (OpenCode takes its project from $PWD), or with `command`
    `opencode run --command <command> <prompt>` (the prompt is its arguments); the
    subprocess.CompletedProcess (text)."""
    flags = ["--command", command] if command else []
    return subprocess.run([exe, "run", *flags, prompt], cwd=cwd, env=dict(env, PWD=cwd),
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _candidates(prefix):
    base = os.path.join(prefix, "node_modules")
    names = ("opencode-linux-x64", "opencode-linux-x64-baseline", "opencode-linux-arm64",
             "opencode-darwin-arm64", "opencode-darwin-x64")
    found = [os.path.join(base, n, "bin", "opencode") for n in names]
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def find_opencode(prefix, want):
    """The first native binary under an npm prefix that runs and reports version `want`."""
    for exe in _candidates(prefix):
        proc = npmcache.version_run(exe, client_env)
        if proc is not None and proc.stdout.strip() == want:
            return exe
    return None


def ensure_opencode(log=print):
    """The path of a working native `opencode` of the pinned version, installed if needed."""
    return npmcache.ensure("OpenCode", PACKAGE, version(), cache_dir(), find_opencode,
                           npm_args=("--include=optional", "--ignore-scripts",
                                     "--loglevel=warn"), log=log)


if __name__ == "__main__":  # manual use: python3 opencode_cli.py  -> prints the binary's path
    try:
        print(ensure_opencode(log=lambda m: None))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
