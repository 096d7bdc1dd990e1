"""What the real-client drivers share (claude_code.py, codex_cli.py, gemini_cli.py, ...): a
pinned npm package installed once per version into its own prefix under a cache directory, the
check of an installed client's version, and the base of a run's environment.

The install goes into a staging directory under a lock and is renamed into place only once the
client runs, so a concurrent run never sees half an install and switching versions back is free.
A missing npm, an unreachable registry or a package without a working client for this platform
raise `Unavailable`, which the tests report as skipped (exit 77).

    exe = ensure("Codex CLI", "@openai/codex", "0.171.0", cache_root("MEM0_CODEX_DIR", "codex"),
                 find=find_codex)
"""

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

INSTALL_TIMEOUT_S = 600


class Unavailable(Exception):
    """The client cannot be installed here (no npm, no registry, no binary for this platform)."""


def cache_root(variable, leaf):
    """`$variable` when set, else <XDG cache>/mem0-native-hooks/<leaf>."""
    explicit = os.environ.get(variable)
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mem0-native-hooks", leaf)


def scratch_env(home, variables, extra):
    """The whole environment of a client run, built from scratch: PATH, HOME, LANG C.UTF-8 and
    the caller's TMPDIR, then the client's `variables`, then the test's `extra`."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": home,
           "LANG": "C.UTF-8"}
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(variables)
    env.update(extra)
    return env


def version_run(exe, env_of):
    """`exe --version` in the environment env_of(home) for a scratch HOME, removed after: the
    subprocess.CompletedProcess (text) when it ran and exited 0, else None."""
    home = tempfile.mkdtemp(prefix="mem0-client-version-")
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=env_of(home))
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return proc if proc.returncode == 0 else None


def package_version(prefix, package):
    """The version of `package` installed under the npm prefix; None when there is none."""
    try:
        with open(os.path.join(prefix, "node_modules", *package.split("/"), "package.json"),
                  encoding="utf-8") as fh:
            return json.load(fh).get("version")
    except (OSError, ValueError):
        return None


def ensure(name, package, want, root, find, npm_args=(), log=print):
    """The client `find(prefix, want)` finds under root/<want>, installing `package@want` first
    when it is not there."""
    prefix = os.path.join(root, want)
    if package_version(prefix, package) == want:
        exe = find(prefix, want)
        if exe:
            log(f"{name} {want}: reusing {exe}")
            return exe
    npm = shutil.which("npm")
    if not npm:
        raise Unavailable("npm is not installed")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent run installs once, the other reuses
        if package_version(prefix, package) == want:
            exe = find(prefix, want)
            if exe:
                return exe
        staging = tempfile.mkdtemp(prefix=f".{want}-", dir=root)
        try:
            log(f"{name} {want}: installing {package}@{want} with npm into {prefix} ...")
            start = time.monotonic()
            cmd = [npm, "install", "--prefix", staging, "--no-audit", "--no-fund", "--no-save",
                   "--engine-strict=false", *npm_args,
                   # Fail within minutes when the registry cannot be reached (the test then
                   # reports SKIPPED), not after npm's default 5-minute timeout per attempt.
                   "--fetch-timeout=60000", "--fetch-retries=2",
                   "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000",
                   f"{package}@{want}"]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, cwd=staging,
                                      timeout=INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                raise Unavailable(f"npm install did not finish in {INSTALL_TIMEOUT_S} s")
            if proc.returncode != 0:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
                raise Unavailable(f"npm install failed (exit {proc.returncode}):\n{tail}")
            log(f"{name} {want}: npm install took {time.monotonic() - start:.1f} s")
            if not find(staging, want):
                raise Unavailable(f"{package}@{want} installed but no working client for this "
                                  f"platform was found")
            if os.path.exists(prefix):
                shutil.rmtree(prefix)
            os.rename(staging, prefix)
            staging = None
        finally:
            if staging:
                shutil.rmtree(staging, ignore_errors=True)
    exe = find(prefix, want)  # look again: absolute paths changed with the rename
    if not exe:
        raise Unavailable(f"no working {name} under {prefix}")
    log(f"{name} {want}: {exe}")
    return exe
