"""Install a pinned Pi coding agent from npm into a cache directory and find its `pi`.

The npm package `@mariozechner/pi-coding-agent` is a Node program (`bin/pi`); it loads the
extensions of ~/.pi/agent/extensions/ as they are (TypeScript or JavaScript, no build step).

    pi = ensure_pi()
    write_models(home, api.url)                 # a provider of api openai-completions
    proc = run(pi, prompt, cwd, client_env(home, MEM0_BASE_URL=...))
"""

import json
import os
import subprocess

import npmcache

PACKAGE = "@mariozechner/pi-coding-agent"
# Pinned so the test sees the same client every run; MEM0_PI_VERSION overrides.
PI_VERSION = "0.73.1"
PROVIDER_ID = "mem0fake"
MODEL_ID = "fake-chat-1"

Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_PI_VERSION") or PI_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_PI_DIR", "pi")


def client_env(home, **extra):
    """The whole environment of a `pi` run, built from scratch: HOME, and Pi kept off the
    network (PI_OFFLINE). `extra` adds to it."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": home,
           "LANG": "C.UTF-8", "TERM": "dumb", "PI_OFFLINE": "1"}
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(extra)
    return env


def write_models(home, api_url):
    """~/.pi/agent/models.json: the stand-in as provider PROVIDER_ID with model MODEL_ID."""
    path = os.path.join(home, ".pi", "agent", "models.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"providers": {PROVIDER_ID: {"baseUrl": api_url + "/v1",
                                               "api": "openai-completions", "apiKey": "sk-test",
                                               "models": [{"id": MODEL_ID, "name": MODEL_ID}]}}},
                  fh, indent=2)


def run(exe, prompt, cwd, env, timeout=120):
    """`pi -p --provider P --model M <prompt>` in cwd; the subprocess.CompletedProcess (text)."""
    return subprocess.run([exe, "-p", "--provider", PROVIDER_ID, "--model", MODEL_ID, prompt],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def find_pi(prefix, want):
    exe = os.path.join(prefix, "node_modules", ".bin", "pi")
    if not os.access(exe, os.X_OK):
        return None
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=client_env(prefix))
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if proc.returncode == 0 and want in proc.stdout + proc.stderr else None


def ensure_pi(log=print):
    """The path of a working `pi` of the pinned version, installed if needed."""
    return npmcache.ensure("Pi", PACKAGE, version(), cache_dir(), find_pi,
                           npm_args=("--loglevel=warn",), log=log)


if __name__ == "__main__":  # manual use: python3 pi_agent.py  -> prints the client's path
    try:
        print(ensure_pi(log=lambda m: None))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
