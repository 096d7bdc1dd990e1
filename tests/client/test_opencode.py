#!/usr/bin/env python3
"""Real-client end-to-end test: a real OpenCode runs the built hooks through the shim.

OpenCode (pinned, installed from npm into a cache dir, see opencode_cli.py) runs `opencode run`
headless in a throw-away project (a git repository whose origin gives the project id) against
two loopback stand-ins:
- fake_chat.py for the OpenAI Chat Completions API, as a provider of
  `@ai-sdk/openai-compatible` in ~/.config/opencode/opencode.json;
- tests/fake_mem0 for the Mem0 API, seeded with memories of this user and project, one of them
  stored as a Claude Code session's capture is (`metadata.agent` "claude-code").
`mem0-hooks install --agent opencode` writes the shim (~/.config/opencode/plugins/mem0.js) and
the memory tools' server (`mcp.mem0` in opencode.json) into the scratch HOME.

It checks what reached the model:
- test_1: the session-start context, once; the prompt's memory line and the Claude Code capture
  in the first turn's user message (a synthetic part); the file memory of `read` in the tool
  result the next request carries; the turn's reply captured once at the Mem0 stand-in (its
  final text, not the text said before the tool call) with metadata.agent "opencode", our user
  and project.
- test_2: a failing bash command's error line finds the anti-pattern memory, in its result.
- test_3: the memory tools are offered to the model, and its call of mem0_search_memories is
  answered with the seeded memory.
- test_4: the command /mem0-search (`opencode run --command mem0-search …`) sends the model
  what `mem0-hooks peek` printed for the words typed, instead of the command's template.
- test_5: a compaction (forced by a small context limit on the model and a step that reports
  many tokens used) has its summary captured at the stand-in as a compact summary of
  metadata.agent "opencode"; the summary is not captured as a reply.

Exit status: 0 passed, 1 failed, 77 skipped (npm missing or the registry unreachable).
Set MEM0_CLIENT_KEEP=1 to keep the temporary directories.
"""

import json
import os
import sys
import time

from billing import (FAIL_COMMAND, FINAL_TEXT, M_CLAUDE, M_ERROR, M_FILE, M_PROMPT, PROJECT_ID,
                     PROMPT, REL, USER, BillingTest)
from clientlib import client_or_exit, log, read_text, run_tests
import opencode_cli
from fake_chat import FakeChat, message_texts, text, tool, tool_names
from seeds import tag
from waiting import wait_until

OPENCODE = None  # set in main()
RUN_TIMEOUT_S = 180
CAPTURE_WAIT_S = 10.0
SETTLE_S = 1.5  # after the capture awaited, for a second one to arrive

START_HEADING = f"memories for {PROJECT_ID} (user {USER}"  # on_session_start's heading
# Said before the read, in the same model message as the tool call: not the turn's reply. Long
# enough that on_stop would capture it, were it handed over as one.
BEFORE_TOOL = ("Before answering I will read the invoice module, because the rounding of partial "
               "refunds is decided there and nowhere else in the billing service.")
SUMMARY = ("Compaction summary: the user asked how partial refunds are rounded; the invoice "
           "module was read, which keeps integer cents and rounds half up per invoice line.")


class Run:
    """One `opencode run` and what it left behind."""

    def __init__(self, proc, elapsed, turns, hooks_log):
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.elapsed, self.turns, self.hooks_log = elapsed, turns, hooks_log

    def __str__(self):
        return "\n".join([f"opencode exit {self.returncode} in {self.elapsed:.2f} s",
                          f"stdout: {self.stdout[-1500:]}", f"stderr: {self.stderr[-2500:]}",
                          f"model turns: {[r['reply'] for r in self.turns]}",
                          "hooks.log:\n    " + "\n    ".join(self.hooks_log.splitlines()[-40:])])


def user_text(body):
    return "\n".join(message_texts(body, "user"))


def last_tool_result(body):
    results = message_texts(body, "tool")
    return results[-1] if results else ""


class OpenCodeTest(BillingTest):
    scratch_prefix = "mem0_opencode_"

    def setUp(self):
        super().setUp()
        self.install("opencode", self.env())

    def env(self):
        return opencode_cli.client_env(self.home, **self.mem0_env())

    def opencode(self, script, prompt=PROMPT, command=None, context_limit=None, usage_tokens=120):
        with FakeChat(script=script, usage_tokens=usage_tokens, summary=SUMMARY) as api:
            opencode_cli.write_config(self.home, api.url, context_limit=context_limit)
            start = time.monotonic()
            proc = opencode_cli.run(OPENCODE, prompt, self.project, self.env(),
                                    timeout=RUN_TIMEOUT_S, command=command)
            elapsed = time.monotonic() - start
            turns = api.turns()
        run = Run(proc, elapsed, turns, read_text(os.path.join(self.home, ".mem0", "hooks.log")))
        log(f"    opencode run: exit {run.returncode} in {elapsed:.2f} s, {len(turns)} turns")
        with open(os.path.join(self.scratch, f"run-{len(os.listdir(self.scratch))}.json"),
                  "w") as fh:
            json.dump({"stdout": proc.stdout, "stderr": proc.stderr, "turns": turns}, fh, indent=1)
        self.assertEqual(run.returncode, 0, str(run))
        self.assertNotIn("mem0:", run.stderr.replace("[mem0:", ""), "the shim logged a failure")
        return run

    def wait_for_adds(self, source, holding):
        """The stand-in's adds of metadata.source `source`, once one holds `holding` (or after
        CAPTURE_WAIT_S), and SETTLE_S more for any other to arrive."""
        if wait_until(lambda: any(holding in json.dumps(a["messages"])
                                  for a in self.adds(source)), CAPTURE_WAIT_S, 0.2):
            time.sleep(SETTLE_S)
        return self.adds(source)

    def adds(self, source):
        return [a for a in self.mem0.adds() if (a.get("metadata") or {}).get("source") == source]

    def test_1_prompt_read_and_capture(self):
        path = os.path.join(self.project, REL)
        run = self.opencode([tool("read", {"filePath": path}, say=BEFORE_TOOL), text(FINAL_TEXT)])
        self.assertEqual([r["reply"] for r in run.turns], ["tool", "text"], str(run))
        first, second = (r["body"] for r in run.turns)

        # The prompt's recall is a synthetic part of the user's message, with the memory a
        # Claude Code session captured under the same user and project.
        self.assertIn(tag(M_PROMPT), user_text(first), str(run))
        self.assertIn(tag(M_CLAUDE), user_text(first), str(run))
        self.assertNotIn(tag(M_FILE), json.dumps(first), "the file memory is for the read")
        # The session-start context comes with the session's first message, once.
        self.assertEqual(user_text(first).count(START_HEADING), 1, str(run))
        self.assertEqual(json.dumps(second).count(START_HEADING), 1, str(run))

        # The read's recall is in the tool result the model reads next, after the file.
        result = last_tool_result(second)
        self.assertIn("<content>", result)
        self.assertIn(tag(M_FILE), result.split("</content>", 1)[-1], str(run))

        # The turn's reply is captured once, its final text, as this agent's, for our user and
        # project; the text said before the tool call is not captured on its own.
        stop = self.wait_for_adds("stop", FINAL_TEXT)
        self.assertEqual(len(stop), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")
        add = stop[0]
        self.assertIn(FINAL_TEXT, json.dumps(add["messages"]))
        self.assertNotIn(BEFORE_TOOL, json.dumps(add["messages"]))
        self.assertEqual(add["metadata"].get("agent"), "opencode")
        self.assertTrue(add["metadata"].get("session_id", "").startswith("opencode-ses_"), add)
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))

    def test_2_error_recall(self):
        run = self.opencode([tool("bash", {"command": FAIL_COMMAND, "description": "upload"}),
                             text("The upload is too large for the gateway.")],
                            prompt="Upload the nightly export")
        result = last_tool_result(run.turns[1]["body"])
        self.assertIn("ValueError", result)
        self.assertIn(tag(M_ERROR), result, str(run))

    def test_3_memory_tools(self):
        run = self.opencode([tool("mem0_search_memories", {"query": "partial refund rounding"}),
                             text("Found it.")], prompt="What do my notes say?")
        self.assertIn("mem0_search_memories", tool_names(run.turns[0]["body"]), str(run))
        result = last_tool_result(run.turns[1]["body"])
        self.assertIn("partial refund rounding rule", result, str(run))

    def test_4_search_command(self):
        run = self.opencode([text("Here is what mem0 holds.")], prompt="partial refund rounding",
                            command="mem0-search")
        sent = user_text(run.turns[0]["body"])
        self.assertIn("Above is the output of `mem0-hooks peek`", sent, str(run))
        self.assertIn("partial refund rounding rule", sent, str(run))
        self.assertNotIn("did not run", sent, str(run))

    def test_5_compaction_summary(self):
        # A context of 1000 tokens and a step that reports 5000 used: OpenCode compacts after the
        # read (its summary request offers no tools: the stand-in answers SUMMARY), then goes on.
        path = os.path.join(self.project, REL)
        run = self.opencode([tool("read", {"filePath": path}, usage=5000), text(FINAL_TEXT)],
                            context_limit=1000, usage_tokens=120)
        self.assertEqual([r["reply"] for r in run.turns], ["tool", "text"], str(run))
        compact = self.wait_for_adds("compact", SUMMARY)
        self.assertEqual(len(compact), 1, f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")
        add = compact[0]
        self.assertIn(SUMMARY, json.dumps(add["messages"]))
        self.assertEqual(add["metadata"].get("type"), "compact_summary")
        self.assertEqual(add["metadata"].get("agent"), "opencode")
        self.assertTrue(add["metadata"].get("session_id", "").startswith("opencode-ses_"), add)
        self.assertEqual((add.get("user_id"), add.get("app_id")), (USER, PROJECT_ID))
        # The turn's reply is the text after the compaction, and the summary is not a reply.
        stop = self.wait_for_adds("stop", FINAL_TEXT)
        self.assertEqual([FINAL_TEXT in json.dumps(a["messages"]) for a in stop], [True],
                         f"{json.dumps(self.mem0.adds(), indent=1)}\n{run}")


def main():
    global OPENCODE
    OPENCODE = client_or_exit("OpenCode", opencode_cli.ensure_opencode)
    return run_tests()


if __name__ == "__main__":
    sys.exit(main())
