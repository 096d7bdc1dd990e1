#!/usr/bin/env python3
"""Real-client end-to-end test: the repository's Codex plugin, installed with Codex's own commands.

The same client, stand-ins and cases as test_codex.py, but the hooks come from the plugin
(`.codex-plugin/plugin.json`, `hooks/codex-hooks.json`, the marketplace
`.agents/plugins/marketplace.json`), not from `$CODEX_HOME/hooks.json`:

    codex plugin marketplace add <checkout>
    codex plugin add mem0-native-hooks@mem0-native-hooks

The checkout is a scratch copy of the plugin's files (the Claude Code manifest and hooks.json
too, as in the repository, so Codex has to pick its own) with the built hooks under build/bin:
Codex copies the plugin's directory into `$CODEX_HOME/plugins/cache/…` and leaves symbolic links
out of the copy, so the executables are real files there. Each case then checks what reached the
model and Mem0 (test_codex.py): the prompt's and the read's memory lines in the model requests,
the Stop and compaction captures as agent "codex" (the commands' `--agent codex`).

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
"""

import json
import os
import shutil
import subprocess
import sys

from clientlib import BIN_DIR, REPO, client_or_exit, log, run_tests
import codex_cli
import test_codex

MARKETPLACE = "mem0-native-hooks"
PLUGIN = "mem0-native-hooks"
# The repository's files a Codex plugin install reads (and Claude Code's, which Codex also
# knows: .claude-plugin/plugin.json is in its list of manifests).
PLUGIN_FILES = [".agents/plugins/marketplace.json", ".codex-plugin/plugin.json",
                "hooks/codex-hooks.json", "scripts/first-run.sh",
                ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks.json"]


def place(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)  # the executables are large: a hard link when the file system allows
    except OSError:
        shutil.copy2(src, dst)


class CodexPluginTest(test_codex.CodexTest):

    def wire(self):
        checkout = os.path.join(self.scratch, "checkout")
        for rel in PLUGIN_FILES:
            place(os.path.join(REPO, rel), os.path.join(checkout, rel))
        for _, _, exe, _ in test_codex.codex_rows():
            place(os.path.join(BIN_DIR, exe), os.path.join(checkout, "build", "bin", exe))

        def codex(*args):
            proc = subprocess.run([test_codex.CODEX, *args], env=self.env(), capture_output=True,
                                  text=True, timeout=120, stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, f"codex {' '.join(args)}: {proc.stderr}")
            return proc.stdout

        log("    " + codex("plugin", "marketplace", "add", checkout).strip().replace("\n", "; "))
        added = json.loads(codex("plugin", "add", f"{PLUGIN}@{MARKETPLACE}", "--json"))
        log(f"    codex plugin add --json: {json.dumps(added)}")
        listed = codex("plugin", "list")
        self.assertRegex(listed, rf"{PLUGIN}@{MARKETPLACE}\s+installed, enabled", listed)

        # The hooks come from the plugin alone: no hooks.json of Codex's own, and the copy
        # Codex made holds the executables the commands run.
        self.assertFalse(os.path.exists(os.path.join(self.codex_home, "hooks.json")))
        cache = os.path.join(self.codex_home, "plugins", "cache", MARKETPLACE, PLUGIN)
        roots = [os.path.join(cache, v) for v in os.listdir(cache)]
        self.assertEqual(len(roots), 1, roots)
        for _, _, exe, _ in test_codex.codex_rows():
            self.assertTrue(os.access(os.path.join(roots[0], "build", "bin", exe), os.X_OK), exe)

        # Each run rewrites config.toml for the model stand-in: keep what `plugin add` wrote.
        with open(os.path.join(self.codex_home, "config.toml"), encoding="utf-8") as fh:
            self.config_tail = "\n\n" + fh.read()
        self.assertIn(f'[plugins."{PLUGIN}@{MARKETPLACE}"]', self.config_tail)


def main():
    test_codex.CODEX = client_or_exit("Codex CLI", codex_cli.ensure_codex,
                                      [exe for _, _, exe, _ in test_codex.codex_rows()])
    return run_tests()  # this file's class only: test_codex's is not in this module


if __name__ == "__main__":
    sys.exit(main())
