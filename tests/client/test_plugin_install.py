#!/usr/bin/env python3
"""Real-client test of the ways to install the plugin (docs/contributing.md).

The pinned Claude Code from npm (claude_code.py) runs against the loopback stand-ins of
test_claude_code.py (fake_anthropic.py for the model, tests/fake_mem0 for Mem0):

(a) marketplace from a fresh clone: `git clone` of this checkout into a directory whose path
    holds a space, `claude plugin marketplace add <clone>`, `claude plugin install
    mem0-native-hooks@mem0-native-hooks`, then `claude -p` BEFORE any build: it exits 0 at once,
    every hook of the plugin exits 0 (none 127, "not found"), and the first-run line
    `mem0: the hooks are not built yet — run '<clone>/scripts/setup.sh', then
    '<clone>/scripts/build.sh' (or see README)` is
    printed once in the session and reaches the user. Then the executables of MEM0_BIN_DIR are
    copied into the clone's build/bin (instead of building again) and the next session recalls:
    the memory line is in the model request.
(b) package: `cpack -G TGZ` from the build directory of MEM0_BIN_DIR (skipped when that build has
    no CPackConfig.cmake or there is no cpack); the unpacked share/mem0-native-hooks/plugin used
    with `--plugin-dir`, then installed from it as a marketplace, recalls, from stripped
    executables.
(c) userConfig: `claude plugin install --config api_key=K1`, later `claude plugin configure
    --values-stdin` with K2: with no MEM0_API_KEY anywhere, the fake Mem0 sees `Token K1`, then
    `Token K2` (the hooks read CLAUDE_PLUGIN_OPTION_API_KEY), and neither key is written to a
    settings file (the option is sensitive).
(d) `claude plugin validate --strict` accepts the checkout's marketplace.json and plugin.json.
(e) the plugin's key is the only key (docs/configuration.md#api-key): Claude Code 2.1.332 keeps a
    sensitive userConfig value in ~/.claude/.credentials.json (`pluginSecrets`, mode 0600), and
    gives it to the hooks only (CLAUDE_PLUGIN_OPTION_API_KEY), not to the model's Bash. The
    mem0-hooks CLI reads it from there: `mem0-hooks peek …` run through Bash by the scripted model
    gets the memory from the fake Mem0 (`Token <key>`), doctor names the source, and the slash
    command `/mem0-native-hooks:recall <query>` (commands/recall.md) puts the same lookup before
    the model. The plugin's .mcp.json server entry is listed by `claude mcp list`.

Where a hook's systemMessage shows in Claude Code 2.1.332 (found with this client): the
interactive UI prints `<event> says: <message>` (e.g. `SessionStart:startup says: mem0: …`) in
the transcript; `-p` with text or json output shows nothing of it; `-p --output-format
stream-json --verbose` carries SessionStart's output raw in a {"type":"system",
"subtype":"hook_response"} line and other events' messages as {"type":"system",
"subtype":"informational","content":"<event> says: <message>"}; the debug log has
`Hooks: Parsed initial response: {...}` for every hook output.

The clone is of the committed HEAD; while plugin files (PLUGIN_FILES) differ in the working
tree, the working-tree versions are copied over the clone, and the test says so.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (debug logs, stream output).
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import unittest
import uuid

from clientlib import (BIN_DIR, REPO, claude_or_exit, client_env, hook_outputs, log, read_text,
                       run_tests, scratch_dir)
from fake_anthropic import FakeAnthropic
from fakelib import FakeMem0
from test_claude_code import (FILE_TAG, PROJECT_ID, PROMPT, PROMPT_LINE, PROMPT_MEM, SEED, USER,
                              sample_project)
from seeds import tag
from test_session import FAKE_MCP, ScriptedModel

CLAUDE = None  # set in main()
RUN_TIMEOUT_S = 120
CLI_TIMEOUT_S = 120

PLUGIN = "mem0-native-hooks"
MARKETPLACE = "mem0-native-hooks"
PLUGIN_ID = f"{PLUGIN}@{MARKETPLACE}"
# What makes the plugin: overlaid on the clone while they differ from HEAD.
PLUGIN_FILES = [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks.json",
                "scripts/first-run.sh", "LICENSE", ".mcp.json", "scripts/mem0-hooks.sh",
                "commands/recall.md", "commands/remember.md", "commands/forget.md",
                "commands/pause.md", "commands/resume.md"]
NOT_BUILT = "mem0: the hooks are not built yet"
HOOK_RUN = re.compile(r"Hooks: (\S+) \[(.*?)\] \(plugin ([^)]*)\) finished with status (-?\d+) "
                      r"\((\d+)ms\)|\] (SessionEnd:\S+) \[(.*?)\] completed with status (-?\d+)")


def hook_executables():
    """The executables the repository's hooks.json runs, in file order."""
    with open(os.path.join(REPO, "hooks.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    names = []
    for groups in doc["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                name = re.search(r"/build/bin/([A-Za-z0-9_-]+)", hook["command"]).group(1)
                if name not in names:
                    names.append(name)
    return names


def has_symtab(path):
    """True when the ELF file has a .symtab section (not stripped)."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:  # 64-bit ELF only; others count as stripped
        return False
    order = "little" if data[5] == 1 else "big"

    def num(at, size):
        return int.from_bytes(data[at:at + size], order)

    shoff, shentsize, shnum, shstrndx = num(0x28, 8), num(0x3A, 2), num(0x3C, 2), num(0x3E, 2)
    names_at = num(shoff + shstrndx * shentsize + 0x18, 8)
    for i in range(shnum):
        header = shoff + i * shentsize
        start = names_at + num(header, 4)
        if data[start:data.index(b"\0", start)] == b".symtab":
            return True
    return False


class Run:
    """One `claude -p … --output-format stream-json --verbose` run and what it left behind."""

    def __init__(self, proc, elapsed, api, mem0, debug_log):
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.elapsed = elapsed
        self.bodies = [r["body"] for r in api.messages()]
        self.mem0_requests = mem0.requests()
        self.debug = read_text(debug_log)
        self.events = []
        for line in self.stdout.splitlines():
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass
        results = [e for e in self.events if e.get("type") == "result"]
        self.result = results[-1] if results else None

    def hook_runs(self):
        """(event, executable, plugin, status, ms) of each hook run in the debug log."""
        runs = []
        for m in HOOK_RUN.finditer(self.debug):
            if m.group(1):
                runs.append((m.group(1), os.path.basename(m.group(2)), m.group(3),
                             int(m.group(4)), int(m.group(5))))
            else:
                runs.append((m.group(6), os.path.basename(m.group(7)), None, int(m.group(8)),
                             None))
        return runs

    def hook_outputs(self):
        return hook_outputs(self.debug)

    def summary(self):
        lines = [f"claude exit {self.returncode} in {self.elapsed:.1f} s",
                 f"stderr: {self.stderr[-1500:]}",
                 "system lines: " + "\n  ".join(json.dumps(e)[:400] for e in self.events
                                                if e.get("type") == "system"
                                                and e.get("subtype") != "init"),
                 f"result: {json.dumps(self.result)[:600]}",
                 "hook runs: " + ", ".join(f"{e} {x} -> {s} ({ms} ms)"
                                           for e, x, _, s, ms in self.hook_runs()),
                 "mem0: " + ", ".join(f"{r.get('endpoint')} {r.get('status')}"
                                      for r in self.mem0_requests)]
        hook_lines = [line for line in self.debug.splitlines() if "hook" in line.lower()]
        lines.append("debug log (hook lines):\n  " + "\n  ".join(hook_lines[-30:]))
        return "\n".join(lines)


class PluginInstallTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        # A space in every path the plugin lives under: the commands must quote the root.
        self.scratch = scratch_dir(self, "mem0 plugin install ")
        self.home, self.project, self.sample = sample_project(self.scratch)
        self.api = FakeAnthropic(read_path=self.sample).start()
        self.addCleanup(self.api.stop)
        self.mem0 = None
        self.key_env = {}

    def start_mem0(self, api_key=None):
        self.mem0 = FakeMem0(seed=SEED, **({"api_key": api_key} if api_key else {})).start()
        self.addCleanup(self.mem0.stop)
        return self.mem0

    def env(self):
        return client_env(self.home, self.api.url, self.mem0.url, USER,
                          MEM0_PROJECT_ID=PROJECT_ID, **self.key_env)

    # -- helpers -------------------------------------------------------------------------------
    def cli(self, *args, stdin=None):
        """`claude <args>` (plugin management); fails the test unless it exits 0."""
        start = time.monotonic()
        proc = subprocess.run([CLAUDE, *args], cwd=self.scratch, env=self.env(), text=True,
                              capture_output=True, timeout=CLI_TIMEOUT_S,
                              input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
        log(f"    claude {' '.join(args)} -> {proc.returncode} "
            f"({time.monotonic() - start:.1f} s)")
        self.assertEqual(proc.returncode, 0, f"claude {' '.join(args)}:\n{proc.stdout}\n"
                                             f"{proc.stderr}")
        return proc

    def claude_p(self, label, *extra, prompt=PROMPT):
        debug_log = os.path.join(self.scratch, f"debug-{label}.log")
        cmd = [CLAUDE, "-p", prompt, "--output-format", "stream-json", "--verbose",
               "--debug-file", debug_log, *extra]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=self.env(), capture_output=True,
                                  text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fail(f"claude -p ({label}) did not finish in {RUN_TIMEOUT_S} s\n"
                      + read_text(debug_log)[-3000:])
        run = Run(proc, time.monotonic() - start, self.api, self.mem0, debug_log)
        if os.environ.get("MEM0_CLIENT_KEEP"):
            with open(os.path.join(self.scratch, f"stream-{label}.jsonl"), "w") as fh:
                fh.write(proc.stdout)
        log(f"    claude -p ({label}) exited {run.returncode} after {run.elapsed:.1f} s; "
            f"hooks: " + ", ".join(f"{e} {x} {s}" for e, x, _, s, _ in run.hook_runs()))
        info = run.summary()
        self.assertEqual(run.returncode, 0, info)
        self.assertIsNotNone(run.result, info)
        self.assertEqual(run.result.get("is_error"), False, info)
        self.assertFalse("status 127" in run.debug, "a hook exited 127\n" + info)
        return run

    def fresh_clone(self):
        """A clone of this checkout's HEAD in a path with a space, with no build/, plus the
        working-tree versions of the plugin files where they differ."""
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        if subprocess.run(["git", "-C", REPO, "rev-parse", "--verify", "-q", "HEAD"],
                          capture_output=True).returncode != 0:
            self.skipTest(f"{REPO} is not a git checkout with a commit")
        clone = os.path.join(self.scratch, "fresh clone")
        subprocess.run(["git", "clone", "-q", REPO, clone], check=True, capture_output=True,
                       timeout=120)
        overlaid = []
        for rel in PLUGIN_FILES:
            src, dst = os.path.join(REPO, rel), os.path.join(clone, rel)
            if os.path.exists(src) and read_text(src) != read_text(dst):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
                overlaid.append(rel)
        if overlaid:
            log(f"    working-tree versions copied over the clone (not committed yet): "
                f"{', '.join(overlaid)}")
        self.assertFalse(os.path.exists(os.path.join(clone, "build")), "the clone has a build/")
        return clone

    def install_from_marketplace(self, clone, *install_args):
        self.cli("plugin", "marketplace", "add", clone)
        self.cli("plugin", "install", PLUGIN_ID, *install_args)
        listed = json.loads(self.cli("plugin", "list", "--json").stdout)
        mine = [p for p in listed if p.get("id") == PLUGIN_ID]
        self.assertEqual(len(mine), 1, listed)
        self.assertTrue(mine[0].get("enabled"), mine)

    @staticmethod
    def copy_binaries(dest):
        os.makedirs(dest, exist_ok=True)
        names = hook_executables() + ["mem0-hooks"]
        for name in names:
            src = os.path.join(BIN_DIR, name)
            if os.path.exists(src):
                shutil.copy2(src, os.path.join(dest, name))
        return names

    @staticmethod
    def ours(run):
        """The hook runs of this plugin (installed, or loaded with --plugin-dir)."""
        return [r for r in run.hook_runs() if r[2] is None or r[2].startswith(PLUGIN + "@")]

    def check_recall(self, run):
        """Our hooks ran and exited 0, and what they found reached the model."""
        info = run.summary()
        mine = self.ours(run)
        ran = {(event, exe) for event, exe, _, _, _ in mine}
        for expected in [("SessionStart:startup", "on_session_start"),
                         ("UserPromptSubmit", "on_user_prompt"),
                         ("PreToolUse:Read", "on_file_read"), ("Stop", "on_stop")]:
            self.assertIn(expected, ran, info)
        self.assertTrue(all(status == 0 for _, _, _, status, _ in mine), info)
        self.assertFalse([o for o in run.hook_outputs() if NOT_BUILT in json.dumps(o)], info)
        queries = [s.get("query", "") for s in
                   (r["body"] for r in run.mem0_requests if r.get("endpoint") == "search")]
        self.assertTrue(any(PROMPT in q for q in queries), info)
        self.assertGreaterEqual(len(run.bodies), 2, info)
        self.assertIn(PROMPT_LINE, json.dumps(run.bodies[0], ensure_ascii=False), info)
        self.assertTrue(any(FILE_TAG in json.dumps(b) for b in run.bodies[1:]), info)
        log(f"    recall reached the model: {PROMPT_LINE!r} in request 1, {FILE_TAG} after the "
            f"Read")

    # -- the tests -------------------------------------------------------------------------------
    def test_a_marketplace_fresh_clone(self):
        """marketplace add + install from a fresh clone: first-run line, then recall."""
        self.start_mem0()
        self.key_env = {"MEM0_API_KEY": self.mem0.api_key}
        clone = self.fresh_clone()
        self.install_from_marketplace(clone)

        # 1. Before any build.
        run = self.claude_p("unbuilt")
        info = run.summary()
        self.assertLess(run.elapsed, 60, info)
        mine = self.ours(run)
        events = [event for event, _, _, _, _ in mine]
        for event in ("SessionStart:startup", "UserPromptSubmit", "PreToolUse:Read", "Stop"):
            self.assertIn(event, events, info)
        self.assertTrue(all(status == 0 for _, _, _, status, _ in mine), info)
        self.assertTrue(all(ms is None or ms < 3000 for _, _, _, _, ms in mine), info)
        self.assertFalse(re.search(r"build/bin/on_\w+: (not found|No such file)", run.debug),
                         info)
        self.assertEqual(self.mem0.requests(), [], info)
        # The one line: printed once in the session (by its first hook, SessionStart), naming
        # the set-up and build scripts by their absolute paths, quoted since the path holds a
        # space.
        line = (f"{NOT_BUILT} — run '{clone}/scripts/setup.sh', then '{clone}/scripts/build.sh'"
                " (or see README)")
        outputs = [o for o in run.hook_outputs() if NOT_BUILT in json.dumps(o, ensure_ascii=False)]
        self.assertEqual(outputs, [{"systemMessage": line}], info)
        # Where the user sees it in -p: the stream-json hook_response of SessionStart (the
        # interactive UI shows "SessionStart:startup says: <line>").
        shown = [e for e in run.events if e.get("type") == "system"
                 and NOT_BUILT in json.dumps(e, ensure_ascii=False)]
        self.assertEqual(len(shown), 1, info)
        self.assertEqual((shown[0].get("subtype"), shown[0].get("hook_event")),
                         ("hook_response", "SessionStart"), info)
        self.assertEqual(json.loads(shown[0]["output"]), {"systemMessage": line}, info)
        self.assertEqual(shown[0].get("exit_code"), 0, info)
        self.assertGreaterEqual(len(run.bodies), 2, info)  # the session went on as usual
        for body in run.bodies:
            self.assertNotIn(NOT_BUILT, json.dumps(body, ensure_ascii=False), info)
        log(f"    before the build: {len(mine)} hook runs, all exit 0; the user saw once: "
            f"{line}")

        # 2. With the executables in the clone's build/bin: the hooks run and recall.
        self.api.reset()
        self.mem0.reset()
        self.copy_binaries(os.path.join(clone, "build", "bin"))
        run = self.claude_p("built")
        self.check_recall(run)
        self.assertIn(f'"{clone}"/build/bin/on_user_prompt', run.debug)

    def test_b_package_tgz_plugin_dir(self):
        """cpack's .tar.gz, unpacked, works with --plugin-dir (stripped executables)."""
        build_dir = os.path.dirname(BIN_DIR)
        config = os.path.join(build_dir, "CPackConfig.cmake")
        if not os.path.exists(config):
            self.skipTest(f"no {config} (a build configured without cmake/packaging.cmake); "
                          f"re-run cmake on it to test the package")
        cpack = shutil.which("cpack")
        if not cpack:
            self.skipTest("cpack is not installed")
        self.start_mem0()
        self.key_env = {"MEM0_API_KEY": self.mem0.api_key}
        out = os.path.join(self.scratch, "packages")
        start = time.monotonic()
        proc = subprocess.run([cpack, "-G", "TGZ", "--config", config, "-B", out],
                              capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        archives = glob.glob(os.path.join(out, "*.tar.gz"))
        self.assertEqual(len(archives), 1, proc.stdout)
        log(f"    cpack -G TGZ: {os.path.basename(archives[0])} "
            f"({os.path.getsize(archives[0]) / 1e6:.1f} MB) in {time.monotonic() - start:.1f} s")
        unpacked = os.path.join(self.scratch, "unpacked package")
        with tarfile.open(archives[0]) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(unpacked, filter="data")
            else:
                tar.extractall(unpacked)
        plugins = glob.glob(os.path.join(unpacked, "*", "share", PLUGIN, "plugin"))
        self.assertEqual(len(plugins), 1, os.listdir(unpacked))
        plugin = plugins[0]
        top = os.path.dirname(os.path.dirname(os.path.dirname(plugin)))

        # The tree: the manifest, LICENSE, and hooks.json running libexec/<hook>, which leads
        # to the stripped executable in <top>/bin.
        with open(os.path.join(REPO, ".claude-plugin", "plugin.json"), encoding="utf-8") as fh:
            manifest = json.load(fh)
        with open(os.path.join(plugin, ".claude-plugin", "plugin.json"), encoding="utf-8") as fh:
            self.assertEqual(json.load(fh), manifest)
        self.assertTrue(os.path.isfile(os.path.join(plugin, "LICENSE")))
        with open(os.path.join(plugin, "hooks.json"), encoding="utf-8") as fh:
            hooks = json.load(fh)["hooks"]
        wired = set()
        for groups in hooks.values():
            for group in groups:
                for hook in group["hooks"]:
                    m = re.fullmatch(r'exec "\$\{CLAUDE_PLUGIN_ROOT\}"/libexec/([\w-]+)',
                                     hook["command"])
                    self.assertTrue(m, hook["command"])
                    wired.add(m.group(1))
        self.assertEqual(wired, set(hook_executables()))
        sizes = []
        for name in sorted(wired) + ["mem0-hooks"]:
            exe = os.path.join(top, "bin", name)
            self.assertTrue(os.path.isfile(exe) and os.access(exe, os.X_OK), exe)
            self.assertFalse(has_symtab(exe), f"{exe} is not stripped")
            if name != "mem0-hooks":
                self.assertEqual(os.path.realpath(os.path.join(plugin, "libexec", name)),
                                 os.path.realpath(exe))
            sizes.append((name, os.path.getsize(exe), os.path.getsize(os.path.join(BIN_DIR,
                                                                                   name))))
        # The memory tools' server and the slash commands, run through scripts/mem0-hooks.sh,
        # which finds libexec/mem0-hooks in a package.
        for rel in (".mcp.json", "commands/recall.md", "scripts/mem0-hooks.sh"):
            self.assertTrue(os.path.isfile(os.path.join(plugin, rel)), rel)
        self.assertEqual(os.path.realpath(os.path.join(plugin, "libexec", "mem0-hooks")),
                         os.path.realpath(os.path.join(top, "bin", "mem0-hooks")))
        proc = subprocess.run(["sh", os.path.join(plugin, "scripts", "mem0-hooks.sh"), "--version"],
                              capture_output=True, text=True, timeout=30, env=self.env())
        self.assertNotIn("not built yet", proc.stderr)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        log("    stripped in the package / in the build: " + ", ".join(
            f"{n} {a / 1e6:.1f}/{b / 1e6:.1f} MB" for n, a, b in sizes))

        run = self.claude_p("package", "--plugin-dir", plugin)
        self.check_recall(run)
        self.assertIn(f'exec "{plugin}"/libexec/on_user_prompt', run.debug)

        # The unpacked plugin is a marketplace too, for an install that outlives the session.
        self.api.reset()
        self.mem0.reset()
        self.install_from_marketplace(plugin)
        run = self.claude_p("package-marketplace")
        self.check_recall(run)
        self.assertIn(f'exec "{plugin}"/libexec/on_user_prompt', run.debug)

    def test_c_user_config_api_key(self):
        """--config api_key=… and `plugin configure` reach the hooks; not in settings files."""
        first, second = f"m0-userconfig-{uuid.uuid4().hex[:12]}", f"m0-again-{uuid.uuid4().hex[:8]}"
        self.start_mem0(api_key=first)
        self.key_env = {}  # no MEM0_API_KEY: the key can only come from the plugin option
        clone = self.fresh_clone()
        self.copy_binaries(os.path.join(clone, "build", "bin"))
        self.install_from_marketplace(clone, "--config", f"api_key={first}")
        shown = json.loads(self.cli("plugin", "configure", PLUGIN_ID, "--json").stdout)
        self.assertIn("api_key", shown.get("configured", []), shown)
        self.assertNotIn(first, json.dumps(shown), "configure --json shows the secret")
        for settings in (os.path.join(self.home, ".claude", "settings.json"),
                         os.path.join(self.home, ".claude.json")):
            self.assertNotIn(first, read_text(settings), f"{settings} holds the sensitive key")

        run = self.claude_p("config")
        self.check_recall(run)
        auth = {r["headers"].get("authorization") for r in run.mem0_requests
                if r.get("endpoint") == "search"}
        self.assertEqual(auth, {f"Token {first}"}, run.summary())
        log(f"    --config api_key=… reached the hooks: the fake Mem0 saw only 'Token {first}'")

        # `claude plugin configure --values-stdin` changes it for the next session.
        self.cli("plugin", "configure", PLUGIN_ID, "--values-stdin",
                 stdin=json.dumps({"api_key": second}))
        self.api.reset()
        self.mem0.reset()
        run = self.claude_p("configured")
        # Searches only: the capture sender of the first session may still be delivering.
        auth = {r["headers"].get("authorization") for r in run.mem0_requests
                if r.get("endpoint") == "search"}
        self.assertEqual(auth, {f"Token {second}"}, run.summary())  # 401 here: a new key
        log(f"    plugin configure --values-stdin: the next session sent 'Token {second}'")

    def test_d_validate_strict(self):
        """`claude plugin validate --strict` passes for the marketplace and the plugin."""
        self.start_mem0()
        for target in (os.path.join(REPO, ".claude-plugin", "marketplace.json"),
                       os.path.join(REPO, ".claude-plugin", "plugin.json")):
            proc = self.cli("plugin", "validate", "--strict", "--json", target)
            report = json.loads(proc.stdout)
            self.assertIs(report.get("success"), True, proc.stdout)
            manifest = report.get("manifest") or {}
            self.assertEqual((manifest.get("errors"), manifest.get("warnings")), ([], []),
                             proc.stdout)

    def test_e_plugin_key_reaches_the_cli(self):
        """The plugin's key, the only key, works for the CLI the model and the user run."""
        key = f"m0-plugin-only-{uuid.uuid4().hex[:12]}"
        self.start_mem0(api_key=key)
        self.key_env = {}  # no MEM0_API_KEY anywhere: only the plugin's option
        clone = self.fresh_clone()
        self.copy_binaries(os.path.join(clone, "build", "bin"))
        self.install_from_marketplace(clone, "--config", f"api_key={key}")
        store = os.path.join(self.home, ".claude", ".credentials.json")
        with open(store, encoding="utf-8") as fh:
            secrets = json.load(fh).get("pluginSecrets", {})
        self.assertEqual(secrets.get(PLUGIN_ID), {"api_key": key})
        self.assertEqual(os.stat(store).st_mode & 0o777, 0o600)
        log(f"    Claude Code keeps the key in {store} (pluginSecrets[{PLUGIN_ID!r}], mode 600)")

        # Outside a session: doctor finds it and names where it came from, never the key.
        cli = os.path.join(clone, "build", "bin", "mem0-hooks")
        doctor = subprocess.run([cli, "doctor"], cwd=self.project, env=self.env(), text=True,
                                capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        key_row = [line for line in doctor.stdout.splitlines() if "api_key" in line or
                   "api key" in line.lower()]
        self.assertTrue(any(f"Claude Code plugin config ({PLUGIN_ID})" in line
                            for line in key_row), doctor.stdout)
        self.assertNotIn(key, doctor.stdout + doctor.stderr)
        log(f"    doctor: {key_row[0].strip()}")

        # Inside a session: the model runs the lookup the hooks point at, through Bash.
        query = "partial refund rounding"
        model = ScriptedModel().start()
        self.addCleanup(model.stop)
        self.api = model
        model.script = [{"tool": "Bash", "input": {"command": f"'{cli}' peek {query}",
                                                   "description": "Look the memory up"}},
                        {"text": "Found it."}]
        run = self.claude_p("bash-peek", "--allowedTools", "Bash", prompt="Look up refunds")
        results = [b for b in run.bodies if "tool_result" in json.dumps(b)]
        self.assertTrue(results, run.summary())
        answer = json.dumps(results[-1]["messages"][-1], ensure_ascii=False)
        self.assertIn(tag(PROMPT_MEM), answer, run.summary())
        self.assertNotIn("no API key", answer)
        self.assertNotIn(key, json.dumps(run.bodies))  # the model never sees the key
        searches = [r for r in self.mem0.requests() if r.get("endpoint") == "search"
                    and r["body"].get("query") == query]
        self.assertEqual({r["headers"].get("authorization") for r in searches}, {f"Token {key}"})
        log(f"    Bash `mem0-hooks peek {query}` in the session: the memory came back "
            f"(fake Mem0 saw 'Token <plugin key>')")

        # The slash command: /mem0-native-hooks:recall runs peek, its output goes to the model.
        self.mem0.reset()
        model.reset()
        model.script = [{"text": "Here is what mem0 has."}]
        run = self.claude_p("slash-recall", prompt=f"/{PLUGIN}:recall {query}")
        first = json.dumps(run.bodies[0], ensure_ascii=False) if run.bodies else ""
        self.assertIn(tag(PROMPT_MEM), first, run.summary())
        self.assertNotIn(key, json.dumps(run.bodies))
        log(f"    /{PLUGIN}:recall {query}: the peek output reached the model")

        # What is typed after the command is never shell text: words, passed on as they are.
        marker = os.path.join(self.scratch, "injected")
        typed = f"refund $(touch {marker}); `touch {marker}` | rounding && touch {marker}"
        self.mem0.reset()
        model.reset()
        run = self.claude_p("slash-injection", prompt=f"/{PLUGIN}:recall {typed}")
        self.assertFalse(os.path.exists(marker), run.summary())
        queries = [r["body"].get("query") for r in self.mem0.requests()
                   if r.get("endpoint") == "search"]
        self.assertIn(" ".join(typed.split()), queries, run.summary())
        log("    arguments with $(…), backquotes, ;, | and && were looked up as words; nothing ran")

        # The plugin's MCP server entry is loaded (connected once mem0-hooks has `mcp`).
        listed = self.cli("mcp", "list").stdout
        entry = [line for line in listed.splitlines() if line.startswith(f"plugin:{PLUGIN}:mem0:")]
        self.assertEqual(len(entry), 1, listed)
        self.assertIn(f"sh {clone}/scripts/mem0-hooks.sh mcp", entry[0])
        log(f"    claude mcp list: {entry[0]}")
        # With a stand-in server in mem0-hooks' place: it connects, started in the directory
        # Claude Code runs in, with `mcp` and the plugin's key (Claude Code gives plugin servers
        # no CLAUDE_PLUGIN_OPTION_* of its own: .mcp.json passes ${user_config.api_key}).
        seen = os.path.join(self.scratch, "server-saw")
        os.unlink(cli)
        with open(cli, "w", encoding="utf-8") as fh:
            fh.write("#!/bin/sh\n"
                     f"printf '%s\\n' \"$PWD\" \"$*\" \"$CLAUDE_PLUGIN_OPTION_API_KEY\" > '{seen}'\n"
                     f"exec '{sys.executable}' '{FAKE_MCP}' '{seen}.calls'\n")
        os.chmod(cli, 0o755)
        listed = self.cli("mcp", "list").stdout
        entry = [line for line in listed.splitlines() if line.startswith(f"plugin:{PLUGIN}:mem0:")]
        self.assertIn("Connected", entry[0], listed)
        self.assertEqual(read_text(seen).splitlines(), [os.path.realpath(self.scratch), "mcp", key])
        log("    with a stand-in in mem0-hooks' place: Connected, started with `mcp` and the key")


def main():
    global CLAUDE
    CLAUDE = claude_or_exit(hook_executables())
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
