#!/usr/bin/env python3
"""Real-client end-to-end test: a real Codex CLI runs the built hooks.

Codex CLI (pinned, installed from npm into a cache dir, see codex_cli.py) runs `codex exec`
headless in a throw-away project (a git repository whose origin gives the project id) against
two loopback stand-ins:
- fake_openai.py for the OpenAI Responses API, as a custom `model_providers` entry in
  `$CODEX_HOME/config.toml`: the "model" answers the first call with a shell call and the second
  (carrying the command's output) with plain text;
- tests/fake_mem0 for the Mem0 API, seeded with memories of this user and project, one of them
  stored as a Claude Code session's capture is (`metadata.agent` "claude-code").
The hooks are wired in `$CODEX_HOME/hooks.json` as `<build>/bin/<hook> --agent codex`, from the
hook table's Codex rows (by `mem0-hooks install --agent codex` once the CLI has it), and
`--dangerously-bypass-hook-trust` runs them without the interactive trust step.

It checks what reached the model (each hook's context arrives as a `developer` message):
- test_1: the prompt's memory line and the Claude Code capture in the first request; the
  file-scoped memory of `cat src/billing/invoice.py` (2 KB) in the request that carries the
  command's output; the Stop capture at the Mem0 stand-in with metadata.agent "codex"; and
  Codex accepted every output of ours (it prints "hook: <Event> Failed" for one it rejects).
- test_2: a failing command's error line finds the anti-pattern memory (PostToolUse).
- test_3: an automatic compaction (forced by a tiny `model_auto_compact_token_limit`): the
  summary Codex wrote to its rollout reaches Mem0 as a compact_summary of agent "codex".

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories (requests, hooks.log, Codex's output).
"""

import json
import os
import shlex
import subprocess
import sys
import time

from billing import (FAIL_COMMAND, FINAL_TEXT, M_CLAUDE, M_ERROR, M_FILE, M_PROMPT, PROJECT_ID,
                     PROMPT, REL, USER, BillingTest)
from clientlib import (BIN_DIR, ClientRun, adds_from, client_or_exit, locate, log, read_text,
                       run_tests)
import codex_cli
from fake_openai import API_KEY_ENV, FakeOpenAI, provider_config, shell, text
from seeds import tag
import wiring

CODEX = None  # set in main()
RUN_TIMEOUT_S = 120
CAPTURE_WAIT_S = 10.0  # the sender is detached: how long to poll the fake Mem0 for an add

COMPACT_SUMMARY = ("Handoff summary: the user asked how partial refunds are rounded; the invoice "
                   "module was read, and refunds round half up on the whole line in cents.")
# config.toml lines that make Codex compact after the first model call (which reports 5,000
# tokens used).
COMPACT_CONFIG = "model_auto_compact_token_limit = 1000\nmodel_context_window = 8000\n"

def codex_rows():
    """(event, matcher, executable, timeout) of each Codex row of the hook table."""
    return [(event, matcher, exe, timeout)
            for agent, exe, event, matcher, timeout, _ in wiring.table_rows() if agent == "codex"]


def install_hooks(codex_home, env):
    """Wire the Codex rows into $CODEX_HOME/hooks.json: with `mem0-hooks install --agent codex`
    when the CLI has it, else as it would (the table's rows, `<bin>/<hook> --agent codex`)."""
    cli = os.path.join(BIN_DIR, "mem0-hooks")
    proc = subprocess.run([cli, "install", "--agent", "codex"], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    if proc.returncode == 0 and os.path.exists(os.path.join(codex_home, "hooks.json")):
        return f"written by {cli} install --agent codex"
    hooks = {}
    for event, matcher, exe, timeout in codex_rows():
        command = f"{shlex.quote(os.path.join(BIN_DIR, exe))} --agent codex"
        entry = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
        if matcher:
            entry["matcher"] = matcher
        hooks.setdefault(event, []).append(entry)
    with open(os.path.join(codex_home, "hooks.json"), "w", encoding="utf-8") as fh:
        json.dump({"hooks": hooks}, fh, indent=2)
    return "written by the test from runtime/table.hpp (no `mem0-hooks install --agent codex`)"


def developer_texts(body):
    """The text of each developer message of a Responses-API request body after Codex's own
    (its instructions and skill list come first), in order."""
    out = []
    for item in (body.get("input") or [])[2:]:
        if isinstance(item, dict) and item.get("role") == "developer":
            out.append("\n".join(c.get("text", "") for c in item.get("content") or []
                                 if isinstance(c, dict)))
    return out


def carries_output(body):
    return any(isinstance(i, dict) and i.get("type") == "function_call_output"
               for i in body.get("input") or [])


class Run(ClientRun):
    """One `codex exec` run and what it left behind."""

    def hook_lines(self):
        return [line for line in self.stderr.splitlines() if line.startswith("hook: ")]


class CodexTest(BillingTest):
    scratch_prefix = "mem0_codex_"

    def setUp(self):
        super().setUp()
        assert os.path.getsize(os.path.join(self.project, REL)) >= 1500  # the read hook's floor
        self.codex_home = os.path.join(self.scratch, "codex-home")
        os.makedirs(self.codex_home)
        self.config_tail = ""  # config.toml lines kept under each run's (the plugin's)
        self.wire()

    def wire(self):
        """Wire the hooks into Codex (test_codex_plugin.py installs the plugin instead)."""
        log("    hooks.json " + install_hooks(self.codex_home, self.env()))

    def env(self):
        """The whole environment of a run (codex_cli.client_env): Codex's home, the stand-ins'
        key and URL, the hooks' debug log on."""
        return codex_cli.client_env(self.home, self.codex_home,
                                    **{API_KEY_ENV: "sk-test-0000", **self.mem0_env()})

    def codex(self, script, prompt=PROMPT, compact=False):
        with FakeOpenAI(script=script, usage_tokens=5000 if compact else 120,
                        summary=COMPACT_SUMMARY) as api:
            with open(os.path.join(self.codex_home, "config.toml"), "w") as fh:
                fh.write((COMPACT_CONFIG if compact else "") + provider_config(api.url) +
                         self.config_tail)
            env = self.env()
            start = time.monotonic()
            proc = codex_cli.run(CODEX, prompt, self.project, env, timeout=RUN_TIMEOUT_S)
            elapsed = time.monotonic() - start
            requests = api.responses()
        run = Run("codex", proc, elapsed, requests,
                  read_text(os.path.join(self.home, ".mem0", "hooks.log")))
        log(f"    codex exec: exit {run.returncode} in {elapsed:.2f} s, "
            f"{len(requests)} model requests; {', '.join(run.hook_lines())}")
        with open(os.path.join(self.scratch, f"run-{len(os.listdir(self.scratch))}.json"),
                  "w") as fh:
            json.dump({"stderr": run.stderr, "requests": requests}, fh, indent=1)
        self.assertEqual(run.returncode, 0, str(run))
        return run

    def assert_accepted(self, run):
        failed = [line for line in run.hook_lines() if not line.endswith(" Completed")
                  and line.count(" ") > 1]
        self.assertEqual(failed, [], f"Codex did not accept a hook's output\n{run}")

    def wait_for_adds(self, source="stop"):
        return adds_from(self.mem0, source, CAPTURE_WAIT_S)

    def test_1_prompt_read_and_capture(self):
        run = self.codex([shell(f"cat {REL}"), text(FINAL_TEXT)])
        self.assertEqual([r["reply"] for r in run.requests], ["shell", "text"], str(run))
        first, second = (r["body"] for r in run.requests)
        self.assert_accepted(run)

        # The prompt's recall reaches the first request as a developer message, with the memory
        # a Claude Code session captured under the same user and project.
        first_dev = "\n".join(developer_texts(first))
        self.assertTrue(tag(M_PROMPT) in first_dev, str(run))
        self.assertTrue(tag(M_CLAUDE) in first_dev, str(run))
        self.assertFalse(tag(M_FILE) in first_dev, "the file memory is for the read")

        # The read's recall reaches the request carrying the command's output.
        self.assertTrue(carries_output(second))
        self.assertTrue(tag(M_FILE) in "\n".join(developer_texts(second)), str(run))
        self.assertEqual(len(locate(second, tag(M_FILE))), 1, "shown once")

        # The Stop capture reaches Mem0, as this agent's.
        stop = self.wait_for_adds("stop")
        self.assertEqual(len(stop), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")
        add = stop[0]
        self.assertEqual(add["metadata"].get("agent"), "codex")
        self.assertTrue(add["metadata"].get("session_id", "").startswith("codex-"), add)
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        self.assertIn(FINAL_TEXT, json.dumps(add["messages"]))

    def test_2_error_recall(self):
        run = self.codex([shell(FAIL_COMMAND), text("The upload is too large for the gateway.")],
                         prompt="Upload the nightly export")
        self.assert_accepted(run)
        second = run.requests[1]["body"]
        self.assertTrue(carries_output(second))
        self.assertTrue(tag(M_ERROR) in "\n".join(developer_texts(second)), str(run))

    def test_3_compaction_capture(self):
        run = self.codex([shell(f"cat {REL}"), text(FINAL_TEXT)], compact=True)
        self.assertEqual([r["reply"] for r in run.requests], ["shell", "summary", "text"],
                         str(run))
        self.assert_accepted(run)
        adds = self.wait_for_adds("compact")
        self.assertEqual(len(adds), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")
        self.assertEqual(adds[0]["metadata"].get("agent"), "codex")
        self.assertEqual(adds[0]["metadata"].get("type"), "compact_summary")
        self.assertIn(COMPACT_SUMMARY, json.dumps(adds[0]["messages"]))
        self.assertNotIn("Another language model", json.dumps(adds[0]["messages"]))


def main():
    global CODEX
    CODEX = client_or_exit("Codex CLI", codex_cli.ensure_codex,
                           [exe for _, _, exe, _ in codex_rows()])
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
