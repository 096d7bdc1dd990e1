"""What the real-client tests share: where the hooks under test are, the scratch directory, the
environment `claude` runs in, reading what a run left behind, and the start of each test
program (the hooks must be built; Claude Code must be installable, else the test is skipped).

Importing this module puts tests/fake_mem0, tests/lib and scripts on sys.path.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fake_mem0"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "scripts"))  # wiring.py: the hook table's rows

import claude_code  # noqa: E402
import npmcache  # noqa: E402
import testmain  # noqa: E402

BIN_DIR = os.path.abspath(os.environ.get("MEM0_BIN_DIR") or os.path.join(REPO, "build", "bin"))


def log(msg):
    print(msg, flush=True)


def read_text(path):
    """A file's text; "" when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def scratch_dir(test, prefix):
    """A temporary directory removed after `test`, kept when MEM0_CLIENT_KEEP is set."""
    path = tempfile.mkdtemp(prefix=prefix)
    if os.environ.get("MEM0_CLIENT_KEEP"):
        log(f"    (keeping {path})")
    else:
        test.addCleanup(shutil.rmtree, path, True)
    return path


def install(test, agent, env, cwd, cli=None):
    """`mem0-hooks install --agent <agent>` (the built one, or `cli`) run in cwd, which `test`
    asserts succeeds; the subprocess.CompletedProcess (text)."""
    proc = subprocess.run([cli or os.path.join(BIN_DIR, "mem0-hooks"), "install", "--agent",
                           agent], cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    test.assertEqual(proc.returncode, 0, f"install --agent {agent}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def client_env(home, anthropic_url, mem0_url, user, **extra):
    """The whole environment of a `claude` run, built from scratch (none of the caller's
    CLAUDE_* / ANTHROPIC_* / XDG_*): the stand-ins' URLs, a test API key for the model, and
    Claude Code kept off the network. `extra` adds to it (MEM0_API_KEY, MEM0_PROJECT_ID, ...)."""
    return npmcache.scratch_env(home, {
        "USER": user,
        "TERM": "dumb",
        "ANTHROPIC_BASE_URL": anthropic_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-0000000000000000000000000000",
        "MEM0_BASE_URL": mem0_url,
        "MEM0_USER_ID": user,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }, extra)


def plugin_root(scratch):
    """A directory for --plugin-dir whose build/bin holds the binaries under test: the checkout
    when they are its build/bin (the usual case), else a copy of the plugin wiring
    (.claude-plugin/plugin.json, hooks.json, .mcp.json, commands/, scripts/mem0-hooks.sh) with
    build/bin linked to MEM0_BIN_DIR, so a build in another directory is tested through the same
    files."""
    if os.path.realpath(BIN_DIR) == os.path.realpath(os.path.join(REPO, "build", "bin")):
        return REPO
    root = os.path.join(scratch, "plugin")
    for name in (".claude-plugin/plugin.json", "hooks.json", ".mcp.json",
                 "scripts/mem0-hooks.sh"):
        os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
        shutil.copy(os.path.join(REPO, name), os.path.join(root, name))
    shutil.copytree(os.path.join(REPO, "commands"), os.path.join(root, "commands"))
    os.makedirs(os.path.join(root, "build"))
    os.symlink(BIN_DIR, os.path.join(root, "build", "bin"))
    return root


def locate(obj, needle, path="body"):
    """JSON paths of the string leaves containing needle."""
    if isinstance(obj, str):
        return [path] if needle in obj else []
    found = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            found += locate(value, needle, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            found += locate(value, needle, f"{path}[{i}]")
    return found


def texts_with(obj, needle):
    """The string leaves of a JSON value that contain needle, in document order."""
    if isinstance(obj, str):
        return [obj] if needle in obj else []
    values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
    return [text for value in values for text in texts_with(value, needle)]


def poll(fetch, done, timeout_s, step_s=0.1):
    """Call fetch() until done(value) is true or timeout_s have passed (a detached sender
    delivers captures later); (the last value, seconds waited)."""
    start = time.monotonic()
    while True:
        value = fetch()
        waited = time.monotonic() - start
        if done(value) or waited > timeout_s:
            return value, waited
        time.sleep(step_s)


class ClientRun:
    """One headless run of a client (`label`) against a model stand-in: the process's outcome,
    the model requests (each with the stand-in's `reply`) and the hooks' log."""

    def __init__(self, label, proc, elapsed, requests, hooks_log):
        self.label = label
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.elapsed = elapsed
        self.requests = requests
        self.hooks_log = hooks_log

    def __str__(self):
        return "\n".join([f"{self.label} exit {self.returncode} in {self.elapsed:.2f} s",
                          f"stdout: {self.stdout[-1500:]}", f"stderr: {self.stderr[-2500:]}",
                          f"model requests: {[r['reply'] for r in self.requests]}",
                          "hooks.log:\n    " + "\n    ".join(self.hooks_log.splitlines()[-40:])])


def adds_from(mem0, source, timeout_s):
    """The adds at the fake Mem0 whose metadata.source is `source`, polled until there is one or
    timeout_s have passed (the sender is detached)."""
    def fetch():
        return [a for a in mem0.adds() if (a.get("metadata") or {}).get("source") == source]
    return poll(fetch, bool, timeout_s, step_s=0.2)[0]


def hook_outputs(debug):
    """The JSON objects our hooks printed, as Claude Code's debug log records them
    ("Hooks: Parsed initial response: {...}"), oldest first."""
    out = []
    for line in debug.splitlines():
        _, sep, rest = line.partition("Hooks: Parsed initial response: ")
        if sep:
            try:
                out.append(json.loads(rest))
            except ValueError:
                pass
    return out


def built_executables():
    """The executables the build makes, as it lists them in BIN_DIR/executables.txt
    (CMakeLists.txt); exits 1 when there is no list."""
    names = read_text(os.path.join(BIN_DIR, "executables.txt")).split()
    if not names:
        log(f"FAILED: no list in {BIN_DIR}/executables.txt; build first (scripts/build.sh)")
        sys.exit(1)
    return names


def client_or_exit(name, ensure, executables=None):
    """The path of a ready client: `ensure(log=...)` of its installer module. Exits 1 when one of
    `executables` (by default every one the build makes) is not built in BIN_DIR, 77 (skipped)
    when the client cannot be installed here."""
    log(f"hooks under test: {BIN_DIR}")
    executables = built_executables() if executables is None else executables
    missing = [n for n in executables if not os.access(os.path.join(BIN_DIR, n), os.X_OK)]
    if missing:
        log(f"FAILED: missing in {BIN_DIR}: {', '.join(missing)}; build first (scripts/build.sh)")
        sys.exit(1)
    start = time.monotonic()
    try:
        exe = ensure(log=log)
    except npmcache.Unavailable as exc:
        log(f"SKIPPED: {name} is not available here: {exc}")
        sys.exit(77)
    log(f"{name} ready in {time.monotonic() - start:.1f} s: {exe}")
    return exe


def claude_or_exit(executables):
    """client_or_exit for Claude Code."""
    return client_or_exit("Claude Code", claude_code.ensure_claude_code, executables)


def run_tests():
    """Run the calling program's test cases verbosely: exit status 0 passed, 1 failed, 77 one
    skipped (testmain)."""
    program = unittest.main(argv=[sys.argv[0], "-v", *sys.argv[1:]], exit=False)
    return testmain.exit_status(program.result)
