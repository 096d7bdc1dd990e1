#!/usr/bin/env python3
"""Real-npm test of installing without a compiler (docs/install.md#npm).

The npm packages are packed from the executables under test (MEM0_BIN_DIR) by
scripts/npm_package.py, exactly as scripts/package.sh packs a release, and published to a
loopback registry (registry.py: verdaccio with its storage in the scratch directory), started
and stopped here. Then, on a PATH that holds node, npm, python3, git and a few coreutils but no
compiler and no cmake, and with that registry as the scratch user's default (~/.npmrc):

(a) `npm install -g mem0-native-hooks` into a scratch prefix installs the launcher and, as an
    optional dependency, mem0-native-hooks-linux-x64; `npx mem0-native-hooks install --agent
    all` wires every agent found; then the one-memory flow of test_one_memory.py runs with its
    `mem0-hooks install --agent <name>` done by the npm-installed `mem0-hooks`: Claude Code's
    capture is recalled in the model requests of the real Codex CLI and Gemini CLI, and Gemini's
    in Claude Code's. The wiring names the platform package's executables by absolute path
    (no node in a hook's path).
(b) the real Claude Code installs the plugin from a marketplace whose entry is
    {"source": "npm", "package": "mem0-native-hooks-plugin"}: it lands in
    ~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/ with its executables, its hooks
    run them, and the seeded memory reaches the model. Then a newer version of the plugin
    package is published and `claude plugin update` takes it: it lands in a folder of its own,
    and the next session's hooks run from there.

Each step's wall time is printed. Exit status: 0 passed, 1 failed, 77 skipped (no npm, no
registry to install verdaccio or a client from).
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

from clientlib import BIN_DIR, REPO, claude_or_exit, client_or_exit, log, run_tests
import codex_cli
import gemini_cli
import npmcache
from registry import Registry
import test_one_memory
import test_plugin_install

PACKAGES = ["mem0-native-hooks", "mem0-native-hooks-linux-x64", "mem0-native-hooks-plugin"]
# What the scratch PATH holds: what npm and the clients need, and nothing that compiles.
TOOLS = ["node", "npm", "npx", "python3", "git", "sh", "bash", "env", "uname", "cat", "ls",
         "mkdir", "rm", "cp", "mv", "ln", "chmod", "dirname", "basename", "readlink", "realpath",
         "sed", "grep", "tr", "head", "tail", "sort", "sleep", "which", "id", "ps", "rg"]
COMPILERS = ["cc", "c++", "gcc", "g++", "clang", "clang++", "cmake", "make", "ld"]
REGISTRY = {}  # url, npmrc, path, prefix: set up once in main()


def timed(label, cmd, **kw):
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=600, **kw)
    log(f"    {label}: exit {proc.returncode} in {time.monotonic() - start:.1f} s")
    if proc.returncode != 0:
        raise AssertionError(f"{label} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return proc


def scratch_path(scratch):
    """A bin directory of links to TOOLS only."""
    bin_dir = os.path.join(scratch, "path")
    os.makedirs(bin_dir)
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            os.symlink(found, os.path.join(bin_dir, tool))
    return bin_dir


class NpmOneMemoryTest(test_one_memory.OneMemoryTest):
    """(a): test_one_memory's flow between Claude Code, Codex CLI and Gemini CLI, wired by the
    npm-installed mem0-hooks. Its other agents' cases run in client_one_memory only."""

    test_copilot_to_claude_code = None
    test_opencode_decision_recalled_in_pi = None

    def setUp(self):
        super().setUp()
        test_one_memory.BIN_DIR = os.path.join(REGISTRY["prefix"], "bin")

    def test_wiring_names_the_platform_package(self):
        """`npx mem0-native-hooks install --agent all` wires absolute paths into the platform
        package, none through node."""
        home = os.path.join(self.scratch, "npx-home")
        os.makedirs(os.path.join(home, ".claude"))
        shutil.copy(REGISTRY["npmrc"], os.path.join(home, ".npmrc"))
        env = {"PATH": REGISTRY["path"], "HOME": home, "USER": "tester", "LANG": "C.UTF-8"}
        timed("npx mem0-native-hooks install --agent all",
              ["npx", "--yes", "mem0-native-hooks", "install", "--agent", "all"], env=env,
              cwd=self.project)
        with open(os.path.join(home, ".claude", "settings.json"), encoding="utf-8") as fh:
            commands = [h["command"] for groups in json.load(fh)["hooks"].values()
                        for g in groups for h in g["hooks"]]
        self.assertTrue(commands)
        for command in commands:
            self.assertIn("/node_modules/mem0-native-hooks-linux-x64/bin/", command)
            self.assertNotIn("node ", command)
            self.assertNotIn(".js", command)
            exe = command.split("'")[1] if "'" in command else command.split()[0]
            self.assertTrue(os.path.isabs(exe) and os.access(exe, os.X_OK), command)


class NpmPluginTest(test_plugin_install.PluginInstallTest):
    """(b): Claude Code's npm plugin source."""

    test_a_marketplace_fresh_clone = test_b_package_tgz_plugin_dir = None
    test_c_user_config_api_key = test_d_validate_strict = None
    test_e_plugin_key_reaches_the_cli = None

    @staticmethod
    def ours(run):
        return [r for r in run.hook_runs() if r[2] and r[2].endswith("@mem0-npm")]

    def test_npm_marketplace(self):
        shutil.copy(REGISTRY["npmrc"], os.path.join(self.home, ".npmrc"))
        self.start_mem0()
        self.key_env = {"MEM0_API_KEY": self.mem0.api_key, "PATH": REGISTRY["path"]}
        market = os.path.join(self.scratch, "npm marketplace")
        os.makedirs(os.path.join(market, ".claude-plugin"))
        with open(os.path.join(REPO, ".claude-plugin", "marketplace.json"), encoding="utf-8") as fh:
            entry = [p for p in json.load(fh)["plugins"]
                     if isinstance(p["source"], dict) and p["source"].get("source") == "npm"]
        self.assertEqual(len(entry), 1, "no npm entry in .claude-plugin/marketplace.json")
        with open(os.path.join(market, ".claude-plugin", "marketplace.json"), "w") as fh:
            json.dump({"name": "mem0-npm", "owner": {"name": "test"}, "plugins": entry}, fh)
        start = time.monotonic()
        self.cli("plugin", "marketplace", "add", market)
        self.cli("plugin", "install", f"{entry[0]['name']}@mem0-npm")
        log(f"    marketplace add + plugin install from npm: {time.monotonic() - start:.1f} s")
        cache = os.path.join(self.home, ".claude", "plugins", "cache", "mem0-npm", entry[0]["name"])
        versions = os.listdir(cache)
        self.assertEqual(len(versions), 1, versions)
        root = os.path.join(cache, versions[0])
        log(f"    installed into {root}: {sorted(os.listdir(root))}")
        self.assertFalse(os.path.exists(os.path.join(root, "node_modules")),
                         "Claude Code installed dependencies")
        self.assertTrue(os.access(os.path.join(root, "libexec", "Linux x86_64", "on_user_prompt"),
                                  os.X_OK))
        run = self.claude_p("npm-plugin")
        self.check_recall(run)
        self.assertIn(f'exec "{root}"/libexec/"$platform"/on_user_prompt', run.debug)

        # An update: the same package under a newer version, published to the registry.
        newer = publish_newer(entry[0]["source"]["package"])
        update = self.cli("plugin", "update", f"{entry[0]['name']}@mem0-npm")
        log(f"    claude plugin update said: {update.stdout.strip()} {update.stderr.strip()}")
        versions = sorted(os.listdir(cache))
        log(f"    after plugin update {newer}: {versions} in {cache}")
        self.assertIn(newer, versions)
        run = self.claude_p("npm-plugin-updated")
        self.check_recall(run)
        self.assertIn(f'exec "{os.path.join(cache, newer)}"/libexec/"$platform"/on_user_prompt',
                      run.debug)


def publish_newer(package):
    """Publish `package` again under its patch version + 1 (its tarball repacked, the version in
    package.json and in the plugin manifest); that version."""
    work = tempfile.mkdtemp(dir=REGISTRY["scratch"])
    [tgz] = [f for f in os.listdir(REGISTRY["out"]) if f.startswith(package + "-")
             and f[len(package) + 1].isdigit()]
    with tarfile.open(os.path.join(REGISTRY["out"], tgz)) as archive:
        archive.extractall(work, filter="data")
    stage = os.path.join(work, "package")
    newer = None
    for name in ("package.json", os.path.join(".claude-plugin", "plugin.json")):
        with open(os.path.join(stage, name), encoding="utf-8") as fh:
            manifest = json.load(fh)
        major, minor, patch = manifest["version"].split(".")
        newer = manifest["version"] = f"{major}.{minor}.{int(patch) + 1}"
        with open(os.path.join(stage, name), "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=2)
    timed(f"npm publish {package}@{newer}", ["npm", "publish"], env=REGISTRY["env"], cwd=stage)
    return newer


def main():
    test_plugin_install.CLAUDE = test_one_memory.CLAUDE = claude_or_exit(
        test_one_memory.EXECUTABLES)
    test_one_memory.CODEX = client_or_exit("Codex CLI", codex_cli.ensure_codex,
                                           test_one_memory.EXECUTABLES)
    test_one_memory.GEMINI = client_or_exit("Gemini CLI", gemini_cli.ensure_gemini_cli,
                                            test_one_memory.EXECUTABLES)
    scratch = tempfile.mkdtemp(prefix="mem0_npm_")
    try:
        try:
            registry = Registry(scratch, log)
        except npmcache.Unavailable as exc:
            log(f"SKIPPED: verdaccio is not available here: {exc}")
            return 77
        hooks_json = os.path.join(os.path.dirname(BIN_DIR), "plugin", "hooks.json")
        out = os.path.join(scratch, "npm")
        timed("npm_package.py (strip + npm pack)",
              [sys.executable, os.path.join(REPO, "scripts", "npm_package.py"), "--out", out,
               "--hooks-json", hooks_json, "--platform", f"linux-x64={BIN_DIR}"])
        for name in PACKAGES:
            [tgz] = [f for f in os.listdir(out) if f.startswith(name + "-")
                     and f[len(name) + 1].isdigit()]
            log(f"    {tgz}: {os.path.getsize(os.path.join(out, tgz)) / 1e6:.1f} MB packed")
        with registry:
            url, npmrc = registry.url, registry.npmrc
            path = scratch_path(scratch)
            for tool in COMPILERS:
                assert not shutil.which(tool, path=path), tool
            env = registry.env(path, scratch)
            for tgz in sorted(os.listdir(out)):
                timed(f"npm publish {tgz}", ["npm", "publish", os.path.join(out, tgz)],
                      env=env, cwd=scratch)
            prefix = os.path.join(scratch, "prefix")
            timed("npm install -g mem0-native-hooks",
                  ["npm", "install", "-g", "--prefix", prefix, "--no-audit", "--no-fund",
                   "mem0-native-hooks"], env=env, cwd=scratch)
            REGISTRY.update(url=url, npmrc=npmrc, path=f"{prefix}/bin:{path}", prefix=prefix,
                            out=out, env=env, scratch=scratch)
            os.environ["PATH"] = REGISTRY["path"]  # what client_env gives every client
            return run_tests()
    finally:
        if not os.environ.get("MEM0_CLIENT_KEEP"):
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
