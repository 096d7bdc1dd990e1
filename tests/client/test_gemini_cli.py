#!/usr/bin/env python3
"""Real-client test: a real Gemini CLI runs the built hooks (docs/agents.md#gemini-cli).

Gemini CLI (pinned, installed from npm into a cache dir, see gemini_cli.py) runs
`gemini -p <prompt>` headless in a throw-away project against two loopback stand-ins:
fake_gemini.py for the Gemini API and tests/fake_mem0 for Mem0. The hooks are the built
executables with `--agent gemini-cli`, wired in $HOME/.gemini/settings.json from the Gemini CLI
rows of runtime/table.hpp by `mem0-hooks install --agent gemini-cli` (or, in the last test, by
linking the repository's Gemini CLI extension).

What it proves:
- the prompt hook's memory lines reach the model's first request, and the file hook's lines
  reach the request that carries read_file's result (a relative path, a file of 1,500 bytes or
  more), and no earlier one;
- a failed shell command's error line is looked up and its memory reaches the next request;
- the turn's capture (AfterAgent) reaches the Mem0 stand-in with metadata.agent "gemini-cli",
  holding the answer once;
- a memory captured by on_stop as Claude Code runs it (no --agent: metadata.agent
  "claude-code") is recalled in a Gemini CLI session of the same project;
- `gemini extensions link gemini-extension` wires the same hooks, and they run.

Exit status: 0 passed, 1 failed, 77 skipped (no npm / Node 20, or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import unittest

from clientlib import BIN_DIR, REPO, client_or_exit, locate, log, run_tests, scratch_dir
import gemini_cli
from fake_gemini import FakeGemini, text_of
from fakelib import FakeMem0
import seeds
from test_claude_code import (FILE_HEADER, FILE_MEM, FILE_TAG, PROMPT, PROMPT_HEADING, PROMPT_LINE,
                              PROMPT_MEM, REL, USER)
import wiring

GEMINI = None  # set in main()
RUN_TIMEOUT_S = 120
CAPTURE_WAIT_S = 20

PROJECT_ID = "proj-gemini-e2e"
FINAL_TEXT = ("Done: invoice.py keeps every amount in integer cents and rounds tax half up on "
              "the whole line, never per unit, so partial refunds never lose a cent.")

ERROR_MEM = "badc0de0-3333-4333-8333-000000000003"   # matches the shell command's error line
memory = seeds.builder(user=USER, project=PROJECT_ID, created="2026-10-01T09:00:00Z")

# The memories of test_claude_code.py, in this project, and one for a failing command.
SEED = [
    memory(PROMPT_MEM, "partial refund rounding rule", "fact"),
    memory(FILE_MEM, "src billing invoice py stores money as integer cents", "note"),
    memory(ERROR_MEM, "ModuleNotFoundError: No module named 'ledger_core' means the "
           "venv is not active", "anti_pattern"),
]
ERROR_TAG = seeds.tag(ERROR_MEM)
FAILING_COMMAND = "python3 -c 'import ledger_core'"  # a traceback, exit status 1

CLAUDE_TEXT = ("Decided: the settlement exporter writes ledger batches as CSV with a trailing "
               "checksum row, because the bank's importer rejects files without one.")
CLAUDE_PROMPT = "Why does the settlement exporter write ledger batches as CSV with a checksum row?"

def table_rows():
    """(executable, event, matcher, timeout in seconds) of each Gemini CLI row of the table."""
    return [(exe, event, matcher, timeout)
            for agent, exe, event, matcher, timeout, _ in wiring.table_rows()
            if agent == "gemini-cli"]


def settings_hooks(bin_dir):
    """The `hooks` of settings.json for the table's rows: timeouts in milliseconds, a name each."""
    hooks = {}
    for exe, event, matcher, timeout in table_rows():
        group = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"name": f"mem0-{exe}", "type": "command",
                           "command": f"{shlex.quote(os.path.join(bin_dir, exe))} "
                                      f"--agent gemini-cli",
                           "timeout": timeout * 1000}]
        hooks.setdefault(event, []).append(group)
    return hooks


def wired_rows(hooks):
    """(event, matcher, name, timeout, command's tail) of each hook in settings' `hooks`."""
    return sorted((event, group.get("matcher", ""), hook.get("name"), hook.get("timeout"),
                   hook.get("command", "").rsplit("/", 1)[-1])
                  for event, groups in hooks.items() for group in groups
                  for hook in group.get("hooks", []))


def invoice_text():
    body = "".join(f"def line_{i}(cents: int) -> int:\n    return cents * {i} // 100\n\n\n"
                   for i in range(1, 40))
    return '"""Invoices: totals and rounding. Money is kept in integer cents."""\n\n' + body


def user_parts(body):
    """The text parts of the request's last user content."""
    contents = [c for c in body.get("contents") or [] if c.get("role") == "user"]
    return [p.get("text") for p in (contents[-1].get("parts") if contents else [])
            if isinstance(p.get("text"), str)]


def function_outputs(body):
    """(name, output text) of each functionResponse in the request."""
    out = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            response = part.get("functionResponse")
            if response:
                out.append((response.get("name"), json.dumps(response.get("response"))))
    return out


class GeminiCliTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.scratch = scratch_dir(self, "mem0_gemini_")
        self.home = os.path.join(self.scratch, "home")
        self.project = os.path.join(self.scratch, "project")
        os.makedirs(self.home)
        self.sample = os.path.join(self.project, REL)
        os.makedirs(os.path.dirname(self.sample))
        with open(self.sample, "w", encoding="utf-8") as fh:
            fh.write(invoice_text())
        self.assertGreaterEqual(os.path.getsize(self.sample), 1500)
        self.mem0 = FakeMem0(seed=SEED).start()
        self.addCleanup(self.mem0.stop)

    def env(self, api_url):
        extra = {"MEM0_BASE_URL": self.mem0.url, "MEM0_USER_ID": USER, "USER": USER,
                 "MEM0_API_KEY": self.mem0.api_key, "MEM0_PROJECT_ID": PROJECT_ID}
        if self.mem0.backend != "platform":
            extra["MEM0_BACKEND"] = self.mem0.backend
        return gemini_cli.client_env(self.home, api_url, **extra)

    def gemini(self, api, prompt, *args):
        log(f"    running: gemini -p {prompt!r} {' '.join(args)}".rstrip())
        start = time.monotonic()
        proc = gemini_cli.run(GEMINI, prompt, self.project, self.env(api.url), args,
                              timeout=RUN_TIMEOUT_S)
        turns = [r["body"] for r in api.turns()]
        info = (f"gemini exit {proc.returncode}\nstdout: {proc.stdout[-1500:]}\n"
                f"stderr: {proc.stderr[-3000:]}\nrequests: "
                f"{[(r['method'], r['path'], r['reply']) for r in api.requests()]}\n"
                f"mem0 searches: {[s.get('query') for s in self.mem0.searches()]}")
        if os.environ.get("MEM0_CLIENT_KEEP"):
            with open(os.path.join(self.scratch, "requests.json"), "w") as fh:
                json.dump(api.requests(), fh, indent=1)
        log(f"    gemini exited {proc.returncode} after {time.monotonic() - start:.1f} s; "
            f"{len(turns)} turn(s), {len(api.side_calls())} side call(s)")
        self.assertEqual(proc.returncode, 0, info)
        return turns, info

    def wire_hooks(self):
        """$HOME/.gemini/settings.json: the test's settings, then the hooks as
        `mem0-hooks install --agent gemini-cli` writes them (from the table when this build has no
        such command), checked against the table's rows."""
        path = gemini_cli.write_settings(self.home)
        cli = os.path.join(BIN_DIR, "mem0-hooks")
        proc = subprocess.run([cli, "install", "--agent", "gemini-cli"], cwd=self.project,
                              env=self.env("http://127.0.0.1:9"), capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        if proc.returncode == 2 and "gemini-cli" not in proc.stderr:
            log("    (mem0-hooks has no --agent gemini-cli: settings written from the table)")
            gemini_cli.write_settings(self.home, settings_hooks(BIN_DIR))
        else:
            self.assertEqual(proc.returncode, 0, f"{proc.stdout}\n{proc.stderr}")
        with open(path, encoding="utf-8") as fh:
            settings = json.load(fh)
        self.assertEqual(settings["security"]["auth"]["selectedType"], "gemini-api-key")
        self.assertEqual(wired_rows(settings["hooks"]), wired_rows(settings_hooks(BIN_DIR)))

    def wait_for_adds(self, want):
        start = time.monotonic()
        while True:
            adds = self.mem0.adds()
            if want(adds) or time.monotonic() - start > CAPTURE_WAIT_S:
                return adds
            time.sleep(0.1)

    def check_prompt_recall(self, turns, info):
        """The prompt hook's lines reached the first turn, as a <hook_context> part of it."""
        parts = user_parts(turns[0])
        # Headless, SessionStart's context comes first, in the prompt's own part.
        prompt = [p for p in parts if p.endswith("\n\n" + PROMPT)]
        self.assertTrue(prompt, info)
        self.assertTrue(prompt[0].startswith("<hook_context>### mem0: "), prompt[0])
        context = [p for p in parts if PROMPT_LINE in p]
        self.assertTrue(context, f"{PROMPT_LINE!r} not in the first turn's prompt\n{info}")
        self.assertTrue(context[0].startswith("<hook_context>"), context[0])
        self.assertIn(PROMPT_HEADING, context[0])

    def test_recall_capture(self):
        """Prompt and file recall reach the model; the turn's capture reaches Mem0."""
        self.wire_hooks()
        with FakeGemini(tool_call=("read_file", {"file_path": REL}),
                        final_text=FINAL_TEXT) as api:
            turns, info = self.gemini(api, PROMPT)
        self.assertEqual(len(turns), 2, info)
        self.check_prompt_recall(turns, info)
        self.assertFalse(locate(turns[0], FILE_HEADER), f"file lines before the read\n{info}")
        [(name, output)] = function_outputs(turns[1])
        self.assertEqual(name, "read_file")
        self.assertIn("integer cents", output)
        self.assertIn(FILE_HEADER, output, info)
        self.assertIn(FILE_TAG, output, info)
        self.assertIn("<hook_context>", output)
        log("    prompt lines in turn 1, file lines in read_file's result in turn 2")
        self.assertEqual([s.get("query") for s in self.mem0.searches()][:2],
                         [PROMPT, f"{REL} {os.path.basename(REL)}"], info)

        def summary(adds):
            return [a for a in adds if (a.get("metadata") or {}).get("type") == "session_summary"]

        adds = self.wait_for_adds(lambda adds: summary(adds))
        self.assertEqual(len(summary(adds)), 1, json.dumps(adds)[:3000])
        add = summary(adds)[0]
        self.assertEqual(add["metadata"].get("agent"), "gemini-cli", json.dumps(add))
        self.assertTrue(add["metadata"].get("session_id", "").startswith("gemini-cli-"),
                        json.dumps(add))
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        [message] = add["messages"]
        # The answer once (from the transcript), not prompt_response's repeated pieces.
        self.assertEqual(message["content"], "Let me look.\n" + FINAL_TEXT, json.dumps(add))
        log(f"    capture: {message['content'][:60]}... metadata {add['metadata']}")

    def test_error_recall(self):
        """A failed run_shell_command's error line finds its memory, shown with the result."""
        self.wire_hooks()
        call = ("run_shell_command", {"command": FAILING_COMMAND, "description": "Run it."})
        with FakeGemini(tool_call=call, final_text=FINAL_TEXT) as api:
            turns, info = self.gemini(api, "Run the ledger import", "--yolo")
        self.assertEqual(len(turns), 2, info)
        [(name, output)] = function_outputs(turns[1])
        self.assertEqual(name, "run_shell_command")
        self.assertIn("Exit Code: 1", output, info)
        self.assertIn(ERROR_TAG, output, info)
        self.assertFalse(locate(turns[0], ERROR_TAG), info)
        queries = [s.get("query") for s in self.mem0.searches()]
        self.assertTrue(any("ledger_core" in (q or "") for q in queries), info)
        log(f"    error memory in run_shell_command's result; searches {queries}")

    def test_claude_code_capture_recalled(self):
        """What on_stop captured as Claude Code is recalled in a Gemini CLI session."""
        stop = {"session_id": "claude-session-1", "cwd": self.project,
                "hook_event_name": "Stop", "permission_mode": "default",
                "last_assistant_message": CLAUDE_TEXT, "stop_hook_active": False}
        # The same HOME (state), identity and Mem0 as the Gemini CLI run below.
        proc = subprocess.run([os.path.join(BIN_DIR, "on_stop")], input=json.dumps(stop),
                              cwd=self.project, env=self.env("http://127.0.0.1:9"),
                              capture_output=True, text=True, timeout=30)
        self.assertEqual((proc.returncode, proc.stdout), (0, ""), proc.stderr)
        adds = self.wait_for_adds(lambda adds: adds)
        self.assertEqual(len(adds), 1, json.dumps(adds))
        self.assertEqual(adds[0]["metadata"].get("agent"), "claude-code", json.dumps(adds))
        memory = next(m for m in self.mem0.memories() if CLAUDE_TEXT[:40] in m.get("memory", ""))
        tag = seeds.tag(memory["id"])

        self.wire_hooks()
        with FakeGemini(final_text=FINAL_TEXT) as api:
            turns, info = self.gemini(api, CLAUDE_PROMPT)
        self.assertIn(tag, text_of(turns[0]), f"{tag} not in the first turn\n{info}")
        log(f"    Claude Code's capture {tag} recalled in Gemini CLI's first turn")

    def test_extension_link(self):
        """The repository's extension, linked, runs the same hooks."""
        ext = os.path.join(REPO, "gemini-extension")
        if os.path.realpath(BIN_DIR) != os.path.realpath(os.path.join(REPO, "build", "bin")):
            # Its hooks/run.cjs runs ${extensionPath}/../build/bin/<hook>: give a copy that bin.
            copy = os.path.join(self.scratch, "ext")
            shutil.copytree(ext, os.path.join(copy, "gemini-extension"))
            os.makedirs(os.path.join(copy, "build"))
            os.symlink(BIN_DIR, os.path.join(copy, "build", "bin"))
            ext = os.path.join(copy, "gemini-extension")
        gemini_cli.write_settings(self.home)  # no hooks of its own
        with FakeGemini(final_text=FINAL_TEXT) as api:
            env = self.env(api.url)
            for cmd in (["extensions", "validate", ext],
                        ["extensions", "link", ext, "--consent"], ["extensions", "list"]):
                proc = subprocess.run([GEMINI, *cmd], cwd=self.project, env=env,
                                      capture_output=True, text=True, timeout=60,
                                      stdin=subprocess.DEVNULL)
                self.assertEqual(proc.returncode, 0, f"{cmd}: {proc.stdout}\n{proc.stderr}")
            self.assertIn("mem0-native-hooks", proc.stdout + proc.stderr)  # list: on stderr
            turns, info = self.gemini(api, PROMPT)
        self.check_prompt_recall(turns, info)
        log("    linked extension: prompt lines in turn 1")


def main():
    global GEMINI
    GEMINI = client_or_exit("Gemini CLI", gemini_cli.ensure_gemini_cli)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
