"""Install a pinned Codex CLI from npm into a cache directory and find its native `codex`.

The npm package `@openai/codex` is a Node launcher (`bin/codex.js`): the real client is a
native executable shipped in a per-platform optional dependency, aliased
(`@openai/codex-linux-x64` is `npm:@openai/codex@<version>-linux-x64`), at
`vendor/<target triple>/bin/codex`. There is no install script. The native binary is run
directly, so a test needs no Node at run time (npm at install time only).

    codex = ensure_codex()   # path of a working native `codex`, or raises Unavailable
    proc = run(codex, prompt, cwd, client_env(home, codex_home, MEM0_BASE_URL=...))

`codex exec` runs the hooks of `$CODEX_HOME/hooks.json` only once they are trusted;
`--dangerously-bypass-hook-trust` runs them without the interactive trust step
(docs/agents.md#codex-cli).
"""

import os
import subprocess

import npmcache

PACKAGE = "@openai/codex"
# Pinned so the test sees the same client every run; MEM0_CODEX_VERSION overrides.
CODEX_VERSION = "0.171.0"


Unavailable = npmcache.Unavailable


def version():
    return os.environ.get("MEM0_CODEX_VERSION") or CODEX_VERSION


def cache_dir():
    return npmcache.cache_root("MEM0_CODEX_DIR", "codex")


def _candidates(prefix):
    scope = os.path.join(prefix, "node_modules", "@openai")
    found = []
    if os.path.isdir(scope):
        for name in sorted(os.listdir(scope)):
            if not name.startswith("codex-"):
                continue
            vendor = os.path.join(scope, name, "vendor")
            if os.path.isdir(vendor):
                for triple in sorted(os.listdir(vendor)):
                    found.append(os.path.join(vendor, triple, "bin", "codex"))
    # Older layouts carried every platform's binary in the main package's vendor/.
    vendor = os.path.join(scope, "codex", "vendor")
    if os.path.isdir(vendor):
        for triple in sorted(os.listdir(vendor)):
            found.append(os.path.join(vendor, triple, "bin", "codex"))
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def quiet_env(home=None):
    """An environment for `codex` with none of the caller's CODEX_* / OPENAI_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX", "OPENAI"))}
    if home:
        env["CODEX_HOME"] = home
    return env


def client_env(home, codex_home, **extra):
    """The whole environment of a `codex` run, built from scratch (none of the caller's CODEX_*
    or OPENAI_*): HOME and CODEX_HOME. `extra` adds to it (the model provider's key variable,
    MEM0_BASE_URL, ...)."""
    return npmcache.scratch_env(home, {"CODEX_HOME": codex_home}, extra)


def run(exe, prompt, cwd, env, timeout=120):
    """`codex exec <prompt>` in cwd, headless, with the hooks run untrusted and no sandbox;
    the subprocess.CompletedProcess (text)."""
    return subprocess.run([exe, "exec", "--dangerously-bypass-hook-trust",
                           "--skip-git-repo-check", "-s", "danger-full-access", prompt],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _reports_version(exe, want):
    proc = npmcache.version_run(exe, quiet_env)
    return proc is not None and proc.stdout.strip().split()[-1:] == [want]  # "codex-cli 0.171.0"


def find_codex(prefix, want):
    """The first native binary under an npm prefix that runs and reports version `want`."""
    return next((exe for exe in _candidates(prefix) if _reports_version(exe, want)), None)


def ensure_codex(log=print):
    """Return the path of a working native `codex` of the pinned version, installing it if
    needed."""
    return npmcache.ensure("Codex CLI", PACKAGE, version(), cache_dir(), find_codex,
                           npm_args=("--include=optional", "--loglevel=warn"), log=log)


if __name__ == "__main__":  # manual use: python3 codex_cli.py  -> prints the binary's path
    try:
        print(ensure_codex(log=lambda m: None))
    except Unavailable as exc:
        print(f"unavailable: {exc}")
        raise SystemExit(77)
