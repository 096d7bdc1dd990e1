#!/usr/bin/env python3
"""Real-client test: the memory tools' server as Codex CLI and Gemini CLI start it
(docs/cli.md#memory-tools).

`mem0-hooks install --agent codex|gemini-cli` registers `<bin>/mem0-hooks mcp` as the server
`mem0`. The CLI under test is copied into a scratch bin directory, so the entry names that copy;
after the install the copy is replaced by a stand-in server (fake_mcp.py behind a script that
records its working directory and arguments), since this test is about the wiring, not the
server. Then, with the pinned clients (codex_cli.py, gemini_cli.py):

codex   `codex mcp list` lists `mem0` with our command and `mcp`; a `codex exec` run against the
        Responses stand-in starts it in the project directory, and the model is offered its tool.
        The rest of config.toml (the model provider) is kept.
gemini  `gemini mcp list` shows `mem0` connected, started in the project directory with `mcp`;
        the repository's extension, linked instead, carries the same server
        (`node ${extensionPath}/hooks/run.cjs mem0-hooks mcp`, one command for every system),
        also connected.
codex plugin  the Codex plugin carries no server: its manifest's empty `mcpServers` keeps Codex
        from loading Claude Code's `.mcp.json` at the same root (which could not start there).

Exit status: 0 passed, 1 failed, 77 skipped (a client cannot be installed here).
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

from clientlib import BIN_DIR, HERE, REPO, install, log, read_text, run_tests, scratch_dir
import codex_cli
import gemini_cli
import npmcache
from fake_openai import API_KEY_ENV, FakeOpenAI, provider_config

FAKE_MCP = os.path.join(HERE, "fake_mcp.py")
CODEX = GEMINI = None  # set in main()


def stand_in(path, record_dir):
    """Replace the executable at `path` with a stand-in MCP server recording where it ran."""
    os.unlink(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("#!/bin/sh\n"
                 f"pwd > '{record_dir}/cwd'\n"
                 f"printf '%s\\n' \"$@\" > '{record_dir}/args'\n"
                 f"exec '{sys.executable}' '{FAKE_MCP}' '{record_dir}/calls.jsonl'\n")
    os.chmod(path, 0o755)


class MemoryToolsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = scratch_dir(self, "mem0 memory tools ")
        self.home = os.path.join(self.scratch, "home")
        self.project = os.path.join(self.scratch, "project")
        self.bin = os.path.join(self.scratch, "bin")
        self.record = os.path.join(self.scratch, "record")
        for d in (self.home, self.project, self.bin, self.record):
            os.makedirs(d)
        self.cli = os.path.join(self.bin, "mem0-hooks")
        shutil.copy2(os.path.join(BIN_DIR, "mem0-hooks"), self.cli)

    def install(self, agent, env):
        proc = install(self, agent, env, self.project, cli=self.cli)
        log(f"    mem0-hooks install --agent {agent}: "
            + "; ".join(line for line in proc.stdout.splitlines() if "memory tools" in line))
        return proc

    def recorded(self):
        return read_text(os.path.join(self.record, "cwd")).strip(), \
            read_text(os.path.join(self.record, "args")).split()

    def test_codex(self):
        if not CODEX:
            self.skipTest("Codex CLI is not available here")
        codex_home = os.path.join(self.home, ".codex")
        os.makedirs(codex_home)
        config = os.path.join(codex_home, "config.toml")
        env = codex_cli.client_env(self.home, codex_home, **{API_KEY_ENV: "sk-test-0000"})
        with FakeOpenAI(script=()) as api:
            before = provider_config(api.url)
            with open(config, "w", encoding="utf-8") as fh:
                fh.write(before)
            self.install("codex", env)
            text = read_text(config)
            self.assertTrue(text.startswith(before), text)
            self.assertIn(f'[mcp_servers.mem0]\ncommand = "{self.cli}"\nargs = ["mcp"]\n', text)
            listed = subprocess.run([CODEX, "mcp", "list", "--json"], env=env, cwd=self.project,
                                    capture_output=True, text=True, timeout=60,
                                    stdin=subprocess.DEVNULL)
            self.assertEqual(listed.returncode, 0, listed.stderr)
            servers = {s.get("name"): s for s in json.loads(listed.stdout)}
            self.assertIn("mem0", servers, listed.stdout)
            transport = servers["mem0"].get("transport") or servers["mem0"]
            self.assertEqual((transport.get("command"), transport.get("args")),
                             (self.cli, ["mcp"]), listed.stdout)
            log(f"    codex mcp list: mem0 -> {self.cli} mcp")

            stand_in(self.cli, self.record)
            proc = codex_cli.run(CODEX, "hello", self.project, env)
            self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
            tools = [t.get("name") for r in api.responses()
                     for t in r["body"].get("tools") or []]
        self.assertEqual(self.recorded(), (os.path.realpath(self.project), ["mcp"]),
                         proc.stderr[-3000:])
        self.assertTrue(any(name and "mem0" in name for name in tools), tools)
        log(f"    codex exec started it in the project directory; the model was offered "
            f"{[n for n in tools if n and 'mem0' in n]}")

    def test_gemini(self):
        if not GEMINI:
            self.skipTest("Gemini CLI is not available here")
        env = gemini_cli.client_env(self.home, "http://127.0.0.1:9")
        gemini_cli.write_settings(self.home)
        self.install("gemini-cli", env)
        settings = json.loads(read_text(os.path.join(self.home, ".gemini", "settings.json")))
        self.assertEqual(settings["mcpServers"]["mem0"], {"command": self.cli, "args": ["mcp"]})
        stand_in(self.cli, self.record)
        out = self.gemini_mcp_list(env)
        self.assertRegex(out, r"mem0\b.*Connected", out)
        self.assertEqual(self.recorded(), (os.path.realpath(self.project), ["mcp"]))
        log("    gemini mcp list: " + next(line.strip() for line in out.splitlines()
                                           if "mem0" in line))

        # The extension instead of install: the same server, from the extension's directory.
        gemini_cli.write_settings(self.home)  # no server of install's
        checkout = os.path.join(self.scratch, "checkout")
        shutil.copytree(os.path.join(REPO, "gemini-extension"),
                        os.path.join(checkout, "gemini-extension"))
        # Not built yet: the server's command fails at once, saying so.
        run_cjs = os.path.join(checkout, "gemini-extension", "hooks", "run.cjs")
        unbuilt = subprocess.run(["node", run_cjs, "mem0-hooks", "mcp"], capture_output=True,
                                 text=True, timeout=30, stdin=subprocess.DEVNULL)
        self.assertEqual(unbuilt.returncode, 1, unbuilt.stderr)
        self.assertIn("mem0: cannot run ", unbuilt.stderr)
        os.makedirs(os.path.join(checkout, "build", "bin"))
        shutil.copy2(self.cli, os.path.join(checkout, "build", "bin", "mem0-hooks"))
        os.unlink(os.path.join(self.record, "cwd"))
        ext = os.path.join(checkout, "gemini-extension")
        linked = subprocess.run([GEMINI, "extensions", "link", ext, "--consent"], env=env,
                                cwd=self.project, capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
        self.assertEqual(linked.returncode, 0, linked.stdout + linked.stderr)
        out = self.gemini_mcp_list(env)
        self.assertRegex(out, r"mem0 \(from mem0-native-hooks\).*node .*run\.cjs mem0-hooks mcp"
                              r".*Connected", out)
        self.assertEqual(self.recorded(), (os.path.realpath(self.project), ["mcp"]))
        log("    extension: " + next(line.strip() for line in out.splitlines() if "mem0" in line))

    def gemini_mcp_list(self, env):
        proc = subprocess.run([GEMINI, "mcp", "list"], env=env, cwd=self.project,
                              capture_output=True, text=True, timeout=90,
                              stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return proc.stdout + proc.stderr

    def test_codex_plugin_carries_no_server(self):
        if not CODEX:
            self.skipTest("Codex CLI is not available here")
        checkout = os.path.join(self.scratch, "checkout")
        for rel in (".agents/plugins/marketplace.json", ".codex-plugin/plugin.json",
                    "hooks/codex-hooks.json", ".mcp.json", ".claude-plugin/plugin.json"):
            os.makedirs(os.path.dirname(os.path.join(checkout, rel)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, rel), os.path.join(checkout, rel))
        codex_home = os.path.join(self.home, ".codex")
        os.makedirs(codex_home)
        env = codex_cli.client_env(self.home, codex_home)
        for args in (["plugin", "marketplace", "add", checkout],
                     ["plugin", "add", "mem0-native-hooks@mem0-native-hooks"], ["mcp", "list"]):
            proc = subprocess.run([CODEX, *args], env=env, capture_output=True, text=True,
                                  timeout=120, stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("No MCP servers configured", proc.stdout, proc.stdout)
        log("    codex plugin installed: codex mcp list has no server of the plugin's")


def main():
    global CODEX, GEMINI
    if not os.access(os.path.join(BIN_DIR, "mem0-hooks"), os.X_OK):
        log(f"FAILED: {BIN_DIR}/mem0-hooks is not built; build first (scripts/build.sh)")
        return 1
    for name, ensure, setter in (("Codex CLI", codex_cli.ensure_codex, "CODEX"),
                                 ("Gemini CLI", gemini_cli.ensure_gemini_cli, "GEMINI")):
        try:
            globals()[setter] = ensure(log=log)
        except npmcache.Unavailable as exc:
            log(f"{name} is not available here: {exc}")
    if not CODEX and not GEMINI:
        log("SKIPPED: neither Codex CLI nor Gemini CLI is available")
        return 77
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
